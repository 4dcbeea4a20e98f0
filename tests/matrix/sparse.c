/* Distributed sparse matrices: construction from coordinate triples that every rank
 * contributes to (duplicates across and within ranks summed), CSR tiles read with three gets
 * and in place, empty rows and empty tiles, and C = alpha A B + beta C (SpMM by every
 * algorithm; SpMV with a one-column B) against a single-process product of the same matrices
 * (CBLAS on A made dense for float and double, within 1e-5 / 1e-12 relative; exact for
 * integers); SpGEMM (sparse C = alpha A B) by stationary C, A and B against rank 0's serial
 * product; Matrix Market files written and read in parallel. Bad input returns a status on
 * every rank and leaves C as it was (or makes no C). The stencil and R-MAT generators are
 * checked entry by entry or by their invariants. */
#include "matrix_test.h"

#include <cblas.h>
#include <unistd.h>

static int rank, nranks;
static pgdds_context_t test_ctx;

/* A's pattern: entries where (3i + 5j) % 7 == 0, none in rows i % 4 == 3; values 1 to 5. */
static int a_has(uint64_t i, uint64_t j) { return i % 4 != 3 && (3 * i + 5 * j) % 7 == 0; }
static double a_val(uint64_t i, uint64_t j) { return (double)((i + j) % 5 + 1); }

static pgdds_dmatrix_params_t lay(pgdds_dist_t d, uint64_t mask, int gr, int gc, uint64_t tr, uint64_t tc, uint64_t rows,
                                  uint64_t cols, pgdds_dtype_t t)
{
    pgdds_dmatrix_params_t p;
    memset(&p, 0, sizeof p);
    p.distribution = d;
    p.field_mask = mask;
    p.grid_rows = gr;
    p.grid_cols = gc;
    p.tile_rows = tr;
    p.tile_cols = tc;
    p.rows = rows;
    p.cols = cols;
    p.dtype = t;
    return p;
}

/* Every rank contributes entry number e when e % nranks is its rank; every third entry comes
 * in two parts, the second from the next rank (on one rank: twice from it). */
static pgdds_smatrix_t build(const pgdds_dmatrix_params_t *p, int empty, uint64_t *nnz_out)
{
    size_t cap = p->rows * p->cols * 2 + 1, count = 0;
    uint64_t *r = malloc(cap * 8), *c = malloc(cap * 8), e = 0;
    char *v = malloc(cap * 8);
    size_t es = m_esize(p->dtype);
    for (uint64_t i = 0; i < p->rows && !empty; ++i)
        for (uint64_t j = 0; j < p->cols; ++j) {
            if (!a_has(i, j)) continue;
            int split = e % 3 == 0;
            if ((int)(e % (uint64_t)nranks) == rank) {
                r[count] = i, c[count] = j;
                m_set(p->dtype, v + count * es, a_val(i, j) - split);
                ++count;
            }
            if (split && (int)((e + 1) % (uint64_t)nranks) == rank) {
                r[count] = i, c[count] = j;
                m_set(p->dtype, v + count * es, 1);
                ++count;
            }
            ++e;
        }
    pgdds_smatrix_t m = NULL;
    T_OK(pgdds_smatrix_create_coo(test_ctx, p, count, count ? r : NULL, count ? c : NULL, count ? v : NULL, &m));
    free(r), free(c), free(v);
    *nnz_out = e;
    return m;
}

/* Reads every tile (three gets, and in place where this rank holds it) and compares it with
 * the pattern; returns A made dense. */
static double *check_tiles(pgdds_smatrix_t m, const pgdds_dmatrix_params_t *p, int empty, uint64_t nnz)
{
    pgdds_dmatrix_info_t info;
    uint64_t total = 0;
    T_OK(pgdds_smatrix_info(m, &info, &total));
    T_CHECK_MSG(total == nnz, "%llu entries, expected %llu", (unsigned long long)total, (unsigned long long)nnz);
    size_t es = m_esize(p->dtype);
    double *dense = calloc(p->rows * p->cols, sizeof *dense);
    uint64_t seen = 0;
    for (uint64_t ti = 0; ti < info.tile_grid_rows; ++ti)
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj) {
            uint64_t tr = 0, tc = 0, tn = 0;
            int owner = -1;
            T_OK(pgdds_smatrix_tile_shape(m, ti, tj, &tr, &tc, &tn, &owner));
            uint64_t *off = malloc((tr + 1) * 8), *idx = malloc(tn * 8 + 8);
            char *val = malloc(tn * es + 8);
            T_OK(pgdds_smatrix_get_tile(m, ti, tj, off, tn ? idx : NULL, tn ? val : NULL));
            T_CHECK(off[0] == 0 && off[tr] == tn);
            for (uint64_t a = 0; a < tr; ++a) {
                T_CHECK(off[a] <= off[a + 1]);
                for (uint64_t e = off[a]; e < off[a + 1]; ++e) {
                    T_CHECK(idx[e] < tc && (e == off[a] || idx[e - 1] < idx[e]));
                    uint64_t i = ti * info.tile_rows + a, j = tj * info.tile_cols + idx[e];
                    if (idx[e] < tc) dense[i * p->cols + j] = m_val(p->dtype, val + e * es);
                }
            }
            if (owner == rank) {
                const uint64_t *lo, *li;
                const void *lv;
                T_OK(pgdds_smatrix_local_tile(m, ti, tj, &lo, &li, &lv));
                T_CHECK(memcmp(lo, off, (tr + 1) * 8) == 0 && (!tn || (memcmp(li, idx, tn * 8) == 0 &&
                                                                      memcmp(lv, val, tn * es) == 0)));
            } else {
                const uint64_t *lo, *li;
                const void *lv;
                T_STATUS(pgdds_smatrix_local_tile(m, ti, tj, &lo, &li, &lv), PGDDS_ERR_INVALID_ARG);
            }
            seen += tn;
            free(off), free(idx), free(val);
        }
    T_CHECK(seen == nnz);
    /* Slices across tiles, into a padded buffer, agree with the tiles; an empty one writes nothing. */
    for (uint64_t x = 0; x < 4; ++x) {
        uint64_t i = (x * 5 + (uint64_t)rank) % p->rows, j = (x * 3 + 1) % p->cols, nr = p->rows - i, nc = p->cols - j;
        uint64_t ld = nc + 2;
        char *s = malloc(nr * ld * es);
        T_OK(pgdds_smatrix_get_slice(m, i, j, nr, nc, s, ld));
        for (uint64_t a = 0; a < nr; ++a)
            for (uint64_t b = 0; b < nc; ++b) T_CHECK(m_val(p->dtype, s + (a * ld + b) * es) == dense[(i + a) * p->cols + j + b]);
        free(s);
    }
    char untouched = 'u';
    T_OK(pgdds_smatrix_get_slice(m, 0, 0, 0, 0, &untouched, 0));
    T_CHECK(untouched == 'u');
    int bad = 0;
    for (uint64_t i = 0; i < p->rows; ++i)
        for (uint64_t j = 0; j < p->cols && bad < 3; ++j) {
            double want = !empty && a_has(i, j) ? a_val(i, j) : 0;
            if (dense[i * p->cols + j] != want) {
                ++bad;
                T_CHECK_MSG(0, "A(%llu, %llu) is %g, expected %g", (unsigned long long)i, (unsigned long long)j,
                            dense[i * p->cols + j], want);
            }
        }
    return dense;
}

