// Distributed matrix multiplication (gemm.cc).
#pragma once

#include "dmatrix.h"

namespace pgdds::matrix {

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
