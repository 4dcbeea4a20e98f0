#include "wire_io.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace pgdds::wire {

bool write_all(int fd, const std::string &data)
{
    size_t done = 0;
    while (done < data.size()) {
        // A launcher that has gone away is an error to report, not a SIGPIPE that kills the rank.
        ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) n = write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += size_t(n);
    }
    return true;
}

namespace {
double timeout_seconds = 0;
}

void set_reply_timeout(double seconds) { timeout_seconds = seconds; }
double reply_timeout() { return timeout_seconds; }

long read_some(int fd, std::string &buffer)
{
    char tmp[4096];
    for (;;) {
        if (timeout_seconds > 0) {
            pollfd p{fd, POLLIN, 0};
            int ready = poll(&p, 1, int(std::min(timeout_seconds * 1e3, 2e9)));
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0) errno = ETIMEDOUT;
            if (ready <= 0) return -1;
        }
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n < 0 && errno == EINTR) continue;
        if (n > 0) buffer.append(tmp, size_t(n));
        return long(n);
    }
}

namespace {
struct exit_message {
    int fd = -1;
    pid_t pid = 0;
    std::string request;
    bool (*reply_complete)(const std::string &) = nullptr;
};
exit_message at_exit;

void send_exit_message()
{
    if (at_exit.fd < 0 || at_exit.pid != getpid()) return;
    std::string reply;
    if (!write_all(at_exit.fd, at_exit.request)) return;
    while (!at_exit.reply_complete(reply) && read_some(at_exit.fd, reply) > 0) {
    }
}
}  // namespace

void send_at_exit(int fd, const std::string &request, bool (*reply_complete)(const std::string &))
{
    static bool registered = false;
    at_exit = exit_message{fd, getpid(), request, reply_complete};
    if (!registered) registered = atexit(send_exit_message) == 0;
}

int fd_from_env(const char *name)
{
    const char *text = getenv(name);
    if (!text || !*text) return -1;
    char *end;
    long v = strtol(text, &end, 10);
    if (*end || v < 0 || v > 1 << 24) return -1;
    return int(v);
}

}  // namespace pgdds::wire
