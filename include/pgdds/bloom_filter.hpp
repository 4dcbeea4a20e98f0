// pgdds::bloom_filter<T>: the distributed blocked Bloom filter (pgdds_bloom_*, BCL paper §5.4).
// Keys are hashed as their bytes: a trivially copyable T as itself, any other T through its
// pgdds::serializer (no size limit here: the encoding is only hashed).
//
//   pgdds::bloom_filter<std::string> seen(ctx, 1'000'000, 0.01);
//   if (seen.insert(kmer)) count_again(kmer);     // true: (probably) there before
#pragma once

#include <pgdds/future.hpp>
#include <pgdds/pgdds.hpp>
#include <pgdds/serialize.hpp>

#include <utility>
#include <vector>

namespace pgdds {

template <class T> class bloom_filter {
  public:
    // Collective: sized for expected_items at the given false-positive rate.
    bloom_filter(context_ref ctx, uint64_t expected_items, double false_positive_rate) : ctx_(ctx.handle())
    {
        check(pgdds_bloom_create(ctx.handle(), expected_items, false_positive_rate, &h_));
    }
    ~bloom_filter()
    {
        if (h_) pgdds_bloom_destroy(h_);
    }
    void destroy()
    {
        pgdds_bloom_t h = std::exchange(h_, nullptr);
        check(pgdds_bloom_destroy(h));
    }
    bloom_filter(const bloom_filter &) = delete;
    bloom_filter &operator=(const bloom_filter &) = delete;
    bloom_filter(bloom_filter &&o) noexcept : ctx_(o.ctx_), h_(std::exchange(o.h_, nullptr)) {}
    bloom_filter &operator=(bloom_filter &&) = delete;

    pgdds_bloom_t handle() const noexcept { return h_; }

    // Inserts; returns whether every bit of the key was already set (it was probably there).
    bool insert(const T &key) const
    {
        int was = 0;
        with_bytes(key, [&](const void *p, size_t n) { check(pgdds_bloom_insert(h_, p, n, &was)); });
        return was != 0;
    }
    // False: certainly absent. True: probably present.
    bool contains(const T &key) const
    {
        int maybe = 0;
        with_bytes(key, [&](const void *p, size_t n) { check(pgdds_bloom_contains(h_, p, n, &maybe)); });
        return maybe != 0;
    }
    // Asynchronous forms (future.hpp), over pgdds_bloom_insert_many_nb and _contains_many_nb with
    // one key: under way when the call returns (one message to an owner served by RPC; complete
    // at once where the part is reached by load/store or one-sidedly). The key is copied at the call.
    future<bool> insert_async(const T &key) const
    {
        return flag_future(key, [&](const void *p, size_t n, unsigned char *flag, pgdds_request_t *req) {
            check(pgdds_bloom_insert_many_nb(h_, 1, p, n, flag, req));
        });
    }
    future<bool> contains_async(const T &key) const
    {
        return flag_future(key, [&](const void *p, size_t n, unsigned char *flag, pgdds_request_t *req) {
            check(pgdds_bloom_contains_many_nb(h_, 1, p, n, flag, req));
        });
    }

    // How this rank's op (PGDDS_CONTAINER_OP_INSERT or _CONTAINS) reaches rank's part:
    // PGDDS_PROTOCOL_DIRECT, _RDMA or _RPC.
    int protocol(int rank, int op) const
    {
        int r;
        check(pgdds_bloom_protocol(h_, rank, op, &r));
        return r;
    }
    // Batches of trivially copyable keys; flags may be null for insert_many.
    void insert_many(const T *keys, size_t count, unsigned char *was_present = nullptr) const
    {
        static_assert(is_trivially_serializable<T>, "bloom_filter::insert_many takes trivially copyable keys");
        check(pgdds_bloom_insert_many(h_, count, keys, sizeof(T), was_present));
    }
    void contains_many(const T *keys, size_t count, unsigned char *maybe_present) const
    {
        static_assert(is_trivially_serializable<T>, "bloom_filter::contains_many takes trivially copyable keys");
        check(pgdds_bloom_contains_many(h_, count, keys, sizeof(T), maybe_present));
    }

  private:
    template <class Start> future<bool> flag_future(const T &key, Start start) const
    {
        auto flag = std::make_shared<unsigned char>(0);
        pgdds_request_t req = nullptr;
        with_bytes(key, [&](const void *p, size_t n) { start(p, n, flag.get(), &req); });
        return detail::request_future_with<bool>(ctx_, req, [flag](pgdds_status_t st, detail::future_state<bool> &c) {
            detail::settle(c, st, [&] { return *flag != 0; });
        });
    }
    template <class F> static void with_bytes(const T &key, F f)
    {
        if constexpr (is_trivially_serializable<T>) {
            f(&key, sizeof(T));
        } else {
            std::vector<unsigned char> buf(serializer<T>::size(key));
            serializer<T>::write(key, buf.data());
            f(buf.data(), buf.size());
        }
    }

    pgdds_context_t ctx_;
    pgdds_bloom_t h_ = nullptr;
};

}  // namespace pgdds
