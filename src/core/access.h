// One-sided access to a global pointer: the one place that decides, target by target, between
// load/store and the transport. The C ABI (api_rma.cc), the containers' fabric memory
// (containers/substrate.h) and the key tables (keytable/keytable_internal.h) all go through it.
//  - transfers (get, put): load/store (bulk_copy) when the target's segment is mapped here
//    (runtime::direct), else the transport;
//  - atomics: a CPU atomic when the job's atomicity domain allows one on the target
//    (runtime::cpu_atomics_on), else the transport. A rank of a job across nodes that applies a
//    CPU atomic also progresses its VCI: peers' operations on this rank complete only while it
//    progresses, and a rank spinning on an atomic of its node (its own word, say) keeps serving
//    them.
// The direct paths never touch a VCI: the caller's is looked up (and bound on first use) only
// when the transport is needed.
#pragma once

#include "runtime.h"

#include "../base/amo.h"
#include "../base/bulk_copy.h"

#include <cstring>

namespace pgdds::access {

// The VCI a transport call uses: `v` when the caller has one, else the calling thread's.
inline vci &vci_of(runtime &rt, vci *v) { return v ? *v : rt.current_vci(); }

// Waits on v until `done`'s operations complete; their failure, explained.
inline status complete(runtime &rt, const char *who, vci &v, op_completion &done)
{
    status st = rt.wait(who, v, [&] { return done.done(); });
    if (st != PGDDS_OK) return st;
    return done.result == PGDDS_OK ? PGDDS_OK : rt.failed(who, done.result);
}

// ---------------------------------------------------------------------------------------------
// Transfers
// ---------------------------------------------------------------------------------------------
// The direct step of a transfer between `local` and the checked pointer `remote`: copies by
// load/store and returns true when the target's segment is mapped here, else returns false and
// leaves the transfer to the transport.
inline bool copy_direct(const runtime &rt, bool is_put, pgdds_gptr_t remote, void *local, size_t n)
{
    uint8_t *p = rt.direct(remote);
    if (!p) return false;
    if (is_put) bulk_copy(p, local, n);
    else bulk_copy(local, p, n);
    return true;
}

// The transport's step of a transfer on v; `done` (may be null: the transfer then completes at
// v's next flush) counts its completion.
inline status transfer(runtime &rt, const char *who, vci &v, bool is_put, pgdds_gptr_t remote, void *local, size_t n,
                       op_completion *done)
{
    return is_put ? rt.net_put(who, v, remote, local, n, done) : rt.net_get(who, v, local, remote, n, done);
}

// A checked, blocking transfer: complete on return (a put has landed at the target).
inline status rma(runtime &rt, const char *who, vci *v, bool is_put, pgdds_gptr_t remote, void *local, size_t n)
{
    status st = rt.check_access(who, remote, n);
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    if (copy_direct(rt, is_put, remote, local, n)) return PGDDS_OK;
    vci &w = vci_of(rt, v);
    op_completion done(op_completion::one);
    st = transfer(rt, who, w, is_put, remote, local, n, &done);
    return st == PGDDS_OK ? complete(rt, who, w, done) : st;
}

// A checked transfer that completes at v's next flush when it goes through the transport
// (`through_transport` is then set; a direct one is complete on return).
inline status rma_posted(runtime &rt, const char *who, vci *v, bool is_put, pgdds_gptr_t remote, void *local, size_t n,
                         bool &through_transport)
{
    status st = rt.check_access(who, remote, n);
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    if (copy_direct(rt, is_put, remote, local, n)) return PGDDS_OK;
    through_transport = true;
    return transfer(rt, who, vci_of(rt, v), is_put, remote, local, n, nullptr);
}

// ---------------------------------------------------------------------------------------------
// Atomics
// ---------------------------------------------------------------------------------------------
// What the direct step of an atomic did.
enum class amo_route : uint8_t {
    network,         // nothing: the transport must perform it
    done,            // performed with CPU atomics
    done_progress,   // performed with CPU atomics; the caller must progress its VCI (see above)
};

// The direct step of an atomic on the checked, aligned `target`: a CPU atomic where the job's
// atomicity domain allows one on it.
inline amo_route cpu_step(const runtime &rt, pgdds_gptr_t target, const amo_args &a)
{
    if (!rt.cpu_atomics_on(gptr::rank(target))) return amo_route::network;
    cpu_amo(rt.direct(target), a);
    return rt.cpu_atomics() || !rt.network() ? amo_route::done : amo_route::done_progress;
}

// A checked atomic of a.width bytes, complete on return; `posted`: a non-fetching atomic that,
// through the transport, completes at v's next flush.
inline status atomic(runtime &rt, const char *who, vci *v, pgdds_gptr_t target, const amo_args &a, bool posted = false)
{
    status st = rt.check_access(who, target, a.width, a.width);
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    amo_route r = cpu_step(rt, target, a);
    if (r == amo_route::done) return PGDDS_OK;
    vci &w = vci_of(rt, v);
    if (r == amo_route::done_progress) return rt.progress(w);
    return posted ? rt.amo_posted(who, w, target, a) : rt.amo(who, w, target, a);
}

// ---------------------------------------------------------------------------------------------
// A sequence of accesses by one thread, with writes made visible together
// ---------------------------------------------------------------------------------------------
// For protocols that write several pieces and then publish them (the key tables' records):
// writes through the transport complete at commit(), direct ones at once.
class session {
  public:
    // v: the VCI every transport call uses (the calling thread's, or one it holds).
    session(runtime &rt, vci &v, const char *who) : rt_(rt), v_(v), who_(who) {}

