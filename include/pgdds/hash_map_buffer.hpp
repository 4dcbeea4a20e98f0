// pgdds::hash_map_buffer<K, V>: buffered inserts into a hash_map (BCL paper §5.3,
// pgdds_hashmap_buffer_*). Inserts are unordered and invisible until the collective flush().
//
//   pgdds::hash_map_buffer<uint64_t, uint64_t> buf(map, 1 << 16, 1024);
//   for (...) buf.insert(k, v);
//   buf.flush();
//
// A combining buffer merges entries into values already present instead of replacing them, e.g.
// counting (trivially copyable V):
//   pgdds::hash_map_buffer<uint64_t, uint32_t> counts(map, 1 << 16, 1024,
//       pgdds::hash_map_buffer_options<uint32_t>().combine([](uint32_t &c, const uint32_t &add) { c += add; }));
#pragma once

#include <pgdds/hash_map.hpp>

#include <cstring>

namespace pgdds {

// How a hash_map_buffer's flush treats an entry whose key is already in the map (the C options
// pgdds_hashmap_buffer_options_t).
template <class V> class hash_map_buffer_options {
  public:
    using combine_fn = void (*)(V &stored, const V &incoming);

    // The stored value becomes combine(stored, incoming). Runs on the key's owner in no defined
    // order of entries (a sum, a maximum); the same function on every rank. A captureless lambda
    // converts to combine_fn.
    hash_map_buffer_options &combine(combine_fn f)
    {
        static_assert(fixed_slot<V>::trivial, "pgdds::hash_map_buffer_options::combine needs a trivially copyable value");
        c_.field_mask |= PGDDS_HASHMAP_BUFFER_OPTION_COMBINE;
        c_.combine = &apply;
        c_.combine_arg = reinterpret_cast<void *>(f);
        return *this;
    }
    // Entries whose key is absent are dropped instead of inserted.
    hash_map_buffer_options &update_only(bool on = true)
    {
        c_.field_mask |= PGDDS_HASHMAP_BUFFER_OPTION_UPDATE_ONLY;
        c_.update_only = on ? 1 : 0;
        return *this;
    }
    const pgdds_hashmap_buffer_options_t &c_options() const { return c_; }

  private:
    static void apply(void *stored, const void *incoming, void *arg)
    {
        V s, in;  // copies: a bucket need not be aligned for V
        std::memcpy(&s, stored, sizeof s);
        std::memcpy(&in, incoming, sizeof in);
        reinterpret_cast<combine_fn>(arg)(s, in);
        std::memcpy(stored, &s, sizeof s);
    }

    pgdds_hashmap_buffer_options_t c_{};
};

template <class K, class V> class hash_map_buffer {
  public:
    // Collective. queue_capacity and message_size count entries; the map must outlive the buffer.
    hash_map_buffer(const hash_map<K, V> &map, size_t queue_capacity, size_t message_size)
        : key_(map.key_slot()), value_(map.value_slot())
    {
        check(pgdds_hashmap_buffer_create(map.handle(), queue_capacity, message_size, &h_));
    }
    // Collective: a combining or updating buffer.
    hash_map_buffer(const hash_map<K, V> &map, size_t queue_capacity, size_t message_size,
                    const hash_map_buffer_options<V> &options)
        : key_(map.key_slot()), value_(map.value_slot())
    {
        check(pgdds_hashmap_buffer_create_with(map.handle(), queue_capacity, message_size, &options.c_options(), &h_));
    }
    ~hash_map_buffer()
    {
        if (h_) pgdds_hashmap_buffer_destroy(h_);
    }
    void destroy()
    {
        pgdds_hashmap_buffer_t h = std::exchange(h_, nullptr);
        check(pgdds_hashmap_buffer_destroy(h));
    }
    hash_map_buffer(const hash_map_buffer &) = delete;
    hash_map_buffer &operator=(const hash_map_buffer &) = delete;
    hash_map_buffer(hash_map_buffer &&o) noexcept : key_(o.key_), value_(o.value_), h_(std::exchange(o.h_, nullptr)) {}
    hash_map_buffer &operator=(hash_map_buffer &&) = delete;

    pgdds_hashmap_buffer_t handle() const noexcept { return h_; }

    void insert(const K &key, const V &value) const
    {
        std::vector<unsigned char> kb, vb;
        check(pgdds_hashmap_buffer_insert(h_, key_.encode(key, kb), value_.encode(value, vb)));
    }
    // Collective: every buffered insert is in the map when it returns.
    void flush() const { check(pgdds_hashmap_buffer_flush(h_)); }

  private:
    fixed_slot<K> key_;
    fixed_slot<V> value_;
    pgdds_hashmap_buffer_t h_ = nullptr;
};

}  // namespace pgdds
