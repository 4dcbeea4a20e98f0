// C = alpha A B + beta C over distributed matrices: the one-sided stationary-C, -A and -B
// algorithms of the BCL thesis (§7.3), and SUMMA on row and column teams as the bulk-synchronous
// baseline. Local products are kernels::gemm (CBLAS, or cuBLAS for tiles in GPU memory).
#include "gemm.h"

#include "kernels.h"

#include <cmath>
#include <string>

namespace pgdds::matrix {
namespace {

// A tile being read: in place where this rank reaches it by load/store, else into a buffer that
// a get request fills.
struct fetched {
    kernels::buffer buf;
    pgdds_request_t req = nullptr;
    const void *data = nullptr;
};

status start_fetch(const dmatrix &m, uint64_t ti, uint64_t tj, fetched &f)
{
    if (const void *p = m.reachable(ti, tj)) {
        f.data = p;
        return PGDDS_OK;
    }
    const size_t bytes = m.lay().tile_rows_of(ti) * m.lay().tile_cols_of(tj) * m.lay().esize;
    status st = f.buf.ensure(m.at(), bytes);
    f.data = f.buf.data();
    return st == PGDDS_OK ? pgdds_get_nb(m.ctx, f.buf.data(), m.tile_gptr(ti, tj), bytes, &f.req) : st;
}

// The operand's tile (x, y), as stored.
status start_fetch(const operand &o, uint64_t x, uint64_t y, fetched &f)
{
    return start_fetch(o.m, o.row_of(x, y), o.col_of(x, y), f);
}

status finish_fetch(pgdds_context_t ctx, fetched &f)
{
    if (!f.req) return PGDDS_OK;
    pgdds_request_t r = f.req;
    f.req = nullptr;
    return pgdds_wait(ctx, r);
}

struct pair {
    fetched a, b;
};

// Runs work(s, pair) for s = 0..n-1 on the tiles start(s, pair) fetched, fetching step s + 1's
// while step s computes (two buffers, alternating).
template <class Start, class Work> status pipeline(pgdds_context_t ctx, uint64_t n, Start start, Work work)
{
    pair slots[2];
    status st = n ? start(0, slots[0]) : PGDDS_OK;
    for (uint64_t s = 0; s < n && st == PGDDS_OK; ++s) {
        pair &cur = slots[s % 2];
        st = finish_fetch(ctx, cur.a);
        status sb = finish_fetch(ctx, cur.b);
        if (st == PGDDS_OK) st = sb;
        if (st == PGDDS_OK && s + 1 < n) st = start(s + 1, slots[(s + 1) % 2]);
        if (st == PGDDS_OK) st = work(s, cur);
    }
    for (pair &p : slots) {  // after a failure, nothing stays in flight into freed buffers
        finish_fetch(ctx, p.a);
        finish_fetch(ctx, p.b);
    }
    return st;
}

// The owned tiles of m, as (ti, tj).
template <class F> void for_my_tiles(const dmatrix &m, F f) { m.lay().for_tiles_of(m.rank(), f); }

status stationary_c(double alpha, const operand &a, const operand &b, double beta, const dmatrix &c)
{
    const uint64_t kt = a.tgrid_cols();
    status st = PGDDS_OK;
    for_my_tiles(c, [&](uint64_t i, uint64_t j) {
        if (st != PGDDS_OK) return;
        void *ct = c.reachable(i, j);
        // k starts at i + j, so the ranks do not all read the same A and B tiles at once.
        auto k_of = [&](uint64_t s) { return (i + j + s) % kt; };
        st = pipeline(
            c.ctx, kt,
            [&](uint64_t s, pair &p) {
                status s1 = start_fetch(a, i, k_of(s), p.a);
                return s1 == PGDDS_OK ? start_fetch(b, k_of(s), j, p.b) : s1;
            },
            [&](uint64_t s, pair &p) {
                // beta enters with the first product: C is read at most once.
                return tile_product(c, a, b, i, k_of(s), j, alpha, p.a.data, p.b.data, s ? 1 : beta, ct);
            });
    });
    return st;
}

// Stationary A (or, with `by_b`, stationary B): the owner of each tile of the stationary matrix
// reads the other operand's tiles it meets and accumulates each product into its C tile.
status stationary_ab(const char *who, double alpha, const operand &a, const operand &b, const dmatrix &c, bool by_b)
{
    const layout &lc = c.lay();
    const operand &stationary = by_b ? b : a;
    kernels::buffer prod;  // made at the first product whose C tile this rank does not reach in place
    status st = PGDDS_OK;
    for_my_tiles(stationary.m, [&](uint64_t sx, uint64_t sy) {
        // The operand's coordinates of the stored tile (sx, sy), if it holds it. By A:
        // (x, y) = (i, k), step s visits j; by B: (x, y) = (k, j), step s visits i.
        uint64_t x = 0, y = 0;
        if (st != PGDDS_OK || !stationary.holds(sx, sy, x, y)) return;
        const uint64_t n = by_b ? a.tgrid_rows() : b.tgrid_cols();
        auto other_of = [&](uint64_t s) { return (x + y + s) % n; };
        st = pipeline(
            c.ctx, n,
            [&](uint64_t s, pair &p) {
                return by_b ? start_fetch(a, other_of(s), x, p.a) : start_fetch(b, y, other_of(s), p.b);
            },
            [&](uint64_t s, pair &p) {
                const uint64_t i = by_b ? other_of(s) : x, k = by_b ? x : y, j = by_b ? y : other_of(s);
                const void *at = by_b ? p.a.data : a.reachable(i, k), *bt = by_b ? b.reachable(k, j) : p.b.data;
                // Into C(i, j) itself where this rank reaches it, else through a product buffer.
                bool done = false;
                status s1 = c.accumulate_in_place(who, i, j, done, [&](void *ct) {
                    return tile_product(c, a, b, i, k, j, alpha, at, bt, 1, ct);
                });
                if (s1 != PGDDS_OK || done) return s1;
                s1 = prod.ensure(c.at(), lc.tile_rows * lc.tile_cols * lc.esize);
                if (s1 == PGDDS_OK) s1 = tile_product(c, a, b, i, k, j, alpha, at, bt, 0, prod.data());
                return s1 == PGDDS_OK ? c.accumulate_tile(who, i, j, prod.data(), lc.inner_of(i, j)) : s1;
            });
    });
    return st;
}

// SUMMA for tiles in GPU memory: no host broadcast (panels would cross PCIe twice); step k, each
// rank takes A's tile column k for its rows and B's tile row k for its columns from their owners,
// in place where it reaches them (CUDA IPC on a node), else by gets into device buffers, all in
// flight together. The operands do not change during the product, so no step waits for another.
status summa_pull(double alpha, const dmatrix &a, const dmatrix &b, const dmatrix &c, const std::vector<uint64_t> &is,
                  const std::vector<uint64_t> &js)
{
    const layout &la = a.lay(), &lc = c.lay();
    std::vector<fetched> as(is.size()), bs(js.size());
    status st = PGDDS_OK;
    for (uint64_t k = 0; k < la.tgrid_cols && st == PGDDS_OK; ++k) {
        const uint64_t kk = la.tile_cols_of(k);
        for (size_t x = 0; x < is.size() && st == PGDDS_OK; ++x) st = start_fetch(a, is[x], k, as[x]);
        for (size_t y = 0; y < js.size() && st == PGDDS_OK; ++y) st = start_fetch(b, k, js[y], bs[y]);
        for (fetched &f : as) {
            status s = finish_fetch(c.ctx, f);
            if (st == PGDDS_OK) st = s;
        }
        for (fetched &f : bs) {
            status s = finish_fetch(c.ctx, f);
            if (st == PGDDS_OK) st = s;
        }
        for (size_t x = 0; x < is.size() && st == PGDDS_OK; ++x)
            for (size_t y = 0; y < js.size() && st == PGDDS_OK; ++y) {
                const uint64_t cols = lc.tile_cols_of(js[y]);
                st = kernels::gemm(c.at(), lc.dtype, lc.tile_rows_of(is[x]), cols, kk, alpha, as[x].data, kk,
                                   bs[y].data, cols, 1, c.reachable(is[x], js[y]), cols);
            }
    }
    return st;
}

status summa(const char *who, double alpha, const dmatrix &a, const dmatrix &b, const dmatrix &c)
{
    const layout &la = a.lay(), &lb = b.lay(), &lc = c.lay();
    const int pr = lc.grid_rows, pc = lc.grid_cols, r = c.rank() / pc, q = c.rank() % pc;
    // This rank's C tile rows and columns; the A panel holds A(i, k) for its rows, the B panel
    // B(k, j) for its columns, each tile packed, in order.
    std::vector<uint64_t> is, js;
    for (uint64_t i = uint64_t(r); i < lc.tgrid_rows; i += uint64_t(pr)) is.push_back(i);
    for (uint64_t j = uint64_t(q); j < lc.tgrid_cols; j += uint64_t(pc)) js.push_back(j);
    if (!c.at().host()) {
        status st = summa_pull(alpha, a, b, c, is, js);
        return st == PGDDS_OK ? st : fail_prefix(st, who);
    }
    pgdds_team_t world = nullptr, row = nullptr, col = nullptr;
    status st = pgdds_team_world(c.ctx, &world);
    if (st == PGDDS_OK) st = pgdds_team_split_2d(world, pc, &row, &col);
    if (st != PGDDS_OK) return fail_prefix(st, who);
    std::vector<char> apanel(is.size() * la.tile_rows * la.tile_cols * la.esize);
    std::vector<char> bpanel(js.size() * lb.tile_rows * lb.tile_cols * lb.esize);
    for (uint64_t k = 0; k < la.tgrid_cols && st == PGDDS_OK; ++k) {
        const uint64_t kk = la.tile_cols_of(k);
        std::vector<size_t> aoff, boff;
        size_t an = 0, bn = 0;
        for (uint64_t i : is) aoff.push_back(an), an += la.tile_rows_of(i) * kk * la.esize;
        for (uint64_t j : js) boff.push_back(bn), bn += kk * lb.tile_cols_of(j) * lb.esize;
        // The root of a row holds A's tile column k there; the root of a column B's tile row k.
        if (q == int(k % uint64_t(pc)))
            for (size_t x = 0; x < is.size(); ++x)
                memcpy(apanel.data() + aoff[x], a.reachable(is[x], k), la.tile_rows_of(is[x]) * kk * la.esize);
        if (r == int(k % uint64_t(pr)))
            for (size_t x = 0; x < js.size(); ++x)
                memcpy(bpanel.data() + boff[x], b.reachable(k, js[x]), kk * lb.tile_cols_of(js[x]) * lb.esize);
        // Every member of a row (column) has the same tile rows (columns): sizes agree, and an
        // empty panel is skipped by the whole team.
        if (an) st = pgdds_team_broadcast(row, apanel.data(), an, int(k % uint64_t(pc)));
        if (st == PGDDS_OK && bn) st = pgdds_team_broadcast(col, bpanel.data(), bn, int(k % uint64_t(pr)));
        if (st != PGDDS_OK) break;
        for (size_t x = 0; x < is.size(); ++x)
            for (size_t y = 0; y < js.size(); ++y) {
                const uint64_t cols = lc.tile_cols_of(js[y]);
                kernels::gemm(c.at(), lc.dtype, lc.tile_rows_of(is[x]), cols, kk, alpha, apanel.data() + aoff[x], kk,
                              bpanel.data() + boff[y], cols, 1, c.reachable(is[x], js[y]), cols);
            }
    }
    if (st != PGDDS_OK) st = fail_prefix(st, who);
    if (row) pgdds_team_destroy(row);
    if (col) pgdds_team_destroy(col);
    return st;
}

bool whole(double x) { return std::isfinite(x) && x == std::trunc(x) && std::fabs(x) < 9.2e18; }

}  // namespace

status scale_mine(const dmatrix &c, double beta)
{
    const layout &l = c.lay();
    status st = PGDDS_OK;
    for_my_tiles(c, [&](uint64_t i, uint64_t j) {
        if (st == PGDDS_OK)
            st = kernels::scale(c.at(), l.dtype, l.tile_rows_of(i), l.tile_cols_of(j), beta, c.reachable(i, j),
                                l.tile_cols_of(j));
    });
    return st;
}

status check_conform(const char *who, const layout &la, const layout &lb, const layout &lc)
{
    auto u = [](uint64_t v) { return (unsigned long long)v; };
    if (la.dtype != lc.dtype || lb.dtype != lc.dtype)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the types differ (A %d, B %d, C %d)", who, int(la.dtype), int(lb.dtype), int(lc.dtype));
    if (la.rows != lc.rows || la.cols != lb.rows || lb.cols != lc.cols)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: shapes do not conform: A %llu x %llu, B %llu x %llu, C %llu x %llu", who,
                    u(la.rows), u(la.cols), u(lb.rows), u(lb.cols), u(lc.rows), u(lc.cols));
    if (la.tile_rows != lc.tile_rows || la.tile_cols != lb.tile_rows || lb.tile_cols != lc.tile_cols)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: tilings do not conform: A tiles %llu x %llu, B %llu x %llu, C %llu x %llu "
                    "(A's tile rows must be C's, A's tile columns B's tile rows, B's tile columns C's)", who,
                    u(la.tile_rows), u(la.tile_cols), u(lb.tile_rows), u(lb.tile_cols), u(lc.tile_rows), u(lc.tile_cols));
    if (la.memory != lc.memory || lb.memory != lc.memory)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: A, B and C live in different memory kinds (%d, %d, %d): all host or all GPU",
                    who, int(la.memory), int(lb.memory), int(lc.memory));
    return PGDDS_OK;
}