    runtime &rt() const { return rt_; }
    vci &channel() const { return v_; }
    const char *who() const { return who_; }

    // Complete on return; a read issued after another sees memory at least as recent.
    status read(pgdds_gptr_t src, void *dst, size_t n)
    {
        status st = rma(rt_, who_, &v_, false, src, dst, n);
        std::atomic_thread_fence(std::memory_order_acquire);
        return st;
    }
    // One aligned word, read whole whatever atomicity domain writes it.
    status read_word(pgdds_gptr_t src, uint64_t &out)
    {
        status st = rt_.check_access(who_, src, sizeof out, sizeof out);
        if (st != PGDDS_OK) return st;
        if (const uint8_t *d = rt_.direct(src)) {
            out = __atomic_load_n(reinterpret_cast<const uint64_t *>(d), __ATOMIC_ACQUIRE);
            return PGDDS_OK;
        }
        return read(src, &out, sizeof out);
    }
    // Visible to other ranks after commit(); src must stay valid until then.
    status write(pgdds_gptr_t dst, const void *src, size_t n)
    {
        return rma_posted(rt_, who_, &v_, true, dst, const_cast<void *>(src), n, wrote_through_transport_);
    }
    status commit()
    {
        std::atomic_thread_fence(std::memory_order_release);
        if (!wrote_through_transport_) return PGDDS_OK;
        wrote_through_transport_ = false;
        return rt_.flush(who_, v_);
    }
    // A 64-bit atomic, complete on return.
    status atomic64(pgdds_gptr_t target, amo_op op, uint64_t operand, uint64_t compare, uint64_t *result)
    {
        return atomic(rt_, who_, &v_, target, amo_args{op, 8, operand, compare, result});
    }
    // A CPU atomic on a word of this rank's own segment, whatever the job's atomicity domain: for
    // memory that only this rank applies atomics to (the caller's promise).
    status own_atomic64(pgdds_gptr_t target, amo_op op, uint64_t operand, uint64_t compare, uint64_t *result)
    {
        status st = rt_.check_access(who_, target, 8, 8);
        if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
        cpu_amo(rt_.direct(target), amo_args{op, 8, operand, compare, result});
        return PGDDS_OK;
    }

  private:
    runtime &rt_;
    vci &v_;
    const char *who_;
    bool wrote_through_transport_ = false;
};

}  // namespace pgdds::access
