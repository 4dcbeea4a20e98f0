// How C++ values become bytes for the containers and key tables (the ObjectContainer idea of the
// BCL paper, §6). Trivially copyable types go straight through with no copies; std::string,
// std::vector<T> of trivially copyable T and user types go through pgdds::serializer<T>.
//
// A user type specializes serializer with the same four members:
//
//   template <> struct pgdds::serializer<point> {
//       static constexpr bool trivial = false;
//       static size_t size(const point &p);                        // bytes write() produces
//       static void write(const point &p, void *out);              // exactly size(p) bytes
//       static bool read(const void *in, size_t n, point &out);    // false: not a valid encoding
//   };
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace pgdds {

namespace detail {
template <class> struct always_false : std::false_type {};
}  // namespace detail

template <class T, class Enable = void> struct serializer {
    static_assert(detail::always_false<T>::value,
                  "pgdds: T is not trivially copyable; specialize pgdds::serializer<T> (see serialize.hpp)");
};

// Trivially copyable: the object representation itself.
template <class T> struct serializer<T, std::enable_if_t<std::is_trivially_copyable<T>::value>> {
    static constexpr bool trivial = true;
    static constexpr size_t size(const T &) { return sizeof(T); }
    static void write(const T &v, void *out) { std::memcpy(out, &v, sizeof(T)); }
    static bool read(const void *in, size_t n, T &out)
    {
        if (n != sizeof(T)) return false;
        std::memcpy(&out, in, sizeof(T));
        return true;
    }
};

template <> struct serializer<std::string> {
    static constexpr bool trivial = false;
    static size_t size(const std::string &s) { return s.size(); }
    static void write(const std::string &s, void *out)
    {
        if (!s.empty()) std::memcpy(out, s.data(), s.size());
    }
    static bool read(const void *in, size_t n, std::string &out)
    {
        out.assign(static_cast<const char *>(in), n);
        return true;
    }
};

template <class T> struct serializer<std::vector<T>, std::enable_if_t<std::is_trivially_copyable<T>::value>> {
    static constexpr bool trivial = false;
    static size_t size(const std::vector<T> &v) { return v.size() * sizeof(T); }
    static void write(const std::vector<T> &v, void *out)
    {
        if (!v.empty()) std::memcpy(out, v.data(), v.size() * sizeof(T));
    }
    static bool read(const void *in, size_t n, std::vector<T> &out)
    {
        if (n % sizeof(T)) return false;
        out.resize(n / sizeof(T));
        if (n) std::memcpy(out.data(), in, n);
        return true;
    }
};

// Whether T moves as raw bytes with no serialization step.
template <class T> constexpr bool is_trivially_serializable = serializer<T>::trivial;

}  // namespace pgdds
