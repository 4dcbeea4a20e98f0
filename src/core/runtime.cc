// Start-up, routing, VCIs, progress and flush of a runtime.
#include "runtime.h"
#include "rpc.h"
#include "static_data.h"

#include "transport_host.h"
#include "../pmi/wire_io.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sys/mman.h>
#include <unistd.h>

namespace pgdds {

namespace {
// The runtime of a rank whose launcher is gone, closed at exit (runtime::close_at_exit).
std::atomic<runtime *> orphaned_runtime{nullptr};
}

thread_local runtime::binding runtime::tls_binding;
thread_local unsigned runtime::tls_issued;
thread_local unsigned runtime::tls_progressed;
thread_local bool runtime::tls_library_thread;
std::atomic<uint64_t> runtime::next_id{1};

namespace {
// The runtimes alive, by id, for threads that leave their VCIs when they exit (a runtime may
// have been finalized first). Never destroyed: threads may exit during the process's exit.
std::mutex live_lock;
std::map<uint64_t, runtime *> &live_runtimes()
{
    static auto *live = new std::map<uint64_t, runtime *>;
    return *live;
}
}  // namespace

// The VCIs the calling thread is bound to, one per context; left when the thread exits, so
// that the next thread bound there can again use it without a lock.
struct thread_bindings {
    std::map<uint64_t, unsigned> vci_of;  // runtime id -> VCI index
    ~thread_bindings()
    {
        std::lock_guard<std::mutex> g(live_lock);
        for (auto [id, index] : vci_of) {
            auto it = live_runtimes().find(id);
            if (it != live_runtimes().end()) it->second->unbind(index);
        }
    }
};
thread_local thread_bindings tls_bindings;

namespace {
thread_local bool tls_in_handler = false;

size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

std::string node_identity()
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    std::string id = host;
    std::ifstream boot("/proc/sys/kernel/random/boot_id");
    std::string boot_id;
    if (boot >> boot_id) id += "/" + boot_id;
    return id;
}
}  // namespace

// ----------------------------------------------------------------------------------------------
// Life cycle
// ----------------------------------------------------------------------------------------------
status runtime::create(const pgdds_init_params_t *params, runtime *&out)
{
    std::unique_ptr<runtime> rt(new (std::nothrow) runtime());
    if (!rt) return fail(PGDDS_ERR_NO_MEMORY, "pgdds_init: out of host memory");
    status st = rt->init(params);
    if (st != PGDDS_OK) return st;
    out = rt.release();
    return PGDDS_OK;
}

// Every rank learns whether every other rank's step succeeded, so that a failure on one rank
// fails pgdds_init everywhere instead of leaving the others waiting.
static status agree(bootstrap &boot, const char *step, status mine)
{
    if (boot.size() == 1) return mine;
    std::string msg = mine == PGDDS_OK ? "" : pgdds_last_error();
    std::string value = std::to_string(mine) + ":" + msg;
    status st = bootstrap_put_blob(boot, std::string("ok.") + step, value.data(), value.size());
    if (st == PGDDS_OK) st = boot.fence();
    if (st != PGDDS_OK) return st;
    if (mine != PGDDS_OK) return mine;
    for (int r = 0; r < boot.size(); ++r) {
        std::vector<uint8_t> v;
        st = bootstrap_get_blob(boot, r, std::string("ok.") + step, v);
        if (st != PGDDS_OK) return st;
        std::string s(v.begin(), v.end());
        int code = atoi(s.c_str());
        if (code != PGDDS_OK) {
            std::string why = s.substr(s.find(':') + 1);
            return fail(code, "rank %d failed: %s", r, why.c_str());
        }
    }
    return PGDDS_OK;
}

