/**
 * @file shmem.h
 * OpenSHMEM 1.5 over libpgdds (libpgdds_shmem): the C interface, C11 type-generic forms
 * included. Installed as <prefix>/include/pgdds/shmem/shmem.h; `pgdds-oshcc` and
 * `pkg-config --cflags pgdds-shmem` put that directory on the include path, so that programs
 * keep `#include <shmem.h>`. docs/openshmem.md says what is implemented and how it maps onto
 * the libpgdds core.
 *
 * The typed routines are declared from the type tables of the specification (X-macros below:
 * SHMEM_RMA_TYPES and the AMO, synchronization and reduction tables), one table per family.
 */
#ifndef PGDDS_SHMEM_H
#define PGDDS_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SHMEM_API __attribute__((visibility("default")))
#else
#define SHMEM_API
#endif

/* ------------------------------------------------------------------------------------------ */
/* Constants                                                                                   */
/* ------------------------------------------------------------------------------------------ */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "libpgdds OpenSHMEM"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

enum { SHMEM_THREAD_SINGLE = 0, SHMEM_THREAD_FUNNELED = 1, SHMEM_THREAD_SERIALIZED = 2,
       SHMEM_THREAD_MULTIPLE = 3 };
enum { SHMEM_CMP_EQ = 0, SHMEM_CMP_NE = 1, SHMEM_CMP_GT = 2, SHMEM_CMP_GE = 3, SHMEM_CMP_LT = 4,
       SHMEM_CMP_LE = 5 };
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
enum { SHMEM_SIGNAL_SET = 0, SHMEM_SIGNAL_ADD = 1 };

/* shmem_malloc_with_hints: accepted, and served as shmem_malloc. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

/* ------------------------------------------------------------------------------------------ */
/* Type tables of the specification: X(C type, TYPENAME)                                       */
/* ------------------------------------------------------------------------------------------ */
/* The standard RMA types; the first 14 (distinct C types) are those of the C11 generics. */
#define SHMEM_RMA_GENERIC_TYPES(X)                                                                \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)                    \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)        \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                       \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEM_RMA_TYPES(X)                                                                        \
    SHMEM_RMA_GENERIC_TYPES(X)                                                                    \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)        \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)                   \
    X(ptrdiff_t, ptrdiff)

/* ------------------------------------------------------------------------------------------ */
/* Library setup, exit and query                                                               */
/* ------------------------------------------------------------------------------------------ */
SHMEM_API void shmem_init(void);
SHMEM_API int shmem_init_thread(int requested, int *provided);
SHMEM_API void shmem_query_thread(int *provided);
SHMEM_API void shmem_finalize(void);
/* Ends every PE with status: this PE exits at once, and the others end when they next wait on
 * it (docs/openshmem.md). */
SHMEM_API void shmem_global_exit(int status);
SHMEM_API int shmem_my_pe(void);
SHMEM_API int shmem_n_pes(void);
SHMEM_API int shmem_pe_accessible(int pe);
/* 1 only for symmetric-heap addresses: static and global data are not remotely accessible. */
SHMEM_API int shmem_addr_accessible(const void *addr, int pe);
SHMEM_API void *shmem_ptr(const void *dest, int pe);
SHMEM_API void shmem_info_get_version(int *major, int *minor);
SHMEM_API void shmem_info_get_name(char *name);
/* Deprecated forms. */
SHMEM_API void start_pes(int npes);
SHMEM_API int _my_pe(void);
SHMEM_API int _num_pes(void);
SHMEM_API int shmem_num_pes(void);

/* ------------------------------------------------------------------------------------------ */
/* Memory management: the symmetric heap (SHMEM_SYMMETRIC_SIZE bytes per PE)                   */
/* ------------------------------------------------------------------------------------------ */
SHMEM_API void *shmem_malloc(size_t size);
SHMEM_API void *shmem_calloc(size_t count, size_t size);
SHMEM_API void *shmem_align(size_t alignment, size_t size);
SHMEM_API void *shmem_realloc(void *ptr, size_t size);
SHMEM_API void shmem_free(void *ptr);
SHMEM_API void *shmem_malloc_with_hints(size_t size, long hints);
/* Deprecated forms. */
SHMEM_API void *shmalloc(size_t size);
SHMEM_API void *shmemalign(size_t alignment, size_t size);
SHMEM_API void *shrealloc(void *ptr, size_t size);
SHMEM_API void shfree(void *ptr);

/* ------------------------------------------------------------------------------------------ */
/* Teams (the handles; the routines are below)                                                 */
/* ------------------------------------------------------------------------------------------ */
typedef struct shmem_team_impl *shmem_team_t;
typedef struct { int num_contexts; } shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
/* Every PE, and the PEs that share this PE's node memory (load/store through shmem_ptr). */
SHMEM_API extern shmem_team_t SHMEM_TEAM_WORLD;
SHMEM_API extern shmem_team_t SHMEM_TEAM_SHARED;

/* ------------------------------------------------------------------------------------------ */
/* Communication contexts                                                                      */
/* ------------------------------------------------------------------------------------------ */
typedef struct shmem_ctx_impl *shmem_ctx_t;
#define SHMEM_CTX_PRIVATE    (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
SHMEM_API extern shmem_ctx_t SHMEM_CTX_DEFAULT;

/* ------------------------------------------------------------------------------------------ */
/* Remote memory access                                                                        */
/* ------------------------------------------------------------------------------------------ */
#define SHMEM_DECL_RMA(T, N)                                                                      \
    SHMEM_API void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);              \
    SHMEM_API void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);              \
    SHMEM_API void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);          \
    SHMEM_API void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);          \
    SHMEM_API void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void shmem_##N##_p(T *dest, T value, int pe);                                       \
    SHMEM_API void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                  \
    SHMEM_API T shmem_##N##_g(const T *source, int pe);                                           \
    SHMEM_API T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                      \
    SHMEM_API void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                        size_t nelems, int pe);                                   \
    SHMEM_API void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                        size_t nelems, int pe);                                   \
    SHMEM_API void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                          uint64_t signal, int sig_op, int pe);                   \
    SHMEM_API void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_API void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                              uint64_t signal, int sig_op, int pe);               \
    SHMEM_API void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SHMEM_DECL_RMA)

