/* One OpenSHMEM source for comparing implementations: built with Open MPI's oshcc and with
 * pgdds-oshcc (bench/micro/shmem_compare.sh runs both and writes the table). It keeps to what
 * OpenSHMEM 1.4 has (oshmem 4.1 implements 1.4), except put-with-signal, which 1.4 lacks: there
 * the 1.4 idiom (put, fence, atomic set of the signal word) stands in for it.
 *
 * PE 0 against PE 1, sizes 8 B to --max-size (default 1 MiB): latency of a blocking put
 * (+ shmem_quiet), of a blocking get, of put-with-signal (+ shmem_quiet); rate of put_nbi and
 * get_nbi in windows of 64 (+ shmem_quiet). 8-byte AMOs: fetch-add, compare-swap and fetch
 * latency, non-fetching add rate. Every PE: shmem_barrier_all, shmem_alltoall64 (+ a barrier,
 * before pSync is used again) by block size, and an all-to-all key exchange as ISx's (reserve a
 * range in each destination's receive buffer with a fetch-add, put the keys there, barrier).
 * PEs 0 and 1: half the round trip of 8 bytes put with a signal, answered the same way (each PE
 * waits on its signal word): put_signal_pingpong_latency. Every PE: the sum of one double and of
 * 1 KiB of doubles (shmem_double_sum_reduce on SHMEM_TEAM_WORLD; under 1.4, shmem_double_sum_to_all
 * on every PE, alternating two pSync arrays): allreduce_latency.
 * usage: oshrun -np N shmem-micro [--json] [--iters N] [--max-size BYTES]   (N >= 2) */
#include <shmem.h>

#include "report.h"

#include <stdint.h>
#include <stdlib.h>

#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105
#define HAVE_PUT_SIGNAL 1
#else
#define HAVE_PUT_SIGNAL 0
#endif

enum { WINDOW = 64, ISX_KEYS = 1 << 16 };

