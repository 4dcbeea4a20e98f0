// The C ABI of the core sections: validation of every argument, then the runtime.
#include "runtime.h"
#include "static_data.h"

#include "../gpu/gpu.h"
#include "../base/amo.h"

#include <new>
#include <string>
#include <type_traits>
#include <unistd.h>

using namespace pgdds;

namespace pgdds {

status bad_context(const char *who, pgdds_context_t ctx)
{
    if (!ctx) return fail(PGDDS_ERR_INVALID_ARG, "%s: the context is NULL", who);
    if (ctx->magic == dead_magic)
        return fail(PGDDS_ERR_STATE, "%s: the context has been finalized", who);
    return fail(PGDDS_ERR_INVALID_ARG, "%s: %p is not a pgdds context", who, static_cast<void *>(ctx));
}

status null_arg(const char *who, const char *what) { return fail(PGDDS_ERR_INVALID_ARG, "%s: %s is NULL", who, what); }

}  // namespace pgdds

namespace {

// The caller's VCI (enter() has checked the thread).
inline status caller_vci(runtime *rt, const char *, vci *&out)
{
    out = &rt->current_vci();
    return PGDDS_OK;
}

// A request that was complete when it was issued; never pooled.
pgdds_request completed_request = {request_magic, 0, {}, nullptr};

status wait_completion(runtime *rt, const char *who, vci &v, op_completion &done)
{
    status st = rt->wait(who, v, [&] { return done.done(); });
    if (st != PGDDS_OK) return st;
    return done.result == PGDDS_OK ? PGDDS_OK : rt->failed(who, done.result);
}

status rma(pgdds_context_t ctx, const char *who, bool is_put, pgdds_gptr_t remote, void *local, size_t n,
           pgdds_request_t *req, bool implicit)
{
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    if (PGDDS_UNLIKELY(!local && n)) return null_arg(who, is_put ? "src" : "dst");
    if (PGDDS_UNLIKELY(gptr::segment(remote) == gpu::segment_id || (rt->gpu() && gpu::is_device(*rt, local)))) {
        status gst = gpu::rma(*rt, who, is_put, remote, local, n);
        if (gst == PGDDS_OK && req) *req = &completed_request;
        return gst;
    }
    status st = rt->check_access(who, remote, n);
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    if (uint8_t *p = rt->direct(remote)) {
        if (is_put) memcpy(p, local, n);
        else memcpy(local, p, n);
        if (req) *req = &completed_request;
        return PGDDS_OK;
    }
    vci *v;
    st = caller_vci(rt, who, v);
    if (st != PGDDS_OK) return st;
    if (implicit) {
        return is_put ? rt->net_put(who, *v, remote, local, n, nullptr) : rt->net_get(who, *v, local, remote, n, nullptr);
    }
    if (req) {
        pgdds_request *r = rt->request_get(*v);
        if (!r) return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory for a request", who);
        r->done.add();
        st = is_put ? rt->net_put(who, *v, remote, local, n, &r->done) : rt->net_get(who, *v, local, remote, n, &r->done);
        if (st != PGDDS_OK) {
            rt->request_put(*v, r);
            return st;
        }
        *req = r;
        return PGDDS_OK;
    }
    op_completion done(op_completion::one);
    st = is_put ? rt->net_put(who, *v, remote, local, n, &done) : rt->net_get(who, *v, local, remote, n, &done);
    if (st != PGDDS_OK) return st;
    return wait_completion(rt, who, *v, done);
}

status check_request(runtime *rt, const char *who, pgdds_request_t req)
{
    if (!req) return null_arg(who, "req");
    if (req->magic != request_magic)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the request is not live (already completed and freed?)", who);
    if (req != &completed_request && req->vci >= rt->num_endpoints())
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the request belongs to another context", who);
    return PGDDS_OK;
}

// posted: a non-fetching atomic that completes at the caller's next flush (the _nbi forms).
// req: a non-blocking atomic whose request completes with it (the _nb forms); one the CPU or
// the GPU layer performs is complete at once.
template <class T>
status atomic_op(pgdds_context_t ctx, const char *who, pgdds_gptr_t target, amo_op op, T operand, T compare, T *fetched,
                 bool posted = false, pgdds_request_t *req = nullptr)
{
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    amo_args a{op, unsigned(sizeof(T)), uint64_t(operand), uint64_t(compare), fetched};
    if (PGDDS_UNLIKELY(gptr::segment(target) == gpu::segment_id)) {
        status gst = gpu::atomic(*rt, who, target, a);
        if (gst == PGDDS_OK && req) *req = &completed_request;
        return gst;
    }
    status st = rt->check_access(who, target, sizeof(T), sizeof(T));
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    const bool cpu = rt->cpu_atomics_on(gptr::rank(target));
    if (cpu) cpu_amo(rt->direct(target), a);
    if (cpu && req) *req = &completed_request;
    if (cpu && (req || rt->cpu_atomics() || !rt->network())) return PGDDS_OK;
    vci *v;
    st = caller_vci(rt, who, v);
    if (st != PGDDS_OK) return st;
    // Across nodes, peers' operations on this rank complete only while it progresses: a rank
    // spinning on an atomic of its node (its own word, say) keeps serving them.
    if (cpu) return rt->progress(*v);
    if (req) {
        pgdds_request *r = rt->request_get(*v);
        if (!r) return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory for a request", who);
        r->done.add();
        st = rt->amo_issue(who, *v, target, a, &r->done);
        if (st != PGDDS_OK) {
            rt->request_put(*v, r);
            return st;
        }
        *req = r;
        return PGDDS_OK;
    }
    return posted ? rt->amo_posted(who, *v, target, a) : rt->amo(who, *v, target, a);
}

// The _nb forms take the operations the transports perform themselves: ADD, AND, OR, XOR, SWAP
// and compare-and-swap (CSWAP). MIN and MAX run as a loop of compare-and-swap, each step waiting
// for the last, so they have no non-blocking form.
// op: a pgdds_aop_t, or -1 for compare-and-swap.
template <class T>
status word_atomic_nb(pgdds_context_t ctx, const char *who, pgdds_gptr_t target, int op, T operand, T compare,
                      T *fetched, pgdds_request_t *req)
{
    if (!req) return null_arg(who, "req");
    if (op == PGDDS_AOP_MIN || op == PGDDS_AOP_MAX)
        return fail(PGDDS_ERR_UNSUPPORTED, "%s: MIN and MAX run as a loop of compare-and-swap and have no "
                    "non-blocking form; use the blocking atomic", who);
    if (op != -1 && (op < PGDDS_AOP_ADD || op > PGDDS_AOP_SWAP))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not an operation (PGDDS_AOP_ADD, AND, OR, XOR or SWAP)", who, op);
    return atomic_op<T>(ctx, who, target, op == -1 ? AMO_CSWAP : amo_op(op), operand, compare, fetched, false, req);
}

// The unsigned word with T's bits.
template <class T> using word_t = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
template <class To, class From> To bits_as(From v)
{
    static_assert(sizeof(To) == sizeof(From), "same width");
    To out;
    memcpy(&out, &v, sizeof out);
    return out;
}

// The one software path for atomics the transports' operations do not cover: a loop of
// compare-and-swap over the job's own CAS, so the result is atomic with every other atomic on the
// word in whichever atomicity domain the job uses.
template <class T>
status cas_loop(pgdds_context_t ctx, const char *who, pgdds_gptr_t target, amo_op op, T operand, T *fetched)
{
    using W = word_t<T>;
    W old;
    status st = atomic_op<W>(ctx, who, target, AMO_LOAD, 0, 0, &old);
    while (st == PGDDS_OK) {
        W desired = bits_as<W>(amo_next<T>(op, bits_as<T>(old), operand));
        if (desired == old) break;  // nothing to change: the load is the operation
        W seen = old;
        st = atomic_op<W>(ctx, who, target, AMO_CSWAP, desired, old, &seen);
        if (st != PGDDS_OK || seen == old) break;
        old = seen;
    }
    if (st == PGDDS_OK && fetched) *fetched = bits_as<T>(old);
    return st;
}

// An atomic on a word of type T (unsigned, signed or floating point). Operations on the bits the
// unsigned form shares go to it (native wherever that is); MIN, MAX and floating-point ADD to the
// CAS loop, which returns complete even when posted.
template <class T>
status typed_atomic(pgdds_context_t ctx, const char *who, pgdds_gptr_t target, const pgdds_aop_t &op, T operand,
                    T *fetched, bool posted = false)
{
    constexpr bool floating = std::is_floating_point<T>::value;
    int v = enum_value(op);
    bool bitwise = v >= PGDDS_AOP_AND && v <= PGDDS_AOP_XOR;
    if (v < PGDDS_AOP_ADD || v > PGDDS_AOP_MAX || (floating && bitwise))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not an operation of this type (%s)", who, v,
                    floating ? "PGDDS_AOP_ADD, MIN, MAX or SWAP" : "PGDDS_AOP_ADD, AND, OR, XOR, SWAP, MIN or MAX");
    if (v == PGDDS_AOP_MIN || v == PGDDS_AOP_MAX || (floating && v == PGDDS_AOP_ADD))
        return cas_loop<T>(ctx, who, target, v == PGDDS_AOP_MIN ? AMO_MIN : v == PGDDS_AOP_MAX ? AMO_MAX : AMO_ADD,
                           operand, fetched);
    using W = word_t<T>;
    return atomic_op<W>(ctx, who, target, amo_op(v), bits_as<W>(operand), 0, reinterpret_cast<W *>(fetched), posted);
}

