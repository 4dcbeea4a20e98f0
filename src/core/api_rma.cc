// The C ABI of one-sided communication, atomics and point-to-point synchronization: validation
// of every argument, then the one dispatch between load/store and the transport (access.h).
#include "../base/bulk_copy.h"
#include "access.h"
#include "runtime.h"

#include "../gpu/gpu.h"

#include <type_traits>

using namespace pgdds;

namespace {

// A request that was complete when it was issued; never pooled.
pgdds_request completed_request = {request_magic, 0, {}, nullptr, nullptr};

// An outcome known when its request was made: a failure and its explanation, kept for the test.
struct settled_op final : deferred_op {
    status st;
    std::string why;
    settled_op(status s, std::string w) : st(s), why(std::move(w)) {}
    bool ready() override { return true; }
    status finish() override { return fail(st, "%s", why.c_str()); }
};

// A non-blocking operation through the transport (the _nb forms): issue(done) with a request's
// completion, handed out in *req once issued.
template <class Issue> status issue_with_request(runtime *rt, const char *who, vci &v, pgdds_request_t *req, Issue issue)
{
    pgdds_request *r = rt->request_get(v);
    if (!r) return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory for a request", who);
    r->done.add();
    status st = issue(&r->done);
    if (st != PGDDS_OK) {
        rt->request_put(v, r);
        return st;
    }
    *req = r;
    return PGDDS_OK;
}

// A put or get through a mapped peer, the calls' common case on a node: a checked copy,
// complete on return. False where the general path (rma below) must take the call: another
// route, GPU memory in the job, a thread the level does not allow, bad input (which it then
// reports). Small on purpose: no frame for the general path's cases.
inline bool copy_on_node(pgdds_context_t ctx, bool is_put, pgdds_gptr_t remote, void *local, size_t n)
{
    runtime *rt = runtime::from(ctx);
    if (PGDDS_UNLIKELY(!rt || rt->gpu() || !local || !rt->thread_allowed_here())) return false;
    uint8_t *p = rt->direct_access(remote, n);
    if (!p) return false;
    uint8_t *to = is_put ? p : static_cast<uint8_t *>(local);
    const uint8_t *from = is_put ? static_cast<const uint8_t *>(local) : p;
    if (n == 8) memcpy(to, from, 8);  // a word: a move, not a call
    else bulk_copy(to, from, n);
    return true;
}

// Blocking (neither req nor implicit), non-blocking with a request (req), or implicit (the
// _nbi forms: complete at the caller's next flush).
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
    if (!req && !implicit) return access::rma(*rt, who, nullptr, is_put, remote, local, n);
    status st = rt->check_access(who, remote, n);
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    if (access::copy_direct(*rt, is_put, remote, local, n)) {
        if (req) *req = &completed_request;
        return PGDDS_OK;
    }
    vci &v = rt->current_vci();
    if (implicit) return access::transfer(*rt, who, v, is_put, remote, local, n, nullptr);
    return issue_with_request(rt, who, v, req, [&](op_completion *done) {
        return access::transfer(*rt, who, v, is_put, remote, local, n, done);
    });
}

// rma for the calls without a request, after copy_on_node declined: five register arguments,
// so that those calls reach it by a jump.
template <bool is_put, bool implicit>
PGDDS_NOINLINE status rma_general(pgdds_context_t ctx, const char *who, pgdds_gptr_t remote, void *local, size_t n)
{
    return rma(ctx, who, is_put, remote, local, n, nullptr, implicit);
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

bool request_done(pgdds_request_t req) { return req->deferred ? req->deferred->ready() : req->done.done(); }

// The status of a complete request, which goes back to its VCI's pool.
status release_request(runtime *rt, const char *who, vci &v, pgdds_request_t req)
{
    status st = req->done.result;
    if (req->deferred) {
        st = req->deferred->finish();  // writes the outputs; explains a failure in full
        delete req->deferred;
        req->deferred = nullptr;
        rt->request_put(v, req);
        return st;
    }
    rt->request_put(v, req);
    return st == PGDDS_OK ? st : fail_prefix(st, who);
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
    if (!req) return access::atomic(*rt, who, nullptr, target, a, posted);
    status st = rt->check_access(who, target, sizeof(T), sizeof(T));
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    if (access::cpu_step(*rt, target, a) != access::amo_route::network) {
        *req = &completed_request;
        return PGDDS_OK;
    }
    vci &v = rt->current_vci();
    return issue_with_request(rt, who, v, req, [&](op_completion *done) { return rt->amo_issue(who, v, target, a, done); });
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
    const bool copied = access::copy_direct(*rt, true, dst, const_cast<void *>(src), n);
    if (copied && rt->cpu_atomics()) {
        cpu_amo(rt->direct(sig), a);  // sequentially consistent: the copy is visible before it
        return PGDDS_OK;
    }
    vci &v = rt->current_vci();
    if (!copied) st = access::transfer(*rt, who, v, true, dst, const_cast<void *>(src), n, nullptr);
    if (st == PGDDS_OK) st = rt->fence(who, v);
    if (st == PGDDS_OK) st = rt->amo_posted(who, v, sig, a);
    if (st == PGDDS_OK && !nbi) st = rt->flush(who, v);
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
    vci &v = rt->current_vci();
    if (!test) return rt->wait(who, v, holds);
    st = rt->progress(v);
    if (st != PGDDS_OK) return fail_prefix(st, who);
    *satisfied = holds() ? 1 : 0;
    return PGDDS_OK;
}

}  // namespace

