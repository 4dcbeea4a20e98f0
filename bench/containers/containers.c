/* Container microbenchmarks (BCL paper §8.3, thesis Figures 5.4-5.6 and 6.5): hash map insert
 * (fully atomic, CP_INSERT, buffered, batched) and find (fully atomic, CP_FIND, batched), queue
 * push and pop on one queue and on one queue per rank for every queue kind, Bloom filter insert
 * and contains. Every operation goes to a random owner or queue. Beside the finds, the machine's
 * limit for their access pattern: a plain loop reading one random bucket of a private table as
 * large as the map, in every rank at once (hashmap_find_memory_limit), and a find's own work called
 * once per key on such a table, with none of the library's checks (hashmap_find_bare_call). On one node, the FastQueue push
 * has its peer: the bare CPU instructions of its protocol, each store at once and stores kept
 * back as the library keeps them (raw_fetch_add_store_push_many, _deferred_store_push_many).
 *
 *   pgdds-run -n 2 pgdds-bench-containers [--json] [--bench hashmap,queue_fast] [--keys N] ...
 *
 * Each measurement reports the aggregate rate (all operations of all ranks over the slowest
 * rank's time; each thread's share ends with a pgdds_flush, so every operation timed is
 * complete) and the per-rank rate (aggregate / ranks), and an operation's time against its
 * BCL cost formula, with the formula's A, R and W measured in the same run, right before and
 * right after that measurement (--calibration); over the network
 * also what the operations issued (pgdds_net_counts) and the formula at those counts. With
 * --json, one object per line:
 * {"bench":..,"transport":..,"ranks":..,"threads":..,"size":..,"metric":..,"value":..,"unit":..} */
#include <pgdds/pgdds.h>

#include "../../tools/cli.h"
#include "../record.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static pgdds_context_t ctx;
static int me, nranks;
/* Results that are wrong (keys missed, a map's size): any makes the run fail (exit 1). */
static uint64_t wrong_results;

static struct {
    int json;
    const char *only;       /* comma-separated name prefixes; NULL: everything */
    uint64_t keys;          /* hash map keys inserted per rank */
    uint64_t capacity;      /* hash map buckets in total */
    uint64_t ops;           /* queue and Bloom operations per rank */
    uint64_t batch;         /* keys per *_many call */
    uint64_t message;       /* hash map buffer message size, in entries */
    int threads;            /* threads per rank */
    double fp_rate;         /* Bloom filter */
    uint64_t calibration;   /* primitive operations per rank measured beside each measurement */
} opt = {0, NULL, 1000000, 0, 0, 64, 1024, 1, 0.01, 20000};

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

/* The i-th key inserted by rank r: random 64-bit values. */
static uint64_t key_of(int r, uint64_t i) { return mix(((uint64_t)r << 40) + i); }

static void die(const char *what, pgdds_status_t st)
{
    fprintf(stderr, "rank %d: %s: %s: %s\n", me, what, pgdds_strerror(st), pgdds_last_error());
    exit(1);
}
/* A benchmark has no use for a failed call: report it and stop. */
static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) die(what, st);
}

static int selected(const char *name)
{
    if (!opt.only) return 1;
    const char *p = opt.only;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len && strncmp(name, p, len) == 0) return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* --- the BCL cost formulas ------------------------------------------------------------------
 * Over a network an operation should cost no more than the remote operations of its protocol
 * (BCL paper §5, thesis Tables 5.2 and 6.1): A an atomic, R a read, W a write made visible (put
 * and flush). They are measured first, in this run and with the containers' pattern (every rank
 * at once, a random rank, a random bucket-sized place in a region the size of a hash map part),
 * and every measurement below that has a formula is also reported as its cost in that formula.
 * A CP_FIND reads a window of buckets at once (src/containers/hashmap.cc, find_window_bytes), so
 * that a key pushed a few buckets from its home by collisions costs no second read: its R is a
 * read of that window, Rw.
 * The operations on one queue (the "_one" measurements) all go to its host, rank 0, which then
 * serves every other rank's operations besides issuing its own to itself: their formulas use A,
 * R and W measured the same way, every rank at once aiming at rank 0. */
struct formula {
    const char *prefix; /* the measurements it applies to */
    int a, r, w;
    int window; /* its reads are window reads */
};
static const struct formula formulas[] = {
    {"hashmap_insert_atomic", 2, 0, 1, 0},      {"hashmap_insert_many_atomic", 2, 0, 1, 0},
    {"hashmap_insert_cp_insert", 1, 0, 1, 0},   {"hashmap_insert_many_cp_insert", 1, 0, 1, 0},
    {"hashmap_find_atomic", 2, 1, 0, 0},        {"hashmap_find_many_atomic", 2, 1, 0, 0},
    {"hashmap_find_cp_find", 0, 1, 0, 1},       {"hashmap_find_many_cp_find", 0, 1, 0, 1},
    {"queue_fast_push", 1, 0, 1, 0},            {"queue_fast_pop", 1, 1, 0, 0},
    {"queue_circular_push", 2, 0, 1, 0},        {"queue_circular_pop", 2, 1, 0, 0},
    {"queue_checksum_push", 1, 0, 2, 0},        {"queue_checksum_pop", 2, 2, 0, 0}, /* elements + checksums */
    {"bloom_insert", 1, 0, 0, 0},               {"bloom_contains", 0, 1, 0, 0},
};
enum { TERM_A, TERM_R, TERM_W, TERM_RW, TERMS };
static const char *const term_names[TERMS] = {"A", "R", "W", "Rw"};
enum { TO_RANDOM_RANK, TO_RANK0, TARGETS }; /* where the primitives were aimed */
/* seconds per operation and thread; 0: not measured */
static double cost[TARGETS][TERMS];
/* The costs of the terms a measurement's formula uses, measured beside it (--calibration):
 * right before it into `before`, then the mean of that and right after it into `beside`. The
 * machine's speed drifts over a run (other load; on few cores, the kernel's TCP work competes
 * with the ranks), so the formula prices the operations at the speed they ran at. */
static double before[TERMS], beside[TERMS], net_before[TERMS], net_beside[TERMS];
static int calibrated; /* whether `beside` holds the last measurement's costs */

