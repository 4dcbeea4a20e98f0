/* A rank killed (PGDDS_FAULT: SIGKILL inside the library) while the others work with it:
 *   barrier    in a barrier
 *   hashmap    inside a hash map insert, holding a bucket's chain lock
 *   queue      inside a circular queue push, its slots reserved but not published
 *   late       (no fault) rank 1 starts a minute late: with PGDDS_TIMEOUT the others'
 *              pgdds_init fails in time
 * The survivors must fail with PGDDS_ERR_PEER_FAILED naming the dead rank, in seconds, then
 * finalize, which ends the job through the launcher. Rank 0 prints "JOB <id>" for the leftover
 * checks of tests/check_job_end.sh. */
#include <pgdds/pgdds.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double t_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void report(int me, const char *what, pgdds_status_t st)
{
    fprintf(stderr, "rank %d: %s failed with %d (%s): %s\n", me, what, st, pgdds_strerror(st), pgdds_last_error());
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    const char *pmi_rank = getenv("PMI_RANK") ? getenv("PMI_RANK") : getenv("PMIX_RANK");
    if (pmi_rank && strcmp(pmi_rank, "0") == 0) {
        const char *job = getenv("PGDDS_JOBID");
        printf("JOB %s\n", job ? job : "none");
        fflush(stdout);
    }
    if (strcmp(what, "late") == 0 && pmi_rank && strcmp(pmi_rank, "1") == 0)
        sleep(60); /* a rank that starts late: the others' pgdds_init must end within PGDDS_TIMEOUT */
    pgdds_context_t ctx;
    pgdds_status_t st = pgdds_init(NULL, &ctx);
    if (st != PGDDS_OK) {
        fprintf(stderr, "pgdds_init failed with %d (%s): %s\n", st, pgdds_strerror(st), pgdds_last_error());
        return 1;
    }
    int me = pgdds_rank(ctx);
    if (strcmp(what, "barrier") == 0) {
        /* The victim dies after its first message: ranks that had heard from it through others
         * may complete that barrier (it was in it), but not the next one. */
        for (int i = 0; st == PGDDS_OK && i < 1000; ++i) st = pgdds_barrier(ctx);
    } else if (strcmp(what, "hashmap") == 0) {
        pgdds_hashmap_params_t p = {0, 8, 8, 4096};
        pgdds_hashmap_t map;
        st = pgdds_hashmap_create(ctx, &p, &map);
        /* Every rank inserts the same keys over and over: the victim dies at its first collision,
         * holding that bucket's chain lock, and the others reach the bucket on a later pass. */
        for (int pass = 0; st == PGDDS_OK && pass < 100000; ++pass)
            for (uint64_t k = 0; st == PGDDS_OK && k < 1024; ++k) st = pgdds_hashmap_insert(map, &k, &k, 0);
    } else if (strcmp(what, "queue") == 0) {
        pgdds_queue_params_t p = {0, PGDDS_QUEUE_CIRCULAR, 8, 1u << 20, 0};
        pgdds_queue_t q;
        st = pgdds_queue_create(ctx, &p, &q);
        /* The victim dies in its first push; the others' pushes wait for its slots to be
         * published. Until then (the victim may start late) they push on, making room by
         * popping when the queue is full, for at most a minute. */
        double start = t_seconds();
        for (uint64_t i = 0; st == PGDDS_OK && t_seconds() - start < 60; ++i) {
            st = pgdds_queue_push(q, &i, 1, 0);
            if (st == PGDDS_ERR_FULL) {
                uint64_t e;
                size_t popped;
                st = pgdds_queue_pop(q, &e, 1, &popped, 0);
                if (st == PGDDS_ERR_EMPTY) st = PGDDS_OK; /* others popped it: push again */
            }
        }
    } else {
        fprintf(stderr, "usage: %s barrier|hashmap|queue\n", argv[0]);
        return 2;
    }
    if (st == PGDDS_OK) {
        fprintf(stderr, "rank %d: %s ended without noticing the dead rank\n", me, what);
        return 1;
    }
    report(me, what, st);
    /* After a peer failure finalize ends the job through the launcher and does not return. */
    st = pgdds_finalize(ctx);
    report(me, "pgdds_finalize", st);
    return 1;
}
