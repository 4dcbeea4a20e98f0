// The GPU layer over the CUDA runtime, built when the toolkit is found (gpu.h: what it does).
#include "gpu.h"

#include "../base/amo.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace pgdds::gpu {

namespace {

// One active message carries at most am_chunk bytes of a transfer to or from a device segment
// across the network; a staging buffer holds stage_chunk bytes.
constexpr size_t am_chunk = size_t(1) << 20;
constexpr size_t stage_chunk = size_t(4) << 20;

status cuda_error(const char *who, const char *what, cudaError_t e)
{
    return fail(PGDDS_ERR_TRANSPORT, "%s: %s failed: %s (%s)", who, what, cudaGetErrorName(e), cudaGetErrorString(e));
}

// A call to the owner of a device segment, waiting for its reply.
struct pending {
    uint64_t id = 0;
    std::atomic<bool> done{false};
    status result = PGDDS_OK;
    std::string message;
    void *dst = nullptr;  // where the reply's data goes (host memory), if anywhere
    size_t dst_len = 0;
};

enum : uint8_t { msg_put = 1, msg_get, msg_amo, msg_reply };

struct wire {
    uint8_t kind = 0;
    uint8_t op = 0;     // msg_amo: the amo_op
    uint8_t width = 0;  // msg_amo: 4 or 8
    uint8_t pad = 0;
    int32_t result = 0;  // msg_reply: the status (the message follows when it is a failure)
    uint64_t request = 0;
    uint64_t offset = 0;
    uint64_t length = 0;  // msg_get: the bytes asked for
    uint64_t operand = 0, compare = 0;
};

}  // namespace

class memory {
  public:
    explicit memory(runtime &r) : rt(r) {}
    runtime &rt;
    int device = -1;
    uint8_t *base = nullptr;
    size_t size = 0;
    std::unique_ptr<segment_allocator> alloc;
    std::vector<uint8_t *> peer_base;  // device segments addressable here (this rank's included)
    std::vector<uint64_t> peer_size;   // every rank's device segment size
    std::vector<cudaStream_t> streams; // one per VCI, each ordered after the legacy default stream
    std::mutex amo_lock;               // the owner's atomics run one at a time
    std::mutex stage_lock;             // the staging buffers serve one transfer at a time
    uint8_t *stage[2] = {nullptr, nullptr};
    std::mutex pending_lock;
    uint64_t next_request = 0;
    std::unordered_map<uint64_t, pending *> calls;

    // Copies n bytes between any two addresses of this process (host, device, IPC-mapped) on
    // the calling thread's stream, and waits for the copy.
    status copy(const char *who, void *dst, const void *src, size_t n)
    {
        if (!n) return PGDDS_OK;
        int current = -1;
        if (cudaGetDevice(&current) != cudaSuccess || current != device) cudaSetDevice(device);
        cudaStream_t s = streams[rt.current_vci().index];
        cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        return e == cudaSuccess ? PGDDS_OK : cuda_error(who, "cudaMemcpyAsync", e);
    }

