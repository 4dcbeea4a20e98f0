// libpgdds-cuda.so (cuda_math.h): GEMM and matrix addition through cuBLAS, SpMM through
// cuSPARSE. cuBLAS is column-major: a row-major m x n matrix with leading dimension ld is its
// column-major n x m transpose, so C = A B is computed as C^T = B^T A^T with the operands
// swapped; cuSPARSE takes row-major dense matrices as they are. Each call runs on the legacy
// default stream, which libpgdds's copy streams are ordered after, and waits for it: the result
// is there on return.
#include "cuda_math.h"

#include <pgdds/pgdds.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdio>
#include <map>
#include <mutex>

namespace {

std::mutex mu;
// One of each per device, kept for the process's life, with cuSPARSE's SpMM workspace.
struct handle_set {
    cublasHandle_t blas = nullptr;
    cusparseHandle_t sparse = nullptr;
    void *work = nullptr;
    size_t work_size = 0;
};
std::map<int, handle_set> handles;

int failed(char *err, size_t len, const char *what, const char *why)
{
    snprintf(err, len, "%s: %s", what, why);
    return -1;
}
int cuda_failed(char *err, size_t len, const char *what, cudaError_t e)
{
    cudaGetLastError();
    return failed(err, len, what, cudaGetErrorString(e));
}

// The calling thread on `dev`, with that device's handles (mu held).
int use(int dev, handle_set *&hs, char *err, size_t len)
{
    cudaError_t e = cudaSetDevice(dev);
    if (e != cudaSuccess) return cuda_failed(err, len, "cudaSetDevice", e);
    hs = &handles[dev];
    return 0;
}
int blas(int dev, cublasHandle_t &h, char *err, size_t len)
{
    handle_set *hs;
    if (use(dev, hs, err, len)) return -1;
    if (!hs->blas) {
        cublasStatus_t b = cublasCreate(&hs->blas);
        if (b != CUBLAS_STATUS_SUCCESS) return failed(err, len, "cublasCreate", cublasGetStatusString(b));
    }
    h = hs->blas;
    return 0;
}
int finish(const char *what, cublasStatus_t b, char *err, size_t len)
{
    if (b != CUBLAS_STATUS_SUCCESS) return failed(err, len, what, cublasGetStatusString(b));
    cudaError_t e = cudaStreamSynchronize(nullptr);
    return e == cudaSuccess ? 0 : cuda_failed(err, len, what, e);
}

int gemm(int dev, int dtype, uint64_t m, uint64_t n, uint64_t k, double alpha, const void *a, uint64_t lda,
         const void *b, uint64_t ldb, double beta, void *c, uint64_t ldc, char *err, size_t len)
{
    std::lock_guard<std::mutex> g(mu);
    cublasHandle_t h;
    if (blas(dev, h, err, len)) return -1;
    if (dtype == PGDDS_FLOAT) {
        const float al = float(alpha), be = float(beta);
        return finish("cublasSgemm", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &al,
                                                 static_cast<const float *>(b), int(ldb), static_cast<const float *>(a),
                                                 int(lda), &be, static_cast<float *>(c), int(ldc)), err, len);
    }
    return finish("cublasDgemm", cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &alpha,
                                             static_cast<const double *>(b), int(ldb), static_cast<const double *>(a),
                                             int(lda), &beta, static_cast<double *>(c), int(ldc)), err, len);
}

// In place in Y: cuBLAS allows C = B (ldc = ldb, untransposed), and X = Y likewise.
int geam(int dev, int dtype, uint64_t rows, uint64_t cols, double alpha, const void *x, uint64_t ldx, double beta,
         void *y, uint64_t ldy, char *err, size_t len)
{
    std::lock_guard<std::mutex> g(mu);
    cublasHandle_t h;
    if (blas(dev, h, err, len)) return -1;
    if (dtype == PGDDS_FLOAT) {
        const float al = float(alpha), be = float(beta);
        float *yf = static_cast<float *>(y);
        return finish("cublasSgeam", cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, int(cols), int(rows), &al,
                                                 static_cast<const float *>(x), int(ldx), &be, yf, int(ldy), yf, int(ldy)),
                      err, len);
    }
    double *yd = static_cast<double *>(y);
    return finish("cublasDgeam", cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, int(cols), int(rows), &alpha,
                                             static_cast<const double *>(x), int(ldx), &beta, yd, int(ldy), yd, int(ldy)),
                  err, len);
}

