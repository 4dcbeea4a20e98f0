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

status queue::fast_push(const char *who, bool local, const uint8_t *src, size_t count)
{
    return with_memory(who, local, [&](auto &m) -> status {
        using Mem = std::decay_t<decltype(m)>;
        spinner spin(rt);
        uint64_t t;
        for (;;) {
            t = m.fetch_add64(at<Mem>(queue_layout::tail), count);
            if (m.failed()) return m.result();
            if (t + count <= head_seen_.load(std::memory_order_relaxed) + capacity_) break;
            uint64_t h = m.load64(at<Mem>(queue_layout::head));
            if (m.failed()) return m.result();
            head_seen_.store(h, std::memory_order_relaxed);
            if (t + count <= h + capacity_) break;
            if (t <= h + capacity_) {  // the first overrunning reservation: withdraw it and all after it
                m.swap64(at<Mem>(queue_layout::tail), t);
                return m.failed() ? m.result() : full(who, count, h, t);
            }
            // An earlier reservation overran and is withdrawing this one with it; there may
            // still be room for this push once it has.
            if (!spin.again(m, who)) return PGDDS_ERR_TIMEOUT;
        }
        if constexpr (Mem::load_store) {
            deferring_memory later(rt);  // visible after a flush, as a put would be
            put_elements(later, t, src, count);
        } else put_elements(m, t, src, count);
        return m.result();
    });
}

status queue::fast_pop(const char *who, bool local, uint8_t *dst, size_t max, size_t &popped)
{
    return with_memory(who, local, [&](auto &m) -> status {
        using Mem = std::decay_t<decltype(m)>;
        uint64_t h = m.fetch_add64(at<Mem>(queue_layout::head), max);
        if (m.failed()) return m.result();
        uint64_t got = max;
        if (h + max > tail_seen_.load(std::memory_order_relaxed)) {
            uint64_t t = m.load64(at<Mem>(queue_layout::tail));
            if (m.failed()) return m.result();
            tail_seen_.store(t, std::memory_order_relaxed);
            if (h + max > t) {
                got = h < t ? t - h : 0;
                if (h <= t) m.swap64(at<Mem>(queue_layout::head), t);
            }
        }
        if (got == 0) return m.failed() ? m.result() : empty(who);
        get_elements(m, h, dst, size_t(got));
        if (m.failed()) return m.result();
        popped = size_t(got);
        return PGDDS_OK;
    });
}

}  // namespace pgdds::containers
