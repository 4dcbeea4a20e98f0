#include "ofi.h"

#include "../../core/log.h"
#include "../../core/runtime.h"
#include "../shm/shm.h"

#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>
#include <set>
#include <sys/mman.h>

namespace pgdds {

namespace ofi_wire {

constexpr uint32_t blob_magic = 0x4f464931;  // "OFI1"
constexpr uint32_t blob_emulated_atomics = 1;
constexpr size_t packet_limit = 16384;       // receive buffers: wire header + one AM packet
constexpr unsigned recv_slots = 64;          // pre-posted receive buffers per endpoint
constexpr unsigned send_slots = 64;          // bounce buffers per endpoint (sends, FI_MR_LOCAL copies)
constexpr unsigned record_count = 1024;      // operations in flight per endpoint
constexpr unsigned scratch_words = 4;        // per record: operand, compare, result, spare
constexpr int cq_batch = 32;

constexpr uint8_t dirty_rma = 1;  // a write that may not have reached the target yet
constexpr uint8_t dirty_amo = 2;  // likewise a non-fetching native atomic

// Every message of this backend starts with a wire header.
enum : uint32_t { msg_am = 1, msg_amo_request = 2, msg_amo_reply = 3 };

struct wire_header {
    uint32_t kind;
    int32_t src;
};

struct amo_request {
    uint32_t op;
    uint32_t width;
    uint64_t offset;
    uint64_t operand;
    uint64_t compare;
    uint64_t id;  // generation << 32 | record index at the requester
};

struct amo_reply {
    uint64_t id;
    uint64_t value;
    int32_t status;
    uint32_t pad;
};

// Connection data: this header, one segment key per endpoint, one address per endpoint.
struct blob_header {
    uint32_t magic;
    uint32_t endpoints;
    uint32_t addr_len;
    uint32_t flags;
    uint64_t base;
};

enum class op_kind : uint8_t { free, write, read, atomic, fetch, probe, send, recv, remote_amo };

struct pending_reply {
    int rank;
    amo_reply reply;
};

}  // namespace ofi_wire

using namespace ofi_wire;

namespace {

const char *kind_name(op_kind k)
{
    switch (k) {
    case op_kind::write: return "a put";
    case op_kind::read: return "a get";
    case op_kind::atomic: return "an atomic";
    case op_kind::fetch: return "a fetching atomic";
    case op_kind::probe: return "a flush read-back";
    case op_kind::send: return "a message";
    case op_kind::recv: return "a receive";
    case op_kind::remote_amo: return "an emulated atomic";
    case op_kind::free: break;
    }
    return "an operation";
}

bool is_peer_failure(int err)
{
    switch (err) {
    case ECONNRESET: case ECONNREFUSED: case ECONNABORTED: case ENOTCONN: case EPIPE:
    case EHOSTUNREACH: case EHOSTDOWN: case ENETUNREACH: case ENETDOWN: case ETIMEDOUT:
        return true;
    }
    return false;
}

// fail() with libfabric's explanation of a negative return code appended.
status call_failed(status st, ssize_t rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
status call_failed(status st, ssize_t rc, const char *fmt, ...)
{
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(st, "ofi: %s: %s (%zd)", what, fi_strerror(int(-rc)), rc);
}

struct info_deleter {
    void operator()(fi_info *i) const { fi_freeinfo(i); }
};
using info_ptr = std::unique_ptr<fi_info, info_deleter>;

// The hints every query shares; prov_name empty means any provider.
info_ptr make_hints(const std::string &prov_name, uint64_t caps, uint64_t mr_mode, uint64_t msg_order = 0)
{
    info_ptr hints(fi_allocinfo());
    if (!hints) return hints;
    hints->caps = caps;
    // Providers report only the orderings asked for (rxm reports none otherwise).
    hints->tx_attr->msg_order = msg_order;
    hints->rx_attr->msg_order = msg_order;
    hints->mode = FI_CONTEXT;  // not ~0: rxm would then hand back FI_BUFFERED_RECV
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = int(mr_mode);
    hints->domain_attr->threading = FI_THREAD_COMPLETION;
    hints->domain_attr->av_type = FI_AV_TABLE;
    if (!prov_name.empty()) hints->fabric_attr->prov_name = strdup(prov_name.c_str());
    return hints;
}

bool skipped_unless_named(const std::string &prov)
{
    // sockets takes ~20 ms per operation by default; net does not implement fetching atomics
    // and is as slow.
    return prov == "sockets" || prov == "net" || prov.compare(0, 4, "net;") == 0;
}

// Native atomics only if the provider validates every operation and width we use; one missing
// operation makes all of them emulated, because the provider's atomics and the CPU atomics of
// an emulation are not atomic with respect to each other on the same word. Returns what is
// missing, or "" when nothing is.
std::string atomics_missing(fid_ep *ep)
{
    enum { plain, fetching, compare };
    struct needed {
        int form;
        fi_op op;
        const char *name;
    };
    static const needed ops[] = {
        {plain, FI_SUM, "FI_SUM"},          {plain, FI_BAND, "FI_BAND"},       {plain, FI_BOR, "FI_BOR"},
        {plain, FI_BXOR, "FI_BXOR"},        {plain, FI_ATOMIC_WRITE, "FI_ATOMIC_WRITE"},
        {fetching, FI_SUM, "FI_SUM"},       {fetching, FI_BAND, "FI_BAND"},    {fetching, FI_BOR, "FI_BOR"},
        {fetching, FI_BXOR, "FI_BXOR"},     {fetching, FI_ATOMIC_WRITE, "FI_ATOMIC_WRITE"},
        {fetching, FI_ATOMIC_READ, "FI_ATOMIC_READ"}, {compare, FI_CSWAP, "FI_CSWAP"},
    };
    static const char *form_names[] = {"fi_atomicvalid", "fi_fetch_atomicvalid", "fi_compare_atomicvalid"};
    if (!ep->atomic) return "the endpoint has no atomic operations";
    for (fi_datatype dt : {FI_UINT32, FI_UINT64}) {
        for (const needed &n : ops) {
            size_t count = 0;
            int rc = n.form == plain      ? fi_atomicvalid(ep, dt, n.op, &count)
                   : n.form == fetching   ? fi_fetch_atomicvalid(ep, dt, n.op, &count)
                                          : fi_compare_atomicvalid(ep, dt, n.op, &count);
            if (rc || count < 1)
                return std::string(form_names[n.form]) + "(" + (dt == FI_UINT32 ? "FI_UINT32" : "FI_UINT64") + ", " +
                       n.name + ") says " + (rc ? fi_strerror(-rc) : "count 0");
        }
    }
    return "";
}

constexpr uint64_t wanted_caps = FI_MSG | FI_RMA | FI_ATOMIC;
// What we can honour: descriptors for local buffers, virtual or offset addressing,
// provider-chosen keys, registrations bound to endpoints, registering only allocated memory.
constexpr uint64_t supported_mr_modes = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;

// A copy of entry p, asked for once more with orderings: providers report only those asked for.
// First every operation to one peer applied in order (then a fence costs nothing: see
// choose_flush_method), else reads ordered after writes and atomics (then a flush is one
// read-back per peer). p itself where the provider offers neither.
fi_info *with_orderings(const fi_info *p, uint64_t mr_offer)
{
    const uint64_t read_after_write = FI_ORDER_RMA_RAW | FI_ORDER_ATOMIC_RAW;
    for (uint64_t order : {uint64_t(read_after_write | FI_ORDER_RAW | FI_ORDER_WAW), read_after_write}) {
        info_ptr hints = make_hints(p->fabric_attr->prov_name, wanted_caps, mr_offer, order);
        fi_info *ordered = nullptr;
        if (!hints || fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0, hints.get(),
                                 &ordered) != 0)
            continue;
        info_ptr owner(ordered);
        for (fi_info *q = ordered; q; q = q->next)
            if (strcmp(q->fabric_attr->name, p->fabric_attr->name) == 0 &&
                strcmp(q->domain_attr->name, p->domain_attr->name) == 0)
                return fi_dupinfo(q);
    }
    return fi_dupinfo(p);
}

// Whether reads issued after writes of up to `bytes` (or after atomics) to one peer see them.
bool reads_follow_writes(const fi_info *info, size_t bytes)
{
    return (info->tx_attr->msg_order & (FI_ORDER_RAW | FI_ORDER_RMA_RAW)) && info->ep_attr->max_order_raw_size >= bytes;
}
bool reads_follow_atomics(const fi_info *info)
{
    return (info->tx_attr->msg_order & (FI_ORDER_RAW | FI_ORDER_ATOMIC_RAW)) &&
           info->ep_attr->max_order_raw_size >= sizeof(uint64_t);
}
// Whether RMA and atomic operations to one peer of up to `bytes` are applied there in the order
// issued (writes and reads after writes): then an atomic issued after a put sees it.
bool applies_in_order(const fi_info *info, size_t bytes)
{
    const uint64_t order = FI_ORDER_RAW | FI_ORDER_WAW;
    return (info->tx_attr->msg_order & order) == order && info->ep_attr->max_order_raw_size >= bytes &&
           info->ep_attr->max_order_waw_size >= bytes;
}
bool is_shm(const fi_info *info) { return strcmp(info->fabric_attr->prov_name, "shm") == 0; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Per-endpoint state
// ---------------------------------------------------------------------------------------------
struct transport_ofi::registration {
    fid_mr *mr = nullptr;
    void *desc = nullptr;
    size_t refs = 0;  // operations (chunks) still using it
};

struct transport_ofi::op_record {
    fi_context context;  // first: a completion's op_context is the record's address
    op_kind kind = op_kind::free;
    bool counted = false;         // in endpoint::outstanding: a flush waits for it
    uint32_t index = 0;
    uint32_t generation = 0;      // tells a late emulated-atomic reply from the current user
    int rank = -1;
    int slot = -1;                // bounce/send slot held, or the receive slot of a receive
    int linked = -1;              // a send carrying an emulated atomic: that atomic's record
    op_completion *done = nullptr;
    void *result = nullptr;       // where a bounced read or a fetched value goes
    size_t length = 0;
    registration *reg = nullptr;  // on-the-fly registration of the local buffer
    uint64_t *scratch = nullptr;  // scratch_words registered words
};

struct transport_ofi::rma_chunk {
    bool write;
    bool bounce;  // copy through a registered bounce slot (FI_MR_LOCAL, small)
    int rank;
    uint64_t offset;
    uint8_t *local;
    size_t len;
    void *desc;
    registration *reg;
    op_completion *done;
};

struct transport_ofi::endpoint {
    fid_domain *domain = nullptr;  // owned by domains_ and avs_, maybe shared with other VCIs
    fid_av *av = nullptr;
    fid_ep *ep = nullptr;
    fid_cq *cq = nullptr;
    fid_mr *arena_mr = nullptr;
    void *arena_desc = nullptr;
    uint8_t *arena = nullptr;  // send slots, receive slots, record scratch words
    size_t arena_bytes = 0;
    size_t slot_bytes = 0;

    std::vector<op_record> records;   // never resized once open: libfabric holds their contexts
    std::vector<uint32_t> free_records;
    std::vector<op_record> receives;  // one per receive slot
    std::vector<uint32_t> free_slots;
    std::vector<uint32_t> unposted;   // receive slots the provider did not take back yet
    std::deque<rma_chunk> backlog;    // chunks of split transfers waiting for room
    std::deque<pending_reply> replies;  // emulated-atomic replies waiting for room
    std::vector<op_completion *> flushes;
    std::vector<uint8_t> dirty;       // per rank: dirty_rma | dirty_amo since the last flush
    std::vector<int> dirty_ranks;
    size_t outstanding = 0;           // counted operations in flight
    deferred_failure deferred;
    std::vector<uint8_t> staging;     // assembles messages small enough to inject

    uint8_t *send_slot(size_t i) { return arena + i * slot_bytes; }
    uint8_t *recv_slot(size_t i) { return arena + (send_slots + i) * slot_bytes; }
};

static_assert(offsetof(transport_ofi::op_record, context) == 0, "a completion context is its record");

namespace {
// Fills in the record of an operation just issued and counts it among those a flush waits for.
void track(transport_ofi::endpoint &e, transport_ofi::op_record &rec, op_kind kind, int rank, op_completion *done)
{
    rec.kind = kind;
    rec.rank = rank;
    rec.done = done;
    rec.counted = true;
    ++e.outstanding;
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// Set-up
// ---------------------------------------------------------------------------------------------
transport_ofi::transport_ofi(const ofi_options &opts) : opts_(opts) {}

transport_ofi::~transport_ofi() { close(); }

transport_caps transport_ofi::caps() const
{
    transport_caps c;
    c.needs_target_progress = manual_progress_ || emulated_atomics_;
    c.one_sided_rma = !manual_progress_;
    c.atomics = atomics_note_;
    return c;
}

status transport_ofi::select_provider(const std::string &wanted)
{
    const uint64_t caps = wanted_caps;
    const uint64_t mr_offer = supported_mr_modes & opts_.mr_mode_offer;
    info_ptr hints = make_hints(wanted, caps, mr_offer);
    if (!hints) return fail(PGDDS_ERR_NO_MEMORY, "ofi: fi_allocinfo failed");
    fi_info *list = nullptr;
    int rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0, hints.get(), &list);
    info_ptr all(rc == 0 ? list : nullptr);
    for (fi_info *p = all.get(); p; p = p->next) {
        if (wanted.empty() && skipped_unless_named(p->fabric_attr->prov_name)) continue;
        info_ = with_orderings(p, mr_offer);
        if (!info_) return fail(PGDDS_ERR_NO_MEMORY, "ofi: fi_dupinfo failed");
        return PGDDS_OK;
    }

    // Nothing usable: explain why.
    const char *why = rc ? fi_strerror(-rc) : "only providers that are skipped unless named";
    if (wanted.empty())
        return fail(PGDDS_ERR_UNSUPPORTED, "ofi: no libfabric provider offers RDM endpoints with RMA, atomics and "
                    "messages (%s; sockets and net are used only when PGDDS_OFI_PROVIDER names them)", why);
    info_ptr bare = make_hints(wanted, 0, mr_offer);
    fi_info *any = nullptr;
    bool exists = bare && fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0,
                                     bare.get(), &any) == 0;
    info_ptr any_owner(exists ? any : nullptr);
    if (exists)
        return fail(PGDDS_ERR_UNSUPPORTED, "ofi: provider '%s' (PGDDS_OFI_PROVIDER) offers no RDM endpoint with "
                    "RMA, atomics and messages under the memory-registration modes this backend supports "
                    "(fi_getinfo: %s)", wanted.c_str(), why);
    std::set<std::string> names;
    info_ptr open_hints = make_hints("", caps, mr_offer);
    fi_info *others = nullptr;
    if (open_hints && fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0,
                                 open_hints.get(), &others) == 0) {
        info_ptr owner(others);
        for (fi_info *p = others; p; p = p->next) names.insert(p->fabric_attr->prov_name);
    }
    std::string list_text;
    for (auto &n : names) list_text += (list_text.empty() ? "" : ", ") + n;
    // libfabric's shm provider hides itself when /dev/shm has too little free space for its files.
    char shm_note[160] = "";
    if (wanted.rfind("shm", 0) == 0)
        snprintf(shm_note, sizeof shm_note, "; libfabric's shm provider is absent when /dev/shm has too little "
                 "free space (%.1f MiB free now)", transport_shm::dev_shm_free_mib());
    return fail(PGDDS_ERR_UNSUPPORTED, "ofi: provider '%s' (PGDDS_OFI_PROVIDER) is not available here (fi_getinfo: "
                "%s); usable providers: %s%s", wanted.c_str(), why, list_text.empty() ? "none" : list_text.c_str(),
                shm_note);
}

// ---------------------------------------------------------------------------------------------
// pgdds-info
// ---------------------------------------------------------------------------------------------
namespace {

// Opens what the transport would open on entry p (fabric, domain, address vector, completion
// queue, endpoint) and closes it again: the atomics an endpoint validates, or why nothing opens.
transport_probe_entry probe_provider(const fi_info *p)
{
    transport_probe_entry e;
    e.component = p->fabric_attr->prov_name;
    e.progress = p->domain_attr->data_progress == FI_PROGRESS_AUTO ? "auto" : "manual";
    fid_fabric *fabric = nullptr;
    fid_domain *domain = nullptr;
    fid_av *av = nullptr;
    fid_cq *cq = nullptr;
    fid_ep *ep = nullptr;
    const char *step = "fi_fabric";
    int rc = fi_fabric(p->fabric_attr, &fabric, nullptr);
    if (!rc) step = "fi_domain", rc = fi_domain(fabric, const_cast<fi_info *>(p), &domain, nullptr);
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    av_attr.count = 2;
    if (!rc) step = "fi_av_open", rc = fi_av_open(domain, &av_attr, &av, nullptr);
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_MSG;
    cq_attr.wait_obj = FI_WAIT_NONE;
    if (!rc) step = "fi_cq_open", rc = fi_cq_open(domain, &cq_attr, &cq, nullptr);
    if (!rc) step = "fi_endpoint", rc = fi_endpoint(domain, const_cast<fi_info *>(p), &ep, nullptr);
    if (!rc) step = "fi_ep_bind", rc = fi_ep_bind(ep, &av->fid, 0);
    if (!rc) rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV);
    if (!rc) step = "fi_enable", rc = fi_enable(ep);
    std::string missing = rc ? "" : atomics_missing(ep);
    for (fid *f : {ep ? &ep->fid : nullptr, cq ? &cq->fid : nullptr, av ? &av->fid : nullptr,
                   domain ? &domain->fid : nullptr, fabric ? &fabric->fid : nullptr})
        if (f) fi_close(f);
    if (rc) {
        e.usable = 0;
        e.detail = std::string(step) + " fails: " + fi_strerror(-rc);
        return e;
    }
    e.usable = 1;
    e.atomics = missing.empty() ? "native" : "emulated (active messages)";
    const bool read_back = is_shm(p) || reads_follow_writes(p, p->ep_attr->max_msg_size);
    const bool dc_atomics = !is_shm(p) && !reads_follow_atomics(p);
    uint64_t mr_mode = uint64_t(p->domain_attr->mr_mode);
    char text[512];
    snprintf(text, sizeof text, "fabric %s, domain %s; mr_mode [%s]; inject %zu B; flush by %s%s; %s%s",
             p->fabric_attr->name, p->domain_attr->name, fi_tostr(&mr_mode, FI_TYPE_MR_MODE),
             p->tx_attr->inject_size, read_back ? "read-back" : "FI_DELIVERY_COMPLETE",
             read_back && dc_atomics && missing.empty() ? " (atomics FI_DELIVERY_COMPLETE)" : "",
             missing.empty() ? "all atomics validated" : ("missing " + missing).c_str(),
             skipped_unless_named(e.component) ? "; used only when PGDDS_OFI_PROVIDER names it (slow)" : "");
    e.detail = text;
    return e;
}

}  // namespace

void transport_ofi::probe(std::vector<transport_probe_entry> &out) const
{
    const uint32_t version = fi_version();
    char head[256];
    const uint64_t mr_offer = supported_mr_modes;

    // Every provider with RDM endpoints, in libfabric's order of preference.
    std::vector<std::string> rdm;
    info_ptr bare = make_hints("", 0, mr_offer);
    fi_info *list = nullptr;
    if (bare && fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0, bare.get(), &list) == 0) {
        info_ptr owner(list);
        for (fi_info *p = list; p; p = p->next)
            if (std::find(rdm.begin(), rdm.end(), p->fabric_attr->prov_name) == rdm.end())
                rdm.push_back(p->fabric_attr->prov_name);
    }
    // Those that offer what pgdds needs: the first entry of each, as the transport would take it.
    std::vector<transport_probe_entry> rows;
    std::set<std::string> offered;
    std::string first;
    info_ptr hints = make_hints("", wanted_caps, mr_offer);
    list = nullptr;
    int rc = hints ? fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0, hints.get(), &list)
                   : -FI_ENOMEM;
    info_ptr owner(rc == 0 ? list : nullptr);
    for (fi_info *p = owner.get(); p; p = p->next) {
        const std::string prov = p->fabric_attr->prov_name;
        if (!offered.insert(prov).second) continue;
        info_ptr chosen(with_orderings(p, mr_offer));
        if (!chosen) continue;
        rows.push_back(probe_provider(chosen.get()));
        if (first.empty() && rows.back().usable == 1 && !skipped_unless_named(prov)) first = prov;
        if (std::find(rdm.begin(), rdm.end(), prov) == rdm.end()) rdm.push_back(prov);
    }
    for (const std::string &prov : rdm)
        if (!offered.count(prov))
            rows.push_back({prov, 0, "none", "", "RDM endpoints, but not with RMA, atomics and messages under the "
                            "memory-registration modes pgdds supports"});

    snprintf(head, sizeof head, "libfabric %u.%u; %zu RDM provider%s; PGDDS_OFI_PROVIDER empty takes %s",
             FI_MAJOR(version), FI_MINOR(version), rdm.size(), rdm.size() == 1 ? "" : "s",
             first.empty() ? "none" : first.c_str());
    if (rdm.empty())
        snprintf(head, sizeof head, "libfabric %u.%u; no provider offers RDM endpoints here (fi_getinfo: %s)",
                 FI_MAJOR(version), FI_MINOR(version), fi_strerror(-rc));
    out.push_back({"", first.empty() ? 0 : 1, "", "", head});
    out.insert(out.end(), rows.begin(), rows.end());
}

