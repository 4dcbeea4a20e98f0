/* The introspection section of pgdds.h, in one process and without a job: build options,
 * the variable table with current values, the transport probe, pgdds_set_last_error, and the
 * status and message each gives for bad arguments. Exit 0 pass, 1 fail. */
#include <pgdds/pgdds.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                               \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            ++failures;                                                                           \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                       \
        }                                                                                         \
    } while (0)

/* A failure with the expected status and a message that names the function. */
#define CHECK_FAILS(expr, expected, who)                                                          \
    do {                                                                                          \
        pgdds_status_t st_ = (expr);                                                              \
        if (st_ != (expected) || !strstr(pgdds_last_error(), who)) {                              \
            ++failures;                                                                           \
            fprintf(stderr, "FAIL %s:%d: %s returned %d (\"%s\"), expected %d naming %s\n",       \
                    __FILE__, __LINE__, #expr, st_, pgdds_last_error(), expected, who);           \
        }                                                                                         \
    } while (0)

static const uint64_t all_config_fields = PGDDS_CONFIG_FIELD_NAME | PGDDS_CONFIG_FIELD_TYPE |
                                          PGDDS_CONFIG_FIELD_DEFAULT | PGDDS_CONFIG_FIELD_CHOICES |
                                          PGDDS_CONFIG_FIELD_DESCRIPTION | PGDDS_CONFIG_FIELD_VALUE;

static int find_variable(const char *name, pgdds_config_var_t *out)
{
    for (int i = 0; i < pgdds_config_count(); ++i) {
        pgdds_config_var_t v;
        memset(&v, 0, sizeof v);
        v.field_mask = all_config_fields;
        if (pgdds_config_describe(i, &v) == PGDDS_OK && strcmp(v.name, name) == 0) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

static void test_build_options(void)
{
    int n = pgdds_build_option_count(), saw_version = 0;
    CHECK(n > 0);
    for (int i = 0; i < n; ++i) {
        const char *name = NULL, *value = NULL;
        CHECK(pgdds_build_option(i, &name, &value) == PGDDS_OK);
        CHECK(name && value && name[0]);
        if (name && value && strcmp(name, "version") == 0) saw_version = strcmp(value, pgdds_version_string()) == 0;
    }
    CHECK(saw_version);
    const char *name, *value;
    CHECK_FAILS(pgdds_build_option(-1, &name, &value), PGDDS_ERR_INVALID_ARG, "pgdds_build_option");
    CHECK_FAILS(pgdds_build_option(n, &name, &value), PGDDS_ERR_INVALID_ARG, "pgdds_build_option");
    CHECK_FAILS(pgdds_build_option(0, NULL, &value), PGDDS_ERR_INVALID_ARG, "pgdds_build_option");
    CHECK_FAILS(pgdds_build_option(0, &name, NULL), PGDDS_ERR_INVALID_ARG, "pgdds_build_option");
}

static void test_variables(void)
{
    static const char *types[] = {"string", "choice", "size", "count", "bool", "seconds"};
    int n = pgdds_config_count();
    CHECK(n >= 12);
    for (int i = 0; i < n; ++i) {
        pgdds_config_var_t v;
        memset(&v, 0, sizeof v);
        v.field_mask = all_config_fields;
        CHECK(pgdds_config_describe(i, &v) == PGDDS_OK);
        CHECK(v.name && strncmp(v.name, "PGDDS_", 6) == 0);
        int known_type = 0;
        for (size_t t = 0; t < sizeof types / sizeof *types; ++t) known_type |= v.type && strcmp(v.type, types[t]) == 0;
        CHECK(known_type);
        CHECK(v.default_value != NULL);
        CHECK(v.description && strlen(v.description) > 10);
        if (v.type && strcmp(v.type, "choice") == 0) {
            /* A choice lists its default among its choices. */
            CHECK(v.choices && strstr(v.choices, v.default_value));
        } else {
            CHECK(v.choices == NULL);
        }
    }

    /* Only the fields asked for are written. */
    pgdds_config_var_t some;
    memset(&some, 0, sizeof some);
    some.field_mask = PGDDS_CONFIG_FIELD_NAME;
    some.description = "untouched";
    CHECK(pgdds_config_describe(0, &some) == PGDDS_OK);
    CHECK(some.name != NULL && strcmp(some.description, "untouched") == 0 && some.type == NULL);

    /* The current value, and whether the library would use it. */
    pgdds_config_var_t v;
    setenv("PGDDS_SHM", "maybe", 1);
    setenv("PGDDS_SEGMENT_SIZE", "1G", 1);
    unsetenv("PGDDS_TIMEOUT");
    CHECK(find_variable("PGDDS_SHM", &v) && v.value && strcmp(v.value, "maybe") == 0 && v.value_ok == 0);
    CHECK(find_variable("PGDDS_SEGMENT_SIZE", &v) && v.value && v.value_ok == 1);
    CHECK(find_variable("PGDDS_TIMEOUT", &v) && v.value == NULL && v.value_ok == 1);
    CHECK(find_variable("PGDDS_PMI", &v) && strcmp(v.default_value, "auto") == 0);
    unsetenv("PGDDS_SHM");
    unsetenv("PGDDS_SEGMENT_SIZE");

    CHECK_FAILS(pgdds_config_describe(-1, &v), PGDDS_ERR_INVALID_ARG, "pgdds_config_describe");
    CHECK_FAILS(pgdds_config_describe(n, &v), PGDDS_ERR_INVALID_ARG, "pgdds_config_describe");
    CHECK_FAILS(pgdds_config_describe(0, NULL), PGDDS_ERR_INVALID_ARG, "pgdds_config_describe");
    v.field_mask = (uint64_t)1 << 40;
    CHECK_FAILS(pgdds_config_describe(0, &v), PGDDS_ERR_INVALID_ARG, "pgdds_config_describe");
}

static void test_transports(void)
{
    int count = -1, again = -1;
    CHECK(pgdds_transport_probe(&count) == PGDDS_OK);
    CHECK(pgdds_transport_probe(&again) == PGDDS_OK && again == count);
    CHECK(count >= 4); /* shm, then at least one entry for each of ofi, ucx, verbs */
    int seen_shm = 0, seen_ofi = 0, seen_ucx = 0, seen_verbs = 0;
    for (int i = 0; i < count; ++i) {
        pgdds_transport_attr_t a;
        memset(&a, 0, sizeof a);
        a.field_mask = PGDDS_TRANSPORT_FIELD_TRANSPORT | PGDDS_TRANSPORT_FIELD_COMPONENT | PGDDS_TRANSPORT_FIELD_BUILT |
                       PGDDS_TRANSPORT_FIELD_USABLE | PGDDS_TRANSPORT_FIELD_ATOMICS | PGDDS_TRANSPORT_FIELD_PROGRESS |
                       PGDDS_TRANSPORT_FIELD_DETAIL;
        CHECK(pgdds_transport_describe(i, &a) == PGDDS_OK);
        CHECK(a.transport && a.component && a.atomics && a.progress && a.detail);
        CHECK(a.usable >= -1 && a.usable <= 1 && (a.built == 0 || a.built == 1));
        if (!a.transport) continue;
        if (strcmp(a.transport, "shm") == 0) {
            seen_shm = 1;
            CHECK(a.built == 1 && strcmp(a.atomics, "cpu") == 0 && strcmp(a.component, "/dev/shm") == 0);
        }
        if (!a.built) CHECK(a.usable == 0 && strlen(a.detail) > 0); /* says why */
        seen_ofi |= strcmp(a.transport, "ofi") == 0;
        seen_ucx |= strcmp(a.transport, "ucx") == 0;
        seen_verbs |= strcmp(a.transport, "verbs") == 0;
    }
    CHECK(seen_shm && seen_ofi && seen_ucx && seen_verbs);

    pgdds_transport_attr_t a;
    memset(&a, 0, sizeof a);
    CHECK_FAILS(pgdds_transport_probe(NULL), PGDDS_ERR_INVALID_ARG, "pgdds_transport_probe");
    CHECK_FAILS(pgdds_transport_describe(count, &a), PGDDS_ERR_INVALID_ARG, "pgdds_transport_describe");
    CHECK_FAILS(pgdds_transport_describe(-1, &a), PGDDS_ERR_INVALID_ARG, "pgdds_transport_describe");
    CHECK_FAILS(pgdds_transport_describe(0, NULL), PGDDS_ERR_INVALID_ARG, "pgdds_transport_describe");
    a.field_mask = (uint64_t)1 << 33;
    CHECK_FAILS(pgdds_transport_describe(0, &a), PGDDS_ERR_INVALID_ARG, "pgdds_transport_describe");
}

static void test_set_last_error(void)
{
    CHECK(pgdds_set_last_error(PGDDS_ERR_FULL, "the map is full") == PGDDS_ERR_FULL);
    CHECK(strcmp(pgdds_last_error(), "the map is full") == 0);
    CHECK(pgdds_set_last_error(PGDDS_ERR_INVALID_ARG, "50% of %s") == PGDDS_ERR_INVALID_ARG);
    CHECK(strcmp(pgdds_last_error(), "50% of %s") == 0); /* the text is not a format */
    CHECK_FAILS(pgdds_set_last_error(PGDDS_OK, "fine"), PGDDS_ERR_INVALID_ARG, "pgdds_set_last_error");
    CHECK_FAILS(pgdds_set_last_error(3, "positive"), PGDDS_ERR_INVALID_ARG, "pgdds_set_last_error");
    CHECK_FAILS(pgdds_set_last_error(PGDDS_ERR_FULL, NULL), PGDDS_ERR_INVALID_ARG, "pgdds_set_last_error");
}

int main(void)
{
    test_build_options();
    test_variables();
    test_transports();
    test_set_last_error();
    printf("tools/introspection: %s (%d failed checks)\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
