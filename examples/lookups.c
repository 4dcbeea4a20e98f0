/* Non-blocking lookups: every rank stores 1000 squares in a distributed hash map, then looks up
 * its right-hand neighbour's with up to 64 finds in flight at once, each completed by its
 * request (towards an owner served by RPC each find is one message, and their round trips
 * overlap). A key that is absent completes with PGDDS_ERR_NOT_FOUND. */
#include <pgdds/pgdds.h>

#include <stdio.h>
#include <stdlib.h>

#define KEYS 1000
#define IN_FLIGHT 64

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "%s failed (%s): %s\n", what, pgdds_strerror(st), pgdds_last_error());
        exit(1);
    }
}

int main(void)
{
    pgdds_context_t ctx;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    const int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    pgdds_hashmap_params_t params = {0, sizeof(uint64_t), sizeof(uint64_t), 4 * KEYS * (uint64_t)n};
    pgdds_hashmap_t squares;
    check(pgdds_hashmap_create(ctx, &params, &squares), "pgdds_hashmap_create");

    for (uint64_t i = 0; i < KEYS; ++i) {
        uint64_t key = (uint64_t)me * KEYS + i, value = key * key;
        check(pgdds_hashmap_insert(squares, &key, &value, PGDDS_CP_INSERT), "pgdds_hashmap_insert");
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");

    const uint64_t first = (uint64_t)((me + 1) % n) * KEYS;
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < KEYS; i += IN_FLIGHT) {
        uint64_t keys[IN_FLIGHT], values[IN_FLIGHT];
        pgdds_request_t reqs[IN_FLIGHT];
        int out = 0;
        for (; out < IN_FLIGHT && i + (uint64_t)out < KEYS; ++out) {
            keys[out] = first + i + (uint64_t)out;
            check(pgdds_hashmap_find_nb(squares, &keys[out], &values[out], PGDDS_CP_FIND, &reqs[out]),
                  "pgdds_hashmap_find_nb");
        }
        for (int j = 0; j < out; ++j) {
            check(pgdds_wait(ctx, reqs[j]), "a find");  /* values[j] is in place now */
            wrong += values[j] != keys[j] * keys[j];
        }
    }
    uint64_t absent = (uint64_t)n * KEYS, sink;
    pgdds_request_t req;
    check(pgdds_hashmap_find_nb(squares, &absent, &sink, PGDDS_CP_FIND, &req), "pgdds_hashmap_find_nb");
    pgdds_status_t st = pgdds_wait(ctx, req);
    printf("rank %d: %d lookups of rank %d's squares, %llu wrong; key %llu: %s\n", me, KEYS, (me + 1) % n,
           (unsigned long long)wrong, (unsigned long long)absent, st == PGDDS_ERR_NOT_FOUND ? "absent" : "present?");

    check(pgdds_barrier(ctx), "pgdds_barrier");
    check(pgdds_hashmap_destroy(squares), "pgdds_hashmap_destroy");
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return wrong != 0 || st != PGDDS_ERR_NOT_FOUND;
}
