// The pure logic of the verbs transport, apart from every device call so that it is tested on
// machines without an RDMA device (tests/unit/test_verbs.cc): device selection syntax,
// connection data, queue-pair state transitions, resource sizing, send-queue signaling,
// work-request building, and the arithmetic of atomics emulated with compare-and-swap.
#pragma once

#include "../transport.h"

#include <infiniband/verbs.h>

#include <string>
#include <vector>

namespace pgdds {
namespace verbs {

// --- device selection ----------------------------------------------------------------------
// PGDDS_VERBS_DEVICE: "" (first device with an ACTIVE port), "mlx5_0" (its first ACTIVE port)
// or "mlx5_0:1".
struct device_spec {
    std::string name;  // empty: any device
    int port = 0;      // 0: the first ACTIVE port
};
bool parse_device_spec(const std::string &text, device_spec &out);

// --- connection data -----------------------------------------------------------------------
// What a peer needs to address this rank's port.
struct port_address {
    uint16_t lid = 0;
    uint8_t port = 0;
    uint8_t link_layer = IBV_LINK_LAYER_INFINIBAND;
    uint8_t mtu = IBV_MTU_1024;  // enum ibv_mtu: the port's active MTU
    uint8_t gid_index = 0;
    uint8_t gid[16] = {};
};

struct qp_address {
    uint32_t qpn = 0;
    uint32_t psn = 0;
};

// One rank's address blob: its port, its segment's key and address, and the QP it created
// for every (VCI, peer) pair.
struct connection_info {
    port_address port;
    uint32_t rkey = 0;
    uint64_t seg_base = 0;
    uint64_t seg_size = 0;
    uint32_t vcis = 0;
    uint32_t ranks = 0;
    std::vector<qp_address> qps;  // [vci * ranks + peer]

    const qp_address &qp(unsigned vci, int peer) const { return qps[size_t(vci) * ranks + size_t(peer)]; }
};

std::vector<uint8_t> encode_connection(const connection_info &c);
// Rejects, with an explanation naming `rank`, anything a corrupt or foreign blob could hold:
// wrong size, magic or version, other VCI or rank counts, QPNs and PSNs beyond 24 bits, an
// unaddressable port (no LID on InfiniBand, no GID on Ethernet), an invalid MTU, no segment.
status decode_connection(const std::vector<uint8_t> &blob, int rank, uint32_t vcis, uint32_t ranks,
                         connection_info &out);

// --- queue-pair state transitions ----------------------------------------------------------
struct qp_transition {
    ibv_qp_attr attr;
    int mask;
};

constexpr unsigned segment_access =
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

qp_transition qp_to_init(uint8_t port);
// RTR towards the remote QP; the path MTU is the smaller of both ports'. A GRH is used on
// Ethernet (RoCE) and whenever the remote has no LID.
qp_transition qp_to_rtr(const port_address &local, const port_address &remote, uint32_t remote_qpn,
                        uint32_t remote_psn, uint8_t max_dest_rd_atomic);
qp_transition qp_to_rts(uint32_t psn, uint8_t max_rd_atomic);

// --- resource sizing -----------------------------------------------------------------------
struct device_limits {
    uint32_t max_qp_wr = 0;
    uint32_t max_cqe = 0;
    uint32_t max_srq_wr = 0;
    uint32_t max_qp_rd_atom = 0;
    uint32_t max_qp_init_rd_atom = 0;
};

// Per VCI: one QP per peer with sq_depth send WRs, one SRQ of srq_size receives, and one CQ
// large enough for every WR of every QP and every receive, so that it can never overrun.
struct resource_plan {
    uint32_t sq_depth = 0;
    uint32_t signal_interval = 0;
    uint32_t srq_size = 0;
    uint32_t cq_size = 0;
    uint8_t rd_atomic = 0;  // outstanding RDMA READs/atomics per QP, both directions
};

status plan_resources(const device_limits &dev, int ranks, resource_plan &out);

// --- send-queue tracking and signaling -------------------------------------------------------
// Work requests of one QP are numbered in posting order. RC completes them in order, so the
// completion of a signaled WR retires every earlier one. A WR is signaled when someone waits
// for it or it holds a resource (bounce buffer, result slot, registration), and otherwise
// every signal_interval-th WR, so at most signal_interval - 1 unsignaled WRs trail the last
// signaled one: a full queue always contains a signaled WR whose completion frees it.
class send_queue {
  public:
    send_queue() = default;
    send_queue(uint32_t depth, uint32_t signal_interval) : depth_(depth), interval_(signal_interval) {}

