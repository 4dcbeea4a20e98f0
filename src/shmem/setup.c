/* Library setup, exit and query; the symmetric heap; the address and context helpers every
 * other routine goes through. */
#include "shmem_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct shmem_state shmem_g;
static struct shmem_ctx_impl default_ctx;
shmem_ctx_t SHMEM_CTX_DEFAULT = &default_ctx;
static struct shmem_team_impl world_team, shared_team;
shmem_team_t SHMEM_TEAM_WORLD = SHMEM_TEAM_INVALID;
shmem_team_t SHMEM_TEAM_SHARED = SHMEM_TEAM_INVALID;

_Noreturn void shmem_fatal(const char *routine, pgdds_status_t st)
{
    fprintf(stderr, "shmem: PE %d: %s: %s (%s)\n", shmem_g.me, routine, pgdds_last_error(), pgdds_strerror(st));
    fflush(NULL);
    _exit(1);
}

_Noreturn void shmem_fatal_msg(const char *routine, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "shmem: PE %d: %s: %s\n", shmem_g.me, routine, msg);
    fflush(NULL);
    _exit(1);
}

void shmem_not_initialized(const char *routine)
{
    shmem_fatal_msg(routine, "the library is %s (call shmem_init first)",
                    shmem_g.finalized ? "finalized" : "not initialized");
}

/* "512M", "2G", "1048576", "64KiB": bytes; 0 when ill-formed. */
static size_t parse_size(const char *text)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text) return 0;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; ++end; break;
    case 'M': shift = 20; ++end; break;
    case 'G': shift = 30; ++end; break;
    case 'T': shift = 40; ++end; break;
    default: break;
    }
    if (shift && (*end == 'i' || *end == 'I')) ++end;
    if (*end == 'B' || *end == 'b') ++end;
    if (*end != '\0' || v > (SIZE_MAX >> shift)) return 0;
    return (size_t)v << shift;
}

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "no") != 0 && strcasecmp(v, "off") != 0;
}

static void init_with(int requested)
{
    const char *routine = "shmem_init";
    if (shmem_g.finalized) shmem_fatal_msg(routine, "the library was finalized and cannot start again");
    if (shmem_g.initialized) return;   /* later calls have no effect */
    pgdds_init_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = PGDDS_INIT_FIELD_THREAD_LEVEL;
    /* Each level is the core's of the same meaning (SERIALIZED: any thread, one at a time). */
    params.thread_level = requested == SHMEM_THREAD_SINGLE       ? PGDDS_THREAD_SINGLE
                          : requested == SHMEM_THREAD_FUNNELED   ? PGDDS_THREAD_FUNNELED
                          : requested == SHMEM_THREAD_SERIALIZED ? PGDDS_THREAD_SERIALIZED
                                                                 : PGDDS_THREAD_MULTIPLE;
    /* SHMEM_SYMMETRIC_SIZE is the segment size, unless PGDDS_SEGMENT_SIZE says otherwise. */
    const char *sym = getenv("SHMEM_SYMMETRIC_SIZE");
    if (sym && !getenv("PGDDS_SEGMENT_SIZE")) {
        size_t size = parse_size(sym);
        if (size == 0) shmem_fatal_msg(routine, "SHMEM_SYMMETRIC_SIZE=%s is not a size (such as 512M or 2G)", sym);
        params.field_mask |= PGDDS_INIT_FIELD_SEGMENT_SIZE;
        params.segment_size = size;
    }
    pgdds_context_t ctx;
    pgdds_status_t st = pgdds_init(&params, &ctx);
    if (st != PGDDS_OK) shmem_fatal(routine, st);
    shmem_g.ctx = ctx;
    shmem_g.me = pgdds_rank(ctx);
    shmem_g.npes = pgdds_nranks(ctx);
    /* Global and static variables are symmetric too (remotely accessible). */
    shmem_check(pgdds_map_static_data(ctx, 0), routine);
    shmem_g.thread_level = requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE
                               ? SHMEM_THREAD_MULTIPLE : requested;
    shmem_g.nvcis = pgdds_num_vcis(ctx);
    shmem_g.debug = env_flag("SHMEM_DEBUG");
    /* The segment's base, from the offset of a small block of it. */
    pgdds_gptr_t probe;
    shmem_check(pgdds_alloc(ctx, 16, 0, &probe), routine);
    shmem_g.heap_base = (char *)pgdds_gptr_to_local(ctx, probe) - pgdds_gptr_offset(probe);
    shmem_check(pgdds_free(ctx, probe), routine);
    shmem_check(pgdds_segment_size(ctx, shmem_g.me, &shmem_g.heap_size), routine);
    shmem_check(pgdds_team_world(ctx, &world_team.team), routine);
    shmem_check(pgdds_team_node(ctx, &shared_team.team), routine);
    SHMEM_TEAM_WORLD = &world_team;
    SHMEM_TEAM_SHARED = &shared_team;
    default_ctx.vci = 0;
    default_ctx.team = NULL;
    shmem_g.initialized = 1;
    if (shmem_g.me == 0 && (env_flag("SHMEM_VERSION") || env_flag("SHMEM_INFO")))
        printf("%s %d.%d (libpgdds %s)\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION,
               pgdds_version_string());
    if (shmem_g.me == 0 && env_flag("SHMEM_INFO"))
        printf("  PEs %d, transport %s, symmetric heap %zu bytes per PE (SHMEM_SYMMETRIC_SIZE), "
               "VCIs for contexts %u (PGDDS_NUM_VCIS)\n",
               shmem_g.npes, pgdds_transport_name(ctx), shmem_g.heap_size, shmem_g.nvcis);
    if (shmem_g.debug)
        fprintf(stderr, "shmem: PE %d of %d up over %s, heap at %p (%zu bytes)\n", shmem_g.me, shmem_g.npes,
                pgdds_transport_name(ctx), (void *)shmem_g.heap_base, shmem_g.heap_size);
}

