// The C entry points of the sparse matrices (include/pgdds/matrix.h, libpgdds_smatrix).
#include "elementwise.h"
#include "entry.h"
#include "gemm.h"
#include "scratch.h"
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
    return with_handle<smatrix>(h, smatrix_magic, who, what, p, name, op);
}

template <class Make> status create(pgdds_context_t ctx, const char *who, const void *params, pgdds_smatrix_t *matrix, Make make)
{
    return create_handle<smatrix>(ctx, who, smatrix_magic, params, matrix, make);
}

// The checks of SpMM's entry points, then spmm. Its kernels read and write rows of whole
// matrices: a dense B or C that is a view or column-major goes through a row-major scratch copy
// (scratch.h).
status spmm_entry(const char *who, double alpha, pgdds_smatrix_t a, pgdds_dmatrix_t b, double beta, pgdds_dmatrix_t c,
                  int alg)
{
    dmatrix *mb = nullptr, *mc = nullptr;
    status st = containers::resolve(b, dmatrix_magic, who, "dense matrix B", mb);
    if (st == PGDDS_OK) st = containers::resolve(c, dmatrix_magic, who, "dense matrix C", mc);
    region rb, rc;
    if (st == PGDDS_OK) st = mb->shown(who, rb);
    if (st == PGDDS_OK) st = mc->shown(who, rc);
    if (st != PGDDS_OK) return st;
    return with_smatrix(a, who, nullptr, nullptr, [&](smatrix &ma) {
        status s = PGDDS_OK;
        if (ma.ctx != rc.m->ctx || rb.m->ctx != rc.m->ctx)
            s = fail(PGDDS_ERR_INVALID_ARG, "%s: the matrices belong to different contexts", who);
        else if (alg < PGDDS_GEMM_STATIONARY_C || alg > PGDDS_GEMM_STEAL_LOCALITY || alg == PGDDS_GEMM_SUMMA)
            s = fail(PGDDS_ERR_INVALID_ARG, "%s: algorithm %d is not one SpMM offers (stationary C, A or B, or work "
                     "stealing)", who, alg);
        // Views are local handles: every rank must show the same parts, since what is copied follows.
        s = containers::agree_arguments(ma.rt, who, s, {rb.fingerprint(), rc.fingerprint(), uint64_t(alg)});
        if (s != PGDDS_OK) return s;
        scratch sb, sc;
        auto in_place = [](const region &r) { return r.is_whole() && !r.m->lay().col_major; };
        if (!in_place(rb)) s = sb.make(who, rb, true);
        if (s == PGDDS_OK && !in_place(rc)) s = sc.make(who, rc, beta != 0);
        if (s != PGDDS_OK) return s;
        const dmatrix &db = sb.made() ? *sb.whole().m : *rb.m, &dc = sc.made() ? *sc.whole().m : *rc.m;
        if (&db == &dc) s = fail(PGDDS_ERR_INVALID_ARG, "%s: C is also B (C must be a matrix of its own)", who);
        if (s == PGDDS_OK) s = check_conform(who, ma.lay(), db.lay(), dc.lay());
        if (s == PGDDS_OK) s = check_scalars(who, dc.lay().dtype, alpha, beta);
        if (s == PGDDS_OK) s = spmm(who, alpha, ma, db, beta, dc, alg);
        if (s == PGDDS_OK && sc.made()) s = sc.write_back(who);
        return scratch::release(who, s, {&sb, &sc});
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
    return destroy_handle(matrix, smatrix_magic, "pgdds_smatrix_destroy", what);
}

pgdds_status_t pgdds_smatrix_info(pgdds_smatrix_t matrix, pgdds_dmatrix_info_t *info, uint64_t *nnz)
{
    return with_smatrix(matrix, "pgdds_smatrix_info", info, "info", [&](smatrix &m) {
        *info = info_of(m.lay());
        if (nnz) *nnz = m.nnz();
        return PGDDS_OK;
    });
}

pgdds_status_t pgdds_smatrix_steals(pgdds_smatrix_t c, pgdds_matrix_steals_t *out)
{
    return with_smatrix(c, "pgdds_smatrix_steals", out, "out", [&](smatrix &m) {
        *out = m.steals();
        return PGDDS_OK;
    });
}

pgdds_status_t pgdds_smatrix_tile_shape(pgdds_smatrix_t matrix, uint64_t ti, uint64_t tj, uint64_t *rows,
                                        uint64_t *cols, uint64_t *nnz, int *owner)
{
    const char *who = "pgdds_smatrix_tile_shape";
    return with_smatrix(matrix, who, nullptr, nullptr, [&](smatrix &m) {
        status st = m.lay().check_tile(who, ti, tj);
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
        status st = m.lay().check_tile(who, ti, tj);
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
        status st = check_mine(who, m.lay(), m.rank(), ti, tj);
        if (st != PGDDS_OK) return st;
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
        uint64_t eff = 0;
        status st = check_slice(who, m.lay().rows, m.lay().cols, row0, col0, nrows, ncols);
        if (st == PGDDS_OK) st = check_ld(who, false, ld, nrows, ncols, eff);
        return st == PGDDS_OK ? m.get_slice(who, row0, col0, nrows, ncols, buf, eff) : st;
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

pgdds_status_t pgdds_smatrix_scale(double alpha, pgdds_smatrix_t matrix)
{
    const char *who = "pgdds_smatrix_scale";
    return with_smatrix(matrix, who, nullptr, nullptr, [&](smatrix &m) { return scale(who, alpha, m); });
}

pgdds_status_t pgdds_smatrix_apply(pgdds_smatrix_t matrix, pgdds_dmatrix_apply_t fn, void *arg)
{
    const char *who = "pgdds_smatrix_apply";
    return with_smatrix(matrix, who, nullptr, nullptr, [&](smatrix &m) { return apply(who, m, fn, arg); });
}

pgdds_status_t pgdds_smatrix_reduce(pgdds_smatrix_t matrix, pgdds_op_t op, void *out)
{
    const char *who = "pgdds_smatrix_reduce";
    return with_smatrix(matrix, who, nullptr, nullptr, [&](smatrix &m) { return reduce(who, m, enum_value(op), out); });
}

pgdds_status_t pgdds_smatrix_norm(pgdds_smatrix_t matrix, pgdds_norm_t norm, double *out)
{
    const char *who = "pgdds_smatrix_norm";
    return with_smatrix(matrix, who, nullptr, nullptr,
                        [&](smatrix &m) { return pgdds::matrix::norm(who, m, enum_value(norm), out); });
}

pgdds_status_t pgdds_smatrix_transpose(pgdds_smatrix_t a, pgdds_smatrix_t *c)
{
    const char *who = "pgdds_smatrix_transpose";
    return with_smatrix(a, who, nullptr, nullptr, [&](smatrix &ma) {
        // No params: C's layout comes from A, which stands in for them in create's check.
        return create(ma.ctx, who, &ma, c, [&](runtime *, smatrix *&impl) { return transpose(who, ma, impl); });
    });
}

pgdds_status_t pgdds_smatrix_add(double alpha, pgdds_smatrix_t a, double beta, pgdds_smatrix_t b, pgdds_smatrix_t *c)
{
    const char *who = "pgdds_smatrix_add";
    smatrix *ma = nullptr, *mb = nullptr;
    status st = containers::resolve(a, smatrix_magic, who, "sparse matrix A", ma);
    if (st == PGDDS_OK) st = containers::resolve(b, smatrix_magic, who, "sparse matrix B", mb);
    if (st != PGDDS_OK) return st;
    // C takes A's layout; A stands in for the params create checks.
    return create(ma->ctx, who, ma, c, [&](runtime *, smatrix *&impl) { return add(who, alpha, *ma, beta, *mb, impl); });
}

}  // extern "C"
