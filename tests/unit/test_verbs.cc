// The verbs transport's logic without a device: connection data, QP transitions, resource
// sizing, send-queue signaling, work requests, and atomics emulated with compare-and-swap,
// checked against the CPU's own atomics.
#include <catch2/catch.hpp>

#include "transport/verbs/verbs_logic.h"

#include <pgdds/pgdds.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <thread>

using namespace pgdds;
using namespace pgdds::verbs;

namespace {

connection_info sample_connection(uint32_t vcis, uint32_t ranks, uint8_t link_layer = IBV_LINK_LAYER_INFINIBAND)
{
    connection_info c;
    c.port.lid = 0x1234;
    c.port.port = 1;
    c.port.link_layer = link_layer;
    c.port.mtu = IBV_MTU_4096;
    c.port.gid_index = 3;
    for (int i = 0; i < 16; ++i) c.port.gid[i] = uint8_t(0xf0 + i);
    c.rkey = 0xabcdef01;
    c.seg_base = 0x7f0000001000ull;
    c.seg_size = 1ull << 28;
    c.vcis = vcis;
    c.ranks = ranks;
    for (uint32_t i = 0; i < vcis * ranks; ++i) c.qps.push_back(qp_address{0x100 + i, (0x5000 + i * 7) & 0xffffff});
    return c;
}

bool message_has(const char *text) { return std::string(pgdds_last_error()).find(text) != std::string::npos; }

// Byte offsets of a blob's fields (the wire layout of encode_connection).
constexpr size_t at_magic = 0, at_version = 4, at_lid = 6, at_seg_base = 12, at_seg_size = 20, at_vcis = 28,
                 at_ranks = 32, at_port = 36, at_link = 37, at_mtu = 38, at_gid = 40, at_qps = 56;

template <class T> void poke(std::vector<uint8_t> &b, size_t at, T v) { memcpy(b.data() + at, &v, sizeof v); }

// The same operation on a lane with the CPU's atomics (cpu_amo, checked by unit/amo), the
// reference.
uint64_t cpu_reference(uint64_t &word, amo_op op, uint64_t operand, uint64_t compare, unsigned width, unsigned offset)
{
    uint32_t old32 = 0;
    uint64_t old64 = 0;
    cpu_amo(reinterpret_cast<uint8_t *>(&word) + offset,
            amo_args{op, width, operand, compare, width == 4 ? static_cast<void *>(&old32) : &old64});
    return width == 4 ? old32 : old64;
}

// The transport's loop with the CPU's compare-and-swap standing in for the HCA's. Returns the
// fetched lane value; counts the attempts.
uint64_t emulate(std::atomic<uint64_t> &word, amo_op op, uint64_t operand, uint64_t compare, unsigned width,
                 unsigned offset, int *attempts = nullptr)
{
    cas_loop loop(op, operand, compare, width, offset);
    uint64_t expected, desired;
    while (loop.next_attempt(expected, desired)) {
        if (attempts) ++*attempts;
        uint64_t found = expected;
        word.compare_exchange_strong(found, desired);
        if (loop.attempt_returned(found)) break;
    }
    return loop.fetched();
}

const amo_op all_ops[] = {AMO_ADD, AMO_AND, AMO_OR, AMO_XOR, AMO_SWAP, AMO_CSWAP, AMO_LOAD};

}  // namespace

TEST_CASE("device specifications", "[verbs]")
{
    device_spec s;
    REQUIRE(parse_device_spec("", s));
    CHECK(s.name.empty());
    CHECK(s.port == 0);
    REQUIRE(parse_device_spec("mlx5_0", s));
    CHECK(s.name == "mlx5_0");
    CHECK(s.port == 0);
    REQUIRE(parse_device_spec("mlx5_0:2", s));
    CHECK(s.name == "mlx5_0");
    CHECK(s.port == 2);
    for (const char *bad : {":1", "mlx5_0:", "mlx5_0:x", "mlx5_0:0", "mlx5_0:256", "mlx5 0", "mlx5_0:1:2", "a/b"})
        CHECK_FALSE(parse_device_spec(bad, s));
}

