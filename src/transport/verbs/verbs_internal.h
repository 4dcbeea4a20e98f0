// What the files of the verbs transport share: the state of a VCI, of a queue pair's work
// requests and of an atomic done as compare-and-swap attempts.
//   verbs.cc       set-up: device, protection domain, queue pairs, registration, connection
//                  data, close; pgdds-info
//   verbs_ops.cc   data path: posting and completions, progress, put, get, atomics, flush,
//                  active messages
#pragma once

#include "verbs.h"

namespace pgdds {

using verbs::local_buffer;

// What the completion of one work request does.
struct transport_verbs::wr_action {
    enum kind_t : uint8_t {
        plain,       // nothing but `done`
        bounce,      // release a bounce slot (a put or send copied into it)
        bounce_get,  // copy a bounce slot into `user`, release it
        result,      // copy the lane of a result slot into `user`, release it
        loop_step,   // one compare-and-swap of `loop`
    };
    kind_t kind = plain;
    uint8_t width = 0;
    uint8_t offset = 0;
    uint32_t slot = 0;           // bounce or result slot
    op_completion *done = nullptr;
    void *user = nullptr;
    uint32_t length = 0;
    ibv_mr *mr = nullptr;        // a registration made for this WR alone
    amo_loop *loop = nullptr;
};

// An atomic done as compare-and-swap attempts on the containing 64-bit word.
struct transport_verbs::amo_loop {
    int rank;
    uint64_t word_addr;
    verbs::cas_loop state;
    void *result;
    op_completion *done;
    uint32_t slot;  // result slot the attempts land in
};

struct transport_verbs::vci_state {
    struct peer_qp {
        ibv_qp *qp = nullptr;
        uint32_t psn = 0;
        verbs::send_queue sq;
        std::vector<wr_action> actions;  // [seq % depth]
        status failed = PGDDS_OK;
        std::string failure;
    };
    struct pending_flush {
        op_completion *done;
        std::vector<std::pair<int, uint64_t>> targets;  // (rank, last WR that must complete)
    };

    unsigned index = 0;
    ibv_td *td = nullptr;
    ibv_pd *domain = nullptr;  // parent domain of the thread domain, when the device has them
    ibv_cq *cq = nullptr;
    ibv_srq *srq = nullptr;
    uint8_t *recv = nullptr;
    ibv_mr *recv_mr = nullptr;
    uint8_t *bounce = nullptr;
    ibv_mr *bounce_mr = nullptr;
    std::vector<uint32_t> free_bounce;
    uint64_t *results = nullptr;
    ibv_mr *results_mr = nullptr;
    std::vector<uint32_t> free_results;
    std::vector<peer_qp> qps;
    std::vector<amo_loop *> stalled;  // loops waiting for send-queue room
    unsigned loops = 0;               // loops not finished
    std::vector<pending_flush> flushes;
    std::vector<wr_action> retiring;  // scratch of progress()
    deferred_failure deferred;
    uint8_t *bounce_at(uint32_t slot) { return bounce + size_t(slot) * packet_bytes; }
};

}  // namespace pgdds
