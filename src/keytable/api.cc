// The C ABI of the key tables: validation of every argument, then the table.
#include "keytable.h"

#include "../core/handles.h"

#include <new>

using namespace pgdds;
using namespace pgdds::keytable;

namespace {

constexpr uint64_t known_fields = PGDDS_KEYTABLE_FIELD_HASH | PGDDS_KEYTABLE_FIELD_CACHE_ENTRIES;
// Slot numbers and the allocator's view of the index keep capacities well below this.
constexpr uint64_t max_capacity = uint64_t(1) << 32;


status check_table(pgdds_keytable_t h, const char *who, table *&out)
{
    if (PGDDS_UNLIKELY(!h || h->magic != handle_magic)) return bad_handle(h, who, "key table");
    out = h->impl;
    return PGDDS_OK;
}

status check_key(const char *who, const void *key, size_t key_len)
{
    if (!key) return null_arg(who, "key");
    if (key_len == 0 || key_len > max_key_len)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: key_len %zu is not in 1..%zu", who, key_len, max_key_len);
    return PGDDS_OK;
}

status check_value(const char *who, const table &t, const void *value, size_t value_len)
{
    if (!value && value_len) return null_arg(who, "value");
    if (value_len > t.max_value_size())
        return fail(PGDDS_ERR_INVALID_ARG, "%s: value_len %zu exceeds the table's max_value_size (%zu)", who, value_len,
                    t.max_value_size());
    return PGDDS_OK;
}

// What every keyed operation checks first: a live table (into out) and a key of a valid length.
status check_table_key(pgdds_keytable_t h, const char *who, const void *key, size_t key_len, table *&out)
{
    status st = check_table(h, who, out);
    return st == PGDDS_OK ? check_key(who, key, key_len) : st;
}

// Runs a table operation, turning an exhausted host memory into a status.
template <class Op> status guarded(const char *who, Op op)
{
    try {
        return op();
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

// insert and put: the same checks, then the table's operation.
status write_value(pgdds_keytable_t h, const char *who,
                   status (table::*op)(const void *, size_t, const void *, size_t), const void *key, size_t key_len,
                   const void *value, size_t value_len)
{
    table *t = nullptr;
    status st = check_table_key(h, who, key, key_len, t);
    if (st == PGDDS_OK) st = check_value(who, *t, value, value_len);
    if (st != PGDDS_OK) return st;
    return guarded(who, [&] { return (t->*op)(key, key_len, value, value_len); });
}

}  // namespace

extern "C" {

PGDDS_API pgdds_status_t pgdds_keytable_create(pgdds_context_t ctx, const pgdds_keytable_params_t *params,
                                               pgdds_keytable_t *out)
{
    const char *who = "pgdds_keytable_create";
    runtime *rt = runtime::from(ctx);
    if (!rt) {
        if (!ctx) return null_arg(who, "the context");
        return fail(ctx->magic == dead_magic ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG,
                    "%s: the context is finalized or not a pgdds context", who);
    }
    if (!params) return null_arg(who, "params");
    if (!out) return null_arg(who, "table");
    if (params->field_mask & ~known_fields)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: field_mask 0x%llx has bits of no known field", who,
                    (unsigned long long)params->field_mask);
    if (params->max_value_size == 0 || params->max_value_size > PGDDS_KEYTABLE_MAX_VALUE_SIZE)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: max_value_size %zu is not in 1..%zu", who, params->max_value_size,
                    PGDDS_KEYTABLE_MAX_VALUE_SIZE);
    if (params->capacity_per_rank == 0 || params->capacity_per_rank > max_capacity)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: capacity_per_rank %llu is not in 1..%llu", who,
                    (unsigned long long)params->capacity_per_rank, (unsigned long long)max_capacity);
    if ((params->field_mask & PGDDS_KEYTABLE_FIELD_HASH) && !params->hash)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: PGDDS_KEYTABLE_FIELD_HASH is set but hash is NULL", who);
    status st = rt->check_thread(who);
    if (st != PGDDS_OK) return st;
    return guarded(who, [&] {
        std::unique_ptr<pgdds_keytable> cell(new pgdds_keytable{handle_magic, nullptr});
        status st = table::create(ctx, *params, cell->impl);
        if (st != PGDDS_OK) return st;
        *out = cell.release();  // never freed: a destroyed handle stays recognisable
        return PGDDS_OK;
    });
}

PGDDS_API pgdds_status_t pgdds_keytable_destroy(pgdds_keytable_t h)
{
    const char *who = "pgdds_keytable_destroy";
    table *t = nullptr;
    status st = check_table(h, who, t);
    if (st != PGDDS_OK) return st;
    if (runtime *rt = runtime::from(t->context())) {
        st = rt->check_thread(who);
        if (st != PGDDS_OK) return st;
    }
    st = guarded(who, [&] { return t->destroy(); });
    kill_handle(h);
    return st;
}

PGDDS_API pgdds_status_t pgdds_keytable_insert(pgdds_keytable_t h, const void *key, size_t key_len,
                                               const void *value, size_t value_len)
{
    return write_value(h, "pgdds_keytable_insert", &table::insert, key, key_len, value, value_len);
}

