// Match-entry tables: one rank's partition of a key table, the building block of the
// partitioned global logical address space (Larkins et al., PDHT, ICPP'18, §3).
//
// A key hashes to (owner rank, 64-bit match bits). The owner keeps, in its segment, one match
// entry per key — match bits -> where the key and value live — in an *unordered hashed index*
// (the paper's PTL_PT_MATCH_UNORDERED, §3.6.2), so finding an entry costs the same however many
// entries the rank holds, and any rank can find it one-sidedly: read the index bucket(s), then
// the record.
//
// Layout in the owner's segment
//   index   nbuckets buckets of 256 bytes, allocated at creation:
//             bucket  = extent (u64), 24 unused bytes, 7 slots
//             slot    = 4 words of 8 bytes (the match entry):
//               match_bits  the key's match bits: hash bits | alias (low 8 bits, §3.7)
//               meta        gen (24 bits) | version (38 bits) | locked | active
//               loc         record offset in the segment (40 bits) | gen (24 bits)
//               hint        a 32-bit fingerprint of the key | the value's length: hints that let
//                           readers skip other keys' records and size their reads
//   records one per entry, allocated from the segment when the entry is appended:
//               key_len (u32) | value_len (u32) | seal (u64) | key | padding to 8 | value
//               (room for max_value_size bytes, so an update may change the size in place)
//
// A key's *home* bucket is a function of its match bits without the alias, so every key that
// shares them (a collision) is found from the same home, and the fingerprint in the slot spares
// a reader the records of those that are not its key. An entry lives in its home bucket or,
// when that is full, in one of the following buckets (wrapping); the home's `extent` is the
// farthest such bucket in use, so a reader reads home .. home+extent and nothing else (usually
// one bucket). Entries never move while they live.
//
// Concurrency (what the key table's one-sided protocol relies on)
//   - `meta` is the only word that readers trust; 8-byte aligned words are read whole.
//     `version` grows on every change of the record's bytes or of the slot's occupant; `gen`
//     grows when a new entry takes the slot, and `loc` carries the gen it was written for, so a
//     slot read in one piece (whose words may come from different moments) is recognised as
//     torn when meta and loc disagree.
//   - A writer of a live entry (update, atomic, removal, visit) first sets `locked` with a
//     compare-and-swap from an unlocked meta; nobody else can then change meta.
//   - Only the owner changes a free slot or takes a slot out of use, under mutex(); a free slot
//     is written with plain stores, since no compare-and-swap from another rank can succeed on
//     it (they expect an active meta).
//
//   - A record's `seal` is a checksum of its lengths, key and value, or 0 (the value hashed with
//     a seed made of the lengths and the key's 64-bit identity, which a reader has at hand). A
//     record read in one piece whose seal matches its bytes is the key's current record as it
//     stood at some moment of the read (Pilaf's self-verifying objects, Mitchell et al.,
//     ATC'13): a reader with a cached entry reads the record alone, one read, without the meta
//     word after it. Only a record that an active slot names carries a seal: it is sealed after
//     the slot is published, re-sealed by every writer that replaces its bytes, and its seal is
//     cleared before the slot is taken out of use (so a freed record never validates). A record
//     without a valid seal (one an atomic changed, or one caught mid-change) is validated by meta.
//
// Inserts (§3.3): an entry is first *appended pending* — its record allocated and written, but
// no slot names it, so no lookup can see it — then *activated*: placed in the index with an
// alias that no other key with the same match bits uses, and published by one store of meta.
#pragma once

#include "../base/common.h"

#include <cstring>
#include <mutex>

#define XXH_INLINE_ALL  // key identities and seals are on every read's path
#include <xxhash.h>

