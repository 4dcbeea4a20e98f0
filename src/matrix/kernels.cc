// Local tile kernels (kernels.h): the host kernels, and the dispatch by place.
#include "kernels.h"

#include "../base/common.h"

#include <cblas.h>

#include <cstdlib>
#include <cstring>

namespace pgdds::matrix::kernels {
namespace {

// Integer arithmetic wraps, as unsigned arithmetic does (no signed overflow). ta, tb: A and B
// are stored transposed (k x m, n x k, row-major).
template <class T, class U> void gemm_int(uint64_t m, uint64_t n, uint64_t k, double alpha, const T *a, uint64_t lda,
                                          bool ta, const T *b, uint64_t ldb, bool tb, double beta, T *c, uint64_t ldc)
{
    U al = U(int64_t(alpha)), be = U(int64_t(beta));
    for (uint64_t i = 0; i < m; ++i) {
        U *ci = reinterpret_cast<U *>(c + i * ldc);
        for (uint64_t j = 0; j < n; ++j) ci[j] = beta == 0 ? U(0) : U(ci[j] * be);
        // i-p-j order: B's rows and C's row are read contiguously (B's columns when transposed).
        for (uint64_t p = 0; p < k; ++p) {
            U aip = U(al * U(ta ? a[p * lda + i] : a[i * lda + p]));
            if (tb) {
                for (uint64_t j = 0; j < n; ++j) ci[j] = U(ci[j] + U(aip * U(b[j * ldb + p])));
            } else {
                const T *bp = b + p * ldb;
                for (uint64_t j = 0; j < n; ++j) ci[j] = U(ci[j] + U(aip * U(bp[j])));
            }
        }
    }
}

template <class T, class U> void add_int(uint64_t rows, uint64_t cols, const T *x, uint64_t ldx, T *y, uint64_t ldy)
{
    for (uint64_t i = 0; i < rows; ++i) {
        U *yi = reinterpret_cast<U *>(y + i * ldy);
        const U *xi = reinterpret_cast<const U *>(x + i * ldx);
        for (uint64_t j = 0; j < cols; ++j) yi[j] = U(yi[j] + xi[j]);
    }
}

template <class T, class U> void scale_int(uint64_t rows, uint64_t cols, double beta, T *y, uint64_t ldy)
{
    U be = U(int64_t(beta));
    for (uint64_t i = 0; i < rows; ++i) {
        U *yi = reinterpret_cast<U *>(y + i * ldy);
        for (uint64_t j = 0; j < cols; ++j) yi[j] = beta == 0 ? U(0) : U(yi[j] * be);
    }
}

void host_gemm(pgdds_dtype_t t, uint64_t m, uint64_t n, uint64_t k, double alpha, const void *a, uint64_t lda,
               bool ta, const void *b, uint64_t ldb, bool tb, double beta, void *c, uint64_t ldc)
{
    if (m == 0 || n == 0) return;
    const CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
    // The layout keeps every tile dimension within int (layout.cc).
    switch (t) {
    case PGDDS_FLOAT:
        cblas_sgemm(CblasRowMajor, opa, opb, int(m), int(n), int(k), float(alpha), static_cast<const float *>(a), int(lda),
                    static_cast<const float *>(b), int(ldb), float(beta), static_cast<float *>(c), int(ldc));
        break;
    case PGDDS_DOUBLE:
        cblas_dgemm(CblasRowMajor, opa, opb, int(m), int(n), int(k), alpha, static_cast<const double *>(a), int(lda),
                    static_cast<const double *>(b), int(ldb), beta, static_cast<double *>(c), int(ldc));
        break;
    case PGDDS_INT32:
        gemm_int<int32_t, uint32_t>(m, n, k, alpha, static_cast<const int32_t *>(a), lda, ta,
                                    static_cast<const int32_t *>(b), ldb, tb, beta, static_cast<int32_t *>(c), ldc);
        break;
    default:
        gemm_int<int64_t, uint64_t>(m, n, k, alpha, static_cast<const int64_t *>(a), lda, ta,
                                    static_cast<const int64_t *>(b), ldb, tb, beta, static_cast<int64_t *>(c), ldc);
        break;
    }
}

void host_add(pgdds_dtype_t t, uint64_t rows, uint64_t cols, const void *x, uint64_t ldx, void *y, uint64_t ldy)
{
    switch (t) {
    case PGDDS_FLOAT:
        for (uint64_t i = 0; i < rows; ++i)
            cblas_saxpy(int(cols), 1.0f, static_cast<const float *>(x) + i * ldx, 1, static_cast<float *>(y) + i * ldy, 1);
        break;
    case PGDDS_DOUBLE:
        for (uint64_t i = 0; i < rows; ++i)
            cblas_daxpy(int(cols), 1.0, static_cast<const double *>(x) + i * ldx, 1, static_cast<double *>(y) + i * ldy, 1);
        break;
    case PGDDS_INT32:
        add_int<int32_t, uint32_t>(rows, cols, static_cast<const int32_t *>(x), ldx, static_cast<int32_t *>(y), ldy);
        break;
    default:
        add_int<int64_t, uint64_t>(rows, cols, static_cast<const int64_t *>(x), ldx, static_cast<int64_t *>(y), ldy);
        break;
    }
}

void host_scale(pgdds_dtype_t t, uint64_t rows, uint64_t cols, double beta, void *y, uint64_t ldy)
{
    if (beta == 1) return;
    switch (t) {
    case PGDDS_FLOAT:
        for (uint64_t i = 0; i < rows; ++i) {
            float *yi = static_cast<float *>(y) + i * ldy;
            if (beta == 0) memset(yi, 0, cols * sizeof *yi);
            else cblas_sscal(int(cols), float(beta), yi, 1);
        }
        break;
    case PGDDS_DOUBLE:
        for (uint64_t i = 0; i < rows; ++i) {
            double *yi = static_cast<double *>(y) + i * ldy;
            if (beta == 0) memset(yi, 0, cols * sizeof *yi);
            else cblas_dscal(int(cols), beta, yi, 1);
        }
        break;
    case PGDDS_INT32:
        scale_int<int32_t, uint32_t>(rows, cols, beta, static_cast<int32_t *>(y), ldy);
        break;
    default:
        scale_int<int64_t, uint64_t>(rows, cols, beta, static_cast<int64_t *>(y), ldy);
        break;
    }
}

}  // namespace

status gemm(place at, pgdds_dtype_t t, uint64_t m, uint64_t n, uint64_t k, double alpha, const void *a, uint64_t lda,
            const void *b, uint64_t ldb, double beta, void *c, uint64_t ldc, bool trans_a, bool trans_b)
{
    if (!at.host()) {
        if (trans_a || trans_b)
            return fail(PGDDS_ERR_UNSUPPORTED, "a transposed operand in GPU memory is not supported (transpose it first)");
        return device::gemm(at.device, t, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    }
    host_gemm(t, m, n, k, alpha, a, lda, trans_a, b, ldb, trans_b, beta, c, ldc);
    return PGDDS_OK;
}

status add(place at, pgdds_dtype_t t, uint64_t rows, uint64_t cols, const void *x, uint64_t ldx, void *y, uint64_t ldy)
{
    if (!at.host()) return device::add(at.device, t, rows, cols, x, ldx, y, ldy);
    host_add(t, rows, cols, x, ldx, y, ldy);
    return PGDDS_OK;
}

status scale(place at, pgdds_dtype_t t, uint64_t rows, uint64_t cols, double beta, void *y, uint64_t ldy)
{
    if (!at.host()) return device::scale(at.device, t, rows, cols, beta, y, ldy);
    host_scale(t, rows, cols, beta, y, ldy);
    return PGDDS_OK;
}

status copy(place at, void *dst, const void *src, size_t n)
{
    if (!at.host()) return device::copy(at.device, dst, src, n);
    if (n) memcpy(dst, src, n);
    return PGDDS_OK;
}

status buffer::ensure(place at, size_t n)
{
    if (p_ && n <= n_ && at.device == at_.device) return PGDDS_OK;
    release();
    n = n ? n : 1;
    if (at.host()) {
        p_ = malloc(n);
        if (!p_) return fail(PGDDS_ERR_NO_MEMORY, "no host memory for a %zu-byte tile buffer", n);
    } else {
        status st = device::alloc(at.device, n, p_);
        if (st != PGDDS_OK) return st;
    }
    n_ = n;
    at_ = at;
    return PGDDS_OK;
}

void buffer::release()
{
    if (!p_) return;
    if (at_.host()) ::free(p_);
    else device::free(at_.device, p_);
    p_ = nullptr;
    n_ = 0;
}

}  // namespace pgdds::matrix::kernels
