// Element-wise operations, reductions, norms, transposition and sums of sparse matrices
// (include/pgdds/matrix.h). Scaling, apply, reduce and norm visit the stored entries of each
// rank's own tiles; transpose and add make a new matrix, each owner of one of its tiles reading
// the operand tiles under it and combining them by GraphBLAS (GrB_transpose, GrB_eWiseAdd).
#include "elementwise.h"
#include "grb.h"
#include "smatrix.h"

#include "../gpu/gpu.h"

namespace pgdds::matrix {

status scale(const char *who, double alpha, const smatrix &m)
{
    const layout &l = m.lay();
    status st = check_scalars(who, l.dtype, alpha, 0);
    if (st != PGDDS_OK) return st;
    kernels::place at;
    if (l.memory == PGDDS_MEMORY_CUDA) at.device = gpu::device(*m.rt);
    l.for_tiles_of(m.rank(), [&](uint64_t ti, uint64_t tj) {
        const smatrix::tile_entry &t = m.tile(ti, tj);
        if (st == PGDDS_OK && t.nnz && alpha != 1)
            st = kernels::scale(at, l.dtype, 1, t.nnz, alpha, pgdds_gptr_to_local(m.ctx, t.values), t.nnz);
    });
    return settle(m.rt, who, st);
}

status apply(const char *who, const smatrix &m, pgdds_dmatrix_apply_t fn, void *arg)
{
    const layout &l = m.lay();
    status st = containers::agree(m.rt, who, check_apply(who, fn));
    if (st != PGDDS_OK) return st;
    return settle(m.rt, who, m.on_host_tiles(who, true, [&](uint64_t ti, uint64_t tj, const uint64_t *offsets,
                                                            const uint64_t *indices, void *values, uint64_t) {
        char *v = static_cast<char *>(values);
        for (uint64_t r = 0; r < l.tile_rows_of(ti); ++r)
            for (uint64_t e = offsets[r]; e < offsets[r + 1]; ++e)
                fn(ti * l.tile_rows + r, tj * l.tile_cols + indices[e], v + e * l.esize, arg);
        return PGDDS_OK;
    }));
}

status reduce(const char *who, const smatrix &m, int op, void *out)
{
    return reduce_frame(m.rt, who, m.lay().dtype, op, out, [&](auto &red) {
        using T = decltype(red.acc);
        return m.on_host_tiles(who, false, [&](uint64_t, uint64_t, const uint64_t *, const uint64_t *, void *values,
                                               uint64_t nnz) {
            for (uint64_t e = 0; e < nnz; ++e) red.add(static_cast<const T *>(values)[e]);
            return PGDDS_OK;
        });
    });
}

status norm(const char *who, const smatrix &m, int kind, double *out)
{
    const layout &l = m.lay();
    return norm_frame(m.rt, who, l.dtype, l.rows, l.cols, kind, out, [&](norm_partial &part, auto x) {
        using T = decltype(x);
        return m.on_host_tiles(who, false, [&](uint64_t ti, uint64_t tj, const uint64_t *offsets, const uint64_t *indices,
                                               void *values, uint64_t) {
            for (uint64_t r = 0; r < l.tile_rows_of(ti); ++r)
                for (uint64_t e = offsets[r]; e < offsets[r + 1]; ++e)
                    part.add(ti * l.tile_rows + r, tj * l.tile_cols + indices[e], double(static_cast<const T *>(values)[e]));
            return PGDDS_OK;
        });
    });
}

namespace {

// The new matrix of layout l from this rank's tiles, made by tile(ti, tj, out) each; collective.
template <class Tile> status build(const char *who, runtime *rt, const layout &l, Tile tile, smatrix *&out)
{
    std::vector<csr_tile> mine(l.slots_per_rank);
    status st = grb_start(who);
    l.for_tiles_of(rt->rank(), [&](uint64_t ti, uint64_t tj) {
        if (st == PGDDS_OK) st = tile(ti, tj, mine[l.slot(ti, tj)]);
    });
    st = containers::agree(rt, who, st);
    return st == PGDDS_OK ? smatrix::from_tiles(rt, who, l, mine, out) : st;
}

}  // namespace

status transpose(const char *who, const smatrix &a, smatrix *&out)
{
    // C's layout is A's with rows and columns swapped: C's tile (i, j) is A's tile (j, i).
    const layout &la = a.lay();
    pgdds_dmatrix_params_t p{};
    p.field_mask = PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE | PGDDS_DMATRIX_FIELD_MEMORY;
    p.rows = la.cols;
    p.cols = la.rows;
    p.dtype = la.dtype;
    p.distribution = PGDDS_DIST_CUSTOM;
    p.grid_rows = la.grid_cols;
    p.grid_cols = la.grid_rows;
    p.tile_rows = la.tile_cols;
    p.tile_cols = la.tile_rows;
    p.memory = la.memory;
    layout lc;
    status st = layout::from_params(who, p, a.rt->nranks(), lc, true);
    if (st != PGDDS_OK) return st;
    csr_tile at;
    return build(who, a.rt, lc, [&](uint64_t i, uint64_t j, csr_tile &c) {
        if (a.tile(j, i).nnz == 0) return PGDDS_OK;
        status s = a.fetch_tile(who, j, i, at);
        if (s != PGDDS_OK) return s;
        return typed(la.dtype, [&](auto x) {
            using T = decltype(x);
            const uint64_t rows = la.tile_rows_of(j), cols = la.tile_cols_of(i);
            GrB_Matrix A = nullptr, C = nullptr;
            GrB_Info info = import_tile<T>(&A, rows, cols, at);
            if (info == GrB_SUCCESS) info = GrB_Matrix_new(&C, grb<T>::type(), cols, rows);
            if (info == GrB_SUCCESS) info = GrB_transpose(C, nullptr, nullptr, A, nullptr);
            if (info == GrB_SUCCESS) info = export_tile<T>(C, cols, c);
            GrB_Matrix_free(&A);
            GrB_Matrix_free(&C);
            return info == GrB_SUCCESS ? PGDDS_OK : grb_failed(who, "GrB_transpose", info);
        });
    }, out);
}

status add(const char *who, double alpha, const smatrix &a, double beta, const smatrix &b, smatrix *&out)
{
    const layout &la = a.lay(), &lb = b.lay();
    if (a.ctx != b.ctx) return fail(PGDDS_ERR_INVALID_ARG, "%s: the matrices belong to different contexts", who);
    if (la.rows != lb.rows || la.cols != lb.cols)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: A is %llu x %llu but B %llu x %llu", who, (unsigned long long)la.rows,
                    (unsigned long long)la.cols, (unsigned long long)lb.rows, (unsigned long long)lb.cols);
    if (la.tile_rows != lb.tile_rows || la.tile_cols != lb.tile_cols)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: A's tiles are %llu x %llu but B's %llu x %llu", who,
                    (unsigned long long)la.tile_rows, (unsigned long long)la.tile_cols, (unsigned long long)lb.tile_rows,
                    (unsigned long long)lb.tile_cols);
    if (la.dtype != lb.dtype) return fail(PGDDS_ERR_INVALID_ARG, "%s: A and B have different element types", who);
    if (la.memory != lb.memory) return fail(PGDDS_ERR_INVALID_ARG, "%s: A and B are in different memory kinds", who);
    status st = check_scalars(who, la.dtype, alpha, beta);
    if (st != PGDDS_OK) return st;
    csr_tile at, bt;
    return build(who, a.rt, la, [&](uint64_t i, uint64_t j, csr_tile &c) {
        const bool in_a = a.tile(i, j).nnz != 0, in_b = b.tile(i, j).nnz != 0;
        status s = in_a ? a.fetch_tile(who, i, j, at) : PGDDS_OK;
        if (s == PGDDS_OK && in_b) s = b.fetch_tile(who, i, j, bt);
        if (s != PGDDS_OK || !(in_a || in_b)) return s;
        if (in_a) kernels::scale(kernels::place{}, la.dtype, 1, at.nnz(), alpha, at.values.data(), at.nnz());
        if (in_b) kernels::scale(kernels::place{}, la.dtype, 1, bt.nnz(), beta, bt.values.data(), bt.nnz());
        if (!(in_a && in_b)) {
            c = std::move(in_a ? at : bt);
            return PGDDS_OK;
        }
        return typed(la.dtype, [&](auto x) {
            using T = decltype(x);
            const uint64_t rows = la.tile_rows_of(i), cols = la.tile_cols_of(j);
            GrB_Matrix A = nullptr, B = nullptr, C = nullptr;
            GrB_Info info = import_tile<T>(&A, rows, cols, at);
            if (info == GrB_SUCCESS) info = import_tile<T>(&B, rows, cols, bt);
            if (info == GrB_SUCCESS) info = GrB_Matrix_new(&C, grb<T>::type(), rows, cols);
            if (info == GrB_SUCCESS) info = GrB_Matrix_eWiseAdd_BinaryOp(C, nullptr, nullptr, grb<T>::plus(), A, B, nullptr);
            if (info == GrB_SUCCESS) info = export_tile<T>(C, rows, c);
            GrB_Matrix_free(&A);
            GrB_Matrix_free(&B);
            GrB_Matrix_free(&C);
            return info == GrB_SUCCESS ? PGDDS_OK : grb_failed(who, "GrB_eWiseAdd", info);
        });
    }, out);
}

}  // namespace pgdds::matrix
