/* The protocol report (pgdds_container_protocols) and auto's measured choice: the report parses;
 * under auto over the network the costs are measured (every figure positive) and each kind's
 * protocol is the cheaper of its priced sums; without a peer reached only through the network
 * (shm, or the on-node path) nothing is measured and the containers keep load/store. The hash
 * map and a queue created afterwards take the protocol the report names, and the map's CP_FIND
 * finds work on the route priced for them. Per operation: every report line's role and protocol
 * follow the rule (what changes a part or takes an atomic takes the container's protocol; a
 * read-only operation under RPC the cheaper of its own prices), and the *_op_protocol functions
 * of a hash map, a Bloom filter, a queue and a key table answer what the report says. A map
 * served by RPC whose CP_FIND finds read one-sidedly keeps exact counts through concurrent
 * fully atomic inserts, finds and erases (calls) and concurrent CP_FIND finds (reads). Bad input
 * is refused. */
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

/* The line "op CONTAINER OPERATION ..." of the report: its prices, cheaper, role and protocol. */
static int op_line(const char *text, const char *container, const char *op, double *rdma, double *rpc, char *cheaper,
                   char *role, char *takes)
{
    char want[96];
    snprintf(want, sizeof want, "op %s %s ", container, op);
    const char *at = strstr(text, want);
    return at && sscanf(at + strlen(want), "%*s %lf %lf %15s %15s %15s", rdma, rpc, cheaper, role, takes) == 5;
}

static int protocol_of(const char *name)
{
    return strcmp(name, "rpc") == 0 ? PGDDS_PROTOCOL_RPC
           : strcmp(name, "rdma") == 0 ? PGDDS_PROTOCOL_RDMA
                                       : PGDDS_PROTOCOL_DIRECT;
}

/* Every op line follows the rule against its container line. */
static void check_report_rule(const char *text, int automatic, int measured)
{
    int lines = 0;
    for (const char *at = strstr(text, "\nop "); at; at = strstr(at + 1, "\nop ")) {
        char container[32], op[32], formula[32], cheaper[16], role[16], takes[16], kind_protocol[16] = "";
        double rdma = 0, rpc = 0, sum_rdma = 0, sum_rpc = 0;
        T_CHECK_MSG(sscanf(at + 1, "op %31s %31s %31s %lf %lf %15s %15s %15s", container, op, formula, &rdma, &rpc,
                           cheaper, role, takes) == 8, "an op line without its role and protocol: %.80s", at + 1);
        T_CHECK_MSG(container_line(text, container, kind_protocol, &sum_rdma, &sum_rpc), "no container %s", container);
        ++lines;
        if (strcmp(takes, "direct") == 0) continue;  /* every rank reached by load/store */
        if (strcmp(role, "decides") == 0 || strcmp(role, "follows") == 0)
            T_CHECK_MSG(strcmp(takes, kind_protocol) == 0, "%s %s (%s) takes %s, its container %s", container, op,
                        role, takes, kind_protocol);
        else if (strcmp(role, "one-sided") == 0)
            T_CHECK_MSG(strcmp(takes, "rdma") == 0, "%s %s has no call form but takes %s", container, op, takes);
        else {
            T_CHECK_MSG(strcmp(role, "reads") == 0, "%s %s: unknown role %s", container, op, role);
            const char *want = strcmp(kind_protocol, "rpc") != 0                ? "rdma"
                               : automatic && measured && rdma < rpc            ? "rdma"
                                                                                : "rpc";
            T_CHECK_MSG(strcmp(takes, want) == 0, "%s %s (reads, RDMA %.2f, RPC %.2f us, container %s) takes %s, not %s",
                        container, op, rdma, rpc, kind_protocol, takes, want);
        }
        if (measured) T_CHECK_MSG(strcmp(cheaper, rpc < rdma ? "rpc" : "rdma") == 0, "%s %s: cheaper %s", container, op,
                                  cheaper);
    }
    T_CHECK_MSG(lines >= 20, "%d op lines", lines);
}

/* A map served by RPC (forced by its option) whose CP_FIND finds take the route the report
 * prices for them: concurrent fully atomic inserts (of own keys, and of shared keys every rank
 * inserts), finds and erases, then concurrent CP_FIND finds and find_many, then erases; the
 * counts are exact at each step. */
