// The libfabric transport: RDM endpoints of one provider (shm, tcp;ofi_rxm, verbs;ofi_rxm, cxi,
// efa, ...). One fabric; per VCI one endpoint with its own completion queue, and endpoint i of
// every rank talks to endpoint i of every peer. The endpoints share one domain and address
// vector, or each VCI has its own with its own registrations (PGDDS_OFI_DOMAINS): a provider
// may serialize a domain's operations under one lock, as shm does for every RMA a target serves.
//
// Put/get are fi_write/fi_read (fi_inject_write when small), atomics fi_atomic / fi_fetch_atomic
// / fi_compare_atomic when the provider validates every operation we need; otherwise the backend
// reports no atomics (transport_caps::amo_ops) and the core serves them in software over active
// messages (src/core/soft_atomics.h). Active-message packets travel as fi_send into pre-posted
// buffers, behind a small wire header.
//
// The class is implemented in one file per role; ofi_internal.h lists them and holds what they
// share.
#pragma once

#include "../transport.h"

#include <rdma/fabric.h>

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <vector>

struct fid_fabric;
struct fid_domain;
struct fid_av;
struct fid_mr;

namespace pgdds {

// Choices a test can force on one transport instance to reach paths that the providers of a
// given machine do not need; the runtime always uses the defaults.
struct ofi_options {
    bool local_descriptors = false;  // give every local buffer a descriptor, as FI_MR_LOCAL demands
    uint64_t mr_mode_offer = ~uint64_t(0);  // narrows the mr_mode bits offered to fi_getinfo
    size_t max_transfer = 0;         // split transfers above this many bytes (0: max_msg_size)
    bool delivery_complete = false;  // flush by FI_DELIVERY_COMPLETE even where a read-back would do
    int domains = -1;                // 1 shared, 2 one per VCI; -1: PGDDS_OFI_DOMAINS decides
};

class transport_ofi final : public transport {
  public:
    explicit transport_ofi(const ofi_options &opts = ofi_options());
    ~transport_ofi() override;
    transport_ofi(const transport_ofi &) = delete;
    transport_ofi &operator=(const transport_ofi &) = delete;

    // Every libfabric provider with RDM endpoints, and whether pgdds would run over it.
    void probe(std::vector<transport_probe_entry> &out) const override;
    const char *settings_prefix() const override { return "PGDDS_OFI_"; }
    const char *name() const override { return name_.c_str(); }
    transport_caps caps() const override;
    status open(transport_host &host) override;
    status register_segment(void *base, size_t size) override;
    status address(std::vector<uint8_t> &blob) override;
    status connect(const std::vector<std::vector<uint8_t>> &peers) override;
    void close() override;

    status put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n, op_completion *done) override;
    status get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n, op_completion *done) override;
    status amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done) override;
    status flush(unsigned vci, op_completion *done) override;
    status fence(unsigned vci, op_completion *done) override;
    status progress(unsigned vci) override;
    size_t am_max_packet() const override;
    status am_send(unsigned vci, int rank, const void *packet, size_t len) override;

    // What open() chose, for tests and pgdds-info.
    uint64_t mr_mode() const { return mr_mode_; }
    size_t max_transfer() const { return max_transfer_; }
    bool flushes_by_delivery_complete() const { return delivery_complete_puts_; }
    bool fences_by_ordering() const { return ordered_; }
    size_t domains() const { return domains_.size(); }

    struct endpoint;
    struct op_record;
    struct registration;
    struct rma_chunk;

  private:
    bool opened() const { return !eps_.empty() && eps_.size() == nendpoints_; }
    status select_provider(const std::string &wanted);
    status open_domains();
    status open_endpoint(unsigned index);
    status validate_atomics();
    void choose_flush_method();

    status start_rma(unsigned vci, bool write, int rank, uint64_t offset, uint8_t *local, size_t n,
                     op_completion *done);
    status issue_chunk(endpoint &e, unsigned vci, const rma_chunk &c);
    status issue_probe(endpoint &e, unsigned vci, int rank, bool atomic);
    status send_message(endpoint &e, unsigned vci, int rank, uint32_t kind, const void *body, size_t len);

    status handle_completion(endpoint &e, unsigned vci, op_record &rec, size_t len);
    status handle_error(endpoint &e, unsigned vci);
    void handle_message(unsigned vci, const uint8_t *msg, size_t len);
    status drain_backlogs(endpoint &e, unsigned vci);
    status issue_backlog(endpoint &e, unsigned vci);
    void finish(endpoint &e, op_record &rec, status st);
    void complete_flushes(endpoint &e);
    void mark_dirty(endpoint &e, int rank, uint8_t what);

    op_record *take_record(endpoint &e);
    void release_record(endpoint &e, op_record &rec);
    status register_local(void *buf, size_t len, unsigned vci, registration *&out);
    void release_registration(registration *reg);
    status bind_mr(fid_mr *mr, unsigned vci, const char *what);

    uint64_t remote_address(int rank, uint64_t offset) const;
    status out_of_segment(int rank, uint64_t offset, size_t n, const char *what) const;
    uint64_t remote_key(int rank, unsigned vci) const;
    fi_addr_t peer_address(int rank, unsigned vci) const;
    void *segment_descriptor(unsigned vci) const;
    bool in_segment(const void *p, size_t n) const;
    status op_failed(ssize_t rc, const char *what, int rank, size_t n, unsigned vci) const;

    ofi_options opts_;
    transport_host *host_ = nullptr;
    std::string name_ = "ofi";
    int rank_ = 0, nranks_ = 1;
    unsigned nendpoints_ = 0;

    fi_info *info_ = nullptr;
    fid_fabric *fabric_ = nullptr;
    std::vector<fid_domain *> domains_;  // one, or one per VCI
    std::vector<fid_av *> avs_;          // one per domain
    std::vector<std::unique_ptr<endpoint>> eps_;

    uint64_t mr_mode_ = 0;
    bool local_mr_ = false;        // local buffers need descriptors
    size_t inject_size_ = 0;
    size_t max_transfer_ = 0;      // largest single fi_write/fi_read
    size_t packet_bytes_ = 0;      // receive buffer size: wire header + AM packet
    bool emulated_atomics_ = false;  // the provider's atomics are not used: the core's software atomics serve
    std::string atomics_note_;
    bool manual_progress_ = true;
    bool delivery_complete_puts_ = false;  // flush by FI_DELIVERY_COMPLETE instead of a read-back
    bool delivery_complete_amos_ = false;
    bool ordered_ = false;  // the provider applies puts and atomics to one peer in order
    std::atomic<uint64_t> next_key_{1};  // requested keys must be unique within a domain

    uint8_t *seg_base_ = nullptr;
    size_t seg_size_ = 0;
    std::vector<fid_mr *> seg_mrs_;  // one, or one per endpoint (FI_MR_ENDPOINT, or a domain per VCI)
    std::vector<uint64_t> seg_keys_;

    std::vector<uint64_t> peer_base_;   // [rank]
    std::vector<uint64_t> peer_size_;   // [rank]: segment lengths
    std::vector<uint64_t> peer_keys_;   // [rank * nendpoints_ + vci]
    std::vector<fi_addr_t> peer_addrs_; // [rank * nendpoints_ + vci]
};

}  // namespace pgdds