status runtime::init(const pgdds_init_params_t *params)
{
    init_pthread_ = pthread_self();
    std::vector<std::string> warnings;
    status st = config_load(params, cfg_, warnings);
    if (st != PGDDS_OK) return st;
    log_threshold = cfg_.log_level;

    double phase = now_seconds();
    // Debug lines: each start-up phase with its duration.
    auto phase_done = [&phase](const char *what) {
        double t = now_seconds();
        PGDDS_LOG(LOG_DEBUG, "pgdds_init: %s in %.6f s", what, t - phase);
        phase = t;
    };
    wire::set_reply_timeout(cfg_.timeout);  // PGDDS_TIMEOUT bounds the launcher's answers too
    st = bootstrap_open(cfg_.pmi, boot_);
    if (st != PGDDS_OK) return fail_prefix(st, "pgdds_init");
    rank_ = boot_->rank();
    nranks_ = boot_->size();
    log_set_rank(rank_);
    phase_done(boot_->name());
    for (const auto &v : config_table())
        if (const char *value = getenv(v.name)) PGDDS_LOG(LOG_DEBUG, "pgdds_init: %s=%s", v.name, value);
    if (nranks_ > gptr::max_ranks) {
        st = fail(PGDDS_ERR_UNSUPPORTED, "%d ranks exceed the %d a global pointer can name", nranks_,
                  gptr::max_ranks);
        return fail_prefix(st, "pgdds_init");
    }
    for (auto &w : warnings) PGDDS_LOG(LOG_WARN, "%s", w.c_str());
    fault_point fault = fault_point::none;  // armed once started: the faults are in the program's calls
    if (!cfg_.fault.empty()) {
        size_t colon = cfg_.fault.rfind(':');
        std::string point = cfg_.fault.substr(0, colon);
        int point_index = parse_choice(point.c_str(), "none|barrier|hashmap-chain-lock|queue-reservation");
        const char *rank_text = colon == std::string::npos ? "" : cfg_.fault.c_str() + colon + 1;
        char *end = nullptr;
        long victim = strtol(rank_text, &end, 10);
        if (point_index <= 0 || !*rank_text || *end || victim < 0)
            PGDDS_LOG(LOG_WARN, "PGDDS_FAULT=%s is not POINT:RANK (barrier, hashmap-chain-lock, queue-reservation); "
                      "ignored", cfg_.fault.c_str());
        else if (victim == rank_)
            fault = fault_point(point_index);
    }

    id_ = next_id.fetch_add(1);
    {
        std::lock_guard<std::mutex> g(live_lock);
        live_runtimes()[id_] = this;
    }
    num_vcis_ = cfg_.num_vcis;
    // SERIALIZED takes no locks: the program orders its threads' calls.
    threaded_ = cfg_.thread_level == PGDDS_THREAD_MULTIPLE || cfg_.progress_thread;

    st = exchange_node_info();
    if (st == PGDDS_OK) {
        cpu_set_t cpus;
        int usable = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
        int online = int(sysconf(_SC_NPROCESSORS_ONLN));
        // Bound to fewer cores than the node has: the launcher placed us; trust the placement.
        node_cores_ = usable < online ? online : usable;
        oversubscribed_ = local_nranks_ > node_cores_;
        phase_done("node information exchanged");
        st = choose_transports();
    }
    st = agree(*boot_, "transport", st);
    if (st == PGDDS_OK) phase_done("transports opened");
    if (st == PGDDS_OK) st = setup_segment();
    st = agree(*boot_, "segment", st);
    if (st == PGDDS_OK) phase_done("segment set up and registered");
    if (st == PGDDS_OK) st = connect_all();
    st = agree(*boot_, "connect", st);
    if (st == PGDDS_OK) phase_done("every rank connected");
    if (st != PGDDS_OK) {
        fail_prefix(st, "pgdds_init");
        char saved[512];
        snprintf(saved, sizeof saved, "%s", pgdds_last_error());
        finalized_ = true;
        if (net_) net_->close();
        if (shm_) shm_->close();
        boot_->finalize();
        fail(st, "%s", saved);
        return st;
    }
    // Every local peer has mapped every file. Every rank takes the barrier, also on a node
    // whose only rank maps nothing (a bootstrap barrier is collective over the job).
    if (cfg_.shm != shm_mode::off) boot_->barrier();
    if (shm_) shm_->peers_connected();

    vcis_.reserve(num_endpoints());
    for (unsigned i = 0; i < num_endpoints(); ++i) {
        vcis_.emplace_back(new vci());
        vcis_[i]->index = i;
        // The service VCI serves whichever thread runs a collective; with a progress thread
        // every VCI is attended by two threads.
        if (i == service_vci() || cfg_.progress_thread) vcis_[i]->always_locked = vcis_[i]->locked_mode = true;
    }
    if (cfg_.thread_level == PGDDS_THREAD_MULTIPLE && !cfg_.progress_thread && !asymmetric_barrier_init()) {
        PGDDS_LOG(LOG_INFO, "membarrier(2) is unavailable: every VCI takes its lock");
        for (auto &v : vcis_) v->always_locked = v->locked_mode = true;
    }
    am_handlers_.assign(1024, am_handler_entry{nullptr, nullptr});
    am_register_internal(AM_COLLECTIVE, [](pgdds_context_t ctx, int src, const void *p, size_t n, void *) {
        runtime::from(ctx)->coll_deliver(src, p, n);
    }, nullptr);
    am_register_internal(AM_RPC, on_rpc_message, nullptr);
    if (cfg_.rpc_aggregate) rpc_held_.reset(rpc_held_calls_new(nranks_));

    handle_ = new pgdds_context{context_magic, this};
    if (cfg_.progress_thread) progress_thread_ = std::thread([this] { progress_thread_main(); });

    PGDDS_LOG(LOG_INFO, "rank %d of %d (local %d of %d, %d node%s), transport %s, segment %zu bytes, "
              "%u VCI%s, %s atomics", rank_, nranks_, local_rank_, local_nranks_, nnodes_,
              nnodes_ == 1 ? "" : "s", transport_name(), seg_size_, num_vcis_, num_vcis_ == 1 ? "" : "s",
              cpu_atomics_ ? "CPU" : node_cpu_atomics_ ? "CPU (on this node; across nodes the transport's, run by the target's CPU)" : "transport");
    restore_fatal_signals();
    st = barrier("pgdds_init");
    fault_ = fault;
    return st;
}

