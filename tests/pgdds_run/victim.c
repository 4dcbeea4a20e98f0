/* A program that fails on purpose, for the launcher tests. Rank 0 prints "JOB <id>" so the test
 * can look for the job's leftovers. Cases (argv[1]):
 *   ok          every rank finalizes and exits 0
 *   segv        the last rank dereferences NULL while the others wait in a barrier
 *   abort       rank 1 calls abort()
 *   exit3       rank 1 exits with code 3 without finalizing
 *   nofinalize  rank 1 returns 0 without finalizing
 *   orphan      rank 1 starts a long-lived child process, then segfaults
 *   hang        every rank sleeps (for --timeout)
 *   peerdeath   rank 1 is SIGKILLed; the others must see PGDDS_ERR_PEER_FAILED in a barrier */
#include <pgdds/pgdds.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "ok";
    pgdds_context_t ctx;
    if (pgdds_init(NULL, &ctx) != PGDDS_OK) {
        fprintf(stderr, "init: %s\n", pgdds_last_error());
        return 2;
    }
    int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    if (me == 0) {
        const char *job = getenv("PGDDS_JOBID");
        printf("JOB %s\n", job ? job : "none");
        fflush(stdout);
    }
    pgdds_barrier(ctx);
    int victim = strcmp(what, "segv") == 0 ? n - 1 : 1;
    /* An unmapped address that sanitizers do not flag as undefined behaviour before the fault. */
    volatile char *wild = (volatile char *)(uintptr_t)strtoul("16", NULL, 10);
    if (me == victim) {
        if (strcmp(what, "segv") == 0) {
            *wild = 1;
        } else if (strcmp(what, "abort") == 0) {
            abort();
        } else if (strcmp(what, "exit3") == 0) {
            exit(3);
        } else if (strcmp(what, "nofinalize") == 0) {
            return 0;
        } else if (strcmp(what, "orphan") == 0) {
            if (fork() == 0) {
                execlp("sleep", "sleep", "300", (char *)NULL);
                _exit(1);
            }
            usleep(100000);
            *wild = 1;
        } else if (strcmp(what, "peerdeath") == 0) {
            kill(getpid(), SIGKILL);
        }
    }
    if (strcmp(what, "hang") == 0) sleep(300);
    pgdds_status_t st = pgdds_barrier(ctx);
    if (st != PGDDS_OK) {
        printf("rank %d: barrier failed with %d (%s): %s\n", me, st, pgdds_strerror(st), pgdds_last_error());
        fflush(stdout);
        return st == PGDDS_ERR_PEER_FAILED ? 42 : 1;
    }
    return pgdds_finalize(ctx) == PGDDS_OK ? 0 : 1;
}
