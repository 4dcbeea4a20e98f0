// Single-process units of the core: configuration parsing, global-pointer packing, the segment
// allocator.
#include <catch2/catch.hpp>

#include "../../src/core/config.h"
#include "../../src/core/gptr.h"
#include "../../src/core/segment_allocator.h"
#include "../../src/core/symmetric_heap.h"

#include <cstdlib>
#include <set>
#include <thread>

using namespace pgdds;

TEST_CASE("sizes parse with binary suffixes", "[config]")
{
    size_t v = 0;
    CHECK((parse_size("4096", v) && v == 4096));
    CHECK((parse_size("64K", v) && v == 64u << 10));
    CHECK((parse_size("256m", v) && v == 256u << 20));
    CHECK((parse_size("2G", v) && v == size_t(2) << 30));
    CHECK((parse_size("1T", v) && v == size_t(1) << 40));
    CHECK((parse_size("3MiB", v) && v == 3u << 20));
    CHECK((parse_size("3MB", v) && v == 3u << 20));
    CHECK_FALSE(parse_size("", v));
    CHECK_FALSE(parse_size("-1", v));
    CHECK_FALSE(parse_size("12Q", v));
    CHECK_FALSE(parse_size("M", v));
    CHECK_FALSE(parse_size("1 G", v));
    CHECK_FALSE(parse_size("99999999999999999999", v));
    CHECK_FALSE(parse_size("99999999999T", v));  // overflows 64 bits
}

TEST_CASE("counts, booleans, seconds and choices parse strictly", "[config]")
{
    unsigned n = 0;
    CHECK((parse_count("4", n) && n == 4));
    CHECK_FALSE(parse_count("0", n));
    CHECK_FALSE(parse_count("4x", n));
    CHECK_FALSE(parse_count("100000", n));
    bool b = false;
    CHECK((parse_bool("yes", b) && b));
    CHECK((parse_bool("OFF", b) && !b));
    CHECK_FALSE(parse_bool("maybe", b));
    double s = -1;
    CHECK((parse_seconds("2.5", s) && s == 2.5));
    CHECK_FALSE(parse_seconds("-3", s));
    CHECK_FALSE(parse_seconds("nan", s));
    CHECK_FALSE(parse_seconds("inf", s));
    CHECK(parse_choice("ofi", "auto|shm|ofi") == 2);
    CHECK(parse_choice("OFI", "auto|shm|ofi") == 2);
    CHECK(parse_choice("of", "auto|shm|ofi") == -1);
    CHECK(parse_choice("", "auto|shm|ofi") == -1);
}

TEST_CASE("every table entry has a well-formed default and a description", "[config]")
{
    std::set<std::string> names;
    for (const auto &v : config_table()) {
        INFO(v.name);
        CHECK(std::string(v.name).rfind("PGDDS_", 0) == 0);
        CHECK(names.insert(v.name).second);
        CHECK(std::string(v.description).size() > 10);
        CHECK((v.type == var_type::choice) == (v.choices != nullptr));
        if (v.type == var_type::choice) CHECK(parse_choice(v.default_value, v.choices) >= 0);
    }
}

TEST_CASE("the environment configures; params win; bad values warn", "[config]")
{
    setenv("PGDDS_SEGMENT_SIZE", "8M", 1);
    setenv("PGDDS_NUM_VCIS", "3", 1);
    setenv("PGDDS_SHM", "sometimes", 1);
    setenv("PGDDS_NO_SUCH_THING", "1", 1);
    config c;
    std::vector<std::string> warnings;
    REQUIRE(config_load(nullptr, c, warnings) == PGDDS_OK);
    CHECK(c.segment_size == 8u << 20);
    CHECK(c.num_vcis == 3);
    CHECK(c.shm == shm_mode::automatic);  // ill-formed: default kept
    bool warned_shm = false, warned_unknown = false;
    for (auto &w : warnings) {
        warned_shm |= w.find("PGDDS_SHM") != std::string::npos;
        warned_unknown |= w.find("PGDDS_NO_SUCH_THING") != std::string::npos;
    }
    CHECK(warned_shm);
    CHECK(warned_unknown);

    pgdds_init_params_t p{};
    p.field_mask = PGDDS_INIT_FIELD_SEGMENT_SIZE | PGDDS_INIT_FIELD_NUM_VCIS | PGDDS_INIT_FIELD_TRANSPORT;
    p.segment_size = 1 << 20;
    p.num_vcis = 2;
    p.transport = "UCX";
    REQUIRE(config_load(&p, c, warnings) == PGDDS_OK);
    CHECK(c.segment_size == 1u << 20);
    CHECK(c.num_vcis == 2);
    CHECK(c.transport == "ucx");

    p.field_mask = PGDDS_INIT_FIELD_THREAD_LEVEL;
    p.thread_level = 7;
    CHECK(config_load(&p, c, warnings) == PGDDS_ERR_INVALID_ARG);
    p.thread_level = -1;
    CHECK(config_load(&p, c, warnings) == PGDDS_ERR_INVALID_ARG);
    p.thread_level = PGDDS_THREAD_SERIALIZED;
    REQUIRE(config_load(&p, c, warnings) == PGDDS_OK);
    CHECK(c.thread_level == PGDDS_THREAD_SERIALIZED);
    setenv("PGDDS_THREAD_LEVEL", "serialized", 1);
    REQUIRE(config_load(nullptr, c, warnings) == PGDDS_OK);
    CHECK(c.thread_level == PGDDS_THREAD_SERIALIZED);
    setenv("PGDDS_THREAD_LEVEL", "multiple", 1);
    REQUIRE(config_load(nullptr, c, warnings) == PGDDS_OK);
    CHECK(c.thread_level == PGDDS_THREAD_MULTIPLE);
    unsetenv("PGDDS_THREAD_LEVEL");
    p.field_mask = 1u << 30;
    CHECK(config_load(&p, c, warnings) == PGDDS_ERR_INVALID_ARG);
    p.field_mask = PGDDS_INIT_FIELD_TRANSPORT;
    p.transport = "carrier-pigeon";
    CHECK(config_load(&p, c, warnings) == PGDDS_ERR_INVALID_ARG);
    p.transport = nullptr;
    CHECK(config_load(&p, c, warnings) == PGDDS_ERR_INVALID_ARG);
    unsetenv("PGDDS_SEGMENT_SIZE");
    unsetenv("PGDDS_NUM_VCIS");
    unsetenv("PGDDS_SHM");
    unsetenv("PGDDS_NO_SUCH_THING");
}

