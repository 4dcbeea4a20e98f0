// A launcher's key-value space through pgdds's bootstrap clients, without the rest of the
// library: identity, blobs from empty to many chunks (every rank reads every rank's), repeated
// fences, barriers, finalize. Run under each launcher with the client it selects (PGDDS_PMI
// picks another). usage: bootstrap-check EXPECTED_RANKS
#include "../../src/pmi/bootstrap.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace pgdds;

namespace {

int failures = 0;
int my_rank = -1;

void check(bool ok, const std::string &what)
{
    if (ok) return;
    ++failures;
    fprintf(stderr, "FAIL rank %d: %s%s%s\n", my_rank, what.c_str(), pgdds_last_error()[0] ? ": " : "",
            pgdds_last_error());
}

std::vector<uint8_t> pattern(int rank, size_t size, int round)
{
    std::vector<uint8_t> v(size);
    for (size_t i = 0; i < size; ++i) v[i] = uint8_t(rank * 29 + i * 7 + (i >> 9) + round * 101);
    return v;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bootstrap-check EXPECTED_RANKS\n");
        return 2;
    }
    const char *which = getenv("PGDDS_PMI");
    std::unique_ptr<bootstrap> b;
    if (bootstrap_open(which ? which : "auto", b) != PGDDS_OK) {
        fprintf(stderr, "FAIL: bootstrap_open: %s\n", pgdds_last_error());
        return 1;
    }
    my_rank = b->rank();
    const int n = b->size();
    check(n == atoi(argv[1]), "the launcher says " + std::to_string(n) + " ranks, expected " + argv[1]);
    check(my_rank >= 0 && my_rank < n, "rank " + std::to_string(my_rank) + " is out of range");

    const size_t sizes[] = {0, 1, 100, 600, 5000, 70000};
    for (int round = 0; round < 2; ++round) {
        const std::string tag = "r" + std::to_string(round) + ".";
        check(bootstrap_put_blob(*b, tag + "rank", &my_rank, sizeof my_rank) == PGDDS_OK, "put rank");
        for (size_t size : sizes) {
            auto data = pattern(my_rank, size, round);
            check(bootstrap_put_blob(*b, tag + std::to_string(size), data.data(), data.size()) == PGDDS_OK,
                  "put a blob of " + std::to_string(size) + " bytes");
        }
        check(b->fence() == PGDDS_OK, "fence");
        for (int r = 0; r < n; ++r) {
            std::vector<uint8_t> got;
            check(bootstrap_get_blob(*b, r, tag + "rank", got) == PGDDS_OK && got.size() == sizeof(int) &&
                      *reinterpret_cast<int *>(got.data()) == r,
                  "rank " + std::to_string(r) + "'s identity");
            for (size_t size : sizes) {
                check(bootstrap_get_blob(*b, r, tag + std::to_string(size), got) == PGDDS_OK &&
                          got == pattern(r, size, round),
                      "rank " + std::to_string(r) + "'s blob of " + std::to_string(size) + " bytes, round " +
                          std::to_string(round));
            }
        }
        check(b->barrier() == PGDDS_OK, "barrier");
    }

    // Every rank learns whether every rank passed.
    const std::string verdict = failures ? "fail" : "pass";
    check(bootstrap_put_blob(*b, "verdict", verdict.data(), verdict.size()) == PGDDS_OK, "put the verdict");
    check(b->fence() == PGDDS_OK, "fence");
    int failed_ranks = 0;
    for (int r = 0; r < n; ++r) {
        std::vector<uint8_t> got;
        if (bootstrap_get_blob(*b, r, "verdict", got) != PGDDS_OK || std::string(got.begin(), got.end()) != "pass")
            ++failed_ranks;
    }
    const std::string client = b->name();
    check(b->finalize() == PGDDS_OK, "finalize");
    if (my_rank == 0)
        printf("bootstrap-check: %s on %d ranks with the %s client (%d rank%s failed)\n",
               failed_ranks ? "FAILED" : "passed", n, client.c_str(), failed_ranks, failed_ranks == 1 ? "" : "s");
    return failed_ranks || failures ? 1 : 0;
}