    status check(const char *who, pgdds_gptr_t p, size_t n, unsigned width) const
    {
        const int r = gptr::rank(p);
        const uint64_t off = gptr::offset(p);
        if (r >= rt.nranks())
            return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: global pointer 0x%llx names rank %d, but the job has %d ranks",
                        who, (unsigned long long)p, r, rt.nranks());
        if (off < segment_reserved)
            return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: offset 0x%llx lies in the library's reserved header of rank %d's "
                        "device segment (a null or corrupt global pointer?)", who, (unsigned long long)off, r);
        if (off + n > peer_size[size_t(r)] || off + n < off)
            return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: %zu bytes at offset 0x%llx overrun rank %d's device segment "
                        "(size 0x%llx)", who, n, (unsigned long long)off, r, (unsigned long long)peer_size[size_t(r)]);
        if (width && (off & (width - 1)))
            return fail(PGDDS_ERR_INVALID_ARG, "%s: target offset 0x%llx on rank %d is not %u-byte aligned", who,
                        (unsigned long long)off, r, width);
        return PGDDS_OK;
    }

    // The owner's side of an atomic: read, compute, write back, under amo_lock.
    status owner_amo(const char *who, uint64_t off, const amo_args &a)
    {
        std::lock_guard<std::mutex> guard(amo_lock);
        uint64_t old = 0;
        status st = copy(who, &old, base + off, a.width);
        if (st != PGDDS_OK) return st;
        uint64_t next = amo_next_word(a.op, a.width, old, a.operand, a.compare);
        if (next != old) st = copy(who, base + off, &next, a.width);
        if (st == PGDDS_OK && a.result) memcpy(a.result, &old, a.width);
        return st;
    }

    // --- calls to owners across the network -----------------------------------------------------
    status send(const char *who, vci &v, int owner, wire h, const void *data, size_t len, pending &p)
    {
        {
            std::lock_guard<std::mutex> guard(pending_lock);
            h.request = p.id = ++next_request;
            calls[p.id] = &p;
        }
        std::vector<uint8_t> msg(sizeof h + len);
        memcpy(msg.data(), &h, sizeof h);
        if (len) memcpy(msg.data() + sizeof h, data, len);
        status st = rt.am_send(who, v, owner, AM_GPU, msg.data(), msg.size());
        if (st != PGDDS_OK) forget(p);
        return st;
    }
    void forget(pending &p)
    {
        std::lock_guard<std::mutex> guard(pending_lock);
        calls.erase(p.id);
        p.id = 0;
    }
    // Waits for the first `sent` calls of ps; the owner's failure (with its explanation) wins.
    status wait(const char *who, vci &v, int owner, pending *ps, size_t sent, status first)
    {
        status st = rt.wait(who, v, [&] {
            for (size_t i = 0; i < sent; ++i)
                if (ps[i].id && !ps[i].done.load(std::memory_order_acquire)) return false;
            return true;
        });
        for (size_t i = 0; i < sent; ++i)
            if (!ps[i].done.load(std::memory_order_acquire)) forget(ps[i]);
        if (st != PGDDS_OK) {
            const std::string why = pgdds_last_error();
            return fail(st, "%s; waiting for rank %d, the owner of the device memory, which serves it when it "
                        "progresses (any pgdds call, or PGDDS_PROGRESS_THREAD=1)", why.c_str(), owner);
        }
        if (first != PGDDS_OK) return first;
        for (size_t i = 0; i < sent; ++i)
            if (ps[i].result != PGDDS_OK)
                return fail(ps[i].result, "%s: %s (reported by rank %d, the owner)", who, ps[i].message.c_str(), owner);
        return PGDDS_OK;
    }
    void complete(const wire &h, const uint8_t *body, size_t len)
    {
        pending *p = nullptr;
        {
            std::lock_guard<std::mutex> guard(pending_lock);
            auto it = calls.find(h.request);
            if (it != calls.end()) {
                p = it->second;
                calls.erase(it);
            }
        }
        if (!p) {
            PGDDS_LOG(LOG_WARN, "device memory: a reply to call %llu came after its caller gave up",
                      (unsigned long long)h.request);
            return;
        }
        p->result = status(h.result);
        if (p->result == PGDDS_OK && p->dst) memcpy(p->dst, body, len < p->dst_len ? len : p->dst_len);
        if (p->result != PGDDS_OK) p->message.assign(reinterpret_cast<const char *>(body), len);
        p->done.store(true, std::memory_order_release);
    }
    void serve(int src, const wire &h, const uint8_t *body, size_t len)
    {
        char who[64];
        snprintf(who, sizeof who, "device memory (for rank %d)", src);
        wire r;
        r.kind = msg_reply;
        r.request = h.request;
        std::vector<uint8_t> reply(sizeof r);
        const uint64_t n = h.kind == msg_put ? len : h.kind == msg_get ? h.length : h.width;
        status st = check(who, gptr::make(rt.rank(), segment_id, h.offset), n,
                          h.kind == msg_amo ? unsigned(h.width) : 0);
        if (st == PGDDS_OK && h.kind == msg_amo && ((h.width != 4 && h.width != 8) || h.op >= AMO_COUNT))
            st = fail(PGDDS_ERR_INVALID_ARG, "%s: atomic %u of width %u is not one this library sends", who, h.op,
                      h.width);
        if (st == PGDDS_OK) {
            switch (h.kind) {
            case msg_put: st = copy(who, base + h.offset, body, len); break;
            case msg_get:
                reply.resize(sizeof r + n);
                st = copy(who, reply.data() + sizeof r, base + h.offset, n);
                break;
            case msg_amo: {
                uint64_t old = 0;
                st = owner_amo(who, h.offset, amo_args{amo_op(h.op), h.width, h.operand, h.compare, &old});
                reply.resize(sizeof r + h.width);
                memcpy(reply.data() + sizeof r, &old, h.width);
                break;
            }
            default: st = fail(PGDDS_ERR_INVALID_ARG, "%s: unknown message kind %u", who, h.kind);
            }
        }
        if (st != PGDDS_OK) {
            const char *why = pgdds_last_error();
            reply.resize(sizeof r);
            reply.insert(reply.end(), why, why + strnlen(why, 400));
        }
        r.result = int32_t(st);
        memcpy(reply.data(), &r, sizeof r);
        if (rt.am_send(who, rt.current_vci(), src, AM_GPU, reply.data(), reply.size()) != PGDDS_OK)
            PGDDS_LOG(LOG_ERROR, "device memory: cannot reply to rank %d: %s", src, pgdds_last_error());
    }

    // put/get on a device segment across the network: every chunk in flight at once.
    status remote_rma(const char *who, bool is_put, pgdds_gptr_t remote, void *local, size_t n, bool local_device)
    {
        const int owner = gptr::rank(remote);
        std::vector<uint8_t> bounce;  // a host copy of a device buffer on this side
        uint8_t *buf = static_cast<uint8_t *>(local);
        if (local_device) {
            bounce.resize(n);
            if (is_put) {
                status st = copy(who, bounce.data(), local, n);
                if (st != PGDDS_OK) return st;
            }
            buf = bounce.data();
        }
        vci &v = rt.current_vci();
        const size_t chunks = n ? (n + am_chunk - 1) / am_chunk : 0;
        std::unique_ptr<pending[]> ps(new pending[chunks]);
        size_t sent = 0;
        status first = PGDDS_OK;
        for (; sent < chunks && first == PGDDS_OK; ++sent) {
            const size_t at = sent * am_chunk, len = n - at < am_chunk ? n - at : am_chunk;
            wire h;
            h.kind = is_put ? msg_put : msg_get;
            h.offset = gptr::offset(remote) + at;
            h.length = len;
            if (!is_put) {
                ps[sent].dst = buf + at;
                ps[sent].dst_len = len;
            }
            first = send(who, v, owner, h, is_put ? buf + at : nullptr, is_put ? len : 0, ps[sent]);
        }
        status st = wait(who, v, owner, ps.get(), sent, first);
        if (st == PGDDS_OK && !is_put && local_device) st = copy(who, local, bounce.data(), n);
        return st;
    }

    // put/get between a device buffer here and a host segment across the network, through the
    // pinned staging buffers: a put copies chunk i+1 out of the device while chunk i travels.
    status staged_rma(const char *who, bool is_put, pgdds_gptr_t remote, void *local, size_t n)
    {
        std::lock_guard<std::mutex> guard(stage_lock);
        vci &v = rt.current_vci();
        op_completion done[2];
        uint8_t *dev = static_cast<uint8_t *>(local);
        auto settle = [&](op_completion &d) {
            status st = rt.wait(who, v, [&] { return d.done(); });
            if (st == PGDDS_OK && d.result != PGDDS_OK) st = rt.failed(who, d.result);
            d.result = PGDDS_OK;
            return st;
        };
        status st = PGDDS_OK;
        for (size_t at = 0, i = 0; at < n && st == PGDDS_OK; at += stage_chunk, ++i) {
            const size_t len = n - at < stage_chunk ? n - at : stage_chunk;
            uint8_t *buf = stage[i & 1];
            op_completion &d = done[i & 1];
            st = settle(d);
            if (st != PGDDS_OK) break;
            if (is_put) {
                st = copy(who, buf, dev + at, len);
                if (st != PGDDS_OK) break;
                d.add();
                st = rt.net_put(who, v, gptr::add(remote, int64_t(at)), buf, len, &d);
                if (st != PGDDS_OK) d.complete(PGDDS_OK);
            } else {
                d.add();
                st = rt.net_get(who, v, buf, gptr::add(remote, int64_t(at)), len, &d);
                if (st != PGDDS_OK) d.complete(PGDDS_OK);
                else if ((st = settle(d)) == PGDDS_OK) st = copy(who, dev + at, buf, len);
            }
        }
        // Nothing may still read a staging buffer when the next transfer takes it.
        for (auto &d : done) {
            status sst = settle(d);
            if (st == PGDDS_OK) st = sst;
        }
        return st;
    }

    status close(const char *who)
    {
        if (device < 0) return PGDDS_OK;
        cudaError_t first = cudaSuccess;
        auto note = [&](cudaError_t e) {
            if (first == cudaSuccess) first = e;
        };
        cudaSetDevice(device);
        for (size_t r = 0; r < peer_base.size(); ++r)
            if (peer_base[r] && int(r) != rt.rank()) note(cudaIpcCloseMemHandle(peer_base[r]));
        peer_base.clear();
        for (auto s : streams) note(cudaStreamDestroy(s));
        streams.clear();
        for (auto &b : stage)
            if (b) note(cudaFreeHost(b)), b = nullptr;
        if (base) note(cudaFree(base)), base = nullptr;
        return first == cudaSuccess ? PGDDS_OK : cuda_error(who, "releasing the device segment", first);
    }
};

