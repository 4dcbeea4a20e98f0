#include "ofi_internal.h"


#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <new>
#include <sys/mman.h>

namespace pgdds {

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

// ---------------------------------------------------------------------------------------------
// Set-up
// ---------------------------------------------------------------------------------------------
transport_ofi::transport_ofi(const ofi_options &opts) : opts_(opts) {}

transport_ofi::~transport_ofi() { close(); }

transport_caps transport_ofi::caps() const
{
    transport_caps c;
    c.needs_target_progress = manual_progress_;
    c.one_sided_rma = !manual_progress_;
    if (!emulated_atomics_) c.amo_ops[0] = c.amo_ops[1] = amo_all_ops;
    // ofi_rxm serves fi_atomic on the target's CPU: its receiver applies libfabric's ofi_atomic
    // handlers to the registered memory (rxm_handle_atomic_req -> rxm_do_atomic), and those are
    // __atomic builtins in builds with HAVE_BUILTIN_MM_ATOMICS, as Debian's libfabric 1.17 is (it
    // imports libatomic's 16-byte __atomic_fetch_or/and/xor, which only that branch uses).
    // Checked for rxm over tcp only; other providers count as device atomics.
    c.amo_domain = name_ == "ofi/tcp;ofi_rxm" ? atomicity_domain::target_cpu : atomicity_domain::nic;
    c.atomics = atomics_note_;
    return c;
}

status transport_ofi::open(transport_host &host)
{
    if (host_) return fail(PGDDS_ERR_STATE, "ofi: the transport is already open");
    host_ = &host;
    rank_ = host.rank();
    nranks_ = host.nranks();
    nendpoints_ = host.endpoints();

    status st = ofi_library_open();
    if (st == PGDDS_OK) st = select_provider(host.setting("PROVIDER"));
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
    const int wanted = opts_.domains >= 0 ? opts_.domains : parse_choice(host_->setting("DOMAINS").c_str(), "auto|shared|vci");  // 0 auto, 1 shared, 2 per VCI
    const bool per_vci = wanted == 2 || (wanted == 0 && is_shm(info_));
    const fi_domain_attr *dom = info_->domain_attr;
    const unsigned per_domain = per_vci ? 1 : nendpoints_;
    if ((dom->ep_cnt && per_domain > dom->ep_cnt) || (dom->cq_cnt && per_domain > dom->cq_cnt))
        return fail(PGDDS_ERR_UNSUPPORTED, "ofi: provider %s allows %zu endpoints and %zu completion queues per "
                    "domain, but %u VCIs need %u of each (PGDDS_NUM_VCIS plus the service VCI); "
                    "PGDDS_OFI_DOMAINS=vci gives each VCI a domain", prov, dom->ep_cnt, dom->cq_cnt, host_->endpoints() - 1,
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

// Connection data: the segment's base, one segment key and one address per endpoint.
status transport_ofi::address(std::vector<uint8_t> &blob)
{
    if (!opened() || seg_keys_.empty()) return fail(PGDDS_ERR_STATE, "ofi: address before open and register_segment");
    std::vector<std::vector<uint8_t>> names(nendpoints_);
    for (unsigned i = 0; i < nendpoints_; ++i) {
        size_t len = 0;
        int rc = fi_getname(&eps_[i]->ep->fid, nullptr, &len);
        if (rc != -FI_ETOOSMALL && rc != 0) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_getname of VCI %u", i);
        names[i].resize(len);
        rc = fi_getname(&eps_[i]->ep->fid, names[i].data(), &len);
        if (rc) return call_failed(PGDDS_ERR_TRANSPORT, rc, "fi_getname of VCI %u", i);
        names[i].resize(len);
    }
    blob.clear();
    wire_writer w(blob);
    w.header(blob_magic, blob_version);
    w.put(uint32_t(nendpoints_));
    w.put(uint64_t(uintptr_t(seg_base_)));
    w.put(uint64_t(seg_size_));
    for (unsigned i = 0; i < nendpoints_; ++i) w.put(uint64_t(seg_keys_[seg_keys_.size() == 1 ? 0 : i]));
    for (const auto &name : names) w.bytes(name.data(), name.size());
    return PGDDS_OK;
}

status transport_ofi::connect(const std::vector<std::vector<uint8_t>> &peers)
{
    if (!opened()) return fail(PGDDS_ERR_STATE, "ofi: connect before open");
    if (peers.size() != size_t(nranks_))
        return fail(PGDDS_ERR_INVALID_ARG, "ofi: connection data of %zu ranks for a job of %d", peers.size(), nranks_);
    const size_t n = size_t(nranks_) * nendpoints_;
    peer_base_.assign(size_t(nranks_), 0);
    peer_size_.assign(size_t(nranks_), 0);
    peer_keys_.assign(n, 0);
    peer_addrs_.assign(n, FI_ADDR_NOTAVAIL);
    std::vector<const uint8_t *> names(nendpoints_);
    for (int r = 0; r < nranks_; ++r) {
        wire_reader rd(peers[r]);
        rd.header(blob_magic, blob_version);
        rd.expect(uint32_t(nendpoints_), "endpoints");
        rd.get(peer_base_[r]);
        rd.get(peer_size_[r]);
        rd.array(&peer_keys_[size_t(r) * nendpoints_], nendpoints_);
        for (unsigned i = 0; i < nendpoints_; ++i) {
            size_t len = 0;
            rd.bytes(names[i], len);
            if (rd.ok() && len == 0) return fail(PGDDS_ERR_TRANSPORT, "ofi: rank %d's address of VCI %u is empty", r, i);
        }
        status st = rd.finish("ofi", r);
        if (st != PGDDS_OK) return st;
        for (unsigned i = 0; i < nendpoints_; ++i) {
            int rc = fi_av_insert(eps_[i]->av, names[i], 1, &peer_addrs_[size_t(r) * nendpoints_ + i], 0, nullptr);
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

status transport_create_ofi(std::unique_ptr<transport> &out)
{
    out.reset(new (std::nothrow) transport_ofi());
    return out ? PGDDS_OK : fail(PGDDS_ERR_NO_MEMORY, "ofi: out of host memory");
}

}  // namespace pgdds
