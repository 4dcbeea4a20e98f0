// The distributed hash map (BCL paper §5.2, thesis §6.1): open addressing over a block-
// distributed bucket array, per-bucket 32-bit state words, protocols chosen per call by the
// concurrency promise. The layout of a bucket and its state word is in layout.h.
#pragma once

#include "common.h"

#include <functional>

namespace pgdds::containers {
class hash_map;
}

struct pgdds_hashmap {
    uint64_t magic;
    pgdds::containers::hash_map *impl;
};

namespace pgdds::containers {

constexpr uint64_t hashmap_magic = 0x7067486d6170ull;  // "pgHmap"

// The shape of the table, the same on every rank: resize builds a new one beside the old.
struct hash_table {
    uint64_t part_capacity = 0;  // buckets per rank
    uint64_t probe_limit = 0;    // buckets one probe sequence may visit
    parts where;                 // every rank's bucket array
};

class hash_map : public container {
  public:
    static status create(runtime *rt, const pgdds_hashmap_params_t &params, const pgdds_hashmap_options_t *options,
                         hash_map *&out);
    // Collective: waits for every rank, then frees this rank's part.
    status destroy(const char *who);

    size_t key_size() const { return key_size_; }
    size_t value_size() const { return value_size_; }
    uint64_t capacity() const { return table_.part_capacity * uint64_t(rt->nranks()); }
    int owner(const void *key) const { return place(table_, key).owner; }

    // With req (the _nb forms), a call that takes the operation returns a request that gives
    // its outcome and writes its outputs (container::outcome); misuse fails the call itself.
    status insert(const char *who, const void *key, const void *value, unsigned concurrent,
                  pgdds_request_t *req = nullptr);
    status find(const char *who, const void *key, void *value, unsigned concurrent, pgdds_request_t *req = nullptr);
    // Whether a find under `concurrent` may take find_in_place: find's common case (a CP_FIND
    // find on memory reached by load/store), inline (hashmap_protocols.h).
    bool finds_in_place(unsigned concurrent) const;
    status find_in_place(const char *who, const void *key, void *value);
    // The commonest case of all, for the C entry's first try: find_in_place's conditions hold,
    // the map hashes with XXH3 keys and values of 4, 8 or 16 bytes, the calling thread may call,
    // and the key sits in its home bucket. True when it found the key (value written); false
    // decides nothing (nothing written).
    bool find_at_home(unsigned concurrent, const void *key, void *value) const;
    status erase(const char *who, const void *key, unsigned concurrent, pgdds_request_t *req = nullptr);
    status insert_many(const char *who, size_t count, const uint8_t *keys, const uint8_t *values, unsigned concurrent,
                       pgdds_request_t *req = nullptr);
    status find_many(const char *who, size_t count, const uint8_t *keys, uint8_t *values, unsigned char *found,
                     unsigned concurrent, pgdds_request_t *req = nullptr);
    // The protocol operation `op` (PGDDS_CONTAINER_OP_*) under promise `concurrent` takes towards
    // rank's part (a batch: of one group of keys).
    status op_protocol(const char *who, int rank, int op, unsigned concurrent, int &out) const;
    // Runs a call of another rank on this rank's part (rpc.h).
    status serve(int src, uint32_t op, unsigned concurrent, const uint8_t *args, size_t len,
                 std::vector<uint8_t> &out) override;
    // Collective.
    status size(const char *who, uint64_t &count);
    status resize(const char *who, uint64_t new_capacity);
    status foreach_local(pgdds_hashmap_visit_t visit, void *arg);
    // Copies the first entry of this rank's part at bucket `cursor` or after it, under a reader
    // bit as a fully atomic find reads, and moves `cursor` past it; PGDDS_ERR_NOT_FOUND at the end.
    status local_next(const char *who, uint64_t &cursor, uint8_t *key, uint8_t *value);
    // Inserts `count` records (key then value, packed) that this rank owns, with nothing else
    // touching its part: the drain of a hash map buffer. A record that does not fit is
    // skipped and counted in `dropped`; the others are still inserted.
    status insert_own_records(const char *who, size_t count, const uint8_t *records, uint64_t &dropped);
    // The same drain for a combining buffer: a key present gets combine(stored, record value)
    // (a plain assignment when combine is null); an absent key is inserted, or skipped when
    // update_only.
    status combine_own_records(const char *who, size_t count, const uint8_t *records, pgdds_hashmap_combine_t combine,
                               void *arg, bool update_only, uint64_t &dropped);

  private:
    explicit hash_map(runtime *rt) : container(rt) {}

    key_place place(const hash_table &t, const void *key) const
    {
        return place_key(hash(key), rt->nranks(), t.part_capacity);
    }
    uint64_t hash(const void *key) const { return hash_fn_ ? hash_fn_(key, key_size_, hash_arg_) : hash_bytes(key, key_size_); }
    status check_local(const char *who, unsigned concurrent, int owner) const;
    // What insert and find check first (the key, the value, the promise, a CP_LOCAL caller's own
    // key), giving the key's place.
    status check_keyed(const char *who, const void *key, const void *value, unsigned concurrent, key_place &p) const;
    template <class Mem> typename Mem::address bucket(const hash_table &t, int owner, uint64_t slot) const
    {
        return Mem::offset(t.where.at<Mem>(owner), slot * bucket_bytes_);
    }
    template <class Mem> void prefetch(Mem &m, const hash_table &t, const key_place &p) const;
    template <class Mem> bool holds_key(Mem &m, typename Mem::address b, const uint8_t *key, uint8_t *scratch) const;
    template <size_t KeySize> bool find_at_home_sized(const void *key, void *value) const;

