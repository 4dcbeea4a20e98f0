// Collectives, built on active messages through the service VCI: a dissemination barrier,
// binomial-tree broadcast and reduction, ring allgather. Each step's message is matched by
// (collective sequence number, tag, source), so steps of consecutive collectives never mix.
//
// Every message also carries the description of its sender's call (kind, operation, type, root,
// size), checked on receipt against the receiver's own: a rank that sees another call sends the
// reason to every rank, and every rank's call fails with it (PGDDS_ERR_INVALID_ARG). Each
// algorithm is arranged so that no rank completes before it has heard, directly or through
// ranks that checked, from every other rank, and so that no output is written before then: a
// call either completes alike everywhere or fails everywhere with outputs untouched.
#include "runtime.h"

#include <algorithm>
#include <cmath>

namespace pgdds {

namespace {
// Messages of one step are at most this large; bigger collectives run in pieces.
constexpr size_t piece_bytes = size_t(1) << 24;

enum : uint8_t { coll_barrier = 1, coll_broadcast, coll_allreduce, coll_allgather };
// Header flags: the message is not a step but a notice, carrying the reason as its payload.
enum : uint8_t { coll_flag_abort = 1, coll_flag_poison = 2 };

struct coll_header {
    uint64_t seq;
    uint64_t tag;
    uint8_t kind, op, dtype, flags;
    int32_t root;
    uint64_t size;
};
static_assert(sizeof(coll_header) == 32, "packed header");

// Tags: piece of a large collective, phase (up or down a tree), step within the phase.
constexpr uint64_t tag_of(size_t piece, uint32_t phase, uint32_t step)
{
    return uint64_t(piece) << 32 | uint64_t(phase) << 30 | step;
}

template <class T> void reduce_typed(T *acc, const T *in, size_t count, pgdds_op_t op)
{
    switch (op) {
    case PGDDS_OP_SUM: for (size_t i = 0; i < count; ++i) acc[i] = T(acc[i] + in[i]); break;
    case PGDDS_OP_MIN: for (size_t i = 0; i < count; ++i) acc[i] = std::min(acc[i], in[i]); break;
    case PGDDS_OP_MAX: for (size_t i = 0; i < count; ++i) acc[i] = std::max(acc[i], in[i]); break;
    default:
        if constexpr (std::is_integral<T>::value) {
            for (size_t i = 0; i < count; ++i)
                acc[i] = op == PGDDS_OP_BAND ? T(acc[i] & in[i]) : op == PGDDS_OP_BOR ? T(acc[i] | in[i]) : T(acc[i] ^ in[i]);
        }
        break;
    }
}

void reduce(void *acc, const void *in, size_t count, pgdds_dtype_t dt, pgdds_op_t op)
{
    switch (dt) {
    case PGDDS_INT32: reduce_typed(static_cast<int32_t *>(acc), static_cast<const int32_t *>(in), count, op); break;
    case PGDDS_INT64: reduce_typed(static_cast<int64_t *>(acc), static_cast<const int64_t *>(in), count, op); break;
    case PGDDS_UINT32: reduce_typed(static_cast<uint32_t *>(acc), static_cast<const uint32_t *>(in), count, op); break;
    case PGDDS_UINT64: reduce_typed(static_cast<uint64_t *>(acc), static_cast<const uint64_t *>(in), count, op); break;
    case PGDDS_FLOAT: reduce_typed(static_cast<float *>(acc), static_cast<const float *>(in), count, op); break;
    case PGDDS_DOUBLE: reduce_typed(static_cast<double *>(acc), static_cast<const double *>(in), count, op); break;
    }
}
}  // namespace

size_t dtype_size(pgdds_dtype_t dt)
{
    switch (dt) {
    case PGDDS_INT32: case PGDDS_UINT32: case PGDDS_FLOAT: return 4;
    case PGDDS_INT64: case PGDDS_UINT64: case PGDDS_DOUBLE: return 8;
    }
    return 0;
}

namespace {
const char *dtype_name(unsigned dt)
{
    static const char *const names[] = {"int32", "int64", "uint32", "uint64", "float", "double"};
    return dt < 6 ? names[dt] : "?";
}
const char *op_name(unsigned op)
{
    static const char *const names[] = {"SUM", "MIN", "MAX", "BAND", "BOR", "BXOR"};
    return op < 6 ? names[op] : "?";
}

// "an allreduce of 4 int64 with SUM", as the message of a mismatch says it.
std::string describe(const runtime::coll_desc &d)
{
    char buf[160];
    switch (d.kind) {
    case coll_barrier: return "a barrier";
    case coll_broadcast:
        snprintf(buf, sizeof buf, "a broadcast of %llu bytes from root %d", (unsigned long long)d.size, int(d.root));
        return buf;
    case coll_allreduce:
        snprintf(buf, sizeof buf, "an allreduce of %llu %s with %s", (unsigned long long)d.size, dtype_name(d.dtype),
                 op_name(d.op));
        return buf;
    case coll_allgather:
        snprintf(buf, sizeof buf, "an allgather of %llu bytes per rank", (unsigned long long)d.size);
        return buf;
    }
    return "an unknown collective";
}
}  // namespace

status runtime::coll_begin(const char *who, const coll_desc &d, uint64_t &seq)
{
    if (coll_busy_.exchange(true, std::memory_order_acquire)) {
        // The two threads' calls may already be paired with different calls of other ranks:
        // no later collective of this context can be trusted.
        char why[200];
        snprintf(why, sizeof why, "two threads of rank %d called collectives on one context at the same time "
                 "(one thread per rank at a time); collectives on this context are disabled", rank_);
        {
            std::lock_guard<std::mutex> guard(coll_lock_);
            if (coll_poison_.empty()) coll_poison_ = why;
        }
        coll_notify(who, 0, coll_flag_poison, why);
        return fail(PGDDS_ERR_STATE, "%s: %s", who, why);
    }
    {
        std::lock_guard<std::mutex> guard(coll_lock_);
        if (!coll_poison_.empty()) {
            std::string why = coll_poison_;
            coll_busy_.store(false, std::memory_order_release);
            return fail(PGDDS_ERR_STATE, "%s: %s", who, why.c_str());
        }
        coll_cur_ = d;
    }
    seq = ++coll_seq_;
    return PGDDS_OK;
}

void runtime::coll_end(uint64_t seq)
{
    {
        // What is left of this call (steps of a mismatched one) is dropped, now and on arrival.
        std::lock_guard<std::mutex> guard(coll_lock_);
        coll_done_ = seq;
        coll_inbox_.erase(coll_inbox_.begin(), coll_inbox_.lower_bound(coll_key(seq + 1, 0, 0)));
        coll_aborts_.erase(coll_aborts_.begin(), coll_aborts_.upper_bound(seq));
    }
    coll_busy_.store(false, std::memory_order_release);
}

void runtime::coll_deliver(int src, const void *payload, size_t size)
{
    coll_header h;
    if (size < sizeof h) return;
    memcpy(&h, payload, sizeof h);
    const uint8_t *data = static_cast<const uint8_t *>(payload) + sizeof h;
    size_t n = size - sizeof h;
    std::lock_guard<std::mutex> guard(coll_lock_);
    if (h.flags & coll_flag_poison) {
        if (coll_poison_.empty()) coll_poison_.assign(reinterpret_cast<const char *>(data), n);
        return;
    }
    if (h.seq <= coll_done_) return;  // a step of a call that failed here already
    if (h.flags & coll_flag_abort) {
        coll_aborts_.emplace(h.seq, std::string(reinterpret_cast<const char *>(data), n));
        return;
    }
    coll_msg &m = coll_inbox_[coll_key(h.seq, h.tag, src)];
    m.desc.kind = h.kind;
    m.desc.op = h.op;
    m.desc.dtype = h.dtype;
    m.desc.root = h.root;
    m.desc.size = h.size;
    m.data.assign(data, data + n);
}

status runtime::coll_send(const char *who, int dst, uint64_t seq, uint64_t tag, const void *data, size_t n,
                          uint8_t flags)
{
    PGDDS_LOG(LOG_TRACE, "%s: collective %llu step %llu: %zu bytes to rank %d", who, (unsigned long long)seq,
              (unsigned long long)tag, n, dst);
    std::vector<uint8_t> msg(sizeof(coll_header) + n);
    // A notice describes no call (and may come from a thread that is not in one).
    const coll_desc d = flags ? coll_desc{} : coll_cur_;
    coll_header h{seq, tag, d.kind, d.op, d.dtype, flags, d.root, d.size};
    memcpy(msg.data(), &h, sizeof h);
    if (n) memcpy(msg.data() + sizeof h, data, n);
    return am_send(who, vci_at(service_vci()), dst, AM_COLLECTIVE, msg.data(), msg.size());
}

void runtime::coll_notify(const char *who, uint64_t seq, uint8_t flags, const std::string &why)
{
    for (int r = 0; r < nranks_; ++r)
        if (r != rank_) coll_send(who, r, seq, 0, why.data(), why.size(), flags);  // a dead rank needs none
}

status runtime::coll_recv(const char *who, int src, uint64_t seq, uint64_t tag, std::vector<uint8_t> &msg)
{
    const coll_key key(seq, tag, src);
    status verdict = PGDDS_OK;
    std::string why;
    bool found_here = false;  // this rank saw the mismatch: it tells the others
    auto decided = [&] {
        std::lock_guard<std::mutex> guard(coll_lock_);
        if (!coll_poison_.empty()) {
            verdict = PGDDS_ERR_STATE;
            why = coll_poison_;
            return true;
        }
        auto ab = coll_aborts_.find(seq);
        if (ab != coll_aborts_.end()) {
            verdict = PGDDS_ERR_INVALID_ARG;
            why = ab->second;
            return true;
        }
        // Every message of this call that arrived so far, whichever step it is for.
        for (auto it = coll_inbox_.lower_bound(coll_key(seq, 0, 0));
             it != coll_inbox_.end() && std::get<0>(it->first) == seq; ++it) {
            if (it->second.desc == coll_cur_) continue;
            verdict = PGDDS_ERR_INVALID_ARG;
            why = "collectives do not match: rank " + std::to_string(std::get<2>(it->first)) + " called " +
                  describe(it->second.desc) + " where rank " + std::to_string(rank_) + " called " +
                  describe(coll_cur_);
            found_here = true;
            return true;
        }
        auto it = coll_inbox_.find(key);
        if (it == coll_inbox_.end()) return false;
        msg = std::move(it->second.data);
        coll_inbox_.erase(it);
        return true;
    };
    status st = wait(who, vci_at(service_vci()), decided);
    if (st != PGDDS_OK) return st;
    if (verdict == PGDDS_OK) {
        PGDDS_LOG(LOG_TRACE, "%s: collective %llu step %llu: %zu bytes from rank %d", who, (unsigned long long)seq,
                  (unsigned long long)tag, msg.size(), src);
        return PGDDS_OK;
    }
    if (found_here) coll_notify(who, seq, coll_flag_abort, why);
    return fail(verdict, "%s: %s", who, why.c_str());
}

namespace {
// Up the binomial tree rooted at rank 0 (the same tree whatever the call, so that calls that
// differ still meet): receives each child's message and hands it to take(child, msg), then
// sends what up() gives to the parent. Rank 0 ends having heard from every rank.
template <class Take, class Up>
status tree_up(runtime &rt, const char *who, uint64_t seq, uint64_t tag, Take take, Up up)
{
    std::vector<uint8_t> msg;
    const int me = rt.rank(), n = rt.nranks();
    for (int mask = 1; mask < n; mask <<= 1) {
        if (me & mask) {
            std::pair<const void *, size_t> out = up();
            return rt.coll_send(who, me - mask, seq, tag, out.first, out.second);
        }
        if (me + mask < n) {
            status st = rt.coll_recv(who, me + mask, seq, tag, msg);
            if (st != PGDDS_OK) return st;
            take(me + mask, msg);
        }
    }
    return PGDDS_OK;
}

// Down the same tree: rank 0 sends `data`, the others receive it into msg and pass it on.
status tree_down(runtime &rt, const char *who, uint64_t seq, uint64_t tag, const void *data, size_t n_bytes,
                 std::vector<uint8_t> &msg)
{
    const int me = rt.rank(), n = rt.nranks();
    int mask = 1;
    while (mask < n) {
        if (me & mask) {
            status st = rt.coll_recv(who, me - mask, seq, tag, msg);
            if (st != PGDDS_OK) return st;
            data = msg.data();
            n_bytes = msg.size();
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < n) {
            status st = rt.coll_send(who, me + mask, seq, tag, data, n_bytes);
            if (st != PGDDS_OK) return st;
        }
    return PGDDS_OK;
}
}  // namespace

status runtime::barrier(const char *who)
{
    coll_desc d;
    d.kind = coll_barrier;
    uint64_t seq;
    status st = coll_begin(who, d, seq);  // first: a disabled context must not wait in the flush
    if (st != PGDDS_OK) return st;
    st = flush_all(who);
    std::vector<uint8_t> msg;
    for (int k = 1, step = 0; k < nranks_ && st == PGDDS_OK; k <<= 1, ++step) {
        st = coll_send(who, (rank_ + k) % nranks_, seq, tag_of(0, 0, uint32_t(step)), nullptr, 0);
        fault_here(fault_point::barrier);
        if (st == PGDDS_OK) st = coll_recv(who, (rank_ - k + nranks_) % nranks_, seq, tag_of(0, 0, uint32_t(step)), msg);
    }
    coll_end(seq);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return st;
}

// The root's data goes up the tree rooted at rank 0 with every rank's call description (the
// ranks on the root's path carry it), then down from rank 0: a rank receives it only once rank
// 0 has checked every rank's call.
status runtime::broadcast(const char *who, void *buf, size_t n, int root)
{
    coll_desc d;
    d.kind = coll_broadcast;
    d.root = root;
    d.size = n;
    uint64_t seq;
    status st = coll_begin(who, d, seq);
    if (st != PGDDS_OK) return st;
    uint8_t *base = static_cast<uint8_t *>(buf);
    std::vector<uint8_t> carried, msg;
    size_t piece = 0, off = 0;
    do {
        size_t len = std::min(piece_bytes, n - off);
        const void *mine = rank_ == root ? base + off : nullptr;  // the piece, if this rank has it
        st = tree_up(*this, who, seq, tag_of(piece, 0, 0),
                     [&](int, std::vector<uint8_t> &m) {
                         if (!m.empty()) mine = (carried = std::move(m)).data();
                     },
                     [&] { return std::make_pair(mine, mine ? len : size_t(0)); });
        if (st == PGDDS_OK) st = tree_down(*this, who, seq, tag_of(piece, 1, 0), mine, len, msg);
        if (st != PGDDS_OK) break;
        if (rank_ != root && len) memcpy(base + off, rank_ == 0 ? mine : msg.data(), len);
        off += len;
        ++piece;
    } while (off < n);
    coll_end(seq);
    return st;
}

// A binomial reduction to rank 0, then the result goes back down the same tree. Partial
// results build up apart from `out`, which receives the result only.
status runtime::allreduce(const char *who, const void *in, void *out, size_t count, pgdds_dtype_t dt, pgdds_op_t op)
{
    coll_desc d;
    d.kind = coll_allreduce;
    d.op = uint8_t(op);
    d.dtype = uint8_t(dt);
    d.size = count;
    uint64_t seq;
    status st = coll_begin(who, d, seq);
    if (st != PGDDS_OK) return st;
    size_t es = dtype_size(dt);
    size_t per_piece = piece_bytes / es;
    std::vector<uint8_t> acc, msg;
    size_t piece = 0;
    for (size_t first = 0; first < count || (count == 0 && first == 0); first += per_piece, ++piece) {
        size_t cnt = std::min(per_piece, count - first);
        const uint8_t *src = static_cast<const uint8_t *>(in) + first * es;
        acc.assign(src, src + cnt * es);
        st = tree_up(*this, who, seq, tag_of(piece, 0, 0),
                     [&](int, std::vector<uint8_t> &m) {
                         if (m.size() == acc.size()) reduce(acc.data(), m.data(), cnt, dt, op);  // it is: the calls agree
                     },
                     [&] { return std::make_pair(static_cast<const void *>(acc.data()), acc.size()); });
        if (st == PGDDS_OK) st = tree_down(*this, who, seq, tag_of(piece, 1, 0), acc.data(), acc.size(), msg);
        if (st != PGDDS_OK) break;
        if (cnt) memcpy(static_cast<uint8_t *>(out) + first * es, rank_ == 0 ? acc.data() : msg.data(), cnt * es);
        if (count == 0) break;
    }
    coll_end(seq);
    return st;
}

// A ring: step s passes on the block received at step s - 1, so a rank's last block has passed
// every other rank's check. Blocks gather apart from `out`, which receives them at the end.
status runtime::allgather(const char *who, const void *in, void *out, size_t bytes)
{
    coll_desc d;
    d.kind = coll_allgather;
    d.size = bytes;
    uint64_t seq;
    status st = coll_begin(who, d, seq);
    if (st != PGDDS_OK) return st;
    std::vector<uint8_t> all(bytes * size_t(nranks_)), msg;
    if (bytes) memcpy(all.data() + size_t(rank_) * bytes, in, bytes);
    int right = (rank_ + 1) % nranks_, left = (rank_ - 1 + nranks_) % nranks_;
    size_t piece = 0;
    for (size_t off = 0; st == PGDDS_OK && (off < bytes || (bytes == 0 && off == 0)); off += piece_bytes, ++piece) {
        size_t len = std::min(piece_bytes, bytes - off);
        for (int step = 0; step < nranks_ - 1; ++step) {
            int send_block = (rank_ - step + nranks_) % nranks_;
            int recv_block = (rank_ - step - 1 + nranks_) % nranks_;
            uint64_t tag = tag_of(piece, 0, uint32_t(step));
            st = coll_send(who, right, seq, tag, all.data() + size_t(send_block) * bytes + off, len);
            if (st == PGDDS_OK) st = coll_recv(who, left, seq, tag, msg);
            if (st != PGDDS_OK) break;
            if (len) memcpy(all.data() + size_t(recv_block) * bytes + off, msg.data(), len);
        }
        if (bytes == 0) break;
    }
    coll_end(seq);
    if (st == PGDDS_OK && bytes) memcpy(out, all.data(), all.size());
    return st;
}

}  // namespace pgdds
