/* Distributed SpMM (C = A B, A sparse, B and C dense with K columns, double): the rate of
 * pgdds_smatrix_spmm_algorithm by every algorithm on an R-MAT graph (Graph500 parameters, edge
 * factor 16) or the 27-point stencil of an N^3 grid, each beside the inter-node roofline's
 * prediction (thesis §7.6); with --spgemm, the time of C = A A (pgdds_smatrix_spgemm) by each
 * algorithm beside its roofline (a lower bound on its time); with --graphblas, rank 0's single-process GraphBLAS GrB_mxm of the same matrices
 * (A B, and A A with --spgemm; the machine's limit when run as one process without a launcher,
 * which binds a rank to one core); with --write-mm, A as a Matrix Market file for
 * the PETSc peer (bench/matrix/petsc_matmult).
 *
 *   pgdds-run -n 2 bench/matrix/spmm (--rmat SCALE | --stencil N) [--cols K] [--reps N] [--json] [--graphblas]
 *             [--spgemm] [--write-mm PATH] [--mem-gbs B] [--net-gbs B] [--algorithm NAME]
 *   bench/matrix/spmm (--rmat SCALE | --stencil N) --graphblas-only [--cols K] [--reps N] [--json] [--spgemm]
 * (--graphblas-only: GraphBLAS alone, no algorithm of the library timed; run it directly.
 * --algorithm: that one only, stationary-c, stationary-a, stationary-b, steal-random or
 * steal-locality.)
 */
#include "model.h"

#include <pgdds/matrix.h>
#include <pgdds/pgdds.h>

#include <GraphBLAS.h>


static void gen(uint64_t i, uint64_t j, void *v, void *arg)
{
    (void)arg;
    *(double *)v = (double)((i * 7 + j * 3) % 11) / 11.0;
}

/* Rank 0's copy of A as one CSR matrix, assembled from the tiles, and B; then GrB_mxm, A B
 * (the rate returned) and, where spgemm_seconds is given, A A (a new product each time, as
 * pgdds_smatrix_spgemm makes one: the best time in it). */
