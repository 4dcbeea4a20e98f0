// pgdds::key_table<K, V>: the key tables of pgdds.h — a partitioned global logical address space
// (PDHT) — for C++ types. Thin and header-only over the C ABI.
//
// Keys and values become bytes through pgdds::serializer (serialize.hpp): trivially copyable
// types are passed as their own bytes with no copy; std::string, std::vector<T> and user types
// through their serializer. A key encodes to at least one byte (an empty std::string is refused).
//
//   pgdds::context ctx;
//   pgdds::key_table<std::string, std::vector<double>> t(pgdds::key_table_options(1 << 20, 4096));
//   t.insert("alpha", {1, 2, 3});              // false if "alpha" is present
//   if (auto v = t.get("alpha")) use(*v);      // std::nullopt if absent
//   t.put("alpha", {4});                       // false if absent
//   t.for_each_local([](const std::string &k, std::vector<double> &v) { v.push_back(0); });
//
// Expected outcomes (present, absent) are results; anything else throws pgdds::error.
// Construction and destruction are collective.
#pragma once

#include <pgdds/pgdds.hpp>
#include <pgdds/serialize.hpp>

#include <cstring>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace pgdds {

// Parameters of a key table: the two required ones, then optional ones by name.
struct key_table_options {
    pgdds_keytable_params_t params{};
    key_table_options(uint64_t capacity_per_rank, size_t max_value_size)
    {
        params.capacity_per_rank = capacity_per_rank;
        params.max_value_size = max_value_size;
    }
    // The application's hash of its keys' bytes, the same on every rank.
    key_table_options &hash(pgdds_keytable_hash_t h, void *arg = nullptr)
    {
        params.field_mask |= PGDDS_KEYTABLE_FIELD_HASH;
        params.hash = h;
        params.hash_arg = arg;
        return *this;
    }
    // How many other ranks' entries this rank remembers (0: none).
    key_table_options &cache_entries(uint64_t n)
    {
        params.field_mask |= PGDDS_KEYTABLE_FIELD_CACHE_ENTRIES;
        params.cache_entries = n;
        return *this;
    }
};

namespace detail {
// The bytes of a key or value: the object itself when it is trivially serializable, else its
// encoding (short ones without a heap allocation).
template <class T> class encoded {
  public:
    explicit encoded(const T &v)
    {
        if constexpr (serializer<T>::trivial) {
            data_ = &v;
            size_ = sizeof(T);
        } else {
            size_ = serializer<T>::size(v);
            unsigned char *out = small_;
            if (size_ > sizeof small_) {
                heap_.resize(size_);
                out = heap_.data();
            }
            serializer<T>::write(v, out);
            data_ = out;
        }
    }
    encoded(const encoded &) = delete;
    encoded &operator=(const encoded &) = delete;
    const void *data() const { return data_; }
    size_t size() const { return size_; }

  private:
    const void *data_ = nullptr;
    size_t size_ = 0;
    unsigned char small_[serializer<T>::trivial ? 1 : 128];
    std::vector<unsigned char> heap_;
};

template <class T> T decode(const void *bytes, size_t n, const char *who)
{
    T out;
    if (!serializer<T>::read(bytes, n, out))
        throw error(PGDDS_ERR_INVALID_ARG, std::string(who) + ": " + std::to_string(n) +
                                               " stored bytes are not a valid encoding of the requested type");
    return out;
}
}  // namespace detail

