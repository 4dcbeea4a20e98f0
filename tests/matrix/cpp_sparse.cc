// The C++ face of the sparse matrices: pgdds::sparse_matrix<T> from triples (duplicates summed),
// a stencil, an R-MAT graph and a Matrix Market file; tiles, slices, spmm and spgemm against
// plain products, element-wise operations, transpose and sums, and pgdds::error for what the C
// ABI refuses.
#include <pgdds/sparse_matrix.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

#include "cpp_check.h"

template <class T> static void run(pgdds::context &ctx)
{
    const int me = ctx.rank(), n = ctx.nranks();
    typename pgdds::sparse_matrix<T>::layout sq;
    sq.tile_rows = sq.tile_cols = 3;
    // A 7 x 5 diagonal-ish matrix: every rank adds 1 to (i, i % 5) for every i.
    std::vector<uint64_t> ri, ci;
    std::vector<T> v;
    for (uint64_t i = 0; i < 7; ++i) ri.push_back(i), ci.push_back(i % 5), v.push_back(T(1));
    pgdds::sparse_matrix<T> a(ctx, 7, 5, ri, ci, v, sq);
    CHECK(a.rows() == 7 && a.cols() == 5 && a.nnz() == 7);
    std::vector<T> d = a.slice(0, 0, 7, 5);
    for (uint64_t i = 0; i < 7; ++i)
        for (uint64_t j = 0; j < 5; ++j) CHECK(d[i * 5 + j] == (j == i % 5 ? T(n) : T(0)));
    auto t = a.get_tile(0, 0);
    CHECK(t.row_offsets.size() == 4 && t.col_indices.size() == a.tile_nnz(0, 0) && t.values.size() == t.col_indices.size());

    // y = 2 A x - y, by every algorithm SpMM offers.
    pgdds::dense_matrix<T> x(ctx, 5, 2, sq), y(ctx, 7, 2, sq);
    x.fill([](uint64_t i, uint64_t j) { return T(i + 2 * j); });
    for (auto alg : {PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STATIONARY_A, PGDDS_GEMM_STATIONARY_B, PGDDS_GEMM_STEAL_RANDOM,
                     PGDDS_GEMM_STEAL_LOCALITY}) {
        y.fill([](uint64_t i, uint64_t j) { return T(i * j); });
        pgdds::spmm(T(2), a, x, T(-1), y, alg);
        std::vector<T> yv = y.slice(0, 0, 7, 2);
        for (uint64_t i = 0; i < 7; ++i)
            for (uint64_t j = 0; j < 2; ++j) CHECK(yv[i * 2 + j] == T(2 * n * ((i % 5) + 2 * j)) - T(i * j));
        ctx.barrier();  // every rank has read y before the next fill
    }
    CHECK(status_of([&] { pgdds::spmm(T(1), a, x, T(0), y, PGDDS_GEMM_SUMMA); }) == PGDDS_ERR_INVALID_ARG);

    // Generators and a Matrix Market round trip.
    auto s = pgdds::sparse_matrix<T>::stencil(ctx, 3, 3, 3, 27, sq);
    CHECK(s.rows() == 27 && s.nnz() == 7 * 7 * 7);

    // SpGEMM: a (7 x 5, entries n) times the 5 x 5 diagonal of n's, times 3: a's pattern with
    // entries 3 n^2, by each algorithm.
    std::vector<uint64_t> di, dj;
    std::vector<T> dv;
    for (uint64_t i = 0; i < 5; ++i)
        if (uint64_t(me) == i % uint64_t(n)) di.push_back(i), dj.push_back(i), dv.push_back(T(n));
    pgdds::sparse_matrix<T> diag(ctx, 5, 5, di, dj, dv, sq);
    for (auto alg : {PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STATIONARY_A, PGDDS_GEMM_STATIONARY_B, PGDDS_GEMM_STEAL_RANDOM,
                     PGDDS_GEMM_STEAL_LOCALITY}) {
        auto p = pgdds::spgemm(T(3), a, diag, sq, alg);
        CHECK(p.rows() == 7 && p.cols() == 5 && p.nnz() == 7);
        // Work stealing computes every step of the product once, over the ranks; others count none.
        const pgdds_matrix_steals_t st = p.steals();
        const uint64_t steps = ctx.sum(st.own_steps + st.stolen_steps);
        const bool stealing = alg == PGDDS_GEMM_STEAL_RANDOM || alg == PGDDS_GEMM_STEAL_LOCALITY;
        CHECK(steps == (stealing ? p.tile_grid_rows() * p.tile_grid_cols() * a.tile_grid_cols() : 0));
        std::vector<T> pv = p.slice(0, 0, 7, 5);
        for (uint64_t i = 0; i < 7; ++i)
            for (uint64_t j = 0; j < 5; ++j) CHECK(pv[i * 5 + j] == (j == i % 5 ? T(3 * n * n) : T(0)));
    }
    auto s2 = pgdds::spgemm(T(1), s, s, sq);  // the stencil squared: every pair of points within 2
    CHECK(s2.rows() == 27 && s2.nnz() == 27 * 27);
    CHECK(status_of([&] { pgdds::spgemm(T(1), a, a, sq); }) == PGDDS_ERR_INVALID_ARG);  // 7x5 by 7x5
    auto g = pgdds::sparse_matrix<T>::rmat(ctx, 5, 2, 7, sq);
    CHECK(g.rows() == 32 && g.nnz() >= 1 && g.nnz() <= 64);
    int64_t id = me == 0 ? int64_t(getpid()) : 0;
    id = ctx.max(id);
    std::string path = "/tmp/pgdds-matrix-cpp-" + std::to_string(id) + ".mtx";
    s.write_matrix_market(path);
    auto back = pgdds::sparse_matrix<T>::read_matrix_market(ctx, path, sq);
    CHECK(back.nnz() == s.nnz() && back.slice(0, 0, 27, 27) == s.slice(0, 0, 27, 27));
    ctx.barrier();
    if (me == 0) unlink(path.c_str());

    // Element-wise: scale, apply, reduce and norm over a's entries (n at (i, i % 5)), its
    // transpose and A + 2 A.
    a.scale(T(2));                                                    // 2n
    a.apply([](uint64_t i, uint64_t j, T x) { return T(x + T(i) - T(j)); });  // 2n + i - i % 5
    T want_sum = 0, want_max = 0;
    for (uint64_t i = 0; i < 7; ++i) {
        want_sum += T(2 * n + int(i) - int(i % 5));
        want_max = std::max(want_max, T(2 * n + int(i) - int(i % 5)));
    }
    CHECK(a.reduce(PGDDS_OP_SUM) == want_sum && a.reduce(PGDDS_OP_MAX) == want_max);
    CHECK(std::fabs(a.norm(PGDDS_NORM_MAX) - double(want_max)) < 1e-6);
    auto at = pgdds::transpose(a);
    CHECK(at.rows() == 5 && at.cols() == 7 && at.nnz() == 7);
    std::vector<T> av = a.slice(0, 0, 7, 5), atv = at.slice(0, 0, 5, 7);
    for (uint64_t i = 0; i < 7; ++i)
        for (uint64_t j = 0; j < 5; ++j) CHECK(atv[j * 7 + i] == av[i * 5 + j]);
    auto a3 = pgdds::add(T(1), a, T(2), a);
    std::vector<T> a3v = a3.slice(0, 0, 7, 5);
    for (uint64_t x = 0; x < 35; ++x) CHECK(a3v[x] == T(3 * av[x]));
    CHECK(status_of([&] { pgdds::add(T(1), a, T(1), at); }) == PGDDS_ERR_INVALID_ARG);  // 7x5 plus 5x7

    // What the C ABI refuses throws.
    CHECK(status_of([&] { a.get_tile(9, 0); }) == PGDDS_ERR_OUT_OF_BOUNDS);
    CHECK(status_of([&] { pgdds::spmm(T(1), a, y, T(0), x); }) == PGDDS_ERR_INVALID_ARG);  // 7x5 by 7x2
    CHECK(status_of([&] { pgdds::sparse_matrix<T> bad(ctx, 3, 3, {0}, {}, {T(1)}); }) == PGDDS_ERR_INVALID_ARG);
    CHECK(status_of([&] { pgdds::sparse_matrix<T>::read_matrix_market(ctx, "/nonexistent.mtx"); }) == PGDDS_ERR_NOT_FOUND);
    ctx.barrier();
}

int main()
{
    return cpp_test_main("matrix/cpp-sparse", [](pgdds::context &ctx) {
        run<float>(ctx);
        run<double>(ctx);
        run<int32_t>(ctx);
        run<int64_t>(ctx);
    });
}
