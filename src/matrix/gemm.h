// Distributed matrix multiplication (gemm.cc).
#pragma once

#include "dmatrix.h"

namespace pgdds::matrix {

// Shapes, types and tilings of C = A B conform (A's tile rows are C's, A's tile columns B's
// tile rows, B's tile columns C's).
status check_conform(const char *who, const layout &la, const layout &lb, const layout &lc);
// alpha and beta are finite, and whole numbers for an integer type.
status check_scalars(const char *who, pgdds_dtype_t t, double alpha, double beta);
// Checks that C = alpha A B + beta C is well-formed (pgdds_dmatrix_gemm's rules); the same
// answer on every rank, since every rank holds the same layouts.
status check_gemm(const char *who, double alpha, const dmatrix &a, const dmatrix &b, double beta, const dmatrix &c,
                  int algorithm);
// Stationary C with work stealing (steal.cc): random victims, or locality-aware ones first.
status gemm_steal(const char *who, double alpha, const dmatrix &a, const dmatrix &b, const dmatrix &c, bool locality);
// Collective; after check_gemm.
status gemm(const char *who, double alpha, const dmatrix &a, const dmatrix &b, double beta, const dmatrix &c,
            int algorithm);

}  // namespace pgdds::matrix
