/* Message rate vs threads: 8-byte put_nbi and fetch-add, three ways:
 *   --mode vcis    2 ranks, T threads each, thread t on VCI t       (PGDDS_NUM_VCIS >= T; with
 *                  T + 1 the main thread, idle meanwhile, takes the last one)
 *   --mode shared  2 ranks, T threads each, all on VCI 0
 *   --mode procs   2T single-threaded ranks: rank i < T drives rank i + T
 * The driving side issues; the other side keeps its VCIs progressed (target-side progress is
 * what several transports need) until told to stop. bench/micro/vci_rate.sh runs all three.
 * Every mode places its streams alike on the CPUs this process may use: driving stream t on the
 * t-th, serving stream t on the (T + t)-th, wrapping around; with more streams than CPUs each
 * CPU then holds one driving and one serving stream in every mode, where left to the scheduler
 * two threads of one process often shared a CPU while processes spread.
 * usage: vci-rate --mode vcis|shared|procs [--threads T] [--ops N] [--json] */
#include <pgdds/pgdds.h>

#include "report.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static pgdds_context_t ctx;
static int me, n, threads = 1, driver, shared_vci;
static long ops = 200000;
static pgdds_gptr_t *bufs;
static pthread_barrier_t start_line;
static const char *metric_names[2] = {"put_nbi_rate", "fetch_add_rate"};

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "vci-rate: %s: %s\n", what, pgdds_last_error());
        exit(1);
    }
}

/* Each stream's target word has a block of its own: two cache lines, because the L2 spatial
 * prefetcher of x86 cores fetches lines in 128-byte pairs, and streams on neighbouring lines
 * would then contend as if they shared one (processes target separate segments anyway). */
enum { stream_block = 128 };

/* The target of thread t (or of this rank in procs mode). */
static pgdds_gptr_t target_of(int t)
{
    int peer = n == 2 ? 1 - me : (me + n / 2) % n;
    return pgdds_gptr_add(bufs[peer], stream_block * (t + 1));
}

/* Streams per side, and which one thread t of this rank is (in procs mode, each rank is one). */
static int streams(void) { return n == 2 ? threads : n / 2; }
static int stream_of(int t) { return n == 2 ? t : me % (n / 2); }

struct job {
    int t, metric;
    double seconds;
};

static cpu_set_t allowed; /* the CPUs this process may use, read at start */

/* Pins the calling thread as stream `t` of its side (see the top of the file). */
static void place(int t, int driving, int per_side)
{
    int count = CPU_COUNT(&allowed), want = ((driving ? 0 : per_side) + t) % count, seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &allowed) || seen++ != want) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
        return;
    }
}

static void *drive(void *arg)
{
    struct job *j = arg;
    place(stream_of(j->t), 1, streams());
    check(pgdds_vci_bind(ctx, shared_vci ? 0 : (unsigned)j->t), "pgdds_vci_bind");
    pgdds_gptr_t dst = target_of(j->t);
    uint64_t v = 1, f;
    pthread_barrier_wait(&start_line);
    double t0 = now_us();
    if (j->metric == 0) {
        for (long i = 0; i < ops; ++i) {
            check(pgdds_put_nbi(ctx, dst, &v, 8), "pgdds_put_nbi");
            if ((i & 255) == 255) check(pgdds_flush(ctx), "pgdds_flush");
        }
        check(pgdds_flush(ctx), "pgdds_flush");
    } else {
        for (long i = 0; i < ops / 8; ++i) check(pgdds_atomic_u64(ctx, dst, PGDDS_AOP_ADD, 1, &f), "fetch-add");
    }
    j->seconds = (now_us() - t0) * 1e-6;
    return NULL;
}

