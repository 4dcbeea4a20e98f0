// The interface of libpgdds-cuda.so, the module of cuBLAS and cuSPARSE kernels that libpgdds
// loads at the first kernel on a matrix in GPU memory (kernels_cuda.cc): those libraries take
// about 0.2 s to load, which no program that never multiplies on a GPU should pay. C linkage and
// plain types only; a version in the entry point's name. Each function returns 0, or -1 (or -2
// where a size is beyond the library) with a message in err. Matrices are row-major, with
// leading dimensions in elements (kernels.h).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct pgdds_cuda_math_v2 {
    // C (m x n) = alpha A (m x k) B (k x n) + beta C; dtype is PGDDS_FLOAT or PGDDS_DOUBLE.
    int (*gemm)(int dev, int dtype, uint64_t m, uint64_t n, uint64_t k, double alpha, const void *a, uint64_t lda,
                const void *b, uint64_t ldb, double beta, void *c, uint64_t ldc, char *err, size_t errlen);
    // Y (rows x cols) = alpha X + beta Y (X may be Y).
    int (*geam)(int dev, int dtype, uint64_t rows, uint64_t cols, double alpha, const void *x, uint64_t ldx, double beta,
                void *y, uint64_t ldy, char *err, size_t errlen);
    // C = alpha A B + beta C, A CSR with 64-bit offsets and indices (cuSPARSE SpMM).
    int (*spmm)(int dev, int dtype, uint64_t rows, uint64_t kk, uint64_t cols, const uint64_t *offsets,
                const uint64_t *indices, const void *values, uint64_t nnz, const void *b, uint64_t ldb, double alpha,
                double beta, void *c, uint64_t ldc, char *err, size_t errlen);
    // P = alpha A B, A (m x k) and B (k x n) CSR with 64-bit offsets and indices in host memory,
    // by cuSPARSE SpGEMM on the device (which takes 32-bit indices: every dimension and entry
    // count below 2^31, else -2). P stays on the device, *product, with *nnz entries, until
    // spgemm_take copies it into host arrays (m + 1 offsets, nnz indices and values) and frees it.
    int (*spgemm)(int dev, int dtype, uint64_t m, uint64_t k, uint64_t n, const uint64_t *a_offsets,
                  const uint64_t *a_indices, const void *a_values, uint64_t a_nnz, const uint64_t *b_offsets,
                  const uint64_t *b_indices, const void *b_values, uint64_t b_nnz, double alpha, void **product,
                  uint64_t *nnz, char *err, size_t errlen);
    int (*spgemm_take)(void *product, uint64_t *offsets, uint64_t *indices, void *values, char *err, size_t errlen);
};

// The one symbol the module exports.
const pgdds_cuda_math_v2 *pgdds_cuda_math_v2_table(void);
}
