/* The MPI peer of bench/micro/core_sync.c (pgdds-core-sync): the same measurements, metric names
 * and units, written with MPI-3 (built with Open MPI's mpicc; bench/micro/core_compare.sh runs both).
 *
 *   Every rank, MPI_COMM_WORLD: MPI_Alltoall by bytes per pair (8 B to --max-size by powers of 4,
 *   and --max-size itself), MPI_Barrier, MPI_Allreduce of one double and of 1 KiB of doubles (SUM).
 *   Ranks 0 and 1, put-with-signal as MPI-3 RMA does it, in a passive-target epoch of the whole
 *   window (MPI_Win_lock_all): MPI_Put of the data, MPI_Win_flush (MPI orders no put before an
 *   accumulate to another location), MPI_Accumulate of the signal word; the target polls its own
 *   signal word with MPI_Fetch_and_op (MPI_NO_OP). put_signal_latency: half the round trip of
 *   8 bytes and a signal answered the same way (MPI_Win_flush after the signal too);
 *   put_signal_rate: windows of 256 such messages, the signal added, one MPI_Win_flush per window.
 *
 * Results are verified (the alltoall's blocks, the sums, the data and signal words); a failed call
 * aborts (MPI_ERRORS_ARE_FATAL) and a wrong result exits with status 1.
 * usage: mpirun -np N mpi-sync [--json] [--iters N] [--max-size BYTES]   (N >= 2) */
#include <mpi.h>

#include "report.h"

#include <stdint.h>
#include <stdlib.h>

enum { WINDOW = 256 };

static int me = -1;

