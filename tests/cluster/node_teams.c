/* Collectives of the node team beside the world's on several nodes (run by split-nodes): the
 * ranks of a node meet in their segments' slots while the world team exchanges messages, and the
 * two interleave call after call. Every result is checked against what the node's membership
 * (the ranks with this rank's host name) says it must be; a mismatched call on the node team
 * fails on the node's ranks only, and both teams work after it. */
#include "../harness.h"

#include <stdint.h>
#include <unistd.h>

enum { NAME = 64, ROUNDS = 200, LARGE = 4096 };

static pgdds_context_t ctx;
static int me, n;

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    char name[NAME] = {0};
    gethostname(name, sizeof name - 1);
    char *names = calloc((size_t)n, NAME);
    T_OK(pgdds_allgather(ctx, name, names, NAME));
    /* This node's ranks, in world order, as the node team must list them. */
    int *local = calloc((size_t)n, sizeof *local), nlocal = 0, my_local = -1;
    for (int r = 0; r < n; ++r)
        if (strcmp(names + (size_t)r * NAME, name) == 0) {
            if (r == me) my_local = nlocal;
            local[nlocal++] = r;
        }

    pgdds_team_t node = PGDDS_TEAM_NULL, world = PGDDS_TEAM_NULL;
    T_OK(pgdds_team_node(ctx, &node));
    T_OK(pgdds_team_world(ctx, &world));
    int tr = -1, ts = -1;
    T_OK(pgdds_team_rank(node, &tr));
    T_OK(pgdds_team_size(node, &ts));
    T_CHECK_MSG(tr == my_local && ts == nlocal, "node team rank %d of %d, expected %d of %d", tr, ts, my_local, nlocal);

    /* Symmetric memory for the large all-to-all (straight into the others' segments on a node). */
    pgdds_gptr_t sym;
    T_OK(pgdds_alloc_all(ctx, (size_t)LARGE * (size_t)n, 64, 0, &sym));
    uint8_t *large_out = pgdds_gptr_to_local(ctx, sym), *large_in = malloc((size_t)LARGE * (size_t)n);
    int64_t *small_in = malloc(sizeof(int64_t) * (size_t)n), *small_out = malloc(sizeof(int64_t) * (size_t)n);
    int wrong = 0;
    for (int i = 0; i < ROUNDS; ++i) {
        /* node: allreduce of (world rank + i), its sum over the node's ranks */
        int64_t mine = me + i, sum = -1, expect = 0;
        for (int k = 0; k < nlocal; ++k) expect += local[k] + i;
        T_OK(pgdds_team_allreduce(node, &mine, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM));
        wrong += sum != expect;
        /* world: the same over every rank */
        int64_t wsum = -1;
        T_OK(pgdds_team_allreduce(world, &mine, &wsum, 1, PGDDS_INT64, PGDDS_OP_SUM));
        wrong += wsum != (int64_t)n * (n - 1) / 2 + (int64_t)n * i;
        /* node: broadcast from the node's last rank */
        int64_t b = me * 1000 + i;
        T_OK(pgdds_team_broadcast(node, &b, sizeof b, nlocal - 1));
        wrong += b != local[nlocal - 1] * 1000 + i;
        /* node: small all-to-all, block k to team rank k says (sender, k, i) */
        for (int k = 0; k < nlocal; ++k) small_in[k] = ((int64_t)me << 40) | ((int64_t)k << 20) | i;
        T_OK(pgdds_team_alltoall(node, small_in, small_out, sizeof(int64_t)));
        for (int k = 0; k < nlocal; ++k) wrong += small_out[k] != (((int64_t)local[k] << 40) | ((int64_t)my_local << 20) | i);
        /* node: large all-to-all into symmetric memory, every 16th round */
        if (i % 16 == 0) {
            for (int k = 0; k < nlocal; ++k) memset(large_in + (size_t)k * LARGE, (me * 7 + k + i) & 0xff, LARGE);
            T_OK(pgdds_team_alltoall(node, large_in, large_out, LARGE));
            for (int k = 0; k < nlocal; ++k)
                wrong += large_out[(size_t)k * LARGE] != ((local[k] * 7 + my_local + i) & 0xff) ||
                         large_out[(size_t)k * LARGE + LARGE - 1] != ((local[k] * 7 + my_local + i) & 0xff);
        }
        T_OK(pgdds_team_barrier(node));
        T_OK(pgdds_barrier(ctx));
    }
    T_CHECK_MSG(wrong == 0, "%d wrong results", wrong);

    /* A mismatch on the node team (where it has two ranks or more): the node's calls fail alike. */
    int64_t in[2] = {1, 1}, out[2] = {-7, -7};
    if (nlocal > 1) {
        pgdds_status_t st = pgdds_team_allreduce(node, in, out, my_local == nlocal - 1 ? 1 : 2, PGDDS_INT64, PGDDS_OP_SUM);
        T_CHECK_MSG(st == PGDDS_ERR_INVALID_ARG && strstr(pgdds_last_error(), "do not match"),
                    "a mismatched node allreduce returned %d: %s", st, pgdds_last_error());
        T_CHECK(out[0] == -7 && out[1] == -7);
    }
    int64_t one = 1, count = 0;
    T_OK(pgdds_team_allreduce(node, &one, &count, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK(count == nlocal);
    T_OK(pgdds_allreduce(ctx, &one, &count, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK(count == n);

    T_OK(pgdds_free_all(ctx, sym));
    free(large_in);
    free(small_in);
    free(small_out);
    free(local);
    free(names);
    return t_finish(ctx, "cluster/node-teams");
}