/* Whether a measurement's operations all go to one queue, hosted by rank 0. */
static int to_rank0(const char *bench) { return strstr(bench, "_push_one") || strstr(bench, "_pop_one"); }

static const struct formula *formula_of(const char *bench)
{
    for (size_t i = 0; i < sizeof formulas / sizeof formulas[0]; ++i)
        if (strncmp(bench, formulas[i].prefix, strlen(formulas[i].prefix)) == 0) return &formulas[i];
    return NULL;
}

static void print_record(const char *bench, uint64_t size, const char *metric, double value, const char *unit)
{
    bench_record_common(bench, pgdds_transport_name(ctx), nranks, opt.threads, size, metric, value, unit);
}

/* The remote operations a timed run issued on the network (pgdds_net_counts): atomics waited
 * for, gets, puts, posted atomics and flushes. A posted atomic is priced as an A: it overlaps
 * what follows, but the formulas count it (a fully atomic find's release is the second A of
 * 2A+R). Flushes are not priced: W is a put with its flush. */
enum { ISSUED_A, ISSUED_R, ISSUED_W, ISSUED_POSTED, ISSUED_FLUSH, ISSUED_KINDS };
static uint64_t issued[ISSUED_KINDS]; /* this rank's, over the last timed() run */
/* The cost of one A, R, W and Rw that goes over the network: the primitive's time over the
 * network operations it issued (a random rank's memory is this rank's own now and then, and a
 * read or write of it is a local copy). 0: not measured or not over the network. */
static double net_cost[TARGETS][TERMS];

/* What one pgdds_flush adds to the flushes pgdds_net_counts reports (1 over a network, else 0):
 * timed() ends every thread's share with one, which is not the operations' own. */
static uint64_t flushes_per_flush;
static void count_flushes_per_flush(void)
{
    pgdds_net_counts_t before, after;
    check(pgdds_net_counts(ctx, &before), "pgdds_net_counts");
    check(pgdds_flush(ctx), "pgdds_flush");
    check(pgdds_net_counts(ctx, &after), "pgdds_net_counts");
    flushes_per_flush = after.flushes - before.flushes;
}

static void count_issued(const pgdds_net_counts_t *before, const pgdds_net_counts_t *after)
{
    issued[ISSUED_A] = after->atomics - before->atomics;
    issued[ISSUED_R] = after->gets - before->gets;
    issued[ISSUED_W] = after->puts - before->puts;
    issued[ISSUED_POSTED] = after->atomics_posted - before->atomics_posted;
    issued[ISSUED_FLUSH] = after->flushes - before->flushes - (uint64_t)opt.threads * flushes_per_flush;
}

/* Every rank's issued operations of the last timed() run over `ops`, every rank's operations
 * together; returns whether any went over the network. Collective. */
static int issued_per_op(uint64_t ops, double per_op[ISSUED_KINDS])
{
    uint64_t all[ISSUED_KINDS], any = 0;
    check(pgdds_allreduce(ctx, issued, all, ISSUED_KINDS, PGDDS_UINT64, PGDDS_OP_SUM), "pgdds_allreduce");
    for (int k = 0; k < ISSUED_KINDS; ++k) {
        per_op[k] = ops ? (double)all[k] / (double)ops : 0;
        any |= all[k];
    }
    return any != 0;
}

/* An operation's cost against its formula, twice: the best case the formula states (the key's
 * own bucket is free or holds it), and the formula at the network operations the operation
 * issued on average (collisions probe more buckets, an atomic each; keys of this rank's own part
 * are read and written locally). per_op: issued per operation, NULL when nothing went over the
 * network. */
static void report_cost(const char *bench, uint64_t size, double seconds_per_op, const double *per_op)
{
    const struct formula *f = formula_of(bench);
    const int target = to_rank0(bench) ? TO_RANK0 : TO_RANDOM_RANK;
    const double *c = calibrated ? beside : cost[target], *net = calibrated ? net_beside : net_cost[target];
    if (!f || cost[target][TERM_A] == 0) return;
    const int read = f->window ? TERM_RW : TERM_R;
    double formula = f->a * c[TERM_A] + f->r * c[read] + f->w * c[TERM_W], ratio = seconds_per_op / formula;
    double counted = 0;
    if (per_op)
        counted = (per_op[ISSUED_A] + per_op[ISSUED_POSTED]) * net[TERM_A] + per_op[ISSUED_R] * net[read] +
                  per_op[ISSUED_W] * net[TERM_W];
    if (opt.json) {
        print_record(bench, size, "formula", formula * 1e6, "us");
        print_record(bench, size, "cost_in_formula", ratio, "x");
        if (counted > 0) {
            print_record(bench, size, "cost_in_issued_formula", seconds_per_op / counted, "x");
            const char *metrics[ISSUED_KINDS] = {"issued_atomics", "issued_reads", "issued_writes",
                                                 "issued_posted_atomics", "issued_flushes"};
            for (int k = 0; k < ISSUED_KINDS; ++k) print_record(bench, size, metrics[k], per_op[k], "per op");
        }
        return;
    }
    char text[32] = "";
    const char *terms[3] = {term_names[TERM_A], term_names[read], term_names[TERM_W]};
    int counts[3] = {f->a, f->r, f->w};
    for (int i = 0; i < 3; ++i) {
        if (!counts[i]) continue;
        size_t at = strlen(text);
        if (at) text[at++] = '+';
        if (counts[i] > 1) at += (size_t)snprintf(text + at, sizeof text - at, "%d", counts[i]);
        snprintf(text + at, sizeof text - at, "%s", terms[i]);
    }
    printf("%-34s %-6s %.3f us per operation = %.2f x its formula %s (%.3f us)\n", bench, pgdds_transport_name(ctx),
           seconds_per_op * 1e6, ratio, text, formula * 1e6);
    if (counted > 0)
        printf("%-34s %-6s issued %.2f A (%.2f of them posted) + %.2f %s + %.2f W on the network (%.3f us; and %.2f "
               "flushes): %.2f x\n", bench, pgdds_transport_name(ctx), per_op[ISSUED_A] + per_op[ISSUED_POSTED],
               per_op[ISSUED_POSTED], per_op[ISSUED_R], terms[1], per_op[ISSUED_W], counted * 1e6,
               per_op[ISSUED_FLUSH], seconds_per_op / counted);
}

