/* The three queues: every rank pushing to and popping from one queue, one queue per rank,
 * full and empty queues, every promise, the host's local view (with wrap-around), resize,
 * migrate, bad input. Each element names its writer and sequence number and carries a check
 * word; at the end every pushed element must have been popped exactly once, whole. */
#include "common.h"

static pgdds_context_t ctx;
static int me, n;
static const char *kind_name[] = {"fast", "circular", "checksum"};

struct elem {
    uint64_t id; /* writer rank << 32 | sequence */
    uint64_t check;
};
static struct elem elem_of(int rank, uint64_t seq)
{
    struct elem e = {((uint64_t)rank << 32) | seq, 0};
    e.check = t_mix(e.id);
    return e;
}

/* Per (rank, sequence) pop counts, summed over ranks at the end. */
struct tally {
    uint64_t per_rank;
    uint32_t *counts;
    uint64_t torn, foreign;
};
static void tally_init(struct tally *t, uint64_t per_rank)
{
    t->per_rank = per_rank;
    t->counts = calloc((size_t)(per_rank * (uint64_t)n), sizeof *t->counts);
    t->torn = t->foreign = 0;
}
static void tally_add(struct tally *t, const struct elem *e, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        uint64_t rank = e[i].id >> 32, seq = e[i].id & 0xffffffffu;
        if (e[i].check != t_mix(e[i].id)) t->torn++;
        else if (rank >= (uint64_t)n || seq >= t->per_rank) t->foreign++;
        else t->counts[rank * t->per_rank + seq]++;
    }
}
/* Every element of `pushed` (per rank: sequences [0, pushed[r])) popped once, nothing else. */
static void tally_check(struct tally *t, const uint64_t *pushed, const char *what)
{
    size_t total = (size_t)(t->per_rank * (uint64_t)n);
    uint32_t *all = calloc(total, sizeof *all);
    T_OK(pgdds_allreduce(ctx, t->counts, all, total, PGDDS_UINT32, PGDDS_OP_SUM));
    uint64_t torn = 0, foreign = 0;
    T_OK(pgdds_allreduce(ctx, &t->torn, &torn, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_OK(pgdds_allreduce(ctx, &t->foreign, &foreign, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    uint64_t lost = 0, dup = 0;
    for (int r = 0; r < n; ++r)
        for (uint64_t s = 0; s < t->per_rank; ++s) {
            uint32_t c = all[(uint64_t)r * t->per_rank + s];
            uint32_t want = s < pushed[r] ? 1 : 0;
            lost += c < want;
            dup += c > want;
        }
    T_CHECK_MSG(lost == 0 && dup == 0 && torn == 0 && foreign == 0, "%s: %llu lost, %llu duplicated, %llu torn, "
                "%llu unknown elements", what, (unsigned long long)lost, (unsigned long long)dup,
                (unsigned long long)torn, (unsigned long long)foreign);
    free(all);
    free(t->counts);
}

static pgdds_queue_t make_queue(int kind, uint64_t capacity, int host)
{
    pgdds_queue_params_t p = {0, kind, sizeof(struct elem), capacity, host};
    pgdds_queue_t q = NULL;
    T_OK(pgdds_queue_create(ctx, &p, &q));
    return q;
}

/* Pops until the queue is empty, in batches of up to `batch`. */
static void drain(pgdds_queue_t q, struct tally *t, size_t batch, unsigned promise)
{
    struct elem buf[16];
    for (;;) {
        size_t got = 0;
        pgdds_status_t st = pgdds_queue_pop(q, buf, batch, &got, promise);
        if (st == PGDDS_ERR_EMPTY) break;
        T_OK(st);
        if (st != PGDDS_OK) break;
        T_CHECK(got >= 1 && got <= batch);
        tally_add(t, buf, got);
    }
}

/* Phases on one queue hosted by the last rank: everyone pushes (single and vector pushes, more
 * than fits: exactly the capacity gets in, all or nothing per call), then everyone pops. */
static void test_phased_single_queue(int kind)
{
    const uint64_t per = t_work(800, 100), capacity = per * (uint64_t)n - 37;
    pgdds_queue_t q = make_queue(kind, capacity, n - 1);
    unsigned push_promise = kind == PGDDS_QUEUE_FAST ? 0 : PGDDS_CP_PUSH;
    unsigned pop_promise = kind == PGDDS_QUEUE_FAST ? 0 : PGDDS_CP_POP;
    struct tally t;
    tally_init(&t, per + 8);
    uint64_t seq = 0, accepted = 0;
    struct elem buf[8];
    while (seq < per) {
        size_t k = 1 + (size_t)(seq % 5); /* 1..5 elements per call */
        for (size_t i = 0; i < k; ++i) buf[i] = elem_of(me, seq + i);
        pgdds_status_t st = pgdds_queue_push(q, buf, k, push_promise);
        if (st == PGDDS_OK) accepted = seq + k;
        else T_STATUS(st, PGDDS_ERR_FULL);
        if (st != PGDDS_OK) break; /* sequences stay contiguous: stop at the first refusal */
        seq += k;
    }
    uint64_t total = 0;
    T_OK(pgdds_allreduce(ctx, &accepted, &total, 1, PGDDS_UINT64, PGDDS_OP_SUM));
    T_CHECK_MSG(total <= capacity && total + 5 * (uint64_t)n > capacity, "%s: %llu accepted of capacity %llu",
                kind_name[kind], (unsigned long long)total, (unsigned long long)capacity);
    T_OK(pgdds_barrier(ctx));
    uint64_t size = 0;
    T_OK(pgdds_queue_size(q, &size));
    T_CHECK_MSG(size == total, "%s: size %llu, %llu pushed", kind_name[kind], (unsigned long long)size,
                (unsigned long long)total);
    T_OK(pgdds_barrier(ctx)); /* every rank has its size before anyone pops */
    drain(q, &t, (size_t)(1 + me % 4), pop_promise);
    T_OK(pgdds_barrier(ctx));
    uint64_t *pushed = calloc((size_t)n, sizeof *pushed);
    T_OK(pgdds_allgather(ctx, &accepted, pushed, sizeof accepted));
    tally_check(&t, pushed, kind_name[kind]);
    free(pushed);
    /* empty now, and reusable: a second push phase wraps around the ring */
    size_t got;
    T_STATUS(pgdds_queue_pop(q, buf, 1, &got, pop_promise), PGDDS_ERR_EMPTY);
    T_OK(pgdds_barrier(ctx));
    tally_init(&t, 64);
    for (uint64_t s = 0; s < 64; ++s) {
        buf[0] = elem_of(me, s);
        T_OK(pgdds_queue_push(q, buf, 1, push_promise));
    }
    T_OK(pgdds_barrier(ctx));
    drain(q, &t, 3, pop_promise);
    T_OK(pgdds_barrier(ctx));
    uint64_t sixty_four[64];
    for (int r = 0; r < n; ++r) sixty_four[r] = 64;
    tally_check(&t, sixty_four, kind_name[kind]);
    T_OK(pgdds_queue_destroy(q));
}

/* Concurrent pushes and pops on one small queue (circular and checksum only): a rank that finds
 * the queue full pops to make room. Both sides use the fully atomic protocols. */
static void test_concurrent_single_queue(int kind)
{
    const uint64_t per = t_work(1200, 150);
    pgdds_queue_t q = make_queue(kind, 50, 0);
    struct tally t;
    tally_init(&t, per);
    struct elem buf[8];
    uint64_t seq = 0;
    while (seq < per) {
        size_t k = 1 + (size_t)((seq + (uint64_t)me) % 4);
        if (seq + k > per) k = (size_t)(per - seq);
        for (size_t i = 0; i < k; ++i) buf[i] = elem_of(me, seq + i);
        pgdds_status_t st = pgdds_queue_push(q, buf, k, 0);
        if (st == PGDDS_OK) seq += k;
        else T_STATUS(st, PGDDS_ERR_FULL);
        size_t got = 0;
        st = pgdds_queue_pop(q, buf, (size_t)(1 + seq % 3), &got, PGDDS_CP_PUSH | PGDDS_CP_POP);
        if (st == PGDDS_OK) tally_add(&t, buf, got);
        else T_STATUS(st, PGDDS_ERR_EMPTY);
    }
    T_OK(pgdds_barrier(ctx));
    drain(q, &t, 4, PGDDS_CP_POP);
    T_OK(pgdds_barrier(ctx));
    uint64_t pushed[64];
    for (int r = 0; r < n; ++r) pushed[r] = per;
    tally_check(&t, pushed, kind_name[kind]);
    T_OK(pgdds_queue_destroy(q));
}

/* One queue per rank, each element to a pseudo-random rank's queue; the hosts check what they
 * received through their local view. */
static void test_queue_per_rank(int kind)
{
    const uint64_t per = t_work(800, 100);
    pgdds_queue_t *qs = calloc((size_t)n, sizeof *qs);
    for (int r = 0; r < n; ++r) qs[r] = make_queue(kind, per * (uint64_t)n, r);
    for (uint64_t s = 0; s < per; ++s) {
        struct elem e = elem_of(me, s);
        T_OK(pgdds_queue_push(qs[t_mix(s * 131 + (uint64_t)me) % (uint64_t)n], &e, 1, PGDDS_CP_PUSH));
    }
    T_OK(pgdds_barrier(ctx));
    struct tally t;
    tally_init(&t, per);
    void *view = NULL;
    size_t count = 0;
    T_OK(pgdds_queue_local_view(qs[me], &view, &count));
    tally_add(&t, view, count);
    T_STATUS(pgdds_queue_local_view(qs[(me + 1) % n], &view, &count), n > 1 ? PGDDS_ERR_INVALID_ARG : PGDDS_OK);
    uint64_t pushed[64];
    for (int r = 0; r < n; ++r) pushed[r] = per;
    tally_check(&t, pushed, kind_name[kind]);
    for (int r = 0; r < n; ++r) T_OK(pgdds_queue_destroy(qs[r]));
    free(qs);
}

/* Local pushes and pops on the host (CP_LOCAL), a view of elements that wrap around the ring,
 * resize and migrate, in FIFO order. */
static void test_local_resize_migrate(int kind)
{
    pgdds_queue_t q = make_queue(kind, 10, 0);
    struct elem buf[10];
    size_t got = 0;
    if (me == 0) {
        for (uint64_t s = 0; s < 7; ++s) buf[s] = elem_of(0, s);
        T_OK(pgdds_queue_push(q, buf, 7, PGDDS_CP_LOCAL));
        T_OK(pgdds_queue_pop(q, buf, 5, &got, PGDDS_CP_LOCAL));
        T_CHECK(got == 5 && buf[0].id == 0 && buf[4].id == 4);
        for (uint64_t s = 7; s < 15; ++s) buf[s - 7] = elem_of(0, s);
        T_OK(pgdds_queue_push(q, buf, 8, PGDDS_CP_LOCAL)); /* 10 held: 5..14, wrapping */
        T_STATUS(pgdds_queue_push(q, buf, 1, PGDDS_CP_LOCAL), PGDDS_ERR_FULL);
        void *view;
        size_t count;
        T_OK(pgdds_queue_local_view(q, &view, &count));
        const struct elem *v = view;
        int in_order = count == 10;
        for (size_t i = 0; in_order && i < count; ++i) in_order = v[i].id == 5 + i && v[i].check == t_mix(5 + i);
        T_CHECK_MSG(in_order, "%s: local view of a wrapped queue out of order", kind_name[kind]);
    } else {
        T_STATUS(pgdds_queue_push(q, buf, 1, PGDDS_CP_LOCAL), PGDDS_ERR_INVALID_ARG);
    }
    T_OK(pgdds_barrier(ctx));
    T_STATUS(pgdds_queue_resize(q, 9), PGDDS_ERR_FULL);
    T_OK(pgdds_queue_resize(q, 25));
    uint64_t cap = 0, size = 0;
    T_OK(pgdds_queue_capacity(q, &cap));
    T_OK(pgdds_queue_size(q, &size));
    T_CHECK(cap == 25 && size == 10);
    T_OK(pgdds_barrier(ctx)); /* everyone has looked before anyone pushes */
    if (me == n - 1) {
        for (uint64_t s = 15; s < 20; ++s) buf[s - 15] = elem_of(0, s);
        T_OK(pgdds_queue_push(q, buf, 5, 0));
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_queue_migrate(q, n - 1));
    int host = -1;
    T_OK(pgdds_queue_host(q, &host));
    T_CHECK(host == n - 1);
    if (me == (n > 1 ? 1 : 0)) {
        int in_order = 1;
        for (uint64_t s = 5; s < 20;) {
            T_OK(pgdds_queue_pop(q, buf, 4, &got, 0));
            for (size_t i = 0; i < got; ++i) in_order &= buf[i].id == s + i && buf[i].check == t_mix(s + i);
            s += got;
        }
        T_CHECK_MSG(in_order, "%s: elements out of order after resize and migrate", kind_name[kind]);
        T_STATUS(pgdds_queue_pop(q, buf, 4, &got, 0), PGDDS_ERR_EMPTY);
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_queue_destroy(q));
}

/* Resize after the ranks have gone round the ring many times: each rank's slot arithmetic must
 * follow the new capacity. The ranks take turns pushing and popping 7 elements on a queue of
 * capacity 10 for seven rounds, rank 0 leaves 6 in it, and after a resize to 25 the last rank
 * pushes 5 more; then all 11 must pop in order, whole. */
static void test_resize_after_laps(int kind)
{
    pgdds_queue_t q = make_queue(kind, 10, 0);
    struct elem buf[8];
    size_t got = 0;
    uint64_t seq = 0; /* the same on every rank: the turns are in rank order */
    int in_order = 1;
    for (int round = 0; round < 7; ++round)
        for (int r = 0; r < n; ++r, seq += 7) {
            if (me == r) {
                for (uint64_t i = 0; i < 7; ++i) buf[i] = elem_of(0, seq + i);
                T_OK(pgdds_queue_push(q, buf, 7, 0));
                T_OK(pgdds_queue_pop(q, buf, 7, &got, 0));
                in_order &= got == 7;
                for (size_t i = 0; i < got; ++i) in_order &= buf[i].id == seq + i && buf[i].check == t_mix(seq + i);
            }
            T_OK(pgdds_barrier(ctx));
        }
    if (me == 0) {
        for (uint64_t i = 0; i < 6; ++i) buf[i] = elem_of(0, seq + i);
        T_OK(pgdds_queue_push(q, buf, 6, 0));
    }
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_queue_resize(q, 25));
    if (me == n - 1) {
        for (uint64_t i = 6; i < 11; ++i) buf[i - 6] = elem_of(0, seq + i);
        T_OK(pgdds_queue_push(q, buf, 5, 0));
    }
    T_OK(pgdds_barrier(ctx));
    if (me == (n > 1 ? 1 : 0)) {
        for (uint64_t s = seq; s < seq + 11;) {
            T_OK(pgdds_queue_pop(q, buf, 4, &got, 0));
            if (got == 0) break;
            for (size_t i = 0; i < got; ++i) in_order &= buf[i].id == s + i && buf[i].check == t_mix(s + i);
            s += got;
        }
        T_STATUS(pgdds_queue_pop(q, buf, 4, &got, 0), PGDDS_ERR_EMPTY);
    }
    T_CHECK_MSG(in_order, "%s: elements lost or out of order over laps and a resize", kind_name[kind]);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_queue_destroy(q));
}

/* A push is complete, like a put, once its caller has flushed: every rank pushes a few elements
 * to rank 0's queue (fewer than the library keeps back on one node), flushes and then counts
 * itself on rank 0 with an atomic; rank 0, once all have, pops every element, with no barrier
 * in between. Rank 0's own pushes need no flush before its own pops. */
static void test_push_complete_at_flush(int kind)
{
    enum { PER = 5 };
    pgdds_queue_t q = make_queue(kind, PER * (uint64_t)n, 0);
    pgdds_gptr_t arrived = PGDDS_GPTR_NULL;
    if (me == 0) {
        T_OK(pgdds_alloc(ctx, 8, 8, &arrived));
        *(uint64_t *)pgdds_gptr_to_local(ctx, arrived) = 0;
    }
    T_OK(pgdds_broadcast(ctx, &arrived, sizeof arrived, 0));
    struct tally t;
    tally_init(&t, PER);
    for (uint64_t s = 0; s < PER; ++s) {
        struct elem e = elem_of(me, s);
        T_OK(pgdds_queue_push(q, &e, 1, 0));
    }
    if (me != 0) {
        T_OK(pgdds_flush(ctx));
        T_OK(pgdds_atomic_u64(ctx, arrived, PGDDS_AOP_ADD, 1, NULL));
    } else {
        uint64_t others = t_wait_word(ctx, arrived, (uint64_t)n - 1);
        T_CHECK_MSG(others == (uint64_t)n - 1, "%s: %llu of %d ranks arrived", kind_name[kind],
                    (unsigned long long)others, n - 1);
        drain(q, &t, 4, 0);
    }
    uint64_t pushed[64];
    for (int r = 0; r < n; ++r) pushed[r] = PER;
    tally_check(&t, pushed, kind_name[kind]);
    T_OK(pgdds_barrier(ctx));
    if (me == 0) T_OK(pgdds_free(ctx, arrived));
    T_OK(pgdds_queue_destroy(q));
}

/* The route each rank's push and pop take to the host (pgdds_queue_protocol): under
 * PGDDS_CONTAINER_PROTOCOL=rpc, over the network, the other ranks call the host; under rdma they
 * never do; the host never calls itself. The operations above ran on that route. Then every
 * rank pushes two elements, every rank's size counts all of them, and the last rank pops them. */
static void test_protocol(int kind)
{
    pgdds_queue_t q = make_queue(kind, 4 * (uint64_t)n, 0);
    const char *want = getenv("PGDDS_CONTAINER_PROTOCOL");
    int protocol = -1;
    T_STATUS(pgdds_queue_protocol(NULL, &protocol), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_protocol(q, NULL), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_queue_protocol(q, &protocol));
    T_CHECK_MSG(protocol == PGDDS_PROTOCOL_DIRECT || protocol == PGDDS_PROTOCOL_RDMA || protocol == PGDDS_PROTOCOL_RPC,
                "protocol %d", protocol);
    if (me == 0 || (want && strcmp(want, "rdma") == 0))
        T_CHECK_MSG(protocol != PGDDS_PROTOCOL_RPC, "%s: rank %d calls the host (rank 0) under %s", kind_name[kind], me,
                    want ? want : "auto");
    else if (want && strcmp(want, "rpc") == 0 && t_network)
        T_CHECK_MSG(protocol == PGDDS_PROTOCOL_RPC, "%s: rank %d reaches the host over the network by protocol %d "
                    "under rpc", kind_name[kind], me, protocol);
    struct elem e[2] = {elem_of(me, 0), elem_of(me, 1)};
    T_OK(pgdds_queue_push(q, e, 2, 0));
    T_OK(pgdds_barrier(ctx));
    uint64_t size = 0;
    T_OK(pgdds_queue_size(q, &size));
    T_CHECK_MSG(size == 2 * (uint64_t)n, "%s: size %llu, not %d", kind_name[kind], (unsigned long long)size, 2 * n);
    T_OK(pgdds_barrier(ctx));
    struct tally t;
    tally_init(&t, 2);
    if (me == n - 1) drain(q, &t, 3, 0);
    uint64_t pushed[64];
    for (int r = 0; r < n; ++r) pushed[r] = 2;
    tally_check(&t, pushed, kind_name[kind]);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_queue_destroy(q));
    T_STATUS(pgdds_queue_protocol(q, &protocol), PGDDS_ERR_INVALID_ARG);
}

static void test_bad_input(void)
{
    pgdds_queue_params_t p = {0, PGDDS_QUEUE_FAST, 8, 16, 0};
    pgdds_queue_t q = NULL;
    uint64_t x = 0;
    size_t got = 0;
    void *view;
    T_STATUS(pgdds_queue_create(ctx, NULL, &q), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_create(ctx, &p, NULL), PGDDS_ERR_INVALID_ARG);
    p.kind = 7;
    T_STATUS(pgdds_queue_create(ctx, &p, &q), PGDDS_ERR_INVALID_ARG);
    p.kind = PGDDS_QUEUE_FAST;
    p.host_rank = n;
    T_STATUS(pgdds_queue_create(ctx, &p, &q), PGDDS_ERR_OUT_OF_BOUNDS);
    p.host_rank = 0;
    p.elem_size = 0;
    T_STATUS(pgdds_queue_create(ctx, &p, &q), PGDDS_ERR_INVALID_ARG);
    p.elem_size = 8;
    p.capacity = 0;
    T_STATUS(pgdds_queue_create(ctx, &p, &q), PGDDS_ERR_INVALID_ARG);
    p.capacity = (uint64_t)1 << 40;
    T_STATUS(pgdds_queue_create(ctx, &p, &q), PGDDS_ERR_NO_MEMORY);
    p.capacity = 16;
    T_CHECK(q == NULL);
    T_OK(pgdds_queue_create(ctx, &p, &q));
    T_STATUS(pgdds_queue_push(NULL, &x, 1, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_push(q, NULL, 1, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_push(q, &x, 1, PGDDS_CP_POP), PGDDS_ERR_INVALID_ARG); /* FastQueue: phases */
    T_STATUS(pgdds_queue_push(q, &x, 1, PGDDS_CP_FIND), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_push(q, &x, 17, 0), PGDDS_ERR_FULL);
    T_STATUS(pgdds_queue_pop(q, &x, 1, NULL, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_pop(q, &x, 0, &got, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_pop(q, &x, 1, &got, PGDDS_CP_PUSH), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_pop(q, &x, 1, &got, 0), PGDDS_ERR_EMPTY);
    T_STATUS(pgdds_queue_local_view(q, NULL, &got), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_migrate(q, n + 3), PGDDS_ERR_OUT_OF_BOUNDS);
    T_STATUS(pgdds_queue_resize(q, 0), PGDDS_ERR_INVALID_ARG);
    T_OK(pgdds_barrier(ctx));
    T_OK(pgdds_queue_destroy(q));
    T_STATUS(pgdds_queue_push(q, &x, 1, 0), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_local_view(q, &view, &got), PGDDS_ERR_INVALID_ARG);
    T_STATUS(pgdds_queue_destroy(q), PGDDS_ERR_INVALID_ARG);
}

int main(void)
{
    ctx = t_init(NULL);
    me = pgdds_rank(ctx);
    n = pgdds_nranks(ctx);
    t_detect_network(ctx);
    for (int kind = PGDDS_QUEUE_FAST; kind <= PGDDS_QUEUE_CHECKSUM; ++kind) {
        test_phased_single_queue(kind);
        if (kind != PGDDS_QUEUE_FAST) test_concurrent_single_queue(kind);
        test_queue_per_rank(kind);
        test_local_resize_migrate(kind);
        test_resize_after_laps(kind);
        test_push_complete_at_flush(kind);
        test_protocol(kind);
    }
    test_bad_input();
    return t_finish(ctx, "containers/queue");
}
