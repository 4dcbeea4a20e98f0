// pgdds-kmer-serial: the serial reference of pgdds-kmer, without the library. Every k-mer goes
// into a std::unordered_map; the contigs follow the same definition (unitigs of the de Bruijn
// graph of solid k-mers, see kmer.cc) computed the plain way: from each k-mer not yet used, walk
// right and left while the extension is unique. The tests compare the two programs exactly.
//
//   pgdds-kmer-serial [-k 31] [--min-count 2] [--contigs out.fa] [--histo FILE] [--json] READS
#include "kmer.hpp"
#include "pgdds_config.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace {

using namespace kmer;

class graph {
  public:
    graph(const std::unordered_map<uint64_t, uint32_t> &counts, int k, uint32_t min_count)
        : counts_(counts), k_(k), min_count_(min_count)
    {
    }

    bool solid(uint64_t oriented) const
    {
        auto it = counts_.find(canonical(oriented, k_));
        return it != counts_.end() && it->second >= min_count_;
    }

    // The k-mer after s on a unitig, if any: s has one successor t, t has one predecessor, they
    // are different canonical k-mers and neither is its own reverse complement.
    std::optional<uint64_t> next(uint64_t s) const
    {
        std::optional<uint64_t> t;
        for (unsigned b = 0; b < 4; ++b)
            if (solid(successor(s, b, k_))) {
                if (t) return std::nullopt;
                t = successor(s, b, k_);
            }
        if (!t || canonical(*t, k_) == canonical(s, k_) || palindrome(s) || palindrome(*t)) return std::nullopt;
        unsigned in = 0;
        for (unsigned b = 0; b < 4; ++b) in += solid(predecessor(*t, b, k_));
        return in == 1 ? t : std::nullopt;
    }

    // The contigs, each in canonical form.
    std::vector<std::string> unitigs() const
    {
        std::vector<uint64_t> nodes;
        for (const auto &[x, count] : counts_)
            if (count >= min_count_) nodes.push_back(x);
        std::sort(nodes.begin(), nodes.end());
        std::unordered_set<uint64_t> used;
        std::vector<std::string> out;
        for (uint64_t x : nodes) {
            if (used.count(x)) continue;
            std::vector<uint64_t> path{x};
            bool cycle = false;
            for (std::optional<uint64_t> t = next(x); t; t = next(*t)) {
                if (canonical(*t, k_) == x) {
                    cycle = true;
                    break;
                }
                path.push_back(*t);
            }
            if (cycle) {
                path = smallest_first(path);
            } else {  // extend to the left: to the right of the reverse complement
                std::vector<uint64_t> left;
                for (std::optional<uint64_t> t = next(reverse_complement(x, k_)); t; t = next(*t))
                    left.push_back(reverse_complement(*t, k_));
                path.insert(path.begin(), left.rbegin(), left.rend());
            }
            std::string seq = to_string(path[0], k_);
            for (size_t i = 1; i < path.size(); ++i) seq.push_back(base_char[path[i] & 3]);
            for (uint64_t s : path) used.insert(canonical(s, k_));
            out.push_back(cycle ? seq : canonical_contig(seq));
        }
        return out;
    }

  private:
    bool palindrome(uint64_t s) const { return reverse_complement(s, k_) == s; }

    // A cycle read forwards from its smallest canonical k-mer (reversing the cycle if that
    // k-mer occurs as its reverse complement).
    std::vector<uint64_t> smallest_first(std::vector<uint64_t> cycle) const
    {
        auto smallest = std::min_element(cycle.begin(), cycle.end(), [&](uint64_t a, uint64_t b) {
            return canonical(a, k_) < canonical(b, k_);
        });
        if (*smallest != canonical(*smallest, k_)) {
            std::reverse(cycle.begin(), cycle.end());
            for (uint64_t &s : cycle) s = reverse_complement(s, k_);
            smallest = std::min_element(cycle.begin(), cycle.end());
        }
        std::rotate(cycle.begin(), smallest, cycle.end());
        return cycle;
    }

    const std::unordered_map<uint64_t, uint32_t> &counts_;
    int k_;
    uint32_t min_count_;
};

}  // namespace

int main(int argc, char **argv)
{
    const double started = now();
    options o;
    std::string bad = parse(argc, argv, o);
    if (bad == "help") {
        std::printf(usage_text(), "pgdds-kmer-serial");
        return 0;
    }
    if (bad == "version") {
        pgdds_cli_version("pgdds-kmer-serial", PGDDS_VERSION_TEXT);
        return 0;
    }
    if (!bad.empty()) {
        std::fprintf(stderr, "pgdds-kmer-serial: %s\n", bad.c_str());
        std::fprintf(stderr, usage_text(), "pgdds-kmer-serial");
        return 2;
    }
    try {
        std::unordered_map<uint64_t, uint32_t> table;
        table.reserve(size_t(estimated_bases(o.reads) / 2));
        counts c;
        progress p("pgdds-kmer-serial", "counting (records)", 0, true, o.progress_seconds);
        for_each_record(
            o.reads, [](uint64_t) { return true; },
            [&](uint64_t i, std::string_view seq) {
                for_each_canonical(seq, o.k, [&](uint64_t x) {
                    ++table[x];
                    ++c.total;
                });
                if (i % 1024 == 0) p.update(i);
            });
        const double counted = now();
        for (const auto &[x, n] : table) {
            ++c.histogram[n];
            c.max_count = std::max<uint64_t>(c.max_count, n);
        }
        c.distinct = table.size();
        c.unique = c.histogram.count(1) ? c.histogram[1] : 0;

        contig_stats g;
        if (o.contigs) {
            std::vector<std::string> contigs = graph(table, o.k, o.min_count).unitigs();
            std::vector<uint64_t> lengths;
            for (const std::string &s : contigs) lengths.push_back(s.size());
            g = summarize_contigs(lengths);
            if (!o.contigs_path.empty()) {
                FILE *f = std::fopen(o.contigs_path.c_str(), "w");
                if (!f) throw std::runtime_error("cannot write " + o.contigs_path + ": " + std::strerror(errno));
                for (size_t i = 0; i < contigs.size(); ++i) write_fasta(f, i + 1, contigs[i]);
                if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + o.contigs_path);
            }
        }
        if (!o.histo_path.empty()) write_histogram(o.histo_path, c);
        const double done = now();
        if (o.json) {
            json_record("kmer_serial", "serial", 1, c.total, "count_time", counted - started, "s");
            json_record("kmer_serial", "serial", 1, c.total, "total_time", done - started, "s");
            json_record("kmer_serial", "serial", 1, c.total, "kmers_per_s", double(c.total) / (counted - started),
                        "k-mers/s");
        } else {
            std::printf("pgdds-kmer-serial: %s, k=%d\n", o.reads.c_str(), o.k);
            print_summary(stdout, c, o.contigs ? &g : nullptr);
            std::printf("time counting   %8.3f s  (%.1f M k-mers/s)\ntime total      %8.3f s\n", counted - started,
                        double(c.total) / (counted - started) / 1e6, done - started);
        }
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "pgdds-kmer-serial: %s\n", e.what());
        return 1;
    }
}
