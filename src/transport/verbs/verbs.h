// The ibverbs transport: RC queue pairs on one device port.
//
// Resource sharing follows Zambre's study of RDMA resource sharing between threads (thesis
// ch. 3): one device context, protection domain and segment MR shared by every VCI, which
// costs nothing in throughput; per VCI, private QPs (one per peer, itself included) in a
// thread domain, a private single-threaded CQ and a private SRQ, so that no VCI ever takes a
// lock or touches another's queues.
//
// Data path: RDMA WRITE (inline up to the QP's max_inline_data) and READ; 64-bit fetch-and-add
// and compare-and-swap natively; every other atomic, and all 32-bit ones, as compare-and-swap
// loops on the containing 64-bit word. Local buffers outside the registered segment go through
// registered bounce slots (up to packet_bytes) or a registration made for the operation.
// Sends are unsignaled except when their completion is awaited or frees a resource, and every
// sq_depth/4-th send (verbs_logic.h: send_queue).
//
// Active messages: SEND into the peer's shared receive queue (one per VCI, srq_size buffers of
// packet_bytes, reposted as soon as a packet is handed to the runtime). There is no credit
// scheme: RC's receiver-not-ready retry, set to infinite, holds a sender back until the
// receiver progresses.
//
// Set-up is in verbs.cc, the data path in verbs_ops.cc, the logic testable without a device in
// verbs_logic.cc; verbs_internal.h holds what the first two share.
#pragma once

#include "verbs_logic.h"

#include <memory>
#include <string>
#include <vector>

namespace pgdds {

class transport_verbs final : public transport {
  public:
    static constexpr size_t packet_bytes = 8192;
    static constexpr uint32_t bounce_slots = 64;    // per VCI, packet_bytes each
    static constexpr uint32_t result_slots = 1024;  // per VCI, 8 bytes each

    transport_verbs() = default;
    ~transport_verbs() override;

    const char *settings_prefix() const override { return "PGDDS_VERBS_"; }
    const char *name() const override { return "verbs/rc"; }
    transport_caps caps() const override;
    void probe(std::vector<transport_probe_entry> &out) const override;
    status open(transport_host &host) override;
    status register_segment(void *base, size_t size) override;
    status address(std::vector<uint8_t> &blob) override;
    status connect(const std::vector<std::vector<uint8_t>> &peers) override;
    void close() override;

    status put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n, op_completion *done) override;
    status get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n, op_completion *done) override;
    status amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done) override;
    status flush(unsigned vci, op_completion *done) override;
    status progress(unsigned vci) override;
    size_t am_max_packet() const override { return packet_bytes; }
    status am_send(unsigned vci, int rank, const void *packet, size_t len) override;

    struct vci_state;
    struct amo_loop;
    struct wr_action;

  private:
    status open_device();
    status create_vci(unsigned index);
    status create_qp(vci_state &v, int peer);
    // Posts one WR built by build(wr, sge, signaled, wr_id) and records what its completion does.
    template <class Build> status post(vci_state &v, int rank, const wr_action &action, bool needs_completion, Build build);
    status rdma(unsigned vci, int rank, uint64_t offset, void *local, size_t n, bool is_put, op_completion *done);
    void retire(vci_state &v, int rank, uint64_t seq, status st);
    void run_action(vci_state &v, wr_action &a, status st);
    status loop_advance(vci_state &v, amo_loop *loop);
    void loop_finish(vci_state &v, amo_loop *loop, status st);
    status wc_error(vci_state &v, int rank, int wc_status);
    void check_flushes(vci_state &v);

    transport_host *host_ = nullptr;
    std::string device_;
    ibv_context *ctx_ = nullptr;
    ibv_pd *pd_ = nullptr;
    ibv_mr *seg_mr_ = nullptr;
    uint8_t *seg_base_ = nullptr;
    size_t seg_size_ = 0;
    verbs::port_address port_;
    verbs::resource_plan plan_;
    int inline_request_ = -1;  // max_inline_data asked of every QP, once the first settled it
    uint32_t max_inline_ = 0;  // what the QPs offer
    uint64_t max_msg_ = 0;
    std::vector<std::unique_ptr<vci_state>> vcis_;
    std::vector<uint32_t> peer_rkey_;
    std::vector<uint64_t> peer_base_;
};

}  // namespace pgdds
