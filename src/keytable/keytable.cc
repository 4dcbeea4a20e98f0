// The distributed key table: addressing, the one-sided read/update/atomic protocols, the
// readers' entry cache, and the owner's side of inserts and removals (active messages).
#include "keytable.h"

#include "../containers/substrate.h"

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

// Active messages: a header, then the body of its kind.
enum : uint32_t { msg_insert = 1, msg_remove = 2, msg_reply = 3, msg_put = 4, msg_atomic = 5, msg_take = 6 };
struct msg_header {
    uint32_t kind;
    uint32_t table;
    uint64_t request;
};
struct insert_body {  // followed by the key and the value
    uint64_t match_base;
    uint64_t key_len;
    uint64_t value_len;
};
struct remove_body {  // the remover holds the entry: its meta is locked_meta
    uint64_t slot;
    uint64_t locked_meta;
};
struct held_body {  // put, atomic, take (remove) under RPC: followed by the key and the value
    uint64_t match_base;
    uint64_t key_len;
    uint64_t value_len;
    uint64_t value_offset;
    uint64_t operand;
    uint32_t op;
    uint32_t unused;
};
struct reply_body {  // followed by the owner's explanation of a failure
    int32_t result;
    uint32_t message_len;
    uint64_t word;  // an atomic's fetched value
};

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

// The entry this thread is visiting in foreach_local (it holds it).
struct visit_mark {
    const table *t = nullptr;
    uint64_t slot = 0;
};
thread_local visit_mark visiting;

// Scratch space of a thread's reads: the record last read (at `record_at`), the buckets after
// a home bucket. A thread_local with a destructor goes through its init wrapper on every use:
// record_space() finds the buffer once per read, the rest of the read uses record_at.
thread_local uint8_t *record_at = nullptr;
thread_local std::vector<uint8_t> record_scratch;
thread_local std::vector<bucket_words> run_buf;

// A handler that reads or writes records runs inside some other operation of its thread, whose
// record or buckets may be in the scratch space (a read may even be landing there): the
// handler gets space of its own while it lives.
class scratch_aside {
  public:
    scratch_aside() : at_(record_at)
    {
        record_.swap(record_scratch);
        run_.swap(run_buf);
    }
    ~scratch_aside()
    {
        record_scratch.swap(record_);
        run_buf.swap(run_);
        record_at = at_;
    }
    scratch_aside(const scratch_aside &) = delete;
    scratch_aside &operator=(const scratch_aside &) = delete;

  private:
    uint8_t *at_;
    std::vector<uint8_t> record_;
    std::vector<bucket_words> run_;
};

