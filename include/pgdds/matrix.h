/**
 * @file matrix.h
 * libpgdds distributed dense matrices and one-sided matrix multiplication (since 0.1; an
 * addition to the ABI of pgdds.h, which does not include this header).
 *
 * A dense matrix of rows x cols elements of one type (float, double, int32 or int64) is cut
 * into a grid of tiles, each a contiguous block stored in one rank's segment (row-major, or
 * column-major where the matrix is made so: pgdds_order_t), and
 * the tiles are dealt to a 2D grid of grid_rows x grid_cols ranks block-cyclically: tile
 * (ti, tj) lives on rank (ti % grid_rows) * grid_cols + (tj % grid_cols). Every rank holds
 * the directory of the tiles' global pointers, so any rank reads, writes or accumulates any
 * tile with one-sided calls, and the owner reaches its own tiles in place. Edge tiles are
 * shorter where the tile size does not divide the matrix; a rank may hold no tile at all.
 *
 * The conventions of pgdds.h hold: a pgdds_status_t result, pgdds_last_error() saying why,
 * outputs written only on success, opaque handles that stay recognisable once destroyed.
 * A call refused for bad input (NULL, a tile or element index out of range, a shape or type
 * that does not match) changes no matrix. docs/matrices.md describes the design.
 */
#ifndef PGDDS_MATRIX_H
#define PGDDS_MATRIX_H

