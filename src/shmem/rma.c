/* Remote memory access, ordering and barriers: every typed, sized and mem routine is a thin
 * wrapper (generated from the type tables of shmem.h) around one put, get, strided and signal
 * routine here. */
#include "shmem_internal.h"

/* Bytes of nelems elements of elem bytes; fatal on overflow. */
static size_t bytes_of(size_t nelems, size_t elem, const char *routine)
{
    if (elem != 0 && nelems > SIZE_MAX / elem)
        shmem_fatal_msg(routine, "%zu elements of %zu bytes overflow the address space", nelems, elem);
    return nelems * elem;
}

static void rma_put(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, size_t elem, int pe, int nbi,
                    const char *routine)
{
    size_t n = bytes_of(nelems, elem, routine);
    shmem_require_init(routine);
    if (n == 0) return;   /* nothing moves: the addresses may be anything */
    pgdds_gptr_t g = shmem_target(ctx, dest, pe, routine);
    unsigned prev = shmem_ctx_enter(ctx, routine);
    pgdds_status_t st = nbi ? pgdds_put_nbi(shmem_g.ctx, g, source, n) : pgdds_put(shmem_g.ctx, g, source, n);
    shmem_ctx_leave(ctx, prev);
    shmem_check(st, routine);
}

static void rma_get(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, size_t elem, int pe, int nbi,
                    const char *routine)
{
    size_t n = bytes_of(nelems, elem, routine);
    shmem_require_init(routine);
    if (n == 0) return;   /* nothing moves: the addresses may be anything */
    pgdds_gptr_t g = shmem_target(ctx, source, pe, routine);
    unsigned prev = shmem_ctx_enter(ctx, routine);
    pgdds_status_t st = nbi ? pgdds_get_nbi(shmem_g.ctx, dest, g, n) : pgdds_get(shmem_g.ctx, dest, g, n);
    shmem_ctx_leave(ctx, prev);
    shmem_check(st, routine);
}

