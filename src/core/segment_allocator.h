// The allocator of a rank's own segment: byte offsets in [first, size). Small requests come
// from power-of-two size classes carved out of 4 KiB chunks (one page: a small segment is not
// eaten by the first block of each class); larger ones are placed first-fit
// in a free list with coalescing. Offsets below `first` (at least offset 0) are never handed out.
// Every live block is recorded, so freeing an unknown or already freed offset is reported.
// Thread-safe.
#pragma once

#include "../base/common.h"

#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace pgdds {

class segment_allocator {
  public:
    static constexpr size_t min_block = 16;
    static constexpr size_t max_small = 4096;
    static constexpr size_t chunk_size = 64 * 1024;  // the largest alignment
    static constexpr size_t class_chunk = max_small;   // what a size class takes at a time

    // Manages [first, size); first must be > 0.
    segment_allocator(uint64_t first, uint64_t size);
    // Called with every range taken from the free space (a size class's chunk, a large block, a
    // reservation) before it is handed out; a failure fails the request and frees the range.
    // The shm transport backs the pages there (transport::back_segment).
    using backing = std::function<status(uint64_t offset, uint64_t len)>;
    void set_backing(backing b) { back_ = std::move(b); }

    // alignment: 0 (meaning 16) or a power of two <= chunk_size.
    status alloc(size_t size, size_t alignment, uint64_t &offset);
    status free(uint64_t offset);
    // Takes the exact range [offset, offset+len) out of the free space (NO_MEMORY if any of it is
    // handed out), and gives such a range back. For the symmetric heap, which grows down from
    // the top of the segment; the range is not a block, so free() refuses it.
    status reserve(uint64_t offset, uint64_t len);
    void release(uint64_t offset, uint64_t len);
    // Bytes of the segment not handed out and not held by a size class's chunks.
    uint64_t large_free_bytes() const;
    size_t live_blocks() const;

  private:
    static constexpr int num_classes = 9;  // 16 .. 4096
    status alloc_large(uint64_t size, uint64_t alignment, uint64_t &offset);
    void free_large(uint64_t offset, uint64_t size);
    status backed(uint64_t offset, uint64_t len);  // back_ on a fresh range; freed again on failure

    mutable std::mutex lock_;
    backing back_;
    uint64_t first_, size_;
    std::map<uint64_t, uint64_t> free_ranges_;           // offset -> length, coalesced
    std::vector<uint64_t> class_free_[num_classes];      // free small blocks per class
    std::unordered_map<uint64_t, uint64_t> live_;        // offset -> (class index | size<<8)
};

}  // namespace pgdds
