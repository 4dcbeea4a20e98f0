/* Matrices in GPU memory: dense tiles in the device segments (their pointers device pointers),
 * scale, add, transpose, apply, reduce and norm (dense and sparse),
 * tile and slice transfers with host and device buffers, accumulation into a tile from every
 * rank at once, and C = alpha A B + beta C by every algorithm, in float and double, on an even
 * and an uneven (edge tiles) layout, checked element by element against the product computed
 * on the host; sparse CSR tiles there too, multiplied with dense matrices (SpMM, cuSPARSE) by
 * every algorithm, multiplied with each other (SpGEMM, cuSPARSE) by every algorithm it has, and
 * written to and read back from a Matrix Market file; bad input. Run with
 * PGDDS_GPU_SEGMENT_SIZE set. */
#include "gpu_check.h"

#include <pgdds/matrix.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Small whole numbers: float and double products are exact. */
static double a_of(uint64_t r, uint64_t c) { return (double)((r * 7 + c * 3) % 5) - 2; }
static double b_of(uint64_t r, uint64_t c) { return (double)((r * 2 + c * 5) % 7) - 3; }
static double c_of(uint64_t r, uint64_t c) { return (double)((r + c) % 3); }

struct gen_arg {
    pgdds_dtype_t t;
    double (*f)(uint64_t, uint64_t);
};
static void gen(uint64_t r, uint64_t c, void *out, void *arg)
{
    const struct gen_arg *g = arg;
    if (g->t == PGDDS_FLOAT) *(float *)out = (float)g->f(r, c);
    else *(double *)out = g->f(r, c);
}
static double elem(pgdds_dtype_t t, const void *p, size_t i)
{
    return t == PGDDS_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
}

static int is_device_pointer(const void *p)
{
    struct cudaPointerAttributes a;
    return p && cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice;
}

static pgdds_dmatrix_t make(pgdds_context_t ctx, uint64_t rows, uint64_t cols, pgdds_dtype_t t, uint64_t tile)
{
    pgdds_dmatrix_params_t p = {.field_mask = PGDDS_DMATRIX_FIELD_TILE | PGDDS_DMATRIX_FIELD_MEMORY, .rows = rows,
                                .cols = cols, .dtype = t, .distribution = PGDDS_DIST_BLOCK_CYCLIC,
                                .tile_rows = tile, .tile_cols = tile, .memory = PGDDS_MEMORY_CUDA};
    pgdds_dmatrix_t m = NULL;
    T_OK(pgdds_dmatrix_create(ctx, &p, &m));
    return m;
}

/* The sparse A of the SpMM checks: entry (i, j) where (3i + 5j) % 7 == 0, its value s_of. */
static double s_of(uint64_t r, uint64_t c) { return (double)((r + 2 * c) % 5) - 2; }
static int s_has(uint64_t r, uint64_t c) { return (r * 3 + c * 5) % 7 == 0; }

/* The elements of C (m x n) that are not 2 A B - C0, for the dense A of a_of or the sparse one
 * of s_of; every rank reads all of C. */
static size_t wrong_products(pgdds_dmatrix_t c, pgdds_dtype_t t, uint64_t m, uint64_t k, uint64_t n, int sparse)
{
    const size_t es = t == PGDDS_FLOAT ? 4 : 8;
    void *got = malloc(m * n * es);
    T_OK(pgdds_dmatrix_get_slice(c, 0, 0, m, n, got, 0));
    size_t bad = 0;
    for (uint64_t i = 0; i < m; ++i)
        for (uint64_t j = 0; j < n; ++j) {
            double want = -c_of(i, j);
            for (uint64_t x = 0; x < k; ++x)
                want += 2 * (sparse ? (s_has(i, x) ? s_of(i, x) : 0) : a_of(i, x)) * b_of(x, j);
            if (elem(t, got, i * n + j) != want && bad++ < 3)
                fprintf(stderr, "rank %d: %s: C(%llu, %llu) = %g, not %g\n", t_rank, t == PGDDS_FLOAT ? "float" : "double",
                        (unsigned long long)i, (unsigned long long)j, elem(t, got, i * n + j), want);
        }
    free(got);
    return bad;
}

