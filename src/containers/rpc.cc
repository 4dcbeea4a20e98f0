// Remote procedure calls to the owner of a container's part: routes, the wire, the owner's side.
#include "rpc.h"

#include <map>
#include <set>
#include <string>

namespace pgdds::containers {

namespace {

// Messages: a header, then a call's arguments, or a reply's result, data and explanation.
enum : uint32_t { kind_call = 1, kind_reply = 2 };
struct wire_header {
    uint32_t kind;
    uint32_t container;
    uint64_t request;
    uint32_t op;
    uint32_t concurrent;
};
struct wire_result {
    int32_t result;
    uint32_t message_len;
    uint64_t data_len;
};

// The process's containers that serve calls, and the calls waiting for replies. Never
// destroyed: handlers may run at exit.
struct rpc_registry {
    std::mutex lock;
    std::map<std::pair<pgdds_context_t, uint32_t>, container *> servers;
    std::map<pgdds_context_t, uint32_t> next_id;
    std::set<pgdds_context_t> handler_registered;
    std::map<uint64_t, rpc_pending *> pending;
    uint64_t next_request = 0;
};
rpc_registry &registry()
{
    static rpc_registry *r = new rpc_registry();
    return *r;
}

void complete(const wire_header &h, const uint8_t *body, size_t len)
{
    wire_result r;
    if (len < sizeof r) return;
    memcpy(&r, body, sizeof r);
    if (r.data_len > len - sizeof r || r.message_len > len - sizeof r - r.data_len) return;
    rpc_registry &reg = registry();
    std::lock_guard<std::mutex> guard(reg.lock);
    auto it = reg.pending.find(h.request);
    if (it == reg.pending.end()) return;  // its caller gave up waiting
    rpc_pending &p = *it->second;
    p.result = r.result;
    p.reply->assign(body + sizeof r, body + sizeof r + r.data_len);
    p.message.assign(reinterpret_cast<const char *>(body + sizeof r + r.data_len), r.message_len);
    p.done.store(true, std::memory_order_release);
}

void serve(runtime &rt, int src, wire_header h, const uint8_t *args, size_t len)
{
    // A handler runs inside some other call of this thread: keep that call's error message.
    const std::string interrupted_error = pgdds_last_error();
    container *c = nullptr;
    {
        rpc_registry &reg = registry();
        std::lock_guard<std::mutex> guard(reg.lock);
        auto it = reg.servers.find({rt.handle(), h.container});
        if (it != reg.servers.end()) {
            c = it->second;
            c->rpc_serving.fetch_add(1, std::memory_order_acquire);
        }
    }
    std::vector<uint8_t> reply(sizeof h + sizeof(wire_result));
    status st;
    try {
        st = c ? c->serve(src, h.op, h.concurrent, args, len, reply)
               : fail(PGDDS_ERR_STATE, "rank %d has no container %u (destroyed?)", rt.rank(), h.container);
    } catch (const std::bad_alloc &) {
        st = fail(PGDDS_ERR_NO_MEMORY, "rank %d is out of host memory", rt.rank());
        reply.resize(sizeof h + sizeof(wire_result));
    }
    if (c) c->rpc_serving.fetch_sub(1, std::memory_order_release);
    const char *why = st == PGDDS_OK ? "" : pgdds_last_error();
    wire_result r{st, uint32_t(strnlen(why, 400)), reply.size() - sizeof h - sizeof(wire_result)};
    reply.insert(reply.end(), why, why + r.message_len);
    h.kind = kind_reply;
    memcpy(reply.data(), &h, sizeof h);
    memcpy(reply.data() + sizeof h, &r, sizeof r);
    status sst = rt.am_send("container reply", rt.current_vci(), src, AM_CONTAINER, reply.data(), reply.size());
    if (sst != PGDDS_OK) PGDDS_LOG(LOG_ERROR, "containers: cannot reply to rank %d: %s", src, pgdds_last_error());
    fail(PGDDS_OK, "%s", interrupted_error.c_str());
}

void on_container_message(pgdds_context_t ctx, int src, const void *payload, size_t size, void *)
{
    wire_header h;
    runtime *rt = runtime::from(ctx);
    if (size < sizeof h || !rt) {
        PGDDS_LOG(LOG_ERROR, "containers: dropped a message of %zu bytes from rank %d", size, src);
        return;
    }
    memcpy(&h, payload, sizeof h);
    const uint8_t *body = static_cast<const uint8_t *>(payload) + sizeof h;
    if (h.kind == kind_reply) complete(h, body, size - sizeof h);
    else if (h.kind == kind_call) serve(*rt, src, h, body, size - sizeof h);
    else PGDDS_LOG(LOG_ERROR, "containers: dropped a message of unknown kind %u from rank %d", h.kind, src);
}

// A wait for owners (a list of ranks) that ended with st: the explanation names them.
status unanswered(status st, const std::string &owners)
{
    const std::string why = pgdds_last_error();
    return fail(st, "%s; waiting for rank %s, the owner, which runs the call when it progresses (any pgdds call, or "
                "PGDDS_PROGRESS_THREAD=1)", why.c_str(), owners.c_str());
}

void forget(rpc_pending &p)
{
    if (!p.id) return;
    rpc_registry &reg = registry();
    std::lock_guard<std::mutex> guard(reg.lock);
    reg.pending.erase(p.id);
}

}  // namespace

status choose_protocol(runtime *rt, const char *who, int requested, int &out)
{
    if (requested != PGDDS_PROTOCOL_AUTO && requested != PGDDS_PROTOCOL_RDMA && requested != PGDDS_PROTOCOL_RPC)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: protocol %d is none of PGDDS_PROTOCOL_AUTO, PGDDS_PROTOCOL_RDMA and "
                    "PGDDS_PROTOCOL_RPC", who, requested);
    if (requested != PGDDS_PROTOCOL_AUTO) {
        out = requested;
        return PGDDS_OK;
    }
    switch (rt->cfg().container_protocol) {
    case container_protocol_mode::rdma: out = PGDDS_PROTOCOL_RDMA; break;
    case container_protocol_mode::rpc: out = PGDDS_PROTOCOL_RPC; break;
    case container_protocol_mode::automatic: {
        // Where the transport's one-sided operations need the target's CPU (atomics emulated
        // by the target, or manual progress: ofi tcp;ofi_rxm, UCX tcp), every remote A, R and W
        // is already a round trip that the owner serves, and an RPC is one for the whole
        // operation. Elsewhere (native atomics) the one-sided protocols need nothing of the owner.
        transport *net = rt->network();
        out = net && net->caps().needs_target_progress ? PGDDS_PROTOCOL_RPC : PGDDS_PROTOCOL_RDMA;
        break;
    }
    }
    return PGDDS_OK;
}

