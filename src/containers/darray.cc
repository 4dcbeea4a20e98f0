// The distributed array (BCL Table 1: DArray): elements split block-wise over every rank, with
// global pointers to single elements, each rank's local view, and range get/put across ranks.
#include "block_array.h"

struct pgdds_darray {
    uint64_t magic;
    pgdds::containers::block_array *impl;
};

using namespace pgdds;
using namespace pgdds::containers;

namespace {

constexpr uint64_t darray_magic = 0x706744417272ull;  // "pgDArr"

status resolve_darray(pgdds_darray *h, const char *who, block_array *&out)
{
    return resolve(h, darray_magic, who, "distributed array", out);
}

}  // namespace

extern "C" {

PGDDS_API pgdds_status_t pgdds_darray_create(pgdds_context_t ctx, size_t elem_size, uint64_t count,
                                             pgdds_darray_t *array)
{
    const char *who = "pgdds_darray_create";
    runtime *rt = runtime::from(ctx);
    if (!rt) return fail(ctx ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG, "%s: the context is %s", who,
                         ctx ? "not live (finalized?)" : "NULL");
    if (!array) return fail(PGDDS_ERR_INVALID_ARG, "%s: array is NULL", who);
    try {
        block_array *impl = nullptr;
        status st = block_array::create(rt, who, elem_size, count, false, 0, impl);
        if (st != PGDDS_OK) return st;
        st = make_handle(darray_magic, impl, *array);
        if (st != PGDDS_OK) delete impl;
        return st;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

PGDDS_API pgdds_status_t pgdds_darray_destroy(pgdds_darray_t array)
{
    const char *who = "pgdds_darray_destroy";
    if (!array || array->magic != darray_magic) return bad_handle(array, who, "distributed array");
    status st = runtime::from(array->impl->ctx) ? array->impl->destroy(who)
                                                : fail(PGDDS_ERR_STATE, "%s: the context was finalized first", who);
    kill_handle(array);
    return st;
}

PGDDS_API pgdds_status_t pgdds_darray_gptr(pgdds_darray_t array, uint64_t index, pgdds_gptr_t *out)
{
    const char *who = "pgdds_darray_gptr";
    block_array *a = nullptr;
    status st = resolve_darray(array, who, a);
    if (st != PGDDS_OK) return st;
    if (!out) return fail(PGDDS_ERR_INVALID_ARG, "%s: out is NULL", who);
    return a->gptr_of(who, index, *out);
}

PGDDS_API pgdds_status_t pgdds_darray_local(pgdds_darray_t array, void **elems, uint64_t *first_index, uint64_t *count)
{
    const char *who = "pgdds_darray_local";
    block_array *a = nullptr;
    status st = resolve_darray(array, who, a);
    if (st != PGDDS_OK) return st;
    if (!elems || !first_index || !count)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %s is NULL", who, !elems ? "elems" : !first_index ? "first_index" : "count");
    a->local(*elems, *first_index, *count);
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_darray_size(pgdds_darray_t array, uint64_t *count)
{
    const char *who = "pgdds_darray_size";
    block_array *a = nullptr;
    status st = resolve_darray(array, who, a);
    if (st != PGDDS_OK) return st;
    if (!count) return fail(PGDDS_ERR_INVALID_ARG, "%s: count is NULL", who);
    *count = a->size();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_darray_get(pgdds_darray_t array, uint64_t first, uint64_t count, void *dst)
{
    block_array *a = nullptr;
    status st = resolve_darray(array, "pgdds_darray_get", a);
    return st != PGDDS_OK ? st : a->get("pgdds_darray_get", first, count, dst);
}

PGDDS_API pgdds_status_t pgdds_darray_put(pgdds_darray_t array, uint64_t first, uint64_t count, const void *src)
{
    block_array *a = nullptr;
    status st = resolve_darray(array, "pgdds_darray_put", a);
    return st != PGDDS_OK ? st : a->put("pgdds_darray_put", first, count, src);
}

}  // extern "C"