/* C = 2 A B - C0 by algorithm alg, then every rank reads all of C and compares. */
static void check_gemm(pgdds_context_t ctx, pgdds_dtype_t t, uint64_t m, uint64_t k, uint64_t n, uint64_t tile,
                       pgdds_gemm_algorithm_t alg)
{
    pgdds_dmatrix_t a = make(ctx, m, k, t, tile), b = make(ctx, k, n, t, tile), c = make(ctx, m, n, t, tile);
    if (!a || !b || !c) return;
    struct gen_arg ga = {t, a_of}, gb = {t, b_of}, gc = {t, c_of};
    T_OK(pgdds_dmatrix_fill(a, gen, &ga));
    T_OK(pgdds_dmatrix_fill(b, gen, &gb));
    T_OK(pgdds_dmatrix_fill(c, gen, &gc));
    T_OK(pgdds_dmatrix_gemm(2.0, a, b, -1.0, c, alg));
    const size_t bad = wrong_products(c, t, m, k, n, 0);
    T_CHECK_MSG(bad == 0, "%zu wrong elements of C (algorithm %d, %llu x %llu x %llu, tile %llu)", bad, (int)alg,
                (unsigned long long)m, (unsigned long long)k, (unsigned long long)n, (unsigned long long)tile);
    T_OK(pgdds_dmatrix_destroy(c));
    T_OK(pgdds_dmatrix_destroy(b));
    T_OK(pgdds_dmatrix_destroy(a));
}

static void gen_transposed(uint64_t r, uint64_t c, void *out, void *arg) { gen(c, r, out, arg); }

/* What GPU products take through copies: A stored as its transpose and read as A^T, and C a
 * view of a bigger matrix that cuts its tiles; C = 2 A B - C0 by algorithm alg, the rest of the
 * bigger matrix unchanged. */
static void check_gemm_copies(pgdds_context_t ctx, pgdds_dtype_t t, pgdds_gemm_algorithm_t alg)
{
    const uint64_t m = 40, k = 24, n = 36, tile = 16, BR = m + 5, BC = n + 3;
    pgdds_dmatrix_t at = make(ctx, k, m, t, tile), b = make(ctx, k, n, t, tile), big = make(ctx, BR, BC, t, tile);
    pgdds_dmatrix_t c = NULL;
    if (!at || !b || !big) return;
    struct gen_arg ga = {t, a_of}, gb = {t, b_of}, gc = {t, c_of};
    T_OK(pgdds_dmatrix_fill(at, gen_transposed, &ga));
    T_OK(pgdds_dmatrix_fill(b, gen, &gb));
    T_OK(pgdds_dmatrix_fill(big, gen, &gb)); /* outside the view: b_of */
    T_OK(pgdds_dmatrix_view(big, PGDDS_NO_TRANS, 3, 1, m, n, &c));
    T_OK(pgdds_dmatrix_fill(c, gen, &gc));
    T_OK(pgdds_dmatrix_gemm_trans(PGDDS_TRANS, PGDDS_NO_TRANS, 2.0, at, b, -1.0, c, alg));
    size_t bad = wrong_products(c, t, m, k, n, 0);
    T_CHECK_MSG(bad == 0, "%zu wrong elements of a view C = 2 A^T B - C0 (algorithm %d)", bad, (int)alg);
    const size_t es = t == PGDDS_FLOAT ? 4 : 8;
    void *all = malloc(BR * BC * es);
    T_OK(pgdds_dmatrix_get_slice(big, 0, 0, BR, BC, all, 0));
    bad = 0;
    for (uint64_t i = 0; i < BR; ++i)
        for (uint64_t j = 0; j < BC; ++j)
            if ((i < 3 || i >= 3 + m || j < 1 || j >= 1 + n) && elem(t, all, i * BC + j) != b_of(i, j)) ++bad;
    T_CHECK_MSG(bad == 0, "%zu elements outside the view changed (algorithm %d)", bad, (int)alg);
    free(all);
    T_OK(pgdds_barrier(ctx));
    pgdds_dmatrix_t each[] = {c, big, b, at};
    for (size_t x = 0; x < 4; ++x) T_OK(pgdds_dmatrix_destroy(each[x]));
}

