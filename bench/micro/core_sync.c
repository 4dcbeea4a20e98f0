/* Synchronization and messaging of the core API, the measurements its peers (bench/micro/mpi_sync.c,
 * bench/micro/shmem_micro.c) make too; bench/micro/core_compare.sh runs them side by side.
 *
 *   sync: every rank, world team: pgdds_team_alltoall by bytes per pair (8 B to --max-size by
 *         powers of 4, and --max-size itself; the output in symmetric memory of pgdds_alloc_all),
 *         pgdds_team_barrier, pgdds_team_allreduce of one double and of 1 KiB of doubles (SUM).
 *         Ranks 0 and 1: put_signal_latency, half the round trip of an 8-byte pgdds_put_signal
 *         answered the same way (each side waits on its signal word with pgdds_wait_until_u64);
 *         put_signal_rate, windows of 256 pgdds_put_signal_nbi and one pgdds_flush.
 *   rpc:  rank 0 against rank 1, which progresses until told to stop: rpc_latency, the round trip
 *         of an empty pgdds_rpc_call whose function answers 8 bytes (until the completion callback
 *         ran); rpc_rate, 256 calls outstanding, then waiting for every reply; am_latency, the round
 *         trip of an 8-byte active message whose handler sends one back; am_rate, 256 one-way
 *         active messages, then the acknowledgment the handler sends for the last.
 *
 * Every call's status is checked and every result verified (the alltoall's blocks, the sums, the
 * replies): a failure prints pgdds_last_error() and exits with status 1.
 * usage: pgdds-run -n N pgdds-core-sync [--json] [--iters N] [--max-size BYTES] [--only sync|rpc]
 *        (N >= 2; --iters 10000 and --max-size 1 MiB by default) */
#include <pgdds/pgdds.h>

#include "report.h"

#include <stdint.h>
#include <stdlib.h>

enum { WINDOW = 256 };
static const char *const program = "pgdds-core-sync";
static const uint64_t rpc_id = 0x636f726573796e63ull;   /* "coresync" */
static const double wait_limit_us = 120e6;            /* a reply that never comes: fail, not hang */

static pgdds_context_t ctx;

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "%s: rank %d: %s: %s\n", program, ctx ? pgdds_rank(ctx) : -1, what, pgdds_last_error());
        exit(1);
    }
}

static void fail(const char *what)
{
    fprintf(stderr, "%s: rank %d: %s\n", program, ctx ? pgdds_rank(ctx) : -1, what);
    exit(1);
}

/* Repetitions for one size: iters for small messages, fewer as the bytes grow, at least 20. */
static long reps_for(long iters, size_t bytes)
{
    long reps = (long)(((size_t)64 << 20) / bytes);
    if (reps > iters) reps = iters;
    return reps < 20 ? 20 : reps;
}

/* ---- the synchronization part ------------------------------------------------------------- */

static void alltoall(const char *tp, pgdds_team_t world, int me, int n, long iters, size_t max_size)
{
    pgdds_gptr_t out_g;
    check(pgdds_alloc_all(ctx, max_size * (size_t)n, 4096, 0, &out_g), "pgdds_alloc_all");
    unsigned char *out = pgdds_gptr_to_local(ctx, out_g);
    unsigned char *in = aligned_alloc(4096, (max_size * (size_t)n + 4095) / 4096 * 4096);
    if (!out || !in) fail("no memory for the alltoall's buffers");
    for (size_t size = 8; size <= max_size; size = size * 4 > max_size && size < max_size ? max_size : size * 4) {
        /* Block r of in holds the byte (me * 16 + r) & 0xff: each received block says where it came from. */
        for (int r = 0; r < n; ++r) memset(in + (size_t)r * size, (me * 16 + r) & 0xff, size);
        check(pgdds_team_alltoall(world, in, out, size), "pgdds_team_alltoall");
        for (int r = 0; r < n; ++r)
            if (out[(size_t)r * size] != ((r * 16 + me) & 0xff) || out[(size_t)r * size + size - 1] != ((r * 16 + me) & 0xff))
                fail("pgdds_team_alltoall delivered a wrong block");
        double us;
        TIME_PER_ITER(us, reps_for(iters, size * (size_t)n), check(pgdds_team_alltoall(world, in, out, size), "pgdds_team_alltoall"));
        if (me == 0) report("core_sync", tp, n, 1, size, "alltoall_latency", us, "us");
    }
    check(pgdds_team_barrier(world), "pgdds_team_barrier");
    check(pgdds_free_all(ctx, out_g), "pgdds_free_all");
    free(in);
}

