// The distributed hash map: protocols (BCL paper §5.2, thesis §6.1 and Tables 6.1, 8.2) and
// its C ABI.
#include "hashmap.h"
#include "rpc.h"

#include <algorithm>

namespace pgdds::containers {

namespace {

// The reader bit a find tries first: it differs between ranks and between the threads of a rank
// (their stacks lie on different pages), so concurrent readers rarely pick the same one; a
// reader whose bit is taken moves to the next.
unsigned first_reader_bit(int rank)
{
    int on_stack;
    return unsigned(mix64(uint64_t(rank) << 32 ^ uint64_t(reinterpret_cast<uintptr_t>(&on_stack) >> 12)));
}
uint32_t reader_bit(unsigned choice) { return 1u << (state::reader_shift + choice % state::reader_bits); }
// The first reader bit from `choice` on that `word` does not have (0: all are taken); `choice`
// moves to it, so that a reader that found its bit taken tries another.
uint32_t free_reader_bit(uint32_t word, unsigned &choice)
{
    for (unsigned k = 0; k < state::reader_bits; ++k, ++choice)
        if (!(word & reader_bit(choice))) return reader_bit(choice);
    return 0;
}

// The state word at the start of a bucket view (no concurrent writer: see the callers).
uint32_t state_of(const uint8_t *bucket) { return __atomic_load_n(reinterpret_cast<const uint32_t *>(bucket), __ATOMIC_ACQUIRE); }

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
bool atomic_under(unsigned concurrent, unsigned plain) { return (concurrent & ~PGDDS_CP_LOCAL) != plain; }

}  // namespace

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
    m->max_probes_ = probes;
    if (options && (options->field_mask & PGDDS_HASHMAP_OPTION_HASH)) {
        m->hash_fn_ = options->hash;
        m->hash_arg_ = options->hash_arg;
    }
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
    status st = rt->barrier(who);  // every call answered: callers wait for their replies
    if (protocol == PGDDS_PROTOCOL_RPC) rpc_withdraw(this);
    rt->allocator().free(gptr::offset(table_.where.global[size_t(rt->rank())]));
    return st;
}