static void calibrate(const char *bench, int after);

static void report(const char *bench, uint64_t size, uint64_t my_ops, double my_seconds)
{
    uint64_t ops = 0;
    double seconds = 0, per_op[ISSUED_KINDS];
    check(pgdds_allreduce(ctx, &my_ops, &ops, 1, PGDDS_UINT64, PGDDS_OP_SUM), "pgdds_allreduce");
    check(pgdds_allreduce(ctx, &my_seconds, &seconds, 1, PGDDS_DOUBLE, PGDDS_OP_MAX), "pgdds_allreduce");
    int network = issued_per_op(ops, per_op);
    calibrate(bench, 1);
    if (me != 0) return;
    double aggregate = seconds > 0 ? (double)ops / seconds : 0, per_rank = aggregate / nranks;
    if (opt.json) {
        print_record(bench, size, "aggregate_rate", aggregate, "ops/s");
        print_record(bench, size, "per_rank_rate", per_rank, "ops/s");
    } else {
        printf("%-34s %-6s ranks %-3d threads %-2d size %-9llu %8.2f Mops/s per rank %8.2f Mops/s aggregate\n", bench,
               pgdds_transport_name(ctx), nranks, opt.threads, (unsigned long long)size, per_rank / 1e6,
               aggregate / 1e6);
    }
    if (per_rank > 0) report_cost(bench, size, opt.threads / per_rank, network ? per_op : NULL);
    fflush(stdout);
}

/* Runs body(thread, first, count) on opt.threads threads splitting [0, total); returns this
 * rank's seconds, measured from a barrier to the last thread's end. */
typedef void (*body_fn)(void *arg, int thread, uint64_t first, uint64_t count);
struct slice {
    body_fn body;
    void *arg;
    int thread;
    uint64_t first, count;
};
static void *run_slice(void *p)
{
    struct slice *s = p;
    s->body(s->arg, s->thread, s->first, s->count);
    check(pgdds_flush(ctx), "pgdds_flush"); /* an operation counts once it is complete */
    return NULL;
}
static double timed(body_fn body, void *arg, uint64_t total)
{
    enum { MAX_THREADS = 64 };
    pthread_t tid[MAX_THREADS];
    struct slice s[MAX_THREADS];
    int t = opt.threads;
    pgdds_net_counts_t before, after;
    check(pgdds_barrier(ctx), "pgdds_barrier");
    check(pgdds_net_counts(ctx, &before), "pgdds_net_counts");
    double t0 = now();
    for (int i = 0; i < t; ++i) {
        s[i] = (struct slice){body, arg, i, total * (uint64_t)i / (uint64_t)t,
                              total * (uint64_t)(i + 1) / (uint64_t)t - total * (uint64_t)i / (uint64_t)t};
        if (t > 1) pthread_create(&tid[i], NULL, run_slice, &s[i]);
        else run_slice(&s[i]);
    }
    if (t > 1)
        for (int i = 0; i < t; ++i) pthread_join(tid[i], NULL);
    double seconds = now() - t0;
    check(pgdds_net_counts(ctx, &after), "pgdds_net_counts");
    count_issued(&before, &after);
    check(pgdds_barrier(ctx), "pgdds_barrier");
    return seconds;
}

/* --- the remote operations of the formulas ------------------------------------------------- */
enum { BUCKET_BYTES = 24 }; /* a hash map bucket of 8-byte keys and values: state word, key, value */
enum { WINDOW_BYTES = 128 / BUCKET_BYTES * BUCKET_BYTES }; /* the buckets a CP_FIND reads at once */
struct primitive_run {
    int kind; /* TERM_A: a 32-bit compare-and-swap; TERM_R: a bucket read; TERM_W: a key+value put
               * and flush; TERM_RW: a read of a CP_FIND window */
    int target; /* TO_RANDOM_RANK or TO_RANK0 */
    const pgdds_gptr_t *regions;
    uint64_t buckets; /* per rank */
};

static void primitive_body(void *p, int thread, uint64_t first, uint64_t count)
{
    const struct primitive_run *r = p;
    uint64_t buf[WINDOW_BYTES / 8] = {0};
    /* Each operation's address depends on what the one before returned (always 0: the regions
     * are zeroed and never changed), so that the CPU cannot overlap a local read with the next
     * one any more than a probe can: the formulas count latencies. */
    uint64_t chain = 0;
    for (uint64_t i = first; i < first + count; ++i) {
        uint64_t x = mix(i ^ ((uint64_t)me << 40) ^ ((uint64_t)thread << 32) ^ ((uint64_t)r->kind << 56) ^ chain);
        uint64_t bucket = mix(x) % (r->buckets - WINDOW_BYTES / BUCKET_BYTES + 1);
        int rank = r->target == TO_RANK0 ? 0 : (int)(x % (uint64_t)nranks);
        pgdds_gptr_t b = pgdds_gptr_add(r->regions[rank], (int64_t)(bucket * BUCKET_BYTES));
        if (r->kind == TERM_A) {
            uint32_t old;
            check(pgdds_atomic_cswap_u32(ctx, b, 1, 2, &old), "pgdds_atomic_cswap_u32");
            chain = old;
        } else if (r->kind == TERM_R || r->kind == TERM_RW) {
            check(pgdds_get(ctx, buf, b, r->kind == TERM_R ? BUCKET_BYTES : WINDOW_BYTES), "pgdds_get");
            chain = buf[0];
        } else {
            check(pgdds_put(ctx, pgdds_gptr_add(b, 8), buf, 16), "pgdds_put");
            check(pgdds_flush(ctx), "pgdds_flush");
        }
    }
}

/* The regions the primitives aim at: one per rank, the size of a hash map part (at most 64 MiB). */
static pgdds_gptr_t primitive_mine, *primitive_regions;
static uint64_t primitive_buckets;

/* Times `ops` operations of one primitive per rank; returns its cost (seconds per operation and
 * thread) and sets *net to its cost per operation that went over the network (0: none did).
 * Collective. */
