#include "verbs_internal.h"

#include "../../base/log.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <unistd.h>

namespace pgdds {

namespace {
void *alloc_pages(size_t bytes)
{
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    void *p = aligned_alloc(page, (bytes + page - 1) / page * page);
    if (p) memset(p, 0, bytes);
    return p;
}
}  // namespace

transport_verbs::~transport_verbs() { close(); }

transport_caps transport_verbs::caps() const
{
    transport_caps c;
    c.needs_target_progress = false;  // RMA and atomics run on the HCA; only active messages need the target
    c.one_sided_rma = true;
    c.amo_ops[0] = c.amo_ops[1] = amo_all_ops;  // on the HCA: its CAS loops stay in its domain
    c.amo_domain = atomicity_domain::nic;
    c.atomics = "native 64-bit compare-and-swap and fetch-and-add; other and 32-bit operations as compare-and-swap loops";
    return c;
}

// ---------------------------------------------------------------------------------------------
// Set-up
// ---------------------------------------------------------------------------------------------
status transport_verbs::open(transport_host &host)
{
    host_ = &host;
    status st = open_device();
    for (unsigned i = 0; st == PGDDS_OK && i < host.endpoints(); ++i) st = create_vci(i);
    if (st != PGDDS_OK) close();
    return st;
}

// pgdds-info: every RDMA device and port ibv_get_device_list finds, with its state and
// atomics; a job runs over the first ACTIVE port of a device with atomics (or PGDDS_VERBS_DEVICE).
void transport_verbs::probe(std::vector<transport_probe_entry> &out) const
{
    int num = 0;
    ibv_device **list = ibv_get_device_list(&num);
    if (!list || num == 0) {
        int e = errno;
        if (list) ibv_free_device_list(list);
        out.push_back({"", 0, "", "",
                       std::string("no RDMA device: ibv_get_device_list found none") + (list ? "" : ": ") +
                           (list ? "" : strerror(e)) + "; /dev/infiniband " +
                           (access("/dev/infiniband", F_OK) == 0 ? "exists" : "does not exist")});
        return;
    }
    out.push_back({"", 1, "", "", std::to_string(num) + " RDMA device" + (num == 1 ? "" : "s")});
    for (int i = 0; i < num; ++i) {
        const std::string dn = ibv_get_device_name(list[i]);
        ibv_context *c = ibv_open_device(list[i]);
        ibv_device_attr da;
        if (!c || ibv_query_device(c, &da) != 0) {
            out.push_back({dn, 0, "", "", std::string("cannot open or query: ") + strerror(errno)});
            if (c) ibv_close_device(c);
            continue;
        }
        const bool atomics = da.atomic_cap != IBV_ATOMIC_NONE;
        for (int p = 1; p <= da.phys_port_cnt; ++p) {
            ibv_port_attr pa;
            if (ibv_query_port(c, uint8_t(p), &pa) != 0) continue;
            const bool active = pa.state == IBV_PORT_ACTIVE;
            std::string detail = std::string("port ") + ibv_port_state_str(pa.state) + "; link layer " +
                                 (pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet (RoCE)" : "InfiniBand") +
                                 "; active MTU " + std::to_string(128 << pa.active_mtu) + " B; max " +
                                 std::to_string(da.max_qp) + " QPs";
            if (!atomics) detail += "; the device offers no RDMA atomics";
            out.push_back({dn + ":" + std::to_string(p), active && atomics ? 1 : 0, atomics ? "native" : "none", "auto",
                           detail});
        }
        ibv_close_device(c);
    }
    ibv_free_device_list(list);
}

status transport_verbs::open_device()
{
    verbs::device_spec spec;
    const std::string &wanted = host_->setting("DEVICE");
    if (!verbs::parse_device_spec(wanted, spec))
        return fail(PGDDS_ERR_INVALID_ARG, "verbs: PGDDS_VERBS_DEVICE=\"%s\" is not \"device\" or \"device:port\"",
                    wanted.c_str());
    std::string looked_for = spec.name.empty() ? std::string("any device with an ACTIVE port")
                                               : "PGDDS_VERBS_DEVICE=" + wanted;
    int num = 0;
    ibv_device **list = ibv_get_device_list(&num);
    if (!list || num == 0) {
        int e = errno;
        if (list) ibv_free_device_list(list);
        return fail(PGDDS_ERR_UNSUPPORTED,
                    "verbs: no RDMA device was found (looked for %s; ibv_get_device_list found none%s%s; "
                    "/dev/infiniband %s)",
                    looked_for.c_str(), list ? "" : ": ", list ? "" : strerror(e),
                    access("/dev/infiniband", F_OK) == 0 ? "exists" : "does not exist");
    }
    std::string names, why;
    ibv_port_attr chosen{};
    int chosen_port = 0;
    for (int i = 0; i < num && !ctx_; ++i) {
        std::string dn = ibv_get_device_name(list[i]);
        names += (names.empty() ? "" : ", ") + dn;
        if (!spec.name.empty() && spec.name != dn) continue;
        ibv_context *c = ibv_open_device(list[i]);
        if (!c) {
            why += "; " + dn + ": cannot open (" + strerror(errno) + ")";
            continue;
        }
        ibv_device_attr da;
        if (ibv_query_device(c, &da) == 0) {
            int first = spec.port ? spec.port : 1, last = spec.port ? spec.port : da.phys_port_cnt;
            for (int p = first; p <= last && !ctx_; ++p) {
                ibv_port_attr pa;
                if (p > da.phys_port_cnt || ibv_query_port(c, uint8_t(p), &pa) != 0) {
                    why += "; " + dn + ":" + std::to_string(p) + " does not exist";
                    continue;
                }
                if (pa.state != IBV_PORT_ACTIVE) {
                    why += "; " + dn + ":" + std::to_string(p) + " is " + ibv_port_state_str(pa.state);
                    continue;
                }
                ctx_ = c;
                chosen = pa;
                chosen_port = p;
                device_ = dn + ":" + std::to_string(p);
            }
        }
        if (!ctx_) ibv_close_device(c);
    }
    ibv_free_device_list(list);
    if (!ctx_)
        return fail(PGDDS_ERR_UNSUPPORTED, "verbs: no usable RDMA port (looked for %s; devices: %s%s)", looked_for.c_str(),
                    names.c_str(), why.c_str());

    ibv_device_attr da;
    if (ibv_query_device(ctx_, &da) != 0)
        return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot query %s: %s", device_.c_str(), strerror(errno));
    if (da.atomic_cap == IBV_ATOMIC_NONE)
        return fail(PGDDS_ERR_UNSUPPORTED, "verbs: %s offers no RDMA atomics", device_.c_str());
    verbs::device_limits lim;
    lim.max_qp_wr = uint32_t(da.max_qp_wr);
    lim.max_cqe = uint32_t(da.max_cqe);
    lim.max_srq_wr = uint32_t(da.max_srq_wr);
    lim.max_qp_rd_atom = uint32_t(da.max_qp_rd_atom);
    lim.max_qp_init_rd_atom = uint32_t(da.max_qp_init_rd_atom);
    status st = verbs::plan_resources(lim, host_->nranks(), plan_);
    if (st != PGDDS_OK) return st;

    port_.port = uint8_t(chosen_port);
    port_.lid = chosen.lid;
    port_.link_layer = chosen.link_layer == IBV_LINK_LAYER_ETHERNET ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
    port_.mtu = uint8_t(chosen.active_mtu);
    // Larger transfers are split; a WR's length field has 32 bits.
    max_msg_ = chosen.max_msg_sz ? std::min<uint64_t>(chosen.max_msg_sz, uint64_t(1) << 30) : uint64_t(1) << 30;
    // The GID: on RoCE the first RoCE v2 entry (else the first valid one), on InfiniBand the
    // first valid one, for routing through a GRH when there is no LID.
    int gid_index = -1;
    bool preferred = false;
    for (int i = 0; i < chosen.gid_tbl_len && !preferred; ++i) {
        ibv_gid_entry e;
        if (ibv_query_gid_ex(ctx_, uint32_t(chosen_port), uint32_t(i), &e, 0) != 0) continue;
        bool zero = true;
        for (uint8_t b : e.gid.raw) zero = zero && b == 0;
        if (zero) continue;
        bool best = port_.link_layer == IBV_LINK_LAYER_INFINIBAND || e.gid_type == IBV_GID_TYPE_ROCE_V2;
        if (gid_index < 0 || best) {
            gid_index = i;
            preferred = best;
            port_.gid_index = uint8_t(i);
            memcpy(port_.gid, e.gid.raw, sizeof port_.gid);
        }
    }
    if (port_.link_layer == IBV_LINK_LAYER_ETHERNET && gid_index < 0)
        return fail(PGDDS_ERR_UNSUPPORTED, "verbs: %s is an Ethernet (RoCE) port without a GID", device_.c_str());
    if (port_.link_layer == IBV_LINK_LAYER_INFINIBAND && port_.lid == 0 && gid_index < 0)
        return fail(PGDDS_ERR_UNSUPPORTED, "verbs: %s has neither a LID nor a GID", device_.c_str());

    pd_ = ibv_alloc_pd(ctx_);
    if (!pd_) return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot allocate a protection domain on %s: %s", device_.c_str(), strerror(errno));
    PGDDS_LOG(LOG_INFO, "verbs: %s (%s, LID %u), %u VCIs x %d QPs of %u WRs, CQs of %u", device_.c_str(),
              port_.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand", port_.lid, host_->endpoints(),
              host_->nranks(), plan_.sq_depth, plan_.cq_size);
    return PGDDS_OK;
}

status transport_verbs::create_vci(unsigned index)
{
    vcis_.emplace_back(new vci_state());
    vci_state &v = *vcis_.back();
    v.index = index;

    // A thread domain lets the provider drop the locks of this VCI's QPs (and give them their
    // own doorbell); devices without thread domains work the same with locks.
    ibv_td_init_attr ta;
    memset(&ta, 0, sizeof ta);
    v.td = ibv_alloc_td(ctx_, &ta);
    if (v.td) {
        ibv_parent_domain_init_attr pa;
        memset(&pa, 0, sizeof pa);
        pa.pd = pd_;
        pa.td = v.td;
        v.domain = ibv_alloc_parent_domain(ctx_, &pa);
    }
    // The CQ: single-threaded (no lock) and in the thread domain where the provider allows,
    // single-threaded alone, else a plain one.
    auto single_threaded_cq = [&](ibv_pd *domain) -> ibv_cq * {
        ibv_cq_init_attr_ex ca;
        memset(&ca, 0, sizeof ca);
        ca.cqe = plan_.cq_size;
        ca.wc_flags = IBV_WC_STANDARD_FLAGS;
        ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS | (domain ? IBV_CQ_INIT_ATTR_MASK_PD : 0);
        ca.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
        ca.parent_domain = domain;
        ibv_cq_ex *cq = ibv_create_cq_ex(ctx_, &ca);
        return cq ? ibv_cq_ex_to_cq(cq) : nullptr;
    };
    if (v.domain) v.cq = single_threaded_cq(v.domain);
    if (!v.cq) v.cq = single_threaded_cq(nullptr);
    if (!v.cq) v.cq = ibv_create_cq(ctx_, int(plan_.cq_size), nullptr, nullptr, 0);
    if (!v.cq)
        return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot create a CQ of %u entries for VCI %u: %s", plan_.cq_size, index,
                    strerror(errno));

    ibv_srq_init_attr sa;
    memset(&sa, 0, sizeof sa);
    sa.attr.max_wr = plan_.srq_size;
    sa.attr.max_sge = 1;
    v.srq = ibv_create_srq(pd_, &sa);
    if (!v.srq)
        return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot create the shared receive queue of VCI %u: %s", index,
                    strerror(errno));

