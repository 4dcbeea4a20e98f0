/* Core micro-benchmark (OSU style), 2 ranks: rank 0 measures, rank 1 waits in a barrier.
 *   8-byte put+flush, get and fetch-add latency; 8-byte put_nbi message rate;
 *   put bandwidth from 8 B to 4 MiB; single-threaded memcpy bandwidth of the same sizes.
 * usage: pgdds-run -n 2 pgdds-micro [--json] [--iters N] [--max-size BYTES] */
#include <pgdds/pgdds.h>

#include "report.h"

#include <stdint.h>
#include <stdlib.h>

static pgdds_context_t ctx;

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "pgdds-micro: %s: %s\n", what, pgdds_last_error());
        exit(1);
    }
}

int main(int argc, char **argv)
{
    long iters = 100000;
    size_t max_size = (size_t)4 << 20;
    if (micro_options(argc, argv, "pgdds-micro", &iters, &max_size) != 0) return 2;
    if (iters < 10) iters = 10;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    if (n != 2) {
        if (me == 0) fprintf(stderr, "pgdds-micro: run on exactly 2 ranks\n");
        pgdds_finalize(ctx);
        return 2;
    }
    const char *tp = pgdds_transport_name(ctx);
    pgdds_gptr_t mine, all[2];
    check(pgdds_alloc(ctx, max_size + 64, 4096, &mine), "pgdds_alloc");
    check(pgdds_allgather(ctx, &mine, all, sizeof mine), "pgdds_allgather");
    pgdds_gptr_t peer = all[1];
    /* Page-aligned like the segment's blocks: with malloc's placement the copies' speed would
       depend on where earlier allocations left the heap (4 KiB aliasing of source and target). */
    const size_t buf_bytes = (max_size + 64 + 4095) / 4096 * 4096;
    char *buf = aligned_alloc(4096, buf_bytes), *buf2 = aligned_alloc(4096, buf_bytes);
    if (!buf || !buf2) {
        fprintf(stderr, "pgdds-micro: no memory for two buffers of %zu bytes\n", buf_bytes);
        return 1;
    }
    memset(buf, 1, max_size + 64);
    memset(buf2, 2, max_size + 64);
    check(pgdds_barrier(ctx), "pgdds_barrier");

    if (me == 0) {
        uint64_t v = 1, f;
        long warm = iters / 10;
        /* put + flush: remote completion per operation */
        for (long i = 0; i < warm; ++i) pgdds_put(ctx, peer, &v, 8), pgdds_flush(ctx);
        double us;
        TIME_PER_ITER(us, iters, check(pgdds_put(ctx, peer, &v, 8), "pgdds_put"); check(pgdds_flush(ctx), "pgdds_flush"));
        report("pgdds_micro", tp, 2, 1, 8, "put_flush_latency", us, "us");

        for (long i = 0; i < warm; ++i) pgdds_get(ctx, &f, peer, 8);
        TIME_PER_ITER(us, iters, check(pgdds_get(ctx, &f, peer, 8), "pgdds_get"));
        report("pgdds_micro", tp, 2, 1, 8, "get_latency", us, "us");

        for (long i = 0; i < warm; ++i) pgdds_atomic_u64(ctx, peer, PGDDS_AOP_ADD, 1, &f);
        TIME_PER_ITER(us, iters, check(pgdds_atomic_u64(ctx, peer, PGDDS_AOP_ADD, 1, &f), "fetch-add"));
        report("pgdds_micro", tp, 2, 1, 8, "fetch_add_latency", us, "us");

        /* message rate: a window of put_nbi, one flush per window */
        const long window = 256;
        long rounds = iters * 4 / window + 1;
        TIME_PER_ITER(us, rounds, for (long i = 0; i < window; ++i) check(pgdds_put_nbi(ctx, pgdds_gptr_add(peer, (int64_t)((i % 64) * 8)), &v, 8), "pgdds_put_nbi"); check(pgdds_flush(ctx), "pgdds_flush"));
        report("pgdds_micro", tp, 2, 1, 8, "put_nbi_rate", (double)window / us, "Mmsg/s");

        /* bandwidth: back-to-back puts of one size, one flush at the end */
        for (size_t size = 8; size <= max_size; size *= 2) {
            long reps = (long)(((size_t)256 << 20) / size);
            if (reps > iters) reps = iters;
            if (reps < 20) reps = 20;
            pgdds_put(ctx, peer, buf, size);
            pgdds_flush(ctx);
            TIME_PER_ITER(us, reps, check(pgdds_put(ctx, peer, buf, size), "pgdds_put"));
            check(pgdds_flush(ctx), "pgdds_flush");
            report("pgdds_micro", tp, 2, 1, size, "put_bandwidth", (double)size / us, "MB/s");
            report("pgdds_micro", "memcpy", 1, 1, size, "memcpy_bandwidth", memcpy_bandwidth(buf2, buf, size, (int)reps), "MB/s");
        }
    }
    check(pgdds_barrier(ctx), "pgdds_barrier");
    free(buf);
    free(buf2);
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return 0;
}
