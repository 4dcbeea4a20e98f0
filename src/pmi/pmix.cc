// PMIx client (Open MPI's mpirun/prterun, srun --mpi=pmix), through libpmix.
#include "bootstrap.h"
#include "wire_io.h"

#include <pmix.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <unistd.h>

namespace pgdds {
namespace {

// The rank of this job the launcher last reported dead (PMIx failure events), -1 for none: one
// per process, as the PMIx client is.
std::atomic<int> reported_dead{-1};
pmix_nspace_t job_nspace;

// A launcher that notifies its processes of a death (prterun --enable-recovery, for one) names
// the process in PMIX_EVENT_AFFECTED_PROC, or as the event's source.
void on_failure_event(size_t, pmix_status_t, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                      pmix_info_t *, size_t, pmix_event_notification_cbfunc_fn_t done, void *cbdata)
{
    auto of_job = [](const pmix_proc_t *p) {
        return p && p->rank < PMIX_RANK_VALID && PMIX_CHECK_NSPACE(p->nspace, job_nspace) ? int(p->rank) : -1;
    };
    int rank = of_job(source);
    for (size_t i = 0; i < ninfo; ++i)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC &&
            of_job(info[i].value.data.proc) >= 0)
            rank = of_job(info[i].value.data.proc);
    if (rank >= 0) reported_dead.store(rank, std::memory_order_release);
    if (done) done(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

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
        // Deaths the launcher reports reach every wait (runtime::check_peers), across nodes too.
        // Launchers that send no such event leave it to the transports' errors and PGDDS_TIMEOUT.
        PMIX_LOAD_NSPACE(job_nspace, me_.nspace);
        pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED, PMIX_PROC_TERMINATED, PMIX_EVENT_PROC_TERMINATED};
        PMIx_Register_event_handler(codes, sizeof codes / sizeof *codes, nullptr, 0, on_failure_event, nullptr,
                                    nullptr);
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
        pmix_info_t limit;
        const bool bounded = with_timeout(limit);
        pmix_status_t rc = PMIx_Get(&p, key.c_str(), bounded ? &limit : nullptr, bounded ? 1 : 0, &val);
        if (bounded) PMIX_INFO_DESTRUCT(&limit);
        if (rc == PMIX_ERR_TIMEOUT)
            return timed_out("PMIx_Get(rank " + std::to_string(owner) + ", " + key + ")");
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
    int reported_failure() const override { return reported_dead.load(std::memory_order_acquire); }
    size_t max_key_len() const override { return PMIX_MAX_KEYLEN; }
    size_t max_value_len() const override { return 1 << 20; }

  private:
    // PGDDS_TIMEOUT bounds every call that waits for the launcher or another rank (PMIX_TIMEOUT,
    // whole seconds, rounded up). False, and nothing loaded, when it is unset.
    static bool with_timeout(pmix_info_t &info)
    {
        const double t = wire::reply_timeout();
        if (t <= 0) return false;
        int seconds = int(std::ceil(t));
        PMIX_INFO_CONSTRUCT(&info);
        PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &seconds, PMIX_INT);
        return true;
    }
    static status timed_out(const std::string &call)
    {
        return fail(PGDDS_ERR_TIMEOUT, "PMIx: %s found no answer within %.1f s (PGDDS_TIMEOUT): the launcher does not "
                    "answer, or a rank has not started", call.c_str(), wire::reply_timeout());
    }
    status fence_impl(bool collect)
    {
        pmix_info_t info[2];
        PMIX_INFO_CONSTRUCT(&info[0]);
        bool flag = collect;
        PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
        const size_t n = with_timeout(info[1]) ? 2 : 1;
        pmix_status_t rc = PMIx_Fence(nullptr, 0, info, n);
        for (size_t i = 0; i < n; ++i) PMIX_INFO_DESTRUCT(&info[i]);
        if (rc == PMIX_ERR_TIMEOUT) return timed_out("PMIx_Fence");
        if (rc != PMIX_SUCCESS)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMIx_Fence failed: %s", PMIx_Error_string(rc));
        return PGDDS_OK;
    }

    pmix_proc_t me_;
    bool initialized_ = false;
};

}  // namespace

std::string bootstrap_pmix_version() { return PMIx_Get_version(); }

status bootstrap_pmix(std::unique_ptr<bootstrap> &out)
{
    auto c = std::make_unique<pmix_client>();
    status st = c->open();
    if (st != PGDDS_OK) return st;
    out = std::move(c);
    return PGDDS_OK;
}

}  // namespace pgdds
