#include "ofi_internal.h"


namespace pgdds {

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------
size_t transport_ofi::am_max_packet() const { return packet_bytes_ - sizeof(wire_header); }

status transport_ofi::am_send(unsigned vci, int rank, const void *packet, size_t len)
{
    if (len > am_max_packet())
        return fail(PGDDS_ERR_INVALID_ARG, "ofi: a packet of %zu bytes exceeds the %zu this transport carries", len,
                    am_max_packet());
    return send_message(*eps_[vci], vci, rank, msg_am, packet, len);
}

// Sends wire header + body: injected when small enough, else from a send slot released at
// completion.
status transport_ofi::send_message(endpoint &e, unsigned vci, int rank, uint32_t kind, const void *body, size_t len)
{
    wire_header h{kind, rank_};
    const size_t total = sizeof h + len;
    if (total <= inject_size_) {
        memcpy(e.staging.data(), &h, sizeof h);
        if (len) memcpy(e.staging.data() + sizeof h, body, len);
        ssize_t rc = fi_inject(e.ep, e.staging.data(), total, peer_address(rank, vci));
        if (rc == -FI_EAGAIN) return PGDDS_ERR_AGAIN;
        return rc ? op_failed(rc, "fi_inject", rank, total, vci) : PGDDS_OK;
    }
    if (e.free_slots.empty()) return PGDDS_ERR_AGAIN;
    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    uint32_t slot = e.free_slots.back();
    uint8_t *buf = e.send_slot(slot);
    memcpy(buf, &h, sizeof h);
    if (len) memcpy(buf + sizeof h, body, len);
    ssize_t rc = fi_send(e.ep, buf, total, e.arena_desc, peer_address(rank, vci), &rec->context);
    if (rc) {
        release_record(e, *rec);
        return rc == -FI_EAGAIN ? PGDDS_ERR_AGAIN : op_failed(rc, "fi_send", rank, total, vci);
    }
    e.free_slots.pop_back();
    rec->kind = op_kind::send;
    rec->rank = rank;
    rec->slot = int(slot);
    return PGDDS_OK;
}

void transport_ofi::handle_message(unsigned vci, const uint8_t *msg, size_t len)
{
    wire_header h;
    if (len < sizeof h) {
        PGDDS_LOG(LOG_ERROR, "ofi: dropped a truncated message (%zu bytes) on VCI %u", len, vci);
        return;
    }
    memcpy(&h, msg, sizeof h);
    const uint8_t *body = msg + sizeof h;
    const size_t body_len = len - sizeof h;
    switch (h.kind) {
    case msg_am: host_->am_incoming(vci, body, body_len); break;
    default: PGDDS_LOG(LOG_ERROR, "ofi: dropped a message of unknown kind %u from rank %d", h.kind, h.src); break;
    }
}

}  // namespace pgdds
