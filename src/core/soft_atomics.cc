// Atomics in software over active messages (soft_atomics.h).
#include "soft_atomics.h"
#include "am_engine.h"
#include "runtime.h"

#include <cstring>

namespace pgdds {

soft_atomics::soft_atomics(runtime &rt, unsigned endpoints) : rt_(rt)
{
    for (unsigned i = 0; i < endpoints; ++i) lanes_.emplace_back(new lane);
}

uint64_t soft_atomics::take_record(const record &r)
{
    std::lock_guard<std::mutex> guard(records_lock_);
    if (free_.empty()) {
        free_.push_back(uint32_t(records_.size()));
        records_.emplace_back();
    }
    uint32_t index = free_.back();
    free_.pop_back();
    record &slot = records_[index];
    uint32_t generation = slot.generation + 1;
    slot = r;
    slot.generation = generation;
    slot.busy = true;
    return uint64_t(generation) << 32 | index;
}

void soft_atomics::release(uint32_t index)
{
    std::lock_guard<std::mutex> guard(records_lock_);
    records_[index].busy = false;
    free_.push_back(index);
}

status soft_atomics::send_packet(unsigned vci_index, int rank, const message &m)
{
    uint8_t packet[sizeof(am_packet_header) + sizeof m];
    am_packet_header h{AM_SOFT_ATOMIC, rt_.rank(), 0, uint32_t(sizeof m), 0, 0};
    memcpy(packet, &h, sizeof h);
    memcpy(packet + sizeof h, &m, sizeof m);
    return rt_.peers().am_route(rank)->am_send(vci_index, rank, packet, sizeof packet);
}

status soft_atomics::issue(const char *who, vci &v, int rank, uint64_t offset, const amo_args &a,
                           op_completion *done, net_count kind)
{
    lane &l = *lanes_[v.index];
    const uint64_t id = take_record(record{done, a.result, 0, v.index, rank, uint8_t(a.width)});
    const message m{request, uint8_t(a.op), uint8_t(a.width), 0, 0, offset, a.operand, a.compare, id};
    // Counted before it goes: its reply may arrive while the send below progresses the VCI.
    l.in_flight.fetch_add(1, std::memory_order_relaxed);
    status st = rt_.retry(who, v, [&] { return runtime::counted(v, send_packet(v.index, rank, m), kind); });
    if (st != PGDDS_OK) {
        l.in_flight.fetch_sub(1, std::memory_order_release);
        release(uint32_t(id));
    }
    return st;
}

void soft_atomics::incoming(unsigned vci_index, int src, const void *body, size_t len)
{
    message m;
    if (len != sizeof m || vci_index >= lanes_.size()) {
        PGDDS_LOG(LOG_ERROR, "dropped a malformed software-atomic packet (%zu bytes from rank %d)", len, src);
        return;
    }
    memcpy(&m, body, sizeof m);
    if (m.kind == request) serve(vci_index, src, m);
    else if (m.kind == reply) take_reply(src, m);
    else PGDDS_LOG(LOG_ERROR, "dropped a software-atomic packet of unknown kind %u from rank %d", m.kind, src);
}

// The target's side: the operation on its own segment, and the reply queued for after progress.
void soft_atomics::serve(unsigned vci_index, int src, const message &req)
{
    queued_reply out{src, message{reply, req.op, req.width, 0, PGDDS_OK, req.offset, 0, 0, req.id}};
    const uint64_t size = rt_.segment_size();
    if ((req.width != 4 && req.width != 8) || req.op >= AMO_COUNT || req.offset > size ||
        size - req.offset < req.width || req.offset % req.width) {
        out.msg.result = PGDDS_ERR_OUT_OF_BOUNDS;
    } else {
        amo_args a{amo_op(req.op), req.width, req.operand, req.compare, &out.msg.operand};
        cpu_amo(rt_.segment_base() + req.offset, a);
    }
    lane &l = *lanes_[vci_index];
    std::lock_guard<std::mutex> guard(l.lock);
    l.replies.push_back(out);
    l.replies_waiting.store(true, std::memory_order_release);
}

// The origin's side: the old value to its place, and the operation completed.
void soft_atomics::take_reply(int src, const message &rep)
{
    const uint32_t index = uint32_t(rep.id), generation = uint32_t(rep.id >> 32);
    record r;
    {
        std::lock_guard<std::mutex> guard(records_lock_);
        if (index >= records_.size() || !records_[index].busy || records_[index].generation != generation ||
            records_[index].rank != src) {
            PGDDS_LOG(LOG_ERROR, "dropped rank %d's reply to no software atomic in flight (id %#llx)", src,
                      (unsigned long long)rep.id);
            return;
        }
        r = records_[index];
    }
    status st = PGDDS_OK;
    if (rep.result != PGDDS_OK)
        st = fail(PGDDS_ERR_OUT_OF_BOUNDS, "rank %d refused an atomic at offset %#llx: it lies outside its segment",
                  src, (unsigned long long)rep.offset);
    else if (r.result)
        memcpy(r.result, &rep.operand, r.width);
    release(index);
    lane &l = *lanes_[r.vci];
    if (r.done) {
        r.done->complete(st);
    } else if (st != PGDDS_OK) {
        std::lock_guard<std::mutex> guard(l.lock);
        l.failure.keep(st);
    }
    l.in_flight.fetch_sub(1, std::memory_order_release);
}

void soft_atomics::send_waiting(vci &v)
{
    lane &l = *lanes_[v.index];
    std::deque<queued_reply> todo;
    {
        std::lock_guard<std::mutex> guard(l.lock);
        todo.swap(l.replies);
        l.replies_waiting.store(false, std::memory_order_relaxed);
    }
    {
        vci_scope scope(v, rt_.threaded(), !rt_.is_mine(v));
        while (!todo.empty()) {
            const queued_reply &q = todo.front();
            status st = send_packet(v.index, q.rank, q.msg);
            if (st == PGDDS_ERR_AGAIN) break;  // no room: the next progress tries again
            if (st != PGDDS_OK)
                PGDDS_LOG(LOG_ERROR, "cannot answer rank %d's software atomic: %s", q.rank, pgdds_last_error());
            todo.pop_front();
        }
    }
    if (todo.empty()) return;
    std::lock_guard<std::mutex> guard(l.lock);
    l.replies.insert(l.replies.begin(), todo.begin(), todo.end());
    l.replies_waiting.store(true, std::memory_order_release);
}

status soft_atomics::quiet(const char *who, vci &v)
{
    lane &l = *lanes_[v.index];
    if (l.in_flight.load(std::memory_order_acquire)) {
        status st = rt_.wait(who, v, [&] { return l.in_flight.load(std::memory_order_acquire) == 0; });
        if (st != PGDDS_OK) return st;
    }
    std::lock_guard<std::mutex> guard(l.lock);
    return l.failure.pending() ? l.failure.take() : PGDDS_OK;
}

}  // namespace pgdds
