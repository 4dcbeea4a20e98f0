// Element-wise operations, reductions, norms and transposition of dense matrices
// (include/pgdds/matrix.h), and what the sparse ones share with them (elementwise.h). Each rank
// works on the tiles it holds; an operand laid out differently is read one slice per tile.
#include "elementwise.h"

#include <cstring>

namespace pgdds::matrix {

status check_reduce(const char *who, pgdds_dtype_t t, int op, const void *out)
{
    if (!out) return fail(PGDDS_ERR_INVALID_ARG, "%s: out is NULL", who);
    if (op < PGDDS_OP_SUM || op > PGDDS_OP_BXOR)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: op %d is not a pgdds_op_t", who, op);
    if (op >= PGDDS_OP_BAND && (t == PGDDS_FLOAT || t == PGDDS_DOUBLE))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: a bitwise op (%d) on a floating-point matrix", who, op);
    return PGDDS_OK;
}

status check_norm(const char *who, int norm, const double *out)
{
    if (!out) return fail(PGDDS_ERR_INVALID_ARG, "%s: out is NULL", who);
    if (norm < PGDDS_NORM_FROBENIUS || norm > PGDDS_NORM_MAX)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: norm %d is not a pgdds_norm_t", who, norm);
    return PGDDS_OK;
}

status reduce_ranks(runtime *rt, const char *who, pgdds_dtype_t t, int op, const void *partial, void *out)
{
    uint64_t result = 0;  // room for any element type
    status st = pgdds_allreduce(rt->handle(), partial, &result, 1, t, pgdds_op_t(op));
    if (st != PGDDS_OK) return fail_prefix(st, who);
    memcpy(out, &result, dtype_size(t));
    return PGDDS_OK;
}

status norm_partial::finish(runtime *rt, const char *who, double &out)
{
    pgdds_context_t ctx = rt->handle();
    status st = PGDDS_OK;
    double norm = 0;
    if (kind_ == PGDDS_NORM_FROBENIUS) {
        // Every rank's (scale, ssq) pair, summed under the largest scale.
        const double mine[2] = {scale_, ssq_};
        std::vector<double> all(2 * size_t(rt->nranks()));
        st = pgdds_allgather(ctx, mine, all.data(), sizeof mine);
        double top = 0, ssq = 0;
        for (size_t r = 0; r < all.size(); r += 2) top = std::max(top, all[r]);
        for (size_t r = 0; top > 0 && r < all.size(); r += 2) ssq += all[r + 1] * (all[r] / top) * (all[r] / top);
        norm = top * std::sqrt(ssq);
    } else if (kind_ == PGDDS_NORM_MAX) {
        st = pgdds_allreduce(ctx, &scale_, &norm, 1, PGDDS_DOUBLE, PGDDS_OP_MAX);
    } else {
        // The row or column sums over every rank; the norm is the largest.
        std::vector<double> total(sums_.size());
        st = pgdds_allreduce(ctx, sums_.data(), total.data(), sums_.size(), PGDDS_DOUBLE, PGDDS_OP_SUM);
        for (double s : total)
            if (!(s <= norm)) norm = s;  // a NaN sum sticks
    }
    int nan = nan_, any_nan = 0;
    if (st == PGDDS_OK) st = pgdds_allreduce(ctx, &nan, &any_nan, 1, PGDDS_INT32, PGDDS_OP_MAX);
    if (st != PGDDS_OK) return fail_prefix(st, who);
    out = any_nan ? std::numeric_limits<double>::quiet_NaN() : norm;
    return PGDDS_OK;
}

status check_apply(const char *who, pgdds_dmatrix_apply_t fn)
{
    return fn ? PGDDS_OK : fail(PGDDS_ERR_INVALID_ARG, "%s: fn is NULL", who);
}

namespace {

// The same shape, type, memory kind and context, or why not.
status check_alike(const char *who, const dmatrix &a, const dmatrix &b, bool transposed)
{
    const layout &la = a.lay(), &lb = b.lay();
    if (a.ctx != b.ctx) return fail(PGDDS_ERR_INVALID_ARG, "%s: the matrices belong to different contexts", who);
    const uint64_t rows = transposed ? la.cols : la.rows, cols = transposed ? la.rows : la.cols;
    if (rows != lb.rows || cols != lb.cols)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: B is %llu x %llu, but %s is %llu x %llu", who,
                    (unsigned long long)lb.rows, (unsigned long long)lb.cols, transposed ? "A^T" : "A",
                    (unsigned long long)rows, (unsigned long long)cols);
    if (la.dtype != lb.dtype) return fail(PGDDS_ERR_INVALID_ARG, "%s: A and B have different element types", who);
    if (la.memory != lb.memory) return fail(PGDDS_ERR_INVALID_ARG, "%s: A and B are in different memory kinds", who);
    return PGDDS_OK;
}

// A's elements [row0, +rows) x [col0, +cols) into host buffer buf, packed in A's order: in
// place where A's tile holds them all and this rank reaches it, else one slice.
status read_region(const char *who, const dmatrix &a, uint64_t row0, uint64_t col0, uint64_t rows, uint64_t cols,
                   std::vector<char> &buf)
{
    const layout &l = a.lay();
    buf.resize(rows * cols * l.esize);
    const uint64_t ti = row0 / l.tile_rows, tj = col0 / l.tile_cols;
    const void *t = a.at().host() ? a.reachable(ti, tj) : nullptr;
    if (t && row0 % l.tile_rows == 0 && col0 % l.tile_cols == 0 && l.tile_rows_of(ti) == rows && l.tile_cols_of(tj) == cols) {
        memcpy(buf.data(), t, buf.size());
        return PGDDS_OK;
    }
    return a.slice(who, row0, col0, rows, cols, buf.data(), l.inner(rows, cols), false);
}

// t (outer x inner, packed) = the transpose of s (inner x outer, packed), in 32 x 32 blocks.
template <class E> void transpose_into(const E *s, E *t, uint64_t outer, uint64_t inner)
{
    constexpr uint64_t b = 32;
    for (uint64_t o0 = 0; o0 < outer; o0 += b)
        for (uint64_t i0 = 0; i0 < inner; i0 += b)
            for (uint64_t o = o0; o < std::min(outer, o0 + b); ++o)
                for (uint64_t i = i0; i < std::min(inner, i0 + b); ++i) t[o * inner + i] = s[i * outer + o];
}

// t = the transpose of s (packed, outer x inner as t is), elements of esize bytes.
void transpose_bytes(const void *s, void *t, uint64_t outer, uint64_t inner, size_t esize)
{
    if (esize == 4) transpose_into(static_cast<const uint32_t *>(s), static_cast<uint32_t *>(t), outer, inner);
    else transpose_into(static_cast<const uint64_t *>(s), static_cast<uint64_t *>(t), outer, inner);
}

}  // namespace

