/* One-sided access to GPU memory: put and get (blocking, nbi, nb) between every pair of host
 * and device buffers and segments, with each rank's right-hand neighbour (its own segment on one
 * rank), at sizes that cross the 1 MiB message and 4 MiB staging chunks; atomics on a device
 * word from every rank; the device addresses pgdds_gptr_to_local gives; bad input. Run with
 * PGDDS_GPU_SEGMENT_SIZE set; PGDDS_GPU_IPC=0 sends every access to a peer's device segment
 * through its owner, as across nodes. */
#include "gpu_check.h"

#include <stdlib.h>
#include <string.h>

enum { regions = 3, iters = 50 };
static const size_t sizes[] = {8, 4096 + 3, (9u << 20) + 5};
#define MAX_SIZE ((9u << 20) + 5)

static void fill(unsigned char *p, size_t n, int rank, int salt)
{
    for (size_t i = 0; i < n; ++i) p[i] = t_pattern(rank, i + (size_t)salt);
}

/* Counts the bytes of p that differ from rank's pattern. */
static size_t wrong(const unsigned char *p, size_t n, int rank, int salt)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += p[i] != t_pattern(rank, i + (size_t)salt);
    return bad;
}

/* The bytes of a device range, in a host copy. */
static unsigned char *device_copy(const void *dev, size_t n)
{
    unsigned char *h = malloc(n);
    G_CUDA(cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost));
    return h;
}

static int is_device_pointer(const void *p)
{
    struct cudaPointerAttributes a;
    return p && cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice;
}

