/* A reader remembers where it found a key; those entries must never make it return a wrong
 * value. With the key's owner O, a reader R != O and a writer W (a third rank when there is
 * one, else the owner):
 *  - W changes the value's size (bigger, then smaller): R reads the new value whole;
 *  - W removes the key: R gets NOT_FOUND from get, put, atomic and remove;
 *  - W reinserts it: R reads the new value;
 *  - the key is removed and another key takes its slot and its record (keys forced to share
 *    match bits): R's get, put and atomic of the old key are NOT_FOUND, the other key intact;
 *  - W keeps updating, then removing and reinserting, while R reads: every read is whole and
 *    versions never go back;
 *  - R remembers a key's entry, then updates another key with the same match bits and
 *    fingerprint: the update reaches that other key, not the remembered one. */
#include "kt_test.h"

#include <xxhash.h>

static pgdds_context_t ctx;
static int me, n;

enum { max_value = 600 };

static void put_version(pgdds_keytable_t t, struct kt_key k, uint64_t version, size_t len)
{
    unsigned char buf[max_value];
    kt_fill(buf, kt_key_id(k), version, len);
    T_OK(pgdds_keytable_put(t, &k, sizeof k, buf, len));
}

static void insert_version(pgdds_keytable_t t, struct kt_key k, uint64_t version, size_t len)
{
    unsigned char buf[max_value];
    kt_fill(buf, kt_key_id(k), version, len);
    T_OK(pgdds_keytable_insert(t, &k, sizeof k, buf, len));
}

/* R's read must give exactly this version and length. */
static void expect_version(pgdds_keytable_t t, struct kt_key k, uint64_t version, size_t len, const char *step)
{
    unsigned char buf[max_value];
    size_t got_len = sizeof buf;
    uint64_t got = 0;
    T_OK(pgdds_keytable_get(t, &k, sizeof k, buf, &got_len));
    T_CHECK_MSG(kt_check(buf, got_len, kt_key_id(k), &got) && got == version && got_len == len,
                "%s: read version %llu of %zu bytes, expected %llu of %zu", step, (unsigned long long)got, got_len,
                (unsigned long long)version, len);
}

static void expect_absent(pgdds_keytable_t t, struct kt_key k)
{
    unsigned char buf[max_value];
    size_t len = sizeof buf;
    T_STATUS(pgdds_keytable_get(t, &k, sizeof k, buf, &len), PGDDS_ERR_NOT_FOUND);
    kt_fill(buf, kt_key_id(k), 999, 40);
    T_STATUS(pgdds_keytable_put(t, &k, sizeof k, buf, 40), PGDDS_ERR_NOT_FOUND);
    T_STATUS(pgdds_keytable_atomic_u64(t, &k, sizeof k, 8, PGDDS_AOP_ADD, 1, NULL), PGDDS_ERR_NOT_FOUND);
    T_STATUS(pgdds_keytable_remove(t, &k, sizeof k), PGDDS_ERR_NOT_FOUND);
}

static void test_sequence(pgdds_keytable_t t)
{
    struct kt_key k = kt_key_of(7, 7);
    if (me == 0) insert_version(t, k, 1, 50);
    T_OK(pgdds_barrier(ctx));
    const int owner = kt_owner_of(ctx, t, &k, sizeof k);
    const int reader = (owner + 1) % n, writer = n > 2 ? (owner + 2) % n : owner;

    if (me == reader) expect_version(t, k, 1, 50, "first read"); /* remembered now */
    T_OK(pgdds_barrier(ctx));
    if (me == writer) put_version(t, k, 2, 500);
    T_OK(pgdds_barrier(ctx));
    if (me == reader) expect_version(t, k, 2, 500, "after growing");
    T_OK(pgdds_barrier(ctx));
    if (me == writer) put_version(t, k, 3, 30);
    T_OK(pgdds_barrier(ctx));
    if (me == reader) expect_version(t, k, 3, 30, "after shrinking");
    T_OK(pgdds_barrier(ctx));
    if (me == writer) T_OK(pgdds_keytable_remove(t, &k, sizeof k));
    T_OK(pgdds_barrier(ctx));
    if (me == reader) expect_absent(t, k);
    T_OK(pgdds_barrier(ctx));
    if (me == writer) insert_version(t, k, 4, 100);
    T_OK(pgdds_barrier(ctx));
    if (me == reader) {
        expect_version(t, k, 4, 100, "after reinsertion");
        put_version(t, k, 5, 120);
    }
    T_OK(pgdds_barrier(ctx));
    expect_version(t, k, 5, 120, "everyone, after the reader's put");
    T_OK(pgdds_barrier(ctx));
}