status transport_ofi::open(runtime &rt)
{
    if (rt_) return fail(PGDDS_ERR_STATE, "ofi: the transport is already open");
    rt_ = &rt;
    rank_ = rt.rank();
    nranks_ = rt.nranks();
    nendpoints_ = rt.num_endpoints();

    status st = select_provider(rt.cfg().ofi_provider);
    if (st != PGDDS_OK) return st;
    const char *prov = info_->fabric_attr->prov_name;
    name_ = std::string("ofi/") + prov;

    int rc = fi_fabric(info_->fabric_attr, &fabric_, nullptr);
    if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_fabric(%s, %s)", prov, info_->fabric_attr->name);
    st = open_domains();
    if (st != PGDDS_OK) return st;
    const fi_domain_attr *dom = info_->domain_attr;
    mr_mode_ = uint64_t(dom->mr_mode);
    local_mr_ = (mr_mode_ & FI_MR_LOCAL) || opts_.local_descriptors;
    inject_size_ = info_->tx_attr->inject_size;
    max_transfer_ = info_->ep_attr->max_msg_size;
    if (opts_.max_transfer) max_transfer_ = std::min(max_transfer_, opts_.max_transfer);
    packet_bytes_ = std::min(packet_limit, info_->ep_attr->max_msg_size);
    if (packet_bytes_ < 512 || max_transfer_ == 0)
        return fail(PGDDS_ERR_UNSUPPORTED, "ofi: provider %s carries messages of at most %zu bytes", prov,
                    info_->ep_attr->max_msg_size);
    manual_progress_ = dom->data_progress != FI_PROGRESS_AUTO;

    for (unsigned i = 0; i < nendpoints_; ++i) {
        st = open_endpoint(i);
        if (st != PGDDS_OK) return st;
    }
    st = validate_atomics();
    if (st != PGDDS_OK) return st;
    choose_flush_method();
    PGDDS_LOG(LOG_INFO, "ofi: provider %s, fabric %s, domain %s (%s), mr_mode [%s], inject %zu, largest transfer "
              "%zu, atomics %s, flush by %s, fence by %s", prov, info_->fabric_attr->name, dom->name,
              domains_.size() == 1 ? "one for every VCI" : "one per VCI",
              fi_tostr(&dom->mr_mode, FI_TYPE_MR_MODE), inject_size_, max_transfer_, atomics_note_.c_str(),
              delivery_complete_puts_ ? "FI_DELIVERY_COMPLETE" : "read-back", ordered_ ? "ordering" : "flush");
    return PGDDS_OK;
}

