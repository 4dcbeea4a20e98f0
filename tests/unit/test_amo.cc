// The atomic-op arithmetic every backend and the core share (src/base/amo.h): amo_next for
// each operation and word type, amo_next_word's widths, and cpu_amo on memory against amo_next.
#include <catch2/catch.hpp>

#include "../../src/base/amo.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

using namespace pgdds;

namespace {

const amo_op transport_ops[] = {AMO_ADD, AMO_AND, AMO_OR, AMO_XOR, AMO_SWAP, AMO_CSWAP, AMO_LOAD};

template <class T> uint64_t bits_of(T v)
{
    uint64_t out = 0;
    memcpy(&out, &v, sizeof v);
    return out;
}

}  // namespace

TEST_CASE("amo_next: the first five operations equal pgdds_aop_t, MIN and MAX follow the transports'", "[amo]")
{
    CHECK((AMO_ADD == 0 && AMO_AND == 1 && AMO_OR == 2 && AMO_XOR == 3 && AMO_SWAP == 4));
    CHECK(AMO_MIN == AMO_COUNT);
    CHECK(AMO_MAX == AMO_MIN + 1);
}

TEMPLATE_TEST_CASE("amo_next: integer operations on unsigned and signed words", "[amo]", uint32_t, uint64_t, int32_t,
                   int64_t)
{
    using T = TestType;
    const T a = T(0x5a), b = T(0x0f);
    CHECK(amo_next<T>(AMO_ADD, a, b) == T(0x69));
    CHECK(amo_next<T>(AMO_AND, a, b) == T(0x0a));
    CHECK(amo_next<T>(AMO_OR, a, b) == T(0x5f));
    CHECK(amo_next<T>(AMO_XOR, a, b) == T(0x55));
    CHECK(amo_next<T>(AMO_SWAP, a, b) == b);
    CHECK(amo_next<T>(AMO_CSWAP, a, b, a) == b);        // compare matches: installs operand
    CHECK(amo_next<T>(AMO_CSWAP, a, b, T(a + 1)) == a);  // it does not: unchanged
    CHECK(amo_next<T>(AMO_LOAD, a, b) == a);
    CHECK(amo_next<T>(AMO_MIN, a, b) == b);
    CHECK(amo_next<T>(AMO_MAX, a, b) == a);
    CHECK(amo_next<T>(AMO_MIN, b, a) == b);
    CHECK(amo_next<T>(AMO_MAX, b, a) == a);
    // ADD wraps at the word's width, signed words too (two's complement, no overflow trap).
    const T top = std::numeric_limits<T>::max();
    CHECK(amo_next<T>(AMO_ADD, top, T(1)) == std::numeric_limits<T>::min());
    // Bitwise operations on every bit, the sign bit included.
    const T all = T(~T(0));
    CHECK(amo_next<T>(AMO_XOR, all, top) == (std::is_signed<T>::value ? std::numeric_limits<T>::min() : T(0)));
    CHECK(amo_next<T>(AMO_AND, all, T(0)) == T(0));
    CHECK(amo_next<T>(AMO_OR, T(0), all) == all);
}

TEST_CASE("amo_next: MIN and MAX follow the word's signedness", "[amo]")
{
    // The same bits: -1 is the largest unsigned value and the smallest signed one.
    CHECK(amo_next<uint32_t>(AMO_MAX, 0xffffffffu, 1u) == 0xffffffffu);
    CHECK(amo_next<int32_t>(AMO_MAX, -1, 1) == 1);
    CHECK(amo_next<uint32_t>(AMO_MIN, 0xffffffffu, 1u) == 1u);
    CHECK(amo_next<int32_t>(AMO_MIN, -1, 1) == -1);
    CHECK(amo_next<uint64_t>(AMO_MAX, ~uint64_t(0), 1) == ~uint64_t(0));
    CHECK(amo_next<int64_t>(AMO_MAX, -1, 1) == 1);
    CHECK(amo_next<uint64_t>(AMO_MIN, ~uint64_t(0), 1) == 1u);
    CHECK(amo_next<int64_t>(AMO_MIN, -1, 1) == -1);
    CHECK(amo_next<int64_t>(AMO_MIN, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()) ==
          std::numeric_limits<int64_t>::min());
    CHECK(amo_next<int32_t>(AMO_MAX, std::numeric_limits<int32_t>::min(), -2) == -2);
    // Equal values: the word keeps its own.
    CHECK(amo_next<int32_t>(AMO_MIN, 7, 7) == 7);
}

