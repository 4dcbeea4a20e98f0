// pgdds::hash_map<K, V>: the distributed hash map of the C interface (pgdds_hashmap_*) with
// typed keys and values. Collective construction and destruction; everything else one-sided.
//
//   pgdds::context ctx;
//   pgdds::hash_map<uint64_t, double> m(ctx, 1 << 20);
//   m.insert(42, 3.5);
//   if (auto v = m.find(42, pgdds::promise::find)) use(*v);
//
// Keys and values are fixed-size slots (fixed_slot.hpp): trivially copyable types go straight
// through; std::string, std::vector<T> and user types with a pgdds::serializer need a maximum
// encoded size in the options:
//   pgdds::hash_map<std::string, int> names(ctx, 1000, pgdds::hash_map_options().max_key_bytes(32));
// Trivially copyable keys are compared and hashed as bytes: give padded structs zeroed padding
// or a serializer.
#pragma once

#include <pgdds/fixed_slot.hpp>
#include <pgdds/future.hpp>
#include <pgdds/pgdds.hpp>
#include <pgdds/promise.hpp>

#include <cstddef>
#include <exception>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

namespace pgdds {

class hash_map_options {
  public:
    // The largest encoding of a serialized (non trivially copyable) key or value.
    hash_map_options &max_key_bytes(size_t n) { key_bytes_ = n; return *this; }
    hash_map_options &max_value_bytes(size_t n) { value_bytes_ = n; return *this; }
    // Buckets one probe may visit (default min(1024, buckets per rank)).
    hash_map_options &max_probes(uint32_t n)
    {
        c_.field_mask |= PGDDS_HASHMAP_OPTION_MAX_PROBES;
        c_.max_probes = n;
        return *this;
    }
    // A hash of the key's slot bytes, the same function on every rank (default XXH3).
    hash_map_options &hash(pgdds_hash_fn_t fn, void *arg = nullptr)
    {
        c_.field_mask |= PGDDS_HASHMAP_OPTION_HASH;
        c_.hash = fn;
        c_.hash_arg = arg;
        return *this;
    }

    // PGDDS_PROTOCOL_RDMA or PGDDS_PROTOCOL_RPC towards ranks not reached by load/store
    // (default PGDDS_CONTAINER_PROTOCOL), the same on every rank.
    hash_map_options &protocol(int p)
    {
        c_.field_mask |= PGDDS_HASHMAP_OPTION_PROTOCOL;
        c_.protocol = p;
        return *this;
    }

    size_t key_bytes() const { return key_bytes_; }
    size_t value_bytes() const { return value_bytes_; }
    const pgdds_hashmap_options_t &c_options() const { return c_; }

  private:
    size_t key_bytes_ = 0, value_bytes_ = 0;
    pgdds_hashmap_options_t c_{};
};

template <class K, class V> class hash_map;

// An input iterator over a hash map's local entries; end() is a sentinel.
template <class K, class V> class hash_map_local_iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = std::pair<K, V>;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type *;
    using reference = const value_type &;
    struct sentinel {};

    explicit hash_map_local_iterator(const hash_map<K, V> *map) : map_(map),
        key_(map->key_slot().size()), value_(map->value_slot().size())
    {
        advance();
    }
    reference operator*() const { return *entry_; }
    pointer operator->() const { return &*entry_; }
    hash_map_local_iterator &operator++()
    {
        advance();
        return *this;
    }
    void operator++(int) { advance(); }
    bool operator==(sentinel) const { return !entry_; }
    bool operator!=(sentinel) const { return bool(entry_); }

  private:
    void advance()
    {
        pgdds_status_t st = pgdds_hashmap_local_next(map_->handle(), &cursor_, key_.data(), value_.data());
        if (st == PGDDS_ERR_NOT_FOUND) {
            entry_.reset();
            return;
        }
        check(st);
        entry_.emplace(map_->key_slot().decode(key_.data()), map_->value_slot().decode(value_.data()));
    }

    const hash_map<K, V> *map_;
    uint64_t cursor_ = 0;
    std::vector<unsigned char> key_, value_;  // the slots' bytes (the bucket may not be aligned)
    std::optional<value_type> entry_;
};

