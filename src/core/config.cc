#include "config.h"

#include "../base/log.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

extern char **environ;

namespace pgdds {

const std::vector<config_var> &config_table()
{
    static const std::vector<config_var> table = {
        {"PGDDS_TRANSPORT", var_type::choice, "auto", "auto|shm|ofi|ucx|verbs",
         "Transport. auto: shm when every rank is on one node, otherwise the first usable of "
         "verbs, ofi, ucx."},
        {"PGDDS_OFI_PROVIDER", var_type::string, "", nullptr,
         "libfabric provider for the ofi transport, e.g. \"shm\" or \"tcp;ofi_rxm\". Empty: the "
         "first provider offering RMA, atomics and messages."},
        {"PGDDS_OFI_LIBRARY", var_type::string, "libfabric.so.1", nullptr,
         "The libfabric the ofi transport opens, when a job first uses it (a job that does not "
         "loads none): a name the dynamic linker searches for, or a path, e.g. a vendor's build."},
        {"PGDDS_OFI_ATOMICS", var_type::choice, "auto", "auto|native|emulated",
         "Atomics of the ofi transport. auto: the provider's (fi_atomic) when it validates every "
         "operation and width pgdds uses, otherwise emulated: the ofi transport offers none and "
         "pgdds serves every atomic of the job in software, as active messages that the target's "
         "CPU executes. native fails where the provider lacks one; emulated forces the emulation. "
         "When any rank emulates, every rank does."},
        {"PGDDS_OFI_DOMAINS", var_type::choice, "auto", "auto|shared|vci",
         "Domains of the ofi transport. shared: one domain and address vector for every VCI, "
         "each registration made once. vci: a domain, address vector and registrations per VCI, "
         "so no provider lock is shared between VCIs. auto: vci on the shm provider (a "
         "registration there pins nothing, and its domain lock is taken for every RMA a target "
         "serves), shared elsewhere (a NIC pins and keys every registration per domain)."},
        {"PGDDS_VERBS_DEVICE", var_type::string, "", nullptr,
         "RDMA device and port for the verbs transport, \"mlx5_0\" or \"mlx5_0:1\". Empty: the "
         "first active port."},
        {"PGDDS_SEGMENT_SIZE", var_type::size, "256M", nullptr,
         "Bytes of registered segment per rank (suffixes K, M, G, T), rounded up to whole "
         "pages; a size below the minimum (one page beyond the library's 40 KiB header) is raised "
         "to it, with a warning. Where segments are shared through /dev/shm (PGDDS_SHM not off), "
         "pgdds_init fails with PGDDS_ERR_NO_MEMORY, naming /dev/shm's free space, when the "
         "segment is larger than that, and its pages are reserved there as the library hands "
         "them out: an allocation that finds /dev/shm full fails with PGDDS_ERR_NO_MEMORY. "
         "Elsewhere pages are touched only when used."},
        {"PGDDS_NUM_VCIS", var_type::count, "1", nullptr,
         "Network contexts (VCIs) per process. Give threaded programs one per communicating "
         "thread; a single-threaded program gains nothing from more. Where segments are shared "
         "through /dev/shm (PGDDS_SHM not off) each VCI, and the library's own, costs a 1 MiB "
         "mailbox there: (PGDDS_NUM_VCIS + 1) MiB of /dev/shm per rank beside the segment."},
        {"PGDDS_THREAD_LEVEL", var_type::choice, "single", "single|funneled|multiple|serialized",
         "Thread support: single, funneled (only the initializing thread calls), serialized "
         "(any thread, one at a time, the program ordering the calls), or multiple."},
        {"PGDDS_SHM", var_type::choice, "auto", "auto|on|off",
         "Map the segments of ranks on the same node and reach them with load/store. off "
         "sends every operation through the transport, even on one node."},
        {"PGDDS_ATOMICS", var_type::choice, "auto", "auto|cpu|transport|software",
         "Atomicity domain. auto: CPU atomics when every segment is load/store-reachable, "
         "otherwise the transport's, except on the node's mapped segments where the transport's "
         "atomics run on the target's CPU (ofi tcp;ofi_rxm, UCX tcp). cpu requires the former; "
         "transport sends every atomic through the transport; software is auto with the network's "
         "atomics served by pgdds as active messages that the target's CPU executes, whatever the "
         "transport offers (what happens anyway when a rank's transport lacks an atomic)."},
        {"PGDDS_CONTAINER_DIRECT", var_type::boolean, "1", nullptr,
         "Containers reach load/store-reachable memory with loads, stores and CPU atomics when "
         "the job's atomicity domain is the CPU. 0 sends every container operation through the "
         "one-sided calls of the C interface instead (tests the network path on one node)."},
        {"PGDDS_CONTAINER_PROTOCOL", var_type::choice, "auto", "auto|rdma|rpc",
         "How containers (hash maps, queues, Bloom filters, key tables) reach the parts of ranks "
         "they cannot load/store: rdma runs the operation's one-sided protocol (remote atomics, "
         "reads, writes); rpc sends one active message to the owner, which runs it on its own "
         "memory and replies (one round trip, but the owner must progress: any pgdds call, or "
         "PGDDS_PROGRESS_THREAD=1). auto: at the first container creation the ranks measure a "
         "remote atomic, get, put and RPC round trip and each container kind takes the protocol "
         "its operations' formulas price cheaper (pgdds-run -n 2 pgdds-info --protocols shows "
         "the figures); with nothing to measure (every rank mapped) the containers keep "
         "load/store. A hash map's options override it."},
        {"PGDDS_PROGRESS_THREAD", var_type::boolean, "0", nullptr,
         "Start a thread that progresses every network context, so ranks that compute without "
         "calling the library stay attentive to active messages and target-side operations."},
        {"PGDDS_LOG_LEVEL", var_type::choice, "warn", "error|warn|info|debug|trace",
         "Messages printed to stderr, each with the rank and the time of day. info: the "
         "transport chosen and why, and what start-up settled; debug: each start-up and finalize "
         "phase with its duration, and the PGDDS_* variables set; trace: also every collective "
         "message (or slot marked and read, where ranks share memory) and active-message handler "
         "registration."},
        {"PGDDS_TIMEOUT", var_type::seconds, "0", nullptr,
         "Seconds a blocking operation may wait before failing with PGDDS_ERR_TIMEOUT; 0 waits "
         "for ever (a dead peer is still detected)."},
        {"PGDDS_PMI", var_type::choice, "auto", "auto|pmix|pmi2|pmi1|singleton",
         "Bootstrap client, the protocol spoken with the launcher. auto: pmix when PMIX_RANK is "
         "set (Open MPI mpirun, srun --mpi=pmix), pmi2 when PMI_FD comes with PMI_JOBID (srun "
         "--mpi=pmi2), pmi1 when PMI_FD or PMI_PORT is set (MPICH mpiexec, pgdds-run), else a "
         "job of one rank. Hydra also serves pmi2 to a client that asks for it."},
        {"PGDDS_FAULT", var_type::string, "", nullptr,
         "Fault injection, for testing how a job survives a rank's death: POINT:RANK kills rank "
         "RANK (SIGKILL, as kill -9 would) at POINT: barrier (inside a barrier, after its first "
         "message or its slot's mark), hashmap-chain-lock (inside a hash map insert, holding a bucket's chain "
         "lock), queue-reservation (inside a circular queue push, its slots reserved but not "
         "published). Empty: none."},
        {"PGDDS_JOBID", var_type::string, "", nullptr,
         "Job identifier, set by pgdds-run; names the job's shared-memory files, so at most 200 "
         "characters (more fails pgdds_init with PGDDS_ERR_INVALID_ARG). Empty: derived at "
         "start-up."},
        {"PGDDS_GPU_SEGMENT_SIZE", var_type::size, "0", nullptr,
         "Bytes of device memory per rank for allocations of kind PGDDS_MEMORY_CUDA (its device "
         "segment), in the same forms as PGDDS_SEGMENT_SIZE. 0: none. Needs a library built with "
         "CUDA and a visible device; otherwise pgdds_init fails with PGDDS_ERR_UNSUPPORTED.", true},
        {"PGDDS_RPC_AGGREGATE", var_type::size, "0", nullptr,
         "Bytes of small remote procedure calls (pgdds_rpc_call, pgdds::rpc, rpc_ff) held per "
         "destination rank and sent together as one message: when the next call would not fit, "
         "and at the caller's next progress (any wait, pgdds_progress, pgdds_flush, a barrier). "
         "A call larger than half of it goes alone. 0: off, each call is its own message.", true},
        {"PGDDS_GPU_DEVICE", var_type::string, "", nullptr,
         "The CUDA device of this rank's device segment, a device number. Empty: the local rank "
         "modulo the number of visible devices."},
        {"PGDDS_GPU_IPC", var_type::boolean, "1", nullptr,
         "Ranks of one node copy to and from each other's device segments directly, through CUDA "
         "IPC handles exchanged at start-up. 0 sends those operations to the owner as over the "
         "network (tests the network path on one node)."},
        {"PGDDS_LIBRARY", var_type::string, "", nullptr,
         "Where the Python bindings (import pgdds) load libpgdds.so from. Empty: the path recorded "
         "when they were installed, then the system's library path. The library itself does not "
         "read it."},
    };
    return table;
}

const config_var *config_find(const char *name)
{
    for (const auto &v : config_table())
        if (strcmp(v.name, name) == 0) return &v;
    return nullptr;
}

const char *var_type_name(var_type t)
{
    switch (t) {
    case var_type::string: return "string";
    case var_type::choice: return "choice";
    case var_type::size: return "size";
    case var_type::count: return "count";
    case var_type::boolean: return "bool";
    case var_type::seconds: return "seconds";
    }
    return "?";
}

bool config_value_ok(const config_var &v, const char *text)
{
    size_t sz;
    unsigned n;
    bool b;
    double d;
    switch (v.type) {
    case var_type::string: return true;
    case var_type::choice: return parse_choice(text, v.choices) >= 0;
    case var_type::size: return parse_size(text, sz) && (sz > 0 || v.zero_ok);
    case var_type::count: return parse_count(text, n);
    case var_type::boolean: return parse_bool(text, b);
    case var_type::seconds: return parse_seconds(text, d);
    }
    return false;
}

namespace {

// The effective text of a variable: the environment's if well-formed, else the default.
const char *lookup(const char *name, std::vector<std::string> &warnings)
{
    const config_var *v = config_find(name);
    const char *env = getenv(name);
    if (env && !config_value_ok(*v, env)) {
        std::string w = std::string(name) + "=\"" + env + "\" is ill-formed (expected " +
                        (v->choices ? v->choices : var_type_name(v->type)) + "); using \"" +
                        v->default_value + "\"";
        warnings.push_back(w);
        env = nullptr;
    }
    return env ? env : v->default_value;
}

}  // namespace

status config_load(const pgdds_init_params_t *params, config &out, std::vector<std::string> &warnings)
{
    for (char **e = environ; e && *e; ++e) {
        if (strncmp(*e, "PGDDS_", 6) != 0) continue;
        std::string name(*e, strcspn(*e, "="));
        if (!config_find(name.c_str()))
            warnings.push_back("unknown environment variable " + name + " (ignored; see pgdds-info)");
    }

    config c;
    // Every variable's text, checked and with its default applied; the fields below parse the
    // core's, and each backend parses its own (PGDDS_OFI_*, ...) through its host
    // (transport/host.h).
    for (const config_var &v : config_table()) c.texts[v.name] = lookup(v.name, warnings);
    auto text = [&](const char *name) { return c.texts.at(name).c_str(); };
    c.transport = text("PGDDS_TRANSPORT");
    for (auto &ch : c.transport) ch = char(tolower((unsigned char)ch));
    parse_size(text("PGDDS_SEGMENT_SIZE"), c.segment_size);
    parse_count(text("PGDDS_NUM_VCIS"), c.num_vcis);
    c.thread_level = parse_choice(text("PGDDS_THREAD_LEVEL"), "single|funneled|multiple|serialized");
    c.shm = shm_mode(parse_choice(text("PGDDS_SHM"), "auto|on|off"));
    c.atomics = atomics_mode(parse_choice(text("PGDDS_ATOMICS"), "auto|cpu|transport|software"));
    parse_bool(text("PGDDS_CONTAINER_DIRECT"), c.container_direct);
    c.container_protocol = container_protocol_mode(
        parse_choice(text("PGDDS_CONTAINER_PROTOCOL"), "auto|rdma|rpc"));
    parse_bool(text("PGDDS_PROGRESS_THREAD"), c.progress_thread);
    c.log_level = parse_choice(text("PGDDS_LOG_LEVEL"), "error|warn|info|debug|trace");
    parse_seconds(text("PGDDS_TIMEOUT"), c.timeout);
    c.pmi = text("PGDDS_PMI");
    for (auto &ch : c.pmi) ch = char(tolower((unsigned char)ch));
    c.job_id = text("PGDDS_JOBID");
    if (c.job_id.size() > max_job_id)
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_init: PGDDS_JOBID is %zu characters long; at most %zu (it "
                    "names the job's files in /dev/shm)", c.job_id.size(), max_job_id);
    c.fault = text("PGDDS_FAULT");
    parse_size(text("PGDDS_GPU_SEGMENT_SIZE"), c.gpu_segment_size);
    parse_size(text("PGDDS_RPC_AGGREGATE"), c.rpc_aggregate);
    c.gpu_device = text("PGDDS_GPU_DEVICE");
    parse_bool(text("PGDDS_GPU_IPC"), c.gpu_ipc);

    if (params) {
        uint64_t m = params->field_mask;
        const uint64_t known = PGDDS_INIT_FIELD_THREAD_LEVEL | PGDDS_INIT_FIELD_SEGMENT_SIZE |
                               PGDDS_INIT_FIELD_TRANSPORT | PGDDS_INIT_FIELD_NUM_VCIS;
        if (m & ~known)
            return fail(PGDDS_ERR_INVALID_ARG, "pgdds_init: params->field_mask has unknown bits 0x%llx",
                        (unsigned long long)(m & ~known));
        if (m & PGDDS_INIT_FIELD_THREAD_LEVEL) {
            int level = enum_value(params->thread_level);
            if (level < PGDDS_THREAD_SINGLE || level > PGDDS_THREAD_SERIALIZED)
                return fail(PGDDS_ERR_INVALID_ARG, "pgdds_init: thread_level %d is not one of "
                            "PGDDS_THREAD_SINGLE/FUNNELED/SERIALIZED/MULTIPLE", level);
            c.thread_level = params->thread_level;
        }
        if (m & PGDDS_INIT_FIELD_SEGMENT_SIZE) {
            if (params->segment_size == 0)
                return fail(PGDDS_ERR_INVALID_ARG, "pgdds_init: segment_size is 0");
            c.segment_size = params->segment_size;
        }
        if (m & PGDDS_INIT_FIELD_TRANSPORT) {
            if (!params->transport || parse_choice(params->transport, "auto|shm|ofi|ucx|verbs") < 0)
                return fail(PGDDS_ERR_INVALID_ARG, "pgdds_init: transport \"%s\" is not one of "
                            "auto, shm, ofi, ucx, verbs", params->transport ? params->transport : "(null)");
            c.transport = params->transport;
            for (auto &ch : c.transport) ch = char(tolower((unsigned char)ch));
        }
        if (m & PGDDS_INIT_FIELD_NUM_VCIS) {
            if (params->num_vcis == 0 || params->num_vcis > 4096)
                return fail(PGDDS_ERR_INVALID_ARG, "pgdds_init: num_vcis %u is not in 1..4096",
                            params->num_vcis);
            c.num_vcis = params->num_vcis;
        }
    }
    const uint64_t max_segment = (uint64_t(1) << PGDDS_GPTR_OFFSET_BITS);
    if (c.segment_size >= max_segment)
        return fail(PGDDS_ERR_INVALID_ARG, "pgdds_init: segment size %zu exceeds the 1 TiB a global "
                    "pointer can address", c.segment_size);
    out = c;
    return PGDDS_OK;
}

}  // namespace pgdds
