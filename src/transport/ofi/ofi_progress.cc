#include "ofi_internal.h"

namespace pgdds {

namespace {

const char *kind_name(op_kind k)
{
    switch (k) {
    case op_kind::write: return "a put";
    case op_kind::read: return "a get";
    case op_kind::atomic: return "an atomic";
    case op_kind::fetch: return "a fetching atomic";
    case op_kind::probe: return "a flush read-back";
    case op_kind::send: return "a message";
    case op_kind::recv: return "a receive";
    case op_kind::free: break;
    }
    return "an operation";
}

bool is_peer_failure(int err)
{
    switch (err) {
    case ECONNRESET: case ECONNREFUSED: case ECONNABORTED: case ENOTCONN: case EPIPE:
    case EHOSTUNREACH: case EHOSTDOWN: case ENETUNREACH: case ENETDOWN: case ETIMEDOUT:
        return true;
    }
    return false;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Completions, errors and backlogs
// ---------------------------------------------------------------------------------------------
status transport_ofi::op_failed(ssize_t rc, const char *what, int rank, size_t n, unsigned vci) const
{
    int err = int(-rc);
    if (is_peer_failure(err))
        return fail(PGDDS_ERR_PEER_FAILED, "ofi: rank %d is unreachable: %s of %zu bytes on VCI %u failed: %s", rank,
                    what, n, vci, fi_strerror(err));
    return fail(PGDDS_ERR_TRANSPORT, "ofi: %s of %zu bytes to rank %d on VCI %u failed: %s (%d)", what, n, rank, vci,
                fi_strerror(err), -err);
}

// The end of a counted or uncounted operation: its completion, its resources, its record.
void transport_ofi::finish(endpoint &e, op_record &rec, status st)
{
    if (rec.done) rec.done->complete(st);
    else e.deferred.keep(st);
    if (rec.reg) release_registration(rec.reg);
    if (rec.slot >= 0) e.free_slots.push_back(uint32_t(rec.slot));
    if (rec.counted) --e.outstanding;
    release_record(e, rec);
}

// Work the provider had no room for: receive buffers to post again, chunks.
status transport_ofi::drain_backlogs(endpoint &e, unsigned vci)
{
    while (!e.unposted.empty()) {
        uint32_t s = e.unposted.back();
        ssize_t rc = fi_recv(e.ep, e.recv_slot(s), e.slot_bytes, e.arena_desc, FI_ADDR_UNSPEC, &e.receives[s].context);
        if (rc == -FI_EAGAIN) break;
        if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "posting a receive buffer on VCI %u", vci);
        e.unposted.pop_back();
    }
    while (!e.backlog.empty()) {
        rma_chunk &c = e.backlog.front();
        status st = issue_chunk(e, vci, c);
        if (st == PGDDS_ERR_AGAIN) break;
        if (st != PGDDS_OK) {
            if (c.done) c.done->complete(st);
            else e.deferred.keep(st);
            if (c.reg) release_registration(c.reg);
        }
        e.backlog.pop_front();
    }
    return PGDDS_OK;
}

status transport_ofi::handle_completion(endpoint &e, unsigned vci, op_record &rec, size_t len)
{
    switch (rec.kind) {
    case op_kind::recv: {
        uint32_t s = uint32_t(rec.slot);
        handle_message(vci, e.recv_slot(s), len);
        ssize_t rc = fi_recv(e.ep, e.recv_slot(s), e.slot_bytes, e.arena_desc, FI_ADDR_UNSPEC, &rec.context);
        if (rc == -FI_EAGAIN) e.unposted.push_back(s);
        else if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "posting a receive buffer on VCI %u", vci);
        return PGDDS_OK;
    }
    case op_kind::read:
        if (rec.slot >= 0) memcpy(rec.result, e.send_slot(size_t(rec.slot)), rec.length);
        break;
    case op_kind::fetch:
        if (rec.result) memcpy(rec.result, &rec.scratch[2], rec.length);
        break;
    case op_kind::free:
        PGDDS_LOG(LOG_ERROR, "ofi: a completion for no operation in flight on VCI %u", vci);
        return PGDDS_OK;
    default: break;
    }
    finish(e, rec, PGDDS_OK);
    return PGDDS_OK;
}

status transport_ofi::handle_error(endpoint &e, unsigned vci)
{
    fi_cq_err_entry err{};
    ssize_t rc = fi_cq_readerr(e.cq, &err, 0);
    if (rc == -FI_EAGAIN) return PGDDS_OK;
    if (rc < 0) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_cq_readerr on VCI %u", vci);
    char prov_text[256] = "";
    const char *prov = fi_cq_strerror(e.cq, err.prov_errno, err.err_data, prov_text, sizeof prov_text);
    if (!prov) prov = "";
    auto *rec = static_cast<op_record *>(err.op_context);
    if (!rec)
        return fail(PGDDS_ERR_TRANSPORT, "ofi: an operation on VCI %u failed: %s (provider: %s)", vci,
                    fi_strerror(err.err), prov);
    if (rec->kind == op_kind::recv) {
        if (err.err == FI_ECANCELED) return PGDDS_OK;
        e.unposted.push_back(uint32_t(rec->slot));
        return fail(PGDDS_ERR_TRANSPORT, "ofi: a receive on VCI %u failed: %s (provider: %s)", vci, fi_strerror(err.err),
                    prov);
    }
    status st = is_peer_failure(err.err)
        ? fail(PGDDS_ERR_PEER_FAILED, "ofi: rank %d is unreachable: %s on VCI %u failed: %s (provider: %s)", rec->rank,
               kind_name(rec->kind), vci, fi_strerror(err.err), prov)
        : fail(PGDDS_ERR_TRANSPORT, "ofi: %s to rank %d on VCI %u failed: %s (provider: %s)", kind_name(rec->kind),
               rec->rank, vci, fi_strerror(err.err), prov);
    finish(e, *rec, st);
    return PGDDS_OK;
}

status transport_ofi::progress(unsigned vci)
{
    endpoint &e = *eps_[vci];
    status st = drain_backlogs(e, vci);
    if (st != PGDDS_OK) return st;
    fi_cq_msg_entry entries[cq_batch];
    for (int round = 0; round < 4; ++round) {
        ssize_t n = fi_cq_read(e.cq, entries, cq_batch);
        if (n == -FI_EAGAIN) break;
        if (n == -FI_EAVAIL) {
            st = handle_error(e, vci);
            if (st != PGDDS_OK) return st;
            continue;
        }
        if (n < 0) return call_failed(PGDDS_ERR_TRANSPORT, n, "fi_cq_read on VCI %u", vci);
        for (ssize_t i = 0; i < n; ++i) {
            if (!entries[i].op_context) continue;
            st = handle_completion(e, vci, *static_cast<op_record *>(entries[i].op_context), entries[i].len);
            if (st != PGDDS_OK) return st;
        }
        if (n < cq_batch) break;
    }
    complete_flushes(e);
    return PGDDS_OK;
}

}  // namespace pgdds
