#include "agreement.h"

#include "runtime.h"

#include <vector>

namespace pgdds {

status agree(runtime *rt, const char *who, status mine)
{
    int32_t in = mine, out = mine;
    status st = rt->allreduce(who, &in, &out, 1, PGDDS_INT32, PGDDS_OP_MIN);
    if (st != PGDDS_OK) return st;
    if (mine != PGDDS_OK) return mine;
    if (out != PGDDS_OK) return fail(out, "%s: failed on another rank (%s)", who, pgdds_strerror(out));
    return PGDDS_OK;
}

status agree_arguments(runtime *rt, const char *who, status mine, std::initializer_list<uint64_t> values)
{
    status st = agree(rt, who, mine);
    if (st != PGDDS_OK) return st;
    std::vector<uint64_t> v(values), lo(v.size()), hi(v.size());
    st = rt->allreduce(who, v.data(), lo.data(), v.size(), PGDDS_UINT64, PGDDS_OP_MIN);
    if (st == PGDDS_OK) st = rt->allreduce(who, v.data(), hi.data(), v.size(), PGDDS_UINT64, PGDDS_OP_MAX);
    if (st != PGDDS_OK) return st;
    for (size_t i = 0; i < v.size(); ++i)
        if (lo[i] != hi[i])
            return fail(PGDDS_ERR_INVALID_ARG, "%s: the ranks passed different arguments (argument %zu ranges from "
                        "%llu to %llu)", who, i + 1, (unsigned long long)lo[i], (unsigned long long)hi[i]);
    return PGDDS_OK;
}

status agree_values(runtime *rt, const char *who, size_t k, const uint64_t *v, uint64_t *lo, uint64_t *hi)
{
    if (k > 8) return fail(PGDDS_ERR_INVALID_ARG, "%s: %zu values to agree on (at most 8)", who, k);
    uint64_t in[2 * 8], out[2 * 8];
    for (size_t i = 0; i < k; ++i) {
        in[i] = v[i];
        in[k + i] = ~v[i];
    }
    status st = rt->allreduce(who, in, out, 2 * k, PGDDS_UINT64, PGDDS_OP_MAX);
    if (st != PGDDS_OK) return st;
    for (size_t i = 0; i < k; ++i) {
        hi[i] = out[i];
        lo[i] = ~out[k + i];
    }
    return PGDDS_OK;
}

status failed_somewhere(const char *who, status mine, const std::string &why, uint64_t worst)
{
    if (mine != PGDDS_OK) return fail(mine, "%s", why.c_str());
    status theirs = status(-int64_t(worst));
    return fail(theirs, "%s: failed on another rank (%s); no rank holds anything of this call", who,
                pgdds_strerror(theirs));
}

}  // namespace pgdds