static uint64_t constant_hash(const void *key, size_t key_len, void *arg)
{
    (void)key, (void)key_len, (void)arg;
    return 42;
}

static void test_slot_and_record_reuse(void)
{
    /* Every key shares match bits, so a key inserted after a removal takes the freed alias,
     * the same slot, and (same size) most likely the same record. */
    pgdds_keytable_params_t p;
    pgdds_keytable_t t = NULL;
    memset(&p, 0, sizeof p);
    p.field_mask = PGDDS_KEYTABLE_FIELD_HASH;
    p.max_value_size = max_value;
    p.capacity_per_rank = 64;
    p.hash = constant_hash;
    T_OK(pgdds_keytable_create(ctx, &p, &t));
    struct kt_key old_key = kt_key_of(1, 1), new_key = kt_key_of(2, 2);
    if (me == 0) insert_version(t, old_key, 1, 64);
    T_OK(pgdds_barrier(ctx));
    const int owner = kt_owner_of(ctx, t, &old_key, sizeof old_key);
    const int reader = (owner + 1) % n;
    if (me == reader) expect_version(t, old_key, 1, 64, "before reuse");
    T_OK(pgdds_barrier(ctx));
    if (me == owner) {
        T_OK(pgdds_keytable_remove(t, &old_key, sizeof old_key));
        insert_version(t, new_key, 7, 64);
    }
    T_OK(pgdds_barrier(ctx));
    if (me == reader) {
        expect_absent(t, old_key);
        expect_version(t, new_key, 7, 64, "the key that took the slot");
    }
    T_OK(pgdds_barrier(ctx));
    expect_version(t, new_key, 7, 64, "everyone, the key that took the slot");
    T_OK(pgdds_keytable_destroy(t));
}

static void test_updates_under_reads(pgdds_keytable_t t)
{
    struct kt_key k = kt_key_of(8, 8);
    if (me == 0) insert_version(t, k, 1, 40);
    T_OK(pgdds_barrier(ctx));
    const int owner = kt_owner_of(ctx, t, &k, sizeof k);
    const int reader = (owner + 1) % n, writer = n > 2 ? (owner + 2) % n : owner;
    const uint64_t updates = 120;
    if (me == writer) {
        for (uint64_t v = 2; v <= updates; ++v) {
            size_t len = kt_value_len(kt_key_id(k), v, max_value);
            if (v % 30 == 0) { /* now and then the key goes away and comes back */
                T_OK(pgdds_keytable_remove(t, &k, sizeof k));
                insert_version(t, k, v, len);
            } else {
                put_version(t, k, v, len);
            }
        }
    } else if (me == reader) {
        unsigned char buf[max_value];
        uint64_t last = 0;
        int torn = 0, backwards = 0, absent = 0;
        for (int i = 0; i < 240; ++i) {
            size_t len = sizeof buf;
            uint64_t v = 0;
            pgdds_status_t st = pgdds_keytable_get(t, &k, sizeof k, buf, &len);
            if (st == PGDDS_ERR_NOT_FOUND) {
                absent++;
                continue;
            }
            T_OK(st);
            if (!kt_check(buf, len, kt_key_id(k), &v)) torn++;
            else if (v < last) backwards++;
            else last = v;
        }
        T_CHECK_MSG(torn == 0 && backwards == 0, "%d reads not whole, %d went back in time (%d absent)", torn,
                    backwards, absent);
    }
    T_OK(pgdds_barrier(ctx));
    expect_version(t, k, updates, kt_value_len(kt_key_id(k), updates, max_value), "after the updates");
    T_OK(pgdds_barrier(ctx));
}

