#include "ucx_internal.h"


#include <algorithm>
#include <cstring>
#include <new>

namespace pgdds {

namespace {

void on_send_done(void *request, ucs_status_t s, void *)
{
    auto *info = static_cast<request_info *>(request);
    status st = s == UCS_OK ? PGDDS_OK : info->v->error(info->rank, s, info->what);
    if (info->done) info->done->complete(st);
    else info->v->deferred.keep(st);
    ucp_request_free(request);
}

void on_flush_done(void *request, ucs_status_t s, void *arg)
{
    auto *info = static_cast<request_info *>(request);
    if (s == UCS_OK) info->v->writes_flushed = std::max(info->v->writes_flushed, info->flushed_upto);
    on_send_done(request, s, arg);
}

void on_am_sent(void *request, ucs_status_t s, void *)
{
    auto *info = static_cast<request_info *>(request);
    transport_ucx::vci_state &v = *info->v;
    v.am_in_flight -= info->len;
    v.return_buffer(info->buffer, info->len);
    if (s != UCS_OK) {
        v.deferred.keep(v.error(info->rank, s, "active message"));
        PGDDS_LOG(LOG_ERROR, "%s", pgdds_last_error());
    }
    ucp_request_free(request);
}

// Receive side of active messages. Eager packets are handed over at once; rendezvous packets
// are fetched into a buffer of their own and handed over when they land.
void on_am_data(void *request, ucs_status_t s, size_t, void *)
{
    auto *info = static_cast<request_info *>(request);
    if (s == UCS_OK) info->v->owner->deliver_am(info->v->index, info->buffer, info->len);
    else PGDDS_LOG(LOG_ERROR, "ucx: receiving a %zu-byte active message failed: %s", info->len, ucs_status_string(s));
    free(info->buffer);
    ucp_request_free(request);
}

// The core checks every access before it calls; a range outside the peer's segment is still
// refused here, since UCX would read or write whatever memory lies beyond it.
status out_of_segment(const transport_ucx::vci_state::peer &p, uint64_t offset, size_t n, const char *what)
{
    if (PGDDS_LIKELY(offset <= p.size && n <= p.size - offset)) return PGDDS_OK;
    return fail(PGDDS_ERR_OUT_OF_BOUNDS, "ucx: %s of %zu bytes at offset %llu lies outside rank %d's segment of %llu "
                "bytes", what, n, (unsigned long long)offset, p.rank, (unsigned long long)p.size);
}

}  // namespace

ucs_status_t ucx_on_am_message(void *arg, const void *, size_t, void *data, size_t length,
                               const ucp_am_recv_param_t *param)
{
    auto &v = *static_cast<transport_ucx::vci_state *>(arg);
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        v.owner->deliver_am(v.index, data, length);
        return UCS_OK;
    }
    auto *buf = static_cast<uint8_t *>(malloc(length ? length : 1));
    if (!buf) {
        PGDDS_LOG(LOG_ERROR, "ucx: no memory to receive a %zu-byte active message", length);
        return UCS_ERR_NO_MEMORY;  // the sender's request fails with it
    }
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
    prm.cb.recv_am = on_am_data;
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(v.worker, data, buf, length, &prm);
    if (UCS_PTR_IS_ERR(r)) {
        PGDDS_LOG(LOG_ERROR, "ucx: receiving a %zu-byte active message failed: %s", length,
                  ucs_status_string(UCS_PTR_STATUS(r)));
        free(buf);
        return UCS_OK;
    }
    if (r == nullptr) {
        v.owner->deliver_am(v.index, buf, length);
        free(buf);
        return UCS_OK;
    }
    *static_cast<request_info *>(r) = request_info{&v, nullptr, -1, "active message", buf, length, nullptr, 0};
    return UCS_INPROGRESS;
}

