/* Timing and reporting shared by the micro-benchmarks: human-readable lines, or with --json one
 * object per measurement in the project's format. */
#ifndef PGDDS_BENCH_REPORT_H
#define PGDDS_BENCH_REPORT_H

#include <stdio.h>
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
    if (report_json)
        printf("{\"bench\":\"%s\",\"transport\":\"%s\",\"ranks\":%d,\"threads\":%d,\"size\":%zu,"
               "\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\"}\n",
               bench, transport, ranks, threads, size, metric, value, unit);
    else
        printf("%-12s %-18s %-24s %9zu B  %12.4f %s\n", bench, transport, metric, size, value, unit);
    fflush(stdout);
}

/* Bandwidth of a single-threaded memcpy of `size` bytes between two buffers, in MB/s. */
static inline double memcpy_bandwidth(void *dst, const void *src, size_t size, int iters)
{
    memcpy(dst, src, size);
    double t0 = now_us();
    for (int i = 0; i < iters; ++i) {
        memcpy(dst, src, size);
        __asm__ __volatile__("" ::: "memory");
    }
    return (double)size * iters / (now_us() - t0);
}

#endif
