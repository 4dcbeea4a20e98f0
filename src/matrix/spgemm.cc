// C = alpha A B with A, B and C sparse (SpGEMM), one-sided as in the BCL thesis (§7.3, §7.5).
// Stationary C, A or B decides which rank computes each tile product A(i, k) B(k, j) (GrB_mxm).
// A rank sums the products it computes for one C tile in a private GraphBLAS matrix (GrB_mxm
// with a plus accumulator: the greedy sparse accumulator of thesis Table 7.3). A sum for a tile
// another rank holds goes to that owner as in the thesis: the producer lays it out as a CSR tile
// in its own segment and queues a pointer to it on the owner (a fetch-add claims a queue entry, a
// put fills it); after a barrier the owner reads each tile queued for it (in place from a node
// peer's segment, else with one get) and merges it with its own sum row by row straight into the
// new matrix's block when it writes the tile (tile_sums::take_into), rather than importing it and
// adding it into the sum, two more copies of it. Sparse tiles are only ever written by their
// owner, so owners, not producers, accumulate. The owners' sums become the new matrix
// (smatrix::from_filled); the queued tiles are freed after that.
// Stationary C queues nothing: every product it computes is for the computing rank's own tile.
// Work stealing (steal.cc) claims each C tile's k steps one at a time, own tiles first; a rank's
// sums for tiles it stole from go to their owners as stationary A's and B's do.
// In GPU memory each tile product runs on the device (cuSPARSE SpGEMM, kernels.h): its operands
// are fetched into host memory as in host memory, and the product comes back there to be summed
// as above, so that the sums, the queues and the owners' adds stay one code.
#include "grb.h"
#include "gemm.h"
#include "kernels.h"
#include "smatrix.h"

#include "../gpu/gpu.h"

#include <list>
#include <map>

namespace pgdds::matrix {
namespace {

// A queue entry: C tile (ti * tgrid_cols + tj), where its CSR tile is, and its entry count.
struct queued {
    uint64_t tile;
    pgdds_gptr_t where;
    uint64_t nnz;
};

// CSR arrays of one tile wherever they lie (a node peer's segment, a fetched copy, arrays
// GraphBLAS gave up); `stride` 0 for an iso matrix's one value.
struct csr_view {
    const uint64_t *offsets = nullptr, *indices = nullptr;
    const void *values = nullptr;
    uint64_t stride = 1;
};

// Row r of sources s[0..k) merged (the union of their columns, values summed) into oi/ox, or
// only counted where oi is null; tmp holds the partial merges of three or more sources.
template <class T> struct row_merge {
    std::vector<uint64_t> idx[2];
    std::vector<T> val[2];

    // a (an entries) and b (bn) merged into oi/ox (or counted).
    static uint64_t two(const uint64_t *ai, const T *ax, uint64_t as, uint64_t an, const uint64_t *bi, const T *bx,
                        uint64_t bs, uint64_t bn, uint64_t *oi, T *ox)
    {
        uint64_t x = 0, y = 0, n = 0;
        while (x < an && y < bn) {
            const uint64_t c = ai[x] <= bi[y] ? ai[x] : bi[y];
            T v = 0;
            if (ai[x] == c) v += ax[x++ * as];
            if (bi[y] == c) v += bx[y++ * bs];
            if (oi) oi[n] = c, ox[n] = v;
            ++n;
        }
        for (; x < an; ++x, ++n)
            if (oi) oi[n] = ai[x], ox[n] = ax[x * as];
        for (; y < bn; ++y, ++n)
            if (oi) oi[n] = bi[y], ox[n] = bx[y * bs];
        return n;
    }

    uint64_t row(const std::vector<csr_view> &s, uint64_t r, uint64_t *oi, T *ox)
    {
        auto at = [&](size_t q, const uint64_t *&i, const T *&x, uint64_t &n) {
            const uint64_t b = s[q].offsets[r];
            n = s[q].offsets[r + 1] - b, i = s[q].indices + b, x = static_cast<const T *>(s[q].values) + b * s[q].stride;
        };
        const uint64_t *ci;
        const T *cx;
        uint64_t cn, cs = s[0].stride;
        at(0, ci, cx, cn);
        if (s.size() == 1) {
            for (uint64_t e = 0; oi && e < cn; ++e) oi[e] = ci[e], ox[e] = cx[e * cs];
            return cn;
        }
        for (size_t q = 1; q < s.size(); ++q) {
            const uint64_t *qi;
            const T *qx;
            uint64_t qn;
            at(q, qi, qx, qn);
            const bool last = q + 1 == s.size();
            uint64_t *di = oi;
            T *dx = ox;
            if (!last) {  // a partial merge, into the buffer the current one is not in
                std::vector<uint64_t> &bi = idx[q % 2];
                std::vector<T> &bx = val[q % 2];
                if (bi.size() < cn + qn) bi.resize(cn + qn), bx.resize(cn + qn);
                di = bi.data(), dx = bx.data();
            }
            const uint64_t n = two(ci, cx, cs, cn, qi, qx, s[q].stride, qn, di, dx);
            if (last) return n;
            ci = di, cx = dx, cn = n, cs = 1;
        }
        return cn;
    }
};

// The sums of tile products by C tile, each a GraphBLAS matrix of the tile's shape.
class tile_sums {
  public:
    tile_sums(const char *who, const layout &lc, kernels::place at) : who_(who), lc_(lc), at_(at) {}
    ~tile_sums()
    {
        for (auto &s : sums_) GrB_Matrix_free(&s.second);
        for (auto &p : pending_) p.second.release();
    }
    tile_sums(const tile_sums &) = delete;
    tile_sums &operator=(const tile_sums &) = delete;

