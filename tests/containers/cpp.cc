// The C++ containers over several ranks: trivially copyable types, std::string, std::vector and a
// user type through pgdds::serializer, promises as a typed bit set, std::optional results,
// pgdds::error for failures, local and global iteration, and the operations' futures.
#include "common.h"

#include <pgdds/containers.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

// A user type that is not trivially copyable, with its serializer.
struct reading {
    std::string sensor;
    double value = 0;
    bool operator==(const reading &o) const { return sensor == o.sensor && value == o.value; }
};

template <> struct pgdds::serializer<reading> {
    static constexpr bool trivial = false;
    static size_t size(const reading &r) { return sizeof r.value + r.sensor.size(); }
    static void write(const reading &r, void *out)
    {
        std::memcpy(out, &r.value, sizeof r.value);
        std::memcpy(static_cast<char *>(out) + sizeof r.value, r.sensor.data(), r.sensor.size());
    }
    static bool read(const void *in, size_t n, reading &out)
    {
        if (n < sizeof out.value) return false;
        std::memcpy(&out.value, in, sizeof out.value);
        out.sensor.assign(static_cast<const char *>(in) + sizeof out.value, n - sizeof out.value);
        return true;
    }
};

static_assert(pgdds::is_trivially_serializable<uint64_t>, "plain types go straight through");
static_assert(!pgdds::is_trivially_serializable<std::string>, "strings are serialized");
static_assert((pgdds::promise::find | pgdds::promise::insert).bits() == (PGDDS_CP_FIND | PGDDS_CP_INSERT),
              "promises combine as bits");

static int me, n;

static void test_hash_map_trivial(pgdds::context &ctx)
{
    const uint64_t keys = t_work(1000, 200);
    pgdds::hash_map<uint64_t, double> m(ctx, 4096);
    for (uint64_t k = uint64_t(me); k < keys; k += uint64_t(n)) m.insert(k, double(k) / 2);
    ctx.barrier();
    int wrong = 0;
    for (uint64_t k = 0; k < keys; ++k) {
        auto v = m.find(k, pgdds::promise::find);
        wrong += !v || *v != double(k) / 2;
    }
    T_CHECK(wrong == 0);
    T_CHECK(!m.find(5000).has_value());
    T_CHECK(m.size() == keys);
    // Routes per operation: the changes take the map's protocol, a CP_FIND find RDMA at most.
    const int other = (me + 1) % n;
    int base = 0;
    T_OK(pgdds_hashmap_protocol(m.handle(), other, &base));
    T_CHECK(m.protocol(other, PGDDS_CONTAINER_OP_INSERT) == base && m.protocol(other, PGDDS_CONTAINER_OP_FIND) == base);
    T_CHECK(m.protocol(other, PGDDS_CONTAINER_OP_FIND, pgdds::promise::find) == base ||
            m.protocol(other, PGDDS_CONTAINER_OP_FIND, pgdds::promise::find) == PGDDS_PROTOCOL_RDMA);
    // batches
    std::vector<uint64_t> some{1, 2, 3, 5000};
    auto found = m.find_many(some, pgdds::promise::find);
    T_CHECK(found[0] == 0.5 && found[2] == 1.5 && !found[3]);
    ctx.barrier();
    // local iteration may change values in place
    uint64_t local = 0;
    m.for_each_local([&](const uint64_t &k, double &v) {
        v = double(k) * 3;
        ++local;
    });
    T_CHECK(ctx.sum(local) == keys);
    ctx.barrier();
    // a combining buffer adds to the values present; an update-only one leaves absent keys out
    {
        pgdds::hash_map_buffer<uint64_t, double> add(
            m, 64, 8, pgdds::hash_map_buffer_options<double>().combine([](double &v, const double &d) { v += d; }));
        for (uint64_t k = 0; k < 20; ++k) add.insert(k, 1.0);
        add.flush();
        pgdds::hash_map_buffer<uint64_t, double> update(
            m, 64, 8, pgdds::hash_map_buffer_options<double>().update_only());
        update.insert(keys + 12345, 5.0);
        update.flush();
    }
    T_CHECK(m.find(3).value_or(-1) == 9.0 + n && m.find(19).value_or(-1) == 57.0 + n);
    T_CHECK(m.size() == keys);
    for (uint64_t k = 0; k < 20; ++k)
        if (m.owner(k) == me) m.insert(k, double(k) * 3, pgdds::promise::local);
    ctx.barrier();
    T_CHECK(m.find(10).value_or(-1) == 30.0);
    ctx.barrier();
    if (me == 0) T_CHECK(m.erase(10) && !m.erase(10));
    ctx.barrier();
    T_CHECK(!m.find(10));
    // an owner's CP_LOCAL insert
    for (uint64_t k = 2000; k < 2100; ++k)
        if (m.owner(k) == me) m.insert(k, 1.0, pgdds::promise::local);
    ctx.barrier();
    T_CHECK(m.size() == keys + 99);
}

