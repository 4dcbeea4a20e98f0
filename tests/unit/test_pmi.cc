// The bootstrap layer on its own: the PMI-1 and PMI-2 wire codecs (with the exact bytes MPICH
// Hydra and Slurm exchange), the binary-blob helpers, client selection from the environment,
// and whole PMI-1 and PMI-2 conversations with a peer on the other end of a socket that
// answers as Hydra and Slurm do.
#include <catch2/catch.hpp>

#include "../../src/pmi/bootstrap.h"
#include "../../src/pmi/pmi1_wire.h"
#include "../../src/pmi/pmi2_wire.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace pgdds;

namespace {

// Sets environment variables for one scope and restores the previous values after it.
class scoped_env {
  public:
    scoped_env(std::initializer_list<std::pair<const char *, const char *>> vars)
    {
        for (auto &v : vars) {
            const char *old = getenv(v.first);
            saved_.emplace_back(v.first, old ? std::make_pair(true, std::string(old)) : std::make_pair(false, std::string()));
            if (v.second) setenv(v.first, v.second, 1);
            else unsetenv(v.first);
        }
    }
    ~scoped_env()
    {
        for (auto &s : saved_) {
            if (s.second.first) setenv(s.first.c_str(), s.second.second.c_str(), 1);
            else unsetenv(s.first.c_str());
        }
    }

  private:
    std::vector<std::pair<std::string, std::pair<bool, std::string>>> saved_;
};

// "%-6d" then the body: how Slurm frames a PMI-2 reply (Hydra right-aligns, "%6d").
std::string slurm_frame(const std::string &body)
{
    char header[8];
    snprintf(header, sizeof header, "%-6zu", body.size());
    return header + body;
}
std::string hydra_frame(const std::string &body)
{
    char header[8];
    snprintf(header, sizeof header, "%6zu", body.size());
    return header + body;
}

// The launcher's end of a PMI socket: reads one request (a line, or a PMI-2 frame once the
// handshake line is done) per canned reply, records it, and writes the reply.
class scripted_launcher {
  public:
    scripted_launcher(std::vector<std::string> replies, bool pmi2) : replies_(std::move(replies)), pmi2_(pmi2)
    {
        REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_) == 0);
        fd_text_ = std::to_string(fds_[1]);
        thread_ = std::thread([this] { serve(); });
    }
    ~scripted_launcher()
    {
        hang_up();
        close(fds_[0]);
    }
    const char *client_fd() const { return fd_text_.c_str(); }
    // Closes the launcher's end: the client reads end of file once the replies are consumed.
    void hang_up()
    {
        shutdown(fds_[0], SHUT_RDWR);
        if (thread_.joinable()) thread_.join();
    }
    // The requests received; call once the client is done.
    std::vector<std::string> requests()
    {
        hang_up();
        return requests_;
    }

  private:
    bool read_request(std::string &out)
    {
        for (;;) {
            if (requests_.empty() || !pmi2_) {
                size_t nl = buf_.find('\n');
                if (nl != std::string::npos) {
                    out = buf_.substr(0, nl + 1);
                    buf_.erase(0, nl + 1);
                    return true;
                }
            } else {
                std::string body;
                int got = pmi2::take_frame(buf_, body);
                if (got < 0) return false;
                if (got > 0) {
                    out = body;
                    return true;
                }
            }
            char tmp[4096];
            ssize_t n = read(fds_[0], tmp, sizeof tmp);
            if (n <= 0) return false;
            buf_.append(tmp, size_t(n));
        }
    }
    void serve()
    {
        for (auto &reply : replies_) {
            std::string req;
            if (!read_request(req)) return;
            requests_.push_back(req);
            if (write(fds_[0], reply.data(), reply.size()) != ssize_t(reply.size())) return;
        }
    }

    std::vector<std::string> replies_;
    bool pmi2_;
    int fds_[2];
    std::string fd_text_, buf_;
    std::vector<std::string> requests_;
    std::thread thread_;
};

