/* Command-line conventions of the installed programs (tools, applications, benchmarks): options
 * are parsed with getopt_long, so `-n4`, `-n 4`, `--np=4` and `--np 4` are one option, and each
 * program answers --help and --version. The programs run on every rank of a job, so getopt's own
 * messages are off (opterr = 0, an optstring starting with ':') and each program prints the
 * message below once. C and C++. */
#ifndef PGDDS_TOOLS_CLI_H
#define PGDDS_TOOLS_CLI_H

#include <getopt.h>
#include <stdio.h>
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

/* The --version line: the program's name and the libpgdds version it was built with. */
static inline void pgdds_cli_version(const char *program, const char *version)
{
    printf("%s (libpgdds) %s\n", program, version);
}

#endif