status runtime::exchange_node_info()
{
    struct {
        int32_t pid;
        uint32_t nvcis;
    } me{int32_t(getpid()), num_vcis_};
    std::string node = node_identity();
    std::string blob(reinterpret_cast<const char *>(&me), sizeof me);
    blob += node;
    status st = bootstrap_put_blob(*boot_, "node", blob.data(), blob.size());
    if (st == PGDDS_OK && rank_ == 0) {
        // One name for the job's shared-memory files: the launcher's, else made up by rank 0.
        std::string job = cfg_.job_id;
        if (job.empty()) {
            char buf[64];
            snprintf(buf, sizeof buf, "%x%llx", unsigned(getpid()), (unsigned long long)(now_seconds() * 1e6));
            job = buf;
        }
        for (auto &c : job)
            if (!isalnum((unsigned char)c) && c != '-' && c != '_' && c != '.') c = '_';
        st = bootstrap_put_blob(*boot_, "job", job.data(), job.size());
    }
    if (st == PGDDS_OK) st = boot_->fence();
    if (st != PGDDS_OK) return st;

    std::vector<uint8_t> v;
    st = bootstrap_get_blob(*boot_, 0, "job", v);
    if (st != PGDDS_OK) return st;
    job_id_.assign(v.begin(), v.end());

    std::map<std::string, int> nodes;
    node_of_.resize(nranks_);
    pid_of_.resize(nranks_);
    for (int r = 0; r < nranks_; ++r) {
        st = bootstrap_get_blob(*boot_, r, "node", v);
        if (st != PGDDS_OK) return st;
        if (v.size() < sizeof me) return fail(PGDDS_ERR_BOOTSTRAP, "node information of rank %d is corrupt", r);
        decltype(me) peer;
        memcpy(&peer, v.data(), sizeof peer);
        if (peer.nvcis != me.nvcis)
            return fail(PGDDS_ERR_INVALID_ARG, "rank %d asks for %u VCIs but rank %d for %u: every rank "
                        "must use the same PGDDS_NUM_VCIS", r, peer.nvcis, rank_, me.nvcis);
        pid_of_[r] = peer.pid;
        std::string id(v.begin() + sizeof me, v.end());
        auto it = nodes.emplace(id, int(nodes.size())).first;
        node_of_[r] = it->second;
    }
    nnodes_ = int(nodes.size());
    local_rank_ = local_nranks_ = 0;
    for (int r = 0; r < nranks_; ++r) {
        if (node_of_[r] != node_of_[rank_]) continue;
        if (r < rank_) ++local_rank_;
        ++local_nranks_;
    }
    return PGDDS_OK;
}

status runtime::choose_transports()
{
    const std::string &want = cfg_.transport;
    const bool shm_allowed = cfg_.shm != shm_mode::off;
    std::string why;

    auto open_net = [&](const std::string &kind) -> status {
        std::unique_ptr<transport> t;
        status st = kind == "ofi" ? transport_create_ofi(t)
                  : kind == "ucx" ? transport_create_ucx(t)
                                  : transport_create_verbs(t);
        if (st != PGDDS_OK) return st;
        auto host = make_transport_host(*this, *t);
        st = t->open(*host);
        if (st == PGDDS_OK) net_host_ = std::move(host), net_ = std::move(t);
        return st;
    };

    if (want == "shm") {
        if (!shm_allowed)
            return fail(PGDDS_ERR_INVALID_ARG, "PGDDS_TRANSPORT=shm contradicts PGDDS_SHM=off");
        if (nnodes_ > 1)
            return fail(PGDDS_ERR_UNSUPPORTED, "the shm transport needs every rank on one node, but "
                        "the job spans %d nodes", nnodes_);
        why = "PGDDS_TRANSPORT=shm";
    } else if (want == "auto") {
        if (nnodes_ == 1 && shm_allowed) {
            why = "every rank is on one node";
        } else {
            // verbs only where a device exists; ofi and ucx pick their own providers.
            std::string tried;
            for (const char *kind : {"verbs", "ofi", "ucx"}) {
                status st = open_net(kind);
                if (st == PGDDS_OK) break;
                std::string why_not = pgdds_last_error();  // backends name themselves
                if (why_not.rfind(std::string(kind) + ":", 0) != 0) why_not = std::string(kind) + ": " + why_not;
                tried += std::string(tried.empty() ? "" : "; ") + why_not;
            }
            if (!net_)
                return fail(PGDDS_ERR_UNSUPPORTED, "no network transport is usable (%s)", tried.c_str());
            why = nnodes_ > 1 ? "the job spans several nodes" : "PGDDS_SHM=off";
            why += tried.empty() ? "" : " (skipped: " + tried + ")";
        }
    } else {
        status st = open_net(want);
        if (st != PGDDS_OK) return st;
        why = "PGDDS_TRANSPORT=" + want;
    }

    // The on-node path: peers on this node are mapped whenever shared memory is allowed.
    if (shm_allowed && (!net_ || local_nranks_ > 1 || cfg_.shm == shm_mode::on)) {
        status st = transport_create_shm(shm_);
        if (st != PGDDS_OK) return st;
        shm_host_ = make_transport_host(*this, *shm_);
        st = shm_->open(*shm_host_);
        if (st != PGDDS_OK) return st;
    }
    transport_name_ = net_ ? net_->name() : "shm";
    if (net_ && shm_) transport_name_ += "+shm";
    PGDDS_LOG(LOG_INFO, "transport %s chosen: %s", transport_name_.c_str(), why.c_str());
    return PGDDS_OK;
}

