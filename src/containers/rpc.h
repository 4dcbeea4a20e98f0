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

#include <string>
#include <vector>

namespace pgdds::containers {

// The operations whose costs decide a container's protocol under auto, by kind (the thesis'
// formulas, docs/containers.md "RDMA or RPC").
enum class priced_kind { hashmap, fast_queue, circular_queue, checksum_queue, bloom, keytable };

// Under PGDDS_CONTAINER_PROTOCOL=auto, measures once per context (collective: every create
// calls it first, on every rank, before anything that may fail) one remote atomic (A), get (R),
// put with flush (W) and RPC round trip from each rank to a peer it reaches only through the
// network, averaged over the job. Nothing to measure where every rank maps every other (shm):
// the choice is then today's. Never fails: a failed measurement is logged and the choice falls
// back to the transport's capabilities.
void measure_protocol_costs(runtime *rt, const char *who);

// The protocol a container of `kind` created with `requested` (PGDDS_PROTOCOL_AUTO, _RDMA or
// _RPC; AUTO takes PGDDS_CONTAINER_PROTOCOL) uses towards the ranks it does not reach by
// load/store, for every operation that changes a part or takes an atomic on it (one atomicity
// domain per part; read-only operations: one_sided_groups). INVALID_ARG for any other value. The caller agrees on it with the other ranks.
status choose_protocol(runtime *rt, const char *who, priced_kind kind, int requested, int &out);

// Read-only operations (a CP_FIND find, a Bloom contains: reads, no atomic, so they may meet the
// owner's CPU atomics) are priced and chosen each on their own inside a container served by RPC.
// How many groups of a read-only operation `op` of `kind` (as named in the report: one group is
// one read in flight per key, landed together, priced one R per key) read one-sidedly for less than one call, as auto
// measured: a single-key read costs one group, a batch one per `group` keys it sends to called
// owners. 0 when auto did not measure, or a call is cheaper than one group.
size_t one_sided_groups(runtime *rt, priced_kind kind, const char *op);

// The measured costs, each operation's priced protocols and auto's choice per container kind,
// as lines of text (pgdds_container_protocols).
std::string protocol_report(runtime *rt);

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
