#include "transport_host.h"

#include "runtime.h"

namespace pgdds {
namespace {

class runtime_host final : public transport_host {
  public:
    runtime_host(runtime &rt, const char *prefix) : rt_(rt), prefix_(prefix) {}

    int rank() const override { return rt_.rank(); }
    int nranks() const override { return rt_.nranks(); }
    unsigned endpoints() const override { return rt_.num_endpoints(); }
    host_threading threading() const override
    {
        if (rt_.threaded()) return host_threading::concurrent;
        return rt_.any_thread() ? host_threading::serialized : host_threading::single;
    }
    const std::string &job_id() const override { return rt_.job_id(); }
    bool same_node(int r) const override { return rt_.is_local(r); }
    std::string setting(const char *name) const override
    {
        const auto &all = rt_.cfg().texts;
        auto it = all.find(prefix_ + name);
        return it == all.end() ? std::string() : it->second;
    }
    void am_incoming(unsigned vci, const void *packet, size_t len) override { rt_.am_incoming(vci, packet, len); }

  private:
    runtime &rt_;
    const std::string prefix_;
};

}  // namespace

std::unique_ptr<transport_host> make_transport_host(runtime &rt, const transport &backend)
{
    return std::make_unique<runtime_host>(rt, backend.settings_prefix());
}

}  // namespace pgdds
