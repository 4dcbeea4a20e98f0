/* Bad input to every core function: each returns its documented status with a message, and
 * nothing crashes, hangs or changes memory it should not. Runs on every transport configuration. */
#include "../harness.h"

#include <pthread.h>
#include <stdint.h>

static pgdds_context_t ctx;
static int me, n;

static void test_before_init(void)
{
    T_STATUS(pgdds_init(NULL, NULL), PGDDS_ERR_INVALID_ARG);
    pgdds_context_t c = NULL;
    pgdds_init_params_t p;
    memset(&p, 0, sizeof p);
    p.field_mask = PGDDS_INIT_FIELD_THREAD_LEVEL;
    p.thread_level = 42;
    T_STATUS(pgdds_init(&p, &c), PGDDS_ERR_INVALID_ARG);
    T_CHECK(c == NULL); /* outputs untouched on failure */
    p.field_mask = PGDDS_INIT_FIELD_TRANSPORT;
    p.transport = "telegraph";
    T_STATUS(pgdds_init(&p, &c), PGDDS_ERR_INVALID_ARG);
    p.field_mask = PGDDS_INIT_FIELD_NUM_VCIS;
    p.num_vcis = 0;
    T_STATUS(pgdds_init(&p, &c), PGDDS_ERR_INVALID_ARG);
    p.field_mask = PGDDS_INIT_FIELD_SEGMENT_SIZE;
    p.segment_size = 0;
    T_STATUS(pgdds_init(&p, &c), PGDDS_ERR_INVALID_ARG);
    p.field_mask = (uint64_t)1 << 40;
    T_STATUS(pgdds_init(&p, &c), PGDDS_ERR_INVALID_ARG);
    T_CHECK(c == NULL);
    /* a job id too long to name a file: refused as such, not as a lack of memory */
    const char *job = getenv("PGDDS_JOBID");
    char *saved = job ? strdup(job) : NULL, long_id[302];
    memset(long_id, 'j', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    setenv("PGDDS_JOBID", long_id, 1);
    T_STATUS(pgdds_init(NULL, &c), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "PGDDS_JOBID") != NULL);
    if (saved) setenv("PGDDS_JOBID", saved, 1);
    else unsetenv("PGDDS_JOBID");
    free(saved);
}

