// The C++ face of the dense matrices: pgdds::dense_matrix<T> for every element type, fill from a
// lambda, tiles (blocking and through a future), elements, slices, local tiles, accumulation,
// gemm with every algorithm against a plain product of the same matrices, A^T A with A read
// transposed, transpose, add, scale, apply, reduce and norm, and pgdds::error for what the C ABI
// refuses.
#include <pgdds/dense_matrix.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "cpp_check.h"

template <class T> static T pattern(int seed, uint64_t i, uint64_t j)
{
    return T(int64_t((i * 31 + j * 7 + uint64_t(seed) * 13) % 97) - 40);
}

template <class T> static void run(pgdds::context &ctx)
{
    const int me = ctx.rank(), n = ctx.nranks();
    const uint64_t M = 11, K = 7, N = 9;
    typename pgdds::dense_matrix<T>::layout sq;
    sq.tile_rows = sq.tile_cols = 3;
    pgdds::dense_matrix<T> a(ctx, M, K, sq), b(ctx, K, N, sq), c(ctx, M, N, sq);
    a.fill([](uint64_t i, uint64_t j) { return pattern<T>(1, i, j); });
    b.fill([](uint64_t i, uint64_t j) { return pattern<T>(2, i, j); });
    CHECK(a.rows() == M && a.cols() == K && a.tile_grid_rows() == 4 && a.tile_grid_cols() == 3);

    // Tiles, blocking and in flight, agree with the elements.
    for (uint64_t ti = 0; ti < a.tile_grid_rows(); ++ti)
        for (uint64_t tj = 0; tj < a.tile_grid_cols(); ++tj) {
            auto shape = a.tile_shape(ti, tj);
            std::vector<T> t = a.get_tile(ti, tj);
            pgdds::tile_future<T> f = a.get_tile_async(ti, tj);
            std::vector<T> u = f.get();
            CHECK(t.size() == shape.first * shape.second && u == t);
            for (uint64_t r = 0; r < shape.first; ++r)
                for (uint64_t q = 0; q < shape.second; ++q)
                    CHECK(t[r * shape.second + q] == pattern<T>(1, ti * 3 + r, tj * 3 + q));
            if (a.tile_owner(ti, tj) == me) CHECK(a.local_tile(ti, tj)[0] == t[0]);
            else CHECK(status_of([&] { a.local_tile(ti, tj); }) == PGDDS_ERR_INVALID_ARG);
        }
    std::vector<T> s = a.slice(2, 1, 5, 4);
    for (uint64_t r = 0; r < 5; ++r)
        for (uint64_t q = 0; q < 4; ++q) CHECK(s[r * 4 + q] == pattern<T>(1, 2 + r, 1 + q));
    CHECK(a.get(M - 1, K - 1) == pattern<T>(1, M - 1, K - 1));

    // Every algorithm (one grid and one tiling for the three: SUMMA too): C = 2 A B - C, C
    // starting as pattern 3.
    std::vector<T> av = a.slice(0, 0, M, K), bv = b.slice(0, 0, K, N);
    for (int algo = 0; algo < 6; ++algo) {
        c.fill([](uint64_t i, uint64_t j) { return pattern<T>(3, i, j); });
        pgdds::gemm(T(2), a, b, T(-1), c, pgdds_gemm_algorithm_t(algo));
        std::vector<T> cv = c.slice(0, 0, M, N);
        for (uint64_t i = 0; i < M; ++i)
            for (uint64_t j = 0; j < N; ++j) {
                double want = -double(pattern<T>(3, i, j));
                for (uint64_t p = 0; p < K; ++p) want += 2.0 * double(av[i * K + p]) * double(bv[p * N + j]);
                CHECK(std::fabs(double(cv[i * N + j]) - want) <= 1e-5 * (std::fabs(want) + 1));
            }
        ctx.barrier();
    }

    // A^T A (K x K) with A read transposed in place, by stationary C and work stealing.
    {
        pgdds::dense_matrix<T> ata(ctx, K, K, sq);
        for (int algo : {int(PGDDS_GEMM_STATIONARY_C), int(PGDDS_GEMM_STEAL_LOCALITY)}) {
            pgdds::gemm(PGDDS_TRANS, PGDDS_NO_TRANS, T(1), a, a, T(0), ata, pgdds_gemm_algorithm_t(algo));
            std::vector<T> v = ata.slice(0, 0, K, K);
            for (uint64_t i = 0; i < K; ++i)
                for (uint64_t j = 0; j < K; ++j) {
                    double want = 0;
                    for (uint64_t p = 0; p < M; ++p) want += double(av[p * K + i]) * double(av[p * K + j]);
                    CHECK(std::fabs(double(v[i * K + j]) - want) <= 1e-5 * (std::fabs(want) + 1));
                }
            ctx.barrier();
        }
        CHECK(status_of([&] { pgdds::gemm(PGDDS_TRANS, PGDDS_NO_TRANS, T(1), a, b, T(0), ata); }) ==
              PGDDS_ERR_INVALID_ARG);  // A^T is 7 x 11, B 7 x 9
        ctx.barrier();
    }

    // Element-wise: A^T into a matrix of another layout, 2 A^T - A^T, scale, apply, reduce, norm.
    {
        typename pgdds::dense_matrix<T>::layout rows_layout;
        rows_layout.distribution = PGDDS_DIST_BLOCK_ROW;
        pgdds::dense_matrix<T> at(ctx, K, M, rows_layout), at2(ctx, K, M, sq);
        pgdds::transpose(a, at);
        pgdds::transpose(a, at2);
        pgdds::add(T(2), at, T(-1), at2);  // at2 = A^T again
        at2.scale(T(3));
        at2.apply([](uint64_t i, uint64_t j, T x) { return T(x - T(i) + T(j)); });
        std::vector<T> v = at2.slice(0, 0, K, M);
        T sum = 0, top = v[0];
        double frob = 0;
        for (uint64_t i = 0; i < K; ++i)
            for (uint64_t j = 0; j < M; ++j) {
                const T want = T(3 * av[j * K + i] - T(i) + T(j));
                CHECK(v[i * M + j] == want);
                sum = T(sum + want);
                top = std::max(top, want);
                frob += double(want) * double(want);
            }
        CHECK(at2.reduce(PGDDS_OP_SUM) == sum && at2.reduce(PGDDS_OP_MAX) == top);
        CHECK(std::fabs(at2.norm() - std::sqrt(frob)) <= 1e-5 * std::sqrt(frob));
        CHECK(status_of([&] { pgdds::transpose(a, c); }) == PGDDS_ERR_INVALID_ARG);  // A^T is 7 x 11, C 11 x 9
        // Column-major tiles: A^T again, its slices column-major, and A^T B-ish products by gemm.
        typename pgdds::dense_matrix<T>::layout cm = sq;
        cm.order = PGDDS_COL_MAJOR;
        pgdds::dense_matrix<T> atc(ctx, K, M, cm);
        CHECK(atc.order() == PGDDS_COL_MAJOR && at.order() == PGDDS_ROW_MAJOR);
        pgdds::transpose(a, atc);
        std::vector<T> cv = atc.slice(0, 0, K, M);  // column-major: (i, j) at j * K + i
        for (uint64_t i = 0; i < K; ++i)
            for (uint64_t j = 0; j < M; ++j) CHECK(cv[j * K + i] == av[j * K + i]);
        pgdds::dense_matrix<T> prod(ctx, K, K, cm);
        pgdds::gemm(T(1), atc, a, T(0), prod);  // A^T A, column-major
        std::vector<T> pv = prod.slice(0, 0, K, K);
        for (uint64_t i = 0; i < K; ++i)
            for (uint64_t j = 0; j < K; ++j) {
                double want = 0;
                for (uint64_t p = 0; p < M; ++p) want += double(av[p * K + i]) * double(av[p * K + j]);
                CHECK(std::fabs(double(pv[j * K + i]) - want) <= 1e-5 * (std::fabs(want) + 1));
            }
        CHECK(status_of([&] { (void)at2.norm(pgdds_norm_t(7)); }) == PGDDS_ERR_INVALID_ARG);
        // Views: A^T read in place by gemm through a's transposed view, and a part of at2.
        {
            auto atv = a.view(PGDDS_TRANS, 0, 0, K, M);
            pgdds::dense_matrix<T> ata(ctx, K, K, sq);
            pgdds::gemm(T(1), atv, a, T(0), ata);
            CHECK(ata.slice(0, 0, K, K) == prod.view(PGDDS_TRANS, 0, 0, K, K).slice(0, 0, K, K));
            auto part = at2.view(PGDDS_NO_TRANS, 1, 2, 3, 4);
            CHECK(part.rows() == 3 && part.cols() == 4 && part.order() == PGDDS_ROW_MAJOR);
            std::vector<T> pv2 = part.slice(0, 0, 3, 4);
            for (uint64_t i = 0; i < 3; ++i)
                for (uint64_t j = 0; j < 4; ++j) CHECK(pv2[i * 4 + j] == v[(1 + i) * M + 2 + j]);
            CHECK(status_of([&] { part.get_tile(0, 0); }) == PGDDS_ERR_INVALID_ARG);
            ctx.barrier();
        }
        ctx.barrier();
    }

    // Accumulation from every rank into tile (0, 0); puts of elements and slices.
    auto shape = c.tile_shape(0, 0);
    std::vector<T> before = c.get_tile(0, 0);
    ctx.barrier();
    c.accumulate_tile(0, 0, std::vector<T>(shape.first * shape.second, T(1)));
    ctx.barrier();
    std::vector<T> after = c.get_tile(0, 0);
    for (size_t x = 0; x < after.size(); ++x) CHECK(after[x] == T(before[x] + T(n)));
    ctx.barrier();
    // Two accumulations in flight from every rank into the same tile, polled, then waited for.
    {
        auto one = c.accumulate_tile_async(0, 0, std::vector<T>(shape.first * shape.second, T(1)));
        auto two = c.accumulate_tile_async(0, 0, std::vector<T>(shape.first * shape.second, T(2)));
        for (int i = 0; i < 3; ++i) (void)one.ready(), (void)two.ready();
        one.get();
        two.get();
    }
    ctx.barrier();
    std::vector<T> after_async = c.get_tile(0, 0);
    for (size_t x = 0; x < after_async.size(); ++x) CHECK(after_async[x] == T(after[x] + T(3 * n)));
    ctx.barrier();
    if (me == n - 1) {
        c.put(M - 1, 0, T(5));
        c.put_slice(0, N - 2, 2, 2, {T(1), T(2), T(3), T(4)});
        ctx.flush();
    }
    ctx.barrier();
    CHECK(c.get(M - 1, 0) == T(5));
    CHECK(c.slice(0, N - 2, 2, 2) == (std::vector<T>{T(1), T(2), T(3), T(4)}));

    // What the C ABI refuses throws, and changes nothing.
    ctx.barrier();
    CHECK(status_of([&] { c.get_tile(99, 0); }) == PGDDS_ERR_OUT_OF_BOUNDS);
    CHECK(status_of([&] { c.put_tile(0, 0, std::vector<T>(1)); }) == PGDDS_ERR_INVALID_ARG);
    CHECK(status_of([&] { c.get(M, 0); }) == PGDDS_ERR_OUT_OF_BOUNDS);
    CHECK(status_of([&] { pgdds::gemm(T(1), a, a, T(0), c); }) == PGDDS_ERR_INVALID_ARG);  // 11x7 by 11x7
    CHECK(status_of([&] { pgdds::gemm(T(1), a, b, T(0), c, pgdds_gemm_algorithm_t(9)); }) == PGDDS_ERR_INVALID_ARG);
    CHECK(c.get(M - 1, 0) == T(5));
    CHECK(status_of([&] { pgdds::dense_matrix<T> bad(ctx, 0, 3); }) == PGDDS_ERR_INVALID_ARG);
    ctx.barrier();
}

int main()
{
    return cpp_test_main("matrix/cpp", [](pgdds::context &ctx) {
        run<float>(ctx);
        run<double>(ctx);
        run<int32_t>(ctx);
        run<int64_t>(ctx);
    });
}
