// The distributed hash map (BCL paper §5.2, thesis §6.1 and Tables 6.1, 8.2): creation and
// shape, local views of the whole table, resize, and its C ABI. The protocols are in
// hashmap_protocols.h, the operations in hashmap_ops.cc, the calls to owners and the drains in
// hashmap_owner.cc.
#include "hashmap_protocols.h"
#include "rpc.h"

namespace pgdds::containers {

// ---------------------------------------------------------------------------------------------
// Creation, shape
// ---------------------------------------------------------------------------------------------
status hash_map::create(runtime *rt, const pgdds_hashmap_params_t &params, const pgdds_hashmap_options_t *options,
                        hash_map *&out)
{
    const char *who = "pgdds_hashmap_create";
    measure_protocol_costs(rt, who);  // collective, first of all
    std::unique_ptr<hash_map> m(new (std::nothrow) hash_map(rt));
    status st = PGDDS_OK;
    const uint64_t known = PGDDS_HASHMAP_OPTION_HASH | PGDDS_HASHMAP_OPTION_MAX_PROBES | PGDDS_HASHMAP_OPTION_PROTOCOL;
    if (!m) st = fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    else if (params.field_mask != 0)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: params->field_mask 0x%llx names no known optional field", who,
                  (unsigned long long)params.field_mask);
    else if (params.key_size == 0) st = fail(PGDDS_ERR_INVALID_ARG, "%s: key_size is 0", who);
    else if (params.key_size > (1u << 24) || params.value_size > (1u << 24))
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: key_size %zu or value_size %zu exceeds 16 MiB", who, params.key_size,
                  params.value_size);
    else if (params.capacity == 0) st = fail(PGDDS_ERR_INVALID_ARG, "%s: capacity is 0", who);
    else if (options && (options->field_mask & ~known))
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: options->field_mask has unknown bits 0x%llx", who,
                  (unsigned long long)(options->field_mask & ~known));
    else if (options && (options->field_mask & PGDDS_HASHMAP_OPTION_HASH) && !options->hash)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: options->hash is NULL", who);
    else if (options && (options->field_mask & PGDDS_HASHMAP_OPTION_MAX_PROBES) && options->max_probes == 0)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: options->max_probes is 0", who);
    uint64_t probes = 1024;
    if (st == PGDDS_OK && options && (options->field_mask & PGDDS_HASHMAP_OPTION_MAX_PROBES))
        probes = options->max_probes;
    int protocol = PGDDS_PROTOCOL_RDMA;
    if (st == PGDDS_OK)
        st = choose_protocol(rt, who, priced_kind::hashmap,
                             options && (options->field_mask & PGDDS_HASHMAP_OPTION_PROTOCOL) ? options->protocol
                                                                                            : PGDDS_PROTOCOL_AUTO,
                             protocol);
    st = agree_arguments(rt, who, st, {params.key_size, params.value_size, params.capacity, probes, uint64_t(protocol)});
    if (st != PGDDS_OK) return st;
    m->settle_protocol(protocol);
    if (protocol == PGDDS_PROTOCOL_RPC) {  // read-only operations, each priced on its own
        m->cp_find_one_sided_ = one_sided_groups(rt, priced_kind::hashmap, "find/CP_FIND") > 0;
        m->find_many_groups_ = one_sided_groups(rt, priced_kind::hashmap, "find_many/CP_FIND");
    }

    m->key_size_ = params.key_size;
    m->value_size_ = params.value_size;
    m->bucket_bytes_ = bucket_bytes(params.key_size, params.value_size);
    m->window_buckets_ = std::max<uint64_t>(1, find_window_bytes / m->bucket_bytes_);
    m->max_probes_ = probes;
    if (options && (options->field_mask & PGDDS_HASHMAP_OPTION_HASH)) {
        m->hash_fn_ = options->hash;
        m->hash_arg_ = options->hash_arg;
    }
    auto word = [](size_t n) { return n == 4 || n == 8 || n == 16; };
    m->finds_at_home_ = m->finds_in_place(PGDDS_CP_FIND) && !m->hash_fn_ && word(m->key_size_) && word(m->value_size_);
    pgdds_gptr_t mine;
    st = m->make_table(who, params.capacity, m->table_, mine);
    if (st != PGDDS_OK) return st;
    if (protocol == PGDDS_PROTOCOL_RPC) {
        // No call reaches a rank before it has its table and serves calls.
        rpc_enroll(m.get());
        st = rt->barrier(who);
        if (st != PGDDS_OK) {
            rpc_withdraw(m.get());
            rt->allocator().free(gptr::offset(mine));
            return st;
        }
    }
    out = m.release();
    return PGDDS_OK;
}

