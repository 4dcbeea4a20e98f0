// Atomics in software, for backends that do not execute every atomic operation themselves
// (transport_caps::amo_ops): the origin sends the operation as an active message, the target
// applies it to its own segment with CPU atomics (cpu_amo) while it progresses the VCI it
// arrived on, and answers with the old value. Every backend with active messages so has every
// atomic, as UCX builds them over its AM lanes (ucp/rma/amo_sw.c).
//
// All or nothing: the job uses software atomics for every operation once any rank's backend
// lacks one, so atomics on one word never mix two atomicity domains (runtime::agree_atomics).
// The atomicity domain is then the targets' CPUs, as for the shm path.
//
// Requests and replies are handled when their packet arrives, inside the transport's progress,
// not by the handler queue: an operation must complete even while its origin is inside an
// active-message handler (which cannot run handlers). Replies cannot be sent from there (the
// backend is inside its progress); they are queued per VCI and sent right after it.
#pragma once

#include "../base/amo.h"
#include "../base/common.h"
#include "../transport/transport.h"
#include "vci.h"

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace pgdds {

class runtime;

class soft_atomics {
  public:
    soft_atomics(runtime &rt, unsigned endpoints);
    soft_atomics(const soft_atomics &) = delete;
    soft_atomics &operator=(const soft_atomics &) = delete;

    // Sends atomic `a` on v to (rank, offset); `done` (or, when null, v's next flush) reports
    // its completion. `kind` is the count it is made under (pgdds_net_counts).
    status issue(const char *who, vci &v, int rank, uint64_t offset, const amo_args &a, op_completion *done,
                 net_count kind);
    // One packet of ours that arrived on VCI vci_index from rank src (am_engine::incoming).
    void incoming(unsigned vci_index, int src, const void *body, size_t len);
    // Sends the replies that v's progress produced; called after the transport's progress.
    void send_replies(vci &v)
    {
        if (PGDDS_UNLIKELY(lanes_[v.index]->replies_waiting.load(std::memory_order_acquire))) send_waiting(v);
    }
    // Waits until every atomic issued on v has completed, then reports the first failure of
    // those issued without a completion (flush and fence).
    status quiet(const char *who, vci &v);

  private:
    // What travels, both ways: a request carries the operation, a reply the old value.
    struct message {
        uint8_t kind;  // request or reply
        uint8_t op;
        uint8_t width;
        uint8_t pad = 0;
        int32_t result;  // reply: PGDDS_OK, or why the target refused
        uint64_t offset;
        uint64_t operand;  // reply: the old value
        uint64_t compare;
        uint64_t id;  // the origin's record: generation << 32 | index
    };
    enum : uint8_t { request = 1, reply = 2 };
    struct record {
        op_completion *done;
        void *result;
        uint32_t generation = 0;
        unsigned vci;
        int rank;
        uint8_t width;
        bool busy = false;
    };
    struct queued_reply {
        int rank;
        message msg;
    };
    // Per VCI: the atomics issued on it and not yet answered, the first failure of one issued
    // without a completion, and the replies its progress owes.
    struct lane {
        std::atomic<uint32_t> in_flight{0};
        std::atomic<bool> replies_waiting{false};
        std::mutex lock;  // guards what follows
        deferred_failure failure;
        std::deque<queued_reply> replies;
    };

    void serve(unsigned vci_index, int src, const message &req);
    void take_reply(int src, const message &rep);
    void send_waiting(vci &v);
    status send_packet(unsigned vci_index, int rank, const message &m);
    uint64_t take_record(const record &r);
    void release(uint32_t index);

    runtime &rt_;
    std::vector<std::unique_ptr<lane>> lanes_;
    std::mutex records_lock_;  // guards records_ and free_
    std::vector<record> records_;
    std::vector<uint32_t> free_;
};

}  // namespace pgdds