status hash_map::check_local(const char *who, unsigned concurrent, int owner) const
{
    if (!(concurrent & PGDDS_CP_LOCAL) || owner == rt->rank()) return PGDDS_OK;
    return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_CP_LOCAL needs a key this rank owns; this key belongs to rank %d "
                "(this is rank %d)", who, owner, rt->rank());
}

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
// atomic: fully atomic (Table 6.1c): set a reader bit, read key and value, clear it (2A+R). The
// clear is posted: only writers look at reader bits, and one that finds this bit still set
// waits for it as for any reader.
// Otherwise only finds overlap (CP_FIND, Table 6.1d): one read of the whole bucket (R).
// Returns PGDDS_ERR_NOT_FOUND without a message (the callers add one where it is wanted).
template <class Mem>
status hash_map::find_with(Mem &m, const char *who, const uint8_t *key, uint8_t *value, const key_place &p,
                           bool atomic) const
{
    const hash_table &t = table_;
    if (!atomic) {
        scratch_buffer scratch(find_window(t, 0, t.probe_limit) * bucket_bytes_);
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

uint64_t hash_map::find_window(const hash_table &t, uint64_t slot, uint64_t probes_left) const
{
    return std::min({std::max<uint64_t>(1, find_window_bytes / bucket_bytes_), t.part_capacity - slot, probes_left});
}

hash_map::scan_outcome hash_map::scan_window(const uint8_t *buckets, uint64_t count, const uint8_t *key,
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

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------
status hash_map::insert(const char *who, const void *key, const void *value, unsigned concurrent)
{
    if (!key) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    if (!value && value_size_) return fail(PGDDS_ERR_INVALID_ARG, "%s: value is NULL", who);
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    key_place p = place(table_, key);
    st = check_local(who, concurrent, p.owner);
    if (st != PGDDS_OK) return st;
    if (calls_owner(p.owner)) return call_owner(who, call_insert, p.owner, concurrent, key, value, value_size_, nullptr, 0);
    bool atomic = atomic_under(concurrent, PGDDS_CP_INSERT);
    auto k = static_cast<const uint8_t *>(key);
    auto v = static_cast<const uint8_t *>(value);
    return with_memory(who, concurrent & PGDDS_CP_LOCAL,
                       [&](auto &m) { return insert_with(m, table_, who, k, v, p, atomic); });
}

status hash_map::find(const char *who, const void *key, void *value, unsigned concurrent)
{
    if (!key) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    if (!value && value_size_) return fail(PGDDS_ERR_INVALID_ARG, "%s: value is NULL", who);
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    key_place p = place(table_, key);
    st = check_local(who, concurrent, p.owner);
    if (st != PGDDS_OK) return st;
    bool atomic = atomic_under(concurrent, PGDDS_CP_FIND);
    auto k = static_cast<const uint8_t *>(key);
    auto v = static_cast<uint8_t *>(value);
    if (calls_owner(p.owner) && (atomic || !cp_find_one_sided_))
        return call_owner(who, call_find, p.owner, concurrent, key, nullptr, 0, value, value_size_);
    if (calls_owner(p.owner)) {
        // A CP_FIND find only reads (no atomic meets the owner's CPU atomics): one R, priced
        // below a call.
        fabric_memory m(rt);
        st = find_with(m, who, k, v, p, false);
        if (m.failed()) st = fail_prefix(m.result(), who);
    } else {
        st = with_memory(who, concurrent & PGDDS_CP_LOCAL, [&](auto &m) { return find_with(m, who, k, v, p, atomic); });
    }
    return st == PGDDS_ERR_NOT_FOUND ? fail(st, "%s: no such key", who) : st;
}

status hash_map::erase(const char *who, const void *key, unsigned concurrent)
{
    if (!key) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    key_place p = place(table_, key);
    st = check_local(who, concurrent, p.owner);
    if (st != PGDDS_OK) return st;
    if (calls_owner(p.owner)) return call_owner(who, call_erase, p.owner, concurrent, key, nullptr, 0, nullptr, 0);
    auto k = static_cast<const uint8_t *>(key);
    return with_memory(who, concurrent & PGDDS_CP_LOCAL, [&](auto &m) { return erase_with(m, who, k, p); });
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
                             unsigned concurrent)
{
    if (count && !keys) return fail(PGDDS_ERR_INVALID_ARG, "%s: keys is NULL", who);
    if (count && !values && value_size_) return fail(PGDDS_ERR_INVALID_ARG, "%s: values is NULL", who);
    auto here = [&](size_t count, const uint8_t *keys, const uint8_t *values, uint8_t *, unsigned char *) {
        return in_groups(who, count, keys, concurrent, PGDDS_CP_INSERT, [&](auto &m, size_t i, size_t n, bool atomic) {
            return insert_group(m, who, n, keys + i * key_size_, values + i * value_size_, atomic);
        });
    };
    if (via_rpc.empty() || (concurrent & PGDDS_CP_LOCAL)) return here(count, keys, values, nullptr, nullptr);
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    return st != PGDDS_OK ? st : by_owner(who, call_insert_many, count, keys, values, nullptr, nullptr, concurrent, here);
}

status hash_map::find_many(const char *who, size_t count, const uint8_t *keys, uint8_t *values, unsigned char *found,
                           unsigned concurrent)
{
    if (count && !keys) return fail(PGDDS_ERR_INVALID_ARG, "%s: keys is NULL", who);
    if (count && !values && value_size_) return fail(PGDDS_ERR_INVALID_ARG, "%s: values is NULL", who);
    if (count && !found) return fail(PGDDS_ERR_INVALID_ARG, "%s: found is NULL", who);
    auto here = [&](size_t count, const uint8_t *keys, const uint8_t *, uint8_t *values, unsigned char *found) {
        return in_groups(who, count, keys, concurrent, PGDDS_CP_FIND, [&](auto &m, size_t i, size_t n, bool atomic) {
            return find_group(m, who, n, keys + i * key_size_, values + i * value_size_, found + i, atomic);
        });
    };
    if (via_rpc.empty() || (concurrent & PGDDS_CP_LOCAL)) return here(count, keys, nullptr, values, found);
    status st = check_promise(who, concurrent, PGDDS_CP_INSERT | PGDDS_CP_FIND);
    if (st != PGDDS_OK) return st;
    if (find_many_one_sided(count, concurrent)) {
        // Only reads (no atomic meets the owner's CPU atomics): one read in flight per key, a
        // group's landed together, priced below one call per owner.
        fabric_memory m(rt);
        for (size_t i = 0; i < count && st == PGDDS_OK; i += batch_group)
            st = find_group(m, who, std::min(batch_group, count - i), keys + i * key_size_, values + i * value_size_,
                            found + i, false);
        return m.failed() ? fail_prefix(m.result(), who) : st;
    }
    return by_owner(who, call_find_many, count, keys, nullptr, values, found, concurrent, here);
}

// ---------------------------------------------------------------------------------------------
// RPC (rpc.h): the caller's side, then the owner's
// ---------------------------------------------------------------------------------------------
status hash_map::call_owner(const char *who, uint32_t op, int owner, unsigned concurrent, const void *key,
                            const void *extra, size_t extra_len, void *out, size_t out_len)
{
    try {
        std::vector<rpc_call> calls(1);
        rpc_call &c = calls[0];
        c.owner = owner;
        c.args.resize(key_size_ + extra_len);
        memcpy(c.args.data(), key, key_size_);
        if (extra_len) memcpy(c.args.data() + key_size_, extra, extra_len);
        status st = rpc_exchange(this, who, op, concurrent, calls, [] { return PGDDS_OK; });
        if (st != PGDDS_OK) return st;
        if (c.reply.size() != out_len)
            return fail(PGDDS_ERR_TRANSPORT, "%s: rank %d replied with %zu bytes, not %zu", who, owner, c.reply.size(),
                        out_len);
        if (out_len) memcpy(out, c.reply.data(), out_len);
        return PGDDS_OK;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

status hash_map::by_owner(const char *who, uint32_t op, size_t count, const uint8_t *keys, const uint8_t *in_values,
                          uint8_t *out_values, unsigned char *found, unsigned concurrent, const local_batch &local)
{
    const size_t ks = key_size_, vs = value_size_;
    try {
        std::vector<std::vector<size_t>> picks(size_t(rt->nranks()));
        std::vector<size_t> here;
        for (size_t i = 0; i < count; ++i) {
            int o = owner(keys + i * ks);
            (calls_owner(o) ? picks[size_t(o)] : here).push_back(i);
        }
        if (here.size() == count) return local(count, keys, in_values, out_values, found);
        std::vector<rpc_call> calls;
        std::vector<const std::vector<size_t> *> picked;
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
            picked.push_back(&ix);
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
        status st = rpc_exchange(this, who, op, concurrent, calls, run_here);
        if (st != PGDDS_OK || !found) return st;
        for (size_t c = 0; c < calls.size(); ++c) {
            const std::vector<size_t> &ix = *picked[c];
            const std::vector<uint8_t> &reply = calls[c].reply;
            if (reply.size() != ix.size() * (1 + vs))
                return fail(PGDDS_ERR_TRANSPORT, "%s: rank %d replied with %zu bytes, not %zu", who, calls[c].owner,
                            reply.size(), ix.size() * (1 + vs));
            for (size_t j = 0; j < ix.size(); ++j) {
                found[ix[j]] = reply[j];
                if (vs) memcpy(out_values + ix[j] * vs, reply.data() + ix.size() + j * vs, vs);
            }
        }
        return PGDDS_OK;
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
    if (st == PGDDS_OK) st = rt->barrier(who);
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
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, "pgdds_hashmap_find", m);
    return st != PGDDS_OK ? st : m->find("pgdds_hashmap_find", key, value, concurrent);
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
