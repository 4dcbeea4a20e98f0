/* What the matrix test programs share: typed element access and deterministic generators whose
 * values (small integers) every element type holds exactly. */
#ifndef PGDDS_TEST_MATRIX_H
#define PGDDS_TEST_MATRIX_H

#include "harness.h"

#include <pgdds/matrix.h>

#include <math.h>
#include <stdint.h>

static const pgdds_dtype_t m_types[] = {PGDDS_FLOAT, PGDDS_DOUBLE, PGDDS_INT32, PGDDS_INT64};
static const char *const m_type_names[] = {"float", "double", "int32", "int64"};

static inline size_t m_esize(pgdds_dtype_t t) { return t == PGDDS_FLOAT || t == PGDDS_INT32 ? 4 : 8; }

static inline void m_set(pgdds_dtype_t t, void *p, double v)
{
    switch (t) {
    case PGDDS_FLOAT: *(float *)p = (float)v; break;
    case PGDDS_DOUBLE: *(double *)p = v; break;
    case PGDDS_INT32: *(int32_t *)p = (int32_t)v; break;
    default: *(int64_t *)p = (int64_t)v; break;
    }
}

static inline double m_val(pgdds_dtype_t t, const void *p)
{
    switch (t) {
    case PGDDS_FLOAT: return *(const float *)p;
    case PGDDS_DOUBLE: return *(const double *)p;
    case PGDDS_INT32: return *(const int32_t *)p;
    default: return (double)*(const int64_t *)p;
    }
}

/* The whole of m (a matrix or view, rows x cols) into e[], row-major, read in m's own order. */
static inline void m_read_all(pgdds_dmatrix_t m, pgdds_dtype_t t, uint64_t rows, uint64_t cols, double *e)
{
    size_t es = m_esize(t);
    char *buf = (char *)malloc(rows * cols * es);
    pgdds_order_t order = PGDDS_ROW_MAJOR;
    T_OK(pgdds_dmatrix_order(m, &order));
    T_OK(pgdds_dmatrix_get_slice(m, 0, 0, rows, cols, buf, 0));
    for (uint64_t x = 0; x < rows * cols; ++x)
        e[x] = m_val(t, buf + (order == PGDDS_COL_MAJOR ? (x % cols) * rows + x / cols : x) * es);
    free(buf);
}

/* The same into a new array (the caller frees it). */
static inline double *m_whole(pgdds_dmatrix_t m, pgdds_dtype_t t, uint64_t rows, uint64_t cols)
{
    double *e = (double *)malloc(rows * cols * sizeof *e);
    m_read_all(m, t, rows, cols, e);
    return e;
}

/* A test's layout: a distribution and the optional fields it sets. */
struct layout_case {
    const char *name;
    pgdds_dist_t dist;
    uint64_t field_mask;
    int grid_rows, grid_cols; /* -1: the job's ranks (a 1 x N or N x 1 grid) */
    uint64_t tile_rows, tile_cols;
    pgdds_order_t order;
};

/* The params of a rows x cols matrix of type t in layout c, on a job of nranks. */
static inline pgdds_dmatrix_params_t m_params(const struct layout_case *c, uint64_t rows, uint64_t cols, pgdds_dtype_t t,
                                              int nranks)
{
    pgdds_dmatrix_params_t p;
    memset(&p, 0, sizeof p);
    p.field_mask = c->field_mask;
    p.rows = rows;
    p.cols = cols;
    p.dtype = t;
    p.distribution = c->dist;
    p.grid_rows = c->grid_rows < 0 ? nranks : c->grid_rows;
    p.grid_cols = c->grid_cols < 0 ? nranks : c->grid_cols;
    p.tile_rows = c->tile_rows;
    p.tile_cols = c->tile_cols;
    p.order = c->order;
    return p;
}

/* Element (i, j) of pattern `seed`: a small integer in [-40, 56]. */
static inline double m_pattern(int seed, uint64_t i, uint64_t j)
{
    return (double)((int64_t)((i * 31 + j * 7 + (uint64_t)seed * 13) % 97) - 40);
}

struct m_gen_arg {
    pgdds_dtype_t dtype;
    int seed;
};

static void m_generator(uint64_t i, uint64_t j, void *value, void *arg)
{
    const struct m_gen_arg *g = (const struct m_gen_arg *)arg;
    m_set(g->dtype, value, m_pattern(g->seed, i, j));
}

/* This rank's work-stealing counts after a product (stealing: by a work-stealing algorithm)
 * whose C has `tiles` tiles of `steps` k steps each: summed over the ranks the steps are every
 * step of the product, each once; a rank visits every tile and claims until one claim finds no
 * step left, so its claims are its steps plus one per tile; one rank steals nothing; other
 * algorithms leave zeros. Collective. */
static inline void m_check_steals(pgdds_context_t ctx, const pgdds_matrix_steals_t *s, int stealing, uint64_t tiles,
                                  uint64_t steps, const char *what)
{
    uint64_t mine = s->own_steps + s->stolen_steps, all = 0;
    T_OK(pgdds_allreduce(ctx, &mine, &all, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    if (!stealing) {
        T_CHECK_MSG(all == 0 && s->claims == 0, "%s: counts %llu steps and %llu claims without work stealing", what,
                    (unsigned long long)all, (unsigned long long)s->claims);
        return;
    }
    T_CHECK_MSG(all == tiles * steps, "%s: the ranks computed %llu steps of %llu", what, (unsigned long long)all,
                (unsigned long long)(tiles * steps));
    T_CHECK_MSG(s->claims == mine + tiles, "%s: %llu claims for %llu steps over %llu tiles", what,
                (unsigned long long)s->claims, (unsigned long long)mine, (unsigned long long)tiles);
    if (pgdds_nranks(ctx) == 1) T_CHECK_MSG(s->stolen_steps == 0, "%s: one rank stole %llu steps", what, (unsigned long long)s->stolen_steps);
}

#endif