status scale(const char *who, double alpha, const dmatrix &m)
{
    status st = check_scalars(who, m.lay().dtype, alpha, 0);
    if (st != PGDDS_OK) return st;
    m.lay().for_tiles_of(m.rank(), [&](uint64_t ti, uint64_t tj) {
        const uint64_t cols = m.lay().tile_cols_of(tj);
        if (st == PGDDS_OK && alpha != 1)
            st = kernels::scale(m.at(), m.lay().dtype, m.lay().tile_rows_of(ti), cols, alpha, m.reachable(ti, tj), cols);
    });
    return settle(m.rt, who, st);
}

status add(const char *who, double alpha, const dmatrix &a, double beta, const dmatrix &b)
{
    status st = check_alike(who, a, b, false);
    if (st == PGDDS_OK) st = check_scalars(who, b.lay().dtype, alpha, beta);
    if (st != PGDDS_OK) return st;
    const layout &l = b.lay();
    std::vector<char> region, flipped;
    kernels::buffer on_device;
    l.for_tiles_of(b.rank(), [&](uint64_t ti, uint64_t tj) {
        if (st != PGDDS_OK) return;
        const uint64_t rows = l.tile_rows_of(ti), cols = l.tile_cols_of(tj);
        // alpha A's part in B's order, where the kernels run, then B's tile = beta B's tile + that.
        st = read_region(who, a, ti * l.tile_rows, tj * l.tile_cols, rows, cols, region);
        if (st == PGDDS_OK && a.lay().col_major != l.col_major) {
            flipped.resize(region.size());
            transpose_bytes(region.data(), flipped.data(), l.outer(rows, cols), l.inner(rows, cols), l.esize);
            region.swap(flipped);
        }
        void *x = region.data();
        if (st == PGDDS_OK && !b.at().host()) {
            st = on_device.ensure(b.at(), region.size());
            if (st == PGDDS_OK) st = kernels::copy(b.at(), on_device.data(), region.data(), region.size());
            x = on_device.data();
        }
        void *y = b.reachable(ti, tj);
        if (st == PGDDS_OK && alpha != 1) st = kernels::scale(b.at(), l.dtype, rows, cols, alpha, x, cols);
        if (st == PGDDS_OK && beta != 1) st = kernels::scale(b.at(), l.dtype, rows, cols, beta, y, cols);
        if (st == PGDDS_OK) st = kernels::add(b.at(), l.dtype, rows, cols, x, cols, y, cols);
    });
    return settle(b.rt, who, st);
}

