/* A classic OpenSHMEM program, built with pgdds-oshcc exactly as with any OpenSHMEM's oshcc:
 * each PE passes its number round a ring, counts into PE 0 with atomics, and checks a
 * reduction, then says hello. It exits 1 when a value is wrong. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int *ring = (int *)shmem_malloc(sizeof(int));
    long *count = (long *)shmem_calloc(1, sizeof(long));
    *ring = -1;
    shmem_barrier_all();

    shmem_int_p(ring, me, (me + 1) % npes);
    shmem_long_atomic_inc(count, 0);
    shmem_barrier_all();

    int total = 0;
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &total, &me, 1);
    int ok = *ring == (me + npes - 1) % npes && total == npes * (npes - 1) / 2;
    if (me == 0) ok = ok && *count == npes;
    printf("Hello from PE %d of %d: %s\n", me, npes, ok ? "ring and sums right" : "WRONG");

    shmem_free(count);
    shmem_free(ring);
    shmem_finalize();
    return ok ? 0 : 1;
}
