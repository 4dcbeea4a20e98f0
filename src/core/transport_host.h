// The runtime seen from a transport backend: the one implementation of transport_host.
#pragma once

#include "../transport/transport.h"

#include <memory>

namespace pgdds {

class runtime;

// A host for `backend`, answering from rt; it must outlive the backend.
std::unique_ptr<transport_host> make_transport_host(runtime &rt, const transport &backend);

}  // namespace pgdds
