/* Distributed dense GEMM (C = A B, double, n x n x n): the rate of each algorithm of
 * pgdds_dmatrix_gemm, and beside it the inter-node roofline prediction of the BCL thesis (§7.3,
 * §7.6), from this machine's measured local GEMM peak, memory bandwidth and one-sided get
 * bandwidth (or the figures given). With --openblas, rank 0 also times a single-process OpenBLAS
 * dgemm of the same size. The machine's limit is that dgemm with every core: --openblas-only
 * times it alone, without the library (run it directly, not under a launcher, which binds a
 * rank to one core).
 *
 *   pgdds-run -n 2 bench/matrix/gemm 2048 [--json] [--reps N] [--tile T] [--openblas]
 *             [--peak-gflops G] [--mem-gbs B] [--net-gbs B]
 *   bench/matrix/gemm 2048 --openblas-only [--json] [--reps N]
 */
#include "model.h"

#include <pgdds/matrix.h>
#include <pgdds/pgdds.h>

#include <cblas.h>
#include <math.h>

static const char *const algo_names[] = {"stationary-C", "stationary-A", "stationary-B", "SUMMA", "steal-random",
                                         "steal-locality"};

static void gen(uint64_t i, uint64_t j, void *v, void *arg)
{
    *(double *)v = (double)((i * 31 + j * 7 + (uint64_t)(uintptr_t)arg) % 97) / 97.0;
}


/* The local GEMM peak of one rank, GFLOP/s: OpenBLAS on one tile-sized product. */
static double measure_local_peak(int t)
{
    size_t e = (size_t)t * (size_t)t;
    double *a = calloc(e, 8), *b = calloc(e, 8), *c = calloc(e, 8);
    double best = 0;
    for (int r = 0; r < 3; ++r) {
        double t0 = model_seconds();
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, t, t, t, 1, a, t, b, t, 1, c, t);
        double dt = model_seconds() - t0;
        if (dt > 0 && 2.0 * t * t * t / dt * 1e-9 > best) best = 2.0 * t * t * t / dt * 1e-9;
    }
    free(a), free(b), free(c);
    return best;
}

/* The best of `reps` single-process OpenBLAS dgemms of n x n x n, reported. */
static void time_openblas(uint64_t n, uint64_t reps)
{
    const double N = (double)n;
    size_t e = (size_t)n * n;
    double *a = malloc(e * 8), *b = malloc(e * 8), *c = malloc(e * 8), best = 1e300;
    for (size_t x = 0; x < e; ++x) a[x] = b[x] = (double)(x % 97) / 97.0;
    for (uint64_t r = 0; r < reps; ++r) {
        double t0 = model_seconds();
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1, a, (int)n, b, (int)n, 0, c, (int)n);
        double dt = model_seconds() - t0;
        if (dt < best) best = dt;
    }
    report("matrix-gemm", "single-process", 1, 1, (size_t)n, "openblas-dgemm", 2 * N * N * N / best * 1e-9, "GFLOP/s");
    free(a), free(b), free(c);
}

