/* Bad input to every key-table function returns its status with an explanation, never a crash
 * or a hang: NULL arguments, lengths of zero or too large, misaligned and out-of-range value
 * offsets, unknown operations, inconsistent parameters across ranks, misuse from inside a
 * visitor, and every function after destroy. */
#include "kt_test.h"

static pgdds_context_t ctx;
static int me, n;

static void test_create(void)
{
    pgdds_keytable_params_t p;
    pgdds_keytable_t t = NULL;
    memset(&p, 0, sizeof p);
    p.max_value_size = 64;
    p.capacity_per_rank = 10;
    T_STATUS(pgdds_keytable_create(NULL, &p, &t), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_create(ctx, NULL, &t), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_create(ctx, &p, NULL), PGDDS_ERR_INVALID_ARG);
    p.max_value_size = 0;
    T_STATUS(pgdds_keytable_create(ctx, &p, &t), PGDDS_ERR_INVALID_ARG);
    p.max_value_size = PGDDS_KEYTABLE_MAX_VALUE_SIZE + 1;
    T_STATUS(pgdds_keytable_create(ctx, &p, &t), PGDDS_ERR_INVALID_ARG);
    p.max_value_size = 64;
    p.capacity_per_rank = 0;
    T_STATUS(pgdds_keytable_create(ctx, &p, &t), PGDDS_ERR_INVALID_ARG);
    p.capacity_per_rank = 10;
    p.field_mask = 1u << 20;
    T_STATUS(pgdds_keytable_create(ctx, &p, &t), PGDDS_ERR_INVALID_ARG);
    p.field_mask = PGDDS_KEYTABLE_FIELD_HASH; /* with hash NULL */
    T_STATUS(pgdds_keytable_create(ctx, &p, &t), PGDDS_ERR_INVALID_ARG);
    T_CHECK(t == NULL);
    /* Ranks that disagree all fail, none hangs. */
    p.field_mask = 0;
    p.capacity_per_rank = 10 + (uint64_t)me;
    if (n > 1) T_STATUS(pgdds_keytable_create(ctx, &p, &t), PGDDS_ERR_INVALID_ARG);
    /* The segment cannot hold the index. */
    p.capacity_per_rank = (uint64_t)1 << 32;
    T_STATUS(pgdds_keytable_create(ctx, &p, &t), PGDDS_ERR_NO_MEMORY);
    p.capacity_per_rank = ((uint64_t)1 << 32) + 1;
    T_STATUS(pgdds_keytable_create(ctx, &p, &t), PGDDS_ERR_INVALID_ARG);
    T_CHECK(t == NULL);
}

