/* Teams (world, shared, strided and 2-D splits, translation, sync, contexts on a team) and the
 * collectives on them: broadcast, collect, fcollect, alltoall(s) and reductions over the
 * core's types and the folded ones (8/16-bit, long double, complex, prod), on the world and
 * on the team of even PEs. Also the error returns of a bad split and an invalid team. */
#include "shmem_check.h"

#include <complex.h>
#include <stdint.h>

static int me, n;

static void test_teams(void)
{
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == n);
    int shared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(shared >= 1 && shared <= n && shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1 && shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1);
    long *x = shmem_calloc(4, sizeof(long));
    CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, x, shmem_team_my_pe(SHMEM_TEAM_SHARED)) == x);

    shmem_team_t evens = SHMEM_TEAM_INVALID;
    int nevens = (n + 1) / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nevens, NULL, 0, &evens) == 0);
    if (me % 2 == 0) {
        CHECK(evens != SHMEM_TEAM_INVALID);
        CHECK(shmem_team_my_pe(evens) == me / 2 && shmem_team_n_pes(evens) == nevens);
        CHECK(shmem_team_translate_pe(evens, nevens - 1, SHMEM_TEAM_WORLD) == 2 * (nevens - 1));
        CHECK(shmem_team_sync(evens) == 0);
        /* A context on the team speaks its PE numbers. */
        shmem_ctx_t ctx;
        CHECK(shmem_team_create_ctx(evens, 0, &ctx) == 0);
        shmem_team_t back = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == evens);
        int to = (me / 2 + 1) % nevens;
        shmem_ctx_long_p(ctx, &x[0], 1000 + me, to);
        shmem_ctx_quiet(ctx);
        shmem_team_sync(evens);
        int from = (me / 2 + nevens - 1) % nevens;
        CHECK_MSG(x[0] == 1000 + 2 * from, "x[0] = %ld", x[0]);
        shmem_ctx_destroy(ctx);
        shmem_team_config_t cfg = {7};
        CHECK(shmem_team_get_config(evens, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == 0);
    } else {
        CHECK(evens == SHMEM_TEAM_INVALID);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, evens) == -1);
    }
    if (n > 1) CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, SHMEM_TEAM_WORLD) == 1);

    /* 2-D: rows of 2. */
    shmem_team_t row, col;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &row, NULL, 0, &col) == 0);
    CHECK(shmem_team_my_pe(row) == me % 2 && shmem_team_my_pe(col) == me / 2);
    CHECK(shmem_team_translate_pe(row, 0, SHMEM_TEAM_WORLD) == me - me % 2);
    int rsum = 0, one = 1;
    CHECK(shmem_int_sum_reduce(col, &rsum, &one, 1) == 0 && rsum == shmem_team_n_pes(col));
    shmem_team_destroy(row);
    shmem_team_destroy(col);

    /* Errors return nonzero and give no team. */
    shmem_team_t bad = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &bad) != 0 && bad == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &bad) != 0 && bad == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0);
    CHECK(shmem_broadcastmem(SHMEM_TEAM_INVALID, x, x, 8, 0) != 0);

    if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
    shmem_barrier_all();
    shmem_free(x);
}

