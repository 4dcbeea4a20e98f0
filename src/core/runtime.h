// The runtime behind a pgdds_context_t: identity, configuration, the segment, the routes to
// every peer (peer_map.h), the VCIs (vci_set.h), active messages (am_engine.h) and collectives.
#pragma once

#include "config.h"
#include "gptr.h"
#include "../base/log.h"
#include "rpc.h"
#include "segment_allocator.h"
#include "symmetric_heap.h"
#include "vci.h"
#include "peer_map.h"
#include "vci_set.h"
#include "am_engine.h"
#include "soft_atomics.h"

#include "../pmi/bootstrap.h"
#include "../transport/transport.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <pthread.h>
#include <csignal>
#include <sched.h>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

struct pgdds_context {
    uint64_t magic;
    pgdds::runtime *rt;
};

namespace pgdds {
// A team: an ordered subset of the job's ranks with its own sequence of collective calls
// (src/core/teams.cc). Ranks of one team agree on its id; teams that share a rank never do.
struct team {
    uint32_t id = 0;
    std::vector<int> members;  // the job rank of each team rank
    int me = -1;               // this rank's team rank
    uint64_t seq = 0;          // collective calls made on it so far
    int8_t slots = -1;         // 1: its ranks meet in their segments' slots (collectives.cc); -1: not known yet
    std::vector<uint64_t> slot_at;  // a split team's: where each team rank's slots lie in its segment
    int size() const { return int(members.size()); }
};
struct coll_slot;
}  // namespace pgdds

namespace pgdds {
size_t dtype_size(pgdds_dtype_t dt);
}

struct pgdds_team {
    uint64_t magic;
    pgdds_context_t ctx;
    pgdds::runtime *rt;
    pgdds::team t;
    bool predefined;  // the world or node team: the runtime owns it
};

namespace pgdds {
// What completes a request other than the transport: a container's calls to owners (their
// replies), or an outcome known when the request was made. pgdds_test and pgdds_wait poll
// ready() between progress rounds; once it holds they return finish()'s status (finish writes
// the caller's outputs and explains a failure) and delete the operation.
struct deferred_op {
    virtual ~deferred_op() = default;
    virtual bool ready() = 0;
    virtual status finish() = 0;
};
}  // namespace pgdds

struct pgdds_request {
    uint32_t magic;
    unsigned vci;
    pgdds::op_completion done;
    pgdds_request *next_free;
    pgdds::deferred_op *deferred;  // null: `done` completes it
};

namespace pgdds {

constexpr uint64_t context_magic = 0x706764647343ull;  // "pgddsC"
constexpr uint64_t dead_magic = 0xdeadull;
constexpr uint32_t request_magic = 0x52657175;         // "Requ"
constexpr uint32_t request_free_magic = 0x46726565;    // "Free"

namespace gpu { class memory; }  // src/gpu: the device segment, when there is one

// Where PGDDS_FAULT may kill a rank.
enum class fault_point : uint8_t { none, barrier, hashmap_chain_lock, queue_reservation };

// The runtime is a facade over its parts, each its own class in src/core:
//   startup.cc   the init and finalize sequences (transport choice, the agreement steps);
//   peer_map     ranks, nodes, segment bounds and bases, routes, the atomicity domain;
//   vci_set      VCI binding and lock modes, progress and sweeps, wait/retry, requests;
//   am_engine    the handler registry, fragmentation and reassembly, the handlers' runs;
// and keeps what spans them: configuration, the transports, the segment, network operations,
// collectives (collectives.cc, teams.cc) and peer liveness. The forwarders below are inline
// and reach members held by value, so callers pay nothing for the split.
class runtime {
  public:
    // --- life cycle (startup.cc) ---------------------------------------------------------------
    static status create(const pgdds_init_params_t *params, runtime *&out);
    status finalize();
    ~runtime();

    static runtime *from(pgdds_context_t ctx)
    {
        return PGDDS_LIKELY(ctx && ctx->magic == context_magic) ? ctx->rt : nullptr;
    }
    pgdds_context_t handle() const { return handle_; }

