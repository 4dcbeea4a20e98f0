#include "common.h"

#include <string>

#include <sys/mman.h>
#include <unistd.h>

namespace pgdds::containers {

status promise_error(const char *who, unsigned concurrent, unsigned allowed)
{
    unsigned known = PGDDS_CP_INSERT | PGDDS_CP_FIND | PGDDS_CP_PUSH | PGDDS_CP_POP | PGDDS_CP_LOCAL;
    if (concurrent & ~known)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: concurrency promise 0x%x has unknown bits 0x%x", who, concurrent,
                    concurrent & ~known);
    return fail(PGDDS_ERR_INVALID_ARG, "%s: concurrency promise 0x%x names operations this container does not "
                "have (it knows 0x%x and PGDDS_CP_LOCAL)", who, concurrent, allowed);
}

status alloc_zeroed(runtime *rt, const char *who, uint64_t bytes, size_t alignment, pgdds_gptr_t &out)
{
    uint64_t off;
    if (bytes > rt->segment_size())
        return fail(PGDDS_ERR_NO_MEMORY, "%s: %llu bytes do not fit in the %zu-byte segment (PGDDS_SEGMENT_SIZE)",
                    who, (unsigned long long)bytes, rt->segment_size());
    status st = rt->allocator().alloc(size_t(bytes), alignment, off);
    if (st != PGDDS_OK) {
        std::string why = pgdds_last_error();  // fail() rewrites the buffer it points to
        return fail(st, "%s: cannot allocate %llu bytes in rank %d's segment (size %zu; PGDDS_SEGMENT_SIZE): %s", who,
                    (unsigned long long)bytes, rt->rank(), rt->segment_size(), why.c_str());
    }
    memset(rt->segment_base() + off, 0, size_t(bytes));
    out = gptr::make(rt->rank(), 0, off);
    return PGDDS_OK;
}

void map_ahead(runtime *rt, pgdds_gptr_t part, uint64_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    uint8_t *p = part != PGDDS_GPTR_NULL && gptr::rank(part) != rt->rank() ? rt->direct(part) : nullptr;
    if (!p || bytes == 0) return;
    static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    uintptr_t first = uintptr_t(p) & ~(page - 1), end = uintptr_t(p) + bytes;
    // A hint: a kernel without it (EINVAL) or short of memory leaves the faults where they were.
    (void)madvise(reinterpret_cast<void *>(first), end - first, MADV_POPULATE_WRITE);
#else
    (void)rt, (void)part, (void)bytes;
#endif
}

status gather_parts(runtime *rt, const char *who, pgdds_gptr_t mine, uint64_t bytes, parts &out)
{
    std::vector<pgdds_gptr_t> all(size_t(rt->nranks()));
    status st = rt->allgather(who, &mine, all.data(), sizeof mine);
    if (st != PGDDS_OK) return st;
    out.local.assign(all.size(), nullptr);
    for (size_t r = 0; r < all.size(); ++r)
        if (all[r] != PGDDS_GPTR_NULL) {
            out.local[r] = rt->direct(all[r]);
            map_ahead(rt, all[r], bytes);
        }
    out.global = std::move(all);
    return PGDDS_OK;
}

bool spinner::still_waiting(const char *who)
{
    st_ = rt_->check_peers(who);
    if (st_ != PGDDS_OK) return false;
    double timeout = rt_->cfg().timeout, t = now_seconds();
    if (start_ == 0) start_ = t;
    if (timeout > 0 && t - start_ > timeout) {
        // A dead peer is the better explanation, whenever one can be seen.
        st_ = rt_->check_peers(who, true);
        if (st_ == PGDDS_OK)
            st_ = fail(PGDDS_ERR_TIMEOUT, "%s: a word held by another rank did not change within %.1f s "
                       "(PGDDS_TIMEOUT)", who, timeout);
        return false;
    }
    return true;
}

}  // namespace pgdds::containers
