/* Command-line conventions of the installed programs (tools, applications, benchmarks): options
 * are parsed with getopt_long, so `-n4`, `-n 4`, `--np=4` and `--np 4` are one option, and each
 * program answers --help and --version. The programs run on every rank of a job, so getopt's own
 * messages are off (opterr = 0, an optstring starting with ':') and each program prints the
 * message below once. C and C++. */
#ifndef PGDDS_TOOLS_CLI_H
#define PGDDS_TOOLS_CLI_H

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* After getopt_long returned '?' (unknown option) or ':' (missing value): what was wrong, in buf. */
static inline const char *pgdds_cli_error(int c, char **argv, char *buf, size_t size)
{
    /* A missing value is always the last argument, so argv[optind - 1] names the option; an
     * unknown short option may sit inside a cluster (-vx), where only optopt names it. */
    const char *arg = argv[optind - 1];
    if (c == ':' && strncmp(arg, "--", 2) == 0) snprintf(buf, size, "option %s needs a value", arg);
    else if (c == ':') snprintf(buf, size, "option -%c needs a value", optopt);
    else if (optopt) snprintf(buf, size, "unknown option -%c", optopt);
    else snprintf(buf, size, "unknown option %s", arg);
    return buf;
}

/* Option values: the whole of text must be the number, within [lo, hi]. 1 when it is, with the number
 * in *out; else 0 and *out untouched. Each program words its own message for a refused value. */

/* A whole number: decimal, 0x hexadecimal or 0 octal (strtoull's base 0); no sign. */
static inline int pgdds_cli_whole(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(text, &end, 0);
    if (end == text || *end || text[0] == '-' || errno == ERANGE || x < lo || x > hi) return 0;
    *out = x;
    return 1;
}

/* A real number, as strtod reads it. */
static inline int pgdds_cli_number(const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (end == text || *end || errno == ERANGE || !(x >= lo && x <= hi)) return 0;
    *out = x;
    return 1;
}

/* The --version line: the program's name and the libpgdds version it was built with. */
static inline void pgdds_cli_version(const char *program, const char *version)
{
    printf("%s (libpgdds) %s\n", program, version);
}

#endif