TEST_CASE("global pointers pack rank, segment and offset into one word", "[gptr]")
{
    static_assert(sizeof(pgdds_gptr_t) == 8, "one word");
    pgdds_gptr_t p = gptr::make(4194303, 0, (uint64_t(1) << 40) - 8);
    CHECK(gptr::rank(p) == 4194303);
    CHECK(gptr::segment(p) == 0);
    CHECK(gptr::offset(p) == (uint64_t(1) << 40) - 8);
    CHECK(gptr::rank(gptr::make(7, 2, 4096)) == 7);
    CHECK(gptr::segment(gptr::make(7, 2, 4096)) == 2);
    // Arithmetic changes the offset only, wrapping within it.
    pgdds_gptr_t q = gptr::add(p, 16);
    CHECK(gptr::rank(q) == 4194303);
    CHECK(gptr::offset(q) == 8);
    CHECK(gptr::add(gptr::add(p, -1000), 1000) == p);
    CHECK(gptr::make(0, 0, 0) == PGDDS_GPTR_NULL);
    CHECK(pgdds_gptr_t(gptr::make(1, 0, 0)) != PGDDS_GPTR_NULL);
}

TEST_CASE("the allocator aligns, reuses, never gives offset 0 and reports exhaustion", "[allocator]")
{
    segment_allocator a(4096, 1 << 20);
    uint64_t o1, o2, o3;
    REQUIRE(a.alloc(24, 0, o1) == PGDDS_OK);
    CHECK(o1 >= 4096);
    CHECK(o1 % 16 == 0);
    REQUIRE(a.alloc(24, 0, o2) == PGDDS_OK);
    CHECK(o2 != o1);
    REQUIRE(a.alloc(100, 256, o3) == PGDDS_OK);
    CHECK(o3 % 256 == 0);
    REQUIRE(a.free(o1) == PGDDS_OK);
    uint64_t again;
    REQUIRE(a.alloc(20, 0, again) == PGDDS_OK);
    CHECK(again == o1);  // reuse after free
    CHECK(a.free(o1 + 8) == PGDDS_ERR_INVALID_ARG);  // not a block
    REQUIRE(a.free(again) == PGDDS_OK);
    CHECK(a.free(again) == PGDDS_ERR_INVALID_ARG);  // double free
    uint64_t big1, big2;
    REQUIRE(a.alloc(300000, 4096, big1) == PGDDS_OK);
    CHECK(big1 % 4096 == 0);
    REQUIRE(a.alloc(300000, 0, big2) == PGDDS_OK);
    CHECK((big2 >= big1 + 300000 || big2 + 300000 <= big1));
    uint64_t huge;
    CHECK(a.alloc(600000, 0, huge) == PGDDS_ERR_NO_MEMORY);
    CHECK(a.alloc(size_t(1) << 21, 0, huge) == PGDDS_ERR_NO_MEMORY);
    CHECK(a.alloc(8, 3, huge) == PGDDS_ERR_INVALID_ARG);
    CHECK(a.alloc(8, size_t(1) << 20, huge) == PGDDS_ERR_INVALID_ARG);
    REQUIRE(a.free(big1) == PGDDS_OK);
    REQUIRE(a.free(big2) == PGDDS_OK);
    REQUIRE(a.alloc(600000, 0, huge) == PGDDS_OK);  // coalesced again
    REQUIRE(a.free(huge) == PGDDS_OK);
    REQUIRE(a.free(o2) == PGDDS_OK);
    REQUIRE(a.free(o3) == PGDDS_OK);
    CHECK(a.live_blocks() == 0);
}

