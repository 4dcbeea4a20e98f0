/* C = alpha A B + beta C with every algorithm, over conforming layouts of every kind (square
 * block-cyclic tiles, 1 x N and N x 1 grids, block row times block column), on shapes the
 * grids do not divide, and with A, B or both read transposed (pgdds_dmatrix_gemm_trans, each
 * stored as its transpose in the swapped layout), checked against a single-process product of
 * the same matrices: CBLAS for float and double (within the stated tolerance), a plain loop for
 * the integer types (exact). Bad input returns a status on every rank and leaves C as it was. */
#include "matrix_test.h"

#include <cblas.h>

static int rank, nranks;

/* Relative tolerance against the largest |alpha| sum |a||b| + |beta c|: the distributed and the
 * single-process products add the same terms in different orders. */
#define TOL_FLOAT 1e-5
#define TOL_DOUBLE 1e-12

static const char *const algo_names[] = {"stationary-C", "stationary-A", "stationary-B", "SUMMA",
                                         "random stealing", "locality-aware stealing"};

struct gemm_layout {
    const char *name;
    pgdds_dmatrix_params_t a, b, c; /* rows, cols and dtype are filled in per case */
};

static pgdds_dmatrix_params_t lay(pgdds_dist_t d, uint64_t mask, int gr, int gc, uint64_t tr, uint64_t tc)
{
    pgdds_dmatrix_params_t p;
    memset(&p, 0, sizeof p);
    p.distribution = d;
    p.field_mask = mask;
    p.grid_rows = gr;
    p.grid_cols = gc;
    p.tile_rows = tr;
    p.tile_cols = tc;
    return p;
}

static pgdds_dmatrix_t make(pgdds_context_t ctx, pgdds_dmatrix_params_t p, uint64_t rows, uint64_t cols, pgdds_dtype_t t)
{
    pgdds_dmatrix_t m = NULL;
    p.rows = rows;
    p.cols = cols;
    p.dtype = t;
    T_OK(pgdds_dmatrix_create(ctx, &p, &m));
    return m;
}

/* The single-process product of the same matrices. */
static void reference(pgdds_dtype_t t, uint64_t m, uint64_t n, uint64_t k, double alpha, double beta, double *c,
                      double *scale)
{
    double *a = malloc(m * k * sizeof *a), *b = malloc(k * n * sizeof *b);
    for (uint64_t x = 0; x < m * k; ++x) a[x] = m_pattern(1, x / k, x % k);
    for (uint64_t x = 0; x < k * n; ++x) b[x] = m_pattern(2, x / n, x % n);
    for (uint64_t x = 0; x < m * n; ++x) c[x] = m_pattern(3, x / n, x % n);
    *scale = fabs(beta) * 56 + fabs(alpha) * 56.0 * 56.0 * (double)k;
    if (t == PGDDS_FLOAT) {
        float *af = malloc(m * k * sizeof *af), *bf = malloc(k * n * sizeof *bf), *cf = malloc(m * n * sizeof *cf);
        for (uint64_t x = 0; x < m * k; ++x) af[x] = (float)a[x];
        for (uint64_t x = 0; x < k * n; ++x) bf[x] = (float)b[x];
        for (uint64_t x = 0; x < m * n; ++x) cf[x] = (float)c[x];
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, (float)alpha, af, (int)k, bf,
                    (int)n, (float)beta, cf, (int)n);
        for (uint64_t x = 0; x < m * n; ++x) c[x] = cf[x];
        free(af), free(bf), free(cf);
    } else if (t == PGDDS_DOUBLE) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, alpha, a, (int)k, b, (int)n,
                    beta, c, (int)n);
    } else { /* CBLAS has no integer product; these small integers are exact in doubles */
        for (uint64_t i = 0; i < m; ++i)
            for (uint64_t j = 0; j < n; ++j) {
                double s = 0;
                for (uint64_t p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
                c[i * n + j] = alpha * s + beta * c[i * n + j];
            }
    }
    free(a), free(b);
}

static int close_enough(pgdds_dtype_t t, double got, double want, double scale)
{
    if (t == PGDDS_INT32 || t == PGDDS_INT64) return got == want;
    return fabs(got - want) <= (t == PGDDS_FLOAT ? TOL_FLOAT : TOL_DOUBLE) * scale;
}

/* The layout of X^T's storage for an operand laid out as p: grid and tile sizes swapped, block
 * rows for block columns; so X^T read transposed tiles as p would. */