    // --- the parts ---------------------------------------------------------------------------
    const peer_map &peers() const { return peers_; }
    vci_set &vcis() { return vcis_; }
    am_engine &ams() { return ams_; }

    // --- identity and configuration ----------------------------------------------------------
    int rank() const { return peers_.rank(); }
    int nranks() const { return peers_.nranks(); }
    int local_rank() const { return peers_.local_rank(); }
    int local_nranks() const { return peers_.local_nranks(); }
    bool is_local(int r) const { return peers_.is_local(r); }
    const config &cfg() const { return cfg_; }
    const char *transport_name() const { return transport_name_.c_str(); }
    const std::string &job_id() const { return job_id_; }
    unsigned num_vcis() const { return vcis_.num_vcis(); }            // user VCIs
    unsigned num_endpoints() const { return vcis_.num_endpoints(); }  // plus the service VCI
    unsigned service_vci() const { return vcis_.service_vci(); }
    bool threaded() const { return vcis_.threaded(); }
    bool cpu_atomics() const { return peers_.cpu_atomics(); }
    bool cpu_atomics_on(int r) const { return peers_.cpu_atomics_on(r); }
    transport *network() const { return net_.get(); }
    // Atomics in software over active messages (soft_atomics.h), when the job uses them.
    soft_atomics *soft() const { return soft_.get(); }
    // Whether the network's one-sided operations or atomics need the target's CPU to complete.
    bool network_needs_target_progress() const
    {
        return net_ && (soft_ || net_->caps().needs_target_progress);
    }
    // The GPU layer's state (src/gpu/gpu.h), set while the context has a device segment.
    gpu::memory *gpu() const { return gpu_; }
    void set_gpu(gpu::memory *g) { gpu_ = g; }

    // --- the segment ---------------------------------------------------------------------------
    uint8_t *segment_base() const { return seg_base_; }
    size_t segment_size() const { return seg_size_; }
    uint64_t peer_segment_size(int r) const { return peers_.peer_segment_size(r); }
    uint8_t *peer_base(int r) const { return peers_.peer_base(r); }
    segment_allocator &allocator() { return *alloc_; }
    // Blocks at the same offset on every rank (pgdds_alloc_all).
    symmetric_heap &symmetric() { return *sym_; }
    status check_access(const char *who, pgdds_gptr_t p, size_t n, unsigned atomic_width = 0) const
    {
        return peers_.check_access(who, p, n, atomic_width);
    }
    uint8_t *direct(pgdds_gptr_t p) const { return peers_.direct(p); }
    uint8_t *direct_access(pgdds_gptr_t p, size_t n) const { return peers_.direct_access(p, n); }

    // --- VCIs ----------------------------------------------------------------------------------
    vci &current_vci() { return vcis_.current(); }
    vci &vci_at(unsigned i) { return vcis_.at(i); }
    bool is_mine(const vci &v) const { return vcis_.is_mine(v); }
    bool is_bound() const { return vcis_.is_bound(); }
    status bind(unsigned index) { return vcis_.bind(index); }
    // The thread level allows the calling thread (SINGLE/FUNNELED: only the initializing one,
    // and the library's own progress thread, which runs active-message handlers).
    bool thread_allowed() const
    {
        return thread_allowed_here() || pthread_equal(pthread_self(), init_pthread_) || vci_set::on_library_thread();
    }
    // Its common cases without a call, for the hot paths: any thread may call, or this is the
    // thread that initialized the runtime. False says nothing: thread_allowed decides then.
    bool thread_allowed_here() const { return any_thread() || init_thread_serial == serial_; }
    // Whether any thread may call (SERIALIZED: one at a time, MULTIPLE: at once).
    bool any_thread() const
    {
        return cfg_.thread_level == PGDDS_THREAD_MULTIPLE || cfg_.thread_level == PGDDS_THREAD_SERIALIZED;
    }
    // Explains why the calling thread is not allowed.
    status check_thread(const char *who) const;

