// The distributed sparse matrix: construction from coordinate triples, the tile directory, and
// the three-get tile read (smatrix.h).
#include "smatrix.h"

#include "kernels.h"

#include "../gpu/gpu.h"

#include <algorithm>

namespace pgdds::matrix {

using containers::agree;

namespace {

// A triple on its way to its tile's owner: the value's bytes in the first esize of `value`.
struct triple {
    uint64_t row, col;
    unsigned char value[8];
};

uint64_t round8(uint64_t b) { return (b + 7) / 8 * 8; }

}  // namespace

status smatrix::create_coo(runtime *rt, const char *who, const pgdds_dmatrix_params_t &p, size_t count,
                           const uint64_t *rows, const uint64_t *cols, const void *values, smatrix *&out)
{
    layout l;
    status st = layout::agreed(rt, who, p, l, true);
    if (st != PGDDS_OK) return st;
    if (count && (!rows || !cols || !values))
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: %zu triples, but rows, cols or values is NULL", who, count);
    for (size_t x = 0; st == PGDDS_OK && x < count; ++x)
        if (rows[x] >= l.rows || cols[x] >= l.cols)
            st = fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: triple %zu, (%llu, %llu), is outside the %llu x %llu matrix", who, x,
                      (unsigned long long)rows[x], (unsigned long long)cols[x], (unsigned long long)l.rows,
                      (unsigned long long)l.cols);
    st = agree(rt, who, st);
    if (st != PGDDS_OK) return st;
    const int n = rt->nranks();
    const size_t es = l.esize;
    pgdds_context_t ctx = rt->handle();
    pgdds_team_t world = nullptr;
    pgdds_team_world(ctx, &world);

    // Every triple to the owner of its tile.
    std::vector<std::vector<triple>> outgoing(static_cast<size_t>(n));
    for (size_t x = 0; x < count; ++x) {
        triple t{rows[x], cols[x], {}};
        memcpy(t.value, static_cast<const char *>(values) + x * es, es);
        outgoing[size_t(l.owner(t.row / l.tile_rows, t.col / l.tile_cols))].push_back(t);
    }
    std::vector<size_t> send(static_cast<size_t>(n)), recv(static_cast<size_t>(n));
    std::vector<triple> sendbuf;
    for (int r = 0; r < n; ++r) {
        send[size_t(r)] = outgoing[size_t(r)].size() * sizeof(triple);
        sendbuf.insert(sendbuf.end(), outgoing[size_t(r)].begin(), outgoing[size_t(r)].end());
    }
    st = pgdds_team_alltoall(world, send.data(), recv.data(), sizeof(size_t));
    size_t total = 0;
    for (size_t b : recv) total += b;
    std::vector<triple> mine(total / sizeof(triple) + 1);  // never empty: no NULL buffer
    triple nothing{};  // a send buffer when this rank sends nothing (in must not be NULL or overlap out)
    if (st == PGDDS_OK) st = pgdds_team_alltoallv(world, sendbuf.empty() ? &nothing : sendbuf.data(), send.data(),
                                                  nullptr, mine.data(), recv.data(), nullptr);
    if (st != PGDDS_OK) return fail_prefix(st, who);
    mine.resize(total / sizeof(triple));

    // By tile slot, then row and column; duplicates summed.
    auto slot_of = [&](const triple &t) { return l.slot(t.row / l.tile_rows, t.col / l.tile_cols); };
    std::sort(mine.begin(), mine.end(), [&](const triple &x, const triple &y) {
        uint64_t sx = slot_of(x), sy = slot_of(y);
        return sx != sy ? sx < sy : (x.row != y.row ? x.row < y.row : x.col < y.col);
    });
    size_t kept = 0;
    for (size_t x = 0; x < mine.size(); ++x) {
        if (kept && mine[kept - 1].row == mine[x].row && mine[kept - 1].col == mine[x].col)
            kernels::add(kernels::place{}, l.dtype, 1, 1, mine[x].value, 1, mine[kept - 1].value, 1);
        else
            mine[kept++] = mine[x];
    }
    mine.resize(kept);

