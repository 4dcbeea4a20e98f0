/* A hash map over PGDDS_PROTOCOL_RPC waits for the owner of a key to run the call: an owner that
 * stays away from the library turns a find into PGDDS_ERR_TIMEOUT under PGDDS_TIMEOUT, with a
 * message naming it, and the map works again once the owner is back. Under
 * PGDDS_PROGRESS_THREAD=1 the owner's progress thread serves the call while its program sleeps:
 * the find succeeds. Rank 1 is the owner that sleeps (and every rank but 0); rank 0 calls it. Runs where rank 0
 * reaches rank 1's part through the network (PGDDS_SHM=off). */
#include "common.h"

#include <unistd.h>

int main(void)
{
    pgdds_context_t ctx = t_init(NULL);
    const int me = pgdds_rank(ctx);
    const char *timeout_text = getenv("PGDDS_TIMEOUT"), *thread = getenv("PGDDS_PROGRESS_THREAD");
    const double timeout = timeout_text ? atof(timeout_text) : 0;
    const int served_while_away = thread && strcmp(thread, "1") == 0;
    T_CHECK_MSG(timeout > 0, "the test needs PGDDS_TIMEOUT set (it is %s)", timeout_text ? timeout_text : "unset");

    pgdds_hashmap_params_t p = {0, sizeof(uint64_t), sizeof(struct t_value), 1024};
    pgdds_hashmap_options_t o;
    memset(&o, 0, sizeof o);
    o.field_mask = PGDDS_HASHMAP_OPTION_PROTOCOL;
    o.protocol = PGDDS_PROTOCOL_RPC;
    pgdds_hashmap_t map = NULL;
    T_OK(pgdds_hashmap_create_with(ctx, &p, &o, &map));

    /* Keys of rank 1: one present, one absent. */
    uint64_t keys[2] = {0, 0};
    for (uint64_t k = 1, found = 0; found < 2; ++k) {
        int owner = -1;
        T_OK(pgdds_hashmap_owner(map, &k, &owner));
        if (owner == 1) keys[found++] = k;
    }
    int route = -1, own = -1;
    T_OK(pgdds_hashmap_protocol(map, 1, &route));
    T_OK(pgdds_hashmap_protocol(map, me, &own));
    T_CHECK_MSG(own == PGDDS_PROTOCOL_DIRECT, "this rank's own part is reached by protocol %d", own);
    if (me == 0)
        T_CHECK_MSG(route == PGDDS_PROTOCOL_RPC, "rank 1's part is reached by protocol %d, not RPC: the "
                    "configuration must send rank 0's calls through the network", route);
    struct t_value v = t_value_of(keys[0], 1), got;
    if (me == 1) T_OK(pgdds_hashmap_insert(map, &keys[0], &v, 0));
    T_OK(pgdds_barrier(ctx));

    /* Rank 1 stays out of the library for longer than rank 0 waits, or, with the progress
     * thread, for long enough to see the call served while it is away, but less than the
     * barrier after it may wait. */
    const double away = served_while_away ? timeout * 0.6 : timeout + 1.5;
    if (me != 0) usleep((useconds_t)(away * 1e6));  /* the others too, so as not to wait in the barrier */
    if (me == 0) {
        usleep(500000); /* until rank 1 has left the barrier, where it would serve the call */
        double start = t_seconds();
        pgdds_status_t st = pgdds_hashmap_find(map, &keys[0], &got, 0);
        double took = t_seconds() - start;
        if (served_while_away) {
            T_OK(st);
            T_CHECK(st != PGDDS_OK || t_value_ok(&got, keys[0]));
            T_CHECK_MSG(took < away, "the find took %.1f s: the progress thread did not serve it", took);
        } else {
            T_STATUS(st, PGDDS_ERR_TIMEOUT);
            T_CHECK_MSG(strstr(pgdds_last_error(), "rank 1") != NULL, "the message does not name the owner: %s",
                        pgdds_last_error());
            T_CHECK_MSG(took >= timeout * 0.9, "the find gave up after %.1f s, before PGDDS_TIMEOUT", took);
        }
    }
    /* Once back, the owner serves calls again. */
    T_OK(pgdds_barrier(ctx));
    if (me == 0) {
        memset(&got, 0, sizeof got);
        T_OK(pgdds_hashmap_find(map, &keys[0], &got, 0));
        T_CHECK(t_value_ok(&got, keys[0]));
        T_STATUS(pgdds_hashmap_find(map, &keys[1], &got, 0), PGDDS_ERR_NOT_FOUND);
        T_CHECK_MSG(strstr(pgdds_last_error(), "no such key") != NULL, "%s", pgdds_last_error());
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_hashmap_destroy(map));
    return t_finish(ctx, "rpc_idle_owner");
}
