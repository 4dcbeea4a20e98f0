// Remote procedure calls to the owner of a container's part: routes, the wire, the owner's side.
#include "rpc.h"

#include <algorithm>
#include <cmath>
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
    if (p.in_flight) p.in_flight->fetch_sub(1, std::memory_order_release);
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
    if (reg.pending.erase(p.id) && p.in_flight && !p.done.load(std::memory_order_acquire))
        p.in_flight->fetch_sub(1, std::memory_order_release);  // never to be answered here
}

// Sends one message per call, each registered for its reply (and counted in `in_flight`).
status send_calls(container *c, const char *who, uint32_t op, unsigned concurrent, std::vector<rpc_call> &calls,
                  std::vector<rpc_pending> &pending, const std::shared_ptr<std::atomic<int>> &in_flight)
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
            if (in_flight) {
                p.in_flight = in_flight;
                in_flight->fetch_add(1, std::memory_order_relaxed);
            }
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

}  // namespace

// ---------------------------------------------------------------------------------------------
// The measured choice (auto)
// ---------------------------------------------------------------------------------------------
namespace {

// An operation's one-sided protocol in remote operations (thesis ch. 8): atomics, reads, writes
// and messages to the owner (a key-table remove asks the owner to reclaim the entry it holds),
// per `group` keys for a batch (0: one operation).
// Its role in auto's choice (docs/containers.md "RDMA or RPC"): every operation that changes a
// part or takes an atomic on it must stay in the part's one atomicity domain, so those share the
// container's protocol, which the fully atomic ones among them decide (`decides`: their prices
// summed, one of each, against one call each) and the others follow (`follows`). A read-only
// operation (`reads`: reads, no atomic, so the owner's CPU atomics and its one-sided read do not
// mix) is chosen on its own inside a container served by RPC. `one_sided`: a read that has no
// call form.
enum class op_role { decides, follows, reads, one_sided };
struct priced_op {
    priced_kind kind;
    const char *container;
    const char *op;
    int a, r, w, m;
    op_role role;
    int group;
};
const priced_op priced_ops[] = {
    {priced_kind::hashmap, "hashmap", "insert", 2, 0, 1, 0, op_role::decides, 0},
    {priced_kind::hashmap, "hashmap", "find", 2, 1, 0, 0, op_role::decides, 0},  // reader bits: atomics
    {priced_kind::hashmap, "hashmap", "erase", 2, 1, 0, 0, op_role::decides, 0},
    {priced_kind::hashmap, "hashmap", "insert/CP_INSERT", 1, 0, 1, 0, op_role::follows, 0},
    {priced_kind::hashmap, "hashmap", "find/CP_FIND", 0, 1, 0, 0, op_role::reads, 0},
    {priced_kind::hashmap, "hashmap", "find_many/CP_FIND", 0, 1, 0, 0, op_role::reads, 32},  // hashmap_protocols.h batch_group
    {priced_kind::fast_queue, "fast_queue", "push", 1, 0, 1, 0, op_role::decides, 0},
    {priced_kind::fast_queue, "fast_queue", "pop", 1, 1, 0, 0, op_role::decides, 0},
    {priced_kind::fast_queue, "fast_queue", "size", 2, 0, 0, 0, op_role::follows, 0},  // atomic loads
    {priced_kind::circular_queue, "circular_queue", "push", 2, 0, 1, 0, op_role::decides, 0},
    {priced_kind::circular_queue, "circular_queue", "pop", 2, 1, 0, 0, op_role::decides, 0},
    {priced_kind::circular_queue, "circular_queue", "size", 2, 0, 0, 0, op_role::follows, 0},
    {priced_kind::checksum_queue, "checksum_queue", "push", 1, 0, 2, 0, op_role::decides, 0},
    {priced_kind::checksum_queue, "checksum_queue", "pop", 2, 2, 0, 0, op_role::decides, 0},
    {priced_kind::checksum_queue, "checksum_queue", "size", 2, 0, 0, 0, op_role::follows, 0},
    {priced_kind::bloom, "bloom", "insert", 1, 0, 0, 0, op_role::decides, 0},
    // One fetch-or after another (bloom.cc insert_many); under RPC one call per owner carries the
    // batch. Its single-key form alone priced one A against one call, a near tie over tcp that
    // left batched inserts one-sided at a fraction of the call's rate.
    {priced_kind::bloom, "bloom", "insert_many", 1, 0, 0, 0, op_role::decides, 16},  // bloom.cc bloom_group
    {priced_kind::bloom, "bloom", "contains", 0, 1, 0, 0, op_role::reads, 0},
    {priced_kind::bloom, "bloom", "contains_many", 0, 1, 0, 0, op_role::reads, 16},  // bloom.cc bloom_group
    {priced_kind::keytable, "keytable", "put", 2, 1, 1, 0, op_role::decides, 0},
    {priced_kind::keytable, "keytable", "atomic_u64", 3, 0, 0, 0, op_role::decides, 0},
    {priced_kind::keytable, "keytable", "remove", 1, 0, 0, 1, op_role::decides, 0},
    {priced_kind::keytable, "keytable", "get", 0, 1, 0, 0, op_role::one_sided, 0},  // with the readers' cache
};

// Microseconds, averaged over the ranks that measured.
struct protocol_costs {
    bool measured = false;
    double a = 0, r = 0, w = 0, rpc = 0;
    int ranks = 0;  // that measured
};

std::mutex costs_lock;
std::map<pgdds_context_t, protocol_costs> &all_costs()
{
    static auto *m = new std::map<pgdds_context_t, protocol_costs>();  // never destroyed, as the registry
    return *m;
}

// A group is priced as its keys' operations one after another, against one call: its atomics
// are issued in turn, and its reads, though in flight together, cost one R each over the tcp
// providers, whose reads wait for the target's progress (a group of 32 measured about 22 R).
int keys_of(const priced_op &o) { return o.group ? o.group : 1; }

double rdma_price(const priced_op &o, const protocol_costs &c)
{
    return keys_of(o) * (o.a * c.a + o.r * c.r + o.w * c.w + o.m * c.rpc);
}

// Auto's choice for `kind` from the measured costs: RPC where one call per operation costs less
// than the one-sided protocols of the kind's deciding operations, summed (an even mix of them).
// One protocol for every operation that changes a part or takes an atomic on it: every atomic
// on a part is a CPU atomic (RPC) or the transport's (RDMA), never both.
bool rpc_cheaper(priced_kind kind, const protocol_costs &c, double &rdma, double &rpc)
{
    rdma = rpc = 0;
    for (const priced_op &o : priced_ops)
        if (o.kind == kind && o.role == op_role::decides) {
            rdma += rdma_price(o, c);
            rpc += c.rpc;
        }
    return rpc < rdma;
}

// A container that serves empty calls: the RPC round trip measured.
struct probe final : container {
    explicit probe(runtime *r) : container(r) {}
    status serve(int, uint32_t, unsigned, const uint8_t *, size_t, std::vector<uint8_t> &) override { return PGDDS_OK; }
};

// The median microseconds of `rounds` runs of op, after `warm_up` unmeasured ones; a failure
// stops. The median, as a busy node delays some runs many times over. Enough runs that the ranks,
// which measure the same steps at the same time without waiting for each other, spend most of
// each step together: with 4 + 32 runs, ofi's shm provider priced a call at 10-12 us and a put
// with its flush at 9 us, where the containers' calls then took 2-3 us (2 us and 2 us measured
// with 32 + 256), and auto chose RDMA for operations that RPC served twice as fast.
template <class Op> status time_us(int rounds, double &out, Op op)
{
    constexpr int warm_up = 32;
    for (int i = 0; i < warm_up; ++i)
        if (status st = op(); st != PGDDS_OK) return st;
    std::vector<double> us(size_t(rounds), 0.0);
    for (double &u : us) {
        const double start = now_seconds();
        if (status st = op(); st != PGDDS_OK) return st;
        u = (now_seconds() - start) * 1e6;
    }
    std::nth_element(us.begin(), us.begin() + rounds / 2, us.end());
    out = us[size_t(rounds / 2)];
    return PGDDS_OK;
}

status measure(runtime *rt, const char *who, protocol_costs &out)
{
    // The first rank after this one that is reached only through the network.
    int peer = -1;
    for (int i = 1; i < rt->nranks() && peer < 0; ++i) {
        int r = (rt->rank() + i) % rt->nranks();
        if (!rt->peer_base(r)) peer = r;
    }
    int32_t mine = peer >= 0, any = 0;
    status st = rt->allreduce(who, &mine, &any, 1, PGDDS_INT32, PGDDS_OP_MAX);
    if (st != PGDDS_OK || !any) return st;
    pgdds_gptr_t word = PGDDS_GPTR_NULL;
    st = agree(rt, who, alloc_zeroed(rt, who, cache_line, cache_line, word));
    parts where;
    if (st == PGDDS_OK) st = gather_parts(rt, who, word, cache_line, where);
    if (st != PGDDS_OK) {
        if (word != PGDDS_GPTR_NULL) rt->allocator().free(gptr::offset(word));
        return st;
    }
    probe p(rt);
    rpc_enroll(&p);
    st = rt->barrier(who);  // every rank serves before any calls
    double sums[5] = {0, 0, 0, 0, 0};  // A, R, W, RPC, ranks
    status mst = PGDDS_OK;
    if (st == PGDDS_OK && peer >= 0) {
        const pgdds_gptr_t target = where.global[size_t(peer)];
        const int rounds = 256;
        uint64_t v = 0;
        std::vector<rpc_call> calls(1);
        calls[0].owner = peer;
        mst = time_us(rounds, sums[0], [&] { return pgdds_atomic_u64(p.ctx, target, PGDDS_AOP_ADD, 1, &v); });
        if (mst == PGDDS_OK) mst = time_us(rounds, sums[1], [&] { return pgdds_get(p.ctx, &v, target, sizeof v); });
        if (mst == PGDDS_OK)
            mst = time_us(rounds, sums[2], [&] {
                status s = pgdds_put(p.ctx, target, &v, sizeof v);
                return s == PGDDS_OK ? pgdds_flush(p.ctx) : s;
            });
        if (mst == PGDDS_OK)
            mst = time_us(rounds, sums[3], [&] { return rpc_exchange(&p, who, 0, 0, calls, [] { return PGDDS_OK; }); });
        sums[4] = mst == PGDDS_OK;
        if (mst != PGDDS_OK) sums[0] = sums[1] = sums[2] = sums[3] = 0;
    }
    // Every call answered before the probe goes (callers wait for their replies).
    status bst = rt->barrier(who);
    rpc_withdraw(&p);
    rt->allocator().free(gptr::offset(word));
    if (st == PGDDS_OK) st = bst;
    double total[5];
    if (st == PGDDS_OK) st = rt->allreduce(who, sums, total, 5, PGDDS_DOUBLE, PGDDS_OP_SUM);
    if (st == PGDDS_OK && total[4] > 0) {
        out.measured = true;
        out.a = total[0] / total[4];
        out.r = total[1] / total[4];
        out.w = total[2] / total[4];
        out.rpc = total[3] / total[4];
        out.ranks = int(total[4]);
    }
    if (st == PGDDS_OK && mst != PGDDS_OK)
        PGDDS_LOG(LOG_WARN, "containers: rank %d could not measure its peer: %s", rt->rank(), pgdds_last_error());
    return st;
}

}  // namespace

