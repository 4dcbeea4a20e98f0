/* RDMA or RPC, measured (BCL thesis ch. 8, Figures 8.4 and 8.5 for this machine): the time of each
 * container operation under the protocol this run's PGDDS_CONTAINER_PROTOCOL gives, beside the
 * library's report of the measured A, R, W and RPC costs, each operation's formula priced both
 * ways and auto's choice (pgdds_container_protocols). bench/protocols runs it under rdma, rpc and
 * auto on every transport configuration and tabulates the three runs.
 *
 *   pgdds-run -n 2 pgdds-bench-protocols [--json] [--ops N]
 *
 * Every timed operation is one call that reaches a part this rank does not own: hash map keys
 * of another owner, pushes and pops on a queue hosted by rank 0 (rank 0 does not time), Bloom
 * filter and key-table keys of random owners (n-1 of n remote). The time is the mean over the
 * timing ranks of each rank's time per operation; for the batched calls (hash map find_many,
 * Bloom contains_many) per call of one group of keys (32, 16), the unit their formulas price. With --json, one object per line:
 * {"bench":"protocols","transport":..,"mode":..,"ranks":..,"container":..,"operation":..,"us":..}
 * and the report's lines as {"report": "..."}. */
#include <pgdds/pgdds.h>

#include "../../tools/cli.h"
#include "../record.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pgdds_context_t ctx;
static int me, nranks, json;
static uint64_t ops = 2000;
static const char *mode;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void check(pgdds_status_t st, const char *what)
{
    if (st == PGDDS_OK) return;
    fprintf(stderr, "pgdds-bench-protocols: rank %d: %s: %s\n", me, what, pgdds_last_error());
    exit(1);
}

/* Prints the mean over the ranks that timed (timing: this one did) of seconds / count. */
static void report(const char *container, const char *operation, int timing, double seconds, uint64_t count)
{
    double mine[2] = {timing && count ? seconds * 1e6 / (double)count : 0, timing && count ? 1 : 0}, all[2];
    check(pgdds_allreduce(ctx, mine, all, 2, PGDDS_DOUBLE, PGDDS_OP_SUM), "allreduce");
    if (me != 0 || all[1] == 0) return;
    double us = all[0] / all[1];
    if (json) {
        struct bench_record r;
        bench_record_begin(&r, "protocols");
        bench_record_string(&r, "transport", pgdds_transport_name(ctx));
        bench_record_string(&r, "mode", mode);
        bench_record_int(&r, "ranks", nranks);
        bench_record_string(&r, "container", container);
        bench_record_string(&r, "operation", operation);
        bench_record_fixed(&r, "us", us, 3);
        bench_record_print(&r);
    } else printf("  %-15s %-17s %10.2f us\n", container, operation, us);
}

static void bench_hashmap(void)
{
    pgdds_hashmap_params_t p = {0, 8, 8, 4 * ops * (uint64_t)nranks};
    pgdds_hashmap_t map;
    check(pgdds_hashmap_create(ctx, &p, &map), "pgdds_hashmap_create");
    uint64_t *keys = malloc(ops * sizeof *keys);
    for (uint64_t i = 0, k = (uint64_t)me << 40; i < ops; ++k) { /* keys of other owners */
        int owner;
        uint64_t key = mix(k);
        check(pgdds_hashmap_owner(map, &key, &owner), "pgdds_hashmap_owner");
        if (owner != me || nranks == 1) keys[i++] = key;
    }
    static const struct { const char *name; int op; unsigned promise; } steps[] = {
        {"insert", 0, 0}, {"find", 1, 0}, {"erase", 2, 0}, {"insert/CP_INSERT", 0, PGDDS_CP_INSERT},
        {"find/CP_FIND", 1, PGDDS_CP_FIND},
    };
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; ++s) {
        check(pgdds_barrier(ctx), "barrier");
        double t0 = now();
        for (uint64_t i = 0; i < ops; ++i) {
            uint64_t v = keys[i];
            pgdds_status_t st = steps[s].op == 0   ? pgdds_hashmap_insert(map, &keys[i], &v, steps[s].promise)
                                : steps[s].op == 1 ? pgdds_hashmap_find(map, &keys[i], &v, steps[s].promise)
                                                   : pgdds_hashmap_erase(map, &keys[i], 0);
            check(st, steps[s].name);
        }
        check(pgdds_flush(ctx), "flush");
        double t = now() - t0;
        check(pgdds_barrier(ctx), "barrier");
        report("hashmap", steps[s].name, 1, t, ops);
    }
    /* Batches of one group (32 keys, the formula's unit): the time per call. */
    const uint64_t group = 32, calls = (ops + group - 1) / group;
    uint64_t *values = malloc(group * sizeof *values);
    unsigned char found[32];
    check(pgdds_barrier(ctx), "barrier");
    double t0 = now();
    const uint64_t n = ops < group ? ops : group;
    for (uint64_t c = 0; c < calls; ++c) {
        const uint64_t first = c * group % ops;
        check(pgdds_hashmap_find_many(map, n, keys + (first + n <= ops ? first : 0), values, found, PGDDS_CP_FIND),
              "find_many/CP_FIND");
    }
    double t = now() - t0;
    check(pgdds_barrier(ctx), "barrier");
    report("hashmap", "find_many/CP_FIND", 1, t, calls);
    free(values);
    free(keys);
    check(pgdds_hashmap_destroy(map), "pgdds_hashmap_destroy");
}