// Compare-and-swap of a word of type T, on its bits.
template <class T>
status typed_cswap(pgdds_context_t ctx, const char *who, pgdds_gptr_t target, T expected, T desired, T *old)
{
    if (!old) return null_arg(who, "old");
    using W = word_t<T>;
    return atomic_op<W>(ctx, who, target, AMO_CSWAP, bits_as<W>(desired), bits_as<W>(expected),
                        reinterpret_cast<W *>(old));
}

// Collective agreement: the minimum and maximum over every rank of each of k values (one
// allreduce of the values and their complements).
status agree_values(runtime *rt, const char *who, size_t k, const uint64_t *v, uint64_t *lo, uint64_t *hi)
{
    uint64_t in[2 * 8], out[2 * 8];
    for (size_t i = 0; i < k; ++i) {
        in[i] = v[i];
        in[k + i] = ~v[i];
    }
    status st = rt->allreduce(who, in, out, 2 * k, PGDDS_UINT64, PGDDS_OP_MAX);
    if (st != PGDDS_OK) return st;
    for (size_t i = 0; i < k; ++i) {
        hi[i] = out[i];
        lo[i] = ~out[k + i];
    }
    return PGDDS_OK;
}

// After the agreement of a collective call: this rank's own failure (its explanation `why`), or
// a failure elsewhere (worst: the largest negated status any rank reported).
status failed_somewhere(const char *who, status mine, const std::string &why, uint64_t worst)
{
    if (mine != PGDDS_OK) return fail(mine, "%s", why.c_str());
    status theirs = status(-int64_t(worst));
    return fail(theirs, "%s: failed on another rank (%s); no rank holds anything of this call", who,
                pgdds_strerror(theirs));
}

