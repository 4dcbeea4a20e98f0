// Many small calls to every rank at once, run with PGDDS_RPC_AGGREGATE set (the calls travel in
// batches) and without: every call without reply runs exactly once on its target (counted per
// caller, with the sum of its arguments), calls too large to be held are interleaved and still
// counted, every call with a reply gets its own answer, and a bad rank still fails at once.
#include <pgdds/rpc.hpp>

#include <atomic>
#include <chrono>
#include <vector>

#include "cpp_check.h"

namespace {

constexpr int calls_per_target = 600;
constexpr int max_ranks = 64;
std::atomic<long> count_from[max_ranks];
std::atomic<long> sum_from[max_ranks];
std::atomic<long> large_from[max_ranks];

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void run(pgdds::context &ctx)
{
    const int me = ctx.rank(), n = ctx.nranks();
    CHECK(n <= max_ranks);
    if (n > max_ranks) return;
    ctx.barrier();

    // Calls without reply: small ones, and every 50th one large (3000 bytes: never held).
    long large_per_target = 0;
    for (int i = 0; i < calls_per_target; ++i) {
        for (int r = 0; r < n; ++r) {
            pgdds::rpc_ff(ctx, r, [](int src, int k) {
                count_from[src] += 1;
                sum_from[src] += k;
            }, me, i);
            if (i % 50 == 0)
                pgdds::rpc_ff(ctx, r, [](int src, std::vector<unsigned char> blob) {
                    if (blob.size() == 3000 && blob[2999] == 7) large_from[src] += 1;
                }, me, std::vector<unsigned char>(3000, 7));
        }
        if (i % 50 == 0) ++large_per_target;
    }
    const long expect_sum = long(calls_per_target) * (calls_per_target - 1) / 2;
    auto all_in = [&] {
        for (int s = 0; s < n; ++s)
            if (count_from[s].load() < calls_per_target || large_from[s].load() < large_per_target) return false;
        return true;
    };
    const double deadline = now() + 60;
    while (!all_in() && now() < deadline) ctx.progress();
    ctx.barrier();
    ctx.progress();
    for (int s = 0; s < n; ++s) {
        CHECK(count_from[s].load() == calls_per_target);  // exactly once each
        CHECK(sum_from[s].load() == expect_sum);
        CHECK(large_from[s].load() == large_per_target);
    }

    // Calls with replies, all in flight, each answered for itself.
    std::vector<pgdds::future<long>> answers;
    for (int i = 0; i < calls_per_target / 4; ++i)
        for (int r = 0; r < n; ++r)
            answers.push_back(pgdds::rpc(ctx, r, [](long x) { return 3 * x + 1; }, long(i) * max_ranks + r));
    size_t k = 0;
    for (int i = 0; i < calls_per_target / 4; ++i)
        for (int r = 0; r < n; ++r, ++k) CHECK(answers[k].get() == 3 * (long(i) * max_ranks + r) + 1);

    // A bad rank fails at once, held calls or not.
    int32_t arg = 1;
    CHECK(pgdds_rpc_call(ctx.handle(), n, 42, &arg, sizeof arg, nullptr, nullptr) == PGDDS_ERR_OUT_OF_BOUNDS);
    CHECK(pgdds_rpc_call(ctx.handle(), -1, 42, &arg, sizeof arg, nullptr, nullptr) == PGDDS_ERR_OUT_OF_BOUNDS);
    ctx.barrier();
}

}  // namespace

int main() { return cpp_test_main("core_api/rpc_aggregate", run); }
