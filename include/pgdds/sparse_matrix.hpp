// pgdds::sparse_matrix<T>: the distributed sparse matrix of <pgdds/matrix.h> (CSR tiles, built
// where GraphBLAS is) for T = float, double, int32_t or int64_t, with uint64_t indices. Built
// from triples, a stencil, an R-MAT graph or a Matrix Market file; tiles, slices,
// C = alpha A B + beta C with dense B and C (spmm), and C = alpha A B with sparse B and C
// (spgemm) (docs/matrices.md).
//
//   auto a = pgdds::sparse_matrix<double>::stencil(ctx, 16, 16, 16, 27);    // collective
//   pgdds::dense_matrix<double> x(ctx, a.rows(), 1, layout), y(ctx, a.rows(), 1, layout);
//   pgdds::spmm(1.0, a, x, 0.0, y);                                         // y = A x
//   auto a2 = pgdds::spgemm(1.0, a, a);                                     // A^2, sparse
//   auto s = pgdds::add(1.0, a, 1.0, pgdds::transpose(a));                  // A + A^T, sparse
#pragma once

#include <pgdds/dense_matrix.hpp>

#include <string>

namespace pgdds {

template <class T> class sparse_matrix : public matrix_shape, public detail::elementwise<sparse_matrix<T>, T> {
    static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value ||
                      std::is_same<T, int32_t>::value || std::is_same<T, int64_t>::value,
                  "pgdds::sparse_matrix holds float, double, int32_t or int64_t");

  public:
    using layout = matrix_layout;

    // A CSR tile: rows + 1 offsets, and per entry a column (from the tile's first) and a value.
    struct csr_tile {
        std::vector<uint64_t> row_offsets, col_indices;
        std::vector<T> values;
    };

    // Collective: every rank passes the same shape and layout and any triples of its own;
    // duplicates are summed.
    sparse_matrix(const context_ref &ctx, uint64_t rows, uint64_t cols, const std::vector<uint64_t> &row_idx,
                  const std::vector<uint64_t> &col_idx, const std::vector<T> &values, const layout &l = layout())
    {
        if (row_idx.size() != col_idx.size() || row_idx.size() != values.size())
            check(pgdds_set_last_error(PGDDS_ERR_INVALID_ARG, "pgdds::sparse_matrix: the triples' three vectors differ in "
                                                              "length"));
        pgdds_dmatrix_params_t p = params(rows, cols, l);
        adopt(pgdds_smatrix_create_coo(ctx.handle(), &p, values.size(), row_idx.data(), col_idx.data(), values.data(), &h_));
    }
    // Collective constructors: a 7- or 27-point stencil, an R-MAT graph, a Matrix Market file.
    static sparse_matrix stencil(const context_ref &ctx, uint64_t nx, uint64_t ny, uint64_t nz, int points,
                                 const layout &l = layout())
    {
        pgdds_dmatrix_params_t p = params(0, 0, l);
        sparse_matrix m;
        m.adopt(pgdds_smatrix_stencil(ctx.handle(), &p, nx, ny, nz, points, &m.h_));
        return m;
    }
    static sparse_matrix rmat(const context_ref &ctx, int scale, int edge_factor, uint64_t seed, const layout &l = layout())
    {
        pgdds_dmatrix_params_t p = params(0, 0, l);
        sparse_matrix m;
        m.adopt(pgdds_smatrix_rmat(ctx.handle(), &p, scale, edge_factor, seed, &m.h_));
        return m;
    }
    static sparse_matrix read_matrix_market(const context_ref &ctx, const std::string &path, const layout &l = layout())
    {
        pgdds_dmatrix_params_t p = params(0, 0, l);
        sparse_matrix m;
        m.adopt(pgdds_smatrix_read_mm(ctx.handle(), path.c_str(), &p, &m.h_));
        return m;
    }
    ~sparse_matrix()
    {
        if (h_) pgdds_smatrix_destroy(h_);
    }
    // Collective.
    void destroy() { check(pgdds_smatrix_destroy(std::exchange(h_, nullptr))); }
    sparse_matrix(const sparse_matrix &) = delete;
    sparse_matrix &operator=(const sparse_matrix &) = delete;
    sparse_matrix(sparse_matrix &&o) noexcept : matrix_shape(o), h_(std::exchange(o.h_, nullptr)), nnz_(o.nnz_) {}
    sparse_matrix &operator=(sparse_matrix &&) = delete;

