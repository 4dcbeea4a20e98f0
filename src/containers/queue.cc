// The hosted queues: storage, creation, the collective resize and migrate, the host's local
// view, and the C ABI. The push/pop protocols are in fast_queue.cc, circular_queue.cc and
// checksum_queue.cc.
#include "queue.h"
#include "rpc.h"

namespace pgdds::containers {

queue::queue(runtime *rt, int kind, size_t elem_size, uint64_t capacity, int host, pgdds_gptr_t base)
    : container(rt), kind_(kind), elem_size_(elem_size)
{
    set_storage(host, base, capacity);
}

void queue::set_storage(int host, pgdds_gptr_t base, uint64_t capacity)
{
    host_ = host;
    base_ = base;
    capacity_ = capacity;
    lap_start_.store(0, std::memory_order_relaxed);
    local_ = rt->direct(base);
    map_ahead(rt, base, queue_layout::bytes(kind_, elem_size_, capacity));
}

namespace {

// The calls a host serves (rpc.h).
enum : uint32_t { call_push = 1, call_pop, call_size };

status check_shape(const char *who, int kind, size_t elem_size, uint64_t capacity)
{
    if (kind != PGDDS_QUEUE_FAST && kind != PGDDS_QUEUE_CIRCULAR && kind != PGDDS_QUEUE_CHECKSUM)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: kind %d is not PGDDS_QUEUE_FAST, _CIRCULAR or _CHECKSUM", who, kind);
    if (elem_size == 0 || elem_size > (1u << 24))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: elem_size %zu is not in 1..16 MiB", who, elem_size);
    if (capacity == 0) return fail(PGDDS_ERR_INVALID_ARG, "%s: capacity is 0", who);
    if (capacity > (uint64_t(1) << 48) / elem_size)
        return fail(PGDDS_ERR_NO_MEMORY, "%s: %llu elements of %zu bytes are too many", who,
                    (unsigned long long)capacity, elem_size);
    return PGDDS_OK;
}

}  // namespace

status queue::create(runtime *rt, const pgdds_queue_params_t &p, queue *&out)
{
    const char *who = "pgdds_queue_create";
    measure_protocol_costs(rt, who);  // collective, first of all
    status st = PGDDS_OK;
    if (p.field_mask != 0)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: params->field_mask 0x%llx names no known optional field", who,
                  (unsigned long long)p.field_mask);
    else if (p.host_rank < 0 || p.host_rank >= rt->nranks())
        st = fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: host_rank %d is not in 0..%d", who, p.host_rank, rt->nranks() - 1);
    else st = check_shape(who, p.kind, p.elem_size, p.capacity);
    int protocol = PGDDS_PROTOCOL_RDMA;
    if (st == PGDDS_OK)
        st = choose_protocol(rt, who,
                             p.kind == PGDDS_QUEUE_FAST       ? priced_kind::fast_queue
                             : p.kind == PGDDS_QUEUE_CIRCULAR ? priced_kind::circular_queue
                                                              : priced_kind::checksum_queue,
                             PGDDS_PROTOCOL_AUTO, protocol);
    st = agree_arguments(rt, who, st,
                         {uint64_t(p.kind), p.elem_size, p.capacity, uint64_t(p.host_rank), uint64_t(protocol)});
    if (st != PGDDS_OK) return st;
    pgdds_gptr_t base = PGDDS_GPTR_NULL;
    if (rt->rank() == p.host_rank)
        st = alloc_zeroed(rt, who, queue_layout::bytes(p.kind, p.elem_size, p.capacity), cache_line, base);
    st = agree(rt, who, st);
    if (st == PGDDS_OK) st = rt->broadcast(who, &base, sizeof base, p.host_rank);
    std::unique_ptr<queue> q;
    if (st == PGDDS_OK) {
        q.reset(new (std::nothrow) queue(rt, p.kind, p.elem_size, p.capacity, p.host_rank, base));
        if (!q) st = fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
        else q->settle_protocol(protocol);
    }
    st = agree(rt, who, st);
    if (st == PGDDS_OK && protocol == PGDDS_PROTOCOL_RPC) {
        rpc_enroll(q.get());  // no call reaches the host before it serves calls
        st = rt->barrier(who);
        if (st != PGDDS_OK) rpc_withdraw(q.get());
    }
    if (st != PGDDS_OK) {
        if (rt->rank() == p.host_rank && base != PGDDS_GPTR_NULL) rt->allocator().free(gptr::offset(base));
        return st;
    }
    out = q.release();
    return PGDDS_OK;
}

