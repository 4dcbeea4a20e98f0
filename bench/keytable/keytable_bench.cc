// Key-table benchmark: latency of get (local, remote on first access, remote with the entry
// remembered), put and atomics against the number of entries per rank, throughput of gets
// from every rank at once, insert throughput; and a plain 8-byte pgdds_get in the same run, the
// yardstick of "remote reads".
//
//   pgdds-run -n 2 pgdds-bench-keytable [--json] [--min-entries N] [--max-entries N] [--value-size B]
//                                 [--sample N] [--ops N]
//
// Latencies are measured by rank 0 alone reading rank 1's keys while the other ranks wait in a
// barrier (and so progress); throughputs by every rank at once. Entries per rank are about N:
// every rank inserts N keys, which spread over all ranks.
#include <pgdds/pgdds.h>

#include "../../tools/cli.h"
#include "../record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

struct options {
    bool json = false;
    uint64_t min_entries = 1024;
    uint64_t max_entries = uint64_t(1) << 20;
    size_t value_size = 8;
    size_t sample = 1000;
    size_t ops = 20000;
};

struct key {
    uint64_t rank;
    uint64_t index;
};

pgdds_context_t ctx;
int me, nranks;
options opt;
// Rank 0's remote get latencies of every size, first access and remembered, for their spread.
std::vector<double> remote_first, remote_remembered;

double now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

void check(pgdds_status_t st, const char *what)
{
    if (st == PGDDS_OK) return;
    std::fprintf(stderr, "pgdds-bench-keytable: rank %d: %s: %s\n", me, what, pgdds_last_error());
    std::exit(1);
}

void report(uint64_t entries, const char *metric, double value, const char *unit)
{
    if (me != 0) return;
    if (opt.json) {
        bench_record r;
        bench_record_begin(&r, "keytable");
        bench_record_string(&r, "transport", pgdds_transport_name(ctx));
        bench_record_int(&r, "ranks", nranks);
        bench_record_int(&r, "threads", 1);
        bench_record_uint(&r, "size", opt.value_size);
        bench_record_uint(&r, "entries_per_rank", entries);
        bench_record_measure(&r, metric, value, unit);
        bench_record_print(&r);
        return;
    }
    std::printf("keytable  %-9s %2d ranks  %4zu B  %8llu entries/rank  %-32s %10.3f %s\n",
                pgdds_transport_name(ctx), nranks, opt.value_size, (unsigned long long)entries, metric, value, unit);
    std::fflush(stdout);
}

int collect_key(const void *k, size_t len, void *, size_t, void *arg)
{
    auto *keys = static_cast<std::vector<key> *>(arg);
    if (len == sizeof(key)) {
        key x;
        std::memcpy(&x, k, sizeof x);
        keys->push_back(x);
    }
    return 0;
}

// Mean microseconds per call of op(i) over n calls.
template <class Op> double time_per_op(size_t n, Op op)
{
    double t0 = now();
    for (size_t i = 0; i < n; ++i) op(i);
    return (now() - t0) * 1e6 / double(n);
}

// The best of three such means: the machine's noise only ever adds time.
template <class Op> double best_time_per_op(size_t n, Op op)
{
    double best = time_per_op(n, op);
    for (int rep = 1; rep < 3; ++rep) best = std::min(best, time_per_op(n, op));
    return best;
}

double max_over_ranks(double v)
{
    double out;
    check(pgdds_allreduce(ctx, &v, &out, 1, PGDDS_DOUBLE, PGDDS_OP_MAX), "allreduce");
    return out;
}

