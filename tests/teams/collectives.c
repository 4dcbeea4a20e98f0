/* The collectives on any team: all-to-all(-v), allgather-v, reduce to a root, vector reductions of
 * every type and operation, with exact results; and calls that differ between ranks (kind, op,
 * root, size, counts), which fail on every rank with outputs untouched. Each runs on the world and
 * on the team of the odd ranks (or the world again on one rank). */
#include "../harness.h"

#include <stdint.h>

static pgdds_context_t ctx;
static int me, n;

static void test_alltoall(pgdds_team_t t, int tr, int ts)
{
    enum { W = 3 };
    int64_t in[64 * W] = {0}, out[64 * W];
    for (int r = 0; r < ts; ++r)
        for (int k = 0; k < W; ++k) in[r * W + k] = 1000000 * tr + 1000 * r + k;
    T_OK(pgdds_team_alltoall(t, in, out, W * sizeof(int64_t)));
    for (int r = 0; r < ts; ++r)
        for (int k = 0; k < W; ++k)
            T_CHECK_MSG(out[r * W + k] == 1000000 * r + 1000 * tr + k, "block %d word %d: %lld", r, k,
                        (long long)out[r * W + k]);
    /* Large blocks travel in pieces (over 16 MiB in all on 2+ ranks). */
    size_t big = ((size_t)17 << 20) / (size_t)ts + 5;
    unsigned char *bin = malloc(big * (size_t)ts), *bout = malloc(big * (size_t)ts);
    T_CHECK(bin && bout);
    if (bin && bout) {
        for (int r = 0; r < ts; ++r)
            for (size_t i = 0; i < big; i += 4099) bin[(size_t)r * big + i] = (unsigned char)(tr * 31 + r * 7 + i);
        T_OK(pgdds_team_alltoall(t, bin, bout, big));
        size_t bad = 0;
        for (int r = 0; r < ts; ++r)
            for (size_t i = 0; i < big; i += 4099) bad += bout[(size_t)r * big + i] != (unsigned char)(r * 31 + tr * 7 + i);
        T_CHECK_MSG(bad == 0, "%zu bytes wrong", bad);
    }
    free(bin);
    free(bout);
}

/* Into symmetric memory (the same block of every rank's segment, as pgdds_alloc_all gives), an
 * all-to-all of blocks of 2 KiB and more is put straight into the outputs; a block that is not
 * symmetric on some rank (not in the segment, or at another offset) takes the messages. Either
 * way every byte arrives; and calls that differ fail with the outputs untouched. */
static unsigned char *sym; /* world-symmetric, sym_bytes per rank */
static size_t sym_bytes;

static void test_alltoall_symmetric(pgdds_team_t t, int tr, int ts)
{
    const size_t sizes[] = {2048, 4096 + 8, (size_t)1 << 20};
    unsigned char *heap = malloc(sym_bytes);
    unsigned char *in = malloc(sym_bytes / 2);
    T_CHECK(heap && in);
    for (int where = 0; heap && in && where < 3; ++where) {
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; ++z) {
            const size_t b = sizes[z];
            if (b * (size_t)ts > sym_bytes / 2) continue;
            /* 0: symmetric; 1: the last rank's output is on its heap; 2: at another offset on odd
             * team ranks. */
            unsigned char *out = where == 1 && tr == ts - 1 ? heap : sym + (where == 2 && tr % 2 ? 64 : 0);
            for (int r = 0; r < ts; ++r)
                for (size_t i = 0; i < b; ++i) in[(size_t)r * b + i] = (unsigned char)(tr * 37 + r * 11 + i * 3 + z);
            memset(out, 0xee, b * (size_t)ts);
            T_OK(pgdds_team_alltoall(t, in, out, b));
            size_t bad = 0;
            for (int r = 0; r < ts; ++r)
                for (size_t i = 0; i < b; ++i)
                    bad += out[(size_t)r * b + i] != (unsigned char)(r * 37 + tr * 11 + i * 3 + z);
            T_CHECK_MSG(bad == 0, "placement %d, %zu bytes per pair: %zu bytes wrong", where, b, bad);
        }
    }
    if (ts > 1 && heap && in) {
        /* Sizes that differ, symmetric outputs: refused everywhere before any rank writes. */
        memset(sym, 0x5a, 2 * 8192 * (size_t)ts);
        T_STATUS(pgdds_team_alltoall(t, in, sym, tr == ts - 1 ? 4096 : 8192), PGDDS_ERR_INVALID_ARG);
        size_t touched = 0;
        for (size_t i = 0; i < 2 * 8192 * (size_t)ts; ++i) touched += sym[i] != 0x5a;
        T_CHECK_MSG(touched == 0, "%zu bytes of the output changed by a refused call", touched);
        T_OK(pgdds_team_barrier(t));
    }
    free(heap);
    free(in);
}

