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

/* Symmetric static data: pSync arrays and the ISx receive offset. */
static long psync[SHMEM_ALLTOALL_SYNC_SIZE];
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

static void put_signal(void *dest, const void *src, size_t size, uint64_t *sig, int pe)
{
#if HAVE_PUT_SIGNAL
    shmem_putmem_signal(dest, src, size, sig, 1, SHMEM_SIGNAL_SET, pe);
#else
    shmem_putmem(dest, src, size, pe);
    shmem_fence();
    shmem_ulong_atomic_set((unsigned long *)sig, 1, pe);
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
        TIME_PER_ITER(us, reps, put_signal(seg, buf, size, word + 8, 1); shmem_quiet());
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