// A key-value space in memory with a chosen value limit, to exercise the blob helpers.
class memory_kvs final : public bootstrap {
  public:
    explicit memory_kvs(size_t max_value) : max_value_(max_value) {}
    const char *name() const override { return "memory"; }
    status put(const std::string &key, const std::string &value) override
    {
        if (value.size() > max_value_) return fail(PGDDS_ERR_BOOTSTRAP, "value of %zu bytes", value.size());
        kvs[key] = value;
        return PGDDS_OK;
    }
    status fence() override { return PGDDS_OK; }
    status get(int, const std::string &key, std::string &value) override
    {
        auto it = kvs.find(key);
        if (it == kvs.end()) return fail(PGDDS_ERR_BOOTSTRAP, "no key %s", key.c_str());
        value = it->second;
        return PGDDS_OK;
    }
    status barrier() override { return PGDDS_OK; }
    [[noreturn]] void abort(int code, const std::string &) override { _exit(code); }
    status finalize() override { return PGDDS_OK; }
    size_t max_value_len() const override { return max_value_; }

    std::map<std::string, std::string> kvs;

  private:
    size_t max_value_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
TEST_CASE("PMI-1 codec parses the lines Hydra sends", "[pmi1]")
{
    pmi1::message m;
    REQUIRE(pmi1::parse("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n", m));
    CHECK(m["cmd"] == "maxes");
    CHECK(m["keylen_max"] == "64");
    CHECK(m["vallen_max"] == "1024");
    REQUIRE(pmi1::parse("cmd=get_result rc=-1 msg=key_nokey_not_found value=unknown\r\n", m));
    CHECK(m["rc"] == "-1");
    CHECK(m["value"] == "unknown");
    REQUIRE(pmi1::parse("cmd=barrier_out", m));
    CHECK(m.size() == 1);
    REQUIRE(pmi1::parse("  cmd=put   key=a value= ", m));
    CHECK(m["key"] == "a");
    CHECK(m["value"].empty());
}

TEST_CASE("PMI-1 codec refuses ill-formed lines", "[pmi1]")
{
    pmi1::message m;
    CHECK_FALSE(pmi1::parse("", m));
    CHECK_FALSE(pmi1::parse("key=a value=b", m));            // no cmd
    CHECK_FALSE(pmi1::parse("cmd=put stray value=b", m));    // a token without '='
    CHECK_FALSE(pmi1::parse("cmd=put =b", m));               // an empty key
    CHECK_FALSE(pmi1::parse("mcmd=spawn\nexecname=x", m));   // the multi-line spawn form
}

TEST_CASE("PMI-1 codec formats cmd first and the rest in key order", "[pmi1]")
{
    CHECK(pmi1::format({{"value", "b"}, {"cmd", "put"}, {"key", "a"}, {"kvsname", "kvs_1"}}) ==
          "cmd=put key=a kvsname=kvs_1 value=b\n");
    pmi1::message back;
    REQUIRE(pmi1::parse(pmi1::format({{"cmd", "get"}, {"key", "k"}}), back));
    CHECK(back == pmi1::message{{"cmd", "get"}, {"key", "k"}});
    CHECK(pmi1::token_ok("abc123_."));
    CHECK_FALSE(pmi1::token_ok("a b"));
    CHECK_FALSE(pmi1::token_ok("a=b"));
    CHECK_FALSE(pmi1::token_ok("a\n"));
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("PMI-2 codec frames commands with a 6-character length", "[pmi2]")
{
    std::string f = pmi2::format({{"cmd", "kvs-get"}, {"jobid", "7"}, {"srcid", "1"}, {"key", "a"}});
    CHECK(f == "34    cmd=kvs-get;jobid=7;key=a;srcid=1;");
    CHECK(pmi2::format({{"cmd", "kvs-fence"}}) == "14    cmd=kvs-fence;");
    // A ';' inside a value is doubled.
    CHECK(pmi2::format({{"cmd", "abort"}, {"msg", "a;b"}}) == "19    cmd=abort;msg=a;;b;");
    // Keys that cannot be written, and messages without a command, give nothing.
    CHECK(pmi2::format({{"cmd", "x"}, {"a=b", "1"}}).empty());
    CHECK(pmi2::format({{"cmd", "x"}, {"", "1"}}).empty());
    CHECK(pmi2::format({{"key", "a"}}).empty());
    CHECK(pmi2::format({{"cmd", "x"}, {"v", std::string(pmi2::max_body_len, 'x')}}).empty());
}

TEST_CASE("PMI-2 codec parses Slurm's and Hydra's replies", "[pmi2]")
{
    pmi2::message m;
    REQUIRE(pmi2::parse("cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=3;size=4;appnum=-1;"
                        "debugged=FALSE;pmiverbose=FALSE;",
                        m));
    CHECK(m["cmd"] == "fullinit-response");
    CHECK(m["rank"] == "3");
    CHECK(m["size"] == "4");
    CHECK(m["appnum"] == "-1");
    REQUIRE(pmi2::parse("cmd=kvs-get-response;found=TRUE;value=v;rc=0;", m));
    CHECK(m["found"] == "TRUE");
    CHECK(m["value"] == "v");
    REQUIRE(pmi2::parse("cmd=kvs-get-response;rc=0;found=FALSE;", m));
    CHECK(m.count("value") == 0);
    REQUIRE(pmi2::parse("cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b=c;", m));
    CHECK(m["value"] == "a;b=c");
    REQUIRE(pmi2::parse("cmd=x;empty=;", m));
    CHECK(m["empty"].empty());
}

TEST_CASE("PMI-2 codec refuses ill-formed bodies", "[pmi2]")
{
    pmi2::message m;
    CHECK_FALSE(pmi2::parse("", m));
    CHECK_FALSE(pmi2::parse("cmd=x;rc=0", m));   // the last pair is not ended by ';'
    CHECK_FALSE(pmi2::parse("rc=0;cmd=x;", m));  // the first pair is not the command
    CHECK_FALSE(pmi2::parse("cmd=x;=1;", m));    // an empty key
    CHECK_FALSE(pmi2::parse("cmd=x;rc;", m));    // a pair without '='
}

TEST_CASE("PMI-2 frames are taken whole off a stream", "[pmi2]")
{
    std::string body;
    std::string buf = slurm_frame("cmd=kvs-put-response;rc=0;") + hydra_frame("cmd=kvs-fence-response;rc=0;");
    REQUIRE(pmi2::take_frame(buf, body) == 1);
    CHECK(body == "cmd=kvs-put-response;rc=0;");
    REQUIRE(pmi2::take_frame(buf, body) == 1);
    CHECK(body == "cmd=kvs-fence-response;rc=0;");
    CHECK(buf.empty());

    std::string partial = slurm_frame("cmd=finalize-response;rc=0;");
    std::string last = partial.substr(partial.size() - 1);
    partial.pop_back();
    CHECK(pmi2::take_frame(partial, body) == 0);
    std::string header_only = "12";
    CHECK(pmi2::take_frame(header_only, body) == 0);
    partial += last;
    CHECK(pmi2::take_frame(partial, body) == 1);

    for (const char *bad : {"abc   x", "      x", "1 2   x", "-3    x"}) {
        std::string b = bad;
        CHECK(pmi2::take_frame(b, body) == -1);
    }
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("blob helpers carry any bytes over values of limited size", "[blob]")
{
    for (size_t limit : {size_t(40), size_t(64), size_t(1023)}) {
        for (size_t len : {size_t(0), size_t(1), size_t(7), size_t(100), size_t(5000)}) {
            memory_kvs kvs(limit);
            std::vector<uint8_t> data(len);
            for (size_t i = 0; i < len; ++i) data[i] = uint8_t(i * 37 + 11);
            REQUIRE(bootstrap_put_blob(kvs, "addr", data.data(), data.size()) == PGDDS_OK);
            for (auto &kv : kvs.kvs) CHECK(kv.second.size() <= limit);
            std::vector<uint8_t> back{1, 2, 3};
            REQUIRE(bootstrap_get_blob(kvs, 0, "addr", back) == PGDDS_OK);
            CHECK(back == data);
        }
    }
}

TEST_CASE("blob helpers refuse corrupt or missing values", "[blob]")
{
    memory_kvs kvs(64);
    const uint8_t data[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    REQUIRE(bootstrap_put_blob(kvs, "k", data, sizeof data) == PGDDS_OK);
    REQUIRE(kvs.kvs.size() == 2);
    std::vector<uint8_t> out{42};

    auto first = kvs.kvs["pgdds.0.k.0"];
    kvs.kvs["pgdds.0.k.0"] = "zz:" + first.substr(first.find(':') + 1);
    CHECK(bootstrap_get_blob(kvs, 0, "k", out) == PGDDS_ERR_BOOTSTRAP);
    kvs.kvs["pgdds.0.k.0"] = "3:abc";  // an odd number of hex digits
    CHECK(bootstrap_get_blob(kvs, 0, "k", out) == PGDDS_ERR_BOOTSTRAP);
    kvs.kvs["pgdds.0.k.0"] = "4:zz00";  // not hexadecimal
    CHECK(bootstrap_get_blob(kvs, 0, "k", out) == PGDDS_ERR_BOOTSTRAP);
    CHECK(std::string(pgdds_last_error()).find("not hexadecimal") != std::string::npos);
    kvs.kvs["pgdds.0.k.0"] = first;
    kvs.kvs.erase("pgdds.0.k.1");  // the second part is missing
    CHECK(bootstrap_get_blob(kvs, 0, "k", out) == PGDDS_ERR_BOOTSTRAP);
    kvs.kvs["pgdds.0.k.1"] = "";
    CHECK(bootstrap_get_blob(kvs, 0, "k", out) == PGDDS_ERR_BOOTSTRAP);
    CHECK(out == std::vector<uint8_t>{42});  // untouched on failure
    CHECK(bootstrap_get_blob(kvs, 0, "absent", out) == PGDDS_ERR_BOOTSTRAP);

    memory_kvs tiny(26);
    CHECK(bootstrap_put_blob(tiny, "k", data, sizeof data) == PGDDS_ERR_BOOTSTRAP);
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("the client follows the launcher's environment", "[select]")
{
    const char *none = nullptr;
    scoped_env clean{{"PMIX_RANK", none}, {"PMIX_NAMESPACE", none}, {"PMI_FD", none}, {"PMI_PORT", none},
                     {"PMI_JOBID", none}, {"PMI2_SUN_PATH", none}};
    CHECK(bootstrap_detect() == "singleton");
    {
        scoped_env hydra{{"PMI_FD", "6"}, {"PMI_RANK", "0"}, {"PMI_SIZE", "2"}};
        CHECK(bootstrap_detect() == "pmi1");
        scoped_env slurm{{"PMI_JOBID", "1234.0"}};
        CHECK(bootstrap_detect() == "pmi2");
    }
    {
        scoped_env port{{"PMI_PORT", "host:1234"}};
        CHECK(bootstrap_detect() == "pmi1");
    }
    {
        scoped_env ompi{{"PMIX_RANK", "0"}, {"PMI_FD", "6"}};
        CHECK(bootstrap_detect() == "pmix");
    }

    std::unique_ptr<bootstrap> b;
    CHECK(bootstrap_open("bogus", b) == PGDDS_ERR_INVALID_ARG);
    CHECK(std::string(pgdds_last_error()).find("bogus") != std::string::npos);
    REQUIRE(bootstrap_open("auto", b) == PGDDS_OK);
    CHECK(std::string(b->name()) == "singleton");
    CHECK(b->rank() == 0);
    CHECK(b->size() == 1);
    {
        scoped_env nofd{{"PMI_FD", "not-a-number"}};
        CHECK(bootstrap_open("pmi2", b) == PGDDS_ERR_BOOTSTRAP);
        CHECK(bootstrap_open("pmi1", b) == PGDDS_ERR_BOOTSTRAP);
    }
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("PMI-2 conversation with a launcher that answers as Slurm does", "[pmi2][client]")
{
    scripted_launcher slurm({"cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n",
                             slurm_frame("cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=2;"
                                         "appnum=-1;debugged=FALSE;pmiverbose=FALSE;"),
                             slurm_frame("cmd=job-getid-response;rc=0;jobid=5678.0;"),
                             slurm_frame("cmd=kvs-put-response;rc=0;"),
                             slurm_frame("cmd=kvs-fence-response;rc=0;"),
                             slurm_frame("cmd=kvs-get-response;rc=0;found=TRUE;value=0123abcd;"),
                             slurm_frame("cmd=kvs-get-response;rc=0;found=FALSE;"),
                             slurm_frame("cmd=kvs-fence-response;rc=0;")},
                            true);
    std::unique_ptr<bootstrap> b;
    {
        scoped_env env{{"PMI_FD", slurm.client_fd()}, {"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"PMI_JOBID", "5678.0"}};
        REQUIRE(bootstrap_open("auto", b) == PGDDS_OK);
    }
    CHECK(std::string(b->name()) == "pmi2");
    CHECK(b->rank() == 1);
    CHECK(b->size() == 2);
    CHECK(b->put("pgdds.1.seg.0", "0123abcd") == PGDDS_OK);
    CHECK(b->fence() == PGDDS_OK);
    std::string v;
    CHECK(b->get(0, "pgdds.0.seg.0", v) == PGDDS_OK);
    CHECK(v == "0123abcd");
    CHECK(b->get(0, "pgdds.0.absent.0", v) == PGDDS_ERR_BOOTSTRAP);
    CHECK(b->barrier() == PGDDS_OK);
    CHECK(b->finalize() == PGDDS_OK);  // sent at exit (see the "at exit" test)
    // Values the launcher cannot carry are refused before they are sent.
    CHECK(b->put("k", "a;b") == PGDDS_ERR_BOOTSTRAP);
    CHECK(b->put("k", std::string(b->max_value_len() + 1, 'a')) == PGDDS_ERR_BOOTSTRAP);
    CHECK(b->put(std::string(b->max_key_len() + 1, 'k'), "v") == PGDDS_ERR_BOOTSTRAP);

    auto reqs = slurm.requests();
    REQUIRE(reqs.size() == 8);
    CHECK(reqs[0] == "cmd=init pmi_version=2 pmi_subversion=0\n");  // Slurm sscanf()s exactly this
    pmi2::message m;
    REQUIRE(pmi2::parse(reqs[1], m));
    CHECK(m == pmi2::message{{"cmd", "fullinit"}, {"pmijobid", "5678.0"}, {"pmirank", "1"}, {"threaded", "FALSE"}});
    CHECK(reqs[2] == "cmd=job-getid;");
    CHECK(reqs[3] == "cmd=kvs-put;key=pgdds.1.seg.0;value=0123abcd;");
    CHECK(reqs[4] == "cmd=kvs-fence;");
    CHECK(reqs[5] == "cmd=kvs-get;jobid=5678.0;key=pgdds.0.seg.0;srcid=0;");
    CHECK(reqs[7] == "cmd=kvs-fence;");
}

TEST_CASE("PMI-2 client reports refusals and broken launchers", "[pmi2][client]")
{
    SECTION("a launcher that serves only PMI-1")
    {
        scripted_launcher old({"cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n"}, true);
        scoped_env env{{"PMI_FD", old.client_fd()}, {"PMI_RANK", "0"}};
        std::unique_ptr<bootstrap> b;
        CHECK(bootstrap_open("pmi2", b) == PGDDS_ERR_BOOTSTRAP);
        CHECK(std::string(pgdds_last_error()).find("PGDDS_PMI=pmi1") != std::string::npos);
    }
    SECTION("a refused fullinit")
    {
        scripted_launcher slurm({"cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n",
                                 slurm_frame("cmd=fullinit-response;rc=3;errmsg=pmijobid missing;")},
                                true);
        scoped_env env{{"PMI_FD", slurm.client_fd()}, {"PMI_RANK", "0"}, {"PMI_JOBID", nullptr}};
        std::unique_ptr<bootstrap> b;
        CHECK(bootstrap_open("pmi2", b) == PGDDS_ERR_BOOTSTRAP);
        CHECK(std::string(pgdds_last_error()).find("pmijobid missing") != std::string::npos);
    }
    SECTION("a launcher that hangs up")
    {
        scripted_launcher gone({}, true);
        scoped_env env{{"PMI_FD", gone.client_fd()}, {"PMI_RANK", "0"}};
        gone.hang_up();
        std::unique_ptr<bootstrap> b;
        CHECK(bootstrap_open("pmi2", b) == PGDDS_ERR_BOOTSTRAP);
    }
    SECTION("a reply that is not a frame")
    {
        scripted_launcher garbled({"cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n", "garbage!"}, true);
        scoped_env env{{"PMI_FD", garbled.client_fd()}, {"PMI_RANK", "0"}};
        std::unique_ptr<bootstrap> b;
        CHECK(bootstrap_open("pmi2", b) == PGDDS_ERR_BOOTSTRAP);
        CHECK(std::string(pgdds_last_error()).find("ill-formed") != std::string::npos);
    }
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("PMI-1 conversation with a launcher that answers as Hydra does", "[pmi1][client]")
{
    scripted_launcher hydra({"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
                             "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n",
                             "cmd=my_kvsname kvsname=kvs_20967_0_574358676_vm\n",
                             "cmd=put_result rc=0 msg=success\n",
                             "cmd=barrier_out\n",
                             "cmd=get_result rc=0 msg=success value=cafe\n",
                             "cmd=get_result rc=-1 msg=key_x_not_found value=unknown\n"},
                            false);
    std::unique_ptr<bootstrap> b;
    {
        scoped_env env{{"PMI_FD", hydra.client_fd()}, {"PMI_RANK", "2"}, {"PMI_SIZE", "3"}, {"PMI_PORT", nullptr}};
        REQUIRE(bootstrap_open("pmi1", b) == PGDDS_OK);
    }
    CHECK(b->rank() == 2);
    CHECK(b->size() == 3);
    // Hydra's limits count a NUL: a value of 1024 bytes would come back as 1023.
    CHECK(b->max_value_len() == 1023);
    CHECK(b->max_key_len() == 63);
    CHECK(b->put("pgdds.2.k.0", std::string(1024, 'a')) == PGDDS_ERR_BOOTSTRAP);
    CHECK(b->put("pgdds.2.k.0", "cafe") == PGDDS_OK);
    CHECK(b->fence() == PGDDS_OK);
    std::string v;
    CHECK(b->get(1, "pgdds.1.k.0", v) == PGDDS_OK);
    CHECK(v == "cafe");
    CHECK(b->get(1, "x", v) == PGDDS_ERR_BOOTSTRAP);
    CHECK(b->finalize() == PGDDS_OK);  // sent at exit (see the "at exit" test)

    auto reqs = hydra.requests();
    REQUIRE(reqs.size() == 7);
    CHECK(reqs[0] == "cmd=init pmi_version=1 pmi_subversion=1\n");  // Slurm sscanf()s exactly this
    CHECK(reqs[1] == "cmd=get_maxes\n");
    CHECK(reqs[2] == "cmd=get_my_kvsname\n");
    CHECK(reqs[3] == "cmd=put key=pgdds.2.k.0 kvsname=kvs_20967_0_574358676_vm value=cafe\n");
    CHECK(reqs[4] == "cmd=barrier_in\n");
    CHECK(reqs[5] == "cmd=get key=pgdds.1.k.0 kvsname=kvs_20967_0_574358676_vm\n");
}

// ---------------------------------------------------------------------------------------------
namespace {

// Runs `client` in a child process whose PMI_FD is one end of a socket, serving `replies` to
// its requests from this process. The child reports when client() has returned; only then
// does it exit, normally. Returns the requests received before that report, and those
// received after it, when the child exited (with its exit status).
struct exit_trace {
    std::vector<std::string> before, after;
    int exit_status = -1;
};

exit_trace trace_exit(bool pmi2, const std::vector<std::string> &replies, bool (*client)())
{
    int sock[2], done[2], go[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sock) == 0);
    REQUIRE(pipe(done) == 0);
    REQUIRE(pipe(go) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(sock[0]);
        setenv("PMI_FD", std::to_string(sock[1]).c_str(), 1);
        setenv("PMI_RANK", "0", 1);
        setenv("PMI_SIZE", "1", 1);
        setenv("PMI_JOBID", "77.0", 1);
        unsetenv("PMI_PORT");
        const bool ok = client();
        // A forked child of the client's process exits without sending anything.
        pid_t grandchild = fork();
        if (grandchild == 0) exit(0);
        waitpid(grandchild, nullptr, 0);
        char c = 'd';
        if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) _exit(3);
        exit(ok ? 0 : 2);
    }
    close(sock[1]);
    exit_trace t;
    std::string buf, body;
    auto next = [&](std::string &req) {
        for (;;) {
            if (!pmi2 || t.before.empty()) {
                size_t nl = buf.find('\n');
                if (nl != std::string::npos) {
                    req = buf.substr(0, nl + 1);
                    buf.erase(0, nl + 1);
                    return true;
                }
            } else if (pmi2::take_frame(buf, body) == 1) {
                req = body;
                return true;
            }
            char tmp[4096];
            ssize_t n = read(sock[0], tmp, sizeof tmp);
            if (n <= 0) return false;
            buf.append(tmp, size_t(n));
        }
    };
    std::string req;
    for (auto &reply : replies) {
        REQUIRE(next(req));
        t.before.push_back(req);
        REQUIRE(write(sock[0], reply.data(), reply.size()) == ssize_t(reply.size()));
    }
    char c;
    REQUIRE(read(done[0], &c, 1) == 1);
    CHECK(buf.empty());  // nothing more came while the client ran
    REQUIRE(write(go[1], "x", 1) == 1);
    while (next(req)) {
        t.after.push_back(req);
        std::string ack = pmi2 ? slurm_frame("cmd=finalize-response;rc=0;") : std::string("cmd=finalize_ack\n");
        if (write(sock[0], ack.data(), ack.size()) != ssize_t(ack.size())) break;
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    t.exit_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    for (int fd : {sock[0], done[0], done[1], go[0], go[1]}) close(fd);
    return t;
}

}  // namespace

TEST_CASE("a PMI finalize on the launcher's PMI_FD is sent when the process exits", "[pmi1][pmi2][client]")
{
    // An MPI library of the same program may still need the connection (MPICH's MPI_Finalize
    // does a PMI barrier), and the launcher closes it on finalize.
    SECTION("PMI-1")
    {
        auto t = trace_exit(false,
                            {"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
                             "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n",
                             "cmd=my_kvsname kvsname=kvs_1\n"},
                            [] {
                                std::unique_ptr<bootstrap> b;
                                return bootstrap_open("pmi1", b) == PGDDS_OK && b->finalize() == PGDDS_OK;
                            });
        CHECK(t.before.size() == 3);
        CHECK(t.after == std::vector<std::string>{"cmd=finalize\n"});
        CHECK(t.exit_status == 0);
    }
    SECTION("PMI-2")
    {
        auto t = trace_exit(true,
                            {"cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n",
                             slurm_frame("cmd=fullinit-response;rc=0;rank=0;size=1;appnum=-1;"),
                             slurm_frame("cmd=job-getid-response;rc=0;jobid=77.0;")},
                            [] {
                                std::unique_ptr<bootstrap> b;
                                return bootstrap_open("pmi2", b) == PGDDS_OK && b->finalize() == PGDDS_OK;
                            });
        CHECK(t.before.size() == 3);
        CHECK(t.after == std::vector<std::string>{"cmd=finalize;"});
        CHECK(t.exit_status == 0);
    }
}
