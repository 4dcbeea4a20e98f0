// pgdds-info: what this libpgdds is and what it finds here. Version and build options, the
// transports built in and what each finds on this machine (providers, transport layers,
// devices, with their atomics and progress), and every PGDDS_* variable with its type, default,
// current value and meaning. Everything comes through the library's introspection functions,
// from the same table the library parses the environment with.
#include <pgdds/pgdds.h>

#include "cli.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

extern char **environ;

namespace {

struct build_option {
    std::string name, value;
};

struct options {
    bool json = false, build = false, transports = false, env = false, markdown = false, protocols = false;
};

void usage(FILE *f)
{
    fprintf(f,
            "usage: pgdds-info [options]\n"
            "Describes this libpgdds: build options, the transports it finds on this machine, and\n"
            "the PGDDS_* environment variables that tune it. Without options: all of them.\n"
            "  -b, --build          build options\n"
            "  -t, --transports     transports, providers and devices found on this machine\n"
            "  -e, --env            PGDDS_* variables: type, default, current value, meaning\n"
            "      --json           one JSON object instead of text\n"
            "      --env-markdown   the variable reference of docs/environment.md\n"
            "  -p, --protocols      the containers' protocols: initializes a job (run it under\n"
            "                       pgdds-run -n 2 or more), measures a remote atomic, get, put and\n"
            "                       RPC round trip, prices each operation both ways and prints\n"
            "                       auto's choice (pgdds_container_protocols)\n"
            "  -V, --version        the version\n"
            "  -h, --help           this text\n");
}

bool parse_args(int argc, char **argv, options &o)
{
    enum { opt_json = 256, opt_markdown };
    static const option longopts[] = {
        {"build", no_argument, nullptr, 'b'},
        {"transports", no_argument, nullptr, 't'},
        {"env", no_argument, nullptr, 'e'},
        {"json", no_argument, nullptr, opt_json},
        {"env-markdown", no_argument, nullptr, opt_markdown},
        {"protocols", no_argument, nullptr, 'p'},
        {"version", no_argument, nullptr, 'V'},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":btehVp", longopts, nullptr)) != -1;) {
        switch (c) {
        case 'b': o.build = true; break;
        case 't': o.transports = true; break;
        case 'e': o.env = true; break;
        case 'p': o.protocols = true; break;
        case opt_json: o.json = true; break;
        case opt_markdown: o.markdown = true; break;
        case 'V':
            pgdds_cli_version("pgdds-info", pgdds_version_string());
            exit(0);
        case 'h':
            usage(stdout);
            exit(0);
        default: {
            char why[160];
            fprintf(stderr, "pgdds-info: %s\n", pgdds_cli_error(c, argv, why, sizeof why));
            return false;
        }
        }
    }
    if (optind < argc) {
        fprintf(stderr, "pgdds-info: unexpected argument %s\n", argv[optind]);
        return false;
    }
    if (!o.build && !o.transports && !o.env && !o.protocols) o.build = o.transports = o.env = true;
    return true;
}

// Failures of the introspection calls end the program: they mean a broken installation.
void check(pgdds_status_t st, const char *what)
{
    if (st == PGDDS_OK) return;
    fprintf(stderr, "pgdds-info: %s failed: %s\n", what, pgdds_last_error());
    exit(1);
}

std::vector<build_option> read_build()
{
    std::vector<build_option> out;
    for (int i = 0; i < pgdds_build_option_count(); ++i) {
        const char *name, *value;
        check(pgdds_build_option(i, &name, &value), "pgdds_build_option");
        out.push_back({name, value});
    }
    return out;
}

// GPU memory as this process finds it: built with CUDA or not, and the devices visible now.
struct gpu_state {
    bool built;
    int devices;
    std::string detail;
};
gpu_state read_gpu()
{
    int devices = 0;
    pgdds_status_t st = pgdds_gpu_probe(&devices);
    return {st == PGDDS_OK, devices, devices ? "" : pgdds_last_error()};
}

