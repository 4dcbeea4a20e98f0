// Client selection and the binary-blob helpers shared by every client.
#include "bootstrap.h"

#include "../base/log.h"

#include <algorithm>
#include <cstdlib>

namespace pgdds {

std::string bootstrap_detect()
{
    if (getenv("PMIX_RANK") || getenv("PMIX_NAMESPACE")) return "pmix";
    // Slurm's mpi/pmi2 plugin sets PMI_JOBID beside PMI_FD (and serves PMI-1 too); Hydra and
    // pgdds-run set PMI_FD without it.
    if (getenv("PMI_FD") && (getenv("PMI_JOBID") || getenv("PMI2_SUN_PATH"))) return "pmi2";
    if (getenv("PMI_FD") || getenv("PMI_PORT")) return "pmi1";
    return "singleton";
}

#ifndef PGDDS_HAVE_PMIX
std::string bootstrap_pmix_version() { return "no"; }
#endif

status bootstrap_open(const std::string &which, std::unique_ptr<bootstrap> &out)
{
    const std::string client = which == "auto" ? bootstrap_detect() : which;
    PGDDS_LOG(LOG_INFO, "bootstrap: %s (PGDDS_PMI=%s)", client.c_str(), which.c_str());
    if (client == "pmix") {
#ifdef PGDDS_HAVE_PMIX
        return bootstrap_pmix(out);
#else
        return fail(PGDDS_ERR_BOOTSTRAP, "the launcher speaks PMIx (PMIX_RANK is set) or PGDDS_PMI=pmix "
                    "asks for it, but this libpgdds was built without PMIx (meson option pmix)");
#endif
    }
    if (client == "pmi2") return bootstrap_pmi2(out);
    if (client == "pmi1") return bootstrap_pmi1(out);
    if (client == "singleton") {
        const char *tasks = getenv("SLURM_STEP_NUM_TASKS");
        if (which == "auto" && tasks && atoi(tasks) > 1)
            PGDDS_LOG(LOG_WARN, "srun started %s tasks without a PMI: each is a job of one rank (use srun "
                      "--mpi=pmi2 or --mpi=pmix)", tasks);
        out = bootstrap_singleton();
        return PGDDS_OK;
    }
    return fail(PGDDS_ERR_INVALID_ARG, "PGDDS_PMI=%s is not one of auto, pmix, pmi2, pmi1, singleton",
                which.c_str());
}

namespace {
const char hexdigits[] = "0123456789abcdef";

std::string chunk_key(const std::string &key, int owner, size_t i)
{
    return "pgdds." + std::to_string(owner) + "." + key + "." + std::to_string(i);
}

int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
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
    // First chunk: "<total hex length>:" then data; the rest are pure data. The margin keeps
    // each value clear of the launcher's limit.
    std::string first = std::to_string(hex.size()) + ":";
    size_t per = b.max_value_len() > 24 ? b.max_value_len() - 24 : 0;
    if (per <= first.size())
        return fail(PGDDS_ERR_BOOTSTRAP, "bootstrap: the launcher's values (%zu bytes) are too short to carry %s",
                    b.max_value_len(), key.c_str());
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
    char *end = nullptr;
    unsigned long long total = strtoull(v.c_str(), &end, 10);
    if (end == v.c_str() || *end != ':' || total % 2)
        return fail(PGDDS_ERR_BOOTSTRAP, "bootstrap: value of %s from rank %d is corrupt", key.c_str(), owner);
    std::string hex = v.substr(size_t(end - v.c_str()) + 1);
    for (size_t i = 1; hex.size() < total; ++i) {
        st = b.get(owner, chunk_key(key, owner, i), v);
        if (st != PGDDS_OK) return st;
        if (v.empty())
            return fail(PGDDS_ERR_BOOTSTRAP, "bootstrap: part %zu of %s from rank %d is empty", i, key.c_str(), owner);
        hex += v;
    }
    if (hex.size() != total)
        return fail(PGDDS_ERR_BOOTSTRAP, "bootstrap: value of %s from rank %d has %zu hex digits, not %llu",
                    key.c_str(), owner, hex.size(), total);
    std::vector<uint8_t> bytes(hex.size() / 2);
    for (size_t i = 0; i < bytes.size(); ++i) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return fail(PGDDS_ERR_BOOTSTRAP, "bootstrap: value of %s from rank %d is not hexadecimal", key.c_str(),
                        owner);
        bytes[i] = uint8_t(hi << 4 | lo);
    }
    out = std::move(bytes);
    return PGDDS_OK;
}

}  // namespace pgdds
