// The backend-level conformance suite (conformance.h) for the backend that PGDDS_TRANSPORT
// names (shm, ofi, ucx, verbs), configured by its own environment (PGDDS_OFI_PROVIDER,
// PGDDS_OFI_ATOMICS, UCX_TLS, ...), against a fake host: no runtime. Run under pgdds-run (or
// alone: one rank). A backend absent here (verbs without an RDMA device) skips with the reason.
#include "conformance.h"

using namespace pgdds;

int main()
{
    const char *which = getenv("PGDDS_TRANSPORT");
    const std::string backend = which && *which ? which : "shm";
    std::unique_ptr<transport> t;
    status st = PGDDS_ERR_INVALID_ARG;
    if (backend == "shm") st = transport_create_shm(t);
    else if (backend == "ofi") st = transport_create_ofi(t);
    else if (backend == "ucx") st = transport_create_ucx(t);
    else if (backend == "verbs") st = transport_create_verbs(t);
    if (st != PGDDS_OK) {
        fprintf(stderr, "FAIL: backend '%s' (PGDDS_TRANSPORT): %s\n", backend.c_str(),
                st == PGDDS_ERR_INVALID_ARG ? "unknown" : pgdds_last_error());
        return 1;
    }

    rig u;
    // Two user VCIs and the service VCI, as PGDDS_NUM_VCIS=2 would give.
    u.start(t->settings_prefix(), 3);
    conformance_logging(u.me);
    // The configuration table's defaults of the backends' own variables.
    u.host->set_default("ATOMICS", "auto");
    u.host->set_default("DOMAINS", "auto");

    st = u.bring_up(std::move(t), conf::seg_bytes);
    if (st != PGDDS_OK) {
        const char *skip = t_skip_reason(st);
        if (skip) {
            if (u.me == 0) printf("SKIP: %s (open: %s)\n", skip, pgdds_last_error());
            u.boot->finalize();
            return 77;
        }
        fprintf(stderr, "FAIL rank %d: bringing up %s: %d (%s): %s\n", u.me, backend.c_str(), st, pgdds_strerror(st),
                pgdds_last_error());
        u.boot->finalize();
        return 1;
    }
    if (u.me == 0) printf("backend %s, atomics %s, %u endpoints\n", u.t->name(), u.t->caps().atomics.c_str(),
                          u.host->endpoints());
    conformance_suite(u, backend.c_str());
    if (u.me == 0) printf("AGAIN met %lu times on rank 0\n", u.agains);
    u.bring_down();
    return u.finish(("transport/" + backend + " conformance").c_str());
}
