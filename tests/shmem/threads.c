/* SHMEM_THREAD_MULTIPLE with a private context per thread: each thread puts and adds to its
 * own words of the right-hand neighbour through its context and completes them with
 * shmem_ctx_quiet. Run with one VCI (contexts share it) and with four (one each). */
#include "shmem_check.h"

#include <pthread.h>
#include <stdint.h>

enum { THREADS = 3, ROUNDS = 200 };
static int me, n, right, left;
static long *counters, *slots;
static int thread_failed[THREADS];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        thread_failed[t] = 1;
        return NULL;
    }
    for (int i = 0; i < ROUNDS; ++i) {
        shmem_ctx_long_atomic_add(ctx, &counters[t], 1, right);
        shmem_ctx_long_p(ctx, &slots[t * ROUNDS + i], 1000000L * me + 1000L * t + i, right);
        if (i % 50 == 49) shmem_ctx_quiet(ctx);
    }
    long fetched = shmem_ctx_long_atomic_fetch(ctx, &counters[t], right);
    if (fetched > ROUNDS) thread_failed[t] = 1;
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    shmem_check_skip_if_absent();
    int provided = -1, queried = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0 && provided == SHMEM_THREAD_MULTIPLE);
    shmem_query_thread(&queried);
    CHECK(queried == SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    n = shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    counters = shmem_calloc(THREADS, sizeof(long));
    slots = shmem_calloc(THREADS * ROUNDS, sizeof(long));
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; ++t) CHECK(pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
    for (int t = 0; t < THREADS; ++t) CHECK(!thread_failed[t]);
    shmem_barrier_all();
    int ok = 1;
    for (int t = 0; t < THREADS; ++t) {
        ok &= counters[t] == ROUNDS;
        for (int i = 0; i < ROUNDS; ++i) ok &= slots[t * ROUNDS + i] == 1000000L * left + 1000L * t + i;
    }
    CHECK(ok);
    shmem_barrier_all();
    shmem_free(slots);
    shmem_free(counters);
    return shmem_check_end();
}
