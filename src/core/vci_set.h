// The VCI set of a runtime: the user VCIs and the service VCI, which thread is bound to which
// (round robin on first use, or pgdds_vci_bind), their lock modes (lock-free for one owner,
// locked for several), borrowing another thread's VCI, progress with its periodic sweeps, the
// progress thread, and the wait and retry loops every blocking call runs. current_vci, wait and
// retry are on the data path: they stay inline.
#pragma once

#include "../base/common.h"
#include "vci.h"

#include <atomic>
#include <memory>
#include <sched.h>
#include <thread>
#include <vector>

struct pgdds_request;

namespace pgdds {

class runtime;
class transport;
class am_engine;

class vci_set {
  public:
    explicit vci_set(runtime &rt) : rt_(rt) {}
    ~vci_set();
    vci_set(const vci_set &) = delete;
    vci_set &operator=(const vci_set &) = delete;

    // --- start-up ----------------------------------------------------------------------------
    // num_vcis user VCIs; threaded: VCIs shared by threads take locks (MULTIPLE, or a progress
    // thread); timeout: PGDDS_TIMEOUT, which bounds every wait.
    void configure(unsigned num_vcis, bool threaded, double timeout);
    // This node's ranks and the cores they may run on together (the union of their CPU sets; 0:
    // unknown, then the node's online cores), for cores_oversubscribed.
    void set_node(int local_nranks, int node_cores);
    // Creates the VCIs once the transports are connected: the service VCI, every VCI with a
    // progress thread, and every VCI when membarrier(2) is missing under MULTIPLE take locks.
    void create(bool progress_thread, bool thread_multiple);
    // The transports and active-message engine that progress() drives.
    void attach(transport *net, transport *shm, am_engine *ams)
    {
        net_ = net;
        shm_ = shm;
        ams_ = ams;
    }
    void start_progress_thread();
    void stop_progress_thread();

    // --- binding -------------------------------------------------------------------------------
    unsigned num_vcis() const { return num_vcis_; }            // user VCIs
    unsigned num_endpoints() const { return num_vcis_ + 1; }   // plus the service VCI
    unsigned service_vci() const { return num_vcis_; }
    bool threaded() const { return threaded_; }
    // The calling thread's VCI (binding it round robin on first use).
    vci &current()
    {
        if (PGDDS_LIKELY(tls_binding.set_id == id_)) return *vcis_[tls_binding.vci];
        return bind_slow(-1);
    }
    vci &at(unsigned i) { return *vcis_[i]; }
    // Whether v is the calling thread's own VCI (otherwise it must be borrowed).
    bool is_mine(const vci &v) const { return tls_binding.set_id == id_ && tls_binding.vci == v.index; }
    bool is_bound() const { return tls_binding.set_id == id_; }
    status bind(unsigned index);
    // The calling thread is the library's progress thread.
    static bool on_library_thread() { return tls_library_thread; }

    // --- progress and waiting ------------------------------------------------------------------
    // More ranks, or more ranks times this rank's bound threads, than cores on this node: a
    // spinning thread holds the core its peer (or the thread that progresses the peer's side,
    // or a thread of its own waiting for a shared VCI's lock) needs, so it should yield.
    bool cores_oversubscribed() const
    {
        return oversubscribed_ ||
               (threaded_ && local_nranks_ * bound_threads_.load(std::memory_order_relaxed) > node_cores_);
    }
    void yield_if_oversubscribed() const
    {
        if (cores_oversubscribed()) sched_yield();
    }
    status progress(vci &v);
    status progress_unattended(const vci *mine, bool ownerless_only = false);
    status attend_user_vcis();
    template <class Pred> status wait(const char *who, vci &v, Pred pred);
    template <class Op> status retry(const char *who, vci &v, Op op);
    void complete_deferred(vci &v)
    {
        if (PGDDS_LIKELY(v.deferred.empty())) return;
        vci_scope scope(v, threaded_, !is_mine(v));
        v.deferred.complete();
    }

    // --- requests and counts -------------------------------------------------------------------
    pgdds_request *request_get(vci &v);
    void request_put(vci &v, pgdds_request *r);
    void net_counts(uint64_t (&out)[net_count_kinds]) const;

  private:
    friend struct thread_bindings;
    vci &bind_slow(int requested);
    // A thread bound to VCI `index` leaves it (rebinding, or exiting): a VCI left with one owner
    // needs no lock again.
    void unbind(unsigned index);
    // Locked when several threads are bound to v, lock-free for one.
    void update_mode(vci &v);
    status progress_one(vci &v);
    bool idle_owner_due(vci &v);
    void progress_thread_main();
    // The slow paths of wait and retry, answered by the runtime's liveness checks.
    status failed(const char *who, status st);
    status check_peers(const char *who, bool now = false);

