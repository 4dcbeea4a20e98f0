// The C++ face of symmetric memory and signals: context::alloc_all<T>, global_ptr::at,
// put_signal, wait_until/test_until, and pgdds::error for what the C ABI refuses.
#include <pgdds/pgdds.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cpp_check.h"

static int run(pgdds::context &ctx);

int main()
{
    try {
        pgdds::context ctx;
        return run(ctx);
    } catch (const pgdds::error &e) {
        bool absent = e.status() == PGDDS_ERR_UNSUPPORTED;  // a transport absent here: skip
        std::fprintf(stderr, "%s: pgdds::error %d: %s\n", absent ? "SKIP" : "FAIL", e.status(), e.what());
        return absent ? 77 : 1;
    }
}

static int run(pgdds::context &ctx)
{
    const int me = ctx.rank(), n = ctx.nranks();

    // Everyone counts on rank 0's copy.
    auto counter = ctx.alloc_all<uint64_t>(1, true);
    CHECK(counter.rank() == me);
    ctx.barrier();
    counter.at(0).fetch_add(1);
    ctx.barrier();
    if (me == 0) CHECK(counter.atomic_load() == uint64_t(n));

    // Typed atomics: a double sum and a signed minimum on rank 0.
    auto sum = ctx.alloc_all<double>(1, true);
    auto low = ctx.alloc_all<int64_t>(1, true);
    sum.at(0).fetch_add(0.5);
    low.at(0).fetch_min(-int64_t(me) - 1);
    ctx.barrier();
    if (me == 0) {
        CHECK(sum.fetch_add(0) == 0.5 * n);
        CHECK(low.fetch_max(INT64_MIN) == -int64_t(n));
        CHECK(sum.compare_exchange(0.5 * n, -1.0) == 0.5 * n);
        CHECK(sum.exchange(2.0) == -1.0);
    }
    CHECK(status_of([&] { sum.fetch_and(1.0); }) == PGDDS_ERR_INVALID_ARG);
    ctx.free_all(low);
    ctx.free_all(sum);

    // A ring of blocks, each delivered with its signal.
    auto block = ctx.alloc_all<int>(64, true);
    auto sig = ctx.alloc_all<uint64_t>(1, true);
    std::vector<int> out(64);
    for (int i = 0; i < 64; ++i) out[size_t(i)] = me * 100 + i;
    CHECK(!sig.test_until(PGDDS_CMP_NE, 0));
    ctx.barrier();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    block.at(right).put_signal(out.data(), out.size(), sig.at(right), 1);
    sig.wait_until(PGDDS_CMP_EQ, 1);
    const int *in = block.local();
    bool whole = in != nullptr;
    for (int i = 0; whole && i < 64; ++i) whole = in[i] == left * 100 + i;
    CHECK(whole);

    // Refusals are errors with the C ABI's status.
    CHECK(status_of([&] { block.at(n); }) == PGDDS_ERR_OUT_OF_BOUNDS);
    if (n > 1) CHECK(status_of([&] { sig.at(right).wait_until(PGDDS_CMP_EQ, 0); }) == PGDDS_ERR_INVALID_ARG);
    if (n > 1) CHECK(status_of([&] { ctx.alloc_all<char>(size_t(8 + me)); }) == PGDDS_ERR_INVALID_ARG);
    auto priv = ctx.alloc<uint64_t>();
    CHECK(status_of([&] { ctx.free_all(priv); }) == PGDDS_ERR_INVALID_ARG);
    ctx.free(priv);

    ctx.free_all(sig);
    ctx.free_all(block);
    ctx.free_all(counter);
    long total = ctx.sum(long(failures));
    if (me == 0) std::printf("core_api/cpp: %s on %d ranks (%ld failed checks)\n", total ? "FAILED" : "passed", n, total);
    return total ? 1 : 0;
}
