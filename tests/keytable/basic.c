/* Key tables, one operation at a time: insert / get / put / remove from every rank to every
 * rank, EXISTS and NOT_FOUND, buffers too small (the size needed reported, nothing truncated),
 * empty and largest values, keys from 1 byte to 60 KB, puts that change the size, atomics,
 * and foreach_local (visiting, changing values in place, stopping early). */
#include "kt_test.h"

static pgdds_context_t ctx;
static int me, n;

enum { per_rank = 16, max_value = 300 };

/* Reads every rank's keys back: how many values are not intact at version even_version (keys of
 * even index) or odd_version (odd index). */
static int wrong_values(pgdds_keytable_t t, uint64_t even_version, uint64_t odd_version)
{
    unsigned char buf[max_value];
    int bad = 0;
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < per_rank; ++i) {
            struct kt_key k = kt_key_of(r, i);
            size_t len = sizeof buf;
            uint64_t version = 0;
            T_OK(pgdds_keytable_get(t, &k, sizeof k, buf, &len));
            bad += !kt_check(buf, len, kt_key_id(k), &version) || version != (i % 2 ? odd_version : even_version);
        }
    return bad;
}

static void test_insert_get_everywhere(pgdds_keytable_t t)
{
    unsigned char buf[max_value];
    for (uint64_t i = 0; i < per_rank; ++i) {
        struct kt_key k = kt_key_of(me, i);
        size_t len = kt_make_value(buf, kt_key_id(k), 1, max_value);
        T_OK(pgdds_keytable_insert(t, &k, sizeof k, buf, len));
        T_STATUS(pgdds_keytable_insert(t, &k, sizeof k, buf, len), PGDDS_ERR_EXISTS);
    }
    T_OK(pgdds_barrier(ctx));
    int bad = wrong_values(t, 1, 1);
    T_CHECK_MSG(bad == 0, "%d values read wrong", bad);
    struct kt_key absent = kt_key_of(n + 5, 0);
    size_t len = sizeof buf;
    T_STATUS(pgdds_keytable_get(t, &absent, sizeof absent, buf, &len), PGDDS_ERR_NOT_FOUND);
    T_CHECK(len == sizeof buf);
    T_STATUS(pgdds_keytable_put(t, &absent, sizeof absent, buf, 30), PGDDS_ERR_NOT_FOUND);
    T_STATUS(pgdds_keytable_remove(t, &absent, sizeof absent), PGDDS_ERR_NOT_FOUND);
    T_STATUS(pgdds_keytable_atomic_u64(t, &absent, sizeof absent, 0, PGDDS_AOP_ADD, 1, NULL), PGDDS_ERR_NOT_FOUND);
    T_CHECK(kt_local_count(t) <= (uint64_t)per_rank * (uint64_t)n);
    uint64_t mine = kt_local_count(t), total = 0;
    T_OK(pgdds_allreduce(ctx, &mine, &total, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK_MSG(total == (uint64_t)per_rank * (uint64_t)n, "%llu keys held, %d inserted", (unsigned long long)total,
                per_rank * n);
    T_OK(pgdds_barrier(ctx));
}

static void test_small_buffers(pgdds_keytable_t t)
{
    /* A neighbour's key, so the read is another rank's. */
    struct kt_key k = kt_key_of((me + 1) % n, 3);
    unsigned char buf[max_value];
    size_t need = kt_value_len(kt_key_id(k), 1, max_value);
    size_t len = need - 1;
    memset(buf, 0xab, sizeof buf);
    T_STATUS(pgdds_keytable_get(t, &k, sizeof k, buf, &len), PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK_MSG(len == need, "size needed reported as %zu, expected %zu", len, need);
    int touched = 0;
    for (size_t i = 0; i < sizeof buf; ++i) touched += buf[i] != 0xab;
    T_CHECK_MSG(touched == 0, "%d bytes of a too-small buffer written", touched);
    /* The size alone. */
    len = 0;
    T_STATUS(pgdds_keytable_get(t, &k, sizeof k, NULL, &len), PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK(len == need);
    T_OK(pgdds_keytable_get(t, &k, sizeof k, buf, &len));
    T_CHECK(len == need && kt_check(buf, len, kt_key_id(k), NULL));
}

static void test_sizes(pgdds_keytable_t t)
{
    /* Keys of many lengths, values empty and largest. */
    static unsigned char key[60000];
    unsigned char value[max_value], back[max_value];
    const size_t key_lens[] = {1, 2, 7, 8, 9, 255, 1000, 60000};
    const size_t nkeys = sizeof key_lens / sizeof key_lens[0];
    for (size_t j = 0; j < sizeof key; ++j) key[j] = (unsigned char)(j * 13 + 7);
    for (size_t i = 0; i < nkeys; ++i) {
        if ((int)(i % (size_t)n) != me) continue;
        key[0] = (unsigned char)(0x80 + i); /* distinct however long */
        size_t vlen = i % 2 ? 0 : max_value;
        for (size_t j = 0; j < vlen; ++j) value[j] = (unsigned char)(i + j);
        T_OK(pgdds_keytable_insert(t, key, key_lens[i], vlen ? value : NULL, vlen));
    }
    T_OK(pgdds_barrier(ctx));
    for (size_t i = 0; i < nkeys; ++i) {
        key[0] = (unsigned char)(0x80 + i);
        size_t vlen = i % 2 ? 0 : max_value, len = sizeof back;
        T_OK(pgdds_keytable_get(t, key, key_lens[i], back, &len));
        T_CHECK_MSG(len == vlen, "key of %zu bytes: value of %zu bytes, expected %zu", key_lens[i], len, vlen);
        int bad = 0;
        for (size_t j = 0; j < vlen && j < len; ++j) bad += back[j] != (unsigned char)(i + j);
        T_CHECK(bad == 0);
        /* An empty value fits an empty buffer. */
        len = 0;
        T_STATUS(pgdds_keytable_get(t, key, key_lens[i], NULL, &len), vlen ? PGDDS_ERR_OUT_OF_BOUNDS : PGDDS_OK);
    }
    /* A prefix of a stored key is another key. */
    key[0] = 0x80 + 7;
    size_t len = sizeof back;
    T_STATUS(pgdds_keytable_get(t, key, 59999, back, &len), PGDDS_ERR_NOT_FOUND);
    T_OK(pgdds_barrier(ctx));
    for (size_t i = 0; i < nkeys; ++i) {
        if ((int)(i % (size_t)n) != (me + 1) % n) continue; /* removed by another rank than the inserter */
        key[0] = (unsigned char)(0x80 + i);
        T_OK(pgdds_keytable_remove(t, key, key_lens[i]));
        T_STATUS(pgdds_keytable_remove(t, key, key_lens[i]), PGDDS_ERR_NOT_FOUND);
    }
    T_OK(pgdds_barrier(ctx));
}

static void test_put_resize(pgdds_keytable_t t)
{
    /* Each rank rewrites its right neighbour's keys with other sizes; everyone checks. */
    int right = (me + 1) % n;
    unsigned char buf[max_value];
    for (uint64_t version = 2; version < 5; ++version) {
        for (uint64_t i = 0; i < per_rank; ++i) {
            struct kt_key k = kt_key_of(right, i);
            size_t len = kt_make_value(buf, kt_key_id(k), version, max_value);
            T_OK(pgdds_keytable_put(t, &k, sizeof k, buf, len));
        }
        T_OK(pgdds_barrier(ctx));
        int bad = wrong_values(t, version, version);
        T_CHECK_MSG(bad == 0, "version %llu: %d values wrong after puts", (unsigned long long)version, bad);
        T_OK(pgdds_barrier(ctx));
    }
}

static void test_remove_reinsert(pgdds_keytable_t t)
{
    unsigned char buf[max_value];
    /* Rank r removes the even keys of rank r-1, then reinserts them with version 9. */
    int left = (me - 1 + n) % n;
    for (uint64_t i = 0; i < per_rank; i += 2) {
        struct kt_key k = kt_key_of(left, i);
        T_OK(pgdds_keytable_remove(t, &k, sizeof k));
    }
    T_OK(pgdds_barrier(ctx));
    int bad = 0;
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < per_rank; ++i) {
            struct kt_key k = kt_key_of(r, i);
            size_t len = sizeof buf;
            pgdds_status_t st = pgdds_keytable_get(t, &k, sizeof k, buf, &len);
            bad += i % 2 ? st != PGDDS_OK : st != PGDDS_ERR_NOT_FOUND;
        }
    T_CHECK_MSG(bad == 0, "%d keys in the wrong state after removals", bad);
    T_OK(pgdds_barrier(ctx));
    for (uint64_t i = 0; i < per_rank; i += 2) {
        struct kt_key k = kt_key_of(left, i);
        size_t len = kt_make_value(buf, kt_key_id(k), 9, max_value);
        T_OK(pgdds_keytable_insert(t, &k, sizeof k, buf, len));
    }
    T_OK(pgdds_barrier(ctx));
    bad = wrong_values(t, 9, 4);
    T_CHECK_MSG(bad == 0, "%d keys wrong after reinsertion", bad);
    T_OK(pgdds_barrier(ctx));
}

struct visit_state {
    uint64_t visited;
    uint64_t bad;
    uint64_t stop_after;
};

/* Checks each value and bumps its version in place (same length). */
static int bump_version(const void *key, size_t key_len, void *value, size_t value_len, void *arg)
{
    struct visit_state *s = arg;
    struct kt_key k;
    uint64_t version = 0;
    if (key_len != sizeof k) {
        s->bad++;
        return 0;
    }
    memcpy(&k, key, sizeof k);
    if (!kt_check(value, value_len, kt_key_id(k), &version)) s->bad++;
    uint64_t next = version + 100;
    unsigned char *bytes = value;
    for (size_t i = KT_VALUE_HEADER; i < value_len; ++i) bytes[i] = kt_payload(kt_key_id(k), next, i);
    memcpy((unsigned char *)value + 8, &next, sizeof next);
    s->visited++;
    return s->stop_after && s->visited == s->stop_after;
}

static void test_foreach(pgdds_keytable_t t)
{
    struct visit_state s = {0, 0, 0};
    T_OK(pgdds_keytable_foreach_local(t, bump_version, &s));
    T_CHECK(s.bad == 0);
    uint64_t total = 0;
    T_OK(pgdds_allreduce(ctx, &s.visited, &total, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK_MSG(total == (uint64_t)per_rank * (uint64_t)n, "visited %llu keys", (unsigned long long)total);
    T_OK(pgdds_barrier(ctx));
    /* Every rank sees the values the owners changed in place. */
    int bad = wrong_values(t, 109, 104);
    T_CHECK_MSG(bad == 0, "%d values wrong after foreach_local", bad);
    T_OK(pgdds_barrier(ctx));
    /* A visitor that returns nonzero stops the iteration. */
    struct visit_state stop = {0, 0, 3};
    T_OK(pgdds_keytable_foreach_local(t, bump_version, &stop));
    T_CHECK(stop.visited == (s.visited < 3 ? s.visited : 3));
    T_OK(pgdds_barrier(ctx));
}

static void test_atomics(pgdds_keytable_t t)
{
    /* One key per rank with four counters; every rank adds to every key. */
    struct kt_key k = kt_key_of(me, 1000);
    uint64_t words[4] = {0, 0, ~0ull, 0};
    T_OK(pgdds_keytable_insert(t, &k, sizeof k, words, sizeof words));
    T_OK(pgdds_barrier(ctx));
    for (int r = 0; r < n; ++r) {
        struct kt_key kr = kt_key_of(r, 1000);
        uint64_t old = 0;
        T_OK(pgdds_keytable_atomic_u64(t, &kr, sizeof kr, 0, PGDDS_AOP_ADD, (uint64_t)me + 1, &old));
        T_OK(pgdds_keytable_atomic_u64(t, &kr, sizeof kr, 8, PGDDS_AOP_OR, 1ull << me, NULL));
        T_OK(pgdds_keytable_atomic_u64(t, &kr, sizeof kr, 16, PGDDS_AOP_AND, ~(1ull << me), &old));
        T_CHECK(old & (1ull << me));
        T_OK(pgdds_keytable_atomic_u64(t, &kr, sizeof kr, 24, PGDDS_AOP_XOR, 0x5ull << me, NULL));
        /* The word after the value is out of bounds, whatever max_value_size allows. */
        T_STATUS(pgdds_keytable_atomic_u64(t, &kr, sizeof kr, 32, PGDDS_AOP_ADD, 1, NULL), PGDDS_ERR_OUT_OF_BOUNDS);
    }
    T_OK(pgdds_barrier(ctx));
    uint64_t got[4];
    size_t len = sizeof got;
    T_OK(pgdds_keytable_get(t, &k, sizeof k, got, &len));
    uint64_t or_bits = 0, xor_bits = 0;
    for (int r = 0; r < n; ++r) or_bits |= 1ull << r, xor_bits ^= 0x5ull << r;
    T_CHECK(len == sizeof got);
    T_CHECK_MSG(got[0] == (uint64_t)n * (uint64_t)(n + 1) / 2, "sum %llu", (unsigned long long)got[0]);
    T_CHECK(got[1] == or_bits);
    T_CHECK(got[2] == ~or_bits);
    T_CHECK(got[3] == xor_bits);
    uint64_t swapped = 0;
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_keytable_atomic_u64(t, &k, sizeof k, 0, PGDDS_AOP_SWAP, 7, &swapped));
    T_CHECK(swapped == got[0]);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_keytable_remove(t, &k, sizeof k));
    T_OK(pgdds_barrier(ctx));
}

/* The route of put, atomic and remove to every partition (pgdds_keytable_protocol): a rank
 * never calls itself; under PGDDS_CONTAINER_PROTOCOL=rdma no rank is called, under rpc every
 * partition not mapped here is (the operations above took that route). */
static void test_protocol(pgdds_keytable_t t)
{
    const char *want = getenv("PGDDS_CONTAINER_PROTOCOL");
    const char *shm = getenv("PGDDS_SHM");
    int protocol = -1;
    T_STATUS(pgdds_keytable_protocol(NULL, 0, &protocol), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_protocol(t, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_protocol(t, n, &protocol), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_keytable_protocol(t, -1, &protocol), PGDDS_ERR_OUT_OF_BOUNDS);
    for (int r = 0; r < n; ++r) {
        T_OK(pgdds_keytable_protocol(t, r, &protocol));
        if (r == me) T_CHECK_MSG(protocol == PGDDS_PROTOCOL_DIRECT, "own partition by protocol %d", protocol);
        else if (want && strcmp(want, "rdma") == 0) T_CHECK_MSG(protocol != PGDDS_PROTOCOL_RPC, "rank %d called", r);
        else if (want && strcmp(want, "rpc") == 0 && shm && strcmp(shm, "off") == 0)
            T_CHECK_MSG(protocol == PGDDS_PROTOCOL_RPC, "rank %d reached by protocol %d under rpc", r, protocol);
    }
}

/* After a put of another rank's key, a get reads the record once over the network: the put tells
 * this rank where the entry is, whether this rank held the entry (RDMA) or the owner did while
 * serving the call (RPC). Keys reached by load/store are not counted. */
static void test_get_after_put_reads_once(pgdds_keytable_t t)
{
    unsigned char buf[max_value];
    int owners[per_rank];
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < per_rank; ++i) {
            struct kt_key k = kt_key_of(r, i);
            int owner = kt_owner_of(ctx, t, &k, sizeof k);
            if (r == me) owners[i] = owner;
        }
    int remote = 0;
    for (uint64_t i = 0; i < per_rank; ++i) {
        int protocol = -1;
        T_OK(pgdds_keytable_protocol(t, owners[i], &protocol));
        if (protocol == PGDDS_PROTOCOL_DIRECT) continue;
        ++remote;
        struct kt_key k = kt_key_of(me, i);
        size_t len = kt_make_value(buf, kt_key_id(k), 9, max_value);
        T_OK(pgdds_keytable_put(t, &k, sizeof k, buf, len));
        pgdds_net_counts_t before, after;
        T_OK(pgdds_net_counts(ctx, &before));
        len = sizeof buf;
        T_OK(pgdds_keytable_get(t, &k, sizeof k, buf, &len));
        T_OK(pgdds_net_counts(ctx, &after));
        uint64_t version = 0;
        T_CHECK(kt_check(buf, len, kt_key_id(k), &version) && version == 9);
        T_CHECK_MSG(after.gets - before.gets == 1, "a get after a put by protocol %d read %llu times", protocol,
                    (unsigned long long)(after.gets - before.gets));
    }
    /* Every key is some rank's: with the network in use, some rank met a remote one. */
    const char *shm = getenv("PGDDS_SHM");
    int32_t mine = remote, total = 0;
    T_OK(pgdds_allreduce(ctx, &mine, &total, 1, PGDDS_INT32, PGDDS_OP_SUM));
    if (shm && strcmp(shm, "off") == 0) T_CHECK_MSG(total > 0, "no key of another rank was reached by the network");
    T_OK(pgdds_barrier(ctx));
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    pgdds_keytable_t t = kt_create(ctx, max_value, 2000);
    test_insert_get_everywhere(t);
    test_small_buffers(t);
    test_sizes(t);
    test_put_resize(t);
    test_remove_reinsert(t);
    test_foreach(t);
    test_atomics(t);
    test_protocol(t);
    test_get_after_put_reads_once(t);
    T_OK(pgdds_keytable_destroy(t));
    return t_finish(ctx, "keytable/basic");
}