/* Sized forms (SIZE in bits, 128 included) and mem forms (bytes). */
/* Sized forms (BITS in bits, 128 included) and mem forms (bytes). */
#define SHMEM_DECL_SIZED_NAMES(BITS)                                                              \
    SHMEM_API void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);        \
    SHMEM_API void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);        \
    SHMEM_API void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);  \
    SHMEM_API void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);  \
    SHMEM_API void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                                        ptrdiff_t sst, size_t nelems, int pe);                    \
    SHMEM_API void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                                        ptrdiff_t sst, size_t nelems, int pe);                    \
    SHMEM_API void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                            uint64_t signal, int sig_op, int pe);                 \
    SHMEM_API void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_API void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,   \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_API void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, \
                                                    size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                                    int sig_op, int pe);
#define SHMEM_SIZED_BITS(X) X(8) X(16) X(32) X(64) X(128)
SHMEM_SIZED_BITS(SHMEM_DECL_SIZED_NAMES)
SHMEM_API void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                   uint64_t signal, int sig_op, int pe);
SHMEM_API void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_API void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe);
SHMEM_API void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_API uint64_t shmem_signal_fetch(const uint64_t *sig_addr);

/* ------------------------------------------------------------------------------------------ */
/* Memory ordering                                                                             */
/* ------------------------------------------------------------------------------------------ */
SHMEM_API void shmem_fence(void);
SHMEM_API void shmem_ctx_fence(shmem_ctx_t ctx);
SHMEM_API void shmem_quiet(void);
SHMEM_API void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ------------------------------------------------------------------------------------------ */
/* Barriers                                                                                    */
/* ------------------------------------------------------------------------------------------ */
SHMEM_API void shmem_barrier_all(void);
SHMEM_API void shmem_sync_all(void);

/* ------------------------------------------------------------------------------------------ */
/* Atomic memory operations                                                                    */
/* ------------------------------------------------------------------------------------------ */
/* The AMO type tables: standard (fetch-inc/add, inc/add, compare-swap), extended (fetch, set,
 * swap: standard plus float and double) and bitwise (and, or, xor with and without fetch).
 * The GENERIC tables hold the distinct C types the C11 generics select on. */
#define SHMEM_AMO_STD_GENERIC_TYPES(X)                                                            \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong)
#define SHMEM_AMO_STD_TYPES(X)                                                                    \
    SHMEM_AMO_STD_GENERIC_TYPES(X)                                                                \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)   \
    X(ptrdiff_t, ptrdiff)
#define SHMEM_AMO_EXT_GENERIC_TYPES(X) X(float, float) X(double, double) SHMEM_AMO_STD_GENERIC_TYPES(X)
#define SHMEM_AMO_EXT_TYPES(X) X(float, float) X(double, double) SHMEM_AMO_STD_TYPES(X)
#define SHMEM_AMO_BIT_GENERIC_TYPES(X)                                                            \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEM_AMO_BIT_TYPES(X)                                                                    \
    SHMEM_AMO_BIT_GENERIC_TYPES(X)                                                                \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Every routine in a plain form and a ctx form (shmem_ctx_TYPENAME_...). */
#define SHMEM_DECL_BOTH(R, NAME, ...)                                                     \
    SHMEM_API R shmem_##NAME(__VA_ARGS__);                                                        \
    SHMEM_API R shmem_ctx_##NAME(shmem_ctx_t ctx, __VA_ARGS__);
