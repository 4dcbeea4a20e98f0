// pgdds::key_table<K, V> on several ranks: trivially copyable keys and values (no
// serialization), std::string and std::vector through the serializer, a user type with its own
// serializer; optional results, fetch_add on a member, for_each_local changing values in place
// and in size, and errors thrown as pgdds::error.
#include "../harness.h"

#include <pgdds/key_table.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace {

struct counters {
    uint64_t hits;
    uint64_t misses;
    double weight;
};

// A user type with its own encoding: a name and a list of integers.
struct record {
    std::string name;
    std::vector<int32_t> items;
    bool operator==(const record &o) const { return name == o.name && items == o.items; }
};

}  // namespace

template <> struct pgdds::serializer<record> {
    static constexpr bool trivial = false;
    static size_t size(const record &r) { return 4 + r.name.size() + 4 * r.items.size(); }
    static void write(const record &r, void *out)
    {
        auto *p = static_cast<unsigned char *>(out);
        uint32_t n = uint32_t(r.name.size());
        std::memcpy(p, &n, 4);
        std::memcpy(p + 4, r.name.data(), n);
        if (!r.items.empty()) std::memcpy(p + 4 + n, r.items.data(), 4 * r.items.size());
    }
    static bool read(const void *in, size_t len, record &out)
    {
        auto *p = static_cast<const unsigned char *>(in);
        uint32_t n;
        if (len < 4) return false;
        std::memcpy(&n, p, 4);
        if (4 + size_t(n) > len || (len - 4 - n) % 4) return false;
        out.name.assign(reinterpret_cast<const char *>(p + 4), n);
        out.items.resize((len - 4 - n) / 4);
        if (!out.items.empty()) std::memcpy(out.items.data(), p + 4 + n, len - 4 - n);
        return true;
    }
};

static int me, n;

static void test_trivial(pgdds::context &ctx)
{
    pgdds::key_table<uint64_t, counters> t(1000);
    for (uint64_t i = 0; i < 24; ++i) T_CHECK(t.insert(uint64_t(me) * 1000 + i, counters{i, 0, 0.5 * double(i)}));
    T_CHECK(!t.insert(uint64_t(me) * 1000, counters{}));
    ctx.barrier();
    int bad = 0;
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < 24; ++i) {
            auto c = t.get(uint64_t(r) * 1000 + i);
            bad += !c || c->hits != i || c->misses != 0 || c->weight != 0.5 * double(i);
        }
    T_CHECK_MSG(bad == 0, "%d values wrong", bad);
    ctx.barrier();
    // Every rank counts a miss on every key.
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < 24; ++i) {
            auto old = t.fetch_add(uint64_t(r) * 1000 + i, offsetof(counters, misses), uint64_t(1));
            bad += !old || *old >= uint64_t(n);
        }
    T_CHECK_MSG(bad == 0, "%d fetch_add results wrong", bad);
    T_CHECK(!t.get(999999));
    T_CHECK(!t.fetch_add(999999, 0, uint64_t(1)));
    T_CHECK(!t.put(999999, counters{}));
    T_CHECK(!t.remove(999999));
    ctx.barrier();
    // The owners double every weight in place.
    t.for_each_local([](const uint64_t &, counters &c) { c.weight *= 2; });
    ctx.barrier();
    bad = 0;
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < 24; ++i) {
            auto c = t.get(uint64_t(r) * 1000 + i);
            bad += !c || c->misses != uint64_t(n) || c->weight != double(i);
        }
    T_CHECK_MSG(bad == 0, "%d counters wrong", bad);
    ctx.barrier();
    T_CHECK(t.remove(uint64_t(me) * 1000 + 7));
    T_CHECK(!t.remove(uint64_t(me) * 1000 + 7));
    // A misaligned member is an error, not an expected outcome.
    bool threw = false;
    try {
        t.fetch_add(uint64_t(me) * 1000 + 8, 4, uint64_t(1));
    } catch (const pgdds::error &e) {
        threw = e.status() == PGDDS_ERR_INVALID_ARG;
    }
    T_CHECK(threw);
    t.destroy();
}