bool signal_op_valid(const pgdds_signal_op_t &op)
{
    int v = enum_value(op);
    return v == PGDDS_SIGNAL_SET || v == PGDDS_SIGNAL_ADD;
}

// put_signal and put_signal_nbi: the data, then (ordered after it at the target) the signal.
status put_signal(pgdds_context_t ctx, const char *who, pgdds_gptr_t dst, const void *src, size_t n, pgdds_gptr_t sig,
                  uint64_t signal, const pgdds_signal_op_t &sig_op, bool nbi)
{
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    if (!src && n) return null_arg(who, "src");
    if (!signal_op_valid(sig_op))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not a pgdds_signal_op_t (PGDDS_SIGNAL_SET, PGDDS_SIGNAL_ADD)",
                    who, enum_value(sig_op));
    status st = rt->check_access(who, dst, n);
    if (st == PGDDS_OK) st = rt->check_access(who, sig, 8, 8);
    if (st != PGDDS_OK) return st;
    if (gptr::rank(sig) != gptr::rank(dst))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the data goes to rank %d but the signal word is on rank %d; both "
                    "must be on one rank", who, gptr::rank(dst), gptr::rank(sig));
    uint64_t d = gptr::offset(dst), s = gptr::offset(sig);
    if (s + 8 > d && s < d + n)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the signal word at offset 0x%llx lies in the data's %zu bytes at "
                    "0x%llx", who, (unsigned long long)s, n, (unsigned long long)d);
    amo_args a{sig_op == PGDDS_SIGNAL_SET ? AMO_SWAP : AMO_ADD, 8, signal, 0, nullptr};
    if (uint8_t *p = rt->direct(dst)) {
        memcpy(p, src, n);
        if (rt->cpu_atomics()) {
            cpu_amo(rt->direct(sig), a);  // sequentially consistent: the copy is visible before it
            return PGDDS_OK;
        }
    }
    vci *v;
    st = caller_vci(rt, who, v);
    if (st != PGDDS_OK) return st;
    if (!rt->direct(dst)) st = rt->net_put(who, *v, dst, src, n, nullptr);
    if (st == PGDDS_OK) st = rt->fence(who, *v);
    if (st == PGDDS_OK) st = rt->amo_posted(who, *v, sig, a);
    if (st == PGDDS_OK && !nbi) st = rt->flush(who, *v);
    return st;
}

bool cmp_valid(const pgdds_cmp_t &cmp)
{
    int v = enum_value(cmp);
    return v >= PGDDS_CMP_EQ && v <= PGDDS_CMP_LE;
}

template <class T> bool compare(T a, pgdds_cmp_t cmp, T b)
{
    switch (cmp) {
    case PGDDS_CMP_EQ: return a == b;
    case PGDDS_CMP_NE: return a != b;
    case PGDDS_CMP_GT: return a > b;
    case PGDDS_CMP_GE: return a >= b;
    case PGDDS_CMP_LT: return a < b;
    case PGDDS_CMP_LE: return a <= b;
    }
    return false;
}

// wait_until (satisfied == nullptr: until it holds) and test_until (one round of progress).
template <class T>
status wait_until(pgdds_context_t ctx, const char *who, pgdds_gptr_t ivar, const pgdds_cmp_t &cmp, T value,
                  int *satisfied, bool test)
{
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    if (test && !satisfied) return null_arg(who, "satisfied");
    if (!cmp_valid(cmp))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not a pgdds_cmp_t (PGDDS_CMP_EQ, NE, GT, GE, LT, LE)", who,
                    enum_value(cmp));
    status st = rt->check_access(who, ivar, sizeof(T), sizeof(T));
    if (st != PGDDS_OK) return st;
    if (gptr::rank(ivar) != rt->rank())
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the word is on rank %d, but a rank waits only on a word of its own "
                    "segment (this is rank %d): wait on your own word and have rank %d signal it", who,
                    gptr::rank(ivar), rt->rank(), gptr::rank(ivar));
    // The caller's own word is always load/store-reachable; whatever atomicity domain updates
    // it, an aligned load reads a whole value.
    const T *word = reinterpret_cast<const T *>(rt->direct(ivar));
    auto holds = [&] { return compare(__atomic_load_n(word, __ATOMIC_ACQUIRE), cmp, value); };
    if (!test && holds()) return PGDDS_OK;
    vci *v;
    st = caller_vci(rt, who, v);
    if (st != PGDDS_OK) return st;
    if (!test) return rt->wait(who, *v, holds);
    st = rt->progress(*v);
    if (st != PGDDS_OK) return fail_prefix(st, who);
    *satisfied = holds() ? 1 : 0;
    return PGDDS_OK;
}

// The identity queries: the runtime's answer, or -1 for a handle that is not a live context.
template <int (runtime::*query)() const> int identity(pgdds_context_t ctx)
{
    runtime *rt = runtime::from(ctx);
    return rt ? (rt->*query)() : -1;
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------------------------------------
// Start-up and identity
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_init(const pgdds_init_params_t *params, pgdds_context_t *ctx)
{
    if (!ctx) return null_arg("pgdds_init", "ctx");
    try {
        runtime *rt;
        status st = runtime::create(params, rt);
        if (st != PGDDS_OK) return st;
        if ((st = gpu::attach(*rt)) != PGDDS_OK) {
            const std::string why = pgdds_last_error();
            pgdds_finalize(rt->handle());  // every rank failed alike: the finalize pairs up
            return fail(st, "%s", why.c_str());
        }
        *ctx = rt->handle();
        return PGDDS_OK;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "pgdds_init: out of host memory");
    }
}

