// Device tile kernels through cuBLAS (kernels.h). cuBLAS is column-major: a row-major m x n
// matrix with leading dimension ld is its column-major n x m transpose, so C = A B is computed as
// C^T = B^T A^T with the operands swapped. Each call runs on the legacy default stream, which the
// GPU layer's copy streams are ordered after, and waits for it: the result is there on return.
#include "kernels.h"

#include "../base/common.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <map>
#include <mutex>

namespace pgdds::matrix::kernels::device {
namespace {

std::mutex handles_mu;
std::map<int, cublasHandle_t> handles;  // one per device, kept for the process's life

status cuda_failed(const char *what, cudaError_t e)
{
    cudaGetLastError();
    return fail(PGDDS_ERR_TRANSPORT, "%s: %s", what, cudaGetErrorString(e));
}

status blas_failed(const char *what, cublasStatus_t e)
{
    return fail(PGDDS_ERR_TRANSPORT, "%s: %s", what, cublasGetStatusString(e));
}

// The calling thread on `dev`, with that device's handle (its stream: the legacy default one).
status use(int dev, cublasHandle_t &h)
{
    cudaError_t e = cudaSetDevice(dev);
    if (e != cudaSuccess) return cuda_failed("cudaSetDevice", e);
    std::lock_guard<std::mutex> g(handles_mu);
    auto it = handles.find(dev);
    if (it == handles.end()) {
        cublasHandle_t nh = nullptr;
        cublasStatus_t b = cublasCreate(&nh);
        if (b != CUBLAS_STATUS_SUCCESS) return blas_failed("cublasCreate", b);
        it = handles.emplace(dev, nh).first;
    }
    h = it->second;
    return PGDDS_OK;
}

status finish(const char *what, cublasStatus_t b)
{
    if (b != CUBLAS_STATUS_SUCCESS) return blas_failed(what, b);
    cudaError_t e = cudaStreamSynchronize(nullptr);
    return e == cudaSuccess ? PGDDS_OK : cuda_failed(what, e);
}

}  // namespace

status gemm(int dev, pgdds_dtype_t t, uint64_t m, uint64_t n, uint64_t k, double alpha, const void *a, uint64_t lda,
            const void *b, uint64_t ldb, double beta, void *c, uint64_t ldc)
{
    if (m == 0 || n == 0) return PGDDS_OK;
    cublasHandle_t h;
    status st = use(dev, h);
    if (st != PGDDS_OK) return st;
    // The layout keeps every tile dimension within int (layout.cc).
    if (t == PGDDS_FLOAT) {
        const float al = float(alpha), be = float(beta);
        return finish("cublasSgemm", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &al,
                                                 static_cast<const float *>(b), int(ldb), static_cast<const float *>(a),
                                                 int(lda), &be, static_cast<float *>(c), int(ldc)));
    }
    return finish("cublasDgemm", cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &alpha,
                                             static_cast<const double *>(b), int(ldb), static_cast<const double *>(a),
                                             int(lda), &beta, static_cast<double *>(c), int(ldc)));
}

// Y = 1 X + 1 Y by geam, in place in Y (cuBLAS allows C = B with ldc = ldb, untransposed).
status add(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t cols, const void *x, uint64_t ldx, void *y, uint64_t ldy)
{
    if (rows == 0 || cols == 0) return PGDDS_OK;
    cublasHandle_t h;
    status st = use(dev, h);
    if (st != PGDDS_OK) return st;
    if (t == PGDDS_FLOAT) {
        const float one = 1;
        float *yf = static_cast<float *>(y);
        return finish("cublasSgeam", cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, int(cols), int(rows), &one,
                                                 static_cast<const float *>(x), int(ldx), &one, yf, int(ldy), yf, int(ldy)));
    }
    const double one = 1;
    double *yd = static_cast<double *>(y);
    return finish("cublasDgeam", cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, int(cols), int(rows), &one,
                                             static_cast<const double *>(x), int(ldx), &one, yd, int(ldy), yd, int(ldy)));
}

status scale(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t cols, double beta, void *y, uint64_t ldy)
{
    if (beta == 1 || rows == 0 || cols == 0) return PGDDS_OK;
    const size_t es = t == PGDDS_FLOAT ? 4 : 8;
    if (beta == 0) {
        cudaError_t e = cudaSetDevice(dev);
        if (e == cudaSuccess) e = cudaMemset2D(y, ldy * es, 0, cols * es, rows);
        if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
        return e == cudaSuccess ? PGDDS_OK : cuda_failed("cudaMemset2D", e);
    }
    cublasHandle_t h;
    status st = use(dev, h);
    if (st != PGDDS_OK) return st;
    // Y = beta Y + 0 Y, in place (C = A, ldc = lda).
    if (t == PGDDS_FLOAT) {
        const float be = float(beta), zero = 0;
        float *yf = static_cast<float *>(y);
        return finish("cublasSgeam", cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, int(cols), int(rows), &be, yf, int(ldy),
                                                 &zero, yf, int(ldy), yf, int(ldy)));
    }
    const double zero = 0;
    double *yd = static_cast<double *>(y);
    return finish("cublasDgeam", cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, int(cols), int(rows), &beta, yd, int(ldy),
                                             &zero, yd, int(ldy), yd, int(ldy)));
}

status copy(int dev, void *dst, const void *src, size_t n)
{
    if (n == 0) return PGDDS_OK;
    cudaError_t e = cudaSetDevice(dev);
    if (e == cudaSuccess) e = cudaMemcpy(dst, src, n, cudaMemcpyDefault);
    return e == cudaSuccess ? PGDDS_OK : cuda_failed("cudaMemcpy", e);
}

status alloc(int dev, size_t n, void *&out)
{
    cudaError_t e = cudaSetDevice(dev);
    if (e == cudaSuccess) e = cudaMalloc(&out, n);
    if (e == cudaSuccess) return PGDDS_OK;
    cudaGetLastError();
    return fail(PGDDS_ERR_NO_MEMORY, "no room on CUDA device %d for a %zu-byte tile buffer (%s)", dev, n,
                cudaGetErrorString(e));
}

void free(int dev, void *p)
{
    cudaSetDevice(dev);
    cudaFree(p);
}

bool holds(const void *p)
{
    cudaPointerAttributes a;
    if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeDevice;
}

}  // namespace pgdds::matrix::kernels::device