#include <pgdds/pgdds.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup libpgdds_matrix Distributed dense matrices
 * @{ */

/** A distributed dense matrix; opaque. */
typedef struct pgdds_dmatrix *pgdds_dmatrix_t;

/** How a matrix is cut into tiles and dealt to the grid of ranks (BCL thesis, Table 7.1).
 * Sizes left free are "div": the matrix dimension divided evenly over the grid dimension,
 * rounded up. */
typedef enum {
    PGDDS_DIST_BLOCK_ROW = 0,     /* grid nranks x 1; a tile spans whole rows (tile_rows: div,
                                   * or given for a cyclic block-row layout) */
    PGDDS_DIST_BLOCK_COL = 1,     /* grid 1 x nranks; a tile spans whole columns (tile_cols: div,
                                   * or given) */
    PGDDS_DIST_BLOCK_2D = 2,      /* near-square grid (or given); one tile per rank (div x div) */
    PGDDS_DIST_BLOCK_CYCLIC = 3,  /* near-square grid (or given); square tiles of
                                   * PGDDS_DMATRIX_DEFAULT_TILE (or given), dealt cyclically */
    PGDDS_DIST_CUSTOM = 4         /* grid and tile size both given */
} pgdds_dist_t;

/** The side of a PGDDS_DIST_BLOCK_CYCLIC tile when none is given. */
#define PGDDS_DMATRIX_DEFAULT_TILE 64

/** The optional fields of pgdds_dmatrix_params_t, read only when their bit is set. */
enum {
    PGDDS_DMATRIX_FIELD_GRID = 1u << 0,  /* grid_rows, grid_cols: their product is the job's size */
    PGDDS_DMATRIX_FIELD_TILE = 1u << 1,  /* tile_rows, tile_cols (0 in one of them: div) */
    PGDDS_DMATRIX_FIELD_MEMORY = 1u << 2, /* memory: where the tiles live (default PGDDS_MEMORY_HOST) */
    PGDDS_DMATRIX_FIELD_ORDER = 1u << 3   /* order: how a tile's elements are laid out (default
                                           * PGDDS_ROW_MAJOR; since 0.1) */
};

/** How a dense tile's elements follow each other in memory, and so how every caller buffer of
 * the matrix (tiles, slices, accumulations) is laid out, with its ld counting elements between
 * rows (row-major) or between columns (column-major, as BLAS, LAPACK and Fortran have it). */
typedef enum {
    PGDDS_ROW_MAJOR = 0,
    PGDDS_COL_MAJOR = 1  /* dense matrices in host memory (sparse matrices are row-major CSR);
                          * SUMMA and SpMM work on row-major copies of them */
} pgdds_order_t;

typedef struct pgdds_dmatrix_params {
    uint64_t      field_mask;
    uint64_t      rows, cols;     /* at least 1 each */
    pgdds_dtype_t dtype;          /* PGDDS_FLOAT, PGDDS_DOUBLE, PGDDS_INT32 or PGDDS_INT64 */
    pgdds_dist_t  distribution;
    /* Optional fields. */
    int           grid_rows, grid_cols;
    uint64_t      tile_rows, tile_cols;
    /* PGDDS_MEMORY_CUDA: a matrix of float or double with its tiles in the ranks' device
     * segments (PGDDS_GPU_SEGMENT_SIZE): dense tiles multiplied by cuBLAS, CSR tiles by cuSPARSE
     * (SpMM; SpGEMM stays in host memory). Tile pointers (local_tile, the directory) are then
     * device pointers, and caller buffers may be host or device memory. */
    pgdds_memory_kind_t memory;
    /* PGDDS_COL_MAJOR: each tile column-major (element (r, c) of a tile of `rows` rows at
     * c * rows + r); see pgdds_order_t. */
    pgdds_order_t order;
} pgdds_dmatrix_params_t;

/** What a matrix is: its shape, type and layout. */
typedef struct pgdds_dmatrix_info {
    uint64_t      rows, cols;
    pgdds_dtype_t dtype;
    size_t        elem_size;
    int           grid_rows, grid_cols;            /* the grid of ranks */
    uint64_t      tile_rows, tile_cols;            /* the full tile's size (edge tiles are shorter) */
    uint64_t      tile_grid_rows, tile_grid_cols;  /* the number of tiles down and across */
} pgdds_dmatrix_info_t;

/** The order of a dense matrix's tiles (pgdds_dmatrix_info_t predates it).
 * @param matrix   the matrix
 * @param order    on success, PGDDS_ROW_MAJOR or PGDDS_COL_MAJOR
 * @return PGDDS_OK, or PGDDS_ERR_INVALID_ARG (matrix not a matrix, order NULL) */
PGDDS_API pgdds_status_t pgdds_dmatrix_order(pgdds_dmatrix_t matrix, pgdds_order_t *order);
/** Creates a matrix, every element zero; collective, with the same params on every rank.
 * The tiles live in one symmetric block (pgdds_alloc_all) of every rank's segment, sized for
 * the most tiles any rank holds, plus one lock word per tile slot for accumulation. With
 * memory PGDDS_MEMORY_CUDA the tiles are one block of each rank's device segment instead (the
 * lock words stay in host memory).
 * @param ctx      the context (pgdds_init)
 * @param params   shape, type, distribution and the optional fields set in field_mask
 * @param matrix   on success, the new matrix
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (an empty shape, a type or distribution it does not
 *         know, a grid whose size is not the job's, params that differ between ranks),
 *         PGDDS_ERR_NO_MEMORY (a segment too small), PGDDS_ERR_UNSUPPORTED (GPU memory for an
 *         integer type, or in a build without CUDA or a context without a device segment) */
PGDDS_API pgdds_status_t pgdds_dmatrix_create(pgdds_context_t ctx, const pgdds_dmatrix_params_t *params,
                                              pgdds_dmatrix_t *matrix);
/** Destroys a matrix; collective (it first completes every rank's operations, as a barrier).
 * A view (pgdds_dmatrix_view) is destroyed alone, locally.
 * @param matrix   the matrix
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_dmatrix_destroy(pgdds_dmatrix_t matrix);
/** Describes a matrix.
 * @param matrix   the matrix
 * @param info     gets its shape, type and layout
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_dmatrix_info(pgdds_dmatrix_t matrix, pgdds_dmatrix_info_t *info);

/** @name Tiles
 * A tile is addressed by its tile-grid coordinates (ti, tj), 0 <= ti < tile_grid_rows,
 * 0 <= tj < tile_grid_cols (else PGDDS_ERR_OUT_OF_BOUNDS). A caller's buffer holds the tile
 * row-major with ld elements between rows (ld at least the tile's columns; 0 means exactly
 * its columns), or, for a column-major matrix, column-major with ld elements between columns
 * (at least, and by default, the tile's rows). Puts are visible to others after pgdds_flush or a barrier, as pgdds_put's. */
/** @{ */
/** The size and owner of tile (ti, tj).
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param rows     unless NULL, gets the tile's rows
 * @param cols     unless NULL, gets the tile's columns
 * @param owner    unless NULL, gets the rank that holds it
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for a tile outside the grid */
PGDDS_API pgdds_status_t pgdds_dmatrix_tile_shape(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, uint64_t *rows,
                                                  uint64_t *cols, int *owner);
/** The global pointer of tile (ti, tj) (the directory's entry); its rows x cols elements
 * follow it in the matrix's order, with no gap.
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param out      gets the pointer
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS */
PGDDS_API pgdds_status_t pgdds_dmatrix_tile_gptr(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, pgdds_gptr_t *out);
/** The local address of a tile this rank holds, to read and write in place.
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param data     gets the tile's first element (in the matrix's order, ld = its columns,
 *                 or its rows when column-major)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_INVALID_ARG when another rank holds the tile */
PGDDS_API pgdds_status_t pgdds_dmatrix_local_tile(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, void **data);
/** Copies tile (ti, tj) into buf.
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param buf      room for the tile's rows, ld elements apart
 * @param ld       elements between rows of buf (columns when column-major); 0: packed
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_INVALID_ARG (NULL buf, ld below the tile's
 *         columns), PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_dmatrix_get_tile(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, void *buf, uint64_t ld);
/** Writes buf over tile (ti, tj).
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param buf      the tile's rows, ld elements apart
 * @param ld       elements between rows of buf (columns when column-major); 0: packed
 * @return as pgdds_dmatrix_get_tile */
PGDDS_API pgdds_status_t pgdds_dmatrix_put_tile(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, const void *buf,
                                                uint64_t ld);
/** Adds buf into tile (ti, tj), element by element; atomic with respect to every other
 * accumulate into the tile (a lock word per tile), whoever issues it. Returns complete: the
 * sum is visible at the owner. Integers wrap as unsigned arithmetic does.
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param buf      the addend's rows, ld elements apart
 * @param ld       elements between rows of buf (columns when column-major); 0: packed
 * @return as pgdds_dmatrix_get_tile */
PGDDS_API pgdds_status_t pgdds_dmatrix_accumulate_tile(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj,
                                                       const void *buf, uint64_t ld);
/** pgdds_dmatrix_accumulate_tile returning a request (pgdds_test, pgdds_wait), complete when the
 * sum is visible at the owner. buf (the addend, packed) is copied before the call returns. Each
 * poll of the request tries the tile's lock once and, where it takes it, reads the tile, adds,
 * writes the sum and gives the lock back before it returns: a tile another rank is adding into
 * makes pgdds_test say "not yet" instead of waiting, and the lock is never held between polls.
 * Destroy the matrix only after the request completed. Tiles in GPU memory are accumulated in
 * the call, and the request is complete at once.
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param buf      the addend, packed
 * @param req      on success, the request
 * @return as pgdds_dmatrix_get_tile */
PGDDS_API pgdds_status_t pgdds_dmatrix_accumulate_tile_nb(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj,
                                                          const void *buf, pgdds_request_t *req);
/** pgdds_dmatrix_get_tile returning a request (pgdds_test, pgdds_wait), complete when buf holds
 * the tile; buf holds it packed (ld = the tile's columns).
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param buf      room for the tile, packed
 * @param req      on success, the request
 * @return as pgdds_dmatrix_get_tile */
PGDDS_API pgdds_status_t pgdds_dmatrix_get_tile_nb(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, void *buf,
                                                   pgdds_request_t *req);
/** pgdds_dmatrix_put_tile returning a request, complete when buf (the tile, packed) may be
 * reused; visible at the owner after pgdds_flush.
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param buf      the tile, packed
 * @param req      on success, the request
 * @return as pgdds_dmatrix_get_tile */
PGDDS_API pgdds_status_t pgdds_dmatrix_put_tile_nb(pgdds_dmatrix_t matrix, uint64_t ti, uint64_t tj, const void *buf,
                                                   pgdds_request_t *req);
/** @} */

/** @name Elements and slices
 * Element (i, j) and slices in global coordinates, 0 <= i < rows, 0 <= j < cols. A slice is
 * any submatrix [row0, row0 + nrows) x [col0, col0 + ncols), across tiles and ranks, copied
 * to or from a row-major buffer with ld elements between rows (0: ncols), or for a
 * column-major matrix a column-major one with ld elements between columns (0: nrows); an
 * empty slice (nrows or ncols 0) copies nothing. */
/** @{ */
/** Reads element (i, j) into value (elem_size bytes).
 * @param matrix   the matrix
 * @param i        the row
 * @param j        the column
 * @param value    gets the element
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_INVALID_ARG (NULL value) */
PGDDS_API pgdds_status_t pgdds_dmatrix_get(pgdds_dmatrix_t matrix, uint64_t i, uint64_t j, void *value);
/** Writes value (elem_size bytes) to element (i, j); visible after pgdds_flush or a barrier.
 * @param matrix   the matrix
 * @param i        the row
 * @param j        the column
 * @param value    the element
 * @return as pgdds_dmatrix_get */
PGDDS_API pgdds_status_t pgdds_dmatrix_put(pgdds_dmatrix_t matrix, uint64_t i, uint64_t j, const void *value);
/** Copies a submatrix into buf; one transfer per tile row piece, all in flight together.
 * @param matrix   the matrix
 * @param row0     the first row
 * @param col0     the first column
 * @param nrows    rows of the slice
 * @param ncols    columns of the slice
 * @param buf      room for the slice, in the matrix's order
 * @param ld       elements between rows (columns when column-major) of buf; 0: packed
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS (the slice leaves the matrix), PGDDS_ERR_INVALID_ARG (NULL
 *         buf, ld below ncols), PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_dmatrix_get_slice(pgdds_dmatrix_t matrix, uint64_t row0, uint64_t col0, uint64_t nrows,
                                                 uint64_t ncols, void *buf, uint64_t ld);
/** Writes buf over a submatrix; visible after pgdds_flush or a barrier.
 * @param matrix   the matrix
 * @param row0     the first row
 * @param col0     the first column
 * @param nrows    rows of the slice
 * @param ncols    columns of the slice
 * @param buf      the slice, in the matrix's order
 * @param ld       elements between rows (columns when column-major) of buf; 0: packed
 * @return as pgdds_dmatrix_get_slice */
PGDDS_API pgdds_status_t pgdds_dmatrix_put_slice(pgdds_dmatrix_t matrix, uint64_t row0, uint64_t col0, uint64_t nrows,
                                                 uint64_t ncols, const void *buf, uint64_t ld);
/** Gives element (i, j) its value in *value (elem_size bytes, of the matrix's type). */
typedef void (*pgdds_dmatrix_generator_t)(uint64_t i, uint64_t j, void *value, void *arg);
/** Sets every element from a generator; collective. Each rank fills the tiles it holds, then
 * the ranks wait for each other (a barrier), so every rank sees the whole matrix on return.
 * @param matrix    the matrix
 * @param generator called once per element, on the rank that holds it
 * @param arg       passed to generator
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_dmatrix_fill(pgdds_dmatrix_t matrix, pgdds_dmatrix_generator_t generator, void *arg);
/** @} */

/** @name Element-wise operations, reductions, norms and transposition
 * Collective, every rank passing the same matrices and arguments: each rank works on the tiles
 * it holds, reading other ranks' tiles one-sidedly where an operand is laid out differently,
 * and the call ends with a barrier, so every rank sees the result on return. alpha and beta are
 * converted to the matrix's type; for integer types they must be whole numbers, and integer
 * arithmetic wraps. Bad input is PGDDS_ERR_INVALID_ARG on every rank, every matrix untouched.
 * Tiles in GPU memory are scaled and added by device kernels; apply, reduce, norm and
 * transpose stage them through host memory. */
/** @{ */

/** The norm pgdds_dmatrix_norm and pgdds_smatrix_norm compute, as LAPACK's ?lange. */
typedef enum {
    PGDDS_NORM_FROBENIUS = 0, /* the square root of the sum of |a_ij|^2 */
    PGDDS_NORM_ONE = 1,       /* the largest column sum of |a_ij| */
    PGDDS_NORM_INF = 2,       /* the largest row sum of |a_ij| */
    PGDDS_NORM_MAX = 3        /* the largest |a_ij| */
} pgdds_norm_t;

/** Replaces element (i, j)'s value in *value (elem_size bytes, of the matrix's type). */
typedef void (*pgdds_dmatrix_apply_t)(uint64_t i, uint64_t j, void *value, void *arg);

/** matrix = alpha * matrix; collective.
 * @param alpha    the factor (a whole number for integer types); 0 zeroes the matrix
 * @param matrix   the matrix
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (alpha not finite, or not whole for an integer type) */
PGDDS_API pgdds_status_t pgdds_dmatrix_scale(double alpha, pgdds_dmatrix_t matrix);
/** B = alpha * A + beta * B (AXPBY over whole matrices); collective. A and B have one shape and
 * type; their layouts may differ: each rank reads the part of A under each tile of B it holds
 * (in place where it reaches it, else one slice). A may be B.
 * @param alpha    A's factor
 * @param a        A
 * @param beta     B's factor; 0 sets B without reading it
 * @param b        B
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (shapes or types that differ, A and B in different memory
 *         kinds, alpha or beta as for pgdds_dmatrix_scale), PGDDS_ERR_NO_MEMORY,
 *         PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_dmatrix_add(double alpha, pgdds_dmatrix_t a, double beta, pgdds_dmatrix_t b);
/** B = A^T; collective. B is A's cols x rows, of A's type, in any layout; each rank reads the
 * part of A under each tile of B it holds (one slice) and writes it transposed. B must not be A.
 * (A transposed operand of a product needs no copy: pgdds_dmatrix_gemm_trans reads it in place.)
 * @param a        A, m x n
 * @param b        B, n x m
 * @return as pgdds_dmatrix_add, PGDDS_ERR_INVALID_ARG also for B being A */
PGDDS_API pgdds_status_t pgdds_dmatrix_transpose(pgdds_dmatrix_t a, pgdds_dmatrix_t b);
/** Replaces every element by fn's value for it; collective. Each rank calls fn once for every
 * element of the tiles it holds (in no set order), then the ranks wait for each other.
 * @param matrix   the matrix
 * @param fn       reads and replaces one element
 * @param arg      passed to fn
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_dmatrix_apply(pgdds_dmatrix_t matrix, pgdds_dmatrix_apply_t fn, void *arg);
/** Reduces every element with op into *out (of the matrix's type) on every rank; collective.
 * PGDDS_OP_SUM (integers wrap; floating-point sums in no set order), _MIN and _MAX take any
 * type; PGDDS_OP_BAND, _BOR and _BXOR integer types only.
 * @param matrix   the matrix
 * @param op       the reduction
 * @param out      on success, the result (elem_size bytes)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (NULL out, an op it does not know or a bitwise op on a
 *         floating-point type), PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_dmatrix_reduce(pgdds_dmatrix_t matrix, pgdds_op_t op, void *out);
/** A norm of the matrix (pgdds_norm_t), in double, on every rank; collective. The Frobenius
 * norm is summed with scaling, as LAPACK's ?lassq, so it neither overflows nor underflows
 * where the norm itself does not.
 * @param matrix   the matrix
 * @param norm     which norm
 * @param out      on success, the norm
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (NULL out, a norm it does not know),
 *         PGDDS_ERR_NO_MEMORY, PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_dmatrix_norm(pgdds_dmatrix_t matrix, pgdds_norm_t norm, double *out);
/** @} */

/** @name Matrix multiplication
 * C = alpha * A * B + beta * C over distributed matrices, one-sided as in the BCL thesis
 * (chapter 7), or bulk-synchronous as the baseline; collective, every rank passing the same
 * matrices, scalars and algorithm. The shapes must agree (A: m x k, B: k x n, C: m x n), the
 * three types be one, and the tilings conform: A's tile rows are C's, A's tile columns are
 * B's tile rows, B's tile columns are C's. C must be neither A nor B. Anything else is
 * PGDDS_ERR_INVALID_ARG on every rank, C untouched. alpha and beta are converted to the
 * type; for integer types they must be whole numbers. beta 0 sets C without reading it.
 * Local products go through CBLAS (sgemm, dgemm); CBLAS has no integer product, so int32
 * and int64 tiles use a small generic kernel. Every rank's operations are complete and C is
 * whole on every rank when it returns (it ends with a barrier). */
/** @{ */
typedef enum {
    /* The owner of each C tile gets A(i, k) and B(k, j) one-sidedly, fetching the next pair
     * while it multiplies the current one (k starts at i + j, spreading the load). */
    PGDDS_GEMM_STATIONARY_C = 0,
    /* The owner of each A tile gets B(k, j) and accumulates A(i, k) B(k, j) into C(i, j). */
    PGDDS_GEMM_STATIONARY_A = 1,
    /* The owner of each B tile gets A(i, k) and accumulates into C(i, j). */
    PGDDS_GEMM_STATIONARY_B = 2,
    /* SUMMA: for each k, A's tile column is broadcast along grid rows and B's tile row along
     * grid columns (team collectives), then every rank updates its C tiles. A, B and C share
     * one grid: operands on another, column-major, transposed or views are copied onto C's grid
     * first (row-major), and a column-major C is computed in a copy. In GPU memory each rank takes the step's tiles from their owners instead
     * (in place on a node, else by gets), as a host broadcast would cross PCIe twice. */
    PGDDS_GEMM_SUMMA = 3,
    /* Stationary C with work stealing (thesis §7.4): each C tile's k steps are claimed one at a
     * time by a fetch-add on the tile's counter, by its owner first; a rank that has finished
     * its own tiles claims steps of other ranks' tiles, sums its products privately and
     * accumulates the sum into the tile (or adds each product into the tile, under its lock,
     * where it reaches the tile in place). Victims are visited in a random order ... */
    PGDDS_GEMM_STEAL_RANDOM = 4,
    /* ... or, locality-aware, those whose A and B tiles this rank reaches by load/store first
     * (its own, then its node's), randomly among equals. */
    PGDDS_GEMM_STEAL_LOCALITY = 5
} pgdds_gemm_algorithm_t;

/** C = alpha * A * B + beta * C; collective. A, B and C may be views (pgdds_dmatrix_view),
 * every rank passing the same parts: A and B are read in place where they lie on tile edges,
 * else copied first into matrices of their own (their matrices' tile sizes); a view as C is
 * computed in such a copy of it, which is then written into the view (since 0.1). A view's
 * tiling, for conformity, is its matrix's tile size.
 * @param alpha     the product's factor
 * @param a         A, m x k
 * @param b         B, k x n
 * @param beta      C's factor
 * @param c         C, m x n
 * @param algorithm a pgdds_gemm_algorithm_t
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_INVALID_ARG (shapes, types or tilings that do not conform, C aliasing A or
 *         B, an unknown algorithm, A, B and C not all in the same memory kind, ranks passing
 *         different views), PGDDS_ERR_NO_MEMORY,
 *         PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_dmatrix_gemm(double alpha, pgdds_dmatrix_t a, pgdds_dmatrix_t b, double beta,
                                            pgdds_dmatrix_t c, pgdds_gemm_algorithm_t algorithm);

/** Whether pgdds_dmatrix_gemm_trans reads an operand as it is or transposed. */
typedef enum {
    PGDDS_NO_TRANS = 0,  /* the matrix as it is */
    PGDDS_TRANS = 1      /* its transpose, read in place: tile (x, y) of the operand is the
                          * matrix's tile (y, x), which the local kernel reads transposed; no
                          * copy of the matrix is made */
} pgdds_trans_t;

/** C = alpha * op(A) * op(B) + beta * C, op(X) being X or its transpose (since 0.1; the BLAS
 * transa/transb convention); collective. The rules of pgdds_dmatrix_gemm apply to op(A) and
 * op(B): op(A) is m x k, op(B) k x n, and their tilings conform (a transposed matrix's tile
 * rows are its tile columns). Every algorithm takes transposed operands; SUMMA (whose broadcasts
 * follow A's tile columns and B's tile rows as stored) and matrices in GPU memory take
 * transposed copies of them.
 * @param trans_a   PGDDS_NO_TRANS or PGDDS_TRANS: op(A)
 * @param trans_b   PGDDS_NO_TRANS or PGDDS_TRANS: op(B)
 * @param alpha     the product's factor
 * @param a         A
 * @param b         B
 * @param beta      C's factor
 * @param c         C, m x n
 * @param algorithm a pgdds_gemm_algorithm_t
 * @return as pgdds_dmatrix_gemm; also PGDDS_ERR_INVALID_ARG for a trans value that is neither */
PGDDS_API pgdds_status_t pgdds_dmatrix_gemm_trans(pgdds_trans_t trans_a, pgdds_trans_t trans_b, double alpha,
                                                  pgdds_dmatrix_t a, pgdds_dmatrix_t b, double beta, pgdds_dmatrix_t c,
                                                  pgdds_gemm_algorithm_t algorithm);

/** What this rank did in the last work-stealing product written into a matrix (thesis §7.4):
 * the steps of the product (a k step: one tile product added into one C tile) it computed for
 * its own C tiles and for other ranks' tiles, and the fetch-adds it made on the tiles' counters
 * (a claim that found no step left included). Summed over the ranks, own_steps + stolen_steps
 * is every step of the product. All zero after a product by another algorithm, and for a matrix
 * no product wrote. */
typedef struct pgdds_matrix_steals {
    uint64_t own_steps;
    uint64_t stolen_steps;
    uint64_t claims;
} pgdds_matrix_steals_t;

/** This rank's work-stealing counts of the last GEMM or SpMM into c; local.
 * @param c   a dense matrix
 * @param out on success, the counts
 * @return PGDDS_OK, or PGDDS_ERR_INVALID_ARG (c not a matrix, out NULL), PGDDS_ERR_STATE (c's
 *         context finalized) */
PGDDS_API pgdds_status_t pgdds_dmatrix_steals(pgdds_dmatrix_t c, pgdds_matrix_steals_t *out);
/** @} */

/** @name Views
 * A view shows op(M)'s submatrix [row0, row0 + rows) x [col0, col0 + cols) of a matrix M, op(M)
 * being M or its transpose, without a copy: a handle (pgdds_dmatrix_t) on M's own elements.
 * Element and slice calls (get, put, get_slice, put_slice) and the element-wise operations
 * (fill, apply, reduce, norm, scale, add, transpose) take views wherever they take matrices,
 * the collective ones on every rank alike; so do pgdds_dmatrix_info, pgdds_dmatrix_order and
 * pgdds_dmatrix_destroy, which frees a view's handle alone (local). A view's buffers follow its
 * own order: M's, turned for a transposed view (the slice of a transposed view of a row-major M
 * is column-major), so reading one moves M's elements as they lie. A view whose edges lie on
 * tile edges of M (or M's edges) is a block of M's tiles: tile calls take it (its tile (x, y)
 * is M's tile, or M's tile (y, x) for a transposed view, the same bytes in the view's order),
 * pgdds_dmatrix_info gives its tiles, and GEMM reads it in place as A or B (a transposed one as
 * pgdds_dmatrix_gemm_trans reads a transpose). Other views have no tiles (info's tile fields 0):
 * tile calls refuse them (PGDDS_ERR_INVALID_ARG). Products take any view as any dense operand,
 * copying what they cannot read or write in place (pgdds_dmatrix_gemm). A view of a view is a view of the same M. A view outlives nothing:
 * once M is destroyed every call on the view fails (PGDDS_ERR_INVALID_ARG), destroy aside. Two
 * operands that are views of one matrix must show the same elements the same way (else a rank
 * could write what another still reads). Since 0.1. */
/** @{ */
/** Makes a view of a matrix (or of a view); local.
 * @param matrix   M, or a view of it
 * @param trans    PGDDS_NO_TRANS: M as it is (or the view as it is); PGDDS_TRANS: its transpose
 * @param row0     the first row of op(M) shown
 * @param col0     the first column of op(M) shown
 * @param rows     rows shown, at least 1
 * @param cols     columns shown, at least 1
 * @param view     on success, the view
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS (the region leaves op(M)), PGDDS_ERR_INVALID_ARG (NULL, an
 *         empty region, trans neither value), PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_dmatrix_view(pgdds_dmatrix_t matrix, pgdds_trans_t trans, uint64_t row0, uint64_t col0,
                                            uint64_t rows, uint64_t cols, pgdds_dmatrix_t *view);
/** @} */

/** @} */

/** @defgroup libpgdds_smatrix Distributed sparse matrices
 * A sparse matrix has the layouts of the dense one (pgdds_dmatrix_params_t: shape, element
 * type, distribution, grid, tile size; the same tile-to-rank rule) with CSR tiles: for a tile
 * of r rows holding nnz entries, r + 1 row offsets, nnz column indices (uint64_t, counted from
 * the tile's first column) and nnz values, in the owner's segment. Every rank holds the
 * directory of the three arrays' global pointers and each tile's entry count, so a tile is
 * fetched with three gets. Built where SuiteSparse:GraphBLAS is found; local products go
 * through it. SpMV is pgdds_smatrix_spmm with a one-column B.
 * @{ */

/** A distributed sparse matrix; opaque. */
typedef struct pgdds_smatrix *pgdds_smatrix_t;

/** Creates a sparse matrix from coordinate triples; collective, with the same params on every
 * rank. Any rank may contribute any entry, and entries contributed more than once (by one rank
 * or several) are summed. Each rank passes its own count of triples.
 * @param ctx      the context (pgdds_init)
 * @param params   shape, element type and layout, as for pgdds_dmatrix_create
 * @param count    this rank's number of triples (0: none; the arrays may then be NULL)
 * @param rows     count row indices
 * @param cols     count column indices
 * @param values   count values of params->dtype
 * @param matrix   on success, the new matrix
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (params as for pgdds_dmatrix_create, NULL arrays),
 *         PGDDS_ERR_OUT_OF_BOUNDS (an index outside the matrix, on any rank),
 *         PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_smatrix_create_coo(pgdds_context_t ctx, const pgdds_dmatrix_params_t *params, size_t count,
                                                  const uint64_t *rows, const uint64_t *cols, const void *values,
                                                  pgdds_smatrix_t *matrix);
/** Destroys a sparse matrix; collective (it first completes every rank's operations).
 * @param matrix   the matrix
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_smatrix_destroy(pgdds_smatrix_t matrix);
/** Describes a sparse matrix: its layout, as pgdds_dmatrix_info, and its entry count.
 * @param matrix   the matrix
 * @param info     gets its shape, type and layout
 * @param nnz      unless NULL, gets the number of entries (after duplicates were summed)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_smatrix_info(pgdds_smatrix_t matrix, pgdds_dmatrix_info_t *info, uint64_t *nnz);
/** The size, entry count and owner of tile (ti, tj).
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param rows     unless NULL, gets the tile's rows
 * @param cols     unless NULL, gets the tile's columns
 * @param nnz      unless NULL, gets the tile's entries
 * @param owner    unless NULL, gets the rank that holds it
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for a tile outside the grid */
PGDDS_API pgdds_status_t pgdds_smatrix_tile_shape(pgdds_smatrix_t matrix, uint64_t ti, uint64_t tj, uint64_t *rows,
                                                  uint64_t *cols, uint64_t *nnz, int *owner);
/** Copies CSR tile (ti, tj): three gets, in flight together.
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param row_offsets room for the tile's rows + 1 offsets
 * @param col_indices room for its nnz column indices (may be NULL when nnz is 0)
 * @param values   room for its nnz values (may be NULL when nnz is 0)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_INVALID_ARG (a NULL array that must hold
 *         something), PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_smatrix_get_tile(pgdds_smatrix_t matrix, uint64_t ti, uint64_t tj, uint64_t *row_offsets,
                                                uint64_t *col_indices, void *values);
/** The arrays of a CSR tile this rank holds, in place (read-only: the pattern is fixed); device
 * pointers for a matrix in GPU memory.
 * @param matrix   the matrix
 * @param ti       the tile row
 * @param tj       the tile column
 * @param row_offsets gets the tile's row offsets
 * @param col_indices gets its column indices
 * @param values   gets its values
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_INVALID_ARG (NULL, or another rank's tile) */
PGDDS_API pgdds_status_t pgdds_smatrix_local_tile(pgdds_smatrix_t matrix, uint64_t ti, uint64_t tj,
                                                  const uint64_t **row_offsets, const uint64_t **col_indices,
                                                  const void **values);
/** Copies a submatrix [row0, row0 + nrows) x [col0, col0 + ncols), across tiles and ranks, into
 * a dense row-major buffer (absent entries 0): each tile it touches is read with three gets.
 * @param matrix   the matrix
 * @param row0     the first row
 * @param col0     the first column
 * @param nrows    rows of the slice
 * @param ncols    columns of the slice
 * @param buf      room for the slice, row-major
 * @param ld       elements between rows of buf; 0: ncols
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS (the slice leaves the matrix), PGDDS_ERR_INVALID_ARG (NULL
 *         buf, ld below ncols), PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_smatrix_get_slice(pgdds_smatrix_t matrix, uint64_t row0, uint64_t col0, uint64_t nrows,
                                                 uint64_t ncols, void *buf, uint64_t ld);
/** C = alpha * A * B + beta * C with A sparse and B, C dense; collective. Stationary C: the
 * owner of each C tile fetches A(i, k) (three gets) and B(k, j) and multiplies them with
 * GraphBLAS (GrB_mxm, plus-times), or cuSPARSE (SpMM) when all three are in GPU memory. Shapes,
 * types, tilings and memory kinds must conform as for pgdds_dmatrix_gemm; anything else is
 * PGDDS_ERR_INVALID_ARG on every rank, C untouched. B and C may be column-major or views (the
 * same on every rank): the product then runs on row-major copies of them, C's written back.
 * @param alpha    the product's factor
 * @param a        A, sparse, m x k
 * @param b        B, dense, k x n
 * @param beta     C's factor
 * @param c        C, dense, m x n
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_INVALID_ARG, PGDDS_ERR_NO_MEMORY, PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_smatrix_spmm(double alpha, pgdds_smatrix_t a, pgdds_dmatrix_t b, double beta,
                                            pgdds_dmatrix_t c);
/** pgdds_smatrix_spmm by another algorithm of pgdds_gemm_algorithm_t (since 0.1; SUMMA is not
 * offered): stationary C (what pgdds_smatrix_spmm does); stationary A, where the owner of each A
 * tile reads the B tiles it meets and accumulates each product into C (pgdds_dmatrix_accumulate_tile);
 * stationary B, where the owner of each B tile reads the A tiles it meets; and stationary C
 * with random or locality-aware work stealing, the dense GEMM's schedule (per-tile counters
 * claimed by fetch-add, sums accumulated). Empty A tiles are neither read nor multiplied.
 * @param alpha    the product's factor
 * @param a        A, sparse, m x k
 * @param b        B, dense, k x n
 * @param beta     C's factor
 * @param c        C, dense, m x n
 * @param algorithm a pgdds_gemm_algorithm_t other than PGDDS_GEMM_SUMMA
 * @return as pgdds_smatrix_spmm; PGDDS_ERR_INVALID_ARG also for SUMMA or an unknown algorithm */
PGDDS_API pgdds_status_t pgdds_smatrix_spmm_algorithm(double alpha, pgdds_smatrix_t a, pgdds_dmatrix_t b, double beta,
                                                      pgdds_dmatrix_t c, pgdds_gemm_algorithm_t algorithm);
/** C = alpha * A * B with A, B and C sparse (SpGEMM), C a new matrix; collective, every rank
 * passing the same matrices, scalar, params and algorithm. A and B may be one matrix (A * A).
 * C takes params' layout (rows and cols 0: A's rows and B's columns, else they must be) and
 * type (A's and B's); A's tile columns must be B's tile rows, C's tile rows A's and C's tile
 * columns B's; A, B and C (params' memory) all in host or all in GPU memory. Local products go
 * through GraphBLAS (GrB_mxm, plus-times), or cuSPARSE SpGEMM in GPU memory (each tile's
 * dimensions and entries below 2^31: it takes 32-bit indices), their sums through GraphBLAS in
 * host memory; the entries of C are those where some A(i, k) B(k, j) pair is present (a sum
 * that cancels to 0 stays an entry).
 * Stationary C: the owner of each C tile fetches A(i, k) and B(k, j) (three gets each,
 * skipping empty tiles) and sums the products. Stationary A (B): the owner of each A (B) tile
 * fetches the B (A) tiles it meets and sums the products for each C tile; a sum for a C tile
 * that another rank holds is left in the producer's segment and a pointer to it queued on the
 * owner (fetch-add, put), which reads it (one get) and adds it into its tile: sparse tiles
 * are written only by their owner. Work stealing (random or locality-aware): each C tile's k
 * steps are claimed one at a time by a fetch-add on a counter on its owner, own tiles first;
 * a rank's sums for other ranks' tiles go to their owners as under stationary A and B.
 * @param alpha     the product's factor (a whole number for integer types)
 * @param a         A, sparse, m x k
 * @param b         B, sparse, k x n
 * @param params    C's type and layout
 * @param algorithm PGDDS_GEMM_STATIONARY_C, _STATIONARY_A, _STATIONARY_B, _STEAL_RANDOM or
 *                  _STEAL_LOCALITY (not SUMMA)
 * @param c         on success, the new matrix C
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (NULL, shapes, types or tilings that do not conform, an
 *         algorithm it does not offer, params as for pgdds_smatrix_create_coo, A, B and C in
 *         different memory kinds), PGDDS_ERR_UNSUPPORTED (a tile beyond cuSPARSE's 32-bit
 *         indices), PGDDS_ERR_NO_MEMORY,
 *         PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_smatrix_spgemm(double alpha, pgdds_smatrix_t a, pgdds_smatrix_t b,
                                              const pgdds_dmatrix_params_t *params, pgdds_gemm_algorithm_t algorithm,
                                              pgdds_smatrix_t *c);
/** This rank's work-stealing counts of the SpGEMM that made c (pgdds_matrix_steals_t); local.
 * @param c   a sparse matrix
 * @param out on success, the counts
 * @return PGDDS_OK, or PGDDS_ERR_INVALID_ARG (c not a matrix, out NULL), PGDDS_ERR_STATE (c's
 *         context finalized) */
PGDDS_API pgdds_status_t pgdds_smatrix_steals(pgdds_smatrix_t c, pgdds_matrix_steals_t *out);
/** matrix = alpha * matrix over its stored entries (which stay stored, even where they become
 * 0); collective, as pgdds_dmatrix_scale. */
PGDDS_API pgdds_status_t pgdds_smatrix_scale(double alpha, pgdds_smatrix_t matrix);
/** Replaces every stored entry by fn's value for it (entries absent stay absent); collective,
 * as pgdds_dmatrix_apply. */
PGDDS_API pgdds_status_t pgdds_smatrix_apply(pgdds_smatrix_t matrix, pgdds_dmatrix_apply_t fn, void *arg);
/** Reduces the stored entries with op into *out on every rank; collective, as
 * pgdds_dmatrix_reduce. A matrix with no entries gives op's identity (0 for SUM, BOR and BXOR;
 * all ones for BAND; the type's largest value, or +inf, for MIN and its lowest, or -inf, for
 * MAX). */
PGDDS_API pgdds_status_t pgdds_smatrix_reduce(pgdds_smatrix_t matrix, pgdds_op_t op, void *out);
/** A norm of the matrix (absent entries count as 0); collective, as pgdds_dmatrix_norm. */
PGDDS_API pgdds_status_t pgdds_smatrix_norm(pgdds_smatrix_t matrix, pgdds_norm_t norm, double *out);
/** C = A^T, a new sparse matrix; collective. C's layout is A's transposed (tile size and grid of
 * ranks swapped), so C's tile (i, j) is A's tile (j, i) transposed: its owner fetches that one
 * tile (three gets, or in place) and transposes it locally (GraphBLAS).
 * @param a        A
 * @param c        on success, the new matrix C
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (NULL), PGDDS_ERR_NO_MEMORY, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_smatrix_transpose(pgdds_smatrix_t a, pgdds_smatrix_t *c);
/** C = alpha * A + beta * B, a new sparse matrix with A's layout holding the union of A's and
 * B's entries (a sum that is 0 stays stored); collective. B has A's shape, type and tile size
 * (its grid of ranks may differ): each owner of a C tile adds A's and B's tiles there
 * (GraphBLAS eWiseAdd), fetching B's with three gets where it does not reach it in place.
 * @param alpha    A's factor (a whole number for integer types)
 * @param a        A
 * @param beta     B's factor (likewise)
 * @param b        B
 * @param c        on success, the new matrix C
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (NULL, shapes, types or tile sizes that differ, A and B
 *         in different memory kinds, alpha or beta as for pgdds_dmatrix_scale),
 *         PGDDS_ERR_NO_MEMORY, PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_smatrix_add(double alpha, pgdds_smatrix_t a, double beta, pgdds_smatrix_t b,
                                           pgdds_smatrix_t *c);
/** Creates the matrix of a 3D stencil on an nx x ny x nz grid (the HPCG matrix for 27 points);
 * collective. Row and column x + nx (y + ny z) are grid point (x, y, z); each row has the
 * point itself, points - 1 on the diagonal, and -1 for every neighbour inside the grid (7
 * points: the six that differ in one coordinate by one; 27 points: every point within one in
 * each coordinate). Every rank generates an equal share of the rows.
 * @param ctx      the context (pgdds_init)
 * @param params   element type and layout; rows and cols 0 take nx ny nz, else must be it
 * @param nx       grid points along x, at least 1 (ny, nz likewise)
 * @param ny       grid points along y
 * @param nz       grid points along z
 * @param points   7 or 27
 * @param matrix   on success, the new matrix
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (a grid or point count it does not make, params as for
 *         pgdds_smatrix_create_coo), PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_smatrix_stencil(pgdds_context_t ctx, const pgdds_dmatrix_params_t *params, uint64_t nx,
                                               uint64_t ny, uint64_t nz, int points, pgdds_smatrix_t *matrix);
/** Creates the adjacency matrix of an R-MAT graph with the Graph500 parameters (a, b, c, d =
 * 0.57, 0.19, 0.19, 0.05); collective. The graph has 2^scale vertices and edge_factor 2^scale
 * directed edges; edge e is drawn from a random stream of (seed, e) alone, so the matrix does
 * not depend on the number of ranks, which each generate an equal share of the edges. Entry
 * (u, v) counts the edges from u to v (duplicates summed); no vertex permutation or noise.
 * @param ctx      the context (pgdds_init)
 * @param params   element type and layout; rows and cols 0 take 2^scale, else must be it
 * @param scale    1 to 40
 * @param edge_factor edges per vertex, at least 1
 * @param seed     the random stream's seed
 * @param matrix   on success, the new matrix
 * @return as pgdds_smatrix_stencil */
PGDDS_API pgdds_status_t pgdds_smatrix_rmat(pgdds_context_t ctx, const pgdds_dmatrix_params_t *params, int scale,
                                            int edge_factor, uint64_t seed, pgdds_smatrix_t *matrix);
/** Reads a Matrix Market file ("matrix coordinate", field real, integer or pattern, symmetry
 * general or symmetric) into a sparse matrix; collective. Every rank reads the header, then the
 * entries whose lines start in its share of the file's bytes, and the matrix is built as by
 * pgdds_smatrix_create_coo (a symmetric file's off-diagonal entries are mirrored; a pattern
 * file's values are 1).
 * @param ctx      the context (pgdds_init)
 * @param path     the file, the same on every rank
 * @param params   element type and layout; rows and cols 0 take the file's, else must be its
 * @param matrix   on success, the new matrix
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_NOT_FOUND (no such file), PGDDS_ERR_INVALID_ARG (a malformed file,
 *         saying where; a format it does not read; params as for pgdds_smatrix_create_coo),
 *         PGDDS_ERR_OUT_OF_BOUNDS (an entry outside the matrix), PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_smatrix_read_mm(pgdds_context_t ctx, const char *path, const pgdds_dmatrix_params_t *params,
                                               pgdds_smatrix_t *matrix);
/** Writes a sparse matrix as a Matrix Market file ("matrix coordinate real general", or
 * "integer" for integer types); collective. Every rank formats the entries of its tiles and
 * writes them at its own offset of the one file (no rank gathers the matrix).
 * @param matrix   the matrix
 * @param path     the file, the same on every rank (created or truncated)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG (the file cannot be created or written) */
PGDDS_API pgdds_status_t pgdds_smatrix_write_mm(pgdds_smatrix_t matrix, const char *path);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* PGDDS_MATRIX_H */
