// Key tables: the partitioned global logical address space (PDHT, Larkins et al. ICPP'18) over
// match-entry tables (match_table.h), one partition per rank.
//
// Protocols
//   get     one-sided: read the key's home bucket (and the run after it when its extent says so),
//           then the record a candidate slot names. A record whose seal matches its bytes is
//           valid as read (match_table.h); otherwise that slot's meta word is read again and
//           the read counts only if meta did not change (a seqlock whose version grows with
//           every change of the record or of the slot's occupant). Readers keep the slots they
//           resolved in a cache (entry, meta, length) and skip the bucket read next time: the
//           record alone, one read (record + meta, two, when it is not sealed); a stale cache
//           entry fails the same checks.
//   put     one-sided: lock the entry (compare-and-swap on meta), write the record, sealed anew
//           in place, flush, release with a new version.
//   atomic  one-sided: lock the entry, check the offset against the current length, apply the
//           atomic to the value word with the core's atomics, release (same version: the word
//           changed atomically, a concurrent reader may keep what it read).
//   insert  an active message to the owner, which appends the entry pending and activates it
//           (§3.3) and replies with the status. At most `request_window` requests per
//           destination are in flight from one rank; the replies return the credits, so a
//           fast inserter is slowed, never dropped.
//   remove  lock the entry one-sidedly, then an active message asks the owner to take it out
//           of the index and free it (an owner-local removal does that itself).
// Under PGDDS_PROTOCOL_RPC (PGDDS_CONTAINER_PROTOCOL, as for the containers) put, atomic and
// remove, the operations that lock an entry (2A and more), are one active message each to the
// owner, which tries the same steps on its own memory once and replies; an entry held by
// someone else is answered "busy" and the caller asks again, so no handler ever waits for a
// lock. get stays one-sided (one R with the cache: no call is cheaper), insert was a message
// already. Owners reached by load/store keep the one-sided protocols.
// Local keys take the local search path (§3.6.3): the same steps on the owner's memory, no
// communication (atomics stay in the job's atomicity domain).
#pragma once

#include "entry_cache.h"
#include "match_table.h"

#include "../core/runtime.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace pgdds::keytable {
class table;
}

struct pgdds_keytable {
    uint64_t magic;
    pgdds::keytable::table *impl;
};

namespace pgdds::keytable {

constexpr uint64_t handle_magic = 0x706764646b54ull;  // "pgddkT"
constexpr uint64_t default_cache_entries = 16384;
constexpr int request_window = 4;  // requests in flight from one rank to one owner
constexpr size_t max_key_len = PGDDS_KEYTABLE_MAX_KEY_LEN;

// A key with its address.
struct key_ref {
    const uint8_t *bytes;
    size_t len;
    int owner;
    uint64_t base;         // match bits without alias
    uint64_t home;         // bucket
    uint64_t id;           // key_identity() of the key's bytes

    // The slot's hint of the key. Like the identity it never comes from an application's hash,
    // so it tells apart keys that hash alike; it is the identity's high half, which address_of
    // does not use raw (match bits come from mix64(hash)), though for a hint any value would do.
    uint32_t fingerprint() const { return uint32_t(id >> 32); }
    // What the readers' cache knows the key's entry by: the identity, which it is indexed by
    // too (it is ready before the key's address is).
    uint64_t cache_tag() const { return id; }
};

class segment_access;
struct reply_body;

class table {
  public:
    // Collective.
    static status create(pgdds_context_t ctx, const pgdds_keytable_params_t &params, table *&out);
    status destroy();  // collective

    status insert(const void *key, size_t key_len, const void *value, size_t value_len);
    status get(const void *key, size_t key_len, void *value, size_t *value_len);
    status put(const void *key, size_t key_len, const void *value, size_t value_len);
    status atomic_u64(const void *key, size_t key_len, size_t value_offset, pgdds_aop_t op, uint64_t operand,
                      uint64_t *fetched);
    status remove(const void *key, size_t key_len);
    status foreach_local(pgdds_keytable_visit_t visit, void *arg);

    size_t max_value_size() const { return max_value_size_; }
    pgdds_context_t context() const { return ctx_; }

    // Owner side of the active messages.
    void on_message(runtime &rt, int src, const uint8_t *payload, size_t size);
    // How this rank's put, atomic and remove reach `owner` (PGDDS_PROTOCOL_DIRECT, _RDMA, _RPC).
    int protocol_to(int owner) const;

  private:
    class records_in_segment final : public match_table::record_allocator {
      public:
        explicit records_in_segment(segment_allocator &a) : a_(a) {}
        status alloc(size_t bytes, uint64_t &offset) override;
        void free(uint64_t offset) override;

      private:
        segment_allocator &a_;
    };

    enum class outcome { found, absent, busy };
    struct record_read {
        bool matched;         // meta had not changed and the record holds the key
        uint64_t meta_after;  // meta, read after the record
        uint64_t value_len;
    };
    struct pending_request;

    table() = default;
    key_ref address(const void *key, size_t len) const;
    // The runtime and the calling thread's VCI, refusing threads the thread level does not allow.
    status enter(const char *who, runtime *&rt, vci *&v) const;
    void unregister();
    status not_found(const char *who, const key_ref &k) const;
    // Runs attempt(settled) until it settles, progressing in between (runtime::wait).
    template <class Attempt> status retry_until_settled(runtime &rt, vci &v, const char *who, Attempt attempt);
    // Runs held(rt, v, access, key, entry) with the key's entry found and held, waiting while
    // someone else holds it; NOT_FOUND when the key is absent. The frame of put, atomics, remove.
    template <class Held> status with_entry_held(const char *who, const void *key, size_t key_len, Held held);

