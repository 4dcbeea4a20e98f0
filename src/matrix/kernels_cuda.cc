// Device tile kernels (kernels.h): copies, allocation and zeroing through the CUDA runtime, which
// libpgdds already links; products and sums through libpgdds-cuda.so (cuda_math.h), the cuBLAS
// and cuSPARSE module, loaded at the first one from libpgdds's own directory (or the loader's
// search path). Every call is complete on return.
#include "kernels.h"

#include "../base/common.h"
#include "cuda_math.h"
#include "smatrix.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <mutex>
#include <numeric>
#include <string>

namespace pgdds::matrix::kernels::device {
namespace {

constexpr const char *module_name = "libpgdds-cuda.so";

status cuda_failed(const char *what, cudaError_t e)
{
    cudaGetLastError();
    return fail(PGDDS_ERR_TRANSPORT, "%s: %s", what, cudaGetErrorString(e));
}

std::once_flag load_once;
const pgdds_cuda_math_v2 *math = nullptr;
std::string load_error;

void load()
{
    // Beside this library first (an installation, a build tree), then wherever the loader looks.
    std::string path = module_name;
    Dl_info self;
    if (dladdr(reinterpret_cast<void *>(&load), &self) && self.dli_fname) {
        std::string lib = self.dli_fname;
        const size_t slash = lib.rfind('/');
        if (slash != std::string::npos) path = lib.substr(0, slash + 1) + module_name;
    }
    void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h && path != module_name) h = dlopen(module_name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        load_error = std::string("cannot load ") + module_name + " (cuBLAS and cuSPARSE kernels): " + (why ? why : "?");
        return;
    }
    using entry_fn = const pgdds_cuda_math_v2 *(*)();
    auto entry = reinterpret_cast<entry_fn>(dlsym(h, "pgdds_cuda_math_v2_table"));
    if (!entry) {
        load_error = std::string(module_name) + " has no pgdds_cuda_math_v2_table: not this version's module";
        return;
    }
    math = entry();
}

status module(const pgdds_cuda_math_v2 *&m)
{
    std::call_once(load_once, load);
    m = math;
    return m ? PGDDS_OK : fail(PGDDS_ERR_UNSUPPORTED, "%s", load_error.c_str());
}

// A module call's result: its message on failure (-2: a size beyond the library).
status result(int rc, const char *err)
{
    return rc == 0 ? PGDDS_OK : fail(rc == -2 ? PGDDS_ERR_UNSUPPORTED : PGDDS_ERR_TRANSPORT, "%s", err);
}

// Sorts the column indices of each row of p that is out of order, moving the values with them.
void sort_rows(csr_tile &p, size_t es)
{
    std::vector<size_t> order;
    std::vector<uint64_t> idx;
    std::vector<char> val;
    for (size_t r = 0; r + 1 < p.offsets.size(); ++r) {
        const uint64_t b = p.offsets[r], e = p.offsets[r + 1];
        if (std::is_sorted(p.indices.begin() + long(b), p.indices.begin() + long(e))) continue;
        order.resize(e - b);
        std::iota(order.begin(), order.end(), size_t(0));
        std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p.indices[b + x] < p.indices[b + y]; });
        idx.assign(p.indices.begin() + long(b), p.indices.begin() + long(e));
        val.assign(p.values.begin() + long(b * es), p.values.begin() + long(e * es));
        for (size_t x = 0; x < order.size(); ++x) {
            p.indices[b + x] = idx[order[x]];
            memcpy(&p.values[(b + x) * es], &val[order[x] * es], es);
        }
    }
}

}  // namespace

status gemm(int dev, pgdds_dtype_t t, uint64_t m, uint64_t n, uint64_t k, double alpha, const void *a, uint64_t lda,
            const void *b, uint64_t ldb, double beta, void *c, uint64_t ldc)
{
    if (m == 0 || n == 0) return PGDDS_OK;
    const pgdds_cuda_math_v2 *mm;
    status st = module(mm);
    if (st != PGDDS_OK) return st;
    char err[256] = "";
    // The layout keeps every tile dimension within int (layout.cc).
    return result(mm->gemm(dev, int(t), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, err, sizeof err), err);
}