/* Rank i sends i + j + 1 words to rank j, at reversed displacements: into private memory (by
 * messages), and into the segment at an offset that differs between ranks (on a node, copied
 * straight into the outputs). */
static void test_alltoallv(pgdds_team_t t, int tr, int ts)
{
    size_t sc[64] = {0}, sd[64] = {0}, rc[64] = {0}, rd[64] = {0}, at = 0;
    int32_t in[1024] = {0}, private_out[1024];
    for (int j = ts - 1; j >= 0; --j) { /* blocks in reverse order */
        sc[j] = (size_t)(tr + j + 1) * sizeof(int32_t);
        sd[j] = at;
        for (int k = 0; k < tr + j + 1; ++k) in[at / sizeof(int32_t) + (size_t)k] = 10000 * tr + 100 * j + k;
        at += sc[j];
    }
    at = 0;
    for (int i = 0; i < ts; ++i) {
        rc[i] = (size_t)(i + tr + 1) * sizeof(int32_t);
        rd[i] = at;
        at += rc[i];
    }
    for (int where = 0; where < 2; ++where) {
        int32_t *out = where == 0 ? private_out : (int32_t *)(sym + (tr % 2 ? 64 : 0));
        for (size_t i = 0; i < 1024; ++i) out[i] = -1;
        T_OK(pgdds_team_alltoallv(t, in, sc, sd, out, rc, NULL));
        for (int i = 0; i < ts; ++i)
            for (int k = 0; k < i + tr + 1; ++k)
                T_CHECK_MSG(out[rd[i] / sizeof(int32_t) + (size_t)k] == 10000 * i + 100 * tr + k,
                            "output %d: word %d from rank %d is wrong", where, k, i);
        /* One pair disagrees (the last rank expects one byte more from rank 0): every rank fails,
         * and no output changes. */
        for (size_t i = 0; i < 1024; ++i) out[i] = -1;
        if (tr == ts - 1) rc[0] += 1;
        T_STATUS(pgdds_team_alltoallv(t, in, sc, sd, out, rc, NULL), PGDDS_ERR_INVALID_ARG);
        if (tr == ts - 1) rc[0] -= 1;
        T_CHECK(strstr(pgdds_last_error(), "counts do not match") != NULL);
        size_t touched = 0;
        for (size_t i = 0; i < 1024; ++i) touched += out[i] != -1;
        T_CHECK_MSG(touched == 0, "output %d: %zu words written by a failed all-to-all-v", where, touched);
        T_OK(pgdds_team_barrier(t)); /* no rank reuses its output while another may write it */
    }
}

