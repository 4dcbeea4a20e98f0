// Typed remote procedure calls over pgdds_rpc_call (UPC++'s rpc and rpc_ff):
//
//   auto f = pgdds::rpc(ctx, 1, [](int x, std::string s) { return s + std::to_string(x); }, 7, "n");
//   std::string r = f.get();                      // "n7", computed on rank 1
//   pgdds::rpc_ff(ctx, 2, [](int v) { counter += v; }, 5);   // no reply
//
// The function is a lambda (or another trivially copyable function object): its type names it
// in every process of the job, so every rank runs the same program (the same executable); its
// captures travel by value, so they must mean the same on the target (no pointers). Plain
// function pointers do not travel: wrap them in a lambda. Arguments and results go through
// pgdds::serializer (serialize.hpp): trivially copyable types, std::string, std::vector of
// trivially copyable elements, and user types with a serializer. The target runs the function
// inside a progress call (any pgdds call, or PGDDS_PROGRESS_THREAD=1); it must not block. A
// pgdds::error it throws comes back as the future's failure, with its status and message.
#pragma once

#include <pgdds/future.hpp>
#include <pgdds/serialize.hpp>

#include <cstring>
#include <new>
#include <tuple>
#include <typeinfo>
#include <vector>

namespace pgdds {

namespace detail {

inline uint64_t fnv1a(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; ++s) h = (h ^ uint64_t(static_cast<unsigned char>(*s))) * 1099511628211ull;
    return h ? h : 1;
}

// How an argument travels: by value, C strings as std::string.
template <class A> struct decay_arg {
    using type = std::conditional_t<std::is_same<std::decay_t<A>, const char *>::value ||
                                        std::is_same<std::decay_t<A>, char *>::value,
                                    std::string, std::decay_t<A>>;
};
template <class A> using decay_arg_t = typename decay_arg<A>::type;

// Values one after the other, each as its byte count (8 bytes) and its serializer's bytes.
template <class T> void pack(std::vector<uint8_t> &out, const T &v)
{
    const uint64_t n = serializer<T>::size(v);
    const size_t at = out.size();
    out.resize(at + sizeof n + n);
    std::memcpy(out.data() + at, &n, sizeof n);
    if (n) serializer<T>::write(v, out.data() + at + sizeof n);
}
template <class T> bool unpack(const uint8_t *&p, const uint8_t *end, T &out)
{
    uint64_t n;
    if (size_t(end - p) < sizeof n) return false;
    std::memcpy(&n, p, sizeof n);
    p += sizeof n;
    if (uint64_t(end - p) < n) return false;
    bool ok = serializer<T>::read(p, size_t(n), out);
    p += n;
    return ok;
}

// The function object's bytes, then the arguments.
template <class Fn, class... A> struct rpc_function {
    using R = std::invoke_result_t<Fn, A...>;

    static void run(pgdds_context_t, int, const void *args, size_t size, pgdds_rpc_reply_t *reply)
    {
        const uint8_t *p = static_cast<const uint8_t *>(args), *end = p + size;
        if (size < sizeof(Fn)) {
            pgdds_rpc_reply(reply, PGDDS_ERR_INVALID_ARG, nullptr, 0, "rpc: a call shorter than its function object");
            return;
        }
        alignas(Fn) unsigned char storage[sizeof(Fn)];
        std::memcpy(storage, p, sizeof(Fn));
        Fn &fn = *std::launder(reinterpret_cast<Fn *>(storage));
        p += sizeof(Fn);
        std::tuple<A...> values;
        bool ok = std::apply([&](auto &...v) { return (unpack(p, end, v) && ... && true); }, values);
        if (!ok || p != end) {
            pgdds_rpc_reply(reply, PGDDS_ERR_INVALID_ARG, nullptr, 0, "rpc: the arguments do not decode");
            return;
        }
        try {
            if constexpr (std::is_void<R>::value) {
                std::apply(fn, std::move(values));
                pgdds_rpc_reply(reply, PGDDS_OK, nullptr, 0, nullptr);
            } else {
                R r = std::apply(fn, std::move(values));
                std::vector<uint8_t> out;
                pack(out, r);
                pgdds_rpc_reply(reply, PGDDS_OK, out.data(), out.size(), nullptr);
            }
        } catch (const error &e) {
            pgdds_rpc_reply(reply, e.status(), nullptr, 0, e.what());
        } catch (const std::exception &e) {
            pgdds_rpc_reply(reply, PGDDS_ERR_INVALID_ARG, nullptr, 0, (std::string("rpc: the function threw: ") + e.what()).c_str());
        }
    }
    // The function's name in every process of the program: its type's.
    static uint64_t id()
    {
        static const uint64_t v = fnv1a(typeid(rpc_function).name());
        return v;
    }
    // Registered at static initialization in every process, before any call can come.
    static inline const bool registered = (pgdds_rpc_register(id(), &run), true);
};

template <class R> void deliver(pgdds_context_t, pgdds_status_t st, const void *result, size_t size, void *arg)
{
    std::unique_ptr<std::shared_ptr<future_state<R>>> owner(static_cast<std::shared_ptr<future_state<R>> *>(arg));
    future_state<R> &s = **owner;
    if (st != PGDDS_OK) return s.set_failure(st, pgdds_last_error());
    if constexpr (std::is_void<R>::value) {
        s.set({});
    } else {
        const uint8_t *p = static_cast<const uint8_t *>(result);
        R r{};
        if (!unpack(p, p + size, r) || p != static_cast<const uint8_t *>(result) + size)
            return s.set_failure(PGDDS_ERR_INVALID_ARG, "rpc: the result does not decode");
        s.set(std::move(r));
    }
}

template <class Fn, class... A> std::vector<uint8_t> rpc_message(const Fn &fn, const A &...args)
{
    static_assert(!std::is_pointer<Fn>::value,
                  "pgdds::rpc: a function pointer means nothing in another process; wrap it in a lambda");
    static_assert(std::is_trivially_copyable<Fn>::value, "pgdds::rpc: the function object must be trivially copyable");
    std::vector<uint8_t> out(sizeof(Fn));
    std::memcpy(out.data(), &fn, sizeof(Fn));
    (pack(out, args), ...);
    return out;
}

}  // namespace detail

