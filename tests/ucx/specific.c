/* What the UCX transport does that the core conformance test cannot see:
 * - fetching AND/OR/XOR on UCX's shared-memory transports, with values that expose a wrong
 *   written result (UCX 1.13.1 keeps the old value for AND/OR and writes 0 for XOR), alone and
 *   contended, 32 and 64 bit;
 * - active-message packets of rendezvous size: around the 1 MiB packet limit, several packets
 *   per message, and a burst large enough to hit the per-VCI in-flight limit (16 MiB);
 * - on ucx/sm, operations on a peer that does not call the library at all: they complete
 *   because its segment is UCX-allocated and mapped here (ucp_rkey_ptr), not emulated. */
#include "../harness.h"

#include <stdint.h>

static pgdds_context_t ctx;
static int me, n;

static pgdds_gptr_t *alloc_all(size_t bytes)
{
    pgdds_gptr_t mine = PGDDS_GPTR_NULL;
    pgdds_gptr_t *all = calloc((size_t)n, sizeof *all);
    T_OK(pgdds_alloc(ctx, bytes, 64, &mine));
    memset(pgdds_gptr_to_local(ctx, mine), 0, bytes);
    T_OK(pgdds_allgather(ctx, &mine, all, sizeof mine));
    return all;
}

static void free_all(pgdds_gptr_t *all)
{
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_free(ctx, all[me]));
    free(all);
}

/* Each rank applies every fetching bitwise operation once to words of its right neighbour,
 * which checks both what was fetched (sent back to it) and what was written. */
static void test_fetch_bitwise_exact(void)
{
    const uint64_t init = 0xff00ff00ff00ff00ull, operand = 0x0ff00ff00ff00ff0ull;
    const uint32_t init32 = 0xff00ff00u, operand32 = 0x0ff00ff0u, other32 = 0x12345678u;
    pgdds_gptr_t *all = alloc_all(16 * 8);
    uint64_t *w = pgdds_gptr_to_local(ctx, all[me]);
    for (int i = 0; i < 6; ++i) w[i] = init;
    for (int i = 6; i < 12; ++i) {
        uint32_t halves[2] = {init32, other32};
        memcpy(&w[i], halves, sizeof halves);
    }
    T_OK(pgdds_barrier(ctx));

    pgdds_gptr_t t = all[(me + 1) % n];
    const pgdds_aop_t ops[3] = {PGDDS_AOP_AND, PGDDS_AOP_OR, PGDDS_AOP_XOR};
    for (int k = 0; k < 3; ++k) {
        uint64_t f = 0;
        uint32_t f32 = 0;
        T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(t, 8 * k), ops[k], operand, &f));          /* fetching */
        T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(t, 8 * (k + 3)), ops[k], operand, NULL));  /* not */
        T_CHECK_MSG(f == init, "fetching op %d fetched %#llx", k, (unsigned long long)f);
        T_OK(pgdds_atomic_u32(ctx, pgdds_gptr_add(t, 8 * (k + 6)), ops[k], operand32, &f32)); /* low half */
        T_CHECK_MSG(f32 == init32, "fetching 32-bit op %d fetched %#x", k, f32);
        T_OK(pgdds_atomic_u32(ctx, pgdds_gptr_add(t, 8 * (k + 9) + 4), ops[k], operand32, &f32)); /* high half */
        T_CHECK_MSG(f32 == other32, "fetching 32-bit op %d (high half) fetched %#x", k, f32);
    }
    T_OK(pgdds_flush(ctx));
    T_OK(pgdds_barrier(ctx));

    const uint64_t want[3] = {init & operand, init | operand, init ^ operand};
    const uint32_t want32[3] = {init32 & operand32, init32 | operand32, init32 ^ operand32};
    const uint32_t want_hi[3] = {other32 & operand32, other32 | operand32, other32 ^ operand32};
    for (int k = 0; k < 3; ++k) {
        T_CHECK_MSG(w[k] == want[k], "fetching op %d wrote %#llx, expected %#llx", k, (unsigned long long)w[k],
                    (unsigned long long)want[k]);
        T_CHECK_MSG(w[k + 3] == want[k], "op %d wrote %#llx, expected %#llx", k, (unsigned long long)w[k + 3],
                    (unsigned long long)want[k]);
        uint32_t lo[2], hi[2];
        memcpy(lo, &w[k + 6], sizeof lo);
        memcpy(hi, &w[k + 9], sizeof hi);
        T_CHECK_MSG(lo[0] == want32[k] && lo[1] == other32, "fetching 32-bit op %d wrote %#x:%#x", k, lo[1], lo[0]);
        T_CHECK_MSG(hi[0] == init32 && hi[1] == want_hi[k], "fetching 32-bit op %d (high) wrote %#x:%#x", k, hi[1],
                    hi[0]);
    }
    free_all(all);
}

