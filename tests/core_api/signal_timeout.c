/* A wait for a value that never comes ends after PGDDS_TIMEOUT (2 s here) with
 * PGDDS_ERR_TIMEOUT and a message, and the context stays usable. */
#include "../harness.h"

#include <stdint.h>

int main(void)
{
    pgdds_context_t ctx = t_init(NULL);
    pgdds_gptr_t w;
    T_OK(pgdds_alloc_all(ctx, 8, 8, PGDDS_ALLOC_ZERO, &w));
    double start = t_seconds();
    T_STATUS(pgdds_wait_until_u64(ctx, w, PGDDS_CMP_NE, 0), PGDDS_ERR_TIMEOUT);
    T_CHECK(strstr(pgdds_last_error(), "pgdds_wait_until_u64") != NULL);
    double waited = t_seconds() - start;
    T_CHECK_MSG(waited >= 1.5, "gave up after %.2f s", waited);
    T_OK(pgdds_free_all(ctx, w));
    return t_finish(ctx, "core_api/signal-timeout");
}
