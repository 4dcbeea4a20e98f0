// pgdds::dense_matrix<T>: the distributed dense matrix of <pgdds/matrix.h> for T = float,
// double, int32_t or int64_t. Tiles over a 2D grid of ranks, one-sided tile, element and slice
// access, a future for a tile in flight, and C = alpha A B + beta C (docs/matrices.md).
//
//   pgdds::dense_matrix<double> a(ctx, 1000, 800), b(ctx, 800, 600), c(ctx, 1000, 600);
//   a.fill([](uint64_t i, uint64_t j) { return double(i + j); });     // collective
//   pgdds::gemm(1.0, a, b, 0.0, c);                                    // collective
//   pgdds::dense_matrix<double> d(ctx, 800, 600);
//   pgdds::gemm(PGDDS_TRANS, PGDDS_NO_TRANS, 1.0, a, c, 0.0, d);       // D = A^T C, A read in place
//   std::vector<double> corner = c.slice(0, 0, 10, 10);
//   pgdds::add(2.0, c, -1.0, e);                                       // E = 2 C - E
//   double size = c.norm(PGDDS_NORM_FROBENIUS);                        // collective
//
// The default layout is square block-cyclic tiles (PGDDS_DMATRIX_DEFAULT_TILE), which conform
// for any product; dense_matrix<T>::layout chooses another.
#pragma once

#include <pgdds/matrix.h>
#include <pgdds/pgdds.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace pgdds {

namespace detail {
// A request in flight, waited for when dropped unfinished (its operation may still write).
class pending_request {
  public:
    pending_request(pgdds_context_t ctx, pgdds_request_t req) : ctx_(ctx), req_(req) {}
    pending_request(const pending_request &) = delete;
    pending_request &operator=(const pending_request &) = delete;
    pending_request(pending_request &&o) noexcept : ctx_(o.ctx_), req_(std::exchange(o.req_, nullptr)) {}
    ~pending_request()
    {
        if (req_) pgdds_wait(ctx_, req_);
    }
    bool ready()
    {
        int done = 1;
        if (req_) {
            check(pgdds_test(ctx_, req_, &done));
            if (done) req_ = nullptr;
        }
        return done != 0;
    }
    void wait()
    {
        if (req_) check(pgdds_wait(ctx_, std::exchange(req_, nullptr)));
    }

  private:
    pgdds_context_t ctx_;
    pgdds_request_t req_;
};

// The C callback of apply for a callable f(i, j, value) -> new value, passed as arg.
template <class T, class F> void apply_element(uint64_t i, uint64_t j, void *v, void *f)
{
    T *x = static_cast<T *>(v);
    *x = (*static_cast<F *>(f))(i, j, *x);
}

// The C calls behind the element-wise members, by handle.
inline pgdds_status_t c_scale(double a, pgdds_dmatrix_t h) { return pgdds_dmatrix_scale(a, h); }
inline pgdds_status_t c_scale(double a, pgdds_smatrix_t h) { return pgdds_smatrix_scale(a, h); }
inline pgdds_status_t c_apply(pgdds_dmatrix_t h, pgdds_dmatrix_apply_t f, void *a) { return pgdds_dmatrix_apply(h, f, a); }
inline pgdds_status_t c_apply(pgdds_smatrix_t h, pgdds_dmatrix_apply_t f, void *a) { return pgdds_smatrix_apply(h, f, a); }
inline pgdds_status_t c_reduce(pgdds_dmatrix_t h, pgdds_op_t op, void *out) { return pgdds_dmatrix_reduce(h, op, out); }
inline pgdds_status_t c_reduce(pgdds_smatrix_t h, pgdds_op_t op, void *out) { return pgdds_smatrix_reduce(h, op, out); }
inline pgdds_status_t c_norm(pgdds_dmatrix_t h, pgdds_norm_t k, double *out) { return pgdds_dmatrix_norm(h, k, out); }
inline pgdds_status_t c_norm(pgdds_smatrix_t h, pgdds_norm_t k, double *out) { return pgdds_smatrix_norm(h, k, out); }

// The element-wise members of dense_matrix<T> and sparse_matrix<T> (Derived), all collective:
// over every element of a dense matrix, over the stored entries of a sparse one.
template <class Derived, class T> class elementwise {
  public:
    // Every element times alpha.
    void scale(T alpha) const { check(c_scale(double(alpha), self().handle())); }
    // Element (i, j) = f(i, j, its value), computed on its owner.
    template <class F> void apply(F f) const { check(c_apply(self().handle(), apply_element<T, F>, &f)); }
    // Every element reduced by op, on every rank.
    T reduce(pgdds_op_t op) const
    {
        T out;
        check(c_reduce(self().handle(), op, &out));
        return out;
    }
    // A norm (pgdds_norm_t), on every rank.
    double norm(pgdds_norm_t kind = PGDDS_NORM_FROBENIUS) const
    {
        double out;
        check(c_norm(self().handle(), kind, &out));
        return out;
    }

  private:
    const Derived &self() const { return static_cast<const Derived &>(*this); }
};
}  // namespace detail

