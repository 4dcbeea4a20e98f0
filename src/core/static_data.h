// The executable's static and global data made remotely accessible (pgdds_map_static_data).
// Its writable pages (.data and .bss, from the end of RELRO) are copied into a symmetric block
// of the segment, then the block's pages are mapped over them (mremap of a shared mapping with
// old size 0 makes a second mapping of the same pages). Both addresses then name the same
// memory: a static address translates to a segment offset, and every transport, the on-node
// mappings and the network registrations serve it unchanged.
//
// A process has one executable, so one context at a time holds the mapping; the state is
// process-wide.
#pragma once

#include "../base/common.h"

#include <cstddef>
#include <cstdint>

namespace pgdds {

class runtime;

namespace static_data {

// What pgdds_map_static_data mirrors: the executable's writable ranges (page-rounded) in
// total, and the link-time address where they start (the same for the same executable on
// every rank, PIE or not). UNSUPPORTED when the executable has no writable range.
status measure(size_t &bytes, uint64_t &link_address, unsigned &ranges);

// Copies the ranges into rt's segment from offset on (the symmetric block of measure()'s
// size) and maps the block's pages over them. On failure the ranges hold private copies of
// their data again, as before.
status mirror(runtime &rt, uint64_t offset);

// Whether rt holds the mapping; whether another live context does.
bool held_by(const runtime *rt);
bool held_by_other(const runtime *rt);

// The segment offset of addr when it lies in the static data rt mapped.
bool offset_of(const runtime *rt, const void *addr, uint64_t &offset);

// rt no longer holds the mapping (pgdds_finalize); the static data keeps its contents in
// pages of its own.
void release(const runtime *rt);

}  // namespace static_data
}  // namespace pgdds
