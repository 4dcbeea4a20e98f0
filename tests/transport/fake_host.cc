#include "fake_host.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>

namespace pgdds {

fake_host::fake_host(bootstrap &boot, std::string prefix, std::string job_id, unsigned endpoints)
    : boot_(boot), prefix_(std::move(prefix)), job_id_(std::move(job_id)), endpoints_(endpoints)
{
}

bool fake_host::same_node(int r) const
{
    if (r < 0 || r >= nranks()) return false;
    return same_node_.empty() || same_node_[size_t(r)];
}

std::string fake_host::setting(const char *name) const
{
    auto o = overrides_.find(name);
    if (o != overrides_.end()) return o->second;
    const char *env = getenv((prefix_ + name).c_str());
    if (env) return env;
    auto d = defaults_.find(name);
    return d == defaults_.end() ? std::string() : d->second;
}

void fake_host::am_incoming(unsigned vci, const void *packet, size_t len)
{
    std::lock_guard<std::mutex> g(lock_);
    if (counts_.size() <= vci) {
        counts_.resize(vci + 1);
        inbox_.resize(vci + 1);
    }
    counts_[vci]++;
    const auto *p = static_cast<const uint8_t *>(packet);
    inbox_[vci].emplace_back(p, p + len);
}

size_t fake_host::packets(unsigned vci) const
{
    std::lock_guard<std::mutex> g(lock_);
    return vci < counts_.size() ? counts_[vci] : 0;
}

size_t fake_host::packets_total() const
{
    std::lock_guard<std::mutex> g(lock_);
    size_t n = 0;
    for (size_t c : counts_) n += c;
    return n;
}

std::vector<std::vector<uint8_t>> fake_host::take(unsigned vci)
{
    std::lock_guard<std::mutex> g(lock_);
    std::vector<std::vector<uint8_t>> out;
    if (vci < inbox_.size()) out.swap(inbox_[vci]);
    return out;
}

status fake_host::make_job_id(bootstrap &boot, std::string &out)
{
    if (boot.rank() == 0) {
        char id[32];
        snprintf(id, sizeof id, "fh%lx%lx", (unsigned long)getpid(), (unsigned long)time(nullptr) & 0xfffff);
        status st = boot.put("fakehost-job", id);
        if (st != PGDDS_OK) return st;
    }
    status st = boot.fence();
    if (st != PGDDS_OK) return st;
    return boot.get(0, "fakehost-job", out);
}

}  // namespace pgdds