int main(void)
{
    g_skip_without_device();
    /* The buffers are filled with cudaMemset and cudaMemcpy on the legacy default stream just
     * before the calls that read them: libpgdds orders its copies after that stream's work. */
    pgdds_context_t ctx = t_init(NULL);
    const int me = pgdds_rank(ctx), n = pgdds_nranks(ctx), right = (me + 1) % n, left = (me + n - 1) % n;
    const char *ipc_env = getenv("PGDDS_GPU_IPC");
    const int ipc = !(ipc_env && strcmp(ipc_env, "0") == 0);

    int device = -2;
    T_OK(pgdds_gpu_device(ctx, &device));
    T_CHECK_MSG(device >= 0, "pgdds_gpu_device gave %d", device);

    /* Each rank: a device block and a host block of `regions` regions, known to every rank. */
    pgdds_gptr_t mine[2] = {0, 0}, *all = calloc((size_t)n * 2, sizeof *all);
    T_OK(pgdds_alloc_kind(ctx, PGDDS_MEMORY_CUDA, regions * MAX_SIZE, 0, &mine[0]));
    T_OK(pgdds_alloc_kind(ctx, PGDDS_MEMORY_HOST, regions * MAX_SIZE, 0, &mine[1]));
    T_CHECK(pgdds_gptr_kind(mine[0]) == PGDDS_MEMORY_CUDA && pgdds_gptr_kind(mine[1]) == PGDDS_MEMORY_HOST);
    T_OK(pgdds_allgather(ctx, mine, all, sizeof mine));
    pgdds_gptr_t right_dev = all[2 * right], right_host = all[2 * right + 1];

    /* pgdds_gptr_to_local: device addresses for this rank's and, with IPC, its node's. */
    unsigned char *my_dev = pgdds_gptr_to_local(ctx, mine[0]);
    unsigned char *my_host = pgdds_gptr_to_local(ctx, mine[1]);
    T_CHECK_MSG(is_device_pointer(my_dev), "pgdds_gptr_to_local of this rank's device block gave %p", (void *)my_dev);
    T_CHECK(my_host && !is_device_pointer(my_host));
    void *peer = pgdds_gptr_to_local(ctx, right_dev);
    if (right != me && pgdds_local_nranks(ctx) == n)
        T_CHECK_MSG(ipc ? is_device_pointer(peer) : peer == NULL, "a peer's device block mapped at %p (IPC %s)", peer,
                    ipc ? "on" : "off");

    unsigned char *ldev = NULL, *lhost = malloc(MAX_SIZE), *scratch = malloc(MAX_SIZE);
    G_CUDA(cudaMalloc((void **)&ldev, MAX_SIZE));

    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
        const size_t sz = sizes[k];
        /* Puts to the right-hand neighbour: host->device (blocking), device->device (nbi, then a
         * flush), device->host (nb, then a wait). */
        fill(lhost, sz, me, 1);
        fill(scratch, sz, me, 2);
        G_CUDA(cudaMemcpy(ldev, scratch, sz, cudaMemcpyHostToDevice));
        T_OK(pgdds_put(ctx, right_dev, lhost, sz));
        T_OK(pgdds_put_nbi(ctx, pgdds_gptr_add(right_dev, MAX_SIZE), ldev, sz));
        T_OK(pgdds_flush(ctx));
        pgdds_request_t req = NULL;
        T_OK(pgdds_put_nb(ctx, right_host, ldev, sz, &req));
        T_OK(pgdds_wait(ctx, req));
        T_OK(pgdds_barrier(ctx));
        unsigned char *got = device_copy(my_dev, sz);
        T_CHECK_MSG(!wrong(got, sz, left, 1), "host->device put of %zu bytes from rank %d", sz, left);
        free(got);
        got = device_copy(my_dev + MAX_SIZE, sz);
        T_CHECK_MSG(!wrong(got, sz, left, 2), "device->device put of %zu bytes from rank %d", sz, left);
        free(got);
        T_CHECK_MSG(!wrong(my_host, sz, left, 2), "device->host put of %zu bytes from rank %d", sz, left);
        T_OK(pgdds_barrier(ctx));

        /* Gets from the right-hand neighbour's blocks, which hold its left's (this rank's)
         * patterns now: device->host (blocking), device->device (nbi), host->device (nb). */
        memset(lhost, 0, sz);
        T_OK(pgdds_get(ctx, lhost, right_dev, sz));
        T_CHECK_MSG(!wrong(lhost, sz, me, 1), "device->host get of %zu bytes from rank %d", sz, right);
        G_CUDA(cudaMemset(ldev, 0, sz));
        T_OK(pgdds_get_nbi(ctx, ldev, pgdds_gptr_add(right_dev, MAX_SIZE), sz));
        T_OK(pgdds_flush(ctx));
        got = device_copy(ldev, sz);
        T_CHECK_MSG(!wrong(got, sz, me, 2), "device->device get of %zu bytes from rank %d", sz, right);
        free(got);
        G_CUDA(cudaMemset(ldev, 0, sz));
        T_OK(pgdds_get_nb(ctx, ldev, right_host, sz, &req));
        T_OK(pgdds_wait(ctx, req));
        got = device_copy(ldev, sz);
        T_CHECK_MSG(!wrong(got, sz, me, 2), "host->device get of %zu bytes from rank %d", sz, right);
        free(got);
        T_OK(pgdds_barrier(ctx));
    }

    /* Atomics on rank 0's device words: every rank adds 1 `iters` times to a 64- and a 32-bit
     * counter; the fetched values are all different, so the sum of the fetches is known. */
    const size_t words = (2 * MAX_SIZE + 63) & ~(size_t)63; /* an aligned place in the third region */
    pgdds_gptr_t counter = pgdds_gptr_add(all[0], (int64_t)words + 3), counter64 = pgdds_gptr_add(all[0], (int64_t)words + 8);
    pgdds_gptr_t counter32 = pgdds_gptr_add(all[0], (int64_t)words + 16);
    if (me == 0) G_CUDA(cudaMemset(my_dev + words, 0, 64));
    T_OK(pgdds_barrier(ctx));
    uint64_t seen_sum = 0;
    for (int i = 0; i < iters; ++i) {
        uint64_t old64 = 0;
        uint32_t old32 = 0;
        T_OK(pgdds_atomic_u64(ctx, counter64, PGDDS_AOP_ADD, 1, &old64));
        T_OK(pgdds_atomic_u32(ctx, counter32, PGDDS_AOP_ADD, 1, &old32));
        seen_sum += old64;
    }
    T_OK(pgdds_barrier(ctx));
    uint64_t total64 = 0, sum_all = 0;
    uint32_t total32 = 0;
    T_OK(pgdds_get(ctx, &total64, counter64, 8));
    T_OK(pgdds_atomic_load_u32(ctx, counter32, &total32));
    T_CHECK_MSG(total64 == (uint64_t)n * iters, "64-bit device counter %llu, expected %d", (unsigned long long)total64,
                n * iters);
    T_CHECK_MSG(total32 == (uint32_t)(n * iters), "32-bit device counter %u, expected %d", total32, n * iters);
    T_OK(pgdds_allreduce(ctx, &seen_sum, &sum_all, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    const uint64_t m = (uint64_t)n * iters;
    T_CHECK_MSG(sum_all == m * (m - 1) / 2, "the fetched values sum to %llu, expected %llu (a value fetched twice?)",
                (unsigned long long)sum_all, (unsigned long long)(m * (m - 1) / 2));
    /* Compare-and-swap: exactly one rank swaps the 64-bit counter from its total. */
    T_OK(pgdds_barrier(ctx));
    uint64_t before = 0;
    T_OK(pgdds_atomic_cswap_u64(ctx, counter64, total64, 1000000 + (uint64_t)me, &before));
    int64_t won = before == total64, winners = 0;
    T_OK(pgdds_allreduce(ctx, &won, &winners, 1, PGDDS_INT64, PGDDS_OP_SUM));
    T_CHECK_MSG(winners == 1, "%lld ranks won the compare-and-swap", (long long)winners);

    /* Bad input: past the device segment, a misaligned atomic, more than the segment holds, a
     * device pointer into the reserved page. */
    T_STATUS(pgdds_put(ctx, pgdds_gptr_add(right_dev, 1ll << 36), lhost, 8), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_get(ctx, ldev, pgdds_gptr_add(right_dev, 1ll << 36), 8), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_atomic_u64(ctx, counter, PGDDS_AOP_ADD, 1, NULL), PGDDS_ERR_INVALID_ARG);
    pgdds_gptr_t huge = 0;
    T_STATUS(pgdds_alloc_kind(ctx, PGDDS_MEMORY_CUDA, (size_t)1 << 39, 0, &huge), PGDDS_ERR_NO_MEMORY);
    T_STATUS(pgdds_put(ctx, pgdds_gptr_add(right_dev, -(int64_t)pgdds_gptr_offset(right_dev)), lhost, 8),
             PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK(pgdds_gptr_to_local(ctx, pgdds_gptr_add(right_dev, 1ll << 36)) == NULL);

    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_free(ctx, mine[0]));
    T_OK(pgdds_free(ctx, mine[1]));
    T_STATUS(pgdds_free(ctx, mine[0]), PGDDS_ERR_INVALID_ARG);
    G_CUDA(cudaFree(ldev));
    free(lhost);
    free(scratch);
    free(all);
    return t_finish(ctx, "gpu rma");
}
