// The distributed hash map's calls to owners (rpc.h): the caller's side, the owner's side, and
// the drains of buffered records into the owner's own part (hash map buffers).
#include "hashmap_protocols.h"
#include "rpc.h"

namespace pgdds::containers {

// ---------------------------------------------------------------------------------------------
// RPC (rpc.h): the caller's side, then the owner's
// ---------------------------------------------------------------------------------------------
status hash_map::call_owner(const char *who, uint32_t op, int owner, unsigned concurrent, const void *key,
                            const void *extra, size_t extra_len, void *out, size_t out_len, pgdds_request_t *req)
{
    try {
        std::vector<rpc_call> calls(1);
        rpc_call &c = calls[0];
        c.owner = owner;
        c.args.resize(key_size_ + extra_len);
        memcpy(c.args.data(), key, key_size_);
        if (extra_len) memcpy(c.args.data() + key_size_, extra, extra_len);
        return rpc_run(this, who, op, concurrent, calls, req, [] { return PGDDS_OK; },
                       [who, owner, out, out_len](std::vector<rpc_call> &done) {
                           const std::vector<uint8_t> &reply = done[0].reply;
                           if (reply.size() != out_len)
                               return fail(PGDDS_ERR_TRANSPORT, "%s: rank %d replied with %zu bytes, not %zu", who,
                                           owner, reply.size(), out_len);
                           if (out_len) memcpy(out, reply.data(), out_len);
                           return PGDDS_OK;
                       });
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

status hash_map::by_owner(const char *who, uint32_t op, size_t count, const uint8_t *keys, const uint8_t *in_values,
                          uint8_t *out_values, unsigned char *found, unsigned concurrent, const local_batch &local,
                          pgdds_request_t *req)
{
    const size_t ks = key_size_, vs = value_size_;
    try {
        std::vector<std::vector<size_t>> picks(size_t(rt->nranks()));
        std::vector<size_t> here;
        for (size_t i = 0; i < count; ++i) {
            int o = owner(keys + i * ks);
            (calls_owner(o) ? picks[size_t(o)] : here).push_back(i);
        }
        if (here.size() == count) return outcome(who, local(count, keys, in_values, out_values, found), req);
        std::vector<rpc_call> calls;
        for (size_t r = 0; r < picks.size(); ++r) {
            const std::vector<size_t> &ix = picks[r];
            if (ix.empty()) continue;
            rpc_call c;
            c.owner = int(r);
            c.args.resize(ix.size() * (ks + (in_values ? vs : 0)));
            for (size_t j = 0; j < ix.size(); ++j) {
                memcpy(c.args.data() + j * ks, keys + ix[j] * ks, ks);
                if (in_values && vs) memcpy(c.args.data() + ix.size() * ks + j * vs, in_values + ix[j] * vs, vs);
            }
            calls.push_back(std::move(c));
        }
        // The keys reached by load/store, packed, while the owners work.
        auto run_here = [&]() -> status {
            if (here.empty()) return PGDDS_OK;
            std::vector<uint8_t> k(here.size() * ks), v(here.size() * vs);
            std::vector<unsigned char> f(found ? here.size() : 0);
            for (size_t j = 0; j < here.size(); ++j) {
                memcpy(k.data() + j * ks, keys + here[j] * ks, ks);
                if (in_values && vs) memcpy(v.data() + j * vs, in_values + here[j] * vs, vs);
            }
            status st = local(here.size(), k.data(), v.data(), v.data(), found ? f.data() : nullptr);
            for (size_t j = 0; st == PGDDS_OK && found && j < here.size(); ++j) {
                found[here[j]] = f[j];
                if (vs) memcpy(out_values + here[j] * vs, v.data() + j * vs, vs);
            }
            return st;
        };
        // A find's replies: found flags, then values, put back in place.
        auto settle = [who, vs, found, out_values, picks = std::move(picks)](std::vector<rpc_call> &done) {
            for (size_t c = 0; found && c < done.size(); ++c) {
                const std::vector<size_t> &ix = picks[size_t(done[c].owner)];
                const std::vector<uint8_t> &reply = done[c].reply;
                if (reply.size() != ix.size() * (1 + vs))
                    return fail(PGDDS_ERR_TRANSPORT, "%s: rank %d replied with %zu bytes, not %zu", who, done[c].owner,
                                reply.size(), ix.size() * (1 + vs));
                for (size_t j = 0; j < ix.size(); ++j) {
                    found[ix[j]] = reply[j];
                    if (vs) memcpy(out_values + ix[j] * vs, reply.data() + ix.size() + j * vs, vs);
                }
            }
            return PGDDS_OK;
        };
        return rpc_run(this, who, op, concurrent, calls, req, run_here, std::move(settle));
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

// The owner runs the call's operation on its part with the caller's promise, on load/store
// memory: every atomic on a part served by RPC is a CPU atomic.
status hash_map::serve(int src, uint32_t op, unsigned concurrent, const uint8_t *args, size_t len,
                       std::vector<uint8_t> &out)
{
    static const char *const names[] = {"", "pgdds_hashmap_insert", "pgdds_hashmap_find", "pgdds_hashmap_erase",
                                        "pgdds_hashmap_insert_many", "pgdds_hashmap_find_many"};
    if (op < call_insert || op > call_find_many)
        return fail(PGDDS_ERR_INVALID_ARG, "hash map: rank %d sent unknown call %u", src, op);
    const char *who = names[op];
    status st = check_promise(who, concurrent & ~PGDDS_CP_LOCAL, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    const size_t ks = key_size_, vs = value_size_;
    const bool inserting = op == call_insert || op == call_insert_many;
    const size_t per_key = ks + (inserting ? vs : 0);
    const bool single = op <= call_erase;
    if (single ? len != per_key : len % per_key != 0)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: rank %d sent a malformed call (%zu bytes)", who, src, len);
    const size_t n = single ? 1 : len / per_key;
    for (size_t i = 0; i < n; ++i)
        if (owner(args + i * ks) != rt->rank())
            return fail(PGDDS_ERR_INVALID_ARG, "%s: rank %d sent a key that rank %d does not own", who, src, rt->rank());
    const bool atomic = atomic_under(concurrent, inserting ? PGDDS_CP_INSERT : PGDDS_CP_FIND);
    const uint8_t *values = args + n * ks;
    direct_memory m;
    switch (op) {
    case call_insert: return insert_with(m, table_, who, args, values, place(table_, args), atomic);
    case call_erase: return erase_with(m, who, args, place(table_, args));
    case call_find: {
        out.resize(out.size() + vs);
        st = find_with(m, who, args, out.data() + out.size() - vs, place(table_, args), atomic);
        return st == PGDDS_ERR_NOT_FOUND ? fail(st, "%s: no such key", who) : st;
    }
    case call_insert_many:
        for (size_t i = 0; i < n && st == PGDDS_OK; i += batch_group)
            st = insert_group(m, who, std::min(batch_group, n - i), args + i * ks, values + i * vs, atomic);
        return st;
    default: {  // call_find_many
        const size_t base = out.size();
        out.resize(base + n * (1 + vs));
        unsigned char *found = out.data() + base;
        for (size_t i = 0; i < n && st == PGDDS_OK; i += batch_group)
            st = find_group(m, who, std::min(batch_group, n - i), args + i * ks, found + n + i * vs, found + i, atomic);
        return st;
    }
    }
}

// The drains visit each record with its place, hashed and prefetched `drain_lookahead` records
// before its visit: the bucket fetches stay in flight all along, where a group at a time lets
// them run dry at the end of every group.
template <class Visit>
void hash_map::visit_placed(const hash_table &t, size_t count, const uint8_t *records, Visit visit) const
{
    exclusive_memory m;
    const size_t stride = key_size_ + value_size_;
    key_place ahead[drain_lookahead];
    auto start = [&](size_t i) {
        key_place &p = ahead[i % drain_lookahead];
        p = place(t, records + i * stride);
        prefetch(m, t, p);
    };
    for (size_t i = 0; i < std::min(drain_lookahead, count); ++i) start(i);
    for (size_t i = 0; i < count; ++i) {
        const key_place p = ahead[i % drain_lookahead];
        if (i + drain_lookahead < count) start(i + drain_lookahead);
        visit(records + i * stride, p);
    }
}

// A drain skips a record that does not fit and goes on; it reports the first failure.
static void count_dropped(status st, status &first_failure, uint64_t &dropped)
{
    if (st == PGDDS_OK) return;
    if (first_failure == PGDDS_OK) first_failure = st;
    ++dropped;
}

status hash_map::insert_own_records(const char *who, size_t count, const uint8_t *records, uint64_t &dropped)
{
    exclusive_memory m;
    status first_failure = PGDDS_OK;
    visit_placed(table_, count, records, [&](const uint8_t *key, const key_place &p) {
        count_dropped(insert_with(m, table_, who, key, key + key_size_, p, false), first_failure, dropped);
    });
    return first_failure;
}

status hash_map::combine_own_records(const char *who, size_t count, const uint8_t *records,
                                     pgdds_hashmap_combine_t combine, void *arg, bool update_only, uint64_t &dropped)
{
    exclusive_memory m;
    const hash_table &t = table_;
    status first_failure = PGDDS_OK;
    visit_placed(t, count, records, [&](const uint8_t *key, const key_place &p) {
        const uint8_t *value = key + key_size_;
        uint8_t *stored = nullptr;
        for (uint64_t probe = 0; probe < t.probe_limit && !stored; ++probe) {
            uint8_t *b = bucket<exclusive_memory>(t, p.owner, probe_slot(p.home, probe, t.part_capacity));
            uint32_t w = m.load32(b);
            if (state::status(w) == state::free) break;
            if (state::status(w) == state::ready && state::fingerprint(w) == p.fingerprint &&
                same_bytes(b + bucket_key_offset, key, key_size_))
                stored = b + bucket_key_offset + key_size_;
        }
        if (stored) {
            if (combine) combine(stored, value, arg);
            else copy_bytes(stored, value, value_size_);
        } else if (!update_only) {
            count_dropped(insert_with(m, t, who, key, value, p, false), first_failure, dropped);
        }
    });
    return first_failure;
}
}  // namespace pgdds::containers
