// Teams (the world, the node, strided and 2D splits) and the C ABI of the collectives: validation
// of every argument, then the collective on the team (collectives.cc).
#include "handles.h"
#include "runtime.h"

#include <new>

using namespace pgdds;

namespace {

constexpr uint64_t team_magic = 0x7465616d5f746d21ull;

// The team behind a live handle of a live context, checked for the calling thread.
status enter_team(pgdds_team_t team, const char *who, runtime *&rt)
{
    if (PGDDS_UNLIKELY(!team || team->magic != team_magic)) {
        if (!team)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: the team is NULL (a split gives ranks outside the new team "
                        "PGDDS_TEAM_NULL)", who);
        return bad_handle(team, who, "team");
    }
    rt = runtime::from(team->ctx);
    if (PGDDS_UNLIKELY(rt != team->rt)) return fail(PGDDS_ERR_STATE, "%s: the team's context was finalized", who);
    if (PGDDS_UNLIKELY(!rt->thread_allowed())) return rt->check_thread(who);
    return PGDDS_OK;
}

status check_root(const char *who, const team &t, int root)
{
    if (root < 0 || root >= t.size())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: root %d is not in 0..%d (team ranks)", who, root, t.size() - 1);
    return PGDDS_OK;
}

status check_reduction(const char *who, size_t count, const void *in, const void *out, bool receives,
                       pgdds_dtype_t dtype, pgdds_op_t op)
{
    if (count && !in) return null_arg(who, "in");
    if (count && receives && !out) return null_arg(who, "out");
    if (enum_value(dtype) < PGDDS_INT32 || enum_value(dtype) > PGDDS_DOUBLE)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not a pgdds_dtype_t", who, enum_value(dtype));
    if (enum_value(op) < PGDDS_OP_SUM || enum_value(op) > PGDDS_OP_BXOR)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not a pgdds_op_t", who, enum_value(op));
    if (op >= PGDDS_OP_BAND && (dtype == PGDDS_FLOAT || dtype == PGDDS_DOUBLE))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: bitwise operations need an integer type", who);
    if (count > SIZE_MAX / dtype_size(dtype)) return fail(PGDDS_ERR_INVALID_ARG, "%s: count %zu overflows", who, count);
    return PGDDS_OK;
}

// A count array of one entry per team rank: its sum must fit, and with displacements each block
// must lie inside a buffer that size_t can address.
status check_counts(const char *who, const team &t, const char *what, const size_t *counts, const size_t *displs)
{
    if (!counts) return null_arg(who, what);
    size_t total = 0;
    for (int r = 0; r < t.size(); ++r) {
        if (counts[r] > SIZE_MAX - total) return fail(PGDDS_ERR_INVALID_ARG, "%s: %s overflow", who, what);
        total += counts[r];
        if (displs && counts[r] > SIZE_MAX - displs[r])
            return fail(PGDDS_ERR_INVALID_ARG, "%s: block %d of %s overflows its displacement", who, r, what);
    }
    return PGDDS_OK;
}

pgdds_team *new_team(pgdds_team *parent, team &&t)
{
    pgdds_team *cell = new (std::nothrow) pgdds_team{team_magic, parent->ctx, parent->rt, std::move(t), false};
    if (!cell) fail(PGDDS_ERR_NO_MEMORY, "out of memory for a team");
    return cell;
}

}  // namespace

namespace pgdds {

pgdds_team *runtime::world_team()
{
    std::call_once(teams_once_, [this] {
        // Cells that outlive the runtime (kept by retire_handle), so that a handle used after
        // pgdds_finalize is refused as one of a finalized context, not read after being freed.
        pgdds_context_t ctx = handle();
        world_team_ = new pgdds_team{team_magic, ctx, this, team{}, true};
        node_team_ = new pgdds_team{team_magic, ctx, this, team{}, true};
        retire_handle(world_team_);
        retire_handle(node_team_);
        world_team_->t.id = 0;
        node_team_->t.id = 1;
        for (int r = 0; r < nranks(); ++r) {
            if (r == rank()) world_team_->t.me = r;
            world_team_->t.members.push_back(r);
            if (!is_local(r)) continue;
            if (r == rank()) node_team_->t.me = node_team_->t.size();
            node_team_->t.members.push_back(r);
        }
    });
    return world_team_;
}

pgdds_team *runtime::node_team()
{
    world_team();
    return node_team_;
}

status runtime::team_split_agree(const char *who, team &parent, const std::vector<int64_t> &params, uint32_t n_ids,
                                 uint32_t &base)
{
    // One MAX reduction of (next id, params, -params): the params agree where max == -max(-p).
    std::vector<int64_t> in(1 + 2 * params.size()), out(in.size());
    in[0] = team_next_id_;
    for (size_t i = 0; i < params.size(); ++i) {
        in[1 + i] = params[i];
        in[1 + params.size() + i] = -params[i];
    }
    status st = reduce(who, parent, in.data(), out.data(), in.size(), PGDDS_INT64, PGDDS_OP_MAX, -1);
    if (st != PGDDS_OK) return st;
    for (size_t i = 0; i < params.size(); ++i)
        if (out[1 + i] != -out[1 + params.size() + i])
            return fail(PGDDS_ERR_INVALID_ARG, "%s: the ranks of the parent team passed different values of "
                        "argument %zu (from %lld to %lld)", who, i + 1, (long long)-out[1 + params.size() + i],
                        (long long)out[1 + i]);
    if (out[0] > int64_t(UINT32_MAX - n_ids)) return fail(PGDDS_ERR_NO_MEMORY, "%s: team ids are exhausted", who);
    base = uint32_t(out[0]);
    team_next_id_ = base + n_ids;
    return PGDDS_OK;
}

}  // namespace pgdds