static double measure_primitive(int target, int kind, uint64_t ops, double *net)
{
    static const int issued_kind[TERMS] = {ISSUED_A, ISSUED_R, ISSUED_W, ISSUED_R};
    struct primitive_run r = {kind, target, primitive_regions, primitive_buckets};
    double s = timed(primitive_body, &r, ops), slowest, per_op[ISSUED_KINDS];
    check(pgdds_allreduce(ctx, &s, &slowest, 1, PGDDS_DOUBLE, PGDDS_OP_MAX), "pgdds_allreduce");
    double c = slowest * opt.threads / (double)ops;
    *net = issued_per_op(ops * (uint64_t)nranks, per_op) && per_op[issued_kind[kind]] > 0
               ? c / per_op[issued_kind[kind]] : 0;
    return c;
}

/* Measures every primitive once, at the start: reported on their own, and the formulas' costs
 * wherever --calibration 0 turns off the measurements beside each. */
static void measure_primitives(void)
{
    int wanted = selected("primitive");
    for (size_t i = 0; i < sizeof formulas / sizeof formulas[0]; ++i) wanted |= selected(formulas[i].prefix);
    if (!wanted) return;
    uint64_t ops = opt.keys < 100000 ? opt.keys : 100000;
    primitive_buckets = opt.capacity / (uint64_t)nranks;
    if (primitive_buckets > ((uint64_t)64 << 20) / BUCKET_BYTES) primitive_buckets = ((uint64_t)64 << 20) / BUCKET_BYTES;
    primitive_regions = malloc(sizeof *primitive_regions * (size_t)nranks);
    check(pgdds_alloc(ctx, primitive_buckets * BUCKET_BYTES, 64, &primitive_mine), "pgdds_alloc");
    memset(pgdds_gptr_to_local(ctx, primitive_mine), 0, primitive_buckets * BUCKET_BYTES);
    check(pgdds_allgather(ctx, &primitive_mine, primitive_regions, sizeof primitive_mine), "pgdds_allgather");
    const char *names[TERMS] = {"primitive_atomic_cas32", "primitive_read_bucket", "primitive_write_flush",
                                "primitive_read_window"};
    for (int target = 0; target < TARGETS; ++target)
        for (int kind = 0; kind < TERMS; ++kind) {
            if (target == TO_RANK0 && kind == TERM_RW) continue; /* no window reads on a queue */
            double *c = &cost[target][kind];
            *c = measure_primitive(target, kind, ops, &net_cost[target][kind]);
            if (me != 0) continue;
            char name[64];
            snprintf(name, sizeof name, "%s%s", names[kind], target == TO_RANK0 ? "_to_rank0" : "");
            if (opt.json) print_record(name, kind == TERM_RW ? WINDOW_BYTES : BUCKET_BYTES, "latency", *c * 1e6, "us");
            else printf("%-34s %-6s %.3f us per operation and thread (%s in the formulas%s)\n", name,
                        pgdds_transport_name(ctx), *c * 1e6, term_names[kind],
                        target == TO_RANK0 ? " of the operations on one queue" : "");
        }
    check(pgdds_barrier(ctx), "pgdds_barrier");
}

static void free_primitives(void)
{
    if (!primitive_regions) return;
    check(pgdds_free(ctx, primitive_mine), "pgdds_free");
    free(primitive_regions);
}

/* Measures the terms of bench's formula beside its measurement: `after` 0 right before it (into
 * `before`), 1 right after it (`beside` becomes the mean). Terms its formula does not use keep
 * their costs from the start. Collective. */
static void calibrate(const char *bench, int after)
{
    const struct formula *f = formula_of(bench);
    calibrated = 0;
    if (!f || !opt.calibration || !primitive_regions) return;
    const int target = to_rank0(bench) ? TO_RANK0 : TO_RANDOM_RANK;
    const int uses[TERMS] = {f->a, f->r && !f->window, f->w, f->r && f->window};
    for (int kind = 0; kind < TERMS; ++kind) {
        if (!uses[kind]) {
            beside[kind] = cost[target][kind];
            net_beside[kind] = net_cost[target][kind];
            continue;
        }
        double net, c = measure_primitive(target, kind, opt.calibration, &net);
        if (!after) {
            before[kind] = c;
            net_before[kind] = net;
        } else {
            beside[kind] = (before[kind] + c) / 2;
            net_beside[kind] = (net_before[kind] + net) / 2;
        }
    }
    calibrated = after;
}

/* A measurement of bench: timed(), with its formula's terms measured right before it (report()
 * measures them right after). */
static double measured(const char *bench, body_fn body, void *arg, uint64_t total)
{
    calibrate(bench, 0);
    return timed(body, arg, total);
}

/* --- hash map ------------------------------------------------------------------------------ */
struct map_run {
    pgdds_hashmap_t map;
    pgdds_hashmap_buffer_t buffer;
    unsigned promise;
    int find;    /* 0 insert, 1 find */
    int batched; /* use the *_many calls */
    uint64_t missing;
};

/* The keys of the hash map runs, generated before any timing so that the rates are those of the
 * map, not of the random number generator: the i-th key this rank inserts, and the i-th key it
 * looks up (an inserted key of a random rank). */
static uint64_t *insert_keys, *find_keys;

static void make_keys(void)
{
    if (insert_keys) return;
    insert_keys = malloc(opt.keys * sizeof *insert_keys);
    find_keys = malloc(opt.keys * sizeof *find_keys);
    if (!insert_keys || !find_keys) {
        fprintf(stderr, "rank %d: out of memory for %llu keys\n", me, (unsigned long long)opt.keys);
        exit(1);
    }
    for (uint64_t k = 0; k < opt.keys; ++k) {
        insert_keys[k] = key_of(me, k);
        find_keys[k] = key_of((int)(mix(k ^ 0xf00d) % (uint64_t)nranks), mix(k) % opt.keys);
    }
}

