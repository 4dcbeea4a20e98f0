// A dense operand that a product cannot use where it lies, copied into a matrix of its own for
// the call (gemm_entry, spmm_entry): a view that cuts tiles, a view as the output, or a transpose,
// order or part of a matrix that the algorithm does not read in place (SUMMA, SpMM, GPU memory).
// One copy in, and for an output one copy back; views on tile edges are read where they lie.
#pragma once

#include "dmatrix.h"
#include "region.h"

#include <initializer_list>

namespace pgdds::matrix {

class scratch {
  public:
    scratch() = default;
    scratch(const scratch &) = delete;
    scratch &operator=(const scratch &) = delete;
    ~scratch() { release("pgdds_dmatrix (scratch copy)"); }

    // Collective: a row-major matrix of r's shape, type and memory, with r's matrix's tile sizes
    // (turned with r), on a grid_rows x grid_cols grid of ranks, holding r's elements where
    // `copy` (else zero).
    status make(const char *who, const region &r, int grid_rows, int grid_cols, bool copy);
    // make on the grid of r's matrix, turned with r.
    status make(const char *who, const region &r, bool copy);
    // Collective: r = the copy, after a product wrote it.
    status write_back(const char *who) const;
    // Collective: frees the copy (the destructor does it where nobody did).
    status release(const char *who);
    // Releases every one of `all`; st, or the first failure among them where st is PGDDS_OK.
    static status release(const char *who, status st, std::initializer_list<scratch *> all);

    bool made() const { return m_ != nullptr; }
    region whole() const { return region::whole(*m_); }

  private:
    dmatrix *m_ = nullptr;
    region from_;
};

}  // namespace pgdds::matrix
