// From the distributions of pgdds_dmatrix_params_t (BCL thesis Table 7.1) to a layout: the grid
// of ranks, the tile size, the tile grid and the slots each rank reserves.
#include "entry.h"

#include <climits>

namespace pgdds::matrix {
namespace {

uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The near-square grid of n ranks: the largest divisor of n not above its square root, by the rest.
void near_square(int n, int &r, int &c)
{
    r = 1;
    for (int d = 1; d * d <= n; ++d)
        if (n % d == 0) r = d;
    c = n / r;
}

// t is the int value of a caller's pgdds_dtype_t (enum_value): one outside the enum is no
// pgdds_dtype_t to copy.
size_t elem_size(int t)
{
    switch (t) {
    case PGDDS_FLOAT:
    case PGDDS_INT32: return 4;
    case PGDDS_DOUBLE:
    case PGDDS_INT64: return 8;
    default: return 0;
    }
}

}  // namespace

status layout::from_params(const char *who, const pgdds_dmatrix_params_t &p, int nranks, layout &out, bool sparse)
{
    layout l;
    l.rows = p.rows;
    l.cols = p.cols;
    l.esize = elem_size(enum_value(p.dtype));
    if (l.esize == 0)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: dtype %d is not one of PGDDS_FLOAT, PGDDS_DOUBLE, PGDDS_INT32, PGDDS_INT64",
                    who, enum_value(p.dtype));
    l.dtype = p.dtype;
    if (p.rows == 0 || p.cols == 0)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: a %llu x %llu matrix is empty (at least one row and one column)", who,
                    (unsigned long long)p.rows, (unsigned long long)p.cols);
    const int dist = enum_value(p.distribution);
    if (dist < PGDDS_DIST_BLOCK_ROW || dist > PGDDS_DIST_CUSTOM)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: distribution %d is not a pgdds_dist_t", who, dist);
    const bool grid_given = p.field_mask & PGDDS_DMATRIX_FIELD_GRID, tile_given = p.field_mask & PGDDS_DMATRIX_FIELD_TILE;
    if (p.field_mask & ~uint64_t(PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE | PGDDS_DMATRIX_FIELD_MEMORY |
                                 PGDDS_DMATRIX_FIELD_ORDER))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: field_mask 0x%llx has bits it does not know", who,
                    (unsigned long long)p.field_mask);
    if (p.field_mask & PGDDS_DMATRIX_FIELD_MEMORY) {
        const int kind = enum_value(p.memory);
        if (kind != PGDDS_MEMORY_HOST && kind != PGDDS_MEMORY_CUDA)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: memory %d is not a pgdds_memory_kind_t", who, kind);
        // cuBLAS multiplies float and double only.
        if (kind == PGDDS_MEMORY_CUDA && l.esize != 0 && p.dtype != PGDDS_FLOAT && p.dtype != PGDDS_DOUBLE)
            return fail(PGDDS_ERR_UNSUPPORTED, "%s: matrices in GPU memory hold PGDDS_FLOAT or PGDDS_DOUBLE, not dtype %d",
                        who, enum_value(p.dtype));
        l.memory = p.memory;
    }
    if (p.field_mask & PGDDS_DMATRIX_FIELD_ORDER) {
        const int order = enum_value(p.order);
        if (order != PGDDS_ROW_MAJOR && order != PGDDS_COL_MAJOR)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: order %d is not a pgdds_order_t", who, order);
        // CSR tiles are row-major by construction; the device kernels take row-major tiles.
        if (order == PGDDS_COL_MAJOR && sparse)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: a sparse matrix's CSR tiles are row-major (order %d)", who, order);
        if (order == PGDDS_COL_MAJOR && l.memory == PGDDS_MEMORY_CUDA)
            return fail(PGDDS_ERR_UNSUPPORTED, "%s: column-major tiles are in host memory only", who);
        l.col_major = order == PGDDS_COL_MAJOR;
    }
    if (dist == PGDDS_DIST_CUSTOM && !(grid_given && tile_given))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_DIST_CUSTOM needs both the grid and the tile size "
                    "(PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE)", who);
    if (dist == PGDDS_DIST_BLOCK_2D && tile_given)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_DIST_BLOCK_2D sets its own tile size (one tile per rank); "
                    "give a tile size with PGDDS_DIST_BLOCK_CYCLIC or PGDDS_DIST_CUSTOM", who);

    // The grid of ranks.
    if (dist == PGDDS_DIST_BLOCK_ROW) l.grid_rows = nranks, l.grid_cols = 1;
    else if (dist == PGDDS_DIST_BLOCK_COL) l.grid_rows = 1, l.grid_cols = nranks;
    else near_square(nranks, l.grid_rows, l.grid_cols);
    if (grid_given) {
        if (p.grid_rows < 1 || p.grid_cols < 1 || int64_t(p.grid_rows) * p.grid_cols != nranks)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: a %d x %d grid of ranks does not hold the job's %d ranks", who,
                        p.grid_rows, p.grid_cols, nranks);
        if ((dist == PGDDS_DIST_BLOCK_ROW || dist == PGDDS_DIST_BLOCK_COL) &&
            (p.grid_rows != l.grid_rows || p.grid_cols != l.grid_cols))
            return fail(PGDDS_ERR_INVALID_ARG, "%s: a block-%s distribution has a %d x %d grid, not %d x %d", who,
                        dist == PGDDS_DIST_BLOCK_ROW ? "row" : "column", l.grid_rows, l.grid_cols, p.grid_rows,
                        p.grid_cols);
        l.grid_rows = p.grid_rows;
        l.grid_cols = p.grid_cols;
    }

    // The tile size: given, else div (the dimension over the grid's), else the distribution's.
    uint64_t tr = tile_given ? p.tile_rows : 0, tc = tile_given ? p.tile_cols : 0;
    if (dist == PGDDS_DIST_BLOCK_ROW) {
        if (tc != 0 && tc != p.cols)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: block-row tiles span the %llu columns, not %llu", who,
                        (unsigned long long)p.cols, (unsigned long long)tc);
        tc = p.cols;
    } else if (dist == PGDDS_DIST_BLOCK_COL) {
        if (tr != 0 && tr != p.rows)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: block-column tiles span the %llu rows, not %llu", who,
                        (unsigned long long)p.rows, (unsigned long long)tr);
        tr = p.rows;
    } else if (dist == PGDDS_DIST_BLOCK_CYCLIC && !tile_given) {
        tr = tc = PGDDS_DMATRIX_DEFAULT_TILE;
    }
    if (tr == 0) tr = div_up(p.rows, uint64_t(l.grid_rows));
    if (tc == 0) tc = div_up(p.cols, uint64_t(l.grid_cols));
    l.tile_rows = tr < p.rows ? tr : p.rows;
    l.tile_cols = tc < p.cols ? tc : p.cols;
    // CBLAS takes int dimensions; a dense tile of 2^31 elements is far beyond any segment anyway.
    if (l.tile_rows > INT_MAX || l.tile_cols > INT_MAX || (!sparse && l.tile_rows * l.tile_cols > (uint64_t(1) << 31)))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: a %llu x %llu tile is too large (%s)", who,
                    (unsigned long long)l.tile_rows, (unsigned long long)l.tile_cols,
                    sparse ? "each side at most 2^31 - 1" : "at most 2^31 elements, each side at most 2^31 - 1");
    l.tgrid_rows = div_up(p.rows, l.tile_rows);
    l.tgrid_cols = div_up(p.cols, l.tile_cols);
    l.slots_per_rank = div_up(l.tgrid_rows, uint64_t(l.grid_rows)) * div_up(l.tgrid_cols, uint64_t(l.grid_cols));
    out = l;
    return PGDDS_OK;
}

