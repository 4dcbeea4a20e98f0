#include <pgdds/pgdds.h>
#include <stdio.h>
#include <stdlib.h>

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "%s failed (%s): %s\n", what, pgdds_strerror(st), pgdds_last_error());
        exit(1);  /* pgdds-run then ends the other ranks */
    }
}

int main(void)
{
    pgdds_context_t ctx;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);

    pgdds_gptr_t counter, on_rank0;                   /* a zeroed word at the same offset on every rank */
    check(pgdds_alloc_all(ctx, sizeof(uint64_t), 8, PGDDS_ALLOC_ZERO, &counter), "pgdds_alloc_all");
    check(pgdds_gptr_at(ctx, counter, 0, &on_rank0), "pgdds_gptr_at");

    check(pgdds_atomic_u64(ctx, on_rank0, PGDDS_AOP_ADD, 1, NULL), "pgdds_atomic_u64");  /* everyone counts on rank 0 */
    check(pgdds_barrier(ctx), "pgdds_barrier");
    uint64_t total;
    check(pgdds_atomic_load_u64(ctx, on_rank0, &total), "pgdds_atomic_load_u64");
    if (me == 0) printf("%d ranks counted %llu\n", n, (unsigned long long)total);

    check(pgdds_free_all(ctx, counter), "pgdds_free_all");
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return total == (uint64_t)n ? 0 : 1;
}