/* Collectives on team (my number there: t, of tn). */
static void test_collectives(shmem_team_t team)
{
    int t = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
    long src[8], dst[8 * 16];
    for (int i = 0; i < 8; ++i) src[i] = 100 * t + i;

    int root = tn > 1 ? 1 : 0;
    long bc[8] = {0};
    CHECK(shmem_long_broadcast(team, bc, src, 8, root) == 0);
    CHECK(bc[0] == 100 * root && bc[7] == 100 * root + 7);   /* the root's dest too */
    char text[16] = {0};
    CHECK(shmem_broadcastmem(team, text, t == 0 ? "broadcast" : "wrong", 10, 0) == 0);
    CHECK(strcmp(text, "broadcast") == 0);

    CHECK(shmem_fcollect(team, dst, src, 2) == 0);
    int ok = 1;
    for (int r = 0; r < tn; ++r) ok &= dst[2 * r] == 100 * r && dst[2 * r + 1] == 100 * r + 1;
    CHECK(ok);
    /* collect: team PE r gives r % 3 + 1 elements. */
    CHECK(shmem_long_collect(team, dst, src, (size_t)(t % 3 + 1)) == 0);
    ok = 1;
    for (int r = 0, at = 0; r < tn; at += r % 3 + 1, ++r)
        for (int k = 0; k <= r % 3; ++k) ok &= dst[at + k] == 100 * r + k;
    CHECK(ok);

    /* alltoall: block j (2 elements) to team PE j. */
    int a_in[32], a_out[32];
    for (int j = 0; j < tn; ++j) a_in[2 * j] = 1000 * t + j, a_in[2 * j + 1] = -(1000 * t + j);
    CHECK(shmem_int_alltoall(team, a_out, a_in, 2) == 0);
    ok = 1;
    for (int i = 0; i < tn; ++i) ok &= a_out[2 * i] == 1000 * i + t && a_out[2 * i + 1] == -(1000 * i + t);
    CHECK(ok);
    /* alltoalls: source stride 2, dest stride 3, one element a pair. */
    long s_in[64], s_out[64];
    for (int i = 0; i < 64; ++i) s_in[i] = -1, s_out[i] = -5;
    for (int j = 0; j < tn; ++j) s_in[2 * j] = 10 * t + j;
    CHECK(shmem_alltoalls(team, s_out, s_in, 3, 2, 1) == 0);
    ok = 1;
    for (int i = 0; i < tn; ++i) ok &= s_out[3 * i] == 10 * i + t && s_out[3 * i + 1] == -5;
    CHECK(ok);

    /* Reductions through the core (int, long, double, unsigned) and folded (short, char,
     * uint8, long double, complex, prod). */
    int isum = 0, imin = 0, imax = 0, ival = t + 1;
    CHECK(shmem_int_sum_reduce(team, &isum, &ival, 1) == 0 && isum == tn * (tn + 1) / 2);
    CHECK(shmem_int_min_reduce(team, &imin, &ival, 1) == 0 && imin == 1);
    CHECK(shmem_max_reduce(team, &imax, &ival, 1) == 0 && imax == tn);
    int64_t lv[2] = {(int64_t)1 << t, ~((int64_t)1 << t)}, lor[2], land[2], lxor[2];
    CHECK(shmem_int64_or_reduce(team, lor, lv, 2) == 0 && lor[0] == (1L << tn) - 1);
    CHECK(shmem_int64_and_reduce(team, land, lv, 2) == 0 && land[1] == ~((1L << tn) - 1) && land[0] == (tn == 1 ? 1 : 0));
    CHECK(shmem_int64_xor_reduce(team, lxor, lv, 1) == 0 && lxor[0] == (1L << tn) - 1);
    double dv = 0.5 * t, dsum = -1;
    CHECK(shmem_double_sum_reduce(team, &dsum, &dv, 1) == 0 && dsum == 0.25 * tn * (tn - 1));
    unsigned long long umax = 0, uv = (unsigned long long)-1 - (unsigned long long)t;
    CHECK(shmem_ulonglong_max_reduce(team, &umax, &uv, 1) == 0 && umax == (unsigned long long)-1);
    short sv = (short)(-t), ssum = 1, smin = 1;
    CHECK(shmem_short_sum_reduce(team, &ssum, &sv, 1) == 0 && ssum == -(tn * (tn - 1) / 2));
    CHECK(shmem_short_min_reduce(team, &smin, &sv, 1) == 0 && smin == -(tn - 1));
    signed char cv = (signed char)(t - 3), cmax = 0;
    CHECK(shmem_schar_max_reduce(team, &cmax, &cv, 1) == 0 && cmax == tn - 4);
    uint8_t bv = (uint8_t)(0x80 | (1 << (t % 7))), band = 0;
    CHECK(shmem_uint8_and_reduce(team, &band, &bv, 1) == 0 && band == (tn == 1 ? bv : 0x80));
    long double ldv = 1.0L / 4 * (t + 1), ldsum = 0;
    CHECK(shmem_longdouble_sum_reduce(team, &ldsum, &ldv, 1) == 0 && ldsum == 0.25L * tn * (tn + 1) / 2);
    long pv = t + 1, prod = 0, fact = 1;
    for (int i = 2; i <= tn; ++i) fact *= i;
    CHECK(shmem_long_prod_reduce(team, &prod, &pv, 1) == 0 && prod == fact);
    double _Complex zv = t % 2 ? I : 1.0, zprod = 0;
    CHECK(shmem_complexd_prod_reduce(team, &zprod, &zv, 1) == 0);
    double _Complex want = 1.0;
    for (int r = 0; r < tn; ++r) want *= r % 2 ? I : 1.0;
    CHECK(creal(zprod) == creal(want) && cimag(zprod) == cimag(want));
    /* In place, several elements. */
    int many[5] = {t, t, t, t, t + 1};
    CHECK(shmem_int_sum_reduce(team, many, many, 5) == 0 && many[0] == tn * (tn - 1) / 2 && many[4] == tn * (tn + 1) / 2);
}

int main(void)
{
    shmem_check_start();
    me = shmem_my_pe();
    n = shmem_n_pes();
    test_teams();
    test_collectives(SHMEM_TEAM_WORLD);
    shmem_team_t evens;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens) == 0);
    if (evens != SHMEM_TEAM_INVALID) {
        test_collectives(evens);
        shmem_team_destroy(evens);
    }
    shmem_barrier_all();
    return shmem_check_end();
}
