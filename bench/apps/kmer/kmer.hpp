// What pgdds-kmer and its serial reference share: the command line, k-mers packed two bits per
// base, reverse complements and canonical forms, reading FASTA and FASTQ (plain or gzip), the
// de Bruijn graph's neighbours, and the summary they both print.
#pragma once

#include "../../../tools/cli.h"
#include "../../record.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kmer {

// ---------------------------------------------------------------------------------------------
// Packing: A=0 C=1 G=2 T=3, first base in the highest bits, so that comparing packed k-mers as
// integers compares them as strings.
// ---------------------------------------------------------------------------------------------
constexpr int max_k = 32;
constexpr char base_char[4] = {'A', 'C', 'G', 'T'};

// The 2-bit code of an ACGT base in either case (jellyfish takes both); 4 for anything else.
inline uint8_t base_code(char c)
{
    switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return 4;
    }
}

inline uint64_t kmer_mask(int k) { return k == 32 ? ~uint64_t(0) : (uint64_t(1) << (2 * k)) - 1; }

inline uint64_t reverse_complement(uint64_t x, int k)
{
    x = ~x;  // complement: 3 - code
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
    x = __builtin_bswap64(x);
    return x >> (64 - 2 * k);
}

inline uint64_t canonical(uint64_t x, int k) { return std::min(x, reverse_complement(x, k)); }

// The k-mer after x with base b appended, and the one before it with b prepended.
inline uint64_t successor(uint64_t x, unsigned b, int k) { return ((x << 2) | b) & kmer_mask(k); }
inline uint64_t predecessor(uint64_t x, unsigned b, int k) { return (uint64_t(b) << (2 * (k - 1))) | (x >> 2); }

// Calls f(canonical k-mer) for every k-mer of seq in which every base is ACGT: a read with an N
// contributes the k-mers on either side of it, as in jellyfish.
template <class F> void for_each_canonical(std::string_view seq, int k, F f)
{
    const uint64_t mask = kmer_mask(k);
    const int top = 2 * (k - 1);
    uint64_t fwd = 0, rev = 0;
    int len = 0;
    for (char ch : seq) {
        uint64_t c = base_code(ch);
        if (c > 3) {
            len = 0;
            continue;
        }
        fwd = ((fwd << 2) | c) & mask;
        rev = (rev >> 2) | ((3 - c) << top);
        if (++len >= k) f(std::min(fwd, rev));
    }
}

inline std::string to_string(uint64_t x, int k)
{
    std::string s(size_t(k), 'A');
    for (int i = k - 1; i >= 0; --i, x >>= 2) s[size_t(i)] = base_char[x & 3];
    return s;
}

inline std::string reverse_complement(const std::string &s)
{
    std::string r(s.rbegin(), s.rend());
    for (char &c : r) c = "TGCA"[base_code(c)];
    return r;
}

// A path's contig in its canonical orientation: the smaller of it and its reverse complement.
inline std::string canonical_contig(const std::string &s) { return std::min(s, reverse_complement(s)); }

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------
// A file that cannot be read as FASTA or FASTQ: the message names the file and the reason.
class input_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Lines of a file, plain or gzip-compressed (zlib reads both), without their \n or \r\n.
class line_reader {
  public:
    explicit line_reader(const std::string &path) : path_(path), buf_(size_t(1) << 20)
    {
        errno = 0;
        gz_ = gzopen(path.c_str(), "rb");
        if (!gz_) throw input_error("cannot open " + path + ": " + (errno ? std::strerror(errno) : "out of memory"));
        gzbuffer(gz_, 1 << 18);
    }
    ~line_reader() { gzclose(gz_); }
    line_reader(const line_reader &) = delete;
    line_reader &operator=(const line_reader &) = delete;

    // The next line; false at the end of the file.
    bool next(std::string_view &line)
    {
        for (;;) {
            const char *start = buf_.data() + begin_;
            if (auto *nl = static_cast<const char *>(std::memchr(start, '\n', end_ - begin_))) {
                size_t len = size_t(nl - start);
                begin_ += len + 1;
                line = std::string_view(start, len > 0 && start[len - 1] == '\r' ? len - 1 : len);
                return true;
            }
            if (eof_) {
                if (begin_ == end_) return false;
                line = std::string_view(start, end_ - begin_);  // a last line without \n
                begin_ = end_;
                return true;
            }
            fill();
        }
    }
    // Uncompressed bytes read so far.
    uint64_t bytes() const { return bytes_; }

