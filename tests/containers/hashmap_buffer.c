/* The hash map buffer: buffered inserts from every rank with queues far too small to hold them
 * (flush must go round until nothing is left), keys written by several ranks, reuse after a
 * flush, a map too small, combining and update-only buffers (exact counts), bad input. */
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

static void add_u64(void *stored, const void *incoming, void *arg)
{
    uint64_t s, in;
    memcpy(&s, stored, 8);
    memcpy(&in, incoming, 8);
    s += in;
    memcpy(stored, &s, 8);
    ++*(uint64_t *)arg; /* combines applied by this rank */
}

/* Every rank counts occurrences of shared keys through an adding buffer: key k (of `keys`)
 * occurs k % 5 + 1 times per rank. Then an update-only adding buffer adds 1000 to keys that are
 * present and must drop the absent ones; an update-only buffer without combine assigns. */
static void test_combining(void)
{
    const uint64_t keys = t_work(3000, 300);
    pgdds_hashmap_params_t p = {0, sizeof(uint64_t), sizeof(uint64_t), keys * 4};
    pgdds_hashmap_t map = NULL;
    T_OK(pgdds_hashmap_create(ctx, &p, &map));
    uint64_t combines = 0;
    pgdds_hashmap_buffer_options_t o = {PGDDS_HASHMAP_BUFFER_OPTION_COMBINE, add_u64, &combines, 0};
    pgdds_hashmap_buffer_t buf = NULL;
    T_OK(pgdds_hashmap_buffer_create_with(map, 64, 16, &o, &buf)); /* small queues: several rounds */
    uint64_t one = 1, inserted = 0;
    for (uint64_t rep = 0; rep < 5; ++rep)
        for (uint64_t i = 0; i < keys; ++i) {
            uint64_t k = (i * 7919 + (uint64_t)me * 13) % keys; /* each rank in its own order */
            if (rep <= k % 5) {
                T_OK(pgdds_hashmap_buffer_insert(buf, &k, &one));
                ++inserted;
            }
        }
    T_OK(pgdds_hashmap_buffer_flush(buf));
    T_OK(pgdds_hashmap_buffer_destroy(buf));
    uint64_t size = 0, all_combines = 0, all_inserted = 0;
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK_MSG(size == keys, "size %llu, expected %llu", (unsigned long long)size, (unsigned long long)keys);
    T_OK(pgdds_allreduce(ctx, &combines, &all_combines, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_OK(pgdds_allreduce(ctx, &inserted, &all_inserted, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK(all_combines == all_inserted - keys); /* the first entry of a key inserts it */

    /* update only, adding 1000 to the even keys of [0, 2*keys): only those below keys exist */
    pgdds_hashmap_buffer_options_t u = {PGDDS_HASHMAP_BUFFER_OPTION_COMBINE | PGDDS_HASHMAP_BUFFER_OPTION_UPDATE_ONLY,
                                        add_u64, &combines, 1};
    T_OK(pgdds_hashmap_buffer_create_with(map, 64, 16, &u, &buf));
    uint64_t thousand = 1000;
    if (me == 0)
        for (uint64_t k = 0; k < 2 * keys; k += 2) T_OK(pgdds_hashmap_buffer_insert(buf, &k, &thousand));
    T_OK(pgdds_hashmap_buffer_flush(buf));
    T_OK(pgdds_hashmap_buffer_destroy(buf));
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK_MSG(size == keys, "update-only inserted: size %llu, expected %llu", (unsigned long long)size,
                (unsigned long long)keys);

    /* update only without combine: assigns 7 to key 1, drops key 2*keys+1 */
    pgdds_hashmap_buffer_options_t a = {PGDDS_HASHMAP_BUFFER_OPTION_UPDATE_ONLY, NULL, NULL, 1};
    T_OK(pgdds_hashmap_buffer_create_with(map, 64, 16, &a, &buf));
    uint64_t seven = 7, k1 = 1, absent = 2 * keys + 1;
    T_OK(pgdds_hashmap_buffer_insert(buf, &k1, &seven));
    T_OK(pgdds_hashmap_buffer_insert(buf, &absent, &seven));
    T_OK(pgdds_hashmap_buffer_flush(buf));
    T_OK(pgdds_hashmap_buffer_destroy(buf));
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK(size == keys);

    enum { B = 128 };
    uint64_t ks[B], vs[B], wrong = 0;
    unsigned char found[B];
    for (uint64_t i = 0; i < keys; i += B) {
        size_t c = keys - i < B ? (size_t)(keys - i) : B;
        for (size_t j = 0; j < c; ++j) ks[j] = i + j;
        T_OK(pgdds_hashmap_find_many(map, c, ks, vs, found, PGDDS_CP_FIND));
        for (size_t j = 0; j < c; ++j) {
            uint64_t k = ks[j], expect = (k % 5 + 1) * (uint64_t)n + (k % 2 == 0 ? 1000 : 0);
            if (k == 1) expect = 7;
            if (!found[j] || vs[j] != expect) {
                if (wrong++ < 5)
                    fprintf(stderr, "rank %d: key %llu: found %d value %llu, expected %llu\n", me,
                            (unsigned long long)k, found[j], (unsigned long long)vs[j], (unsigned long long)expect);
            }
        }
    }
    T_CHECK_MSG(wrong == 0, "%llu of %llu counts wrong", (unsigned long long)wrong, (unsigned long long)keys);
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
    pgdds_hashmap_buffer_options_t o = {PGDDS_HASHMAP_BUFFER_OPTION_COMBINE, NULL, NULL, 0};
    T_STATUS(pgdds_hashmap_buffer_create_with(map, 16, 4, &o, &buf), PGDDS_ERR_INVALID_ARG); /* combine NULL */
    o.field_mask = 1u << 7;
    T_STATUS(pgdds_hashmap_buffer_create_with(map, 16, 4, &o, &buf), PGDDS_ERR_INVALID_ARG); /* unknown bit */
    o.field_mask = PGDDS_HASHMAP_BUFFER_OPTION_UPDATE_ONLY;
    o.update_only = 2;
    T_STATUS(pgdds_hashmap_buffer_create_with(map, 16, 4, &o, &buf), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_buffer_create_with(map, 0, 4, NULL, &buf), PGDDS_ERR_INVALID_ARG);
    T_CHECK(buf == NULL);
    T_OK(pgdds_hashmap_buffer_create_with(map, 16, 4, NULL, &buf)); /* NULL options: the plain buffer */
    T_OK(pgdds_hashmap_buffer_destroy(buf));
    buf = NULL;
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
    test_combining();
    test_bad_input();
    return t_finish(ctx, "containers/hashmap_buffer");
}
