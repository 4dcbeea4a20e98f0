// pgdds::hash_map_buffer<K, V>: buffered inserts into a hash_map (BCL paper §5.3,
// pgdds_hashmap_buffer_*). Inserts are unordered and invisible until the collective flush().
//
//   pgdds::hash_map_buffer<uint64_t, uint64_t> buf(map, 1 << 16, 1024);
//   for (...) buf.insert(k, v);
//   buf.flush();
#pragma once

#include <pgdds/hash_map.hpp>

namespace pgdds {

template <class K, class V> class hash_map_buffer {
  public:
    // Collective. queue_capacity and message_size count entries; the map must outlive the buffer.
    hash_map_buffer(const hash_map<K, V> &map, size_t queue_capacity, size_t message_size)
        : key_(map.key_slot()), value_(map.value_slot())
    {
        check(pgdds_hashmap_buffer_create(map.handle(), queue_capacity, message_size, &h_));
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
