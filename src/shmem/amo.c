/* Atomic memory operations. Every AMO type is 4 or 8 bytes, and every operation is the same on
 * the bits of signed, unsigned and floating-point words of a size (add and the bitwise ops wrap
 * identically; fetch, set, swap and compare-swap move bits), so each routine runs as the core's
 * 32- or 64-bit unsigned atomic on the word's bits: one home, amo_op, for all of them.
 * Non-fetching AMOs are posted (pgdds_atomic_*_nbi: complete at the next quiet, ordered by
 * fence); the _nbi fetching forms complete before they return, which their contract allows. */
#include "shmem_internal.h"

#define AMO_SIZE_OK(T, N) _Static_assert(sizeof(T) == 4 || sizeof(T) == 8, #T " is not a 32- or 64-bit word");
SHMEM_AMO_EXT_TYPES(AMO_SIZE_OK)

enum amo_kind { AMO_FETCH_OP, AMO_POST_OP, AMO_LOAD, AMO_CSWAP };

static uint64_t bits_of(const void *v, size_t size)
{
    if (size == 4) {
        uint32_t b;
        memcpy(&b, v, 4);
        return b;
    }
    uint64_t b;
    memcpy(&b, v, 8);
    return b;
}

static void from_bits(void *v, size_t size, uint64_t b)
{
    if (size == 4) {
        uint32_t w = (uint32_t)b;
        memcpy(v, &w, 4);
    } else {
        memcpy(v, &b, 8);
    }
}

/* The AMO of kind on the size-byte word dest of pe: returns the old bits for the fetching
 * kinds. cond is compare-and-swap's expected value. */
static uint64_t amo_op(shmem_ctx_t ctx, void *dest, int pe, size_t size, enum amo_kind kind, pgdds_aop_t op,
                       uint64_t operand, uint64_t cond, const char *routine)
{
    pgdds_gptr_t g = shmem_target(ctx, dest, pe, routine);
    pgdds_context_t c = shmem_g.ctx;
    unsigned prev = shmem_ctx_enter(ctx, routine);
    pgdds_status_t st = PGDDS_OK;
    uint64_t old = 0;
    if (size == 4) {
        uint32_t o = 0;
        switch (kind) {
        case AMO_FETCH_OP: st = pgdds_atomic_u32(c, g, op, (uint32_t)operand, &o); break;
        case AMO_POST_OP: st = pgdds_atomic_u32_nbi(c, g, op, (uint32_t)operand); break;
        case AMO_LOAD: st = pgdds_atomic_load_u32(c, g, &o); break;
        case AMO_CSWAP: st = pgdds_atomic_cswap_u32(c, g, (uint32_t)cond, (uint32_t)operand, &o); break;
        }
        old = o;
    } else {
        switch (kind) {
        case AMO_FETCH_OP: st = pgdds_atomic_u64(c, g, op, operand, &old); break;
        case AMO_POST_OP: st = pgdds_atomic_u64_nbi(c, g, op, operand); break;
        case AMO_LOAD: st = pgdds_atomic_load_u64(c, g, &old); break;
        case AMO_CSWAP: st = pgdds_atomic_cswap_u64(c, g, cond, operand, &old); break;
        }
    }
    shmem_ctx_leave(ctx, prev);
    shmem_check(st, routine);
    return old;
}

/* A fetching operation on a T with operand value, the result as a T. */
#define AMO_FETCH(T, CTX, DEST, PE, KIND, OP, VALUE, COND, NAME)                                  \
    T v_ = (VALUE), c_ = (COND), r_;                                                              \
    from_bits(&r_, sizeof(T),                                                                     \
              amo_op(CTX, (void *)(uintptr_t)(DEST), PE, sizeof(T), KIND, OP, bits_of(&v_, sizeof(T)), \
                     bits_of(&c_, sizeof(T)), NAME));

