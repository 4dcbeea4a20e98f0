/* Point-to-point synchronization, distributed locks and contexts. Every wait_until, test and
 * signal_wait_until is one scan (p2p_scan) of this PE's words, repeated with progress between
 * scans while it must wait. */
#include "shmem_internal.h"

#include <stdlib.h>

/* The word at p (2, 4 or 8 bytes), read atomically with acquire order (the data put before a
 * flag is seen with it), widened to 64 bits: sign-extended when is_signed. */
static uint64_t load_word(const void *p, size_t size, int is_signed)
{
    switch (size) {
    case 2: {
        uint16_t v = __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
        return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
        return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
    }
}

/* A plain (not shared) value of size bytes, widened as load_word's. */
static uint64_t value_at(const void *p, size_t size, int is_signed)
{
    if (size == 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    if (size == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static int compare(uint64_t a, uint64_t b, int is_signed, int cmp)
{
    if (cmp == SHMEM_CMP_EQ) return a == b;
    if (cmp == SHMEM_CMP_NE) return a != b;
    int order = is_signed ? ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b) : (a > b) - (a < b);
    switch (cmp) {
    case SHMEM_CMP_GT: return order > 0;
    case SHMEM_CMP_GE: return order >= 0;
    case SHMEM_CMP_LT: return order < 0;
    default: return order <= 0;   /* SHMEM_CMP_LE */
    }
}

enum p2p_mode { P2P_ALL, P2P_ANY, P2P_SOME };

/* Scans nelems words of size bytes at ivars, skipping those whose status is nonzero, against
 * one value (values_stride 0) or one value each (values_stride size). ALL: returns 1 when
 * every active word satisfies cmp; ANY: the index of the first that does, SIZE_MAX if none;
 * SOME: the count, their indices in indices. With wait, scans until the answer is "yes" (ALL:
 * 1; ANY: an index; SOME: a count above 0), progressing the library between scans; with no
 * active word it answers at once. */
static size_t p2p_scan(const void *ivars, size_t nelems, size_t size, int is_signed, const int *status, int cmp,
                       const void *values, size_t values_stride, enum p2p_mode mode, size_t *indices, int wait,
                       const char *routine)
{
    shmem_require_init(routine);
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) shmem_fatal_msg(routine, "cmp %d is not a SHMEM_CMP_* value", cmp);
    size_t active = 0;
    for (size_t i = 0; i < nelems; ++i) active += !(status && status[i]);
    if (active == 0) return mode == P2P_ALL ? 1 : mode == P2P_ANY ? SIZE_MAX : 0;
    int flushed = 0;
    for (;;) {
        size_t satisfied = 0, first = SIZE_MAX;
        for (size_t i = 0; i < nelems; ++i) {
            if (status && status[i]) continue;
            uint64_t v = load_word((const char *)ivars + i * size, size, is_signed);
            uint64_t want = value_at((const char *)values + i * values_stride, size, is_signed);
            if (!compare(v, want, is_signed, cmp)) continue;
            if (first == SIZE_MAX) first = i;
            if (mode == P2P_SOME) indices[satisfied] = i;
            ++satisfied;
            if (mode == P2P_ANY) break;
        }
        if (mode == P2P_ALL && (satisfied == active || !wait)) return satisfied == active;
        if (mode == P2P_ANY && (first != SIZE_MAX || !wait)) return first;
        if (mode == P2P_SOME && (satisfied > 0 || !wait)) return satisfied;
        /* Before waiting, this PE's own posted operations (non-fetching AMOs, puts) complete:
         * the peer may be waiting for them to answer (ping-pong over atomic_set). */
        if (!flushed) {
            shmem_check(pgdds_flush(shmem_g.ctx), routine);
            flushed = 1;
        }
        shmem_check(pgdds_progress(shmem_g.ctx), routine);
    }
}

#define IS_SIGNED(T) ((T)-1 < (T)1)   /* not "< 0": no warning for the unsigned types */
#define DEF_P2P(T, N)                                                                             \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                    \
    { p2p_scan(ivar, 1, sizeof(T), IS_SIGNED(T), NULL, cmp, &cmp_value, 0, P2P_ALL, NULL, 1, "shmem_" #N "_wait_until"); } \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
    { p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, &cmp_value, 0, P2P_ALL, NULL, 1, \
               "shmem_" #N "_wait_until_all"); }                                                  \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
    { return p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, &cmp_value, 0, P2P_ANY, NULL, 1, \
                      "shmem_" #N "_wait_until_any"); }                                           \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                       T cmp_value)                                               \
    { return p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, &cmp_value, 0, P2P_SOME, indices, 1, \
                      "shmem_" #N "_wait_until_some"); }                                          \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
    { p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, cmp_values, sizeof(T), P2P_ALL, NULL, 1, \
               "shmem_" #N "_wait_until_all_vector"); }                                           \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
    { return p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, cmp_values, sizeof(T), P2P_ANY, NULL, \
                      1, "shmem_" #N "_wait_until_any_vector"); }                                 \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                              int cmp, T *cmp_values)                             \
    { return p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, cmp_values, sizeof(T), P2P_SOME, \
                      indices, 1, "shmem_" #N "_wait_until_some_vector"); }                       \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                           \
    { return (int)p2p_scan(ivar, 1, sizeof(T), IS_SIGNED(T), NULL, cmp, &cmp_value, 0, P2P_ALL, NULL, 0, \
                           "shmem_" #N "_test"); }                                                \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)    \
    { return (int)p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, &cmp_value, 0, P2P_ALL, NULL, 0, \
                           "shmem_" #N "_test_all"); }                                            \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
    { return p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, &cmp_value, 0, P2P_ANY, NULL, 0, \
                      "shmem_" #N "_test_any"); }                                                 \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value) \
    { return p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, &cmp_value, 0, P2P_SOME, indices, 0, \
                      "shmem_" #N "_test_some"); }                                                \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
    { return (int)p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, cmp_values, sizeof(T), P2P_ALL, \
                           NULL, 0, "shmem_" #N "_test_all_vector"); }                            \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
    { return p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, cmp_values, sizeof(T), P2P_ANY, NULL, \
                      0, "shmem_" #N "_test_any_vector"); }                                       \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                        T *cmp_values)                                            \
    { return p2p_scan(ivars, nelems, sizeof(T), IS_SIGNED(T), status, cmp, cmp_values, sizeof(T), P2P_SOME, \
                      indices, 0, "shmem_" #N "_test_some_vector"); }                             \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                                   \
    { p2p_scan(ivar, 1, sizeof(T), IS_SIGNED(T), NULL, SHMEM_CMP_NE, &cmp_value, 0, P2P_ALL, NULL, 1, \
               "shmem_" #N "_wait"); }
#define P2P_SIZE_OK(T, N) _Static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, #T " has no atomic load here");
SHMEM_P2P_TYPES(P2P_SIZE_OK)
SHMEM_P2P_TYPES(DEF_P2P)

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    p2p_scan(sig_addr, 1, 8, 0, NULL, cmp, &cmp_value, 0, P2P_ALL, NULL, 1, "shmem_signal_wait_until");
    return load_word(sig_addr, 8, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Locks: a ticket lock in PE 0's copy of the lock word. The high 32 bits hand out tickets,  */
/* the low 32 bits name the ticket served; both only grow (modulo 2^32), so the lock is fair. */
/* ------------------------------------------------------------------------------------------ */
_Static_assert(sizeof(long) == 8, "the lock word is a 64-bit long");
#define LOCK_TICKET ((uint64_t)1 << 32)

static pgdds_gptr_t lock_word(long *lock, const char *routine)
{
    return shmem_target(SHMEM_CTX_DEFAULT, lock, 0, routine);
}

void shmem_set_lock(long *lock)
{
    const char *routine = "shmem_set_lock";
    pgdds_gptr_t g = lock_word(lock, routine);
    uint64_t before;
    shmem_check(pgdds_atomic_u64(shmem_g.ctx, g, PGDDS_AOP_ADD, LOCK_TICKET, &before), routine);
    uint32_t ticket = (uint32_t)(before >> 32);
    for (uint64_t v = before; (uint32_t)v != ticket;) {
        shmem_check(pgdds_progress(shmem_g.ctx), routine);
        shmem_check(pgdds_atomic_load_u64(shmem_g.ctx, g, &v), routine);
    }
}

int shmem_test_lock(long *lock)
{
    const char *routine = "shmem_test_lock";
    pgdds_gptr_t g = lock_word(lock, routine);
    uint64_t v, old;
    shmem_check(pgdds_atomic_load_u64(shmem_g.ctx, g, &v), routine);
    if ((uint32_t)(v >> 32) != (uint32_t)v) return 1;   /* held, or others queue for it */
    shmem_check(pgdds_atomic_cswap_u64(shmem_g.ctx, g, v, v + LOCK_TICKET, &old), routine);
    return old == v ? 0 : 1;
}

void shmem_clear_lock(long *lock)
{
    const char *routine = "shmem_clear_lock";
    pgdds_gptr_t g = lock_word(lock, routine);
    /* The holder's writes complete before the next holder can enter. */
    shmem_check(pgdds_flush(shmem_g.ctx), routine);
    uint64_t v, old;
    shmem_check(pgdds_atomic_load_u64(shmem_g.ctx, g, &v), routine);
    for (;;) {
        uint64_t next = (v & ~(LOCK_TICKET - 1)) | (uint32_t)((uint32_t)v + 1);
        shmem_check(pgdds_atomic_cswap_u64(shmem_g.ctx, g, v, next, &old), routine);
        if (old == v) return;
        v = old;   /* a new ticket was taken meanwhile */
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Contexts                                                                                    */
/* ------------------------------------------------------------------------------------------ */
/* Contexts take VCIs 1.. in turn, leaving VCI 0 to threads that use the default context. */
static unsigned next_vci;

int shmem_ctx_create_on(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    shmem_require_init("shmem_ctx_create");
    if (!ctx) return 1;
    struct shmem_ctx_impl *c = calloc(1, sizeof *c);
    if (!c) return 1;
    c->options = options;
    c->team = team == SHMEM_TEAM_WORLD ? NULL : team;
    c->vci = shmem_g.nvcis > 1 ? 1 + __atomic_fetch_add(&next_vci, 1, __ATOMIC_RELAXED) % (shmem_g.nvcis - 1) : 0;
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx) { return shmem_ctx_create_on(SHMEM_TEAM_WORLD, options, ctx); }

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID) return;
    if (ctx == SHMEM_CTX_DEFAULT) shmem_fatal_msg("shmem_ctx_destroy", "SHMEM_CTX_DEFAULT cannot be destroyed");
    shmem_ctx_quiet(ctx);   /* its operations complete first */
    free(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (ctx == SHMEM_CTX_INVALID || !team) {
        if (team) *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team ? ctx->team : SHMEM_TEAM_WORLD;
    return 0;
}