// One domain and address vector for every VCI, or one of each per VCI (see PGDDS_OFI_DOMAINS).
status transport_ofi::open_domains()
{
    const char *prov = info_->fabric_attr->prov_name;
    const int wanted = opts_.domains >= 0 ? opts_.domains : rt_->cfg().ofi_domains;  // 0 auto, 1 shared, 2 per VCI
    const bool per_vci = wanted == 2 || (wanted == 0 && is_shm(info_));
    const fi_domain_attr *dom = info_->domain_attr;
    const unsigned per_domain = per_vci ? 1 : nendpoints_;
    if ((dom->ep_cnt && per_domain > dom->ep_cnt) || (dom->cq_cnt && per_domain > dom->cq_cnt))
        return fail(PGDDS_ERR_UNSUPPORTED, "ofi: provider %s allows %zu endpoints and %zu completion queues per "
                    "domain, but %u VCIs need %u of each (PGDDS_NUM_VCIS plus the service VCI); "
                    "PGDDS_OFI_DOMAINS=vci gives each VCI a domain", prov, dom->ep_cnt, dom->cq_cnt, rt_->num_vcis(),
                    per_domain);
    for (unsigned i = 0; i < nendpoints_ / per_domain; ++i) {
        fid_domain *domain = nullptr;
        int rc = fi_domain(fabric_, info_, &domain, nullptr);
        if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_domain(%s, %s)", prov, dom->name);
        domains_.push_back(domain);
        fi_av_attr av_attr{};
        av_attr.type = FI_AV_TABLE;
        av_attr.count = size_t(nranks_) * per_domain;
        fid_av *av = nullptr;
        rc = fi_av_open(domain, &av_attr, &av, nullptr);
        if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_av_open(%s) for %zu addresses", prov, av_attr.count);
        avs_.push_back(av);
    }
    return PGDDS_OK;
}