static void test_hash_map_serialized(pgdds::context &ctx)
{
    pgdds::hash_map<std::string, std::vector<int>> m(ctx, 512, pgdds::hash_map_options().max_key_bytes(24).max_value_bytes(64));
    std::string mine = "rank-" + std::to_string(me);
    m.insert(mine, std::vector<int>(size_t(me) + 1, me));
    ctx.barrier();
    for (int r = 0; r < n; ++r) {
        auto v = m.find("rank-" + std::to_string(r));
        T_CHECK(v && v->size() == size_t(r) + 1 && std::all_of(v->begin(), v->end(), [&](int x) { return x == r; }));
    }
    // too long for the slots: refused, as an error
    bool refused = false;
    try {
        m.insert(std::string(100, 'x'), {});
    } catch (const pgdds::error &e) {
        refused = e.status() == PGDDS_ERR_INVALID_ARG;
    }
    T_CHECK(refused);
    // a user type as the value, buffered inserts
    pgdds::hash_map<std::string, reading> r(ctx, 1024, pgdds::hash_map_options().max_key_bytes(16).max_value_bytes(40));
    {
        pgdds::hash_map_buffer<std::string, reading> buf(r, 64, 8);
        for (int i = 0; i < 100; ++i) buf.insert("s" + std::to_string(me * 100 + i), reading{"temp" + std::to_string(i), i * 0.5});
        buf.flush();
    }
    T_CHECK(r.size() == uint64_t(100 * n));
    auto got = r.find("s" + std::to_string(((me + 1) % n) * 100 + 7));
    T_CHECK(got && *got == (reading{"temp7", 3.5}));
    uint64_t seen = 0;
    r.for_each_local([&](const std::string &k, const reading &v) { seen += k[0] == 's' && v.sensor.rfind("temp", 0) == 0; });
    T_CHECK(ctx.sum(seen) == uint64_t(100 * n));
    ctx.barrier();
}

static void test_queues(pgdds::context &ctx)
{
    {
        pgdds::fast_queue<int> q(ctx, uint64_t(10 * n), n - 1);
        T_CHECK(me != n - 1 || q.protocol() != PGDDS_PROTOCOL_RPC);  // the host never calls itself
        T_CHECK(q.protocol(PGDDS_CONTAINER_OP_SIZE, pgdds::promise_set()) == q.protocol());
        for (int i = 0; i < 10; ++i) T_CHECK(q.push(me * 100 + i));
        T_CHECK(!q.push(std::vector<int>(uint64_t(n) * 10, 0)));  // all or nothing
        ctx.barrier();
        if (me == n - 1) {
            auto view = q.local_view();
            T_CHECK(view.size == size_t(10 * n));
            long sum = std::accumulate(view.begin(), view.end(), 0L);
            long expect = 0;
            for (int r = 0; r < n; ++r) expect += r * 1000 + 45;
            T_CHECK(sum == expect);
        }
        ctx.barrier();
        size_t popped = 0;
        while (auto v = q.pop()) popped++;
        T_CHECK(ctx.sum(uint64_t(popped)) == uint64_t(10 * n));
        ctx.barrier();
    }
    {
        pgdds::circular_queue<std::string> q(ctx, 8, 0, 32);
        if (me == 0) {
            T_CHECK(q.push(std::vector<std::string>{"a", "bb", "ccc"}, pgdds::promise::local));
            T_CHECK(q.pop(2) == (std::vector<std::string>{"a", "bb"}));
            T_CHECK(q.pop().value_or("") == "ccc");
            T_CHECK(!q.pop());
        }
        ctx.barrier();
        T_CHECK(q.push("from " + std::to_string(me)));
        ctx.barrier();
        std::vector<std::string> all = me == 0 ? q.pop(size_t(n)) : std::vector<std::string>{};
        T_CHECK(me != 0 || all.size() == size_t(n));
        ctx.barrier();
        q.resize(16);
        q.migrate(n - 1);
        T_CHECK(q.capacity() == 16 && q.host() == n - 1);
        ctx.barrier();
    }
    {
        pgdds::checksum_queue<reading> q(ctx, 64, 0, 40);
        T_CHECK(q.push(reading{"r" + std::to_string(me), double(me)}));
        ctx.barrier();
        if (me == 0) {
            auto got = q.pop(64);
            T_CHECK_MSG(got.size() == size_t(n), "got %zu", got.size());
            double sum = 0;
            for (auto &g : got) sum += g.value;
            T_CHECK(sum == double(n * (n - 1) / 2));
        }
        ctx.barrier();
    }
}

