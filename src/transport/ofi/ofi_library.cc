// libfabric, opened when the ofi transport is first used rather than when libpgdds is loaded.
//
// Loading libfabric.so.1 runs the library constructors of its providers' dependencies: Debian's
// build links the PSM providers, whose libinfinipath and libpsm2 each pin the process to CPU 0 and
// calibrate their clock by sleeping (about 0.1 s each), and install handlers for SIGSEGV, SIGBUS,
// SIGINT and others. Every process linked with libpgdds paid that at start, jobs that never left
// shared memory included. libfabric exports only a few functions (the rest of its API is inline,
// through the operation tables of the objects these return); libpgdds defines them here, hidden,
// each forwarding to libfabric's own, resolved with dlsym (its default symbol version: the one a
// link against the installed libfabric records).
#include "ofi_internal.h"

#include <dlfcn.h>

#include <cstdlib>

#include <mutex>

namespace pgdds {

namespace {

struct fabric_library {
    void *handle = nullptr;
    std::string why;  // why it could not be opened
    decltype(&::fi_version) version = nullptr;
    decltype(&::fi_getinfo) getinfo = nullptr;
    decltype(&::fi_freeinfo) freeinfo = nullptr;
    decltype(&::fi_dupinfo) dupinfo = nullptr;
    decltype(&::fi_fabric) fabric = nullptr;
    decltype(&::fi_strerror) strerror = nullptr;
    decltype(&::fi_tostr) tostr = nullptr;
};

template <typename F> bool resolve(fabric_library &lib, F &fn, const char *name)
{
    fn = reinterpret_cast<F>(dlsym(lib.handle, name));
    if (!fn && lib.why.empty()) lib.why = std::string("the library opened has no ") + name;
    return fn != nullptr;
}

const fabric_library &library()
{
    static fabric_library lib;
    static std::once_flag once;
    std::call_once(once, [] {
        const char *name = getenv("PGDDS_OFI_LIBRARY");  // also read where no runtime exists (pgdds-info)
        if (!name || !*name) name = "libfabric.so.1";
        lib.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!lib.handle) {
            const char *e = dlerror();
            lib.why = std::string("PGDDS_OFI_LIBRARY=") + name + ": " + (e ? e : "cannot be opened");
            return;
        }
        bool all = resolve(lib, lib.version, "fi_version") & resolve(lib, lib.getinfo, "fi_getinfo") &
                   resolve(lib, lib.freeinfo, "fi_freeinfo") & resolve(lib, lib.dupinfo, "fi_dupinfo") &
                   resolve(lib, lib.fabric, "fi_fabric") & resolve(lib, lib.strerror, "fi_strerror") &
                   resolve(lib, lib.tostr, "fi_tostr");
        if (!all) {
            dlclose(lib.handle);
            lib.handle = nullptr;
        }
    });
    return lib;
}

}  // namespace

status ofi_library_open()
{
    const fabric_library &lib = library();
    if (lib.handle) return PGDDS_OK;
    return fail(PGDDS_ERR_UNSUPPORTED, "ofi: libfabric cannot be loaded: %s", lib.why.c_str());
}

}  // namespace pgdds

// The exported functions of libfabric that the backend and the inline API call. Before a
// successful ofi_library_open() they fail as libfabric would without providers.
using pgdds::library;

extern "C" {

uint32_t fi_version(void)
{
    const auto &lib = library();
    return lib.handle ? lib.version() : 0;
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags, const struct fi_info *hints,
               struct fi_info **info)
{
    const auto &lib = library();
    return lib.handle ? lib.getinfo(version, node, service, flags, hints, info) : -FI_ENOSYS;
}

void fi_freeinfo(struct fi_info *info)
{
    const auto &lib = library();
    if (lib.handle) lib.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    const auto &lib = library();
    return lib.handle ? lib.dupinfo(info) : nullptr;
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    const auto &lib = library();
    return lib.handle ? lib.fabric(attr, fabric, context) : -FI_ENOSYS;
}

const char *fi_strerror(int errnum)
{
    const auto &lib = library();
    return lib.handle ? lib.strerror(errnum) : "libfabric is not loaded";
}

char *fi_tostr(const void *data, enum fi_type datatype)
{
    const auto &lib = library();
    return lib.handle ? lib.tostr(data, datatype) : nullptr;
}

}  // extern "C"
