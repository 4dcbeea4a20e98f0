// The hosted array (BCL Table 1: Array): every element on one host rank, reached one-sidedly by
// the others; the host has a local view.
#include "block_array.h"

struct pgdds_array {
    uint64_t magic;
    pgdds::containers::block_array *impl;
};

using namespace pgdds;
using namespace pgdds::containers;

namespace {

constexpr uint64_t array_magic = 0x706741727261ull;  // "pgArra"

status resolve_array(pgdds_array *h, const char *who, block_array *&out)
{
    return resolve(h, array_magic, who, "array", out);
}

}  // namespace

extern "C" {

PGDDS_API pgdds_status_t pgdds_array_create(pgdds_context_t ctx, size_t elem_size, uint64_t count, int host_rank,
                                            pgdds_array_t *array)
{
    const char *who = "pgdds_array_create";
    runtime *rt = runtime::from(ctx);
    if (!rt) return fail(ctx ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG, "%s: the context is %s", who,
                         ctx ? "not live (finalized?)" : "NULL");
    if (!array) return fail(PGDDS_ERR_INVALID_ARG, "%s: array is NULL", who);
    try {
        block_array *impl = nullptr;
        status st = block_array::create(rt, who, elem_size, count, true, host_rank, impl);
        if (st != PGDDS_OK) return st;
        st = make_handle(array_magic, impl, *array);
        if (st != PGDDS_OK) delete impl;
        return st;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

PGDDS_API pgdds_status_t pgdds_array_destroy(pgdds_array_t array)
{
    const char *who = "pgdds_array_destroy";
    if (!array || array->magic != array_magic) return bad_handle(array, who, "array");
    status st = runtime::from(array->impl->ctx) ? array->impl->destroy(who)
                                                : fail(PGDDS_ERR_STATE, "%s: the context was finalized first", who);
    kill_handle(array);
    return st;
}

PGDDS_API pgdds_status_t pgdds_array_gptr(pgdds_array_t array, uint64_t index, pgdds_gptr_t *out)
{
    const char *who = "pgdds_array_gptr";
    block_array *a = nullptr;
    status st = resolve_array(array, who, a);
    if (st != PGDDS_OK) return st;
    if (!out) return fail(PGDDS_ERR_INVALID_ARG, "%s: out is NULL", who);
    return a->gptr_of(who, index, *out);
}

PGDDS_API pgdds_status_t pgdds_array_local(pgdds_array_t array, void **elems, uint64_t *count)
{
    const char *who = "pgdds_array_local";
    block_array *a = nullptr;
    status st = resolve_array(array, who, a);
    if (st != PGDDS_OK) return st;
    if (!elems || !count) return fail(PGDDS_ERR_INVALID_ARG, "%s: %s is NULL", who, elems ? "count" : "elems");
    uint64_t first;
    a->local(*elems, first, *count);
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_array_size(pgdds_array_t array, uint64_t *count)
{
    const char *who = "pgdds_array_size";
    block_array *a = nullptr;
    status st = resolve_array(array, who, a);
    if (st != PGDDS_OK) return st;
    if (!count) return fail(PGDDS_ERR_INVALID_ARG, "%s: count is NULL", who);
    *count = a->size();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_array_host(pgdds_array_t array, int *host_rank)
{
    const char *who = "pgdds_array_host";
    block_array *a = nullptr;
    status st = resolve_array(array, who, a);
    if (st != PGDDS_OK) return st;
    if (!host_rank) return fail(PGDDS_ERR_INVALID_ARG, "%s: host_rank is NULL", who);
    *host_rank = a->host();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_array_get(pgdds_array_t array, uint64_t first, uint64_t count, void *dst)
{
    block_array *a = nullptr;
    status st = resolve_array(array, "pgdds_array_get", a);
    return st != PGDDS_OK ? st : a->get("pgdds_array_get", first, count, dst);
}

PGDDS_API pgdds_status_t pgdds_array_put(pgdds_array_t array, uint64_t first, uint64_t count, const void *src)
{
    block_array *a = nullptr;
    status st = resolve_array(array, "pgdds_array_put", a);
    return st != PGDDS_OK ? st : a->put("pgdds_array_put", first, count, src);
}

}  // extern "C"
