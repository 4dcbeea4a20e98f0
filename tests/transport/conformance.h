// The backend-level conformance checks: what every transport backend must do against its host,
// whichever backend it is. Each check takes a rig that has brought a backend up
// (rig::bring_up) and is collective over the rig's ranks. conformance.cc runs them all for the
// backend that PGDDS_TRANSPORT names; backend directories (tests/transport/ofi/) run them on
// variants of their backend and add their own.
#pragma once

#include "../../src/base/parse.h"
#include "rig.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

namespace pgdds {

// The segment of a conformance run and its layout (above the rig's control area).
namespace conf {
constexpr uint64_t peer_area = 65536;        // a word that each rank writes into its own segment
constexpr uint64_t atomics_area = 131072;    // words on rank 0, 32 bytes per operation and width
constexpr uint64_t seen_area = 262144;       // fetched values of every rank, on rank 0
constexpr uint64_t misc_area = 524288;       // flush, fence and per-VCI words
constexpr uint64_t rma_area = 1 << 20;       // what a rank's left neighbour (or itself) writes
constexpr uint64_t src_area = 5 << 20;       // sources inside the segment
constexpr size_t seg_bytes = 9 << 20;
constexpr size_t rma_sizes[] = {1, 2, 3, 8, 13, 64, 511, 4097, 70001, (1 << 20) + 1, (2 << 20) + 5};
}  // namespace conf

// A byte of the pattern that `rank` writes at position i of a transfer of `size` in round `r`.
inline uint8_t conf_byte(int rank, size_t i, size_t size, int round)
{
    return t_pattern(rank, i + size * 3 + size_t(round) * 101);
}

// The backend is the one its configuration asked for (PGDDS_OFI_PROVIDER, UCX_TLS), so that no
// configuration silently tests another.
inline void check_name(rig &u, const char *backend)
{
    const std::string name = u.t->name();
    std::string want = backend;
    const char *prov = getenv("PGDDS_OFI_PROVIDER"), *tls = getenv("UCX_TLS");
    if (want == "ofi" && prov && *prov) want += std::string("/") + prov;
    else if (want == "ucx" && tls && *tls && !strchr(tls, ',')) want += std::string("/") + tls;
    const bool exact = want.find('/') != std::string::npos || want == "shm";
    T_CHECK_MSG(exact ? name == want : name.compare(0, want.size() + 1, want + "/") == 0,
                "the configuration asks for %s, but the backend is %s", want.c_str(), name.c_str());
}

// peer_pointer: where a backend maps a segment, it is the segment (each rank wrote a word into
// its own segment before the barrier; the others read it through the mapping).
inline void check_peer_pointer(rig &u)
{
    *u.word(conf::peer_area) = 0x9e3779b97f4a7c15ull ^ uint64_t(u.me);
    u.barrier();
    int mapped = 0;
    for (int r = 0; r < u.n; ++r) {
        void *p = u.t->peer_pointer(r);
        if (!p) continue;
        ++mapped;
        if (r == u.me) T_CHECK_MSG(p == u.seg, "peer_pointer(self) is %p, the segment is %p", p, (void *)u.seg);
        const uint64_t v = *reinterpret_cast<volatile uint64_t *>(static_cast<uint8_t *>(p) + conf::peer_area);
        T_CHECK_MSG(v == (0x9e3779b97f4a7c15ull ^ uint64_t(r)), "rank %d's segment through peer_pointer holds %#llx",
                    r, (unsigned long long)v);
    }
    if (strcmp(u.t->name(), "shm") == 0) T_CHECK_MSG(mapped == u.n, "shm maps %d of %d segments", mapped, u.n);
    u.barrier();
}

// Put and get of many sizes at odd offsets, to itself and to the right neighbour, from buffers
// outside the segment (completed one by one) and inside it (completed by flush); every byte is
// checked, and the byte after each transfer is left alone.
inline void check_rma(rig &u, unsigned vci = 0)
{
    size_t total = 0;
    for (size_t size : conf::rma_sizes) total += size + 64;
    std::vector<uint8_t> heap_src(total), heap_dst(total);
    const int right = (u.me + 1) % u.n, left = (u.me - 1 + u.n) % u.n;
    int round = 0;
    for (int target : {u.me, right}) {
        const int writer = target == u.me ? u.me : left;
        for (int mode = 0; mode < 2; ++mode, ++round) {
            const bool in_segment = mode == 1;
            uint8_t *src = in_segment ? u.seg + conf::src_area : heap_src.data();
            std::vector<uint8_t> back(total);
            memset(u.seg + conf::rma_area, 0, total + 64);
            size_t off = 0;
            for (size_t size : conf::rma_sizes) {
                for (size_t i = 0; i < size; ++i) src[off + i] = conf_byte(u.me, i, size, round);
                off += size + 64;
            }
            u.barrier();
            off = 1;  // odd offsets: every transfer starts one byte into its stretch
            for (size_t size : conf::rma_sizes) {
                T_OK(u.put(vci, target, conf::rma_area + off, src + off - 1, size, !in_segment));
                off += size + 64;
            }
            T_OK(u.flush(vci));
            u.barrier();
            off = 1;
            for (size_t size : conf::rma_sizes) {
                const uint8_t *mine = u.seg + conf::rma_area + off;
                size_t bad = 0, first = size;
                for (size_t i = 0; i < size; ++i)
                    if (mine[i] != conf_byte(writer, i, size, round)) bad++, first = std::min(first, i);
                T_CHECK_MSG(bad == 0, "put of %zu bytes from rank %d (%s): %zu bytes wrong, the first at %zu", size,
                            writer, in_segment ? "source in the segment" : "source on the heap", bad, first);
                T_CHECK_MSG(mine[-1] == 0 && mine[size] == 0, "put of %zu bytes wrote outside its bytes", size);
                off += size + 64;
            }
            u.barrier();
            // Read back what this rank put, into a buffer outside or inside the segment.
            uint8_t *dst = in_segment ? u.seg + conf::src_area : back.data();
            if (in_segment) memset(dst, 0, total);
            off = 1;
            for (size_t size : conf::rma_sizes) {
                T_OK(u.get(vci, target, conf::rma_area + off, dst + off - 1, size, !in_segment));
                off += size + 64;
            }
            off = 1;
            for (size_t size : conf::rma_sizes) {
                size_t bad = 0;
                for (size_t i = 0; i < size; ++i) bad += dst[off - 1 + i] != conf_byte(u.me, i, size, round);
                T_CHECK_MSG(bad == 0, "get of %zu bytes from rank %d: %zu bytes differ from what was put", size, target,
                            bad);
                off += size + 64;
            }
            u.barrier();
        }
    }
}

// Every atomic that caps() reports, per width, all ranks hammering one word of rank 0; exact
// final values, and every fetched value distinct where the operation makes that checkable.
inline void check_atomics(rig &u, int iters = 20)
{
    const transport_caps caps = u.t->caps();
    if (caps.amo_ops[0] == 0 && caps.amo_ops[1] == 0) {
        if (u.me == 0) printf("atomics: none at backend level (%s; the core serves them)\n", caps.atomics.c_str());
        return;
    }
    const int n = u.n, me = u.me;
    const uint64_t all_bits = n >= 64 ? ~0ull : (1ull << n) - 1;
    for (unsigned width : {4u, 8u}) {
        const uint64_t mask = width == 4 ? 0xffffffffull : ~0ull;
        for (int o = 0; o < AMO_COUNT; ++o) {
            const amo_op op = amo_op(o);
            if (!caps.has_amo(op, width)) {
                if (me == 0) printf("atomics: %s/%u not offered by %s\n", amo_op_name(op), width * 8, u.t->name());
                continue;
            }
            // Slot: +0 the contended word, +8 the guard word after it (untouched), +16 a word for
            // the non-fetching form.
            const uint64_t slot = conf::atomics_area + uint64_t(o * 2 + (width == 8)) * 32;
            const uint64_t guard = 0x5a5a5a5a5a5a5a5aull;
            uint64_t init = 0;
            if (op == AMO_AND) init = mask;
            if (me == 0) {
                memset(u.seg + slot, 0, 32);
                memcpy(u.seg + slot, &init, width);
                memcpy(u.seg + slot + 16, &init, width);
                *u.word(slot + 8) = guard;
            }
            u.barrier();
            std::vector<uint64_t> fetched;
            auto fetch = [&](uint64_t off, uint64_t operand, uint64_t compare, uint64_t *out) {
                uint64_t r = 0;
                status st = u.amo(0, 0, off, op, width, operand, compare, &r);
                T_OK(st);
                if (out) *out = r & mask;
                return st;
            };
            auto post = [&](uint64_t off, uint64_t operand) {
                amo_args a{op, width, operand, 0, nullptr};
                T_OK(u.issue([&] { return u.t->amo(0, 0, off, a, nullptr); }));
            };
            const uint64_t bit = 1ull << (me % (width * 8));
            uint64_t expect = 0, expect_posted = 0;
            bool check_posted = true;
            switch (op) {
            case AMO_ADD:
                for (int i = 0; i < iters; ++i) {
                    uint64_t f;
                    fetch(slot, 1, 0, &f);
                    fetched.push_back(f);
                    post(slot + 16, 3);
                }
                expect = uint64_t(n) * iters;
                expect_posted = 3 * uint64_t(n) * iters;
                break;
            case AMO_AND:
            case AMO_OR: {
                uint64_t f = 0;
                const uint64_t operand = op == AMO_AND ? (~bit & mask) : bit;
                fetch(slot, operand, 0, &f);
                // This rank's bit was untouched before (ranks beyond the width share bits).
                if (n <= int(width * 8)) T_CHECK_MSG(op == AMO_AND ? (f & bit) != 0 : (f & bit) == 0,
                                                   "fetching %s/%u returned %#llx", amo_op_name(op), width * 8,
                                                   (unsigned long long)f);
                post(slot + 16, operand);
                const uint64_t bits = n >= int(width * 8) ? mask : all_bits;
                expect = expect_posted = op == AMO_AND ? (~bits & mask) : bits;
                break;
            }
            case AMO_XOR: {
                const uint64_t a = (0xf0ull << (me % 24)) | (width == 8 ? 1ull << 63 : 1ull << 31);
                for (int i = 0; i < 3; ++i) fetch(slot, a, 0, nullptr);
                for (int i = 0; i < 3; ++i) post(slot + 16, a);
                for (int r = 0; r < n; ++r) expect ^= ((0xf0ull << (r % 24)) | (width == 8 ? 1ull << 63 : 1ull << 31));
                expect &= mask;
                expect_posted = expect;
                break;
            }
            case AMO_SWAP: {
                // Every value swapped in is swapped out once, but the last: the fetched values
                // and the final one are together each rank's values exactly once.
                for (int i = 0; i < iters; ++i) {
                    uint64_t f;
                    fetch(slot, uint64_t(me) * iters + i + 1, 0, &f);
                    fetched.push_back(f);
                }
                post(slot + 16, uint64_t(me) + 100);
                check_posted = false;
                break;
            }
            case AMO_CSWAP: {
                // Increments by compare-and-swap; every successful old value is distinct.
                for (int i = 0; i < iters; ++i) {
                    uint64_t cur = 0, old = 0;
                    for (int tries = 0; tries < 100000; ++tries) {
                        if (fetch(slot, (cur + 1) & mask, cur, &old) != PGDDS_OK) break;
                        if (old == cur) break;
                        cur = old;
                    }
                    fetched.push_back(cur);
                }
                expect = uint64_t(n) * iters;
                check_posted = false;
                break;
            }
            case AMO_LOAD: {
                uint64_t f = 1;
                fetch(slot, 0, 0, &f);
                T_CHECK_MSG(f == 0, "load/%u returned %#llx", width * 8, (unsigned long long)f);
                check_posted = false;
                break;
            }
            default: break;
            }
            T_OK(u.flush(0));
            // Rank 0 gathers the fetched values to check them.
            const uint64_t per_rank = uint64_t(fetched.size());
            if (per_rank) T_OK(u.put(0, 0, conf::seen_area + uint64_t(me) * per_rank * 8, fetched.data(), per_rank * 8));
            T_OK(u.flush(0));
            u.barrier();
            if (me == 0) {
                uint64_t got = 0, posted = 0;
                memcpy(&got, u.seg + slot, width);
                memcpy(&posted, u.seg + slot + 16, width);
                const char *name = amo_op_name(op);
                if (op != AMO_SWAP && op != AMO_LOAD)
                    T_CHECK_MSG(got == expect, "%s/%u: the word holds %#llx, expected %#llx", name, width * 8,
                                (unsigned long long)got, (unsigned long long)expect);
                if (check_posted)
                    T_CHECK_MSG(posted == expect_posted, "posted %s/%u: the word holds %#llx, expected %#llx", name,
                                width * 8, (unsigned long long)posted, (unsigned long long)expect_posted);
                T_CHECK_MSG(*u.word(slot + 8) == guard, "%s/%u wrote past its word", name, width * 8);
                if (op == AMO_SWAP) T_CHECK_MSG(posted >= 100 && posted < 100 + uint64_t(n), "posted swap/%u left %#llx",
                                                width * 8, (unsigned long long)posted);
                if (per_rank) {
                    const auto *all = reinterpret_cast<const uint64_t *>(u.seg + conf::seen_area);
                    std::vector<uint64_t> values(all, all + per_rank * uint64_t(n));
                    if (op == AMO_SWAP) values.push_back(got);
                    std::sort(values.begin(), values.end());
                    // ADD, CSWAP: 0 .. n*iters-1; SWAP: 0 and every value swapped in.
                    std::vector<uint64_t> want;
                    if (op == AMO_SWAP) {
                        want.push_back(0);
                        for (int r = 0; r < n; ++r)
                            for (int i = 0; i < iters; ++i) want.push_back(uint64_t(r) * iters + i + 1);
                    } else {
                        for (uint64_t i = 0; i < per_rank * uint64_t(n); ++i) want.push_back(i);
                    }
                    std::sort(want.begin(), want.end());
                    T_CHECK_MSG(values == want, "%s/%u: the fetched values are not each expected value exactly once",
                                name, width * 8);
                }
            }
            // Every rank reads the final word through the backend too.
            if (caps.has_amo(AMO_LOAD, width) && op != AMO_SWAP && op != AMO_LOAD) {
                uint64_t v = 0;
                T_OK(u.amo(0, 0, slot, AMO_LOAD, width, 0, 0, &v));
                T_CHECK_MSG((v & mask) == expect, "%s/%u: load through the backend returned %#llx, expected %#llx",
                            amo_op_name(op), width * 8, (unsigned long long)v, (unsigned long long)expect);
            }
            u.barrier();
        }
    }
}

// A flush makes puts and posted atomics (issued without completion) visible at their target:
// the target reads them from its memory after a barrier.
inline void check_flush(rig &u, unsigned vci = 0)
{
    const bool atomics = u.t->caps().has_amo(AMO_ADD, 8);
    const uint64_t data = conf::misc_area + 1, counter = conf::misc_area + 4096;
    const int right = (u.me + 1) % u.n, left = (u.me - 1 + u.n) % u.n;
    memset(u.seg + conf::misc_area, 0, 8192);
    u.barrier();
    for (int round = 1; round <= 10; ++round) {
        uint8_t block[257];
        for (size_t i = 0; i < sizeof block; ++i) block[i] = conf_byte(u.me, i, sizeof block, round);
        T_OK(u.put(vci, right, data, block, sizeof block, false));
        if (atomics) {
            amo_args a{AMO_ADD, 8, 1, 0, nullptr};
            T_OK(u.issue([&] { return u.t->amo(vci, right, counter, a, nullptr); }));
        }
        T_OK(u.flush(vci));
        u.barrier();
        size_t bad = 0;
        for (size_t i = 0; i < sizeof block; ++i) bad += u.seg[data + i] != conf_byte(left, i, sizeof block, round);
        T_CHECK_MSG(bad == 0, "round %d: %zu bytes of a flushed put are not visible at the target", round, bad);
        if (atomics)
            T_CHECK_MSG(*u.word(counter) == uint64_t(round), "round %d: a flushed posted add is not visible (%llu)",
                        round, (unsigned long long)*u.word(counter));
        u.barrier();
    }
}

// Fence ordering: rounds of a data block, a fence, then a flag; the target that sees a round's
// flag sees that round's data (and that of every earlier round).
inline void check_fence(rig &u, unsigned vci = 0)
{
    const int rounds = 40;
    const size_t block = 509;
    const uint64_t flag = conf::misc_area + 8192, data = conf::misc_area + 16384;
    const int right = (u.me + 1) % u.n, left = (u.me - 1 + u.n) % u.n;
    memset(u.seg + conf::misc_area + 8192, 0, 16384 + rounds * 512);
    u.barrier();
    uint64_t checked = 0;
    int late = 0;
    auto check_incoming = [&] {
        const uint64_t f = __atomic_load_n(reinterpret_cast<uint64_t *>(u.seg + flag), __ATOMIC_ACQUIRE);
        for (; checked < f; ++checked) {
            const uint8_t *d = u.seg + data + checked * 512;
            for (size_t i = 0; i < block; ++i)
                if (d[i] != conf_byte(left, i, block, int(checked))) {
                    ++late;
                    break;
                }
        }
    };
    std::vector<uint8_t> src(block);
    for (int r = 0; r < rounds; ++r) {
        for (size_t i = 0; i < block; ++i) src[i] = conf_byte(u.me, i, block, r);
        T_OK(u.put(vci, right, data + uint64_t(r) * 512, src.data(), block, false));
        T_OK(u.fence(vci));
        const uint64_t f = uint64_t(r) + 1;
        T_OK(u.put(vci, right, flag, &f, 8, false));
        check_incoming();
    }
    T_OK(u.flush(vci));
    T_CHECK_MSG(u.progress_until([&] {
        check_incoming();
        return checked >= uint64_t(rounds);
    }),
                "only %llu of %d flags arrived", (unsigned long long)checked, rounds);
    T_CHECK_MSG(late == 0, "%d of %d rounds: the flag arrived before the data fenced ahead of it", late, rounds);
    u.barrier();
}

// Active-message packets: every rank sends a burst to every rank (itself included), of every
// size up to am_max_packet(); rank 0 starts receiving late so that packets pile up (and senders
// meet AGAIN). Every packet arrives once, intact, on the VCI it was sent on.
inline void check_am(rig &u, unsigned vci = 0, int per_dest = 300)
{
    const size_t max = u.t->am_max_packet();
    T_CHECK_MSG(max >= 64, "am_max_packet() is %zu", max);
    // Every 50th packet of the largest size, the others up to 8 KiB (UCX carries packets of a
    // MiB: a burst of those would only measure the copying).
    const size_t small = std::min(max, size_t(8192));
    auto size_of = [&](int i, int dest) -> size_t {
        if (i % 50 == 0) return max;
        if (i == 1) return 12;
        return 12 + (size_t(i) * 7919 + size_t(dest) * 131) % (small - 11);
    };
    u.host->take(vci);
    const size_t before = u.host->packets(vci);
    u.barrier();
    std::vector<uint8_t> pkt(max);
    for (int i = 0; i < per_dest; ++i) {
        for (int r = 0; r < u.n; ++r) {
            const size_t size = size_of(i, r);
            const uint32_t head[3] = {0xfa4e0a11u, uint32_t(u.me), uint32_t(i)};
            memcpy(pkt.data(), head, 12);
            for (size_t k = 12; k < size; ++k) pkt[k] = t_pattern(u.me, k + size);
            T_OK(u.am_send(vci, r, pkt.data(), size));
        }
        if (u.me == 0 && i == 0) usleep(100000);
    }
    const size_t want = size_t(per_dest) * size_t(u.n);
    T_CHECK_MSG(u.progress_until([&] { return u.host->packets(vci) - before >= want; }),
                "received %zu of %zu packets", u.host->packets(vci) - before, want);
    std::vector<std::vector<uint8_t>> got = u.host->take(vci);
    std::set<std::pair<uint32_t, uint32_t>> seen;
    size_t bad = 0;
    for (const auto &p : got) {
        uint32_t head[3] = {0, 0, 0};
        if (p.size() < 12) {
            ++bad;
            continue;
        }
        memcpy(head, p.data(), 12);
        if (head[0] != 0xfa4e0a11u || head[1] >= uint32_t(u.n) || head[2] >= uint32_t(per_dest) ||
            p.size() != size_of(int(head[2]), u.me) || !seen.insert({head[1], head[2]}).second) {
            ++bad;
            continue;
        }
        for (size_t k = 12; k < p.size(); ++k)
            if (p[k] != t_pattern(int(head[1]), k + p.size())) {
                ++bad;
                break;
            }
    }
    T_CHECK_MSG(got.size() == want && seen.size() == want && bad == 0,
                "VCI %u: %zu packets arrived, %zu distinct and intact, %zu bad; expected %zu", vci, got.size(),
                seen.size(), bad, want);
    for (unsigned v = 0; v < u.host->endpoints(); ++v)
        if (v != vci) T_CHECK_MSG(u.host->take(v).empty(), "packets sent on VCI %u arrived on VCI %u", vci, v);
    u.barrier();
}

// Every endpoint works on its own: a put, a get and a packet on each VCI, the packet arriving
// on the same VCI at the peer.
inline void check_vcis(rig &u)
{
    const unsigned nv = u.host->endpoints();
    const int right = (u.me + 1) % u.n, left = (u.me - 1 + u.n) % u.n;
    const uint64_t base = conf::misc_area + 32768;
    memset(u.seg + base, 0, 8 * nv);
    for (unsigned v = 0; v < nv; ++v) u.host->take(v);
    u.barrier();
    for (unsigned v = 0; v < nv; ++v) {
        const uint64_t val = 0x7c100000ull + uint64_t(u.me) * 16 + v;
        T_OK(u.put(v, right, base + 8 * v, &val, 8));
        T_OK(u.flush(v));
        const uint32_t pkt[3] = {0x7c1u, uint32_t(u.me), v};
        T_OK(u.am_send(v, right, pkt, sizeof pkt));
    }
    const size_t expected_per_vci = 1;
    T_CHECK_MSG(u.progress_until([&] {
        for (unsigned v = 0; v < nv; ++v)
            if (u.host->packets(v) < expected_per_vci) return false;
        return true;
    }),
                "a packet did not arrive on every VCI");
    u.barrier();
    for (unsigned v = 0; v < nv; ++v) {
        const uint64_t want = 0x7c100000ull + uint64_t(left) * 16 + v;
        T_CHECK_MSG(*u.word(base + 8 * v) == want, "VCI %u: the put left %#llx", v, (unsigned long long)*u.word(base + 8 * v));
        uint64_t got = 0;
        T_OK(u.get(v, right, base + 8 * v, &got, 8));
        T_CHECK_MSG(got == 0x7c100000ull + uint64_t(u.me) * 16 + v, "VCI %u: get returned %#llx", v, (unsigned long long)got);
        auto pkts = u.host->take(v);
        T_CHECK_MSG(pkts.size() == 1, "VCI %u: %zu packets", v, pkts.size());
        if (pkts.size() == 1 && pkts[0].size() == 12) {
            uint32_t p[3];
            memcpy(p, pkts[0].data(), 12);
            T_CHECK_MSG(p[0] == 0x7c1u && p[1] == uint32_t(left) && p[2] == v, "VCI %u: packet {%#x, %u, %u}", v,
                        p[0], p[1], p[2]);
        }
    }
    u.barrier();
}

// One thread per user VCI on every rank, each driving only its own VCI (the host's threading
// must be concurrent): contended fetch-adds with a window in flight, then compare-and-swap
// increments, on words of rank 0, whose threads serve their VCIs meanwhile. Every fetched value
// must be unique and the counters exact. A thread that is done keeps serving its VCI until every
// thread of every rank is.
inline void check_threads(rig &u, int iters = 1000, int cas_iters = 100)
{
    const transport_caps caps = u.t->caps();
    if (!caps.has_amo(AMO_ADD, 8) || !caps.has_amo(AMO_CSWAP, 8) || !caps.has_amo(AMO_LOAD, 8)) {
        if (u.me == 0) printf("threads: skipped, the backend offers no 64-bit add, compare-and-swap and load\n");
        return;
    }
    const unsigned threads = u.host->endpoints() - 1;
    const uint64_t words = conf::atomics_area + 4096;
    if (u.me == 0) memset(u.seg + words, 0, 24);
    u.barrier();
    std::atomic<unsigned> started{0};
    std::atomic<int> failures{0};
    std::vector<std::vector<uint64_t>> fetched(threads);
    auto worker = [&](unsigned v) {
        unsigned spins = 0;
        auto progress = [&] {
            status st = u.t->progress(v);
            if ((++spins & 63) == 0) sched_yield();
            return st;
        };
        auto check = [&](status st, const char *what) {
            if (st == PGDDS_OK) return true;
            failures++;
            fprintf(stderr, "FAIL rank %d VCI %u: %s: %s\n", u.me, v, what, pgdds_last_error());
            return false;
        };
        auto amo = [&](uint64_t off, amo_op op, uint64_t operand, uint64_t compare, uint64_t *result) {
            op_completion d;
            d.add();
            amo_args a{op, 8, operand, compare, result};
            status st;
            while ((st = u.t->amo(v, 0, off, a, &d)) == PGDDS_ERR_AGAIN)
                if ((st = progress()) != PGDDS_OK) return st;
            if (st != PGDDS_OK) return st;
            while (!d.done())
                if ((st = progress()) != PGDDS_OK) return st;
            return d.result;
        };
        started++;
        while (started.load() < threads)
            if (!check(progress(), "progress")) return;
        const int window = 16;
        std::vector<op_completion> done(static_cast<size_t>(iters));
        std::vector<uint64_t> &out = fetched[v];
        out.assign(size_t(iters), ~uint64_t(0));
        for (int issued = 0, completed = 0; completed < iters;) {
            while (issued < iters && issued - completed < window) {
                done[size_t(issued)].add();
                amo_args a{AMO_ADD, 8, 1, 0, &out[size_t(issued)]};
                status st = u.t->amo(v, 0, words, a, &done[size_t(issued)]);
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
        const uint64_t all = uint64_t(u.n) * threads;
        uint64_t seen = 0;
        if (!check(amo(words + 16, AMO_ADD, 1, 0, &seen), "arrival")) return;
        ++seen;  // this thread
        const double until = t_seconds() + 60;
        while (seen < all && t_seconds() < until)
            if (!check(amo(words + 16, AMO_LOAD, 0, 0, &seen), "arrival poll")) return;
        if (seen < all) {
            failures++;
            fprintf(stderr, "FAIL rank %d VCI %u: only %llu of %llu threads arrived\n", u.me, v,
                    (unsigned long long)seen, (unsigned long long)all);
        }
    };
    // pgdds-run binds a rank to one core where there are enough; the threads, which inherit the
    // creator's affinity, must really run at once to contend.
    cpu_set_t bound, every;
    const bool rebind = sched_getaffinity(0, sizeof bound, &bound) == 0;
    CPU_ZERO(&every);
    for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; ++c) CPU_SET(c, &every);
    if (rebind) sched_setaffinity(0, sizeof every, &every);
    std::vector<std::thread> pool;
    for (unsigned v = 0; v < threads; ++v) pool.emplace_back(worker, v);
    if (rebind) sched_setaffinity(0, sizeof bound, &bound);
    for (auto &t : pool) t.join();
    t_failures += failures.load();
    std::vector<uint64_t> mine;
    for (auto &f : fetched) {
        T_CHECK_MSG(f.size() == size_t(iters), "a thread fetched %zu values", f.size());
        mine.insert(mine.end(), f.begin(), f.end());
    }
    mine.resize(size_t(iters) * threads, ~uint64_t(0));
    const uint64_t total = uint64_t(u.n) * threads * uint64_t(iters);
    T_OK(u.put(0, 0, conf::seen_area + uint64_t(u.me) * mine.size() * 8, mine.data(), mine.size() * 8));
    T_OK(u.flush(0));
    u.barrier();
    if (u.me == 0) {
        const auto *w = reinterpret_cast<const volatile uint64_t *>(u.seg + words);
        T_CHECK_MSG(w[0] == total, "fetch-add counter %llu, expected %llu", (unsigned long long)w[0],
                    (unsigned long long)total);
        const uint64_t cas_total = uint64_t(u.n) * threads * uint64_t(cas_iters);
        T_CHECK_MSG(w[1] == cas_total, "compare-and-swap counter %llu, expected %llu", (unsigned long long)w[1],
                    (unsigned long long)cas_total);
        std::vector<int> count(total, 0);
        const auto *all = reinterpret_cast<const uint64_t *>(u.seg + conf::seen_area);
        int bad = 0;
        for (uint64_t i = 0; i < total; ++i) {
            if (all[i] < total) count[all[i]]++;
            else bad++;
        }
        for (int c : count) bad += c != 1;
        T_CHECK_MSG(bad == 0, "%d values fetched by %u threads per rank out of range, missing or repeated", bad, threads);
    }
    u.barrier();
}

// The result of an operation that may fail at once or at completion (or at the next flush).
template <class Op> status outcome(rig &u, unsigned vci, Op op)
{
    op_completion d;
    d.add();
    status st = u.issue([&] { return op(&d); });
    if (st != PGDDS_OK) return st;
    st = u.wait(d);
    status fst = u.flush(vci);
    return st != PGDDS_OK ? st : fst;
}

// Bad input gives an error status, never a crash: an offset past the peer's segment for put,
// get and atomics, an atomic of width 3, a packet above am_max_packet().
inline void check_bad_input(rig &u)
{
    const int right = (u.me + 1) % u.n;
    const transport_caps caps = u.t->caps();
    uint8_t buf[64] = {0};
    const uint64_t past = uint64_t(u.seg_bytes) + 4096;
    clear_error();
    status st = outcome(u, 0, [&](op_completion *d) { return u.t->put(0, right, past, buf, sizeof buf, d); });
    T_CHECK_MSG(st != PGDDS_OK, "a put past the peer's segment succeeded");
    st = outcome(u, 0, [&](op_completion *d) { return u.t->get(0, right, past, buf, sizeof buf, d); });
    T_CHECK_MSG(st != PGDDS_OK, "a get past the peer's segment succeeded");
    if (caps.has_amo(AMO_ADD, 8)) {
        uint64_t r = 0;
        amo_args a{AMO_ADD, 8, 1, 0, &r};
        st = outcome(u, 0, [&](op_completion *d) { return u.t->amo(0, right, past, a, d); });
        T_CHECK_MSG(st != PGDDS_OK, "an atomic past the peer's segment succeeded");
    }
    if (caps.amo_ops[0] || caps.amo_ops[1]) {
        uint64_t r = 0;
        amo_args a{AMO_ADD, 3, 1, 0, &r};
        st = outcome(u, 0, [&](op_completion *d) { return u.t->amo(0, right, conf::misc_area, a, d); });
        T_CHECK_MSG(st != PGDDS_OK, "an atomic of width 3 succeeded");
    }
    std::vector<uint8_t> big(u.t->am_max_packet() + 1);
    T_STATUS(u.t->am_send(0, right, big.data(), big.size()), PGDDS_ERR_INVALID_ARG);
    // The backend still works after the refusals.
    const uint64_t v = 0xbadull + uint64_t(u.me);
    u.barrier();
    T_OK(u.put(0, right, conf::misc_area + 40960, &v, 8));
    T_OK(u.flush(0));
    u.barrier();
    T_CHECK(*u.word(conf::misc_area + 40960) == 0xbadull + uint64_t((u.me - 1 + u.n) % u.n));
    u.barrier();
}

// The whole suite, in order.
inline void conformance_suite(rig &u, const char *backend)
{
    check_name(u, backend);
    check_peer_pointer(u);
    check_rma(u);
    check_atomics(u);
    check_flush(u);
    check_fence(u);
    check_am(u);
    check_vcis(u);
    check_bad_input(u);
}

// Log level and rank prefix from the environment, as the runtime would set them.
inline void conformance_logging(int rank)
{
    const char *lvl = getenv("PGDDS_LOG_LEVEL");
    const int l = lvl ? parse_choice(lvl, "error|warn|info|debug|trace") : -1;
    if (l >= 0) log_threshold = l;
    log_set_rank(rank);
}

}  // namespace pgdds
