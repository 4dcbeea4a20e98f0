#include "block_array.h"

#include <algorithm>

namespace pgdds::containers {

status block_array::create(runtime *rt, const char *who, size_t elem_size, uint64_t count, bool hosted, int host,
                           block_array *&out)
{
    status st = PGDDS_OK;
    if (!hosted) host = -1;
    if (elem_size == 0) st = fail(PGDDS_ERR_INVALID_ARG, "%s: elem_size is 0", who);
    else if (hosted && (host < 0 || host >= rt->nranks()))
        st = fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: host_rank %d is not in 0..%d", who, host, rt->nranks() - 1);
    else if (count > (uint64_t(1) << 50) / elem_size)
        st = fail(PGDDS_ERR_NO_MEMORY, "%s: %llu elements of %zu bytes are too many", who, (unsigned long long)count,
                  elem_size);
    st = agree_arguments(rt, who, st, {elem_size, count, uint64_t(int64_t(host))});
    if (st != PGDDS_OK) return st;
    std::unique_ptr<block_array> a(new block_array(rt));
    a->elem_size_ = elem_size;
    a->count_ = count;
    a->parts_ = host < 0 ? rt->nranks() : 1;
    a->first_rank_ = host < 0 ? 0 : host;
    a->block_ = block_size(count, a->parts_);
    bool holds = rt->rank() >= a->first_rank_ && rt->rank() < a->first_rank_ + a->parts_;
    pgdds_gptr_t mine = PGDDS_GPTR_NULL;
    if (holds) st = alloc_zeroed(rt, who, a->block_ * elem_size, cache_line, mine);
    st = agree(rt, who, st);
    if (st == PGDDS_OK) st = gather_parts(rt, who, mine, a->block_ * elem_size, a->where_);
    if (st != PGDDS_OK) {
        if (mine != PGDDS_GPTR_NULL) rt->allocator().free(gptr::offset(mine));
        return st;
    }
    out = a.release();
    return PGDDS_OK;
}

status block_array::destroy(const char *who)
{
    status st = rt->barrier(who);
    pgdds_gptr_t mine = where_.global[size_t(rt->rank())];
    if (mine != PGDDS_GPTR_NULL) rt->allocator().free(gptr::offset(mine));
    return st;
}

status block_array::gptr_of(const char *who, uint64_t index, pgdds_gptr_t &out) const
{
    if (index >= count_)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: index %llu is not below the size %llu", who,
                    (unsigned long long)index, (unsigned long long)count_);
    uint64_t part = index / block_;
    out = gptr::add(where_.global[size_t(first_rank_) + part], int64_t((index - part * block_) * elem_size_));
    return PGDDS_OK;
}

void block_array::local(void *&elems, uint64_t &first, uint64_t &count) const
{
    int part = rt->rank() - first_rank_;
    first = count = 0;
    elems = nullptr;
    if (part < 0 || part >= parts_) return;
    first = std::min(count_, uint64_t(part) * block_);
    count = std::min(count_ - first, block_);
    if (count) elems = where_.local[size_t(rt->rank())];
}

status block_array::check_range(const char *who, uint64_t first, uint64_t count, const void *buffer) const
{
    if (!buffer && count) return fail(PGDDS_ERR_INVALID_ARG, "%s: the buffer is NULL", who);
    if (first > count_ || count > count_ - first)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: elements [%llu, %llu + %llu) overrun the size %llu", who,
                    (unsigned long long)first, (unsigned long long)first, (unsigned long long)count,
                    (unsigned long long)count_);
    return PGDDS_OK;
}

template <class F> status block_array::for_pieces(uint64_t first, uint64_t count, F f) const
{
    for (uint64_t i = first, end = first + count; i < end;) {
        uint64_t part = i / block_, offset = i - part * block_;
        uint64_t n = std::min(end - i, block_ - offset);
        pgdds_gptr_t at = gptr::add(where_.global[size_t(first_rank_) + part], int64_t(offset * elem_size_));
        status st = f(at, i - first, n);
        if (st != PGDDS_OK) return st;
        i += n;
    }
    return PGDDS_OK;
}

status block_array::get(const char *who, uint64_t first, uint64_t count, void *dst) const
{
    status st = check_range(who, first, count, dst);
    if (st != PGDDS_OK || count == 0) return st;
    auto out = static_cast<uint8_t *>(dst);
    st = for_pieces(first, count, [&](pgdds_gptr_t at, uint64_t done, uint64_t n) {
        return pgdds_get_nbi(ctx, out + done * elem_size_, at, n * elem_size_);
    });
    if (st == PGDDS_OK) st = pgdds_flush(ctx);
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

status block_array::put(const char *who, uint64_t first, uint64_t count, const void *src) const
{
    status st = check_range(who, first, count, src);
    if (st != PGDDS_OK || count == 0) return st;
    auto in = static_cast<const uint8_t *>(src);
    st = for_pieces(first, count, [&](pgdds_gptr_t at, uint64_t done, uint64_t n) {
        return pgdds_put_nbi(ctx, at, in + done * elem_size_, n * elem_size_);
    });
    if (st == PGDDS_OK) st = pgdds_flush(ctx);
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

}  // namespace pgdds::containers
