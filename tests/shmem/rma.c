/* Setup, query, the symmetric heap and RMA: typed (generic and named), sized and mem puts and
 * gets, blocking and _nbi, strided, p/g, put-with-signal and signal_fetch, fence, quiet,
 * shmem_ptr and the accessibility queries. Every PE writes to its right-hand neighbour. */
#include "shmem_check.h"

#include <stdint.h>

static long static_long;   /* static data: symmetric too (static_data.c tests it fully) */

int main(void)
{
    shmem_check_start();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    CHECK(n >= 1 && me >= 0 && me < n);

    int provided = -1;
    shmem_query_thread(&provided);
    CHECK(provided == SHMEM_THREAD_SINGLE);
    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    CHECK(major == 1 && minor == 5);
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0);
    shmem_init();   /* a second call has no effect */
    CHECK(shmem_my_pe() == me);

    CHECK(shmem_pe_accessible(right) == 1);
    CHECK(shmem_pe_accessible(n) == 0 && shmem_pe_accessible(-1) == 0);

    /* The heap: malloc, calloc (zeroed), align, realloc keeps the contents. */
    long *lv = shmem_malloc(64 * sizeof(long));
    CHECK(lv != NULL);
    CHECK(shmem_addr_accessible(lv, right) == 1);
    CHECK(shmem_addr_accessible(lv, n) == 0);
    long stack_long = 0;
    CHECK(shmem_addr_accessible(&stack_long, right) == 0);
    CHECK(shmem_addr_accessible(&static_long, right) == 1);
    CHECK(shmem_ptr(&static_long, me) == &static_long);
    CHECK(shmem_ptr(lv, me) == lv);
    int *zeros = shmem_calloc(100, sizeof(int));
    CHECK(zeros != NULL);
    int all_zero = 1;
    for (int i = 0; i < 100; ++i) all_zero &= zeros[i] == 0;
    CHECK(all_zero);
    double *aligned = shmem_align(256, 10 * sizeof(double));
    CHECK(aligned != NULL && ((uintptr_t)aligned % 256) == 0);
    CHECK(shmem_align(3, 8) == NULL);                        /* not a power of two */
    CHECK(shmem_malloc((size_t)1 << 62) == NULL);            /* more than the heap */
    CHECK(shmem_malloc(0) == NULL);
    /* SHMEM_SYMMETRIC_SIZE=32M (the rma-heap32m runs): the heap holds 8 MiB, not 40 MiB. */
    const char *heap = getenv("SHMEM_SYMMETRIC_SIZE");
    if (heap && strcmp(heap, "32M") == 0) {
        CHECK(shmem_malloc((size_t)40 << 20) == NULL);
        void *eight = shmem_malloc((size_t)8 << 20);
        CHECK(eight != NULL);
        shmem_free(eight);
    }
    for (int i = 0; i < 100; ++i) zeros[i] = me * 1000 + i;
    int *grown = shmem_realloc(zeros, 1000 * sizeof(int));
    CHECK(grown != NULL);
    int kept = 1;
    for (int i = 0; i < 100; ++i) kept &= grown[i] == me * 1000 + i;
    CHECK(kept);
    void *hinted = shmem_malloc_with_hints(128, SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK(hinted != NULL);

    /* Typed puts and gets, generic and named. */
    long src[64];
    for (int i = 0; i < 64; ++i) src[i] = me * 100 + i;
    shmem_put(lv, src, 64, right);
    shmem_barrier_all();
    int ok = 1;
    for (int i = 0; i < 64; ++i) ok &= lv[i] == left * 100 + i;
    CHECK(ok);
    long got[64];
    shmem_long_get(got, lv, 64, right);
    ok = 1;
    for (int i = 0; i < 64; ++i) ok &= got[i] == me * 100 + i;   /* right holds what I put */
    CHECK(ok);
    shmem_barrier_all();

    /* Every type of the table through its generic name: p and g. */
    aligned[0] = 0;
    shmem_barrier_all();
    shmem_p(aligned, 2.5 + me, right);
    shmem_barrier_all();
    CHECK(aligned[0] == 2.5 + left);
    CHECK(shmem_g(aligned, right) == 2.5 + me);
    long double *ld = shmem_malloc(sizeof(long double));
    shmem_p(ld, (long double)me / 3, right);
    shmem_barrier_all();
    CHECK(*ld == (long double)left / 3);
    unsigned short *us = shmem_malloc(4 * sizeof(unsigned short));
    shmem_ushort_p(us, (unsigned short)(60000 + me), right);
    shmem_barrier_all();
    CHECK(us[0] == 60000 + left);
    CHECK(shmem_ushort_g(us, left) == (unsigned short)(60000 + (left + n - 1) % n));

    /* Sized and mem forms, _nbi completed by quiet, then a barrier for visibility. */
    uint32_t w32[8] = {1, 2, 3, 4, 5, 6, 7, (uint32_t)me};
    uint32_t *r32 = shmem_calloc(8, sizeof(uint32_t));
    shmem_put32_nbi(r32, w32, 8, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(r32[7] == (uint32_t)left && r32[0] == 1);
    uint64_t w128[4] = {11, 12, 13, (uint64_t)me};
    uint64_t *r128 = shmem_calloc(4, sizeof(uint64_t));
    shmem_put128(r128, w128, 2, right);
    shmem_barrier_all();
    CHECK(r128[3] == (uint64_t)left && r128[0] == 11);
    char text[32];
    snprintf(text, sizeof text, "hello from %d", me);
    char *box = shmem_calloc(32, 1);
    shmem_putmem(box, text, strlen(text) + 1, right);
    shmem_putmem(NULL, text, 0, right);   /* zero bytes: a no-op, whatever the address */
    shmem_getmem(text, NULL, 0, right);
    shmem_barrier_all();
    char want[32];
    snprintf(want, sizeof want, "hello from %d", left);
    CHECK_MSG(strcmp(box, want) == 0, "got \"%s\"", box);
    char back[32] = {0};
    shmem_getmem_nbi(back, box, 32, right);
    shmem_quiet();
    snprintf(want, sizeof want, "hello from %d", me);
    CHECK(strcmp(back, want) == 0);
    uint16_t g16[4] = {0};
    shmem_get16(g16, us, 1, right);
    CHECK(g16[0] == 60000 + me);
    shmem_barrier_all();

    /* Strided: every other element of src into every third of lv. */
    for (int i = 0; i < 64; ++i) lv[i] = -1;
    shmem_barrier_all();
    shmem_long_iput(lv, src, 3, 2, 10, right);
    shmem_barrier_all();
    ok = 1;
    for (int i = 0; i < 10; ++i) ok &= lv[3 * i] == left * 100 + 2 * i && lv[3 * i + 1] == -1;
    CHECK(ok);
    long strided[20];
    for (int i = 0; i < 20; ++i) strided[i] = -7;
    shmem_iget(strided, lv, 2, 3, 10, me);   /* generic, from myself */
    ok = 1;
    for (int i = 0; i < 10; ++i) ok &= strided[2 * i] == left * 100 + 2 * i && strided[2 * i + 1] == -7;
    CHECK(ok);
    shmem_barrier_all();

    /* Put with signal: set, then add; the data is there when the signal is. */
    uint64_t *sig = shmem_calloc(2, sizeof(uint64_t));
    long *data = shmem_calloc(16, sizeof(long));
    shmem_long_put_signal(data, src, 16, &sig[0], 42, SHMEM_SIGNAL_SET, right);
    shmem_putmem_signal_nbi(data + 8, src, 8 * sizeof(long), &sig[1], 5, SHMEM_SIGNAL_ADD, right);
    shmem_putmem_signal_nbi(data + 8, src, 8 * sizeof(long), &sig[1], 6, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&sig[0]) == 42);
    CHECK_MSG(shmem_signal_fetch(&sig[1]) == 11, "%llu", (unsigned long long)shmem_signal_fetch(&sig[1]));
    CHECK(data[7] == left * 100 + 7 && data[8] == left * 100 && data[15] == left * 100 + 7);

    /* Fence orders two puts to one PE; shmem_ptr gives load/store access where it can. */
    shmem_long_p(&data[0], 1, right);
    shmem_fence();
    shmem_long_p(&data[1], 2, right);
    shmem_barrier_all();
    CHECK(data[0] == 1 && data[1] == 2);
    long *peer = shmem_ptr(data, right);
    if (peer) CHECK(peer[15] == me * 100 + 7);

    shmem_barrier_all();
    shmem_free(data);
    shmem_free(sig);
    shmem_free(box);
    shmem_free(r128);
    shmem_free(r32);
    shmem_free(us);
    shmem_free(ld);
    shmem_free(hinted);
    shmem_free(grown);
    shmem_free(aligned);
    shmem_free(lv);
    shmem_free(NULL);
    return shmem_check_end();
}