status queue::create_per_rank(runtime *rt, const char *who, int kind, size_t elem_size, uint64_t capacity,
                              std::vector<std::unique_ptr<queue>> &out)
{
    status st = check_shape(who, kind, elem_size, capacity);
    pgdds_gptr_t mine = PGDDS_GPTR_NULL;
    if (st == PGDDS_OK) st = alloc_zeroed(rt, who, queue_layout::bytes(kind, elem_size, capacity), cache_line, mine);
    st = agree(rt, who, st);
    parts all;
    if (st == PGDDS_OK) st = gather_parts(rt, who, mine, 0, all);  // set_storage maps ahead
    if (st != PGDDS_OK) {
        if (mine != PGDDS_GPTR_NULL) rt->allocator().free(gptr::offset(mine));
        return st;
    }
    out.clear();
    for (int r = 0; r < rt->nranks(); ++r)
        out.emplace_back(new queue(rt, kind, elem_size, capacity, r, all.global[size_t(r)]));
    return PGDDS_OK;
}

status queue::destroy(const char *who)
{
    status st = rpc_retire(this, who);
    release_storage();
    return st;
}

void queue::release_storage()
{
    if (rt->rank() == host_) rt->allocator().free(gptr::offset(base_));
}

status queue::full(const char *who, size_t count, uint64_t head, uint64_t tail) const
{
    uint64_t used = tail > head ? std::min(tail - head, capacity_) : 0;
    return fail(PGDDS_ERR_FULL, "%s: %zu elements do not fit: the queue on rank %d holds %llu of %llu", who, count,
                host_, (unsigned long long)used, (unsigned long long)capacity_);
}

status queue::empty(const char *who) const
{
    return fail(PGDDS_ERR_EMPTY, "%s: the queue on rank %d is empty", who, host_);
}

// The caller's side of RPC (rpc.h); the host's is queue::serve.
template <class Settle>
status queue::call_host(const char *who, uint32_t op, unsigned concurrent, const void *args, size_t len,
                        pgdds_request_t *req, Settle settle)
{
    try {
        std::vector<rpc_call> calls(1);
        calls[0].owner = host_;
        calls[0].args.assign(static_cast<const uint8_t *>(args), static_cast<const uint8_t *>(args) + len);
        return rpc_run(this, who, op, concurrent, calls, req, [] { return PGDDS_OK; },
                       [settle](std::vector<rpc_call> &done) { return settle(done[0].reply); });
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

// ---------------------------------------------------------------------------------------------
// Push and pop: the promise picks the protocol
// ---------------------------------------------------------------------------------------------
status queue::push(const char *who, const void *elems, size_t count, unsigned concurrent, pgdds_request_t *req)
{
    if (!elems && count) return fail(PGDDS_ERR_INVALID_ARG, "%s: elems is NULL", who);
    status st = check_promise(who, concurrent, PGDDS_CP_PUSH | PGDDS_CP_POP);
    if (st != PGDDS_OK) return st;
    bool local = concurrent & PGDDS_CP_LOCAL;
    if (local && rt->rank() != host_)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_CP_LOCAL is for the host (rank %d), not rank %d", who, host_,
                    rt->rank());
    if (count == 0) return outcome(who, PGDDS_OK, req);
    if (count > capacity_)
        return fail(PGDDS_ERR_FULL, "%s: %zu elements never fit in a queue of capacity %llu", who, count,
                    (unsigned long long)capacity_);
    unsigned others = concurrent & ~PGDDS_CP_LOCAL;
    if (kind_ == PGDDS_QUEUE_FAST && (others & PGDDS_CP_POP))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: a FastQueue cannot push while pops run (PGDDS_CP_POP); use a "
                    "circular or checksum queue", who);
    auto src = static_cast<const uint8_t *>(elems);
    // A push with a request is complete when it completes: no store kept back.
    if (local || !calls_owner(host_)) return outcome(who, push_here(who, local, src, count, others, !req), req);
    if (count > rpc_max_bytes / elem_size_)  // all or nothing: one message
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %zu elements of %zu bytes exceed one call to the host (%zu bytes, "
                    "PGDDS_PROTOCOL_RPC); push fewer at a time", who, count, elem_size_, rpc_max_bytes);
    const int host = host_;
    return call_host(who, call_push, concurrent, src, count * elem_size_, req, [who, host](std::vector<uint8_t> &reply) {
        return reply.empty() ? PGDDS_OK
                             : fail(PGDDS_ERR_TRANSPORT, "%s: rank %d replied with %zu bytes, not 0", who, host,
                                    reply.size());
    });
}

