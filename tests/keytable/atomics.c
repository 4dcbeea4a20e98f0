/* Atomics on words inside values, under contention:
 *  - every rank fetch-adds one word of one hot key: the total is exact and every fetched value
 *    appears exactly once; non-fetching adds, OR, AND and XOR on other words of the same value
 *    are exact too, while other ranks read the value;
 *  - every rank adds to every rank's counter key at once: exact totals;
 *  - the word must lie in the value's current size, which a put may change. */
#include "kt_test.h"

static pgdds_context_t ctx;
static int me, n;

enum { iters = 64, words = 6 };

static void test_hot_key(pgdds_keytable_t t)
{
    struct kt_key hot = kt_key_of(1 << 20, 1);
    uint64_t init[words] = {0, 0, 0, ~0ull, 0, 0};
    if (me == 0) T_OK(pgdds_keytable_insert(t, &hot, sizeof hot, init, sizeof init));
    T_OK(pgdds_barrier(ctx));
    const int total = n * iters;
    uint64_t *seen = calloc((size_t)total, sizeof *seen), *all_seen = calloc((size_t)total, sizeof *all_seen);
    uint64_t last_counter = 0;
    int went_back = 0;
    for (int i = 0; i < iters; ++i) {
        uint64_t f = ~0ull;
        T_OK(pgdds_keytable_atomic_u64(t, &hot, sizeof hot, 0, PGDDS_AOP_ADD, 1, &f));
        if (f < (uint64_t)total) seen[f]++;
        else T_CHECK_MSG(0, "fetched %llu out of range", (unsigned long long)f);
        T_OK(pgdds_keytable_atomic_u64(t, &hot, sizeof hot, 8, PGDDS_AOP_ADD, 1ull << 32, NULL));
        T_OK(pgdds_keytable_atomic_u64(t, &hot, sizeof hot, 16, PGDDS_AOP_OR, 1ull << ((me * iters + i) % 64), NULL));
        if (i % 8 == 0) {
            uint64_t clear = ~(1ull << ((me * 8 + i / 8) % 64));
            T_OK(pgdds_keytable_atomic_u64(t, &hot, sizeof hot, 24, PGDDS_AOP_AND, clear, NULL));
            T_OK(pgdds_keytable_atomic_u64(t, &hot, sizeof hot, 32, PGDDS_AOP_XOR, (uint64_t)(me + 1) << i % 32, NULL));
        }
        /* A read in between sees the counter whole and never going back. */
        uint64_t v[words];
        size_t len = sizeof v;
        T_OK(pgdds_keytable_get(t, &hot, sizeof hot, v, &len));
        went_back += v[0] < last_counter;
        last_counter = v[0];
    }
    T_CHECK(went_back == 0);
    T_OK(pgdds_allreduce(ctx, seen, all_seen, (size_t)total, PGDDS_UINT64, PGDDS_OP_SUM));
    int dup = 0;
    for (int i = 0; i < total; ++i) dup += all_seen[i] != 1;
    T_CHECK_MSG(dup == 0, "%d fetched values missing or repeated", dup);
    free(seen);
    free(all_seen);
    T_OK(pgdds_barrier(ctx));

    uint64_t v[words];
    size_t len = sizeof v;
    T_OK(pgdds_keytable_get(t, &hot, sizeof hot, v, &len));
    uint64_t or_bits = 0, and_bits = ~0ull, xor_bits = 0;
    for (int r = 0; r < n; ++r)
        for (int i = 0; i < iters; ++i) {
            or_bits |= 1ull << ((r * iters + i) % 64);
            if (i % 8 == 0) {
                and_bits &= ~(1ull << ((r * 8 + i / 8) % 64));
                xor_bits ^= (uint64_t)(r + 1) << i % 32;
            }
        }
    T_CHECK_MSG(v[0] == (uint64_t)total, "counter %llu, expected %d", (unsigned long long)v[0], total);
    T_CHECK(v[1] == (uint64_t)total << 32);
    T_CHECK(v[2] == or_bits);
    T_CHECK(v[3] == and_bits);
    T_CHECK(v[4] == xor_bits);
    T_CHECK(v[5] == 0);
    T_OK(pgdds_barrier(ctx));
}

static void test_every_rank_counters(pgdds_keytable_t t)
{
    struct kt_key mine = kt_key_of(me, 2);
    uint64_t zero[2] = {0, 0};
    T_OK(pgdds_keytable_insert(t, &mine, sizeof mine, zero, sizeof zero));
    T_OK(pgdds_barrier(ctx));
    for (int i = 0; i < iters / 4; ++i)
        for (int r = 0; r < n; ++r) {
            struct kt_key k = kt_key_of((r + me) % n, 2);
            T_OK(pgdds_keytable_atomic_u64(t, &k, sizeof k, 8, PGDDS_AOP_ADD, (uint64_t)me + 1, NULL));
        }
    T_OK(pgdds_barrier(ctx));
    uint64_t v[2];
    size_t len = sizeof v;
    T_OK(pgdds_keytable_get(t, &mine, sizeof mine, v, &len));
    uint64_t expect = (uint64_t)(iters / 4) * (uint64_t)n * (uint64_t)(n + 1) / 2;
    T_CHECK_MSG(v[1] == expect && v[0] == 0, "counter %llu, expected %llu", (unsigned long long)v[1],
                (unsigned long long)expect);
    T_OK(pgdds_barrier(ctx));
}

static void test_bounds_follow_size(pgdds_keytable_t t)
{
    struct kt_key k = kt_key_of(me, 3);
    uint64_t v[4] = {1, 2, 3, 4};
    T_OK(pgdds_keytable_insert(t, &k, sizeof k, v, 16));
    T_OK(pgdds_barrier(ctx));
    struct kt_key right = kt_key_of((me + 1) % n, 3);
    uint64_t old = 0;
    T_OK(pgdds_keytable_atomic_u64(t, &right, sizeof right, 8, PGDDS_AOP_ADD, 10, &old));
    T_CHECK(old == 2);
    T_STATUS(pgdds_keytable_atomic_u64(t, &right, sizeof right, 16, PGDDS_AOP_ADD, 10, &old), PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK(old == 2); /* not written on failure */
    T_OK(pgdds_keytable_put(t, &right, sizeof right, v, 32)); /* grown */
    T_OK(pgdds_keytable_atomic_u64(t, &right, sizeof right, 24, PGDDS_AOP_SWAP, 40, &old));
    T_CHECK(old == 4);
    T_OK(pgdds_keytable_put(t, &right, sizeof right, v, 12)); /* shrunk: the second word is cut */
    T_STATUS(pgdds_keytable_atomic_u64(t, &right, sizeof right, 8, PGDDS_AOP_ADD, 1, NULL), PGDDS_ERR_OUT_OF_BOUNDS);
    T_OK(pgdds_keytable_atomic_u64(t, &right, sizeof right, 0, PGDDS_AOP_ADD, 1, &old));
    T_CHECK(old == 1);
    T_OK(pgdds_keytable_remove(t, &right, sizeof right));
    T_STATUS(pgdds_keytable_atomic_u64(t, &right, sizeof right, 0, PGDDS_AOP_ADD, 1, NULL), PGDDS_ERR_NOT_FOUND);
    T_OK(pgdds_barrier(ctx));
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    pgdds_keytable_t t = kt_create(ctx, 64, 64);
    test_hot_key(t);
    test_every_rank_counters(t);
    test_bounds_follow_size(t);
    T_OK(pgdds_keytable_destroy(t));
    return t_finish(ctx, "keytable/atomics");
}
