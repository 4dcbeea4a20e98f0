/* The blocked Bloom filter: no false negatives, a false-positive rate near the one asked for,
 * an insert that tells exactly one of several concurrent inserters of a key that it was new,
 * batches that agree with single calls, bad input. */
#include "common.h"

static pgdds_context_t ctx;
static int me, n;

static void test_membership(void)
{
    const uint64_t per = t_work(2000, 300), total = per * (uint64_t)n;
    const double rate = 0.01;
    pgdds_bloom_t bloom = NULL;
    T_OK(pgdds_bloom_create(ctx, total, rate, &bloom));
    uint64_t blocks = 0;
    unsigned k = 0;
    T_OK(pgdds_bloom_geometry(bloom, &blocks, &k));
    T_CHECK(k >= 1 && k <= 16 && blocks >= total * 6 / 64 && blocks % (uint64_t)n == 0);
    uint64_t said_present = 0;
    for (uint64_t i = 0; i < per; ++i) {
        uint64_t key = t_mix((uint64_t)me * per + i);
        int was = -1;
        T_OK(pgdds_bloom_insert(bloom, &key, sizeof key, &was));
        T_CHECK(was == 0 || was == 1);
        said_present += was == 1;
    }
    T_OK(pgdds_barrier(ctx));
    /* every inserted key is there; keys never inserted mostly are not */
    uint64_t missing = 0, false_pos = 0;
    for (uint64_t i = 0; i < total; i += 3) {
        uint64_t key = t_mix(i);
        int maybe = 0;
        T_OK(pgdds_bloom_contains(bloom, &key, sizeof key, &maybe));
        missing += !maybe;
    }
    enum { PROBE_BATCH = 250 };
    const uint64_t probes = t_work(20000, 4000);
    uint64_t batch[PROBE_BATCH];
    unsigned char maybe_batch[PROBE_BATCH];
    for (uint64_t i = 0; i < probes; i += PROBE_BATCH) {
        for (int j = 0; j < PROBE_BATCH; ++j) batch[j] = t_mix(1000000000ull + (uint64_t)me * probes + i + (uint64_t)j);
        T_OK(pgdds_bloom_contains_many(bloom, PROBE_BATCH, batch, sizeof batch[0], maybe_batch));
        for (int j = 0; j < PROBE_BATCH; ++j) false_pos += maybe_batch[j];
    }
    T_CHECK_MSG(missing == 0, "%llu inserted keys not found", (unsigned long long)missing);
    T_CHECK_MSG(false_pos < probes * rate * 2, "false-positive rate %.4f for a filter sized for %.2f",
                (double)false_pos / (double)probes, rate);
    T_CHECK_MSG(said_present < per * rate * 2, "%llu of %llu new keys reported present", (unsigned long long)said_present,
                (unsigned long long)per);
    /* batches agree with single calls */
    enum { B = 64 };
    uint64_t keys[B];
    unsigned char maybe[B];
    for (int j = 0; j < B; ++j) keys[j] = t_mix((uint64_t)(j * 97 % (int)total));
    T_OK(pgdds_bloom_contains_many(bloom, B, keys, sizeof keys[0], maybe));
    int wrong = 0;
    for (int j = 0; j < B; ++j) wrong += maybe[j] != 1;
    T_CHECK(wrong == 0);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_bloom_destroy(bloom));
}

/* All ranks insert the same keys at once (single and batched): for each key at most one
 * inserter may be told the key was new, and it must be there afterwards. */
static void test_concurrent_first_insert(void)
{
    const int KEYS = (int)t_work(2000, 400); /* a multiple of 16 */
    pgdds_bloom_t bloom = NULL;
    T_OK(pgdds_bloom_create(ctx, KEYS, 0.001, &bloom));
    uint32_t *first = calloc(KEYS, sizeof *first), *all = calloc(KEYS, sizeof *all);
    unsigned char was[16];
    uint64_t batch[16];
    for (int i = 0; i < KEYS; i += 16) {
        int base = (i + me * 16 * 7) % KEYS; /* ranks start at different keys */
        for (int j = 0; j < 16; ++j) batch[j] = t_mix(77 + (uint64_t)((base + j) % KEYS));
        if ((i / 16) % 2) {
            T_OK(pgdds_bloom_insert_many(bloom, 16, batch, sizeof batch[0], was));
        } else {
            for (int j = 0; j < 16; ++j) {
                int w = 0;
                T_OK(pgdds_bloom_insert(bloom, &batch[j], sizeof batch[j], &w));
                was[j] = (unsigned char)w;
            }
        }
        for (int j = 0; j < 16; ++j) first[(base + j) % KEYS] += !was[j];
    }
    T_OK(pgdds_allreduce(ctx, first, all, KEYS, PGDDS_UINT32, PGDDS_OP_SUM));
    int twice = 0, news = 0;
    for (int i = 0; i < KEYS; ++i) {
        twice += all[i] > 1;
        news += all[i] == 1;
    }
    T_CHECK_MSG(twice == 0, "%d keys reported new to more than one inserter", twice);
    T_CHECK_MSG(news > KEYS * 9 / 10, "only %d of %d keys reported new to anyone", news, KEYS);
    free(first);
    free(all);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_bloom_destroy(bloom));
}

static void test_bad_input(void)
{
    pgdds_bloom_t bloom = NULL;
    uint64_t key = 5;
    int flag;
    T_STATUS(pgdds_bloom_create(ctx, 100, 0.0, &bloom), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_create(ctx, 100, 1.0, &bloom), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_create(ctx, 100, -0.5, &bloom), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_create(ctx, 100, 0.01, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_create(NULL, 100, 0.01, &bloom), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_create(ctx, (uint64_t)1 << 62, 1e-9, &bloom), PGDDS_ERR_NO_MEMORY);
    T_CHECK(bloom == NULL);
    T_OK(pgdds_bloom_create(ctx, 0, 0.5, &bloom)); /* empty is fine */
    T_OK(pgdds_bloom_insert(bloom, &key, sizeof key, NULL));
    T_STATUS(pgdds_bloom_insert(bloom, NULL, 8, &flag), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_contains(bloom, &key, sizeof key, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_contains_many(bloom, 1, &key, sizeof key, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_geometry(bloom, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_insert((pgdds_bloom_t)(void *)ctx, &key, sizeof key, &flag), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_bloom_contains(bloom, &key, sizeof key, &flag));
    T_CHECK(flag == 1);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_bloom_destroy(bloom));
    T_STATUS(pgdds_bloom_insert(bloom, &key, sizeof key, &flag), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_destroy(bloom), PGDDS_ERR_INVALID_ARG);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    t_detect_network(ctx);
    test_membership();
    test_concurrent_first_insert();
    test_bad_input();
    return t_finish(ctx, "containers/bloom");
}
