// The hash map's protocols (BCL paper §5.2, thesis §6.1 and Tables 6.1, 8.2), written once over
// the memory classes (substrate.h): what the hash map's files share (hashmap.cc: creation and
// the operations; hashmap_owner.cc: calls to owners and the owner's side, the drains of
// buffered records). Private to those files; everything here is inline or a template, so each
// operation's protocol is compiled into its caller as before.
#pragma once

#include "hashmap.h"

#include <algorithm>

namespace pgdds::containers {

// The reader bit a find tries first: it differs between ranks and between the threads of a rank
// (their stacks lie on different pages), so concurrent readers rarely pick the same one; a
// reader whose bit is taken moves to the next.
inline unsigned first_reader_bit(int rank)
{
    int on_stack;
    return unsigned(mix64(uint64_t(rank) << 32 ^ uint64_t(reinterpret_cast<uintptr_t>(&on_stack) >> 12)));
}
inline uint32_t reader_bit(unsigned choice) { return 1u << (state::reader_shift + choice % state::reader_bits); }
// The first reader bit from `choice` on that `word` does not have (0: all are taken); `choice`
// moves to it, so that a reader that found its bit taken tries another.
inline uint32_t free_reader_bit(uint32_t word, unsigned &choice)
{
    for (unsigned k = 0; k < state::reader_bits; ++k, ++choice)
        if (!(word & reader_bit(choice))) return reader_bit(choice);
    return 0;
}

// The state word at the start of a bucket view (no concurrent writer: see the callers).
inline uint32_t state_of(const uint8_t *bucket) { return __atomic_load_n(reinterpret_cast<const uint32_t *>(bucket), __ATOMIC_ACQUIRE); }

// Locks bucket word: ready -> reserved (reserved -> ready undoes it; -> tombstone erases).
constexpr uint32_t lock_flip = state::ready ^ state::reserved;
constexpr uint32_t erase_flip = state::reserved ^ state::tombstone;

// Groups of keys hashed and prefetched together by the batched operations.
constexpr size_t batch_group = 32;
// Records a drain hashes and prefetches ahead of the one it inserts.
constexpr size_t drain_lookahead = 16;

// The bytes a CP_FIND read takes at once (at least one bucket): five buckets of 8-byte keys and
// values.
constexpr uint64_t find_window_bytes = 128;

// The calls an owner serves (rpc.h).
enum : uint32_t { call_insert = 1, call_find, call_erase, call_insert_many, call_find_many };

// Whether an operation takes its atomic protocol under promise `concurrent`; `plain` is the
// promise under which it does not.
inline bool atomic_under(unsigned concurrent, unsigned plain) { return (concurrent & ~PGDDS_CP_LOCAL) != plain; }

template <class Mem> void hash_map::prefetch(Mem &m, const hash_table &t, const key_place &p) const
{
    auto b = bucket<Mem>(t, p.owner, p.home);
    m.prefetch(b);
    m.prefetch(Mem::offset(b, bucket_bytes_ - 1));
}

// Whether bucket b (which the caller keeps from changing) holds `key`.
template <class Mem> bool hash_map::holds_key(Mem &m, typename Mem::address b, const uint8_t *key, uint8_t *scratch) const
{
    const uint8_t *k = m.view(Mem::offset(b, bucket_key_offset), key_size_, scratch);
    return !m.failed() && same_bytes(k, key, key_size_);
}

// Locks bucket b (ready -> reserved) if it may hold the key: ready with the key's fingerprint.
// Waits while readers hold it, or while a writer has it reserved under this fingerprint (it
// may be writing this very key). `word` receives the last word seen.
template <class Mem>
hash_map::lock_outcome hash_map::lock_candidate(Mem &m, typename Mem::address b, uint32_t fingerprint, uint32_t &word,
                                                spinner &spin, const char *who) const
{
    uint32_t expected = state::ready | fingerprint;  // the usual word: no chain lock, no readers
    for (;;) {
        uint32_t old = m.cas32(b, expected, expected ^ lock_flip);
        if (m.failed()) return lock_outcome::failed;
        word = old;
        if (old == expected) return lock_outcome::locked;
        uint32_t s = state::status(old);
        if (s == state::free) return lock_outcome::free;
        if (s == state::tombstone || state::fingerprint(old) != fingerprint) return lock_outcome::skip;
        if (s == state::reserved || (old & state::reader_mask)) {
            if (!spin.again(m, who)) return lock_outcome::failed;
        }
        // Expect it ready, with whatever chain lock it carries and no readers.
        expected = (old & ~(state::reader_mask | state::status_mask)) | state::ready;
    }
}

// Claims bucket b, last seen as `seen` (free or tombstone), for a new entry: CAS to `claimed`,
// keeping the bucket's chain lock bit. Waits out readers; `lost` when another writer took it.
template <class Mem>
hash_map::claim_outcome hash_map::try_claim(Mem &m, typename Mem::address b, uint32_t seen, uint32_t claimed,
                                            spinner &spin, const char *who) const
{
    uint32_t expected = seen & ~state::reader_mask;
    for (;;) {
        uint32_t old = m.cas32(b, expected, claimed | (expected & state::chain_lock));
        if (m.failed()) return claim_outcome::failed;
        if (old == expected) return claim_outcome::claimed;
        if (state::status(old) != state::status(seen)) return claim_outcome::lost;
        expected = old & ~state::reader_mask;
        if ((old & state::reader_mask) && !spin.again(m, who)) return claim_outcome::failed;
    }
}

// ---------------------------------------------------------------------------------------------
// Insert
// ---------------------------------------------------------------------------------------------
// atomic: fully atomic (Table 6.1a): claim as reserved, write, fence, publish as ready (2A+W;
// where the transport applies operations in order, the write overlaps the publish).
// Otherwise only inserts of other keys overlap (CP_INSERT, Table 8.2b): claim as ready, write
// (A+W); the writes land by the next flush or barrier, before any find may look.
// The common case, inline: the home bucket has never been used, so the key is nowhere else.
template <class Mem>
inline status hash_map::insert_with(Mem &m, const hash_table &t, const char *who, const uint8_t *key,
                                    const uint8_t *value, const key_place &p, bool atomic) const
{
    const uint32_t claimed = (atomic ? state::reserved : state::ready) | p.fingerprint;
    auto home = bucket<Mem>(t, p.owner, p.home);
    uint32_t home_word = m.cas32(home, state::free, claimed);
    if (m.failed()) return m.result();
    if (home_word == state::free) return fill(m, home, key, value, atomic);
    return insert_collided(m, t, who, key, value, p, atomic, home_word);
}

// The home bucket was in use (its word is home_word).
template <class Mem>
PGDDS_NOINLINE status hash_map::insert_collided(Mem &m, const hash_table &t, const char *who, const uint8_t *key,
                                                const uint8_t *value, const key_place &p, bool atomic,
                                                uint32_t home_word) const
{
    auto home = bucket<Mem>(t, p.owner, p.home);
    if (!atomic) return insert_probing(m, t, who, key, value, p, false, home_word, [] {});
    // A collision: hold the home bucket's chain lock while probing, so that no other insert of a
    // key with this home (this key in particular) probes at the same time and two inserts of one
    // key cannot both decide it is absent (tombstones make their probe sequences differ). The
    // lock's fetch-or also tells the probe what the home bucket holds.
    spinner spin(rt);
    while ((home_word = m.fetch_or32(home, state::chain_lock)) & state::chain_lock) {
        if (m.failed()) return m.result();
        while (m.load32(home) & state::chain_lock)
            if (m.failed() || !spin.again(m, who)) return m.failed() ? m.result() : spin.result();
    }
    if (m.failed()) return m.result();
    rt->fault_here(fault_point::hashmap_chain_lock);
    // Released as soon as the key's bucket is fixed (see insert_probing), posted so that it
    // overlaps the entry's write; the fence before the publish lands it first.
    bool held = true;
    auto release = [&] {
        m.and32_posted(home, ~state::chain_lock);
        held = false;
    };
    status st = insert_probing(m, t, who, key, value, p, true, home_word, release);
    if (held) m.and32(home, ~state::chain_lock);  // the probe gave up (full, timed out)
    return st != PGDDS_OK ? st : m.result();
}

// Writes an entry into bucket b, which this insert claimed, and publishes it.
template <class Mem>
status hash_map::fill(Mem &m, typename Mem::address b, const uint8_t *key, const uint8_t *value, bool atomic) const
{
    m.put2(Mem::offset(b, bucket_key_offset), key, key_size_, value, value_size_);
    if (atomic) {
        m.fence();  // whoever sees the publish sees the entry; no need to wait for the write
        m.xor32(b, state::reserved ^ state::ready);
    }
    return m.result();
}

// Probes for the key from its home bucket, whose word `first` the caller has seen: assigns the
// value in place if the key is found before the first free bucket; otherwise fills the first
// tombstone passed, or that free bucket. Each bucket costs one atomic: a free bucket with no
// tombstone before it is probed and claimed by the same compare-and-swap, a bucket whose word
// shows another key is passed on that word, and only one whose word shows the key's fingerprint
// is locked and read. release() runs once the key's bucket is fixed (locked, or claimed for
// it): from then on another insert of the key waits on that bucket, so the chain lock need not
// be held while the entry is written.
template <class Mem, class Release>
status hash_map::insert_probing(Mem &m, const hash_table &t, const char *who, const uint8_t *key, const uint8_t *value,
                                const key_place &p, bool atomic, uint32_t first, Release release) const
{
    const uint32_t claimed = (atomic ? state::reserved : state::ready) | p.fingerprint;
    scratch_buffer scratch(key_size_);
    spinner spin(rt);
    for (bool first_pass = true;; first_pass = false) {  // a claim lost to another writer probes again
        typename Mem::address target{};
        uint32_t target_word = 0;
        bool have_target = false, at_free = false;
        for (uint64_t i = 0; i < t.probe_limit && !at_free; ++i) {
            auto b = bucket<Mem>(t, p.owner, probe_slot(p.home, i, t.part_capacity));
            uint32_t w;
            if (i == 0 && first_pass) {
                w = first;
            } else if (!have_target) {
                w = m.cas32(b, state::free, claimed);
                if (m.failed()) return m.result();
                if (w == state::free) {
                    release();
                    return fill(m, b, key, value, atomic);
                }
            } else {
                w = m.load32(b);
                if (m.failed()) return m.result();
            }
            uint32_t s = state::status(w);
            if (s == state::free || s == state::tombstone) {
                at_free = s == state::free;
                if (!have_target) {
                    target = b;
                    target_word = w;
                    have_target = true;
                }
                continue;
            }
            if (state::fingerprint(w) != p.fingerprint) continue;
            if (!atomic) {  // only inserts of other keys overlap: a reserved bucket is not this key
                if (s == state::ready && holds_key(m, b, key, scratch.data())) {
                    m.put(Mem::offset(b, bucket_key_offset + key_size_), value, value_size_);
                    return m.result();
                }
                continue;
            }
            uint32_t locked_word;
            lock_outcome r = lock_candidate(m, b, p.fingerprint, locked_word, spin, who);
            if (r == lock_outcome::failed) return m.failed() ? m.result() : spin.result();
            if (r != lock_outcome::locked) continue;
            if (holds_key(m, b, key, scratch.data())) {  // assign in place
                release();
                m.put(Mem::offset(b, bucket_key_offset + key_size_), value, value_size_);
                m.fence();
                m.xor32(b, lock_flip);
                return m.result();
            }
            m.xor32(b, lock_flip);
        }
        if (!have_target)
            return fail(PGDDS_ERR_FULL, "%s: no free bucket within %llu probes on rank %d (capacity %llu per rank)",
                        who, (unsigned long long)t.probe_limit, p.owner, (unsigned long long)t.part_capacity);
        claim_outcome c = try_claim(m, target, target_word, claimed, spin, who);
        if (c == claim_outcome::failed) return m.failed() ? m.result() : spin.result();
        if (c == claim_outcome::lost) continue;
        release();
        return fill(m, target, key, value, atomic);
    }
}

// ---------------------------------------------------------------------------------------------
// Find
// ---------------------------------------------------------------------------------------------
// A CP_FIND find (Table 6.1d): reads of a window of buckets, in place on load/store memory.
template <class Mem>
[[gnu::always_inline]] inline status hash_map::find_reading(Mem &m, const uint8_t *key, uint8_t *value,
                                                            const key_place &p) const
{
    const hash_table &t = table_;
    scratch_buffer scratch(Mem::load_store ? 0 : window_buckets_ * bucket_bytes_);
    for (uint64_t i = 0; i < t.probe_limit;) {
        const uint64_t slot = probe_slot(p.home, i, t.part_capacity), k = find_window(t, slot, t.probe_limit - i);
        const uint8_t *window = m.view(bucket<Mem>(t, p.owner, slot), k * bucket_bytes_, scratch.data());
        if (m.failed()) return m.result();
        scan_outcome o = scan_window(window, k, key, p, value);
        if (o != scan_outcome::undecided) return o == scan_outcome::found ? PGDDS_OK : PGDDS_ERR_NOT_FOUND;
        i += k;
    }
    return PGDDS_ERR_NOT_FOUND;
}

// find's common case without a call: its checks, the key's place and the read, all inline in
// the C entry. A single-key find costs one memory access, and consecutive finds overlap theirs
// only when each is short enough to fit in the out-of-order core's window with the next.
inline bool hash_map::finds_in_place(unsigned concurrent) const
{
    return concurrent == PGDDS_CP_FIND && direct && via_rpc.empty();
}

inline status hash_map::find_in_place(const char *who, const void *key, void *value)
{
    if (PGDDS_UNLIKELY(!key || (!value && value_size_))) return find(who, key, value, PGDDS_CP_FIND);
    direct_memory m;
    status st = find_reading(m, static_cast<const uint8_t *>(key), static_cast<uint8_t *>(value), place(table_, key));
    return PGDDS_LIKELY(st == PGDDS_OK) ? st : fail(st, "%s: no such key", who);
}

// A map at most half full holds most keys in their home bucket. This path has no call and no
// loop, so that a whole find is short and the out-of-order core overlaps the memory accesses of
// consecutive finds.
[[gnu::always_inline]] inline bool hash_map::find_at_home(unsigned concurrent, const void *key, void *value) const
{
    if (PGDDS_UNLIKELY(!finds_at_home_ || concurrent != PGDDS_CP_FIND || runtime::from(ctx) != rt ||
                       !rt->thread_allowed_here()))
        return false;
    if (key_size_ == 8) return find_at_home_sized<8>(key, value);
    if (key_size_ == 4) return find_at_home_sized<4>(key, value);
    return find_at_home_sized<16>(key, value);
}

template <size_t KeySize>
[[gnu::always_inline]] inline bool hash_map::find_at_home_sized(const void *key, void *value) const
{
    const key_place p = place_key(hash_bytes(key, KeySize), rt->nranks(), table_.part_capacity);  // place(), inline
    const uint8_t *home = bucket<direct_memory>(table_, p.owner, p.home);
    const uint32_t w = state_of(home) & (state::status_mask | state::fingerprint_mask);
    if (w != (state::ready | p.fingerprint) || !same_bytes(home + bucket_key_offset, key, KeySize)) return false;
    const uint8_t *stored = home + bucket_key_offset + KeySize;
    if (value_size_ == 8) std::memcpy(value, stored, 8);
    else if (value_size_ == 4) std::memcpy(value, stored, 4);
    else std::memcpy(value, stored, 16);
    return true;
}

// atomic: fully atomic (Table 6.1c): set a reader bit, read key and value, clear it (2A+R). The
// clear is posted: only writers look at reader bits, and one that finds this bit still set
// waits for it as for any reader.
// Otherwise only finds overlap (CP_FIND, Table 6.1d): one read of the whole bucket (R).
// Returns PGDDS_ERR_NOT_FOUND without a message (the callers add one where it is wanted).
template <class Mem>
status hash_map::find_with(Mem &m, const char *who, const uint8_t *key, uint8_t *value, const key_place &p,
                           bool atomic) const
{
    if (!atomic) return find_reading(m, key, value, p);
    const hash_table &t = table_;
    scratch_buffer scratch(key_size_ + value_size_);
    spinner spin(rt);
    unsigned reader_choice = first_reader_bit(rt->rank());
    for (uint64_t i = 0; i < t.probe_limit; ++i) {
        auto b = bucket<Mem>(t, p.owner, probe_slot(p.home, i, t.part_capacity));
        // A reader bit is taken by compare-and-swap from the word the key's bucket usually has,
        // so a bucket of another key (or free, or a tombstone) is decided by the word the CAS
        // returns and left untouched: each further bucket costs one atomic, with no release.
        uint32_t expected = state::ready | p.fingerprint;
        for (;;) {  // until this bucket is decided
            const uint32_t bit = free_reader_bit(expected, reader_choice);  // expected leaves one free
            const uint32_t w = m.cas32(b, expected, expected | bit);
            if (m.failed()) return m.result();
            if (w == expected) {  // holding a reader bit: no writer can change the bucket
                const uint8_t *kv = m.view(Mem::offset(b, bucket_key_offset), key_size_ + value_size_, scratch.data());
                bool match = !m.failed() && same_bytes(kv, key, key_size_);
                if (match) copy_bytes(value, kv + key_size_, value_size_);
                m.and32_posted(b, ~bit);  // the value is read: a writer waiting for it may go
                if (m.failed()) return m.result();
                if (match) return PGDDS_OK;
                break;  // another key with the same fingerprint: next bucket
            }
            uint32_t s = state::status(w);
            if (s == state::free) return PGDDS_ERR_NOT_FOUND;
            if (s == state::tombstone || state::fingerprint(w) != p.fingerprint) break;  // next bucket
            if (s == state::ready && (w & state::reader_mask) != state::reader_mask) {
                expected = w;  // other readers or an insert's chain lock: take a bit beside them
                continue;
            }
            // Being written (maybe with this key), or every reader bit taken: wait for it.
            if (!spin.again(m, who)) return m.failed() ? m.result() : spin.result();
            expected = state::ready | p.fingerprint;
        }
    }
    return PGDDS_ERR_NOT_FOUND;
}

inline uint64_t hash_map::find_window(const hash_table &t, uint64_t slot, uint64_t probes_left) const
{
    return std::min({window_buckets_, t.part_capacity - slot, probes_left});
}

inline hash_map::scan_outcome hash_map::scan_window(const uint8_t *buckets, uint64_t count, const uint8_t *key,
                                             const key_place &p, uint8_t *value) const
{
    for (uint64_t i = 0; i < count; ++i) {
        const uint8_t *bk = buckets + i * bucket_bytes_;
        uint32_t w = state_of(bk);
        if (state::status(w) == state::free) return scan_outcome::absent;
        if (state::status(w) == state::ready && state::fingerprint(w) == p.fingerprint &&
            same_bytes(bk + bucket_key_offset, key, key_size_)) {
            copy_bytes(value, bk + bucket_key_offset + key_size_, value_size_);
            return scan_outcome::found;
        }
    }
    return scan_outcome::undecided;
}

// ---------------------------------------------------------------------------------------------
// Erase: lock the key's bucket, check the key, turn it into a tombstone (2A+R).
// ---------------------------------------------------------------------------------------------
template <class Mem> status hash_map::erase_with(Mem &m, const char *who, const uint8_t *key, const key_place &p) const
{
    const hash_table &t = table_;
    scratch_buffer scratch(key_size_);
    spinner spin(rt);
    for (uint64_t i = 0; i < t.probe_limit; ++i) {
        auto b = bucket<Mem>(t, p.owner, probe_slot(p.home, i, t.part_capacity));
        uint32_t w;
        lock_outcome r = lock_candidate(m, b, p.fingerprint, w, spin, who);
        if (r == lock_outcome::failed) return m.failed() ? m.result() : spin.result();
        if (r == lock_outcome::free) break;
        if (r == lock_outcome::skip) continue;
        bool match = holds_key(m, b, key, scratch.data());
        m.xor32(b, match ? erase_flip : lock_flip);
        if (match) return m.result();
    }
    return m.failed() ? m.result() : fail(PGDDS_ERR_NOT_FOUND, "%s: no such key", who);
}

// ---------------------------------------------------------------------------------------------
// Batches: hash a group of keys and start fetching their home buckets before working on any, so
// that the memory (or network) latencies of the group overlap.
// ---------------------------------------------------------------------------------------------
template <class Mem>
status hash_map::find_group(Mem &m, const char *who, size_t n, const uint8_t *keys, uint8_t *values,
                            unsigned char *found, bool atomic) const
{
    key_place places[batch_group];
    for (size_t j = 0; j < n; ++j) {
        places[j] = place(table_, keys + j * key_size_);
        prefetch(m, table_, places[j]);
    }
    // A CP_FIND group decides every key found in, or missing from, the first window of its probe
    // sequence straight from that window (over the network: all windows read together, one
    // flush); the others probe on one by one below.
    bool decided[batch_group] = {};
    if (!atomic) {
        const uint8_t *windows[batch_group];
        uint64_t sizes[batch_group];
        const uint64_t most = find_window(table_, 0, table_.probe_limit);
        scratch_buffer copies(Mem::load_store ? 0 : n * most * bucket_bytes_);
        for (size_t j = 0; j < n; ++j) {
            auto b = bucket<Mem>(table_, places[j].owner, places[j].home);
            sizes[j] = find_window(table_, places[j].home, table_.probe_limit);
            if constexpr (Mem::load_store) {
                windows[j] = b;
            } else {
                uint8_t *copy = copies.data() + j * most * bucket_bytes_;
                windows[j] = copy;
                m.get_nbi(copy, b, sizes[j] * bucket_bytes_);
            }
        }
        if constexpr (!Mem::load_store) {
            m.flush();
            if (m.failed()) return m.result();
        }
        for (size_t j = 0; j < n; ++j) {
            scan_outcome o = scan_window(windows[j], sizes[j], keys + j * key_size_, places[j], values + j * value_size_);
            found[j] = o == scan_outcome::found;
            decided[j] = o != scan_outcome::undecided;
        }
    }
    for (size_t j = 0; j < n; ++j) {
        if (decided[j]) continue;
        status st = find_with(m, who, keys + j * key_size_, values + j * value_size_, places[j], atomic);
        if (st != PGDDS_OK && st != PGDDS_ERR_NOT_FOUND) return st;
        found[j] = st == PGDDS_OK;
    }
    return PGDDS_OK;
}

// Inserts n keys (stopping at the first failure).
template <class Mem>
status hash_map::insert_group(Mem &m, const char *who, size_t n, const uint8_t *keys, const uint8_t *values,
                              bool atomic) const
{
    key_place places[batch_group];
    for (size_t j = 0; j < n; ++j) {
        places[j] = place(table_, keys + j * key_size_);
        prefetch(m, table_, places[j]);
    }
    for (size_t j = 0; j < n; ++j) {
        status st = insert_with(m, table_, who, keys + j * key_size_, values + j * value_size_, places[j], atomic);
        if (st != PGDDS_OK) return st;
    }
    return PGDDS_OK;
}

}  // namespace pgdds::containers
