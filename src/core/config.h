// The tuning surface: one table of every PGDDS_* environment variable (name, type, default,
// meaning). The table drives parsing, the defaults, `pgdds-info` and the documentation.
#pragma once

#include "../base/common.h"
#include "../base/parse.h"

#include <map>
#include <string>
#include <vector>

namespace pgdds {

enum class var_type { string, choice, size, count, boolean, seconds };

struct config_var {
    const char *name;
    var_type type;
    const char *default_value;
    const char *choices;  // '|'-separated for var_type::choice, else nullptr
    const char *description;
    bool zero_ok = false;  // var_type::size: 0 is a value (meaning none), not ill-formed
};

const std::vector<config_var> &config_table();
const config_var *config_find(const char *name);
// Whether `text` is a well-formed value of v (an ill-formed one is ignored with a warning).
bool config_value_ok(const config_var &v, const char *text);
const char *var_type_name(var_type t);

// The longest PGDDS_JOBID: it names files in /dev/shm, of at most NAME_MAX (255) bytes.
constexpr size_t max_job_id = 200;

enum class shm_mode { automatic, on, off };
enum class atomics_mode { automatic, cpu, transport, software };
enum class container_protocol_mode { automatic, rdma, rpc };

// The parsed configuration of one context.
struct config {
    std::string transport = "auto";
    // The text of every variable of the table, by name, checked and with its default applied:
    // the backends read theirs (PGDDS_OFI_PROVIDER, ...) from it through their host.
    std::map<std::string, std::string> texts;
    size_t segment_size = 0;
    unsigned num_vcis = 1;
    int thread_level = PGDDS_THREAD_SINGLE;
    shm_mode shm = shm_mode::automatic;
    atomics_mode atomics = atomics_mode::automatic;
    bool container_direct = true;  // containers may use load/store and CPU atomics
    container_protocol_mode container_protocol = container_protocol_mode::automatic;
    bool progress_thread = false;
    int log_level = 1;
    double timeout = 0;  // seconds; 0 waits forever
    std::string pmi = "auto";
    std::string job_id;
    std::string fault;  // PGDDS_FAULT: "point:rank" or empty
    size_t gpu_segment_size = 0;  // 0: no device segment
    size_t rpc_aggregate = 0;     // PGDDS_RPC_AGGREGATE: bytes of calls held per destination; 0: off
    std::string gpu_device;       // empty: chosen by local rank
    bool gpu_ipc = true;
};

// Builds the configuration: explicit params win over the environment, which wins over the
// table's defaults. Ill-formed environment values and unknown PGDDS_* names are reported in
// `warnings` (and the default kept); ill-formed params are an error.
status config_load(const pgdds_init_params_t *params, config &out, std::vector<std::string> &warnings);

}  // namespace pgdds
