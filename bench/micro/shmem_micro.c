/* The OpenSHMEM peer of pgdds_micro.c: the same loops with shmem_putmem + shmem_quiet,
 * shmem_getmem, shmem_atomic_fetch_add, shmem_putmem_nbi and put bandwidth, on buffers from
 * shmem_malloc. Built with oshcc where present; run with oshrun -np 2.
 * usage: oshrun -np 2 shmem-micro [--json] [--iters N] [--max-size BYTES] */
#include <shmem.h>

#include "report.h"

#include <stdint.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long iters = 100000;
    size_t max_size = (size_t)4 << 20;
    if (micro_options(argc, argv, "shmem-micro", &iters, &max_size) != 0) return 2;
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0) fprintf(stderr, "shmem-micro: run on exactly 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    char *seg = shmem_malloc(max_size + 64);
    uint64_t *word = shmem_malloc(64 * sizeof(uint64_t));
    char *buf = malloc(max_size + 64), *buf2 = malloc(max_size + 64);
    memset(buf, 1, max_size + 64);
    memset(buf2, 2, max_size + 64);
    const char *tp = "openshmem";
    shmem_barrier_all();
    if (me == 0) {
        uint64_t v = 1, f = 0;
        long warm = iters / 10;
        for (long i = 0; i < warm; ++i) shmem_putmem(word, &v, 8, 1), shmem_quiet();
        double us;
        TIME_PER_ITER(us, iters, shmem_putmem(word, &v, 8, 1); shmem_quiet());
        report("shmem_micro", tp, 2, 1, 8, "put_flush_latency", us, "us");
        for (long i = 0; i < warm; ++i) shmem_getmem(&f, word, 8, 1);
        TIME_PER_ITER(us, iters, shmem_getmem(&f, word, 8, 1));
        report("shmem_micro", tp, 2, 1, 8, "get_latency", us, "us");
        for (long i = 0; i < warm; ++i) f = shmem_ulong_atomic_fetch_add((unsigned long *)word, 1, 1);
        TIME_PER_ITER(us, iters, f = shmem_ulong_atomic_fetch_add((unsigned long *)word, 1, 1));
        report("shmem_micro", tp, 2, 1, 8, "fetch_add_latency", us, "us");
        const long window = 256;
        long rounds = iters * 4 / window + 1;
        TIME_PER_ITER(us, rounds, for (long i = 0; i < window; ++i) shmem_putmem_nbi(word + (i % 64), &v, 8, 1); shmem_quiet());
        report("shmem_micro", tp, 2, 1, 8, "put_nbi_rate", (double)window / us, "Mmsg/s");
        for (size_t size = 8; size <= max_size; size *= 2) {
            long reps = (long)(((size_t)256 << 20) / size);
            if (reps > iters) reps = iters;
            if (reps < 20) reps = 20;
            shmem_putmem(seg, buf, size, 1);
            shmem_quiet();
            TIME_PER_ITER(us, reps, shmem_putmem(seg, buf, size, 1));
            shmem_quiet();
            report("shmem_micro", tp, 2, 1, size, "put_bandwidth", (double)size / us, "MB/s");
        }
        (void)f;
    }
    shmem_barrier_all();
    free(buf);
    free(buf2);
    shmem_finalize();
    return 0;
}