// ---------------------------------------------------------------------------------------------
// Teams
// ---------------------------------------------------------------------------------------------
PGDDS_API pgdds_status_t pgdds_team_world(pgdds_context_t ctx, pgdds_team_t *team)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_team_world", rt); est != PGDDS_OK) return est;
    if (!team) return null_arg("pgdds_team_world", "team");
    *team = rt->world_team();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_team_node(pgdds_context_t ctx, pgdds_team_t *team)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_team_node", rt); est != PGDDS_OK) return est;
    if (!team) return null_arg("pgdds_team_node", "team");
    *team = rt->node_team();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_team_rank(pgdds_team_t team, int *rank)
{
    runtime *rt;
    if (status est = enter_team(team, "pgdds_team_rank", rt); est != PGDDS_OK) return est;
    if (!rank) return null_arg("pgdds_team_rank", "rank");
    *rank = team->t.me;
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_team_size(pgdds_team_t team, int *size)
{
    runtime *rt;
    if (status est = enter_team(team, "pgdds_team_size", rt); est != PGDDS_OK) return est;
    if (!size) return null_arg("pgdds_team_size", "size");
    *size = team->t.size();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_team_translate_rank(pgdds_team_t src_team, int src_rank, pgdds_team_t dst_team,
                                                   int *dst_rank)
{
    const char *who = "pgdds_team_translate_rank";
    runtime *rt, *dst_rt;
    if (status est = enter_team(src_team, who, rt); est != PGDDS_OK) return est;
    if (status est = enter_team(dst_team, who, dst_rt); est != PGDDS_OK) return est;
    if (!dst_rank) return null_arg(who, "dst_rank");
    if (rt != dst_rt) return fail(PGDDS_ERR_INVALID_ARG, "%s: the teams belong to different contexts", who);
    if (src_rank < 0 || src_rank >= src_team->t.size())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: rank %d is not in 0..%d (the source team's ranks)", who, src_rank,
                    src_team->t.size() - 1);
    const int job_rank = src_team->t.members[size_t(src_rank)];
    const std::vector<int> &m = dst_team->t.members;
    auto it = std::find(m.begin(), m.end(), job_rank);
    *dst_rank = it == m.end() ? -1 : int(it - m.begin());
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_team_split_strided(pgdds_team_t parent, int start, int stride, int size,
                                                  pgdds_team_t *new_team_out)
{
    const char *who = "pgdds_team_split_strided";
    runtime *rt;
    if (status est = enter_team(parent, who, rt); est != PGDDS_OK) return est;
    if (!new_team_out) return null_arg(who, "new_team");
    uint32_t id;
    status st = rt->team_split_agree(who, parent->t, {start, stride, size}, 1, id);
    if (st != PGDDS_OK) return st;
    // Checked after the agreement: every rank fails alike, and none has waited for a split that
    // another refused.
    const int n = parent->t.size();
    if (start < 0 || start >= n || size < 1 || size > n || (size > 1 && stride < 1) ||
        int64_t(start) + int64_t(size - 1) * int64_t(size > 1 ? stride : 0) >= n)
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: start %d, stride %d, size %d do not lie in the parent team's "
                    "ranks 0..%d", who, start, stride, size, n - 1);
    team t;
    t.id = id;
    for (int i = 0; i < size; ++i) {
        const int pr = start + i * (size > 1 ? stride : 0);
        if (pr == parent->t.me) t.me = i;
        t.members.push_back(parent->t.members[size_t(pr)]);
    }
    *new_team_out = nullptr;
    if (t.me < 0) return PGDDS_OK;  // not a member
    pgdds_team *cell = new_team(parent, std::move(t));
    if (!cell) return PGDDS_ERR_NO_MEMORY;
    st = rt->attach_slots(who, cell->t);
    if (st != PGDDS_OK) {
        delete cell;
        return st;
    }
    *new_team_out = cell;
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_team_split_2d(pgdds_team_t parent, int xrange, pgdds_team_t *xaxis_team,
                                             pgdds_team_t *yaxis_team)
{
    const char *who = "pgdds_team_split_2d";
    runtime *rt;
    if (status est = enter_team(parent, who, rt); est != PGDDS_OK) return est;
    if (!xaxis_team) return null_arg(who, "xaxis_team");
    if (!yaxis_team) return null_arg(who, "yaxis_team");
    uint32_t id;
    status st = rt->team_split_agree(who, parent->t, {xrange}, 2, id);
    if (st != PGDDS_OK) return st;
    if (xrange < 1) return fail(PGDDS_ERR_INVALID_ARG, "%s: xrange %d is not positive", who, xrange);
    const int n = parent->t.size(), x = std::min(xrange, n), me = parent->t.me;
    // Row (x axis): the parent ranks of this rank's row, in order; column (y axis): those of its column.
    team row, col;
    row.id = id;
    col.id = id + 1;
    for (int pr = (me / x) * x; pr < std::min(n, (me / x + 1) * x); ++pr) {
        if (pr == me) row.me = row.size();
        row.members.push_back(parent->t.members[size_t(pr)]);
    }
    for (int pr = me % x; pr < n; pr += x) {
        if (pr == me) col.me = col.size();
        col.members.push_back(parent->t.members[size_t(pr)]);
    }
    pgdds_team *r = new_team(parent, std::move(row));
    pgdds_team *c = r ? new_team(parent, std::move(col)) : nullptr;
    if (!c) {
        delete r;
        return PGDDS_ERR_NO_MEMORY;
    }
    st = rt->attach_slots(who, r->t);
    if (st == PGDDS_OK) st = rt->attach_slots(who, c->t);
    if (st != PGDDS_OK) {
        delete r;
        delete c;
        return st;
    }
    *xaxis_team = r;
    *yaxis_team = c;
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_team_destroy(pgdds_team_t team)
{
    runtime *rt;
    if (team && team->magic == team_magic && team->predefined)
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_team_destroy: the world and node teams are not destroyed");
    if (status est = enter_team(team, "pgdds_team_destroy", rt); est != PGDDS_OK && est != PGDDS_ERR_STATE) return est;
    team->t.members = {};
    retire_dead(team);
    return PGDDS_OK;
}

// ---------------------------------------------------------------------------------------------
// Collectives: each on the world team (the context's calls) and on any team
// ---------------------------------------------------------------------------------------------
namespace {

status barrier_on(runtime *rt, pgdds_team_t team, const char *who) { return rt->barrier(who, team->t); }

status broadcast_on(runtime *rt, pgdds_team_t team, const char *who, void *buf, size_t n, int root)
{
    if (!buf && n) return null_arg(who, "buf");
    if (status st = check_root(who, team->t, root); st != PGDDS_OK) return st;
    return rt->broadcast(who, team->t, buf, n, root);
}

status allreduce_on(runtime *rt, pgdds_team_t team, const char *who, const void *in, void *out, size_t count,
                    pgdds_dtype_t dtype, pgdds_op_t op)
{
    if (status st = check_reduction(who, count, in, out, true, dtype, op); st != PGDDS_OK) return st;
    return rt->reduce(who, team->t, in, out, count, dtype, op, -1);
}

status allgather_on(runtime *rt, pgdds_team_t team, const char *who, const void *in, void *out, size_t bytes)
{
    if (bytes && !in) return null_arg(who, "in");
    if (bytes && !out) return null_arg(who, "out");
    if (bytes > SIZE_MAX / size_t(team->t.size()))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %zu bytes per rank overflow", who, bytes);
    return rt->allgather(who, team->t, in, out, bytes);
}

}  // namespace

PGDDS_API pgdds_status_t pgdds_barrier(pgdds_context_t ctx)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_barrier", rt); est != PGDDS_OK) return est;
    return barrier_on(rt, rt->world_team(), "pgdds_barrier");
}

PGDDS_API pgdds_status_t pgdds_broadcast(pgdds_context_t ctx, void *buf, size_t n, int root)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_broadcast", rt); est != PGDDS_OK) return est;
    return broadcast_on(rt, rt->world_team(), "pgdds_broadcast", buf, n, root);
}

PGDDS_API pgdds_status_t pgdds_allreduce(pgdds_context_t ctx, const void *in, void *out, size_t count, pgdds_dtype_t dtype,
                                         pgdds_op_t op)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_allreduce", rt); est != PGDDS_OK) return est;
    return allreduce_on(rt, rt->world_team(), "pgdds_allreduce", in, out, count, dtype, op);
}

PGDDS_API pgdds_status_t pgdds_allgather(pgdds_context_t ctx, const void *in, void *out, size_t bytes_per_rank)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_allgather", rt); est != PGDDS_OK) return est;
    return allgather_on(rt, rt->world_team(), "pgdds_allgather", in, out, bytes_per_rank);
}

