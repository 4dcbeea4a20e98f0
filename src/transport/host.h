// What a transport backend knows of the job it serves, and the one way it calls upwards: the
// layer above implements this (src/core/transport_host.cc), and backend tests implement it
// without any runtime (tests/transport/). A backend includes nothing of src/core/.
#pragma once

#include "../base/common.h"

#include <string>

namespace pgdds {

// How threads call into the backend's endpoints.
enum class host_threading {
    single,      // one thread (SINGLE, FUNNELED)
    serialized,  // any thread, one at a time (SERIALIZED)
    concurrent,  // several threads at once, each on its own endpoint or on a locked shared one
                 // (MULTIPLE, or a progress thread beside the application's)
};

class transport_host {
  public:
    virtual ~transport_host() = default;

    virtual int rank() const = 0;
    virtual int nranks() const = 0;
    // Network contexts (VCIs) to open: the user VCIs, then one service VCI.
    virtual unsigned endpoints() const = 0;
    virtual host_threading threading() const = 0;
    // Names the job's files and objects (a shared-memory file, for instance); unique per job.
    virtual const std::string &job_id() const = 0;
    // Whether rank r runs on this node (the node identity takes UTS namespaces into account).
    virtual bool same_node(int r) const = 0;
    // The value of the backend's own variable PGDDS_<PREFIX>_<name> (prefix: the backend's,
    // e.g. OFI), with the configuration table's default applied; "" when there is none.
    virtual std::string setting(const char *name) const = 0;
    // An active-message packet that arrived on endpoint vci. Called from progress().
    virtual void am_incoming(unsigned vci, const void *packet, size_t len) = 0;
};

}  // namespace pgdds