PGDDS_API pgdds_status_t pgdds_finalize(pgdds_context_t ctx)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_finalize", rt); est != PGDDS_OK) return est;
    status gst = gpu::detach(*rt);
    status st = rt->finalize();
    if (st == PGDDS_OK) st = gst;
    // The handle stays allocated and recognisably dead, so later use is reported, not a crash.
    ctx->magic = dead_magic;
    ctx->rt = nullptr;  // so ~runtime leaves the cell alone
    retire_handle(ctx);
    delete rt;
    return st;
}

PGDDS_API int pgdds_rank(pgdds_context_t ctx) { return identity<&runtime::rank>(ctx); }
PGDDS_API int pgdds_nranks(pgdds_context_t ctx) { return identity<&runtime::nranks>(ctx); }
PGDDS_API int pgdds_local_rank(pgdds_context_t ctx) { return identity<&runtime::local_rank>(ctx); }
PGDDS_API int pgdds_local_nranks(pgdds_context_t ctx) { return identity<&runtime::local_nranks>(ctx); }
PGDDS_API const char *pgdds_transport_name(pgdds_context_t ctx)
{
    runtime *rt = runtime::from(ctx);
    return rt ? rt->transport_name() : nullptr;
}
PGDDS_API const char *pgdds_version_string(void) { return PGDDS_VERSION_TEXT; }

// ---------------------------------------------------------------------------------------------
// Global pointers and the segment
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_alloc(pgdds_context_t ctx, size_t size, size_t alignment, pgdds_gptr_t *out)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_alloc", rt); est != PGDDS_OK) return est;
    if (!out) return null_arg("pgdds_alloc", "out");
    uint64_t off;
    status st = rt->allocator().alloc(size, alignment, off);
    if (st != PGDDS_OK) return fail_prefix(st, "pgdds_alloc");
    *out = gptr::make(rt->rank(), 0, off);
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_free(pgdds_context_t ctx, pgdds_gptr_t ptr)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_free", rt); est != PGDDS_OK) return est;
    if (ptr == PGDDS_GPTR_NULL) return fail(PGDDS_ERR_INVALID_ARG, "pgdds_free: the pointer is PGDDS_GPTR_NULL");
    if (gptr::rank(ptr) == rt->rank() && gptr::segment(ptr) == gpu::segment_id) return gpu::free(*rt, "pgdds_free", ptr);
    if (gptr::rank(ptr) != rt->rank() || gptr::segment(ptr) != 0)
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_free: the pointer names rank %d, but a rank frees only in its "
                    "own segment (this is rank %d)", gptr::rank(ptr), rt->rank());
    status st = rt->allocator().free(gptr::offset(ptr));
    if (st != PGDDS_OK && rt->symmetric().contains(gptr::offset(ptr)))
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_free: 0x%llx is in a symmetric block: free it with pgdds_free_all "
                    "(collective)", (unsigned long long)ptr);
    return st == PGDDS_OK ? st : fail_prefix(st, "pgdds_free");
}

PGDDS_API int pgdds_gptr_rank(pgdds_gptr_t ptr) { return gptr::rank(ptr); }
PGDDS_API pgdds_gptr_t pgdds_gptr_add(pgdds_gptr_t ptr, int64_t bytes) { return gptr::add(ptr, bytes); }
PGDDS_API uint64_t pgdds_gptr_offset(pgdds_gptr_t ptr) { return gptr::offset(ptr); }

PGDDS_API void *pgdds_gptr_to_local(pgdds_context_t ctx, pgdds_gptr_t ptr)
{
    runtime *rt = runtime::from(ctx);
    if (rt && gptr::segment(ptr) == gpu::segment_id) return gpu::to_local(*rt, ptr);
    if (!rt || rt->check_access("pgdds_gptr_to_local", ptr, 0) != PGDDS_OK) return nullptr;
    return rt->direct(ptr);
}

PGDDS_API pgdds_status_t pgdds_gptr_from_local(pgdds_context_t ctx, const void *addr, pgdds_gptr_t *out)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_gptr_from_local", rt); est != PGDDS_OK) return est;
    if (!addr) return null_arg("pgdds_gptr_from_local", "addr");
    if (!out) return null_arg("pgdds_gptr_from_local", "out");
    uint64_t off;
    if (static_data::offset_of(rt, addr, off)) {   // static data (pgdds_map_static_data)
        *out = gptr::make(rt->rank(), 0, off);
        return PGDDS_OK;
    }
    const uint8_t *a = static_cast<const uint8_t *>(addr);
    for (int r = 0; r < rt->nranks(); ++r) {
        const uint8_t *b = rt->peer_base(r);
        if (b && a >= b + segment_reserved && a < b + rt->peer_segment_size(r)) {
            *out = gptr::make(r, 0, uint64_t(a - b));
            return PGDDS_OK;
        }
    }
    return fail(PGDDS_ERR_OUT_OF_BOUNDS, "pgdds_gptr_from_local: %p lies in no segment this rank can address",
                const_cast<void *>(addr));
}

