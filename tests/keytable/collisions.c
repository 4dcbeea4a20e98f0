/* Keys whose hashes collide, told apart by the stored key and resolved with alias bits (PDHT
 * §3.7), forced with deliberately weak application hashes (PGDDS_KEYTABLE_FIELD_HASH):
 *  - three hash values for all keys: every operation from every rank on keys that share match
 *    bits with many others, through removals and reinsertions (aliases reused);
 *  - one hash value: at most 256 keys (the aliases) fit, whoever inserts them; the next is
 *    PGDDS_ERR_FULL, and a removal makes room for exactly one more. */
#include "kt_test.h"

static pgdds_context_t ctx;
static int me, n;

enum { per_rank = 24, max_value = 120 };

static uint64_t three_values(const void *key, size_t key_len, void *arg)
{
    const struct kt_key *k = key;
    (void)arg;
    return key_len == sizeof *k ? (k->index + k->rank) % 3 : 0;
}

static uint64_t one_value(const void *key, size_t key_len, void *arg)
{
    (void)key, (void)key_len;
    return *(const uint64_t *)arg;
}

static pgdds_keytable_t create_with_hash(pgdds_keytable_hash_t hash, void *arg, uint64_t capacity)
{
    pgdds_keytable_params_t p;
    pgdds_keytable_t t = NULL;
    memset(&p, 0, sizeof p);
    p.field_mask = PGDDS_KEYTABLE_FIELD_HASH;
    p.max_value_size = max_value;
    p.capacity_per_rank = capacity;
    p.hash = hash;
    p.hash_arg = arg;
    T_OK(pgdds_keytable_create(ctx, &p, &t));
    if (!t) exit(1);
    return t;
}

/* Every rank checks every key: present with `version`, or absent where `removed(i)`. */
static int check_all(pgdds_keytable_t t, uint64_t version, int removed_every)
{
    unsigned char buf[max_value];
    int wrong = 0;
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < per_rank; ++i) {
            struct kt_key k = kt_key_of(r, i);
            size_t len = sizeof buf;
            uint64_t v = 0;
            pgdds_status_t st = pgdds_keytable_get(t, &k, sizeof k, buf, &len);
            if (removed_every && i % (uint64_t)removed_every == 0) wrong += st != PGDDS_ERR_NOT_FOUND;
            else wrong += st != PGDDS_OK || !kt_check(buf, len, kt_key_id(k), &v) || v != version;
        }
    return wrong;
}

