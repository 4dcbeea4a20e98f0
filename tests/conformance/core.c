/* Conformance of the core C ABI: every transport configuration must pass it unchanged.
 * Identity, the segment, blocking / _nbi / request-based put and get of many sizes, every
 * atomic (32 and 64 bit, fetching and not, with exact totals under contention), collectives
 * of every type and operation, and active messages of every size. */
#include "../harness.h"

#include <stdint.h>

static pgdds_context_t ctx;
static int me, n;

/* Every rank's allocation of `bytes`, gathered: out[r] is rank r's pointer. */
static pgdds_gptr_t *alloc_all(size_t bytes, size_t align)
{
    pgdds_gptr_t mine = PGDDS_GPTR_NULL;
    pgdds_gptr_t *all = calloc((size_t)n, sizeof *all);
    T_OK(pgdds_alloc(ctx, bytes, align, &mine));
    T_CHECK(mine != PGDDS_GPTR_NULL && pgdds_gptr_rank(mine) == me);
    T_OK(pgdds_allgather(ctx, &mine, all, sizeof mine));
    return all;
}

static void free_all(pgdds_gptr_t *all)
{
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_free(ctx, all[me]));
    free(all);
}

static void test_identity(void)
{
    T_CHECK(n >= 1 && me >= 0 && me < n);
    T_CHECK(pgdds_local_rank(ctx) >= 0 && pgdds_local_rank(ctx) < pgdds_local_nranks(ctx));
    T_CHECK(pgdds_transport_name(ctx) != NULL && pgdds_transport_name(ctx)[0]);
    T_CHECK(pgdds_version_string() != NULL && strlen(pgdds_version_string()) > 0);
    int64_t one = 1, sum = 0;
    T_OK(pgdds_allreduce(ctx, &one, &sum, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK(sum == n);
    size_t seg = 0;
    T_OK(pgdds_segment_size(ctx, (me + 1) % n, &seg));
    T_CHECK(seg > 4096);
}

static void test_alloc(void)
{
    pgdds_gptr_t a, b, c;
    T_OK(pgdds_alloc(ctx, 24, 0, &a));
    T_OK(pgdds_alloc(ctx, 5000, 4096, &b));
    T_CHECK(pgdds_gptr_offset(b) % 4096 == 0);
    T_CHECK(a != b);
    void *la = pgdds_gptr_to_local(ctx, a);
    T_CHECK(la != NULL);
    pgdds_gptr_t back = PGDDS_GPTR_NULL;
    T_OK(pgdds_gptr_from_local(ctx, la, &back));
    T_CHECK(back == a);
    T_CHECK(pgdds_gptr_add(pgdds_gptr_add(a, 100), -100) == a);
    T_OK(pgdds_free(ctx, a));
    T_OK(pgdds_alloc(ctx, 24, 0, &c)); /* reuse after free */
    T_CHECK(c == a);
    T_OK(pgdds_free(ctx, c));
    T_OK(pgdds_free(ctx, b));
}

/* Puts `bytes` of rank-specific pattern into the right neighbour, reads the left one back. */
static void test_put_get_size(size_t bytes, int mode)
{
    pgdds_gptr_t *all = alloc_all(bytes + 16, 64);
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    unsigned char *src = malloc(bytes + 1), *dst = malloc(bytes + 1);
    for (size_t i = 0; i < bytes; ++i) src[i] = t_pattern(me, i);
    memset(pgdds_gptr_to_local(ctx, all[me]), 0xee, bytes + 16);
    T_OK(pgdds_barrier(ctx));

    if (mode == 0) {
        T_OK(pgdds_put(ctx, all[right], src, bytes));
        T_OK(pgdds_flush(ctx));
    } else if (mode == 1) {
        /* in pieces, non-blocking-implicit */
        size_t piece = bytes / 4 + 1;
        for (size_t off = 0; off < bytes; off += piece) {
            size_t len = bytes - off < piece ? bytes - off : piece;
            T_OK(pgdds_put_nbi(ctx, pgdds_gptr_add(all[right], (int64_t)off), src + off, len));
        }
        T_OK(pgdds_flush(ctx));
    } else {
        pgdds_request_t req = NULL;
        T_OK(pgdds_put_nb(ctx, all[right], src, bytes, &req));
        int done = 0;
        for (int spins = 0; !done && spins < 1000; ++spins) T_OK(pgdds_test(ctx, req, &done));
        if (!done) T_OK(pgdds_wait(ctx, req));
        T_OK(pgdds_flush(ctx));
    }
    T_OK(pgdds_barrier(ctx));
    const unsigned char *mine = pgdds_gptr_to_local(ctx, all[me]);
    size_t bad = 0;
    for (size_t i = 0; i < bytes; ++i) bad += mine[i] != t_pattern(left, i);
    T_CHECK_MSG(bad == 0, "%zu of %zu bytes wrong after put (mode %d)", bad, bytes, mode);
    T_CHECK(mine[bytes] == 0xee); /* nothing written past the end */

    memset(dst, 0, bytes + 1);
    if (mode == 0) {
        T_OK(pgdds_get(ctx, dst, all[right], bytes));
    } else if (mode == 1) {
        T_OK(pgdds_get_nbi(ctx, dst, all[right], bytes));
        T_OK(pgdds_flush(ctx));
    } else {
        pgdds_request_t req = NULL;
        T_OK(pgdds_get_nb(ctx, dst, all[right], bytes, &req));
        T_OK(pgdds_wait(ctx, req));
    }
    bad = 0;
    for (size_t i = 0; i < bytes; ++i) bad += dst[i] != t_pattern(me, i);
    T_CHECK_MSG(bad == 0, "%zu of %zu bytes wrong after get (mode %d)", bad, bytes, mode);
    free(src);
    free(dst);
    free_all(all);
}

static void test_rma(void)
{
    const size_t sizes[] = {1, 7, 8, 64, 4095, 4096, 65537, 1 << 20};
    for (int mode = 0; mode < 3; ++mode)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) test_put_get_size(sizes[i], mode);

    /* Many small non-blocking puts to every rank, one flush. */
    const int per = 64;
    pgdds_gptr_t *all = alloc_all(sizeof(uint64_t) * (size_t)per * (size_t)n, 8);
    uint64_t *vals = malloc(sizeof(uint64_t) * (size_t)per * (size_t)n);
    for (int r = 0; r < n; ++r)
        for (int i = 0; i < per; ++i) {
            uint64_t *v = &vals[r * per + i];
            *v = ((uint64_t)me << 32) | (uint64_t)(r * per + i);
            T_OK(pgdds_put_nbi(ctx, pgdds_gptr_add(all[r], (int64_t)((me * per + i) * 8)), v, 8));
        }
    T_OK(pgdds_flush(ctx));
    T_OK(pgdds_barrier(ctx));
    const uint64_t *mine = pgdds_gptr_to_local(ctx, all[me]);
    int bad = 0;
    for (int s = 0; s < n; ++s)
        for (int i = 0; i < per; ++i) bad += mine[s * per + i] != (((uint64_t)s << 32) | (uint64_t)(me * per + i));
    T_CHECK_MSG(bad == 0, "%d of %d small puts lost or wrong", bad, n * per);
    free(vals);
    free_all(all);
}

/* pgdds_fence: each rank, round after round, puts a block stamped with the round into its right
 * neighbour's slot for that round, fences, and raises the neighbour's round counter with a
 * non-fetching atomic. A neighbour that sees the counter at k must find blocks 1..k complete,
 * with no flush in between: the fence alone orders the puts before the atomic. The blocks go
 * as blocking puts in even rounds and as _nbi puts (still in flight at the fence) in odd ones,
 * in pieces of several sizes, so that the large ones take the transports' other paths (CMA,
 * rendezvous, chunks). */
static uint8_t fence_stamp(uint64_t round, int rank, size_t i) { return (uint8_t)(round * 37 + (uint64_t)rank * 11 + i % 251); }

static void test_fence(void)
{
    enum { ROUNDS = 24 };
    static const size_t sizes[] = {8, 200, 5000, 70000};
    size_t slot = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) slot += sizes[i];
    pgdds_gptr_t *all = alloc_all(8 + ROUNDS * slot, 64);
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    uint8_t *mine = pgdds_gptr_to_local(ctx, all[me]);
    memset(mine, 0, 8 + ROUNDS * slot);
    uint8_t *blocks = malloc(ROUNDS * slot); /* _nbi sources stay untouched until the flush */
    T_OK(pgdds_barrier(ctx));
    uint64_t seen = 0, now = 0;
    size_t bad = 0;
    for (uint64_t k = 1; k <= ROUNDS + 1; ++k) {
        if (k <= ROUNDS) {
            uint8_t *block = blocks + (k - 1) * slot;
            for (size_t i = 0; i < slot; ++i) block[i] = fence_stamp(k, me, i);
            pgdds_gptr_t dst = pgdds_gptr_add(all[right], (int64_t)(8 + (k - 1) * slot));
            for (size_t i = 0, at = 0; i < sizeof sizes / sizeof sizes[0]; at += sizes[i++]) {
                pgdds_gptr_t to = pgdds_gptr_add(dst, (int64_t)at);
                T_OK(k % 2 ? pgdds_put_nbi(ctx, to, block + at, sizes[i]) : pgdds_put(ctx, to, block + at, sizes[i]));
            }
            T_OK(pgdds_fence(ctx));
            T_OK(pgdds_atomic_u64_nbi(ctx, all[right], PGDDS_AOP_ADD, 1));
        } else {
            T_OK(pgdds_flush(ctx));
            for (int spins = 0; now < ROUNDS && spins < 10000000; ++spins) {
                T_OK(pgdds_atomic_load_u64(ctx, all[me], &now));
                T_OK(pgdds_progress(ctx));
            }
        }
        /* Check what the left neighbour's counter promises so far. */
        T_OK(pgdds_atomic_load_u64(ctx, all[me], &now));
        for (; seen < now && seen < ROUNDS; ++seen)
            for (size_t i = 0; i < slot; ++i) bad += mine[8 + seen * slot + i] != fence_stamp(seen + 1, left, i);
    }
    T_CHECK_MSG(now == ROUNDS, "round counter %llu, expected %d", (unsigned long long)now, ROUNDS);
    T_CHECK_MSG(bad == 0, "%zu bytes were not there when the counter after them was", bad);
    free(blocks);
    free_all(all);
}