static void mixed_protocols(pgdds_context_t ctx, const char *text)
{
    const int me = pgdds_rank(ctx), n = pgdds_nranks(ctx), other = (me + 1) % n;
    pgdds_hashmap_params_t hp = {0, 8, 8, 4096};
    pgdds_hashmap_options_t o;
    memset(&o, 0, sizeof o);
    o.field_mask = PGDDS_HASHMAP_OPTION_PROTOCOL;
    o.protocol = PGDDS_PROTOCOL_RPC;
    pgdds_hashmap_t map = NULL;
    T_OK(pgdds_hashmap_create_with(ctx, &hp, &o, &map));
    double rdma = 0, rpc = 0;
    char cheaper[16] = "", role[16] = "", takes[16] = "";
    T_CHECK(op_line(text, "hashmap", "find/CP_FIND", &rdma, &rpc, cheaper, role, takes));
    int insert_route = -1, find_route = -1, atomic_find_route = -1, many_route = -1;
    T_OK(pgdds_hashmap_op_protocol(map, other, PGDDS_CONTAINER_OP_INSERT, 0, &insert_route));
    T_OK(pgdds_hashmap_op_protocol(map, other, PGDDS_CONTAINER_OP_FIND, 0, &atomic_find_route));
    T_OK(pgdds_hashmap_op_protocol(map, other, PGDDS_CONTAINER_OP_FIND, PGDDS_CP_FIND, &find_route));
    T_OK(pgdds_hashmap_op_protocol(map, other, PGDDS_CONTAINER_OP_FIND_MANY, PGDDS_CP_FIND, &many_route));
    if (n > 1 && t_network) {
        /* Every atomic on a part stays a CPU atomic: the changes and the fully atomic find call. */
        T_CHECK_MSG(insert_route == PGDDS_PROTOCOL_RPC && atomic_find_route == PGDDS_PROTOCOL_RPC,
                    "insert %d, fully atomic find %d under RPC", insert_route, atomic_find_route);
        const int want = strcmp(cheaper, "rdma") == 0 ? PGDDS_PROTOCOL_RDMA : PGDDS_PROTOCOL_RPC;
        T_CHECK_MSG(find_route == want, "a CP_FIND find takes %d, priced RDMA %.2f, RPC %.2f us (%s)", find_route, rdma,
                    rpc, cheaper);
        double mr = 0, mrpc = 0;
        char mc[16] = "", mrole[16] = "", mt[16] = "";
        T_CHECK(op_line(text, "hashmap", "find_many/CP_FIND", &mr, &mrpc, mc, mrole, mt));
        T_CHECK_MSG(many_route == (strcmp(mc, "rdma") == 0 ? PGDDS_PROTOCOL_RDMA : PGDDS_PROTOCOL_RPC),
                    "a CP_FIND find_many takes %d, priced %s", many_route, mc);
        if (me == 0)
            printf("containers/protocols: mixed map: inserts by %s, CP_FIND finds by %s\n", "rpc",
                   find_route == PGDDS_PROTOCOL_RDMA ? "rdma (one-sided reads)" : "rpc");
    }

    const uint64_t own = t_work(300, 60), shared = 16;
    const uint64_t tag = (uint64_t)1 << 40;
    /* Phase 1, everything concurrent and fully atomic: own keys (of every owner, by hashing),
     * shared keys inserted by every rank with the same value, a find after each insert, and the
     * erase of every third own key. */
    int lost = 0;
    for (uint64_t i = 0; i < own; ++i) {
        uint64_t key = ((uint64_t)me << 32) | i, value = t_mix(key), got = 0;
        T_OK(pgdds_hashmap_insert(map, &key, &value, 0));
        if (i < shared) {
            uint64_t sk = tag | i, sv = t_mix(sk);
            T_OK(pgdds_hashmap_insert(map, &sk, &sv, 0));
        }
        lost += pgdds_hashmap_find(map, &key, &got, 0) != PGDDS_OK || got != value;
        if (i % 3 == 0) T_OK(pgdds_hashmap_erase(map, &key, 0));
    }
    T_CHECK_MSG(lost == 0, "%d own keys not found right after their insert", lost);
    T_OK(pgdds_barrier(ctx));
    uint64_t count = 0;
    const uint64_t kept = own - (own + 2) / 3;
    T_OK(pgdds_hashmap_size(map, &count));
    T_CHECK_MSG(count == (uint64_t)n * kept + shared, "size %llu, expected %llu", (unsigned long long)count,
                (unsigned long long)((uint64_t)n * kept + shared));

    /* Phase 2, concurrent CP_FIND finds of every rank's keys, single and batched. */
    uint64_t *keys = malloc(own * sizeof *keys), *values = malloc(own * sizeof *values);
    unsigned char *found = malloc(own);
    int wrong = 0;
    for (int r = 0; r < n; ++r) {
        for (uint64_t i = 0; i < own; ++i) {
            uint64_t key = ((uint64_t)r << 32) | i, got = 0;
            keys[i] = key;
            pgdds_status_t st = pgdds_hashmap_find(map, &key, &got, PGDDS_CP_FIND);
            wrong += i % 3 == 0 ? st != PGDDS_ERR_NOT_FOUND : st != PGDDS_OK || got != t_mix(key);
        }
        T_OK(pgdds_hashmap_find_many(map, own, keys, values, found, PGDDS_CP_FIND));
        for (uint64_t i = 0; i < own; ++i)
            wrong += i % 3 == 0 ? found[i] != 0 : !found[i] || values[i] != t_mix(keys[i]);
    }
    for (uint64_t i = 0; i < shared; ++i) {
        uint64_t sk = tag | i, got = 0;
        wrong += pgdds_hashmap_find(map, &sk, &got, PGDDS_CP_FIND) != PGDDS_OK || got != t_mix(sk);
    }
    T_CHECK_MSG(wrong == 0, "%d wrong answers of CP_FIND finds after concurrent changes", wrong);
    T_OK(pgdds_barrier(ctx));

    /* Phase 3, concurrent erases of the rest (calls), then batched CP_FIND finds see none. */
    for (uint64_t i = 0; i < own; ++i) {
        uint64_t key = ((uint64_t)me << 32) | i;
        T_STATUS(pgdds_hashmap_erase(map, &key, 0), i % 3 == 0 ? PGDDS_ERR_NOT_FOUND : PGDDS_OK);
    }
    T_OK(pgdds_barrier(ctx));
    for (uint64_t i = 0; i < own; ++i) keys[i] = ((uint64_t)other << 32) | i;
    T_OK(pgdds_hashmap_find_many(map, own, keys, values, found, PGDDS_CP_FIND));
    int left = 0;
    for (uint64_t i = 0; i < own; ++i) left += found[i] != 0;
    T_CHECK_MSG(left == 0, "%d erased keys still found", left);
    T_OK(pgdds_hashmap_size(map, &count));
    T_CHECK_MSG(count == shared, "size %llu after the erases, expected %llu", (unsigned long long)count,
                (unsigned long long)shared);
    free(keys);
    free(values);
    free(found);
    T_OK(pgdds_hashmap_destroy(map));
}

