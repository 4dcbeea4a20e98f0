/* A VCI whose owner thread stays away from the library is still served (PGDDS_THREAD_MULTIPLE,
 * two VCIs). Ranks pair up: on the even rank, a thread binds VCI 1 and then blocks outside the
 * library until the test ends, while the main thread (VCI 0) only calls pgdds_progress. On the
 * odd rank, a thread on VCI 1 runs fetch-adds, gets and puts against the even rank: those
 * arrive on the even rank's VCI 1. On transports that need the target's progress they complete
 * only through the even rank's periodic sweep of the VCIs nobody attends (the VCI thesis'
 * deadlock example); without it they would wait forever, and PGDDS_TIMEOUT turns that into a
 * failure. Every operation is then counted. */
#include "../harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define OPS 300 /* fetch-adds, gets and puts each */

static pgdds_context_t ctx;
static int me, n;
static pgdds_gptr_t *words; /* per rank: [0] counter, [1] done flag, [2..2+OPS) put targets */
static pthread_barrier_t bound, release;
static atomic_int thread_failures;

#define TH_OK(expr) T_OK_COUNTED(thread_failures, expr)

/* Even rank: own VCI 1, then stay out of the library until released. */
static void *absent_owner(void *arg)
{
    (void)arg;
    TH_OK(pgdds_vci_bind(ctx, 1));
    pthread_barrier_wait(&bound);
    pthread_barrier_wait(&release);
    return NULL;
}

/* Odd rank: drive the even partner's VCI 1. */
static void *driver(void *arg)
{
    (void)arg;
    TH_OK(pgdds_vci_bind(ctx, 1));
    pgdds_gptr_t base = words[me - 1];
    uint64_t old = 0, seen = 0;
    for (uint64_t i = 0; i < OPS && atomic_load(&thread_failures) == 0; ++i) {
        TH_OK(pgdds_atomic_u64(ctx, base, PGDDS_AOP_ADD, 1, &old));
        if (old != i) atomic_fetch_add(&thread_failures, 1); /* the only writer: old values in order */
        TH_OK(pgdds_get(ctx, &seen, base, 8));
        if (seen != i + 1) atomic_fetch_add(&thread_failures, 1);
        uint64_t v = ((uint64_t)me << 32) | i;
        TH_OK(pgdds_put(ctx, pgdds_gptr_add(base, (int64_t)(8 * (2 + i))), &v, 8));
    }
    uint64_t done = 1;
    TH_OK(pgdds_put(ctx, pgdds_gptr_add(base, 8), &done, 8));
    TH_OK(pgdds_flush(ctx));
    return NULL;
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    const char *level = getenv("PGDDS_THREAD_LEVEL");
    if (!level || strcmp(level, "multiple") != 0 || pgdds_num_vcis(ctx) < 2 || n % 2) {
        if (me == 0) fprintf(stderr, "idle_owner: needs PGDDS_THREAD_LEVEL=multiple, two VCIs and an even number of ranks\n");
        pgdds_finalize(ctx);
        return 77;
    }
    T_OK(pgdds_vci_bind(ctx, 0));
    words = calloc((size_t)n, sizeof *words);
    pgdds_gptr_t mine;
    size_t bytes = 8 * (2 + OPS);
    T_OK(pgdds_alloc(ctx, bytes, 64, &mine));
    volatile uint64_t *local = pgdds_gptr_to_local(ctx, mine);
    memset((void *)local, 0, bytes);
    T_OK(pgdds_allgather(ctx, &mine, words, sizeof mine));
    pthread_barrier_init(&bound, NULL, 2);
    pthread_barrier_init(&release, NULL, 2);
    T_OK(pgdds_barrier(ctx));

    pthread_t th;
    if (me % 2 == 0) {
        pthread_create(&th, NULL, absent_owner, NULL);
        pthread_barrier_wait(&bound);
        T_OK(pgdds_barrier(ctx)); /* the partner starts only once VCI 1 has its absent owner */
        double start = t_seconds();
        while (local[1] == 0 && t_seconds() - start < 60) T_OK(pgdds_progress(ctx));
        T_CHECK_MSG(local[1] == 1, "the partner did not finish within 60 s");
        pthread_barrier_wait(&release);
        pthread_join(th, NULL);
        T_CHECK_MSG(local[0] == OPS, "counter %llu, expected %d", (unsigned long long)local[0], OPS);
        long bad = 0;
        for (uint64_t i = 0; i < OPS; ++i) bad += local[2 + i] != (((uint64_t)(me + 1) << 32) | i);
        T_CHECK_MSG(bad == 0, "%ld put words lost or wrong", bad);
    } else {
        T_OK(pgdds_barrier(ctx));
        pthread_create(&th, NULL, driver, NULL);
        pthread_join(th, NULL);
    }
    t_failures += atomic_load(&thread_failures);
    T_OK(pgdds_barrier(ctx));
    pthread_barrier_destroy(&bound);
    pthread_barrier_destroy(&release);
    free(words);
    return t_finish(ctx, "conformance/idle_owner");
}
