// libpgdds-cuda.so (cuda_math.h): GEMM and matrix addition through cuBLAS, SpMM and SpGEMM
// through cuSPARSE. cuBLAS is column-major: a row-major m x n matrix with leading dimension ld is
// its column-major n x m transpose, so C = A B is computed as C^T = B^T A^T with the operands
// swapped; cuSPARSE takes row-major dense matrices as they are, and its SpGEMM 32-bit indices, to
// which the tiles' 64-bit ones are narrowed on their way to the device. Each call runs on the legacy
// default stream, which libpgdds's copy streams are ordered after, and waits for it: the result
// is there on return.
#include "cuda_math.h"

#include <pgdds/pgdds.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

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
int sparse(int dev, handle_set *&hs, char *err, size_t len)
{
    if (use(dev, hs, err, len)) return -1;
    if (!hs->sparse) {
        cusparseStatus_t s = cusparseCreate(&hs->sparse);
        if (s != CUSPARSE_STATUS_SUCCESS) return failed(err, len, "cusparseCreate", cusparseGetErrorString(s));
    }
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
    if (sparse(dev, hs, err, len)) return -1;
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

// Device memory freed with its owner.
struct device_block {
    void *p = nullptr;
    device_block() = default;
    device_block(const device_block &) = delete;
    device_block &operator=(const device_block &) = delete;
    ~device_block() { cudaFree(p); }
    cudaError_t alloc(size_t n) { return cudaMalloc(&p, n ? n : 1); }
};

// A CSR matrix on the device with 32-bit offsets and indices.
struct csr32 {
    int64_t rows = 0, nnz = 0;
    device_block offsets, indices, values;
};

// The product of spgemm until spgemm_take.
struct product {
    int dev;
    size_t esize;
    csr32 c;
};

// The host CSR (64-bit arrays) narrowed into d.
cudaError_t upload(csr32 &d, uint64_t rows, const uint64_t *offsets, const uint64_t *indices, const void *values,
                   uint64_t nnz, size_t es)
{
    d.rows = int64_t(rows), d.nnz = int64_t(nnz);
    std::vector<int32_t> o(offsets, offsets + rows + 1), x(indices, indices + nnz);
    cudaError_t e = d.offsets.alloc(o.size() * 4);
    if (e == cudaSuccess) e = d.indices.alloc(x.size() * 4);
    if (e == cudaSuccess) e = d.values.alloc(nnz * es);
    if (e == cudaSuccess) e = cudaMemcpy(d.offsets.p, o.data(), o.size() * 4, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && nnz) e = cudaMemcpy(d.indices.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && nnz) e = cudaMemcpy(d.values.p, values, nnz * es, cudaMemcpyHostToDevice);
    return e;
}

cusparseStatus_t describe(cusparseSpMatDescr_t *m, const csr32 &d, int64_t cols, cudaDataType dt)
{
    return cusparseCreateCsr(m, d.rows, cols, d.nnz, d.offsets.p, d.indices.p, d.values.p, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt);
}

int spgemm(int dev, int dtype, uint64_t m, uint64_t k, uint64_t n, const uint64_t *a_offsets, const uint64_t *a_indices,
           const void *a_values, uint64_t a_nnz, const uint64_t *b_offsets, const uint64_t *b_indices,
           const void *b_values, uint64_t b_nnz, double alpha, void **out, uint64_t *nnz, char *err, size_t len)
{
    constexpr uint64_t limit = uint64_t(INT32_MAX);
    if (m >= limit || k >= limit || n >= limit || a_nnz >= limit || b_nnz >= limit) {
        snprintf(err, len, "cuSPARSE SpGEMM takes 32-bit indices: a %llu x %llu x %llu product of %llu and %llu entries "
                 "is beyond them", (unsigned long long)m, (unsigned long long)k, (unsigned long long)n,
                 (unsigned long long)a_nnz, (unsigned long long)b_nnz);
        return -2;
    }
    std::lock_guard<std::mutex> g(mu);
    handle_set *hs;
    if (sparse(dev, hs, err, len)) return -1;
    const cudaDataType dt = dtype == PGDDS_FLOAT ? CUDA_R_32F : CUDA_R_64F;
    const size_t es = dtype == PGDDS_FLOAT ? 4 : 8;
    const float af = float(alpha), bf = 0;
    const double bd = 0;
    const void *al = dtype == PGDDS_FLOAT ? static_cast<const void *>(&af) : &alpha;
    const void *be = dtype == PGDDS_FLOAT ? static_cast<const void *>(&bf) : &bd;
    csr32 a, b;
    auto *p = new product{dev, es, {}};
    p->c.rows = int64_t(m);
    cudaError_t e = upload(a, m, a_offsets, a_indices, a_values, a_nnz, es);
    if (e == cudaSuccess) e = upload(b, k, b_offsets, b_indices, b_values, b_nnz, es);
    if (e == cudaSuccess) e = p->c.offsets.alloc((m + 1) * 4);
    if (e != cudaSuccess) {
        delete p;
        return cuda_failed(err, len, "SpGEMM operands on the device", e);
    }
    // cuSPARSE's sequence: estimate the work, compute into its buffers, learn C's size, copy C out.
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    cusparseSpMatDescr_t A = nullptr, B = nullptr, C = nullptr;
    cusparseSpGEMMDescr_t desc = nullptr;
    device_block work1, work2;
    size_t size1 = 0, size2 = 0;
    const char *what = "cusparseCreateCsr";
    cusparseStatus_t s = describe(&A, a, int64_t(k), dt);
    if (s == CUSPARSE_STATUS_SUCCESS) s = describe(&B, b, int64_t(n), dt);
    if (s == CUSPARSE_STATUS_SUCCESS)
        s = cusparseCreateCsr(&C, int64_t(m), int64_t(n), 0, p->c.offsets.p, nullptr, nullptr, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt);
    if (s == CUSPARSE_STATUS_SUCCESS) what = "cusparseSpGEMM_createDescr", s = cusparseSpGEMM_createDescr(&desc);
    if (s == CUSPARSE_STATUS_SUCCESS)
        what = "cusparseSpGEMM_workEstimation",
        s = cusparseSpGEMM_workEstimation(hs->sparse, op, op, al, A, B, be, C, dt, alg, desc, &size1, nullptr);
    if (s == CUSPARSE_STATUS_SUCCESS && (e = work1.alloc(size1)) == cudaSuccess)
        s = cusparseSpGEMM_workEstimation(hs->sparse, op, op, al, A, B, be, C, dt, alg, desc, &size1, work1.p);
    if (s == CUSPARSE_STATUS_SUCCESS && e == cudaSuccess)
        what = "cusparseSpGEMM_compute",
        s = cusparseSpGEMM_compute(hs->sparse, op, op, al, A, B, be, C, dt, alg, desc, &size2, nullptr);
    if (s == CUSPARSE_STATUS_SUCCESS && e == cudaSuccess && (e = work2.alloc(size2)) == cudaSuccess)
        s = cusparseSpGEMM_compute(hs->sparse, op, op, al, A, B, be, C, dt, alg, desc, &size2, work2.p);
    int64_t rows = 0, cols = 0, cnnz = 0;
    if (s == CUSPARSE_STATUS_SUCCESS && e == cudaSuccess)
        what = "cusparseSpMatGetSize", s = cusparseSpMatGetSize(C, &rows, &cols, &cnnz);
    int rc = 0;
    if (s == CUSPARSE_STATUS_SUCCESS && e == cudaSuccess && uint64_t(cnnz) >= limit) {
        snprintf(err, len, "cuSPARSE SpGEMM takes 32-bit indices: a product of %lld entries is beyond them",
                 (long long)cnnz);
        rc = -2;
    }
    p->c.nnz = cnnz;
    if (s == CUSPARSE_STATUS_SUCCESS && e == cudaSuccess && rc == 0 && (e = p->c.indices.alloc(size_t(cnnz) * 4)) == cudaSuccess &&
        (e = p->c.values.alloc(size_t(cnnz) * es)) == cudaSuccess) {
        what = "cusparseCsrSetPointers", s = cusparseCsrSetPointers(C, p->c.offsets.p, p->c.indices.p, p->c.values.p);
        if (s == CUSPARSE_STATUS_SUCCESS)
            what = "cusparseSpGEMM_copy", s = cusparseSpGEMM_copy(hs->sparse, op, op, al, A, B, be, C, dt, alg, desc);
    }
    if (s == CUSPARSE_STATUS_SUCCESS && e == cudaSuccess && rc == 0) e = cudaStreamSynchronize(nullptr);
    if (rc == 0 && s != CUSPARSE_STATUS_SUCCESS) rc = failed(err, len, what, cusparseGetErrorString(s));
    else if (rc == 0 && e != cudaSuccess) rc = cuda_failed(err, len, "SpGEMM on the device", e);
    if (desc) cusparseSpGEMM_destroyDescr(desc);
    if (C) cusparseDestroySpMat(C);
    if (B) cusparseDestroySpMat(B);
    if (A) cusparseDestroySpMat(A);
    if (rc != 0) {
        delete p;
        return rc;
    }
    *out = p;
    *nnz = uint64_t(cnnz);
    return 0;
}

int spgemm_take(void *prod, uint64_t *offsets, uint64_t *indices, void *values, char *err, size_t len)
{
    std::unique_ptr<product> p(static_cast<product *>(prod));
    const csr32 &c = p->c;
    std::vector<int32_t> o(size_t(c.rows) + 1), x(size_t(c.nnz));
    cudaError_t e = cudaSetDevice(p->dev);
    if (e == cudaSuccess) e = cudaMemcpy(o.data(), c.offsets.p, o.size() * 4, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess && c.nnz) e = cudaMemcpy(x.data(), c.indices.p, x.size() * 4, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess && c.nnz) e = cudaMemcpy(values, c.values.p, x.size() * p->esize, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return cuda_failed(err, len, "SpGEMM product to the host", e);
    std::copy(o.begin(), o.end(), offsets);
    std::copy(x.begin(), x.end(), indices);
    return 0;
}

const pgdds_cuda_math_v2 table = {gemm, geam, spmm, spgemm, spgemm_take};

}  // namespace

extern "C" __attribute__((visibility("default"))) const pgdds_cuda_math_v2 *pgdds_cuda_math_v2_table(void)
{
    return &table;
}
