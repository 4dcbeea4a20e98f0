// What every container shares beyond the data-structure substrate (substrate.h): the container
// base with its protocol routes, handle resolution, waiting, parts and their allocation.
#pragma once

#include "layout.h"
#include "substrate.h"

#include <atomic>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <type_traits>
#include <vector>

namespace pgdds::containers {

// ---------------------------------------------------------------------------------------------
// Containers
// ---------------------------------------------------------------------------------------------
// Every container remembers its context; operations refuse a finalized one.
struct container {
    pgdds_context_t ctx = nullptr;
    runtime *rt = nullptr;
    bool direct = false;  // every target load/store-reachable and CPU atomics are the job's
    // PGDDS_PROTOCOL_RPC: calls for a rank in via_rpc go to its owner (rpc.h); every other rank
    // (this one, those mapped here) is reached by load/store; via_rpc is empty when no rank is
    // called. Else the RDMA protocols.
    int protocol = PGDDS_PROTOCOL_RDMA;
    std::vector<char> via_rpc;
    uint32_t rpc_id = 0;  // the container's name in calls (rpc_enroll)
    std::atomic<int> rpc_serving{0};  // calls being served now (rpc_withdraw waits for them)
    // This rank's non-blocking calls not yet answered (rpc_retire waits for them); shared with
    // their requests, which may outlive the container.
    std::shared_ptr<std::atomic<int>> calls_in_flight = std::make_shared<std::atomic<int>>(0);

    explicit container(runtime *r)
        : ctx(r->handle()), rt(r), direct(r->cpu_atomics() && r->cfg().container_direct) {}
    virtual ~container() = default;

    // The outcome of an operation that ran to its end inside the call: st itself, or with req
    // (the _nb forms) OK and a request whose test gives st (already complete).
    status outcome(const char *who, status st, pgdds_request_t *req) const
    {
        return req ? rt->settled_request(who, st, req) : st;
    }
    // Under RPC, whether a call for `owner`'s part goes to the owner.
    bool calls_owner(int owner) const { return !via_rpc.empty() && via_rpc[size_t(owner)]; }
    // Takes the protocol the ranks agreed on at creation (choose_protocol, rpc.h) and, under
    // RPC, sets the routes; the container must then rpc_enroll before its last barrier.
    void settle_protocol(int chosen);
    // How this rank reaches rank r's part (PGDDS_PROTOCOL_DIRECT, _RDMA or _RPC).
    int protocol_to(int r) const;
    // Runs call `op` (of this container's own numbering) that rank src sent for this rank's
    // part, with the caller's concurrency promise; appends the reply's data to `out`. Runs
    // inside an active-message handler: it may wait only for words other CPUs hold.
    virtual status serve(int src, uint32_t op, unsigned concurrent, const uint8_t *args, size_t len,
                         std::vector<uint8_t> &out)
    {
        (void)src, (void)op, (void)concurrent, (void)args, (void)len, (void)out;
        return fail(PGDDS_ERR_UNSUPPORTED, "this container serves no calls");
    }

