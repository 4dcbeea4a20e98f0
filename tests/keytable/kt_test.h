/* Helpers of the key-table tests: values that prove their own integrity, owner discovery. */
#ifndef PGDDS_KT_TEST_H
#define PGDDS_KT_TEST_H

#include "../harness.h"

#include <stdint.h>

/* A value that proves its integrity: (key id, version, length) and a payload derived from them,
 * so a torn read, a stale length or another key's value is recognised. */
#define KT_VALUE_HEADER 24
static inline size_t kt_value_len(uint64_t key_id, uint64_t version, size_t max_len)
{
    return KT_VALUE_HEADER + (size_t)((key_id * 7 + version * 13) % (max_len - KT_VALUE_HEADER + 1));
}

static inline unsigned char kt_payload(uint64_t key_id, uint64_t version, size_t i)
{
    return (unsigned char)(key_id * 31 + version * 17 + i * 5 + (i >> 7));
}

static inline void kt_fill(unsigned char *buf, uint64_t key_id, uint64_t version, size_t len)
{
    uint64_t h[3] = {key_id, version, (uint64_t)len};
    memcpy(buf, h, sizeof h);
    for (size_t i = KT_VALUE_HEADER; i < len; ++i) buf[i] = kt_payload(key_id, version, i);
}

/* Writes into buf (room for max_len bytes) the value of the key with id key_id at version;
 * returns its length. */
static inline size_t kt_make_value(unsigned char *buf, uint64_t key_id, uint64_t version, size_t max_len)
{
    size_t len = kt_value_len(key_id, version, max_len);
    kt_fill(buf, key_id, version, len);
    return len;
}

/* 1 if buf (len bytes) is a whole value of key_id, its version in *version. */
static inline int kt_check(const unsigned char *buf, size_t len, uint64_t key_id, uint64_t *version)
{
    uint64_t h[3];
    if (len < KT_VALUE_HEADER) return 0;
    memcpy(h, buf, sizeof h);
    if (h[0] != key_id || h[2] != len) return 0;
    for (size_t i = KT_VALUE_HEADER; i < len; ++i)
        if (buf[i] != kt_payload(key_id, h[1], i)) return 0;
    if (version) *version = h[1];
    return 1;
}

/* The key of (rank, index): 16 bytes. */
struct kt_key {
    uint64_t rank;
    uint64_t index;
};
static inline struct kt_key kt_key_of(int rank, uint64_t index)
{
    struct kt_key k = {(uint64_t)rank, index};
    return k;
}
static inline uint64_t kt_key_id(struct kt_key k) { return k.rank << 32 | k.index; }

/* Which rank owns a present key (collective): each rank looks among its own keys. */
struct kt_find {
    const void *key;
    size_t len;
    int found;
};
static int kt_find_visit(const void *key, size_t key_len, void *value, size_t value_len, void *arg)
{
    struct kt_find *f = (struct kt_find *)arg;
    (void)value, (void)value_len;
    if (key_len == f->len && memcmp(key, f->key, key_len) == 0) {
        f->found = 1;
        return 1;
    }
    return 0;
}
static inline int kt_owner_of(pgdds_context_t ctx, pgdds_keytable_t t, const void *key, size_t len)
{
    struct kt_find f = {key, len, 0};
    int32_t mine, owner = -1;
    T_OK(pgdds_keytable_foreach_local(t, kt_find_visit, &f));
    mine = f.found ? pgdds_rank(ctx) : -1;
    T_OK(pgdds_allreduce(ctx, &mine, &owner, 1, PGDDS_INT32, PGDDS_OP_MAX));
    return owner;
}

/* Number of keys this rank owns. */
static int kt_count_visit(const void *key, size_t key_len, void *value, size_t value_len, void *arg)
{
    (void)key, (void)key_len, (void)value, (void)value_len;
    ++*(uint64_t *)arg;
    return 0;
}
static inline uint64_t kt_local_count(pgdds_keytable_t t)
{
    uint64_t n = 0;
    T_OK(pgdds_keytable_foreach_local(t, kt_count_visit, &n));
    return n;
}

static inline pgdds_keytable_t kt_create(pgdds_context_t ctx, size_t max_value_size, uint64_t capacity)
{
    pgdds_keytable_params_t p;
    pgdds_keytable_t t = NULL;
    memset(&p, 0, sizeof p);
    p.max_value_size = max_value_size;
    p.capacity_per_rank = capacity;
    T_OK(pgdds_keytable_create(ctx, &p, &t));
    if (!t) {
        fprintf(stderr, "FAIL rank %d: cannot create a key table\n", t_rank);
        exit(1);
    }
    return t;
}

#endif
