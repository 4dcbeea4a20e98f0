// Virtual communication interfaces (VCIs): independent network contexts, one per communicating
// thread (Zambre thesis, ch. 3-4). A VCI owned by one thread takes no lock: the owner only
// raises `in_op` around each operation. Another thread that must touch it (a second thread
// bound to it, a waiter sweeping every VCI so no one starves) *borrows* it: it announces itself
// in `borrowers`, issues an asymmetric memory barrier (membarrier(2)) so the owner's `in_op`
// becomes visible, takes the lock and waits for the owner to leave its operation. The owner
// sees `borrowers` and takes the lock too until the borrower is gone. The heavy barrier is paid
// by the rare borrower, never by the owner. A VCI shared by several threads (or attended by the
// progress thread) is simply locked.
#pragma once

#include "../base/common.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

struct pgdds_request;

namespace pgdds {

// One active message waiting for its handler (payload copied out of the transport's buffer).
struct am_message {
    uint32_t handler;
    int src;
    std::vector<uint8_t> payload;
};

// What pgdds_net_counts reports, one counter each.
enum net_count { count_puts, count_gets, count_put_bytes, count_get_bytes, count_atomics, count_atomics_posted,
                 count_flushes, net_count_kinds };

// Small stores into load/store-reachable segments that complete like puts: at the VCI's next
// flush (every barrier flushes every VCI). A FastQueue push on one node is a fetch-add and a
// store to a cache line that another core wrote last; stored at once, that line must arrive
// before the next push's locked fetch-add may run. Kept back and stored together, the lines
// travel at the same time: on 2 ranks the push rate doubles for the bare instructions. Touched
// under the VCI's scope only; the count is also read without it, so that flushing an idle VCI
// takes no scope.
class deferred_stores {
  public:
    static constexpr unsigned capacity = 16;
    static constexpr size_t max_bytes = 32;  // larger stores are not kept back

    bool empty() const { return count_.load(std::memory_order_relaxed) == 0; }
    // Keeps back a store of n <= max_bytes bytes to dst; stores everything once full.
    void add(uint8_t *dst, const void *src, size_t n)
    {
        unsigned c = count_.load(std::memory_order_relaxed);
        entry &e = entries_[c];
        e.dst = dst;
        e.n = uint32_t(n);
        copy_bytes(e.bytes, src, n);
        if (++c == capacity) {
            store(c);
            c = 0;
        }
        count_.store(c, std::memory_order_relaxed);
    }
    void complete()
    {
        store(count_.load(std::memory_order_relaxed));
        count_.store(0, std::memory_order_relaxed);
    }

  private:
    void store(unsigned c)
    {
        for (unsigned i = 0; i < c; ++i) copy_bytes(entries_[i].dst, entries_[i].bytes, entries_[i].n);
    }
    struct entry {
        uint8_t *dst;
        uint32_t n;
        alignas(8) uint8_t bytes[max_bytes];
    };
    entry entries_[capacity];
    std::atomic<unsigned> count_{0};
};

struct alignas(cache_line) vci {
    unsigned index = 0;
    // --- ownership -------------------------------------------------------------------------
    std::atomic<int> in_op{0};         // the private owner is inside an operation
    std::atomic<int> borrowers{0};     // threads waiting for or holding `lock` as borrowers
    std::atomic<bool> locked_mode{false};  // shared by several threads: always lock
    bool always_locked = false;        // locked whoever is bound (service VCI, progress thread)
    std::atomic<int> owners{0};        // threads bound to this VCI
    std::recursive_mutex lock;
    std::atomic<int> debug_users{0};   // ownership assertion (debug builds)
    // Rounds of progress made on the VCI (counted under its scope), and the count other threads'
    // sweeps saw last (a line of its own: they write it, the owner never does). A sweep borrows
    // a VCI only when nobody attended it in between, so busy threads do not pay for borrowing
    // each other's VCIs (an asymmetric barrier each). An owner that stays away (computing,
    // blocked outside the library, descheduled) is borrowed only after a while and then at
    // growing intervals (runtime::idle_owner_due): every borrow interrupts each running thread
    // of the process, and at every sweep that took a fifth of a busy thread's time.
    std::atomic<uint64_t> progress_rounds{0};
    alignas(cache_line) std::atomic<uint64_t> rounds_at_sweep{0};
    std::atomic<unsigned> idle_borrows{0};  // borrows since the owner was last seen
    std::atomic<double> next_borrow_at{0};  // now_seconds() of the next borrow; 0: owner seen