status queue::push_here(const char *who, bool local, const uint8_t *src, size_t count, unsigned others, bool defer)
{
    switch (kind_) {
    case PGDDS_QUEUE_FAST: return fast_push(who, local, src, count, defer);
    case PGDDS_QUEUE_CIRCULAR: return circular_push(who, local, src, count, others != PGDDS_CP_PUSH);
    default: return checksum_push(who, local, src, count);
    }
}

status queue::pop(const char *who, void *elems, size_t max, size_t &popped, unsigned concurrent, pgdds_request_t *req)
{
    if (!elems) return fail(PGDDS_ERR_INVALID_ARG, "%s: elems is NULL", who);
    if (max == 0) return fail(PGDDS_ERR_INVALID_ARG, "%s: max is 0", who);
    status st = check_promise(who, concurrent, PGDDS_CP_PUSH | PGDDS_CP_POP);
    if (st != PGDDS_OK) return st;
    bool local = concurrent & PGDDS_CP_LOCAL;
    if (local && rt->rank() != host_)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_CP_LOCAL is for the host (rank %d), not rank %d", who, host_,
                    rt->rank());
    rt->complete_deferred(rt->current_vci());  // this thread's pushes come first
    unsigned others = concurrent & ~PGDDS_CP_LOCAL;
    if (kind_ == PGDDS_QUEUE_FAST && (others & PGDDS_CP_PUSH))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: a FastQueue cannot pop while pushes run (PGDDS_CP_PUSH); use a "
                    "circular or checksum queue", who);
    auto dst = static_cast<uint8_t *>(elems);
    if (local || !calls_owner(host_)) return outcome(who, pop_here(who, local, dst, max, popped, others), req);
    // Up to max: never more than the queue holds, nor than one reply carries.
    uint64_t want = std::min<uint64_t>({max, capacity_, rpc_max_bytes / elem_size_});
    const int host = host_;
    const size_t es = elem_size_;
    size_t *out = &popped;
    return call_host(who, call_pop, concurrent, &want, sizeof want, req,
                     [who, host, es, want, dst, out](std::vector<uint8_t> &reply) {
                         if (reply.empty() || reply.size() % es || reply.size() / es > want)
                             return fail(PGDDS_ERR_TRANSPORT, "%s: rank %d replied with %zu bytes, not 1..%llu "
                                         "elements of %zu", who, host, reply.size(), (unsigned long long)want, es);
                         memcpy(dst, reply.data(), reply.size());
                         *out = reply.size() / es;
                         return PGDDS_OK;
                     });
}

status queue::pop_here(const char *who, bool local, uint8_t *dst, size_t max, size_t &popped, unsigned others)
{
    switch (kind_) {
    case PGDDS_QUEUE_FAST: return fast_pop(who, local, dst, max, popped);
    case PGDDS_QUEUE_CIRCULAR: return circular_pop(who, local, dst, max, popped, others != PGDDS_CP_POP);
    default: return checksum_pop(who, local, dst, max, popped, others != PGDDS_CP_POP);
    }
}

status queue::size(const char *who, uint64_t &count)
{
    if (!calls_owner(host_)) return size_here(who, count);
    const int host = host_;
    uint64_t *out = &count;
    return call_host(who, call_size, 0, nullptr, 0, nullptr, [who, host, out](std::vector<uint8_t> &reply) {
        if (reply.size() != sizeof *out)
            return fail(PGDDS_ERR_TRANSPORT, "%s: rank %d replied with %zu bytes, not %zu", who, host, reply.size(),
                        sizeof *out);
        memcpy(out, reply.data(), sizeof *out);
        return PGDDS_OK;
    });
}

status queue::size_here(const char *who, uint64_t &count)
{
    uint64_t h = 0, t = 0;
    status st = with_memory(who, false, [&](auto &m) {
        h = m.load64(at<std::decay_t<decltype(m)>>(queue_layout::head));
        t = m.load64(at<std::decay_t<decltype(m)>>(queue_layout::tail));
        return m.result();
    });
    if (st == PGDDS_OK) count = t > h ? std::min(t - h, capacity_) : 0;
    return st;
}

