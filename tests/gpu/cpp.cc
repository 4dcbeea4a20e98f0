// The C++ face of memory kinds: ctx.alloc<T>(n, pgdds::memory::cuda) and global_ptr::kind(). In
// a context with a device segment the allocation succeeds and local() is its device address;
// without one it throws pgdds::error with PGDDS_ERR_UNSUPPORTED, and host allocations work in
// both.
#include <pgdds/pgdds.hpp>

#include <cstdio>

#include "cpp_check.h"

static void run(pgdds::context &ctx)
{
    int device = -2;
    CHECK(pgdds_gpu_device(ctx.handle(), &device) == PGDDS_OK);
    pgdds::global_ptr<double> h = ctx.alloc<double>(100, pgdds::memory::host);
    CHECK(h.kind() == pgdds::memory::host && h.local(ctx) != nullptr);
    ctx.free(h);
    if (device >= 0) {
        pgdds::global_ptr<double> d = ctx.alloc<double>(100, pgdds::memory::cuda);
        CHECK(d.kind() == pgdds::memory::cuda && d.rank() == ctx.rank() && d.local(ctx) != nullptr);
        double x = 2.5, y = 0;
        CHECK(pgdds_put(ctx.handle(), d.raw(), &x, sizeof x) == PGDDS_OK);
        CHECK(pgdds_get(ctx.handle(), &y, d.raw(), sizeof y) == PGDDS_OK && y == 2.5);
        ctx.free(d);
    } else {
        CHECK(status_of([&] { ctx.alloc<double>(100, pgdds::memory::cuda); }) == PGDDS_ERR_UNSUPPORTED);
    }
    ctx.barrier();
}

int main() { return cpp_test_main("gpu/cpp", run); }
