// C = alpha A B + beta C with A sparse (CSR tiles) and B, C dense, by the dense algorithms'
// schedules (gemm.cc, steal.cc): stationary C, A or B, and stationary C with random or
// locality-aware work stealing. A step fetches A(i, k) with three gets (none when the tile is
// empty: it adds nothing, nor where this rank reaches it in GPU memory) and reads B(k, j), and
// multiplies them with Eigen's sparse-times-dense product, or with cuSPARSE for matrices in GPU
// memory.
#include "smatrix.h"

#include "gemm.h"
#include "kernels.h"

#include "grb.h"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <new>
#include <vector>

namespace pgdds::matrix {
namespace {

// C (rows x cols, row-major) += alpha * A (CSR, rows x kk) * B (kk x cols, row-major), by
// Eigen's sparse-times-dense product on the arrays in place (docs/matrices.md, "Local kernels":
// on these tiles it ran 2.5x GraphBLAS's GrB_mxm, which needs B as a matrix of its own, with an
// index per entry, and its product copied out).
template <class T>
status spmm_tile(const char *who, uint64_t rows, uint64_t kk, uint64_t cols, const uint64_t *ap, const uint64_t *ai,
                 const void *ax, uint64_t nnz, const void *b, double alpha, void *c)
{
    if (nnz == 0 || cols == 0) return PGDDS_OK;
    using sparse = Eigen::SparseMatrix<T, Eigen::RowMajor, int64_t>;
    using dense = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    // The offsets and indices are below 2^63: the same bits as Eigen's signed index type.
    Eigen::Map<const sparse> A(int64_t(rows), int64_t(kk), int64_t(nnz), reinterpret_cast<const int64_t *>(ap),
                               reinterpret_cast<const int64_t *>(ai), static_cast<const T *>(ax));
    Eigen::Map<const dense> B(static_cast<const T *>(b), int64_t(kk), int64_t(cols));
    Eigen::Map<dense> C(static_cast<T *>(c), int64_t(rows), int64_t(cols));
    try {
        if (alpha == 1) {
            C.noalias() += A * B;
            return PGDDS_OK;
        }
        // Scaled as the other kernels scale (kernels::scale, in the element type's own rules).
        dense P = A * B;
        status st = kernels::scale(kernels::place{}, grb<T>::dtype, rows, cols, alpha, P.data(), cols);
        return st != PGDDS_OK ? st : kernels::add(kernels::place{}, grb<T>::dtype, rows, cols, P.data(), cols, static_cast<T *>(c), cols);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: no memory for a %llu x %llu product tile", who,
                    (unsigned long long)rows, (unsigned long long)cols);
    }
}

// One step of SpMM: out (C(i, j)'s shape, its columns apart) += alpha A(i, k) B(k, j). A(i, k) and
// B(k, j) are read in place where this rank reaches them, else fetched (A unless it is the tile
// fetched last: stationary A keeps it). An empty A(i, k) adds nothing and is not read.
class spmm_step {
  public:
    spmm_step(const char *who, double alpha, const smatrix &a, const dmatrix &b)
        : who_(who), alpha_(alpha), a_(a), b_(b) {}
    // out = alpha A(i, k) B(k, j) + keep out (keep 0: out is set without being read).
    status add(uint64_t i, uint64_t k, uint64_t j, void *out, double keep = 1)
    {
        const uint64_t nnz = a_.tile(i, k).nnz;
        const kernels::place at = b_.at();
        const layout &la = a_.lay();
        const uint64_t rows = la.tile_rows_of(i), cols = b_.lay().tile_cols_of(j);
        // The host kernel adds into out: scale it first; cuSPARSE takes keep as its beta.
        if (nnz == 0 || at.host()) {
            status st = kernels::scale(at, la.dtype, rows, cols, keep, out, cols);
            if (st != PGDDS_OK || nnz == 0) return st;
        }
        status st = PGDDS_OK;
        if (!(held_ && i == hi_ && k == hk_)) {
            held_ = false;
            st = a_tile(i, k);
            if (st != PGDDS_OK) return st;
            held_ = true, hi_ = i, hk_ = k;
        }
        const void *bt = nullptr;
        st = b_.read_tile(who_, k, j, bbuf_, bt);
        if (st != PGDDS_OK) return st;
        if (!at.host())
            return kernels::device::spmm(at.device, la.dtype, rows, la.tile_cols_of(k), cols, doff_, didx_, dval_, nnz, bt,
                                         cols, alpha_, keep, out, cols);
        return typed(la.dtype, [&](auto x) {
            return spmm_tile<decltype(x)>(who_, rows, la.tile_cols_of(k), cols, doff_, didx_, dval_, nnz, bt, alpha_, out);
        });
    }

  private:
    // A(i, k): in place where this rank reaches it (its own, a node peer's segment, or by CUDA
    // IPC), else fetched into buffers where the kernel runs (host or device memory).
    status a_tile(uint64_t i, uint64_t k)
    {
        const smatrix::tile_entry &t = a_.tile(i, k);
        doff_ = static_cast<const uint64_t *>(pgdds_gptr_to_local(a_.ctx, t.offsets));
        didx_ = static_cast<const uint64_t *>(pgdds_gptr_to_local(a_.ctx, t.indices));
        dval_ = pgdds_gptr_to_local(a_.ctx, t.values);
        if (doff_ && didx_ && dval_) return PGDDS_OK;
        const kernels::place at = b_.at();
        status st = off_.ensure(at, (a_.lay().tile_rows_of(i) + 1) * 8);
        if (st == PGDDS_OK) st = idx_.ensure(at, t.nnz * 8);
        if (st == PGDDS_OK) st = val_.ensure(at, t.nnz * a_.lay().esize);
        if (st != PGDDS_OK) return fail_prefix(st, who_);
        doff_ = static_cast<const uint64_t *>(off_.data()), didx_ = static_cast<const uint64_t *>(idx_.data());
        dval_ = val_.data();
        return a_.get_tile(who_, i, k, static_cast<uint64_t *>(off_.data()), static_cast<uint64_t *>(idx_.data()),
                           val_.data());
    }

