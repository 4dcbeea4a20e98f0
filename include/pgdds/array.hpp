// pgdds::darray<T> (block-distributed over every rank) and pgdds::array<T> (every element on one
// host rank): the arrays of the C interface with typed, trivially copyable elements. Element
// access through global pointers, range get/put spanning ranks, this rank's local part, and
// global iteration in chunks.
//
//   pgdds::darray<double> a(ctx, 1 << 20);
//   for (double &x : a.local()) x = 0;      // owner computes
//   ctx.barrier();
//   std::vector<double> window = a.get(1000, 64);
#pragma once

#include <pgdds/fixed_slot.hpp>
#include <pgdds/pgdds.hpp>

#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

namespace pgdds {

namespace detail {

// The C entry points of one array kind.
struct darray_calls {
    using handle = pgdds_darray_t;
    static pgdds_status_t destroy(handle h) { return pgdds_darray_destroy(h); }
    static pgdds_status_t gptr(handle h, uint64_t i, pgdds_gptr_t *out) { return pgdds_darray_gptr(h, i, out); }
    static pgdds_status_t size(handle h, uint64_t *n) { return pgdds_darray_size(h, n); }
    static pgdds_status_t get(handle h, uint64_t f, uint64_t c, void *d) { return pgdds_darray_get(h, f, c, d); }
    static pgdds_status_t put(handle h, uint64_t f, uint64_t c, const void *s) { return pgdds_darray_put(h, f, c, s); }
    static pgdds_status_t local(handle h, void **e, uint64_t *first, uint64_t *c) { return pgdds_darray_local(h, e, first, c); }
};
struct array_calls {
    using handle = pgdds_array_t;
    static pgdds_status_t destroy(handle h) { return pgdds_array_destroy(h); }
    static pgdds_status_t gptr(handle h, uint64_t i, pgdds_gptr_t *out) { return pgdds_array_gptr(h, i, out); }
    static pgdds_status_t size(handle h, uint64_t *n) { return pgdds_array_size(h, n); }
    static pgdds_status_t get(handle h, uint64_t f, uint64_t c, void *d) { return pgdds_array_get(h, f, c, d); }
    static pgdds_status_t put(handle h, uint64_t f, uint64_t c, const void *s) { return pgdds_array_put(h, f, c, s); }
    static pgdds_status_t local(handle h, void **e, uint64_t *first, uint64_t *c)
    {
        *first = 0;
        return pgdds_array_local(h, e, c);
    }
};

template <class T, class Calls> class array_base {
    static_assert(std::is_trivially_copyable<T>::value,
                  "pgdds arrays hold trivially copyable elements (they are read and written in place)");

  public:
    using handle_type = typename Calls::handle;
    ~array_base()
    {
        if (h_) Calls::destroy(h_);
    }
    void destroy()
    {
        handle_type h = std::exchange(h_, nullptr);
        check(Calls::destroy(h));
    }
    array_base(const array_base &) = delete;
    array_base &operator=(const array_base &) = delete;
    array_base(array_base &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    array_base &operator=(array_base &&) = delete;

    handle_type handle() const noexcept { return h_; }

    uint64_t size() const
    {
        uint64_t n;
        check(Calls::size(h_, &n));
        return n;
    }
    global_ptr<T> ptr(uint64_t index) const
    {
        pgdds_gptr_t g;
        check(Calls::gptr(h_, index, &g));
        return global_ptr<T>(g);
    }
    T get(uint64_t index) const
    {
        T v;
        check(Calls::get(h_, index, 1, &v));
        return v;
    }
    void put(uint64_t index, const T &v) const { check(Calls::put(h_, index, 1, &v)); }
    // Ranges may span ranks; put is complete at the targets when it returns.
    void get(uint64_t first, uint64_t count, T *out) const { check(Calls::get(h_, first, count, out)); }
    std::vector<T> get(uint64_t first, uint64_t count) const
    {
        std::vector<T> out(count);
        get(first, count, out.data());
        return out;
    }
    void put(uint64_t first, const T *src, uint64_t count) const { check(Calls::put(h_, first, count, src)); }
    void put(uint64_t first, const std::vector<T> &src) const { put(first, src.data(), src.size()); }

    // This rank's elements, in place.
    local_span<T> local() const
    {
        void *e;
        uint64_t first, count;
        check(Calls::local(h_, &e, &first, &count));
        return {static_cast<T *>(e), size_t(count), first};
    }

    // Global iteration: f(index, element) for every element, fetched `chunk` at a time.
    template <class F> void for_each(F f, size_t chunk = 4096) const
    {
        std::vector<T> buf(chunk);
        for (uint64_t i = 0, n = size(); i < n; i += chunk) {
            uint64_t c = std::min<uint64_t>(chunk, n - i);
            get(i, c, buf.data());
            for (uint64_t j = 0; j < c; ++j) f(i + j, static_cast<const T &>(buf[j]));
        }
    }

  protected:
    array_base() = default;
    handle_type h_ = nullptr;
};

}  // namespace detail

template <class T> class darray : public detail::array_base<T, detail::darray_calls> {
  public:
    // Collective.
    darray(context_ref ctx, uint64_t count) { check(pgdds_darray_create(ctx.handle(), sizeof(T), count, &this->h_)); }
};

template <class T> class array : public detail::array_base<T, detail::array_calls> {
  public:
    // Collective.
    array(context_ref ctx, uint64_t count, int host_rank)
    {
        check(pgdds_array_create(ctx.handle(), sizeof(T), count, host_rank, &this->h_));
    }
    int host() const
    {
        int r;
        check(pgdds_array_host(this->h_, &r));
        return r;
    }
};

}  // namespace pgdds
