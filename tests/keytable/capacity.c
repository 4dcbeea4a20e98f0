/* Exhaustion: a rank holds at most capacity_per_rank keys (PGDDS_ERR_FULL beyond, and room
 * again after a removal); a segment without room for another record gives
 * PGDDS_ERR_NO_MEMORY, and removals give the room back. */
#include "kt_test.h"

static pgdds_context_t ctx;
static int me, n;

enum { capacity = 16 };

static void test_capacity(void)
{
    pgdds_keytable_t t = kt_create(ctx, 64, capacity);
    /* One rank offers many more keys than fit: each owner takes exactly `capacity`. */
    const uint64_t offered = 8 * capacity * (uint64_t)n;
    int64_t ok = 0, full = 0;
    if (me == 0) {
        for (uint64_t i = 0; i < offered; ++i) {
            struct kt_key k = kt_key_of(0, i);
            pgdds_status_t st = pgdds_keytable_insert(t, &k, sizeof k, &i, sizeof i);
            if (st == PGDDS_OK) ok++;
            else if (st == PGDDS_ERR_FULL) full++;
            else T_OK(st);
        }
        T_CHECK_MSG(ok == capacity * n && ok + full == (int64_t)offered, "%lld inserted, %lld refused of %llu",
                    (long long)ok, (long long)full, (unsigned long long)offered);
    }
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(kt_local_count(t) == capacity, "rank holds %llu keys", (unsigned long long)kt_local_count(t));

    /* Each rank removes one key it owns; the owner has room for exactly one more. */
    struct kt_find first = {NULL, 0, 0};
    struct kt_key mine = {0, 0};
    for (uint64_t i = 0; i < offered && !first.found; ++i) {
        mine = kt_key_of(0, i);
        first.key = &mine;
        first.len = sizeof mine;
        T_OK(pgdds_keytable_foreach_local(t, kt_find_visit, &first));
    }
    T_CHECK(first.found);
    T_OK(pgdds_keytable_remove(t, &mine, sizeof mine));
    T_OK(pgdds_barrier(ctx));
    T_CHECK(kt_local_count(t) == capacity - 1);
    T_OK(pgdds_barrier(ctx));
    /* A key already present is EXISTS even in a full partition. */
    if (me == 0) {
        int64_t again = 0;
        for (uint64_t i = 0; i < offered; ++i) {
            struct kt_key k = kt_key_of(0, i);
            pgdds_status_t st = pgdds_keytable_insert(t, &k, sizeof k, &i, sizeof i);
            if (st == PGDDS_OK) again++;
            else if (st != PGDDS_ERR_FULL) T_STATUS(st, PGDDS_ERR_EXISTS);
        }
        T_CHECK_MSG(again == n, "%lld keys went into the freed room, expected %d", (long long)again, n);
    }
    T_OK(pgdds_barrier(ctx));
    T_CHECK(kt_local_count(t) == capacity);
    T_OK(pgdds_keytable_destroy(t));
}

static void test_segment_exhaustion(void)
{
    /* Records of a few MiB: a few dozen fit in the segment. */
    size_t segment = 0;
    T_OK(pgdds_segment_size(ctx, me, &segment));
    size_t max_value = segment / 24;
    if (max_value > PGDDS_KEYTABLE_MAX_VALUE_SIZE) max_value = PGDDS_KEYTABLE_MAX_VALUE_SIZE;
    pgdds_keytable_t t = kt_create(ctx, max_value, 1000);
    int64_t ok = 0, no_memory = 0;
    uint64_t i = 0;
    for (; i < 200 && no_memory < 5; ++i) {
        struct kt_key k = kt_key_of(me, i);
        pgdds_status_t st = pgdds_keytable_insert(t, &k, sizeof k, &i, sizeof i);
        if (st == PGDDS_OK) ok++;
        else if (st == PGDDS_ERR_NO_MEMORY) no_memory++;
        else T_OK(st);
    }
    int64_t any[2] = {ok, no_memory}, all[2];
    T_OK(pgdds_allreduce(ctx, any, all, 2, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK_MSG(all[1] > 0 && all[0] > 0, "%lld inserted, %lld refused for want of memory", (long long)all[0],
                (long long)all[1]);
    T_OK(pgdds_barrier(ctx));
    /* Remove what this rank inserted: the segments have room again. */
    for (uint64_t j = 0; j < i; ++j) {
        struct kt_key k = kt_key_of(me, j);
        pgdds_status_t st = pgdds_keytable_remove(t, &k, sizeof k);
        if (st != PGDDS_OK) T_STATUS(st, PGDDS_ERR_NOT_FOUND);
    }
    T_OK(pgdds_barrier(ctx));
    T_CHECK(kt_local_count(t) == 0);
    T_OK(pgdds_barrier(ctx));
    struct kt_key k = kt_key_of(me, 0);
    T_OK(pgdds_keytable_insert(t, &k, sizeof k, &i, sizeof i));
    T_OK(pgdds_keytable_destroy(t));
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    test_capacity();
    test_segment_exhaustion();
    return t_finish(ctx, "keytable/capacity");
}
