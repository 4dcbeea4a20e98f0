// Packing of global pointers: rank (22 bits) | segment (2 bits) | offset (40 bits).
#pragma once

#include "../base/common.h"

namespace pgdds::gptr {

constexpr unsigned offset_bits = PGDDS_GPTR_OFFSET_BITS;
constexpr unsigned segment_bits = PGDDS_GPTR_SEGMENT_BITS;
constexpr unsigned rank_bits = PGDDS_GPTR_RANK_BITS;
static_assert(offset_bits + segment_bits + rank_bits == 64, "a global pointer is one word");
constexpr uint64_t offset_mask = (uint64_t(1) << offset_bits) - 1;
constexpr uint64_t segment_mask = (uint64_t(1) << segment_bits) - 1;
constexpr int max_ranks = 1 << rank_bits;

constexpr pgdds_gptr_t make(int rank, unsigned segment, uint64_t offset)
{
    return (uint64_t(rank) << (offset_bits + segment_bits)) | (uint64_t(segment) << offset_bits) |
           (offset & offset_mask);
}
constexpr int rank(pgdds_gptr_t p) { return int(p >> (offset_bits + segment_bits)); }
constexpr unsigned segment(pgdds_gptr_t p) { return unsigned((p >> offset_bits) & segment_mask); }
constexpr uint64_t offset(pgdds_gptr_t p) { return p & offset_mask; }
constexpr pgdds_gptr_t add(pgdds_gptr_t p, int64_t bytes)
{
    return (p & ~offset_mask) | ((p + uint64_t(bytes)) & offset_mask);
}

}  // namespace pgdds::gptr