TEST_CASE("connection data round trip", "[verbs]")
{
    for (uint8_t ll : {uint8_t(IBV_LINK_LAYER_INFINIBAND), uint8_t(IBV_LINK_LAYER_ETHERNET)}) {
        connection_info c = sample_connection(3, 5, ll);
        std::vector<uint8_t> blob = encode_connection(c);
        CHECK(blob.size() == at_qps + 3 * 5 * 8);
        connection_info d;
        REQUIRE(decode_connection(blob, 2, 3, 5, d) == PGDDS_OK);
        CHECK(d.port.lid == c.port.lid);
        CHECK(d.port.port == 1);
        CHECK(d.port.link_layer == ll);
        CHECK(d.port.mtu == IBV_MTU_4096);
        CHECK(d.port.gid_index == 3);
        CHECK(memcmp(d.port.gid, c.port.gid, 16) == 0);
        CHECK(d.rkey == c.rkey);
        CHECK(d.seg_base == c.seg_base);
        CHECK(d.seg_size == c.seg_size);
        REQUIRE(d.qps.size() == 15);
        for (unsigned v = 0; v < 3; ++v)
            for (int r = 0; r < 5; ++r) {
                CHECK(d.qp(v, r).qpn == c.qp(v, r).qpn);
                CHECK(d.qp(v, r).psn == c.qp(v, r).psn);
            }
    }
}

TEST_CASE("ill-formed connection data is rejected with the rank named", "[verbs]")
{
    const std::vector<uint8_t> good = encode_connection(sample_connection(2, 4));
    connection_info out;
    auto rejects = [&](std::vector<uint8_t> b, const char *why) {
        INFO(why);
        CHECK(decode_connection(b, 3, 2, 4, out) == PGDDS_ERR_TRANSPORT);
        CHECK(message_has("rank 3"));
    };
    // good with the field at `at` set to v.
    auto poked = [&](size_t at, auto v) {
        auto b = good;
        poke(b, at, v);
        return b;
    };
    rejects({}, "empty");
    rejects(std::vector<uint8_t>(good.begin(), good.begin() + 20), "truncated header");
    rejects(std::vector<uint8_t>(good.begin(), good.end() - 1), "truncated QP table");
    {
        auto b = good;
        b.push_back(0);
        rejects(b, "trailing byte");
    }
    rejects(poked(at_magic, uint32_t(0x12345678)), "magic");
    rejects(poked(at_version, uint16_t(9)), "version");
    rejects(poked(at_vcis, uint32_t(3)), "VCI count");
    rejects(poked(at_ranks, uint32_t(5)), "rank count");
    rejects(poked(at_port, uint8_t(0)), "port 0");
    for (uint8_t mtu : {uint8_t(0), uint8_t(6)}) rejects(poked(at_mtu, mtu), "MTU code");
    rejects(poked(at_link, uint8_t(7)), "link layer");
    {
        auto b = poked(at_link, uint8_t(IBV_LINK_LAYER_ETHERNET));
        memset(b.data() + at_gid, 0, 16);
        rejects(b, "RoCE without GID");
    }
    {
        auto b = poked(at_lid, uint16_t(0));
        memset(b.data() + at_gid, 0, 16);
        rejects(b, "InfiniBand without LID or GID");
    }
    {
        auto b = poked(at_lid, uint16_t(0));  // a GID is enough to route
        CHECK(decode_connection(b, 3, 2, 4, out) == PGDDS_OK);
    }
    rejects(poked(at_seg_base, uint64_t(0)), "segment address");
    rejects(poked(at_seg_size, uint64_t(0)), "segment size");
    for (uint32_t qpn : {0u, 1u, 0x1000000u}) rejects(poked(at_qps + 8 * 5, qpn), "QP number");
    rejects(poked(at_qps + 8 * 7 + 4, uint32_t(0x1000000)), "PSN");
}

