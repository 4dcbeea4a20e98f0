// What the C entry points of the dense and sparse matrices (api.cc, sparse_api.cc) share: the
// frame around an operation on a live handle, the frame of a collective constructor, destroy,
// and the argument checks that read only the layout.
#pragma once

#include "dmatrix.h"

namespace pgdds::matrix {

// Runs op(matrix) on a live handle of `what` after checking that the caller's pointer `p`
// (named `name`; none when name is NULL) is not NULL; host memory running out is a status.
template <class Impl, class Cell, class Op>
status with_handle(Cell *h, uint64_t magic, const char *who, const char *what, const void *p, const char *name, Op op)
{
    Impl *m = nullptr;
    status st = containers::resolve(h, magic, who, what, m);
    if (st != PGDDS_OK) return st;
    if (name && !p) return fail(PGDDS_ERR_INVALID_ARG, "%s: %s is NULL", who, name);
    try {
        return op(*m);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

// A collective constructor's entry point: context, params and output checks, then make(rt,
// impl), and the handle made (the matrix destroyed again when that fails).
template <class Impl, class Cell, class Make>
status create_handle(pgdds_context_t ctx, const char *who, uint64_t magic, const void *params, Cell **out, Make make)
{
    runtime *rt = runtime::from(ctx);
    if (!rt) return fail(ctx ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG, "%s: the context is %s", who,
                         ctx ? "not live (finalized?)" : "NULL");
    if (!rt->thread_allowed()) return rt->check_thread(who);
    if (!params) return fail(PGDDS_ERR_INVALID_ARG, "%s: params is NULL", who);
    if (!out) return fail(PGDDS_ERR_INVALID_ARG, "%s: matrix is NULL", who);
    try {
        Impl *impl = nullptr;
        status st = make(rt, impl);
        if (st != PGDDS_OK) return st;
        st = containers::make_handle(magic, impl, *out);
        if (st != PGDDS_OK) {
            impl->destroy(who);
            delete impl;
        }
        return st;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

// Destroys the matrix behind a handle (collective) and kills the handle, even when the
// context was finalized first.
template <class Cell> status destroy_handle(Cell *h, uint64_t magic, const char *who, const char *what)
{
    if (!h || h->magic != magic) return containers::bad_handle(h, who, what);
    status st = runtime::from(h->impl->ctx) ? h->impl->destroy(who)
                                            : fail(PGDDS_ERR_STATE, "%s: the context was finalized first", who);
    containers::kill_handle(h);
    return st;
}

// The slice [row0, +nrows) x [col0, +ncols) lies inside a rows x cols matrix.
status check_slice(const char *who, uint64_t rows, uint64_t cols, uint64_t row0, uint64_t col0, uint64_t nrows,
                   uint64_t ncols);
// Tile (ti, tj) is rank `me`'s (local_tile).
status check_mine(const char *who, const layout &l, int me, uint64_t ti, uint64_t tj);
// The layout as pgdds_dmatrix_info_t.
pgdds_dmatrix_info_t info_of(const layout &l);

}  // namespace pgdds::matrix