PGDDS_API pgdds_status_t pgdds_team_barrier(pgdds_team_t team)
{
    runtime *rt;
    if (status est = enter_team(team, "pgdds_team_barrier", rt); est != PGDDS_OK) return est;
    return barrier_on(rt, team, "pgdds_team_barrier");
}

PGDDS_API pgdds_status_t pgdds_team_broadcast(pgdds_team_t team, void *buf, size_t n, int root)
{
    runtime *rt;
    if (status est = enter_team(team, "pgdds_team_broadcast", rt); est != PGDDS_OK) return est;
    return broadcast_on(rt, team, "pgdds_team_broadcast", buf, n, root);
}

PGDDS_API pgdds_status_t pgdds_team_allreduce(pgdds_team_t team, const void *in, void *out, size_t count,
                                              pgdds_dtype_t dtype, pgdds_op_t op)
{
    runtime *rt;
    if (status est = enter_team(team, "pgdds_team_allreduce", rt); est != PGDDS_OK) return est;
    return allreduce_on(rt, team, "pgdds_team_allreduce", in, out, count, dtype, op);
}

PGDDS_API pgdds_status_t pgdds_team_reduce(pgdds_team_t team, const void *in, void *out, size_t count,
                                           pgdds_dtype_t dtype, pgdds_op_t op, int root)
{
    const char *who = "pgdds_team_reduce";
    runtime *rt;
    if (status est = enter_team(team, who, rt); est != PGDDS_OK) return est;
    if (status st = check_root(who, team->t, root); st != PGDDS_OK) return st;
    if (status st = check_reduction(who, count, in, out, team->t.me == root, dtype, op); st != PGDDS_OK) return st;
    return rt->reduce(who, team->t, in, out, count, dtype, op, root);
}

