#include "verbs.h"

#include "../../core/log.h"
#include "../../core/runtime.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <unistd.h>

namespace pgdds {

using verbs::local_buffer;

// What the completion of one work request does.
struct transport_verbs::wr_action {
    enum kind_t : uint8_t {
        plain,       // nothing but `done`
        bounce,      // release a bounce slot (a put or send copied into it)
        bounce_get,  // copy a bounce slot into `user`, release it
        result,      // copy the lane of a result slot into `user`, release it
        loop_step,   // one compare-and-swap of `loop`
    };
    kind_t kind = plain;
    uint8_t width = 0;
    uint8_t offset = 0;
    uint32_t slot = 0;           // bounce or result slot
    op_completion *done = nullptr;
    void *user = nullptr;
    uint32_t length = 0;
    ibv_mr *mr = nullptr;        // a registration made for this WR alone
    amo_loop *loop = nullptr;
};

// An atomic done as compare-and-swap attempts on the containing 64-bit word.
struct transport_verbs::amo_loop {
    int rank;
    uint64_t word_addr;
    verbs::cas_loop state;
    void *result;
    op_completion *done;
    uint32_t slot;  // result slot the attempts land in
};

struct transport_verbs::vci_state {
    struct peer_qp {
        ibv_qp *qp = nullptr;
        uint32_t psn = 0;
        verbs::send_queue sq;
        std::vector<wr_action> actions;  // [seq % depth]
        status failed = PGDDS_OK;
        std::string failure;
    };
    struct pending_flush {
        op_completion *done;
        std::vector<std::pair<int, uint64_t>> targets;  // (rank, last WR that must complete)
    };

