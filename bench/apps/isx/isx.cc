// pgdds-isx: the ISx integer sort (Hanebutte and Hemstad, PGAS'15) as the BCL bucket sort of
// the BCL paper (§8.1, Figure 2) and thesis (§5.3), with the library's queues.
//
//   pgdds-run -n 2 pgdds-isx [--keys-per-rank N] [--key-bits B] [--queue circular|fast]
//                            [--message-size N] [--sort counting|std|auto] [--iterations N]
//                            [--no-reference] [--json] [--inject-error order|key]
//
// Weak scaling, as ISx: every rank draws N keys (default 2^24) uniformly at random in
// [0, 2^B) (default B = 28, ISx's key range). Rank r's bucket, a queue it hosts, receives the keys
// k with floor(k * nranks / 2^B) = r. Distribution: each rank appends its keys to one local buffer
// per bucket and pushes a buffer to its bucket's queue as one message when it holds
// --message-size keys; then the rest; then a barrier. Sort: each rank sorts its queue in place
// (its local view). As the ISx specification does, by counting: one counter per value of the
// bucket's key range, then the keys written back in order (--sort counting); or with std::sort
// (--sort std). auto, the default, counts where the range holds at most 16 values per key
// received or 2^20 values, and sorts otherwise (e.g. 32-bit keys on few ranks, where the pass
// over 2^32 / ranks counters would cost more than the keys). Verification: every rank's keys lie in its range and are
// sorted, each rank's largest key is at most the next non-empty rank's smallest, and each bucket
// holds exactly the keys sent to it (count and an order-independent checksum per bucket).
// As in ISx, a first burn-in iteration is not timed (it maps the queues into every rank's address
// space); the times are the mean of --iterations (default 1) more, each with new queues.
//
// The distribution time is reported next to std::sort of the same number of keys (N) on one
// process, measured by rank 0 while the others wait, as a ratio.
//
// --inject-error makes rank 0 spoil its sorted bucket before the verification (order: two keys
// swapped; key: one key changed), so that tests can see the verification fail.
#include "../../../tools/cli.h"
#include "../../record.h"

#include <pgdds/containers.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct options {
    uint64_t keys_per_rank = uint64_t(1) << 24;
    int key_bits = 28;
    bool circular = true;
    size_t message_size = 8192;  // keys
    uint64_t iterations = 1;     // timed, after one burn-in
    bool reference = true;
    bool json = false;
    int inject = 0;  // 1: swap two keys; 2: change one
    enum class sorter { automatic, counting, standard } sort = sorter::automatic;
};

// The keys of bucket r are those k with floor(k * n / 2^B) = r, i.e. ceil(r 2^B / n) <= k <
// ceil((r + 1) 2^B / n).
uint64_t bucket_start(int r, int n, int key_bits)
{
    return ((uint64_t(r) << key_bits) + uint64_t(n) - 1) / uint64_t(n);
}

// A counting sort of keys in [lo, lo + counts.size()): counts must be zero on entry and are zero
// again on return, so that the next iteration needs no clearing pass. A key outside the range
// (a distribution gone wrong) is kept, after the others, for the verification to report.
// A counting sort of keys in [lo, lo + range): one counter per key value, as ISx counts, taken a
// window of values at a time so that the counters stay in cache (ISx's 2^28 keys on 2 ranks make
// 2^27 values per bucket: 512 MiB of counters at once, a cache miss per key). The keys are first
// partitioned by window, then each window is counted and written back in order. A key outside the
// range (a distribution gone wrong) is kept, after the others, for the verification to report.
class counting_sorter {
public:
    static constexpr unsigned window_bits = 18;  // 1 MiB of counters

    counting_sorter(uint32_t lo, uint64_t range) : lo_(lo), range_(range), window_(size_t(1) << window_bits, 0) {}