static void test_atomics(void)
{
    /* Words on rank 0: [0] u64 add counter, [1] u64 or-bits, [2] u64 cswap counter, [3] xor,
     * [4] and-mask, [5] swap, [6..7] u32 add counter and u32 cswap counter (one 8-byte word);
     * then the posted (_nbi) atomics' words: [8] u64 add counter, [9] u32 add counter and u32
     * or-bits; [10] on every rank: set by its left neighbour. */
    pgdds_gptr_t *all = alloc_all(11 * 8, 8);
    uint64_t *w = pgdds_gptr_to_local(ctx, all[me]);
    memset(w, 0, 11 * 8);
    w[4] = ~(uint64_t)0;
    T_OK(pgdds_barrier(ctx));
    pgdds_gptr_t base = all[0];
    const int iters = 200;
    uint64_t f;
    for (int i = 0; i < iters; ++i) {
        T_OK(pgdds_atomic_u64(ctx, base, PGDDS_AOP_ADD, 1, &f));
        T_OK(pgdds_atomic_u64(ctx, base, PGDDS_AOP_ADD, 0x100000000ull, NULL)); /* non-fetching */
        uint32_t f32;
        T_OK(pgdds_atomic_u32(ctx, pgdds_gptr_add(base, 48), PGDDS_AOP_ADD, 1, &f32));
        /* compare-swap increment loops: exact under contention */
        uint64_t cur = 0, old = 0;
        T_OK(pgdds_atomic_load_u64(ctx, pgdds_gptr_add(base, 16), &cur));
        for (;;) {
            T_OK(pgdds_atomic_cswap_u64(ctx, pgdds_gptr_add(base, 16), cur, cur + 1, &old));
            if (old == cur) break;
            cur = old;
        }
        uint32_t c32 = 0, o32 = 0;
        for (;;) {
            T_OK(pgdds_atomic_cswap_u32(ctx, pgdds_gptr_add(base, 52), c32, c32 + 1, &o32));
            if (o32 == c32) break;
            c32 = o32;
        }
    }
    /* Bitwise, fetching: the value written must be the new one (the UCX 1.13 shm bug writes the
     * old one for fetching AND/OR and zero for XOR). */
    uint64_t before = 0;
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(base, 8), PGDDS_AOP_OR, 1ull << me, &before));
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(base, 24), PGDDS_AOP_XOR, 0xf0ull << (me % 8), &before));
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(base, 24), PGDDS_AOP_XOR, 0x0full << (me % 8), NULL));
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(base, 32), PGDDS_AOP_AND, ~(1ull << me), &before));
    T_CHECK(before & (1ull << me)); /* my bit was still set before I cleared it */
    uint64_t swapped = 0;
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(base, 40), PGDDS_AOP_SWAP, (uint64_t)me + 1, &swapped));
    T_CHECK(swapped <= (uint64_t)n);
    T_OK(pgdds_barrier(ctx));

    uint64_t total = (uint64_t)n * iters;
    uint64_t v[8];
    T_OK(pgdds_get(ctx, v, base, sizeof v));
    T_CHECK_MSG(v[0] == (total | (total << 32)), "add counter %#llx, expected %#llx", (unsigned long long)v[0],
                (unsigned long long)(total | (total << 32)));
    T_CHECK_MSG(v[1] == (n >= 64 ? ~0ull : (1ull << n) - 1), "or bits %#llx", (unsigned long long)v[1]);
    T_CHECK_MSG(v[2] == total, "cswap counter %llu, expected %llu", (unsigned long long)v[2], (unsigned long long)total);
    uint64_t xor_expected = 0;
    for (int r = 0; r < n; ++r) xor_expected ^= (0xf0ull << (r % 8)) ^ (0x0full << (r % 8));
    T_CHECK_MSG(v[3] == xor_expected, "xor %#llx, expected %#llx", (unsigned long long)v[3],
                (unsigned long long)xor_expected);
    uint64_t and_expected = ~(uint64_t)0;
    for (int r = 0; r < n; ++r) and_expected &= ~(1ull << r);
    T_CHECK_MSG(v[4] == and_expected, "and %#llx, expected %#llx", (unsigned long long)v[4],
                (unsigned long long)and_expected);
    T_CHECK(v[5] >= 1 && v[5] <= (uint64_t)n);
    uint32_t u32[2];
    memcpy(u32, &v[6], sizeof u32);
    T_CHECK_MSG(u32[0] == (uint32_t)total, "u32 add %u, expected %llu", u32[0], (unsigned long long)total);
    T_CHECK_MSG(u32[1] == (uint32_t)total, "u32 cswap %u, expected %llu", u32[1], (unsigned long long)total);

    /* Posted atomics: many in flight, every one applied by the issuer's next flush. */
    for (int i = 0; i < iters; ++i) {
        T_OK(pgdds_atomic_u64_nbi(ctx, pgdds_gptr_add(base, 64), PGDDS_AOP_ADD, 1));
        T_OK(pgdds_atomic_u32_nbi(ctx, pgdds_gptr_add(base, 72), PGDDS_AOP_ADD, 1));
    }
    T_OK(pgdds_atomic_u32_nbi(ctx, pgdds_gptr_add(base, 76), PGDDS_AOP_OR, 1u << (me % 32)));
    pgdds_gptr_t right = pgdds_gptr_add(all[(me + 1) % n], 80);
    T_OK(pgdds_atomic_u64_nbi(ctx, right, PGDDS_AOP_SWAP, (uint64_t)me + 1));
    T_OK(pgdds_flush(ctx));
    uint64_t set = 0;
    T_OK(pgdds_atomic_load_u64(ctx, right, &set)); /* visible to the issuer once it flushed */
    T_CHECK_MSG(set == (uint64_t)me + 1, "posted swap left %llu, expected %d", (unsigned long long)set, me + 1);
    T_OK(pgdds_barrier(ctx));
    uint64_t posted[2];
    T_OK(pgdds_get(ctx, posted, pgdds_gptr_add(base, 64), sizeof posted));
    memcpy(u32, &posted[1], sizeof u32);
    uint32_t or_expected = 0;
    for (int r = 0; r < n; ++r) or_expected |= 1u << (r % 32);
    T_CHECK_MSG(posted[0] == total, "posted u64 add %llu, expected %llu", (unsigned long long)posted[0],
                (unsigned long long)total);
    T_CHECK_MSG(u32[0] == (uint32_t)total, "posted u32 add %u, expected %llu", u32[0], (unsigned long long)total);
    T_CHECK_MSG(u32[1] == or_expected, "posted u32 or %#x, expected %#x", u32[1], or_expected);
    T_CHECK(w[10] == (uint64_t)((me + n - 1) % n) + 1);

    /* 32-bit bitwise ops on both halves of one word are independent. */
    T_OK(pgdds_barrier(ctx)); /* everyone has read the totals */
    uint32_t lo = 0;
    T_OK(pgdds_atomic_u32(ctx, pgdds_gptr_add(base, 48), PGDDS_AOP_OR, 0x80000000u, &lo));
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_get(ctx, u32, pgdds_gptr_add(base, 48), 8));
    T_CHECK(u32[0] == ((uint32_t)total | 0x80000000u));
    T_CHECK(u32[1] == (uint32_t)total);
    free_all(all);
}