// ---------------------------------------------------------------------------------------------
// Data path
// ---------------------------------------------------------------------------------------------
// Completes an operation that UCX finished at once, or attaches the caller's completion to the
// request that finishes it later.
status transport_ucx::issued(ucs_status_ptr_t r, vci_state &v, int rank, const char *what, op_completion *done)
{
    if (r == nullptr) {
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    if (UCS_PTR_IS_ERR(r)) {
        ucs_status_t s = UCS_PTR_STATUS(r);
        return s == UCS_ERR_NO_RESOURCE ? PGDDS_ERR_AGAIN : v.error(rank, s, what);
    }
    *static_cast<request_info *>(r) = request_info{&v, done, rank, what, nullptr, 0, nullptr, 0};
    return PGDDS_OK;
}

status transport_ucx::put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n, op_completion *done)
{
    vci_state &v = *vcis_[vci];
    vci_state::peer &p = v.peers[rank];
    if (PGDDS_UNLIKELY(p.failed != UCS_OK)) return v.error(rank, p.failed, "put");
    status st = out_of_segment(p, offset, n, "put");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    ++v.writes;
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
    prm.cb.send = on_send_done;
    return issued(ucp_put_nbx(p.ep, src, n, p.base + offset, p.rkey, &prm), v, rank, "put", done);
}

status transport_ucx::get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n, op_completion *done)
{
    vci_state &v = *vcis_[vci];
    vci_state::peer &p = v.peers[rank];
    if (PGDDS_UNLIKELY(p.failed != UCS_OK)) return v.error(rank, p.failed, "get");
    status st = out_of_segment(p, offset, n, "get");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    // UCX carries a get on its shared-memory transports as a request that the target's progress
    // answers (UCX 1.13): where it maps the peer's segment, and no write of this VCI could still
    // be on its way to it, the get is a copy.
    if (p.direct && v.writes == v.writes_flushed) {
        memcpy(dst, p.direct + offset, n);
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
    prm.cb.send = on_send_done;
    return issued(ucp_get_nbx(p.ep, dst, n, p.base + offset, p.rkey, &prm), v, rank, "get", done);
}

status transport_ucx::amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done)
{
    vci_state &v = *vcis_[vci];
    vci_state::peer &p = v.peers[rank];
    if (PGDDS_UNLIKELY(p.failed != UCS_OK)) return v.error(rank, p.failed, "atomic");
    if (PGDDS_UNLIKELY(args.width != 4 && args.width != 8))
        return fail(PGDDS_ERR_INVALID_ARG, "ucx: an atomic of width %u", args.width);
    status st = out_of_segment(p, offset, args.width, "atomic");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    ++v.writes;
    const bool bitwise = args.op == AMO_AND || args.op == AMO_OR || args.op == AMO_XOR;
    if (args.result && bitwise && p.emulate_fetch_bitwise) return cas_loop_start(v, rank, p.base + offset, args, done);

    ucp_atomic_op_t op;
    uint64_t value = args.operand;
    void *reply = args.result;
    switch (args.op) {
    case AMO_ADD: op = UCP_ATOMIC_OP_ADD; break;
    case AMO_AND: op = UCP_ATOMIC_OP_AND; break;
    case AMO_OR: op = UCP_ATOMIC_OP_OR; break;
    case AMO_XOR: op = UCP_ATOMIC_OP_XOR; break;
    case AMO_SWAP:
        op = UCP_ATOMIC_OP_SWAP;
        if (!reply) reply = &v.discard;  // UCX swaps only with a reply buffer
        break;
    case AMO_CSWAP:
        // UCX compares with `buffer` and takes the new value from the reply buffer.
        op = UCP_ATOMIC_OP_CSWAP;
        value = args.compare;
        memcpy(reply, &args.operand, args.width);
        break;
    case AMO_LOAD:
        op = UCP_ATOMIC_OP_ADD;
        value = 0;
        break;
    default: return fail(PGDDS_ERR_INVALID_ARG, "ucx: unknown atomic operation %d", int(args.op));
    }
    uint32_t value32 = uint32_t(value);  // UCX reads the operand when the call is made
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_DATATYPE |
                       (reply ? UCP_OP_ATTR_FIELD_REPLY_BUFFER : 0);
    prm.cb.send = on_send_done;
    prm.datatype = ucp_dt_make_contig(args.width);
    prm.reply_buffer = reply;
    const void *buffer = args.width == 4 ? static_cast<const void *>(&value32) : static_cast<const void *>(&value);
    ucs_status_ptr_t r = ucp_atomic_op_nbx(p.ep, op, buffer, 1, p.base + offset, p.rkey, &prm);
    return issued(r, v, rank, "atomic", done);
}

