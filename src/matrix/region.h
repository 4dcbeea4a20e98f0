// A region of a dense matrix: what a view (pgdds_dmatrix_view) shows, or a whole matrix, as the
// element and slice calls and the element-wise operations take them (api.cc, elementwise.cc).
// op(m)'s rows x cols elements from (r0, c0) of m, op(m) being m or, where `trans`, its
// transpose. A region's buffers are in its own order: m's, turned when transposed, so that a
// slice of the region is a slice of m with its coordinates swapped and the same buffer.
#pragma once

#include "dmatrix.h"

#include <algorithm>
#include <vector>

namespace pgdds::matrix {

struct region {
    const dmatrix *m = nullptr;   // the matrix that stores the elements (never a view)
    bool trans = false;           // shows m's transpose
    uint64_t r0 = 0, c0 = 0;      // the first element shown, in m's coordinates
    uint64_t rows = 0, cols = 0;  // the shape shown

    static region whole(const dmatrix &m) { return region{&m, false, 0, 0, m.lay().rows, m.lay().cols}; }
    bool col_major() const { return m->lay().col_major != trans; }  // the order of its buffers
    // Its edges lie on m's tile edges (or m's edges): it is a block of m's whole tiles.
    bool on_tile_edges() const
    {
        const layout &l = m->lay();
        const uint64_t r1 = r0 + m_rows(), c1 = c0 + m_cols();
        return r0 % l.tile_rows == 0 && c0 % l.tile_cols == 0 && (r1 == l.rows || r1 % l.tile_rows == 0) &&
               (c1 == l.cols || c1 % l.tile_cols == 0);
    }
    // It is all of m, as stored.
    bool is_whole() const { return !trans && r0 == 0 && c0 == 0 && rows == m->lay().rows && cols == m->lay().cols; }
    uint64_t m_rows() const { return trans ? cols : rows; }         // its extent in m
    uint64_t m_cols() const { return trans ? rows : cols; }
    bool operator==(const region &o) const
    {
        return m == o.m && trans == o.trans && r0 == o.r0 && c0 == o.c0 && rows == o.rows && cols == o.cols;
    }

    // op_t(this region)'s [i0, +ni) x [j0, +nj), op_t the transpose where t: a region of m too.
    region sub(bool t, uint64_t i0, uint64_t j0, uint64_t ni, uint64_t nj) const
    {
        const uint64_t x0 = t ? j0 : i0, y0 = t ? i0 : j0;  // its first element in this region
        return region{m, trans != t, r0 + (trans ? y0 : x0), c0 + (trans ? x0 : y0), ni, nj};
    }

    // op_t(this region) whole: itself, or its transpose where t.
    region turned(bool t) const { return sub(t, 0, 0, t ? cols : rows, t ? rows : cols); }
    // What it shows of its matrix and how (not which matrix: that differs between ranks), for
    // checking that every rank of a collective call passed the same.
    uint64_t fingerprint() const
    {
        uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
        for (uint64_t v : {uint64_t(trans), r0, c0, rows, cols, m->lay().rows, m->lay().cols})
            h = (h ^ v) * 1099511628211ull;
        return h;
    }

    // The region's [i0, +ni) x [j0, +nj) to or from buf (in the region's order, ld apart).
    status slice(const char *who, uint64_t i0, uint64_t j0, uint64_t ni, uint64_t nj, void *buf, uint64_t ld,
                 bool put) const
    {
        return trans ? m->slice(who, r0 + j0, c0 + i0, nj, ni, buf, ld, put)
                     : m->slice(who, r0 + i0, c0 + j0, ni, nj, buf, ld, put);
    }

    // The part of m's tile (ti, tj) in the region: the tile's rows [a0, a1) and columns [b0, b1),
    // empty where a0 == a1 or b0 == b1.
    struct part {
        uint64_t a0, a1, b0, b1;
        bool empty() const { return a0 >= a1 || b0 >= b1; }
    };
    part part_of(uint64_t ti, uint64_t tj) const
    {
        const layout &l = m->lay();
        const uint64_t tr0 = ti * l.tile_rows, tc0 = tj * l.tile_cols;
        const uint64_t a0 = std::max(r0, tr0), a1 = std::min(r0 + m_rows(), tr0 + l.tile_rows_of(ti));
        const uint64_t b0 = std::max(c0, tc0), b1 = std::min(c0 + m_cols(), tc0 + l.tile_cols_of(tj));
        return part{a0 - tr0, std::max(a0, a1) - tr0, b0 - tc0, std::max(b0, b1) - tc0};
    }
    // The region's coordinates of m's element (pi, pj).
    uint64_t row_of(uint64_t pi, uint64_t pj) const { return trans ? pj - c0 : pi - r0; }
    uint64_t col_of(uint64_t pi, uint64_t pj) const { return trans ? pi - r0 : pj - c0; }

    // f(ti, tj, tile, trows, tcols, part) for every tile of m this rank holds that the region
    // meets, the tile (packed in m's order) in host memory: in place, or, in GPU memory, staged:
    // read from the device first where `read` (or where the part is not the whole tile, so that
    // the rest survives) and written back after where `write`. Stops at the first failure.
    template <class F> status on_host_parts(const char *who, bool read, bool write, F f) const
    {
        const layout &l = m->lay();
        const bool staged = !m->at().host();
        std::vector<char> copy(staged ? l.tile_rows * l.tile_cols * l.esize : 0);
        status st = PGDDS_OK;
        l.for_tiles_of(m->rank(), [&](uint64_t ti, uint64_t tj) {
            const part p = part_of(ti, tj);
            if (st != PGDDS_OK || p.empty()) return;
            const uint64_t trows = l.tile_rows_of(ti), tcols = l.tile_cols_of(tj);
            const size_t bytes = trows * tcols * l.esize;
            char *tile = static_cast<char *>(m->reachable(ti, tj)), *t = staged ? copy.data() : tile;
            const bool partial = p.a1 - p.a0 != trows || p.b1 - p.b0 != tcols;
            if (staged && (read || partial) && (st = kernels::copy(m->at(), t, tile, bytes)) != PGDDS_OK) {
                st = fail_prefix(st, who);
                return;
            }
            if ((st = f(ti, tj, static_cast<void *>(t), trows, tcols, p)) != PGDDS_OK) return;
            if (staged && write && (st = kernels::copy(m->at(), tile, t, bytes)) != PGDDS_OK) st = fail_prefix(st, who);
        });
        return st;
    }
    // f(i, j, element) for every element of the region in the tiles this rank holds, (i, j) in
    // the region's coordinates; otherwise as on_host_parts.
    template <class F> status on_host_elements(const char *who, bool read, bool write, F f) const
    {
        const layout &l = m->lay();
        return on_host_parts(who, read, write, [&](uint64_t ti, uint64_t tj, void *tile, uint64_t trows, uint64_t tcols,
                                                   const part &p) {
            char *t = static_cast<char *>(tile);
            for (uint64_t a = p.a0; a < p.a1; ++a)
                for (uint64_t b = p.b0; b < p.b1; ++b) {
                    const uint64_t pi = ti * l.tile_rows + a, pj = tj * l.tile_cols + b;
                    f(row_of(pi, pj), col_of(pi, pj), t + l.index(a, b, trows, tcols) * l.esize);
                }
            return PGDDS_OK;
        });
    }
};

}  // namespace pgdds::matrix