/* Tiles: device pointers; a remote tile put and read back through host and device buffers;
 * every rank adds its rank + 1 into every tile at once, from a host and a device buffer. */
static void check_tiles(pgdds_context_t ctx, pgdds_dtype_t t)
{
    const int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    const uint64_t rows = 37, cols = 29, tile = 16;
    pgdds_dmatrix_t m = make(ctx, rows, cols, t, tile);
    if (!m) return;
    pgdds_dmatrix_info_t info;
    T_OK(pgdds_dmatrix_info(m, &info));
    const size_t es = info.elem_size, tbytes = tile * tile * es;
    for (uint64_t ti = 0; ti < info.tile_grid_rows; ++ti)
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj) {
            pgdds_gptr_t g = 0;
            int owner = -1;
            T_OK(pgdds_dmatrix_tile_gptr(m, ti, tj, &g));
            T_OK(pgdds_dmatrix_tile_shape(m, ti, tj, NULL, NULL, &owner));
            T_CHECK(pgdds_gptr_kind(g) == PGDDS_MEMORY_CUDA && pgdds_gptr_rank(g) == owner);
            void *local = NULL;
            if (owner == me) {
                T_OK(pgdds_dmatrix_local_tile(m, ti, tj, &local));
                T_CHECK_MSG(is_device_pointer(local), "local tile (%llu, %llu) is not device memory",
                            (unsigned long long)ti, (unsigned long long)tj);
            }
        }
    /* Every element starts zero; each rank accumulates (rank + 1) into every tile, half from a
     * host buffer, half from a device one. */
    void *ones = malloc(tbytes), *dev = NULL, *back = malloc(tbytes);
    for (size_t i = 0; i < tile * tile; ++i) {
        if (t == PGDDS_FLOAT) ((float *)ones)[i] = (float)(me + 1);
        else ((double *)ones)[i] = me + 1;
    }
    G_CUDA(cudaMalloc(&dev, tbytes));
    G_CUDA(cudaMemcpy(dev, ones, tbytes, cudaMemcpyHostToDevice));
    for (uint64_t ti = 0; ti < info.tile_grid_rows; ++ti)
        for (uint64_t tj = 0; tj < info.tile_grid_cols; ++tj)
            T_OK(pgdds_dmatrix_accumulate_tile(m, ti, tj, (ti + tj) % 2 ? dev : ones, tile));
    T_OK(pgdds_barrier(ctx));
    const double sum = (double)n * (n + 1) / 2;
    void *all = malloc(rows * cols * es);
    T_OK(pgdds_dmatrix_get_slice(m, 0, 0, rows, cols, all, 0));
    size_t bad = 0;
    for (size_t i = 0; i < rows * cols; ++i) bad += elem(t, all, i) != sum;
    T_CHECK_MSG(bad == 0, "%zu elements are not the sum %g of every rank's accumulation", bad, sum);
    T_OK(pgdds_barrier(ctx));

    /* The right-hand neighbour's first tile: put from a device buffer, read into a host one;
     * then the other way round. Tile rows start at zero on the last edge. */
    uint64_t ti = 0, tj = 0, trows = 0, tcols = 0;
    for (uint64_t x = 0; x < info.tile_grid_rows * info.tile_grid_cols; ++x) {
        int owner = -1;
        T_OK(pgdds_dmatrix_tile_shape(m, x / info.tile_grid_cols, x % info.tile_grid_cols, NULL, NULL, &owner));
        if (owner == (me + 1) % n) {
            ti = x / info.tile_grid_cols, tj = x % info.tile_grid_cols;
            break;
        }
    }
    for (size_t i = 0; i < tile * tile; ++i) {
        if (t == PGDDS_FLOAT) ((float *)ones)[i] = (float)(i % 97) + (float)me;
        else ((double *)ones)[i] = (double)(i % 97) + me;
    }
    T_OK(pgdds_dmatrix_tile_shape(m, ti, tj, &trows, &tcols, NULL));
    G_CUDA(cudaMemcpy(dev, ones, tbytes, cudaMemcpyHostToDevice));
    T_OK(pgdds_dmatrix_put_tile(m, ti, tj, dev, tile));
    memset(back, 0, tbytes);
    T_OK(pgdds_dmatrix_get_tile(m, ti, tj, back, tile));
    bad = 0;
    for (uint64_t r = 0; r < trows; ++r) bad += memcmp((char *)back + r * tile * es, (char *)ones + r * tile * es, tcols * es) != 0;
    T_CHECK_MSG(bad == 0, "%zu rows of a tile put from device memory read back wrong", bad);
    T_OK(pgdds_dmatrix_put_tile(m, ti, tj, ones, tile));
    G_CUDA(cudaMemset(dev, 0, tbytes));
    T_OK(pgdds_dmatrix_get_tile(m, ti, tj, dev, tile));
    G_CUDA(cudaMemcpy(back, dev, tbytes, cudaMemcpyDeviceToHost));
    bad = 0;
    for (uint64_t r = 0; r < trows; ++r) bad += memcmp((char *)back + r * tile * es, (char *)ones + r * tile * es, tcols * es) != 0;
    T_CHECK_MSG(bad == 0, "%zu rows of a tile read into device memory are wrong", bad);
    T_OK(pgdds_barrier(ctx));
    free(all);
    free(back);
    free(ones);
    G_CUDA(cudaFree(dev));
    T_OK(pgdds_dmatrix_destroy(m));
}

