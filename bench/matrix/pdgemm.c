/* The ScaLAPACK peer of bench/matrix/gemm: pdgemm on n x n doubles over a near-square BLACS
 * grid with square blocks (one per rank and dimension unless --block), reported as gemm reports.
 *
 *   mpirun -n 2 bench/matrix/pdgemm 2048 [--json] [--reps N] [--block NB]
 */
#include "../micro/report.h"

#include <mpi.h>

/* BLACS and ScaLAPACK have no C header in Debian's packages: their C and Fortran entry points. */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int context, int request, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc, const int *icsrc,
               const int *ictxt, const int *lld, int *info);
void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
             const double *a, const int *ia, const int *ja, const int *desca, const double *b, const int *ib,
             const int *jb, const int *descb, const double *beta, double *c, const int *ic, const int *jc,
             const int *descc);

int main(int argc, char **argv)
{
    uint64_t n = 0, reps = 3, block = 0, v = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) report_json = 1;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 1000, &v)) reps = v, ++i;
        else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 1 << 20, &v)) block = v, ++i;
        else if (!n && pgdds_cli_whole(argv[i], 1, 1 << 20, &v)) n = v;
        else n = 0, i = argc;
    }
    if (!n) {
        fprintf(stderr, "usage: %s N [--json] [--reps N] [--block NB]\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int me = 0, p = 1, ctx = 0, nprow = 1, npcol = 1, myrow = 0, mycol = 0, zero = 0, one = 1, info = 0;
    Cblacs_pinfo(&me, &p);
    for (int d = 1; d * d <= p; ++d)
        if (p % d == 0) nprow = d;
    npcol = p / nprow;
    Cblacs_get(-1, 0, &ctx);
    Cblacs_gridinit(&ctx, "Row", nprow, npcol);
    Cblacs_gridinfo(ctx, &nprow, &npcol, &myrow, &mycol);
    const int N = (int)n, nb = (int)(block ? block : (n + (uint64_t)npcol - 1) / (uint64_t)npcol);
    const int lr = numroc_(&N, &nb, &myrow, &zero, &nprow), lc = numroc_(&N, &nb, &mycol, &zero, &npcol);
    const int lld = lr > 1 ? lr : 1;
    int desc[9];
    descinit_(desc, &N, &N, &nb, &nb, &zero, &zero, &ctx, &lld, &info);
    size_t e = (size_t)lld * (size_t)(lc > 0 ? lc : 1);
    double *a = malloc(e * 8), *b = malloc(e * 8), *c = calloc(e, 8), alpha = 1, beta = 0, best = 1e300;
    for (size_t x = 0; x < e; ++x) a[x] = b[x] = (double)((x * 7 + (size_t)me) % 97) / 97.0;
    for (uint64_t r = 0; r < reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pdgemm_("N", "N", &N, &N, &N, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c, &one, &one, desc);
        double dt = MPI_Wtime() - t0, worst = 0;
        MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (worst < best) best = worst;
    }
    if (me == 0) report("matrix-gemm", "mpi", p, 1, (size_t)n, "scalapack-pdgemm", 2.0 * N * N * (double)N / best * 1e-9, "GFLOP/s");
    free(a), free(b), free(c);
    Cblacs_gridexit(ctx);
    MPI_Finalize();
    return info == 0 ? 0 : 1;
}