// ---------------------------------------------------------------------------------------------
// Symmetric allocation
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_alloc_all(pgdds_context_t ctx, size_t size, size_t alignment, unsigned flags,
                                         pgdds_gptr_t *out)
{
    const char *who = "pgdds_alloc_all";
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    // A rank's own failure still takes part in the agreement, so every rank fails together.
    uint64_t off = 0;
    status mine;
    if (!out) mine = null_arg(who, "out");
    else if (flags & ~unsigned(PGDDS_ALLOC_ZERO))
        mine = fail(PGDDS_ERR_INVALID_ARG, "%s: flags 0x%x hold bits other than PGDDS_ALLOC_ZERO", who, flags);
    else if ((mine = rt->symmetric().alloc(size, alignment, off)) != PGDDS_OK) fail_prefix(mine, who);
    else if (flags & PGDDS_ALLOC_ZERO) memset(rt->segment_base() + off, 0, size);  // before any rank may write
    std::string why = mine == PGDDS_OK ? "" : pgdds_last_error();

    uint64_t v[5] = {size, alignment ? alignment : segment_allocator::min_block, flags, off, uint64_t(-int64_t(mine))};
    uint64_t lo[5], hi[5];
    status st = agree_values(rt, who, 5, v, lo, hi);
    if (st != PGDDS_OK) {
    } else if (hi[4]) {
        st = failed_somewhere(who, mine, why, hi[4]);
    } else if (lo[0] != hi[0]) {
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: ranks passed different sizes (%llu to %llu bytes; this rank %zu); "
                  "every rank must pass the same", who, (unsigned long long)lo[0], (unsigned long long)hi[0], size);
    } else if (lo[1] != hi[1] || lo[2] != hi[2]) {
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: ranks passed different %s; every rank must pass the same", who,
                  lo[1] != hi[1] ? "alignments" : "flags");
    } else if (lo[3] != hi[3]) {
        st = fail(PGDDS_ERR_STATE, "%s: the ranks' symmetric heaps differ (offsets 0x%llx to 0x%llx): were "
                  "pgdds_alloc_all and pgdds_free_all called in different orders?", who,
                  (unsigned long long)lo[3], (unsigned long long)hi[3]);
    }
    if (st != PGDDS_OK) {
        if (mine == PGDDS_OK) rt->symmetric().free(off);
        return st;
    }
    *out = gptr::make(rt->rank(), 0, off);
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_free_all(pgdds_context_t ctx, pgdds_gptr_t ptr)
{
    const char *who = "pgdds_free_all";
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    // Every rank's operations complete first: no copy is freed while a put to it is in flight.
    status st = rt->barrier(who);
    if (st != PGDDS_OK) return st;
    uint64_t off = gptr::offset(ptr);
    status mine = PGDDS_OK;
    if (ptr == PGDDS_GPTR_NULL)
        mine = fail(PGDDS_ERR_INVALID_ARG, "%s: the pointer is PGDDS_GPTR_NULL", who);
    else if (gptr::rank(ptr) >= rt->nranks() || gptr::segment(ptr) != 0 || !rt->symmetric().is_block(off))
        mine = fail(PGDDS_ERR_INVALID_ARG, "%s: 0x%llx does not start a symmetric block (pgdds_alloc memory is "
                    "freed with pgdds_free; a block is freed once)", who, (unsigned long long)ptr);
    std::string why = mine == PGDDS_OK ? "" : pgdds_last_error();
    uint64_t v[2] = {off, uint64_t(-int64_t(mine))}, lo[2], hi[2];
    st = agree_values(rt, who, 2, v, lo, hi);
    if (st != PGDDS_OK) return st;
    if (hi[1]) return failed_somewhere(who, mine, why, hi[1]);
    if (lo[0] != hi[0])
        return fail(PGDDS_ERR_INVALID_ARG, "%s: ranks passed different blocks (offsets 0x%llx to 0x%llx); nothing "
                    "was freed", who, (unsigned long long)lo[0], (unsigned long long)hi[0]);
    st = rt->symmetric().free(off);
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

PGDDS_API pgdds_status_t pgdds_gptr_at(pgdds_context_t ctx, pgdds_gptr_t ptr, int rank, pgdds_gptr_t *out)
{
    const char *who = "pgdds_gptr_at";
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    if (!out) return null_arg(who, "out");
    if (rank < 0 || rank >= rt->nranks())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: rank %d is not in 0..%d", who, rank, rt->nranks() - 1);
    if (gptr::rank(ptr) >= rt->nranks() || gptr::segment(ptr) != 0 || !rt->symmetric().contains(gptr::offset(ptr)))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: 0x%llx does not point into a symmetric block (pgdds_alloc_all); "
                    "other memory has no copy on other ranks", who, (unsigned long long)ptr);
    *out = gptr::make(rank, 0, gptr::offset(ptr));
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_map_static_data(pgdds_context_t ctx, unsigned flags)
{
    const char *who = "pgdds_map_static_data";
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    if (flags == 0 && static_data::held_by(rt)) return PGDDS_OK;   // mapped already, by this context
    // Every rank's own verdict takes part in the agreement, so every rank fails together.
    size_t bytes = 0;
    uint64_t link_address = 0;
    unsigned ranges = 0;
    status mine = PGDDS_OK;
    if (flags != 0) mine = fail(PGDDS_ERR_INVALID_ARG, "%s: flags 0x%x: none is defined yet (pass 0)", who, flags);
    else if (static_data::held_by_other(rt))
        mine = fail(PGDDS_ERR_STATE, "%s: another live context of this process has mapped the static data", who);
    else if ((mine = static_data::measure(bytes, link_address, ranges)) != PGDDS_OK) fail_prefix(mine, who);
    std::string why = mine == PGDDS_OK ? "" : pgdds_last_error();
    uint64_t v[4] = {bytes, link_address, ranges, uint64_t(-int64_t(mine))}, lo[4], hi[4];
    status st = agree_values(rt, who, 4, v, lo, hi);
    if (st != PGDDS_OK) return st;
    if (hi[3]) return failed_somewhere(who, mine, why, hi[3]);
    if (lo[0] != hi[0] || lo[1] != hi[1] || lo[2] != hi[2])
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the ranks run different executables (static data of %llu to %llu "
                    "bytes at link-time addresses 0x%llx to 0x%llx; this rank %zu bytes at 0x%llx); every rank must "
                    "run the same executable", who, (unsigned long long)lo[0], (unsigned long long)hi[0],
                    (unsigned long long)lo[1], (unsigned long long)hi[1], bytes, (unsigned long long)link_address);

    pgdds_gptr_t block;
    st = pgdds_alloc_all(ctx, bytes, size_t(sysconf(_SC_PAGESIZE)), 0, &block);
    if (st == PGDDS_ERR_NO_MEMORY) {
        std::string reason = pgdds_last_error();   // fail() rewrites the buffer it points to
        return fail(st, "%s: the static data (%zu bytes) does not fit in the symmetric heap: enlarge the segment "
                    "(PGDDS_SEGMENT_SIZE) (%s)", who, bytes, reason.c_str());
    }
    if (st != PGDDS_OK) return fail_prefix(st, who);
    mine = static_data::mirror(*rt, gptr::offset(block));
    if (mine != PGDDS_OK) fail_prefix(mine, who);
    why = mine == PGDDS_OK ? "" : pgdds_last_error();
    // Also the barrier after which peers may write: every rank has mirrored before any returns.
    uint64_t w = uint64_t(-int64_t(mine)), wlo, whi;
    st = agree_values(rt, who, 1, &w, &wlo, &whi);
    if (st == PGDDS_OK && whi) st = failed_somewhere(who, mine, why, whi);
    if (st != PGDDS_OK) {
        std::string reason = pgdds_last_error();
        static_data::release(rt);
        (void)pgdds_free_all(ctx, block);
        return fail(st, "%s", reason.c_str());
    }
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_segment_size(pgdds_context_t ctx, int rank, size_t *size)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_segment_size", rt); est != PGDDS_OK) return est;
    if (!size) return null_arg("pgdds_segment_size", "size");
    if (rank < 0 || rank >= rt->nranks())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "pgdds_segment_size: rank %d is not in 0..%d", rank, rt->nranks() - 1);
    *size = rt->peer_segment_size(rank);
    return PGDDS_OK;
}

