/* Several threads per rank (PGDDS_THREAD_MULTIPLE) hammering one container of each kind at
 * once; then exact counts: nothing lost, duplicated or torn. */
#include "common.h"

#include <pthread.h>

enum { THREADS = 3 };

static pgdds_context_t ctx;
static int me, n;

static void run_threads(void *(*body)(void *), void *args, size_t arg_size)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; ++i) pthread_create(&t[i], NULL, body, (char *)args + (size_t)i * arg_size);
    for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
}

/* A writer id for thread `t` of this rank. */
static uint64_t writer(int t) { return (uint64_t)me * THREADS + (uint64_t)t; }

/* --- hash map ---------------------------------------------------------------------------- */
static uint64_t map_own, map_shared; /* keys per thread, keys all threads write */
struct map_arg {
    pgdds_hashmap_t map;
    int thread;
    int failures;
};

static void *map_body(void *p)
{
    struct map_arg *a = p;
    for (uint64_t i = 0; i < map_own; ++i) {
        uint64_t key = 1000000 + writer(a->thread) * map_own + i;
        struct t_value v = t_value_of(key, writer(a->thread));
        a->failures += pgdds_hashmap_insert(a->map, &key, &v, 0) != PGDDS_OK;
        uint64_t skey = (i * 13 + writer(a->thread)) % map_shared;
        v = t_value_of(skey, writer(a->thread));
        a->failures += pgdds_hashmap_insert(a->map, &skey, &v, 0) != PGDDS_OK;
        struct t_value got;
        pgdds_status_t st = pgdds_hashmap_find(a->map, &skey, &got, 0); /* maybe erased meanwhile */
        a->failures += st == PGDDS_OK ? !t_value_ok(&got, skey) : st != PGDDS_ERR_NOT_FOUND;
        if (i % 4 == 0) {
            pgdds_status_t e = pgdds_hashmap_erase(a->map, &skey, 0);
            a->failures += e != PGDDS_OK && e != PGDDS_ERR_NOT_FOUND;
        }
    }
    return NULL;
}

static void test_map(void)
{
    pgdds_hashmap_params_t p = {0, sizeof(uint64_t), sizeof(struct t_value), (map_own * THREADS * (uint64_t)n + map_shared) * 2};
    pgdds_hashmap_t map = NULL;
    T_OK(pgdds_hashmap_create(ctx, &p, &map));
    struct map_arg args[THREADS];
    for (int t = 0; t < THREADS; ++t) args[t] = (struct map_arg){map, t, 0};
    run_threads(map_body, args, sizeof args[0]);
    for (int t = 0; t < THREADS; ++t) T_CHECK_MSG(args[t].failures == 0, "thread %d: %d failed map operations", t, args[t].failures);
    T_OK(pgdds_barrier(ctx));
    /* put the shared keys back, then count */
    for (uint64_t k = (uint64_t)me; k < map_shared; k += (uint64_t)n) {
        struct t_value v = t_value_of(k, 0);
        T_OK(pgdds_hashmap_insert(map, &k, &v, 0));
    }
    T_OK(pgdds_barrier(ctx));
    uint64_t size = 0, expect = map_own * THREADS * (uint64_t)n + map_shared;
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK_MSG(size == expect, "size %llu, expected %llu", (unsigned long long)size, (unsigned long long)expect);
    uint64_t wrong = 0;
    for (uint64_t key = 1000000; key < 1000000 + map_own * THREADS * (uint64_t)n; ++key) {
        struct t_value v;
        wrong += pgdds_hashmap_find(map, &key, &v, PGDDS_CP_FIND) != PGDDS_OK || !t_value_ok(&v, key);
    }
    T_CHECK(wrong == 0);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_destroy(map));
}

/* --- queues ------------------------------------------------------------------------------ */
static uint64_t q_per; /* elements per thread */
struct queue_arg {
    pgdds_queue_t q;
    int thread;
    int phase; /* 0: push and pop together; 1: push only; 2: pop only */
    uint32_t *counts;
    int failures;
};

