// The VCI set: thread binding and lock modes, progress and its sweeps, the progress thread,
// and the request pool.
#include "vci_set.h"
#include "am_engine.h"
#include "rpc.h"
#include "runtime.h"


#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <unistd.h>

namespace pgdds {

thread_local vci_set::binding vci_set::tls_binding;
thread_local unsigned vci_set::tls_issued;
thread_local unsigned vci_set::tls_progressed;
thread_local bool vci_set::tls_library_thread;
std::atomic<uint64_t> vci_set::next_id{1};

namespace {
// The VCI sets alive, by id, for threads that leave their VCIs when they exit (a runtime may
// have been finalized first). Never destroyed: threads may exit during the process's exit.
std::mutex live_lock;
std::map<uint64_t, vci_set *> &live_sets()
{
    static auto *live = new std::map<uint64_t, vci_set *>;
    return *live;
}
}  // namespace

// The VCIs the calling thread is bound to, one per context; left when the thread exits, so
// that the next thread bound there can again use it without a lock.
struct thread_bindings {
    std::map<uint64_t, unsigned> vci_of;  // VCI set id -> VCI index
    ~thread_bindings()
    {
        std::lock_guard<std::mutex> g(live_lock);
        for (auto [id, index] : vci_of) {
            auto it = live_sets().find(id);
            if (it != live_sets().end()) it->second->unbind(index);
        }
    }
};
thread_local thread_bindings tls_bindings;

// ----------------------------------------------------------------------------------------------
// Start-up and shutdown
// ----------------------------------------------------------------------------------------------
void vci_set::configure(unsigned num_vcis, bool threaded, double timeout)
{
    id_ = next_id.fetch_add(1);
    {
        std::lock_guard<std::mutex> g(live_lock);
        live_sets()[id_] = this;
    }
    num_vcis_ = num_vcis;
    threaded_ = threaded;
    timeout_ = timeout;
}

void vci_set::set_node(int local_nranks, int node_cores)
{
    node_cores_ = node_cores > 0 ? node_cores : std::max(1, int(sysconf(_SC_NPROCESSORS_ONLN)));
    local_nranks_ = local_nranks;
    oversubscribed_ = local_nranks_ > node_cores_;
}

void vci_set::create(bool progress_thread, bool thread_multiple)
{
    vcis_.reserve(num_endpoints());
    for (unsigned i = 0; i < num_endpoints(); ++i) {
        vcis_.emplace_back(new vci());
        vcis_[i]->index = i;
        // The service VCI serves whichever thread runs a collective; with a progress thread
        // every VCI is attended by two threads.
        if (i == service_vci() || progress_thread) vcis_[i]->always_locked = vcis_[i]->locked_mode = true;
    }
    if (thread_multiple && !progress_thread && !asymmetric_barrier_init()) {
        PGDDS_LOG(LOG_INFO, "membarrier(2) is unavailable: every VCI takes its lock");
        for (auto &v : vcis_) v->always_locked = v->locked_mode = true;
    }
}

void vci_set::start_progress_thread()
{
    progress_thread_ = std::thread([this] { progress_thread_main(); });
}

void vci_set::stop_progress_thread()
{
    if (progress_thread_.joinable()) {
        progress_stop_ = true;
        progress_thread_.join();
    }
}

vci_set::~vci_set()
{
    {
        std::lock_guard<std::mutex> g(live_lock);
        live_sets().erase(id_);
    }
    stop_progress_thread();
    for (auto &v : vcis_) {
        while (pgdds_request *r = v->free_requests) {
            v->free_requests = r->next_free;
            delete r;
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Binding and lock modes
// ----------------------------------------------------------------------------------------------
vci &vci_set::bind_slow(int requested)
{
    auto &bound = tls_bindings.vci_of;
    auto it = bound.find(id_);
    unsigned index;
    if (requested < 0 && it != bound.end()) {
        index = it->second;
    } else {
        index = requested >= 0 ? unsigned(requested) : next_vci_.fetch_add(1) % num_vcis_;
        if (it != bound.end()) unbind(it->second);
        vci &v = *vcis_[index];
        v.owners.fetch_add(1);
        bound_threads_.fetch_add(1, std::memory_order_relaxed);
        update_mode(v);
        bound[id_] = index;
    }
    tls_binding = binding{id_, index};
    return *vcis_[index];
}

void vci_set::unbind(unsigned index)
{
    vcis_[index]->owners.fetch_sub(1);
    bound_threads_.fetch_sub(1, std::memory_order_relaxed);
    update_mode(*vcis_[index]);
}

// Every change of owners is followed by this, so the last one to run sees the final count.
// Holding the VCI exclusively excludes everyone: locked-mode users through the lock, an
// unlocked owner by waiting until it leaves its operation and, until the switch has left, by
// the borrower count it checks.
void vci_set::update_mode(vci &v)
{
    if (!threaded_ || v.always_locked) return;
    vci_scope hold(v, vci_scope::exclusive);
    v.locked_mode.store(v.owners.load() > 1, std::memory_order_release);
}

status vci_set::bind(unsigned index)
{
    if (index >= num_vcis_)
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_vci_bind: VCI %u does not exist (the context has %u)", index,
                    num_vcis_);
    bind_slow(int(index));
    return PGDDS_OK;
}

// ----------------------------------------------------------------------------------------------
// Progress
// ----------------------------------------------------------------------------------------------
// One round of progress on v, then runs the handlers of complete active messages; every 256th
// call of a thread also progresses the other VCIs nobody attends, so that no operation waits
// for a VCI nobody attends (the VCI thesis' starvation example).
status vci_set::progress(vci &v)
{
    // Held calls go out at the caller's next progress: no call waits longer than that.
    if (PGDDS_UNLIKELY(rt_.rpc_holding.load(std::memory_order_relaxed))) {
        status sst = rpc_send_held(rt_);
        if (sst != PGDDS_OK) return rt_.note(sst);
    }
    status st = progress_one(v);
    if (st == PGDDS_OK && PGDDS_UNLIKELY((++tls_progressed & 255) == 0)) st = progress_unattended(&v);
    return rt_.note(st);
}

// Progresses every VCI but `mine` that nobody attends (borrowing those of other threads), or
// only those no thread is bound to.
status vci_set::progress_unattended(const vci *mine, bool ownerless_only)
{
    for (auto &other : vcis_) {
        if (other.get() == mine) continue;
        if (threaded_) {
            if (ownerless_only && other->owners.load(std::memory_order_relaxed) != 0) continue;
            // A VCI progressed since the last sweep looked, whose owner is inside an operation
            // or only briefly away, or whose lock another thread holds, is being attended:
            // borrowing it would only wait for that thread. The cheap checks come first.
            uint64_t rounds = other->progress_rounds.load(std::memory_order_relaxed);
            if (other->rounds_at_sweep.exchange(rounds, std::memory_order_relaxed) != rounds) {
                other->idle_borrows.store(0, std::memory_order_relaxed);
                other->next_borrow_at.store(0, std::memory_order_relaxed);
                continue;
            }
            if (other->in_op.load(std::memory_order_relaxed)) continue;
            if (other->owners.load(std::memory_order_relaxed) != 0 && !idle_owner_due(*other)) continue;
            if (!other->lock.try_lock()) continue;
            other->lock.unlock();
        }
        status st = progress_one(*other);
        if (st != PGDDS_OK) return st;
        // The sweep's own round is no sign that anybody else attends the VCI.
        if (threaded_)
            other->rounds_at_sweep.store(other->progress_rounds.load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
    return PGDDS_OK;
}

// Whether a sweep may borrow v now, whose owner has not progressed it since the last sweep
// looked. An owner away for less than first_wait is most likely descheduled or between two
// calls: borrowing would only wait for it. After that, borrows come at intervals that double
// up to max_wait while the owner stays away.
bool vci_set::idle_owner_due(vci &v)
{
    constexpr double first_wait = 20e-6, max_wait = 500e-6;
    double now = now_seconds(), due = v.next_borrow_at.load(std::memory_order_relaxed);
    if (due == 0) {  // the absence starts now
        v.next_borrow_at.compare_exchange_strong(due, now + first_wait, std::memory_order_relaxed);
        return false;
    }
    if (now < due) return false;
    unsigned n = std::min(v.idle_borrows.fetch_add(1, std::memory_order_relaxed), 16u);
    double wait = std::min(max_wait, std::ldexp(first_wait, int(n)));
    // One sweeper wins the slot; the others see the new time and pass by.
    return v.next_borrow_at.compare_exchange_strong(due, now + wait, std::memory_order_relaxed);
}

status vci_set::progress_one(vci &v)
{
    status st = PGDDS_OK;
    {
        vci_scope scope(v, threaded_, !is_mine(v));
        v.progress_rounds.store(v.progress_rounds.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        if (net_) st = net_->progress(v.index);
        if (st == PGDDS_OK && shm_) st = shm_->progress(v.index);
    }
    if (PGDDS_UNLIKELY(rt_.soft() != nullptr)) rt_.soft()->send_replies(v);
    if (!am_engine::in_handler() && v.inbox_count.load(std::memory_order_acquire)) ams_->run_handlers(v);
    return st;
}

// Peers' gets, atomics and flushes that target a rank waiting in a collective complete only
// when it progresses the VCI they arrive on (manual-progress transports: libfabric's tcp and
// shm, UCX's tcp). The periodic sweep of progress() alone would leave them waiting hundreds of
// progress rounds, each a system call on a socket-based transport. With several threads the
// waiter attends its own VCI and those no thread is bound to any more (their threads ended):
// nobody else would. VCIs of live threads are theirs, and the periodic sweep's.
status vci_set::attend_user_vcis()
{
    // One thread: every VCI but the service VCI, which the waiter progresses itself.
    if (!threaded_) return progress_unattended(&at(service_vci()));
    vci *mine = is_bound() ? &current() : nullptr;
    status st = mine ? progress_one(*mine) : PGDDS_OK;
    return st == PGDDS_OK ? progress_unattended(mine, true) : st;
}

void vci_set::progress_thread_main()
{
    tls_library_thread = true;  // its handlers may call the library whatever the thread level
    while (!progress_stop_.load(std::memory_order_relaxed)) {
        for (auto &v : vcis_) {
            if (!v->lock.try_lock()) continue;  // someone is working on it: it progresses
            v->lock.unlock();
            progress_one(*v);
        }
        std::this_thread::yield();
    }
}


status vci_set::failed(const char *who, status st) { return rt_.failed(who, st); }

status vci_set::check_peers(const char *who, bool now) { return rt_.check_peers(who, now); }

// ----------------------------------------------------------------------------------------------
// Requests and counts
// ----------------------------------------------------------------------------------------------
pgdds_request *vci_set::request_get(vci &v)
{
    pgdds_request *r;
    {
        vci_scope scope(v, threaded_, !is_mine(v));
        r = v.free_requests;
        if (r) v.free_requests = r->next_free;
    }
    if (!r) r = new (std::nothrow) pgdds_request();
    if (!r) return nullptr;
    r->magic = request_magic;
    r->vci = v.index;
    r->done.pending.store(0, std::memory_order_relaxed);
    r->done.result = PGDDS_OK;
    r->next_free = nullptr;
    r->deferred = nullptr;
    return r;
}

void vci_set::request_put(vci &v, pgdds_request *r)
{
    r->magic = request_free_magic;
    vci_scope scope(v, threaded_, !is_mine(v));
    r->next_free = v.free_requests;
    v.free_requests = r;
}

void vci_set::net_counts(uint64_t (&out)[net_count_kinds]) const
{
    for (auto &c : out) c = 0;
    for (auto &v : vcis_)
        for (int k = 0; k < net_count_kinds; ++k) out[k] += v->counts[k].load(std::memory_order_relaxed);
}

}  // namespace pgdds