namespace pgdds::keytable {

// --- match bits (§3.2, §3.7) ---------------------------------------------------------------
constexpr unsigned alias_bits = 8;
constexpr uint64_t alias_mask = (uint64_t(1) << alias_bits) - 1;
constexpr unsigned max_aliases = 1u << alias_bits;

// A bijective 64-bit mixer (MurmurHash3's finalizer).
constexpr uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

// Where a key lives: its owner and its match bits with the alias bits clear.
struct key_address {
    int owner;
    uint64_t match_base;
};

// The address of a key whose 64-bit hash is `key_hash`. The owner and the match bits come from
// two independent mixes of the hash, so a hash that is only weakly spread (an application's own)
// still spreads keys over ranks and buckets.
inline key_address address_of(uint64_t key_hash, int nranks)
{
    return key_address{int(scale(mix64(key_hash ^ 0x9e3779b97f4a7c15ull), uint64_t(nranks))),
                       mix64(key_hash) & ~alias_mask};
}

constexpr uint64_t match_base(uint64_t match_bits) { return match_bits & ~alias_mask; }
constexpr unsigned match_alias(uint64_t match_bits) { return unsigned(match_bits & alias_mask); }

// --- the index (§3.6.2) --------------------------------------------------------------------
constexpr size_t slots_per_bucket = 7;

struct slot_words {
    uint64_t match_bits;
    uint64_t meta;
    uint64_t loc;
    uint64_t hint;
};

struct bucket_words {
    uint64_t extent;  // farthest bucket (distance from this one) holding a key whose home is here
    uint64_t unused[3];
    slot_words slot[slots_per_bucket];
};
static_assert(sizeof(slot_words) == 32, "a slot is four words");
static_assert(sizeof(bucket_words) == 256, "a bucket is 256 bytes");
constexpr size_t bucket_bytes = sizeof(bucket_words);

// Buckets for a partition of `capacity` entries: 4 entries per 7 slots at most, so probe
// sequences stay short.
constexpr uint64_t buckets_for(uint64_t capacity) { return (capacity + 3) / 4; }

// The home bucket: from the high bits of the match bits, which address_of has mixed already.
inline uint64_t home_bucket(uint64_t match_base, uint64_t nbuckets) { return scale(match_base, nbuckets); }

// Byte offset of slot s (numbered bucket * 7 + position) from the start of the index.
constexpr uint64_t slot_offset_in_index(uint64_t s)
{
    return s / slots_per_bucket * bucket_bytes + offsetof(bucket_words, slot) +
           s % slots_per_bucket * sizeof(slot_words);
}
constexpr uint64_t meta_offset_in_index(uint64_t s) { return slot_offset_in_index(s) + offsetof(slot_words, meta); }

// --- the meta and loc words ---------------------------------------------------------------------
constexpr uint64_t meta_active = 1;  // the slot names a live entry
constexpr uint64_t meta_locked = 2;  // a writer holds the entry
constexpr unsigned meta_version_shift = 2, meta_version_bits = 38;
constexpr unsigned meta_gen_shift = 40, gen_bits = 24;
constexpr uint64_t meta_version_mask = ((uint64_t(1) << meta_version_bits) - 1) << meta_version_shift;
constexpr uint64_t gen_mask = (uint64_t(1) << gen_bits) - 1;

constexpr uint64_t meta_gen(uint64_t m) { return m >> meta_gen_shift; }
// The next version of an entry, unlocked (what a writer releases).
constexpr uint64_t meta_next_version(uint64_t m)
{
    return (m & ~meta_version_mask & ~meta_locked) | ((m + (uint64_t(1) << meta_version_shift)) & meta_version_mask);
}

constexpr unsigned loc_offset_bits = 40;
constexpr uint64_t make_loc(uint64_t record_offset, uint64_t gen) { return record_offset | gen << loc_offset_bits; }
constexpr uint64_t loc_offset(uint64_t loc) { return loc & ((uint64_t(1) << loc_offset_bits) - 1); }
constexpr uint64_t loc_gen(uint64_t loc) { return loc >> loc_offset_bits; }

// The hint word. A read of a slot whose occupant is not changing sees the right fingerprint, so
// skipping a slot for its fingerprint never misses a key that was present all along.
constexpr uint64_t make_hint(uint32_t fingerprint, uint64_t value_len)
{
    return uint64_t(fingerprint) << 32 | uint32_t(value_len);
}
constexpr uint32_t hint_fingerprint(uint64_t hint) { return uint32_t(hint >> 32); }
constexpr uint64_t hint_value_len(uint64_t hint) { return uint32_t(hint); }

// Whether meta and loc, read together, describe one live entry (not a torn read of a slot
// whose occupant was changing).
constexpr bool names_entry(uint64_t meta, uint64_t loc)
{
    return (meta & meta_active) && meta_gen(meta) == loc_gen(loc);
}

// Words of the index change under readers' feet: read each one whole.
inline uint64_t load_word(const uint64_t &w) { return __atomic_load_n(&w, __ATOMIC_RELAXED); }
inline slot_words load_slot(const slot_words &s)
{
    return slot_words{load_word(s.match_bits), load_word(s.meta), load_word(s.loc), load_word(s.hint)};
}

// Calls visit(slot number, slot snapshot) for every active slot, in the `count` buckets from
// bucket `first` on (wrapping), whose match bits differ from `base` only in the alias: the
// candidates for a key, of which the stored key picks the one (§3.7). bucket_at(i, b) gives the
// i-th bucket of the run, bucket number b: the owner's own memory or a reader's copy.
template <class BucketAt, class Visit>
void for_each_candidate(BucketAt bucket_at, uint64_t first, uint64_t count, uint64_t nbuckets, uint64_t base,
                        Visit visit)
{
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t b = (first + i) % nbuckets;
        const bucket_words &bw = bucket_at(i, b);
        for (size_t j = 0; j < slots_per_bucket; ++j) {
            slot_words s = load_slot(bw.slot[j]);
            if ((s.meta & meta_active) && match_base(s.match_bits) == base) visit(b * slots_per_bucket + j, s);
        }
    }
}

