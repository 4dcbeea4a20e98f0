// No launcher: a job of one rank whose key-value space is a local map.
#include "bootstrap.h"

#include <cstdlib>
#include <map>

namespace pgdds {
namespace {

class singleton final : public bootstrap {
  public:
    const char *name() const override { return "singleton"; }
    status put(const std::string &key, const std::string &value) override
    {
        kvs_[key] = value;
        return PGDDS_OK;
    }
    status fence() override { return PGDDS_OK; }
    status get(int, const std::string &key, std::string &value) override
    {
        auto it = kvs_.find(key);
        if (it == kvs_.end()) return fail(PGDDS_ERR_BOOTSTRAP, "singleton: no key \"%s\"", key.c_str());
        value = it->second;
        return PGDDS_OK;
    }
    status barrier() override { return PGDDS_OK; }
    [[noreturn]] void abort(int code, const std::string &) override { _Exit(code ? code : 1); }
    status finalize() override { return PGDDS_OK; }
    size_t max_value_len() const override { return 1 << 20; }

  private:
    std::map<std::string, std::string> kvs_;
};

}  // namespace

std::unique_ptr<bootstrap> bootstrap_singleton() { return std::make_unique<singleton>(); }

}  // namespace pgdds
