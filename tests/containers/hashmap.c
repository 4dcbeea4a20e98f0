/* The distributed hash map: every protocol under its promise, many ranks on the same keys,
 * keys engineered to collide, tombstones, resizing, local iteration, batches, bad input. Every
 * value carries a check word (common.h), so a torn read or write is caught. */
#include "common.h"

static pgdds_context_t ctx;
static int me, n;

static pgdds_hashmap_t make_map(uint64_t capacity, const pgdds_hashmap_options_t *options)
{
    pgdds_hashmap_params_t p = {0, sizeof(uint64_t), sizeof(struct t_value), capacity};
    pgdds_hashmap_t map = NULL;
    T_OK(pgdds_hashmap_create_with(ctx, &p, options, &map));
    return map;
}

/* Every rank checks that keys [0, count) of `base` are present with a whole value, with both
 * find protocols and the batched find. */
static void check_all_present(pgdds_hashmap_t map, uint64_t base, uint64_t count, unsigned find_promise)
{
    uint64_t bad = 0, missing = 0;
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t key = base + i;
        struct t_value v;
        pgdds_status_t st = pgdds_hashmap_find(map, &key, &v, find_promise);
        if (st != PGDDS_OK) missing++;
        else if (!t_value_ok(&v, key)) bad++;
    }
    T_CHECK_MSG(missing == 0 && bad == 0, "%llu of %llu keys missing, %llu torn", (unsigned long long)missing,
                (unsigned long long)count, (unsigned long long)bad);
}

/* Each rank inserts its own keys while every rank also inserts a shared set and reads keys of
 * the others: fully atomic inserts and finds overlapping. */
static void test_atomic_contended(void)
{
    const uint64_t own = t_work(600, 60), shared = t_work(200, 30);
    pgdds_hashmap_t map = make_map((own * (uint64_t)n + shared) * 2, NULL);
    T_OK(pgdds_barrier(ctx));
    uint64_t torn = 0;
    for (uint64_t i = 0; i < own; ++i) {
        uint64_t key = 1000000 + (uint64_t)me * own + i;
        struct t_value v = t_value_of(key, (uint64_t)me);
        T_OK(pgdds_hashmap_insert(map, &key, &v, 0));
        /* insert-or-assign of a key every rank writes, in a different order on each rank */
        uint64_t skey = (i * 7 + (uint64_t)me * 13) % shared;
        struct t_value sv = t_value_of(skey, (uint64_t)me * 1000 + i);
        T_OK(pgdds_hashmap_insert(map, &skey, &sv, 0));
        /* read a key another rank may be writing right now */
        uint64_t other = 1000000 + (uint64_t)((me + 1) % n) * own + i;
        struct t_value ov;
        pgdds_status_t st = pgdds_hashmap_find(map, &other, &ov, 0);
        if (st == PGDDS_OK) torn += !t_value_ok(&ov, other);
        else T_STATUS(st, PGDDS_ERR_NOT_FOUND);
        st = pgdds_hashmap_find(map, &skey, &sv, 0);
        T_OK(st);
        if (st == PGDDS_OK) torn += !t_value_ok(&sv, skey);
    }
    T_CHECK_MSG(torn == 0, "%llu torn values read during inserts", (unsigned long long)torn);
    T_OK(pgdds_barrier(ctx));
    uint64_t size = 0;
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK_MSG(size == own * (uint64_t)n + shared, "size %llu, expected %llu (a duplicated or lost key)",
                (unsigned long long)size, (unsigned long long)(own * (uint64_t)n + shared));
    check_all_present(map, 1000000, own * (uint64_t)n, 0);
    check_all_present(map, 0, shared, PGDDS_CP_FIND);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_destroy(map));
}

/* Every rank reads the same few keys over and over while every rank also assigns them: the
 * readers' bits pile up on those buckets' words, so a reader's compare-and-swap often finds
 * other readers there and must take a bit beside theirs. Every read must find a whole value. */