status runtime::setup_segment()
{
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    seg_size_ = round_up(cfg_.segment_size, page);
    if (seg_size_ <= segment_reserved) {
        seg_size_ = segment_reserved + page;
        if (rank_ == 0)
            PGDDS_LOG(LOG_WARN, "a segment of %zu bytes cannot hold anything past the library's %llu-byte "
                      "header: using the minimum, %zu bytes (PGDDS_SEGMENT_SIZE)", cfg_.segment_size,
                      (unsigned long long)segment_reserved, seg_size_);
    }
    void *base = nullptr;
    status st;
    if (shm_) {
        st = shm_->alloc_segment(seg_size_, &base);
    } else {
        st = net_ && net_->allocates_segment() ? net_->alloc_segment(seg_size_, &base) : PGDDS_ERR_UNSUPPORTED;
    }
    if (st == PGDDS_ERR_UNSUPPORTED && !shm_) {   // the network backend leaves it to the runtime
        // Shared, so that pgdds_map_static_data can map its pages over the static data.
        base = mmap(nullptr, seg_size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        st = base == MAP_FAILED ? fail(PGDDS_ERR_NO_MEMORY, "cannot map a segment of %zu bytes: %s", seg_size_,
                                       strerror(errno))
                                : PGDDS_OK;
        seg_mmapped_ = st == PGDDS_OK;
    }
    if (st != PGDDS_OK) return st;
    seg_base_ = static_cast<uint8_t *>(base);
    if (net_) {
        st = net_->register_segment(seg_base_, seg_size_);
        if (st != PGDDS_OK) return st;
    }
    alloc_.reset(new segment_allocator(segment_reserved, seg_size_));
    return PGDDS_OK;
}

status runtime::connect_all()
{
    std::vector<uint8_t> blob;
    uint64_t size = seg_size_;
    status st = bootstrap_put_blob(*boot_, "seg", &size, sizeof size);
    // Ranks agree on what was chosen for the job: the network transport and the PGDDS_SHM and
    // PGDDS_ATOMICS settings. Whether a node maps its peers (not with one rank on it) is the
    // node's own affair and is not compared.
    const std::string choice = job_choice();
    if (st == PGDDS_OK) st = bootstrap_put_blob(*boot_, "tp", choice.data(), choice.size());
    if (st == PGDDS_OK && shm_) {
        st = shm_->address(blob);
        if (st == PGDDS_OK) st = bootstrap_put_blob(*boot_, "shm", blob.data(), blob.size());
    }
    if (st == PGDDS_OK && net_) {
        st = net_->address(blob);
        if (st == PGDDS_OK) st = bootstrap_put_blob(*boot_, "net", blob.data(), blob.size());
    }
    if (st == PGDDS_OK) st = boot_->fence();
    if (st != PGDDS_OK) return st;

    peer_size_.assign(nranks_, 0);
    peer_base_.assign(nranks_, nullptr);
    am_route_.assign(nranks_, nullptr);
    std::vector<std::vector<uint8_t>> shm_addrs(nranks_), net_addrs(nranks_);
    for (int r = 0; r < nranks_; ++r) {
        std::vector<uint8_t> v;
        st = bootstrap_get_blob(*boot_, r, "seg", v);
        if (st != PGDDS_OK) return st;
        memcpy(&peer_size_[r], v.data(), sizeof(uint64_t));
        st = bootstrap_get_blob(*boot_, r, "tp", v);
        if (st != PGDDS_OK) return st;
        std::string theirs(v.begin(), v.end());
        if (theirs != choice)
            return fail(PGDDS_ERR_STARTUP, "rank %d chose %s but rank %d chose %s: set the same "
                        "PGDDS_TRANSPORT (and provider or UCX_TLS), PGDDS_SHM and PGDDS_ATOMICS everywhere",
                        r, theirs.c_str(), rank_, choice.c_str());
        if (shm_ && is_local(r)) {
            st = bootstrap_get_blob(*boot_, r, "shm", shm_addrs[r]);
            if (st != PGDDS_OK) return st;
        }
        if (net_) {
            st = bootstrap_get_blob(*boot_, r, "net", net_addrs[r]);
            if (st != PGDDS_OK) return st;
        }
    }
    if (shm_) {
        st = shm_->connect(shm_addrs);
        if (st != PGDDS_OK) return st;
    }
    if (net_) {
        st = net_->connect(net_addrs);
        if (st != PGDDS_OK) return st;
    }

    // The symmetric heap ends where the smallest segment of the job does, so its offsets exist
    // on every rank.
    uint64_t top = seg_size_;
    for (int r = 0; r < nranks_; ++r) top = std::min<uint64_t>(top, peer_size_[r]);
    sym_.reset(new symmetric_heap(*alloc_, top & ~uint64_t(segment_allocator::chunk_size - 1)));

    bool all_direct = true;
    for (int r = 0; r < nranks_; ++r) {
        if (r == rank_) peer_base_[r] = seg_base_;
        else if (shm_ && is_local(r)) peer_base_[r] = static_cast<uint8_t *>(shm_->peer_pointer(r));
        am_route_[r] = shm_ && is_local(r) ? static_cast<transport *>(shm_.get()) : net_.get();
        all_direct = all_direct && peer_base_[r];
    }
    // One atomicity domain per job: CPU atomics when every target is load/store-reachable.
    switch (cfg_.atomics) {
    case atomics_mode::automatic: cpu_atomics_ = all_direct || !net_; break;
    case atomics_mode::cpu:
        if (!all_direct)
            return fail(PGDDS_ERR_INVALID_ARG, "PGDDS_ATOMICS=cpu needs every segment load/store-reachable "
                        "(one node, PGDDS_SHM not off)");
        cpu_atomics_ = true;
        break;
    case atomics_mode::transport: cpu_atomics_ = !net_; break;
    }
    node_cpu_atomics_ = cpu_atomics_;
    if (cfg_.atomics == atomics_mode::automatic && net_ && cfg_.shm != shm_mode::off)
        return agree_cpu_domain();
    return PGDDS_OK;
}

// The network transport and the on-node choices, as every rank must have them.
std::string runtime::job_choice() const
{
    static const char *const shm_names[] = {"auto", "on", "off"};
    static const char *const atomics_names[] = {"auto", "cpu", "transport"};
    return std::string(net_ ? net_->name() : "shm") + " (PGDDS_SHM=" + shm_names[int(cfg_.shm)] +
           ", PGDDS_ATOMICS=" + atomics_names[int(cfg_.atomics)] + ")";
}

// Several nodes with the on-node path: when every rank's transport executes atomics on the
// target's CPU with CPU atomic instructions, the CPU is the atomicity domain on every node and
// ranks keep CPU atomics for the peers they map. Every rank must decide alike (a transport may
// see different lanes on different nodes), so the ranks agree; every rank takes this step,
// nodes with one rank included.
status runtime::agree_cpu_domain()
{
    char mine = net_->atomics_on_target_cpu() ? '1' : '0';
    status st = bootstrap_put_blob(*boot_, "cpuamo", &mine, 1);
    if (st == PGDDS_OK) st = boot_->fence();
    bool all = true;
    for (int r = 0; st == PGDDS_OK && r < nranks_; ++r) {
        std::vector<uint8_t> v;
        st = bootstrap_get_blob(*boot_, r, "cpuamo", v);
        all = all && st == PGDDS_OK && v.size() == 1 && v[0] == '1';
    }
    node_cpu_atomics_ = cpu_atomics_ || (st == PGDDS_OK && all);
    return st;
}

status runtime::finalize()
{
    bool poisoned;
    {
        std::lock_guard<std::mutex> guard(coll_lock_);
        poisoned = !coll_poison_.empty();
    }
    // Collectives disabled by concurrent calls: the bootstrap's barrier below still pairs up
    // (no flush: it could wait for peers already in that barrier, which progress nothing).
    status st = PGDDS_OK;
    const double started = now_seconds();
    if (!peer_failed() && !poisoned) st = barrier("pgdds_finalize");
    PGDDS_LOG(LOG_DEBUG, "pgdds_finalize: last barrier in %.6f s", now_seconds() - started);
    if (peer_failed()) {
        // A dead rank never reaches a barrier (a PMI-2 fence under srun would wait forever):
        // the launcher ends the job, and this rank exits non-zero.
        std::string why;
        {
            std::lock_guard<std::mutex> guard(peer_failure_lock_);
            why = peer_failure_;
        }
        PGDDS_LOG(LOG_ERROR, "pgdds_finalize: aborting the job after a peer failure: %s", why.c_str());
        boot_->abort(1, "pgdds_finalize after a peer failure: " + why);
    }
    if (progress_thread_.joinable()) {
        progress_stop_ = true;
        progress_thread_.join();
    }
    // After this no rank sends anything: closing endpoints cannot strand a peer's operation.
    status bst = boot_->barrier();
    static_data::release(this);   // before the segment goes: the static data gets its own pages back
    finalized_ = true;
    runtime *self = this;
    orphaned_runtime.compare_exchange_strong(self, nullptr);
    if (net_) net_->close();
    if (shm_) shm_->close();
    if (seg_mmapped_) munmap(seg_base_, seg_size_);
    release_fabric_signals();  // their handlers would walk the closed fabric's freed state
    status fst = boot_->finalize();
    if (st == PGDDS_OK) st = bst;
    if (st == PGDDS_OK) st = fst;
    return st;
}

runtime::~runtime()
{
    {
        std::lock_guard<std::mutex> g(live_lock);
        live_runtimes().erase(id_);
    }
    static_data::release(this);   // a finalize that stopped early
    // Only reached with these live when pgdds_init failed after starting them.
    if (progress_thread_.joinable()) {
        progress_stop_ = true;
        progress_thread_.join();
    }
    if (handle_ && handle_->rt == this) delete handle_;
    for (auto &v : vcis_) {
        while (pgdds_request *r = v->free_requests) {
            v->free_requests = r->next_free;
            delete r;
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Access errors, threads and VCIs
// ----------------------------------------------------------------------------------------------
status runtime::access_error(const char *who, pgdds_gptr_t p, size_t n) const
{
    int r = gptr::rank(p);
    unsigned long long off = gptr::offset(p);
    if (p == PGDDS_GPTR_NULL) return fail(PGDDS_ERR_INVALID_ARG, "%s: the global pointer is PGDDS_GPTR_NULL", who);
    if (r >= nranks_)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: global pointer 0x%llx names rank %d, but the job has %d ranks",
                    who, (unsigned long long)p, r, nranks_);
    if (gptr::segment(p) != 0)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: global pointer 0x%llx names segment %u, which does not exist",
                    who, (unsigned long long)p, gptr::segment(p));
    if (off < segment_reserved)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: offset 0x%llx lies in the reserved first page of rank %d's "
                    "segment (a null or corrupt global pointer?)", who, off, r);
    return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: %zu bytes at offset 0x%llx overrun rank %d's segment (size 0x%llx)",
                who, n, off, r, (unsigned long long)peer_size_[r]);
}

