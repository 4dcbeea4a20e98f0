/* Teams: the world and node teams, strided and 2D splits with OpenSHMEM's membership, rank
 * translation, collectives on teams (also on disjoint teams at the same time, which must not pair
 * with each other), and bad input: NULL, destroyed and predefined teams, splits that disagree or
 * leave the parent, out-of-range ranks. */
#include "../harness.h"

#include <stdint.h>

static pgdds_context_t ctx;
static int me, n;
static pgdds_team_t world;

static int team_rank(pgdds_team_t t)
{
    int r = -2;
    T_OK(pgdds_team_rank(t, &r));
    return r;
}
static int team_size(pgdds_team_t t)
{
    int s = -2;
    T_OK(pgdds_team_size(t, &s));
    return s;
}

static void test_world_and_node(void)
{
    T_CHECK(team_rank(world) == me && team_size(world) == n);
    pgdds_team_t node;
    T_OK(pgdds_team_node(ctx, &node));
    /* Every rank runs on this machine: the node team is the world, in rank order. */
    T_CHECK(team_rank(node) == me && team_size(node) == n);
    int r = -2;
    T_OK(pgdds_team_translate_rank(node, n - 1, world, &r));
    T_CHECK(r == n - 1);
    /* A sum over the node team counts its ranks. */
    int64_t one = 1, total = 0;
    T_OK(pgdds_team_allreduce(node, &one, &total, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK(total == n);
}

/* Even ranks and odd ranks: disjoint teams that run collectives at the same time. */
static void test_strided(void)
{
    pgdds_team_t even, odd;
    T_OK(pgdds_team_split_strided(world, 0, 2, (n + 1) / 2, &even));
    T_OK(pgdds_team_split_strided(world, 1, 2, n / 2, &odd));
    pgdds_team_t mine = me % 2 ? odd : even, other = me % 2 ? even : odd;
    T_CHECK(mine != PGDDS_TEAM_NULL && other == PGDDS_TEAM_NULL);
    if (!mine) return;
    T_CHECK(team_rank(mine) == me / 2);
    T_CHECK(team_size(mine) == (me % 2 ? n / 2 : (n + 1) / 2));
    for (int i = 0; i < team_size(mine); ++i) {
        int w = -2;
        T_OK(pgdds_team_translate_rank(mine, i, world, &w));
        T_CHECK_MSG(w == 2 * i + me % 2, "team rank %d is world rank %d", i, w);
    }
    int back = -2;
    T_OK(pgdds_team_translate_rank(world, (me + 1) % n, mine, &back));
    T_CHECK(back == ((n % 2 == 1 && me == n - 1) ? 0 : -1));

    /* Several rounds of collectives on both teams at once: sums over each team only. */
    for (int round = 0; round < 20; ++round) {
        int64_t v = 1000 * round + me, sum = -1, want = 0;
        for (int r = me % 2; r < n; r += 2) want += 1000 * round + r;
        T_OK(pgdds_team_allreduce(mine, &v, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM));
        T_CHECK_MSG(sum == want, "round %d: %lld, expected %lld", round, (long long)sum, (long long)want);
        int64_t b = team_rank(mine) == 0 ? 7 * round + me % 2 : -1;
        T_OK(pgdds_team_broadcast(mine, &b, sizeof b, 0));
        T_CHECK(b == 7 * round + me % 2);
        T_OK(pgdds_team_barrier(mine));
    }
    int32_t gathered[64];
    int32_t mine32 = 100 + me;
    T_OK(pgdds_team_allgather(mine, &mine32, gathered, sizeof mine32));
    for (int i = 0; i < team_size(mine); ++i) T_CHECK(gathered[i] == 100 + 2 * i + me % 2);

    /* A split of a split: the last rank of each parity alone. */
    pgdds_team_t last;
    T_OK(pgdds_team_split_strided(mine, team_size(mine) - 1, 1, 1, &last));
    T_CHECK((last != PGDDS_TEAM_NULL) == (team_rank(mine) == team_size(mine) - 1));
    if (last) {
        T_CHECK(team_rank(last) == 0 && team_size(last) == 1);
        int64_t x = 5, y = 0;
        T_OK(pgdds_team_allreduce(last, &x, &y, 1, PGDDS_INT64, PGDDS_OP_SUM));
        T_CHECK(y == 5);
        T_OK(pgdds_team_destroy(last));
    }
    T_OK(pgdds_team_destroy(mine));
    /* World collectives go on as before. */
    T_OK(pgdds_barrier(ctx));
}

/* OpenSHMEM's 2D split: rows of xrange consecutive ranks, columns of every xrange-th. */
static void test_2d(int xrange)
{
    pgdds_team_t row, col;
    T_OK(pgdds_team_split_2d(world, xrange, &row, &col));
    if (!row || !col) return;
    int x = xrange < n ? xrange : n;
    T_CHECK_MSG(team_rank(row) == me % x && team_rank(col) == me / x, "xrange %d: row rank %d, column rank %d",
                xrange, team_rank(row), team_rank(col));
    int row_size = (me / x + 1) * x <= n ? x : n - (me / x) * x, col_size = (n - me % x + x - 1) / x;
    T_CHECK(team_size(row) == row_size && team_size(col) == col_size);
    /* Sums over the row and the column, at once on every row and column. */
    int64_t v = me, rsum = 0, csum = 0, rwant = 0, cwant = 0;
    for (int r = (me / x) * x; r < (me / x) * x + row_size; ++r) rwant += r;
    for (int r = me % x; r < n; r += x) cwant += r;
    T_OK(pgdds_team_allreduce(row, &v, &rsum, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_OK(pgdds_team_allreduce(col, &v, &csum, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK_MSG(rsum == rwant && csum == cwant, "xrange %d: row %lld/%lld column %lld/%lld", xrange,
                (long long)rsum, (long long)rwant, (long long)csum, (long long)cwant);
    int w = -2;
    T_OK(pgdds_team_translate_rank(col, col_size - 1, world, &w));
    T_CHECK(w == me % x + (col_size - 1) * x);
    T_OK(pgdds_team_destroy(row));
    T_OK(pgdds_team_destroy(col));
}

/* Many teams, one after the other, each destroyed after use: beyond the split teams that get
 * slots of their own (16 per rank), the others exchange messages, with the same results. The
 * first stays alive and works after all of them. */
static void test_many_teams(void)
{
    enum { TEAMS = 24 };
    pgdds_team_t first = PGDDS_TEAM_NULL;
    for (int round = 0; round < TEAMS; ++round) {
        const int start = round % n, size = n - start;
        pgdds_team_t t;
        T_OK(pgdds_team_split_strided(world, start, 1, size, &t));
        T_CHECK((t != PGDDS_TEAM_NULL) == (me >= start));
        if (!t) continue;
        int64_t v = me + round, sum = -1, want = 0;
        for (int r = start; r < n; ++r) want += r + round;
        T_OK(pgdds_team_allreduce(t, &v, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM));
        T_CHECK_MSG(sum == want, "team %d: sum %lld, expected %lld", round, (long long)sum, (long long)want);
        int64_t in[64], out[64];
        for (int k = 0; k < size; ++k) in[k] = (int64_t)me << 16 | k;
        T_OK(pgdds_team_alltoall(t, in, out, sizeof(int64_t)));
        for (int k = 0; k < size; ++k) T_CHECK(out[k] == ((int64_t)(start + k) << 16 | (me - start)));
        if (size > 1 && round % 5 == 0) {
            int64_t o[2] = {-9, -9}, two[2] = {1, 1};
            pgdds_status_t st = pgdds_team_allreduce(t, two, o, me == n - 1 ? 1 : 2, PGDDS_INT64, PGDDS_OP_SUM);
            T_CHECK_MSG(st == PGDDS_ERR_INVALID_ARG && strstr(pgdds_last_error(), "do not match"),
                        "team %d: a mismatched allreduce returned %d: %s", round, st, pgdds_last_error());
            T_CHECK(o[0] == -9 && o[1] == -9);
        }
        T_OK(pgdds_team_barrier(t));
        if (round == 0) first = t;
        else T_OK(pgdds_team_destroy(t));
    }
    int64_t one = 1, count = 0;
    T_OK(pgdds_team_allreduce(first, &one, &count, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK(count == n);
    T_OK(pgdds_team_destroy(first));
}

static void test_bad_input(void)
{
    int r;
    pgdds_team_t t = PGDDS_TEAM_NULL;
    /* The null team a split gives non-members. */
    T_STATUS(pgdds_team_barrier(PGDDS_TEAM_NULL), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "NULL") != NULL);
    T_STATUS(pgdds_team_rank(PGDDS_TEAM_NULL, &r), PGDDS_ERR_INVALID_ARG);
    /* Something that is not a team. */
    uint64_t junk[8] = {0};
    T_STATUS(pgdds_team_size((pgdds_team_t)(void *)junk, &r), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "not a team") != NULL);
    /* A destroyed team (every rank is in the split of the world from 0, stride 1, all). */
    T_OK(pgdds_team_split_strided(world, 0, 1, n, &t));
    T_OK(pgdds_team_destroy(t));
    T_STATUS(pgdds_team_barrier(t), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "destroyed") != NULL);
    T_STATUS(pgdds_team_destroy(t), PGDDS_ERR_INVALID_ARG);
    /* The predefined teams are not destroyed. */
    T_STATUS(pgdds_team_destroy(world), PGDDS_ERR_INVALID_ARG);
    /* Out-of-range ranks. */
    T_STATUS(pgdds_team_translate_rank(world, n, world, &r), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_team_translate_rank(world, -1, world, &r), PGDDS_ERR_OUT_OF_BOUNDS);
    int64_t v = 0;
    T_STATUS(pgdds_team_broadcast(world, &v, sizeof v, n), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_team_reduce(world, &v, &v, 1, PGDDS_INT64, PGDDS_OP_SUM, -1), PGDDS_ERR_OUT_OF_BOUNDS);
    /* Splits that leave the parent: every rank fails alike. */
    T_STATUS(pgdds_team_split_strided(world, 0, 1, n + 1, &t), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_team_split_strided(world, n, 1, 1, &t), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_team_split_strided(world, 0, 0, 2, &t), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_team_split_2d(world, 0, &t, &t), PGDDS_ERR_INVALID_ARG);
    /* Ranks that pass different arguments: every rank fails, naming the disagreement. */
    T_STATUS(pgdds_team_split_strided(world, 0, 1, me == n - 1 ? 1 : n, &t), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "different") != NULL);
    T_STATUS(pgdds_team_split_strided(world, 0, 1, n, NULL), PGDDS_ERR_INVALID_ARG);
    /* Mismatched collectives on a team: a barrier against a broadcast, on every rank. */
    pgdds_team_t all;
    T_OK(pgdds_team_split_strided(world, 0, 1, n, &all));
    int64_t keep = 42;
    pgdds_status_t st = me == 0 ? pgdds_team_barrier(all) : pgdds_team_broadcast(all, &keep, sizeof keep, 0);
    T_CHECK_MSG(st == PGDDS_ERR_INVALID_ARG, "mismatch gave %d: %s", st, pgdds_last_error());
    T_CHECK(strstr(pgdds_last_error(), "do not match") != NULL);
    T_CHECK(keep == 42);
    /* The team is usable afterwards, and agrees again. */
    T_OK(pgdds_team_barrier(all));
    T_OK(pgdds_team_destroy(all));
    T_OK(pgdds_barrier(ctx));
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    T_OK(pgdds_team_world(ctx, &world));
    test_world_and_node();
    test_strided();
    test_2d(2);
    test_2d(3);
    test_2d(n + 3);
    test_2d(1);
    test_many_teams();
    test_bad_input();
    return t_finish(ctx, "teams/teams");
}