static pgdds_dmatrix_params_t col_major(pgdds_dmatrix_params_t p)
{
    p.field_mask |= PGDDS_DMATRIX_FIELD_ORDER;
    p.order = PGDDS_COL_MAJOR;
    return p;
}

static const pgdds_gemm_algorithm_t spmm_algs[] = {PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STATIONARY_A,
                                                    PGDDS_GEMM_STATIONARY_B, PGDDS_GEMM_STEAL_RANDOM,
                                                    PGDDS_GEMM_STEAL_LOCALITY};
static const char *const spmm_alg_names[] = {"stationary C", "stationary A", "stationary B", "random stealing",
                                             "locality-aware stealing"};

static void run(pgdds_dmatrix_params_t pa, pgdds_dmatrix_params_t pb, pgdds_dmatrix_params_t pc, int empty, const char *name)
{
    pgdds_dtype_t t = pa.dtype;
    int integer = t == PGDDS_INT32 || t == PGDDS_INT64;
    double alpha = integer ? 2 : 1.5, beta = integer ? -1 : 0.5;
    uint64_t nnz = 0, m = pa.rows, k = pa.cols, n = pb.cols;
    pgdds_smatrix_t A = build(&pa, empty, &nnz);
    pgdds_dmatrix_t B = NULL, C = NULL;
    T_OK(pgdds_dmatrix_create(test_ctx, &pb, &B));
    T_OK(pgdds_dmatrix_create(test_ctx, &pc, &C));
    if (!A || !B || !C) return;
    double *ad = check_tiles(A, &pa, empty, nnz);
    struct m_gen_arg gb = {t, 2}, gc = {t, 3};
    T_OK(pgdds_dmatrix_fill(B, m_generator, &gb));

    double *bd = malloc(k * n * sizeof *bd), *want = malloc(m * n * sizeof *want), scale = 0;
    for (uint64_t x = 0; x < k * n; ++x) bd[x] = m_pattern(2, x / n, x % n);
    for (uint64_t x = 0; x < m * n; ++x) want[x] = m_pattern(3, x / n, x % n);
    if (integer) {
        for (uint64_t i = 0; i < m; ++i)
            for (uint64_t j = 0; j < n; ++j) {
                double s = 0;
                for (uint64_t q = 0; q < k; ++q) s += ad[i * k + q] * bd[q * n + j];
                want[i * n + j] = alpha * s + beta * want[i * n + j];
            }
    } else {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, alpha, ad, (int)k, bd, (int)n, beta,
                    want, (int)n);
    }
    scale = fabs(beta) * 56 + fabs(alpha) * 5 * 56 * (double)k;
    double tol = integer ? 0 : (t == PGDDS_FLOAT ? 1e-5 : 1e-12) * scale;
    /* pgdds_smatrix_spmm (stationary C), then every algorithm SpMM offers, on a fresh C each. */
    for (int x = -1; x < 5; ++x) {
        T_OK(pgdds_dmatrix_fill(C, m_generator, &gc));
        if (x < 0) T_OK(pgdds_smatrix_spmm(alpha, A, B, beta, C));
        else T_OK(pgdds_smatrix_spmm_algorithm(alpha, A, B, beta, C, spmm_algs[x]));
        pgdds_matrix_steals_t steals;
        pgdds_dmatrix_info_t ia, ic;
        T_OK(pgdds_dmatrix_steals(C, &steals));
        T_OK(pgdds_smatrix_info(A, &ia, NULL));
        T_OK(pgdds_dmatrix_info(C, &ic));
        m_check_steals(test_ctx, &steals, x >= 0 && spmm_algs[x] >= PGDDS_GEMM_STEAL_RANDOM,
                       ic.tile_grid_rows * ic.tile_grid_cols, ia.tile_grid_cols, x < 0 ? "pgdds_smatrix_spmm" : spmm_alg_names[x]);
        double *got = m_whole(C, t, m, n);
        for (uint64_t e = 0, bad = 0; e < m * n && bad < 3; ++e)
            if (fabs(got[e] - want[e]) > tol) {
                ++bad;
                T_CHECK_MSG(0, "%s %s, %s: C(%llu, %llu) is %.17g, expected %.17g", name,
                            m_type_names[t == PGDDS_FLOAT ? 0 : t == PGDDS_DOUBLE ? 1 : t == PGDDS_INT32 ? 2 : 3],
                            x < 0 ? "pgdds_smatrix_spmm" : spmm_alg_names[x], (unsigned long long)(e / n),
                            (unsigned long long)(e % n), got[e], want[e]);
            }
        free(got);
        T_OK(pgdds_barrier(test_ctx)); /* every rank has read C before the next fill */
    }
    free(ad), free(bd), free(want);
    T_OK(pgdds_barrier(test_ctx));
    T_OK(pgdds_smatrix_destroy(A));
    T_OK(pgdds_dmatrix_destroy(B));
    T_OK(pgdds_dmatrix_destroy(C));
}

