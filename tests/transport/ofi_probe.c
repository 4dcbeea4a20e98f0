/* What pgdds-info shows of the ofi transport (pgdds_transport_probe/describe, no job): one
 * entry for the backend, which names the provider an empty PGDDS_OFI_PROVIDER takes, and one
 * per libfabric provider with RDM endpoints. Each provider named on the command line must be
 * listed once, usable, with validated (native) atomics, the manual progress libfabric gives
 * them by default, and a flush method.
 * usage: transport-ofi-probe PROVIDER... */
#include <pgdds/pgdds.h>

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    int count = 0;
    if (pgdds_transport_probe(&count) != PGDDS_OK) {
        fprintf(stderr, "FAIL: pgdds_transport_probe: %s\n", pgdds_last_error());
        return 1;
    }
    int backend_rows = 0, provider_rows = 0;
    int seen[64] = {0};
    for (int i = 0; i < count; ++i) {
        pgdds_transport_attr_t a;
        memset(&a, 0, sizeof a);
        a.field_mask = PGDDS_TRANSPORT_FIELD_TRANSPORT | PGDDS_TRANSPORT_FIELD_COMPONENT | PGDDS_TRANSPORT_FIELD_BUILT |
                       PGDDS_TRANSPORT_FIELD_USABLE | PGDDS_TRANSPORT_FIELD_ATOMICS | PGDDS_TRANSPORT_FIELD_PROGRESS |
                       PGDDS_TRANSPORT_FIELD_DETAIL;
        CHECK(pgdds_transport_describe(i, &a) == PGDDS_OK, "%s", pgdds_last_error());
        if (strcmp(a.transport, "ofi") != 0) continue;
        CHECK(a.built == 1, "the ofi backend is in this build");
        CHECK(a.detail && *a.detail, "entry %d has a detail line", i);
        if (!*a.component) {
            backend_rows++;
            CHECK(strstr(a.detail, "libfabric ") != NULL, "the backend's line names libfabric's version: %s", a.detail);
            CHECK(a.usable == 1, "the backend is usable here: %s", a.detail);
            continue;
        }
        provider_rows++;
        printf("ofi %-16s usable %d atomics %-28s progress %-7s %s\n", a.component, a.usable, a.atomics, a.progress,
               a.detail);
        for (int k = 1; k < argc && k < 64; ++k) {
            if (strcmp(a.component, argv[k]) != 0) continue;
            seen[k]++;
            CHECK(a.usable == 1, "%s is usable: %s", a.component, a.detail);
            CHECK(strcmp(a.atomics, "native") == 0, "%s validates every atomic: %s", a.component, a.atomics);
            CHECK(strcmp(a.progress, "manual") == 0, "%s progresses manually by default: %s", a.component, a.progress);
            CHECK(strstr(a.detail, "flush by ") != NULL, "%s names its flush method: %s", a.component, a.detail);
        }
    }
    CHECK(backend_rows == 1, "one entry for the backend, not %d", backend_rows);
    CHECK(provider_rows >= argc - 1, "%d provider entries", provider_rows);
    for (int k = 1; k < argc && k < 64; ++k) CHECK(seen[k] == 1, "provider %s listed once, not %d times", argv[k], seen[k]);
    if (failures) return 1;
    printf("transport/ofi-probe: passed (%d providers)\n", provider_rows);
    return 0;
}