    // --- waiting and progress (vci_set) ----------------------------------------------------------
    template <class Pred> status wait(const char *who, vci &v, Pred pred) { return vcis_.wait(who, v, pred); }
    status progress(vci &v) { return vcis_.progress(v); }
    // RPC aggregation (rpc.cc): the calls held per destination (null when off), and whether any
    // are held now, which progress checks cheaply.
    rpc_held_calls *rpc_held() const { return rpc_held_.get(); }
    std::atomic<bool> rpc_holding{false};
    status progress_unattended(const vci *mine, bool ownerless_only = false)
    {
        return vcis_.progress_unattended(mine, ownerless_only);
    }
    status attend_user_vcis() { return vcis_.attend_user_vcis(); }
    bool cores_oversubscribed() const { return vcis_.cores_oversubscribed(); }
    void yield_if_oversubscribed() const { vcis_.yield_if_oversubscribed(); }
    template <class Op> status retry(const char *who, vci &v, Op op) { return vcis_.retry(who, v, op); }
    // Counts one operation of `kind` on v (and its bytes under `bytes_kind`) when the transport
    // took it; st: what the transport call returned.
    static status counted(vci &v, status st, net_count kind)
    {
        if (st == PGDDS_OK) v.count(kind);
        return st;
    }
    static status counted(vci &v, status st, net_count kind, net_count bytes_kind, size_t bytes)
    {
        if (st == PGDDS_OK) v.count(bytes_kind, bytes);
        return counted(v, st, kind);
    }

    // --- one-sided operations through the transport (the caller checked the access) ---------
    status net_put(const char *who, vci &v, pgdds_gptr_t dst, const void *src, size_t n, op_completion *done);
    status net_get(const char *who, vci &v, void *dst, pgdds_gptr_t src, size_t n, op_completion *done);
    status amo(const char *who, vci &v, pgdds_gptr_t target, const amo_args &a);
    // A non-fetching atomic that completes at v's next flush (a failure is reported there).
    status amo_posted(const char *who, vci &v, pgdds_gptr_t target, const amo_args &a);
    // Issues an atomic whose completion `done` reports (a request's: the _nb forms).
    status amo_issue(const char *who, vci &v, pgdds_gptr_t target, const amo_args &a, op_completion *done);
    status flush(const char *who, vci &v);
    // Orders v's earlier puts and atomics before its later ones at each target (pgdds_fence).
    status fence(const char *who, vci &v);
    // Stores v's deferred stores (a flush does this first).
    void complete_deferred(vci &v) { vcis_.complete_deferred(v); }
    status flush_all(const char *who);
    // The operations of every VCI so far (net_count order), for pgdds_net_counts.
    void net_counts(uint64_t (&out)[net_count_kinds]) const { vcis_.net_counts(out); }
    pgdds_request *request_get(vci &v) { return vcis_.request_get(v); }
    void request_put(vci &v, pgdds_request *r) { vcis_.request_put(v, r); }
    // A request on the calling thread's VCI that `op` completes (owned from here on: deleted on
    // failure too). settled_request: one for an outcome known now (complete; its test gives st
    // with the explanation current now). In api_rma.cc.
    status deferred_request(const char *who, std::unique_ptr<deferred_op> op, pgdds_request_t *out);
    status settled_request(const char *who, status st, pgdds_request_t *out);