  private:
    void fill()
    {
        std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
        if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);  // a line longer than the buffer
        int got = gzread(gz_, buf_.data() + end_, unsigned(buf_.size() - end_));
        int err = Z_OK;
        const char *msg = gzerror(gz_, &err);
        if (got < 0 || (err != Z_OK && err != Z_BUF_ERROR)) {
            // zlib's message starts with the path already
            std::string why = err == Z_ERRNO ? std::strerror(errno) : msg;
            if (why.compare(0, path_.size() + 2, path_ + ": ") == 0) why.erase(0, path_.size() + 2);
            throw input_error(path_ + ": " + why);
        }
        if (got == 0) {
            if (err == Z_BUF_ERROR) throw input_error(path_ + ": the gzip data ends early (truncated file)");
            eof_ = true;
        }
        end_ += size_t(got);
        bytes_ += uint64_t(got);
    }

    std::string path_;
    gzFile gz_ = nullptr;
    std::vector<char> buf_;
    size_t begin_ = 0, end_ = 0;
    uint64_t bytes_ = 0;
    bool eof_ = false;
};

// Calls f(index, sequence) for every record of a FASTA or FASTQ file whose index (0, 1, ...)
// `keep` accepts; multi-line sequences are joined. Records not kept are scanned, not copied.
// Throws input_error for a file that is not FASTA or FASTQ or ends inside a record.
template <class Keep, class F> void for_each_record(const std::string &path, Keep keep, F f)
{
    line_reader in(path);
    std::string_view line;
    std::string seq;
    bool have = in.next(line);
    while (have && line.empty()) have = in.next(line);
    if (!have) return;  // an empty file holds no reads
    uint64_t index = 0;
    if (line[0] == '>') {
        while (have) {  // at a header line
            bool kept = keep(index);
            seq.clear();
            while ((have = in.next(line)) && (line.empty() || line[0] != '>'))
                if (kept) seq.append(line);
            if (kept) f(index, std::string_view(seq));
            ++index;
        }
    } else if (line[0] == '@') {
        while (have) {
            if (line.empty()) {
                have = in.next(line);
                continue;
            }
            if (line[0] != '@')
                throw input_error(path + ": FASTQ record " + std::to_string(index + 1) + " does not start with '@'");
            seq.clear();
            while ((have = in.next(line)) && (line.empty() || line[0] != '+')) seq.append(line);
            if (!have) throw input_error(path + ": FASTQ record " + std::to_string(index + 1) + " has no '+' line");
            size_t quality = 0;
            while (quality < seq.size() && (have = in.next(line))) quality += line.size();
            if (quality != seq.size())
                throw input_error(path + ": FASTQ record " + std::to_string(index + 1) + " has " +
                                  std::to_string(quality) + " quality values for " + std::to_string(seq.size()) +
                                  " bases");
            if (keep(index)) f(index, std::string_view(seq));
            ++index;
            have = in.next(line);
        }
    } else {
        throw input_error(path + ": not FASTA or FASTQ (the first line starts with '" +
                          (std::isprint(static_cast<unsigned char>(line[0])) ? std::string(1, line[0]) : "\\x..") +
                          "', not '>' or '@')");
    }
}

// About how many bases a file holds: its size, or four times that for gzip (reads compress about
// fourfold; the size in a gzip trailer is not trusted, a corrupt file may claim anything). 0 if the
// file cannot be read.
inline uint64_t estimated_bases(const std::string &path)
{
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return 0;
    unsigned char magic[2] = {0, 0};
    bool gzip = std::fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    std::fclose(f);
    return uint64_t(st.st_size) * (gzip ? 4 : 1);
}

// ---------------------------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------------------------
struct options {
    std::string reads;
    int k = 31;
    uint32_t min_count = 2;
    std::string contigs_path, histo_path;
    bool contigs = true;
    bool json = false;
    double progress_seconds = 5;
    double fp_rate = 0.01;      // distributed only
    size_t message_size = 4096;  // distributed only
    bool sort_counting = true;   // distributed only: counting by sorting, else by the Bloom filter passes
};