void measure_protocol_costs(runtime *rt, const char *who)
{
    if (rt->cfg().container_protocol != container_protocol_mode::automatic) return;
    {
        std::lock_guard<std::mutex> guard(costs_lock);
        if (all_costs().count(rt->handle())) return;
    }
    const std::string interrupted_error = pgdds_last_error();
    protocol_costs c;
    status st = measure(rt, who, c);
    if (st != PGDDS_OK) {
        PGDDS_LOG(LOG_WARN, "containers: the protocol costs were not measured (%s); auto follows the transport's "
                  "capabilities", pgdds_last_error());
        c = protocol_costs{};
    } else if (c.measured && rt->rank() == 0) {
        PGDDS_LOG(LOG_INFO, "containers: measured A %.2f us, R %.2f us, W %.2f us, RPC %.2f us", c.a, c.r, c.w, c.rpc);
    }
    fail(PGDDS_OK, "%s", interrupted_error.c_str());
    std::lock_guard<std::mutex> guard(costs_lock);
    all_costs()[rt->handle()] = c;
}

status choose_protocol(runtime *rt, const char *who, priced_kind kind, int requested, int &out)
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
        protocol_costs c;
        {
            std::lock_guard<std::mutex> guard(costs_lock);
            auto it = all_costs().find(rt->handle());
            if (it != all_costs().end()) c = it->second;
        }
        double rdma, rpc;
        if (c.measured) {
            out = rpc_cheaper(kind, c, rdma, rpc) ? PGDDS_PROTOCOL_RPC : PGDDS_PROTOCOL_RDMA;
            break;
        }
        // Not measured (no rank reaches another only through the network, or the measurement
        // failed): where the transport's one-sided operations need the target's CPU, every
        // remote A, R and W is already a round trip that the owner serves.
        out = rt->network_needs_target_progress() ? PGDDS_PROTOCOL_RPC : PGDDS_PROTOCOL_RDMA;
        break;
    }
    }
    return PGDDS_OK;
}