/* SpMM on views, which the library copies into matrices of their own: B = a view of a bigger
 * matrix that cuts its tiles, C = another (beta reads its part), by every algorithm, each
 * product on the last; the rest of the bigger C stays. Ranks that pass different views are
 * refused. */
static void run_views(pgdds_dtype_t t)
{
    const uint64_t G = PGDDS_DMATRIX_FIELD_GRID, T = PGDDS_DMATRIX_FIELD_TILE, m = 9, k = 10, n = 5, BC = 8, CC = 9;
    int integer = t == PGDDS_INT32 || t == PGDDS_INT64;
    double alpha = integer ? 2 : 1.5, beta = integer ? -1 : 0.5;
    pgdds_dmatrix_params_t pa = lay(PGDDS_DIST_CUSTOM, G | T, nranks, 1, 2, 4, m, k, t);
    pgdds_dmatrix_params_t pb = lay(PGDDS_DIST_CUSTOM, G | T, nranks, 1, 4, 3, 13, BC, t);
    pgdds_dmatrix_params_t pc = lay(PGDDS_DIST_CUSTOM, G | T, nranks, 1, 2, 3, 12, CC, t);
    uint64_t nnz = 0;
    pgdds_smatrix_t A = build(&pa, 0, &nnz);
    pgdds_dmatrix_t B = NULL, C = NULL, vb = NULL, vc = NULL;
    T_OK(pgdds_dmatrix_create(test_ctx, &pb, &B));
    T_OK(pgdds_dmatrix_create(test_ctx, &pc, &C));
    if (!A || !B || !C) return;
    double *ad = check_tiles(A, &pa, 0, nnz);
    struct m_gen_arg gb = {t, 2}, gc = {t, 3};
    T_OK(pgdds_dmatrix_fill(B, m_generator, &gb));
    T_OK(pgdds_dmatrix_fill(C, m_generator, &gc));
    T_OK(pgdds_dmatrix_view(B, PGDDS_NO_TRANS, 2, 1, k, n, &vb)); /* B's [2, 12) x [1, 6) */
    T_OK(pgdds_dmatrix_view(C, PGDDS_NO_TRANS, 1, 2, m, n, &vc)); /* C's [1, 10) x [2, 7) */
    double *want = malloc(12 * CC * sizeof *want);
    for (uint64_t x = 0; x < 12 * CC; ++x) want[x] = m_pattern(3, x / CC, x % CC);
    for (int x = 0; x < 5; ++x) {
        T_OK(pgdds_smatrix_spmm_algorithm(alpha, A, vb, beta, vc, spmm_algs[x]));
        for (uint64_t i = 0; i < m; ++i)
            for (uint64_t j = 0; j < n; ++j) {
                double sum = 0;
                for (uint64_t q = 0; q < k; ++q) sum += ad[i * k + q] * m_pattern(2, 2 + q, 1 + j);
                double *w = &want[(1 + i) * CC + 2 + j];
                *w = alpha * sum + beta * *w;
            }
        double *got = m_whole(C, t, 12, CC);
        for (uint64_t e = 0, bad = 0; e < 12 * CC && bad < 3; ++e)
            if (fabs(got[e] - want[e]) > (integer ? 0 : (t == PGDDS_FLOAT ? 1e-5 : 1e-12) * (1 + fabs(want[e])))) {
                ++bad;
                T_CHECK_MSG(0, "SpMM into a view, %s: C(%llu, %llu) is %.17g, expected %.17g", spmm_alg_names[x],
                            (unsigned long long)(e / CC), (unsigned long long)(e % CC), got[e], want[e]);
            }
        free(got);
        T_OK(pgdds_barrier(test_ctx));
    }
    if (nranks > 1) { /* rank 0 shows another part of B: every rank refuses, C stays */
        pgdds_dmatrix_t vb1 = NULL;
        T_OK(pgdds_dmatrix_view(B, PGDDS_NO_TRANS, 3, 1, k, n, &vb1));
        T_STATUS(pgdds_smatrix_spmm(alpha, A, rank == 0 ? vb1 : vb, beta, vc), PGDDS_ERR_INVALID_ARG);
        double *got = m_whole(C, t, 12, CC);
        for (uint64_t e = 0; e < 12 * CC; ++e) T_CHECK(got[e] == want[e]);
        free(got);
        T_OK(pgdds_dmatrix_destroy(vb1));
    }
    free(ad), free(want);
    T_OK(pgdds_barrier(test_ctx));
    T_OK(pgdds_smatrix_destroy(A));
    pgdds_dmatrix_t all[] = {vb, vc, B, C};
    for (size_t x = 0; x < 4; ++x) T_OK(pgdds_dmatrix_destroy(all[x]));
}