    // Runs op(memory) with the memory this call may use: direct memory for the caller's own
    // part under PGDDS_CP_LOCAL (`local`), when the container is direct, or under RPC (whose
    // callers come here only for parts reached by load/store), else the fabric, which decides
    // target by target (core/access.h). The choice is made once per call so that the
    // protocols compile to plain loads, stores and CPU atomics on direct memory.
    template <class Op> status with_memory(const char *who, bool local, Op op) const;
};

// The implementation behind a live handle whose context is live, else a status with the reason.
template <class Cell, class Impl>
status resolve(Cell *h, uint64_t magic, const char *who, const char *what, Impl *&out)
{
    if (PGDDS_UNLIKELY(!h || h->magic != magic)) return bad_handle(h, who, what);
    if (PGDDS_UNLIKELY(runtime::from(h->impl->ctx) != h->impl->rt))
        return fail(PGDDS_ERR_STATE, "%s: the context of this %s has been finalized", who, what);
    // The thread level is the core's, checked here whether the container then reaches memory
    // directly or through the fabric, so both paths answer alike.
    if (PGDDS_UNLIKELY(!h->impl->rt->thread_allowed())) return h->impl->rt->check_thread(who);
    out = h->impl;
    return PGDDS_OK;
}

// resolve for the _nb forms, whose request pointer must be there too.
template <class Cell, class Impl>
status resolve_nb(Cell *h, uint64_t magic, const char *who, const char *what, pgdds_request_t *req, Impl *&out)
{
    status st = resolve(h, magic, who, what, out);
    if (st == PGDDS_OK && !req) return fail(PGDDS_ERR_INVALID_ARG, "%s: req is NULL", who);
    return st;
}

// Why `concurrent` holds promise bits this operation does not know (`allowed`).
status promise_error(const char *who, unsigned concurrent, unsigned allowed);
// Checks that `concurrent` holds only promise bits this operation knows (`allowed`).
inline status check_promise(const char *who, unsigned concurrent, unsigned allowed)
{
    if (PGDDS_LIKELY((concurrent & ~(allowed | PGDDS_CP_LOCAL)) == 0)) return PGDDS_OK;
    return promise_error(who, concurrent, allowed);
}

// Allocates `bytes` (zeroed) in this rank's segment; NO_MEMORY explains the segment size.
status alloc_zeroed(runtime *rt, const char *who, uint64_t bytes, size_t alignment, pgdds_gptr_t &out);

// ---------------------------------------------------------------------------------------------
// Waiting for another rank or thread to change a word
// ---------------------------------------------------------------------------------------------
// Spins politely (the node may be oversubscribed: yield often), keeps the caller's network
// context progressing (a transport may need the target's help for a peer's operation we are
// waiting for, even when we poll our own memory), and gives up when the rank that holds the word
// may have died (PGDDS_ERR_PEER_FAILED: a rank of this node gone, a transport error) or after
// PGDDS_TIMEOUT. Those checks run every 256th round, on the slow path of a wait.
class spinner {
  public:
    explicit spinner(runtime *rt) : rt_(rt) {}
    // Call between polls; false once the wait must end: result() says why, the last error
    // explains it.
    template <class Mem> bool again(Mem &m, const char *who)
    {
        m.idle();
        if (m.failed()) {
            st_ = m.result();
            return false;
        }
        ++spins_;
        if (spins_ < 16) {
            cpu_relax();
            return true;
        }
        std::this_thread::yield();
        return (spins_ & 255) != 0 || still_waiting(who);
    }
    status result() const { return st_; }

  private:
    bool still_waiting(const char *who);  // peers alive and PGDDS_TIMEOUT not reached

    runtime *rt_;
    status st_ = PGDDS_OK;
    double start_ = 0;
    unsigned spins_ = 0;
};

template <class Op> status container::with_memory(const char *who, bool local, Op op) const
{
    if (local || direct || protocol == PGDDS_PROTOCOL_RPC) {
        direct_memory m;
        return op(m);
    }
    fabric_memory m(rt);
    status st = op(m);
    return m.failed() ? fail_prefix(m.result(), who) : st;
}

// Where a container's parts live: per rank, the global pointer of its part and, when the
// container runs on direct memory, the load/store address.
struct parts {
    std::vector<pgdds_gptr_t> global;
    std::vector<uint8_t *> local;

    template <class Mem> typename Mem::address at(int rank) const
    {
        if constexpr (Mem::load_store) return local[size_t(rank)];
        else return global[size_t(rank)];
    }
};

// Gathers every rank's part pointer (collective) and resolves the load/store addresses. Every
// part is `bytes` long; see map_ahead.
status gather_parts(runtime *rt, const char *who, pgdds_gptr_t mine, uint64_t bytes, parts &out);

// Fills this process's page tables for `bytes` of another rank's memory reached by load/store
// (no-op otherwise). The owner has already touched it (alloc_zeroed), so this only maps pages
// that exist: it moves one minor fault per page out of the operations' first touches (each
// costs as much as tens of remote writes) into the collective create.
void map_ahead(runtime *rt, pgdds_gptr_t part, uint64_t bytes);

// A lock taken only when several threads may call at once.
class maybe_lock {
  public:
    maybe_lock(std::mutex &m, bool threaded) : m_(threaded ? &m : nullptr)
    {
        if (m_) m_->lock();
    }
    ~maybe_lock()
    {
        if (m_) m_->unlock();
    }
    maybe_lock(const maybe_lock &) = delete;
    maybe_lock &operator=(const maybe_lock &) = delete;

  private:
    std::mutex *m_;
};

}  // namespace pgdds::containers
