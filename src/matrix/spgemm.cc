// C = alpha A B with A, B and C sparse (SpGEMM), one-sided as in the BCL thesis (§7.3, §7.5).
// Stationary C, A or B decides which rank computes each tile product A(i, k) B(k, j) (GrB_mxm).
// A rank sums the products it computes for one C tile in a private GraphBLAS matrix (GrB_mxm
// with a plus accumulator: the greedy sparse accumulator of thesis Table 7.3). A sum for a tile
// another rank holds goes to that owner as in the thesis: the producer lays it out as a CSR tile
// in its own segment and queues a pointer to it on the owner (a fetch-add claims a queue entry, a
// put fills it); after a barrier the owner reads each tile queued for it (one get) and adds it
// into its own sum (GrB_eWiseAdd). Sparse tiles are only ever written by their owner, so owners,
// not producers, accumulate. The owners' sums become the new matrix (smatrix::from_tiles).
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

#include <map>

namespace pgdds::matrix {
namespace {

// A queue entry: C tile (ti * tgrid_cols + tj), where its CSR tile is, and its entry count.
struct queued {
    uint64_t tile;
    pgdds_gptr_t where;
    uint64_t nnz;
};

// The sums of tile products by C tile, each a GraphBLAS matrix of the tile's shape.
class tile_sums {
  public:
    tile_sums(const char *who, const layout &lc, kernels::place at) : who_(who), lc_(lc), at_(at) {}
    ~tile_sums()
    {
        for (auto &s : sums_) GrB_Matrix_free(&s.second);
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
    // The entry count of tile (i, j)'s sum (0 where nothing was added).
    status count(uint64_t i, uint64_t j, uint64_t &nnz)
    {
        nnz = 0;
        auto it = sums_.find(i * lc_.tgrid_cols + j);
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
    // The sum of tile (i, j) as a CSR tile (no entries where nothing was added), its values
    // times alpha; the sum is dropped.
    status take(uint64_t i, uint64_t j, double alpha, csr_tile &out)
    {
        out = csr_tile();
        uint64_t nnz = 0;
        status st = count(i, j, nnz);
        if (st != PGDDS_OK || nnz == 0) return st;
        out.offsets.resize(lc_.tile_rows_of(i) + 1);
        out.indices.resize(nnz);
        out.values.resize(nnz * lc_.esize);
        return take_into(i, j, alpha, nnz, out.offsets.data(), out.indices.data(), out.values.data());
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

    const char *who_;
    const layout &lc_;
    kernels::place at_;  // where tile products run
    std::map<uint64_t, GrB_Matrix> sums_;
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

// Sends every sum this rank holds for another rank's tile to that owner and adds what others sent
// into this rank's sums; collective. `st` is this rank's status so far: a rank that failed still
// takes part, sending nothing.
status exchange(const char *who, const smatrix &a, const layout &lc, tile_sums &sums, status st)
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
        csr_tile p;
        st = sums.take(i, j, 1, p);
        if (st != PGDDS_OK || p.nnz() == 0) continue;
        const uint64_t rows = lc.tile_rows_of(i);
        queued q{t, PGDDS_GPTR_NULL, p.nnz()};
        st = pgdds_alloc(ctx, queued_bytes(rows, q.nnz, es), 64, &q.where);
        if (st != PGDDS_OK) {
            st = fail_prefix(st, who);
            break;
        }
        char *at = static_cast<char *>(pgdds_gptr_to_local(ctx, q.where));
        memcpy(at, p.offsets.data(), (rows + 1) * 8);
        memcpy(at + (rows + 1) * 8, p.indices.data(), q.nnz * 8);
        memcpy(at + (rows + 1 + q.nnz) * 8, p.values.data(), q.nnz * es);
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
    std::vector<char> buf;
    for (uint64_t e = 0; e < queued_here && st == PGDDS_OK; ++e) {
        queued q;
        memcpy(&q, mine + 64 + e * sizeof(queued), sizeof q);
        const uint64_t i = q.tile / lc.tgrid_cols, j = q.tile % lc.tgrid_cols, rows = lc.tile_rows_of(i);
        buf.resize(queued_bytes(rows, q.nnz, es));
        st = pgdds_get(ctx, buf.data(), q.where, buf.size());
        if (st != PGDDS_OK) {
            st = fail_prefix(st, who);
            break;
        }
        csr_tile p;
        const uint64_t *w = reinterpret_cast<const uint64_t *>(buf.data());
        p.offsets.assign(w, w + rows + 1);
        p.indices.assign(w + rows + 1, w + rows + 1 + q.nnz);
        p.values.assign(buf.data() + (rows + 1 + q.nnz) * 8, buf.data() + buf.size());
        st = sums.add_tile(i, j, p);
    }
    // Every owner has read its queue before the queued tiles and the queue go.
    bar = pgdds_barrier(ctx);
    if (st == PGDDS_OK && bar != PGDDS_OK) st = fail_prefix(bar, who);
    for (auto &o : out) pgdds_free(ctx, o.second.where);
    status fr = pgdds_free_all(ctx, queue);
    return st != PGDDS_OK ? st : (fr == PGDDS_OK ? fr : fail_prefix(fr, who));
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
    st = exchange(who, a, lc, sums, st);
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
    if (st == PGDDS_OK) out->steals() = steals;
    return st;
}

}  // namespace pgdds::matrix