status runtime::check_thread(const char *who) const
{
    if (!thread_allowed())
        return fail(PGDDS_ERR_STATE, "%s: called from a thread other than the one that initialized the "
                    "context, which asked for PGDDS_THREAD_%s (use PGDDS_THREAD_SERIALIZED or MULTIPLE)", who,
                    cfg_.thread_level == PGDDS_THREAD_SINGLE ? "SINGLE" : "FUNNELED");
    return PGDDS_OK;
}

vci &runtime::bind_slow(int requested)
{
    auto &bound = tls_bindings.vci_of;
    auto it = bound.find(id_);
    unsigned index;
    if (requested < 0 && it != bound.end()) {
        index = it->second;
    } else {
        index = requested >= 0 ? unsigned(requested) : next_vci_.fetch_add(1) % num_vcis_;
        if (it != bound.end()) unbind(it->second);
        vci &v = *vcis_[index];
        v.owners.fetch_add(1);
        bound_threads_.fetch_add(1, std::memory_order_relaxed);
        update_mode(v);
        bound[id_] = index;
    }
    tls_binding = binding{id_, index};
    return *vcis_[index];
}

void runtime::unbind(unsigned index)
{
    vcis_[index]->owners.fetch_sub(1);
    bound_threads_.fetch_sub(1, std::memory_order_relaxed);
    update_mode(*vcis_[index]);
}

// Every change of owners is followed by this, so the last one to run sees the final count.
// Holding the VCI as a borrower excludes everyone: locked-mode users through the lock, an
// unlocked owner by waiting until it leaves its operation.
void runtime::update_mode(vci &v)
{
    if (!threaded_ || v.always_locked) return;
    vci_scope hold(v, true, true);
    v.locked_mode.store(v.owners.load() > 1, std::memory_order_release);
}

