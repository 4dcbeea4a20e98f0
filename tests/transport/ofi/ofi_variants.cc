// The libfabric backend's own checks against the fake host, for paths that this machine's
// providers do not take by themselves: each variant opens a transport_ofi with forced options
// (ofi_options) and runs the conformance checks over it:
// - the layout of fabric domains that PGDDS_OFI_DOMAINS=auto did not take for the provider;
// - offset addressing (no FI_MR_VIRT_ADDR), descriptors for every local buffer (as FI_MR_LOCAL
//   demands), transfers split above a small largest message, and flushes by
//   FI_DELIVERY_COMPLETE.
// Then, on the default options: a flush makes data visible at a target that attends another
// endpoint only (its signals travel over a second instance of the backend), a get and a packet
// issued on VCI 1 complete on VCI 1 only, one thread per VCI contends on rank 0's words, and
// malformed input is refused.
#include "../../../src/transport/ofi/ofi.h"
#include "../conformance.h"

#include <rdma/fabric.h>

using namespace pgdds;

namespace {

std::unique_ptr<transport> make_ofi(const ofi_options &o = ofi_options())
{
    return std::unique_ptr<transport>(new transport_ofi(o));
}

transport_ofi &ofi(rig &u) { return static_cast<transport_ofi &>(*u.t); }

void set_defaults(fake_host &h)
{
    h.set_default("ATOMICS", "auto");
    h.set_default("DOMAINS", "auto");
}

// Runs the conformance checks on one variant; returns how many domains it opened (0: it could
// not run here, which only a provider without what the variant forces may cause).
size_t run_variant(rig &u, const char *name, const ofi_options &o)
{
    status st = u.bring_up(make_ofi(o), conf::seg_bytes);
    if (st != PGDDS_OK) {
        T_CHECK_MSG(st == PGDDS_ERR_UNSUPPORTED, "variant %s: bring-up failed: %s", name, pgdds_last_error());
        if (u.me == 0) printf("variant %s skipped: %s\n", name, pgdds_last_error());
        u.shut();
        return 0;
    }
    transport_ofi &t = ofi(u);
    const bool shm = strcmp(t.name(), "ofi/shm") == 0;
    // Unless the variant chooses, PGDDS_OFI_DOMAINS=auto: a domain per VCI on shm, one elsewhere.
    const bool per_vci = o.domains == 2 || (o.domains < 0 && shm);
    const size_t expected = per_vci ? u.host->endpoints() : 1;
    T_CHECK_MSG(t.domains() == expected, "%s opened %zu domains, expected %zu (layout %d)", t.name(), t.domains(),
                expected, o.domains);
    if (o.delivery_complete) T_CHECK(t.flushes_by_delivery_complete());
    // shm promises every ordering a fence needs; tcp;ofi_rxm does not (a fence there flushes).
    T_CHECK_MSG(t.fences_by_ordering() == shm, "%s fences by %s", t.name(), t.fences_by_ordering() ? "ordering" : "flush");
    if (!(o.mr_mode_offer & FI_MR_VIRT_ADDR)) T_CHECK(!(t.mr_mode() & FI_MR_VIRT_ADDR));
    if (o.max_transfer) T_CHECK(t.max_transfer() <= o.max_transfer);
    const int before = t_failures;
    check_rma(u);
    check_atomics(u);
    check_flush(u);
    check_fence(u);
    check_vcis(u);
    check_am(u, 0, o.delivery_complete ? 50 : 300);
    if (u.me == 0)
        printf("variant %s on %s (atomics %s): %s\n", name, t.name(), t.caps().atomics.c_str(),
               t_failures == before ? "passed" : "FAILED");
    const size_t domains = t.domains();
    u.bring_down();
    return domains;
}

// Signals over the second instance: {kind, round} packets.
enum { signal_progress, signal_flushed, signal_ack };

struct signals {
    rig &side;
    uint64_t last[3] = {0, 0, 0};
    void poll()
    {
        (void)side.progress_all();
        for (const auto &p : side.host->take(0)) {
            uint64_t msg[2];
            if (p.size() != sizeof msg) continue;
            memcpy(msg, p.data(), sizeof msg);
            if (msg[0] < 3) last[msg[0]] = msg[1];
        }
    }
    void send(int rank, uint64_t kind, uint64_t round)
    {
        const uint64_t msg[2] = {kind, round};
        T_OK(side.am_send(0, rank, msg, sizeof msg));
    }
};

// After flush(0) returns, data put and an atomic added on VCI 0 are in place at the target
// although the target has not called into the backend under test since: it progresses it only
// while the writer's operations are under way (asked to, over the second instance), never
// between the writer's flush and the check. Each round is acknowledged before the next.
void check_flush_visibility(rig &u, rig &side)
{
    if (u.n < 2) return;
    const uint64_t data = conf::misc_area + 49152, counter = data + 64;
    const bool atomics = u.t->caps().has_amo(AMO_ADD, 8);
    *u.word(data) = *u.word(counter) = 0;
    u.barrier();
    side.barrier();
    signals sig{side};
    const uint64_t rounds = 20;
    int late = 0;
    for (uint64_t round = 1; round <= rounds; ++round) {
        if (u.me == 0) {
            const uint64_t value = round * 1000 + 7;
            op_completion put_done, add_done, flushed;
            put_done.add();
            add_done.add();
            flushed.add();
            bool asked = false;
            auto ask = [&] {
                if (!asked) sig.send(1, signal_progress, round);
                asked = true;
            };
            // A provider may refuse an operation until the target has progressed (shm does while a
            // delivery-complete write awaits its acknowledgement).
            auto issue = [&](auto op) {
                status st;
                while ((st = op()) == PGDDS_ERR_AGAIN) {
                    ask();
                    T_OK(u.progress_all());
                    sig.poll();
                }
                return st;
            };
            T_OK(issue([&] { return u.t->put(0, 1, data, &value, sizeof value, &put_done); }));
            if (atomics) {
                amo_args add{AMO_ADD, 8, 1, 0, nullptr};
                T_OK(issue([&] { return u.t->amo(0, 1, counter, add, &add_done); }));
            } else {
                add_done.complete(PGDDS_OK);
            }
            T_OK(issue([&] { return u.t->flush(0, &flushed); }));
            if (!put_done.done() || !add_done.done() || !flushed.done()) ask();
            T_OK(u.wait(put_done));
            T_OK(u.wait(add_done));
            T_OK(u.wait(flushed));
            sig.send(1, signal_flushed, round);
            while (sig.last[signal_ack] != round) {
                T_OK(u.progress_all());
                sig.poll();
            }
        } else if (u.me == 1) {
            while (sig.last[signal_flushed] != round) {
                sig.poll();
                if (sig.last[signal_progress] == round && sig.last[signal_flushed] != round) T_OK(u.progress_all());
            }
            late += *u.word(data) != round * 1000 + 7 || (atomics && *u.word(counter) != round);
            sig.send(0, signal_ack, round);
        }
    }
    T_CHECK_MSG(late == 0, "%d of %llu flushed rounds were not visible at the target", late, (unsigned long long)rounds);
    side.barrier();
    u.barrier();
}

// Each VCI has its own endpoint and completion queue, and endpoint i of a rank talks to
// endpoint i of its peers: a get issued on VCI 1 completes only when VCI 1 is progressed, and a
// packet sent on VCI 1 reaches the peer's VCI 1, whatever the other VCIs do meanwhile.
void check_vci_separation(rig &u)
{
    const int right = (u.me + 1) % u.n;
    const uint64_t word_off = conf::misc_area + 49152 + 128;
    *u.word(word_off) = 0x5eed0000 + uint64_t(u.me);
    for (unsigned v = 0; v < u.host->endpoints(); ++v) u.host->take(v);
    u.barrier();
    // Connections of VCI 1 are set up before the observed phase (rxm connects on first use).
    uint64_t warm = 0;
    T_OK(u.get(1, right, word_off, &warm, 8));
    T_CHECK_MSG(warm == 0x5eed0000 + uint64_t(right), "warm-up get on VCI 1 returned %#llx", (unsigned long long)warm);
    const size_t in0 = u.host->packets(0), in1 = u.host->packets(1), ins = u.host->packets(u.service);
    u.barrier();

    const uint32_t pkt[4] = {0x5e9a4a7e, uint32_t(u.me), 7, 0};
    // Phase 1: issue on VCI 1, then progress only VCI 0 and the service VCI for a while.
    uint64_t got = 0;
    op_completion d;
    d.add();
    bool clean = true;  // no VCI 1 progress was needed to issue
    status st;
    while ((st = u.t->get(1, right, word_off, &got, 8, &d)) == PGDDS_ERR_AGAIN) {
        clean = false;
        T_OK(u.t->progress(1));
    }
    T_OK(st);
    while ((st = u.t->am_send(1, right, pkt, sizeof pkt)) == PGDDS_ERR_AGAIN) {
        clean = false;
        T_OK(u.t->progress(1));
    }
    T_OK(st);
    const double until = t_seconds() + 0.05;
    while (t_seconds() < until) {
        T_OK(u.t->progress(0));
        T_OK(u.t->progress(u.service));
        sched_yield();
    }
    if (clean)
        T_CHECK_MSG(!d.done(), "a get issued on VCI 1 completed while only VCIs 0 and %u were progressed", u.service);
    T_CHECK_MSG(u.host->packets(0) == in0 && u.host->packets(u.service) == ins,
                "a packet sent on VCI 1 arrived on another VCI");

    // Phase 2: everything progresses; the get and the packet complete on VCI 1.
    T_CHECK(u.progress_until([&] { return d.done() && u.host->packets(1) >= in1 + 1; }));
    T_OK(d.result);
    T_CHECK_MSG(got == 0x5eed0000 + uint64_t(right), "get on VCI 1 returned %#llx", (unsigned long long)got);
    T_CHECK_MSG(u.host->packets(1) == in1 + 1 && u.host->packets(0) == in0 && u.host->packets(u.service) == ins,
                "the packet sent on VCI 1 should be the one new packet, on VCI 1 (%zu %zu %zu, were %zu %zu %zu)",
                u.host->packets(0), u.host->packets(1), u.host->packets(u.service), in0, in1, ins);
    auto arrived = u.host->take(1);
    T_CHECK(arrived.size() == 1 && arrived[0].size() == sizeof pkt && memcmp(arrived[0].data(), pkt, 4) == 0);
    u.barrier();
}

// Malformed input: calls out of order, connection data that is not a peer's, an atomic of
// width 3, a packet above am_max_packet(); each refused with its status and a message.
void check_malformed(rig &u)
{
    void *p = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    T_CHECK(p != MAP_FAILED);
    if (p == MAP_FAILED) return;
    const size_t n = size_t(u.n);
    {
        transport_ofi unopened;
        std::vector<uint8_t> none;
        T_STATUS(unopened.register_segment(p, 1 << 20), PGDDS_ERR_STATE);
        T_STATUS(unopened.address(none), PGDDS_ERR_STATE);
        T_STATUS(unopened.connect(std::vector<std::vector<uint8_t>>(n)), PGDDS_ERR_STATE);
    }
    transport_ofi t;
    T_OK(t.open(*u.host));
    T_STATUS(t.open(*u.host), PGDDS_ERR_STATE);
    T_OK(t.register_segment(p, 1 << 20));
    std::vector<std::vector<uint8_t>> garbage(n, std::vector<uint8_t>{1, 2, 3});
    T_STATUS(t.connect(garbage), PGDDS_ERR_TRANSPORT);
    std::vector<uint8_t> blob;
    T_OK(t.address(blob));
    std::vector<std::vector<uint8_t>> wrong_size(n, blob);
    for (auto &b : wrong_size) b.pop_back();
    T_STATUS(t.connect(wrong_size), PGDDS_ERR_TRANSPORT);
    std::vector<std::vector<uint8_t>> bad_magic(n, blob);
    for (auto &b : bad_magic) b[0] ^= 0xff;
    T_STATUS(t.connect(bad_magic), PGDDS_ERR_TRANSPORT);
    T_STATUS(t.connect(std::vector<std::vector<uint8_t>>(n + 1, blob)), PGDDS_ERR_INVALID_ARG);
    amo_args odd{AMO_ADD, 3, 1, 0, nullptr};
    T_STATUS(t.amo(0, u.me, 4096, odd, nullptr), PGDDS_ERR_INVALID_ARG);
    std::vector<uint8_t> big(t.am_max_packet() + 1);
    T_STATUS(t.am_send(0, u.me, big.data(), big.size()), PGDDS_ERR_INVALID_ARG);
    t.close();
    t.close();
    munmap(p, 1 << 20);
}

}  // namespace