    struct binding {
        uint64_t set_id = 0;
        unsigned vci = 0;
    };
    static thread_local binding tls_binding;
    static thread_local unsigned tls_issued;       // operations issued, for periodic progress
    static thread_local unsigned tls_progressed;   // progress calls, for periodic sweeps
    static thread_local bool tls_library_thread;   // the progress thread
    static std::atomic<uint64_t> next_id;

    runtime &rt_;
    uint64_t id_ = 0;  // unique in the process: what a thread's binding names
    unsigned num_vcis_ = 1;
    bool threaded_ = false;
    double timeout_ = 0;
    std::vector<std::unique_ptr<vci>> vcis_;  // num_vcis_ user VCIs + the service VCI
    std::atomic<unsigned> next_vci_{0};
    transport *net_ = nullptr;
    transport *shm_ = nullptr;
    am_engine *ams_ = nullptr;
    bool oversubscribed_ = false;  // more ranks on this node than cores this process may use
    int node_cores_ = 1;           // the cores of this node the ranks share
    int local_nranks_ = 1;
    std::atomic<int> bound_threads_{0};  // this rank's threads bound to a VCI
    std::thread progress_thread_;
    std::atomic<bool> progress_stop_{false};
};

// ---------------------------------------------------------------------------------------------
// Progresses VCI v (which the caller holds) until pred() holds. Sweeps the other VCIs now and
// then, yields the CPU when the node is oversubscribed, watches for dead peers and PGDDS_TIMEOUT.
template <class Pred> status vci_set::wait(const char *who, vci &v, Pred pred)
{
    unsigned spins = 0;
    double start = 0;
    const bool collective = v.index == service_vci();
    while (!pred()) {
        status st = progress(v);
        if (collective && st == PGDDS_OK) st = attend_user_vcis();
        if (PGDDS_UNLIKELY(st != PGDDS_OK)) return failed(who, st);
        if (pred()) break;
        yield_if_oversubscribed();
        if (PGDDS_UNLIKELY((++spins & 255) == 0)) {
            st = check_peers(who);  // rate-limited inside
            if (st != PGDDS_OK) return st;
            double t = now_seconds();
            if (start == 0) start = t;
            if (timeout_ > 0 && t - start > timeout_) {
                st = check_peers(who, true);  // a dead peer explains it better, when one is seen
                return st != PGDDS_OK ? st
                                      : fail(PGDDS_ERR_TIMEOUT, "%s: no completion after %.1f s (PGDDS_TIMEOUT)",
                                             who, t - start);
            }
            std::this_thread::yield();
        }
    }
    return PGDDS_OK;
}

// Runs a transport call, retrying after progress while it says PGDDS_ERR_AGAIN.
template <class Op> status vci_set::retry(const char *who, vci &v, Op op)
{
    status st;
    double start = 0;
    for (;;) {
        {
            vci_scope scope(v, threaded_, !is_mine(v));
            st = op();
        }
        if (st == PGDDS_OK && PGDDS_UNLIKELY((++tls_issued & 15) == 0)) {
            // Every call progresses its VCI now and then, so that a thread that only issues
            // non-blocking operations still serves the operations that target it.
            status pst = progress(v);
            if (pst != PGDDS_OK) return failed(who, pst);
        }
        if (st != PGDDS_ERR_AGAIN) break;
        status pst = progress(v);
        if (pst == PGDDS_OK) pst = check_peers(who);
        if (pst != PGDDS_OK) return failed(who, pst);
        // A peer that keeps answering "try again" is bounded by PGDDS_TIMEOUT like any wait.
        if (timeout_ > 0) {
            double t = now_seconds();
            if (start == 0) start = t;
            if (t - start > timeout_) {
                pst = check_peers(who, true);
                return pst != PGDDS_OK ? pst
                                       : fail(PGDDS_ERR_TIMEOUT, "%s: the transport kept answering \"try again\" "
                                              "for %.1f s (PGDDS_TIMEOUT)", who, t - start);
            }
        }
        // No room until a peer takes what waits for it: on a node with more ranks than cores
        // that peer may need this core to do so (as in wait()).
        yield_if_oversubscribed();
    }
    return st == PGDDS_OK ? st : failed(who, st);
}

}  // namespace pgdds
