#include "segment_allocator.h"

namespace pgdds {

namespace {
uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }
int class_of(uint64_t block) { return __builtin_ctzll(block) - 4; }  // 16 -> 0
constexpr uint64_t large_tag = 0xff;
}  // namespace

segment_allocator::segment_allocator(uint64_t first, uint64_t size) : first_(first), size_(size)
{
    if (first_ < size_) free_ranges_[first_] = size_ - first_;
}

status segment_allocator::alloc(size_t size, size_t alignment, uint64_t &offset)
{
    if (alignment == 0) alignment = min_block;
    if (!is_pow2(alignment) || alignment > chunk_size)
        return fail(PGDDS_ERR_INVALID_ARG, "alignment %zu is not a power of two up to %zu", alignment,
                    chunk_size);
    if (size == 0) size = 1;
    if (size > size_)
        return fail(PGDDS_ERR_NO_MEMORY, "%zu bytes exceed the whole segment (%llu bytes)", size,
                    (unsigned long long)size_);

    std::lock_guard<std::mutex> guard(lock_);
    uint64_t block = size < min_block ? min_block : uint64_t(1) << (64 - __builtin_clzll(size - 1));
    if (block < alignment) block = alignment;
    if (block <= max_small) {
        int c = class_of(block);
        auto &list = class_free_[c];
        if (list.empty()) {
            uint64_t chunk;
            status st = alloc_large(class_chunk, class_chunk, chunk);
            if (st == PGDDS_OK) st = backed(chunk, class_chunk);
            if (st != PGDDS_OK) return st;
            // Hand out from the low end first: push in reverse.
            for (uint64_t o = chunk + class_chunk; o > chunk; o -= block) list.push_back(o - block);
        }
        offset = list.back();
        list.pop_back();
        live_[offset] = uint64_t(c);
        return PGDDS_OK;
    }
    uint64_t len = round_up(size, min_block);
    status st = alloc_large(len, alignment, offset);
    if (st == PGDDS_OK) st = backed(offset, len);
    if (st != PGDDS_OK) return st;
    live_[offset] = large_tag | (len << 8);
    return PGDDS_OK;
}

status segment_allocator::alloc_large(uint64_t size, uint64_t alignment, uint64_t &offset)
{
    for (auto it = free_ranges_.begin(); it != free_ranges_.end(); ++it) {
        uint64_t start = it->first, len = it->second;
        uint64_t aligned = round_up(start, alignment);
        if (aligned + size > start + len) continue;
        free_ranges_.erase(it);
        if (aligned > start) free_ranges_[start] = aligned - start;
        if (aligned + size < start + len) free_ranges_[aligned + size] = start + len - aligned - size;
        offset = aligned;
        return PGDDS_OK;
    }
    return fail(PGDDS_ERR_NO_MEMORY, "no free range of %llu bytes (alignment %llu) is left in the "
                "segment", (unsigned long long)size, (unsigned long long)alignment);
}

void segment_allocator::free_large(uint64_t offset, uint64_t size)
{
    auto next = free_ranges_.lower_bound(offset);
    if (next != free_ranges_.end() && next->first == offset + size) {
        size += next->second;
        next = free_ranges_.erase(next);
    }
    if (next != free_ranges_.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == offset) {
            prev->second += size;
            return;
        }
    }
    free_ranges_[offset] = size;
}

status segment_allocator::free(uint64_t offset)
{
    std::lock_guard<std::mutex> guard(lock_);
    auto it = live_.find(offset);
    if (it == live_.end())
        return fail(PGDDS_ERR_INVALID_ARG, "offset 0x%llx is not an allocated block (never "
                    "allocated, or already freed)", (unsigned long long)offset);
    uint64_t tag = it->second;
    live_.erase(it);
    if ((tag & 0xff) == large_tag)
        free_large(offset, tag >> 8);
    else
        class_free_[tag].push_back(offset);
    return PGDDS_OK;
}

status segment_allocator::reserve(uint64_t offset, uint64_t len)
{
    std::lock_guard<std::mutex> guard(lock_);
    auto it = free_ranges_.upper_bound(offset);
    if (it == free_ranges_.begin() || len == 0)
        return fail(PGDDS_ERR_NO_MEMORY, "offsets 0x%llx..0x%llx are in use", (unsigned long long)offset,
                    (unsigned long long)(offset + len));
    --it;
    uint64_t start = it->first, end = it->first + it->second;
    if (offset + len > end)
        return fail(PGDDS_ERR_NO_MEMORY, "offsets 0x%llx..0x%llx are in use", (unsigned long long)offset,
                    (unsigned long long)(offset + len));
    free_ranges_.erase(it);
    if (offset > start) free_ranges_[start] = offset - start;
    if (offset + len < end) free_ranges_[offset + len] = end - offset - len;
    return backed(offset, len);
}

status segment_allocator::backed(uint64_t offset, uint64_t len)
{
    status st = back_ ? back_(offset, len) : PGDDS_OK;
    if (st != PGDDS_OK) free_large(offset, len);
    return st;
}

void segment_allocator::release(uint64_t offset, uint64_t len)
{
    std::lock_guard<std::mutex> guard(lock_);
    free_large(offset, len);
}

uint64_t segment_allocator::large_free_bytes() const
{
    std::lock_guard<std::mutex> guard(lock_);
    uint64_t total = 0;
    for (auto &r : free_ranges_) total += r.second;
    return total;
}

size_t segment_allocator::live_blocks() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return live_.size();
}

}  // namespace pgdds