namespace {

protocol_costs costs_of(runtime *rt)
{
    std::lock_guard<std::mutex> guard(costs_lock);
    auto it = all_costs().find(rt->handle());
    return it == all_costs().end() ? protocol_costs{} : it->second;
}

// The groups of a read-only operation that cost less one-sidedly than one call (see rpc.h).
size_t groups_below_call(const priced_op &o, const protocol_costs &c)
{
    const double one = rdma_price(o, c);
    if (!c.measured || one >= c.rpc) return 0;
    return one > 0 ? std::max<size_t>(1, size_t(std::ceil(c.rpc / one)) - 1) : SIZE_MAX;
}

}  // namespace

size_t one_sided_groups(runtime *rt, priced_kind kind, const char *op)
{
    if (rt->cfg().container_protocol != container_protocol_mode::automatic) return 0;
    const protocol_costs c = costs_of(rt);
    for (const priced_op &o : priced_ops)
        if (o.kind == kind && o.role == op_role::reads && strcmp(o.op, op) == 0) return groups_below_call(o, c);
    return 0;
}

std::string protocol_report(runtime *rt)
{
    const protocol_costs c = costs_of(rt);
    const char *mode = rt->cfg().container_protocol == container_protocol_mode::rdma  ? "rdma"
                       : rt->cfg().container_protocol == container_protocol_mode::rpc ? "rpc"
                                                                                       : "auto";
    static const std::pair<priced_kind, const char *> kinds[] = {
        {priced_kind::hashmap, "hashmap"}, {priced_kind::fast_queue, "fast_queue"},
        {priced_kind::circular_queue, "circular_queue"}, {priced_kind::checksum_queue, "checksum_queue"},
        {priced_kind::bloom, "bloom"}, {priced_kind::keytable, "keytable"}};
    std::map<priced_kind, int> chosen;
    for (auto &k : kinds) {
        chosen[k.first] = PGDDS_PROTOCOL_RDMA;
        choose_protocol(rt, "pgdds_container_protocols", k.first, PGDDS_PROTOCOL_AUTO, chosen[k.first]);
    }
    // Whether a container made now reaches every other rank by load/store (container::direct,
    // or under RPC every rank mapped: settle_protocol).
    bool every_rank_mapped = rt->cfg().container_direct;
    for (int r = 0; r < rt->nranks() && every_rank_mapped; ++r)
        every_rank_mapped = r == rt->rank() || rt->peer_base(r);
    const bool container_direct = rt->cpu_atomics() && rt->cfg().container_direct;
    static const char *const role_names[] = {"decides", "follows", "reads", "one-sided"};
    char line[320];
    snprintf(line, sizeof line, "costs %s %d %.3f %.3f %.3f %.3f\n", mode, c.measured ? c.ranks : 0, c.a, c.r, c.w,
             c.rpc);
    std::string text = line;
    for (const priced_op &o : priced_ops) {
        const double rdma = rdma_price(o, c);
        const int protocol = chosen[o.kind];
        const char *takes = protocol == PGDDS_PROTOCOL_RPC ? "rpc" : "rdma";
        if (container_direct || (protocol == PGDDS_PROTOCOL_RPC && every_rank_mapped)) takes = "direct";
        else if (o.role == op_role::one_sided || (o.role == op_role::reads && protocol == PGDDS_PROTOCOL_RPC &&
                                                  one_sided_groups(rt, o.kind, o.op) > 0))
            takes = "rdma";
        char formula[48];
        const int g = keys_of(o);
        int n = snprintf(formula, sizeof formula, "%dA+%dR+%dW+%dM", g * o.a, g * o.r, g * o.w, g * o.m);
        if (o.group) snprintf(formula + n, sizeof formula - size_t(n), "/%dkeys", o.group);
        snprintf(line, sizeof line, "op %s %s %s %.3f %.3f %s %s %s\n", o.container, o.op, formula, rdma, c.rpc,
                 !c.measured ? "-" : c.rpc < rdma ? "rpc" : "rdma", role_names[int(o.role)], takes);
        text += line;
    }
    for (auto &k : kinds) {
        double rdma = 0, rpc = 0;
        rpc_cheaper(k.first, c, rdma, rpc);
        snprintf(line, sizeof line, "container %s %s %.3f %.3f %s\n", k.second,
                 chosen[k.first] == PGDDS_PROTOCOL_RPC ? "rpc" : "rdma", rdma, rpc,
                 c.measured ? "priced" : "capabilities");
        text += line;
    }
    return text;
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
    return send_calls(c, who, op, concurrent, calls, pending, nullptr);
}

