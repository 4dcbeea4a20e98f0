/* Atomics across nodes with the on-node path (run by split-nodes and run-cluster): ranks of one
 * node apply CPU atomics to each other's segments while ranks of other nodes send the
 * transport's atomics to the same words, and the totals must still be exact.
 * T_NODE_CPU_ATOMICS=1 (or 0) says which domain the configuration must choose for
 * the peers a rank maps: CPU atomics (no transport atomic counted) or the transport's. */
#include "../harness.h"

#include <stdint.h>

static pgdds_context_t ctx;
static int me, n;

/* T_ITERS (default 500) fetch-adds per rank, a fifth as many compare-and-swap increments. */
static int ITERS = 500, CSWAPS = 100;

/* Words on rank 0: [0] fetch-add counter, [1] compare-and-swap counter, [2] OR of rank bits,
 * [3] two 32-bit add counters. */
static void contend(pgdds_gptr_t base)
{
    const int total = n * ITERS;
    uint64_t *seen = calloc((size_t)total, sizeof *seen), *all_seen = calloc((size_t)total, sizeof *all_seen);
    for (int i = 0; i < ITERS; ++i) {
        uint64_t f = ~0ull;
        T_OK(pgdds_atomic_u64(ctx, base, PGDDS_AOP_ADD, 1, &f));
        if (f < (uint64_t)total) seen[f] += 1;
        else T_CHECK_MSG(0, "fetched %llu out of range", (unsigned long long)f);
        T_OK(pgdds_atomic_u32(ctx, pgdds_gptr_add(base, 24), PGDDS_AOP_ADD, 1, NULL));
        T_OK(pgdds_atomic_u32(ctx, pgdds_gptr_add(base, 28), PGDDS_AOP_ADD, 3, NULL));
    }
    for (int i = 0; i < CSWAPS; ++i) {
        uint64_t cur = 0, old = 1;
        T_OK(pgdds_atomic_load_u64(ctx, pgdds_gptr_add(base, 8), &cur));
        for (;;) {
            T_OK(pgdds_atomic_cswap_u64(ctx, pgdds_gptr_add(base, 8), cur, cur + 1, &old));
            if (old == cur) break;
            cur = old;
        }
    }
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(base, 16), PGDDS_AOP_OR, 1ull << (me % 64), NULL));
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_allreduce(ctx, seen, all_seen, (size_t)total, PGDDS_UINT64, PGDDS_OP_SUM));
    int dup = 0;
    for (int i = 0; i < total; ++i) dup += all_seen[i] != 1;
    T_CHECK_MSG(dup == 0, "%d fetched values missing or repeated", dup);
    if (me == 0) {
        const uint64_t *w = pgdds_gptr_to_local(ctx, base);
        const uint32_t *h = (const uint32_t *)(w + 3);
        uint64_t bits = 0;
        for (int r = 0; r < n; ++r) bits |= 1ull << (r % 64);
        T_CHECK_MSG(w[0] == (uint64_t)total, "fetch-add total %llu, expected %d", (unsigned long long)w[0], total);
        T_CHECK_MSG(w[1] == (uint64_t)n * CSWAPS, "compare-and-swap total %llu, expected %d",
                    (unsigned long long)w[1], n * CSWAPS);
        T_CHECK(w[2] == bits);
        T_CHECK_MSG(h[0] == (uint32_t)total && h[1] == 3u * (uint32_t)total, "32-bit totals %u and %u", h[0], h[1]);
    }
    free(seen);
    free(all_seen);
}

/* Atomics on a mapped peer go through the transport or not, as the configuration says. */
static void check_domain(pgdds_gptr_t *all, int expect_cpu)
{
    for (int p = 0; p < n; ++p) {
        if (p == me) continue;
        int mapped = pgdds_gptr_to_local(ctx, all[p]) != NULL;
        pgdds_net_counts_t before, after;
        T_OK(pgdds_net_counts(ctx, &before));
        for (int i = 0; i < 10; ++i) T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(all[p], 32), PGDDS_AOP_ADD, 1, NULL));
        T_OK(pgdds_net_counts(ctx, &after));
        uint64_t sent = after.atomics - before.atomics;
        uint64_t want = mapped && expect_cpu ? 0 : 10;
        T_CHECK_MSG(sent == want, "%llu of 10 atomics on rank %d (%s) went through the transport, expected %llu",
                    (unsigned long long)sent, p, mapped ? "mapped" : "not mapped", (unsigned long long)want);
    }
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    if (getenv("T_ITERS") && atoi(getenv("T_ITERS")) > 0) {
        ITERS = atoi(getenv("T_ITERS"));
        CSWAPS = ITERS / 5;
    }
    pgdds_gptr_t mine = PGDDS_GPTR_NULL;
    pgdds_gptr_t *all = calloc((size_t)n, sizeof *all);
    T_OK(pgdds_alloc(ctx, 64, 8, &mine));
    memset(pgdds_gptr_to_local(ctx, mine), 0, 64);
    T_OK(pgdds_allgather(ctx, &mine, all, sizeof mine));
    T_OK(pgdds_barrier(ctx));
    contend(all[0]);
    const char *expect = getenv("T_NODE_CPU_ATOMICS");
    if (expect) check_domain(all, atoi(expect));
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_free(ctx, mine));
    free(all);
    return t_finish(ctx, "cluster/mixed-atomics");
}