void shmem_init(void) { init_with(SHMEM_THREAD_SINGLE); }

int shmem_init_thread(int requested, int *provided)
{
    init_with(requested);
    if (provided) *provided = shmem_g.thread_level;
    return 0;
}

void shmem_query_thread(int *provided)
{
    shmem_require_init("shmem_query_thread");
    if (provided) *provided = shmem_g.thread_level;
}

void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}

void shmem_finalize(void)
{
    if (!shmem_ready()) return;
    /* An implicit barrier first: every PE's operations complete before any PE leaves. */
    shmem_check(pgdds_barrier(shmem_g.ctx), "shmem_finalize");
    shmem_check(pgdds_finalize(shmem_g.ctx), "shmem_finalize");
    shmem_g.finalized = 1;
    shmem_g.ctx = NULL;
    SHMEM_TEAM_WORLD = SHMEM_TEAM_INVALID;
    SHMEM_TEAM_SHARED = SHMEM_TEAM_INVALID;
}

void shmem_global_exit(int status)
{
    /* No barrier and no finalize: the other PEs may be anywhere. The launcher (pgdds-run,
     * mpirun, srun -K) ends them, and their waits see this PE gone. */
    fflush(NULL);
    _exit(status);
}

int shmem_my_pe(void) { return shmem_ready() ? shmem_g.me : -1; }
int shmem_n_pes(void) { return shmem_ready() ? shmem_g.npes : -1; }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
int shmem_num_pes(void) { return shmem_n_pes(); }

int shmem_pe_accessible(int pe)
{
    return shmem_ready() && pe >= 0 && pe < shmem_g.npes;
}

/* The segment offset of symmetric address addr: in this PE's symmetric heap (the segment) or
 * in its static data (mapped into the segment at shmem_init); 0 for any other address (offset
 * 0 of a segment is never symmetric). */
static uint64_t sym_offset(const void *addr)
{
    uint64_t off = shmem_heap_offset(addr);
    if (off != 0) return off;
    pgdds_gptr_t g;
    if (addr && pgdds_gptr_from_local(shmem_g.ctx, addr, &g) == PGDDS_OK && pgdds_gptr_rank(g) == shmem_g.me)
        return pgdds_gptr_offset(g);
    return 0;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    return shmem_pe_accessible(pe) && sym_offset(addr) != 0;
}

void *shmem_ptr(const void *dest, int pe)
{
    if (!shmem_pe_accessible(pe)) return NULL;
    uint64_t off = sym_offset(dest);
    if (off == 0) return NULL;
    if (pe == shmem_g.me) return (void *)(uintptr_t)dest;
    return pgdds_gptr_to_local(shmem_g.ctx, shmem_gptr_of(pe, off));
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major) *major = SHMEM_MAJOR_VERSION;
    if (minor) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name) snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

int shmem_world_pe(shmem_ctx_t ctx, int pe)
{
    if (ctx->team == NULL || ctx->team == SHMEM_TEAM_WORLD) return pe >= 0 && pe < shmem_g.npes ? pe : -1;
    int world;
    if (pgdds_team_translate_rank(ctx->team->team, pe, world_team.team, &world) != PGDDS_OK) return -1;
    return world;
}

pgdds_gptr_t shmem_target_checked(shmem_ctx_t ctx, const void *addr, int pe, const char *routine)
{
    shmem_require_init(routine);
    if (ctx == SHMEM_CTX_INVALID) shmem_fatal_msg(routine, "the context is SHMEM_CTX_INVALID");
    int world = shmem_world_pe(ctx, pe);
    if (world < 0) shmem_fatal_msg(routine, "PE %d is not a PE of the %s", pe, ctx->team ? "context's team" : "job");
    uint64_t off = sym_offset(addr);
    if (off == 0)
        shmem_fatal_msg(routine,
                        "%p is not symmetric: neither in the symmetric heap (shmem_malloc and its kin) nor "
                        "a global or static variable of the program",
                        addr);
    return shmem_gptr_of(world, off);
}

