// The data-structure substrate: what the containers (src/containers/) and the key tables
// (src/keytable/) share. From the core: handle cells (core/handles.h), collective agreement
// (core/agreement.h) and the one dispatch of an access to a global pointer between load/store
// and the transport (core/access.h). Here: the choice of protocol towards ranks not mapped
// (protocol.h) and the memory classes the containers' protocols are written over.
#pragma once

#include "protocol.h"

#include "../core/access.h"
#include "../core/agreement.h"
#include "../core/handles.h"
#include "../core/runtime.h"

#include <atomic>
#include <cstring>
#include <memory>

namespace pgdds::containers {

// The substrate's names, as the containers (and the layers above them) have always used them.
using pgdds::agree;
using pgdds::agree_arguments;
using pgdds::bad_handle;
using pgdds::destroyed_magic;
using pgdds::kill_handle;
using pgdds::make_handle;

// ---------------------------------------------------------------------------------------------
// Memory classes
// ---------------------------------------------------------------------------------------------
// The protocols are written once, as templates over one of these classes (and exclusive_memory,
// below):
//  - direct_memory: loads, stores and CPU atomics. Valid for every target when the job's
//    atomicity domain is the CPU (container::direct), and for the caller's own segment under
//    PGDDS_CP_LOCAL.
//  - fabric_memory: the core's one-sided dispatch (core/access.h, behind pgdds_get,
//    pgdds_atomic_u32, ... too), which reaches any rank over any transport, target by target by
//    load/store where it may. Its messages name the C call of the same operation.
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

    explicit fabric_memory(runtime *rt) : rt_(*rt), me_(rt->rank()) {}
    static address offset(address a, uint64_t bytes) { return a + bytes; }  // stays inside one part
    bool failed() const { return st_ != PGDDS_OK; }
    status result() const { return st_; }

    uint32_t load32(address a)
    {
        uint32_t v = 0;
        atomic(a, "pgdds_atomic_load_u32", amo_args{AMO_LOAD, 4, 0, 0, &v});
        return v;
    }
    uint64_t load64(address a)
    {
        uint64_t v = 0;
        atomic(a, "pgdds_atomic_load_u64", amo_args{AMO_LOAD, 8, 0, 0, &v});
        return v;
    }
    uint32_t cas32(address a, uint32_t expected, uint32_t desired)
    {
        uint32_t old = expected;
        atomic(a, "pgdds_atomic_cswap_u32", amo_args{AMO_CSWAP, 4, desired, expected, &old});
        return failed() ? expected : old;
    }
    uint64_t cas64(address a, uint64_t expected, uint64_t desired)
    {
        uint64_t old = expected;
        atomic(a, "pgdds_atomic_cswap_u64", amo_args{AMO_CSWAP, 8, desired, expected, &old});
        return failed() ? expected : old;
    }
    uint32_t fetch_or32(address a, uint32_t v) { return fetch32(a, AMO_OR, v); }
    uint64_t fetch_or64(address a, uint64_t v) { return fetch64(a, AMO_OR, v); }
    uint64_t fetch_add64(address a, uint64_t v) { return fetch64(a, AMO_ADD, v); }
    uint64_t swap64(address a, uint64_t v) { return fetch64(a, AMO_SWAP, v); }
    // The "non-fetching" updates fetch all the same: a transport may complete a non-fetching
    // atomic locally before applying it at the target (it lands by the next flush), and these
    // updates (publishing a bucket, releasing a lock, advancing a ready counter) must have
    // landed when the operation returns. The cost is still one A.
    void and32(address a, uint32_t v) { fetch32(a, AMO_AND, v); }
    void xor32(address a, uint32_t v) { fetch32(a, AMO_XOR, v); }
    void add64(address a, uint64_t v) { fetch64(a, AMO_ADD, v); }
    // Overlaps the update with what follows (see above for when it lands).
    void and32_posted(address a, uint32_t v) { post32(a, AMO_AND, v); }

    uint64_t read64(address a)
    {
        uint64_t v = 0;
        get(&v, a, sizeof v);
        return v;
    }
    void get(void *dst, address src, size_t n)
    {
        if (failed()) return;
        if (PGDDS_UNLIKELY(rt_.gpu())) note(pgdds_get(rt_.handle(), dst, src, n));  // dst may be device memory
        else note(access::rma(rt_, "pgdds_get", nullptr, false, src, dst, n));
    }
    void put(address dst, const void *src, size_t n)
    {
        if (failed()) return;
        if (PGDDS_UNLIKELY(rt_.gpu())) note(pgdds_put(rt_.handle(), dst, src, n));  // src may be device memory
        else note(access::rma(rt_, "pgdds_put", nullptr, true, dst, const_cast<void *>(src), n));
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
        if (failed()) return;
        if (PGDDS_UNLIKELY(rt_.gpu())) {
            note(pgdds_get_nbi(rt_.handle(), dst, src, n));
            return;
        }
        bool through_transport = false;
        note(access::rma_posted(rt_, "pgdds_get_nbi", nullptr, false, src, dst, n, through_transport));
    }
    void flush()
    {
        if (!failed()) note(rt_.flush("pgdds_flush", rt_.current_vci()));
    }
    void fence()
    {
        if (!failed()) note(rt_.fence("pgdds_fence", rt_.current_vci()));
    }
    static void prefetch(address) {}
    // Between polls: progress, so operations of other ranks that need this rank's help finish.
    void idle()
    {
        if (!failed()) note(pgdds_progress(rt_.handle()));
    }

  private:
    void atomic(address a, const char *who, const amo_args &args, bool posted = false)
    {
        if (!failed()) note(access::atomic(rt_, who, nullptr, a, args, posted));
    }
    // To this rank's own part, whose CP_LOCAL operations run on load/store memory without
    // progressing the network, the update is waited for.
    void post32(address a, amo_op op, uint32_t v)
    {
        if (gptr::rank(a) == me_) fetch32(a, op, v);
        else atomic(a, "pgdds_atomic_u32_nbi", amo_args{op, 4, v, 0, nullptr}, true);
    }
    uint32_t fetch32(address a, amo_op op, uint32_t v)
    {
        uint32_t old = 0;
        atomic(a, "pgdds_atomic_u32", amo_args{op, 4, v, 0, &old});
        return old;
    }
    uint64_t fetch64(address a, amo_op op, uint64_t v)
    {
        uint64_t old = 0;
        atomic(a, "pgdds_atomic_u64", amo_args{op, 8, v, 0, &old});
        return old;
    }
    void note(status st)
    {
        if (PGDDS_UNLIKELY(st != PGDDS_OK)) st_ = st;
    }

    runtime &rt_;
    int me_;
    status st_ = PGDDS_OK;
};

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

}  // namespace pgdds::containers