namespace {

void on_message(pgdds_context_t ctx, int src, const void *payload, size_t size, void *)
{
    runtime *rt = runtime::from(ctx);
    memory *m = rt ? rt->gpu() : nullptr;
    wire h;
    if (!m || size < sizeof h) {
        PGDDS_LOG(LOG_ERROR, "device memory: dropped a message of %zu bytes from rank %d", size, src);
        return;
    }
    // A handler runs inside some call of this rank's: it leaves that call's last error alone.
    const std::string interrupted = pgdds_last_error();
    memcpy(&h, payload, sizeof h);
    const uint8_t *body = static_cast<const uint8_t *>(payload) + sizeof h;
    if (h.kind == msg_reply) m->complete(h, body, size - sizeof h);
    else m->serve(src, h, body, size - sizeof h);
    fail(PGDDS_OK, "%s", interrupted.c_str());
}

status no_segment(runtime &rt, const char *who)
{
    return fail(PGDDS_ERR_UNSUPPORTED, "%s: rank %d has no device segment (set PGDDS_GPU_SEGMENT_SIZE)", who,
                rt.rank());
}

// What each rank tells the others at start-up.
struct segment_card {
    int32_t result = PGDDS_OK;
    int32_t device = -1;
    uint64_t size = 0;
    cudaIpcMemHandle_t handle{};
};

// This rank's device segment, or the reason it has none.
status open_segment(runtime &rt, memory &m, segment_card &card)
{
    const char *who = "pgdds_init";
    const config &c = rt.cfg();
    std::string why;
    int count = visible_devices(why);
    if (count <= 0)
        return fail(PGDDS_ERR_UNSUPPORTED, "%s: PGDDS_GPU_SEGMENT_SIZE is set, but rank %d sees no CUDA device (%s)",
                    who, rt.rank(), why.c_str());
    int dev = rt.local_rank() % count;
    if (!c.gpu_device.empty()) {
        char *end;
        long d = strtol(c.gpu_device.c_str(), &end, 10);
        if (*end || d < 0 || d >= count)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_GPU_DEVICE=\"%s\" is not a device number in 0..%d", who,
                        c.gpu_device.c_str(), count - 1);
        dev = int(d);
    }
    m.device = dev;
    cudaError_t e = cudaSetDevice(dev);
    if (e != cudaSuccess) return cuda_error(who, "cudaSetDevice", e);
    void *p = nullptr;
    if ((e = cudaMalloc(&p, c.gpu_segment_size)) != cudaSuccess)
        return fail(PGDDS_ERR_NO_MEMORY, "%s: cudaMalloc of the %zu-byte device segment on device %d failed: %s", who,
                    c.gpu_segment_size, dev, cudaGetErrorString(e));
    m.base = static_cast<uint8_t *>(p);
    m.size = c.gpu_segment_size;
    if ((e = cudaIpcGetMemHandle(&card.handle, p)) != cudaSuccess) return cuda_error(who, "cudaIpcGetMemHandle", e);
    for (unsigned i = 0; i < rt.num_endpoints(); ++i) {
        cudaStream_t s;
        // Blocking streams: a copy starts after the work the caller issued to the legacy default
        // stream (a cudaMemset or kernel that fills the buffer it passes).
        if ((e = cudaStreamCreate(&s)) != cudaSuccess) return cuda_error(who, "cudaStreamCreate", e);
        m.streams.push_back(s);
    }
    for (auto &b : m.stage) {
        void *h = nullptr;
        if ((e = cudaMallocHost(&h, stage_chunk)) != cudaSuccess) return cuda_error(who, "cudaMallocHost", e);
        b = static_cast<uint8_t *>(h);
    }
    m.alloc = std::make_unique<segment_allocator>(segment_reserved, m.size);
    card.device = dev;
    card.size = m.size;
    return PGDDS_OK;
}

}  // namespace

