// Bootstrap: how ranks find each other before the fabric is up. A tiny key-value interface
// (one implementation per PMI flavour, plus a singleton for a program started without a
// launcher), in the manner of Sandia OpenSHMEM's runtime layer.
#pragma once

#include "../base/common.h"

#include <memory>
#include <string>
#include <vector>

namespace pgdds {

class bootstrap {
  public:
    virtual ~bootstrap() = default;
    virtual const char *name() const = 0;
    int rank() const { return rank_; }
    int size() const { return size_; }

    // Publishes key=value (printable, at most max_value_len() bytes) for every rank to read
    // after the next fence. Keys are global: callers make them unique per rank.
    virtual status put(const std::string &key, const std::string &value) = 0;
    // Makes every rank's puts visible to every rank; collective.
    virtual status fence() = 0;
    // Reads a key put by `owner` before the last fence.
    virtual status get(int owner, const std::string &key, std::string &value) = 0;
    virtual status barrier() = 0;
    // Ends the whole job; does not return.
    [[noreturn]] virtual void abort(int code, const std::string &message) = 0;
    virtual status finalize() = 0;
    // Whether the launcher is known to be gone (its connection closed); cheap, never blocks,
    // consumes nothing. Waits check it with peer liveness.
    virtual bool launcher_gone() const { return false; }
    // The rank the launcher reported dead (PMIx failure events), or -1; cheap, never blocks.
    virtual int reported_failure() const { return -1; }
    virtual size_t max_key_len() const { return 64; }
    virtual size_t max_value_len() const = 0;

  protected:
    int rank_ = 0, size_ = 1;
};

// Opens the client named by `which` (PGDDS_PMI: auto, pmix, pmi2, pmi1, singleton). auto reads
// the launcher's environment: PMIx (PMIX_RANK, when built with PMIx), PMI-2 (PMI_FD with
// PMI_JOBID, as Slurm's mpi/pmi2 sets them), simple PMI-1 (PMI_FD or PMI_PORT), else a
// singleton job of one rank.
status bootstrap_open(const std::string &which, std::unique_ptr<bootstrap> &out);
// The client auto would pick from the environment: "pmix", "pmi2", "pmi1" or "singleton".
std::string bootstrap_detect();

std::unique_ptr<bootstrap> bootstrap_singleton();
status bootstrap_pmi1(std::unique_ptr<bootstrap> &out);
status bootstrap_pmi2(std::unique_ptr<bootstrap> &out);
status bootstrap_pmix(std::unique_ptr<bootstrap> &out);
// The PMIx library's version, or "no" when this build has no PMIx client.
std::string bootstrap_pmix_version();

// Binary values of any length: hex-encoded and split over as many keys as the client's value
// limit needs. Keys are made unique by the owner rank.
status bootstrap_put_blob(bootstrap &b, const std::string &key, const void *data, size_t len);
status bootstrap_get_blob(bootstrap &b, int owner, const std::string &key, std::vector<uint8_t> &out);

}  // namespace pgdds
