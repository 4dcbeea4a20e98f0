// The C entry points of the sparse matrices (include/pgdds/matrix.h, libpgdds_smatrix).
#include "gemm.h"
#include "smatrix.h"

struct pgdds_smatrix {
    uint64_t magic;
    pgdds::matrix::smatrix *impl;
};

using namespace pgdds;
using namespace pgdds::matrix;

namespace {

constexpr uint64_t smatrix_magic = 0x70675370617273ull;  // "pgSpars"
constexpr const char *what = "sparse matrix";

template <class Op> status with_smatrix(pgdds_smatrix_t h, const char *who, const void *p, const char *name, Op op)
{
    smatrix *m = nullptr;
    status st = containers::resolve(h, smatrix_magic, who, what, m);
    if (st != PGDDS_OK) return st;
    if (name && !p) return fail(PGDDS_ERR_INVALID_ARG, "%s: %s is NULL", who, name);
    try {
        return op(*m);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

// A collective constructor's entry point: context and output checks, then make(rt, impl).
template <class Make> status create(pgdds_context_t ctx, const char *who, const void *params, pgdds_smatrix_t *matrix, Make make)
{
    runtime *rt = runtime::from(ctx);
    if (!rt) return fail(ctx ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG, "%s: the context is %s", who,
                         ctx ? "not live (finalized?)" : "NULL");
    if (!rt->thread_allowed()) return rt->check_thread(who);
    if (!params) return fail(PGDDS_ERR_INVALID_ARG, "%s: params is NULL", who);
    if (!matrix) return fail(PGDDS_ERR_INVALID_ARG, "%s: matrix is NULL", who);
    try {
        smatrix *impl = nullptr;
        status st = make(rt, impl);
        if (st != PGDDS_OK) return st;
        st = containers::make_handle(smatrix_magic, impl, *matrix);
        if (st != PGDDS_OK) {
            impl->destroy(who);
            delete impl;
        }
        return st;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

// The checks of SpMM's entry points, then spmm.
status spmm_entry(const char *who, double alpha, pgdds_smatrix_t a, pgdds_dmatrix_t b, double beta, pgdds_dmatrix_t c,
                  int alg)
{
    dmatrix *mb = nullptr, *mc = nullptr;
    status st = containers::resolve(b, dmatrix_magic, who, "dense matrix B", mb);
    if (st == PGDDS_OK) st = containers::resolve(c, dmatrix_magic, who, "dense matrix C", mc);
    if (st != PGDDS_OK) return st;
    return with_smatrix(a, who, nullptr, nullptr, [&](smatrix &ma) {
        if (ma.ctx != mc->ctx || mb->ctx != mc->ctx)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: the matrices belong to different contexts", who);
        if (mb == mc) return fail(PGDDS_ERR_INVALID_ARG, "%s: C is also B (C must be a matrix of its own)", who);
        if (alg < PGDDS_GEMM_STATIONARY_C || alg > PGDDS_GEMM_STEAL_LOCALITY || alg == PGDDS_GEMM_SUMMA)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: algorithm %d is not one SpMM offers (stationary C, A or B, or work "
                        "stealing)", who, alg);
        status s = check_conform(who, ma.lay(), mb->lay(), mc->lay());
        if (s == PGDDS_OK) s = check_scalars(who, mc->lay().dtype, alpha, beta);
        return s == PGDDS_OK ? spmm(who, alpha, ma, *mb, beta, *mc, alg) : s;
    });
}

}  // namespace

extern "C" {

pgdds_status_t pgdds_smatrix_create_coo(pgdds_context_t ctx, const pgdds_dmatrix_params_t *params, size_t count,
                                        const uint64_t *rows, const uint64_t *cols, const void *values,
                                        pgdds_smatrix_t *matrix)
{
    const char *who = "pgdds_smatrix_create_coo";
    return create(ctx, who, params, matrix, [&](runtime *rt, smatrix *&impl) {
        return smatrix::create_coo(rt, who, *params, count, rows, cols, values, impl);
    });
}

pgdds_status_t pgdds_smatrix_stencil(pgdds_context_t ctx, const pgdds_dmatrix_params_t *params, uint64_t nx, uint64_t ny,
                                     uint64_t nz, int points, pgdds_smatrix_t *matrix)
{
    const char *who = "pgdds_smatrix_stencil";
    return create(ctx, who, params, matrix,
                  [&](runtime *rt, smatrix *&impl) { return stencil(rt, who, *params, nx, ny, nz, points, impl); });
}

pgdds_status_t pgdds_smatrix_rmat(pgdds_context_t ctx, const pgdds_dmatrix_params_t *params, int scale, int edge_factor,
                                  uint64_t seed, pgdds_smatrix_t *matrix)
{
    const char *who = "pgdds_smatrix_rmat";
    return create(ctx, who, params, matrix,
                  [&](runtime *rt, smatrix *&impl) { return rmat(rt, who, *params, scale, edge_factor, seed, impl); });
}

pgdds_status_t pgdds_smatrix_read_mm(pgdds_context_t ctx, const char *path, const pgdds_dmatrix_params_t *params,
                                     pgdds_smatrix_t *matrix)
{
    const char *who = "pgdds_smatrix_read_mm";
    if (!path) return fail(PGDDS_ERR_INVALID_ARG, "%s: path is NULL", who);
    return create(ctx, who, params, matrix, [&](runtime *rt, smatrix *&impl) { return read_mm(rt, who, path, *params, impl); });
}

pgdds_status_t pgdds_smatrix_write_mm(pgdds_smatrix_t matrix, const char *path)
{
    const char *who = "pgdds_smatrix_write_mm";
    return with_smatrix(matrix, who, path, "path", [&](smatrix &m) { return write_mm(m, who, path); });
}

pgdds_status_t pgdds_smatrix_destroy(pgdds_smatrix_t matrix)
{
    const char *who = "pgdds_smatrix_destroy";
    if (!matrix || matrix->magic != smatrix_magic) return containers::bad_handle(matrix, who, what);
    status st = runtime::from(matrix->impl->ctx) ? matrix->impl->destroy(who)
                                                 : fail(PGDDS_ERR_STATE, "%s: the context was finalized first", who);
    containers::kill_handle(matrix);
    return st;
}

pgdds_status_t pgdds_smatrix_info(pgdds_smatrix_t matrix, pgdds_dmatrix_info_t *info, uint64_t *nnz)
{
    return with_smatrix(matrix, "pgdds_smatrix_info", info, "info", [&](smatrix &m) {
        const layout &l = m.lay();
        *info = pgdds_dmatrix_info_t{l.rows,      l.cols,      l.dtype,      l.esize,      l.grid_rows,
                                     l.grid_cols, l.tile_rows, l.tile_cols, l.tgrid_rows, l.tgrid_cols};
        if (nnz) *nnz = m.nnz();
        return PGDDS_OK;
    });
}

pgdds_status_t pgdds_smatrix_tile_shape(pgdds_smatrix_t matrix, uint64_t ti, uint64_t tj, uint64_t *rows,
                                        uint64_t *cols, uint64_t *nnz, int *owner)
{
    const char *who = "pgdds_smatrix_tile_shape";
    return with_smatrix(matrix, who, nullptr, nullptr, [&](smatrix &m) {
        status st = m.check_tile(who, ti, tj);
        if (st != PGDDS_OK) return st;
        if (rows) *rows = m.lay().tile_rows_of(ti);
        if (cols) *cols = m.lay().tile_cols_of(tj);
        if (nnz) *nnz = m.tile(ti, tj).nnz;
        if (owner) *owner = m.lay().owner(ti, tj);
        return PGDDS_OK;
    });
}

pgdds_status_t pgdds_smatrix_get_tile(pgdds_smatrix_t matrix, uint64_t ti, uint64_t tj, uint64_t *row_offsets,
                                      uint64_t *col_indices, void *values)
{
    const char *who = "pgdds_smatrix_get_tile";
    return with_smatrix(matrix, who, row_offsets, "row_offsets", [&](smatrix &m) {
        status st = m.check_tile(who, ti, tj);
        if (st != PGDDS_OK) return st;
        if (m.tile(ti, tj).nnz && (!col_indices || !values))
            return fail(PGDDS_ERR_INVALID_ARG, "%s: tile (%llu, %llu) holds %llu entries, but col_indices or values is NULL",
                        who, (unsigned long long)ti, (unsigned long long)tj, (unsigned long long)m.tile(ti, tj).nnz);
        return m.get_tile(who, ti, tj, row_offsets, col_indices, values);
    });
}

pgdds_status_t pgdds_smatrix_local_tile(pgdds_smatrix_t matrix, uint64_t ti, uint64_t tj, const uint64_t **row_offsets,
                                        const uint64_t **col_indices, const void **values)
{
    const char *who = "pgdds_smatrix_local_tile";
    return with_smatrix(matrix, who, reinterpret_cast<const void *>(row_offsets && col_indices && values),
                        "row_offsets, col_indices or values", [&](smatrix &m) {
        status st = m.check_tile(who, ti, tj);
        if (st != PGDDS_OK) return st;
        if (!m.mine(ti, tj))
            return fail(PGDDS_ERR_INVALID_ARG, "%s: tile (%llu, %llu) is rank %d's, not this rank's (%d)", who,
                        (unsigned long long)ti, (unsigned long long)tj, m.lay().owner(ti, tj), m.rank());
        const smatrix::tile_entry &t = m.tile(ti, tj);
        *row_offsets = static_cast<const uint64_t *>(pgdds_gptr_to_local(m.ctx, t.offsets));
        *col_indices = static_cast<const uint64_t *>(pgdds_gptr_to_local(m.ctx, t.indices));
        *values = pgdds_gptr_to_local(m.ctx, t.values);
        return PGDDS_OK;
    });
}

pgdds_status_t pgdds_smatrix_get_slice(pgdds_smatrix_t matrix, uint64_t row0, uint64_t col0, uint64_t nrows,
                                       uint64_t ncols, void *buf, uint64_t ld)
{
    const char *who = "pgdds_smatrix_get_slice";
    return with_smatrix(matrix, who, buf, "buf", [&](smatrix &m) {
        const layout &l = m.lay();
        if (row0 > l.rows || nrows > l.rows - row0 || col0 > l.cols || ncols > l.cols - col0)
            return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: rows [%llu, +%llu) x columns [%llu, +%llu) leave the %llu x %llu matrix",
                        who, (unsigned long long)row0, (unsigned long long)nrows, (unsigned long long)col0,
                        (unsigned long long)ncols, (unsigned long long)l.rows, (unsigned long long)l.cols);
        if (ld != 0 && ld < ncols)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: ld %llu is below the %llu columns", who, (unsigned long long)ld,
                        (unsigned long long)ncols);
        return m.get_slice(who, row0, col0, nrows, ncols, buf, ld ? ld : ncols);
    });
}

pgdds_status_t pgdds_smatrix_spmm_algorithm(double alpha, pgdds_smatrix_t a, pgdds_dmatrix_t b, double beta,
                                            pgdds_dmatrix_t c, pgdds_gemm_algorithm_t algorithm)
{
    return spmm_entry("pgdds_smatrix_spmm_algorithm", alpha, a, b, beta, c, enum_value(algorithm));
}

pgdds_status_t pgdds_smatrix_spmm(double alpha, pgdds_smatrix_t a, pgdds_dmatrix_t b, double beta, pgdds_dmatrix_t c)
{
    return spmm_entry("pgdds_smatrix_spmm", alpha, a, b, beta, c, PGDDS_GEMM_STATIONARY_C);
}

pgdds_status_t pgdds_smatrix_spgemm(double alpha, pgdds_smatrix_t a, pgdds_smatrix_t b, const pgdds_dmatrix_params_t *params,
                                    pgdds_gemm_algorithm_t algorithm, pgdds_smatrix_t *c)
{
    const char *who = "pgdds_smatrix_spgemm";
    smatrix *ma = nullptr, *mb = nullptr;
    status st = containers::resolve(a, smatrix_magic, who, "sparse matrix A", ma);
    if (st == PGDDS_OK) st = containers::resolve(b, smatrix_magic, who, "sparse matrix B", mb);
    if (st != PGDDS_OK) return st;
    if (ma->ctx != mb->ctx) return fail(PGDDS_ERR_INVALID_ARG, "%s: the matrices belong to different contexts", who);
    return create(ma->ctx, who, params, c, [&](runtime *, smatrix *&impl) {
        return spgemm(who, alpha, *ma, *mb, *params, enum_value(algorithm), impl);
    });
}

}  // extern "C"
