// libpgdds C++ core: thin, header-only, calls only the C ABI (pgdds.h).
//   pgdds::context      RAII owner of a pgdds_context_t (pgdds::context_ref: non-owning view)
//   pgdds::global_ptr<T> a typed global pointer, trivially copyable, one 64-bit word
//   context::alloc_all<T> symmetric memory (the same offset on every rank; p.at(r) is rank r's)
//   pgdds::error        the exception thrown on failure, with the status and the message
// Expected outcomes that are not errors (not found, empty) are returned as std::optional by the
// containers; everything else that fails throws pgdds::error.
#pragma once

#include <pgdds/pgdds.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pgdds {

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------
class error : public std::runtime_error {
  public:
    error(pgdds_status_t status, const std::string &what) : std::runtime_error(what), status_(status) {}
    pgdds_status_t status() const noexcept { return status_; }

  private:
    pgdds_status_t status_;
};

// Throws pgdds::error for anything but PGDDS_OK.
inline void check(pgdds_status_t st)
{
    if (st != PGDDS_OK) throw error(st, std::string(pgdds_strerror(st)) + ": " + pgdds_last_error());
}

// Memory kinds (pgdds_alloc_kind): the registered host segment, or the device segment of GPU
// memory (PGDDS_GPU_SEGMENT_SIZE; docs/gpu.md).
enum class memory : int { host = PGDDS_MEMORY_HOST, cuda = PGDDS_MEMORY_CUDA };

enum class thread_level : int {
    single = PGDDS_THREAD_SINGLE,
    funneled = PGDDS_THREAD_FUNNELED,
    multiple = PGDDS_THREAD_MULTIPLE,
    serialized = PGDDS_THREAD_SERIALIZED  // any thread, one at a time (pgdds.h)
};

// Options of pgdds::context; unset ones come from the environment, then defaults.
struct init_options {
    pgdds_init_params_t params{};
    init_options &threads(thread_level t)
    {
        params.field_mask |= PGDDS_INIT_FIELD_THREAD_LEVEL;
        params.thread_level = int(t);
        return *this;
    }
    init_options &segment_size(size_t bytes)
    {
        params.field_mask |= PGDDS_INIT_FIELD_SEGMENT_SIZE;
        params.segment_size = bytes;
        return *this;
    }
    init_options &transport(const char *name)
    {
        params.field_mask |= PGDDS_INIT_FIELD_TRANSPORT;
        params.transport = name;
        return *this;
    }
    init_options &vcis(unsigned n)
    {
        params.field_mask |= PGDDS_INIT_FIELD_NUM_VCIS;
        params.num_vcis = n;
        return *this;
    }
};

template <class T> class global_ptr;
class team;

// ---------------------------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------------------------
class context_ref {
  public:
    context_ref() = default;
    explicit context_ref(pgdds_context_t h) : h_(h) {}
    pgdds_context_t handle() const noexcept { return h_; }
    explicit operator bool() const noexcept { return h_ != nullptr; }

    int rank() const { return pgdds_rank(h_); }
    int nranks() const { return pgdds_nranks(h_); }
    int local_rank() const { return pgdds_local_rank(h_); }
    int local_nranks() const { return pgdds_local_nranks(h_); }
    std::string transport_name() const
    {
        const char *n = pgdds_transport_name(h_);
        return n ? n : "";
    }
    unsigned num_vcis() const { return pgdds_num_vcis(h_); }
    void bind_vci(unsigned vci) const { check(pgdds_vci_bind(h_, vci)); }

    void barrier() const { check(pgdds_barrier(h_)); }
    // The world and node teams (see class team).
    team world() const;
    team node() const;
    void flush() const { check(pgdds_flush(h_)); }
    void progress() const { check(pgdds_progress(h_)); }

    template <class T> void broadcast(T *data, size_t count, int root) const
    {
        static_assert(std::is_trivially_copyable<T>::value, "broadcast needs trivially copyable elements");
        check(pgdds_broadcast(h_, data, count * sizeof(T), root));
    }
    template <class T> T broadcast(T value, int root) const
    {
        broadcast(&value, 1, root);
        return value;
    }
    template <class T> T allreduce(T value, pgdds_op_t op) const
    {
        T out;
        check(pgdds_allreduce(h_, &value, &out, 1, dtype_of<T>(), op));
        return out;
    }
    template <class T> T sum(T value) const { return allreduce(value, PGDDS_OP_SUM); }
    template <class T> T min(T value) const { return allreduce(value, PGDDS_OP_MIN); }
    template <class T> T max(T value) const { return allreduce(value, PGDDS_OP_MAX); }
    template <class T> std::vector<T> allgather(const T &value) const
    {
        static_assert(std::is_trivially_copyable<T>::value, "allgather needs trivially copyable elements");
        std::vector<T> out(static_cast<size_t>(nranks()));
        check(pgdds_allgather(h_, &value, out.data(), sizeof(T)));
        return out;
    }

