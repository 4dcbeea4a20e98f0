// Collectives, built on active messages through the service VCI: a dissemination barrier,
// binomial-tree broadcast and reduction, ring allgather. Each step's message is matched by
// (collective sequence number, tag, source), so steps of consecutive collectives never mix.
#include "runtime.h"

#include <algorithm>
#include <cmath>

namespace pgdds {

namespace {
// Messages of one step are at most this large; bigger collectives run in pieces.
constexpr size_t piece_bytes = size_t(1) << 24;

struct coll_header {
    uint64_t seq;
    uint32_t tag;
    uint32_t pad;
};

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

void runtime::coll_deliver(int src, const void *payload, size_t size)
{
    coll_header h;
    if (size < sizeof h) return;
    memcpy(&h, payload, sizeof h);
    const uint8_t *data = static_cast<const uint8_t *>(payload) + sizeof h;
    std::lock_guard<std::mutex> guard(coll_lock_);
    coll_inbox_[std::make_tuple(h.seq, h.tag, src)].assign(data, data + size - sizeof h);
}

status runtime::coll_send(const char *who, int dst, uint64_t seq, uint32_t tag, const void *data, size_t n)
{
    PGDDS_LOG(LOG_TRACE, "%s: collective %llu step %u: %zu bytes to rank %d", who, (unsigned long long)seq, tag, n, dst);
    std::vector<uint8_t> msg(sizeof(coll_header) + n);
    coll_header h{seq, tag, 0};
    memcpy(msg.data(), &h, sizeof h);
    if (n) memcpy(msg.data() + sizeof h, data, n);
    return am_send(who, vci_at(service_vci()), dst, AM_COLLECTIVE, msg.data(), msg.size());
}

status runtime::coll_recv(const char *who, int src, uint64_t seq, uint32_t tag, std::vector<uint8_t> &msg)
{
    auto key = std::make_tuple(seq, tag, src);
    auto arrived = [&] {
        std::lock_guard<std::mutex> guard(coll_lock_);
        auto it = coll_inbox_.find(key);
        if (it == coll_inbox_.end()) return false;
        msg = std::move(it->second);
        coll_inbox_.erase(it);
        return true;
    };
    status st = wait(who, vci_at(service_vci()), arrived);
    if (st == PGDDS_OK)
        PGDDS_LOG(LOG_TRACE, "%s: collective %llu step %u: %zu bytes from rank %d", who, (unsigned long long)seq, tag,
                  msg.size(), src);
    return st;
}

// Copies a received contribution of the expected size into data. A rank that passed another
// size makes this one fail once the collective's protocol is complete (so that no rank is left
// waiting); the first mismatch is kept in `mismatch`.
static bool accept(const std::vector<uint8_t> &msg, void *data, size_t n, int src, std::string &mismatch)
{
    if (msg.size() == n) {
        if (n) memcpy(data, msg.data(), n);
        return true;
    }
    if (mismatch.empty())
        mismatch = "rank " + std::to_string(src) + " contributed " + std::to_string(msg.size()) +
                   " bytes where " + std::to_string(n) + " were expected (every rank must pass the same sizes)";
    return false;
}

static status mismatch_error(const char *who, const std::string &mismatch)
{
    return fail(PGDDS_ERR_INVALID_ARG, "%s: %s", who, mismatch.c_str());
}

status runtime::barrier(const char *who)
{
    status st = flush_all(who);
    if (st != PGDDS_OK) return st;
    uint64_t seq = next_coll_seq();
    std::vector<uint8_t> msg;
    for (int k = 1, tag = 0; k < nranks_; k <<= 1, ++tag) {
        st = coll_send(who, (rank_ + k) % nranks_, seq, uint32_t(tag), nullptr, 0);
        if (st == PGDDS_OK) st = coll_recv(who, (rank_ - k + nranks_) % nranks_, seq, uint32_t(tag), msg);
        if (st != PGDDS_OK) return st;
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return PGDDS_OK;
}

status runtime::broadcast(const char *who, void *buf, size_t n, int root)
{
    uint8_t *base = static_cast<uint8_t *>(buf);
    std::string mismatch;
    std::vector<uint8_t> msg;
    size_t off = 0;
    do {
        size_t len = std::min(piece_bytes, n - off);
        uint64_t seq = next_coll_seq();
        int vr = (rank_ - root + nranks_) % nranks_;
        int mask = 1;
        status st = PGDDS_OK;
        // Receive from the parent, then pass on exactly what arrived: a rank with another size
        // fails, but its subtree still completes.
        const void *out = base + off;
        size_t out_len = len;
        while (mask < nranks_) {
            if (vr & mask) {
                st = coll_recv(who, (vr - mask + root) % nranks_, seq, 0, msg);
                if (st == PGDDS_OK) {
                    accept(msg, base + off, len, (vr - mask + root) % nranks_, mismatch);
                    out = msg.data();
                    out_len = msg.size();
                }
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; st == PGDDS_OK && mask > 0; mask >>= 1)
            if (vr + mask < nranks_) st = coll_send(who, (vr + mask + root) % nranks_, seq, 0, out, out_len);
        if (st != PGDDS_OK) return st;
        off += len;
    } while (off < n);
    return mismatch.empty() ? PGDDS_OK : mismatch_error(who, mismatch);
}

status runtime::allreduce(const char *who, const void *in, void *out, size_t count, pgdds_dtype_t dt, pgdds_op_t op)
{
    size_t es = dtype_size(dt);
    size_t per_piece = piece_bytes / es;
    if (in != out && count) memmove(out, in, count * es);
    std::vector<uint8_t> incoming, msg;
    std::string mismatch;
    for (size_t first = 0; first < count || (count == 0 && first == 0); first += per_piece) {
        size_t cnt = std::min(per_piece, count - first);
        uint8_t *acc = static_cast<uint8_t *>(out) + first * es;
        incoming.resize(cnt * es);
        uint64_t seq = next_coll_seq();
        status st = PGDDS_OK;
        // Binomial reduction to rank 0 ...
        for (int mask = 1; mask < nranks_; mask <<= 1) {
            if (rank_ & mask) {
                st = coll_send(who, rank_ - mask, seq, 0, acc, cnt * es);
                break;
            }
            if (rank_ + mask < nranks_) {
                st = coll_recv(who, rank_ + mask, seq, 0, msg);
                if (st != PGDDS_OK) break;
                if (accept(msg, incoming.data(), cnt * es, rank_ + mask, mismatch)) reduce(acc, incoming.data(), cnt, dt, op);
            }
        }
        if (st != PGDDS_OK) return st;
        // ... then the result goes back down the same tree.
        st = broadcast(who, acc, cnt * es, 0);
        if (st == PGDDS_ERR_INVALID_ARG && mismatch.empty()) {
            std::string e = pgdds_last_error();  // "who: rank ... contributed ..."
            mismatch = e.substr(e.find(": ") == std::string::npos ? 0 : e.find(": ") + 2);
        } else if (st != PGDDS_OK) {
            return st;
        }
        if (count == 0) break;
    }
    return mismatch.empty() ? PGDDS_OK : mismatch_error(who, mismatch);
}

status runtime::allgather(const char *who, const void *in, void *out, size_t bytes)
{
    uint8_t *o = static_cast<uint8_t *>(out);
    std::string mismatch;
    std::vector<uint8_t> msg;
    if (bytes) memmove(o + size_t(rank_) * bytes, in, bytes);
    int right = (rank_ + 1) % nranks_, left = (rank_ - 1 + nranks_) % nranks_;
    for (size_t off = 0; off < bytes || (bytes == 0 && off == 0); off += piece_bytes) {
        size_t len = std::min(piece_bytes, bytes - off);
        uint64_t seq = next_coll_seq();
        for (int step = 0; step < nranks_ - 1; ++step) {
            int send_block = (rank_ - step + nranks_) % nranks_;
            int recv_block = (rank_ - step - 1 + nranks_) % nranks_;
            status st = coll_send(who, right, seq, uint32_t(step), o + size_t(send_block) * bytes + off, len);
            if (st == PGDDS_OK) st = coll_recv(who, left, seq, uint32_t(step), msg);
            if (st != PGDDS_OK) return st;
            accept(msg, o + size_t(recv_block) * bytes + off, len, left, mismatch);
        }
        if (bytes == 0) break;
    }
    return mismatch.empty() ? PGDDS_OK : mismatch_error(who, mismatch);
}

}  // namespace pgdds
