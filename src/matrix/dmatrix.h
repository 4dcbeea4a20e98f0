// The distributed dense matrix behind pgdds_dmatrix_t: the layout (tile grid dealt block-cyclically
// to a grid of ranks), the directory of tile global pointers, and the one-sided tile operations
// that the C entry points (api.cc) and the multiplication algorithms (gemm.cc) are built on.
#pragma once

#include <pgdds/matrix.h>

#include "../containers/common.h"
#include "kernels.h"

#include <vector>

namespace pgdds::matrix {

struct region;  // region.h

// The shape, type and layout of a matrix; the same on every rank (layout.cc).
struct layout {
    uint64_t rows = 0, cols = 0;
    pgdds_dtype_t dtype = PGDDS_DOUBLE;
    size_t esize = 0;
    int grid_rows = 1, grid_cols = 1;
    uint64_t tile_rows = 1, tile_cols = 1;
    uint64_t tgrid_rows = 1, tgrid_cols = 1;  // tiles down and across
    uint64_t slots_per_rank = 0;              // the most tiles any rank holds
    pgdds_memory_kind_t memory = PGDDS_MEMORY_HOST;  // where the tiles live
    bool col_major = false;                          // tiles stored column-major (pgdds_order_t)

    // Derives the layout from params for a job of nranks, or explains why it cannot. A dense tile
    // holds at most 2^31 elements (BLAS takes int sizes); a sparse one only keeps each side
    // within int.
    static status from_params(const char *who, const pgdds_dmatrix_params_t &p, int nranks, layout &out,
                              bool sparse = false);
    // Collective: from_params on every rank, whose statuses agree, and every rank passed the same
    // params (each derives the layout on its own).
    static status agreed(runtime *rt, const char *who, const pgdds_dmatrix_params_t &p, layout &out,
                         bool sparse = false);

    uint64_t tile_rows_of(uint64_t ti) const { return ti + 1 < tgrid_rows ? tile_rows : rows - ti * tile_rows; }
    uint64_t tile_cols_of(uint64_t tj) const { return tj + 1 < tgrid_cols ? tile_cols : cols - tj * tile_cols; }
    int owner(uint64_t ti, uint64_t tj) const
    {
        return int(ti % uint64_t(grid_rows)) * grid_cols + int(tj % uint64_t(grid_cols));
    }
    // f(ti, tj) for every tile rank r holds, in slot order.
    template <class F> void for_tiles_of(int r, F f) const
    {
        for (uint64_t ti = uint64_t(r / grid_cols); ti < tgrid_rows; ti += uint64_t(grid_rows))
            for (uint64_t tj = uint64_t(r % grid_cols); tj < tgrid_cols; tj += uint64_t(grid_cols)) f(ti, tj);
    }
    // A tile of rows x cols as stored: `outer` runs (its rows, or its columns when column-major)
    // of `inner` contiguous elements each; element (r, c) at index(r, c, rows, cols).
    uint64_t outer(uint64_t rows, uint64_t cols) const { return col_major ? cols : rows; }
    uint64_t inner(uint64_t rows, uint64_t cols) const { return col_major ? rows : cols; }
    uint64_t index(uint64_t r, uint64_t c, uint64_t rows, uint64_t cols) const
    {
        return col_major ? c * rows + r : r * cols + c;
    }
    uint64_t inner_of(uint64_t ti, uint64_t tj) const { return inner(tile_rows_of(ti), tile_cols_of(tj)); }
    // Tile (ti, tj) is inside the tile grid.
    status check_tile(const char *who, uint64_t ti, uint64_t tj) const;
    // The tile's slot in its owner's block.
    uint64_t slot(uint64_t ti, uint64_t tj) const
    {
        uint64_t across = (tgrid_cols + uint64_t(grid_cols) - 1) / uint64_t(grid_cols);
        return (ti / uint64_t(grid_rows)) * across + tj / uint64_t(grid_cols);
    }
    uint64_t slot_bytes() const { return (tile_rows * tile_cols * esize + cache_line - 1) / cache_line * cache_line; }
    uint64_t locks_bytes() const { return (slots_per_rank * 8 + cache_line - 1) / cache_line * cache_line; }
};

// f(T()) for the element type t: the one switch from a runtime type to a C++ one.
template <class F> auto typed(pgdds_dtype_t t, F f)
{
    switch (t) {
    case PGDDS_FLOAT: return f(float());
    case PGDDS_DOUBLE: return f(double());
    case PGDDS_INT32: return f(int32_t());
    default: return f(int64_t());
    }
}

// The end of a collective that changed tiles: every rank's status agreed (prefixed with who
// where it is not yet), then a barrier, so every rank sees every rank's writes.
status settle(runtime *rt, const char *who, status st);

// A caller's leading dimension for a rows x cols buffer, column-major or not: 0 means packed
// (cols, or rows when column-major), else at least that.
status check_ld(const char *who, bool col_major, uint64_t ld, uint64_t rows, uint64_t cols, uint64_t &out);

class dmatrix : public containers::container {
  public:
    static status create(runtime *rt, const char *who, const pgdds_dmatrix_params_t &params, dmatrix *&out);
    // A view's handle (pgdds_dmatrix_view): what r shows of r.m, the matrix behind the live
    // handle root; made and destroyed locally.
    static status make_view(const pgdds_dmatrix *root, const region &r, dmatrix *&out);
    status destroy(const char *who);
    bool is_view() const { return root_ != nullptr; }
    const pgdds_dmatrix *root() const { return root_; }  // a view's matrix's handle
    // What this handle shows: the whole matrix, or a view's region once its matrix is found live.
    status shown(const char *who, region &out) const;