#define SHMEM_DECL_AMO_EXT(T, N)                                                                  \
    SHMEM_DECL_BOTH(T, N##_atomic_fetch, const T *source, int pe)                               \
    SHMEM_DECL_BOTH(void, N##_atomic_fetch_nbi, T *fetch, const T *source, int pe)              \
    SHMEM_DECL_BOTH(void, N##_atomic_set, T *dest, T value, int pe)                             \
    SHMEM_DECL_BOTH(T, N##_atomic_swap, T *dest, T value, int pe)                               \
    SHMEM_DECL_BOTH(void, N##_atomic_swap_nbi, T *fetch, T *dest, T value, int pe)
#define SHMEM_DECL_AMO_STD(T, N)                                                                  \
    SHMEM_DECL_BOTH(T, N##_atomic_compare_swap, T *dest, T cond, T value, int pe)               \
    SHMEM_DECL_BOTH(void, N##_atomic_compare_swap_nbi, T *fetch, T *dest, T cond, T value, int pe) \
    SHMEM_DECL_BOTH(T, N##_atomic_fetch_inc, T *dest, int pe)                                   \
    SHMEM_DECL_BOTH(void, N##_atomic_fetch_inc_nbi, T *fetch, T *dest, int pe)                  \
    SHMEM_DECL_BOTH(void, N##_atomic_inc, T *dest, int pe)                                      \
    SHMEM_DECL_BOTH(T, N##_atomic_fetch_add, T *dest, T value, int pe)                          \
    SHMEM_DECL_BOTH(void, N##_atomic_fetch_add_nbi, T *fetch, T *dest, T value, int pe)         \
    SHMEM_DECL_BOTH(void, N##_atomic_add, T *dest, T value, int pe)
#define SHMEM_DECL_AMO_BIT_OP(T, N, OP)                                                           \
    SHMEM_DECL_BOTH(T, N##_atomic_fetch_##OP, T *dest, T value, int pe)                         \
    SHMEM_DECL_BOTH(void, N##_atomic_fetch_##OP##_nbi, T *fetch, T *dest, T value, int pe)      \
    SHMEM_DECL_BOTH(void, N##_atomic_##OP, T *dest, T value, int pe)
#define SHMEM_DECL_AMO_BIT(T, N)                                                                  \
    SHMEM_DECL_AMO_BIT_OP(T, N, and) SHMEM_DECL_AMO_BIT_OP(T, N, or) SHMEM_DECL_AMO_BIT_OP(T, N, xor)
SHMEM_AMO_EXT_TYPES(SHMEM_DECL_AMO_EXT)
SHMEM_AMO_STD_TYPES(SHMEM_DECL_AMO_STD)
SHMEM_AMO_BIT_TYPES(SHMEM_DECL_AMO_BIT)

/* The deprecated names of OpenSHMEM 1.3 (shmem_int_fadd, shmem_long_cswap, ...) for the types
 * that had them. */
#define SHMEM_AMO_DEPRECATED_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_DECL_AMO_DEPRECATED(T, N)                                                           \
    SHMEM_API T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                              \
    SHMEM_API T shmem_##N##_finc(T *dest, int pe);                                                \
    SHMEM_API void shmem_##N##_inc(T *dest, int pe);                                              \
    SHMEM_API T shmem_##N##_fadd(T *dest, T value, int pe);                                       \
    SHMEM_API void shmem_##N##_add(T *dest, T value, int pe);
#define SHMEM_DECL_AMO_DEPRECATED_EXT(T, N)                                                       \
    SHMEM_API T shmem_##N##_fetch(const T *source, int pe);                                       \
    SHMEM_API void shmem_##N##_set(T *dest, T value, int pe);                                     \
    SHMEM_API T shmem_##N##_swap(T *dest, T value, int pe);
SHMEM_AMO_DEPRECATED_TYPES(SHMEM_DECL_AMO_DEPRECATED)
SHMEM_AMO_DEPRECATED_TYPES(SHMEM_DECL_AMO_DEPRECATED_EXT)
SHMEM_DECL_AMO_DEPRECATED_EXT(float, float)
SHMEM_DECL_AMO_DEPRECATED_EXT(double, double)

/* ------------------------------------------------------------------------------------------ */
/* Point-to-point synchronization                                                              */
/* ------------------------------------------------------------------------------------------ */
/* ivars are this PE's symmetric words; waiting progresses the library (puts, signals and
 * atomics that need the target's help complete meanwhile). The _any forms return SIZE_MAX and
 * the _some forms 0 when every element is masked out by status (nonzero: ignore) or nelems is 0. */
#define SHMEM_P2P_GENERIC_TYPES(X)                                                                \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)    \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEM_P2P_TYPES(X)                                                                        \
    SHMEM_P2P_GENERIC_TYPES(X)                                                                    \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)   \
    X(ptrdiff_t, ptrdiff)
#define SHMEM_DECL_P2P(T, N)                                                                      \
    SHMEM_API void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                         \
    SHMEM_API void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                                 int cmp, T cmp_value);                           \
    SHMEM_API void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                                     T *cmp_values);                              \
    SHMEM_API size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                                       T *cmp_values);                            \
    SHMEM_API size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, \
                                                        const int *status, int cmp, T *cmp_values); \
    SHMEM_API int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                \
    SHMEM_API int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                           T cmp_value);                                          \
    SHMEM_API int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    SHMEM_API size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                                 T *cmp_values);                                  \
    SHMEM_API size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                                  int cmp, T *cmp_values);                        \
    SHMEM_API void shmem_##N##_wait(T *ivar, T cmp_value); /* deprecated: waits while *ivar == cmp_value */
SHMEM_P2P_TYPES(SHMEM_DECL_P2P)
SHMEM_API uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ------------------------------------------------------------------------------------------ */
/* Distributed locks: a symmetric long, zero before first use                                  */
/* ------------------------------------------------------------------------------------------ */
SHMEM_API void shmem_set_lock(long *lock);
SHMEM_API void shmem_clear_lock(long *lock);
SHMEM_API int shmem_test_lock(long *lock);

/* ------------------------------------------------------------------------------------------ */
/* Contexts: each takes one of the core's VCIs (PGDDS_NUM_VCIS) in turn; with one VCI they    */
/* share the default context's stream (docs/openshmem.md)                                      */
/* ------------------------------------------------------------------------------------------ */
SHMEM_API int shmem_ctx_create(long options, shmem_ctx_t *ctx);
SHMEM_API void shmem_ctx_destroy(shmem_ctx_t ctx);
SHMEM_API int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ------------------------------------------------------------------------------------------ */
/* Teams                                                                                       */
/* ------------------------------------------------------------------------------------------ */
/* Routines that return int give 0 on success and nonzero (with a message on stderr) on error. */
SHMEM_API int shmem_team_my_pe(shmem_team_t team);
SHMEM_API int shmem_team_n_pes(shmem_team_t team);
SHMEM_API int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
SHMEM_API int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
SHMEM_API int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                       const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
SHMEM_API int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                                  long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                                  long yaxis_mask, shmem_team_t *yaxis_team);
SHMEM_API void shmem_team_destroy(shmem_team_t team);
/* A context whose PE numbers are team's. */
SHMEM_API int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
SHMEM_API void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
SHMEM_API int shmem_team_sync(shmem_team_t team);

/* ------------------------------------------------------------------------------------------ */
/* Collectives on teams. dest and source are local buffers (symmetric ones work too).          */
/* ------------------------------------------------------------------------------------------ */
#define SHMEM_DECL_COLL(T, N)                                                                     \
    SHMEM_API int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root); \
    SHMEM_API int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);  \
    SHMEM_API int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    SHMEM_API int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    SHMEM_API int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                        size_t nelems);
SHMEM_RMA_TYPES(SHMEM_DECL_COLL)
SHMEM_API int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
SHMEM_API int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                 size_t nelems);

/* Reductions: the bitwise (and, or, xor), ordering (min, max) and arithmetic (sum, prod) type
 * tables. */
#define SHMEM_REDUCE_BIT_GENERIC_TYPES(X)                                                         \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong)
#define SHMEM_REDUCE_BIT_TYPES(X)                                                                 \
    SHMEM_REDUCE_BIT_GENERIC_TYPES(X)                                                             \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)        \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SHMEM_REDUCE_MINMAX_GENERIC_TYPES(X)                                                      \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong) \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(float, float) X(double, double) X(long double, longdouble)
#define SHMEM_REDUCE_MINMAX_TYPES(X)                                                              \
    SHMEM_REDUCE_MINMAX_GENERIC_TYPES(X)                                                          \
    X(ptrdiff_t, ptrdiff) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)    \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SHMEM_REDUCE_COMPLEX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)
