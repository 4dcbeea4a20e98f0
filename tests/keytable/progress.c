/* An owner that computes: rank 0 stops calling the library (with PGDDS_PROGRESS_THREAD=1) or
 * calls only pgdds_progress now and then (attentiveness) while the other ranks insert, update,
 * read and remove keys, a quarter of them rank 0's, and finally tell it they are done with a
 * one-sided atomic it watches in its own memory. Every operation must complete meanwhile. */
#include "kt_test.h"

static pgdds_context_t ctx;
static int me, n;

enum { per_rank = 48, max_value = 64 };

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    const char *pt = getenv("PGDDS_PROGRESS_THREAD");
    const int progress_thread = pt && (strcmp(pt, "1") == 0 || strcmp(pt, "yes") == 0 || strcmp(pt, "on") == 0 ||
                                       strcmp(pt, "true") == 0);
    pgdds_keytable_t t = kt_create(ctx, max_value, (uint64_t)(per_rank * n));
    pgdds_gptr_t done = PGDDS_GPTR_NULL;
    if (me == 0) T_OK(pgdds_alloc(ctx, 8, 8, &done));
    T_OK(pgdds_broadcast(ctx, &done, sizeof done, 0));
    if (me == 0) *(volatile uint64_t *)pgdds_gptr_to_local(ctx, done) = 0;
    T_OK(pgdds_barrier(ctx));

    if (me == 0) {
        /* Compute until every other rank is done. */
        volatile uint64_t *finished = pgdds_gptr_to_local(ctx, done);
        unsigned long spins = 0;
        while (__atomic_load_n(finished, __ATOMIC_ACQUIRE) < (uint64_t)(n - 1)) {
            if (!progress_thread && ++spins % 64 == 0) T_OK(pgdds_progress(ctx));
        }
    } else {
        unsigned char buf[max_value];
        for (uint64_t i = 0; i < per_rank; ++i) {
            struct kt_key k = kt_key_of(me, i);
            size_t len = kt_make_value(buf, kt_key_id(k), 1, max_value);
            T_OK(pgdds_keytable_insert(t, &k, sizeof k, buf, len));
            kt_fill(buf, kt_key_id(k), 2, len);
            T_OK(pgdds_keytable_put(t, &k, sizeof k, buf, len));
            size_t got = sizeof buf;
            uint64_t v = 0;
            T_OK(pgdds_keytable_get(t, &k, sizeof k, buf, &got));
            T_CHECK(kt_check(buf, got, kt_key_id(k), &v) && v == 2);
            if (i % 3 == 0) T_OK(pgdds_keytable_remove(t, &k, sizeof k));
        }
        T_OK(pgdds_atomic_u64(ctx, done, PGDDS_AOP_ADD, 1, NULL));
    }
    T_OK(pgdds_barrier(ctx));
    /* Everything arrived. */
    uint64_t expect = 0, held = kt_local_count(t), all = 0;
    for (int r = 1; r < n; ++r) expect += per_rank - (per_rank + 2) / 3;
    T_OK(pgdds_allreduce(ctx, &held, &all, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK_MSG(all == expect, "%llu keys held, %llu expected", (unsigned long long)all, (unsigned long long)expect);
    T_OK(pgdds_keytable_destroy(t));
    return t_finish(ctx, "keytable/progress");
}