void run_size(uint64_t entries, pgdds_gptr_t *words)
{
    pgdds_keytable_params_t p{};
    p.max_value_size = opt.value_size;
    // Keys spread over ranks unevenly: room for the fullest.
    p.capacity_per_rank = entries + entries / 4 + 64 + uint64_t(8 * std::sqrt(double(entries)));
    pgdds_keytable_t t;
    check(pgdds_keytable_create(ctx, &p, &t), "create");
    std::vector<unsigned char> value(opt.value_size, 0);

    // Fill: every rank inserts `entries` keys, wherever they belong.
    check(pgdds_barrier(ctx), "barrier");
    double t0 = now();
    for (uint64_t i = 0; i < entries; ++i) {
        key k{uint64_t(me), i};
        std::memcpy(value.data(), &i, std::min(sizeof i, value.size()));
        check(pgdds_keytable_insert(t, &k, sizeof k, value.data(), value.size()), "insert");
    }
    double fill = max_over_ranks(now() - t0);
    report(entries, "insert_throughput", double(entries) * nranks / fill / 1e6, "Mop/s");

    // Samples: some of my own keys, and some of my right neighbour's (sent by it).
    std::vector<key> own;
    check(pgdds_keytable_foreach_local(t, collect_key, &own), "foreach_local");
    const uint64_t sample = std::min<uint64_t>(opt.sample, own.size());
    uint64_t common = sample;
    check(pgdds_allreduce(ctx, &sample, &common, 1, PGDDS_UINT64, PGDDS_OP_MIN), "allreduce");
    for (size_t i = 0; i < common; ++i) std::swap(own[i], own[i + size_t(uint64_t(i) * 7919 % (own.size() - i))]);
    std::vector<key> all(static_cast<size_t>(common * uint64_t(nranks)));
    check(pgdds_allgather(ctx, own.data(), all.data(), size_t(common) * sizeof(key)), "allgather");
    const key *right = all.data() + size_t((me + 1) % nranks) * size_t(common);
    std::vector<unsigned char> buf(opt.value_size);
    auto get = [&](const key &k) {
        size_t len = buf.size();
        check(pgdds_keytable_get(t, &k, sizeof k, buf.data(), &len), "get");
    };

    check(pgdds_barrier(ctx), "barrier");
    if (me == 0 && common) {
        double local = best_time_per_op(opt.ops, [&](size_t i) { get(own[i % common]); });
        report(entries, "get_local_latency", local, "us");
        if (nranks > 1) {
            // First access: bucket, record (+ meta when unsealed); then the entry is remembered:
            // the record alone.
            double first = time_per_op(common, [&](size_t i) { get(right[i]); });
            double remembered = best_time_per_op(opt.ops, [&](size_t i) { get(right[i % common]); });
            uint64_t word;
            double rma = best_time_per_op(opt.ops, [&](size_t) {
                check(pgdds_get(ctx, &word, words[1], sizeof word), "pgdds_get");
            });
            report(entries, "get_remote_first_latency", first, "us");
            report(entries, "get_remote_latency", remembered, "us");
            report(entries, "rma_get_8B_latency", rma, "us");
            // The targets: a remote get in plain 8-byte gets, and how much faster a local one is.
            report(entries, "get_remote_in_rma_gets", remembered / rma, "x");
            report(entries, "get_local_speedup", remembered / local, "x");
            remote_first.push_back(first);
            remote_remembered.push_back(remembered);
            report(entries, "put_remote_latency", best_time_per_op(opt.ops, [&](size_t i) {
                       const key &k = right[i % common];
                       check(pgdds_keytable_put(t, &k, sizeof k, value.data(), value.size()), "put");
                   }), "us");
            if (opt.value_size >= 8)
                report(entries, "atomic_remote_latency", best_time_per_op(opt.ops, [&](size_t i) {
                           const key &k = right[i % common];
                           uint64_t old;
                           check(pgdds_keytable_atomic_u64(t, &k, sizeof k, 0, PGDDS_AOP_ADD, 1, &old), "atomic");
                       }), "us");
        }
    }
    check(pgdds_barrier(ctx), "barrier");

    // Every rank reads its neighbour's keys at once.
    if (nranks > 1 && common) {
        double elapsed = time_per_op(opt.ops, [&](size_t i) { get(right[(i * 13) % common]); }) * double(opt.ops);
        double slowest = max_over_ranks(elapsed);
        report(entries, "get_remote_throughput", double(opt.ops) * nranks / slowest, "Mop/s");
    }
    check(pgdds_keytable_destroy(t), "destroy");
}

