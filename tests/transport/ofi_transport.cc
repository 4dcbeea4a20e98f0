// Multi-rank tests of the libfabric transport itself, below the runtime, for what the core
// conformance test cannot see on this machine's providers: emulated atomics, offset addressing
// and descriptors for local buffers, transfers split above the largest message,
// delivery-complete flushes, a flush that must make data visible while the target attends only
// another VCI, bursts of active-message packets, and malformed input.
//
// An ordinary context provides identity, configuration (PGDDS_OFI_PROVIDER) and the delivery of
// packets to handlers; each variant opens its own transport_ofi with forced options over its
// own segment and drives it directly, progressing it itself.
#include "../../src/core/runtime.h"
#include "../../src/core/transport_host.h"
#include "../../src/transport/ofi/ofi.h"

#include "../harness.h"

#include <rdma/fabric.h>

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace pgdds;

namespace {

pgdds_context_t ctx;
runtime *rt;
std::unique_ptr<transport_host> host;  // the runtime, as the backends under test see it
int me, n;

// Layout of each variant's segment.
constexpr uint64_t barrier_word = 4096;   // counter on rank 0
constexpr uint64_t atomics_area = 8192;   // words on rank 0
constexpr uint64_t flush_area = 16384;    // data, counter and flag words on rank 1
constexpr uint64_t seen_area = 65536;     // fetched values of every rank, on rank 0
constexpr uint64_t rma_area = 1 << 20;    // what the left neighbour writes
constexpr uint64_t src_area = 5 << 20;    // sources inside the segment
constexpr uint64_t dst_area = 9 << 20;    // destinations inside the segment
constexpr size_t seg_bytes = 13 << 20;
constexpr size_t max_rma = (3 << 20) + 5;  // every size of test_rma fits in 3.5 MiB

struct burst_stats {
    int64_t count, bytes, bad;
};
burst_stats burst;
uint32_t burst_handler, signal_handler;

// Signals of test_flush_visibility, sent as active messages of the context: the round each
// kind was last sent for.
enum { signal_progress, signal_flushed, signal_ack };
volatile uint64_t signals[3];

void on_signal(pgdds_context_t, int, const void *payload, size_t size, void *)
{
    uint64_t msg[2];
    if (size != sizeof msg) return;
    memcpy(msg, payload, sizeof msg);
    if (msg[0] < 3) signals[msg[0]] = msg[1];
}

status send_signal(int rank, uint64_t kind, uint64_t round)
{
    uint64_t msg[2] = {kind, round};
    return pgdds_am_send(ctx, rank, signal_handler, msg, sizeof msg);
}

void on_burst(pgdds_context_t, int src, const void *payload, size_t size, void *)
{
    const auto *p = static_cast<const unsigned char *>(payload);
    burst.count++;
    burst.bytes += int64_t(size);
    for (size_t i = 0; i < size; ++i)
        if (p[i] != t_pattern(src, i + size)) {
            burst.bad++;
            break;
        }
}

struct under_test {
    transport_ofi t;
    uint8_t *seg = nullptr;
    unsigned service = 0;
    uint64_t epoch = 0;

    explicit under_test(const ofi_options &o) : t(o) {}
    ~under_test()
    {
        t.close();
        if (seg) munmap(seg, seg_bytes);
    }