// Runs fn(args...) on `rank`; the future holds its result.
template <class Fn, class... A> auto rpc(context_ref ctx, int rank, Fn fn, const A &...args)
{
    using F = detail::rpc_function<Fn, detail::decay_arg_t<A>...>;
    using R = typename F::R;
    (void)F::registered;
    std::vector<uint8_t> msg = detail::rpc_message(fn, detail::decay_arg_t<A>(args)...);
    auto s = std::make_shared<detail::future_state<R>>();
    s->ctx = ctx.handle();
    auto *arg = new std::shared_ptr<detail::future_state<R>>(s);
    pgdds_status_t st = pgdds_rpc_call(ctx.handle(), rank, F::id(), msg.data(), msg.size(), &detail::deliver<R>, arg);
    if (st != PGDDS_OK) {
        delete arg;
        check(st);
    }
    return future<R>(s);
}

// Runs fn(args...) on `rank`, with no reply: nothing says when it ran.
template <class Fn, class... A> void rpc_ff(context_ref ctx, int rank, Fn fn, const A &...args)
{
    using F = detail::rpc_function<Fn, detail::decay_arg_t<A>...>;
    (void)F::registered;
    std::vector<uint8_t> msg = detail::rpc_message(fn, detail::decay_arg_t<A>(args)...);
    check(pgdds_rpc_call(ctx.handle(), rank, F::id(), msg.data(), msg.size(), nullptr, nullptr));
}

}  // namespace pgdds
