// Distributed matrix multiplication (gemm.cc).
#pragma once

#include "dmatrix.h"

namespace pgdds::matrix {

// Checks that C = alpha A B + beta C is well-formed (pgdds_dmatrix_gemm's rules); the same
// answer on every rank, since every rank holds the same layouts.
status check_gemm(const char *who, double alpha, const dmatrix &a, const dmatrix &b, double beta, const dmatrix &c,
                  int algorithm);
// Collective; after check_gemm.
status gemm(const char *who, double alpha, const dmatrix &a, const dmatrix &b, double beta, const dmatrix &c,
            int algorithm);

}  // namespace pgdds::matrix