    uint32_t depth() const { return depth_; }
    uint32_t outstanding() const { return uint32_t(posted_ - completed_); }
    uint32_t free_slots() const { return depth_ - outstanding(); }
    uint64_t next_seq() const { return posted_; }
    bool idle() const { return posted_ == completed_; }
    // WR `seq` and every earlier one have completed.
    bool reached(uint64_t seq) const { return completed_ > seq; }
    // The newest WR is unsignaled: its completion will only be seen after a signaled one.
    bool tail_unsignaled() const { return !idle() && since_signal_ > 0; }
    uint32_t unsignaled_tail() const { return since_signal_; }

    bool should_signal(bool needs_completion) const { return needs_completion || since_signal_ + 1 >= interval_; }
    void posted(bool signaled)
    {
        ++posted_;
        since_signal_ = signaled ? 0 : since_signal_ + 1;
    }
    // The sequence number whose low 32 bits a completion's wr_id carries: the first one at or
    // after `base` with those bits (every outstanding WR is less than 2^32 after base).
    static uint64_t sequence_near(uint64_t base, uint32_t low) { return base + uint32_t(low - uint32_t(base)); }
    uint64_t sequence_of(uint32_t low) const { return sequence_near(completed_, low); }
    // WR `seq` completed: it and every earlier one are done. Returns how many were retired
    // (0 for a sequence number that is not outstanding).
    uint32_t completed_through(uint64_t seq)
    {
        if (seq < completed_ || seq >= posted_) return 0;
        uint32_t n = uint32_t(seq + 1 - completed_);
        completed_ = seq + 1;
        return n;
    }