static void bad_input(void)
{
    const uint64_t T = PGDDS_DMATRIX_FIELD_TILE;
    pgdds_dmatrix_params_t pa = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 7, 5, PGDDS_DOUBLE);
    pgdds_dmatrix_params_t pb = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 5, 4, PGDDS_DOUBLE);
    pgdds_dmatrix_params_t pc = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 7, 4, PGDDS_DOUBLE);
    uint64_t r = 6, c = 4, nnz = 0;
    double v = 1;
    pgdds_smatrix_t A = build(&pa, 0, &nnz), bad = NULL;
    pgdds_dmatrix_t B = NULL, C = NULL, Bf = NULL, Bt = NULL;
    T_OK(pgdds_dmatrix_create(test_ctx, &pb, &B));
    T_OK(pgdds_dmatrix_create(test_ctx, &pc, &C));
    pgdds_dmatrix_params_t pf = pb;
    pf.dtype = PGDDS_FLOAT;
    T_OK(pgdds_dmatrix_create(test_ctx, &pf, &Bf));
    pgdds_dmatrix_params_t pt = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 4, 4, PGDDS_DOUBLE);
    T_OK(pgdds_dmatrix_create(test_ctx, &pt, &Bt));
    if (!A || !B || !C || !Bf || !Bt) return;
    struct m_gen_arg g = {PGDDS_DOUBLE, 3};
    T_OK(pgdds_dmatrix_fill(C, m_generator, &g));
    double *before = m_whole(C, PGDDS_DOUBLE, 7, 4);

    /* Construction: an index outside the matrix on rank 0 fails every rank; NULL arrays. */
    uint64_t rr = rank == 0 ? 7 : r;
    T_STATUS(pgdds_smatrix_create_coo(test_ctx, &pa, 1, &rr, &c, &v, &bad), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_smatrix_create_coo(test_ctx, &pa, 1, NULL, &c, &v, &bad), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_create_coo(test_ctx, &pa, 1, &r, &c, NULL, &bad), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_create_coo(NULL, &pa, 1, &r, &c, &v, &bad), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_create_coo(test_ctx, NULL, 1, &r, &c, &v, &bad), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_create_coo(test_ctx, &pa, 1, &r, &c, &v, NULL), PGDDS_ERR_INVALID_ARG);
    pgdds_dmatrix_params_t pz = pa;
    pz.cols = 0;
    T_STATUS(pgdds_smatrix_create_coo(test_ctx, &pz, 0, NULL, NULL, NULL, &bad), PGDDS_ERR_INVALID_ARG);
    T_CHECK(bad == NULL);

    /* Tiles. */
    uint64_t off[8], idx[16];
    double val[16];
    const uint64_t *lo, *li;
    const void *lv;
    T_STATUS(pgdds_smatrix_get_tile(A, 3, 0, off, idx, val), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_smatrix_get_tile(A, 0, 0, NULL, idx, val), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_tile_shape(A, 0, 2, NULL, NULL, NULL, NULL), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_smatrix_local_tile(A, 0, 0, NULL, &li, &lv), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_local_tile(A, 5, 0, &lo, &li, &lv), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_smatrix_info(A, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    pgdds_matrix_steals_t steals;
    T_STATUS(pgdds_smatrix_steals(A, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_steals(NULL, &steals), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_smatrix_steals(A, &steals)); /* made from triples, by no product: zeros */
    T_CHECK(steals.own_steps == 0 && steals.stolen_steps == 0 && steals.claims == 0);
    T_STATUS(pgdds_smatrix_get_slice(A, 1, 0, 7, 1, val, 0), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_smatrix_get_slice(A, 0, 0, 1, 2, NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_get_slice(A, 0, 0, 1, 2, val, 1), PGDDS_ERR_INVALID_ARG);

    /* Products that do not conform leave C as it was. */
    T_STATUS(pgdds_smatrix_spmm(1, A, Bf, 0, C), PGDDS_ERR_INVALID_ARG); /* types */
    T_STATUS(pgdds_smatrix_spmm(1, A, Bt, 0, C), PGDDS_ERR_INVALID_ARG); /* shapes */
    T_STATUS(pgdds_smatrix_spmm(1, A, B, 0, B), PGDDS_ERR_INVALID_ARG);  /* C is B */
    T_STATUS(pgdds_smatrix_spmm(NAN, A, B, 0, C), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_spmm(1, NULL, B, 0, C), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_spmm(1, A, NULL, 0, C), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_spmm(1, A, B, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_spmm_algorithm(1, A, B, 0, C, PGDDS_GEMM_SUMMA), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_spmm_algorithm(1, A, B, 0, C, (pgdds_gemm_algorithm_t)-1), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_spmm_algorithm(1, A, Bt, 0, C, PGDDS_GEMM_STATIONARY_A), PGDDS_ERR_INVALID_ARG);
    pgdds_dmatrix_params_t pcm = col_major(pt); /* a column-major B is copied, and still checked */
    pgdds_dmatrix_t Bcm = NULL;
    T_OK(pgdds_dmatrix_create(test_ctx, &pcm, &Bcm));
    T_STATUS(pgdds_smatrix_spmm(1, A, Bcm, 0, C), PGDDS_ERR_INVALID_ARG); /* shapes */
    T_OK(pgdds_dmatrix_destroy(Bcm));
    T_OK(pgdds_barrier(test_ctx));
    double *after = m_whole(C, PGDDS_DOUBLE, 7, 4);
    for (int x = 0; x < 28; ++x) T_CHECK(after[x] == before[x]);
    free(before), free(after);
    T_OK(pgdds_barrier(test_ctx));
    T_OK(pgdds_smatrix_destroy(A));
    T_STATUS(pgdds_smatrix_destroy(A), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_get_tile(A, 0, 0, off, idx, val), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_dmatrix_destroy(B));
    T_OK(pgdds_dmatrix_destroy(C));
    T_OK(pgdds_dmatrix_destroy(Bf));
    T_OK(pgdds_dmatrix_destroy(Bt));
}

/* One path for every rank: rank 0's process id. */
static void shared_path(char *path, size_t size, const char *name)
{
    int64_t id = rank == 0 ? (int64_t)getpid() : 0;
    T_OK(pgdds_broadcast(test_ctx, &id, sizeof id, 0));
    snprintf(path, size, "/tmp/pgdds-matrix-%lld-%s.mtx", (long long)id, name);
}

static void write_text(const char *path, const char *text)
{
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        T_CHECK(f != NULL);
        if (f) fputs(text, f), fclose(f);
    }
    T_OK(pgdds_barrier(test_ctx));
}

/* A sparse matrix made dense, tile by tile, checking each tile's CSR invariants (offsets from 0
 * to the tile's entries, never falling; column indices inside the tile, increasing in a row). */
static double *dense_of(pgdds_smatrix_t m)
{
    pgdds_dmatrix_info_t info;
    T_OK(pgdds_smatrix_info(m, &info, NULL));
    double *d = calloc(info.rows * info.cols, sizeof *d);
    for (uint64_t ti = 0; ti < info.tile_grid_rows; ++ti)
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj) {
            uint64_t tr = 0, tn = 0;
            T_OK(pgdds_smatrix_tile_shape(m, ti, tj, &tr, NULL, &tn, NULL));
            uint64_t *off = malloc((tr + 1) * 8), *idx = malloc(tn * 8 + 8);
            char *val = malloc(tn * 8 + 8);
            uint64_t tc = 0;
            T_OK(pgdds_smatrix_tile_shape(m, ti, tj, NULL, &tc, NULL, NULL));
            T_OK(pgdds_smatrix_get_tile(m, ti, tj, off, idx, val));
            T_CHECK(off[0] == 0 && off[tr] == tn);
            for (uint64_t a = 0; a < tr; ++a) {
                T_CHECK(off[a] <= off[a + 1] && off[a + 1] <= tn);
                for (uint64_t e = off[a]; e < off[a + 1] && off[a + 1] <= tn; ++e) {
                    T_CHECK(idx[e] < tc && (e == off[a] || idx[e - 1] < idx[e]));
                    if (idx[e] < tc)
                        d[(ti * info.tile_rows + a) * info.cols + tj * info.tile_cols + idx[e]] =
                            m_val(info.dtype, val + e * info.elem_size);
                }
            }
            free(off), free(idx), free(val);
        }
    return d;
}

/* Matrix Market: every type written in parallel and read back in another layout; a
 * hand-written symmetric pattern file with comments; malformed files fail on every rank. */
static void matrix_market(void)
{
    char path[256];
    const uint64_t G = PGDDS_DMATRIX_FIELD_GRID, T = PGDDS_DMATRIX_FIELD_TILE;
    for (int ti = 0; ti < 4; ++ti) {
        pgdds_dtype_t t = m_types[ti];
        pgdds_dmatrix_params_t pa = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 2, 13, 11, t);
        pgdds_dmatrix_params_t pr = lay(PGDDS_DIST_CUSTOM, G | T, nranks, 1, 4, 5, 0, 0, t);
        uint64_t nnz = 0, nnz2 = 0;
        pgdds_smatrix_t A = build(&pa, 0, &nnz), R = NULL;
        shared_path(path, sizeof path, m_type_names[ti]);
        T_OK(pgdds_smatrix_write_mm(A, path));
        T_OK(pgdds_smatrix_read_mm(test_ctx, path, &pr, &R));
        if (A && R) {
            pgdds_dmatrix_info_t info;
            T_OK(pgdds_smatrix_info(R, &info, &nnz2));
            T_CHECK(info.rows == 13 && info.cols == 11 && info.grid_rows == nranks && info.tile_cols == 5 && nnz2 == nnz);
            double *x = dense_of(A), *y = dense_of(R);
            for (int e = 0; e < 13 * 11; ++e) T_CHECK_MSG(x[e] == y[e], "%s entry %d: %g read back as %g", m_type_names[ti], e, x[e], y[e]);
            free(x), free(y);
        }
        T_OK(pgdds_barrier(test_ctx));
        if (A) T_OK(pgdds_smatrix_destroy(A));
        if (R) T_OK(pgdds_smatrix_destroy(R));
        if (rank == 0) unlink(path);
    }

    /* Symmetric pattern, comments and blank lines; the diagonal is not mirrored. */
    shared_path(path, sizeof path, "symmetric");
    write_text(path, "%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n\n4 4 4\n1 1\n3 1\n"
                     "% inside\n4 2\n4 4\n");
    pgdds_dmatrix_params_t ps = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 2, 2, 0, 0, PGDDS_INT64);
    pgdds_smatrix_t S = NULL;
    T_OK(pgdds_smatrix_read_mm(test_ctx, path, &ps, &S));
    if (S) {
        uint64_t nnz = 0;
        T_OK(pgdds_smatrix_info(S, &(pgdds_dmatrix_info_t){0}, &nnz));
        T_CHECK(nnz == 6);
        double *d = dense_of(S);
        static const double want[16] = {1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1};
        for (int e = 0; e < 16; ++e) T_CHECK(d[e] == want[e]);
        free(d);
        T_OK(pgdds_barrier(test_ctx));
        T_OK(pgdds_smatrix_destroy(S));
    }
    T_OK(pgdds_barrier(test_ctx));
    if (rank == 0) unlink(path);

    /* Malformed files: the same status on every rank, no matrix. */
    static const struct {
        const char *text;
        pgdds_status_t st;
    } bad[] = {
        {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", PGDDS_ERR_INVALID_ARG},
        {"not a banner\n2 2 1\n1 1 1\n", PGDDS_ERR_INVALID_ARG},
        {"%%MatrixMarket matrix coordinate real general\n2 2\n1 1 1\n", PGDDS_ERR_INVALID_ARG},
        {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n", PGDDS_ERR_INVALID_ARG},
        {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n", PGDDS_ERR_INVALID_ARG},
        {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2\n", PGDDS_ERR_INVALID_ARG},
        {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n3 1 1\n", PGDDS_ERR_OUT_OF_BOUNDS},
        {"%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", PGDDS_ERR_OUT_OF_BOUNDS},
        {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 0.5\n", PGDDS_ERR_INVALID_ARG}, /* into int64 */
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
        shared_path(path, sizeof path, "bad");
        write_text(path, bad[b].text);
        pgdds_smatrix_t M = NULL;
        T_STATUS(pgdds_smatrix_read_mm(test_ctx, path, &ps, &M), bad[b].st);
        T_CHECK_MSG(M == NULL, "malformed file %zu", b);
        T_OK(pgdds_barrier(test_ctx));
        if (rank == 0) unlink(path);
    }
    pgdds_smatrix_t M = NULL;
    T_STATUS(pgdds_smatrix_read_mm(test_ctx, "/nonexistent/pgdds.mtx", &ps, &M), PGDDS_ERR_NOT_FOUND);
    pgdds_dmatrix_params_t wrong = ps;
    wrong.rows = 5;
    shared_path(path, sizeof path, "shape");
    write_text(path, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
    T_STATUS(pgdds_smatrix_read_mm(test_ctx, path, &wrong, &M), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_read_mm(test_ctx, NULL, &ps, &M), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_barrier(test_ctx));
    if (rank == 0) unlink(path);
    /* Writing where no file can be made fails on every rank. */
    uint64_t nnz = 0;
    pgdds_dmatrix_params_t pa = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 5, 5, PGDDS_DOUBLE);
    pgdds_smatrix_t A = build(&pa, 0, &nnz);
    if (A) {
        T_STATUS(pgdds_smatrix_write_mm(A, "/nonexistent/dir/a.mtx"), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_smatrix_write_mm(A, NULL), PGDDS_ERR_INVALID_ARG);
        T_OK(pgdds_smatrix_destroy(A));
    }
}

static const pgdds_gemm_algorithm_t spgemm_algs[] = {PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STATIONARY_A,
                                                      PGDDS_GEMM_STATIONARY_B, PGDDS_GEMM_STEAL_RANDOM,
                                                      PGDDS_GEMM_STEAL_LOCALITY};
static const char *const spgemm_alg_names[] = {"stationary C", "stationary A", "stationary B", "steal random",
                                               "steal locality"};
enum { spgemm_nalgs = sizeof spgemm_algs / sizeof spgemm_algs[0] };

/* C = alpha A B by every SpGEMM algorithm against the product of A and B made dense, computed
 * serially on rank 0 and broadcast (exact for integers, within 1e-6 / 1e-12 relative for float
 * / double): every entry, the entry count (the pairs A(i, k) B(k, j) present: every entry of A
 * and B is nonzero), and the CSR invariants of C's tiles. */
static void spgemm_check(pgdds_smatrix_t A, pgdds_smatrix_t B, pgdds_dmatrix_params_t pc, const char *name)
{
    pgdds_dmatrix_info_t ia, ib;
    T_OK(pgdds_smatrix_info(A, &ia, NULL));
    T_OK(pgdds_smatrix_info(B, &ib, NULL));
    const pgdds_dtype_t t = ia.dtype;
    const int integer = t == PGDDS_INT32 || t == PGDDS_INT64;
    const double alpha = integer ? -2 : 1.5;
    const uint64_t m = ia.rows, k = ia.cols, n = ib.cols;
    double *ad = dense_of(A), *bd = dense_of(B), *want = calloc(m * n, sizeof *want), scale = 0;
    uint64_t want_nnz = 0;
    if (rank == 0)
        for (uint64_t i = 0; i < m; ++i)
            for (uint64_t j = 0; j < n; ++j) {
                int present = 0;
                for (uint64_t q = 0; q < k; ++q) {
                    present |= ad[i * k + q] != 0 && bd[q * n + j] != 0;
                    want[i * n + j] += ad[i * k + q] * bd[q * n + j];
                }
                want[i * n + j] *= alpha;
                want_nnz += (uint64_t)present;
                scale = fmax(scale, fabs(want[i * n + j]));
            }
    T_OK(pgdds_broadcast(test_ctx, want, m * n * sizeof *want, 0));
    T_OK(pgdds_broadcast(test_ctx, &want_nnz, sizeof want_nnz, 0));
    T_OK(pgdds_broadcast(test_ctx, &scale, sizeof scale, 0));
    const double tol = integer ? 0 : (t == PGDDS_FLOAT ? 1e-6 : 1e-12) * (scale + 1);
    for (int x = 0; x < spgemm_nalgs; ++x) {
        pgdds_smatrix_t C = NULL;
        T_OK(pgdds_smatrix_spgemm(alpha, A, B, &pc, spgemm_algs[x], &C));
        if (!C) continue;
        pgdds_dmatrix_info_t ic;
        uint64_t nnz = 0;
        T_OK(pgdds_smatrix_info(C, &ic, &nnz));
        T_CHECK(ic.rows == m && ic.cols == n && ic.dtype == t);
        T_CHECK_MSG(nnz == want_nnz, "%s, %s: C has %llu entries, expected %llu", name, spgemm_alg_names[x],
                    (unsigned long long)nnz, (unsigned long long)want_nnz);
        pgdds_matrix_steals_t steals;
        T_OK(pgdds_smatrix_steals(C, &steals));
        m_check_steals(test_ctx, &steals, spgemm_algs[x] >= PGDDS_GEMM_STEAL_RANDOM, ic.tile_grid_rows * ic.tile_grid_cols,
                       ia.tile_grid_cols, spgemm_alg_names[x]);
        double *got = dense_of(C);
        for (uint64_t e = 0, bad = 0; e < m * n && bad < 3; ++e)
            if (fabs(got[e] - want[e]) > tol) {
                ++bad;
                T_CHECK_MSG(0, "%s, %s, type %d: C(%llu, %llu) is %.17g, expected %.17g", name, spgemm_alg_names[x], (int)t,
                            (unsigned long long)(e / n), (unsigned long long)(e % n), got[e], want[e]);
            }
        free(got);
        T_OK(pgdds_barrier(test_ctx));
        T_OK(pgdds_smatrix_destroy(C));
    }
    free(ad), free(bd), free(want);
}

/* SpGEMM over layouts: square block-cyclic tiles; A, B and C on different grids (N x 1, 1 x N)
 * with rectangular tiles, so that products for other ranks' tiles are queued; an empty A; A * A
 * of a 27-point stencil and of an R-MAT graph (one matrix as both operands). Bad input leaves
 * no matrix. */
static void spgemm(void)
{
    const uint64_t G = PGDDS_DMATRIX_FIELD_GRID, T = PGDDS_DMATRIX_FIELD_TILE;
    const int P = nranks;
    for (int ti = 0; ti < 4; ++ti) {
        pgdds_dtype_t t = m_types[ti];
        uint64_t nnz = 0;
        pgdds_dmatrix_params_t pa = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 13, 11, t);
        pgdds_dmatrix_params_t pb = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 11, 8, t);
        pgdds_smatrix_t A = build(&pa, 0, &nnz), B = build(&pb, 0, &nnz);
        if (A && B) spgemm_check(A, B, lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 0, 0, t), "block-cyclic");
        T_OK(pgdds_barrier(test_ctx));
        if (A) T_OK(pgdds_smatrix_destroy(A));
        if (B) T_OK(pgdds_smatrix_destroy(B));

        pa = lay(PGDDS_DIST_CUSTOM, G | T, P, 1, 2, 4, 9, 10, t);
        pb = lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 4, 3, 10, 5, t);
        A = build(&pa, 0, &nnz), B = build(&pb, 0, &nnz);
        if (A && B) spgemm_check(A, B, lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 2, 3, 9, 5, t), "N x 1 by 1 x N grids");
        T_OK(pgdds_barrier(test_ctx));
        if (A) T_OK(pgdds_smatrix_destroy(A));
        if (B) T_OK(pgdds_smatrix_destroy(B));

        pa = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 6, 6, t);
        A = build(&pa, 1, &nnz), B = build(&pa, 0, &nnz);
        if (A && B) spgemm_check(A, B, pa, "empty A");
        T_OK(pgdds_barrier(test_ctx));
        if (A) T_OK(pgdds_smatrix_destroy(A));
        if (B) T_OK(pgdds_smatrix_destroy(B));
    }
    pgdds_dmatrix_params_t ps = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 7, 7, 0, 0, PGDDS_DOUBLE);
    pgdds_smatrix_t S = NULL, R = NULL;
    T_OK(pgdds_smatrix_stencil(test_ctx, &ps, 4, 3, 3, 27, &S));
    if (S) spgemm_check(S, S, ps, "27-point stencil squared");
    pgdds_dmatrix_params_t pr = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 16, 16, 0, 0, PGDDS_INT64);
    T_OK(pgdds_smatrix_rmat(test_ctx, &pr, 6, 4, 7, &R));
    if (R) spgemm_check(R, R, pr, "R-MAT A * A");

    /* Bad input: no matrix, on every rank. */
    pgdds_dmatrix_params_t pf = ps, pw = ps, pt = ps;
    pf.dtype = PGDDS_FLOAT;
    pw.rows = 5;
    pt.field_mask = T, pt.tile_rows = 5, pt.tile_cols = 5;
    pgdds_smatrix_t C = NULL, Sf = NULL;
    T_OK(pgdds_smatrix_stencil(test_ctx, &pf, 4, 3, 3, 7, &Sf));
    if (S && R && Sf) {
        T_STATUS(pgdds_smatrix_spgemm(1, S, Sf, &ps, PGDDS_GEMM_STATIONARY_C, &C), PGDDS_ERR_INVALID_ARG); /* types */
        T_STATUS(pgdds_smatrix_spgemm(1, S, S, &pf, PGDDS_GEMM_STATIONARY_C, &C), PGDDS_ERR_INVALID_ARG); /* C's type */
        T_STATUS(pgdds_smatrix_spgemm(1, S, R, &ps, PGDDS_GEMM_STATIONARY_A, &C), PGDDS_ERR_INVALID_ARG); /* shapes */
        T_STATUS(pgdds_smatrix_spgemm(1, S, S, &pw, PGDDS_GEMM_STATIONARY_A, &C), PGDDS_ERR_INVALID_ARG); /* C's shape */
        T_STATUS(pgdds_smatrix_spgemm(1, S, S, &pt, PGDDS_GEMM_STATIONARY_B, &C), PGDDS_ERR_INVALID_ARG); /* tiling */
        T_STATUS(pgdds_smatrix_spgemm(1, S, S, &ps, PGDDS_GEMM_SUMMA, &C), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_smatrix_spgemm(1, S, S, &ps, (pgdds_gemm_algorithm_t)99, &C), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_smatrix_spgemm(INFINITY, S, S, &ps, PGDDS_GEMM_STATIONARY_C, &C), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_smatrix_spgemm(0.5, R, R, &pr, PGDDS_GEMM_STATIONARY_C, &C), PGDDS_ERR_INVALID_ARG); /* int64 */
        T_STATUS(pgdds_smatrix_spgemm(1, NULL, S, &ps, PGDDS_GEMM_STATIONARY_C, &C), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_smatrix_spgemm(1, S, NULL, &ps, PGDDS_GEMM_STATIONARY_C, &C), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_smatrix_spgemm(1, S, S, NULL, PGDDS_GEMM_STATIONARY_C, &C), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_smatrix_spgemm(1, S, S, &ps, PGDDS_GEMM_STATIONARY_C, NULL), PGDDS_ERR_INVALID_ARG);
        T_CHECK(C == NULL);
    }
    T_OK(pgdds_barrier(test_ctx));
    if (S) T_OK(pgdds_smatrix_destroy(S));
    if (R) T_OK(pgdds_smatrix_destroy(R));
    if (Sf) T_OK(pgdds_smatrix_destroy(Sf));
    T_STATUS(pgdds_smatrix_spgemm(1, S, S, &ps, PGDDS_GEMM_STATIONARY_C, &C), PGDDS_ERR_INVALID_ARG); /* destroyed */
}

