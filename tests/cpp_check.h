// Checks for the C++ test programs: CHECK counts a failed condition and names it, status_of
// turns a pgdds::error into its status (PGDDS_OK when the call throws nothing), cpp_test_main is
// a multi-rank program's main.
#pragma once

#include <pgdds/pgdds.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

static int failures = 0;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ++failures;                                                                            \
            std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                  \
        }                                                                                          \
    } while (0)

template <class F> static pgdds_status_t status_of(F f)
{
    try {
        f();
    } catch (const pgdds::error &e) {
        return e.status();
    }
    return PGDDS_OK;
}

// Runs run(ctx) on a new context, prints on rank 0 the verdict over every rank's checks, and
// returns the exit status: 0, 1 on a failed check or a pgdds::error, or 77 (a skip) for the one
// reason a test may skip, verbs asked for on a machine without an RDMA device.
template <class Run> int cpp_test_main(const char *name, Run run)
{
    try {
        pgdds::context ctx;
        run(ctx);
        int all = ctx.sum(failures);
        if (ctx.rank() == 0)
            std::printf("%s: %s on %d ranks (%d failed checks)\n", name, all ? "FAILED" : "passed", ctx.nranks(), all);
        return all ? 1 : 0;
    } catch (const pgdds::error &e) {
        const char *want = std::getenv("PGDDS_TRANSPORT");
        const bool absent = e.status() == PGDDS_ERR_UNSUPPORTED && want && std::strcmp(want, "verbs") == 0;
        std::fprintf(stderr, "%s: pgdds::error %d: %s\n", absent ? "SKIP" : "FAIL", e.status(), e.what());
        return absent ? 77 : 1;
    }
}