    // --- state touched only under the VCI's scope -----------------------------------------
    // Operations handed to the transport (pgdds_net_counts): written under the scope only, so
    // a plain load and store suffice; atomic so that a reader on another thread may sum them.
    std::atomic<uint64_t> counts[net_count_kinds] = {};
    void count(net_count kind, uint64_t n = 1)
    {
        counts[kind].store(counts[kind].load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    pgdds_request *free_requests = nullptr;  // per-VCI request pool
    uint64_t next_am_id = 0;
    struct partial_am {
        std::vector<uint8_t> data;
        uint32_t received = 0;
    };
    std::unordered_map<uint64_t, partial_am> reassembly;  // key: src rank << 32 | message id
    std::deque<am_message> inbox;                          // complete messages not yet handled
    std::atomic<uint32_t> inbox_count{0};                  // inbox.size(), readable without the VCI
    deferred_stores deferred;                              // complete at the next flush
};

// Whether this build can make a thread's stores visible without its cooperation.
bool asymmetric_barrier_init();
void asymmetric_barrier();

// Holds a VCI for the calling thread for the duration of one operation.
class vci_scope {
  public:
    // threaded: the context allows several threads (PGDDS_THREAD_MULTIPLE or a progress thread).
    // as_borrower: the caller is not the VCI's bound owner.
    vci_scope(vci &v, bool threaded, bool as_borrower) : v_(v)
    {
        if (!threaded) return;
        for (;;) {
            const bool was_locked = v.locked_mode.load(std::memory_order_relaxed);
            if (!was_locked) {
                if (!as_borrower) {
                    v.in_op.store(1, std::memory_order_relaxed);
                    std::atomic_signal_fence(std::memory_order_seq_cst);
                    // No borrower, and still unlocked: a switch to locked mode happens while
                    // its thread is a borrower, and it stores the mode before it leaves.
                    if (PGDDS_LIKELY(v.borrowers.load(std::memory_order_relaxed) == 0 &&
                                     !v.locked_mode.load(std::memory_order_acquire))) {
                        mode_ = owner;
                        debug_enter();
                        return;
                    }
                    v.in_op.store(0, std::memory_order_release);
                } else {
                    enter_as_borrower();
                    return;
                }
            }
            v.lock.lock();
            // Back to one owner while this thread waited for the lock (the switch holds the VCI
            // exclusively): the lock no longer excludes that owner, so take the unlocked path.
            if (was_locked && PGDDS_UNLIKELY(!v.locked_mode.load(std::memory_order_relaxed))) {
                v.lock.unlock();
                continue;
            }
            mode_ = locked;
            debug_enter();
            return;
        }
    }

    // A switch between lock-free and locked use (vci_set::update_mode): held as a borrower
    // whatever the mode, so that the lone owner, which may enter without the lock once the mode
    // says lock-free, still sees a borrower and takes the lock until the switch has left. (Taken
    // through the lock alone, a switch to lock-free let the owner in before it had left.)
    struct exclusive_t {};
    static constexpr exclusive_t exclusive{};
    vci_scope(vci &v, exclusive_t) : v_(v) { enter_as_borrower(); }

    ~vci_scope()
    {
        if (mode_ == none) return;
        debug_leave();
        if (mode_ == owner) {
            v_.in_op.store(0, std::memory_order_release);
            return;
        }
        v_.lock.unlock();
        if (mode_ == borrower) v_.borrowers.fetch_sub(1, std::memory_order_release);
    }
    vci_scope(const vci_scope &) = delete;
    vci_scope &operator=(const vci_scope &) = delete;

  private:
    // Announces the caller in `borrowers`, makes an owner's `in_op` visible, takes the lock
    // and waits for the owner to leave its operation.
    void enter_as_borrower()
    {
        v_.borrowers.fetch_add(1, std::memory_order_seq_cst);
        // No owner, no barrier: a thread that binds later announces itself as a borrower too
        // (vci_set::update_mode), after this increment, so its own operations see ours.
        if (v_.owners.load(std::memory_order_seq_cst) != 0) asymmetric_barrier();
        v_.lock.lock();
        // The owner finishes its operation; it may be descheduled meanwhile when threads
        // outnumber cores.
        for (unsigned spins = 0; v_.in_op.load(std::memory_order_acquire); ++spins) {
            if (spins < 64) cpu_relax();
            else std::this_thread::yield();
        }
        mode_ = borrower;
        debug_enter();
    }

    // Two threads inside one VCI without holding its lock would corrupt its fabric state. A lone
    // owner checks with a plain load and store, not a locked read-modify-write: borrowers enter
    // only after it left (in_op), so a correct run never races on the count, and an owner that
    // finds anybody inside aborts. Two locked operations per call would be a third of an 8-byte
    // put over UCX's shared memory, and the message-rate benchmarks run debug builds too.
    void debug_enter()
    {
#ifndef NDEBUG
        if (mode_ == owner) {
            if (v_.debug_users.load(std::memory_order_relaxed) != 0) ownership_violation(v_);
            v_.debug_users.store(1, std::memory_order_relaxed);
        } else {
            v_.debug_users.fetch_add(1);
        }
#endif
    }
    void debug_leave()
    {
#ifndef NDEBUG
        if (mode_ == owner) v_.debug_users.store(0, std::memory_order_relaxed);
        else v_.debug_users.fetch_sub(1);
#endif
    }
    [[noreturn]] static void ownership_violation(vci &v);

    enum mode_t { none, owner, locked, borrower };
    vci &v_;
    mode_t mode_ = none;
};

}  // namespace pgdds