static void test_strings_and_vectors(pgdds::context &ctx)
{
    pgdds::key_table<std::string, std::vector<double>> t(pgdds::key_table_options(1000, 8 * 600));
    auto key = [](int r, int i) { return "rank " + std::to_string(r) + " item " + std::to_string(i); };
    for (int i = 0; i < 16; ++i) T_CHECK(t.insert(key(me, i), std::vector<double>(size_t(i) * 17 % 240, double(i))));
    ctx.barrier();
    int bad = 0;
    for (int r = 0; r < n; ++r)
        for (int i = 0; i < 16; ++i) {
            auto v = t.get(key(r, i));  // values above 256 bytes take the size-needed path
            bad += !v || *v != std::vector<double>(size_t(i) * 17 % 240, double(i));
        }
    T_CHECK_MSG(bad == 0, "%d vectors wrong", bad);
    ctx.barrier();
    // Owners append to every vector: the size changes, so the values are stored after the visit.
    t.for_each_local([](const std::string &, std::vector<double> &v) { v.push_back(-1); });
    ctx.barrier();
    bad = 0;
    for (int r = 0; r < n; ++r)
        for (int i = 0; i < 16; ++i) {
            auto v = t.get(key(r, i));
            std::vector<double> want(size_t(i) * 17 % 240, double(i));
            want.push_back(-1);
            bad += !v || *v != want;
        }
    T_CHECK_MSG(bad == 0, "%d vectors wrong after for_each_local", bad);
    // An empty key is refused.
    bool threw = false;
    try {
        t.insert(std::string(), {});
    } catch (const pgdds::error &e) {
        threw = e.status() == PGDDS_ERR_INVALID_ARG;
    }
    T_CHECK(threw);
    ctx.barrier();
}

static void test_user_type(pgdds::context &ctx)
{
    pgdds::key_table<std::string, record> t(pgdds::key_table_options(100, 256));
    record mine{"r" + std::to_string(me), {me, me + 1, me + 2}};
    T_CHECK(t.insert(mine.name, mine));
    ctx.barrier();
    for (int r = 0; r < n; ++r) {
        auto got = t.get("r" + std::to_string(r));
        T_CHECK(got && *got == (record{"r" + std::to_string(r), {r, r + 1, r + 2}}));
    }
    ctx.barrier();
    T_CHECK(t.put(mine.name, record{"renamed", {}}));
    ctx.barrier();
    auto got = t.get("r" + std::to_string((me + 1) % n));
    T_CHECK(got && got->name == "renamed" && got->items.empty());
    // An exception in the visitor ends the iteration and comes back to the caller.
    bool rethrown = false;
    try {
        t.for_each_local([](const std::string &, record &) { throw std::runtime_error("stop"); });
    } catch (const std::runtime_error &) {
        rethrown = true;
    }
    int64_t owned = 0, all = 0;
    t.for_each_local([&](const std::string &, record &) { ++owned; });
    T_CHECK(rethrown || owned == 0);
    all = ctx.sum(owned);
    T_CHECK(all == n);
}

int main()
{
    int failures = 0;
    try {
        pgdds::context ctx;
        me = ctx.rank();
        n = ctx.nranks();
        t_rank = me;
        t_check_transport(ctx.handle());
        test_trivial(ctx);
        test_strings_and_vectors(ctx);
        test_user_type(ctx);
        failures = int(ctx.sum(int64_t(t_failures)));
        if (me == 0)
            std::printf("keytable/cpp: %s on %d ranks over %s (%d failed checks)\n", failures ? "FAILED" : "passed", n,
                        ctx.transport_name().c_str(), failures);
    } catch (const pgdds::error &e) {
        std::fprintf(stderr, "FAIL rank %d: %s\n", me, e.what());
        const char *skip = t_skip_reason(e.status());  // a transport absent here
        if (skip) std::fprintf(stderr, "SKIP: %s\n", skip);
        return skip ? 77 : 1;
    }
    return failures ? 1 : 0;
}