    unsigned index = 0;
    ibv_td *td = nullptr;
    ibv_pd *domain = nullptr;  // parent domain of the thread domain, when the device has them
    ibv_cq *cq = nullptr;
    ibv_srq *srq = nullptr;
    uint8_t *recv = nullptr;
    ibv_mr *recv_mr = nullptr;
    uint8_t *bounce = nullptr;
    ibv_mr *bounce_mr = nullptr;
    std::vector<uint32_t> free_bounce;
    uint64_t *results = nullptr;
    ibv_mr *results_mr = nullptr;
    std::vector<uint32_t> free_results;
    std::vector<peer_qp> qps;
    std::vector<amo_loop *> stalled;  // loops waiting for send-queue room
    unsigned loops = 0;               // loops not finished
    std::vector<pending_flush> flushes;
    std::vector<wr_action> retiring;  // scratch of progress()
    deferred_failure deferred;
    uint8_t *bounce_at(uint32_t slot) { return bounce + size_t(slot) * packet_bytes; }
};

namespace {
// Stores a fetched value of `width` bytes where the caller wants it.
void store_value(void *dst, uint64_t value, unsigned width)
{
    if (width == 4) {
        uint32_t v32 = uint32_t(value);
        memcpy(dst, &v32, sizeof v32);
    } else {
        memcpy(dst, &value, sizeof value);
    }
}

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
    c.atomics = "native 64-bit compare-and-swap and fetch-and-add; other and 32-bit operations as compare-and-swap loops";
    return c;
}

// ---------------------------------------------------------------------------------------------
// Set-up
// ---------------------------------------------------------------------------------------------
status transport_verbs::open(runtime &rt)
{
    rt_ = &rt;
    status st = open_device();
    for (unsigned i = 0; st == PGDDS_OK && i < rt.num_endpoints(); ++i) st = create_vci(i);
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
    const std::string &wanted = rt_->cfg().verbs_device;
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
    status st = verbs::plan_resources(lim, rt_->nranks(), plan_);
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
              port_.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand", port_.lid, rt_->num_endpoints(),
              rt_->nranks(), plan_.sq_depth, plan_.cq_size);
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
    v.qps.resize(size_t(rt_->nranks()));
    for (int r = 0; r < rt_->nranks(); ++r) {
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
    c.ranks = uint32_t(rt_->nranks());
    for (auto &v : vcis_)
        for (auto &q : v->qps) c.qps.push_back(verbs::qp_address{q.qp->qp_num, q.psn});
    blob = verbs::encode_connection(c);
    return PGDDS_OK;
}

status transport_verbs::connect(const std::vector<std::vector<uint8_t>> &peers)
{
    const int n = rt_->nranks(), me = rt_->rank();
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
// Posting and completions
// ---------------------------------------------------------------------------------------------
template <class Build>
status transport_verbs::post(vci_state &v, int rank, const wr_action &action, bool needs_completion, Build build)
{
    vci_state::peer_qp &q = v.qps[rank];
    if (PGDDS_UNLIKELY(q.failed != PGDDS_OK)) return fail(q.failed, "%s", q.failure.c_str());
    if (q.sq.free_slots() == 0) return PGDDS_ERR_AGAIN;
    bool holds = action.kind != wr_action::plain || action.done || action.mr;
    bool signaled = q.sq.should_signal(needs_completion || holds);
    uint64_t seq = q.sq.next_seq();
    ibv_send_wr wr;
    ibv_sge sge;
    build(wr, sge, signaled, verbs::send_wr_id(rank, seq));
    ibv_send_wr *bad = nullptr;
    int rc = ibv_post_send(q.qp, &wr, &bad);
    if (rc != 0)
        return rc == ENOMEM ? PGDDS_ERR_AGAIN
                            : fail(PGDDS_ERR_TRANSPORT, "verbs: posting to rank %d on VCI %u failed: %s", rank, v.index,
                                   strerror(rc));
    q.actions[seq % q.sq.depth()] = action;
    q.sq.posted(signaled);
    return PGDDS_OK;
}

status transport_verbs::wc_error(vci_state &v, int rank, int wc_status)
{
    vci_state::peer_qp &q = v.qps[rank];
    if (q.failed != PGDDS_OK) return fail(q.failed, "%s", q.failure.c_str());
    // The transport gave up on the peer: it died, or the path to it did.
    bool unreachable = wc_status == IBV_WC_RETRY_EXC_ERR || wc_status == IBV_WC_RNR_RETRY_EXC_ERR;
    status st = fail(unreachable ? PGDDS_ERR_PEER_FAILED : PGDDS_ERR_TRANSPORT,
                     "verbs: an operation to rank %d on VCI %u failed: %s%s", rank, v.index,
                     ibv_wc_status_str(ibv_wc_status(wc_status)), unreachable ? " (the rank is unreachable)" : "");
    q.failed = st;
    q.failure = pgdds_last_error();
    return st;
}

void transport_verbs::run_action(vci_state &v, wr_action &a, status st)
{
    switch (a.kind) {
    case wr_action::loop_step: {
        amo_loop *l = a.loop;
        if (st != PGDDS_OK) return loop_finish(v, l, st);
        if (l->state.attempt_returned(v.results[l->slot])) return loop_finish(v, l, PGDDS_OK);
        st = loop_advance(v, l);
        if (st == PGDDS_ERR_AGAIN) v.stalled.push_back(l);
        else if (st != PGDDS_OK) loop_finish(v, l, st);
        return;
    }
    case wr_action::bounce_get:
        if (st == PGDDS_OK) memcpy(a.user, v.bounce_at(a.slot), a.length);
        v.free_bounce.push_back(a.slot);
        break;
    case wr_action::bounce: v.free_bounce.push_back(a.slot); break;
    case wr_action::result:
        if (st == PGDDS_OK && a.user) store_value(a.user, verbs::lane_value(v.results[a.slot], a.width, a.offset), a.width);
        v.free_results.push_back(a.slot);
        break;
    case wr_action::plain: break;
    }
    if (a.mr) ibv_dereg_mr(a.mr);
    if (a.done) a.done->complete(st);
    else v.deferred.keep(st);
}

// WR `seq` of the QP to `rank` completed with `st`: every earlier WR completed before it.
void transport_verbs::retire(vci_state &v, int rank, uint64_t seq, status st)
{
    vci_state::peer_qp &q = v.qps[rank];
    // Take the actions out before running them: a loop step may post into the freed slots.
    v.retiring.clear();
    uint32_t retired = q.sq.completed_through(seq);
    if (retired == 0) {
        PGDDS_LOG(LOG_ERROR, "verbs: a completion from rank %d on VCI %u names no outstanding work request", rank, v.index);
        return;
    }
    for (uint64_t s = seq + 1 - retired; s <= seq; ++s) {
        wr_action &slot = q.actions[s % q.sq.depth()];
        v.retiring.push_back(slot);
        slot = wr_action{};
    }
    for (size_t i = 0; i < v.retiring.size(); ++i) run_action(v, v.retiring[i], i + 1 == v.retiring.size() ? st : PGDDS_OK);
}

status transport_verbs::progress(unsigned vci)
{
    vci_state &v = *vcis_[vci];
    ibv_wc wc[16];
    int n = ibv_poll_cq(v.cq, 16, wc);
    if (n < 0) return fail(PGDDS_ERR_TRANSPORT, "verbs: polling the CQ of VCI %u failed", vci);
    for (int i = 0; i < n; ++i) {
        if (verbs::is_recv_wr_id(wc[i].wr_id)) {
            uint32_t buf = verbs::wr_buffer(wc[i].wr_id);
            if (wc[i].status == IBV_WC_WR_FLUSH_ERR) continue;  // the SRQ is being torn down
            if (wc[i].status == IBV_WC_SUCCESS)
                rt_->am_incoming(vci, v.recv + size_t(buf) * packet_bytes, wc[i].byte_len);
            else
                PGDDS_LOG(LOG_ERROR, "verbs: a receive on VCI %u failed: %s", vci, ibv_wc_status_str(wc[i].status));
            ibv_sge sge{uint64_t(uintptr_t(v.recv + size_t(buf) * packet_bytes)), uint32_t(packet_bytes), v.recv_mr->lkey};
            ibv_recv_wr wr;
            memset(&wr, 0, sizeof wr);
            wr.wr_id = wc[i].wr_id;
            wr.sg_list = &sge;
            wr.num_sge = 1;
            ibv_recv_wr *bad = nullptr;
            int rc = ibv_post_srq_recv(v.srq, &wr, &bad);
            if (rc != 0) return fail(PGDDS_ERR_TRANSPORT, "verbs: cannot repost a receive on VCI %u: %s", vci, strerror(rc));
            continue;
        }
        int rank = verbs::wr_peer(wc[i].wr_id);
        if (rank >= rt_->nranks()) {
            PGDDS_LOG(LOG_ERROR, "verbs: a completion on VCI %u names rank %d", vci, rank);
            continue;
        }
        uint64_t seq = v.qps[rank].sq.sequence_of(verbs::wr_seq_low(wc[i].wr_id));
        status st = wc[i].status == IBV_WC_SUCCESS ? PGDDS_OK : wc_error(v, rank, wc[i].status);
        retire(v, rank, seq, st);
    }
    if (!v.stalled.empty()) {
        std::vector<amo_loop *> waiting;
        waiting.swap(v.stalled);
        for (amo_loop *l : waiting) {
            status st = loop_advance(v, l);
            if (st == PGDDS_ERR_AGAIN) v.stalled.push_back(l);
            else if (st != PGDDS_OK) loop_finish(v, l, st);
        }
    }
    if (!v.flushes.empty()) check_flushes(v);
    return PGDDS_OK;
}

// ---------------------------------------------------------------------------------------------
// Data path
// ---------------------------------------------------------------------------------------------
status transport_verbs::rdma(unsigned vci, int rank, uint64_t offset, void *local, size_t n, bool is_put,
                             op_completion *done)
{
    vci_state &v = *vcis_[vci];
    vci_state::peer_qp &q = v.qps[rank];
    if (PGDDS_UNLIKELY(q.failed != PGDDS_OK)) return fail(q.failed, "%s", q.failure.c_str());
    if (n == 0) {
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    const size_t pieces = (n + max_msg_ - 1) / max_msg_;
    if (q.sq.free_slots() < pieces) return PGDDS_ERR_AGAIN;

    auto *bytes = static_cast<uint8_t *>(local);
    wr_action a;
    uint64_t laddr = uint64_t(uintptr_t(bytes));
    uint32_t lkey = 0;
    bool complete_now = false;  // the source is free once posted: an inline or bounced put
    if (is_put && verbs::use_inline(uint32_t(std::min<size_t>(n, UINT32_MAX)), max_inline_)) {
        complete_now = true;
    } else if (bytes >= seg_base_ && bytes + n <= seg_base_ + seg_size_) {
        lkey = seg_mr_->lkey;
        a.done = done;
    } else if (n <= packet_bytes) {
        if (v.free_bounce.empty()) return PGDDS_ERR_AGAIN;
        a.slot = v.free_bounce.back();
        laddr = uint64_t(uintptr_t(v.bounce_at(a.slot)));
        lkey = v.bounce_mr->lkey;
        if (is_put) {
            memcpy(v.bounce_at(a.slot), local, n);
            a.kind = wr_action::bounce;
            complete_now = true;
        } else {
            a.kind = wr_action::bounce_get;
            a.user = local;
            a.length = uint32_t(n);
            a.done = done;
        }
    } else {
        a.mr = ibv_reg_mr(pd_, local, n, is_put ? 0 : IBV_ACCESS_LOCAL_WRITE);
        if (!a.mr)
            return fail(errno == ENOMEM ? PGDDS_ERR_NO_MEMORY : PGDDS_ERR_TRANSPORT,
                        "verbs: cannot register %zu bytes at %p for a %s to rank %d: %s", n, local, is_put ? "put" : "get",
                        rank, strerror(errno));
        lkey = a.mr->lkey;
        a.done = done;
    }
    const uint64_t remote = peer_base_[rank] + offset;
    const ibv_wr_opcode opcode = is_put ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
    for (size_t off = 0; off < n; off += max_msg_) {
        size_t len = std::min<size_t>(n - off, max_msg_);
        bool last = off + len == n;
        local_buffer lb{laddr + off, uint32_t(len), lkey};
        status st = post(v, rank, last ? a : wr_action{}, false, [&](ibv_send_wr &wr, ibv_sge &sge, bool sig, uint64_t id) {
            verbs::build_rdma(wr, sge, opcode, lb, remote + off, peer_rkey_[rank], max_inline_, sig, id);
        });
        if (st != PGDDS_OK) {
            // Only the first piece can fail on a healthy QP (there was room for all of them).
            if (off == 0 && a.mr) ibv_dereg_mr(a.mr);
            return st;
        }
    }
    if (a.kind == wr_action::bounce || a.kind == wr_action::bounce_get) v.free_bounce.pop_back();
    if (complete_now && done) done->complete(PGDDS_OK);
    return PGDDS_OK;
}

status transport_verbs::put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n, op_completion *done)
{
    return rdma(vci, rank, offset, const_cast<void *>(src), n, true, done);
}

status transport_verbs::get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n, op_completion *done)
{
    return rdma(vci, rank, offset, dst, n, false, done);
}

status transport_verbs::amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done)
{
    vci_state &v = *vcis_[vci];
    if (PGDDS_UNLIKELY(v.qps[rank].failed != PGDDS_OK))
        return fail(v.qps[rank].failed, "%s", v.qps[rank].failure.c_str());
    if (v.free_results.empty()) return PGDDS_ERR_AGAIN;
    const uint64_t addr = peer_base_[rank] + offset;
    const uint32_t slot = v.free_results.back();
    const verbs::amo_method method = verbs::method_for(args.op, args.width);

    if (method == verbs::amo_method::cas_loop) {
        auto *l = new (std::nothrow) amo_loop{
            rank, verbs::word_of(addr),
            verbs::cas_loop(args.op, args.operand, args.compare, args.width, verbs::lane_offset(addr)), args.result,
            done, slot};
        if (!l) return fail(PGDDS_ERR_NO_MEMORY, "verbs: out of host memory for an atomic");
        status st = loop_advance(v, l);
        if (st != PGDDS_OK) {
            delete l;
            return st;
        }
        v.free_results.pop_back();
        v.loops++;
        return PGDDS_OK;
    }
    wr_action a;
    a.kind = wr_action::result;
    a.width = uint8_t(args.width);
    a.offset = uint8_t(verbs::lane_offset(addr));
    a.slot = slot;
    a.done = done;
    a.user = args.result;
    const bool cas = method == verbs::amo_method::compare_swap;
    const uint64_t compare_add = cas ? args.compare : args.op == AMO_LOAD ? 0 : args.operand;
    local_buffer result{uint64_t(uintptr_t(&v.results[slot])), sizeof(uint64_t), v.results_mr->lkey};
    status st = post(v, rank, a, true, [&](ibv_send_wr &wr, ibv_sge &sge, bool sig, uint64_t id) {
        verbs::build_atomic(wr, sge, cas, result, verbs::word_of(addr), peer_rkey_[rank], compare_add, args.operand, sig, id);
    });
    if (st == PGDDS_OK) v.free_results.pop_back();
    return st;
}

