/* Distributed dense matrices: every distribution and element type, on shapes the grid does not
 * divide (and with ranks that hold no tile); tiles, elements and slices read and written from
 * every rank, blocking and non-blocking; accumulation from every rank at once; bad input on
 * every function, which must leave the matrix as it was. */
#include "matrix_test.h"

static int rank, nranks;
static pgdds_context_t test_ctx;
/* The case's order: caller buffers are column-major (ld between columns) for a column-major
 * matrix. Element (a, b) of a buffer ld apart, and the packed ld of an r x c buffer. */
static int cm;
static uint64_t at(uint64_t a, uint64_t b, uint64_t ld) { return cm ? b * ld + a : a * ld + b; }
static uint64_t packed(uint64_t r, uint64_t c) { return cm ? r : c; }

static const struct layout_case cases[] = {
    {"block-row", PGDDS_DIST_BLOCK_ROW, 0, 0, 0, 0, 0, PGDDS_ROW_MAJOR},
    {"block-row cyclic", PGDDS_DIST_BLOCK_ROW, PGDDS_DMATRIX_FIELD_TILE, 0, 0, 3, 0, PGDDS_ROW_MAJOR},
    {"block-column", PGDDS_DIST_BLOCK_COL, 0, 0, 0, 0, 0, PGDDS_ROW_MAJOR},
    {"2d block", PGDDS_DIST_BLOCK_2D, 0, 0, 0, 0, 0, PGDDS_ROW_MAJOR},
    {"2d block, 1 x N grid", PGDDS_DIST_BLOCK_2D, PGDDS_DMATRIX_FIELD_GRID, 1, -1, 0, 0, PGDDS_ROW_MAJOR},
    {"2d block, N x 1 grid", PGDDS_DIST_BLOCK_2D, PGDDS_DMATRIX_FIELD_GRID, -1, 1, 0, 0, PGDDS_ROW_MAJOR},
    {"block-cyclic", PGDDS_DIST_BLOCK_CYCLIC, 0, 0, 0, 0, 0, PGDDS_ROW_MAJOR},
    {"block-cyclic 4 x 3", PGDDS_DIST_BLOCK_CYCLIC, PGDDS_DMATRIX_FIELD_TILE, 0, 0, 4, 3, PGDDS_ROW_MAJOR},
    {"custom N x 1, 5 x 2", PGDDS_DIST_CUSTOM, PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE, -1, 1, 5, 2, PGDDS_ROW_MAJOR},
    {"column-major block-cyclic 4 x 3", PGDDS_DIST_BLOCK_CYCLIC, PGDDS_DMATRIX_FIELD_TILE | PGDDS_DMATRIX_FIELD_ORDER, 0, 0,
     4, 3, PGDDS_COL_MAJOR},
    {"column-major block-row", PGDDS_DIST_BLOCK_ROW, PGDDS_DMATRIX_FIELD_ORDER, 0, 0, 0, 0, PGDDS_COL_MAJOR},
};

static pgdds_dmatrix_params_t params_of(const struct layout_case *c, uint64_t rows, uint64_t cols, pgdds_dtype_t t)
{
    return m_params(c, rows, cols, t, nranks);
}

/* Every rank reads the whole matrix and compares it with expect(i, j); collective (it ends with a
 * barrier, so no rank changes the matrix while another still reads it). */
static int matches(pgdds_dmatrix_t m, pgdds_dtype_t t, uint64_t rows, uint64_t cols, const double *expect, const char *what)
{
    size_t es = m_esize(t);
    char *buf = malloc(rows * cols * es);
    int bad = 0;
    T_OK(pgdds_dmatrix_get_slice(m, 0, 0, rows, cols, buf, 0));
    for (uint64_t x = 0; x < rows * cols && bad < 3; ++x) {
        const char *e = buf + at(x / cols, x % cols, packed(rows, cols)) * es;
        if (m_val(t, e) != expect[x]) {
            ++bad;
            T_CHECK_MSG(0, "%s: element (%llu, %llu) is %g, expected %g", what, (unsigned long long)(x / cols),
                        (unsigned long long)(x % cols), m_val(t, e), expect[x]);
        }
    }
    free(buf);
    T_OK(pgdds_barrier(test_ctx));
    return bad == 0;
}

