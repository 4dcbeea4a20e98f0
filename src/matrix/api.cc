// The C entry points of include/pgdds/matrix.h: handle checks, argument checks, then dmatrix,
// or the region a handle shows (a whole matrix or a view, region.h).
#include "elementwise.h"
#include "entry.h"
#include "gemm.h"
#include "region.h"
#include "scratch.h"

using namespace pgdds;
using namespace pgdds::matrix;

namespace {

constexpr const char *what = "dense matrix";

unsigned long long u(uint64_t v) { return v; }

// A matrix itself; a view, which has no tiles of its own, is refused.
template <class Op> status with_matrix(pgdds_dmatrix_t h, const char *who, const void *p, const char *name, Op op)
{
    return with_handle<dmatrix>(h, dmatrix_magic, who, what, p, name, [&](dmatrix &m) {
        return m.is_view() ? fail(PGDDS_ERR_INVALID_ARG, "%s: the matrix is a view (pgdds_dmatrix_view), which has no "
                                  "tiles of its own", who)
                           : op(m);
    });
}

// What a handle shows, a whole matrix or a view: op(region).
template <class Op> status with_region(pgdds_dmatrix_t h, const char *who, const void *p, const char *name, Op op)
{
    return with_handle<dmatrix>(h, dmatrix_magic, who, what, p, name, [&](dmatrix &m) {
        region r;
        status st = m.shown(who, r);
        return st == PGDDS_OK ? op(r) : st;
    });
}

// What the handle of operand `name` shows.
status shown_by(pgdds_dmatrix_t h, const char *who, const char *name, region &out)
{
    dmatrix *m = nullptr;
    status st = containers::resolve(h, dmatrix_magic, who, name, m);
    return st == PGDDS_OK ? m->shown(who, out) : st;
}

// The GEMM entries: the handles, then check_gemm and gemm on op(A) and op(B). A and B are read
// where they lie, views on tile edges too (a transposed view as a transposed operand); what the
// algorithm cannot read in place, and a view as C, goes through a scratch copy (scratch.h).
status gemm_entry(const char *who, bool trans_a, bool trans_b, double alpha, pgdds_dmatrix_t a, pgdds_dmatrix_t b,
                  double beta, pgdds_dmatrix_t c, pgdds_gemm_algorithm_t algorithm)
{
    region ra, rb, rc;
    status st = shown_by(a, who, "dense matrix A", ra);
    if (st == PGDDS_OK) st = shown_by(b, who, "dense matrix B", rb);
    if (st == PGDDS_OK) st = shown_by(c, who, "dense matrix C", rc);
    if (st != PGDDS_OK) return st;
    // Views are local handles: every rank must show the same parts, since what is copied follows.
    const int alg = enum_value(algorithm);
    st = ra.m->ctx != rc.m->ctx || rb.m->ctx != rc.m->ctx
             ? fail(PGDDS_ERR_INVALID_ARG, "%s: the matrices belong to different contexts", who)
             : check_algorithm(who, alg);
    st = containers::agree_arguments(rc.m->rt, who, st,
                                     {ra.fingerprint(), rb.fingerprint(), rc.fingerprint(), uint64_t(trans_a),
                                      uint64_t(trans_b), uint64_t(alg)});
    if (st != PGDDS_OK) return st;
    const bool summa = alg == PGDDS_GEMM_SUMMA;
    // SUMMA's broadcasts follow the grid of ranks: its copies go on C's.
    const layout &lc = rc.m->lay();
    const int grid_rows = rc.trans ? lc.grid_cols : lc.grid_rows, grid_cols = rc.trans ? lc.grid_rows : lc.grid_cols;
    scratch sa, sb, sc;
    auto in_place = [&](const region &r, bool t) {
        const layout &l = r.m->lay();
        const bool turned = r.trans != t, host = l.memory == PGDDS_MEMORY_HOST;
        const bool summa_ready = !turned && r.is_whole() && !l.col_major && l.grid_rows == grid_rows &&
                                 l.grid_cols == grid_cols;
        return r.on_tile_edges() && (host || !turned) && (!summa || summa_ready);
    };
    auto stage = [&](scratch &s, const region &r, bool t, bool copy) {
        return summa ? s.make(who, r.turned(t), grid_rows, grid_cols, copy) : s.make(who, r.turned(t), copy);
    };
    if (!in_place(ra, trans_a)) st = stage(sa, ra, trans_a, true);
    if (st == PGDDS_OK && !in_place(rb, trans_b)) st = stage(sb, rb, trans_b, true);
    if (st == PGDDS_OK && (!rc.is_whole() || (summa && lc.col_major))) st = stage(sc, rc, false, beta != 0);
    if (st != PGDDS_OK) return st;
    const operand opa = sa.made() ? operand_of(sa.whole(), false) : operand_of(ra, trans_a);
    const operand opb = sb.made() ? operand_of(sb.whole(), false) : operand_of(rb, trans_b);
    const dmatrix &mc = sc.made() ? *sc.whole().m : *rc.m;
    st = check_gemm(who, alpha, opa, opb, beta, mc, alg);
    if (st == PGDDS_OK) st = gemm(who, alpha, opa, opb, beta, mc, alg);
    if (st == PGDDS_OK && sc.made()) st = sc.write_back(who);
    return scratch::release(who, st, {&sa, &sb, &sc});
}

// The element-wise entries on A and B: what both handles show, then op(A, B).
template <class Op> status with_pair(const char *who, pgdds_dmatrix_t a, pgdds_dmatrix_t b, Op op)
{
    region ra;
    status st = shown_by(a, who, "dense matrix A", ra);
    if (st != PGDDS_OK) return st;
    return with_region(b, who, nullptr, nullptr, [&](region &rb) { return op(ra, rb); });
}

// Tile (ti, tj) of what a handle shows, checked: of a matrix, or of a view whose edges lie on
// tile edges, a block of its matrix's tiles, maybe transposed (the view's buffers, in its own
// order, are then the tiles' bytes as they lie). op(m, mti, mtj, o): the matrix, its own tile
// and the block.
template <class Op>
status with_tile_of(pgdds_dmatrix_t h, const char *who, const void *p, const char *name, uint64_t ti, uint64_t tj, Op op)
{
    return with_region(h, who, p, name, [&](region &r) {
        if (!r.on_tile_edges())
            return fail(PGDDS_ERR_INVALID_ARG, "%s: the view shows rows [%llu, %llu) x columns [%llu, %llu) of a "
                        "matrix of %llu x %llu tiles, cutting tiles; tile calls take views whose edges lie on tile "
                        "edges (or the matrix's)", who, u(r.r0), u(r.r0 + r.m_rows()), u(r.c0), u(r.c0 + r.m_cols()),
                        u(r.m->lay().tile_rows), u(r.m->lay().tile_cols));
        const operand o = operand_of(r, false);
        status st = o.shape().check_tile(who, ti, tj);
        return st == PGDDS_OK ? op(*r.m, o.row_of(ti, tj), o.col_of(ti, tj), o) : st;
    });
}

// The same with the caller's buffer for the tile and its ld resolved: op(m, mti, mtj, eff).
template <class Op>
status with_tile(pgdds_dmatrix_t h, const char *who, uint64_t ti, uint64_t tj, const void *buf, uint64_t ld, Op op)
{
    return with_tile_of(h, who, buf, "buf", ti, tj, [&](const dmatrix &m, uint64_t mti, uint64_t mtj, const operand &o) {
        uint64_t eff = 0;
        status st = check_ld(who, o.transposed != m.lay().col_major, ld, o.tile_rows_of(ti), o.tile_cols_of(tj), eff);
        return st == PGDDS_OK ? op(m, mti, mtj, eff) : st;
    });
}

status slice(pgdds_dmatrix_t h, const char *who, uint64_t row0, uint64_t col0, uint64_t nrows, uint64_t ncols,
             void *buf, uint64_t ld, bool put)
{
    return with_region(h, who, buf, "buf", [&](region &r) {
        uint64_t eff = 0;
        status st = check_slice(who, r.rows, r.cols, row0, col0, nrows, ncols);
        if (st == PGDDS_OK) st = check_ld(who, r.col_major(), ld, nrows, ncols, eff);
        return st == PGDDS_OK ? r.slice(who, row0, col0, nrows, ncols, buf, eff, put) : st;
    });
}

status tile_nb(pgdds_dmatrix_t h, const char *who, uint64_t ti, uint64_t tj, void *buf, pgdds_request_t *req, bool put)
{
    if (!req) return with_matrix(h, who, nullptr, "req", [](dmatrix &) { return PGDDS_OK; });
    return with_tile(h, who, ti, tj, buf, 0, [&](const dmatrix &m, uint64_t mti, uint64_t mtj, uint64_t) {
        const size_t bytes = m.lay().tile_rows_of(mti) * m.lay().tile_cols_of(mtj) * m.lay().esize;
        status st = put ? pgdds_put_nb(m.ctx, m.tile_gptr(mti, mtj), buf, bytes, req)
                        : pgdds_get_nb(m.ctx, buf, m.tile_gptr(mti, mtj), bytes, req);
        return st == PGDDS_OK ? st : fail_prefix(st, who);
    });
}

}  // namespace

