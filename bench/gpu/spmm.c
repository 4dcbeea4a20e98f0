/* Distributed SpMM on matrices in GPU memory: C = A B with A the 27-point stencil of an
 * n x n x n grid (the HPCG matrix) and B, C dense with --cols columns, tile rows dealt to the
 * ranks (a ranks x 1 grid), by every algorithm pgdds_smatrix_spmm_algorithm offers. The layout
 * "rows" (default) gives each rank one tile of A's rows, all columns, and B is one tile; "tiles"
 * cuts A into square tiles (a rank's tile row meets every B tile). Beside one
 * process's cuSPARSE SpMM of the same problem (the whole A, gathered from the tiles, the same
 * CSR format, 64-bit indices and algorithm) on the same device, measured by rank 0 in the same
 * run while the others wait. Reports GFLOP/s (2 nnz cols per product) and the ratio.
 * Run: PGDDS_GPU_SEGMENT_SIZE=4G pgdds-run -n 2 pgdds-gpu-spmm [--json] [--n N] [--cols W]
 *      [--dtype double|float] [--layout rows|tiles] [--reps R] */
#include "products.h"

#include <cuda_runtime_api.h>
#define DISABLE_CUSPARSE_DEPRECATED /* its deprecated types warn in C on every include */
#include <cusparse.h>

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "pgdds-gpu-spmm: %s: %s\n", what, pgdds_last_error());
        exit(1);
    }
}
static void check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "pgdds-gpu-spmm: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}
static void check_sparse(cusparseStatus_t s, const char *what)
{
    if (s != CUSPARSE_STATUS_SUCCESS) {
        fprintf(stderr, "pgdds-gpu-spmm: %s: %s\n", what, cusparseGetErrorString(s));
        exit(1);
    }
}

static void gen(uint64_t r, uint64_t c, void *out, void *arg)
{
    const double v = (double)((r + c) % 3) - 1;
    if (*(const pgdds_dtype_t *)arg == PGDDS_FLOAT) *(float *)out = (float)v;
    else *(double *)out = v;
}

/* The whole of A in CSR (host memory), gathered tile by tile. */
static void gather(pgdds_smatrix_t a, uint64_t **off, uint64_t **idx, void **val, uint64_t *nnz)
{
    pgdds_dmatrix_info_t in;
    uint64_t total = 0;
    check(pgdds_smatrix_info(a, &in, &total), "pgdds_smatrix_info");
    const size_t es = in.elem_size;
    *off = calloc(in.rows + 1, 8);
    *idx = malloc(total * 8 + 8);
    *val = malloc(total * es + es);
    uint64_t at = 0;
    for (uint64_t ti = 0; ti < in.tile_grid_rows; ++ti) {
        uint64_t trows = 0;
        check(pgdds_smatrix_tile_shape(a, ti, 0, &trows, NULL, NULL, NULL), "tile_shape");
        /* Each tile of the tile row, fetched once; rows are merged across them in column order. */
        uint64_t **tidx = calloc(in.tile_grid_cols, sizeof *tidx), **toffs = calloc(in.tile_grid_cols, sizeof *toffs);
        char **tval = calloc(in.tile_grid_cols, sizeof *tval);
        for (uint64_t tj = 0; tj < in.tile_grid_cols; ++tj) {
            uint64_t tnnz = 0;
            check(pgdds_smatrix_tile_shape(a, ti, tj, NULL, NULL, &tnnz, NULL), "tile_shape");
            toffs[tj] = malloc((trows + 1) * 8);
            tidx[tj] = malloc(tnnz * 8 + 8);
            tval[tj] = malloc(tnnz * es + es);
            check(pgdds_smatrix_get_tile(a, ti, tj, toffs[tj], tidx[tj], tval[tj]), "pgdds_smatrix_get_tile");
        }
        for (uint64_t r = 0; r < trows; ++r) {
            for (uint64_t tj = 0; tj < in.tile_grid_cols; ++tj)
                for (uint64_t e = toffs[tj][r]; e < toffs[tj][r + 1]; ++e) {
                    (*idx)[at] = tj * in.tile_cols + tidx[tj][e];
                    memcpy((char *)*val + at * es, tval[tj] + e * es, es);
                    ++at;
                }
            (*off)[ti * in.tile_rows + r + 1] = at;
        }
        for (uint64_t tj = 0; tj < in.tile_grid_cols; ++tj) free(toffs[tj]), free(tidx[tj]), free(tval[tj]);
        free(toffs), free(tidx), free(tval);
    }
    *nnz = at;
}

