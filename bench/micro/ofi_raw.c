/* The raw-libfabric peer of pgdds_micro.c: the same three latency loops written directly
 * against libfabric, with the ofi transport's own choices, so that the difference is the cost
 * of the pgdds layers.
 *   put_flush_latency: 8-byte write, then remote completion as the transport's flush gets it:
 *                      fi_inject_write + an 8-byte fi_read back (providers that order reads
 *                      after writes, and shm), else fi_writemsg(FI_DELIVERY_COMPLETE)
 *   get_latency:       8-byte fi_read
 *   fetch_add_latency: fi_fetch_atomic(FI_UINT64, FI_SUM)
 * Same fi_getinfo hints as src/transport/ofi (RDM, FI_MSG|FI_RMA|FI_ATOMIC, mode FI_CONTEXT,
 * FI_THREAD_COMPLETION, FI_AV_TABLE, the mr_mode bits it supports); provider from
 * PGDDS_OFI_PROVIDER or --provider. Addresses travel through the launcher's PMI-1 service
 * (pgdds-run, MPICH mpiexec). Rank 0 measures; rank 1 polls its completion queue, as a pgdds
 * rank waiting in a barrier does, until rank 0 writes its stop word.
 * usage: pgdds-run -n 2 ofi-raw [--json] [--iters N] [--provider NAME] */
#include "report.h"

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int me = -1;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ofi-raw (rank %d): ", me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

#define CHECK(call)                                                                      \
    do {                                                                                 \
        ssize_t rc_ = (call);                                                            \
        if (rc_) die("%s: %s (%zd)", #call, fi_strerror((int)-rc_), rc_);                \
    } while (0)

/* --- A minimal PMI-1 client (PMI_FD, as pgdds-run and Hydra provide) ------------------------ */
static int pmi_fd = -1;
static char pmi_kvs[256];
static char pmi_buf[4096];
static size_t pmi_have;

static void pmi_send(const char *line)
{
    size_t len = strlen(line), off = 0;
    while (off < len) {
        ssize_t n = write(pmi_fd, line + off, len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("PMI: cannot write to the launcher: %s", strerror(errno));
        off += (size_t)n;
    }
}

/* Reads one reply line into out (without the newline) and checks its cmd. */
static void pmi_receive(const char *expect, char *out, size_t cap)
{
    for (;;) {
        char *nl = memchr(pmi_buf, '\n', pmi_have);
        if (nl) {
            size_t len = (size_t)(nl - pmi_buf);
            if (len >= cap) die("PMI: reply too long");
            memcpy(out, pmi_buf, len);
            out[len] = 0;
            memmove(pmi_buf, nl + 1, pmi_have - len - 1);
            pmi_have -= len + 1;
            char want[64];
            snprintf(want, sizeof want, "cmd=%s", expect);
            if (strncmp(out, want, strlen(want)) != 0) die("PMI: expected %s, got \"%s\"", expect, out);
            if (strstr(out, " rc=") && !strstr(out, " rc=0")) die("PMI: the launcher refused: %s", out);
            return;
        }
        if (pmi_have == sizeof pmi_buf) die("PMI: reply too long");
        ssize_t n = read(pmi_fd, pmi_buf + pmi_have, sizeof pmi_buf - pmi_have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("PMI: the launcher closed the connection");
        pmi_have += (size_t)n;
    }
}

/* The value of key= in a reply line. */
static const char *pmi_field(const char *line, const char *key, char *out, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    if (!p) die("PMI: no %s in \"%s\"", key, line);
    p += strlen(pat);
    size_t len = strcspn(p, " ");
    if (len >= cap) die("PMI: %s too long", key);
    memcpy(out, p, len);
    out[len] = 0;
    return out;
}

static void pmi_init(int *rank, int *size)
{
    const char *fd = getenv("PMI_FD"), *r = getenv("PMI_RANK"), *s = getenv("PMI_SIZE");
    if (!fd || !r || !s) die("PMI_FD, PMI_RANK and PMI_SIZE must be set: run under pgdds-run or mpiexec");
    pmi_fd = atoi(fd);
    *rank = atoi(r);
    *size = atoi(s);
    char line[512];
    pmi_send("cmd=init pmi_version=1 pmi_subversion=1\n");
    pmi_receive("response_to_init", line, sizeof line);
    pmi_send("cmd=get_maxes\n");
    pmi_receive("maxes", line, sizeof line);
    pmi_send("cmd=get_my_kvsname\n");
    pmi_receive("my_kvsname", line, sizeof line);
    pmi_field(line, "kvsname", pmi_kvs, sizeof pmi_kvs);
}

static void pmi_put(const char *key, const char *value)
{
    char line[1024];
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=%s\n", pmi_kvs, key, value);
    pmi_send(line);
    pmi_receive("put_result", line, sizeof line);
}

static void pmi_get(const char *key, char *value, size_t cap)
{
    char line[1024];
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=%s\n", pmi_kvs, key);
    pmi_send(line);
    pmi_receive("get_result", line, sizeof line);
    pmi_field(line, "value", value, cap);
}

static void pmi_barrier(void)
{
    char line[256];
    pmi_send("cmd=barrier_in\n");
    pmi_receive("barrier_out", line, sizeof line);
}

static void pmi_finalize(void)
{
    char line[256];
    pmi_send("cmd=finalize\n");
    pmi_receive("finalize_ack", line, sizeof line);
}

static void to_hex(const void *data, size_t len, char *out)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; ++i) sprintf(out + 2 * i, "%02x", p[i]);
    out[2 * len] = 0;
}

static size_t from_hex(const char *hex, void *out, size_t cap)
{
    size_t len = strlen(hex) / 2;
    if (len > cap) die("PMI: value longer than %zu bytes", cap);
    unsigned char *p = out;
    for (size_t i = 0; i < len; ++i) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) die("PMI: bad hex value");
        p[i] = (unsigned char)v;
    }
    return len;
}