std::vector<pgdds_transport_attr_t> read_transports()
{
    int count = 0;
    check(pgdds_transport_probe(&count), "pgdds_transport_probe");
    std::vector<pgdds_transport_attr_t> out(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
        pgdds_transport_attr_t &a = out[size_t(i)];
        a.field_mask = PGDDS_TRANSPORT_FIELD_TRANSPORT | PGDDS_TRANSPORT_FIELD_COMPONENT |
                       PGDDS_TRANSPORT_FIELD_BUILT | PGDDS_TRANSPORT_FIELD_USABLE | PGDDS_TRANSPORT_FIELD_ATOMICS |
                       PGDDS_TRANSPORT_FIELD_PROGRESS | PGDDS_TRANSPORT_FIELD_DETAIL;
        check(pgdds_transport_describe(i, &a), "pgdds_transport_describe");
    }
    return out;
}

std::vector<pgdds_config_var_t> read_variables()
{
    std::vector<pgdds_config_var_t> out(static_cast<size_t>(pgdds_config_count()));
    for (size_t i = 0; i < out.size(); ++i) {
        pgdds_config_var_t &v = out[i];
        v.field_mask = PGDDS_CONFIG_FIELD_NAME | PGDDS_CONFIG_FIELD_TYPE | PGDDS_CONFIG_FIELD_DEFAULT |
                       PGDDS_CONFIG_FIELD_CHOICES | PGDDS_CONFIG_FIELD_DESCRIPTION | PGDDS_CONFIG_FIELD_VALUE;
        check(pgdds_config_describe(int(i), &v), "pgdds_config_describe");
    }
    return out;
}

// PGDDS_* names in the environment that no variable has: typos the library ignores.
std::vector<std::string> unknown_variables(const std::vector<pgdds_config_var_t> &vars)
{
    std::vector<std::string> out;
    for (char **e = environ; e && *e; ++e) {
        if (strncmp(*e, "PGDDS_", 6) != 0) continue;
        std::string name(*e, strcspn(*e, "="));
        bool known = false;
        for (auto &v : vars) known = known || name == v.name;
        if (!known) out.push_back(name);
    }
    return out;
}

std::vector<std::string> split_choices(const char *choices)
{
    std::vector<std::string> out;
    std::string cur;
    for (const char *p = choices; p && *p; ++p) {
        if (*p == '|') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += *p;
        }
    }
    if (choices) out.push_back(cur);
    return out;
}

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------
std::string json_string(const char *s)
{
    if (!s) return "null";
    std::string out = "\"";
    for (const unsigned char *p = reinterpret_cast<const unsigned char *>(s); *p; ++p) {
        switch (*p) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (*p < 0x20) {
                char esc[8];
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                out += esc;
            } else {
                out += char(*p);
            }
        }
    }
    return out + "\"";
}

