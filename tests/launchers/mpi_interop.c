/* An MPI program that also uses libpgdds, started by Open MPI's mpirun: both initialize from the
 * same launcher (PMIx), agree on rank and size, and an MPI allreduce and a pgdds allreduce give
 * the same answers. Data written with pgdds_put is visible after pgdds_barrier and is then
 * checked with an MPI collective. With --mpi-finalize-first, MPI_Finalize comes before
 * pgdds_finalize. */
#include "../harness.h"

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int mpi_rank, mpi_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);

    pgdds_context_t ctx = t_init(NULL);
    const int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    T_CHECK_MSG(me == mpi_rank && n == mpi_size, "pgdds rank %d of %d, MPI rank %d of %d", me, n, mpi_rank, mpi_size);

    int64_t i_in = 1000 + me, i_pgdds = 0, i_mpi = 0;
    T_OK(pgdds_allreduce(ctx, &i_in, &i_pgdds, 1, PGDDS_INT64, PGDDS_OP_SUM));
    MPI_Allreduce(&i_in, &i_mpi, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    T_CHECK_MSG(i_pgdds == i_mpi, "sum: pgdds %lld, MPI %lld", (long long)i_pgdds, (long long)i_mpi);

    double d_in[3] = {0.5 * me, -1.0 * me, 1.0 / (me + 1)}, d_pgdds[3], d_mpi[3];
    T_OK(pgdds_allreduce(ctx, d_in, d_pgdds, 3, PGDDS_DOUBLE, PGDDS_OP_MAX));
    MPI_Allreduce(d_in, d_mpi, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < 3; ++k) T_CHECK_MSG(d_pgdds[k] == d_mpi[k], "max[%d]: pgdds %g, MPI %g", k, d_pgdds[k], d_mpi[k]);

    int32_t bits = 1 << me, b_pgdds = 0, b_mpi = 0;
    T_OK(pgdds_allreduce(ctx, &bits, &b_pgdds, 1, PGDDS_INT32, PGDDS_OP_BOR));
    MPI_Allreduce(&bits, &b_mpi, 1, MPI_INT32_T, MPI_BOR, MPI_COMM_WORLD);
    T_CHECK(b_pgdds == b_mpi);

    /* Each rank puts its rank into the next rank's slot; MPI then gathers what arrived. */
    pgdds_gptr_t mine = PGDDS_GPTR_NULL, *all = calloc((size_t)n, sizeof *all);
    T_OK(pgdds_alloc(ctx, sizeof(int64_t), 0, &mine));
    T_OK(pgdds_allgather(ctx, &mine, all, sizeof mine));
    int64_t value = me;
    T_OK(pgdds_put(ctx, all[(me + 1) % n], &value, sizeof value));
    T_OK(pgdds_barrier(ctx));
    int64_t arrived = -1;
    T_OK(pgdds_get(ctx, &arrived, mine, sizeof arrived));
    int64_t *gathered = calloc((size_t)n, sizeof *gathered);
    MPI_Allgather(&arrived, 1, MPI_INT64_T, gathered, 1, MPI_INT64_T, MPI_COMM_WORLD);
    for (int r = 0; r < n; ++r) T_CHECK_MSG(gathered[r] == (r + n - 1) % n, "rank %d received %lld", r, (long long)gathered[r]);
    free(gathered);
    free(all);

    const int mpi_first = argc > 1 && strcmp(argv[1], "--mpi-finalize-first") == 0;
    if (mpi_first) MPI_Finalize();
    int result = t_finish(ctx, "launchers/mpi-interop");
    if (!mpi_first) MPI_Finalize();
    return result;
}
