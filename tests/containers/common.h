/* Helpers shared by the container test programs. */
#ifndef PGDDS_TEST_CONTAINERS_COMMON_H
#define PGDDS_TEST_CONTAINERS_COMMON_H

#include "../harness.h"

#include <stdint.h>

/* A 64-bit mixer (splitmix64): distinct, reproducible values and check words. */
static inline uint64_t t_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A value that proves it was written whole: `check` depends on both other words, so a value
 * assembled from two different writes fails t_value_ok. */
struct t_value {
    uint64_t key;
    uint64_t writer;
    uint64_t check;
};
static inline struct t_value t_value_of(uint64_t key, uint64_t writer)
{
    struct t_value v = {key, writer, t_mix(key * 31 + writer)};
    return v;
}
static inline int t_value_ok(const struct t_value *v, uint64_t key)
{
    return v->key == key && v->check == t_mix(v->key * 31 + v->writer);
}

/* Whether remote operations go through a network transport here (some rank's segment is not
 * load/store-reachable from some other rank). They then cost tens of microseconds or more, so
 * the programs do less work (t_work) and each still runs in seconds on every configuration. */
static int t_network = 0;
static inline void t_detect_network(pgdds_context_t ctx)
{
    int n = pgdds_nranks(ctx);
    pgdds_gptr_t mine = PGDDS_GPTR_NULL, *all = (pgdds_gptr_t *)calloc((size_t)n, sizeof *all);
    int32_t remote = 0, any = 0;
    if (pgdds_alloc(ctx, 8, 8, &mine) != PGDDS_OK || pgdds_allgather(ctx, &mine, all, sizeof mine) != PGDDS_OK) remote = 1;
    for (int r = 0; r < n && !remote; ++r) remote = pgdds_gptr_to_local(ctx, all[r]) == NULL;
    if (pgdds_allreduce(ctx, &remote, &any, 1, PGDDS_INT32, PGDDS_OP_MAX) != PGDDS_OK) any = 1;
    t_network = any;
    pgdds_barrier(ctx);
    pgdds_free(ctx, mine);
    free(all);
}
/* The amount of work: `on_node` where operations are memory accesses, else `over_network`. */
static inline uint64_t t_work(uint64_t on_node, uint64_t over_network) { return t_network ? over_network : on_node; }

/* Polls the 64-bit word at w (atomically, no flush) until it reaches `want`, for at most 60 s;
 * returns the last value seen. */
static inline uint64_t t_wait_word(pgdds_context_t ctx, pgdds_gptr_t w, uint64_t want)
{
    uint64_t seen = 0;
    for (double start = t_seconds(); seen < want && t_seconds() - start < 60;)
        T_OK(pgdds_atomic_u64(ctx, w, PGDDS_AOP_ADD, 0, &seen));
    return seen;
}

#endif