static void map_body(void *p, int thread, uint64_t first, uint64_t count)
{
    struct map_run *r = p;
    (void)thread;
    uint64_t keys[256], values[256];
    unsigned char found[256];
    uint64_t b = r->batched ? (opt.batch < 256 ? opt.batch : 256) : 1, missing = 0;
    for (uint64_t i = first; i < first + count; i += b) {
        uint64_t c = first + count - i < b ? first + count - i : b;
        for (uint64_t j = 0; j < c; ++j) {
            uint64_t k = i + j;
            keys[j] = r->find ? find_keys[k] : insert_keys[k];
            values[j] = k;
        }
        if (r->buffer) {
            check(pgdds_hashmap_buffer_insert(r->buffer, keys, values), "pgdds_hashmap_buffer_insert");
        } else if (!r->find) {
            if (r->batched) check(pgdds_hashmap_insert_many(r->map, c, keys, values, r->promise), "pgdds_hashmap_insert_many");
            else check(pgdds_hashmap_insert(r->map, keys, values, r->promise), "pgdds_hashmap_insert");
        } else if (r->batched) {
            check(pgdds_hashmap_find_many(r->map, c, keys, values, found, r->promise), "pgdds_hashmap_find_many");
            for (uint64_t j = 0; j < c; ++j) missing += !found[j];
        } else {
            pgdds_status_t st = pgdds_hashmap_find(r->map, keys, values, r->promise);
            if (st == PGDDS_ERR_NOT_FOUND) missing++;
            else check(st, "pgdds_hashmap_find");
        }
    }
    __atomic_fetch_add(&r->missing, missing, __ATOMIC_RELAXED);
}

static pgdds_hashmap_t new_map(void)
{
    make_keys();
    pgdds_hashmap_params_t p = {0, sizeof(uint64_t), sizeof(uint64_t), opt.capacity};
    pgdds_hashmap_t map;
    check(pgdds_hashmap_create(ctx, &p, &map), "pgdds_hashmap_create");
    return map;
}

static void bench_map_insert(const char *name, unsigned promise, int batched, int buffered)
{
    if (!selected(name)) return;
    pgdds_hashmap_t map = new_map();
    struct map_run r = {map, NULL, promise, 0, batched, 0};
    if (buffered) check(pgdds_hashmap_buffer_create(map, opt.keys, opt.message, &r.buffer), "pgdds_hashmap_buffer_create");
    check(pgdds_barrier(ctx), "pgdds_barrier");
    double t0 = now();
    double s = measured(name, map_body, &r, opt.keys);
    if (buffered) {
        check(pgdds_hashmap_buffer_flush(r.buffer), "pgdds_hashmap_buffer_flush"); /* the inserts are done only now */
        s = now() - t0;
    }
    report(name, opt.keys, opt.keys, s);
    uint64_t size = 0;
    check(pgdds_hashmap_size(map, &size), "pgdds_hashmap_size");
    if (size != opt.keys * (uint64_t)nranks) {
        ++wrong_results;
        if (me == 0)
            fprintf(stderr, "%s: the map holds %llu keys, not %llu\n", name, (unsigned long long)size,
                    (unsigned long long)(opt.keys * (uint64_t)nranks));
    }
    if (buffered) check(pgdds_hashmap_buffer_destroy(r.buffer), "pgdds_hashmap_buffer_destroy");
    check(pgdds_hashmap_destroy(map), "pgdds_hashmap_destroy");
}

/* The machine's limit for a single-key find's memory access: each rank reads one random bucket
 * (24 bytes: state word, key, value) of a private table as large as the whole map, for the same
 * keys, hashed. The finds read such a bucket of some rank's part, which on one node is memory of
 * the same kind; what a find costs beyond this loop is the library's. */
struct limit_run {
    const uint64_t *table; /* 3 words per bucket */
    uint64_t buckets;
    uint64_t sum; /* keeps the reads */
};

static void memory_limit_body(void *p, int thread, uint64_t first, uint64_t count)
{
    struct limit_run *r = p;
    (void)thread;
    uint64_t sum = 0;
    for (uint64_t i = first; i < first + count; ++i) {
        const uint64_t *b = r->table + 3 * (mix(find_keys[i]) % r->buckets);
        sum += b[0] ^ b[1] ^ b[2];
    }
    __atomic_fetch_add(&r->sum, sum, __ATOMIC_RELAXED);
}

static void bench_memory_limit(void)
{
    const char *name = "hashmap_find_memory_limit";
    if (!selected(name)) return;
    make_keys();
    struct limit_run r = {NULL, opt.capacity, 0};
    uint64_t *table = malloc(3 * opt.capacity * sizeof *table);
    if (!table) {
        fprintf(stderr, "rank %d: out of memory for a table of %llu buckets\n", me, (unsigned long long)opt.capacity);
        exit(1);
    }
    for (uint64_t i = 0; i < 3 * opt.capacity; ++i) table[i] = mix(i); /* backed, and not one shared zero page */
    r.table = table;
    double s = timed(memory_limit_body, &r, opt.keys);
    report(name, opt.keys, opt.keys, s);
    if (r.sum == 42) fprintf(stderr, "%llu\n", (unsigned long long)r.sum); /* the reads are used */
    free(table);
}

/* The least a single-key find through a call costs: a find's own work (XXH3 of the key, its home
 * bucket by one multiply, the state word's fingerprint and the key compared, the value copied,
 * linear probing past the home bucket) in a function of this program called once per key, over
 * a private table as large as the map holding every rank's keys; no handle, argument, promise or
 * thread checks. From hashmap_find_memory_limit to this lies what any call and hash cost; from
 * this to hashmap_find_cp_find, what the library's entry costs. */
struct bare_table {
    uint64_t *words; /* 3 per bucket: state (ready 2 | fingerprint << 16), key, value */
    uint64_t buckets;
};

static uint64_t bare_home(const struct bare_table *t, uint64_t key, uint64_t *state)
{
    const uint64_t m = XXH3_64bits(&key, sizeof key) * 0x9e3779b97f4a7c15ull;
    *state = 2 | (m & 0xffff) << 16;
    __extension__ typedef unsigned __int128 u128; /* a GCC/Clang type; __extension__ keeps -Wpedantic quiet */
    return (uint64_t)((u128)m * t->buckets >> 64);
}

__attribute__((noinline)) static int bare_find(const struct bare_table *t, const uint64_t *key, uint64_t *value)
{
    uint64_t state, s = bare_home(t, *key, &state);
    for (uint64_t i = 0; i < t->buckets; ++i, s = s + 1 == t->buckets ? 0 : s + 1) {
        const uint64_t *b = t->words + 3 * s;
        if (b[0] == 0) return 0;
        if (b[0] == state && b[1] == *key) {
            *value = b[2];
            return 1;
        }
    }
    return 0;
}