// A tile on its way (get_tile_async): get() waits for it and hands it over; a future dropped
// unread still waits, since the request writes into its buffer.
template <class T> class tile_future {
  public:
    tile_future(pgdds_context_t ctx, pgdds_request_t req, std::vector<T> data)
        : data_(std::move(data)), req_(ctx, req) {}
    bool ready() { return req_.ready(); }
    std::vector<T> get()
    {
        req_.wait();
        return std::move(data_);
    }

  private:
    std::vector<T> data_;  // before req_: the request is waited for before the buffer goes
    detail::pending_request req_;
};

// An accumulation on its way (accumulate_tile_async): get() waits until the sum is visible at
// the tile's owner; dropped unwaited, it waits in its destructor.
class accumulate_future {
  public:
    accumulate_future(pgdds_context_t ctx, pgdds_request_t req) : req_(ctx, req) {}
    bool ready() { return req_.ready(); }
    void get() { req_.wait(); }

  private:
    detail::pending_request req_;
};

// How a matrix, dense or sparse, is cut and dealt (pgdds_dmatrix_params_t's distribution and
// optional fields; 0 leaves a field to the distribution); dense_matrix<T>::layout and
// sparse_matrix<T>::layout.
struct matrix_layout {
    pgdds_dist_t distribution = PGDDS_DIST_BLOCK_CYCLIC;
    int grid_rows = 0, grid_cols = 0;
    uint64_t tile_rows = 0, tile_cols = 0;
    memory where = memory::host;  // memory::cuda: dense tiles in the device segments (float, double)
    // PGDDS_COL_MAJOR: dense tiles, and the vectors that carry tiles and slices, column-major.
    pgdds_order_t order = PGDDS_ROW_MAJOR;

    // The params of a rows x cols matrix of type t with this layout.
    pgdds_dmatrix_params_t params(uint64_t rows, uint64_t cols, pgdds_dtype_t t) const
    {
        pgdds_dmatrix_params_t p{};
        p.rows = rows;
        p.cols = cols;
        p.dtype = t;
        p.distribution = distribution;
        if (grid_rows || grid_cols) {
            p.field_mask |= PGDDS_DMATRIX_FIELD_GRID;
            p.grid_rows = grid_rows;
            p.grid_cols = grid_cols;
        }
        if (tile_rows || tile_cols) {
            p.field_mask |= PGDDS_DMATRIX_FIELD_TILE;
            p.tile_rows = tile_rows;
            p.tile_cols = tile_cols;
        }
        if (where != memory::host) {
            p.field_mask |= PGDDS_DMATRIX_FIELD_MEMORY;
            p.memory = static_cast<pgdds_memory_kind_t>(where);
        }
        if (order != PGDDS_ROW_MAJOR) {
            p.field_mask |= PGDDS_DMATRIX_FIELD_ORDER;
            p.order = order;
        }
        return p;
    }
};

// What the dense and sparse matrices tell alike of themselves: their shape, type and layout.
class matrix_shape {
  public:
    const pgdds_dmatrix_info_t &info() const noexcept { return info_; }
    uint64_t rows() const noexcept { return info_.rows; }
    uint64_t cols() const noexcept { return info_.cols; }
    uint64_t tile_grid_rows() const noexcept { return info_.tile_grid_rows; }
    uint64_t tile_grid_cols() const noexcept { return info_.tile_grid_cols; }

  protected:
    pgdds_dmatrix_info_t info_{};
};