    const layout &lay() const { return lay_; }
    int rank() const { return rank_; }
    // This rank's counts of the last work-stealing product into this matrix (zero otherwise).
    pgdds_matrix_steals_t &steals() const { return steals_; }
    pgdds_gptr_t tile_gptr(uint64_t ti, uint64_t tj) const { return dir_[ti * lay_.tgrid_cols + tj]; }
    // The tile's address where this rank can load and store it (its own, or a node peer's
    // mapped here), else nullptr.
    void *reachable(uint64_t ti, uint64_t tj) const { return pgdds_gptr_to_local(ctx, tile_gptr(ti, tj)); }
    bool mine(uint64_t ti, uint64_t tj) const { return lay_.owner(ti, tj) == rank_; }
    // Where the tiles are, and so where kernels on them and scratch buffers for them go.
    kernels::place at() const { return at_; }

    // Tile transfers between a caller's buffer (in the matrix's order, ld elements apart) and
    // tile (ti, tj).
    status get_tile(const char *who, uint64_t ti, uint64_t tj, void *buf, uint64_t ld) const;
    status put_tile(const char *who, uint64_t ti, uint64_t tj, const void *buf, uint64_t ld) const;
    // Adds buf into the tile under the tile's lock word; complete on return.
    status accumulate_tile(const char *who, uint64_t ti, uint64_t tj, const void *buf, uint64_t ld) const;
    // The same with a request (pgdds_test, pgdds_wait) that completes once the sum is visible at
    // the owner; buf (the tile, packed) is copied before it returns.
    status accumulate_tile_nb(const char *who, uint64_t ti, uint64_t tj, const void *buf, pgdds_request_t *req) const;
    // Where this rank reaches tile (ti, tj) in place: add(tile), which accumulates into it (a
    // product with beta 1, say), under the tile's lock, and `done` set; else nothing is done.
    template <class Add> status accumulate_in_place(const char *who, uint64_t ti, uint64_t tj, bool &done, Add add) const
    {
        void *t = reachable(ti, tj);
        done = t != nullptr;
        if (!t) return PGDDS_OK;
        const pgdds_gptr_t lock = lock_gptr(ti, tj);
        status st = lock_tile(who, lock);
        if (st != PGDDS_OK) return st;
        st = add(t);
        status un = unlock_tile(who, lock);
        return st != PGDDS_OK ? st : un;
    }
    // Copies the slice [row0, +nrows) x [col0, +ncols) to/from buf (in the matrix's order, ld
    // elements apart).
    status slice(const char *who, uint64_t row0, uint64_t col0, uint64_t nrows, uint64_t ncols, void *buf,
                 uint64_t ld, bool put) const;
    // Tile (ti, tj) to read: in place where this rank reaches it, else copied into buf.
    status read_tile(const char *who, uint64_t ti, uint64_t tj, kernels::buffer &buf, const void *&data) const;

  private:
    explicit dmatrix(runtime *r) : container(r) {}
    status lock_tile(const char *who, pgdds_gptr_t lock) const;
    status unlock_tile(const char *who, pgdds_gptr_t lock) const;
    pgdds_gptr_t lock_gptr(uint64_t ti, uint64_t tj) const;

    mutable pgdds_matrix_steals_t steals_{};
    layout lay_;
    int rank_ = 0;
    kernels::place at_;
    pgdds_gptr_t block_ = PGDDS_GPTR_NULL;  // this rank's copy of the symmetric block (lock words, host tiles)
    pgdds_gptr_t tiles_ = PGDDS_GPTR_NULL;  // GPU memory: this rank's tiles in its device segment
    std::vector<pgdds_gptr_t> dir_;         // tile (ti, tj) at ti * tgrid_cols + tj
    // A view: the handle of the matrix it shows (cells are never freed, so it can be checked),
    // that matrix when it was made, and the region shown (trans, first element, shape).
    const pgdds_dmatrix *root_ = nullptr;
    const dmatrix *shows_ = nullptr;
    bool view_trans_ = false;
    uint64_t view_r0_ = 0, view_c0_ = 0, view_rows_ = 0, view_cols_ = 0;
};

// The handle cell behind pgdds_dmatrix_t (core/handles.h: never freed, dead once destroyed).
constexpr uint64_t dmatrix_magic = 0x70674d617472ull;  // "pgMatr"

}  // namespace pgdds::matrix

struct pgdds_dmatrix {
    uint64_t magic;
    pgdds::matrix::dmatrix *impl;
};