static void bare_find_body(void *p, int thread, uint64_t first, uint64_t count)
{
    const struct bare_table *t = p;
    (void)thread;
    uint64_t missing = 0;
    for (uint64_t i = first; i < first + count; ++i) {
        uint64_t value;
        missing += !bare_find(t, &find_keys[i], &value);
    }
    __atomic_fetch_add(&wrong_results, missing, __ATOMIC_RELAXED);
}

static void bench_bare_find(void)
{
    const char *name = "hashmap_find_bare_call";
    if (!selected(name)) return;
    make_keys();
    struct bare_table t = {calloc(3 * opt.capacity, sizeof(uint64_t)), opt.capacity};
    if (!t.words || opt.capacity < opt.keys * (uint64_t)nranks) {
        fprintf(stderr, "rank %d: no table of %llu buckets for every rank's keys\n", me, (unsigned long long)opt.capacity);
        exit(1);
    }
    for (int r = 0; r < nranks; ++r)
        for (uint64_t k = 0; k < opt.keys; ++k) {
            uint64_t key = key_of(r, k), state, s = bare_home(&t, key, &state);
            while (t.words[3 * s]) s = s + 1 == t.buckets ? 0 : s + 1;
            t.words[3 * s] = state;
            t.words[3 * s + 1] = key;
            t.words[3 * s + 2] = k;
        }
    double s = timed(bare_find_body, &t, opt.keys);
    report(name, opt.keys, opt.keys, s);
    free(t.words);
}

static void bench_map_find(void)
{
    const char *names[4] = {"hashmap_find_atomic", "hashmap_find_cp_find", "hashmap_find_many_atomic",
                            "hashmap_find_many_cp_find"};
    int any = 0;
    for (int i = 0; i < 4; ++i) any |= selected(names[i]);
    if (!any) return;
    pgdds_hashmap_t map = new_map();
    struct map_run fill = {map, NULL, PGDDS_CP_INSERT, 0, 1, 0};
    timed(map_body, &fill, opt.keys);
    for (int i = 0; i < 4; ++i) {
        if (!selected(names[i])) continue;
        struct map_run r = {map, NULL, i % 2 ? PGDDS_CP_FIND : 0, 1, i >= 2, 0};
        double s = measured(names[i], map_body, &r, opt.keys);
        report(names[i], opt.keys, opt.keys, s);
        if (r.missing) {
            wrong_results += r.missing;
            fprintf(stderr, "rank %d: %s missed %llu keys\n", me, names[i], (unsigned long long)r.missing);
        }
    }
    check(pgdds_hashmap_destroy(map), "pgdds_hashmap_destroy");
}

/* --- queues -------------------------------------------------------------------------------- */
struct queue_run {
    pgdds_queue_t *queues; /* one, or one per rank */
    int count;             /* how many */
    int pop;
    unsigned promise;
};

static void queue_body(void *p, int thread, uint64_t first, uint64_t count)
{
    struct queue_run *r = p;
    (void)thread;
    for (uint64_t i = first; i < first + count; ++i) {
        pgdds_queue_t q = r->queues[r->count == 1 ? 0 : (int)(mix(i ^ ((uint64_t)me << 32)) % (uint64_t)r->count)];
        uint64_t v = i;
        if (!r->pop) {
            check(pgdds_queue_push(q, &v, 1, r->promise), "pgdds_queue_push");
        } else {
            size_t got;
            pgdds_status_t st = pgdds_queue_pop(q, &v, 1, &got, r->promise);
            if (st != PGDDS_OK && st != PGDDS_ERR_EMPTY) die("pgdds_queue_pop", st);
        }
    }
}

static void bench_queue(int kind, int per_rank)
{
    static const char *kinds[] = {"fast", "circular", "checksum"};
    char push_name[64], pop_name[64];
    /* CircularQueue's phased promises (thesis Fig. 5.4 "push_push", "pop_pop"); the others are
     * measured with their defaults. */
    unsigned push_promise = kind == PGDDS_QUEUE_CIRCULAR ? PGDDS_CP_PUSH : 0;
    unsigned pop_promise = kind == PGDDS_QUEUE_CIRCULAR ? PGDDS_CP_POP : 0;
    for (int atomic = 0; atomic < (kind == PGDDS_QUEUE_CIRCULAR ? 2 : 1); ++atomic) {
        const char *suffix = kind != PGDDS_QUEUE_CIRCULAR ? "" : atomic ? "_pushpop" : "_phased";
        snprintf(push_name, sizeof push_name, "queue_%s_push_%s%s", kinds[kind], per_rank ? "many" : "one", suffix);
        snprintf(pop_name, sizeof pop_name, "queue_%s_pop_%s%s", kinds[kind], per_rank ? "many" : "one", suffix);
        if (!selected(push_name) && !selected(pop_name)) continue;
        int count = per_rank ? nranks : 1;
        pgdds_queue_t *qs = calloc((size_t)count, sizeof *qs);
        for (int i = 0; i < count; ++i) {
            pgdds_queue_params_t p = {0, kind, sizeof(uint64_t), opt.ops * (uint64_t)nranks, per_rank ? i : 0};
            check(pgdds_queue_create(ctx, &p, &qs[i]), "pgdds_queue_create");
        }
        struct queue_run r = {qs, count, 0, atomic ? 0 : push_promise};
        double s = measured(push_name, queue_body, &r, opt.ops);
        report(push_name, opt.ops, opt.ops, s);
        r.pop = 1;
        r.promise = atomic ? 0 : pop_promise;
        s = measured(pop_name, queue_body, &r, opt.ops);
        report(pop_name, opt.ops, opt.ops, s);
        for (int i = 0; i < count; ++i) check(pgdds_queue_destroy(qs[i]), "pgdds_queue_destroy");
        free(qs);
    }
}

/* The floor of the FastQueue push on one node, measured beside it: the same two steps written
 * as bare CPU instructions on queues in the segments (a fetch-add on a random queue's tail, an
 * 8-byte store into the slot it returned), with none of the library around them. Only where
 * every segment is load/store-reachable. Twice: each store at once, and the stores kept back
 * and issued 16 at a time, as the library does (deferred_stores). */
