#include "pmi2_wire.h"

#include <cstdio>

namespace pgdds::pmi2 {

namespace {
void append_escaped(std::string &out, const std::string &value)
{
    for (char c : value) {
        out += c;
        if (c == ';') out += ';';
    }
}

bool key_ok(const std::string &k) { return !k.empty() && k.find_first_of("=;") == std::string::npos; }
}  // namespace

std::string format(const message &m)
{
    auto cmd = m.find("cmd");
    if (cmd == m.end()) return "";
    std::string body = "cmd=";
    append_escaped(body, cmd->second);
    body += ';';
    for (auto &kv : m) {
        if (kv.first == "cmd") continue;
        if (!key_ok(kv.first)) return "";
        body += kv.first + "=";
        append_escaped(body, kv.second);
        body += ';';
    }
    if (body.size() > max_body_len) return "";
    char header[header_len + 1];
    snprintf(header, sizeof header, "%-6zu", body.size());
    return std::string(header, header_len) + body;
}

bool parse(const std::string &body, message &out)
{
    out.clear();
    size_t i = 0, n = body.size();
    bool first = true;
    while (i < n) {
        size_t eq = body.find('=', i);
        if (eq == std::string::npos) return false;
        std::string key = body.substr(i, eq - i);
        if (!key_ok(key)) return false;
        std::string value;
        size_t j = eq + 1;
        for (;; ++j) {
            if (j >= n) return false;  // every pair ends with ';'
            if (body[j] != ';') {
                value += body[j];
            } else if (j + 1 < n && body[j + 1] == ';') {
                value += ';';
                ++j;
            } else {
                break;
            }
        }
        if (first && key != "cmd") return false;
        first = false;
        out[key] = value;
        i = j + 1;
    }
    return !first;
}

int take_frame(std::string &buffer, std::string &body)
{
    if (buffer.size() < header_len) return 0;
    size_t len = 0;
    bool digits = false, done = false;
    for (size_t k = 0; k < header_len; ++k) {
        char c = buffer[k];
        if (c == ' ' || c == '\0') {
            if (digits) done = true;  // trailing padding ("%-6d")
            continue;
        }
        if (c < '0' || c > '9' || done) return -1;
        digits = true;
        len = len * 10 + size_t(c - '0');
    }
    if (!digits) return -1;
    if (buffer.size() < header_len + len) return 0;
    body = buffer.substr(header_len, len);
    buffer.erase(0, header_len + len);
    return 1;
}

}  // namespace pgdds::pmi2
