/* The protocol report (pgdds_container_protocols) and auto's measured choice: the report parses;
 * under auto over the network the costs are measured (every figure positive) and each kind's
 * protocol is the cheaper of its priced sums; without a peer reached only through the network
 * (shm, or the on-node path) nothing is measured and the containers keep load/store. The hash
 * map and a queue created afterwards take the protocol the report names, and the map's CP_FIND
 * finds work on the route priced for them. Bad input is refused. */
#include "common.h"

static int parse_costs(const char *text, char *mode, int *ranks, double c[4])
{
    return sscanf(text, "costs %15s %d %lf %lf %lf %lf", mode, ranks, &c[0], &c[1], &c[2], &c[3]) == 6;
}

/* The line "container KIND ..." of the report: its protocol and priced sums. */
static int container_line(const char *text, const char *kind, char *protocol, double *rdma, double *rpc)
{
    char want[64];
    snprintf(want, sizeof want, "container %s ", kind);
    const char *at = strstr(text, want);
    return at && sscanf(at + strlen(want), "%15s %lf %lf", protocol, rdma, rpc) == 3;
}

int main(void)
{
    pgdds_context_t ctx = t_init(NULL);
    const int me = pgdds_rank(ctx), n = pgdds_nranks(ctx);
    t_detect_network(ctx);
    const char *env = getenv("PGDDS_CONTAINER_PROTOCOL");
    const int automatic = !env || strcmp(env, "auto") == 0;

    size_t size = 0;
    T_STATUS(pgdds_container_protocols(NULL, NULL, &size), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_container_protocols(ctx, NULL, NULL), PGDDS_ERR_INVALID_ARG);
    /* The first call measures (collective); too small a buffer says the size needed. */
    T_STATUS(pgdds_container_protocols(ctx, NULL, &size), PGDDS_ERR_OUT_OF_BOUNDS);
    T_CHECK(size > 1);
    char *text = malloc(size);
    T_OK(pgdds_container_protocols(ctx, text, &size));
    T_CHECK(strlen(text) + 1 == size);

    char mode[16] = "";
    int ranks = -1;
    double c[4] = {0, 0, 0, 0};
    T_CHECK_MSG(parse_costs(text, mode, &ranks, c), "the report does not start with its costs: %s", text);
    T_CHECK_MSG(strcmp(mode, automatic ? "auto" : env) == 0, "mode %s", mode);
    if (automatic && t_network)
        T_CHECK_MSG(ranks > 0 && ranks <= n && c[0] > 0 && c[1] > 0 && c[2] > 0 && c[3] > 0,
                    "auto over the network measured nothing: %s", text);
    if (!t_network) T_CHECK_MSG(ranks == 0, "measured with every rank mapped: %s", text);
    T_CHECK_MSG(strstr(text, "op hashmap insert 2A+0R+1W+0M ") != NULL, "no hash map insert: %s", text);
    char hashmap[16] = "", queue[16] = "";
    double rdma = 0, rpc = 0;
    T_CHECK(container_line(text, "hashmap", hashmap, &rdma, &rpc));
    if (automatic && ranks > 0)
        T_CHECK_MSG(strcmp(hashmap, rpc < rdma ? "rpc" : "rdma") == 0, "hashmap takes %s at RDMA %.2f, RPC %.2f us",
                    hashmap, rdma, rpc);
    T_CHECK(container_line(text, "circular_queue", queue, &rdma, &rpc));

    /* Every rank got the same report: the choice is the job's. */
    uint64_t h = t_mix(size), lo = 0, hi = 0;
    for (size_t i = 0; i < size; ++i) h = t_mix(h ^ (unsigned char)text[i]);
    T_OK(pgdds_allreduce(ctx, &h, &lo, 1, PGDDS_UINT64, PGDDS_OP_MIN));
    T_OK(pgdds_allreduce(ctx, &h, &hi, 1, PGDDS_UINT64, PGDDS_OP_MAX));
    T_CHECK_MSG(lo == hi, "the ranks' reports differ");

    /* Containers take the protocol named, towards a rank reached only through the network. */
    pgdds_hashmap_params_t hp = {0, 8, 8, 1024};
    pgdds_hashmap_t map = NULL;
    T_OK(pgdds_hashmap_create(ctx, &hp, &map));
    pgdds_queue_params_t qp = {0, PGDDS_QUEUE_CIRCULAR, 16, 16, 0};
    pgdds_queue_t q = NULL;
    T_OK(pgdds_queue_create(ctx, &qp, &q));
    int other = (me + 1) % n, route = -1, qroute = -1;
    T_OK(pgdds_hashmap_protocol(map, other, &route));
    T_OK(pgdds_queue_protocol(q, &qroute));
    if (n > 1 && t_network) {
        T_CHECK_MSG(route == (strcmp(hashmap, "rpc") == 0 ? PGDDS_PROTOCOL_RPC : PGDDS_PROTOCOL_RDMA),
                    "the hash map reaches rank %d by protocol %d, the report says %s", other, route, hashmap);
        if (me != 0)
            T_CHECK_MSG(qroute == (strcmp(queue, "rpc") == 0 ? PGDDS_PROTOCOL_RPC : PGDDS_PROTOCOL_RDMA),
                        "the queue's host is reached by protocol %d, the report says %s", qroute, queue);
    } else if (!t_network) {
        T_CHECK_MSG(route != PGDDS_PROTOCOL_RPC && qroute != PGDDS_PROTOCOL_RPC, "a call with every rank mapped");
    }
    /* Finds under CP_FIND take the route the report prices for them (one read where it is
     * cheaper than a call, even when the map's atomic operations call the owner): every rank's
     * keys are found with their values, absent ones are not. */
    for (uint64_t i = 0; i < 16; ++i) {
        uint64_t key = ((uint64_t)me << 32) | i, value = t_mix(key);
        T_OK(pgdds_hashmap_insert(map, &key, &value, 0));
    }
    T_OK(pgdds_barrier(ctx));
    int missing = 0;
    for (int r = 0; r < n; ++r)
        for (uint64_t i = 0; i < 16; ++i) {
            uint64_t key = ((uint64_t)r << 32) | i, value = 0;
            missing += pgdds_hashmap_find(map, &key, &value, PGDDS_CP_FIND) != PGDDS_OK || value != t_mix(key);
        }
    uint64_t absent = (uint64_t)1 << 62, value = 0;
    T_STATUS(pgdds_hashmap_find(map, &absent, &value, PGDDS_CP_FIND), PGDDS_ERR_NOT_FOUND);
    T_CHECK_MSG(missing == 0, "%d keys not found whole under CP_FIND", missing);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_queue_destroy(q));
    T_OK(pgdds_hashmap_destroy(map));
    if (me == 0) printf("%s", text);
    free(text);
    return t_finish(ctx, "containers/protocols");
}