static void check_layout(pgdds_dmatrix_t m, const struct layout_case *c, uint64_t rows, uint64_t cols, pgdds_dtype_t t)
{
    pgdds_dmatrix_info_t info;
    T_OK(pgdds_dmatrix_info(m, &info));
    T_CHECK(info.rows == rows && info.cols == cols && info.dtype == t && info.elem_size == m_esize(t));
    T_CHECK(info.grid_rows * info.grid_cols == nranks);
    if (c->dist == PGDDS_DIST_BLOCK_ROW) T_CHECK(info.grid_rows == nranks && info.tile_cols == cols);
    if (c->dist == PGDDS_DIST_BLOCK_COL) T_CHECK(info.grid_cols == nranks && info.tile_rows == rows);
    if (c->field_mask & PGDDS_DMATRIX_FIELD_GRID)
        T_CHECK(info.grid_rows == (c->grid_rows < 0 ? nranks : c->grid_rows) &&
                info.grid_cols == (c->grid_cols < 0 ? nranks : c->grid_cols));
    if (c->dist == PGDDS_DIST_BLOCK_2D) T_CHECK(info.tile_grid_rows <= (uint64_t)info.grid_rows && info.tile_grid_cols <= (uint64_t)info.grid_cols);
    /* The tiles cover the matrix exactly, each owned as the block-cyclic rule says. */
    uint64_t covered = 0;
    for (uint64_t ti = 0; ti < info.tile_grid_rows; ++ti)
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj) {
            uint64_t r = 0, cc = 0;
            int owner = -1;
            T_OK(pgdds_dmatrix_tile_shape(m, ti, tj, &r, &cc, &owner));
            T_CHECK(r >= 1 && r <= info.tile_rows && cc >= 1 && cc <= info.tile_cols);
            T_CHECK(owner == (int)(ti % (uint64_t)info.grid_rows) * info.grid_cols + (int)(tj % (uint64_t)info.grid_cols));
            pgdds_gptr_t g = PGDDS_GPTR_NULL;
            T_OK(pgdds_dmatrix_tile_gptr(m, ti, tj, &g));
            T_CHECK(g != PGDDS_GPTR_NULL && pgdds_gptr_rank(g) == owner);
            covered += r * cc;
        }
    T_CHECK(covered == rows * cols);
}

