// The C entry points of GPU memory (include/pgdds/pgdds.h, "GPU memory").
#include "gpu.h"

using namespace pgdds;

extern "C" {

PGDDS_API pgdds_status_t pgdds_alloc_kind(pgdds_context_t ctx, pgdds_memory_kind_t kind, size_t size,
                                          size_t alignment, pgdds_gptr_t *out)
{
    const char *who = "pgdds_alloc_kind";
    runtime *rt;
    if (status est = enter(ctx, who, rt); est != PGDDS_OK) return est;
    if (!out) return null_arg(who, "out");
    if (kind == PGDDS_MEMORY_HOST) return pgdds_alloc(ctx, size, alignment, out);
    if (kind == PGDDS_MEMORY_CUDA) return gpu::alloc(*rt, who, size, alignment, *out);
    return fail(PGDDS_ERR_INVALID_ARG, "%s: memory kind %d is neither PGDDS_MEMORY_HOST nor PGDDS_MEMORY_CUDA", who,
                int(kind));
}

PGDDS_API int pgdds_gptr_kind(pgdds_gptr_t ptr)
{
    const unsigned s = gptr::segment(ptr);
    return s == 0 ? PGDDS_MEMORY_HOST : s == gpu::segment_id ? PGDDS_MEMORY_CUDA : -1;
}

PGDDS_API pgdds_status_t pgdds_gpu_device(pgdds_context_t ctx, int *device)
{
    runtime *rt;
    if (status est = enter(ctx, "pgdds_gpu_device", rt); est != PGDDS_OK) return est;
    if (!device) return null_arg("pgdds_gpu_device", "device");
    *device = gpu::device(*rt);
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_gpu_probe(int *devices)
{
    if (!devices) return null_arg("pgdds_gpu_probe", "devices");
    *devices = 0;
    std::string why;
    if (!gpu::built()) return fail(PGDDS_ERR_UNSUPPORTED, "pgdds_gpu_probe: this library was built without CUDA");
    *devices = gpu::visible_devices(why);
    if (*devices == 0) fail(PGDDS_OK, "%s", why.c_str());
    return PGDDS_OK;
}

}  // extern "C"
