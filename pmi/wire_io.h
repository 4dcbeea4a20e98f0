// Blocking socket I/O shared by the PMI clients.
#pragma once

#include <string>

namespace pgdds::wire {

// Writes all of data, retrying after EINTR and short writes. False on error (errno is set).
bool write_all(int fd, const std::string &data);
// Appends what one read() returns to buffer. Returns the byte count, 0 at end of file, -1 on
// error (errno is set); EINTR is retried.
long read_some(int fd, std::string &buffer);
// Parses a file descriptor number from the environment variable `name`; -1 if unset or invalid.
int fd_from_env(const char *name);

}  // namespace pgdds::wire
