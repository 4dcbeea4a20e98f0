/* What the GPU tests share: the one reason they may skip (no CUDA device, as the CUDA runtime
 * says), and CUDA calls that count a failure. */
#ifndef PGDDS_TEST_GPU_CHECK_H
#define PGDDS_TEST_GPU_CHECK_H

#include "harness.h"

#include <cuda_runtime_api.h>

/* Exits 77 when the CUDA runtime sees no device (no driver counts: no device can be used);
 * any other error of cudaGetDeviceCount is a failure. */
static inline void g_skip_without_device(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && count == 0)) {
        printf("SKIP: no CUDA device (cudaGetDeviceCount: %s)\n", e == cudaSuccess ? "0 devices" : cudaGetErrorName(e));
        exit(77);
    }
    if (e != cudaSuccess) {
        fprintf(stderr, "FAIL: cudaGetDeviceCount: %s: %s\n", cudaGetErrorName(e), cudaGetErrorString(e));
        exit(1);
    }
}

#define G_CUDA(expr)                                                                              \
    do {                                                                                          \
        cudaError_t g_e_ = (expr);                                                                \
        if (g_e_ != cudaSuccess) {                                                                \
            ++t_failures;                                                                         \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: %s\n", t_rank, __FILE__, __LINE__, #expr,    \
                    cudaGetErrorString(g_e_));                                                    \
        }                                                                                         \
    } while (0)

#endif