PGDDS_API pgdds_status_t pgdds_keytable_get(pgdds_keytable_t h, const void *key, size_t key_len, void *value,
                                            size_t *value_len)
{
    const char *who = "pgdds_keytable_get";
    table *t = nullptr;
    status st = check_table_key(h, who, key, key_len, t);
    if (st != PGDDS_OK) return st;
    if (!value_len) return null_arg(who, "value_len");
    if (!value && *value_len) return null_arg(who, "value");
    return guarded(who, [&] { return t->get(key, key_len, value, value_len); });
}

PGDDS_API pgdds_status_t pgdds_keytable_put(pgdds_keytable_t h, const void *key, size_t key_len, const void *value,
                                            size_t value_len)
{
    return write_value(h, "pgdds_keytable_put", &table::put, key, key_len, value, value_len);
}

PGDDS_API pgdds_status_t pgdds_keytable_atomic_u64(pgdds_keytable_t h, const void *key, size_t key_len,
                                                   size_t value_offset, pgdds_aop_t op, uint64_t operand,
                                                   uint64_t *fetched)
{
    const char *who = "pgdds_keytable_atomic_u64";
    table *t = nullptr;
    status st = check_table_key(h, who, key, key_len, t);
    if (st != PGDDS_OK) return st;
    if (!aop_valid(op))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not an operation key-table atomics take (ADD, AND, OR, XOR, SWAP)", who,
                    enum_value(op));
    if (value_offset % 8)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: value_offset %zu is not a multiple of 8", who, value_offset);
    if (t->max_value_size() < 8 || value_offset > t->max_value_size() - 8)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: the word at value_offset %zu overruns max_value_size (%zu)", who,
                    value_offset, t->max_value_size());
    return guarded(who, [&] { return t->atomic_u64(key, key_len, value_offset, op, operand, fetched); });
}

PGDDS_API pgdds_status_t pgdds_keytable_remove(pgdds_keytable_t h, const void *key, size_t key_len)
{
    const char *who = "pgdds_keytable_remove";
    table *t = nullptr;
    status st = check_table_key(h, who, key, key_len, t);
    if (st != PGDDS_OK) return st;
    return guarded(who, [&] { return t->remove(key, key_len); });
}

namespace {
// The arguments of the protocol queries: a live table, a rank of the job, somewhere to answer.
status protocol_query(pgdds_keytable_t h, const char *who, int rank, const int *protocol, table *&t)
{
    status st = check_table(h, who, t);
    if (st != PGDDS_OK) return st;
    if (!protocol) return null_arg(who, "protocol");
    runtime *rt = runtime::from(t->context());
    if (!rt || rank < 0 || rank >= rt->nranks())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: rank %d is not in the job", who, rank);
    return PGDDS_OK;
}
}  // namespace

PGDDS_API pgdds_status_t pgdds_keytable_protocol(pgdds_keytable_t h, int rank, int *protocol)
{
    table *t = nullptr;
    status st = protocol_query(h, "pgdds_keytable_protocol", rank, protocol, t);
    if (st != PGDDS_OK) return st;
    *protocol = t->protocol_to(rank);
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_keytable_op_protocol(pgdds_keytable_t h, int rank, int op, int *protocol)
{
    const char *who = "pgdds_keytable_op_protocol";
    table *t = nullptr;
    status st = protocol_query(h, who, rank, protocol, t);
    if (st != PGDDS_OK) return st;
    const int route = t->protocol_to(rank);
    switch (op) {
    case PGDDS_CONTAINER_OP_INSERT:  // a message to another owner under either protocol
        *protocol = rank == runtime::from(t->context())->rank() ? PGDDS_PROTOCOL_DIRECT : PGDDS_PROTOCOL_RPC;
        return PGDDS_OK;
    case PGDDS_CONTAINER_OP_GET:  // reads only, one-sided under either protocol
        *protocol = route == PGDDS_PROTOCOL_RPC ? PGDDS_PROTOCOL_RDMA : route;
        return PGDDS_OK;
    case PGDDS_CONTAINER_OP_PUT:
    case PGDDS_CONTAINER_OP_ATOMIC_U64:
    case PGDDS_CONTAINER_OP_REMOVE:  // lock the entry: the table's protocol
        *protocol = route;
        return PGDDS_OK;
    default:
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not an operation of a key table (PGDDS_CONTAINER_OP_INSERT, "
                    "_GET, _PUT, _ATOMIC_U64, _REMOVE)", who, op);
    }
}

PGDDS_API pgdds_status_t pgdds_keytable_foreach_local(pgdds_keytable_t h, pgdds_keytable_visit_t visit, void *arg)
{
    const char *who = "pgdds_keytable_foreach_local";
    table *t = nullptr;
    status st = check_table(h, who, t);
    if (st != PGDDS_OK) return st;
    if (!visit) return null_arg(who, "visit");
    return guarded(who, [&] { return t->foreach_local(visit, arg); });
}

}  // extern "C"
