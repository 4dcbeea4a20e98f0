/* The machine figures of the inter-node roofline model (BCL thesis §7.3, §7.6) that the matrix
 * benchmarks share: memory bandwidth (a memcpy) and one-sided get bandwidth (a tile of a dense
 * matrix from the next rank), each the slowest rank's, as the model is per rank; a figure given
 * on the command line (non-zero) is kept. */
#ifndef PGDDS_BENCH_MATRIX_MODEL_H
#define PGDDS_BENCH_MATRIX_MODEL_H

#include "../micro/report.h"

#include <pgdds/matrix.h>

static inline double model_seconds(void) { return now_us() * 1e-6; }

/* One-sided get bandwidth from the next rank, GB/s: a tile it holds (this rank's own on one rank). */
static inline double model_measure_net(pgdds_context_t ctx, pgdds_dmatrix_t m)
{
    pgdds_dmatrix_info_t info;
    pgdds_dmatrix_info(m, &info);
    int peer = (pgdds_rank(ctx) + 1) % pgdds_nranks(ctx);
    uint64_t ti = (uint64_t)(peer / info.grid_cols), tj = (uint64_t)(peer % info.grid_cols), rows = 0, cols = 0;
    if (ti >= info.tile_grid_rows || tj >= info.tile_grid_cols) ti = tj = 0;
    pgdds_dmatrix_tile_shape(m, ti, tj, &rows, &cols, NULL);
    double *buf = malloc(rows * cols * 8), best = 0, bytes = (double)(rows * cols * 8);
    for (int r = 0; r < 5; ++r) {
        double t0 = model_seconds();
        if (pgdds_dmatrix_get_tile(m, ti, tj, buf, 0) != PGDDS_OK) break;
        double dt = model_seconds() - t0;
        if (dt > 0 && bytes / dt * 1e-9 > best) best = bytes / dt * 1e-9;
    }
    free(buf);
    return best;
}

/* Memory bandwidth, GB/s: a 64 MiB memcpy reads and writes. */
static inline double model_measure_mem(void)
{
    size_t sz = (size_t)64 << 20;
    char *x = malloc(sz), *y = malloc(sz);
    memset(x, 1, sz);
    double mem = memcpy_bandwidth(y, x, sz, 5) * 1e-3 * 2; /* MB/s to GB/s, both ways */
    free(x), free(y);
    return mem;
}

/* Every figure becomes its minimum over the ranks (at most 8 figures); collective. */
static inline void model_agree(pgdds_context_t ctx, double *figures, int count)
{
    double lo[8];
    pgdds_allreduce(ctx, figures, lo, (size_t)count, PGDDS_DOUBLE, PGDDS_OP_MIN);
    for (int i = 0; i < count; ++i) figures[i] = lo[i];
}

#endif