static void test_operations(pgdds_keytable_t t)
{
    uint64_t k = 12345 + (uint64_t)me, v[4] = {1, 2, 3, 4}, f = 77;
    size_t len = sizeof v;
    static unsigned char huge_key[PGDDS_KEYTABLE_MAX_KEY_LEN + 1];
    unsigned char big_value[100];
    huge_key[0] = (unsigned char)me; /* each rank's own */

    T_STATUS(pgdds_keytable_insert(NULL, &k, sizeof k, v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_insert(t, NULL, sizeof k, v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_insert(t, &k, 0, v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_insert(t, huge_key, sizeof huge_key, v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_insert(t, &k, sizeof k, NULL, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_insert(t, &k, sizeof k, big_value, sizeof big_value), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_keytable_insert(t, &k, sizeof k, v, sizeof v));
    T_OK(pgdds_keytable_insert(t, huge_key, sizeof huge_key - 1, NULL, 0)); /* the longest key, empty value */
    T_OK(pgdds_keytable_remove(t, huge_key, sizeof huge_key - 1));

    T_STATUS(pgdds_keytable_get(NULL, &k, sizeof k, v, &len), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_get(t, NULL, sizeof k, v, &len), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_get(t, &k, 0, v, &len), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_get(t, huge_key, sizeof huge_key, v, &len), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_get(t, &k, sizeof k, v, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_get(t, &k, sizeof k, NULL, &len), PGDDS_ERR_INVALID_ARG);
    T_CHECK(len == sizeof v); /* untouched */

    T_STATUS(pgdds_keytable_put(NULL, &k, sizeof k, v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_put(t, NULL, sizeof k, v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_put(t, &k, 0, v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_put(t, huge_key, sizeof huge_key, v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_put(t, &k, sizeof k, NULL, 8), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_put(t, &k, sizeof k, big_value, sizeof big_value), PGDDS_ERR_INVALID_ARG);

    T_STATUS(pgdds_keytable_atomic_u64(NULL, &k, sizeof k, 0, PGDDS_AOP_ADD, 1, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_atomic_u64(t, NULL, sizeof k, 0, PGDDS_AOP_ADD, 1, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_atomic_u64(t, &k, 0, 0, PGDDS_AOP_ADD, 1, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_atomic_u64(t, &k, sizeof k, 4, PGDDS_AOP_ADD, 1, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_atomic_u64(t, &k, sizeof k, 0, (pgdds_aop_t)99, 1, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_atomic_u64(t, &k, sizeof k, 64, PGDDS_AOP_ADD, 1, &f), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_keytable_atomic_u64(t, &k, sizeof k, (size_t)1 << 62, PGDDS_AOP_ADD, 1, &f),
             PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_keytable_atomic_u64(t, &k, sizeof k, 32, PGDDS_AOP_ADD, 1, &f), PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK(f == 77); /* untouched */

    T_STATUS(pgdds_keytable_remove(NULL, &k, sizeof k), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_remove(t, NULL, sizeof k), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_remove(t, &k, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_remove(t, huge_key, sizeof huge_key), PGDDS_ERR_INVALID_ARG);

    T_STATUS(pgdds_keytable_foreach_local(NULL, kt_count_visit, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_foreach_local(t, NULL, &f), PGDDS_ERR_INVALID_ARG);

    /* Not a key table at all. */
    uint64_t junk[4] = {1, 2, 3, 4};
    T_STATUS(pgdds_keytable_get((pgdds_keytable_t)junk, &k, sizeof k, v, &len), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_barrier(ctx));
}

/* A visitor that misuses the table on the key it visits. */
struct misuse {
    pgdds_keytable_t t;
    int checked;
};
static int misuse_visit(const void *key, size_t key_len, void *value, size_t value_len, void *arg)
{
    struct misuse *m = arg;
    uint64_t buf[8];
    size_t len = sizeof buf;
    (void)value;
    T_STATUS(pgdds_keytable_get(m->t, key, key_len, buf, &len), PGDDS_ERR_STATE);
    T_STATUS(pgdds_keytable_put(m->t, key, key_len, buf, value_len), PGDDS_ERR_STATE);
    T_STATUS(pgdds_keytable_atomic_u64(m->t, key, key_len, 0, PGDDS_AOP_ADD, 1, NULL), PGDDS_ERR_STATE);
    T_STATUS(pgdds_keytable_remove(m->t, key, key_len), PGDDS_ERR_STATE);
    T_STATUS(pgdds_keytable_foreach_local(m->t, kt_count_visit, buf), PGDDS_ERR_STATE);
    /* Other keys are fine, even from inside a visit. */
    uint64_t other = 999999;
    T_STATUS(pgdds_keytable_get(m->t, &other, sizeof other, buf, &len), PGDDS_ERR_NOT_FOUND);
    m->checked++;
    return 0;
}

static void test_visitor_misuse(pgdds_keytable_t t)
{
    struct misuse m = {t, 0};
    T_OK(pgdds_keytable_foreach_local(t, misuse_visit, &m));
    int64_t mine = m.checked, all = 0;
    T_OK(pgdds_allreduce(ctx, &mine, &all, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK(all == n);
    T_OK(pgdds_barrier(ctx));
}

static void test_after_destroy(pgdds_keytable_t t)
{
    uint64_t k = 1, v = 2, f = 0;
    size_t len = sizeof v;
    T_OK(pgdds_keytable_destroy(t));
    T_STATUS(pgdds_keytable_insert(t, &k, sizeof k, &v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_get(t, &k, sizeof k, &v, &len), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_put(t, &k, sizeof k, &v, sizeof v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_atomic_u64(t, &k, sizeof k, 0, PGDDS_AOP_ADD, 1, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_remove(t, &k, sizeof k), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_foreach_local(t, kt_count_visit, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_destroy(t), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_destroy(NULL), PGDDS_ERR_INVALID_ARG);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    test_create();
    pgdds_keytable_t t = kt_create(ctx, 64, 100);
    test_operations(t);
    test_visitor_misuse(t);
    test_after_destroy(t);
    /* A table whose context is finalized is reported, not touched. */
    pgdds_keytable_t orphan = kt_create(ctx, 8, 10);
    int rc = t_finish(ctx, "keytable/bad_input");
    uint64_t k = 1, v = 0;
    size_t len = sizeof v;
    if (pgdds_keytable_get(orphan, &k, sizeof k, &v, &len) != PGDDS_ERR_STATE || !pgdds_last_error()[0]) rc = 1;
    if (pgdds_keytable_destroy(orphan) != PGDDS_ERR_STATE) rc = 1;
    if (pgdds_keytable_destroy(orphan) != PGDDS_ERR_INVALID_ARG) rc = 1;
    if (rc) fprintf(stderr, "FAIL rank %d: a key table outliving its context\n", me);
    return rc;
}
