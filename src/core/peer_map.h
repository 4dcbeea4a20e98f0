// The peer map of a runtime: who the job's ranks are and where they live (node, pid), how far
// each one's segment reaches, which segments are mapped here for loads and stores, which
// transport carries active messages to each peer, and the atomicity domain that follows from it.
// Its lookups are on the data path of every operation: they stay inline.
#pragma once

#include "../base/common.h"
#include "gptr.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace pgdds {

class transport;

// The segment's header, never handed out nor addressable: its first page, so that no valid global
// pointer is ever PGDDS_GPTR_NULL or close to it (network flushes read a word of it), then the
// collective slots of the world and node teams (collectives.cc), which the ranks of a node read
// and write by load and store.
constexpr uint64_t segment_guard = 4096;
constexpr uint64_t segment_reserved = 40960;

class peer_map {
  public:
    // --- identity and placement (set by exchange_node_info at start-up) ---------------------
    int rank() const { return rank_; }
    int nranks() const { return nranks_; }
    int local_rank() const { return local_rank_; }
    int local_nranks() const { return local_nranks_; }
    int nnodes() const { return nnodes_; }
    bool is_local(int r) const { return node_of_[r] == node_of_[rank_]; }
    pid_t pid_of(int r) const { return pid_of_[r]; }

    // --- segments and routes (set by connect_all at start-up) -------------------------------
    uint64_t peer_segment_size(int r) const { return peer_size_[r]; }
    uint8_t *peer_base(int r) const { return peer_base_[r]; }
    // The transport that carries active messages to rank r: shm mailboxes or the network.
    transport *am_route(int r) const { return am_route_[r]; }
    // The job's atomicity domain is the CPU for every target (one node, segments mapped).
    bool cpu_atomics() const { return cpu_atomics_; }
    // An atomic on rank r's segment may be a CPU atomic: r's segment is mapped here and the
    // domain is the CPU for it (every target, or the transport's atomics run on the target's CPU).
    bool cpu_atomics_on(int r) const { return node_cpu_atomics_ && peer_base_[r]; }
    bool node_cpu_atomics() const { return node_cpu_atomics_; }

    // Whether p names n bytes of its rank's segment, past the reserved start.
    bool in_segment(pgdds_gptr_t p, size_t n) const
    {
        int r = gptr::rank(p);
        uint64_t off = gptr::offset(p);
        return r < nranks_ && gptr::segment(p) == 0 && off >= segment_reserved && off + n <= peer_size_[r] &&
               off + n >= off;
    }
    // Checks that [p, p+n) lies in the target's segment (and that an atomic of width bytes is
    // aligned), explaining failures as "who: ...".
    status check_access(const char *who, pgdds_gptr_t p, size_t n, unsigned atomic_width = 0) const
    {
        if (PGDDS_UNLIKELY(!in_segment(p, n))) return access_error(who, p, n);
        uint64_t off = gptr::offset(p);
        if (PGDDS_UNLIKELY(atomic_width && (off & (atomic_width - 1))))
            return fail(PGDDS_ERR_INVALID_ARG, "%s: target offset 0x%llx on rank %d is not %u-byte aligned",
                        who, (unsigned long long)off, gptr::rank(p), atomic_width);
        return PGDDS_OK;
    }
    // The load/store address of a checked global pointer, or nullptr if it must go through
    // the transport.
    uint8_t *direct(pgdds_gptr_t p) const
    {
        uint8_t *b = peer_base_[gptr::rank(p)];
        return b ? b + gptr::offset(p) : nullptr;
    }
    // The load/store address of n bytes at p if they are a valid access through a mapped peer;
    // nullptr otherwise (check_access then says what is wrong, or the transport carries it).
    uint8_t *direct_access(pgdds_gptr_t p, size_t n) const { return in_segment(p, n) ? direct(p) : nullptr; }

    // --- filled in by the start-up steps (startup.cc) ---------------------------------------
    void set_identity(int rank, int nranks)
    {
        rank_ = rank;
        nranks_ = nranks;
    }
    // Records each rank's node (any id, equal for ranks on one node) and pid, and derives this
    // rank's place on its node.
    void set_placement(std::vector<int> node_of, std::vector<pid_t> pid_of, int nnodes);
    // Every peer's segment size, then the mapped base and active-message route of each.
    void set_segment_sizes(std::vector<uint64_t> sizes)
    {
        peer_size_ = std::move(sizes);
        peer_base_.assign(peer_size_.size(), nullptr);
        am_route_.assign(peer_size_.size(), nullptr);
    }
    void set_route(int r, uint8_t *base, transport *am_route)
    {
        peer_base_[r] = base;
        am_route_[r] = am_route;
    }
    // Whether every peer's segment is mapped here.
    bool all_direct() const;
    void set_atomics(bool cpu_everywhere, bool cpu_on_node)
    {
        cpu_atomics_ = cpu_everywhere;
        node_cpu_atomics_ = cpu_on_node;
    }

  private:
    status access_error(const char *who, pgdds_gptr_t p, size_t n) const;

    int rank_ = 0, nranks_ = 1, local_rank_ = 0, local_nranks_ = 1, nnodes_ = 1;
    std::vector<int> node_of_;
    std::vector<pid_t> pid_of_;
    std::vector<uint8_t *> peer_base_;
    std::vector<uint64_t> peer_size_;
    std::vector<transport *> am_route_;
    bool cpu_atomics_ = false;
    bool node_cpu_atomics_ = false;  // CPU atomics on mapped segments (see cpu_atomics_on)
};

}  // namespace pgdds
