/* Symmetric allocation: pgdds_alloc_all gives every rank a block at the same offset, any rank's
 * copy is reachable through pgdds_gptr_at, PGDDS_ALLOC_ZERO zeroes every copy, and a call that
 * disagrees or fails on one rank fails on every rank and leaves the heaps as they were. */
#include "../harness.h"

#include <stdint.h>

static pgdds_context_t ctx;
static int me, n;

/* Every rank got the same offset. */
static int same_everywhere(pgdds_gptr_t p)
{
    uint64_t off = pgdds_gptr_offset(p), range[2] = {off, ~off}, out[2];
    if (pgdds_allreduce(ctx, range, out, 2, PGDDS_UINT64, PGDDS_OP_MAX) != PGDDS_OK) return 0;
    return out[0] == off && ~out[1] == off;
}

static void test_addressing(void)
{
    pgdds_gptr_t slots;
    T_OK(pgdds_alloc_all(ctx, (size_t)n * sizeof(uint64_t), 8, PGDDS_ALLOC_ZERO, &slots));
    T_CHECK(pgdds_gptr_rank(slots) == me);
    T_CHECK(same_everywhere(slots));
    /* Each rank writes its number into slot `me` of every rank's copy. */
    for (int r = 0; r < n; ++r) {
        pgdds_gptr_t there;
        T_OK(pgdds_gptr_at(ctx, slots, r, &there));
        T_CHECK(pgdds_gptr_rank(there) == r && pgdds_gptr_offset(there) == pgdds_gptr_offset(slots));
        uint64_t v = 1000 + (uint64_t)me;
        T_OK(pgdds_put(ctx, pgdds_gptr_add(there, (int64_t)me * 8), &v, sizeof v));
    }
    T_OK(pgdds_barrier(ctx));
    uint64_t *mine = pgdds_gptr_to_local(ctx, slots);
    T_CHECK(mine != NULL);
    for (int r = 0; mine && r < n; ++r) T_CHECK_MSG(mine[r] == 1000 + (uint64_t)r, "slot %d holds %llu", r, (unsigned long long)mine[r]);

    /* An interior pointer moves too; everyone counts on rank n-1's first word. */
    pgdds_gptr_t last;
    T_OK(pgdds_gptr_at(ctx, pgdds_gptr_add(slots, 8), n - 1, &last));
    T_CHECK(pgdds_gptr_rank(last) == n - 1 && pgdds_gptr_offset(last) == pgdds_gptr_offset(slots) + 8);
    T_OK(pgdds_free_all(ctx, slots));
}

static void test_zeroed_and_reuse(void)
{
    pgdds_gptr_t a, b;
    T_OK(pgdds_alloc_all(ctx, 4096, 0, 0, &a));
    memset(pgdds_gptr_to_local(ctx, a), 0xab, 4096);
    T_OK(pgdds_free_all(ctx, a));
    /* The same call lands at the same place, and this time every byte is zero. */
    T_OK(pgdds_alloc_all(ctx, 4096, 0, PGDDS_ALLOC_ZERO, &b));
    T_CHECK(pgdds_gptr_offset(b) == pgdds_gptr_offset(a));
    const unsigned char *p = pgdds_gptr_to_local(ctx, b);
    size_t nonzero = 0;
    for (size_t i = 0; i < 4096; ++i) nonzero += p[i] != 0;
    T_CHECK_MSG(nonzero == 0, "%zu bytes are not zero", nonzero);
    T_OK(pgdds_free_all(ctx, b));
}

/* Many blocks of different sizes and alignments, freed in another order: the offsets agree. */
static void test_many(void)
{
    enum { K = 40 };
    pgdds_gptr_t p[K];
    for (int i = 0; i < K; ++i) {
        T_OK(pgdds_alloc_all(ctx, (size_t)(1 + i * 37 % 5000), (size_t)1 << (4 + i % 8), 0, &p[i]));
        T_CHECK(pgdds_gptr_offset(p[i]) % ((uint64_t)1 << (4 + i % 8)) == 0);
        T_CHECK(same_everywhere(p[i]));
    }
    for (int i = 0; i < K; i += 2) T_OK(pgdds_free_all(ctx, p[i]));
    for (int i = 0; i < K; i += 2) {
        T_OK(pgdds_alloc_all(ctx, 24, 0, 0, &p[i]));
        T_CHECK(same_everywhere(p[i]));
    }
    for (int i = K - 1; i >= 0; --i) T_OK(pgdds_free_all(ctx, p[i]));
}