    void sort(pgdds::local_span<uint32_t> keys)
    {
        const size_t windows = size_t((range_ + window_.size() - 1) >> window_bits);
        std::vector<size_t> start(windows + 1, 0);
        std::vector<uint32_t> strays;
        for (uint32_t k : keys) {
            uint64_t d = uint64_t(k) - lo_;  // wraps past the range for a key below it
            if (d < range_) ++start[size_t(d >> window_bits) + 1];
        }
        for (size_t w = 0; w < windows; ++w) start[w + 1] += start[w];
        parted_.resize(keys.size);
        std::vector<size_t> at(start.begin(), start.end() - 1);
        for (uint32_t k : keys) {
            uint64_t d = uint64_t(k) - lo_;
            if (d < range_) parted_[at[size_t(d >> window_bits)]++] = k;
            else strays.push_back(k);
        }
        const uint64_t mask = window_.size() - 1;
        size_t out = 0;
        for (size_t w = 0; w < windows; ++w) {
            for (size_t i = start[w]; i < start[w + 1]; ++i) ++window_[size_t((parted_[i] - lo_) & mask)];
            const uint64_t first = uint64_t(w) << window_bits;
            const size_t values = size_t(std::min<uint64_t>(window_.size(), range_ - first));
            for (size_t v = 0; v < values && out < start[w + 1]; ++v) {
                for (uint32_t c = window_[v]; c; --c) keys[out++] = uint32_t(lo_ + first + v);
                window_[v] = 0;
            }
        }
        for (uint32_t k : strays) keys[out++] = k;
    }

private:
    uint32_t lo_;
    uint64_t range_;
    std::vector<uint32_t> window_;   // zero between calls
    std::vector<uint32_t> parted_;  // the keys, by window
};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// This process's CPU time: next to the wall time, it tells a loaded machine from a slow phase.
double cpu_now()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// An empty string on success, "help" or "version" when asked for, else what is wrong.
std::string parse(int argc, char **argv, options &o)
{
    enum { opt_keys = 256, opt_key_bits, opt_message_size, opt_iterations, opt_queue, opt_sort, opt_inject,
           opt_no_reference, opt_json };
    static const option longopts[] = {
        {"keys-per-rank", required_argument, nullptr, opt_keys},
        {"key-bits", required_argument, nullptr, opt_key_bits},
        {"message-size", required_argument, nullptr, opt_message_size},
        {"iterations", required_argument, nullptr, opt_iterations},
        {"queue", required_argument, nullptr, opt_queue},
        {"sort", required_argument, nullptr, opt_sort},
        {"inject-error", required_argument, nullptr, opt_inject},
        {"no-reference", no_argument, nullptr, opt_no_reference},
        {"json", no_argument, nullptr, opt_json},
        {"version", no_argument, nullptr, 'V'},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":Vh", longopts, nullptr)) != -1;) {
        uint64_t x = 0;
        switch (c) {
        case opt_keys:
            if (!pgdds_cli_whole(optarg, 1, uint64_t(1) << 32, &x))
                return "--keys-per-rank takes a count from 1 to 2^32";
            o.keys_per_rank = x;
            break;
        case opt_key_bits:
            if (!pgdds_cli_whole(optarg, 1, 32, &x)) return "--key-bits takes 1 to 32";
            o.key_bits = int(x);
            break;
        case opt_message_size:
            if (!pgdds_cli_whole(optarg, 1, uint64_t(1) << 24, &x))
                return "--message-size takes a count of keys from 1 to 2^24";
            o.message_size = size_t(x);
            break;
        case opt_iterations:
            if (!pgdds_cli_whole(optarg, 1, 1000, &x)) return "--iterations takes 1 to 1000";
            o.iterations = x;
            break;
        case opt_queue:
            if (std::strcmp(optarg, "circular") == 0) o.circular = true;
            else if (std::strcmp(optarg, "fast") == 0) o.circular = false;
            else return std::string("--queue takes circular or fast, not ") + optarg;
            break;
        case opt_sort:
            if (std::strcmp(optarg, "counting") == 0) o.sort = options::sorter::counting;
            else if (std::strcmp(optarg, "std") == 0) o.sort = options::sorter::standard;
            else if (std::strcmp(optarg, "auto") == 0) o.sort = options::sorter::automatic;
            else return std::string("--sort takes counting, std or auto, not ") + optarg;
            break;
        case opt_inject:
            if (std::strcmp(optarg, "order") == 0) o.inject = 1;
            else if (std::strcmp(optarg, "key") == 0) o.inject = 2;
            else return std::string("--inject-error takes order or key, not ") + optarg;
            break;
        case opt_no_reference: o.reference = false; break;
        case opt_json: o.json = true; break;
        case 'V': return "version";
        case 'h': return "help";
        default: {
            char why[160];
            return pgdds_cli_error(c, argv, why, sizeof why);
        }
        }
    }
    if (optind < argc) return std::string("unexpected argument ") + argv[optind];
    return "";
}

const char usage[] = "usage: pgdds-isx [--keys-per-rank N] [--key-bits B] [--queue circular|fast] "
                     "[--message-size N] [--sort counting|std|auto]\n"
                     "                 [--iterations N] [--no-reference] [--json] [--inject-error order|key] "
                     "[--version] [--help]\n"
                     "Values attach as --key-bits=20 or --key-bits 20.\n";