void print_json(const options &o)
{
    printf("{\n  \"library\": \"libpgdds\",\n  \"version\": %s", json_string(pgdds_version_string()).c_str());
    if (o.build) {
        printf(",\n  \"build\": {");
        auto build = read_build();
        for (size_t i = 0; i < build.size(); ++i)
            printf("%s\n    %s: %s", i ? "," : "", json_string(build[i].name.c_str()).c_str(),
                   json_string(build[i].value.c_str()).c_str());
        printf("\n  }");
        gpu_state g = read_gpu();
        printf(",\n  \"gpu\": {\"built\": %s, \"devices\": %d, \"detail\": %s}", g.built ? "true" : "false",
               g.devices, json_string(g.detail.c_str()).c_str());
    }
    if (o.transports) {
        printf(",\n  \"transports\": [");
        auto ts = read_transports();
        for (size_t i = 0; i < ts.size(); ++i) {
            const auto &t = ts[i];
            printf("%s\n    {\"transport\": %s, \"component\": %s, \"built\": %s, \"usable\": %s, \"atomics\": %s, "
                   "\"progress\": %s, \"detail\": %s}",
                   i ? "," : "", json_string(t.transport).c_str(), json_string(t.component).c_str(),
                   t.built ? "true" : "false", t.usable < 0 ? "null" : t.usable ? "true" : "false",
                   json_string(t.atomics).c_str(), json_string(t.progress).c_str(), json_string(t.detail).c_str());
        }
        printf("\n  ]");
    }
    if (o.env) {
        printf(",\n  \"variables\": [");
        auto vars = read_variables();
        for (size_t i = 0; i < vars.size(); ++i) {
            const auto &v = vars[i];
            std::string choices = "null";
            if (v.choices) {
                choices = "[";
                auto list = split_choices(v.choices);
                for (size_t k = 0; k < list.size(); ++k) choices += (k ? ", " : "") + json_string(list[k].c_str());
                choices += "]";
            }
            printf("%s\n    {\"name\": %s, \"type\": %s, \"default\": %s, \"choices\": %s, \"value\": %s, "
                   "\"value_ok\": %s, \"description\": %s}",
                   i ? "," : "", json_string(v.name).c_str(), json_string(v.type).c_str(),
                   json_string(v.default_value).c_str(), choices.c_str(), json_string(v.value).c_str(),
                   v.value_ok ? "true" : "false", json_string(v.description).c_str());
        }
        printf("\n  ],\n  \"unknown_variables\": [");
        auto unknown = unknown_variables(vars);
        for (size_t i = 0; i < unknown.size(); ++i) printf("%s%s", i ? ", " : "", json_string(unknown[i].c_str()).c_str());
        printf("]");
    }
    printf("\n}\n");
}

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------
// Prints text wrapped at 96 columns, each line indented.
void print_wrapped(const char *text, const char *indent)
{
    const size_t width = 96 - strlen(indent);
    std::string line, word;
    auto flush_word = [&] {
        if (word.empty()) return;
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            printf("%s%s\n", indent, line.c_str());
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        word.clear();
    };
    for (const char *p = text; *p; ++p) {
        if (*p == ' ') flush_word();
        else word += *p;
    }
    flush_word();
    if (!line.empty()) printf("%s%s\n", indent, line.c_str());
}

void print_text(const options &o)
{
    printf("libpgdds %s\n", pgdds_version_string());
    if (o.build) {
        printf("\nBuild\n");
        for (auto &b : read_build()) printf("  %-18s %s\n", b.name.c_str(), b.value.c_str());
        gpu_state g = read_gpu();
        if (g.built) printf("  %-18s %d visible%s%s%s\n", "cuda devices", g.devices, g.detail.empty() ? "" : " (",
                            g.detail.c_str(), g.detail.empty() ? "" : ")");
    }
    if (o.transports) {
        printf("\nTransports on this machine\n");
        for (auto &t : read_transports()) {
            std::string name = t.transport;
            if (t.component[0]) name += std::string(" ") + t.component;
            if (!t.built) {
                printf("  %-28s not built: %s\n", name.c_str(), t.detail);
                continue;
            }
            const char *usable = t.usable < 0 ? "unknown" : t.usable ? "usable" : "unusable";
            // PGDDS_CONTAINER_PROTOCOL=auto over it before it measures (docs/containers.md): RPC
            // where one-sided operations need the target's CPU (manual progress, emulated
            // atomics). The measured choice: --protocols under pgdds-run.
            const char *containers = strcmp(t.progress, "manual") == 0 || strncmp(t.atomics, "emulated", 8) == 0 ? "rpc"
                                     : strcmp(t.progress, "auto") == 0                                         ? "rdma"
                                                                                                               : "?";
            printf("  %-28s %-9s atomics: %-10s progress: %-6s containers: %s\n", name.c_str(), usable,
                   t.atomics[0] ? t.atomics : "?", t.progress[0] ? t.progress : "?", containers);
            if (t.detail[0]) print_wrapped(t.detail, "      ");
        }
    }
    if (o.env) {
        printf("\nEnvironment variables (explicit pgdds_init parameters win over them)\n");
        auto vars = read_variables();
        for (auto &v : vars) {
            std::string type = v.choices ? v.choices : v.type;
            std::string current = v.value ? std::string("\"") + v.value + "\"" : "unset";
            if (v.value && !v.value_ok) current += " (ill-formed: the default applies)";
            printf("  %s = %s\n", v.name, current.c_str());
            printf("      %s, default \"%s\"\n", type.c_str(), v.default_value);
            print_wrapped(v.description, "      ");
        }
        for (auto &name : unknown_variables(vars))
            printf("  %s is set but is not a libpgdds variable: it is ignored\n", name.c_str());
    }
}