/* The passive side: progress until the driving side raises the stop word. */
static void *serve(void *arg)
{
    struct job *j = arg;
    place(stream_of(j->t), 0, streams());
    check(pgdds_vci_bind(ctx, shared_vci ? 0 : (unsigned)j->t), "pgdds_vci_bind");
    volatile uint64_t *stop = pgdds_gptr_to_local(ctx, bufs[me]);
    pthread_barrier_wait(&start_line);
    /* Yield between progress calls: with more threads than cores the drivers, not the servers,
     * should have the cores. */
    while (*stop <= (uint64_t)j->metric) {
        check(pgdds_progress(ctx), "pgdds_progress");
        sched_yield();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = "vcis";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) report_json = 1;
        else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) mode = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) ops = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: vci-rate --mode vcis|shared|procs [--threads T] [--ops N] [--json]\n");
            return 2;
        }
    }
    sched_getaffinity(0, sizeof allowed, &allowed);
    int procs = strcmp(mode, "procs") == 0;
    shared_vci = strcmp(mode, "shared") == 0;
    if (procs) threads = 1;
    if (threads < 1 || threads > 256 || ops < 256) return 2;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    if (n % 2 || (!procs && n != 2) || (!procs && !shared_vci && pgdds_num_vcis(ctx) < (unsigned)threads)) {
        if (me == 0) fprintf(stderr, "vci-rate: %s mode needs %s\n", mode, procs ? "an even number of ranks" : "2 ranks and PGDDS_NUM_VCIS >= threads");
        pgdds_finalize(ctx);
        return 2;
    }
    driver = procs ? me < n / 2 : me == 0;
    bufs = malloc(sizeof *bufs * (size_t)n);
    pgdds_gptr_t mine;
    check(pgdds_alloc(ctx, stream_block * (size_t)(threads + 1), stream_block, &mine), "pgdds_alloc");
    memset(pgdds_gptr_to_local(ctx, mine), 0, stream_block * (size_t)(threads + 1));
    check(pgdds_allgather(ctx, &mine, bufs, sizeof mine), "pgdds_allgather");
    /* The main thread waits in pthread_join while the streams run: it leaves their VCIs to them
     * (a VCI with two bound threads locks), on a VCI of its own when there is one. */
    if (threads > 1 && !shared_vci && pgdds_num_vcis(ctx) > (unsigned)threads)
        check(pgdds_vci_bind(ctx, (unsigned)threads), "pgdds_vci_bind");
    pthread_barrier_init(&start_line, NULL, (unsigned)threads);
    struct job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *th = calloc((size_t)threads, sizeof *th);

    for (int metric = 0; metric < 2; ++metric) {
        check(pgdds_barrier(ctx), "pgdds_barrier");
        for (int t = 0; t < threads; ++t) {
            jobs[t] = (struct job){t, metric, 0};
            if (threads == 1) (driver ? drive : serve)(&jobs[t]);
            else pthread_create(&th[t], NULL, driver ? drive : serve, &jobs[t]);
        }
        if (threads > 1)
            for (int t = 0; t < threads; ++t) pthread_join(th[t], NULL);
        if (driver) {
            /* tell my target to stop serving */
            int peer = n == 2 ? 1 - me : (me + n / 2) % n;
            uint64_t next = (uint64_t)metric + 1;
            check(pgdds_put(ctx, bufs[peer], &next, 8), "pgdds_put");
            check(pgdds_flush(ctx), "pgdds_flush");
        }
        double slowest = 0, total_ops = 0;
        for (int t = 0; t < threads && driver; ++t) {
            if (jobs[t].seconds > slowest) slowest = jobs[t].seconds;
            total_ops += metric == 0 ? (double)ops : (double)(ops / 8);
        }
        double agg[2] = {total_ops, slowest}, sum[2], max[2];
        check(pgdds_allreduce(ctx, agg, sum, 2, PGDDS_DOUBLE, PGDDS_OP_SUM), "pgdds_allreduce");
        check(pgdds_allreduce(ctx, agg, max, 2, PGDDS_DOUBLE, PGDDS_OP_MAX), "pgdds_allreduce");
        if (me == 0) {
            char bench[32];
            snprintf(bench, sizeof bench, "vci_rate_%s", mode);
            report(bench, pgdds_transport_name(ctx), n, procs ? n / 2 : threads, 8, metric_names[metric],
                   sum[0] / max[1] / 1e6, "Mmsg/s");
        }
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");
    free(jobs);
    free(th);
    free(bufs);
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return 0;
}
