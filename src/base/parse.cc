#include "parse.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace pgdds {

bool parse_size(const char *text, size_t &out)
{
    if (!text || !isdigit((unsigned char)*text)) return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno) return false;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: return false;
    }
    if (*end) {
        ++end;
        if (toupper((unsigned char)*end) == 'B') ++end;
        else if (toupper((unsigned char)*end) == 'I' && toupper((unsigned char)end[1]) == 'B') end += 2;
        if (*end) return false;
    }
    if (shift && v > (~0ull >> shift)) return false;
    out = size_t(v << shift);
    return true;
}

bool parse_count(const char *text, unsigned &out)
{
    if (!text || !isdigit((unsigned char)*text)) return false;
    errno = 0;
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v == 0 || v > 4096) return false;
    out = unsigned(v);
    return true;
}

bool parse_bool(const char *text, bool &out)
{
    if (!text) return false;
    static const char *yes[] = {"1", "yes", "on", "true", "y"};
    static const char *no[] = {"0", "no", "off", "false", "n"};
    for (const char *s : yes)
        if (strcasecmp(text, s) == 0) return out = true, true;
    for (const char *s : no)
        if (strcasecmp(text, s) == 0) return out = false, true;
    return false;
}

bool parse_seconds(const char *text, double &out)
{
    if (!text || !*text) return false;
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (errno || *end || !(v >= 0) || std::isinf(v)) return false;
    out = v;
    return true;
}

int parse_choice(const char *text, const char *choices)
{
    if (!text || !choices) return -1;
    size_t len = strlen(text);
    int index = 0;
    for (const char *p = choices;; ++index) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? size_t(bar - p) : strlen(p);
        if (n == len && strncasecmp(p, text, n) == 0) return index;
        if (!bar) return -1;
        p = bar + 1;
    }
}

}  // namespace pgdds