template <class K, class V> class hash_map {
  public:
    using key_type = K;
    using mapped_type = V;

    // Collective.
    hash_map(context_ref ctx, uint64_t capacity, const hash_map_options &options = hash_map_options())
        : ctx_(ctx.handle()), key_(options.key_bytes(), "pgdds::hash_map key"),
          value_(options.value_bytes(), "pgdds::hash_map value")
    {
        pgdds_hashmap_params_t p{0, key_.size(), value_.size(), capacity};
        check(pgdds_hashmap_create_with(ctx.handle(), &p, &options.c_options(), &h_));
    }
    // Collective. A destructor cannot report failure; call destroy() to see it.
    ~hash_map()
    {
        if (h_) pgdds_hashmap_destroy(h_);
    }
    void destroy()
    {
        pgdds_hashmap_t h = std::exchange(h_, nullptr);
        check(pgdds_hashmap_destroy(h));
    }
    hash_map(const hash_map &) = delete;
    hash_map &operator=(const hash_map &) = delete;
    hash_map(hash_map &&o) noexcept : ctx_(o.ctx_), key_(o.key_), value_(o.value_), h_(std::exchange(o.h_, nullptr)) {}
    hash_map &operator=(hash_map &&) = delete;

    pgdds_hashmap_t handle() const noexcept { return h_; }
    const fixed_slot<K> &key_slot() const noexcept { return key_; }
    const fixed_slot<V> &value_slot() const noexcept { return value_; }

    // Insert or assign.
    void insert(const K &key, const V &value, promise_set p = promise_set()) const
    {
        std::vector<unsigned char> kb, vb;
        check(pgdds_hashmap_insert(h_, key_.encode(key, kb), value_.encode(value, vb), p.bits()));
    }

    std::optional<V> find(const K &key, promise_set p = promise_set()) const
    {
        std::vector<unsigned char> kb;
        const void *k = key_.encode(key, kb);
        if constexpr (fixed_slot<V>::trivial) {
            V v;
            if (!found(pgdds_hashmap_find(h_, k, &v, p.bits()))) return std::nullopt;
            return v;
        } else {
            std::vector<unsigned char> vb(value_.size());
            if (!found(pgdds_hashmap_find(h_, k, vb.data(), p.bits()))) return std::nullopt;
            return value_.decode(vb.data());
        }
    }

    // False if the key was absent.
    bool erase(const K &key, promise_set p = promise_set()) const
    {
        std::vector<unsigned char> kb;
        return found(pgdds_hashmap_erase(h_, key_.encode(key, kb), p.bits()));
    }

    // Asynchronous forms (future.hpp), over pgdds_hashmap_insert_nb and its group: under way when
    // the call returns (one message to an owner served by RPC; complete at once where the part is
    // reached by load/store or the one-sided protocols). The key and value are copied at the call.
    future<void> insert_async(const K &key, const V &value, promise_set p = promise_set()) const
    {
        std::vector<unsigned char> kb, vb;
        pgdds_request_t req = nullptr;
        check(pgdds_hashmap_insert_nb(h_, key_.encode(key, kb), value_.encode(value, vb), p.bits(), &req));
        return detail::request_future_with<void>(ctx_, req, [](pgdds_status_t st, detail::future_state<void> &c) {
            detail::settle(c, st, [] { return detail::unit{}; });
        });
    }
    // nullopt when the key is absent.
    future<std::optional<V>> find_async(const K &key, promise_set p = promise_set()) const
    {
        std::vector<unsigned char> kb;
        auto landing = std::make_shared<std::vector<unsigned char>>(value_.size());
        pgdds_request_t req = nullptr;
        check(pgdds_hashmap_find_nb(h_, key_.encode(key, kb), landing->data(), p.bits(), &req));
        return detail::request_future_with<std::optional<V>>(
            ctx_, req, [landing, slot = value_](pgdds_status_t st, detail::future_state<std::optional<V>> &c) {
                if (st == PGDDS_ERR_NOT_FOUND) c.set(std::nullopt);
                else detail::settle(c, st, [&] { return std::optional<V>(slot.decode(landing->data())); });
            });
    }
    // False if the key was absent.
    future<bool> erase_async(const K &key, promise_set p = promise_set()) const
    {
        std::vector<unsigned char> kb;
        pgdds_request_t req = nullptr;
        check(pgdds_hashmap_erase_nb(h_, key_.encode(key, kb), p.bits(), &req));
        return detail::request_future_with<bool>(ctx_, req, [](pgdds_status_t st, detail::future_state<bool> &c) {
            if (st == PGDDS_ERR_NOT_FOUND) c.set(false);
            else detail::settle(c, st, [] { return true; });
        });
    }

    // Batches: keys hashed in groups whose buckets are fetched together (trivial K and V).
    void insert_many(const K *keys, const V *values, size_t count, promise_set p = promise_set()) const
    {
        static_assert(fixed_slot<K>::trivial && fixed_slot<V>::trivial,
                      "pgdds::hash_map::insert_many takes trivially copyable keys and values");
        check(pgdds_hashmap_insert_many(h_, count, keys, values, p.bits()));
    }
    // Writes values[i] and sets found[i] for each key; returns how many were found.
    size_t find_many(const K *keys, size_t count, V *values, unsigned char *found_flags,
                     promise_set p = promise_set()) const
    {
        static_assert(fixed_slot<K>::trivial && fixed_slot<V>::trivial,
                      "pgdds::hash_map::find_many takes trivially copyable keys and values");
        check(pgdds_hashmap_find_many(h_, count, keys, values, found_flags, p.bits()));
        size_t hits = 0;
        for (size_t i = 0; i < count; ++i) hits += found_flags[i];
        return hits;
    }
    std::vector<std::optional<V>> find_many(const std::vector<K> &keys, promise_set p = promise_set()) const
    {
        std::vector<V> values(keys.size());
        std::vector<unsigned char> flags(keys.size());
        find_many(keys.data(), keys.size(), values.data(), flags.data(), p);
        std::vector<std::optional<V>> out(keys.size());
        for (size_t i = 0; i < keys.size(); ++i)
            if (flags[i]) out[i] = values[i];
        return out;
    }

    int owner(const K &key) const
    {
        std::vector<unsigned char> kb;
        int r;
        check(pgdds_hashmap_owner(h_, key_.encode(key, kb), &r));
        return r;
    }
    uint64_t capacity() const
    {
        uint64_t c;
        check(pgdds_hashmap_capacity(h_, &c));
        return c;
    }
    // How this rank's operation op (PGDDS_CONTAINER_OP_INSERT, _FIND, _ERASE, _INSERT_MANY,
    // _FIND_MANY) under promises p reaches rank's part: PGDDS_PROTOCOL_DIRECT, _RDMA or _RPC.
    int protocol(int rank, int op, promise_set p = promise_set()) const
    {
        int r;
        check(pgdds_hashmap_op_protocol(h_, rank, op, p.bits(), &r));
        return r;
    }
    // Collective.
    uint64_t size() const
    {
        uint64_t n;
        check(pgdds_hashmap_size(h_, &n));
        return n;
    }
    // Collective.
    void resize(uint64_t new_capacity) const { check(pgdds_hashmap_resize(h_, new_capacity)); }

    // Calls f(key, value) for every entry of this rank's part (between phases). For a trivially
    // copyable V, f may take V& and change the value in place.
    template <class F> void for_each_local(F f) const
    {
        visit_state<F> s{this, &f, nullptr};
        check(pgdds_hashmap_foreach_local(h_, &visit<F>, &s));
        if (s.thrown) std::rethrow_exception(s.thrown);  // exceptions do not cross the C interface
    }

    // This rank's entries as a range of (key, value) copies, walked with
    // pgdds_hashmap_local_next while other operations may go on (pgdds.h says what a
    // concurrent insert, assignment or erase does to the walk):
    //   for (auto &&[k, v] : map.local()) use(k, v);
    class local_range;
    local_range local() const { return local_range(this); }

  private:
    pgdds_context_t ctx_;

    static bool found(pgdds_status_t st)
    {
        if (st == PGDDS_ERR_NOT_FOUND) return false;
        check(st);
        return true;
    }
    template <class F> struct visit_state {
        const hash_map *self;
        F *f;
        std::exception_ptr thrown;
    };
    template <class F> static int visit(const void *key, void *value, void *arg) noexcept
    {
        auto *s = static_cast<visit_state<F> *>(arg);
        try {
            const K k = s->self->key_.decode(key);
            V v = s->self->value_.decode(value);  // a copy: the bucket may not be aligned for V
            (*s->f)(k, v);
            if constexpr (fixed_slot<V>::trivial) std::memcpy(value, &v, sizeof v);
            return 0;
        } catch (...) {
            s->thrown = std::current_exception();
            return 1;
        }
    }

    fixed_slot<K> key_;
    fixed_slot<V> value_;
    pgdds_hashmap_t h_ = nullptr;
};

template <class K, class V> class hash_map<K, V>::local_range {
  public:
    using iterator = hash_map_local_iterator<K, V>;
    explicit local_range(const hash_map *map) : map_(map) {}
    // Each begin() starts a new walk.
    iterator begin() const { return iterator(map_); }
    typename iterator::sentinel end() const { return {}; }

  private:
    const hash_map *map_;
};

}  // namespace pgdds
