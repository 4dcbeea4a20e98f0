#include "verbs_logic.h"

#include "../../base/wire.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace pgdds {
namespace verbs {

bool parse_device_spec(const std::string &text, device_spec &out)
{
    out = device_spec{};
    if (text.empty()) return true;
    size_t colon = text.find(':');
    out.name = text.substr(0, colon);
    if (out.name.empty()) return false;
    for (char c : out.name)
        if (!(isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.')) return false;
    if (colon == std::string::npos) return true;
    std::string port = text.substr(colon + 1);
    if (port.empty() || port.size() > 3 || port.find_first_not_of("0123456789") != std::string::npos) return false;
    out.port = atoi(port.c_str());
    return out.port >= 1 && out.port <= 255;
}

// --- connection data -----------------------------------------------------------------------
namespace {
constexpr uint32_t blob_magic = 0x31627670;  // "pvb1"
constexpr uint16_t blob_version = 1;
constexpr uint32_t max_24bit = 0xffffff;
}  // namespace

std::vector<uint8_t> encode_connection(const connection_info &c)
{
    std::vector<uint8_t> out;
    wire_writer w(out);
    w.header(blob_magic, blob_version);
    w.put(c.port.lid);
    w.put(c.rkey);
    w.put(c.seg_base);
    w.put(c.seg_size);
    w.put(c.vcis);
    w.put(c.ranks);
    w.put(c.port.port);
    w.put(c.port.link_layer);
    w.put(c.port.mtu);
    w.put(c.port.gid_index);
    w.array(c.port.gid, sizeof c.port.gid);
    for (const auto &q : c.qps) {
        w.put(q.qpn);
        w.put(q.psn);
    }
    return out;
}

status decode_connection(const std::vector<uint8_t> &blob, int rank, uint32_t vcis, uint32_t ranks,
                         connection_info &out)
{
    wire_reader r(blob);
    connection_info c;
    r.header(blob_magic, blob_version);
    r.get(c.port.lid);
    r.get(c.rkey);
    r.get(c.seg_base);
    r.get(c.seg_size);
    r.expect(vcis, "VCIs");
    r.expect(ranks, "ranks");
    c.vcis = vcis;
    c.ranks = ranks;
    r.get(c.port.port);
    r.get(c.port.link_layer);
    r.get(c.port.mtu);
    r.get(c.port.gid_index);
    r.array(c.port.gid, sizeof c.port.gid);
    c.qps.resize(size_t(vcis) * ranks);
    for (auto &q : c.qps) {
        r.get(q.qpn);
        r.get(q.psn);
    }
    status st = r.finish("verbs", rank);
    if (st != PGDDS_OK) return st;
    if (c.port.port == 0)
        return fail(PGDDS_ERR_TRANSPORT, "verbs: rank %d's connection data names port 0", rank);
    if (c.port.mtu < IBV_MTU_256 || c.port.mtu > IBV_MTU_4096)
        return fail(PGDDS_ERR_TRANSPORT, "verbs: rank %d's connection data has an invalid MTU code %u", rank, c.port.mtu);
    bool has_gid = std::any_of(std::begin(c.port.gid), std::end(c.port.gid), [](uint8_t b) { return b != 0; });
    if (c.port.link_layer == IBV_LINK_LAYER_ETHERNET) {
        if (!has_gid)
            return fail(PGDDS_ERR_TRANSPORT, "verbs: rank %d is on an Ethernet (RoCE) port without a GID", rank);
    } else if (c.port.link_layer == IBV_LINK_LAYER_INFINIBAND) {
        if (c.port.lid == 0 && !has_gid)
            return fail(PGDDS_ERR_TRANSPORT, "verbs: rank %d's InfiniBand port has neither a LID nor a GID", rank);
    } else {
        return fail(PGDDS_ERR_TRANSPORT, "verbs: rank %d's port has an unknown link layer %u", rank, c.port.link_layer);
    }
    if (c.seg_base == 0 || c.seg_size == 0)
        return fail(PGDDS_ERR_TRANSPORT, "verbs: rank %d's connection data has no segment", rank);
    // QPs 0 and 1 are the special management QPs; numbers and PSNs are 24-bit.
    for (const auto &q : c.qps)
        if (q.qpn < 2 || q.qpn > max_24bit || q.psn > max_24bit)
            return fail(PGDDS_ERR_TRANSPORT, "verbs: rank %d's connection data has an invalid QP (number %#x, PSN %#x)",
                        rank, q.qpn, q.psn);
    out = std::move(c);
    return PGDDS_OK;
}

// --- queue-pair state transitions ----------------------------------------------------------
qp_transition qp_to_init(uint8_t port)
{
    qp_transition t;
    memset(&t.attr, 0, sizeof t.attr);
    t.attr.qp_state = IBV_QPS_INIT;
    t.attr.pkey_index = 0;
    t.attr.port_num = port;
    t.attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
    t.mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    return t;
}

qp_transition qp_to_rtr(const port_address &local, const port_address &remote, uint32_t remote_qpn,
                        uint32_t remote_psn, uint8_t max_dest_rd_atomic)
{
    qp_transition t;
    memset(&t.attr, 0, sizeof t.attr);
    t.attr.qp_state = IBV_QPS_RTR;
    t.attr.path_mtu = ibv_mtu(std::min(local.mtu, remote.mtu));
    t.attr.dest_qp_num = remote_qpn;
    t.attr.rq_psn = remote_psn;
    t.attr.max_dest_rd_atomic = max_dest_rd_atomic;
    t.attr.min_rnr_timer = 12;  // 0.64 ms before a sender retries a SEND that found no receive
    t.attr.ah_attr.dlid = remote.lid;
    t.attr.ah_attr.sl = 0;
    t.attr.ah_attr.src_path_bits = 0;
    t.attr.ah_attr.port_num = local.port;
    if (local.link_layer == IBV_LINK_LAYER_ETHERNET || remote.link_layer == IBV_LINK_LAYER_ETHERNET || remote.lid == 0) {
        t.attr.ah_attr.is_global = 1;
        memcpy(t.attr.ah_attr.grh.dgid.raw, remote.gid, sizeof remote.gid);
        t.attr.ah_attr.grh.sgid_index = local.gid_index;
        t.attr.ah_attr.grh.hop_limit = 64;
    }
    t.mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
             IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    return t;
}

qp_transition qp_to_rts(uint32_t psn, uint8_t max_rd_atomic)
{
    qp_transition t;
    memset(&t.attr, 0, sizeof t.attr);
    t.attr.qp_state = IBV_QPS_RTS;
    t.attr.timeout = 14;    // 4.096 us * 2^14 = 67 ms per transport retry
    t.attr.retry_cnt = 7;
    t.attr.rnr_retry = 7;   // infinite: a receiver out of buffers slows senders, never fails them
    t.attr.sq_psn = psn;
    t.attr.max_rd_atomic = max_rd_atomic;
    t.mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
             IBV_QP_MAX_QP_RD_ATOMIC;
    return t;
}

// --- resource sizing -----------------------------------------------------------------------
status plan_resources(const device_limits &dev, int ranks, resource_plan &out)
{
    constexpr uint32_t wanted_depth = 128, wanted_srq = 512, wanted_rd_atomic = 16, min_depth = 8;
    resource_plan p;
    p.rd_atomic = uint8_t(std::min({wanted_rd_atomic, dev.max_qp_rd_atom, dev.max_qp_init_rd_atom}));
    if (p.rd_atomic == 0)
        return fail(PGDDS_ERR_UNSUPPORTED, "verbs: the device allows no outstanding RDMA READ or atomic per QP");
    p.srq_size = std::min(wanted_srq, dev.max_srq_wr);
    if (p.srq_size < 16)
        return fail(PGDDS_ERR_UNSUPPORTED, "verbs: the device offers shared receive queues of %u entries (16 needed)",
                    dev.max_srq_wr);
    p.sq_depth = std::min(wanted_depth, dev.max_qp_wr);
    uint64_t cq = uint64_t(ranks) * p.sq_depth + p.srq_size;
    if (cq > dev.max_cqe) {
        uint64_t room = dev.max_cqe > p.srq_size ? (dev.max_cqe - p.srq_size) / uint64_t(ranks) : 0;
        p.sq_depth = uint32_t(std::min<uint64_t>(p.sq_depth, room));
    }
    if (p.sq_depth < min_depth)
        return fail(PGDDS_ERR_UNSUPPORTED, "verbs: %d ranks need CQs of %llu entries per VCI, the device allows %u", ranks,
                    (unsigned long long)(uint64_t(ranks) * min_depth + p.srq_size), dev.max_cqe);
    p.cq_size = uint32_t(uint64_t(ranks) * p.sq_depth + p.srq_size);
    p.signal_interval = std::max(1u, p.sq_depth / 4);
    out = p;
    return PGDDS_OK;
}

// --- work requests ---------------------------------------------------------------------------
namespace {
// What every work request over one local buffer starts with: a cleared request whose single
// scatter-gather entry covers length bytes of the buffer (none for an empty one).
void start_wr(ibv_send_wr &wr, ibv_sge &sge, ibv_wr_opcode opcode, const local_buffer &buffer, uint32_t length,
              uint64_t wr_id)
{
    memset(&wr, 0, sizeof wr);
    sge.addr = buffer.addr;
    sge.length = length;
    sge.lkey = buffer.lkey;
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = length ? 1 : 0;
    wr.opcode = opcode;
}
}  // namespace

void build_rdma(ibv_send_wr &wr, ibv_sge &sge, ibv_wr_opcode opcode, const local_buffer &local, uint64_t remote_addr,
                uint32_t rkey, uint32_t max_inline, bool signaled, uint64_t wr_id)
{
    start_wr(wr, sge, opcode, local, local.length, wr_id);
    wr.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) |
                    (opcode == IBV_WR_RDMA_WRITE && use_inline(local.length, max_inline) ? IBV_SEND_INLINE : 0);
    wr.wr.rdma.remote_addr = remote_addr;
    wr.wr.rdma.rkey = rkey;
}

void build_fence_write(ibv_send_wr &wr, uint64_t remote_addr, uint32_t rkey, uint64_t wr_id)
{
    memset(&wr, 0, sizeof wr);
    wr.wr_id = wr_id;
    wr.sg_list = nullptr;
    wr.num_sge = 0;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = remote_addr;
    wr.wr.rdma.rkey = rkey;
}

void build_atomic(ibv_send_wr &wr, ibv_sge &sge, bool compare_swap, const local_buffer &result, uint64_t remote_addr,
                  uint32_t rkey, uint64_t compare_add, uint64_t swap, bool signaled, uint64_t wr_id)
{
    start_wr(wr, sge, compare_swap ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD, result, sizeof(uint64_t),
             wr_id);
    wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    wr.wr.atomic.remote_addr = remote_addr;
    wr.wr.atomic.rkey = rkey;
    wr.wr.atomic.compare_add = compare_add;
    wr.wr.atomic.swap = compare_swap ? swap : 0;
}

void build_send(ibv_send_wr &wr, ibv_sge &sge, const local_buffer &packet, uint32_t max_inline, bool signaled,
                uint64_t wr_id)
{
    start_wr(wr, sge, IBV_WR_SEND, packet, packet.length, wr_id);
    wr.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) | (use_inline(packet.length, max_inline) ? IBV_SEND_INLINE : 0);
}

// --- atomics ---------------------------------------------------------------------------------
amo_method method_for(amo_op op, unsigned width)
{
    if (op == AMO_LOAD) return amo_method::fetch_add;
    if (width == 8 && op == AMO_ADD) return amo_method::fetch_add;
    if (width == 8 && op == AMO_CSWAP) return amo_method::compare_swap;
    return amo_method::cas_loop;
}

namespace {
unsigned lane_shift(unsigned width, unsigned offset)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)width;
    return 8 * offset;
#else
    return 8 * (8 - offset - width);
#endif
}

uint64_t lane_mask(unsigned width) { return width == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * width)) - 1; }
}  // namespace

uint64_t lane_value(uint64_t word, unsigned width, unsigned offset)
{
    return (word >> lane_shift(width, offset)) & lane_mask(width);
}

uint64_t with_lane(uint64_t word, uint64_t value, unsigned width, unsigned offset)
{
    unsigned shift = lane_shift(width, offset);
    uint64_t mask = lane_mask(width) << shift;
    return (word & ~mask) | ((value << shift) & mask);
}

uint64_t next_word(uint64_t observed, amo_op op, uint64_t operand, uint64_t compare, unsigned width, unsigned offset)
{
    uint64_t old = lane_value(observed, width, offset);
    return with_lane(observed, amo_next_word(op, width, old, operand, compare), width, offset);
}

}  // namespace verbs
}  // namespace pgdds