/* Symmetric static data: pSync arrays, the 1.4 reduction's work array and the ISx receive offset. */
static long psync[SHMEM_ALLTOALL_SYNC_SIZE];
enum { REDUCE_MAX = 1024 / sizeof(double) };
static long psync_reduce[2][SHMEM_REDUCE_SYNC_SIZE];
static double pwrk_reduce[REDUCE_MAX / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long isx_recv_offset;

/* The implementation, for the records' "transport" field. */
static const char *implementation(void)
{
    char name[SHMEM_MAX_NAME_LEN + 1] = "";
    shmem_info_get_name(name);
    if (strstr(name, "pgdds")) return "pgdds";
    if (strstr(name, "open-mpi") || strstr(name, "Open MPI")) return "oshmem";
    return "openshmem";
}

/* Repetitions for one size: iters for small messages, fewer as the bytes grow, at least 20. */
static long reps_for(long iters, size_t size)
{
    long reps = (long)(((size_t)64 << 20) / size);
    if (reps > iters) reps = iters;
    return reps < 20 ? 20 : reps;
}

static void put_signal(void *dest, const void *src, size_t size, uint64_t *sig, uint64_t value, int pe)
{
#if HAVE_PUT_SIGNAL
    shmem_putmem_signal(dest, src, size, sig, value, SHMEM_SIGNAL_SET, pe);
#else
    shmem_putmem(dest, src, size, pe);
    shmem_fence();
    shmem_ulong_atomic_set((unsigned long *)sig, (unsigned long)value, pe);
#endif
}

static void point_to_point(const char *tp, int npes, long iters, size_t max_size, char *seg, uint64_t *word,
                           char *buf)
{
    double us;
    uint64_t v = 1, f = 0;
    for (size_t size = 8; size <= max_size; size *= 2) {
        long reps = reps_for(iters, size);
        long rounds = reps / WINDOW + 8;
        shmem_putmem(seg, buf, size, 1);
        shmem_quiet();
        TIME_PER_ITER(us, reps, shmem_putmem(seg, buf, size, 1); shmem_quiet());
        report("shmem_micro", tp, npes, 1, size, "put_latency", us, "us");
        TIME_PER_ITER(us, rounds, for (int w = 0; w < WINDOW; ++w) shmem_putmem_nbi(seg, buf, size, 1);
                      shmem_quiet());
        report("shmem_micro", tp, npes, 1, size, "put_rate", WINDOW / us, "Mmsg/s");
        TIME_PER_ITER(us, reps, shmem_getmem(buf, seg, size, 1));
        report("shmem_micro", tp, npes, 1, size, "get_latency", us, "us");
        TIME_PER_ITER(us, rounds, for (int w = 0; w < WINDOW; ++w) shmem_getmem_nbi(buf, seg, size, 1);
                      shmem_quiet());
        report("shmem_micro", tp, npes, 1, size, "get_rate", WINDOW / us, "Mmsg/s");
        TIME_PER_ITER(us, reps, put_signal(seg, buf, size, word + 8, 1, 1); shmem_quiet());
        report("shmem_micro", tp, npes, 1, size, "put_signal_latency", us, "us");
    }
    unsigned long *w = (unsigned long *)word;
    long warm = iters / 10;
    for (long i = 0; i < warm; ++i) f = shmem_ulong_atomic_fetch_add(w, 1, 1);
    TIME_PER_ITER(us, iters, f = shmem_ulong_atomic_fetch_add(w, 1, 1));
    report("shmem_micro", tp, npes, 1, 8, "amo_fetch_add_latency", us, "us");
    TIME_PER_ITER(us, iters, f = shmem_ulong_atomic_compare_swap(w, f, f + 1, 1));
    report("shmem_micro", tp, npes, 1, 8, "amo_compare_swap_latency", us, "us");
    TIME_PER_ITER(us, iters, f = shmem_ulong_atomic_fetch(w, 1));
    report("shmem_micro", tp, npes, 1, 8, "amo_fetch_latency", us, "us");
    TIME_PER_ITER(us, iters / WINDOW + 8, for (int k = 0; k < WINDOW; ++k) shmem_ulong_atomic_add(w, v, 1);
                  shmem_quiet());
    report("shmem_micro", tp, npes, 1, 8, "amo_add_rate", WINDOW / us, "Mmsg/s");
    (void)f;
}

/* PEs 0 and 1: half a ping-pong of 8 bytes put with a signal (word[16] the signal, word[24] the data). */
static void put_signal_pingpong(const char *tp, int me, int npes, long iters, uint64_t *word)
{
    if (me > 1) return;
    uint64_t v = 0;
    double samples[BATCHES];
    long per = (iters + iters / 10) / BATCHES + 1;
    for (int b = -1; b < BATCHES; ++b) {   /* batch -1 warms up */
        double t0 = now_us();
        for (long i = 0; i < per; ++i) {
            ++v;
            if (me == 0) {
                put_signal(word + 24, &v, 8, word + 16, v, 1 - me);
                shmem_quiet();
                shmem_uint64_wait_until(word + 16, SHMEM_CMP_GE, v);
            } else {
                shmem_uint64_wait_until(word + 16, SHMEM_CMP_GE, v);
                put_signal(word + 24, &v, 8, word + 16, v, 1 - me);
                shmem_quiet();
            }
        }
        if (b >= 0) samples[b] = (now_us() - t0) / (double)per / 2;
    }
    if (me == 0) report("shmem_micro", tp, npes, 1, 8, "put_signal_pingpong_latency", median_us(samples, BATCHES), "us");
}

/* Every PE: the sum of 1 double and of 1 KiB of doubles. */
static void allreduce(const char *tp, int me, int npes, long iters)
{
    double *in = shmem_malloc(REDUCE_MAX * sizeof(double)), *out = shmem_malloc(REDUCE_MAX * sizeof(double));
    if (!in || !out) shmem_global_exit(1);
    for (int k = 0; k < REDUCE_MAX; ++k) in[k] = (double)(me + 1);
    shmem_barrier_all();
    const int counts[] = {1, REDUCE_MAX};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c) {
        int count = counts[c];
        double us;
        long call = 0;
#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105
#define SUM_REDUCE() shmem_double_sum_reduce(SHMEM_TEAM_WORLD, out, in, (size_t)count)
#else
#define SUM_REDUCE() shmem_double_sum_to_all(out, in, count, 0, 0, npes, pwrk_reduce, psync_reduce[call++ & 1])
#endif
        SUM_REDUCE();
        if (out[0] != (double)npes * (npes + 1) / 2 || out[count - 1] != out[0]) {
            fprintf(stderr, "shmem-micro: PE %d: a wrong sum\n", me);
            shmem_global_exit(1);
        }
        TIME_PER_ITER(us, iters, SUM_REDUCE());
#undef SUM_REDUCE
        (void)call;
        if (me == 0) report("shmem_micro", tp, npes, 1, (size_t)count * sizeof(double), "allreduce_latency", us, "us");
        shmem_barrier_all();
    }
    shmem_free(out);
    shmem_free(in);
}

/* ISx's exchange: keys bucketed by destination PE; each PE reserves room in every
 * destination's receive buffer with a fetch-add on its offset and puts its keys there. */
