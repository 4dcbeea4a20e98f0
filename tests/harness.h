/* A small harness for multi-rank test programs (C99): checks that count failures and name the
 * rank, file and line, and a collective verdict. A program exits 0 when every rank passed, 1
 * when any failed, 77 when it skipped (meson's convention). */
#ifndef PGDDS_TEST_HARNESS_H
#define PGDDS_TEST_HARNESS_H

#include <pgdds/pgdds.h>

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

/* Initializes with the environment's configuration; exits on failure. */
static inline pgdds_context_t t_init(const pgdds_init_params_t *params)
{
    pgdds_context_t ctx = NULL;
    pgdds_status_t st = pgdds_init(params, &ctx);
    if (st != PGDDS_OK) {
        fprintf(stderr, "FAIL: pgdds_init returned %d: %s\n", st, pgdds_last_error());
        exit(st == PGDDS_ERR_UNSUPPORTED ? 77 : 1);
    }
    t_rank = pgdds_rank(ctx);
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