static void test_disagreement(void)
{
    pgdds_gptr_t before, g = PGDDS_GPTR_NULL, after;
    T_OK(pgdds_alloc_all(ctx, 64, 0, 0, &before));
    T_OK(pgdds_free_all(ctx, before));
    if (n > 1) {
        T_STATUS(pgdds_alloc_all(ctx, 64 + (size_t)me * 8, 0, 0, &g), PGDDS_ERR_INVALID_ARG);
        T_CHECK(strstr(pgdds_last_error(), "different sizes") != NULL);
        T_CHECK(g == PGDDS_GPTR_NULL);
        T_STATUS(pgdds_alloc_all(ctx, 64, me ? 64 : 16, 0, &g), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_alloc_all(ctx, 64, 0, me ? PGDDS_ALLOC_ZERO : 0, &g), PGDDS_ERR_INVALID_ARG);
        /* Bad input on one rank fails the call everywhere. */
        T_STATUS(pgdds_alloc_all(ctx, 64, 0, 0, me == 0 ? NULL : &g), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_alloc_all(ctx, 64, me == n - 1 ? 3 : 0, 0, &g), PGDDS_ERR_INVALID_ARG);
        T_CHECK(g == PGDDS_GPTR_NULL);
    }
    /* Nothing of the failed calls is left: the next block goes where the first one went. */
    T_OK(pgdds_alloc_all(ctx, 64, 0, 0, &after));
    T_CHECK(pgdds_gptr_offset(after) == pgdds_gptr_offset(before));

    /* free_all: not a symmetric block, one rank's bad pointer, different blocks, twice. */
    pgdds_gptr_t priv, other;
    T_OK(pgdds_alloc(ctx, 64, 0, &priv));
    T_STATUS(pgdds_free_all(ctx, priv), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "symmetric") != NULL);
    T_STATUS(pgdds_free(ctx, after), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "pgdds_free_all") != NULL);
    T_STATUS(pgdds_free_all(ctx, PGDDS_GPTR_NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_alloc_all(ctx, 128, 0, 0, &other));
    if (n > 1) {
        T_STATUS(pgdds_free_all(ctx, me == 0 ? priv : after), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_free_all(ctx, me == 0 ? other : after), PGDDS_ERR_INVALID_ARG);
        T_CHECK(strstr(pgdds_last_error(), "different blocks") != NULL);
    }
    /* Both blocks are still live on every rank. */
    pgdds_gptr_t there;
    T_OK(pgdds_gptr_at(ctx, after, (me + 1) % n, &there));
    T_OK(pgdds_free_all(ctx, there)); /* any rank's copy names the block */
    T_OK(pgdds_free_all(ctx, other));
    T_STATUS(pgdds_free_all(ctx, other), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_free(ctx, priv));
}

