/* Teams and the collectives on them, over the core's teams. Reductions the core's allreduce
 * covers (32/64-bit integers, float, double; sum, min, max and the bitwise ops) run as it;
 * the rest (8/16-bit integers, long double, complex, prod) gather every member's
 * contribution and fold it in team-rank order, the same on every member. */
#include "shmem_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A routine with a return code reports a failure on stderr and returns nonzero. */
static int report(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int report(const char *routine, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "shmem: PE %d: %s: %s\n", shmem_g.me, routine, msg);
    return -1;
}

static int core_status(pgdds_status_t st, const char *routine)
{
    return st == PGDDS_OK ? 0 : report(routine, "%s", pgdds_last_error());
}

/* The team's core handle, or NULL (reported) for SHMEM_TEAM_INVALID or before init. */
static pgdds_team_t core_team(shmem_team_t team, const char *routine)
{
    shmem_require_init(routine);
    if (team == SHMEM_TEAM_INVALID) {
        report(routine, "the team is SHMEM_TEAM_INVALID");
        return NULL;
    }
    return team->team;
}

int shmem_team_my_pe(shmem_team_t team)
{
    int r;
    if (team == SHMEM_TEAM_INVALID || !shmem_g.initialized || pgdds_team_rank(team->team, &r) != PGDDS_OK) return -1;
    return r;
}

int shmem_team_n_pes(shmem_team_t team)
{
    int n;
    if (team == SHMEM_TEAM_INVALID || !shmem_g.initialized || pgdds_team_size(team->team, &n) != PGDDS_OK) return -1;
    return n;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (team == SHMEM_TEAM_INVALID || !config) return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = team->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    int r;
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID || !shmem_g.initialized) return -1;
    if (pgdds_team_translate_rank(src_team->team, src_pe, dest_team->team, &r) != PGDDS_OK) return -1;
    return r;
}

/* The shmem team of a new core team (NULL: this PE is not a member). */
static int wrap_team(pgdds_team_t t, const shmem_team_config_t *config, long mask, shmem_team_t *out,
                     const char *routine)
{
    *out = SHMEM_TEAM_INVALID;
    if (t == PGDDS_TEAM_NULL) return 0;
    struct shmem_team_impl *team = calloc(1, sizeof *team);
    if (!team) {
        pgdds_team_destroy(t);
        return report(routine, "out of host memory");
    }
    team->team = t;
    team->config_mask = mask;
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS)) team->config = *config;
    *out = team;
    return 0;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)
{
    const char *routine = "shmem_team_split_strided";
    if (!new_team) return report(routine, "new_team is NULL");
    *new_team = SHMEM_TEAM_INVALID;
    pgdds_team_t parent = core_team(parent_team, routine), t;
    if (!parent) return -1;
    if (core_status(pgdds_team_split_strided(parent, start, stride, size, &t), routine)) return -1;
    return wrap_team(t, config, config_mask, new_team, routine);
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    const char *routine = "shmem_team_split_2d";
    if (!xaxis_team || !yaxis_team) return report(routine, "xaxis_team or yaxis_team is NULL");
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    pgdds_team_t parent = core_team(parent_team, routine), x, y;
    if (!parent) return -1;
    if (core_status(pgdds_team_split_2d(parent, xrange, &x, &y), routine)) return -1;
    if (wrap_team(x, xaxis_config, xaxis_mask, xaxis_team, routine)) {
        pgdds_team_destroy(y);
        return -1;
    }
    if (wrap_team(y, yaxis_config, yaxis_mask, yaxis_team, routine)) {
        shmem_team_destroy(*xaxis_team);
        *xaxis_team = SHMEM_TEAM_INVALID;
        return -1;
    }
    return 0;
}

void shmem_team_destroy(shmem_team_t team)
{
    const char *routine = "shmem_team_destroy";
    if (team == SHMEM_TEAM_INVALID) return;
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        shmem_fatal_msg(routine, "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed");
    shmem_check(pgdds_team_destroy(team->team), routine);
    free(team);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (team == SHMEM_TEAM_INVALID) return -1;
    return shmem_ctx_create_on(team, options, ctx);
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    int world = shmem_team_translate_pe(team, pe, SHMEM_TEAM_WORLD);
    return world < 0 ? NULL : shmem_ptr(dest, world);
}

