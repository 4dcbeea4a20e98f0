#include <pgdds/pgdds.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "%s failed (%s): %s\n", what, pgdds_strerror(st), pgdds_last_error());
        exit(1);
    }
}

/* The ranks as a grid of rows of two: each rank sums its row and its column on those teams, then
 * every rank swaps one number with every other (all-to-all) and rank 0 gathers the grand total
 * (reduce to a root). */
int main(void)
{
    pgdds_context_t ctx;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);

    pgdds_team_t world, row, col;
    check(pgdds_team_world(ctx, &world), "pgdds_team_world");
    check(pgdds_team_split_2d(world, 2, &row, &col), "pgdds_team_split_2d");
    int64_t mine = me, row_sum, col_sum;
    check(pgdds_team_allreduce(row, &mine, &row_sum, 1, PGDDS_INT64, PGDDS_OP_SUM), "pgdds_team_allreduce");
    check(pgdds_team_allreduce(col, &mine, &col_sum, 1, PGDDS_INT64, PGDDS_OP_SUM), "pgdds_team_allreduce");
    int x, y;
    check(pgdds_team_rank(row, &x), "pgdds_team_rank");
    check(pgdds_team_rank(col, &y), "pgdds_team_rank");
    printf("rank %d at (%d, %d): row sum %lld, column sum %lld\n", me, x, y, (long long)row_sum,
           (long long)col_sum);

    /* Block r of `to` goes to rank r, and block r of `from` comes from rank r. */
    int64_t *to = malloc((size_t)n * sizeof *to), *from = malloc((size_t)n * sizeof *from);
    if (!to || !from) return 1;
    for (int r = 0; r < n; ++r) to[r] = 100 * me + r;
    check(pgdds_team_alltoall(world, to, from, sizeof(int64_t)), "pgdds_team_alltoall");
    int64_t got = 0, total = 0;
    for (int r = 0; r < n; ++r) got += from[r] - (100 * r + me);   /* zero when every block is right */
    check(pgdds_team_reduce(world, &got, &total, 1, PGDDS_INT64, PGDDS_OP_SUM, 0), "pgdds_team_reduce");
    if (me == 0) printf("all-to-all: %s\n", total == 0 ? "every block arrived" : "wrong blocks");

    check(pgdds_team_destroy(row), "pgdds_team_destroy");
    check(pgdds_team_destroy(col), "pgdds_team_destroy");
    free(to);
    free(from);
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return me == 0 && total != 0;
}