status transport_ofi::open_endpoint(unsigned index)
{
    eps_.emplace_back(new endpoint());
    endpoint &e = *eps_.back();
    const char *prov = info_->fabric_attr->prov_name;
    e.domain = domains_[domains_.size() == 1 ? 0 : index];
    e.av = avs_[avs_.size() == 1 ? 0 : index];

    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_MSG;
    cq_attr.size = record_count + recv_slots;  // every operation that can complete at once
    cq_attr.wait_obj = FI_WAIT_NONE;
    int rc = fi_cq_open(e.domain, &cq_attr, &e.cq, nullptr);
    if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_cq_open(%s) for VCI %u", prov, index);
    rc = fi_endpoint(e.domain, info_, &e.ep, nullptr);
    if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_endpoint(%s) for VCI %u", prov, index);
    rc = fi_ep_bind(e.ep, &e.av->fid, 0);
    if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "binding the address vector to VCI %u", index);
    rc = fi_ep_bind(e.ep, &e.cq->fid, FI_TRANSMIT | FI_RECV);
    if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "binding the completion queue of VCI %u", index);
    rc = fi_enable(e.ep);
    if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_enable(%s) of VCI %u", prov, index);

    e.slot_bytes = packet_bytes_;
    e.arena_bytes = (send_slots + recv_slots) * e.slot_bytes + size_t(record_count) * scratch_words * sizeof(uint64_t);
    void *arena = mmap(nullptr, e.arena_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (arena == MAP_FAILED)
        return fail(PGDDS_ERR_NO_MEMORY, "ofi: cannot map %zu bytes of buffers for VCI %u: %s", e.arena_bytes, index,
                    strerror(errno));
    e.arena = static_cast<uint8_t *>(arena);
    if (local_mr_) {
        rc = fi_mr_reg(e.domain, e.arena, e.arena_bytes, FI_SEND | FI_RECV | FI_READ | FI_WRITE, 0, next_key_++, 0,
                       &e.arena_mr, nullptr);
        if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "registering %zu bytes of buffers for VCI %u", e.arena_bytes, index);
        status st = bind_mr(e.arena_mr, index, "the buffers");
        if (st != PGDDS_OK) return st;
        e.arena_desc = fi_mr_desc(e.arena_mr);
    }

    auto *scratch = reinterpret_cast<uint64_t *>(e.arena + (send_slots + recv_slots) * e.slot_bytes);
    e.records.resize(record_count);
    for (uint32_t i = 0; i < record_count; ++i) {
        e.records[i].index = i;
        e.records[i].scratch = scratch + size_t(i) * scratch_words;
        e.free_records.push_back(record_count - 1 - i);
    }
    for (uint32_t i = 0; i < send_slots; ++i) e.free_slots.push_back(send_slots - 1 - i);
    e.dirty.assign(size_t(nranks_), 0);
    e.staging.resize(packet_bytes_);

    e.receives.resize(recv_slots);
    for (uint32_t i = 0; i < recv_slots; ++i) {
        op_record &r = e.receives[i];
        r.kind = op_kind::recv;
        r.slot = int(i);
        ssize_t prc = fi_recv(e.ep, e.recv_slot(i), e.slot_bytes, e.arena_desc, FI_ADDR_UNSPEC, &r.context);
        if (prc) return call_failed(PGDDS_ERR_TRANSPORT, prc, "posting receive buffer %u of VCI %u", i, index);
    }
    return PGDDS_OK;
}

// Native or emulated atomics: atomics_missing decides, unless PGDDS_OFI_ATOMICS or the
// caller's options say otherwise.
status transport_ofi::validate_atomics()
{
    const int wanted = rt_ ? rt_->cfg().ofi_atomics : 0;  // PGDDS_OFI_ATOMICS: auto|native|emulated
    if (opts_.emulate_atomics || wanted == 2) {
        emulated_atomics_ = true;
        atomics_note_ = opts_.emulate_atomics ? "emulated (active messages), as the caller asked"
                                              : "emulated (active messages), as PGDDS_OFI_ATOMICS asks";
        return PGDDS_OK;
    }
    std::string why = atomics_missing(eps_[0]->ep);
    if (!why.empty() && wanted == 1)
        return fail(PGDDS_ERR_UNSUPPORTED, "ofi: PGDDS_OFI_ATOMICS=native, but provider %s lacks an atomic pgdds "
                    "uses: %s", info_->fabric_attr->prov_name, why.c_str());
    emulated_atomics_ = !why.empty();
    atomics_note_ = emulated_atomics_ ? "emulated (active messages): " + why : "native (fi_atomic)";
    return PGDDS_OK;
}

// Remote completion. A put completes locally when its source may be reused, which is not when
// the data is at the target (on tcp;ofi_rxm it may still sit in the target's socket; on shm
// without CMA in the target's command queue). Two ways to make a flush mean "visible":
//  - read-back: remember which peers got writes or non-fetching atomics since the last flush,
//    and at flush read one word from each (fi_read after writes, fetching FI_ATOMIC_READ after
//    atomics); the read completes only after the target executed what came before it. Correct
//    where the provider orders reads after writes to one peer (FI_ORDER_RAW / _RMA_RAW /
//    _ATOMIC_RAW with max_order_raw_size covering our transfers; select_provider asks for it),
//    and on shm, whose writes by CMA are in place on completion and whose other operations
//    pass through the target's command queue in order (measured: a fetch issued after an inline
//    atomic completes only once the target has executed both).
//    Cost: one round trip per written-to peer per flush; puts complete locally at full speed.
//  - FI_DELIVERY_COMPLETE on every put and non-fetching atomic, elsewhere: each one then
//    completes only once delivered, and a flush waits for completions. tcp;ofi_rxm (1.17)
//    comes this way: it emulates atomics over messages, and once FI_ATOMIC is asked for it
//    reports max_order_raw_size 0, so a read may overtake an atomic. Never for atomics on
//    shm: in libfabric 1.17, delivery-complete atomics mixed with fetching ones from another
//    process sometimes corrupt operands and results (reproduced with plain libfabric).
void transport_ofi::choose_flush_method()
{
    const bool shm = is_shm(info_);
    delivery_complete_puts_ = opts_.delivery_complete || !(shm || reads_follow_writes(info_, max_transfer_));
    delivery_complete_amos_ = !emulated_atomics_ && !shm && (opts_.delivery_complete || !reads_follow_atomics(info_));
    // A fence relies on the provider's ordering where it applies every put and atomic to a peer
    // in order (shm promises it), else it flushes. Emulated atomics are messages, which these
    // orderings do not cover.
    ordered_ = !emulated_atomics_ && applies_in_order(info_, max_transfer_);
}

// Operations already handed to an in-order provider are applied in that order: only those still
// waiting for room (the backlog) must go first.
status transport_ofi::fence(unsigned vci, op_completion *done)
{
    if (!ordered_) return flush(vci, done);
    if (status st = issue_backlog(*eps_[vci], vci); st != PGDDS_OK) return st;
    done->complete(PGDDS_OK);
    return PGDDS_OK;
}

// Hands the provider what waits in e's backlog; AGAIN while some of it still has no room.
status transport_ofi::issue_backlog(endpoint &e, unsigned vci)
{
    if (e.backlog.empty()) return PGDDS_OK;
    status st = drain_backlogs(e, vci);
    if (st != PGDDS_OK) return st;
    return e.backlog.empty() ? PGDDS_OK : PGDDS_ERR_AGAIN;
}

status transport_ofi::bind_mr(fid_mr *mr, unsigned vci, const char *what)
{
    if (!(mr_mode_ & FI_MR_ENDPOINT)) return PGDDS_OK;
    int rc = fi_mr_bind(mr, &eps_[vci]->ep->fid, 0);
    if (rc == 0) rc = fi_mr_enable(mr);
    return rc ? call_failed(PGDDS_ERR_TRANSPORT, rc, "binding the registration of %s to VCI %u", what, vci) : PGDDS_OK;
}

