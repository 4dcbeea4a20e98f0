/* Every AMO of every type of the specification's tables, fetching and not, blocking and _nbi,
 * with exact results: among them the three that Debian's oshmem gets wrong (fetching bitwise
 * AMOs, 32-bit compare-and-swap; finalize is the end of every test). All PEs aim at PE 0's
 * words, then at their right-hand neighbour's. */
#include "shmem_check.h"

#include <stdint.h>

static int me, n, right, left;

/* Standard AMOs: inc, add, fetch_add, fetch_inc, compare_swap, and their _nbi forms. */
#define TEST_STD(T, N)                                                                            \
    static void test_std_##N(void)                                                                \
    {                                                                                             \
        T *x = shmem_calloc(2, sizeof(T));                                                        \
        int *winners = shmem_calloc(1, sizeof(int));                                              \
        shmem_##N##_atomic_inc(x, 0);                                                             \
        shmem_##N##_atomic_add(x, (T)2, 0);                                                       \
        T f = shmem_##N##_atomic_fetch_add(x, (T)3, 0);                                           \
        T fi = shmem_##N##_atomic_fetch_inc(x, 0);                                                \
        /* inc and add are posted: not ordered before the fetching AMOs (no fence). */           \
        CHECK_MSG(f < (T)(7 * n) && fi >= f + (T)3 && fi < (T)(7 * n), #N ": fetched %lld %lld",  \
                  (long long)f, (long long)fi);                                                   \
        T fa = 0, fb = 0;                                                                         \
        shmem_##N##_atomic_fetch_add_nbi(&fa, &x[1], (T)5, 0);                                    \
        shmem_##N##_atomic_fetch_inc_nbi(&fb, &x[1], 0);                                          \
        shmem_quiet();                                                                            \
        CHECK(fb >= fa + (T)5 && fb < (T)(6 * n));                                                \
        shmem_barrier_all();                                                                      \
        if (me == 0) CHECK_MSG(x[0] == (T)(7 * n) && x[1] == (T)(6 * n), #N ": %lld %lld",        \
                               (long long)x[0], (long long)x[1]);                                 \
        shmem_barrier_all();                                                                      \
        /* Exactly one PE swaps 7n for its own value. */                                          \
        T old = shmem_##N##_atomic_compare_swap(x, (T)(7 * n), (T)(100 + me), 0);                 \
        if (old == (T)(7 * n)) shmem_int_atomic_inc(winners, 0);                                  \
        else CHECK_MSG(old >= (T)100 && old < (T)(100 + n), #N ": compare_swap gave %lld", (long long)old); \
        T o2 = (T)-1;                                                                             \
        shmem_##N##_atomic_compare_swap_nbi(&o2, &x[1], (T)12345, (T)1, 0); /* never matches */  \
        shmem_quiet();                                                                            \
        CHECK(o2 == (T)(6 * n));                                                                  \
        shmem_barrier_all();                                                                      \
        if (me == 0) {                                                                            \
            CHECK_MSG(*winners == 1, #N ": %d PEs won one compare_swap", *winners);              \
            CHECK(x[0] >= (T)100 && x[0] < (T)(100 + n) && x[1] == (T)(6 * n));                   \
        }                                                                                         \
        shmem_barrier_all();                                                                      \
        shmem_free(winners);                                                                      \
        shmem_free(x);                                                                            \
    }
SHMEM_AMO_STD_TYPES(TEST_STD)

/* Extended AMOs: set, fetch, swap and their _nbi forms, on every standard type and float/double. */
#define TEST_EXT(T, N)                                                                            \
    static void test_ext_##N(void)                                                                \
    {                                                                                             \
        T *y = shmem_calloc(1, sizeof(T));                                                        \
        shmem_##N##_atomic_set(y, (T)(me + 1), right);                                            \
        shmem_barrier_all();                                                                      \
        CHECK(*y == (T)(left + 1));                                                               \
        CHECK(shmem_##N##_atomic_fetch(y, right) == (T)(me + 1));                                 \
        T f = 0;                                                                                  \
        shmem_##N##_atomic_fetch_nbi(&f, y, me);                                                  \
        shmem_quiet();                                                                            \
        CHECK(f == (T)(left + 1));                                                                \
        shmem_barrier_all();                                                                      \
        CHECK(shmem_##N##_atomic_swap(y, (T)(2 * me + 3), right) == (T)(me + 1));                 \
        T s = 0;                                                                                  \
        shmem_##N##_atomic_swap_nbi(&s, y, (T)(3 * me), right);                                   \
        shmem_quiet();                                                                            \
        CHECK(s == (T)(2 * me + 3));                                                              \
        shmem_barrier_all();                                                                      \
        CHECK(*y == (T)(3 * left));                                                               \
        shmem_barrier_all();                                                                      \
        shmem_free(y);                                                                            \
    }
SHMEM_AMO_EXT_TYPES(TEST_EXT)

/* Bitwise AMOs: every PE sets its bit in PE 0's word with fetch_or, then clears it with
 * fetch_and and toggles it twice with fetch_xor; the fetched values must be exact. */
#define TEST_BIT(T, N)                                                                            \
    static void test_bit_##N(void)                                                                \
    {                                                                                             \
        T *w = shmem_calloc(2, sizeof(T));                                                        \
        T bit = (T)1 << me, all = (T)(((T)1 << n) - 1);                                           \
        T before = shmem_##N##_atomic_fetch_or(w, bit, 0);                                        \
        CHECK_MSG((before & bit) == 0 && (before & ~all) == 0, #N ": fetch_or gave %llx",        \
                  (unsigned long long)before);                                                    \
        shmem_barrier_all();                                                                      \
        if (me == 0) CHECK(w[0] == all);                                                          \
        shmem_barrier_all();                                                                      \
        T got = shmem_##N##_atomic_fetch_and(w, (T)~bit, 0);                                      \
        CHECK_MSG((got & bit) == bit, #N ": fetch_and gave %llx", (unsigned long long)got);      \
        shmem_barrier_all();                                                                      \
        if (me == 0) CHECK(w[0] == 0);                                                            \
        /* On the right-hand neighbour's second word, alone: exact values. */                     \
        T pattern = (T)0xA5A5A5A5u;                                                               \
        shmem_##N##_atomic_set(&w[1], pattern, right);                                            \
        shmem_quiet();                                                                            \
        CHECK(shmem_##N##_atomic_fetch_xor(&w[1], (T)0xFFu, right) == pattern);                   \
        T x1 = 0;                                                                                 \
        shmem_##N##_atomic_fetch_xor_nbi(&x1, &w[1], (T)0xFFu, right);                            \
        shmem_quiet();                                                                            \
        CHECK(x1 == (T)(pattern ^ (T)0xFFu));                                                     \
        T a1 = 0, o1 = 0;                                                                         \
        shmem_##N##_atomic_fetch_and_nbi(&a1, &w[1], (T)0x0F0Fu, right);                          \
        shmem_quiet();                                                                            \
        CHECK(a1 == pattern);                                                                     \
        shmem_##N##_atomic_fetch_or_nbi(&o1, &w[1], (T)0x3000u, right);                           \
        shmem_quiet();                                                                            \
        CHECK(o1 == (T)(pattern & (T)0x0F0Fu));                                                   \
        shmem_##N##_atomic_xor(&w[1], (T)1, right);                                               \
        shmem_##N##_atomic_and(&w[1], (T)0xFFFFu, right);                                         \
        shmem_##N##_atomic_or(&w[1], (T)0x10000u, right);                                         \
        shmem_barrier_all();                                                                      \
        CHECK_MSG(w[1] == (T)((((pattern & (T)0x0F0Fu) | (T)0x3000u) ^ (T)1) | (T)0x10000u),      \
                  #N ": %llx", (unsigned long long)w[1]);                                         \
        shmem_barrier_all();                                                                      \
        shmem_free(w);                                                                            \
    }
SHMEM_AMO_BIT_TYPES(TEST_BIT)

/* The C11 generic names and the deprecated names pick the same routines. */
static void test_generic(void)
{
    long *l = shmem_calloc(1, sizeof(long));
    unsigned int *u = shmem_calloc(1, sizeof(unsigned int));
    int *i32 = shmem_calloc(1, sizeof(int));
    double *d = shmem_calloc(1, sizeof(double));
    shmem_atomic_add(l, 10L, 0);
    shmem_atomic_inc(SHMEM_CTX_DEFAULT, l, 0);
    CHECK((shmem_atomic_fetch_or(u, 1u << me, 0) & (1u << me)) == 0);
    shmem_atomic_set(d, 0.25 * me, right);
    shmem_int_fadd(i32, 2, 0);
    shmem_int_inc(i32, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(*l == 11L * n);
        CHECK(*u == (1u << n) - 1);
        CHECK(*i32 == 3 * n);
        CHECK(shmem_int_cswap(i32, 3 * n, -5, 0) == 3 * n && *i32 == -5);
        CHECK(shmem_atomic_compare_swap(i32, -5, 7, 0) == -5);
        CHECK(shmem_atomic_fetch(i32, 0) == 7);
        CHECK(shmem_long_finc(l, 0) == 11L * n);
    }
    CHECK(*d == 0.25 * left);
    CHECK(shmem_atomic_swap(d, 1.5, me) == 0.25 * left);
    long fetched = 0;
    shmem_atomic_fetch_add_nbi(&fetched, l, 0L, 0);
    shmem_quiet();
    CHECK(fetched >= 11L * n);
    shmem_barrier_all();
    shmem_free(d);
    shmem_free(i32);
    shmem_free(u);
    shmem_free(l);
}

int main(void)
{
    shmem_check_start();
    me = shmem_my_pe();
    n = shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
#define RUN_STD(T, N) test_std_##N();
#define RUN_EXT(T, N) test_ext_##N();
#define RUN_BIT(T, N) test_bit_##N();
    SHMEM_AMO_STD_TYPES(RUN_STD)
    SHMEM_AMO_EXT_TYPES(RUN_EXT)
    SHMEM_AMO_BIT_TYPES(RUN_BIT)
    test_generic();
    return shmem_check_end();
}
