// The peer map: placement of the job's ranks, and the explanation of a bad access.
#include "peer_map.h"

namespace pgdds {

void peer_map::set_placement(std::vector<int> node_of, std::vector<pid_t> pid_of, int nnodes)
{
    node_of_ = std::move(node_of);
    pid_of_ = std::move(pid_of);
    nnodes_ = nnodes;
    local_rank_ = local_nranks_ = 0;
    for (int r = 0; r < nranks_; ++r) {
        if (node_of_[r] != node_of_[rank_]) continue;
        if (r < rank_) ++local_rank_;
        ++local_nranks_;
    }
}

bool peer_map::all_direct() const
{
    for (uint8_t *b : peer_base_)
        if (!b) return false;
    return true;
}

status peer_map::access_error(const char *who, pgdds_gptr_t p, size_t n) const
{
    int r = gptr::rank(p);
    unsigned long long off = gptr::offset(p);
    if (p == PGDDS_GPTR_NULL) return fail(PGDDS_ERR_INVALID_ARG, "%s: the global pointer is PGDDS_GPTR_NULL", who);
    if (r >= nranks_)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: global pointer 0x%llx names rank %d, but the job has %d ranks",
                    who, (unsigned long long)p, r, nranks_);
    if (gptr::segment(p) != 0)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: global pointer 0x%llx names segment %u, which does not exist",
                    who, (unsigned long long)p, gptr::segment(p));
    if (off < segment_reserved)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: offset 0x%llx lies in the library's reserved header of rank %d's "
                    "segment (a null or corrupt global pointer?)", who, off, r);
    return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: %zu bytes at offset 0x%llx overrun rank %d's segment (size 0x%llx)",
                who, n, off, r, (unsigned long long)peer_size_[r]);
}

}  // namespace pgdds