static void test_fetch_values_exact(void)
{
    /* Every fetched value of a contended fetch-add appears exactly once. */
    pgdds_gptr_t *all = alloc_all(8, 8);
    *(uint64_t *)pgdds_gptr_to_local(ctx, all[me]) = 0;
    T_OK(pgdds_barrier(ctx));
    const int iters = 100;
    int total = n * iters;
    uint64_t *seen = calloc((size_t)total, sizeof *seen), *all_seen = calloc((size_t)total, sizeof *all_seen);
    for (int i = 0; i < iters; ++i) {
        uint64_t f = ~0ull;
        T_OK(pgdds_atomic_u64(ctx, all[n - 1], PGDDS_AOP_ADD, 1, &f));
        if (f < (uint64_t)total) seen[f] += 1;
        else T_CHECK_MSG(0, "fetched %llu out of range", (unsigned long long)f);
    }
    T_OK(pgdds_allreduce(ctx, seen, all_seen, (size_t)total, PGDDS_UINT64, PGDDS_OP_SUM));
    int dup = 0;
    for (int i = 0; i < total; ++i) dup += all_seen[i] != 1;
    T_CHECK_MSG(dup == 0, "%d fetched values missing or repeated", dup);
    free(seen);
    free(all_seen);
    free_all(all);
}