status transpose(const char *who, const dmatrix &a, const dmatrix &b)
{
    status st = &a == &b ? fail(PGDDS_ERR_INVALID_ARG, "%s: B is A (a matrix cannot be transposed into itself)", who)
                         : check_alike(who, a, b, true);
    if (st != PGDDS_OK) return st;
    const layout &l = b.lay();
    std::vector<char> region;
    st = b.on_host_tiles(who, false, true, [&](uint64_t ti, uint64_t tj, void *tile, uint64_t rows, uint64_t cols) {
        // B's tile (rows x cols) is A's cols x rows elements at (tj's first column, ti's first
        // row): in A's order, that region is the tile's transpose in the same order, or the tile
        // itself in the other.
        status s = read_region(who, a, tj * l.tile_cols, ti * l.tile_rows, cols, rows, region);
        if (s == PGDDS_OK && a.lay().col_major == l.col_major)
            transpose_bytes(region.data(), tile, l.outer(rows, cols), l.inner(rows, cols), l.esize);
        else if (s == PGDDS_OK)
            memcpy(tile, region.data(), region.size());
        return s;
    });
    return settle(b.rt, who, st);
}

status apply(const char *who, const dmatrix &m, pgdds_dmatrix_apply_t fn, void *arg)
{
    const layout &l = m.lay();
    status st = containers::agree(m.rt, who, check_apply(who, fn));
    if (st != PGDDS_OK) return st;
    return settle(m.rt, who, m.on_host_tiles(who, true, true, [&](uint64_t ti, uint64_t tj, void *tile, uint64_t rows, uint64_t cols) {
        char *t = static_cast<char *>(tile);
        for (uint64_t r = 0; r < rows; ++r)
            for (uint64_t c = 0; c < cols; ++c)
                fn(ti * l.tile_rows + r, tj * l.tile_cols + c, t + l.index(r, c, rows, cols) * l.esize, arg);
        return PGDDS_OK;
    }));
}

status reduce(const char *who, const dmatrix &m, int op, void *out)
{
    return reduce_frame(m.rt, who, m.lay().dtype, op, out, [&](auto &red) {
        using T = decltype(red.acc);
        return m.on_host_tiles(who, true, false, [&](uint64_t, uint64_t, void *tile, uint64_t rows, uint64_t cols) {
            for (uint64_t e = 0; e < rows * cols; ++e) red.add(static_cast<const T *>(tile)[e]);
            return PGDDS_OK;
        });
    });
}

status norm(const char *who, const dmatrix &m, int kind, double *out)
{
    const layout &l = m.lay();
    return norm_frame(m.rt, who, l, kind, out, [&](norm_partial &part, auto x) {
        using T = decltype(x);
        return m.on_host_tiles(who, true, false, [&](uint64_t ti, uint64_t tj, void *tile, uint64_t rows, uint64_t cols) {
            const T *t = static_cast<const T *>(tile);
            for (uint64_t r = 0; r < rows; ++r)
                for (uint64_t c = 0; c < cols; ++c)
                    part.add(ti * l.tile_rows + r, tj * l.tile_cols + c, double(t[l.index(r, c, rows, cols)]));
            return PGDDS_OK;
        });
    });
}

}  // namespace pgdds::matrix
