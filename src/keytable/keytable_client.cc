// The distributed key table, the client's side: addressing, the one-sided read, update and
// atomic protocols, the readers' entry cache, and requests to owners (inserts, removals, calls
// under RPC) with their flow control.
#include "keytable_internal.h"

#include <algorithm>
#include <string>

namespace pgdds::keytable {

namespace {

// Scratch space of a thread's reads: the record last read (at `record_at`), the buckets after
// a home bucket. A thread_local with a destructor goes through its init wrapper on every use:
// record_space() finds the buffer once per read, the rest of the read uses record_at.
thread_local uint8_t *record_at = nullptr;
thread_local std::vector<uint8_t> record_scratch;
thread_local std::vector<bucket_words> run_buf;

// Room for an n-byte record in the thread's scratch space; record_at points there.
uint8_t *record_space(size_t n)
{
    std::vector<uint8_t> &buf = record_scratch;
    if (buf.size() < n) buf.resize(n);
    return record_at = buf.data();
}

}  // namespace

scratch_aside::scratch_aside() : at_(record_at)
{
    record_.swap(record_scratch);
    run_.swap(run_buf);
}

scratch_aside::~scratch_aside()
{
    record_scratch.swap(record_);
    run_buf.swap(run_);
    record_at = at_;
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
    segment_access a(*rt, *v, who, owner_cpu_atomics_);
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
    segment_access a(*rt, *v, who, owner_cpu_atomics_);
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
        entry_ref held{};
        st = retry_until_settled(*rt, *v, who, [&](bool &settled) {
            status st = request(*rt, *v, who, k.owner, message, word, &held);
            settled = st != PGDDS_ERR_AGAIN;  // busy: someone else held the entry
            return st;
        });
        // Remembered as if this rank had held the entry itself (put_held does the same).
        if (st == PGDDS_OK && cache_ && held.meta != 0) {
            held.owner = k.owner;
            cache_->store(k.cache_tag(), held);
        }
        return st;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}
// ---------------------------------------------------------------------------------------------
// Requests to owners, with flow control
// ---------------------------------------------------------------------------------------------
struct table::pending_request {
    std::atomic<bool> done{false};
    status result = PGDDS_OK;
    uint64_t word = 0;
    entry_ref held{};
    std::string message;
};
status table::request(runtime &rt, vci &v, const char *who, int owner, std::vector<uint8_t> &message, uint64_t *word,
                      entry_ref *held)
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
    if (held) *held = req.held;
    return PGDDS_OK;
}

void table::complete_request(uint64_t id, const reply_body &r, const char *message, size_t message_len)
{
    std::lock_guard<std::mutex> guard(requests_lock_);
    auto it = requests_.find(id);
    if (it == requests_.end()) return;  // its requester gave up waiting
    it->second->result = r.result;
    it->second->word = r.word;
    it->second->held = entry_ref{-1, r.held_slot, r.held_meta, r.held_loc, r.held_value_len};
    it->second->message.assign(message, message_len);
    it->second->done.store(true, std::memory_order_release);
}
}  // namespace pgdds::keytable
