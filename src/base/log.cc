#include "log.h"

#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace pgdds {

int log_threshold = LOG_WARN;
static int log_rank = -1;

void log_set_rank(int rank) { log_rank = rank; }

void log_message(int level, const char *fmt, ...)
{
    static const char *names[] = {"error", "warn", "info", "debug", "trace"};
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    // Wall-clock time of day to the microsecond: lines of different ranks (and of other
    // programs' logs) can be put in order.
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    tm local{};
    localtime_r(&now.tv_sec, &local);
    char stamp[32];
    snprintf(stamp, sizeof stamp, "%02d:%02d:%02d.%06ld", local.tm_hour, local.tm_min, local.tm_sec, now.tv_nsec / 1000);
    if (log_rank >= 0)
        fprintf(stderr, "[pgdds %d %s] %s: %s\n", log_rank, stamp, names[level], line);
    else
        fprintf(stderr, "[pgdds %s] %s: %s\n", stamp, names[level], line);
}

}  // namespace pgdds
