#include "ucx_internal.h"

#include "../../base/log.h"
#include "../../base/wire.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace pgdds {

namespace {

constexpr uint32_t blob_magic = 0x31786375;  // "ucx1", connection data (base/wire.h)
constexpr uint16_t blob_version = 2;
// How long close() waits for a flush or an endpoint close before giving up on a peer.
constexpr double close_wait_seconds = 2.0;

// Transports whose atomics are CPU atomics on memory mapped from the peer: UCX's
// shared-memory transports and its loopback. Their *fetching* AND/OR/XOR are wrong in UCX
// 1.13.1 as Debian builds it: the old value comes back, but the target keeps its old value
// (AND, OR) or becomes 0 (XOR).
bool is_cpu_memory_tl(const std::string &tl)
{
    return tl == "posix" || tl == "sysv" || tl == "xpmem" || tl == "self";
}

bool is_shared_memory_tl(const std::string &tl) { return is_cpu_memory_tl(tl) || tl == "cma" || tl == "knem"; }

// The lines of text written by one of UCX's ucp_*_print_info functions.
template <class Fn> std::vector<std::string> captured_lines(Fn fn)
{
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return {};
    fn(f);
    fclose(f);
    std::string text(buf ? buf : "", len);
    free(buf);
    std::vector<std::string> lines;
    for (size_t pos = 0; pos < text.size();) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return lines;
}

// The transport name in "<index>:<tl>/<device>" or "-- <tl>/<device>", starting at `from`.
std::string tl_at(const std::string &line, size_t from)
{
    size_t slash = line.find('/', from);
    return slash == std::string::npos ? std::string() : line.substr(from, slash - from);
}

// Transports of the context's resources ("#  resource 1  :  md 1  dev 1  flags -- tcp/lo").
std::vector<std::string> context_transports(ucp_context_h ctx)
{
    std::vector<std::string> out;
    for (const std::string &line : captured_lines([&](FILE *f) { ucp_context_print_info(ctx, f); })) {
        size_t dashes = line.find("-- ");
        if (line.find("resource") == std::string::npos || dashes == std::string::npos) continue;
        std::string tl = tl_at(line, dashes + 3);
        if (!tl.empty()) out.push_back(tl);
    }
    return out;
}

// Transports of an endpoint's lanes ("lane[0]:  0:sysv/memory.0 md[0] -> ... amo#0 am"), and
// which of them carry atomics. Empty when the text has no lane lines (an unknown format).
struct lane_info {
    std::vector<std::string> all, atomic;
};

lane_info endpoint_lanes(ucp_ep_h ep)
{
    lane_info info;
    for (const std::string &line : captured_lines([&](FILE *f) { ucp_ep_print_info(ep, f); })) {
        size_t lane = line.find("lane[");
        if (lane == std::string::npos) continue;
        size_t colon = line.find("]:", lane);
        if (colon == std::string::npos) continue;
        size_t start = line.find_first_not_of(' ', colon + 2);
        if (start == std::string::npos) continue;
        size_t index_end = line.find(':', start);
        if (index_end == std::string::npos) continue;
        std::string tl = tl_at(line, index_end + 1);
        if (tl.empty()) continue;
        info.all.push_back(tl);
        if (line.find(" amo#") != std::string::npos) info.atomic.push_back(tl);
    }
    return info;
}

std::string join_unique(const std::vector<std::string> &names)
{
    std::string out;
    std::vector<std::string> seen;
    for (const auto &n : names) {
        bool dup = false;
        for (const auto &s : seen) dup = dup || s == n;
        if (dup) continue;
        seen.push_back(n);
        out += (out.empty() ? "" : ",") + n;
    }
    return out;
}
double seconds_now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A peer's connection data, decoded (pointers into the blob): the segment, one worker address
// per VCI, the segment's packed rkey.
struct peer_address {
    uint64_t seg_base = 0, seg_size = 0;
    std::vector<const uint8_t *> worker;
    std::vector<size_t> worker_len;
    const uint8_t *rkey = nullptr;
    size_t rkey_len = 0;
};

status decode_address(const std::vector<uint8_t> &blob, int rank, unsigned workers, peer_address &out)
{
    wire_reader rd(blob);
    rd.header(blob_magic, blob_version);
    rd.expect(uint32_t(workers), "workers");
    rd.get(out.seg_base);
    rd.get(out.seg_size);
    out.worker.assign(workers, nullptr);
    out.worker_len.assign(workers, 0);
    for (unsigned i = 0; i < workers; ++i) rd.bytes(out.worker[i], out.worker_len[i]);
    rd.bytes(out.rkey, out.rkey_len);
    return rd.finish("ucx", rank);
}

void on_ep_error(void *arg, ucp_ep_h, ucs_status_t s)
{
    auto *p = static_cast<transport_ucx::vci_state::peer *>(arg);
    p->failed = s;
    PGDDS_LOG(LOG_INFO, "ucx: endpoint to rank %d on VCI %u failed: %s", p->rank, p->v->index, ucs_status_string(s));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Set-up
// ---------------------------------------------------------------------------------------------
transport_ucx::~transport_ucx() { close(); }

transport_caps transport_ucx::caps() const
{
    transport_caps c;
    bool one_sided = shared_memory_only_ && allocated_;
    c.needs_target_progress = !one_sided;
    c.one_sided_rma = one_sided;
    c.amo_ops[0] = c.amo_ops[1] = amo_all_ops;
    c.amo_domain = atomics_on_cpu_ ? atomicity_domain::target_cpu : atomicity_domain::nic;
    c.atomics = one_sided ? "native (UCX shared-memory CPU atomics; fetching AND/OR/XOR as compare-and-swap loops)"
                          : "UCX (native where the transport has them, else emulated by UCX with active messages)";
    return c;
}

// pgdds-info: the transports and devices a UCP context gets here (under UCX_TLS and
// UCX_NET_DEVICES as set), from the resource lines of ucp_context_print_info, one entry per
// transport. Which lane carries atomics is chosen per endpoint, so atomics are named by what
// the transport offers: CPU atomics on mapped memory, device atomics (rc, dc), or UCX's
// emulation over active messages.
void transport_ucx::probe(std::vector<transport_probe_entry> &out) const
{
    const std::string version = std::string("UCX ") + ucp_get_version_string();
    ucp_config_t *config = nullptr;
    ucs_status_t s = ucp_config_read(nullptr, nullptr, &config);
    ucp_context_h ctx = nullptr;
    if (s == UCS_OK) {
        ucp_params_t params;
        memset(&params, 0, sizeof params);
        params.field_mask = UCP_PARAM_FIELD_FEATURES;
        params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM;
        s = ucp_init(&params, config, &ctx);
        ucp_config_release(config);
    }
    if (s != UCS_OK) {
        out.push_back({"", 0, "", "", version + "; ucp_init failed: " + ucs_status_string(s) +
                                          " (check UCX_TLS and UCX_NET_DEVICES)"});
        return;
    }
    // "#  resource 1  :  md 1  dev 1  flags -- tcp/lo": devices per transport, in UCX's order.
    std::vector<std::pair<std::string, std::vector<std::string>>> tls;
    for (const std::string &line : captured_lines([&](FILE *f) { ucp_context_print_info(ctx, f); })) {
        size_t dashes = line.find("-- ");
        if (line.find("resource") == std::string::npos || dashes == std::string::npos) continue;
        std::string tl = tl_at(line, dashes + 3);
        if (tl.empty() || tl == "self") continue;
        std::string dev = line.substr(dashes + 3 + tl.size() + 1);
        auto it = std::find_if(tls.begin(), tls.end(), [&](const auto &t) { return t.first == tl; });
        if (it == tls.end()) it = tls.insert(tls.end(), {tl, {}});
        it->second.push_back(dev);
    }
    ucp_cleanup(ctx);
    const char *tls_env = getenv("UCX_TLS");
    out.push_back({"", tls.empty() ? 0 : 1, "", "",
                   version + "; " + std::to_string(tls.size()) + " transports" +
                       (tls_env ? std::string(" under UCX_TLS=") + tls_env : std::string(" (UCX_TLS unset: all)"))});
    for (const auto &[tl, devs] : tls) {
        const bool device_amo = tl.compare(0, 3, "rc_") == 0 || tl.compare(0, 3, "dc_") == 0;
        std::string atomics = is_cpu_memory_tl(tl) ? "cpu"
                              : device_amo         ? "native (device)"
                                                   : "emulated by UCX (active messages)";
        // CPU and device atomics and RMA complete without the target; emulation needs its progress.
        std::string progress = is_cpu_memory_tl(tl) || device_amo ? "auto" : "manual";
        std::string detail = "devices: " + join_unique(devs);
        if (is_shared_memory_tl(tl)) detail += "; on-node memory (UCX_TLS=sm)";
        out.push_back({tl, 1, atomics, progress, detail});
    }
}

status transport_ucx::open(transport_host &host)
{
    host_ = &host;
    ucp_config_t *config = nullptr;
    ucs_status_t s = ucp_config_read(nullptr, nullptr, &config);
    if (s != UCS_OK)
        return fail(PGDDS_ERR_STARTUP, "ucx: cannot read the UCX configuration: %s", ucs_status_string(s));
    ucp_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_REQUEST_SIZE | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                        UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM;
    params.request_size = sizeof(request_info);
    params.estimated_num_eps = size_t(host.nranks());
    // Workers of different threads register memory through the shared context (rendezvous).
    params.mt_workers_shared = host.threading() == host_threading::concurrent && host.endpoints() > 1;
    s = ucp_init(&params, config, &context_);
    ucp_config_release(config);
    if (s != UCS_OK) {
        context_ = nullptr;
        return fail(PGDDS_ERR_STARTUP, "ucx: ucp_init failed: %s (check UCX_TLS and UCX_NET_DEVICES)",
                    ucs_status_string(s));
    }

    std::vector<std::string> families;
    shared_memory_only_ = true;
    for (const auto &tl : context_transports(context_)) {
        if (tl == "self") continue;
        families.push_back(is_shared_memory_tl(tl) ? "sm" : tl);
        shared_memory_only_ = shared_memory_only_ && is_shared_memory_tl(tl);
    }
    name_ = "ucx/" + (families.empty() ? std::string("self") : join_unique(families));

    for (unsigned i = 0; i < host.endpoints(); ++i) {
        std::unique_ptr<vci_state> v(new vci_state());
        v->owner = this;
        v->index = i;
        ucp_worker_params_t wp;
        memset(&wp, 0, sizeof wp);
        wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
        // One thread at a time per VCI, but not always the same one when VCIs are borrowed or
        // the program's threads take turns (PGDDS_THREAD_SERIALIZED).
        wp.thread_mode = host.threading() != host_threading::single ? UCS_THREAD_MODE_SERIALIZED : UCS_THREAD_MODE_SINGLE;
        s = ucp_worker_create(context_, &wp, &v->worker);
        if (s != UCS_OK) {
            v->worker = nullptr;
            close();
            return fail(PGDDS_ERR_TRANSPORT, "ucx: cannot create the worker of VCI %u: %s", i, ucs_status_string(s));
        }
        ucp_am_handler_param_t hp;
        memset(&hp, 0, sizeof hp);
        hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                        UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
        hp.id = am_id;
        hp.flags = UCP_AM_FLAG_WHOLE_MSG;
        hp.cb = ucx_on_am_message;
        hp.arg = v.get();
        s = ucp_worker_set_am_recv_handler(v->worker, &hp);
        vcis_.push_back(std::move(v));
        if (s != UCS_OK) {
            close();
            return fail(PGDDS_ERR_TRANSPORT, "ucx: cannot set the active-message handler of VCI %u: %s", i,
                        ucs_status_string(s));
        }
    }
    unsigned major, minor, release;
    ucp_get_version(&major, &minor, &release);
    PGDDS_LOG(LOG_INFO, "ucx %u.%u.%u: %s, %u workers", major, minor, release, name_.c_str(), host.endpoints());
    return PGDDS_OK;
}

// Whether p's page belongs to a shared mapping, which the runtime needs (pgdds_map_static_data
// maps the segment's pages a second time): only such a mapping can be mapped again with mremap
// and old size 0. The system call itself, since UCX's ucm replaces the libc symbol.
static bool shared_mapping(void *p)
{
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    long alias = syscall(SYS_mremap, p, 0, page, MREMAP_MAYMOVE);
    if (alias == -1) return false;
    munmap(reinterpret_cast<void *>(alias), page);
    return true;
}

status transport_ucx::alloc_segment(size_t size, void **base)
{
    ucp_mem_map_params_t mp;
    memset(&mp, 0, sizeof mp);
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.address = nullptr;
    mp.length = size;
    mp.flags = UCP_MEM_MAP_ALLOCATE;
    ucs_status_t s = ucp_mem_map(context_, &mp, &memh_);
    if (s != UCS_OK) {
        memh_ = nullptr;
        return fail(PGDDS_ERR_NO_MEMORY, "ucx: cannot allocate a segment of %zu bytes: %s", size, ucs_status_string(s));
    }
    ucp_mem_attr_t attr;
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
    s = ucp_mem_query(memh_, &attr);
    if (s != UCS_OK || attr.length < size) {
        ucp_mem_unmap(context_, memh_);
        memh_ = nullptr;
        return fail(PGDDS_ERR_TRANSPORT, "ucx: the segment UCX allocated cannot be queried: %s", ucs_status_string(s));
    }
    if (!shared_mapping(attr.address)) {
        // Memory of UCX's private allocators (no shared-memory domain, as with UCX_TLS=tcp):
        // the runtime maps a shared segment instead, and this backend registers it.
        ucp_mem_unmap(context_, memh_);
        memh_ = nullptr;
        return fail(PGDDS_ERR_UNSUPPORTED, "ucx: the memory UCX allocates here is not a shared mapping");
    }
    allocated_ = true;
    seg_base_ = static_cast<uint8_t *>(attr.address);
    seg_size_ = size;
    *base = seg_base_;
    return PGDDS_OK;
}

status transport_ucx::register_segment(void *base, size_t size)
{
    if (allocated_) {
        if (base == seg_base_ && size <= seg_size_) return PGDDS_OK;
        return fail(PGDDS_ERR_INVALID_ARG, "ucx: asked to register %p, but the segment is UCX's own at %p", base,
                    static_cast<void *>(seg_base_));
    }
    ucp_mem_map_params_t mp;
    memset(&mp, 0, sizeof mp);
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = base;
    mp.length = size;
    ucs_status_t s = ucp_mem_map(context_, &mp, &memh_);
    if (s != UCS_OK) {
        memh_ = nullptr;
        return fail(PGDDS_ERR_TRANSPORT, "ucx: cannot register the segment (%zu bytes at %p): %s", size, base,
                    ucs_status_string(s));
    }
    seg_base_ = static_cast<uint8_t *>(base);
    seg_size_ = size;
    return PGDDS_OK;
}

status transport_ucx::address(std::vector<uint8_t> &blob)
{
    void *rkey = nullptr;
    size_t rkey_len = 0;
    ucs_status_t s = ucp_rkey_pack(context_, memh_, &rkey, &rkey_len);
    if (s != UCS_OK) return fail(PGDDS_ERR_TRANSPORT, "ucx: cannot pack the segment's rkey: %s", ucs_status_string(s));
    blob.clear();
    wire_writer w(blob);
    w.header(blob_magic, blob_version);
    w.put(uint32_t(vcis_.size()));
    w.put(uint64_t(uintptr_t(seg_base_)));
    w.put(uint64_t(seg_size_));
    for (auto &v : vcis_) {
        ucp_address_t *addr = nullptr;
        size_t len = 0;
        s = ucp_worker_get_address(v->worker, &addr, &len);
        if (s != UCS_OK) {
            ucp_rkey_buffer_release(rkey);
            return fail(PGDDS_ERR_TRANSPORT, "ucx: cannot get the address of VCI %u's worker: %s", v->index,
                        ucs_status_string(s));
        }
        w.bytes(addr, len);
        ucp_worker_release_address(v->worker, addr);
    }
    w.bytes(rkey, rkey_len);
    ucp_rkey_buffer_release(rkey);
    return PGDDS_OK;
}

status transport_ucx::connect(const std::vector<std::vector<uint8_t>> &peers)
{
    const int n = host_->nranks();
    std::vector<peer_address> addrs(n);
    for (int r = 0; r < n; ++r) {
        status st = decode_address(peers[r], r, unsigned(vcis_.size()), addrs[r]);
        if (st != PGDDS_OK) return st;
    }
    atomics_on_cpu_ = true;
    for (auto &vp : vcis_) {
        vci_state &v = *vp;
        v.peers.assign(n, vci_state::peer{});
        for (int r = 0; r < n; ++r) {
            vci_state::peer &p = v.peers[r];
            p.v = &v;
            p.rank = r;
            ucp_ep_params_t ep;
            memset(&ep, 0, sizeof ep);
            ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                            UCP_EP_PARAM_FIELD_ERR_HANDLER;
            ep.address = reinterpret_cast<const ucp_address_t *>(addrs[r].worker[v.index]);
            // Peer-failure handling rules out UCX's shared-memory transports (they have no
            // failure detection), so it is asked for off-node peers only; the runtime watches
            // the processes on this node itself.
            ep.err_mode = host_->same_node(r) ? UCP_ERR_HANDLING_MODE_NONE : UCP_ERR_HANDLING_MODE_PEER;
            ep.err_handler.cb = on_ep_error;
            ep.err_handler.arg = &p;
            ucs_status_t s = ucp_ep_create(v.worker, &ep, &p.ep);
            if (s != UCS_OK) {
                p.ep = nullptr;
                return fail(s == UCS_ERR_UNREACHABLE ? PGDDS_ERR_STARTUP : PGDDS_ERR_TRANSPORT,
                            "ucx: cannot connect VCI %u to rank %d: %s (UCX_TLS=%s)", v.index, r, ucs_status_string(s),
                            getenv("UCX_TLS") ? getenv("UCX_TLS") : "all");
            }
            s = ucp_ep_rkey_unpack(p.ep, addrs[r].rkey, &p.rkey);
            if (s != UCS_OK) {
                p.rkey = nullptr;
                return fail(PGDDS_ERR_TRANSPORT, "ucx: cannot unpack rank %d's rkey on VCI %u: %s", r, v.index,
                            ucs_status_string(s));
            }
            p.base = addrs[r].seg_base;
            p.size = addrs[r].seg_size;
            void *mapped = nullptr;
            if (ucp_rkey_ptr(p.rkey, p.base, &mapped) == UCS_OK) p.direct = static_cast<uint8_t *>(mapped);
            // The fetching-bitwise defect needs the target mapped here and atomics on a
            // CPU-memory lane; when the lanes cannot be read, assume the worst.
            if (p.direct) {
                lane_info lanes = endpoint_lanes(p.ep);
                bool cpu_lane = lanes.all.empty();
                for (const auto &tl : lanes.atomic) cpu_lane = cpu_lane || is_cpu_memory_tl(tl);
                p.emulate_fetch_bitwise = cpu_lane;
            }
            // Atomics are CPU atomics when a lane's are (shared memory, loopback) or when no
            // lane carries them: UCX then emulates them with active messages that the target's
            // progress applies with ucs_atomic_* (lock-prefixed instructions; ucp_amo_sw.c).
            // A NIC's atomics, or lanes that cannot be read, rule it out.
            if (v.index == 0) {
                lane_info lanes = endpoint_lanes(p.ep);
                bool cpu = !lanes.all.empty();
                for (const auto &tl : lanes.atomic) cpu = cpu && is_cpu_memory_tl(tl);
                atomics_on_cpu_ = atomics_on_cpu_ && cpu;
            }
            if (v.index == 0 && r != host_->rank() && log_threshold >= LOG_INFO) {
                lane_info lanes = endpoint_lanes(p.ep);
                PGDDS_LOG(LOG_INFO, "ucx: rank %d over %s (atomics: %s)%s%s", r, join_unique(lanes.all).c_str(),
                          lanes.atomic.empty() ? "emulated by UCX" : join_unique(lanes.atomic).c_str(),
                          p.direct ? ", segment mapped" : "",
                          p.emulate_fetch_bitwise ? ", fetching AND/OR/XOR by compare-and-swap" : "");
            }
        }
    }
    connected_ = true;
    return PGDDS_OK;
}

void *transport_ucx::peer_pointer(int rank)
{
    if (rank == host_->rank()) return seg_base_;
    if (!connected_ || vcis_.empty()) return nullptr;
    return vcis_[0]->peers[rank].direct;
}

void transport_ucx::close_endpoints()
{
    for (auto &vp : vcis_) {
        vci_state &v = *vp;
        // RMA was flushed by the runtime's final barrier, but rendezvous packets complete only
        // when their receiver acknowledges them: wait for those, then flush, each wait bounded
        // in case a peer vanished meanwhile.
        double until = seconds_now() + close_wait_seconds;
        while (v.am_in_flight && seconds_now() < until) ucp_worker_progress(v.worker);
        ucp_request_param_t prm;
        prm.op_attr_mask = 0;
        ucs_status_ptr_t r = ucp_worker_flush_nbx(v.worker, &prm);
        if (UCS_PTR_IS_PTR(r)) {
            while (ucp_request_check_status(r) == UCS_INPROGRESS && seconds_now() < until) ucp_worker_progress(v.worker);
            if (ucp_request_check_status(r) == UCS_INPROGRESS) ucp_request_cancel(v.worker, r);
            ucp_request_free(r);
        }
        for (auto &p : v.peers) {
            if (p.rkey) ucp_rkey_destroy(p.rkey);
            p.rkey = nullptr;
        }
        // Forced close: nothing is outstanding after the flush, and a flushing close of an
        // endpoint that was never used (TCP still wiring up) waits for a peer that may already
        // have destroyed its worker.
        std::vector<ucs_status_ptr_t> closing;
        for (auto &p : v.peers) {
            if (!p.ep) continue;
            ucp_request_param_t cp;
            cp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
            cp.flags = UCP_EP_CLOSE_FLAG_FORCE;
            ucs_status_ptr_t c = ucp_ep_close_nbx(p.ep, &cp);
            if (UCS_PTR_IS_PTR(c)) closing.push_back(c);
            p.ep = nullptr;
        }
        until = seconds_now() + close_wait_seconds;
        for (auto c : closing) {
            while (ucp_request_check_status(c) == UCS_INPROGRESS && seconds_now() < until) ucp_worker_progress(v.worker);
            if (ucp_request_check_status(c) == UCS_INPROGRESS)
                PGDDS_LOG(LOG_WARN, "ucx: an endpoint of VCI %u did not close within %.0f s", v.index, close_wait_seconds);
            ucp_request_free(c);
        }
        v.peers.clear();
    }
}

void transport_ucx::close()
{
    if (!context_) return;
    close_endpoints();
    if (memh_) ucp_mem_unmap(context_, memh_);
    memh_ = nullptr;
    seg_base_ = nullptr;
    for (auto &v : vcis_) {
        if (v->worker) ucp_worker_destroy(v->worker);
        for (uint8_t *b : v->am_pool) free(b);
    }
    vcis_.clear();
    ucp_cleanup(context_);
    context_ = nullptr;
    connected_ = false;
}

// ---------------------------------------------------------------------------------------------
status transport_create_ucx(std::unique_ptr<transport> &out)
{
    out.reset(new (std::nothrow) transport_ucx());
    if (!out) return fail(PGDDS_ERR_NO_MEMORY, "ucx: out of host memory");
    return PGDDS_OK;
}

}  // namespace pgdds
