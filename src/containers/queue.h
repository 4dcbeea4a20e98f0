// The hosted queues (BCL paper §5.1, thesis ch. 5): ring buffers in one host rank's segment,
// reached one-sidedly by every rank. The storage and the steps shared by the three kinds live
// here and in queue.cc; each kind's push and pop protocol is in its own file (fast_queue.cc,
// circular_queue.cc, checksum_queue.cc).
#pragma once

#include "common.h"

#include <algorithm>

namespace pgdds::containers {
class queue;
}

struct pgdds_queue {
    uint64_t magic;
    pgdds::containers::queue *impl;
};

namespace pgdds::containers {

constexpr uint64_t queue_magic = 0x706751756575ull;  // "pgQueu"

// The storage of a queue in its host's segment. The counters are 64-bit element indexes that
// only grow (a FastQueue's withdrawn reservations aside, see fast_queue.cc); element i lives in
// slot i % capacity. Each counter has its own cache line, as pushers and poppers hammer them.
namespace queue_layout {
constexpr uint64_t head = 0;          // pops reserved up to here
constexpr uint64_t tail = 64;         // pushes reserved up to here
constexpr uint64_t head_ready = 128;  // pops finished up to here: slots before it are free again
constexpr uint64_t tail_ready = 192;  // pushes written up to here: elements before it are readable
constexpr uint64_t checksums = 256;   // checksum queue: one 64-bit checksum per slot
inline uint64_t elements(int kind, uint64_t capacity)
{
    return round_up(checksums + (kind == PGDDS_QUEUE_CHECKSUM ? capacity * 8 : 0), cache_line);
}
inline uint64_t bytes(int kind, size_t elem_size, uint64_t capacity) { return elements(kind, capacity) + capacity * elem_size; }
}  // namespace queue_layout

class queue : public container {
  public:
    // Collective; the host allocates.
    static status create(runtime *rt, const pgdds_queue_params_t &params, queue *&out);
    // Collective: one queue hosted by every rank (the hash map buffer's). out[r] is rank r's.
    static status create_per_rank(runtime *rt, const char *who, int kind, size_t elem_size, uint64_t capacity,
                                  std::vector<std::unique_ptr<queue>> &out);
    // Collective: waits for every rank, then the host frees the storage.
    status destroy(const char *who);
    // The host frees the storage (the caller made sure no rank still uses it).
    void release_storage();

    // Under PGDDS_PROTOCOL_RPC a rank that does not reach the host by load/store sends each
    // push, pop and size as one call to the host (rpc.h), which runs the same protocol on its
    // own memory with the caller's promise.
    // With req (the _nb forms), a call that takes the operation returns a request that gives
    // its outcome and writes its outputs (container::outcome); misuse fails the call itself.
    status push(const char *who, const void *elems, size_t count, unsigned concurrent, pgdds_request_t *req = nullptr);
    status pop(const char *who, void *elems, size_t max, size_t &popped, unsigned concurrent,
               pgdds_request_t *req = nullptr);
    // A call of another rank, on the host (rpc.h).
    status serve(int src, uint32_t op, unsigned concurrent, const uint8_t *args, size_t len,
                 std::vector<uint8_t> &out) override;
    status local_view(const char *who, void *&elems, size_t &count);
    status size(const char *who, uint64_t &count);
    status resize(const char *who, uint64_t new_capacity);  // collective
    status migrate(const char *who, int new_host);          // collective

    // On the host, with nothing else using the queue: hands the queued elements to
    // f(elements, count) in at most two contiguous runs, then empties the queue.
    template <class F> status drain_local(F f);

    int kind() const { return kind_; }
    int host() const { return host_; }
    uint64_t capacity() const { return capacity_; }
    size_t elem_size() const { return elem_size_; }

  private:
    queue(runtime *rt, int kind, size_t elem_size, uint64_t capacity, int host, pgdds_gptr_t base);
    void set_storage(int host, pgdds_gptr_t base, uint64_t capacity);
    status settled(const char *who);