    // sum(i, j) += A (i's rows x kk) B (kk x j's columns).
    status add_product(uint64_t i, uint64_t j, uint64_t kk, const csr_tile &a, const csr_tile &b)
    {
        if (!at_.host()) {
            csr_tile p;
            status st = kernels::device::spgemm(at_.device, lc_.dtype, lc_.tile_rows_of(i), kk, lc_.tile_cols_of(j), a, b, p);
            return st != PGDDS_OK ? fail_prefix(st, who_) : p.nnz() ? add_tile(i, j, p) : PGDDS_OK;
        }
        GrB_Matrix A = nullptr, B = nullptr;
        GrB_Info info = typed(lc_.dtype, [&](auto x) {
            GrB_Info in = import_tile<decltype(x)>(&A, lc_.tile_rows_of(i), kk, a);
            return in == GrB_SUCCESS ? import_tile<decltype(x)>(&B, kk, lc_.tile_cols_of(j), b) : in;
        });
        return add_product(i, j, info, A, B);
    }
    // sum(i, j) += A B, A and B GraphBLAS matrices (made with status `made`), which it frees.
    status add_product(uint64_t i, uint64_t j, GrB_Info made, GrB_Matrix &A, GrB_Matrix &B)
    {
        GrB_Info info = typed(lc_.dtype, [&](auto x) {
            using T = decltype(x);
            GrB_Matrix &S = sum(i, j);
            // The first product into the sum sets it (no accumulator: nothing to add to).
            const bool first = !S;
            GrB_Info in = made;
            if (in == GrB_SUCCESS && first) in = GrB_Matrix_new(&S, grb<T>::type(), lc_.tile_rows_of(i), lc_.tile_cols_of(j));
            if (in == GrB_SUCCESS)
                in = GrB_mxm(S, nullptr, first ? nullptr : grb<T>::plus(), grb<T>::semiring(), A, B, nullptr);
            return in;
        });
        GrB_Matrix_free(&A);
        GrB_Matrix_free(&B);
        return info == GrB_SUCCESS ? PGDDS_OK : grb_failed(who_, "GrB_mxm", info);
    }
    bool on_device() const { return !at_.host(); }
    // sum(i, j) += p.
    status add_tile(uint64_t i, uint64_t j, const csr_tile &p)
    {
        return typed(lc_.dtype, [&](auto x) {
            using T = decltype(x);
            GrB_Matrix P = nullptr, &S = sum(i, j);
            GrB_Info info = import_tile<T>(&P, lc_.tile_rows_of(i), lc_.tile_cols_of(j), p);
            if (info == GrB_SUCCESS) {
                if (!S) std::swap(S, P);
                else info = GrB_Matrix_eWiseAdd_BinaryOp(S, nullptr, nullptr, grb<T>::plus(), S, P, nullptr);
            }
            GrB_Matrix_free(&P);
            return info == GrB_SUCCESS ? PGDDS_OK : grb_failed(who_, "GrB_eWiseAdd", info);
        });
    }
    // A tile another rank summed for this owner's tile (i, j) (exchange), where it lies (kept
    // there until the tile is written): merged with the sum when the tile is written
    // (take_into), rather than imported and added into it, which copied it twice.
    void add_piece(uint64_t i, uint64_t j, const csr_view &p) { pending_[i * lc_.tgrid_cols + j].sources.push_back(p); }
    // Room for a fetched piece of tile (i, j), kept until the tile is written.
    std::vector<char> &keep(uint64_t i, uint64_t j, size_t bytes)
    {
        return pending_[i * lc_.tgrid_cols + j].kept.emplace_back(bytes);
    }
    // The entry count of tile (i, j)'s sum (0 where nothing was added), its pieces merged in.
    status count(uint64_t i, uint64_t j, uint64_t &nnz)
    {
        nnz = 0;
        const uint64_t t = i * lc_.tgrid_cols + j;
        auto pit = pending_.find(t);
        auto it = sums_.find(t);
        if (pit != pending_.end()) {
            status st = it == sums_.end() ? PGDDS_OK : unpack(lc_.tile_rows_of(i), it, pit->second);
            if (st == PGDDS_OK)
                typed(lc_.dtype, [&](auto x) { nnz = merged<decltype(x)>(i, pit->second.sources, nullptr, nullptr, nullptr); });
            return st;
        }
        if (it == sums_.end()) return PGDDS_OK;
        GrB_Index n = 0;
        GrB_Info info = GrB_Matrix_nvals(&n, it->second);
        nnz = n;
        return info == GrB_SUCCESS ? PGDDS_OK : grb_failed(who_, "GrB_Matrix_nvals", info);
    }
    // Writes the sum of tile (i, j), of `nnz` entries (count), as CSR arrays (the tile's rows + 1
    // offsets, nnz indices and values), its values times alpha; the sum is dropped.
    status take_into(uint64_t i, uint64_t j, double alpha, uint64_t nnz, uint64_t *offsets, uint64_t *indices,
                     void *values)
    {
        const uint64_t rows = lc_.tile_rows_of(i);
        auto pit = pending_.find(i * lc_.tgrid_cols + j);
        if (pit != pending_.end()) {  // count() made the sum one more source
            typed(lc_.dtype, [&](auto x) {
                using T = decltype(x);
                merged<T>(i, pit->second.sources, offsets, indices, static_cast<T *>(values));
            });
            pit->second.release();
            pending_.erase(pit);
            if (alpha != 1) kernels::scale(kernels::place{}, lc_.dtype, 1, nnz, alpha, values, nnz);
            return PGDDS_OK;
        }
        auto it = sums_.find(i * lc_.tgrid_cols + j);
        if (it == sums_.end() || nnz == 0) {
            memset(offsets, 0, (rows + 1) * 8);
            if (it != sums_.end()) GrB_Matrix_free(&it->second), sums_.erase(it);
            return PGDDS_OK;
        }
        status st = typed(lc_.dtype, [&](auto x) {
            using T = decltype(x);
            GrB_Index pl = rows + 1, il = nnz, xl = nnz;
            GrB_Info info = grb<T>::export_(offsets, indices, static_cast<T *>(values), &pl, &il, &xl, it->second);
            return info == GrB_SUCCESS ? PGDDS_OK : grb_failed(who_, "export", info);
        });
        GrB_Matrix_free(&it->second);
        sums_.erase(it);
        if (st == PGDDS_OK && alpha != 1) kernels::scale(kernels::place{}, lc_.dtype, 1, nnz, alpha, values, nnz);
        return st;
    }
    // The C tiles (ti * tgrid_cols + tj) that have a sum.
    std::vector<uint64_t> tiles() const
    {
        std::vector<uint64_t> out;
        for (const auto &s : sums_) out.push_back(s.first);
        return out;
    }

