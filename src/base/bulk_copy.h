// Copies between this process's memory and a mapped peer's: every put and get by load/store
// (core/access.h, the on-node fast path of api_rma.cc, the shm transport) and the collectives'
// slot copies.
#pragma once

#include <cstddef>
#include <cstring>

namespace pgdds {

namespace detail {
// The vector loop behind bulk_copy; false where the CPU lacks AVX2 (memcpy then takes it).
bool copy_vectors(void *dst, const void *src, size_t n);
}  // namespace detail

// memcpy, except between 2 KiB and 512 KiB, where glibc 2.36 copies with `rep movsb`. On AMD Zen
// that instruction starts slowly (1.2-1.7x a vector loop at 3-256 KiB) and collapses, 15-30x,
// when the destination lies a few bytes after the source modulo the page (a malloc'ed buffer
// filled from a page-aligned symmetric address). The loop below has neither problem; above
// 512 KiB glibc's own loop is as fast. The buffers must not overlap.
inline void bulk_copy(void *dst, const void *src, size_t n)
{
    constexpr size_t rep_movsb_from = 2048, rep_movsb_below = size_t(512) << 10;
    if (n <= rep_movsb_from || n >= rep_movsb_below || !detail::copy_vectors(dst, src, n)) memcpy(dst, src, n);
}

}  // namespace pgdds