static void test_collectives(void)
{
    T_OK(pgdds_barrier(ctx));
    const size_t sizes[] = {0, 1, 1000, (5u << 20) + 3};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        for (int root = 0; root < n; root += (n > 2 ? n - 1 : 1)) {
            size_t bytes = sizes[s];
            unsigned char *buf = malloc(bytes + 1);
            for (size_t i = 0; i < bytes; ++i) buf[i] = me == root ? t_pattern(root, i) : 0;
            T_OK(pgdds_broadcast(ctx, buf, bytes, root));
            size_t bad = 0;
            for (size_t i = 0; i < bytes; ++i) bad += buf[i] != t_pattern(root, i);
            T_CHECK_MSG(bad == 0, "broadcast of %zu bytes from %d: %zu wrong", bytes, root, bad);
            free(buf);
        }
    }
    /* allreduce: every type and operation */
    {
        int32_t i32[3] = {me + 1, -me, me * 3}, o32[3];
        T_OK(pgdds_allreduce(ctx, i32, o32, 3, PGDDS_INT32, PGDDS_OP_SUM));
        T_CHECK(o32[0] == n * (n + 1) / 2 && o32[1] == -(n * (n - 1) / 2) && o32[2] == 3 * n * (n - 1) / 2);
        T_OK(pgdds_allreduce(ctx, i32, o32, 3, PGDDS_INT32, PGDDS_OP_MIN));
        T_CHECK(o32[0] == 1 && o32[1] == -(n - 1) && o32[2] == 0);
        T_OK(pgdds_allreduce(ctx, i32, o32, 3, PGDDS_INT32, PGDDS_OP_MAX));
        T_CHECK(o32[0] == n && o32[1] == 0 && o32[2] == 3 * (n - 1));
        int64_t i64 = (int64_t)1 << (40 + me % 8), o64;
        T_OK(pgdds_allreduce(ctx, &i64, &o64, 1, PGDDS_INT64, PGDDS_OP_BOR));
        int64_t bor = 0;
        for (int r = 0; r < n; ++r) bor |= (int64_t)1 << (40 + r % 8);
        T_CHECK(o64 == bor);
        uint32_t u = 0xffu ^ (1u << (me % 8)), uo;
        T_OK(pgdds_allreduce(ctx, &u, &uo, 1, PGDDS_UINT32, PGDDS_OP_BAND));
        uint32_t band = 0xff;
        for (int r = 0; r < n; ++r) band &= 0xffu ^ (1u << (r % 8));
        T_CHECK(uo == band);
        uint64_t x = 0x1111ull * (uint64_t)(me + 1), xo, xe = 0;
        for (int r = 0; r < n; ++r) xe ^= 0x1111ull * (uint64_t)(r + 1);
        T_OK(pgdds_allreduce(ctx, &x, &xo, 1, PGDDS_UINT64, PGDDS_OP_BXOR));
        T_CHECK(xo == xe);
        float f = 0.5f * (float)(me + 1), fo;
        T_OK(pgdds_allreduce(ctx, &f, &fo, 1, PGDDS_FLOAT, PGDDS_OP_SUM));
        T_CHECK(fo == 0.25f * (float)(n * (n + 1)));
        double d = (double)me - 0.5, dmin, dmax;
        T_OK(pgdds_allreduce(ctx, &d, &dmin, 1, PGDDS_DOUBLE, PGDDS_OP_MIN));
        T_OK(pgdds_allreduce(ctx, &d, &dmax, 1, PGDDS_DOUBLE, PGDDS_OP_MAX));
        T_CHECK(dmin == -0.5 && dmax == (double)n - 1.5);
        /* in place, large */
        size_t cnt = 300000;
        uint64_t *big = malloc(cnt * sizeof *big);
        for (size_t i = 0; i < cnt; ++i) big[i] = i + (uint64_t)me;
        T_OK(pgdds_allreduce(ctx, big, big, cnt, PGDDS_UINT64, PGDDS_OP_SUM));
        size_t bad = 0;
        for (size_t i = 0; i < cnt; ++i) bad += big[i] != (uint64_t)n * i + (uint64_t)(n * (n - 1) / 2);
        T_CHECK_MSG(bad == 0, "in-place allreduce: %zu wrong", bad);
        free(big);
    }
    /* allgather */
    {
        size_t per = 1000;
        unsigned char *in = malloc(per), *out = malloc(per * (size_t)n);
        for (size_t i = 0; i < per; ++i) in[i] = t_pattern(me, i);
        T_OK(pgdds_allgather(ctx, in, out, per));
        size_t bad = 0;
        for (int r = 0; r < n; ++r)
            for (size_t i = 0; i < per; ++i) bad += out[(size_t)r * per + i] != t_pattern(r, i);
        T_CHECK_MSG(bad == 0, "allgather: %zu wrong", bad);
        free(in);
        free(out);
    }
}