static double graphblas_rate(pgdds_smatrix_t a, pgdds_dmatrix_t b, uint64_t n, uint64_t k, uint64_t nnz, uint64_t reps,
                             double *spgemm_seconds)
{
    pgdds_dmatrix_info_t info;
    pgdds_smatrix_info(a, &info, NULL);
    GrB_Index *ap = calloc(n + 1, sizeof *ap), *ai = malloc((nnz + 1) * sizeof *ai);
    double *ax = malloc((nnz + 1) * sizeof *ax), *bx = malloc(n * k * sizeof *bx);
    GrB_Index *bp = malloc((n + 1) * sizeof *bp), *bi = malloc(n * k * sizeof *bi);
    uint64_t at = 0;
    for (uint64_t ti = 0; ti < info.tile_grid_rows; ++ti) {
        uint64_t tr = 0;
        pgdds_smatrix_tile_shape(a, ti, 0, &tr, NULL, NULL, NULL);
        uint64_t **off = calloc(info.tile_grid_cols, sizeof *off), **idx = calloc(info.tile_grid_cols, sizeof *idx);
        double **val = calloc(info.tile_grid_cols, sizeof *val);
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj) {
            uint64_t tn = 0;
            pgdds_smatrix_tile_shape(a, ti, tj, NULL, NULL, &tn, NULL);
            off[tj] = malloc((tr + 1) * 8), idx[tj] = malloc(tn * 8 + 8), val[tj] = malloc(tn * 8 + 8);
            pgdds_smatrix_get_tile(a, ti, tj, off[tj], idx[tj], val[tj]);
        }
        for (uint64_t r = 0; r < tr; ++r) {
            for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj)
                for (uint64_t e = off[tj][r]; e < off[tj][r + 1]; ++e, ++at) {
                    ai[at] = tj * info.tile_cols + idx[tj][e];
                    ax[at] = val[tj][e];
                }
            ap[ti * info.tile_rows + r + 1] = at;
        }
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj) free(off[tj]), free(idx[tj]), free(val[tj]);
        free(off), free(idx), free(val);
    }
    pgdds_dmatrix_get_slice(b, 0, 0, n, k, bx, 0);
    for (uint64_t r = 0; r <= n; ++r) bp[r] = r * k;
    for (uint64_t x = 0; x < n * k; ++x) bi[x] = x % k;
    GrB_Matrix A = NULL, B = NULL, C = NULL;
    double best = 1e300;
    if (GrB_Matrix_import_FP64(&A, GrB_FP64, n, n, ap, ai, ax, n + 1, nnz, nnz, GrB_CSR_FORMAT) == GrB_SUCCESS &&
        GrB_Matrix_import_FP64(&B, GrB_FP64, n, k, bp, bi, bx, n + 1, n * k, n * k, GrB_CSR_FORMAT) == GrB_SUCCESS &&
        GrB_Matrix_new(&C, GrB_FP64, n, k) == GrB_SUCCESS)
        for (uint64_t r = 0; r < reps; ++r) {
            double t0 = model_seconds();
            GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, B, NULL);
            GrB_Matrix_wait(C, GrB_MATERIALIZE);
            double dt = model_seconds() - t0;
            if (dt < best) best = dt;
        }
    for (uint64_t r = 0; spgemm_seconds && A && r < reps; ++r) {
        GrB_Matrix AA = NULL;
        double t0 = model_seconds();
        if (GrB_Matrix_new(&AA, GrB_FP64, n, n) == GrB_SUCCESS &&
            GrB_mxm(AA, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, NULL) == GrB_SUCCESS)
            GrB_Matrix_wait(AA, GrB_MATERIALIZE);
        double dt = model_seconds() - t0;
        GrB_Matrix_free(&AA);
        if (r == 0 || dt < *spgemm_seconds) *spgemm_seconds = dt;
    }
    GrB_Matrix_free(&A), GrB_Matrix_free(&B), GrB_Matrix_free(&C);
    free(ap), free(ai), free(ax), free(bx), free(bp), free(bi);
    return 2.0 * (double)nnz * (double)k / best * 1e-9;
}

static const pgdds_gemm_algorithm_t algos[] = {PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STATIONARY_A, PGDDS_GEMM_STATIONARY_B,
                                               PGDDS_GEMM_STEAL_RANDOM, PGDDS_GEMM_STEAL_LOCALITY};
static const char *const algo_names[] = {"stationary-c", "stationary-a", "stationary-b", "steal-random", "steal-locality"};

/* For a work-stealing product (the counts of the others are zero): the share of its steps that
 * ranks computed for other ranks' tiles, in percent (bench "matrix-steals"). Collective. */
static void report_stolen(pgdds_context_t ctx, const char *transport, int p, size_t n, const char *metric,
                          const pgdds_matrix_steals_t *s)
{
    uint64_t mine[2] = {s->stolen_steps, s->own_steps + s->stolen_steps}, all[2] = {0, 0};
    pgdds_allreduce(ctx, mine, all, 2, PGDDS_UINT64, PGDDS_OP_SUM);
    if (all[1] && pgdds_rank(ctx) == 0) report("matrix-steals", transport, p, 1, n, metric, 100.0 * (double)all[0] / (double)all[1], "% stolen");
}

