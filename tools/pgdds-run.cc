// pgdds-run: starts N ranks of a program on this node and serves the simple PMI-1 protocol to
// them. It forwards their output (optionally prefixed by rank), binds them to cores with hwloc,
// passes the environment through, and ends the whole job when one rank fails, naming the rank
// and the cause. Nothing is left behind: no process, no shared-memory file.
#include "../src/pmi/pmi1_wire.h"
#include "cli.h"
#include "pgdds_config.h"

#include <hwloc.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <string>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using pgdds::pmi1::message;

struct options {
    int nranks = 0;
    std::string bind = "auto";  // core | none | auto (core when there are enough cores)
    bool prefix = false;
    double timeout = 0;
    double grace = 0;  // after a failure, time the other ranks get to notice and exit themselves
    bool verbose = false;
    std::vector<char *> argv;
};

struct rank_state {
    pid_t pid = -1;
    int pmi_fd = -1;
    int out_fd = -1, err_fd = -1;       // with --prefix: pipes from the rank
    std::string inbuf, outbuf, errbuf;  // partial lines
    bool pmi_init = false, finalized = false, in_barrier = false, exited = false;
    int wait_status = 0;
};

volatile sig_atomic_t got_signal = 0;
int sigchld_pipe[2] = {-1, -1};

void on_signal(int sig) { got_signal = sig; }
void on_sigchld(int)
{
    int saved = errno;
    char c = 0;
    if (write(sigchld_pipe[1], &c, 1) < 0) { /* the pipe is full: a wake-up is pending anyway */ }
    errno = saved;
}

void usage(FILE *f)
{
    fprintf(f,
            "usage: pgdds-run -n N [options] [--] program [args...]\n"
            "Starts N ranks of program on this node and serves PMI-1 to them. Options come before\n"
            "the program; what follows it is the program's. Values attach as -n4, -n 4, --np=4 or\n"
            "--np 4.\n"
            "  -n, --np N            number of ranks, 1..4096 (-np N as with mpirun)\n"
            "  --bind-to core|none   bind each rank to a core with hwloc (default: core when\n"
            "                        there are at least N cores, else none)\n"
            "  --tag-output, --prefix  prefix every output line with [rank]\n"
            "  --timeout SECONDS     end the job if it runs longer (exit status 124)\n"
            "  --grace SECONDS       when a rank fails, give the others this long to notice\n"
            "                        (PGDDS_ERR_PEER_FAILED) and exit before ending them; 0..600\n"
            "                        (default 0)\n"
            "  -v, --verbose         report each rank's start and end\n"
            "  -V, --version         the version\n"
            "  -h, --help            this text\n"
            "Exit status: 0 when every rank finalized and exited 0; else the failing rank's exit\n"
            "code (128+signal for a signal, 124 for --timeout); 2 for bad arguments.\n");
}