/* Two 8-byte keys whose fingerprints collide (the low 32 bits of XXH3 when the application
 * gives the hash), found by a birthday search. */
struct fp_key {
    uint32_t fp;
    uint64_t key;
};
static int by_fp(const void *a, const void *b)
{
    const struct fp_key *x = a, *y = b;
    return x->fp < y->fp ? -1 : x->fp > y->fp;
}
static int colliding_pair(uint64_t *a, uint64_t *b)
{
    const size_t count = 300000;
    struct fp_key *keys = malloc(count * sizeof *keys);
    int found = 0;
    for (size_t i = 0; i < count; ++i) {
        keys[i].key = 0x5eed000000000000ull + i;
        keys[i].fp = (uint32_t)XXH3_64bits(&keys[i].key, sizeof keys[i].key);
    }
    qsort(keys, count, sizeof *keys, by_fp);
    for (size_t i = 1; i < count && !found; ++i)
        if (keys[i].fp == keys[i - 1].fp) {
            *a = keys[i - 1].key;
            *b = keys[i].key;
            found = 1;
        }
    free(keys);
    return found;
}

static void test_remembered_entry_of_another_key(void)
{
    /* The reader remembers where it found key a; key b shares a's match bits and fingerprint,
     * so it finds that entry when it updates b: the update must reach b, never a. */
    uint64_t a = 0, b = 0;
    T_CHECK(colliding_pair(&a, &b));
    pgdds_keytable_params_t p;
    pgdds_keytable_t t = NULL;
    memset(&p, 0, sizeof p);
    p.field_mask = PGDDS_KEYTABLE_FIELD_HASH;
    p.max_value_size = 16;
    p.capacity_per_rank = 16;
    p.hash = constant_hash;
    T_OK(pgdds_keytable_create(ctx, &p, &t));
    uint64_t va[2] = {1, 1}, vb[2] = {2, 2};
    if (me == 0) {
        T_OK(pgdds_keytable_insert(t, &a, sizeof a, va, sizeof va));
        T_OK(pgdds_keytable_insert(t, &b, sizeof b, vb, sizeof vb));
    }
    T_OK(pgdds_barrier(ctx));
    const int owner = kt_owner_of(ctx, t, &a, sizeof a);
    if (me == (owner + 1) % n) {
        uint64_t got[2];
        size_t len = sizeof got;
        T_OK(pgdds_keytable_get(t, &a, sizeof a, got, &len)); /* remembered */
        uint64_t nb[2] = {20, 20}, old = 0;
        T_OK(pgdds_keytable_put(t, &b, sizeof b, nb, sizeof nb));
        T_OK(pgdds_keytable_get(t, &a, sizeof a, got, &len)); /* remembered again */
        T_OK(pgdds_keytable_atomic_u64(t, &b, sizeof b, 8, PGDDS_AOP_ADD, 5, &old));
        T_CHECK(old == 20);
        T_OK(pgdds_keytable_get(t, &a, sizeof a, got, &len));
        T_OK(pgdds_keytable_remove(t, &b, sizeof b));
    }
    T_OK(pgdds_barrier(ctx));
    uint64_t got[2] = {0, 0};
    size_t len = sizeof got;
    T_OK(pgdds_keytable_get(t, &a, sizeof a, got, &len));
    T_CHECK_MSG(got[0] == 1 && got[1] == 1, "key a holds {%llu, %llu}: another key's update reached it",
                (unsigned long long)got[0], (unsigned long long)got[1]);
    T_STATUS(pgdds_keytable_get(t, &b, sizeof b, got, &len), PGDDS_ERR_NOT_FOUND);
    T_OK(pgdds_keytable_destroy(t));
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    if (n < 2) {
        printf("keytable/stale_cache: needs 2 ranks, skipped\n");
        pgdds_finalize(ctx);
        return 77;
    }
    pgdds_keytable_t t = kt_create(ctx, max_value, 100);
    test_sequence(t);
    test_updates_under_reads(t);
    T_OK(pgdds_keytable_destroy(t));
    test_slot_and_record_reuse();
    test_remembered_entry_of_another_key();
    return t_finish(ctx, "keytable/stale_cache");
}