TEMPLATE_TEST_CASE("amo_next: floating-point words", "[amo]", float, double)
{
    using T = TestType;
    CHECK(amo_next<T>(AMO_ADD, T(1.5), T(2.25)) == T(3.75));
    CHECK(amo_next<T>(AMO_ADD, T(1.0), T(-3.0)) == T(-2.0));
    CHECK(amo_next<T>(AMO_MIN, T(-1.5), T(2.0)) == T(-1.5));
    CHECK(amo_next<T>(AMO_MIN, T(2.0), T(-1.5)) == T(-1.5));
    CHECK(amo_next<T>(AMO_MAX, T(-1.5), T(2.0)) == T(2.0));
    CHECK(amo_next<T>(AMO_MAX, T(2.0), T(-1.5)) == T(2.0));
    CHECK(amo_next<T>(AMO_MAX, -std::numeric_limits<T>::infinity(), T(-1e30)) == T(-1e30));
    CHECK(amo_next<T>(AMO_SWAP, T(1.0), T(4.0)) == T(4.0));
    CHECK(amo_next<T>(AMO_LOAD, T(1.0), T(4.0)) == T(1.0));
    // CSWAP compares bits: -0.0 equals 0.0 as a number but is not the word compared with.
    CHECK(amo_next<T>(AMO_CSWAP, T(0.5), T(4.0), T(0.5)) == T(4.0));
    CHECK(bits_of(amo_next<T>(AMO_CSWAP, T(-0.0), T(4.0), T(0.0))) == bits_of(T(-0.0)));
    // Equal as numbers: the word keeps its own bits (0.0 and -0.0 compare equal).
    CHECK(bits_of(amo_next<T>(AMO_MIN, T(0.0), T(-0.0))) == bits_of(T(0.0)));
    CHECK(bits_of(amo_next<T>(AMO_MAX, T(-0.0), T(0.0))) == bits_of(T(-0.0)));
    // A NaN operand never wins a comparison: MIN and MAX keep the word (the core's loop then
    // stores nothing).
    const T nan = std::numeric_limits<T>::quiet_NaN();
    CHECK(amo_next<T>(AMO_MIN, T(3.0), nan) == T(3.0));
    CHECK(amo_next<T>(AMO_MAX, T(3.0), nan) == T(3.0));
    CHECK(std::isnan(amo_next<T>(AMO_ADD, T(3.0), nan)));
    // No bitwise operation exists on floating-point words: the word stays.
    for (amo_op op : {AMO_AND, AMO_OR, AMO_XOR}) CHECK(amo_next<T>(op, T(3.0), T(5.0)) == T(3.0));
}

TEST_CASE("amo_next_word: 4-byte words wrap and compare in their low 32 bits", "[amo]")
{
    CHECK(amo_next_word(AMO_ADD, 4, 0xffffffffu, 1) == 0);
    CHECK(amo_next_word(AMO_ADD, 8, 0xffffffffu, 1) == 0x100000000ull);
    CHECK(amo_next_word(AMO_ADD, 8, ~0ull, 1) == 0);
    // The operand's upper half does not reach a 4-byte word.
    CHECK(amo_next_word(AMO_OR, 4, 0x1, 0xff00000002ull) == 0x3);
    CHECK(amo_next_word(AMO_SWAP, 4, 0x1, 0x1234567800000009ull) == 0x9);
    CHECK(amo_next_word(AMO_CSWAP, 4, 0x5, 0x7, 0xabcd00000005ull) == 0x7);
    CHECK(amo_next_word(AMO_CSWAP, 8, 0x5, 0x7, 0xabcd00000005ull) == 0x5);
    CHECK(amo_next_word(AMO_XOR, 8, 0xff00ff00ff00ff00ull, ~0ull) == 0x00ff00ff00ff00ffull);
    CHECK(amo_next_word(AMO_LOAD, 4, 0x42, 0x99) == 0x42);
    // MIN and MAX compare unsigned words.
    CHECK(amo_next_word(AMO_MAX, 4, 0x80000000u, 1) == 0x80000000u);
    CHECK(amo_next_word(AMO_MIN, 8, 0x8000000000000000ull, 1) == 1);
}

TEST_CASE("cpu_amo executes every transport operation of each width as amo_next computes it", "[amo]")
{
    const uint64_t values[] = {0, 1, 0x5a5a5a5a, 0xffffffffu, 0x100000000ull, 0x8000000000000000ull, ~0ull,
                               0xff00ff00ff00ff00ull};
    for (amo_op op : transport_ops) {
        for (unsigned width : {4u, 8u}) {
            for (uint64_t init : values) {
                for (uint64_t operand : values) {
                    for (bool compare_matches : {false, true}) {
                        if (op != AMO_CSWAP && compare_matches) continue;
                        const uint64_t mask = width == 4 ? 0xffffffffull : ~0ull;
                        const uint64_t compare = compare_matches ? init & mask : (init ^ 0x10) & mask;
                        // The word, and a neighbour a 4-byte operation must not touch.
                        alignas(8) uint32_t words[2];
                        uint64_t word64 = init;
                        void *target = width == 4 ? static_cast<void *>(words) : static_cast<void *>(&word64);
                        words[0] = uint32_t(init);
                        words[1] = 0xc0ffee;
                        uint64_t fetched = 0;  // a 4-byte operation writes its low half
                        cpu_amo(target, amo_args{op, width, operand, compare, &fetched});
                        const uint64_t now = width == 4 ? uint64_t(words[0]) : word64;
                        INFO("op " << int(op) << " width " << width << std::hex << " init " << init << " operand "
                                   << operand << " compare " << compare);
                        CHECK(fetched == (init & mask));
                        CHECK(now == amo_next_word(op, width, init & mask, operand, compare));
                        if (width == 4) CHECK(words[1] == 0xc0ffeeu);
                    }
                }
            }
        }
    }
}

TEST_CASE("cpu_amo without a result buffer still applies the operation", "[amo]")
{
    uint64_t w = 40;
    cpu_amo(&w, amo_args{AMO_ADD, 8, 2, 0, nullptr});
    CHECK(w == 42);
    uint32_t v = 0xf0;
    cpu_amo(&v, amo_args{AMO_XOR, 4, 0xff, 0, nullptr});
    CHECK(v == 0x0f);
}

TEST_CASE("cpu_amo is atomic under contention", "[amo]")
{
    alignas(8) uint64_t counter = 0;
    alignas(8) uint32_t bits = 0;
    const int threads = 4, rounds = 20000;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int i = 0; i < rounds; ++i) {
                cpu_amo(&counter, amo_args{AMO_ADD, 8, 3, 0, nullptr});
                // Each thread toggles its own bit an even number of times in total.
                cpu_amo(&bits, amo_args{AMO_XOR, 4, 1u << t, 0, nullptr});
            }
        });
    for (auto &th : pool) th.join();
    CHECK(counter == uint64_t(3) * threads * rounds);
    CHECK(bits == 0);
}