  private:
    uint32_t depth_ = 0;
    uint32_t interval_ = 1;
    uint64_t posted_ = 0;
    uint64_t completed_ = 0;
    uint32_t since_signal_ = 0;  // unsignaled WRs posted since the last signaled one
};

// --- work requests ---------------------------------------------------------------------------
// Send WR ids carry the peer and the low 32 bits of the sequence number; receive WR ids have
// the top bit set and carry the receive buffer's index.
inline uint64_t send_wr_id(int peer, uint64_t seq) { return uint64_t(uint32_t(peer)) << 32 | uint32_t(seq); }
inline uint64_t recv_wr_id(uint32_t buffer) { return uint64_t(1) << 63 | buffer; }
inline bool is_recv_wr_id(uint64_t id) { return id >> 63; }
inline int wr_peer(uint64_t id) { return int(uint32_t(id >> 32) & 0x7fffffffu); }
inline uint32_t wr_seq_low(uint64_t id) { return uint32_t(id); }
inline uint32_t wr_buffer(uint64_t id) { return uint32_t(id); }

struct local_buffer {
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
};

// Small writes and sends are copied into the WQE: no registration needed, and the buffer is
// free as soon as ibv_post_send returns.
inline bool use_inline(uint32_t length, uint32_t max_inline) { return length > 0 && length <= max_inline; }

// An RDMA WRITE or READ of local.length bytes (inline for small writes).
void build_rdma(ibv_send_wr &wr, ibv_sge &sge, ibv_wr_opcode opcode, const local_buffer &local, uint64_t remote_addr,
                uint32_t rkey, uint32_t max_inline, bool signaled, uint64_t wr_id);
// A zero-length signaled RDMA WRITE: completes after every earlier WR of its QP.
void build_fence_write(ibv_send_wr &wr, uint64_t remote_addr, uint32_t rkey, uint64_t wr_id);
// A 64-bit fetch-and-add or compare-and-swap; the old value lands in `result` (8 bytes,
// registered). The remote address must be 8-byte aligned.
void build_atomic(ibv_send_wr &wr, ibv_sge &sge, bool compare_swap, const local_buffer &result, uint64_t remote_addr,
                  uint32_t rkey, uint64_t compare_add, uint64_t swap, bool signaled, uint64_t wr_id);
// A SEND of an active-message packet (inline when small).
void build_send(ibv_send_wr &wr, ibv_sge &sge, const local_buffer &packet, uint32_t max_inline, bool signaled,
                uint64_t wr_id);

// --- atomics ---------------------------------------------------------------------------------
// InfiniBand has 64-bit fetch-and-add and compare-and-swap. 64-bit ADD and CSWAP are native,
// LOAD is a fetch-and-add of 0 (64-bit) or of 0 on the containing word (32-bit); every other
// operation is a compare-and-swap loop on the containing aligned 64-bit word.
enum class amo_method { fetch_add, compare_swap, cas_loop };
amo_method method_for(amo_op op, unsigned width);

inline uint64_t word_of(uint64_t addr) { return addr & ~uint64_t(7); }
inline unsigned lane_offset(uint64_t addr) { return unsigned(addr & 7); }
// The width-byte value at byte `offset` of a word as it lies in memory (host byte order, as
// the HCA applies verbs atomics).
uint64_t lane_value(uint64_t word, unsigned width, unsigned offset);
uint64_t with_lane(uint64_t word, uint64_t value, unsigned width, unsigned offset);

// The word a compare-and-swap should install when the target word is `observed`: the lane at
// `offset` updated by op (ADD wraps at the lane's width; CSWAP installs `operand` only when the
// lane equals `compare`), the rest of the word unchanged.
uint64_t next_word(uint64_t observed, amo_op op, uint64_t operand, uint64_t compare, unsigned width, unsigned offset);

// One atomic done by compare-and-swap attempts on its containing word. The first attempt
// guesses that the word is 0: right for fresh memory, one round trip lost otherwise. Each
// attempt returns the word it found; when that is the word it compared with, it swapped and
// the operation took effect there. A word read that way needs no attempt at all when the
// operation would not change it (a CSWAP whose comparison fails, an OR of bits already set).
class cas_loop {
  public:
    cas_loop(amo_op op, uint64_t operand, uint64_t compare, unsigned width, unsigned offset)
        : op_(op), operand_(operand), compare_(compare), width_(uint8_t(width)), offset_(uint8_t(offset))
    {
    }
    // The next attempt, compare-and-swap `compare` -> `swap`; false when the operation is
    // finished without one.
    bool next_attempt(uint64_t &compare, uint64_t &swap) const
    {
        uint64_t desired = next_word(expected_, op_, operand_, compare_, width_, offset_);
        if (observed_ && desired == expected_) return false;
        compare = expected_;
        swap = desired;
        return true;
    }
    // An attempt found `found`; true when it swapped and the operation is finished.
    bool attempt_returned(uint64_t found)
    {
        if (found == expected_) return true;
        expected_ = found;
        observed_ = true;
        return false;
    }
    // The lane's value before the operation (once finished).
    uint64_t fetched() const { return lane_value(expected_, width_, offset_); }
    unsigned width() const { return width_; }

  private:
    amo_op op_;
    uint64_t operand_, compare_;
    uint8_t width_, offset_;
    uint64_t expected_ = 0;  // the word the next attempt compares with
    bool observed_ = false;  // expected_ was returned by an attempt, not guessed
};

}  // namespace verbs
}  // namespace pgdds