// Posts the next attempt of a loop, or finishes it when it needs none.
status transport_verbs::loop_advance(vci_state &v, amo_loop *l)
{
    uint64_t expected, desired;
    if (!l->state.next_attempt(expected, desired)) {
        loop_finish(v, l, PGDDS_OK);
        return PGDDS_OK;
    }
    wr_action a;
    a.kind = wr_action::loop_step;
    a.loop = l;
    local_buffer result{uint64_t(uintptr_t(&v.results[l->slot])), sizeof(uint64_t), v.results_mr->lkey};
    return post(v, l->rank, a, true, [&](ibv_send_wr &wr, ibv_sge &sge, bool sig, uint64_t id) {
        verbs::build_atomic(wr, sge, true, result, l->word_addr, peer_rkey_[l->rank], expected, desired, sig, id);
    });
}

void transport_verbs::loop_finish(vci_state &v, amo_loop *l, status st)
{
    if (st == PGDDS_OK && l->result) store_value(l->result, l->state.fetched(), l->state.width());
    v.free_results.push_back(l->slot);
    if (l->done) l->done->complete(st);
    else v.deferred.keep(st);
    v.loops--;
    delete l;
}

status transport_verbs::flush(unsigned vci, op_completion *done)
{
    vci_state &v = *vcis_[vci];
    if (v.deferred.pending()) {
        done->complete(v.deferred.take());
        return PGDDS_OK;
    }
    vci_state::pending_flush f{done, {}};
    for (int r = 0; r < rt_->nranks(); ++r) {
        vci_state::peer_qp &q = v.qps[r];
        if (q.sq.idle()) continue;
        if (q.failed != PGDDS_OK) {
            done->complete(fail(q.failed, "%s", q.failure.c_str()));
            return PGDDS_OK;
        }
        // Unsignaled WRs at the tail would only be seen complete after a signaled one.
        if (q.sq.tail_unsignaled()) {
            status st = post(v, r, wr_action{}, true, [&](ibv_send_wr &wr, ibv_sge &, bool, uint64_t id) {
                verbs::build_fence_write(wr, peer_base_[r], peer_rkey_[r], id);
            });
            if (st != PGDDS_OK) return st;  // AGAIN: fences posted so far only cost a completion
        }
        f.targets.emplace_back(r, q.sq.next_seq() - 1);
    }
    if (f.targets.empty() && v.loops == 0) {
        done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    v.flushes.push_back(std::move(f));
    return PGDDS_OK;
}

void transport_verbs::check_flushes(vci_state &v)
{
    for (size_t i = 0; i < v.flushes.size();) {
        vci_state::pending_flush &f = v.flushes[i];
        status st = PGDDS_OK;
        bool complete = v.loops == 0;
        for (auto &t : f.targets) {
            vci_state::peer_qp &q = v.qps[t.first];
            if (q.failed != PGDDS_OK) {
                st = fail(q.failed, "%s", q.failure.c_str());
                break;
            }
            complete = complete && q.sq.reached(t.second);
        }
        if (st == PGDDS_OK && !complete) {
            ++i;
            continue;
        }
        f.done->complete(st);
        v.flushes.erase(v.flushes.begin() + long(i));
    }
}

// ---------------------------------------------------------------------------------------------
// Active messages
// ---------------------------------------------------------------------------------------------
status transport_verbs::am_send(unsigned vci, int rank, const void *packet, size_t len)
{
    vci_state &v = *vcis_[vci];
    wr_action a;
    local_buffer lb{uint64_t(uintptr_t(packet)), uint32_t(len), 0};
    if (!verbs::use_inline(uint32_t(len), max_inline_)) {
        if (v.free_bounce.empty()) return PGDDS_ERR_AGAIN;
        a.kind = wr_action::bounce;
        a.slot = v.free_bounce.back();
        memcpy(v.bounce_at(a.slot), packet, len);
        lb = local_buffer{uint64_t(uintptr_t(v.bounce_at(a.slot))), uint32_t(len), v.bounce_mr->lkey};
    }
    status st = post(v, rank, a, false, [&](ibv_send_wr &wr, ibv_sge &sge, bool sig, uint64_t id) {
        verbs::build_send(wr, sge, lb, max_inline_, sig, id);
    });
    if (st == PGDDS_OK && a.kind == wr_action::bounce) v.free_bounce.pop_back();
    return st;
}

// ---------------------------------------------------------------------------------------------
status transport_create_verbs(std::unique_ptr<transport> &out)
{
    out.reset(new (std::nothrow) transport_verbs());
    if (!out) return fail(PGDDS_ERR_NO_MEMORY, "verbs: out of host memory");
    return PGDDS_OK;
}

}  // namespace pgdds