template <class Queue> int sort_job(pgdds::context_ref ctx, const options &o)
{
    const int me = ctx.rank(), n = ctx.nranks();
    const uint64_t N = o.keys_per_rank;
    auto bucket = [&](uint32_t key) { return int((uint64_t(key) * uint64_t(n)) >> o.key_bits); };
    std::vector<std::pair<const char *, double>> times;  // summed over the timed iterations
    double distribute_cpu = 0;  // this rank's CPU time in the distribution, summed likewise
    auto timed = [&](bool counted, const char *name, auto f) {
        ctx.barrier();
        double t0 = now(), c0 = cpu_now();
        f();
        double cpu = cpu_now() - c0;
        ctx.barrier();
        if (!counted) return;
        if (!std::strcmp(name, "distribute")) distribute_cpu += cpu;
        auto it = std::find_if(times.begin(), times.end(), [&](auto &p) { return !std::strcmp(p.first, name); });
        if (it == times.end()) times.emplace_back(name, now() - t0);
        else it->second += now() - t0;
    };

    std::vector<uint32_t> keys(N);
    timed(true, "generate", [&] {
        uint64_t state = mix(uint64_t(me) + 0x15a);  // a different stream per rank, the same every run
        const uint32_t mask = o.key_bits == 32 ? ~0u : (1u << o.key_bits) - 1;
        for (uint64_t i = 0; i < N; ++i) keys[i] = uint32_t(mix(state + i)) & mask;
    });

    // What each bucket must receive: counts and checksums of the keys sent to it, summed.
    std::vector<uint64_t> sent(2 * size_t(n), 0), expected(2 * size_t(n));
    for (uint32_t k : keys) {
        int b = bucket(k);
        sent[size_t(b)] += 1;
        sent[size_t(n + b)] += mix(k);
    }
    pgdds::check(pgdds_allreduce(ctx.handle(), sent.data(), expected.data(), sent.size(), PGDDS_UINT64, PGDDS_OP_SUM));

    double reference = 0;
    if (o.reference) {
        if (me == 0) {
            std::vector<uint32_t> copy = keys;
            double t0 = now();
            std::sort(copy.begin(), copy.end());
            reference = now() - t0;
        }
        ctx.barrier();
    }

    // The local sort: counting over this bucket's key range, or std::sort (see the header).
    const uint64_t lo = bucket_start(me, n, o.key_bits), range = bucket_start(me + 1, n, o.key_bits) - lo;
    bool counting = o.sort == options::sorter::counting ||
                    (o.sort == options::sorter::automatic &&
                     range <= std::max<uint64_t>(16 * expected[size_t(me)], uint64_t(1) << 20));
    counting = ctx.sum(uint64_t(counting)) == uint64_t(n);  // one method for the whole job, as reported
    counting_sorter counter(uint32_t(lo), range);

    // The buckets: room for the expected share and many standard deviations more.
    const uint64_t capacity = N + N / 8 + 4 * uint64_t(o.message_size) + 1024;
    const size_t m = o.message_size;
    const pgdds::promise_set only_pushes = pgdds::promise::push;
    uint64_t errors = 0;
    for (uint64_t iteration = 0; iteration <= o.iterations; ++iteration) {
        const bool counted = iteration > 0;
        std::vector<Queue> buckets;
        buckets.reserve(size_t(n));
        for (int r = 0; r < n; ++r) buckets.emplace_back(ctx, capacity, r);

        // BCL Figure 2: a local buffer per bucket, pushed whole.
        timed(counted, "distribute", [&] {
            std::vector<uint32_t> staging(size_t(n) * m);
            std::vector<size_t> fill(size_t(n), 0);
            auto push = [&](int b) {
                if (!fill[size_t(b)]) return;
                pgdds::check(pgdds_queue_push(buckets[size_t(b)].handle(), staging.data() + size_t(b) * m,
                                              fill[size_t(b)], only_pushes.bits()));
                fill[size_t(b)] = 0;
            };
            for (uint32_t k : keys) {
                int b = bucket(k);
                staging[size_t(b) * m + fill[size_t(b)]++] = k;
                if (fill[size_t(b)] == m) push(b);
            }
            for (int b = 0; b < n; ++b) push(b);
        });

        pgdds::local_span<uint32_t> mine;
        timed(counted, "sort", [&] {
            mine = buckets[size_t(me)].local_view();
            if (counting) counter.sort(mine);
            else std::sort(mine.begin(), mine.end());
        });
        if (o.inject && me == 0 && mine.size >= 2) {
            auto last = mine.size - 1;
            if (o.inject == 1) std::swap(mine[0], mine[last]);  // out of order unless all keys are equal
            else mine[last] ^= 1;                                // another key, same bucket
        }

        timed(counted, "verify", [&] {
            uint64_t count = 0, checksum = 0, wrong = 0;
            for (uint32_t k : mine) {
                wrong += bucket(k) != me;
                ++count;
                checksum += mix(k);
            }
            wrong += !std::is_sorted(mine.begin(), mine.end());
            wrong += count != expected[size_t(me)] || checksum != expected[size_t(n + me)];
            // Neighbours: every key of a rank is at most every key of the ranks after it.
            struct bounds {
                uint64_t count;
                uint32_t lo, hi;
            };
            bounds b{count, count ? mine[0] : 0, count ? mine[mine.size - 1] : 0};
            std::vector<bounds> all = ctx.allgather(b);
            for (int r = 0, last = -1; r < n; ++r) {
                if (!all[size_t(r)].count) continue;
                if (last >= 0 && all[size_t(last)].hi > all[size_t(r)].lo) ++wrong;
                last = r;
            }
            uint64_t total = 0;
            for (const bounds &x : all) total += x.count;
            wrong += total != N * uint64_t(n);
            errors += ctx.sum(wrong);
        });
    }
    for (auto &p : times)
        if (std::strcmp(p.first, "generate") != 0) p.second /= double(o.iterations);
    distribute_cpu = ctx.max(distribute_cpu / double(o.iterations));

    if (me == 0) {
        const char *queue = o.circular ? "circular" : "fast";
        const char *sorter = counting ? "counting" : "std";
        double distribute = 0, sort = 0;
        for (auto &[name, t] : times) {
            if (!std::strcmp(name, "distribute")) distribute = t;
            if (!std::strcmp(name, "sort")) sort = t;
        }
        const std::string tp = ctx.transport_name();
        if (o.json) {
            auto record = [&](const char *metric, double value, const char *unit) {
                bench_record r;
                bench_record_begin(&r, "isx");
                bench_record_string(&r, "transport", tp.c_str());
                bench_record_int(&r, "ranks", n);
                bench_record_int(&r, "threads", 1);
                bench_record_uint(&r, "size", N);
                bench_record_measure(&r, metric, value, unit);
                bench_record_string(&r, "queue", queue);
                bench_record_uint(&r, "message_size", o.message_size);
                bench_record_string(&r, "sort", sorter);
                bench_record_print(&r);
            };
            for (auto &[name, t] : times) record((std::string(name) + "_time").c_str(), t, "s");
            record("distribute_cpu_time", distribute_cpu, "s");
            record("total_time", distribute + sort, "s");
            record("keys_per_s", double(N) * n / (distribute + sort), "keys/s");
            if (o.reference) {
                record("std_sort_time", reference, "s");
                record("distribute_ratio", distribute / reference, "ratio");
            }
            record("verified", errors == 0, "bool");
        } else {
            std::printf("pgdds-isx: %d ranks over %s, %llu keys per rank in [0, 2^%d), %s queues, messages of %zu keys, "
                        "%s sort\n",
                        n, tp.c_str(), (unsigned long long)N, o.key_bits, queue, o.message_size, sorter);
            for (auto &[name, t] : times) {
                std::printf("time %-10s %8.4f s", name, t);
                if (!std::strcmp(name, "distribute"))
                    std::printf("  (CPU time of the busiest rank: %.4f s)", distribute_cpu);
                std::printf("\n");
            }
            std::printf("time total      %8.4f s  (distribute + sort, %.1f M keys/s)\n", distribute + sort,
                        double(N) * n / (distribute + sort) / 1e6);
            if (o.reference)
                std::printf("std::sort of %llu keys on one process: %.4f s; distribute / std::sort = %.3f\n",
                            (unsigned long long)N, reference, distribute / reference);
            std::printf("verification: %s\n", errors ? "FAILED" : "passed (sorted, ranges, counts, checksums)");
        }
        if (errors) std::fprintf(stderr, "pgdds-isx: verification failed: %llu errors\n", (unsigned long long)errors);
        std::fflush(stdout);
    }
    ctx.barrier();  // no rank ends the job (failing) before rank 0 has reported
    return errors ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv)
{
    options o;
    std::string bad = parse(argc, argv, o);
    int rank = -1;
    try {
        pgdds::context ctx;
        rank = ctx.rank();
        if (bad == "help" || bad == "version") {
            if (rank == 0 && bad == "help") std::printf("%s", usage);
            if (rank == 0 && bad == "version") pgdds_cli_version("pgdds-isx", pgdds_version_string());
            return 0;
        }
        if (!bad.empty()) {
            if (rank == 0) std::fprintf(stderr, "pgdds-isx: %s\n%s", bad.c_str(), usage);
            return 2;
        }
        return o.circular ? sort_job<pgdds::circular_queue<uint32_t>>(ctx, o)
                          : sort_job<pgdds::fast_queue<uint32_t>>(ctx, o);
    } catch (const std::exception &e) {
        if (rank < 0) std::fprintf(stderr, "pgdds-isx: %s\n", e.what());
        else std::fprintf(stderr, "pgdds-isx: rank %d: %s\n", rank, e.what());
        return 1;
    }
}
