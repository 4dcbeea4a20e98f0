/* Timing and reporting shared by the micro-benchmarks: human-readable lines, or with --json one
 * object per measurement in the project's format. */
#ifndef PGDDS_BENCH_REPORT_H
#define PGDDS_BENCH_REPORT_H

#include "../../tools/cli.h"
#include "../record.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int report_json = 0;

static inline double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static inline void report(const char *bench, const char *transport, int ranks, int threads, size_t size,
                          const char *metric, double value, const char *unit)
{
    if (report_json) {
        bench_record_common(bench, transport, ranks, threads, size, metric, value, unit);
        return;
    }
    printf("%-12s %-18s %-24s %9zu B  %12.4f %s\n", bench, transport, metric, size, value, unit);
    fflush(stdout);
}

/* Median of `batches` timings of a loop body run `iters` times: robust against the occasional
 * preemption of a shared machine. Returns microseconds per iteration. */
#define BATCHES 7
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static inline double median_us(double *samples, int count)
{
    qsort(samples, (size_t)count, sizeof *samples, cmp_double);
    return samples[count / 2];
}
#define TIME_PER_ITER(result, iters, body)                                            \
    do {                                                                              \
        double samples_[BATCHES];                                                     \
        long per_ = (iters) / BATCHES + 1;                                            \
        for (int b_ = 0; b_ < BATCHES; ++b_) {                                        \
            double t0_ = now_us();                                                    \
            for (long i_ = 0; i_ < per_; ++i_) { body; }                              \
            samples_[b_] = (now_us() - t0_) / (double)per_;                           \
        }                                                                             \
        (result) = median_us(samples_, BATCHES);                                      \
    } while (0)

/* The options of the latency benchmarks (pgdds-micro and its OpenSHMEM peer): --json, --iters N,
 * --max-size BYTES. 0 when they are good; else -1, with the usage printed. */
static inline int micro_options(int argc, char **argv, const char *program, long *iters, size_t *max_size)
{
    for (int i = 1; i < argc; ++i) {
        uint64_t v = 0;
        if (strcmp(argv[i], "--json") == 0) {
            report_json = 1;
        } else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 0, LONG_MAX, &v)) {
            *iters = (long)v;
            ++i;
        } else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc &&
                   pgdds_cli_whole(argv[i + 1], 0, UINT64_C(1) << 40, &v)) {
            *max_size = (size_t)v;
            ++i;
        } else {
            fprintf(stderr, "usage: %s [--json] [--iters N] [--max-size BYTES]\n", program);
            return -1;
        }
    }
    return 0;
}

/* Bandwidth of a single-threaded memcpy of `size` bytes between two buffers, in MB/s. */
static inline double memcpy_bandwidth(void *dst, const void *src, size_t size, int iters)
{
    double us;
    memcpy(dst, src, size);
    TIME_PER_ITER(us, iters, memcpy(dst, src, size); __asm__ __volatile__("" ::: "memory"));
    return (double)size / us;
}

#endif