    // The sorted triples as this rank's CSR tiles.
    std::vector<csr_tile> tiles(l.slots_per_rank);
    for (const triple &t : mine) {
        const uint64_t ti = t.row / l.tile_rows, tj = t.col / l.tile_cols;
        csr_tile &c = tiles[l.slot(ti, tj)];
        if (c.offsets.empty()) c.offsets.assign(l.tile_rows_of(ti) + 1, 0);
        ++c.offsets[t.row - ti * l.tile_rows + 1];
        c.indices.push_back(t.col - tj * l.tile_cols);
        c.values.insert(c.values.end(), t.value, t.value + es);
    }
    for (csr_tile &c : tiles)
        for (size_t r = 1; r < c.offsets.size(); ++r) c.offsets[r] += c.offsets[r - 1];
    return from_tiles(rt, who, l, tiles, out);
}

status smatrix::from_tiles(runtime *rt, const char *who, const layout &l, const std::vector<csr_tile> &tiles,
                           smatrix *&out)
{
    std::vector<uint64_t> nnz(l.slots_per_rank, 0);
    for (size_t s = 0; s < tiles.size() && s < nnz.size(); ++s) nnz[s] = tiles[s].nnz();
    return from_filled(rt, who, l, nnz, [&](uint64_t ti, uint64_t tj, uint64_t *offsets, uint64_t *indices, void *values) {
        const csr_tile &c = tiles[l.slot(ti, tj)];
        const uint64_t orows = (l.tile_rows_of(ti) + 1) * 8;
        if (c.offsets.empty()) memset(offsets, 0, orows);
        else memcpy(offsets, c.offsets.data(), orows);
        if (c.nnz()) {
            memcpy(indices, c.indices.data(), c.nnz() * 8);
            memcpy(values, c.values.data(), c.nnz() * l.esize);
        }
        return PGDDS_OK;
    }, out);
}

status smatrix::from_filled(runtime *rt, const char *who, const layout &l, const std::vector<uint64_t> &nnz,
                            const tile_filler &fill, smatrix *&out)
{
    const int n = rt->nranks(), me = rt->rank();
    const size_t es = l.esize;
    pgdds_context_t ctx = rt->handle();
    // This rank's tiles, one after another in one block: offsets, indices, values.
    const uint64_t slots = l.slots_per_rank;
    std::vector<uint64_t> meta(1 + 4 * slots, 0);  // block pointer, then per slot 3 offsets + nnz
    uint64_t bytes = 0;
    l.for_tiles_of(me, [&](uint64_t ti, uint64_t tj) {
        const uint64_t s = l.slot(ti, tj);
        uint64_t *m = &meta[1 + 4 * s];
        m[0] = bytes;
        m[1] = m[0] + (l.tile_rows_of(ti) + 1) * 8;
        m[2] = m[1] + nnz[s] * 8;
        m[3] = nnz[s];
        bytes = m[2] + round8(nnz[s] * es);
    });
    smatrix *sm = new smatrix(rt);
    sm->lay_ = l;
    sm->rank_ = me;
    // In GPU memory, the block is laid out in host memory and copied to the device segment whole.
    const bool gpu = l.memory == PGDDS_MEMORY_CUDA;
    const uint64_t size = std::max<uint64_t>(bytes, 64);
    status st = pgdds_alloc_kind(ctx, l.memory, size, 64, &sm->block_);
    if (st != PGDDS_OK) st = fail_prefix(st, who);
    std::vector<char> staged(gpu ? size : 0);
    char *base = gpu ? staged.data() : static_cast<char *>(pgdds_gptr_to_local(ctx, sm->block_));
    l.for_tiles_of(me, [&](uint64_t ti, uint64_t tj) {
        if (st != PGDDS_OK) return;
        const uint64_t *m = &meta[1 + 4 * l.slot(ti, tj)];
        st = fill(ti, tj, reinterpret_cast<uint64_t *>(base + m[0]), reinterpret_cast<uint64_t *>(base + m[1]), base + m[2]);
    });
    if (st == PGDDS_OK && gpu) {
        st = kernels::copy(kernels::place{gpu::device(*rt)}, pgdds_gptr_to_local(ctx, sm->block_), base, size);
        if (st != PGDDS_OK) st = fail_prefix(st, who);
    }
    st = agree(rt, who, st);
    if (st != PGDDS_OK) {
        if (sm->block_ != PGDDS_GPTR_NULL) pgdds_free(ctx, sm->block_);
        delete sm;
        return st;
    }
    meta[0] = sm->block_;

    // The directory: every rank's block and slots.
    std::vector<uint64_t> all(meta.size() * static_cast<size_t>(n));
    st = pgdds_allgather(ctx, meta.data(), all.data(), meta.size() * 8);
    if (st != PGDDS_OK) {
        pgdds_barrier(ctx);
        pgdds_free(ctx, sm->block_);
        delete sm;
        return fail_prefix(st, who);
    }
    sm->dir_.resize(l.tgrid_rows * l.tgrid_cols);
    for (uint64_t ti = 0; ti < l.tgrid_rows; ++ti)
        for (uint64_t tj = 0; tj < l.tgrid_cols; ++tj) {
            const uint64_t *theirs = &all[size_t(l.owner(ti, tj)) * meta.size()];
            const uint64_t *m = &theirs[1 + 4 * l.slot(ti, tj)];
            const pgdds_gptr_t blk = theirs[0];
            sm->dir_[ti * l.tgrid_cols + tj] = {pgdds_gptr_add(blk, int64_t(m[0])), pgdds_gptr_add(blk, int64_t(m[1])),
                                                pgdds_gptr_add(blk, int64_t(m[2])), m[3]};
            sm->nnz_ += m[3];
        }
    out = sm;
    return PGDDS_OK;
}