    size_t recv_bytes = size_t(plan_.srq_size) * packet_bytes, bounce_bytes = size_t(bounce_slots) * packet_bytes;
    v.recv = static_cast<uint8_t *>(alloc_pages(recv_bytes));
    v.bounce = static_cast<uint8_t *>(alloc_pages(bounce_bytes));
    v.results = static_cast<uint64_t *>(alloc_pages(result_slots * sizeof(uint64_t)));
    if (!v.recv || !v.bounce || !v.results)
        return fail(PGDDS_ERR_NO_MEMORY, "verbs: out of host memory for VCI %u's buffers", index);
    v.recv_mr = ibv_reg_mr(pd_, v.recv, recv_bytes, IBV_ACCESS_LOCAL_WRITE);
    v.bounce_mr = ibv_reg_mr(pd_, v.bounce, bounce_bytes, IBV_ACCESS_LOCAL_WRITE);
    v.results_mr = ibv_reg_mr(pd_, v.results, result_slots * sizeof(uint64_t), IBV_ACCESS_LOCAL_WRITE);
    if (!v.recv_mr || !v.bounce_mr || !v.results_mr)
        return fail(PGDDS_ERR_NO_MEMORY, "verbs: cannot register VCI %u's buffers: %s (is ulimit -l large enough?)", index,
                    strerror(errno));
    for (uint32_t i = bounce_slots; i > 0; --i) v.free_bounce.push_back(i - 1);
    for (uint32_t i = result_slots; i > 0; --i) v.free_results.push_back(i - 1);
    for (uint32_t i = 0; i < plan_.srq_size; ++i) {
        ibv_sge sge{uint64_t(uintptr_t(v.recv + size_t(i) * packet_bytes)), uint32_t(packet_bytes), v.recv_mr->lkey};
        ibv_recv_wr wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = verbs::recv_wr_id(i);
        wr.sg_list = &sge;
        wr.num_sge = 1;
        ibv_recv_wr *bad = nullptr;
        int rc = ibv_post_srq_recv(v.srq, &wr, &bad);
        if (rc != 0)
            return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot post receive buffers on VCI %u: %s", index, strerror(rc));
    }
    v.qps.resize(size_t(host_->nranks()));
    for (int r = 0; r < host_->nranks(); ++r) {
        status st = create_qp(v, r);
        if (st != PGDDS_OK) return st;
    }
    return PGDDS_OK;
}

