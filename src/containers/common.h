// What every container shares: handle cells, the memory classes the protocols are written over,
// waiting, agreement after collective steps.
#pragma once

#include "layout.h"

#include "../core/runtime.h"

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
// Handles
// ---------------------------------------------------------------------------------------------
// A container handle points at a cell {magic, impl} that is never freed, like the context: a
// destroyed handle keeps its cell with a dead magic and is refused, not dereferenced. Each
// container type has its own magic, so a handle of one type cast to another is refused too.
constexpr uint64_t destroyed_magic = 0x646561646464ull;  // "deaddd"

// Every container remembers its context; operations refuse a finalized one.
struct container {
    pgdds_context_t ctx = nullptr;
    runtime *rt = nullptr;
    bool direct = false;  // every target load/store-reachable and CPU atomics are the job's

    explicit container(runtime *r)
        : ctx(r->handle()), rt(r), direct(r->cpu_atomics() && r->cfg().container_direct) {}
    virtual ~container() = default;

    // Runs op(memory) with the memory this call may use: direct memory for the caller's own
    // part under PGDDS_CP_LOCAL (`local`) or when the container is direct, else the fabric.
    // Defined below the memory classes.
    template <class Op> status with_memory(const char *who, bool local, Op op) const;
};

template <class Cell> status bad_handle(const Cell *h, const char *who, const char *what)
{
    if (!h) return fail(PGDDS_ERR_INVALID_ARG, "%s: the %s is NULL", who, what);
    if (h->magic == destroyed_magic) return fail(PGDDS_ERR_INVALID_ARG, "%s: the %s has been destroyed", who, what);
    return fail(PGDDS_ERR_INVALID_ARG, "%s: %p is not a %s", who, static_cast<const void *>(h), what);
}

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

// Makes a new handle cell for impl (which it then owns).
template <class Cell, class Impl> status make_handle(uint64_t magic, Impl *impl, Cell *&out)
{
    Cell *c = new (std::nothrow) Cell{magic, impl};
    if (!c) return fail(PGDDS_ERR_NO_MEMORY, "out of host memory for a handle");
    out = c;
    return PGDDS_OK;
}

// Destroys the implementation behind a cell and marks the cell dead.
template <class Cell> void kill_handle(Cell *h)
{
    delete h->impl;
    h->impl = nullptr;
    h->magic = destroyed_magic;
    retire_handle(h);
}

// Checks that `concurrent` holds only promise bits this operation knows (`allowed`).
status check_promise(const char *who, unsigned concurrent, unsigned allowed);

// Collective: every rank learns the first failure of any rank. A rank that did not fail gets
// the failing status with a message naming the step.
status agree(runtime *rt, const char *who, status mine);

// Collective check at the start of a create: the ranks' validation statuses agree, and every rank
// passed the same values (different sizes on different ranks would corrupt the container).
status agree_arguments(runtime *rt, const char *who, status mine, std::initializer_list<uint64_t> values);

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

// ---------------------------------------------------------------------------------------------
// Container memory
// ---------------------------------------------------------------------------------------------
// The protocols are written once, as templates over one of these classes (and exclusive_memory,
// below):
//  - direct_memory: loads, stores and CPU atomics. Valid for every target when the job's
//    atomicity domain is the CPU (container::direct), and for the caller's own segment under
//    PGDDS_CP_LOCAL.
//  - fabric_memory: the one-sided calls of the C interface (pgdds_get, pgdds_atomic_u32, ...),
//    which reach any rank over any transport.
// Both have the same members. Failures are sticky (as in iostreams): after the first failed
// call, fabric_memory issues nothing more and returns neutral values (loads 0, a CAS its
// expected value); the protocols check failed() in every loop that waits for a change, and the
// caller returns result(). direct_memory cannot fail, so those checks compile away.
// Every atomic is sequentially consistent; fence() orders earlier puts and posted updates before
// later atomics (a publish seen means the entry seen), and flush() also completes them.
// A posted update (and32_posted) is issued without waiting and is not ordered with later
// operations on its word until it lands. It lands by the next flush(), or with a later atomic
// to the same rank that a fence() put behind it: one the protocol owes before it returns (an
// insert's chain lock, released early, lands before the entry's publish), or, for the reader
// bit a fully atomic find releases last, the calling thread's next pgdds_flush or any barrier:
// only writers look at reader bits, and one that finds the bit still set waits for it as for
// any reader. An update of this rank's own memory is waited for (see post32).