    // --- active messages (am_engine) -------------------------------------------------------------
    status am_register_internal(uint32_t id, pgdds_am_handler_t fn, void *arg)
    {
        return ams_.register_internal(id, fn, arg);
    }
    status am_register(pgdds_am_handler_t fn, void *arg, uint32_t &id) { return ams_.register_user(fn, arg, id); }
    bool am_registered(uint32_t id) const { return ams_.registered(id); }
    status am_send(const char *who, vci &v, int dst, uint32_t handler, const void *payload, size_t size)
    {
        return ams_.send(who, v, dst, handler, payload, size);
    }
    // Called by transports during progress(vci) with one received packet.
    void am_incoming(unsigned vci, const void *packet, size_t len) { ams_.incoming(vci, packet, len); }
    void run_handlers(vci &v) { ams_.run_handlers(v); }
    // --- collectives (src/core/collectives.cc) -------------------------------------------------
    // Every collective call takes one sequence number, on every rank, whatever it is; each of
    // its messages carries its description, which the receiver checks against its own call.
    struct coll_desc {
        uint8_t kind = 0, op = 0, dtype = 0;
        int32_t root = 0;
        uint64_t size = 0;  // bytes (broadcast, allgather per rank, allgather-v in all) or elements
        uint64_t sig = 0;   // a digest of per-rank counts (allgather-v), which every rank passes alike
        bool operator==(const coll_desc &o) const
        {
            return kind == o.kind && op == o.op && dtype == o.dtype && root == o.root && size == o.size &&
                   sig == o.sig;
        }
    };
    // The job's team of every rank, and the team of the ranks of this node (built at first use).
    pgdds_team *world_team();
    pgdds_team *node_team();
    // Collectives on the world team, and on any team this rank belongs to.
    status barrier(const char *who) { return barrier(who, world_team()->t); }
    status broadcast(const char *who, void *buf, size_t n, int root) { return broadcast(who, world_team()->t, buf, n, root); }
    status allreduce(const char *who, const void *in, void *out, size_t count, pgdds_dtype_t dt, pgdds_op_t op)
    {
        return reduce(who, world_team()->t, in, out, count, dt, op, -1);
    }
    status allgather(const char *who, const void *in, void *out, size_t bytes_per_rank)
    {
        return allgather(who, world_team()->t, in, out, bytes_per_rank);
    }
    status barrier(const char *who, team &t);
    status broadcast(const char *who, team &t, void *buf, size_t n, int root);
    // root -1: every rank receives the result (allreduce).
    status reduce(const char *who, team &t, const void *in, void *out, size_t count, pgdds_dtype_t dt, pgdds_op_t op,
                  int root);
    status allgather(const char *who, team &t, const void *in, void *out, size_t bytes_per_rank);
    // counts[r] bytes from team rank r land at out + displs[r] (displs NULL: packed in rank order).
    status allgatherv(const char *who, team &t, const void *in, void *out, const size_t *counts,
                      const size_t *displs);
    // Uniform (bytes per pair) when the count arrays are NULL.
    status alltoall(const char *who, team &t, const void *in, void *out, size_t bytes_per_pair);
    status alltoallv(const char *who, team &t, const void *in, const size_t *send_counts, const size_t *send_displs,
                     void *out, const size_t *recv_counts, const size_t *recv_displs);
    // Collective over `parent`: checks that every rank passed the same split parameters, and
    // gives the split's teams ids base..base+n_ids-1, above every id any rank of the parent has
    // used (teams made by one split that share an id have no rank in common).
    status team_split_agree(const char *who, team &parent, const std::vector<int64_t> &params, uint32_t n_ids,
                            uint32_t &base);
    // After a split, collective over the new team t: gives it slots where its ranks can.
    status attach_slots(const char *who, team &t);
    // Starts collective call `d` on team t: refuses a second thread of this rank (and makes
    // every later collective of the job fail: the ranks' calls no longer pair up), else gives it
    // its sequence number in t. coll_end() closes it, whatever its outcome.
    status coll_begin(const char *who, team &t, const coll_desc &d, uint64_t &seq);
    void coll_end(uint64_t seq);
    // Point-to-point messages between collective steps of the current call, to and from team
    // ranks, matched by (team, sequence, tag, source). coll_recv fails on every rank once any
    // rank found that the calls differ; coll_fail is how a step that finds it says so.
    status coll_send(const char *who, int dst, uint64_t seq, uint64_t tag, const void *data, size_t n);
    status coll_recv(const char *who, int src, uint64_t seq, uint64_t tag, std::vector<uint8_t> &msg);
    status coll_fail(const char *who, uint64_t seq, const std::string &why);
    const team &coll_team() const { return *coll_team_; }
    void coll_deliver(int src, const void *payload, size_t size);

