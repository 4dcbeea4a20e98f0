#include "ofi_internal.h"

#include "../shm/shm.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>

namespace pgdds {

namespace {

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

}  // namespace

// ---------------------------------------------------------------------------------------------
// Provider selection
// ---------------------------------------------------------------------------------------------
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

// The provider's atomics, or none (the core's software atomics then serve every one):
// atomics_missing decides, unless PGDDS_OFI_ATOMICS says otherwise.
status transport_ofi::validate_atomics()
{
    const int wanted = host_ ? parse_choice(host_->setting("ATOMICS").c_str(), "auto|native|emulated") : 0;  // PGDDS_OFI_ATOMICS
    if (wanted == 2) {
        emulated_atomics_ = true;
        atomics_note_ = "emulated (active messages), as PGDDS_OFI_ATOMICS asks";
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
    if (ofi_library_open() != PGDDS_OK) {
        out.push_back({"", 0, "", "", pgdds_last_error()});
        return;
    }
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

}  // namespace pgdds