TEST_CASE("QP state transitions", "[verbs]")
{
    qp_transition init = qp_to_init(2);
    CHECK(init.attr.qp_state == IBV_QPS_INIT);
    CHECK(init.attr.port_num == 2);
    CHECK(init.attr.pkey_index == 0);
    CHECK((init.attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE));
    CHECK((init.attr.qp_access_flags & IBV_ACCESS_REMOTE_READ));
    CHECK((init.attr.qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC));
    CHECK(init.mask == (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));

    port_address local, remote;
    local.port = 2;
    local.lid = 7;
    local.mtu = IBV_MTU_4096;
    local.gid_index = 1;
    remote.lid = 9;
    remote.mtu = IBV_MTU_2048;
    remote.gid[15] = 1;
    qp_transition rtr = qp_to_rtr(local, remote, 0x4242, 0x10101, 16);
    CHECK(rtr.attr.qp_state == IBV_QPS_RTR);
    CHECK(rtr.attr.path_mtu == IBV_MTU_2048);
    CHECK(rtr.attr.dest_qp_num == 0x4242);
    CHECK(rtr.attr.rq_psn == 0x10101);
    CHECK(rtr.attr.max_dest_rd_atomic == 16);
    CHECK(rtr.attr.min_rnr_timer > 0);
    CHECK(rtr.attr.ah_attr.dlid == 9);
    CHECK(rtr.attr.ah_attr.port_num == 2);
    CHECK(rtr.attr.ah_attr.is_global == 0);  // InfiniBand with a LID: no GRH
    const int rtr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                         IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    CHECK(rtr.mask == rtr_mask);

    remote.link_layer = IBV_LINK_LAYER_ETHERNET;
    qp_transition roce = qp_to_rtr(local, remote, 0x4242, 0x10101, 16);
    CHECK(roce.attr.ah_attr.is_global == 1);
    CHECK(roce.attr.ah_attr.grh.sgid_index == 1);
    CHECK(roce.attr.ah_attr.grh.dgid.raw[15] == 1);
    CHECK(roce.attr.ah_attr.grh.hop_limit > 1);
    remote.link_layer = IBV_LINK_LAYER_INFINIBAND;
    remote.lid = 0;
    CHECK(qp_to_rtr(local, remote, 0x4242, 0, 16).attr.ah_attr.is_global == 1);

    qp_transition rts = qp_to_rts(0xabcde, 8);
    CHECK(rts.attr.qp_state == IBV_QPS_RTS);
    CHECK(rts.attr.sq_psn == 0xabcde);
    CHECK(rts.attr.max_rd_atomic == 8);
    CHECK(rts.attr.retry_cnt == 7);
    CHECK(rts.attr.rnr_retry == 7);
    CHECK(rts.attr.timeout > 0);
    CHECK(rts.mask == (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                       IBV_QP_MAX_QP_RD_ATOMIC));
}

TEST_CASE("resource plans never let a CQ overrun", "[verbs]")
{
    device_limits mlx5{32768, 4194303, 32767, 16, 16};
    resource_plan p;
    REQUIRE(plan_resources(mlx5, 64, p) == PGDDS_OK);
    CHECK(p.sq_depth == 128);
    CHECK(p.signal_interval == 32);
    CHECK(p.srq_size == 512);
    CHECK(p.rd_atomic == 16);
    CHECK(uint64_t(p.cq_size) >= uint64_t(64) * p.sq_depth + p.srq_size);

    device_limits small = mlx5;
    small.max_cqe = 20000;
    REQUIRE(plan_resources(small, 1000, p) == PGDDS_OK);
    CHECK(p.sq_depth < 128);
    CHECK(p.sq_depth >= 8);
    CHECK(p.cq_size <= small.max_cqe);
    CHECK(uint64_t(p.cq_size) >= uint64_t(1000) * p.sq_depth + p.srq_size);
    CHECK(p.signal_interval >= 1);
    CHECK(p.signal_interval <= p.sq_depth);

    CHECK(plan_resources(small, 100000, p) == PGDDS_ERR_UNSUPPORTED);
    device_limits no_srq = mlx5;
    no_srq.max_srq_wr = 0;
    CHECK(plan_resources(no_srq, 4, p) == PGDDS_ERR_UNSUPPORTED);
    device_limits no_rd = mlx5;
    no_rd.max_qp_rd_atom = 0;
    CHECK(plan_resources(no_rd, 4, p) == PGDDS_ERR_UNSUPPORTED);
    device_limits few = mlx5;
    few.max_qp_rd_atom = 4;
    REQUIRE(plan_resources(few, 4, p) == PGDDS_OK);
    CHECK(p.rd_atomic == 4);
}

