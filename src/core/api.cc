// The C ABI of the core sections but one-sided communication (api_rma.cc): start-up, identity,
// the segment and symmetric allocation, active messages, progress, VCIs. Validation of every
// argument, then the runtime.
#include "agreement.h"
#include "runtime.h"
#include "static_data.h"

#include "../gpu/gpu.h"

#include <new>
#include <string>
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
    try {
        return rt->am_send("pgdds_am_send", rt->current_vci(), dst_rank, id, payload, size);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "pgdds_am_send: out of host memory");
    }
}

PGDDS_API pgdds_status_t pgdds_progress(pgdds_context_t ctx)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_progress", rt); est != PGDDS_OK) return est;
    vci *v = &rt->current_vci();
    status st = rt->progress(*v);
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
