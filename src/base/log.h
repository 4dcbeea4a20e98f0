// Leveled messages on stderr, prefixed with the rank and the time of day:
// "[pgdds 3 14:02:07.123456] warn: ...". info: what start-up chose; debug: each start-up and
// finalize phase with its time, the variables set; trace: every collective message and
// active-message handler registration (never the one-sided operations' fast paths).
#pragma once

namespace pgdds {

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3, LOG_TRACE = 4 };

extern int log_threshold;  // messages above it are dropped
void log_set_rank(int rank);
void log_message(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define PGDDS_LOG(level, ...)                                                       \
    do {                                                                            \
        if ((level) <= ::pgdds::log_threshold) ::pgdds::log_message((level), __VA_ARGS__); \
    } while (0)

}  // namespace pgdds