/* The sparse m x k matrix of s_has and s_of in GPU memory (gpu) or host memory, from every
 * rank's share of the triples (rows r with r % n == me); *p gets its parameters. */
static pgdds_smatrix_t make_sparse(pgdds_context_t ctx, pgdds_dtype_t t, uint64_t m, uint64_t k, uint64_t tile, int gpu,
                                   pgdds_dmatrix_params_t *p)
{
    const int me = pgdds_rank(ctx), nr = pgdds_nranks(ctx);
    const size_t es = t == PGDDS_FLOAT ? 4 : 8;
    size_t count = 0;
    uint64_t *rows = malloc(m * k * sizeof *rows), *cols = malloc(m * k * sizeof *cols);
    char *vals = malloc(m * k * es);
    for (uint64_t i = (uint64_t)me; i < m; i += (uint64_t)nr)
        for (uint64_t j = 0; j < k; ++j)
            if (s_has(i, j)) {
                rows[count] = i, cols[count] = j;
                struct gen_arg g = {t, s_of};
                gen(i, j, vals + count * es, &g);
                ++count;
            }
    *p = (pgdds_dmatrix_params_t){.field_mask = PGDDS_DMATRIX_FIELD_TILE | (gpu ? PGDDS_DMATRIX_FIELD_MEMORY : 0),
                                  .rows = m, .cols = k, .dtype = t, .distribution = PGDDS_DIST_BLOCK_CYCLIC,
                                  .tile_rows = tile, .tile_cols = tile, .memory = gpu ? PGDDS_MEMORY_CUDA : PGDDS_MEMORY_HOST};
    pgdds_smatrix_t a = NULL;
    T_OK(pgdds_smatrix_create_coo(ctx, p, count, rows, cols, vals, &a));
    free(rows);
    free(cols);
    free(vals);
    return a;
}

/* A (m x k, sparse) in GPU memory, C = 2 A B - C0 by algorithm alg, checked against the host's
 * product; the tiles' arrays are device pointers; A written as Matrix Market and read back into
 * host memory. */
