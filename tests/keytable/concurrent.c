/* Every rank inserts, updates, removes and reads at once, with no barrier between rounds:
 *  - each rank drives its own keys through a deterministic sequence of inserts, puts (sizes
 *    change), removals and reinsertions, while reading other ranks' keys: every value read must
 *    be whole (a value of that key, never a mixture) or the key absent;
 *  - all ranks race to insert the same shared keys, then to remove them: exactly one wins each;
 *  - all ranks keep overwriting one hot key: every read is one whole write;
 * then the exact final contents: every key's presence, version and bytes, and a checksum of
 * every (key, value) computed by the owners, against what the sequences imply. */
#include "kt_test.h"

static pgdds_context_t ctx;
static int me, n;

enum { keys_per_rank = 48, rounds = 4, reads_per_round = 48, shared_keys = 24, hot_writes = 32, max_value = 200 };

/* What round r does to key i: insert or put a new version, or remove. */
static int key_present_after(uint64_t i, int r, uint64_t *version)
{
    int present = 0;
    for (int q = 0; q <= r; ++q) {
        unsigned action = (unsigned)((i * 7 + (uint64_t)q * 3) % 5);
        if (q == 0 || action < 3 || !present) {
            present = 1;
            *version = (uint64_t)q * 100 + i % 7 + 1;
        } else if (action == 3) {
            present = 0;
        }
    }
    return present;
}