template <class T> class dense_matrix : public matrix_shape, public detail::elementwise<dense_matrix<T>, T> {
    static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value ||
                      std::is_same<T, int32_t>::value || std::is_same<T, int64_t>::value,
                  "pgdds::dense_matrix holds float, double, int32_t or int64_t");

  public:
    using layout = matrix_layout;

    // Collective: every rank passes the same shape and layout. The matrix starts zeroed.
    dense_matrix(const context_ref &ctx, uint64_t rows, uint64_t cols, const layout &l = layout())
    {
        pgdds_dmatrix_params_t p = l.params(rows, cols, context_ref::dtype_of<T>());
        check(pgdds_dmatrix_create(ctx.handle(), &p, &h_));
        check(pgdds_dmatrix_info(h_, &info_));
        ctx_ = ctx.handle();
    }
    ~dense_matrix()
    {
        if (h_) pgdds_dmatrix_destroy(h_);
    }
    // Collective (a view's: local).
    void destroy() { check(pgdds_dmatrix_destroy(std::exchange(h_, nullptr))); }
    // A view (pgdds_dmatrix_view): op(this)'s [row0, +rows) x [col0, +cols), op the transpose
    // where trans is PGDDS_TRANS, on this matrix's own elements; local. It reads and writes
    // element-wise (get, slice, fill, apply, reduce, norm, scale, add, transpose), as any operand
    // of gemm and spmm (copied where they cannot use it in place) and, where its edges lie on
    // tile edges, by tiles; it must not outlive the matrix.
    dense_matrix view(pgdds_trans_t trans, uint64_t row0, uint64_t col0, uint64_t rows, uint64_t cols) const
    {
        dense_matrix v;
        check(pgdds_dmatrix_view(h_, trans, row0, col0, rows, cols, &v.h_));
        check(pgdds_dmatrix_info(v.h_, &v.info_));
        v.ctx_ = ctx_;
        return v;
    }
    dense_matrix(const dense_matrix &) = delete;
    dense_matrix &operator=(const dense_matrix &) = delete;
    dense_matrix(dense_matrix &&o) noexcept : matrix_shape(o), h_(std::exchange(o.h_, nullptr)), ctx_(o.ctx_) {}
    dense_matrix &operator=(dense_matrix &&) = delete;

    pgdds_dmatrix_t handle() const noexcept { return h_; }
    // This rank's work-stealing counts of the last GEMM or SpMM into this matrix.
    pgdds_matrix_steals_t steals() const
    {
        pgdds_matrix_steals_t s;
        check(pgdds_dmatrix_steals(h_, &s));
        return s;
    }
    // Tile (ti, tj)'s size and owner.
    std::pair<uint64_t, uint64_t> tile_shape(uint64_t ti, uint64_t tj) const
    {
        uint64_t r, c;
        check(pgdds_dmatrix_tile_shape(h_, ti, tj, &r, &c, nullptr));
        return {r, c};
    }
    int tile_owner(uint64_t ti, uint64_t tj) const
    {
        int o;
        check(pgdds_dmatrix_tile_shape(h_, ti, tj, nullptr, nullptr, &o));
        return o;
    }

    // Tiles, packed row-major.
    std::vector<T> get_tile(uint64_t ti, uint64_t tj) const
    {
        std::vector<T> out(tile_elems(ti, tj));
        check(pgdds_dmatrix_get_tile(h_, ti, tj, out.data(), 0));
        return out;
    }
    tile_future<T> get_tile_async(uint64_t ti, uint64_t tj) const
    {
        std::vector<T> out(tile_elems(ti, tj));
        pgdds_request_t req = nullptr;
        check(pgdds_dmatrix_get_tile_nb(h_, ti, tj, out.data(), &req));
        return tile_future<T>(ctx_, req, std::move(out));
    }
    void put_tile(uint64_t ti, uint64_t tj, const std::vector<T> &tile) const
    {
        check_size(tile.size(), tile_elems(ti, tj));
        check(pgdds_dmatrix_put_tile(h_, ti, tj, tile.data(), 0));
    }
    void accumulate_tile(uint64_t ti, uint64_t tj, const std::vector<T> &tile) const
    {
        check_size(tile.size(), tile_elems(ti, tj));
        check(pgdds_dmatrix_accumulate_tile(h_, ti, tj, tile.data(), 0));
    }
    // An accumulation in flight (pgdds_dmatrix_accumulate_tile_nb): the tile is copied before
    // this returns; the future's get() waits for the sum to be visible at the owner.
    accumulate_future accumulate_tile_async(uint64_t ti, uint64_t tj, const std::vector<T> &tile) const
    {
        check_size(tile.size(), tile_elems(ti, tj));
        pgdds_request_t req = nullptr;
        check(pgdds_dmatrix_accumulate_tile_nb(h_, ti, tj, tile.data(), &req));
        return accumulate_future(ctx_, req);
    }
    // A tile this rank holds, in place (row-major, its columns apart).
    // The order of the tiles, and of every vector that carries a tile or a slice.
    pgdds_order_t order() const
    {
        pgdds_order_t o;
        check(pgdds_dmatrix_order(h_, &o));
        return o;
    }
    T *local_tile(uint64_t ti, uint64_t tj) const
    {
        void *p;
        check(pgdds_dmatrix_local_tile(h_, ti, tj, &p));
        return static_cast<T *>(p);
    }

    // Elements and slices, in global coordinates.
    T get(uint64_t i, uint64_t j) const
    {
        T v;
        check(pgdds_dmatrix_get(h_, i, j, &v));
        return v;
    }
    void put(uint64_t i, uint64_t j, const T &v) const { check(pgdds_dmatrix_put(h_, i, j, &v)); }
    std::vector<T> slice(uint64_t row0, uint64_t col0, uint64_t nrows, uint64_t ncols) const
    {
        std::vector<T> out(nrows * ncols);
        check(pgdds_dmatrix_get_slice(h_, row0, col0, nrows, ncols, out.data(), 0));
        return out;
    }
    void put_slice(uint64_t row0, uint64_t col0, uint64_t nrows, uint64_t ncols, const std::vector<T> &src) const
    {
        check_size(src.size(), nrows * ncols);
        check(pgdds_dmatrix_put_slice(h_, row0, col0, nrows, ncols, src.data(), 0));
    }

    // Collective: element (i, j) = f(i, j), computed on its owner.
    template <class F> void fill(F f) const
    {
        check(pgdds_dmatrix_fill(
            h_, [](uint64_t i, uint64_t j, void *v, void *arg) { *static_cast<T *>(v) = (*static_cast<F *>(arg))(i, j); },
            &f));
    }

  private:
    dense_matrix() = default;
    uint64_t tile_elems(uint64_t ti, uint64_t tj) const
    {
        auto s = tile_shape(ti, tj);
        return s.first * s.second;
    }
    static void check_size(size_t have, uint64_t want)
    {
        if (have != want)
            check(pgdds_set_last_error(PGDDS_ERR_INVALID_ARG, "pgdds::dense_matrix: the buffer's size is not the tile's "
                                                              "or slice's"));
    }

    pgdds_dmatrix_t h_ = nullptr;
    pgdds_context_t ctx_ = nullptr;
};

