// Single-process logic of the containers (src/containers/layout.h): where a hash-map key lives
// and how probes walk, the bucket state word, Bloom filter sizing and masks, queue checksums,
// block distribution.
#include "layout.h"

#include <catch2/catch.hpp>

#include <bitset>
#include <random>
#include <set>
#include <vector>

using namespace pgdds::containers;
using pgdds::scale;

TEST_CASE("scale maps hashes uniformly onto a range", "[containers]")
{
    std::mt19937_64 rng(1);
    std::vector<int> hits(7, 0);
    for (int i = 0; i < 70000; ++i) {
        uint64_t s = scale(rng(), 7);
        REQUIRE(s < 7);
        hits[s]++;
    }
    for (int h : hits) CHECK(std::abs(h - 10000) < 600);
    CHECK(scale(~uint64_t(0), 5) == 4);
    CHECK(scale(0, 5) == 0);
}

TEST_CASE("a key's place: owner, home bucket and fingerprint", "[containers][hashmap]")
{
    std::mt19937_64 rng(2);
    for (int i = 0; i < 1000; ++i) {
        uint64_t h = rng();
        key_place p = place_key(h, 5, 1000);
        REQUIRE(p.owner >= 0);
        REQUIRE(p.owner < 5);
        REQUIRE(p.home < 1000);
        REQUIRE((p.fingerprint & ~state::fingerprint_mask) == 0);
        // The owner depends on the rank count only, so resizing rehashes every part in place.
        CHECK(place_key(h, 5, 12345).owner == p.owner);
        CHECK(place_key(h, 5, 1000).home == p.home);
    }
    // Owners are balanced.
    std::vector<int> per(4, 0);
    for (uint64_t k = 0; k < 40000; ++k) per[size_t(place_key(hash_bytes(&k, sizeof k), 4, 64).owner)]++;
    for (int c : per) CHECK(std::abs(c - 10000) < 500);
}

TEST_CASE("linear probing wraps inside the part and visits every bucket once", "[containers][hashmap]")
{
    const uint64_t cap = 37;
    for (uint64_t home : {uint64_t(0), uint64_t(17), cap - 1}) {
        std::set<uint64_t> seen;
        for (uint64_t i = 0; i < cap; ++i) {
            uint64_t s = probe_slot(home, i, cap);
            REQUIRE(s < cap);
            seen.insert(s);
        }
        CHECK(seen.size() == cap);
        CHECK(probe_slot(home, 0, cap) == home);
    }
    CHECK(probe_slot(cap - 1, 1, cap) == 0);
}

TEST_CASE("bucket layout and state word", "[containers][hashmap]")
{
    CHECK(bucket_bytes(8, 8) == 24);
    CHECK(bucket_bytes(1, 0) == 16);
    CHECK(bucket_bytes(3, 5) % 8 == 0);
    for (size_t k : {1, 7, 8, 33})
        for (size_t v : {0, 1, 8, 100}) {
            CHECK(bucket_bytes(k, v) >= bucket_key_offset + k + v);
            CHECK(bucket_bytes(k, v) < bucket_key_offset + k + v + 8);
        }
    // The fields of the state word are disjoint and cover it.
    uint32_t fields[] = {state::status_mask, state::chain_lock, state::reader_mask, state::fingerprint_mask};
    uint32_t all = 0;
    for (uint32_t f : fields) {
        CHECK((all & f) == 0);
        all |= f;
    }
    CHECK(all == 0xffffffffu);
    CHECK(std::bitset<32>(state::reader_mask).count() == state::reader_bits);
    // Publishing, locking and erasing are XORs on the status bits alone.
    CHECK((state::reserved ^ (state::reserved ^ state::ready)) == state::ready);
    CHECK((state::reserved ^ (state::reserved ^ state::tombstone)) == state::tombstone);
    CHECK(((state::reserved ^ state::ready) & ~state::status_mask) == 0);
}