static void test_handles(void)
{
    int not_a_context[4] = {1, 2, 3, 4};
    pgdds_context_t bogus = (pgdds_context_t)(void *)not_a_context;
    T_STATUS(pgdds_finalize(NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_barrier(NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_barrier(bogus), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_fence(NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_fence(bogus), PGDDS_ERR_INVALID_ARG);
    T_CHECK(pgdds_rank(NULL) == -1 && pgdds_nranks(NULL) == -1);
    T_CHECK(pgdds_local_rank(NULL) == -1 && pgdds_local_nranks(NULL) == -1);
    T_CHECK(pgdds_transport_name(NULL) == NULL);
    T_CHECK(pgdds_num_vcis(NULL) == 0 && pgdds_vci_current(NULL) == -1);
    T_CHECK(pgdds_gptr_to_local(NULL, 0) == NULL);
    pgdds_net_counts_t counts;
    T_STATUS(pgdds_net_counts(NULL, &counts), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_net_counts(bogus, &counts), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_net_counts(ctx, NULL), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "counts is NULL") != NULL);
    T_CHECK(strcmp(pgdds_strerror(PGDDS_ERR_FULL), "container full") == 0);
    T_CHECK(strcmp(pgdds_strerror(12345), "unknown status") == 0);
}

static void test_segment(void)
{
    pgdds_gptr_t g = PGDDS_GPTR_NULL, keep;
    T_STATUS(pgdds_alloc(ctx, 64, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_alloc(ctx, 64, 3, &g), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_alloc(ctx, 64, (size_t)1 << 30, &g), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_alloc(ctx, (size_t)1 << 50, 0, &g), PGDDS_ERR_NO_MEMORY);
    T_CHECK(g == PGDDS_GPTR_NULL);
    size_t seg = 0;
    T_OK(pgdds_segment_size(ctx, me, &seg));
    T_STATUS(pgdds_alloc(ctx, seg, 0, &g), PGDDS_ERR_NO_MEMORY); /* the header is reserved */
    T_STATUS(pgdds_segment_size(ctx, n, &seg), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_segment_size(ctx, 0, NULL), PGDDS_ERR_INVALID_ARG);

    T_OK(pgdds_alloc(ctx, 64, 0, &keep));
    T_STATUS(pgdds_free(ctx, PGDDS_GPTR_NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_free(ctx, pgdds_gptr_add(keep, 8)), PGDDS_ERR_INVALID_ARG);
    pgdds_gptr_t *all = calloc((size_t)n, sizeof *all);
    T_OK(pgdds_allgather(ctx, &keep, all, sizeof keep));
    if (n > 1) T_STATUS(pgdds_free(ctx, all[(me + 1) % n]), PGDDS_ERR_INVALID_ARG); /* not my segment */
    T_OK(pgdds_alloc(ctx, 32, 0, &g));
    T_OK(pgdds_free(ctx, g));
    T_STATUS(pgdds_free(ctx, g), PGDDS_ERR_INVALID_ARG); /* double free */

    int on_stack = 0;
    pgdds_gptr_t out = 7;
    T_STATUS(pgdds_gptr_from_local(ctx, &on_stack, &out), PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK(out == 7);
    T_STATUS(pgdds_gptr_from_local(ctx, NULL, &out), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_gptr_from_local(ctx, &on_stack, NULL), PGDDS_ERR_INVALID_ARG);
    T_CHECK(pgdds_gptr_to_local(ctx, PGDDS_GPTR_NULL) == NULL);
    free(all);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_free(ctx, keep));
}

/* Global pointers that name no valid memory, in every way one can get that wrong. */
static void test_rma_bounds(void)
{
    pgdds_gptr_t mine;
    T_OK(pgdds_alloc(ctx, 64, 0, &mine));
    pgdds_gptr_t *all = calloc((size_t)n, sizeof *all);
    memset(pgdds_gptr_to_local(ctx, mine), 0xab, 64);
    T_OK(pgdds_allgather(ctx, &mine, all, sizeof mine));
    pgdds_gptr_t peer = all[(me + 1) % n];
    size_t seg = 0;
    T_OK(pgdds_segment_size(ctx, (me + 1) % n, &seg));
    const int rank_shift = PGDDS_GPTR_OFFSET_BITS + PGDDS_GPTR_SEGMENT_BITS;
    pgdds_gptr_t bad_rank = ((pgdds_gptr_t)(unsigned)n << rank_shift) | 8192;
    /* Segment 3 is reserved (1 is the device segment: tests/gpu/absent.c covers it). */
    pgdds_gptr_t bad_segment = peer | ((pgdds_gptr_t)3 << PGDDS_GPTR_OFFSET_BITS);
    pgdds_gptr_t reserved = pgdds_gptr_add(peer, -(int64_t)pgdds_gptr_offset(peer) + 8);
    pgdds_gptr_t end = pgdds_gptr_add(peer, (int64_t)(seg - pgdds_gptr_offset(peer)) - 32);
    char buf[64] = {0};
    pgdds_request_t req = NULL;

    T_STATUS(pgdds_put(ctx, PGDDS_GPTR_NULL, buf, 8), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_get(ctx, buf, PGDDS_GPTR_NULL, 8), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_put(ctx, bad_rank, buf, 8), PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK(strstr(pgdds_last_error(), "rank") != NULL);
    T_STATUS(pgdds_get(ctx, buf, bad_segment, 8), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_put(ctx, reserved, buf, 8), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_put(ctx, end, buf, 64), PGDDS_ERR_OUT_OF_BOUNDS); /* overruns the segment by 32 */
    T_CHECK(strstr(pgdds_last_error(), "overrun") != NULL && strstr(pgdds_last_error(), "pgdds_put") != NULL);
    T_OK(pgdds_put(ctx, end, buf, 32));                               /* exactly to the end: fine */
    T_STATUS(pgdds_get(ctx, buf, end, 33), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_put_nbi(ctx, end, buf, 64), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_get_nbi(ctx, buf, bad_rank, 8), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_put_nb(ctx, end, buf, 64, &req), PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK(req == NULL);
    T_STATUS(pgdds_get_nb(ctx, buf, bad_segment, 8, &req), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_put(ctx, peer, NULL, 8), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_get(ctx, NULL, peer, 8), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_put_nb(ctx, peer, buf, 8, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_get_nb(ctx, buf, peer, 8, NULL), PGDDS_ERR_INVALID_ARG);
    /* huge lengths must not wrap around the bounds check */
    T_STATUS(pgdds_get(ctx, buf, peer, SIZE_MAX - 4), PGDDS_ERR_OUT_OF_BOUNDS);
    T_OK(pgdds_put(ctx, peer, buf, 0)); /* zero bytes: fine */

    /* requests */
    int done = 5;
    T_STATUS(pgdds_test(ctx, NULL, &done), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_wait(ctx, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_get_nb(ctx, buf, peer, 8, &req));
    T_STATUS(pgdds_test(ctx, req, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_wait(ctx, req));

    /* atomics */
    uint64_t f = 0;
    uint32_t f32 = 0;
    T_STATUS(pgdds_atomic_u64(ctx, pgdds_gptr_add(peer, 4), PGDDS_AOP_ADD, 1, &f), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "aligned") != NULL);
    T_STATUS(pgdds_atomic_u32(ctx, pgdds_gptr_add(peer, 2), PGDDS_AOP_ADD, 1, &f32), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_cswap_u64(ctx, pgdds_gptr_add(peer, 12), 0, 1, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_u64(ctx, peer, (pgdds_aop_t)99, 1, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_u32(ctx, peer, (pgdds_aop_t)-1, 1, &f32), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_cswap_u64(ctx, peer, 0, 1, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_cswap_u32(ctx, peer, 0, 1, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_load_u64(ctx, peer, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_u64(ctx, bad_rank, PGDDS_AOP_ADD, 1, NULL), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_atomic_u64(ctx, pgdds_gptr_add(end, 32), PGDDS_AOP_ADD, 1, NULL), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_atomic_load_u32(ctx, PGDDS_GPTR_NULL, &f32), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_u64_nbi(ctx, pgdds_gptr_add(peer, 4), PGDDS_AOP_ADD, 1), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "pgdds_atomic_u64_nbi") != NULL);
    T_STATUS(pgdds_atomic_u32_nbi(ctx, pgdds_gptr_add(peer, 2), PGDDS_AOP_OR, 1), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_u64_nbi(ctx, peer, (pgdds_aop_t)99, 1), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_u32_nbi(ctx, peer, (pgdds_aop_t)-1, 1), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_u32_nbi(ctx, bad_rank, PGDDS_AOP_ADD, 1), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_atomic_u64_nbi(ctx, pgdds_gptr_add(end, 32), PGDDS_AOP_XOR, 1), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_atomic_u32_nbi(ctx, PGDDS_GPTR_NULL, PGDDS_AOP_ADD, 1), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_u64_nbi(NULL, peer, PGDDS_AOP_ADD, 1), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_flush(ctx)); /* nothing refused was left in flight */
    T_CHECK(f == 0 && f32 == 0); /* outputs untouched on failure */

    T_OK(pgdds_barrier(ctx));
    /* None of the refused operations of the left neighbour touched my block. */
    const unsigned char *m = pgdds_gptr_to_local(ctx, mine);
    int changed = 0;
    for (int i = 0; i < 64; ++i) changed += m[i] != 0xab;
    T_CHECK_MSG(changed == 0, "%d bytes of a block changed by refused operations", changed);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_free(ctx, mine));
    free(all);
}

static void test_collectives(void)
{
    char buf[16] = {0};
    T_STATUS(pgdds_broadcast(ctx, buf, 8, -1), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_broadcast(ctx, buf, 8, n), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_broadcast(ctx, NULL, 8, 0), PGDDS_ERR_INVALID_ARG);
    double d = 1, o;
    T_STATUS(pgdds_allreduce(ctx, &d, &o, 1, PGDDS_DOUBLE, PGDDS_OP_BXOR), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_allreduce(ctx, &d, &o, 1, (pgdds_dtype_t)17, PGDDS_OP_SUM), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_allreduce(ctx, &d, &o, 1, PGDDS_DOUBLE, (pgdds_op_t)17), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_allreduce(ctx, NULL, &o, 1, PGDDS_DOUBLE, PGDDS_OP_SUM), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_allreduce(ctx, &d, &o, SIZE_MAX / 2, PGDDS_DOUBLE, PGDDS_OP_SUM), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_allgather(ctx, NULL, buf, 8), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_allgather(ctx, buf, NULL, 8), PGDDS_ERR_INVALID_ARG);
    /* Ranks disagreeing on a size: every rank fails, and nobody hangs (tests/faults/mismatch.c
     * tries every kind of disagreement). */
    if (n > 1) {
        uint64_t big[2] = {1, 2};
        T_STATUS(pgdds_broadcast(ctx, big, me == 0 ? 8 : 16, 0), PGDDS_ERR_INVALID_ARG);
        T_CHECK(strstr(pgdds_last_error(), "do not match") != NULL);
        uint64_t s[2];
        T_STATUS(pgdds_allreduce(ctx, big, s, me == n - 1 ? 2 : 1, PGDDS_UINT64, PGDDS_OP_SUM), PGDDS_ERR_INVALID_ARG);
        /* and the next collective works again */
        int64_t one = 1, sum = 0;
        T_OK(pgdds_allreduce(ctx, &one, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM));
        T_CHECK(sum == n);
    }
}

/* Symmetric allocation and signals: NULLs, bad contexts, remote words, misuse. */
static void test_symmetric_and_signals(void)
{
    int not_a_context[4] = {1, 2, 3, 4};
    pgdds_context_t bogus = (pgdds_context_t)(void *)not_a_context;
    pgdds_gptr_t s = PGDDS_GPTR_NULL, out = PGDDS_GPTR_NULL, priv;
    uint64_t v = 0;
    int ok = 0;
    char buf[16] = {0};
    T_STATUS(pgdds_alloc_all(NULL, 8, 0, 0, &s), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_alloc_all(bogus, 8, 0, 0, &s), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_free_all(NULL, s), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_gptr_at(NULL, s, 0, &out), PGDDS_ERR_INVALID_ARG);
    /* Collective refusals: every rank passes the same bad input, every rank fails. */
    T_STATUS(pgdds_alloc_all(ctx, 8, 0, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_alloc_all(ctx, 8, 0, 0x80, &s), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_alloc_all(ctx, 8, 3, 0, &s), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_alloc_all(ctx, (size_t)1 << 50, 0, 0, &s), PGDDS_ERR_NO_MEMORY);
    T_CHECK(s == PGDDS_GPTR_NULL);
    T_STATUS(pgdds_free_all(ctx, PGDDS_GPTR_NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_alloc(ctx, 16, 0, &priv));
    T_STATUS(pgdds_free_all(ctx, priv), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_gptr_at(ctx, priv, 0, &out), PGDDS_ERR_INVALID_ARG);

    T_OK(pgdds_alloc_all(ctx, 16, 8, PGDDS_ALLOC_ZERO, &s));
    T_STATUS(pgdds_gptr_at(ctx, s, n, &out), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_gptr_at(ctx, s, -1, &out), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_gptr_at(ctx, s, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_CHECK(out == PGDDS_GPTR_NULL);
    T_STATUS(pgdds_put_signal(NULL, priv, buf, 8, s, 1, PGDDS_SIGNAL_SET), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_put_signal(bogus, priv, buf, 8, s, 1, PGDDS_SIGNAL_SET), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_put_signal_nbi(ctx, priv, NULL, 8, s, 1, PGDDS_SIGNAL_SET), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_put_signal(ctx, priv, buf, 8, PGDDS_GPTR_NULL, 1, PGDDS_SIGNAL_ADD), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_put_signal(ctx, priv, buf, 8, s, 1, (pgdds_signal_op_t)7), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_signal_fetch(NULL, s, &v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_signal_fetch(ctx, s, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_wait_until_u64(NULL, s, PGDDS_CMP_EQ, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_wait_until_u32(bogus, s, PGDDS_CMP_EQ, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_test_until_u64(ctx, s, PGDDS_CMP_EQ, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_test_until_u32(ctx, pgdds_gptr_add(s, 2), PGDDS_CMP_EQ, 0, &ok), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_wait_until_u64(ctx, s, (pgdds_cmp_t)99, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_wait_until_u64(ctx, pgdds_gptr_add(s, (int64_t)1 << 38), PGDDS_CMP_EQ, 0), PGDDS_ERR_OUT_OF_BOUNDS);
    if (n > 1) {
        pgdds_gptr_t remote;
        T_OK(pgdds_gptr_at(ctx, s, (me + 1) % n, &remote));
        T_STATUS(pgdds_wait_until_u64(ctx, remote, PGDDS_CMP_EQ, 0), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_test_until_u64(ctx, remote, PGDDS_CMP_EQ, 0, &ok), PGDDS_ERR_INVALID_ARG);
    }
    T_OK(pgdds_free(ctx, priv));
    T_OK(pgdds_free_all(ctx, s));
    T_STATUS(pgdds_free_all(ctx, s), PGDDS_ERR_INVALID_ARG); /* twice */
}

static void on_msg(pgdds_context_t c, int src, const void *p, size_t sz, void *arg)
{
    (void)c, (void)src, (void)p, (void)sz, (void)arg;
}

static void test_active_messages(void)
{
    uint32_t id = 0;
    T_STATUS(pgdds_am_register(ctx, NULL, NULL, &id), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_am_register(ctx, on_msg, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_am_register(ctx, on_msg, NULL, &id));
    char b[8] = {0};
    T_STATUS(pgdds_am_send(ctx, n, id, b, 8), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_am_send(ctx, -1, id, b, 8), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_am_send(ctx, 0, id + 100, b, 8), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_am_send(ctx, 0, 0, b, 8), PGDDS_ERR_INVALID_ARG); /* internal ids are not user handlers */
    T_STATUS(pgdds_am_send(ctx, 0, id, NULL, 8), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_am_send(ctx, 0, id, b, PGDDS_AM_MAX_PAYLOAD + 1), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_vci_bind(ctx, pgdds_num_vcis(ctx)), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_vci_bind(ctx, 0));
    T_CHECK(pgdds_vci_current(ctx) == 0);
}

/* PGDDS_THREAD_SINGLE (the default): another thread is refused with PGDDS_ERR_STATE. */
static void *other_thread(void *arg)
{
    pgdds_gptr_t *g = arg;
    uint64_t v = 0;
    static pgdds_status_t results[3];
    results[0] = pgdds_put(ctx, *g, &v, 8);
    results[1] = pgdds_barrier(ctx);
    results[2] = pgdds_atomic_u64(ctx, *g, PGDDS_AOP_ADD, 1, NULL);
    return results;
}

static void test_thread_level(void)
{
    pgdds_gptr_t g;
    T_OK(pgdds_alloc(ctx, 8, 8, &g));
    pthread_t t;
    void *res = NULL;
    T_CHECK(pthread_create(&t, NULL, other_thread, &g) == 0);
    pthread_join(t, &res);
    pgdds_status_t *r = res;
    T_CHECK(r[0] == PGDDS_ERR_STATE && r[1] == PGDDS_ERR_STATE && r[2] == PGDDS_ERR_STATE);
    T_OK(pgdds_free(ctx, g));
}

int main(void)
{
    test_before_init();
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    test_handles();
    test_segment();
    test_rma_bounds();
    test_collectives();
    test_symmetric_and_signals();
    test_active_messages();
    test_thread_level();
    pgdds_context_t dead = ctx;
    int verdict = t_finish(ctx, "conformance/bad_input");
    /* A finalized context is recognised, not dereferenced. */
    char b[8];
    T_STATUS(pgdds_put(dead, 1, b, 8), PGDDS_ERR_STATE);
    T_CHECK(strstr(pgdds_last_error(), "finalized") != NULL);
    T_STATUS(pgdds_finalize(dead), PGDDS_ERR_STATE);
    T_STATUS(pgdds_flush(dead), PGDDS_ERR_STATE);
    T_STATUS(pgdds_fence(dead), PGDDS_ERR_STATE);
    pgdds_net_counts_t counts;
    T_STATUS(pgdds_net_counts(dead, &counts), PGDDS_ERR_STATE);
    T_STATUS(pgdds_atomic_u32_nbi(dead, 1, PGDDS_AOP_ADD, 1), PGDDS_ERR_STATE);
    T_STATUS(pgdds_alloc_all(dead, 8, 0, 0, &(pgdds_gptr_t){0}), PGDDS_ERR_STATE);
    T_STATUS(pgdds_wait_until_u64(dead, 1, PGDDS_CMP_EQ, 0), PGDDS_ERR_STATE);
    T_STATUS(pgdds_put_signal(dead, 1, b, 8, 1, 1, PGDDS_SIGNAL_SET), PGDDS_ERR_STATE);
    T_CHECK(pgdds_rank(dead) == -1);
    return verdict || t_failures ? 1 : 0;
}