    // Reading: a record's bytes (into the thread's record buffer), whether they are key k's,
    // the validated read of a record, the resolution of a key from its home bucket, and the two
    // together with the cache.
    status read_record_bytes(segment_access &a, const key_ref &k, uint64_t loc, uint64_t value_guess,
                             record_header &h);
    bool holds_key(const key_ref &k, const record_header &h) const;
    // Whether key k's record could be at loc: one that would end past the owner's segment is a
    // stale entry's, never read.
    bool fits_in_segment(const key_ref &k, uint64_t loc) const
    {
        return loc_offset(loc) + record_value_offset(k.len) + max_value_size_ <= segment_size_[size_t(k.owner)];
    }
    status read_record(segment_access &a, const key_ref &k, uint64_t slot, uint64_t meta, uint64_t loc,
                       uint64_t value_guess, record_read &out);
    status resolve(segment_access &a, const key_ref &k, bool want_value, const char *who, entry_ref &e,
                   outcome &result);
    status find(segment_access &a, const key_ref &k, bool want_value, const char *who, entry_ref &e,
                outcome &result);
    // The common case of a get, kept apart for its latency: another rank's key, remembered, whose
    // record validates by its seal, in one read. False (st PGDDS_OK) when anything is unusual: the
    // general protocol then takes over.
    bool get_remembered(segment_access &a, const key_ref &k, void *value, size_t capacity, size_t &value_len,
                        status &st);
    // Finds and holds (locks) an entry; busy when someone else holds it or it changed.
    status lock_entry(segment_access &a, const key_ref &k, const char *who, entry_ref &e, outcome &result);
    status release_entry(segment_access &a, const entry_ref &e, uint64_t meta);
    // Whether `slot` is the entry this thread visits in foreach_local (it holds it); STATE when
    // that entry is key k's own.
    status check_not_visiting(const key_ref &k, uint64_t slot, const char *who, bool &visited) const;

    // The steps of put, atomic and remove once the entry is held (by this rank, or by the owner
    // serving a call).
    status put_held(segment_access &a, const key_ref &k, const entry_ref &e, const void *value, size_t value_len);
    status atomic_held(segment_access &a, const key_ref &k, const entry_ref &e, size_t value_offset, pgdds_aop_t op,
                       uint64_t operand, uint64_t *fetched);
    bool calls_owner(int owner) const { return !via_rpc_.empty() && via_rpc_[size_t(owner)]; }
    // Under RPC: asks the owner to run `kind` on key k until it is not busy.
    status call_owner(const char *who, const key_ref &k, uint32_t kind, size_t value_offset, pgdds_aop_t op,
                      uint64_t operand, const void *value, size_t value_len, uint64_t *word);

    // Owner side.
    // `held` gets the entry as released after a put or an atomic (meta 0 otherwise).
    status owner_held(runtime &rt, uint32_t kind, const uint8_t *body, size_t len, uint64_t &word, entry_ref &held);
    status owner_insert(const key_ref &k, const void *value, size_t value_len);
    status owner_reclaim(uint64_t slot, uint64_t locked_meta);

    // Requests to owners, with flow control.
    // `word`, if given, gets the reply's word (an atomic's fetched value); `held`, the entry the
    // owner held (meta 0: none).
    status request(runtime &rt, vci &v, const char *who, int owner, std::vector<uint8_t> &message,
                   uint64_t *word = nullptr, entry_ref *held = nullptr);
    void complete_request(uint64_t id, const reply_body &r, const char *message, size_t message_len);

    uint64_t meta_offset(int rank, uint64_t slot) const { return index_offset_[rank] + meta_offset_in_index(slot); }
    uint64_t bucket_offset(int rank, uint64_t b) const { return index_offset_[rank] + b * bucket_bytes; }

    pgdds_context_t ctx_ = nullptr;
    uint32_t id_ = 0;
    int rank_ = 0, nranks_ = 1;
    size_t max_value_size_ = 0;
    uint64_t capacity_ = 0;
    uint64_t nbuckets_ = 0;
    pgdds_keytable_hash_t hash_ = nullptr;
    void *hash_arg_ = nullptr;
    std::vector<uint64_t> index_offset_;  // of every rank's index in its segment
    std::vector<uint64_t> segment_size_;  // of every rank
    std::unique_ptr<records_in_segment> records_;
    std::unique_ptr<match_table> local_;
    std::unique_ptr<entry_cache> cache_;
    int protocol_ = PGDDS_PROTOCOL_RDMA;
    std::vector<char> via_rpc_;  // under RPC: the owners called (those not reached by load/store)
    // Under RPC with no other rank mapping this one, only this rank applies atomics to its part
    // (every other rank calls it): CPU atomics, where the job's domain would send each through
    // the transport to itself (three per call served over tcp: 85-110 us of its 130).
    bool owner_cpu_atomics_ = false;

    std::mutex requests_lock_;
    std::unordered_map<uint64_t, pending_request *> requests_;
    uint64_t next_request_ = 0;
    std::unique_ptr<std::atomic<int>[]> in_flight_;  // requests per destination
};

}  // namespace pgdds::keytable
