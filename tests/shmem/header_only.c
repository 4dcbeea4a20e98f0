/* shmem.h on its own, strict: as C11 (with the generics), C99 (without) and C++17. */
#include <shmem.h>

long shmem_header_only(long *x, int pe);
long shmem_header_only(long *x, int pe)
{
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    shmem_p(x, 1L, pe);
    shmem_atomic_add(SHMEM_CTX_DEFAULT, x, 2L, pe);
    shmem_wait_until(x, SHMEM_CMP_GE, 3L);
    return shmem_g(x, pe);
#else
    shmem_long_p(x, 1L, pe);
    return shmem_long_g(x, pe);
#endif
}
