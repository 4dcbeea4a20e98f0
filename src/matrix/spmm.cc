// C = alpha A B + beta C with A sparse (CSR tiles) and B, C dense: stationary C, as the dense
// algorithm (gemm.cc): the owner of C(i, j) fetches A(i, k) with three gets and B(k, j), and
// multiplies them with SuiteSparse:GraphBLAS (GrB_mxm over the plus-times semiring).
#include "smatrix.h"

#include "gemm.h"
#include "kernels.h"

#include "grb.h"

#include <vector>

namespace pgdds::matrix {
namespace {

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
                    st = typed(lc.dtype, [&](auto x) {
                        return spmm_tile<decltype(x)>(who, rows, la.tile_cols_of(k), cols, ap.data(), ai.data(), ax.data(),
                                                      nnz, bt, alpha, ct);
                    });
            }
        }
    bar = pgdds_barrier(c.ctx);
    if (st == PGDDS_OK && bar != PGDDS_OK) st = fail_prefix(bar, who);
    return containers::agree(c.rt, who, st);
}

}  // namespace pgdds::matrix