/* Each routine in its ctx form and its plain form on SHMEM_CTX_DEFAULT. */
#define DEF_AMO_EXT(T, N)                                                                         \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe)                      \
    { AMO_FETCH(T, ctx, source, pe, AMO_LOAD, PGDDS_AOP_ADD, 0, 0, "shmem_" #N "_atomic_fetch") return r_; } \
    T shmem_##N##_atomic_fetch(const T *source, int pe)                                           \
    { return shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, source, pe); }                       \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe)     \
    { *fetch = shmem_ctx_##N##_atomic_fetch(ctx, source, pe); }                                   \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)                          \
    { *fetch = shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, source, pe); }                     \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe)                    \
    { AMO_FETCH(T, ctx, dest, pe, AMO_POST_OP, PGDDS_AOP_SWAP, value, 0, "shmem_" #N "_atomic_set") (void)r_; } \
    void shmem_##N##_atomic_set(T *dest, T value, int pe)                                         \
    { shmem_ctx_##N##_atomic_set(SHMEM_CTX_DEFAULT, dest, value, pe); }                           \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe)                      \
    { AMO_FETCH(T, ctx, dest, pe, AMO_FETCH_OP, PGDDS_AOP_SWAP, value, 0, "shmem_" #N "_atomic_swap") return r_; } \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe)                                           \
    { return shmem_ctx_##N##_atomic_swap(SHMEM_CTX_DEFAULT, dest, value, pe); }                   \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe)     \
    { *fetch = shmem_ctx_##N##_atomic_swap(ctx, dest, value, pe); }                               \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe)                          \
    { *fetch = shmem_ctx_##N##_atomic_swap(SHMEM_CTX_DEFAULT, dest, value, pe); }
SHMEM_AMO_EXT_TYPES(DEF_AMO_EXT)

#define DEF_AMO_STD(T, N)                                                                         \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe)      \
    { AMO_FETCH(T, ctx, dest, pe, AMO_CSWAP, PGDDS_AOP_SWAP, value, cond, "shmem_" #N "_atomic_compare_swap") return r_; } \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)                           \
    { return shmem_ctx_##N##_atomic_compare_swap(SHMEM_CTX_DEFAULT, dest, cond, value, pe); }     \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, int pe) \
    { *fetch = shmem_ctx_##N##_atomic_compare_swap(ctx, dest, cond, value, pe); }                 \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe)          \
    { *fetch = shmem_ctx_##N##_atomic_compare_swap(SHMEM_CTX_DEFAULT, dest, cond, value, pe); }   \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe)                 \
    { AMO_FETCH(T, ctx, dest, pe, AMO_FETCH_OP, PGDDS_AOP_ADD, value, 0, "shmem_" #N "_atomic_fetch_add") return r_; } \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe)                                      \
    { return shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, dest, value, pe); }              \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) \
    { *fetch = shmem_ctx_##N##_atomic_fetch_add(ctx, dest, value, pe); }                          \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe)                     \
    { *fetch = shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, dest, value, pe); }            \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe)                    \
    { AMO_FETCH(T, ctx, dest, pe, AMO_POST_OP, PGDDS_AOP_ADD, value, 0, "shmem_" #N "_atomic_add") (void)r_; } \
    void shmem_##N##_atomic_add(T *dest, T value, int pe)                                         \
    { shmem_ctx_##N##_atomic_add(SHMEM_CTX_DEFAULT, dest, value, pe); }                           \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe)                          \
    { return shmem_ctx_##N##_atomic_fetch_add(ctx, dest, (T)1, pe); }                             \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe)                                               \
    { return shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, dest, (T)1, pe); }               \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe)         \
    { *fetch = shmem_ctx_##N##_atomic_fetch_add(ctx, dest, (T)1, pe); }                           \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe)                             \
    { *fetch = shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, dest, (T)1, pe); }             \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe)                             \
    { shmem_ctx_##N##_atomic_add(ctx, dest, (T)1, pe); }                                          \
    void shmem_##N##_atomic_inc(T *dest, int pe)                                                  \
    { shmem_ctx_##N##_atomic_add(SHMEM_CTX_DEFAULT, dest, (T)1, pe); }
SHMEM_AMO_STD_TYPES(DEF_AMO_STD)

#define DEF_AMO_BIT_OP(T, N, OP, AOP)                                                             \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe)                \
    { AMO_FETCH(T, ctx, dest, pe, AMO_FETCH_OP, AOP, value, 0, "shmem_" #N "_atomic_fetch_" #OP) return r_; } \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe)                                     \
    { return shmem_ctx_##N##_atomic_fetch_##OP(SHMEM_CTX_DEFAULT, dest, value, pe); }             \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) \
    { *fetch = shmem_ctx_##N##_atomic_fetch_##OP(ctx, dest, value, pe); }                         \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe)                 \
    { *fetch = shmem_ctx_##N##_atomic_fetch_##OP(SHMEM_CTX_DEFAULT, dest, value, pe); }           \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe)                   \
    { AMO_FETCH(T, ctx, dest, pe, AMO_POST_OP, AOP, value, 0, "shmem_" #N "_atomic_" #OP) (void)r_; } \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe)                                        \
    { shmem_ctx_##N##_atomic_##OP(SHMEM_CTX_DEFAULT, dest, value, pe); }
#define DEF_AMO_BIT(T, N)                                                                         \
    DEF_AMO_BIT_OP(T, N, and, PGDDS_AOP_AND) DEF_AMO_BIT_OP(T, N, or, PGDDS_AOP_OR)               \
    DEF_AMO_BIT_OP(T, N, xor, PGDDS_AOP_XOR)
SHMEM_AMO_BIT_TYPES(DEF_AMO_BIT)

/* The deprecated names. */
#define DEF_AMO_DEPRECATED(T, N)                                                                  \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe) { return shmem_##N##_atomic_compare_swap(dest, cond, value, pe); } \
    T shmem_##N##_finc(T *dest, int pe) { return shmem_##N##_atomic_fetch_inc(dest, pe); }        \
    void shmem_##N##_inc(T *dest, int pe) { shmem_##N##_atomic_inc(dest, pe); }                   \
    T shmem_##N##_fadd(T *dest, T value, int pe) { return shmem_##N##_atomic_fetch_add(dest, value, pe); } \
    void shmem_##N##_add(T *dest, T value, int pe) { shmem_##N##_atomic_add(dest, value, pe); }
#define DEF_AMO_DEPRECATED_EXT(T, N)                                                              \
    T shmem_##N##_fetch(const T *source, int pe) { return shmem_##N##_atomic_fetch(source, pe); } \
    void shmem_##N##_set(T *dest, T value, int pe) { shmem_##N##_atomic_set(dest, value, pe); }   \
    T shmem_##N##_swap(T *dest, T value, int pe) { return shmem_##N##_atomic_swap(dest, value, pe); }
SHMEM_AMO_DEPRECATED_TYPES(DEF_AMO_DEPRECATED)
SHMEM_AMO_DEPRECATED_TYPES(DEF_AMO_DEPRECATED_EXT)
DEF_AMO_DEPRECATED_EXT(float, float)
DEF_AMO_DEPRECATED_EXT(double, double)
