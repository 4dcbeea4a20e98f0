/* Point-to-point synchronization: put-with-signal (set and add, blocking and _nbi) delivers the
 * data before the signal, wait_until/test_until on a local word see other ranks' updates on every
 * transport (including those whose targets must progress), and every comparison means what it
 * says. */
#include "../harness.h"

#include <stdint.h>

static pgdds_context_t ctx;
static int me, n;

/* A ring: each round every rank sends a block to its right neighbour with a signal, and waits
 * for the block from its left one. The data must be complete when the signal is seen. */
static void test_ring(int nbi)
{
    enum { WORDS = 2048, ROUNDS = 20 };
    pgdds_gptr_t buf, sig;
    T_OK(pgdds_alloc_all(ctx, WORDS * sizeof(uint64_t), 0, PGDDS_ALLOC_ZERO, &buf));
    T_OK(pgdds_alloc_all(ctx, sizeof(uint64_t), 8, PGDDS_ALLOC_ZERO, &sig));
    int right = (me + 1) % n, left = (me + n - 1) % n;
    pgdds_gptr_t rbuf, rsig, mysig = sig;
    T_OK(pgdds_gptr_at(ctx, buf, right, &rbuf));
    T_OK(pgdds_gptr_at(ctx, sig, right, &rsig));
    const uint64_t *in = pgdds_gptr_to_local(ctx, buf);
    static uint64_t out[WORDS];
    for (uint64_t round = 1; round <= ROUNDS; ++round) {
        for (int i = 0; i < WORDS; ++i) out[i] = round * 1000000 + (uint64_t)me * 10000 + (uint64_t)i;
        if (nbi) {
            T_OK(pgdds_put_signal_nbi(ctx, rbuf, out, sizeof out, rsig, round, PGDDS_SIGNAL_SET));
            T_OK(pgdds_flush(ctx));
        } else {
            T_OK(pgdds_put_signal(ctx, rbuf, out, sizeof out, rsig, round, PGDDS_SIGNAL_SET));
        }
        T_OK(pgdds_wait_until_u64(ctx, mysig, PGDDS_CMP_GE, round));
        int bad = 0;
        for (int i = 0; i < WORDS; ++i) bad += in[i] != round * 1000000 + (uint64_t)left * 10000 + (uint64_t)i;
        T_CHECK_MSG(bad == 0, "round %llu: %d words of the block from rank %d are not there with its signal",
                    (unsigned long long)round, bad, left);
        uint64_t seen = 0;
        T_OK(pgdds_signal_fetch(ctx, mysig, &seen));
        T_CHECK(seen == round);
        /* The left neighbour may send the next round only once this one is read. */
        T_OK(pgdds_barrier(ctx));
    }
    T_OK(pgdds_free_all(ctx, sig));
    T_OK(pgdds_free_all(ctx, buf));
}

/* Every rank (rank 0 included) adds to rank 0's counter after writing its own slot; rank 0 waits
 * for the sum and then finds every slot written. */
static void test_add(void)
{
    pgdds_gptr_t slots, count;
    T_OK(pgdds_alloc_all(ctx, (size_t)n * 64, 0, PGDDS_ALLOC_ZERO, &slots));
    T_OK(pgdds_alloc_all(ctx, 8, 8, PGDDS_ALLOC_ZERO, &count));
    pgdds_gptr_t slot0, count0;
    T_OK(pgdds_gptr_at(ctx, pgdds_gptr_add(slots, (int64_t)me * 64), 0, &slot0));
    T_OK(pgdds_gptr_at(ctx, count, 0, &count0));
    char msg[64];
    memset(msg, 0, sizeof msg);
    snprintf(msg, sizeof msg, "greetings from rank %d", me);
    T_OK(pgdds_put_signal_nbi(ctx, slot0, msg, sizeof msg, count0, 1, PGDDS_SIGNAL_ADD));
    T_OK(pgdds_flush(ctx));
    if (me == 0) {
        T_OK(pgdds_wait_until_u64(ctx, count, PGDDS_CMP_EQ, (uint64_t)n));
        const char *got = pgdds_gptr_to_local(ctx, slots);
        for (int r = 0; r < n; ++r) {
            char want[64];
            snprintf(want, sizeof want, "greetings from rank %d", r);
            T_CHECK_MSG(strcmp(got + r * 64, want) == 0, "slot %d holds \"%.63s\"", r, got + r * 64);
        }
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_free_all(ctx, count));
    T_OK(pgdds_free_all(ctx, slots));
}

/* test_until sees nothing before the peers act and the update after, progressing as it polls;
 * 32-bit words are updated by 32-bit atomics. */
static void test_polling(void)
{
    pgdds_gptr_t w32;
    T_OK(pgdds_alloc_all(ctx, 4, 4, PGDDS_ALLOC_ZERO, &w32));
    int ok = -1;
    T_OK(pgdds_test_until_u32(ctx, w32, PGDDS_CMP_GE, 1, &ok));
    T_CHECK(ok == 0);
    T_OK(pgdds_barrier(ctx));
    /* Every rank adds 1 to its right neighbour's word; each waits for its own by polling. */
    pgdds_gptr_t right;
    T_OK(pgdds_gptr_at(ctx, w32, (me + 1) % n, &right));
    T_OK(pgdds_atomic_u32(ctx, right, PGDDS_AOP_ADD, 1, NULL));
    double deadline = t_seconds() + 60;
    ok = 0;
    while (!ok && t_seconds() < deadline) T_OK(pgdds_test_until_u32(ctx, w32, PGDDS_CMP_EQ, 1, &ok));
    T_CHECK_MSG(ok == 1, "the neighbour's update never arrived");
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_free_all(ctx, w32));
}