    // Allocates count objects in this rank's segment (not constructed: trivially copyable T).
    template <class T> global_ptr<T> alloc(size_t count = 1, size_t alignment = alignof(T)) const;
    // The same in this rank's segment of the given kind: ctx.alloc<float>(n, pgdds::memory::cuda)
    // gives device memory, whose local() is a device pointer.
    template <class T> global_ptr<T> alloc(size_t count, memory kind, size_t alignment = alignof(T)) const;
    template <class T> void free(global_ptr<T> p) const;
    // Collective: count objects at the same offset of every rank's segment (pgdds_alloc_all),
    // zeroed on request; the pointer names this rank's copy, p.at(r) rank r's. Every rank passes
    // the same arguments; a disagreement throws on every rank.
    template <class T>
    global_ptr<T> alloc_all(size_t count = 1, bool zeroed = false, size_t alignment = alignof(T)) const;
    // Collective: every rank passes the same block (any rank's copy).
    template <class T> void free_all(global_ptr<T> p) const;

    template <class T> static constexpr pgdds_dtype_t dtype_of()
    {
        static_assert(std::is_arithmetic<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                      "collective reductions take 32/64-bit integers, float or double");
        if constexpr (std::is_floating_point<T>::value) return sizeof(T) == 4 ? PGDDS_FLOAT : PGDDS_DOUBLE;
        else if constexpr (std::is_signed<T>::value) return sizeof(T) == 4 ? PGDDS_INT32 : PGDDS_INT64;
        else return sizeof(T) == 4 ? PGDDS_UINT32 : PGDDS_UINT64;
    }

  protected:
    pgdds_context_t h_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Teams (pgdds_team_t): the world and node teams of a context, and the teams splits make, which
// this object owns (destroyed with it). A split gives a rank outside the new team an empty team
// (false in a condition). Collectives throw pgdds::error, on every member, where calls differ.
// ---------------------------------------------------------------------------------------------
class team {
  public:
    team() = default;
    static team world(context_ref ctx)
    {
        pgdds_team_t t;
        check(pgdds_team_world(ctx.handle(), &t));
        return team(t, false);
    }
    static team node(context_ref ctx)
    {
        pgdds_team_t t;
        check(pgdds_team_node(ctx.handle(), &t));
        return team(t, false);
    }
    ~team()
    {
        if (owned_ && h_) pgdds_team_destroy(h_);  // a destructor must not throw
    }
    team(const team &) = delete;
    team &operator=(const team &) = delete;
    team(team &&o) noexcept : h_(o.h_), owned_(o.owned_) { o.h_ = nullptr; }
    team &operator=(team &&o) noexcept
    {
        std::swap(h_, o.h_);
        std::swap(owned_, o.owned_);
        return *this;
    }
    pgdds_team_t handle() const noexcept { return h_; }
    explicit operator bool() const noexcept { return h_ != nullptr; }

    int rank() const
    {
        int r;
        check(pgdds_team_rank(h_, &r));
        return r;
    }
    int size() const
    {
        int n;
        check(pgdds_team_size(h_, &n));
        return n;
    }
    // This team's rank r in `other`, or -1 where it is not a member of it.
    int translate(int r, const team &other) const
    {
        int out;
        check(pgdds_team_translate_rank(h_, r, other.h_, &out));
        return out;
    }
    // Collective over this team (OpenSHMEM's shmem_team_split_strided).
    team split_strided(int start, int stride, int size) const
    {
        pgdds_team_t t;
        check(pgdds_team_split_strided(h_, start, stride, size, &t));
        return team(t, true);
    }
    // Collective over this team: {row, column} of a grid of rows of xrange ranks.
    std::pair<team, team> split_2d(int xrange) const
    {
        pgdds_team_t x, y;
        check(pgdds_team_split_2d(h_, xrange, &x, &y));
        return {team(x, true), team(y, true)};
    }