static void tally(struct queue_arg *a, const uint64_t *e, size_t got)
{
    for (size_t i = 0; i < got; ++i) {
        uint64_t id = e[2 * i], w = id >> 32, s = id & 0xffffffffu;
        if (e[2 * i + 1] != t_mix(id) || w >= (uint64_t)n * THREADS || s >= q_per) a->failures++;
        else __atomic_fetch_add(&a->counts[w * q_per + s], 1, __ATOMIC_RELAXED);
    }
}

static void *queue_body(void *p)
{
    struct queue_arg *a = p;
    uint64_t e[8];
    for (uint64_t s = 0; a->phase != 2 && s < q_per;) {
        e[0] = (writer(a->thread) << 32) | s;
        e[1] = t_mix(e[0]);
        pgdds_status_t st = pgdds_queue_push(a->q, e, 1, a->phase == 1 ? PGDDS_CP_PUSH : 0);
        if (st == PGDDS_OK) s++;
        else a->failures += st != PGDDS_ERR_FULL;
        if (a->phase == 0) {
            size_t got = 0;
            st = pgdds_queue_pop(a->q, e, 4, &got, 0);
            if (st == PGDDS_OK) tally(a, e, got);
            else a->failures += st != PGDDS_ERR_EMPTY;
        }
    }
    if (a->phase == 1) return NULL;
    for (;;) {
        size_t got = 0;
        pgdds_status_t st = pgdds_queue_pop(a->q, e, 3, &got, a->phase == 2 ? PGDDS_CP_POP : 0);
        if (st != PGDDS_OK) {
            a->failures += st != PGDDS_ERR_EMPTY;
            break;
        }
        tally(a, e, got);
    }
    return NULL;
}

static void test_queue(int kind)
{
    pgdds_queue_params_t p = {0, kind, 16, kind == PGDDS_QUEUE_FAST ? q_per * THREADS * (uint64_t)n : 64, 0};
    pgdds_queue_t q = NULL;
    T_OK(pgdds_queue_create(ctx, &p, &q));
    size_t total = (size_t)n * THREADS * q_per;
    uint32_t *counts = calloc(total, sizeof *counts), *all = calloc(total, sizeof *all);
    struct queue_arg args[THREADS];
    int phases[2] = {1, 2}, nphases = 2;
    if (kind != PGDDS_QUEUE_FAST) phases[0] = 0, nphases = 1;
    for (int ph = 0; ph < nphases; ++ph) {
        for (int t = 0; t < THREADS; ++t) args[t] = (struct queue_arg){q, t, phases[ph], counts, 0};
        run_threads(queue_body, args, sizeof args[0]);
        for (int t = 0; t < THREADS; ++t) T_CHECK_MSG(args[t].failures == 0, "kind %d thread %d: %d failures", kind, t, args[t].failures);
        T_OK(pgdds_barrier(ctx));
    }
    /* what the concurrent phase left behind */
    struct queue_arg rest = {q, 0, 2, counts, 0};
    if (kind != PGDDS_QUEUE_FAST) queue_body(&rest);
    T_CHECK(rest.failures == 0);
    T_OK(pgdds_allreduce(ctx, counts, all, total, PGDDS_UINT32, PGDDS_OP_SUM));
    size_t wrong = 0;
    for (size_t i = 0; i < total; ++i) wrong += all[i] != 1;
    T_CHECK_MSG(wrong == 0, "queue kind %d: %zu of %zu elements lost or duplicated", kind, wrong, total);
    free(counts);
    free(all);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_queue_destroy(q));
}

/* --- hash map buffer --------------------------------------------------------------------- */
static uint64_t buf_per; /* buffered inserts per thread */
struct buffer_arg {
    pgdds_hashmap_buffer_t buf;
    int thread;
    int failures;
};

static void *buffer_body(void *p)
{
    struct buffer_arg *a = p;
    for (uint64_t i = 0; i < buf_per; ++i) {
        uint64_t key = writer(a->thread) * buf_per + i;
        struct t_value v = t_value_of(key, writer(a->thread));
        a->failures += pgdds_hashmap_buffer_insert(a->buf, &key, &v) != PGDDS_OK;
    }
    return NULL;
}

