// How a data structure reaches the parts of ranks it does not map (PGDDS_CONTAINER_PROTOCOL,
// docs/containers.md "RDMA or RPC"): the measured costs and the choice between the one-sided
// (RDMA) protocols and calls to the owner (RPC), for the containers and the key tables alike.
// Defined in rpc.cc.
#pragma once

#include "../core/runtime.h"

#include <string>

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

}  // namespace pgdds::containers
