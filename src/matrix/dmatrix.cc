// The distributed dense matrix: creation over a symmetric block, the tile directory, and the
// one-sided tile, slice and accumulate operations (dmatrix.h).
#include "dmatrix.h"
#include "region.h"

#include "../gpu/gpu.h"

#include <string>
#include <thread>

namespace pgdds::matrix {

status dmatrix::create(runtime *rt, const char *who, const pgdds_dmatrix_params_t &p, dmatrix *&out)
{
    layout l;
    status st = layout::agreed(rt, who, p, l);
    if (st != PGDDS_OK) return st;
    const bool gpu = l.memory == PGDDS_MEMORY_CUDA;
    uint64_t tiles_bytes = 0, bytes = 0;
    if (__builtin_mul_overflow(l.slots_per_rank, l.slot_bytes(), &tiles_bytes) ||
        __builtin_add_overflow(tiles_bytes, l.locks_bytes(), &bytes) || bytes > (uint64_t(1) << 40))
        return fail(PGDDS_ERR_NO_MEMORY, "%s: a %llu x %llu matrix needs more than a segment can hold per rank", who,
                    (unsigned long long)l.rows, (unsigned long long)l.cols);
    dmatrix *m = new dmatrix(rt);
    m->lay_ = l;
    m->rank_ = rt->rank();
    if (gpu) {
        // The tiles in this rank's device segment (zeroed there), the lock words in host memory;
        // every rank learns every rank's tile block, and every rank's failure.
        m->at_.device = gpu::device(*rt);
        st = pgdds_alloc_kind(m->ctx, PGDDS_MEMORY_CUDA, size_t(tiles_bytes ? tiles_bytes : 1), cache_line, &m->tiles_);
        if (st == PGDDS_OK) st = kernels::scale(m->at_, l.dtype, 1, tiles_bytes / l.esize, 0, pgdds_gptr_to_local(m->ctx, m->tiles_),
                                tiles_bytes / l.esize);
        if (st != PGDDS_OK) st = fail_prefix(st, who);
        bytes = l.locks_bytes();
    }
    st = containers::agree(rt, who, st);
    if (st == PGDDS_OK) st = pgdds_alloc_all(m->ctx, size_t(bytes), cache_line, PGDDS_ALLOC_ZERO, &m->block_);
    std::vector<pgdds_gptr_t> blocks(size_t(rt->nranks()));
    if (st == PGDDS_OK && gpu) {
        st = pgdds_allgather(m->ctx, &m->tiles_, blocks.data(), sizeof m->tiles_);
        if (st != PGDDS_OK) pgdds_free_all(m->ctx, m->block_);
    }
    if (st != PGDDS_OK) {
        if (m->tiles_ != PGDDS_GPTR_NULL) pgdds_free(m->ctx, m->tiles_);
        delete m;
        return std::string(pgdds_last_error()).rfind(who, 0) == 0 ? st : fail_prefix(st, who);
    }
    m->dir_.resize(l.tgrid_rows * l.tgrid_cols);
    for (uint64_t ti = 0; ti < l.tgrid_rows && st == PGDDS_OK; ++ti)
        for (uint64_t tj = 0; tj < l.tgrid_cols && st == PGDDS_OK; ++tj) {
            pgdds_gptr_t &d = m->dir_[ti * l.tgrid_cols + tj];
            if (gpu)
                d = pgdds_gptr_add(blocks[size_t(l.owner(ti, tj))], int64_t(l.slot(ti, tj) * l.slot_bytes()));
            else
                st = pgdds_gptr_at(m->ctx, pgdds_gptr_add(m->block_, int64_t(l.locks_bytes() + l.slot(ti, tj) * l.slot_bytes())),
                                   l.owner(ti, tj), &d);
        }
    if (st != PGDDS_OK) {  // cannot happen for a live block; unwind all the same
        pgdds_free_all(m->ctx, m->block_);
        delete m;
        return fail_prefix(st, who);
    }
    out = m;
    return PGDDS_OK;
}

status dmatrix::make_view(const pgdds_dmatrix *root, const region &r, dmatrix *&out)
{
    dmatrix *v = new dmatrix(r.m->rt);
    v->lay_ = r.m->lay_;
    v->rank_ = r.m->rank_;
    v->at_ = r.m->at_;
    v->root_ = root;
    v->shows_ = r.m;
    v->view_trans_ = r.trans;
    v->view_r0_ = r.r0, v->view_c0_ = r.c0, v->view_rows_ = r.rows, v->view_cols_ = r.cols;
    out = v;
    return PGDDS_OK;
}

status dmatrix::shown(const char *who, region &out) const
{
    if (!root_) {
        out = region::whole(*this);
        return PGDDS_OK;
    }
    if (root_->magic != dmatrix_magic || root_->impl != shows_)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the matrix this view shows has been destroyed", who);
    out = region{shows_, view_trans_, view_r0_, view_c0_, view_rows_, view_cols_};
    return PGDDS_OK;
}

status dmatrix::destroy(const char *who)
{
    if (root_) return PGDDS_OK;  // a view owns no memory
    // free_all completes every rank's operations first, so no rank reads the tiles after.
    status st = pgdds_free_all(ctx, block_);
    if (tiles_ != PGDDS_GPTR_NULL) {
        status fr = pgdds_free(ctx, tiles_);
        if (st == PGDDS_OK) st = fr;
    }
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

status dmatrix::get_tile(const char *who, uint64_t ti, uint64_t tj, void *buf, uint64_t ld) const
{
    return slice(who, ti * lay_.tile_rows, tj * lay_.tile_cols, lay_.tile_rows_of(ti), lay_.tile_cols_of(tj), buf, ld,
                 false);
}

status dmatrix::put_tile(const char *who, uint64_t ti, uint64_t tj, const void *buf, uint64_t ld) const
{
    return slice(who, ti * lay_.tile_rows, tj * lay_.tile_cols, lay_.tile_rows_of(ti), lay_.tile_cols_of(tj),
                 const_cast<void *>(buf), ld, true);
}

// Every piece of a stored tile row (a column when column-major) in the slice is one transfer,
// all in flight together (nbi), completed by one flush; pieces that are whole stored rows of a
// tile, where buf's rows are as long, are one transfer for all of them.
status dmatrix::slice(const char *who, uint64_t row0, uint64_t col0, uint64_t nrows, uint64_t ncols, void *buf,
                      uint64_t ld, bool put) const
{
    const size_t es = lay_.esize;
    const bool cm = lay_.col_major;
    status st = PGDDS_OK;
    bool issued = false;
    for (uint64_t ti = row0 / lay_.tile_rows; nrows && ti * lay_.tile_rows < row0 + nrows && st == PGDDS_OK; ++ti) {
        const uint64_t t_r0 = ti * lay_.tile_rows, trows = lay_.tile_rows_of(ti);
        const uint64_t r_lo = row0 > t_r0 ? row0 : t_r0;
        const uint64_t r_hi = std::min(row0 + nrows, t_r0 + trows);
        for (uint64_t tj = col0 / lay_.tile_cols; ncols && tj * lay_.tile_cols < col0 + ncols && st == PGDDS_OK; ++tj) {
            const uint64_t t_c0 = tj * lay_.tile_cols, tcols = lay_.tile_cols_of(tj);
            const uint64_t c_lo = col0 > t_c0 ? col0 : t_c0;
            const uint64_t c_hi = std::min(col0 + ncols, t_c0 + tcols);
            // In the tile's order: outer runs [o_lo, o_hi) from the tile's o0 (buf's ob0), each
            // the inner elements [i_lo, i_hi) of a run of `run` from the tile's i0 (buf's ib0).
            const uint64_t o_lo = cm ? c_lo : r_lo, o_hi = cm ? c_hi : r_hi, o0 = cm ? t_c0 : t_r0, ob0 = cm ? col0 : row0;
            const uint64_t i_lo = cm ? r_lo : c_lo, i_hi = cm ? r_hi : c_hi, i0 = cm ? t_r0 : t_c0, ib0 = cm ? row0 : col0;
            const uint64_t run = cm ? trows : tcols;
            const pgdds_gptr_t tile = tile_gptr(ti, tj);
            const bool whole_runs = i_lo == i0 && i_hi == i0 + run && ld == run;
            for (uint64_t o = o_lo; o < o_hi && st == PGDDS_OK; ++o) {
                const uint64_t n = whole_runs ? (o_hi - o_lo) * run : i_hi - i_lo;
                pgdds_gptr_t remote = pgdds_gptr_add(tile, int64_t(((o - o0) * run + (i_lo - i0)) * es));
                char *local = static_cast<char *>(buf) + ((o - ob0) * ld + (i_lo - ib0)) * es;
                st = put ? pgdds_put_nbi(ctx, remote, local, n * es) : pgdds_get_nbi(ctx, local, remote, n * es);
                issued = true;
                if (whole_runs) break;
            }
        }
    }
    if (issued) {
        status fl = pgdds_flush(ctx);
        if (st == PGDDS_OK) st = fl;
    }
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

pgdds_gptr_t dmatrix::lock_gptr(uint64_t ti, uint64_t tj) const
{
    pgdds_gptr_t own_lock = pgdds_gptr_add(block_, int64_t(8 * lay_.slot(ti, tj))), out = PGDDS_GPTR_NULL;
    pgdds_gptr_at(ctx, own_lock, lay_.owner(ti, tj), &out);  // a live block: cannot fail
    return out;
}

namespace {
// One try at a tile's lock word: `taken` when it was free (and is now this rank's).
status try_lock_tile(pgdds_context_t ctx, pgdds_gptr_t lock, bool &taken)
{
    uint64_t old = 1;
    status st = pgdds_atomic_cswap_u64(ctx, lock, 0, 1, &old);
    taken = st == PGDDS_OK && old == 0;
    if (taken) __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return st;
}

status release_tile_lock(pgdds_context_t ctx, pgdds_gptr_t lock)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return pgdds_atomic_u64(ctx, lock, PGDDS_AOP_SWAP, 0, nullptr);
}

// The accumulation itself, under the tile's lock, which this rank holds: buf (`outer` runs of
// `inner` elements, ld elements apart, in the tile's order, where kernels at `at` read it) added
// in place where this rank reaches the tile, else read into scratch, added, written back and
// completed before the lock goes (the next holder reads the sum).
status add_under_lock(pgdds_context_t ctx, kernels::place at, pgdds_dtype_t t, pgdds_gptr_t tile, void *in_place,
                      void *scratch, uint64_t outer, uint64_t inner, size_t bytes, const void *buf, uint64_t ld)
{
    if (in_place) return kernels::add(at, t, outer, inner, buf, ld, in_place, inner);
    status st = pgdds_get(ctx, scratch, tile, bytes);
    if (st == PGDDS_OK) st = kernels::add(at, t, outer, inner, buf, ld, scratch, inner);
    if (st == PGDDS_OK) st = pgdds_put(ctx, tile, scratch, bytes);
    if (st == PGDDS_OK) st = pgdds_flush(ctx);
    return st;
}
}  // namespace

status dmatrix::lock_tile(const char *who, pgdds_gptr_t lock) const
{
    for (;;) {
        bool taken = false;
        status st = try_lock_tile(ctx, lock, taken);
        if (st != PGDDS_OK) return fail_prefix(st, who);
        if (taken) return PGDDS_OK;
        // The holder may need this rank's progress to finish its transfer.
        pgdds_progress(ctx);
        std::this_thread::yield();
    }
}

status dmatrix::unlock_tile(const char *who, pgdds_gptr_t lock) const
{
    status st = release_tile_lock(ctx, lock);
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

status dmatrix::accumulate_tile(const char *who, uint64_t ti, uint64_t tj, const void *buf, uint64_t ld) const
{
    const uint64_t rows = lay_.tile_rows_of(ti), cols = lay_.tile_cols_of(tj);
    const uint64_t outer = lay_.outer(rows, cols), inner = lay_.inner(rows, cols);
    const pgdds_gptr_t lock = lock_gptr(ti, tj);
    void *in_place = reachable(ti, tj);
    const size_t bytes = rows * cols * lay_.esize;
    kernels::buffer tmp, staged;
    status st = in_place ? PGDDS_OK : tmp.ensure(at_, bytes);
    // Device kernels read a host buffer from a device copy of it.
    if (st == PGDDS_OK && !at_.host() && !kernels::device::holds(buf)) {
        const size_t span = ((outer - 1) * ld + inner) * lay_.esize;
        st = staged.ensure(at_, span);
        if (st == PGDDS_OK) st = kernels::copy(at_, staged.data(), buf, span);
        buf = staged.data();
    }
    if (st != PGDDS_OK) return fail_prefix(st, who);
    st = lock_tile(who, lock);
    if (st != PGDDS_OK) return st;
    st = add_under_lock(ctx, at_, lay_.dtype, tile_gptr(ti, tj), in_place, tmp.data(), outer, inner, bytes, buf, ld);
    if (st != PGDDS_OK) st = fail_prefix(st, who);
    status un = unlock_tile(who, lock);
    return st != PGDDS_OK ? st : un;
}

namespace {
// A non-blocking accumulation. Each poll (pgdds_test, pgdds_wait) tries the tile's lock once; the
// poll that takes it reads the tile, adds, writes the sum back and gives the lock back before it
// returns. The lock is never held between polls, so a rank that leaves the request unpolled (in
// a barrier, say) holds up nobody. The op holds its own copy of the addend and what it needs of
// the matrix, never the matrix itself.
class accumulate_op final : public deferred_op {
  public:
    struct target {
        pgdds_context_t ctx;
        const char *who;
        pgdds_gptr_t tile, lock;
        void *in_place;  // the tile where this rank loads and stores it, else null
        pgdds_dtype_t dtype;
        uint64_t outer, inner;  // the tile as stored (layout::outer, inner)
        size_t bytes;
    };
    accumulate_op(const target &t, std::vector<uint8_t> addend) : t_(t), addend_(std::move(addend)) {}
    bool ready() override
    {
        if (done_) return true;
        bool taken = false;
        status st = try_lock_tile(t_.ctx, t_.lock, taken);
        if (st != PGDDS_OK) return end(st);
        if (!taken) return false;  // held: the next poll asks again
        std::vector<uint8_t> scratch(t_.in_place ? 0 : t_.bytes);
        st = add_under_lock(t_.ctx, kernels::place{}, t_.dtype, t_.tile, t_.in_place, scratch.data(), t_.outer, t_.inner,
                            t_.bytes, addend_.data(), t_.inner);
        status un = release_tile_lock(t_.ctx, t_.lock);
        return end(st != PGDDS_OK ? st : un);
    }
    status finish() override { return st_ == PGDDS_OK ? st_ : fail(st_, "%s", why_.c_str()); }

  private:
    bool end(status st)
    {
        st_ = st;
        if (st != PGDDS_OK) why_ = std::string(t_.who) + ": " + pgdds_last_error();
        done_ = true;
        return true;
    }

    target t_;
    std::vector<uint8_t> addend_;
    bool done_ = false;
    status st_ = PGDDS_OK;
    std::string why_;
};
}  // namespace

status dmatrix::accumulate_tile_nb(const char *who, uint64_t ti, uint64_t tj, const void *buf,
                                   pgdds_request_t *req) const
{
    const uint64_t rows = lay_.tile_rows_of(ti), cols = lay_.tile_cols_of(tj);
    // Tiles in GPU memory take the blocking path (device kernels, staged copies) in the call.
    if (!at_.host()) return rt->settled_request(who, accumulate_tile(who, ti, tj, buf, lay_.inner(rows, cols)), req);
    try {
        const size_t bytes = rows * cols * lay_.esize;
        const uint8_t *in = static_cast<const uint8_t *>(buf);
        auto op = std::make_unique<accumulate_op>(
            accumulate_op::target{ctx, who, tile_gptr(ti, tj), lock_gptr(ti, tj), reachable(ti, tj), lay_.dtype,
                                  lay_.outer(rows, cols), lay_.inner(rows, cols), bytes},
            std::vector<uint8_t>(in, in + bytes));
        return rt->deferred_request(who, std::move(op), req);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

status dmatrix::read_tile(const char *who, uint64_t ti, uint64_t tj, kernels::buffer &buf, const void *&data) const
{
    if ((data = reachable(ti, tj)) != nullptr) return PGDDS_OK;
    const size_t bytes = lay_.tile_rows_of(ti) * lay_.tile_cols_of(tj) * lay_.esize;
    status st = buf.ensure(at_, bytes);
    data = buf.data();
    if (st == PGDDS_OK) st = pgdds_get(ctx, buf.data(), tile_gptr(ti, tj), bytes);
    return st == PGDDS_OK ? st : fail_prefix(st, who);
}

status settle(runtime *rt, const char *who, status st)
{
    const bool prefixed = st == PGDDS_OK || std::string(pgdds_last_error()).rfind(who, 0) == 0;
    st = containers::agree(rt, who, prefixed ? st : fail_prefix(st, who));
    status bar = pgdds_barrier(rt->handle());
    return st != PGDDS_OK ? st : (bar == PGDDS_OK ? bar : fail_prefix(bar, who));
}

}  // namespace pgdds::matrix