int shmem_team_sync(shmem_team_t team)
{
    const char *routine = "shmem_team_sync";
    pgdds_team_t t = core_team(team, routine);
    return t ? core_status(pgdds_team_barrier(t), routine) : -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Collectives: one home each, in bytes                                                        */
/* ------------------------------------------------------------------------------------------ */
static int bytes_of(size_t nelems, size_t elem, size_t *out, const char *routine)
{
    if (elem != 0 && nelems > SIZE_MAX / elem) return report(routine, "%zu elements of %zu bytes overflow", nelems, elem);
    *out = nelems * elem;
    return 0;
}

static int coll_broadcast(shmem_team_t team, void *dest, const void *source, size_t nelems, size_t elem, int root,
                          const char *routine)
{
    pgdds_team_t t = core_team(team, routine);
    size_t n = 0;
    if (!t || bytes_of(nelems, elem, &n, routine)) return -1;
    /* The root's dest is updated too (OpenSHMEM 1.5). */
    if (shmem_team_my_pe(team) == root && n) memmove(dest, source, n);
    return core_status(pgdds_team_broadcast(t, dest, n, root), routine);
}

static int coll_fcollect(shmem_team_t team, void *dest, const void *source, size_t nelems, size_t elem,
                         const char *routine)
{
    pgdds_team_t t = core_team(team, routine);
    size_t n = 0;
    if (!t || bytes_of(nelems, elem, &n, routine)) return -1;
    return core_status(pgdds_team_allgather(t, source, dest, n), routine);
}

/* collect: each member's count may differ; they learn each other's first. */
static int coll_collect(shmem_team_t team, void *dest, const void *source, size_t nelems, size_t elem,
                        const char *routine)
{
    pgdds_team_t t = core_team(team, routine);
    size_t n = 0;
    if (!t || bytes_of(nelems, elem, &n, routine)) return -1;
    int npes = shmem_team_n_pes(team);
    size_t *counts = malloc(2 * (size_t)npes * sizeof(size_t));
    if (!counts) return report(routine, "out of host memory");
    size_t *displs = counts + npes;
    int rc = core_status(pgdds_team_allgather(t, &n, counts, sizeof(size_t)), routine);
    for (int i = 0; i < npes && rc == 0; ++i) displs[i] = i ? displs[i - 1] + counts[i - 1] : 0;
    if (rc == 0) rc = core_status(pgdds_team_allgatherv(t, source, dest, counts, displs), routine);
    free(counts);
    return rc;
}

static int coll_alltoall(shmem_team_t team, void *dest, const void *source, size_t nelems, size_t elem,
                         const char *routine)
{
    pgdds_team_t t = core_team(team, routine);
    size_t n = 0;
    if (!t || bytes_of(nelems, elem, &n, routine)) return -1;
    return core_status(pgdds_team_alltoall(t, source, dest, n), routine);
}

/* alltoalls: element k of the block for team PE j is source[(j * nelems + k) * sst]; from PE i
 * it lands at dest[(i * nelems + k) * dst]. Packed, exchanged, unpacked. */
static int coll_alltoalls(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                          size_t nelems, size_t elem, const char *routine)
{
    pgdds_team_t t = core_team(team, routine);
    if (!t) return -1;
    size_t npes = (size_t)shmem_team_n_pes(team), count = 0, n = 0;
    if (bytes_of(npes, nelems, &count, routine) || bytes_of(count, elem, &n, routine)) return -1;
    char *in = malloc(2 * n + 1), *out = in + n;
    if (!in) return report(routine, "out of host memory");
    for (size_t i = 0; i < count; ++i)
        memcpy(in + i * elem, (const char *)source + (ptrdiff_t)i * sst * (ptrdiff_t)elem, elem);
    int rc = core_status(pgdds_team_alltoall(t, in, out, nelems * elem), routine);
    for (size_t i = 0; rc == 0 && i < count; ++i)
        memcpy((char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem, out + i * elem, elem);
    free(in);
    return rc;
}

typedef void (*fold_fn)(void *acc, const void *in, size_t n);

/* The core's type for a real type: its kind, signedness and size; -1 where it has none. */
static int core_dtype(int is_float, int is_signed, size_t size)
{
    if (is_float) return size == sizeof(float) ? PGDDS_FLOAT : size == sizeof(double) ? PGDDS_DOUBLE : -1;
    if (size == 4) return is_signed ? PGDDS_INT32 : PGDDS_UINT32;
    if (size == 8) return is_signed ? PGDDS_INT64 : PGDDS_UINT64;
    return -1;
}

static int coll_reduce(shmem_team_t team, void *dest, const void *source, size_t nreduce, size_t elem, int dtype,
                       pgdds_op_t op, fold_fn fold, const char *routine)
{
    pgdds_team_t t = core_team(team, routine);
    size_t n = 0;
    if (!t || bytes_of(nreduce, elem, &n, routine)) return -1;
    if (dtype >= 0) return core_status(pgdds_team_allreduce(t, source, dest, nreduce, (pgdds_dtype_t)dtype, op), routine);
    size_t npes = (size_t)shmem_team_n_pes(team), all = 0;
    if (bytes_of(npes, n, &all, routine)) return -1;
    char *gathered = malloc(all + 1);
    if (!gathered) return report(routine, "out of host memory");
    int rc = core_status(pgdds_team_allgather(t, source, gathered, n), routine);
    if (rc == 0) {
        for (size_t r = 1; r < npes; ++r) fold(gathered, gathered + r * n, nreduce);
        if (n) memcpy(dest, gathered, n);
    }
    free(gathered);
    return rc;
}

/* The typed routines. */
#define DEF_COLL(T, N)                                                                            \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root) \
    { return coll_broadcast(team, dest, source, nelems, sizeof(T), PE_root, "shmem_" #N "_broadcast"); } \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)           \
    { return coll_collect(team, dest, source, nelems, sizeof(T), "shmem_" #N "_collect"); }       \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)          \
    { return coll_fcollect(team, dest, source, nelems, sizeof(T), "shmem_" #N "_fcollect"); }     \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)          \
    { return coll_alltoall(team, dest, source, nelems, sizeof(T), "shmem_" #N "_alltoall"); }     \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                              size_t nelems)                                                      \
    { return coll_alltoalls(team, dest, source, dst, sst, nelems, sizeof(T), "shmem_" #N "_alltoalls"); }
SHMEM_RMA_TYPES(DEF_COLL)
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{ return coll_broadcast(team, dest, source, nelems, 1, PE_root, "shmem_broadcastmem"); }
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{ return coll_collect(team, dest, source, nelems, 1, "shmem_collectmem"); }
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{ return coll_fcollect(team, dest, source, nelems, 1, "shmem_fcollectmem"); }
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{ return coll_alltoall(team, dest, source, nelems, 1, "shmem_alltoallmem"); }
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)
{ return coll_alltoalls(team, dest, source, dst, sst, nelems, 1, "shmem_alltoallsmem"); }

/* Reductions: a fold per type and operation, and the core's type where it has one. */
#define FOLD_and(a, b) ((a) & (b))
#define FOLD_or(a, b) ((a) | (b))
#define FOLD_xor(a, b) ((a) ^ (b))
#define FOLD_min(a, b) ((b) < (a) ? (b) : (a))
#define FOLD_max(a, b) ((b) > (a) ? (b) : (a))
#define FOLD_sum(a, b) ((a) + (b))
#define FOLD_prod(a, b) ((a) * (b))
#define REAL_DTYPE(T) core_dtype((T)0.5 != (T)0, (T)-1 < (T)1, sizeof(T))
#define DEF_REDUCE(T, N, OP, DTYPE, CORE_OP)                                                      \
    static void fold_##N##_##OP(void *acc, const void *in, size_t n)                              \
    {                                                                                             \
        T *a = (T *)acc;                                                                          \
        const T *b = (const T *)in;                                                               \
        for (size_t i = 0; i < n; ++i) a[i] = (T)FOLD_##OP(a[i], b[i]);                           \
    }                                                                                             \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)    \
    { return coll_reduce(team, dest, source, nreduce, sizeof(T), DTYPE, CORE_OP, fold_##N##_##OP, \
                         "shmem_" #N "_" #OP "_reduce"); }
#define DEF_REDUCE_BIT(T, N)                                                                      \
    DEF_REDUCE(T, N, and, REAL_DTYPE(T), PGDDS_OP_BAND) DEF_REDUCE(T, N, or, REAL_DTYPE(T), PGDDS_OP_BOR) \
    DEF_REDUCE(T, N, xor, REAL_DTYPE(T), PGDDS_OP_BXOR)
#define DEF_REDUCE_MINMAX(T, N)                                                                   \
    DEF_REDUCE(T, N, min, REAL_DTYPE(T), PGDDS_OP_MIN) DEF_REDUCE(T, N, max, REAL_DTYPE(T), PGDDS_OP_MAX)
/* The core has no product: prod always folds. */
#define DEF_REDUCE_ARITH(T, N)                                                                    \
    DEF_REDUCE(T, N, sum, REAL_DTYPE(T), PGDDS_OP_SUM) DEF_REDUCE(T, N, prod, -1, PGDDS_OP_SUM)
#define DEF_REDUCE_COMPLEX(T, N) DEF_REDUCE(T, N, sum, -1, PGDDS_OP_SUM) DEF_REDUCE(T, N, prod, -1, PGDDS_OP_SUM)
SHMEM_REDUCE_BIT_TYPES(DEF_REDUCE_BIT)
SHMEM_REDUCE_MINMAX_TYPES(DEF_REDUCE_MINMAX)
SHMEM_REDUCE_MINMAX_TYPES(DEF_REDUCE_ARITH)
SHMEM_REDUCE_COMPLEX_TYPES(DEF_REDUCE_COMPLEX)

/* ------------------------------------------------------------------------------------------ */
/* Deprecated active-set collectives: the whole job's active set is SHMEM_TEAM_WORLD           */
/* ------------------------------------------------------------------------------------------ */
static shmem_team_t active_set(int start, int log_stride, int size, const char *routine)
{
    shmem_require_init(routine);
    if (start == 0 && size == shmem_g.npes && (log_stride == 0 || size == 1)) return SHMEM_TEAM_WORLD;
    shmem_fatal_msg(routine,
                    "the active set (PE_start %d, logPE_stride %d, PE_size %d) is not every PE of the job, the "
                    "one active set served here; make a team with shmem_team_split_strided instead",
                    start, log_stride, size);
}

/* The routines return void: a failure ends the job. */
static void active_check(int rc, const char *routine)
{
    if (rc != 0) shmem_fatal_msg(routine, "the collective failed (see above)");
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    active_set(PE_start, logPE_stride, PE_size, "shmem_barrier");
    shmem_barrier_all();
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    active_check(shmem_team_sync(active_set(PE_start, logPE_stride, PE_size, "shmem_sync")), "shmem_sync");
}

/* 1.4's broadcast leaves the root's dest alone: the root sends from a copy. */
static void active_broadcast(void *dest, const void *source, size_t nelems, size_t elem, int root, int start,
                             int log_stride, int size, const char *routine)
{
    shmem_team_t team = active_set(start, log_stride, size, routine);
    size_t n = 0;
    if (bytes_of(nelems, elem, &n, routine)) shmem_fatal_msg(routine, "the size overflows");
    void *buf = dest;
    if (shmem_team_my_pe(team) == root) {
        buf = malloc(n + 1);
        if (!buf) shmem_fatal_msg(routine, "out of host memory");
        if (n) memcpy(buf, source, n);
    }
    int rc = core_status(pgdds_team_broadcast(team->team, buf, n, root), routine);
    if (buf != dest) free(buf);
    active_check(rc, routine);
}

#define DEF_ACTIVE_SET(BITS)                                                                      \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, \
                               int logPE_stride, int PE_size, long *pSync)                        \
    { (void)pSync; active_broadcast(dest, source, nelems, BITS / 8, PE_root, PE_start, logPE_stride, PE_size, \
                                    "shmem_broadcast" #BITS); }                                   \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                             int PE_size, long *pSync)                                            \
    { (void)pSync; active_check(coll_collect(active_set(PE_start, logPE_stride, PE_size, "shmem_collect" #BITS), \
                                             dest, source, nelems, BITS / 8, "shmem_collect" #BITS), \
                                "shmem_collect" #BITS); }                                         \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                              int PE_size, long *pSync)                                           \
    { (void)pSync; active_check(coll_fcollect(active_set(PE_start, logPE_stride, PE_size, "shmem_fcollect" #BITS), \
                                              dest, source, nelems, BITS / 8, "shmem_fcollect" #BITS), \
                                "shmem_fcollect" #BITS); }                                        \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                              int PE_size, long *pSync)                                           \
    { (void)pSync; active_check(coll_alltoall(active_set(PE_start, logPE_stride, PE_size, "shmem_alltoall" #BITS), \
                                              dest, source, nelems, BITS / 8, "shmem_alltoall" #BITS), \
                                "shmem_alltoall" #BITS); }                                        \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                               int PE_start, int logPE_stride, int PE_size, long *pSync)          \
    { (void)pSync; active_check(coll_alltoalls(active_set(PE_start, logPE_stride, PE_size, "shmem_alltoalls" #BITS), \
                                               dest, source, dst, sst, nelems, BITS / 8, "shmem_alltoalls" #BITS), \
                                "shmem_alltoalls" #BITS); }
DEF_ACTIVE_SET(32)
DEF_ACTIVE_SET(64)

/* The reduction of type RT (N's, or the unsigned type of the same bits for the bitwise ops,
 * which the team reductions have for unsigned types only). */
#define DEF_TO_ALL_AS(T, N, OP, RT, RN)                                                           \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, \
                                   int PE_size, T *pWrk, long *pSync)                             \
    {                                                                                             \
        (void)pWrk, (void)pSync;                                                                  \
        const char *routine = "shmem_" #N "_" #OP "_to_all";                                      \
        if (nreduce < 0) shmem_fatal_msg(routine, "nreduce %d is negative", nreduce);             \
        active_check(shmem_##RN##_##OP##_reduce(active_set(PE_start, logPE_stride, PE_size, routine), (RT *)dest, \
                                                (const RT *)source, (size_t)nreduce),             \
                     routine);                                                                    \
    }
#define DEF_TO_ALL(T, N, OP) DEF_TO_ALL_AS(T, N, OP, T, N)
#define DEF_TO_ALL_BIT_AS(T, N, RT, RN)                                                           \
    DEF_TO_ALL_AS(T, N, and, RT, RN) DEF_TO_ALL_AS(T, N, or, RT, RN) DEF_TO_ALL_AS(T, N, xor, RT, RN)
#define DEF_TO_ALL_MINMAX(T, N) DEF_TO_ALL(T, N, min) DEF_TO_ALL(T, N, max)
#define DEF_TO_ALL_ARITH(T, N) DEF_TO_ALL(T, N, sum) DEF_TO_ALL(T, N, prod)
DEF_TO_ALL_BIT_AS(short, short, unsigned short, ushort)
DEF_TO_ALL_BIT_AS(int, int, unsigned int, uint)
DEF_TO_ALL_BIT_AS(long, long, unsigned long, ulong)
DEF_TO_ALL_BIT_AS(long long, longlong, unsigned long long, ulonglong)
SHMEM_TO_ALL_MINMAX_TYPES(DEF_TO_ALL_MINMAX)
SHMEM_TO_ALL_MINMAX_TYPES(DEF_TO_ALL_ARITH)
SHMEM_REDUCE_COMPLEX_TYPES(DEF_TO_ALL_ARITH)
