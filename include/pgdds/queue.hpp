// pgdds::fast_queue<T>, circular_queue<T>, checksum_queue<T>: the hosted queues of the C
// interface (pgdds_queue_*, BCL paper §5.1) with typed elements. Construction, destruction,
// resize and migrate are collective; push and pop are one-sided from any rank.
//
//   pgdds::fast_queue<int> q(ctx, 1 << 20, /*host*/ 0);
//   q.push(7);                        // false when full
//   ctx.barrier();                    // FastQueue: pushes and pops in separate phases
//   while (auto v = q.pop()) use(*v);
//
// Elements are fixed-size slots (fixed_slot.hpp): a serialized T needs max_bytes.
#pragma once

#include <pgdds/fixed_slot.hpp>
#include <pgdds/future.hpp>
#include <pgdds/pgdds.hpp>
#include <pgdds/promise.hpp>

#include <optional>
#include <utility>
#include <vector>

namespace pgdds {

namespace detail {

template <class T, int Kind> class queue {
  public:
    // Collective. max_bytes: the largest encoding of a serialized T (ignored for trivial T).
    queue(context_ref ctx, uint64_t capacity, int host_rank, size_t max_bytes = 0)
        : ctx_(ctx.handle()), slot_(max_bytes, "pgdds queue element")
    {
        pgdds_queue_params_t p{0, Kind, slot_.size(), capacity, host_rank};
        check(pgdds_queue_create(ctx.handle(), &p, &h_));
    }
    ~queue()
    {
        if (h_) pgdds_queue_destroy(h_);
    }
    void destroy()
    {
        pgdds_queue_t h = std::exchange(h_, nullptr);
        check(pgdds_queue_destroy(h));
    }
    queue(const queue &) = delete;
    queue &operator=(const queue &) = delete;
    queue(queue &&o) noexcept : ctx_(o.ctx_), slot_(o.slot_), h_(std::exchange(o.h_, nullptr)) {}
    queue &operator=(queue &&) = delete;

    pgdds_queue_t handle() const noexcept { return h_; }

    // False when the queue is full.
    bool push(const T &v, promise_set p = promise_set()) const
    {
        std::vector<unsigned char> buf;
        return accepted(pgdds_queue_push(h_, slot_.encode(v, buf), 1, p.bits()));
    }
    // All or nothing: false when they do not all fit.
    bool push(const std::vector<T> &vs, promise_set p = promise_set()) const
    {
        if constexpr (fixed_slot<T>::trivial) {
            return accepted(pgdds_queue_push(h_, vs.data(), vs.size(), p.bits()));
        } else {
            std::vector<unsigned char> buf(vs.size() * slot_.size());
            for (size_t i = 0; i < vs.size(); ++i) slot_.encode_into(vs[i], buf.data() + i * slot_.size());
            return accepted(pgdds_queue_push(h_, buf.data(), vs.size(), p.bits()));
        }
    }

    std::optional<T> pop(promise_set p = promise_set()) const
    {
        size_t got = 0;
        if constexpr (fixed_slot<T>::trivial) {
            T v;
            if (!available(pgdds_queue_pop(h_, &v, 1, &got, p.bits()))) return std::nullopt;
            return v;
        } else {
            std::vector<unsigned char> buf(slot_.size());
            if (!available(pgdds_queue_pop(h_, buf.data(), 1, &got, p.bits()))) return std::nullopt;
            return slot_.decode(buf.data());
        }
    }
    // Up to max elements; none when the queue is empty.
    std::vector<T> pop(size_t max, promise_set p = promise_set()) const
    {
        size_t got = 0;
        if constexpr (fixed_slot<T>::trivial) {
            std::vector<T> out(max);
            if (!available(pgdds_queue_pop(h_, out.data(), max, &got, p.bits()))) return {};
            out.resize(got);
            return out;
        } else {
            std::vector<unsigned char> buf(max * slot_.size());
            if (!available(pgdds_queue_pop(h_, buf.data(), max, &got, p.bits()))) return {};
            std::vector<T> out;
            out.reserve(got);
            for (size_t i = 0; i < got; ++i) out.push_back(slot_.decode(buf.data() + i * slot_.size()));
            return out;
        }
    }

    // Asynchronous forms (future.hpp), over pgdds_queue_push_nb and pgdds_queue_pop_nb: under way
    // when the call returns (one message to a host served by RPC; complete at once where it is
    // reached by load/store or the one-sided protocols). The elements are copied at the call. A
    // push's future is false when the queue was full; a pop's holds up to max elements.
    future<bool> push_async(const T &v, promise_set p = promise_set()) const
    {
        std::vector<unsigned char> buf;
        pgdds_request_t req = nullptr;
        check(pgdds_queue_push_nb(h_, slot_.encode(v, buf), 1, p.bits(), &req));
        return push_future(req);
    }
    future<bool> push_async(const std::vector<T> &vs, promise_set p = promise_set()) const
    {
        pgdds_request_t req = nullptr;
        if constexpr (fixed_slot<T>::trivial) {
            check(pgdds_queue_push_nb(h_, vs.data(), vs.size(), p.bits(), &req));
        } else {
            std::vector<unsigned char> buf(vs.size() * slot_.size());
            for (size_t i = 0; i < vs.size(); ++i) slot_.encode_into(vs[i], buf.data() + i * slot_.size());
            check(pgdds_queue_push_nb(h_, buf.data(), vs.size(), p.bits(), &req));
        }
        return push_future(req);
    }
    future<std::vector<T>> pop_async(size_t max, promise_set p = promise_set()) const
    {
        struct landing {
            std::vector<unsigned char> bytes;
            size_t got = 0;
        };
        auto l = std::make_shared<landing>();
        l->bytes.resize(max * slot_.size());
        pgdds_request_t req = nullptr;
        check(pgdds_queue_pop_nb(h_, l->bytes.data(), max, &l->got, p.bits(), &req));
        return detail::request_future_with<std::vector<T>>(
            ctx_, req, [l, slot = slot_](pgdds_status_t st, detail::future_state<std::vector<T>> &c) {
                if (st == PGDDS_ERR_EMPTY) c.set({});
                else detail::settle(c, st, [&] {
                    std::vector<T> out;
                    out.reserve(l->got);
                    for (size_t i = 0; i < l->got; ++i) out.push_back(slot.decode(l->bytes.data() + i * slot.size()));
                    return out;
                });
            });
    }

    // The host's queued elements, in order, in place (between phases).
    local_span<T> local_view() const
    {
        static_assert(fixed_slot<T>::trivial, "pgdds queue local_view needs trivially copyable elements; pop them");
        void *elems;
        size_t count;
        check(pgdds_queue_local_view(h_, &elems, &count));
        return {static_cast<T *>(elems), count, 0};
    }

    uint64_t size() const
    {
        uint64_t n;
        check(pgdds_queue_size(h_, &n));
        return n;
    }
    uint64_t capacity() const
    {
        uint64_t n;
        check(pgdds_queue_capacity(h_, &n));
        return n;
    }
    int host() const
    {
        int r;
        check(pgdds_queue_host(h_, &r));
        return r;
    }
    // How this rank's push and pop reach the host: PGDDS_PROTOCOL_DIRECT, _RDMA or _RPC.
    int protocol() const
    {
        int p;
        check(pgdds_queue_protocol(h_, &p));
        return p;
    }
    // How this rank's op (PGDDS_CONTAINER_OP_PUSH, _POP, _SIZE) under promises p reaches the host.
    int protocol(int op, promise_set p) const
    {
        int r;
        check(pgdds_queue_op_protocol(h_, op, p.bits(), &r));
        return r;
    }
    void resize(uint64_t new_capacity) const { check(pgdds_queue_resize(h_, new_capacity)); }  // collective
    void migrate(int new_host) const { check(pgdds_queue_migrate(h_, new_host)); }              // collective

  private:
    future<bool> push_future(pgdds_request_t req) const
    {
        return detail::request_future_with<bool>(ctx_, req, [](pgdds_status_t st, detail::future_state<bool> &c) {
            if (st == PGDDS_ERR_FULL) c.set(false);
            else detail::settle(c, st, [] { return true; });
        });
    }
    static bool accepted(pgdds_status_t st)
    {
        if (st == PGDDS_ERR_FULL) return false;
        check(st);
        return true;
    }
    static bool available(pgdds_status_t st)
    {
        if (st == PGDDS_ERR_EMPTY) return false;
        check(st);
        return true;
    }

    pgdds_context_t ctx_;
    fixed_slot<T> slot_;
    pgdds_queue_t h_ = nullptr;
};

}  // namespace detail

// Pushes and pops in separate phases (A+W / A+R). A push is complete, like a put, once its
// caller has flushed (ctx.flush(), or any barrier).
template <class T> using fast_queue = detail::queue<T, PGDDS_QUEUE_FAST>;
// Concurrent pushes and pops, ready counters (2A+W / 2A+R; promise::push / promise::pop save an
// in-order wait).
template <class T> using circular_queue = detail::queue<T, PGDDS_QUEUE_CIRCULAR>;
// Concurrent pushes and pops, per-element checksums instead of a tail-ready counter.
template <class T> using checksum_queue = detail::queue<T, PGDDS_QUEUE_CHECKSUM>;

}  // namespace pgdds
