/* Symmetric static and global data: variables of the program's .data and .bss (global, static,
 * file-scope and function-scope, arrays, structs) are the targets of put, get, AMOs, waits and
 * put-with-signal across PEs; initial values survive shmem_init; a child of fork() gets its own
 * copy; after shmem_finalize the variables keep their last values. Built as PIE and non-PIE. */
#include "shmem_check.h"

#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

/* .bss */
int g_int;
long g_arr[64];
uint64_t g_signal;
static int wait_flag;
static struct {
    long a;
    int b[5];
    double d;
} s_bss;

/* .data, with initial values */
struct init_s {
    long magic;
    int vals[4];
    char name[16];
};
struct init_s g_data = {0x5eedL, {1, 2, 3, 4}, "pgdds"};
static long s_counter = 100;
static unsigned int s_bits = 0xf0u;

static long *function_static(void)
{
    static long inside[8] = {7, 7, 7, 7, 7, 7, 7, 7};
    return inside;
}

int main(void)
{
    shmem_check_start();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* Initial values survive the mapping. */
    CHECK(g_data.magic == 0x5eedL && g_data.vals[3] == 4 && strcmp(g_data.name, "pgdds") == 0);
    CHECK(s_counter == 100 && s_bits == 0xf0u && function_static()[5] == 7);
    CHECK(g_int == 0 && g_arr[63] == 0 && s_bss.a == 0);

    int on_stack = 0;
    for (int pe = 0; pe < n; ++pe) {
        CHECK(shmem_addr_accessible(&g_int, pe));
        CHECK(shmem_addr_accessible(&g_data.vals[2], pe));
        CHECK(shmem_addr_accessible(&function_static()[1], pe));
        CHECK(!shmem_addr_accessible(&on_stack, pe));
    }
    CHECK(shmem_ptr(&g_arr[3], me) == &g_arr[3]);
    CHECK(shmem_ptr(&on_stack, me) == NULL);

    /* Puts: every PE writes its slot of every PE's array. */
    for (int pe = 0; pe < n; ++pe) shmem_long_p(&g_arr[me], 1000L * me + pe, pe);
    shmem_barrier_all();
    for (int i = 0; i < n; ++i) CHECK_MSG(g_arr[i] == 1000L * i + me, "g_arr[%d] = %ld", i, g_arr[i]);

    /* The same words through shmem_ptr where the peer's memory is mapped on this node. */
    long *peer = shmem_ptr(g_arr, right);
    if (peer) CHECK(peer[left] == 1000L * left + right);

    /* Gets of a .data struct and a function-scope static. */
    g_data.vals[0] = 10 * me;
    function_static()[0] = 20 * me;
    shmem_barrier_all();
    struct init_s theirs;
    shmem_getmem(&theirs, &g_data, sizeof theirs, right);
    CHECK(theirs.magic == 0x5eedL && theirs.vals[0] == 10 * right && theirs.vals[1] == 2 &&
          strcmp(theirs.name, "pgdds") == 0);
    CHECK(shmem_long_g(function_static(), right) == 20 * right);

    /* A struct put into a static .bss variable. */
    s_bss.a = -1;
    shmem_barrier_all();
    long a = me + 1;
    shmem_putmem(&s_bss.a, &a, sizeof a, right);
    shmem_int_put(s_bss.b, (int[5]){me, me, me, me, me}, 5, right);
    shmem_double_p(&s_bss.d, 0.5 * me, right);
    shmem_barrier_all();
    CHECK(s_bss.a == left + 1 && s_bss.b[0] == left && s_bss.b[4] == left && s_bss.d == 0.5 * left);

    /* Atomics on .data and .bss words. */
    shmem_long_atomic_add(&s_counter, 1, 0);
    long before = shmem_long_atomic_fetch_add(&s_counter, 2, 0);
    CHECK(before >= 100);
    shmem_uint_atomic_fetch_or(&s_bits, 1u << me % 4, right);
    shmem_barrier_all();
    if (me == 0) CHECK_MSG(s_counter == 100 + 3L * n, "s_counter = %ld", s_counter);
    CHECK((s_bits & 0xf0u) == 0xf0u && (s_bits & (1u << left % 4)));
    shmem_barrier_all();
    if (me == 0) {
        int winners = 0;
        for (int pe = 0; pe < n; ++pe) winners += shmem_int_atomic_compare_swap(&g_int, 0, 7, pe) == 0;
        CHECK(winners == n);
    }
    shmem_barrier_all();
    CHECK(g_int == 7);

    /* Point-to-point synchronization on a static flag. */
    shmem_int_atomic_set(&wait_flag, me + 1, right);
    shmem_int_wait_until(&wait_flag, SHMEM_CMP_NE, 0);
    CHECK_MSG(wait_flag == left + 1, "wait_flag = %d", wait_flag);

    /* Put with signal into global data. */
    long payload[4] = {me, me + 1, me + 2, me + 3};
    shmem_barrier_all();
    shmem_putmem_signal(&g_arr[32], payload, sizeof payload, &g_signal, 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&g_signal, SHMEM_CMP_EQ, 1);
    CHECK(g_arr[32] == left && g_arr[35] == left + 3);
    shmem_barrier_all();

    /* A child of fork() has its own copy: its writes do not reach the parent. */
    g_int = 11;
    pid_t child = fork();
    if (child == 0) {
        g_int = 99;
        _exit(g_data.magic == 0x5eedL ? 0 : 1);
    }
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_MSG(g_int == 11, "g_int = %d after the child wrote 99", g_int);
    shmem_barrier_all();

    int failures = shmem_check_end();
    /* After shmem_finalize the variables keep their values and stay writable. */
    if (g_arr[me] != 1000L * me + me || g_arr[32] != left) {
        fprintf(stderr, "FAIL PE %d: static data lost its values at shmem_finalize\n", me);
        failures = 1;
    }
    g_arr[0] = 5;
    return failures;
}
