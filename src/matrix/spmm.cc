// C = alpha A B + beta C with A sparse (CSR tiles) and B, C dense: stationary C, as the dense
// algorithm (gemm.cc): the owner of C(i, j) fetches A(i, k) with three gets and B(k, j), and
// multiplies them with SuiteSparse:GraphBLAS (GrB_mxm over the plus-times semiring).
#include "smatrix.h"

#include "gemm.h"
#include "kernels.h"

extern "C" {
#include <GraphBLAS.h>
}

#include <mutex>
#include <vector>

namespace pgdds::matrix {
namespace {

// The GraphBLAS face of each element type.
template <class T> struct grb;
template <> struct grb<float> {
    static constexpr pgdds_dtype_t dtype = PGDDS_FLOAT;
    static GrB_Type type() { return GrB_FP32; }
    static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_FP32; }
    static GrB_Info import_(GrB_Matrix *m, GrB_Index r, GrB_Index c, const GrB_Index *p, const GrB_Index *i,
                            const float *x, GrB_Index pl, GrB_Index il, GrB_Index xl)
    {
        return GrB_Matrix_import_FP32(m, GrB_FP32, r, c, p, i, x, pl, il, xl, GrB_CSR_FORMAT);
    }
    static GrB_Info export_(GrB_Index *p, GrB_Index *i, float *x, GrB_Index *pl, GrB_Index *il, GrB_Index *xl, GrB_Matrix m)
    {
        return GrB_Matrix_export_FP32(p, i, x, pl, il, xl, GrB_CSR_FORMAT, m);
    }
};
template <> struct grb<double> {
    static constexpr pgdds_dtype_t dtype = PGDDS_DOUBLE;
    static GrB_Type type() { return GrB_FP64; }
    static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_FP64; }
    static GrB_Info import_(GrB_Matrix *m, GrB_Index r, GrB_Index c, const GrB_Index *p, const GrB_Index *i,
                            const double *x, GrB_Index pl, GrB_Index il, GrB_Index xl)
    {
        return GrB_Matrix_import_FP64(m, GrB_FP64, r, c, p, i, x, pl, il, xl, GrB_CSR_FORMAT);
    }
    static GrB_Info export_(GrB_Index *p, GrB_Index *i, double *x, GrB_Index *pl, GrB_Index *il, GrB_Index *xl, GrB_Matrix m)
    {
        return GrB_Matrix_export_FP64(p, i, x, pl, il, xl, GrB_CSR_FORMAT, m);
    }
};
template <> struct grb<int32_t> {
    static constexpr pgdds_dtype_t dtype = PGDDS_INT32;
    static GrB_Type type() { return GrB_INT32; }
    static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_INT32; }
    static GrB_Info import_(GrB_Matrix *m, GrB_Index r, GrB_Index c, const GrB_Index *p, const GrB_Index *i,
                            const int32_t *x, GrB_Index pl, GrB_Index il, GrB_Index xl)
    {
        return GrB_Matrix_import_INT32(m, GrB_INT32, r, c, p, i, x, pl, il, xl, GrB_CSR_FORMAT);
    }
    static GrB_Info export_(GrB_Index *p, GrB_Index *i, int32_t *x, GrB_Index *pl, GrB_Index *il, GrB_Index *xl,
                            GrB_Matrix m)
    {
        return GrB_Matrix_export_INT32(p, i, x, pl, il, xl, GrB_CSR_FORMAT, m);
    }
};
template <> struct grb<int64_t> {
    static constexpr pgdds_dtype_t dtype = PGDDS_INT64;
    static GrB_Type type() { return GrB_INT64; }
    static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_INT64; }
    static GrB_Info import_(GrB_Matrix *m, GrB_Index r, GrB_Index c, const GrB_Index *p, const GrB_Index *i,
                            const int64_t *x, GrB_Index pl, GrB_Index il, GrB_Index xl)
    {
        return GrB_Matrix_import_INT64(m, GrB_INT64, r, c, p, i, x, pl, il, xl, GrB_CSR_FORMAT);
    }
    static GrB_Info export_(GrB_Index *p, GrB_Index *i, int64_t *x, GrB_Index *pl, GrB_Index *il, GrB_Index *xl,
                            GrB_Matrix m)
    {
        return GrB_Matrix_export_INT64(p, i, x, pl, il, xl, GrB_CSR_FORMAT, m);
    }
};

status grb_failed(const char *who, const char *what, GrB_Info info)
{
    return fail(info == GrB_OUT_OF_MEMORY ? PGDDS_ERR_NO_MEMORY : PGDDS_ERR_INVALID_ARG, "%s: GraphBLAS %s failed (GrB_Info %d)",
                who, what, int(info));
}

// GraphBLAS starts once per process; a program that started it itself is fine.
status grb_start(const char *who)
{
    static std::once_flag once;
    static GrB_Info info = GrB_SUCCESS;
    std::call_once(once, [] {
        info = GrB_init(GrB_NONBLOCKING);
        if (info == GrB_INVALID_VALUE) info = GrB_SUCCESS;  // already started
    });
    return info == GrB_SUCCESS ? PGDDS_OK : grb_failed(who, "GrB_init", info);
}