    void barrier() const { check(pgdds_team_barrier(h_)); }
    template <class T> void broadcast(T *data, size_t count, int root) const
    {
        static_assert(std::is_trivially_copyable<T>::value, "broadcast needs trivially copyable elements");
        check(pgdds_team_broadcast(h_, data, count * sizeof(T), root));
    }
    template <class T> T broadcast(T value, int root) const
    {
        broadcast(&value, 1, root);
        return value;
    }
    template <class T> void allreduce(const T *in, T *out, size_t count, pgdds_op_t op) const
    {
        check(pgdds_team_allreduce(h_, in, out, count, context_ref::dtype_of<T>(), op));
    }
    template <class T> T allreduce(T value, pgdds_op_t op) const
    {
        T out;
        allreduce(&value, &out, 1, op);
        return out;
    }
    // out is written on root only.
    template <class T> void reduce(const T *in, T *out, size_t count, pgdds_op_t op, int root) const
    {
        check(pgdds_team_reduce(h_, in, out, count, context_ref::dtype_of<T>(), op, root));
    }
    template <class T> std::vector<T> allgather(const T &value) const
    {
        static_assert(std::is_trivially_copyable<T>::value, "allgather needs trivially copyable elements");
        std::vector<T> out(static_cast<size_t>(size()));
        check(pgdds_team_allgather(h_, &value, out.data(), sizeof(T)));
        return out;
    }
    // counts[r] elements from team rank r (mine.size() == counts[rank()]), packed in rank order.
    template <class T> std::vector<T> allgatherv(const std::vector<T> &mine, const std::vector<size_t> &counts) const
    {
        static_assert(std::is_trivially_copyable<T>::value, "allgatherv needs trivially copyable elements");
        std::vector<size_t> bytes(counts);
        size_t total = 0;
        for (size_t &b : bytes) total += b, b *= sizeof(T);
        check_counts(counts, "allgatherv");
        if (mine.size() != counts[static_cast<size_t>(rank())])
            throw error(PGDDS_ERR_INVALID_ARG, "pgdds::team::allgatherv: this rank's data is not counts[rank()] long");
        std::vector<T> out(total);
        check(pgdds_team_allgatherv(h_, mine.data(), out.data(), bytes.data(), nullptr));
        return out;
    }
    // in holds size() blocks of equal length; block r goes to team rank r.
    template <class T> std::vector<T> alltoall(const std::vector<T> &in) const
    {
        static_assert(std::is_trivially_copyable<T>::value, "alltoall needs trivially copyable elements");
        const size_t n = static_cast<size_t>(size());
        if (in.size() % n) throw error(PGDDS_ERR_INVALID_ARG, "pgdds::team::alltoall: the input is not size() blocks");
        std::vector<T> out(in.size());
        check(pgdds_team_alltoall(h_, in.data(), out.data(), in.size() / n * sizeof(T)));
        return out;
    }
    // send_counts[r] elements of in (packed in rank order) go to team rank r; recv_counts[r]
    // elements from rank r land in the result, packed in rank order.
    template <class T>
    std::vector<T> alltoallv(const std::vector<T> &in, const std::vector<size_t> &send_counts,
                             const std::vector<size_t> &recv_counts) const
    {
        static_assert(std::is_trivially_copyable<T>::value, "alltoallv needs trivially copyable elements");
        std::vector<size_t> sb(send_counts), rb(recv_counts);
        size_t sent = 0, total = 0;
        for (size_t &b : sb) sent += b, b *= sizeof(T);
        for (size_t &b : rb) total += b, b *= sizeof(T);
        check_counts(send_counts, "alltoallv");
        check_counts(recv_counts, "alltoallv");
        if (in.size() != sent)
            throw error(PGDDS_ERR_INVALID_ARG, "pgdds::team::alltoallv: the input is not the sum of send_counts long");
        std::vector<T> out(total);
        check(pgdds_team_alltoallv(h_, in.data(), sb.data(), nullptr, out.data(), rb.data(), nullptr));
        return out;
    }