static void test_hot_keys(void)
{
    enum { HOT = 3 };
    const uint64_t rounds = t_work(400, 40);
    pgdds_hashmap_t map = make_map(64, NULL);
    for (uint64_t k = 0; k < HOT; ++k) {
        struct t_value v = t_value_of(k, 0);
        if (me == 0) T_OK(pgdds_hashmap_insert(map, &k, &v, 0));
    }
    T_OK(pgdds_barrier(ctx));
    uint64_t torn = 0, missing = 0;
    for (uint64_t i = 0; i < rounds; ++i) {
        for (uint64_t k = 0; k < HOT; ++k) {
            struct t_value v;
            pgdds_status_t st = pgdds_hashmap_find(map, &k, &v, 0);
            if (st == PGDDS_OK) torn += !t_value_ok(&v, k);
            else missing += 1;
        }
        uint64_t k = i % HOT;
        struct t_value v = t_value_of(k, (uint64_t)me * rounds + i);
        if (i % 4 == (uint64_t)me % 4) T_OK(pgdds_hashmap_insert(map, &k, &v, 0));
    }
    T_CHECK_MSG(torn == 0 && missing == 0, "%llu torn and %llu missing reads of keys always present",
                (unsigned long long)torn, (unsigned long long)missing);
    T_OK(pgdds_barrier(ctx));
    uint64_t size = 0;
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK_MSG(size == HOT, "size %llu, expected %d", (unsigned long long)size, HOT);
    T_OK(pgdds_hashmap_destroy(map));
}

/* Phases under promises: CP_INSERT inserts, then CP_FIND finds (one read), CP_LOCAL inserts of
 * owned keys, batched finds. */
