// Element-wise operations, reductions, norms and transposition of dense matrices and their views
// (include/pgdds/matrix.h; regions, region.h), and what the sparse ones share with them
// (elementwise.h). Each rank works on the parts of the tiles it holds; an operand laid out
// differently is read one slice per part.
#include "elementwise.h"
#include "region.h"

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

// A and B (regions of dense matrices) are alike enough to combine element by element: one
// shape (A's turned where `transposed`), type, memory kind and context; and, where they are
// regions of one matrix, the same elements the same way (`transposed`: never), since a rank
// could otherwise write elements another still reads.
status check_alike(const char *who, const region &a, const region &b, bool transposed)
{
    const layout &la = a.m->lay(), &lb = b.m->lay();
    if (a.m->ctx != b.m->ctx) return fail(PGDDS_ERR_INVALID_ARG, "%s: the matrices belong to different contexts", who);
    const uint64_t rows = transposed ? a.cols : a.rows, cols = transposed ? a.rows : a.cols;
    if (rows != b.rows || cols != b.cols)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: B is %llu x %llu, but %s is %llu x %llu", who, (unsigned long long)b.rows,
                    (unsigned long long)b.cols, transposed ? "A^T" : "A", (unsigned long long)rows, (unsigned long long)cols);
    if (la.dtype != lb.dtype) return fail(PGDDS_ERR_INVALID_ARG, "%s: A and B have different element types", who);
    if (la.memory != lb.memory) return fail(PGDDS_ERR_INVALID_ARG, "%s: A and B are in different memory kinds", who);
    if (a.m == b.m && (transposed || !(a == b)))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: A and B are %s of one matrix (a rank could write what another still "
                    "reads)", who, transposed ? "regions" : "different regions");
    return PGDDS_OK;
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

status fill(const char *who, const region &r, pgdds_dmatrix_generator_t gen, void *arg)
{
    auto one = [&](uint64_t i, uint64_t j, char *e) { gen(i, j, e, arg); };
    return settle(r.m->rt, who, r.on_host_elements(who, false, true, one));
}

status scale(const char *who, double alpha, const region &r)
{
    const layout &l = r.m->lay();
    status st = check_scalars(who, l.dtype, alpha, 0);
    if (st != PGDDS_OK) return st;
    l.for_tiles_of(r.m->rank(), [&](uint64_t ti, uint64_t tj) {
        const region::part p = r.part_of(ti, tj);
        if (st != PGDDS_OK || p.empty() || alpha == 1) return;
        const uint64_t trows = l.tile_rows_of(ti), tcols = l.tile_cols_of(tj), na = p.a1 - p.a0, nb = p.b1 - p.b0;
        char *y = static_cast<char *>(r.m->reachable(ti, tj)) + l.index(p.a0, p.b0, trows, tcols) * l.esize;
        st = kernels::scale(r.m->at(), l.dtype, l.outer(na, nb), l.inner(na, nb), alpha, y, l.inner(trows, tcols));
    });
    return settle(r.m->rt, who, st);
}

// Each rank updates the parts of B in the tiles it holds: it reads A's elements there (one
// slice, in A's order), turns them where B's matrix keeps the other order, and adds.
status add(const char *who, double alpha, const region &a, double beta, const region &b)
{
    status st = check_alike(who, a, b, false);
    if (st == PGDDS_OK) st = check_scalars(who, b.m->lay().dtype, alpha, beta);
    if (st != PGDDS_OK) return st;
    const layout &l = b.m->lay();
    const kernels::place at = b.m->at();
    std::vector<char> buf, flipped;
    kernels::buffer on_device;
    l.for_tiles_of(b.m->rank(), [&](uint64_t ti, uint64_t tj) {
        const region::part p = b.part_of(ti, tj);
        if (st != PGDDS_OK || p.empty()) return;
        const uint64_t trows = l.tile_rows_of(ti), tcols = l.tile_cols_of(tj), na = p.a1 - p.a0, nb = p.b1 - p.b0;
        const uint64_t pi = ti * l.tile_rows + p.a0, pj = tj * l.tile_cols + p.b0;
        // The part in B's coordinates: A's same elements, a buffer that is B's part in A's
        // order, so B's matrix's part in that order turned where B is transposed.
        const uint64_t i0 = b.row_of(pi, pj), j0 = b.col_of(pi, pj), ni = b.trans ? nb : na, nj = b.trans ? na : nb;
        buf.resize(na * nb * l.esize);
        st = a.slice(who, i0, j0, ni, nj, buf.data(), a.col_major() ? ni : nj, false);
        const uint64_t outer = l.outer(na, nb), inner = l.inner(na, nb);
        if (st == PGDDS_OK && (a.col_major() != b.trans) != l.col_major) {
            flipped.resize(buf.size());
            transpose_bytes(buf.data(), flipped.data(), outer, inner, l.esize);
            buf.swap(flipped);
        }
        void *x = buf.data();
        if (st == PGDDS_OK && !at.host()) {
            st = on_device.ensure(at, buf.size());
            if (st == PGDDS_OK) st = kernels::copy(at, on_device.data(), buf.data(), buf.size());
            x = on_device.data();
        }
        char *y = static_cast<char *>(b.m->reachable(ti, tj)) + l.index(p.a0, p.b0, trows, tcols) * l.esize;
        const uint64_t ldy = l.inner(trows, tcols);
        if (st == PGDDS_OK && alpha != 1) st = kernels::scale(at, l.dtype, outer, inner, alpha, x, inner);
        if (st == PGDDS_OK && beta != 1) st = kernels::scale(at, l.dtype, outer, inner, beta, y, ldy);
        if (st == PGDDS_OK) st = kernels::add(at, l.dtype, outer, inner, x, inner, y, ldy);
    });
    return settle(b.m->rt, who, st);
}

status transpose(const char *who, const region &a, const region &b)
{
    status st = check_alike(who, a, b, true);
    return st == PGDDS_OK ? add(who, 1, a.sub(true, 0, 0, a.cols, a.rows), 0, b) : st;
}

status apply(const char *who, const region &r, pgdds_dmatrix_apply_t fn, void *arg)
{
    status st = containers::agree(r.m->rt, who, check_apply(who, fn));
    if (st != PGDDS_OK) return st;
    auto one = [&](uint64_t i, uint64_t j, char *e) { fn(i, j, e, arg); };
    return settle(r.m->rt, who, r.on_host_elements(who, true, true, one));
}

status reduce(const char *who, const region &r, int op, void *out)
{
    return reduce_frame(r.m->rt, who, r.m->lay().dtype, op, out, [&](auto &red) {
        using T = decltype(red.acc);
        return r.on_host_elements(who, true, false, [&](uint64_t, uint64_t, char *e) { red.add(*reinterpret_cast<T *>(e)); });
    });
}

status norm(const char *who, const region &r, int kind, double *out)
{
    return norm_frame(r.m->rt, who, r.m->lay().dtype, r.rows, r.cols, kind, out, [&](norm_partial &part, auto x) {
        using T = decltype(x);
        auto one = [&](uint64_t i, uint64_t j, char *e) { part.add(i, j, double(*reinterpret_cast<T *>(e))); };
        return r.on_host_elements(who, true, false, one);
    });
}

}  // namespace pgdds::matrix