bool built() { return true; }

const char *toolkit_version()
{
    static const std::string v = std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
    return v.c_str();
}

int visible_devices(std::string &why)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        why = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + ", " + cudaGetErrorString(e);
        cudaGetLastError();
        return 0;
    }
    if (count == 0) why = "cudaGetDeviceCount found none";
    return count;
}

status attach(runtime &rt)
{
    const char *who = "pgdds_init";
    // Registered before the exchange: a peer may send as soon as its own start-up returns.
    rt.am_register_internal(AM_GPU, on_message, nullptr);
    auto m = std::make_unique<memory>(rt);
    segment_card mine;
    if (rt.cfg().gpu_segment_size) mine.result = open_segment(rt, *m, mine);
    const std::string my_error = mine.result == PGDDS_OK ? "" : pgdds_last_error();
    std::vector<segment_card> cards(size_t(rt.nranks()));
    status st = rt.allgather(who, &mine, cards.data(), sizeof mine);
    int failed_rank = -1, with = 0;
    for (int r = 0; r < rt.nranks(); ++r) {
        if (cards[size_t(r)].result != PGDDS_OK && failed_rank < 0) failed_rank = r;
        with += cards[size_t(r)].size != 0;
    }
    if (st == PGDDS_OK && mine.result != PGDDS_OK) st = fail(status(mine.result), "%s", my_error.c_str());
    else if (st == PGDDS_OK && failed_rank >= 0)
        st = fail(status(cards[size_t(failed_rank)].result), "%s: rank %d could not open its device segment "
                  "(PGDDS_GPU_SEGMENT_SIZE; its log says why)", who, failed_rank);
    else if (st == PGDDS_OK && with != 0 && with != rt.nranks())
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: %d of %d ranks have a device segment: PGDDS_GPU_SEGMENT_SIZE must be "
                  "set alike on every rank", who, with, rt.nranks());
    if (st != PGDDS_OK || with == 0) {
        m->close(who);
        return st;
    }
    m->peer_size.resize(size_t(rt.nranks()));
    m->peer_base.assign(size_t(rt.nranks()), nullptr);
    m->peer_base[size_t(rt.rank())] = m->base;
    for (int r = 0; r < rt.nranks(); ++r) {
        m->peer_size[size_t(r)] = cards[size_t(r)].size;
        if (r == rt.rank() || !rt.is_local(r) || !rt.cfg().gpu_ipc) continue;
        void *p = nullptr;
        cudaError_t e = cudaIpcOpenMemHandle(&p, cards[size_t(r)].handle, cudaIpcMemLazyEnablePeerAccess);
        if (e == cudaSuccess) m->peer_base[size_t(r)] = static_cast<uint8_t *>(p);
        else {
            cudaGetLastError();
            PGDDS_LOG(LOG_INFO, "device memory: cannot open rank %d's device segment by IPC (%s); its owner serves "
                      "every access", r, cudaGetErrorString(e));
        }
    }
    rt.set_gpu(m.release());
    return PGDDS_OK;
}