struct raw_push_run {
    uint64_t **queues; /* per rank: the tail word, then the slots */
    int deferred;
};

enum { RAW_DEFERRED = 16 };
static void raw_store_kept(uint64_t **slot, const uint64_t *value, int kept)
{
    for (int k = 0; k < kept; ++k) *slot[k] = value[k];
}
static void raw_push_body(void *p, int thread, uint64_t first, uint64_t count)
{
    struct raw_push_run *r = p;
    uint64_t *slot[RAW_DEFERRED], value[RAW_DEFERRED];
    int kept = 0;
    (void)thread;
    for (uint64_t i = first; i < first + count; ++i) {
        uint64_t *q = r->queues[mix(i ^ ((uint64_t)me << 32)) % (uint64_t)nranks];
        uint64_t t = __atomic_fetch_add(&q[0], 1, __ATOMIC_SEQ_CST);
        if (!r->deferred) {
            q[8 + t] = i; /* the slots start on the next cache line */
            continue;
        }
        slot[kept] = &q[8 + t];
        value[kept] = i;
        if (++kept == RAW_DEFERRED) {
            raw_store_kept(slot, value, kept);
            kept = 0;
        }
    }
    raw_store_kept(slot, value, kept);
}

static void bench_raw_push(void)
{
    static const char *names[] = {"raw_fetch_add_store_push_many", "raw_fetch_add_deferred_store_push_many"};
    if (!selected(names[0]) && !selected(names[1])) return;
    uint64_t slots = 2 * opt.ops * (uint64_t)nranks;
    pgdds_gptr_t mine, *all = malloc(sizeof *all * (size_t)nranks);
    uint64_t **queues = malloc(sizeof *queues * (size_t)nranks);
    check(pgdds_alloc(ctx, (8 + slots) * sizeof(uint64_t), 64, &mine), "pgdds_alloc");
    memset(pgdds_gptr_to_local(ctx, mine), 0, (8 + slots) * sizeof(uint64_t));
    check(pgdds_allgather(ctx, &mine, all, sizeof mine), "pgdds_allgather");
    int direct = 1, everywhere = 0;
    for (int r = 0; r < nranks; ++r) direct &= (queues[r] = pgdds_gptr_to_local(ctx, all[r])) != NULL;
    check(pgdds_allreduce(ctx, &direct, &everywhere, 1, PGDDS_INT32, PGDDS_OP_MIN), "pgdds_allreduce");
    if (everywhere) {
        /* touch every page of every queue first, as queue creation does */
        for (int r = 0; r < nranks; ++r)
            for (uint64_t i = 0; i < 8 + slots; i += 512) __atomic_fetch_add(&queues[r][i], 0, __ATOMIC_RELAXED);
        for (int deferred = 0; deferred < 2; ++deferred) {
            if (!selected(names[deferred])) continue;
            struct raw_push_run run = {queues, deferred};
            double s = timed(raw_push_body, &run, opt.ops);
            report(names[deferred], opt.ops, opt.ops, s);
        }
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");
    check(pgdds_free(ctx, mine), "pgdds_free");
    free(queues);
    free(all);
}

/* --- Bloom filter -------------------------------------------------------------------------- */
struct bloom_run {
    pgdds_bloom_t bloom;
    int contains;
    int batched;
};

static void bloom_body(void *p, int thread, uint64_t first, uint64_t count)
{
    struct bloom_run *r = p;
    (void)thread;
    uint64_t keys[256];
    unsigned char flags[256];
    uint64_t b = r->batched ? (opt.batch < 256 ? opt.batch : 256) : 1;
    for (uint64_t i = first; i < first + count; i += b) {
        uint64_t c = first + count - i < b ? first + count - i : b;
        for (uint64_t j = 0; j < c; ++j) keys[j] = key_of(me, i + j);
        int flag;
        if (r->batched && r->contains) check(pgdds_bloom_contains_many(r->bloom, c, keys, sizeof keys[0], flags), "pgdds_bloom_contains_many");
        else if (r->batched) check(pgdds_bloom_insert_many(r->bloom, c, keys, sizeof keys[0], flags), "pgdds_bloom_insert_many");
        else if (r->contains) check(pgdds_bloom_contains(r->bloom, keys, sizeof keys[0], &flag), "pgdds_bloom_contains");
        else check(pgdds_bloom_insert(r->bloom, keys, sizeof keys[0], &flag), "pgdds_bloom_insert");
    }
}

static void bench_bloom(void)
{
    const char *names[4] = {"bloom_insert", "bloom_contains", "bloom_insert_many", "bloom_contains_many"};
    int any = 0;
    for (int i = 0; i < 4; ++i) any |= selected(names[i]);
    if (!any) return;
    pgdds_bloom_t bloom;
    check(pgdds_bloom_create(ctx, opt.ops * (uint64_t)nranks, opt.fp_rate, &bloom), "pgdds_bloom_create");
    for (int i = 0; i < 4; ++i) {
        if (!selected(names[i])) continue;
        struct bloom_run r = {bloom, i % 2, i >= 2};
        double s = measured(names[i], bloom_body, &r, opt.ops);
        report(names[i], opt.ops, opt.ops, s);
    }
    check(pgdds_bloom_destroy(bloom), "pgdds_bloom_destroy");
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: pgdds-bench-containers [options]\n"
            "  --json              one JSON object per measurement\n"
            "  --bench LIST        comma-separated name prefixes (hashmap, hashmap_find, queue_fast, bloom,\n"
            "                      primitive, ...)\n"
            "  --keys N            hash map keys inserted per rank (default 1000000)\n"
            "  --capacity N        hash map buckets in total (default 2 x all keys: half full)\n"
            "  --ops N             queue and Bloom operations per rank (default --keys)\n"
            "  --batch N           keys per batched call (default 64, at most 256)\n"
            "  --message-size N    hash map buffer message, in entries (default 1024)\n"
            "  --threads N         threads per rank (default 1; needs PGDDS_THREAD_LEVEL=multiple)\n"
            "  --fp-rate R         Bloom filter false-positive rate (default 0.01)\n"
            "  --calibration N     primitive operations per rank measured right before and right after\n"
            "                      each measurement for its formula (default 20000; 0: the costs\n"
            "                      measured at the start)\n"
            "  -V, --version       the version\n"
            "  -h, --help          this text\n"
            "Values attach as --keys=1000 or --keys 1000.\n"
            "Exit status: 0; 1 when a call fails or a result is wrong (a key missed, a map's size),\n"
            "named on stderr; 2 for a bad option.\n");
}