  private:
    GrB_Matrix &sum(uint64_t i, uint64_t j) { return sums_[i * lc_.tgrid_cols + j]; }

    // A tile's sources to merge when it is written (the pieces others sent; the sum, first, once
    // count() ran) and the memory they lie in that is this rank's.
    struct pending_tile {
        std::vector<csr_view> sources;
        std::list<std::vector<char>> kept;  // fetched pieces
        csr_tile copy;                      // the sum exported, where GraphBLAS frees otherwise
        std::vector<void *> unpacked;       // the sum's arrays taken from GraphBLAS
        void release()
        {
            for (void *p : unpacked) free(p);
            unpacked.clear();
        }
    };

    // The sum at `it` as CSR arrays in front of the tile's pieces: taken from GraphBLAS as they
    // are (unpacked, freed with the tile) where it frees with free(), else exported into a copy.
    status unpack(uint64_t rows, std::map<uint64_t, GrB_Matrix>::iterator it, pending_tile &to)
    {
        csr_view v;
        GrB_Info info = GrB_SUCCESS;
        if (grb_started_here()) {
            GrB_Index *p = nullptr, *j = nullptr, ps = 0, js = 0, xs = 0;
            void *x = nullptr;
            bool iso = false;
            info = GxB_Matrix_unpack_CSR(it->second, &p, &j, &x, &ps, &js, &xs, &iso, nullptr, nullptr);
            if (info == GrB_SUCCESS) {
                to.unpacked = {p, j, x};
                v = csr_view{p, j, x, iso ? 0u : 1u};
            }
        } else {
            csr_tile &c = to.copy;
            info = typed(lc_.dtype, [&](auto x) { return export_tile<decltype(x)>(it->second, rows, c); });
            v = csr_view{c.offsets.data(), c.indices.data(), c.values.data(), 1};
        }
        GrB_Matrix_free(&it->second);
        sums_.erase(it);
        if (info != GrB_SUCCESS) return grb_failed(who_, "unpack", info);
        to.sources.insert(to.sources.begin(), v);
        return PGDDS_OK;
    }
    // Tile i's rows of the sources merged into the CSR arrays (or counted where offsets is
    // null): the entry count.
    template <class T> uint64_t merged(uint64_t i, const std::vector<csr_view> &s, uint64_t *offsets, uint64_t *indices,
                                       T *values)
    {
        row_merge<T> m;
        uint64_t n = 0;
        const uint64_t rows = lc_.tile_rows_of(i);
        for (uint64_t r = 0; r < rows; ++r) {
            if (offsets) offsets[r] = n;
            n += m.row(s, r, offsets ? indices + n : nullptr, offsets ? values + n : nullptr);
        }
        if (offsets) offsets[rows] = n;
        return n;
    }

