// Client of the simple PMI-1 wire protocol, as served by MPICH Hydra's mpiexec and pgdds-run.
// The launcher hands the connection over as PMI_FD (an open socket) or PMI_PORT (host:port,
// followed by an initack with PMI_ID).
#include "bootstrap.h"
#include "pmi1_wire.h"
#include "wire_io.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace pgdds {
namespace {

class pmi1_client final : public bootstrap {
  public:
    // PMI_FD belongs to the process (an MPI library in the same program may be using it too):
    // only a connection this client opened is closed.
    ~pmi1_client() override
    {
        if (own_fd_) close(fd_);
    }
    const char *name() const override { return "pmi1"; }

    status open()
    {
        const char *fd_env = getenv("PMI_FD");
        const char *port_env = getenv("PMI_PORT");
        if (fd_env) {
            fd_ = wire::fd_from_env("PMI_FD");
            if (fd_ < 0) return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: PMI_FD=\"%s\" is not a file descriptor", fd_env);
        } else if (port_env) {
            status st = connect_port(port_env);
            if (st != PGDDS_OK) return st;
        } else {
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: neither PMI_FD nor PMI_PORT is set");
        }
        const char *r = getenv("PMI_RANK"), *s = getenv("PMI_SIZE");
        if (r) rank_ = atoi(r);
        if (s) size_ = atoi(s);