    // Peer liveness, checked in the slow path of every wait: PEER_FAILED, with the last error
    // naming the rank, once a rank of this node has died. Rate-limited (one look per 0.2 s)
    // unless `now`. Ranks on other nodes are seen failing through the transport's errors.
    status check_peers(const char *who, bool now = false);
    static void close_at_exit(runtime *rt);
    // A status on its way out of a wait: remembers a peer failure, for pgdds_finalize.
    status note(status st)
    {
        if (PGDDS_UNLIKELY(st == PGDDS_ERR_PEER_FAILED)) remember_peer_failure();
        return st;
    }
    // A failure on its way out of a wait or a transport call, prefixed with who. The wire often
    // shows a peer's death first, as a transport error: when a rank of this node has died (seen
    // within a second, while its launcher reaps it), that rank's death is the reported cause.
    status failed(const char *who, status st);
    bool peer_failed() const { return peer_failed_.load(std::memory_order_relaxed); }
    // Fault injection (PGDDS_FAULT): this rank dies here, as by kill -9, if it was chosen for p.
    void fault_here(fault_point p) const
    {
        if (PGDDS_UNLIKELY(fault_ == p)) raise(SIGKILL);
    }

  private:
    // Issues v's kept-back stores, then a transport flush or fence, and waits for it.
    template <class Issue> status after_deferred(const char *who, vci &v, Issue issue);
    runtime();
    // The start-up steps (startup.cc).
    status init(const pgdds_init_params_t *params);
    status exchange_node_info();
    status choose_transports();
    status setup_segment();
    status connect_all();
    std::string job_choice() const;
    status agree_atomics();

    pgdds_context_t handle_ = nullptr;
    config cfg_;
    std::string job_id_;
    std::string transport_name_;
    std::unique_ptr<bootstrap> boot_;
    // The hosts the backends see (transport_host.h); declared first, so they outlive them.
    std::unique_ptr<transport_host> net_host_, shm_host_;
    std::unique_ptr<transport> net_;
    std::unique_ptr<transport> shm_;  // the on-node path
    std::unique_ptr<soft_atomics> soft_;
    gpu::memory *gpu_ = nullptr;
    pthread_t init_pthread_{};
    uint64_t serial_ = 0;  // unique among the process's runtimes, never reused
    static __thread uint64_t init_thread_serial;  // the serial of the last runtime this thread initialized

    uint8_t *seg_base_ = nullptr;
    size_t seg_size_ = 0;
    bool seg_mmapped_ = false;
    std::unique_ptr<segment_allocator> alloc_;
    std::unique_ptr<symmetric_heap> sym_;

    peer_map peers_;
    vci_set vcis_;
    am_engine ams_;

