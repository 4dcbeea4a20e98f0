// The arithmetic of the containers, kept free of the runtime so that unit tests can check it on
// its own: hashing, where a hash-map key lives, the bucket state word, Bloom filter geometry and
// masks, queue element checksums, block distribution of arrays.
#pragma once

#include "../base/common.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pgdds::containers {

// ---------------------------------------------------------------------------------------------
// Hashing
// ---------------------------------------------------------------------------------------------
// Sizes common for keys get their length as a constant, so XXH3's dispatch on it folds away
// (the same hash either way).
inline uint64_t hash_bytes(const void *p, size_t n)
{
    if (n == 8) return XXH3_64bits(p, 8);
    if (n == 4) return XXH3_64bits(p, 4);
    if (n == 16) return XXH3_64bits(p, 16);
    return XXH3_64bits(p, n);
}

// The splitmix64 finalizer: spreads the bits of a hash so that independent fields can be cut
// from one 64-bit value.
inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

inline uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }


// ---------------------------------------------------------------------------------------------
// Hash map
// ---------------------------------------------------------------------------------------------
// Every bucket starts with a 32-bit state word (BCL paper §5.2), followed after 4 spare bytes by
// the key and the value:
//   bits  0-1   status: free, reserved (being written), ready, tombstone (erased)
//   bit   2     chain lock: an insert of a key whose home is this bucket is probing past it
//   bits  3-15  reader bits: a fully atomic find holds one while it reads the bucket
//   bits 16-31  fingerprint of the key's hash, so probes skip most other keys' buckets
//               without reading them
namespace state {
constexpr uint32_t status_mask = 3;
constexpr uint32_t free = 0, reserved = 1, ready = 2, tombstone = 3;
constexpr uint32_t chain_lock = 1u << 2;
constexpr unsigned reader_shift = 3, reader_bits = 13;
constexpr uint32_t reader_mask = ((1u << reader_bits) - 1) << reader_shift;
constexpr unsigned fingerprint_shift = 16;
constexpr uint32_t fingerprint_mask = 0xffffu << fingerprint_shift;

constexpr uint32_t status(uint32_t w) { return w & status_mask; }
constexpr uint32_t fingerprint(uint32_t w) { return w & fingerprint_mask; }
}  // namespace state

constexpr uint64_t bucket_key_offset = 8;
inline uint64_t bucket_bytes(size_t key_size, size_t value_size)
{
    return round_up(bucket_key_offset + key_size + value_size, 8);
}

// Where a key lives: its owner rank, its home bucket in the owner's part, its fingerprint
// (already shifted into place in the state word). Probing never leaves the owner's part.
struct key_place {
    int owner;
    uint64_t home;
    uint32_t fingerprint;
};

inline key_place place_key(uint64_t hash, int nranks, uint64_t part_capacity)
{
    // One multiply (not mix64) decorrelates the home bucket from the owner: the hash is already
    // well mixed, and the few cycles saved are a single-key find's critical path to its load.
    const uint64_t m = hash * 0x9e3779b97f4a7c15ull;
    return {int(scale(hash, uint64_t(nranks))), scale(m, part_capacity),
            uint32_t(m & 0xffff) << state::fingerprint_shift};
}

// The i-th bucket of a probe sequence (linear, wrapping inside the part); i < part_capacity.
inline uint64_t probe_slot(uint64_t home, uint64_t i, uint64_t part_capacity)
{
    uint64_t s = home + i;
    return s >= part_capacity ? s - part_capacity : s;
}

// ---------------------------------------------------------------------------------------------
// Bloom filter: 64-bit blocks (BCL paper §5.4, thesis §6.2)
// ---------------------------------------------------------------------------------------------
constexpr unsigned bloom_max_hashes = 16;

// False-positive rate of a filter of 64-bit blocks with k bits per key, when keys spread over
// the blocks as a Poisson process of mean `items_per_block`: a query is a false positive when its
// k bits are set in the block it lands in.
inline double bloom_false_positive_rate(double items_per_block, unsigned k)
{
    const double clear_per_key = std::pow(63.0 / 64.0, double(k));  // a bit survives one key
    double lambda = items_per_block;
    double term = std::exp(-lambda);  // Poisson probability of i keys in the block
    double all_clear = 1;             // clear_per_key^i
    double rate = 0;
    double last = lambda + 12 * std::sqrt(lambda) + 32;
    for (unsigned i = 0; i <= last; ++i) {
        if (i > 0) {
            term *= lambda / i;
            all_clear *= clear_per_key;
        }
        rate += term * std::pow(1 - all_clear, double(k));
    }
    return rate;
}

struct bloom_geometry {
    uint64_t blocks;
    unsigned hashes;
};

// The fewest blocks (and the k achieving it) that keep the false-positive rate at or below
// `rate` for `items` keys; {0, 0} when no size below 2^56 blocks can.
inline bloom_geometry bloom_size(uint64_t items, double rate)
{
    if (items == 0) return {1, 1};
    // At 512 keys per block every bit is set whatever k: a useful size has more blocks.
    const uint64_t useless = items / 512;
    bloom_geometry best{0, 0};
    for (unsigned k = 1; k <= bloom_max_hashes; ++k) {
        auto ok = [&](uint64_t blocks) {
            return blocks > useless && bloom_false_positive_rate(double(items) / double(blocks), k) <= rate;
        };
        uint64_t lo = useless, hi = useless + 1;  // invariant: !ok(lo), and ok(hi) once found
        while (!ok(hi) && hi < (uint64_t(1) << 56)) {
            lo = hi;
            hi *= 2;
        }
        if (!ok(hi)) continue;
        while (hi - lo > 1) {
            uint64_t mid = lo + (hi - lo) / 2;
            (ok(mid) ? hi : lo) = mid;
        }
        if (best.blocks == 0 || hi < best.blocks) best = {hi, k};
    }
    return best;
}

// The block of a key and the k bits it sets there (6-bit fields of a mixed hash; bits may
// repeat, as the rate formula assumes).
struct bloom_place {
    uint64_t block;
    uint64_t mask;
};

inline bloom_place place_bloom(uint64_t hash, uint64_t blocks, unsigned k)
{
    uint64_t mask = 0, bits = mix64(hash);
    for (unsigned i = 0; i < k; ++i) {
        if (i == 10) bits = mix64(hash ^ 0x9e3779b97f4a7c15ull);  // 10 fields of 6 bits per word
        mask |= uint64_t(1) << (bits & 63);
        bits >>= 6;
    }
    return {scale(hash, blocks), mask};
}

// ---------------------------------------------------------------------------------------------
// Queues
// ---------------------------------------------------------------------------------------------
// The checksum written beside element `index` of a checksum queue of `capacity` slots. It
// depends on the lap (index / capacity), so a slot's data from an earlier lap never verifies
// (thesis ch. 5), and it is never 0, so a slot never written never verifies.
inline uint64_t element_checksum(const void *elem, size_t n, uint64_t index, uint64_t capacity)
{
    return XXH3_64bits_withSeed(elem, n, mix64(index / capacity + 1)) | 1;
}

// ---------------------------------------------------------------------------------------------
// Arrays: block distribution
// ---------------------------------------------------------------------------------------------
// Elements per part when `count` elements are split into `parts` blocks (the last ones may be
// short or empty).
inline uint64_t block_size(uint64_t count, int parts) { return count == 0 ? 1 : (count + uint64_t(parts) - 1) / uint64_t(parts); }

}  // namespace pgdds::containers