#define SHMEM_DECL_REDUCE(T, N, OP)                                                               \
    SHMEM_API int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define SHMEM_DECL_REDUCE_BIT(T, N) SHMEM_DECL_REDUCE(T, N, and) SHMEM_DECL_REDUCE(T, N, or) SHMEM_DECL_REDUCE(T, N, xor)
#define SHMEM_DECL_REDUCE_MINMAX(T, N) SHMEM_DECL_REDUCE(T, N, min) SHMEM_DECL_REDUCE(T, N, max)
#define SHMEM_DECL_REDUCE_ARITH(T, N) SHMEM_DECL_REDUCE(T, N, sum) SHMEM_DECL_REDUCE(T, N, prod)
SHMEM_REDUCE_BIT_TYPES(SHMEM_DECL_REDUCE_BIT)
SHMEM_REDUCE_MINMAX_TYPES(SHMEM_DECL_REDUCE_MINMAX)
SHMEM_REDUCE_MINMAX_TYPES(SHMEM_DECL_REDUCE_ARITH)
#ifndef __cplusplus
SHMEM_REDUCE_COMPLEX_TYPES(SHMEM_DECL_REDUCE_ARITH)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Deprecated active-set collectives (OpenSHMEM 1.4 and before)                                */
/* ------------------------------------------------------------------------------------------ */
/* Served for the active set of every PE (PE_start 0, logPE_stride 0, PE_size shmem_n_pes())
 * as the collectives on SHMEM_TEAM_WORLD; another active set ends the job with a message (use
 * a team from shmem_team_split_strided). pSync and pWrk are not used. broadcast leaves the
 * root's dest alone, as 1.4 says. */
#define SHMEM_SYNC_VALUE (-1L)
#define SHMEM_BARRIER_SYNC_SIZE 1
#define SHMEM_BCAST_SYNC_SIZE 1
#define SHMEM_COLLECT_SYNC_SIZE 1
#define SHMEM_REDUCE_SYNC_SIZE 1
#define SHMEM_ALLTOALL_SYNC_SIZE 1
#define SHMEM_ALLTOALLS_SYNC_SIZE 1
#define SHMEM_SYNC_SIZE 1
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
SHMEM_API void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHMEM_DECL_ACTIVE_SET(BITS)                                                               \
    SHMEM_API void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, \
                                         int logPE_stride, int PE_size, long *pSync);             \
    SHMEM_API void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                                       int logPE_stride, int PE_size, long *pSync);               \
    SHMEM_API void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                                        int logPE_stride, int PE_size, long *pSync);              \
    SHMEM_API void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                                        int logPE_stride, int PE_size, long *pSync);              \
    SHMEM_API void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                         size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_DECL_ACTIVE_SET(32)
SHMEM_DECL_ACTIVE_SET(64)
#define SHMEM_TO_ALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_TO_ALL_MINMAX_TYPES(X) SHMEM_TO_ALL_BIT_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
#define SHMEM_DECL_TO_ALL(T, N, OP)                                                               \
    SHMEM_API void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, \
                                             int PE_size, T *pWrk, long *pSync);
#define SHMEM_DECL_TO_ALL_BIT(T, N) SHMEM_DECL_TO_ALL(T, N, and) SHMEM_DECL_TO_ALL(T, N, or) SHMEM_DECL_TO_ALL(T, N, xor)
#define SHMEM_DECL_TO_ALL_MINMAX(T, N) SHMEM_DECL_TO_ALL(T, N, min) SHMEM_DECL_TO_ALL(T, N, max)
#define SHMEM_DECL_TO_ALL_ARITH(T, N) SHMEM_DECL_TO_ALL(T, N, sum) SHMEM_DECL_TO_ALL(T, N, prod)
SHMEM_TO_ALL_BIT_TYPES(SHMEM_DECL_TO_ALL_BIT)
SHMEM_TO_ALL_MINMAX_TYPES(SHMEM_DECL_TO_ALL_MINMAX)
SHMEM_TO_ALL_MINMAX_TYPES(SHMEM_DECL_TO_ALL_ARITH)
#ifndef __cplusplus
SHMEM_REDUCE_COMPLEX_TYPES(SHMEM_DECL_TO_ALL_ARITH)
#endif