status transport_verbs::create_qp(vci_state &v, int peer)
{
    // The inline size is settled on the first QP, the largest of these the provider accepts;
    // every later QP asks for the same.
    static const int inline_tries[] = {256, 64, 0};
    vci_state::peer_qp &q = v.qps[peer];
    for (int want : inline_tries) {
        if (inline_request_ >= 0 && want != inline_request_) continue;
        ibv_qp_init_attr qa;
        memset(&qa, 0, sizeof qa);
        qa.send_cq = v.cq;
        qa.recv_cq = v.cq;
        qa.srq = v.srq;
        qa.cap.max_send_wr = plan_.sq_depth;
        qa.cap.max_send_sge = 1;
        qa.cap.max_recv_sge = 1;
        qa.cap.max_inline_data = uint32_t(want);
        qa.qp_type = IBV_QPT_RC;
        qa.sq_sig_all = 0;
        q.qp = ibv_create_qp(v.domain ? v.domain : pd_, &qa);
        if (q.qp) {
            max_inline_ = inline_request_ < 0 ? qa.cap.max_inline_data : std::min(max_inline_, qa.cap.max_inline_data);
            inline_request_ = want;
            break;
        }
    }
    if (!q.qp)
        return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot create the QP of VCI %u for rank %d: %s", v.index, peer,
                    strerror(errno));
    verbs::qp_transition t = verbs::qp_to_init(port_.port);
    int rc = ibv_modify_qp(q.qp, &t.attr, t.mask);
    if (rc != 0)
        return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot bring the QP of VCI %u for rank %d to INIT: %s", v.index, peer,
                    strerror(rc));
    q.psn = std::random_device{}() & 0xffffff;  // QPs are made at start-up only
    q.sq = verbs::send_queue(plan_.sq_depth, plan_.signal_interval);
    q.actions.assign(plan_.sq_depth, wr_action{});
    return PGDDS_OK;
}