int main(int argc, char **argv)
{
    uint64_t scale = 0, grid = 0, k = 32, reps = 3, v = 0;
    int graphblas = 0, spgemm = 0, algorithms = 1, only = -1;
    const char *mm_path = NULL;
    double mem = 0, net = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) report_json = 1;
        else if (strcmp(argv[i], "--graphblas") == 0) graphblas = 1;
        else if (strcmp(argv[i], "--graphblas-only") == 0) graphblas = 1, algorithms = 0;
        else if (strcmp(argv[i], "--spgemm") == 0) spgemm = 1;
        else if (strcmp(argv[i], "--write-mm") == 0 && i + 1 < argc) mm_path = argv[++i];
        else if (strcmp(argv[i], "--algorithm") == 0 && i + 1 < argc) {
            ++i;
            for (int a = 0; a < 5; ++a)
                if (strcmp(argv[i], algo_names[a]) == 0) only = a;
            if (only < 0) scale = grid = 0, i = argc;
        }
        else if (strcmp(argv[i], "--rmat") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 30, &v)) scale = v, ++i;
        else if (strcmp(argv[i], "--stencil") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 1000, &v)) grid = v, ++i;
        else if (strcmp(argv[i], "--cols") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 4096, &v)) k = v, ++i;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 1000, &v)) reps = v, ++i;
        else if (strcmp(argv[i], "--mem-gbs") == 0 && i + 1 < argc && pgdds_cli_number(argv[i + 1], 0, 1e9, &mem)) ++i;
        else if (strcmp(argv[i], "--net-gbs") == 0 && i + 1 < argc && pgdds_cli_number(argv[i + 1], 0, 1e9, &net)) ++i;
        else scale = grid = 0, i = argc;
    }
    if (!scale == !grid) {
        fprintf(stderr, "usage: %s (--rmat SCALE | --stencil N) [--cols K] [--reps N] [--json] [--graphblas | "
                        "--graphblas-only] [--spgemm] [--write-mm PATH] [--mem-gbs B] [--net-gbs B] "
                        "[--algorithm NAME]\n", argv[0]);
        return 2;
    }
    pgdds_context_t ctx = NULL;
    if (pgdds_init(NULL, &ctx) != PGDDS_OK) {
        fprintf(stderr, "spmm: pgdds_init: %s\n", pgdds_last_error());
        return 1;
    }
    /* A in block rows, one tile row per rank (p x 1 grid), as PETSc's MPIAIJ rows: each rank
     * multiplies its rows by B, read in place on a node. (A 2D grid split A's columns as well,
     * and on two ranks made C one tile, on rank 0, which every product had to reach.) */
    int rank = pgdds_rank(ctx), p = pgdds_nranks(ctx), gr = p;
    const uint64_t n = scale ? UINT64_C(1) << scale : grid * grid * grid;
    const uint64_t tr = (n + (uint64_t)gr - 1) / (uint64_t)gr, tc = (n + (uint64_t)(p / gr) - 1) / (uint64_t)(p / gr);
    pgdds_dmatrix_params_t pa = {0}, pb = {0}, pc = {0}, pa2 = {0};
    pa.dtype = pb.dtype = pc.dtype = PGDDS_DOUBLE;
    pa.distribution = PGDDS_DIST_CUSTOM;
    pa.field_mask = PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE;
    pa.grid_rows = gr, pa.grid_cols = p / gr, pa.tile_rows = tr, pa.tile_cols = tc;
    /* B and C: K columns, tiles conforming with A's, dealt over an N x 1 grid. */
    pb = pa, pc = pa;
    pb.grid_rows = pc.grid_rows = p, pb.grid_cols = pc.grid_cols = 1;
    pb.rows = n, pb.cols = k, pb.tile_rows = tc, pb.tile_cols = k;
    pc.rows = n, pc.cols = k, pc.tile_rows = tr, pc.tile_cols = k;
    /* A A needs square tiles: n / 2p a side, a 2p x 2p tile grid dealt block-cyclically over
     * A's grid of ranks, so that every rank holds tiles of C (A's larger tile side would leave
     * one tile, on rank 0, on two ranks); of n / p, n / 2p and n / 4p, n / 2p was the fastest on
     * both matrices of bench/results/matrix-sparse.md. */
    pa2 = pa;
    pa2.tile_rows = pa2.tile_cols = (n + 2 * (uint64_t)p - 1) / (2 * (uint64_t)p);
    pgdds_smatrix_t A = NULL, A2 = NULL;
    pgdds_dmatrix_t B = NULL, C = NULL;
    pgdds_status_t st = scale ? pgdds_smatrix_rmat(ctx, &pa, (int)scale, 16, 1, &A)
                              : pgdds_smatrix_stencil(ctx, &pa, grid, grid, grid, 27, &A);
    if (st == PGDDS_OK) st = pgdds_dmatrix_create(ctx, &pb, &B);
    if (st == PGDDS_OK) st = pgdds_dmatrix_create(ctx, &pc, &C);
    if (st == PGDDS_OK) st = pgdds_dmatrix_fill(B, gen, NULL);
    if (st == PGDDS_OK && mm_path) st = pgdds_smatrix_write_mm(A, mm_path);
    if (st == PGDDS_OK && spgemm && algorithms)
        st = scale ? pgdds_smatrix_rmat(ctx, &pa2, (int)scale, 16, 1, &A2)
                   : pgdds_smatrix_stencil(ctx, &pa2, grid, grid, grid, 27, &A2);
    if (st != PGDDS_OK) {
        fprintf(stderr, "spmm: %s\n", pgdds_last_error());
        return 1;
    }
    uint64_t nnz = 0;
    pgdds_dmatrix_info_t info;
    pgdds_smatrix_info(A, &info, &nnz);

    /* The roofline of SpMM (thesis §7.6), per rank: 2 nnz K / p flops; from memory, its share of
     * A (a value and an index per entry) and of B and C (n K each); over the network, under
     * stationary C, A's share (each C tile row reads its A tile row once: C is one tile across)
     * and B once per C tile row, (p - 1) / p of it remote. The prediction is the flops over the
     * slower of the two times. */
    if (!mem) mem = model_measure_mem();
    if (!net) net = model_measure_net(ctx, B);
    double fig[2] = {mem, net};
    model_agree(ctx, fig, 2);
    mem = fig[0], net = fig[1];
    const double w = 8, P = (double)p, N = (double)n, K = (double)k, NNZ = (double)nnz;
    const double t_mem = (NNZ * (w + 8) + 2 * N * K * w) / P / (mem * 1e9);
    const double t_net = (NNZ * (w + 8) + (double)info.tile_grid_rows * N * K * w) / P * (P - 1) / P / (net * 1e9);
    const double roof = 2 * NNZ * K / (t_mem > t_net ? t_mem : t_net) * 1e-9;
    const char *transport = pgdds_transport_name(ctx);
    const char *mname = scale ? "rmat" : "stencil27";
    char metric[96];
    for (int a = 0; algorithms && a < 5; ++a) {
        if (only >= 0 && a != only) continue;
        double best = 1e300;
        for (uint64_t r = 0; r < reps; ++r) {
            pgdds_barrier(ctx);
            double t0 = model_seconds(), worst = 0;
            if (pgdds_smatrix_spmm_algorithm(1, A, B, 0, C, algos[a]) != PGDDS_OK) {
                fprintf(stderr, "spmm: %s: %s\n", algo_names[a], pgdds_last_error());
                return 1;
            }
            double dt = model_seconds() - t0;
            pgdds_allreduce(ctx, &dt, &worst, 1, PGDDS_DOUBLE, PGDDS_OP_MAX);
            if (worst < best) best = worst;
        }
        if (rank == 0) {
            snprintf(metric, sizeof metric, "spmm %s k=%llu %s", mname, (unsigned long long)k, algo_names[a]);
            report("matrix-spmm", transport, p, 1, (size_t)n, metric, 2.0 * NNZ * K / best * 1e-9, "GFLOP/s");
            snprintf(metric, sizeof metric, "spmm %s k=%llu %s roofline", mname, (unsigned long long)k, algo_names[a]);
            report("matrix-spmm", transport, p, 1, (size_t)n, metric, roof, "GFLOP/s");
        }
        pgdds_matrix_steals_t s;
        pgdds_dmatrix_steals(C, &s);
        snprintf(metric, sizeof metric, "spmm %s k=%llu %s", mname, (unsigned long long)k, algo_names[a]);
        report_stolen(ctx, transport, p, (size_t)n, metric, &s);
    }
    /* SpGEMM: C = A A by each algorithm, in seconds (its flops depend on the pattern). */
    double spgemm_cnnz = 0;
    for (int a = 0; spgemm && algorithms && a < 5; ++a) {
        if (only >= 0 && a != only) continue;
        double best = 1e300;
        uint64_t cnnz = 0;
        for (uint64_t r = 0; r < reps; ++r) {
            pgdds_smatrix_t P2 = NULL;
            pgdds_barrier(ctx);
            double t0 = model_seconds(), worst = 0;
            if (pgdds_smatrix_spgemm(1, A2, A2, &pa2, algos[a], &P2) != PGDDS_OK) {
                fprintf(stderr, "spgemm: %s: %s\n", algo_names[a], pgdds_last_error());
                return 1;
            }
            double dt = model_seconds() - t0;
            pgdds_allreduce(ctx, &dt, &worst, 1, PGDDS_DOUBLE, PGDDS_OP_MAX);
            if (worst < best) best = worst;
            pgdds_smatrix_info(P2, &info, &cnnz);
            if (r + 1 == reps) {
                pgdds_matrix_steals_t s;
                pgdds_smatrix_steals(P2, &s);
                snprintf(metric, sizeof metric, "spgemm %s A*A %s", mname, algo_names[a]);
                report_stolen(ctx, transport, p, (size_t)n, metric, &s);
            }
            pgdds_smatrix_destroy(P2);
        }
        spgemm_cnnz = (double)cnnz;
        if (rank == 0) {
            snprintf(metric, sizeof metric, "spgemm %s A*A nnz(C)=%llu %s", mname, (unsigned long long)cnnz, algo_names[a]);
            report("matrix-spgemm", transport, p, 1, (size_t)n, metric, best, "s");
        }
    }
    /* The roofline of SpGEMM, a lower bound on its time, per rank: from memory, its share of A
     * read twice (as A and as B) and of C written (an index and a value per entry); over the
     * network, under stationary C, each C tile reads its tile row of A and tile column of B, so
     * A is read once per tile column and B once per tile row, (p - 1) / p of it remote. */
    if (spgemm && algorithms && rank == 0) {
        pgdds_dmatrix_info_t i2;
        uint64_t nnz2 = 0;
        pgdds_smatrix_info(A2, &i2, &nnz2);
        const double A2b = (double)nnz2 * (w + 8);
        const double g_mem = (2 * A2b + spgemm_cnnz * (w + 8)) / P / (mem * 1e9);
        const double g_net = (A2b * (double)i2.tile_grid_cols + A2b * (double)i2.tile_grid_rows) / P * (P - 1) / P / (net * 1e9);
        snprintf(metric, sizeof metric, "spgemm %s A*A roofline", mname);
        report("matrix-spgemm", transport, p, 1, (size_t)n, metric, g_mem > g_net ? g_mem : g_net, "s");
    }
    if (rank == 0 && !report_json)
        printf("# model inputs (slowest rank): memory %.2f GB/s, one-sided get %.2f GB/s\n", mem, net);
    if (graphblas && rank == 0) {
        GrB_init(GrB_NONBLOCKING); /* started already by pgdds_smatrix_spmm: a second start is refused, harmlessly */
        double spgemm_s = 0;
        snprintf(metric, sizeof metric, "graphblas %s k=%llu", mname, (unsigned long long)k);
        report("matrix-spmm", "single-process", 1, 1, (size_t)n, metric,
               graphblas_rate(A, B, n, k, nnz, reps, spgemm ? &spgemm_s : NULL), "GFLOP/s");
        if (spgemm) {
            snprintf(metric, sizeof metric, "graphblas spgemm %s A*A", mname);
            report("matrix-spgemm", "single-process", 1, 1, (size_t)n, metric, spgemm_s, "s");
        }
    }
    pgdds_barrier(ctx);
    pgdds_smatrix_destroy(A);
    if (A2) pgdds_smatrix_destroy(A2);
    pgdds_dmatrix_destroy(B);
    pgdds_dmatrix_destroy(C);
    return pgdds_finalize(ctx) == PGDDS_OK ? 0 : 1;
}