static void check_spmm(pgdds_context_t ctx, pgdds_dtype_t t, uint64_t m, uint64_t k, uint64_t n, uint64_t tile,
                       pgdds_gemm_algorithm_t alg)
{
    const int me = pgdds_rank(ctx);
    const size_t es = t == PGDDS_FLOAT ? 4 : 8;
    pgdds_dmatrix_params_t p;
    pgdds_smatrix_t a = make_sparse(ctx, t, m, k, tile, 1, &p);
    pgdds_dmatrix_t b = make(ctx, k, n, t, tile), c = make(ctx, m, n, t, tile);
    if (!a || !b || !c) return;
    int owner = -1;
    T_OK(pgdds_smatrix_tile_shape(a, 0, 0, NULL, NULL, NULL, &owner));
    if (owner == me) {
        const uint64_t *off = NULL, *idx = NULL;
        const void *v = NULL;
        T_OK(pgdds_smatrix_local_tile(a, 0, 0, &off, &idx, &v));
        T_CHECK_MSG(is_device_pointer(off) && is_device_pointer(v), "a sparse tile's arrays are not device memory");
    }
    struct gen_arg gb = {t, b_of}, gc = {t, c_of};
    T_OK(pgdds_dmatrix_fill(b, gen, &gb));
    T_OK(pgdds_dmatrix_fill(c, gen, &gc));
    T_OK(pgdds_smatrix_spmm_algorithm(2.0, a, b, -1.0, c, alg));
    size_t bad = wrong_products(c, t, m, k, n, 1);
    T_CHECK_MSG(bad == 0, "SpMM: %zu wrong elements of C (algorithm %d, %llu x %llu x %llu, tile %llu)", bad, (int)alg,
                (unsigned long long)m, (unsigned long long)k, (unsigned long long)n, (unsigned long long)tile);
    if (alg == PGDDS_GEMM_STATIONARY_C) {
        /* Written from GPU memory, read into host memory: the same entries. */
        char path[64];
        snprintf(path, sizeof path, "/tmp/pgdds-gpu-mm-%d.mtx", (int)getppid());
        T_OK(pgdds_smatrix_write_mm(a, path));
        pgdds_dmatrix_params_t hp = p;
        hp.field_mask &= ~(uint64_t)PGDDS_DMATRIX_FIELD_MEMORY;
        pgdds_smatrix_t h = NULL;
        T_OK(pgdds_smatrix_read_mm(ctx, path, &hp, &h));
        void *dense = calloc(m * k, es);
        if (h) T_OK(pgdds_smatrix_get_slice(h, 0, 0, m, k, dense, 0));
        bad = 0;
        for (uint64_t i = 0; i < m; ++i)
            for (uint64_t j = 0; j < k; ++j) bad += elem(t, dense, i * k + j) != (s_has(i, j) ? s_of(i, j) : 0);
        T_CHECK_MSG(bad == 0, "%zu entries differ after write_mm from GPU memory and read_mm", bad);
        free(dense);
        if (h) T_OK(pgdds_smatrix_destroy(h));
        T_OK(pgdds_barrier(ctx));
        if (me == 0) unlink(path);
        /* A A does not conform where A is not square. */
        if (m != k) {
            pgdds_smatrix_t prod = NULL;
            T_STATUS(pgdds_smatrix_spgemm(1.0, a, a, &p, PGDDS_GEMM_STATIONARY_C, &prod), PGDDS_ERR_INVALID_ARG);
            T_CHECK(prod == NULL);
        }
    }
    T_OK(pgdds_dmatrix_destroy(c));
    T_OK(pgdds_dmatrix_destroy(b));
    T_OK(pgdds_smatrix_destroy(a));
}

/* P = 2 A A (SpGEMM, cuSPARSE) with A sparse and square in GPU memory, by algorithm alg: P's
 * tiles in GPU memory, every entry equal to the product of the same A in host memory
 * (GraphBLAS); a product into host memory from GPU operands is refused. */
