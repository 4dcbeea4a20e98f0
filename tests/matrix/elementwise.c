/* Element-wise operations, reductions, norms and transposition of distributed matrices, and views
 * (submatrices and transposes, and views of views) through which they all work: scale,
 * add (between different layouts, and a matrix with itself), transpose into another layout,
 * apply, reduce with every op and norm of every kind, over every element type, against values
 * computed here element by element; with the sparse matrices (where built) also their
 * transpose and sum as new matrices. Bad input on every function leaves every matrix as it was. */
#include "matrix_test.h"

#include <float.h>

static int rank, nranks;

static const struct layout_case cases[] = {
    {"block-row", PGDDS_DIST_BLOCK_ROW, 0, 0, 0, 0, 0, PGDDS_ROW_MAJOR},
    {"block-column", PGDDS_DIST_BLOCK_COL, 0, 0, 0, 0, 0, PGDDS_ROW_MAJOR},
    {"block-cyclic 4 x 3", PGDDS_DIST_BLOCK_CYCLIC, PGDDS_DMATRIX_FIELD_TILE, 0, 0, 4, 3, PGDDS_ROW_MAJOR},
    {"custom N x 1, 5 x 2", PGDDS_DIST_CUSTOM, PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE, -1, 1, 5, 2,
     PGDDS_ROW_MAJOR},
    {"column-major block-cyclic 3 x 4", PGDDS_DIST_BLOCK_CYCLIC, PGDDS_DMATRIX_FIELD_TILE | PGDDS_DMATRIX_FIELD_ORDER, 0, 0,
     3, 4, PGDDS_COL_MAJOR},
};
#define NCASES (sizeof cases / sizeof cases[0])

static pgdds_dmatrix_params_t params_of(const struct layout_case *c, uint64_t rows, uint64_t cols, pgdds_dtype_t t)
{
    return m_params(c, rows, cols, t, nranks);
}

/* Every rank reads the whole matrix (a slice in the matrix's order) and compares it with
 * expect (row-major); collective. */
static void dense_matches(pgdds_context_t ctx, pgdds_dmatrix_t m, pgdds_dtype_t t, uint64_t rows, uint64_t cols,
                          const double *expect, const char *what)
{
    size_t es = m_esize(t);
    char *buf = malloc(rows * cols * es);
    int bad = 0;
    pgdds_order_t order = PGDDS_ROW_MAJOR;
    T_OK(pgdds_dmatrix_order(m, &order));
    T_OK(pgdds_dmatrix_get_slice(m, 0, 0, rows, cols, buf, 0));
    for (uint64_t x = 0; x < rows * cols && bad < 3; ++x) {
        const char *e = buf + (order == PGDDS_COL_MAJOR ? (x % cols) * rows + x / cols : x) * es;
        if (m_val(t, e) != expect[x]) {
            ++bad;
            T_CHECK_MSG(0, "%s: element (%llu, %llu) is %g, expected %g", what, (unsigned long long)(x / cols),
                        (unsigned long long)(x % cols), m_val(t, e), expect[x]);
        }
    }
    free(buf);
    T_OK(pgdds_barrier(ctx));
}

/* apply's function: value * 2 + i - j, counting its calls. */
struct apply_arg {
    pgdds_dtype_t dtype;
    uint64_t calls;
};
static void twice_plus(uint64_t i, uint64_t j, void *value, void *arg)
{
    struct apply_arg *a = (struct apply_arg *)arg;
    m_set(a->dtype, value, m_val(a->dtype, value) * 2 + (double)i - (double)j);
    a->calls++;
}

static int close_to(double x, double want, pgdds_dtype_t t)
{
    double tol = (t == PGDDS_FLOAT ? 1e-5 : 1e-12) * (fabs(want) > 1 ? fabs(want) : 1);
    return fabs(x - want) <= tol;
}

/* The reductions and norms of a rows x cols matrix whose elements are e[], checked against
 * reduce(op) and norm(kind) of the handle (dense or sparse, by the caller's functions). */
typedef pgdds_status_t (*reduce_fn)(void *m, pgdds_op_t op, void *out);
typedef pgdds_status_t (*norm_fn)(void *m, pgdds_norm_t kind, double *out);

static void check_reductions(void *m, reduce_fn reduce, norm_fn norm, pgdds_dtype_t t, uint64_t rows, uint64_t cols,
                             const double *e, const unsigned char *stored, const char *what)
{
    int integer = t == PGDDS_INT32 || t == PGDDS_INT64;
    double sum = 0, mn = INFINITY, mx = -INFINITY, frob = 0, maxabs = 0, one = 0, inf = 0;
    int64_t band = -1, bor = 0, bxor = 0;
    double *colsum = calloc(cols, sizeof(double));
    for (uint64_t i = 0; i < rows; ++i) {
        double rowsum = 0;
        for (uint64_t j = 0; j < cols; ++j) {
            if (stored && !stored[i * cols + j]) continue;
            double v = e[i * cols + j];
            sum += v;
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
            frob += v * v;
            maxabs = fabs(v) > maxabs ? fabs(v) : maxabs;
            rowsum += fabs(v);
            colsum[j] += fabs(v);
            band &= (int64_t)v;
            bor |= (int64_t)v;
            bxor ^= (int64_t)v;
        }
        inf = rowsum > inf ? rowsum : inf;
    }
    for (uint64_t j = 0; j < cols; ++j) one = colsum[j] > one ? colsum[j] : one;
    free(colsum);
    if (integer && t == PGDDS_INT32) band = (int32_t)band;
    unsigned char out[8];
    const struct {
        pgdds_op_t op;
        double want;
    } ops[] = {{PGDDS_OP_SUM, sum}, {PGDDS_OP_MIN, mn}, {PGDDS_OP_MAX, mx},
               {PGDDS_OP_BAND, (double)band}, {PGDDS_OP_BOR, (double)bor}, {PGDDS_OP_BXOR, (double)bxor}};
    for (int o = 0; o < (integer ? 6 : 3); ++o) {
        memset(out, 0, sizeof out);
        T_OK(reduce(m, ops[o].op, out));
        double got = m_val(t, out);
        T_CHECK_MSG(got == ops[o].want, "%s: reduce op %d gave %g, expected %g", what,
                    (int)ops[o].op, got, ops[o].want);
    }
    const struct {
        pgdds_norm_t kind;
        double want;
    } norms[] = {{PGDDS_NORM_FROBENIUS, sqrt(frob)}, {PGDDS_NORM_ONE, one}, {PGDDS_NORM_INF, inf}, {PGDDS_NORM_MAX, maxabs}};
    for (int k = 0; k < 4; ++k) {
        double got = -1;
        T_OK(norm(m, norms[k].kind, &got));
        T_CHECK_MSG(close_to(got, norms[k].want, t), "%s: norm %d is %.17g, expected %.17g", what, (int)norms[k].kind, got,
                    norms[k].want);
    }
}