int main(int argc, char **argv)
{
    uint64_t n = 0, reps = 3, tile = 0;
    double peak = 0, mem = 0, net = 0;
    int openblas = 0, openblas_only = 0;
    for (int i = 1; i < argc; ++i) {
        uint64_t v = 0;
        if (strcmp(argv[i], "--json") == 0) report_json = 1;
        else if (strcmp(argv[i], "--openblas") == 0) openblas = 1;
        else if (strcmp(argv[i], "--openblas-only") == 0) openblas_only = 1;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 1000, &v)) reps = v, ++i;
        else if (strcmp(argv[i], "--tile") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 1 << 20, &v)) tile = v, ++i;
        else if (strcmp(argv[i], "--peak-gflops") == 0 && i + 1 < argc && pgdds_cli_number(argv[i + 1], 0, 1e9, &peak)) ++i;
        else if (strcmp(argv[i], "--mem-gbs") == 0 && i + 1 < argc && pgdds_cli_number(argv[i + 1], 0, 1e9, &mem)) ++i;
        else if (strcmp(argv[i], "--net-gbs") == 0 && i + 1 < argc && pgdds_cli_number(argv[i + 1], 0, 1e9, &net)) ++i;
        else if (!n && pgdds_cli_whole(argv[i], 1, 1 << 20, &v)) n = v;
        else n = 0, i = argc;
    }
    if (!n) {
        fprintf(stderr, "usage: %s N [--json] [--reps N] [--tile T] [--openblas | --openblas-only] [--peak-gflops G] "
                        "[--mem-gbs B] [--net-gbs B]\n", argv[0]);
        return 2;
    }
    if (openblas_only) {
        time_openblas(n, reps);
        return 0;
    }
    pgdds_context_t ctx = NULL;
    if (pgdds_init(NULL, &ctx) != PGDDS_OK) {
        fprintf(stderr, "gemm: pgdds_init: %s\n", pgdds_last_error());
        return 1;
    }
    int rank = pgdds_rank(ctx), p = pgdds_nranks(ctx);
    /* Square tiles over the near-square grid: one per rank and dimension unless --tile. */
    pgdds_dmatrix_params_t prm;
    memset(&prm, 0, sizeof prm);
    prm.rows = prm.cols = n;
    prm.dtype = PGDDS_DOUBLE;
    prm.distribution = PGDDS_DIST_BLOCK_CYCLIC;
    prm.field_mask = PGDDS_DMATRIX_FIELD_TILE;
    int gr = 1;
    for (int d = 1; d * d <= p; ++d)
        if (p % d == 0) gr = d;
    prm.tile_rows = prm.tile_cols = tile ? tile : (n + (uint64_t)(p / gr) - 1) / (uint64_t)(p / gr);
    pgdds_dmatrix_t A = NULL, B = NULL, C = NULL;
    if (pgdds_dmatrix_create(ctx, &prm, &A) != PGDDS_OK || pgdds_dmatrix_create(ctx, &prm, &B) != PGDDS_OK ||
        pgdds_dmatrix_create(ctx, &prm, &C) != PGDDS_OK) {
        fprintf(stderr, "gemm: pgdds_dmatrix_create: %s\n", pgdds_last_error());
        return 1;
    }
    pgdds_dmatrix_fill(A, gen, (void *)(uintptr_t)1);
    pgdds_dmatrix_fill(B, gen, (void *)(uintptr_t)2);

    /* The machine's figures, measured unless given (the slowest rank's, as the model is per rank). */
    const int t = (int)prm.tile_rows;
    if (!peak) peak = measure_local_peak(t);
    if (!mem) mem = model_measure_mem();
    if (!net) net = model_measure_net(ctx, A);
    double fig[3] = {peak, mem, net};
    model_agree(ctx, fig, 3);
    peak = fig[0], mem = fig[1], net = fig[2];

    /* The inter-node roofline (thesis §7.3): per rank and iteration, 2mkn/(p sqrt p) + mn/p flops
     * over the bytes that move: A and B tiles for stationary-C, B and C for stationary-A, A and C
     * for stationary-B and, like stationary-C, A and B for SUMMA and the stealing variants. The local roof is the local
     * GEMM's intensity (A, B and C from memory) times the memory bandwidth, capped by the peak. */
    const double N = (double)n, w = 8, P = (double)p, sp = sqrt(P);
    const double flops = 2 * N * N * N / (P * sp) + N * N / P;
    const double local_roof = fmin(peak, flops / (w * 3 * N * N / P) * mem);
    const char *transport = pgdds_transport_name(ctx);
    for (int algo = 0; algo < 6; ++algo) {
        double best = 1e300;
        for (uint64_t r = 0; r < reps; ++r) {
            pgdds_barrier(ctx);
            double t0 = model_seconds();
            pgdds_status_t st = pgdds_dmatrix_gemm(1, A, B, 0, C, (pgdds_gemm_algorithm_t)algo);
            double dt = model_seconds() - t0, worst = 0;
            if (st != PGDDS_OK) {
                fprintf(stderr, "gemm: %s: %s\n", algo_names[algo], pgdds_last_error());
                return 1;
            }
            pgdds_allreduce(ctx, &dt, &worst, 1, PGDDS_DOUBLE, PGDDS_OP_MAX);
            if (worst < best) best = worst;
        }
        const double moved = p == 1 ? 0 : w * 2 * N * N / P; /* two tiles per iteration, per rank */
        const double roof = P * (moved > 0 ? fmin(local_roof, flops / moved * net) : local_roof);
        char metric[64];
        if (rank == 0) {
            snprintf(metric, sizeof metric, "%s", algo_names[algo]);
            report("matrix-gemm", transport, p, 1, (size_t)n, metric, 2 * N * N * N / best * 1e-9, "GFLOP/s");
            snprintf(metric, sizeof metric, "%s roofline", algo_names[algo]);
            report("matrix-gemm", transport, p, 1, (size_t)n, metric, roof, "GFLOP/s");
        }
    }
    if (openblas && rank == 0) time_openblas(n, reps);
    if (rank == 0 && !report_json)
        printf("# model inputs (slowest rank): local GEMM peak %.2f GFLOP/s, memory %.2f GB/s, one-sided get %.2f GB/s\n",
               peak, mem, net);
    pgdds_barrier(ctx);
    pgdds_dmatrix_destroy(A);
    pgdds_dmatrix_destroy(B);
    pgdds_dmatrix_destroy(C);
    return pgdds_finalize(ctx) == PGDDS_OK ? 0 : 1;
}
