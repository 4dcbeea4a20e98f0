/* A small distributed job: every rank draws random numbers and counts them into a histogram
 * whose bins are spread over all ranks, with one-sided atomic adds. The global total is then
 * checked against what was drawn. Usage: pgdds-run -n 4 pgdds-histogram [draws per rank] */
#include <pgdds/pgdds.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BINS_PER_RANK 64

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "histogram: %s failed: %s\n", what, pgdds_last_error());
        exit(1);
    }
}

int main(int argc, char **argv)
{
    long draws = argc > 1 ? atol(argv[1]) : 200000;
    pgdds_context_t ctx;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);

    /* Each rank hosts BINS_PER_RANK counters; everyone learns where they are. */
    pgdds_gptr_t mine, *bins = malloc(sizeof *bins * (size_t)n);
    check(pgdds_alloc(ctx, BINS_PER_RANK * sizeof(uint64_t), 64, &mine), "pgdds_alloc");
    uint64_t *local = pgdds_gptr_to_local(ctx, mine);
    for (int i = 0; i < BINS_PER_RANK; ++i) local[i] = 0;
    check(pgdds_allgather(ctx, &mine, bins, sizeof mine), "pgdds_allgather");
    check(pgdds_barrier(ctx), "pgdds_barrier");

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned seed = 12345u + (unsigned)me;
    for (long i = 0; i < draws; ++i) {
        int bin = rand_r(&seed) % (BINS_PER_RANK * n);
        pgdds_gptr_t target = pgdds_gptr_add(bins[bin / BINS_PER_RANK], (bin % BINS_PER_RANK) * 8);
        check(pgdds_atomic_u64(ctx, target, PGDDS_AOP_ADD, 1, NULL), "pgdds_atomic_u64");
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");
    clock_gettime(CLOCK_MONOTONIC, &t1);

    uint64_t counted = 0, total = 0, expected = (uint64_t)draws * (uint64_t)n;
    for (int i = 0; i < BINS_PER_RANK; ++i) counted += local[i];
    check(pgdds_allreduce(ctx, &counted, &total, 1, PGDDS_UINT64, PGDDS_OP_SUM), "pgdds_allreduce");
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (me == 0)
        printf("histogram: %d ranks over %s, %ld draws per rank, %llu counted of %llu: %s (%.1f M atomic adds/s)\n",
               n, pgdds_transport_name(ctx), draws, (unsigned long long)total, (unsigned long long)expected,
               total == expected ? "ok" : "WRONG", (double)expected / secs / 1e6);
    free(bins);
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return total == expected ? 0 : 1;
}