status check_scalars(const char *who, pgdds_dtype_t t, double alpha, double beta)
{
    const bool integer = t == PGDDS_INT32 || t == PGDDS_INT64;
    if (integer ? !(whole(alpha) && whole(beta)) : !(std::isfinite(alpha) && std::isfinite(beta)))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: alpha %g and beta %g must be %s", who, alpha, beta,
                    integer ? "whole numbers for an integer type" : "finite");
    return PGDDS_OK;
}

operand operand_of(const region &r, bool trans)
{
    const layout &l = r.m->lay();
    const uint64_t t0r = r.r0 / l.tile_rows, t0c = r.c0 / l.tile_cols;
    const uint64_t ntr = (r.r0 + r.m_rows() + l.tile_rows - 1) / l.tile_rows - t0r;
    const uint64_t ntc = (r.c0 + r.m_cols() + l.tile_cols - 1) / l.tile_cols - t0c;
    return operand{*r.m, r.trans != trans, t0r, t0c, ntr, ntc, r.m_rows(), r.m_cols()};
}

status check_algorithm(const char *who, int algorithm)
{
    if (algorithm < PGDDS_GEMM_STATIONARY_C || algorithm > PGDDS_GEMM_STEAL_LOCALITY)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: algorithm %d is not a pgdds_gemm_algorithm_t", who, algorithm);
    return PGDDS_OK;
}