int main()
{
    rig u;
    u.start(transport_ofi().settings_prefix(), 3);
    conformance_logging(u.me);
    set_defaults(*u.host);

    ofi_options native;
    // The domain layout the provider takes under auto, then the other one.
    size_t domains = 0;
    {
        // One thread per user VCI in check_threads.
        u.host->set_threading(host_threading::concurrent);
        status st = u.bring_up(make_ofi(native), conf::seg_bytes);
        if (st != PGDDS_OK) {
            fprintf(stderr, "FAIL rank %d: bringing up ofi: %s\n", u.me, pgdds_last_error());
            return 1;
        }
        domains = ofi(u).domains();
        if (u.me == 0) printf("%s: %zu domain%s under PGDDS_OFI_DOMAINS=auto\n", u.t->name(), domains,
                              domains == 1 ? "" : "s");
        // A second instance of the backend carries the signals of the flush check.
        rig side;
        side.start_beside(u, transport_ofi().settings_prefix(), 1);
        set_defaults(*side.host);
        st = side.bring_up(make_ofi(native), 2 * rig_control_bytes);
        T_OK(st);
        if (st == PGDDS_OK) {
            check_flush_visibility(u, side);
            side.bring_down();
        }
        check_vci_separation(u);
        check_threads(u);
        u.bring_down();
        u.host->set_threading(host_threading::single);
    }
    ofi_options other_layout;
    other_layout.domains = domains == 1 ? 2 : 1;
    run_variant(u, domains == 1 ? "domain-per-vci" : "shared-domain", other_layout);

    ofi_options registration;
    registration.local_descriptors = true;
    registration.mr_mode_offer = ~uint64_t(FI_MR_VIRT_ADDR);
    registration.max_transfer = 4099;
    registration.delivery_complete = true;
    run_variant(u, "local-descriptors+offsets+split+delivery-complete", registration);

    check_malformed(u);
    return u.finish("transport/ofi variants");
}
