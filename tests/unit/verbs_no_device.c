/* Where no RDMA device exists, PGDDS_TRANSPORT=verbs fails pgdds_init with
 * PGDDS_ERR_UNSUPPORTED and says that no RDMA device was found, and PGDDS_TRANSPORT=auto never
 * picks verbs (run with PGDDS_SHM=off, so that auto looks for a network transport). Skips
 * (exit 77) on a machine with a device. */
#include <pgdds/pgdds.h>

#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    int devices = 0;
    struct ibv_device **list = ibv_get_device_list(&devices);
    if (list) ibv_free_device_list(list);
    if (devices > 0) {
        printf("skipped: this machine has %d RDMA device%s\n", devices, devices == 1 ? "" : "s");
        return 77;
    }
    int failures = 0;

    pgdds_init_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = PGDDS_INIT_FIELD_TRANSPORT;
    params.transport = "verbs";
    pgdds_context_t ctx = NULL;
    pgdds_status_t st = pgdds_init(&params, &ctx);
    const char *msg = pgdds_last_error();
    if (st != PGDDS_ERR_UNSUPPORTED || !strstr(msg, "no RDMA device") || ctx != NULL) {
        fprintf(stderr, "FAIL: verbs: pgdds_init returned %d (%s): %s\n", st, pgdds_strerror(st), msg);
        ++failures;
        if (st == PGDDS_OK) pgdds_finalize(ctx);
    } else {
        printf("verbs: pgdds_init refused as expected: %s\n", msg);
    }

    params.transport = "auto";
    ctx = NULL;
    st = pgdds_init(&params, &ctx);
    if (st == PGDDS_OK) {
        const char *name = pgdds_transport_name(ctx);
        if (strncmp(name, "verbs", 5) == 0) {
            fprintf(stderr, "FAIL: auto chose %s without an RDMA device\n", name);
            ++failures;
        } else {
            printf("auto: chose %s\n", name);
        }
        pgdds_finalize(ctx);
    } else if (st != PGDDS_ERR_UNSUPPORTED) {
        fprintf(stderr, "FAIL: auto: pgdds_init returned %d (%s): %s\n", st, pgdds_strerror(st), pgdds_last_error());
        ++failures;
    } else {
        printf("auto: no network transport in this build: %s\n", pgdds_last_error());
    }
    return failures ? 1 : 0;
}
