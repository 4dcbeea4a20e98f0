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

#endif
