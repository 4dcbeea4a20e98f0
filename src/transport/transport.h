// The internal transport interface. One implementation per backend (shm, ofi, ucx, verbs),
// each in its own directory; the core (src/core/) owns everything above it: segment bounds
// checks, routing, waiting with progress, retries, timeouts, fragmentation of active messages.
//
// Threading: the core guarantees that the per-VCI operations below are called for a given VCI
// by one thread at a time (it locks VCIs that are shared). Resources shared by all VCIs (fabric
// domain, address vector, memory registration) are only touched by open/connect/close.
//
// Completion: every data operation is non-blocking. It either fails, or returns PGDDS_AGAIN
// when the backend is out of resources (the core progresses the VCI and retries), or returns
// PGDDS_OK once issued. If `done` is non-null the backend decrements done->pending when the
// operation completes locally (a put's source may be reused, a get's or a fetching atomic's
// result has landed) and stores a failure status in done->status. Operations issued with
// `done == nullptr` are tracked by the backend and completed by flush.
#pragma once

#include "../base/amo.h"
#include "../base/common.h"
#include "host.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace pgdds {

// Completion counter of one or more operations. Atomic because, on a VCI shared by several
// threads, another thread's progress may complete the operation of a waiting thread.
struct op_completion {
    std::atomic<int> pending{0};
    status result = PGDDS_OK;
    // Tracks exactly one operation (no add()): completing it is a plain release store, not a
    // locked read-modify-write, which is a visible share of a blocking operation's cost.
    const bool single = false;

    op_completion() = default;
    struct one_t {};
    static constexpr one_t one{};
    explicit op_completion(one_t) : pending(1), single(true) {}

    void add(int n = 1) { pending.fetch_add(n, std::memory_order_relaxed); }
    bool done() const { return pending.load(std::memory_order_acquire) == 0; }
    // The last access of the completing side: after it the waiter may free the record.
    void complete(status st)
    {
        if (st != PGDDS_OK && result == PGDDS_OK) result = st;
        if (single) pending.store(0, std::memory_order_release);
        else pending.fetch_sub(1, std::memory_order_release);
    }
};

// The first failure of an operation issued without an op_completion, with its message, kept
// until a flush reports it: that is how a failed fire-and-forget operation reaches its caller.
class deferred_failure {
  public:
    void keep(status st)
    {
        if (st == PGDDS_OK || st_ != PGDDS_OK) return;
        st_ = st;
        msg_ = pgdds_last_error();
    }
    bool pending() const { return st_ != PGDDS_OK; }
    // The kept failure, made the calling thread's last error again, and forgotten; or PGDDS_OK.
    status take()
    {
        if (st_ == PGDDS_OK) return PGDDS_OK;
        status st = fail(st_, "%s", msg_.c_str());
        st_ = PGDDS_OK;
        msg_.clear();
        return st;
    }

  private:
    status st_ = PGDDS_OK;
    std::string msg_;
};

// Where a backend's atomics take effect. Atomics of two domains on one word are not atomic
// with each other, so the core never mixes them (src/core/soft_atomics.h).
enum class atomicity_domain : uint8_t {
    nic,         // the network hardware applies them (device atomics), or it is not known
    target_cpu,  // the target process's CPU applies them to its segment with CPU atomics
                 // (shared memory, or messages that the target's progress serves)
};

// Every atomic operation a transport carries, as a bit mask (bit 1 << amo_op).
constexpr uint32_t amo_all_ops = (1u << AMO_COUNT) - 1;

// What a backend does itself; the core builds the rest above it. Valid after connect().
struct transport_caps {
    bool needs_target_progress = false;  // RMA/atomics complete only when the target calls in
    bool one_sided_rma = true;
    // The atomics the backend executes, per width (index 0: 4 bytes, 1: 8 bytes), one bit
    // (1 << amo_op) per operation, all in amo_domain. The core serves the job's atomics in
    // software, over active messages, unless every rank's backend has all of them.
    uint32_t amo_ops[2] = {0, 0};
    atomicity_domain amo_domain = atomicity_domain::nic;
    std::string atomics;  // for pgdds-info: "native", "native 64-bit ...", ...

    bool has_amo(amo_op op, unsigned width) const { return amo_ops[width == 8] >> op & 1; }
    bool has_all_amos() const { return amo_ops[0] == amo_all_ops && amo_ops[1] == amo_all_ops; }
};

// What a backend finds on this machine without a job, for pgdds-info: one entry per provider,
// transport layer or device.
struct transport_probe_entry {
    std::string component;  // "tcp;ofi_rxm", "sm", "mlx5_0:1"; "" for the backend as a whole
    int usable = -1;        // 1: pgdds would run over it; 0: it would not (say why); -1: unknown
    std::string atomics;    // "native", "emulated (active messages)", "none"; "" unknown
    std::string progress;   // "auto" (completes without the target's help) or "manual"; "" unknown
    std::string detail;     // one line: version, limits, or why it is unusable
};