static void collectives(const char *tp, pgdds_team_t world, int me, int n, long iters)
{
    double us;
    for (long i = 0; i < iters / 10; ++i) check(pgdds_team_barrier(world), "pgdds_team_barrier");
    TIME_PER_ITER(us, iters, check(pgdds_team_barrier(world), "pgdds_team_barrier"));
    if (me == 0) report("core_sync", tp, n, 1, 0, "barrier_latency", us, "us");

    enum { MAX_COUNT = 1024 / sizeof(double) };
    double in[MAX_COUNT], out[MAX_COUNT];
    const size_t counts[] = {1, MAX_COUNT};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c) {
        size_t count = counts[c];
        for (size_t k = 0; k < count; ++k) in[k] = (double)(me + 1);
        check(pgdds_team_allreduce(world, in, out, count, PGDDS_DOUBLE, PGDDS_OP_SUM), "pgdds_team_allreduce");
        if (out[0] != (double)n * (n + 1) / 2 || out[count - 1] != out[0]) fail("pgdds_team_allreduce: a wrong sum");
        TIME_PER_ITER(us, iters, check(pgdds_team_allreduce(world, in, out, count, PGDDS_DOUBLE, PGDDS_OP_SUM), "pgdds_team_allreduce"));
        if (me == 0) report("core_sync", tp, n, 1, count * sizeof(double), "allreduce_latency", us, "us");
    }
}