    // Progresses every VCI; yields the CPU now and then, as the runtime does, because the
    // ranks of a test usually outnumber the cores.
    status progress_all()
    {
        for (unsigned v = 0; v < rt->num_endpoints(); ++v) {
            status st = t.progress(v);
            if (st != PGDDS_OK) return st;
        }
        if ((++spins & 63) == 0) sched_yield();
        return PGDDS_OK;
    }
    unsigned spins = 0;
    // Runs a transport call, progressing while it says AGAIN (as the runtime does).
    template <class Op> status issue(Op op)
    {
        status st;
        while ((st = op()) == PGDDS_ERR_AGAIN) {
            status pst = progress_all();
            if (pst != PGDDS_OK) return pst;
        }
        return st;
    }
    status wait(op_completion &d)
    {
        while (!d.done()) {
            status st = progress_all();
            if (st != PGDDS_OK) return st;
        }
        return d.result;
    }
    status flush(unsigned vci)
    {
        op_completion d;
        d.add();
        status st = issue([&] { return t.flush(vci, &d); });
        return st == PGDDS_OK ? wait(d) : st;
    }
    status amo(unsigned vci, int rank, uint64_t off, amo_op op, unsigned width, uint64_t operand, uint64_t compare,
               void *result)
    {
        op_completion d;
        d.add();
        amo_args a{op, width, operand, compare, result};
        status st = issue([&] { return t.amo(vci, rank, off, a, &d); });
        return st == PGDDS_OK ? wait(d) : st;
    }
    status put(unsigned vci, int rank, uint64_t off, const void *src, size_t len, bool with_completion)
    {
        op_completion d;
        d.add();
        status st = issue([&] { return t.put(vci, rank, off, src, len, with_completion ? &d : nullptr); });
        if (st != PGDDS_OK) return st;
        return with_completion ? wait(d) : PGDDS_OK;
    }
    status get(unsigned vci, int rank, uint64_t off, void *dst, size_t len, bool with_completion)
    {
        op_completion d;
        d.add();
        status st = issue([&] { return t.get(vci, rank, off, dst, len, with_completion ? &d : nullptr); });
        if (st != PGDDS_OK) return st;
        return with_completion ? wait(d) : flush(vci);
    }
    // A barrier through the transport under test, so that every rank keeps progressing it:
    // arrive on a counter of rank 0, poll it, then report leaving on a second counter. Rank 0
    // leaves last, once nobody polls it any more, so no operation is left waiting for a rank
    // that went on to a runtime collective (which does not progress this transport).
    void barrier()
    {
        ++epoch;
        const uint64_t all = epoch * uint64_t(n);
        for (uint64_t word : {barrier_word, barrier_word + 8}) {
            uint64_t v = 0;
            T_OK(amo(service, 0, word, AMO_ADD, 8, 1, 0, &v));
            if (word != barrier_word && me != 0) break;
            for (long spins = 0; v < all && spins < 100000000L; ++spins) {
                status st = amo(service, 0, word, AMO_LOAD, 8, 0, 0, &v);
                if (st != PGDDS_OK) {
                    T_OK(st);
                    break;
                }
            }
            T_CHECK_MSG(v >= all, "barrier %llu stuck at %llu", (unsigned long long)epoch, (unsigned long long)v);
        }
    }
};

// Every rank's verdict of one collective step; each rank learns whether all succeeded.
bool all_ok(status mine)
{
    int32_t bad = mine != PGDDS_OK, any = 0;
    T_OK(pgdds_allreduce(ctx, &bad, &any, 1, PGDDS_INT32, PGDDS_OP_MAX));
    return any == 0;
}

// Opens, registers and connects the transport; false when the variant cannot run here.
bool bring_up(under_test &u, const char *variant)
{
    status st = u.t.open(*host);
    if (!all_ok(st)) {
        if (me == 0) printf("variant %s skipped: %s\n", variant, pgdds_last_error());
        T_CHECK_MSG(st == PGDDS_OK || st == PGDDS_ERR_UNSUPPORTED, "open: %s", pgdds_last_error());
        return false;
    }
    u.service = rt->service_vci();
    void *p = mmap(nullptr, seg_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    T_CHECK(p != MAP_FAILED);
    if (p == MAP_FAILED) exit(1);
    u.seg = static_cast<uint8_t *>(p);
    T_OK(st = u.t.register_segment(u.seg, seg_bytes));
    std::vector<uint8_t> blob;
    if (st == PGDDS_OK) T_OK(st = u.t.address(blob));
    if (!all_ok(st)) return false;
    // Blobs are gathered with a length prefix at a common size.
    uint64_t len = blob.size(), max_len = 0;
    T_OK(pgdds_allreduce(ctx, &len, &max_len, 1, PGDDS_UINT64, PGDDS_OP_MAX));
    std::vector<uint8_t> mine(8 + max_len), all((8 + max_len) * size_t(n));
    memcpy(mine.data(), &len, 8);
    memcpy(mine.data() + 8, blob.data(), blob.size());
    T_OK(pgdds_allgather(ctx, mine.data(), all.data(), mine.size()));
    std::vector<std::vector<uint8_t>> peers(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
        const uint8_t *b = all.data() + size_t(r) * mine.size();
        uint64_t l;
        memcpy(&l, b, 8);
        peers[r].assign(b + 8, b + 8 + l);
    }
    T_OK(st = u.t.connect(peers));
    return all_ok(st);
}

// Every size at once into its own stretch of the right neighbour's segment, then read back.
void test_rma(under_test &u)
{
    const size_t sizes[] = {1, 8, 4097, 70001, max_rma};
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    size_t total = 0;
    for (size_t size : sizes) total += size + 64;
    std::vector<uint8_t> outside(total), back(total);
    // mode 0: local buffers outside the segment, with completion; 1: outside, completed by
    // flush; 2: inside the segment.
    for (int mode = 0; mode < 3; ++mode) {
        uint8_t *src = mode == 2 ? u.seg + src_area : outside.data();
        uint8_t *dst = mode == 2 ? u.seg + dst_area : back.data();
        memset(u.seg + rma_area, 0, total);
        memset(dst, 0, total);
        size_t off = 0;
        for (size_t size : sizes) {
            for (size_t i = 0; i < size; ++i) src[off + i] = t_pattern(me, i + size + size_t(mode));
            off += size + 64;
        }
        u.barrier();
        off = 0;
        for (size_t size : sizes) {
            T_OK(u.put(0, right, rma_area + off, src + off, size, mode != 1));
            off += size + 64;
        }
        T_OK(u.flush(0));
        u.barrier();
        off = 0;
        for (size_t size : sizes) {
            const uint8_t *mine = u.seg + rma_area + off;
            size_t bad = 0;
            for (size_t i = 0; i < size; ++i) bad += mine[i] != t_pattern(left, i + size + size_t(mode));
            T_CHECK_MSG(bad == 0, "%zu of %zu bytes wrong after put (mode %d)", bad, size, mode);
            T_CHECK(mine[size] == 0);
            T_OK(u.get(0, right, rma_area + off, dst + off, size, mode != 1));
            T_CHECK_MSG(memcmp(dst + off, src + off, size) == 0, "get of %zu bytes (mode %d) differs from what "
                        "was put", size, mode);
            off += size + 64;
        }
        u.barrier();
    }
}

void test_atomics(under_test &u)
{
    // Words on rank 0: +0 fetch-add, +8 plain add, +16 u32 fetch-add, +20 u32 cswap counter,
    // +24 u64 cswap counter, +32 or bits, +40 and mask, +48 xor, +56 swap, +64 plain swap,
    // +72 u32 xor (high half of the word is +76, untouched).
    uint8_t *w = u.seg + atomics_area;
    if (me == 0) {
        memset(w, 0, 128);
        const uint64_t ones = ~uint64_t(0);
        memcpy(w + 40, &ones, 8);
    }
    u.barrier();
    const int iters = 25;
    const int total = n * iters;
    std::vector<uint64_t> fetched;
    for (int i = 0; i < iters; ++i) {
        uint64_t f = ~uint64_t(0);
        T_OK(u.amo(0, 0, atomics_area, AMO_ADD, 8, 1, 0, &f));
        fetched.push_back(f);
        T_OK(u.amo(0, 0, atomics_area + 8, AMO_ADD, 8, 3, 0, nullptr));
        uint32_t f32 = 0;
        T_OK(u.amo(0, 0, atomics_area + 16, AMO_ADD, 4, 1, 0, &f32));
        T_CHECK(f32 < uint32_t(total));
        uint32_t c32 = 0, o32 = 0;
        for (int tries = 0; tries < 10000; ++tries) {
            T_OK(u.amo(0, 0, atomics_area + 20, AMO_CSWAP, 4, c32 + 1, c32, &o32));
            if (o32 == c32) break;
            c32 = o32;
        }
        uint64_t c64 = 0, o64 = 0;
        T_OK(u.amo(0, 0, atomics_area + 24, AMO_LOAD, 8, 0, 0, &c64));
        for (int tries = 0; tries < 10000; ++tries) {
            T_OK(u.amo(0, 0, atomics_area + 24, AMO_CSWAP, 8, c64 + 1, c64, &o64));
            if (o64 == c64) break;
            c64 = o64;
        }
    }
    uint64_t old = 0;
    T_OK(u.amo(0, 0, atomics_area + 32, AMO_OR, 8, uint64_t(1) << me, 0, &old));
    T_CHECK(!(old & (uint64_t(1) << me)));
    T_OK(u.amo(0, 0, atomics_area + 40, AMO_AND, 8, ~(uint64_t(1) << me), 0, &old));
    T_CHECK(old & (uint64_t(1) << me));
    T_OK(u.amo(0, 0, atomics_area + 48, AMO_XOR, 8, uint64_t(0xf0) << me, 0, &old));
    T_OK(u.amo(0, 0, atomics_area + 48, AMO_XOR, 8, uint64_t(0x0f) << me, 0, nullptr));
    T_OK(u.amo(0, 0, atomics_area + 56, AMO_SWAP, 8, uint64_t(me) + 1, 0, &old));
    T_CHECK(old <= uint64_t(n));
    T_OK(u.amo(0, 0, atomics_area + 64, AMO_SWAP, 8, uint64_t(me) + 100, 0, nullptr));
    uint32_t old32 = 0;
    T_OK(u.amo(0, 0, atomics_area + 72, AMO_XOR, 4, 0x80000001u << (me % 2), 0, &old32));
    T_OK(u.flush(0));
    u.barrier();

    uint64_t v = 0;
    uint32_t v32 = 0;
    T_OK(u.amo(0, 0, atomics_area, AMO_LOAD, 8, 0, 0, &v));
    T_CHECK_MSG(v == uint64_t(total), "fetch-add counter %llu, expected %d", (unsigned long long)v, total);
    T_OK(u.amo(0, 0, atomics_area + 8, AMO_LOAD, 8, 0, 0, &v));
    T_CHECK_MSG(v == 3 * uint64_t(total), "plain add counter %llu, expected %d", (unsigned long long)v, 3 * total);
    T_OK(u.amo(0, 0, atomics_area + 16, AMO_LOAD, 4, 0, 0, &v32));
    T_CHECK_MSG(v32 == uint32_t(total), "u32 add counter %u", v32);
    T_OK(u.amo(0, 0, atomics_area + 20, AMO_LOAD, 4, 0, 0, &v32));
    T_CHECK_MSG(v32 == uint32_t(total), "u32 cswap counter %u", v32);
    T_OK(u.amo(0, 0, atomics_area + 24, AMO_LOAD, 8, 0, 0, &v));
    T_CHECK_MSG(v == uint64_t(total), "u64 cswap counter %llu", (unsigned long long)v);
    uint64_t bits = 0, xor_bits = 0;
    uint32_t xor32 = 0;
    for (int r = 0; r < n; ++r) {
        bits |= uint64_t(1) << r;
        xor_bits ^= (uint64_t(0xf0) << r) ^ (uint64_t(0x0f) << r);
        xor32 ^= 0x80000001u << (r % 2);
    }
    T_OK(u.amo(0, 0, atomics_area + 32, AMO_LOAD, 8, 0, 0, &v));
    T_CHECK_MSG(v == bits, "or %#llx", (unsigned long long)v);
    T_OK(u.amo(0, 0, atomics_area + 40, AMO_LOAD, 8, 0, 0, &v));
    T_CHECK_MSG(v == ~bits, "and %#llx", (unsigned long long)v);
    T_OK(u.amo(0, 0, atomics_area + 48, AMO_LOAD, 8, 0, 0, &v));
    T_CHECK_MSG(v == xor_bits, "xor %#llx, expected %#llx", (unsigned long long)v, (unsigned long long)xor_bits);
    T_OK(u.amo(0, 0, atomics_area + 56, AMO_LOAD, 8, 0, 0, &v));
    T_CHECK(v >= 1 && v <= uint64_t(n));
    T_OK(u.amo(0, 0, atomics_area + 64, AMO_LOAD, 8, 0, 0, &v));
    T_CHECK(v >= 100 && v < 100 + uint64_t(n));
    T_OK(u.amo(0, 0, atomics_area + 72, AMO_LOAD, 4, 0, 0, &v32));
    T_CHECK_MSG(v32 == xor32, "u32 xor %#x, expected %#x", v32, xor32);
    T_OK(u.amo(0, 0, atomics_area + 76, AMO_LOAD, 4, 0, 0, &v32));
    T_CHECK(v32 == 0);

    // Rank 0 checks that every fetched value of the contended fetch-add appeared exactly once.
    T_OK(u.put(0, 0, seen_area + uint64_t(me) * iters * 8, fetched.data(), fetched.size() * 8, true));
    T_OK(u.flush(0));
    u.barrier();
    if (me == 0) {
        std::vector<int> count(size_t(total), 0);
        const auto *all = reinterpret_cast<const uint64_t *>(u.seg + seen_area);
        int bad = 0;
        for (int i = 0; i < total; ++i) {
            if (all[i] < uint64_t(total)) count[all[i]]++;
            else bad++;
        }
        for (int c : count) bad += c != 1;
        T_CHECK_MSG(bad == 0, "%d fetched values out of range, missing or repeated", bad);
    }
    u.barrier();
}

// After flush(0) returns, data put and atomics added on VCI 0 must be in place at the target
// although the target has not called into the transport under test since. The target calls
// into it only when the writer asks, because its flush waits for a read-back, and never
// between the writer's flush and the check. Requests and news travel through the context's
// own transport, a separate fabric domain (on tcp;ofi_rxm, reading any completion queue of a
// domain progresses all its endpoints). Each round is acknowledged before the next starts.
void test_flush_visibility(under_test &u)
{
    if (n < 2) return;
    volatile uint64_t *data = reinterpret_cast<uint64_t *>(u.seg + flush_area);
    volatile uint64_t *counter = reinterpret_cast<uint64_t *>(u.seg + flush_area + 64);
    *data = *counter = 0;
    signals[0] = signals[1] = signals[2] = 0;
    u.barrier();
    const uint64_t rounds = 20;
    int late = 0;
    for (uint64_t round = 1; round <= rounds; ++round) {
        if (me == 0) {
            // Emulated or delivery-complete operations need the target too: nothing waits
            // before the target has been asked to progress.
            uint64_t value = round * 1000 + 7;
            op_completion put_done, add_done, flushed;
            put_done.add();
            add_done.add();
            flushed.add();
            amo_args add{AMO_ADD, 8, 1, 0, nullptr};
            // A provider may also refuse an operation until the target has progressed (shm
            // does while a delivery-complete write awaits its acknowledgement).
            bool asked = false;
            auto ask = [&] {
                if (!asked) T_OK(send_signal(1, signal_progress, round));
                asked = true;
            };
            auto issue = [&](auto op) {
                status st;
                while ((st = op()) == PGDDS_ERR_AGAIN) {
                    ask();
                    T_OK(u.progress_all());
                    T_OK(pgdds_progress(ctx));
                }
                return st;
            };
            T_OK(issue([&] { return u.t.put(0, 1, flush_area, &value, sizeof value, &put_done); }));
            T_OK(issue([&] { return u.t.amo(0, 1, flush_area + 64, add, &add_done); }));
            T_OK(issue([&] { return u.t.flush(0, &flushed); }));
            if (!put_done.done() || !add_done.done() || !flushed.done()) ask();
            T_OK(u.wait(put_done));
            T_OK(u.wait(add_done));
            T_OK(u.wait(flushed));
            T_OK(send_signal(1, signal_flushed, round));
            while (signals[signal_ack] != round) {
                T_OK(u.progress_all());
                T_OK(pgdds_progress(ctx));
            }
        } else if (me == 1) {
            while (signals[signal_flushed] != round) {
                T_OK(pgdds_progress(ctx));
                if (signals[signal_progress] == round && signals[signal_flushed] != round) T_OK(u.progress_all());
            }
            late += *data != round * 1000 + 7 || *counter != round;
            T_OK(send_signal(0, signal_ack, round));
        }
    }
    T_CHECK_MSG(late == 0, "%d of %llu flushed rounds were not visible at the target", late,
                (unsigned long long)rounds);
    u.barrier();
}

// Every rank sends packets of many sizes to every rank at once; rank 0 starts receiving late,
// so packets pile up unexpected at the provider. Every packet must arrive intact.
void test_am_burst(under_test &u)
{
    const int per_dest = 100;
    const size_t hdr = sizeof(am_packet_header), max_payload = u.t.am_max_packet() - hdr;
    std::vector<uint8_t> pkt(u.t.am_max_packet());
    burst = burst_stats{0, 0, 0};
    u.barrier();
    // Every sender sends the same sizes to a given destination.
    auto size_of = [&](int i, int dest) {
        return i == 0 ? max_payload : (size_t(i) * 7919 + size_t(dest) * 131) % max_payload + (i % 3 == 0 ? 0 : 1);
    };
    int64_t expected_bytes = 0;
    for (int i = 0; i < per_dest; ++i) expected_bytes += int64_t(size_of(i, me)) * n;
    uint32_t msg_id = 0;
    for (int i = 0; i < per_dest; ++i) {
        for (int r = 0; r < n; ++r) {
            const size_t size = size_of(i, r);
            am_packet_header h{burst_handler, me, msg_id++, uint32_t(size), 0, 0};
            memcpy(pkt.data(), &h, hdr);
            for (size_t k = 0; k < size; ++k) pkt[hdr + k] = t_pattern(me, k + size);
            T_OK(u.issue([&] { return u.t.am_send(0, r, pkt.data(), hdr + size); }));
        }
        if (me == 0 && i == 0) usleep(100000);
    }
    const int64_t want = int64_t(per_dest) * n;
    for (long spins = 0; burst.count < want && spins < 200000000L; ++spins) {
        T_OK(u.progress_all());
        T_OK(pgdds_progress(ctx));
    }
    T_CHECK_MSG(burst.count == want, "received %lld of %lld packets", (long long)burst.count, (long long)want);
    T_CHECK(burst.bad == 0);
    T_CHECK_MSG(burst.bytes == expected_bytes, "received %lld of %lld bytes", (long long)burst.bytes,
                (long long)expected_bytes);
    u.barrier();
}

// Each VCI has its own endpoint and completion queue, and endpoint i of a rank talks to
// endpoint i of its peers: a get issued on VCI 1 completes only when VCI 1 is progressed, and a
// packet sent on VCI 1 reaches the peer's VCI 1, whatever the other VCIs do meanwhile.
void test_vci_separation(under_test &u)
{
    if (rt->num_vcis() < 2) {
        if (me == 0) printf("per-VCI checks skipped: PGDDS_NUM_VCIS is below 2\n");
        return;
    }
    const int right = (me + 1) % n;
    const uint64_t word_off = flush_area + 128;
    uint64_t *word = reinterpret_cast<uint64_t *>(u.seg + word_off);
    *word = 0x5eed0000 + uint64_t(me);
    u.barrier();
    // Connections of VCI 1 are set up before the observed phase (rxm connects on first use).
    uint64_t warm = 0;
    T_OK(u.get(1, right, word_off, &warm, 8, true));
    T_CHECK_MSG(warm == 0x5eed0000 + uint64_t(right), "warm-up get on VCI 1 returned %#llx",
                (unsigned long long)warm);
    // Counted before the barrier that releases the senders.
    vci &v0 = rt->vci_at(0), &v1 = rt->vci_at(1), &vs = rt->vci_at(rt->service_vci());
    const uint32_t in0 = v0.inbox_count.load(), in1 = v1.inbox_count.load(), ins = vs.inbox_count.load();
    u.barrier();

    const size_t hdr = sizeof(am_packet_header), size = 40;
    std::vector<uint8_t> pkt(hdr + size);
    am_packet_header h{burst_handler, me, 7, uint32_t(size), 0, 0};
    memcpy(pkt.data(), &h, hdr);
    for (size_t k = 0; k < size; ++k) pkt[hdr + k] = t_pattern(me, k + size);
    burst = burst_stats{0, 0, 0};

    // Phase 1: issue on VCI 1, then progress only VCI 0 and the service VCI for a while.
    uint64_t got = 0;
    op_completion d;
    d.add();
    bool clean = true;  // no VCI 1 progress was needed to issue
    status st;
    while ((st = u.t.get(1, right, word_off, &got, 8, &d)) == PGDDS_ERR_AGAIN) {
        clean = false;
        T_OK(u.t.progress(1));
    }
    T_OK(st);
    while ((st = u.t.am_send(1, right, pkt.data(), pkt.size())) == PGDDS_ERR_AGAIN) {
        clean = false;
        T_OK(u.t.progress(1));
    }
    T_OK(st);
    const double until = now_seconds() + 0.05;
    while (now_seconds() < until) {
        T_OK(u.t.progress(0));
        T_OK(u.t.progress(rt->service_vci()));
        sched_yield();
    }
    if (clean) T_CHECK_MSG(!d.done(), "a get issued on VCI 1 completed while only VCIs 0 and %u were progressed",
                           rt->service_vci());
    T_CHECK_MSG(v0.inbox_count.load() == in0 && vs.inbox_count.load() == ins,
                "a packet sent on VCI 1 arrived on another VCI");

    // Phase 2: everything progresses; the get and the packet complete on VCI 1.
    for (long spins = 0; (!d.done() || v1.inbox_count.load() < in1 + 1) && spins < 100000000L; ++spins)
        T_OK(u.progress_all());
    T_CHECK(d.done());
    T_OK(d.result);
    T_CHECK_MSG(got == 0x5eed0000 + uint64_t(right), "get on VCI 1 returned %#llx", (unsigned long long)got);
    T_CHECK_MSG(v1.inbox_count.load() == in1 + 1 && v0.inbox_count.load() == in0 && vs.inbox_count.load() == ins,
                "the packet sent on VCI 1 should be the one new message, on VCI 1 (inboxes %u %u %u, were %u %u %u)",
                v0.inbox_count.load(), v1.inbox_count.load(), vs.inbox_count.load(), in0, in1, ins);
    for (long spins = 0; burst.count < 1 && spins < 10000000L; ++spins) T_OK(pgdds_progress(ctx));
    T_CHECK(burst.count == 1 && burst.bad == 0 && burst.bytes == int64_t(size));
    u.barrier();
}

// One thread per user VCI on every rank, each driving only its own VCI: contended fetch-adds
// (a window in flight) and compare-and-swap increments on words of rank 0, so that with emulated atomics several
// threads of rank 0 execute requests on the same words at once (each serving its own VCI's
// endpoint). Every fetched value must be unique and the counters exact. A thread that is done
// keeps serving its VCI until every thread of every rank is.
struct thread_result {
    std::vector<uint64_t> fetched;
    int failures = 0;
};

std::atomic<unsigned> threads_started;

void thread_worker(under_test &u, unsigned v, int iters, int cas_iters, uint64_t words, thread_result &out)
{
    unsigned spins = 0;
    auto progress = [&] {
        status st = u.t.progress(v);
        if ((++spins & 63) == 0) sched_yield();
        return st;
    };
    auto amo = [&](uint64_t off, amo_op op, uint64_t operand, uint64_t compare, uint64_t *result) {
        op_completion d;
        d.add();
        amo_args a{op, 8, operand, compare, result};
        status st;
        while ((st = u.t.amo(v, 0, off, a, &d)) == PGDDS_ERR_AGAIN)
            if ((st = progress()) != PGDDS_OK) return st;
        if (st != PGDDS_OK) return st;
        while (!d.done())
            if ((st = progress()) != PGDDS_OK) return st;
        return d.result;
    };
    auto check = [&](status st, const char *what) {
        if (st == PGDDS_OK) return true;
        out.failures++;
        fprintf(stderr, "FAIL rank %d VCI %u: %s: %s\n", me, v, what, pgdds_last_error());
        return false;
    };
    // Every thread of the rank starts the fetch-adds at once.
    threads_started.fetch_add(1);
    while (threads_started.load() < rt->num_vcis())
        if (!check(progress(), "progress")) return;
    // Fetch-adds, a window of them in flight, so that the targets' threads serve batches.
    const int window = 16;
    std::vector<op_completion> done(static_cast<size_t>(iters));
    out.fetched.assign(size_t(iters), ~uint64_t(0));
    for (int issued = 0, completed = 0; completed < iters;) {
        while (issued < iters && issued - completed < window) {
            done[size_t(issued)].add();
            amo_args a{AMO_ADD, 8, 1, 0, &out.fetched[size_t(issued)]};
            status st = u.t.amo(v, 0, words, a, &done[size_t(issued)]);
            if (st == PGDDS_ERR_AGAIN) {
                done[size_t(issued)].pending.store(0);
                break;
            }
            // Operations in flight name `done`: a failure here ends the process.
            if (!check(st, "fetch-add")) abort();
            ++issued;
        }
        if (!check(progress(), "progress")) abort();
        for (; completed < issued && done[size_t(completed)].done(); ++completed)
            if (!check(done[size_t(completed)].result, "fetch-add")) abort();
    }
    for (int i = 0; i < cas_iters; ++i) {
        uint64_t cur = 0, old = 0;
        if (!check(amo(words + 8, AMO_LOAD, 0, 0, &cur), "load")) return;
        for (;;) {
            if (!check(amo(words + 8, AMO_CSWAP, cur + 1, cur, &old), "compare-and-swap")) return;
            if (old == cur) break;
            cur = old;
        }
    }
    const uint64_t all = uint64_t(n) * rt->num_vcis();
    uint64_t seen = 0;
    if (!check(amo(words + 16, AMO_ADD, 1, 0, &seen), "arrival")) return;
    ++seen;  // this thread
    for (long polls = 0; seen < all && polls < 10000000L; ++polls)
        if (!check(amo(words + 16, AMO_LOAD, 0, 0, &seen), "arrival poll")) return;
    if (seen < all) {
        out.failures++;
        fprintf(stderr, "FAIL rank %d VCI %u: only %llu of %llu threads arrived\n", me, v, (unsigned long long)seen,
                (unsigned long long)all);
    }
}

void test_threads(under_test &u)
{
    const unsigned threads = rt->num_vcis();
    const int iters = 1000, cas_iters = 100;
    const uint64_t words = atomics_area + 256;
    if (me == 0) memset(u.seg + words, 0, 24);
    u.barrier();
    std::vector<thread_result> results(threads);
    // pgdds-run binds a rank to one core where there are enough; the threads, which inherit
    // the creator's affinity, must really run at once to contend.
    cpu_set_t bound, every;
    const bool rebind = sched_getaffinity(0, sizeof bound, &bound) == 0;
    CPU_ZERO(&every);
    for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; ++c) CPU_SET(c, &every);
    if (rebind) sched_setaffinity(0, sizeof every, &every);
    std::vector<std::thread> pool;
    threads_started = 0;
    for (unsigned v = 0; v < threads; ++v)
        pool.emplace_back(thread_worker, std::ref(u), v, iters, cas_iters, words, std::ref(results[v]));
    if (rebind) sched_setaffinity(0, sizeof bound, &bound);
    for (auto &t : pool) t.join();
    std::vector<uint64_t> mine;
    for (auto &r : results) {
        t_failures += r.failures;
        T_CHECK_MSG(r.fetched.size() == size_t(iters), "a thread fetched %zu values", r.fetched.size());
        mine.insert(mine.end(), r.fetched.begin(), r.fetched.end());
    }
    mine.resize(size_t(iters) * threads, ~uint64_t(0));
    const uint64_t total = uint64_t(n) * threads * uint64_t(iters);
    T_OK(u.put(0, 0, seen_area + uint64_t(me) * mine.size() * 8, mine.data(), mine.size() * 8, true));
    T_OK(u.flush(0));
    u.barrier();
    if (me == 0) {
        const auto *w = reinterpret_cast<const volatile uint64_t *>(u.seg + words);
        T_CHECK_MSG(w[0] == total, "fetch-add counter %llu, expected %llu", (unsigned long long)w[0],
                    (unsigned long long)total);
        const uint64_t cas_total = uint64_t(n) * threads * uint64_t(cas_iters);
        T_CHECK_MSG(w[1] == cas_total, "compare-and-swap counter %llu, expected %llu", (unsigned long long)w[1],
                    (unsigned long long)cas_total);
        std::vector<int> count(total, 0);
        const auto *all = reinterpret_cast<const uint64_t *>(u.seg + seen_area);
        int bad = 0;
        for (uint64_t i = 0; i < total; ++i) {
            if (all[i] < total) count[all[i]]++;
            else bad++;
        }
        for (int c : count) bad += c != 1;
        T_CHECK_MSG(bad == 0, "%d values fetched by %u threads per rank out of range, missing or repeated", bad,
                    threads);
    }
    u.barrier();
}

void test_bad_input()
{
    void *p = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    {
        under_test unopened{ofi_options()};
        std::vector<uint8_t> none;
        T_STATUS(unopened.t.register_segment(p, 1 << 20), PGDDS_ERR_STATE);
        T_STATUS(unopened.t.address(none), PGDDS_ERR_STATE);
        T_STATUS(unopened.t.connect(std::vector<std::vector<uint8_t>>(size_t(n))), PGDDS_ERR_STATE);
    }
    under_test u{ofi_options()};
    T_OK(u.t.open(*host));
    T_STATUS(u.t.open(*host), PGDDS_ERR_STATE);
    T_OK(u.t.register_segment(p, 1 << 20));
    std::vector<std::vector<uint8_t>> garbage(size_t(n), std::vector<uint8_t>{1, 2, 3});
    T_STATUS(u.t.connect(garbage), PGDDS_ERR_TRANSPORT);
    std::vector<uint8_t> blob;
    T_OK(u.t.address(blob));
    std::vector<std::vector<uint8_t>> wrong_size(size_t(n), blob);
    for (auto &b : wrong_size) b.pop_back();
    T_STATUS(u.t.connect(wrong_size), PGDDS_ERR_TRANSPORT);
    std::vector<std::vector<uint8_t>> bad_magic(size_t(n), blob);
    for (auto &b : bad_magic) b[0] ^= 0xff;
    T_STATUS(u.t.connect(bad_magic), PGDDS_ERR_TRANSPORT);
    T_STATUS(u.t.connect(std::vector<std::vector<uint8_t>>(size_t(n) + 1, blob)), PGDDS_ERR_INVALID_ARG);
    amo_args odd{AMO_ADD, 3, 1, 0, nullptr};
    T_STATUS(u.t.amo(0, me, 4096, odd, nullptr), PGDDS_ERR_INVALID_ARG);
    std::vector<uint8_t> big(u.t.am_max_packet() + 1);
    T_STATUS(u.t.am_send(0, me, big.data(), big.size()), PGDDS_ERR_INVALID_ARG);
    u.t.close();
    u.t.close();
    munmap(p, 1 << 20);
}

// Returns how many domains the transport opened (0 when the variant could not run).
size_t run_variant(const char *name, const ofi_options &o)
{
    under_test u{o};
    if (!bring_up(u, name)) return 0;
    // Unless the variant chooses, PGDDS_OFI_DOMAINS=auto: a domain per VCI on shm, one elsewhere.
    const bool shm = strcmp(u.t.name(), "ofi/shm") == 0;
    const bool per_vci = o.domains == 2 || (o.domains < 0 && shm);
    const size_t expected = per_vci ? rt->num_endpoints() : 1;
    T_CHECK_MSG(u.t.domains() == expected, "%s opened %zu domains, expected %zu (layout %d)", u.t.name(),
                u.t.domains(), expected, o.domains);
    if (o.delivery_complete) T_CHECK(u.t.flushes_by_delivery_complete());
    // shm promises every ordering a fence needs; tcp;ofi_rxm does not (a fence there flushes).
    T_CHECK_MSG(u.t.fences_by_ordering() == shm, "%s fences by %s", u.t.name(),
                u.t.fences_by_ordering() ? "ordering" : "flush");
    if (!(o.mr_mode_offer & FI_MR_VIRT_ADDR)) T_CHECK(!(u.t.mr_mode() & FI_MR_VIRT_ADDR));
    if (o.max_transfer) T_CHECK(u.t.max_transfer() <= o.max_transfer);
    int before = t_failures;
    test_rma(u);
    test_atomics(u);
    test_flush_visibility(u);
    test_vci_separation(u);
    test_threads(u);
    if (!o.local_descriptors && !o.delivery_complete) test_am_burst(u);
    if (me == 0)
        printf("variant %s on %s (atomics %s): %s\n", name, u.t.name(), u.t.caps().atomics.c_str(),
               t_failures == before ? "passed" : "FAILED");
    // Nobody may close while a peer still issues operations to it.
    u.barrier();
    T_OK(pgdds_barrier(ctx));
    return u.t.domains();
}

}  // namespace

int main()
{
    ctx = t_init(nullptr);
    rt = runtime::from(ctx);
    host = make_transport_host(*rt, transport_ofi(ofi_options()));
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    T_OK(pgdds_am_register(ctx, on_burst, nullptr, &burst_handler));
    T_OK(pgdds_am_register(ctx, on_signal, nullptr, &signal_handler));

    ofi_options native;
    const size_t domains = run_variant("native", native);

    // The layout of domains that PGDDS_OFI_DOMAINS=auto did not take for this provider.
    ofi_options other_layout;
    other_layout.domains = domains == 1 ? 2 : 1;
    if (domains) run_variant(domains == 1 ? "domain-per-vci" : "shared-domain", other_layout);

    ofi_options registration;
    registration.local_descriptors = true;
    registration.mr_mode_offer = ~uint64_t(FI_MR_VIRT_ADDR);
    registration.max_transfer = 4099;
    registration.delivery_complete = true;
    run_variant("local-descriptors+offsets+split+delivery-complete", registration);

    test_bad_input();
    return t_finish(ctx, "transport/ofi");
}
