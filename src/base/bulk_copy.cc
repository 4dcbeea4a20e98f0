// bulk_copy's loop: 32-byte AVX2 vectors, four at a time, loads unaligned and stores aligned.
#include "bulk_copy.h"

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>

namespace pgdds::detail {
namespace {

using vec = __m256i;
constexpr size_t vec_bytes = sizeof(vec);

__attribute__((target("avx2"))) inline vec load(const uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const vec *>(p)); }
__attribute__((target("avx2"))) inline void store(uint8_t *p, vec v) { _mm256_store_si256(reinterpret_cast<vec *>(p), v); }
__attribute__((target("avx2"))) inline void store_unaligned(uint8_t *p, vec v)
{
    _mm256_storeu_si256(reinterpret_cast<vec *>(p), v);
}

// Low to high. The first and last vectors go unaligned, the rest to aligned destinations.
__attribute__((target("avx2"))) void forward(uint8_t *d, const uint8_t *s, size_t n)
{
    const vec head = load(s), tail = load(s + n - vec_bytes);
    const size_t skip = vec_bytes - (reinterpret_cast<uintptr_t>(d) & (vec_bytes - 1));
    uint8_t *dd = d + skip;
    const uint8_t *ss = s + skip;
    size_t left = n - skip;
    for (; left >= 4 * vec_bytes; dd += 4 * vec_bytes, ss += 4 * vec_bytes, left -= 4 * vec_bytes) {
        const vec a = load(ss), b = load(ss + vec_bytes), c = load(ss + 2 * vec_bytes), e = load(ss + 3 * vec_bytes);
        store(dd, a);
        store(dd + vec_bytes, b);
        store(dd + 2 * vec_bytes, c);
        store(dd + 3 * vec_bytes, e);
    }
    for (; left >= vec_bytes; dd += vec_bytes, ss += vec_bytes, left -= vec_bytes) store(dd, load(ss));
    store_unaligned(d, head);
    store_unaligned(d + n - vec_bytes, tail);
}

// High to low, for a destination a little after the source modulo 4 KiB: copying forward, each
// load would wait on a store to an address with the same low 12 bits (4K aliasing).
__attribute__((target("avx2"))) void backward(uint8_t *d, const uint8_t *s, size_t n)
{
    const vec head = load(s), second = load(s + vec_bytes), tail = load(s + n - vec_bytes);
    const size_t past = reinterpret_cast<uintptr_t>(d + n) & (vec_bytes - 1);
    size_t left = n - (past ? past : vec_bytes);  // [0, left) ends at an aligned destination
    uint8_t *de = d + left;
    const uint8_t *se = s + left;
    for (; left >= 5 * vec_bytes; de -= 4 * vec_bytes, se -= 4 * vec_bytes, left -= 4 * vec_bytes) {
        const vec a = load(se - vec_bytes), b = load(se - 2 * vec_bytes), c = load(se - 3 * vec_bytes),
                  e = load(se - 4 * vec_bytes);
        store(de - vec_bytes, a);
        store(de - 2 * vec_bytes, b);
        store(de - 3 * vec_bytes, c);
        store(de - 4 * vec_bytes, e);
    }
    for (; left >= 2 * vec_bytes; de -= vec_bytes, se -= vec_bytes, left -= vec_bytes) store(de - vec_bytes, load(se - vec_bytes));
    store_unaligned(d + n - vec_bytes, tail);
    store_unaligned(d + vec_bytes, second);  // [0, left) with left < 64 is covered by these two
    store_unaligned(d, head);
}

}  // namespace

bool copy_vectors(void *dst, const void *src, size_t n)
{
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (!avx2 || n < 4 * vec_bytes) return false;
    auto d = static_cast<uint8_t *>(dst);
    auto s = static_cast<const uint8_t *>(src);
    const uintptr_t ahead = (reinterpret_cast<uintptr_t>(d) - reinterpret_cast<uintptr_t>(s)) & 4095;
    if (ahead != 0 && ahead < 256) backward(d, s, n);
    else forward(d, s, n);
    return true;
}

}  // namespace pgdds::detail

#else

namespace pgdds::detail {
bool copy_vectors(void *, const void *, size_t) { return false; }
}  // namespace pgdds::detail

#endif