bool parse_args(int argc, char **argv, options &o)
{
    enum { opt_bind = 256, opt_tag, opt_timeout, opt_grace };
    static const option longopts[] = {
        {"np", required_argument, nullptr, 'n'},
        {"bind-to", required_argument, nullptr, opt_bind},
        {"tag-output", no_argument, nullptr, opt_tag},
        {"prefix", no_argument, nullptr, opt_tag},
        {"timeout", required_argument, nullptr, opt_timeout},
        {"grace", required_argument, nullptr, opt_grace},
        {"verbose", no_argument, nullptr, 'v'},
        {"version", no_argument, nullptr, 'V'},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    opterr = 0;
    // '+': the first argument that is not an option is the program; the rest are its own.
    for (int c; (c = getopt_long(argc, argv, "+:n:vVh", longopts, nullptr)) != -1;) {
        double v = 0;
        switch (c) {
        case 'n': {
            // -np N (mpirun's spelling) reads as -n with the value "p": the count follows.
            const char *count = optarg;
            if (count[0] == 'p') {
                if (count[1]) count += 1;
                else if (optind < argc) count = argv[optind++];
                else {
                    fprintf(stderr, "pgdds-run: option -np needs a value\n");
                    return false;
                }
            }
            if (!pgdds_cli_number(count, 1, 4096, &v) || v != double(int(v))) {
                fprintf(stderr, "pgdds-run: -n %s is not a rank count in 1..4096\n", count);
                return false;
            }
            o.nranks = int(v);
            break;
        }
        case opt_bind:
            o.bind = optarg;
            if (o.bind != "core" && o.bind != "none") {
                fprintf(stderr, "pgdds-run: --bind-to %s: expected core or none\n", optarg);
                return false;
            }
            break;
        case opt_tag: o.prefix = true; break;
        case opt_timeout:
            if (!pgdds_cli_number(optarg, 1e-9, 1e9, &v)) {
                fprintf(stderr, "pgdds-run: --timeout %s is not a positive number of seconds\n", optarg);
                return false;
            }
            o.timeout = v;
            break;
        case opt_grace:
            if (!pgdds_cli_number(optarg, 0, 600, &v)) {
                fprintf(stderr, "pgdds-run: --grace %s is not a number of seconds in 0..600\n", optarg);
                return false;
            }
            o.grace = v;
            break;
        case 'v': o.verbose = true; break;
        case 'V':
            pgdds_cli_version("pgdds-run", PGDDS_VERSION_TEXT);
            exit(0);
        case 'h':
            usage(stdout);
            exit(0);
        default: {
            char why[160];
            fprintf(stderr, "pgdds-run: %s\n", pgdds_cli_error(c, argv, why, sizeof why));
            return false;
        }
        }
    }
    for (int i = optind; i < argc; ++i) o.argv.push_back(argv[i]);
    o.argv.push_back(nullptr);
    if (o.nranks == 0) {
        fprintf(stderr, "pgdds-run: -n N is required\n");
        return false;
    }
    if (o.argv.size() < 2) {
        fprintf(stderr, "pgdds-run: no program given\n");
        return false;
    }
    return true;
}

std::string describe(int wait_status)
{
    char buf[128];
    if (WIFSIGNALED(wait_status))
        snprintf(buf, sizeof buf, "was killed by signal %d (%s)", WTERMSIG(wait_status), strsignal(WTERMSIG(wait_status)));
    else
        snprintf(buf, sizeof buf, "exited with code %d", WEXITSTATUS(wait_status));
    return buf;
}

class launcher {
  public:
    explicit launcher(const options &o) : o_(o), ranks_(size_t(o.nranks)) {}

    int run()
    {
        char job[64];
        snprintf(job, sizeof job, "%x-%lx", unsigned(getpid()), long(time(nullptr)) & 0xfffffff);
        job_ = job;
        kvsname_ = "kvs_" + job_;
        if (pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return perror_exit("pipe");
        struct sigaction sa {};
        sa.sa_handler = on_sigchld;
        sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
        sigaction(SIGCHLD, &sa, nullptr);
        sa.sa_handler = on_signal;
        sa.sa_flags = 0;
        sigaction(SIGINT, &sa, nullptr);
        sigaction(SIGTERM, &sa, nullptr);
        sigaction(SIGHUP, &sa, nullptr);
        signal(SIGPIPE, SIG_IGN);

        std::vector<hwloc_cpuset_t> cpusets = core_sets();
        for (int r = 0; r < o_.nranks; ++r)
            if (!spawn(r, cpusets.empty() ? nullptr : cpusets[size_t(r)])) {
                end_job("could not start every rank", 1);
                break;
            }
        for (auto c : cpusets) hwloc_bitmap_free(c);
        start_ = now();
        loop();
        if (ending_) {
            // Every rank is gone, but what a failed rank started may not be.
            terminate_all();
            usleep(100000);
            for (auto &rs : ranks_) kill(-rs.pid, SIGKILL);
        }
        cleanup_files();
        return exit_code_;
    }

  private:
    static double now()
    {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
    }
    int perror_exit(const char *what)
    {
        fprintf(stderr, "pgdds-run: %s: %s\n", what, strerror(errno));
        return 1;
    }

    // One cpuset per rank when binding, else none.
    std::vector<hwloc_cpuset_t> core_sets()
    {
        std::vector<hwloc_cpuset_t> sets;
        if (o_.bind == "none") return sets;
        hwloc_topology_t topo;
        if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
            fprintf(stderr, "pgdds-run: hwloc cannot read the topology; not binding\n");
            return sets;
        }
        int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        if (cores <= 0 || (o_.bind == "auto" && cores < o_.nranks)) {
            if (o_.bind == "core")
                fprintf(stderr, "pgdds-run: %d cores for %d ranks: binding round robin\n", cores, o_.nranks);
            else {
                hwloc_topology_destroy(topo);
                return sets;
            }
        }
        for (int r = 0; r < o_.nranks && cores > 0; ++r) {
            hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, unsigned(r % cores));
            sets.push_back(hwloc_bitmap_dup(core->cpuset));
        }
        hwloc_topology_destroy(topo);
        return sets;
    }

    bool spawn(int r, hwloc_const_cpuset_t cpuset)
    {
        rank_state &rs = ranks_[size_t(r)];
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return perror_exit("socketpair"), false;
        int outp[2] = {-1, -1}, errp[2] = {-1, -1};
        if (o_.prefix && (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0)) return perror_exit("pipe"), false;
        fflush(stdout);
        fflush(stderr);
        pid_t launcher_pid = getpid();
        pid_t pid = fork();
        if (pid < 0) return perror_exit("fork"), false;
        if (pid == 0) {
            // A launcher killed outright (SIGKILL, the OOM killer) cannot end the job: the kernel
            // sends the rank SIGTERM then, as a job's end does. Checked against a launcher that
            // died before the request took effect.
            if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != launcher_pid) _exit(128 + SIGTERM);
            setpgid(0, 0);  // the rank and whatever it starts are ended together
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            signal(SIGHUP, SIG_DFL);
            signal(SIGPIPE, SIG_DFL);
            signal(SIGCHLD, SIG_DFL);
            int fd = dup(sv[1]);  // without CLOEXEC: inherited by the program
            if (o_.prefix) {
                dup2(outp[1], 1);
                dup2(errp[1], 2);
            }
            setenv("PMI_FD", std::to_string(fd).c_str(), 1);
            setenv("PMI_RANK", std::to_string(r).c_str(), 1);
            setenv("PMI_SIZE", std::to_string(o_.nranks).c_str(), 1);
            setenv("PGDDS_JOBID", job_.c_str(), 1);
            if (cpuset) {
                hwloc_topology_t topo;
                if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
                    hwloc_set_cpubind(topo, cpuset, HWLOC_CPUBIND_PROCESS);
                    hwloc_topology_destroy(topo);
                }
            }
            execvp(o_.argv[0], o_.argv.data());
            fprintf(stderr, "pgdds-run: cannot run %s: %s\n", o_.argv[0], strerror(errno));
            _exit(127);
        }
        setpgid(pid, pid);
        close(sv[1]);
        rs.pid = pid;
        rs.pmi_fd = sv[0];
        if (o_.prefix) {
            close(outp[1]);
            close(errp[1]);
            rs.out_fd = outp[0];
            rs.err_fd = errp[0];
        }
        if (o_.verbose) fprintf(stderr, "pgdds-run: rank %d started as pid %d\n", r, int(pid));
        return true;
    }

    void loop()
    {
        while (live_ranks() > 0 || open_outputs() > 0) {
            std::vector<pollfd> fds;
            std::vector<std::pair<int, int>> who;  // (rank, 0 pmi | 1 out | 2 err)
            fds.push_back({sigchld_pipe[0], POLLIN, 0});
            who.push_back({-1, -1});
            for (int r = 0; r < o_.nranks; ++r) {
                rank_state &rs = ranks_[size_t(r)];
                int list[3] = {rs.pmi_fd, rs.out_fd, rs.err_fd};
                for (int k = 0; k < 3; ++k)
                    if (list[k] >= 0) {
                        fds.push_back({list[k], POLLIN, 0});
                        who.push_back({r, k});
                    }
            }
            int rc = poll(fds.data(), fds.size(), 100);
            if (rc < 0 && errno != EINTR) {
                perror_exit("poll");
                end_job("internal error", 1, true);
                return;
            }
            if (got_signal) {
                int sig = got_signal;
                got_signal = 0;
                char why[96];
                snprintf(why, sizeof why, "pgdds-run received signal %d (%s)", sig, strsignal(sig));
                end_job(why, 128 + sig, true);
            }
            for (size_t i = 0; rc > 0 && i < fds.size(); ++i) {
                if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                if (who[i].first < 0) {
                    char buf[64];
                    while (read(sigchld_pipe[0], buf, sizeof buf) > 0) {}
                    continue;
                }
                if (who[i].second == 0) serve_pmi(who[i].first);
                else forward(who[i].first, who[i].second);
            }
            reap();
            if (o_.timeout > 0 && !ending_ && now() - start_ > o_.timeout) {
                char why[96];
                snprintf(why, sizeof why, "the job exceeded --timeout %g s", o_.timeout);
                end_job(why, 124, true);
            }
            if (ending_ && now() >= end_started_) terminate_all();
            if (ending_ && now() - end_started_ > 3.0 && !killed_) {
                for (auto &rs : ranks_)
                    if (rs.pid > 0) kill(-rs.pid, SIGKILL);
                killed_ = true;
            }
        }
    }

    int live_ranks() const
    {
        int n = 0;
        for (auto &rs : ranks_) n += rs.pid > 0 && !rs.exited;
        return n;
    }
    int open_outputs() const
    {
        int n = 0;
        for (auto &rs : ranks_) n += (rs.out_fd >= 0) + (rs.err_fd >= 0);
        return n;
    }

    void reap()
    {
        for (;;) {
            int ws;
            pid_t pid = waitpid(-1, &ws, WNOHANG);
            if (pid <= 0) return;
            for (int r = 0; r < o_.nranks; ++r) {
                rank_state &rs = ranks_[size_t(r)];
                if (rs.pid != pid) continue;
                rs.exited = true;
                rs.wait_status = ws;
                if (rs.pmi_fd >= 0) {
                    close(rs.pmi_fd);
                    rs.pmi_fd = -1;
                }
                if (o_.verbose) fprintf(stderr, "pgdds-run: rank %d %s\n", r, describe(ws).c_str());
                bool clean = WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
                if (ending_) break;
                if (!clean) {
                    char why[256];
                    snprintf(why, sizeof why, "rank %d (pid %d) %s%s", r, int(pid), describe(ws).c_str(),
                             // A failed pgdds_init ends its PMI session too: finalizing is not
                             // proof that the rank got past start-up.
                             rs.finalized ? " after ending its PMI session (pgdds_finalize, or a failed pgdds_init)"
                                          : "");
                    end_job(why, WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws));
                } else if (rs.pmi_init && !rs.finalized) {
                    char why[256];
                    snprintf(why, sizeof why, "rank %d (pid %d) exited without calling pgdds_finalize", r, int(pid));
                    end_job(why, 1);
                }
                check_barrier();  // a rank that is gone no longer holds a barrier up
                break;
            }
        }
    }

    // Ends the job: SIGTERM to every rank's process group (after --grace), SIGKILL 3 s later.
    void end_job(const char *why, int code, bool now_please = false)
    {
        if (ending_) return;
        ending_ = true;
        end_started_ = now() + (now_please ? 0 : o_.grace);
        exit_code_ = code ? code : 1;
        fprintf(stderr, "pgdds-run: %s; ending the job\n", why);
        if (end_started_ <= now()) terminate_all();
    }
    void terminate_all()
    {
        if (terminated_) return;
        terminated_ = true;
        // Whole process groups, those of ranks that are gone too: what they started must end.
        for (auto &rs : ranks_)
            if (rs.pid > 0) kill(-rs.pid, SIGTERM);
    }

    // --- output forwarding -------------------------------------------------------------------
    void forward(int r, int which)
    {
        rank_state &rs = ranks_[size_t(r)];
        int &fd = which == 1 ? rs.out_fd : rs.err_fd;
        std::string &buf = which == 1 ? rs.outbuf : rs.errbuf;
        char tmp[8192];
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n > 0) buf.append(tmp, size_t(n));
        bool eof = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
        size_t nl;
        FILE *dst = which == 1 ? stdout : stderr;
        while ((nl = buf.find('\n')) != std::string::npos) {
            fprintf(dst, "[%d] %.*s\n", r, int(nl), buf.data());
            buf.erase(0, nl + 1);
        }
        if (eof) {
            if (!buf.empty()) fprintf(dst, "[%d] %s\n", r, buf.c_str());
            buf.clear();
            close(fd);
            fd = -1;
        }
        fflush(dst);
    }

    // --- the PMI-1 server ----------------------------------------------------------------------
    void reply(int r, const message &m)
    {
        std::string line = pgdds::pmi1::format(m);
        int fd = ranks_[size_t(r)].pmi_fd;
        size_t done = 0;
        while (fd >= 0 && done < line.size()) {
            ssize_t n = write(fd, line.data() + done, line.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            done += size_t(n);
        }
    }

    void serve_pmi(int r)
    {
        rank_state &rs = ranks_[size_t(r)];
        char tmp[8192];
        ssize_t n = read(rs.pmi_fd, tmp, sizeof tmp);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) return;
            close(rs.pmi_fd);
            rs.pmi_fd = -1;
            return;
        }
        rs.inbuf.append(tmp, size_t(n));
        size_t nl;
        while ((nl = rs.inbuf.find('\n')) != std::string::npos) {
            std::string line = rs.inbuf.substr(0, nl);
            rs.inbuf.erase(0, nl + 1);
            handle(r, line);
        }
    }

    void handle(int r, const std::string &line)
    {
        rank_state &rs = ranks_[size_t(r)];
        message m;
        if (!pgdds::pmi1::parse(line, m)) {
            fprintf(stderr, "pgdds-run: rank %d sent an ill-formed PMI command: %s\n", r, line.c_str());
            reply(r, {{"cmd", "error"}, {"rc", "-1"}});
            return;
        }
        const std::string &cmd = m["cmd"];
        if (cmd == "init") {
            rs.pmi_init = true;
            reply(r, {{"cmd", "response_to_init"}, {"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "0"}});
        } else if (cmd == "get_maxes") {
            reply(r, {{"cmd", "maxes"}, {"kvsname_max", "256"}, {"keylen_max", "256"}, {"vallen_max", "4096"}, {"rc", "0"}});
        } else if (cmd == "get_appnum") {
            reply(r, {{"cmd", "appnum"}, {"appnum", "0"}, {"rc", "0"}});
        } else if (cmd == "get_my_kvsname") {
            reply(r, {{"cmd", "my_kvsname"}, {"kvsname", kvsname_}, {"rc", "0"}});
        } else if (cmd == "get_universe_size") {
            reply(r, {{"cmd", "universe_size"}, {"size", std::to_string(o_.nranks)}, {"rc", "0"}});
        } else if (cmd == "put") {
            kvs_[m["key"]] = m["value"];
            reply(r, {{"cmd", "put_result"}, {"rc", "0"}, {"msg", "success"}});
        } else if (cmd == "get") {
            auto it = kvs_.find(m["key"]);
            if (it == kvs_.end())
                reply(r, {{"cmd", "get_result"}, {"rc", "-1"}, {"msg", "key_" + m["key"] + "_not_found"}});
            else
                reply(r, {{"cmd", "get_result"}, {"rc", "0"}, {"msg", "success"}, {"value", it->second}});
        } else if (cmd == "barrier_in") {
            rs.in_barrier = true;
            check_barrier();
        } else if (cmd == "finalize") {
            rs.finalized = true;
            reply(r, {{"cmd", "finalize_ack"}, {"rc", "0"}});
        } else if (cmd == "abort") {
            std::string msg = m.count("message") ? m["message"] : "";
            for (auto &c : msg)
                if (c == '_') c = ' ';
            int code = atoi(m["exitcode"].c_str());
            char why[512];
            snprintf(why, sizeof why, "rank %d called abort (exit code %d)%s%s", r, code, msg.empty() ? "" : ": ",
                     msg.c_str());
            end_job(why, code ? code : 1);
        } else {
            fprintf(stderr, "pgdds-run: rank %d sent an unknown PMI command: %s\n", r, line.c_str());
            reply(r, {{"cmd", cmd + "_result"}, {"rc", "-1"}, {"msg", "unknown_command"}});
        }
    }

    void check_barrier()
    {
        int waiting = 0;
        for (auto &rs : ranks_) {
            if (rs.exited) continue;
            if (!rs.in_barrier) return;
            ++waiting;
        }
        if (waiting == 0 || ending_) return;
        for (int r = 0; r < o_.nranks; ++r) {
            rank_state &rs = ranks_[size_t(r)];
            if (rs.exited) continue;
            rs.in_barrier = false;
            reply(r, {{"cmd", "barrier_out"}, {"rc", "0"}});
        }
    }

    // Shared-memory files of this job (ours) and of its processes (libfabric's shm provider
    // names them "<pid>:..." and "fi_shm_<pid>_...") outlive processes that are killed. Only
    // regular files of this user whose names this job made are removed: another user's file
    // that merely looks alike stays.
    void cleanup_files()
    {
        DIR *d = opendir("/dev/shm");
        if (!d) return;
        std::vector<std::string> prefixes{"pgdds-" + job_ + "-"};
        for (auto &rs : ranks_)
            if (rs.pid > 0) {
                prefixes.push_back(std::to_string(rs.pid) + ":");
                prefixes.push_back("fi_shm_" + std::to_string(rs.pid) + "_");
            }
        uid_t me = getuid();
        while (dirent *e = readdir(d)) {
            std::string name = e->d_name;
            bool ours = false;
            for (auto &p : prefixes) ours = ours || name.compare(0, p.size(), p) == 0;
            struct stat sb;
            if (ours && fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
                sb.st_uid == me)
                unlinkat(dirfd(d), e->d_name, 0);
        }
        closedir(d);
    }

    options o_;
    std::vector<rank_state> ranks_;
    std::map<std::string, std::string> kvs_;
    std::string job_, kvsname_;
    bool ending_ = false, terminated_ = false, killed_ = false;
    double start_ = 0, end_started_ = 0;
    int exit_code_ = 0;
};

}  // namespace

int main(int argc, char **argv)
{
    options o;
    if (!parse_args(argc, argv, o)) {
        usage(stderr);
        return 2;
    }
    launcher l(o);
    return l.run();
}
