// Status codes, their names, and the thread-local last-error message.
#include "common.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <new>

namespace pgdds {
namespace {
constexpr size_t message_bytes = 512;
// On the heap, allocated at a thread's first failure: the library's thread-locals must stay a
// few words (meson.build says why).
thread_local std::unique_ptr<char[]> last_error;

// The calling thread's message buffer, or nullptr when even that cannot be allocated.
char *message_buffer()
{
    if (!last_error) last_error.reset(new (std::nothrow) char[message_bytes]());
    return last_error.get();
}
}  // namespace

status fail(status st, const char *fmt, ...)
{
    char *m = message_buffer();
    if (!m) return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, message_bytes, fmt, ap);
    va_end(ap);
    return st;
}

status fail_prefix(status st, const char *who)
{
    char *m = message_buffer();
    if (!m) return st;
    // Truncating is intended: the message stays one bounded line.
    char tmp[message_bytes];
    size_t n = strnlen(who, 128);
    memcpy(tmp, who, n);
    memcpy(tmp + n, ": ", 2);
    size_t rest = strnlen(m, sizeof tmp - n - 3);
    memcpy(tmp + n + 2, m, rest);
    tmp[n + 2 + rest] = '\0';
    memcpy(m, tmp, sizeof tmp);
    return st;
}

void clear_error()
{
    if (char *m = last_error.get()) m[0] = '\0';
}

double now_seconds()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

}  // namespace pgdds

extern "C" {

PGDDS_API const char *pgdds_strerror(pgdds_status_t status)
{
    switch (status) {
    case PGDDS_OK: return "success";
    case PGDDS_ERR_INVALID_ARG: return "invalid argument";
    case PGDDS_ERR_NO_MEMORY: return "out of memory";
    case PGDDS_ERR_OUT_OF_BOUNDS: return "out of bounds";
    case PGDDS_ERR_NOT_FOUND: return "not found";
    case PGDDS_ERR_FULL: return "container full";
    case PGDDS_ERR_EMPTY: return "container empty";
    case PGDDS_ERR_EXISTS: return "already exists";
    case PGDDS_ERR_UNSUPPORTED: return "unsupported";
    case PGDDS_ERR_TRANSPORT: return "transport error";
    case PGDDS_ERR_BOOTSTRAP: return "bootstrap (launcher/PMI) failure";
    case PGDDS_ERR_TIMEOUT: return "timed out";
    case PGDDS_ERR_PEER_FAILED: return "peer failed";
    case PGDDS_ERR_STATE: return "invalid state";
    case PGDDS_ERR_AGAIN: return "resource temporarily unavailable";
    case PGDDS_ERR_STARTUP: return "start-up fault (ranks disagree, or the fabric failed)";
    default: return "unknown status";
    }
}

PGDDS_API const char *pgdds_last_error(void)
{
    const char *m = pgdds::last_error.get();
    return m ? m : "";
}

}  // extern "C"
