// The PMI-2 wire protocol (Slurm's mpi/pmi2 plugin, MPICH Hydra): after a PMI-1 style
// "cmd=init pmi_version=2 pmi_subversion=0\n" handshake, every command in either direction is a
// 6-character decimal length (space padded) followed by that many bytes of "key=value;" pairs,
// the first being the command: "    38cmd=kvs-get;jobid=7;srcid=1;key=a;". A ';' inside a value
// is written ";;" (MPICH reads it back; Slurm does not, so values that go to the launcher
// should not contain ';').
#pragma once

#include <map>
#include <string>

namespace pgdds::pmi2 {

using message = std::map<std::string, std::string>;

constexpr size_t header_len = 6;
constexpr size_t max_body_len = 999999;  // the most six digits can announce

// Frames m: the length header, then "cmd=<cmd>;" and the other pairs in key order, each ended by
// ';'. Returns "" if the body would not fit the header or a key is empty or holds '=' or ';'.
std::string format(const message &m);
// Parses a body (the bytes after the header). False if a pair has no '=' or an empty key, the
// body does not end with ';', or the first pair is not "cmd".
bool parse(const std::string &body, message &out);
// Takes one complete frame off the front of `buffer` into `body`. Returns 1 when it did, 0 when
// more bytes are needed, -1 when the header is not a length.
int take_frame(std::string &buffer, std::string &body);

}  // namespace pgdds::pmi2