static void check_spgemm(pgdds_context_t ctx, pgdds_dtype_t t, uint64_t m, uint64_t tile, pgdds_gemm_algorithm_t alg)
{
    const size_t es = t == PGDDS_FLOAT ? 4 : 8;
    pgdds_dmatrix_params_t pg, ph;
    pgdds_smatrix_t a = make_sparse(ctx, t, m, m, tile, 1, &pg), h = make_sparse(ctx, t, m, m, tile, 0, &ph);
    pgdds_smatrix_t pa = NULL, ha = NULL;
    T_OK(pgdds_smatrix_spgemm(2.0, a, a, &pg, alg, &pa));
    T_OK(pgdds_smatrix_spgemm(2.0, h, h, &ph, alg, &ha));
    if (!pa || !ha) return;
    int owner = -1;
    uint64_t nnz = 0;
    T_OK(pgdds_smatrix_tile_shape(pa, 0, 0, NULL, NULL, &nnz, &owner));
    if (owner == pgdds_rank(ctx) && nnz) {
        const uint64_t *off = NULL, *idx = NULL;
        const void *v = NULL;
        T_OK(pgdds_smatrix_local_tile(pa, 0, 0, &off, &idx, &v));
        T_CHECK_MSG(is_device_pointer(off) && is_device_pointer(v), "a SpGEMM product's tile is not in device memory");
    }
    uint64_t ng = 0, nh = 0;
    pgdds_dmatrix_info_t info;
    T_OK(pgdds_smatrix_info(pa, &info, &ng));
    T_OK(pgdds_smatrix_info(ha, &info, &nh));
    T_CHECK_MSG(ng == nh && nh > 0, "SpGEMM in GPU memory has %llu entries, in host memory %llu", (unsigned long long)ng,
                (unsigned long long)nh);
    char *got = calloc(m * m, es), *want = calloc(m * m, es);
    T_OK(pgdds_smatrix_get_slice(pa, 0, 0, m, m, got, 0));
    T_OK(pgdds_smatrix_get_slice(ha, 0, 0, m, m, want, 0));
    size_t bad = 0;
    for (uint64_t x = 0; x < m * m; ++x) bad += elem(t, got, x) != elem(t, want, x);
    T_CHECK_MSG(bad == 0, "SpGEMM: %zu entries of 2 A A in GPU memory differ from the host's (algorithm %d, n %llu, tile "
                "%llu)", bad, (int)alg, (unsigned long long)m, (unsigned long long)tile);
    free(got);
    free(want);
    /* Operands in GPU memory, the product asked for in host memory. */
    pgdds_smatrix_t mixed = NULL;
    T_STATUS(pgdds_smatrix_spgemm(1.0, a, a, &ph, alg, &mixed), PGDDS_ERR_INVALID_ARG);
    T_CHECK(mixed == NULL);
    T_OK(pgdds_smatrix_destroy(ha));
    T_OK(pgdds_smatrix_destroy(pa));
    T_OK(pgdds_smatrix_destroy(h));
    T_OK(pgdds_smatrix_destroy(a));
}

/* apply's function: value + i - j. */
static void plus_i_minus_j(uint64_t i, uint64_t j, void *value, void *arg)
{
    if (*(pgdds_dtype_t *)arg == PGDDS_FLOAT) *(float *)value += (float)i - (float)j;
    else *(double *)value += (double)i - (double)j;
}

/* The element-wise operations on tiles in GPU memory (scale and add by device kernels; apply,
 * reduce, norm and transpose staged through host memory), dense and sparse, against values
 * computed here; column-major tiles there are refused. */
