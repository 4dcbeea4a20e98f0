// A transport_host for backend tests, with no runtime: what a backend sees of a job (rank, size,
// endpoints, threading, job id, locality, its own settings) answered from a bootstrap and from
// what the test chooses, and active-message packets recorded per VCI for the test to check.
// Tests that use it link only the transport, pmi and base layers, which shows that the backends
// stand alone.
#pragma once

#include "../../src/pmi/bootstrap.h"
#include "../../src/transport/host.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace pgdds {

class fake_host final : public transport_host {
  public:
    // `prefix` is the backend's settings_prefix() ("PGDDS_OFI_"); `job_id` is the same on
    // every rank (see make_job_id).
    fake_host(bootstrap &boot, std::string prefix, std::string job_id, unsigned endpoints);

    int rank() const override { return boot_.rank(); }
    int nranks() const override { return boot_.size(); }
    unsigned endpoints() const override { return endpoints_; }
    host_threading threading() const override { return threading_; }
    const std::string &job_id() const override { return job_id_; }
    bool same_node(int r) const override;
    // An explicit override, else the environment's PGDDS_<PREFIX><name>, else the test's
    // default (the configuration table's, which a backend test cannot read); "" when none.
    std::string setting(const char *name) const override;
    void am_incoming(unsigned vci, const void *packet, size_t len) override;

    // --- What the test chooses (before the backend is opened). ---
    void set_endpoints(unsigned n) { endpoints_ = n; }
    void set_threading(host_threading t) { threading_ = t; }
    // Which ranks share this node; by default every rank (the tests run on one machine).
    void set_same_node(std::vector<bool> local) { same_node_ = std::move(local); }
    void set_setting(const std::string &name, const std::string &value) { overrides_[name] = value; }
    void set_default(const std::string &name, const std::string &value) { defaults_[name] = value; }

    // --- What arrived. Packets are kept in arrival order per VCI until taken. ---
    size_t packets(unsigned vci) const;       // arrived on vci since the start (taken or not)
    size_t packets_total() const;
    std::vector<std::vector<uint8_t>> take(unsigned vci);  // the packets not yet taken

    // A job id made by rank 0 and shared through the bootstrap (collective).
    static status make_job_id(bootstrap &boot, std::string &out);

  private:
    bootstrap &boot_;
    const std::string prefix_, job_id_;
    unsigned endpoints_;
    host_threading threading_ = host_threading::single;
    std::vector<bool> same_node_;
    std::map<std::string, std::string> overrides_, defaults_;

    mutable std::mutex lock_;  // am_incoming may come from any VCI's progress
    std::vector<size_t> counts_;
    std::vector<std::vector<std::vector<uint8_t>>> inbox_;
};

}  // namespace pgdds
