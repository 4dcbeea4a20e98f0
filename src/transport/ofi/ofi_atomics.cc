#include "ofi_internal.h"

#include "../../base/amo.h"

namespace pgdds {

// ---------------------------------------------------------------------------------------------
// Atomics
// ---------------------------------------------------------------------------------------------
status transport_ofi::amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done)
{
    if ((args.width != 4 && args.width != 8) || args.op < AMO_ADD || args.op >= AMO_COUNT)
        return fail(PGDDS_ERR_INVALID_ARG, "ofi: atomic %d of width %u is not supported", int(args.op), args.width);
    status st = out_of_segment(rank, offset, args.width, "atomic");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    endpoint &e = *eps_[vci];
    return emulated_atomics_ ? amo_emulated(e, vci, rank, offset, args, done)
                             : amo_native(e, vci, rank, offset, args, done);
}

status transport_ofi::amo_native(endpoint &e, unsigned vci, int rank, uint64_t offset, const amo_args &args,
                                 op_completion *done)
{
    static const fi_op ops[AMO_COUNT] = {FI_SUM, FI_BAND, FI_BOR, FI_BXOR, FI_ATOMIC_WRITE, FI_CSWAP, FI_ATOMIC_READ};
    const fi_datatype dt = args.width == 4 ? FI_UINT32 : FI_UINT64;
    const fi_op op = ops[args.op];
    const bool fetching = args.result || args.op == AMO_CSWAP || args.op == AMO_LOAD;
    const fi_addr_t addr = peer_address(rank, vci);
    const uint64_t raddr = remote_address(rank, offset), key = remote_key(rank, vci);
    const uint32_t operand32 = uint32_t(args.operand), compare32 = uint32_t(args.compare);
    const void *operand = args.width == 4 ? static_cast<const void *>(&operand32) : &args.operand;

    if (!fetching && !delivery_complete_amos_) {
        ssize_t rc = fi_inject_atomic(e.ep, operand, 1, addr, raddr, key, dt, op);
        if (rc == -FI_EAGAIN) return PGDDS_ERR_AGAIN;
        if (rc) return op_failed(rc, "fi_inject_atomic", rank, args.width, vci);
        mark_dirty(e, rank, dirty_amo);
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }

    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    memcpy(&rec->scratch[0], operand, args.width);
    memcpy(&rec->scratch[1], args.width == 4 ? static_cast<const void *>(&compare32) : &args.compare, args.width);
    void *desc = e.arena_desc;
    fi_ioc ioc{&rec->scratch[0], 1}, compare{&rec->scratch[1], 1}, result{&rec->scratch[2], 1};
    fi_rma_ioc rioc{raddr, 1, key};
    fi_msg_atomic msg{&ioc, &desc, 1, addr, &rioc, 1, dt, op, &rec->context, 0};
    // A non-fetching atomic comes this way only to be delivery-complete.
    uint64_t flags = FI_COMPLETION | (fetching ? 0 : FI_DELIVERY_COMPLETE);
    ssize_t rc = args.op == AMO_CSWAP ? fi_compare_atomicmsg(e.ep, &msg, &compare, &desc, 1, &result, &desc, 1, flags)
               : fetching             ? fi_fetch_atomicmsg(e.ep, &msg, &result, &desc, 1, flags)
                                      : fi_atomicmsg(e.ep, &msg, flags);
    if (rc) {
        release_record(e, *rec);
        return rc == -FI_EAGAIN ? PGDDS_ERR_AGAIN : op_failed(rc, "an atomic", rank, args.width, vci);
    }
    track(e, *rec, fetching ? op_kind::fetch : op_kind::atomic, rank, done);
    rec->result = args.result;
    rec->length = args.width;
    return PGDDS_OK;
}

// Emulation: the target executes a CPU atomic on its own segment and replies, so every atomic
// of the job lives in one atomicity domain, the targets' CPUs. Atomics on our own segment take
// the same loopback path: done at once, they would complete without progress, and a rank
// spinning on its own word would never serve its peers' requests.
status transport_ofi::amo_emulated(endpoint &e, unsigned vci, int rank, uint64_t offset, const amo_args &args,
                                   op_completion *done)
{
    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    amo_request req{uint32_t(args.op), args.width, offset, args.operand, args.compare,
                    uint64_t(rec->generation) << 32 | rec->index};
    op_record *carrier = nullptr;
    status st = send_message(e, vci, rank, msg_amo_request, &req, sizeof req, &carrier);
    if (st != PGDDS_OK) {
        release_record(e, *rec);
        return st;
    }
    if (carrier) carrier->linked = int(rec->index);
    track(e, *rec, op_kind::remote_amo, rank, done);
    rec->result = args.result;
    rec->length = args.width;
    return PGDDS_OK;
}

void transport_ofi::serve_amo_request(endpoint &e, unsigned vci, int src, const uint8_t *body, size_t len)
{
    amo_request req;
    if (len != sizeof req || src < 0 || src >= nranks_) {
        PGDDS_LOG(LOG_ERROR, "ofi: dropped a malformed atomic request (%zu bytes from rank %d)", len, src);
        return;
    }
    memcpy(&req, body, sizeof req);
    pending_reply out{src, amo_reply{req.id, 0, PGDDS_OK, 0}};
    if ((req.width != 4 && req.width != 8) || req.op >= AMO_COUNT || req.offset > seg_size_ ||
        seg_size_ - req.offset < req.width || req.offset % req.width) {
        out.reply.status = PGDDS_ERR_OUT_OF_BOUNDS;
    } else {
        amo_args a{amo_op(req.op), req.width, req.operand, req.compare, &out.reply.value};
        cpu_amo(seg_base_ + req.offset, a);
    }
    if (e.replies.empty()) {
        status st = send_message(e, vci, src, msg_amo_reply, &out.reply, sizeof out.reply, nullptr);
        if (st == PGDDS_OK) return;
        if (st != PGDDS_ERR_AGAIN) {
            PGDDS_LOG(LOG_ERROR, "ofi: cannot answer rank %d's atomic: %s", src, pgdds_last_error());
            return;
        }
    }
    e.replies.push_back(out);
}

void transport_ofi::take_amo_reply(endpoint &e, const uint8_t *body, size_t len)
{
    amo_reply rep;
    if (len != sizeof rep) {
        PGDDS_LOG(LOG_ERROR, "ofi: dropped a malformed atomic reply (%zu bytes)", len);
        return;
    }
    memcpy(&rep, body, sizeof rep);
    uint32_t index = uint32_t(rep.id), generation = uint32_t(rep.id >> 32);
    if (index >= e.records.size() || e.records[index].kind != op_kind::remote_amo ||
        e.records[index].generation != generation) {
        PGDDS_LOG(LOG_ERROR, "ofi: dropped a reply to no atomic in flight (id %#llx)", (unsigned long long)rep.id);
        return;
    }
    op_record &rec = e.records[index];
    status st = PGDDS_OK;
    if (rep.status != PGDDS_OK)
        st = fail(PGDDS_ERR_OUT_OF_BOUNDS, "ofi: rank %d refused an emulated atomic: the target lies outside its "
                  "segment", rec.rank);
    else if (rec.result)
        memcpy(rec.result, &rep.value, rec.length);
    finish(e, rec, st);
}

}  // namespace pgdds
