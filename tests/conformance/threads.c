/* Multi-threaded conformance (PGDDS_THREAD_MULTIPLE): 4 threads per rank, each on its VCI or
 * sharing VCIs (PGDDS_NUM_VCIS), issue RMA, atomics and active messages at the same time; then
 * every element is counted. Also: a thread blocked in flush completes while the other threads
 * keep their VCIs busy. In debug builds the runtime aborts if two threads ever enter one
 * unlocked VCI at once, so this test also guards VCI ownership. */
#include "../harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define THREADS 4
#define WORDS 64  /* words each thread writes to each rank */
#define ITERS 200 /* atomics per thread */
#define MSGS 50   /* active messages per thread per destination */

static pgdds_context_t ctx;
static int me, n;
static pgdds_gptr_t *regions, *counters;
static pthread_barrier_t phase;
static atomic_int_least64_t am_count, am_bad;
static atomic_int flush_done;
static uint32_t am_id;
static atomic_int failures_in_threads;

#define TT_OK(expr) T_OK_COUNTED(failures_in_threads, expr)

static void on_msg(pgdds_context_t c, int src, const void *payload, size_t size, void *arg)
{
    (void)c, (void)arg;
    const uint64_t *v = payload;
    if (size != 16 || v[0] != (uint64_t)src) atomic_fetch_add(&am_bad, 1);
    atomic_fetch_add(&am_count, 1);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned nvcis = pgdds_num_vcis(ctx);
    if (t % 2 == 1) TT_OK(pgdds_vci_bind(ctx, (unsigned)t % nvcis)); /* half bind explicitly */
    int vci = pgdds_vci_current(ctx);
    if (vci < 0 || (unsigned)vci >= nvcis) atomic_fetch_add(&failures_in_threads, 1);

    /* RMA: my slot in every rank's region: [src rank][thread][word] */
    uint64_t vals[WORDS];
    for (int r = 0; r < n; ++r) {
        for (int w = 0; w < WORDS; ++w) vals[w] = ((uint64_t)me << 40) | ((uint64_t)t << 32) | (uint64_t)(r * WORDS + w);
        pgdds_gptr_t dst = pgdds_gptr_add(regions[r], (int64_t)(((me * THREADS + t) * WORDS) * 8));
        if (t == 0) TT_OK(pgdds_put(ctx, dst, vals, sizeof vals));
        else
            for (int w = 0; w < WORDS; ++w) TT_OK(pgdds_put_nbi(ctx, pgdds_gptr_add(dst, w * 8), &vals[w], 8));
        TT_OK(pgdds_flush(ctx)); /* vals is reused for the next rank */
    }
    /* read back what I wrote to my right neighbour */
    uint64_t back[WORDS];
    int right = (me + 1) % n;
    TT_OK(pgdds_get(ctx, back, pgdds_gptr_add(regions[right], (int64_t)(((me * THREADS + t) * WORDS) * 8)), sizeof back));
    for (int w = 0; w < WORDS; ++w)
        if (back[w] != (((uint64_t)me << 40) | ((uint64_t)t << 32) | (uint64_t)(right * WORDS + w))) {
            atomic_fetch_add(&failures_in_threads, 1);
            fprintf(stderr, "FAIL rank %d thread %d: read back word %d wrong\n", me, t, w);
            break;
        }

    /* Atomics under contention from every thread of every rank, on two ranks' counters. */
    for (int i = 0; i < ITERS; ++i) {
        uint64_t f;
        TT_OK(pgdds_atomic_u64(ctx, counters[0], PGDDS_AOP_ADD, 1, &f));
        TT_OK(pgdds_atomic_u32(ctx, pgdds_gptr_add(counters[n - 1], 8), PGDDS_AOP_ADD, 1, NULL));
        uint64_t cur = 0, old = 0;
        TT_OK(pgdds_atomic_load_u64(ctx, pgdds_gptr_add(counters[n - 1], 16), &cur));
        for (;;) {
            TT_OK(pgdds_atomic_cswap_u64(ctx, pgdds_gptr_add(counters[n - 1], 16), cur, cur + 1, &old));
            if (old == cur) break;
            cur = old;
        }
    }

    /* Active messages to every rank, then progress until all of mine arrived. */
    for (int r = 0; r < n; ++r)
        for (int m = 0; m < MSGS; ++m) {
            uint64_t p[2] = {(uint64_t)me, (uint64_t)m};
            TT_OK(pgdds_am_send(ctx, r, am_id, p, sizeof p));
        }
    int64_t expect = (int64_t)n * THREADS * MSGS;
    for (long spins = 0; atomic_load(&am_count) < expect && spins < 100000000L; ++spins) TT_OK(pgdds_progress(ctx));

    pthread_barrier_wait(&phase);

    /* Flush while the others are busy: thread 0 writes and flushes; the others keep issuing
     * blocking operations on their VCIs until it is done. */
    if (t == 0) {
        uint64_t v = 0x5eed0000ull + (uint64_t)me;
        for (int r = 0; r < n; ++r)
            TT_OK(pgdds_put_nbi(ctx, pgdds_gptr_add(counters[r], 24 + 8 * me), &v, 8));
        TT_OK(pgdds_flush(ctx));
        atomic_store(&flush_done, 1);
    } else {
        uint64_t x;
        while (!atomic_load(&flush_done)) TT_OK(pgdds_get(ctx, &x, counters[(me + t) % n], 8));
    }
    return NULL;
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    const char *level = getenv("PGDDS_THREAD_LEVEL");
    if (!level || strcmp(level, "multiple") != 0) {
        fprintf(stderr, "threads: needs PGDDS_THREAD_LEVEL=multiple\n");
        pgdds_finalize(ctx);
        return 77;
    }
    T_OK(pgdds_am_register(ctx, on_msg, NULL, &am_id));
    regions = calloc((size_t)n, sizeof *regions);
    counters = calloc((size_t)n, sizeof *counters);
    pgdds_gptr_t r, c;
    size_t region_bytes = (size_t)n * THREADS * WORDS * 8;
    T_OK(pgdds_alloc(ctx, region_bytes, 64, &r));
    T_OK(pgdds_alloc(ctx, 24 + 8 * (size_t)n, 64, &c));
    memset(pgdds_gptr_to_local(ctx, r), 0, region_bytes);
    memset(pgdds_gptr_to_local(ctx, c), 0, 24 + 8 * (size_t)n);
    T_OK(pgdds_allgather(ctx, &r, regions, sizeof r));
    T_OK(pgdds_allgather(ctx, &c, counters, sizeof c));
    T_OK(pgdds_barrier(ctx));

    pthread_barrier_init(&phase, NULL, THREADS);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; ++t) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
    t_failures += atomic_load(&failures_in_threads);
    T_OK(pgdds_barrier(ctx));

    /* every word from every thread of every rank arrived */
    const uint64_t *reg = pgdds_gptr_to_local(ctx, r);
    long bad = 0;
    for (int s = 0; s < n; ++s)
        for (int t = 0; t < THREADS; ++t)
            for (int w = 0; w < WORDS; ++w)
                bad += reg[(s * THREADS + t) * WORDS + w] != (((uint64_t)s << 40) | ((uint64_t)t << 32) | (uint64_t)(me * WORDS + w));
    T_CHECK_MSG(bad == 0, "%ld words lost or wrong", bad);
    uint64_t totals[3];
    T_OK(pgdds_get(ctx, &totals[0], counters[0], 8));
    T_OK(pgdds_get(ctx, &totals[1], pgdds_gptr_add(counters[n - 1], 8), 16));
    uint64_t want = (uint64_t)n * THREADS * ITERS;
    T_CHECK_MSG(totals[0] == want, "u64 fetch-add total %llu, expected %llu", (unsigned long long)totals[0], (unsigned long long)want);
    T_CHECK_MSG((uint32_t)totals[1] == (uint32_t)want, "u32 add total %u", (uint32_t)totals[1]);
    T_CHECK_MSG(totals[2] == want, "cswap total %llu", (unsigned long long)totals[2]);
    T_CHECK_MSG(atomic_load(&am_count) == (int64_t)n * THREADS * MSGS, "%lld active messages arrived",
                (long long)atomic_load(&am_count));
    T_CHECK(atomic_load(&am_bad) == 0);
    const uint64_t *cw = pgdds_gptr_to_local(ctx, c);
    for (int s = 0; s < n; ++s) T_CHECK_MSG(cw[3 + s] == 0x5eed0000ull + (uint64_t)s, "flushed word of rank %d missing", s);
    pthread_barrier_destroy(&phase);
    free(regions);
    free(counters);
    return t_finish(ctx, "conformance/threads");
}
