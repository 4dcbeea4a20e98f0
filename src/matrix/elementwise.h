// What the element-wise operations of the dense and sparse matrices share (elementwise.cc,
// sparse_elementwise.cc): the checks of their arguments, a reduction's and a norm's running
// value over one rank's elements, and the combination of every rank's into the result.
#pragma once

#include "dmatrix.h"
#include "gemm.h"  // check_scalars

#include <cmath>
#include <limits>
#include <type_traits>

namespace pgdds::matrix {

// op is a reduction the type takes (bitwise ones: integer types only) and out is not NULL.
status check_reduce(const char *who, pgdds_dtype_t t, int op, const void *out);
// norm is a pgdds_norm_t and out is not NULL.
status check_norm(const char *who, int norm, const double *out);
// fn is not NULL.
status check_apply(const char *who, pgdds_dmatrix_apply_t fn);

// A reduction's running value over one rank's elements: op's identity, then every element.
// Integer sums wrap (in the unsigned type); op is one check_reduce_op accepted.
template <class T> struct reduction {
    int op;
    T acc;
    explicit reduction(int o) : op(o), acc(identity(o)) {}
    static T identity(int op)
    {
        using lim = std::numeric_limits<T>;
        switch (op) {
        case PGDDS_OP_MIN: return lim::has_infinity ? lim::infinity() : lim::max();
        case PGDDS_OP_MAX: return lim::has_infinity ? -lim::infinity() : lim::lowest();
        case PGDDS_OP_BAND: return T(-1);
        default: return T(0);
        }
    }
    void add(T v)
    {
        if constexpr (std::is_integral_v<T>) {
            using U = std::make_unsigned_t<T>;
            switch (op) {
            case PGDDS_OP_SUM: acc = T(U(acc) + U(v)); return;
            case PGDDS_OP_BAND: acc &= v; return;
            case PGDDS_OP_BOR: acc |= v; return;
            case PGDDS_OP_BXOR: acc ^= v; return;
            default: break;
            }
        } else if (op == PGDDS_OP_SUM) {
            acc += v;
            return;
        }
        if (op == PGDDS_OP_MIN ? v < acc : v > acc) acc = v;
    }
};
// Every rank's partial result of reduction op combined into out (elem_size bytes), written only
// on success; collective.
status reduce_ranks(runtime *rt, const char *who, pgdds_dtype_t t, int op, const void *partial, void *out);

// A norm's running value over one rank's elements, as doubles: the sums of |x| by row (INF) or
// column (ONE), the largest |x| (MAX), or the Frobenius norm's sum of squares scaled by the
// largest |x| seen so far (LAPACK's ?lassq). A NaN makes the norm NaN.
class norm_partial {
  public:
    norm_partial(int kind, uint64_t rows, uint64_t cols)
        : kind_(kind), sums_(kind == PGDDS_NORM_INF ? rows : kind == PGDDS_NORM_ONE ? cols : 0, 0.0)
    {
    }
    void add(uint64_t i, uint64_t j, double x)
    {
        const double a = std::fabs(x);
        if (a != a) nan_ = true;
        switch (kind_) {
        case PGDDS_NORM_INF: sums_[i] += a; break;
        case PGDDS_NORM_ONE: sums_[j] += a; break;
        case PGDDS_NORM_MAX: if (a > scale_) scale_ = a; break;
        default:
            if (a == 0 || a != a) break;
            if (a > scale_) {
                const double r = scale_ / a;
                ssq_ = 1 + ssq_ * r * r;
                scale_ = a;
            } else {
                const double r = a / scale_;
                ssq_ += r * r;
            }
        }
    }
    // The norm over every rank's elements, on every rank; collective.
    status finish(runtime *rt, const char *who, double &out);

  private:
    int kind_;
    std::vector<double> sums_;
    double scale_ = 0, ssq_ = 1;
    bool nan_ = false;
};

// The frame of a reduction over one rank's elements, dense or sparse: op and out checked on every
// rank, visit(red) feeding each of this rank's elements to red.add (a reduction<T> of the
// matrix's type), then every rank's partial combined into out.
template <class Visit> status reduce_frame(runtime *rt, const char *who, pgdds_dtype_t t, int op, void *out, Visit visit)
{
    status st = containers::agree(rt, who, check_reduce(who, t, op, out));
    if (st != PGDDS_OK) return st;
    return typed(t, [&](auto x) {
        reduction<decltype(x)> red(op);
        status s = containers::agree(rt, who, visit(red));
        return s == PGDDS_OK ? reduce_ranks(rt, who, t, op, &red.acc, out) : s;
    });
}

// The frame of a norm of a rows x cols matrix, likewise: visit(part, T()) feeds each of this
// rank's elements, of type T, with its coordinates to part.add.
template <class Visit>
status norm_frame(runtime *rt, const char *who, pgdds_dtype_t t, uint64_t rows, uint64_t cols, int kind, double *out,
                  Visit visit)
{
    status st = containers::agree(rt, who, check_norm(who, kind, out));
    if (st != PGDDS_OK) return st;
    norm_partial part(kind, rows, cols);
    st = containers::agree(rt, who, typed(t, [&](auto x) { return visit(part, x); }));
    return st == PGDDS_OK ? part.finish(rt, who, *out) : st;
}

// The dense operations of include/pgdds/matrix.h (elementwise.cc) on regions (region.h: whole
// matrices or views), after the entry points' handle checks; collective, their argument checks
// agreed between ranks (a NULL out or fn on one rank fails them all rather than leave the others
// waiting).
status fill(const char *who, const region &r, pgdds_dmatrix_generator_t gen, void *arg);
status scale(const char *who, double alpha, const region &r);
status add(const char *who, double alpha, const region &a, double beta, const region &b);
status transpose(const char *who, const region &a, const region &b);
status apply(const char *who, const region &r, pgdds_dmatrix_apply_t fn, void *arg);
status reduce(const char *who, const region &r, int op, void *out);
status norm(const char *who, const region &r, int kind, double *out);

}  // namespace pgdds::matrix
