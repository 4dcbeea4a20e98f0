/* The ISx key exchange as one OpenSHMEM all-to-all (shmem_alltoall32 over all PEs, the 1.4 form,
 * since Debian's Open MPI oshmem has no teams): pgdds-isx's keys, bucketed, sent to their ranks in
 * one collective. Every block is the largest bucket of the job (the all-to-all moves the same size
 * between every pair), so it moves slightly more than pgdds-isx's distribution.
 * Built with Open MPI's oshcc (run under oshrun) and with pgdds-oshcc (run under pgdds-oshrun).
 *
 *   oshrun -np 2 isx-exchange-shmem [--keys-per-rank N] [--key-bits B] [--iterations N] [--json]
 */
#include <shmem.h>

#include "exchange_keys.h"

int main(int argc, char **argv)
{
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    struct exchange_options o;
    if (exchange_parse(argc, argv, me, &o)) {
        shmem_finalize();
        return 2;
    }
    uint64_t *counts = malloc((size_t)n * sizeof *counts), *displs = malloc((size_t)n * sizeof *displs);
    double bucket = 0;
    uint32_t *keys = counts && displs ? exchange_bucket(&o, me, n, counts, displs, &bucket) : NULL;
    static long largest_local, largest; /* symmetric, as the work arrays */
    static double bucket_local, bucket_slowest;
    static double dwork[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    static long sync_dreduce[SHMEM_REDUCE_SYNC_SIZE];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) sync_dreduce[i] = SHMEM_SYNC_VALUE;
    static long work[SHMEM_REDUCE_MIN_WRKDATA_SIZE], sync_reduce[SHMEM_REDUCE_SYNC_SIZE],
        sync_alltoall[SHMEM_ALLTOALL_SYNC_SIZE];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) sync_reduce[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; ++i) sync_alltoall[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all(); /* every pSync initialized before any PE uses it */
    largest_local = 0;
    for (int r = 0; keys && r < n; ++r)
        if ((long)counts[r] > largest_local) largest_local = (long)counts[r];
    if (!keys) largest_local = -1;
    shmem_long_max_to_all(&largest, &largest_local, 1, 0, 0, n, work, sync_reduce);
    bucket_local = bucket;
    shmem_double_max_to_all(&bucket_slowest, &bucket_local, 1, 0, 0, n, dwork, sync_dreduce);
    if (largest < 0) {
        if (me == 0) fprintf(stderr, "isx-exchange-shmem: out of memory\n");
        shmem_finalize();
        return 1;
    }
    const size_t block = (size_t)largest * sizeof(uint32_t);
    uint32_t *send = shmem_malloc(block * (size_t)n), *recv = shmem_malloc(block * (size_t)n);
    if (!send || !recv) {
        if (me == 0) fprintf(stderr, "isx-exchange-shmem: shmem_malloc of 2 x %zu bytes failed\n", block * (size_t)n);
        shmem_global_exit(1);
    }
    /* Each block padded with the lowest key of its destination's bucket, so that every key a
     * rank receives must be of its own bucket. */
    for (int r = 0; r < n; ++r) {
        uint32_t *to = (uint32_t *)((char *)send + (size_t)r * block);
        memcpy(to, keys + displs[r], counts[r] * sizeof *keys);
        uint32_t lowest = (uint32_t)((((uint64_t)r << o.key_bits) + (uint64_t)n - 1) / (uint64_t)n);
        for (uint64_t i = counts[r]; i < (uint64_t)largest; ++i) to[i] = lowest;
    }

    double total = 0;
    for (int it = 0; it <= o.iterations; ++it) {
        shmem_barrier_all();
        double t0 = exchange_now();
        shmem_alltoall32(recv, send, (size_t)largest, 0, 0, n, sync_alltoall);
        shmem_barrier_all();
        if (it > 0) total += exchange_now() - t0;
    }
    int wrong = 0;
    for (uint64_t i = 0; i < (uint64_t)largest * (uint64_t)n; ++i)
        wrong += ((uint64_t)recv[i] * (uint64_t)n) >> o.key_bits != (uint64_t)me;
    if (wrong) fprintf(stderr, "isx-exchange-shmem: PE %d received %d keys of another bucket\n", me, wrong);
    if (me == 0) exchange_report(&o, "shmem_alltoall32", n, total / o.iterations, bucket_slowest, block * (size_t)n);
    shmem_free(send);
    shmem_free(recv);
    free(keys);
    free(counts);
    free(displs);
    shmem_finalize();
    return wrong ? 1 : 0;
}