static void test_bloom_and_arrays(pgdds::context &ctx)
{
    pgdds::bloom_filter<std::string> words(ctx, 1000, 0.01);
    const std::string mine = "word" + std::to_string(me);
    words.insert(mine);  // "was present" may be a false positive here: not a result to check
    ctx.barrier();
    for (int r = 0; r < n; ++r) T_CHECK(words.contains("word" + std::to_string(r)));
    T_CHECK(words.protocol(me, PGDDS_CONTAINER_OP_CONTAINS) == PGDDS_PROTOCOL_DIRECT ||
            words.protocol(me, PGDDS_CONTAINER_OP_CONTAINS) == PGDDS_PROTOCOL_RDMA);  // never a call to itself
    T_CHECK(words.insert(mine));  // present now, certainly
    ctx.barrier();
    pgdds::bloom_filter<uint64_t> ids(ctx, 1000, 0.001);
    std::vector<uint64_t> batch(100);
    std::iota(batch.begin(), batch.end(), uint64_t(me) * 100);
    ids.insert_many(batch.data(), batch.size());
    ctx.barrier();
    std::vector<unsigned char> maybe(batch.size());
    ids.contains_many(batch.data(), batch.size(), maybe.data());
    T_CHECK(std::all_of(maybe.begin(), maybe.end(), [](unsigned char c) { return c == 1; }));

    pgdds::darray<int> a(ctx, uint64_t(100 * n + 3));
    auto part = a.local();
    for (size_t i = 0; i < part.size; ++i) part[i] = int(part.first_index + i);
    ctx.barrier();
    long sum = 0;
    a.for_each([&](uint64_t i, const int &v) { sum += v == int(i); }, 37);
    T_CHECK(sum == 100 * n + 3);
    T_CHECK(a.get(uint64_t(100 * n + 2)) == 100 * n + 2);
    T_CHECK(a.ptr(5).get() == 5);
    ctx.barrier();
    pgdds::array<double> h(ctx, 10, n - 1);
    if (me == 0) h.put(0, std::vector<double>(10, 2.5));
    ctx.barrier();
    T_CHECK(h.get(9) == 2.5 && h.host() == n - 1 && (me == n - 1) == !h.local().empty());
    bool out_of_range = false;
    try {
        h.get(10);
    } catch (const pgdds::error &e) {
        out_of_range = e.status() == PGDDS_ERR_OUT_OF_BOUNDS;
    }
    T_CHECK(out_of_range);
    ctx.barrier();
}

