// Remote procedure calls (pgdds.h, "Remote procedure calls"): the registry of functions, the
// calls waiting for replies, and the active-message handler that serves both.
#pragma once

#include "../base/common.h"

#include <memory>

namespace pgdds {

class runtime;

// The handler of AM_RPC, registered by every runtime at start-up.
void on_rpc_message(pgdds_context_t ctx, int src, const void *payload, size_t size, void *arg);

// Small calls held per destination (PGDDS_RPC_AGGREGATE), sent as one message each.
struct rpc_held_calls;
rpc_held_calls *rpc_held_calls_new(int nranks);
void rpc_held_calls_delete(rpc_held_calls *h);
// Sends every held call (runtime::progress calls it while any are held).
status rpc_send_held(runtime &rt);

}  // namespace pgdds