/* --- active messages -------------------------------------------------------------------- */
/* Atomic: with PGDDS_PROGRESS_THREAD=1 handlers run on the progress thread while the main
 * thread reads the counts. */
struct am_stats {
    _Atomic int64_t count;
    _Atomic int64_t bytes;
    _Atomic int64_t bad;
    _Atomic int64_t pongs;
};
static struct am_stats stats;
static uint32_t am_data, am_ping, am_pong;

static void on_data(pgdds_context_t c, int src, const void *payload, size_t size, void *arg)
{
    struct am_stats *s = arg;
    const unsigned char *p = payload;
    (void)c;
    s->count++;
    s->bytes += (int64_t)size;
    for (size_t i = 0; i < size; ++i)
        if (p[i] != t_pattern(src, i + size)) {
            s->bad++;
            break;
        }
}
static void on_ping(pgdds_context_t c, int src, const void *payload, size_t size, void *arg)
{
    (void)arg;
    /* replying from inside a handler is allowed */
    pgdds_status_t st = pgdds_am_send(c, src, am_pong, payload, size);
    if (st != PGDDS_OK) {
        fprintf(stderr, "FAIL rank %d: reply from a handler: %s\n", t_rank, pgdds_last_error());
        stats.bad++;
    }
}
static void on_pong(pgdds_context_t c, int src, const void *payload, size_t size, void *arg)
{
    (void)c, (void)src, (void)arg;
    if (size == sizeof(int) && *(const int *)payload == me) {
        stats.pongs++;
    } else {
        fprintf(stderr, "FAIL rank %d: pong of %zu bytes from %d is not mine\n", t_rank, size, src);
        stats.bad++;
    }
}

