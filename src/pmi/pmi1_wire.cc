#include "pmi1_wire.h"

namespace pgdds::pmi1 {

bool parse(const std::string &line, message &out)
{
    out.clear();
    size_t i = 0, n = line.size();
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) --n;
    while (i < n) {
        while (i < n && line[i] == ' ') ++i;
        if (i >= n) break;
        size_t end = line.find(' ', i);
        if (end == std::string::npos || end > n) end = n;
        size_t eq = line.find('=', i);
        if (eq == std::string::npos || eq >= end || eq == i) return false;
        out[line.substr(i, eq - i)] = line.substr(eq + 1, end - eq - 1);
        i = end;
    }
    return out.count("cmd") == 1;
}

std::string format(const message &m)
{
    std::string s;
    auto cmd = m.find("cmd");
    if (cmd != m.end()) s = "cmd=" + cmd->second;
    for (auto &kv : m) {
        if (kv.first == "cmd") continue;
        if (!s.empty()) s += ' ';
        s += kv.first + "=" + kv.second;
    }
    return s + "\n";
}

bool token_ok(const std::string &s)
{
    return s.find_first_of(" =\n\r") == std::string::npos;
}

}  // namespace pgdds::pmi1