    // Tells every other rank of the current team why collective `seq` failed (or, poison, every
    // rank of the job that every collective will).
    void coll_notify(const char *who, uint64_t seq, uint8_t flags, const std::string &why);
    // Allgather(-v) inside a call: through the slots or around a ring.
    status gather(const char *who, uint64_t seq, const void *in, void *out, const size_t *counts,
                  const size_t *displs);
    // The ring of allgather(-v) and the pairwise exchange of all-to-all(-v), inside a call.
    status gather_ring(const char *who, uint64_t seq, const void *in, void *out, const size_t *counts,
                       const size_t *displs);
    status exchange(const char *who, uint64_t seq, const void *in, const size_t *send_counts,
                    const size_t *send_displs, void *out, const size_t *recv_counts, const size_t *recv_displs);
    // The all-to-all into symmetric memory: the agreement that every rank's output is the same
    // block of its segment, and the puts.
    status agree_symmetric(const char *who, uint64_t seq, const void *in, const void *out, size_t total,
                           uint64_t &at);
    uint64_t segment_offset_of(const void *in, size_t in_bytes, const void *out, size_t out_bytes) const;
    status alltoall_puts(const char *who, uint64_t seq, const void *in, void *out, size_t bytes, uint64_t at);
    // Collectives of a team whose ranks all map each other's segments: they meet in slots of the
    // segments' headers instead of exchanging messages (collectives.cc).
    bool uses_slots(team &t);
    coll_slot &slot_of(int team_rank, uint64_t seq) const;
    // Writes this rank's call and n bytes of payload into its slot and marks it with seq.
    void slots_arrive(const char *who, uint64_t seq, const void *payload, size_t n);
    // Waits until every rank of the team has marked `word` of its slot with seq.
    status slots_wait(const char *who, uint64_t seq, std::atomic<uint64_t> coll_slot::*word);
    // Waits for every rank's arrival and checks their calls against this rank's.
    status slots_check(const char *who, uint64_t seq);
    status slots_meet(const char *who, uint64_t seq, const void *payload, size_t n)
    {
        slots_arrive(who, seq, payload, n);
        return slots_check(who, seq);
    }
    status slots_alltoall(const char *who, uint64_t seq, const void *in, void *out, size_t bytes);
    status slots_exchange(const char *who, uint64_t seq, const void *in, const size_t *send_counts,
                          const size_t *send_displs, void *out, const size_t *recv_counts, const size_t *recv_displs);
    status coll_post(const char *who, int dst, uint32_t team_id, uint64_t seq, uint64_t tag, const void *data,
                     size_t n, uint8_t flags);
    struct coll_msg {
        coll_desc desc;
        std::vector<uint8_t> data;
    };
    std::once_flag teams_once_;
    pgdds_team *world_team_ = nullptr, *node_team_ = nullptr;  // retired cells: they outlive the runtime
    uint32_t team_next_id_ = 2;                 // 0: world, 1: node
    team *coll_team_ = nullptr;                 // the team of the call in progress
    coll_desc coll_cur_;                        // the call in progress
    std::atomic<bool> coll_busy_{false};        // a thread of this rank is in a collective
    std::mutex coll_lock_;                      // guards what follows
    std::map<uint32_t, uint64_t> coll_done_;   // per team: calls up to this one ended, late messages are dropped
    using coll_key = std::tuple<uint32_t, uint64_t, uint64_t, int>;  // (team, sequence, tag, source)
    std::map<coll_key, coll_msg> coll_inbox_;
    std::map<std::pair<uint32_t, uint64_t>, std::string> coll_aborts_;  // a rank found call (team, seq) mismatched: why
    std::string coll_poison_;                   // non-empty: collectives ran concurrently; why
    std::atomic<bool> coll_poisoned_{false};    // coll_poison_ is set (read without the lock)
    unsigned split_slot_areas_ = 0;             // slot areas given to split teams so far

    std::unique_ptr<rpc_held_calls, void (*)(rpc_held_calls *)> rpc_held_{nullptr, rpc_held_calls_delete};
    std::atomic<double> last_peer_check_{0};
    std::atomic<bool> peer_failed_{false};  // some wait of this rank saw a peer fail ...
    std::mutex peer_failure_lock_;
    std::string peer_failure_;               // ... and why (the first one)
    void remember_peer_failure();
    bool finalized_ = false;
    fault_point fault_ = fault_point::none;
};

// For the C ABI (api.cc, teams.cc): the status and message of a bad context handle, of a NULL
// argument.
status bad_context(const char *who, pgdds_context_t ctx);
status null_arg(const char *who, const char *what);

// Resolves the context handle and checks the calling thread against the thread level.
inline status enter(pgdds_context_t ctx, const char *who, runtime *&rt)
{
    rt = runtime::from(ctx);
    if (PGDDS_UNLIKELY(!rt)) return bad_context(who, ctx);
    if (PGDDS_UNLIKELY(!rt->thread_allowed())) return rt->check_thread(who);
    return PGDDS_OK;
}

}  // namespace pgdds