// Allocates this rank's part of a table of `capacity` buckets (collective).
status hash_map::make_table(const char *who, uint64_t capacity, hash_table &t, pgdds_gptr_t &mine) const
{
    uint64_t nranks = uint64_t(rt->nranks());
    t.part_capacity = capacity / nranks + (capacity % nranks != 0);
    t.probe_limit = std::min(t.part_capacity, max_probes_);
    mine = PGDDS_GPTR_NULL;
    status st = t.part_capacity > UINT64_MAX / bucket_bytes_
                    ? fail(PGDDS_ERR_NO_MEMORY, "%s: %llu buckets per rank overflow", who,
                           (unsigned long long)t.part_capacity)
                    : alloc_zeroed(rt, who, t.part_capacity * bucket_bytes_, cache_line, mine);
    st = agree(rt, who, st);
    if (st == PGDDS_OK) st = gather_parts(rt, who, mine, t.part_capacity * bucket_bytes_, t.where);
    if (st != PGDDS_OK && mine != PGDDS_GPTR_NULL) rt->allocator().free(gptr::offset(mine));
    return st;
}

status hash_map::destroy(const char *who)
{
    status st = rpc_retire(this, who);
    rt->allocator().free(gptr::offset(table_.where.global[size_t(rt->rank())]));
    return st;
}

status hash_map::check_local(const char *who, unsigned concurrent, int owner) const
{
    if (!(concurrent & PGDDS_CP_LOCAL) || owner == rt->rank()) return PGDDS_OK;
    return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_CP_LOCAL needs a key this rank owns; this key belongs to rank %d "
                "(this is rank %d)", who, owner, rt->rank());
}

// ---------------------------------------------------------------------------------------------
// Collective and local views of the whole table
// ---------------------------------------------------------------------------------------------
status hash_map::foreach_local(pgdds_hashmap_visit_t visit, void *arg)
{
    uint8_t *part = table_.where.local[size_t(rt->rank())];
    for (uint64_t i = 0; i < table_.part_capacity; ++i) {
        uint8_t *b = part + i * bucket_bytes_;
        if (state::status(state_of(b)) != state::ready) continue;
        if (visit(b + bucket_key_offset, b + bucket_key_offset + key_size_, arg)) break;
    }
    return PGDDS_OK;
}

status hash_map::local_next(const char *who, uint64_t &cursor, uint8_t *key, uint8_t *value)
{
    if (cursor > table_.part_capacity)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: cursor %llu lies past this rank's part (%llu buckets); start at 0",
                    who, (unsigned long long)cursor, (unsigned long long)table_.part_capacity);
    // The part is read in the job's atomicity domain, as a find of this rank's keys would.
    status st = with_memory(who, false, [&](auto &m) { return local_next_with(m, who, cursor, key, value); });
    return st == PGDDS_ERR_NOT_FOUND ? fail(st, "%s: no entries left in this rank's part", who) : st;
}

template <class Mem>
status hash_map::local_next_with(Mem &m, const char *who, uint64_t &cursor, uint8_t *key, uint8_t *value) const
{
    const hash_table &t = table_;
    scratch_buffer scratch(key_size_ + value_size_);
    spinner spin(rt);
    unsigned reader_choice = first_reader_bit(rt->rank());
    for (uint64_t i = cursor; i < t.part_capacity; ++i) {
        auto b = bucket<Mem>(t, rt->rank(), i);
        uint32_t w = m.load32(b);
        if (m.failed()) return m.result();
        for (;;) {  // until this bucket is decided
            const uint32_t s = state::status(w);
            if (s == state::free || s == state::tombstone) break;
            if (s == state::ready && (w & state::reader_mask) != state::reader_mask) {
                const uint32_t bit = free_reader_bit(w, reader_choice);
                const uint32_t seen = m.cas32(b, w, w | bit);
                if (m.failed()) return m.result();
                if (seen != w) {  // changed meanwhile: decide again on what it is now
                    w = seen;
                    continue;
                }
                // Holding a reader bit: no writer changes the entry while it is copied.
                const uint8_t *kv = m.view(Mem::offset(b, bucket_key_offset), key_size_ + value_size_, scratch.data());
                if (!m.failed()) {
                    copy_bytes(key, kv, key_size_);
                    copy_bytes(value, kv + key_size_, value_size_);
                }
                m.and32_posted(b, ~bit);
                if (m.failed()) return m.result();
                cursor = i + 1;
                return PGDDS_OK;
            }
            // Being written (claimed, assigned or erased), or every reader bit taken: wait.
            if (!spin.again(m, who)) return m.failed() ? m.result() : spin.result();
            w = m.load32(b);
            if (m.failed()) return m.result();
        }
    }
    cursor = t.part_capacity;
    return PGDDS_ERR_NOT_FOUND;
}