status smatrix::destroy(const char *who)
{
    // No rank may still be reading this rank's tiles.
    status st = pgdds_barrier(ctx);
    status fr = pgdds_free(ctx, block_);
    if (st == PGDDS_OK) st = fr;
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

status smatrix::get_tile(const char *who, uint64_t ti, uint64_t tj, uint64_t *offsets, uint64_t *indices, void *values) const
{
    const tile_entry &t = tile(ti, tj);
    status st = pgdds_get_nbi(ctx, offsets, t.offsets, (lay_.tile_rows_of(ti) + 1) * 8);
    if (st == PGDDS_OK && t.nnz) st = pgdds_get_nbi(ctx, indices, t.indices, t.nnz * 8);
    if (st == PGDDS_OK && t.nnz) st = pgdds_get_nbi(ctx, values, t.values, t.nnz * lay_.esize);
    status fl = pgdds_flush(ctx);
    if (st == PGDDS_OK) st = fl;
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

status smatrix::fetch_tile(const char *who, uint64_t ti, uint64_t tj, csr_tile &t) const
{
    const uint64_t nnz = tile(ti, tj).nnz;
    t.offsets.resize(lay_.tile_rows_of(ti) + 1);
    t.indices.resize(nnz);
    t.values.resize(nnz * lay_.esize);
    return get_tile(who, ti, tj, t.offsets.data(), t.indices.data(), t.values.data());
}

status smatrix::get_slice(const char *who, uint64_t row0, uint64_t col0, uint64_t nrows, uint64_t ncols, void *buf,
                          uint64_t ld) const
{
    const size_t es = lay_.esize;
    for (uint64_t r = 0; r < nrows; ++r) memset(static_cast<char *>(buf) + r * ld * es, 0, ncols * es);
    std::vector<uint64_t> offsets(lay_.tile_rows + 1), indices;
    std::vector<char> values;
    for (uint64_t ti = row0 / lay_.tile_rows; nrows && ti * lay_.tile_rows < row0 + nrows; ++ti)
        for (uint64_t tj = col0 / lay_.tile_cols; ncols && tj * lay_.tile_cols < col0 + ncols; ++tj) {
            const tile_entry &t = tile(ti, tj);
            if (t.nnz == 0) continue;
            indices.resize(t.nnz);
            values.resize(t.nnz * es);
            status st = get_tile(who, ti, tj, offsets.data(), indices.data(), values.data());
            if (st != PGDDS_OK) return st;
            for (uint64_t r = 0; r < lay_.tile_rows_of(ti); ++r) {
                const uint64_t i = ti * lay_.tile_rows + r;
                if (i < row0 || i >= row0 + nrows) continue;
                for (uint64_t e = offsets[r]; e < offsets[r + 1]; ++e) {
                    const uint64_t j = tj * lay_.tile_cols + indices[e];
                    if (j >= col0 && j < col0 + ncols)
                        memcpy(static_cast<char *>(buf) + ((i - row0) * ld + (j - col0)) * es, &values[e * es], es);
                }
            }
        }
    return PGDDS_OK;
}

}  // namespace pgdds::matrix