inline const char *usage_text()
{
    return "usage: %s [options] READS\n"
           "  READS               FASTA or FASTQ, plain or gzip-compressed\n"
           "  -k, --kmer-size K   k-mer length, 1 to 32 (default 31); k-mers are canonical\n"
           "  --min-count N       k-mers seen fewer than N times stay out of the graph (default 2;\n"
           "                      1 keeps singletons in the table, without the Bloom filter)\n"
           "  --contigs FILE      write the contigs (unitigs of the de Bruijn graph) as FASTA\n"
           "  --histo FILE        write the count histogram, \"count frequency\" per line\n"
           "  --no-contigs        count only\n"
           "  --json              one JSON record per measurement on standard output\n"
           "  --progress S        seconds between progress lines (default 5; 0: none)\n"
           "  --counting M        sort: each k-mer sent to the rank that counts it, in one\n"
           "                      all-to-all, and counted there in cache-sized parts (default);\n"
           "                      bloom: the Bloom filter and hash map buffer passes\n"
           "  --fp-rate R         Bloom filter false-positive rate (default 0.01)\n"
           "  --message-size N    hash map buffer message, in entries (default 4096)\n"
           "  -V, --version       the version\n"
           "  -h, --help          this text\n"
           "Values attach as -k25, -k 25, --kmer-size=25 or --kmer-size 25.\n"
           "Exit status: 0 done; 1 unreadable input or a failure while running; 2 bad arguments.\n";
}

