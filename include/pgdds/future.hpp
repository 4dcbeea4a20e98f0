// Futures (UPC++ style) for libpgdds's asynchronous operations: pgdds::future<T> holds a value
// that an RPC reply or a non-blocking operation delivers later.
//
//   pgdds::future<int> f = pgdds::rpc(ctx, 1, [](int x) { return 2 * x; }, 21);
//   pgdds::future<int> g = f.then([](int v) { return v + 1; });
//   int v = g.get();                           // 43: waits (progressing) until the reply came
//
// ready() polls once (one progress round); wait() progresses until ready; get() waits and gives
// the value once (a second get() throws PGDDS_ERR_STATE), or throws the operation's failure as
// pgdds::error. then(f) makes a future of f's result, computed when this one is ready (by
// whoever polls it); when_all(a, b, ...) is ready when all are. A future is polled by the thread
// that waits on it; handlers (RPC functions, AM handlers) must not wait.
#pragma once

#include <pgdds/pgdds.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace pgdds {

namespace detail {
// A void result, as a value.
struct unit {};
template <class T> using stored_t = std::conditional_t<std::is_void<T>::value, unit, T>;

template <class T> struct future_state {
    pgdds_context_t ctx = nullptr;
    std::atomic<bool> done{false};
    pgdds_status_t status = PGDDS_OK;
    std::string message;
    std::optional<stored_t<T>> value;
    bool taken = false;
    // How a future that depends on something else finds out (a request, a parent future):
    // returns true once it has settled this state.
    std::function<bool()> poll;

    void set(stored_t<T> v)
    {
        value.emplace(std::move(v));
        done.store(true, std::memory_order_release);
    }
    void set_failure(pgdds_status_t st, std::string why)
    {
        status = st;
        message = std::move(why);
        done.store(true, std::memory_order_release);
    }
    bool is_done()
    {
        if (done.load(std::memory_order_acquire)) return true;
        if (poll && poll()) poll = nullptr;
        return done.load(std::memory_order_acquire);
    }
};
}  // namespace detail

template <class T> class future {
  public:
    using value_type = T;
    future() = default;
    explicit future(std::shared_ptr<detail::future_state<T>> s) : s_(std::move(s)) {}

    // Whether the value (or failure) is here, after one round of progress.
    bool ready() const
    {
        state();
        if (s_->is_done()) return true;
        check(pgdds_progress(s_->ctx));
        return s_->is_done();
    }
    // Progresses until ready.
    void wait() const
    {
        while (!ready()) {
        }
    }
    // The value, once; throws pgdds::error for a failure or a second get().
    T get()
    {
        wait();
        if (s_->status != PGDDS_OK) throw error(s_->status, std::string(pgdds_strerror(s_->status)) + ": " + s_->message);
        if (s_->taken) throw error(PGDDS_ERR_STATE, "future::get: the value was already taken (a future gives it once)");
        s_->taken = true;
        if constexpr (!std::is_void<T>::value) return std::move(*s_->value);
    }
    // A future of f(value) (f() for a void future), computed once this one is ready; a failure
    // passes through without calling f.
    template <class F> auto then(F f) const
    {
        using R = std::conditional_t<std::is_void<T>::value, std::invoke_result<F>, std::invoke_result<F, T>>;
        using U = typename R::type;
        auto child = std::make_shared<detail::future_state<U>>();
        child->ctx = state().ctx;
        std::shared_ptr<detail::future_state<T>> parent = s_;
        child->poll = [parent, f = std::move(f), c = child.get()]() mutable {
            if (!parent->is_done()) return false;
            if (parent->status != PGDDS_OK) {
                c->set_failure(parent->status, parent->message);
                return true;
            }
            try {
                if constexpr (std::is_void<T>::value && std::is_void<U>::value) f(), c->set({});
                else if constexpr (std::is_void<T>::value) c->set(f());
                else if constexpr (std::is_void<U>::value) f(*parent->value), c->set({});
                else c->set(f(*parent->value));
            } catch (const error &e) {
                c->set_failure(e.status(), e.what());
            }
            return true;
        };
        return future<U>(child);
    }
    // The shared state (for when_all and the library's own constructors).
    const std::shared_ptr<detail::future_state<T>> &shared() const { return s_; }

  private:
    detail::future_state<T> &state() const
    {
        if (!s_) throw error(PGDDS_ERR_STATE, "future: this future has no operation (default-constructed)");
        return *s_;
    }
    std::shared_ptr<detail::future_state<T>> s_;
};