status transport_ofi::register_segment(void *base, size_t size)
{
    if (!opened()) return fail(PGDDS_ERR_STATE, "ofi: register_segment before open");
    seg_base_ = static_cast<uint8_t *>(base);
    seg_size_ = size;
    // A registration serves one domain, and with FI_MR_ENDPOINT one endpoint: then each VCI
    // gets its own.
    unsigned count = (mr_mode_ & FI_MR_ENDPOINT) || domains_.size() > 1 ? nendpoints_ : 1;
    for (unsigned i = 0; i < count; ++i) {
        fid_mr *mr = nullptr;
        int rc = fi_mr_reg(eps_[i]->domain, base, size, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE, 0,
                           next_key_++, 0, &mr, nullptr);
        if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "registering the segment (%zu bytes at %p)", size, base);
        seg_mrs_.push_back(mr);
        status st = bind_mr(mr, i, "the segment");
        if (st != PGDDS_OK) return st;
        uint64_t key = fi_mr_key(mr);
        if (key == FI_KEY_NOTAVAIL)
            return fail(PGDDS_ERR_UNSUPPORTED, "ofi: provider %s gives the segment a key longer than 64 bits "
                        "(FI_MR_RAW), which this backend does not support", info_->fabric_attr->prov_name);
        seg_keys_.push_back(key);
    }
    return PGDDS_OK;
}

status transport_ofi::address(std::vector<uint8_t> &blob)
{
    if (!opened() || seg_keys_.empty()) return fail(PGDDS_ERR_STATE, "ofi: address before open and register_segment");
    std::vector<std::vector<uint8_t>> names(nendpoints_);
    size_t addr_len = 0;
    for (unsigned i = 0; i < nendpoints_; ++i) {
        size_t len = 0;
        int rc = fi_getname(&eps_[i]->ep->fid, nullptr, &len);
        if (rc != -FI_ETOOSMALL && rc != 0) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_getname of VCI %u", i);
        names[i].resize(len);
        rc = fi_getname(&eps_[i]->ep->fid, names[i].data(), &len);
        if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_getname of VCI %u", i);
        names[i].resize(len);
        addr_len = std::max(addr_len, len);
    }
    blob_header h{blob_magic, nendpoints_, uint32_t(addr_len), emulated_atomics_ ? blob_emulated_atomics : 0u,
                  uint64_t(uintptr_t(seg_base_))};
    blob.assign(sizeof h + nendpoints_ * (sizeof(uint64_t) + addr_len), 0);
    memcpy(blob.data(), &h, sizeof h);
    uint8_t *p = blob.data() + sizeof h;
    for (unsigned i = 0; i < nendpoints_; ++i, p += sizeof(uint64_t)) {
        uint64_t key = seg_keys_[seg_keys_.size() == 1 ? 0 : i];
        memcpy(p, &key, sizeof key);
    }
    for (unsigned i = 0; i < nendpoints_; ++i, p += addr_len) memcpy(p, names[i].data(), names[i].size());
    return PGDDS_OK;
}

// Emulated atomics are executed by the target's progress with CPU atomics (serve_amo_request).
// ofi_rxm serves fi_atomic the same way: its receiver applies libfabric's ofi_atomic handlers to
// the registered memory (rxm_handle_atomic_req -> rxm_do_atomic), and those are __atomic
// builtins in builds with HAVE_BUILTIN_MM_ATOMICS, as Debian's libfabric 1.17 is (it imports
// libatomic's 16-byte __atomic_fetch_or/and/xor, which only that branch uses). Checked for rxm
// over tcp only; other providers keep transport atomics everywhere.
bool transport_ofi::atomics_on_target_cpu() const
{
    return emulated_atomics_ || name_ == "ofi/tcp;ofi_rxm";
}

status transport_ofi::connect(const std::vector<std::vector<uint8_t>> &peers)
{
    if (!opened()) return fail(PGDDS_ERR_STATE, "ofi: connect before open");
    if (peers.size() != size_t(nranks_))
        return fail(PGDDS_ERR_INVALID_ARG, "ofi: connection data of %zu ranks for a job of %d", peers.size(), nranks_);
    const size_t n = size_t(nranks_) * nendpoints_;
    peer_base_.assign(size_t(nranks_), 0);
    peer_keys_.assign(n, 0);
    peer_addrs_.assign(n, FI_ADDR_NOTAVAIL);
    for (int r = 0; r < nranks_; ++r) {
        const std::vector<uint8_t> &b = peers[r];
        blob_header h{};
        if (b.size() >= sizeof h) memcpy(&h, b.data(), sizeof h);
        if (b.size() < sizeof h || h.magic != blob_magic || h.endpoints != nendpoints_ || h.addr_len == 0 ||
            b.size() != sizeof h + size_t(nendpoints_) * (sizeof(uint64_t) + h.addr_len))
            return fail(PGDDS_ERR_TRANSPORT, "ofi: rank %d's connection data is malformed (%zu bytes; expected "
                        "%u endpoints)", r, b.size(), nendpoints_);
        if (bool(h.flags & blob_emulated_atomics) != emulated_atomics_)
            return fail(PGDDS_ERR_STARTUP, "ofi: rank %d %s atomics but rank %d %s them; every rank must use "
                        "the same provider", r, emulated_atomics_ ? "has native" : "emulates", rank_,
                        emulated_atomics_ ? "emulates" : "has native");
        peer_base_[r] = h.base;
        const uint8_t *p = b.data() + sizeof h;
        memcpy(&peer_keys_[size_t(r) * nendpoints_], p, nendpoints_ * sizeof(uint64_t));
        p += nendpoints_ * sizeof(uint64_t);
        for (unsigned i = 0; i < nendpoints_; ++i, p += h.addr_len) {
            int rc = fi_av_insert(eps_[i]->av, p, 1, &peer_addrs_[size_t(r) * nendpoints_ + i], 0, nullptr);
            if (rc != 1)
                return call_failed(PGDDS_ERR_TRANSPORT, rc < 0 ? rc : -FI_EINVAL,
                                   "inserting rank %d's address of VCI %u", r, i);
        }
    }
    return PGDDS_OK;
}

