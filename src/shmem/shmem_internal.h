/* State and helpers shared by the files of libpgdds_shmem. It uses only the public libpgdds C
 * API (<pgdds/pgdds.h>): this layer maps OpenSHMEM onto it and knows nothing of its insides. */
#ifndef PGDDS_SHMEM_INTERNAL_H
#define PGDDS_SHMEM_INTERNAL_H

#include <shmem.h>
#include <pgdds/pgdds.h>

#include <stdint.h>
#include <string.h>

/* A context: a VCI of the core (contexts share VCI 0's stream when there is only one) and the
 * team whose PE numbers its operations use. */
struct shmem_ctx_impl {
    unsigned     vci;
    long         options;
    shmem_team_t team;     /* NULL: the world's PE numbers */
};

/* A team: the core's team handle and its configuration. */
struct shmem_team_impl {
    pgdds_team_t     team;
    shmem_team_config_t config;
    long             config_mask;
};

/* The library's state; one per process. */
struct shmem_state {
    pgdds_context_t ctx;
    int   initialized, finalized;
    int   me, npes;
    int   thread_level;         /* SHMEM_THREAD_* provided */
    char *heap_base;            /* local address of offset 0 of this PE's segment */
    size_t heap_size;           /* this PE's segment size */
    unsigned nvcis;
    int   debug;                /* SHMEM_DEBUG */
};
extern struct shmem_state shmem_g;

/* Ends the job after a failed operation of a routine that has no way to report it: prints
 * "shmem: ROUTINE: <pgdds_last_error()>" and exits with status 1, which ends the job (the
 * launcher ends the other PEs). The OpenSHMEM routines return void; a wrong answer is not an
 * option. */
_Noreturn void shmem_fatal(const char *routine, pgdds_status_t st);
/* The same with a message of this layer's own. */
_Noreturn void shmem_fatal_msg(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends the job: the library is not initialized, or finalized. */
_Noreturn void shmem_not_initialized(const char *routine);
/* Whether the library is initialized and not finalized. */
static inline int shmem_ready(void) { return shmem_g.initialized && !shmem_g.finalized; }
/* Ends the job unless the library is initialized. */
static inline void shmem_require_init(const char *routine)
{
    if (__builtin_expect(!shmem_ready(), 0)) shmem_not_initialized(routine);
}

/* The offset of addr in this PE's symmetric heap; 0 outside it (offset 0 is never symmetric). */
static inline uint64_t shmem_heap_offset(const void *addr)
{
    const char *a = (const char *)addr;
    return a > shmem_g.heap_base && a < shmem_g.heap_base + shmem_g.heap_size ? (uint64_t)(a - shmem_g.heap_base) : 0;
}
/* The global pointer of offset in world PE world_pe's segment. */
static inline pgdds_gptr_t shmem_gptr_of(int world_pe, uint64_t offset)
{
    return ((uint64_t)world_pe << (PGDDS_GPTR_OFFSET_BITS + PGDDS_GPTR_SEGMENT_BITS)) | offset;
}

/* The global pointer of symmetric address addr on pe (a PE number of ctx's team): one home for
 * the address check of every remote routine. Fatal for an address outside the symmetric heap
 * or a PE outside the team. */
pgdds_gptr_t shmem_target_checked(shmem_ctx_t ctx, const void *addr, int pe, const char *routine);
/* Its common case inline, as every put, get and atomic takes it: the default context, a PE of
 * the job and an address in the symmetric heap. */
static inline pgdds_gptr_t shmem_target(shmem_ctx_t ctx, const void *addr, int pe, const char *routine)
{
    uint64_t off = shmem_heap_offset(addr);
    if (ctx == SHMEM_CTX_DEFAULT && shmem_ready() && pe >= 0 && pe < shmem_g.npes && off != 0)
        return shmem_gptr_of(pe, off);
    return shmem_target_checked(ctx, addr, pe, routine);
}
/* The world PE of ctx's team PE pe (pe itself on the default context); -1 if outside. */
int shmem_world_pe(shmem_ctx_t ctx, int pe);

/* Runs one core call on ctx's VCI: binds the calling thread to it for the call, then back.
 * The default context, and every context with one VCI, use the caller's VCI: nothing to do. */
unsigned shmem_ctx_bind(shmem_ctx_t ctx, const char *routine);
void shmem_ctx_unbind(shmem_ctx_t ctx, unsigned previous);
static inline unsigned shmem_ctx_enter(shmem_ctx_t ctx, const char *routine)
{
    return ctx == SHMEM_CTX_DEFAULT ? 0 : shmem_ctx_bind(ctx, routine);
}
static inline void shmem_ctx_leave(shmem_ctx_t ctx, unsigned previous)
{
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_unbind(ctx, previous);
}

/* Checks a core status: fatal unless PGDDS_OK. */
static inline void shmem_check(pgdds_status_t st, const char *routine)
{
    if (st != PGDDS_OK) shmem_fatal(routine, st);
}

/* A context on team's PE numbers (shmem_ctx_create: the world's; shmem_team_create_ctx). */
int shmem_ctx_create_on(shmem_team_t team, long options, shmem_ctx_t *ctx);

#endif
