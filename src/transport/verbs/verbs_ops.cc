#include "verbs_internal.h"

#include "../../base/log.h"

#include <algorithm>
#include <cstring>

namespace pgdds {

namespace {

// Stores a fetched value of `width` bytes where the caller wants it.
void store_value(void *dst, uint64_t value, unsigned width)
{
    if (width == 4) {
        uint32_t v32 = uint32_t(value);
        memcpy(dst, &v32, sizeof v32);
    } else {
        memcpy(dst, &value, sizeof value);
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Posting and completions
// ---------------------------------------------------------------------------------------------
template <class Build>
status transport_verbs::post(vci_state &v, int rank, const wr_action &action, bool needs_completion, Build build)
{
    vci_state::peer_qp &q = v.qps[rank];
    if (PGDDS_UNLIKELY(q.failed != PGDDS_OK)) return fail(q.failed, "%s", q.failure.c_str());
    if (q.sq.free_slots() == 0) return PGDDS_ERR_AGAIN;
    bool holds = action.kind != wr_action::plain || action.done || action.mr;
    bool signaled = q.sq.should_signal(needs_completion || holds);
    uint64_t seq = q.sq.next_seq();
    ibv_send_wr wr;
    ibv_sge sge;
    build(wr, sge, signaled, verbs::send_wr_id(rank, seq));
    ibv_send_wr *bad = nullptr;
    int rc = ibv_post_send(q.qp, &wr, &bad);
    if (rc != 0)
        return rc == ENOMEM ? PGDDS_ERR_AGAIN
                            : fail(PGDDS_ERR_TRANSPORT, "verbs: posting to rank %d on VCI %u failed: %s", rank, v.index,
                                   strerror(rc));
    q.actions[seq % q.sq.depth()] = action;
    q.sq.posted(signaled);
    return PGDDS_OK;
}

status transport_verbs::wc_error(vci_state &v, int rank, int wc_status)
{
    vci_state::peer_qp &q = v.qps[rank];
    if (q.failed != PGDDS_OK) return fail(q.failed, "%s", q.failure.c_str());
    // The transport gave up on the peer: it died, or the path to it did.
    bool unreachable = wc_status == IBV_WC_RETRY_EXC_ERR || wc_status == IBV_WC_RNR_RETRY_EXC_ERR;
    status st = fail(unreachable ? PGDDS_ERR_PEER_FAILED : PGDDS_ERR_TRANSPORT,
                     "verbs: an operation to rank %d on VCI %u failed: %s%s", rank, v.index,
                     ibv_wc_status_str(ibv_wc_status(wc_status)), unreachable ? " (the rank is unreachable)" : "");
    q.failed = st;
    q.failure = pgdds_last_error();
    return st;
}

void transport_verbs::run_action(vci_state &v, wr_action &a, status st)
{
    switch (a.kind) {
    case wr_action::loop_step: {
        amo_loop *l = a.loop;
        if (st != PGDDS_OK) return loop_finish(v, l, st);
        if (l->state.attempt_returned(v.results[l->slot])) return loop_finish(v, l, PGDDS_OK);
        st = loop_advance(v, l);
        if (st == PGDDS_ERR_AGAIN) v.stalled.push_back(l);
        else if (st != PGDDS_OK) loop_finish(v, l, st);
        return;
    }
    case wr_action::bounce_get:
        if (st == PGDDS_OK) memcpy(a.user, v.bounce_at(a.slot), a.length);
        v.free_bounce.push_back(a.slot);
        break;
    case wr_action::bounce: v.free_bounce.push_back(a.slot); break;
    case wr_action::result:
        if (st == PGDDS_OK && a.user) store_value(a.user, verbs::lane_value(v.results[a.slot], a.width, a.offset), a.width);
        v.free_results.push_back(a.slot);
        break;
    case wr_action::plain: break;
    }
    if (a.mr) ibv_dereg_mr(a.mr);
    if (a.done) a.done->complete(st);
    else v.deferred.keep(st);
}

// WR `seq` of the QP to `rank` completed with `st`: every earlier WR completed before it.
void transport_verbs::retire(vci_state &v, int rank, uint64_t seq, status st)
{
    vci_state::peer_qp &q = v.qps[rank];
    // Take the actions out before running them: a loop step may post into the freed slots.
    v.retiring.clear();
    uint32_t retired = q.sq.completed_through(seq);
    if (retired == 0) {
        PGDDS_LOG(LOG_ERROR, "verbs: a completion from rank %d on VCI %u names no outstanding work request", rank, v.index);
        return;
    }
    for (uint64_t s = seq + 1 - retired; s <= seq; ++s) {
        wr_action &slot = q.actions[s % q.sq.depth()];
        v.retiring.push_back(slot);
        slot = wr_action{};
    }
    for (size_t i = 0; i < v.retiring.size(); ++i) run_action(v, v.retiring[i], i + 1 == v.retiring.size() ? st : PGDDS_OK);
}

status transport_verbs::progress(unsigned vci)
{
    vci_state &v = *vcis_[vci];
    ibv_wc wc[16];
    int n = ibv_poll_cq(v.cq, 16, wc);
    if (n < 0) return fail(PGDDS_ERR_TRANSPORT, "verbs: polling the CQ of VCI %u failed", vci);
    for (int i = 0; i < n; ++i) {
        if (verbs::is_recv_wr_id(wc[i].wr_id)) {
            uint32_t buf = verbs::wr_buffer(wc[i].wr_id);
            if (wc[i].status == IBV_WC_WR_FLUSH_ERR) continue;  // the SRQ is being torn down
            if (wc[i].status == IBV_WC_SUCCESS)
                host_->am_incoming(vci, v.recv + size_t(buf) * packet_bytes, wc[i].byte_len);
            else
                PGDDS_LOG(LOG_ERROR, "verbs: a receive on VCI %u failed: %s", vci, ibv_wc_status_str(wc[i].status));
            ibv_sge sge{uint64_t(uintptr_t(v.recv + size_t(buf) * packet_bytes)), uint32_t(packet_bytes), v.recv_mr->lkey};
            ibv_recv_wr wr;
            memset(&wr, 0, sizeof wr);
            wr.wr_id = wc[i].wr_id;
            wr.sg_list = &sge;
            wr.num_sge = 1;
            ibv_recv_wr *bad = nullptr;
            int rc = ibv_post_srq_recv(v.srq, &wr, &bad);
            if (rc != 0) return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot repost a receive on VCI %u: %s", vci, strerror(rc));
            continue;
        }
        int rank = verbs::wr_peer(wc[i].wr_id);
        if (rank >= host_->nranks()) {
            PGDDS_LOG(LOG_ERROR, "verbs: a completion on VCI %u names rank %d", vci, rank);
            continue;
        }
        uint64_t seq = v.qps[rank].sq.sequence_of(verbs::wr_seq_low(wc[i].wr_id));
        status st = wc[i].status == IBV_WC_SUCCESS ? PGDDS_OK : wc_error(v, rank, wc[i].status);
        retire(v, rank, seq, st);
    }
    if (!v.stalled.empty()) {
        std::vector<amo_loop *> waiting;
        waiting.swap(v.stalled);
        for (amo_loop *l : waiting) {
            status st = loop_advance(v, l);
            if (st == PGDDS_ERR_AGAIN) v.stalled.push_back(l);
            else if (st != PGDDS_OK) loop_finish(v, l, st);
        }
    }
    if (!v.flushes.empty()) check_flushes(v);
    return PGDDS_OK;
}

// ---------------------------------------------------------------------------------------------
// Data path
// ---------------------------------------------------------------------------------------------
status transport_verbs::rdma(unsigned vci, int rank, uint64_t offset, void *local, size_t n, bool is_put,
                             op_completion *done)
{
    vci_state &v = *vcis_[vci];
    vci_state::peer_qp &q = v.qps[rank];
    if (PGDDS_UNLIKELY(q.failed != PGDDS_OK)) return fail(q.failed, "%s", q.failure.c_str());
    if (n == 0) {
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    const size_t pieces = (n + max_msg_ - 1) / max_msg_;
    if (q.sq.free_slots() < pieces) return PGDDS_ERR_AGAIN;

    auto *bytes = static_cast<uint8_t *>(local);
    wr_action a;
    uint64_t laddr = uint64_t(uintptr_t(bytes));
    uint32_t lkey = 0;
    bool complete_now = false;  // the source is free once posted: an inline or bounced put
    if (is_put && verbs::use_inline(uint32_t(std::min<size_t>(n, UINT32_MAX)), max_inline_)) {
        complete_now = true;
    } else if (bytes >= seg_base_ && bytes + n <= seg_base_ + seg_size_) {
        lkey = seg_mr_->lkey;
        a.done = done;
    } else if (n <= packet_bytes) {
        if (v.free_bounce.empty()) return PGDDS_ERR_AGAIN;
        a.slot = v.free_bounce.back();
        laddr = uint64_t(uintptr_t(v.bounce_at(a.slot)));
        lkey = v.bounce_mr->lkey;
        if (is_put) {
            memcpy(v.bounce_at(a.slot), local, n);
            a.kind = wr_action::bounce;
            complete_now = true;
        } else {
            a.kind = wr_action::bounce_get;
            a.user = local;
            a.length = uint32_t(n);
            a.done = done;
        }
    } else {
        a.mr = ibv_reg_mr(pd_, local, n, is_put ? 0 : IBV_ACCESS_LOCAL_WRITE);
        if (!a.mr)
            return fail(errno == ENOMEM ? PGDDS_ERR_NO_MEMORY : PGDDS_ERR_TRANSPORT,
                        "verbs: cannot register %zu bytes at %p for a %s to rank %d: %s", n, local, is_put ? "put" : "get",
                        rank, strerror(errno));
        lkey = a.mr->lkey;
        a.done = done;
    }
    const uint64_t remote = peer_base_[rank] + offset;
    const ibv_wr_opcode opcode = is_put ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
    for (size_t off = 0; off < n; off += max_msg_) {
        size_t len = std::min<size_t>(n - off, max_msg_);
        bool last = off + len == n;
        local_buffer lb{laddr + off, uint32_t(len), lkey};
        status st = post(v, rank, last ? a : wr_action{}, false, [&](ibv_send_wr &wr, ibv_sge &sge, bool sig, uint64_t id) {
            verbs::build_rdma(wr, sge, opcode, lb, remote + off, peer_rkey_[rank], max_inline_, sig, id);
        });
        if (st != PGDDS_OK) {
            // Only the first piece can fail on a healthy QP (there was room for all of them).
            if (off == 0 && a.mr) ibv_dereg_mr(a.mr);
            return st;
        }
    }
    if (a.kind == wr_action::bounce || a.kind == wr_action::bounce_get) v.free_bounce.pop_back();
    if (complete_now && done) done->complete(PGDDS_OK);
    return PGDDS_OK;
}

status transport_verbs::put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n, op_completion *done)
{
    return rdma(vci, rank, offset, const_cast<void *>(src), n, true, done);
}

status transport_verbs::get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n, op_completion *done)
{
    return rdma(vci, rank, offset, dst, n, false, done);
}

status transport_verbs::amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done)
{
    vci_state &v = *vcis_[vci];
    if (PGDDS_UNLIKELY(v.qps[rank].failed != PGDDS_OK))
        return fail(v.qps[rank].failed, "%s", v.qps[rank].failure.c_str());
    if (v.free_results.empty()) return PGDDS_ERR_AGAIN;
    const uint64_t addr = peer_base_[rank] + offset;
    const uint32_t slot = v.free_results.back();
    const verbs::amo_method method = verbs::method_for(args.op, args.width);

    if (method == verbs::amo_method::cas_loop) {
        auto *l = new (std::nothrow) amo_loop{
            rank, verbs::word_of(addr),
            verbs::cas_loop(args.op, args.operand, args.compare, args.width, verbs::lane_offset(addr)), args.result,
            done, slot};
        if (!l) return fail(PGDDS_ERR_NO_MEMORY, "verbs: out of host memory for an atomic");
        status st = loop_advance(v, l);
        if (st != PGDDS_OK) {
            delete l;
            return st;
        }
        v.free_results.pop_back();
        v.loops++;
        return PGDDS_OK;
    }
    wr_action a;
    a.kind = wr_action::result;
    a.width = uint8_t(args.width);
    a.offset = uint8_t(verbs::lane_offset(addr));
    a.slot = slot;
    a.done = done;
    a.user = args.result;
    const bool cas = method == verbs::amo_method::compare_swap;
    const uint64_t compare_add = cas ? args.compare : args.op == AMO_LOAD ? 0 : args.operand;
    local_buffer result{uint64_t(uintptr_t(&v.results[slot])), sizeof(uint64_t), v.results_mr->lkey};
    status st = post(v, rank, a, true, [&](ibv_send_wr &wr, ibv_sge &sge, bool sig, uint64_t id) {
        verbs::build_atomic(wr, sge, cas, result, verbs::word_of(addr), peer_rkey_[rank], compare_add, args.operand, sig, id);
    });
    if (st == PGDDS_OK) v.free_results.pop_back();
    return st;
}

// Posts the next attempt of a loop, or finishes it when it needs none.
status transport_verbs::loop_advance(vci_state &v, amo_loop *l)
{
    uint64_t expected, desired;
    if (!l->state.next_attempt(expected, desired)) {
        loop_finish(v, l, PGDDS_OK);
        return PGDDS_OK;
    }
    wr_action a;
    a.kind = wr_action::loop_step;
    a.loop = l;
    local_buffer result{uint64_t(uintptr_t(&v.results[l->slot])), sizeof(uint64_t), v.results_mr->lkey};
    return post(v, l->rank, a, true, [&](ibv_send_wr &wr, ibv_sge &sge, bool sig, uint64_t id) {
        verbs::build_atomic(wr, sge, true, result, l->word_addr, peer_rkey_[l->rank], expected, desired, sig, id);
    });
}

void transport_verbs::loop_finish(vci_state &v, amo_loop *l, status st)
{
    if (st == PGDDS_OK && l->result) store_value(l->result, l->state.fetched(), l->state.width());
    v.free_results.push_back(l->slot);
    if (l->done) l->done->complete(st);
    else v.deferred.keep(st);
    v.loops--;
    delete l;
}

status transport_verbs::flush(unsigned vci, op_completion *done)
{
    vci_state &v = *vcis_[vci];
    if (v.deferred.pending()) {
        done->complete(v.deferred.take());
        return PGDDS_OK;
    }
    vci_state::pending_flush f{done, {}};
    for (int r = 0; r < host_->nranks(); ++r) {
        vci_state::peer_qp &q = v.qps[r];
        if (q.sq.idle()) continue;
        if (q.failed != PGDDS_OK) {
            done->complete(fail(q.failed, "%s", q.failure.c_str()));
            return PGDDS_OK;
        }
        // Unsignaled WRs at the tail would only be seen complete after a signaled one.
        if (q.sq.tail_unsignaled()) {
            status st = post(v, r, wr_action{}, true, [&](ibv_send_wr &wr, ibv_sge &, bool, uint64_t id) {
                verbs::build_fence_write(wr, peer_base_[r], peer_rkey_[r], id);
            });
            if (st != PGDDS_OK) return st;  // AGAIN: fences posted so far only cost a completion
        }
        f.targets.emplace_back(r, q.sq.next_seq() - 1);
    }
    if (f.targets.empty() && v.loops == 0) {
        done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    v.flushes.push_back(std::move(f));
    return PGDDS_OK;
}

void transport_verbs::check_flushes(vci_state &v)
{
    for (size_t i = 0; i < v.flushes.size();) {
        vci_state::pending_flush &f = v.flushes[i];
        status st = PGDDS_OK;
        bool complete = v.loops == 0;
        for (auto &t : f.targets) {
            vci_state::peer_qp &q = v.qps[t.first];
            if (q.failed != PGDDS_OK) {
                st = fail(q.failed, "%s", q.failure.c_str());
                break;
            }
            complete = complete && q.sq.reached(t.second);
        }
        if (st == PGDDS_OK && !complete) {
            ++i;
            continue;
        }
        f.done->complete(st);
        v.flushes.erase(v.flushes.begin() + long(i));
    }
}

// ---------------------------------------------------------------------------------------------
// Active messages
// ---------------------------------------------------------------------------------------------
status transport_verbs::am_send(unsigned vci, int rank, const void *packet, size_t len)
{
    vci_state &v = *vcis_[vci];
    wr_action a;
    local_buffer lb{uint64_t(uintptr_t(packet)), uint32_t(len), 0};
    if (!verbs::use_inline(uint32_t(len), max_inline_)) {
        if (v.free_bounce.empty()) return PGDDS_ERR_AGAIN;
        a.kind = wr_action::bounce;
        a.slot = v.free_bounce.back();
        memcpy(v.bounce_at(a.slot), packet, len);
        lb = local_buffer{uint64_t(uintptr_t(v.bounce_at(a.slot))), uint32_t(len), v.bounce_mr->lkey};
    }
    status st = post(v, rank, a, false, [&](ibv_send_wr &wr, ibv_sge &sge, bool sig, uint64_t id) {
        verbs::build_send(wr, sge, lb, max_inline_, sig, id);
    });
    if (st == PGDDS_OK && a.kind == wr_action::bounce) v.free_bounce.pop_back();
    return st;
}

}  // namespace pgdds