// ---------------------------------------------------------------------------------------------
// One-sided communication
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_put(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n)
{
    return rma(ctx, "pgdds_put", true, dst, const_cast<void *>(src), n, nullptr, false);
}
PGDDS_API pgdds_status_t pgdds_get(pgdds_context_t ctx, void *dst, pgdds_gptr_t src, size_t n)
{
    return rma(ctx, "pgdds_get", false, src, dst, n, nullptr, false);
}
PGDDS_API pgdds_status_t pgdds_put_nbi(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n)
{
    return rma(ctx, "pgdds_put_nbi", true, dst, const_cast<void *>(src), n, nullptr, true);
}
PGDDS_API pgdds_status_t pgdds_get_nbi(pgdds_context_t ctx, void *dst, pgdds_gptr_t src, size_t n)
{
    return rma(ctx, "pgdds_get_nbi", false, src, dst, n, nullptr, true);
}
PGDDS_API pgdds_status_t pgdds_put_nb(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n, pgdds_request_t *req)
{
    if (!req) return null_arg("pgdds_put_nb", "req");
    return rma(ctx, "pgdds_put_nb", true, dst, const_cast<void *>(src), n, req, false);
}
PGDDS_API pgdds_status_t pgdds_get_nb(pgdds_context_t ctx, void *dst, pgdds_gptr_t src, size_t n, pgdds_request_t *req)
{
    if (!req) return null_arg("pgdds_get_nb", "req");
    return rma(ctx, "pgdds_get_nb", false, src, dst, n, req, false);
}

// pgdds_flush and pgdds_fence: `op` on the calling thread's VCI.
static status on_caller_vci(pgdds_context_t ctx, const char *who, status (runtime::*op)(const char *, vci &))
{
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    vci *v;
    status st = caller_vci(rt, who, v);
    if (st != PGDDS_OK) return st;
    return (rt->*op)(who, *v);
}
PGDDS_API pgdds_status_t pgdds_flush(pgdds_context_t ctx) { return on_caller_vci(ctx, "pgdds_flush", &runtime::flush); }
PGDDS_API pgdds_status_t pgdds_fence(pgdds_context_t ctx) { return on_caller_vci(ctx, "pgdds_fence", &runtime::fence); }

PGDDS_API pgdds_status_t pgdds_test(pgdds_context_t ctx, pgdds_request_t req, int *done)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_test", rt); est != PGDDS_OK) return est;
    status st = check_request(rt, "pgdds_test", req);
    if (st != PGDDS_OK) return st;
    if (!done) return null_arg("pgdds_test", "done");
    if (req == &completed_request) {
        *done = 1;
        return PGDDS_OK;
    }
    vci &v = rt->vci_at(req->vci);
    if (!req->done.done()) {
        st = rt->progress(v);
        if (st != PGDDS_OK) return fail_prefix(st, "pgdds_test");
    }
    if (!req->done.done()) {
        *done = 0;
        return PGDDS_OK;
    }
    st = req->done.result;
    rt->request_put(v, req);
    *done = 1;
    return st == PGDDS_OK ? st : fail_prefix(st, "pgdds_test");
}

