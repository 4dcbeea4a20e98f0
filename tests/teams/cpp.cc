// The C++ face of teams: pgdds::team from a context's world and node, splits that own their
// teams, every collective with exact results, and pgdds::error for what the C ABI refuses.
#include <pgdds/pgdds.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "cpp_check.h"

static void run(pgdds::context &ctx)
{
    const int me = ctx.rank(), n = ctx.nranks();
    pgdds::team world = ctx.world();
    CHECK(world.rank() == me && world.size() == n);
    CHECK(ctx.node().size() == n);  // one node here

    // Rows of two and their columns.
    auto [row, col] = world.split_2d(2);
    CHECK(row.rank() == me % 2 && col.rank() == me / 2);
    CHECK(row.allreduce(int64_t(1), PGDDS_OP_SUM) == row.size());
    CHECK(col.allreduce(double(me), PGDDS_OP_MAX) == double(me % 2 + 2 * (col.size() - 1)));
    CHECK(col.translate(0, world) == me % 2);

    // The odd ranks; the even ones get an empty team.
    pgdds::team odd = world.split_strided(1, 2, n / 2);
    CHECK(bool(odd) == (me % 2 == 1));
    if (odd) {
        std::vector<int32_t> got = odd.allgather(int32_t(me));
        for (int i = 0; i < odd.size(); ++i) CHECK(got[size_t(i)] == 2 * i + 1);
        CHECK(odd.broadcast(uint64_t(me) * 3, odd.size() - 1) == uint64_t(2 * odd.size() - 1) * 3);
        odd.barrier();
    }

    // Vectors: all-to-all(-v), allgather-v, reduce to a root.
    std::vector<uint32_t> out(size_t(n) * 2);
    for (int r = 0; r < n; ++r) out[size_t(r) * 2] = out[size_t(r) * 2 + 1] = uint32_t(100 * me + r);
    std::vector<uint32_t> in = world.alltoall(out);
    for (int r = 0; r < n; ++r) CHECK(in[size_t(r) * 2] == uint32_t(100 * r + me) && in[size_t(r) * 2 + 1] == in[size_t(r) * 2]);
    std::vector<size_t> counts(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) counts[size_t(r)] = size_t(r);
    std::vector<float> all = world.allgatherv(std::vector<float>(size_t(me), float(me)), counts);
    size_t at = 0;
    for (int r = 0; r < n; ++r)
        for (int k = 0; k < r; ++k) CHECK(all[at++] == float(r));
    std::vector<size_t> ones(size_t(n), 1);
    std::vector<int64_t> swapped = world.alltoallv(std::vector<int64_t>(size_t(n), -me), ones, ones);
    for (int r = 0; r < n; ++r) CHECK(swapped[size_t(r)] == -r);
    int64_t v[2] = {me, -me}, total[2] = {0, 0};
    world.reduce(v, total, 2, PGDDS_OP_SUM, n - 1);
    if (me == n - 1) CHECK(total[0] == int64_t(n) * (n - 1) / 2 && total[1] == -total[0]);
    else CHECK(total[0] == 0 && total[1] == 0);

    // Refusals.
    CHECK(status_of([&] { world.broadcast(int(0), n); }) == PGDDS_ERR_OUT_OF_BOUNDS);
    CHECK(status_of([&] { pgdds::team().barrier(); }) == PGDDS_ERR_INVALID_ARG);
    CHECK(status_of([&] { world.alltoall(std::vector<int>(size_t(n) + 1)); }) == PGDDS_ERR_INVALID_ARG || n == 1);
    CHECK(status_of([&] { world.allgatherv(std::vector<int>(size_t(n) + 1), counts); }) == PGDDS_ERR_INVALID_ARG);
    // A mismatch throws on every rank.
    CHECK(status_of([&] { world.allreduce(int32_t(1), me == 0 ? PGDDS_OP_MIN : PGDDS_OP_MAX); }) ==
          (n > 1 ? PGDDS_ERR_INVALID_ARG : PGDDS_OK));
    world.barrier();
}

int main() { return cpp_test_main("teams/cpp", run); }