        // Written as MPICH writes it: Slurm's mpi/pmi2 plugin, which serves PMI-1 too, sscanf()s
        // this exact line.
        if (!send_line("cmd=init pmi_version=1 pmi_subversion=1\n"))
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: cannot write to the launcher: %s", strerror(errno));
        pmi1::message reply;
        status st = receive("response_to_init", reply);
        if (st != PGDDS_OK) return st;
        if (port_env) {
            const char *id = getenv("PMI_ID");
            st = call({{"cmd", "initack"}, {"pmiid", id ? id : "0"}}, "initack", reply);
            if (st != PGDDS_OK) return st;
            for (int i = 0; i < 3; ++i) {  // "cmd=set size=", "rank=", "debug="
                st = receive("set", reply);
                if (st != PGDDS_OK) return st;
                if (reply.count("size")) size_ = atoi(reply["size"].c_str());
                if (reply.count("rank")) rank_ = atoi(reply["rank"].c_str());
            }
        }
        if (size_ < 1 || rank_ < 0 || rank_ >= size_)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: rank %d / size %d from the launcher are inconsistent",
                        rank_, size_);
        st = call({{"cmd", "get_maxes"}}, "maxes", reply);
        if (st != PGDDS_OK) return st;
        keylen_max_ = size_t(atol(reply["keylen_max"].c_str()));
        vallen_max_ = size_t(atol(reply["vallen_max"].c_str()));
        if (keylen_max_ < 16 || vallen_max_ < 32)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: the launcher's limits (key %zu, value %zu bytes) "
                        "are too small", keylen_max_, vallen_max_);
        st = call({{"cmd", "get_my_kvsname"}}, "my_kvsname", reply);
        if (st != PGDDS_OK) return st;
        kvsname_ = reply["kvsname"];
        return PGDDS_OK;
    }

    status put(const std::string &key, const std::string &value) override
    {
        pmi1::message reply;
        if (!pmi1::token_ok(key) || !pmi1::token_ok(value) || value.size() > max_value_len() ||
            key.size() > max_key_len())
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: key \"%s\" or its value is not transmissible", key.c_str());
        return call({{"cmd", "put"}, {"kvsname", kvsname_}, {"key", key}, {"value", value}}, "put_result", reply);
    }
    status fence() override { return barrier(); }
    status get(int owner, const std::string &key, std::string &value) override
    {
        pmi1::message reply;
        status st = call({{"cmd", "get"}, {"kvsname", kvsname_}, {"key", key}}, "get_result", reply);
        if (st != PGDDS_OK && reply["cmd"] == "get_result")
            return fail(PGDDS_ERR_BOOTSTRAP, "rank %d never published \"%s\" (it exited, failed or never called "
                        "pgdds_init before this rank's start-up needed it; the launcher says: %s)", owner,
                        key.c_str(), reply.count("msg") ? reply["msg"].c_str() : "no such key");
        value = reply["value"];
        return PGDDS_OK;
    }
    status barrier() override
    {
        pmi1::message reply;
        return call({{"cmd", "barrier_in"}}, "barrier_out", reply);
    }
    [[noreturn]] void abort(int code, const std::string &msg) override
    {
        std::string text = msg;
        for (auto &c : text)
            if (c == ' ' || c == '=' || c == '\n') c = '_';
        send_line(pmi1::format({{"cmd", "abort"}, {"exitcode", std::to_string(code)}, {"message", text}}));
        _exit(code ? code : 1);
    }
    status finalize() override
    {
        if (!own_fd_) {
            // The launcher's PMI_FD may serve an MPI library of this program too (see send_at_exit).
            wire::send_at_exit(fd_, "cmd=finalize\n",
                               [](const std::string &reply) { return reply.find('\n') != std::string::npos; });
            return PGDDS_OK;
        }
        pmi1::message reply;
        return call({{"cmd", "finalize"}}, "finalize_ack", reply);
    }
    bool launcher_gone() const override
    {
        pollfd pfd{fd_, POLLRDHUP, 0};
        return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR));
    }
    // The launcher's limits count a terminating NUL: Hydra truncates a value of vallen_max bytes.
    size_t max_key_len() const override { return keylen_max_ - 1; }
    size_t max_value_len() const override { return vallen_max_ - 1; }

  private:
    status connect_port(const char *port_env)
    {
        std::string hp(port_env);
        size_t colon = hp.rfind(':');
        if (colon == std::string::npos)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: PMI_PORT=\"%s\" is not host:port", port_env);
        addrinfo hints{}, *res = nullptr;
        hints.ai_socktype = SOCK_STREAM;
        int rc = getaddrinfo(hp.substr(0, colon).c_str(), hp.substr(colon + 1).c_str(), &hints, &res);
        if (rc != 0)
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: cannot resolve PMI_PORT=%s: %s", port_env, gai_strerror(rc));
        for (addrinfo *a = res; a; a = a->ai_next) {
            fd_ = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
            if (fd_ >= 0 && ::connect(fd_, a->ai_addr, a->ai_addrlen) == 0) break;
            if (fd_ >= 0) close(fd_);
            fd_ = -1;
        }
        freeaddrinfo(res);
        if (fd_ < 0) return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: cannot connect to PMI_PORT=%s", port_env);
        own_fd_ = true;
        return PGDDS_OK;
    }

    bool send_line(const std::string &line) { return wire::write_all(fd_, line); }

    status receive(const char *expect, pmi1::message &reply)
    {
        for (;;) {
            size_t nl = inbuf_.find('\n');
            if (nl != std::string::npos) {
                std::string line = inbuf_.substr(0, nl);
                inbuf_.erase(0, nl + 1);
                if (!pmi1::parse(line, reply))
                    return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: ill-formed reply \"%s\"", line.c_str());
                if (reply["cmd"] != expect)
                    return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: expected \"%s\", the launcher said \"%s\"",
                                expect, line.c_str());
                if (reply.count("rc") && reply["rc"] != "0")
                    return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: the launcher refused: %s", line.c_str());
                return PGDDS_OK;
            }
            long n = wire::read_some(fd_, inbuf_);
            if (n < 0 && errno == ETIMEDOUT)
                return fail(PGDDS_ERR_TIMEOUT, "PMI-1: no \"%s\" from the launcher within %.1f s (PGDDS_TIMEOUT): "
                            "it does not answer, or a rank has not started", expect, wire::reply_timeout());
            if (n <= 0)
                return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: the launcher closed the connection (%s)",
                            n < 0 ? strerror(errno) : "end of file");
        }
    }

    status call(const pmi1::message &req, const char *expect, pmi1::message &reply)
    {
        if (!send_line(pmi1::format(req)))
            return fail(PGDDS_ERR_BOOTSTRAP, "PMI-1: cannot write to the launcher: %s", strerror(errno));
        return receive(expect, reply);
    }

    int fd_ = -1;
    bool own_fd_ = false;
    std::string inbuf_, kvsname_;
    size_t keylen_max_ = 64, vallen_max_ = 256;
};

}  // namespace

status bootstrap_pmi1(std::unique_ptr<bootstrap> &out)
{
    auto c = std::make_unique<pmi1_client>();
    status st = c->open();
    if (st != PGDDS_OK) return st;
    out = std::move(c);
    return PGDDS_OK;
}

}  // namespace pgdds