status check_gemm(const char *who, double alpha, const operand &a, const operand &b, double beta, const dmatrix &c,
                  int algorithm)
{
    const layout la = a.shape(), lb = b.shape(), &lc = c.lay();
    if (a.m.ctx != c.ctx || b.m.ctx != c.ctx) return fail(PGDDS_ERR_INVALID_ARG, "%s: the matrices belong to different contexts", who);
    if (&c == &a.m || &c == &b.m)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: C is also %s (C must be a matrix of its own)", who, &c == &a.m ? "A" : "B");
    status st = check_algorithm(who, algorithm);
    if (st == PGDDS_OK) st = check_conform(who, la, lb, lc);
    return st == PGDDS_OK ? check_scalars(who, lc.dtype, alpha, beta) : st;
}

status gemm(const char *who, double alpha, const operand &a, const operand &b, double beta, const dmatrix &c,
            int algorithm)
{
    c.steals() = {};  // gemm_steal counts; the other algorithms leave none
    return product_frame(who, c, beta, algorithm != PGDDS_GEMM_STATIONARY_C, [&] {
        switch (algorithm) {
        case PGDDS_GEMM_STATIONARY_C: return stationary_c(alpha, a, b, beta, c);
        case PGDDS_GEMM_SUMMA: return summa(who, alpha, a.m, b.m, c);
        case PGDDS_GEMM_STEAL_RANDOM:
        case PGDDS_GEMM_STEAL_LOCALITY: return gemm_steal(who, alpha, a, b, c, algorithm == PGDDS_GEMM_STEAL_LOCALITY);
        default: return stationary_ab(who, alpha, a, b, c, algorithm == PGDDS_GEMM_STATIONARY_B);
        }
    });
}

status product_finish(const char *who, const dmatrix &c, status st)
{
    // A failed one-sided call explains itself ("pgdds_get: ..."); name this call in front of it,
    // unless a step (accumulate_tile, summa) already did.
    if (st != PGDDS_OK && std::string(pgdds_last_error()).rfind(who, 0) != 0) st = fail_prefix(st, who);
    // Every rank's updates are in C before any returns; every rank learns any rank's failure.
    status bar = pgdds_barrier(c.ctx);
    if (st == PGDDS_OK && bar != PGDDS_OK) st = fail_prefix(bar, who);
    return containers::agree(c.rt, who, st);
}

}  // namespace pgdds::matrix
