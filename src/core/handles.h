// Handle cells: a public handle points at a cell {magic, impl} that is never freed, like the
// context's: a destroyed handle keeps its cell with a dead magic (retire_handle, common.h) and
// is refused, not dereferenced. Each kind of handle has its own magic, so a handle of one kind
// cast to another is refused too. Used by the teams, the containers, the key tables and the
// matrices.
#pragma once

#include "../base/common.h"

#include <new>

namespace pgdds {

constexpr uint64_t destroyed_magic = 0x646561646464ull;  // "deaddd"

// The status and message of a handle that is not a live one of its kind (`what`).
template <class Cell> status bad_handle(const Cell *h, const char *who, const char *what)
{
    if (!h) return fail(PGDDS_ERR_INVALID_ARG, "%s: the %s is NULL", who, what);
    if (h->magic == destroyed_magic) return fail(PGDDS_ERR_INVALID_ARG, "%s: the %s has been destroyed", who, what);
    return fail(PGDDS_ERR_INVALID_ARG, "%s: %p is not a %s", who, static_cast<const void *>(h), what);
}

// Makes a new handle cell for impl (which it then owns).
template <class Cell, class Impl> status make_handle(uint64_t magic, Impl *impl, Cell *&out)
{
    Cell *c = new (std::nothrow) Cell{magic, impl};
    if (!c) return fail(PGDDS_ERR_NO_MEMORY, "out of host memory for a handle");
    out = c;
    return PGDDS_OK;
}

// Marks a cell dead and keeps it for the rest of the process.
template <class Cell> void retire_dead(Cell *h)
{
    h->magic = destroyed_magic;
    retire_handle(h);
}

// Destroys the implementation behind a cell and marks the cell dead.
template <class Cell> void kill_handle(Cell *h)
{
    delete h->impl;
    h->impl = nullptr;
    retire_dead(h);
}

}  // namespace pgdds