// --- records ------------------------------------------------------------------------------------
struct record_header {
    uint32_t key_len;
    uint32_t value_len;
    uint64_t seal;  // record_seal() of the record, or 0: not sealed
};
static_assert(sizeof(record_header) == 16, "a record header is two words");
constexpr size_t record_value_offset(size_t key_len) { return (sizeof(record_header) + key_len + 7) & ~size_t(7); }

// A key's identity: a 64-bit hash of its bytes (XXH3), never an application's hash. Seals bind
// a value to it, and readers have it already (they derive a key's address from it).
inline uint64_t key_identity(const void *key, size_t len) { return XXH3_64bits(key, len); }
// The seal of the record at r: a checksum of its value seeded with its lengths and its key's
// identity, so it covers the lengths, the key and the value (never 0).
uint64_t record_seal(const uint8_t *r);
// Whether the record at r (header, key, value, as long as the header says) is sealed and its
// bytes are the ones the seal was made for. The second form is a reader's, who has compared the
// record's key with its own, whose identity is key_id: only the value is hashed.
bool record_sealed(const uint8_t *r);
bool record_sealed(const uint8_t *r, uint64_t key_id);
// Seals the record at r, or clears its seal (`sealed` false).
void seal_record(uint8_t *r, bool sealed);
// Writes a whole record at r (room for record_value_offset(key_len) + value_len bytes).
void write_record(uint8_t *r, const void *key, size_t key_len, const void *value, size_t value_len, bool sealed);

// --- the owner's side ---------------------------------------------------------------------------
class match_table {
  public:
    // Where records come from: byte offsets in the owner's segment.
    class record_allocator {
      public:
        virtual status alloc(size_t bytes, uint64_t &offset) = 0;
        virtual void free(uint64_t offset) = 0;

      protected:
        ~record_allocator() = default;
    };

    // An entry appended but not yet in the index (§3.3).
    struct pending_entry {
        uint64_t record = 0;  // segment offset
        size_t key_len = 0;
        size_t value_len = 0;
        uint32_t fingerprint = 0;
    };

    // Where activate() put an entry: its slot and the words that now name it.
    struct placement {
        uint64_t slot = 0;
        uint64_t meta = 0;
        uint64_t loc = 0;
    };

    // The index is the zeroed memory at segment + index_offset, nbuckets * 256 bytes.
    match_table(uint8_t *segment, uint64_t index_offset, uint64_t nbuckets, uint64_t capacity,
                size_t max_value_size, record_allocator &records);

    uint64_t nbuckets() const { return nbuckets_; }
    uint64_t capacity() const { return capacity_; }
    size_t max_value_size() const { return max_value_size_; }
    uint64_t live() const { return live_; }
    uint64_t slot_count() const { return nbuckets_ * slots_per_bucket; }

    // The changes below are serialized by their callers with this mutex.
    std::mutex &mutex() { return mutex_; }

    // Allocates and writes the record of a new entry; NO_MEMORY when the segment has no room.
    status append_pending(const void *key, size_t key_len, uint32_t fingerprint, const void *value, size_t value_len,
                          pending_entry &out);
    // Places a pending entry in the index under the lowest alias of `match_base` that no other
    // key uses and publishes it. EXISTS when the key is there already (the pending entry stays
    // pending), FULL when the partition holds `capacity` entries or all aliases are taken.
    status activate(const pending_entry &p, uint64_t match_base, placement &out);
    // Frees a pending entry that will not be activated.
    void discard(const pending_entry &p);
    // Takes the entry in `slot` out of the index and frees its record. The caller holds the
    // entry (meta_locked, set by its compare-and-swap).
    void reclaim(uint64_t slot);
    // Frees every record (the table is being destroyed; nobody reads it any more).
    void release_all();

    // --- the owner's memory ----------------------------------------------------------------
    bucket_words &bucket(uint64_t b) const { return index_[b]; }
    slot_words &slot(uint64_t s) const { return index_[s / slots_per_bucket].slot[s % slots_per_bucket]; }
    uint8_t *record(uint64_t offset) const { return segment_ + offset; }

  private:
    bool holds_key(const slot_words &s, const void *key, size_t key_len) const;
    // The largest distance from `home` of a live entry whose home it is.
    uint64_t farthest_from(uint64_t home) const;

    uint8_t *segment_;
    bucket_words *index_;
    uint64_t nbuckets_;
    uint64_t capacity_;
    size_t max_value_size_;
    record_allocator &records_;
    uint64_t live_ = 0;  // active entries
    std::mutex mutex_;
};

}  // namespace pgdds::keytable
