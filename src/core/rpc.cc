// Remote procedure calls (rpc.h): one active message carries a call, another its reply. Under
// PGDDS_RPC_AGGREGATE small calls to one rank are held and go out together, one message of
// records (each its size, then the call as it would travel alone).
#include "rpc.h"

#include "runtime.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

struct pgdds_rpc_reply_state {
    pgdds_status_t status = PGDDS_OK;
    std::vector<uint8_t> data;  // the result, or a failure's message
};

namespace pgdds {
namespace {

enum : uint8_t { kind_call = 1, kind_call_no_reply, kind_reply, kind_batch };

struct wire {
    uint8_t kind = 0;
    uint8_t pad[3] = {0, 0, 0};
    int32_t status = 0;  // kind_reply
    uint64_t request = 0;
    uint64_t id = 0;     // the function
};

// Functions by id, for every context of this process (registered at static initialization).
struct function_registry {
    std::mutex lock;
    std::unordered_map<uint64_t, pgdds_rpc_fn_t> fns;
};
function_registry &functions()
{
    static function_registry r;
    return r;
}

// Calls waiting for their reply, by request number (unique in the process).
struct pending_call {
    pgdds_rpc_done_t done;
    void *arg;
};
struct pending_registry {
    std::mutex lock;
    uint64_t next = 0;
    std::unordered_map<uint64_t, pending_call> calls;
};
pending_registry &pending()
{
    static pending_registry r;
    return r;
}

void serve(runtime &rt, int src, const wire &h, const uint8_t *args, size_t size)
{
    pgdds_rpc_fn_t fn = nullptr;
    {
        function_registry &reg = functions();
        std::lock_guard<std::mutex> guard(reg.lock);
        auto it = reg.fns.find(h.id);
        if (it != reg.fns.end()) fn = it->second;
    }
    pgdds_rpc_reply_state reply;
    if (fn) {
        fn(rt.handle(), src, args, size, &reply);
    } else {
        char why[200];
        int n = snprintf(why, sizeof why, "rank %d has no function 0x%016llx registered (not in its program, or the "
                         "call came before its registration)", rt.rank(), (unsigned long long)h.id);
        reply.status = PGDDS_ERR_INVALID_ARG;
        reply.data.assign(why, why + n);
    }
    if (h.kind == kind_call_no_reply) {
        if (reply.status != PGDDS_OK)
            PGDDS_LOG(LOG_WARN, "a call from rank %d without reply failed: %.*s", src, int(reply.data.size()),
                      reinterpret_cast<const char *>(reply.data.data()));
        return;
    }
    wire r;
    r.kind = kind_reply;
    r.status = reply.status;
    r.request = h.request;
    std::vector<uint8_t> msg(sizeof r + reply.data.size());
    memcpy(msg.data(), &r, sizeof r);
    if (!reply.data.empty()) memcpy(msg.data() + sizeof r, reply.data.data(), reply.data.size());
    if (rt.am_send("rpc reply", rt.current_vci(), src, AM_RPC, msg.data(), msg.size()) != PGDDS_OK)
        PGDDS_LOG(LOG_ERROR, "cannot reply to rank %d's call: %s", src, pgdds_last_error());
}

void complete(runtime &rt, const wire &h, const uint8_t *data, size_t size)
{
    pending_call c{nullptr, nullptr};
    {
        pending_registry &reg = pending();
        std::lock_guard<std::mutex> guard(reg.lock);
        auto it = reg.calls.find(h.request);
        if (it == reg.calls.end()) {
            PGDDS_LOG(LOG_WARN, "a reply to unknown call %llu dropped", (unsigned long long)h.request);
            return;
        }
        c = it->second;
        reg.calls.erase(it);
    }
    const status st = status(h.status);
    if (st == PGDDS_OK) {
        fail(PGDDS_OK, "%s", "");
        c.done(rt.handle(), st, data, size, c.arg);
    } else {
        fail(st, "%.*s", int(size), reinterpret_cast<const char *>(data));
        c.done(rt.handle(), st, nullptr, 0, c.arg);
    }
}

// Serves each call of a batch in order; a malformed record ends it.
void serve_batch(runtime &rt, int src, const uint8_t *p, size_t size)
{
    while (size) {
        uint32_t len = 0;
        wire h;
        if (size < sizeof len) break;
        memcpy(&len, p, sizeof len);
        if (len < sizeof h || len > size - sizeof len) break;
        memcpy(&h, p + sizeof len, sizeof h);
        serve(rt, src, h, p + sizeof len + sizeof h, len - sizeof h);
        p += sizeof len + len;
        size -= sizeof len + len;
    }
    if (size) PGDDS_LOG(LOG_ERROR, "rpc: dropped the malformed end (%zu bytes) of a batch from rank %d", size, src);
}

// A call that cannot go out: its caller learns why through its callback.
void fail_call(runtime &rt, const wire &call, status st, const char *why)
{
    if (call.kind != kind_call) return;
    wire r;
    r.kind = kind_reply;
    r.status = st;
    r.request = call.request;
    complete(rt, r, reinterpret_cast<const uint8_t *>(why), strlen(why));
}

}  // namespace

struct rpc_held_calls {
    std::mutex lock;
    std::vector<std::vector<uint8_t>> to;  // per destination: a batch header, then records
};

rpc_held_calls *rpc_held_calls_new(int nranks)
{
    auto *h = new rpc_held_calls;
    h->to.resize(size_t(nranks));
    return h;
}
void rpc_held_calls_delete(rpc_held_calls *h) { delete h; }

namespace {

// Sends one batch; on failure, fails the calls in it that wait for a reply.
status send_batch(runtime &rt, int rank, const std::vector<uint8_t> &batch)
{
    PGDDS_LOG(LOG_TRACE, "rpc: %zu bytes of held calls to rank %d in one message", batch.size(), rank);
    status st = rt.am_send("pgdds_rpc_call", rt.current_vci(), rank, AM_RPC, batch.data(), batch.size());
    if (st == PGDDS_OK) return st;
    const std::string why = pgdds_last_error();
    for (size_t at = sizeof(wire); at + sizeof(uint32_t) + sizeof(wire) <= batch.size();) {
        uint32_t len;
        wire h;
        memcpy(&len, batch.data() + at, sizeof len);
        memcpy(&h, batch.data() + at + sizeof len, sizeof h);
        fail_call(rt, h, st, why.c_str());
        at += sizeof len + len;
    }
    return fail(st, "%s", why.c_str());
}

// Holds a call to rank (record = its size, header and arguments); a batch that the call would
// overflow goes out first.
status hold_call(runtime &rt, int rank, const wire &h, const void *args, size_t size)
{
    rpc_held_calls &held = *rt.rpc_held();
    const size_t limit = rt.cfg().rpc_aggregate;
    const uint32_t len = uint32_t(sizeof h + size);
    std::vector<uint8_t> full;
    {
        std::lock_guard<std::mutex> guard(held.lock);
        std::vector<uint8_t> &b = held.to[size_t(rank)];
        if (!b.empty() && b.size() + sizeof len + len > limit) full.swap(b);
    }
    if (!full.empty()) {
        status st = send_batch(rt, rank, full);
        if (st != PGDDS_OK) return st;
    }
    std::lock_guard<std::mutex> guard(held.lock);
    std::vector<uint8_t> &b = held.to[size_t(rank)];
    if (b.empty()) {
        wire bh;
        bh.kind = kind_batch;
        b.insert(b.end(), reinterpret_cast<const uint8_t *>(&bh), reinterpret_cast<const uint8_t *>(&bh) + sizeof bh);
    }
    b.insert(b.end(), reinterpret_cast<const uint8_t *>(&len), reinterpret_cast<const uint8_t *>(&len) + sizeof len);
    b.insert(b.end(), reinterpret_cast<const uint8_t *>(&h), reinterpret_cast<const uint8_t *>(&h) + sizeof h);
    if (size) b.insert(b.end(), static_cast<const uint8_t *>(args), static_cast<const uint8_t *>(args) + size);
    rt.rpc_holding.store(true, std::memory_order_relaxed);
    return PGDDS_OK;
}

}  // namespace

status rpc_send_held(runtime &rt)
{
    rpc_held_calls *held = rt.rpc_held();
    if (!held) return PGDDS_OK;
    std::vector<std::pair<int, std::vector<uint8_t>>> out;
    {
        std::lock_guard<std::mutex> guard(held->lock);
        rt.rpc_holding.store(false, std::memory_order_relaxed);
        for (size_t r = 0; r < held->to.size(); ++r)
            if (!held->to[r].empty()) out.emplace_back(int(r), std::move(held->to[r])), held->to[r].clear();
    }
    status first = PGDDS_OK;
    for (auto &[rank, batch] : out) {
        status st = send_batch(rt, rank, batch);
        if (first == PGDDS_OK) first = st;
    }
    return first;
}

void on_rpc_message(pgdds_context_t ctx, int src, const void *payload, size_t size, void *)
{
    runtime *rt = runtime::from(ctx);
    wire h;
    if (!rt || size < sizeof h) {
        PGDDS_LOG(LOG_ERROR, "rpc: dropped a message of %zu bytes from rank %d", size, src);
        return;
    }
    // A handler runs inside some call of this rank's: it leaves that call's last error alone.
    const std::string interrupted = pgdds_last_error();
    memcpy(&h, payload, sizeof h);
    const uint8_t *body = static_cast<const uint8_t *>(payload) + sizeof h;
    if (h.kind == kind_reply) complete(*rt, h, body, size - sizeof h);
    else if (h.kind == kind_batch) serve_batch(*rt, src, body, size - sizeof h);
    else serve(*rt, src, h, body, size - sizeof h);
    fail(PGDDS_OK, "%s", interrupted.c_str());
}

}  // namespace pgdds