int spmm(int dev, int dtype, uint64_t rows, uint64_t kk, uint64_t cols, const uint64_t *offsets, const uint64_t *indices,
         const void *values, uint64_t nnz, const void *b, uint64_t ldb, double alpha, double beta, void *c, uint64_t ldc,
         char *err, size_t len)
{
    std::lock_guard<std::mutex> g(mu);  // the handle and workspace are the device's
    handle_set *hs;
    if (use(dev, hs, err, len)) return -1;
    if (!hs->sparse) {
        cusparseStatus_t s = cusparseCreate(&hs->sparse);
        if (s != CUSPARSE_STATUS_SUCCESS) return failed(err, len, "cusparseCreate", cusparseGetErrorString(s));
    }
    const cudaDataType dt = dtype == PGDDS_FLOAT ? CUDA_R_32F : CUDA_R_64F;
    const float af = float(alpha), bf = float(beta);
    const void *al = dtype == PGDDS_FLOAT ? static_cast<const void *>(&af) : &alpha;
    const void *be = dtype == PGDDS_FLOAT ? static_cast<const void *>(&bf) : &beta;
    cusparseSpMatDescr_t A = nullptr;
    cusparseDnMatDescr_t B = nullptr, C = nullptr;
    const char *what = "cusparseCreateCsr";
    cusparseStatus_t s = cusparseCreateCsr(&A, int64_t(rows), int64_t(kk), int64_t(nnz), const_cast<uint64_t *>(offsets),
                                           const_cast<uint64_t *>(indices), const_cast<void *>(values), CUSPARSE_INDEX_64I,
                                           CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, dt);
    if (s == CUSPARSE_STATUS_SUCCESS)
        what = "cusparseCreateDnMat",
        s = cusparseCreateDnMat(&B, int64_t(kk), int64_t(cols), int64_t(ldb), const_cast<void *>(b), dt, CUSPARSE_ORDER_ROW);
    if (s == CUSPARSE_STATUS_SUCCESS)
        s = cusparseCreateDnMat(&C, int64_t(rows), int64_t(cols), int64_t(ldc), c, dt, CUSPARSE_ORDER_ROW);
    // CSR_ALG2 takes 64-bit indices and row-major operands.
    size_t need = 0;
    if (s == CUSPARSE_STATUS_SUCCESS)
        what = "cusparseSpMM_bufferSize",
        s = cusparseSpMM_bufferSize(hs->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, al,
                                    A, B, be, C, dt, CUSPARSE_SPMM_CSR_ALG2, &need);
    int rc = 0;
    if (s == CUSPARSE_STATUS_SUCCESS && need > hs->work_size) {
        if (hs->work) cudaFree(hs->work);
        hs->work = nullptr, hs->work_size = 0;
        cudaError_t e = cudaMalloc(&hs->work, need);
        if (e == cudaSuccess) hs->work_size = need;
        else rc = cuda_failed(err, len, "cudaMalloc (cuSPARSE workspace)", e);
    }
    if (s == CUSPARSE_STATUS_SUCCESS && rc == 0)
        what = "cusparseSpMM",
        s = cusparseSpMM(hs->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, al, A, B, be, C,
                         dt, CUSPARSE_SPMM_CSR_ALG2, hs->work);
    if (s == CUSPARSE_STATUS_SUCCESS && rc == 0) {
        cudaError_t e = cudaStreamSynchronize(nullptr);
        if (e != cudaSuccess) rc = cuda_failed(err, len, "cusparseSpMM", e);
    }
    if (s != CUSPARSE_STATUS_SUCCESS && rc == 0) rc = failed(err, len, what, cusparseGetErrorString(s));
    if (C) cusparseDestroyDnMat(C);
    if (B) cusparseDestroyDnMat(B);
    if (A) cusparseDestroySpMat(A);
    return rc;
}

const pgdds_cuda_math_v1 table = {gemm, geam, spmm};

}  // namespace

extern "C" __attribute__((visibility("default"))) const pgdds_cuda_math_v1 *pgdds_cuda_math_v1_table(void)
{
    return &table;
}