  private:
    team(pgdds_team_t h, bool owned) : h_(h), owned_(owned) {}
    void check_counts(const std::vector<size_t> &counts, const char *what) const
    {
        if (counts.size() != static_cast<size_t>(size()))
            throw error(PGDDS_ERR_INVALID_ARG, std::string("pgdds::team::") + what + ": not one count per team rank");
    }
    pgdds_team_t h_ = nullptr;
    bool owned_ = false;
};

inline team context_ref::world() const { return team::world(*this); }
inline team context_ref::node() const { return team::node(*this); }

namespace detail {
// The context global_ptr member functions use: the most recent live pgdds::context.
inline pgdds_context_t &default_context()
{
    static pgdds_context_t ctx = nullptr;
    return ctx;
}
}  // namespace detail

// Owns a context: collective construction (pgdds_init) and destruction (pgdds_finalize).
class context : public context_ref {
  public:
    explicit context(const init_options &o = init_options{})
    {
        check(pgdds_init(&o.params, &h_));
        detail::default_context() = h_;
    }
    ~context()
    {
        if (!h_) return;
        if (detail::default_context() == h_) detail::default_context() = nullptr;
        pgdds_finalize(h_);  // a destructor must not throw; finalize() reports failures
    }
    // Finalizes now, reporting failure.
    void finalize()
    {
        pgdds_context_t h = h_;
        h_ = nullptr;
        if (detail::default_context() == h) detail::default_context() = nullptr;
        check(pgdds_finalize(h));
    }
    context(const context &) = delete;
    context &operator=(const context &) = delete;
    context(context &&o) noexcept : context_ref(o.h_) { o.h_ = nullptr; }
    context &operator=(context &&) = delete;
};

// The context global pointers use by default; throws if there is none.
inline context_ref default_context()
{
    if (!detail::default_context()) throw error(PGDDS_ERR_STATE, "no pgdds::context is alive");
    return context_ref(detail::default_context());
}

// ---------------------------------------------------------------------------------------------
// Global pointers
// ---------------------------------------------------------------------------------------------
template <class T> class global_ptr {
    static_assert(std::is_trivially_copyable<T>::value || std::is_void<T>::value,
                  "global_ptr<T> moves T with one-sided copies: T must be trivially copyable");

  public:
    using element_type = T;
    constexpr global_ptr() noexcept = default;
    constexpr explicit global_ptr(pgdds_gptr_t raw) noexcept : p_(raw) {}
    constexpr global_ptr(std::nullptr_t) noexcept {}

    constexpr pgdds_gptr_t raw() const noexcept { return p_; }
    int rank() const noexcept { return pgdds_gptr_rank(p_); }
    memory kind() const noexcept { return static_cast<memory>(pgdds_gptr_kind(p_)); }
    explicit operator bool() const noexcept { return p_ != PGDDS_GPTR_NULL; }
    friend bool operator==(global_ptr a, global_ptr b) noexcept { return a.p_ == b.p_; }
    friend bool operator!=(global_ptr a, global_ptr b) noexcept { return a.p_ != b.p_; }

    global_ptr operator+(std::ptrdiff_t n) const noexcept { return global_ptr(pgdds_gptr_add(p_, int64_t(n) * int64_t(elem()))); }
    global_ptr operator-(std::ptrdiff_t n) const noexcept { return *this + (-n); }
    global_ptr &operator+=(std::ptrdiff_t n) noexcept { return *this = *this + n; }
    global_ptr &operator-=(std::ptrdiff_t n) noexcept { return *this = *this - n; }
    global_ptr &operator++() noexcept { return *this += 1; }
    global_ptr operator++(int) noexcept
    {
        global_ptr old = *this;
        *this += 1;
        return old;
    }
    global_ptr operator[](std::ptrdiff_t) const = delete;  // use (p + i).get()

    // A load/store pointer if this rank can reach the memory directly, else nullptr.
    T *local(context_ref ctx = default_context()) const
    {
        return static_cast<T *>(pgdds_gptr_to_local(ctx.handle(), p_));
    }

    // --- typed one-sided access -------------------------------------------------------------
    template <class U = T> U get(context_ref ctx = default_context()) const
    {
        U v;
        check(pgdds_get(ctx.handle(), &v, p_, sizeof(U)));
        return v;
    }
    template <class U = T> void put(const U &v, context_ref ctx = default_context()) const
    {
        check(pgdds_put(ctx.handle(), p_, &v, sizeof(U)));
    }
    void get(T *dst, size_t count, context_ref ctx = default_context()) const
    {
        check(pgdds_get(ctx.handle(), dst, p_, count * sizeof(T)));
    }
    void put(const T *src, size_t count, context_ref ctx = default_context()) const
    {
        check(pgdds_put(ctx.handle(), p_, src, count * sizeof(T)));
    }

    // The same place in rank r's copy of symmetric memory (context::alloc_all).
    global_ptr at(int r, context_ref ctx = default_context()) const
    {
        pgdds_gptr_t q;
        check(pgdds_gptr_at(ctx.handle(), p_, r, &q));
        return global_ptr(q);
    }

    // --- put with signal, and waiting on a word of one's own (pgdds.h) ------------------------
    // Puts count elements here, then sets (PGDDS_SIGNAL_SET) or adds to (PGDDS_SIGNAL_ADD) the
    // signal word sig on the same rank, ordered after the data; returns once both are visible.
    void put_signal(const T *src, size_t count, global_ptr<uint64_t> sig, uint64_t signal,
                    pgdds_signal_op_t op = PGDDS_SIGNAL_SET, context_ref ctx = default_context()) const
    {
        check(pgdds_put_signal(ctx.handle(), p_, src, count * sizeof(T), sig.raw(), signal, op));
    }
    // The same, returning once issued; it completes at the calling thread's next flush.
    void put_signal_nbi(const T *src, size_t count, global_ptr<uint64_t> sig, uint64_t signal,
                        pgdds_signal_op_t op = PGDDS_SIGNAL_SET, context_ref ctx = default_context()) const
    {
        check(pgdds_put_signal_nbi(ctx.handle(), p_, src, count * sizeof(T), sig.raw(), signal, op));
    }
    // Waits until this word, in the caller's own segment, compares with value as cmp says.
    void wait_until(pgdds_cmp_t cmp, T value, context_ref ctx = default_context()) const
    {
        static_assert(std::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                      "wait_until works on 32- and 64-bit integer words");
        if constexpr (sizeof(T) == 8) check(pgdds_wait_until_u64(ctx.handle(), p_, cmp, uint64_t(value)));
        else check(pgdds_wait_until_u32(ctx.handle(), p_, cmp, uint32_t(value)));
    }
    // One round of progress, then whether the comparison holds.
    bool test_until(pgdds_cmp_t cmp, T value, context_ref ctx = default_context()) const
    {
        static_assert(std::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                      "test_until works on 32- and 64-bit integer words");
        int ok = 0;
        if constexpr (sizeof(T) == 8) check(pgdds_test_until_u64(ctx.handle(), p_, cmp, uint64_t(value), &ok));
        else check(pgdds_test_until_u32(ctx.handle(), p_, cmp, uint32_t(value), &ok));
        return ok != 0;
    }

    // --- atomics on 32- and 64-bit integer (signed or not) and floating-point words ------------
    // Signed T compares signed in MIN/MAX; float and double take ADD, MIN, MAX and exchange, and
    // compare_exchange compares their bits (pgdds.h).
    T fetch_op(pgdds_aop_t op, T operand, context_ref ctx = default_context()) const
    {
        static_assert((std::is_integral<T>::value || std::is_floating_point<T>::value) &&
                          (sizeof(T) == 4 || sizeof(T) == 8),
                      "atomics work on 32- and 64-bit integer and floating-point words");
        T old;
        pgdds_context_t h = ctx.handle();
        if constexpr (std::is_same<T, double>::value) check(pgdds_atomic_double(h, p_, op, operand, &old));
        else if constexpr (std::is_same<T, float>::value) check(pgdds_atomic_float(h, p_, op, operand, &old));
        else if constexpr (std::is_signed<T>::value && sizeof(T) == 8)
            check(pgdds_atomic_i64(h, p_, op, int64_t(operand), reinterpret_cast<int64_t *>(&old)));
        else if constexpr (std::is_signed<T>::value)
            check(pgdds_atomic_i32(h, p_, op, int32_t(operand), reinterpret_cast<int32_t *>(&old)));
        else if constexpr (sizeof(T) == 8)
            check(pgdds_atomic_u64(h, p_, op, uint64_t(operand), reinterpret_cast<uint64_t *>(&old)));
        else
            check(pgdds_atomic_u32(h, p_, op, uint32_t(operand), reinterpret_cast<uint32_t *>(&old)));
        return old;
    }
    T fetch_add(T v, context_ref ctx = default_context()) const { return fetch_op(PGDDS_AOP_ADD, v, ctx); }
    T fetch_and(T v, context_ref ctx = default_context()) const { return fetch_op(PGDDS_AOP_AND, v, ctx); }
    T fetch_or(T v, context_ref ctx = default_context()) const { return fetch_op(PGDDS_AOP_OR, v, ctx); }
    T fetch_xor(T v, context_ref ctx = default_context()) const { return fetch_op(PGDDS_AOP_XOR, v, ctx); }
    T fetch_min(T v, context_ref ctx = default_context()) const { return fetch_op(PGDDS_AOP_MIN, v, ctx); }
    T fetch_max(T v, context_ref ctx = default_context()) const { return fetch_op(PGDDS_AOP_MAX, v, ctx); }
    T exchange(T v, context_ref ctx = default_context()) const { return fetch_op(PGDDS_AOP_SWAP, v, ctx); }
    T compare_exchange(T expected, T desired, context_ref ctx = default_context()) const
    {
        static_assert((std::is_integral<T>::value || std::is_floating_point<T>::value) &&
                          (sizeof(T) == 4 || sizeof(T) == 8),
                      "atomics work on 32- and 64-bit integer and floating-point words");
        T old;
        pgdds_context_t h = ctx.handle();
        if constexpr (std::is_same<T, double>::value) check(pgdds_atomic_cswap_double(h, p_, expected, desired, &old));
        else if constexpr (std::is_same<T, float>::value) check(pgdds_atomic_cswap_float(h, p_, expected, desired, &old));
        else if constexpr (sizeof(T) == 8)
            check(pgdds_atomic_cswap_u64(h, p_, uint64_t(expected), uint64_t(desired), reinterpret_cast<uint64_t *>(&old)));
        else
            check(pgdds_atomic_cswap_u32(h, p_, uint32_t(expected), uint32_t(desired), reinterpret_cast<uint32_t *>(&old)));
        return old;
    }
    T atomic_load(context_ref ctx = default_context()) const
    {
        static_assert(std::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                      "atomics work on 32- and 64-bit integer words");
        T v;
        if constexpr (sizeof(T) == 8)
            check(pgdds_atomic_load_u64(ctx.handle(), p_, reinterpret_cast<uint64_t *>(&v)));
        else
            check(pgdds_atomic_load_u32(ctx.handle(), p_, reinterpret_cast<uint32_t *>(&v)));
        return v;
    }

  private:
    static constexpr size_t elem()
    {
        if constexpr (std::is_void<T>::value) return 1;
        else return sizeof(T);
    }
    pgdds_gptr_t p_ = PGDDS_GPTR_NULL;
};

static_assert(sizeof(global_ptr<int>) == sizeof(pgdds_gptr_t), "a global_ptr is one word");
static_assert(std::is_trivially_copyable<global_ptr<double>>::value, "global_ptr is trivially copyable");
static_assert(std::is_standard_layout<global_ptr<double>>::value, "global_ptr has the C layout");

template <class T> global_ptr<T> context_ref::alloc(size_t count, size_t alignment) const
{
    return alloc<T>(count, memory::host, alignment);
}

template <class T> global_ptr<T> context_ref::alloc(size_t count, memory kind, size_t alignment) const
{
    pgdds_gptr_t p;
    if (count > SIZE_MAX / sizeof(T)) throw error(PGDDS_ERR_INVALID_ARG, "alloc: element count overflows");
    size_t align = alignment < 16 ? 16 : alignment;
    check(pgdds_alloc_kind(h_, static_cast<pgdds_memory_kind_t>(kind), count * sizeof(T), align, &p));
    return global_ptr<T>(p);
}

template <class T> void context_ref::free(global_ptr<T> p) const { check(pgdds_free(h_, p.raw())); }

template <class T> global_ptr<T> context_ref::alloc_all(size_t count, bool zeroed, size_t alignment) const
{
    pgdds_gptr_t p;
    // An overflowing count still takes part in the collective call (as a size no rank can hold),
    // so that every rank fails together.
    size_t bytes = count > SIZE_MAX / sizeof(T) ? SIZE_MAX : count * sizeof(T);
    size_t align = alignment < 16 ? 16 : alignment;
    check(pgdds_alloc_all(h_, bytes, align, zeroed ? unsigned(PGDDS_ALLOC_ZERO) : 0u, &p));
    return global_ptr<T>(p);
}

template <class T> void context_ref::free_all(global_ptr<T> p) const { check(pgdds_free_all(h_, p.raw())); }

}  // namespace pgdds
