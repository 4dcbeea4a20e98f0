/* How an OpenSHMEM job ends on purpose or on misuse: `global-exit` has PE 1 call
 * shmem_global_exit(3) while the others wait in a barrier (the job must end with status 3);
 * `bad-address` has every PE put to a stack address, which is not symmetric (the job must end
 * with status 1 and a message naming the routine and the address). */
#include <shmem.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (argc > 1 && strcmp(argv[1], "global-exit") == 0) {
        if (me == 1 % n) shmem_global_exit(3);
        shmem_barrier_all();
        shmem_barrier_all();
    } else {
        long local = 0;
        shmem_long_p(&local, 1, (me + 1) % n);
    }
    shmem_finalize();
    return 0;
}