// Collective: C = alpha A B + beta C (pgdds_dmatrix_gemm).
template <class T>
void gemm(T alpha, const dense_matrix<T> &a, const dense_matrix<T> &b, T beta, dense_matrix<T> &c,
          pgdds_gemm_algorithm_t algorithm = PGDDS_GEMM_STATIONARY_C)
{
    check(pgdds_dmatrix_gemm(double(alpha), a.handle(), b.handle(), double(beta), c.handle(), algorithm));
}

// Collective: C = alpha op(A) op(B) + beta C, op(X) X or its transpose read in place
// (pgdds_dmatrix_gemm_trans).
template <class T>
void gemm(pgdds_trans_t trans_a, pgdds_trans_t trans_b, T alpha, const dense_matrix<T> &a, const dense_matrix<T> &b,
          T beta, dense_matrix<T> &c, pgdds_gemm_algorithm_t algorithm = PGDDS_GEMM_STATIONARY_C)
{
    check(pgdds_dmatrix_gemm_trans(trans_a, trans_b, double(alpha), a.handle(), b.handle(), double(beta), c.handle(),
                                   algorithm));
}

// Collective: B = alpha A + beta B, in any layouts (pgdds_dmatrix_add).
template <class T> void add(T alpha, const dense_matrix<T> &a, T beta, dense_matrix<T> &b)
{
    check(pgdds_dmatrix_add(double(alpha), a.handle(), double(beta), b.handle()));
}

// Collective: B = A^T, B in any layout (pgdds_dmatrix_transpose; a product reads A^T in place
// instead, through gemm's trans arguments).
template <class T> void transpose(const dense_matrix<T> &a, dense_matrix<T> &b)
{
    check(pgdds_dmatrix_transpose(a.handle(), b.handle()));
}

}  // namespace pgdds
