#include "symmetric_heap.h"

namespace pgdds {

namespace {
uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
}  // namespace

status symmetric_heap::alloc(size_t size, size_t alignment, uint64_t &offset)
{
    if (alignment == 0) alignment = segment_allocator::min_block;
    if (alignment & (alignment - 1) || alignment > segment_allocator::chunk_size)
        return fail(PGDDS_ERR_INVALID_ARG, "alignment %zu is not a power of two up to %zu", alignment,
                    segment_allocator::chunk_size);
    if (size > top_)
        return fail(PGDDS_ERR_NO_MEMORY, "%zu bytes exceed the smallest segment of the job (%llu bytes)", size,
                    (unsigned long long)top_);
    uint64_t len = round_up(size ? size : 1, segment_allocator::min_block);
    std::lock_guard<std::mutex> guard(lock_);
    // First fit in the gaps between live blocks, from the low end.
    for (auto it = live_.begin(); it != live_.end(); ++it) {
        uint64_t gap = it->first + it->second;
        auto next = std::next(it);
        uint64_t gap_end = next == live_.end() ? top_ : next->first;
        uint64_t at = round_up(gap, alignment);
        if (at + len <= gap_end) {
            live_[at] = len;
            offset = at;
            return PGDDS_OK;
        }
    }
    // Grow downwards: the new block becomes the lowest, and the range up to the old low end
    // is taken from the rank's own allocator.
    uint64_t old_low = low();
    if (old_low < len) return fail(PGDDS_ERR_NO_MEMORY, "no room for %zu more symmetric bytes", size);
    uint64_t at = (old_low - len) & ~uint64_t(alignment - 1);
    status st = below_.reserve(at, old_low - at);
    if (st != PGDDS_OK)
        return fail(PGDDS_ERR_NO_MEMORY, "no room for %zu symmetric bytes at offset 0x%llx: the segment below "
                    "the symmetric heap is in use (pgdds_alloc)", size, (unsigned long long)at);
    live_[at] = len;
    offset = at;
    return PGDDS_OK;
}

status symmetric_heap::free(uint64_t offset)
{
    std::lock_guard<std::mutex> guard(lock_);
    auto it = live_.find(offset);
    if (it == live_.end())
        return fail(PGDDS_ERR_INVALID_ARG, "offset 0x%llx does not start a symmetric block (never allocated with "
                    "pgdds_alloc_all, or already freed)", (unsigned long long)offset);
    uint64_t old_low = low();
    live_.erase(it);
    // The lowest block went: the heap's low end rises and gives the range back.
    if (low() != old_low) below_.release(old_low, low() - old_low);
    return PGDDS_OK;
}

bool symmetric_heap::is_block(uint64_t offset) const
{
    std::lock_guard<std::mutex> guard(lock_);
    return live_.count(offset) != 0;
}

bool symmetric_heap::contains(uint64_t offset) const
{
    std::lock_guard<std::mutex> guard(lock_);
    auto it = live_.upper_bound(offset);
    if (it == live_.begin()) return false;
    --it;
    return offset < it->first + it->second;
}

}  // namespace pgdds
