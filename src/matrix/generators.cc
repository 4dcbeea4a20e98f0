// Sparse matrix generators: 3D 7- and 27-point stencils (the HPCG matrix) and R-MAT graphs with
// the Graph500 parameters. Each rank generates an equal share of the rows or edges and the
// triples go through create_coo.
#include "smatrix.h"

#include <cinttypes>

namespace pgdds::matrix {
namespace {

// Every rank checks the same arguments, so refusals are alike everywhere; params are then
// checked (and agreed) by create_coo.
status with_shape(const char *who, const pgdds_dmatrix_params_t &in, uint64_t n, pgdds_dmatrix_params_t &out)
{
    if ((in.rows && in.rows != n) || (in.cols && in.cols != n))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the matrix is %" PRIu64 " x %" PRIu64 ", not %" PRIu64 " x %" PRIu64, who,
                    n, n, in.rows, in.cols);
    out = in;
    out.rows = out.cols = n;
    return PGDDS_OK;
}

void set_value(pgdds_dtype_t t, std::vector<char> &vals, double v)
{
    size_t at = vals.size();
    switch (t) {
    case PGDDS_FLOAT: { float x = float(v); vals.resize(at + 4); memcpy(&vals[at], &x, 4); break; }
    case PGDDS_INT32: { int32_t x = int32_t(v); vals.resize(at + 4); memcpy(&vals[at], &x, 4); break; }
    case PGDDS_INT64: { int64_t x = int64_t(v); vals.resize(at + 8); memcpy(&vals[at], &x, 8); break; }
    default: { vals.resize(at + 8); memcpy(&vals[at], &v, 8); break; }
    }
}

// SplitMix64: a counter-based stream, so edge e's draws depend on (seed, e) only.
uint64_t splitmix(uint64_t &x)
{
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

status bad_type(const char *who, pgdds_dtype_t t)
{
    const int v = enum_value(t);
    if (v == PGDDS_FLOAT || v == PGDDS_DOUBLE || v == PGDDS_INT32 || v == PGDDS_INT64) return PGDDS_OK;
    return fail(PGDDS_ERR_INVALID_ARG, "%s: dtype %d is not one of PGDDS_FLOAT, PGDDS_DOUBLE, PGDDS_INT32, PGDDS_INT64",
                who, v);
}

}  // namespace

status stencil(runtime *rt, const char *who, const pgdds_dmatrix_params_t &params, uint64_t nx, uint64_t ny, uint64_t nz,
               int points, smatrix *&out)
{
    uint64_t n = 0, nxy = 0;
    pgdds_dmatrix_params_t p{};
    status st = PGDDS_OK;
    if (points != 7 && points != 27) st = fail(PGDDS_ERR_INVALID_ARG, "%s: a stencil has 7 or 27 points, not %d", who, points);
    else if (!nx || !ny || !nz || __builtin_mul_overflow(nx, ny, &nxy) || __builtin_mul_overflow(nxy, nz, &n) ||
             n > (uint64_t(1) << 40))
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: a %" PRIu64 " x %" PRIu64 " x %" PRIu64 " grid is empty or too large", who,
                  nx, ny, nz);
    if (st == PGDDS_OK) st = with_shape(who, params, n, p);
    if (st == PGDDS_OK) st = bad_type(who, params.dtype);
    st = containers::agree(rt, who, st);
    if (st != PGDDS_OK) return st;
    std::vector<uint64_t> rows, cols;
    std::vector<char> vals;
    const uint64_t first = n * uint64_t(rt->rank()) / uint64_t(rt->nranks());
    const uint64_t last = n * uint64_t(rt->rank() + 1) / uint64_t(rt->nranks());
    for (uint64_t r = first; r < last; ++r) {
        const int64_t x = int64_t(r % nx), y = int64_t(r / nx % ny), z = int64_t(r / nxy);
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    if (points == 7 && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
                    const int64_t X = x + dx, Y = y + dy, Z = z + dz;
                    if (X < 0 || Y < 0 || Z < 0 || X >= int64_t(nx) || Y >= int64_t(ny) || Z >= int64_t(nz)) continue;
                    rows.push_back(r);
                    cols.push_back(uint64_t(X) + nx * (uint64_t(Y) + ny * uint64_t(Z)));
                    set_value(p.dtype, vals, dx == 0 && dy == 0 && dz == 0 ? points - 1 : -1);
                }
    }
    return smatrix::create_coo(rt, who, p, rows.size(), rows.data(), cols.data(), vals.data(), out);
}

status rmat(runtime *rt, const char *who, const pgdds_dmatrix_params_t &params, int scale, int edge_factor, uint64_t seed,
            smatrix *&out)
{
    pgdds_dmatrix_params_t p{};
    status st = PGDDS_OK;
    if (scale < 1 || scale > 40 || edge_factor < 1 || edge_factor > (1 << 20))
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: scale %d (1 to 40) or edge factor %d (1 to 2^20) out of range", who, scale,
                  edge_factor);
    const uint64_t n = scale >= 1 && scale <= 40 ? uint64_t(1) << scale : 0;
    if (st == PGDDS_OK) st = with_shape(who, params, n, p);
    if (st == PGDDS_OK) st = bad_type(who, params.dtype);
    st = containers::agree(rt, who, st);
    if (st != PGDDS_OK) return st;
    const uint64_t m = n * uint64_t(edge_factor);
    const uint64_t first = m * uint64_t(rt->rank()) / uint64_t(rt->nranks());
    const uint64_t last = m * uint64_t(rt->rank() + 1) / uint64_t(rt->nranks());
    std::vector<uint64_t> rows, cols;
    std::vector<char> vals;
    // Graph500: at each of the scale levels, quadrant (0,0) with a, (0,1) b, (1,0) c, (1,1) d.
    const double a = 0.57, b = 0.19, c = 0.19;
    for (uint64_t e = first; e < last; ++e) {
        uint64_t state = seed ^ (e * 0xd1342543de82ef95ull), u = 0, v = 0;
        for (int level = 0; level < scale; ++level) {
            const double draw = double(splitmix(state) >> 11) * 0x1.0p-53;
            const uint64_t bit = uint64_t(1) << (scale - 1 - level);
            if (draw < a) continue;
            if (draw < a + b) v |= bit;
            else if (draw < a + b + c) u |= bit;
            else u |= bit, v |= bit;
        }
        rows.push_back(u);
        cols.push_back(v);
        set_value(p.dtype, vals, 1);
    }
    return smatrix::create_coo(rt, who, p, rows.size(), rows.data(), cols.data(), vals.data(), out);
}

}  // namespace pgdds::matrix