static void test_active_messages(void)
{
    T_OK(pgdds_am_register(ctx, on_data, &stats, &am_data));
    T_OK(pgdds_am_register(ctx, on_ping, NULL, &am_ping));
    T_OK(pgdds_am_register(ctx, on_pong, NULL, &am_pong));
    T_CHECK(am_data != am_ping && am_ping != am_pong);
    /* Every rank has stored the ids its handlers use before anyone sends. */
    T_OK(pgdds_barrier(ctx));
    const size_t sizes[] = {0, 1, 100, 4000, 4096, 20000, 300000};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    unsigned char *buf = malloc(300000 * 2);
    int64_t expect_bytes = 0;
    for (int s = 0; s < nsizes; ++s) {
        for (size_t i = 0; i < sizes[s]; ++i) buf[i] = t_pattern(me, i + sizes[s]);
        for (int r = 0; r < n; ++r) {
            T_OK(pgdds_am_send(ctx, r, am_data, buf, sizes[s]));
            expect_bytes += (int64_t)sizes[s];
        }
    }
    int ping = (me + 1) % n;
    T_OK(pgdds_am_send(ctx, ping, am_ping, &me, sizeof me));
    /* Everyone sends the same; wait until all arrived. */
    int64_t want = (int64_t)nsizes * n;
    for (long spins = 0; (stats.count < want || stats.pongs < 1) && spins < 200000000L; ++spins)
        T_OK(pgdds_progress(ctx));
    T_CHECK_MSG(stats.count == want, "received %lld of %lld messages", (long long)stats.count, (long long)want);
    T_CHECK_MSG(stats.bytes == expect_bytes, "received %lld of %lld bytes", (long long)stats.bytes,
                (long long)expect_bytes);
    T_CHECK(stats.bad == 0);
    T_CHECK(stats.pongs == 1);
    free(buf);
    T_OK(pgdds_barrier(ctx));
}

