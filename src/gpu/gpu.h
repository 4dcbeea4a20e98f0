// GPU memory (the memory kind PGDDS_MEMORY_CUDA): a device segment per rank, one-sided access to
// it and from device buffers, and atomics on it. The layer sits above the runtime: the C entry
// points (src/core/api.cc, api_rma.cc) hand it every operation that touches device memory, and
// it uses the runtime's collectives, active messages and network calls.
//
// Routes, chosen per operation:
//  - a device segment of this node (this rank's, or a peer's opened by its CUDA IPC handle at
//    start-up): cudaMemcpyAsync on the calling VCI's stream, waited for;
//  - a device segment across the network: active messages to the owner, which copies between
//    its device segment and the message (chunks of `am_chunk`, all in flight at once);
//  - a host segment with a device buffer on this side: load/store-reachable targets by one
//    cudaMemcpy, network targets through pinned staging buffers, two in flight.
// Every operation is complete when its call returns (the nbi and nb forms too).
//
// Atomics on device memory are run by the owner's CPU, one at a time per rank (read, compute
// with amo.h, write back): atomic with respect to every libpgdds atomic on the word, not to
// kernels or to puts that touch it (docs/gpu.md, "Atomicity").
#pragma once

#include "../core/runtime.h"

#include <string>

namespace pgdds::gpu {

constexpr unsigned segment_id = 1;  // the segment field of a global pointer to device memory

// Whether the library was built with CUDA, the toolkit's version, and the devices the CUDA
// runtime sees now (0 with `why` set when it sees none or cannot run).
bool built();
const char *toolkit_version();
int visible_devices(std::string &why);

// Opens this rank's device segment when PGDDS_GPU_SEGMENT_SIZE > 0 and exchanges the IPC handles
// of the node's segments; collective, at the end of pgdds_init. detach undoes it (collective, at
// the start of pgdds_finalize).
status attach(runtime &rt);
status detach(runtime &rt);

// Whether `local` is device memory (only asked when the context has a device segment).
bool is_device(runtime &rt, const void *local);
// put/get where the remote side or the local buffer is device memory (access not yet checked).
status rma(runtime &rt, const char *who, bool is_put, pgdds_gptr_t remote, void *local, size_t n);
// An atomic on a device word (access not yet checked).
status atomic(runtime &rt, const char *who, pgdds_gptr_t target, const amo_args &a);

status alloc(runtime &rt, const char *who, size_t size, size_t alignment, pgdds_gptr_t &out);
status free(runtime &rt, const char *who, pgdds_gptr_t p);
// The device address of p when this rank can address it (its own segment, or a peer's opened
// by IPC), else nullptr.
void *to_local(runtime &rt, pgdds_gptr_t p);
// This rank's CUDA device, or -1 without a device segment.
int device(runtime &rt);

}  // namespace pgdds::gpu
