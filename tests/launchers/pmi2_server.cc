// pmi2-server: a minimal launcher that serves PMI-2 the way Slurm's mpi/pmi2 plugin does, so
// that the PMI-2 client can be run end to end where there is no Slurm. It starts N ranks of a
// program on this node with the environment srun --mpi=pmi2 gives (PMI_FD, PMI_RANK, PMI_SIZE,
// PMI_JOBID, SLURM_PROCID, ...), and keeps to the plugin's rules:
//  - the handshake is one "cmd=init pmi_version=2 pmi_subversion=0\n" line, read with a single
//    read() as Slurm does, and nothing may follow it before the reply;
//  - fullinit must carry pmijobid, pmirank and threaded;
//  - replies are framed "%-6d" (length left-aligned), as Slurm's client_resp_send writes them;
//  - kvs-put values stay invisible until the kvs-fence that follows them completes on every
//    rank; kvs-get ignores srcid and answers found=FALSE for an unknown key;
//  - finalize is answered and the socket closed; abort ends the job.
// Any departure from the protocol is reported and fails the job. A rank that dies or exits
// non-zero ends the job (srun -K), unless --kill-on-bad-exit=0 is given (srun's default where
// KillOnBadExit is not set): the others then run on, and only an abort ends them.
// usage: pmi2-server [--kill-on-bad-exit=0] -n N program [args...]
#include "../../src/pmi/pmi2_wire.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using pgdds::pmi2::message;

namespace {

const char job_id[] = "4242.0";

struct rank_state {
    pid_t pid = -1;
    int fd = -1;
    bool greeted = false, in_fence = false, finalized = false, exited = false;
    int exit_code = 0;
    std::string inbuf;
    std::map<std::string, std::string> pending;  // puts not yet fenced
};

class server {
  public:
    server(int n, char **argv, bool kill_on_bad_exit)
        : ranks_(size_t(n)), argv_(argv), kill_on_bad_exit_(kill_on_bad_exit)
    {
    }

    int run()
    {
        signal(SIGPIPE, SIG_IGN);
        for (int r = 0; r < int(ranks_.size()); ++r)
            if (!spawn(r)) return finish(1);
        while (live() > 0) {
            std::vector<pollfd> fds;
            std::vector<int> who;
            for (int r = 0; r < int(ranks_.size()); ++r)
                if (ranks_[size_t(r)].fd >= 0) {
                    fds.push_back({ranks_[size_t(r)].fd, POLLIN, 0});
                    who.push_back(r);
                }
            if (poll(fds.data(), fds.size(), 50) < 0 && errno != EINTR) return finish(1);
            for (size_t i = 0; i < fds.size(); ++i)
                if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) serve(who[i]);
            reap();
            if (failed_) return finish(1);
        }
        return finish(bad_exit_ ? 1 : 0);
    }

  private:
    bool spawn(int r)
    {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return perror("socketpair"), false;
        pid_t pid = fork();
        if (pid < 0) return perror("fork"), false;
        if (pid == 0) {
            int fd = dup(sv[1]);  // inherited across exec
            std::string n = std::to_string(ranks_.size()), rank = std::to_string(r);
            setenv("PMI_FD", std::to_string(fd).c_str(), 1);
            setenv("PMI_RANK", rank.c_str(), 1);
            setenv("PMI_SIZE", n.c_str(), 1);
            setenv("PMI_JOBID", job_id, 1);
            setenv("SLURM_PROCID", rank.c_str(), 1);
            setenv("SLURM_LOCALID", rank.c_str(), 1);
            setenv("SLURM_NTASKS", n.c_str(), 1);
            setenv("SLURM_STEP_ID", "0", 1);
            setenv("SLURM_MPI_TYPE", "pmi2", 1);
            unsetenv("PMI_PORT");
            unsetenv("PMIX_RANK");
            execvp(argv_[0], argv_);
            fprintf(stderr, "pmi2-server: cannot run %s: %s\n", argv_[0], strerror(errno));
            _exit(127);
        }
        close(sv[1]);
        ranks_[size_t(r)].pid = pid;
        ranks_[size_t(r)].fd = sv[0];
        return true;
    }

    int live() const
    {
        int n = 0;
        for (auto &rs : ranks_) n += !rs.exited;
        return n;
    }

    void protocol_error(int r, const std::string &what)
    {
        fprintf(stderr, "pmi2-server: rank %d broke the PMI-2 protocol: %s\n", r, what.c_str());
        failed_ = true;
    }

    void send(int r, const std::string &body)
    {
        char header[8];
        snprintf(header, sizeof header, "%-6zu", body.size());
        std::string frame = header + body;
        if (::send(ranks_[size_t(r)].fd, frame.data(), frame.size(), MSG_NOSIGNAL) != ssize_t(frame.size()))
            protocol_error(r, "its socket refused a reply");
    }

    void close_rank(int r)
    {
        rank_state &rs = ranks_[size_t(r)];
        if (rs.fd >= 0) close(rs.fd);
        rs.fd = -1;
    }

