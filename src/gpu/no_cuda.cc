// The GPU layer of a build without CUDA: no device segment, and every request for one says so.
#include "gpu.h"

namespace pgdds::gpu {

namespace {
status not_built(const char *who)
{
    return fail(PGDDS_ERR_UNSUPPORTED, "%s: device memory needs a library built with CUDA (this one was built "
                "without it: meson setup -Dcuda=enabled with the CUDA toolkit installed)", who);
}
}  // namespace

bool built() { return false; }
const char *toolkit_version() { return "no"; }
int visible_devices(std::string &why)
{
    why = "built without CUDA";
    return 0;
}
status attach(runtime &rt) { return rt.cfg().gpu_segment_size ? not_built("pgdds_init") : PGDDS_OK; }
status detach(runtime &) { return PGDDS_OK; }
bool is_device(runtime &, const void *) { return false; }
status rma(runtime &, const char *who, bool, pgdds_gptr_t, void *, size_t) { return not_built(who); }
status atomic(runtime &, const char *who, pgdds_gptr_t, const amo_args &) { return not_built(who); }
status alloc(runtime &, const char *who, size_t, size_t, pgdds_gptr_t &) { return not_built(who); }
status free(runtime &, const char *who, pgdds_gptr_t) { return not_built(who); }
void *to_local(runtime &, pgdds_gptr_t) { return nullptr; }
int device(runtime &) { return -1; }

}  // namespace pgdds::gpu