PGDDS_API pgdds_status_t pgdds_wait(pgdds_context_t ctx, pgdds_request_t req)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_wait", rt); est != PGDDS_OK) return est;
    status st = check_request(rt, "pgdds_wait", req);
    if (st != PGDDS_OK || req == &completed_request) return st;
    vci &v = rt->vci_at(req->vci);
    st = rt->wait("pgdds_wait", v, [&] { return req->done.done(); });
    if (st != PGDDS_OK) return st;  // the request stays live: the operation may still complete
    st = req->done.result;
    rt->request_put(v, req);
    return st == PGDDS_OK ? st : fail_prefix(st, "pgdds_wait");
}

// ---------------------------------------------------------------------------------------------
// Atomics
// ---------------------------------------------------------------------------------------------
// One set of entry points per type, each naming itself in messages. Every type has the fetching
// atomic and the compare-and-swap; the unsigned words also have the posted (nbi) atomic and the load.
#define PGDDS_TYPED_ATOMICS(suffix, T)                                                                             \
    PGDDS_API pgdds_status_t pgdds_atomic_##suffix(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,       \
                                                  T operand, T *fetched)                                           \
    {                                                                                                              \
        return typed_atomic<T>(ctx, "pgdds_atomic_" #suffix, target, op, operand, fetched);                        \
    }                                                                                                              \
    PGDDS_API pgdds_status_t pgdds_atomic_cswap_##suffix(pgdds_context_t ctx, pgdds_gptr_t target, T expected,     \
                                                        T desired, T *old)                                         \
    {                                                                                                              \
        return typed_cswap<T>(ctx, "pgdds_atomic_cswap_" #suffix, target, expected, desired, old);                 \
    }
#define PGDDS_WORD_ATOMICS(suffix, T)                                                                              \
    PGDDS_TYPED_ATOMICS(suffix, T)                                                                                 \
    PGDDS_API pgdds_status_t pgdds_atomic_##suffix##_nbi(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op, \
                                                        T operand)                                                 \
    {                                                                                                              \
        return typed_atomic<T>(ctx, "pgdds_atomic_" #suffix "_nbi", target, op, operand, nullptr, true);           \
    }                                                                                                              \
    PGDDS_API pgdds_status_t pgdds_atomic_##suffix##_nb(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,  \
                                                       T operand, T *fetched, pgdds_request_t *req)                 \
    {                                                                                                              \
        return word_atomic_nb<T>(ctx, "pgdds_atomic_" #suffix "_nb", target, enum_value(op), operand, 0, fetched,   \
                                 req);                                                                             \
    }                                                                                                              \
    PGDDS_API pgdds_status_t pgdds_atomic_cswap_##suffix##_nb(pgdds_context_t ctx, pgdds_gptr_t target,            \
                                                             T expected, T desired, T *old, pgdds_request_t *req)  \
    {                                                                                                              \
        if (!old) return null_arg("pgdds_atomic_cswap_" #suffix "_nb", "old");                                      \
        return word_atomic_nb<T>(ctx, "pgdds_atomic_cswap_" #suffix "_nb", target, -1, desired, expected,           \
                                 old, req);                                                                        \
    }                                                                                                              \
    PGDDS_API pgdds_status_t pgdds_atomic_load_##suffix(pgdds_context_t ctx, pgdds_gptr_t target, T *value)        \
    {                                                                                                              \
        if (!value) return null_arg("pgdds_atomic_load_" #suffix, "value");                                        \
        return atomic_op<T>(ctx, "pgdds_atomic_load_" #suffix, target, AMO_LOAD, 0, 0, value);                     \
    }

PGDDS_WORD_ATOMICS(u64, uint64_t)
PGDDS_WORD_ATOMICS(u32, uint32_t)
PGDDS_TYPED_ATOMICS(i64, int64_t)
PGDDS_TYPED_ATOMICS(i32, int32_t)
PGDDS_TYPED_ATOMICS(double, double)
PGDDS_TYPED_ATOMICS(float, float)
#undef PGDDS_WORD_ATOMICS
#undef PGDDS_TYPED_ATOMICS

// ---------------------------------------------------------------------------------------------
// Point-to-point synchronization
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_put_signal(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n,
                                          pgdds_gptr_t sig, uint64_t signal, pgdds_signal_op_t sig_op)
{
    return put_signal(ctx, "pgdds_put_signal", dst, src, n, sig, signal, sig_op, false);
}
PGDDS_API pgdds_status_t pgdds_put_signal_nbi(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n,
                                              pgdds_gptr_t sig, uint64_t signal, pgdds_signal_op_t sig_op)
{
    return put_signal(ctx, "pgdds_put_signal_nbi", dst, src, n, sig, signal, sig_op, true);
}
PGDDS_API pgdds_status_t pgdds_signal_fetch(pgdds_context_t ctx, pgdds_gptr_t sig, uint64_t *value)
{
    if (!value) return null_arg("pgdds_signal_fetch", "value");
    return atomic_op<uint64_t>(ctx, "pgdds_signal_fetch", sig, AMO_LOAD, 0, 0, value);
}
PGDDS_API pgdds_status_t pgdds_wait_until_u64(pgdds_context_t ctx, pgdds_gptr_t ivar, pgdds_cmp_t cmp, uint64_t value)
{
    return wait_until<uint64_t>(ctx, "pgdds_wait_until_u64", ivar, cmp, value, nullptr, false);
}
PGDDS_API pgdds_status_t pgdds_wait_until_u32(pgdds_context_t ctx, pgdds_gptr_t ivar, pgdds_cmp_t cmp, uint32_t value)
{
    return wait_until<uint32_t>(ctx, "pgdds_wait_until_u32", ivar, cmp, value, nullptr, false);
}
PGDDS_API pgdds_status_t pgdds_test_until_u64(pgdds_context_t ctx, pgdds_gptr_t ivar, pgdds_cmp_t cmp, uint64_t value,
                                              int *satisfied)
{
    return wait_until<uint64_t>(ctx, "pgdds_test_until_u64", ivar, cmp, value, satisfied, true);
}
PGDDS_API pgdds_status_t pgdds_test_until_u32(pgdds_context_t ctx, pgdds_gptr_t ivar, pgdds_cmp_t cmp, uint32_t value,
                                              int *satisfied)
{
    return wait_until<uint32_t>(ctx, "pgdds_test_until_u32", ivar, cmp, value, satisfied, true);
}

// ---------------------------------------------------------------------------------------------
// Active messages
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_am_register(pgdds_context_t ctx, pgdds_am_handler_t h, void *arg, uint32_t *id)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_am_register", rt); est != PGDDS_OK) return est;
    if (!h) return null_arg("pgdds_am_register", "handler");
    if (!id) return null_arg("pgdds_am_register", "id");
    uint32_t mine;
    status st = rt->am_register(h, arg, mine);
    if (st != PGDDS_OK) return st;
    // Collective: every rank must register in the same order; check that the ids agree.
    uint32_t ids[2] = {mine, ~mine}, agreed[2];
    st = rt->allreduce("pgdds_am_register", ids, agreed, 2, PGDDS_UINT32, PGDDS_OP_MAX);
    if (st != PGDDS_OK) return st;
    if (agreed[0] != mine || ~agreed[1] != mine)
        return fail(PGDDS_ERR_STATE, "pgdds_am_register: ranks registered different numbers of handlers "
                    "(this rank's handler is number %u)", mine);
    *id = mine;
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_am_send(pgdds_context_t ctx, int dst_rank, uint32_t id, const void *payload, size_t size)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_am_send", rt); est != PGDDS_OK) return est;
    if (dst_rank < 0 || dst_rank >= rt->nranks())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "pgdds_am_send: rank %d is not in 0..%d", dst_rank, rt->nranks() - 1);
    if (!rt->am_registered(id))
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_am_send: %u is not a registered handler id", id);
    if (!payload && size) return null_arg("pgdds_am_send", "payload");
    if (size > PGDDS_AM_MAX_PAYLOAD)
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_am_send: %zu bytes exceed PGDDS_AM_MAX_PAYLOAD (%zu)", size,
                    size_t(PGDDS_AM_MAX_PAYLOAD));
    vci *v;
    status st = caller_vci(rt, "pgdds_am_send", v);
    if (st != PGDDS_OK) return st;
    try {
        return rt->am_send("pgdds_am_send", *v, dst_rank, id, payload, size);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "pgdds_am_send: out of host memory");
    }
}

