// The connection-data encoder and decoder the backends share (src/base/wire.h): a round trip of
// every kind of field, and each way a blob can be wrong (truncated at every byte, another magic
// or version, a count that differs, trailing bytes, a length prefix longer than the blob), with
// the blob placed right before an inaccessible page so that any read past its end faults.
#include <catch2/catch.hpp>

#include "../../src/base/wire.h"

#include <pgdds/pgdds.h>

#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace pgdds;

namespace {

constexpr uint32_t magic = 0x74736574;  // "test"
constexpr uint16_t version = 3;

const uint8_t name_bytes[] = {9, 8, 7, 6, 5};
const uint64_t keys[] = {0x1111222233334444ull, 0x5555666677778888ull, 0x99990000aaaabbbbull};
const uint8_t gid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};

// One field of each kind: header, integers of every width and signedness, a raw array, byte
// strings (one empty), a count checked with expect().
std::vector<uint8_t> sample()
{
    std::vector<uint8_t> b;
    wire_writer w(b);
    w.header(magic, version);
    w.put(uint8_t(0xa5));
    w.put(uint16_t(0xbeef));
    w.put(uint32_t(3));  // the count the reader expects
    w.put(int32_t(-7));
    w.put(uint64_t(0x0123456789abcdefull));
    w.array(keys, 3);
    w.bytes(name_bytes, sizeof name_bytes);
    w.bytes(nullptr, 0);
    w.raw(gid, sizeof gid);
    return b;
}
constexpr size_t sample_size = 4 + 2 + 1 + 2 + 4 + 4 + 8 + 3 * 8 + (4 + 5) + 4 + 16;

struct decoded {
    uint8_t u8 = 0;
    uint16_t u16 = 0;
    int32_t i32 = 0;
    uint64_t u64 = 0;
    uint64_t keys[3] = {};
    const uint8_t *name = nullptr;
    size_t name_len = 0;
    const uint8_t *empty = nullptr;
    size_t empty_len = 0;
    uint8_t gid[16] = {};
};

// Reads what sample() wrote; returns finish()'s status. `max_name` bounds the first string.
status decode(const uint8_t *p, size_t n, decoded &d, size_t max_name = SIZE_MAX)
{
    wire_reader r(p, n);
    r.header(magic, version);
    r.get(d.u8);
    r.get(d.u16);
    r.expect(uint32_t(3), "keys");
    r.get(d.i32);
    r.get(d.u64);
    r.array(d.keys, 3);
    r.bytes(d.name, d.name_len, max_name);
    r.bytes(d.empty, d.empty_len);
    r.raw(d.gid, sizeof d.gid);
    return r.finish("test", 5);
}

std::string last_error() { return pgdds_last_error(); }
bool error_has(const char *text) { return last_error().find(text) != std::string::npos; }

// n bytes that end where an inaccessible page begins.
class guarded {
  public:
    guarded()
    {
        page_ = size_t(sysconf(_SC_PAGESIZE));
        void *m = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(m != MAP_FAILED);
        base_ = static_cast<uint8_t *>(m);
        REQUIRE(mprotect(base_ + page_, page_, PROT_NONE) == 0);
    }
    ~guarded() { munmap(base_, 2 * page_); }
    guarded(const guarded &) = delete;
    guarded &operator=(const guarded &) = delete;

    const uint8_t *place(const std::vector<uint8_t> &b, size_t n)
    {
        REQUIRE(n <= page_);
        uint8_t *p = base_ + page_ - n;
        if (n) memcpy(p, b.data(), n);
        return p;
    }

  private:
    size_t page_ = 0;
    uint8_t *base_ = nullptr;
};

template <class T> void poke(std::vector<uint8_t> &b, size_t at, T v) { memcpy(b.data() + at, &v, sizeof v); }

}  // namespace

TEST_CASE("every kind of field survives a round trip", "[wire]")
{
    const std::vector<uint8_t> b = sample();
    CHECK(b.size() == sample_size);
    guarded g;
    const uint8_t *p = g.place(b, b.size());
    decoded d;
    REQUIRE(decode(p, b.size(), d) == PGDDS_OK);
    CHECK(d.u8 == 0xa5);
    CHECK(d.u16 == 0xbeef);
    CHECK(d.i32 == -7);
    CHECK(d.u64 == 0x0123456789abcdefull);
    CHECK(memcmp(d.keys, keys, sizeof keys) == 0);
    REQUIRE(d.name_len == sizeof name_bytes);
    CHECK(memcmp(d.name, name_bytes, sizeof name_bytes) == 0);
    CHECK(d.name >= p);  // a view into the blob, not a copy
    CHECK(d.name + d.name_len <= p + b.size());
    CHECK(d.empty_len == 0);
    CHECK(memcmp(d.gid, gid, sizeof gid) == 0);

    wire_reader r(b);  // the vector constructor reads the same
    uint32_t m = 0;
    uint16_t v = 0;
    CHECK(r.get(m));
    CHECK(r.get(v));
    CHECK(m == magic);
    CHECK(v == version);
    CHECK(r.offset() == 6);
    CHECK(r.remaining() == b.size() - 6);
}

TEST_CASE("a blob truncated at any byte is refused without reading past its end", "[wire]")
{
    const std::vector<uint8_t> b = sample();
    guarded g;
    for (size_t n = 0; n < b.size(); ++n) {
        INFO("first " << n << " bytes");
        decoded d;
        CHECK(decode(g.place(b, n), n, d) == PGDDS_ERR_TRANSPORT);
        CHECK(error_has("test: rank 5's connection data"));
        CHECK(error_has("truncated"));
    }
}