static void isx_exchange(const char *tp, int me, int npes, long rounds)
{
    uint32_t *keys = malloc(ISX_KEYS * sizeof *keys), *send = malloc(ISX_KEYS * sizeof *send);
    long *count = calloc((size_t)npes, sizeof *count), *start = calloc((size_t)npes + 1, sizeof *start);
    uint32_t *recv = shmem_malloc(2 * (size_t)ISX_KEYS * sizeof *recv + 4096);
    if (!keys || !send || !count || !start || !recv) {
        fprintf(stderr, "shmem-micro: out of memory for the key exchange\n");
        shmem_global_exit(1);
    }
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(me + 1);
    const uint32_t max_key = 1u << 28;
    for (long i = 0; i < ISX_KEYS; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        keys[i] = (uint32_t)(x % max_key);
        ++count[(uint64_t)keys[i] * (uint64_t)npes / max_key];
    }
    for (int d = 0; d < npes; ++d) start[d + 1] = start[d] + count[d];
    long *fill = calloc((size_t)npes, sizeof *fill);
    for (long i = 0; i < ISX_KEYS; ++i) {
        int d = (int)((uint64_t)keys[i] * (uint64_t)npes / max_key);
        send[start[d] + fill[d]++] = keys[i];
    }
    double us;
    TIME_PER_ITER(us, rounds, {
        isx_recv_offset = 0;
        shmem_barrier_all();
        for (int k = 1; k <= npes; ++k) {
            int d = (me + k) % npes;
            long at = shmem_long_atomic_fetch_add(&isx_recv_offset, count[d], d);
            if (at + count[d] > 2 * (long)ISX_KEYS) shmem_global_exit(1);   /* cannot happen with these keys */
            shmem_putmem(recv + at, send + start[d], (size_t)count[d] * sizeof *send, d);
        }
        shmem_barrier_all();
    });
    /* Every key received belongs to this PE's range: the exchange did what it is timed for. */
    for (long i = 0; i < isx_recv_offset; ++i)
        if ((int)((uint64_t)recv[i] * (uint64_t)npes / max_key) != me) {
            fprintf(stderr, "shmem-micro: PE %d received key %u of another PE\n", me, recv[i]);
            shmem_global_exit(1);
        }
    if (me == 0) {
        report("shmem_micro", tp, npes, 1, ISX_KEYS * sizeof(uint32_t), "isx_exchange_latency", us, "us");
        report("shmem_micro", tp, npes, 1, ISX_KEYS * sizeof(uint32_t), "isx_key_rate", ISX_KEYS / us,
               "Mkeys/s/PE");
    }
    shmem_free(recv);
    free(fill);
    free(start);
    free(count);
    free(send);
    free(keys);
}

int main(int argc, char **argv)
{
    long iters = 100000;
    size_t max_size = (size_t)1 << 20;
    if (micro_options(argc, argv, "shmem-micro", &iters, &max_size) != 0) return 2;
    if (max_size < 8) max_size = 8;
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync_reduce[0][i] = psync_reduce[1][i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        fprintf(stderr, "shmem-micro: run on 2 PEs or more\n");
        shmem_finalize();
        return 2;
    }
    const char *tp = implementation();
    char *seg = shmem_malloc(max_size + 64);
    uint64_t *word = shmem_calloc(64, sizeof(uint64_t));
    char *buf = malloc(max_size + 64);
    if (!seg || !word || !buf) {
        fprintf(stderr, "shmem-micro: out of memory (--max-size %zu)\n", max_size);
        shmem_global_exit(1);
    }
    memset(buf, 1, max_size + 64);
    shmem_barrier_all();
    if (me == 0) point_to_point(tp, npes, iters, max_size, seg, word, buf);
    shmem_barrier_all();

    double us;
    long coll_iters = iters / 10 + 8;
    TIME_PER_ITER(us, coll_iters, shmem_barrier_all());
    if (me == 0) report("shmem_micro", tp, npes, 1, 0, "barrier_all_latency", us, "us");
    put_signal_pingpong(tp, me, npes, coll_iters, word);
    shmem_barrier_all();
    allreduce(tp, me, npes, coll_iters);

    /* Blocks of 8 bytes up to max_size / npes: the whole exchange fits the buffers. */
    size_t a2a_bytes = max_size / (size_t)npes;
    int64_t *src = shmem_malloc(max_size + 8), *dst = shmem_malloc(max_size + 8);
    if (!src || !dst) shmem_global_exit(1);
    memset(src, 3, max_size);
    shmem_barrier_all();
    for (size_t block = 8; block <= a2a_bytes; block *= 4) {
        long reps = reps_for(coll_iters, block * (size_t)npes);
        TIME_PER_ITER(us, reps, shmem_alltoall64(dst, src, block / 8, 0, 0, npes, psync); shmem_barrier_all());
        if (me == 0) report("shmem_micro", tp, npes, 1, block, "alltoall_latency", us, "us");
    }
    shmem_free(dst);
    shmem_free(src);

    isx_exchange(tp, me, npes, iters / 1000 + 8);

    shmem_barrier_all();
    free(buf);
    shmem_free(word);
    shmem_free(seg);
    shmem_finalize();
    return 0;
}