// ---------------------------------------------------------------------------------------------
// RPC (rpc.h): the host's side (the caller's is call_host, above)
// ---------------------------------------------------------------------------------------------
// The host runs the call with the caller's promise on its own memory (every atomic on a queue
// served by RPC is a CPU atomic). A served FastQueue push stores at once: the caller's push is
// complete when the reply comes.
status queue::serve(int src, uint32_t op, unsigned concurrent, const uint8_t *args, size_t len,
                    std::vector<uint8_t> &out)
{
    static const char *const names[] = {"", "pgdds_queue_push", "pgdds_queue_pop", "pgdds_queue_size"};
    if (op < call_push || op > call_size)
        return fail(PGDDS_ERR_INVALID_ARG, "queue: rank %d sent unknown call %u", src, op);
    const char *who = names[op];
    if (rt->rank() != host_)
        return fail(PGDDS_ERR_STATE, "%s: rank %d no longer hosts the queue (rank %d does)", who, rt->rank(), host_);
    status st = check_promise(who, concurrent & ~PGDDS_CP_LOCAL, PGDDS_CP_PUSH | PGDDS_CP_POP);
    if (st != PGDDS_OK) return st;
    const unsigned others = concurrent & ~PGDDS_CP_LOCAL;
    const bool fast = kind_ == PGDDS_QUEUE_FAST;
    switch (op) {
    case call_push:
        if (len == 0 || len % elem_size_ || len / elem_size_ > capacity_ || (fast && (others & PGDDS_CP_POP)))
            return fail(PGDDS_ERR_INVALID_ARG, "%s: rank %d sent a malformed call (%zu bytes)", who, src, len);
        return push_here(who, false, args, len / elem_size_, others, false);
    case call_pop: {
        uint64_t max = 0;
        if (len == sizeof max) memcpy(&max, args, sizeof max);
        if (max == 0 || max > capacity_ || (fast && (others & PGDDS_CP_PUSH)))
            return fail(PGDDS_ERR_INVALID_ARG, "%s: rank %d sent a malformed call (%zu bytes)", who, src, len);
        const size_t base = out.size();
        out.resize(base + size_t(max) * elem_size_);
        size_t popped = 0;
        st = pop_here(who, false, out.data() + base, size_t(max), popped, others);
        out.resize(st == PGDDS_OK ? base + popped * elem_size_ : base);
        return st;
    }
    default: {  // call_size
        uint64_t count = 0;
        st = size_here(who, count);
        if (st == PGDDS_OK) out.insert(out.end(), reinterpret_cast<uint8_t *>(&count),
                                       reinterpret_cast<uint8_t *>(&count) + sizeof count);
        return st;
    }
    }
}

// ---------------------------------------------------------------------------------------------
// The host's own view, between phases
// ---------------------------------------------------------------------------------------------
void queue::renumber_local(uint64_t head, uint64_t tail)
{
    direct_memory::swap64(local_ + queue_layout::head, head);
    direct_memory::swap64(local_ + queue_layout::head_ready, head);
    direct_memory::swap64(local_ + queue_layout::tail, tail);
    direct_memory::swap64(local_ + queue_layout::tail_ready, tail);
}

void queue::recompute_checksums_local(uint64_t head, uint64_t tail)
{
    if (kind_ != PGDDS_QUEUE_CHECKSUM) return;
    auto *sums = reinterpret_cast<uint64_t *>(local_ + queue_layout::checksums);
    const uint8_t *elements = local_ + queue_layout::elements(kind_, capacity_);
    for (uint64_t i = head; i < tail; ++i) {
        uint64_t slot = i % capacity_;
        sums[slot] = element_checksum(elements + slot * elem_size_, elem_size_, i, capacity_);
    }
}