/* Strided: element i goes from source + i*sst to dest + i*dst (strides in elements). */
static void rma_iput(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                     size_t elem, int pe, const char *routine)
{
    for (size_t i = 0; i < nelems; ++i)
        rma_put(ctx, (char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem,
                (const char *)source + (ptrdiff_t)i * sst * (ptrdiff_t)elem, 1, elem, pe, 0, routine);
}

static void rma_iget(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                     size_t elem, int pe, const char *routine)
{
    for (size_t i = 0; i < nelems; ++i)
        rma_get(ctx, (char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem,
                (const char *)source + (ptrdiff_t)i * sst * (ptrdiff_t)elem, 1, elem, pe, 0, routine);
}

static void rma_put_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, size_t elem,
                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi, const char *routine)
{
    size_t n = bytes_of(nelems, elem, routine);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmem_fatal_msg(routine, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
    pgdds_gptr_t g = shmem_target(ctx, dest, pe, routine);
    pgdds_gptr_t s = shmem_target(ctx, sig_addr, pe, routine);
    pgdds_signal_op_t op = sig_op == SHMEM_SIGNAL_SET ? PGDDS_SIGNAL_SET : PGDDS_SIGNAL_ADD;
    unsigned prev = shmem_ctx_enter(ctx, routine);
    pgdds_status_t st = nbi ? pgdds_put_signal_nbi(shmem_g.ctx, g, source, n, s, signal, op)
                            : pgdds_put_signal(shmem_g.ctx, g, source, n, s, signal, op);
    shmem_ctx_leave(ctx, prev);
    shmem_check(st, routine);
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    const char *routine = "shmem_signal_fetch";
    uint64_t v = 0;
    shmem_check(pgdds_signal_fetch(shmem_g.ctx, shmem_target(SHMEM_CTX_DEFAULT, sig_addr, shmem_g.me, routine), &v),
                routine);
    return v;
}

/* The typed routines, from the type table. */
#define DEF_RMA(T, N)                                                                             \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)    \
    { rma_put(ctx, dest, source, nelems, sizeof(T), pe, 0, "shmem_" #N "_put"); }                 \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                         \
    { rma_put(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, 0, "shmem_" #N "_put"); }   \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)    \
    { rma_get(ctx, dest, source, nelems, sizeof(T), pe, 0, "shmem_" #N "_get"); }                 \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                         \
    { rma_get(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, 0, "shmem_" #N "_get"); }   \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    { rma_put(ctx, dest, source, nelems, sizeof(T), pe, 1, "shmem_" #N "_put_nbi"); }             \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                     \
    { rma_put(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, 1, "shmem_" #N "_put_nbi"); } \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    { rma_get(ctx, dest, source, nelems, sizeof(T), pe, 1, "shmem_" #N "_get_nbi"); }             \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                     \
    { rma_get(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, 1, "shmem_" #N "_get_nbi"); } \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                             \
    { rma_put(ctx, dest, &value, 1, sizeof(T), pe, 0, "shmem_" #N "_p"); }                        \
    void shmem_##N##_p(T *dest, T value, int pe)                                                  \
    { rma_put(SHMEM_CTX_DEFAULT, dest, &value, 1, sizeof(T), pe, 0, "shmem_" #N "_p"); }          \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                                 \
    { T v; rma_get(ctx, &v, source, 1, sizeof(T), pe, 0, "shmem_" #N "_g"); return v; }           \
    T shmem_##N##_g(const T *source, int pe)                                                      \
    { T v; rma_get(SHMEM_CTX_DEFAULT, &v, source, 1, sizeof(T), pe, 0, "shmem_" #N "_g"); return v; } \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                              size_t nelems, int pe)                                              \
    { rma_iput(ctx, dest, source, dst, sst, nelems, sizeof(T), pe, "shmem_" #N "_iput"); }        \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    { rma_iput(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, sizeof(T), pe, "shmem_" #N "_iput"); } \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                              size_t nelems, int pe)                                              \
    { rma_iget(ctx, dest, source, dst, sst, nelems, sizeof(T), pe, "shmem_" #N "_iget"); }        \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    { rma_iget(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, sizeof(T), pe, "shmem_" #N "_iget"); } \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)      \
    { rma_put_signal(ctx, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, pe, 0,       \
                     "shmem_" #N "_put_signal"); }                                                \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,      \
                                uint64_t signal, int sig_op, int pe)                              \
    { rma_put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, pe, 0, \
                     "shmem_" #N "_put_signal"); }                                                \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)  \
    { rma_put_signal(ctx, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, pe, 1,       \
                     "shmem_" #N "_put_signal_nbi"); }                                            \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                                    uint64_t signal, int sig_op, int pe)                          \
    { rma_put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, pe, 1, \
                     "shmem_" #N "_put_signal_nbi"); }
SHMEM_RMA_TYPES(DEF_RMA)

/* The sized routines (BITS / 8 bytes an element) and the mem routines (one byte). */
#define DEF_SIZED_ALL(PUT, GET, ELEM)                                                             \
    void shmem_ctx_##PUT(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)  \
    { rma_put(ctx, dest, source, nelems, ELEM, pe, 0, "shmem_" #PUT); }                           \
    void shmem_##PUT(void *dest, const void *source, size_t nelems, int pe)                       \
    { rma_put(SHMEM_CTX_DEFAULT, dest, source, nelems, ELEM, pe, 0, "shmem_" #PUT); }             \
    void shmem_ctx_##GET(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)  \
    { rma_get(ctx, dest, source, nelems, ELEM, pe, 0, "shmem_" #GET); }                           \
    void shmem_##GET(void *dest, const void *source, size_t nelems, int pe)                       \
    { rma_get(SHMEM_CTX_DEFAULT, dest, source, nelems, ELEM, pe, 0, "shmem_" #GET); }             \
    void shmem_ctx_##PUT##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) \
    { rma_put(ctx, dest, source, nelems, ELEM, pe, 1, "shmem_" #PUT "_nbi"); }                    \
    void shmem_##PUT##_nbi(void *dest, const void *source, size_t nelems, int pe)                 \
    { rma_put(SHMEM_CTX_DEFAULT, dest, source, nelems, ELEM, pe, 1, "shmem_" #PUT "_nbi"); }      \
    void shmem_ctx_##GET##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) \
    { rma_get(ctx, dest, source, nelems, ELEM, pe, 1, "shmem_" #GET "_nbi"); }                    \
    void shmem_##GET##_nbi(void *dest, const void *source, size_t nelems, int pe)                 \
    { rma_get(SHMEM_CTX_DEFAULT, dest, source, nelems, ELEM, pe, 1, "shmem_" #GET "_nbi"); }      \
    void shmem_ctx_##PUT##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)        \
    { rma_put_signal(ctx, dest, source, nelems, ELEM, sig_addr, signal, sig_op, pe, 0, "shmem_" #PUT "_signal"); } \
    void shmem_##PUT##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,  \
                              uint64_t signal, int sig_op, int pe)                                \
    { rma_put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, ELEM, sig_addr, signal, sig_op, pe, 0, \
                     "shmem_" #PUT "_signal"); }                                                  \
    void shmem_ctx_##PUT##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)    \
    { rma_put_signal(ctx, dest, source, nelems, ELEM, sig_addr, signal, sig_op, pe, 1,            \
                     "shmem_" #PUT "_signal_nbi"); }                                              \
    void shmem_##PUT##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                  uint64_t signal, int sig_op, int pe)                            \
    { rma_put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, ELEM, sig_addr, signal, sig_op, pe, 1, \
                     "shmem_" #PUT "_signal_nbi"); }
#define DEF_SIZED_STRIDED(BITS)                                                                   \
    DEF_SIZED_ALL(put##BITS, get##BITS, BITS / 8)                                                 \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                              size_t nelems, int pe)                                              \
    { rma_iput(ctx, dest, source, dst, sst, nelems, BITS / 8, pe, "shmem_iput" #BITS); }          \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    { rma_iput(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, BITS / 8, pe, "shmem_iput" #BITS); } \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                              size_t nelems, int pe)                                              \
    { rma_iget(ctx, dest, source, dst, sst, nelems, BITS / 8, pe, "shmem_iget" #BITS); }          \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    { rma_iget(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, BITS / 8, pe, "shmem_iget" #BITS); }
SHMEM_SIZED_BITS(DEF_SIZED_STRIDED)
DEF_SIZED_ALL(putmem, getmem, 1)

/* ------------------------------------------------------------------------------------------ */
/* Ordering and barriers                                                                       */
/* ------------------------------------------------------------------------------------------ */
void shmem_ctx_fence(shmem_ctx_t ctx)
{
    shmem_require_init("shmem_fence");
    unsigned prev = shmem_ctx_enter(ctx, "shmem_fence");
    pgdds_status_t st = pgdds_fence(shmem_g.ctx);
    shmem_ctx_leave(ctx, prev);
    shmem_check(st, "shmem_fence");
}
void shmem_fence(void) { shmem_ctx_fence(SHMEM_CTX_DEFAULT); }

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    shmem_require_init("shmem_quiet");
    unsigned prev = shmem_ctx_enter(ctx, "shmem_quiet");
    pgdds_status_t st = pgdds_flush(shmem_g.ctx);
    shmem_ctx_leave(ctx, prev);
    shmem_check(st, "shmem_quiet");
}
void shmem_quiet(void) { shmem_ctx_quiet(SHMEM_CTX_DEFAULT); }

/* pgdds_barrier completes every VCI's operations of every PE, then synchronizes: both
 * shmem_barrier_all and (more than it needs) shmem_sync_all. */
void shmem_barrier_all(void)
{
    shmem_require_init("shmem_barrier_all");
    shmem_check(pgdds_barrier(shmem_g.ctx), "shmem_barrier_all");
}
void shmem_sync_all(void)
{
    shmem_require_init("shmem_sync_all");
    shmem_check(pgdds_barrier(shmem_g.ctx), "shmem_sync_all");
}