static void check_elementwise(pgdds_context_t ctx, pgdds_dtype_t t)
{
    const uint64_t m = 53, n = 41;
    const size_t es = t == PGDDS_FLOAT ? 4 : 8;
    pgdds_dmatrix_t a = make(ctx, m, n, t, 16), b = make(ctx, m, n, t, 16), c = make(ctx, n, m, t, 16);
    struct gen_arg ga = {t, a_of}, gb = {t, b_of};
    T_OK(pgdds_dmatrix_fill(a, gen, &ga));
    T_OK(pgdds_dmatrix_fill(b, gen, &gb));
    T_OK(pgdds_dmatrix_scale(2, a));
    T_OK(pgdds_dmatrix_add(1, a, -1, b));        /* B = 2 A0 - B0 */
    T_OK(pgdds_dmatrix_transpose(a, c));         /* C = 2 A0^T */
    T_OK(pgdds_dmatrix_apply(b, plus_i_minus_j, &t));
    char *hb = malloc(m * n * es), *hc = malloc(m * n * es);
    T_OK(pgdds_dmatrix_get_slice(b, 0, 0, m, n, hb, 0));
    T_OK(pgdds_dmatrix_get_slice(c, 0, 0, n, m, hc, 0));
    size_t wrong = 0;
    double sum = 0, frob = 0;
    for (uint64_t i = 0; i < m; ++i)
        for (uint64_t j = 0; j < n; ++j) {
            const double want_b = 2 * a_of(i, j) - b_of(i, j) + (double)i - (double)j;
            wrong += elem(t, hb, i * n + j) != want_b;
            wrong += elem(t, hc, j * m + i) != 2 * a_of(i, j);
            sum += want_b;
            frob += 4 * a_of(i, j) * a_of(i, j);
        }
    T_CHECK_MSG(wrong == 0, "%zu elements wrong after scale, add, transpose and apply in GPU memory", wrong);
    double got_sum = 0, got_frob = 0;
    char out[8];
    T_OK(pgdds_dmatrix_reduce(b, PGDDS_OP_SUM, out));
    got_sum = elem(t, out, 0);
    T_OK(pgdds_dmatrix_norm(a, PGDDS_NORM_FROBENIUS, &got_frob));
    T_CHECK_MSG(got_sum == sum && fabs(got_frob - sqrt(frob)) <= 1e-5 * sqrt(frob), "reduce %g (want %g), norm %g "
                "(want %g) in GPU memory", got_sum, sum, got_frob, sqrt(frob));
    pgdds_dmatrix_params_t cm = {.field_mask = PGDDS_DMATRIX_FIELD_MEMORY | PGDDS_DMATRIX_FIELD_ORDER, .rows = m,
                                 .cols = n, .dtype = t, .distribution = PGDDS_DIST_BLOCK_CYCLIC,
                                 .memory = PGDDS_MEMORY_CUDA, .order = PGDDS_COL_MAJOR};
    pgdds_dmatrix_t refused = NULL;
    T_STATUS(pgdds_dmatrix_create(ctx, &cm, &refused), PGDDS_ERR_UNSUPPORTED);

    /* Sparse: scale, apply, reduce and the transpose and sum as new matrices in GPU memory. */
    pgdds_dmatrix_params_t sp;
    pgdds_smatrix_t s = make_sparse(ctx, t, m, n, 16, 1, &sp), st = NULL, s3 = NULL;
    T_OK(pgdds_smatrix_scale(3, s));
    T_OK(pgdds_smatrix_transpose(s, &st));
    T_OK(pgdds_smatrix_add(1, s, 2, s, &s3));   /* 9 S0 */
    T_OK(pgdds_smatrix_apply(s, plus_i_minus_j, &t));
    T_OK(pgdds_smatrix_get_slice(s, 0, 0, m, n, hb, 0));
    T_OK(pgdds_smatrix_get_slice(st, 0, 0, n, m, hc, 0));
    char *h3 = malloc(m * n * es);
    T_OK(pgdds_smatrix_get_slice(s3, 0, 0, m, n, h3, 0));
    wrong = 0;
    sum = 0;
    for (uint64_t i = 0; i < m; ++i)
        for (uint64_t j = 0; j < n; ++j) {
            const double s0 = s_has(i, j) ? s_of(i, j) : 0;
            const double want = s_has(i, j) ? 3 * s0 + (double)i - (double)j : 0;
            wrong += elem(t, hb, i * n + j) != want;
            wrong += elem(t, hc, j * m + i) != 3 * s0;
            wrong += elem(t, h3, i * n + j) != 9 * s0;
            sum += want;
        }
    T_CHECK_MSG(wrong == 0, "%zu sparse elements wrong after scale, transpose, add and apply in GPU memory", wrong);
    T_OK(pgdds_smatrix_reduce(s, PGDDS_OP_SUM, out));
    T_CHECK_MSG(elem(t, out, 0) == sum, "sparse reduce %g, want %g, in GPU memory", elem(t, out, 0), sum);
    free(h3);
    free(hb);
    free(hc);
    T_OK(pgdds_smatrix_destroy(s3));
    T_OK(pgdds_smatrix_destroy(st));
    T_OK(pgdds_smatrix_destroy(s));
    T_OK(pgdds_dmatrix_destroy(c));
    T_OK(pgdds_dmatrix_destroy(b));
    T_OK(pgdds_dmatrix_destroy(a));
}