/* Seconds of one cuSPARSE SpMM of the whole problem on this process's device (median of reps). */
static double cusparse_seconds(pgdds_smatrix_t a, uint64_t w, pgdds_dtype_t t, int reps)
{
    uint64_t *off, *idx, nnz;
    void *val;
    gather(a, &off, &idx, &val, &nnz);
    pgdds_dmatrix_info_t in;
    check(pgdds_smatrix_info(a, &in, NULL), "pgdds_smatrix_info");
    const size_t es = in.elem_size, n = in.rows;
    void *doff, *didx, *dval, *b, *c, *work = NULL;
    check_cuda(cudaMalloc(&doff, (n + 1) * 8), "cudaMalloc");
    check_cuda(cudaMalloc(&didx, nnz * 8), "cudaMalloc");
    check_cuda(cudaMalloc(&dval, nnz * es), "cudaMalloc");
    check_cuda(cudaMalloc(&b, n * w * es), "cudaMalloc");
    check_cuda(cudaMalloc(&c, n * w * es), "cudaMalloc");
    check_cuda(cudaMemcpy(doff, off, (n + 1) * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
    check_cuda(cudaMemcpy(didx, idx, nnz * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
    check_cuda(cudaMemcpy(dval, val, nnz * es, cudaMemcpyHostToDevice), "cudaMemcpy");
    check_cuda(cudaMemset(b, 0, n * w * es), "cudaMemset");
    free(off), free(idx), free(val);
    const cudaDataType dt = t == PGDDS_FLOAT ? CUDA_R_32F : CUDA_R_64F;
    const float onef = 1, zerof = 0;
    const double oned = 1, zerod = 0;
    const void *one = t == PGDDS_FLOAT ? (const void *)&onef : (const void *)&oned;
    const void *zero = t == PGDDS_FLOAT ? (const void *)&zerof : (const void *)&zerod;
    cusparseHandle_t h;
    cusparseSpMatDescr_t A;
    cusparseDnMatDescr_t B, C;
    check_sparse(cusparseCreate(&h), "cusparseCreate");
    check_sparse(cusparseCreateCsr(&A, (int64_t)n, (int64_t)n, (int64_t)nnz, doff, didx, dval, CUSPARSE_INDEX_64I,
                                   CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, dt), "cusparseCreateCsr");
    check_sparse(cusparseCreateDnMat(&B, (int64_t)n, (int64_t)w, (int64_t)w, b, dt, CUSPARSE_ORDER_ROW), "CreateDnMat");
    check_sparse(cusparseCreateDnMat(&C, (int64_t)n, (int64_t)w, (int64_t)w, c, dt, CUSPARSE_ORDER_ROW), "CreateDnMat");
    size_t need = 0;
    check_sparse(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, B,
                                         zero, C, dt, CUSPARSE_SPMM_CSR_ALG2, &need), "cusparseSpMM_bufferSize");
    if (need) check_cuda(cudaMalloc(&work, need), "cudaMalloc");
    double *s = malloc((size_t)(reps + 1) * sizeof *s);
    for (int r = 0; r <= reps; ++r) { /* the first is a warm-up */
        const double t0 = now_us();
        check_sparse(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, B, zero,
                                  C, dt, CUSPARSE_SPMM_CSR_ALG2, work), "cusparseSpMM");
        check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        s[r] = (now_us() - t0) * 1e-6;
    }
    const double sec = median_us(s + 1, reps);
    free(s);
    cusparseDestroyDnMat(C), cusparseDestroyDnMat(B), cusparseDestroySpMat(A), cusparseDestroy(h);
    cudaFree(work), cudaFree(c), cudaFree(b), cudaFree(dval), cudaFree(didx), cudaFree(doff);
    return sec;
}

struct operands {
    pgdds_smatrix_t a;
    pgdds_dmatrix_t b, c;
};
static pgdds_status_t spmm_once(pgdds_gemm_algorithm_t alg, void *arg)
{
    struct operands *o = arg;
    return pgdds_smatrix_spmm_algorithm(1.0, o->a, o->b, 0.0, o->c, alg);
}

int main(int argc, char **argv)
{
    uint64_t side = 128, w = 64;
    int reps = 7;
    pgdds_dtype_t dtype = PGDDS_DOUBLE;
    int square = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) report_json = 1;
        else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) side = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--cols") == 0 && i + 1 < argc) w = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dtype") == 0 && i + 1 < argc) {
            ++i;
            dtype = strcmp(argv[i], "float") == 0 ? PGDDS_FLOAT : PGDDS_DOUBLE;
        } else if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc) {
            ++i;
            square = strcmp(argv[i], "tiles") == 0;
        } else {
            fprintf(stderr, "usage: pgdds-gpu-spmm [--json] [--n N] [--cols W] [--dtype double|float] "
                            "[--layout rows|tiles] [--reps R]\n");
            return 2;
        }
    }
    if (side == 0 || w == 0 || reps < 1) {
        fprintf(stderr, "pgdds-gpu-spmm: --n, --cols and --reps must be positive\n");
        return 2;
    }
    pgdds_context_t ctx;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    const int me = pgdds_rank(ctx), nr = pgdds_nranks(ctx);
    char tname[32];
    snprintf(tname, sizeof tname, "%s_%s", dtype == PGDDS_FLOAT ? "float" : "double", square ? "tiles" : "rows");
    const uint64_t n = side * side * side, tile = (n + (uint64_t)nr - 1) / (uint64_t)nr;

    /* A: tile rows of n / ranks, dealt one per rank, each one tile ("rows") or ranks square tiles
     * ("tiles") wide; B: as many tile rows as A has tile columns; C: A's tile rows; one tile
     * column of w for both. */
    pgdds_dmatrix_params_t pa = {.field_mask = PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE | PGDDS_DMATRIX_FIELD_MEMORY,
                                 .rows = n, .cols = n, .dtype = dtype, .distribution = PGDDS_DIST_CUSTOM,
                                 .grid_rows = nr, .grid_cols = 1, .tile_rows = tile, .tile_cols = square ? tile : n,
                                 .memory = PGDDS_MEMORY_CUDA};
    pgdds_dmatrix_params_t pb = pa, pc = pa;
    pb.cols = pc.cols = w;
    pb.tile_cols = pc.tile_cols = w;
    pb.tile_rows = pa.tile_cols;
    pgdds_smatrix_t a;
    pgdds_dmatrix_t b, c;
    check(pgdds_smatrix_stencil(ctx, &pa, side, side, side, 27, &a), "pgdds_smatrix_stencil");
    check(pgdds_dmatrix_create(ctx, &pb, &b), "pgdds_dmatrix_create B");
    check(pgdds_dmatrix_create(ctx, &pc, &c), "pgdds_dmatrix_create C");
    check(pgdds_dmatrix_fill(b, gen, &dtype), "pgdds_dmatrix_fill B");
    uint64_t nnz = 0;
    check(pgdds_smatrix_info(a, &(pgdds_dmatrix_info_t){0}, &nnz), "pgdds_smatrix_info");
    const double flops = 2.0 * (double)nnz * (double)w;

    double single = 0;
    if (me == 0) single = cusparse_seconds(a, w, dtype, reps);
    check(pgdds_barrier(ctx), "pgdds_barrier");

    static const struct product_alg algs[] = {
        {PGDDS_GEMM_STATIONARY_C, "stationary_c"}, {PGDDS_GEMM_STATIONARY_A, "stationary_a"},
        {PGDDS_GEMM_STATIONARY_B, "stationary_b"}, {PGDDS_GEMM_STEAL_RANDOM, "steal_random"},
        {PGDDS_GEMM_STEAL_LOCALITY, "steal_locality"}};
    struct operands ops = {a, b, c};
    const struct product_report r = {.bench = "gpu_spmm", .peer = "cusparse", .type = tname, .rate_name = "gflops",
                                     .unit = "GFLOP/s", .size = (size_t)n, .flops = flops, .peer_seconds = single,
                                     .scale = 1e-9};
    time_products(ctx, algs, sizeof algs / sizeof algs[0], spmm_once, &ops, reps, &r);
    check(pgdds_dmatrix_destroy(c), "destroy");
    check(pgdds_dmatrix_destroy(b), "destroy");
    check(pgdds_smatrix_destroy(a), "destroy");
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return 0;
}