/* The per-operation routes of a Bloom filter and a key table against the report; bad input. */
static void op_routes(pgdds_context_t ctx, const char *text, pgdds_hashmap_t map, pgdds_queue_t q)
{
    const int me = pgdds_rank(ctx), n = pgdds_nranks(ctx), other = (me + 1) % n;
    int p = -1, base = -1;
    double x = 0, y = 0;
    char cheaper[16], role[16], takes[16];

    /* Hash map: insert, erase, insert_many and a fully atomic find take the map's protocol. */
    T_OK(pgdds_hashmap_protocol(map, other, &base));
    const int ops[] = {PGDDS_CONTAINER_OP_INSERT, PGDDS_CONTAINER_OP_ERASE, PGDDS_CONTAINER_OP_INSERT_MANY,
                       PGDDS_CONTAINER_OP_FIND, PGDDS_CONTAINER_OP_FIND_MANY};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; ++i) {
        T_OK(pgdds_hashmap_op_protocol(map, other, ops[i], 0, &p));
        T_CHECK_MSG(p == base, "hash map operation %d takes %d, the map %d", ops[i], p, base);
    }
    if (n > 1 && t_network) {
        T_CHECK(op_line(text, "hashmap", "find/CP_FIND", &x, &y, cheaper, role, takes));
        T_OK(pgdds_hashmap_op_protocol(map, other, PGDDS_CONTAINER_OP_FIND, PGDDS_CP_FIND, &p));
        T_CHECK_MSG(p == protocol_of(takes), "a CP_FIND find takes %d, the report says %s", p, takes);
    }
    T_OK(pgdds_hashmap_op_protocol(map, me, PGDDS_CONTAINER_OP_INSERT, PGDDS_CP_LOCAL, &p));
    T_CHECK(p == PGDDS_PROTOCOL_DIRECT);
    T_STATUS(pgdds_hashmap_op_protocol(map, other, PGDDS_CONTAINER_OP_PUSH, 0, &p), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_op_protocol(map, other, 0, 0, &p), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_op_protocol(map, n, PGDDS_CONTAINER_OP_FIND, 0, &p), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_hashmap_op_protocol(map, -1, PGDDS_CONTAINER_OP_FIND, 0, &p), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_hashmap_op_protocol(map, other, PGDDS_CONTAINER_OP_FIND, PGDDS_CP_PUSH, &p), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_op_protocol(map, other, PGDDS_CONTAINER_OP_FIND, 0, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_hashmap_op_protocol(NULL, other, PGDDS_CONTAINER_OP_FIND, 0, &p), PGDDS_ERR_INVALID_ARG);
    if (n > 1) T_STATUS(pgdds_hashmap_op_protocol(map, other, PGDDS_CONTAINER_OP_FIND, PGDDS_CP_LOCAL, &p),
                        PGDDS_ERR_INVALID_ARG);

    /* Queue: every operation takes the queue's protocol. */
    T_OK(pgdds_queue_protocol(q, &base));
    const int qops[] = {PGDDS_CONTAINER_OP_PUSH, PGDDS_CONTAINER_OP_POP, PGDDS_CONTAINER_OP_SIZE};
    for (size_t i = 0; i < 3; ++i) {
        T_OK(pgdds_queue_op_protocol(q, qops[i], 0, &p));
        T_CHECK_MSG(p == base, "queue operation %d takes %d, the queue %d", qops[i], p, base);
    }
    T_STATUS(pgdds_queue_op_protocol(q, PGDDS_CONTAINER_OP_FIND, 0, &p), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_op_protocol(q, PGDDS_CONTAINER_OP_PUSH, PGDDS_CP_FIND, &p), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_op_protocol(q, PGDDS_CONTAINER_OP_PUSH, 0, NULL), PGDDS_ERR_INVALID_ARG);

    /* Bloom filter: insert takes the filter's protocol (the report's), contains its own. */
    pgdds_bloom_t bloom = NULL;
    T_OK(pgdds_bloom_create(ctx, 1000, 0.01, &bloom));
    char kind[16] = "";
    T_CHECK(container_line(text, "bloom", kind, &x, &y));
    T_OK(pgdds_bloom_protocol(bloom, other, PGDDS_CONTAINER_OP_INSERT, &base));
    T_OK(pgdds_bloom_protocol(bloom, other, PGDDS_CONTAINER_OP_CONTAINS, &p));
    T_CHECK(op_line(text, "bloom", "contains", &x, &y, cheaper, role, takes));
    if (n > 1 && t_network) {
        T_CHECK_MSG(base == protocol_of(kind), "Bloom insert takes %d, the report says %s", base, kind);
        T_CHECK_MSG(p == protocol_of(takes), "Bloom contains takes %d, the report says %s", p, takes);
    } else if (!t_network) {
        T_CHECK_MSG(base != PGDDS_PROTOCOL_RPC && p != PGDDS_PROTOCOL_RPC, "a Bloom call with every rank mapped");
    }
    /* Whatever route contains takes, it answers for what any rank inserted. */
    uint64_t key = 1000 + (uint64_t)me;
    int present = 0, missing = 0;
    T_OK(pgdds_bloom_insert(bloom, &key, sizeof key, NULL));
    T_OK(pgdds_barrier(ctx));
    for (int r = 0; r < n; ++r) {
        key = 1000 + (uint64_t)r;
        T_OK(pgdds_bloom_contains(bloom, &key, sizeof key, &present));
        missing += !present;
    }
    T_CHECK_MSG(missing == 0, "%d inserted keys not contained", missing);
    T_STATUS(pgdds_bloom_protocol(bloom, other, PGDDS_CONTAINER_OP_FIND, &p), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_protocol(bloom, n, PGDDS_CONTAINER_OP_INSERT, &p), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_bloom_protocol(bloom, other, PGDDS_CONTAINER_OP_INSERT, NULL), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_bloom_protocol(NULL, other, PGDDS_CONTAINER_OP_INSERT, &p), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_bloom_destroy(bloom));

    /* Key table: put, atomic_u64 and remove take the table's protocol, get reads one-sidedly,
     * insert is a message to another owner. */
    pgdds_keytable_params_t kp;
    memset(&kp, 0, sizeof kp);
    kp.max_value_size = 16;
    kp.capacity_per_rank = 64;
    pgdds_keytable_t table = NULL;
    T_OK(pgdds_keytable_create(ctx, &kp, &table));
    T_OK(pgdds_keytable_protocol(table, other, &base));
    const int kops[] = {PGDDS_CONTAINER_OP_PUT, PGDDS_CONTAINER_OP_ATOMIC_U64, PGDDS_CONTAINER_OP_REMOVE};
    for (size_t i = 0; i < 3; ++i) {
        T_OK(pgdds_keytable_op_protocol(table, other, kops[i], &p));
        T_CHECK_MSG(p == base, "key-table operation %d takes %d, the table %d", kops[i], p, base);
    }
    T_OK(pgdds_keytable_op_protocol(table, other, PGDDS_CONTAINER_OP_GET, &p));
    T_CHECK_MSG(p != PGDDS_PROTOCOL_RPC, "a key-table get calls the owner");
    T_OK(pgdds_keytable_op_protocol(table, me, PGDDS_CONTAINER_OP_INSERT, &p));
    T_CHECK(p == PGDDS_PROTOCOL_DIRECT);
    if (n > 1) {
        T_OK(pgdds_keytable_op_protocol(table, other, PGDDS_CONTAINER_OP_INSERT, &p));
        T_CHECK(p == PGDDS_PROTOCOL_RPC);
    }
    T_STATUS(pgdds_keytable_op_protocol(table, other, PGDDS_CONTAINER_OP_FIND, &p), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_keytable_op_protocol(table, n, PGDDS_CONTAINER_OP_GET, &p), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_keytable_op_protocol(table, other, PGDDS_CONTAINER_OP_GET, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_keytable_destroy(table));
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
    /* The Bloom filter is decided by its insert and its batched insert, a group of 16 fetch-ors
     * one after another against one call: 17 A against 2 calls. */
    T_CHECK_MSG(strstr(text, "op bloom insert_many 16A+0R+0W+0M/16keys ") != NULL, "no batched Bloom insert: %s", text);
    char bloom[16] = "";
    T_CHECK(container_line(text, "bloom", bloom, &rdma, &rpc));
    if (automatic && ranks > 0) {
        T_CHECK_MSG(rdma > 17 * c[0] - 0.01 && rdma < 17 * c[0] + 0.01 && rpc > 2 * c[3] - 0.002 &&
                    rpc < 2 * c[3] + 0.002, "bloom priced RDMA %.3f, RPC %.3f us at A %.3f, RPC %.3f us", rdma, rpc,
                    c[0], c[3]);
        T_CHECK_MSG(strcmp(bloom, rpc < rdma ? "rpc" : "rdma") == 0, "bloom takes %s at RDMA %.2f, RPC %.2f us", bloom,
                    rdma, rpc);
    }
    check_report_rule(text, automatic, ranks > 0);

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
    op_routes(ctx, text, map, q);
    T_OK(pgdds_queue_destroy(q));
    T_OK(pgdds_hashmap_destroy(map));
    mixed_protocols(ctx, text);
    if (me == 0) printf("%s", text);
    free(text);
    return t_finish(ctx, "containers/protocols");
}