status transport_verbs::register_segment(void *base, size_t size)
{
    seg_mr_ = ibv_reg_mr(pd_, base, size, verbs::segment_access);
    if (!seg_mr_)
        return fail(errno == ENOMEM ? PGDDS_ERR_NO_MEMORY : PGDDS_ERR_TRANSPORT,
                    "verbs: cannot register the segment (%zu bytes at %p): %s (is ulimit -l large enough?)", size, base,
                    strerror(errno));
    seg_base_ = static_cast<uint8_t *>(base);
    seg_size_ = size;
    return PGDDS_OK;
}

status transport_verbs::address(std::vector<uint8_t> &blob)
{
    verbs::connection_info c;
    c.port = port_;
    c.rkey = seg_mr_->rkey;
    c.seg_base = uint64_t(uintptr_t(seg_base_));
    c.seg_size = seg_size_;
    c.vcis = uint32_t(vcis_.size());
    c.ranks = uint32_t(host_->nranks());
    for (auto &v : vcis_)
        for (auto &q : v->qps) c.qps.push_back(verbs::qp_address{q.qp->qp_num, q.psn});
    blob = verbs::encode_connection(c);
    return PGDDS_OK;
}

status transport_verbs::connect(const std::vector<std::vector<uint8_t>> &peers)
{
    const int n = host_->nranks(), me = host_->rank();
    std::vector<verbs::connection_info> info(n);
    for (int r = 0; r < n; ++r) {
        status st = verbs::decode_connection(peers[r], r, uint32_t(vcis_.size()), uint32_t(n), info[r]);
        if (st != PGDDS_OK) return st;
    }
    peer_rkey_.resize(n);
    peer_base_.resize(n);
    for (int r = 0; r < n; ++r) {
        peer_rkey_[r] = info[r].rkey;
        peer_base_[r] = info[r].seg_base;
    }
    for (auto &vp : vcis_) {
        for (int r = 0; r < n; ++r) {
            vci_state::peer_qp &q = vp->qps[r];
            const verbs::qp_address &remote = info[r].qp(vp->index, me);
            verbs::qp_transition t = verbs::qp_to_rtr(port_, info[r].port, remote.qpn, remote.psn, plan_.rd_atomic);
            int rc = ibv_modify_qp(q.qp, &t.attr, t.mask);
            if (rc == 0) {
                t = verbs::qp_to_rts(q.psn, plan_.rd_atomic);
                rc = ibv_modify_qp(q.qp, &t.attr, t.mask);
            }
            if (rc != 0)
                return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot connect VCI %u to rank %d (QP %#x): %s", vp->index, r,
                            remote.qpn, strerror(rc));
        }
    }
    return PGDDS_OK;
}

