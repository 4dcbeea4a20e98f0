/* The deprecated active-set collectives over every PE, as OpenSHMEM 1.4 programs (and
 * Open MPI's oshmem, which has only these) use them: pSync and pWrk as such programs declare
 * them (static, unused here). */
#include "shmem_check.h"

#include <complex.h>
#include <stdint.h>

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int main(void)
{
    shmem_check_start();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) pSync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier(0, 0, n, pSync);
    shmem_sync(0, 0, n, pSync);

    uint64_t src[4] = {(uint64_t)me, 2, 3, 4}, dst[64];
    for (int i = 0; i < 64; ++i) dst[i] = 99;
    shmem_broadcast64(dst, src, 4, 0, 0, 0, n, pSync);
    if (me == 0) CHECK(dst[0] == 99);   /* 1.4: the root's dest is left alone */
    else CHECK(dst[0] == 0 && dst[3] == 4);

    shmem_fcollect64(dst, src, 1, 0, 0, n, pSync);
    int ok = 1;
    for (int r = 0; r < n; ++r) ok &= dst[r] == (uint64_t)r;
    CHECK(ok);
    uint32_t s32[3] = {(uint32_t)me, (uint32_t)me, (uint32_t)me}, d32[64];
    shmem_collect32(d32, s32, (size_t)(me % 2 + 1), 0, 0, n, pSync);
    ok = 1;
    for (int r = 0, at = 0; r < n; at += r % 2 + 1, ++r) ok &= d32[at] == (uint32_t)r && d32[at + r % 2] == (uint32_t)r;
    CHECK(ok);
    uint64_t a_in[16], a_out[16];
    for (int j = 0; j < n; ++j) a_in[j] = (uint64_t)(100 * me + j);
    shmem_alltoall64(a_out, a_in, 1, 0, 0, n, pSync);
    ok = 1;
    for (int i = 0; i < n; ++i) ok &= a_out[i] == (uint64_t)(100 * i + me);
    CHECK(ok);
    uint32_t s_in[32], s_out[32];
    for (int j = 0; j < n; ++j) s_in[2 * j] = (uint32_t)(10 * me + j);
    shmem_alltoalls32(s_out, s_in, 1, 2, 1, 0, 0, n, pSync);
    ok = 1;
    for (int i = 0; i < n; ++i) ok &= s_out[i] == (uint32_t)(10 * i + me);
    CHECK(ok);

    int iv = me + 1, isum = 0;
    shmem_int_sum_to_all(&isum, &iv, 1, 0, 0, n, (int *)pWrk, pSync);
    CHECK(isum == n * (n + 1) / 2);
    long lv = ~(1L << me), land = 0;
    shmem_long_and_to_all(&land, &lv, 1, 0, 0, n, pWrk, pSync);
    CHECK(land == ~((1L << n) - 1));
    double dv = -1.0 * me, dmax = 5;
    shmem_double_max_to_all(&dmax, &dv, 1, 0, 0, n, (double *)pWrk, pSync);
    CHECK(dmax == 0.0);
    short sv = (short)(me + 1), sprod = 0, fact = 1;
    for (int i = 2; i <= n; ++i) fact = (short)(fact * i);
    shmem_short_prod_to_all(&sprod, &sv, 1, 0, 0, n, (short *)pWrk, pSync);
    CHECK(sprod == fact);
    double _Complex z = me * I, zsum = 0;
    shmem_complexd_sum_to_all(&zsum, &z, 1, 0, 0, n, (double _Complex *)pWrk, pSync);
    CHECK(creal(zsum) == 0 && cimag(zsum) == n * (n - 1) / 2);
    shmem_barrier_all();
    return shmem_check_end();
}
