#include "scratch.h"

#include "elementwise.h"

namespace pgdds::matrix {

status scratch::make(const char *who, const region &r, int grid_rows, int grid_cols, bool copy)
{
    const layout &l = r.m->lay();
    pgdds_dmatrix_params_t p{};
    p.field_mask = PGDDS_DMATRIX_FIELD_GRID | PGDDS_DMATRIX_FIELD_TILE | PGDDS_DMATRIX_FIELD_MEMORY;
    p.rows = r.rows, p.cols = r.cols;
    p.dtype = l.dtype;
    p.distribution = PGDDS_DIST_CUSTOM;
    p.grid_rows = grid_rows, p.grid_cols = grid_cols;
    p.tile_rows = r.trans ? l.tile_cols : l.tile_rows;
    p.tile_cols = r.trans ? l.tile_rows : l.tile_cols;
    p.memory = l.memory;
    status st = dmatrix::create(r.m->rt, who, p, m_);
    if (st != PGDDS_OK) return st;
    from_ = r;
    return copy ? add(who, 1, r, 0, whole()) : PGDDS_OK;
}

status scratch::make(const char *who, const region &r, bool copy)
{
    const layout &l = r.m->lay();
    return make(who, r, r.trans ? l.grid_cols : l.grid_rows, r.trans ? l.grid_rows : l.grid_cols, copy);
}

status scratch::write_back(const char *who) const
{
    from_.m->steals() = m_->steals();  // the counts of the product that ran into the copy
    return add(who, 1, whole(), 0, from_);
}

status scratch::release(const char *who)
{
    if (!m_) return PGDDS_OK;
    status st = m_->destroy(who);
    delete m_;
    m_ = nullptr;
    return st;
}

status scratch::release(const char *who, status st, std::initializer_list<scratch *> all)
{
    for (scratch *s : all) {
        status freed = s->release(who);
        if (st == PGDDS_OK) st = freed;
    }
    return st;
}

}  // namespace pgdds::matrix
