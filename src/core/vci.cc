#include "vci.h"

#include <cstdio>
#include <cstdlib>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace pgdds {

namespace {
int barrier_cmd = -1;  // the membarrier command to use, or -1 for a full fence only
}

bool asymmetric_barrier_init()
{
    if (barrier_cmd >= 0) return true;
    long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0);
    if (cmds < 0) return false;
    if ((cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0) {
        barrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
        return true;
    }
    if (cmds & MEMBARRIER_CMD_GLOBAL) {
        barrier_cmd = MEMBARRIER_CMD_GLOBAL;
        return true;
    }
    return false;
}

void asymmetric_barrier()
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (barrier_cmd >= 0) syscall(__NR_membarrier, barrier_cmd, 0);
}

void vci_scope::ownership_violation(vci &v)
{
    fprintf(stderr, "pgdds: internal error: two threads entered VCI %u at once without its lock\n", v.index);
    abort();
}

}  // namespace pgdds