status rpc_start_deferred(container *c, uint32_t op, unsigned concurrent, rpc_deferred &d)
{
    return send_calls(c, d.who, op, concurrent, d.calls, d.pending, c->calls_in_flight);
}

rpc_deferred::~rpc_deferred()
{
    for (auto &p : pending) forget(p);
}

bool rpc_deferred::ready()
{
    for (auto &p : pending)
        if (p.id && !p.done.load(std::memory_order_acquire)) return false;
    return true;
}

status rpc_deferred::finish()
{
    status st = rpc_finish(rt, who, calls, pending, first == PGDDS_OK ? first : fail(first, "%s", first_why.c_str()));
    return st == PGDDS_OK ? settle(calls) : st;
}

status rpc_quiet(container *c, const char *who)
{
    runtime *rt = c->rt;
    status st = PGDDS_OK;
    if (c->calls_in_flight->load(std::memory_order_acquire))
        st = rt->wait(who, rt->current_vci(),
                      [&] { return c->calls_in_flight->load(std::memory_order_acquire) == 0; });
    status bst = rt->barrier(who);  // every call answered: blocking callers wait for their replies
    return st != PGDDS_OK ? st : bst;
}

status rpc_retire(container *c, const char *who)
{
    status st = rpc_quiet(c, who);
    if (c->protocol == PGDDS_PROTOCOL_RPC) rpc_withdraw(c);
    return st;
}

