/* A rank of the hostile-conditions tests (check_hostile.sh drives it). Rank 0 prints
 * "JOB <id>"; every rank prints "READY <rank> <pid>" once initialized. Cases (argv[1]):
 *   fill N   create a hash map of N entries per rank (zero-filling its pages), insert and find
 *            1000 keys per rank, finalize
 *   wait     sleep for a minute inside the job (the launcher is killed meanwhile)
 *   deaf     ignore SIGTERM, then wait in barriers for a minute (rank 1 joins 2 s late): only
 *            the library can notice that the launcher is gone
 *   early-exit  rank 1 exits 0 before pgdds_init; the others' start-up must name it
 *   disagree rank 1 asks for the ofi transport, the others for shm: start-up fails on every
 *            rank with PGDDS_ERR_STARTUP (a fault, not "unsupported")
 *   decoy    like fill 1000, after creating /dev/shm files that look like this rank's but are
 *            not the job's: "<pid>:decoy", "fi_shm_<pid>_decoy", "decoy_<pid>_x", the first two
 *            owned by another user (uid 65534) */
#include "harness.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

static void decoys(void)
{
    const char *fmt[] = {"/dev/shm/%d:decoy", "/dev/shm/fi_shm_%d_decoy", "/dev/shm/decoy_%d_x"};
    for (int i = 0; i < 3; ++i) {
        char path[128];
        snprintf(path, sizeof path, fmt[i], (int)getpid());
        int fd = open(path, O_CREAT | O_WRONLY, 0644);
        T_CHECK_MSG(fd >= 0, "cannot create %s", path);
        if (fd >= 0 && i < 2) T_CHECK_MSG(fchown(fd, 65534, 65534) == 0, "cannot give %s away", path);
        if (fd >= 0) close(fd);
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "fill";
    const char *pmi_rank = getenv("PMI_RANK");
    if (strcmp(what, "early-exit") == 0 && pmi_rank && atoi(pmi_rank) == 1) return 0;
    if (strcmp(what, "disagree") == 0 && pmi_rank && atoi(pmi_rank) == 1) {
        setenv("PGDDS_TRANSPORT", "ofi", 1);
        setenv("PGDDS_OFI_PROVIDER", "tcp;ofi_rxm", 1);
    }
    pgdds_context_t ctx = NULL;
    pgdds_status_t st = pgdds_init(NULL, &ctx);
    if (st != PGDDS_OK) {
        fprintf(stderr, "init failed: %s: %s\n", pgdds_strerror(st), pgdds_last_error());
        return 2;
    }
    t_rank = pgdds_rank(ctx);
    if (t_rank == 0) {
        const char *job = getenv("PGDDS_JOBID");
        printf("JOB %s\n", job ? job : "none");
    }
    printf("READY %d %d\n", t_rank, (int)getpid());
    fflush(stdout);
    if (strcmp(what, "deaf") == 0) {
        signal(SIGTERM, SIG_IGN);
        if (t_rank == 1) sleep(2);
        for (double start = t_seconds(); t_seconds() - start < 60;) {
            st = pgdds_barrier(ctx);
            if (st != PGDDS_OK) {
                fprintf(stderr, "rank %d: barrier: %s: %s\n", t_rank, pgdds_strerror(st), pgdds_last_error());
                return 1;
            }
        }
        return t_finish(ctx, "hostile deaf");
    }
    if (strcmp(what, "wait") == 0) {
        sleep(60);
        return t_finish(ctx, "hostile wait");
    }
    uint64_t per_rank = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
    if (strcmp(what, "decoy") == 0) decoys();
    /* room to spare: keys are not spread evenly over the buckets */
    pgdds_hashmap_params_t p = {0, 8, 8, (per_rank + 4000) * (uint64_t)pgdds_nranks(ctx)};
    pgdds_hashmap_t map = NULL;
    st = pgdds_hashmap_create(ctx, &p, &map);
    if (st != PGDDS_OK) {
        fprintf(stderr, "rank %d: hash map of %llu entries: %s: %s\n", t_rank, (unsigned long long)p.capacity,
                pgdds_strerror(st), pgdds_last_error());
        pgdds_finalize(ctx);
        return 3;
    }
    for (uint64_t i = 0; i < 1000; ++i) {
        uint64_t k = (uint64_t)t_rank * 1000 + i, v = k * 3;
        T_OK(pgdds_hashmap_insert(map, &k, &v, 0));
    }
    T_OK(pgdds_barrier(ctx));
    for (uint64_t i = 0; i < 1000; ++i) {
        uint64_t k = (uint64_t)((t_rank + 1) % pgdds_nranks(ctx)) * 1000 + i, v = 0;
        T_OK(pgdds_hashmap_find(map, &k, &v, 0));
        T_CHECK(v == k * 3);
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_destroy(map));
    return t_finish(ctx, "hostile fill");
}