static pgdds_dmatrix_params_t swapped(pgdds_dmatrix_params_t p)
{
    int g = p.grid_rows;
    uint64_t t = p.tile_rows;
    p.grid_rows = p.grid_cols, p.grid_cols = g;
    p.tile_rows = p.tile_cols, p.tile_cols = t;
    if (p.distribution == PGDDS_DIST_BLOCK_ROW) p.distribution = PGDDS_DIST_BLOCK_COL;
    else if (p.distribution == PGDDS_DIST_BLOCK_COL) p.distribution = PGDDS_DIST_BLOCK_ROW;
    return p;
}

/* Element (i, j) of a matrix stored transposed: the pattern at (j, i). */
static void transposed_generator(uint64_t i, uint64_t j, void *value, void *arg)
{
    m_generator(j, i, value, arg);
}

/* An operand of pattern `seed`, rows x cols as the product reads it: stored as it is, or (trans)
 * as its transpose, which gemm_trans reads transposed. */
static pgdds_dmatrix_t operand(pgdds_context_t ctx, pgdds_dmatrix_params_t p, uint64_t rows, uint64_t cols,
                               pgdds_dtype_t t, int trans, struct m_gen_arg *g)
{
    pgdds_dmatrix_t x = trans ? make(ctx, swapped(p), cols, rows, t) : make(ctx, p, rows, cols, t);
    if (x) T_OK(pgdds_dmatrix_fill(x, trans ? transposed_generator : m_generator, g));
    return x;
}

/* C = alpha op(A) op(B) + beta C (op: the transpose where ta or tb) by one algorithm. */
static void run(pgdds_context_t ctx, const struct gemm_layout *L, uint64_t m, uint64_t n, uint64_t k, int ti, int algo,
                int ta, int tb)
{
    pgdds_dtype_t t = m_types[ti];
    int integer = t == PGDDS_INT32 || t == PGDDS_INT64;
    double alpha = integer ? 2 : 1.5, beta = integer ? -1 : 0.5;
    struct m_gen_arg ga = {t, 1}, gb = {t, 2}, gc = {t, 3};
    pgdds_dmatrix_t A = operand(ctx, L->a, m, k, t, ta, &ga), B = operand(ctx, L->b, k, n, t, tb, &gb);
    pgdds_dmatrix_t C = make(ctx, L->c, m, n, t);
    if (!A || !B || !C) return;
    T_OK(pgdds_dmatrix_fill(C, m_generator, &gc));
    const pgdds_trans_t opa = ta ? PGDDS_TRANS : PGDDS_NO_TRANS, opb = tb ? PGDDS_TRANS : PGDDS_NO_TRANS;
    pgdds_order_t oa, ob, oc;
    T_OK(pgdds_dmatrix_order(A, &oa));
    T_OK(pgdds_dmatrix_order(B, &ob));
    T_OK(pgdds_dmatrix_order(C, &oc));
    const int col_major = oa == PGDDS_COL_MAJOR || ob == PGDDS_COL_MAJOR || oc == PGDDS_COL_MAJOR;
    if (ta || tb) T_OK(pgdds_dmatrix_gemm_trans(opa, opb, alpha, A, B, beta, C, (pgdds_gemm_algorithm_t)algo));
    else T_OK(pgdds_dmatrix_gemm(alpha, A, B, beta, C, (pgdds_gemm_algorithm_t)algo));
    pgdds_matrix_steals_t steals;
    pgdds_dmatrix_info_t ia, ic;
    T_OK(pgdds_dmatrix_steals(C, &steals));
    T_OK(pgdds_dmatrix_info(A, &ia));
    T_OK(pgdds_dmatrix_info(C, &ic));
    m_check_steals(ctx, &steals, algo == PGDDS_GEMM_STEAL_RANDOM || algo == PGDDS_GEMM_STEAL_LOCALITY,
                   ic.tile_grid_rows * ic.tile_grid_cols, ta ? ia.tile_grid_rows : ia.tile_grid_cols,
                   algo_names[algo]);
    double *want = malloc(m * n * sizeof *want), scale = 0;
    reference(t, m, n, k, alpha, beta, want, &scale);
    double *got = m_whole(C, t, m, n);
    int bad = 0;
    for (uint64_t x = 0; x < m * n && bad < 3; ++x)
        if (!close_enough(t, got[x], want[x], scale)) {
            ++bad;
            T_CHECK_MSG(0, "%s %s %s %llux%llux%llu%s%s%s: C(%llu, %llu) is %.17g, expected %.17g", L->name,
                        algo_names[algo], m_type_names[ti], (unsigned long long)m, (unsigned long long)n,
                        (unsigned long long)k, ta ? " A^T" : "", tb ? " B^T" : "", col_major ? " column-major" : "",
                        (unsigned long long)(x / n), (unsigned long long)(x % n), got[x], want[x]);
        }
    /* Again with beta 0 over a C of NaNs (floating types): C is set without being read. */
    if (!integer && algo == 0 && !ta && !tb) {
        double nan_ = NAN;
        T_OK(pgdds_barrier(ctx)); /* every rank has read C */
        for (uint64_t x = 0; x < m * n; ++x) {
            if ((int)(x % (uint64_t)nranks) != rank) continue;
            char v[8];
            m_set(t, v, nan_);
            T_OK(pgdds_dmatrix_put(C, x / n, x % n, v));
        }
        T_OK(pgdds_flush(ctx));
        T_OK(pgdds_dmatrix_gemm(1, A, B, 0, C, (pgdds_gemm_algorithm_t)algo));
        reference(t, m, n, k, 1, 0, want, &scale);
        free(got);
        got = m_whole(C, t, m, n);
        for (uint64_t x = 0, b2 = 0; x < m * n && b2 < 3; ++x)
            if (!close_enough(t, got[x], want[x], scale)) {
                ++b2;
                T_CHECK_MSG(0, "%s %s beta 0: C(%llu, %llu) is %g, expected %g", L->name, algo_names[algo],
                            (unsigned long long)(x / n), (unsigned long long)(x % n), got[x], want[x]);
            }
    }
    free(want), free(got);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_dmatrix_destroy(A));
    T_OK(pgdds_dmatrix_destroy(B));
    T_OK(pgdds_dmatrix_destroy(C));
}