// A future that is ready with v.
template <class T> future<std::decay_t<T>> make_future(context_ref ctx, T &&v)
{
    auto s = std::make_shared<detail::future_state<std::decay_t<T>>>();
    s->ctx = ctx.handle();
    s->set(std::forward<T>(v));
    return future<std::decay_t<T>>(s);
}

// Ready when every future given is (their values stay in them); the first failure among them
// is its failure.
template <class... T> future<void> when_all(const future<T> &...fs)
{
    auto s = std::make_shared<detail::future_state<void>>();
    pgdds_context_t ctxs[] = {fs.shared() ? fs.shared()->ctx : nullptr..., nullptr};
    s->ctx = ctxs[0];
    auto parents = std::make_tuple(fs.shared()...);
    s->poll = [parents, c = s.get()]() {
        bool all = std::apply([](auto &...p) { return (p->is_done() & ... & true); }, parents);
        if (!all) return false;
        pgdds_status_t st = PGDDS_OK;
        std::string why;
        std::apply([&](auto &...p) { ((st == PGDDS_OK && p->status != PGDDS_OK ? (st = p->status, why = p->message, 0) : 0), ...); },
                   parents);
        if (st != PGDDS_OK) c->set_failure(st, why);
        else c->set({});
        return true;
    };
    return future<void>(s);
}

namespace detail {
// A future that request req completes: once pgdds_test completes it with status st,
// outcome(st, state) settles the state (a value, or a failure); a failure to progress fails it.
template <class T, class Outcome> future<T> request_future_with(pgdds_context_t ctx, pgdds_request_t req, Outcome outcome)
{
    auto s = std::make_shared<detail::future_state<T>>();
    s->ctx = ctx;
    s->poll = [req, outcome = std::move(outcome), c = s.get()]() mutable {
        int done = 0;
        pgdds_status_t st = pgdds_test(c->ctx, req, &done);
        if (done) outcome(st, *c);
        else if (st != PGDDS_OK) c->set_failure(st, pgdds_last_error());
        return done || st != PGDDS_OK;
    };
    return future<T>(s);
}

// Settles c with st's failure and its explanation, else with value().
template <class T, class Value> void settle(future_state<T> &c, pgdds_status_t st, Value value)
{
    if (st != PGDDS_OK) c.set_failure(st, pgdds_last_error());
    else c.set(value());
}

// A future that completes with request req, holding *landing as its value.
template <class T> future<T> request_future(context_ref ctx, pgdds_request_t req, std::shared_ptr<T> landing)
{
    return request_future_with<T>(ctx.handle(), req, [landing](pgdds_status_t st, future_state<T> &c) {
        settle(c, st, [&] { return *landing; });
    });
}

template <class T> constexpr void check_atomic_word()
{
    static_assert(std::is_same<T, uint64_t>::value || std::is_same<T, uint32_t>::value,
                  "the non-blocking atomics take uint64_t and uint32_t words");
}
}  // namespace detail

// Non-blocking put and get (pgdds_put_nb, pgdds_get_nb) as futures. rput's source must stay
// unchanged until the future is ready; rget's value lives in the future.
template <class T> future<void> rput(context_ref ctx, const T *src, global_ptr<T> dst, size_t count = 1)
{
    static_assert(std::is_trivially_copyable<T>::value, "rput moves trivially copyable elements");
    auto s = std::make_shared<detail::future_state<void>>();
    s->ctx = ctx.handle();
    pgdds_request_t req = nullptr;
    check(pgdds_put_nb(ctx.handle(), dst.raw(), src, count * sizeof(T), &req));
    s->poll = [req, c = s.get()]() {
        int done = 0;
        pgdds_status_t st = pgdds_test(c->ctx, req, &done);
        if (st != PGDDS_OK) c->set_failure(st, pgdds_last_error());
        else if (done) c->set({});
        return st != PGDDS_OK || done;
    };
    return future<void>(s);
}