/* Each comparison, on a word holding 5: those that hold return at once, the others test false. */
static void test_comparisons(void)
{
    pgdds_gptr_t w64, w32;
    T_OK(pgdds_alloc(ctx, 8, 8, &w64));
    T_OK(pgdds_alloc(ctx, 4, 4, &w32));
    T_OK(pgdds_atomic_u64(ctx, w64, PGDDS_AOP_SWAP, 5, NULL));
    T_OK(pgdds_atomic_u32(ctx, w32, PGDDS_AOP_SWAP, 5, NULL));
    const struct { pgdds_cmp_t cmp; uint64_t holds, fails; } cases[] = {
        {PGDDS_CMP_EQ, 5, 4}, {PGDDS_CMP_NE, 4, 5}, {PGDDS_CMP_GT, 4, 5},
        {PGDDS_CMP_GE, 5, 6}, {PGDDS_CMP_LT, 6, 5}, {PGDDS_CMP_LE, 5, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int ok = -1;
        T_OK(pgdds_wait_until_u64(ctx, w64, cases[i].cmp, cases[i].holds));
        T_OK(pgdds_wait_until_u32(ctx, w32, cases[i].cmp, (uint32_t)cases[i].holds));
        T_OK(pgdds_test_until_u64(ctx, w64, cases[i].cmp, cases[i].holds, &ok));
        T_CHECK(ok == 1);
        T_OK(pgdds_test_until_u64(ctx, w64, cases[i].cmp, cases[i].fails, &ok));
        T_CHECK_MSG(ok == 0, "comparison %d with %llu", (int)cases[i].cmp, (unsigned long long)cases[i].fails);
        T_OK(pgdds_test_until_u32(ctx, w32, cases[i].cmp, (uint32_t)cases[i].fails, &ok));
        T_CHECK(ok == 0);
    }
    /* Unsigned: the largest value is greater than 5. */
    T_OK(pgdds_atomic_u64(ctx, w64, PGDDS_AOP_SWAP, UINT64_MAX, NULL));
    T_OK(pgdds_wait_until_u64(ctx, w64, PGDDS_CMP_GT, 5));
    T_OK(pgdds_free(ctx, w64));
    T_OK(pgdds_free(ctx, w32));
}

static void test_bad_input(void)
{
    pgdds_gptr_t w, data, peer_w;
    T_OK(pgdds_alloc_all(ctx, 8, 8, PGDDS_ALLOC_ZERO, &w));
    T_OK(pgdds_alloc_all(ctx, 64, 8, 0, &data));
    T_OK(pgdds_gptr_at(ctx, w, (me + 1) % n, &peer_w));
    int ok;
    uint64_t v;
    char buf[64] = {0};
    if (n > 1) {
        T_STATUS(pgdds_wait_until_u64(ctx, peer_w, PGDDS_CMP_EQ, 0), PGDDS_ERR_INVALID_ARG);
        T_CHECK(strstr(pgdds_last_error(), "own") != NULL);
        T_STATUS(pgdds_test_until_u32(ctx, peer_w, PGDDS_CMP_EQ, 0, &ok), PGDDS_ERR_INVALID_ARG);
        /* data and signal on different ranks */
        T_STATUS(pgdds_put_signal(ctx, data, buf, 8, peer_w, 1, PGDDS_SIGNAL_SET), PGDDS_ERR_INVALID_ARG);
    }
    T_STATUS(pgdds_wait_until_u64(ctx, pgdds_gptr_add(w, 4), PGDDS_CMP_EQ, 0), PGDDS_ERR_INVALID_ARG); /* misaligned */
    T_STATUS(pgdds_wait_until_u64(ctx, PGDDS_GPTR_NULL, PGDDS_CMP_EQ, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_wait_until_u64(ctx, w, (pgdds_cmp_t)6, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_wait_until_u32(ctx, w, (pgdds_cmp_t)-1, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_test_until_u64(ctx, w, PGDDS_CMP_EQ, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_wait_until_u64(NULL, w, PGDDS_CMP_EQ, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_put_signal(ctx, data, NULL, 8, w, 1, PGDDS_SIGNAL_SET), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_put_signal(ctx, data, buf, 8, w, 1, (pgdds_signal_op_t)2), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_put_signal_nbi(ctx, data, buf, 8, pgdds_gptr_add(w, 4), 1, PGDDS_SIGNAL_ADD),
             PGDDS_ERR_INVALID_ARG); /* misaligned signal */
    T_STATUS(pgdds_put_signal(ctx, data, buf, 64, pgdds_gptr_add(data, 56), 1, PGDDS_SIGNAL_SET),
             PGDDS_ERR_INVALID_ARG); /* the signal inside the data */
    T_STATUS(pgdds_put_signal(ctx, pgdds_gptr_add(data, (int64_t)1 << 36), buf, 8, w, 1, PGDDS_SIGNAL_SET),
             PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_put_signal(NULL, data, buf, 8, w, 1, PGDDS_SIGNAL_SET), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_signal_fetch(ctx, w, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_signal_fetch(ctx, PGDDS_GPTR_NULL, &v), PGDDS_ERR_INVALID_ARG);
    /* Nothing arrived from the refused calls. */
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_signal_fetch(ctx, w, &v));
    T_CHECK(v == 0);
    T_OK(pgdds_free_all(ctx, data));
    T_OK(pgdds_free_all(ctx, w));
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    test_ring(0);
    test_ring(1);
    test_add();
    test_polling();
    test_comparisons();
    test_bad_input();
    return t_finish(ctx, "core_api/signal");
}
