// Blocking socket I/O shared by the PMI clients.
#pragma once

#include <string>

namespace pgdds::wire {

// Writes all of data, retrying after EINTR and short writes. False on error (errno is set).
bool write_all(int fd, const std::string &data);
// Appends what one read() returns to buffer. Returns the byte count, 0 at end of file, -1 on
// error (errno is set; ETIMEDOUT when nothing came within the reply timeout); EINTR is retried.
long read_some(int fd, std::string &buffer);
// How long read_some waits for the launcher (PGDDS_TIMEOUT; 0, the default: for ever), so that
// a launcher that never answers, or a fence that a rank never joins, cannot block pgdds_init.
void set_reply_timeout(double seconds);
double reply_timeout();
// Parses a file descriptor number from the environment variable `name`; -1 if unset or invalid.
int fd_from_env(const char *name);

// Sends `request` on fd when this process exits normally, then reads until reply_complete()
// says the reply is whole or the launcher closes; errors are ignored. For the PMI finalize on a
// PMI_FD inherited from the launcher: an MPI library in the same program (MPICH, Intel MPI)
// shares that connection and needs it until MPI_Finalize, and the launcher closes it once a
// finalize arrives. A later call replaces the request; forked children do not send it.
void send_at_exit(int fd, const std::string &request, bool (*reply_complete)(const std::string &));

}  // namespace pgdds::wire