    void serve(int r)
    {
        rank_state &rs = ranks_[size_t(r)];
        char buf[64];
        if (!rs.greeted) {
            // As Slurm's _handle_pmi1_init: one read, one exact line.
            ssize_t n = read(rs.fd, buf, sizeof buf - 1);
            if (n <= 0) return close_rank(r);
            buf[n] = '\0';
            if (strcmp(buf, "cmd=init pmi_version=2 pmi_subversion=0\n") != 0)
                return protocol_error(r, std::string("the handshake read \"") + buf + "\"");
            const char reply[] = "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n";
            if (write(rs.fd, reply, sizeof reply - 1) != ssize_t(sizeof reply - 1)) protocol_error(r, "write");
            rs.greeted = true;
            return;
        }
        char more[4096];
        ssize_t n = read(rs.fd, more, sizeof more);
        if (n <= 0) return close_rank(r);
        rs.inbuf.append(more, size_t(n));
        std::string body;
        int got;
        while (rs.fd >= 0 && (got = pgdds::pmi2::take_frame(rs.inbuf, body)) != 0) {
            message m;
            if (got < 0 || !pgdds::pmi2::parse(body, m)) return protocol_error(r, "ill-formed frame \"" + body + "\"");
            handle(r, m, body);
        }
    }

    void handle(int r, message &m, const std::string &body)
    {
        rank_state &rs = ranks_[size_t(r)];
        const std::string &cmd = m["cmd"];
        if (cmd == "fullinit") {
            if (!m.count("pmijobid") || !m.count("pmirank") || !m.count("threaded"))
                return protocol_error(r, "fullinit without pmijobid, pmirank or threaded: " + body);
            if (m["pmijobid"] != job_id || m["pmirank"] != std::to_string(r))
                return protocol_error(r, "fullinit names another job or rank: " + body);
            send(r, "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=" + std::to_string(r) +
                        ";size=" + std::to_string(ranks_.size()) + ";appnum=-1;debugged=FALSE;pmiverbose=FALSE;");
        } else if (cmd == "job-getid") {
            send(r, std::string("cmd=job-getid-response;rc=0;jobid=") + job_id + ";");
        } else if (cmd == "kvs-put") {
            if (!m.count("key") || !m.count("value")) return protocol_error(r, "kvs-put without key or value");
            rs.pending[m["key"]] = m["value"];
            send(r, "cmd=kvs-put-response;rc=0;");
        } else if (cmd == "kvs-fence") {
            rs.in_fence = true;
            complete_fence();
        } else if (cmd == "kvs-get") {
            auto it = kvs_.find(m["key"]);
            if (it == kvs_.end()) send(r, "cmd=kvs-get-response;rc=0;found=FALSE;");
            else send(r, "cmd=kvs-get-response;rc=0;found=TRUE;value=" + it->second + ";");
        } else if (cmd == "finalize") {
            rs.finalized = true;
            send(r, "cmd=finalize-response;rc=0;");
            close_rank(r);
        } else if (cmd == "abort") {
            fprintf(stderr, "pmi2-server: rank %d aborted the job: %s\n", r, m["msg"].c_str());
            failed_ = true;
        } else {
            protocol_error(r, "unknown command \"" + cmd + "\"");
        }
    }

    // A fence completes when every rank has entered it; only then do its puts become visible.
    void complete_fence()
    {
        for (auto &rs : ranks_)
            if (!rs.in_fence) return;
        for (auto &rs : ranks_) {
            for (auto &kv : rs.pending) kvs_[kv.first] = kv.second;
            rs.pending.clear();
        }
        for (int r = 0; r < int(ranks_.size()); ++r) {
            ranks_[size_t(r)].in_fence = false;
            send(r, "cmd=kvs-fence-response;rc=0;");
        }
    }

    void reap()
    {
        int ws;
        pid_t pid;
        while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
            for (int r = 0; r < int(ranks_.size()); ++r) {
                rank_state &rs = ranks_[size_t(r)];
                if (rs.pid != pid) continue;
                rs.exited = true;
                rs.exit_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
                close_rank(r);
                if (rs.exit_code == 77) {
                    skipped_ = true;  // the test's "skip" status
                } else if (rs.exit_code != 0) {
                    fprintf(stderr, "pmi2-server: rank %d exited with status %d\n", r, rs.exit_code);
                    (kill_on_bad_exit_ ? failed_ : bad_exit_) = true;
                } else if (rs.greeted && !rs.finalized) {
                    fprintf(stderr, "pmi2-server: rank %d exited without PMI-2 finalize\n", r);
                    failed_ = true;
                }
            }
        }
    }

    int finish(int code)
    {
        for (auto &rs : ranks_)
            if (rs.pid > 0 && !rs.exited) kill(rs.pid, SIGKILL);
        for (auto &rs : ranks_)
            if (rs.pid > 0 && !rs.exited) waitpid(rs.pid, nullptr, 0);
        return code == 0 && skipped_ ? 77 : code;
    }

    std::vector<rank_state> ranks_;
    char **argv_;
    std::map<std::string, std::string> kvs_;
    bool kill_on_bad_exit_;
    bool failed_ = false, skipped_ = false, bad_exit_ = false;
};

}  // namespace

int main(int argc, char **argv)
{
    bool kill_on_bad_exit = true;
    if (argc > 1 && strcmp(argv[1], "--kill-on-bad-exit=0") == 0) {
        kill_on_bad_exit = false;
        --argc;
        ++argv;
    }
    if (argc < 4 || strcmp(argv[1], "-n") != 0 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: pmi2-server [--kill-on-bad-exit=0] -n N program [args...]\n");
        return 2;
    }
    return server(atoi(argv[2]), argv + 3, kill_on_bad_exit).run();
}