int main(void)
{
    g_skip_without_device();
    pgdds_context_t ctx = t_init(NULL);
    static const pgdds_gemm_algorithm_t algs[] = {PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STATIONARY_A,
                                                  PGDDS_GEMM_STATIONARY_B, PGDDS_GEMM_SUMMA,
                                                  PGDDS_GEMM_STEAL_RANDOM, PGDDS_GEMM_STEAL_LOCALITY};
    static const pgdds_dtype_t types[] = {PGDDS_DOUBLE, PGDDS_FLOAT};
    for (int x = 0; x < 2; ++x) {
        check_tiles(ctx, types[x]);
        check_elementwise(ctx, types[x]);
        for (size_t y = 0; y < sizeof algs / sizeof algs[0]; ++y) {
            check_gemm(ctx, types[x], 64, 96, 48, 16, algs[y]); /* whole tiles */
            check_gemm(ctx, types[x], 53, 41, 67, 16, algs[y]); /* edge tiles */
            check_gemm_copies(ctx, types[x], algs[y]);
            if (algs[y] == PGDDS_GEMM_SUMMA) continue;         /* SpMM has no SUMMA */
            check_spmm(ctx, types[x], 64, 64, 24, 16, algs[y]);
            check_spmm(ctx, types[x], 53, 41, 19, 16, algs[y]);
            check_spgemm(ctx, types[x], 64, 16, algs[y]);
            check_spgemm(ctx, types[x], 53, 16, algs[y]); /* edge tiles */
        }
    }

    /* Bad input: operands in different memory kinds, integer types in GPU memory. */
    pgdds_dmatrix_params_t hp = {.rows = 32, .cols = 32, .dtype = PGDDS_DOUBLE, .distribution = PGDDS_DIST_BLOCK_CYCLIC,
                                 .field_mask = PGDDS_DMATRIX_FIELD_TILE, .tile_rows = 16, .tile_cols = 16};
    pgdds_dmatrix_t host = NULL;
    T_OK(pgdds_dmatrix_create(ctx, &hp, &host));
    pgdds_dmatrix_t d1 = make(ctx, 32, 32, PGDDS_DOUBLE, 16), d2 = make(ctx, 32, 32, PGDDS_DOUBLE, 16);
    T_STATUS(pgdds_dmatrix_gemm(1.0, host, d1, 0.0, d2, PGDDS_GEMM_STATIONARY_C), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_dmatrix_gemm(1.0, d1, d2, 0.0, host, PGDDS_GEMM_SUMMA), PGDDS_ERR_INVALID_ARG);
    hp.field_mask |= PGDDS_DMATRIX_FIELD_MEMORY;
    hp.memory = PGDDS_MEMORY_CUDA;
    hp.dtype = PGDDS_INT64;
    pgdds_dmatrix_t bad = NULL;
    T_STATUS(pgdds_dmatrix_create(ctx, &hp, &bad), PGDDS_ERR_UNSUPPORTED);
    T_CHECK(bad == NULL);
    T_OK(pgdds_dmatrix_destroy(d2));
    T_OK(pgdds_dmatrix_destroy(d1));
    T_OK(pgdds_dmatrix_destroy(host));
    return t_finish(ctx, "gpu matrix");
}
