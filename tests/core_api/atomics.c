/* Signed, MIN/MAX and floating-point atomics: exact results under contention from every rank,
 * signed against unsigned comparison, bitwise compare-and-swap of floats, and refusals. */
#include "../harness.h"

#include <math.h>
#include <stdint.h>

static pgdds_context_t ctx;
static int me, n;

/* A zeroed symmetric block of `bytes`, and rank 0's copy of it. */
static pgdds_gptr_t on_rank0(size_t bytes, pgdds_gptr_t *mine)
{
    pgdds_gptr_t there = PGDDS_GPTR_NULL;
    T_OK(pgdds_alloc_all(ctx, bytes, 8, PGDDS_ALLOC_ZERO, mine));
    T_OK(pgdds_gptr_at(ctx, *mine, 0, &there));
    return there;
}

static void test_contention(void)
{
    enum { ROUNDS = 100 };
    pgdds_gptr_t block, w = on_rank0(64, &block);
    pgdds_gptr_t dsum = w, fsum = pgdds_gptr_add(w, 8), imax = pgdds_gptr_add(w, 16), imin = pgdds_gptr_add(w, 24);
    pgdds_gptr_t i32min = pgdds_gptr_add(w, 32), dmax = pgdds_gptr_add(w, 40), umax = pgdds_gptr_add(w, 48);
    int64_t last_max = INT64_MIN;
    int monotonic = 1;
    for (int i = 0; i < ROUNDS; ++i) {
        double dold;
        T_OK(pgdds_atomic_double(ctx, dsum, PGDDS_AOP_ADD, 0.5, &dold));
        T_OK(pgdds_atomic_float(ctx, fsum, PGDDS_AOP_ADD, 0.25f, NULL));
        int64_t seen;
        T_OK(pgdds_atomic_i64(ctx, imax, PGDDS_AOP_MAX, (int64_t)me * 1000 + i, &seen));
        monotonic &= seen >= last_max; /* the maximum never goes down */
        last_max = seen;
        T_OK(pgdds_atomic_i64(ctx, imin, PGDDS_AOP_MIN, -((int64_t)me * 1000 + i), NULL));
        T_OK(pgdds_atomic_i32(ctx, i32min, PGDDS_AOP_MIN, -(int32_t)(me * 100 + i), NULL));
        T_OK(pgdds_atomic_double(ctx, dmax, PGDDS_AOP_MAX, me + i / 1000.0, NULL));
        T_OK(pgdds_atomic_u64_nbi(ctx, umax, PGDDS_AOP_MAX, (uint64_t)me * 1000 + (uint64_t)i));
    }
    T_CHECK(monotonic);
    T_OK(pgdds_flush(ctx));
    T_OK(pgdds_barrier(ctx));
    double d;
    float f;
    int64_t i64;
    int32_t i32;
    uint64_t u64;
    T_OK(pgdds_atomic_double(ctx, dsum, PGDDS_AOP_ADD, 0, &d));
    T_CHECK_MSG(d == 0.5 * ROUNDS * n, "double sum %.17g", d);
    T_OK(pgdds_atomic_float(ctx, fsum, PGDDS_AOP_ADD, 0, &f));
    T_CHECK_MSG(f == 0.25f * ROUNDS * (float)n, "float sum %.9g", (double)f);
    T_OK(pgdds_atomic_i64(ctx, imax, PGDDS_AOP_ADD, 0, &i64));
    T_CHECK(i64 == (int64_t)(n - 1) * 1000 + ROUNDS - 1);
    T_OK(pgdds_atomic_i64(ctx, imin, PGDDS_AOP_ADD, 0, &i64));
    T_CHECK(i64 == -((int64_t)(n - 1) * 1000 + ROUNDS - 1));
    T_OK(pgdds_atomic_i32(ctx, i32min, PGDDS_AOP_ADD, 0, &i32));
    T_CHECK(i32 == -(int32_t)((n - 1) * 100 + ROUNDS - 1));
    T_OK(pgdds_atomic_double(ctx, dmax, PGDDS_AOP_ADD, 0, &d));
    T_CHECK_MSG(d == (n - 1) + (ROUNDS - 1) / 1000.0, "double max %.17g", d);
    T_OK(pgdds_atomic_load_u64(ctx, umax, &u64));
    T_CHECK(u64 == (uint64_t)(n - 1) * 1000 + ROUNDS - 1);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_free_all(ctx, block));
}

