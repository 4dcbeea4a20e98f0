/* Device-to-device put bandwidth between two ranks (rank 0 puts into rank 1's device segment),
 * beside the device's own cudaMemcpy device-to-device bandwidth measured by rank 0 in the same
 * run: the peer figure for ranks that share one GPU. Also host-to-device and device-to-host
 * puts. Run: PGDDS_GPU_SEGMENT_SIZE=1G PGDDS_SEGMENT_SIZE=1G pgdds-run -n 2 pgdds-gpu-put-bw [--json] [--max-size B]. */
#include "../micro/report.h"

#include <cuda_runtime_api.h>
#include <pgdds/pgdds.h>

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "pgdds-gpu-put-bw: %s: %s\n", what, pgdds_last_error());
        exit(1);
    }
}
static void check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "pgdds-gpu-put-bw: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

/* Median GB/s of `iters` transfers of `size` bytes. */
#define BANDWIDTH(gbps, size, iters, body)                                                        \
    do {                                                                                          \
        double us_;                                                                               \
        TIME_PER_ITER(us_, iters, body);                                                          \
        (gbps) = (double)(size) / (us_ * 1e3);                                                    \
    } while (0)

int main(int argc, char **argv)
{
    size_t max_size = (size_t)256 << 20;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) report_json = 1;
        else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc) max_size = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: pgdds-gpu-put-bw [--json] [--max-size BYTES]\n");
            return 2;
        }
    }
    pgdds_context_t ctx;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    const int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    if (n < 2) {
        fprintf(stderr, "pgdds-gpu-put-bw: needs 2 ranks\n");
        return 2;
    }
    pgdds_gptr_t mine, *all = malloc((size_t)n * sizeof *all);
    check(pgdds_alloc_kind(ctx, PGDDS_MEMORY_CUDA, max_size, 0, &mine), "pgdds_alloc_kind");
    check(pgdds_allgather(ctx, &mine, all, sizeof mine), "pgdds_allgather");
    pgdds_gptr_t host_mine, *host_all = malloc((size_t)n * sizeof *host_all);
    check(pgdds_alloc_kind(ctx, PGDDS_MEMORY_HOST, max_size, 0, &host_mine), "pgdds_alloc_kind host");
    check(pgdds_allgather(ctx, &host_mine, host_all, sizeof host_mine), "pgdds_allgather");
    void *src = NULL, *dst = NULL, *host = NULL;
    check_cuda(cudaMalloc(&src, max_size), "cudaMalloc");
    check_cuda(cudaMalloc(&dst, max_size), "cudaMalloc");
    check_cuda(cudaMallocHost(&host, max_size), "cudaMallocHost");
    check_cuda(cudaMemset(src, 1, max_size), "cudaMemset");
    const char *transport = pgdds_transport_name(ctx);
    check(pgdds_barrier(ctx), "pgdds_barrier");
    if (me == 0) {
        for (size_t size = 64 << 10; size <= max_size; size *= 4) {
            const long iters = size >= (16u << 20) ? 20 : 100;
            double d2d, memcpy_d2d, h2d, d2h;
            BANDWIDTH(d2d, size, iters, check(pgdds_put(ctx, all[1], src, size), "pgdds_put"));
            BANDWIDTH(memcpy_d2d, size, iters, {
                check_cuda(cudaMemcpy(dst, src, size, cudaMemcpyDeviceToDevice), "cudaMemcpy");
                check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); /* a D2D cudaMemcpy returns early */
            });
            BANDWIDTH(h2d, size, iters, check(pgdds_put(ctx, all[1], host, size), "pgdds_put"));
            BANDWIDTH(d2h, size, iters, check(pgdds_put(ctx, host_all[1], src, size), "pgdds_put"));
            report("gpu_put_bw", transport, n, 1, size, "put_device_to_device", d2d, "GB/s");
            report("gpu_put_bw", transport, n, 1, size, "cudaMemcpy_device_to_device", memcpy_d2d, "GB/s");
            report("gpu_put_bw", transport, n, 1, size, "put_ratio_to_cudaMemcpy", d2d / memcpy_d2d, "x");
            report("gpu_put_bw", transport, n, 1, size, "put_host_to_device", h2d, "GB/s");
            report("gpu_put_bw", transport, n, 1, size, "put_device_to_host", d2h, "GB/s");
        }
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");
    cudaFree(src);
    cudaFree(dst);
    cudaFreeHost(host);
    check(pgdds_free(ctx, mine), "pgdds_free");
    check(pgdds_free(ctx, host_mine), "pgdds_free");
    free(all);
    free(host_all);
    return pgdds_finalize(ctx) == PGDDS_OK ? 0 : 1;
}