    template <class Mem> typename Mem::address at(uint64_t offset) const
    {
        if constexpr (Mem::load_store) return local_ + offset;
        else return gptr::add(base_, int64_t(offset));
    }
    // Copies `count` elements from/to element index `first` on, wrapping around the ring (at
    // most two transfers).
    template <class Mem> void put_elements(Mem &m, uint64_t first, const uint8_t *src, size_t count) const;
    template <class Mem> void get_elements(Mem &m, uint64_t first, uint8_t *dst, size_t count) const;
    template <class Mem> void put_checksums(Mem &m, uint64_t first, const uint64_t *src, size_t count) const;
    template <class Mem> void get_checksums(Mem &m, uint64_t first, uint64_t *dst, size_t count) const;
    template <class Mem> void copy_ring(Mem &m, uint64_t offset, size_t unit, uint64_t first, uint8_t *buf, size_t count,
                                       bool to_queue) const;

    // Reservations by fetch-add, for a phase in which the limit cannot move: a FastQueue's (the
    // limit of pushes is the head, of pops the tail) and a circular queue's pushes under CP_PUSH
    // alone (head_ready) or pops under CP_POP alone (tail_ready). An overrunning reservation is
    // withdrawn as fast_queue.cc explains. One A, where compare-and-swap retries under contention.
    template <class Mem>
    status reserve_push_phased(Mem &m, const char *who, size_t count, uint64_t limit,
                               std::atomic<uint64_t> &limit_seen, uint64_t &first);
    template <class Mem>
    status reserve_pop_phased(Mem &m, const char *who, size_t max, uint64_t limit, std::atomic<uint64_t> &limit_seen,
                              uint64_t &first, size_t &count);
    // Steps of the circular and checksum queues: reserve space by compare-and-swap on the tail
    // (never past head_ready + capacity), reserve elements by compare-and-swap on the head (never
    // past `limit`), and mark a range finished on a ready counter.
    template <class Mem> status reserve_push(Mem &m, const char *who, size_t count, uint64_t &first);
    template <class Mem>
    status reserve_pop(Mem &m, const char *who, size_t max, uint64_t limit, std::atomic<uint64_t> &limit_seen,
                       uint64_t &first, size_t &count);
    template <class Mem>
    status advance_ready(Mem &m, const char *who, uint64_t counter, uint64_t first, uint64_t count, bool in_order) const;

    // Push and pop on memory this rank reaches (the arguments checked): the kind's protocol.
    // `defer`: a FastQueue push on one node may keep its stores back until the calling thread's
    // next flush (not for a call served for another rank, whose push is complete at the reply).
    status push_here(const char *who, bool local, const uint8_t *src, size_t count, unsigned others, bool defer);
    status pop_here(const char *who, bool local, uint8_t *dst, size_t max, size_t &popped, unsigned others);
    status size_here(const char *who, uint64_t &count);
    // One call to the host, whose reply settle(reply) takes (rpc_run: at once, or with req when
    // the request completes).
    template <class Settle>
    status call_host(const char *who, uint32_t op, unsigned concurrent, const void *args, size_t len,
                     pgdds_request_t *req, Settle settle);

    // The protocols, one file per kind.
    status fast_push(const char *who, bool local, const uint8_t *src, size_t count, bool defer);
    status fast_pop(const char *who, bool local, uint8_t *dst, size_t max, size_t &popped);
    status circular_push(const char *who, bool local, const uint8_t *src, size_t count, bool in_order);
    status circular_pop(const char *who, bool local, uint8_t *dst, size_t max, size_t &popped, bool in_order);
    status checksum_push(const char *who, bool local, const uint8_t *src, size_t count);
    status checksum_pop(const char *who, bool local, uint8_t *dst, size_t max, size_t &popped, bool in_order);

    status full(const char *who, size_t count, uint64_t head, uint64_t tail) const;
    status empty(const char *who) const;
    void renumber_local(uint64_t head, uint64_t tail);
    // The slot of element `index`: index % capacity, without a division while the index is in
    // the lap last seen. A push's store, or a pop's load, waits for this address, and the next
    // locked instruction waits for that access: a division here costs a one-node FastQueue
    // about a tenth of its rate.
    uint64_t slot_of(uint64_t index) const
    {
        uint64_t lap = lap_start_.load(std::memory_order_relaxed);  // a multiple of capacity_
        if (PGDDS_LIKELY(index - lap < capacity_)) return index - lap;
        uint64_t slot = index % capacity_;
        lap_start_.store(index - slot, std::memory_order_relaxed);
        return slot;
    }
    void recompute_checksums_local(uint64_t head, uint64_t tail);

