/* GPU memory where there is none: in a build without CUDA, on a machine without a device, or in
 * a context without a device segment, every GPU call fails with a status and an explanation, and
 * nothing else changes. With PGDDS_GPU_SEGMENT_SIZE set, pgdds_init succeeds exactly when the
 * library has CUDA and a device is visible, and fails with PGDDS_ERR_UNSUPPORTED on every rank
 * otherwise. Runs on every machine (no skip). */
#include "harness.h"

#include <pgdds/matrix.h>

#include <string.h>

int main(void)
{
    int devices = -1;
    T_STATUS(pgdds_gpu_probe(NULL), PGDDS_ERR_INVALID_ARG);
    const pgdds_status_t probe = pgdds_gpu_probe(&devices);
    T_CHECK_MSG(probe == PGDDS_OK || (probe == PGDDS_ERR_UNSUPPORTED && devices == 0), "pgdds_gpu_probe: %d", probe);
    const int usable = probe == PGDDS_OK && devices > 0;
    const char *seg = getenv("PGDDS_GPU_SEGMENT_SIZE");
    const int with_segment = seg && strcmp(seg, "0") != 0;

    /* The build says what it has. */
    int has_cuda = -1;
    for (int i = 0; i < pgdds_build_option_count(); ++i) {
        const char *name, *value;
        T_OK(pgdds_build_option(i, &name, &value));
        if (strcmp(name, "cuda") == 0) has_cuda = strncmp(value, "yes", 3) == 0;
    }
    T_CHECK_MSG(has_cuda == (probe == PGDDS_OK), "build option cuda=%d, but pgdds_gpu_probe returned %d", has_cuda, probe);

    if (with_segment && !usable) {
        pgdds_context_t c = NULL;
        T_STATUS(pgdds_init(NULL, &c), PGDDS_ERR_UNSUPPORTED);
        T_CHECK_MSG(strstr(pgdds_last_error(), "CUDA") != NULL, "the reason names CUDA: %s", pgdds_last_error());
        printf("gpu absent: %s (pgdds_init: %s)\n", t_failures ? "FAILED" : "passed", pgdds_last_error());
        return t_failures ? 1 : 0;
    }
    pgdds_context_t ctx = t_init(NULL);
    const int me = pgdds_rank(ctx);
    int device = -2;
    T_OK(pgdds_gpu_device(ctx, &device));
    T_STATUS(pgdds_gpu_device(ctx, NULL), PGDDS_ERR_INVALID_ARG);
    pgdds_gptr_t p = 0;
    if (with_segment) {
        T_CHECK_MSG(device >= 0 && device < devices, "pgdds_gpu_device gave %d of %d", device, devices);
        T_OK(pgdds_alloc_kind(ctx, PGDDS_MEMORY_CUDA, 64, 0, &p));
        T_CHECK(pgdds_gptr_kind(p) == PGDDS_MEMORY_CUDA && pgdds_gptr_rank(p) == me);
        T_OK(pgdds_free(ctx, p));
    }
    /* A dense matrix in GPU memory: made where there is a device segment, refused otherwise. */
    pgdds_dmatrix_params_t mp = {.field_mask = PGDDS_DMATRIX_FIELD_MEMORY, .rows = 10, .cols = 12, .dtype = PGDDS_DOUBLE,
                                 .distribution = PGDDS_DIST_BLOCK_CYCLIC, .memory = PGDDS_MEMORY_CUDA};
    pgdds_dmatrix_t m = NULL;
    if (with_segment) {
        T_OK(pgdds_dmatrix_create(ctx, &mp, &m));
        pgdds_gptr_t tile = 0;
        T_OK(pgdds_dmatrix_tile_gptr(m, 0, 0, &tile));
        T_CHECK(pgdds_gptr_kind(tile) == PGDDS_MEMORY_CUDA);
        T_OK(pgdds_dmatrix_destroy(m));
        m = NULL;
    } else {
        T_STATUS(pgdds_dmatrix_create(ctx, &mp, &m), PGDDS_ERR_UNSUPPORTED);
        T_CHECK(m == NULL);
    }
    mp.dtype = PGDDS_INT32; /* cuBLAS has no integer GEMM */
    T_STATUS(pgdds_dmatrix_create(ctx, &mp, &m), PGDDS_ERR_UNSUPPORTED);
    mp.dtype = PGDDS_DOUBLE;
    mp.memory = (pgdds_memory_kind_t)7;
    T_STATUS(pgdds_dmatrix_create(ctx, &mp, &m), PGDDS_ERR_INVALID_ARG);
    T_CHECK(m == NULL);
    if (!with_segment) {
        T_CHECK_MSG(device == -1, "pgdds_gpu_device gave %d without a device segment", device);
        T_STATUS(pgdds_alloc_kind(ctx, PGDDS_MEMORY_CUDA, 64, 0, &p), PGDDS_ERR_UNSUPPORTED);
        /* A device global pointer, as a peer with a device segment would make it. */
        pgdds_gptr_t dev = ((pgdds_gptr_t)me << (PGDDS_GPTR_OFFSET_BITS + PGDDS_GPTR_SEGMENT_BITS)) |
                           ((pgdds_gptr_t)PGDDS_MEMORY_CUDA << PGDDS_GPTR_OFFSET_BITS) | 4096;
        T_CHECK(pgdds_gptr_kind(dev) == PGDDS_MEMORY_CUDA);
        uint64_t word = 7, old = 0;
        T_STATUS(pgdds_put(ctx, dev, &word, 8), PGDDS_ERR_UNSUPPORTED);
        T_STATUS(pgdds_get(ctx, &word, dev, 8), PGDDS_ERR_UNSUPPORTED);
        T_STATUS(pgdds_put_nbi(ctx, dev, &word, 8), PGDDS_ERR_UNSUPPORTED);
        T_STATUS(pgdds_atomic_u64(ctx, dev, PGDDS_AOP_ADD, 1, &old), PGDDS_ERR_UNSUPPORTED);
        T_STATUS(pgdds_free(ctx, dev), PGDDS_ERR_UNSUPPORTED);
        T_CHECK(pgdds_gptr_to_local(ctx, dev) == NULL);
        T_CHECK(word == 7 && old == 0);
    }
    T_STATUS(pgdds_alloc_kind(ctx, (pgdds_memory_kind_t)7, 64, 0, &p), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_alloc_kind(ctx, PGDDS_MEMORY_HOST, 64, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_alloc_kind(ctx, PGDDS_MEMORY_HOST, 64, 0, &p));
    T_CHECK(pgdds_gptr_kind(p) == PGDDS_MEMORY_HOST && pgdds_gptr_to_local(ctx, p) != NULL);
    T_OK(pgdds_free(ctx, p));
    T_CHECK(pgdds_gptr_kind((pgdds_gptr_t)2 << PGDDS_GPTR_OFFSET_BITS) == -1);
    return t_finish(ctx, "gpu absent");
}