// Inserts `items` random keys into a simulated blocked filter and measures the rate of false
// positives among `probes` other keys.
static double simulated_rate(bloom_geometry g, uint64_t items, uint64_t probes, uint64_t seed)
{
    std::vector<uint64_t> blocks(g.blocks, 0);
    std::mt19937_64 rng(seed);
    for (uint64_t i = 0; i < items; ++i) {
        bloom_place p = place_bloom(rng(), g.blocks, g.hashes);
        blocks[p.block] |= p.mask;
    }
    uint64_t hits = 0;
    for (uint64_t i = 0; i < probes; ++i) {
        bloom_place p = place_bloom(rng(), g.blocks, g.hashes);
        hits += (blocks[p.block] & p.mask) == p.mask;
    }
    return double(hits) / double(probes);
}

TEST_CASE("Bloom filter sizing meets the rate with the fewest blocks", "[containers][bloom]")
{
    for (double rate : {0.1, 0.01, 0.001}) {
        for (uint64_t items : {uint64_t(1000), uint64_t(100000)}) {
            bloom_geometry g = bloom_size(items, rate);
            REQUIRE(g.blocks > 0);
            REQUIRE(g.hashes >= 1);
            REQUIRE(g.hashes <= bloom_max_hashes);
            CHECK(bloom_false_positive_rate(double(items) / double(g.blocks), g.hashes) <= rate);
            // One block fewer misses the rate for every k.
            for (unsigned k = 1; k <= bloom_max_hashes; ++k)
                CHECK(bloom_false_positive_rate(double(items) / double(g.blocks - 1), k) > rate);
            // The model agrees with a simulation of the same hashing.
            double measured = simulated_rate(g, items, 200000, items + uint64_t(rate * 1e6));
            CHECK(measured < rate * 1.3);
            CHECK(measured > rate * 0.5);
        }
    }
    CHECK(bloom_size(0, 0.01).blocks == 1);
    CHECK(bloom_size(uint64_t(1) << 62, 1e-12).blocks == 0);  // more than 2^56 blocks
    // More room, fewer false positives.
    CHECK(bloom_false_positive_rate(2.0, 4) < bloom_false_positive_rate(4.0, 4));
}

TEST_CASE("Bloom masks: at most k bits in one block", "[containers][bloom]")
{
    std::mt19937_64 rng(3);
    for (unsigned k = 1; k <= bloom_max_hashes; ++k) {
        double bits = 0;
        for (int i = 0; i < 2000; ++i) {
            bloom_place p = place_bloom(rng(), 1000, k);
            REQUIRE(p.block < 1000);
            size_t c = std::bitset<64>(p.mask).count();
            REQUIRE(c >= 1);
            REQUIRE(c <= k);
            bits += double(c);
        }
        // With replacement, the expected count is 64 (1 - (63/64)^k).
        double expect = 64 * (1 - std::pow(63.0 / 64.0, k));
        CHECK(std::abs(bits / 2000 - expect) < 0.15);
    }
}

TEST_CASE("queue element checksums depend on the lap and the bytes", "[containers][queue]")
{
    uint64_t e[2] = {42, 7};
    const uint64_t cap = 10;
    uint64_t lap0 = element_checksum(e, sizeof e, 3, cap);
    CHECK(lap0 == element_checksum(e, sizeof e, 9, cap));  // same lap, another slot: same seed
    CHECK(lap0 != element_checksum(e, sizeof e, 13, cap));  // the slot's next lap
    CHECK(lap0 != element_checksum(e, sizeof e, 23, cap));
    uint64_t f[2] = {42, 7 ^ (uint64_t(1) << 40)};
    CHECK(lap0 != element_checksum(f, sizeof f, 3, cap));
    // Never 0, so a slot never written never verifies.
    uint64_t zero[2] = {0, 0};
    for (uint64_t i = 0; i < 1000; ++i) CHECK(element_checksum(zero, sizeof zero, i, cap) != 0);
}

TEST_CASE("block distribution covers every element once", "[containers][array]")
{
    for (uint64_t count : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(1000), uint64_t(1001)})
        for (int parts : {1, 2, 3, 4, 7}) {
            uint64_t b = block_size(count, parts), covered = 0;
            REQUIRE(b >= 1);
            for (int r = 0; r < parts; ++r) {
                uint64_t first = std::min(count, uint64_t(r) * b);
                covered += std::min(count - first, b);
            }
            CHECK(covered == count);
            CHECK(b * uint64_t(parts) >= count);
            CHECK((count == 0 || (b - 1) * uint64_t(parts) < count));
        }
}
