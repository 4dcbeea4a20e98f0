// Fatal signals stay the program's. Libraries the fabric backends link install handlers for
// SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT when they are loaded or first used: libpsm2 and
// libinfinipath (libfabric's psm2 and psm providers) print a backtrace and exit with status 1,
// and UCX's libucs prints one and chains to whatever it found. A rank that crashes must die of
// its signal, so that the launcher (pgdds-run, mpirun, srun) and the shell report it as such.
// When libpgdds is loaded, and again at the end of pgdds_init, it puts back the default
// disposition of any of these signals whose handler lives in one of those libraries; handlers
// of the program or of other libraries are left alone. libinfinipath also takes SIGTERM and
// SIGINT when it is loaded; those are put back too.
//
// libfabric's shm provider installs SIGSEGV, SIGBUS, SIGTERM and SIGINT handlers that unlink
// its files, walking its endpoint lists. They stay installed after the fabric is closed, and a
// SIGTERM during exit (a launcher ending the job) then jumps through freed memory. After
// pgdds_finalize has closed the transports, handlers that live in libfabric go too.
#include "../base/common.h"

#include <dlfcn.h>
#include <signal.h>

#include <cstring>
#include <initializer_list>

namespace {

bool handler_in_fabric_library(void *handler, bool libfabric_too)
{
    Dl_info info;
    if (!handler || !dladdr(handler, &info) || !info.dli_fname) return false;
    const char *base = std::strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    // libpsm2, and libinfinipath under libfabric's psm provider; UCX's libucs.
    return std::strncmp(base, "libpsm", 6) == 0 || std::strncmp(base, "libinfinipath.", 14) == 0 ||
           std::strncmp(base, "libucs.", 7) == 0 || (libfabric_too && std::strncmp(base, "libfabric.", 10) == 0);
}

void restore_signals(bool libfabric_too)
{
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT}) {
        struct sigaction sa;
        if (sigaction(sig, nullptr, &sa) != 0) continue;
        void *handler = (sa.sa_flags & SA_SIGINFO) ? reinterpret_cast<void *>(sa.sa_sigaction)
                                                   : reinterpret_cast<void *>(sa.sa_handler);
        if (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN || !handler_in_fabric_library(handler, libfabric_too))
            continue;
        struct sigaction dfl;
        std::memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, nullptr);
    }
}

}  // namespace

void pgdds::restore_fatal_signals() { restore_signals(false); }
void pgdds::release_fabric_signals() { restore_signals(true); }

namespace {
__attribute__((constructor)) void restore_fatal_signals_at_load() { pgdds::restore_fatal_signals(); }
}  // namespace