    const char *who_;
    double alpha_;
    const smatrix &a_;
    const dmatrix &b_;
    kernels::buffer off_, idx_, val_;   // a fetched A tile
    const uint64_t *doff_ = nullptr, *didx_ = nullptr;
    const void *dval_ = nullptr;        // the A tile's arrays, in place or fetched
    bool held_ = false;
    uint64_t hi_ = 0, hk_ = 0;
    kernels::buffer bbuf_;
};

}  // namespace

status spmm(const char *who, double alpha, const smatrix &a, const dmatrix &b, double beta, const dmatrix &c,
            int algorithm)
{
    c.steals() = {};  // work stealing counts; the other algorithms leave none
    // GraphBLAS starts on every rank or on none (the algorithms below hold collectives).
    status st = containers::agree(c.rt, who, grb_start(who));
    if (st != PGDDS_OK) return st;
    const layout &la = a.lay(), &lb = b.lay(), &lc = c.lay();
    const uint64_t mt = la.tgrid_rows, kt = la.tgrid_cols, nt = lb.tgrid_cols;
    spmm_step step(who, alpha, a, b);
    // Products for C tiles this rank does not reach in place go through sum, made at the first
    // (a C tile's worth of device memory is costly to allocate and free at every call).
    kernels::buffer sum;
    const size_t sum_bytes = lc.tile_rows * lc.tile_cols * lc.esize;
    // alpha A(i, k) B(k, j) into C(i, j) (stationary A and B): straight into the tile, under its
    // lock, where this rank reaches it in place, else through sum.
    auto accumulate = [&](uint64_t i, uint64_t k, uint64_t j) {
        if (a.tile(i, k).nnz == 0) return PGDDS_OK;
        bool done = false;
        status s = c.accumulate_in_place(who, i, j, done, [&](void *ct) { return step.add(i, k, j, ct); });
        if (s != PGDDS_OK || done) return s;
        s = sum.ensure(c.at(), sum_bytes);
        if (s == PGDDS_OK) s = step.add(i, k, j, sum.data(), 0);
        return s == PGDDS_OK ? c.accumulate_tile(who, i, j, sum.data(), lc.tile_cols_of(j)) : s;
    };
    return product_frame(who, c, beta, algorithm != PGDDS_GEMM_STATIONARY_C, [&] {
        status s = PGDDS_OK;
        switch (algorithm) {
        case PGDDS_GEMM_STATIONARY_C:  // C(i, j), for every k from i + j (spreading the reads); beta
                                       // enters with the first product, so C is read at most once
            lc.for_tiles_of(c.rank(), [&](uint64_t i, uint64_t j) {
                void *ct = c.reachable(i, j);
                for (uint64_t x = 0; x < kt && s == PGDDS_OK; ++x) s = step.add(i, (i + j + x) % kt, j, ct, x ? 1 : beta);
            });
            return s;
        case PGDDS_GEMM_STATIONARY_A:  // A(i, k), for every j
            la.for_tiles_of(a.rank(), [&](uint64_t i, uint64_t k) {
                for (uint64_t x = 0; x < nt && s == PGDDS_OK && a.tile(i, k).nnz; ++x) s = accumulate(i, k, (i + k + x) % nt);
            });
            return s;
        case PGDDS_GEMM_STATIONARY_B:  // B(k, j), for every i
            lb.for_tiles_of(b.rank(), [&](uint64_t k, uint64_t j) {
                for (uint64_t x = 0; x < mt && s == PGDDS_OK; ++x) s = accumulate((k + j + x) % mt, k, j);
            });
            return s;
        default: {  // work stealing: a step is one k; near: the A and B tiles read in place
            auto near = [&](uint64_t i, uint64_t j) {
                uint64_t n = 0;
                for (uint64_t k = 0; k < kt; ++k)
                    n += (pgdds_gptr_to_local(c.ctx, a.tile(i, k).offsets) != nullptr) + (b.reachable(k, j) != nullptr);
                return n;
            };
            // Each product straight into C(i, j), under its lock, where this rank reaches it in
            // place, else into sum, which done() accumulates.
            auto add = [&](uint64_t i, uint64_t j, uint64_t x, bool first) {
                const uint64_t k = (i + j + x) % kt;
                bool in_place = false;
                status s1 = c.accumulate_in_place(who, i, j, in_place, [&](void *ct) { return step.add(i, k, j, ct); });
                if (s1 != PGDDS_OK || in_place) return s1;
                s1 = sum.ensure(c.at(), sum_bytes);
                return s1 != PGDDS_OK ? s1 : step.add(i, k, j, sum.data(), first ? 0 : 1);
            };
            auto done = [&](uint64_t i, uint64_t j) {
                return c.reachable(i, j) ? PGDDS_OK : c.accumulate_tile(who, i, j, sum.data(), lc.tile_cols_of(j));
            };
            return steal(who, c.ctx, c.rank(), lc, kt, algorithm == PGDDS_GEMM_STEAL_LOCALITY, near, add, done, c.steals());
        }
        }
    });
}

}  // namespace pgdds::matrix