    pgdds_smatrix_t handle() const noexcept { return h_; }
    uint64_t nnz() const noexcept { return nnz_; }
    // This rank's work-stealing counts of the SpGEMM that made this matrix.
    pgdds_matrix_steals_t steals() const
    {
        pgdds_matrix_steals_t s;
        check(pgdds_smatrix_steals(h_, &s));
        return s;
    }
    uint64_t tile_nnz(uint64_t ti, uint64_t tj) const
    {
        uint64_t n;
        check(pgdds_smatrix_tile_shape(h_, ti, tj, nullptr, nullptr, &n, nullptr));
        return n;
    }
    // Collective: writes the matrix as a Matrix Market file.
    void write_matrix_market(const std::string &path) const { check(pgdds_smatrix_write_mm(h_, path.c_str())); }

    // Tile (ti, tj), three gets.
    csr_tile get_tile(uint64_t ti, uint64_t tj) const
    {
        uint64_t r, n;
        check(pgdds_smatrix_tile_shape(h_, ti, tj, &r, nullptr, &n, nullptr));
        csr_tile t{std::vector<uint64_t>(r + 1), std::vector<uint64_t>(n), std::vector<T>(n)};
        check(pgdds_smatrix_get_tile(h_, ti, tj, t.row_offsets.data(), t.col_indices.data(), t.values.data()));
        return t;
    }
    // A submatrix, dense and row-major (absent entries 0).
    std::vector<T> slice(uint64_t row0, uint64_t col0, uint64_t nrows, uint64_t ncols) const
    {
        std::vector<T> out(nrows * ncols);
        check(pgdds_smatrix_get_slice(h_, row0, col0, nrows, ncols, out.data(), 0));
        return out;
    }

    // Collective: A^T, a new matrix in A's layout transposed (pgdds_smatrix_transpose); pgdds::transpose.
    sparse_matrix transposed() const
    {
        sparse_matrix m;
        m.adopt(pgdds_smatrix_transpose(h_, &m.h_));
        return m;
    }
    // Collective: alpha A + beta B, a new matrix in A's layout (pgdds_smatrix_add); pgdds::add.
    static sparse_matrix sum(T alpha, const sparse_matrix &a, T beta, const sparse_matrix &b)
    {
        sparse_matrix m;
        m.adopt(pgdds_smatrix_add(double(alpha), a.h_, double(beta), b.h_, &m.h_));
        return m;
    }
    // Collective: C = alpha A B, a new matrix of layout l (pgdds_smatrix_spgemm); pgdds::spgemm.
    static sparse_matrix product(T alpha, const sparse_matrix &a, const sparse_matrix &b, const layout &l,
                                 pgdds_gemm_algorithm_t algorithm)
    {
        pgdds_dmatrix_params_t p = params(0, 0, l);
        sparse_matrix m;
        m.adopt(pgdds_smatrix_spgemm(double(alpha), a.h_, b.h_, &p, algorithm, &m.h_));
        return m;
    }

  private:
    sparse_matrix() = default;
    static pgdds_dmatrix_params_t params(uint64_t rows, uint64_t cols, const layout &l)
    {
        return l.params(rows, cols, context_ref::dtype_of<T>());
    }
    void adopt(pgdds_status_t st)
    {
        check(st);
        check(pgdds_smatrix_info(h_, &info_, &nnz_));
    }

    pgdds_smatrix_t h_ = nullptr;
    uint64_t nnz_ = 0;
};

// Collective: C = alpha A B + beta C, A sparse (pgdds_smatrix_spmm_algorithm; SUMMA is not offered).
template <class T>
void spmm(T alpha, const sparse_matrix<T> &a, const dense_matrix<T> &b, T beta, dense_matrix<T> &c,
          pgdds_gemm_algorithm_t algorithm = PGDDS_GEMM_STATIONARY_C)
{
    check(pgdds_smatrix_spmm_algorithm(double(alpha), a.handle(), b.handle(), double(beta), c.handle(), algorithm));
}

// Collective: C = alpha A B with A, B and C sparse, C new with layout l (pgdds_smatrix_spgemm).
template <class T>
sparse_matrix<T> spgemm(T alpha, const sparse_matrix<T> &a, const sparse_matrix<T> &b,
                        const typename sparse_matrix<T>::layout &l = typename sparse_matrix<T>::layout(),
                        pgdds_gemm_algorithm_t algorithm = PGDDS_GEMM_STATIONARY_C)
{
    return sparse_matrix<T>::product(alpha, a, b, l, algorithm);
}

// Collective: A^T, a new sparse matrix (pgdds_smatrix_transpose).
template <class T> sparse_matrix<T> transpose(const sparse_matrix<T> &a) { return a.transposed(); }

// Collective: alpha A + beta B, a new sparse matrix in A's layout (pgdds_smatrix_add).
template <class T> sparse_matrix<T> add(T alpha, const sparse_matrix<T> &a, T beta, const sparse_matrix<T> &b)
{
    return sparse_matrix<T>::sum(alpha, a, beta, b);
}

}  // namespace pgdds