/* The first thing wrong with the command line; "" when it is good. */
static char bad_args[160];

static void bad_usage(const char *why)
{
    if (!bad_args[0]) snprintf(bad_args, sizeof bad_args, "%s", why);
}

/* The value of option --name, a whole number within [lo, hi]; lo, with the complaint kept, when it is not. */
static uint64_t count_arg(const char *name, const char *text, uint64_t lo, uint64_t hi)
{
    uint64_t x = lo;
    if (!pgdds_cli_whole(text, lo, hi, &x)) {
        char why[160];
        snprintf(why, sizeof why, "--%s %s is not a whole number in %llu..%llu", name, text,
                 (unsigned long long)lo, (unsigned long long)hi);
        bad_usage(why);
    }
    return x;
}

int main(int argc, char **argv)
{
    enum { opt_json = 256, opt_bench, opt_keys, opt_capacity, opt_ops, opt_batch, opt_message_size, opt_threads,
           opt_fp_rate, opt_calibration };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, opt_json},
        {"bench", required_argument, NULL, opt_bench},
        {"keys", required_argument, NULL, opt_keys},
        {"capacity", required_argument, NULL, opt_capacity},
        {"ops", required_argument, NULL, opt_ops},
        {"batch", required_argument, NULL, opt_batch},
        {"message-size", required_argument, NULL, opt_message_size},
        {"threads", required_argument, NULL, opt_threads},
        {"fp-rate", required_argument, NULL, opt_fp_rate},
        {"calibration", required_argument, NULL, opt_calibration},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const uint64_t many = UINT64_C(1) << 40;
    char why[160];
    int c, asked = 0; /* 'h' or 'V': help or version */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":Vh", longopts, NULL)) != -1) {
        switch (c) {
        case opt_json: opt.json = 1; break;
        case opt_bench: opt.only = optarg; break;
        case opt_keys: opt.keys = count_arg("keys", optarg, 1, many); break;
        case opt_capacity: opt.capacity = count_arg("capacity", optarg, 1, many); break;
        case opt_ops: opt.ops = count_arg("ops", optarg, 1, many); break;
        case opt_batch: opt.batch = count_arg("batch", optarg, 1, 256); break;
        case opt_message_size: opt.message = count_arg("message-size", optarg, 1, many); break;
        case opt_threads: opt.threads = (int)count_arg("threads", optarg, 1, 64); break;
        case opt_fp_rate:
            /* The open interval (0, 1). */
            if (!pgdds_cli_number(optarg, 0, 1, &opt.fp_rate) || opt.fp_rate == 0 || opt.fp_rate == 1) {
                snprintf(why, sizeof why, "--fp-rate %s is not a rate between 0 and 1", optarg);
                bad_usage(why);
            }
            break;
        case opt_calibration: opt.calibration = count_arg("calibration", optarg, 0, many); break;
        case 'V':
        case 'h': asked = c; break;
        default: bad_usage(pgdds_cli_error(c, argv, why, sizeof why));
        }
    }
    if (optind < argc) {
        snprintf(why, sizeof why, "unexpected argument %s", argv[optind]);
        bad_usage(why);
    }
    if (bad_args[0] || asked) {
        /* Said once, by rank 0 of the job. */
        if (pgdds_init(NULL, &ctx) != PGDDS_OK) return 2;
        if (pgdds_rank(ctx) == 0 && bad_args[0]) {
            fprintf(stderr, "pgdds-bench-containers: %s\n", bad_args);
            usage(stderr);
        } else if (pgdds_rank(ctx) == 0 && asked == 'h') {
            usage(stdout);
        } else if (pgdds_rank(ctx) == 0) {
            pgdds_cli_version("pgdds-bench-containers", pgdds_version_string());
        }
        pgdds_finalize(ctx);
        return bad_args[0] ? 2 : 0;
    }
    pgdds_init_params_t params = {0, 0, 0, NULL, 0};
    if (opt.threads > 1) params.field_mask = PGDDS_INIT_FIELD_THREAD_LEVEL, params.thread_level = PGDDS_THREAD_MULTIPLE;
    check(pgdds_init(&params, &ctx), "pgdds_init");
    me = pgdds_rank(ctx);
    nranks = pgdds_nranks(ctx);
    if (opt.capacity == 0) opt.capacity = 2 * opt.keys * (uint64_t)nranks;
    if (opt.ops == 0) opt.ops = opt.keys;
    if (opt.message > opt.keys) opt.message = opt.keys;

    count_flushes_per_flush();
    measure_primitives();
    bench_map_insert("hashmap_insert_atomic", 0, 0, 0);
    bench_map_insert("hashmap_insert_cp_insert", PGDDS_CP_INSERT, 0, 0);
    bench_map_insert("hashmap_insert_many_atomic", 0, 1, 0);
    bench_map_insert("hashmap_insert_many_cp_insert", PGDDS_CP_INSERT, 1, 0);
    bench_map_insert("hashmap_insert_buffered", 0, 0, 1);
    bench_map_find();
    bench_memory_limit();
    bench_bare_find();
    for (int kind = PGDDS_QUEUE_FAST; kind <= PGDDS_QUEUE_CHECKSUM; ++kind) {
        bench_queue(kind, 0);
        bench_queue(kind, 1);
    }
    bench_raw_push();
    bench_bloom();
    free_primitives();
    uint64_t wrong = 0;
    check(pgdds_allreduce(ctx, &wrong_results, &wrong, 1, PGDDS_UINT64, PGDDS_OP_SUM), "pgdds_allreduce");
    if (wrong && me == 0) fprintf(stderr, "containers: %llu wrong results (see above)\n", (unsigned long long)wrong);
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return wrong ? 1 : 0;
}
