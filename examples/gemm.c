/* A distributed matrix product: C = A B over every rank, with A all ones and B(i, j) = j, so
 * that C(i, j) = k j. Each rank fills the tiles it holds; the product is one collective call;
 * any rank may then read any element.
 *
 *   pgdds-run -n 4 ./pgdds-gemm [n]
 */
#include <pgdds/matrix.h>
#include <pgdds/pgdds.h>

#include <stdio.h>
#include <stdlib.h>

static void ones(uint64_t i, uint64_t j, void *value, void *arg)
{
    (void)i, (void)j, (void)arg;
    *(double *)value = 1.0;
}

static void column_index(uint64_t i, uint64_t j, void *value, void *arg)
{
    (void)i, (void)arg;
    *(double *)value = (double)j;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 300;
    pgdds_context_t ctx;
    pgdds_status_t st = pgdds_init(NULL, &ctx);
    if (st != PGDDS_OK) {
        fprintf(stderr, "pgdds_init failed (%s): %s\n", pgdds_strerror(st), pgdds_last_error());
        return 1;
    }
    /* Square tiles of 64 over a near-square grid of the ranks: A, B and C conform. */
    pgdds_dmatrix_params_t p = {0};
    p.rows = p.cols = n;
    p.dtype = PGDDS_DOUBLE;
    p.distribution = PGDDS_DIST_BLOCK_CYCLIC;
    pgdds_dmatrix_t a, b, c;
    if (pgdds_dmatrix_create(ctx, &p, &a) != PGDDS_OK || pgdds_dmatrix_create(ctx, &p, &b) != PGDDS_OK ||
        pgdds_dmatrix_create(ctx, &p, &c) != PGDDS_OK || pgdds_dmatrix_fill(a, ones, NULL) != PGDDS_OK ||
        pgdds_dmatrix_fill(b, column_index, NULL) != PGDDS_OK ||
        pgdds_dmatrix_gemm(1.0, a, b, 0.0, c, PGDDS_GEMM_STATIONARY_C) != PGDDS_OK) {
        fprintf(stderr, "matrix: %s\n", pgdds_last_error());
        return 1;
    }
    /* Every rank checks one row of C. */
    int rank = pgdds_rank(ctx), bad = 0;
    uint64_t row = (uint64_t)rank * 7 % n;
    for (uint64_t j = 0; j < n; ++j) {
        double v;
        if (pgdds_dmatrix_get(c, row, j, &v) != PGDDS_OK || v != (double)n * (double)j) ++bad;
    }
    double last = 0;
    if (pgdds_dmatrix_get(c, row, n - 1, &last) != PGDDS_OK) ++bad;
    if (rank == 0) printf("C = A B for n = %llu on %d ranks: C(%llu, %llu) = %g\n", (unsigned long long)n,
                          pgdds_nranks(ctx), (unsigned long long)row, (unsigned long long)(n - 1), last);
    if (bad) fprintf(stderr, "rank %d: %d wrong elements in row %llu\n", rank, bad, (unsigned long long)row);
    pgdds_barrier(ctx);
    pgdds_dmatrix_destroy(a);
    pgdds_dmatrix_destroy(b);
    pgdds_dmatrix_destroy(c);
    pgdds_finalize(ctx);
    return bad ? 1 : 0;
}
