// What the files of the libfabric transport share: the wire format of its messages, the state
// of an endpoint and of an operation in flight, and the small helpers of the data path (inline:
// every put, get and atomic uses them).
//
// The files, by role:
//   ofi_library.cc   libfabric itself, loaded when the backend is first used
//   ofi.cc           set-up: domains, endpoints, registration, connection data, close
//   ofi_probe.cc     provider selection (fi_getinfo), pgdds-info, the provider's atomics or none,
//                    the flush method
//   ofi_rma.cc       put, get, fence, flush
//   ofi_atomics.cc   native atomics, and their emulation by messages
//   ofi_am.cc        messages: active-message packets and the wire header
//   ofi_progress.cc  completions, errors, backlogs
#pragma once

#include "ofi.h"

#include "../../base/log.h"
#include "../../base/parse.h"
#include "../../base/wire.h"

#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <cstddef>
#include <cstring>

namespace pgdds {

namespace ofi_wire {

constexpr uint32_t blob_magic = 0x4f464931;  // "OFI1", connection data (base/wire.h)
constexpr uint16_t blob_version = 2;
constexpr size_t packet_limit = 16384;       // receive buffers: wire header + one AM packet
constexpr unsigned recv_slots = 64;          // pre-posted receive buffers per endpoint
constexpr unsigned send_slots = 64;          // bounce buffers per endpoint (sends, FI_MR_LOCAL copies)
constexpr unsigned record_count = 1024;      // operations in flight per endpoint
constexpr unsigned scratch_words = 4;        // per record: operand, compare, result, spare
constexpr int cq_batch = 32;

constexpr uint8_t dirty_rma = 1;  // a write that may not have reached the target yet
constexpr uint8_t dirty_amo = 2;  // likewise a non-fetching native atomic

// Every message of this backend starts with a wire header.
enum : uint32_t { msg_am = 1 };

struct wire_header {
    uint32_t kind;
    int32_t src;
};

enum class op_kind : uint8_t { free, write, read, atomic, fetch, probe, send, recv };

}  // namespace ofi_wire

// Only this backend's files include this header: they use the wire names unqualified.
using namespace ofi_wire;

// Opens libfabric (ofi_library.cc) once per process; PGDDS_ERR_UNSUPPORTED, with dlopen's
// reason, where it cannot be loaded. Every entry point of the backend calls it first.
status ofi_library_open();

// fail() with libfabric's explanation of a negative return code appended.
status call_failed(status st, ssize_t rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
inline bool is_shm(const fi_info *info) { return strcmp(info->fabric_attr->prov_name, "shm") == 0; }

// ---------------------------------------------------------------------------------------------
// Per-endpoint state
// ---------------------------------------------------------------------------------------------
struct transport_ofi::registration {
    fid_mr *mr = nullptr;
    void *desc = nullptr;
    size_t refs = 0;  // operations (chunks) still using it
};

struct transport_ofi::op_record {
    fi_context context;  // first: a completion's op_context is the record's address
    op_kind kind = op_kind::free;
    bool counted = false;         // in endpoint::outstanding: a flush waits for it
    uint32_t index = 0;
    int rank = -1;
    int slot = -1;                // bounce/send slot held, or the receive slot of a receive
    op_completion *done = nullptr;
    void *result = nullptr;       // where a bounced read or a fetched value goes
    size_t length = 0;
    registration *reg = nullptr;  // on-the-fly registration of the local buffer
    uint64_t *scratch = nullptr;  // scratch_words registered words
};

struct transport_ofi::rma_chunk {
    bool write;
    bool bounce;  // copy through a registered bounce slot (FI_MR_LOCAL, small)
    int rank;
    uint64_t offset;
    uint8_t *local;
    size_t len;
    void *desc;
    registration *reg;
    op_completion *done;
};

struct transport_ofi::endpoint {
    fid_domain *domain = nullptr;  // owned by domains_ and avs_, maybe shared with other VCIs
    fid_av *av = nullptr;
    fid_ep *ep = nullptr;
    fid_cq *cq = nullptr;
    fid_mr *arena_mr = nullptr;
    void *arena_desc = nullptr;
    uint8_t *arena = nullptr;  // send slots, receive slots, record scratch words
    size_t arena_bytes = 0;
    size_t slot_bytes = 0;

    std::vector<op_record> records;   // never resized once open: libfabric holds their contexts
    std::vector<uint32_t> free_records;
    std::vector<op_record> receives;  // one per receive slot
    std::vector<uint32_t> free_slots;
    std::vector<uint32_t> unposted;   // receive slots the provider did not take back yet
    std::deque<rma_chunk> backlog;    // chunks of split transfers waiting for room
    std::vector<op_completion *> flushes;
    std::vector<uint8_t> dirty;       // per rank: dirty_rma | dirty_amo since the last flush
    std::vector<int> dirty_ranks;
    size_t outstanding = 0;           // counted operations in flight
    deferred_failure deferred;
    std::vector<uint8_t> staging;     // assembles messages small enough to inject

    uint8_t *send_slot(size_t i) { return arena + i * slot_bytes; }
    uint8_t *recv_slot(size_t i) { return arena + (send_slots + i) * slot_bytes; }
};

static_assert(offsetof(transport_ofi::op_record, context) == 0, "a completion context is its record");

// Fills in the record of an operation just issued and counts it among those a flush waits for.
inline void track(transport_ofi::endpoint &e, transport_ofi::op_record &rec, op_kind kind, int rank, op_completion *done)
{
    rec.kind = kind;
    rec.rank = rank;
    rec.done = done;
    rec.counted = true;
    ++e.outstanding;
}

// ---------------------------------------------------------------------------------------------
// Helpers of the data path
// ---------------------------------------------------------------------------------------------
inline uint64_t transport_ofi::remote_address(int rank, uint64_t offset) const
{
    return (mr_mode_ & FI_MR_VIRT_ADDR) ? peer_base_[rank] + offset : offset;
}

inline uint64_t transport_ofi::remote_key(int rank, unsigned vci) const { return peer_keys_[size_t(rank) * nendpoints_ + vci]; }

inline fi_addr_t transport_ofi::peer_address(int rank, unsigned vci) const
{
    return peer_addrs_[size_t(rank) * nendpoints_ + vci];
}

inline void *transport_ofi::segment_descriptor(unsigned vci) const
{
    return seg_mrs_.empty() ? nullptr : fi_mr_desc(seg_mrs_[seg_mrs_.size() == 1 ? 0 : vci]);
}

inline bool transport_ofi::in_segment(const void *p, size_t n) const
{
    auto *b = static_cast<const uint8_t *>(p);
    return seg_base_ && b >= seg_base_ && n <= seg_size_ && size_t(b - seg_base_) <= seg_size_ - n;
}

inline transport_ofi::op_record *transport_ofi::take_record(endpoint &e)
{
    if (e.free_records.empty()) return nullptr;
    op_record &rec = e.records[e.free_records.back()];
    e.free_records.pop_back();
    return &rec;
}

inline void transport_ofi::release_record(endpoint &e, op_record &rec)
{
    rec.kind = op_kind::free;
    rec.counted = false;
    rec.rank = rec.slot = -1;
    rec.done = nullptr;
    rec.result = nullptr;
    rec.length = 0;
    rec.reg = nullptr;
    e.free_records.push_back(rec.index);
}

inline void transport_ofi::mark_dirty(endpoint &e, int rank, uint8_t what)
{
    if (!e.dirty[rank]) e.dirty_ranks.push_back(rank);
    e.dirty[rank] |= what;
}

}  // namespace pgdds