/* Each rank on a word of its own: what each operation means. */
static void test_semantics(void)
{
    pgdds_gptr_t w;
    T_OK(pgdds_alloc(ctx, 16, 8, &w));
    int64_t i64;
    uint64_t u64;
    T_OK(pgdds_atomic_i64(ctx, w, PGDDS_AOP_SWAP, -5, NULL));
    T_OK(pgdds_atomic_i64(ctx, w, PGDDS_AOP_MIN, 3, &i64));
    T_CHECK(i64 == -5);
    T_OK(pgdds_atomic_i64(ctx, w, PGDDS_AOP_ADD, 0, &i64));
    T_CHECK(i64 == -5); /* signed: -5 < 3 */
    T_OK(pgdds_atomic_u64(ctx, w, PGDDS_AOP_MIN, 3, &u64));
    T_CHECK(u64 == (uint64_t)-5);
    T_OK(pgdds_atomic_u64(ctx, w, PGDDS_AOP_ADD, 0, &u64));
    T_CHECK(u64 == 3); /* unsigned: 3 < 2^64 - 5 */
    T_OK(pgdds_atomic_i64(ctx, w, PGDDS_AOP_ADD, -10, &i64));
    T_CHECK(i64 == 3);
    T_OK(pgdds_atomic_i64(ctx, w, PGDDS_AOP_XOR, -1, &i64));
    T_CHECK(i64 == -7);
    int64_t old;
    T_OK(pgdds_atomic_cswap_i64(ctx, w, 6, -42, &old));
    T_CHECK(old == 6);
    T_OK(pgdds_atomic_cswap_i64(ctx, w, 6, 0, &old));
    T_CHECK(old == -42);

    int32_t i32;
    T_OK(pgdds_atomic_i32(ctx, pgdds_gptr_add(w, 8), PGDDS_AOP_SWAP, -7, NULL));
    T_OK(pgdds_atomic_i32(ctx, pgdds_gptr_add(w, 8), PGDDS_AOP_MAX, -9, &i32));
    T_CHECK(i32 == -7);
    T_OK(pgdds_atomic_cswap_i32(ctx, pgdds_gptr_add(w, 8), -7, 11, &i32));
    T_CHECK(i32 == -7);
    T_OK(pgdds_atomic_u32(ctx, pgdds_gptr_add(w, 8), PGDDS_AOP_MAX, 12, NULL));
    T_OK(pgdds_atomic_i32(ctx, pgdds_gptr_add(w, 8), PGDDS_AOP_ADD, 0, &i32));
    T_CHECK(i32 == 12);

    /* Floats: compare-and-swap compares bits; a NaN operand never wins MIN or MAX. */
    double d, dold;
    T_OK(pgdds_atomic_double(ctx, w, PGDDS_AOP_SWAP, 0.0, NULL));
    T_OK(pgdds_atomic_cswap_double(ctx, w, -0.0, 1.5, &dold));
    T_CHECK(dold == 0.0 && !signbit(dold));
    T_OK(pgdds_atomic_double(ctx, w, PGDDS_AOP_ADD, 0, &d));
    T_CHECK(d == 0.0); /* -0.0 did not match 0.0 */
    T_OK(pgdds_atomic_cswap_double(ctx, w, 0.0, 1.5, &dold));
    T_OK(pgdds_atomic_double(ctx, w, PGDDS_AOP_MIN, NAN, &d));
    T_CHECK(d == 1.5);
    T_OK(pgdds_atomic_double(ctx, w, PGDDS_AOP_MAX, -INFINITY, NULL));
    T_OK(pgdds_atomic_double(ctx, w, PGDDS_AOP_MIN, -2.25, &d));
    T_CHECK(d == 1.5);
    T_OK(pgdds_atomic_double(ctx, w, PGDDS_AOP_SWAP, 4.0, &d));
    T_CHECK(d == -2.25);
    float f, fold;
    T_OK(pgdds_atomic_float(ctx, pgdds_gptr_add(w, 12), PGDDS_AOP_SWAP, 2.5f, NULL));
    T_OK(pgdds_atomic_float(ctx, pgdds_gptr_add(w, 12), PGDDS_AOP_MAX, 3.0f, &f));
    T_CHECK(f == 2.5f);
    T_OK(pgdds_atomic_cswap_float(ctx, pgdds_gptr_add(w, 12), 3.0f, -1.0f, &fold));
    T_CHECK(fold == 3.0f);
    T_OK(pgdds_atomic_float(ctx, pgdds_gptr_add(w, 12), PGDDS_AOP_ADD, 0.5f, &f));
    T_CHECK(f == -1.0f);
    T_OK(pgdds_free(ctx, w));
}

static void test_bad_input(void)
{
    pgdds_gptr_t w;
    T_OK(pgdds_alloc(ctx, 16, 8, &w));
    double d = 0;
    float f = 0;
    int64_t i = 0;
    T_OK(pgdds_atomic_u64(ctx, w, PGDDS_AOP_SWAP, 77, NULL));
    T_STATUS(pgdds_atomic_double(ctx, w, PGDDS_AOP_AND, 1.0, &d), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_float(ctx, w, PGDDS_AOP_XOR, 1.0f, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_i64(ctx, w, (pgdds_aop_t)7, 1, &i), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_u64(ctx, w, (pgdds_aop_t)-1, 1, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_double(ctx, pgdds_gptr_add(w, 4), PGDDS_AOP_ADD, 1.0, &d), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_i64(ctx, pgdds_gptr_add(w, 4), PGDDS_AOP_MIN, 1, &i), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_cswap_double(ctx, w, 0, 1, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_cswap_i32(ctx, w, 0, 1, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_float(NULL, w, PGDDS_AOP_ADD, 1.0f, &f), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_i32(ctx, PGDDS_GPTR_NULL, PGDDS_AOP_MAX, 1, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_atomic_double(ctx, pgdds_gptr_add(w, (int64_t)1 << 38), PGDDS_AOP_MAX, 1, NULL),
             PGDDS_ERR_OUT_OF_BOUNDS);
    T_OK(pgdds_atomic_load_u64(ctx, w, (uint64_t *)&i));
    T_CHECK(i == 77); /* nothing refused changed the word */
    T_OK(pgdds_free(ctx, w));
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    test_contention();
    test_semantics();
    test_bad_input();
    return t_finish(ctx, "core_api/atomics");
}