/* Every rank toggles its own bit of one word on rank 0 with fetching XOR, sets its bit of a
 * second word with fetching OR and clears it from a third with fetching AND: what each rank
 * fetches about its own bit is known exactly, however the ranks interleave. */
static void test_fetch_bitwise_contended(void)
{
    pgdds_gptr_t *all = alloc_all(4 * 8);
    uint64_t *w = pgdds_gptr_to_local(ctx, all[me]);
    w[2] = ~(uint64_t)0;
    w[3] = 0xffffffffu; /* 32-bit AND target in the low half, 0 above it */
    T_OK(pgdds_barrier(ctx));
    const uint64_t bit = 1ull << (me % 32);
    const int iters = 101;
    int wrong = 0;
    for (int i = 0; i < iters; ++i) {
        uint64_t f = 0;
        T_OK(pgdds_atomic_u64(ctx, all[0], PGDDS_AOP_XOR, bit, &f));
        wrong += ((f & bit) != 0) != (i % 2 == 1);
    }
    T_CHECK_MSG(wrong == 0, "%d of %d fetching XORs saw a wrong own bit", wrong, iters);
    uint64_t f = 0;
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(all[0], 8), PGDDS_AOP_OR, bit, &f));
    T_CHECK(!(f & bit));
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(all[0], 16), PGDDS_AOP_AND, ~bit, &f));
    T_CHECK(f & bit);
    uint32_t f32 = 0;
    T_OK(pgdds_atomic_u32(ctx, pgdds_gptr_add(all[0], 24), PGDDS_AOP_AND, ~(uint32_t)bit, &f32));
    T_CHECK(f32 & (uint32_t)bit);
    T_OK(pgdds_barrier(ctx));

    uint64_t mask = 0;
    for (int r = 0; r < n; ++r) mask |= 1ull << (r % 32);
    uint64_t v[4];
    T_OK(pgdds_get(ctx, v, all[0], sizeof v));
    T_CHECK_MSG(v[0] == mask, "contended XOR left %#llx, expected %#llx", (unsigned long long)v[0],
                (unsigned long long)mask);
    T_CHECK_MSG(v[1] == mask, "contended OR left %#llx", (unsigned long long)v[1]);
    T_CHECK_MSG(v[2] == ~mask, "contended AND left %#llx", (unsigned long long)v[2]);
    T_CHECK_MSG(v[3] == (0xffffffffu & ~mask), "contended 32-bit AND left %#llx", (unsigned long long)v[3]);
    free_all(all);
}

/* --- active messages of rendezvous size ----------------------------------------------------- */
struct am_stats {
    int64_t count, bytes, bad;
};
static struct am_stats stats;

static void on_data(pgdds_context_t c, int src, const void *payload, size_t size, void *arg)
{
    const unsigned char *p = payload;
    (void)c, (void)arg;
    stats.count++;
    stats.bytes += (int64_t)size;
    for (size_t i = 0; i < size; i += 997)
        if (p[i] != t_pattern(src, i + size)) {
            stats.bad++;
            return;
        }
    if (size && p[size - 1] != t_pattern(src, size - 1 + size)) stats.bad++;
}

