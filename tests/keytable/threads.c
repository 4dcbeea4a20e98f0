/* Several threads per rank (PGDDS_THREAD_MULTIPLE) on one table at once: each thread inserts,
 * updates, removes and reinserts its own keys while reading everyone's, and all threads of all
 * ranks add to one shared counter. More threads than requests a rank keeps in flight to one
 * owner, so inserts wait for credits. Then the exact final contents. */
#include "kt_test.h"

#include <pthread.h>

static pgdds_context_t ctx;
static int me, n;
static pgdds_keytable_t table;

enum { nthreads = 5, keys_per_thread = 8, rounds = 3, max_value = 100 };

static struct kt_key thread_key(int rank, int thread, uint64_t i)
{
    return kt_key_of(rank, (uint64_t)thread << 16 | i);
}

/* Version of a key after its thread's rounds; 0 when removed. Odd i are removed in the last round. */
static uint64_t final_version(uint64_t i) { return i % 2 ? 0 : (uint64_t)rounds; }

struct thread_result {
    int failures;
    int torn;
};

static void *worker(void *arg)
{
    int tid = (int)(intptr_t)arg;
    unsigned char buf[max_value];
    struct thread_result *res = calloc(1, sizeof *res);
    struct kt_key counter = kt_key_of(1 << 20, 0);
    uint64_t rng = (uint64_t)(me * nthreads + tid) * 0x9e3779b97f4a7c15ull + 1;
    for (uint64_t r = 1; r <= rounds; ++r) {
        for (uint64_t i = 0; i < keys_per_thread; ++i) {
            struct kt_key k = thread_key(me, tid, i);
            size_t len = kt_make_value(buf, kt_key_id(k), r, max_value);
            pgdds_status_t st = r == 1 ? pgdds_keytable_insert(table, &k, sizeof k, buf, len)
                                       : pgdds_keytable_put(table, &k, sizeof k, buf, len);
            if (st != PGDDS_OK) {
                res->failures++;
                fprintf(stderr, "FAIL rank %d thread %d: write: %s\n", me, tid, pgdds_last_error());
            }
            if (r == rounds && i % 2 && pgdds_keytable_remove(table, &k, sizeof k) != PGDDS_OK) res->failures++;
            if (pgdds_keytable_atomic_u64(table, &counter, sizeof counter, 0, PGDDS_AOP_ADD, 1, NULL) != PGDDS_OK)
                res->failures++;
            /* A read of anyone's key: whole, or absent. */
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            struct kt_key other =
                thread_key((int)(rng % (uint64_t)n), (int)(rng >> 20) % nthreads, (rng >> 40) % keys_per_thread);
            size_t got = sizeof buf;
            st = pgdds_keytable_get(table, &other, sizeof other, buf, &got);
            if (st == PGDDS_OK) res->torn += !kt_check(buf, got, kt_key_id(other), NULL);
            else if (st != PGDDS_ERR_NOT_FOUND) res->failures++;
        }
    }
    return res;
}

int main(void)
{
    pgdds_init_params_t ip;
    memset(&ip, 0, sizeof ip);
    ip.field_mask = PGDDS_INIT_FIELD_THREAD_LEVEL;
    ip.thread_level = PGDDS_THREAD_MULTIPLE;
    ctx = t_init(&ip);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    table = kt_create(ctx, max_value, 2 * nthreads * keys_per_thread + 8);
    struct kt_key counter = kt_key_of(1 << 20, 0);
    uint64_t zero = 0;
    if (me == 0) T_OK(pgdds_keytable_insert(table, &counter, sizeof counter, &zero, sizeof zero));
    T_OK(pgdds_barrier(ctx));

    pthread_t th[nthreads];
    for (int i = 0; i < nthreads; ++i) pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
    int torn = 0;
    for (int i = 0; i < nthreads; ++i) {
        void *r;
        pthread_join(th[i], &r);
        struct thread_result *res = r;
        t_failures += res->failures;
        torn += res->torn;
        free(res);
    }
    T_CHECK_MSG(torn == 0, "%d reads were not whole", torn);
    T_OK(pgdds_barrier(ctx));

    unsigned char buf[max_value];
    int wrong = 0;
    for (int r = 0; r < n; ++r)
        for (int tid = 0; tid < nthreads; ++tid)
            for (uint64_t i = 0; i < keys_per_thread; ++i) {
                struct kt_key k = thread_key(r, tid, i);
                size_t len = sizeof buf;
                uint64_t v = 0;
                pgdds_status_t st = pgdds_keytable_get(table, &k, sizeof k, buf, &len);
                if (!final_version(i)) wrong += st != PGDDS_ERR_NOT_FOUND;
                else wrong += st != PGDDS_OK || !kt_check(buf, len, kt_key_id(k), &v) || v != final_version(i);
            }
    T_CHECK_MSG(wrong == 0, "%d keys differ from their final state", wrong);
    uint64_t total = 0, held = kt_local_count(table), all_held = 0;
    size_t len = sizeof total;
    T_OK(pgdds_keytable_get(table, &counter, sizeof counter, &total, &len));
    uint64_t expect = (uint64_t)n * nthreads * rounds * keys_per_thread;
    T_CHECK_MSG(total == expect, "shared counter %llu, expected %llu", (unsigned long long)total,
                (unsigned long long)expect);
    T_OK(pgdds_allreduce(ctx, &held, &all_held, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK(all_held == (uint64_t)n * nthreads * keys_per_thread / 2 + 1);
    T_OK(pgdds_keytable_destroy(table));
    return t_finish(ctx, "keytable/threads");
}