void container::settle_protocol(int chosen)
{
    protocol = chosen;
    via_rpc.clear();
    if (chosen != PGDDS_PROTOCOL_RPC) return;
    // Every rank this one maps keeps load/store: all of the part's atomics are CPU atomics then.
    via_rpc.resize(size_t(rt->nranks()));
    bool any = false;
    for (int r = 0; r < rt->nranks(); ++r) {
        via_rpc[size_t(r)] = r != rt->rank() && !(rt->cfg().container_direct && rt->peer_base(r));
        any = any || via_rpc[size_t(r)];
    }
    if (!any) via_rpc.clear();  // every rank by load/store: the batches need not sort keys by owner
}

int container::protocol_to(int r) const
{
    if (protocol == PGDDS_PROTOCOL_RPC) return calls_owner(r) ? PGDDS_PROTOCOL_RPC : PGDDS_PROTOCOL_DIRECT;
    return direct ? PGDDS_PROTOCOL_DIRECT : PGDDS_PROTOCOL_RDMA;
}

void rpc_enroll(container *c)
{
    rpc_registry &reg = registry();
    std::lock_guard<std::mutex> guard(reg.lock);
    c->rpc_id = reg.next_id[c->ctx]++;
    reg.servers[{c->ctx, c->rpc_id}] = c;
    if (reg.handler_registered.insert(c->ctx).second)
        c->rt->am_register_internal(AM_CONTAINER, on_container_message, nullptr);
}

void rpc_withdraw(container *c)
{
    {
        rpc_registry &reg = registry();
        std::lock_guard<std::mutex> guard(reg.lock);
        reg.servers.erase({c->ctx, c->rpc_id});
    }
    // A late call (its caller gave up waiting) may be running on another thread: the part must
    // outlive it.
    while (c->rpc_serving.load(std::memory_order_acquire)) std::this_thread::yield();
}

status rpc_start(container *c, const char *who, uint32_t op, unsigned concurrent, std::vector<rpc_call> &calls,
                 std::vector<rpc_pending> &pending)
{
    runtime *rt = c->rt;
    vci &v = rt->current_vci();
    pending.resize(calls.size());  // never again: the registry points at its elements
    std::vector<uint8_t> message;
    for (size_t i = 0; i < calls.size(); ++i) {
        rpc_pending &p = pending[i];
        p.reply = &calls[i].reply;
        wire_header h{kind_call, c->rpc_id, 0, op, concurrent};
        {
            rpc_registry &reg = registry();
            std::lock_guard<std::mutex> guard(reg.lock);
            h.request = p.id = ++reg.next_request;
            reg.pending[p.id] = &p;
        }
        message.resize(sizeof h + calls[i].args.size());
        memcpy(message.data(), &h, sizeof h);
        if (!calls[i].args.empty()) memcpy(message.data() + sizeof h, calls[i].args.data(), calls[i].args.size());
        status st = rt->am_send(who, v, calls[i].owner, AM_CONTAINER, message.data(), message.size());
        if (st != PGDDS_OK) {
            forget(p);
            p.id = 0;
            return unanswered(st, std::to_string(calls[i].owner));
        }
    }
    return PGDDS_OK;
}

status rpc_finish(container *c, const char *who, std::vector<rpc_call> &calls, std::vector<rpc_pending> &pending,
                  status first)
{
    runtime *rt = c->rt;
    // The calls sent are waited for even after a failure here: an owner may still be running one.
    status st = rt->wait(who, rt->current_vci(), [&] {
        for (auto &p : pending)
            if (p.id && !p.done.load(std::memory_order_acquire)) return false;
        return true;
    });
    for (auto &p : pending) forget(p);
    if (st != PGDDS_OK) {
        std::string silent;
        for (size_t i = 0; i < pending.size(); ++i)
            if (pending[i].id && !pending[i].done.load(std::memory_order_acquire))
                silent += (silent.empty() ? "" : ", ") + std::to_string(calls[i].owner);
        return silent.empty() ? st : unanswered(st, silent);
    }
    if (first != PGDDS_OK) return first;
    for (size_t i = 0; i < pending.size(); ++i)
        if (pending[i].result != PGDDS_OK)
            return fail(pending[i].result, "%s (run by rank %d)",
                        pending[i].message.empty() ? pgdds_strerror(pending[i].result) : pending[i].message.c_str(),
                        calls[i].owner);
    return PGDDS_OK;
}

}  // namespace pgdds::containers
