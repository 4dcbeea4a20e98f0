// CircularQueue (BCL paper §5.1, thesis ch. 5, Tables 5.2 and 8.3): concurrent pushes and pops.
// Besides the head and tail that reserve slots, tail_ready marks the elements written and
// head_ready the slots read, so neither side overtakes the other.
//  push: reserve by compare-and-swap on the tail (only if it fits before head_ready + capacity,
//        so a full queue never leaves a reservation to undo), put, fence, then advance
//        tail_ready in order by compare-and-swap (Table 5.2a): 2A+W. With no concurrent pop
//        (PGDDS_CP_PUSH alone) head_ready cannot move, so the tail is reserved by fetch-add as
//        a FastQueue's is, and tail_ready advanced by fetch-add (5.2b): 2A+W with no retries
//        when pushers contend.
//  pop:  reserve by compare-and-swap on the head, up to tail_ready; get; advance head_ready in
//        order (5.2d). With no concurrent push (PGDDS_CP_POP alone) both by fetch-add (5.2e).
#include "queue.h"

namespace pgdds::containers {

status queue::circular_push(const char *who, bool local, const uint8_t *src, size_t count, bool in_order)
{
    return with_memory(who, local, [&](auto &m) -> status {
        uint64_t first = 0;
        status st = in_order ? reserve_push(m, who, count, first)
                             : reserve_push_phased(m, who, count, queue_layout::head_ready, head_ready_seen_, first);
        if (st != PGDDS_OK) return st;
        put_elements(m, first, src, count);
        rt->fault_here(fault_point::queue_reservation);
        m.fence();  // a popper that sees the ready counter sees the elements
        return advance_ready(m, who, queue_layout::tail_ready, first, count, in_order);
    });
}

status queue::circular_pop(const char *who, bool local, uint8_t *dst, size_t max, size_t &popped, bool in_order)
{
    return with_memory(who, local, [&](auto &m) -> status {
        uint64_t first = 0;
        size_t count = 0;
        status st = in_order ? reserve_pop(m, who, max, queue_layout::tail_ready, tail_ready_seen_, first, count)
                             : reserve_pop_phased(m, who, max, queue_layout::tail_ready, tail_ready_seen_, first, count);
        if (st != PGDDS_OK) return st;
        get_elements(m, first, dst, count);
        st = advance_ready(m, who, queue_layout::head_ready, first, count, in_order);
        if (st == PGDDS_OK) popped = count;
        return st;
    });
}

}  // namespace pgdds::containers