    const char *who_;
    const layout &lc_;
    kernels::place at_;  // where tile products run
    std::map<uint64_t, GrB_Matrix> sums_;
    std::map<uint64_t, pending_tile> pending_;  // tiles others sent pieces of, by tile
};

// One C tile's operand pairs A(i, k), B(k, j) for several k, multiplied at once as panels: the A
// tiles side by side (the tile's rows by the k tiles' columns), the B tiles stacked, so that the
// tile's sum is one product rather than one product per k, each merged into the sum.
class panels {
  public:
    explicit panels(size_t esize) : es_(esize) {}
    bool empty() const { return as_.empty(); }
    // Room for one more pair, whose k tile is kk wide.
    void add(uint64_t kk, csr_tile *&a, csr_tile *&b)
    {
        as_.emplace_back(), bs_.emplace_back(), kk_.push_back(kk);
        a = &as_.back(), b = &bs_.back();
    }
    size_t size() const { return as_.size(); }
    // The joined panels as GraphBLAS matrices (A: rows x their common dimension; B: that x
    // cols), written straight into arrays that GraphBLAS takes over (packed_csr, where
    // grb_started_here); then empty.
    template <class T> GrB_Info take_packed(uint64_t cols, GrB_Matrix &A, GrB_Matrix &B)
    {
        const extent e = measure();
        packed_csr<T> a(e.rows, e.a_nnz), b(e.kk, e.b_nnz);
        GrB_Info info = a.ok() && b.ok() ? GrB_SUCCESS : GrB_OUT_OF_MEMORY;
        if (info == GrB_SUCCESS) join(a.p, a.i, reinterpret_cast<char *>(a.x), b.p, b.i, reinterpret_cast<char *>(b.x));
        if (info == GrB_SUCCESS) info = a.pack(A, e.rows, e.kk);
        if (info == GrB_SUCCESS) info = b.pack(B, e.kk, cols);
        as_.clear(), bs_.clear(), kk_.clear();
        return info;
    }
    // The joined panels (or the one pair as it is), their common dimension in kk; then empty.
    void take(csr_tile &a, csr_tile &b, uint64_t &kk)
    {
        if (as_.size() == 1) {
            a = std::move(as_[0]), b = std::move(bs_[0]), kk = kk_[0];
        } else {
            const extent e = measure();
            a.offsets.resize(e.rows + 1), a.indices.resize(e.a_nnz), a.values.resize(e.a_nnz * es_);
            b.offsets.resize(e.kk + 1), b.indices.resize(e.b_nnz), b.values.resize(e.b_nnz * es_);
            join(a.offsets.data(), a.indices.data(), a.values.data(), b.offsets.data(), b.indices.data(), b.values.data());
            kk = e.kk;
        }
        as_.clear(), bs_.clear(), kk_.clear();
    }

