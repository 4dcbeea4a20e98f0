// Device tile kernels in a build without CUDA (kernels.h): never reached, since no matrix is
// created in GPU memory without a device segment, which such a build refuses; refuse all the same.
#include "kernels.h"

#include "../base/common.h"

namespace pgdds::matrix::kernels::device {
namespace {
status refuse() { return fail(PGDDS_ERR_UNSUPPORTED, "matrices in GPU memory: this build of libpgdds has no CUDA"); }
}  // namespace

status gemm(int, pgdds_dtype_t, uint64_t, uint64_t, uint64_t, double, const void *, uint64_t, const void *, uint64_t,
            double, void *, uint64_t)
{
    return refuse();
}
status add(int, pgdds_dtype_t, uint64_t, uint64_t, const void *, uint64_t, void *, uint64_t) { return refuse(); }
status scale(int, pgdds_dtype_t, uint64_t, uint64_t, double, void *, uint64_t) { return refuse(); }
status copy(int, void *, const void *, size_t) { return refuse(); }
status alloc(int, size_t, void *&) { return refuse(); }
void free(int, void *) {}
bool holds(const void *) { return false; }
status spmm(int, pgdds_dtype_t, uint64_t, uint64_t, uint64_t, const uint64_t *, const uint64_t *, const void *, uint64_t,
            const void *, uint64_t, double, double, void *, uint64_t)
{
    return refuse();
}
status spgemm(int, pgdds_dtype_t, uint64_t, uint64_t, uint64_t, const csr_tile &, const csr_tile &, csr_tile &)
{
    return refuse();
}

}  // namespace pgdds::matrix::kernels::device
