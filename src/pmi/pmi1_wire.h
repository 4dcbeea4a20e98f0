// The simple PMI-1 wire protocol (MPICH Hydra, pgdds-run): newline-terminated commands of
// space-separated key=value tokens, e.g. "cmd=put kvsname=kvs_1 key=a value=b\n".
#pragma once

#include <map>
#include <string>

namespace pgdds::pmi1 {

using message = std::map<std::string, std::string>;

// Parses one line (without or with its trailing newline). Returns false if a token has no
// '=' or the line has no "cmd" (or "mcmd", the multi-line spawn form, which is refused).
bool parse(const std::string &line, message &out);
// Formats "cmd=<cmd> k=v ...\n" with cmd first and the rest in key order.
std::string format(const message &m);
// A value or key is valid on the wire if it is non-empty-free of spaces, '=' and newlines.
bool token_ok(const std::string &s);

}  // namespace pgdds::pmi1