extern "C" {

pgdds_status_t pgdds_dmatrix_create(pgdds_context_t ctx, const pgdds_dmatrix_params_t *params, pgdds_dmatrix_t *matrix)
{
    const char *who = "pgdds_dmatrix_create";
    return create_handle<dmatrix>(ctx, who, dmatrix_magic, params, matrix,
                                  [&](runtime *rt, dmatrix *&impl) { return dmatrix::create(rt, who, *params, impl); });
}

pgdds_status_t pgdds_dmatrix_destroy(pgdds_dmatrix_t matrix)
{
    return destroy_handle(matrix, dmatrix_magic, "pgdds_dmatrix_destroy", what);
}

pgdds_status_t pgdds_dmatrix_order(pgdds_dmatrix_t matrix, pgdds_order_t *order)
{
    return with_region(matrix, "pgdds_dmatrix_order", order, "order", [&](region &r) {
        *order = r.col_major() ? PGDDS_COL_MAJOR : PGDDS_ROW_MAJOR;
        return PGDDS_OK;
    });
}

pgdds_status_t pgdds_dmatrix_info(pgdds_dmatrix_t matrix, pgdds_dmatrix_info_t *info)
{
    const char *who = "pgdds_dmatrix_info";
    return with_handle<dmatrix>(matrix, dmatrix_magic, who, what, info, "info", [&](dmatrix &m) {
        region r;
        status st = m.shown(who, r);
        if (st != PGDDS_OK) return st;
        pgdds_dmatrix_info_t out = info_of(r.m->lay());
        if (m.is_view()) {  // its shape, and its tiles where its edges lie on tile edges (else 0)
            const bool tiled = r.on_tile_edges();
            const layout o = tiled ? operand_of(r, false).shape() : layout();
            out.rows = r.rows, out.cols = r.cols;
            out.tile_rows = tiled ? o.tile_rows : 0, out.tile_cols = tiled ? o.tile_cols : 0;
            out.tile_grid_rows = tiled ? o.tgrid_rows : 0, out.tile_grid_cols = tiled ? o.tgrid_cols : 0;
        }
        *info = out;
        return PGDDS_OK;
    });
}

pgdds_status_t pgdds_dmatrix_view(pgdds_dmatrix_t matrix, pgdds_trans_t trans, uint64_t row0, uint64_t col0, uint64_t rows,
                                  uint64_t cols, pgdds_dmatrix_t *view)
{
    const char *who = "pgdds_dmatrix_view";
    return with_handle<dmatrix>(matrix, dmatrix_magic, who, what, view, "view", [&](dmatrix &m) {
        const int t = enum_value(trans);
        if (t != PGDDS_NO_TRANS && t != PGDDS_TRANS)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: trans %d is neither PGDDS_NO_TRANS nor PGDDS_TRANS", who, t);
        if (rows == 0 || cols == 0) return fail(PGDDS_ERR_INVALID_ARG, "%s: a %llu x %llu view is empty", who,
                                                (unsigned long long)rows, (unsigned long long)cols);
        region r;
        status st = m.shown(who, r);
        const bool turn = t == PGDDS_TRANS;
        if (st == PGDDS_OK) st = check_slice(who, turn ? r.cols : r.rows, turn ? r.rows : r.cols, row0, col0, rows, cols);
        if (st != PGDDS_OK) return st;
        // A view of a view shows the same matrix: its handle is the one to check for life.
        dmatrix *impl = nullptr;
        st = dmatrix::make_view(m.is_view() ? m.root() : matrix, r.sub(turn, row0, col0, rows, cols), impl);
        if (st == PGDDS_OK) st = containers::make_handle(dmatrix_magic, impl, *view);
        if (st != PGDDS_OK) delete impl;
        return st;
    });
}

pgdds_status_t pgdds_dmatrix_steals(pgdds_dmatrix_t c, pgdds_matrix_steals_t *out)
{
    return with_matrix(c, "pgdds_dmatrix_steals", out, "out", [&](dmatrix &m) {
        *out = m.steals();
        return PGDDS_OK;
    });
}

pgdds_status_t pgdds_dmatrix_tile_shape(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, uint64_t *rows,
                                        uint64_t *cols, int *owner)
{
    const char *who = "pgdds_dmatrix_tile_shape";
    auto shape = [&](const dmatrix &m, uint64_t mti, uint64_t mtj, const operand &o) {
        if (rows) *rows = o.tile_rows_of(ti);
        if (cols) *cols = o.tile_cols_of(tj);
        if (owner) *owner = m.lay().owner(mti, mtj);
        return PGDDS_OK;
    };
    return with_tile_of(matrix, who, nullptr, nullptr, ti, tj, shape);
}

pgdds_status_t pgdds_dmatrix_tile_gptr(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, pgdds_gptr_t *out)
{
    const char *who = "pgdds_dmatrix_tile_gptr";
    return with_tile_of(matrix, who, out, "out", ti, tj, [&](const dmatrix &m, uint64_t mti, uint64_t mtj, const operand &) {
        *out = m.tile_gptr(mti, mtj);
        return PGDDS_OK;
    });
}

pgdds_status_t pgdds_dmatrix_local_tile(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, void **data)
{
    const char *who = "pgdds_dmatrix_local_tile";
    auto local = [&](const dmatrix &m, uint64_t mti, uint64_t mtj, const operand &) {
        status st = check_mine(who, m.lay(), m.rank(), mti, mtj);
        if (st == PGDDS_OK) *data = m.reachable(mti, mtj);
        return st;
    };
    return with_tile_of(matrix, who, data, "data", ti, tj, local);
}

pgdds_status_t pgdds_dmatrix_get_tile(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, void *buf, uint64_t ld)
{
    const char *who = "pgdds_dmatrix_get_tile";
    return with_tile(matrix, who, ti, tj, buf, ld, [&](const dmatrix &m, uint64_t mti, uint64_t mtj, uint64_t eff) {
        return m.get_tile(who, mti, mtj, buf, eff);
    });
}

pgdds_status_t pgdds_dmatrix_put_tile(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, const void *buf, uint64_t ld)
{
    const char *who = "pgdds_dmatrix_put_tile";
    return with_tile(matrix, who, ti, tj, buf, ld, [&](const dmatrix &m, uint64_t mti, uint64_t mtj, uint64_t eff) {
        return m.put_tile(who, mti, mtj, buf, eff);
    });
}

pgdds_status_t pgdds_dmatrix_accumulate_tile(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, const void *buf,
                                             uint64_t ld)
{
    const char *who = "pgdds_dmatrix_accumulate_tile";
    return with_tile(matrix, who, ti, tj, buf, ld, [&](const dmatrix &m, uint64_t mti, uint64_t mtj, uint64_t eff) {
        return m.accumulate_tile(who, mti, mtj, buf, eff);
    });
}

pgdds_status_t pgdds_dmatrix_accumulate_tile_nb(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, const void *buf,
                                                pgdds_request_t *req)
{
    const char *who = "pgdds_dmatrix_accumulate_tile_nb";
    if (!req) return with_matrix(matrix, who, nullptr, "req", [](dmatrix &) { return PGDDS_OK; });
    return with_tile(matrix, who, ti, tj, buf, 0, [&](const dmatrix &m, uint64_t mti, uint64_t mtj, uint64_t) {
        return m.accumulate_tile_nb(who, mti, mtj, buf, req);
    });
}

pgdds_status_t pgdds_dmatrix_get_tile_nb(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, void *buf,
                                         pgdds_request_t *req)
{
    return tile_nb(matrix, "pgdds_dmatrix_get_tile_nb", ti, tj, buf, req, false);
}

pgdds_status_t pgdds_dmatrix_put_tile_nb(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, const void *buf,
                                         pgdds_request_t *req)
{
    return tile_nb(matrix, "pgdds_dmatrix_put_tile_nb", ti, tj, const_cast<void *>(buf), req, true);
}

pgdds_status_t pgdds_dmatrix_get(pgdds_dmatrix_t matrix, uint64_t i, uint64_t j, void *value)
{
    if (!value) return with_matrix(matrix, "pgdds_dmatrix_get", nullptr, "value", [](dmatrix &) { return PGDDS_OK; });
    return slice(matrix, "pgdds_dmatrix_get", i, j, 1, 1, value, 1, false);
}

pgdds_status_t pgdds_dmatrix_put(pgdds_dmatrix_t matrix, uint64_t i, uint64_t j, const void *value)
{
    if (!value) return with_matrix(matrix, "pgdds_dmatrix_put", nullptr, "value", [](dmatrix &) { return PGDDS_OK; });
    return slice(matrix, "pgdds_dmatrix_put", i, j, 1, 1, const_cast<void *>(value), 1, true);
}

pgdds_status_t pgdds_dmatrix_get_slice(pgdds_dmatrix_t matrix, uint64_t row0, uint64_t col0, uint64_t nrows,
                                       uint64_t ncols, void *buf, uint64_t ld)
{
    return slice(matrix, "pgdds_dmatrix_get_slice", row0, col0, nrows, ncols, buf, ld, false);
}

pgdds_status_t pgdds_dmatrix_put_slice(pgdds_dmatrix_t matrix, uint64_t row0, uint64_t col0, uint64_t nrows,
                                       uint64_t ncols, const void *buf, uint64_t ld)
{
    return slice(matrix, "pgdds_dmatrix_put_slice", row0, col0, nrows, ncols, const_cast<void *>(buf), ld, true);
}

pgdds_status_t pgdds_dmatrix_fill(pgdds_dmatrix_t matrix, pgdds_dmatrix_generator_t generator, void *arg)
{
    const char *who = "pgdds_dmatrix_fill";
    return with_region(matrix, who, reinterpret_cast<const void *>(generator), "generator",
                       [&](region &r) { return fill(who, r, generator, arg); });
}

pgdds_status_t pgdds_dmatrix_gemm(double alpha, pgdds_dmatrix_t a, pgdds_dmatrix_t b, double beta, pgdds_dmatrix_t c,
                                  pgdds_gemm_algorithm_t algorithm)
{
    return gemm_entry("pgdds_dmatrix_gemm", false, false, alpha, a, b, beta, c, algorithm);
}

pgdds_status_t pgdds_dmatrix_gemm_trans(pgdds_trans_t trans_a, pgdds_trans_t trans_b, double alpha, pgdds_dmatrix_t a,
                                        pgdds_dmatrix_t b, double beta, pgdds_dmatrix_t c, pgdds_gemm_algorithm_t algorithm)
{
    const char *who = "pgdds_dmatrix_gemm_trans";
    for (int t : {enum_value(trans_a), enum_value(trans_b)})
        if (t != PGDDS_NO_TRANS && t != PGDDS_TRANS)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: trans %d is neither PGDDS_NO_TRANS nor PGDDS_TRANS", who, t);
    return gemm_entry(who, trans_a == PGDDS_TRANS, trans_b == PGDDS_TRANS, alpha, a, b, beta, c, algorithm);
}

pgdds_status_t pgdds_dmatrix_scale(double alpha, pgdds_dmatrix_t matrix)
{
    const char *who = "pgdds_dmatrix_scale";
    return with_region(matrix, who, nullptr, nullptr, [&](region &r) { return scale(who, alpha, r); });
}

pgdds_status_t pgdds_dmatrix_add(double alpha, pgdds_dmatrix_t a, double beta, pgdds_dmatrix_t b)
{
    const char *who = "pgdds_dmatrix_add";
    return with_pair(who, a, b, [&](region &ra, region &rb) { return add(who, alpha, ra, beta, rb); });
}

pgdds_status_t pgdds_dmatrix_transpose(pgdds_dmatrix_t a, pgdds_dmatrix_t b)
{
    const char *who = "pgdds_dmatrix_transpose";
    return with_pair(who, a, b, [&](region &ra, region &rb) { return transpose(who, ra, rb); });
}

pgdds_status_t pgdds_dmatrix_apply(pgdds_dmatrix_t matrix, pgdds_dmatrix_apply_t fn, void *arg)
{
    const char *who = "pgdds_dmatrix_apply";
    return with_region(matrix, who, nullptr, nullptr, [&](region &r) { return apply(who, r, fn, arg); });
}

pgdds_status_t pgdds_dmatrix_reduce(pgdds_dmatrix_t matrix, pgdds_op_t op, void *out)
{
    const char *who = "pgdds_dmatrix_reduce";
    return with_region(matrix, who, nullptr, nullptr, [&](region &r) { return reduce(who, r, enum_value(op), out); });
}

pgdds_status_t pgdds_dmatrix_norm(pgdds_dmatrix_t matrix, pgdds_norm_t norm, double *out)
{
    const char *who = "pgdds_dmatrix_norm";
    return with_region(matrix, who, nullptr, nullptr,
                       [&](region &r) { return pgdds::matrix::norm(who, r, enum_value(norm), out); });
}

}  // extern "C"
