/* Two threads of each rank running collectives on one context at once (erroneous: collectives are
 * one thread per rank at a time). The library must say so (PGDDS_ERR_STATE) instead of pairing
 * the threads' calls across ranks (mixed sums) or deadlocking; every collective after that fails
 * on every rank, and finalize still completes. */
#include "harness.h"

#include <pthread.h>
#include <stdatomic.h>

static pgdds_context_t ctx;
static int me, n;
static atomic_int refused, wrong;

static void *run(void *arg)
{
    int64_t mine = (intptr_t)arg; /* the same on every rank: a right answer is n * mine */
    for (int i = 0; i < 500; ++i) {
        int64_t sum = -1;
        pgdds_status_t st = pgdds_allreduce(ctx, &mine, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM);
        if (st == PGDDS_ERR_STATE && strstr(pgdds_last_error(), "at the same time")) {
            atomic_fetch_add(&refused, 1);
        } else if (st != PGDDS_OK) {
            atomic_fetch_add(&wrong, 1);
            fprintf(stderr, "FAIL rank %d: allreduce returned %d: %s\n", me, st, pgdds_last_error());
            break;
        } else if (sum != n * mine && atomic_load(&refused) == 0) {
            /* before any refusal here, the calls of this rank were not concurrent */
            atomic_fetch_add(&wrong, 1);
            fprintf(stderr, "FAIL rank %d: allreduce gave %lld, expected %lld\n", me, (long long)sum,
                    (long long)(n * mine));
        }
    }
    return NULL;
}

int main(void)
{
    pgdds_init_params_t p = {PGDDS_INIT_FIELD_THREAD_LEVEL, PGDDS_THREAD_MULTIPLE, 0, NULL, 0};
    ctx = t_init(&p);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    /* Every rank is past pgdds_init once this barrier completes anywhere; a rank still in it
     * when another rank's threads collide sees the collision here already. */
    pgdds_status_t st = pgdds_barrier(ctx);
    T_CHECK_MSG(st == PGDDS_OK || st == PGDDS_ERR_STATE, "barrier returned %d: %s", st, pgdds_last_error());
    pthread_t th[2];
    for (intptr_t t = 0; t < 2; ++t) pthread_create(&th[t], NULL, run, (void *)(t + 1));
    for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
    T_CHECK(atomic_load(&wrong) == 0);
    /* Some rank saw its two threads overlap (500 calls each); from then on every rank's
     * collectives fail, with the reason. */
    int64_t one = 1, sum = 0;
    st = pgdds_allreduce(ctx, &one, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM);
    T_CHECK_MSG(st == PGDDS_ERR_STATE && strstr(pgdds_last_error(), "at the same time"),
                "allreduce after concurrent collectives returned %d: %s", st, pgdds_last_error());
    T_STATUS(pgdds_barrier(ctx), PGDDS_ERR_STATE);
    printf("rank %d: %d concurrent calls refused here\n", me, atomic_load(&refused));
    T_OK(pgdds_finalize(ctx));
    return t_failures ? 1 : 0;
}
