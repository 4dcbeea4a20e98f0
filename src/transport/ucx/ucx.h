// The UCX transport: one ucp_context per process, one ucp_worker per VCI (num_endpoints(): the
// user VCIs plus the service VCI), worker i connected to worker i of every rank, itself
// included. Each worker has its own endpoints and its own copy of every peer's unpacked rkey
// (an rkey is only valid on the endpoint it was unpacked on).
//
// The segment is allocated by UCX (ucp_mem_map with UCP_MEM_MAP_ALLOCATE) when the runtime lets
// the transport own it: on UCX's shared-memory transports peers then map it (ucp_rkey_ptr,
// peer_pointer), and put, get and atomics complete without the target's help. When the on-node
// shm path is active the runtime allocates the segment in its own shared-memory file and this
// backend only registers it.
//
// Operations are ucp_*_nbx calls whose completion callback completes the caller's
// op_completion; requests carry a request_info in UCP's per-request user area (request_size).
// Failures of operations nobody waits for are reported by the next flush. flush is
// ucp_worker_flush_nbx: every operation of the VCI complete at its target.
//
// Fetching AND/OR/XOR run as compare-and-swap loops on endpoints whose atomics go through a
// CPU-memory transport (posix, sysv, xpmem, self) to a mapped segment: UCX 1.13.1 as Debian
// builds it returns the right old value there but writes the wrong result.
//
// Active messages: ucp_am_send_nbx of a copy of the packet (the caller reuses it on return);
// packets above UCX's eager limit arrive as rendezvous and are fetched with
// ucp_am_recv_data_nbx before they go to the runtime.
//
// Peer failure: endpoints to other nodes use UCP_ERR_HANDLING_MODE_PEER (an error handler
// marks the peer failed, operations then fail with PGDDS_ERR_PEER_FAILED); on this node that
// mode would rule out UCX's shared-memory transports, and the runtime watches local processes.
//
// Set-up is in ucx.cc, the data path in ucx_ops.cc; ucx_internal.h holds what they share.
#pragma once

#include "../transport.h"

#include <ucp/api/ucp.h>

#include <memory>
#include <string>
#include <vector>

namespace pgdds {

class transport_ucx final : public transport {
  public:
    // Largest active-message packet. Bigger than UCX's eager limit on purpose: large packets
    // travel by rendezvous and land with one copy.
    static constexpr size_t am_packet_bytes = size_t(1) << 20;

    transport_ucx() = default;
    ~transport_ucx() override;

    const char *settings_prefix() const override { return "PGDDS_UCX_"; }
    const char *name() const override { return name_.c_str(); }
    transport_caps caps() const override;
    void probe(std::vector<transport_probe_entry> &out) const override;
    status open(transport_host &host) override;
    bool allocates_segment() const override { return true; }
    status alloc_segment(size_t size, void **base) override;
    status register_segment(void *base, size_t size) override;
    status address(std::vector<uint8_t> &blob) override;
    status connect(const std::vector<std::vector<uint8_t>> &peers) override;
    void *peer_pointer(int rank) override;
    void close() override;

    status put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n, op_completion *done) override;
    status get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n, op_completion *done) override;
    status amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done) override;
    status flush(unsigned vci, op_completion *done) override;
    status fence(unsigned vci, op_completion *done) override;
    status progress(unsigned vci) override;
    size_t am_max_packet() const override { return am_packet_bytes; }
    status am_send(unsigned vci, int rank, const void *packet, size_t len) override;

    // Hands a received packet to the runtime (from inside progress(vci)).
    void deliver_am(unsigned vci, const void *data, size_t len);

    struct vci_state;
    struct cas_loop;

  private:
    status issued(ucs_status_ptr_t r, vci_state &v, int rank, const char *what, op_completion *done);
    status cas_loop_start(vci_state &v, int rank, uint64_t remote_addr, const amo_args &args, op_completion *done);
    void close_endpoints();

    transport_host *host_ = nullptr;
    std::string name_ = "ucx";
    ucp_context_h context_ = nullptr;
    std::vector<std::unique_ptr<vci_state>> vcis_;
    ucp_mem_h memh_ = nullptr;
    bool allocated_ = false;       // memh_ is UCX-allocated memory (not the runtime's)
    uint8_t *seg_base_ = nullptr;
    size_t seg_size_ = 0;
    bool shared_memory_only_ = false;  // every transport of the context is on-node memory
    bool connected_ = false;
    bool atomics_on_cpu_ = false;      // every peer's atomics are CPU atomics (see connect)
};

}  // namespace pgdds