TEST_CASE("another magic or version names the build", "[wire]")
{
    decoded d;
    for (size_t at : {size_t(0), size_t(3), size_t(4), size_t(5)}) {
        INFO("byte " << at);
        std::vector<uint8_t> b = sample();
        b[at] ^= 0x40;
        CHECK(decode(b.data(), b.size(), d) == PGDDS_ERR_TRANSPORT);
        CHECK(error_has("rank 5"));
        CHECK(error_has("another libpgdds"));
    }
    std::vector<uint8_t> other;
    wire_writer w(other);
    w.header(magic, version + 1);
    CHECK(decode(other.data(), other.size(), d) == PGDDS_ERR_TRANSPORT);
    CHECK(error_has("version 4"));
    CHECK(error_has("another libpgdds"));
}

TEST_CASE("a count that differs from this rank's is named", "[wire]")
{
    std::vector<uint8_t> b = sample();
    poke(b, 9, uint32_t(4));
    decoded d;
    CHECK(decode(b.data(), b.size(), d) == PGDDS_ERR_TRANSPORT);
    CHECK(error_has("rank 5's connection data has 4 keys, this rank 3"));
}

TEST_CASE("trailing bytes are refused", "[wire]")
{
    for (size_t extra : {1, 2, 100}) {
        std::vector<uint8_t> b = sample();
        b.resize(b.size() + extra, 0);
        decoded d;
        CHECK(decode(b.data(), b.size(), d) == PGDDS_ERR_TRANSPORT);
        CHECK(error_has("rank 5"));
        CHECK(error_has(("has " + std::to_string(extra) + " trailing bytes").c_str()));
    }
}

TEST_CASE("a length prefix longer than the blob or the limit is refused", "[wire]")
{
    constexpr size_t at_name = sample_size - 16 - 4 - 9;  // the first string's length
    guarded g;
    decoded d;
    for (uint32_t len : {uint32_t(sizeof name_bytes + 4 + 16 + 1), uint32_t(1) << 31, uint32_t(0xffffffff)}) {
        INFO("length " << len);
        std::vector<uint8_t> b = sample();
        poke(b, at_name, len);
        CHECK(decode(g.place(b, b.size()), b.size(), d) == PGDDS_ERR_TRANSPORT);
        CHECK(error_has("rank 5"));
        CHECK(error_has("length prefix"));
        CHECK(d.name == nullptr);
        CHECK(d.name_len == 0);
    }
    {
        // Exactly the rest of the blob: the string is read, the next length then is missing.
        std::vector<uint8_t> b = sample();
        poke(b, at_name, uint32_t(sizeof name_bytes + 4 + 16));
        CHECK(decode(g.place(b, b.size()), b.size(), d) == PGDDS_ERR_TRANSPORT);
        CHECK(error_has("truncated"));
    }
    const std::vector<uint8_t> b = sample();
    CHECK(decode(b.data(), b.size(), d, sizeof name_bytes) == PGDDS_OK);
    CHECK(decode(b.data(), b.size(), d, sizeof name_bytes - 1) == PGDDS_ERR_TRANSPORT);
    CHECK(error_has("more than the 4 allowed"));
}

TEST_CASE("after a failed read every read fails, stores zeros and the first failure is reported", "[wire]")
{
    const std::vector<uint8_t> b = sample();
    wire_reader r(b.data(), 3);
    uint32_t m = 0xdeadbeef;
    CHECK_FALSE(r.get(m));
    CHECK(m == 0);
    CHECK_FALSE(r.ok());
    uint8_t one = 0xff;
    CHECK_FALSE(r.get(one));  // a byte would still fit, but the reader is bad
    CHECK(one == 0);
    uint64_t arr[2] = {1, 2};
    CHECK_FALSE(r.array(arr, 2));
    CHECK((arr[0] == 0 && arr[1] == 0));
    const uint8_t *s = b.data();
    size_t n = 9;
    CHECK_FALSE(r.bytes(s, n));
    CHECK(s == nullptr);
    CHECK(n == 0);
    CHECK_FALSE(r.expect(uint16_t(0), "things"));
    CHECK(r.finish("test", 1) == PGDDS_ERR_TRANSPORT);
    CHECK(error_has("truncated: 3 bytes, where a read of 4 bytes at offset 0"));
}

TEST_CASE("an array longer than the blob is refused before its byte count can wrap", "[wire]")
{
    const std::vector<uint8_t> b = sample();
    // 2^61 + 1 eight-byte words: the byte count wraps to 8, which the blob would hold.
    const size_t wraps = (SIZE_MAX / sizeof(uint64_t)) + 2;
    wire_reader r(b);
    uint64_t one = 1;
    CHECK_FALSE(r.array(&one, wraps));
    CHECK(one == 0);  // the destination's first word, the only one written: wraps * 8 == 8
    CHECK(r.finish("test", 2) == PGDDS_ERR_TRANSPORT);
    CHECK(error_has("truncated"));
    CHECK(error_has("items of 8 bytes"));
}

TEST_CASE("an empty blob and an empty reader", "[wire]")
{
    guarded g;
    decoded d;
    CHECK(decode(g.place({}, 0), 0, d) == PGDDS_ERR_TRANSPORT);
    CHECK(error_has("truncated: 0 bytes"));
    wire_reader r(nullptr, 0);
    CHECK(r.finish("test", 0) == PGDDS_OK);  // nothing read, nothing left
}