void transport_ofi::close()
{
    // Reverse order of creation. Closing the endpoints also removes the shm provider's files.
    for (fid_mr *mr : seg_mrs_) fi_close(&mr->fid);
    seg_mrs_.clear();
    seg_keys_.clear();
    for (auto it = eps_.rbegin(); it != eps_.rend(); ++it) {
        endpoint &e = **it;
        if (e.ep) fi_close(&e.ep->fid);
        for (op_record &rec : e.records)
            if (rec.reg) release_registration(rec.reg);
        for (rma_chunk &c : e.backlog)
            if (c.reg) release_registration(c.reg);
        if (e.arena_mr) fi_close(&e.arena_mr->fid);
        if (e.cq) fi_close(&e.cq->fid);
        if (e.arena) munmap(e.arena, e.arena_bytes);
    }
    eps_.clear();
    for (fid_av *av : avs_) fi_close(&av->fid);
    for (fid_domain *domain : domains_) fi_close(&domain->fid);
    avs_.clear();
    domains_.clear();
    if (fabric_) fi_close(&fabric_->fid);
    if (info_) fi_freeinfo(info_);
    fabric_ = nullptr;
    info_ = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Helpers of the data path
// ---------------------------------------------------------------------------------------------
uint64_t transport_ofi::remote_address(int rank, uint64_t offset) const
{
    return (mr_mode_ & FI_MR_VIRT_ADDR) ? peer_base_[rank] + offset : offset;
}

uint64_t transport_ofi::remote_key(int rank, unsigned vci) const { return peer_keys_[size_t(rank) * nendpoints_ + vci]; }

fi_addr_t transport_ofi::peer_address(int rank, unsigned vci) const
{
    return peer_addrs_[size_t(rank) * nendpoints_ + vci];
}

void *transport_ofi::segment_descriptor(unsigned vci) const
{
    return seg_mrs_.empty() ? nullptr : fi_mr_desc(seg_mrs_[seg_mrs_.size() == 1 ? 0 : vci]);
}

bool transport_ofi::in_segment(const void *p, size_t n) const
{
    auto *b = static_cast<const uint8_t *>(p);
    return seg_base_ && b >= seg_base_ && n <= seg_size_ && size_t(b - seg_base_) <= seg_size_ - n;
}

status transport_ofi::op_failed(ssize_t rc, const char *what, int rank, size_t n, unsigned vci) const
{
    int err = int(-rc);
    if (is_peer_failure(err))
        return fail(PGDDS_ERR_PEER_FAILED, "ofi: rank %d is unreachable: %s of %zu bytes on VCI %u failed: %s", rank,
                    what, n, vci, fi_strerror(err));
    return fail(PGDDS_ERR_TRANSPORT, "ofi: %s of %zu bytes to rank %d on VCI %u failed: %s (%d)", what, n, rank, vci,
                fi_strerror(err), -err);
}

transport_ofi::op_record *transport_ofi::take_record(endpoint &e)
{
    if (e.free_records.empty()) return nullptr;
    op_record &rec = e.records[e.free_records.back()];
    e.free_records.pop_back();
    ++rec.generation;
    return &rec;
}

void transport_ofi::release_record(endpoint &e, op_record &rec)
{
    rec.kind = op_kind::free;
    rec.counted = false;
    rec.rank = rec.slot = rec.linked = -1;
    rec.done = nullptr;
    rec.result = nullptr;
    rec.length = 0;
    rec.reg = nullptr;
    e.free_records.push_back(rec.index);
}

status transport_ofi::register_local(void *buf, size_t len, unsigned vci, registration *&out)
{
    auto *reg = new (std::nothrow) registration();
    if (!reg) return fail(PGDDS_ERR_NO_MEMORY, "ofi: out of host memory for a registration");
    int rc = fi_mr_reg(eps_[vci]->domain, buf, len, FI_READ | FI_WRITE, 0, next_key_++, 0, &reg->mr, nullptr);
    if (rc) {
        delete reg;
        return call_failed(PGDDS_ERR_TRANSPORT, rc, "registering %zu bytes of local memory at %p", len, buf);
    }
    status st = bind_mr(reg->mr, vci, "a local buffer");
    if (st != PGDDS_OK) {
        fi_close(&reg->mr->fid);
        delete reg;
        return st;
    }
    reg->desc = fi_mr_desc(reg->mr);
    reg->refs = 1;
    out = reg;
    return PGDDS_OK;
}

void transport_ofi::release_registration(registration *reg)
{
    if (--reg->refs) return;
    fi_close(&reg->mr->fid);
    delete reg;
}

void transport_ofi::mark_dirty(endpoint &e, int rank, uint8_t what)
{
    if (!e.dirty[rank]) e.dirty_ranks.push_back(rank);
    e.dirty[rank] |= what;
}

// The end of a counted or uncounted operation: its completion, its resources, its record.
void transport_ofi::finish(endpoint &e, op_record &rec, status st)
{
    if (rec.done) rec.done->complete(st);
    else e.deferred.keep(st);
    if (rec.reg) release_registration(rec.reg);
    if (rec.slot >= 0) e.free_slots.push_back(uint32_t(rec.slot));
    if (rec.counted) --e.outstanding;
    release_record(e, rec);
}

void transport_ofi::complete_flushes(endpoint &e)
{
    if (e.flushes.empty() || e.outstanding || !e.backlog.empty()) return;
    status st = e.deferred.take();
    for (op_completion *d : e.flushes) d->complete(st);
    e.flushes.clear();
}

// ---------------------------------------------------------------------------------------------
// Put and get
// ---------------------------------------------------------------------------------------------
status transport_ofi::put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n, op_completion *done)
{
    endpoint &e = *eps_[vci];
    if (n == 0) {
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    if (n <= inject_size_ && n <= max_transfer_ && !delivery_complete_puts_) {
        ssize_t rc = fi_inject_write(e.ep, src, n, peer_address(rank, vci), remote_address(rank, offset),
                                     remote_key(rank, vci));
        if (rc == -FI_EAGAIN) return PGDDS_ERR_AGAIN;
        if (rc) return op_failed(rc, "fi_inject_write", rank, n, vci);
        mark_dirty(e, rank, dirty_rma);
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    return start_rma(vci, true, rank, offset, static_cast<uint8_t *>(const_cast<void *>(src)), n, done);
}

status transport_ofi::get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n, op_completion *done)
{
    if (n == 0) {
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    return start_rma(vci, false, rank, offset, static_cast<uint8_t *>(dst), n, done);
}

// Issues a transfer in chunks of at most max_transfer_ bytes. Once the first chunk is issued the
// operation belongs to the backend: chunks without room wait in the backlog, and failures reach
// `done` (or the next flush), never the caller, who must not stop waiting for what is in flight.
status transport_ofi::start_rma(unsigned vci, bool write, int rank, uint64_t offset, uint8_t *local, size_t n,
                                op_completion *done)
{
    endpoint &e = *eps_[vci];
    const size_t chunks = (n - 1) / max_transfer_ + 1;
    rma_chunk c{write, false, rank, offset, local, std::min(n, max_transfer_), nullptr, nullptr, done};
    if (in_segment(local, n)) {
        c.desc = segment_descriptor(vci);
    } else if (local_mr_) {
        if (chunks == 1 && n <= e.slot_bytes) {
            c.bounce = true;
        } else {
            status st = register_local(local, n, vci, c.reg);
            if (st != PGDDS_OK) return st;
            c.reg->refs = chunks;
            c.desc = c.reg->desc;
        }
    }
    status st = issue_chunk(e, vci, c);
    if (st != PGDDS_OK) {
        if (c.reg) {
            c.reg->refs = 1;
            release_registration(c.reg);
        }
        return st;
    }
    if (chunks == 1) return PGDDS_OK;
    if (done) done->add(int(chunks - 1));
    for (size_t off = max_transfer_; off < n; off += max_transfer_) {
        rma_chunk next = c;
        next.offset = offset + off;
        next.local = local + off;
        next.len = std::min(max_transfer_, n - off);
        if (e.backlog.empty() && issue_chunk(e, vci, next) == PGDDS_OK) continue;
        e.backlog.push_back(next);
    }
    return PGDDS_OK;
}

status transport_ofi::issue_chunk(endpoint &e, unsigned vci, const rma_chunk &c)
{
    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    uint8_t *buf = c.local;
    void *desc = c.desc;
    if (c.bounce) {
        if (e.free_slots.empty()) {
            release_record(e, *rec);
            return PGDDS_ERR_AGAIN;
        }
        rec->slot = int(e.free_slots.back());
        e.free_slots.pop_back();
        buf = e.send_slot(size_t(rec->slot));
        desc = e.arena_desc;
        if (c.write) {
            memcpy(buf, c.local, c.len);
        } else {
            rec->result = c.local;
            rec->length = c.len;
        }
    }
    iovec iov{buf, c.len};
    fi_rma_iov riov{remote_address(c.rank, c.offset), c.len, remote_key(c.rank, vci)};
    fi_msg_rma msg{&iov, &desc, 1, peer_address(c.rank, vci), &riov, 1, &rec->context, 0};
    uint64_t flags = FI_COMPLETION;
    if (c.write && delivery_complete_puts_) flags |= FI_DELIVERY_COMPLETE;
    ssize_t rc = c.write ? fi_writemsg(e.ep, &msg, flags) : fi_readmsg(e.ep, &msg, flags);
    if (rc) {
        if (rec->slot >= 0) e.free_slots.push_back(uint32_t(rec->slot));
        release_record(e, *rec);
        return rc == -FI_EAGAIN ? PGDDS_ERR_AGAIN : op_failed(rc, c.write ? "fi_writemsg" : "fi_readmsg", c.rank, c.len, vci);
    }
    track(e, *rec, c.write ? op_kind::write : op_kind::read, c.rank, c.done);
    rec->reg = c.reg;
    if (c.write && !delivery_complete_puts_) mark_dirty(e, c.rank, dirty_rma);
    return PGDDS_OK;
}

// ---------------------------------------------------------------------------------------------
// Atomics
// ---------------------------------------------------------------------------------------------
status transport_ofi::amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done)
{
    if ((args.width != 4 && args.width != 8) || args.op < AMO_ADD || args.op >= AMO_COUNT)
        return fail(PGDDS_ERR_INVALID_ARG, "ofi: atomic %d of width %u is not supported", int(args.op), args.width);
    endpoint &e = *eps_[vci];
    return emulated_atomics_ ? amo_emulated(e, vci, rank, offset, args, done)
                             : amo_native(e, vci, rank, offset, args, done);
}

status transport_ofi::amo_native(endpoint &e, unsigned vci, int rank, uint64_t offset, const amo_args &args,
                                 op_completion *done)
{
    static const fi_op ops[AMO_COUNT] = {FI_SUM, FI_BAND, FI_BOR, FI_BXOR, FI_ATOMIC_WRITE, FI_CSWAP, FI_ATOMIC_READ};
    const fi_datatype dt = args.width == 4 ? FI_UINT32 : FI_UINT64;
    const fi_op op = ops[args.op];
    const bool fetching = args.result || args.op == AMO_CSWAP || args.op == AMO_LOAD;
    const fi_addr_t addr = peer_address(rank, vci);
    const uint64_t raddr = remote_address(rank, offset), key = remote_key(rank, vci);
    const uint32_t operand32 = uint32_t(args.operand), compare32 = uint32_t(args.compare);
    const void *operand = args.width == 4 ? static_cast<const void *>(&operand32) : &args.operand;

    if (!fetching && !delivery_complete_amos_) {
        ssize_t rc = fi_inject_atomic(e.ep, operand, 1, addr, raddr, key, dt, op);
        if (rc == -FI_EAGAIN) return PGDDS_ERR_AGAIN;
        if (rc) return op_failed(rc, "fi_inject_atomic", rank, args.width, vci);
        mark_dirty(e, rank, dirty_amo);
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }

    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    memcpy(&rec->scratch[0], operand, args.width);
    memcpy(&rec->scratch[1], args.width == 4 ? static_cast<const void *>(&compare32) : &args.compare, args.width);
    void *desc = e.arena_desc;
    fi_ioc ioc{&rec->scratch[0], 1}, compare{&rec->scratch[1], 1}, result{&rec->scratch[2], 1};
    fi_rma_ioc rioc{raddr, 1, key};
    fi_msg_atomic msg{&ioc, &desc, 1, addr, &rioc, 1, dt, op, &rec->context, 0};
    // A non-fetching atomic comes this way only to be delivery-complete.
    uint64_t flags = FI_COMPLETION | (fetching ? 0 : FI_DELIVERY_COMPLETE);
    ssize_t rc = args.op == AMO_CSWAP ? fi_compare_atomicmsg(e.ep, &msg, &compare, &desc, 1, &result, &desc, 1, flags)
               : fetching             ? fi_fetch_atomicmsg(e.ep, &msg, &result, &desc, 1, flags)
                                      : fi_atomicmsg(e.ep, &msg, flags);
    if (rc) {
        release_record(e, *rec);
        return rc == -FI_EAGAIN ? PGDDS_ERR_AGAIN : op_failed(rc, "an atomic", rank, args.width, vci);
    }
    track(e, *rec, fetching ? op_kind::fetch : op_kind::atomic, rank, done);
    rec->result = args.result;
    rec->length = args.width;
    return PGDDS_OK;
}

// Emulation: the target executes a CPU atomic on its own segment and replies, so every atomic
// of the job lives in one atomicity domain, the targets' CPUs. Atomics on our own segment take
// the same loopback path: done at once, they would complete without progress, and a rank
// spinning on its own word would never serve its peers' requests.
status transport_ofi::amo_emulated(endpoint &e, unsigned vci, int rank, uint64_t offset, const amo_args &args,
                                   op_completion *done)
{
    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    amo_request req{uint32_t(args.op), args.width, offset, args.operand, args.compare,
                    uint64_t(rec->generation) << 32 | rec->index};
    op_record *carrier = nullptr;
    status st = send_message(e, vci, rank, msg_amo_request, &req, sizeof req, &carrier);
    if (st != PGDDS_OK) {
        release_record(e, *rec);
        return st;
    }
    if (carrier) carrier->linked = int(rec->index);
    track(e, *rec, op_kind::remote_amo, rank, done);
    rec->result = args.result;
    rec->length = args.width;
    return PGDDS_OK;
}

void transport_ofi::serve_amo_request(endpoint &e, unsigned vci, int src, const uint8_t *body, size_t len)
{
    amo_request req;
    if (len != sizeof req || src < 0 || src >= nranks_) {
        PGDDS_LOG(LOG_ERROR, "ofi: dropped a malformed atomic request (%zu bytes from rank %d)", len, src);
        return;
    }
    memcpy(&req, body, sizeof req);
    pending_reply out{src, amo_reply{req.id, 0, PGDDS_OK, 0}};
    if ((req.width != 4 && req.width != 8) || req.op >= AMO_COUNT || req.offset > seg_size_ ||
        seg_size_ - req.offset < req.width || req.offset % req.width) {
        out.reply.status = PGDDS_ERR_OUT_OF_BOUNDS;
    } else {
        amo_args a{amo_op(req.op), req.width, req.operand, req.compare, &out.reply.value};
        cpu_amo(seg_base_ + req.offset, a);
    }
    if (e.replies.empty()) {
        status st = send_message(e, vci, src, msg_amo_reply, &out.reply, sizeof out.reply, nullptr);
        if (st == PGDDS_OK) return;
        if (st != PGDDS_ERR_AGAIN) {
            PGDDS_LOG(LOG_ERROR, "ofi: cannot answer rank %d's atomic: %s", src, pgdds_last_error());
            return;
        }
    }
    e.replies.push_back(out);
}

void transport_ofi::take_amo_reply(endpoint &e, const uint8_t *body, size_t len)
{
    amo_reply rep;
    if (len != sizeof rep) {
        PGDDS_LOG(LOG_ERROR, "ofi: dropped a malformed atomic reply (%zu bytes)", len);
        return;
    }
    memcpy(&rep, body, sizeof rep);
    uint32_t index = uint32_t(rep.id), generation = uint32_t(rep.id >> 32);
    if (index >= e.records.size() || e.records[index].kind != op_kind::remote_amo ||
        e.records[index].generation != generation) {
        PGDDS_LOG(LOG_ERROR, "ofi: dropped a reply to no atomic in flight (id %#llx)", (unsigned long long)rep.id);
        return;
    }
    op_record &rec = e.records[index];
    status st = PGDDS_OK;
    if (rep.status != PGDDS_OK)
        st = fail(PGDDS_ERR_OUT_OF_BOUNDS, "ofi: rank %d refused an emulated atomic: the target lies outside its "
                  "segment", rec.rank);
    else if (rec.result)
        memcpy(rec.result, &rep.value, rec.length);
    finish(e, rec, st);
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------
size_t transport_ofi::am_max_packet() const { return packet_bytes_ - sizeof(wire_header); }

status transport_ofi::am_send(unsigned vci, int rank, const void *packet, size_t len)
{
    if (len > am_max_packet())
        return fail(PGDDS_ERR_INVALID_ARG, "ofi: a packet of %zu bytes exceeds the %zu this transport carries", len,
                    am_max_packet());
    return send_message(*eps_[vci], vci, rank, msg_am, packet, len, nullptr);
}

// Sends wire header + body: injected when small enough, else from a send slot released at
// completion (`carrier` then names the slot's record).
status transport_ofi::send_message(endpoint &e, unsigned vci, int rank, uint32_t kind, const void *body, size_t len,
                                   op_record **carrier)
{
    wire_header h{kind, rank_};
    const size_t total = sizeof h + len;
    if (total <= inject_size_) {
        memcpy(e.staging.data(), &h, sizeof h);
        if (len) memcpy(e.staging.data() + sizeof h, body, len);
        ssize_t rc = fi_inject(e.ep, e.staging.data(), total, peer_address(rank, vci));
        if (rc == -FI_EAGAIN) return PGDDS_ERR_AGAIN;
        return rc ? op_failed(rc, "fi_inject", rank, total, vci) : PGDDS_OK;
    }
    if (e.free_slots.empty()) return PGDDS_ERR_AGAIN;
    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    uint32_t slot = e.free_slots.back();
    uint8_t *buf = e.send_slot(slot);
    memcpy(buf, &h, sizeof h);
    if (len) memcpy(buf + sizeof h, body, len);
    ssize_t rc = fi_send(e.ep, buf, total, e.arena_desc, peer_address(rank, vci), &rec->context);
    if (rc) {
        release_record(e, *rec);
        return rc == -FI_EAGAIN ? PGDDS_ERR_AGAIN : op_failed(rc, "fi_send", rank, total, vci);
    }
    e.free_slots.pop_back();
    rec->kind = op_kind::send;
    rec->rank = rank;
    rec->slot = int(slot);
    if (carrier) *carrier = rec;
    return PGDDS_OK;
}

void transport_ofi::handle_message(endpoint &e, unsigned vci, const uint8_t *msg, size_t len)
{
    wire_header h;
    if (len < sizeof h) {
        PGDDS_LOG(LOG_ERROR, "ofi: dropped a truncated message (%zu bytes) on VCI %u", len, vci);
        return;
    }
    memcpy(&h, msg, sizeof h);
    const uint8_t *body = msg + sizeof h;
    const size_t body_len = len - sizeof h;
    switch (h.kind) {
    case msg_am: rt_->am_incoming(vci, body, body_len); break;
    case msg_amo_request: serve_amo_request(e, vci, h.src, body, body_len); break;
    case msg_amo_reply: take_amo_reply(e, body, body_len); break;
    default: PGDDS_LOG(LOG_ERROR, "ofi: dropped a message of unknown kind %u from rank %d", h.kind, h.src); break;
    }
}

// ---------------------------------------------------------------------------------------------
// Flush and progress
// ---------------------------------------------------------------------------------------------
status transport_ofi::issue_probe(endpoint &e, unsigned vci, int rank, bool atomic)
{
    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    void *desc = e.arena_desc;
    // The first page of every segment is reserved and never changes: a harmless word to read.
    const fi_addr_t addr = peer_address(rank, vci);
    const uint64_t raddr = remote_address(rank, 0), key = remote_key(rank, vci);
    ssize_t rc = atomic ? fi_fetch_atomic(e.ep, &rec->scratch[0], 1, desc, &rec->scratch[2], desc, addr, raddr, key,
                                          FI_UINT64, FI_ATOMIC_READ, &rec->context)
                        : fi_read(e.ep, &rec->scratch[2], sizeof(uint64_t), desc, addr, raddr, key, &rec->context);
    if (rc) {
        release_record(e, *rec);
        return rc == -FI_EAGAIN ? PGDDS_ERR_AGAIN : op_failed(rc, "a flush read-back", rank, sizeof(uint64_t), vci);
    }
    track(e, *rec, op_kind::probe, rank, nullptr);
    return PGDDS_OK;
}

status transport_ofi::flush(unsigned vci, op_completion *done)
{
    endpoint &e = *eps_[vci];
    // Read-backs must follow every chunk of earlier transfers.
    if (status st = issue_backlog(e, vci); st != PGDDS_OK) return st;
    while (!e.dirty_ranks.empty()) {
        int r = e.dirty_ranks.back();
        for (uint8_t what : {dirty_rma, dirty_amo}) {
            if (!(e.dirty[r] & what)) continue;
            status st = issue_probe(e, vci, r, what == dirty_amo);
            if (st != PGDDS_OK) return st;
            e.dirty[r] &= uint8_t(~what);
        }
        e.dirty_ranks.pop_back();
    }
    e.flushes.push_back(done);
    complete_flushes(e);
    return PGDDS_OK;
}

// Work the provider had no room for: receive buffers to post again, atomic replies, chunks.
status transport_ofi::drain_backlogs(endpoint &e, unsigned vci)
{
    while (!e.unposted.empty()) {
        uint32_t s = e.unposted.back();
        ssize_t rc = fi_recv(e.ep, e.recv_slot(s), e.slot_bytes, e.arena_desc, FI_ADDR_UNSPEC, &e.receives[s].context);
        if (rc == -FI_EAGAIN) break;
        if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "posting a receive buffer on VCI %u", vci);
        e.unposted.pop_back();
    }
    while (!e.replies.empty()) {
        pending_reply &p = e.replies.front();
        status st = send_message(e, vci, p.rank, msg_amo_reply, &p.reply, sizeof p.reply, nullptr);
        if (st == PGDDS_ERR_AGAIN) break;
        if (st != PGDDS_OK) PGDDS_LOG(LOG_ERROR, "ofi: cannot answer rank %d's atomic: %s", p.rank, pgdds_last_error());
        e.replies.pop_front();
    }
    while (!e.backlog.empty()) {
        rma_chunk &c = e.backlog.front();
        status st = issue_chunk(e, vci, c);
        if (st == PGDDS_ERR_AGAIN) break;
        if (st != PGDDS_OK) {
            if (c.done) c.done->complete(st);
            else e.deferred.keep(st);
            if (c.reg) release_registration(c.reg);
        }
        e.backlog.pop_front();
    }
    return PGDDS_OK;
}

status transport_ofi::handle_completion(endpoint &e, unsigned vci, op_record &rec, size_t len)
{
    switch (rec.kind) {
    case op_kind::recv: {
        uint32_t s = uint32_t(rec.slot);
        handle_message(e, vci, e.recv_slot(s), len);
        ssize_t rc = fi_recv(e.ep, e.recv_slot(s), e.slot_bytes, e.arena_desc, FI_ADDR_UNSPEC, &rec.context);
        if (rc == -FI_EAGAIN) e.unposted.push_back(s);
        else if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "posting a receive buffer on VCI %u", vci);
        return PGDDS_OK;
    }
    case op_kind::read:
        if (rec.slot >= 0) memcpy(rec.result, e.send_slot(size_t(rec.slot)), rec.length);
        break;
    case op_kind::fetch:
        if (rec.result) memcpy(rec.result, &rec.scratch[2], rec.length);
        break;
    case op_kind::free:
    case op_kind::remote_amo:
        PGDDS_LOG(LOG_ERROR, "ofi: a completion for no operation in flight on VCI %u", vci);
        return PGDDS_OK;
    default: break;
    }
    finish(e, rec, PGDDS_OK);
    return PGDDS_OK;
}

