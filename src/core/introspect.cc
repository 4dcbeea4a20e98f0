// Introspection without a job: build options, the PGDDS_* table, and what each transport finds
// on this machine. This is what pgdds-info prints; it goes through the C ABI because the tool
// sees no internal symbol.
#include "config.h"

#include "../gpu/gpu.h"
#include "../transport/transport.h"
#include "../pmi/bootstrap.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/statvfs.h>
#include <unistd.h>


using namespace pgdds;

namespace {

struct build_option {
    std::string name, value;
};

const std::vector<build_option> &build_options()
{
    static const std::vector<build_option> options = [] {
        auto yes_no = [](bool b) { return std::string(b ? "yes" : "no"); };
#ifdef PGDDS_HAVE_OFI
        const bool ofi = true;
#else
        const bool ofi = false;
#endif
#ifdef PGDDS_HAVE_UCX
        const bool ucx = true;
#else
        const bool ucx = false;
#endif
#ifdef PGDDS_HAVE_VERBS
        const bool verbs = true;
#else
        const bool verbs = false;
#endif
        const std::string pmix = bootstrap_pmix_version();
        const std::string bootstraps = pmix == "no" ? "pmi2 pmi1 singleton" : "pmix pmi2 pmi1 singleton";
        std::string transports = "shm";
        if (ofi) transports += " ofi";
        if (ucx) transports += " ucx";
        if (verbs) transports += " verbs";
        return std::vector<build_option>{
            {"version", PGDDS_VERSION_TEXT},
            {"buildtype", PGDDS_BUILD_TYPE},
            {"compiler", __VERSION__},
            {"transports", transports},
            {"ofi", yes_no(ofi)},
            {"ucx", yes_no(ucx)},
            {"verbs", yes_no(verbs)},
            {"bootstrap", bootstraps},
            {"pmix", pmix},
            {"cuda", gpu::built() ? std::string("yes (CUDA runtime ") + gpu::toolkit_version() + ")" : "no"},
            {"max_ranks", std::to_string(1u << PGDDS_GPTR_RANK_BITS)},
            {"max_segment_size", std::to_string(1ull << PGDDS_GPTR_OFFSET_BITS)},
        };
    }();
    return options;
}

struct probe_row {
    std::string transport;
    bool built;
    transport_probe_entry entry;
};

// The on-node path: POSIX shared memory, i.e. the tmpfs at /dev/shm.
probe_row probe_shm()
{
    probe_row row{"shm", true, {"/dev/shm", 0, "cpu", "auto", ""}};
    struct statvfs fs;
    if (statvfs("/dev/shm", &fs) != 0) {
        row.entry.detail = std::string("/dev/shm is unavailable: ") + strerror(errno);
        return row;
    }
    if (access("/dev/shm", W_OK) != 0) {
        row.entry.detail = std::string("/dev/shm is not writable: ") + strerror(errno);
        return row;
    }
    const double gib = 1024.0 * 1024.0 * 1024.0;
    char text[160];
    snprintf(text, sizeof text, "%.1f GiB free of %.1f GiB; segments are files here, mapped by every rank of the node",
             double(fs.f_bavail) * double(fs.f_frsize) / gib, double(fs.f_blocks) * double(fs.f_frsize) / gib);
    row.entry.usable = 1;
    row.entry.detail = text;
    return row;
}

void probe_network(const char *kind, status (*create)(std::unique_ptr<transport> &), std::vector<probe_row> &rows)
{
    std::unique_ptr<transport> t;
    if (create(t) != PGDDS_OK) {
        rows.push_back({kind, false, {"", 0, "", "", pgdds_last_error()}});
        return;
    }
    std::vector<transport_probe_entry> entries;
    t->probe(entries);
    for (auto &e : entries) rows.push_back({kind, true, e});
}

const std::vector<probe_row> &probe_rows()
{
    static std::vector<probe_row> rows;
    static std::once_flag once;
    std::call_once(once, [] {
        rows.push_back(probe_shm());
        probe_network("ofi", transport_create_ofi, rows);
        probe_network("ucx", transport_create_ucx, rows);
        probe_network("verbs", transport_create_verbs, rows);
    });
    return rows;
}

status bad_index(const char *who, int index, size_t count)
{
    return fail(PGDDS_ERR_INVALID_ARG, "%s: index %d is not in 0..%zu", who, index, count ? count - 1 : 0);
}

status unknown_fields(const char *who, uint64_t mask)
{
    return fail(PGDDS_ERR_INVALID_ARG, "%s: field_mask has unknown bits 0x%llx", who, (unsigned long long)mask);
}

}  // namespace