status detach(runtime &rt)
{
    memory *m = rt.gpu();
    if (!m) return PGDDS_OK;
    const char *who = "pgdds_finalize";
    // Every rank is done with every device segment before any closes its mapping or frees it.
    status st = rt.peer_failed() ? PGDDS_OK : rt.barrier(who);
    status cst = m->close(who);
    rt.set_gpu(nullptr);
    delete m;
    return st != PGDDS_OK ? st : cst;
}

bool is_device(runtime &, const void *local)
{
    if (!local) return false;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, local) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeDevice;
}

status rma(runtime &rt, const char *who, bool is_put, pgdds_gptr_t remote, void *local, size_t n)
{
    memory *m = rt.gpu();
    if (!m) return no_segment(rt, who);
    const bool local_device = is_device(rt, local);
    if (gptr::segment(remote) == segment_id) {
        status st = m->check(who, remote, n, 0);
        if (st != PGDDS_OK) return st;
        if (uint8_t *p = m->peer_base[size_t(gptr::rank(remote))]) {
            p += gptr::offset(remote);
            return is_put ? m->copy(who, p, local, n) : m->copy(who, local, p, n);
        }
        return m->remote_rma(who, is_put, remote, local, n, local_device);
    }
    status st = rt.check_access(who, remote, n);
    if (st != PGDDS_OK) return st;
    if (uint8_t *p = rt.direct(remote)) return is_put ? m->copy(who, p, local, n) : m->copy(who, local, p, n);
    return m->staged_rma(who, is_put, remote, local, n);
}

