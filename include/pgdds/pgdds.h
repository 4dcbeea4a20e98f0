/**
 * @file pgdds.h
 * libpgdds — PGAS distributed data structures over RDMA.
 *
 * The public C ABI (C99, self-contained), version 0.1 (PGDDS_VERSION_*). Every name and meaning
 * declared here is kept by every later 0.x version, which may add names: each later addition is
 * marked with the version that brought it, "Since 0.N:", where it is declared.
 *
 * Conventions
 *  - Functions that can fail return pgdds_status_t: PGDDS_OK (0) or a negative code, and on
 *    failure pgdds_last_error() (thread-local) holds a one-line explanation. Output arguments
 *    are written only on success.
 *  - Handles are opaque pointers, one type per object. A destroyed handle stays recognisable:
 *    passing it again returns PGDDS_ERR_INVALID_ARG rather than touching freed memory (the
 *    library keeps a few bytes per destroyed handle for this).
 *  - Params structs start with uint64_t field_mask so fields can be appended.
 *  - No C++ exception ever crosses this interface.
 */
#ifndef PGDDS_H
#define PGDDS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PGDDS_API __attribute__((visibility("default")))
#else
#define PGDDS_API
#endif

/* The version of this header. pgdds_version_string() gives the library's. */
#define PGDDS_VERSION_MAJOR 0
#define PGDDS_VERSION_MINOR 1
#define PGDDS_VERSION_PATCH 0

