// Checks for the C++ test programs: CHECK counts a failed condition and names it, status_of
// turns a pgdds::error into its status (PGDDS_OK when the call throws nothing).
#pragma once

#include <pgdds/pgdds.hpp>

#include <cstdio>

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