static void test_gptr_at_errors(void)
{
    pgdds_gptr_t s, priv, out = PGDDS_GPTR_NULL;
    T_OK(pgdds_alloc_all(ctx, 64, 0, 0, &s));
    T_OK(pgdds_alloc(ctx, 64, 0, &priv));
    T_STATUS(pgdds_gptr_at(ctx, s, n, &out), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_gptr_at(ctx, s, -1, &out), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_gptr_at(ctx, s, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_gptr_at(ctx, priv, 0, &out), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_gptr_at(ctx, PGDDS_GPTR_NULL, 0, &out), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_gptr_at(ctx, pgdds_gptr_add(s, 64), 0, &out), PGDDS_ERR_INVALID_ARG); /* one past the end */
    T_STATUS(pgdds_gptr_at(NULL, s, 0, &out), PGDDS_ERR_INVALID_ARG);
    T_CHECK(out == PGDDS_GPTR_NULL);
    T_OK(pgdds_free(ctx, priv));
    T_OK(pgdds_free_all(ctx, s));
    T_STATUS(pgdds_gptr_at(ctx, s, 0, &out), PGDDS_ERR_INVALID_ARG); /* freed */
}

/* One rank's segment is full below the symmetric heap: the call fails on every rank, with that
 * rank's status, and the heaps stay as they were. */
static void test_no_memory(void)
{
    pgdds_gptr_t g = PGDDS_GPTR_NULL, keep;
    size_t seg = 0;
    T_OK(pgdds_segment_size(ctx, me, &seg));
    T_STATUS(pgdds_alloc_all(ctx, seg, 0, 0, &g), PGDDS_ERR_NO_MEMORY);
    T_OK(pgdds_alloc_all(ctx, 64, 0, 0, &keep));

    enum { MAX_BLOCKS = 4096 };
    static pgdds_gptr_t blocks[MAX_BLOCKS];
    int count = 0;
    if (me == 0) /* fill rank 0's own allocator up to the symmetric heap */
        while (count < MAX_BLOCKS && pgdds_alloc(ctx, (size_t)1 << 20, 0, &blocks[count]) == PGDDS_OK) ++count;
    T_STATUS(pgdds_alloc_all(ctx, (size_t)2 << 20, 0, 0, &g), PGDDS_ERR_NO_MEMORY);
    T_CHECK(g == PGDDS_GPTR_NULL);
    if (me != 0) T_CHECK(strstr(pgdds_last_error(), "another rank") != NULL);
    for (int i = 0; i < count; ++i) T_OK(pgdds_free(ctx, blocks[i]));
    T_OK(pgdds_alloc_all(ctx, (size_t)2 << 20, 0, 0, &g));
    T_CHECK(same_everywhere(g));
    T_OK(pgdds_free_all(ctx, g));
    T_OK(pgdds_free_all(ctx, keep));
}

/* Static data (pgdds_map_static_data): bad input fails on every rank; then a global keeps its
 * initial values, has the same global pointer offset on every rank, and takes puts. */
static long s_words[4] = {1, 2, 3, 4};

static void test_static_data(void)
{
    pgdds_gptr_t g = PGDDS_GPTR_NULL;
    T_STATUS(pgdds_gptr_from_local(ctx, &s_words[1], &g), PGDDS_ERR_OUT_OF_BOUNDS);   /* not mapped yet */
    T_STATUS(pgdds_map_static_data(NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_map_static_data(ctx, 1), PGDDS_ERR_INVALID_ARG);   /* every rank, collectively */
    T_CHECK(strstr(pgdds_last_error(), "flags") != NULL);
    T_OK(pgdds_map_static_data(ctx, 0));
    T_OK(pgdds_map_static_data(ctx, 0));   /* again: nothing to do */
    T_STATUS(pgdds_map_static_data(ctx, 2), PGDDS_ERR_INVALID_ARG);
    T_CHECK(s_words[0] == 1 && s_words[3] == 4);
    T_OK(pgdds_gptr_from_local(ctx, &s_words[1], &g));
    T_CHECK(pgdds_gptr_rank(g) == me);
    T_CHECK(same_everywhere(g));
    T_CHECK(pgdds_gptr_to_local(ctx, g) != NULL && *(long *)pgdds_gptr_to_local(ctx, g) == 2);
    pgdds_gptr_t there;
    T_OK(pgdds_gptr_at(ctx, g, (me + 1) % n, &there));
    long v = 100 + me;
    T_OK(pgdds_barrier(ctx));   /* every rank has read its own copy */
    T_OK(pgdds_put(ctx, there, &v, sizeof v));
    T_OK(pgdds_barrier(ctx));
    T_CHECK(s_words[1] == 100 + (me + n - 1) % n);
    T_CHECK(s_words[0] == 1 && s_words[2] == 3);
}

int main(void)
{
    pgdds_init_params_t p;
    memset(&p, 0, sizeof p);
    p.field_mask = PGDDS_INIT_FIELD_SEGMENT_SIZE;
    p.segment_size = (size_t)32 << 20;
    ctx = t_init(&p);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    test_addressing();
    test_zeroed_and_reuse();
    test_many();
    test_disagreement();
    test_gptr_at_errors();
    test_no_memory();
    test_static_data();
    return t_finish(ctx, "core_api/symmetric");
}