TEST_CASE("send queue signaling", "[verbs]")
{
    send_queue q(16, 4);
    CHECK(q.free_slots() == 16);
    CHECK(q.idle());
    // Cadence: every 4th WR when nobody needs a completion.
    std::vector<bool> sig;
    for (int i = 0; i < 8; ++i) {
        bool s = q.should_signal(false);
        sig.push_back(s);
        q.posted(s);
    }
    CHECK(sig == std::vector<bool>{false, false, false, true, false, false, false, true});
    CHECK_FALSE(q.tail_unsignaled());
    CHECK(q.should_signal(true));
    q.posted(false);
    CHECK(q.tail_unsignaled());
    CHECK(q.outstanding() == 9);
    // The completion of WR 3 retires WRs 0..3.
    CHECK(q.completed_through(3) == 4);
    CHECK(q.reached(3));
    CHECK_FALSE(q.reached(4));
    CHECK(q.completed_through(3) == 0);  // already retired
    CHECK(q.completed_through(9) == 0);  // never posted
    CHECK(q.completed_through(8) == 5);
    CHECK(q.idle());
}

TEST_CASE("a full send queue always holds a signaled WR", "[verbs]")
{
    // Random demands for completions; the device completes only what is signaled, in order.
    std::mt19937 rng(7);
    for (uint32_t depth : {8u, 16u, 128u}) {
        send_queue q(depth, std::max(1u, depth / 4));
        std::vector<bool> signaled;  // of outstanding WRs, oldest first
        for (int step = 0; step < 20000; ++step) {
            if (q.free_slots() > 0 && rng() % 3 != 0) {
                bool s = q.should_signal(rng() % 10 == 0);
                q.posted(s);
                signaled.push_back(s);
            } else {
                // Complete the oldest signaled WR, if any; a full queue must have one.
                auto it = std::find(signaled.begin(), signaled.end(), true);
                if (q.free_slots() == 0) REQUIRE(it != signaled.end());
                if (it == signaled.end()) continue;
                uint64_t seq = q.next_seq() - signaled.size() + uint64_t(it - signaled.begin());
                REQUIRE(q.completed_through(seq) == uint32_t(it - signaled.begin() + 1));
                signaled.erase(signaled.begin(), it + 1);
            }
            REQUIRE(q.outstanding() == signaled.size());
            REQUIRE(q.unsignaled_tail() < depth);
        }
    }
}

TEST_CASE("work-request ids", "[verbs]")
{
    for (int peer : {0, 1, 4095, 0x7fffffff})
        for (uint64_t seq : {0ull, 1ull, 0xffffffffull, 0x100000005ull}) {
            uint64_t id = send_wr_id(peer, seq);
            CHECK_FALSE(is_recv_wr_id(id));
            CHECK(wr_peer(id) == peer);
            CHECK(wr_seq_low(id) == uint32_t(seq));
        }
    uint64_t r = recv_wr_id(511);
    CHECK(is_recv_wr_id(r));
    CHECK(wr_buffer(r) == 511);
    // The full sequence number is recovered across the 32-bit wrap.
    CHECK(send_queue::sequence_near(0xfffffff0ull, 0x5) == 0x100000005ull);
    CHECK(send_queue::sequence_near(0x100000005ull, 0x10) == 0x100000010ull);
    CHECK(send_queue::sequence_near(7, 7) == 7);
}