static void fail(const char *what)
{
    fprintf(stderr, "mpi-sync: rank %d: %s\n", me, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static long reps_for(long iters, size_t bytes)
{
    long reps = (long)(((size_t)64 << 20) / bytes);
    if (reps > iters) reps = iters;
    return reps < 20 ? 20 : reps;
}

static void alltoall(const char *tp, int n, long iters, size_t max_size)
{
    unsigned char *in = aligned_alloc(4096, (max_size * (size_t)n + 4095) / 4096 * 4096);
    unsigned char *out = aligned_alloc(4096, (max_size * (size_t)n + 4095) / 4096 * 4096);
    if (!in || !out) fail("no memory for the alltoall's buffers");
    for (size_t size = 8; size <= max_size; size = size * 4 > max_size && size < max_size ? max_size : size * 4) {
        /* Block r of in holds the byte (me * 16 + r) & 0xff: each received block says where it came from. */
        for (int r = 0; r < n; ++r) memset(in + (size_t)r * size, (me * 16 + r) & 0xff, size);
        MPI_Alltoall(in, (int)size, MPI_BYTE, out, (int)size, MPI_BYTE, MPI_COMM_WORLD);
        for (int r = 0; r < n; ++r)
            if (out[(size_t)r * size] != ((r * 16 + me) & 0xff) || out[(size_t)r * size + size - 1] != ((r * 16 + me) & 0xff))
                fail("MPI_Alltoall delivered a wrong block");
        double us;
        TIME_PER_ITER(us, reps_for(iters, size * (size_t)n),
                      MPI_Alltoall(in, (int)size, MPI_BYTE, out, (int)size, MPI_BYTE, MPI_COMM_WORLD));
        if (me == 0) report("mpi_sync", tp, n, 1, size, "alltoall_latency", us, "us");
    }
    free(out);
    free(in);
}

static void collectives(const char *tp, int n, long iters)
{
    double us;
    for (long i = 0; i < iters / 10; ++i) MPI_Barrier(MPI_COMM_WORLD);
    TIME_PER_ITER(us, iters, MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) report("mpi_sync", tp, n, 1, 0, "barrier_latency", us, "us");

    enum { MAX_COUNT = 1024 / sizeof(double) };
    double in[MAX_COUNT], out[MAX_COUNT];
    const int counts[] = {1, MAX_COUNT};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c) {
        int count = counts[c];
        for (int k = 0; k < count; ++k) in[k] = (double)(me + 1);
        MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (out[0] != (double)n * (n + 1) / 2 || out[count - 1] != out[0]) fail("MPI_Allreduce: a wrong sum");
        TIME_PER_ITER(us, iters, MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        if (me == 0) report("mpi_sync", tp, n, 1, (size_t)count * sizeof(double), "allreduce_latency", us, "us");
    }
}

/* The window: 8 bytes of data at 0, the signal word at 64, the rate's data from 128. */
static uint64_t signal_value(MPI_Win win)
{
    uint64_t v = 0;
    MPI_Fetch_and_op(NULL, &v, MPI_UINT64_T, me, 64 / sizeof(uint64_t), MPI_NO_OP, win);
    MPI_Win_flush(me, win);
    return v;
}

static void put_signal_to(int peer, const uint64_t *data, MPI_Aint disp, const uint64_t *signal, MPI_Op op, MPI_Win win)
{
    MPI_Put(data, 1, MPI_UINT64_T, peer, disp / (MPI_Aint)sizeof(uint64_t), 1, MPI_UINT64_T, win);
    MPI_Win_flush(peer, win);   /* the data before the signal */
    MPI_Accumulate(signal, 1, MPI_UINT64_T, peer, 64 / sizeof(uint64_t), 1, MPI_UINT64_T, op, win);
}

static void put_signal(const char *tp, int n, long iters)
{
    uint64_t *base = NULL;
    MPI_Win win;
    MPI_Win_allocate(4096, sizeof(uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, 4096);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (me < 2) {
        int peer = 1 - me;
        uint64_t v = 0;
        long total = iters + iters / 10;
        double samples[BATCHES];
        long per = total / BATCHES + 1;
        for (int b = -1; b < BATCHES; ++b) {   /* batch -1 warms up */
            double t0 = now_us();
            for (long i = 0; i < per; ++i) {
                ++v;
                if (me == 0) {
                    put_signal_to(peer, &v, 0, &v, MPI_REPLACE, win);
                    MPI_Win_flush(peer, win);
                    while (signal_value(win) < v) {}
                } else {
                    while (signal_value(win) < v) {}
                    put_signal_to(peer, &v, 0, &v, MPI_REPLACE, win);
                    MPI_Win_flush(peer, win);
                }
            }
            if (b >= 0) samples[b] = (now_us() - t0) / (double)per / 2;
        }
        MPI_Win_sync(win);
        if (signal_value(win) != v || base[0] != v) fail("put-with-signal: the data or the signal did not arrive");
        if (me == 0) report("mpi_sync", tp, n, 1, 8, "put_signal_latency", median_us(samples, BATCHES), "us");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long rounds = iters * 4 / WINDOW + 8;
    if (me == 0) {
        const uint64_t one = 1, v = 1;
        double us;
        TIME_PER_ITER(us, rounds, for (int w = 0; w < WINDOW; ++w) put_signal_to(1, &v, 128 + (w % 64) * 8, &one, MPI_SUM, win);
                      MPI_Win_flush(1, win));
        report("mpi_sync", tp, n, 1, 8, "put_signal_rate", WINDOW / us, "Mmsg/s");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) {
        uint64_t want = (uint64_t)(iters + iters / 10) / BATCHES + 1;
        want = want * (BATCHES + 1) + (uint64_t)BATCHES * (uint64_t)(rounds / BATCHES + 1) * WINDOW;
        if (signal_value(win) != want) fail("put-with-signal: the signal words do not add up");
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    long iters = 10000;
    size_t max_size = (size_t)1 << 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (micro_options(argc, argv, "mpi-sync", &iters, &max_size) != 0) {
        MPI_Finalize();
        return 2;
    }
    if (iters < 20) iters = 20;
    if (max_size < 8) max_size = 8;
    if (max_size > (size_t)1 << 30) fail("--max-size is at most 1 GiB (an int count)");
    if (n < 2) {
        if (me == 0) fprintf(stderr, "mpi-sync: run on 2 ranks or more\n");
        MPI_Finalize();
        return 2;
    }
#ifdef OPEN_MPI
    const char *tp = "openmpi";
#else
    const char *tp = "mpi";
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    alltoall(tp, n, iters, max_size);
    put_signal(tp, n, iters);
    collectives(tp, n, iters);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