static void test_three_hash_values(void)
{
    pgdds_keytable_t t = create_with_hash(three_values, NULL, (uint64_t)(per_rank * n));
    unsigned char buf[max_value];
    for (uint64_t i = 0; i < per_rank; ++i) {
        struct kt_key k = kt_key_of(me, i);
        size_t len = kt_make_value(buf, kt_key_id(k), 1, max_value);
        T_OK(pgdds_keytable_insert(t, &k, sizeof k, buf, len));
    }
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(check_all(t, 1, 0) == 0, "colliding keys read wrong after inserts");
    /* Keys sharing match bits live on at most three ranks. */
    uint64_t held = kt_local_count(t), holders = 0, one = held ? 1 : 0;
    T_OK(pgdds_allreduce(ctx, &one, &holders, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK(holders <= 3);
    T_OK(pgdds_barrier(ctx));

    /* Another rank updates each key, the owner's neighbours read them. */
    int right = (me + 1) % n;
    for (uint64_t i = 0; i < per_rank; ++i) {
        struct kt_key k = kt_key_of(right, i);
        size_t len = kt_make_value(buf, kt_key_id(k), 2, max_value);
        T_OK(pgdds_keytable_put(t, &k, sizeof k, buf, len));
    }
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(check_all(t, 2, 0) == 0, "colliding keys read wrong after puts");
    T_OK(pgdds_barrier(ctx));

    /* Removing every third key frees aliases in the middle; the others stay found. */
    for (uint64_t i = 0; i < per_rank; i += 3) {
        struct kt_key k = kt_key_of(right, i);
        T_OK(pgdds_keytable_remove(t, &k, sizeof k));
    }
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(check_all(t, 2, 3) == 0, "colliding keys read wrong after removals");
    T_OK(pgdds_barrier(ctx));

    /* Reinserted, they take freed aliases. */
    for (uint64_t i = 0; i < per_rank; i += 3) {
        struct kt_key k = kt_key_of(me, i);
        size_t len = kt_make_value(buf, kt_key_id(k), 2, max_value);
        T_OK(pgdds_keytable_insert(t, &k, sizeof k, buf, len));
        T_STATUS(pgdds_keytable_insert(t, &k, sizeof k, buf, len), PGDDS_ERR_EXISTS);
    }
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(check_all(t, 2, 0) == 0, "colliding keys read wrong after reinsertion");

    /* Atomics reach the right key among its aliases. */
    struct kt_key k = kt_key_of(right, 1);
    uint64_t old = 0;
    T_OK(pgdds_keytable_atomic_u64(t, &k, sizeof k, 8, PGDDS_AOP_XOR, 0, &old));
    T_CHECK(old == 2); /* the version word of the value */
    T_OK(pgdds_keytable_destroy(t));
}

static uint64_t max_aliases_offered(void) { return 256 / (uint64_t)n + 24; }

static void test_alias_limit(void)
{
    uint64_t the_hash = 12345;
    pgdds_keytable_t t = create_with_hash(one_value, &the_hash, 1000);
    /* Together the ranks offer more keys than the aliases allow. */
    const uint64_t offered = max_aliases_offered();
    int64_t mine = 0, total = 0;
    uint64_t v = (uint64_t)me;
    for (uint64_t i = 0; i < offered; ++i) {
        struct kt_key k = kt_key_of(me, i);
        pgdds_status_t st = pgdds_keytable_insert(t, &k, sizeof k, &v, sizeof v);
        if (st == PGDDS_OK) mine++;
        else T_STATUS(st, PGDDS_ERR_FULL);
    }
    T_OK(pgdds_allreduce(ctx, &mine, &total, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK_MSG(total == 256, "%lld keys with one hash value inserted, the aliases allow 256", (long long)total);
    T_OK(pgdds_barrier(ctx));
    /* Every key that went in is found. */
    int wrong = 0;
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < offered; ++i) {
            struct kt_key k = kt_key_of(r, i);
            uint64_t got = 99;
            size_t len = sizeof got;
            pgdds_status_t st = pgdds_keytable_get(t, &k, sizeof k, &got, &len);
            wrong += st == PGDDS_OK ? got != (uint64_t)r : st != PGDDS_ERR_NOT_FOUND;
        }
    T_CHECK(wrong == 0);
    T_OK(pgdds_barrier(ctx));
    /* One removal makes room for exactly one more key. */
    struct kt_key gone = kt_key_of(0, 0), extra = kt_key_of(n + 1, 0);
    if (me == 0) {
        for (uint64_t i = 0; i < offered * (uint64_t)n; ++i) { /* a key that went in */
            gone = kt_key_of((int)(i % (uint64_t)n), i / (uint64_t)n);
            uint64_t got;
            size_t len = sizeof got;
            if (pgdds_keytable_get(t, &gone, sizeof gone, &got, &len) == PGDDS_OK) break;
        }
        T_STATUS(pgdds_keytable_insert(t, &extra, sizeof extra, &v, sizeof v), PGDDS_ERR_FULL);
        T_OK(pgdds_keytable_remove(t, &gone, sizeof gone));
        T_OK(pgdds_keytable_insert(t, &extra, sizeof extra, &v, sizeof v));
        T_STATUS(pgdds_keytable_insert(t, &gone, sizeof gone, &v, sizeof v), PGDDS_ERR_FULL);
    }
    T_OK(pgdds_barrier(ctx));
    uint64_t got = 0;
    size_t len = sizeof got;
    T_OK(pgdds_keytable_get(t, &extra, sizeof extra, &got, &len));
    T_OK(pgdds_keytable_destroy(t));
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    test_three_hash_values();
    test_alias_limit();
    return t_finish(ctx, "keytable/collisions");
}
