/* Point-to-point synchronization on every type of its table (wait_until, test and their _all,
 * _any, _some and vector forms, signed comparisons), signal_wait_until, fence-ordered message
 * passing, distributed locks and contexts. Each PE signals its right-hand neighbour. */
#include "shmem_check.h"

#include <stdint.h>

static int me, n, right, left;

#define TEST_P2P(T, N)                                                                            \
    static void test_p2p_##N(void)                                                                \
    {                                                                                             \
        T *iv = shmem_calloc(4, sizeof(T));                                                       \
        shmem_##N##_p(&iv[1], (T)-3, right);                                                      \
        shmem_fence();                                                                            \
        shmem_##N##_p(&iv[2], (T)5, right);                                                       \
        shmem_quiet();                                                                            \
        shmem_##N##_wait_until(&iv[2], SHMEM_CMP_EQ, (T)5);                                       \
        CHECK(iv[1] == (T)-3);                      /* fenced before the flag */                  \
        CHECK(shmem_##N##_test(&iv[2], SHMEM_CMP_GT, (T)4) == 1);                                 \
        CHECK(shmem_##N##_test(&iv[2], SHMEM_CMP_LE, (T)4) == 0);                                 \
        /* Signed types compare signed: -3 < 0. */                                                \
        CHECK(shmem_##N##_test(&iv[1], SHMEM_CMP_LT, (T)0) == ((T)-1 < (T)1));                    \
        int mask[4] = {0, 1, 0, 0};                                                               \
        CHECK(shmem_##N##_wait_until_any(iv, 4, mask, SHMEM_CMP_EQ, (T)5) == 2);                  \
        int only2[4] = {1, 1, 0, 1};                                                              \
        shmem_##N##_wait_until_all(iv, 4, only2, SHMEM_CMP_GE, (T)5);                             \
        CHECK(shmem_##N##_test_all(iv, 4, mask, SHMEM_CMP_EQ, (T)5) == 0);                        \
        CHECK(shmem_##N##_test_all(iv, 4, only2, SHMEM_CMP_EQ, (T)5) == 1);                       \
        int masked_all[4] = {1, 1, 1, 1};                                                         \
        CHECK(shmem_##N##_test_any(iv, 4, masked_all, SHMEM_CMP_EQ, (T)5) == SIZE_MAX);           \
        CHECK(shmem_##N##_test_any(iv, 4, mask, SHMEM_CMP_EQ, (T)7) == SIZE_MAX);                 \
        size_t idx[4] = {9, 9, 9, 9};                                                             \
        CHECK(shmem_##N##_wait_until_some(iv, 4, idx, NULL, SHMEM_CMP_NE, (T)0) == 2);            \
        CHECK(idx[0] == 1 && idx[1] == 2);                                                        \
        CHECK(shmem_##N##_test_some(iv, 4, idx, mask, SHMEM_CMP_NE, (T)0) == 1 && idx[0] == 2);   \
        T want[4] = {0, (T)-3, 5, 0};                                                             \
        shmem_##N##_wait_until_all_vector(iv, 4, NULL, SHMEM_CMP_EQ, want);                       \
        CHECK(shmem_##N##_test_all_vector(iv, 4, NULL, SHMEM_CMP_EQ, want) == 1);                 \
        T other[4] = {1, 1, 5, 1};                                                                \
        CHECK(shmem_##N##_wait_until_any_vector(iv, 4, NULL, SHMEM_CMP_EQ, other) == 2);          \
        CHECK(shmem_##N##_test_any_vector(iv, 4, NULL, SHMEM_CMP_EQ, other) == 2);                \
        CHECK(shmem_##N##_wait_until_some_vector(iv, 4, idx, NULL, SHMEM_CMP_EQ, other) == 1 && idx[0] == 2); \
        CHECK(shmem_##N##_test_some_vector(iv, 4, idx, NULL, SHMEM_CMP_NE, other) == 3);          \
        shmem_barrier_all();                                                                      \
        shmem_free(iv);                                                                           \
    }
SHMEM_P2P_TYPES(TEST_P2P)

static void test_signal_and_generic(void)
{
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long *data = shmem_calloc(1024, sizeof(long));
    long src[1024];
    for (int i = 0; i < 1024; ++i) src[i] = me * 10000 + i;
    shmem_long_put_signal_nbi(data, src, 1024, sig, 7, SHMEM_SIGNAL_SET, right);
    CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_GE, 7) == 7);
    int ok = 1;
    for (int i = 0; i < 1024; ++i) ok &= data[i] == left * 10000 + i;
    CHECK(ok);
    shmem_quiet();
    shmem_barrier_all();
    /* Generic names. */
    int *flag = shmem_calloc(2, sizeof(int));
    shmem_int_atomic_set(&flag[1], me + 1, right);
    shmem_wait_until(&flag[1], SHMEM_CMP_EQ, left + 1);
    CHECK(shmem_test(&flag[1], SHMEM_CMP_NE, 0) == 1);
    CHECK(shmem_test_any(flag, 2, NULL, SHMEM_CMP_NE, 0) == 1);
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(data);
    shmem_free(sig);
}

/* Ping-pong between PE pairs over posted AMOs and blocking puts, no quiet: each side's
 * update must reach the other while it waits for the answer. */
static void test_pingpong(void)
{
    long *flag = shmem_calloc(1, sizeof(long));
    int *word = shmem_calloc(1, sizeof(int));
    int partner = me ^ 1;
    if (partner < n) {
        for (long round = 1; round <= 100; ++round) {
            if (me % 2 == 0) {
                shmem_long_atomic_set(flag, round, partner);
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, round);
                shmem_int_p(word, (int)round, partner);
                shmem_int_wait_until(word, SHMEM_CMP_EQ, (int)round);
            } else {
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, round);
                shmem_long_atomic_set(flag, round, partner);
                shmem_int_wait_until(word, SHMEM_CMP_EQ, (int)round);
                shmem_int_p(word, (int)round, partner);
            }
        }
        CHECK(*flag == 100 && *word == 100);
    }
    shmem_barrier_all();
    shmem_free(word);
    shmem_free(flag);
}

static void test_locks(void)
{
    long *lock = shmem_calloc(1, sizeof(long));
    long *counter = shmem_calloc(1, sizeof(long));
    for (int i = 0; i < 50; ++i) {
        shmem_set_lock(lock);
        long v = shmem_long_g(counter, 0);   /* read-modify-write under the lock only */
        shmem_long_p(counter, v + 1, 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK_MSG(*counter == 50L * n, "counter %ld, expected %ld", *counter, 50L * n);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_test_lock(lock) == 0);   /* free: taken */
        CHECK(shmem_test_lock(lock) == 1);   /* held (by me) */
    }
    shmem_barrier_all();
    if (me != 0) CHECK(shmem_test_lock(lock) == 1);
    shmem_barrier_all();
    if (me == 0) shmem_clear_lock(lock);
    shmem_barrier_all();
    if (me == n - 1) {
        CHECK(shmem_test_lock(lock) == 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(lock);
}

static void test_contexts(void)
{
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0 && ctx != SHMEM_CTX_INVALID);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0 && team == SHMEM_TEAM_WORLD);
    long *x = shmem_calloc(64, sizeof(long));
    long src[64];
    for (int i = 0; i < 64; ++i) src[i] = me + i;
    shmem_ctx_long_put_nbi(ctx, x, src, 64, right);
    shmem_put(ctx, x + 32, src, 32, right);   /* generic ctx form */
    CHECK(shmem_ctx_long_atomic_fetch_add(ctx, &x[63], 0, right) >= 0);
    shmem_ctx_quiet(ctx);
    shmem_ctx_fence(ctx);
    shmem_barrier_all();
    CHECK(x[0] == left && x[31] == left + 31 && x[32] == left && x[63] == left + 31);
    CHECK(shmem_ctx_long_g(ctx, &x[1], right) == me + 1);
    CHECK(shmem_g(ctx, &x[2], right) == me + 2);
    shmem_atomic_add(ctx, &x[3], 10L, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(x[3] == left + 13);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    shmem_free(x);
}

int main(void)
{
    shmem_check_start();
    me = shmem_my_pe();
    n = shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
#define RUN_P2P(T, N) test_p2p_##N();
    SHMEM_P2P_TYPES(RUN_P2P)
    test_signal_and_generic();
    test_pingpong();
    test_locks();
    test_contexts();
    return shmem_check_end();
}