const char usage[] =
    "usage: pgdds-bench-keytable [--json] [--min-entries N] [--max-entries N] [--value-size B] [--sample N]\n"
    "                            [--ops N] [--version] [--help]\n"
    "Values attach as --ops=5000 or --ops 5000; counts are positive.\n";

// "" when the command line is good, "help" or "version" when asked for, else what is wrong.
std::string parse(int argc, char **argv)
{
    enum { opt_json = 256, opt_min, opt_max, opt_value_size, opt_sample, opt_ops };
    static const option longopts[] = {
        {"json", no_argument, nullptr, opt_json},
        {"min-entries", required_argument, nullptr, opt_min},
        {"max-entries", required_argument, nullptr, opt_max},
        {"value-size", required_argument, nullptr, opt_value_size},
        {"sample", required_argument, nullptr, opt_sample},
        {"ops", required_argument, nullptr, opt_ops},
        {"version", no_argument, nullptr, 'V'},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    opterr = 0;
    int index = -1;
    for (int c; (index = -1, c = getopt_long(argc, argv, ":Vh", longopts, &index)) != -1;) {
        uint64_t v = 0;
        if (c >= opt_min && !pgdds_cli_whole(optarg, 1, UINT64_MAX, &v))
            return std::string("--") + longopts[index].name + " " + optarg + " is not a positive count";
        switch (c) {
        case opt_json: opt.json = true; break;
        case opt_min: opt.min_entries = v; break;
        case opt_max: opt.max_entries = v; break;
        case opt_value_size: opt.value_size = size_t(v); break;
        case opt_sample: opt.sample = size_t(v); break;
        case opt_ops: opt.ops = size_t(v); break;
        case 'V': return "version";
        case 'h': return "help";
        default: {
            char why[160];
            return pgdds_cli_error(c, argv, why, sizeof why);
        }
        }
    }
    if (optind < argc) return std::string("unexpected argument ") + argv[optind];
    if (opt.value_size > PGDDS_KEYTABLE_MAX_VALUE_SIZE)
        return "--value-size is at most " + std::to_string(PGDDS_KEYTABLE_MAX_VALUE_SIZE);
    if (opt.min_entries > opt.max_entries) return "--min-entries is above --max-entries";
    return "";
}

}  // namespace

int main(int argc, char **argv)
{
    const std::string bad = parse(argc, argv);
    check(pgdds_init(nullptr, &ctx), "pgdds_init");
    me = pgdds_rank(ctx);
    if (!bad.empty()) {
        // Said once, by rank 0.
        if (me == 0 && bad == "help") std::printf("%s", usage);
        else if (me == 0 && bad == "version") pgdds_cli_version("pgdds-bench-keytable", pgdds_version_string());
        else if (me == 0) std::fprintf(stderr, "pgdds-bench-keytable: %s\n%s", bad.c_str(), usage);
        check(pgdds_finalize(ctx), "finalize");
        return bad == "help" || bad == "version" ? 0 : 2;
    }
    nranks = pgdds_nranks(ctx);
    // One word per rank for the plain-get yardstick (rank 0 reads rank 1's).
    pgdds_gptr_t mine;
    check(pgdds_alloc(ctx, 8, 8, &mine), "alloc");
    std::vector<pgdds_gptr_t> words(static_cast<size_t>(nranks));
    check(pgdds_allgather(ctx, &mine, words.data(), sizeof mine), "allgather");
    for (uint64_t entries = opt.min_entries; entries <= opt.max_entries; entries *= 4) run_size(entries, words.data());
    // Flatness: the slowest size's remote get latency over the fastest's.
    auto spread = [](const std::vector<double> &v) { return *std::max_element(v.begin(), v.end()) /
                                                            *std::min_element(v.begin(), v.end()); };
    if (!remote_remembered.empty()) {
        report(opt.max_entries, "get_remote_latency_spread", spread(remote_remembered), "x");
        report(opt.max_entries, "get_remote_first_latency_spread", spread(remote_first), "x");
    }
    check(pgdds_finalize(ctx), "finalize");
    return 0;
}
