/* An outside C program, built against an installed libpgdds with nothing but
 * `pkg-config --cflags --libs pgdds`: it uses only the names of the C ABI contract. Each rank
 * adds its rank + 1 to a counter on rank 0 and writes a word to its right neighbour. */
#include <pgdds/pgdds.h>

#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

static void expect(int ok, const char *what)
{
    if (!ok) {
        ++failures;
        fprintf(stderr, "consumer-c: %s failed: %s\n", what, pgdds_last_error());
    }
}

int main(void)
{
    pgdds_context_t ctx = NULL;
    if (pgdds_init(NULL, &ctx) != PGDDS_OK) {
        fprintf(stderr, "consumer-c: pgdds_init: %s\n", pgdds_last_error());
        return 1;
    }
    const int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    pgdds_gptr_t mine = PGDDS_GPTR_NULL;
    pgdds_gptr_t *all = calloc((size_t)n, sizeof *all);
    expect(pgdds_alloc(ctx, 2 * sizeof(uint64_t), 8, &mine) == PGDDS_OK, "pgdds_alloc");
    uint64_t zero[2] = {0, 0};
    expect(pgdds_put(ctx, mine, zero, sizeof zero) == PGDDS_OK, "pgdds_put (zero)");
    expect(pgdds_allgather(ctx, &mine, all, sizeof mine) == PGDDS_OK, "pgdds_allgather");
    expect(pgdds_barrier(ctx) == PGDDS_OK, "pgdds_barrier");

    uint64_t old = 0;
    expect(pgdds_atomic_u64(ctx, all[0], PGDDS_AOP_ADD, (uint64_t)me + 1, &old) == PGDDS_OK, "pgdds_atomic_u64");
    uint64_t word = 1000 + (uint64_t)me;
    expect(pgdds_put(ctx, pgdds_gptr_add(all[(me + 1) % n], 8), &word, sizeof word) == PGDDS_OK, "pgdds_put");
    expect(pgdds_barrier(ctx) == PGDDS_OK, "pgdds_barrier");

    uint64_t got[2];
    expect(pgdds_get(ctx, got, mine, sizeof got) == PGDDS_OK, "pgdds_get");
    expect(got[1] == 1000 + (uint64_t)((me + n - 1) % n), "the neighbour's word");
    if (me == 0) expect(got[0] == (uint64_t)n * (n + 1) / 2, "the counter");

    int64_t mine_failed = failures, failed = 0;
    expect(pgdds_allreduce(ctx, &mine_failed, &failed, 1, PGDDS_INT64, PGDDS_OP_SUM) == PGDDS_OK, "pgdds_allreduce");
    if (me == 0) printf("consumer-c: %s on %d ranks (libpgdds %s)\n", failed ? "FAILED" : "passed", n, pgdds_version_string());
    free(all);
    if (pgdds_finalize(ctx) != PGDDS_OK) return 1;
    return failed ? 1 : 0;
}
