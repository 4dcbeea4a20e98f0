// The storage behind DArray (block-distributed over every rank) and Array (every element on one
// host): element i lives in part i / block, on rank first_rank + part. Ranges are copied with the
// one-sided calls, one transfer per part they touch, all in flight together.
#pragma once

#include "common.h"

namespace pgdds::containers {

class block_array : public container {
  public:
    // Collective. hosted: every element on rank `host`; else distributed over every rank.
    static status create(runtime *rt, const char *who, size_t elem_size, uint64_t count, bool hosted, int host,
                         block_array *&out);
    status destroy(const char *who);

    uint64_t size() const { return count_; }
    int host() const { return first_rank_; }
    status gptr_of(const char *who, uint64_t index, pgdds_gptr_t &out) const;
    // This rank's elements: their first index and count (elems NULL when it holds none).
    void local(void *&elems, uint64_t &first, uint64_t &count) const;
    status get(const char *who, uint64_t first, uint64_t count, void *dst) const;
    status put(const char *who, uint64_t first, uint64_t count, const void *src) const;

  private:
    explicit block_array(runtime *rt) : container(rt) {}
    status check_range(const char *who, uint64_t first, uint64_t count, const void *buffer) const;
    // Calls f(part's global pointer for element i, elements from i in this part) over [first, first+count).
    template <class F> status for_pieces(uint64_t first, uint64_t count, F f) const;

    size_t elem_size_ = 0;
    uint64_t count_ = 0, block_ = 1;
    int first_rank_ = 0, parts_ = 1;
    parts where_;
};

}  // namespace pgdds::containers
