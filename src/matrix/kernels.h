// Local tile kernels, typed by the matrix's element type, run where the tiles live: on the host,
// CBLAS (OpenBLAS) for float and double and the small generic loops of kernels.cc for int32 and
// int64 (CBLAS has none); on a CUDA device, cuBLAS (kernels_cuda.cc; float and double only, as
// the layout enforces). Matrices are row-major with a leading dimension in elements. A device
// kernel is complete when its call returns, so a put or get that follows reads its result.
#pragma once

#include <pgdds/pgdds.h>

#include <cstddef>
#include <cstdint>

namespace pgdds::matrix {
struct csr_tile;  // smatrix.h
}

namespace pgdds::matrix::kernels {

// Where the kernels run and their operands are: the host, or CUDA device `device`.
struct place {
    int device = -1;
    bool host() const { return device < 0; }
};

// C (m x n) = alpha * A (m x k) * B (k x n) + beta * C; beta 0 sets C without reading it.
// trans_a, trans_b: A or B is stored transposed (k x m, n x k, with its own leading dimension);
// on the host only.
pgdds_status_t gemm(place at, pgdds_dtype_t t, uint64_t m, uint64_t n, uint64_t k, double alpha, const void *a,
                    uint64_t lda, const void *b, uint64_t ldb, double beta, void *c, uint64_t ldc, bool trans_a = false,
                    bool trans_b = false);
// Y (rows x cols) += X.
pgdds_status_t add(place at, pgdds_dtype_t t, uint64_t rows, uint64_t cols, const void *x, uint64_t ldx, void *y,
                   uint64_t ldy);
// Y (rows x cols) *= beta; beta 0 zeroes Y without reading it.
pgdds_status_t scale(place at, pgdds_dtype_t t, uint64_t rows, uint64_t cols, double beta, void *y, uint64_t ldy);
// Copies n bytes; either side may be host or device memory of `at`.
pgdds_status_t copy(place at, void *dst, const void *src, size_t n);

// Scratch memory for tiles in flight and partial sums, in host or device memory.
class buffer {
  public:
    buffer() = default;
    buffer(const buffer &) = delete;
    buffer &operator=(const buffer &) = delete;
    ~buffer() { release(); }
    // At least n bytes at `at` (contents not kept); PGDDS_ERR_NO_MEMORY when the device has no room.
    pgdds_status_t ensure(place at, size_t n);
    void *data() const { return p_; }

  private:
    void release();
    void *p_ = nullptr;
    size_t n_ = 0;
    place at_;
};

// Device halves of the above (kernels_cuda.cc; without CUDA, kernels_no_cuda.cc refuses).
namespace device {
pgdds_status_t gemm(int dev, pgdds_dtype_t t, uint64_t m, uint64_t n, uint64_t k, double alpha, const void *a,
                    uint64_t lda, const void *b, uint64_t ldb, double beta, void *c, uint64_t ldc);
pgdds_status_t add(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t cols, const void *x, uint64_t ldx, void *y,
                   uint64_t ldy);
pgdds_status_t scale(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t cols, double beta, void *y, uint64_t ldy);
pgdds_status_t copy(int dev, void *dst, const void *src, size_t n);
pgdds_status_t alloc(int dev, size_t n, void *&out);
void free(int dev, void *p);
// Whether p is device memory (a caller's buffer may be either).
bool holds(const void *p);
// C (rows x cols, ldc) = alpha A B + beta C, A CSR (rows x kk: rows + 1 offsets, nnz column
// indices, all 64-bit, and the values) and B dense (kk x cols, ldb), all in device memory; by
// cuSPARSE SpMM. beta 0 sets C without reading it.
pgdds_status_t spmm(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t kk, uint64_t cols, const uint64_t *offsets,
                    const uint64_t *indices, const void *values, uint64_t nnz, const void *b, uint64_t ldb,
                    double alpha, double beta, void *c, uint64_t ldc);
// P = A B, A (rows x kk) and B (kk x cols) CSR tiles in host memory, by cuSPARSE SpGEMM on
// device dev; P comes back in host memory, its column indices increasing within each row.
// PGDDS_ERR_UNSUPPORTED where a dimension or entry count passes 2^31 - 1 (32-bit indices).
pgdds_status_t spgemm(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t kk, uint64_t cols, const csr_tile &a,
                      const csr_tile &b, csr_tile &p);
}  // namespace device

}  // namespace pgdds::matrix::kernels