PGDDS_API pgdds_status_t pgdds_progress(pgdds_context_t ctx)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_progress", rt); est != PGDDS_OK) return est;
    vci *v;
    status st = caller_vci(rt, "pgdds_progress", v);
    if (st == PGDDS_OK) st = rt->progress(*v);
    // One thread: the other VCIs have nobody else. Several: progress() sweeps the unattended
    // ones every 256th call; every call would borrow an idle thread's VCI over and over, an
    // asymmetric barrier each time.
    if (st == PGDDS_OK && !rt->threaded()) st = rt->progress_unattended(v);
    // A caller polling in a loop on an oversubscribed node gives the core away between rounds
    // (Open MPI's yield_when_idle): the peer, or this rank's thread waiting for a shared VCI's
    // lock, may need it to make the progress this caller polls for.
    if (st == PGDDS_OK) rt->yield_if_oversubscribed();
    // A caller polling for a word a dead peer would have set learns of the death (every 256th
    // call: the check is for the slow path of such a loop).
    static thread_local unsigned calls = 0;
    if (st == PGDDS_OK && PGDDS_UNLIKELY((++calls & 255) == 0)) return rt->check_peers("pgdds_progress");
    return st == PGDDS_OK ? st : fail_prefix(st, "pgdds_progress");
}

// ---------------------------------------------------------------------------------------------
// VCIs
// ---------------------------------------------------------------------------------------------
PGDDS_API unsigned pgdds_num_vcis(pgdds_context_t ctx)
{
    runtime *rt = runtime::from(ctx);
    return rt ? rt->num_vcis() : 0;
}

PGDDS_API pgdds_status_t pgdds_vci_bind(pgdds_context_t ctx, unsigned vci_index)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_vci_bind", rt); est != PGDDS_OK) return est;
    return rt->bind(vci_index);
}

PGDDS_API int pgdds_vci_current(pgdds_context_t ctx)
{
    runtime *rt = runtime::from(ctx);
    if (!rt || !rt->thread_allowed()) return -1;
    return int(rt->current_vci().index);
}

PGDDS_API pgdds_status_t pgdds_net_counts(pgdds_context_t ctx, pgdds_net_counts_t *counts)
{
    runtime *rt = runtime::from(ctx);
    if (!rt) return bad_context("pgdds_net_counts", ctx);
    if (!counts) return null_arg("pgdds_net_counts", "counts");
    uint64_t c[net_count_kinds];
    rt->net_counts(c);
    *counts = pgdds_net_counts_t{};
    counts->puts = c[count_puts];
    counts->gets = c[count_gets];
    counts->put_bytes = c[count_put_bytes];
    counts->get_bytes = c[count_get_bytes];
    counts->atomics = c[count_atomics];
    counts->atomics_posted = c[count_atomics_posted];
    counts->flushes = c[count_flushes];
    return PGDDS_OK;
}

}  // extern "C"
