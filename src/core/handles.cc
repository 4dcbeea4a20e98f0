// The registry of destroyed handle cells (see retire_handle in common.h).
#include "../base/common.h"

#include <mutex>
#include <vector>

namespace pgdds {
namespace {
struct retired_cells {
    std::mutex lock;
    std::vector<void *> cells;
};
retired_cells &registry()
{
    // Never destroyed, so a handle used from an exit handler still finds its dead cell.
    static retired_cells *r = new retired_cells;
    return *r;
}
}  // namespace

void retire_handle(void *cell)
{
    if (!cell) return;
    retired_cells &r = registry();
    std::lock_guard<std::mutex> g(r.lock);
    try {
        r.cells.push_back(cell);
    } catch (...) {
        // Out of memory: the cell stays allocated and unreferenced, which is harmless.
    }
}

}  // namespace pgdds