/* --- libfabric ----------------------------------------------------------------------------- */
struct connection_data {
    uint64_t base, key;
    size_t addr_len;
    unsigned char addr[200];
};

static struct fid_ep *ep;
static struct fid_cq *cq;

static long completions;  /* read from the queue, not yet consumed by wait_one */

/* Reads what the completion queue holds; progresses the provider. */
static void poll_cq(void)
{
    struct fi_cq_entry entries[8];
    ssize_t n = fi_cq_read(cq, entries, 8);
    if (n > 0) {
        completions += n;
    } else if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(cq, &err, 0);
        die("an operation failed: %s (provider: %s)", fi_strerror(err.err),
            fi_cq_strerror(cq, err.prov_errno, err.err_data, NULL, 0));
    } else if (n != -FI_EAGAIN) {
        die("fi_cq_read: %s", fi_strerror((int)-n));
    }
}

/* Waits for the completion of the one operation in flight. */
static void wait_one(void)
{
    while (completions == 0) poll_cq();
    --completions;
}

/* Retries a call that says FI_EAGAIN, progressing in between. */
#define POST(call)                                                                       \
    do {                                                                                 \
        ssize_t rc_;                                                                     \
        while ((rc_ = (call)) == -FI_EAGAIN) poll_cq();                                  \
        if (rc_) die("%s: %s (%zd)", #call, fi_strerror((int)-rc_), rc_);                \
    } while (0)

int main(int argc, char **argv)
{
    long iters = 100000;
    const char *prov = getenv("PGDDS_OFI_PROVIDER");
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) report_json = 1;
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) iters = atol(argv[++i]);
        else if (strcmp(argv[i], "--provider") == 0 && i + 1 < argc) prov = argv[++i];
        else {
            fprintf(stderr, "usage: ofi-raw [--json] [--iters N] [--provider NAME]\n");
            return 2;
        }
    }
    if (iters < 10) iters = 10;
    int n = 0;
    pmi_init(&me, &n);
    if (n != 2) die("run on exactly 2 ranks");

    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    if (!hints) die("fi_allocinfo failed");
    hints->caps = FI_MSG | FI_RMA | FI_ATOMIC;
    hints->mode = FI_CONTEXT;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_COMPLETION;
    hints->domain_attr->av_type = FI_AV_TABLE;
    if (prov && *prov) hints->fabric_attr->prov_name = strdup(prov);
    struct fi_info *first = NULL;
    CHECK(fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &first));
    /* As the transport does: the first entry's provider once more with reads ordered after
     * writes and atomics, which providers report only when asked. */
    free(hints->fabric_attr->prov_name);
    hints->fabric_attr->prov_name = strdup(first->fabric_attr->prov_name);
    hints->tx_attr->msg_order = hints->rx_attr->msg_order = FI_ORDER_RMA_RAW | FI_ORDER_ATOMIC_RAW;
    if (fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &info) == 0) {
        fi_freeinfo(first);
    } else {
        info = first;
    }
    const char *prov_name = info->fabric_attr->prov_name;
    const uint64_t mr_mode = (uint64_t)info->domain_attr->mr_mode;

    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
    CHECK(fi_domain(fabric, info, &domain, NULL));
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = 2};
    CHECK(fi_av_open(domain, &av_attr, &av, NULL));
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 128, .wait_obj = FI_WAIT_NONE};
    CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));
    CHECK(fi_endpoint(domain, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CHECK(fi_enable(ep));

    /* One page, registered once: the target words and every local buffer. */
    const size_t bytes = 4096;
    uint64_t *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) die("mmap: %s", strerror(errno));
    struct fid_mr *mr;
    CHECK(fi_mr_reg(domain, mem, bytes, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE, 0, 1, 0, &mr, NULL));
    if (mr_mode & FI_MR_ENDPOINT) {
        CHECK(fi_mr_bind(mr, &ep->fid, 0));
        CHECK(fi_mr_enable(mr));
    }
    void *desc = fi_mr_desc(mr);

    struct connection_data mine = {0}, peer = {0};
    mine.base = (uint64_t)(uintptr_t)mem;
    mine.key = fi_mr_key(mr);
    mine.addr_len = sizeof mine.addr;
    CHECK(fi_getname(&ep->fid, mine.addr, &mine.addr_len));
    char key[32], hex[2 * sizeof mine + 1];
    to_hex(&mine, sizeof mine, hex);
    snprintf(key, sizeof key, "ofi-raw-%d", me);
    pmi_put(key, hex);
    pmi_barrier();
    snprintf(key, sizeof key, "ofi-raw-%d", 1 - me);
    pmi_get(key, hex, sizeof hex);
    if (from_hex(hex, &peer, sizeof peer) != sizeof peer) die("PMI: the peer's connection data is truncated");
    fi_addr_t peer_addr;
    if (fi_av_insert(av, peer.addr, 1, &peer_addr, 0, NULL) != 1) die("fi_av_insert failed");
    const uint64_t raddr0 = (mr_mode & FI_MR_VIRT_ADDR) ? peer.base : 0;

    /* Words of the page: [0] put target, [1] fetch-add target, [2] stop flag; local buffers
     * from [8] on. */
    volatile uint64_t *stop = &mem[2];
    uint64_t *src = &mem[8], *dst = &mem[9], *operand = &mem[10], *result = &mem[11];
    *src = 1;
    *operand = 1;
    /* The transport's flush method (see choose_flush_method in src/transport/ofi/ofi.cc). */
    const int ordered = (info->tx_attr->msg_order & (FI_ORDER_RAW | FI_ORDER_RMA_RAW)) &&
                        info->ep_attr->max_order_raw_size >= 8;
    const int read_back = strcmp(prov_name, "shm") == 0 || ordered;
    const int inject = info->tx_attr->inject_size >= 8;
    pmi_barrier();

    if (me == 0) {
        char tp[96];
        snprintf(tp, sizeof tp, "ofi-raw/%s", prov_name);
        struct fi_context ctx;
        struct iovec iov = {src, 8};
        struct fi_rma_iov riov = {raddr0, 8, peer.key};
        struct fi_msg_rma msg = {&iov, &desc, 1, peer_addr, &riov, 1, &ctx, 0};
        long warm = iters / 10;
        double us;
#define PUT_FLUSH()                                                                                  \
    do {                                                                                             \
        if (read_back) {                                                                             \
            if (inject) POST(fi_inject_write(ep, src, 8, peer_addr, raddr0, peer.key));              \
            else {                                                                                   \
                POST(fi_write(ep, src, 8, desc, peer_addr, raddr0, peer.key, &ctx));                 \
                wait_one();                                                                          \
            }                                                                                        \
            POST(fi_read(ep, dst, 8, desc, peer_addr, raddr0, peer.key, &ctx));                      \
        } else {                                                                                     \
            POST(fi_writemsg(ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE));                       \
        }                                                                                            \
        wait_one();                                                                                  \
    } while (0)
#define GET()                                                                                        \
    do {                                                                                             \
        POST(fi_read(ep, dst, 8, desc, peer_addr, raddr0, peer.key, &ctx));                          \
        wait_one();                                                                                  \
    } while (0)
#define FETCH_ADD()                                                                                  \
    do {                                                                                             \
        POST(fi_fetch_atomic(ep, operand, 1, desc, result, desc, peer_addr, raddr0 + 8, peer.key,    \
                             FI_UINT64, FI_SUM, &ctx));                                              \
        wait_one();                                                                                  \
    } while (0)
        for (long i = 0; i < warm; ++i) PUT_FLUSH();
        TIME_PER_ITER(us, iters, PUT_FLUSH());
        report("ofi_raw", tp, 2, 1, 8, "put_flush_latency", us, "us");
        if (read_back && *dst != 1) die("the read-back returned %llu, not the value put", (unsigned long long)*dst);

        for (long i = 0; i < warm; ++i) GET();
        TIME_PER_ITER(us, iters, GET());
        report("ofi_raw", tp, 2, 1, 8, "get_latency", us, "us");

        uint64_t before;
        FETCH_ADD();
        before = *result;
        for (long i = 0; i < warm; ++i) FETCH_ADD();
        long done = warm + 1;
        TIME_PER_ITER(us, iters, { FETCH_ADD(); ++done; });
        report("ofi_raw", tp, 2, 1, 8, "fetch_add_latency", us, "us");
        FETCH_ADD();
        if (*result != before + (uint64_t)done) die("the fetch-add counter is %llu, expected %llu",
                                                    (unsigned long long)*result, (unsigned long long)(before + done));

        /* Tell rank 1 to stop polling. Only the local completion is awaited: anything that needs
         * rank 1's progress (a read-back, delivery completion) could wait for ever once rank 1
         * has seen the flag and stopped polling. */
        POST(fi_write(ep, src, 8, desc, peer_addr, raddr0 + 16, peer.key, &ctx));
        wait_one();
    } else {
        /* Target progress: libfabric's manual-progress providers complete the peer's reads and
         * atomics only while this process calls in. */
        while (!*stop) poll_cq();
    }
    pmi_barrier();

    fi_close(&mr->fid);
    fi_close(&ep->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    munmap(mem, bytes);
    pmi_finalize();
    return 0;
}