/* The 7- and 27-point stencils on a 4 x 3 x 5 grid, entry by entry; R-MAT: every edge counted
 * once, the same matrix whatever the layout, and the skew of the Graph500 parameters. */
static void generators(void)
{
    const uint64_t T = PGDDS_DMATRIX_FIELD_TILE, G = PGDDS_DMATRIX_FIELD_GRID;
    const uint64_t nx = 4, ny = 3, nz = 5, n = nx * ny * nz;
    for (int points = 7; points <= 27; points += 20) {
        pgdds_dmatrix_params_t p = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 7, 9, 0, 0, points == 7 ? PGDDS_INT32 : PGDDS_DOUBLE);
        pgdds_smatrix_t S = NULL;
        T_OK(pgdds_smatrix_stencil(test_ctx, &p, nx, ny, nz, points, &S));
        if (!S) continue;
        uint64_t nnz = 0;
        T_OK(pgdds_smatrix_info(S, &(pgdds_dmatrix_info_t){0}, &nnz));
        uint64_t want_nnz = points == 7 ? n + 2 * ((nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1))
                                        : (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2);
        T_CHECK_MSG(nnz == want_nnz, "%d-point stencil: %llu entries, expected %llu", points, (unsigned long long)nnz,
                    (unsigned long long)want_nnz);
        double *d = dense_of(S);
        int bad = 0;
        for (uint64_t r = 0; r < n && bad < 3; ++r)
            for (uint64_t c = 0; c < n && bad < 3; ++c) {
                long dx = labs((long)(r % nx) - (long)(c % nx)), dy = labs((long)(r / nx % ny) - (long)(c / nx % ny));
                long dz = labs((long)(r / (nx * ny)) - (long)(c / (nx * ny)));
                double want = 0;
                if (r == c) want = points - 1;
                else if (dx <= 1 && dy <= 1 && dz <= 1 && (points == 27 || dx + dy + dz == 1)) want = -1;
                if (d[r * n + c] != want) {
                    ++bad;
                    T_CHECK_MSG(0, "%d-point stencil: A(%llu, %llu) is %g, expected %g", points, (unsigned long long)r,
                                (unsigned long long)c, d[r * n + c], want);
                }
            }
        free(d);
        T_OK(pgdds_barrier(test_ctx));
        T_OK(pgdds_smatrix_destroy(S));
    }
    pgdds_smatrix_t M = NULL;
    pgdds_dmatrix_params_t ps = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 7, 9, 0, 0, PGDDS_DOUBLE);
    T_STATUS(pgdds_smatrix_stencil(test_ctx, &ps, nx, ny, nz, 9, &M), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_stencil(test_ctx, &ps, nx, 0, nz, 7, &M), PGDDS_ERR_INVALID_ARG);
    ps.rows = n + 1;
    T_STATUS(pgdds_smatrix_stencil(test_ctx, &ps, nx, ny, nz, 7, &M), PGDDS_ERR_INVALID_ARG);

    /* R-MAT, scale 6, edge factor 4: 256 edges on 64 vertices, in two layouts. */
    pgdds_dmatrix_params_t p1 = lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 16, 16, 0, 0, PGDDS_INT64);
    pgdds_dmatrix_params_t p2 = lay(PGDDS_DIST_CUSTOM, G | T, 1, nranks, 5, 7, 64, 64, PGDDS_INT64);
    pgdds_smatrix_t R1 = NULL, R2 = NULL;
    T_OK(pgdds_smatrix_rmat(test_ctx, &p1, 6, 4, 42, &R1));
    T_OK(pgdds_smatrix_rmat(test_ctx, &p2, 6, 4, 42, &R2));
    if (R1 && R2) {
        double *a = dense_of(R1), *b = dense_of(R2), sum = 0, row0 = 0;
        for (int e = 0; e < 64 * 64; ++e) {
            T_CHECK(a[e] == b[e] && a[e] >= 0);
            sum += a[e];
        }
        for (int c = 0; c < 64; ++c) row0 += a[c];
        T_CHECK_MSG(sum == 256, "R-MAT: %g edges, expected 256", sum);
        T_CHECK_MSG(row0 > 256.0 / 64 * 4, "R-MAT: vertex 0 has %g edges; the Graph500 skew gives it far more than the "
                    "mean of 4", row0);
        free(a), free(b);
    }
    T_OK(pgdds_barrier(test_ctx));
    if (R1) T_OK(pgdds_smatrix_destroy(R1));
    if (R2) T_OK(pgdds_smatrix_destroy(R2));
    T_STATUS(pgdds_smatrix_rmat(test_ctx, &p1, 0, 4, 1, &M), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_rmat(test_ctx, &p1, 6, 0, 1, &M), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_rmat(test_ctx, &p2, 5, 4, 1, &M), PGDDS_ERR_INVALID_ARG); /* 32 x 32, not 64 x 64 */
    T_STATUS(pgdds_smatrix_rmat(test_ctx, NULL, 5, 4, 1, &M), PGDDS_ERR_INVALID_ARG);
    T_CHECK(M == NULL);
}