TEST_CASE("work requests", "[verbs]")
{
    ibv_send_wr wr;
    ibv_sge sge;
    local_buffer small{0x1000, 8, 0}, big{0x2000, 4096, 0x55};
    build_rdma(wr, sge, IBV_WR_RDMA_WRITE, small, 0x9000, 0x77, 64, false, 42);
    CHECK(wr.opcode == IBV_WR_RDMA_WRITE);
    CHECK((wr.send_flags & IBV_SEND_INLINE));
    CHECK_FALSE((wr.send_flags & IBV_SEND_SIGNALED));
    CHECK(wr.wr_id == 42);
    CHECK(wr.num_sge == 1);
    CHECK(wr.sg_list == &sge);
    CHECK(sge.addr == 0x1000);
    CHECK(sge.length == 8);
    CHECK(wr.wr.rdma.remote_addr == 0x9000);
    CHECK(wr.wr.rdma.rkey == 0x77);
    CHECK(wr.next == nullptr);

    build_rdma(wr, sge, IBV_WR_RDMA_WRITE, big, 0x9000, 0x77, 64, true, 43);
    CHECK_FALSE((wr.send_flags & IBV_SEND_INLINE));
    CHECK((wr.send_flags & IBV_SEND_SIGNALED));
    CHECK(sge.lkey == 0x55);
    build_rdma(wr, sge, IBV_WR_RDMA_WRITE, small, 0x9000, 0x77, 0, false, 43);
    CHECK_FALSE((wr.send_flags & IBV_SEND_INLINE));  // a device without inline data
    build_rdma(wr, sge, IBV_WR_RDMA_READ, small, 0x9000, 0x77, 64, true, 44);
    CHECK(wr.opcode == IBV_WR_RDMA_READ);
    CHECK_FALSE((wr.send_flags & IBV_SEND_INLINE));  // reads are never inline

    build_fence_write(wr, 0x9000, 0x77, 45);
    CHECK(wr.opcode == IBV_WR_RDMA_WRITE);
    CHECK(wr.num_sge == 0);
    CHECK((wr.send_flags & IBV_SEND_SIGNALED));

    local_buffer result{0x3000, 8, 0x66};
    build_atomic(wr, sge, false, result, 0x9008, 0x77, 5, 0, true, 46);
    CHECK(wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD);
    CHECK(wr.wr.atomic.remote_addr == 0x9008);
    CHECK(wr.wr.atomic.rkey == 0x77);
    CHECK(wr.wr.atomic.compare_add == 5);
    CHECK(sge.length == 8);
    CHECK(sge.lkey == 0x66);
    build_atomic(wr, sge, true, result, 0x9008, 0x77, 1, 2, false, 47);
    CHECK(wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP);
    CHECK(wr.wr.atomic.compare_add == 1);
    CHECK(wr.wr.atomic.swap == 2);
    CHECK_FALSE((wr.send_flags & IBV_SEND_INLINE));

    build_send(wr, sge, small, 64, false, 48);
    CHECK(wr.opcode == IBV_WR_SEND);
    CHECK((wr.send_flags & IBV_SEND_INLINE));
    build_send(wr, sge, big, 64, true, 49);
    CHECK_FALSE((wr.send_flags & IBV_SEND_INLINE));
    CHECK((wr.send_flags & IBV_SEND_SIGNALED));
}

TEST_CASE("atomic methods", "[verbs]")
{
    CHECK(method_for(AMO_ADD, 8) == amo_method::fetch_add);
    CHECK(method_for(AMO_LOAD, 8) == amo_method::fetch_add);
    CHECK(method_for(AMO_LOAD, 4) == amo_method::fetch_add);
    CHECK(method_for(AMO_CSWAP, 8) == amo_method::compare_swap);
    for (amo_op op : {AMO_AND, AMO_OR, AMO_XOR, AMO_SWAP}) CHECK(method_for(op, 8) == amo_method::cas_loop);
    for (amo_op op : {AMO_ADD, AMO_AND, AMO_OR, AMO_XOR, AMO_SWAP, AMO_CSWAP})
        CHECK(method_for(op, 4) == amo_method::cas_loop);
    CHECK(word_of(0x1004) == 0x1000);
    CHECK(lane_offset(0x1004) == 4);
    CHECK(lane_offset(0x1008) == 0);
}

TEST_CASE("lanes match the host's memory layout", "[verbs]")
{
    uint64_t word = 0x1122334455667788ull;
    uint32_t halves[2];
    memcpy(halves, &word, sizeof halves);
    CHECK(lane_value(word, 4, 0) == halves[0]);
    CHECK(lane_value(word, 4, 4) == halves[1]);
    CHECK(lane_value(word, 8, 0) == word);
    uint64_t w2 = with_lane(word, 0xdeadbeef, 4, 4);
    memcpy(halves, &w2, sizeof halves);
    CHECK(halves[1] == 0xdeadbeef);
    CHECK(lane_value(w2, 4, 0) == lane_value(word, 4, 0));
}

