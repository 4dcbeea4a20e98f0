// Internal basics shared by every layer of the library.
#pragma once

#include <pgdds/pgdds.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pgdds {

using status = pgdds_status_t;

constexpr size_t cache_line = 64;

#define PGDDS_LIKELY(x) __builtin_expect(!!(x), 1)
#define PGDDS_UNLIKELY(x) __builtin_expect(!!(x), 0)
// Keeps a rare path's code out of the hot caller it would otherwise be inlined into.
#define PGDDS_NOINLINE __attribute__((noinline))

// Records `st` with a printf-style explanation as the calling thread's last error and returns
// `st`, so failure paths read `return fail(PGDDS_ERR_..., "pgdds_put: ...", ...)`.
status fail(status st, const char *fmt, ...) __attribute__((format(printf, 2, 3), cold));
// Prefixes the current last-error message with "who: " (used when an inner layer failed).
status fail_prefix(status st, const char *who);
void clear_error();

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// An enum argument from a C caller as the integer it really holds: C may pass any int, and
// loading an enum out of its range is undefined in C++, so validate through this.
template <class Enum> inline int enum_value(const Enum &e)
{
    int v = 0;
    static_assert(sizeof(Enum) == sizeof v, "C enums are int-sized here");
    __builtin_memcpy(&v, &e, sizeof v);
    return v;
}
inline bool aop_valid(const pgdds_aop_t &op)
{
    int v = enum_value(op);
    return v >= PGDDS_AOP_ADD && v <= PGDDS_AOP_SWAP;
}

// Gives fatal signals back their default disposition where a fabric library took them over
// (fatal_signals.cc).
void restore_fatal_signals();
// After the transports are closed: also those handlers that live in libfabric.
void release_fabric_signals();

// Monotonic seconds.
double now_seconds();

// Keeps a destroyed handle's cell alive for the rest of the process. Handles are never freed, so
// a stale one is recognised by its dead magic instead of being a use-after-free; the cells stay
// referenced here, so they are not leaks.
void retire_handle(void *cell);

// Maps x onto [0, n) by its high bits, without a division (Lemire's multiply-shift).
inline uint64_t scale(uint64_t x, uint64_t n)
{
    __extension__ using u128 = unsigned __int128;  // a GCC/Clang type; __extension__ keeps -Wpedantic quiet
    return uint64_t(u128(x) * n >> 64);
}

// Byte copies and comparisons of keys and values: the common word sizes inline as single loads
// and stores instead of calls into the C library.
inline void copy_bytes(void *dst, const void *src, size_t n)
{
    if (n == 8) std::memcpy(dst, src, 8);
    else if (n == 4) std::memcpy(dst, src, 4);
    else if (n == 16) std::memcpy(dst, src, 16);
    else std::memcpy(dst, src, n);
}
inline bool same_bytes(const void *a, const void *b, size_t n)
{
    if (n == 8) {
        uint64_t x, y;
        std::memcpy(&x, a, 8);
        std::memcpy(&y, b, 8);
        return x == y;
    }
    if (n == 4) {
        uint32_t x, y;
        std::memcpy(&x, a, 4);
        std::memcpy(&y, b, 4);
        return x == y;
    }
    if (n == 16) {
        uint64_t x[2], y[2];
        std::memcpy(x, a, 16);
        std::memcpy(y, b, 16);
        return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
    }
    return std::memcmp(a, b, n) == 0;
}

}  // namespace pgdds