namespace {

// Whether the attempt that just completed swapped; if not, the next one compares with the
// value it found.
bool cas_attempt_done(transport_ucx::cas_loop &c)
{
    uint64_t old = c.width == 4 ? c.reply.u32 : c.reply.u64;
    if (old == c.expected) {
        memcpy(c.result, &old, c.width);
        return true;
    }
    c.expected = old;
    return false;
}

void on_cas_done(void *request, ucs_status_t s, void *);

// Runs attempts until one is in flight (finished = false), one swapped (finished = true), or
// issuing fails.
status cas_run(transport_ucx::cas_loop &c, bool &finished)
{
    transport_ucx::vci_state::peer &p = c.v->peers[c.rank];
    for (;;) {
        uint64_t next = amo_next_word(c.op, c.width, c.expected, c.operand);
        if (c.width == 4) {
            c.compare.u32 = uint32_t(c.expected);
            c.reply.u32 = uint32_t(next);
        } else {
            c.compare.u64 = c.expected;
            c.reply.u64 = next;
        }
        ucp_request_param_t prm;
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        prm.cb.send = on_cas_done;
        prm.datatype = ucp_dt_make_contig(c.width);
        prm.reply_buffer = &c.reply;
        ucs_status_ptr_t r = ucp_atomic_op_nbx(p.ep, UCP_ATOMIC_OP_CSWAP, &c.compare, 1, c.remote_addr, p.rkey, &prm);
        if (UCS_PTR_IS_ERR(r)) {
            ucs_status_t s = UCS_PTR_STATUS(r);
            return s == UCS_ERR_NO_RESOURCE ? PGDDS_ERR_AGAIN : c.v->error(c.rank, s, "atomic");
        }
        if (r != nullptr) {
            *static_cast<request_info *>(r) = request_info{c.v, nullptr, c.rank, "atomic", nullptr, 0, &c, 0};
            finished = false;
            return PGDDS_OK;
        }
        if (cas_attempt_done(c)) {
            finished = true;
            return PGDDS_OK;
        }
    }
}

void cas_end(transport_ucx::cas_loop *c, status st)
{
    if (c->done) c->done->complete(st);
    else c->v->deferred.keep(st);
    transport_ucx::vci_state &v = *c->v;
    delete c;
    if (--v.cas_loops == 0) {
        for (op_completion *w : v.loop_waiters) w->complete(PGDDS_OK);
        v.loop_waiters.clear();
    }
}

void on_cas_done(void *request, ucs_status_t s, void *)
{
    auto *info = static_cast<request_info *>(request);
    transport_ucx::cas_loop *c = info->loop;
    ucp_request_free(request);
    if (s != UCS_OK) return cas_end(c, c->v->error(c->rank, s, "atomic"));
    if (cas_attempt_done(*c)) return cas_end(c, PGDDS_OK);
    bool finished = false;
    status st = cas_run(*c, finished);
    // Out of resources inside a callback: nothing can wait here, so it counts as a failure.
    if (st != PGDDS_OK || finished)
        cas_end(c, st == PGDDS_ERR_AGAIN ? fail(PGDDS_ERR_TRANSPORT, "ucx: atomic to rank %d: out of resources", c->rank)
                                         : st);
}

}  // namespace

status transport_ucx::cas_loop_start(vci_state &v, int rank, uint64_t remote_addr, const amo_args &args,
                                     op_completion *done)
{
    vci_state::peer &p = v.peers[rank];
    auto *c = new (std::nothrow) cas_loop{&v, rank, remote_addr, args.op, args.width, args.operand, 0, {0}, {0},
                                          args.result, done};
    if (!c) return fail(PGDDS_ERR_NO_MEMORY, "ucx: out of host memory for an atomic");
    // A first guess read through the mapping saves an attempt when the word is not contended.
    uint8_t *word = p.direct + (remote_addr - p.base);
    c->expected = args.width == 4 ? __atomic_load_n(reinterpret_cast<uint32_t *>(word), __ATOMIC_RELAXED)
                                  : __atomic_load_n(reinterpret_cast<uint64_t *>(word), __ATOMIC_RELAXED);
    v.cas_loops++;
    bool finished = false;
    status st = cas_run(*c, finished);
    if (st != PGDDS_OK) {
        v.cas_loops--;
        delete c;
        return st;
    }
    if (finished) cas_end(c, PGDDS_OK);
    return PGDDS_OK;
}