static void test_allgatherv(pgdds_team_t t, int tr, int ts)
{
    size_t counts[64], displs[64];
    int16_t in[80], out[64 * 80];
    for (int r = 0; r < ts; ++r) {
        counts[r] = (size_t)(2 * r + 1) * sizeof(int16_t); /* rank r gives 2r+1 values */
        displs[r] = (size_t)(ts - 1 - r) * 80 * sizeof(int16_t);
    }
    for (int k = 0; k < 2 * tr + 1; ++k) in[k] = (int16_t)(100 * tr + k);
    T_OK(pgdds_team_allgatherv(t, in, out, counts, displs));
    for (int r = 0; r < ts; ++r)
        for (int k = 0; k < 2 * r + 1; ++k) T_CHECK(out[(ts - 1 - r) * 80 + k] == 100 * r + k);
    /* Packed. */
    T_OK(pgdds_team_allgatherv(t, in, out, counts, NULL));
    for (int r = 0, at = 0; r < ts; at += 2 * r + 1, ++r)
        for (int k = 0; k < 2 * r + 1; ++k) T_CHECK(out[at + k] == 100 * r + k);
    /* Counts that differ between ranks (same total where there are two ranks): all fail. */
    if (ts > 1) {
        for (int i = 0; i < 64 * 80; ++i) out[i] = -7;
        if (tr == 0) {
            counts[0] += 2;
            counts[1] -= 2;
        }
        T_STATUS(pgdds_team_allgatherv(t, in, out, counts, NULL), PGDDS_ERR_INVALID_ARG);
        T_CHECK(strstr(pgdds_last_error(), "do not match") != NULL);
        int touched = 0;
        for (int i = 0; i < 64 * 80; ++i) touched += out[i] != -7;
        T_CHECK(touched == 0);
    }
}

/* Every type with SUM, MIN, MAX (and the bitwise ops on integers), as vectors, all-reduced and
 * reduced to each root. Values stay small enough to be exact in float. */
static void test_reductions(pgdds_team_t t, int tr, int ts)
{
    enum { N = 37 };
    const pgdds_dtype_t types[] = {PGDDS_INT32, PGDDS_INT64, PGDDS_UINT32, PGDDS_UINT64, PGDDS_FLOAT, PGDDS_DOUBLE};
    for (int ti = 0; ti < 6; ++ti) {
        pgdds_dtype_t dt = types[ti];
        int is_float = dt == PGDDS_FLOAT || dt == PGDDS_DOUBLE;
        for (int op = PGDDS_OP_SUM; op <= (is_float ? PGDDS_OP_MAX : PGDDS_OP_BXOR); ++op) {
            double in_d[N], want[N];
            for (int i = 0; i < N; ++i) {
                in_d[i] = (double)((tr * 13 + i * 5) % 29 + 1);
                want[i] = op == PGDDS_OP_SUM ? 0 : op == PGDDS_OP_MIN ? 1e9 : 0;
                for (int r = 0; r < ts; ++r) {
                    double v = (double)((r * 13 + i * 5) % 29 + 1);
                    unsigned long long w = (unsigned long long)want[i], u = (unsigned long long)v;
                    switch (op) {
                    case PGDDS_OP_SUM: want[i] += v; break;
                    case PGDDS_OP_MIN: want[i] = v < want[i] ? v : want[i]; break;
                    case PGDDS_OP_MAX: want[i] = v > want[i] ? v : want[i]; break;
                    case PGDDS_OP_BAND: want[i] = (double)(r ? (w & u) : u); break;
                    case PGDDS_OP_BOR: want[i] = (double)(w | u); break;
                    case PGDDS_OP_BXOR: want[i] = (double)(w ^ u); break;
                    }
                }
            }
            unsigned char in[N * 8], out[N * 8];
            for (int i = 0; i < N; ++i) switch (dt) {
                case PGDDS_INT32: ((int32_t *)in)[i] = (int32_t)in_d[i]; break;
                case PGDDS_INT64: ((int64_t *)in)[i] = (int64_t)in_d[i]; break;
                case PGDDS_UINT32: ((uint32_t *)in)[i] = (uint32_t)in_d[i]; break;
                case PGDDS_UINT64: ((uint64_t *)in)[i] = (uint64_t)in_d[i]; break;
                case PGDDS_FLOAT: ((float *)in)[i] = (float)in_d[i]; break;
                case PGDDS_DOUBLE: ((double *)in)[i] = in_d[i]; break;
                }
            for (int root = -1; root < ts; ++root) {
                memset(out, 0xee, sizeof out);
                if (root < 0) T_OK(pgdds_team_allreduce(t, in, out, N, dt, (pgdds_op_t)op));
                else T_OK(pgdds_team_reduce(t, in, out, N, dt, (pgdds_op_t)op, root));
                int bad = 0;
                for (int i = 0; i < N; ++i) {
                    double got = 0;
                    switch (dt) {
                    case PGDDS_INT32: got = ((int32_t *)out)[i]; break;
                    case PGDDS_INT64: got = (double)((int64_t *)out)[i]; break;
                    case PGDDS_UINT32: got = ((uint32_t *)out)[i]; break;
                    case PGDDS_UINT64: got = (double)((uint64_t *)out)[i]; break;
                    case PGDDS_FLOAT: got = ((float *)out)[i]; break;
                    case PGDDS_DOUBLE: got = ((double *)out)[i]; break;
                    }
                    if (root < 0 || root == tr) bad += got != want[i];
                    else bad += out[i] != 0xee; /* not the root: out untouched */
                }
                T_CHECK_MSG(bad == 0, "type %d op %d root %d: %d wrong", ti, op, root, bad);
            }
        }
    }
}

