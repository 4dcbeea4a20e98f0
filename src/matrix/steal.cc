// Stationary C with work stealing (BCL thesis §7.4): every C tile's k steps are claimed one at a
// time by a fetch-add on a per-tile counter held by the tile's owner. Owners claim their own
// tiles' steps first; a rank that has run out claims steps of other ranks' tiles, visiting them
// at random or, locality-aware, those whose operands it reaches by load/store first. Whoever
// claims a step adds its product into a private sum for the tile and, once the tile has no
// steps left, accumulates the sum into it under the tile's lock.
#include "gemm.h"

#include "kernels.h"

#include <algorithm>
#include <random>

namespace pgdds::matrix {

status gemm_steal(const char *who, double alpha, const dmatrix &a, const dmatrix &b, const dmatrix &c, bool locality)
{
    const layout &la = a.lay(), &lb = b.lay(), &lc = c.lay();
    const uint64_t kt = la.tgrid_cols;
    // The counters: one word per C tile slot, on the tile's owner (collective, zeroed).
    pgdds_gptr_t counters = PGDDS_GPTR_NULL;
    status st = pgdds_alloc_all(c.ctx, std::max<uint64_t>(lc.slots_per_rank, 1) * 8, 8, PGDDS_ALLOC_ZERO, &counters);
    if (st != PGDDS_OK) return fail_prefix(st, who);

    // This rank's own tiles in order, then every other tile as a victim.
    std::vector<std::pair<uint64_t, uint64_t>> order, victims;
    for (uint64_t i = 0; i < lc.tgrid_rows; ++i)
        for (uint64_t j = 0; j < lc.tgrid_cols; ++j) (c.mine(i, j) ? order : victims).push_back({i, j});
    std::mt19937_64 rng(0x9e3779b97f4a7c15ull * uint64_t(c.rank() + 1));
    std::shuffle(victims.begin(), victims.end(), rng);
    if (locality) {
        // How many of a tile's operand tiles (A's tile row i, B's tile column j) this rank reads
        // in place: the more, the earlier it steals there (stable: random among equals).
        auto near = [&](const std::pair<uint64_t, uint64_t> &t) {
            uint64_t n = 0;
            for (uint64_t k = 0; k < kt; ++k) n += (a.reachable(t.first, k) != nullptr) + (b.reachable(k, t.second) != nullptr);
            return n;
        };
        std::vector<std::pair<uint64_t, size_t>> keyed;
        for (size_t x = 0; x < victims.size(); ++x) keyed.push_back({near(victims[x]), x});
        std::stable_sort(keyed.begin(), keyed.end(), [](const auto &l, const auto &r) { return l.first > r.first; });
        std::vector<std::pair<uint64_t, uint64_t>> sorted;
        for (const auto &kx : keyed) sorted.push_back(victims[kx.second]);
        victims.swap(sorted);
    }
    order.insert(order.end(), victims.begin(), victims.end());

    std::vector<char> sum(lc.tile_rows * lc.tile_cols * lc.esize), abuf, bbuf;
    for (const auto &t : order) {
        if (st != PGDDS_OK) break;
        const uint64_t i = t.first, j = t.second, rows = lc.tile_rows_of(i), cols = lc.tile_cols_of(j);
        pgdds_gptr_t counter = PGDDS_GPTR_NULL;
        pgdds_gptr_at(c.ctx, pgdds_gptr_add(counters, int64_t(8 * lc.slot(i, j))), lc.owner(i, j), &counter);
        bool any = false;
        for (;;) {
            uint64_t s = 0;
            st = pgdds_atomic_u64(c.ctx, counter, PGDDS_AOP_ADD, 1, &s);
            if (st != PGDDS_OK || s >= kt) break;
            const uint64_t k = (i + j + s) % kt, kk = la.tile_cols_of(k);
            const void *at = nullptr, *bt = nullptr;
            st = a.read_tile(who, i, k, abuf, at);
            if (st == PGDDS_OK) st = b.read_tile(who, k, j, bbuf, bt);
            if (st != PGDDS_OK) break;
            kernels::gemm(lc.dtype, rows, cols, kk, alpha, at, kk, bt, lb.tile_cols_of(j), any ? 1 : 0, sum.data(), cols);
            any = true;
        }
        if (st != PGDDS_OK) st = fail_prefix(st, who);
        else if (any) st = c.accumulate_tile(who, i, j, sum.data(), cols);
    }
    // Every rank's claims are done before the counters go (free_all completes operations first).
    status fr = pgdds_free_all(c.ctx, counters);
    return st != PGDDS_OK ? st : (fr == PGDDS_OK ? fr : fail_prefix(fr, who));
}

}  // namespace pgdds::matrix
