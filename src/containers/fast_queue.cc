// FastQueue (BCL paper §5.1, thesis ch. 5 and Table 5.1): pushes and pops in separate phases,
// so no ready counters are needed. push = fetch-add on the tail + put (A+W); pop = fetch-add on
// the head + get (A+R). The head seen by pushers and the tail seen by poppers are remembered,
// which saves the overrun check its remote read almost always. On one node the push's put is a
// store kept back until the pusher's next flush or barrier (deferring_memory), as the memory
// model lets a put be.
//
// A fetch-add cannot be undone by subtracting again once another reservation followed it (the
// hole would be filled out of order), so an overrunning reservation is withdrawn differently:
// within a phase the reservations are contiguous and the counter they must not pass is fixed,
// so exactly one overrunning reservation starts at or before the limit, and every one after it
// overruns too. That one sets the counter back to its own start (or, for a pop, to the tail,
// after taking the elements before it), which discards its own reservation and every later one.
// A later pusher that overran only because of it tries again (the queue may have room for a
// smaller push); a later popper finds the queue empty, which it is.
#include "queue.h"

namespace pgdds::containers {

status queue::fast_push(const char *who, bool local, const uint8_t *src, size_t count, bool defer)
{
    return with_memory(who, local, [&](auto &m) -> status {
        uint64_t first = 0;
        status st = reserve_push_phased(m, who, count, queue_layout::head, head_seen_, first);
        if (st != PGDDS_OK) return st;
        if constexpr (std::decay_t<decltype(m)>::load_store) {
            if (defer) {
                deferring_memory later(rt);  // visible after a flush, as a put would be
                put_elements(later, first, src, count);
                return m.result();
            }
        }
        put_elements(m, first, src, count);
        return m.result();
    });
}

status queue::fast_pop(const char *who, bool local, uint8_t *dst, size_t max, size_t &popped)
{
    return with_memory(who, local, [&](auto &m) -> status {
        uint64_t first = 0;
        size_t count = 0;
        status st = reserve_pop_phased(m, who, max, queue_layout::tail, tail_seen_, first, count);
        if (st != PGDDS_OK) return st;
        get_elements(m, first, dst, count);
        if (m.failed()) return m.result();
        popped = count;
        return PGDDS_OK;
    });
}

}  // namespace pgdds::containers
