// The active-message engine of a runtime: the handler registry (internal ids first, then the
// program's), fragmentation of a message into the route's packets, reassembly of incoming
// packets into each VCI's inbox, and running the handlers of complete messages.
#pragma once

#include "../base/common.h"
#include "vci.h"

#include <mutex>
#include <vector>

namespace pgdds {

class runtime;

// Internal active-message handlers take the first ids; user handlers follow.
enum : uint32_t { AM_COLLECTIVE = 0, AM_KEYTABLE = 2, AM_CONTAINER = 3, AM_GPU = 4, AM_RPC = 5, AM_SOFT_ATOMIC = 6,
               AM_INTERNAL_COUNT = 8 };

// Header of every active-message packet; the payload fragment follows.
struct am_packet_header {
    uint32_t handler;
    int32_t src;
    uint32_t msg_id;
    uint32_t total;   // payload bytes of the whole message
    uint32_t offset;  // of this fragment within the payload
    uint32_t reserved;
};
static_assert(sizeof(am_packet_header) == 24, "packed header");

class am_engine {
  public:
    struct handler_entry {
        pgdds_am_handler_t fn;
        void *arg;
    };
    explicit am_engine(runtime &rt) : rt_(rt) {}
    am_engine(const am_engine &) = delete;
    am_engine &operator=(const am_engine &) = delete;

    // Makes room for every handler id (start-up, before any packet arrives).
    void create();
    status register_internal(uint32_t id, pgdds_am_handler_t fn, void *arg);
    status register_user(pgdds_am_handler_t fn, void *arg, uint32_t &id);
    bool registered(uint32_t id) const { return id >= AM_INTERNAL_COUNT && id < handlers_.size() && handlers_[id].fn; }
    // Sends one message to dst, in as many packets as its route needs.
    status send(const char *who, vci &v, int dst, uint32_t handler, const void *payload, size_t size);
    // One received packet on VCI vci_index (transports call it during progress).
    void incoming(unsigned vci_index, const void *packet, size_t len);
    // Runs the handlers of v's complete messages.
    void run_handlers(vci &v);
    // The calling thread is running a handler (which must not run handlers again).
    static bool in_handler() { return tls_in_handler; }

  private:
    static thread_local bool tls_in_handler;
    runtime &rt_;
    std::mutex lock_;          // guards user registration
    std::mutex handler_lock_;  // serializes handlers beside the progress thread
    std::vector<handler_entry> handlers_;
    uint32_t user_count_ = 0;
};

}  // namespace pgdds
