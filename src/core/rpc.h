// Remote procedure calls (pgdds.h, "Remote procedure calls"): the registry of functions, the
// calls waiting for replies, and the active-message handler that serves both.
#pragma once

#include "common.h"

namespace pgdds {

// The handler of AM_RPC, registered by every runtime at start-up.
void on_rpc_message(pgdds_context_t ctx, int src, const void *payload, size_t size, void *arg);

}  // namespace pgdds
