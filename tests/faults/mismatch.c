/* Mismatched collectives: every rank's call fails with PGDDS_ERR_INVALID_ARG and a message saying
 * what differed, outputs stay untouched, and the next (matching) collective works again. */
#include "harness.h"

static pgdds_context_t ctx;
static int me, n;

/* Every rank failed the call with the mismatch explained, and the next collective works. */
static void expect_mismatch(pgdds_status_t st, const char *what, const char *needle)
{
    T_CHECK_MSG(st == PGDDS_ERR_INVALID_ARG, "%s returned %d (%s): %s", what, st, pgdds_strerror(st), pgdds_last_error());
    T_CHECK_MSG(strstr(pgdds_last_error(), "do not match") && strstr(pgdds_last_error(), needle),
                "%s: message \"%s\" does not say what differed (%s)", what, pgdds_last_error(), needle);
    int64_t one = 1, sum = 0;
    T_OK(pgdds_allreduce(ctx, &one, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK_MSG(sum == n, "after %s: allreduce gave %lld, expected %d", what, (long long)sum, n);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    if (n < 2) {
        fprintf(stderr, "SKIP: mismatched collectives need two ranks\n");
        return t_finish(ctx, "faults/mismatch");
    }
    const int64_t sentinel = -12345;

    /* broadcast: different roots */
    int64_t buf[4] = {me, me, me, me};
    expect_mismatch(pgdds_broadcast(ctx, buf, sizeof buf, me == 1 ? 1 : 0), "broadcast with different roots", "root");
    T_CHECK(buf[0] == me && buf[3] == me);

    /* broadcast: different sizes */
    expect_mismatch(pgdds_broadcast(ctx, buf, me == n - 1 ? 16 : 32, 0), "broadcast with different sizes", "bytes");
    T_CHECK(buf[0] == me && buf[3] == me);

    /* allreduce: SUM on rank 0, MAX on the others */
    int64_t in[2] = {me + 1, me + 1}, out[2] = {sentinel, sentinel};
    expect_mismatch(pgdds_allreduce(ctx, in, out, 2, PGDDS_INT64, me == 0 ? PGDDS_OP_SUM : PGDDS_OP_MAX),
                    "allreduce with SUM and MAX", "SUM");
    T_CHECK(out[0] == sentinel && out[1] == sentinel);

    /* allreduce: different counts, then different types of one size */
    expect_mismatch(pgdds_allreduce(ctx, in, out, me == n - 1 ? 1 : 2, PGDDS_INT64, PGDDS_OP_SUM),
                    "allreduce with different counts", "int64");
    T_CHECK(out[0] == sentinel && out[1] == sentinel);
    expect_mismatch(pgdds_allreduce(ctx, in, out, 2, me == 0 ? PGDDS_UINT64 : PGDDS_INT64, PGDDS_OP_SUM),
                    "allreduce with different types", "uint64");
    T_CHECK(out[0] == sentinel && out[1] == sentinel);

    /* a barrier matched with an allreduce */
    pgdds_status_t st = me == 0 ? pgdds_barrier(ctx) : pgdds_allreduce(ctx, in, out, 2, PGDDS_INT64, PGDDS_OP_SUM);
    expect_mismatch(st, "a barrier matched with an allreduce", "barrier");
    T_CHECK(out[0] == sentinel && out[1] == sentinel);

    /* allgather: different sizes */
    int64_t *all = malloc(sizeof(int64_t) * 2 * (size_t)n);
    for (int i = 0; i < 2 * n; ++i) all[i] = sentinel;
    expect_mismatch(pgdds_allgather(ctx, in, all, me == 0 ? 16 : 8), "allgather with different sizes", "per rank");
    for (int i = 0; i < 2 * n; ++i) T_CHECK(all[i] == sentinel);

    /* Calls of which one is small and the other large: on a node the small one goes through the
     * segments' slots and the large one exchanges messages, and they must still meet. */
    enum { LARGE = 1 << 17 };
    int64_t *big_in = malloc(sizeof(int64_t) * LARGE), *big_out = malloc(sizeof(int64_t) * LARGE * (size_t)n);
    for (size_t i = 0; i < LARGE; ++i) big_in[i] = me;
    for (size_t i = 0; i < (size_t)LARGE * (size_t)n; ++i) big_out[i] = sentinel;
    expect_mismatch(pgdds_allreduce(ctx, big_in, big_out, me == 0 ? 1 : LARGE, PGDDS_INT64, PGDDS_OP_SUM),
                    "allreduce of 1 and of many elements", "int64");
    T_CHECK(big_out[0] == sentinel && big_out[LARGE - 1] == sentinel);
    expect_mismatch(pgdds_broadcast(ctx, big_out, me == n - 1 ? 8 : sizeof(int64_t) * LARGE, 0),
                    "broadcast of 8 and of many bytes", "bytes");
    T_CHECK(big_out[0] == sentinel && big_out[LARGE - 1] == sentinel);
    expect_mismatch(pgdds_allgather(ctx, big_in, big_out, me == 0 ? 8 : sizeof(int64_t) * LARGE),
                    "allgather of 8 and of many bytes per rank", "per rank");
    for (size_t i = 0; i < (size_t)LARGE * (size_t)n; i += LARGE / 4) T_CHECK(big_out[i] == sentinel);
    st = me == 0 ? pgdds_barrier(ctx) : pgdds_allgather(ctx, big_in, big_out, sizeof(int64_t) * LARGE);
    expect_mismatch(st, "a barrier matched with a large allgather", "barrier");
    for (size_t i = 0; i < (size_t)LARGE * (size_t)n; i += LARGE / 4) T_CHECK(big_out[i] == sentinel);
    free(big_in);
    free(big_out);

    /* and matching calls still give the right answers */
    T_OK(pgdds_allgather(ctx, in, all, 8));
    for (int i = 0; i < n; ++i) T_CHECK(all[i] == i + 1);
    T_OK(pgdds_broadcast(ctx, buf, sizeof buf, n - 1));
    T_CHECK(buf[0] == n - 1 && buf[3] == n - 1);
    free(all);
    return t_finish(ctx, "faults/mismatch");
}