unsigned shmem_ctx_bind(shmem_ctx_t ctx, const char *routine)
{
    if (ctx == SHMEM_CTX_INVALID) shmem_fatal_msg(routine, "the context is SHMEM_CTX_INVALID");
    if (shmem_g.nvcis < 2) return 0;
    int current = pgdds_vci_current(shmem_g.ctx);
    if ((unsigned)current != ctx->vci) shmem_check(pgdds_vci_bind(shmem_g.ctx, ctx->vci), routine);
    return (unsigned)current;
}

void shmem_ctx_unbind(shmem_ctx_t ctx, unsigned previous)
{
    if (shmem_g.nvcis < 2 || previous == ctx->vci) return;
    shmem_check(pgdds_vci_bind(shmem_g.ctx, previous), "shmem_ctx");
}

/* ------------------------------------------------------------------------------------------ */
/* The symmetric heap                                                                          */
/* ------------------------------------------------------------------------------------------ */
/* Each live block's size, for shmem_realloc. */
static struct block { void *ptr; size_t size; } *blocks;
static size_t nblocks, blocks_cap;

static void remember(void *ptr, size_t size)
{
    if (nblocks == blocks_cap) {
        size_t cap = blocks_cap ? 2 * blocks_cap : 64;
        struct block *b = realloc(blocks, cap * sizeof *b);
        if (!b) shmem_fatal_msg("shmem_malloc", "out of host memory");
        blocks = b;
        blocks_cap = cap;
    }
    blocks[nblocks].ptr = ptr;
    blocks[nblocks++].size = size;
}

static struct block *find_block(const void *ptr)
{
    for (size_t i = 0; i < nblocks; ++i)
        if (blocks[i].ptr == ptr) return &blocks[i];
    return NULL;
}

/* Allocates on every PE (collective), then synchronizes as shmem_barrier_all; NULL on every PE
 * when any PE cannot. */
static void *sym_alloc(size_t size, size_t alignment, unsigned flags, const char *routine)
{
    shmem_require_init(routine);
    void *p = NULL;
    if (size > 0) {
        pgdds_gptr_t g;
        pgdds_status_t st = pgdds_alloc_all(shmem_g.ctx, size, alignment, flags, &g);
        if (st == PGDDS_OK) {
            p = pgdds_gptr_to_local(shmem_g.ctx, g);
            remember(p, size);
        } else if (shmem_g.debug) {
            fprintf(stderr, "shmem: PE %d: %s(%zu): %s\n", shmem_g.me, routine, size, pgdds_last_error());
        }
    }
    shmem_check(pgdds_barrier(shmem_g.ctx), routine);
    return p;
}

void *shmem_malloc(size_t size) { return sym_alloc(size, 0, 0, "shmem_malloc"); }
void *shmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints;   /* every block serves atomics and signals alike */
    return sym_alloc(size, 0, 0, "shmem_malloc_with_hints");
}

void *shmem_calloc(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        shmem_check(pgdds_barrier(shmem_g.ctx), "shmem_calloc");
        return NULL;
    }
    return sym_alloc(count * size, 0, PGDDS_ALLOC_ZERO, "shmem_calloc");
}

void *shmem_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        if (shmem_g.debug) fprintf(stderr, "shmem: shmem_align: alignment %zu is not a power of two\n", alignment);
        shmem_check(pgdds_barrier(shmem_g.ctx), "shmem_align");
        return NULL;
    }
    return sym_alloc(size, alignment, 0, "shmem_align");
}

void shmem_free(void *ptr)
{
    const char *routine = "shmem_free";
    shmem_require_init(routine);
    if (!ptr) {
        shmem_check(pgdds_barrier(shmem_g.ctx), routine);
        return;
    }
    struct block *b = find_block(ptr);
    if (!b) shmem_fatal_msg(routine, "%p is not a block of shmem_malloc", ptr);
    pgdds_gptr_t g = shmem_target(SHMEM_CTX_DEFAULT, ptr, shmem_g.me, routine);
    shmem_check(pgdds_free_all(shmem_g.ctx, g), routine);
    *b = blocks[--nblocks];
}

void *shmem_realloc(void *ptr, size_t size)
{
    const char *routine = "shmem_realloc";
    if (!ptr) return shmem_malloc(size);
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    struct block *b = find_block(ptr);
    if (!b) shmem_fatal_msg(routine, "%p is not a block of shmem_malloc", ptr);
    size_t old = b->size;
    void *p = sym_alloc(size, 0, 0, routine);
    if (!p) return NULL;   /* ptr stays valid, as realloc's */
    memcpy(p, ptr, old < size ? old : size);
    shmem_free(ptr);
    return p;
}

void *shmalloc(size_t size) { return shmem_malloc(size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void shfree(void *ptr) { shmem_free(ptr); }