  private:
    // The joined panels' sizes: A's rows, the common dimension, and each panel's entries.
    struct extent {
        uint64_t rows, kk, a_nnz, b_nnz;
    };
    extent measure() const
    {
        extent e{as_[0].offsets.size() - 1, 0, 0, 0};
        for (size_t x = 0; x < as_.size(); ++x) e.kk += kk_[x], e.a_nnz += as_[x].nnz(), e.b_nnz += bs_[x].nnz();
        return e;
    }
    // Writes the A panel (each row, its pieces of the A tiles side by side, their columns moved
    // by the widths before them) and the B panel (the B tiles stacked) into arrays of the sizes
    // measure() gives: offsets, indices and values' bytes.
    void join(uint64_t *ap, uint64_t *ai, char *ax, uint64_t *bp, uint64_t *bi, char *bx) const
    {
        const uint64_t rows = as_[0].offsets.size() - 1;
        uint64_t at = 0;
        ap[0] = 0;
        for (uint64_t r = 0; r < rows; ++r) {
            uint64_t base = 0;  // the first column of tile x in the panel
            for (size_t x = 0; x < as_.size(); base += kk_[x], ++x) {
                const csr_tile &t = as_[x];
                const uint64_t e0 = t.offsets[r], e1 = t.offsets[r + 1];
                for (uint64_t e = e0; e < e1; ++e) ai[at + e - e0] = t.indices[e] + base;
                if (e1 > e0) memcpy(ax + at * es_, &t.values[e0 * es_], (e1 - e0) * es_);
                at += e1 - e0;
            }
            ap[r + 1] = at;
        }
        uint64_t row = 0, bt = 0;
        bp[0] = 0;
        for (const csr_tile &t : bs_) {
            for (size_t r = 1; r < t.offsets.size(); ++r) bp[++row] = bt + t.offsets[r];
            if (t.nnz()) memcpy(bi + bt, t.indices.data(), t.nnz() * 8), memcpy(bx + bt * es_, t.values.data(), t.nnz() * es_);
            bt += t.nnz();
        }
    }

