#include <pgdds/pgdds.h>
#include <stdio.h>
#include <stdlib.h>

static void check(pgdds_status_t st, const char *what)
{
    if (st != PGDDS_OK) {
        fprintf(stderr, "%s failed (%s): %s\n", what, pgdds_strerror(st), pgdds_last_error());
        exit(1);
    }
}

/* A token goes round the ring of ranks `laps` times; each hop is one put-with-signal, and each
 * rank waits on its own signal word, which says which hop brought the token. */
int main(void)
{
    enum { LAPS = 10 };
    pgdds_context_t ctx;
    check(pgdds_init(NULL, &ctx), "pgdds_init");
    int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);

    pgdds_gptr_t token, arrived, next_token, next_arrived;
    check(pgdds_alloc_all(ctx, sizeof(uint64_t), 8, PGDDS_ALLOC_ZERO, &token), "pgdds_alloc_all");
    check(pgdds_alloc_all(ctx, sizeof(uint64_t), 8, PGDDS_ALLOC_ZERO, &arrived), "pgdds_alloc_all");
    check(pgdds_gptr_at(ctx, token, (me + 1) % n, &next_token), "pgdds_gptr_at");
    check(pgdds_gptr_at(ctx, arrived, (me + 1) % n, &next_arrived), "pgdds_gptr_at");
    const uint64_t *my_token = pgdds_gptr_to_local(ctx, token);

    for (uint64_t hop = (uint64_t)me; hop < (uint64_t)LAPS * (uint64_t)n; hop += (uint64_t)n) {
        if (hop > 0) {  /* wait for hop number `hop` to bring the token here */
            check(pgdds_wait_until_u64(ctx, arrived, PGDDS_CMP_EQ, hop), "pgdds_wait_until_u64");
            if (*my_token != hop * 10) {
                fprintf(stderr, "rank %d: the token says %llu at hop %llu\n", me, (unsigned long long)*my_token,
                        (unsigned long long)hop);
                exit(1);
            }
        }
        uint64_t value = (hop + 1) * 10;  /* the data, then the signal: hop + 1 */
        check(pgdds_put_signal(ctx, next_token, &value, sizeof value, next_arrived, hop + 1, PGDDS_SIGNAL_SET),
              "pgdds_put_signal");
    }
    if (me == 0) {  /* the last hop comes home */
        check(pgdds_wait_until_u64(ctx, arrived, PGDDS_CMP_EQ, (uint64_t)LAPS * (uint64_t)n), "pgdds_wait_until_u64");
        printf("the token went %d times round %d ranks\n", LAPS, n);
    }
    check(pgdds_free_all(ctx, arrived), "pgdds_free_all");
    check(pgdds_free_all(ctx, token), "pgdds_free_all");
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return 0;
}