template <class T> future<T> rget(context_ref ctx, global_ptr<T> src)
{
    static_assert(std::is_trivially_copyable<T>::value, "rget moves trivially copyable elements");
    auto landing = std::make_shared<T>();
    pgdds_request_t req = nullptr;
    check(pgdds_get_nb(ctx.handle(), landing.get(), src.raw(), sizeof(T), &req));
    return detail::request_future<T>(ctx, req, landing);
}


// Non-blocking atomics (pgdds_atomic_u64_nb, pgdds_atomic_u32_nb and their compare-and-swap) as
// futures of the word's old value: several in flight overlap. They take the operations the
// transports perform themselves (ADD, AND, OR, XOR, SWAP, compare-and-swap); MIN and MAX run as
// a loop of compare-and-swap with no non-blocking form (PGDDS_ERR_UNSUPPORTED). Where the job's
// atomics are the CPU's, the future is ready at once.
//   auto f = pgdds::atomic_fetch_add_async(ctx, counter, uint64_t(1));
//   uint64_t old = f.get();
template <class T> future<T> atomic_fetch_op_async(context_ref ctx, global_ptr<T> p, pgdds_aop_t op, T operand)
{
    detail::check_atomic_word<T>();
    auto landing = std::make_shared<T>();
    pgdds_request_t req = nullptr;
    if constexpr (sizeof(T) == 8)
        check(pgdds_atomic_u64_nb(ctx.handle(), p.raw(), op, operand, landing.get(), &req));
    else
        check(pgdds_atomic_u32_nb(ctx.handle(), p.raw(), op, operand, landing.get(), &req));
    return detail::request_future<T>(ctx, req, landing);
}
template <class T> future<T> atomic_fetch_add_async(context_ref ctx, global_ptr<T> p, T v)
{
    return atomic_fetch_op_async(ctx, p, PGDDS_AOP_ADD, v);
}
template <class T> future<T> atomic_fetch_and_async(context_ref ctx, global_ptr<T> p, T v)
{
    return atomic_fetch_op_async(ctx, p, PGDDS_AOP_AND, v);
}
template <class T> future<T> atomic_fetch_or_async(context_ref ctx, global_ptr<T> p, T v)
{
    return atomic_fetch_op_async(ctx, p, PGDDS_AOP_OR, v);
}
template <class T> future<T> atomic_fetch_xor_async(context_ref ctx, global_ptr<T> p, T v)
{
    return atomic_fetch_op_async(ctx, p, PGDDS_AOP_XOR, v);
}
template <class T> future<T> atomic_exchange_async(context_ref ctx, global_ptr<T> p, T v)
{
    return atomic_fetch_op_async(ctx, p, PGDDS_AOP_SWAP, v);
}
// The old value: the swap happened exactly when it equals expected.
template <class T> future<T> atomic_compare_exchange_async(context_ref ctx, global_ptr<T> p, T expected, T desired)
{
    detail::check_atomic_word<T>();
    auto landing = std::make_shared<T>();
    pgdds_request_t req = nullptr;
    if constexpr (sizeof(T) == 8)
        check(pgdds_atomic_cswap_u64_nb(ctx.handle(), p.raw(), expected, desired, landing.get(), &req));
    else
        check(pgdds_atomic_cswap_u32_nb(ctx.handle(), p.raw(), expected, desired, landing.get(), &req));
    return detail::request_future<T>(ctx, req, landing);
}

// The containers' asynchronous operations (map.find_async, queue.push_async, bloom.insert_async,
// ...) are members of the containers, over their C _nb forms: one message towards an owner served
// by RPC, complete at once where the part is reached by load/store or by the one-sided protocols
// (whose steps each depend on the last).

}  // namespace pgdds
