/* What the GPU product benchmarks (gemm.c, spmm.c) share: timing each algorithm of a collective
 * product and reporting its rate beside the one-process peer's. */
#ifndef PGDDS_BENCH_GPU_PRODUCTS_H
#define PGDDS_BENCH_GPU_PRODUCTS_H

#include "../micro/report.h"

#include <pgdds/matrix.h>
#include <pgdds/pgdds.h>

struct product_alg {
    pgdds_gemm_algorithm_t alg;
    const char *name;
};

/* One product by algorithm alg; collective, ending in a barrier (every rank's share done). */
typedef pgdds_status_t (*product_fn)(pgdds_gemm_algorithm_t alg, void *arg);

/* What a benchmark reports: its name, the size it runs at, the type (and layout) in its metric
 * names, its flops per product and the peer's seconds for the same, and the unit of the rate
 * (scale: rate = flops / seconds * scale). */
struct product_report {
    const char *bench, *peer, *type, *rate_name, *unit;
    size_t size;
    double flops, peer_seconds, scale;
};

/* Times every algorithm (the median of reps products after one warm-up) and, on rank 0,
 * reports the peer's rate, then each algorithm's rate and its ratio to the peer. */
static inline void time_products(pgdds_context_t ctx, const struct product_alg *algs, size_t nalgs, product_fn run,
                                 void *arg, int reps, const struct product_report *r)
{
    const int me = pgdds_rank(ctx), nr = pgdds_nranks(ctx);
    const char *transport = pgdds_transport_name(ctx);
    char metric[128];
    double *s = malloc((size_t)(reps + 1) * sizeof *s);
    if (me == 0) {
        snprintf(metric, sizeof metric, "%s_single_process_%s_%s", r->peer, r->type, r->rate_name);
        report(r->bench, transport, nr, 1, r->size, metric, r->flops / r->peer_seconds * r->scale, r->unit);
    }
    for (size_t x = 0; x < nalgs; ++x) {
        for (int i = 0; i <= reps; ++i) {
            pgdds_status_t st = pgdds_barrier(ctx);
            const double t0 = now_us();
            if (st == PGDDS_OK) st = run(algs[x].alg, arg);
            if (st != PGDDS_OK) {
                fprintf(stderr, "%s: %s: %s\n", r->bench, algs[x].name, pgdds_last_error());
                exit(1);
            }
            s[i] = (now_us() - t0) * 1e-6;
        }
        const double sec = median_us(s + 1, reps);
        if (me == 0) {
            snprintf(metric, sizeof metric, "%s_%s_%s", algs[x].name, r->type, r->rate_name);
            report(r->bench, transport, nr, 1, r->size, metric, r->flops / sec * r->scale, r->unit);
            snprintf(metric, sizeof metric, "%s_%s_ratio_to_%s", algs[x].name, r->type, r->peer);
            report(r->bench, transport, nr, 1, r->size, metric, r->peer_seconds / sec, "x");
        }
    }
    free(s);
}

#endif
