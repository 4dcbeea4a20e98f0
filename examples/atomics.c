#include <pgdds/pgdds.h>
#include <stdio.h>
#include <stdlib.h>

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "%s failed (%s): %s\n", what, pgdds_strerror(st), pgdds_last_error());
        exit(1);
    }
}

/* Every rank adds its share of a sum of doubles on rank 0, and records the lowest and highest of
 * its signed readings there: typed atomics, no locks. */
int main(void)
{
    pgdds_context_t ctx;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);

    pgdds_gptr_t stats, sum, low, high;   /* {double sum; int64_t low, high} on every rank */
    check(pgdds_alloc_all(ctx, 24, 8, PGDDS_ALLOC_ZERO, &stats), "pgdds_alloc_all");
    check(pgdds_gptr_at(ctx, stats, 0, &sum), "pgdds_gptr_at");
    low = pgdds_gptr_add(sum, 8);
    high = pgdds_gptr_add(sum, 16);

    for (int i = 0; i < 100; ++i) {
        int64_t reading = (int64_t)(me * 100 + i) - 150;   /* negative for some ranks */
        check(pgdds_atomic_double(ctx, sum, PGDDS_AOP_ADD, 0.25, NULL), "pgdds_atomic_double");
        check(pgdds_atomic_i64(ctx, low, PGDDS_AOP_MIN, reading, NULL), "pgdds_atomic_i64");
        check(pgdds_atomic_i64(ctx, high, PGDDS_AOP_MAX, reading, NULL), "pgdds_atomic_i64");
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");
    if (me == 0) {
        double total;
        int64_t lo, hi;
        check(pgdds_atomic_double(ctx, sum, PGDDS_AOP_ADD, 0, &total), "pgdds_atomic_double");
        check(pgdds_atomic_i64(ctx, low, PGDDS_AOP_ADD, 0, &lo), "pgdds_atomic_i64");
        check(pgdds_atomic_i64(ctx, high, PGDDS_AOP_ADD, 0, &hi), "pgdds_atomic_i64");
        printf("sum %.2f, readings from %lld to %lld\n", total, (long long)lo, (long long)hi);
        if (total != 25.0 * n || lo != -150 || hi != (int64_t)n * 100 - 151) {
            fprintf(stderr, "wrong results\n");
            exit(1);
        }
    }
    check(pgdds_free_all(ctx, stats), "pgdds_free_all");
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return 0;
}
