// ChecksumQueue (thesis ch. 5, Table 5.1): concurrent pushes and pops without a tail-ready
// counter, so a push is never held up behind a slower one. Each element is written with a 64-bit
// checksum of its bytes seeded by its lap around the ring (layout.h: element_checksum); a popper
// re-reads the elements it reserved until every checksum is right for its lap, so it never takes
// a half-written element nor one left from an earlier lap.
//  push: reserve by compare-and-swap on the tail (only if it fits before head_ready + capacity),
//        put elements and checksums, flush: A + W(1+c).
//  pop:  reserve by compare-and-swap on the head, up to the tail; get and verify (A + R(1+c));
//        then free the slots on head_ready like the circular queue (in order by compare-and-swap,
//        or by fetch-add under PGDDS_CP_POP alone). BCL's ChecksumQueue skips this step and lets
//        pushers overwrite elements a slow popper has not read yet.
#include "queue.h"

namespace pgdds::containers {

status queue::checksum_push(const char *who, bool local, const uint8_t *src, size_t count)
{
    scratch_buffer sums_buffer(count * sizeof(uint64_t));
    auto *sums = reinterpret_cast<uint64_t *>(sums_buffer.data());
    return with_memory(who, local, [&](auto &m) -> status {
        uint64_t first = 0;
        status st = reserve_push(m, who, count, first);
        if (st != PGDDS_OK) return st;
        for (size_t i = 0; i < count; ++i)
            sums[i] = element_checksum(src + i * elem_size_, elem_size_, first + i, capacity_);
        put_elements(m, first, src, count);
        put_checksums(m, first, sums, count);
        m.flush();
        return m.result();
    });
}

status queue::checksum_pop(const char *who, bool local, uint8_t *dst, size_t max, size_t &popped, bool in_order)
{
    return with_memory(who, local, [&](auto &m) -> status {
        uint64_t first = 0;
        size_t count = 0;
        status st = reserve_pop(m, who, max, queue_layout::tail, tail_seen_, first, count);
        if (st != PGDDS_OK) return st;
        scratch_buffer sums_buffer(count * sizeof(uint64_t));
        auto *sums = reinterpret_cast<uint64_t *>(sums_buffer.data());
        spinner spin(rt);
        // Elements before `valid` are verified; re-read the rest until they are.
        for (size_t valid = 0; valid < count;) {
            get_elements(m, first + valid, dst + valid * elem_size_, count - valid);
            get_checksums(m, first + valid, sums + valid, count - valid);
            if (m.failed()) return m.result();
            while (valid < count &&
                   sums[valid] == element_checksum(dst + valid * elem_size_, elem_size_, first + valid, capacity_))
                ++valid;
            if (valid < count && !spin.again(m, who)) return spin.result();
        }
        st = advance_ready(m, who, queue_layout::head_ready, first, count, in_order);
        if (st == PGDDS_OK) popped = count;
        return st;
    });
}

}  // namespace pgdds::containers