static void bench_queue(int kind, const char *name)
{
    pgdds_queue_params_t p = {0, kind, 16, ops * (uint64_t)nranks, 0};
    pgdds_queue_t q;
    check(pgdds_queue_create(ctx, &p, &q), "pgdds_queue_create");
    const int timing = me != 0 || nranks == 1;
    uint64_t e[2] = {(uint64_t)me, 0};
    for (int phase = 0; phase < 2; ++phase) {
        check(pgdds_barrier(ctx), "barrier");
        double t0 = now();
        for (uint64_t i = 0; timing && i < ops; ++i) {
            size_t got = 0;
            e[1] = i;
            check(phase == 0 ? pgdds_queue_push(q, e, 1, 0) : pgdds_queue_pop(q, e, 1, &got, 0),
                  phase == 0 ? "push" : "pop");
        }
        check(pgdds_flush(ctx), "flush");
        double t = now() - t0;
        check(pgdds_barrier(ctx), "barrier");
        report(name, phase == 0 ? "push" : "pop", timing, t, ops);
    }
    check(pgdds_barrier(ctx), "barrier");
    double t0 = now();
    for (uint64_t i = 0; timing && i < ops; ++i) {
        uint64_t size = 0;
        check(pgdds_queue_size(q, &size), "size");
    }
    double t = now() - t0;
    check(pgdds_barrier(ctx), "barrier");
    report(name, "size", timing, t, ops);
    check(pgdds_queue_destroy(q), "pgdds_queue_destroy");
}

static void bench_bloom(void)
{
    pgdds_bloom_t b;
    check(pgdds_bloom_create(ctx, ops * (uint64_t)nranks, 0.01, &b), "pgdds_bloom_create");
    for (int phase = 0; phase < 2; ++phase) {
        check(pgdds_barrier(ctx), "barrier");
        double t0 = now();
        for (uint64_t i = 0; i < ops; ++i) {
            uint64_t key = mix(((uint64_t)me << 40) + i);
            int flag = 0;
            check(phase == 0 ? pgdds_bloom_insert(b, &key, sizeof key, &flag) : pgdds_bloom_contains(b, &key, sizeof key, &flag),
                  phase == 0 ? "bloom insert" : "bloom contains");
        }
        double t = now() - t0;
        check(pgdds_barrier(ctx), "barrier");
        report("bloom", phase == 0 ? "insert" : "contains", 1, t, ops);
    }
    /* Batches of one group (16 keys): the time per call. */
    const uint64_t group = 16, calls = (ops + group - 1) / group;
    uint64_t keys[16];
    unsigned char flags[16];
    check(pgdds_barrier(ctx), "barrier");
    double t0 = now();
    for (uint64_t c = 0; c < calls; ++c) {
        for (uint64_t j = 0; j < group; ++j) keys[j] = mix(((uint64_t)me << 40) + (c * group + j) % ops);
        check(pgdds_bloom_contains_many(b, group, keys, sizeof keys[0], flags), "bloom contains_many");
    }
    double t = now() - t0;
    check(pgdds_barrier(ctx), "barrier");
    report("bloom", "contains_many", 1, t, calls);
    check(pgdds_bloom_destroy(b), "pgdds_bloom_destroy");
}

