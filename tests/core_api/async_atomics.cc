// Non-blocking atomics: pgdds_atomic_u64_nb / _u32_nb / cswap _nb in C and the futures of
// pgdds::atomic_*_async. Every rank has many adds in flight to every rank's word at once; the
// totals and the old values fetched come out exact (each target's old values, over all ranks,
// are 0..total-1). One compare-and-swap of many wins; ORs from every rank meet. Bad input fails
// with a status and a message, MIN/MAX as unsupported.
#include <pgdds/future.hpp>

#include <cstdint>
#include <set>
#include <vector>

#include "cpp_check.h"

namespace {

constexpr int per_target = 40;

void test_bad_input(pgdds::context &ctx, pgdds::global_ptr<uint64_t> w64)
{
    pgdds_context_t c = ctx.handle();
    pgdds_request_t req = nullptr;
    uint64_t old = 0;
    uint32_t old32 = 0;
    CHECK(pgdds_atomic_u64_nb(c, w64.raw(), PGDDS_AOP_ADD, 1, &old, nullptr) == PGDDS_ERR_INVALID_ARG);
    CHECK(std::strlen(pgdds_last_error()) > 0);
    CHECK(pgdds_atomic_u64_nb(c, w64.raw(), PGDDS_AOP_MIN, 1, &old, &req) == PGDDS_ERR_UNSUPPORTED);
    CHECK(std::strstr(pgdds_last_error(), "MIN") != nullptr);
    CHECK(pgdds_atomic_u32_nb(c, w64.raw(), PGDDS_AOP_MAX, 1, &old32, &req) == PGDDS_ERR_UNSUPPORTED);
    CHECK(pgdds_atomic_u64_nb(c, w64.raw(), pgdds_aop_t(99), 1, &old, &req) == PGDDS_ERR_INVALID_ARG);
    CHECK(pgdds_atomic_u64_nb(c, pgdds_gptr_add(w64.raw(), 4), PGDDS_AOP_ADD, 1, &old, &req) == PGDDS_ERR_INVALID_ARG);
    CHECK(pgdds_atomic_u64_nb(c, PGDDS_GPTR_NULL, PGDDS_AOP_ADD, 1, &old, &req) == PGDDS_ERR_INVALID_ARG);
    CHECK(pgdds_atomic_cswap_u64_nb(c, w64.raw(), 0, 1, nullptr, &req) == PGDDS_ERR_INVALID_ARG);
    CHECK(pgdds_atomic_cswap_u32_nb(c, w64.raw(), 0, 1, &old32, nullptr) == PGDDS_ERR_INVALID_ARG);
    CHECK(pgdds_atomic_u64_nb(nullptr, w64.raw(), PGDDS_AOP_ADD, 1, &old, &req) == PGDDS_ERR_INVALID_ARG);
    // The same word on a rank the job does not have.
    const unsigned rank_shift = PGDDS_GPTR_OFFSET_BITS + PGDDS_GPTR_SEGMENT_BITS;
    pgdds_gptr_t beyond = (w64.raw() & ((uint64_t(1) << rank_shift) - 1)) | (uint64_t(ctx.nranks()) << rank_shift);
    CHECK(pgdds_atomic_u64_nb(c, beyond, PGDDS_AOP_ADD, 1, &old, &req) == PGDDS_ERR_OUT_OF_BOUNDS);
    CHECK(status_of([&] { pgdds::atomic_fetch_op_async(ctx, w64, PGDDS_AOP_MIN, uint64_t(1)).get(); }) ==
          PGDDS_ERR_UNSUPPORTED);
}

void run(pgdds::context &ctx)
{
    const int me = ctx.rank(), n = ctx.nranks();
    auto w64 = ctx.alloc_all<uint64_t>(1, true);
    auto w32 = ctx.alloc_all<uint32_t>(1, true);
    auto flags = ctx.alloc_all<uint64_t>(1, true);
    auto winner = ctx.alloc_all<uint64_t>(1, true);
    test_bad_input(ctx, w64);
    ctx.barrier();

    // C: every rank's adds in flight to every rank at once, then waited for.
    std::vector<uint64_t> old64(size_t(n) * per_target, ~uint64_t(0));
    std::vector<pgdds_request_t> reqs(old64.size(), nullptr);
    for (int i = 0; i < per_target; ++i)
        for (int r = 0; r < n; ++r) {
            size_t k = size_t(r) * per_target + size_t(i);
            CHECK(pgdds_atomic_u64_nb(ctx.handle(), w64.at(r).raw(), PGDDS_AOP_ADD, 1, &old64[k], &reqs[k]) == PGDDS_OK);
        }
    for (size_t k = 0; k < reqs.size(); ++k) {
        if (k % 2) {  // half by polling, half by waiting
            int done = 0;
            while (!done && pgdds_test(ctx.handle(), reqs[k], &done) == PGDDS_OK) {
            }
            CHECK(done == 1);
        } else {
            CHECK(pgdds_wait(ctx.handle(), reqs[k]) == PGDDS_OK);
        }
    }
    // Each target's old values: distinct here, and over all ranks exactly 0..n*per_target-1.
    const uint64_t total = uint64_t(n) * per_target;
    std::vector<uint64_t> sums(size_t(n), 0);
    for (int r = 0; r < n; ++r) {
        std::set<uint64_t> distinct;
        for (int i = 0; i < per_target; ++i) {
            uint64_t v = old64[size_t(r) * per_target + size_t(i)];
            CHECK(v < total);
            distinct.insert(v);
            sums[size_t(r)] += v;
        }
        CHECK(distinct.size() == size_t(per_target));
    }
    std::vector<uint64_t> all(sums.size());
    CHECK(pgdds_allreduce(ctx.handle(), sums.data(), all.data(), sums.size(), PGDDS_UINT64, PGDDS_OP_SUM) == PGDDS_OK);
    for (uint64_t s : all) CHECK(s == total * (total - 1) / 2);
    ctx.barrier();
    CHECK(*w64.local(ctx) == total);
    ctx.barrier();  // read before any rank swaps it

    // C++: futures of 32-bit adds, all in flight, then when_all.
    std::vector<pgdds::future<uint32_t>> futures;
    for (int i = 0; i < per_target; ++i)
        for (int r = 0; r < n; ++r) futures.push_back(pgdds::atomic_fetch_add_async(ctx, w32.at(r), uint32_t(1)));
    uint64_t mine = 0;
    for (auto &f : futures) {
        uint32_t v = f.get();
        CHECK(v < total);
        mine += v;
    }
    CHECK(ctx.sum(mine) == uint64_t(n) * (total * (total - 1) / 2));
    // then(): the old value of a fetch-or, chained.
    auto bit = pgdds::atomic_fetch_or_async(ctx, flags.at(0), uint64_t(1) << (me % 64))
                   .then([](uint64_t old) { return old != ~uint64_t(0); });
    CHECK(bit.get());
    // Compare-and-swap: exactly one rank's claim of rank 0's word wins.
    uint64_t old = pgdds::atomic_compare_exchange_async(ctx, winner.at(0), uint64_t(0), uint64_t(me + 1)).get();
    CHECK(ctx.sum(uint64_t(old == 0)) == 1);
    // Each rank swaps one word (its right neighbour's), which still holds the adds' total.
    CHECK(pgdds::atomic_exchange_async(ctx, w64.at((me + 1) % n), uint64_t(7)).get() == total);
    ctx.barrier();
    CHECK(*w32.local(ctx) == uint32_t(total));
    CHECK(*w64.local(ctx) == 7);
    if (me == 0) {
        uint64_t expect = n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
        CHECK(*flags.local(ctx) == expect);
        CHECK(*winner.local(ctx) >= 1 && *winner.local(ctx) <= uint64_t(n));
    }
    ctx.barrier();
    ctx.free_all(winner);
    ctx.free_all(flags);
    ctx.free_all(w32);
    ctx.free_all(w64);
}

}  // namespace

int main() { return cpp_test_main("core_api/async_atomics", run); }
