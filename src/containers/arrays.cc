// The C entry points of the two arrays of BCL Table 1, one implementation (block_array) behind
// two handle types:
// - Array, hosted: every element on one host rank, reached one-sidedly by the others; the host
//   has a local view.
// - DArray, distributed: elements split block-wise over every rank, with global pointers to
//   single elements, each rank's local view, and range get/put across ranks.
#include "block_array.h"

struct pgdds_array {
    uint64_t magic;
    pgdds::containers::block_array *impl;
};
struct pgdds_darray {
    uint64_t magic;
    pgdds::containers::block_array *impl;
};

using namespace pgdds;
using namespace pgdds::containers;

namespace {

// What tells the two handle types apart: their magic and the name used in messages.
template <class Cell> struct kind;
template <> struct kind<pgdds_array> {
    static constexpr uint64_t magic = 0x706741727261ull;  // "pgArra"
    static constexpr const char *what = "array";
};
template <> struct kind<pgdds_darray> {
    static constexpr uint64_t magic = 0x706744417272ull;  // "pgDArr"
    static constexpr const char *what = "distributed array";
};

template <class Cell> status create(pgdds_context_t ctx, const char *who, size_t elem_size, uint64_t count,
                                    bool hosted, int host_rank, Cell **out)
{
    runtime *rt = runtime::from(ctx);
    if (!rt) return fail(ctx ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG, "%s: the context is %s", who,
                         ctx ? "not live (finalized?)" : "NULL");
    if (!rt->thread_allowed()) return rt->check_thread(who);
    if (!out) return fail(PGDDS_ERR_INVALID_ARG, "%s: array is NULL", who);
    try {
        block_array *impl = nullptr;
        status st = block_array::create(rt, who, elem_size, count, hosted, host_rank, impl);
        if (st != PGDDS_OK) return st;
        st = make_handle(kind<Cell>::magic, impl, *out);
        if (st != PGDDS_OK) delete impl;
        return st;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

template <class Cell> status destroy(Cell *h, const char *who)
{
    if (!h || h->magic != kind<Cell>::magic) return bad_handle(h, who, kind<Cell>::what);
    status st = runtime::from(h->impl->ctx) ? h->impl->destroy(who)
                                            : fail(PGDDS_ERR_STATE, "%s: the context was finalized first", who);
    kill_handle(h);
    return st;
}

// Runs op(array) on a live handle, after checking that `out` (the caller's result pointer, if
// any) is not NULL.
template <class Cell, class Op> status with_array(Cell *h, const char *who, const void *out, const char *out_name, Op op)
{
    block_array *a = nullptr;
    status st = resolve(h, kind<Cell>::magic, who, kind<Cell>::what, a);
    if (st != PGDDS_OK) return st;
    if (out_name && !out) return fail(PGDDS_ERR_INVALID_ARG, "%s: %s is NULL", who, out_name);
    return op(*a);
}

template <class Cell> status element_gptr(Cell *h, const char *who, uint64_t index, pgdds_gptr_t *out)
{
    return with_array(h, who, out, "out", [&](block_array &a) { return a.gptr_of(who, index, *out); });
}

template <class Cell> status size(Cell *h, const char *who, uint64_t *count)
{
    return with_array(h, who, count, "count", [&](block_array &a) {
        *count = a.size();
        return PGDDS_OK;
    });
}

template <class Cell> status get(Cell *h, const char *who, uint64_t first, uint64_t count, void *dst)
{
    return with_array(h, who, nullptr, nullptr, [&](block_array &a) { return a.get(who, first, count, dst); });
}

template <class Cell> status put(Cell *h, const char *who, uint64_t first, uint64_t count, const void *src)
{
    return with_array(h, who, nullptr, nullptr, [&](block_array &a) { return a.put(who, first, count, src); });
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------------------------------------
// Array
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_array_create(pgdds_context_t ctx, size_t elem_size, uint64_t count, int host_rank,
                                            pgdds_array_t *array)
{
    return create(ctx, "pgdds_array_create", elem_size, count, true, host_rank, array);
}

PGDDS_API pgdds_status_t pgdds_array_destroy(pgdds_array_t array) { return destroy(array, "pgdds_array_destroy"); }

PGDDS_API pgdds_status_t pgdds_array_gptr(pgdds_array_t array, uint64_t index, pgdds_gptr_t *out)
{
    return element_gptr(array, "pgdds_array_gptr", index, out);
}

PGDDS_API pgdds_status_t pgdds_array_local(pgdds_array_t array, void **elems, uint64_t *count)
{
    const char *who = "pgdds_array_local";
    return with_array(array, who, elems && count ? elems : nullptr, elems ? "count" : "elems", [&](block_array &a) {
        uint64_t first;
        a.local(*elems, first, *count);
        return PGDDS_OK;
    });
}

PGDDS_API pgdds_status_t pgdds_array_size(pgdds_array_t array, uint64_t *count)
{
    return size(array, "pgdds_array_size", count);
}

PGDDS_API pgdds_status_t pgdds_array_host(pgdds_array_t array, int *host_rank)
{
    return with_array(array, "pgdds_array_host", host_rank, "host_rank", [&](block_array &a) {
        *host_rank = a.host();
        return PGDDS_OK;
    });
}

PGDDS_API pgdds_status_t pgdds_array_get(pgdds_array_t array, uint64_t first, uint64_t count, void *dst)
{
    return get(array, "pgdds_array_get", first, count, dst);
}

PGDDS_API pgdds_status_t pgdds_array_put(pgdds_array_t array, uint64_t first, uint64_t count, const void *src)
{
    return put(array, "pgdds_array_put", first, count, src);
}

// ---------------------------------------------------------------------------------------------
// DArray
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_darray_create(pgdds_context_t ctx, size_t elem_size, uint64_t count,
                                             pgdds_darray_t *array)
{
    return create(ctx, "pgdds_darray_create", elem_size, count, false, 0, array);
}

PGDDS_API pgdds_status_t pgdds_darray_destroy(pgdds_darray_t array) { return destroy(array, "pgdds_darray_destroy"); }

PGDDS_API pgdds_status_t pgdds_darray_gptr(pgdds_darray_t array, uint64_t index, pgdds_gptr_t *out)
{
    return element_gptr(array, "pgdds_darray_gptr", index, out);
}

PGDDS_API pgdds_status_t pgdds_darray_local(pgdds_darray_t array, void **elems, uint64_t *first_index, uint64_t *count)
{
    const char *missing = !elems ? "elems" : !first_index ? "first_index" : !count ? "count" : nullptr;
    return with_array(array, "pgdds_darray_local", missing ? nullptr : elems, missing, [&](block_array &a) {
        a.local(*elems, *first_index, *count);
        return PGDDS_OK;
    });
}

PGDDS_API pgdds_status_t pgdds_darray_size(pgdds_darray_t array, uint64_t *count)
{
    return size(array, "pgdds_darray_size", count);
}

PGDDS_API pgdds_status_t pgdds_darray_get(pgdds_darray_t array, uint64_t first, uint64_t count, void *dst)
{
    return get(array, "pgdds_darray_get", first, count, dst);
}

PGDDS_API pgdds_status_t pgdds_darray_put(pgdds_darray_t array, uint64_t first, uint64_t count, const void *src)
{
    return put(array, "pgdds_darray_put", first, count, src);
}

}  // extern "C"