static uint64_t fnv1a(const void *p, size_t len, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}
static uint64_t pair_sum(const void *key, size_t key_len, const void *value, size_t value_len)
{
    return fnv1a(value, value_len, fnv1a(key, key_len, 0xcbf29ce484222325ull));
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int torn = 0, reads_ok = 0;

static void read_random_other(pgdds_keytable_t t, uint64_t *rng)
{
    unsigned char buf[max_value];
    int r = (int)(xorshift(rng) % (uint64_t)n);
    struct kt_key k = kt_key_of(r, xorshift(rng) % keys_per_rank);
    size_t len = sizeof buf;
    pgdds_status_t st = pgdds_keytable_get(t, &k, sizeof k, buf, &len);
    if (st == PGDDS_OK) {
        torn += !kt_check(buf, len, kt_key_id(k), NULL);
        reads_ok++;
    } else if (st != PGDDS_ERR_NOT_FOUND) {
        T_OK(st);
    }
}

static void run_rounds(pgdds_keytable_t t)
{
    unsigned char buf[max_value];
    uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(me + 1);
    int present[keys_per_rank] = {0};
    for (int r = 0; r < rounds; ++r) {
        for (uint64_t i = 0; i < keys_per_rank; ++i) {
            struct kt_key k = kt_key_of(me, i);
            uint64_t version = 0;
            int now = key_present_after(i, r, &version);
            if (now) {
                size_t len = kt_make_value(buf, kt_key_id(k), version, max_value);
                if (present[i]) T_OK(pgdds_keytable_put(t, &k, sizeof k, buf, len));
                else T_OK(pgdds_keytable_insert(t, &k, sizeof k, buf, len));
            } else if (present[i]) {
                T_OK(pgdds_keytable_remove(t, &k, sizeof k));
            }
            present[i] = now;
            if (i % 4 == 0) read_random_other(t, &rng);
        }
        for (int j = 0; j < reads_per_round; ++j) read_random_other(t, &rng);
    }
}

static void race_for_shared_keys(pgdds_keytable_t t)
{
    int64_t won[2] = {0, 0}, total[2];
    uint64_t v = (uint64_t)me;
    for (uint64_t j = 0; j < shared_keys; ++j) {
        struct kt_key k = kt_key_of(1 << 20, (j + (uint64_t)me) % shared_keys); /* different orders */
        pgdds_status_t st = pgdds_keytable_insert(t, &k, sizeof k, &v, sizeof v);
        if (st == PGDDS_OK) won[0]++;
        else T_STATUS(st, PGDDS_ERR_EXISTS);
    }
    T_OK(pgdds_barrier(ctx));
    for (uint64_t j = 0; j < shared_keys; ++j) {
        struct kt_key k = kt_key_of(1 << 20, (j * 7 + (uint64_t)me) % shared_keys);
        pgdds_status_t st = pgdds_keytable_remove(t, &k, sizeof k);
        if (st == PGDDS_OK) won[1]++;
        else T_STATUS(st, PGDDS_ERR_NOT_FOUND);
    }
    T_OK(pgdds_allreduce(ctx, won, total, 2, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK_MSG(total[0] == shared_keys, "%lld inserts of %d shared keys succeeded", (long long)total[0], shared_keys);
    T_CHECK_MSG(total[1] == shared_keys, "%lld removals of %d shared keys succeeded", (long long)total[1], shared_keys);
}

static void hot_key(pgdds_keytable_t t)
{
    struct kt_key hot = kt_key_of(1 << 21, 0);
    unsigned char buf[max_value];
    if (me == 0) {
        size_t len = kt_make_value(buf, kt_key_id(hot), 0, max_value);
        T_OK(pgdds_keytable_insert(t, &hot, sizeof hot, buf, len));
    }
    T_OK(pgdds_barrier(ctx));
    int bad = 0;
    for (int i = 0; i < hot_writes; ++i) {
        uint64_t version = (uint64_t)me * 1000 + (uint64_t)i + 1;
        size_t len = kt_make_value(buf, kt_key_id(hot), version, max_value);
        T_OK(pgdds_keytable_put(t, &hot, sizeof hot, buf, len));
        len = sizeof buf;
        T_OK(pgdds_keytable_get(t, &hot, sizeof hot, buf, &len));
        bad += !kt_check(buf, len, kt_key_id(hot), NULL);
    }
    T_CHECK_MSG(bad == 0, "%d reads of the hot key were not whole", bad);
    T_OK(pgdds_barrier(ctx));
    uint64_t version = 0;
    size_t len = sizeof buf;
    T_OK(pgdds_keytable_get(t, &hot, sizeof hot, buf, &len));
    T_CHECK(kt_check(buf, len, kt_key_id(hot), &version) && version % 1000 == hot_writes &&
            version / 1000 < (uint64_t)n);
    T_OK(pgdds_barrier(ctx));
    if (me == n - 1) T_OK(pgdds_keytable_remove(t, &hot, sizeof hot));
}

static int sum_visit(const void *key, size_t key_len, void *value, size_t value_len, void *arg)
{
    uint64_t *acc = arg;
    acc[0] += pair_sum(key, key_len, value, value_len);
    acc[1]++;
    return 0;
}

static void check_final(pgdds_keytable_t t)
{
    unsigned char buf[max_value];
    uint64_t expect_sum = 0, expect_count = 0;
    int wrong = 0;
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < keys_per_rank; ++i) {
            struct kt_key k = kt_key_of(r, i);
            uint64_t version = 0, got_version = 0;
            int present = key_present_after(i, rounds - 1, &version);
            size_t len = sizeof buf;
            pgdds_status_t st = pgdds_keytable_get(t, &k, sizeof k, buf, &len);
            if (!present) {
                wrong += st != PGDDS_ERR_NOT_FOUND;
                continue;
            }
            size_t want = kt_value_len(kt_key_id(k), version, max_value);
            wrong += st != PGDDS_OK || len != want || !kt_check(buf, len, kt_key_id(k), &got_version) ||
                     got_version != version;
            kt_fill(buf, kt_key_id(k), version, want);
            expect_sum += pair_sum(&k, sizeof k, buf, want);
            expect_count++;
        }
    T_CHECK_MSG(wrong == 0, "%d keys differ from their expected final state", wrong);
    uint64_t mine[2] = {0, 0}, all[2];
    T_OK(pgdds_keytable_foreach_local(t, sum_visit, mine));
    T_OK(pgdds_allreduce(ctx, mine, all, 2, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK_MSG(all[1] == expect_count, "%llu keys held, %llu expected", (unsigned long long)all[1],
                (unsigned long long)expect_count);
    T_CHECK_MSG(all[0] == expect_sum, "checksum of all pairs %#llx, expected %#llx", (unsigned long long)all[0],
                (unsigned long long)expect_sum);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    pgdds_keytable_t t = kt_create(ctx, max_value, 4 * keys_per_rank + shared_keys + 8);
    run_rounds(t);
    race_for_shared_keys(t);
    hot_key(t);
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(torn == 0, "%d of %d reads returned a value that was not whole", torn, reads_ok);
    check_final(t);
    T_OK(pgdds_keytable_destroy(t));
    return t_finish(ctx, "keytable/concurrent");
}