/* ------------------------------------------------------------------------------------------ */
/* Status codes                                                                                */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_status Status codes and error messages
 * @{ */
typedef int pgdds_status_t;
#define PGDDS_OK                  0
#define PGDDS_ERR_INVALID_ARG    -1   /* NULL or ill-formed argument, stale or foreign handle, misaligned atomic */
#define PGDDS_ERR_NO_MEMORY      -2   /* segment or host memory exhausted */
#define PGDDS_ERR_OUT_OF_BOUNDS  -3   /* global pointer / length outside the target segment, bad rank */
#define PGDDS_ERR_NOT_FOUND      -4   /* key absent */
#define PGDDS_ERR_FULL           -5   /* fixed-capacity container full */
#define PGDDS_ERR_EMPTY          -6   /* queue empty */
#define PGDDS_ERR_EXISTS         -7   /* key present where that is an error */
#define PGDDS_ERR_UNSUPPORTED    -8   /* not in this build, or not offered by this fabric/device */
#define PGDDS_ERR_TRANSPORT      -9   /* the fabric library reported an error */
#define PGDDS_ERR_BOOTSTRAP     -10   /* launcher / PMI failure */
#define PGDDS_ERR_TIMEOUT       -11
#define PGDDS_ERR_PEER_FAILED   -12   /* a peer rank died or became unreachable */
#define PGDDS_ERR_STATE         -13   /* not valid now: not initialized, finalized, wrong thread level */
#define PGDDS_ERR_AGAIN         -14   /* resources temporarily exhausted; retry */
/* Start-up failed although the transport exists here: the ranks disagree (transport,
 * atomics) or the fabric failed (ucp_init, an unreachable endpoint). PGDDS_ERR_UNSUPPORTED
 * keeps meaning "not available here". */
#define PGDDS_ERR_STARTUP       -15

/** A short static description of a status code ("success", "invalid argument", ...).
 * @param status   a pgdds_status_t (PGDDS_OK or a PGDDS_ERR_* code)
 * @return a static string, never NULL ("unknown status" for a code it does not know) */
PGDDS_API const char *pgdds_strerror(pgdds_status_t status);
/** The calling thread's explanation of its last failure ("" if none).
 * @return a thread-local string owned by the library; a later call of the thread may change it */
PGDDS_API const char *pgdds_last_error(void);

/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Start-up, identity, version                                                                 */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_init Start-up, identity, version
 * @{ */
typedef struct pgdds_context *pgdds_context_t;
/** Thread levels (MPI's meanings). SINGLE and FUNNELED: only the initializing thread calls the
 * library; another thread's call fails with PGDDS_ERR_STATE. SERIALIZED: any thread may call, one
 * at a time: the program orders the calls (a mutex, a join, a flag with release/acquire), and the
 * library takes no locks on its streams, as under SINGLE. MULTIPLE: any threads at once.
 * SERIALIZED lies between FUNNELED and MULTIPLE in what it allows, but its value is 3 (the older
 * values keep theirs): compare levels by name, not by order.
 * Under SERIALIZED each thread still has its own VCI binding (round robin on first call, or
 * pgdds_vci_bind), and pgdds_flush completes the operations issued on the calling thread's VCI:
 * with the default of one VCI every thread shares it, so one thread's flush completes what another
 * issued before it. Calls that overlap in time are a program error the library does not detect,
 * except two collectives at once (PGDDS_ERR_STATE). */
enum { PGDDS_THREAD_SINGLE = 0, PGDDS_THREAD_FUNNELED = 1, PGDDS_THREAD_MULTIPLE = 2,
       PGDDS_THREAD_SERIALIZED = 3 };
enum {
    PGDDS_INIT_FIELD_THREAD_LEVEL = 1u << 0,
    PGDDS_INIT_FIELD_SEGMENT_SIZE = 1u << 1,
    PGDDS_INIT_FIELD_TRANSPORT    = 1u << 2,
    PGDDS_INIT_FIELD_NUM_VCIS     = 1u << 3
};
typedef struct pgdds_init_params {
    uint64_t    field_mask;
    int         thread_level;   /* default PGDDS_THREAD_SINGLE */
    size_t      segment_size;   /* bytes of registered segment per rank; default 256 MiB */
    const char *transport;      /* "auto", "shm", "ofi", "ucx", "verbs" */
    unsigned    num_vcis;       /* network contexts per process; default 1 */
} pgdds_init_params_t;

/** Starts the library and joins the job; collective over all ranks of the job.
 * Fields not set in params come from the environment (PGDDS_THREAD_LEVEL, PGDDS_SEGMENT_SIZE,
 * PGDDS_TRANSPORT, PGDDS_NUM_VCIS, ...; see `pgdds-info`), then from defaults. Without a launcher
 * the program is a job of one rank.
 * @param params   the settings whose bits are set in params->field_mask; NULL: none
 * @param ctx      on success, the new context
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (bad params), PGDDS_ERR_UNSUPPORTED (transport not in this build or not available here),
 *         PGDDS_ERR_BOOTSTRAP (launcher / PMI), PGDDS_ERR_STARTUP (the ranks disagree or the fabric
 *         failed), PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_init(const pgdds_init_params_t *params, pgdds_context_t *ctx);
/** Ends ctx; collective.
 * After a peer failure (PGDDS_ERR_PEER_FAILED) it does not return: it ends the job through the
 * launcher (PMI abort) and the rank exits with status 1 (docs/failure-semantics.md).
 * @param ctx      the context (pgdds_init)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for an invalid context */
PGDDS_API pgdds_status_t pgdds_finalize(pgdds_context_t ctx);
/* Accessors return -1 (pgdds_transport_name: NULL) for an invalid context. */
/** This rank's number, 0 to pgdds_nranks() - 1.
 * @param ctx      the context (pgdds_init)
 * @return the rank; -1 for an invalid context */
PGDDS_API int  pgdds_rank(pgdds_context_t ctx);
/** The number of ranks in the job.
 * @param ctx      the context (pgdds_init)
 * @return the rank count; -1 for an invalid context */
PGDDS_API int  pgdds_nranks(pgdds_context_t ctx);
/** This rank's number among the ranks on this node.
 * @param ctx      the context (pgdds_init)
 * @return 0 to pgdds_local_nranks() - 1; -1 for an invalid context */
PGDDS_API int  pgdds_local_rank(pgdds_context_t ctx);
/** The number of ranks on this node.
 * @param ctx      the context (pgdds_init)
 * @return the count; -1 for an invalid context */
PGDDS_API int  pgdds_local_nranks(pgdds_context_t ctx);
/** The transport the job runs over, such as "shm", "ofi/tcp;ofi_rxm" or "ucx/sm".
 * @param ctx      the context (pgdds_init)
 * @return a string owned by the context; NULL for an invalid context */
PGDDS_API const char *pgdds_transport_name(pgdds_context_t ctx);
/** The library's version, such as "0.1.0" (the header's is PGDDS_VERSION_*).
 * @return a static string */
PGDDS_API const char *pgdds_version_string(void);

/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Global pointers and the segment                                                             */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_gptr Global pointers and the segment
 * @{ */
/* A global pointer packs (rank, segment, offset) into 64 bits so that it fits one 64-bit CAS:
 *   bits 63..42  rank     (22 bits: up to 4,194,304 ranks)
 *   bits 41..40  segment  (2 bits: 0 is the rank's registered host segment, 1 its device segment
 *                          of GPU memory (PGDDS_MEMORY_CUDA); 2..3 reserved)
 *   bits 39..0   offset   (40 bits: segments up to 1 TiB)
 * Offset 0 of a segment is never handed out, so PGDDS_GPTR_NULL never names real memory.
 * pgdds_gptr_add changes the offset only (wrapping within the 40 bits); the result is checked
 * against the target segment when it is used. */
typedef uint64_t pgdds_gptr_t;
#define PGDDS_GPTR_NULL ((pgdds_gptr_t)0)
/* The layout above as constants. */
#define PGDDS_GPTR_OFFSET_BITS 40
#define PGDDS_GPTR_SEGMENT_BITS 2
#define PGDDS_GPTR_RANK_BITS 22

/** Allocates in the caller's own segment; thread-safe.
 * The memory is not zeroed (pgdds_alloc_all with PGDDS_ALLOC_ZERO is).
 * @param ctx      the context (pgdds_init)
 * @param size       bytes to allocate
 * @param alignment  0 means 16; otherwise a power of two up to the page size
 * @param out        on success, the global pointer of the block
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_NO_MEMORY
 *         when the segment cannot hold it, PGDDS_ERR_INVALID_ARG */
PGDDS_API pgdds_status_t pgdds_alloc(pgdds_context_t ctx, size_t size, size_t alignment, pgdds_gptr_t *out);
/** Frees what pgdds_alloc gave; own segment only (symmetric blocks are refused).
 * @param ctx      the context (pgdds_init)
 * @param ptr      a block of pgdds_alloc
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a pointer that is not such a block */
PGDDS_API pgdds_status_t pgdds_free(pgdds_context_t ctx, pgdds_gptr_t ptr);
/** The rank whose segment a global pointer names.
 * @param ptr      a global pointer
 * @return the rank field of ptr */
PGDDS_API int            pgdds_gptr_rank(pgdds_gptr_t ptr);
/** ptr moved by bytes within its segment (the offset wraps within its 40 bits).
 * The result is checked against the target segment only when it is used.
 * @param ptr      a global pointer
 * @param bytes    the signed distance in bytes
 * @return the moved pointer */
PGDDS_API pgdds_gptr_t   pgdds_gptr_add(pgdds_gptr_t ptr, int64_t bytes);
/** The local address of ptr, where this rank can load and store it.
 * @param ctx      the context (pgdds_init)
 * @param ptr      a global pointer
 * @return the address; NULL unless load/store-reachable (own segment, or a peer's mapped on this
 *         node). For a device pointer (PGDDS_MEMORY_CUDA): the device address, for this rank's
 *         device segment and for those of its node's ranks opened by CUDA IPC, else NULL */
PGDDS_API void          *pgdds_gptr_to_local(pgdds_context_t ctx, pgdds_gptr_t ptr);
/** The global pointer of a local address in this rank's segment, in a peer's segment mapped on
 * this node, or in static data (pgdds_map_static_data).
 * @param ctx      the context (pgdds_init)
 * @param addr     an address inside this rank's segment
 * @param out      on success, its global pointer
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for an address outside the segments and the static data */
PGDDS_API pgdds_status_t pgdds_gptr_from_local(pgdds_context_t ctx, const void *addr, pgdds_gptr_t *out);
/** The offset of a global pointer within its segment.
 * @param ptr      a global pointer
 * @return the offset field of ptr */
PGDDS_API uint64_t       pgdds_gptr_offset(pgdds_gptr_t ptr);
/** The segment size of a rank.
 * @param ctx      the context (pgdds_init)
 * @param rank     any rank of the job
 * @param size     on success, its segment's size in bytes
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for a rank outside the job */
PGDDS_API pgdds_status_t pgdds_segment_size(pgdds_context_t ctx, int rank, size_t *size);
/** Makes this process's static and global data remotely accessible; collective.
 * The executable's writable data (.data and .bss: global and static variables, from the end of
 * its read-only-after-relocation part, page-rounded) is copied into a symmetric block of the
 * segment (as pgdds_alloc_all), and the block's pages are then mapped over the data's own, so
 * that both addresses name the same memory. From then on pgdds_gptr_from_local accepts the
 * address of any such variable (its global pointer is the block's offset, the same on every
 * rank), and every operation, atomic and wait on those global pointers reaches the variable on
 * the target rank, on every transport; pgdds_gptr_to_local gives the block's address, which
 * names the same memory. Initial values are kept. Variables of shared libraries are not part
 * of it.
 * Call it before the process starts threads that write static data (writes made during the
 * call may be lost), and before any rank aims at static data. A second call by the same
 * context does nothing. After pgdds_finalize the data has pages of its own again, with its
 * last contents. A child of fork() gets private copies, as without the mapping.
 * Works for PIE and non-PIE executables; every rank must run the same executable.
 * @param ctx      the context (pgdds_init)
 * @param flags    0 (no flag is defined yet)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank: PGDDS_ERR_INVALID_ARG for flags other than 0 or when the ranks run different
 *         executables, PGDDS_ERR_STATE when another live context of the process holds the
 *         mapping, PGDDS_ERR_NO_MEMORY when the segment cannot hold the data,
 *         PGDDS_ERR_UNSUPPORTED when the data cannot be mapped (an executable without writable
 *         data, a segment the system cannot map twice) */
PGDDS_API pgdds_status_t pgdds_map_static_data(pgdds_context_t ctx, unsigned flags);

/** @name GPU memory
 * Memory kinds. A rank's device segment (PGDDS_GPU_SEGMENT_SIZE bytes on its CUDA device, the
 * local rank modulo the visible devices unless PGDDS_GPU_DEVICE says) holds the allocations of
 * kind PGDDS_MEMORY_CUDA; their global pointers carry segment 1. Every put and get (blocking,
 * nbi, nb) takes device memory on either side: a device global pointer as its target, a
 * device buffer (cudaMalloc, or pgdds_gptr_to_local of a device pointer) as its local side
 * (recognized in a context with a device segment, by cudaPointerGetAttributes), or both. Such an operation is complete when its call returns. The 32- and 64-bit atomics take
 * device global pointers too: the owner's CPU runs them one at a time, so they are atomic with
 * respect to each other, not to kernels or puts on the same word (docs/gpu.md). Signals, waits
 * and containers use host memory only.
 * @{ */
typedef enum pgdds_memory_kind {
    PGDDS_MEMORY_HOST = 0,  /* the registered host segment (pgdds_alloc) */
    PGDDS_MEMORY_CUDA = 1   /* the device segment (needs PGDDS_GPU_SEGMENT_SIZE > 0) */
} pgdds_memory_kind_t;
/** Allocates in the caller's own segment of the given kind; thread-safe. Freed by pgdds_free.
 * @param ctx        the context (pgdds_init)
 * @param kind       PGDDS_MEMORY_HOST (as pgdds_alloc) or PGDDS_MEMORY_CUDA
 * @param size       bytes to allocate
 * @param alignment  0 means 16; otherwise a power of two up to 64 KiB
 * @param out        on success, the global pointer of the block
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_UNSUPPORTED for PGDDS_MEMORY_CUDA without a device segment (a build without
 *         CUDA, or PGDDS_GPU_SEGMENT_SIZE unset), PGDDS_ERR_NO_MEMORY when the segment cannot
 *         hold it, PGDDS_ERR_INVALID_ARG for an unknown kind */
PGDDS_API pgdds_status_t pgdds_alloc_kind(pgdds_context_t ctx, pgdds_memory_kind_t kind, size_t size,
                                          size_t alignment, pgdds_gptr_t *out);
/** The memory kind a global pointer names (its segment field).
 * @param ptr      a global pointer
 * @return PGDDS_MEMORY_HOST or PGDDS_MEMORY_CUDA; -1 for a reserved segment */
PGDDS_API int            pgdds_gptr_kind(pgdds_gptr_t ptr);
/** The CUDA device of this rank's device segment.
 * @param ctx      the context (pgdds_init)
 * @param device   on success, the device number, or -1 when the rank has no device segment
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_gpu_device(pgdds_context_t ctx, int *device);
/** Whether this library was built with CUDA and how many CUDA devices this process sees now.
 * @param devices  on success, the number of visible devices (0 with pgdds_last_error() saying
 *                 why: no driver, no device)
 * @return PGDDS_OK, or PGDDS_ERR_UNSUPPORTED for a build without CUDA, PGDDS_ERR_INVALID_ARG */
PGDDS_API pgdds_status_t pgdds_gpu_probe(int *devices);
/** @} */

/** @name Symmetric allocation
 * Symmetric allocation (OpenSHMEM's shmem_malloc, UPC++'s dist_object). Collective:
 * every rank calls pgdds_alloc_all with the same size, alignment and flags, in the same order
 * as its other collective calls, and each gets a block at the same offset of its own segment;
 * *out names the caller's copy, and pgdds_gptr_at gives any rank's. The blocks come from the
 * top of the segment (below the smallest segment size of the job), which pgdds_alloc leaves
 * until its own space runs out. alignment as for pgdds_alloc; flags 0 or PGDDS_ALLOC_ZERO
 * (every copy zeroed before any rank returns). Ranks that disagree (sizes, alignments, flags),
 * or an allocation that fails on any rank, fail pgdds_alloc_all on every rank, which then
 * holds nothing: PGDDS_ERR_INVALID_ARG for a disagreement, else the failing rank's status
 * (PGDDS_ERR_NO_MEMORY, ...). pgdds_alloc memory is not zeroed; this is the way to get zeroed
 * memory.
 * pgdds_free_all: collective, every rank passes the same block (any rank's copy of it, as
 * pgdds_alloc_all or pgdds_gptr_at gave it). It first completes every rank's operations (as
 * pgdds_barrier), so no copy is freed while a put to it is in flight. A pointer that does not
 * start a symmetric block on some rank, or different blocks on different ranks, fail it on every
 * rank with PGDDS_ERR_INVALID_ARG and free nothing. pgdds_free refuses symmetric blocks.
 * pgdds_gptr_at: ptr (into a live symmetric block, at any offset inside it) moved to rank's
 * copy; PGDDS_ERR_OUT_OF_BOUNDS for a rank outside the job, PGDDS_ERR_INVALID_ARG for a
 * pointer that is not into a symmetric block. */
/** @{ */
enum { PGDDS_ALLOC_ZERO = 1u << 0 };
/** Allocates size bytes at the same offset of every rank's segment; collective.
 * Every rank passes the same size, alignment and flags (see Symmetric allocation above).
 * @param ctx      the context (pgdds_init)
 * @param size       bytes of each rank's copy
 * @param alignment  as for pgdds_alloc
 * @param flags      0 or PGDDS_ALLOC_ZERO (every copy zeroed before any rank returns)
 * @param out        on success, the caller's copy (pgdds_gptr_at gives any rank's)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why), the same on every
 *         rank, which then holds nothing: PGDDS_ERR_INVALID_ARG when the ranks disagree, else the
 *         failing rank's (PGDDS_ERR_NO_MEMORY, ...) */
PGDDS_API pgdds_status_t pgdds_alloc_all(pgdds_context_t ctx, size_t size, size_t alignment, unsigned flags,
                                         pgdds_gptr_t *out);
/** Frees a block of pgdds_alloc_all on every rank; collective.
 * It first completes every rank's operations (as pgdds_barrier).
 * @param ctx      the context (pgdds_init)
 * @param ptr      any rank's copy of the block, the same block on every rank
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         on every rank, freeing nothing, when ptr does not start a symmetric block on some rank or
 *         the ranks pass different blocks */
PGDDS_API pgdds_status_t pgdds_free_all(pgdds_context_t ctx, pgdds_gptr_t ptr);
/** ptr, into a symmetric block, moved to rank's copy of the block.
 * @param ctx      the context (pgdds_init)
 * @param ptr      a pointer into a live symmetric block, at any offset inside it
 * @param rank     the rank whose copy is wanted
 * @param out      on success, the pointer into rank's copy
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for a rank outside the job, PGDDS_ERR_INVALID_ARG for a pointer
 *         that is not into a symmetric block */
PGDDS_API pgdds_status_t pgdds_gptr_at(pgdds_context_t ctx, pgdds_gptr_t ptr, int rank, pgdds_gptr_t *out);
/** @} */
/** @} */

/* ------------------------------------------------------------------------------------------ */
/* One-sided communication                                                                     */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_rma One-sided communication
 * @{ */
/** @name Memory model
 * pgdds_put returns once src may be reused; the data is visible at the target
 * after pgdds_flush or pgdds_barrier. pgdds_get returns with the data in dst. _nbi operations
 * complete at the calling thread's next pgdds_flush. A put request completes when src may be
 * reused; a get request when dst holds the data. pgdds_flush completes, locally and at the
 * targets, every operation the calling thread issued. */
/** @{ */
/** Copies n bytes from src to dst; returns once src may be reused.
 * The data is visible at the target after pgdds_flush or pgdds_barrier.
 * @param ctx      the context (pgdds_init)
 * @param dst      the target's global pointer
 * @param src      the local source
 * @param n        bytes to copy
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS (range outside the target segment, bad rank),
 *         PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_put(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n);
/** Copies n bytes from src to dst; returns with the data in dst.
 * @param ctx      the context (pgdds_init)
 * @param dst      the local destination
 * @param src      the source's global pointer
 * @param n        bytes to copy
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS (range outside the target segment, bad rank),
 *         PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_get(pgdds_context_t ctx, void *dst, pgdds_gptr_t src, size_t n);
/** pgdds_put without waiting: complete at the calling thread's next pgdds_flush.
 * src must not change until then.
 * @param ctx      the context (pgdds_init)
 * @param dst      the target's global pointer
 * @param src      the local source
 * @param n        bytes to copy
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS (range outside the target segment, bad rank),
 *         PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED; a failure after issue is reported by the
 *         flush */
PGDDS_API pgdds_status_t pgdds_put_nbi(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n);
/** pgdds_get without waiting: dst holds the data after the calling thread's next pgdds_flush.
 * @param ctx      the context (pgdds_init)
 * @param dst      the local destination
 * @param src      the source's global pointer
 * @param n        bytes to copy
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS (range outside the target segment, bad rank),
 *         PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED; a failure after issue is reported by the
 *         flush */
PGDDS_API pgdds_status_t pgdds_get_nbi(pgdds_context_t ctx, void *dst, pgdds_gptr_t src, size_t n);
/** Completes, locally and at the targets, every operation the calling thread issued.
 * @param ctx      the context (pgdds_init)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): the first failure of
 *         the completed operations (PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED, ...) */
PGDDS_API pgdds_status_t pgdds_flush(pgdds_context_t ctx);
/** @} */
/** Ordering without completion (OpenSHMEM's shmem_fence).
 * Every put and atomic the calling thread issued before pgdds_fence is applied at its target before
 * any put or atomic the thread issues after it to the same target: a flag raised by an atomic after
 * a fence is seen only with the data put before it. It does not complete them (pgdds_flush does,
 * and
 * reports their failures). Where the transport applies operations to a peer in order (one node; ofi
 * providers that promise FI_ORDER_RAW and FI_ORDER_WAW, as shm does; UCX, by ucp_worker_fence) it
 * waits for nothing; elsewhere it is a pgdds_flush.
 * @param ctx      the context (pgdds_init)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_fence(pgdds_context_t ctx);

typedef struct pgdds_request *pgdds_request_t;
/** pgdds_put returning a request, complete when src may be reused (pgdds_test, pgdds_wait).
 * @param ctx      the context (pgdds_init)
 * @param dst      the target's global pointer
 * @param src      the local source
 * @param n        bytes to copy
 * @param req      on success, the request, freed by the pgdds_test or pgdds_wait that completes it
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS (range outside the target segment, bad rank),
 *         PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_put_nb(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n, pgdds_request_t *req);
/** pgdds_get returning a request, complete when dst holds the data (pgdds_test, pgdds_wait).
 * @param ctx      the context (pgdds_init)
 * @param dst      the local destination
 * @param src      the source's global pointer
 * @param n        bytes to copy
 * @param req      on success, the request, freed by the pgdds_test or pgdds_wait that completes it
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS (range outside the target segment, bad rank),
 *         PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_get_nb(pgdds_context_t ctx, void *dst, pgdds_gptr_t src, size_t n, pgdds_request_t *req);
/** Tells whether req completed, and frees it once done.
 * @param ctx      the context (pgdds_init)
 * @param req      a request of pgdds_put_nb, pgdds_get_nb, an atomic's or a container operation's _nb form
 * @param done     set to 1 if req completed (req is then freed), else 0
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a freed or foreign request; the operation's failure */
PGDDS_API pgdds_status_t pgdds_test(pgdds_context_t ctx, pgdds_request_t req, int *done);
/** Waits for req to complete, and frees it. A wait that ends before the operation completed
 * (PGDDS_ERR_TIMEOUT after PGDDS_TIMEOUT, PGDDS_ERR_PEER_FAILED for a peer gone, a progress
 * failure) leaves req live: pgdds_test or pgdds_wait may be called on it again, and pgdds_test
 * tells the two cases apart (done 0: still live; 1: completed, freed, its status returned).
 * @param ctx      the context (pgdds_init)
 * @param req      a request of pgdds_put_nb, pgdds_get_nb, an atomic's or a container operation's _nb form
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a freed or foreign request; the operation's failure */
PGDDS_API pgdds_status_t pgdds_wait(pgdds_context_t ctx, pgdds_request_t req);

/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Atomics                                                                                     */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_atomics Atomics
 * @{ */
/** @name Atomicity
 * Atomics on one word are atomic with respect to each other whoever issues them. The runtime
 * picks one atomicity domain per job (PGDDS_ATOMICS): CPU atomics when every rank's segment is
 * load/store-reachable (one node, shared memory on), otherwise the transport's, local targets
 * included, unless the transport's atomics are executed by the target's CPU (libfabric
 * tcp;ofi_rxm, UCX tcp): then ranks of one node keep CPU atomics on each other's segments.
 * A fetching atomic returns complete; it does not order earlier puts. Targets must be
 * naturally aligned, else PGDDS_ERR_INVALID_ARG.
 * PGDDS_AOP_MIN and PGDDS_AOP_MAX (unsigned for _u32/_u64, signed for _i32/_i64). */
/** @{ */
typedef enum { PGDDS_AOP_ADD, PGDDS_AOP_AND, PGDDS_AOP_OR, PGDDS_AOP_XOR, PGDDS_AOP_SWAP,
               PGDDS_AOP_MIN, PGDDS_AOP_MAX } pgdds_aop_t;
/** Applies op with operand to the 64-bit word at target; fetched (unless NULL) gets its old value.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       the operation (pgdds_aop_t)
 * @param operand  the operand
 * @param fetched  unless NULL, gets the word's old value
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_u64(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                          uint64_t operand, uint64_t *fetched /* NULL: no fetch */);
/** Compare-and-swap of the 64-bit word at target: desired replaces it if it equals expected; old
 * gets its old value.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param expected the value the word must hold
 * @param desired  the value that replaces it then
 * @param old      gets the word's old value (equal to expected when the swap happened)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_cswap_u64(pgdds_context_t ctx, pgdds_gptr_t target,
                                                uint64_t expected, uint64_t desired, uint64_t *old);
/** pgdds_atomic_u64 on a 32-bit word.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       the operation (pgdds_aop_t)
 * @param operand  the operand
 * @param fetched  unless NULL, gets the word's old value
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_u32(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                          uint32_t operand, uint32_t *fetched);
/** pgdds_atomic_cswap_u64 on a 32-bit word.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param expected the value the word must hold
 * @param desired  the value that replaces it then
 * @param old      gets the word's old value (equal to expected when the swap happened)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_cswap_u32(pgdds_context_t ctx, pgdds_gptr_t target,
                                                uint32_t expected, uint32_t desired, uint32_t *old);
/** @} */
/** Non-blocking, non-fetching atomic on a 64-bit word (OpenSHMEM's shmem_atomic_*_nbi without a
 * fetch).
 * They return once issued; the update is applied at the target by the calling thread's next
 * pgdds_flush (or pgdds_barrier), which also reports a failure of it. Until then it is not ordered
 * with the thread's later operations. op is ADD, AND, OR, XOR or SWAP (an atomic set). Several in
 * flight to different words overlap, where the blocking forms cost a round trip each.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       ADD, AND, OR, XOR or SWAP
 * @param operand  the operand
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED; a failure after issue is reported by the flush */
PGDDS_API pgdds_status_t pgdds_atomic_u64_nbi(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                              uint64_t operand);
/** pgdds_atomic_u64_nbi on a 32-bit word.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       ADD, AND, OR, XOR or SWAP
 * @param operand  the operand
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED; a failure after issue is reported by the flush */
PGDDS_API pgdds_status_t pgdds_atomic_u32_nbi(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                              uint32_t operand);
/** pgdds_atomic_u64 without waiting: a request that completes when the atomic has been applied
 * and *fetched holds the old value (pgdds_test, pgdds_wait, which also report its failure). fetched
 * (NULL: no fetch) must stay valid until then. op is ADD, AND, OR, XOR or SWAP, the operations the
 * transports perform themselves, so several in flight overlap; MIN and MAX run as a loop of
 * compare-and-swap whose steps wait for each other and have no non-blocking form
 * (PGDDS_ERR_UNSUPPORTED: use pgdds_atomic_u64). Where the job's atomics are the CPU's (the word
 * load/store-reachable), or the word is in GPU memory, the atomic is done when the call returns and
 * the request is complete at once. Atomic with every other atomic on the word, as pgdds_atomic_u64.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       ADD, AND, OR, XOR or SWAP
 * @param operand  the operand
 * @param fetched  gets the old value once the request completes; NULL: no fetch
 * @param req      on success, the request (pgdds_test, pgdds_wait free it)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, NULL req, op not an operation), PGDDS_ERR_UNSUPPORTED (MIN, MAX),
 *         PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_u64_nb(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                             uint64_t operand, uint64_t *fetched, pgdds_request_t *req);
/** pgdds_atomic_cswap_u64 without waiting: *old holds the word's old value once req completes
 * (as pgdds_atomic_u64_nb; old must stay valid until then).
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param expected the value the word must hold to be swapped
 * @param desired  the value it then gets
 * @param old      gets the old value once the request completes
 * @param req      on success, the request
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, NULL old or req), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_cswap_u64_nb(pgdds_context_t ctx, pgdds_gptr_t target, uint64_t expected,
                                                   uint64_t desired, uint64_t *old, pgdds_request_t *req);
/** pgdds_atomic_u64_nb on a 32-bit word.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       ADD, AND, OR, XOR or SWAP
 * @param operand  the operand
 * @param fetched  gets the old value once the request completes; NULL: no fetch
 * @param req      on success, the request
 * @return as pgdds_atomic_u64_nb */
PGDDS_API pgdds_status_t pgdds_atomic_u32_nb(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                             uint32_t operand, uint32_t *fetched, pgdds_request_t *req);
/** pgdds_atomic_cswap_u64_nb on a 32-bit word.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param expected the value the word must hold to be swapped
 * @param desired  the value it then gets
 * @param old      gets the old value once the request completes
 * @param req      on success, the request
 * @return as pgdds_atomic_cswap_u64_nb */
PGDDS_API pgdds_status_t pgdds_atomic_cswap_u32_nb(pgdds_context_t ctx, pgdds_gptr_t target, uint32_t expected,
                                                   uint32_t desired, uint32_t *old, pgdds_request_t *req);
/** @name Signed and floating-point atomics
 * Signed and floating-point atomics. Signed words take every pgdds_aop_t, MIN and MAX
 * comparing signed; float and double take ADD, MIN, MAX and SWAP (MIN/MAX: the operand replaces
 * the word when it is smaller/larger; a NaN operand never does), and compare-and-swap compares
 * the bits (so 0.0 and -0.0 differ, and a NaN can be matched). Operations on the same bits as the
 * unsigned forms (ADD, AND, OR, XOR and SWAP of integers; SWAP and compare-and-swap of floats)
 * are those forms, native where the transport's are. MIN, MAX and floating-point ADD, which no
 * transport op pgdds uses covers, run as a compare-and-swap loop over the job's own 32/64-bit
 * compare-and-swap (so they are atomic with every other atomic on the word, in either atomicity
 * domain); such a loop costs a read and one compare-and-swap per attempt, and returns complete
 * (the _nbi forms too, for MIN and MAX). A word must be accessed as one type throughout. */
/** @{ */
/** pgdds_atomic_u64 on a signed 64-bit word (MIN and MAX compare signed).
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       the operation (pgdds_aop_t)
 * @param operand  the operand
 * @param fetched  unless NULL, gets the word's old value
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_i64(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                          int64_t operand, int64_t *fetched);
/** pgdds_atomic_u32 on a signed 32-bit word (MIN and MAX compare signed).
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       the operation (pgdds_aop_t)
 * @param operand  the operand
 * @param fetched  unless NULL, gets the word's old value
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_i32(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                          int32_t operand, int32_t *fetched);
/** Compare-and-swap of a signed 64-bit word.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param expected the value the word must hold
 * @param desired  the value that replaces it then
 * @param old      gets the word's old value (equal to expected when the swap happened)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_cswap_i64(pgdds_context_t ctx, pgdds_gptr_t target,
                                                int64_t expected, int64_t desired, int64_t *old);
/** Compare-and-swap of a signed 32-bit word.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param expected the value the word must hold
 * @param desired  the value that replaces it then
 * @param old      gets the word's old value (equal to expected when the swap happened)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_cswap_i32(pgdds_context_t ctx, pgdds_gptr_t target,
                                                int32_t expected, int32_t desired, int32_t *old);
/** ADD, MIN, MAX or SWAP on a double; fetched (unless NULL) gets its old value.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       the operation (pgdds_aop_t)
 * @param operand  the operand
 * @param fetched  unless NULL, gets the word's old value
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_double(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                             double operand, double *fetched);
/** ADD, MIN, MAX or SWAP on a float; fetched (unless NULL) gets its old value.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param op       the operation (pgdds_aop_t)
 * @param operand  the operand
 * @param fetched  unless NULL, gets the word's old value
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_float(pgdds_context_t ctx, pgdds_gptr_t target, pgdds_aop_t op,
                                            float operand, float *fetched);
/** Compare-and-swap of a double, comparing its bits.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param expected the value the word must hold
 * @param desired  the value that replaces it then
 * @param old      gets the word's old value (equal to expected when the swap happened)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_cswap_double(pgdds_context_t ctx, pgdds_gptr_t target,
                                                   double expected, double desired, double *old);
/** Compare-and-swap of a float, comparing its bits.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param expected the value the word must hold
 * @param desired  the value that replaces it then
 * @param old      gets the word's old value (equal to expected when the swap happened)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_cswap_float(pgdds_context_t ctx, pgdds_gptr_t target,
                                                  float expected, float desired, float *old);
/** @} */
/** Atomic load of a 64-bit word (a fetching no-op in the job's atomicity domain).
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param value    gets the word
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_load_u64(pgdds_context_t ctx, pgdds_gptr_t target, uint64_t *value);
/** pgdds_atomic_load_u64 of a 32-bit word.
 * @param ctx      the context (pgdds_init)
 * @param target   the word's global pointer, naturally aligned
 * @param value    gets the word
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_atomic_load_u32(pgdds_context_t ctx, pgdds_gptr_t target, uint32_t *value);

/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Point-to-point synchronization (OpenSHMEM 1.5's put-with-signal and wait_until)            */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_signals Point-to-point synchronization
 * @{ */
/** @name Signals and waiting
 * pgdds_put_signal writes n bytes from src to dst, then updates the 64-bit signal word sig on
 * the same rank: PGDDS_SIGNAL_SET stores signal, PGDDS_SIGNAL_ADD adds it (atomically, in the
 * job's atomicity domain, like pgdds_atomic_u64). A rank that sees the signal's new value sees
 * the data: the update is ordered after the data at the target. sig must be 8-byte aligned, on
 * dst's rank, and outside [dst, dst + n) (else PGDDS_ERR_INVALID_ARG).
 * The blocking form returns once the data and the signal are visible at the target (it
 * completes the calling thread's earlier operations too, as pgdds_flush); the _nbi form returns
 * once issued, src may be reused at once, and both complete at the thread's next pgdds_flush.
 * pgdds_signal_fetch reads a signal word atomically (any rank's; usually the caller's own).
 *
 * pgdds_wait_until_* waits until the word at ivar, in the caller's own segment, compares with
 * value as cmp says (*ivar cmp value, unsigned); pgdds_test_until_* checks once, after one round
 * of progress, and sets *satisfied to 1 or 0. Waiting progresses the caller's network context,
 * so puts, signals and atomics of other ranks complete on transports that need the target's
 * help; it fails with PGDDS_ERR_TIMEOUT after PGDDS_TIMEOUT seconds (when set). ivar must be
 * naturally aligned; a word on another rank is PGDDS_ERR_INVALID_ARG (wait on your own word, and
 * let the peer signal it). The word should change only through atomics or put_signal: a plain
 * pgdds_put to it becomes visible at a flush, with no order against the data before it. */
/** @{ */
typedef enum { PGDDS_SIGNAL_SET, PGDDS_SIGNAL_ADD } pgdds_signal_op_t;
typedef enum { PGDDS_CMP_EQ, PGDDS_CMP_NE, PGDDS_CMP_GT, PGDDS_CMP_GE, PGDDS_CMP_LT, PGDDS_CMP_LE } pgdds_cmp_t;
/** Puts n bytes to dst, then sets or adds signal to the word sig; returns once both are visible.
 * It completes the calling thread's earlier operations too, as pgdds_flush.
 * @param ctx      the context (pgdds_init)
 * @param dst      the target's global pointer
 * @param src      the local source
 * @param n        bytes to put
 * @param sig      the 8-byte aligned signal word, on dst's rank, outside [dst, dst + n)
 * @param signal   the value to store or add
 * @param sig_op   PGDDS_SIGNAL_SET or PGDDS_SIGNAL_ADD
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (sig misplaced or misaligned), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_put_signal(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n,
                                          pgdds_gptr_t sig, uint64_t signal, pgdds_signal_op_t sig_op);
/** pgdds_put_signal without waiting: complete at the calling thread's next pgdds_flush.
 * src may be reused at once.
 * @param ctx      the context (pgdds_init)
 * @param dst      the target's global pointer
 * @param src      the local source
 * @param n        bytes to put
 * @param sig      the 8-byte aligned signal word, on dst's rank, outside [dst, dst + n)
 * @param signal   the value to store or add
 * @param sig_op   PGDDS_SIGNAL_SET or PGDDS_SIGNAL_ADD
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (sig misplaced or misaligned), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_put_signal_nbi(pgdds_context_t ctx, pgdds_gptr_t dst, const void *src, size_t n,
                                              pgdds_gptr_t sig, uint64_t signal, pgdds_signal_op_t sig_op);
/** Reads the signal word sig atomically (any rank's; usually the caller's own).
 * @param ctx      the context (pgdds_init)
 * @param sig      the 8-byte aligned signal word
 * @param value    gets its value
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (misaligned target, op not allowed), PGDDS_ERR_OUT_OF_BOUNDS, PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_signal_fetch(pgdds_context_t ctx, pgdds_gptr_t sig, uint64_t *value);
/** Waits until the 64-bit word ivar (own segment) compares with value as cmp says.
 * Waiting progresses the caller's network context.
 * @param ctx      the context (pgdds_init)
 * @param ivar     the word, naturally aligned, in the caller's own segment
 * @param cmp      the comparison, *ivar cmp value (unsigned)
 * @param value    the value compared with
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_TIMEOUT
 *         after PGDDS_TIMEOUT seconds (when set), PGDDS_ERR_INVALID_ARG (a word on another rank or
 *         misaligned), PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_wait_until_u64(pgdds_context_t ctx, pgdds_gptr_t ivar, pgdds_cmp_t cmp, uint64_t value);
/** pgdds_wait_until_u64 on a 32-bit word.
 * @param ctx      the context (pgdds_init)
 * @param ivar     the word, naturally aligned, in the caller's own segment
 * @param cmp      the comparison, *ivar cmp value (unsigned)
 * @param value    the value compared with
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_TIMEOUT
 *         after PGDDS_TIMEOUT seconds (when set), PGDDS_ERR_INVALID_ARG (a word on another rank or
 *         misaligned), PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_wait_until_u32(pgdds_context_t ctx, pgdds_gptr_t ivar, pgdds_cmp_t cmp, uint32_t value);
/** Checks once, after a round of progress, whether ivar compares with value as cmp says.
 * @param ctx      the context (pgdds_init)
 * @param ivar     the word, naturally aligned, in the caller's own segment
 * @param cmp      the comparison, *ivar cmp value (unsigned)
 * @param value    the value compared with
 * @param satisfied set to 1 if it does, else 0
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (a word on another rank or misaligned), PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_test_until_u64(pgdds_context_t ctx, pgdds_gptr_t ivar, pgdds_cmp_t cmp, uint64_t value,
                                              int *satisfied);
/** pgdds_test_until_u64 on a 32-bit word.
 * @param ctx      the context (pgdds_init)
 * @param ivar     the word, naturally aligned, in the caller's own segment
 * @param cmp      the comparison, *ivar cmp value (unsigned)
 * @param value    the value compared with
 * @param satisfied set to 1 if it does, else 0
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (a word on another rank or misaligned), PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_test_until_u32(pgdds_context_t ctx, pgdds_gptr_t ivar, pgdds_cmp_t cmp, uint32_t value,
                                              int *satisfied);
/** @} */
/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Collectives (all ranks, one thread per rank at a time)                                      */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_collectives Collectives (all ranks, one thread per rank at a time)
 * @{ */
/** @name Matching
 * Every rank calls the same collectives in the same order with the same kind, root, operation,
 * type and size. Calls that differ fail on every rank with PGDDS_ERR_INVALID_ARG and a message
 * saying what differed, outputs untouched. Two threads of a rank in collectives at once: the
 * second gets PGDDS_ERR_STATE, and every later collective of the context fails with it on every
 * rank (docs/failure-semantics.md). */
/** @{ */
typedef enum { PGDDS_INT32, PGDDS_INT64, PGDDS_UINT32, PGDDS_UINT64, PGDDS_FLOAT, PGDDS_DOUBLE } pgdds_dtype_t;
typedef enum { PGDDS_OP_SUM, PGDDS_OP_MIN, PGDDS_OP_MAX, PGDDS_OP_BAND, PGDDS_OP_BOR, PGDDS_OP_BXOR } pgdds_op_t;
/** Waits for every rank; collective.
 * Also a flush of every network context of every rank: prior RMA/AMO complete and visible.
 * Other threads of the rank must not issue operations while it runs.
 * @param ctx      the context (pgdds_init)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         on every rank when the ranks' calls differ, PGDDS_ERR_STATE when another thread of the
 *         rank is in a collective, PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_barrier(pgdds_context_t ctx);
/** Copies n bytes of buf from rank root into buf on every rank; collective.
 * @param ctx      the context (pgdds_init)
 * @param buf      the root's data; on the other ranks, where it is written
 * @param n        bytes, the same on every rank
 * @param root     the rank whose buf is sent
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         on every rank when the ranks' calls differ, PGDDS_ERR_STATE when another thread of the
 *         rank is in a collective, PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_broadcast(pgdds_context_t ctx, void *buf, size_t n, int root);
/** Reduces count elements of in over all ranks with op into out on every rank; collective.
 * Bitwise ops (BAND, BOR, BXOR) accept integer types only. in == out is allowed.
 * @param ctx      the context (pgdds_init)
 * @param in       count elements of dtype
 * @param out      gets the count reduced elements
 * @param count    the number of elements
 * @param dtype    their type
 * @param op       the reduction
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         on every rank when the ranks' calls differ, PGDDS_ERR_STATE when another thread of the
 *         rank is in a collective, PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_allreduce(pgdds_context_t ctx, const void *in, void *out, size_t count,
                                         pgdds_dtype_t dtype, pgdds_op_t op);
/** Gathers bytes_per_rank bytes of in from every rank into out on every rank; collective.
 * Rank r's bytes land at out + r * bytes_per_rank.
 * @param ctx      the context (pgdds_init)
 * @param in       this rank's bytes_per_rank bytes
 * @param out      nranks * bytes_per_rank bytes
 * @param bytes_per_rank the size of each rank's contribution, the same on every rank
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         on every rank when the ranks' calls differ, PGDDS_ERR_STATE when another thread of the
 *         rank is in a collective, PGDDS_ERR_TRANSPORT, PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_allgather(pgdds_context_t ctx, const void *in, void *out, size_t bytes_per_rank);

/** @} */
/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Teams (OpenSHMEM 1.5 teams)                                                                 */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_teams Teams and the collectives on them
 * A team is an ordered subset of the job's ranks; team rank i is its i-th member. Every rank has
 * the world team (all ranks, team rank = rank) and the node team (the ranks that share this
 * node's memory, in rank order); both belong to the context and are never destroyed. Splits are
 * collective over the parent team and give new teams: every rank of the parent calls with the
 * same arguments (checked: ranks that differ all get PGDDS_ERR_INVALID_ARG), and a rank outside
 * a new team gets PGDDS_TEAM_NULL for it. Teams made by a split are independent of each other:
 * collectives on teams that share no rank may run at the same time, and a collective on one
 * team never pairs with a call on another. A rank calls collectives of its teams one at a time,
 * in the same order on every member. Team handles belong to their context; NULL, destroyed
 * handles and another context's teams are refused (PGDDS_ERR_INVALID_ARG); a team of a
 * finalized context gets PGDDS_ERR_STATE.
 * @{ */
/** A team handle; opaque. */
typedef struct pgdds_team *pgdds_team_t;
/** What a split gives a rank that is not a member of the new team. */
#define PGDDS_TEAM_NULL ((pgdds_team_t)0)

/** The world team: every rank of the job, team rank = rank.
 * @param ctx   the context
 * @param team  receives the team, owned by the context (not to be destroyed)
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad context or a NULL team. */
PGDDS_API pgdds_status_t pgdds_team_world(pgdds_context_t ctx, pgdds_team_t *team);
/** The node team: the ranks that share this rank's node memory, in rank order.
 * @param ctx   the context
 * @param team  receives the team, owned by the context (not to be destroyed)
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad context or a NULL team. */
PGDDS_API pgdds_status_t pgdds_team_node(pgdds_context_t ctx, pgdds_team_t *team);
/** This rank's rank in a team.
 * @param team  a team this rank belongs to
 * @param rank  receives the team rank, 0..size-1
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad team or a NULL rank. */
PGDDS_API pgdds_status_t pgdds_team_rank(pgdds_team_t team, int *rank);
/** The number of ranks in a team.
 * @param team  a team this rank belongs to
 * @param size  receives the number of members
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad team or a NULL size. */
PGDDS_API pgdds_status_t pgdds_team_size(pgdds_team_t team, int *size);
/** The team rank in dst_team of team rank src_rank of src_team.
 * @param src_team  the team src_rank is a rank of
 * @param src_rank  a team rank of src_team
 * @param dst_team  a team of the same context
 * @param dst_rank  receives its team rank in dst_team, or -1 where it is no member
 * @return PGDDS_OK; PGDDS_ERR_OUT_OF_BOUNDS when src_rank is not in 0..size-1;
 *         PGDDS_ERR_INVALID_ARG for a bad team, teams of different contexts or a NULL dst_rank. */
PGDDS_API pgdds_status_t pgdds_team_translate_rank(pgdds_team_t src_team, int src_rank, pgdds_team_t dst_team,
                                                   int *dst_rank);
/** Makes a team of the parent ranks start, start + stride, ... (size of them); collective over
 * parent.
 * @param parent    the team to split
 * @param start     the parent rank of the new team's rank 0
 * @param stride    the step between members, at least 1 unless size is 1
 * @param size      the number of members, at least 1
 * @param new_team  receives the new team, or PGDDS_TEAM_NULL on a rank outside it
 * @return PGDDS_OK; PGDDS_ERR_OUT_OF_BOUNDS on every rank when a member would not be a parent
 *         rank; PGDDS_ERR_INVALID_ARG on every rank when the ranks passed different arguments. */
PGDDS_API pgdds_status_t pgdds_team_split_strided(pgdds_team_t parent, int start, int stride, int size,
                                                  pgdds_team_t *new_team);
/** Lays the parent's ranks out as a grid of rows of xrange ranks (the last row may be short;
 * xrange above the parent's size means one row) and gives this rank its row and its column;
 * collective over parent.
 * @param parent      the team to split
 * @param xrange      the length of a row, at least 1
 * @param xaxis_team  receives this rank's row (team rank = column)
 * @param yaxis_team  receives this rank's column (team rank = row)
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG on every rank for an xrange below 1 or arguments
 *         that differ between ranks. */
PGDDS_API pgdds_status_t pgdds_team_split_2d(pgdds_team_t parent, int xrange, pgdds_team_t *xaxis_team,
                                             pgdds_team_t *yaxis_team);
/** Frees a team made by a split; local. Call it after the rank's last collective on the team;
 * the handle is then stale. The collective slots in the segment of a team whose ranks share
 * memory (about 16 KiB, for the first 16 such split teams of a rank) stay allocated until
 * pgdds_finalize: another rank may still be reading them.
 * @param team  a team made by a split
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad team or the world or node team. */
PGDDS_API pgdds_status_t pgdds_team_destroy(pgdds_team_t team);

/** @name Collectives on a team
 * Collective over the team's members; roots and ranks are team ranks, and the rules of the
 * collectives above apply (same calls in the same order, mismatches fail on every rank; each
 * also fails as those do: PGDDS_ERR_STATE once collectives are disabled, PGDDS_ERR_PEER_FAILED
 * when a rank died, docs/failure-semantics.md). The context's collectives are these on the
 * world team. */
/** @{ */
/** Waits for every member; also a flush of every network context of every rank.
 * @param team  the team
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad team or calls that differ between members. */
PGDDS_API pgdds_status_t pgdds_team_barrier(pgdds_team_t team);
/** Copies n bytes of buf from team rank root into buf on every member.
 * @param team  the team
 * @param buf   the data on root, the destination elsewhere
 * @param n     bytes
 * @param root  the team rank that has the data
 * @return PGDDS_OK; PGDDS_ERR_OUT_OF_BOUNDS for a root outside the team;
 *         PGDDS_ERR_INVALID_ARG for a bad team, a NULL buf or calls that differ. */
PGDDS_API pgdds_status_t pgdds_team_broadcast(pgdds_team_t team, void *buf, size_t n, int root);
/** Reduces count elements of in over the members with op into out on every member.
 * @param team   the team
 * @param in     this rank's count elements
 * @param out    receives the reduction (in == out is allowed)
 * @param count  elements
 * @param dtype  element type
 * @param op     operation; the bitwise ones take integer types only
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad team, a NULL buffer, a bad type or
 *         operation, or calls that differ. */
PGDDS_API pgdds_status_t pgdds_team_allreduce(pgdds_team_t team, const void *in, void *out, size_t count,
                                              pgdds_dtype_t dtype, pgdds_op_t op);
/** Reduces count elements of in over the members with op into out of root only.
 * @param team   the team
 * @param in     this rank's count elements
 * @param out    receives the reduction on root (in == out is allowed); may be NULL elsewhere
 * @param count  elements
 * @param dtype  element type
 * @param op     operation; the bitwise ones take integer types only
 * @param root   the team rank that receives the result
 * @return PGDDS_OK; PGDDS_ERR_OUT_OF_BOUNDS for a root outside the team;
 *         PGDDS_ERR_INVALID_ARG for a bad team, a NULL buffer, a bad type or operation, or
 *         calls that differ. */
PGDDS_API pgdds_status_t pgdds_team_reduce(pgdds_team_t team, const void *in, void *out, size_t count,
                                           pgdds_dtype_t dtype, pgdds_op_t op, int root);
/** Gathers bytes_per_rank bytes of in from every member into out (team rank r's at
 * r * bytes_per_rank) on every member.
 * @param team            the team
 * @param in              this rank's block
 * @param out             receives size * bytes_per_rank bytes
 * @param bytes_per_rank  the size of every block
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad team, a NULL buffer, a size that
 *         overflows or calls that differ. */
PGDDS_API pgdds_status_t pgdds_team_allgather(pgdds_team_t team, const void *in, void *out, size_t bytes_per_rank);
/** Gathers blocks of different sizes: team rank r contributes counts[r] bytes, which land at
 * out + displs[r] on every member.
 * @param team    the team
 * @param in      this rank's counts[team rank] bytes
 * @param out     receives every block
 * @param counts  one entry per team rank, the same on every member
 * @param displs  where each block lands in out; NULL: packed in rank order
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad team, a NULL buffer or counts, sizes that
 *         overflow, or counts or calls that differ between members. */
PGDDS_API pgdds_status_t pgdds_team_allgatherv(pgdds_team_t team, const void *in, void *out, const size_t *counts,
                                               const size_t *displs);
/** Exchanges blocks between every pair: block r of in goes to team rank r, which puts it at
 * block (this rank's team rank) of its out.
 * Where out is the same block of every member's segment (memory of pgdds_alloc_all, as
 * OpenSHMEM's symmetric heap) and blocks are 2 KiB or more, each block is put straight into its
 * destination's out after the members have checked each other's call: one copy per byte instead
 * of the messages' staging. Otherwise, and for smaller blocks, the blocks travel as messages.
 * @param team            the team
 * @param in              size blocks of bytes_per_pair bytes
 * @param out             receives size blocks; must not overlap in
 * @param bytes_per_pair  the size of every block
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad team, a NULL buffer, a size that
 *         overflows or calls that differ. */
PGDDS_API pgdds_status_t pgdds_team_alltoall(pgdds_team_t team, const void *in, void *out, size_t bytes_per_pair);
/** Exchanges blocks of different sizes between every pair: send_counts[r] bytes at
 * in + send_displs[r] go to team rank r, and recv_counts[r] bytes from team rank r land at
 * out + recv_displs[r].
 * @param team         the team
 * @param in           the blocks to send
 * @param send_counts  bytes to each team rank; send_counts[r] here must equal
 *                     recv_counts[this rank] on rank r
 * @param send_displs  where each block lies in in; NULL: packed in rank order
 * @param out          receives the blocks; must not overlap in
 * @param recv_counts  bytes from each team rank
 * @param recv_displs  where each block lands in out; NULL: packed in rank order
 * @return PGDDS_OK; PGDDS_ERR_INVALID_ARG for a bad team, a NULL buffer or counts, sizes that
 *         overflow, a pair whose counts differ (on every rank) or calls that differ. */
PGDDS_API pgdds_status_t pgdds_team_alltoallv(pgdds_team_t team, const void *in, const size_t *send_counts,
                                              const size_t *send_displs, void *out, const size_t *recv_counts,
                                              const size_t *recv_displs);
/** @} */
/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Active messages                                                                             */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_am Active messages
 * @{ */
/** A handler runs on the destination inside a progress call (any pgdds_* call may progress);
 * it may send active messages but must not block (no flush, wait or barrier). Payloads up to
 * PGDDS_AM_MAX_PAYLOAD bytes are delivered whole; larger ones are refused. */
typedef void (*pgdds_am_handler_t)(pgdds_context_t ctx, int src_rank,
                                   const void *payload, size_t size, void *arg);
#define PGDDS_AM_MAX_PAYLOAD ((size_t)1 << 28)
/** Registers handler h with arg under *id, the same on every rank; collective.
 * @param ctx      the context (pgdds_init)
 * @param h        the handler, run on the destination inside a progress call
 * @param arg      passed to h as its last argument
 * @param id       on success, the handler's number, to pass to pgdds_am_send
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_am_register(pgdds_context_t ctx, pgdds_am_handler_t h, void *arg, uint32_t *id);
/** Sends payload to the handler id on dst_rank.
 * @param ctx      the context (pgdds_init)
 * @param dst_rank the destination rank
 * @param id       a handler number of pgdds_am_register
 * @param payload  the bytes to deliver (copied)
 * @param size     their count, up to PGDDS_AM_MAX_PAYLOAD
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         (unknown id, payload too large), PGDDS_ERR_OUT_OF_BOUNDS (bad rank), PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_am_send(pgdds_context_t ctx, int dst_rank, uint32_t id, const void *payload, size_t size);

/** @name Remote procedure calls
 * Functions that run on another rank and answer (UPC++'s rpc). A process registers each function
 * under a 64-bit id that names it in every process of the job (include/pgdds/rpc.hpp derives it
 * from the C++ type, at static initialization); a call sends the arguments' bytes to the rank,
 * whose progress runs the function, and the reply's bytes come back to a callback run by the
 * caller's progress. No collective is needed: calls that arrive before the target registered the
 * function fail with a message saying so. Each call is one message, unless PGDDS_RPC_AGGREGATE
 * (bytes) holds small calls per destination and sends them together: when the next would not fit,
 * at the caller's next progress, and at pgdds_flush and every barrier (docs/using.md).
 * @{ */
/** What a function answers: set with pgdds_rpc_reply, sent when the function returns. */
typedef struct pgdds_rpc_reply_state pgdds_rpc_reply_t;
/** A function run on the target inside a progress call: it must not block (no flush, wait,
 * barrier or RPC wait). It answers with pgdds_rpc_reply (else an empty success). */
typedef void (*pgdds_rpc_fn_t)(pgdds_context_t ctx, int src_rank, const void *args, size_t size,
                               pgdds_rpc_reply_t *reply);
/** The caller's side of a reply, run inside a progress call of the caller: status PGDDS_OK with
 * the function's bytes, or the failure (the target's message in pgdds_last_error()). */
typedef void (*pgdds_rpc_done_t)(pgdds_context_t ctx, pgdds_status_t status, const void *result,
                                 size_t size, void *arg);
/** Registers fn under id in this process (every context); thread-safe.
 * @param id       the function's name in every process of the job; not 0
 * @param fn       the function
 * @return PGDDS_OK; PGDDS_ERR_EXISTS when id names another function; PGDDS_ERR_INVALID_ARG */
PGDDS_API pgdds_status_t pgdds_rpc_register(uint64_t id, pgdds_rpc_fn_t fn);
/** Calls function id on rank with the args bytes; done(ctx, status, result, size, arg) runs once
 * when the reply arrives (in a progress call of this rank). Calls to this rank run at its next
 * progress, like any other.
 * @param ctx      the context (pgdds_init)
 * @param rank     the rank that runs the function
 * @param id       a registered function's id
 * @param args     the arguments' bytes (copied)
 * @param size     their count, up to PGDDS_AM_MAX_PAYLOAD less 32 bytes
 * @param done     run with the reply; NULL: a call without reply (fire and forget)
 * @param arg      passed to done
 * @return PGDDS_OK (done will run), or a negative status code (pgdds_last_error() says why) and
 *         done will not run: PGDDS_ERR_OUT_OF_BOUNDS (bad rank), PGDDS_ERR_INVALID_ARG */
PGDDS_API pgdds_status_t pgdds_rpc_call(pgdds_context_t ctx, int rank, uint64_t id, const void *args,
                                        size_t size, pgdds_rpc_done_t done, void *arg);
/** Sets what a function answers: a status and, on PGDDS_OK, the result's bytes (copied); for a
 * failure, message (may be NULL) becomes the caller's pgdds_last_error().
 * @param reply    the function's reply handle
 * @param status   PGDDS_OK or a failure status
 * @param result   the result's bytes
 * @param size     their count
 * @param message  a failure's explanation, or NULL
 * @return PGDDS_OK, or PGDDS_ERR_INVALID_ARG (NULL reply) */
PGDDS_API pgdds_status_t pgdds_rpc_reply(pgdds_rpc_reply_t *reply, pgdds_status_t status, const void *result,
                                         size_t size, const char *message);
/** @} */
/** Progresses the calling thread's VCI, and the other VCIs.
 * All of them when one thread uses the library; with several threads, every 256th call, those no
 * thread attends (nobody progressed them since the last look; VCIs their threads are busy on are
 * left to them). On a node with more ranks (times bound threads) than cores it then yields the CPU,
 * as waits do.
 * @param ctx      the context (pgdds_init)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_TRANSPORT,
 *         PGDDS_ERR_PEER_FAILED */
PGDDS_API pgdds_status_t pgdds_progress(pgdds_context_t ctx);

/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Network contexts (VCIs)                                                                     */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_vci Network contexts (VCIs)
 * @{ */
/** @name VCIs
 * Each VCI is an independent stream with its own fabric resources. Unbound threads get VCIs
 * round robin in the order of their first call. Operations and pgdds_flush use the calling
 * thread's VCI. */
/** @{ */
/** The number of VCIs of the context.
 * @param ctx      the context (pgdds_init)
 * @return the count; 0 for an invalid context */
PGDDS_API unsigned       pgdds_num_vcis(pgdds_context_t ctx);
/** Binds the calling thread to VCI vci.
 * @param ctx      the context (pgdds_init)
 * @param vci      0 to pgdds_num_vcis() - 1
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a VCI that does not exist */
PGDDS_API pgdds_status_t pgdds_vci_bind(pgdds_context_t ctx, unsigned vci);
/** The calling thread's VCI.
 * @param ctx      the context (pgdds_init)
 * @return the VCI number; -1 for an invalid context */
PGDDS_API int            pgdds_vci_current(pgdds_context_t ctx);
/** @} */

/** Counts of the one-sided operations this context handed to its network transport
 * (ofi, ucx, verbs), summed over its VCIs since pgdds_init, so that a program (or a benchmark)
 * can see what its calls cost in remote operations. Containers over the network count through
 * the same calls. Not counted: operations served by load/store on memory this rank maps (the
 * shm transport, PGDDS_SHM peers, its own segment), active messages, collectives (the flushes a
 * barrier makes are counted). The counters only grow: take differences. Any thread may call
 * it; operations other threads issue meanwhile may or may not be in the counts yet. */
typedef struct pgdds_net_counts {
    uint64_t puts, gets;           /* blocking, _nbi and _nb forms alike */
    uint64_t put_bytes, get_bytes;
    uint64_t atomics;              /* waited for: fetching, non-fetching, compare-and-swap, load */
    uint64_t atomics_posted;       /* the _nbi forms, completed by a flush */
    uint64_t flushes;              /* per VCI flushed */
    uint64_t reserved[9];          /* zero: room for more counters in this ABI */
} pgdds_net_counts_t;
/** Fills counts with this context's counts of network operations (pgdds_net_counts_t).
 * Any thread may call it; operations other threads issue meanwhile may or may not be in the counts
 * yet.
 * @param ctx      the context (pgdds_init)
 * @param counts   gets the counts, summed over the context's VCIs since pgdds_init
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_net_counts(pgdds_context_t ctx, pgdds_net_counts_t *counts);

/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Containers (collective create/destroy; every other call is one-sided)                      */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_containers Containers and concurrency promises
 * @{ */
/** Concurrency promises (BCL): `concurrent` lists the operations that may run at the same time
 * as this call; 0 means "anything", the fully atomic default. */
enum { PGDDS_CP_INSERT = 1u << 0, PGDDS_CP_FIND = 1u << 1, PGDDS_CP_PUSH = 1u << 2,
       PGDDS_CP_POP = 1u << 3, PGDDS_CP_LOCAL = 1u << 4 };
/** @} */
/** @addtogroup libpgdds_containers
 * How the containers read the promises.
 *  - PGDDS_CP_LOCAL: the caller works on its own part (the key's owner, the queue's host) and no
 *    other rank touches the container meanwhile; other threads of this rank may. The operation
 *    then runs with loads, stores and CPU atomics only (BCL's "local" promise), whatever the
 *    job's atomicity domain. The other bits still choose the protocol.
 *  - Without PGDDS_CP_LOCAL, the other bits name the operations that may overlap this call;
 *    exactly one bit selects the cheaper protocol noted at each function, anything else gets
 *    the fully atomic one. Bits that mean nothing to a container (PGDDS_CP_PUSH on a hash map)
 *    and unknown bits are PGDDS_ERR_INVALID_ARG.
 * Costs are in BCL's terms: A a remote atomic, R a remote read, W a remote write. */

/* --- HashMap ------------------------------------------------------------------------------ */
/** @defgroup libpgdds_hashmap Hash map
 * @{ */
typedef struct pgdds_hashmap *pgdds_hashmap_t;
typedef struct pgdds_hashmap_params { uint64_t field_mask; size_t key_size; size_t value_size; uint64_t capacity; } pgdds_hashmap_params_t;
/** Creates a hash map of params->capacity buckets of key_size-byte keys and value_size-byte values;
 * collective.
 * @param ctx      the context (pgdds_init)
 * @param params   key_size, value_size and capacity, the same on every rank
 * @param map      on success, the new hash map
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         when the ranks' arguments differ, PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_hashmap_create(pgdds_context_t ctx, const pgdds_hashmap_params_t *params, pgdds_hashmap_t *map);
/** Destroys the hash map; collective.
 * @param map      the hash map
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a destroyed or foreign handle */
PGDDS_API pgdds_status_t pgdds_hashmap_destroy(pgdds_hashmap_t map);
/** Inserts key with value, or assigns value to a present key.
 * @param map      the hash map
 * @param key      key_size bytes
 * @param value    value_size bytes
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_FULL when no
 *         bucket within the probe limit can take the key */
PGDDS_API pgdds_status_t pgdds_hashmap_insert(pgdds_hashmap_t map, const void *key, const void *value, unsigned concurrent);
/** Writes the value of key to value.
 * @param map      the hash map
 * @param key      key_size bytes
 * @param value    gets value_size bytes when the key is present
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_NOT_FOUND
 *         when the key is absent */
PGDDS_API pgdds_status_t pgdds_hashmap_find(pgdds_hashmap_t map, const void *key, void *value, unsigned concurrent);
/** Removes key.
 * @param map      the hash map
 * @param key      key_size bytes
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_NOT_FOUND
 *         when the key is absent */
PGDDS_API pgdds_status_t pgdds_hashmap_erase(pgdds_hashmap_t map, const void *key, unsigned concurrent);
/** The number of entries on all ranks; collective.
 * @param map      the hash map
 * @param global_count gets the count
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_size(pgdds_hashmap_t map, uint64_t *global_count);
/** @} */
/** @addtogroup libpgdds_hashmap
 * The hash map's protocols (BCL paper §5.2, thesis Table 6.1 / 8.2).
 * The capacity is rounded up to a multiple of the rank count; rank r holds capacity/nranks
 * buckets. A key's owner rank and home bucket come from a 64-bit hash of its bytes (xxHash
 * XXH3 unless options->hash is given); collisions probe linearly *within the owner's part*, at
 * most max_probes buckets, so every bucket a key can use lives on its owner: local inserts,
 * buffered inserts and resizing never cross ranks. Keys are compared byte for byte.
 *  insert (0)               CAS free->reserved, put key+value, fence, XOR to ready: 2A+W when the
 *                           home bucket is free. On a collision the inserter takes a chain lock
 *                           bit on the home bucket, so inserts of one key never race; it looks
 *                           for the key up to the first free bucket, assigns it in place if found,
 *                           otherwise fills the first tombstone (or the free bucket) it passed.
 *  insert (CP_INSERT)       only inserts of other keys overlap (BCL's C_W): CAS free->ready then
 *                           one put, A+W; visible to finds after the next flush or barrier.
 *                           Two inserts of the same key must not overlap under this promise.
 *  find (0)                 set a reader bit by CAS, read key+value, clear the bit: 2A+R. The
 *                           clear is posted: it lands by the caller's next flush or barrier,
 *                           and an insert or erase of that bucket waits for it until then.
 *  find (CP_FIND)           only finds overlap: one read of the whole bucket, validated: R.
 *  erase (any)              CAS ready->reserved, check the key, XOR to tombstone: 2A+R. Finds
 *                           skip tombstones; inserts reuse them.
 * PGDDS_ERR_FULL when no bucket within the probe limit can take the key; finds and erases stop
 * at a free bucket or the limit, never loop. @{ */
typedef uint64_t (*pgdds_hash_fn_t)(const void *key, size_t key_size, void *arg);
/* How a container reaches the part of a rank it cannot load/store (PGDDS_CONTAINER_PROTOCOL,
 * docs/containers.md "RDMA or RPC"). RDMA: the one-sided protocols above, run by the caller.
 * RPC: one active message to the owner, which runs the same protocol on its own memory with
 * the same concurrency promise and replies: one round trip whatever the protocol's count of
 * remote operations, but only while the owner progresses (any pgdds call, or
 * PGDDS_PROGRESS_THREAD=1); a reply that does not come is PGDDS_ERR_TIMEOUT under PGDDS_TIMEOUT,
 * naming the owner (the operation may still run later). AUTO: PGDDS_CONTAINER_PROTOCOL.
 * DIRECT is only reported (pgdds_hashmap_protocol): load/store memory, no protocol choice. */
enum { PGDDS_PROTOCOL_AUTO = 0, PGDDS_PROTOCOL_RDMA = 1, PGDDS_PROTOCOL_RPC = 2, PGDDS_PROTOCOL_DIRECT = 3 };
/* Per operation (issue 31; docs/containers.md "RDMA or RPC"): every operation that changes a
 * part or takes an atomic on it (insert, erase, a fully atomic find, which holds a reader bit,
 * push, pop, queue size, which loads atomically, Bloom insert, key-table put, atomic_u64 and
 * remove) takes the container's protocol, so that all atomics on a part stay in one atomicity
 * domain (CPU atomics under RPC, the transport's under RDMA: the two are not atomic with each
 * other). Auto prices those together: RPC when one call each costs less than their fully atomic
 * one-sided protocols summed. An operation that only reads (a CP_FIND find or find_many, a
 * Bloom contains, a key-table get) takes no atomic, and an owner's CPU writes are visible to a
 * one-sided read as to any other: inside a container served by RPC auto prices each such
 * operation on its own and reads one-sidedly where that costs less than a call (a batch: where
 * its groups of reads in flight together cost less than one call per owner). The operations
 * named by the *_op_protocol functions: */
enum {
    PGDDS_CONTAINER_OP_INSERT = 1, PGDDS_CONTAINER_OP_FIND = 2, PGDDS_CONTAINER_OP_ERASE = 3,
    PGDDS_CONTAINER_OP_INSERT_MANY = 4, PGDDS_CONTAINER_OP_FIND_MANY = 5, PGDDS_CONTAINER_OP_PUSH = 6,
    PGDDS_CONTAINER_OP_POP = 7, PGDDS_CONTAINER_OP_SIZE = 8, PGDDS_CONTAINER_OP_CONTAINS = 9,
    PGDDS_CONTAINER_OP_GET = 10, PGDDS_CONTAINER_OP_PUT = 11, PGDDS_CONTAINER_OP_ATOMIC_U64 = 12,
    PGDDS_CONTAINER_OP_REMOVE = 13
};
enum { PGDDS_HASHMAP_OPTION_HASH = 1u << 0, PGDDS_HASHMAP_OPTION_MAX_PROBES = 1u << 1,
       PGDDS_HASHMAP_OPTION_PROTOCOL = 1u << 2 };
typedef struct pgdds_hashmap_options {
    uint64_t        field_mask;  /* PGDDS_HASHMAP_OPTION_* bits of the fields set */
    pgdds_hash_fn_t hash;        /* same function on every rank; default XXH3 of the key bytes */
    void           *hash_arg;
    uint32_t        max_probes;  /* buckets a probe may visit; default min(1024, part size) */
    int             protocol;    /* PGDDS_PROTOCOL_AUTO/RDMA/RPC, the same on every rank; read only
                                    under PGDDS_HASHMAP_OPTION_PROTOCOL (appended: callers built
                                    before it never set the bit) */
} pgdds_hashmap_options_t;
/** pgdds_hashmap_create with options (NULL: defaults); collective.
 * @param ctx      the context (pgdds_init)
 * @param params   key_size, value_size and capacity, the same on every rank
 * @param options  the hash function, probe limit and protocol whose bits are set in
 *         options->field_mask;
 *         NULL: defaults
 * @param map      on success, the new hash map
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         when the ranks' arguments differ, PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_hashmap_create_with(pgdds_context_t ctx, const pgdds_hashmap_params_t *params,
                                                   const pgdds_hashmap_options_t *options, pgdds_hashmap_t *map);
/** @name Batched operations
 * Keys (count × key_size bytes) are hashed in groups whose buckets
 * are prefetched (load/store memory) or read together (network, CP_FIND), so memory and network
 * latencies overlap. find_many sets found[i] to 1 and writes value i, or sets it to 0. On a
 * failure (not FULL/NOT_FOUND per key: a transport error) the outputs are unspecified.
 * insert_many stops at the first key it cannot insert and returns that status; the keys before
 * it are inserted. Under PGDDS_PROTOCOL_RPC each owner gets one message with its keys (in the
 * order given) and stops at the first of them it cannot insert: the keys before the first that
 * failed are inserted, as are other owners' keys after it; the call returns one owner's failure. */
/** @{ */
/** Finds count keys: found[i] is 1 and value i written, or 0.
 * @param map      the hash map
 * @param count    the number of keys
 * @param keys     count × key_size bytes
 * @param values   gets count × value_size bytes (value i only where found[i] is 1)
 * @param found    count flags
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): a transport error (the
 *         outputs are then unspecified) */
PGDDS_API pgdds_status_t pgdds_hashmap_find_many(pgdds_hashmap_t map, size_t count, const void *keys, void *values,
                                                 unsigned char *found, unsigned concurrent);
/** Inserts count keys with their values, stopping at the first it cannot insert.
 * @param map      the hash map
 * @param count    the number of keys
 * @param keys     count × key_size bytes
 * @param values   count × value_size bytes
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): the first key's
 *         failure (PGDDS_ERR_FULL, ...); the keys before it are inserted */
PGDDS_API pgdds_status_t pgdds_hashmap_insert_many(pgdds_hashmap_t map, size_t count, const void *keys,
                                                   const void *values, unsigned concurrent);
/** @} */

/** @name Non-blocking container operations
 * The hash map's, queue's and Bloom filter's operations with a request (pgdds_test, pgdds_wait)
 * that gives the operation's outcome, the status the blocking call would return (explained by
 * pgdds_last_error()), and writes its outputs when it completes. The inputs (keys, values,
 * elements) are copied before the call returns and may be reused at once; outputs must stay
 * valid until the request completes. Argument errors (a NULL pointer, an unknown promise bit,
 * PGDDS_CP_LOCAL off the owner) fail the call itself, with no request.
 *
 * Towards an owner served by RPC (PGDDS_PROTOCOL_RPC, as the op_protocol queries say) the call
 * sends one message (a batch: one per owner called) and returns; the owner runs the operation
 * when it progresses and the request completes with its reply, so many operations overlap their
 * round trips. Parts reached by load/store, and the one-sided (RDMA) protocols, whose steps each
 * depend on the last, run the operation to its end inside the call: the request is then
 * complete at once. Operations in flight together complete in any order (wait for one to order
 * it before another) under the same concurrency promises as the blocking calls. A container's
 * destroy first waits for this rank's operations in flight; their requests still give the
 * outcomes afterwards.
 * @{ */
/** pgdds_hashmap_insert with a request.
 * @param map      the hash map
 * @param key      key_size bytes (copied)
 * @param value    value_size bytes (copied)
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @param req      on success, the request; it completes with pgdds_hashmap_insert's status
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_insert_nb(pgdds_hashmap_t map, const void *key, const void *value,
                                                 unsigned concurrent, pgdds_request_t *req);
/** pgdds_hashmap_find with a request.
 * @param map      the hash map
 * @param key      key_size bytes (copied)
 * @param value    gets value_size bytes when the request completes with PGDDS_OK
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @param req      on success, the request; it completes with PGDDS_ERR_NOT_FOUND when the key is absent
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_find_nb(pgdds_hashmap_t map, const void *key, void *value, unsigned concurrent,
                                               pgdds_request_t *req);
/** pgdds_hashmap_erase with a request.
 * @param map      the hash map
 * @param key      key_size bytes (copied)
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @param req      on success, the request; it completes with PGDDS_ERR_NOT_FOUND when the key is absent
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_erase_nb(pgdds_hashmap_t map, const void *key, unsigned concurrent,
                                                pgdds_request_t *req);
/** pgdds_hashmap_find_many with a request.
 * @param map      the hash map
 * @param count    the number of keys
 * @param keys     count × key_size bytes (copied)
 * @param values   gets count × value_size bytes when the request completes
 * @param found    count flags, set when the request completes
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @param req      on success, the request
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_find_many_nb(pgdds_hashmap_t map, size_t count, const void *keys, void *values,
                                                    unsigned char *found, unsigned concurrent, pgdds_request_t *req);
/** pgdds_hashmap_insert_many with a request.
 * @param map      the hash map
 * @param count    the number of keys
 * @param keys     count × key_size bytes (copied)
 * @param values   count × value_size bytes (copied)
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @param req      on success, the request; it completes with pgdds_hashmap_insert_many's status
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_insert_many_nb(pgdds_hashmap_t map, size_t count, const void *keys,
                                                      const void *values, unsigned concurrent, pgdds_request_t *req);
/** @} */
/** Resizes to at least new_capacity buckets; collective.
 * Every rank rehashes its own part (owners do not change).
 * @param map      the hash map
 * @param new_capacity the bucket count wanted, the same on every rank
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_FULL (and
 *         the old table kept) if some rank's entries do not fit */
PGDDS_API pgdds_status_t pgdds_hashmap_resize(pgdds_hashmap_t map, uint64_t new_capacity);
/** The total bucket count.
 * @param map      the hash map
 * @param capacity gets the count
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_capacity(pgdds_hashmap_t map, uint64_t *capacity);
/** The rank that owns a key.
 * @param map      the hash map
 * @param key      key_size bytes
 * @param rank     gets the owner
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_owner(pgdds_hashmap_t map, const void *key, int *rank);
/** How this rank's operations that change the part or take an atomic on it (insert, erase,
 * insert_many, a fully atomic find) reach a rank's part of the map: the map's protocol. A
 * CP_FIND find may differ (pgdds_hashmap_op_protocol).
 * @param map      the hash map
 * @param rank     the rank whose part is meant
 * @param protocol gets PGDDS_PROTOCOL_DIRECT (load/store), PGDDS_PROTOCOL_RDMA or
 *         PGDDS_PROTOCOL_RPC (never AUTO: the choice made at creation)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a NULL handle or output, PGDDS_ERR_OUT_OF_BOUNDS for a rank out of range */
PGDDS_API pgdds_status_t pgdds_hashmap_protocol(pgdds_hashmap_t map, int rank, int *protocol);
/** How this rank's operation op under promise concurrent reaches a rank's part of the map: the
 * map's protocol (pgdds_hashmap_protocol) for insert, erase, insert_many and a fully atomic find;
 * a CP_FIND find or find_many may read one-sidedly (PGDDS_PROTOCOL_RDMA) inside a map served by
 * RPC where auto priced that below a call (find_many: for a batch of up to 32 keys; a larger
 * batch reads one-sidedly while its groups of 32 keys, each one R, cost less than one call).
 * @param map      the hash map
 * @param rank     the rank whose part is meant
 * @param op       PGDDS_CONTAINER_OP_INSERT, _FIND, _ERASE, _INSERT_MANY or _FIND_MANY
 * @param concurrent the promise the operation would be called with (PGDDS_CP_* bits; 0: any)
 * @param protocol gets PGDDS_PROTOCOL_DIRECT, PGDDS_PROTOCOL_RDMA or PGDDS_PROTOCOL_RPC
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a NULL handle or output, another operation or a bad promise, PGDDS_ERR_OUT_OF_BOUNDS
 *         for a rank out of range */
PGDDS_API pgdds_status_t pgdds_hashmap_op_protocol(pgdds_hashmap_t map, int rank, int op, unsigned concurrent,
                                                   int *protocol);
/** Why the containers of this context take the protocols they do: the costs measured for
 * PGDDS_CONTAINER_PROTOCOL=auto (collectively, at the first container creation of the context,
 * or at the first call of this function if it comes first: then it is collective) and each
 * operation's formulas priced with them. Lines of text, fields separated by spaces:
 *   costs MODE RANKS A R W RPC      mode (auto, rdma, rpc), the ranks that measured (0: not
 *                                   measured: no rank reaches another only through the
 *                                   network, or another mode), microseconds per remote atomic,
 *                                   get, put with flush and RPC round trip, job means
 *   op CONTAINER OPERATION FORMULA RDMA RPC CHEAPER ROLE TAKES
 *                                   the one-sided protocol's formula (nA+nR+nW+nM, M a message
 *                                   to the owner; "/32keys": per group of a batch), its price
 *                                   and one call's, in microseconds, the cheaper (- when not
 *                                   measured); its role in the choice: decides (a fully atomic
 *                                   operation, priced into the container's sum), follows (it
 *                                   changes the part or takes an atomic: the container's
 *                                   protocol), reads (read-only: chosen on its own under RPC),
 *                                   one-sided (read-only, no call form); and the protocol it
 *                                   takes now towards a rank this one does not map (direct,
 *                                   rdma or rpc; a batch: one group)
 *   container KIND PROTOCOL RDMA RPC BASIS
 *                                   the protocol a container of that kind takes now towards
 *                                   ranks it does not map, the summed prices of its fully atomic
 *                                   operations, and whether they decided (priced) or the
 *                                   transport's capabilities did (capabilities)
 * @param ctx      the context
 * @param text     gets the text, NUL-terminated
 * @param size     in: the bytes text holds; out: the bytes the report needs with its NUL
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS when text is too small (*size says how much is needed),
 *         PGDDS_ERR_INVALID_ARG for NULL arguments */
PGDDS_API pgdds_status_t pgdds_container_protocols(pgdds_context_t ctx, char *text, size_t *size);
typedef int (*pgdds_hashmap_visit_t)(const void *key, void *value, void *arg);
/** Visits every entry of this rank's part (between phases: no operation may overlap).
 * value points into the table and may be modified in place; a nonzero return of visit stops.
 * @param map      the hash map
 * @param visit    called with each entry's key, value and arg
 * @param arg      passed to visit
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_foreach_local(pgdds_hashmap_t map, pgdds_hashmap_visit_t visit, void *arg);
/** Copies the next entry of this rank's part: a walk over the part that may overlap other
 * operations, one entry per call. Start with *cursor = 0; each call copies the first entry at or
 * after the cursor and moves the cursor past it, until PGDDS_ERR_NOT_FOUND says the part is done.
 * Concurrency: each entry is copied whole, under the bucket's reader count as a fully atomic
 * pgdds_hashmap_find reads it (an insert, assignment or erase of that entry waits for the copy,
 * and the walk waits for them). Entries present for the whole walk are visited exactly once;
 * one inserted or erased during the walk at most once (whether depends on where the walk is);
 * an entry assigned during the walk is visited once, with the old or the new value. Inserts that
 * overlap a walk must allow finds (promise 0, or one with PGDDS_CP_FIND): one that promised
 * PGDDS_CP_INSERT alone may be copied half-written. A resize (collective) cannot overlap; a
 * cursor from before it is meaningless after it. With the transport's atomics (no load/store
 * path to this rank's own segment through CPU atomics) each bucket costs an atomic through the
 * transport: between phases pgdds_hashmap_foreach_local is cheaper.
 * @param map      the hash map
 * @param cursor   in: 0 to start, or what the previous call left; out: past the entry copied
 * @param key      gets the entry's key (key_size bytes)
 * @param value    gets its value (value_size bytes; may be NULL when value_size is 0)
 * @return PGDDS_OK with an entry, PGDDS_ERR_NOT_FOUND when none is left (*cursor then stays at
 *         the end), or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for NULL arguments or a cursor past the part's end */
PGDDS_API pgdds_status_t pgdds_hashmap_local_next(pgdds_hashmap_t map, uint64_t *cursor, void *key, void *value);

/** @} */

/** @defgroup libpgdds_hashmap_buffer Hash map buffer
 * @{ */
typedef struct pgdds_hashmap_buffer *pgdds_hashmap_buffer_t;
/** Creates a buffer of inserts into map; collective.
 * @param map            the hash map, which must outlive the buffer
 * @param queue_capacity entries each rank's queue holds
 * @param message_size   entries per message, at most queue_capacity
 * @param buf            on success, the new buffer
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         when the ranks' arguments differ, PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_hashmap_buffer_create(pgdds_hashmap_t map, size_t queue_capacity, size_t message_size, pgdds_hashmap_buffer_t *buf);
/** Buffers an insert of key with value, sent to its owner in messages of message_size entries.
 * @param buf      the hash map buffer
 * @param key      the map's key_size bytes
 * @param value    the map's value_size bytes
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_buffer_insert(pgdds_hashmap_buffer_t buf, const void *key, const void *value);
/** Inserts every buffered entry into the map; collective.
 * @param buf      the hash map buffer
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_FULL when
 *         the map cannot take an entry */
PGDDS_API pgdds_status_t pgdds_hashmap_buffer_flush(pgdds_hashmap_buffer_t buf);
/** Destroys the buffer, discarding entries not yet flushed; collective.
 * @param buf      the hash map buffer
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_hashmap_buffer_destroy(pgdds_hashmap_buffer_t buf);
/** @} */
/** @addtogroup libpgdds_hashmap_buffer
 * The hash map buffer (BCL paper §5.3). queue_capacity and message_size count
 * entries (key+value). Each rank hosts one FastQueue; insert appends to a local buffer per owner
 * rank (this rank's own entries never leave it) and pushes a buffer once it holds message_size
 * entries (A+W per message). flush (collective) pushes the rest, then each rank drains its queue
 * with local inserts (CP_LOCAL). Nothing is lost when an owner's queue is full: the message stays
 * in the local buffer and flush repeats push/drain rounds until every buffer is empty. Inserts
 * are unordered until flush returns (the last of several values of one key wins, in no defined
 * order). destroy (collective) discards entries not yet flushed. message_size must not exceed
 * queue_capacity. The hash map must outlive the buffer. @{ */
/** Combining buffers (pgdds_hashmap_buffer_create_with; options NULL: the plain buffer).
 * How the drain at flush treats an entry whose key is already in the map:
 *  - COMBINE: the stored value becomes combine(stored, incoming), changed in place by
 *    combine(stored, incoming, combine_arg) on the key's owner, instead of being replaced. The
 *    entries of one flush meet the map in no defined order, so combine should not depend on it
 *    (a sum of counts, a maximum, a bitwise or). The same function on every rank.
 *  - UPDATE_ONLY (update_only = 1): entries whose key is absent are dropped, not inserted; keys
 *    present are combined (or assigned, without COMBINE).
 * A buffer with COMBINE counts occurrences in one pass: insert (key, 1) with an adding combine. */
typedef void (*pgdds_hashmap_combine_t)(void *stored, const void *incoming, void *arg);
enum { PGDDS_HASHMAP_BUFFER_OPTION_COMBINE = 1u << 0, PGDDS_HASHMAP_BUFFER_OPTION_UPDATE_ONLY = 1u << 1 };
typedef struct pgdds_hashmap_buffer_options {
    uint64_t                field_mask;   /* PGDDS_HASHMAP_BUFFER_OPTION_* bits of the fields set */
    pgdds_hashmap_combine_t combine;      /* COMBINE */
    void                   *combine_arg;  /* COMBINE */
    int                     update_only;  /* UPDATE_ONLY: 0 or 1 */
} pgdds_hashmap_buffer_options_t;
/** pgdds_hashmap_buffer_create with options (NULL: the plain buffer); collective.
 * @param map            the hash map, which must outlive the buffer
 * @param queue_capacity entries each rank's queue holds
 * @param message_size   entries per message, at most queue_capacity
 * @param options        COMBINE and UPDATE_ONLY, whose bits are set in options->field_mask; NULL:
 *         none
 * @param buf            on success, the new buffer
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         when the ranks' arguments differ, PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_hashmap_buffer_create_with(pgdds_hashmap_t map, size_t queue_capacity,
                                                          size_t message_size,
                                                          const pgdds_hashmap_buffer_options_t *options,
                                                          pgdds_hashmap_buffer_t *buf);

/** @} */

/* --- Queues ------------------------------------------------------------------------------- */
/** @defgroup libpgdds_queue Queues
 * @{ */
typedef struct pgdds_queue *pgdds_queue_t;
enum { PGDDS_QUEUE_FAST, PGDDS_QUEUE_CIRCULAR, PGDDS_QUEUE_CHECKSUM };
typedef struct pgdds_queue_params { uint64_t field_mask; int kind; size_t elem_size; uint64_t capacity; int host_rank; } pgdds_queue_params_t;
/** Creates a queue of params->kind on params->host_rank; collective.
 * @param ctx      the context (pgdds_init)
 * @param params   kind (PGDDS_QUEUE_*), elem_size, capacity and host_rank, the same on every rank
 * @param queue    on success, the new queue
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for a host outside the job, PGDDS_ERR_INVALID_ARG,
 *         PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_queue_create(pgdds_context_t ctx, const pgdds_queue_params_t *params, pgdds_queue_t *queue);
/** Destroys the queue; collective.
 * @param queue    the queue
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_queue_destroy(pgdds_queue_t queue);
/** Pushes count elements, all or nothing.
 * @param queue    the queue
 * @param elems    count × elem_size bytes
 * @param count    the number of elements
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_FULL
 *         (nothing pushed), PGDDS_ERR_INVALID_ARG for a promise the kind does not allow */
PGDDS_API pgdds_status_t pgdds_queue_push(pgdds_queue_t queue, const void *elems, size_t count, unsigned concurrent);
/** Pops up to max elements into elems.
 * @param queue    the queue
 * @param elems    room for max elements
 * @param max      the most elements to pop
 * @param popped   gets the number popped
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_EMPTY when
 *         none */
PGDDS_API pgdds_status_t pgdds_queue_pop(pgdds_queue_t queue, void *elems, size_t max, size_t *popped, unsigned concurrent);
/** pgdds_queue_push with a request (the non-blocking container operations: see
 * pgdds_hashmap_insert_nb). A FastQueue push with a request keeps no store back: it is complete,
 * and visible to pops, when the request completes.
 * @param queue    the queue
 * @param elems    count elements (copied)
 * @param count    how many
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @param req      on success, the request; it completes with pgdds_queue_push's status
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_queue_push_nb(pgdds_queue_t queue, const void *elems, size_t count, unsigned concurrent,
                                             pgdds_request_t *req);
/** pgdds_queue_pop with a request (see pgdds_hashmap_insert_nb).
 * @param queue    the queue
 * @param elems    gets up to max elements when the request completes
 * @param max      room in elems, in elements
 * @param popped   gets the number popped when the request completes
 * @param concurrent the operations that may overlap this call (PGDDS_CP_* bits; 0: any)
 * @param req      on success, the request; it completes with PGDDS_ERR_EMPTY when there was none
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_queue_pop_nb(pgdds_queue_t queue, void *elems, size_t max, size_t *popped,
                                            unsigned concurrent, pgdds_request_t *req);
/** The queued elements, contiguous; host rank, between phases. It does not pop them.
 * @param queue    the queue
 * @param elems    gets the address of the first element
 * @param count    gets the number of elements
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         on a rank other than the host */
PGDDS_API pgdds_status_t pgdds_queue_local_view(pgdds_queue_t queue, void **elems, size_t *count);
/** @} */
/** @addtogroup libpgdds_queue
 * The queues (BCL paper §5.1, thesis ch. 5, Tables 5.1 and 5.2). Ring buffers on the
 * host rank with 64-bit head/tail counters; capacity N holds exactly N elements. push is all or
 * nothing (PGDDS_ERR_FULL); pop takes up to max elements (PGDDS_ERR_EMPTY when none).
 *  FAST      pushes and pops in separate phases (a barrier between): push = fetch-add on the tail
 *            + put (A+W), pop = fetch-add on the head + get (A+R). A reservation that overruns
 *            the queue is withdrawn by the first overrunning caller (one extra atomic), so a
 *            full queue keeps no holes. Declaring the other operation concurrent (CP_POP on a
 *            push) is PGDDS_ERR_INVALID_ARG. Like a put, a push is complete once its caller has
 *            flushed (pgdds_flush, or any pgdds_barrier): pops by other ranks or threads see it
 *            from then on, the caller's own pops and local view at once. (On one node the
 *            library keeps up to 16 small pushes' stores per network context back until then
 *            and issues them together, which overlaps their cache-line transfers.)
 *  CIRCULAR  concurrent pushes and pops with ready counters: reserve with compare-and-swap, put,
 *            fence, then advance tail-ready in order with compare-and-swap (2A+W). Under
 *            CP_PUSH alone (no concurrent pop) the tail is reserved by fetch-add, as a
 *            FastQueue's, and tail-ready advances by fetch-add; pops likewise (CP_POP alone:
 *            head and head-ready by fetch-add). These two promises make a phase: every push
 *            beside one under CP_PUSH alone must be under CP_PUSH alone too (pops likewise),
 *            as an in-order advance waits for a ready counter that a fetch-add has moved past
 *            (it ends with PGDDS_ERR_TIMEOUT).
 *  CHECKSUM  concurrent pushes and pops without a tail-ready counter: every element is written
 *            with a 64-bit checksum that also encodes the lap of the ring (A + W(1+c)); a popper
 *            re-reads an element until its checksum is right for the lap (A + R(1+c)), then
 *            frees the slots like the circular queue's head-ready.
 * local_view (host, between phases) returns the queued elements contiguously (rotating the ring
 * in place if needed); it does not pop them. @{ */
/** The number of queued elements, a snapshot.
 * @param queue    the queue
 * @param count    gets the number
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_queue_size(pgdds_queue_t queue, uint64_t *count);
/** The number of elements the queue holds when full.
 * @param queue    the queue
 * @param capacity gets the number
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_queue_capacity(pgdds_queue_t queue, uint64_t *capacity);
/** The rank that hosts the queue.
 * @param queue    the queue
 * @param host_rank gets the rank
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_queue_host(pgdds_queue_t queue, int *host_rank);
/** How this rank's push, pop and size reach the queue's host (PGDDS_CONTAINER_PROTOCOL, chosen
 * at creation; "RDMA or RPC" above pgdds_hashmap_options_t). Under PGDDS_PROTOCOL_RPC a push,
 * a pop of up to max elements and a size are one call each to the host, which runs the kind's
 * protocol on its own memory with the caller's promise; a push is then complete on return (a
 * FastQueue's needs no flush). A push under RPC carries at most 256 MiB less 1 KiB of
 * elements (PGDDS_ERR_INVALID_ARG beyond); a pop takes at most that many bytes.
 * @param queue    the queue
 * @param protocol gets PGDDS_PROTOCOL_DIRECT (load/store), PGDDS_PROTOCOL_RDMA or
 *         PGDDS_PROTOCOL_RPC (never AUTO)
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a NULL handle or output */
PGDDS_API pgdds_status_t pgdds_queue_protocol(pgdds_queue_t queue, int *protocol);
/** How this rank's operation op under promise concurrent reaches the queue's host: every queue
 * operation takes an atomic on the host's counters (size: two atomic loads), so all take the
 * queue's protocol (pgdds_queue_protocol); PGDDS_CP_LOCAL on the host: PGDDS_PROTOCOL_DIRECT.
 * @param queue    the queue
 * @param op       PGDDS_CONTAINER_OP_PUSH, _POP or _SIZE
 * @param concurrent the promise the operation would be called with (PGDDS_CP_* bits; 0: any)
 * @param protocol gets PGDDS_PROTOCOL_DIRECT, PGDDS_PROTOCOL_RDMA or PGDDS_PROTOCOL_RPC
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a NULL handle or output, another operation or a bad promise */
PGDDS_API pgdds_status_t pgdds_queue_op_protocol(pgdds_queue_t queue, int op, unsigned concurrent, int *protocol);
/** @name Resize and migrate
 * Collective. resize keeps the elements (FULL if new_capacity < size); migrate moves
 * the queue and its elements to another host (B + nW). */
/** @{ */
/** Gives the queue room for new_capacity elements, keeping them; collective.
 * @param queue    the queue
 * @param new_capacity the number of elements, the same on every rank
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_FULL if
 *         new_capacity is below the queue's size */
PGDDS_API pgdds_status_t pgdds_queue_resize(pgdds_queue_t queue, uint64_t new_capacity);
/** Moves the queue and its elements to new_host; collective.
 * @param queue    the queue
 * @param new_host the rank that hosts it from now on, the same on every rank
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for a host outside the job */
PGDDS_API pgdds_status_t pgdds_queue_migrate(pgdds_queue_t queue, int new_host);
/** @} */

/** @} */

/* --- Bloom filter ------------------------------------------------------------------------- */
/** @defgroup libpgdds_bloom Bloom filter
 * @{ */
typedef struct pgdds_bloom *pgdds_bloom_t;
/** Creates a Bloom filter sized for expected_items at false_positive_rate; collective.
 * @param ctx      the context (pgdds_init)
 * @param expected_items      the number of keys it is sized for
 * @param false_positive_rate the false-positive rate wanted at that many keys, in (0, 1)
 * @param bloom               on success, the new filter
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         when the ranks' arguments differ, PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_bloom_create(pgdds_context_t ctx, uint64_t expected_items, double false_positive_rate, pgdds_bloom_t *bloom);
/** Destroys the Bloom filter; collective.
 * @param bloom    the Bloom filter
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_bloom_destroy(pgdds_bloom_t bloom);
/** Inserts key.
 * @param bloom    the Bloom filter
 * @param key      the key's bytes
 * @param len      their count
 * @param was_present unless NULL, set to 1 if every bit of the key was already set, else 0
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_bloom_insert(pgdds_bloom_t bloom, const void *key, size_t len, int *was_present);
/** Tells whether key may have been inserted.
 * @param bloom    the Bloom filter
 * @param key      the key's bytes
 * @param len      their count
 * @param maybe_present set to 1 if key may have been inserted, 0 if it surely was not
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_bloom_contains(pgdds_bloom_t bloom, const void *key, size_t len, int *maybe_present);
/** How this rank's operation op reaches a rank's part of the filter (PGDDS_CONTAINER_PROTOCOL,
 * chosen at creation; "RDMA or RPC" above pgdds_hashmap_options_t): insert (a fetch-or) takes the
 * filter's protocol; contains (one read) may read one-sidedly inside a filter served by RPC
 * where auto priced that below a call (batches as pgdds_hashmap_op_protocol's find_many, in
 * groups of 16 keys).
 * @param bloom    the Bloom filter
 * @param rank     the rank whose part is meant
 * @param op       PGDDS_CONTAINER_OP_INSERT or PGDDS_CONTAINER_OP_CONTAINS
 * @param protocol gets PGDDS_PROTOCOL_DIRECT, PGDDS_PROTOCOL_RDMA or PGDDS_PROTOCOL_RPC
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a NULL handle or output or another operation, PGDDS_ERR_OUT_OF_BOUNDS for a rank
 *         out of range */
PGDDS_API pgdds_status_t pgdds_bloom_protocol(pgdds_bloom_t bloom, int rank, int op, int *protocol);
/** @} */
/** @addtogroup libpgdds_bloom
 * The Bloom filter (BCL paper §5.4, thesis §6.2) is blocked: 64-bit blocks
 * distributed block-wise over the ranks; a key hashes to one block and k bits in it. insert is
 * one fetch-or (A) whose old value tells whether every bit was already set; contains is one read
 * (R). The block count and k are the smallest that give the requested false-positive rate for
 * expected_items, computed for 64-bit blocks (Poisson load per block), not for a flat filter.
 * pgdds_bloom_insert accepts was_present NULL. @{ */
/** The block count and the number of bits (hashes) a key sets.
 * @param bloom    the Bloom filter
 * @param blocks   gets the number of 64-bit blocks
 * @param hashes   gets the number of bits a key sets in its block
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_bloom_geometry(pgdds_bloom_t bloom, uint64_t *blocks, unsigned *hashes);
/** @name Batched operations
 * Batched insert/contains of count keys of key_len bytes each, with prefetching.
 * was_present may be NULL. */
/** @{ */
/** Inserts count keys; was_present[i] as pgdds_bloom_insert's.
 * @param bloom    the Bloom filter
 * @param count    the number of keys
 * @param keys     count × key_len bytes
 * @param key_len  the length of each key
 * @param was_present unless NULL, count flags
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_bloom_insert_many(pgdds_bloom_t bloom, size_t count, const void *keys, size_t key_len,
                                                 unsigned char *was_present);
/** Looks up count keys; maybe_present[i] as pgdds_bloom_contains's.
 * @param bloom    the Bloom filter
 * @param count    the number of keys
 * @param keys     count × key_len bytes
 * @param key_len  the length of each key
 * @param maybe_present count flags
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_bloom_contains_many(pgdds_bloom_t bloom, size_t count, const void *keys,
                                                   size_t key_len, unsigned char *maybe_present);
/** pgdds_bloom_insert_many with a request (the non-blocking container operations: see
 * pgdds_hashmap_insert_nb); one key: count 1.
 * @param bloom    the filter
 * @param count    the number of keys
 * @param keys     count keys of key_len bytes each (copied)
 * @param key_len  the length of each key
 * @param was_present NULL, or count flags set by the time the request completes
 * @param req      on success, the request
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_bloom_insert_many_nb(pgdds_bloom_t bloom, size_t count, const void *keys,
                                                    size_t key_len, unsigned char *was_present, pgdds_request_t *req);
/** pgdds_bloom_contains_many with a request (see pgdds_hashmap_insert_nb); one key: count 1.
 * @param bloom    the filter
 * @param count    the number of keys
 * @param keys     count keys of key_len bytes each (copied)
 * @param key_len  the length of each key
 * @param maybe_present count flags, set by the time the request completes
 * @param req      on success, the request
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_bloom_contains_many_nb(pgdds_bloom_t bloom, size_t count, const void *keys,
                                                      size_t key_len, unsigned char *maybe_present,
                                                      pgdds_request_t *req);
/** @} */

/** @} */

/* --- Distributed array -------------------------------------------------------------------- */
/** @defgroup libpgdds_darray Distributed array
 * @{ */
typedef struct pgdds_darray *pgdds_darray_t;
/** Creates an array of count elements, block distributed; collective.
 * @param ctx      the context (pgdds_init)
 * @param elem_size bytes per element
 * @param count    the number of elements, the same on every rank
 * @param array    on success, the new array
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         when the ranks' arguments differ, PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_darray_create(pgdds_context_t ctx, size_t elem_size, uint64_t count, pgdds_darray_t *array);
/** Destroys the array; collective.
 * @param array    the distributed array
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_darray_destroy(pgdds_darray_t array);
/** The global pointer of element index.
 * @param array    the distributed array
 * @param index    the element
 * @param out      gets its global pointer
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for elements past the end */
PGDDS_API pgdds_status_t pgdds_darray_gptr(pgdds_darray_t array, uint64_t index, pgdds_gptr_t *out);
/** This rank's elements: their address, the index of the first, and their count.
 * A rank past the end holds none (elems NULL, count 0).
 * @param array    the distributed array
 * @param elems       gets the address of this rank's first element
 * @param first_index gets its index
 * @param count       gets the number of this rank's elements
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_darray_local(pgdds_darray_t array, void **elems, uint64_t *first_index, uint64_t *count);
/** @name Distribution
 * Rank r holds elements [r*b, min(count, (r+1)*b)) with b = ceil(count/nranks); a
 * rank past the end holds none (local: elems NULL, count 0). get/put copy a range of elements
 * that may span ranks, and return complete (put: visible at the targets). */
/** @{ */
/** The number of elements.
 * @param array    the distributed array
 * @param count    gets the number
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_darray_size(pgdds_darray_t array, uint64_t *count);
/** Copies count elements from index first into dst; they may span ranks.
 * @param array    the distributed array
 * @param first    the index of the first element
 * @param count    the number of elements
 * @param dst      room for count elements
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for elements past the end */
PGDDS_API pgdds_status_t pgdds_darray_get(pgdds_darray_t array, uint64_t first, uint64_t count, void *dst);
/** Copies count elements from src to index first, visible at the targets on return.
 * @param array    the distributed array
 * @param first    the index of the first element
 * @param count    the number of elements
 * @param src      count elements
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for elements past the end */
PGDDS_API pgdds_status_t pgdds_darray_put(pgdds_darray_t array, uint64_t first, uint64_t count, const void *src);
/** @} */

/** @} */

/* --- Array: every element on one host rank ------------------------------------------------ */
/** @defgroup libpgdds_array Array: every element on one host rank
 * @{ */
typedef struct pgdds_array *pgdds_array_t;
/** Creates an array of count elements on host_rank; collective.
 * @param ctx      the context (pgdds_init)
 * @param elem_size bytes per element
 * @param count    the number of elements
 * @param host_rank the rank that holds them
 * @param array    on success, the new array
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for a host outside the job, PGDDS_ERR_INVALID_ARG,
 *         PGDDS_ERR_NO_MEMORY */
PGDDS_API pgdds_status_t pgdds_array_create(pgdds_context_t ctx, size_t elem_size, uint64_t count, int host_rank,
                                            pgdds_array_t *array);
/** Destroys the array; collective.
 * @param array    the array
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_array_destroy(pgdds_array_t array);
/** The global pointer of element index.
 * @param array    the array
 * @param index    the element
 * @param out      gets its global pointer
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for elements past the end */
PGDDS_API pgdds_status_t pgdds_array_gptr(pgdds_array_t array, uint64_t index, pgdds_gptr_t *out);
/** The host's elements; other ranks get elems NULL and count 0.
 * @param array    the array
 * @param elems    gets the address of the first element
 * @param count    gets the number of elements
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_array_local(pgdds_array_t array, void **elems, uint64_t *count);
/** The number of elements.
 * @param array    the array
 * @param count    gets the number
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_array_size(pgdds_array_t array, uint64_t *count);
/** The rank that holds the elements.
 * @param array    the array
 * @param host_rank gets the rank
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_array_host(pgdds_array_t array, int *host_rank);
/** Copies count elements from index first into dst; returns complete.
 * @param array    the array
 * @param first    the index of the first element
 * @param count    the number of elements
 * @param dst      room for count elements
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for elements past the end */
PGDDS_API pgdds_status_t pgdds_array_get(pgdds_array_t array, uint64_t first, uint64_t count, void *dst);
/** Copies count elements from src to index first, visible at the host on return.
 * @param array    the array
 * @param first    the index of the first element
 * @param count    the number of elements
 * @param src      count elements
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why):
 *         PGDDS_ERR_OUT_OF_BOUNDS for elements past the end */
PGDDS_API pgdds_status_t pgdds_array_put(pgdds_array_t array, uint64_t first, uint64_t count, const void *src);

/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Key tables: the logically addressed space (PDHT)                                            */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_keytable Key tables: the logically addressed space (PDHT)
 * @{ */
/** @} */
/** @addtogroup libpgdds_keytable
 * A key table maps keys (1 to PGDDS_KEYTABLE_MAX_KEY_LEN bytes) to values (0 to max_value_size
 * bytes). A key hashes to an owner rank and 64-bit match bits; each rank holds its keys in a
 * hashed index of match entries in its segment, so any rank finds a key one-sidedly and the
 * cost does not grow with the number of keys (Larkins et al., PDHT, ICPP'18).
 *
 * create/destroy are collective; every rank passes the same parameters (checked). Each rank
 * holds at most capacity_per_rank keys. The segment must have room for the index (64 bytes per
 * key of capacity) and one record per key present (8 + key length rounded up to 8 +
 * max_value_size bytes, allocated at insert).
 *
 * insert  PGDDS_ERR_EXISTS if the key is present; PGDDS_ERR_FULL when the owner holds
 *         capacity_per_rank keys (or, with a poorly spread hash, 256 keys that share match
 *         bits); PGDDS_ERR_NO_MEMORY when the owner's segment has no room for the record.
 * get     *value_len: in, the capacity of value; out, the value's size. A value larger than the
 *         capacity is not truncated: PGDDS_ERR_OUT_OF_BOUNDS, value untouched, and *value_len
 *         set to the size needed (the one output written on failure). PGDDS_ERR_NOT_FOUND.
 * put     replaces the value in place; its size may change, up to max_value_size.
 *         PGDDS_ERR_NOT_FOUND.
 * atomic_u64  an atomic (as pgdds_atomic_u64) on the 8-byte word at value_offset in the value:
 *         value_offset must be a multiple of 8 (PGDDS_ERR_INVALID_ARG) and the word must lie in
 *         the value's current size (PGDDS_ERR_OUT_OF_BOUNDS). Atomics on one word are atomic
 *         with respect to each other, whoever issues them.
 * remove  PGDDS_ERR_NOT_FOUND.
 * foreach_local  visits every key this rank owns (owner-computes). The visitor may change the
 *         value's bytes in place (not its size); each entry is held while it is visited, so
 *         other ranks' operations on it wait. The visitor may call key-table functions, except
 *         on the key it is visiting (PGDDS_ERR_STATE) and foreach_local of the same table.
 *
 * Every operation is atomic per key: a get returns the value of one insert or put (with the
 * words that atomics changed since), never a mixture of two, and sees every operation on the key
 * that completed before it started. Operations on different keys are not ordered.
 *
 * Progress: gets, puts and atomics of existing keys are one-sided, and cost the owner nothing
 * where the transport is. Inserts and removals are active messages handled by the owner inside
 * its pgdds calls (attentiveness): an owner that computes for long without calling the library
 * delays them, unless PGDDS_PROGRESS_THREAD=1 gives every rank a thread that handles them. Each
 * rank keeps at most a few requests in flight to one owner and waits for replies before
 * sending more, so no request is lost however fast inserts come.
 *
 * Thread safety: every function may be called by several threads at once
 * (PGDDS_THREAD_MULTIPLE), except create and destroy. @{ */
typedef struct pgdds_keytable *pgdds_keytable_t;
/** An application's own hash of its keys: 64 bits, the same on every rank for the same
 * key. An application that knows its keys can often give a hash without collisions (PDHT
 * §3.7); keys whose hashes collide still work, told apart by the stored key. */
typedef uint64_t (*pgdds_keytable_hash_t)(const void *key, size_t key_len, void *arg);
/** The optional fields of pgdds_keytable_params_t, read only when their bit is set in
 * field_mask. */
enum {
    PGDDS_KEYTABLE_FIELD_HASH          = 1u << 0,   /* hash, hash_arg (default: XXH3 of the key bytes) */
    PGDDS_KEYTABLE_FIELD_CACHE_ENTRIES = 1u << 1    /* cache_entries (default 16384) */
};
typedef struct pgdds_keytable_params { uint64_t field_mask; size_t max_value_size; uint64_t capacity_per_rank;
    /* Optional fields. */
    pgdds_keytable_hash_t hash;
    void    *hash_arg;
    uint64_t cache_entries;   /* where other ranks' keys were found, remembered by this rank to
                               * read them with two one-sided reads instead of three; 0: none */
} pgdds_keytable_params_t;
/* Limits of keys and values. */
#define PGDDS_KEYTABLE_MAX_KEY_LEN    ((size_t)65536)
#define PGDDS_KEYTABLE_MAX_VALUE_SIZE ((size_t)1 << 27)
/** Creates a key table; collective, with the same params on every rank.
 * @param ctx      the context (pgdds_init)
 * @param params   max_value_size, capacity_per_rank and the optional fields whose bits are set in
 *         params->field_mask
 * @param table    on success, the new key table
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         when the ranks' params differ, PGDDS_ERR_NO_MEMORY when a segment has no room for the
 *         index */
PGDDS_API pgdds_status_t pgdds_keytable_create(pgdds_context_t ctx, const pgdds_keytable_params_t *params, pgdds_keytable_t *table);
/** Destroys the key table; collective.
 * @param table    the key table
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_keytable_destroy(pgdds_keytable_t table);
/** Inserts key with value.
 * @param table    the key table
 * @param key      the key's bytes
 * @param key_len  their count, 1 to PGDDS_KEYTABLE_MAX_KEY_LEN
 * @param value    value_len bytes
 * @param value_len 0 to max_value_size
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_EXISTS if
 *         the key is present, PGDDS_ERR_FULL when the owner holds capacity_per_rank keys,
 *         PGDDS_ERR_NO_MEMORY when the owner's segment has no room */
PGDDS_API pgdds_status_t pgdds_keytable_insert(pgdds_keytable_t table, const void *key, size_t key_len, const void *value, size_t value_len);
/** Copies key's value into value.
 * @param table    the key table
 * @param key      the key's bytes
 * @param key_len  their count, 1 to PGDDS_KEYTABLE_MAX_KEY_LEN
 * @param value    room for *value_len bytes
 * @param value_len in, the capacity of value; out, the value's size
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_NOT_FOUND;
 *         PGDDS_ERR_OUT_OF_BOUNDS when the value is larger than the capacity (value untouched,
 *         *value_len set to the size needed) */
PGDDS_API pgdds_status_t pgdds_keytable_get(pgdds_keytable_t table, const void *key, size_t key_len, void *value, size_t *value_len /* in: capacity, out: size */);
/** Replaces key's value in place; its size may change, up to max_value_size.
 * @param table    the key table
 * @param key      the key's bytes
 * @param key_len  their count, 1 to PGDDS_KEYTABLE_MAX_KEY_LEN
 * @param value    value_len bytes
 * @param value_len 0 to max_value_size
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_NOT_FOUND */
PGDDS_API pgdds_status_t pgdds_keytable_put(pgdds_keytable_t table, const void *key, size_t key_len, const void *value, size_t value_len);
/** An atomic (as pgdds_atomic_u64) on the 8-byte word at value_offset in key's value.
 * @param table    the key table
 * @param key      the key's bytes
 * @param key_len  their count, 1 to PGDDS_KEYTABLE_MAX_KEY_LEN
 * @param value_offset the word's offset in the value, a multiple of 8
 * @param op       the operation (pgdds_aop_t)
 * @param operand  the operand
 * @param fetched  unless NULL, gets the word's old value
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_NOT_FOUND,
 *         PGDDS_ERR_INVALID_ARG (offset not a multiple of 8), PGDDS_ERR_OUT_OF_BOUNDS (the word
 *         past the value's size) */
PGDDS_API pgdds_status_t pgdds_keytable_atomic_u64(pgdds_keytable_t table, const void *key, size_t key_len, size_t value_offset,
                                                   pgdds_aop_t op, uint64_t operand, uint64_t *fetched);
/** Removes key.
 * @param table    the key table
 * @param key      the key's bytes
 * @param key_len  their count, 1 to PGDDS_KEYTABLE_MAX_KEY_LEN
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_NOT_FOUND */
PGDDS_API pgdds_status_t pgdds_keytable_remove(pgdds_keytable_t table, const void *key, size_t key_len);
typedef int (*pgdds_keytable_visit_t)(const void *key, size_t key_len, void *value, size_t value_len, void *arg); /* nonzero stops */
/** Visits every key this rank owns; a nonzero return of visit stops.
 * @param table    the key table
 * @param visit    called with each key, its value (changeable in place, not its size) and arg
 * @param arg      passed to visit
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_STATE when
 *         called from a visitor of the same table's foreach_local (the visitor's calls on the key
 *         it visits fail with it too) */
PGDDS_API pgdds_status_t pgdds_keytable_foreach_local(pgdds_keytable_t table, pgdds_keytable_visit_t visit, void *arg);
/** How this rank's put, atomic_u64 and remove reach a rank's partition (PGDDS_CONTAINER_PROTOCOL,
 * chosen at creation as for the containers). Under PGDDS_PROTOCOL_RPC each is one active message
 * to the owner, which locks, updates and releases the entry on its own memory (asked again while
 * someone else holds it); get stays one-sided and insert is a message to the owner under both.
 * @param table    the key table
 * @param rank     the rank whose partition is meant
 * @param protocol gets PGDDS_PROTOCOL_DIRECT (load/store), PGDDS_PROTOCOL_RDMA or PGDDS_PROTOCOL_RPC
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a NULL handle or output, PGDDS_ERR_OUT_OF_BOUNDS for a rank out of range */
PGDDS_API pgdds_status_t pgdds_keytable_protocol(pgdds_keytable_t table, int rank, int *protocol);
/** How this rank's operation op reaches a rank's partition: put, atomic_u64 and remove take the
 * table's protocol (pgdds_keytable_protocol); get reads one-sidedly under both
 * (PGDDS_PROTOCOL_RDMA, or DIRECT); insert is a message to another owner under both
 * (PGDDS_PROTOCOL_RPC; DIRECT for this rank's own keys).
 * @param table    the key table
 * @param rank     the rank whose partition is meant
 * @param op       PGDDS_CONTAINER_OP_INSERT, _GET, _PUT, _ATOMIC_U64 or _REMOVE
 * @param protocol gets PGDDS_PROTOCOL_DIRECT, PGDDS_PROTOCOL_RDMA or PGDDS_PROTOCOL_RPC
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for a NULL handle or output or another operation, PGDDS_ERR_OUT_OF_BOUNDS for a rank
 *         out of range */
PGDDS_API pgdds_status_t pgdds_keytable_op_protocol(pgdds_keytable_t table, int rank, int op, int *protocol);

/** @} */

/* ------------------------------------------------------------------------------------------ */
/* Introspection: the build, the tuning variables, the transports on this machine              */
/* ------------------------------------------------------------------------------------------ */
/** @defgroup libpgdds_introspection Introspection: the build, the tuning variables, the transports on this machine
 * @{ */
/** @} */
/** @addtogroup libpgdds_introspection
 * These need no context and may be called before pgdds_init or after pgdds_finalize; they are
 * what `pgdds-info` prints. Strings they return are owned by the library and stay valid for
 * the life of the process (pgdds_config_var_t.value: until the environment changes). @{ */

/** The number of build options.
 * Build options are name/value pairs, e.g. ("version", "0.1.0"), ("ofi", "yes"),
 * ("bootstrap", "pmix pmi2 pmi1 singleton"); pgdds_build_option gives each.
 * @return the count */
PGDDS_API int            pgdds_build_option_count(void);
/** The name and value of build option index.
 * @param index    0 to pgdds_build_option_count() - 1
 * @param name     gets the option's name
 * @param value    gets its value
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for an index out of range */
PGDDS_API pgdds_status_t pgdds_build_option(int index, const char **name, const char **value);

/** @name Environment variables
 * The PGDDS_* environment variables, from the table the library parses them with.
 * The caller sets field_mask to the fields it wants; pgdds_config_describe fills those. */
/** @{ */
enum {
    PGDDS_CONFIG_FIELD_NAME        = 1u << 0,
    PGDDS_CONFIG_FIELD_TYPE        = 1u << 1,
    PGDDS_CONFIG_FIELD_DEFAULT     = 1u << 2,
    PGDDS_CONFIG_FIELD_CHOICES     = 1u << 3,
    PGDDS_CONFIG_FIELD_DESCRIPTION = 1u << 4,
    PGDDS_CONFIG_FIELD_VALUE       = 1u << 5
};
typedef struct pgdds_config_var {
    uint64_t    field_mask;
    const char *name;           /* "PGDDS_SEGMENT_SIZE" */
    const char *type;           /* "string", "choice", "size", "count", "bool" or "seconds" */
    const char *default_value;  /* as text, e.g. "256M"; "" when empty */
    const char *choices;        /* "auto|on|off" for a choice, else NULL */
    const char *description;
    const char *value;          /* VALUE: the environment's text, NULL when unset */
    int         value_ok;       /* VALUE: 1 if unset or well-formed; 0 if ill-formed (the default applies) */
} pgdds_config_var_t;
/** The number of PGDDS_* environment variables.
 * @return the count */
PGDDS_API int            pgdds_config_count(void);
/** Fills the fields of var asked for in var->field_mask for variable index.
 * @param index    0 to pgdds_config_count() - 1
 * @param var      field_mask set by the caller (PGDDS_CONFIG_FIELD_*); gets those fields
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for an index out of range */
PGDDS_API pgdds_status_t pgdds_config_describe(int index, pgdds_config_var_t *var);
/** @} */

/** @name Transports
 * What each transport finds on this machine, probed without a job: one entry per
 * libfabric provider, UCX transport layer, RDMA device, plus the shared-memory path, and one
 * entry for each backend not in this build. pgdds_transport_probe probes once per process
 * (thread-safe) and gives the number of entries; pgdds_transport_describe fills the fields
 * asked for in attr->field_mask. */
/** @{ */
enum {
    PGDDS_TRANSPORT_FIELD_TRANSPORT = 1u << 0,
    PGDDS_TRANSPORT_FIELD_COMPONENT = 1u << 1,
    PGDDS_TRANSPORT_FIELD_BUILT     = 1u << 2,
    PGDDS_TRANSPORT_FIELD_USABLE    = 1u << 3,
    PGDDS_TRANSPORT_FIELD_ATOMICS   = 1u << 4,
    PGDDS_TRANSPORT_FIELD_PROGRESS  = 1u << 5,
    PGDDS_TRANSPORT_FIELD_DETAIL    = 1u << 6
};
typedef struct pgdds_transport_attr {
    uint64_t    field_mask;
    const char *transport;   /* "shm", "ofi", "ucx", "verbs" */
    const char *component;   /* provider / transport layer / device, e.g. "tcp;ofi_rxm"; "" for the backend */
    int         built;       /* 1 if the backend is in this build */
    int         usable;      /* 1: pgdds would run over it here; 0: it would not; -1: unknown */
    const char *atomics;     /* "cpu", "native", "emulated (active messages)", ...; "" unknown */
    const char *progress;    /* "auto": completes without the target's help; "manual"; "" unknown */
    const char *detail;      /* one line: version, limits, or why it is unusable */
} pgdds_transport_attr_t;
/** Probes what each transport finds on this machine, once per process (thread-safe).
 * @param count    gets the number of entries
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why) */
PGDDS_API pgdds_status_t pgdds_transport_probe(int *count);
/** Fills the fields of attr asked for in attr->field_mask for entry index.
 * @param index    0 to the count of pgdds_transport_probe, minus 1
 * @param attr     field_mask set by the caller (PGDDS_TRANSPORT_FIELD_*); gets those fields
 * @return PGDDS_OK, or a negative status code (pgdds_last_error() says why): PGDDS_ERR_INVALID_ARG
 *         for an index out of range */
PGDDS_API pgdds_status_t pgdds_transport_describe(int index, pgdds_transport_attr_t *attr);
/** @} */

/** Records a failure as the calling thread's pgdds_last_error().
 * For language bindings that validate arguments themselves (the Fortran module): records message
 * as the calling thread's pgdds_last_error() and returns status, which must be a PGDDS_ERR_* code
 * (negative).
 * @param status   the PGDDS_ERR_* code to return
 * @param message  the explanation (copied)
 * @return status; PGDDS_ERR_INVALID_ARG when status is not negative or message is NULL */
PGDDS_API pgdds_status_t pgdds_set_last_error(pgdds_status_t status, const char *message);

/** @} */

#ifdef __cplusplus
}
#endif
#endif /* PGDDS_H */
