// Remote procedure calls and futures: typed calls to every rank with exact results (numbers,
// strings, vectors, void), calls without reply counted on their target, then() chains, when_all,
// rput/rget, and the failures: a function that throws, a bad rank, a second get(), a function no
// rank registered, and the C API's bad input.
#include <pgdds/rpc.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cpp_check.h"

static std::atomic<int> received{0};

static double t_now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}  // calls without reply that reached this rank

static void c_function(pgdds_context_t, int src, const void *args, size_t size, pgdds_rpc_reply_t *reply)
{
    int32_t v = 0;
    if (size == sizeof v) std::memcpy(&v, args, sizeof v);
    int32_t r = v * 1000 + src;
    pgdds_rpc_reply(reply, PGDDS_OK, &r, sizeof r, nullptr);
}

struct c_answer {
    pgdds_status_t status = 1;
    int32_t value = -1;
    std::string why;
};
static void c_done(pgdds_context_t, pgdds_status_t st, const void *result, size_t size, void *arg)
{
    auto *a = static_cast<c_answer *>(arg);
    a->status = st;
    if (st == PGDDS_OK && size == sizeof a->value) std::memcpy(&a->value, result, size);
    if (st != PGDDS_OK) a->why = pgdds_last_error();
}

static void run(pgdds::context &ctx)
{
    const int me = ctx.rank(), n = ctx.nranks();
    // Typed calls to every rank, this one included.
    std::vector<pgdds::future<int>> sums;
    for (int r = 0; r < n; ++r)
        sums.push_back(pgdds::rpc(ctx, r, [](int a, int b) { return a * 100 + b; }, me, r));
    for (int r = 0; r < n; ++r) CHECK(sums[size_t(r)].get() == me * 100 + r);
    // Strings, vectors, and the rank that ran it.
    auto s = pgdds::rpc(ctx, (me + 1) % n, [](std::string t, int k) { return t + std::to_string(k); }, "rank", me);
    CHECK(s.get() == "rank" + std::to_string(me));
    auto v = pgdds::rpc(ctx, (me + 1) % n, [](std::vector<double> xs) {
        for (auto &x : xs) x *= 2;
        return xs;
    }, std::vector<double>{1.5, 2.5, double(me)});
    std::vector<double> got = v.get();
    CHECK(got.size() == 3 && got[0] == 3.0 && got[1] == 5.0 && got[2] == 2.0 * me);
    // A capture travels by value.
    const int offset = 17 + me;
    CHECK(pgdds::rpc(ctx, (me + n - 1) % n, [offset](int x) { return x + offset; }, 1).get() == 18 + me);

    // Calls without reply: each rank sends 10 to every rank; every rank counts n * 10.
    for (int r = 0; r < n; ++r)
        for (int i = 0; i < 10; ++i) pgdds::rpc_ff(ctx, r, [](int k) { received += k; }, 1);
    const double deadline = t_now() + 60;
    while (received.load() < n * 10 && t_now() < deadline) ctx.progress();
    CHECK(received.load() == n * 10);
    ctx.barrier();

    // then() chains and when_all.
    auto chained = pgdds::rpc(ctx, (me + 1) % n, [](int x) { return x + 1; }, 1).then([](int x) { return x * 10; });
    auto voided = pgdds::rpc(ctx, (me + 1) % n, [](int) {}, 0);
    auto both = pgdds::when_all(chained, voided);
    both.wait();
    CHECK(both.ready() && chained.get() == 20);
    voided.get();

    // rput / rget on the right-hand neighbour's symmetric word.
    pgdds::global_ptr<int64_t> word = ctx.alloc_all<int64_t>(1, true);
    const int64_t mine = 1000 + me;
    pgdds::rput(ctx, &mine, word.at((me + 1) % n)).wait();
    ctx.barrier();
    CHECK(pgdds::rget(ctx, word.at(me)).get() == 1000 + (me + n - 1) % n);
    ctx.barrier();
    ctx.free_all(word);

    // Failures: a throwing function, a bad rank, a second get, an empty future.
    auto thrown = pgdds::rpc(ctx, (me + 1) % n, [](int x) -> int {
        if (x < 0) throw pgdds::error(PGDDS_ERR_NOT_FOUND, "no such thing");
        return x;
    }, -1);
    pgdds_status_t st = status_of([&] { thrown.get(); });
    CHECK(st == PGDDS_ERR_NOT_FOUND);
    CHECK(status_of([&] { pgdds::rpc(ctx, n, [] { return 1; }); }) == PGDDS_ERR_OUT_OF_BOUNDS);
    auto once = pgdds::rpc(ctx, me, [] { return 5; });
    CHECK(once.get() == 5);
    CHECK(status_of([&] { once.get(); }) == PGDDS_ERR_STATE);
    CHECK(status_of([&] { pgdds::future<int>().wait(); }) == PGDDS_ERR_STATE);

    // The C API: registration rules, a call of a registered function, a function nobody has.
    CHECK(pgdds_rpc_register(0, c_function) == PGDDS_ERR_INVALID_ARG);
    CHECK(pgdds_rpc_register(0x1234, nullptr) == PGDDS_ERR_INVALID_ARG);
    CHECK(pgdds_rpc_register(0x1234, c_function) == PGDDS_OK);
    CHECK(pgdds_rpc_register(0x1234, c_function) == PGDDS_OK);  // again, the same function
    CHECK(pgdds_rpc_register(0x1234, [](pgdds_context_t, int, const void *, size_t, pgdds_rpc_reply_t *) {}) ==
          PGDDS_ERR_EXISTS);
    CHECK(pgdds_rpc_reply(nullptr, PGDDS_OK, nullptr, 0, nullptr) == PGDDS_ERR_INVALID_ARG);
    ctx.barrier();  // every rank has registered 0x1234
    int32_t arg = 7;
    c_answer a, missing;
    CHECK(pgdds_rpc_call(ctx.handle(), (me + 1) % n, 0x1234, &arg, sizeof arg, c_done, &a) == PGDDS_OK);
    CHECK(pgdds_rpc_call(ctx.handle(), (me + 1) % n, 0x5678, nullptr, 0, c_done, &missing) == PGDDS_OK);
    CHECK(pgdds_rpc_call(ctx.handle(), -1, 0x1234, &arg, sizeof arg, c_done, &a) == PGDDS_ERR_OUT_OF_BOUNDS);
    CHECK(pgdds_rpc_call(ctx.handle(), 0, 0x1234, nullptr, 4, c_done, &a) == PGDDS_ERR_INVALID_ARG);
    while ((a.status == 1 || missing.status == 1) && t_now() < deadline + 60) ctx.progress();
    CHECK(a.status == PGDDS_OK && a.value == 7000 + me);
    CHECK(missing.status == PGDDS_ERR_INVALID_ARG && missing.why.find("no function") != std::string::npos);
    ctx.barrier();
}

int main() { return cpp_test_main("core_api/rpc", run); }
