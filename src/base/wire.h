// Connection data: what a backend publishes from address() and reads back in connect().
//
// wire_writer appends a header (the backend's magic and layout version), fixed-size integers,
// raw arrays and length-prefixed byte strings to a byte vector; wire_reader reads the same back,
// each read bounds-checked. Integers travel in host byte order: every rank of a job runs the
// same build. A read that fails (past the end, a length prefix longer than what follows, another
// magic or version, a count that differs from this rank's) makes the reader bad: that read and
// every later one fail, store zeros and never touch memory outside the blob. finish() then
// names the backend, the rank and what was wrong, and returns PGDDS_ERR_TRANSPORT, the status
// every backend gives for connection data it cannot use.
#pragma once

#include "common.h"

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace pgdds {

class wire_writer {
  public:
    explicit wire_writer(std::vector<uint8_t> &out) : out_(out) {}

    void header(uint32_t magic, uint16_t version)
    {
        put(magic);
        put(version);
    }
    template <class T> void put(T v)
    {
        static_assert(std::is_integral<T>::value, "connection data holds integers and bytes");
        raw(&v, sizeof v);
    }
    // n integers, no length on the wire (the reader knows n).
    template <class T> void array(const T *v, size_t n)
    {
        static_assert(std::is_integral<T>::value, "connection data holds integers and bytes");
        raw(v, n * sizeof(T));
    }
    // A byte string behind a 32-bit length.
    void bytes(const void *p, size_t n)
    {
        put(uint32_t(n));
        raw(p, n);
    }
    void raw(const void *p, size_t n)
    {
        if (!n) return;
        // resize and copy, not insert: GCC 12 sees an insert after clear() write past a vector
        // of size 0 (-Wstringop-overflow, a false positive that depends on inlining).
        size_t at = out_.size();
        out_.resize(at + n);
        std::memcpy(out_.data() + at, p, n);
    }

  private:
    std::vector<uint8_t> &out_;
};

class wire_reader {
  public:
    wire_reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
    explicit wire_reader(const std::vector<uint8_t> &blob) : wire_reader(blob.data(), blob.size()) {}

    bool ok() const { return why_ == problem::none; }
    size_t offset() const { return pos_; }
    size_t remaining() const { return size_ - pos_; }

    // The header wire_writer::header() wrote with the same magic and version.
    bool header(uint32_t magic, uint16_t version)
    {
        size_t at = pos_;
        uint32_t m = 0;
        uint16_t v = 0;
        if (!get(m) || !get(v)) return false;
        if (m == magic && v == version) return true;
        return bad(problem::foreign, at, m, v, uint64_t(magic) << 16 | version);
    }
    template <class T> bool get(T &v)
    {
        static_assert(std::is_integral<T>::value, "connection data holds integers and bytes");
        return raw(&v, sizeof v);
    }
    // An integer that must equal this rank's own value (`what`: "VCIs", "endpoints").
    template <class T> bool expect(T want, const char *what)
    {
        size_t at = pos_;
        T v{};
        if (!get(v)) return false;
        if (v == want) return true;
        what_ = what;
        return bad(problem::mismatch, at, uint64_t(v), 0, uint64_t(want));
    }
    // n integers into v[0..n).
    template <class T> bool array(T *v, size_t n)
    {
        static_assert(std::is_integral<T>::value, "connection data holds integers and bytes");
        if (ok() && n > remaining() / sizeof(T)) bad(problem::truncated, pos_, n, sizeof(T), 0);
        return raw(v, n * sizeof(T));
    }
    // A byte string that wire_writer::bytes() wrote: `p` points into the blob (nullptr after a
    // failure), `n` is its length, at most `max`.
    bool bytes(const uint8_t *&p, size_t &n, size_t max = SIZE_MAX)
    {
        p = nullptr;
        n = 0;
        size_t at = pos_;
        uint32_t len = 0;
        if (!get(len)) return false;
        if (len > remaining() || len > max) return bad(problem::long_string, at, len, remaining(), max);
        p = data_ + pos_;
        n = len;
        pos_ += len;
        return true;
    }
    bool raw(void *dst, size_t n)
    {
        if (ok() && n > remaining()) bad(problem::truncated, pos_, n, 1, 0);
        if (!ok()) {
            if (n) std::memset(dst, 0, n);
            return false;
        }
        if (n) std::memcpy(dst, data_ + pos_, n);
        pos_ += n;
        return true;
    }

    // PGDDS_OK when every read succeeded and the blob ended with the last; otherwise records
    // why, as "<who>: rank <rank>'s connection data ...", and returns PGDDS_ERR_TRANSPORT.
    status finish(const char *who, int rank)
    {
        if (ok() && remaining()) bad(problem::trailing, pos_, remaining(), 0, 0);
        const status st = PGDDS_ERR_TRANSPORT;
        switch (why_) {
        case problem::none:
            return PGDDS_OK;
        case problem::foreign:
            return fail(st, "%s: rank %d's connection data has magic %#" PRIx64 " version %" PRIu64 ", this rank "
                        "expects magic %#" PRIx64 " version %" PRIu64 ": is rank %d built from another libpgdds, or "
                        "running another transport?", who, rank, a_, b_, c_ >> 16, c_ & 0xffff, rank);
        case problem::truncated:
            if (b_ > 1)
                return fail(st, "%s: rank %d's connection data is truncated: %zu bytes, where a read of %" PRIu64
                            " items of %" PRIu64 " bytes at offset %zu needs more", who, rank, size_, a_, b_, at_);
            return fail(st, "%s: rank %d's connection data is truncated: %zu bytes, where a read of %" PRIu64
                        " bytes at offset %zu needs more", who, rank, size_, a_, at_);
        case problem::long_string:
            if (a_ > c_)
                return fail(st, "%s: rank %d's connection data has a string of %" PRIu64 " bytes at offset %zu, "
                            "more than the %" PRIu64 " allowed", who, rank, a_, at_, c_);
            return fail(st, "%s: rank %d's connection data is truncated or corrupt: a length prefix of %" PRIu64
                        " bytes at offset %zu, where only %" PRIu64 " bytes follow", who, rank, a_, at_, b_);
        case problem::mismatch:
            return fail(st, "%s: rank %d's connection data has %" PRIu64 " %s, this rank %" PRIu64, who, rank, a_,
                        what_, c_);
        case problem::trailing:
            return fail(st, "%s: rank %d's connection data has %" PRIu64 " trailing bytes after the %zu expected",
                        who, rank, a_, at_);
        }
        return st;
    }

  private:
    enum class problem { none, foreign, truncated, long_string, mismatch, trailing };

    // Records the first failure only; always false.
    bool bad(problem why, size_t at, uint64_t a, uint64_t b, uint64_t c)
    {
        if (ok()) {
            why_ = why;
            at_ = at;
            a_ = a;
            b_ = b;
            c_ = c;
        }
        return false;
    }

    const uint8_t *data_;
    size_t size_;
    size_t pos_ = 0;
    problem why_ = problem::none;
    size_t at_ = 0;                // where the failed read started
    uint64_t a_ = 0, b_ = 0, c_ = 0;  // what it found and wanted (see finish)
    const char *what_ = "";
};

}  // namespace pgdds
