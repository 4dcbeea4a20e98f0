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

#endif
