// Client of the PMI-2 wire protocol, as served by Slurm's mpi/pmi2 plugin (srun --mpi=pmi2) and
// by MPICH Hydra. The launcher passes an open socket as PMI_FD, the rank as PMI_RANK and, under
// Slurm, the job's PMI id as PMI_JOBID. After a PMI-1 style handshake that selects version 2,
// commands are length-prefixed frames (pmi2_wire.h): fullinit, job-getid, kvs-put, kvs-fence,
// kvs-get, finalize, abort. PMI-2 has no barrier of its own: kvs-fence is one.
#include "bootstrap.h"
#include "pmi1_wire.h"
#include "pmi2_wire.h"
#include "wire_io.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace pgdds {
namespace {

// Slurm's and MPICH's limits (PMI2_MAX_KEYLEN 64, PMI2_MAX_VALLEN 1024) count a terminating
// NUL: Hydra truncates longer values to 1023 bytes and drops keys of 64 or more.
constexpr size_t pmi2_max_key = 63;
constexpr size_t pmi2_max_value = 1023;

class pmi2_client final : public bootstrap {
  public:
    // PMI_FD belongs to the process (an MPI library in the same program may be using it too).
    ~pmi2_client() override = default;
    const char *name() const override { return "pmi2"; }

    status open()
    {
        fd_ = wire::fd_from_env("PMI_FD");
        if (fd_ < 0)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: PMI_FD is unset or not a file descriptor (srun "
                        "--mpi=pmi2 sets it)");
        // Slurm reads the handshake with a single read() and an exact format: one write, nothing
        // else until the reply.
        if (!wire::write_all(fd_, "cmd=init pmi_version=2 pmi_subversion=0\n"))
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: cannot write to PMI_FD %d: %s", fd_, strerror(errno));
        pmi1::message init;
        status st = read_init_reply(init);
        if (st != PGDDS_OK) return st;

        pmi2::message req{{"cmd", "fullinit"}, {"threaded", "FALSE"}};
        const char *rank = getenv("PMI_RANK"), *jobid = getenv("PMI_JOBID");
        if (rank) req["pmirank"] = rank;
        if (jobid) req["pmijobid"] = jobid;
        pmi2::message reply;
        st = call(req, "fullinit-response", reply);
        if (st != PGDDS_OK) return st;
        if (!parse_int(reply, "rank", rank_) || !parse_int(reply, "size", size_) || size_ < 1 || rank_ < 0 ||
            rank_ >= size_)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: fullinit-response gives rank \"%s\" of size \"%s\"",
                        reply["rank"].c_str(), reply["size"].c_str());
        st = call({{"cmd", "job-getid"}}, "job-getid-response", reply);
        if (st != PGDDS_OK) return st;
        jobid_ = reply["jobid"];
        return PGDDS_OK;
    }