PGDDS_API pgdds_status_t pgdds_team_allgather(pgdds_team_t team, const void *in, void *out, size_t bytes_per_rank)
{
    runtime *rt;
    if (status est = enter_team(team, "pgdds_team_allgather", rt); est != PGDDS_OK) return est;
    return allgather_on(rt, team, "pgdds_team_allgather", in, out, bytes_per_rank);
}

PGDDS_API pgdds_status_t pgdds_team_allgatherv(pgdds_team_t team, const void *in, void *out, const size_t *counts,
                                               const size_t *displs)
{
    const char *who = "pgdds_team_allgatherv";
    runtime *rt;
    if (status est = enter_team(team, who, rt); est != PGDDS_OK) return est;
    if (status st = check_counts(who, team->t, "counts", counts, displs); st != PGDDS_OK) return st;
    if (counts[team->t.me] && !in) return null_arg(who, "in");
    if (!out) return null_arg(who, "out");
    return rt->allgatherv(who, team->t, in, out, counts, displs);
}

PGDDS_API pgdds_status_t pgdds_team_alltoall(pgdds_team_t team, const void *in, void *out, size_t bytes_per_pair)
{
    const char *who = "pgdds_team_alltoall";
    runtime *rt;
    if (status est = enter_team(team, who, rt); est != PGDDS_OK) return est;
    if (bytes_per_pair && !in) return null_arg(who, "in");
    if (bytes_per_pair && !out) return null_arg(who, "out");
    if (bytes_per_pair > SIZE_MAX / size_t(team->t.size()))
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %zu bytes per pair overflow", who, bytes_per_pair);
    return rt->alltoall(who, team->t, in, out, bytes_per_pair);
}

PGDDS_API pgdds_status_t pgdds_team_alltoallv(pgdds_team_t team, const void *in, const size_t *send_counts,
                                              const size_t *send_displs, void *out, const size_t *recv_counts,
                                              const size_t *recv_displs)
{
    const char *who = "pgdds_team_alltoallv";
    runtime *rt;
    if (status est = enter_team(team, who, rt); est != PGDDS_OK) return est;
    if (status st = check_counts(who, team->t, "send_counts", send_counts, send_displs); st != PGDDS_OK) return st;
    if (status st = check_counts(who, team->t, "recv_counts", recv_counts, recv_displs); st != PGDDS_OK) return st;
    if (!in) return null_arg(who, "in");
    if (!out) return null_arg(who, "out");
    return rt->alltoallv(who, team->t, in, send_counts, send_displs, out, recv_counts, recv_displs);
}
