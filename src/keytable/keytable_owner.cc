// The distributed key table, the owner's side: creation and destruction of the partitions,
// the active messages owners serve (inserts, removals, the calls of put, atomic and remove
// under RPC, and the replies they send), and owner-computes iteration (foreach_local).
#include "keytable_internal.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace pgdds::keytable {

namespace {

// Tables by (context, id), for the active-message handler. Ids are given in creation order,
// which is the same on every rank since creation is collective.
struct table_registry {
    std::mutex lock;
    std::map<std::pair<pgdds_context_t, uint32_t>, table *> tables;
    std::map<pgdds_context_t, uint32_t> next_id;
    std::set<pgdds_context_t> handler_registered;
};
table_registry &registry()
{
    static table_registry *r = new table_registry();  // never destroyed: handlers may run at exit
    return *r;
}

void on_keytable_message(pgdds_context_t ctx, int src, const void *payload, size_t size, void *)
{
    msg_header h;
    if (size < sizeof h) {
        PGDDS_LOG(LOG_ERROR, "key table: dropped a truncated message from rank %d", src);
        return;
    }
    memcpy(&h, payload, sizeof h);
    table *t = nullptr;
    {
        table_registry &reg = registry();
        std::lock_guard<std::mutex> guard(reg.lock);
        auto it = reg.tables.find({ctx, h.table});
        if (it != reg.tables.end()) t = it->second;
    }
    runtime *rt = runtime::from(ctx);
    if (!t || !rt) {
        PGDDS_LOG(LOG_ERROR, "key table: dropped a message from rank %d for table %u, which does not exist", src,
                  h.table);
        return;
    }
    t->on_message(*rt, src, static_cast<const uint8_t *>(payload), size);
}

}  // namespace

namespace {
thread_local visit_mark visiting;
}  // namespace

// ---------------------------------------------------------------------------------------------
// Records in the segment
// ---------------------------------------------------------------------------------------------
status table::records_in_segment::alloc(size_t bytes, uint64_t &offset)
{
    status st = a_.alloc(bytes, 8, offset);
    return st == PGDDS_OK ? st : fail_prefix(st, "no room for the record in the segment");
}

