/* Two threads of one rank running collectives on one context at once (erroneous: collectives are
 * one thread per rank at a time). The library must say so (PGDDS_ERR_STATE) instead of pairing
 * the threads' calls across ranks (mixed sums) or deadlocking; every collective after that fails
 * on every rank, and finalize still completes.
 *
 * The overlap is made certain rather than left to the scheduler: on rank 0, thread A enters an
 * allreduce that cannot finish before the other ranks join it, which they do only after a
 * delay; thread B calls an allreduce of its own in between. Only A's calls have partners on
 * other ranks, so no sum can mix two threads' contributions. */
#include "harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static pgdds_context_t ctx;
static int me, n;
static atomic_int refused, wrong;
static pthread_barrier_t both;

/* An allreduce of `mine`; a right answer is n * mine, a refusal is counted. */
static void allreduce_once(int64_t mine)
{
    int64_t sum = -1;
    pgdds_status_t st = pgdds_allreduce(ctx, &mine, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM);
    if (st == PGDDS_ERR_STATE && strstr(pgdds_last_error(), "at the same time")) {
        atomic_fetch_add(&refused, 1);
    } else if (st != PGDDS_OK) {
        atomic_fetch_add(&wrong, 1);
        fprintf(stderr, "FAIL rank %d: allreduce returned %d: %s\n", me, st, pgdds_last_error());
    } else if (sum != n * mine) {
        atomic_fetch_add(&wrong, 1);
        fprintf(stderr, "FAIL rank %d: allreduce gave %lld, expected %lld\n", me, (long long)sum, (long long)(n * mine));
    }
}

static void *thread_a(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&both);
    allreduce_once(1);
    return NULL;
}

/* Rank 0's second thread: 0.2 s after A entered its allreduce, which waits for ranks that join
 * only after 1 s. */
static void *thread_b(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&both);
    usleep(200 * 1000);
    allreduce_once(2);
    return NULL;
}

int main(void)
{
    pgdds_init_params_t p = {PGDDS_INIT_FIELD_THREAD_LEVEL, PGDDS_THREAD_MULTIPLE, 0, NULL, 0};
    ctx = t_init(&p);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    T_OK(pgdds_barrier(ctx));
    pthread_t th[2];
    pthread_barrier_init(&both, NULL, me == 0 ? 2 : 1);
    if (me != 0) usleep(1000 * 1000);
    pthread_create(&th[0], NULL, thread_a, NULL);
    if (me == 0) pthread_create(&th[1], NULL, thread_b, NULL);
    pthread_join(th[0], NULL);
    if (me == 0) pthread_join(th[1], NULL);
    pthread_barrier_destroy(&both);
    T_CHECK(atomic_load(&wrong) == 0);
    if (n > 1 && me == 0) T_CHECK_MSG(atomic_load(&refused) >= 1, "rank 0's overlapping call was not refused");
    /* From then on every rank's collectives fail, with the reason. */
    int64_t one = 1, sum = 0;
    pgdds_status_t st = pgdds_allreduce(ctx, &one, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM);
    if (n > 1)
        T_CHECK_MSG(st == PGDDS_ERR_STATE && strstr(pgdds_last_error(), "at the same time"),
                    "allreduce after concurrent collectives returned %d: %s", st, pgdds_last_error());
    if (n > 1) T_STATUS(pgdds_barrier(ctx), PGDDS_ERR_STATE);
    printf("rank %d: %d concurrent calls refused here\n", me, atomic_load(&refused));
    T_OK(pgdds_finalize(ctx));
    return t_failures ? 1 : 0;
}
