// The distributed sparse matrix behind pgdds_smatrix_t: the dense matrix's layout with CSR tiles
// (row offsets, column indices local to the tile, values) in their owner's segment, built from
// coordinate triples, and a directory of every tile's three arrays on every rank.
#pragma once

#include "dmatrix.h"

#include <functional>

namespace pgdds::matrix {

// A CSR tile in local memory: rows + 1 offsets, column indices counted from the tile's first
// column (increasing within a row), and the values' bytes.
struct csr_tile {
    std::vector<uint64_t> offsets, indices;
    std::vector<char> values;
    uint64_t nnz() const { return indices.size(); }
};

class smatrix : public containers::container {
  public:
    // Collective: every rank's triples go to the owners of their tiles (one all-to-all), which
    // sum duplicates and lay out their tiles (from_tiles).
    static status create_coo(runtime *rt, const char *who, const pgdds_dmatrix_params_t &params, size_t count,
                             const uint64_t *rows, const uint64_t *cols, const void *values, smatrix *&out);
    // Collective: a matrix of layout l whose tiles on this rank are mine[slot] (an empty tile may
    // have no offsets), laid out one after another in one block of this rank's segment, and the
    // directory gathered from every rank. The caller has checked l and agreed it between ranks.
    static status from_tiles(runtime *rt, const char *who, const layout &l, const std::vector<csr_tile> &mine,
                             smatrix *&out);
    // The same with this rank's tiles written in place, no copy in between: the block is laid
    // out from nnz[slot], the tiles' entry counts, then fill(ti, tj, offsets, indices, values)
    // writes tile (ti, tj)'s rows + 1 offsets, nnz indices and values there.
    using tile_filler = std::function<status(uint64_t ti, uint64_t tj, uint64_t *offsets, uint64_t *indices, void *values)>;
    static status from_filled(runtime *rt, const char *who, const layout &l, const std::vector<uint64_t> &nnz,
                              const tile_filler &fill, smatrix *&out);
    status destroy(const char *who);

    // Where tile (ti, tj)'s arrays are, and how many entries it has.
    struct tile_entry {
        pgdds_gptr_t offsets, indices, values;
        uint64_t nnz;
    };
    const layout &lay() const { return lay_; }
    int rank() const { return rank_; }
    uint64_t nnz() const { return nnz_; }
    // This rank's counts of the work-stealing SpGEMM that made this matrix (zero otherwise).
    pgdds_matrix_steals_t &steals() const { return steals_; }
    const tile_entry &tile(uint64_t ti, uint64_t tj) const { return dir_[ti * lay_.tgrid_cols + tj]; }
    bool mine(uint64_t ti, uint64_t tj) const { return lay_.owner(ti, tj) == rank_; }
    // Copies the tile's arrays (three gets, one flush).
    status get_tile(const char *who, uint64_t ti, uint64_t tj, uint64_t *offsets, uint64_t *indices, void *values) const;

    // Copies the tile into t, sized to fit.
    status fetch_tile(const char *who, uint64_t ti, uint64_t tj, csr_tile &t) const;

    // f(ti, tj, offsets, indices, values, nnz) for every tile this rank holds, its arrays in
    // host memory: in place, or, for tiles in GPU memory, a fetched copy whose values are written
    // back after where `write`. Stops at the first failure, f's (which says why) or a transfer's.
    template <class F> status on_host_tiles(const char *who, bool write, F f) const
    {
        const bool gpu = lay_.memory == PGDDS_MEMORY_CUDA;
        csr_tile c;
        status st = PGDDS_OK;
        lay_.for_tiles_of(rank_, [&](uint64_t ti, uint64_t tj) {
            if (st != PGDDS_OK) return;
            const tile_entry &t = tile(ti, tj);
            if (!gpu) {
                st = f(ti, tj, static_cast<const uint64_t *>(pgdds_gptr_to_local(ctx, t.offsets)),
                       static_cast<const uint64_t *>(pgdds_gptr_to_local(ctx, t.indices)), pgdds_gptr_to_local(ctx, t.values),
                       t.nnz);
                return;
            }
            if ((st = fetch_tile(who, ti, tj, c)) != PGDDS_OK) return;
            if ((st = f(ti, tj, c.offsets.data(), c.indices.data(), static_cast<void *>(c.values.data()), t.nnz)) != PGDDS_OK)
                return;
            if (write && t.nnz && (st = pgdds_put(ctx, t.values, c.values.data(), c.values.size())) == PGDDS_OK)
                st = pgdds_flush(ctx);
            if (st != PGDDS_OK) st = fail_prefix(st, who);
        });
        return st;
    }

    // The slice, dense and row-major (ld elements apart), absent entries 0.
    status get_slice(const char *who, uint64_t row0, uint64_t col0, uint64_t nrows, uint64_t ncols, void *buf,
                     uint64_t ld) const;

  private:
    explicit smatrix(runtime *r) : container(r) {}

    layout lay_;
    int rank_ = 0;
    uint64_t nnz_ = 0;
    pgdds_gptr_t block_ = PGDDS_GPTR_NULL;  // this rank's tiles (pgdds_alloc)
    std::vector<tile_entry> dir_;           // tile (ti, tj) at ti * tgrid_cols + tj
    mutable pgdds_matrix_steals_t steals_{};
};

// Generators (generators.cc); collective.
status stencil(runtime *rt, const char *who, const pgdds_dmatrix_params_t &params, uint64_t nx, uint64_t ny, uint64_t nz,
               int points, smatrix *&out);
status rmat(runtime *rt, const char *who, const pgdds_dmatrix_params_t &params, int scale, int edge_factor, uint64_t seed,
            smatrix *&out);
// Matrix Market files (matrix_market.cc); collective.
status read_mm(runtime *rt, const char *who, const char *path, const pgdds_dmatrix_params_t &params, smatrix *&out);
status write_mm(const smatrix &m, const char *who, const char *path);

// C = alpha A B + beta C, A sparse, B and C dense (spmm.cc); collective. algorithm: a
// pgdds_gemm_algorithm_t other than SUMMA.
status spmm(const char *who, double alpha, const smatrix &a, const dmatrix &b, double beta, const dmatrix &c,
            int algorithm);
// The element-wise operations of include/pgdds/matrix.h on sparse matrices
// (sparse_elementwise.cc), after the entry points' handle checks; collective, as the dense ones
// (elementwise.h).
status scale(const char *who, double alpha, const smatrix &m);
status apply(const char *who, const smatrix &m, pgdds_dmatrix_apply_t fn, void *arg);
status reduce(const char *who, const smatrix &m, int op, void *out);
status norm(const char *who, const smatrix &m, int kind, double *out);
status transpose(const char *who, const smatrix &a, smatrix *&out);
status add(const char *who, double alpha, const smatrix &a, double beta, const smatrix &b, smatrix *&out);

// C = alpha A B, all three sparse, C new with the layout of params (spgemm.cc); collective.
status spgemm(const char *who, double alpha, const smatrix &a, const smatrix &b, const pgdds_dmatrix_params_t &params,
              int algorithm, smatrix *&out);

}  // namespace pgdds::matrix