void table::records_in_segment::free(uint64_t offset) { a_.free(offset); }
// ---------------------------------------------------------------------------------------------
// Creation and destruction
// ---------------------------------------------------------------------------------------------
status table::create(pgdds_context_t ctx, const pgdds_keytable_params_t &params, table *&out)
{
    const char *who = "pgdds_keytable_create";
    runtime *rt = runtime::from(ctx);
    containers::measure_protocol_costs(rt, who);  // collective, first of all
    std::unique_ptr<table> t(new table());
    t->ctx_ = ctx;
    t->rank_ = rt->rank();
    t->nranks_ = rt->nranks();
    t->max_value_size_ = params.max_value_size;
    t->capacity_ = params.capacity_per_rank;
    t->nbuckets_ = buckets_for(params.capacity_per_rank);
    if (params.field_mask & PGDDS_KEYTABLE_FIELD_HASH) {
        t->hash_ = params.hash;
        t->hash_arg_ = params.hash_arg;
    }
    uint64_t cache_entries = params.field_mask & PGDDS_KEYTABLE_FIELD_CACHE_ENTRIES ? params.cache_entries
                                                                                    : default_cache_entries;

    // Every rank must describe the same table; hashes are compared on a probe key.
    const char probe[] = "pgdds key table";
    const key_ref probed = t->address(probe, sizeof probe);
    status st = containers::choose_protocol(rt, who, containers::priced_kind::keytable, PGDDS_PROTOCOL_AUTO,
                                            t->protocol_);
    if (st != PGDDS_OK) return st;
    uint64_t mine[5] = {t->max_value_size_, t->capacity_, t->hash_ != nullptr, probed.base ^ probed.fingerprint(),
                        uint64_t(t->protocol_)};
    uint64_t lo[5], hi[5];
    st = agree_values(rt, who, 5, mine, lo, hi);
    if (st != PGDDS_OK) return st;
    for (int i = 0; i < 5; ++i)
        if (lo[i] != hi[i])
            return fail(PGDDS_ERR_INVALID_ARG, "%s: ranks passed different parameters (max_value_size, "
                        "capacity_per_rank, hash function or PGDDS_CONTAINER_PROTOCOL)", who);
    if (t->protocol_ == PGDDS_PROTOCOL_RPC) {
        // Owners reached by load/store keep the one-sided protocols.
        t->via_rpc_.assign(size_t(t->nranks_), 0);
        t->owner_cpu_atomics_ = true;
        for (int r = 0; r < t->nranks_; ++r) {
            t->via_rpc_[size_t(r)] = r != t->rank_ && !rt->peer_base(r);
            // Mapping is mutual: a rank this one maps maps it too, and reaches it one-sidedly.
            if (r != t->rank_ && rt->peer_base(r)) t->owner_cpu_atomics_ = false;
        }
    }

    // The index, zeroed: every slot free.
    uint64_t index_bytes = t->nbuckets_ * bucket_bytes, offset = 0;
    status mine_st = rt->allocator().alloc(index_bytes, 64, offset);
    if (mine_st != PGDDS_OK) fail_prefix(mine_st, who);
    int32_t ok = mine_st == PGDDS_OK, all_ok = 0;
    st = rt->allreduce(who, &ok, &all_ok, 1, PGDDS_INT32, PGDDS_OP_MIN);
    if (st != PGDDS_OK || !all_ok) {
        if (mine_st == PGDDS_OK) rt->allocator().free(offset);
        if (st != PGDDS_OK || mine_st != PGDDS_OK) return st != PGDDS_OK ? st : mine_st;
        return fail(PGDDS_ERR_NO_MEMORY, "%s: another rank has no room for its index (%llu bytes)", who,
                    (unsigned long long)index_bytes);
    }
    memset(rt->segment_base() + offset, 0, index_bytes);
    t->index_offset_.resize(size_t(t->nranks_));
    st = rt->allgather(who, &offset, t->index_offset_.data(), sizeof offset);
    for (int r = 0; r < t->nranks_; ++r) t->segment_size_.push_back(rt->peer_segment_size(r));
    if (st != PGDDS_OK) {
        rt->allocator().free(offset);
        return st;
    }
    t->records_.reset(new records_in_segment(rt->allocator()));
    t->local_.reset(new match_table(rt->segment_base(), offset, t->nbuckets_, t->capacity_, t->max_value_size_,
                                    *t->records_));
    if (cache_entries) t->cache_.reset(new entry_cache(cache_entries));
    t->in_flight_.reset(new std::atomic<int>[size_t(t->nranks_)]);
    for (int r = 0; r < t->nranks_; ++r) t->in_flight_[r].store(0, std::memory_order_relaxed);

    {
        table_registry &reg = registry();
        std::lock_guard<std::mutex> guard(reg.lock);
        t->id_ = reg.next_id[ctx]++;
        reg.tables[{ctx, t->id_}] = t.get();
        if (reg.handler_registered.insert(ctx).second)
            rt->am_register_internal(AM_KEYTABLE, on_keytable_message, nullptr);
    }
    // No rank reads or sends to a partition before its owner has set it up.
    st = rt->barrier(who);
    if (st != PGDDS_OK) {
        t->unregister();
        rt->allocator().free(offset);
        return st;
    }
    out = t.release();
    return PGDDS_OK;
}

void table::unregister()
{
    table_registry &reg = registry();
    std::lock_guard<std::mutex> guard(reg.lock);
    reg.tables.erase({ctx_, id_});
}