status runtime::bind(unsigned index)
{
    if (index >= num_vcis_)
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_vci_bind: VCI %u does not exist (the context has %u)", index,
                    num_vcis_);
    bind_slow(int(index));
    return PGDDS_OK;
}

// ----------------------------------------------------------------------------------------------
// Progress
// ----------------------------------------------------------------------------------------------
status runtime::progress(vci &v)
{
    // Held calls go out at the caller's next progress: no call waits longer than that.
    if (PGDDS_UNLIKELY(rpc_holding.load(std::memory_order_relaxed))) {
        status sst = rpc_send_held(*this);
        if (sst != PGDDS_OK) return note(sst);
    }
    status st = progress_one(v);
    if (st == PGDDS_OK && PGDDS_UNLIKELY((++tls_progressed & 255) == 0)) st = progress_unattended(&v);
    return note(st);
}

status runtime::progress_unattended(const vci *mine, bool ownerless_only)
{
    for (auto &other : vcis_) {
        if (other.get() == mine) continue;
        if (threaded_) {
            if (ownerless_only && other->owners.load(std::memory_order_relaxed) != 0) continue;
            // A VCI progressed since the last sweep looked, whose owner is inside an operation
            // or only briefly away, or whose lock another thread holds, is being attended:
            // borrowing it would only wait for that thread. The cheap checks come first.
            uint64_t rounds = other->progress_rounds.load(std::memory_order_relaxed);
            if (other->rounds_at_sweep.exchange(rounds, std::memory_order_relaxed) != rounds) {
                other->idle_borrows.store(0, std::memory_order_relaxed);
                other->next_borrow_at.store(0, std::memory_order_relaxed);
                continue;
            }
            if (other->in_op.load(std::memory_order_relaxed)) continue;
            if (other->owners.load(std::memory_order_relaxed) != 0 && !idle_owner_due(*other)) continue;
            if (!other->lock.try_lock()) continue;
            other->lock.unlock();
        }
        status st = progress_one(*other);
        if (st != PGDDS_OK) return st;
        // The sweep's own round is no sign that anybody else attends the VCI.
        if (threaded_)
            other->rounds_at_sweep.store(other->progress_rounds.load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
    return PGDDS_OK;
}

// Whether a sweep may borrow v now, whose owner has not progressed it since the last sweep
// looked. An owner away for less than first_wait is most likely descheduled or between two
// calls: borrowing would only wait for it. After that, borrows come at intervals that double
// up to max_wait while the owner stays away.
bool runtime::idle_owner_due(vci &v)
{
    constexpr double first_wait = 20e-6, max_wait = 500e-6;
    double now = now_seconds(), due = v.next_borrow_at.load(std::memory_order_relaxed);
    if (due == 0) {  // the absence starts now
        v.next_borrow_at.compare_exchange_strong(due, now + first_wait, std::memory_order_relaxed);
        return false;
    }
    if (now < due) return false;
    unsigned n = std::min(v.idle_borrows.fetch_add(1, std::memory_order_relaxed), 16u);
    double wait = std::min(max_wait, std::ldexp(first_wait, int(n)));
    // One sweeper wins the slot; the others see the new time and pass by.
    return v.next_borrow_at.compare_exchange_strong(due, now + wait, std::memory_order_relaxed);
}

status runtime::progress_one(vci &v)
{
    status st = PGDDS_OK;
    {
        vci_scope scope(v, threaded_, !is_mine(v));
        v.progress_rounds.store(v.progress_rounds.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        if (net_) st = net_->progress(v.index);
        if (st == PGDDS_OK && shm_) st = shm_->progress(v.index);
    }
    if (!tls_in_handler && v.inbox_count.load(std::memory_order_acquire)) run_handlers(v);
    return st;
}

// Peers' gets, atomics and flushes that target a rank waiting in a collective complete only
// when it progresses the VCI they arrive on (manual-progress transports: libfabric's tcp and
// shm, UCX's tcp). The periodic sweep of progress() alone would leave them waiting hundreds of
// progress rounds, each a system call on a socket-based transport. With several threads the
// waiter attends its own VCI and those no thread is bound to any more (their threads ended):
// nobody else would. VCIs of live threads are theirs, and the periodic sweep's.
status runtime::attend_user_vcis()
{
    // One thread: every VCI but the service VCI, which the waiter progresses itself.
    if (!threaded_) return progress_unattended(&vci_at(service_vci()));
    vci *mine = is_bound() ? &current_vci() : nullptr;
    status st = mine ? progress_one(*mine) : PGDDS_OK;
    return st == PGDDS_OK ? progress_unattended(mine, true) : st;
}

void runtime::progress_thread_main()
{
    tls_library_thread = true;  // its handlers may call the library whatever the thread level
    while (!progress_stop_.load(std::memory_order_relaxed)) {
        for (auto &v : vcis_) {
            if (!v->lock.try_lock()) continue;  // someone is working on it: it progresses
            v->lock.unlock();
            progress_one(*v);
        }
        std::this_thread::yield();
    }
}

void runtime::remember_peer_failure()
{
    std::lock_guard<std::mutex> guard(peer_failure_lock_);
    if (!peer_failed_.exchange(true)) peer_failure_ = pgdds_last_error();
}

// Once the launcher is gone nobody will clean up after this rank, and it may well exit without
// pgdds_finalize: at exit it closes its transports then, so that their files in /dev/shm
// (libfabric shm's among them) do not outlive it.
void runtime::close_at_exit(runtime *rt)
{
    if (orphaned_runtime.exchange(rt) != nullptr) return;
    std::atexit([] {
        runtime *r = orphaned_runtime.exchange(nullptr);
        if (!r || r->finalized_) return;
        r->finalized_ = true;
        if (r->net_) r->net_->close();
        if (r->shm_) r->shm_->close();
    });
}

status runtime::failed(const char *who, status st)
{
    if (st == PGDDS_ERR_TRANSPORT) {
        const double give_up = now_seconds() + 1.0;
        for (;;) {
            status pst = check_peers(who, true);
            if (pst != PGDDS_OK) return pst;
            if (now_seconds() > give_up) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    return note(fail_prefix(st, who));
}

status runtime::check_peers(const char *who, bool now)
{
    double t = now_seconds();
    if (!now && t - last_peer_check_ < 0.2) return PGDDS_OK;
    last_peer_check_ = t;
    if (boot_->launcher_gone()) {
        close_at_exit(this);
        return fail(PGDDS_ERR_PEER_FAILED, "%s: the launcher is gone (its PMI connection closed): the job "
                    "cannot go on", who);
    }
    if (int dead = boot_->reported_failure(); dead >= 0 && dead < nranks_ && dead != rank_)
        return note(fail(PGDDS_ERR_PEER_FAILED, "%s: rank %d has died (reported by the launcher)", who, dead));
    for (int r = 0; r < nranks_; ++r) {
        if (r == rank_ || !is_local(r)) continue;
        if (kill(pid_of_[r], 0) != 0 && errno == ESRCH)
            return note(fail(PGDDS_ERR_PEER_FAILED, "%s: rank %d (pid %d, on this node) has died", who, r,
                             int(pid_of_[r])));
    }
    return PGDDS_OK;
}

// ----------------------------------------------------------------------------------------------
// Transport operations, flush, requests
// ----------------------------------------------------------------------------------------------
// Each transport call that succeeds is counted on its VCI, under the VCI's scope.
status runtime::net_put(const char *who, vci &v, pgdds_gptr_t dst, const void *src, size_t n, op_completion *done)
{
    return retry(who, v, [&] {
        status st = net_->put(v.index, gptr::rank(dst), gptr::offset(dst), src, n, done);
        return counted(v, st, count_puts, count_put_bytes, n);
    });
}

status runtime::net_get(const char *who, vci &v, void *dst, pgdds_gptr_t src, size_t n, op_completion *done)
{
    return retry(who, v, [&] {
        status st = net_->get(v.index, gptr::rank(src), gptr::offset(src), dst, n, done);
        return counted(v, st, count_gets, count_get_bytes, n);
    });
}

status runtime::amo(const char *who, vci &v, pgdds_gptr_t target, const amo_args &a)
{
    op_completion done(op_completion::one);
    status st = amo_issue(who, v, target, a, &done);
    if (st != PGDDS_OK) return st;
    st = wait(who, v, [&] { return done.done(); });
    if (st != PGDDS_OK) return st;
    return done.result == PGDDS_OK ? PGDDS_OK : failed(who, done.result);
}

status runtime::amo_issue(const char *who, vci &v, pgdds_gptr_t target, const amo_args &a, op_completion *done)
{
    return retry(who, v, [&] {
        return counted(v, net_->amo(v.index, gptr::rank(target), gptr::offset(target), a, done), count_atomics);
    });
}

status runtime::amo_posted(const char *who, vci &v, pgdds_gptr_t target, const amo_args &a)
{
    return retry(who, v, [&] {
        return counted(v, net_->amo(v.index, gptr::rank(target), gptr::offset(target), a, nullptr),
                       count_atomics_posted);
    });
}

// Issues v's kept-back stores, then `issue` (a transport flush or fence) and waits for it.
template <class Issue> status runtime::after_deferred(const char *who, vci &v, Issue issue)
{
    complete_deferred(v);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (!net_) return PGDDS_OK;
    op_completion done(op_completion::one);
    status st = retry(who, v, [&] { return issue(done); });
    if (st != PGDDS_OK) return st;
    st = wait(who, v, [&] { return done.done(); });
    if (st != PGDDS_OK) return st;
    return done.result == PGDDS_OK ? PGDDS_OK : failed(who, done.result);
}

status runtime::flush(const char *who, vci &v)
{
    // Held calls go out at a flush too, and so before any barrier's messages.
    if (PGDDS_UNLIKELY(rpc_holding.load(std::memory_order_relaxed))) {
        status st = rpc_send_held(*this);
        if (st != PGDDS_OK) return st;
    }
    return after_deferred(who, v,
                          [&](op_completion &done) { return counted(v, net_->flush(v.index, &done), count_flushes); });
}

// Like flush, but only for order: kept-back stores go out and the transport orders what follows
// behind what went before (waiting only where it cannot order otherwise).
status runtime::fence(const char *who, vci &v)
{
    return after_deferred(who, v, [&](op_completion &done) { return net_->fence(v.index, &done); });
}

void runtime::net_counts(uint64_t (&out)[net_count_kinds]) const
{
    for (auto &c : out) c = 0;
    for (auto &v : vcis_)
        for (int k = 0; k < net_count_kinds; ++k) out[k] += v->counts[k].load(std::memory_order_relaxed);
}

status runtime::flush_all(const char *who)
{
    for (auto &v : vcis_) {
        status st = flush(who, *v);
        if (st != PGDDS_OK) return st;
    }
    return PGDDS_OK;
}

pgdds_request *runtime::request_get(vci &v)
{
    pgdds_request *r;
    {
        vci_scope scope(v, threaded_, !is_mine(v));
        r = v.free_requests;
        if (r) v.free_requests = r->next_free;
    }
    if (!r) r = new (std::nothrow) pgdds_request();
    if (!r) return nullptr;
    r->magic = request_magic;
    r->vci = v.index;
    r->done.pending.store(0, std::memory_order_relaxed);
    r->done.result = PGDDS_OK;
    r->next_free = nullptr;
    return r;
}

void runtime::request_put(vci &v, pgdds_request *r)
{
    r->magic = request_free_magic;
    vci_scope scope(v, threaded_, !is_mine(v));
    r->next_free = v.free_requests;
    v.free_requests = r;
}

// ----------------------------------------------------------------------------------------------
// Active messages
// ----------------------------------------------------------------------------------------------
status runtime::am_register_internal(uint32_t id, pgdds_am_handler_t fn, void *arg)
{
    PGDDS_LOG(LOG_TRACE, "active-message handler %u registered (internal)", id);
    am_handlers_[id] = am_handler_entry{fn, arg};
    return PGDDS_OK;
}

status runtime::am_register(pgdds_am_handler_t fn, void *arg, uint32_t &id)
{
    std::lock_guard<std::mutex> guard(am_lock_);
    if (AM_INTERNAL_COUNT + am_user_count_ >= am_handlers_.size())
        return fail(PGDDS_ERR_NO_MEMORY, "pgdds_am_register: all %zu handler slots are taken",
                    am_handlers_.size() - AM_INTERNAL_COUNT);
    id = AM_INTERNAL_COUNT + am_user_count_++;
    PGDDS_LOG(LOG_TRACE, "active-message handler %u registered", id);
    am_handlers_[id] = am_handler_entry{fn, arg};
    return PGDDS_OK;
}

status runtime::am_send(const char *who, vci &v, int dst, uint32_t handler, const void *payload, size_t size)
{
    transport *route = am_route_[dst];
    size_t max_frag = route->am_max_packet() - sizeof(am_packet_header);
    uint32_t msg_id;
    {
        vci_scope scope(v, threaded_, !is_mine(v));
        msg_id = uint32_t(v.next_am_id++);
    }
    size_t first = std::min(size, max_frag);
    uint8_t stack_buf[4096];
    std::vector<uint8_t> heap_buf;
    uint8_t *pkt = stack_buf;
    if (sizeof(am_packet_header) + first > sizeof stack_buf) {
        heap_buf.resize(sizeof(am_packet_header) + first);
        pkt = heap_buf.data();
    }
    size_t off = 0;
    do {
        size_t frag = std::min(size - off, max_frag);
        am_packet_header h{handler, rank_, msg_id, uint32_t(size), uint32_t(off), 0};
        memcpy(pkt, &h, sizeof h);
        if (frag) memcpy(pkt + sizeof h, static_cast<const uint8_t *>(payload) + off, frag);
        status st = retry(who, v, [&] { return route->am_send(v.index, dst, pkt, sizeof h + frag); });
        if (st != PGDDS_OK) return st;
        off += frag;
    } while (off < size);
    return PGDDS_OK;
}

void runtime::am_incoming(unsigned vci_index, const void *packet, size_t len)
{
    vci &v = *vcis_[vci_index];
    am_packet_header h;
    if (len < sizeof h) {
        PGDDS_LOG(LOG_ERROR, "dropped a truncated active-message packet (%zu bytes)", len);
        return;
    }
    memcpy(&h, packet, sizeof h);
    const uint8_t *data = static_cast<const uint8_t *>(packet) + sizeof h;
    size_t frag = len - sizeof h;
    if (h.handler >= am_handlers_.size() || h.src < 0 || h.src >= nranks_ || h.total > PGDDS_AM_MAX_PAYLOAD ||
        uint64_t(h.offset) + frag > h.total) {
        PGDDS_LOG(LOG_ERROR, "dropped a malformed active-message packet (handler %u, from %d, %u bytes)",
                  h.handler, h.src, h.total);
        return;
    }
    if (h.offset == 0 && frag == h.total) {
        v.inbox.push_back(am_message{h.handler, h.src, std::vector<uint8_t>(data, data + frag)});
        v.inbox_count.fetch_add(1, std::memory_order_release);
        return;
    }
    uint64_t key = uint64_t(h.src) << 32 | h.msg_id;
    auto &part = v.reassembly[key];
    if (part.data.empty()) part.data.resize(h.total);
    memcpy(part.data.data() + h.offset, data, frag);
    part.received += uint32_t(frag);
    if (part.received == h.total) {
        v.inbox.push_back(am_message{h.handler, h.src, std::move(part.data)});
        v.inbox_count.fetch_add(1, std::memory_order_release);
        v.reassembly.erase(key);
    }
}

void runtime::run_handlers(vci &v)
{
    for (;;) {
        am_message m;
        {
            vci_scope scope(v, threaded_, !is_mine(v));
            if (v.inbox.empty()) return;
            m = std::move(v.inbox.front());
            v.inbox.pop_front();
            v.inbox_count.fetch_sub(1, std::memory_order_relaxed);
        }
        am_handler_entry e = am_handlers_[m.handler];
        if (!e.fn) {
            PGDDS_LOG(LOG_ERROR, "active message from rank %d for unregistered handler %u dropped", m.src,
                      m.handler);
            continue;
        }
        // Unless the program asked for PGDDS_THREAD_MULTIPLE, handlers never run at the same time
        // as each other, even when the progress thread runs some of them.
        std::unique_lock<std::mutex> serial(handler_lock_, std::defer_lock);
        if (cfg_.thread_level != PGDDS_THREAD_MULTIPLE && cfg_.progress_thread) serial.lock();
        tls_in_handler = true;
        e.fn(handle_, m.src, m.payload.data(), m.payload.size(), e.arg);
        tls_in_handler = false;
    }
}

}  // namespace pgdds
