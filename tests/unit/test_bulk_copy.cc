// bulk_copy (src/base/bulk_copy.h): every byte of every size around its thresholds and vector
// widths lands, at every alignment of source and destination and every distance between them
// modulo the page that chooses its direction, and not one byte outside the destination changes.
#include <catch2/catch.hpp>

#include "../../src/base/bulk_copy.h"

#include <cstdint>
#include <vector>

using pgdds::bulk_copy;

namespace {

void check_copy(size_t n, size_t src_at, size_t dst_at)
{
    constexpr size_t guard = 64;
    std::vector<uint8_t> src(n + 8192), dst(n + 8192 + 2 * guard);
    for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 131 + 7);
    for (auto &b : dst) b = 0xa5;
    // Offsets counted from 4 KiB boundaries, so that the distance modulo the page is the one asked.
    auto page = [](uint8_t *p) { return p + ((4096 - reinterpret_cast<uintptr_t>(p) % 4096) % 4096); };
    const uint8_t *s = page(src.data()) + src_at;
    uint8_t *d = page(dst.data() + guard) + dst_at;
    REQUIRE(s + n <= src.data() + src.size());
    REQUIRE(d + n + guard <= dst.data() + dst.size());
    bulk_copy(d, s, n);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += d[i] != s[i];
    CHECK(wrong == 0);
    size_t touched = 0;
    for (const uint8_t *p = dst.data(); p < d; ++p) touched += *p != 0xa5;
    for (const uint8_t *p = d + n; p < dst.data() + dst.size(); ++p) touched += *p != 0xa5;
    CHECK(touched == 0);
}

}  // namespace

TEST_CASE("bulk_copy copies every byte and nothing else", "[bulk_copy]")
{
    const size_t sizes[] = {0, 1, 31, 127, 128, 2048, 2049, 2050, 3000, 4096, 4097, 8191, 65536 + 33,
                            (size_t(512) << 10) - 1, size_t(512) << 10};
    const size_t offsets[] = {0, 1, 15, 16, 31, 32, 80, 208, 255, 256, 4031, 4032, 4080, 4095};
    for (size_t n : sizes)
        for (size_t so : offsets)
            for (size_t doff : offsets) {
                CAPTURE(n, so, doff);
                check_copy(n, so, doff);
            }
}
