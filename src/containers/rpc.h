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

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pgdds::containers {

// Makes `c` serve calls (collective, in the same order on every rank, before the create's last
// barrier: a call may arrive as soon as its caller's create returns). rpc_withdraw undoes it
// after the destroy's barrier (callers wait for their replies, so only a call whose caller gave
// up can still come: it is refused, or waited for if another thread is serving it).
void rpc_enroll(container *c);
void rpc_withdraw(container *c);

// Collective: this rank's non-blocking calls answered (their requests keep the replies for a
// later pgdds_wait), then a barrier: every call of every rank answered. What a destroy, a resize
// or a migration does before it changes the parts.
status rpc_quiet(container *c, const char *who);
// A destroy's collective part: rpc_quiet, then rpc_withdraw under RPC. The caller then frees
// its part.
status rpc_retire(container *c, const char *who);

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
status rpc_finish(runtime *rt, const char *who, std::vector<rpc_call> &calls, std::vector<rpc_pending> &pending,
                  status first);

struct rpc_pending {
    uint64_t id = 0;  // 0: not sent
    std::atomic<bool> done{false};
    status result = PGDDS_OK;
    std::string message;
    std::vector<uint8_t> *reply = nullptr;
    std::shared_ptr<std::atomic<int>> in_flight;  // a non-blocking call's container count

    rpc_pending() = default;
    rpc_pending(rpc_pending &&o) noexcept : id(o.id), result(o.result), reply(o.reply), in_flight(o.in_flight) {}
};

// Writes the caller's outputs from the replies of successful calls.
using rpc_settle = std::function<status(std::vector<rpc_call> &)>;

// Calls whose replies a request waits for (the _nb operations): it owns the calls, the state
// the replies land in and the settling step, never the container, which may be destroyed first.
struct rpc_deferred final : deferred_op {
    runtime *rt;
    const char *who;
    std::vector<rpc_call> calls;
    std::vector<rpc_pending> pending;
    status first = PGDDS_OK;  // the caller's own part (overlap), with its explanation
    std::string first_why;
    rpc_settle settle;

    rpc_deferred(runtime *r, const char *w) : rt(r), who(w) {}
    ~rpc_deferred() override;  // forgets calls never answered
    bool ready() override;
    status finish() override;
};
// Sends calls (moved into d) as rpc_start does, counting them in c's calls in flight.
status rpc_start_deferred(container *c, uint32_t op, unsigned concurrent, rpc_deferred &d);

// Runs calls for operation `op` of c: overlap() (the caller's own part) while the owners work,
// then settle(calls) writes the caller's outputs from the replies. Without req, before it returns
// (rpc_exchange). With req, it returns once the calls are sent and overlap ran, with a request
// (pgdds_test, pgdds_wait) that settles when every reply is in: settle must then hold only values
// and the caller's output pointers (the container and this stack frame may be gone by then).
// A failure to send is the call's own status, after the calls sent are answered.
template <class Overlap, class Settle>
status rpc_run(container *c, const char *who, uint32_t op, unsigned concurrent, std::vector<rpc_call> &calls,
               pgdds_request_t *req, Overlap overlap, Settle settle);

template <class Overlap>
status rpc_exchange(container *c, const char *who, uint32_t op, unsigned concurrent, std::vector<rpc_call> &calls,
                    Overlap overlap)
{
    std::vector<rpc_pending> pending;
    status st = rpc_start(c, who, op, concurrent, calls, pending);
    if (st == PGDDS_OK) st = overlap();
    return rpc_finish(c->rt, who, calls, pending, st);
}

template <class Overlap, class Settle>
status rpc_run(container *c, const char *who, uint32_t op, unsigned concurrent, std::vector<rpc_call> &calls,
               pgdds_request_t *req, Overlap overlap, Settle settle)
{
    if (!req) {
        status st = rpc_exchange(c, who, op, concurrent, calls, overlap);
        return st == PGDDS_OK ? settle(calls) : st;
    }
    auto d = std::make_unique<rpc_deferred>(c->rt, who);
    d->calls = std::move(calls);
    status st = rpc_start_deferred(c, op, concurrent, *d);
    if (st != PGDDS_OK) return rpc_finish(c->rt, who, d->calls, d->pending, st);
    d->first = overlap();
    if (d->first != PGDDS_OK) d->first_why = pgdds_last_error();
    d->settle = std::move(settle);
    return c->rt->deferred_request(who, std::move(d), req);
}

}  // namespace pgdds::containers