    size_t es_;
    std::vector<csr_tile> as_, bs_;
    std::vector<uint64_t> kk_;
};

// The local products of the algorithm: each rank visits the tiles it holds of the stationary
// matrix, and the steps of each start at a different tile (i + j or the like) so that the ranks
// do not all read the same tiles at once. Products with an empty operand are skipped unread.
status products(const char *who, const smatrix &a, const smatrix &b, const layout &lc, int algorithm, tile_sums &sums,
                pgdds_matrix_steals_t &steals)
{
    const layout &la = a.lay(), &lb = b.lay();
    const uint64_t mt = la.tgrid_rows, kt = la.tgrid_cols, nt = lb.tgrid_cols;
    const int me = a.rank();
    csr_tile at, bt;
    status st = PGDDS_OK;
    // One product into sum(i, j); the stationary operand is already in at or bt.
    auto step = [&](uint64_t i, uint64_t k, uint64_t j, bool fetch_a, bool fetch_b) {
        if (a.tile(i, k).nnz == 0 || b.tile(k, j).nnz == 0) return PGDDS_OK;
        status s = fetch_a ? a.fetch_tile(who, i, k, at) : PGDDS_OK;
        if (s == PGDDS_OK && fetch_b) s = b.fetch_tile(who, k, j, bt);
        return s == PGDDS_OK ? sums.add_product(i, j, la.tile_cols_of(k), at, bt) : s;
    };
    // Stationary C and work stealing: a C tile's pairs gathered (gather), then one product (flush).
    panels gathered(la.esize);
    auto gather = [&](uint64_t i, uint64_t k, uint64_t j) {
        if (a.tile(i, k).nnz == 0 || b.tile(k, j).nnz == 0) return PGDDS_OK;
        csr_tile *ap, *bp;
        gathered.add(la.tile_cols_of(k), ap, bp);
        status s = a.fetch_tile(who, i, k, *ap);
        return s == PGDDS_OK ? b.fetch_tile(who, k, j, *bp) : s;
    };
    auto flush = [&](uint64_t i, uint64_t j) {
        if (gathered.empty()) return PGDDS_OK;
        if (gathered.size() > 1 && !sums.on_device() && grb_started_here()) {  // joined as they go to GraphBLAS
            GrB_Matrix A = nullptr, B = nullptr;
            GrB_Info made = typed(la.dtype, [&](auto x) { return gathered.take_packed<decltype(x)>(lc.tile_cols_of(j), A, B); });
            return sums.add_product(i, j, made, A, B);
        }
        uint64_t kk = 0;
        gathered.take(at, bt, kk);
        return sums.add_product(i, j, kk, at, bt);
    };
    if (algorithm == PGDDS_GEMM_STEAL_RANDOM || algorithm == PGDDS_GEMM_STEAL_LOCALITY) {
        // Every C tile's kt steps claimed one at a time (steal.cc); the pairs this rank claimed for
        // a tile are multiplied as panels when the tile has no steps left (flush), into this
        // rank's sum for it, which exchange() then sends to the owner. Near: the operand tiles
        // this rank reads in place.
        auto near = [&](uint64_t i, uint64_t j) {
            uint64_t n = 0;
            for (uint64_t k = 0; k < kt; ++k)
                n += (pgdds_gptr_to_local(a.ctx, a.tile(i, k).offsets) != nullptr) +
                     (pgdds_gptr_to_local(b.ctx, b.tile(k, j).offsets) != nullptr);
            return n;
        };
        auto claimed = [&](uint64_t i, uint64_t j, uint64_t s, bool) { return gather(i, (i + j + s) % kt, j); };
        return steal(who, a.ctx, me, lc, kt, algorithm == PGDDS_GEMM_STEAL_LOCALITY, near, claimed, flush, steals);
    }
    for (uint64_t x = 0; x < (algorithm == PGDDS_GEMM_STATIONARY_B ? kt : mt) && st == PGDDS_OK; ++x)
        for (uint64_t y = 0; y < (algorithm == PGDDS_GEMM_STATIONARY_A ? kt : nt) && st == PGDDS_OK; ++y) {
            switch (algorithm) {
            case PGDDS_GEMM_STATIONARY_C:  // (x, y) = C(i, j), for every k
                if (lc.owner(x, y) != me) continue;
                for (uint64_t s = 0; s < kt && st == PGDDS_OK; ++s) st = gather(x, (x + y + s) % kt, y);
                if (st == PGDDS_OK) st = flush(x, y);
                break;
            case PGDDS_GEMM_STATIONARY_A:  // (x, y) = A(i, k), for every j
                if (la.owner(x, y) != me || a.tile(x, y).nnz == 0) continue;
                st = a.fetch_tile(who, x, y, at);
                for (uint64_t s = 0; s < nt && st == PGDDS_OK; ++s) st = step(x, y, (x + y + s) % nt, false, true);
                break;
            default:  // stationary B: (x, y) = B(k, j), for every i
                if (lb.owner(x, y) != me || b.tile(x, y).nnz == 0) continue;
                st = b.fetch_tile(who, x, y, bt);
                for (uint64_t s = 0; s < mt && st == PGDDS_OK; ++s) st = step((x + y + s) % mt, x, y, true, false);
                break;
            }
        }
    return st;
}

// The bytes of a queued CSR tile of `rows` rows: offsets, indices, values, one after another.
uint64_t queued_bytes(uint64_t rows, uint64_t nnz, size_t esize) { return (rows + 1) * 8 + nnz * (8 + esize); }

// What a rank queued for others in exchange, in its segment: freed once every owner has merged
// what it read there (they read node peers' tiles in place). Collective.
struct sent_tiles {
    pgdds_gptr_t queue = PGDDS_GPTR_NULL;
    std::vector<pgdds_gptr_t> tiles;
    status release(pgdds_context_t ctx, const char *who, status st)
    {
        status bar = pgdds_barrier(ctx);
        if (st == PGDDS_OK && bar != PGDDS_OK) st = fail_prefix(bar, who);
        for (pgdds_gptr_t t : tiles) pgdds_free(ctx, t);
        status fr = queue == PGDDS_GPTR_NULL ? PGDDS_OK : pgdds_free_all(ctx, queue);
        return st != PGDDS_OK ? st : (fr == PGDDS_OK ? fr : fail_prefix(fr, who));
    }
};

// Sends every sum this rank holds for another rank's tile to that owner, and hands what others
// sent to this rank's sums as pieces (tile_sums::add_piece); collective. `st` is this rank's
// status so far: a rank that failed still takes part, sending nothing.
status exchange(const char *who, const smatrix &a, const layout &lc, tile_sums &sums, status st, sent_tiles &sent)
{
    pgdds_context_t ctx = a.ctx;
    const int n = a.rt->nranks(), me = a.rank();
    const size_t es = lc.esize;
    // The sums for other ranks' tiles, laid out in this rank's segment.
    std::vector<std::pair<int, queued>> out;
    std::vector<uint64_t> count(size_t(n), 0);
    for (uint64_t t : sums.tiles()) {
        const uint64_t i = t / lc.tgrid_cols, j = t % lc.tgrid_cols;
        if (st != PGDDS_OK || lc.owner(i, j) == me) continue;
        const uint64_t rows = lc.tile_rows_of(i);
        queued q{t, PGDDS_GPTR_NULL, 0};
        st = sums.count(i, j, q.nnz);
        if (st != PGDDS_OK || q.nnz == 0) continue;
        st = pgdds_alloc(ctx, queued_bytes(rows, q.nnz, es), 64, &q.where);
        if (st != PGDDS_OK) {
            st = fail_prefix(st, who);
            break;
        }
        // Exported by GraphBLAS straight into the segment.
        char *at = static_cast<char *>(pgdds_gptr_to_local(ctx, q.where));
        uint64_t *offsets = reinterpret_cast<uint64_t *>(at);
        st = sums.take_into(i, j, 1, q.nnz, offsets, offsets + rows + 1, at + (rows + 1 + q.nnz) * 8);
        if (st != PGDDS_OK) {
            pgdds_free(ctx, q.where);
            break;
        }
        out.push_back({lc.owner(i, j), q});
        ++count[size_t(lc.owner(i, j))];
    }
    // Every rank's queue holds as many entries as the most any rank receives.
    std::vector<uint64_t> incoming(size_t(n), 0);
    status cs = pgdds_allreduce(ctx, count.data(), incoming.data(), size_t(n), PGDDS_UINT64, PGDDS_OP_SUM);
    uint64_t cap = 0;
    for (uint64_t c : incoming) cap = std::max(cap, c);
    pgdds_gptr_t queue = PGDDS_GPTR_NULL;  // a counter word, then cap entries
    if (cs == PGDDS_OK) cs = pgdds_alloc_all(ctx, 64 + cap * sizeof(queued), 64, PGDDS_ALLOC_ZERO, &queue);
    if (cs != PGDDS_OK) {
        for (auto &o : out) pgdds_free(ctx, o.second.where);
        return fail_prefix(cs, who);
    }
    for (auto &o : out) {
        if (st != PGDDS_OK) break;
        pgdds_gptr_t theirs = PGDDS_GPTR_NULL, entry = PGDDS_GPTR_NULL;
        uint64_t x = 0;
        st = pgdds_gptr_at(ctx, queue, o.first, &theirs);
        if (st == PGDDS_OK) st = pgdds_atomic_u64(ctx, theirs, PGDDS_AOP_ADD, 1, &x);
        entry = pgdds_gptr_add(theirs, int64_t(64 + x * sizeof(queued)));
        if (st == PGDDS_OK) st = pgdds_put(ctx, entry, &o.second, sizeof(queued));
        if (st != PGDDS_OK) st = fail_prefix(st, who);
    }
    status fl = pgdds_flush(ctx);
    if (st == PGDDS_OK && fl != PGDDS_OK) st = fail_prefix(fl, who);
    // Every entry is in its queue; the owners read and add what was queued for them.
    status bar = pgdds_barrier(ctx);
    if (st == PGDDS_OK && bar != PGDDS_OK) st = fail_prefix(bar, who);
    // The counter is read as it was written, atomically (the job's atomicity domain).
    const char *mine = static_cast<const char *>(pgdds_gptr_to_local(ctx, queue));
    uint64_t queued_here = 0;
    status rd = pgdds_atomic_u64(ctx, queue, PGDDS_AOP_ADD, 0, &queued_here);
    if (st == PGDDS_OK && rd != PGDDS_OK) st = fail_prefix(rd, who);
    for (uint64_t e = 0; e < queued_here && st == PGDDS_OK; ++e) {
        queued q;
        memcpy(&q, mine + 64 + e * sizeof(queued), sizeof q);
        const uint64_t i = q.tile / lc.tgrid_cols, j = q.tile % lc.tgrid_cols, rows = lc.tile_rows_of(i);
        // Read in place where the producer's segment is mapped here (a node peer), else fetched.
        const char *tile = static_cast<const char *>(pgdds_gptr_to_local(ctx, q.where));
        if (!tile) {
            std::vector<char> &buf = sums.keep(i, j, queued_bytes(rows, q.nnz, es));
            st = pgdds_get(ctx, buf.data(), q.where, buf.size());
            if (st != PGDDS_OK) {
                st = fail_prefix(st, who);
                break;
            }
            tile = buf.data();
        }
        const uint64_t *w = reinterpret_cast<const uint64_t *>(tile);
        sums.add_piece(i, j, csr_view{w, w + rows + 1, tile + (rows + 1 + q.nnz) * 8, 1});
    }
    // The queued tiles stay until their owners have written their tiles (sent.release).
    sent.queue = queue;
    for (auto &o : out) sent.tiles.push_back(o.second.where);
    return st;
}

}  // namespace

status spgemm(const char *who, double alpha, const smatrix &a, const smatrix &b, const pgdds_dmatrix_params_t &params,
              int algorithm, smatrix *&out)
{
    runtime *rt = a.rt;
    const layout &la = a.lay(), &lb = b.lay();
    // C's shape is A's rows by B's columns; params may leave it 0.
    pgdds_dmatrix_params_t pc = params;
    if (pc.rows == 0) pc.rows = la.rows;
    if (pc.cols == 0) pc.cols = lb.cols;
    layout lc;
    status st = layout::agreed(rt, who, pc, lc, true);
    if (st != PGDDS_OK) return st;
    // Every rank holds the same layouts, so these checks answer alike everywhere.
    if (algorithm < PGDDS_GEMM_STATIONARY_C || algorithm > PGDDS_GEMM_STEAL_LOCALITY || algorithm == PGDDS_GEMM_SUMMA)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: algorithm %d is not one SpGEMM offers (stationary C, A or B, or work "
                    "stealing)", who, algorithm);
    st = check_conform(who, la, lb, lc);
    if (st == PGDDS_OK) st = check_scalars(who, lc.dtype, alpha, 0);
    if (st != PGDDS_OK) return st;
    st = containers::agree(rt, who, grb_start(who));
    if (st != PGDDS_OK) return st;

    kernels::place at;
    if (lc.memory == PGDDS_MEMORY_CUDA) at.device = gpu::device(*rt);
    tile_sums sums(who, lc, at);
    pgdds_matrix_steals_t steals{};
    st = products(who, a, b, lc, algorithm, sums, steals);
    sent_tiles sent;
    st = exchange(who, a, lc, sums, st, sent);
    // This rank's tiles, whole: exported by GraphBLAS straight into the new matrix's block.
    std::vector<uint64_t> nnz(lc.slots_per_rank, 0);
    for (uint64_t i = 0; i < lc.tgrid_rows && st == PGDDS_OK; ++i)
        for (uint64_t j = 0; j < lc.tgrid_cols && st == PGDDS_OK; ++j)
            if (lc.owner(i, j) == a.rank()) st = sums.count(i, j, nnz[lc.slot(i, j)]);
    st = containers::agree(rt, who, st);
    if (st == PGDDS_OK)
        st = smatrix::from_filled(rt, who, lc, nnz, [&](uint64_t i, uint64_t j, uint64_t *offsets, uint64_t *indices, void *values) {
            return sums.take_into(i, j, alpha, nnz[lc.slot(i, j)], offsets, indices, values);
        }, out);
    st = sent.release(a.ctx, who, st);
    if (st == PGDDS_OK) out->steals() = steals;
    return st;
}

}  // namespace pgdds::matrix