static void test_promises(void)
{
    const uint64_t per = t_work(800, 80);
    pgdds_hashmap_t map = make_map(per * (uint64_t)n * 3, NULL);
    for (uint64_t i = 0; i < per; ++i) {
        uint64_t key = (uint64_t)me * per + i;
        struct t_value v = t_value_of(key, 7);
        T_OK(pgdds_hashmap_insert(map, &key, &v, PGDDS_CP_INSERT));
    }
    /* CP_LOCAL: keys from a range nobody else uses, inserted only by their owner */
    uint64_t local_count = 0;
    for (uint64_t key = 5000000; key < 5000000 + per; ++key) {
        int owner = -1;
        T_OK(pgdds_hashmap_owner(map, &key, &owner));
        if (owner != me) continue;
        struct t_value v = t_value_of(key, 9);
        T_OK(pgdds_hashmap_insert(map, &key, &v, PGDDS_CP_LOCAL));
        local_count++;
    }
    T_OK(pgdds_barrier(ctx));
    check_all_present(map, 0, per * (uint64_t)n, PGDDS_CP_FIND);
    check_all_present(map, 5000000, per, PGDDS_CP_FIND);
    uint64_t total_local = 0;
    T_OK(pgdds_allreduce(ctx, &local_count, &total_local, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK(total_local == per);

    /* batched finds, both protocols, with absent keys mixed in */
    enum { B = 100 };
    uint64_t keys[B];
    struct t_value vals[B];
    unsigned char found[B];
    for (unsigned promise = 0; promise <= PGDDS_CP_FIND; promise += PGDDS_CP_FIND) {
        for (int round = 0; round < (int)t_work(8, 2); ++round) {
            for (int j = 0; j < B; ++j) keys[j] = (j % 5 == 4) ? 9000000 + (uint64_t)j : t_mix((uint64_t)(round * B + j + me)) % (per * (uint64_t)n);
            T_OK(pgdds_hashmap_find_many(map, B, keys, vals, found, promise));
            int bad = 0;
            for (int j = 0; j < B; ++j) bad += (j % 5 == 4) ? found[j] != 0 : !(found[j] == 1 && t_value_ok(&vals[j], keys[j]));
            T_CHECK_MSG(bad == 0, "find_many (promise %u): %d wrong results", promise, bad);
        }
    }
    /* local iteration: every entry once */
    T_OK(pgdds_barrier(ctx));
    uint64_t size = 0;
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK(size == per * (uint64_t)n + per);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_destroy(map));
}

/* A hash that sends every key of a group to the same owner, home bucket and fingerprint. */
static uint64_t colliding_hash(const void *key, size_t size, void *arg)
{
    uint64_t k;
    (void)size;
    memcpy(&k, key, sizeof k);
    return (k % *(const uint64_t *)arg) * 0x9e3779b97f4a7c15ull;
}

struct visit_sum {
    uint64_t count;
    uint64_t key_sum;
    uint64_t bad;
};
static int sum_visit(const void *key, void *value, void *arg)
{
    struct visit_sum *s = arg;
    uint64_t k;
    memcpy(&k, key, sizeof k);
    s->count++;
    s->key_sum += k;
    s->bad += !t_value_ok(value, k);
    return 0;
}

/* Counts, per key k in 1..320, the entries local iteration sees. */
static int count_visit(const void *key, void *value, void *arg)
{
    uint64_t *seen = arg, k;
    (void)value;
    memcpy(&k, key, sizeof k);
    if (k <= 320) seen[k]++;
    return 0;
}

/* Keys engineered to collide: probing, tombstone reuse, assignment of a key that sits past a
 * tombstone, the probe limit, concurrent inserts and erases on one chain. */
static void test_collisions(void)
{
    uint64_t groups = 1; /* every key collides */
    const uint64_t chain = t_work(40, 16), erased = chain / 4, probes = t_work(64, 24), past = chain * 3 / 4;
    pgdds_hashmap_options_t o = {PGDDS_HASHMAP_OPTION_HASH | PGDDS_HASHMAP_OPTION_MAX_PROBES, colliding_hash, &groups,
                                 (uint32_t)probes, PGDDS_PROTOCOL_AUTO};
    pgdds_hashmap_t map = make_map(128 * (uint64_t)n, &o);
    if (me == 0) {
        for (uint64_t k = 1; k <= chain; ++k) {
            struct t_value v = t_value_of(k, 1);
            T_OK(pgdds_hashmap_insert(map, &k, &v, 0));
        }
        /* erase the first keys: tombstones at the head of the chain */
        for (uint64_t k = 1; k <= erased; ++k) T_OK(pgdds_hashmap_erase(map, &k, 0));
        uint64_t k = erased / 2 + 1;
        T_STATUS(pgdds_hashmap_erase(map, &k, 0), PGDDS_ERR_NOT_FOUND);
        struct t_value v;
        T_STATUS(pgdds_hashmap_find(map, &k, &v, 0), PGDDS_ERR_NOT_FOUND);
        /* assigning a key that lies past the tombstones must update it, not add a copy */
        k = past;
        v = t_value_of(k, 2);
        T_OK(pgdds_hashmap_insert(map, &k, &v, 0));
        struct t_value got;
        T_OK(pgdds_hashmap_find(map, &k, &got, PGDDS_CP_FIND));
        T_CHECK(got.writer == 2);
        T_OK(pgdds_hashmap_erase(map, &k, 0));
        T_STATUS(pgdds_hashmap_find(map, &k, &got, 0), PGDDS_ERR_NOT_FOUND);
        /* a new key fills a tombstone */
        k = 100;
        v = t_value_of(k, 3);
        T_OK(pgdds_hashmap_insert(map, &k, &v, 0));
        T_OK(pgdds_hashmap_find(map, &k, &got, 0));
        T_CHECK(t_value_ok(&got, 100));
        /* fill to the probe limit: the chain holds chain - (erased + 1) + 1 keys now */
        uint64_t added = 0;
        pgdds_status_t st = PGDDS_OK;
        for (k = 200; st == PGDDS_OK; ++k) {
            v = t_value_of(k, 4);
            st = pgdds_hashmap_insert(map, &k, &v, 0);
            if (st == PGDDS_OK) added++;
        }
        T_STATUS(st, PGDDS_ERR_FULL);
        T_CHECK_MSG(added == probes - (chain - erased), "%llu keys fit after the chain", (unsigned long long)added);
        k = 9999; /* absent, chain full: the probe stops at the limit */
        T_STATUS(pgdds_hashmap_find(map, &k, &got, 0), PGDDS_ERR_NOT_FOUND);
        T_STATUS(pgdds_hashmap_find(map, &k, &got, PGDDS_CP_FIND), PGDDS_ERR_NOT_FOUND);
    }
    T_OK(pgdds_barrier(ctx));
    uint64_t size = 0;
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK_MSG(size == probes, "size %llu after filling the chain", (unsigned long long)size);
    T_OK(pgdds_hashmap_destroy(map));

    /* All ranks insert the same absent keys of one long collision chain at once while filler
     * keys ahead of them in the chain are erased, so tombstones appear under the probing
     * inserts. The chain lock must keep each key in exactly one bucket. */
    o.max_probes = 1024;
    map = make_map(1024 * (uint64_t)n, &o);
    enum { FRESH = 8, MAX_PHASES = 16 };
    const int PHASES = (int)t_work(MAX_PHASES, 3);
    const uint64_t fillers = t_work(40, 12);
    if (me == 0)
        for (uint64_t k = 1000000; k < 1000000 + fillers; ++k) {
            struct t_value v = t_value_of(k, 0);
            T_OK(pgdds_hashmap_insert(map, &k, &v, 0));
        }
    T_OK(pgdds_barrier(ctx));
    for (int phase = 0; phase < PHASES; ++phase) {
        for (int i = 0; i < FRESH; ++i) {
            uint64_t k = (uint64_t)(phase * FRESH + (i + me) % FRESH) + 1;
            struct t_value v = t_value_of(k, (uint64_t)me);
            T_OK(pgdds_hashmap_insert(map, &k, &v, 0));
            /* rank r erases filler keys r, r+n, ...: new tombstones near the head of the chain */
            uint64_t f = 1000000 + (uint64_t)(phase * FRESH + i) * (uint64_t)n + (uint64_t)me;
            if (f < 1000000 + fillers) T_OK(pgdds_hashmap_erase(map, &f, 0));
        }
        T_OK(pgdds_barrier(ctx));
    }
    uint64_t seen[MAX_PHASES * FRESH + 1] = {0}, all_seen[MAX_PHASES * FRESH + 1];
    T_OK(pgdds_hashmap_foreach_local(map, count_visit, seen));
    T_OK(pgdds_allreduce(ctx, seen, all_seen, MAX_PHASES * FRESH + 1, PGDDS_UINT64, PGDDS_OP_SUM));
    int dup = 0;
    for (int i = 1; i <= PHASES * FRESH; ++i) dup += all_seen[i] != 1;
    T_CHECK_MSG(dup == 0, "%d of %d colliding keys lost or stored twice", dup, PHASES * FRESH);
    struct visit_sum s = {0, 0, 0}, total;
    T_OK(pgdds_hashmap_foreach_local(map, sum_visit, &s));
    T_OK(pgdds_allreduce(ctx, &s, &total, 3, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK(total.bad == 0 && total.count == (uint64_t)(PHASES * FRESH));
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_destroy(map));
}

static void test_resize_and_erase(void)
{
    const uint64_t per = t_work(300, 60);
    pgdds_hashmap_t map = make_map(per * (uint64_t)n + 16, NULL);
    uint64_t cap = 0;
    T_OK(pgdds_hashmap_capacity(map, &cap));
    T_CHECK(cap >= per * (uint64_t)n + 16 && cap % (uint64_t)n == 0);
    uint64_t inserted = 0;
    unsigned char *in = calloc(per, 1);
    for (uint64_t i = 0; i < per; ++i) {
        uint64_t key = (uint64_t)me * per + i;
        struct t_value v = t_value_of(key, 5);
        pgdds_status_t st = pgdds_hashmap_insert(map, &key, &v, 0);
        if (st == PGDDS_OK) inserted++, in[i] = 1;
        else T_STATUS(st, PGDDS_ERR_FULL);
    }
    T_OK(pgdds_barrier(ctx));
    /* Nearly full, probe sequences run long and wrap around the ends of the parts: CP_FIND
     * finds (read a window of buckets at a time) and batched ones still see exactly what is
     * there, and stop at the probe limit for an absent key. */
    enum { B = 50 };
    uint64_t wrong = 0, keys[B];
    struct t_value vals[B];
    unsigned char found[B];
    for (uint64_t i = 0; i < per; i += B) {
        uint64_t c = per - i < B ? per - i : B;
        for (uint64_t j = 0; j < c; ++j) {
            keys[j] = (uint64_t)me * per + i + j;
            pgdds_status_t st = pgdds_hashmap_find(map, &keys[j], &vals[j], PGDDS_CP_FIND);
            wrong += in[i + j] ? st != PGDDS_OK || !t_value_ok(&vals[j], keys[j]) : st != PGDDS_ERR_NOT_FOUND;
        }
        T_OK(pgdds_hashmap_find_many(map, c, keys, vals, found, PGDDS_CP_FIND));
        for (uint64_t j = 0; j < c; ++j) wrong += found[j] != in[i + j] || (found[j] && !t_value_ok(&vals[j], keys[j]));
    }
    for (uint64_t key = 1000000; key < 1000000 + t_work(200, 50); ++key) {
        struct t_value v;
        wrong += pgdds_hashmap_find(map, &key, &v, PGDDS_CP_FIND) != PGDDS_ERR_NOT_FOUND;
    }
    T_CHECK_MSG(wrong == 0, "%llu CP_FIND results wrong in a nearly full map", (unsigned long long)wrong);
    free(in);
    T_OK(pgdds_barrier(ctx));
    uint64_t size = 0, total = 0;
    T_OK(pgdds_allreduce(ctx, &inserted, &total, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    /* too small for what is in it: refused, the table unchanged */
    T_STATUS(pgdds_hashmap_resize(map, (uint64_t)n), PGDDS_ERR_FULL);
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK(size == total);
    T_OK(pgdds_hashmap_resize(map, per * (uint64_t)n * 4));
    T_OK(pgdds_hashmap_capacity(map, &cap));
    T_CHECK(cap >= per * (uint64_t)n * 4);
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK(size == total);
    /* now everything fits */
    for (uint64_t i = 0; i < per; ++i) {
        uint64_t key = (uint64_t)me * per + i;
        struct t_value v = t_value_of(key, 5);
        T_OK(pgdds_hashmap_insert(map, &key, &v, 0));
    }
    T_OK(pgdds_barrier(ctx));
    check_all_present(map, 0, per * (uint64_t)n, 0);
    T_OK(pgdds_barrier(ctx));
    /* erase the even keys of my range */
    for (uint64_t i = 0; i < per; i += 2) {
        uint64_t key = (uint64_t)me * per + i;
        T_OK(pgdds_hashmap_erase(map, &key, 0));
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_size(map, &size));
    T_CHECK(size == per * (uint64_t)n / 2);
    wrong = 0;
    for (uint64_t key = 0; key < per * (uint64_t)n; ++key) {
        struct t_value v;
        pgdds_status_t st = pgdds_hashmap_find(map, &key, &v, PGDDS_CP_FIND);
        wrong += (key % per) % 2 == 0 ? st != PGDDS_ERR_NOT_FOUND : (st != PGDDS_OK || !t_value_ok(&v, key));
    }
    T_CHECK_MSG(wrong == 0, "%llu keys wrong after erasing", (unsigned long long)wrong);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_destroy(map));
}

/* A fully atomic find clears its reader bit with a posted update. The other ranks find rank 0's
 * keys and then, with no flush or barrier, wait for rank 0 to erase every one of them: each
 * erase waits for the finders' reader bits, so a release that never lands would end in
 * PGDDS_ERR_TIMEOUT (or a stuck bit in a lost key) instead. */
static void test_find_releases(void)
{
    enum { KEYS = 24, ROUNDS = 3 };
    pgdds_hashmap_t map = make_map(256 * (uint64_t)n, NULL);
    pgdds_gptr_t words = PGDDS_GPTR_NULL; /* on rank 0: ranks done finding, keys erased */
    if (me == 0) {
        T_OK(pgdds_alloc(ctx, 16, 8, &words));
        memset(pgdds_gptr_to_local(ctx, words), 0, 16);
    }
    T_OK(pgdds_broadcast(ctx, &words, sizeof words, 0));
    uint64_t keys[KEYS];
    for (uint64_t k = 1, i = 0; i < KEYS; ++k) {
        int owner = -1;
        T_OK(pgdds_hashmap_owner(map, &k, &owner));
        if (owner == 0) keys[i++] = k;
    }
    if (me == 0)
        for (int i = 0; i < KEYS; ++i) {
            struct t_value v = t_value_of(keys[i], 1);
            T_OK(pgdds_hashmap_insert(map, &keys[i], &v, 0));
        }
    T_OK(pgdds_barrier(ctx));
    const pgdds_gptr_t finished = words, erased = words + 8;
    if (me != 0) {
        for (int r = 0; r < ROUNDS; ++r)
            for (int i = 0; i < KEYS; ++i) {
                struct t_value v;
                T_OK(pgdds_hashmap_find(map, &keys[i], &v, 0));
                T_CHECK(t_value_ok(&v, keys[i]));
            }
        T_OK(pgdds_atomic_u64(ctx, finished, PGDDS_AOP_ADD, 1, NULL));
        T_CHECK_MSG(t_wait_word(ctx, erased, 1) == 1, "rank 0 did not erase the keys the finders had read");
    } else {
        T_CHECK_MSG(t_wait_word(ctx, finished, (uint64_t)n - 1) == (uint64_t)n - 1, "not every finder finished");
        for (int i = 0; i < KEYS; ++i) {
            struct t_value v;
            T_OK(pgdds_hashmap_erase(map, &keys[i], 0));
            T_STATUS(pgdds_hashmap_find(map, &keys[i], &v, 0), PGDDS_ERR_NOT_FOUND);
        }
        T_OK(pgdds_atomic_u64(ctx, erased, PGDDS_AOP_ADD, 1, NULL));
    }
    T_OK(pgdds_barrier(ctx));
    if (me == 0) T_OK(pgdds_free(ctx, words));
    T_OK(pgdds_hashmap_destroy(map));
}

/* pgdds_hashmap_insert_many: every rank inserts its own keys in batches (both insert
 * protocols), then every rank inserts a shared set of keys; every key is then present exactly
 * once with a whole value, and the global count is exact. Then bad input and a full map. */
static void test_insert_many(void)
{
    enum { B = 32 };
    const uint64_t per_rank = t_work(2000, 300), shared = 100;
    const unsigned promises[2] = {0, PGDDS_CP_INSERT};
    for (int pi = 0; pi < 2; ++pi) {
        pgdds_hashmap_t map = make_map(4 * (per_rank * (uint64_t)n + shared), NULL);
        uint64_t base = 1000000 + (uint64_t)me * per_rank;
        uint64_t keys[B];
        struct t_value vals[B];
        for (uint64_t i = 0; i < per_rank; i += B) {
            size_t c = per_rank - i < B ? (size_t)(per_rank - i) : B;
            for (size_t j = 0; j < c; ++j) keys[j] = base + i + j, vals[j] = t_value_of(keys[j], (uint64_t)me);
            T_OK(pgdds_hashmap_insert_many(map, c, keys, vals, promises[pi]));
        }
        /* the same keys from every rank: insert or assign, one entry each. Fully atomic inserts
         * of one key may overlap; under PGDDS_CP_INSERT they must not (pgdds.h), so there the
         * ranks take turns, and every turn after the first assigns in place. */
        const int turns = promises[pi] == PGDDS_CP_INSERT ? n : 1;
        for (int turn = 0; turn < turns; ++turn) {
            if (turns == 1 || turn == me)
                for (uint64_t i = 0; i < shared; i += B) {
                    size_t c = shared - i < B ? (size_t)(shared - i) : B;
                    for (size_t j = 0; j < c; ++j) keys[j] = 5000000 + i + j, vals[j] = t_value_of(keys[j], (uint64_t)me);
                    T_OK(pgdds_hashmap_insert_many(map, c, keys, vals, promises[pi]));
                }
            if (turns > 1) T_OK(pgdds_barrier(ctx));
        }
        T_OK(pgdds_hashmap_insert_many(map, 0, NULL, NULL, promises[pi])); /* nothing to do */
        T_OK(pgdds_barrier(ctx));
        for (int r = 0; r < n; ++r) check_all_present(map, 1000000 + (uint64_t)r * per_rank, per_rank, 0);
        check_all_present(map, 5000000, shared, 0);
        uint64_t size = 0;
        T_OK(pgdds_hashmap_size(map, &size));
        T_CHECK_MSG(size == per_rank * (uint64_t)n + shared, "insert_many (promise %u): %llu entries, expected %llu",
                    promises[pi], (unsigned long long)size, (unsigned long long)(per_rank * (uint64_t)n + shared));
        T_OK(pgdds_barrier(ctx));
        T_OK(pgdds_hashmap_destroy(map));
    }

    pgdds_hashmap_t map = make_map(64, NULL);
    uint64_t key = 7;
    struct t_value v = t_value_of(key, 0);
    T_STATUS(pgdds_hashmap_insert_many(NULL, 1, &key, &v, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_insert_many(map, 1, NULL, &v, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_insert_many(map, 1, &key, NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_insert_many(map, 1, &key, &v, PGDDS_CP_PUSH), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_insert_many((pgdds_hashmap_t)(void *)ctx, 1, &key, &v, 0), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_barrier(ctx));
    /* A full map: rank 0 inserts more keys than there are buckets; insert_many stops at the
     * first key that does not fit, with FULL, and the keys before it are in. Under RPC each owner
     * stops at the first of its own keys that does not fit: the keys before the first missing
     * one are in, and each owner's keys in are the first of its keys. */
    if (me == 0) {
        enum { MANY = 256 };
        static uint64_t ks[MANY];
        static struct t_value vs[MANY];
        for (int i = 0; i < MANY; ++i) ks[i] = 9000000 + (uint64_t)i, vs[i] = t_value_of(ks[i], 0);
        int rpc = 0;
        for (int r = 0; r < n; ++r) {
            int protocol = -1;
            T_OK(pgdds_hashmap_protocol(map, r, &protocol));
            rpc |= protocol == PGDDS_PROTOCOL_RPC;
        }
        T_STATUS(pgdds_hashmap_insert_many(map, MANY, ks, vs, 0), PGDDS_ERR_FULL);
        int present = 0, stop = MANY, out_of_order = 0;
        int *owner_stopped = calloc((size_t)n, sizeof *owner_stopped);
        for (int i = 0; i < MANY; ++i) {
            struct t_value got;
            int owner = 0;
            T_OK(pgdds_hashmap_owner(map, &ks[i], &owner));
            if (pgdds_hashmap_find(map, &ks[i], &got, 0) == PGDDS_OK) {
                T_CHECK(t_value_ok(&got, ks[i]));
                ++present;
                out_of_order += owner_stopped[owner];
            } else {
                owner_stopped[owner] = 1;
                if (stop == MANY) stop = i;
            }
        }
        free(owner_stopped);
        T_CHECK_MSG(present > 0 && (rpc ? out_of_order == 0 && present >= stop : present == stop),
                    "a full insert_many left %d keys, the first %d of them in order (%d of an owner after one "
                    "of its keys missing; %s)", present, stop, out_of_order, rpc ? "RPC" : "RDMA");
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_destroy(map));
}

/* Keys and values of every size a find has a short path for (4, 8, 16 bytes) and of others, every
 * rank's keys looked up by every rank under both find protocols: the whole value, exactly; an
 * absent key not found. Half full, so most keys sit in their home bucket and some do not. */
static void test_key_sizes(void)
{
    static const size_t sizes[] = {4, 8, 12, 16, 24};
    enum { NS = sizeof sizes / sizeof sizes[0], MAXB = 24 };
    const uint64_t per = t_work(2000, 200);
    for (int ki = 0; ki < NS; ++ki)
        for (int vi = 0; vi < NS; ++vi) {
            const size_t ks = sizes[ki], vs = sizes[vi];
            pgdds_hashmap_params_t p = {0, ks, vs, 2 * per * (uint64_t)n};
            pgdds_hashmap_t map = NULL;
            T_OK(pgdds_hashmap_create(ctx, &p, &map));
            unsigned char key[MAXB], value[MAXB], got[MAXB + 1];
            /* the bytes of rank r's i-th key or value: each 4 bytes hold r and i */
#define FILL(buf, len, r, i, salt)                                                                 \
    for (size_t b = 0; b < (len); ++b)                                                            \
    (buf)[b] = (unsigned char)(((uint32_t)(r) << 24 | (uint32_t)(i)) >> 8 * (b % 4)) + (unsigned char)(b / 4 * 17 + (salt))
            for (uint64_t i = 0; i < per; ++i) {
                FILL(key, ks, me, i, 0);
                FILL(value, vs, me, i, 101);
                T_OK(pgdds_hashmap_insert(map, key, value, PGDDS_CP_INSERT));
            }
            T_OK(pgdds_barrier(ctx));
            uint64_t wrong = 0;
            for (unsigned promise = 0; promise <= PGDDS_CP_FIND; promise += PGDDS_CP_FIND)
                for (int r = 0; r < n; ++r)
                    for (uint64_t i = 0; i < per; ++i) {
                        FILL(key, ks, r, i, 0);
                        FILL(value, vs, r, i, 101);
                        memset(got, 0xee, sizeof got);
                        wrong += pgdds_hashmap_find(map, key, got, promise) != PGDDS_OK ||
                                 memcmp(got, value, vs) != 0 || got[vs] != 0xee;
                        FILL(key, ks, r + n, i, 0); /* a rank that does not exist inserted nothing */
                        wrong += pgdds_hashmap_find(map, key, got, promise) != PGDDS_ERR_NOT_FOUND;
                    }
#undef FILL
            T_CHECK_MSG(wrong == 0, "%llu finds wrong with %zu-byte keys and %zu-byte values", (unsigned long long)wrong,
                        ks, vs);
            T_OK(pgdds_barrier(ctx));
            T_OK(pgdds_hashmap_destroy(map));
        }
}

static void test_bad_input(void)
{
    pgdds_hashmap_params_t p = {0, 8, 8, 64};
    pgdds_hashmap_t map = NULL;
    uint64_t key = 1, value = 2, out = 0;
    T_STATUS(pgdds_hashmap_create(NULL, &p, &map), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_create(ctx, NULL, &map), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_create(ctx, &p, NULL), PGDDS_ERR_INVALID_ARG);
    p.key_size = 0;
    T_STATUS(pgdds_hashmap_create(ctx, &p, &map), PGDDS_ERR_INVALID_ARG);
    p.key_size = 8;
    p.capacity = 0;
    T_STATUS(pgdds_hashmap_create(ctx, &p, &map), PGDDS_ERR_INVALID_ARG);
    p.capacity = 64;
    p.field_mask = 1;
    T_STATUS(pgdds_hashmap_create(ctx, &p, &map), PGDDS_ERR_INVALID_ARG);
    p.field_mask = 0;
    pgdds_hashmap_options_t o = {PGDDS_HASHMAP_OPTION_HASH, NULL, NULL, 0, PGDDS_PROTOCOL_AUTO};
    T_STATUS(pgdds_hashmap_create_with(ctx, &p, &o, &map), PGDDS_ERR_INVALID_ARG);
    o.field_mask = PGDDS_HASHMAP_OPTION_PROTOCOL;
    o.protocol = PGDDS_PROTOCOL_DIRECT; /* reported only, not chosen */
    T_STATUS(pgdds_hashmap_create_with(ctx, &p, &o, &map), PGDDS_ERR_INVALID_ARG);
    if (n > 1) { /* different protocols on different ranks */
        o.protocol = me % 2 ? PGDDS_PROTOCOL_RPC : PGDDS_PROTOCOL_RDMA;
        T_STATUS(pgdds_hashmap_create_with(ctx, &p, &o, &map), PGDDS_ERR_INVALID_ARG);
    }
    /* different capacities on different ranks are refused everywhere */
    if (n > 1) {
        p.capacity = 64 + (uint64_t)me;
        T_STATUS(pgdds_hashmap_create(ctx, &p, &map), PGDDS_ERR_INVALID_ARG);
        p.capacity = 64;
    }
    T_CHECK(map == NULL); /* outputs untouched on failure */
    p.capacity = (uint64_t)1 << 60;
    T_STATUS(pgdds_hashmap_create(ctx, &p, &map), PGDDS_ERR_NO_MEMORY);
    p.capacity = 64;

    T_OK(pgdds_hashmap_create(ctx, &p, &map));
    T_STATUS(pgdds_hashmap_insert(NULL, &key, &value, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_insert(map, NULL, &value, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_insert(map, &key, NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_insert(map, &key, &value, PGDDS_CP_PUSH), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_insert(map, &key, &value, 1u << 9), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_find(map, &key, NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_find(map, &key, &out, 0), PGDDS_ERR_NOT_FOUND);
    /* A CP_FIND find's common case has its own short path: the same answers. */
    T_STATUS(pgdds_hashmap_find(map, NULL, &out, PGDDS_CP_FIND), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_find(map, &key, NULL, PGDDS_CP_FIND), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_find(map, &key, &out, PGDDS_CP_FIND), PGDDS_ERR_NOT_FOUND);
    T_STATUS(pgdds_hashmap_erase(map, &key, 0), PGDDS_ERR_NOT_FOUND);
    T_STATUS(pgdds_hashmap_size(map, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_find_many(map, 1, &key, &out, NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_foreach_local(map, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_owner(map, &key, NULL), PGDDS_ERR_INVALID_ARG);
    int protocol = -1;
    T_STATUS(pgdds_hashmap_protocol(NULL, 0, &protocol), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_protocol(map, n, &protocol), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_hashmap_protocol(map, -1, &protocol), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_hashmap_protocol(map, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_hashmap_protocol(map, me, &protocol));
    T_CHECK_MSG(protocol == PGDDS_PROTOCOL_DIRECT || protocol == PGDDS_PROTOCOL_RDMA,
                "this rank's own part is reached by protocol %d", protocol);
    /* CP_LOCAL on a key owned elsewhere */
    for (key = 0; n > 1; ++key) {
        int owner;
        T_OK(pgdds_hashmap_owner(map, &key, &owner));
        if (owner != me) break;
    }
    if (n > 1) T_STATUS(pgdds_hashmap_insert(map, &key, &value, PGDDS_CP_LOCAL), PGDDS_ERR_INVALID_ARG);
    /* a handle of another type */
    T_STATUS(pgdds_hashmap_insert((pgdds_hashmap_t)(void *)ctx, &key, &value, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_resize(map, 0), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_hashmap_destroy(map));
    /* use after destroy */
    T_STATUS(pgdds_hashmap_insert(map, &key, &value, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_find(map, &key, &out, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_destroy(map), PGDDS_ERR_INVALID_ARG);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    t_detect_network(ctx);
    test_atomic_contended();
    test_hot_keys();
    test_promises();
    test_collisions();
    test_resize_and_erase();
    test_find_releases();
    test_insert_many();
    test_key_sizes();
    test_bad_input();
    return t_finish(ctx, "containers/hashmap");
}