status atomic(runtime &rt, const char *who, pgdds_gptr_t target, const amo_args &a)
{
    memory *m = rt.gpu();
    if (!m) return no_segment(rt, who);
    status st = m->check(who, target, a.width, a.width);
    if (st != PGDDS_OK) return st;
    const int owner = gptr::rank(target);
    if (owner == rt.rank()) return m->owner_amo(who, gptr::offset(target), a);
    wire h;
    h.kind = msg_amo;
    h.op = uint8_t(a.op);
    h.width = uint8_t(a.width);
    h.offset = gptr::offset(target);
    h.operand = a.operand;
    h.compare = a.compare;
    pending p;
    p.dst = a.result;
    p.dst_len = a.width;
    vci &v = rt.current_vci();
    st = m->send(who, v, owner, h, nullptr, 0, p);
    return m->wait(who, v, owner, &p, st == PGDDS_OK ? 1 : 0, st);
}

status alloc(runtime &rt, const char *who, size_t size, size_t alignment, pgdds_gptr_t &out)
{
    memory *m = rt.gpu();
    if (!m) return no_segment(rt, who);
    uint64_t off;
    status st = m->alloc->alloc(size, alignment, off);
    if (st != PGDDS_OK) return fail_prefix(st, who);
    out = gptr::make(rt.rank(), segment_id, off);
    return PGDDS_OK;
}

status free(runtime &rt, const char *who, pgdds_gptr_t p)
{
    memory *m = rt.gpu();
    if (!m) return no_segment(rt, who);
    status st = m->alloc->free(gptr::offset(p));
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

void *to_local(runtime &rt, pgdds_gptr_t p)
{
    memory *m = rt.gpu();
    if (!m || m->check("pgdds_gptr_to_local", p, 0, 0) != PGDDS_OK) return nullptr;
    uint8_t *b = m->peer_base[size_t(gptr::rank(p))];
    return b ? b + gptr::offset(p) : nullptr;
}

int device(runtime &rt) { return rt.gpu() ? rt.gpu()->device : -1; }

}  // namespace pgdds::gpu
