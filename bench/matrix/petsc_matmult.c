/* The PETSc peer of bench/matrix/spmm: MatMatMult of the same sparse matrix A (a Matrix Market
 * file that `spmm --write-mm` wrote) as an MPIAIJ matrix, times K dense columns (MPIDense, the
 * values spmm's B has) and, with --spgemm, times itself (MPIAIJ x MPIAIJ), run with mpirun and
 * reported as spmm reports (SpMM in GFLOP/s, SpGEMM in seconds).
 *
 *   mpirun -n 2 bench/matrix/petsc_matmult A.mtx [--cols K] [--reps N] [--json] [--spgemm]
 */
#include "../micro/report.h"

#include <petscmat.h>

static double seconds(void) { return now_us() * 1e-6; }

/* Reads the Matrix Market file's entries whose rows this rank owns ([r0, r1)) into A, an n x n
 * MPIAIJ matrix preallocated from a first pass; every rank reads the file. Returns 0 on success. */
static int read_mm(const char *path, Mat *out, PetscInt *n_out, PetscInt *nnz_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "petsc_matmult: cannot open %s\n", path);
        return 1;
    }
    char line[256];
    long long rows = 0, cols = 0, nnz = 0;
    int header = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '%' || line[0] == '\n') continue;
        header = sscanf(line, "%lld %lld %lld", &rows, &cols, &nnz) == 3;
        break;
    }
    if (!header || rows != cols || rows <= 0) {
        fprintf(stderr, "petsc_matmult: %s is not a square Matrix Market coordinate matrix\n", path);
        fclose(f);
        return 1;
    }
    const long data = ftell(f);
    PetscInt n = (PetscInt)rows, nlocal = PETSC_DECIDE, r0 = 0;
    PetscSplitOwnership(PETSC_COMM_WORLD, &nlocal, &n);
    MPI_Scan(&nlocal, &r0, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD);
    r0 -= nlocal;
    const PetscInt r1 = r0 + nlocal;
    PetscInt *dnz = calloc((size_t)nlocal + 1, sizeof *dnz), *onz = calloc((size_t)nlocal + 1, sizeof *onz);
    long long i = 0, j = 0;
    double v = 0;
    for (int pass = 0; pass < 2; ++pass) {
        fseek(f, data, SEEK_SET);
        while (fgets(line, sizeof line, f)) {
            if (line[0] == '%' || sscanf(line, "%lld %lld %lf", &i, &j, &v) != 3) continue;
            const PetscInt r = (PetscInt)(i - 1), c = (PetscInt)(j - 1);
            if (r < r0 || r >= r1) continue;
            if (pass == 0) ++*(c >= r0 && c < r1 ? &dnz[r - r0] : &onz[r - r0]);
            else MatSetValue(*out, r, c, (PetscScalar)v, INSERT_VALUES);
        }
        if (pass == 0) {
            MatCreate(PETSC_COMM_WORLD, out);
            MatSetSizes(*out, nlocal, nlocal, n, n);
            MatSetType(*out, MATMPIAIJ);
            MatMPIAIJSetPreallocation(*out, 0, dnz, 0, onz);
        }
    }
    fclose(f);
    free(dnz), free(onz);
    MatAssemblyBegin(*out, MAT_FINAL_ASSEMBLY);
    MatAssemblyEnd(*out, MAT_FINAL_ASSEMBLY);
    *n_out = n;
    *nnz_out = (PetscInt)nnz;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t k = 32, reps = 3, v = 0;
    int spgemm = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) report_json = 1;
        else if (strcmp(argv[i], "--spgemm") == 0) spgemm = 1;
        else if (strcmp(argv[i], "--cols") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 4096, &v)) k = v, ++i;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && pgdds_cli_whole(argv[i + 1], 1, 1000, &v)) reps = v, ++i;
        else if (!path && argv[i][0] != '-') path = argv[i];
        else path = NULL, i = argc;
    }
    if (!path) {
        fprintf(stderr, "usage: %s A.mtx [--cols K] [--reps N] [--json] [--spgemm]\n", argv[0]);
        return 2;
    }
    /* PETSc reads no options of its own from this command line. */
    int pargc = 1;
    char **pargv = argv;
    if (PetscInitialize(&pargc, &pargv, NULL, NULL) != 0) return 1;
    PetscMPIInt rank = 0, p = 1;
    MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
    MPI_Comm_size(PETSC_COMM_WORLD, &p);
    Mat A = NULL, B = NULL, C = NULL;
    PetscInt n = 0, nnz = 0, r0 = 0, r1 = 0;
    if (read_mm(path, &A, &n, &nnz) != 0) {
        PetscFinalize();
        return 1;
    }
    /* B(i, j) = ((7 i + 3 j) mod 11) / 11, as spmm's B. */
    MatGetOwnershipRange(A, &r0, &r1);
    MatCreateDense(PETSC_COMM_WORLD, r1 - r0, PETSC_DECIDE, n, (PetscInt)k, NULL, &B);
    for (PetscInt i = r0; i < r1; ++i)
        for (PetscInt j = 0; j < (PetscInt)k; ++j)
            MatSetValue(B, i, j, (PetscScalar)((double)(((uint64_t)i * 7 + (uint64_t)j * 3) % 11) / 11.0), INSERT_VALUES);
    MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY);
    MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY);

    char metric[96];
    double best = 1e300;
    MatMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C);
    for (uint64_t r = 0; r < reps; ++r) {
        MPI_Barrier(PETSC_COMM_WORLD);
        double t0 = seconds();
        MatMatMult(A, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C);
        double dt = seconds() - t0, worst = 0;
        MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
        if (worst < best) best = worst;
    }
    if (rank == 0) {
        snprintf(metric, sizeof metric, "petsc spmm k=%llu", (unsigned long long)k);
        report("matrix-spmm", "mpi", p, 1, (size_t)n, metric, 2.0 * (double)nnz * (double)k / best * 1e-9, "GFLOP/s");
    }
    MatDestroy(&C);
    if (spgemm) {
        /* A new product each time, as pgdds_smatrix_spgemm makes one. */
        PetscInt cnnz = 0;
        best = 1e300;
        for (uint64_t r = 0; r < reps; ++r) {
            Mat P2 = NULL;
            MPI_Barrier(PETSC_COMM_WORLD);
            double t0 = seconds();
            MatMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &P2);
            double dt = seconds() - t0, worst = 0;
            MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
            if (worst < best) best = worst;
            MatInfo info;
            MatGetInfo(P2, MAT_GLOBAL_SUM, &info);
            cnnz = (PetscInt)info.nz_used;
            MatDestroy(&P2);
        }
        if (rank == 0) {
            snprintf(metric, sizeof metric, "petsc spgemm A*A nnz(C)=%lld", (long long)cnnz);
            report("matrix-spgemm", "mpi", p, 1, (size_t)n, metric, best, "s");
        }
    }
    MatDestroy(&A);
    MatDestroy(&B);
    PetscFinalize();
    return 0;
}
