// The distributed hash map's operations: insert, find and erase of one key, their batches, and
// the protocol each takes towards a rank.
#include "hashmap_protocols.h"
#include "rpc.h"

namespace pgdds::containers {

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------
inline status hash_map::check_keyed(const char *who, const void *key, const void *value, unsigned concurrent,
                                    key_place &p) const
{
    if (!key) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    if (!value && value_size_) return fail(PGDDS_ERR_INVALID_ARG, "%s: value is NULL", who);
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    p = place(table_, key);
    return PGDDS_LIKELY(!(concurrent & PGDDS_CP_LOCAL)) ? PGDDS_OK : check_local(who, concurrent, p.owner);
}

status hash_map::insert(const char *who, const void *key, const void *value, unsigned concurrent,
                        pgdds_request_t *req)
{
    key_place p;
    status st = check_keyed(who, key, value, concurrent, p);
    if (st != PGDDS_OK) return st;
    if (calls_owner(p.owner))
        return call_owner(who, call_insert, p.owner, concurrent, key, value, value_size_, nullptr, 0, req);
    bool atomic = atomic_under(concurrent, PGDDS_CP_INSERT);
    auto k = static_cast<const uint8_t *>(key);
    auto v = static_cast<const uint8_t *>(value);
    st = with_memory(who, concurrent & PGDDS_CP_LOCAL, [&](auto &m) { return insert_with(m, table_, who, k, v, p, atomic); });
    return outcome(who, st, req);
}

status hash_map::find(const char *who, const void *key, void *value, unsigned concurrent, pgdds_request_t *req)
{
    key_place p;
    status st = check_keyed(who, key, value, concurrent, p);
    if (st != PGDDS_OK) return st;
    bool atomic = atomic_under(concurrent, PGDDS_CP_FIND);
    auto k = static_cast<const uint8_t *>(key);
    auto v = static_cast<uint8_t *>(value);
    if (calls_owner(p.owner) && (atomic || !cp_find_one_sided_))
        return call_owner(who, call_find, p.owner, concurrent, key, nullptr, 0, value, value_size_, req);
    if (calls_owner(p.owner)) {
        // A CP_FIND find only reads (no atomic meets the owner's CPU atomics): one R, priced
        // below a call.
        fabric_memory m(rt);
        st = find_with(m, who, k, v, p, false);
        if (m.failed()) st = fail_prefix(m.result(), who);
    } else {
        st = with_memory(who, concurrent & PGDDS_CP_LOCAL, [&](auto &m) { return find_with(m, who, k, v, p, atomic); });
    }
    return outcome(who, st == PGDDS_ERR_NOT_FOUND ? fail(st, "%s: no such key", who) : st, req);
}

status hash_map::erase(const char *who, const void *key, unsigned concurrent, pgdds_request_t *req)
{
    if (!key) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    key_place p = place(table_, key);
    st = check_local(who, concurrent, p.owner);
    if (st != PGDDS_OK) return st;
    if (calls_owner(p.owner)) return call_owner(who, call_erase, p.owner, concurrent, key, nullptr, 0, nullptr, 0, req);
    auto k = static_cast<const uint8_t *>(key);
    return outcome(who, with_memory(who, concurrent & PGDDS_CP_LOCAL, [&](auto &m) { return erase_with(m, who, k, p); }),
                   req);
}

bool hash_map::find_many_one_sided(size_t count, unsigned concurrent) const
{
    return !atomic_under(concurrent, PGDDS_CP_FIND) && count <= batch_group * find_many_groups_;
}

status hash_map::op_protocol(const char *who, int rank, int op, unsigned concurrent, int &out) const
{
    if (rank < 0 || rank >= rt->nranks())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: rank %d is not in [0, %d)", who, rank, rt->nranks());
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    const bool local = (concurrent & PGDDS_CP_LOCAL) != 0;
    if (local && rank != rt->rank())
        return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_CP_LOCAL is for this rank's own part (rank %d), not rank %d", who,
                    rt->rank(), rank);
    out = local ? PGDDS_PROTOCOL_DIRECT : protocol_to(rank);
    switch (op) {
    case PGDDS_CONTAINER_OP_INSERT:
    case PGDDS_CONTAINER_OP_ERASE:
    case PGDDS_CONTAINER_OP_INSERT_MANY: return PGDDS_OK;  // change the part: the container's protocol
    case PGDDS_CONTAINER_OP_FIND:
        if (out == PGDDS_PROTOCOL_RPC && !atomic_under(concurrent, PGDDS_CP_FIND) && cp_find_one_sided_)
            out = PGDDS_PROTOCOL_RDMA;
        return PGDDS_OK;
    case PGDDS_CONTAINER_OP_FIND_MANY:  // a batch of one group of keys
        if (out == PGDDS_PROTOCOL_RPC && find_many_one_sided(batch_group, concurrent)) out = PGDDS_PROTOCOL_RDMA;
        return PGDDS_OK;
    default:
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not an operation of a hash map (PGDDS_CONTAINER_OP_INSERT, "
                    "_FIND, _ERASE, _INSERT_MANY, _FIND_MANY)", who, op);
    }
}