/* Ranks 0 and 1: 8 bytes and a signal each way (the symmetric block: data at 0, signal at 64). */
static void put_signal(const char *tp, int me, int n, long iters)
{
    pgdds_gptr_t mine;
    check(pgdds_alloc_all(ctx, 4096, 64, PGDDS_ALLOC_ZERO, &mine), "pgdds_alloc_all");
    if (me < 2) {
        pgdds_gptr_t peer, my_sig = pgdds_gptr_add(mine, 64), peer_sig;
        check(pgdds_gptr_at(ctx, mine, 1 - me, &peer), "pgdds_gptr_at");
        peer_sig = pgdds_gptr_add(peer, 64);
        uint64_t v = 0, seen = 0;
        long total = iters + iters / 10;
        /* Half a ping-pong: rank 0 signals k, rank 1 waits for k and answers k. */
        double samples[BATCHES];
        long per = total / BATCHES + 1;
        for (int b = -1; b < BATCHES; ++b) {   /* batch -1 warms up */
            double t0 = now_us();
            for (long i = 0; i < per; ++i) {
                ++v;
                if (me == 0) {
                    check(pgdds_put_signal(ctx, peer, &v, 8, peer_sig, v, PGDDS_SIGNAL_SET), "pgdds_put_signal");
                    check(pgdds_wait_until_u64(ctx, my_sig, PGDDS_CMP_GE, v), "pgdds_wait_until_u64");
                } else {
                    check(pgdds_wait_until_u64(ctx, my_sig, PGDDS_CMP_GE, v), "pgdds_wait_until_u64");
                    check(pgdds_put_signal(ctx, peer, &v, 8, peer_sig, v, PGDDS_SIGNAL_SET), "pgdds_put_signal");
                }
            }
            if (b >= 0) samples[b] = (now_us() - t0) / (double)per / 2;
        }
        check(pgdds_signal_fetch(ctx, my_sig, &seen), "pgdds_signal_fetch");
        uint64_t *data = pgdds_gptr_to_local(ctx, mine);
        if (seen != v || !data || *data != v) fail("put-with-signal: the data or the signal did not arrive");
        if (me == 0) report("core_sync", tp, n, 1, 8, "put_signal_latency", median_us(samples, BATCHES), "us");
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");
    if (me == 0) {
        /* Message rate: windows of put_signal_nbi (8 bytes each, signal added), one flush per window. */
        pgdds_gptr_t peer;
        check(pgdds_gptr_at(ctx, mine, 1, &peer), "pgdds_gptr_at");
        pgdds_gptr_t peer_sig = pgdds_gptr_add(peer, 64);
        uint64_t v = 1;
        double us;
        long rounds = iters * 4 / WINDOW + 8;
        TIME_PER_ITER(us, rounds, for (int w = 0; w < WINDOW; ++w) check(pgdds_put_signal_nbi(ctx, pgdds_gptr_add(peer, 128 + (w % 64) * 8), &v, 8, peer_sig, 1, PGDDS_SIGNAL_ADD), "pgdds_put_signal_nbi");
                      check(pgdds_flush(ctx), "pgdds_flush"));
        report("core_sync", tp, n, 1, 8, "put_signal_rate", WINDOW / us, "Mmsg/s");
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");
    if (me == 1) {
        uint64_t seen = 0;
        check(pgdds_signal_fetch(ctx, pgdds_gptr_add(mine, 64), &seen), "pgdds_signal_fetch");
        long rounds = iters * 4 / WINDOW + 8;
        uint64_t want = (uint64_t)(iters + iters / 10) / BATCHES + 1;
        want = want * (BATCHES + 1) + (uint64_t)BATCHES * (uint64_t)(rounds / BATCHES + 1) * WINDOW;
        if (seen != want) fail("put_signal_nbi: the signal words do not add up");
    }
    check(pgdds_free_all(ctx, mine), "pgdds_free_all");
}

/* ---- the RPC and active-message part -------------------------------------------------------- */

static volatile long rpc_replies;     /* on rank 0: completion callbacks run */
static volatile long am_pongs;        /* on rank 0: answers received */
static volatile long am_received;     /* on rank 1: one-way messages received */
static volatile int serve_stop;       /* on rank 1: rank 0 is done */
static volatile int handler_failed;   /* a handler's own call failed */
static uint32_t am_ping, am_pong, am_oneway, am_stop;

static void rpc_function(pgdds_context_t c, int src, const void *args, size_t size, pgdds_rpc_reply_t *reply)
{
    (void)c, (void)args;
    uint64_t r = (uint64_t)src + size + 42;
    if (pgdds_rpc_reply(reply, PGDDS_OK, &r, sizeof r, NULL) != PGDDS_OK) handler_failed = 1;
}

static void rpc_done(pgdds_context_t c, pgdds_status_t st, const void *result, size_t size, void *arg)
{
    (void)c, (void)arg;
    uint64_t r = 0;
    if (st != PGDDS_OK || size != sizeof r) {
        fprintf(stderr, "%s: an RPC failed: %s\n", program, st != PGDDS_OK ? pgdds_last_error() : "a reply of the wrong size");
        handler_failed = 1;
        return;
    }
    memcpy(&r, result, sizeof r);
    if (r != 42) handler_failed = 1;   /* the function saw rank 0 and no argument bytes */
    ++rpc_replies;
}

static void on_ping(pgdds_context_t c, int src, const void *payload, size_t size, void *arg)
{
    (void)arg;
    if (pgdds_am_send(c, src, am_pong, payload, size) != PGDDS_OK) handler_failed = 1;
}

static void on_pong(pgdds_context_t c, int src, const void *payload, size_t size, void *arg)
{
    (void)c, (void)src, (void)payload, (void)size, (void)arg;
    ++am_pongs;
}

/* One-way messages; the last of a window (its payload says so) is acknowledged with a pong. */
static void on_oneway(pgdds_context_t c, int src, const void *payload, size_t size, void *arg)
{
    (void)arg;
    uint64_t last = 0;
    if (size != sizeof last) {
        handler_failed = 1;
        return;
    }
    memcpy(&last, payload, sizeof last);
    ++am_received;
    if (last && pgdds_am_send(c, src, am_pong, payload, size) != PGDDS_OK) handler_failed = 1;
}

static void on_stop(pgdds_context_t c, int src, const void *payload, size_t size, void *arg)
{
    (void)c, (void)src, (void)payload, (void)size, (void)arg;
    serve_stop = 1;
}

/* Progresses until *counter reaches want (rank 0 waiting for replies). */
static void progress_until(volatile long *counter, long want, const char *what)
{
    double deadline = now_us() + wait_limit_us;
    while (*counter < want) {
        check(pgdds_progress(ctx), "pgdds_progress");
        if (handler_failed) fail("a handler or completion callback failed");
        if (now_us() > deadline) fail(what);
    }
}

static void rpc_am(const char *tp, int me, int n, long iters)
{
    check(pgdds_rpc_register(rpc_id, rpc_function), "pgdds_rpc_register");
    check(pgdds_am_register(ctx, on_ping, NULL, &am_ping), "pgdds_am_register");
    check(pgdds_am_register(ctx, on_pong, NULL, &am_pong), "pgdds_am_register");
    check(pgdds_am_register(ctx, on_oneway, NULL, &am_oneway), "pgdds_am_register");
    check(pgdds_am_register(ctx, on_stop, NULL, &am_stop), "pgdds_am_register");
    check(pgdds_barrier(ctx), "pgdds_barrier");   /* every rank registered before any call */
    if (me == 1) {
        /* Serve: progress until rank 0 says stop. */
        while (!serve_stop) {
            check(pgdds_progress(ctx), "pgdds_progress");
            if (handler_failed) fail("a handler failed");
        }
        if (am_received == 0) fail("no one-way active message arrived");
    } else if (me == 0) {
        double us;
        long rounds = iters / WINDOW + 8;
        uint64_t payload = 0;
        long want = 0;
        /* RPC round trip: call, progress until the callback ran. */
        for (long i = 0; i < iters / 10; ++i) {
            check(pgdds_rpc_call(ctx, 1, rpc_id, NULL, 0, rpc_done, NULL), "pgdds_rpc_call");
            progress_until(&rpc_replies, ++want, "no RPC reply within 120 s");
        }
        TIME_PER_ITER(us, iters, check(pgdds_rpc_call(ctx, 1, rpc_id, NULL, 0, rpc_done, NULL), "pgdds_rpc_call");
                      progress_until(&rpc_replies, ++want, "no RPC reply within 120 s"));
        report("core_sync", tp, n, 1, 8, "rpc_latency", us, "us");
        /* RPC rate: a window of calls outstanding, then every reply. */
        TIME_PER_ITER(us, rounds, for (int w = 0; w < WINDOW; ++w) check(pgdds_rpc_call(ctx, 1, rpc_id, NULL, 0, rpc_done, NULL), "pgdds_rpc_call");
                      want += WINDOW; progress_until(&rpc_replies, want, "RPC replies missing after 120 s"));
        report("core_sync", tp, n, 1, 8, "rpc_rate", WINDOW / us, "M/s");

        /* Active-message round trip: ping, the handler answers with a pong. */
        want = 0;
        for (long i = 0; i < iters / 10; ++i) {
            check(pgdds_am_send(ctx, 1, am_ping, &payload, sizeof payload), "pgdds_am_send");
            progress_until(&am_pongs, ++want, "no active-message answer within 120 s");
        }
        TIME_PER_ITER(us, iters, check(pgdds_am_send(ctx, 1, am_ping, &payload, sizeof payload), "pgdds_am_send");
                      progress_until(&am_pongs, ++want, "no active-message answer within 120 s"));
        report("core_sync", tp, n, 1, 8, "am_latency", us, "us");
        /* Active-message rate: a window of one-way messages, the last acknowledged. */
        TIME_PER_ITER(us, rounds, for (int w = 0; w < WINDOW; ++w) {
                          payload = w == WINDOW - 1;
                          check(pgdds_am_send(ctx, 1, am_oneway, &payload, sizeof payload), "pgdds_am_send");
                      } progress_until(&am_pongs, ++want, "no acknowledgment within 120 s"));
        report("core_sync", tp, n, 1, 8, "am_rate", WINDOW / us, "M/s");
        check(pgdds_am_send(ctx, 1, am_stop, NULL, 0), "pgdds_am_send");
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");
    if (handler_failed) fail("a handler or completion callback failed");
}

int main(int argc, char **argv)
{
    long iters = 10000;
    size_t max_size = (size_t)1 << 20;
    int do_sync = 1, do_rpc = 1;
    /* micro_options, and --only sync|rpc */
    char *rest[8];
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc && (!strcmp(argv[i + 1], "sync") || !strcmp(argv[i + 1], "rpc"))) {
            do_sync = strcmp(argv[i + 1], "sync") == 0;
            do_rpc = !do_sync;
            ++i;
        } else if (nrest < 7) {
            rest[nrest++] = argv[i];
        } else {
            nrest = -1;
            break;
        }
    }
    if (nrest < 0 || micro_options(nrest, rest, program, &iters, &max_size) != 0) {
        fprintf(stderr, "       %s ... [--only sync|rpc]\n", program);
        return 2;
    }
    if (iters < 20) iters = 20;
    if (max_size < 8) max_size = 8;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    if (n < 2) {
        fprintf(stderr, "%s: run on 2 ranks or more\n", program);
        pgdds_finalize(ctx);
        return 2;
    }
    const char *tp = pgdds_transport_name(ctx);
    pgdds_team_t world;
    check(pgdds_team_world(ctx, &world), "pgdds_team_world");
    check(pgdds_barrier(ctx), "pgdds_barrier");
    if (do_sync) {
        alltoall(tp, world, me, n, iters, max_size);
        put_signal(tp, me, n, iters);
        collectives(tp, world, me, n, iters);
    }
    if (do_rpc) rpc_am(tp, me, n, iters);
    check(pgdds_barrier(ctx), "pgdds_barrier");
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return 0;
}
