/* The containers' non-blocking operations (pgdds_hashmap_*_nb, pgdds_queue_*_nb,
 * pgdds_bloom_*_many_nb): many in flight from every rank at once, each request giving the blocking
 * call's outcome (NOT_FOUND, EMPTY, FULL included) and its outputs, with exact counts and sums;
 * towards an owner served by RPC the call returns before the owner has done anything (the owner
 * is kept out of the library meanwhile); a destroy with operations in flight completes them
 * first; bad input fails the call itself, with no request. */
#include "common.h"

#include <unistd.h>

static pgdds_context_t ctx;
static int me, n;

enum { WINDOW = 32 };

/* Requests in flight, completed oldest first once WINDOW are out. */
struct window {
    pgdds_request_t req[WINDOW];
    pgdds_status_t want[WINDOW];
    int count;
};
static void window_wait_one(struct window *w)
{
    pgdds_status_t st = pgdds_wait(ctx, w->req[0]);
    T_CHECK_MSG(st == w->want[0], "a request completed with %d (%s), not %d: %s", st, pgdds_strerror(st), w->want[0],
                pgdds_last_error());
    if (st != PGDDS_OK) T_CHECK_MSG(pgdds_last_error()[0] != '\0', "a failed request gave no explanation");
    memmove(w->req, w->req + 1, (size_t)(w->count - 1) * sizeof w->req[0]);
    memmove(w->want, w->want + 1, (size_t)(w->count - 1) * sizeof w->want[0]);
    --w->count;
}
/* req: where the call put its request (read after the call, which is an argument too) */
static void window_add(struct window *w, pgdds_status_t started, const pgdds_request_t *req, pgdds_status_t want)
{
    T_CHECK_MSG(started == PGDDS_OK, "an _nb call failed: %s", pgdds_last_error());
    if (started != PGDDS_OK) return;
    if (w->count == WINDOW) window_wait_one(w);
    w->req[w->count] = *req;
    w->want[w->count++] = want;
}
static void window_drain(struct window *w)
{
    while (w->count) window_wait_one(w);
}

static uint64_t value_of(uint64_t key) { return t_mix(key ^ 0x5a5a5a5aull); }

/* Inserts, finds (present and absent keys), erases twice and batches, all with requests in
 * flight, from every rank at once; the global count is exact at each step. */