status add(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t cols, const void *x, uint64_t ldx, void *y, uint64_t ldy)
{
    if (rows == 0 || cols == 0) return PGDDS_OK;
    const pgdds_cuda_math_v2 *mm;
    status st = module(mm);
    if (st != PGDDS_OK) return st;
    char err[256] = "";
    return result(mm->geam(dev, int(t), rows, cols, 1, x, ldx, 1, y, ldy, err, sizeof err), err);
}

status scale(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t cols, double beta, void *y, uint64_t ldy)
{
    if (beta == 1 || rows == 0 || cols == 0) return PGDDS_OK;
    if (beta == 0) {  // no module needed
        const size_t es = t == PGDDS_FLOAT ? 4 : 8;
        cudaError_t e = cudaSetDevice(dev);
        if (e == cudaSuccess) e = cudaMemset2D(y, ldy * es, 0, cols * es, rows);
        if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
        return e == cudaSuccess ? PGDDS_OK : cuda_failed("cudaMemset2D", e);
    }
    const pgdds_cuda_math_v2 *mm;
    status st = module(mm);
    if (st != PGDDS_OK) return st;
    char err[256] = "";
    return result(mm->geam(dev, int(t), rows, cols, beta, y, ldy, 0, y, ldy, err, sizeof err), err);
}

status spmm(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t kk, uint64_t cols, const uint64_t *offsets,
            const uint64_t *indices, const void *values, uint64_t nnz, const void *b, uint64_t ldb, double alpha,
            double beta, void *c, uint64_t ldc)
{
    if (rows == 0 || cols == 0) return PGDDS_OK;
    if (nnz == 0) return scale(dev, t, rows, cols, beta, c, ldc);
    const pgdds_cuda_math_v2 *mm;
    status st = module(mm);
    if (st != PGDDS_OK) return st;
    char err[256] = "";
    return result(mm->spmm(dev, int(t), rows, kk, cols, offsets, indices, values, nnz, b, ldb, alpha, beta, c, ldc, err,
                           sizeof err),
                  err);
}

status spgemm(int dev, pgdds_dtype_t t, uint64_t rows, uint64_t kk, uint64_t cols, const csr_tile &a, const csr_tile &b,
              csr_tile &p)
{
    const size_t es = t == PGDDS_FLOAT ? 4 : 8;
    p = csr_tile();
    if (a.nnz() == 0 || b.nnz() == 0) {
        p.offsets.assign(rows + 1, 0);
        return PGDDS_OK;
    }
    const pgdds_cuda_math_v2 *mm;
    status st = module(mm);
    if (st != PGDDS_OK) return st;
    char err[256] = "";
    void *product = nullptr;
    uint64_t nnz = 0;
    st = result(mm->spgemm(dev, int(t), rows, kk, cols, a.offsets.data(), a.indices.data(), a.values.data(), a.nnz(),
                           b.offsets.data(), b.indices.data(), b.values.data(), b.nnz(), 1, &product, &nnz, err,
                           sizeof err),
                err);
    if (st != PGDDS_OK) return st;
    p.offsets.resize(rows + 1);
    p.indices.resize(nnz);
    p.values.resize(nnz * es);
    st = result(mm->spgemm_take(product, p.offsets.data(), p.indices.data(), p.values.data(), err, sizeof err), err);
    if (st == PGDDS_OK) sort_rows(p, es);
    return st;
}

status copy(int dev, void *dst, const void *src, size_t n)
{
    if (n == 0) return PGDDS_OK;
    cudaError_t e = cudaSetDevice(dev);
    if (e == cudaSuccess) e = cudaMemcpy(dst, src, n, cudaMemcpyDefault);
    // From pageable host memory cudaMemcpy returns once the bytes are staged, before they reach
    // the device: a rank on the node reading them by CUDA IPC right after must not see old ones.
    if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
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
