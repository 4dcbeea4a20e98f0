// How a C++ value fits a fixed-size slot of a container (a hash-map key or value, a queue
// element). The C containers hold fixed-size byte strings, so:
//  - a trivially serializable T (serialize.hpp) is its own object representation, sizeof(T)
//    bytes, read and written in place with no copy and no serialization step;
//  - any other T is written by pgdds::serializer<T> after a 32-bit length, in a slot of
//    4 + max_bytes bytes, max_bytes being chosen when the container is created. A longer
//    encoding is refused with pgdds::error(PGDDS_ERR_INVALID_ARG). The rest of the slot is zero,
//    so equal values make equal slots: serialized keys compare and hash correctly.
// Bounded inline storage keeps every operation at its BCL cost (one bucket read finds a key);
// storing variable-size objects out of line would add a remote read per key comparison and
// leave memory management across ranks to the containers.
#pragma once

#include <pgdds/pgdds.hpp>
#include <pgdds/serialize.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace pgdds {

template <class T> class fixed_slot {
  public:
    static constexpr bool trivial = is_trivially_serializable<T>;

    // max_bytes: the largest encoding of a non-trivial T (unused for trivial ones). `what` names
    // the slot in error messages.
    fixed_slot(size_t max_bytes, const char *what) : what_(what)
    {
        if constexpr (trivial) {
            size_ = sizeof(T);
        } else {
            if (max_bytes == 0 || max_bytes > UINT32_MAX)
                throw error(PGDDS_ERR_INVALID_ARG, std::string(what) + ": a serialized type needs a maximum encoded "
                            "size between 1 and 2^32-1 bytes");
            size_ = sizeof(uint32_t) + max_bytes;
        }
    }

    size_t size() const { return size_; }

    // The slot bytes of v: v itself when trivial, else its encoding in `buffer`.
    const void *encode(const T &v, std::vector<unsigned char> &buffer) const
    {
        if constexpr (trivial) {
            (void)buffer;
            return &v;
        } else {
            buffer.assign(size_, 0);
            encode_into(v, buffer.data());
            return buffer.data();
        }
    }

    // Writes the slot bytes of v at out (size() bytes).
    void encode_into(const T &v, void *out) const
    {
        if constexpr (trivial) {
            std::memcpy(out, &v, sizeof(T));
        } else {
            size_t n = serializer<T>::size(v);
            if (n > size_ - sizeof(uint32_t))
                throw error(PGDDS_ERR_INVALID_ARG, std::string(what_) + ": the encoding takes " + std::to_string(n) +
                            " bytes, more than the " + std::to_string(size_ - sizeof(uint32_t)) +
                            " this container was made for");
            auto *bytes = static_cast<unsigned char *>(out);
            uint32_t len = uint32_t(n);
            std::memcpy(bytes, &len, sizeof len);
            serializer<T>::write(v, bytes + sizeof len);
            std::memset(bytes + sizeof len + n, 0, size_ - sizeof len - n);
        }
    }

    // Reads a value from slot bytes.
    T decode(const void *slot) const
    {
        T out;
        if constexpr (trivial) {
            std::memcpy(&out, slot, sizeof(T));
        } else {
            auto *bytes = static_cast<const unsigned char *>(slot);
            uint32_t len;
            std::memcpy(&len, bytes, sizeof len);
            if (len > size_ - sizeof len || !serializer<T>::read(bytes + sizeof len, len, out))
                throw error(PGDDS_ERR_INVALID_ARG, std::string(what_) + ": a slot holds no valid encoding");
        }
        return out;
    }

  private:
    const char *what_;
    size_t size_ = 0;
};

// A view of elements in this rank's memory (a local part, a queue's host view).
template <class T> struct local_span {
    T *data = nullptr;
    size_t size = 0;
    uint64_t first_index = 0;  // global index of data[0], where that means something

    T *begin() const { return data; }
    T *end() const { return data + size; }
    T &operator[](size_t i) const { return data[i]; }
    bool empty() const { return size == 0; }
};

}  // namespace pgdds
