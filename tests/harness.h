/* A small harness for multi-rank test programs (C99): checks that count failures and name the
 * rank, file and line, and a collective verdict. A program exits 0 when every rank passed, 1
 * when any failed, 77 when it skipped (meson's convention). */
#ifndef PGDDS_TEST_HARNESS_H
#define PGDDS_TEST_HARNESS_H

#include <pgdds/pgdds.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int t_failures = 0;
static int t_rank = -1;

#define T_CHECK(cond)                                                                             \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            ++t_failures;                                                                         \
            fprintf(stderr, "FAIL rank %d %s:%d: %s\n", t_rank, __FILE__, __LINE__, #cond);      \
        }                                                                                         \
    } while (0)

#define T_CHECK_MSG(cond, ...)                                                                    \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            ++t_failures;                                                                         \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: ", t_rank, __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
        }                                                                                         \
    } while (0)

/* Expects PGDDS_OK; reports the library's explanation otherwise. */
#define T_OK(expr)                                                                                \
    do {                                                                                          \
        pgdds_status_t t_st_ = (expr);                                                            \
        if (t_st_ != PGDDS_OK) {                                                                  \
            ++t_failures;                                                                         \
            fprintf(stderr, "FAIL rank %d %s:%d: %s returned %d (%s): %s\n", t_rank, __FILE__,   \
                    __LINE__, #expr, t_st_, pgdds_strerror(t_st_), pgdds_last_error());           \
        }                                                                                         \
    } while (0)

/* T_OK for a program's threads: counts a failure into an atomic counter of the caller's (the
 * includer brings <stdatomic.h>), which the main thread adds to t_failures at the end. */
#define T_OK_COUNTED(counter, expr)                                                               \
    do {                                                                                          \
        pgdds_status_t t_st_ = (expr);                                                            \
        if (t_st_ != PGDDS_OK) {                                                                  \
            atomic_fetch_add(&(counter), 1);                                                      \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: %s\n", t_rank, __FILE__, __LINE__, #expr,   \
                    pgdds_last_error());                                                          \
        }                                                                                         \
    } while (0)

/* Seconds on the monotonic clock, for deadlines inside a test. */
static inline double t_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Expects a given failure status and a non-empty explanation. */
#define T_STATUS(expr, expected)                                                                  \
    do {                                                                                          \
        pgdds_status_t t_st_ = (expr);                                                            \
        if (t_st_ != (expected)) {                                                                \
            ++t_failures;                                                                         \
            fprintf(stderr, "FAIL rank %d %s:%d: %s returned %d (%s), expected %s: %s\n", t_rank, \
                    __FILE__, __LINE__, #expr, t_st_, pgdds_strerror(t_st_), #expected,           \
                    pgdds_last_error());                                                          \
        } else if ((expected) != PGDDS_OK && pgdds_last_error()[0] == '\0') {                     \
            ++t_failures;                                                                         \
            fprintf(stderr, "FAIL rank %d %s:%d: %s gave no pgdds_last_error() message\n",        \
                    t_rank, __FILE__, __LINE__, #expr);                                           \
        }                                                                                         \
    } while (0)

/* The one reason a multi-rank test may skip: its configuration's transport is genuinely absent
 * here (PGDDS_TRANSPORT=verbs without an RDMA device) and init said so (UNSUPPORTED). Returns
 * the reason, or NULL when a failure is a failure (a disagreement, a fault, anything else). */
static inline const char *t_skip_reason(pgdds_status_t st)
{
    const char *want = getenv("PGDDS_TRANSPORT");
    if (st != PGDDS_ERR_UNSUPPORTED || !want || strcmp(want, "verbs") != 0) return NULL;
    DIR *d = opendir("/sys/class/infiniband");
    int devices = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) devices += e->d_name[0] != '.';
    if (d) closedir(d);
    return devices ? NULL : "no RDMA device (/sys/class/infiniband is empty) for PGDDS_TRANSPORT=verbs";
}

/* Checks that the transport in use is the one the configuration asked for (PGDDS_TRANSPORT,
 * PGDDS_OFI_PROVIDER, UCX_TLS, PGDDS_SHM), so that no configuration silently tests another. */
static inline void t_check_transport(pgdds_context_t ctx)
{
    const char *want = getenv("PGDDS_TRANSPORT"), *prov = getenv("PGDDS_OFI_PROVIDER");
    const char *tls = getenv("UCX_TLS"), *shm = getenv("PGDDS_SHM");
    const char *name = pgdds_transport_name(ctx);
    if (!want || !*want || strcmp(want, "auto") == 0 || !name) return;
    char prefix[160];
    if (strcmp(want, "shm") == 0) {
        T_CHECK_MSG(strcmp(name, "shm") == 0, "PGDDS_TRANSPORT=shm, but the transport is %s", name);
        return;
    }
    if (strcmp(want, "ofi") == 0 && prov && *prov) snprintf(prefix, sizeof prefix, "ofi/%s", prov);
    else if (strcmp(want, "ucx") == 0 && tls && *tls && !strchr(tls, ',')) snprintf(prefix, sizeof prefix, "ucx/%s", tls);
    else snprintf(prefix, sizeof prefix, "%s/", want);
    size_t n = strlen(prefix);
    int full = prefix[n - 1] != '/';
    /* The on-node path joins when it may and some peer is on this node (or PGDDS_SHM=on). */
    int want_shm = !(shm && strcmp(shm, "off") == 0) && (pgdds_local_nranks(ctx) > 1 || (shm && strcmp(shm, "on") == 0));
    const char *rest = strncmp(name, prefix, n) == 0 ? name + n : NULL;
    T_CHECK_MSG(rest && (!full || strcmp(rest, want_shm ? "+shm" : "") == 0) &&
                    (strstr(name, "+shm") != NULL) == want_shm,
                "the configuration asks for %s%s, but the transport is %s", prefix, want_shm ? "...+shm" : "", name);
}

/* Initializes with the environment's configuration and checks the transport; exits on failure
 * (77, a skip, only for t_skip_reason's reason). */
static inline pgdds_context_t t_init(const pgdds_init_params_t *params)
{
    pgdds_context_t ctx = NULL;
    pgdds_status_t st = pgdds_init(params, &ctx);
    if (st != PGDDS_OK) {
        const char *skip = t_skip_reason(st);
        if (skip) {
            printf("SKIP: %s (pgdds_init: %s)\n", skip, pgdds_last_error());
            exit(77);
        }
        fprintf(stderr, "FAIL: pgdds_init returned %d (%s): %s\n", st, pgdds_strerror(st), pgdds_last_error());
        exit(1);
    }
    t_rank = pgdds_rank(ctx);
    if (!params || !(params->field_mask & PGDDS_INIT_FIELD_TRANSPORT)) t_check_transport(ctx);
    return ctx;
}

/* Collective verdict: every rank learns the total number of failures; finalizes. */
static inline int t_finish(pgdds_context_t ctx, const char *name)
{
    int64_t mine = t_failures, total = 0;
    if (pgdds_allreduce(ctx, &mine, &total, 1, PGDDS_INT64, PGDDS_OP_SUM) != PGDDS_OK) {
        fprintf(stderr, "FAIL rank %d: final allreduce: %s\n", t_rank, pgdds_last_error());
        total = mine + 1;
    }
    if (t_rank == 0)
        printf("%s: %s on %d ranks over %s (%lld failed checks)\n", name, total ? "FAILED" : "passed",
               pgdds_nranks(ctx), pgdds_transport_name(ctx), (long long)total);
    if (pgdds_finalize(ctx) != PGDDS_OK) {
        fprintf(stderr, "FAIL rank %d: pgdds_finalize: %s\n", t_rank, pgdds_last_error());
        return 1;
    }
    return total ? 1 : 0;
}

/* Deterministic pattern byte for (rank, index). */
static inline unsigned char t_pattern(int rank, size_t i) { return (unsigned char)(rank * 131 + i * 7 + (i >> 8)); }

#endif