    enum class lock_outcome { locked, free, skip, failed };
    template <class Mem>
    lock_outcome lock_candidate(Mem &m, typename Mem::address b, uint32_t fingerprint, uint32_t &word, spinner &spin,
                                const char *who) const;
    enum class claim_outcome { claimed, lost, failed };
    template <class Mem>
    claim_outcome try_claim(Mem &m, typename Mem::address b, uint32_t seen, uint32_t claimed, spinner &spin, const char *who) const;

    template <class Mem>
    status insert_with(Mem &m, const hash_table &t, const char *who, const uint8_t *key, const uint8_t *value,
                       const key_place &p, bool atomic) const;
    template <class Mem>
    status insert_collided(Mem &m, const hash_table &t, const char *who, const uint8_t *key, const uint8_t *value,
                           const key_place &p, bool atomic, uint32_t home_word) const;
    template <class Mem>
    status fill(Mem &m, typename Mem::address b, const uint8_t *key, const uint8_t *value, bool atomic) const;
    template <class Mem, class Release>
    status insert_probing(Mem &m, const hash_table &t, const char *who, const uint8_t *key, const uint8_t *value,
                          const key_place &p, bool atomic, uint32_t first, Release release) const;
    template <class Mem>
    status find_with(Mem &m, const char *who, const uint8_t *key, uint8_t *value, const key_place &p, bool atomic) const;
    template <class Mem> status find_reading(Mem &m, const uint8_t *key, uint8_t *value, const key_place &p) const;
    // A CP_FIND find reads the buckets of a probe sequence a window at a time: one read of a few
    // consecutive buckets costs about what one bucket does, and at load factor 1/2 a key lies
    // 1.5 buckets from home on average. The window at `slot`, with `probes_left` buckets left to
    // probe, stops at the end of the part.
    uint64_t find_window(const hash_table &t, uint64_t slot, uint64_t probes_left) const;
    enum class scan_outcome { found, absent, undecided };
    // Looks for the key in `count` consecutive buckets read by one CP_FIND read.
    scan_outcome scan_window(const uint8_t *buckets, uint64_t count, const uint8_t *key, const key_place &p,
                             uint8_t *value) const;
    template <class Mem> status erase_with(Mem &m, const char *who, const uint8_t *key, const key_place &p) const;
    template <class Mem>
    status local_next_with(Mem &m, const char *who, uint64_t &cursor, uint8_t *key, uint8_t *value) const;
    template <class Mem>
    status find_group(Mem &m, const char *who, size_t n, const uint8_t *keys, uint8_t *values, unsigned char *found,
                      bool atomic) const;
    template <class Mem>
    status insert_group(Mem &m, const char *who, size_t n, const uint8_t *keys, const uint8_t *values,
                        bool atomic) const;
    template <class Group>
    status in_groups(const char *who, size_t count, const uint8_t *keys, unsigned concurrent, unsigned plain,
                     Group group);
    // Under RPC: one call of a single-key operation (arguments the key, then `extra`) to the
    // key's owner, whose reply data (`out_len` bytes) lands in out.
    status call_owner(const char *who, uint32_t op, int owner, unsigned concurrent, const void *key,
                      const void *extra, size_t extra_len, void *out, size_t out_len, pgdds_request_t *req);
    // Under RPC: a batch split by owner. Every owner called gets one call with its keys (in the
    // order given) then, for an insert, their values; a find's reply holds found flags then
    // values, put back in place. The keys of owners reached by load/store run here meanwhile,
    // through local(count, keys, in_values, out_values, found) on packed copies.
    using local_batch = std::function<status(size_t, const uint8_t *, const uint8_t *, uint8_t *, unsigned char *)>;
    status by_owner(const char *who, uint32_t op, size_t count, const uint8_t *keys, const uint8_t *in_values,
                    uint8_t *out_values, unsigned char *found, unsigned concurrent, const local_batch &local,
                    pgdds_request_t *req);
    // Calls visit(record, its place) for `count` packed records (key then value) in order,
    // prefetching ahead: the drains of a hash map buffer.
    template <class Visit> void visit_placed(const hash_table &t, size_t count, const uint8_t *records, Visit visit) const;

    status make_table(const char *who, uint64_t capacity, hash_table &t, pgdds_gptr_t &mine) const;

    size_t key_size_ = 0, value_size_ = 0;
    uint64_t bucket_bytes_ = 0;
    uint64_t window_buckets_ = 1;  // buckets in a CP_FIND read of find_window_bytes
    pgdds_hash_fn_t hash_fn_ = nullptr;
    void *hash_arg_ = nullptr;
    bool finds_at_home_ = false;  // what find_at_home needs of the map itself
    uint64_t max_probes_ = 1024;
    // Under RPC, auto priced a CP_FIND find's one read below a call: such finds read one-sidedly;
    // and a CP_FIND find_many of up to find_many_groups_ groups of keys (one read in flight per
    // key, a group landed together) below one call per owner.
    bool cp_find_one_sided_ = false;
    size_t find_many_groups_ = 0;
    bool find_many_one_sided(size_t count, unsigned concurrent) const;
    hash_table table_;
};

status resolve_hashmap(pgdds_hashmap *h, const char *who, hash_map *&out);

}  // namespace pgdds::containers
