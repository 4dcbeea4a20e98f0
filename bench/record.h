/* One benchmark record: the JSON object, one line, that every benchmark prints with --json and
 * bench/run collects (bench/run's docstring; the .jsonl files of bench/results). The common
 * record is
 *     {"bench":…,"transport":…,"ranks":…,"threads":…,"size":…,"metric":…,"value":…,"unit":…}
 * in that order (`bench_record_common`); a benchmark that says more builds its record field by
 * field:
 *
 *     struct bench_record r;
 *     bench_record_begin(&r, "keytable");                 {"bench":"keytable"
 *     bench_record_string(&r, "transport", name);         ,"transport":"shm"
 *     bench_record_int(&r, "ranks", 2);                   ,"ranks":2
 *     ...
 *     bench_record_measure(&r, "get_latency", us, "us");  ,"metric":…,"value":…,"unit":…
 *     bench_record_print(&r);                             }\n, as one write
 *
 * Numbers: integers as they are, "value" and bench_record_real as %.6g (whole numbers of 10^6
 * and more in full), bench_record_fixed with
 * the decimals given. Strings are escaped for JSON (names need none). The record is built in a
 * buffer and written with one fputs and a flush, so lines of ranks that share the output do not
 * interleave inside a record. C and C++ (header only, no library): the pgdds benchmarks, and the
 * peers built with oshcc or mpicc. */
#ifndef PGDDS_BENCH_RECORD_H
#define PGDDS_BENCH_RECORD_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct bench_record {
    char text[1024];
    size_t len;   /* characters in text; past the end where a record would not fit */
    int fields;
};

/* Appends printf-style text to the record (dropped past the buffer; bench_record_print says so). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void bench_record_append(struct bench_record *r, const char *fmt, ...)
{
    if (r->len >= sizeof r->text) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->text + r->len, sizeof r->text - r->len, fmt, ap);
    va_end(ap);
    r->len += n < 0 ? sizeof r->text : (size_t)n;
}

static inline void bench_record_key(struct bench_record *r, const char *key)
{
    bench_record_append(r, "%s\"%s\":", r->fields++ ? "," : "", key);
}

/* An empty record: `{`. */
static inline void bench_record_open(struct bench_record *r)
{
    r->len = 0;
    r->fields = 0;
    bench_record_append(r, "{");
}

static inline void bench_record_string(struct bench_record *r, const char *key, const char *value)
{
    bench_record_key(r, key);
    bench_record_append(r, "\"");
    for (const char *c = value; *c; ++c) {
        if (*c == '"' || *c == '\\') bench_record_append(r, "\\%c", *c);
        else if ((unsigned char)*c < 0x20) bench_record_append(r, "\\u%04x", (unsigned)(unsigned char)*c);
        else bench_record_append(r, "%c", *c);
    }
    bench_record_append(r, "\"");
}

static inline void bench_record_int(struct bench_record *r, const char *key, long long value)
{
    bench_record_key(r, key);
    bench_record_append(r, "%lld", value);
}

static inline void bench_record_uint(struct bench_record *r, const char *key, unsigned long long value)
{
    bench_record_key(r, key);
    bench_record_append(r, "%llu", value);
}

/* A measured number, %.6g (as "value"); a whole number beyond six digits (a count) in full,
 * which %.6g would round. */
static inline void bench_record_real(struct bench_record *r, const char *key, double value)
{
    bench_record_key(r, key);
    if (value >= 1e6 && value < 9007199254740992.0 && value == (double)(long long)value)
        bench_record_append(r, "%lld", (long long)value);
    else
        bench_record_append(r, "%.6g", value);
}

/* A number with `decimals` digits after the point. */
static inline void bench_record_fixed(struct bench_record *r, const char *key, double value, int decimals)
{
    bench_record_key(r, key);
    bench_record_append(r, "%.*f", decimals, value);
}

/* `{"bench":"<bench>"`: the first field of every benchmark record. */
static inline void bench_record_begin(struct bench_record *r, const char *bench)
{
    bench_record_open(r);
    bench_record_string(r, "bench", bench);
}

/* The measurement: "metric", "value" (%.6g) and "unit". */
static inline void bench_record_measure(struct bench_record *r, const char *metric, double value, const char *unit)
{
    bench_record_string(r, "metric", metric);
    bench_record_real(r, "value", value);
    bench_record_string(r, "unit", unit);
}

/* Closes the record and writes it to stdout as one line, flushed. A record too long for the
 * buffer is not written (a truncated line would not parse): a message to stderr says so. */
static inline void bench_record_print(struct bench_record *r)
{
    bench_record_append(r, "}\n");
    if (r->len >= sizeof r->text) {
        fprintf(stderr, "bench_record: a record of over %zu characters, not written: %.60s...\n",
                sizeof r->text - 1, r->text);
        return;
    }
    fputs(r->text, stdout);
    fflush(stdout);
}

/* The common record, written in one call. */
static inline void bench_record_common(const char *bench, const char *transport, int ranks, int threads,
                                       unsigned long long size, const char *metric, double value, const char *unit)
{
    struct bench_record r;
    bench_record_begin(&r, bench);
    bench_record_string(&r, "transport", transport);
    bench_record_int(&r, "ranks", ranks);
    bench_record_int(&r, "threads", threads);
    bench_record_uint(&r, "size", size);
    bench_record_measure(&r, metric, value, unit);
    bench_record_print(&r);
}

#endif
