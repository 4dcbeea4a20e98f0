// Distributed matrix multiplication (gemm.cc).
#pragma once

#include "dmatrix.h"
#include "region.h"

#include <functional>
#include <utility>

namespace pgdds::matrix {

// A block of a dense matrix's whole tiles, as it is or transposed: a GEMM operand, or the tiles
// of a view whose edges lie on tile edges (api.cc). Matrix m as it is, or its transpose read in
// place (`transposed`): the operand's tile (x, y) is then m's tile (y, x), which the local kernel
// reads transposed. The block is m's tile rows [t0r, +ntr) and tile columns [t0c, +ntc),
// rows x cols elements (by default all of m).
struct operand {
    const dmatrix &m;
    bool transposed = false;
    uint64_t t0r = 0, t0c = 0, ntr = m.lay().tgrid_rows, ntc = m.lay().tgrid_cols;
    uint64_t rows = m.lay().rows, cols = m.lay().cols;

    bool whole() const { return t0r == 0 && t0c == 0 && ntr == m.lay().tgrid_rows && ntc == m.lay().tgrid_cols; }

    uint64_t tgrid_rows() const { return transposed ? ntc : ntr; }
    uint64_t tgrid_cols() const { return transposed ? ntr : ntc; }
    uint64_t tile_rows_of(uint64_t x) const
    {
        return transposed ? m.lay().tile_cols_of(t0c + x) : m.lay().tile_rows_of(t0r + x);
    }
    uint64_t tile_cols_of(uint64_t y) const
    {
        return transposed ? m.lay().tile_rows_of(t0r + y) : m.lay().tile_cols_of(t0c + y);
    }
    // m's tile row and column of the operand's tile (x, y).
    uint64_t row_of(uint64_t x, uint64_t y) const { return t0r + (transposed ? y : x); }
    uint64_t col_of(uint64_t x, uint64_t y) const { return t0c + (transposed ? x : y); }
    // The operand's tile at m's tile (ti, tj), if the operand holds that tile.
    bool holds(uint64_t ti, uint64_t tj, uint64_t &x, uint64_t &y) const
    {
        if (ti < t0r || ti >= t0r + ntr || tj < t0c || tj >= t0c + ntc) return false;
        x = transposed ? tj - t0c : ti - t0r;
        y = transposed ? ti - t0r : tj - t0c;
        return true;
    }
    const void *reachable(uint64_t x, uint64_t y) const { return m.reachable(row_of(x, y), col_of(x, y)); }
    // The leading dimension of the stored tile behind the operand's tile (x, y): its columns,
    // or its rows when column-major.
    uint64_t ld(uint64_t x, uint64_t y) const { return m.lay().inner_of(row_of(x, y), col_of(x, y)); }
    // Whether a row-major kernel reads the stored tile transposed: a column-major tile is the
    // row-major tile of its transpose.
    bool kernel_trans() const { return transposed != m.lay().col_major; }
    status read_tile(const char *who, uint64_t x, uint64_t y, kernels::buffer &buf, const void *&data) const
    {
        return m.read_tile(who, row_of(x, y), col_of(x, y), buf, data);
    }
    // The operand's shape and tiling (rows, columns and tile sizes swapped when transposed), for
    // the conformity checks.
    layout shape() const
    {
        layout l = m.lay();
        l.rows = rows, l.cols = cols, l.tgrid_rows = ntr, l.tgrid_cols = ntc;
        // A tile as long as the block or longer is one tile: the same tiling, whatever its size.
        l.tile_rows = std::min(l.tile_rows, rows), l.tile_cols = std::min(l.tile_cols, cols);
        if (transposed) {
            std::swap(l.rows, l.cols);
            std::swap(l.tile_rows, l.tile_cols);
            std::swap(l.tgrid_rows, l.tgrid_cols);
        }
        return l;
    }
};

// The block of whole tiles region r (region.h) shows, transposed once more where `trans`; r's
// edges lie on tile edges (region::on_tile_edges).
operand operand_of(const region &r, bool trans);

// C's tile (i, j) at ct (packed, in C's order) = alpha A(i, k) B(k, j) + beta C(i, j), the
// operands' tiles at at and bt as stored. A column-major C tile is the row-major tile of C^T =
// B^T A^T, which the row-major kernel computes with the operands swapped and flipped.
inline status tile_product(const dmatrix &c, const operand &a, const operand &b, uint64_t i, uint64_t k, uint64_t j,
                           double alpha, const void *at, const void *bt, double beta, void *ct)
{
    const layout &lc = c.lay();
    const uint64_t m = lc.tile_rows_of(i), n = lc.tile_cols_of(j), kk = a.tile_cols_of(k);
    if (lc.col_major)
        return kernels::gemm(c.at(), lc.dtype, n, m, kk, alpha, bt, b.ld(k, j), at, a.ld(i, k), beta, ct, m,
                             !b.kernel_trans(), !a.kernel_trans());
    return kernels::gemm(c.at(), lc.dtype, m, n, kk, alpha, at, a.ld(i, k), bt, b.ld(k, j), beta, ct, n,
                         a.kernel_trans(), b.kernel_trans());
}

// Shapes, types, tilings and memory kinds of C = A B conform (A's tile rows are C's, A's tile
// columns B's tile rows, B's tile columns C's; all three in host or all three in GPU memory).
status check_conform(const char *who, const layout &la, const layout &lb, const layout &lc);
// alpha and beta are finite, and whole numbers for an integer type.
status check_scalars(const char *who, pgdds_dtype_t t, double alpha, double beta);
// algorithm is a pgdds_gemm_algorithm_t.
status check_algorithm(const char *who, int algorithm);
// Checks that C = alpha A B + beta C is well-formed (pgdds_dmatrix_gemm's rules); the same
// answer on every rank, since every rank holds the same layouts. The entry (api.cc) has already
// copied what the algorithm cannot read in place: SUMMA gets whole row-major matrices on C's
// grid, matrices in GPU memory no transposed operand.
status check_gemm(const char *who, double alpha, const operand &a, const operand &b, double beta, const dmatrix &c,
                  int algorithm);
// Work stealing over C's tiles (steal.cc, thesis §7.4): each tile's `steps` steps are claimed one
// at a time by a fetch-add on a counter on the tile's owner, own tiles first, then other ranks'
// in a random order or, with `locality`, those with the most near(i, j) first. step(i, j, s,
// first) computes step s of tile (i, j) into this rank's private sum (first: its first step
// there, which sets the sum); done(i, j) accumulates the sum into the tile. C's tiles are those
// of layout lc on the ranks of ctx (this one: me): the schedule needs no C yet (SpGEMM makes it
// after). `counts` gets this rank's steps and claims. Collective.
using steal_near = std::function<uint64_t(uint64_t, uint64_t)>;
using steal_step = std::function<status(uint64_t, uint64_t, uint64_t, bool)>;
using steal_done = std::function<status(uint64_t, uint64_t)>;
status steal(const char *who, pgdds_context_t ctx, int me, const layout &lc, uint64_t steps, bool locality,
             const steal_near &near, const steal_step &step, const steal_done &done, pgdds_matrix_steals_t &counts);
// Stationary C with work stealing for dense A and B: random victims, or locality-aware ones first.
status gemm_steal(const char *who, double alpha, const operand &a, const operand &b, const dmatrix &c, bool locality);
// Scales this rank's C tiles by beta (beta 0 zeroes them without reading).
status scale_mine(const dmatrix &c, double beta);
// The end of product_frame: names `who` in front of a failure that does not yet, a barrier, and
// every rank learning any rank's failure.
status product_finish(const char *who, const dmatrix &c, status st);
// The frame of every C = alpha A B + beta C into a dense C; collective. A barrier first, so that
// earlier puts to the operands count; where the algorithm accumulates into C (`scale_first`: all
// but stationary C, which scales each of its tiles as it starts it) C is scaled by beta on its
// owners and a barrier passed before any product is added; then run(), and product_finish.
template <class Run> status product_frame(const char *who, const dmatrix &c, double beta, bool scale_first, Run run)
{
    status st = pgdds_barrier(c.ctx);
    if (st != PGDDS_OK) return fail_prefix(st, who);
    if (scale_first) {
        status scaled = scale_mine(c, beta);
        st = pgdds_barrier(c.ctx);
        // run() may hold collectives: every rank runs it, or none.
        if (st == PGDDS_OK) st = containers::agree(c.rt, who, scaled);
        if (st != PGDDS_OK) return st;
    }
    if (st == PGDDS_OK) st = run();
    return product_finish(who, c, st);
}
// Collective; after check_gemm.
status gemm(const char *who, double alpha, const operand &a, const operand &b, double beta, const dmatrix &c,
            int algorithm);

}  // namespace pgdds::matrix