    status put(const std::string &key, const std::string &value) override
    {
        if (key.empty() || key.size() > pmi2_max_key || key.find_first_of("=;") != std::string::npos ||
            value.size() > pmi2_max_value || value.find(';') != std::string::npos)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: key \"%s\" or its value (%zu bytes) is not transmissible",
                        key.c_str(), value.size());
        pmi2::message reply;
        return call({{"cmd", "kvs-put"}, {"key", key}, {"value", value}}, "kvs-put-response", reply);
    }
    status fence() override
    {
        pmi2::message reply;
        return call({{"cmd", "kvs-fence"}}, "kvs-fence-response", reply);
    }
    status get(int owner, const std::string &key, std::string &value) override
    {
        pmi2::message reply;
        status st = call({{"cmd", "kvs-get"}, {"jobid", jobid_}, {"srcid", std::to_string(owner)}, {"key", key}},
                         "kvs-get-response", reply);
        if (st != PGDDS_OK) return st;
        if (reply["found"] != "TRUE")
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: the launcher has no key \"%s\" (from rank %d)", key.c_str(),
                        owner);
        value = reply["value"];
        return PGDDS_OK;
    }
    status barrier() override { return fence(); }
    [[noreturn]] void abort(int code, const std::string &msg) override
    {
        std::string text = msg;
        for (auto &c : text)
            if (c == ';' || c == '\n') c = ' ';
        // No reply comes: the launcher ends the job.
        wire::write_all(fd_, pmi2::format({{"cmd", "abort"}, {"isworld", "TRUE"}, {"msg", text}}));
        _exit(code ? code : 1);
    }
    // Sent when the process exits: PMI_FD may serve an MPI library of this program too, and Slurm
    // closes it on finalize (see wire::send_at_exit).
    status finalize() override
    {
        wire::send_at_exit(fd_, pmi2::format({{"cmd", "finalize"}}), [](const std::string &reply) {
            std::string copy = reply, body;
            return pmi2::take_frame(copy, body) != 0;
        });
        return PGDDS_OK;
    }
    size_t max_key_len() const override { return pmi2_max_key; }
    size_t max_value_len() const override { return pmi2_max_value; }

  private:
    static bool parse_int(pmi2::message &m, const char *key, int &out)
    {
        const std::string &text = m[key];
        char *end;
        long v = strtol(text.c_str(), &end, 10);
        if (text.empty() || *end || v < -1 || v > (1L << 30)) return false;
        out = int(v);
        return true;
    }

    status read_init_reply(pmi1::message &reply)
    {
        size_t nl;
        while ((nl = inbuf_.find('\n')) == std::string::npos) {
            status st = read_more();
            if (st != PGDDS_OK) return st;
        }
        std::string line = inbuf_.substr(0, nl);
        inbuf_.erase(0, nl + 1);
        if (!pmi1::parse(line, reply) || reply["cmd"] != "response_to_init")
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: expected response_to_init, the launcher said \"%s\"",
                        line.c_str());
        if ((reply.count("rc") && reply["rc"] != "0") || reply["pmi_version"] != "2")
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: the launcher does not serve PMI version 2 (\"%s\"); "
                        "try PGDDS_PMI=pmi1", line.c_str());
        return PGDDS_OK;
    }

    status read_more()
    {
        long n = wire::read_some(fd_, inbuf_);
        if (n < 0 && errno == ETIMEDOUT)
            return fail(PGDDS_ERR_TIMEOUT, "PMI-2: no reply from the launcher within %.1f s (PGDDS_TIMEOUT): it "
                        "does not answer, or a rank has not started", wire::reply_timeout());
        if (n <= 0)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: the launcher closed the connection (%s)",
                        n < 0 ? strerror(errno) : "end of file");
        return PGDDS_OK;
    }

    status call(const pmi2::message &req, const char *expect, pmi2::message &reply)
    {
        std::string frame = pmi2::format(req);
        if (frame.empty())
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: cannot encode command %s", req.at("cmd").c_str());
        if (!wire::write_all(fd_, frame))
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: cannot write to the launcher: %s", strerror(errno));
        std::string body;
        int got;
        while ((got = pmi2::take_frame(inbuf_, body)) == 0) {
            status st = read_more();
            if (st != PGDDS_OK) return st;
        }
        if (got < 0 || !pmi2::parse(body, reply))
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: ill-formed reply \"%.80s\"", (body.empty() ? inbuf_ : body).c_str());
        if (reply["cmd"] != expect)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: expected %s, the launcher said \"%.80s\"", expect, body.c_str());
        if (reply.count("rc") && reply["rc"] != "0")
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-2: the launcher refused %s (rc=%s%s%s)", req.at("cmd").c_str(),
                        reply["rc"].c_str(), reply.count("errmsg") ? ": " : "",
                        reply.count("errmsg") ? reply["errmsg"].c_str() : "");
        return PGDDS_OK;
    }

    int fd_ = -1;
    std::string inbuf_, jobid_;
};

}  // namespace

status bootstrap_pmi2(std::unique_ptr<bootstrap> &out)
{
    auto c = std::make_unique<pmi2_client>();
    status st = c->open();
    if (st != PGDDS_OK) return st;
    out = std::move(c);
    return PGDDS_OK;
}

}  // namespace pgdds
