/* libfabric is loaded when the ofi transport is used, not with libpgdds. One process without a
 * launcher; the argument says what it checks:
 *   shm      PGDDS_TRANSPORT=shm: libfabric is mapped neither before pgdds_init nor after it
 *   ofi      PGDDS_TRANSPORT=ofi: not before pgdds_init, mapped once it has succeeded
 *   missing  PGDDS_TRANSPORT=ofi, PGDDS_OFI_LIBRARY naming no file: pgdds_init fails with
 *            PGDDS_ERR_UNSUPPORTED and a message naming the library, and a second try alike
 * "Mapped" is read from /proc/self/maps: an object whose file name starts with "libfabric". */
#include <pgdds/pgdds.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int libfabric_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) {
        perror("FAIL: /proc/self/maps");
        exit(1);
    }
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        const char *slash = strrchr(line, '/');
        if (slash && strncmp(slash + 1, "libfabric", 9) == 0) found = 1;
    }
    fclose(f);
    return found;
}

static int failed(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (libfabric_mapped()) return failed("libfabric is mapped before pgdds_init");
    pgdds_context_t ctx = NULL;
    pgdds_status_t st = pgdds_init(NULL, &ctx);
    if (!strcmp(mode, "shm") || !strcmp(mode, "ofi")) {
        if (st != PGDDS_OK) {
            fprintf(stderr, "FAIL: pgdds_init: %s\n", pgdds_last_error());
            return 1;
        }
        int want = !strcmp(mode, "ofi");
        if (libfabric_mapped() != want)
            return failed(want ? "libfabric is not mapped after pgdds_init over ofi"
                               : "libfabric is mapped after pgdds_init over shm");
        if (pgdds_finalize(ctx) != PGDDS_OK) return failed("pgdds_finalize");
    } else if (!strcmp(mode, "missing")) {
        const char *name = getenv("PGDDS_OFI_LIBRARY");
        for (int attempt = 0; attempt < 2; ++attempt) {
            if (attempt) st = pgdds_init(NULL, &ctx);
            if (st != PGDDS_ERR_UNSUPPORTED || !name || !strstr(pgdds_last_error(), name)) {
                fprintf(stderr, "FAIL: pgdds_init returned %d (%s): %s\n", st, pgdds_strerror(st), pgdds_last_error());
                if (st == PGDDS_OK) pgdds_finalize(ctx);
                return 1;
            }
        }
        if (libfabric_mapped()) return failed("libfabric is mapped after a failed load");
    } else {
        return failed("usage: transport-ofi-loading shm|ofi|missing");
    }
    printf("transport/ofi-loading/%s: passed\n", mode);
    if (st != PGDDS_OK) printf("  %s\n", pgdds_last_error());
    return 0;
}