status transport_ofi::handle_error(endpoint &e, unsigned vci)
{
    fi_cq_err_entry err{};
    ssize_t rc = fi_cq_readerr(e.cq, &err, 0);
    if (rc == -FI_EAGAIN) return PGDDS_OK;
    if (rc < 0) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_cq_readerr on VCI %u", vci);
    char prov_text[256] = "";
    const char *prov = fi_cq_strerror(e.cq, err.prov_errno, err.err_data, prov_text, sizeof prov_text);
    if (!prov) prov = "";
    auto *rec = static_cast<op_record *>(err.op_context);
    if (!rec)
        return fail(PGDDS_ERR_TRANSPORT, "ofi: an operation on VCI %u failed: %s (provider: %s)", vci,
                    fi_strerror(err.err), prov);
    if (rec->kind == op_kind::recv) {
        if (err.err == FI_ECANCELED) return PGDDS_OK;
        e.unposted.push_back(uint32_t(rec->slot));
        return fail(PGDDS_ERR_TRANSPORT, "ofi: a receive on VCI %u failed: %s (provider: %s)", vci, fi_strerror(err.err),
                    prov);
    }
    status st = is_peer_failure(err.err)
        ? fail(PGDDS_ERR_PEER_FAILED, "ofi: rank %d is unreachable: %s on VCI %u failed: %s (provider: %s)", rec->rank,
               kind_name(rec->kind), vci, fi_strerror(err.err), prov)
        : fail(PGDDS_ERR_TRANSPORT, "ofi: %s to rank %d on VCI %u failed: %s (provider: %s)", kind_name(rec->kind),
               rec->rank, vci, fi_strerror(err.err), prov);
    if (rec->linked >= 0) finish(e, e.records[size_t(rec->linked)], st);
    finish(e, *rec, st);
    return PGDDS_OK;
}