// The asynchronous forms: futures of every container operation, many in flight at once, then()
// and when_all over them, absent keys, an empty queue and a full one as values, a value taken
// twice refused; counts and sums exact.
static void test_async(pgdds::context &ctx)
{
    const uint64_t keys = t_work(400, 100);
    pgdds::hash_map<uint64_t, uint64_t> m(ctx, 4 * keys);
    std::vector<pgdds::future<void>> inserts;
    for (uint64_t k = uint64_t(me); k < keys; k += uint64_t(n)) inserts.push_back(m.insert_async(k, k * 3));
    for (auto &f : inserts) f.get();
    ctx.barrier();
    std::vector<pgdds::future<uint64_t>> found;
    for (uint64_t k = 0; k < keys; ++k)
        found.push_back(m.find_async(k, pgdds::promise::find).then([](std::optional<uint64_t> v) { return v ? *v + 1 : 0; }));
    uint64_t wrong = 0;
    for (uint64_t k = 0; k < keys; ++k) wrong += found[k].get() != k * 3 + 1;
    T_CHECK_MSG(wrong == 0, "%llu of %llu asynchronous finds wrong", (unsigned long long)wrong, (unsigned long long)keys);
    auto absent = m.find_async(keys * 10);
    auto not_erased = m.erase_async(keys * 10);
    pgdds::when_all(absent, not_erased).wait();
    T_CHECK(!absent.get().has_value());
    T_CHECK(!not_erased.get());
    pgdds_status_t twice = PGDDS_OK;  // a future gives its value once
    try {
        (void)absent.get();
    } catch (const pgdds::error &e) {
        twice = e.status();
    }
    T_CHECK(twice == PGDDS_ERR_STATE);
    ctx.barrier();
    uint64_t erased = 0;
    std::vector<pgdds::future<bool>> erases;
    for (uint64_t k = uint64_t(me); k < keys; k += uint64_t(n)) erases.push_back(m.erase_async(k));
    for (auto &f : erases) erased += f.get();
    T_CHECK(ctx.sum(erased) == keys);
    T_CHECK(m.size() == 0);

    pgdds::hash_map<std::string, std::string> names(ctx, 256,
                                                    pgdds::hash_map_options().max_key_bytes(32).max_value_bytes(32));
    names.insert_async("rank " + std::to_string(me), "value of " + std::to_string(me)).wait();
    ctx.barrier();
    const int other = (me + 1) % n;
    auto name = names.find_async("rank " + std::to_string(other)).get();
    T_CHECK(name && *name == "value of " + std::to_string(other));

    pgdds::circular_queue<uint64_t> q(ctx, keys * uint64_t(n), 0);
    std::vector<pgdds::future<bool>> pushes;
    for (uint64_t i = 0; i < keys; ++i) pushes.push_back(q.push_async(uint64_t(me) * keys + i + 1, pgdds::promise::push));
    uint64_t refused = 0;
    for (auto &f : pushes) refused += !f.get();
    T_CHECK(refused == 0);
    ctx.barrier();
    if (me == 0) T_CHECK(!q.push_async(std::vector<uint64_t>{0}).get());  // full: false, not an error
    ctx.barrier();
    uint64_t popped = 0, sum = 0;
    for (;;) {
        std::vector<uint64_t> got = q.pop_async(16, pgdds::promise::pop).get();
        if (got.empty()) break;
        popped += got.size();
        sum += std::accumulate(got.begin(), got.end(), uint64_t(0));
    }
    const uint64_t total = keys * uint64_t(n);
    T_CHECK(ctx.sum(popped) == total);
    T_CHECK(ctx.sum(sum) == total * (total + 1) / 2);

    pgdds::bloom_filter<uint64_t> seen(ctx, 64 * uint64_t(n), 0.01);
    std::vector<pgdds::future<bool>> marks;
    for (uint64_t i = 0; i < 64; ++i) marks.push_back(seen.insert_async(t_mix(uint64_t(me) * 64 + i)));
    for (auto &f : marks) f.get();
    ctx.barrier();
    uint64_t missing = 0;
    for (uint64_t i = 0; i < 64; ++i) missing += !seen.contains_async(t_mix(uint64_t(other) * 64 + i)).get();
    T_CHECK(missing == 0);
    T_CHECK(seen.insert_async(t_mix(uint64_t(other) * 64)).get());  // there before
    ctx.barrier();
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
        t_detect_network(ctx.handle());
        test_hash_map_trivial(ctx);
        test_hash_map_serialized(ctx);
        test_queues(ctx);
        test_bloom_and_arrays(ctx);
        test_async(ctx);
        uint64_t total = ctx.sum(uint64_t(t_failures));
        if (me == 0)
            printf("containers/cpp: %s on %d ranks over %s (%llu failed checks)\n", total ? "FAILED" : "passed", n,
                   ctx.transport_name().c_str(), (unsigned long long)total);
        failures = total != 0;
    } catch (const pgdds::error &e) {
        const char *skip = t_skip_reason(e.status());  // a transport absent here
        fprintf(stderr, "%s rank %d: pgdds::error %d: %s%s%s\n", skip ? "SKIP" : "FAIL", me, e.status(), e.what(),
                skip ? ": " : "", skip ? skip : "");
        return skip ? 77 : 1;
    }
    return failures;
}
