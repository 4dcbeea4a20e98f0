// Stationary C with work stealing (BCL thesis §7.4): every C tile's k steps are claimed one at a
// time by a fetch-add on a per-tile counter held by the tile's owner. Owners claim their own
// tiles' steps first; a rank that has run out claims steps of other ranks' tiles, visiting them
// at random or, locality-aware, those whose operands it reaches by load/store first. Whoever
// claims a step adds its product into a private sum for the tile and, once the tile has no
// steps left, accumulates the sum into it under the tile's lock (gemm_steal adds each product
// straight into the tile, under the lock, where it reaches the tile in place). steal() is the
// schedule, for dense (gemm_steal, here), sparse A (spmm.cc) and sparse A, B and C (spgemm.cc,
// whose sums go to the tiles' owners afterwards, as stationary A's and B's do).
#include "gemm.h"

#include "kernels.h"

#include <algorithm>
#include <random>

namespace pgdds::matrix {

status steal(const char *who, pgdds_context_t ctx, int me, const layout &lc, uint64_t steps, bool locality,
             const steal_near &near, const steal_step &step, const steal_done &done, pgdds_matrix_steals_t &counts)
{
    counts = {};
    // The counters: one word per C tile slot, on the tile's owner (collective, zeroed).
    pgdds_gptr_t counters = PGDDS_GPTR_NULL;
    status st = pgdds_alloc_all(ctx, std::max<uint64_t>(lc.slots_per_rank, 1) * 8, 8, PGDDS_ALLOC_ZERO, &counters);
    if (st != PGDDS_OK) return fail_prefix(st, who);

    // This rank's own tiles in order, then every other tile as a victim.
    std::vector<std::pair<uint64_t, uint64_t>> order, victims;
    for (uint64_t i = 0; i < lc.tgrid_rows; ++i)
        for (uint64_t j = 0; j < lc.tgrid_cols; ++j) (lc.owner(i, j) == me ? order : victims).push_back({i, j});
    std::mt19937_64 rng(0x9e3779b97f4a7c15ull * uint64_t(me + 1));
    std::shuffle(victims.begin(), victims.end(), rng);
    if (locality) {
        // The more of a tile's operands this rank reads in place, the earlier it steals there
        // (stable: random among equals).
        std::vector<std::pair<uint64_t, size_t>> keyed;
        for (size_t x = 0; x < victims.size(); ++x) keyed.push_back({near(victims[x].first, victims[x].second), x});
        std::stable_sort(keyed.begin(), keyed.end(), [](const auto &l, const auto &r) { return l.first > r.first; });
        std::vector<std::pair<uint64_t, uint64_t>> sorted;
        for (const auto &kx : keyed) sorted.push_back(victims[kx.second]);
        victims.swap(sorted);
    }
    order.insert(order.end(), victims.begin(), victims.end());

    for (const auto &t : order) {
        if (st != PGDDS_OK) break;
        const uint64_t i = t.first, j = t.second;
        pgdds_gptr_t counter = PGDDS_GPTR_NULL;
        pgdds_gptr_at(ctx, pgdds_gptr_add(counters, int64_t(8 * lc.slot(i, j))), lc.owner(i, j), &counter);
        bool any = false;
        for (;;) {
            uint64_t s = 0;
            st = pgdds_atomic_u64(ctx, counter, PGDDS_AOP_ADD, 1, &s);
            if (st != PGDDS_OK) st = fail_prefix(st, who);
            if (st != PGDDS_OK) break;
            ++counts.claims;
            if (s >= steps) break;
            st = step(i, j, s, !any);
            if (st != PGDDS_OK) break;
            ++(lc.owner(i, j) == me ? counts.own_steps : counts.stolen_steps);
            any = true;
        }
        if (st == PGDDS_OK && any) st = done(i, j);
    }
    // Every rank's claims are done before the counters go (free_all completes operations first).
    status fr = pgdds_free_all(ctx, counters);
    return st != PGDDS_OK ? st : (fr == PGDDS_OK ? fr : fail_prefix(fr, who));
}

status gemm_steal(const char *who, double alpha, const operand &a, const operand &b, const dmatrix &c, bool locality)
{
    const layout &lc = c.lay();
    const uint64_t kt = a.tgrid_cols();
    kernels::buffer sum, abuf, bbuf;  // sum: made at the first product for a C tile not reached in place
    // How many of a tile's operand tiles (A's tile row i, B's tile column j) this rank reads in place.
    auto near = [&](uint64_t i, uint64_t j) {
        uint64_t n = 0;
        for (uint64_t k = 0; k < kt; ++k) n += (a.reachable(i, k) != nullptr) + (b.reachable(k, j) != nullptr);
        return n;
    };
    // A step adds its product into C(i, j) itself where this rank reaches it (under the tile's
    // lock), else into the private sum that done() accumulates.
    auto step = [&](uint64_t i, uint64_t j, uint64_t s, bool first) {
        const uint64_t k = (i + j + s) % kt;
        const void *at = nullptr, *bt = nullptr;
        status st = a.read_tile(who, i, k, abuf, at);
        if (st == PGDDS_OK) st = b.read_tile(who, k, j, bbuf, bt);
        bool in_place = false;
        if (st == PGDDS_OK)
            st = c.accumulate_in_place(who, i, j, in_place, [&](void *ct) {
                return tile_product(c, a, b, i, k, j, alpha, at, bt, 1, ct);
            });
        if (st == PGDDS_OK && !in_place) st = sum.ensure(c.at(), lc.tile_rows * lc.tile_cols * lc.esize);
        if (st == PGDDS_OK && !in_place) st = tile_product(c, a, b, i, k, j, alpha, at, bt, first ? 0 : 1, sum.data());
        return st;
    };
    auto done = [&](uint64_t i, uint64_t j) {
        return c.reachable(i, j) ? PGDDS_OK : c.accumulate_tile(who, i, j, sum.data(), lc.inner_of(i, j));
    };
    return steal(who, c.ctx, c.rank(), c.lay(), kt, locality, near, step, done, c.steals());
}

}  // namespace pgdds::matrix
