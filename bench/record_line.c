/* bench-record: prints one common benchmark record (record.h) from its arguments, for the
 * benchmark drivers written in shell (bench/micro/ucx_perftest.sh), so that every record of
 * bench/ is written by record.h.
 *
 *   bench-record BENCH TRANSPORT RANKS THREADS SIZE METRIC VALUE UNIT */
#include "record.h"

#include <stdlib.h>

static int number(const char *text, const char *what, double *out)
{
    char *end = NULL;
    *out = strtod(text, &end);
    if (!*text || *end) {
        fprintf(stderr, "bench-record: %s '%s' is not a number\n", what, text);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 9) {
        fprintf(stderr, "usage: bench-record BENCH TRANSPORT RANKS THREADS SIZE METRIC VALUE UNIT\n");
        return 2;
    }
    double ranks, threads, size, value;
    if (!number(argv[3], "RANKS", &ranks) || !number(argv[4], "THREADS", &threads) ||
        !number(argv[5], "SIZE", &size) || !number(argv[7], "VALUE", &value))
        return 2;
    bench_record_common(argv[1], argv[2], (int)ranks, (int)threads, (unsigned long long)size, argv[6], value, argv[8]);
    return 0;
}
