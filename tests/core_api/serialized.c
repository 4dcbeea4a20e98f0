/* PGDDS_THREAD_SERIALIZED: two threads of every rank take turns (a mutex and a condition
 * variable order them), each turn putting, adding, inserting into a hash map and running
 * collectives; the counts come out exact. A third thread that never called before reads every
 * entry back. Thread levels outside the four are refused. */
#include "../harness.h"

#include <pthread.h>
#include <stdint.h>

enum { ROUNDS = 24 };

static pgdds_context_t ctx;
static int me, n;
static pgdds_gptr_t slots;   /* symmetric: n words, slot r written by rank r */
static pgdds_gptr_t counter; /* symmetric: one word every rank adds to */
static pgdds_hashmap_t map;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int turn = 0; /* the round due; thread round % 2 runs it */

static void one_round(int round)
{
    uint64_t value = 1000u * (uint64_t)(round + 1) + (uint64_t)me;
    for (int r = 0; r < n; ++r) {
        pgdds_gptr_t there;
        T_OK(pgdds_gptr_at(ctx, counter, r, &there));
        T_OK(pgdds_atomic_u64(ctx, there, PGDDS_AOP_ADD, 1, NULL));
        T_OK(pgdds_gptr_at(ctx, slots, r, &there));
        T_OK(pgdds_put_nbi(ctx, pgdds_gptr_add(there, (int64_t)me * 8), &value, sizeof value));
    }
    T_OK(pgdds_flush(ctx));
    uint64_t key = (uint64_t)me * ROUNDS + (uint64_t)round;
    T_OK(pgdds_hashmap_insert(map, &key, &value, 0));
    T_OK(pgdds_barrier(ctx));

    const uint64_t *mine = pgdds_gptr_to_local(ctx, slots);
    T_CHECK(mine != NULL);
    for (int r = 0; mine && r < n; ++r)
        T_CHECK_MSG(mine[r] == 1000u * (uint64_t)(round + 1) + (uint64_t)r, "round %d: slot %d holds %llu", round,
                    r, (unsigned long long)mine[r]);
    int64_t in = round, sum = 0;
    T_OK(pgdds_allreduce(ctx, &in, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK_MSG(sum == (int64_t)n * round, "round %d: allreduce gave %lld", round, (long long)sum);
    T_OK(pgdds_barrier(ctx)); /* nobody overwrites a slot before every rank has read it */
}

/* Runs the rounds whose parity is `which`, each when its turn comes. */
static void take_turns(int which)
{
    for (int round = which; round < ROUNDS; round += 2) {
        pthread_mutex_lock(&lock);
        while (turn != round) pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
        one_round(round);
        pthread_mutex_lock(&lock);
        turn = round + 1;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
}

static void *second_thread(void *arg)
{
    (void)arg;
    take_turns(1);
    return NULL;
}

/* A thread that never called the library reads every rank's entries. */
static void *reader_thread(void *arg)
{
    (void)arg;
    for (int r = 0; r < n; ++r)
        for (int round = 0; round < ROUNDS; ++round) {
            uint64_t key = (uint64_t)r * ROUNDS + (uint64_t)round, value = 0;
            T_OK(pgdds_hashmap_find(map, &key, &value, 0));
            T_CHECK_MSG(value == 1000u * (uint64_t)(round + 1) + (uint64_t)r, "key %llu holds %llu",
                        (unsigned long long)key, (unsigned long long)value);
        }
    uint64_t total = 0;
    T_OK(pgdds_hashmap_size(map, &total)); /* collective: this thread is the rank's only caller now */
    T_CHECK_MSG(total == (uint64_t)n * ROUNDS, "the map holds %llu entries", (unsigned long long)total);
    return NULL;
}

static void test_bad_levels(void)
{
    pgdds_context_t none = NULL;
    pgdds_init_params_t p = {PGDDS_INIT_FIELD_THREAD_LEVEL, PGDDS_THREAD_SERIALIZED + 1, 0, NULL, 0};
    T_STATUS(pgdds_init(&p, &none), PGDDS_ERR_INVALID_ARG);
    p.thread_level = -1;
    T_STATUS(pgdds_init(&p, &none), PGDDS_ERR_INVALID_ARG);
    T_CHECK(none == NULL);
}

int main(void)
{
    test_bad_levels();
    pgdds_init_params_t params = {PGDDS_INIT_FIELD_THREAD_LEVEL, PGDDS_THREAD_SERIALIZED, 0, NULL, 0};
    ctx = t_init(&params);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    T_OK(pgdds_alloc_all(ctx, (size_t)n * 8, 8, PGDDS_ALLOC_ZERO, &slots));
    T_OK(pgdds_alloc_all(ctx, 8, 8, PGDDS_ALLOC_ZERO, &counter));
    pgdds_hashmap_params_t hp = {0, 8, 8, (uint64_t)n * ROUNDS * 2};
    T_OK(pgdds_hashmap_create(ctx, &hp, &map));

    pthread_t t;
    T_CHECK(pthread_create(&t, NULL, second_thread, NULL) == 0);
    take_turns(0);
    pthread_join(t, NULL);

    T_OK(pgdds_barrier(ctx));
    const uint64_t *count = pgdds_gptr_to_local(ctx, counter);
    T_CHECK(count != NULL);
    if (count) T_CHECK_MSG(*count == (uint64_t)n * ROUNDS, "the counter holds %llu", (unsigned long long)*count);

    T_CHECK(pthread_create(&t, NULL, reader_thread, NULL) == 0);
    pthread_join(t, NULL);

    T_OK(pgdds_hashmap_destroy(map));
    T_OK(pgdds_free_all(ctx, counter));
    T_OK(pgdds_free_all(ctx, slots));
    return t_finish(ctx, "core_api/serialized");
}