status hash_map::size(const char *who, uint64_t &count)
{
    status st = rt->barrier(who);
    if (st != PGDDS_OK) return st;
    uint64_t mine = 0;
    const uint8_t *part = table_.where.local[size_t(rt->rank())];
    for (uint64_t i = 0; i < table_.part_capacity; ++i)
        mine += state::status(state_of(part + i * bucket_bytes_)) == state::ready;
    uint64_t total = 0;
    st = rt->allreduce(who, &mine, &total, 1, PGDDS_UINT64, PGDDS_OP_SUM);
    if (st == PGDDS_OK) count = total;
    return st;
}

// Owners depend only on the rank count, so each rank rehashes its own part into its new part.
status hash_map::resize(const char *who, uint64_t new_capacity)
{
    status st = new_capacity == 0 ? fail(PGDDS_ERR_INVALID_ARG, "%s: new capacity is 0", who) : PGDDS_OK;
    st = agree_arguments(rt, who, st, {new_capacity});
    if (st == PGDDS_OK) st = rpc_quiet(this, who);
    if (st != PGDDS_OK) return st;
    hash_table next;
    pgdds_gptr_t mine;
    st = make_table(who, new_capacity, next, mine);
    if (st != PGDDS_OK) return st;
    const uint8_t *old = table_.where.local[size_t(rt->rank())];
    exclusive_memory m;
    for (uint64_t i = 0; i < table_.part_capacity && st == PGDDS_OK; ++i) {
        const uint8_t *b = old + i * bucket_bytes_;
        if (state::status(state_of(b)) != state::ready) continue;
        const uint8_t *key = b + bucket_key_offset;
        st = insert_with(m, next, who, key, key + key_size_, place(next, key), false);
    }
    st = agree(rt, who, st);
    pgdds_gptr_t drop = st == PGDDS_OK ? table_.where.global[size_t(rt->rank())] : mine;
    rt->allocator().free(gptr::offset(drop));
    if (st == PGDDS_OK) table_ = std::move(next);
    // A rank done with the resize may call one still in it: no call before the new table.
    if (st == PGDDS_OK && protocol == PGDDS_PROTOCOL_RPC) st = rt->barrier(who);
    return st;
}

status resolve_hashmap(pgdds_hashmap *h, const char *who, hash_map *&out)
{
    return resolve(h, hashmap_magic, who, "hash map", out);
}

// pgdds_hashmap_find past its first try; out of line, so that the first try stays short.
[[gnu::noinline]] static status find_entry(pgdds_hashmap *map, const void *key, void *value, unsigned concurrent)
{
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, "pgdds_hashmap_find", m);
    if (st != PGDDS_OK) return st;
    if (PGDDS_LIKELY(m->finds_in_place(concurrent))) return m->find_in_place("pgdds_hashmap_find", key, value);
    return m->find("pgdds_hashmap_find", key, value, concurrent);
}

}  // namespace pgdds::containers

// ---------------------------------------------------------------------------------------------
// C ABI
// ---------------------------------------------------------------------------------------------
using namespace pgdds;
using namespace pgdds::containers;