status transport_ucx::flush(unsigned vci, op_completion *done)
{
    vci_state &v = *vcis_[vci];
    if (v.deferred.pending()) {
        done->complete(v.deferred.take());
        return PGDDS_OK;
    }
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
    prm.cb.send = on_flush_done;
    // Emulated atomics still running may issue attempts this worker flush does not cover; the
    // flush completes when they have finished too (and then covers no write for direct gets).
    if (v.cas_loops) {
        done->add();
        v.loop_waiters.push_back(done);
    }
    const uint64_t upto = v.cas_loops ? v.writes_flushed : v.writes;
    ucs_status_ptr_t r = ucp_worker_flush_nbx(v.worker, &prm);
    status st = issued(r, v, -1, "flush", done);
    if (st == PGDDS_OK && r == nullptr) v.writes_flushed = upto;
    else if (st == PGDDS_OK) static_cast<request_info *>(r)->flushed_upto = upto;
    if (st != PGDDS_OK && v.cas_loops) {
        v.loop_waiters.pop_back();
        done->pending.fetch_sub(1, std::memory_order_relaxed);
    }
    return st;
}

// UCX orders operations issued after ucp_worker_fence behind those issued before it, without
// waiting for them. An emulated atomic still running issues its attempts later, and a failure
// kept for the next flush must be reported: both take a flush.
status transport_ucx::fence(unsigned vci, op_completion *done)
{
    vci_state &v = *vcis_[vci];
    if (v.deferred.pending() || v.cas_loops) return flush(vci, done);
    ucs_status_t s = ucp_worker_fence(v.worker);
    if (s != UCS_OK) return v.error(-1, s, "fence");
    done->complete(PGDDS_OK);
    return PGDDS_OK;
}

status transport_ucx::progress(unsigned vci)
{
    ucp_worker_progress(vcis_[vci]->worker);
    return PGDDS_OK;
}

// ---------------------------------------------------------------------------------------------
// Active messages
// ---------------------------------------------------------------------------------------------
status transport_ucx::am_send(unsigned vci, int rank, const void *packet, size_t len)
{
    vci_state &v = *vcis_[vci];
    vci_state::peer &p = v.peers[rank];
    if (PGDDS_UNLIKELY(p.failed != UCS_OK)) return v.error(rank, p.failed, "active message");
    if (PGDDS_UNLIKELY(len > am_max_packet()))
        return fail(PGDDS_ERR_INVALID_ARG, "ucx: a packet of %zu bytes exceeds the %zu this transport carries", len,
                    am_max_packet());
    if (v.am_in_flight && v.am_in_flight + len > am_in_flight_limit) return PGDDS_ERR_AGAIN;
    // The caller reuses the packet on return, but UCX may still read it later: send a copy.
    uint8_t *copy = v.take_buffer(len);
    if (!copy) return fail(PGDDS_ERR_NO_MEMORY, "ucx: out of host memory for a %zu-byte active message", len);
    memcpy(copy, packet, len);
    ucp_request_param_t prm;
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
    prm.cb.send = on_am_sent;
    ucs_status_ptr_t r = ucp_am_send_nbx(p.ep, am_id, nullptr, 0, copy, len, &prm);
    if (!UCS_PTR_IS_PTR(r)) {
        v.return_buffer(copy, len);
        if (r == nullptr) return PGDDS_OK;
        ucs_status_t s = UCS_PTR_STATUS(r);
        return s == UCS_ERR_NO_RESOURCE ? PGDDS_ERR_AGAIN : v.error(rank, s, "active message");
    }
    *static_cast<request_info *>(r) = request_info{&v, nullptr, rank, "active message", copy, len, nullptr, 0};
    v.am_in_flight += len;
    return PGDDS_OK;
}

void transport_ucx::deliver_am(unsigned vci, const void *data, size_t len) { host_->am_incoming(vci, data, len); }

}  // namespace pgdds