class transport {
  public:
    virtual ~transport() = default;

    // Describes what this backend finds on the machine. Called on an instance that was never
    // opened, outside any job. Backends override it; the default only says it is built.
    virtual void probe(std::vector<transport_probe_entry> &out) const
    {
        out.push_back({"", -1, "", "", "built; this backend does not describe its providers yet"});
    }

    // "ofi/tcp;ofi_rxm", "ucx/sm", ...; valid after open().
    virtual const char *name() const = 0;
    virtual transport_caps caps() const = 0;

    // The prefix of this backend's own variables ("PGDDS_OFI_"), which its host's setting()
    // reads.
    virtual const char *settings_prefix() const = 0;

    // --- Set-up, called by the host in this order; collective where noted. ---------------
    // Opens the fabric resources for host.endpoints() network contexts; the host outlives the
    // backend. UNSUPPORTED when the fabric/device is absent, with the reason in the last error.
    virtual status open(transport_host &host) = 0;
    // A backend that must own the segment memory (UCX's one-sided shared memory) allocates it;
    // otherwise the runtime does and calls register_segment. The segment must be a shared
    // mapping (pgdds_map_static_data maps its pages a second time): a backend that cannot
    // allocate one returns UNSUPPORTED and the runtime maps it.
    virtual bool allocates_segment() const { return false; }
    virtual status alloc_segment(size_t size, void **base)
    {
        (void)size, (void)base;
        return fail(PGDDS_ERR_UNSUPPORTED, "%s: cannot allocate the segment", name());
    }
    virtual status register_segment(void *base, size_t size) = 0;
    // Backs [offset, offset + len) of a segment that alloc_segment made with memory now, so that
    // no touch of it can fault (a tmpfs short of space kills with SIGBUS), or fails NO_MEMORY. The
    // runtime calls it for every range it hands out, before any rank can reach it; nothing to do
    // where the pages come with use.
    virtual status back_segment(uint64_t offset, uint64_t len)
    {
        (void)offset, (void)len;
        return PGDDS_OK;
    }
    // Connection data of this process (addresses of every VCI, keys of the segment).
    virtual status address(std::vector<uint8_t> &blob) = 0;
    // Connects to every peer given their address blobs (indexed by rank); collective.
    virtual status connect(const std::vector<std::vector<uint8_t>> &peers) = 0;
    // A load/store address of rank's segment if the backend can map it, else nullptr.
    virtual void *peer_pointer(int rank) { return (void)rank, nullptr; }
    // Called once every peer has connected (after a barrier): names that peers needed only to
    // find this process (a shared-memory file's) may go.
    virtual void peers_connected() {}
    // Releases everything; called once, after a final barrier.
    virtual void close() = 0;

    // --- Data path, per VCI. ----------------------------------------------------------------
    virtual status put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n,
                       op_completion *done) = 0;
    virtual status get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n,
                       op_completion *done) = 0;
    // Only the operations and widths that caps().amo_ops names are ever asked for.
    virtual status amo(unsigned vci, int rank, uint64_t offset, const amo_args &args,
                       op_completion *done) = 0;
    // Starts completing every operation issued on this VCI, locally and at the targets
    // (remote visibility); done->pending drops to 0 when all of them are complete.
    virtual status flush(unsigned vci, op_completion *done) = 0;
    // Orders: every put and atomic issued on this VCI before it is applied at its target before
    // any issued after it to the same target (OpenSHMEM's shmem_fence). It need not wait for
    // them; done completes once later operations may be issued. Backends whose operations to a
    // peer are applied in order override it; the default waits for all of them.
    virtual status fence(unsigned vci, op_completion *done) { return flush(vci, done); }
    // Advances this VCI: completions, target-side work, incoming active messages (delivered
    // with transport_host::am_incoming).
    virtual status progress(unsigned vci) = 0;

    // --- Active-message packets. The core fragments messages to am_max_packet(). -----------
    virtual size_t am_max_packet() const = 0;
    // Sends one packet; it may be reused on return. AGAIN when the destination has no room.
    virtual status am_send(unsigned vci, int rank, const void *packet, size_t len) = 0;
};

// Backend constructors. Each returns UNSUPPORTED if the backend is not in this build.
status transport_create_shm(std::unique_ptr<transport> &out);
status transport_create_ofi(std::unique_ptr<transport> &out);
status transport_create_ucx(std::unique_ptr<transport> &out);
status transport_create_verbs(std::unique_ptr<transport> &out);

}  // namespace pgdds