extern "C" {

PGDDS_API pgdds_status_t pgdds_hashmap_create_with(pgdds_context_t ctx, const pgdds_hashmap_params_t *params,
                                                   const pgdds_hashmap_options_t *options, pgdds_hashmap_t *map)
{
    const char *who = "pgdds_hashmap_create";
    runtime *rt = runtime::from(ctx);
    if (!rt) return fail(ctx ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG, "%s: the context is %s", who,
                         ctx ? "not live (finalized?)" : "NULL");
    if (!rt->thread_allowed()) return rt->check_thread(who);
    if (!params) return fail(PGDDS_ERR_INVALID_ARG, "%s: params is NULL", who);
    if (!map) return fail(PGDDS_ERR_INVALID_ARG, "%s: map is NULL", who);
    try {
        hash_map *impl = nullptr;
        status st = hash_map::create(rt, *params, options, impl);
        if (st != PGDDS_OK) return st;
        st = make_handle(hashmap_magic, impl, *map);
        if (st != PGDDS_OK) delete impl;
        return st;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

PGDDS_API pgdds_status_t pgdds_hashmap_create(pgdds_context_t ctx, const pgdds_hashmap_params_t *params,
                                              pgdds_hashmap_t *map)
{
    return pgdds_hashmap_create_with(ctx, params, nullptr, map);
}

PGDDS_API pgdds_status_t pgdds_hashmap_destroy(pgdds_hashmap_t map)
{
    const char *who = "pgdds_hashmap_destroy";
    if (!map || map->magic != hashmap_magic) return bad_handle(map, who, "hash map");
    status st = runtime::from(map->impl->ctx) ? map->impl->destroy(who)
                                              : fail(PGDDS_ERR_STATE, "%s: the context was finalized first", who);
    kill_handle(map);
    return st;
}

PGDDS_API pgdds_status_t pgdds_hashmap_insert(pgdds_hashmap_t map, const void *key, const void *value,
                                              unsigned concurrent)
{
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, "pgdds_hashmap_insert", m);
    return st != PGDDS_OK ? st : m->insert("pgdds_hashmap_insert", key, value, concurrent);
}

PGDDS_API pgdds_status_t pgdds_hashmap_find(pgdds_hashmap_t map, const void *key, void *value, unsigned concurrent)
{
    // The common case first, with no call (see find_at_home); everything else, errors included,
    // through the whole entry.
    if (PGDDS_LIKELY(map && map->magic == hashmap_magic && key && value) &&
        PGDDS_LIKELY(map->impl->find_at_home(concurrent, key, value)))
        return PGDDS_OK;
    return find_entry(map, key, value, concurrent);
}

PGDDS_API pgdds_status_t pgdds_hashmap_erase(pgdds_hashmap_t map, const void *key, unsigned concurrent)
{
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, "pgdds_hashmap_erase", m);
    return st != PGDDS_OK ? st : m->erase("pgdds_hashmap_erase", key, concurrent);
}

PGDDS_API pgdds_status_t pgdds_hashmap_size(pgdds_hashmap_t map, uint64_t *global_count)
{
    const char *who = "pgdds_hashmap_size";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    if (st != PGDDS_OK) return st;
    if (!global_count) return fail(PGDDS_ERR_INVALID_ARG, "%s: global_count is NULL", who);
    return m->size(who, *global_count);
}

PGDDS_API pgdds_status_t pgdds_hashmap_find_many(pgdds_hashmap_t map, size_t count, const void *keys, void *values,
                                                 unsigned char *found, unsigned concurrent)
{
    const char *who = "pgdds_hashmap_find_many";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    return st != PGDDS_OK ? st
                          : m->find_many(who, count, static_cast<const uint8_t *>(keys), static_cast<uint8_t *>(values),
                                         found, concurrent);
}

PGDDS_API pgdds_status_t pgdds_hashmap_insert_many(pgdds_hashmap_t map, size_t count, const void *keys,
                                                   const void *values, unsigned concurrent)
{
    const char *who = "pgdds_hashmap_insert_many";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    return st != PGDDS_OK ? st
                          : m->insert_many(who, count, static_cast<const uint8_t *>(keys),
                                           static_cast<const uint8_t *>(values), concurrent);
}

PGDDS_API pgdds_status_t pgdds_hashmap_insert_nb(pgdds_hashmap_t map, const void *key, const void *value,
                                                 unsigned concurrent, pgdds_request_t *req)
{
    const char *who = "pgdds_hashmap_insert_nb";
    hash_map *m = nullptr;
    status st = resolve_nb(map, hashmap_magic, who, "hash map", req, m);
    return st != PGDDS_OK ? st : m->insert(who, key, value, concurrent, req);
}

PGDDS_API pgdds_status_t pgdds_hashmap_find_nb(pgdds_hashmap_t map, const void *key, void *value, unsigned concurrent,
                                               pgdds_request_t *req)
{
    const char *who = "pgdds_hashmap_find_nb";
    hash_map *m = nullptr;
    status st = resolve_nb(map, hashmap_magic, who, "hash map", req, m);
    return st != PGDDS_OK ? st : m->find(who, key, value, concurrent, req);
}

PGDDS_API pgdds_status_t pgdds_hashmap_erase_nb(pgdds_hashmap_t map, const void *key, unsigned concurrent,
                                                pgdds_request_t *req)
{
    const char *who = "pgdds_hashmap_erase_nb";
    hash_map *m = nullptr;
    status st = resolve_nb(map, hashmap_magic, who, "hash map", req, m);
    return st != PGDDS_OK ? st : m->erase(who, key, concurrent, req);
}

PGDDS_API pgdds_status_t pgdds_hashmap_find_many_nb(pgdds_hashmap_t map, size_t count, const void *keys, void *values,
                                                    unsigned char *found, unsigned concurrent, pgdds_request_t *req)
{
    const char *who = "pgdds_hashmap_find_many_nb";
    hash_map *m = nullptr;
    status st = resolve_nb(map, hashmap_magic, who, "hash map", req, m);
    return st != PGDDS_OK ? st
                          : m->find_many(who, count, static_cast<const uint8_t *>(keys), static_cast<uint8_t *>(values),
                                         found, concurrent, req);
}

PGDDS_API pgdds_status_t pgdds_hashmap_insert_many_nb(pgdds_hashmap_t map, size_t count, const void *keys,
                                                      const void *values, unsigned concurrent, pgdds_request_t *req)
{
    const char *who = "pgdds_hashmap_insert_many_nb";
    hash_map *m = nullptr;
    status st = resolve_nb(map, hashmap_magic, who, "hash map", req, m);
    return st != PGDDS_OK ? st
                          : m->insert_many(who, count, static_cast<const uint8_t *>(keys),
                                           static_cast<const uint8_t *>(values), concurrent, req);
}

PGDDS_API pgdds_status_t pgdds_hashmap_resize(pgdds_hashmap_t map, uint64_t new_capacity)
{
    const char *who = "pgdds_hashmap_resize";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    if (st != PGDDS_OK) return st;
    try {
        return m->resize(who, new_capacity);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

PGDDS_API pgdds_status_t pgdds_hashmap_capacity(pgdds_hashmap_t map, uint64_t *capacity)
{
    const char *who = "pgdds_hashmap_capacity";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    if (st != PGDDS_OK) return st;
    if (!capacity) return fail(PGDDS_ERR_INVALID_ARG, "%s: capacity is NULL", who);
    *capacity = m->capacity();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_hashmap_owner(pgdds_hashmap_t map, const void *key, int *rank)
{
    const char *who = "pgdds_hashmap_owner";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    if (st != PGDDS_OK) return st;
    if (!key) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    if (!rank) return fail(PGDDS_ERR_INVALID_ARG, "%s: rank is NULL", who);
    *rank = m->owner(key);
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_hashmap_protocol(pgdds_hashmap_t map, int rank, int *protocol)
{
    const char *who = "pgdds_hashmap_protocol";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    if (st != PGDDS_OK) return st;
    if (rank < 0 || rank >= m->rt->nranks())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: rank %d is not in [0, %d)", who, rank, m->rt->nranks());
    if (!protocol) return fail(PGDDS_ERR_INVALID_ARG, "%s: protocol is NULL", who);
    *protocol = m->protocol_to(rank);
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_hashmap_op_protocol(pgdds_hashmap_t map, int rank, int op, unsigned concurrent,
                                                   int *protocol)
{
    const char *who = "pgdds_hashmap_op_protocol";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    if (st != PGDDS_OK) return st;
    if (!protocol) return fail(PGDDS_ERR_INVALID_ARG, "%s: protocol is NULL", who);
    int p = 0;
    st = m->op_protocol(who, rank, op, concurrent, p);
    if (st == PGDDS_OK) *protocol = p;
    return st;
}

PGDDS_API pgdds_status_t pgdds_hashmap_foreach_local(pgdds_hashmap_t map, pgdds_hashmap_visit_t visit, void *arg)
{
    const char *who = "pgdds_hashmap_foreach_local";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    if (st != PGDDS_OK) return st;
    if (!visit) return fail(PGDDS_ERR_INVALID_ARG, "%s: visit is NULL", who);
    return m->foreach_local(visit, arg);
}

PGDDS_API pgdds_status_t pgdds_hashmap_local_next(pgdds_hashmap_t map, uint64_t *cursor, void *key, void *value)
{
    const char *who = "pgdds_hashmap_local_next";
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    if (st != PGDDS_OK) return st;
    if (!cursor) return fail(PGDDS_ERR_INVALID_ARG, "%s: cursor is NULL", who);
    if (!key) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    if (!value && m->value_size()) return fail(PGDDS_ERR_INVALID_ARG, "%s: value is NULL", who);
    return m->local_next(who, *cursor, static_cast<uint8_t *>(key), static_cast<uint8_t *>(value));
}

}  // extern "C"