// C (rows x cols, row-major) += alpha * A (CSR, rows x kk) * B (kk x cols, row-major), the
// product by GrB_mxm; B enters as a CSR matrix with every entry present.
template <class T>
status spmm_tile(const char *who, uint64_t rows, uint64_t kk, uint64_t cols, const uint64_t *ap, const uint64_t *ai,
                 const void *ax, uint64_t nnz, const void *b, double alpha, void *c)
{
    if (nnz == 0 || cols == 0) return PGDDS_OK;
    std::vector<GrB_Index> bp(kk + 1), bi(kk * cols);
    for (uint64_t r = 0; r <= kk; ++r) bp[r] = r * cols;
    for (uint64_t x = 0; x < kk * cols; ++x) bi[x] = x % cols;
    GrB_Matrix A = nullptr, B = nullptr, P = nullptr;
    const char *step = "import";
    GrB_Info info = grb<T>::import_(&A, rows, kk, ap, ai, static_cast<const T *>(ax), rows + 1, nnz, nnz);
    if (info == GrB_SUCCESS)
        info = grb<T>::import_(&B, kk, cols, bp.data(), bi.data(), static_cast<const T *>(b), kk + 1, kk * cols, kk * cols);
    if (info == GrB_SUCCESS) step = "GrB_mxm", info = GrB_Matrix_new(&P, grb<T>::type(), rows, cols);
    if (info == GrB_SUCCESS) info = GrB_mxm(P, nullptr, nullptr, grb<T>::semiring(), A, B, nullptr);
    GrB_Index pl = 0, il = 0, xl = 0;
    if (info == GrB_SUCCESS) step = "export", info = GrB_Matrix_exportSize(&pl, &il, &xl, GrB_CSR_FORMAT, P);
    std::vector<GrB_Index> pp(pl + 1), pi(il + 1);
    std::vector<T> px(xl + 1);
    if (info == GrB_SUCCESS) info = grb<T>::export_(pp.data(), pi.data(), px.data(), &pl, &il, &xl, P);
    GrB_Matrix_free(&A);
    GrB_Matrix_free(&B);
    GrB_Matrix_free(&P);
    if (info != GrB_SUCCESS) return grb_failed(who, step, info);
    // alpha P into C: a sparse row-by-row axpy of the product's entries.
    for (uint64_t r = 0; r < rows; ++r) {
        std::vector<T> row(cols, T(0));
        for (GrB_Index e = pp[r]; e < pp[r + 1]; ++e) row[pi[e]] = px[e];
        kernels::scale(grb<T>::dtype, 1, cols, alpha, row.data(), cols);
        kernels::add(grb<T>::dtype, 1, cols, row.data(), cols, static_cast<T *>(c) + r * cols, cols);
    }
    return PGDDS_OK;
}

status spmm_tile_typed(const char *who, pgdds_dtype_t t, uint64_t rows, uint64_t kk, uint64_t cols, const uint64_t *ap,
                       const uint64_t *ai, const void *ax, uint64_t nnz, const void *b, double alpha, void *c)
{
    switch (t) {
    case PGDDS_FLOAT: return spmm_tile<float>(who, rows, kk, cols, ap, ai, ax, nnz, b, alpha, c);
    case PGDDS_DOUBLE: return spmm_tile<double>(who, rows, kk, cols, ap, ai, ax, nnz, b, alpha, c);
    case PGDDS_INT32: return spmm_tile<int32_t>(who, rows, kk, cols, ap, ai, ax, nnz, b, alpha, c);
    default: return spmm_tile<int64_t>(who, rows, kk, cols, ap, ai, ax, nnz, b, alpha, c);
    }
}

}  // namespace

status spmm(const char *who, double alpha, const smatrix &a, const dmatrix &b, double beta, const dmatrix &c)
{
    const layout &la = a.lay(), &lc = c.lay();
    status st = grb_start(who);
    // Every rank must reach the barriers below even when GraphBLAS failed to start here.
    status bar = pgdds_barrier(c.ctx);
    if (st == PGDDS_OK && bar != PGDDS_OK) st = fail_prefix(bar, who);
    std::vector<uint64_t> ap(la.tile_rows + 1), ai;
    std::vector<char> ax, bbuf;
    for (uint64_t i = uint64_t(c.rank() / lc.grid_cols); st == PGDDS_OK && i < lc.tgrid_rows; i += uint64_t(lc.grid_rows))
        for (uint64_t j = uint64_t(c.rank() % lc.grid_cols); st == PGDDS_OK && j < lc.tgrid_cols; j += uint64_t(lc.grid_cols)) {
            void *ct = c.reachable(i, j);
            const uint64_t rows = lc.tile_rows_of(i), cols = lc.tile_cols_of(j);
            kernels::scale(lc.dtype, rows, cols, beta, ct, cols);
            for (uint64_t s = 0; st == PGDDS_OK && s < la.tgrid_cols; ++s) {
                const uint64_t k = (i + j + s) % la.tgrid_cols;  // spread the reads, as stationary C does
                const uint64_t nnz = a.tile(i, k).nnz;
                if (nnz == 0) continue;  // an empty tile adds nothing: no transfer
                ai.resize(nnz);
                ax.resize(nnz * la.esize);
                st = a.get_tile(who, i, k, ap.data(), ai.data(), ax.data());
                const void *bt = nullptr;
                if (st == PGDDS_OK) st = b.read_tile(who, k, j, bbuf, bt);
                if (st == PGDDS_OK)
                    st = spmm_tile_typed(who, lc.dtype, rows, la.tile_cols_of(k), cols, ap.data(), ai.data(), ax.data(),
                                         nnz, bt, alpha, ct);
            }
        }
    bar = pgdds_barrier(c.ctx);
    if (st == PGDDS_OK && bar != PGDDS_OK) st = fail_prefix(bar, who);
    return containers::agree(c.rt, who, st);
}

}  // namespace pgdds::matrix
