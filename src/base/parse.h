// Parsers of the values of PGDDS_* variables, shared by the configuration table (core) and the
// transport backends, which read their own variables through their host.
#pragma once

#include <cstddef>

namespace pgdds {

// Each returns false (parse_choice: -1) on ill-formed input.
bool parse_size(const char *text, size_t &out);       // "4096", "64K", "256M", "2G", "1T"
bool parse_count(const char *text, unsigned &out);    // decimal, > 0
bool parse_bool(const char *text, bool &out);         // 1/0, yes/no, on/off, true/false
bool parse_seconds(const char *text, double &out);    // "30", "2.5", ">= 0"
int parse_choice(const char *text, const char *choices);  // index in '|' list, -1 if absent

}  // namespace pgdds