/* Refused multiplications leave C as it was, with the same status on every rank. */
static void bad_input(pgdds_context_t ctx)
{
    pgdds_dmatrix_params_t sq = lay(PGDDS_DIST_BLOCK_CYCLIC, PGDDS_DMATRIX_FIELD_TILE, 0, 0, 3, 3);
    pgdds_dmatrix_t A = make(ctx, sq, 7, 5, PGDDS_DOUBLE), B = make(ctx, sq, 5, 6, PGDDS_DOUBLE);
    pgdds_dmatrix_t C = make(ctx, sq, 7, 6, PGDDS_DOUBLE), Bt = make(ctx, sq, 6, 5, PGDDS_DOUBLE);
    pgdds_dmatrix_t Bi = make(ctx, sq, 5, 6, PGDDS_INT32), Ci = make(ctx, sq, 7, 6, PGDDS_INT32);
    pgdds_dmatrix_t B4 = make(ctx, lay(PGDDS_DIST_BLOCK_CYCLIC, PGDDS_DMATRIX_FIELD_TILE, 0, 0, 4, 3), 5, 6, PGDDS_DOUBLE);
    if (!A || !B || !C || !Bt || !Bi || !Ci || !B4) return;
    struct m_gen_arg g = {PGDDS_DOUBLE, 3}, gi = {PGDDS_INT32, 3};
    T_OK(pgdds_dmatrix_fill(C, m_generator, &g));
    T_OK(pgdds_dmatrix_fill(Ci, m_generator, &gi));
    double *before = m_whole(C, PGDDS_DOUBLE, 7, 6);
    T_STATUS(pgdds_dmatrix_gemm(1, A, Bt, 0, C, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG); /* shapes */
    T_STATUS(pgdds_dmatrix_gemm(1, A, Bi, 0, C, PGDDS_GEMM_STATIONARY_A), PGDDS_ERR_INVALID_ARG); /* types */
    T_STATUS(pgdds_dmatrix_gemm(1, A, B4, 0, C, PGDDS_GEMM_STATIONARY_B), PGDDS_ERR_INVALID_ARG); /* tilings */
    T_STATUS(pgdds_dmatrix_gemm(1, A, B, 0, C, (pgdds_gemm_algorithm_t)7), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_gemm(1, A, B, 0, C, (pgdds_gemm_algorithm_t)-1), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_gemm(NAN, A, B, 0, C, PGDDS_GEMM_SUMMA), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_gemm(1, C, B, 0, C, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG); /* C is A */
    T_STATUS(pgdds_dmatrix_gemm(1, NULL, B, 0, C, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_gemm(1, A, NULL, 0, C, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_gemm(1, A, B, 0, NULL, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_gemm_trans((pgdds_trans_t)2, PGDDS_NO_TRANS, 1, A, B, 0, C, PGDDS_GEMM_STATIONARY_C),
             PGDDS_ERR_INVALID_ARG); /* neither */
    T_STATUS(pgdds_dmatrix_gemm_trans(PGDDS_NO_TRANS, (pgdds_trans_t)-1, 1, A, B, 0, C, PGDDS_GEMM_STATIONARY_C),
             PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_gemm_trans(PGDDS_TRANS, PGDDS_NO_TRANS, 1, A, B, 0, C, PGDDS_GEMM_STATIONARY_C),
             PGDDS_ERR_INVALID_ARG); /* A^T is 5 x 7 */
    T_STATUS(pgdds_dmatrix_gemm_trans(PGDDS_NO_TRANS, PGDDS_TRANS, 1, A, Bt, 0, NULL, PGDDS_GEMM_STATIONARY_C),
             PGDDS_ERR_INVALID_ARG);
    if (nranks > 1) { /* A and B on other grids than C's: SUMMA copies them onto C's */
        pgdds_dmatrix_t Ar = make(ctx, lay(PGDDS_DIST_CUSTOM, PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE,
                                           nranks, 1, 3, 3), 7, 5, PGDDS_DOUBLE);
        pgdds_dmatrix_t Bc = make(ctx, lay(PGDDS_DIST_CUSTOM, PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE,
                                           1, nranks, 3, 3), 5, 6, PGDDS_DOUBLE);
        struct m_gen_arg g1 = {PGDDS_DOUBLE, 1}, g2 = {PGDDS_DOUBLE, 2};
        T_OK(pgdds_dmatrix_fill(Ar, m_generator, &g1));
        T_OK(pgdds_dmatrix_fill(Bc, m_generator, &g2));
        T_OK(pgdds_dmatrix_gemm(1, Ar, Bc, 0, C, PGDDS_GEMM_SUMMA));
        double *summa = m_whole(C, PGDDS_DOUBLE, 7, 6);
        T_OK(pgdds_barrier(ctx)); /* every rank has read C */
        T_OK(pgdds_dmatrix_gemm(1, Ar, Bc, 0, C, PGDDS_GEMM_STATIONARY_C)); /* the one-sided ones take any grids */
        double *one_sided = m_whole(C, PGDDS_DOUBLE, 7, 6);
        for (int x = 0; x < 42; ++x) T_CHECK(summa[x] == one_sided[x]);
        free(summa), free(one_sided);
        T_OK(pgdds_dmatrix_destroy(Ar));
        T_OK(pgdds_dmatrix_destroy(Bc));
        free(before);
        before = m_whole(C, PGDDS_DOUBLE, 7, 6);
    }
    double *after = m_whole(C, PGDDS_DOUBLE, 7, 6);
    for (int x = 0; x < 42; ++x) T_CHECK(after[x] == before[x]);
    free(after);
    /* Integer types take whole scalars only. */
    pgdds_dmatrix_t Ai = make(ctx, sq, 7, 5, PGDDS_INT32);
    double *ibefore = m_whole(Ci, PGDDS_INT32, 7, 6);
    T_STATUS(pgdds_dmatrix_gemm(1.5, Ai, Bi, 0, Ci, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_gemm(1, Ai, Bi, 0.25, Ci, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG);
    double *iafter = m_whole(Ci, PGDDS_INT32, 7, 6);
    for (int x = 0; x < 42; ++x) T_CHECK(iafter[x] == ibefore[x]);
    free(ibefore), free(iafter), free(before);
    T_OK(pgdds_barrier(ctx));
    pgdds_dmatrix_t all[] = {A, B, C, Bt, Bi, Ci, B4, Ai};
    for (size_t x = 0; x < sizeof all / sizeof all[0]; ++x) T_OK(pgdds_dmatrix_destroy(all[x]));
    T_STATUS(pgdds_dmatrix_gemm(1, A, B, 0, C, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG); /* destroyed */
}

int main(void)
{
    pgdds_context_t ctx = t_init(NULL);
    rank = pgdds_rank(ctx);
    nranks = pgdds_nranks(ctx);
    const uint64_t G = PGDDS_DMATRIX_FIELD_GRID, T = PGDDS_DMATRIX_FIELD_TILE;
    /* Conforming tilings: A's tile rows are C's, A's tile columns B's tile rows, B's tile
     * columns C's. Block row x block column: A's tiles span k, B's tiles span k. */
    int P = nranks;
    uint64_t mr = 0, nc = 0; /* filled per shape below */
    static const uint64_t shapes[][3] = {{13, 11, 9}, {1, 5, 7}, {6, 1, 4}, {5, 4, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        uint64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        mr = (m + (uint64_t)P - 1) / (uint64_t)P;
        nc = (n + (uint64_t)P - 1) / (uint64_t)P;
        struct gemm_layout layouts[] = {
            {"block-cyclic 3 x 3", lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3), lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3),
             lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3)},
            {"1 x N grid", lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 4, 2), lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 2, 3),
             lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 4, 3)},
            {"N x 1 grid", lay(PGDDS_DIST_CUSTOM, G | T, P, 1, 2, 5), lay(PGDDS_DIST_CUSTOM, G | T, P, 1, 5, 2),
             lay(PGDDS_DIST_CUSTOM, G | T, P, 1, 2, 2)},
            {"block row x block column", lay(PGDDS_DIST_BLOCK_ROW, 0, 0, 0, 0, 0), lay(PGDDS_DIST_BLOCK_COL, 0, 0, 0, 0, 0),
             lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, mr, nc)},
        };
        for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; ++l)
            for (int t = 0; t < 4; ++t)
                for (int algo = 0; algo < 6; ++algo) {
                    /* The small shapes take one type per layout; the first takes them all. */
                    if (s > 0 && t != (int)((l + s) % 4)) continue;
                    run(ctx, &layouts[l], m, n, k, t, algo, 0, 0);
                }
        /* Transposed operands, read in place: op(A) = A^T, op(B) = B^T or both, stored with the
         * swapped layouts, on the first shape for every layout and algorithm; float and int64. */
        for (size_t l = 0; s == 0 && l < sizeof layouts / sizeof layouts[0]; ++l)
            for (int tr = 1; tr < 4; ++tr)
                for (int t = 0; t < 4; ++t)
                    for (int algo = 0; algo < 6; ++algo) {
                        if (m_types[t] != PGDDS_FLOAT && m_types[t] != PGDDS_INT64) continue;
                            run(ctx, &layouts[l], m, n, k, t, algo, tr & 1, tr >> 1);
                    }
    }
    /* Column-major tiles (pgdds_order_t) for A, B or C alone and all three, with and without
     * transposed operands, every algorithm (SUMMA on row-major copies), on 13 x 11 x 9 over block-cyclic
     * 3 x 3 tiles and the 1 x N grid; float and int64. */
    for (int l = 0; l < 2; ++l)
        for (int mask = 1; mask < 8; mask = mask == 4 ? 7 : mask << 1)
            for (int tr = 0; tr < 4; tr += 3)
                for (int t = 0; t < 4; ++t)
                    for (int algo = 0; algo < 6; ++algo) {
                        if (m_types[t] != PGDDS_FLOAT && m_types[t] != PGDDS_INT64) continue;
                        struct gemm_layout cmaj = l == 0
                            ? (struct gemm_layout){"column-major block-cyclic 3 x 3", lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3),
                                                   lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3),
                                                   lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3)}
                            : (struct gemm_layout){"column-major 1 x N grid", lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 4, 2),
                                                   lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 2, 3),
                                                   lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 4, 3)};
                        pgdds_dmatrix_params_t *ops[3] = {&cmaj.a, &cmaj.b, &cmaj.c};
                        for (int x = 0; x < 3; ++x)
                            if (mask & (1 << x)) {
                                ops[x]->field_mask |= PGDDS_DMATRIX_FIELD_ORDER;
                                ops[x]->order = PGDDS_COL_MAJOR;
                            }
                        run(ctx, &cmaj, 13, 11, 9, t, algo, tr & 1, tr >> 1);
                    }
    /* 2D block (one tile per rank): A, B and C of one square shape conform on a square grid
     * (1 or 4 ranks), every algorithm; elsewhere their tilings differ and every rank refuses. */
    for (int t = 0; t < 4; ++t) {
        struct gemm_layout block2d = {"2d block", lay(PGDDS_DIST_BLOCK_2D, 0, 0, 0, 0, 0), lay(PGDDS_DIST_BLOCK_2D, 0, 0, 0, 0, 0),
                                      lay(PGDDS_DIST_BLOCK_2D, 0, 0, 0, 0, 0)};
        int gr = 1;
        for (int d = 1; d * d <= P; ++d)
            if (P % d == 0) gr = d;
        if (gr * gr == P) {
            for (int algo = 0; algo < 6; ++algo) run(ctx, &block2d, 10, 10, 10, t, algo, 0, 0);
        } else {
            pgdds_dmatrix_t A = make(ctx, block2d.a, 10, 10, m_types[t]), B = make(ctx, block2d.b, 10, 10, m_types[t]);
            pgdds_dmatrix_t C = make(ctx, block2d.c, 10, 10, m_types[t]);
            T_STATUS(pgdds_dmatrix_gemm(1, A, B, 0, C, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG);
            T_OK(pgdds_dmatrix_destroy(A));
            T_OK(pgdds_dmatrix_destroy(B));
            T_OK(pgdds_dmatrix_destroy(C));
        }
    }
    bad_input(ctx);
    return t_finish(ctx, "matrix/gemm");
}