int main(void)
{
    test_ctx = t_init(NULL);
    rank = pgdds_rank(test_ctx);
    nranks = pgdds_nranks(test_ctx);
    const uint64_t G = PGDDS_DMATRIX_FIELD_GRID, T = PGDDS_DMATRIX_FIELD_TILE;
    const int P = nranks;
    for (int ti = 0; ti < 4; ++ti) {
        pgdds_dtype_t t = m_types[ti];
        /* SpMM on square block-cyclic tiles, on an N x 1 grid, with an empty A; SpMV. */
        run(lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 13, 11, t), lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 11, 6, t),
            lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 13, 6, t), 0, "block-cyclic");
        run(lay(PGDDS_DIST_CUSTOM, G | T, P, 1, 2, 4, 9, 10, t), lay(PGDDS_DIST_CUSTOM, G | T, P, 1, 4, 3, 10, 5, t),
            lay(PGDDS_DIST_CUSTOM, G | T, P, 1, 2, 3, 9, 5, t), 0, "N x 1 grid");
        run(lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 6, 6, t), lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 6, 3, t),
            lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 6, 3, t), 1, "empty A");
        run(lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 4, 3, 12, 8, t), lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 3, 1, 8, 1, t),
            lay(PGDDS_DIST_CUSTOM, G | T, 1, P, 4, 1, 12, 1, t), 0, "SpMV, 1 x N grid");
        /* Column-major dense B and C, copied to row-major ones and back. */
        run(lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 13, 11, t),
            col_major(lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 11, 6, t)),
            col_major(lay(PGDDS_DIST_BLOCK_CYCLIC, T, 0, 0, 3, 3, 13, 6, t)), 0, "column-major B and C");
        run_views(t);
    }
    bad_input();
    matrix_market();
    generators();
    spgemm();
    return t_finish(test_ctx, "matrix/sparse");
}