status runtime::deferred_request(const char *who, std::unique_ptr<deferred_op> op, pgdds_request_t *out)
{
    pgdds_request *r = request_get(current_vci());
    if (!r) return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory for a request", who);
    r->deferred = op.release();
    *out = r;
    return PGDDS_OK;
}

status runtime::settled_request(const char *who, status st, pgdds_request_t *out)
{
    if (st == PGDDS_OK) {  // a request of its own (not the shared complete one): a second wait is refused
        pgdds_request *r = request_get(current_vci());
        if (!r) return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory for a request", who);
        *out = r;
        return PGDDS_OK;
    }
    try {
        return deferred_request(who, std::make_unique<settled_op>(st, pgdds_last_error()), out);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory for a request", who);
    }
}

extern "C" {

// ---------------------------------------------------------------------------------------------
// One-sided communication
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_put(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n)
{
    if (PGDDS_LIKELY(copy_on_node(ctx, true, dst, const_cast<void *>(src), n))) return PGDDS_OK;
    return rma_general<true, false>(ctx, "pgdds_put", dst, const_cast<void *>(src), n);
}
PGDDS_API pgdds_status_t pgdds_get(pgdds_context_t ctx, void *dst, pgdds_gptr_t src, size_t n)
{
    if (PGDDS_LIKELY(copy_on_node(ctx, false, src, dst, n))) return PGDDS_OK;
    return rma_general<false, false>(ctx, "pgdds_get", src, dst, n);
}
PGDDS_API pgdds_status_t pgdds_put_nbi(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n)
{
    if (PGDDS_LIKELY(copy_on_node(ctx, true, dst, const_cast<void *>(src), n))) return PGDDS_OK;
    return rma_general<true, true>(ctx, "pgdds_put_nbi", dst, const_cast<void *>(src), n);
}
PGDDS_API pgdds_status_t pgdds_get_nbi(pgdds_context_t ctx, void *dst, pgdds_gptr_t src, size_t n)
{
    if (PGDDS_LIKELY(copy_on_node(ctx, false, src, dst, n))) return PGDDS_OK;
    return rma_general<false, true>(ctx, "pgdds_get_nbi", src, dst, n);
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
    return (rt->*op)(who, rt->current_vci());
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
    if (!request_done(req)) {
        st = rt->progress(v);
        if (st != PGDDS_OK) return fail_prefix(st, "pgdds_test");
    }
    if (!request_done(req)) {
        *done = 0;
        return PGDDS_OK;
    }
    *done = 1;
    return release_request(rt, "pgdds_test", v, req);
}

PGDDS_API pgdds_status_t pgdds_wait(pgdds_context_t ctx, pgdds_request_t req)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_wait", rt); est != PGDDS_OK) return est;
    status st = check_request(rt, "pgdds_wait", req);
    if (st != PGDDS_OK || req == &completed_request) return st;
    vci &v = rt->vci_at(req->vci);
    st = rt->wait("pgdds_wait", v, [&] { return request_done(req); });
    if (st != PGDDS_OK) return st;  // the request stays live: the operation may still complete
    return release_request(rt, "pgdds_wait", v, req);
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

}  // extern "C"
