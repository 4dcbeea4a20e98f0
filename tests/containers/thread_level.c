/* The thread level binds container calls the same way on every path: under
 * PGDDS_THREAD_FUNNELED a second thread's container call fails with PGDDS_ERR_STATE and a
 * message, whether the container reaches memory directly (shm) or through the fabric; the
 * initializing thread's calls succeed. */
#include "common.h"

#include <pthread.h>

static pgdds_context_t ctx;
static pgdds_hashmap_t map;
static pgdds_queue_t queue;
static pgdds_bloom_t bloom;
static pgdds_array_t array;

static void *second_thread(void *arg)
{
    (void)arg;
    uint64_t key = 42, value = 7, out = 0;
    int was = 0;
    T_STATUS(pgdds_hashmap_insert(map, &key, &value, 0), PGDDS_ERR_STATE);
    T_STATUS(pgdds_hashmap_find(map, &key, &out, 0), PGDDS_ERR_STATE);
    T_STATUS(pgdds_hashmap_insert_many(map, 1, &key, &value, 0), PGDDS_ERR_STATE);
    T_STATUS(pgdds_queue_push(queue, &value, 1, 0), PGDDS_ERR_STATE);
    T_STATUS(pgdds_bloom_insert(bloom, &key, sizeof key, &was), PGDDS_ERR_STATE);
    T_STATUS(pgdds_array_put(array, 0, 1, &value), PGDDS_ERR_STATE);
    T_STATUS(pgdds_array_get(array, 0, 1, &out), PGDDS_ERR_STATE);
    pgdds_hashmap_t other = NULL;
    pgdds_hashmap_params_t p = {0, 8, 8, 64};
    T_STATUS(pgdds_hashmap_create(ctx, &p, &other), PGDDS_ERR_STATE);
    return NULL;
}

int main(void)
{
    pgdds_init_params_t params = {PGDDS_INIT_FIELD_THREAD_LEVEL, PGDDS_THREAD_FUNNELED, 0, NULL, 0};
    ctx = t_init(&params);
    int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    pgdds_hashmap_params_t hp = {0, 8, 8, 256};
    T_OK(pgdds_hashmap_create(ctx, &hp, &map));
    pgdds_queue_params_t qp = {0, PGDDS_QUEUE_FAST, 8, 64, n - 1};
    T_OK(pgdds_queue_create(ctx, &qp, &queue));
    T_OK(pgdds_bloom_create(ctx, 100, 0.01, &bloom));
    T_OK(pgdds_array_create(ctx, 8, 16, n - 1, &array));

    pthread_t t;
    T_CHECK(pthread_create(&t, NULL, second_thread, NULL) == 0);
    pthread_join(t, NULL); /* the failures it counted are read only after this */

    /* the initializing thread is allowed, and the second thread changed nothing */
    uint64_t key = 42, value = 7 + (uint64_t)me, out = 0;
    T_STATUS(pgdds_hashmap_find(map, &key, &out, 0), PGDDS_ERR_NOT_FOUND);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_insert(map, &key, &value, 0));
    T_OK(pgdds_hashmap_find(map, &key, &out, 0));
    T_OK(pgdds_queue_push(queue, &value, 1, 0));
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_array_destroy(array));
    T_OK(pgdds_bloom_destroy(bloom));
    T_OK(pgdds_queue_destroy(queue));
    T_OK(pgdds_hashmap_destroy(map));
    return t_finish(ctx, "containers/thread_level");
}
