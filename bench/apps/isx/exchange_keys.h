/* The keys pgdds-isx draws (the same generator, seed and buckets), bucketed per destination, for
 * the all-to-all comparators exchange_shmem.c and exchange_mpi.c: they move the same bytes as
 * pgdds-isx's distribution, with the peers' bulk all-to-all. */
#ifndef PGDDS_BENCH_ISX_EXCHANGE_KEYS_H
#define PGDDS_BENCH_ISX_EXCHANGE_KEYS_H

#include "../../record.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct exchange_options {
    uint64_t keys_per_rank; /* 2^24, as pgdds-isx */
    int key_bits;           /* 28 */
    int iterations;         /* timed, after one untimed */
    int json;
};

static uint64_t exchange_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double exchange_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 0 with the options set, else 2 after a message (rank 0 prints it). */
static int exchange_parse(int argc, char **argv, int me, struct exchange_options *o)
{
    o->keys_per_rank = (uint64_t)1 << 24;
    o->key_bits = 28;
    o->iterations = 3;
    o->json = 0;
    for (int i = 1; i < argc; ++i) {
        char *end = NULL;
        if (!strcmp(argv[i], "--json")) {
            o->json = 1;
        } else if (i + 1 < argc && !strcmp(argv[i], "--keys-per-rank")) {
            o->keys_per_rank = strtoull(argv[++i], &end, 10);
            if (*end || o->keys_per_rank < 1 || o->keys_per_rank > ((uint64_t)1 << 30)) goto bad;
        } else if (i + 1 < argc && !strcmp(argv[i], "--key-bits")) {
            o->key_bits = (int)strtol(argv[++i], &end, 10);
            if (*end || o->key_bits < 1 || o->key_bits > 32) goto bad;
        } else if (i + 1 < argc && !strcmp(argv[i], "--iterations")) {
            o->iterations = (int)strtol(argv[++i], &end, 10);
            if (*end || o->iterations < 1 || o->iterations > 1000) goto bad;
        } else {
            goto bad;
        }
    }
    return 0;
bad:
    if (me == 0)
        fprintf(stderr, "usage: %s [--keys-per-rank N (1..2^30)] [--key-bits B (1..32)] [--iterations N (1..1000)] "
                        "[--json]\n", argv[0]);
    return 2;
}

/* Rank me's keys, grouped by destination rank: keys[displs[r] .. displs[r] + counts[r]) go to
 * rank r. The arrays are malloc'd; counts and displs hold n entries. NULL keys: out of memory.
 * *bucket_seconds: the time of the grouping (a count pass and a placing pass, as ISx's
 * bucketizing), the keys' drawing left out, as pgdds-isx leaves it out of its distribution. */
static uint32_t *exchange_bucket(const struct exchange_options *o, int me, int n, uint64_t *counts,
                                 uint64_t *displs, double *bucket_seconds)
{
    const uint64_t N = o->keys_per_rank;
    const uint32_t mask = o->key_bits == 32 ? ~0u : (1u << o->key_bits) - 1;
    uint32_t *drawn = malloc(N * sizeof *drawn), *keys = malloc(N * sizeof *keys);
    if (!drawn || !keys) {
        free(drawn);
        free(keys);
        return NULL;
    }
    uint64_t state = exchange_mix((uint64_t)me + 0x15a);
    for (uint64_t i = 0; i < N; ++i) drawn[i] = (uint32_t)exchange_mix(state + i) & mask;
    memset(keys, 0xff, N * sizeof *keys); /* backed before the timing (zeros would let the compiler call calloc) */
    double t0 = exchange_now();
    memset(counts, 0, (size_t)n * sizeof *counts);
    for (uint64_t i = 0; i < N; ++i) ++counts[((uint64_t)drawn[i] * (uint64_t)n) >> o->key_bits];
    for (int r = 0, at = 0; r < n; at += (int)counts[r], ++r) displs[r] = (uint64_t)at;
    uint64_t *fill = calloc((size_t)n, sizeof *fill);
    if (!fill) {
        free(drawn);
        free(keys);
        return NULL;
    }
    for (uint64_t i = 0; i < N; ++i) {
        int r = (int)(((uint64_t)drawn[i] * (uint64_t)n) >> o->key_bits);
        keys[displs[r] + fill[r]++] = drawn[i];
    }
    *bucket_seconds = exchange_now() - t0;
    free(fill);
    free(drawn);
    return keys;
}

/* The exchange's time and the grouping's before it (the slowest rank's each): JSON records in
 * the benchmarks' format, or a line of text. */
static void exchange_report(const struct exchange_options *o, const char *impl, int n, double seconds,
                            double bucket_seconds, uint64_t bytes_per_rank)
{
    if (o->json) {
        const char *metrics[2] = {"exchange_time", "bucket_time"};
        const double values[2] = {seconds, bucket_seconds};
        for (int i = 0; i < 2; ++i) {
            struct bench_record r;
            bench_record_begin(&r, "isx-exchange");
            bench_record_string(&r, "impl", impl);
            bench_record_int(&r, "ranks", n);
            bench_record_int(&r, "threads", 1);
            bench_record_uint(&r, "size", o->keys_per_rank);
            bench_record_measure(&r, metrics[i], values[i], "s");
            bench_record_uint(&r, "bytes_per_rank", bytes_per_rank);
            bench_record_print(&r);
        }
    } else {
        printf("%s: %d ranks, %llu keys per rank in [0, 2^%d): grouped in %.4f s, all-to-all of %.1f MiB per rank "
               "in %.4f s (mean of %d)\n", impl, n, (unsigned long long)o->keys_per_rank, o->key_bits,
               bucket_seconds, (double)bytes_per_rank / 1048576.0, seconds, o->iterations);
    }
    fflush(stdout);
}

#endif