using namespace pgdds;

extern "C" {

PGDDS_API pgdds_status_t pgdds_rpc_register(uint64_t id, pgdds_rpc_fn_t fn)
{
    if (id == 0 || !fn)
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_rpc_register: %s", id == 0 ? "id 0 names no function" : "fn is NULL");
    function_registry &reg = functions();
    std::lock_guard<std::mutex> guard(reg.lock);
    auto [it, added] = reg.fns.emplace(id, fn);
    if (!added && it->second != fn)
        return fail(PGDDS_ERR_EXISTS, "pgdds_rpc_register: id 0x%016llx already names another function",
                    (unsigned long long)id);
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_rpc_call(pgdds_context_t ctx, int rank, uint64_t id, const void *args, size_t size,
                                        pgdds_rpc_done_t done, void *arg)
{
    const char *who = "pgdds_rpc_call";
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    if (rank < 0 || rank >= rt->nranks())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: rank %d is not in 0..%d", who, rank, rt->nranks() - 1);
    if (!args && size) return null_arg(who, "args");
    if (size > PGDDS_AM_MAX_PAYLOAD - sizeof(wire))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %zu bytes of arguments exceed PGDDS_AM_MAX_PAYLOAD less %zu", who, size,
                    sizeof(wire));
    wire h;
    h.kind = done ? kind_call : kind_call_no_reply;
    h.id = id;
    pending_registry &reg = pending();
    if (done) {
        std::lock_guard<std::mutex> guard(reg.lock);
        h.request = ++reg.next;
        reg.calls[h.request] = pending_call{done, arg};
    }
    try {
        // Small calls are held under PGDDS_RPC_AGGREGATE (one in more than half of it goes alone).
        if (rt->rpc_held() && 2 * (sizeof(wire) + sizeof(uint32_t) + sizeof h + size) <= rt->cfg().rpc_aggregate) {
            status st = hold_call(*rt, rank, h, args, size);
            if (st != PGDDS_OK && done) {
                std::lock_guard<std::mutex> guard(reg.lock);
                reg.calls.erase(h.request);
            }
            return st;
        }
        // A call that goes alone goes after those held before it.
        if (rt->rpc_holding.load(std::memory_order_relaxed)) {
            status st = rpc_send_held(*rt);
            if (st != PGDDS_OK) {
                if (done) {
                    std::lock_guard<std::mutex> guard(reg.lock);
                    reg.calls.erase(h.request);
                }
                return st;
            }
        }
        std::vector<uint8_t> msg(sizeof h + size);
        memcpy(msg.data(), &h, sizeof h);
        if (size) memcpy(msg.data() + sizeof h, args, size);
        status st = rt->am_send(who, rt->current_vci(), rank, AM_RPC, msg.data(), msg.size());
        if (st == PGDDS_OK) return st;
        if (done) {
            std::lock_guard<std::mutex> guard(reg.lock);
            reg.calls.erase(h.request);
        }
        return st;
    } catch (const std::bad_alloc &) {
        std::lock_guard<std::mutex> guard(reg.lock);
        reg.calls.erase(h.request);
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

PGDDS_API pgdds_status_t pgdds_rpc_reply(pgdds_rpc_reply_t *reply, pgdds_status_t status, const void *result,
                                         size_t size, const char *message)
{
    if (!reply) return fail(PGDDS_ERR_INVALID_ARG, "pgdds_rpc_reply: reply is NULL");
    if (status == PGDDS_OK && !result && size) return fail(PGDDS_ERR_INVALID_ARG, "pgdds_rpc_reply: result is NULL");
    reply->status = status;
    if (status == PGDDS_OK) {
        const uint8_t *r = static_cast<const uint8_t *>(result);
        reply->data.assign(r, r + size);
    } else {
        const char *m = message && *message ? message : pgdds_strerror(status);
        reply->data.assign(m, m + strnlen(m, 1000));
    }
    return PGDDS_OK;
}

}  // extern "C"