// The promise and owner checks of a batched call (its pointers checked), then
// group(m, first, n, atomic) for each group of up to batch_group keys; `plain` is the promise
// under which the keys take the protocol without atomics.
template <class Group>
status hash_map::in_groups(const char *who, size_t count, const uint8_t *keys, unsigned concurrent, unsigned plain,
                           Group group)
{
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    bool local = concurrent & PGDDS_CP_LOCAL;
    for (size_t i = 0; local && i < count; ++i) {
        st = check_local(who, concurrent, owner(keys + i * key_size_));
        if (st != PGDDS_OK) return st;
    }
    bool atomic = atomic_under(concurrent, plain);
    return with_memory(who, local, [&](auto &m) {
        for (size_t i = 0; i < count; i += batch_group) {
            status s = group(m, i, std::min(batch_group, count - i), atomic);
            if (s != PGDDS_OK) return s;
        }
        return PGDDS_OK;
    });
}

status hash_map::insert_many(const char *who, size_t count, const uint8_t *keys, const uint8_t *values,
                             unsigned concurrent, pgdds_request_t *req)
{
    if (count && !keys) return fail(PGDDS_ERR_INVALID_ARG, "%s: keys is NULL", who);
    if (count && !values && value_size_) return fail(PGDDS_ERR_INVALID_ARG, "%s: values is NULL", who);
    auto here = [&](size_t count, const uint8_t *keys, const uint8_t *values, uint8_t *, unsigned char *) {
        return in_groups(who, count, keys, concurrent, PGDDS_CP_INSERT, [&](auto &m, size_t i, size_t n, bool atomic) {
            return insert_group(m, who, n, keys + i * key_size_, values + i * value_size_, atomic);
        });
    };
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    if (via_rpc.empty() || (concurrent & PGDDS_CP_LOCAL)) return outcome(who, here(count, keys, values, nullptr, nullptr), req);
    return by_owner(who, call_insert_many, count, keys, values, nullptr, nullptr, concurrent, here, req);
}

status hash_map::find_many(const char *who, size_t count, const uint8_t *keys, uint8_t *values, unsigned char *found,
                           unsigned concurrent, pgdds_request_t *req)
{
    if (count && !keys) return fail(PGDDS_ERR_INVALID_ARG, "%s: keys is NULL", who);
    if (count && !values && value_size_) return fail(PGDDS_ERR_INVALID_ARG, "%s: values is NULL", who);
    if (count && !found) return fail(PGDDS_ERR_INVALID_ARG, "%s: found is NULL", who);
    auto here = [&](size_t count, const uint8_t *keys, const uint8_t *, uint8_t *values, unsigned char *found) {
        return in_groups(who, count, keys, concurrent, PGDDS_CP_FIND, [&](auto &m, size_t i, size_t n, bool atomic) {
            return find_group(m, who, n, keys + i * key_size_, values + i * value_size_, found + i, atomic);
        });
    };
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    if (via_rpc.empty() || (concurrent & PGDDS_CP_LOCAL)) return outcome(who, here(count, keys, nullptr, values, found), req);
    if (find_many_one_sided(count, concurrent)) {
        // Only reads (no atomic meets the owner's CPU atomics): one read in flight per key, a
        // group's landed together, priced below one call per owner.
        fabric_memory m(rt);
        for (size_t i = 0; i < count && st == PGDDS_OK; i += batch_group)
            st = find_group(m, who, std::min(batch_group, count - i), keys + i * key_size_, values + i * value_size_,
                            found + i, false);
        return outcome(who, m.failed() ? fail_prefix(m.result(), who) : st, req);
    }
    return by_owner(who, call_find_many, count, keys, nullptr, values, found, concurrent, here, req);
}
}  // namespace pgdds::containers