status table::destroy()
{
    const char *who = "pgdds_keytable_destroy";
    runtime *rt = runtime::from(ctx_);
    if (!rt) {
        unregister();
        return fail(PGDDS_ERR_STATE, "%s: the key table's context has been finalized", who);
    }
    // Every rank's operations on the table are complete: nobody reads this partition any more.
    status st = rt->barrier(who);
    unregister();
    {
        std::lock_guard<std::mutex> guard(local_->mutex());
        local_->release_all();
    }
    rt->allocator().free(index_offset_[size_t(rank_)]);
    return st;
}
// ---------------------------------------------------------------------------------------------
// The entry a foreach_local visitor holds
// ---------------------------------------------------------------------------------------------
status table::check_not_visiting(const key_ref &k, uint64_t slot, const char *who, bool &visited) const
{
    visited = visiting.t == this && k.owner == rank_ && visiting.slot == slot;
    if (!visited) return PGDDS_OK;
    // This thread holds the entry: its record cannot change under us.
    const slot_words &s = local_->slot(slot);
    const uint8_t *r = local_->record(loc_offset(load_word(s.loc)));
    record_header h;
    memcpy(&h, r, sizeof h);
    if (h.key_len == k.len && memcmp(r + sizeof h, k.bytes, k.len) == 0)
        return fail(PGDDS_ERR_STATE, "%s: called from a foreach_local visitor on the key it is visiting (change "
                    "the value through the pointer the visitor was given)", who);
    return PGDDS_OK;
}
// ---------------------------------------------------------------------------------------------
// RPC: the owner tries the held steps once
// ---------------------------------------------------------------------------------------------
// The owner tries the operation's steps once on its own memory: PGDDS_ERR_AGAIN when the entry
// is held by someone else (the caller asks again; a handler never waits for a lock).
status table::owner_held(runtime &rt, uint32_t kind, const uint8_t *body, size_t len, uint64_t &word, entry_ref &held)
{
    static const char *const names[] = {"pgdds_keytable_put", "pgdds_keytable_atomic_u64", "pgdds_keytable_remove"};
    const char *who = names[kind - msg_put];
    held_body b;
    if (len < sizeof b) return fail(PGDDS_ERR_INVALID_ARG, "%s: malformed request (%zu bytes)", who, len);
    memcpy(&b, body, sizeof b);
    if (b.key_len > max_key_len || b.value_len > max_value_size_ || b.key_len + b.value_len != len - sizeof b)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: malformed request (%zu bytes)", who, len);
    const uint8_t *key = body + sizeof b;
    key_ref k{key, size_t(b.key_len), rank_, b.match_base, home_bucket(b.match_base, nbuckets_),
              key_identity(key, size_t(b.key_len))};
    // A handler inside this thread's visit of the entry finds it held, as any other holder's.
    const visit_mark visited = visiting;
    visiting = visit_mark{};
    scratch_aside aside;
    segment_access a(rt, rt.current_vci(), who, owner_cpu_atomics_);
    entry_ref e;
    outcome o;
    status st = lock_entry(a, k, who, e, o);
    if (st == PGDDS_OK && o == outcome::busy) st = fail(PGDDS_ERR_AGAIN, "%s: the entry is held", who);
    else if (st == PGDDS_OK && o == outcome::absent) st = not_found(who, k);
    else if (st == PGDDS_OK && kind == msg_put) {
        st = put_held(a, k, e, key + b.key_len, size_t(b.value_len));
        if (st == PGDDS_OK) held = entry_ref{rank_, e.slot, meta_next_version(e.meta), e.loc, b.value_len};
    } else if (st == PGDDS_OK && kind == msg_atomic) {
        st = atomic_held(a, k, e, size_t(b.value_offset), pgdds_aop_t(b.op), b.operand, &word);
        if (st == PGDDS_OK) held = e;  // released with the same version
    } else if (st == PGDDS_OK) {
        std::lock_guard<std::mutex> guard(local_->mutex());
        local_->reclaim(e.slot);
    }
    visiting = visited;
    return st;
}
// ---------------------------------------------------------------------------------------------
// Owner-computes iteration
// ---------------------------------------------------------------------------------------------
status table::foreach_local(pgdds_keytable_visit_t visit, void *arg)
{
    const char *who = "pgdds_keytable_foreach_local";
    runtime *rt;
    vci *v = nullptr;
    status st = enter(who, rt, v);
    if (st != PGDDS_OK) return st;
    if (visiting.t == this)
        return fail(PGDDS_ERR_STATE, "%s: called from a visitor of the same table's foreach_local", who);
    segment_access a(*rt, *v, who, owner_cpu_atomics_);
    for (uint64_t s = 0; s < local_->slot_count(); ++s) {
        const slot_words &w = local_->slot(s);
        uint64_t meta = 0;
        // Hold the entry while it is visited; a held entry is waited for, a free slot skipped.
        st = retry_until_settled(*rt, *v, who, [&](bool &settled) {
            meta = load_word(w.meta);
            settled = !(meta & meta_active);
            if (settled || (meta & meta_locked)) return PGDDS_OK;
            uint64_t old = 0;
            status st = a.atomic(rank_, meta_offset(rank_, s), AMO_CSWAP, meta | meta_locked, meta, &old);
            settled = st != PGDDS_OK || old == meta;
            return st;
        });
        std::atomic_thread_fence(std::memory_order_release);  // before the visitor's writes
        if (st != PGDDS_OK) return st;
        if (!(meta & meta_active)) continue;
        uint8_t *r = local_->record(loc_offset(load_word(w.loc)));
        record_header h;
        memcpy(&h, r, sizeof h);
        visiting = visit_mark{this, s};
        int stop = visit(r + sizeof h, h.key_len, r + record_value_offset(h.key_len), h.value_len, arg);
        visiting = visit_mark{};
        // The visitor may have changed the value: sealed again, and a new version.
        seal_record(r, true);
        st = release_entry(a, entry_ref{rank_, s, meta, 0, 0}, meta_next_version(meta));
        if (st != PGDDS_OK || stop) return st;
    }
    return PGDDS_OK;
}
// ---------------------------------------------------------------------------------------------
// The owner's side
// ---------------------------------------------------------------------------------------------
status table::owner_insert(const key_ref &k, const void *value, size_t value_len)
{
    std::lock_guard<std::mutex> guard(local_->mutex());
    match_table::pending_entry p;
    status st = local_->append_pending(k.bytes, k.len, k.fingerprint(), value, value_len, p);
    if (st != PGDDS_OK) return st;
    match_table::placement where;
    st = local_->activate(p, k.base, where);
    if (st != PGDDS_OK) local_->discard(p);
    return st;
}