static void run_case(pgdds_context_t ctx, const struct layout_case *c, uint64_t rows, uint64_t cols, int ti_)
{
    pgdds_dtype_t t = m_types[ti_];
    size_t es = m_esize(t);
    pgdds_dmatrix_params_t p = params_of(c, rows, cols, t);
    cm = c->order == PGDDS_COL_MAJOR;
    pgdds_dmatrix_t m = NULL;
    T_OK(pgdds_dmatrix_create(ctx, &p, &m));
    if (!m) return;
    check_layout(m, c, rows, cols, t);
    pgdds_dmatrix_info_t info;
    T_OK(pgdds_dmatrix_info(m, &info));
    double *expect = calloc(rows * cols, sizeof *expect);
    char *tile = malloc(info.tile_rows * info.tile_cols * es), *tile2 = malloc(((info.tile_rows + 3) * (info.tile_cols + 3)) * es);
    pgdds_order_t order = PGDDS_ROW_MAJOR;
    T_OK(pgdds_dmatrix_order(m, &order));
    T_CHECK(order == c->order);
    char what[160];
    snprintf(what, sizeof what, "%s %llux%llu %s", c->name, (unsigned long long)rows, (unsigned long long)cols, m_type_names[ti_]);

    /* Created zeroed. */
    T_CHECK_MSG(matches(m, t, rows, cols, expect, what), "%s: not zero after create", what);

    /* Fill from a generator; every tile, element and local tile reads back. */
    struct m_gen_arg g = {t, 1};
    T_OK(pgdds_dmatrix_fill(m, m_generator, &g));
    for (uint64_t x = 0; x < rows * cols; ++x) expect[x] = m_pattern(1, x / cols, x % cols);
    T_CHECK_MSG(matches(m, t, rows, cols, expect, what), "%s: after fill", what);
    for (uint64_t ti = 0; ti < info.tile_grid_rows; ++ti)
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj) {
            uint64_t r = 0, cc = 0;
            int owner = -1;
            T_OK(pgdds_dmatrix_tile_shape(m, ti, tj, &r, &cc, &owner));
            uint64_t ld = packed(r, cc) + 3; /* a padded buffer */
            T_OK(pgdds_dmatrix_get_tile(m, ti, tj, tile2, ld));
            pgdds_request_t req = NULL;
            T_OK(pgdds_dmatrix_get_tile_nb(m, ti, tj, tile, &req));
            if (req) T_OK(pgdds_wait(ctx, req));
            void *local = NULL;
            if (owner == rank) T_OK(pgdds_dmatrix_local_tile(m, ti, tj, &local));
            else T_STATUS(pgdds_dmatrix_local_tile(m, ti, tj, &local), PGDDS_ERR_INVALID_ARG);
            for (uint64_t a = 0; a < r; ++a)
                for (uint64_t b = 0; b < cc; ++b) {
                    double want = expect[(ti * info.tile_rows + a) * cols + tj * info.tile_cols + b];
                    T_CHECK(m_val(t, tile2 + at(a, b, ld) * es) == want);
                    T_CHECK(m_val(t, tile + at(a, b, packed(r, cc)) * es) == want);
                    if (local) T_CHECK(m_val(t, (char *)local + at(a, b, packed(r, cc)) * es) == want);
                }
        }
    /* Elements and slices at awkward places, across tiles. */
    for (uint64_t x = 0; x < 8; ++x) {
        uint64_t i = (x * 5 + (uint64_t)rank) % rows, j = (x * 3 + 1) % cols;
        char v[8];
        T_OK(pgdds_dmatrix_get(m, i, j, v));
        T_CHECK(m_val(t, v) == expect[i * cols + j]);
        uint64_t nr = rows - i, nc = cols - j, ld = packed(nr, nc) + 2;
        char *s = malloc((nr + 2) * (nc + 2) * es);
        T_OK(pgdds_dmatrix_get_slice(m, i, j, nr, nc, s, ld));
        for (uint64_t a = 0; a < nr; ++a)
            for (uint64_t b = 0; b < nc; ++b) T_CHECK(m_val(t, s + at(a, b, ld) * es) == expect[(i + a) * cols + j + b]);
        free(s);
    }
    char untouched = 'u'; /* an empty slice copies nothing */
    T_OK(pgdds_dmatrix_get_slice(m, 0, 0, 0, cols, &untouched, 0));
    T_OK(pgdds_dmatrix_get_slice(m, rows, cols, 0, 0, &untouched, 0));
    T_CHECK(untouched == 'u');
    T_OK(pgdds_barrier(ctx));

    /* Writes from other ranks: each tile by the rank after its owner, alternating put_tile,
     * put_tile_nb and put_slice; one element each by put. */
    for (uint64_t ti = 0; ti < info.tile_grid_rows; ++ti)
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj) {
            uint64_t r = 0, cc = 0;
            int owner = -1;
            T_OK(pgdds_dmatrix_tile_shape(m, ti, tj, &r, &cc, &owner));
            for (uint64_t a = 0; a < r; ++a)
                for (uint64_t b = 0; b < cc; ++b) {
                    uint64_t i = ti * info.tile_rows + a, j = tj * info.tile_cols + b;
                    expect[i * cols + j] = m_pattern(2, i, j);
                    m_set(t, tile + at(a, b, packed(r, cc)) * es, expect[i * cols + j]);
                }
            if ((owner + 1) % nranks != rank) continue;
            int how = (int)((ti + tj) % 3);
            if (how == 0) {
                T_OK(pgdds_dmatrix_put_tile(m, ti, tj, tile, 0));
            } else if (how == 1) {
                pgdds_request_t req = NULL;
                T_OK(pgdds_dmatrix_put_tile_nb(m, ti, tj, tile, &req));
                if (req) T_OK(pgdds_wait(ctx, req));
            } else {
                T_OK(pgdds_dmatrix_put_slice(m, ti * info.tile_rows, tj * info.tile_cols, r, cc, tile, 0));
            }
        }
    T_OK(pgdds_flush(ctx));
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(matches(m, t, rows, cols, expect, what), "%s: after remote puts", what);
    T_OK(pgdds_barrier(ctx));
    if (rank == nranks - 1) {
        char v[8];
        m_set(t, v, 7);
        T_OK(pgdds_dmatrix_put(m, rows - 1, cols / 2, v));
        T_OK(pgdds_flush(ctx));
    }
    expect[(rows - 1) * cols + cols / 2] = 7;
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(matches(m, t, rows, cols, expect, what), "%s: after an element put", what);

    /* Every rank adds rank + 1 to every element of every tile, at once. */
    for (uint64_t ti = 0; ti < info.tile_grid_rows; ++ti)
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj) {
            uint64_t r = 0, cc = 0, ld = packed(info.tile_rows, info.tile_cols) + 3;
            T_OK(pgdds_dmatrix_tile_shape(m, ti, tj, &r, &cc, NULL));
            for (uint64_t x = 0; x < (cm ? cc : r) * ld; ++x) m_set(t, tile2 + x * es, rank + 1);
            T_OK(pgdds_dmatrix_accumulate_tile(m, ti, tj, tile2, ld));
        }
    for (uint64_t x = 0; x < rows * cols; ++x) expect[x] += (double)nranks * (nranks + 1) / 2;
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(matches(m, t, rows, cols, expect, what), "%s: after accumulation", what);

    /* The same without waiting: every rank's accumulations into every tile in flight at once
       (each addend buffer reused at once: the call copies it), then tested and waited for. */
    {
        uint64_t ntiles = info.tile_grid_rows * info.tile_grid_cols, k = 0;
        pgdds_request_t *reqs = calloc(ntiles, sizeof *reqs);
        T_CHECK(reqs != NULL);
        for (uint64_t ti = 0; reqs && ti < info.tile_grid_rows; ++ti)
            for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj, ++k) {
                uint64_t r = 0, cc = 0;
                T_OK(pgdds_dmatrix_tile_shape(m, ti, tj, &r, &cc, NULL));
                for (uint64_t x = 0; x < r * cc; ++x) m_set(t, tile2 + x * es, 2 * (rank + 1));
                T_OK(pgdds_dmatrix_accumulate_tile_nb(m, ti, tj, tile2, &reqs[k]));
                for (uint64_t x = 0; x < r * cc; ++x) m_set(t, tile2 + x * es, 99);  /* copied: no effect */
            }
        for (uint64_t x = 0; reqs && x < ntiles; ++x) {
            int done = 0;
            T_OK(pgdds_test(ctx, reqs[x], &done));
            if (!done) T_OK(pgdds_wait(ctx, reqs[x]));
        }
        free(reqs);
    }
    for (uint64_t x = 0; x < rows * cols; ++x) expect[x] += (double)nranks * (nranks + 1);
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(matches(m, t, rows, cols, expect, what), "%s: after non-blocking accumulation", what);

    /* Bad input changes nothing. */
    char v[8];
    pgdds_request_t req = NULL;
    void *local = NULL;
    pgdds_gptr_t gp;
    T_STATUS(pgdds_dmatrix_get_tile(m, info.tile_grid_rows, 0, tile, 0), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_put_tile(m, 0, info.tile_grid_cols, tile, 0), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_accumulate_tile(m, 0, info.tile_grid_cols + 5, tile, 0), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_get_tile_nb(m, info.tile_grid_rows, 0, tile, &req), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_accumulate_tile_nb(m, info.tile_grid_rows, 0, tile, &req), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_accumulate_tile_nb(m, 0, 0, NULL, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_accumulate_tile_nb(m, 0, 0, tile, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_accumulate_tile_nb(NULL, 0, 0, tile, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_put_tile_nb(m, 0, info.tile_grid_cols, tile, &req), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_tile_shape(m, info.tile_grid_rows, 0, NULL, NULL, NULL), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_tile_gptr(m, 0, info.tile_grid_cols, &gp), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_local_tile(m, info.tile_grid_rows, 0, &local), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_put_tile(m, 0, 0, NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_get_tile(m, 0, 0, NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_accumulate_tile(m, 0, 0, NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_get_tile_nb(m, 0, 0, tile, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_put_tile_nb(m, 0, 0, NULL, &req), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_tile_gptr(m, 0, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_local_tile(m, 0, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_info(m, NULL), PGDDS_ERR_INVALID_ARG);
    if (packed(info.tile_rows, info.tile_cols) > 1) {
        uint64_t r = 0, cc = 0;
        T_OK(pgdds_dmatrix_tile_shape(m, 0, 0, &r, &cc, NULL));
        T_STATUS(pgdds_dmatrix_put_tile(m, 0, 0, tile, packed(r, cc) - 1), PGDDS_ERR_INVALID_ARG);
        T_STATUS(pgdds_dmatrix_accumulate_tile(m, 0, 0, tile, packed(r, cc) - 1), PGDDS_ERR_INVALID_ARG);
    }
    T_STATUS(pgdds_dmatrix_get(m, rows, 0, v), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_put(m, 0, cols, v), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_get(m, 0, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_put(m, 0, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_put_slice(m, 1, 0, rows, 1, tile2, 0), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_put_slice(m, 0, UINT64_MAX, 1, 2, tile2, 0), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_dmatrix_get_slice(m, 0, 0, 1, cols, NULL, 0), PGDDS_ERR_INVALID_ARG);
    if (!cm && cols > 1) T_STATUS(pgdds_dmatrix_put_slice(m, 0, 0, 1, 2, tile2, 1), PGDDS_ERR_INVALID_ARG);
    if (cm && rows > 1) T_STATUS(pgdds_dmatrix_put_slice(m, 0, 0, 2, 1, tile2, 1), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_fill(m, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_barrier(ctx));
    T_CHECK_MSG(matches(m, t, rows, cols, expect, what), "%s: changed by refused calls", what);

    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_dmatrix_destroy(m));
    T_STATUS(pgdds_dmatrix_get(m, 0, 0, v), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_destroy(m), PGDDS_ERR_INVALID_ARG);
    free(expect);
    free(tile);
    free(tile2);
}

static void bad_create(pgdds_context_t ctx)
{
    const struct layout_case *c = &cases[3];
    pgdds_dmatrix_t m = NULL;
    pgdds_dmatrix_params_t p = params_of(c, 10, 10, PGDDS_DOUBLE);
    T_STATUS(pgdds_dmatrix_create(NULL, &p, &m), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_create(ctx, NULL, &m), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_create(ctx, &p, NULL), PGDDS_ERR_INVALID_ARG);
    p.rows = 0;
    T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG);
    p = params_of(c, 10, 10, PGDDS_UINT32);
    T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG);
    p = params_of(c, 10, 10, PGDDS_DOUBLE);
    p.distribution = (pgdds_dist_t)9;
    T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG);
    p = params_of(c, 10, 10, PGDDS_DOUBLE);
    p.field_mask = PGDDS_DMATRIX_FIELD_GRID;
    p.grid_rows = nranks + 1;
    p.grid_cols = 1;
    T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG);
    p = params_of(c, 10, 10, PGDDS_DOUBLE);
    p.field_mask = PGDDS_DMATRIX_FIELD_TILE;
    p.tile_rows = p.tile_cols = 2;
    T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG); /* BLOCK_2D takes no tile size */
    p.distribution = PGDDS_DIST_CUSTOM;
    T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG); /* CUSTOM without the grid */
    p = params_of(&cases[0], 10, 10, PGDDS_DOUBLE);
    p.field_mask = PGDDS_DMATRIX_FIELD_TILE;
    p.tile_cols = 3;
    T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG); /* block-row tiles span the row */
    p = params_of(c, 10, 10, PGDDS_DOUBLE);
    p.field_mask = 1u << 7;
    T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG);
    p = params_of(c, 10, 10, PGDDS_DOUBLE);
    p.field_mask = PGDDS_DMATRIX_FIELD_ORDER;
    p.order = (pgdds_order_t)2;
    T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG); /* an order it does not know */
    pgdds_order_t order;
    T_STATUS(pgdds_dmatrix_order(NULL, &order), PGDDS_ERR_INVALID_ARG);
    p = params_of(c, UINT64_C(1) << 40, UINT64_C(1) << 40, PGDDS_DOUBLE);
    T_CHECK(pgdds_dmatrix_create(ctx, &p, &m) != PGDDS_OK);
    if (nranks > 1) { /* the ranks disagree: every rank refuses */
        p = params_of(c, 10 + (rank == 0), 10, PGDDS_DOUBLE);
        T_STATUS(pgdds_dmatrix_create(ctx, &p, &m), PGDDS_ERR_INVALID_ARG);
    }
    T_CHECK(m == NULL);
    T_STATUS(pgdds_dmatrix_destroy(NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_info(NULL, NULL), PGDDS_ERR_INVALID_ARG);
    pgdds_matrix_steals_t steals;
    T_STATUS(pgdds_dmatrix_steals(NULL, &steals), PGDDS_ERR_INVALID_ARG);
    p = params_of(c, 4, 4, PGDDS_DOUBLE);
    T_OK(pgdds_dmatrix_create(ctx, &p, &m));
    if (m) {
        T_STATUS(pgdds_dmatrix_steals(m, NULL), PGDDS_ERR_INVALID_ARG);
        T_OK(pgdds_dmatrix_steals(m, &steals)); /* no product yet: zeros */
        T_CHECK(steals.own_steps == 0 && steals.stolen_steps == 0 && steals.claims == 0);
        T_OK(pgdds_dmatrix_destroy(m));
    }
}

int main(void)
{
    pgdds_context_t ctx = t_init(NULL);
    test_ctx = ctx;
    rank = pgdds_rank(ctx);
    nranks = pgdds_nranks(ctx);
    static const uint64_t shapes[][2] = {{13, 11}, {1, 7}, {3, 1}, {2, 9}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
            for (int t = 0; t < 4; ++t) {
                /* Every shape on every type would repeat itself: the first shape takes every type. */
                if (s > 0 && t != (int)((c + s) % 4)) continue;
                run_case(ctx, &cases[c], shapes[s][0], shapes[s][1], t);
            }
    bad_create(ctx);
    return t_finish(ctx, "matrix/dmatrix");
}