static pgdds_status_t dense_reduce(void *m, pgdds_op_t op, void *out) { return pgdds_dmatrix_reduce(m, op, out); }
static pgdds_status_t dense_norm(void *m, pgdds_norm_t k, double *out) { return pgdds_dmatrix_norm(m, k, out); }

/* Dense: A in layout ca, B in cb, C (A^T) in cc. */
static void run_dense(pgdds_context_t ctx, size_t ca, size_t cb, size_t cc, uint64_t rows, uint64_t cols, int ti)
{
    pgdds_dtype_t t = m_types[ti];
    char what[160];
    snprintf(what, sizeof what, "%s A, %s B, %s C, %llu x %llu %s", cases[ca].name, cases[cb].name, cases[cc].name,
             (unsigned long long)rows, (unsigned long long)cols, m_type_names[ti]);
    pgdds_dmatrix_params_t pa = params_of(&cases[ca], rows, cols, t), pb = params_of(&cases[cb], rows, cols, t),
                           pc = params_of(&cases[cc], cols, rows, t);
    pgdds_dmatrix_t a, b, c;
    T_OK(pgdds_dmatrix_create(ctx, &pa, &a));
    T_OK(pgdds_dmatrix_create(ctx, &pb, &b));
    T_OK(pgdds_dmatrix_create(ctx, &pc, &c));
    struct m_gen_arg g1 = {t, 1}, g2 = {t, 2};
    T_OK(pgdds_dmatrix_fill(a, m_generator, &g1));
    T_OK(pgdds_dmatrix_fill(b, m_generator, &g2));
    double *ea = malloc(rows * cols * sizeof(double)), *eb = malloc(rows * cols * sizeof(double)),
           *ec = malloc(rows * cols * sizeof(double));
    for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j) {
            ea[i * cols + j] = m_pattern(1, i, j);
            eb[i * cols + j] = m_pattern(2, i, j);
        }
    char sub[200];

    /* scale */
    T_OK(pgdds_dmatrix_scale(3, a));
    for (uint64_t x = 0; x < rows * cols; ++x) ea[x] *= 3;
    snprintf(sub, sizeof sub, "%s: A *= 3", what);
    dense_matches(ctx, a, t, rows, cols, ea, sub);

    /* B = 2 A - B between different layouts, then B = B + B (A is B) */
    T_OK(pgdds_dmatrix_add(2, a, -1, b));
    for (uint64_t x = 0; x < rows * cols; ++x) eb[x] = 2 * ea[x] - eb[x];
    snprintf(sub, sizeof sub, "%s: B = 2A - B", what);
    dense_matches(ctx, b, t, rows, cols, eb, sub);
    T_OK(pgdds_dmatrix_add(1, b, 1, b));
    for (uint64_t x = 0; x < rows * cols; ++x) eb[x] *= 2;
    snprintf(sub, sizeof sub, "%s: B = B + B", what);
    dense_matches(ctx, b, t, rows, cols, eb, sub);

    /* C = A^T */
    T_OK(pgdds_dmatrix_transpose(a, c));
    for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j) ec[j * rows + i] = ea[i * cols + j];
    snprintf(sub, sizeof sub, "%s: C = A^T", what);
    dense_matches(ctx, c, t, cols, rows, ec, sub);

    /* apply: every element once */
    struct apply_arg arg = {t, 0};
    T_OK(pgdds_dmatrix_apply(a, twice_plus, &arg));
    uint64_t calls = 0;
    T_OK(pgdds_allreduce(ctx, &arg.calls, &calls, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK_MSG(calls == rows * cols, "%s: apply called %llu times for %llu elements", what, (unsigned long long)calls,
                (unsigned long long)(rows * cols));
    for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j) ea[i * cols + j] = ea[i * cols + j] * 2 + (double)i - (double)j;
    snprintf(sub, sizeof sub, "%s: apply", what);
    dense_matches(ctx, a, t, rows, cols, ea, sub);

    /* reductions and norms */
    check_reductions(a, dense_reduce, dense_norm, t, rows, cols, ea, NULL, what);

    /* bad input: every matrix unchanged */
    double out = 0;
    unsigned char v[8];
    if (t == PGDDS_INT32 || t == PGDDS_INT64) {
        T_STATUS(pgdds_dmatrix_scale(0.5, a), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_dmatrix_add(1.5, a, 1, b), PGDDS_ERR_INVALID_ARG);
    } else {
        T_STATUS(pgdds_dmatrix_scale(NAN, a), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_dmatrix_add(1, a, INFINITY, b), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_dmatrix_reduce(a, PGDDS_OP_BAND, v), PGDDS_ERR_INVALID_ARG);
    }
    if (rows != cols) {
        T_STATUS(pgdds_dmatrix_add(1, a, 1, c), PGDDS_ERR_INVALID_ARG);    /* A and C differ in shape */
        T_STATUS(pgdds_dmatrix_transpose(a, b), PGDDS_ERR_INVALID_ARG); /* A^T and B differ */
    }
    T_STATUS(pgdds_dmatrix_transpose(a, a), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_reduce(a, (pgdds_op_t)99, v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_reduce(a, PGDDS_OP_SUM, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_norm(a, (pgdds_norm_t)9, &out), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_norm(a, PGDDS_NORM_ONE, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_apply(a, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    pgdds_dmatrix_params_t other = pa;
    other.dtype = t == PGDDS_DOUBLE ? PGDDS_FLOAT : PGDDS_DOUBLE;
    pgdds_dmatrix_t d;
    T_OK(pgdds_dmatrix_create(ctx, &other, &d));
    T_STATUS(pgdds_dmatrix_add(1, d, 1, a), PGDDS_ERR_INVALID_ARG); /* type */
    T_OK(pgdds_dmatrix_destroy(d));
    snprintf(sub, sizeof sub, "%s: after bad input", what);
    dense_matches(ctx, a, t, rows, cols, ea, sub);
    dense_matches(ctx, b, t, rows, cols, eb, sub);
    dense_matches(ctx, c, t, cols, rows, ec, sub);

    T_OK(pgdds_dmatrix_destroy(c));
    T_OK(pgdds_dmatrix_destroy(b));
    T_OK(pgdds_dmatrix_destroy(a));
    free(ea);
    free(eb);
    free(ec);
}

/* The Frobenius norm neither overflows nor underflows where the norm does not; a NaN makes
 * every norm NaN. */
static void dense_extremes(pgdds_context_t ctx)
{
    pgdds_dmatrix_params_t p = params_of(&cases[2], 9, 7, PGDDS_DOUBLE);
    pgdds_dmatrix_t m;
    T_OK(pgdds_dmatrix_create(ctx, &p, &m));
    const double scales[] = {1e300, 1e-300};
    for (int s = 0; s < 2; ++s) {
        T_OK(pgdds_dmatrix_scale(0, m));
        if (rank == 0)
            for (uint64_t i = 0; i < 9; ++i) T_OK(pgdds_dmatrix_put(m, i, i % 7, &scales[s]));
        T_OK(pgdds_barrier(ctx));
        double got = 0;
        T_OK(pgdds_dmatrix_norm(m, PGDDS_NORM_FROBENIUS, &got));
        T_CHECK_MSG(fabs(got / (scales[s] * 3) - 1) < 1e-12, "Frobenius norm of nine elements %g: %g", scales[s], got);
    }
    if (rank == nranks - 1) {
        double nan = NAN;
        T_OK(pgdds_dmatrix_put(m, 8, 6, &nan));
    }
    T_OK(pgdds_barrier(ctx));
    for (int k = 0; k < 4; ++k) {
        double got = 0;
        T_OK(pgdds_dmatrix_norm(m, (pgdds_norm_t)k, &got));
        T_CHECK_MSG(isnan(got), "norm %d of a matrix holding a NaN: %g", k, got);
    }
    T_OK(pgdds_dmatrix_destroy(m));
    /* a destroyed or NULL handle */
    T_STATUS(pgdds_dmatrix_scale(1, m), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_scale(1, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_add(1, NULL, 1, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_transpose(NULL, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_apply(NULL, twice_plus, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_reduce(NULL, PGDDS_OP_SUM, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_norm(m, PGDDS_NORM_MAX, NULL), PGDDS_ERR_INVALID_ARG);
}

#ifdef PGDDS_TEST_SPARSE
static pgdds_status_t sparse_reduce(void *m, pgdds_op_t op, void *out) { return pgdds_smatrix_reduce(m, op, out); }
static pgdds_status_t sparse_norm(void *m, pgdds_norm_t k, double *out) { return pgdds_smatrix_norm(m, k, out); }

/* A sparse matrix holding pattern `seed` where stored(seed, i, j), from rank 0's triples. */
static int stored_at(int seed, uint64_t i, uint64_t j) { return (i * 5 + j * 3 + (uint64_t)seed) % 4 == 0; }

static pgdds_smatrix_t sparse_of(pgdds_context_t ctx, const pgdds_dmatrix_params_t *p, int seed, double *e,
                                 unsigned char *st)
{
    uint64_t n = p->rows * p->cols, count = 0;
    uint64_t *ri = malloc(n * 8), *ci = malloc(n * 8);
    char *vals = malloc(n * 8);
    for (uint64_t i = 0; i < p->rows; ++i)
        for (uint64_t j = 0; j < p->cols; ++j) {
            uint64_t x = i * p->cols + j;
            st[x] = (unsigned char)stored_at(seed, i, j);
            e[x] = st[x] ? m_pattern(seed, i, j) : 0;
            if (!st[x] || rank != 0) continue;
            ri[count] = i;
            ci[count] = j;
            m_set(p->dtype, vals + count * m_esize(p->dtype), e[x]);
            ++count;
        }
    pgdds_smatrix_t m = NULL;
    T_OK(pgdds_smatrix_create_coo(ctx, p, count, ri, ci, vals, &m));
    free(ri);
    free(ci);
    free(vals);
    return m;
}

/* Every rank reads the whole sparse matrix (dense) and its entry count, against expect. */
static void sparse_matches(pgdds_context_t ctx, pgdds_smatrix_t m, pgdds_dtype_t t, uint64_t rows, uint64_t cols,
                           const double *expect, uint64_t nnz, const char *what)
{
    size_t es = m_esize(t);
    char *buf = malloc(rows * cols * es);
    int bad = 0;
    uint64_t got_nnz = 0;
    pgdds_dmatrix_info_t info;
    T_OK(pgdds_smatrix_info(m, &info, &got_nnz));
    T_CHECK_MSG(got_nnz == nnz && info.rows == rows && info.cols == cols, "%s: %llu x %llu with %llu entries, expected "
                "%llu x %llu with %llu", what, (unsigned long long)info.rows, (unsigned long long)info.cols,
                (unsigned long long)got_nnz, (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)nnz);
    T_OK(pgdds_smatrix_get_slice(m, 0, 0, rows, cols, buf, 0));
    for (uint64_t x = 0; x < rows * cols && bad < 3; ++x)
        if (m_val(t, buf + x * es) != expect[x]) {
            ++bad;
            T_CHECK_MSG(0, "%s: element (%llu, %llu) is %g, expected %g", what, (unsigned long long)(x / cols),
                        (unsigned long long)(x % cols), m_val(t, buf + x * es), expect[x]);
        }
    free(buf);
    T_OK(pgdds_barrier(ctx));
}

static void run_sparse(pgdds_context_t ctx, size_t ca, size_t cb, uint64_t rows, uint64_t cols, int ti)
{
    pgdds_dtype_t t = m_types[ti];
    if (cases[ca].order == PGDDS_COL_MAJOR) { /* CSR tiles are row-major: refused */
        pgdds_dmatrix_params_t p = params_of(&cases[ca], rows, cols, t);
        pgdds_smatrix_t m = NULL;
        T_STATUS(pgdds_smatrix_create_coo(ctx, &p, 0, NULL, NULL, NULL, &m), PGDDS_ERR_INVALID_ARG);
        return;
    }
    char what[160], sub[200];
    snprintf(what, sizeof what, "sparse %s A, %s B, %llu x %llu %s", cases[ca].name, cases[cb].name,
             (unsigned long long)rows, (unsigned long long)cols, m_type_names[ti]);
    pgdds_dmatrix_params_t pa = params_of(&cases[ca], rows, cols, t), pb = params_of(&cases[cb], rows, cols, t);
    /* B takes A's tile size on its own grid (add wants the same tiles). */
    uint64_t n = rows * cols;
    double *ea = malloc(n * sizeof(double)), *eb = malloc(n * sizeof(double)), *ec = malloc(n * sizeof(double));
    unsigned char *sa = malloc(n), *sb = malloc(n), *sc = malloc(n);
    pgdds_smatrix_t a = sparse_of(ctx, &pa, 1, ea, sa);
    pgdds_dmatrix_info_t ia;
    T_OK(pgdds_smatrix_info(a, &ia, NULL));
    pb.distribution = PGDDS_DIST_CUSTOM;
    pb.order = PGDDS_ROW_MAJOR;
    pb.field_mask = PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE;
    pb.grid_rows = cases[cb].dist == PGDDS_DIST_BLOCK_COL ? 1 : nranks;
    pb.grid_cols = cases[cb].dist == PGDDS_DIST_BLOCK_COL ? nranks : 1;
    pb.tile_rows = ia.tile_rows;
    pb.tile_cols = ia.tile_cols;
    pgdds_smatrix_t b = sparse_of(ctx, &pb, 2, eb, sb);
    uint64_t nnz_a = 0, nnz_b = 0, nnz_u = 0;
    for (uint64_t x = 0; x < n; ++x) {
        nnz_a += sa[x];
        nnz_b += sb[x];
        nnz_u += sa[x] | sb[x];
    }

    T_OK(pgdds_smatrix_scale(-2, a));
    for (uint64_t x = 0; x < n; ++x) ea[x] *= -2;
    snprintf(sub, sizeof sub, "%s: A *= -2", what);
    sparse_matches(ctx, a, t, rows, cols, ea, nnz_a, sub);

    struct apply_arg arg = {t, 0};
    T_OK(pgdds_smatrix_apply(a, twice_plus, &arg));
    uint64_t calls = 0;
    T_OK(pgdds_allreduce(ctx, &arg.calls, &calls, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK_MSG(calls == nnz_a, "%s: apply called %llu times for %llu entries", what, (unsigned long long)calls,
                (unsigned long long)nnz_a);
    for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j)
            if (sa[i * cols + j]) ea[i * cols + j] = ea[i * cols + j] * 2 + (double)i - (double)j;
    snprintf(sub, sizeof sub, "%s: apply", what);
    sparse_matches(ctx, a, t, rows, cols, ea, nnz_a, sub);

    check_reductions(a, sparse_reduce, sparse_norm, t, rows, cols, ea, sa, what);

    pgdds_smatrix_t c = NULL;
    T_OK(pgdds_smatrix_transpose(a, &c));
    for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j) ec[j * rows + i] = ea[i * cols + j];
    snprintf(sub, sizeof sub, "%s: A^T", what);
    sparse_matches(ctx, c, t, cols, rows, ec, nnz_a, sub);
    pgdds_dmatrix_info_t ic;
    T_OK(pgdds_smatrix_info(c, &ic, NULL));
    T_CHECK_MSG(ic.tile_rows == ia.tile_cols && ic.tile_cols == ia.tile_rows && ic.grid_rows == ia.grid_cols &&
                ic.grid_cols == ia.grid_rows, "%s: A^T's layout is not A's transposed", what);
    T_OK(pgdds_smatrix_destroy(c));

    T_OK(pgdds_smatrix_add(3, a, -1, b, &c));
    for (uint64_t x = 0; x < n; ++x) ec[x] = 3 * ea[x] - eb[x];
    snprintf(sub, sizeof sub, "%s: 3A - B", what);
    sparse_matches(ctx, c, t, rows, cols, ec, nnz_u, sub);
    T_OK(pgdds_smatrix_destroy(c));

    /* bad input */
    T_STATUS(pgdds_smatrix_scale(t == PGDDS_INT32 || t == PGDDS_INT64 ? 0.5 : NAN, a), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_add(1, a, 1, a, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_transpose(a, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_apply(a, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_reduce(a, PGDDS_OP_SUM, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_norm(a, (pgdds_norm_t)-1, &(double){0}), PGDDS_ERR_INVALID_ARG);
    pgdds_dmatrix_params_t pt = pa;
    pt.rows = cols;
    pt.cols = rows;
    pgdds_smatrix_t at = sparse_of(ctx, &pt, 3, ec, sc);
    if (rows != cols) T_STATUS(pgdds_smatrix_add(1, a, 1, at, &c), PGDDS_ERR_INVALID_ARG); /* shape */
    T_OK(pgdds_smatrix_destroy(at));
    pgdds_dmatrix_params_t pd = pb;
    pd.dtype = t == PGDDS_DOUBLE ? PGDDS_FLOAT : PGDDS_DOUBLE;
    pgdds_smatrix_t d = sparse_of(ctx, &pd, 2, ec, sc);
    T_STATUS(pgdds_smatrix_add(1, a, 1, d, &c), PGDDS_ERR_INVALID_ARG); /* type */
    T_OK(pgdds_smatrix_destroy(d));
    if (ia.tile_rows > 1) {
        pd = pb;
        pd.tile_rows = ia.tile_rows - 1;
        d = sparse_of(ctx, &pd, 2, ec, sc);
        T_STATUS(pgdds_smatrix_add(1, a, 1, d, &c), PGDDS_ERR_INVALID_ARG); /* tile size */
        T_OK(pgdds_smatrix_destroy(d));
    }
    snprintf(sub, sizeof sub, "%s: after bad input", what);
    sparse_matches(ctx, a, t, rows, cols, ea, nnz_a, sub);

    T_OK(pgdds_smatrix_destroy(b));
    T_OK(pgdds_smatrix_destroy(a));
    T_STATUS(pgdds_smatrix_scale(1, a), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_smatrix_norm(NULL, PGDDS_NORM_MAX, &(double){0}), PGDDS_ERR_INVALID_ARG);
    free(ea);
    free(eb);
    free(ec);
    free(sa);
    free(sb);
    free(sc);
}
#endif

/* Matrix m (rows x cols) against want[] (row-major), exactly or within close_to, then a
 * barrier. */
static void check_all(pgdds_context_t ctx, pgdds_dmatrix_t m, pgdds_dtype_t t, uint64_t rows, uint64_t cols,
                      const double *want, const char *what, const char *step, int exact)
{
    double *got = m_whole(m, t, rows, cols);
    int bad = 0;
    for (uint64_t x = 0; x < rows * cols && bad < 3; ++x)
        if (exact ? got[x] != want[x] : !close_to(got[x], want[x], t)) {
            ++bad;
            T_CHECK_MSG(0, "%s: %s: (%llu, %llu) is %g, expected %g", what, step, (unsigned long long)(x / cols),
                        (unsigned long long)(x % cols), got[x], want[x]);
        }
    free(got);
    T_OK(pgdds_barrier(ctx));
}

/* Products of views that cut tiles, into views, which the library copies where it cannot use
 * them in place: G = V^T U (V = A's [2, 9) x [3, 8), U = A's [0, 7) x [4, 10); A is 13 x 11 with
 * elements ea[], updated here), by every algorithm, into a view of a matrix Z that cuts its
 * tiles (beta 1: that part is read), into a transposed view of Z, and into a view of A itself
 * that overlaps V; every element outside the view stays as it was. Ranks that pass different
 * views are refused, and so is a view of A whose tiles do not conform. */
static void run_view_products(pgdds_context_t ctx, pgdds_dmatrix_t a, double *ea, pgdds_dtype_t t, const char *what)
{
    const uint64_t AC = 11, ZR = 9, ZC = 8;
    pgdds_dmatrix_info_t ia;
    T_OK(pgdds_dmatrix_info(a, &ia));
    pgdds_dmatrix_t v = NULL, u = NULL, z = NULL, zc = NULL, zt = NULL;
    T_OK(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, 2, 3, 7, 5, &v));
    T_OK(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, 0, 4, 7, 6, &u));
    double g[5 * 6], ez[ZR * ZC];
    for (uint64_t i = 0; i < 5; ++i)
        for (uint64_t j = 0; j < 6; ++j) {
            g[i * 6 + j] = 0;
            for (uint64_t k = 0; k < 7; ++k) g[i * 6 + j] += ea[(2 + k) * AC + 3 + i] * ea[k * AC + 4 + j];
        }
    /* Z's tiles are square, A's tile columns: G's tiling, as V^T's rows and U's columns have it. */
    pgdds_dmatrix_params_t pz = {.field_mask = PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE, .rows = ZR,
                                 .cols = ZC, .dtype = t, .distribution = PGDDS_DIST_CUSTOM, .grid_rows = nranks,
                                 .grid_cols = 1, .tile_rows = ia.tile_cols, .tile_cols = ia.tile_cols};
    T_OK(pgdds_dmatrix_create(ctx, &pz, &z));
    struct m_gen_arg g7 = {t, 7};
    T_OK(pgdds_dmatrix_fill(z, m_generator, &g7));
    for (uint64_t x = 0; x < ZR * ZC; ++x) ez[x] = m_pattern(7, x / ZC, x % ZC);
    T_OK(pgdds_dmatrix_view(z, PGDDS_NO_TRANS, 1, 2, 5, 6, &zc));
    T_OK(pgdds_dmatrix_view(z, PGDDS_TRANS, 2, 1, 5, 6, &zt)); /* zt(i, j) = Z(1 + j, 2 + i) */
    char step[64];
    for (int algo = 0; algo < 6; ++algo) {
        T_OK(pgdds_dmatrix_gemm_trans(PGDDS_TRANS, PGDDS_NO_TRANS, 1, v, u, 1, zc, (pgdds_gemm_algorithm_t)algo));
        for (uint64_t x = 0; x < 30; ++x) ez[(1 + x / 6) * ZC + 2 + x % 6] += g[x];
        snprintf(step, sizeof step, "Z's part += V^T U by algorithm %d", algo);
        check_all(ctx, z, t, ZR, ZC, ez, what, step, 0);
    }
    T_OK(pgdds_dmatrix_gemm_trans(PGDDS_TRANS, PGDDS_NO_TRANS, 2, v, u, 0, zt, PGDDS_GEMM_STEAL_LOCALITY));
    for (uint64_t x = 0; x < 30; ++x) ez[(1 + x % 6) * ZC + 2 + x / 6] = 2 * g[x];
    check_all(ctx, z, t, ZR, ZC, ez, what, "(Z's part)^T = 2 V^T U", 0);
    if (nranks > 1) { /* rank 0 shows another part of A: every rank refuses, Z stays */
        pgdds_dmatrix_t v1 = NULL;
        T_OK(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, 1, 3, 7, 5, &v1));
        T_STATUS(pgdds_dmatrix_gemm_trans(PGDDS_TRANS, PGDDS_NO_TRANS, 1, rank == 0 ? v1 : v, u, 1, zc,
                                          PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG);
        check_all(ctx, z, t, ZR, ZC, ez, what, "after views that differ between ranks", 0);
        T_OK(pgdds_dmatrix_destroy(v1));
    }
    /* Into A's rows [7, 12) x columns [0, 6), which overlap V: the product reads A as it was. Its
     * tiling is A's, which conforms where A's tiles are square as far as 5 rows go. */
    pgdds_dmatrix_t ca = NULL;
    T_OK(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, 7, 0, 5, 6, &ca));
    const uint64_t tr5 = ia.tile_rows < 5 ? ia.tile_rows : 5, tc5 = ia.tile_cols < 5 ? ia.tile_cols : 5;
    if (tr5 == tc5) {
        T_OK(pgdds_dmatrix_gemm_trans(PGDDS_TRANS, PGDDS_NO_TRANS, 1, v, u, 0, ca, PGDDS_GEMM_STATIONARY_A));
        for (uint64_t x = 0; x < 30; ++x) ea[(7 + x / 6) * AC + x % 6] = g[x];
    } else {
        T_STATUS(pgdds_dmatrix_gemm_trans(PGDDS_TRANS, PGDDS_NO_TRANS, 1, v, u, 0, ca, PGDDS_GEMM_STATIONARY_A),
                 PGDDS_ERR_INVALID_ARG);
    }
    check_all(ctx, a, t, 13, AC, ea, what, tr5 == tc5 ? "A's part = V^T U (overlapping V)" : "A after a refused product", 0);
    pgdds_dmatrix_t all[] = {ca, zt, zc, v, u, z};
    for (size_t x = 0; x < sizeof all / sizeof all[0]; ++x) T_OK(pgdds_dmatrix_destroy(all[x]));
}

/* Views: a submatrix, a transposed part and a view of that view show A's elements where they
 * lie, in the order they imply; element, slice and element-wise calls through them read and
 * change A there and nowhere else; GEMM reads a whole matrix's transposed view in place; what
 * takes no view refuses one; a view of a destroyed matrix refuses every call. */
static void run_views(pgdds_context_t ctx, size_t ca, int ti)
{
    const pgdds_dtype_t t = m_types[ti];
    const uint64_t R = 13, C = 11, n = R * C;
    char what[160], sub[220];
    snprintf(what, sizeof what, "views of %s 13 x 11 %s", cases[ca].name, m_type_names[ti]);
    pgdds_dmatrix_params_t pa = params_of(&cases[ca], R, C, t);
    pgdds_dmatrix_t a = NULL, v = NULL, tv = NULL, w = NULL;
    T_OK(pgdds_dmatrix_create(ctx, &pa, &a));
    struct m_gen_arg g1 = {t, 1};
    T_OK(pgdds_dmatrix_fill(a, m_generator, &g1));
    double *ea = malloc(n * sizeof(double)), *got = malloc(n * sizeof(double));
    for (uint64_t x = 0; x < n; ++x) ea[x] = m_pattern(1, x / C, x % C);
#define A_(i, j) ea[(i) * C + (j)]

    /* V: A's [2, 9) x [3, 8); TV: (A^T)'s [1, 7) x [2, 11); W: TV^T's [0, 4) x [1, 4) = A's
     * [2, 6) x [2, 5). */
    T_OK(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, 2, 3, 7, 5, &v));
    T_OK(pgdds_dmatrix_view(a, PGDDS_TRANS, 1, 2, 6, 9, &tv));
    T_OK(pgdds_dmatrix_view(tv, PGDDS_TRANS, 0, 1, 4, 3, &w));
    pgdds_dmatrix_info_t info;
    T_OK(pgdds_dmatrix_info(tv, &info));
    T_CHECK_MSG(info.rows == 6 && info.cols == 9 && info.tile_rows == 0 && info.tile_grid_cols == 0 && info.dtype == t,
                "%s: a transposed view's info", what);
    pgdds_order_t oa, otv;
    T_OK(pgdds_dmatrix_order(a, &oa));
    T_OK(pgdds_dmatrix_order(tv, &otv));
    T_CHECK_MSG(oa != otv, "%s: a transposed view keeps its matrix's order", what);
    m_read_all(v, t, 7, 5, got);
    for (uint64_t x = 0; x < 35; ++x) T_CHECK_MSG(got[x] == A_(2 + x / 5, 3 + x % 5), "%s: V(%llu, %llu)", what,
                                                  (unsigned long long)(x / 5), (unsigned long long)(x % 5));
    m_read_all(tv, t, 6, 9, got);
    for (uint64_t x = 0; x < 54; ++x) T_CHECK_MSG(got[x] == A_(2 + x % 9, 1 + x / 9), "%s: TV(%llu, %llu)", what,
                                                  (unsigned long long)(x / 9), (unsigned long long)(x % 9));
    m_read_all(w, t, 4, 3, got);
    for (uint64_t x = 0; x < 12; ++x) T_CHECK_MSG(got[x] == A_(2 + x / 3, 2 + x % 3), "%s: W(%llu, %llu)", what,
                                                  (unsigned long long)(x / 3), (unsigned long long)(x % 3));
    char e[8];
    T_OK(pgdds_dmatrix_get(tv, 5, 8, e));
    T_CHECK_MSG(m_val(t, e) == A_(10, 6), "%s: TV(5, 8) is %g, A(10, 6) %g", what, m_val(t, e), A_(10, 6));
    T_OK(pgdds_barrier(ctx));

    /* Writes through views change A there only: an element put, fill, scale, apply. */
    if (rank == nranks - 1) {
        m_set(t, e, 77);
        T_OK(pgdds_dmatrix_put(tv, 0, 0, e)); /* A(2, 1) */
        T_OK(pgdds_flush(ctx));
    }
    A_(2, 1) = 77;
    T_OK(pgdds_barrier(ctx));
    struct m_gen_arg g5 = {t, 5};
    T_OK(pgdds_dmatrix_fill(w, m_generator, &g5)); /* W(i, j) = pattern 5 at (i, j) */
    for (uint64_t i = 0; i < 4; ++i)
        for (uint64_t j = 0; j < 3; ++j) A_(2 + i, 2 + j) = m_pattern(5, i, j);
    T_OK(pgdds_dmatrix_scale(-2, v));
    for (uint64_t i = 0; i < 7; ++i)
        for (uint64_t j = 0; j < 5; ++j) A_(2 + i, 3 + j) *= -2;
    struct apply_arg arg = {t, 0};
    T_OK(pgdds_dmatrix_apply(tv, twice_plus, &arg)); /* TV(i, j) * 2 + i - j */
    uint64_t calls = 0;
    T_OK(pgdds_allreduce(ctx, &arg.calls, &calls, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK_MSG(calls == 54, "%s: apply on a 6 x 9 view called %llu times", what, (unsigned long long)calls);
    for (uint64_t i = 0; i < 6; ++i)
        for (uint64_t j = 0; j < 9; ++j) A_(2 + j, 1 + i) = A_(2 + j, 1 + i) * 2 + (double)i - (double)j;
    check_all(ctx, a, t, R, C, ea, what, "A after writes through views", 1);

    /* Reductions and norms of a view; add and transpose between a view and matrices. */
    double *ev = malloc(54 * sizeof(double));
    for (uint64_t x = 0; x < 54; ++x) ev[x] = A_(2 + x % 9, 1 + x / 9);
    snprintf(sub, sizeof sub, "%s: TV", what);
    check_reductions(tv, dense_reduce, dense_norm, t, 6, 9, ev, NULL, sub);
    pgdds_dmatrix_params_t px = params_of(&cases[(ca + 1) % NCASES], 6, 9, t), py = params_of(&cases[(ca + 2) % NCASES], 9, 6, t);
    pgdds_dmatrix_t x = NULL, y = NULL;
    T_OK(pgdds_dmatrix_create(ctx, &px, &x));
    T_OK(pgdds_dmatrix_create(ctx, &py, &y));
    T_OK(pgdds_dmatrix_add(3, tv, 0, x));      /* X = 3 TV */
    T_OK(pgdds_dmatrix_transpose(tv, y));      /* Y = TV^T = A's [2, 11) x [1, 7) */
    T_OK(pgdds_dmatrix_add(1, x, -1, tv));     /* TV = X - TV = 2 TV, in A */
    m_read_all(x, t, 6, 9, got);
    for (uint64_t q = 0; q < 54; ++q) T_CHECK_MSG(got[q] == 3 * ev[q], "%s: X = 3 TV at %llu", what, (unsigned long long)q);
    m_read_all(y, t, 9, 6, got);
    for (uint64_t q = 0; q < 54; ++q)
        T_CHECK_MSG(got[q] == A_(2 + q / 6, 1 + q % 6), "%s: Y = TV^T at %llu", what, (unsigned long long)q);
    for (uint64_t q = 0; q < 54; ++q) A_(2 + q % 9, 1 + q / 9) *= 2;
    check_all(ctx, a, t, R, C, ea, what, "A after TV = X - TV", 1);

    /* GEMM: A^T A through A's whole transposed view, read in place. */
    pgdds_dmatrix_info_t ia;
    T_OK(pgdds_dmatrix_info(a, &ia));
    pgdds_dmatrix_t at = NULL, p = NULL;
    T_OK(pgdds_dmatrix_view(a, PGDDS_TRANS, 0, 0, C, R, &at));
    pgdds_dmatrix_params_t pp = {.field_mask = PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE, .rows = C, .cols = C,
                                 .dtype = t, .distribution = PGDDS_DIST_CUSTOM, .grid_rows = nranks, .grid_cols = 1,
                                 .tile_rows = ia.tile_cols, .tile_cols = ia.tile_cols};
    T_OK(pgdds_dmatrix_create(ctx, &pp, &p));
    T_OK(pgdds_dmatrix_gemm(1, at, a, 0, p, PGDDS_GEMM_STATIONARY_C));
    m_read_all(p, t, C, C, got);
    int bad = 0;
    for (uint64_t i = 0; i < C; ++i)
        for (uint64_t j = 0; j < C && bad < 3; ++j) {
            double want = 0;
            for (uint64_t k = 0; k < R; ++k) want += A_(k, i) * A_(k, j);
            if (!close_to(got[i * C + j], want, t)) {
                ++bad;
                T_CHECK_MSG(0, "%s: (A^T A)(%llu, %llu) is %g, expected %g", what, (unsigned long long)i,
                            (unsigned long long)j, got[i * C + j], want);
            }
        }
    /* ... and views on tile edges, in place: A's rows from its second tile row down, B = that
     * part (V2) and A = its transpose (W2), so P = V2^T V2, by every algorithm (SUMMA on copies). */
    const uint64_t r0 = ia.tile_grid_rows > 1 ? ia.tile_rows : 0, nr = R - r0;
    pgdds_dmatrix_t v2e = NULL, w2e = NULL;
    T_OK(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, r0, 0, nr, C, &v2e));
    T_OK(pgdds_dmatrix_view(a, PGDDS_TRANS, 0, r0, C, nr, &w2e));
    for (int algo = 0; algo < 6; ++algo) {
        T_OK(pgdds_dmatrix_gemm(1, w2e, v2e, 0, p, (pgdds_gemm_algorithm_t)algo));
        m_read_all(p, t, C, C, got);
        bad = 0;
        for (uint64_t i = 0; i < C; ++i)
            for (uint64_t j = 0; j < C && bad < 3; ++j) {
                double want = 0;
                for (uint64_t k = r0; k < R; ++k) want += A_(k, i) * A_(k, j);
                if (!close_to(got[i * C + j], want, t)) {
                    ++bad;
                    T_CHECK_MSG(0, "%s: algorithm %d, (V2^T V2)(%llu, %llu) is %g, expected %g", what, algo,
                                (unsigned long long)i, (unsigned long long)j, got[i * C + j], want);
                }
            }
        T_OK(pgdds_barrier(ctx));
    }
    /* The tiles of views on tile edges: W2's tile (x, y) is A's tile (y, x) as it lies, in W2's
     * order (A's turned); V2's are A's own (no longer than V2, as a matrix's are no longer than
     * it). Reads agree with the views' slices; a put through a view lands in A. */
    pgdds_dmatrix_info_t iv, iw;
    T_OK(pgdds_dmatrix_info(v2e, &iv));
    T_OK(pgdds_dmatrix_info(w2e, &iw));
    T_CHECK_MSG(iv.tile_rows == (ia.tile_rows < nr ? ia.tile_rows : nr) && iv.tile_cols == ia.tile_cols && iw.tile_rows == ia.tile_cols &&
                iw.tile_grid_rows == ia.tile_grid_cols && iw.tile_grid_cols == iv.tile_grid_rows &&
                iv.tile_grid_rows == ia.tile_grid_rows - (r0 ? 1 : 0), "%s: the tiles of views on tile edges", what);
    T_OK(pgdds_dmatrix_info(v, &info));
    T_CHECK_MSG(info.tile_rows == 0 && info.tile_grid_rows == 0, "%s: a view that cuts tiles has none", what);
    pgdds_order_t ow;
    T_OK(pgdds_dmatrix_order(w2e, &ow));
    m_read_all(w2e, t, C, nr, got);
    size_t es = m_esize(t);
    char *tb = malloc(iw.tile_rows * iw.tile_cols * es);
    bad = 0;
    for (uint64_t tx = 0; tx < iw.tile_grid_rows; ++tx)
        for (uint64_t ty = 0; ty < iw.tile_grid_cols; ++ty) {
            uint64_t tr_ = 0, tc_ = 0;
            int owner = -1;
            T_OK(pgdds_dmatrix_tile_shape(w2e, tx, ty, &tr_, &tc_, &owner));
            T_OK(pgdds_dmatrix_get_tile(w2e, tx, ty, tb, 0));
            void *lt = NULL;
            if (owner == rank) T_OK(pgdds_dmatrix_local_tile(w2e, tx, ty, &lt));
            for (uint64_t i = 0; i < tr_; ++i)
                for (uint64_t j = 0; j < tc_; ++j) {
                    const uint64_t at_ = ow == PGDDS_COL_MAJOR ? j * tr_ + i : i * tc_ + j;
                    const double want = got[(tx * iw.tile_rows + i) * nr + ty * iw.tile_cols + j];
                    bad += m_val(t, tb + at_ * es) != want;
                    if (lt) bad += m_val(t, (char *)lt + at_ * es) != want;
                }
        }
    T_CHECK_MSG(bad == 0, "%s: %d elements of W2's tiles differ from W2", what, bad);
    T_STATUS(pgdds_dmatrix_get_tile(w2e, iw.tile_grid_rows, 0, tb, 0), PGDDS_ERR_OUT_OF_BOUNDS);
    T_OK(pgdds_barrier(ctx));
    uint64_t tr0 = 0, tc0 = 0;
    T_OK(pgdds_dmatrix_tile_shape(v2e, 0, 0, &tr0, &tc0, NULL));
    if (rank == 0) { /* V2's tile (0, 0) := 1000 + its index in V2's order */
        for (uint64_t q = 0; q < tr0 * tc0; ++q) m_set(t, tb + q * es, 1000 + (double)q);
        T_OK(pgdds_dmatrix_put_tile(v2e, 0, 0, tb, 0));
        T_OK(pgdds_flush(ctx));
    }
    T_OK(pgdds_barrier(ctx));
    for (uint64_t i = 0; i < tr0; ++i)
        for (uint64_t j = 0; j < tc0; ++j) A_(r0 + i, j) = 1000 + (double)(oa == PGDDS_COL_MAJOR ? j * tr0 + i : i * tc0 + j);
    m_read_all(a, t, R, C, got);
    bad = 0;
    for (uint64_t q = 0; q < n; ++q) bad += got[q] != ea[q];
    T_CHECK_MSG(bad == 0, "%s: %d elements of A wrong after a put through V2's tile", what, bad);
    free(tb);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_dmatrix_destroy(w2e));
    T_OK(pgdds_dmatrix_destroy(v2e));
    run_view_products(ctx, a, ea, t, what);

    /* Views that cut tiles have no tiles; what takes no view refuses one; bad views; views of
     * one matrix that overlap otherwise. */
    char tile[8 * 64];
    void *local = NULL;
    pgdds_gptr_t gp;
    pgdds_request_t req = NULL;
    T_STATUS(pgdds_dmatrix_get_tile(v, 0, 0, tile, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_put_tile_nb(v, 0, 0, tile, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_accumulate_tile(tv, 0, 0, tile, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_local_tile(v, 0, 0, &local), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_tile_gptr(v, 0, 0, &gp), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_tile_shape(v, 0, 0, NULL, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    pgdds_dmatrix_t bad_view = NULL;
    T_STATUS(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, 10, 0, 4, 1, &bad_view), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_view(a, PGDDS_TRANS, 0, 0, 12, 1, &bad_view), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_view(v, PGDDS_NO_TRANS, 0, 0, 8, 1, &bad_view), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, 0, 0, 0, 1, &bad_view), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_view(a, (pgdds_trans_t)5, 0, 0, 1, 1, &bad_view), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, 0, 0, 1, 1, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_view(NULL, PGDDS_NO_TRANS, 0, 0, 1, 1, &bad_view), PGDDS_ERR_INVALID_ARG);
    T_CHECK(bad_view == NULL);
    T_STATUS(pgdds_dmatrix_get_slice(v, 0, 0, 8, 1, got, 0), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_add(1, v, 1, w), PGDDS_ERR_INVALID_ARG);          /* shapes differ */
    pgdds_dmatrix_t v2 = NULL;
    T_OK(pgdds_dmatrix_view(a, PGDDS_NO_TRANS, 0, 0, 7, 5, &v2));
    T_STATUS(pgdds_dmatrix_add(1, v, 1, v2), PGDDS_ERR_INVALID_ARG);         /* A's regions that differ */
    T_STATUS(pgdds_dmatrix_transpose(at, a), PGDDS_ERR_INVALID_ARG);         /* into its own matrix */
    T_OK(pgdds_dmatrix_add(1, v, 1, v));                                     /* the same region: fine */
    for (uint64_t i = 0; i < 7; ++i)
        for (uint64_t j = 0; j < 5; ++j) A_(2 + i, 3 + j) *= 2;
    check_all(ctx, a, t, R, C, ea, what, "A after refused calls and V = V + V", 1);

    /* A destroyed matrix's views refuse every call but their own destroy, which is local. */
    T_OK(pgdds_dmatrix_destroy(v2));
    T_OK(pgdds_dmatrix_destroy(at));
    T_OK(pgdds_dmatrix_destroy(a));
    T_STATUS(pgdds_dmatrix_get(v, 0, 0, e), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_info(tv, &info), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_view(w, PGDDS_NO_TRANS, 0, 0, 1, 1, &bad_view), PGDDS_ERR_INVALID_ARG);
    if (rank == 0) T_OK(pgdds_dmatrix_destroy(w)); /* local: rank 0 alone, while the others wait */
    T_OK(pgdds_barrier(ctx));
    if (rank != 0) T_OK(pgdds_dmatrix_destroy(w));
    T_OK(pgdds_dmatrix_destroy(tv));
    T_OK(pgdds_dmatrix_destroy(v));
    T_STATUS(pgdds_dmatrix_destroy(v), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_dmatrix_destroy(p));
    T_OK(pgdds_dmatrix_destroy(y));
    T_OK(pgdds_dmatrix_destroy(x));
#undef A_
    free(ev);
    free(got);
    free(ea);
}

int main(void)
{
    pgdds_context_t ctx = t_init(NULL);
    rank = pgdds_rank(ctx);
    nranks = pgdds_nranks(ctx);
    static const uint64_t shapes[][2] = {{13, 11}, {1, 7}, {6, 6}};
    for (size_t c = 0; c < NCASES; ++c)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
            for (int t = 0; t < 4; ++t) {
                if (s > 0 && t != (int)((c + s) % 4)) continue; /* the first shape takes every type */
                run_dense(ctx, c, (c + 1) % NCASES, (c + 2) % NCASES, shapes[s][0], shapes[s][1], t);
#ifdef PGDDS_TEST_SPARSE
                run_sparse(ctx, c, (c + 1) % NCASES, shapes[s][0], shapes[s][1], t);
#endif
            }
    for (size_t c = 0; c < NCASES; ++c) run_views(ctx, c, (int)(c % 4));
    dense_extremes(ctx);
    return t_finish(ctx, "matrix/elementwise");
}
