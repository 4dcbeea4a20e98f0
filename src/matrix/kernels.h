// Local tile kernels, typed by the matrix's element type: CBLAS (OpenBLAS) for float and double;
// CBLAS has no integer routines, so int32 and int64 use the small generic loops of kernels.cc.
// Matrices are row-major with a leading dimension in elements.
#pragma once

#include <pgdds/pgdds.h>

#include <cstdint>

namespace pgdds::matrix::kernels {

// C (m x n) = alpha * A (m x k) * B (k x n) + beta * C; beta 0 sets C without reading it.
void gemm(pgdds_dtype_t t, uint64_t m, uint64_t n, uint64_t k, double alpha, const void *a, uint64_t lda,
          const void *b, uint64_t ldb, double beta, void *c, uint64_t ldc);
// Y (rows x cols) += X.
void add(pgdds_dtype_t t, uint64_t rows, uint64_t cols, const void *x, uint64_t ldx, void *y, uint64_t ldy);
// Y (rows x cols) *= beta; beta 0 zeroes Y without reading it.
void scale(pgdds_dtype_t t, uint64_t rows, uint64_t cols, double beta, void *y, uint64_t ldy);

}  // namespace pgdds::matrix::kernels
