// Client selection and the binary-blob helpers shared by every client.
#include "bootstrap.h"

#include <cstdlib>

namespace pgdds {

status bootstrap_open(std::unique_ptr<bootstrap> &out)
{
#ifdef PGDDS_HAVE_PMIX
    if (getenv("PMIX_RANK") || getenv("PMIX_NAMESPACE")) return bootstrap_pmix(out);
#else
    if (getenv("PMIX_RANK"))
        return fail(PGDDS_ERR_BOOTSTRAP, "started by a PMIx launcher, but this libpgdds was built "
                    "without PMIx (meson option pmix)");
#endif
    if (getenv("PMI_FD") || getenv("PMI_PORT")) return bootstrap_pmi1(out);
    out = bootstrap_singleton();
    return PGDDS_OK;
}

namespace {
const char hexdigits[] = "0123456789abcdef";
std::string chunk_key(const std::string &key, int owner, size_t i)
{
    return "pgdds." + std::to_string(owner) + "." + key + "." + std::to_string(i);
}
}  // namespace

status bootstrap_put_blob(bootstrap &b, const std::string &key, const void *data, size_t len)
{
    const uint8_t *p = static_cast<const uint8_t *>(data);
    std::string hex;
    hex.reserve(2 * len);
    for (size_t i = 0; i < len; ++i) {
        hex += hexdigits[p[i] >> 4];
        hex += hexdigits[p[i] & 15];
    }
    // First chunk: "<total hex length>:" then data; the rest are pure data.
    size_t per = b.max_value_len() - 24;
    std::string first = std::to_string(hex.size()) + ":";
    size_t taken = std::min(hex.size(), per - first.size());
    status st = b.put(chunk_key(key, b.rank(), 0), first + hex.substr(0, taken));
    for (size_t i = 1; st == PGDDS_OK && taken < hex.size(); ++i) {
        size_t n = std::min(per, hex.size() - taken);
        st = b.put(chunk_key(key, b.rank(), i), hex.substr(taken, n));
        taken += n;
    }
    return st;
}

status bootstrap_get_blob(bootstrap &b, int owner, const std::string &key, std::vector<uint8_t> &out)
{
    std::string v;
    status st = b.get(owner, chunk_key(key, owner, 0), v);
    if (st != PGDDS_OK) return st;
    size_t colon = v.find(':');
    if (colon == std::string::npos)
        return fail(PGDDS_ERR_BOOTSTRAP, "bootstrap: value of %s from rank %d is corrupt", key.c_str(), owner);
    size_t total = size_t(strtoull(v.c_str(), nullptr, 10));
    std::string hex = v.substr(colon + 1);
    for (size_t i = 1; hex.size() < total; ++i) {
        st = b.get(owner, chunk_key(key, owner, i), v);
        if (st != PGDDS_OK) return st;
        hex += v;
    }
    if (hex.size() != total || total % 2)
        return fail(PGDDS_ERR_BOOTSTRAP, "bootstrap: value of %s from rank %d has the wrong length", key.c_str(), owner);
    out.resize(total / 2);
    auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(nib(hex[2 * i]) << 4 | nib(hex[2 * i + 1]));
    return PGDDS_OK;
}

}  // namespace pgdds