// ---------------------------------------------------------------------------------------------
// Markdown: the reference part of docs/environment.md
// ---------------------------------------------------------------------------------------------
void print_markdown()
{
    for (auto &v : read_variables()) {
        std::string type = v.type;
        if (v.choices) {
            type += ": ";
            auto list = split_choices(v.choices);
            for (size_t k = 0; k < list.size(); ++k) type += (k ? ", `" : "`") + list[k] + "`";
        }
        std::string def = v.default_value[0] ? std::string("`") + v.default_value + "`" : "*(empty)*";
        printf("### `%s`\n\n**Type:** %s. **Default:** %s.\n\n%s\n\n", v.name, type.c_str(), def.c_str(), v.description);
    }
}

}  // namespace

// Initializes a job, asks for the report (measuring, collectively) and prints it on rank 0.
int print_protocols()
{
    pgdds_context_t ctx = nullptr;
    check(pgdds_init(nullptr, &ctx), "pgdds_init");
    size_t size = 0;
    pgdds_status_t st = pgdds_container_protocols(ctx, nullptr, &size);
    if (st != PGDDS_ERR_OUT_OF_BOUNDS) check(st, "pgdds_container_protocols");
    std::string text(size, '\0');
    check(pgdds_container_protocols(ctx, &text[0], &size), "pgdds_container_protocols");
    if (pgdds_rank(ctx) == 0) {
        char mode[16] = "";
        int ranks = 0;
        double a = 0, r = 0, w = 0, rpc = 0;
        sscanf(text.c_str(), "costs %15s %d %lf %lf %lf %lf", mode, &ranks, &a, &r, &w, &rpc);
        printf("Container protocols over %s, %d ranks (PGDDS_CONTAINER_PROTOCOL=%s)\n", pgdds_transport_name(ctx),
               pgdds_nranks(ctx), mode);
        if (ranks) printf("  measured by %d ranks: A %.2f us, R %.2f us, W %.2f us, RPC %.2f us\n", ranks, a, r, w, rpc);
        else printf("  nothing measured: no rank reaches another only through the network (or not auto)\n");
        printf("  %-15s %-18s %-20s %10s %10s  %-7s %-9s %s\n", "container", "operation", "RDMA formula", "RDMA us",
               "RPC us", "cheaper", "role", "takes");
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);) {
            char c[32], op[32], formula[32], choice[16], basis[16], role[16], takes[16];
            double x = 0, y = 0;
            if (sscanf(line.c_str(), "op %31s %31s %31s %lf %lf %15s %15s %15s", c, op, formula, &x, &y, choice, role,
                       takes) == 8)
                printf("  %-15s %-18s %-20s %10.2f %10.2f  %-7s %-9s %s\n", c, op, formula, x, y, choice, role, takes);
            else if (sscanf(line.c_str(), "container %31s %15s %lf %lf %15s", c, choice, &x, &y, basis) == 5)
                printf("  %-15s takes %-4s for what changes a part or takes an atomic (its fully atomic operations: "
                       "RDMA %.2f us, RPC %.2f us; %s)\n", c, choice, x, y,
                       strcmp(basis, "priced") == 0 ? "priced" : "by the transport's capabilities");
        }
        printf("  role: decides (priced into its container's sum), follows (changes the part or takes an atomic: "
               "the container's protocol),\n        reads (read-only: chosen on its own under RPC), one-sided "
               "(read-only, no call form)\n");
    }
    check(pgdds_finalize(ctx), "pgdds_finalize");
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse_args(argc, argv, o)) {
        usage(stderr);
        return 2;
    }
    if (o.protocols) return print_protocols();
    if (o.markdown) print_markdown();
    else if (o.json) print_json(o);
    else print_text(o);
    return 0;
}
