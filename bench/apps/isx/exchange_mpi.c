/* The ISx key exchange as one MPI_Alltoallv: pgdds-isx's keys, bucketed, sent to their ranks in
 * one collective with the exact counts (exchanged first, untimed). Run under mpirun.
 *
 *   mpirun -np 2 isx-exchange-mpi [--keys-per-rank N] [--key-bits B] [--iterations N] [--json]
 */
#include <mpi.h>

#include "exchange_keys.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    struct exchange_options o;
    if (exchange_parse(argc, argv, me, &o)) {
        MPI_Finalize();
        return 2;
    }
    uint64_t *counts = malloc((size_t)n * sizeof *counts), *displs = malloc((size_t)n * sizeof *displs);
    int *sc = malloc((size_t)n * sizeof *sc), *sd = malloc((size_t)n * sizeof *sd);
    int *rc = malloc((size_t)n * sizeof *rc), *rd = malloc((size_t)n * sizeof *rd);
    double bucket = 0, bucket_slowest = 0;
    uint32_t *keys = counts && displs && sc && sd && rc && rd ? exchange_bucket(&o, me, n, counts, displs, &bucket)
                                                              : NULL;
    if (!keys) {
        fprintf(stderr, "isx-exchange-mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0; r < n; ++r) {
        sc[r] = (int)counts[r];
        sd[r] = (int)displs[r];
    }
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce(&bucket, &bucket_slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    uint64_t received = 0;
    for (int r = 0; r < n; ++r) {
        rd[r] = (int)received;
        received += (uint64_t)rc[r];
    }
    uint32_t *recv = malloc((received ? received : 1) * sizeof *recv);
    if (!recv) {
        fprintf(stderr, "isx-exchange-mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double total = 0;
    for (int it = 0; it <= o.iterations; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = exchange_now();
        MPI_Alltoallv(keys, sc, sd, MPI_UINT32_T, recv, rc, rd, MPI_UINT32_T, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        if (it > 0) total += exchange_now() - t0;
    }
    int wrong = 0;
    for (uint64_t i = 0; i < received; ++i) wrong += ((uint64_t)recv[i] * (uint64_t)n) >> o.key_bits != (uint64_t)me;
    if (wrong) fprintf(stderr, "isx-exchange-mpi: rank %d received %d keys of another bucket\n", me, wrong);
    if (me == 0) exchange_report(&o, "MPI_Alltoallv", n, total / o.iterations, bucket_slowest, o.keys_per_rank * sizeof *keys);
    free(recv);
    free(keys);
    free(counts);
    free(displs);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