static void test_hashmap(unsigned protocol)
{
    const uint64_t per = t_work(600, 150);
    pgdds_hashmap_t map = NULL;
    pgdds_hashmap_params_t p = {0, sizeof(uint64_t), sizeof(uint64_t), 4 * per * (uint64_t)n};
    pgdds_hashmap_options_t o;
    memset(&o, 0, sizeof o);
    o.field_mask = PGDDS_HASHMAP_OPTION_PROTOCOL;
    o.protocol = (int)protocol;
    T_OK(pgdds_hashmap_create_with(ctx, &p, &o, &map));
    struct window w = {{0}, {0}, 0};

    /* every rank inserts its keys (each key's values land in one place per request) */
    for (uint64_t i = 0; i < per; ++i) {
        uint64_t key = (uint64_t)me * per + i, value = value_of(key);
        pgdds_request_t req = NULL;
        window_add(&w, pgdds_hashmap_insert_nb(map, &key, &value, 0, &req), &req, PGDDS_OK);
        key = ~key;  /* the input is the caller's again at once */
    }
    window_drain(&w);
    T_OK(pgdds_barrier(ctx));
    uint64_t count = 0;
    T_OK(pgdds_hashmap_size(map, &count));
    T_CHECK_MSG(count == per * (uint64_t)n, "%llu entries after %llu inserts", (unsigned long long)count,
                (unsigned long long)(per * (uint64_t)n));

    /* finds of every rank's keys and of absent ones, outputs checked once complete */
    uint64_t *found = (uint64_t *)calloc(WINDOW, sizeof *found), *keys = (uint64_t *)calloc(WINDOW, sizeof *keys);
    uint64_t wrong = 0, checked = 0;
    for (uint64_t i = 0; i < per * (uint64_t)n; i += WINDOW) {
        int k = 0;
        pgdds_request_t req[WINDOW];
        for (; k < WINDOW && i + (uint64_t)k < per * (uint64_t)n; ++k) {
            keys[k] = (i + (uint64_t)k * 7 + (uint64_t)me) % (per * (uint64_t)n);
            found[k] = 0;
            T_OK(pgdds_hashmap_find_nb(map, &keys[k], &found[k], 0, &req[k]));
        }
        for (int j = 0; j < k; ++j) {
            T_OK(pgdds_wait(ctx, req[j]));
            wrong += found[j] != value_of(keys[j]);
            ++checked;
        }
    }
    T_CHECK_MSG(wrong == 0 && checked == per * (uint64_t)n, "%llu of %llu finds gave a wrong value",
                (unsigned long long)wrong, (unsigned long long)checked);
    for (uint64_t i = 0; i < 40; ++i) {
        uint64_t key = per * (uint64_t)n * 10 + i * (uint64_t)n + (uint64_t)me, sink = 0;
        pgdds_request_t req = NULL;
        window_add(&w, pgdds_hashmap_find_nb(map, &key, &sink, 0, &req), &req, PGDDS_ERR_NOT_FOUND);
    }
    window_drain(&w);
    T_OK(pgdds_barrier(ctx));  /* every rank's finds done before the erases */

    /* erase the even keys of this rank, then again: NOT_FOUND the second time */
    for (int round = 0; round < 2; ++round) {
        for (uint64_t i = 0; i < per; i += 2) {
            uint64_t key = (uint64_t)me * per + i;
            pgdds_request_t req = NULL;
            window_add(&w, pgdds_hashmap_erase_nb(map, &key, 0, &req), &req, round ? PGDDS_ERR_NOT_FOUND : PGDDS_OK);
        }
        window_drain(&w);
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_size(map, &count));
    T_CHECK_MSG(count == per / 2 * (uint64_t)n, "%llu entries after erasing the even keys, not %llu",
                (unsigned long long)count, (unsigned long long)(per / 2 * (uint64_t)n));

    /* batches: re-insert the even keys in one call, then find everything in a few */
    uint64_t *bkeys = (uint64_t *)malloc(per * sizeof *bkeys), *bvals = (uint64_t *)malloc(per * sizeof *bvals);
    unsigned char *flags = (unsigned char *)malloc(per);
    uint64_t nk = 0;
    for (uint64_t i = 0; i < per; i += 2) {
        bkeys[nk] = (uint64_t)me * per + i;
        bvals[nk++] = value_of((uint64_t)me * per + i);
    }
    pgdds_request_t breq = NULL;
    T_OK(pgdds_hashmap_insert_many_nb(map, nk, bkeys, bvals, 0, &breq));
    memset(bkeys, 0, nk * sizeof *bkeys);  /* copied at the call */
    T_OK(pgdds_wait(ctx, breq));
    T_OK(pgdds_barrier(ctx));
    for (uint64_t i = 0; i < per; ++i) bkeys[i] = ((uint64_t)(me + 1) % (uint64_t)n) * per + i;
    memset(bvals, 0, per * sizeof *bvals);
    memset(flags, 2, per);
    T_OK(pgdds_hashmap_find_many_nb(map, per, bkeys, bvals, flags, 0, &breq));
    T_OK(pgdds_wait(ctx, breq));
    uint64_t bad = 0;
    for (uint64_t i = 0; i < per; ++i) bad += flags[i] != 1 || bvals[i] != value_of(bkeys[i]);
    T_CHECK_MSG(bad == 0, "%llu of %llu batched finds wrong", (unsigned long long)bad, (unsigned long long)per);
    T_OK(pgdds_hashmap_size(map, &count));
    T_CHECK(count == per * (uint64_t)n);

    /* bad input fails the call itself, with no request */
    uint64_t key = 1, value = 2;
    pgdds_request_t req = NULL;
    T_STATUS(pgdds_hashmap_insert_nb(map, &key, &value, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "req is NULL") != NULL);
    T_STATUS(pgdds_hashmap_insert_nb(map, NULL, &value, 0, &req), PGDDS_ERR_INVALID_ARG);
    T_CHECK(req == NULL);
    T_STATUS(pgdds_hashmap_find_nb(map, &key, NULL, 0, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_erase_nb(map, &key, 1u << 30, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_find_many_nb(map, 4, NULL, bvals, flags, 0, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_insert_many_nb(map, 4, bkeys, NULL, 0, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_find_nb(NULL, &key, &value, 0, &req), PGDDS_ERR_INVALID_ARG);
    T_CHECK(req == NULL);
    /* a request waited twice */
    T_OK(pgdds_hashmap_find_nb(map, &key, &value, 0, &req));
    T_OK(pgdds_wait(ctx, req));
    T_STATUS(pgdds_wait(ctx, req), PGDDS_ERR_INVALID_ARG);

    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_destroy(map));
    free(found), free(keys), free(bkeys), free(bvals), free(flags);
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    T_CHECK_MSG(f != NULL, "cannot create %s", path);
    if (f) fclose(f);
}

/* Waits up to 60 s, outside the library, for the file at path. */
static int await_file(const char *path)
{
    for (double start = t_seconds(); access(path, F_OK) != 0 && t_seconds() - start < 60;) usleep(200);
    return access(path, F_OK) == 0;
}

/* Towards an owner served by RPC the call returns at once and the request waits for the owner:
 * rank 1 stays out of the library (it cannot serve a call) until rank 0, having tested its
 * request incomplete, tells it through a file; then the request completes with the value.
 * Also a destroy with a find in flight: the destroy completes it first. */
static void test_asynchrony(void)
{
    pgdds_hashmap_t map = NULL;
    pgdds_hashmap_params_t p = {0, sizeof(uint64_t), sizeof(uint64_t), 1024};
    pgdds_hashmap_options_t o;
    memset(&o, 0, sizeof o);
    o.field_mask = PGDDS_HASHMAP_OPTION_PROTOCOL;
    o.protocol = PGDDS_PROTOCOL_RPC;
    T_OK(pgdds_hashmap_create_with(ctx, &p, &o, &map));
    /* a key rank 1 owns */
    uint64_t key = 0;
    for (int owner = -1;; ++key) {
        T_OK(pgdds_hashmap_owner(map, &key, &owner));
        if (owner == 1) break;
    }
    uint64_t value = value_of(key);
    if (me == 1) T_OK(pgdds_hashmap_insert(map, &key, &value, 0));
    int route = -1;
    T_OK(pgdds_hashmap_op_protocol(map, 1, PGDDS_CONTAINER_OP_FIND, 0, &route));
    int32_t rpc = me == 0 && route == PGDDS_PROTOCOL_RPC, any = 0;
    T_OK(pgdds_allreduce(ctx, &rpc, &any, 1, PGDDS_INT32, PGDDS_OP_MAX));
    /* files both ranks name (rank 0's pid): rank 1 is out of the library ("ready"), rank 0's
     * request is out and was tested incomplete ("go") */
    int64_t token = getpid();
    T_OK(pgdds_broadcast(ctx, &token, sizeof token, 0));
    char ready[96], go[96];
    snprintf(ready, sizeof ready, "/tmp/pgdds-nonblocking-%lld-ready", (long long)token);
    snprintf(go, sizeof go, "/tmp/pgdds-nonblocking-%lld-go", (long long)token);
    T_OK(pgdds_barrier(ctx));
    if (any && me == 1) {
        touch(ready);
        T_CHECK_MSG(await_file(go), "rank 0 never said its request was out");
        unlink(go);
    } else if (any && me == 0) {
        T_CHECK_MSG(await_file(ready), "rank 1 never left the library");
        unlink(ready);
        uint64_t got = 0;
        pgdds_request_t req = NULL;
        T_OK(pgdds_hashmap_find_nb(map, &key, &got, 0, &req));
        int done = -1;
        for (int i = 0; i < 100 && done != 1; ++i) T_OK(pgdds_test(ctx, req, &done));
        T_CHECK_MSG(done == 0, "a call to an owner outside the library completed");
        touch(go);
        if (done == 0) T_OK(pgdds_wait(ctx, req));
        T_CHECK_MSG(got == value, "the find gave %llx, not %llx", (unsigned long long)got, (unsigned long long)value);
    }
    T_OK(pgdds_barrier(ctx));
    /* a find in flight when the map is destroyed */
    uint64_t got = 0;
    pgdds_request_t req = NULL;
    T_OK(pgdds_hashmap_find_nb(map, &key, &got, 0, &req));
    T_OK(pgdds_hashmap_destroy(map));
    T_OK(pgdds_wait(ctx, req));
    T_CHECK(got == value);
    if (me == 0) printf("asynchrony towards an RPC owner: %s\n", any ? "checked" : "no RPC route (load/store)");
}

/* Every rank pushes its elements with requests in flight, then every rank pops until the queue
 * is empty (EMPTY through a request): each element comes out once. */
static void test_queue(void)
{
    const uint64_t per = t_work(400, 100);
    pgdds_queue_t q = NULL;
    pgdds_queue_params_t p = {0, PGDDS_QUEUE_CIRCULAR, sizeof(uint64_t), per * (uint64_t)n, 0};
    T_OK(pgdds_queue_create(ctx, &p, &q));
    struct window w = {{0}, {0}, 0};
    for (uint64_t i = 0; i < per; i += 2) {
        uint64_t two[2] = {(uint64_t)me * per + i + 1, (uint64_t)me * per + i + 2};
        pgdds_request_t req = NULL;
        window_add(&w, pgdds_queue_push_nb(q, two, 2, PGDDS_CP_PUSH, &req), &req, PGDDS_OK);
    }
    window_drain(&w);
    T_OK(pgdds_barrier(ctx));
    /* full: one more push completes with FULL */
    uint64_t extra = 1;
    pgdds_request_t req = NULL;
    if (me == 0) {
        T_OK(pgdds_queue_push_nb(q, &extra, 1, 0, &req));
        T_STATUS(pgdds_wait(ctx, req), PGDDS_ERR_FULL);
    }
    T_OK(pgdds_barrier(ctx));
    uint64_t popped_count = 0, sum = 0;
    for (;;) {
        uint64_t got[8];
        size_t popped = 99;
        T_OK(pgdds_queue_pop_nb(q, got, 8, &popped, PGDDS_CP_POP, &req));
        pgdds_status_t st = pgdds_wait(ctx, req);
        if (st == PGDDS_ERR_EMPTY) break;
        T_CHECK_MSG(st == PGDDS_OK && popped >= 1 && popped <= 8, "pop: %d, %zu popped: %s", st, popped,
                    pgdds_last_error());
        if (st != PGDDS_OK) break;
        for (size_t i = 0; i < popped; ++i) sum += got[i];
        popped_count += popped;
    }
    uint64_t mine[2] = {popped_count, sum}, all[2] = {0, 0};
    T_OK(pgdds_allreduce(ctx, mine, all, 2, PGDDS_UINT64, PGDDS_OP_SUM));
    const uint64_t total = per * (uint64_t)n;
    T_CHECK_MSG(all[0] == total && all[1] == total * (total + 1) / 2, "popped %llu elements summing to %llu, not %llu",
                (unsigned long long)all[0], (unsigned long long)all[1], (unsigned long long)total);
    size_t popped = 0;
    T_STATUS(pgdds_queue_pop_nb(q, &extra, 1, NULL, 0, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_pop_nb(q, &extra, 1, &popped, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_push_nb(q, NULL, 1, 0, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_push_nb(NULL, &extra, 1, 0, &req), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_queue_destroy(q));
}

/* Batched inserts with requests, then contains of the inserted keys and of others. */
static void test_bloom(void)
{
    enum { B = 128 };
    pgdds_bloom_t bloom = NULL;
    T_OK(pgdds_bloom_create(ctx, (uint64_t)B * 4 * (uint64_t)n, 0.01, &bloom));
    uint64_t keys[B];
    unsigned char was[B], maybe[B];
    for (int i = 0; i < B; ++i) keys[i] = t_mix(((uint64_t)me << 32) + (uint64_t)i);
    pgdds_request_t req = NULL;
    T_OK(pgdds_bloom_insert_many_nb(bloom, B, keys, sizeof keys[0], was, &req));
    T_OK(pgdds_wait(ctx, req));
    T_OK(pgdds_barrier(ctx));
    for (int i = 0; i < B; ++i) keys[i] = t_mix(((uint64_t)((me + 1) % n) << 32) + (uint64_t)i);
    memset(maybe, 7, sizeof maybe);
    T_OK(pgdds_bloom_contains_many_nb(bloom, B, keys, sizeof keys[0], maybe, &req));
    T_OK(pgdds_wait(ctx, req));
    int missing = 0;
    for (int i = 0; i < B; ++i) missing += maybe[i] != 1;
    T_CHECK_MSG(missing == 0, "%d inserted keys not found", missing);
    T_OK(pgdds_bloom_insert_many_nb(bloom, B, keys, sizeof keys[0], was, &req));
    T_OK(pgdds_wait(ctx, req));
    int new_again = 0;
    for (int i = 0; i < B; ++i) new_again += was[i] != 1;
    T_CHECK_MSG(new_again == 0, "%d keys inserted twice were new the second time", new_again);
    T_STATUS(pgdds_bloom_contains_many_nb(bloom, B, keys, sizeof keys[0], NULL, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_insert_many_nb(bloom, B, keys, sizeof keys[0], was, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_bloom_destroy(bloom));
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    t_detect_network(ctx);
    test_hashmap(PGDDS_PROTOCOL_AUTO);
    test_hashmap(PGDDS_PROTOCOL_RPC);
    if (n >= 2) test_asynchrony();
    test_queue();
    test_bloom();
    return t_finish(ctx, "containers/nonblocking");
}
