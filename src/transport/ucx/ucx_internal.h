// What the files of the UCX transport share: the state of a VCI, of an emulated atomic and of a
// request in flight, and the active-message handler the set-up registers.
//   ucx.cc       set-up: context, workers, segment, connection data, endpoints, close; pgdds-info
//   ucx_ops.cc   data path: put, get, atomics (and their compare-and-swap loops), flush,
//                fence, progress, active messages
#pragma once

#include "ucx.h"

#include "../../base/log.h"

#include <cstdlib>

namespace pgdds {

constexpr uint16_t am_id = 0;
// Bytes of active-message packets one VCI may have in flight before am_send says AGAIN.
constexpr size_t am_in_flight_limit = size_t(16) << 20;
// Packets up to this size are copied into pooled buffers, larger ones into their own.
constexpr size_t am_small_bytes = 8192;

inline bool is_peer_failure(ucs_status_t s)
{
    return s == UCS_ERR_UNREACHABLE || s == UCS_ERR_CONNECTION_RESET || s == UCS_ERR_ENDPOINT_TIMEOUT ||
           s == UCS_ERR_NOT_CONNECTED || s == UCS_ERR_REJECTED;
}

// One VCI: its worker, its endpoint and rkey to every rank, and what is in flight on it.
struct transport_ucx::vci_state {
    struct peer {
        vci_state *v = nullptr;
        int rank = -1;
        ucp_ep_h ep = nullptr;
        ucp_rkey_h rkey = nullptr;
        uint64_t base = 0;            // the peer's segment address
        uint64_t size = 0;            // and its length
        uint8_t *direct = nullptr;    // its segment mapped here (ucp_rkey_ptr), else null
        bool emulate_fetch_bitwise = false;
        ucs_status_t failed = UCS_OK; // set by the endpoint's error handler
    };

    transport_ucx *owner = nullptr;
    unsigned index = 0;
    ucp_worker_h worker = nullptr;
    std::vector<peer> peers;
    unsigned cas_loops = 0;           // emulated atomics still running
    // Flushes that also wait for those loops: a loop may issue attempts after the flush began.
    std::vector<op_completion *> loop_waiters;
    size_t am_in_flight = 0;          // bytes of sent packets not yet released by UCX
    std::vector<uint8_t *> am_pool;   // free buffers of am_small_bytes
    uint64_t discard = 0;             // reply buffer of non-fetching swaps
    // Puts and atomics issued on it, and how many of them a completed flush covers: while they
    // are equal, a get from a peer whose segment UCX maps here may read it directly.
    uint64_t writes = 0, writes_flushed = 0;
    deferred_failure deferred;

    // Explains a failed operation and returns its status.
    status error(int rank, ucs_status_t s, const char *what)
    {
        if (rank < 0)
            return fail(PGDDS_ERR_TRANSPORT, "ucx: %s on VCI %u failed: %s", what, index, ucs_status_string(s));
        if (is_peer_failure(s) || peers[rank].failed != UCS_OK) {
            ucs_status_t why = peers[rank].failed != UCS_OK ? peers[rank].failed : s;
            return fail(PGDDS_ERR_PEER_FAILED, "ucx: %s to rank %d failed: rank %d is unreachable (%s)", what, rank,
                        rank, ucs_status_string(why));
        }
        return fail(PGDDS_ERR_TRANSPORT, "ucx: %s to rank %d failed: %s", what, rank, ucs_status_string(s));
    }

    uint8_t *take_buffer(size_t len)
    {
        if (len > am_small_bytes) return static_cast<uint8_t *>(malloc(len));
        if (am_pool.empty()) return static_cast<uint8_t *>(malloc(am_small_bytes));
        uint8_t *b = am_pool.back();
        am_pool.pop_back();
        return b;
    }
    void return_buffer(uint8_t *b, size_t len)
    {
        if (len <= am_small_bytes && am_pool.size() < 256) am_pool.push_back(b);
        else free(b);
    }
};

// A fetching AND/OR/XOR done as compare-and-swap attempts (see is_cpu_memory_tl).
struct transport_ucx::cas_loop {
    vci_state *v;
    int rank;
    uint64_t remote_addr;
    amo_op op;
    unsigned width;
    uint64_t operand;
    uint64_t expected;     // the value the next attempt compares with
    union {
        uint64_t u64;
        uint32_t u32;
    } compare, reply;      // reply: the new value going out, the old value coming back
    void *result;
    op_completion *done;
};

// What a request was issued for; lives in UCP's user area of each request (request_size).
struct request_info {
    transport_ucx::vci_state *v;
    op_completion *done;
    int rank;
    const char *what;
    uint8_t *buffer;   // active-message packet copy (send) or landing buffer (receive)
    size_t len;
    transport_ucx::cas_loop *loop;
    uint64_t flushed_upto;  // a flush: the writes it covers
};

// Receives the active messages of one VCI (arg: its vci_state); ucp_worker_set_am_recv_handler's
// callback.
ucs_status_t ucx_on_am_message(void *arg, const void *, size_t, void *data, size_t length,
                               const ucp_am_recv_param_t *param);

}  // namespace pgdds
