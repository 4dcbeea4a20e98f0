#include "log.h"

#include <cstdarg>
#include <cstdio>

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
    if (log_rank >= 0)
        fprintf(stderr, "[pgdds %d] %s: %s\n", log_rank, names[level], line);
    else
        fprintf(stderr, "[pgdds] %s: %s\n", names[level], line);
}

}  // namespace pgdds
