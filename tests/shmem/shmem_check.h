/* Checks for the OpenSHMEM test programs, which use <shmem.h> only: a failed check prints the
 * PE, file and line and counts; shmem_check_end() synchronizes, finalizes and gives the exit
 * status (0: every check of this PE passed). */
#ifndef PGDDS_SHMEM_CHECK_H
#define PGDDS_SHMEM_CHECK_H

#include <shmem.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sc_failures = 0;

#define CHECK(cond)                                                                               \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            ++sc_failures;                                                                        \
            fprintf(stderr, "FAIL PE %d %s:%d: %s\n", shmem_my_pe(), __FILE__, __LINE__, #cond);  \
        }                                                                                         \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                      \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            ++sc_failures;                                                                        \
            fprintf(stderr, "FAIL PE %d %s:%d: %s: ", shmem_my_pe(), __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
        }                                                                                         \
    } while (0)

/* The one reason to skip: the configuration asks for verbs and this machine has no RDMA device
 * (shmem_init would end the program: the transport is absent). */
static inline void shmem_check_skip_if_absent(void)
{
    const char *want = getenv("PGDDS_TRANSPORT");
    if (want && strcmp(want, "verbs") == 0) {
        DIR *d = opendir("/sys/class/infiniband");
        int devices = 0;
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) devices += e->d_name[0] != '.';
        if (d) closedir(d);
        if (!devices) {
            fprintf(stderr, "SKIP: no RDMA device (/sys/class/infiniband is empty) for PGDDS_TRANSPORT=verbs\n");
            exit(77);
        }
    }
}

static inline void shmem_check_start(void)
{
    shmem_check_skip_if_absent();
    shmem_init();
}

static inline int shmem_check_end(void)
{
    int me = shmem_my_pe();
    shmem_finalize();
    /* Printed after shmem_finalize: the program goes on after it. */
    if (sc_failures) fprintf(stderr, "PE %d: %d check(s) failed\n", me, sc_failures);
    else printf("PE %d: every check passed; finalized\n", me);
    return sc_failures ? 1 : 0;
}

#endif
