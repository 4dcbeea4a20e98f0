// The ranks of a backend test, without a runtime: a bootstrap (PMI through pgdds-run, or a
// singleton), a fake host, one backend instance over a segment of its own, and the helpers every
// check needs: issue with progress-and-retry on AGAIN, wait, flush, a barrier that keeps every
// endpoint progressing, and a collective verdict. Header-only, so that the checks of one program
// count failures into the one t_failures of harness.h.
#pragma once

#include "../../src/base/log.h"
#include "../../src/transport/transport.h"
#include "fake_host.h"

#include "../harness.h"

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pgdds {

// The segment's first 64 KiB belong to the rig's barrier; checks use what lies above.
constexpr uint64_t rig_control_bytes = 65536;

struct rig {
    std::shared_ptr<bootstrap> boot;  // shared by the rigs of one program
    std::unique_ptr<fake_host> host;
    std::unique_ptr<transport> t;
    uint8_t *seg = nullptr;
    size_t seg_bytes = 0;
    bool seg_mapped_here = false;  // mmap'ed by the rig (else the backend's allocation)
    int me = 0, n = 1;
    unsigned service = 0;  // the last endpoint, which the barrier uses
    uint64_t epoch = 0;
    unsigned spins = 0;
    bool open_ = false;

    ~rig() { shut(); }

    void shut()
    {
        if (open_) t->close();
        open_ = false;
        t.reset();
        if (seg && seg_mapped_here) munmap(seg, seg_bytes);
        seg = nullptr;
    }

    // --- Progress and completion. ---------------------------------------------------------
    // Progresses every endpoint; yields now and then, since the ranks of a test usually
    // outnumber the cores.
    status progress_all()
    {
        for (unsigned v = 0; v < host->endpoints(); ++v) {
            status st = t->progress(v);
            if (st != PGDDS_OK) return st;
        }
        if ((++spins & 63) == 0) sched_yield();
        return PGDDS_OK;
    }
    // Runs one transport call, progressing and retrying while it says AGAIN; counts the AGAINs.
    unsigned long agains = 0;
    template <class Op> status issue(Op op)
    {
        status st;
        while ((st = op()) == PGDDS_ERR_AGAIN) {
            ++agains;
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
        status st = issue([&] { return t->flush(vci, &d); });
        return st == PGDDS_OK ? wait(d) : st;
    }
    status fence(unsigned vci)
    {
        op_completion d;
        d.add();
        status st = issue([&] { return t->fence(vci, &d); });
        return st == PGDDS_OK ? wait(d) : st;
    }
    // With completion (waited for), or without (completed by the next flush).
    status put(unsigned vci, int rank, uint64_t off, const void *src, size_t len, bool completion = true)
    {
        op_completion d;
        d.add();
        status st = issue([&] { return t->put(vci, rank, off, src, len, completion ? &d : nullptr); });
        if (st != PGDDS_OK) return st;
        return completion ? wait(d) : PGDDS_OK;
    }
    status get(unsigned vci, int rank, uint64_t off, void *dst, size_t len, bool completion = true)
    {
        op_completion d;
        d.add();
        status st = issue([&] { return t->get(vci, rank, off, dst, len, completion ? &d : nullptr); });
        if (st != PGDDS_OK) return st;
        return completion ? wait(d) : flush(vci);
    }
    status amo(unsigned vci, int rank, uint64_t off, amo_op op, unsigned width, uint64_t operand, uint64_t compare,
               void *result)
    {
        op_completion d;
        d.add();
        amo_args a{op, width, operand, compare, result};
        status st = issue([&] { return t->amo(vci, rank, off, a, &d); });
        return st == PGDDS_OK ? wait(d) : st;
    }
    status am_send(unsigned vci, int rank, const void *packet, size_t len)
    {
        return issue([&] { return t->am_send(vci, rank, packet, len); });
    }
    // Progresses every endpoint until pred() holds or `seconds` pass; false on timeout.
    bool progress_until(const std::function<bool()> &pred, double seconds = 60)
    {
        const double until = t_seconds() + seconds;
        while (!pred()) {
            status st = progress_all();
            if (st != PGDDS_OK) {
                T_OK(st);
                return false;
            }
            if (t_seconds() > until) return false;
        }
        return true;
    }

    volatile uint64_t *word(uint64_t off) { return reinterpret_cast<volatile uint64_t *>(seg + off); }

    // --- Barrier through the backend under test. ----------------------------------------------
    // Every rank keeps progressing every endpoint while it waits (a rank blocked in a PMI
    // barrier would not serve its peers). All traffic goes to rank 0, which issues nothing:
    // ranks put "arrived" into rank 0's segment, read rank 0's release word until it shows
    // the epoch, then put "left"; rank 0 leaves once every rank has left, so nobody waits on a
    // rank that has gone on. Needs only put, get and flush (no atomics, no active messages).
    void barrier()
    {
        ++epoch;
        if (n == 1) return;
        const uint64_t release = 0, arrived = 4096, left = 8192;
        if (me == 0) {
            auto all = [&](uint64_t base) {
                for (int r = 1; r < n; ++r)
                    if (*word(base + 8 * uint64_t(r)) < epoch) return false;
                return true;
            };
            T_CHECK_MSG(progress_until([&] { return all(arrived); }), "barrier %llu: ranks did not arrive",
                        (unsigned long long)epoch);
            __atomic_store_n(reinterpret_cast<uint64_t *>(seg + release), epoch, __ATOMIC_SEQ_CST);
            T_CHECK_MSG(progress_until([&] { return all(left); }), "barrier %llu: ranks did not leave",
                        (unsigned long long)epoch);
            return;
        }
        const uint64_t e = epoch, mine = 8 * uint64_t(me);
        T_OK(put(service, 0, arrived + mine, &e, 8));
        T_OK(flush(service));
        uint64_t seen = 0;
        const double until = t_seconds() + 60;
        while (seen < e && t_seconds() < until) {
            status st = get(service, 0, release, &seen, 8);
            if (st != PGDDS_OK) {
                T_OK(st);
                break;
            }
            progress_all();
        }
        T_CHECK_MSG(seen >= e, "barrier %llu: no release from rank 0", (unsigned long long)e);
        // Completed locally only: a flush would wait for rank 0's acknowledgement (UCX over tcp),
        // which rank 0, once it has seen the word, may no longer be there to give.
        T_OK(put(service, 0, left + mine, &e, 8));
    }

    // --- Collectives through the bootstrap (nobody may need this rank's progress meanwhile). ---
    // Bootstrap keys are global and written once: every key carries the number of the step,
    // which every rank counts alike (the ranks make the same calls in the same order).
    static uint64_t &pmi_round()
    {
        static uint64_t round = 0;
        return round;
    }
    // Sums every rank's value.
    int64_t pmi_sum(int64_t mine)
    {
        const uint64_t round = ++pmi_round();
        const std::string key = "fh-sum-" + std::to_string(round) + "-" + std::to_string(me);
        status st = boot->put(key, std::to_string(mine));
        if (st == PGDDS_OK) st = boot->fence();
        if (st != PGDDS_OK) {
            fprintf(stderr, "FAIL rank %d: bootstrap: %s\n", me, pgdds_last_error());
            exit(1);
        }
        int64_t sum = 0;
        for (int r = 0; r < n; ++r) {
            std::string v;
            if (boot->get(r, "fh-sum-" + std::to_string(round) + "-" + std::to_string(r), v) != PGDDS_OK) {
                fprintf(stderr, "FAIL rank %d: bootstrap get from %d: %s\n", me, r, pgdds_last_error());
                exit(1);
            }
            sum += strtoll(v.c_str(), nullptr, 10);
        }
        return sum;
    }
    // Whether every rank's step succeeded.
    bool all_ok(status mine) { return pmi_sum(mine != PGDDS_OK) == 0; }

    // --- Set-up. ------------------------------------------------------------------------------
    // The bootstrap and a host for `prefix`; exits on failure.
    void start(const char *prefix, unsigned endpoints)
    {
        std::unique_ptr<bootstrap> b;
        status st = bootstrap_open(getenv("PGDDS_PMI") ? getenv("PGDDS_PMI") : "auto", b);
        std::string job;
        if (st == PGDDS_OK) st = fake_host::make_job_id(*b, job);
        if (st != PGDDS_OK) {
            fprintf(stderr, "FAIL: bootstrap: %s\n", pgdds_last_error());
            exit(1);
        }
        boot = std::move(b);
        me = t_rank = boot->rank();
        n = boot->size();
        host.reset(new fake_host(*boot, prefix, job, endpoints));
        service = endpoints - 1;
    }
    // A second rig of the same ranks, on the bootstrap of `first`, with a host of its own (job id
    // `first`'s with a suffix, for the names of its files).
    void start_beside(const rig &first, const char *prefix, unsigned endpoints)
    {
        boot = first.boot;
        me = first.me;
        n = first.n;
        host.reset(new fake_host(*boot, prefix, first.host->job_id() + "b", endpoints));
        service = endpoints - 1;
    }

    // Opens `backend` over a segment of `bytes`, exchanges addresses through the bootstrap and
    // connects. Returns PGDDS_OK, or the status of the step that failed on some rank (this
    // rank's own failure status when it failed; UNSUPPORTED from open stays UNSUPPORTED).
    status bring_up(std::unique_ptr<transport> backend, size_t bytes)
    {
        t = std::move(backend);
        seg_bytes = bytes;
        epoch = 0;
        status st = t->open(*host);
        open_ = st == PGDDS_OK;
        if (!all_ok(st)) return st != PGDDS_OK ? st : PGDDS_ERR_STARTUP;
        void *base = nullptr;
        st = t->allocates_segment() ? t->alloc_segment(bytes, &base) : PGDDS_ERR_UNSUPPORTED;
        if (st == PGDDS_ERR_UNSUPPORTED) {
            // The runtime's fallback: a shared anonymous mapping, registered.
            base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (base == MAP_FAILED) {
                st = fail(PGDDS_ERR_NO_MEMORY, "mmap of %zu bytes failed", bytes);
            } else {
                seg_mapped_here = true;
                st = t->register_segment(base, bytes);
            }
        }
        seg = static_cast<uint8_t *>(base);
        if (st == PGDDS_OK) memset(seg, 0, rig_control_bytes);
        std::vector<uint8_t> blob;
        if (st == PGDDS_OK) st = t->address(blob);
        const std::string key = "fh-addr-" + std::to_string(++pmi_round()) + "-";
        if (st == PGDDS_OK) st = bootstrap_put_blob(*boot, key + std::to_string(me), blob.data(), blob.size());
        if (!all_ok(st)) return st != PGDDS_OK ? st : PGDDS_ERR_STARTUP;
        st = boot->fence();
        std::vector<std::vector<uint8_t>> peers(static_cast<size_t>(n));
        for (int r = 0; st == PGDDS_OK && r < n; ++r)
            st = bootstrap_get_blob(*boot, r, key + std::to_string(r), peers[size_t(r)]);
        if (st == PGDDS_OK) st = t->connect(peers);
        if (!all_ok(st)) return st != PGDDS_OK ? st : PGDDS_ERR_STARTUP;
        st = boot->barrier();
        if (st == PGDDS_OK) t->peers_connected();
        return all_ok(st) ? PGDDS_OK : PGDDS_ERR_STARTUP;
    }

    // Ends a backend's use: a final barrier through it, then close (every rank).
    void bring_down()
    {
        barrier();
        if (boot->barrier() != PGDDS_OK) T_OK(PGDDS_ERR_BOOTSTRAP);
        shut();
    }

    // The verdict of every rank; prints one line on rank 0; returns the exit code.
    int finish(const char *name)
    {
        const int64_t total = pmi_sum(t_failures);
        if (me == 0)
            printf("%s: %s on %d ranks (%lld failed checks)\n", name, total ? "FAILED" : "passed", n, (long long)total);
        boot->finalize();
        return total ? 1 : 0;
    }
};

}  // namespace pgdds