/* pgdds_net_counts: each kind of one-sided call to the next rank is counted exactly once, with
 * its bytes, on the network; nothing is counted where the next rank's memory is mapped. */
static void test_net_counts(void)
{
    pgdds_gptr_t *all = alloc_all(256, 64);
    pgdds_gptr_t peer = all[(me + 1) % n];
    int network = pgdds_gptr_to_local(ctx, peer) == NULL;
    unsigned char buf[100] = {0};
    uint64_t fetched;
    uint32_t old32;
    pgdds_request_t req;
    pgdds_net_counts_t before, after;
    T_OK(pgdds_net_counts(ctx, &before));
    T_OK(pgdds_put(ctx, peer, buf, 100));
    T_OK(pgdds_put_nbi(ctx, pgdds_gptr_add(peer, 100), buf, 50));
    T_OK(pgdds_put_nb(ctx, peer, buf, 8, &req));
    T_OK(pgdds_wait(ctx, req));
    T_OK(pgdds_get(ctx, buf, peer, 40));
    T_OK(pgdds_get_nb(ctx, buf, peer, 16, &req));
    T_OK(pgdds_wait(ctx, req));
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(peer, 192), PGDDS_AOP_ADD, 1, &fetched));
    T_OK(pgdds_atomic_u64(ctx, pgdds_gptr_add(peer, 192), PGDDS_AOP_ADD, 1, NULL));
    T_OK(pgdds_atomic_cswap_u32(ctx, pgdds_gptr_add(peer, 200), 0, 0, &old32));
    T_OK(pgdds_atomic_load_u64(ctx, pgdds_gptr_add(peer, 192), &fetched));
    T_OK(pgdds_atomic_u64_nbi(ctx, pgdds_gptr_add(peer, 208), PGDDS_AOP_OR, 1));
    T_OK(pgdds_atomic_u32_nbi(ctx, pgdds_gptr_add(peer, 216), PGDDS_AOP_XOR, 1));
    T_OK(pgdds_flush(ctx));
    T_OK(pgdds_net_counts(ctx, &after));
    uint64_t k = network ? 1 : 0;
    T_CHECK_MSG(after.puts - before.puts == 3 * k, "puts: %llu", (unsigned long long)(after.puts - before.puts));
    T_CHECK_MSG(after.put_bytes - before.put_bytes == 158 * k, "put bytes: %llu",
                (unsigned long long)(after.put_bytes - before.put_bytes));
    T_CHECK_MSG(after.gets - before.gets == 2 * k, "gets: %llu", (unsigned long long)(after.gets - before.gets));
    T_CHECK_MSG(after.get_bytes - before.get_bytes == 56 * k, "get bytes: %llu",
                (unsigned long long)(after.get_bytes - before.get_bytes));
    /* atomics take the transport on a mapped peer too once the job spans nodes (one atomicity
     * domain per job) */
    uint64_t ka = network || pgdds_local_nranks(ctx) != n ? 1 : 0;
    T_CHECK_MSG(after.atomics - before.atomics == 4 * ka, "atomics: %llu",
                (unsigned long long)(after.atomics - before.atomics));
    T_CHECK_MSG(after.atomics_posted - before.atomics_posted == 2 * ka, "posted atomics: %llu",
                (unsigned long long)(after.atomics_posted - before.atomics_posted));
    /* a flush is counted wherever a network transport is open, whatever it had to flush */
    int flushed = strncmp(pgdds_transport_name(ctx), "shm", 3) != 0;
    T_CHECK_MSG(after.flushes - before.flushes == (uint64_t)flushed, "flushes: %llu",
                (unsigned long long)(after.flushes - before.flushes));
    for (size_t i = 0; i < sizeof after.reserved / sizeof after.reserved[0]; ++i) T_CHECK(after.reserved[i] == 0);
    free_all(all);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    test_identity();
    test_alloc();
    test_rma();
    test_fence();
    test_atomics();
    test_fetch_values_exact();
    test_collectives();
    test_active_messages();
    test_net_counts();
    return t_finish(ctx, "conformance/core");
}