extern "C" {

PGDDS_API int pgdds_build_option_count(void) { return int(build_options().size()); }

PGDDS_API pgdds_status_t pgdds_build_option(int index, const char **name, const char **value)
{
    const auto &options = build_options();
    if (index < 0 || size_t(index) >= options.size()) return bad_index("pgdds_build_option", index, options.size());
    if (!name || !value) return fail(PGDDS_ERR_INVALID_ARG, "pgdds_build_option: %s is NULL", name ? "value" : "name");
    *name = options[size_t(index)].name.c_str();
    *value = options[size_t(index)].value.c_str();
    return PGDDS_OK;
}

PGDDS_API int pgdds_config_count(void) { return int(config_table().size()); }

PGDDS_API pgdds_status_t pgdds_config_describe(int index, pgdds_config_var_t *var)
{
    const char *who = "pgdds_config_describe";
    const auto &table = config_table();
    if (index < 0 || size_t(index) >= table.size()) return bad_index(who, index, table.size());
    if (!var) return fail(PGDDS_ERR_INVALID_ARG, "%s: var is NULL", who);
    const uint64_t known = PGDDS_CONFIG_FIELD_NAME | PGDDS_CONFIG_FIELD_TYPE | PGDDS_CONFIG_FIELD_DEFAULT |
                           PGDDS_CONFIG_FIELD_CHOICES | PGDDS_CONFIG_FIELD_DESCRIPTION | PGDDS_CONFIG_FIELD_VALUE;
    const uint64_t m = var->field_mask;
    if (m & ~known) return unknown_fields(who, m & ~known);
    const config_var &v = table[size_t(index)];
    if (m & PGDDS_CONFIG_FIELD_NAME) var->name = v.name;
    if (m & PGDDS_CONFIG_FIELD_TYPE) var->type = var_type_name(v.type);
    if (m & PGDDS_CONFIG_FIELD_DEFAULT) var->default_value = v.default_value;
    if (m & PGDDS_CONFIG_FIELD_CHOICES) var->choices = v.choices;
    if (m & PGDDS_CONFIG_FIELD_DESCRIPTION) var->description = v.description;
    if (m & PGDDS_CONFIG_FIELD_VALUE) {
        var->value = getenv(v.name);
        var->value_ok = !var->value || config_value_ok(v, var->value);
    }
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_transport_probe(int *count)
{
    if (!count) return fail(PGDDS_ERR_INVALID_ARG, "pgdds_transport_probe: count is NULL");
    *count = int(probe_rows().size());
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_transport_describe(int index, pgdds_transport_attr_t *attr)
{
    const char *who = "pgdds_transport_describe";
    const auto &rows = probe_rows();
    if (index < 0 || size_t(index) >= rows.size()) return bad_index(who, index, rows.size());
    if (!attr) return fail(PGDDS_ERR_INVALID_ARG, "%s: attr is NULL", who);
    const uint64_t known = PGDDS_TRANSPORT_FIELD_TRANSPORT | PGDDS_TRANSPORT_FIELD_COMPONENT |
                           PGDDS_TRANSPORT_FIELD_BUILT | PGDDS_TRANSPORT_FIELD_USABLE | PGDDS_TRANSPORT_FIELD_ATOMICS |
                           PGDDS_TRANSPORT_FIELD_PROGRESS | PGDDS_TRANSPORT_FIELD_DETAIL;
    const uint64_t m = attr->field_mask;
    if (m & ~known) return unknown_fields(who, m & ~known);
    const probe_row &r = rows[size_t(index)];
    if (m & PGDDS_TRANSPORT_FIELD_TRANSPORT) attr->transport = r.transport.c_str();
    if (m & PGDDS_TRANSPORT_FIELD_COMPONENT) attr->component = r.entry.component.c_str();
    if (m & PGDDS_TRANSPORT_FIELD_BUILT) attr->built = r.built;
    if (m & PGDDS_TRANSPORT_FIELD_USABLE) attr->usable = r.entry.usable;
    if (m & PGDDS_TRANSPORT_FIELD_ATOMICS) attr->atomics = r.entry.atomics.c_str();
    if (m & PGDDS_TRANSPORT_FIELD_PROGRESS) attr->progress = r.entry.progress.c_str();
    if (m & PGDDS_TRANSPORT_FIELD_DETAIL) attr->detail = r.entry.detail.c_str();
    return PGDDS_OK;
}

PGDDS_API pgdds_status_t pgdds_set_last_error(pgdds_status_t status, const char *message)
{
    if (!message) return fail(PGDDS_ERR_INVALID_ARG, "pgdds_set_last_error: message is NULL");
    if (status >= 0)
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_set_last_error: %d is not a PGDDS_ERR_* code", status);
    return fail(status, "%s", message);
}

}  // extern "C"
