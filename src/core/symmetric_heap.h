// The symmetric heap: blocks that every rank allocates together (pgdds_alloc_all) at the same
// offset of its segment. It occupies [low, top) of the segment, top being the smallest segment
// size of the job, and grows down into the rank's own allocator's free space. Its placement is a
// pure function of the live blocks (first fit from the low end; low is the lowest live block),
// so every rank that makes the same calls in the same order gets the same offsets, and undoing a
// call (a mismatch found by the collective check) restores the same state everywhere.
// Thread-safe; collective calls are made by one thread per rank at a time.
#pragma once

#include "segment_allocator.h"

#include <map>
#include <mutex>

namespace pgdds {

class symmetric_heap {
  public:
    symmetric_heap(segment_allocator &below, uint64_t top) : below_(below), top_(top) {}

    // alignment: 0 (meaning 16) or a power of two <= segment_allocator::chunk_size.
    status alloc(size_t size, size_t alignment, uint64_t &offset);
    // offset must start a live block (INVALID_ARG otherwise).
    status free(uint64_t offset);
    // Whether offset starts a live block, or lies inside one.
    bool is_block(uint64_t offset) const;
    bool contains(uint64_t offset) const;

  private:
    uint64_t low() const { return live_.empty() ? top_ : live_.begin()->first; }

    segment_allocator &below_;
    const uint64_t top_;
    mutable std::mutex lock_;
    std::map<uint64_t, uint64_t> live_;  // offset -> length
};

}  // namespace pgdds
