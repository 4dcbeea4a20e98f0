/* pgdds_init over a libfabric provider that does not exist fails cleanly: PGDDS_ERR_UNSUPPORTED
 * with a message naming the provider. Run without a launcher, with PGDDS_TRANSPORT=ofi,
 * PGDDS_OFI_PROVIDER=no-such-provider and PGDDS_SHM=off. */
#include <pgdds/pgdds.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    pgdds_context_t ctx = NULL;
    pgdds_status_t st = pgdds_init(NULL, &ctx);
    if (st != PGDDS_ERR_UNSUPPORTED || !strstr(pgdds_last_error(), "no-such-provider")) {
        fprintf(stderr, "FAIL: pgdds_init returned %d (%s): %s\n", st, pgdds_strerror(st), pgdds_last_error());
        if (st == PGDDS_OK) pgdds_finalize(ctx);
        return 1;
    }
    printf("transport/ofi-unavailable: passed (%s)\n", pgdds_last_error());
    return 0;
}