void transport_verbs::close()
{
    for (auto &vp : vcis_) {
        vci_state &v = *vp;
        for (auto &q : v.qps) {
            if (q.qp) ibv_destroy_qp(q.qp);
            q.qp = nullptr;
            for (auto &a : q.actions) {
                if (a.mr) ibv_dereg_mr(a.mr);
                if (a.kind == wr_action::loop_step) delete a.loop;
                a = wr_action{};
            }
        }
        for (amo_loop *l : v.stalled) delete l;
        v.stalled.clear();
        if (v.srq) ibv_destroy_srq(v.srq);
        if (v.cq) ibv_destroy_cq(v.cq);
        for (ibv_mr *mr : {v.recv_mr, v.bounce_mr, v.results_mr})
            if (mr) ibv_dereg_mr(mr);
        free(v.recv);
        free(v.bounce);
        free(v.results);
        if (v.domain) ibv_dealloc_pd(v.domain);
        if (v.td) ibv_dealloc_td(v.td);
    }
    vcis_.clear();
    if (seg_mr_) ibv_dereg_mr(seg_mr_);
    seg_mr_ = nullptr;
    if (pd_) ibv_dealloc_pd(pd_);
    pd_ = nullptr;
    if (ctx_) ibv_close_device(ctx_);
    ctx_ = nullptr;
}

// ---------------------------------------------------------------------------------------------
status transport_create_verbs(std::unique_ptr<transport> &out)
{
    out.reset(new (std::nothrow) transport_verbs());
    if (!out) return fail(PGDDS_ERR_NO_MEMORY, "verbs: out of host memory");
    return PGDDS_OK;
}

}  // namespace pgdds