status table::owner_reclaim(uint64_t slot, uint64_t locked_meta)
{
    if (slot >= local_->slot_count())
        return fail(PGDDS_ERR_INVALID_ARG, "slot %llu does not exist", (unsigned long long)slot);
    std::lock_guard<std::mutex> guard(local_->mutex());
    if (load_word(local_->slot(slot).meta) != locked_meta)
        return fail(PGDDS_ERR_STATE, "the entry in slot %llu is not held by the remover", (unsigned long long)slot);
    local_->reclaim(slot);
    return PGDDS_OK;
}

void table::on_message(runtime &rt, int src, const uint8_t *payload, size_t size)
{
    msg_header h;
    memcpy(&h, payload, sizeof h);
    const uint8_t *body = payload + sizeof h;
    const size_t body_len = size - sizeof h;
    if (h.kind == msg_reply) {
        reply_body r;
        if (body_len < sizeof r) return;
        memcpy(&r, body, sizeof r);
        complete_request(h.request, r, reinterpret_cast<const char *>(body + sizeof r),
                         std::min<size_t>(r.message_len, body_len - sizeof r));
        return;
    }
    // A handler runs inside some other call of this thread: keep that call's error message.
    const std::string interrupted_error = pgdds_last_error();
    status st;
    uint64_t word = 0;
    entry_ref held{};
    if (h.kind == msg_insert && body_len >= sizeof(insert_body)) {
        insert_body b;
        memcpy(&b, body, sizeof b);
        if (b.key_len + b.value_len != body_len - sizeof b)
            st = fail(PGDDS_ERR_INVALID_ARG, "malformed insert request");
        else
            st = owner_insert(key_ref{body + sizeof b, size_t(b.key_len), rank_, b.match_base,
                                      home_bucket(b.match_base, nbuckets_), key_identity(body + sizeof b, b.key_len)},
                              body + sizeof b + b.key_len, size_t(b.value_len));
    } else if (h.kind == msg_put || h.kind == msg_atomic || h.kind == msg_take) {
        st = owner_held(rt, h.kind, body, body_len, word, held);
    } else if (h.kind == msg_remove && body_len == sizeof(remove_body)) {
        remove_body b;
        memcpy(&b, body, sizeof b);
        st = owner_reclaim(b.slot, b.locked_meta);
    } else {
        st = fail(PGDDS_ERR_INVALID_ARG, "malformed request (kind %u, %zu bytes)", h.kind, size);
    }
    const char *why = st == PGDDS_OK ? "" : pgdds_last_error();
    reply_body r{st, uint32_t(strnlen(why, 400)), word, held.slot, held.meta, held.loc, held.value_len};
    std::vector<uint8_t> reply(sizeof h + sizeof r + r.message_len);
    h.kind = msg_reply;
    memcpy(reply.data(), &h, sizeof h);
    memcpy(reply.data() + sizeof h, &r, sizeof r);
    memcpy(reply.data() + sizeof h + sizeof r, why, r.message_len);
    status sst = rt.am_send("key table reply", rt.current_vci(), src, AM_KEYTABLE, reply.data(), reply.size());
    if (sst != PGDDS_OK)
        PGDDS_LOG(LOG_ERROR, "key table: cannot reply to rank %d: %s", src, pgdds_last_error());
    fail(PGDDS_OK, "%s", interrupted_error.c_str());
}
}  // namespace pgdds::keytable