static void test_buffer(void)
{
    uint64_t total = (uint64_t)n * THREADS * buf_per;
    pgdds_hashmap_params_t p = {0, sizeof(uint64_t), sizeof(struct t_value), total * 2};
    pgdds_hashmap_t map = NULL;
    pgdds_hashmap_buffer_t buf = NULL;
    T_OK(pgdds_hashmap_create(ctx, &p, &map));
    T_OK(pgdds_hashmap_buffer_create(map, 256, 32, &buf));
    struct buffer_arg args[THREADS];
    for (int t = 0; t < THREADS; ++t) args[t] = (struct buffer_arg){buf, t, 0};
    run_threads(buffer_body, args, sizeof args[0]);
    for (int t = 0; t < THREADS; ++t) T_CHECK(args[t].failures == 0);
    T_OK(pgdds_hashmap_buffer_flush(buf));
    uint64_t size = 0, wrong = 0;
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK_MSG(size == total, "buffered: size %llu, expected %llu", (unsigned long long)size, (unsigned long long)total);
    for (uint64_t key = (uint64_t)me; key < total; key += (uint64_t)n) {
        struct t_value v;
        wrong += pgdds_hashmap_find(map, &key, &v, PGDDS_CP_FIND) != PGDDS_OK || !t_value_ok(&v, key);
    }
    T_CHECK(wrong == 0);
    T_OK(pgdds_hashmap_buffer_destroy(buf));
    T_OK(pgdds_hashmap_destroy(map));
}

/* --- Bloom filter ------------------------------------------------------------------------ */
static int bloom_keys; /* keys every thread inserts */
struct bloom_arg {
    pgdds_bloom_t bloom;
    int thread;
    uint32_t *news;
    int failures;
};

static void *bloom_body(void *p)
{
    struct bloom_arg *a = p;
    for (int i = 0; i < bloom_keys; ++i) {
        int k = (i + a->thread * 1000 + me * 300) % bloom_keys, was = 1;
        uint64_t key = t_mix((uint64_t)k + 5);
        a->failures += pgdds_bloom_insert(a->bloom, &key, sizeof key, &was) != PGDDS_OK;
        if (!was) __atomic_fetch_add(&a->news[k], 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void test_bloom(void)
{
    pgdds_bloom_t bloom = NULL;
    T_OK(pgdds_bloom_create(ctx, bloom_keys, 0.001, &bloom));
    uint32_t *news = calloc(bloom_keys, sizeof *news), *all = calloc(bloom_keys, sizeof *all);
    struct bloom_arg args[THREADS];
    for (int t = 0; t < THREADS; ++t) args[t] = (struct bloom_arg){bloom, t, news, 0};
    run_threads(bloom_body, args, sizeof args[0]);
    for (int t = 0; t < THREADS; ++t) T_CHECK(args[t].failures == 0);
    T_OK(pgdds_allreduce(ctx, news, all, bloom_keys, PGDDS_UINT32, PGDDS_OP_SUM));
    int twice = 0;
    for (int k = 0; k < bloom_keys; ++k) twice += all[k] > 1;
    T_CHECK_MSG(twice == 0, "%d keys reported new to more than one thread", twice);
    free(news);
    free(all);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_bloom_destroy(bloom));
}

int main(void)
{
    pgdds_init_params_t params = {PGDDS_INIT_FIELD_THREAD_LEVEL, PGDDS_THREAD_MULTIPLE, 0, NULL, 0};
    ctx = t_init(&params);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    t_detect_network(ctx);
    map_own = t_work(400, 40);
    map_shared = t_work(100, 20);
    q_per = t_work(400, 50);
    buf_per = t_work(1000, 200);
    bloom_keys = (int)t_work(1000, 200);
    test_map();
    for (int kind = PGDDS_QUEUE_FAST; kind <= PGDDS_QUEUE_CHECKSUM; ++kind) test_queue(kind);
    test_buffer();
    test_bloom();
    return t_finish(ctx, "containers/threads");
}
