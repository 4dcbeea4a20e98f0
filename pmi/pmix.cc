// PMIx client (Open MPI's mpirun/prterun, srun --mpi=pmix), through libpmix.
#include "bootstrap.h"

#include <pmix.h>

#include <cstring>
#include <unistd.h>

namespace pgdds {
namespace {

class pmix_client final : public bootstrap {
  public:
    ~pmix_client() override
    {
        if (initialized_) PMIx_Finalize(nullptr, 0);
    }
    const char *name() const override { return "pmix"; }

    status open()
    {
        pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
        if (rc != PMIX_SUCCESS)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMIx_Init failed: %s", PMIx_Error_string(rc));
        initialized_ = true;
        rank_ = int(me_.rank);
        pmix_proc_t job;
        PMIX_PROC_CONSTRUCT(&job);
        memcpy(job.nspace, me_.nspace, sizeof job.nspace);
        job.rank = PMIX_RANK_WILDCARD;
        pmix_value_t *val = nullptr;
        rc = PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &val);
        if (rc != PMIX_SUCCESS || !val)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMIx_Get(PMIX_JOB_SIZE) failed: %s", PMIx_Error_string(rc));
        const bool is_uint32 = val->type == PMIX_UINT32;
        size_ = is_uint32 ? int(val->data.uint32) : 0;
        PMIX_VALUE_RELEASE(val);
        if (!is_uint32 || size_ < 1 || rank_ >= size_)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMIx: rank %d and job size %d from the launcher are inconsistent",
                        rank_, size_);
        return PGDDS_OK;
    }

    status put(const std::string &key, const std::string &value) override
    {
        pmix_value_t v;
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_STRING;
        v.data.string = const_cast<char *>(value.c_str());
        pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &v);
        if (rc != PMIX_SUCCESS)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMIx_Put(%s) failed: %s", key.c_str(), PMIx_Error_string(rc));
        return PGDDS_OK;
    }
    status fence() override
    {
        pmix_status_t rc = PMIx_Commit();
        if (rc != PMIX_SUCCESS)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMIx_Commit failed: %s", PMIx_Error_string(rc));
        return fence_impl(true);
    }
    status get(int owner, const std::string &key, std::string &value) override
    {
        pmix_proc_t p;
        PMIX_PROC_CONSTRUCT(&p);
        memcpy(p.nspace, me_.nspace, sizeof p.nspace);
        p.rank = pmix_rank_t(owner);
        pmix_value_t *val = nullptr;
        pmix_status_t rc = PMIx_Get(&p, key.c_str(), nullptr, 0, &val);
        if (rc != PMIX_SUCCESS || !val || val->type != PMIX_STRING)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMIx_Get(rank %d, %s) failed: %s", owner, key.c_str(),
                        PMIx_Error_string(rc));
        value = val->data.string;
        PMIX_VALUE_RELEASE(val);
        return PGDDS_OK;
    }
    status barrier() override { return fence_impl(false); }
    [[noreturn]] void abort(int code, const std::string &msg) override
    {
        PMIx_Abort(code ? code : 1, msg.c_str(), nullptr, 0);
        _exit(code ? code : 1);
    }
    status finalize() override
    {
        pmix_status_t rc = PMIx_Finalize(nullptr, 0);
        initialized_ = false;
        if (rc != PMIX_SUCCESS)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMIx_Finalize failed: %s", PMIx_Error_string(rc));
        return PGDDS_OK;
    }
    size_t max_key_len() const override { return PMIX_MAX_KEYLEN; }
    size_t max_value_len() const override { return 1 << 20; }

  private:
    status fence_impl(bool collect)
    {
        pmix_info_t info;
        PMIX_INFO_CONSTRUCT(&info);
        bool flag = collect;
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
        pmix_status_t rc = PMIx_Fence(nullptr, 0, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
        if (rc != PMIX_SUCCESS)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMIx_Fence failed: %s", PMIx_Error_string(rc));
        return PGDDS_OK;
    }

    pmix_proc_t me_;
    bool initialized_ = false;
};

}  // namespace

status bootstrap_pmix(std::unique_ptr<bootstrap> &out)
{
    auto c = std::make_unique<pmix_client>();
    status st = c->open();
    if (st != PGDDS_OK) return st;
    out = std::move(c);
    return PGDDS_OK;
}

}  // namespace pgdds