TEST_CASE("the allocator's size classes take a page at a time, so a small segment holds one of each",
          "[allocator]")
{
    segment_allocator a(4096, 64 * 1024);  // 60 KiB to hand out
    std::vector<uint64_t> got;
    for (size_t size = 16; size <= segment_allocator::max_small; size *= 2) {
        uint64_t o;
        REQUIRE(a.alloc(size, 0, o) == PGDDS_OK);
        CHECK(o % size == 0);
        got.push_back(o);
    }
    uint64_t rest;
    REQUIRE(a.alloc(16 * 1024, 0, rest) == PGDDS_OK);  // and room is left beside them
    for (uint64_t o : got) REQUIRE(a.free(o) == PGDDS_OK);
    REQUIRE(a.free(rest) == PGDDS_OK);
}

TEST_CASE("the allocator is thread-safe: concurrent blocks never overlap", "[allocator]")
{
    segment_allocator a(4096, 64 << 20);
    const int threads = 4, per = 2000;
    std::vector<std::vector<std::pair<uint64_t, size_t>>> got(threads);
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
        ts.emplace_back([&, t] {
            for (int i = 0; i < per; ++i) {
                size_t sz = size_t(8 + (i * 37 + t * 11) % 9000);
                uint64_t o;
                if (a.alloc(sz, 0, o) == PGDDS_OK) got[size_t(t)].push_back({o, sz});
                if (i % 3 == 0 && !got[size_t(t)].empty()) {
                    a.free(got[size_t(t)].back().first);
                    got[size_t(t)].pop_back();
                }
            }
        });
    for (auto &th : ts) th.join();
    std::vector<std::pair<uint64_t, size_t>> all;
    for (auto &g : got) all.insert(all.end(), g.begin(), g.end());
    std::sort(all.begin(), all.end());
    size_t overlaps = 0;
    for (size_t i = 1; i < all.size(); ++i) overlaps += all[i - 1].first + all[i - 1].second > all[i].first;
    CHECK(overlaps == 0);
    CHECK(a.live_blocks() == all.size());
}

TEST_CASE("the symmetric heap grows down from the top and depends only on its live blocks", "[symmetric]")
{
    const uint64_t size = 1 << 20;
    segment_allocator a(4096, size), b(4096, size);
    symmetric_heap ha(a, size), hb(b, size);
    uint64_t x, y, z;
    REQUIRE(ha.alloc(100, 0, x) == PGDDS_OK);
    CHECK(x + 112 == size);  // rounded to 16 and placed at the top
    CHECK(ha.is_block(x));
    CHECK(ha.contains(x + 111));
    CHECK_FALSE(ha.contains(x + 112));
    REQUIRE(ha.alloc(64, 4096, y) == PGDDS_OK);
    CHECK(y % 4096 == 0);
    CHECK(y < x);
    // The rank's own allocator cannot hand out what the heap holds, nor free it.
    CHECK(a.free(y) == PGDDS_ERR_INVALID_ARG);
    uint64_t own;
    REQUIRE(a.alloc(size - 4096 - (size - y), 0, own) == PGDDS_OK);  // exactly up to the heap
    CHECK(own + (size - 4096 - (size - y)) <= y);
    REQUIRE(a.free(own) == PGDDS_OK);

    // Another heap given the same calls, with an undone call in between, ends up the same.
    uint64_t x2, y2, undone;
    REQUIRE(hb.alloc(100, 0, x2) == PGDDS_OK);
    REQUIRE(hb.alloc(5000, 0, undone) == PGDDS_OK);
    REQUIRE(hb.free(undone) == PGDDS_OK);
    REQUIRE(hb.alloc(64, 4096, y2) == PGDDS_OK);
    CHECK(x2 == x);
    CHECK(y2 == y);

    // Freeing the lowest block gives its range back; a gap is reused first fit.
    REQUIRE(ha.alloc(32, 0, z) == PGDDS_OK);
    REQUIRE(ha.free(y) == PGDDS_OK);
    CHECK_FALSE(ha.is_block(y));
    CHECK(ha.free(y) == PGDDS_ERR_INVALID_ARG);
    uint64_t w;
    REQUIRE(ha.alloc(16, 0, w) == PGDDS_OK);
    CHECK(w > z);  // into the gap y left above z, not below z
    CHECK(ha.free(w) == PGDDS_OK);
    CHECK(ha.free(z) == PGDDS_OK);
    CHECK(ha.free(x) == PGDDS_OK);
    CHECK(a.large_free_bytes() == size - 4096);  // every range is back
}

TEST_CASE("the symmetric heap stops where the rank's own allocations begin", "[symmetric]")
{
    const uint64_t size = 1 << 20;
    segment_allocator a(4096, size);
    symmetric_heap h(a, size);
    uint64_t own, s;
    REQUIRE(a.alloc(size - 4096 - 8192, 0, own) == PGDDS_OK);
    REQUIRE(h.alloc(8192, 0, s) == PGDDS_OK);
    CHECK(h.alloc(16, 0, s) == PGDDS_ERR_NO_MEMORY);
    CHECK(h.alloc(size * 2, 0, s) == PGDDS_ERR_NO_MEMORY);
    CHECK(h.alloc(16, 3, s) == PGDDS_ERR_INVALID_ARG);
}
