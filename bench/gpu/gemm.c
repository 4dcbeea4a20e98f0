/* Distributed GEMM on matrices in GPU memory (C = A B, n x n, square tiles of --tile, every
 * algorithm of pgdds_dmatrix_gemm_algorithm), beside one process's cuBLAS GEMM of the same
 * problem on the same device, measured by rank 0 in the same run while the others wait: the
 * peer figure for ranks that share one GPU. Reports TFLOP/s and the ratio to cuBLAS.
 * Run: PGDDS_GPU_SEGMENT_SIZE=4G pgdds-run -n 2 pgdds-gpu-gemm [--json] [--n N] [--tile T]
 *      [--dtype double|float] [--reps R] */
#include "products.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "pgdds-gpu-gemm: %s: %s\n", what, pgdds_last_error());
        exit(1);
    }
}
static void check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "pgdds-gpu-gemm: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

/* Small whole numbers, so that float and double give the same exact products. */
static void gen(uint64_t r, uint64_t c, void *out, void *arg)
{
    const double v = (double)((r * 7 + c * 3) % 5) - 2;
    if (*(const pgdds_dtype_t *)arg == PGDDS_FLOAT) *(float *)out = (float)v;
    else *(double *)out = v;
}

/* Seconds of one cuBLAS GEMM of n x n x n on this process's device (median of reps). */
static double cublas_seconds(uint64_t n, pgdds_dtype_t t, int reps)
{
    const size_t es = t == PGDDS_FLOAT ? 4 : 8, bytes = n * n * es;
    void *a, *b, *c;
    check_cuda(cudaMalloc(&a, bytes), "cudaMalloc");
    check_cuda(cudaMalloc(&b, bytes), "cudaMalloc");
    check_cuda(cudaMalloc(&c, bytes), "cudaMalloc");
    check_cuda(cudaMemset(a, 0, bytes), "cudaMemset");
    check_cuda(cudaMemset(b, 0, bytes), "cudaMemset");
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "pgdds-gpu-gemm: cublasCreate failed\n");
        exit(1);
    }
    double *s = malloc((size_t)(reps + 1) * sizeof *s);
    for (int r = 0; r <= reps; ++r) { /* the first is a warm-up */
        const double t0 = now_us();
        cublasStatus_t bs;
        if (t == PGDDS_FLOAT) {
            const float one = 1, zero = 0;
            bs = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &one, b, (int)n, a, (int)n, &zero, c, (int)n);
        } else {
            const double one = 1, zero = 0;
            bs = cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &one, b, (int)n, a, (int)n, &zero, c, (int)n);
        }
        check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        if (bs != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "pgdds-gpu-gemm: cuBLAS GEMM failed (%d)\n", (int)bs);
            exit(1);
        }
        s[r] = (now_us() - t0) * 1e-6;
    }
    const double sec = median_us(s + 1, reps);
    free(s);
    cublasDestroy(h);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return sec;
}

static pgdds_status_t gemm_once(pgdds_gemm_algorithm_t alg, void *arg)
{
    pgdds_dmatrix_t *m = arg;
    return pgdds_dmatrix_gemm(1.0, m[0], m[1], 0.0, m[2], alg);
}

int main(int argc, char **argv)
{
    uint64_t n = 8192, tile = 4096;
    int reps = 5;
    pgdds_dtype_t dtype = PGDDS_DOUBLE;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) report_json = 1;
        else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) n = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--tile") == 0 && i + 1 < argc) tile = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dtype") == 0 && i + 1 < argc) {
            ++i;
            dtype = strcmp(argv[i], "float") == 0 ? PGDDS_FLOAT : PGDDS_DOUBLE;
        } else {
            fprintf(stderr, "usage: pgdds-gpu-gemm [--json] [--n N] [--tile T] [--dtype double|float] [--reps R]\n");
            return 2;
        }
    }
    if (n == 0 || tile == 0 || reps < 1) {
        fprintf(stderr, "pgdds-gpu-gemm: --n, --tile and --reps must be positive\n");
        return 2;
    }
    pgdds_context_t ctx;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    const int me = pgdds_rank(ctx);
    const char *tname = dtype == PGDDS_FLOAT ? "float" : "double";
    const double flops = 2.0 * (double)n * (double)n * (double)n;

    double single = 0;
    if (me == 0) single = cublas_seconds(n, dtype, reps);
    check(pgdds_barrier(ctx), "pgdds_barrier");

    pgdds_dmatrix_params_t p = {.field_mask = PGDDS_DMATRIX_FIELD_TILE | PGDDS_DMATRIX_FIELD_MEMORY, .rows = n,
                                .cols = n, .dtype = dtype, .distribution = PGDDS_DIST_BLOCK_CYCLIC,
                                .tile_rows = tile, .tile_cols = tile, .memory = PGDDS_MEMORY_CUDA};
    pgdds_dmatrix_t a, b, c;
    check(pgdds_dmatrix_create(ctx, &p, &a), "pgdds_dmatrix_create A");
    check(pgdds_dmatrix_create(ctx, &p, &b), "pgdds_dmatrix_create B");
    check(pgdds_dmatrix_create(ctx, &p, &c), "pgdds_dmatrix_create C");
    check(pgdds_dmatrix_fill(a, gen, &dtype), "pgdds_dmatrix_fill A");
    check(pgdds_dmatrix_fill(b, gen, &dtype), "pgdds_dmatrix_fill B");

    static const struct product_alg algs[] = {
        {PGDDS_GEMM_STATIONARY_C, "stationary_c"}, {PGDDS_GEMM_STATIONARY_A, "stationary_a"},
        {PGDDS_GEMM_STATIONARY_B, "stationary_b"}, {PGDDS_GEMM_SUMMA, "summa"},
        {PGDDS_GEMM_STEAL_RANDOM, "steal_random"}, {PGDDS_GEMM_STEAL_LOCALITY, "steal_locality"}};
    pgdds_dmatrix_t abc[3] = {a, b, c};
    const struct product_report r = {.bench = "gpu_gemm", .peer = "cublas", .type = tname, .rate_name = "tflops",
                                     .unit = "TFLOP/s", .size = (size_t)n, .flops = flops, .peer_seconds = single,
                                     .scale = 1e-12};
    time_products(ctx, algs, sizeof algs / sizeof algs[0], gemm_once, abc, reps, &r);
    check(pgdds_dmatrix_destroy(c), "destroy");
    check(pgdds_dmatrix_destroy(b), "destroy");
    check(pgdds_dmatrix_destroy(a), "destroy");
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return 0;
}