static void test_am_rendezvous(void)
{
    const size_t packet = (size_t)1 << 20, header = 24;
    const size_t sizes[] = {20000, packet - header - 1, packet - header, packet - header + 1, 3 * packet + 5};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    /* A burst to the right neighbour big enough to exceed the 16 MiB a VCI keeps in flight. */
    const int burst = 24;
    const size_t burst_size = packet - header;
    uint32_t id;
    T_OK(pgdds_am_register(ctx, on_data, NULL, &id));
    unsigned char *buf = malloc(2 * (3 * packet + 5));
    int64_t want_count = 0, want_bytes = 0;
    for (int s = 0; s < nsizes; ++s) {
        for (size_t i = 0; i < sizes[s]; ++i) buf[i] = t_pattern(me, i + sizes[s]);
        for (int r = 0; r < n; ++r) T_OK(pgdds_am_send(ctx, r, id, buf, sizes[s]));
        want_count += n;
        want_bytes += (int64_t)sizes[s] * n;
    }
    for (size_t i = 0; i < burst_size; ++i) buf[i] = t_pattern(me, i + burst_size);
    for (int k = 0; k < burst; ++k) T_OK(pgdds_am_send(ctx, (me + 1) % n, id, buf, burst_size));
    want_count += burst;
    want_bytes += (int64_t)burst * (int64_t)burst_size;

    for (long spins = 0; stats.count < want_count && spins < 100000000L; ++spins) T_OK(pgdds_progress(ctx));
    T_CHECK_MSG(stats.count == want_count, "received %lld of %lld messages", (long long)stats.count,
                (long long)want_count);
    T_CHECK_MSG(stats.bytes == want_bytes, "received %lld of %lld bytes", (long long)stats.bytes,
                (long long)want_bytes);
    T_CHECK_MSG(stats.bad == 0, "%lld messages with wrong contents", (long long)stats.bad);
    free(buf);
    T_OK(pgdds_barrier(ctx));
}

/* Pairs (even, odd): the odd rank spins on its own memory without calling the library while
 * the even one reads, writes and updates its segment, then wakes it with a put. */
static void test_one_sided(void)
{
    pgdds_gptr_t *all = alloc_all(8 * 8);
    volatile uint64_t *w = pgdds_gptr_to_local(ctx, all[me]);
    w[1] = 40;
    w[2] = 0x1111;
    w[3] = 0x5555;
    T_OK(pgdds_barrier(ctx));
    if (me % 2 == 0 && me + 1 < n) {
        pgdds_gptr_t peer = all[me + 1];
        uint64_t v = 0, f = 0;
        T_OK(pgdds_get(ctx, &v, pgdds_gptr_add(peer, 24), 8));
        T_CHECK(v == 0x5555);
        T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(peer, 8), PGDDS_AOP_ADD, 2, &f));
        T_CHECK(f == 40);
        T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(peer, 16), PGDDS_AOP_OR, 0x2222, &f));
        T_CHECK(f == 0x1111);
        uint64_t data = 0xabcdef;
        T_OK(pgdds_put(ctx, pgdds_gptr_add(peer, 32), &data, 8));
        T_OK(pgdds_flush(ctx));
        uint64_t wake = 1;
        T_OK(pgdds_put(ctx, peer, &wake, 8));
        T_OK(pgdds_flush(ctx));
    } else if (me % 2 == 1) {
        double deadline = t_seconds() + 20.0;
        while (w[0] == 0 && t_seconds() < deadline) {
        }
        T_CHECK_MSG(w[0] == 1, "rank %d's operations did not complete while this rank stayed out of the library",
                    me - 1);
        T_CHECK(w[1] == 42 && w[2] == 0x3333 && w[4] == 0xabcdef);
    }
    free_all(all);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    const char *tp = pgdds_transport_name(ctx);
    if (strncmp(tp, "ucx/", 4) != 0) {
        if (me == 0) printf("ucx/specific: skipped: the transport is %s\n", tp);
        pgdds_finalize(ctx);
        return 77;
    }
    test_fetch_bitwise_exact();
    test_fetch_bitwise_contended();
    test_am_rendezvous();
    /* Only UCX's shared-memory transports reach a UCX-allocated segment without the target. */
    if (strncmp(tp, "ucx/sm", 6) == 0) test_one_sided();
    return t_finish(ctx, "ucx/specific");
}