class direct_memory {
  public:
    using address = uint8_t *;
    static constexpr bool load_store = true;

    static address offset(address a, uint64_t bytes) { return a + bytes; }
    static constexpr bool failed() { return false; }
    static constexpr status result() { return PGDDS_OK; }

    static uint32_t load32(address a) { return __atomic_load_n(reinterpret_cast<uint32_t *>(a), __ATOMIC_SEQ_CST); }
    static uint64_t load64(address a) { return __atomic_load_n(reinterpret_cast<uint64_t *>(a), __ATOMIC_SEQ_CST); }
    // Compare-and-swap; returns the old value (== expected on success).
    static uint32_t cas32(address a, uint32_t expected, uint32_t desired)
    {
        __atomic_compare_exchange_n(reinterpret_cast<uint32_t *>(a), &expected, desired, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        return expected;
    }
    static uint64_t cas64(address a, uint64_t expected, uint64_t desired)
    {
        __atomic_compare_exchange_n(reinterpret_cast<uint64_t *>(a), &expected, desired, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        return expected;
    }
    static uint32_t fetch_or32(address a, uint32_t v) { return __atomic_fetch_or(reinterpret_cast<uint32_t *>(a), v, __ATOMIC_SEQ_CST); }
    static uint64_t fetch_or64(address a, uint64_t v) { return __atomic_fetch_or(reinterpret_cast<uint64_t *>(a), v, __ATOMIC_SEQ_CST); }
    static uint64_t fetch_add64(address a, uint64_t v) { return __atomic_fetch_add(reinterpret_cast<uint64_t *>(a), v, __ATOMIC_SEQ_CST); }
    static uint64_t swap64(address a, uint64_t v) { return __atomic_exchange_n(reinterpret_cast<uint64_t *>(a), v, __ATOMIC_SEQ_CST); }
    // Non-fetching updates.
    static void and32(address a, uint32_t v) { __atomic_fetch_and(reinterpret_cast<uint32_t *>(a), v, __ATOMIC_SEQ_CST); }
    static void xor32(address a, uint32_t v) { __atomic_fetch_xor(reinterpret_cast<uint32_t *>(a), v, __ATOMIC_SEQ_CST); }
    static void add64(address a, uint64_t v) { __atomic_fetch_add(reinterpret_cast<uint64_t *>(a), v, __ATOMIC_SEQ_CST); }
    static void and32_posted(address a, uint32_t v) { and32(a, v); }

    // A plain read of an aligned word that atomics may be changing (one R, not an atomic).
    static uint64_t read64(address a) { return __atomic_load_n(reinterpret_cast<uint64_t *>(a), __ATOMIC_RELAXED); }
    static void get(void *dst, address src, size_t n) { copy_bytes(dst, src, n); }
    static void put(address dst, const void *src, size_t n) { copy_bytes(dst, src, n); }
    // Two adjacent pieces (key and value) written as one.
    static void put2(address dst, const void *a, size_t na, const void *b, size_t nb)
    {
        copy_bytes(dst, a, na);
        copy_bytes(dst + na, b, nb);
    }
    // Read access to n bytes: the memory itself, no copy.
    static const uint8_t *view(address src, size_t, uint8_t *) { return src; }
    static void flush() { std::atomic_thread_fence(std::memory_order_release); }
    static void fence() { flush(); }
    static void prefetch(address a) { __builtin_prefetch(a, 1, 3); }
    static void idle() {}
};

class fabric_memory {
  public:
    using address = pgdds_gptr_t;
    static constexpr bool load_store = false;

    fabric_memory(pgdds_context_t ctx, int me) : ctx_(ctx), me_(me) {}
    static address offset(address a, uint64_t bytes) { return a + bytes; }  // stays inside one part
    bool failed() const { return st_ != PGDDS_OK; }
    status result() const { return st_; }

    uint32_t load32(address a)
    {
        uint32_t v = 0;
        if (!failed()) note(pgdds_atomic_load_u32(ctx_, a, &v));
        return v;
    }
    uint64_t load64(address a)
    {
        uint64_t v = 0;
        if (!failed()) note(pgdds_atomic_load_u64(ctx_, a, &v));
        return v;
    }
    uint32_t cas32(address a, uint32_t expected, uint32_t desired)
    {
        uint32_t old = expected;
        if (!failed()) note(pgdds_atomic_cswap_u32(ctx_, a, expected, desired, &old));
        return failed() ? expected : old;
    }
    uint64_t cas64(address a, uint64_t expected, uint64_t desired)
    {
        uint64_t old = expected;
        if (!failed()) note(pgdds_atomic_cswap_u64(ctx_, a, expected, desired, &old));
        return failed() ? expected : old;
    }
    uint32_t fetch_or32(address a, uint32_t v) { return fetch32(a, PGDDS_AOP_OR, v); }
    uint64_t fetch_or64(address a, uint64_t v) { return fetch64(a, PGDDS_AOP_OR, v); }
    uint64_t fetch_add64(address a, uint64_t v) { return fetch64(a, PGDDS_AOP_ADD, v); }
    uint64_t swap64(address a, uint64_t v) { return fetch64(a, PGDDS_AOP_SWAP, v); }
    // The "non-fetching" updates fetch all the same: a transport may complete a non-fetching
    // atomic locally before applying it at the target (it lands by the next flush), and these
    // updates (publishing a bucket, releasing a lock, advancing a ready counter) must have
    // landed when the operation returns. The cost is still one A.
    void and32(address a, uint32_t v) { fetch32(a, PGDDS_AOP_AND, v); }
    void xor32(address a, uint32_t v) { fetch32(a, PGDDS_AOP_XOR, v); }
    void add64(address a, uint64_t v) { fetch64(a, PGDDS_AOP_ADD, v); }
    // Overlaps the update with what follows (see above for when it lands).
    void and32_posted(address a, uint32_t v) { post32(a, PGDDS_AOP_AND, v); }

    uint64_t read64(address a)
    {
        uint64_t v = 0;
        get(&v, a, sizeof v);
        return v;
    }
    void get(void *dst, address src, size_t n)
    {
        if (!failed()) note(pgdds_get(ctx_, dst, src, n));
    }
    void put(address dst, const void *src, size_t n)
    {
        if (!failed()) note(pgdds_put(ctx_, dst, src, n));
    }
    void put2(address dst, const void *a, size_t na, const void *b, size_t nb)
    {
        uint8_t both[512];
        if (na + nb > sizeof both) {
            put(dst, a, na);
            put(dst + na, b, nb);
            return;
        }
        memcpy(both, a, na);
        memcpy(both + na, b, nb);
        put(dst, both, na + nb);
    }
    // Reads n bytes into scratch (which holds at least n) and returns it.
    const uint8_t *view(address src, size_t n, uint8_t *scratch)
    {
        get(scratch, src, n);
        return scratch;
    }
    void get_nbi(void *dst, address src, size_t n)
    {
        if (!failed()) note(pgdds_get_nbi(ctx_, dst, src, n));
    }
    void flush()
    {
        if (!failed()) note(pgdds_flush(ctx_));
    }
    void fence()
    {
        if (!failed()) note(pgdds_fence(ctx_));
    }
    static void prefetch(address) {}
    // Between polls: progress, so operations of other ranks that need this rank's help finish.
    void idle()
    {
        if (!failed()) note(pgdds_progress(ctx_));
    }

  private:
    // To this rank's own part, whose CP_LOCAL operations run on load/store memory without
    // progressing the network, the update is waited for.
    void post32(address a, pgdds_aop_t op, uint32_t v)
    {
        if (gptr::rank(a) == me_) fetch32(a, op, v);
        else if (!failed()) note(pgdds_atomic_u32_nbi(ctx_, a, op, v));
    }
    uint32_t fetch32(address a, pgdds_aop_t op, uint32_t v)
    {
        uint32_t old = 0;
        if (!failed()) note(pgdds_atomic_u32(ctx_, a, op, v, &old));
        return old;
    }
    uint64_t fetch64(address a, pgdds_aop_t op, uint64_t v)
    {
        uint64_t old = 0;
        if (!failed()) note(pgdds_atomic_u64(ctx_, a, op, v, &old));
        return old;
    }
    void note(status st)
    {
        if (PGDDS_UNLIKELY(st != PGDDS_OK)) st_ = st;
    }

    pgdds_context_t ctx_;
    int me_;
    status st_ = PGDDS_OK;
};

template <class Op> status container::with_memory(const char *who, bool local, Op op) const
{
    if (local || direct) {
        direct_memory m;
        return op(m);
    }
    fabric_memory m(ctx, rt->rank());
    status st = op(m);
    return m.failed() ? fail_prefix(m.result(), who) : st;
}

// The caller's own memory while nothing else can touch it (a collective step that holds every
// rank: the drain of a hash map buffer, a resize): the protocols run unchanged with plain loads
// and stores, which do not stall the pipeline the way locked instructions do.
class exclusive_memory : public direct_memory {
  public:
    static uint32_t load32(address a) { return plain<uint32_t>(a); }
    static uint32_t cas32(address a, uint32_t expected, uint32_t desired)
    {
        uint32_t old = plain<uint32_t>(a);
        if (old == expected) store(a, desired);
        return old;
    }
    static uint32_t fetch_or32(address a, uint32_t v)
    {
        uint32_t old = plain<uint32_t>(a);
        store(a, old | v);
        return old;
    }
    static void and32(address a, uint32_t v) { store(a, plain<uint32_t>(a) & v); }
    static void xor32(address a, uint32_t v) { store(a, plain<uint32_t>(a) ^ v); }
    static void and32_posted(address a, uint32_t v) { and32(a, v); }

  private:
    template <class T> static T plain(address a)
    {
        T v;
        memcpy(&v, a, sizeof v);
        return v;
    }
    template <class T> static void store(address a, T v) { memcpy(a, &v, sizeof v); }
};

// Direct memory whose puts complete the way the memory model lets puts complete: at the calling
// thread's next flush or any barrier (vci.h, deferred_stores), when they are small. For a
// protocol whose last step is a put that nothing reads before the next barrier (a FastQueue
// push). Holds the calling thread's VCI while it lives.
class deferring_memory : public direct_memory {
  public:
    explicit deferring_memory(runtime *rt) : v_(rt->current_vci()), scope_(v_, rt->threaded(), false) {}
    void put(address dst, const void *src, size_t n)
    {
        if (n <= deferred_stores::max_bytes) v_.deferred.add(dst, src, n);
        else copy_bytes(dst, src, n);
    }

  private:
    vci &v_;
    vci_scope scope_;
};

// Scratch space for fabric_memory::view: on the stack when small, else on the heap.
class scratch_buffer {
  public:
    explicit scratch_buffer(size_t n)
    {
        if (n > sizeof small_) heap_.reset(new uint8_t[n]);
    }
    uint8_t *data() { return heap_ ? heap_.get() : small_; }

  private:
    uint8_t small_[256];
    std::unique_ptr<uint8_t[]> heap_;
};

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