/* ------------------------------------------------------------------------------------------ */
/* C11 type-generic interfaces                                                                 */
/* ------------------------------------------------------------------------------------------ */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* Never defined: a generic call on a type outside the table fails to compile ("too many
 * arguments to function 'shmem_c11_type_not_supported'"). */
void shmem_c11_type_not_supported(void);
/* The ctx form of a routine takes one argument more: the count of arguments picks the form. */
#define SHMEM_C11_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define SHMEM_C11_NARGS(...) SHMEM_C11_NARGS_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SHMEM_C11_CAT_(a, b) a##b
#define SHMEM_C11_CAT(a, b) SHMEM_C11_CAT_(a, b)
#define SHMEM_C11_DISPATCH(name, ...) SHMEM_C11_CAT(name, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
/* _Generic over the value type *ptr (const or not) of a table: one association per type. */
#define SHMEM_C11_ASSOC(T, N) T: N,
#define SHMEM_C11_RMA_ASSOC_put(T, N) T: shmem_##N##_put,
#define SHMEM_C11_RMA_ASSOC_ctx_put(T, N) T: shmem_ctx_##N##_put,
#define SHMEM_C11_RMA_ASSOC_get(T, N) T: shmem_##N##_get,
#define SHMEM_C11_RMA_ASSOC_ctx_get(T, N) T: shmem_ctx_##N##_get,
#define SHMEM_C11_RMA_ASSOC_put_nbi(T, N) T: shmem_##N##_put_nbi,
#define SHMEM_C11_RMA_ASSOC_ctx_put_nbi(T, N) T: shmem_ctx_##N##_put_nbi,
#define SHMEM_C11_RMA_ASSOC_get_nbi(T, N) T: shmem_##N##_get_nbi,
#define SHMEM_C11_RMA_ASSOC_ctx_get_nbi(T, N) T: shmem_ctx_##N##_get_nbi,
#define SHMEM_C11_RMA_ASSOC_p(T, N) T: shmem_##N##_p,
#define SHMEM_C11_RMA_ASSOC_ctx_p(T, N) T: shmem_ctx_##N##_p,
#define SHMEM_C11_RMA_ASSOC_g(T, N) T: shmem_##N##_g,
#define SHMEM_C11_RMA_ASSOC_ctx_g(T, N) T: shmem_ctx_##N##_g,
#define SHMEM_C11_RMA_ASSOC_iput(T, N) T: shmem_##N##_iput,
#define SHMEM_C11_RMA_ASSOC_ctx_iput(T, N) T: shmem_ctx_##N##_iput,
#define SHMEM_C11_RMA_ASSOC_iget(T, N) T: shmem_##N##_iget,
#define SHMEM_C11_RMA_ASSOC_ctx_iget(T, N) T: shmem_ctx_##N##_iget,
#define SHMEM_C11_RMA_ASSOC_put_signal(T, N) T: shmem_##N##_put_signal,
#define SHMEM_C11_RMA_ASSOC_ctx_put_signal(T, N) T: shmem_ctx_##N##_put_signal,
#define SHMEM_C11_RMA_ASSOC_put_signal_nbi(T, N) T: shmem_##N##_put_signal_nbi,
#define SHMEM_C11_RMA_ASSOC_ctx_put_signal_nbi(T, N) T: shmem_ctx_##N##_put_signal_nbi,
/* A generic over table TABLE, associations ASSOC, selected by the value type of PTR. */
#define SHMEM_C11_SELECT(TABLE, ASSOC, PTR)                                                       \
    _Generic(*(PTR), TABLE(ASSOC) default: shmem_c11_type_not_supported)

#define shmem_put(...) SHMEM_C11_DISPATCH(shmem_c11_put_, __VA_ARGS__)
#define shmem_c11_put_4(d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_put, d)(d, __VA_ARGS__)
#define shmem_c11_put_5(c, d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_put, d)(c, d, __VA_ARGS__)
#define shmem_get(...) SHMEM_C11_DISPATCH(shmem_c11_get_, __VA_ARGS__)
#define shmem_c11_get_4(d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_get, d)(d, __VA_ARGS__)
#define shmem_c11_get_5(c, d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_get, d)(c, d, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_put_nbi_, __VA_ARGS__)
#define shmem_c11_put_nbi_4(d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_put_nbi, d)(d, __VA_ARGS__)
#define shmem_c11_put_nbi_5(c, d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_put_nbi, d)(c, d, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_get_nbi_, __VA_ARGS__)
#define shmem_c11_get_nbi_4(d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_get_nbi, d)(d, __VA_ARGS__)
#define shmem_c11_get_nbi_5(c, d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_get_nbi, d)(c, d, __VA_ARGS__)
#define shmem_p(...) SHMEM_C11_DISPATCH(shmem_c11_p_, __VA_ARGS__)
#define shmem_c11_p_3(d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_p, d)(d, __VA_ARGS__)
#define shmem_c11_p_4(c, d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_p, d)(c, d, __VA_ARGS__)
#define shmem_g(...) SHMEM_C11_DISPATCH(shmem_c11_g_, __VA_ARGS__)
#define shmem_c11_g_2(s, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_g, s)(s, __VA_ARGS__)
#define shmem_c11_g_3(c, s, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_g, s)(c, s, __VA_ARGS__)
#define shmem_iput(...) SHMEM_C11_DISPATCH(shmem_c11_iput_, __VA_ARGS__)
#define shmem_c11_iput_6(d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_iput, d)(d, __VA_ARGS__)
#define shmem_c11_iput_7(c, d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_iput, d)(c, d, __VA_ARGS__)
#define shmem_iget(...) SHMEM_C11_DISPATCH(shmem_c11_iget_, __VA_ARGS__)
#define shmem_c11_iget_6(d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_iget, d)(d, __VA_ARGS__)
#define shmem_c11_iget_7(c, d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_iget, d)(c, d, __VA_ARGS__)
#define shmem_put_signal(...) SHMEM_C11_DISPATCH(shmem_c11_put_signal_, __VA_ARGS__)
#define shmem_c11_put_signal_7(d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_put_signal, d)(d, __VA_ARGS__)
#define shmem_c11_put_signal_8(c, d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_put_signal, d)(c, d, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_put_signal_nbi_, __VA_ARGS__)
#define shmem_c11_put_signal_nbi_7(d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_put_signal_nbi, d)(d, __VA_ARGS__)
#define shmem_c11_put_signal_nbi_8(c, d, ...) SHMEM_C11_SELECT(SHMEM_RMA_GENERIC_TYPES, SHMEM_C11_RMA_ASSOC_ctx_put_signal_nbi, d)(c, d, __VA_ARGS__)
/* The AMOs: each generic name over its table, by the value type of its target. */
#define SHMEM_C11_A_ASSOC(T, N, OP) T: shmem_##N##_atomic_##OP,
#define SHMEM_C11_A_CTX_ASSOC(T, N, OP) T: shmem_ctx_##N##_atomic_##OP,
#define SHMEM_C11_A_SELECT(TABLE, OP, PTR)                                                        \
    _Generic(*(PTR), TABLE(SHMEM_C11_A_ASSOC_##OP) default: shmem_c11_type_not_supported)
#define SHMEM_C11_A_CTX_SELECT(TABLE, OP, PTR)                                                    \
    _Generic(*(PTR), TABLE(SHMEM_C11_A_CTX_ASSOC_##OP) default: shmem_c11_type_not_supported)
#define SHMEM_C11_A_ASSOC_fetch(T, N) SHMEM_C11_A_ASSOC(T, N, fetch)
#define SHMEM_C11_A_CTX_ASSOC_fetch(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch)
#define SHMEM_C11_A_ASSOC_fetch_nbi(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_nbi)
#define SHMEM_C11_A_CTX_ASSOC_fetch_nbi(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_nbi)
#define SHMEM_C11_A_ASSOC_set(T, N) SHMEM_C11_A_ASSOC(T, N, set)
#define SHMEM_C11_A_CTX_ASSOC_set(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, set)
#define SHMEM_C11_A_ASSOC_swap(T, N) SHMEM_C11_A_ASSOC(T, N, swap)
#define SHMEM_C11_A_CTX_ASSOC_swap(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, swap)
#define SHMEM_C11_A_ASSOC_swap_nbi(T, N) SHMEM_C11_A_ASSOC(T, N, swap_nbi)
#define SHMEM_C11_A_CTX_ASSOC_swap_nbi(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, swap_nbi)
#define SHMEM_C11_A_ASSOC_compare_swap(T, N) SHMEM_C11_A_ASSOC(T, N, compare_swap)
#define SHMEM_C11_A_CTX_ASSOC_compare_swap(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, compare_swap)
#define SHMEM_C11_A_ASSOC_compare_swap_nbi(T, N) SHMEM_C11_A_ASSOC(T, N, compare_swap_nbi)
#define SHMEM_C11_A_CTX_ASSOC_compare_swap_nbi(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, compare_swap_nbi)
#define SHMEM_C11_A_ASSOC_fetch_inc(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_inc)
#define SHMEM_C11_A_CTX_ASSOC_fetch_inc(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_inc)
#define SHMEM_C11_A_ASSOC_fetch_inc_nbi(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_inc_nbi)
#define SHMEM_C11_A_CTX_ASSOC_fetch_inc_nbi(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_inc_nbi)
#define SHMEM_C11_A_ASSOC_inc(T, N) SHMEM_C11_A_ASSOC(T, N, inc)
#define SHMEM_C11_A_CTX_ASSOC_inc(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, inc)
#define SHMEM_C11_A_ASSOC_fetch_add(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_add)
#define SHMEM_C11_A_CTX_ASSOC_fetch_add(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_add)
#define SHMEM_C11_A_ASSOC_fetch_add_nbi(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_add_nbi)
#define SHMEM_C11_A_CTX_ASSOC_fetch_add_nbi(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_add_nbi)
#define SHMEM_C11_A_ASSOC_add(T, N) SHMEM_C11_A_ASSOC(T, N, add)
#define SHMEM_C11_A_CTX_ASSOC_add(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, add)
#define SHMEM_C11_A_ASSOC_fetch_and(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_and)
#define SHMEM_C11_A_CTX_ASSOC_fetch_and(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_and)
#define SHMEM_C11_A_ASSOC_fetch_and_nbi(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_and_nbi)
#define SHMEM_C11_A_CTX_ASSOC_fetch_and_nbi(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_and_nbi)
#define SHMEM_C11_A_ASSOC_and(T, N) SHMEM_C11_A_ASSOC(T, N, and)
#define SHMEM_C11_A_CTX_ASSOC_and(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, and)
#define SHMEM_C11_A_ASSOC_fetch_or(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_or)
#define SHMEM_C11_A_CTX_ASSOC_fetch_or(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_or)
#define SHMEM_C11_A_ASSOC_fetch_or_nbi(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_or_nbi)
#define SHMEM_C11_A_CTX_ASSOC_fetch_or_nbi(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_or_nbi)
#define SHMEM_C11_A_ASSOC_or(T, N) SHMEM_C11_A_ASSOC(T, N, or)
#define SHMEM_C11_A_CTX_ASSOC_or(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, or)
#define SHMEM_C11_A_ASSOC_fetch_xor(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_xor)
#define SHMEM_C11_A_CTX_ASSOC_fetch_xor(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_xor)
#define SHMEM_C11_A_ASSOC_fetch_xor_nbi(T, N) SHMEM_C11_A_ASSOC(T, N, fetch_xor_nbi)
#define SHMEM_C11_A_CTX_ASSOC_fetch_xor_nbi(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, fetch_xor_nbi)
#define SHMEM_C11_A_ASSOC_xor(T, N) SHMEM_C11_A_ASSOC(T, N, xor)
#define SHMEM_C11_A_CTX_ASSOC_xor(T, N) SHMEM_C11_A_CTX_ASSOC(T, N, xor)
/* shmem_atomic_OP(target, ...) and shmem_atomic_OP(ctx, target, ...): the target is the first
 * pointer (the second for the _nbi forms, whose first is the fetch buffer). */
#define SHMEM_C11_A(TABLE, OP, ...) SHMEM_C11_A_SELECT(TABLE, OP, SHMEM_C11_FIRST(__VA_ARGS__))(__VA_ARGS__)
#define SHMEM_C11_A_CTX(TABLE, OP, c, ...)                                                        \
    SHMEM_C11_A_CTX_SELECT(TABLE, OP, SHMEM_C11_FIRST(__VA_ARGS__))(c, __VA_ARGS__)
#define SHMEM_C11_FIRST(a, ...) (a)
#define shmem_atomic_fetch(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_2(...) SHMEM_C11_A(SHMEM_AMO_EXT_GENERIC_TYPES, fetch, __VA_ARGS__)
#define shmem_c11_atomic_fetch_3(...) SHMEM_C11_A_CTX(SHMEM_AMO_EXT_GENERIC_TYPES, fetch, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_nbi_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_nbi_3(...) SHMEM_C11_A(SHMEM_AMO_EXT_GENERIC_TYPES, fetch_nbi, __VA_ARGS__)
#define shmem_c11_atomic_fetch_nbi_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_EXT_GENERIC_TYPES, fetch_nbi, __VA_ARGS__)
#define shmem_atomic_set(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_set_, __VA_ARGS__)
#define shmem_c11_atomic_set_3(...) SHMEM_C11_A(SHMEM_AMO_EXT_GENERIC_TYPES, set, __VA_ARGS__)
#define shmem_c11_atomic_set_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_EXT_GENERIC_TYPES, set, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_swap_, __VA_ARGS__)
#define shmem_c11_atomic_swap_3(...) SHMEM_C11_A(SHMEM_AMO_EXT_GENERIC_TYPES, swap, __VA_ARGS__)
#define shmem_c11_atomic_swap_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_EXT_GENERIC_TYPES, swap, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_swap_nbi_, __VA_ARGS__)
#define shmem_c11_atomic_swap_nbi_4(...) SHMEM_C11_A(SHMEM_AMO_EXT_GENERIC_TYPES, swap_nbi, __VA_ARGS__)
#define shmem_c11_atomic_swap_nbi_5(...) SHMEM_C11_A_CTX(SHMEM_AMO_EXT_GENERIC_TYPES, swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_compare_swap_, __VA_ARGS__)
#define shmem_c11_atomic_compare_swap_4(...) SHMEM_C11_A(SHMEM_AMO_STD_GENERIC_TYPES, compare_swap, __VA_ARGS__)
#define shmem_c11_atomic_compare_swap_5(...) SHMEM_C11_A_CTX(SHMEM_AMO_STD_GENERIC_TYPES, compare_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_compare_swap_nbi_, __VA_ARGS__)
#define shmem_c11_atomic_compare_swap_nbi_5(...) SHMEM_C11_A(SHMEM_AMO_STD_GENERIC_TYPES, compare_swap_nbi, __VA_ARGS__)
#define shmem_c11_atomic_compare_swap_nbi_6(...) SHMEM_C11_A_CTX(SHMEM_AMO_STD_GENERIC_TYPES, compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_inc_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_inc_2(...) SHMEM_C11_A(SHMEM_AMO_STD_GENERIC_TYPES, fetch_inc, __VA_ARGS__)
#define shmem_c11_atomic_fetch_inc_3(...) SHMEM_C11_A_CTX(SHMEM_AMO_STD_GENERIC_TYPES, fetch_inc, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_inc_nbi_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_inc_nbi_3(...) SHMEM_C11_A(SHMEM_AMO_STD_GENERIC_TYPES, fetch_inc_nbi, __VA_ARGS__)
#define shmem_c11_atomic_fetch_inc_nbi_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_STD_GENERIC_TYPES, fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_inc_, __VA_ARGS__)
#define shmem_c11_atomic_inc_2(...) SHMEM_C11_A(SHMEM_AMO_STD_GENERIC_TYPES, inc, __VA_ARGS__)
#define shmem_c11_atomic_inc_3(...) SHMEM_C11_A_CTX(SHMEM_AMO_STD_GENERIC_TYPES, inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_add_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_add_3(...) SHMEM_C11_A(SHMEM_AMO_STD_GENERIC_TYPES, fetch_add, __VA_ARGS__)
#define shmem_c11_atomic_fetch_add_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_STD_GENERIC_TYPES, fetch_add, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_add_nbi_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_add_nbi_4(...) SHMEM_C11_A(SHMEM_AMO_STD_GENERIC_TYPES, fetch_add_nbi, __VA_ARGS__)
#define shmem_c11_atomic_fetch_add_nbi_5(...) SHMEM_C11_A_CTX(SHMEM_AMO_STD_GENERIC_TYPES, fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_add_, __VA_ARGS__)
#define shmem_c11_atomic_add_3(...) SHMEM_C11_A(SHMEM_AMO_STD_GENERIC_TYPES, add, __VA_ARGS__)
#define shmem_c11_atomic_add_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_STD_GENERIC_TYPES, add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_and_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_and_3(...) SHMEM_C11_A(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_and, __VA_ARGS__)
#define shmem_c11_atomic_fetch_and_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_and_nbi_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_and_nbi_4(...) SHMEM_C11_A(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_and_nbi, __VA_ARGS__)
#define shmem_c11_atomic_fetch_and_nbi_5(...) SHMEM_C11_A_CTX(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_and_, __VA_ARGS__)
#define shmem_c11_atomic_and_3(...) SHMEM_C11_A(SHMEM_AMO_BIT_GENERIC_TYPES, and, __VA_ARGS__)
#define shmem_c11_atomic_and_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_BIT_GENERIC_TYPES, and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_or_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_or_3(...) SHMEM_C11_A(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_or, __VA_ARGS__)
#define shmem_c11_atomic_fetch_or_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_or_nbi_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_or_nbi_4(...) SHMEM_C11_A(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_or_nbi, __VA_ARGS__)
#define shmem_c11_atomic_fetch_or_nbi_5(...) SHMEM_C11_A_CTX(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_or_, __VA_ARGS__)
#define shmem_c11_atomic_or_3(...) SHMEM_C11_A(SHMEM_AMO_BIT_GENERIC_TYPES, or, __VA_ARGS__)
#define shmem_c11_atomic_or_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_BIT_GENERIC_TYPES, or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_xor_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_xor_3(...) SHMEM_C11_A(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_xor, __VA_ARGS__)
#define shmem_c11_atomic_fetch_xor_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_xor, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_fetch_xor_nbi_, __VA_ARGS__)
#define shmem_c11_atomic_fetch_xor_nbi_4(...) SHMEM_C11_A(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_xor_nbi, __VA_ARGS__)
#define shmem_c11_atomic_fetch_xor_nbi_5(...) SHMEM_C11_A_CTX(SHMEM_AMO_BIT_GENERIC_TYPES, fetch_xor_nbi, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEM_C11_DISPATCH(shmem_c11_atomic_xor_, __VA_ARGS__)
#define shmem_c11_atomic_xor_3(...) SHMEM_C11_A(SHMEM_AMO_BIT_GENERIC_TYPES, xor, __VA_ARGS__)
#define shmem_c11_atomic_xor_4(...) SHMEM_C11_A_CTX(SHMEM_AMO_BIT_GENERIC_TYPES, xor, __VA_ARGS__)
/* Point-to-point synchronization, by the value type of the first ivar. */
#define SHMEM_C11_P_ASSOC(T, N, OP) T: shmem_##N##_##OP,
#define SHMEM_C11_P(OP, PTR) _Generic(*(PTR), SHMEM_P2P_GENERIC_TYPES(SHMEM_C11_P_ASSOC_##OP) default: shmem_c11_type_not_supported)
#define SHMEM_C11_P_ASSOC_wait_until(T, N) SHMEM_C11_P_ASSOC(T, N, wait_until)
#define SHMEM_C11_P_ASSOC_wait_until_all(T, N) SHMEM_C11_P_ASSOC(T, N, wait_until_all)
#define SHMEM_C11_P_ASSOC_wait_until_any(T, N) SHMEM_C11_P_ASSOC(T, N, wait_until_any)
#define SHMEM_C11_P_ASSOC_wait_until_some(T, N) SHMEM_C11_P_ASSOC(T, N, wait_until_some)
#define SHMEM_C11_P_ASSOC_wait_until_all_vector(T, N) SHMEM_C11_P_ASSOC(T, N, wait_until_all_vector)
#define SHMEM_C11_P_ASSOC_wait_until_any_vector(T, N) SHMEM_C11_P_ASSOC(T, N, wait_until_any_vector)
#define SHMEM_C11_P_ASSOC_wait_until_some_vector(T, N) SHMEM_C11_P_ASSOC(T, N, wait_until_some_vector)
#define SHMEM_C11_P_ASSOC_test(T, N) SHMEM_C11_P_ASSOC(T, N, test)
#define SHMEM_C11_P_ASSOC_test_all(T, N) SHMEM_C11_P_ASSOC(T, N, test_all)
#define SHMEM_C11_P_ASSOC_test_any(T, N) SHMEM_C11_P_ASSOC(T, N, test_any)
#define SHMEM_C11_P_ASSOC_test_some(T, N) SHMEM_C11_P_ASSOC(T, N, test_some)
#define SHMEM_C11_P_ASSOC_test_all_vector(T, N) SHMEM_C11_P_ASSOC(T, N, test_all_vector)
#define SHMEM_C11_P_ASSOC_test_any_vector(T, N) SHMEM_C11_P_ASSOC(T, N, test_any_vector)
#define SHMEM_C11_P_ASSOC_test_some_vector(T, N) SHMEM_C11_P_ASSOC(T, N, test_some_vector)
#define SHMEM_C11_P_ASSOC_wait(T, N) SHMEM_C11_P_ASSOC(T, N, wait)
#define shmem_wait_until(ivar, ...) SHMEM_C11_P(wait_until, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...) SHMEM_C11_P(wait_until_all, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) SHMEM_C11_P(wait_until_any, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) SHMEM_C11_P(wait_until_some, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...) SHMEM_C11_P(wait_until_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...) SHMEM_C11_P(wait_until_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...) SHMEM_C11_P(wait_until_some_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...) SHMEM_C11_P(test, ivar)(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...) SHMEM_C11_P(test_all, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) SHMEM_C11_P(test_any, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) SHMEM_C11_P(test_some, ivars)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...) SHMEM_C11_P(test_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...) SHMEM_C11_P(test_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...) SHMEM_C11_P(test_some_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait(ivar, ...) SHMEM_C11_P(wait, ivar)(ivar, __VA_ARGS__)
/* Collectives on teams, by the value type of dest. */
#define SHMEM_C11_C_ASSOC(T, N, OP) T: shmem_##N##_##OP,
#define SHMEM_C11_C(TABLE, OP, PTR) _Generic(*(PTR), TABLE(SHMEM_C11_C_ASSOC_##OP) default: shmem_c11_type_not_supported)
#define SHMEM_C11_C_ASSOC_broadcast(T, N) SHMEM_C11_C_ASSOC(T, N, broadcast)
#define SHMEM_C11_C_ASSOC_collect(T, N) SHMEM_C11_C_ASSOC(T, N, collect)
#define SHMEM_C11_C_ASSOC_fcollect(T, N) SHMEM_C11_C_ASSOC(T, N, fcollect)
#define SHMEM_C11_C_ASSOC_alltoall(T, N) SHMEM_C11_C_ASSOC(T, N, alltoall)
#define SHMEM_C11_C_ASSOC_alltoalls(T, N) SHMEM_C11_C_ASSOC(T, N, alltoalls)
#define SHMEM_C11_C_ASSOC_and_reduce(T, N) SHMEM_C11_C_ASSOC(T, N, and_reduce)
#define SHMEM_C11_C_ASSOC_or_reduce(T, N) SHMEM_C11_C_ASSOC(T, N, or_reduce)
#define SHMEM_C11_C_ASSOC_xor_reduce(T, N) SHMEM_C11_C_ASSOC(T, N, xor_reduce)
#define SHMEM_C11_C_ASSOC_min_reduce(T, N) SHMEM_C11_C_ASSOC(T, N, min_reduce)
#define SHMEM_C11_C_ASSOC_max_reduce(T, N) SHMEM_C11_C_ASSOC(T, N, max_reduce)
#define SHMEM_C11_C_ASSOC_sum_reduce(T, N) SHMEM_C11_C_ASSOC(T, N, sum_reduce)
#define SHMEM_C11_C_ASSOC_prod_reduce(T, N) SHMEM_C11_C_ASSOC(T, N, prod_reduce)
#define SHMEM_C11_ARITH_GENERIC_TYPES(X) SHMEM_REDUCE_MINMAX_GENERIC_TYPES(X) SHMEM_REDUCE_COMPLEX_TYPES(X)
#define shmem_broadcast(team, dest, ...) SHMEM_C11_C(SHMEM_RMA_GENERIC_TYPES, broadcast, dest)(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) SHMEM_C11_C(SHMEM_RMA_GENERIC_TYPES, collect, dest)(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...) SHMEM_C11_C(SHMEM_RMA_GENERIC_TYPES, fcollect, dest)(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...) SHMEM_C11_C(SHMEM_RMA_GENERIC_TYPES, alltoall, dest)(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) SHMEM_C11_C(SHMEM_RMA_GENERIC_TYPES, alltoalls, dest)(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...) SHMEM_C11_C(SHMEM_REDUCE_BIT_GENERIC_TYPES, and_reduce, dest)(team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...) SHMEM_C11_C(SHMEM_REDUCE_BIT_GENERIC_TYPES, or_reduce, dest)(team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...) SHMEM_C11_C(SHMEM_REDUCE_BIT_GENERIC_TYPES, xor_reduce, dest)(team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...) SHMEM_C11_C(SHMEM_REDUCE_MINMAX_GENERIC_TYPES, min_reduce, dest)(team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...) SHMEM_C11_C(SHMEM_REDUCE_MINMAX_GENERIC_TYPES, max_reduce, dest)(team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...) SHMEM_C11_C(SHMEM_C11_ARITH_GENERIC_TYPES, sum_reduce, dest)(team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...) SHMEM_C11_C(SHMEM_C11_ARITH_GENERIC_TYPES, prod_reduce, dest)(team, dest, __VA_ARGS__)
#endif /* C11 */

#ifdef __cplusplus
}
#endif
#endif /* PGDDS_SHMEM_H */