status queue::local_view(const char *who, void *&elems, size_t &count)
{
    if (rt->rank() != host_)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: only the host (rank %d) has a local view, not rank %d", who, host_,
                    rt->rank());
    rt->complete_deferred(rt->current_vci());  // this thread's pushes come first
    uint64_t head = direct_memory::load64(local_ + queue_layout::head);
    uint64_t tail = direct_memory::load64(local_ + queue_layout::tail);
    uint64_t n = tail > head ? std::min(tail - head, capacity_) : 0;
    uint8_t *elements = local_ + queue_layout::elements(kind_, capacity_);
    if (head % capacity_ + n > capacity_) {
        // The elements wrap around the ring: rotate them to the front and renumber upwards (a
        // multiple of the capacity at or past the tail), so every rank's remembered counters stay
        // lower bounds.
        std::rotate(elements, elements + head % capacity_ * elem_size_, elements + capacity_ * elem_size_);
        head = round_up(tail, capacity_);
        tail = head + n;
        renumber_local(head, tail);
        recompute_checksums_local(head, tail);
    }
    elems = elements + head % capacity_ * elem_size_;
    count = size_t(n);
    return PGDDS_OK;
}

// ---------------------------------------------------------------------------------------------
// Collective resize and migrate (BCL Table 2: B + l and B + nW)
// ---------------------------------------------------------------------------------------------
status queue::resize(const char *who, uint64_t new_capacity)
{
    status st = check_shape(who, kind_, elem_size_, new_capacity);
    st = agree_arguments(rt, who, st, {new_capacity});
    if (st == PGDDS_OK) st = rpc_quiet(this, who);
    if (st != PGDDS_OK) return st;
    pgdds_gptr_t fresh = PGDDS_GPTR_NULL;
    if (rt->rank() == host_) {
        uint64_t head = direct_memory::load64(local_ + queue_layout::head);
        uint64_t tail = direct_memory::load64(local_ + queue_layout::tail);
        if (tail - head > new_capacity)
            st = fail(PGDDS_ERR_FULL, "%s: the queue holds %llu elements, more than %llu", who,
                      (unsigned long long)(tail - head), (unsigned long long)new_capacity);
        else st = alloc_zeroed(rt, who, queue_layout::bytes(kind_, elem_size_, new_capacity), cache_line, fresh);
        if (st == PGDDS_OK) {
            uint8_t *to = rt->direct(fresh);
            memcpy(to, local_, queue_layout::checksums);  // the four counters
            const uint8_t *from_elems = local_ + queue_layout::elements(kind_, capacity_);
            uint8_t *to_elems = to + queue_layout::elements(kind_, new_capacity);
            for (uint64_t i = head; i < tail; ++i)
                memcpy(to_elems + i % new_capacity * elem_size_, from_elems + i % capacity_ * elem_size_, elem_size_);
        }
    }
    st = agree(rt, who, st);
    if (st == PGDDS_OK) st = rt->broadcast(who, &fresh, sizeof fresh, host_);
    if (st != PGDDS_OK) {
        if (fresh != PGDDS_GPTR_NULL) rt->allocator().free(gptr::offset(fresh));
        return st;
    }
    if (rt->rank() == host_) rt->allocator().free(gptr::offset(base_));
    set_storage(host_, fresh, new_capacity);
    if (rt->rank() == host_)
        recompute_checksums_local(direct_memory::load64(local_ + queue_layout::head),
                                  direct_memory::load64(local_ + queue_layout::tail));
    return settled(who);
}

status queue::migrate(const char *who, int new_host)
{
    status st = new_host < 0 || new_host >= rt->nranks()
                    ? fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: new host %d is not in 0..%d", who, new_host, rt->nranks() - 1)
                    : PGDDS_OK;
    st = agree_arguments(rt, who, st, {uint64_t(new_host)});
    if (st == PGDDS_OK) st = rpc_quiet(this, who);
    if (st != PGDDS_OK || new_host == host_) return st;
    uint64_t bytes = queue_layout::bytes(kind_, elem_size_, capacity_);
    pgdds_gptr_t fresh = PGDDS_GPTR_NULL;
    if (rt->rank() == new_host) st = alloc_zeroed(rt, who, bytes, cache_line, fresh);
    st = agree(rt, who, st);
    if (st == PGDDS_OK) st = rt->broadcast(who, &fresh, sizeof fresh, new_host);
    if (st == PGDDS_OK && rt->rank() == host_) {
        st = pgdds_put(ctx, fresh, local_, bytes);
        if (st == PGDDS_OK) st = pgdds_flush(ctx);
        if (st != PGDDS_OK) st = fail_prefix(st, who);
    }
    st = agree(rt, who, st);
    if (st != PGDDS_OK) {
        if (rt->rank() == new_host && fresh != PGDDS_GPTR_NULL) rt->allocator().free(gptr::offset(fresh));
        return st;
    }
    if (rt->rank() == host_) rt->allocator().free(gptr::offset(base_));
    set_storage(new_host, fresh, capacity_);
    return settled(who);
}