TEST_CASE("compare-and-swap emulation equals the CPU's atomics", "[verbs]")
{
    std::mt19937_64 rng(11);
    const uint64_t interesting[] = {0, 1, 0xffffffffull, 0x100000000ull, 0xffffffff00000000ull, ~0ull,
                                    0xff00ff00ff00ff00ull, 0x8000000000000000ull};
    for (int trial = 0; trial < 4000; ++trial) {
        uint64_t init = trial < 64 ? interesting[trial % 8] : rng();
        uint64_t operand = trial < 64 ? interesting[(trial / 8) % 8] : rng();
        for (amo_op op : all_ops) {
            for (auto [width, offset] : {std::pair<unsigned, unsigned>{8, 0}, {4, 0}, {4, 4}}) {
                for (bool compare_matches : {false, true}) {
                    if (op != AMO_CSWAP && compare_matches) continue;
                    uint64_t compare = compare_matches ? lane_value(init, width, offset) : rng();
                    uint64_t ref = init;
                    uint64_t want = cpu_reference(ref, op, operand, compare, width, offset);
                    std::atomic<uint64_t> word(init);
                    uint64_t got = emulate(word, op, operand, compare, width, offset);
                    INFO("op " << amo_op_name(op) << " width " << width << " offset " << offset << " init " << std::hex
                               << init << " operand " << operand << " compare " << compare);
                    REQUIRE(got == (width == 4 ? uint32_t(want) : want));
                    REQUIRE(word.load() == ref);
                }
            }
        }
    }
}

TEST_CASE("compare-and-swap emulation takes one attempt on a word it guessed right", "[verbs]")
{
    std::atomic<uint64_t> word(0);
    int attempts = 0;
    CHECK(emulate(word, AMO_OR, 0x10, 0, 8, 0, &attempts) == 0);
    CHECK(attempts == 1);
    attempts = 0;
    CHECK(emulate(word, AMO_OR, 0x20, 0, 8, 0, &attempts) == 0x10);
    CHECK(attempts == 2);
    // A word read by an attempt that needs no change ends the loop: bits already set, or a
    // compare that fails.
    attempts = 0;
    CHECK(emulate(word, AMO_OR, 0x10, 0, 8, 0, &attempts) == 0x30);
    CHECK(attempts == 1);
    attempts = 0;
    CHECK(emulate(word, AMO_CSWAP, 5, 7, 4, 4, &attempts) == 0);
    CHECK(attempts == 1);  // the failed guess returned the word; its lane differs from 7: no write
    CHECK(word.load() == 0x30);
}

TEST_CASE("emulated atomics are exact under contention", "[verbs]")
{
    // Two threads add to each 32-bit half of one word, two toggle bits of a 64-bit word with
    // fetching XOR: totals are exact, halves stay independent, each toggler sees its own bit
    // alternate.
    std::atomic<uint64_t> counters(0), bits(0);
    const int iters = 20000;
    std::atomic<int> bad_toggles(0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < iters; ++i) emulate(counters, AMO_ADD, 1 + unsigned(t % 2), 0, 4, t < 2 ? 0 : 4);
        });
    for (int t = 0; t < 2; ++t)
        threads.emplace_back([&, t] {
            uint64_t bit = 1ull << (17 * t + 3);
            for (int i = 0; i < iters + 1; ++i) {
                uint64_t before = emulate(bits, AMO_XOR, bit, 0, 8, 0);
                if (((before & bit) != 0) != (i % 2 == 1)) bad_toggles++;
            }
        });
    for (auto &th : threads) th.join();
    CHECK(lane_value(counters.load(), 4, 0) == uint32_t(3 * iters));
    CHECK(lane_value(counters.load(), 4, 4) == uint32_t(3 * iters));
    CHECK(bits.load() == ((1ull << 3) | (1ull << 20)));
    CHECK(bad_toggles.load() == 0);
}

TEST_CASE("32-bit additions wrap inside their lane", "[verbs]")
{
    std::atomic<uint64_t> word(0x00000001ffffffffull);
    CHECK(emulate(word, AMO_ADD, 1, 0, 4, 0) == 0xffffffffu);
    CHECK(word.load() == 0x0000000100000000ull);  // no carry into the other half
    CHECK(emulate(word, AMO_ADD, 0xffffffffu, 0, 4, 4) == 1);
    CHECK(word.load() == 0);
}