template <class K, class V> class key_table {
  public:
    using key_type = K;
    using value_type = V;

    // Collective. Values of a trivially serializable V need no max_value_size: sizeof(V).
    explicit key_table(uint64_t capacity_per_rank, context_ref ctx = default_context())
        : key_table(key_table_options(capacity_per_rank, fixed_value_size()), ctx)
    {
    }
    explicit key_table(const key_table_options &o, context_ref ctx = default_context())
    {
        check(pgdds_keytable_create(ctx.handle(), &o.params, &h_));
    }
    ~key_table()
    {
        if (h_) pgdds_keytable_destroy(h_);  // a destructor must not throw; destroy() reports failures
    }
    // Collective; reports failure.
    void destroy()
    {
        pgdds_keytable_t h = h_;
        h_ = nullptr;
        check(pgdds_keytable_destroy(h));
    }
    key_table(const key_table &) = delete;
    key_table &operator=(const key_table &) = delete;
    key_table(key_table &&o) noexcept : h_(o.h_) { o.h_ = nullptr; }
    key_table &operator=(key_table &&) = delete;

    pgdds_keytable_t handle() const noexcept { return h_; }

    // false: the key is present already (the table is unchanged).
    bool insert(const K &key, const V &value)
    {
        detail::encoded<K> k(key);
        detail::encoded<V> v(value);
        return expected(pgdds_keytable_insert(h_, k.data(), k.size(), v.data(), v.size()), PGDDS_ERR_EXISTS);
    }

    // std::nullopt: the key is absent.
    std::optional<V> get(const K &key) const
    {
        detail::encoded<K> k(key);
        if constexpr (serializer<V>::trivial) {
            V v;
            size_t len = sizeof(V);
            pgdds_status_t st = pgdds_keytable_get(h_, k.data(), k.size(), &v, &len);
            if (st == PGDDS_ERR_NOT_FOUND) return std::nullopt;
            if (st == PGDDS_ERR_OUT_OF_BOUNDS || (st == PGDDS_OK && len != sizeof(V)))
                throw error(PGDDS_ERR_INVALID_ARG, "key_table::get: the stored value has " + std::to_string(len) +
                                                       " bytes, the type " + std::to_string(sizeof(V)));
            check(st);
            return v;
        } else {
            // A first try in a small buffer; the size needed comes back when it is too small.
            unsigned char small[256];
            std::vector<unsigned char> heap;
            void *buf = small;
            size_t capacity = sizeof small;
            for (;;) {
                size_t len = capacity;
                pgdds_status_t st = pgdds_keytable_get(h_, k.data(), k.size(), buf, &len);
                if (st == PGDDS_ERR_NOT_FOUND) return std::nullopt;
                if (st == PGDDS_ERR_OUT_OF_BOUNDS) {
                    heap.resize(len);
                    buf = heap.data();
                    capacity = len;
                    continue;  // the value may have grown again meanwhile
                }
                check(st);
                return detail::decode<V>(buf, len, "key_table::get");
            }
        }
    }

    // false: the key is absent.
    bool put(const K &key, const V &value)
    {
        detail::encoded<K> k(key);
        detail::encoded<V> v(value);
        return expected(pgdds_keytable_put(h_, k.data(), k.size(), v.data(), v.size()), PGDDS_ERR_NOT_FOUND);
    }

    // Atomics on the 8-byte integer at byte `offset` of the stored value (a multiple of 8, e.g.
    // offsetof of a member). Return the previous value; std::nullopt: the key is absent.
    template <class T> std::optional<T> fetch_op(const K &key, size_t offset, pgdds_aop_t op, T operand)
    {
        static_assert(std::is_integral<T>::value && sizeof(T) == 8, "key-table atomics work on 64-bit integers");
        detail::encoded<K> k(key);
        uint64_t old;
        pgdds_status_t st = pgdds_keytable_atomic_u64(h_, k.data(), k.size(), offset, op, uint64_t(operand), &old);
        if (st == PGDDS_ERR_NOT_FOUND) return std::nullopt;
        check(st);
        return T(old);
    }
    template <class T> std::optional<T> fetch_add(const K &key, size_t offset, T v)
    {
        return fetch_op(key, offset, PGDDS_AOP_ADD, v);
    }

    // false: the key is absent.
    bool remove(const K &key)
    {
        detail::encoded<K> k(key);
        return expected(pgdds_keytable_remove(h_, k.data(), k.size()), PGDDS_ERR_NOT_FOUND);
    }

    // Calls f(const K &, V &) for every key this rank owns; f may change the value. A value
    // whose encoding keeps its size is changed in place during the visit; one whose size
    // changes is stored with put() once the iteration is over. An exception thrown by f ends
    // the iteration and is rethrown here.
    template <class F> void for_each_local(F &&f)
    {
        visit_state<F> s{&f, nullptr, {}};
        check(pgdds_keytable_foreach_local(h_, &visit<F>, &s));
        if (s.failure) std::rethrow_exception(s.failure);
        for (auto &kv : s.resized) put(kv.first, kv.second);
    }

  private:
    static constexpr size_t fixed_value_size()
    {
        static_assert(serializer<V>::trivial,
                      "key_table<K, V>: V is not trivially copyable, so give max_value_size (key_table_options)");
        return sizeof(V);
    }

    // PGDDS_OK -> true, `expected_failure` -> false, anything else throws.
    static bool expected(pgdds_status_t st, pgdds_status_t expected_failure)
    {
        if (st == expected_failure) return false;
        check(st);
        return true;
    }

    template <class F> struct visit_state {
        F *f;
        std::exception_ptr failure;
        std::vector<std::pair<K, V>> resized;
    };

    template <class F> static int visit(const void *key, size_t key_len, void *value, size_t value_len, void *arg)
    {
        auto &s = *static_cast<visit_state<F> *>(arg);
        try {  // no exception crosses the C ABI
            K k = detail::decode<K>(key, key_len, "key_table::for_each_local");
            V v = detail::decode<V>(value, value_len, "key_table::for_each_local");
            (*s.f)(static_cast<const K &>(k), v);
            if (serializer<V>::size(v) == value_len) serializer<V>::write(v, value);
            else s.resized.emplace_back(std::move(k), std::move(v));
            return 0;
        } catch (...) {
            s.failure = std::current_exception();
            return 1;
        }
    }

    pgdds_keytable_t h_ = nullptr;
};

}  // namespace pgdds