status layout::agreed(runtime *rt, const char *who, const pgdds_dmatrix_params_t &p, layout &out, bool sparse)
{
    status st = from_params(who, p, rt->nranks(), out, sparse);
    return containers::agree_arguments(
        rt, who, st,
        {p.field_mask, p.rows, p.cols, uint64_t(enum_value(p.dtype)), uint64_t(enum_value(p.distribution)),
         uint64_t(p.field_mask & PGDDS_DMATRIX_FIELD_GRID ? p.grid_rows : 0),
         uint64_t(p.field_mask & PGDDS_DMATRIX_FIELD_GRID ? p.grid_cols : 0),
         p.field_mask & PGDDS_DMATRIX_FIELD_TILE ? p.tile_rows : 0, p.field_mask & PGDDS_DMATRIX_FIELD_TILE ? p.tile_cols : 0,
         uint64_t(p.field_mask & PGDDS_DMATRIX_FIELD_MEMORY ? enum_value(p.memory) : 0),
         uint64_t(p.field_mask & PGDDS_DMATRIX_FIELD_ORDER ? enum_value(p.order) : 0)});
}

status layout::check_tile(const char *who, uint64_t ti, uint64_t tj) const
{
    if (ti >= tgrid_rows || tj >= tgrid_cols)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: tile (%llu, %llu) is outside the %llu x %llu tile grid", who,
                    (unsigned long long)ti, (unsigned long long)tj, (unsigned long long)tgrid_rows,
                    (unsigned long long)tgrid_cols);
    return PGDDS_OK;
}

status check_ld(const char *who, bool col_major, uint64_t ld, uint64_t rows, uint64_t cols, uint64_t &out)
{
    const uint64_t run = col_major ? rows : cols;
    if (ld != 0 && ld < run)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: ld %llu is below the %llu %s", who, (unsigned long long)ld,
                    (unsigned long long)run, col_major ? "rows (the buffer is column-major)" : "columns");
    out = ld ? ld : run;
    return PGDDS_OK;
}

status check_slice(const char *who, uint64_t rows, uint64_t cols, uint64_t row0, uint64_t col0, uint64_t nrows,
                   uint64_t ncols)
{
    if (row0 > rows || nrows > rows - row0 || col0 > cols || ncols > cols - col0)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: rows [%llu, +%llu) x columns [%llu, +%llu) leave the %llu x %llu matrix",
                    who, (unsigned long long)row0, (unsigned long long)nrows, (unsigned long long)col0,
                    (unsigned long long)ncols, (unsigned long long)rows, (unsigned long long)cols);
    return PGDDS_OK;
}

status check_mine(const char *who, const layout &l, int me, uint64_t ti, uint64_t tj)
{
    status st = l.check_tile(who, ti, tj);
    if (st == PGDDS_OK && l.owner(ti, tj) != me)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: tile (%llu, %llu) is rank %d's, not this rank's (%d)", who,
                  (unsigned long long)ti, (unsigned long long)tj, l.owner(ti, tj), me);
    return st;
}

pgdds_dmatrix_info_t info_of(const layout &l)
{
    return pgdds_dmatrix_info_t{l.rows,      l.cols,      l.dtype,      l.esize,      l.grid_rows,
                                l.grid_cols, l.tile_rows, l.tile_cols, l.tgrid_rows, l.tgrid_cols};
}

}  // namespace pgdds::matrix
