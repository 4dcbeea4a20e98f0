/* DArray and Array: block distribution (uneven, and with ranks holding nothing), local views,
 * global pointers, range get/put spanning ranks, bad input. */
#include "common.h"

static pgdds_context_t ctx;
static int me, n;

static uint64_t value_at(uint64_t i, uint64_t round) { return t_mix(i * 1000 + round); }

static void test_darray(uint64_t count)
{
    pgdds_darray_t a = NULL;
    T_OK(pgdds_darray_create(ctx, sizeof(uint64_t), count, &a));
    uint64_t size = 0, first = 99, local_count = 99;
    T_OK(pgdds_darray_size(a, &size));
    T_CHECK(size == count);
    void *elems = NULL;
    T_OK(pgdds_darray_local(a, &elems, &first, &local_count));
    uint64_t block = (count + (uint64_t)n - 1) / (uint64_t)n;
    uint64_t want_first = (uint64_t)me * block < count ? (uint64_t)me * block : count;
    uint64_t want_count = count - want_first < block ? count - want_first : block;
    T_CHECK_MSG(first == want_first && local_count == want_count && (elems != NULL) == (want_count != 0),
                "local part [%llu, +%llu), expected [%llu, +%llu)", (unsigned long long)first,
                (unsigned long long)local_count, (unsigned long long)want_first, (unsigned long long)want_count);
    uint64_t *mine = elems;
    for (uint64_t i = 0; i < local_count; ++i) mine[i] = value_at(first + i, 0);
    T_OK(pgdds_barrier(ctx));
    /* every rank reads everything, in ranges that cross the part boundaries */
    uint64_t *all = malloc((count + 1) * sizeof *all), bad = 0;
    uint64_t step = block / 3 + 2;
    for (uint64_t i = 0; i < count; i += step) {
        uint64_t len = count - i < step ? count - i : step;
        T_OK(pgdds_darray_get(a, i, len, all + i));
    }
    for (uint64_t i = 0; i < count; ++i) bad += all[i] != value_at(i, 0);
    T_CHECK_MSG(bad == 0, "%llu elements wrong after range gets", (unsigned long long)bad);
    if (count) {
        pgdds_gptr_t g;
        uint64_t last = 0;
        T_OK(pgdds_darray_gptr(a, count - 1, &g));
        T_OK(pgdds_get(ctx, &last, g, sizeof last));
        T_CHECK(last == value_at(count - 1, 0));
    }
    T_OK(pgdds_barrier(ctx));
    /* rank r rewrites a strided set of ranges through put; everyone checks */
    for (uint64_t i = (uint64_t)me * step; i < count; i += step * (uint64_t)n) {
        uint64_t len = count - i < step ? count - i : step;
        for (uint64_t j = 0; j < len; ++j) all[i + j] = value_at(i + j, 1);
        T_OK(pgdds_darray_put(a, i, len, all + i));
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_darray_get(a, 0, count, all));
    bad = 0;
    for (uint64_t i = 0; i < count; ++i) bad += all[i] != value_at(i, 1);
    T_CHECK_MSG(bad == 0, "%llu elements wrong after range puts", (unsigned long long)bad);
    pgdds_gptr_t g;
    T_STATUS(pgdds_darray_gptr(a, count, &g), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_darray_get(a, count, 1, all), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_darray_put(a, 0, count + 1, all), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_darray_get(a, 1, UINT64_MAX, all), PGDDS_ERR_OUT_OF_BOUNDS);
    T_OK(pgdds_darray_get(a, count, 0, all));
    free(all);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_darray_destroy(a));
}

static void test_array(void)
{
    const uint64_t count = 3001;
    const int host = n - 1;
    pgdds_array_t a = NULL;
    T_OK(pgdds_array_create(ctx, sizeof(uint64_t), count, host, &a));
    void *elems = NULL;
    uint64_t local_count = 0, size = 0;
    int h = -1;
    T_OK(pgdds_array_local(a, &elems, &local_count));
    T_OK(pgdds_array_size(a, &size));
    T_OK(pgdds_array_host(a, &h));
    T_CHECK(size == count && h == host);
    T_CHECK(me == host ? (elems != NULL && local_count == count) : (elems == NULL && local_count == 0));
    /* every rank writes its own stripe; the host checks the whole array locally */
    uint64_t stripe = (count + (uint64_t)n - 1) / (uint64_t)n;
    uint64_t from = (uint64_t)me * stripe, len = from >= count ? 0 : (count - from < stripe ? count - from : stripe);
    uint64_t *buf = malloc(count * sizeof *buf);
    for (uint64_t i = 0; i < len; ++i) buf[i] = value_at(from + i, 2);
    T_OK(pgdds_array_put(a, from, len, buf));
    T_OK(pgdds_barrier(ctx));
    if (me == host) {
        uint64_t bad = 0;
        for (uint64_t i = 0; i < count; ++i) bad += ((uint64_t *)elems)[i] != value_at(i, 2);
        T_CHECK_MSG(bad == 0, "%llu array elements wrong on the host", (unsigned long long)bad);
    }
    T_OK(pgdds_array_get(a, 0, count, buf));
    uint64_t bad = 0;
    for (uint64_t i = 0; i < count; ++i) bad += buf[i] != value_at(i, 2);
    T_CHECK(bad == 0);
    pgdds_gptr_t g;
    T_OK(pgdds_array_gptr(a, 7, &g));
    T_CHECK(pgdds_gptr_rank(g) == host);
    T_STATUS(pgdds_array_gptr(a, count, &g), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_array_get(a, 0, count, NULL), PGDDS_ERR_INVALID_ARG);
    free(buf);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_array_destroy(a));
    T_STATUS(pgdds_array_get(a, 0, 1, &bad), PGDDS_ERR_INVALID_ARG);
}

static void test_bad_input(void)
{
    pgdds_darray_t d = NULL;
    pgdds_array_t a = NULL;
    T_STATUS(pgdds_darray_create(ctx, 0, 10, &d), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_darray_create(ctx, 8, 10, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_darray_create(ctx, 8, (uint64_t)1 << 62, &d), PGDDS_ERR_NO_MEMORY);
    T_STATUS(pgdds_array_create(ctx, 8, 10, n, &a), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_array_create(ctx, 8, 10, -1, &a), PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK(d == NULL && a == NULL);
    T_OK(pgdds_darray_create(ctx, 8, 10, &d));
    void *e;
    uint64_t f, c;
    T_STATUS(pgdds_darray_local(d, NULL, &f, &c), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_darray_local((pgdds_darray_t)(void *)ctx, &e, &f, &c), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_darray_size(d, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_darray_destroy(d));
    T_STATUS(pgdds_darray_local(d, &e, &f, &c), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_darray_destroy(d), PGDDS_ERR_INVALID_ARG);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    test_darray(1000 * (uint64_t)n + 7);
    test_darray((uint64_t)n - 1); /* the last rank holds nothing */
    test_darray(0);
    test_array();
    test_bad_input();
    return t_finish(ctx, "containers/array");
}
