/* The hash map buffer: buffered inserts from every rank with queues far too small to hold them
 * (flush must go round until nothing is left), keys written by several ranks, reuse after a
 * flush, a map too small, bad input. */
#include "common.h"

static pgdds_context_t ctx;
static int me, n;

static pgdds_hashmap_t make_map(uint64_t capacity)
{
    pgdds_hashmap_params_t p = {0, sizeof(uint64_t), sizeof(struct t_value), capacity};
    pgdds_hashmap_t map = NULL;
    T_OK(pgdds_hashmap_create(ctx, &p, &map));
    return map;
}

/* Checks keys [first, first+count) with batched one-read finds. */
static void check_keys(pgdds_hashmap_t map, uint64_t first, uint64_t count)
{
    enum { B = 128 };
    uint64_t keys[B], wrong = 0;
    struct t_value values[B];
    unsigned char found[B];
    for (uint64_t i = 0; i < count; i += B) {
        size_t c = count - i < B ? (size_t)(count - i) : B;
        for (size_t j = 0; j < c; ++j) keys[j] = first + i + j;
        T_OK(pgdds_hashmap_find_many(map, c, keys, values, found, PGDDS_CP_FIND));
        for (size_t j = 0; j < c; ++j) wrong += !found[j] || !t_value_ok(&values[j], keys[j]);
    }
    T_CHECK_MSG(wrong == 0, "%llu of %llu buffered keys missing or torn", (unsigned long long)wrong,
                (unsigned long long)count);
}

static void test_buffered_inserts(void)
{
    /* per / 12 >= shared: every rank writes every shared key */
    const uint64_t per = t_work(2500, 500), shared = t_work(200, 40);
    pgdds_hashmap_t map = make_map((per * (uint64_t)n + shared) * 4); /* two phases, half full */
    pgdds_hashmap_buffer_t buf = NULL;
    T_OK(pgdds_hashmap_buffer_create(map, 100, 32, &buf));
    for (int phase = 0; phase < 2; ++phase) {
        uint64_t base = (uint64_t)phase * 10000000;
        for (uint64_t i = 0; i < per; ++i) {
            uint64_t key = base + 1000 + (uint64_t)me * per + i;
            struct t_value v = t_value_of(key, (uint64_t)me);
            T_OK(pgdds_hashmap_buffer_insert(buf, &key, &v));
            if (i % 12 == 0) { /* keys every rank writes: any one of the writes may win */
                uint64_t skey = base + (i / 12) % shared;
                struct t_value sv = t_value_of(skey, (uint64_t)me * 100000 + i);
                T_OK(pgdds_hashmap_buffer_insert(buf, &skey, &sv));
            }
        }
        T_OK(pgdds_hashmap_buffer_flush(buf));
        uint64_t size = 0;
        T_OK(pgdds_hashmap_size(map, &size));
        uint64_t expect = (uint64_t)(phase + 1) * (per * (uint64_t)n + shared);
        T_CHECK_MSG(size == expect, "phase %d: size %llu, expected %llu", phase, (unsigned long long)size,
                    (unsigned long long)expect);
        check_keys(map, base + 1000, per * (uint64_t)n);
        check_keys(map, base, shared);
        T_OK(pgdds_barrier(ctx));
    }
    /* a flush with nothing buffered anywhere */
    T_OK(pgdds_hashmap_buffer_flush(buf));
    T_OK(pgdds_hashmap_buffer_destroy(buf));
    T_OK(pgdds_hashmap_destroy(map));
}

static void test_map_too_small(void)
{
    pgdds_hashmap_t map = make_map(8 * (uint64_t)n);
    pgdds_hashmap_buffer_t buf = NULL;
    T_OK(pgdds_hashmap_buffer_create(map, 16, 4, &buf));
    for (uint64_t i = 0; i < 40; ++i) {
        uint64_t key = (uint64_t)me * 1000 + i;
        struct t_value v = t_value_of(key, 1);
        T_OK(pgdds_hashmap_buffer_insert(buf, &key, &v));
    }
    T_STATUS(pgdds_hashmap_buffer_flush(buf), PGDDS_ERR_FULL);
    uint64_t size = 0;
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK(size == 8 * (uint64_t)n); /* filled to the last bucket */
    T_OK(pgdds_hashmap_buffer_destroy(buf));
    T_OK(pgdds_hashmap_destroy(map));
}

static void test_bad_input(void)
{
    pgdds_hashmap_t map = make_map(64);
    pgdds_hashmap_buffer_t buf = NULL;
    uint64_t key = 1;
    struct t_value v = t_value_of(key, 1);
    T_STATUS(pgdds_hashmap_buffer_create(NULL, 16, 4, &buf), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_create(map, 16, 4, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_create(map, 0, 4, &buf), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_create(map, 16, 17, &buf), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_create(map, 16, 0, &buf), PGDDS_ERR_INVALID_ARG);
    T_CHECK(buf == NULL);
    T_OK(pgdds_hashmap_buffer_create(map, 16, 4, &buf));
    T_STATUS(pgdds_hashmap_buffer_insert(NULL, &key, &v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_insert(buf, NULL, &v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_insert(buf, &key, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_insert((pgdds_hashmap_buffer_t)(void *)map, &key, &v), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_hashmap_buffer_insert(buf, &key, &v));
    T_OK(pgdds_hashmap_buffer_flush(buf));
    /* the map destroyed under the buffer */
    T_OK(pgdds_hashmap_destroy(map));
    T_STATUS(pgdds_hashmap_buffer_insert(buf, &key, &v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_flush(buf), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_hashmap_buffer_destroy(buf));
    T_STATUS(pgdds_hashmap_buffer_insert(buf, &key, &v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_flush(buf), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_destroy(buf), PGDDS_ERR_INVALID_ARG);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    t_detect_network(ctx);
    test_buffered_inserts();
    test_map_too_small();
    test_bad_input();
    return t_finish(ctx, "containers/hashmap_buffer");
}
