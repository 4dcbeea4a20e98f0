// The on-node transport: every rank's segment lives in a POSIX shared-memory file (job-unique
// name, mode 0600, unlinked once every local peer has mapped it), so put/get to a rank on this
// node are memcpy and atomics are CPU atomics, with no help from the target. Active messages go
// through one multi-producer mailbox per VCI in the same file.
//
// It is the whole transport of a one-node job (PGDDS_TRANSPORT=shm, the default there) and the
// on-node path beside a network transport (PGDDS_SHM=auto|on).
#pragma once

#include "../transport.h"

#include <string>
#include <vector>

namespace pgdds {

struct shm_mailbox;

class transport_shm final : public transport {
  public:
    static constexpr size_t slot_bytes = 4096;
    static constexpr uint32_t slots_per_mailbox = 256;

    const char *settings_prefix() const override { return "PGDDS_SHM_"; }
    const char *name() const override { return "shm"; }
    transport_caps caps() const override;
    status open(transport_host &host) override;
    bool allocates_segment() const override { return true; }
    status alloc_segment(size_t size, void **base) override;
    status back_segment(uint64_t offset, uint64_t len) override;
    status register_segment(void *, size_t) override { return PGDDS_OK; }
    status address(std::vector<uint8_t> &blob) override;
    status connect(const std::vector<std::vector<uint8_t>> &peers) override;
    void *peer_pointer(int rank) override;
    void close() override;

    status put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n, op_completion *done) override;
    status get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n, op_completion *done) override;
    status amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done) override;
    status flush(unsigned vci, op_completion *done) override;
    status progress(unsigned vci) override;
    size_t am_max_packet() const override;
    status am_send(unsigned vci, int rank, const void *packet, size_t len) override;

    // Free space of /dev/shm in MiB (0 when it cannot be read), for messages.
    static double dev_shm_free_mib();
    // Removes this rank's file name once every local peer has mapped it.
    void peers_connected() override { unlink_own(); }
    ~transport_shm() override;

  private:
    struct peer_map {
        uint8_t *base = nullptr;   // whole file
        size_t length = 0;
        uint8_t *segment = nullptr;
        size_t segment_size = 0;
        unsigned endpoints = 0;
    };
    status check_range(int rank, uint64_t offset, size_t n, const char *what) const;
    shm_mailbox *mailbox(int rank, unsigned vci);
    void unlink_own();

    transport_host *host_ = nullptr;
    std::string file_name_;
    bool linked_ = false;
    int fd_ = -1;                 // this rank's file, open while mapped: back_segment allocates in it
    size_t header_bytes_ = 0;
    size_t segment_offset_ = 0;   // of the segment in the file, past the header and mailboxes
    std::vector<peer_map> peers_;
    std::vector<uint64_t> heads_;  // consumer position of each of my mailboxes
};

}  // namespace pgdds
