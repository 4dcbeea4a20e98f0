// Peer liveness, the calling thread's check, and the network operations and flushes of a
// runtime. Start-up and finalize are in startup.cc, the peer map, VCI set and active-message
// engine in their own files.
#include "runtime.h"
#include "rpc.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <thread>

namespace pgdds {

// ----------------------------------------------------------------------------------------------
// Threads and peer liveness
// ----------------------------------------------------------------------------------------------
status runtime::check_thread(const char *who) const
{
    if (!thread_allowed())
        return fail(PGDDS_ERR_STATE, "%s: called from a thread other than the one that initialized the "
                    "context, which asked for PGDDS_THREAD_%s (use PGDDS_THREAD_SERIALIZED or MULTIPLE)", who,
                    cfg_.thread_level == PGDDS_THREAD_SINGLE ? "SINGLE" : "FUNNELED");
    return PGDDS_OK;
}

void runtime::remember_peer_failure()
{
    std::lock_guard<std::mutex> guard(peer_failure_lock_);
    if (!peer_failed_.exchange(true)) peer_failure_ = pgdds_last_error();
}

status runtime::failed(const char *who, status st)
{
    // A transport's own "peer failed" (UCX's endpoint timeout, a reset connection) names no
    // cause either; a rank of this node seen dead names it.
    if (st == PGDDS_ERR_TRANSPORT || st == PGDDS_ERR_PEER_FAILED) {
        const double give_up = now_seconds() + 1.0;
        for (;;) {
            status pst = check_peers(who, true);
            if (pst != PGDDS_OK) return pst;
            if (now_seconds() > give_up) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    return note(fail_prefix(st, who));
}

status runtime::check_peers(const char *who, bool now)
{
    double t = now_seconds();
    if (!now && t - last_peer_check_ < 0.2) return PGDDS_OK;
    last_peer_check_ = t;
    if (boot_->launcher_gone()) {
        close_at_exit(this);
        return fail(PGDDS_ERR_PEER_FAILED, "%s: the launcher is gone (its PMI connection closed): the job "
                    "cannot go on", who);
    }
    if (int dead = boot_->reported_failure(); dead >= 0 && dead < nranks() && dead != rank())
        return note(fail(PGDDS_ERR_PEER_FAILED, "%s: rank %d has died (reported by the launcher)", who, dead));
    for (int r = 0; r < nranks(); ++r) {
        if (r == rank() || !is_local(r)) continue;
        if (kill(peers_.pid_of(r), 0) != 0 && errno == ESRCH)
            return note(fail(PGDDS_ERR_PEER_FAILED, "%s: rank %d (pid %d, on this node) has died", who, r,
                             int(peers_.pid_of(r))));
    }
    return PGDDS_OK;
}

// ----------------------------------------------------------------------------------------------
// Transport operations, flush, requests
// ----------------------------------------------------------------------------------------------
// Each transport call that succeeds is counted on its VCI, under the VCI's scope.
status runtime::net_put(const char *who, vci &v, pgdds_gptr_t dst, const void *src, size_t n, op_completion *done)
{
    return retry(who, v, [&] {
        status st = net_->put(v.index, gptr::rank(dst), gptr::offset(dst), src, n, done);
        return counted(v, st, count_puts, count_put_bytes, n);
    });
}

status runtime::net_get(const char *who, vci &v, void *dst, pgdds_gptr_t src, size_t n, op_completion *done)
{
    return retry(who, v, [&] {
        status st = net_->get(v.index, gptr::rank(src), gptr::offset(src), dst, n, done);
        return counted(v, st, count_gets, count_get_bytes, n);
    });
}

status runtime::amo(const char *who, vci &v, pgdds_gptr_t target, const amo_args &a)
{
    op_completion done(op_completion::one);
    status st = amo_issue(who, v, target, a, &done);
    if (st != PGDDS_OK) return st;
    st = wait(who, v, [&] { return done.done(); });
    if (st != PGDDS_OK) return st;
    return done.result == PGDDS_OK ? PGDDS_OK : failed(who, done.result);
}

status runtime::amo_issue(const char *who, vci &v, pgdds_gptr_t target, const amo_args &a, op_completion *done)
{
    if (PGDDS_UNLIKELY(soft_))
        return soft_->issue(who, v, gptr::rank(target), gptr::offset(target), a, done, count_atomics);
    return retry(who, v, [&] {
        return counted(v, net_->amo(v.index, gptr::rank(target), gptr::offset(target), a, done), count_atomics);
    });
}

status runtime::amo_posted(const char *who, vci &v, pgdds_gptr_t target, const amo_args &a)
{
    if (PGDDS_UNLIKELY(soft_))
        return soft_->issue(who, v, gptr::rank(target), gptr::offset(target), a, nullptr, count_atomics_posted);
    return retry(who, v, [&] {
        return counted(v, net_->amo(v.index, gptr::rank(target), gptr::offset(target), a, nullptr),
                       count_atomics_posted);
    });
}

// Issues v's kept-back stores, then `issue` (a transport flush or fence) and waits for it.
template <class Issue> status runtime::after_deferred(const char *who, vci &v, Issue issue)
{
    complete_deferred(v);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (!net_) return PGDDS_OK;
    // Software atomics are ordered by nothing but their replies.
    status st = PGDDS_UNLIKELY(soft_) ? soft_->quiet(who, v) : PGDDS_OK;
    if (st != PGDDS_OK) return st;
    op_completion done(op_completion::one);
    st = retry(who, v, [&] { return issue(done); });
    if (st != PGDDS_OK) return st;
    st = wait(who, v, [&] { return done.done(); });
    if (st != PGDDS_OK) return st;
    return done.result == PGDDS_OK ? PGDDS_OK : failed(who, done.result);
}

status runtime::flush(const char *who, vci &v)
{
    // Held calls go out at a flush too, and so before any barrier's messages.
    if (PGDDS_UNLIKELY(rpc_holding.load(std::memory_order_relaxed))) {
        status st = rpc_send_held(*this);
        if (st != PGDDS_OK) return st;
    }
    return after_deferred(who, v,
                          [&](op_completion &done) { return counted(v, net_->flush(v.index, &done), count_flushes); });
}

// Like flush, but only for order: kept-back stores go out and the transport orders what follows
// behind what went before (waiting only where it cannot order otherwise).
status runtime::fence(const char *who, vci &v)
{
    return after_deferred(who, v, [&](op_completion &done) { return net_->fence(v.index, &done); });
}

status runtime::flush_all(const char *who)
{
    for (unsigned i = 0; i < num_endpoints(); ++i) {
        status st = flush(who, vci_at(i));
        if (st != PGDDS_OK) return st;
    }
    return PGDDS_OK;
}

}  // namespace pgdds
