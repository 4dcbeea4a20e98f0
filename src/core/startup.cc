// Start-up and shutdown of a runtime: the bootstrap, node information, the choice and opening
// of the transports, the segment, connecting every rank, the atomicity domain, and the
// agreement of every rank after each step; then finalize.
#include "runtime.h"
#include "rpc.h"
#include "static_data.h"

#include "transport_host.h"
#include "../pmi/wire_io.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

namespace pgdds {

namespace {
// The runtime of a rank whose launcher is gone, closed at exit (runtime::close_at_exit).
std::atomic<runtime *> orphaned_runtime{nullptr};

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

__thread uint64_t runtime::init_thread_serial = 0;

status runtime::init(const pgdds_init_params_t *params)
{
    static std::atomic<uint64_t> serials{0};
    init_pthread_ = pthread_self();
    serial_ = ++serials;
    init_thread_serial = serial_;
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
    peers_.set_identity(boot_->rank(), boot_->size());
    log_set_rank(rank());
    phase_done(boot_->name());
    for (const auto &v : config_table())
        if (const char *value = getenv(v.name)) PGDDS_LOG(LOG_DEBUG, "pgdds_init: %s=%s", v.name, value);
    if (nranks() > gptr::max_ranks) {
        st = fail(PGDDS_ERR_UNSUPPORTED, "%d ranks exceed the %d a global pointer can name", nranks(),
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
        else if (victim == rank())
            fault = fault_point(point_index);
    }

    // SERIALIZED takes no locks: the program orders its threads' calls.
    vcis_.configure(cfg_.num_vcis, cfg_.thread_level == PGDDS_THREAD_MULTIPLE || cfg_.progress_thread,
                    cfg_.timeout);

    st = exchange_node_info();
    if (st == PGDDS_OK) {
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

    vcis_.create(cfg_.progress_thread, cfg_.thread_level == PGDDS_THREAD_MULTIPLE);
    vcis_.attach(net_.get(), shm_.get(), &ams_);
    ams_.create();
    am_register_internal(AM_COLLECTIVE, [](pgdds_context_t ctx, int src, const void *p, size_t n, void *) {
        runtime::from(ctx)->coll_deliver(src, p, n);
    }, nullptr);
    am_register_internal(AM_RPC, on_rpc_message, nullptr);
    if (cfg_.rpc_aggregate) rpc_held_.reset(rpc_held_calls_new(nranks()));

    handle_ = new pgdds_context{context_magic, this};
    if (cfg_.progress_thread) vcis_.start_progress_thread();

    std::string atomics = cpu_atomics() ? "CPU" : soft_ ? "software over active messages" : "the transport's";
    if (!cpu_atomics() && peers_.node_cpu_atomics()) atomics = "CPU on this node, " + atomics + " to other nodes";
    PGDDS_LOG(LOG_INFO, "rank %d of %d (local %d of %d, %d node%s), transport %s, segment %zu bytes, "
              "%u VCI%s, atomics: %s", rank(), nranks(), local_rank(), local_nranks(),
              peers_.nnodes(), peers_.nnodes() == 1 ? "" : "s", transport_name(), seg_size_, num_vcis(),
              num_vcis() == 1 ? "" : "s", atomics.c_str());
    restore_fatal_signals();
    st = barrier("pgdds_init");
    fault_ = fault;
    return st;
}

status runtime::exchange_node_info()
{
    // The CPUs this rank may run on: their union over a node's ranks is the cores they share
    // (ranks bound one per core by the launcher, or a node's ranks confined together by a cgroup
    // or a cpuset, count alike); an empty set where the affinity is unknown.
    struct {
        int32_t pid;
        uint32_t nvcis;
        cpu_set_t cpus;
    } me{int32_t(getpid()), num_vcis(), {}};
    if (sched_getaffinity(0, sizeof me.cpus, &me.cpus) != 0) CPU_ZERO(&me.cpus);
    std::string node = node_identity();
    std::string blob(reinterpret_cast<const char *>(&me), sizeof me);
    blob += node;
    status st = bootstrap_put_blob(*boot_, "node", blob.data(), blob.size());
    if (st == PGDDS_OK && rank() == 0) {
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
    std::vector<int> node_of(nranks());
    std::vector<pid_t> pid_of(nranks());
    std::vector<cpu_set_t> cpus_of(static_cast<size_t>(nranks()));
    for (int r = 0; r < nranks(); ++r) {
        st = bootstrap_get_blob(*boot_, r, "node", v);
        if (st != PGDDS_OK) return st;
        if (v.size() < sizeof me) return fail(PGDDS_ERR_BOOTSTRAP, "node information of rank %d is corrupt", r);
        decltype(me) peer;
        memcpy(&peer, v.data(), sizeof peer);
        if (peer.nvcis != me.nvcis)
            return fail(PGDDS_ERR_INVALID_ARG, "rank %d asks for %u VCIs but rank %d for %u: every rank "
                        "must use the same PGDDS_NUM_VCIS", r, peer.nvcis, rank(), me.nvcis);
        pid_of[r] = peer.pid;
        cpus_of[size_t(r)] = peer.cpus;
        std::string id(v.begin() + sizeof me, v.end());
        auto it = nodes.emplace(id, int(nodes.size())).first;
        node_of[r] = it->second;
    }
    cpu_set_t node_cpus;
    CPU_ZERO(&node_cpus);
    int local = 0;
    for (int r = 0; r < nranks(); ++r)
        if (node_of[r] == node_of[rank()]) {
            CPU_OR(&node_cpus, &node_cpus, &cpus_of[size_t(r)]);
            ++local;
        }
    vcis_.set_node(local, CPU_COUNT(&node_cpus));
    peers_.set_placement(std::move(node_of), std::move(pid_of), int(nodes.size()));
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
        if (peers_.nnodes() > 1)
            return fail(PGDDS_ERR_UNSUPPORTED, "the shm transport needs every rank on one node, but "
                        "the job spans %d nodes", peers_.nnodes());
        why = "PGDDS_TRANSPORT=shm";
    } else if (want == "auto") {
        if (peers_.nnodes() == 1 && shm_allowed) {
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
            why = peers_.nnodes() > 1 ? "the job spans several nodes" : "PGDDS_SHM=off";
            why += tried.empty() ? "" : " (skipped: " + tried + ")";
        }
    } else {
        status st = open_net(want);
        if (st != PGDDS_OK) return st;
        why = "PGDDS_TRANSPORT=" + want;
    }

    // The on-node path: peers on this node are mapped whenever shared memory is allowed.
    if (shm_allowed && (!net_ || local_nranks() > 1 || cfg_.shm == shm_mode::on)) {
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
        if (rank() == 0)
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
    if (shm_) {
        // The library's header below segment_reserved now; the rest as it is handed out.
        st = shm_->back_segment(0, segment_reserved);
        alloc_->set_backing([this](uint64_t offset, uint64_t len) { return shm_->back_segment(offset, len); });
    }
    return st;
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

    std::vector<uint64_t> peer_size(nranks(), 0);
    std::vector<std::vector<uint8_t>> shm_addrs(nranks()), net_addrs(nranks());
    for (int r = 0; r < nranks(); ++r) {
        std::vector<uint8_t> v;
        st = bootstrap_get_blob(*boot_, r, "seg", v);
        if (st != PGDDS_OK) return st;
        memcpy(&peer_size[r], v.data(), sizeof(uint64_t));
        st = bootstrap_get_blob(*boot_, r, "tp", v);
        if (st != PGDDS_OK) return st;
        std::string theirs(v.begin(), v.end());
        if (theirs != choice)
            return fail(PGDDS_ERR_STARTUP, "rank %d chose %s but rank %d chose %s: set the same "
                        "PGDDS_TRANSPORT (and provider or UCX_TLS), PGDDS_SHM and PGDDS_ATOMICS everywhere",
                        r, theirs.c_str(), rank(), choice.c_str());
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
    for (int r = 0; r < nranks(); ++r) top = std::min<uint64_t>(top, peer_size[r]);
    sym_.reset(new symmetric_heap(*alloc_, top & ~uint64_t(segment_allocator::chunk_size - 1)));

    peers_.set_segment_sizes(std::move(peer_size));
    for (int r = 0; r < nranks(); ++r) {
        uint8_t *base = r == rank() ? seg_base_
                      : shm_ && is_local(r) ? static_cast<uint8_t *>(shm_->peer_pointer(r))
                                            : nullptr;
        peers_.set_route(r, base, shm_ && is_local(r) ? static_cast<transport *>(shm_.get()) : net_.get());
    }
    const bool all_direct = peers_.all_direct();
    bool cpu_atomics = false;
    // One atomicity domain per job: CPU atomics when every target is load/store-reachable.
    switch (cfg_.atomics) {
    case atomics_mode::automatic:
    case atomics_mode::software: cpu_atomics = all_direct || !net_; break;
    case atomics_mode::cpu:
        if (!all_direct)
            return fail(PGDDS_ERR_INVALID_ARG, "PGDDS_ATOMICS=cpu needs every segment load/store-reachable "
                        "(one node, PGDDS_SHM not off)");
        cpu_atomics = true;
        break;
    case atomics_mode::transport: cpu_atomics = !net_; break;
    }
    peers_.set_atomics(cpu_atomics, cpu_atomics);
    return net_ ? agree_atomics() : PGDDS_OK;
}

// The network transport and the on-node choices, as every rank must have them.
std::string runtime::job_choice() const
{
    static const char *const shm_names[] = {"auto", "on", "off"};
    static const char *const atomics_names[] = {"auto", "cpu", "transport", "software"};
    return std::string(net_ ? net_->name() : "shm") + " (PGDDS_SHM=" + shm_names[int(cfg_.shm)] +
           ", PGDDS_ATOMICS=" + atomics_names[int(cfg_.atomics)] + ")";
}

// How the network's atomics are served, decided alike on every rank (a backend may see
// different lanes or providers on different nodes), so every rank takes this step:
//  - in software over active messages (soft_atomics.h) once any rank's backend lacks an
//    operation (transport_caps::amo_ops): atomics of one job never mix two atomicity domains;
//  - several nodes with the on-node path: when every rank's network atomics are executed by the
//    target's CPU with CPU atomic instructions (software atomics are), the CPU is the atomicity
//    domain on every node and ranks keep CPU atomics for the peers they map.
status runtime::agree_atomics()
{
    const transport_caps caps = net_->caps();
    const bool forced = cfg_.atomics == atomics_mode::software;
    const char mine[2] = {caps.has_all_amos() && !forced ? 'n' : 's', caps.amo_domain == atomicity_domain::target_cpu ? 'c' : 'd'};
    status st = bootstrap_put_blob(*boot_, "amocaps", mine, sizeof mine);
    if (st == PGDDS_OK) st = boot_->fence();
    bool soft = false, cpu = true;
    int lacking = -1;
    for (int r = 0; st == PGDDS_OK && r < nranks(); ++r) {
        std::vector<uint8_t> v;
        st = bootstrap_get_blob(*boot_, r, "amocaps", v);
        if (st == PGDDS_OK && v.size() != sizeof mine)
            st = fail(PGDDS_ERR_STARTUP, "rank %d published %zu bytes of atomic capabilities, not %zu: is it "
                      "another libpgdds build?", r, v.size(), sizeof mine);
        if (st != PGDDS_OK) break;
        if (v[0] == 's' && lacking < 0) lacking = r;
        soft = soft || v[0] == 's';
        cpu = cpu && v[1] == 'c';
    }
    if (st != PGDDS_OK) return st;
    if (soft) {
        soft_.reset(new soft_atomics(*this, num_endpoints()));
        cpu = true;
        PGDDS_LOG(LOG_INFO, "atomics in software over active messages: %s", forced ? "PGDDS_ATOMICS=software"
                  : ("rank " + std::to_string(lacking) + "'s transport lacks some").c_str());
    }
    if ((cfg_.atomics == atomics_mode::automatic || forced) && cfg_.shm != shm_mode::off)
        peers_.set_atomics(cpu_atomics(), cpu_atomics() || cpu);
    return PGDDS_OK;
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
    if (poisoned && net_ && !peer_failed()) {
        // The notices of the poisoning may still wait in the transport (a UCX endpoint's first
        // message waits for its wire-up, which needs this rank's progress), and a peer inside a
        // collective waits for them: push them out before the blocking barrier below, for a
        // second at most (a peer already in that barrier progresses nothing). A completion that
        // does not come in time stays allocated: the transport may still complete it as it closes.
        vci &v = vci_at(service_vci());
        auto *done = new op_completion(op_completion::one);
        if (net_->flush(v.index, done) != PGDDS_OK) done->pending.store(0);
        const double end = started + 1.0;
        (void)wait("pgdds_finalize", v, [&] { return done->done() || now_seconds() > end; });
        if (done->done()) delete done;
    }
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
    vcis_.stop_progress_thread();
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

runtime::runtime() : vcis_(*this), ams_(*this) {}

// The VCI set leaves the live sets and frees its pooled requests as it goes.
runtime::~runtime()
{
    static_data::release(this);   // a finalize that stopped early
    // Only reached with it running when pgdds_init failed after starting it.
    vcis_.stop_progress_thread();
    if (handle_ && handle_->rt == this) delete handle_;
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

}  // namespace pgdds