// Parses argv into o; an empty string on success, "help" for -h/--help, else what is wrong.
// "" when the command line is good, "help" or "version" when it asks for them, else what is wrong.
inline std::string parse(int argc, char **argv, options &o)
{
    enum { opt_min_count = 256, opt_contigs, opt_histo, opt_no_contigs, opt_json, opt_progress, opt_fp_rate,
           opt_message_size, opt_counting };
    static const option longopts[] = {
        {"kmer-size", required_argument, nullptr, 'k'},
        {"min-count", required_argument, nullptr, opt_min_count},
        {"contigs", required_argument, nullptr, opt_contigs},
        {"histo", required_argument, nullptr, opt_histo},
        {"no-contigs", no_argument, nullptr, opt_no_contigs},
        {"json", no_argument, nullptr, opt_json},
        {"progress", required_argument, nullptr, opt_progress},
        {"fp-rate", required_argument, nullptr, opt_fp_rate},
        {"message-size", required_argument, nullptr, opt_message_size},
        {"counting", required_argument, nullptr, opt_counting},
        {"version", no_argument, nullptr, 'V'},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    opterr = 0;
    int index = -1;
    for (int c; (index = -1, c = getopt_long(argc, argv, ":k:Vh", longopts, &index)) != -1;) {
        // How the user spelled the option, for messages.
        const std::string name = index >= 0 ? std::string("--") + longopts[index].name : "-" + std::string(1, char(c));
        double x = 0;
        auto value = [&](double lo, double hi) {
            if (!pgdds_cli_number(optarg, lo, hi, &x))
                throw std::invalid_argument(name + " " + optarg + " is not a number in range");
            return x;
        };
        try {
            switch (c) {
            case 'h': return "help";
            case 'V': return "version";
            case 'k':
                if (!pgdds_cli_number(optarg, 1, max_k, &x) || x != double(int(x)))
                    return "k must be a whole number from 1 to 32 (a k-mer is packed into 64 bits), not " +
                           std::string(optarg);
                o.k = int(x);
                break;
            case opt_min_count: o.min_count = uint32_t(value(1, 4294967295.0)); break;
            case opt_contigs: o.contigs_path = optarg; break;
            case opt_histo: o.histo_path = optarg; break;
            case opt_no_contigs: o.contigs = false; break;
            case opt_json: o.json = true; break;
            case opt_progress: o.progress_seconds = value(0, 1e9); break;
            case opt_fp_rate: o.fp_rate = value(1e-9, 0.5); break;
            case opt_message_size: o.message_size = size_t(value(1, 1 << 24)); break;
            case opt_counting:
                if (std::strcmp(optarg, "sort") != 0 && std::strcmp(optarg, "bloom") != 0)
                    return "--counting takes sort or bloom, not " + std::string(optarg);
                o.sort_counting = std::strcmp(optarg, "sort") == 0;
                break;
            default: {
                char why[160];
                return pgdds_cli_error(c, argv, why, sizeof why);
            }
            }
        } catch (const std::invalid_argument &e) {
            return e.what();
        }
    }
    // getopt_long has moved the arguments that are not options to the end.
    if (optind >= argc) return "no input file";
    o.reads = argv[optind];
    if (optind + 1 < argc) return "more than one input file (" + o.reads + ", " + argv[optind + 1] + ")";
    if (!o.contigs && !o.contigs_path.empty()) return "--contigs and --no-contigs contradict each other";
    return "";
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------
struct counts {
    uint64_t total = 0, distinct = 0, unique = 0, max_count = 0;
    std::map<uint64_t, uint64_t> histogram;  // count -> k-mers seen that many times
};

struct contig_stats {
    uint64_t contigs = 0, bases = 0, n50 = 0, longest = 0;
};

inline contig_stats summarize_contigs(std::vector<uint64_t> lengths)
{
    contig_stats s;
    std::sort(lengths.begin(), lengths.end(), std::greater<uint64_t>());
    s.contigs = lengths.size();
    for (uint64_t l : lengths) s.bases += l;
    uint64_t seen = 0;
    for (uint64_t l : lengths)
        if ((seen += l) * 2 >= s.bases) {
            s.n50 = l;
            break;
        }
    s.longest = lengths.empty() ? 0 : lengths[0];
    return s;
}

// jellyfish stats's lines, the histogram's first bins, then the contigs.
inline void print_summary(FILE *out, const counts &c, const contig_stats *g)
{
    std::fprintf(out, "Unique:    %llu\nDistinct:  %llu\nTotal:     %llu\nMax_count: %llu\n",
                 (unsigned long long)c.unique, (unsigned long long)c.distinct, (unsigned long long)c.total,
                 (unsigned long long)c.max_count);
    // The histogram's first bins, "count:k-mers" (--histo writes all of it).
    std::fprintf(out, "Histogram:");
    int shown = 0;
    for (auto it = c.histogram.begin(); it != c.histogram.end() && shown < 8; ++it, ++shown)
        std::fprintf(out, " %llu:%llu", (unsigned long long)it->first, (unsigned long long)it->second);
    std::fprintf(out, "%s\n", c.histogram.size() > 8 ? " ..." : "");
    if (g)
        std::fprintf(out, "Contigs:   %llu\nBases:     %llu\nN50:       %llu\nLongest:   %llu\n",
                     (unsigned long long)g->contigs, (unsigned long long)g->bases, (unsigned long long)g->n50,
                     (unsigned long long)g->longest);
}

// "count frequency" lines, as jellyfish histo writes them.
inline void write_histogram(const std::string &path, const counts &c)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    for (const auto &[count, kmers] : c.histogram)
        std::fprintf(f, "%llu %llu\n", (unsigned long long)count, (unsigned long long)kmers);
    if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

inline void write_fasta(FILE *f, uint64_t index, const std::string &contig)
{
    std::fprintf(f, ">contig_%llu length=%zu\n%s\n", (unsigned long long)index, contig.size(), contig.c_str());
}

// ---------------------------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------------------------
inline double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A line on standard error every `interval` seconds while a long phase runs.
class progress {
  public:
    progress(const char *program, const char *phase, uint64_t total, bool on, double interval)
        : program_(program), phase_(phase), total_(total), on_(on && interval > 0), interval_(interval),
          start_(now()), last_(start_)
    {
    }
    void update(uint64_t done)
    {
        if (!on_) return;
        double t = now();
        if (t - last_ < interval_) return;
        last_ = t;
        if (total_)
            std::fprintf(stderr, "%s: %s: %.0f%% (%llu of %llu), %.1f s\n", program_, phase_,
                         100.0 * double(done) / double(total_), (unsigned long long)done, (unsigned long long)total_,
                         t - start_);
        else
            std::fprintf(stderr, "%s: %s: %llu so far, %.1f s\n", program_, phase_, (unsigned long long)done,
                         t - start_);
    }

  private:
    const char *program_, *phase_;
    uint64_t total_;
    bool on_;
    double interval_, start_, last_;
};

// One measurement in the benchmark format.
inline void json_record(const char *bench, const std::string &transport, int ranks, uint64_t size, const char *metric,
                        double value, const char *unit)
{
    bench_record_common(bench, transport.c_str(), ranks, 1, size, metric, value, unit);
}

}  // namespace kmer