status rpc_finish(runtime *rt, const char *who, std::vector<rpc_call> &calls, std::vector<rpc_pending> &pending,
                  status first)
{
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

// ---------------------------------------------------------------------------------------------
// C ABI
// ---------------------------------------------------------------------------------------------
using namespace pgdds;
using namespace pgdds::containers;

extern "C" {

PGDDS_API pgdds_status_t pgdds_container_protocols(pgdds_context_t ctx, char *text, size_t *size)
{
    const char *who = "pgdds_container_protocols";
    runtime *rt = runtime::from(ctx);
    if (!rt) return fail(ctx ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG, "%s: the context is %s", who,
                         ctx ? "not live (finalized?)" : "NULL");
    if (!rt->thread_allowed()) return rt->check_thread(who);
    if (!size) return fail(PGDDS_ERR_INVALID_ARG, "%s: size is NULL", who);
    if (!text && *size) return fail(PGDDS_ERR_INVALID_ARG, "%s: text is NULL", who);
    measure_protocol_costs(rt, who);
    std::string report;
    try {
        report = protocol_report(rt);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
    const size_t capacity = *size;
    *size = report.size() + 1;
    if (capacity < report.size() + 1)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: the report has %zu bytes with its NUL, the buffer %zu (*size now "
                    "holds the size needed)", who, report.size() + 1, capacity);
    memcpy(text, report.c_str(), report.size() + 1);
    return PGDDS_OK;
}

}  // extern "C"
