// Remote procedure calls to the owner of a container's part (BCL thesis ch. 8): the caller
// sends one active message with the operation's arguments, the owner runs the operation's
// protocol on its own memory (load/store and CPU atomics) with the caller's concurrency promise,
// and replies with the status, its explanation and the results. One round trip, where the RDMA
// protocols cost one per remote atomic, read or write (each itself a round trip to the owner's
// CPU on transports without native atomics).
//
// Every atomic on a part served by RPC is a CPU atomic: the owner's, those of ranks that map
// the part, and those run for callers. No transport atomic touches it, so the one atomicity
// domain holds whatever the job's (runtime.h, cpu_atomics).
#pragma once

#include "common.h"
#include "protocol.h"

#include <string>
#include <vector>

namespace pgdds::containers {

// Makes `c` serve calls (collective, in the same order on every rank, before the create's last
// barrier: a call may arrive as soon as its caller's create returns). rpc_withdraw undoes it
// after the destroy's barrier (callers wait for their replies, so only a call whose caller gave
// up can still come: it is refused, or waited for if another thread is serving it).
void rpc_enroll(container *c);
void rpc_withdraw(container *c);

// The most argument or reply-data bytes one call carries (one active message, with room for
// the headers and an explanation).
constexpr size_t rpc_max_bytes = PGDDS_AM_MAX_PAYLOAD - 1024;

// One call to an owner: the argument bytes, and on success the reply's data.
struct rpc_call {
    int owner = 0;
    std::vector<uint8_t> args;
    std::vector<uint8_t> reply;
};

// Sends every call (one message each) for operation `op` of container c, runs overlap() (work
// of the caller's own that needs no reply), then waits for every reply, progressing the
// calling thread's network context: bounded by PGDDS_TIMEOUT and the liveness checks of every
// wait, with the owners that did not answer named. Returns overlap's failure, else the first
// owner's failure in the order of `calls` (with its explanation), else OK.
template <class Overlap>
status rpc_exchange(container *c, const char *who, uint32_t op, unsigned concurrent, std::vector<rpc_call> &calls,
                    Overlap overlap);

// ---------------------------------------------------------------------------------------------
struct rpc_pending;
// The sending half of rpc_exchange (a call's state stays in `pending` until rpc_finish).
status rpc_start(container *c, const char *who, uint32_t op, unsigned concurrent, std::vector<rpc_call> &calls,
                 std::vector<rpc_pending> &pending);
// The waiting half; `first` is the status so far (a failure to send, overlap's failure).
status rpc_finish(container *c, const char *who, std::vector<rpc_call> &calls, std::vector<rpc_pending> &pending,
                  status first);

struct rpc_pending {
    uint64_t id = 0;  // 0: not sent
    std::atomic<bool> done{false};
    status result = PGDDS_OK;
    std::string message;
    std::vector<uint8_t> *reply = nullptr;

    rpc_pending() = default;
    rpc_pending(rpc_pending &&o) noexcept : id(o.id), result(o.result), reply(o.reply) {}
};

template <class Overlap>
status rpc_exchange(container *c, const char *who, uint32_t op, unsigned concurrent, std::vector<rpc_call> &calls,
                    Overlap overlap)
{
    std::vector<rpc_pending> pending;
    status st = rpc_start(c, who, op, concurrent, calls, pending);
    if (st == PGDDS_OK) st = overlap();
    return rpc_finish(c, who, calls, pending, st);
}

}  // namespace pgdds::containers