// Room for an n-byte record in the thread's scratch space; record_at points there.
uint8_t *record_space(size_t n)
{
    std::vector<uint8_t> &buf = record_scratch;
    if (buf.size() < n) buf.resize(n);
    return record_at = buf.data();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// One-sided access to rank segments, by (rank, offset): the core's dispatch between load/store
// and the transport (core/access.h). Atomics always in the job's atomicity domain.
// ---------------------------------------------------------------------------------------------
class segment_access : public access::session {
  public:
    using access::session::session;

    // Complete on return; a read issued after another sees memory at least as recent.
    status read(int rank, uint64_t offset, void *dst, size_t n) { return session::read(at(rank, offset), dst, n); }
    status read_word(int rank, uint64_t offset, uint64_t &out) { return session::read_word(at(rank, offset), out); }
    // Visible to other ranks after commit(); src must stay valid until then.
    status write(int rank, uint64_t offset, const void *src, size_t n) { return session::write(at(rank, offset), src, n); }
    status atomic(int rank, uint64_t offset, amo_op op, uint64_t operand, uint64_t compare, uint64_t *result)
    {
        return atomic64(at(rank, offset), op, operand, compare, result);
    }

  private:
    static pgdds_gptr_t at(int rank, uint64_t offset) { return gptr::make(rank, 0, offset); }
};

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
        for (int r = 0; r < t->nranks_; ++r) t->via_rpc_[size_t(r)] = r != t->rank_ && !rt->peer_base(r);
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
// Addressing
// ---------------------------------------------------------------------------------------------
key_ref table::address(const void *key, size_t len) const
{
    const uint64_t id = key_identity(key, len);
    const uint64_t hash = hash_ ? hash_(key, len, hash_arg_) : id;
    key_address a = address_of(hash, nranks_);
    return key_ref{static_cast<const uint8_t *>(key), len, a.owner, a.match_base,
                   home_bucket(a.match_base, nbuckets_), id};
}

status table::not_found(const char *who, const key_ref &k) const
{
    return fail(PGDDS_ERR_NOT_FOUND, "%s: no such key (its owner is rank %d)", who, k.owner);
}

status table::enter(const char *who, runtime *&rt, vci *&v) const
{
    rt = runtime::from(ctx_);
    if (!rt) return fail(PGDDS_ERR_STATE, "%s: the key table's context has been finalized", who);
    if (!rt->is_bound()) {
        status st = rt->check_thread(who);
        if (st != PGDDS_OK) return st;
    }
    v = &rt->current_vci();
    return PGDDS_OK;
}

template <class Attempt> status table::retry_until_settled(runtime &rt, vci &v, const char *who, Attempt attempt)
{
    status st = PGDDS_OK;
    status wst = rt.wait(who, v, [&] {
        bool settled = true;
        st = attempt(settled);
        return settled;
    });
    return wst != PGDDS_OK ? wst : st;
}

// ---------------------------------------------------------------------------------------------
// Reading: resolution of a key, validated reads of records (§3.4, §3.6.2, §3.7)
// ---------------------------------------------------------------------------------------------
status table::read_record_bytes(segment_access &a, const key_ref &k, uint64_t loc, uint64_t value_guess,
                                record_header &h)
{
    const size_t value_at = record_value_offset(k.len);
    uint8_t *buf = record_space(value_at + max_value_size_);
    size_t first = value_at + size_t(std::min<uint64_t>(value_guess, max_value_size_));
    h = record_header{0, 0, 0};
    if (!fits_in_segment(k, loc)) return PGDDS_OK;  // not key k's record: no match
    status st = a.read(k.owner, loc_offset(loc), buf, first);
    if (st != PGDDS_OK) return st;
    memcpy(&h, buf, sizeof h);
    if (holds_key(k, h) && value_at + h.value_len > first)
        st = a.read(k.owner, loc_offset(loc) + first, buf + first, value_at + h.value_len - first);
    return st;
}

bool table::holds_key(const key_ref &k, const record_header &h) const
{
    return h.key_len == k.len && h.value_len <= max_value_size_ &&
           same_bytes(record_at + sizeof h, k.bytes, k.len);
}

status table::read_record(segment_access &a, const key_ref &k, uint64_t slot, uint64_t meta, uint64_t loc,
                          uint64_t value_guess, record_read &out)
{
    record_header h;
    status st = read_record_bytes(a, k, loc, value_guess, h);
    if (st != PGDDS_OK) return st;
    out.value_len = h.value_len;
    if (holds_key(k, h) && record_sealed(record_at, k.id)) {  // validated by its seal
        out.matched = true;
        out.meta_after = meta;
        return PGDDS_OK;
    }
    // Whatever the record said counts only if the entry did not change meanwhile.
    st = a.read_word(k.owner, meta_offset(k.owner, slot), out.meta_after);
    if (st != PGDDS_OK) return st;
    out.matched = out.meta_after == meta && holds_key(k, h);
    return PGDDS_OK;
}

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

status table::resolve(segment_access &a, const key_ref &k, bool want_value, const char *who, entry_ref &e,
                      outcome &result)
{
    bucket_words home;
    status st = a.read(k.owner, bucket_offset(k.owner, k.home), &home, sizeof home);
    if (st != PGDDS_OK) return st;
    const uint64_t extent = std::min(load_word(home.extent), nbuckets_ - 1);
    bool busy = false, found = false;
    auto consider = [&](uint64_t slot, const slot_words &s) {
        if (found || st != PGDDS_OK || hint_fingerprint(s.hint) != k.fingerprint()) return;
        if (s.meta & meta_locked) {
            bool visited;
            st = check_not_visiting(k, slot, who, visited);
            busy = busy || !visited;
            return;
        }
        if (!names_entry(s.meta, s.loc)) {  // a torn read of a slot changing hands
            busy = true;
            return;
        }
        record_read rr;
        st = read_record(a, k, slot, s.meta, s.loc, want_value ? hint_value_len(s.hint) : 0, rr);
        if (st != PGDDS_OK) return;
        if (rr.matched) {
            found = true;
            e = entry_ref{k.owner, slot, s.meta, s.loc, rr.value_len};
        } else if (rr.meta_after != s.meta) {
            busy = true;
        }
    };
    for_each_candidate([&](uint64_t, uint64_t) -> const bucket_words & { return home; }, k.home, 1, nbuckets_, k.base,
                       consider);
    if (!found && st == PGDDS_OK && extent > 0) {
        // The rest of the run: one read, two where it wraps around the end of the index.
        run_buf.resize(size_t(extent));
        uint64_t next = (k.home + 1) % nbuckets_;
        uint64_t before_end = std::min(extent, nbuckets_ - next);
        st = a.read(k.owner, bucket_offset(k.owner, next), run_buf.data(), before_end * bucket_bytes);
        if (st == PGDDS_OK && extent > before_end)
            st = a.read(k.owner, bucket_offset(k.owner, 0), run_buf.data() + before_end,
                        (extent - before_end) * bucket_bytes);
        if (st == PGDDS_OK)
            for_each_candidate([&](uint64_t i, uint64_t) -> const bucket_words & { return run_buf[i]; }, next, extent,
                               nbuckets_, k.base, consider);
    }
    result = found ? outcome::found : busy ? outcome::busy : outcome::absent;
    return st;
}

status table::find(segment_access &a, const key_ref &k, bool want_value, const char *who, entry_ref &e,
                   outcome &result)
{
    // Another rank's key, resolved before: the record, one read when its seal validates it, and
    // the meta word after it when not. A new version with the same occupant (same gen, so the
    // same record) only needs reading again.
    const bool cacheable = cache_ && k.owner != rank_;
    if (cacheable && cache_->find(k.owner, k.cache_tag(), e)) {
        for (int tries = 0;; ++tries) {
            record_read rr;
            status st = read_record(a, k, e.slot, e.meta, e.loc, want_value ? e.value_len : 0, rr);
            if (st != PGDDS_OK) return st;
            if (rr.matched) {
                if (tries || rr.value_len != e.value_len) {  // what the cache knows has changed
                    e.value_len = rr.value_len;
                    cache_->store(k.cache_tag(), e);
                }
                result = outcome::found;
                return PGDDS_OK;
            }
            // Held by a writer, or rewritten again and again: progress, then try again.
            if ((rr.meta_after & meta_locked) || tries == 3) {
                result = outcome::busy;
                return PGDDS_OK;
            }
            const bool same_occupant = (rr.meta_after & meta_active) && meta_gen(rr.meta_after) == meta_gen(e.meta);
            if (rr.meta_after == e.meta || !same_occupant) break;
            e.meta = rr.meta_after;
        }
        cache_->forget(k.owner, k.cache_tag());
    }
    status st = resolve(a, k, want_value, who, e, result);
    if (st == PGDDS_OK && result == outcome::found && cacheable) cache_->store(k.cache_tag(), e);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Holding entries: writers lock meta with a compare-and-swap from the value they validated
// ---------------------------------------------------------------------------------------------
status table::lock_entry(segment_access &a, const key_ref &k, const char *who, entry_ref &e, outcome &result)
{
    // A remembered entry is locked straight away: the compare-and-swap succeeds only if the
    // entry did not change since it was validated. The cache knows entries by a hash of the key, so
    // the key is then checked in the held record, which cannot change meanwhile.
    const bool remembered = cache_ && k.owner != rank_ && cache_->find(k.owner, k.cache_tag(), e);
    status st = PGDDS_OK;
    result = outcome::found;
    if (!remembered) {
        st = find(a, k, false, who, e, result);
        if (st != PGDDS_OK || result != outcome::found) return st;
    }
    uint64_t old = 0;
    st = a.atomic(k.owner, meta_offset(k.owner, e.slot), AMO_CSWAP, e.meta | meta_locked, e.meta, &old);
    if (st != PGDDS_OK) return st;
    if (old == e.meta) {
        // A reader that sees what the holder writes next must see the lock too.
        std::atomic_thread_fence(std::memory_order_release);
        if (!remembered) return PGDDS_OK;
        record_header h;
        st = read_record_bytes(a, k, e.loc, 0, h);
        if (st == PGDDS_OK && holds_key(k, h)) {
            e.value_len = h.value_len;
            return PGDDS_OK;
        }
        // Another key's entry (one with the same hash), or the read failed: let go.
        status rst = release_entry(a, e, e.meta);
        if (st != PGDDS_OK || rst != PGDDS_OK) return st != PGDDS_OK ? st : rst;
    }
    if (old != e.meta && (old & meta_locked)) {
        bool visited;
        st = check_not_visiting(k, e.slot, who, visited);
    } else if (cache_) {
        cache_->forget(k.owner, k.cache_tag());
    }
    result = outcome::busy;
    return st;
}

status table::release_entry(segment_access &a, const entry_ref &e, uint64_t meta)
{
    return a.atomic(e.owner, meta_offset(e.owner, e.slot), AMO_SWAP, meta, 0, nullptr);
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------
status table::insert(const void *key, size_t key_len, const void *value, size_t value_len)
{
    const char *who = "pgdds_keytable_insert";
    runtime *rt;
    vci *v = nullptr;
    status st = enter(who, rt, v);
    if (st != PGDDS_OK) return st;
    key_ref k = address(key, key_len);
    if (k.owner == rank_) {
        st = owner_insert(k, value, value_len);
        return st == PGDDS_OK ? st : fail_prefix(st, who);
    }
    msg_header h{msg_insert, id_, 0};
    insert_body b{k.base, key_len, value_len};
    std::vector<uint8_t> message(sizeof h + sizeof b + key_len + value_len);
    memcpy(message.data(), &h, sizeof h);
    memcpy(message.data() + sizeof h, &b, sizeof b);
    memcpy(message.data() + sizeof h + sizeof b, key, key_len);
    if (value_len) memcpy(message.data() + sizeof h + sizeof b + key_len, value, value_len);
    return request(*rt, *v, who, k.owner, message);
}

bool table::get_remembered(segment_access &a, const key_ref &k, void *value, size_t capacity, size_t &value_len,
                           status &st)
{
    entry_ref e;
    if (!cache_ || k.owner == rank_ || !cache_->find(k.owner, k.cache_tag(), e) || e.value_len > capacity ||
        !fits_in_segment(k, e.loc))
        return false;
    const size_t value_at = record_value_offset(k.len);
    uint8_t *r = record_space(value_at + size_t(e.value_len));
    st = a.read(k.owner, loc_offset(e.loc), r, value_at + size_t(e.value_len));
    if (st != PGDDS_OK) return false;
    record_header h;
    memcpy(&h, r, sizeof h);
    if (h.value_len != e.value_len || !holds_key(k, h) || !record_sealed(r, k.id)) return false;
    if (h.value_len) copy_bytes(value, r + value_at, h.value_len);
    value_len = h.value_len;
    return true;
}

status table::get(const void *key, size_t key_len, void *value, size_t *value_len)
{
    const char *who = "pgdds_keytable_get";
    runtime *rt;
    vci *v = nullptr;
    status st = enter(who, rt, v);
    if (st != PGDDS_OK) return st;
    const size_t capacity = *value_len;
    key_ref k = address(key, key_len);
    segment_access a(*rt, *v, who);
    if (get_remembered(a, k, value, capacity, *value_len, st) || st != PGDDS_OK) return st;
    return retry_until_settled(*rt, *v, who, [&](bool &settled) {
        entry_ref e;
        outcome o;
        status st = find(a, k, true, who, e, o);
        settled = st != PGDDS_OK || o != outcome::busy;
        if (st != PGDDS_OK || o == outcome::busy) return st;
        if (o == outcome::absent) return not_found(who, k);
        if (e.value_len > capacity) {
            *value_len = size_t(e.value_len);
            return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: the value has %llu bytes, the buffer %zu (*value_len now holds "
                        "the size needed)", who, (unsigned long long)e.value_len, capacity);
        }
        if (e.value_len) copy_bytes(value, record_at + record_value_offset(key_len), size_t(e.value_len));
        *value_len = size_t(e.value_len);
        return PGDDS_OK;
    });
}

template <class Held> status table::with_entry_held(const char *who, const void *key, size_t key_len, Held held)
{
    runtime *rt;
    vci *v = nullptr;
    status st = enter(who, rt, v);
    if (st != PGDDS_OK) return st;
    key_ref k = address(key, key_len);
    segment_access a(*rt, *v, who);
    return retry_until_settled(*rt, *v, who, [&](bool &settled) {
        entry_ref e;
        outcome o;
        status st = lock_entry(a, k, who, e, o);
        settled = st != PGDDS_OK || o != outcome::busy;
        if (st != PGDDS_OK || o == outcome::busy) return st;
        if (o == outcome::absent) return not_found(who, k);
        return held(*rt, *v, a, k, e);
    });
}

status table::put(const void *key, size_t key_len, const void *value, size_t value_len)
{
    const char *who = "pgdds_keytable_put";
    if (!via_rpc_.empty()) {
        key_ref k = address(key, key_len);
        if (calls_owner(k.owner)) return call_owner(who, k, msg_put, 0, PGDDS_AOP_ADD, 0, value, value_len, nullptr);
    }
    return with_entry_held(who, key, key_len, [&](runtime &, vci &, segment_access &a, const key_ref &k,
                                                  const entry_ref &e) {
        return put_held(a, k, e, value, value_len);
    });
}

status table::put_held(segment_access &a, const key_ref &k, const entry_ref &e, const void *value, size_t value_len)
{
    // Nobody else writes the record. The whole record goes in one write with its new seal:
    // a reader that catches part of it sees a seal that does not match, and then meta.
    const uint64_t record = loc_offset(e.loc);
    const size_t record_len = record_value_offset(k.len) + value_len;
    uint8_t *image = record_space(record_len);
    write_record(image, k.bytes, k.len, value, value_len, true);
    const uint64_t new_len = value_len, hint = make_hint(k.fingerprint(), new_len);
    const uint64_t hint_at = index_offset_[size_t(k.owner)] + slot_offset_in_index(e.slot) + offsetof(slot_words, hint);
    status st = a.write(k.owner, record, image, record_len);
    if (st == PGDDS_OK && new_len != e.value_len) st = a.write(k.owner, hint_at, &hint, sizeof hint);
    if (st == PGDDS_OK) st = a.commit();
    // Released with a new version even after a failed write: readers must not trust the old one.
    const uint64_t released = meta_next_version(e.meta);
    status rst = release_entry(a, e, released);
    if (st == PGDDS_OK) st = rst;
    if (st == PGDDS_OK && cache_ && k.owner != rank_)
        cache_->store(k.cache_tag(), entry_ref{e.owner, e.slot, released, e.loc, new_len});
    return st;
}

status table::atomic_u64(const void *key, size_t key_len, size_t value_offset, pgdds_aop_t op, uint64_t operand,
                         uint64_t *fetched)
{
    const char *who = "pgdds_keytable_atomic_u64";
    if (!via_rpc_.empty()) {
        key_ref k = address(key, key_len);
        if (calls_owner(k.owner)) return call_owner(who, k, msg_atomic, value_offset, op, operand, nullptr, 0, fetched);
    }
    return with_entry_held(who, key, key_len, [&](runtime &, vci &, segment_access &a, const key_ref &k,
                                                  const entry_ref &e) {
        return atomic_held(a, k, e, value_offset, op, operand, fetched);
    });
}

status table::atomic_held(segment_access &a, const key_ref &k, const entry_ref &e, size_t value_offset,
                          pgdds_aop_t op, uint64_t operand, uint64_t *fetched)
{
    // The length is the current one and the record stays the key's.
    const char *who = "pgdds_keytable_atomic_u64";
    uint64_t old = 0;
    status st;
    if (value_offset + 8 > e.value_len) {
        st = fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: the word at value_offset %zu overruns the value (%llu bytes)", who,
                  value_offset, (unsigned long long)e.value_len);
    } else {
        uint64_t word = loc_offset(e.loc) + record_value_offset(k.len) + value_offset;
        st = a.atomic(k.owner, word, amo_op(op), operand, 0, fetched ? &old : nullptr);
    }
    // The version stays: only one word changed, atomically, so concurrent reads stand. The
    // seal no longer matches, so readers validate by meta until a put seals the record again.
    status rst = release_entry(a, e, e.meta);
    if (st == PGDDS_OK) st = rst;
    if (st == PGDDS_OK && fetched) *fetched = old;
    return st;
}

status table::remove(const void *key, size_t key_len)
{
    const char *who = "pgdds_keytable_remove";
    if (!via_rpc_.empty()) {
        key_ref k = address(key, key_len);
        if (calls_owner(k.owner)) return call_owner(who, k, msg_take, 0, PGDDS_AOP_ADD, 0, nullptr, 0, nullptr);
    }
    return with_entry_held(who, key, key_len, [&](runtime &rt, vci &v, segment_access &a, const key_ref &k,
                                                  const entry_ref &e) {
        if (cache_) cache_->forget(k.owner, k.cache_tag());
        // The owner takes the entry out of the index and frees it.
        if (k.owner == rank_) {
            std::lock_guard<std::mutex> guard(local_->mutex());
            local_->reclaim(e.slot);
            return PGDDS_OK;
        }
        msg_header h{msg_remove, id_, 0};
        remove_body b{e.slot, e.meta | meta_locked};
        std::vector<uint8_t> message(sizeof h + sizeof b);
        memcpy(message.data(), &h, sizeof h);
        memcpy(message.data() + sizeof h, &b, sizeof b);
        status st = request(rt, v, who, k.owner, message);
        if (st != PGDDS_OK) release_entry(a, e, e.meta);  // the owner did not take it
        return st;
    });
}

int table::protocol_to(int owner) const
{
    if (calls_owner(owner)) return PGDDS_PROTOCOL_RPC;
    runtime *rt = runtime::from(ctx_);
    return owner == rank_ || (rt && rt->peer_base(owner)) ? PGDDS_PROTOCOL_DIRECT : PGDDS_PROTOCOL_RDMA;
}

// ---------------------------------------------------------------------------------------------
// RPC: the caller asks until the owner finds the entry free
// ---------------------------------------------------------------------------------------------
status table::call_owner(const char *who, const key_ref &k, uint32_t kind, size_t value_offset, pgdds_aop_t op,
                         uint64_t operand, const void *value, size_t value_len, uint64_t *word)
{
    runtime *rt;
    vci *v = nullptr;
    status st = enter(who, rt, v);
    if (st != PGDDS_OK) return st;
    try {
        if (cache_ && kind == msg_take) cache_->forget(k.owner, k.cache_tag());
        msg_header h{kind, id_, 0};
        held_body b{k.base, k.len, value_len, value_offset, operand, uint32_t(op), 0};
        std::vector<uint8_t> message(sizeof h + sizeof b + k.len + value_len);
        memcpy(message.data(), &h, sizeof h);
        memcpy(message.data() + sizeof h, &b, sizeof b);
        memcpy(message.data() + sizeof h + sizeof b, k.bytes, k.len);
        if (value_len) memcpy(message.data() + sizeof h + sizeof b + k.len, value, value_len);
        return retry_until_settled(*rt, *v, who, [&](bool &settled) {
            status st = request(*rt, *v, who, k.owner, message, word);
            settled = st != PGDDS_ERR_AGAIN;  // busy: someone else held the entry
            return st;
        });
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

// The owner tries the operation's steps once on its own memory: PGDDS_ERR_AGAIN when the entry
// is held by someone else (the caller asks again; a handler never waits for a lock).
status table::owner_held(runtime &rt, uint32_t kind, const uint8_t *body, size_t len, uint64_t &word)
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
    segment_access a(rt, rt.current_vci(), who);
    entry_ref e;
    outcome o;
    status st = lock_entry(a, k, who, e, o);
    if (st == PGDDS_OK && o == outcome::busy) st = fail(PGDDS_ERR_AGAIN, "%s: the entry is held", who);
    else if (st == PGDDS_OK && o == outcome::absent) st = not_found(who, k);
    else if (st == PGDDS_OK && kind == msg_put) st = put_held(a, k, e, key + b.key_len, size_t(b.value_len));
    else if (st == PGDDS_OK && kind == msg_atomic)
        st = atomic_held(a, k, e, size_t(b.value_offset), pgdds_aop_t(b.op), b.operand, &word);
    else if (st == PGDDS_OK) {
        std::lock_guard<std::mutex> guard(local_->mutex());
        local_->reclaim(e.slot);
    }
    visiting = visited;
    return st;
}

status table::foreach_local(pgdds_keytable_visit_t visit, void *arg)
{
    const char *who = "pgdds_keytable_foreach_local";
    runtime *rt;
    vci *v = nullptr;
    status st = enter(who, rt, v);
    if (st != PGDDS_OK) return st;
    if (visiting.t == this)
        return fail(PGDDS_ERR_STATE, "%s: called from a visitor of the same table's foreach_local", who);
    segment_access a(*rt, *v, who);
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
        complete_request(h.request, r.result, r.word, reinterpret_cast<const char *>(body + sizeof r),
                         std::min<size_t>(r.message_len, body_len - sizeof r));
        return;
    }
    // A handler runs inside some other call of this thread: keep that call's error message.
    const std::string interrupted_error = pgdds_last_error();
    status st;
    uint64_t word = 0;
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
        st = owner_held(rt, h.kind, body, body_len, word);
    } else if (h.kind == msg_remove && body_len == sizeof(remove_body)) {
        remove_body b;
        memcpy(&b, body, sizeof b);
        st = owner_reclaim(b.slot, b.locked_meta);
    } else {
        st = fail(PGDDS_ERR_INVALID_ARG, "malformed request (kind %u, %zu bytes)", h.kind, size);
    }
    const char *why = st == PGDDS_OK ? "" : pgdds_last_error();
    reply_body r{st, uint32_t(strnlen(why, 400)), word};
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

// ---------------------------------------------------------------------------------------------
// Requests to owners, with flow control
// ---------------------------------------------------------------------------------------------
struct table::pending_request {
    std::atomic<bool> done{false};
    status result = PGDDS_OK;
    uint64_t word = 0;
    std::string message;
};

status table::request(runtime &rt, vci &v, const char *who, int owner, std::vector<uint8_t> &message, uint64_t *word)
{
    // A credit: at most request_window requests of this rank in flight to one owner.
    std::atomic<int> &in_flight = in_flight_[size_t(owner)];
    status st = rt.wait(who, v, [&] {
        int n = in_flight.load(std::memory_order_relaxed);
        return n < request_window && in_flight.compare_exchange_weak(n, n + 1, std::memory_order_acquire);
    });
    if (st != PGDDS_OK) return st;
    pending_request req;
    uint64_t id;
    {
        std::lock_guard<std::mutex> guard(requests_lock_);
        id = ++next_request_;
        requests_[id] = &req;
    }
    memcpy(message.data() + offsetof(msg_header, request), &id, sizeof id);
    st = rt.am_send(who, v, owner, AM_KEYTABLE, message.data(), message.size());
    if (st == PGDDS_OK) st = rt.wait(who, v, [&] { return req.done.load(std::memory_order_acquire); });
    {
        std::lock_guard<std::mutex> guard(requests_lock_);
        requests_.erase(id);
    }
    in_flight.fetch_sub(1, std::memory_order_release);
    if (st != PGDDS_OK) return st;
    if (req.result != PGDDS_OK) return fail(req.result, "%s: rank %d: %s", who, owner, req.message.c_str());
    if (word) *word = req.word;
    return PGDDS_OK;
}

void table::complete_request(uint64_t id, status result, uint64_t word, const char *message, size_t message_len)
{
    std::lock_guard<std::mutex> guard(requests_lock_);
    auto it = requests_.find(id);
    if (it == requests_.end()) return;  // its requester gave up waiting
    it->second->result = result;
    it->second->word = word;
    it->second->message.assign(message, message_len);
    it->second->done.store(true, std::memory_order_release);
}

}  // namespace pgdds::keytable