    int kind_;
    size_t elem_size_;
    uint64_t capacity_ = 0;
    int host_ = 0;
    pgdds_gptr_t base_ = PGDDS_GPTR_NULL;
    uint8_t *local_ = nullptr;  // load/store address of the storage, if reachable
    // Counters as last seen by this rank: lower bounds that save a remote read most of the time.
    std::atomic<uint64_t> head_seen_{0}, tail_seen_{0}, head_ready_seen_{0}, tail_ready_seen_{0};
    mutable std::atomic<uint64_t> lap_start_{0};  // slot_of's cache: the first index of a lap

    friend status resolve_queue(pgdds_queue *, const char *, queue *&);
};

status resolve_queue(pgdds_queue *h, const char *who, queue *&out);

// ---------------------------------------------------------------------------------------------
template <class Mem>
void queue::copy_ring(Mem &m, uint64_t offset, size_t unit, uint64_t first, uint8_t *buf, size_t count,
                      bool to_queue) const
{
    auto transfer = [&](uint64_t slot, uint8_t *b, size_t n) {
        auto a = at<Mem>(offset + slot * unit);
        if (to_queue) m.put(a, b, n * unit);
        else m.get(b, a, n * unit);
    };
    uint64_t slot = slot_of(first);
    size_t first_run = size_t(std::min<uint64_t>(count, capacity_ - slot));
    transfer(slot, buf, first_run);
    if (count > first_run) transfer(0, buf + first_run * unit, count - first_run);
}

template <class Mem> void queue::put_elements(Mem &m, uint64_t first, const uint8_t *src, size_t count) const
{
    copy_ring(m, queue_layout::elements(kind_, capacity_), elem_size_, first, const_cast<uint8_t *>(src), count, true);
}
template <class Mem> void queue::get_elements(Mem &m, uint64_t first, uint8_t *dst, size_t count) const
{
    copy_ring(m, queue_layout::elements(kind_, capacity_), elem_size_, first, dst, count, false);
}
template <class Mem> void queue::put_checksums(Mem &m, uint64_t first, const uint64_t *src, size_t count) const
{
    copy_ring(m, queue_layout::checksums, 8, first, reinterpret_cast<uint8_t *>(const_cast<uint64_t *>(src)), count,
              true);
}
template <class Mem> void queue::get_checksums(Mem &m, uint64_t first, uint64_t *dst, size_t count) const
{
    copy_ring(m, queue_layout::checksums, 8, first, reinterpret_cast<uint8_t *>(dst), count, false);
}

template <class Mem>
status queue::reserve_push_phased(Mem &m, const char *who, size_t count, uint64_t limit,
                                  std::atomic<uint64_t> &limit_seen, uint64_t &first)
{
    spinner spin(rt);
    for (;;) {
        uint64_t t = m.fetch_add64(at<Mem>(queue_layout::tail), count);
        if (m.failed()) return m.result();
        if (t + count <= limit_seen.load(std::memory_order_relaxed) + capacity_) {
            first = t;
            return PGDDS_OK;
        }
        uint64_t h = m.load64(at<Mem>(limit));
        if (m.failed()) return m.result();
        limit_seen.store(h, std::memory_order_relaxed);
        if (t + count <= h + capacity_) {
            first = t;
            return PGDDS_OK;
        }
        if (t <= h + capacity_) {  // the first overrunning reservation: withdraw it and all after it
            m.swap64(at<Mem>(queue_layout::tail), t);
            return m.failed() ? m.result() : full(who, count, h, t);
        }
        // An earlier reservation overran and is withdrawing this one with it; there may still
        // be room for this push once it has.
        if (!spin.again(m, who)) return spin.result();
    }
}

template <class Mem>
status queue::reserve_pop_phased(Mem &m, const char *who, size_t max, uint64_t limit,
                                 std::atomic<uint64_t> &limit_seen, uint64_t &first, size_t &count)
{
    uint64_t h = m.fetch_add64(at<Mem>(queue_layout::head), max);
    if (m.failed()) return m.result();
    uint64_t got = max;
    if (h + max > limit_seen.load(std::memory_order_relaxed)) {
        uint64_t t = m.load64(at<Mem>(limit));
        if (m.failed()) return m.result();
        limit_seen.store(t, std::memory_order_relaxed);
        if (h + max > t) {
            got = h < t ? t - h : 0;
            if (h <= t) m.swap64(at<Mem>(queue_layout::head), t);  // the first overrunning one
        }
    }
    if (got == 0) return m.failed() ? m.result() : empty(who);
    first = h;
    count = size_t(got);
    return PGDDS_OK;
}

template <class Mem> status queue::reserve_push(Mem &m, const char *who, size_t count, uint64_t &first)
{
    uint64_t t = tail_seen_.load(std::memory_order_relaxed);  // a guess: the CAS corrects it
    for (;;) {
        if (t + count > head_ready_seen_.load(std::memory_order_relaxed) + capacity_) {
            uint64_t hr = m.load64(at<Mem>(queue_layout::head_ready));
            if (m.failed()) return m.result();
            head_ready_seen_.store(hr, std::memory_order_relaxed);
            // t never exceeds the real tail, so this proves the queue full.
            if (t + count > hr + capacity_) return full(who, count, hr, t);
        }
        uint64_t old = m.cas64(at<Mem>(queue_layout::tail), t, t + count);
        if (m.failed()) return m.result();
        if (old == t) break;
        t = old;
    }
    tail_seen_.store(t + count, std::memory_order_relaxed);
    first = t;
    return PGDDS_OK;
}

template <class Mem>
status queue::reserve_pop(Mem &m, const char *who, size_t max, uint64_t limit, std::atomic<uint64_t> &limit_seen,
                          uint64_t &first, size_t &count)
{
    uint64_t h = head_seen_.load(std::memory_order_relaxed);
    for (;;) {
        uint64_t end = limit_seen.load(std::memory_order_relaxed);
        if (h >= end || end - h < max) {  // the remembered limit may be behind: look
            end = m.load64(at<Mem>(limit));
            if (m.failed()) return m.result();
            limit_seen.store(end, std::memory_order_relaxed);
            if (h >= end) return empty(who);  // h never exceeds the real head
        }
        size_t k = size_t(std::min<uint64_t>(max, end - h));
        uint64_t old = m.cas64(at<Mem>(queue_layout::head), h, h + k);
        if (m.failed()) return m.result();
        if (old == h) {
            head_seen_.store(h + k, std::memory_order_relaxed);
            first = h;
            count = k;
            return PGDDS_OK;
        }
        h = old;
    }
}

// In order, a range is marked finished only once every range before it is (persistent
// compare-and-swap, thesis Table 8.3a/d), because the other side reads this counter. Without a
// concurrent reader, a fetch-add suffices (Table 5.2b/e).
template <class Mem>
status queue::advance_ready(Mem &m, const char *who, uint64_t counter, uint64_t first, uint64_t count,
                            bool in_order) const
{
    auto c = at<Mem>(counter);
    if (!in_order) {
        m.add64(c, count);
        return m.result();
    }
    spinner spin(rt);
    while (m.cas64(c, first, first + count) != first)
        if (!spin.again(m, who)) return spin.result();
    return m.result();
}

template <class F> status queue::drain_local(F f)
{
    uint8_t *h = local_ + queue_layout::head, *t = local_ + queue_layout::tail;
    uint64_t head = direct_memory::load64(h), tail = direct_memory::load64(t);
    uint64_t count = tail - head, slot = head % capacity_;
    uint8_t *elements = local_ + queue_layout::elements(kind_, capacity_);
    uint64_t first_run = std::min(count, capacity_ - slot);
    status st = f(elements + slot * elem_size_, size_t(first_run));
    if (st == PGDDS_OK && count > first_run) st = f(elements, size_t(count - first_run));
    renumber_local(tail, tail);
    return st;
}

}  // namespace pgdds::containers