status transport_ofi::progress(unsigned vci)
{
    endpoint &e = *eps_[vci];
    status st = drain_backlogs(e, vci);
    if (st != PGDDS_OK) return st;
    fi_cq_msg_entry entries[cq_batch];
    for (int round = 0; round < 4; ++round) {
        ssize_t n = fi_cq_read(e.cq, entries, cq_batch);
        if (n == -FI_EAGAIN) break;
        if (n == -FI_EAVAIL) {
            st = handle_error(e, vci);
            if (st != PGDDS_OK) return st;
            continue;
        }
        if (n < 0) return call_failed(PGDDS_ERR_TRANSPORT, n, "fi_cq_read on VCI %u", vci);
        for (ssize_t i = 0; i < n; ++i) {
            if (!entries[i].op_context) continue;
            st = handle_completion(e, vci, *static_cast<op_record *>(entries[i].op_context), entries[i].len);
            if (st != PGDDS_OK) return st;
        }
        if (n < cq_batch) break;
    }
    complete_flushes(e);
    return PGDDS_OK;
}

status transport_create_ofi(std::unique_ptr<transport> &out)
{
    out.reset(new (std::nothrow) transport_ofi());
    return out ? PGDDS_OK : fail(PGDDS_ERR_NO_MEMORY, "ofi: out of host memory");
}

}  // namespace pgdds