// A rank done with a resize or migrate may call the host while it is still in it: under RPC no
// call leaves before every rank has the new storage.
status queue::settled(const char *who) { return protocol == PGDDS_PROTOCOL_RPC ? rt->barrier(who) : PGDDS_OK; }

status resolve_queue(pgdds_queue *h, const char *who, queue *&out) { return resolve(h, queue_magic, who, "queue", out); }

}  // namespace pgdds::containers

// ---------------------------------------------------------------------------------------------
// C ABI
// ---------------------------------------------------------------------------------------------
using namespace pgdds;
using namespace pgdds::containers;

extern "C" {

PGDDS_API pgdds_status_t pgdds_queue_create(pgdds_context_t ctx, const pgdds_queue_params_t *params,
                                            pgdds_queue_t *queue_out)
{
    const char *who = "pgdds_queue_create";
    runtime *rt = runtime::from(ctx);
    if (!rt) return fail(ctx ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG, "%s: the context is %s", who,
                         ctx ? "not live (finalized?)" : "NULL");
    if (!rt->thread_allowed()) return rt->check_thread(who);
    if (!params) return fail(PGDDS_ERR_INVALID_ARG, "%s: params is NULL", who);
    if (!queue_out) return fail(PGDDS_ERR_INVALID_ARG, "%s: queue is NULL", who);
    queue *impl = nullptr;
    status st = queue::create(rt, *params, impl);
    if (st != PGDDS_OK) return st;
    st = make_handle(queue_magic, impl, *queue_out);
    if (st != PGDDS_OK) delete impl;
    return st;
}

PGDDS_API pgdds_status_t pgdds_queue_destroy(pgdds_queue_t q)
{
    const char *who = "pgdds_queue_destroy";
    if (!q || q->magic != queue_magic) return bad_handle(q, who, "queue");
    status st = runtime::from(q->impl->ctx) ? q->impl->destroy(who)
                                            : fail(PGDDS_ERR_STATE, "%s: the context was finalized first", who);
    kill_handle(q);
    return st;
}

PGDDS_API pgdds_status_t pgdds_queue_push(pgdds_queue_t q, const void *elems, size_t count, unsigned concurrent)
{
    queue *impl = nullptr;
    status st = resolve_queue(q, "pgdds_queue_push", impl);
    return st != PGDDS_OK ? st : impl->push("pgdds_queue_push", elems, count, concurrent);
}

PGDDS_API pgdds_status_t pgdds_queue_pop(pgdds_queue_t q, void *elems, size_t max, size_t *popped, unsigned concurrent)
{
    const char *who = "pgdds_queue_pop";
    queue *impl = nullptr;
    status st = resolve_queue(q, who, impl);
    if (st != PGDDS_OK) return st;
    if (!popped) return fail(PGDDS_ERR_INVALID_ARG, "%s: popped is NULL", who);
    return impl->pop(who, elems, max, *popped, concurrent);
}

PGDDS_API pgdds_status_t pgdds_queue_push_nb(pgdds_queue_t q, const void *elems, size_t count, unsigned concurrent,
                                             pgdds_request_t *req)
{
    const char *who = "pgdds_queue_push_nb";
    queue *impl = nullptr;
    status st = resolve_nb(q, queue_magic, who, "queue", req, impl);
    return st != PGDDS_OK ? st : impl->push(who, elems, count, concurrent, req);
}

PGDDS_API pgdds_status_t pgdds_queue_pop_nb(pgdds_queue_t q, void *elems, size_t max, size_t *popped,
                                            unsigned concurrent, pgdds_request_t *req)
{
    const char *who = "pgdds_queue_pop_nb";
    queue *impl = nullptr;
    status st = resolve_nb(q, queue_magic, who, "queue", req, impl);
    if (st != PGDDS_OK) return st;
    if (!popped) return fail(PGDDS_ERR_INVALID_ARG, "%s: popped is NULL", who);
    return impl->pop(who, elems, max, *popped, concurrent, req);
}

PGDDS_API pgdds_status_t pgdds_queue_local_view(pgdds_queue_t q, void **elems, size_t *count)
{
    const char *who = "pgdds_queue_local_view";
    queue *impl = nullptr;
    status st = resolve_queue(q, who, impl);
    if (st != PGDDS_OK) return st;
    if (!elems || !count) return fail(PGDDS_ERR_INVALID_ARG, "%s: %s is NULL", who, elems ? "count" : "elems");
    void *e;
    size_t c;
    st = impl->local_view(who, e, c);
    if (st == PGDDS_OK) {
        *elems = e;
        *count = c;
    }
    return st;
}

PGDDS_API pgdds_status_t pgdds_queue_size(pgdds_queue_t q, uint64_t *count)
{
    const char *who = "pgdds_queue_size";
    queue *impl = nullptr;
    status st = resolve_queue(q, who, impl);
    if (st != PGDDS_OK) return st;
    if (!count) return fail(PGDDS_ERR_INVALID_ARG, "%s: count is NULL", who);
    return impl->size(who, *count);
}

PGDDS_API pgdds_status_t pgdds_queue_capacity(pgdds_queue_t q, uint64_t *capacity)
{
    const char *who = "pgdds_queue_capacity";
    queue *impl = nullptr;
    status st = resolve_queue(q, who, impl);
    if (st != PGDDS_OK) return st;
    if (!capacity) return fail(PGDDS_ERR_INVALID_ARG, "%s: capacity is NULL", who);
    *capacity = impl->capacity();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_queue_host(pgdds_queue_t q, int *host_rank)
{
    const char *who = "pgdds_queue_host";
    queue *impl = nullptr;
    status st = resolve_queue(q, who, impl);
    if (st != PGDDS_OK) return st;
    if (!host_rank) return fail(PGDDS_ERR_INVALID_ARG, "%s: host_rank is NULL", who);
    *host_rank = impl->host();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_queue_protocol(pgdds_queue_t q, int *protocol)
{
    const char *who = "pgdds_queue_protocol";
    queue *impl = nullptr;
    status st = resolve_queue(q, who, impl);
    if (st != PGDDS_OK) return st;
    if (!protocol) return fail(PGDDS_ERR_INVALID_ARG, "%s: protocol is NULL", who);
    *protocol = impl->protocol_to(impl->host());
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_queue_op_protocol(pgdds_queue_t q, int op, unsigned concurrent, int *protocol)
{
    const char *who = "pgdds_queue_op_protocol";
    queue *impl = nullptr;
    status st = resolve_queue(q, who, impl);
    if (st != PGDDS_OK) return st;
    if (!protocol) return fail(PGDDS_ERR_INVALID_ARG, "%s: protocol is NULL", who);
    if (op != PGDDS_CONTAINER_OP_PUSH && op != PGDDS_CONTAINER_OP_POP && op != PGDDS_CONTAINER_OP_SIZE)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not an operation of a queue (PGDDS_CONTAINER_OP_PUSH, _POP, "
                    "_SIZE)", who, op);
    st = check_promise(who, concurrent, PGDDS_CP_PUSH | PGDDS_CP_POP | PGDDS_CP_LOCAL);
    if (st != PGDDS_OK) return st;
    if ((concurrent & PGDDS_CP_LOCAL) && impl->host() != impl->rt->rank())
        return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_CP_LOCAL is for the host, rank %d (this is rank %d)", who,
                    impl->host(), impl->rt->rank());
    // Every queue operation takes an atomic on the host's counters (size: atomic loads): all
    // share the queue's protocol.
    *protocol = (concurrent & PGDDS_CP_LOCAL) ? PGDDS_PROTOCOL_DIRECT : impl->protocol_to(impl->host());
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_queue_resize(pgdds_queue_t q, uint64_t new_capacity)
{
    queue *impl = nullptr;
    status st = resolve_queue(q, "pgdds_queue_resize", impl);
    return st != PGDDS_OK ? st : impl->resize("pgdds_queue_resize", new_capacity);
}

PGDDS_API pgdds_status_t pgdds_queue_migrate(pgdds_queue_t q, int new_host)
{
    queue *impl = nullptr;
    status st = resolve_queue(q, "pgdds_queue_migrate", impl);
    return st != PGDDS_OK ? st : impl->migrate("pgdds_queue_migrate", new_host);
}

}  // extern "C"