static void bench_keytable(void)
{
    pgdds_keytable_params_t p;
    memset(&p, 0, sizeof p);
    p.max_value_size = 16;
    p.capacity_per_rank = 2 * ops + 64;
    pgdds_keytable_t t;
    check(pgdds_keytable_create(ctx, &p, &t), "pgdds_keytable_create");
    for (uint64_t i = 0; i < ops; ++i) {
        uint64_t key = mix(((uint64_t)me << 40) + i), v[2] = {0, 0};
        check(pgdds_keytable_insert(t, &key, sizeof key, v, sizeof v), "keytable insert");
    }
    static const char *const names[] = {"put", "get", "atomic_u64", "remove"};
    for (int phase = 0; phase < 4; ++phase) {
        check(pgdds_barrier(ctx), "barrier");
        double t0 = now();
        for (uint64_t i = 0; i < ops; ++i) {
            /* the keys of the next rank: (n-1)/n of them live elsewhere */
            uint64_t key = mix(((uint64_t)((me + 1) % nranks) << 40) + i), v[2] = {i, i}, old = 0;
            size_t len = sizeof v;
            check(phase == 0   ? pgdds_keytable_put(t, &key, sizeof key, v, sizeof v)
                  : phase == 1 ? pgdds_keytable_get(t, &key, sizeof key, v, &len)
                  : phase == 2 ? pgdds_keytable_atomic_u64(t, &key, sizeof key, 0, PGDDS_AOP_ADD, 1, &old)
                               : pgdds_keytable_remove(t, &key, sizeof key),
                  "keytable operation");
        }
        double t = now() - t0;
        check(pgdds_barrier(ctx), "barrier");
        report("keytable", names[phase], 1, t, ops);
    }
    check(pgdds_keytable_destroy(t), "pgdds_keytable_destroy");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc && atoll(argv[i + 1]) > 0) ops = (uint64_t)atoll(argv[++i]);
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: pgdds-bench-protocols [--json] [--ops N]\n"
                   "Times each container operation under this run's PGDDS_CONTAINER_PROTOCOL beside the\n"
                   "library's priced formulas and auto's choice. Run it under pgdds-run.\n");
            return 0;
        } else if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
            pgdds_cli_version("pgdds-bench-protocols", pgdds_version_string());
            return 0;
        } else {
            fprintf(stderr, "pgdds-bench-protocols: unexpected argument %s\n", argv[i]);
            return 2;
        }
    }
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    me = pgdds_rank(ctx);
    nranks = pgdds_nranks(ctx);
    mode = getenv("PGDDS_CONTAINER_PROTOCOL") ? getenv("PGDDS_CONTAINER_PROTOCOL") : "auto";
    if (me == 0 && !json) printf("Container operations over %s, %d ranks, PGDDS_CONTAINER_PROTOCOL=%s\n",
                                 pgdds_transport_name(ctx), nranks, mode);
    bench_hashmap();
    bench_queue(PGDDS_QUEUE_FAST, "fast_queue");
    bench_queue(PGDDS_QUEUE_CIRCULAR, "circular_queue");
    bench_queue(PGDDS_QUEUE_CHECKSUM, "checksum_queue");
    bench_bloom();
    bench_keytable();
    size_t size = 0;
    pgdds_status_t st = pgdds_container_protocols(ctx, NULL, &size);
    if (st != PGDDS_ERR_OUT_OF_BOUNDS) check(st, "pgdds_container_protocols");
    char *text = malloc(size);
    check(pgdds_container_protocols(ctx, text, &size), "pgdds_container_protocols");
    if (me == 0) {
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            if (json) {
                struct bench_record r;
                bench_record_open(&r);
                bench_record_string(&r, "report", line);
                bench_record_print(&r);
            } else printf("  | %s\n", line);
    }
    free(text);
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return 0;
}