/* Calls that differ: every rank fails with a message, outputs untouched. */
static void test_mismatch(pgdds_team_t t, int tr, int ts)
{
    if (ts < 2) return;
    /* Both buffers hold what every call below may read or write on 5 ranks (16 bytes per rank). */
    int64_t in[16], out[16];
    const int last = tr == ts - 1;
    for (int i = 0; i < 16; ++i) in[i] = i + 1, out[i] = -5;
    /* Different op. */
    T_STATUS(pgdds_team_allreduce(t, in, out, 4, PGDDS_INT64, last ? PGDDS_OP_MAX : PGDDS_OP_SUM), PGDDS_ERR_INVALID_ARG);
    /* Different root. */
    T_STATUS(pgdds_team_reduce(t, in, out, 4, PGDDS_INT64, PGDDS_OP_SUM, last ? 1 : 0), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "root") != NULL);
    /* Different size. */
    T_STATUS(pgdds_team_alltoall(t, in, out, last ? 16 : 8), PGDDS_ERR_INVALID_ARG);
    /* Different kind. */
    T_STATUS(last ? pgdds_team_allgather(t, in, out, 8) : pgdds_team_alltoall(t, in, out, 8), PGDDS_ERR_INVALID_ARG);
    T_CHECK(strstr(pgdds_last_error(), "do not match") != NULL);
    for (int i = 0; i < 16; ++i) T_CHECK(out[i] == -5);
    /* Null arguments. */
    T_STATUS(pgdds_team_alltoallv(t, in, NULL, NULL, out, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_team_allgatherv(t, in, out, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    /* The team agrees again. */
    T_OK(pgdds_team_barrier(t));
}

static void run_on(pgdds_team_t t)
{
    int tr, ts;
    T_OK(pgdds_team_rank(t, &tr));
    T_OK(pgdds_team_size(t, &ts));
    test_alltoall(t, tr, ts);
    test_alltoall_symmetric(t, tr, ts);
    test_alltoallv(t, tr, ts);
    test_allgatherv(t, tr, ts);
    test_reductions(t, tr, ts);
    test_mismatch(t, tr, ts);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    pgdds_team_t world, odd;
    T_OK(pgdds_team_world(ctx, &world));
    /* Room for 1 MiB per pair in and out, and the offset placement. */
    sym_bytes = 2 * (((size_t)1 << 20) * (size_t)n + 4096);
    pgdds_gptr_t g = PGDDS_GPTR_NULL;
    T_OK(pgdds_alloc_all(ctx, sym_bytes, 64, 0, &g));
    sym = pgdds_gptr_to_local(ctx, g);
    T_CHECK(sym != NULL);
    run_on(world);
    /* The odd ranks' team runs while the even ranks sit in a world barrier. */
    T_OK(pgdds_team_split_strided(world, n > 1 ? 1 : 0, 2, n > 1 ? n / 2 : 1, &odd));
    if (odd) {
        run_on(odd);
        T_OK(pgdds_team_destroy(odd));
    }
    T_OK(pgdds_barrier(ctx));
    return t_finish(ctx, "teams/collectives");
}
