// pgdds-kmer: distributed k-mer counting and contig generation on sequencing reads, written with
// the library's containers (BCL paper §8.2, thesis §6.3).
//
//   pgdds-run -n 4 pgdds-kmer [-k 31] [--min-count 2] [--contigs out.fa] [--json] reads.fa.gz
//
// Reading. Every rank streams the whole file (a gzip stream cannot be entered in the middle)
// and keeps every n-th record; inflating is cheap next to counting, and no rank waits for another.
//
// Counting, exact, with singletons kept out of the table, in one of two ways (--counting).
//
// By sorting (the default; KMC's way, with BCL's all-to-all): every k-mer goes to the rank that
// counts it in one all-to-all, grouped into parts small enough to count in cache; every count is
// then exact, and the k-mers seen twice or more go into the hash map through an adding buffer
// (count_by_sorting).
//
// By the Bloom filter passes (BCL's k-mer counting). Pass 1 inserts every k-mer occurrence
// into a distributed blocked Bloom filter, whose insert is one atomic that also says whether the
// k-mer was there already. An occurrence it had seen is a *repeat*; the others are *first
// occurrences*, at most one per distinct k-mer (the atomic decides which). Repeats go to the hash
// map through an adding HashMapBuffer, so the table holds every k-mer seen twice or more (and the
// few singletons whose first occurrence the filter took for a repeat). Pass 2 sends the first
// occurrences through an update-only adding buffer: each adds 1 to a k-mer already in the table
// and is dropped at the owner otherwise (where every segment is load/store-reachable, a second
// Bloom filter, of the table's keys, keeps most of those back at the sender).
//
// Either way every table entry holds its exact count, and every k-mer outside the table was
// seen exactly once, so
//     distinct   = entries + (total - sum of entry counts)
//     singletons = (total - sum of entry counts) + entries counting 1.
// With --min-count 1 the graph needs every k-mer, so every k-mer goes into the table (and the
// Bloom filter method has no filter).
//
// Contigs: the unitigs of the de Bruijn graph of solid k-mers (count >= --min-count). Nodes are
// canonical k-mers, read in either orientation; s -> t is an edge when t is s shifted by one base
// and both are solid. The edge s -> t belongs to a unitig when s has one successor, t has one
// predecessor, they are different canonical k-mers and neither is its own reverse complement
// (possible for even k). Unitig edges form simple paths and cycles, and every solid k-mer lies on
// exactly one. Every solid k-mer pushes "I am here" to its eight possible neighbours (those a
// Bloom filter says may be solid, where it can be read cheaply) and then "I have one neighbour on
// this side" to that neighbour, each through an update-only adding buffer (two aggregated
// exchanges, no round trips), so that every owner knows its k-mers' neighbours and links. Then
// each path is walked from both of its ends with one-read finds (CP_FIND), many walks in step:
// a walk goes on at once through k-mers whose owners' memory it maps, and every k-mer of another
// node is one batched find for all the walks, so the rounds are the remote steps of the longest
// walk; the walk that starts at the smaller end emits the contig. Cycles are found only if the paths do not account for every
// solid k-mer: their k-mers are marked through an update-only buffer, and a cycle is emitted by
// the walk from its smallest k-mer. Contigs are written in canonical form: a path as the smaller
// of its sequence and its reverse complement, a cycle read forwards from its smallest k-mer.
#include "kmer.hpp"

#include <numeric>

#include <pgdds/containers.hpp>

#include <cmath>
#include <memory>

#include <sys/mman.h>
#include <unistd.h>

namespace {

using namespace kmer;

// A k-mer's value in the table: its count and, while contigs are built, its place in the graph.
struct entry {
    uint32_t count;
    uint32_t graph;  // the bits below
};
// Solid neighbours of the k-mer as written (canonical): bit b of out for the successor ending in
// base b, bit b of in for the predecessor starting with b.
constexpr unsigned out_shift = 0, in_shift = 4;
constexpr uint32_t right_link = 1u << 8, left_link = 1u << 9, visited = 1u << 10;

// The combine of every buffer here: counts add, graph bits accumulate.
void merge(entry &stored, const entry &incoming)
{
    stored.count += incoming.count;
    stored.graph |= incoming.graph;
}

using table = pgdds::hash_map<uint64_t, entry>;
using table_buffer = pgdds::hash_map_buffer<uint64_t, entry>;

constexpr size_t batch = 4096;  // keys per batched container call

uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// An uninitialized array in its own mapping, with transparent huge pages where the system gives
// them on request: the arrays of pass 1 are hundreds of MB, and 4 KiB pages cost a fault each.
class big_array {
  public:
    explicit big_array(size_t n) : bytes_(std::max<size_t>(n, 1) * sizeof(uint64_t))
    {
        void *p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        (void)madvise(p, bytes_, MADV_HUGEPAGE);  // a hint; 4 KiB pages work too
        data_ = static_cast<uint64_t *>(p);
    }
    ~big_array() { munmap(data_, bytes_); }
    big_array(const big_array &) = delete;
    big_array &operator=(const big_array &) = delete;
    uint64_t *data() const { return data_; }
    uint64_t &operator[](size_t i) const { return data_[i]; }

  private:
    size_t bytes_;
    uint64_t *data_;
};

// An array in this rank's segment: the all-to-all copies straight into an output there (one
// node), where a private one takes messages.
class segment_array {
  public:
    segment_array(pgdds::context_ref ctx, size_t n) : ctx_(ctx)
    {
        pgdds::check(pgdds_alloc(ctx.handle(), std::max<size_t>(n, 1) * sizeof(uint64_t), 64, &where_));
        data_ = static_cast<uint64_t *>(pgdds_gptr_to_local(ctx.handle(), where_));
    }
    ~segment_array() { pgdds_free(ctx_.handle(), where_); }
    segment_array(const segment_array &) = delete;
    segment_array &operator=(const segment_array &) = delete;
    uint64_t *data() const { return data_; }

  private:
    pgdds::context_ref ctx_;
    pgdds_gptr_t where_ = PGDDS_GPTR_NULL;
    uint64_t *data_ = nullptr;
};

uint64_t power_of_two_at_least(uint64_t x)
{
    uint64_t p = 1;
    while (p < x) p <<= 1;
    return p;
}

// HyperLogLog (Flajolet et al., 2007): how many distinct keys all ranks hold together, within a
// few percent, from 4096 registers per rank. Sizes the Bloom filter and the table.
uint64_t distinct_estimate(pgdds::context_ref ctx, const std::vector<uint64_t> &keys)
{
    constexpr int bits = 12;
    constexpr size_t m = size_t(1) << bits;
    std::vector<uint32_t> mine(m, 0), all(m);
    for (uint64_t x : keys) {
        uint64_t h = mix(x);
        uint32_t rho = uint32_t(__builtin_clzll((h << bits) | (uint64_t(1) << (bits - 1)))) + 1;
        uint32_t &r = mine[h >> (64 - bits)];
        r = std::max(r, rho);
    }
    pgdds::check(pgdds_allreduce(ctx.handle(), mine.data(), all.data(), m, PGDDS_UINT32, PGDDS_OP_MAX));
    double sum = 0;
    size_t zeros = 0;
    for (uint32_t r : all) {
        sum += std::ldexp(1.0, -int(r));
        zeros += r == 0;
    }
    double e = 0.7213 / (1 + 1.079 / double(m)) * double(m) * double(m) / sum;
    if (e <= 2.5 * double(m) && zeros) e = double(m) * std::log(double(m) / double(zeros));
    return uint64_t(e);
}

// Whether every rank's segment is load/store-reachable from every rank (one node, shared memory
// on): then a remote read costs a cache miss, not a round trip. Collective.
// Which ranks' segments this rank reaches by load/store (itself and its node's peers, unless
// PGDDS_SHM=off).
std::vector<char> load_store_ranks(pgdds::context_ref ctx)
{
    pgdds_gptr_t mine = PGDDS_GPTR_NULL;
    pgdds::check(pgdds_alloc(ctx.handle(), 8, 8, &mine));
    std::vector<char> near;
    for (pgdds_gptr_t p : ctx.allgather(mine)) near.push_back(pgdds_gptr_to_local(ctx.handle(), p) != nullptr);
    ctx.barrier();
    pgdds::check(pgdds_free(ctx.handle(), mine));
    return near;
}

// Everything every rank holds, in rank order, on rank 0; a DArray is the meeting place.
template <class T> std::vector<T> gather_to_root(pgdds::context_ref ctx, const std::vector<T> &mine)
{
    std::vector<uint64_t> sizes = ctx.allgather(uint64_t(mine.size()));
    uint64_t offset = 0, total = 0;
    for (int r = 0; r < ctx.nranks(); ++r) {
        if (r < ctx.rank()) offset += sizes[size_t(r)];
        total += sizes[size_t(r)];
    }
    pgdds::darray<T> all(ctx, std::max<uint64_t>(total, 1));
    if (!mine.empty()) all.put(offset, mine.data(), mine.size());
    ctx.barrier();
    std::vector<T> out;
    if (ctx.rank() == 0 && total) out = all.get(0, total);
    ctx.barrier();
    return out;
}

class kmer_job {
  public:
    kmer_job(pgdds::context_ref ctx, const options &o)
        : ctx_(ctx), o_(o), me_(ctx.rank()), n_(ctx.nranks()), transport_(ctx.transport_name())
    {
    }
    // started: when the process started; initialized: when pgdds_init returned.
    int run(double started, double initialized);

  private:
    bool read(std::vector<uint64_t> &kmers);
    std::unique_ptr<table> count(std::vector<uint64_t> &kmers);
    std::unique_ptr<table> count_by_sorting(std::vector<uint64_t> &kmers);
    counts tally(const table &t);
    std::vector<std::string> contigs(const table &t);
    void neighbours(const table &t, uint64_t all_solid);
    void links(const table &t, uint64_t all_solid);
    void walk_paths(const table &t, std::vector<std::string> &out);
    void walk_cycles(const table &t, std::vector<std::string> &out);

    // One timed phase: a barrier at each end, so the time is the slowest rank's.
    template <class F> auto phase(const char *name, F f)
    {
        ctx_.barrier();
        double t0 = now();
        auto result = f();
        ctx_.barrier();
        times_.push_back(timing{name, now() - t0, 0, ""});
        return result;
    }
    // What the last phase went through, for its rate.
    void rate(uint64_t items, const char *what) { times_.back().items = items, times_.back().what = what; }
    progress progress_of(const char *what, uint64_t total) const
    {
        return progress("pgdds-kmer", what, total, me_ == 0, o_.progress_seconds);
    }
    bool is_solid(const entry &e) const { return e.count >= o_.min_count; }
    // Entries of each rank's buffer queue for `entries` sent in all: the same on every rank.
    size_t queue_capacity(uint64_t entries) const
    {
        return size_t(std::clamp<uint64_t>(entries / uint64_t(n_) + 1, 8 * o_.message_size, uint64_t(1) << 22));
    }

    pgdds::context_ref ctx_;
    const options &o_;
    int me_, n_;
    std::string transport_;
    uint64_t total_ = 0;  // k-mer occurrences in all reads
    uint64_t solid_ = 0;  // k-mers in the graph
    std::vector<char> near_ranks_;  // load_store_ranks
    bool near_ = false;             // every segment load/store-reachable, on every rank
    // Every solid k-mer is in it, for the contigs' neighbours: counting by the Bloom filter
    // passes, the filter of every k-mer of the reads; counting by sorting, one of the solid
    // k-mers only, made where it is read (every segment load/store-reachable). Null: none.
    std::unique_ptr<pgdds::bloom_filter<uint64_t>> seen_;
    struct timing {
        const char *name;
        double seconds;
        uint64_t items;  // for the rate: k-mers, solid k-mers; 0: none
        const char *what;
    };
    std::vector<timing> times_;
};

// Every n-th record of the file, as canonical k-mers. False (on every rank) if any rank could
// not read the file; the lowest such rank says why.
bool kmer_job::read(std::vector<uint64_t> &kmers)
{
    std::string why;
    try {
        progress p = progress_of("read (records)", 0);
        for_each_record(
            o_.reads, [&](uint64_t i) { return int(i % uint64_t(n_)) == me_; },
            [&](uint64_t i, std::string_view seq) {
                for_each_canonical(seq, o_.k, [&](uint64_t x) { kmers.push_back(x); });
                if (i % 1024 == 0) p.update(i);
            });
    } catch (const std::exception &e) {  // input_error, or bad_alloc for reads too large
        why = e.what();
    }
    int first_failure = ctx_.min(why.empty() ? n_ : me_);
    if (first_failure == me_) std::fprintf(stderr, "pgdds-kmer: %s\n", why.c_str());
    return first_failure == n_;
}

// Passes 1 and 2 (see the top of the file): the table of every k-mer seen twice or more.
std::unique_ptr<table> kmer_job::count(std::vector<uint64_t> &kmers)
{
    const size_t queue_capacity = this->queue_capacity(total_);
    std::vector<uint64_t> repeats;
    std::unique_ptr<table> t;
    std::unique_ptr<pgdds::bloom_filter<uint64_t>> in_table;
    phase("pass 1", [&] {
        if (o_.contigs && o_.min_count == 1) {
            repeats.swap(kmers);  // the graph needs every k-mer in the table: no filter
        } else {
            seen_ = std::make_unique<pgdds::bloom_filter<uint64_t>>(
                ctx_, std::max<uint64_t>(distinct_estimate(ctx_, kmers) * 11 / 10, 1024), o_.fp_rate);
            const pgdds::bloom_filter<uint64_t> &seen = *seen_;
            std::vector<unsigned char> was(batch);
            size_t firsts = 0;
            progress p = progress_of("pass 1 (Bloom filter)", kmers.size());
            for (size_t i = 0; i < kmers.size(); i += batch) {
                size_t c = std::min(batch, kmers.size() - i);
                seen.insert_many(kmers.data() + i, c, was.data());
                for (size_t j = 0; j < c; ++j) {
                    if (was[j]) repeats.push_back(kmers[i + j]);
                    else kmers[firsts++] = kmers[i + j];
                }
                p.update(i);
            }
            kmers.resize(firsts);  // now the first occurrences only
        }

        // Entries: the distinct repeats, plus room (the table probes within each owner's part).
        uint64_t capacity = std::max<uint64_t>(distinct_estimate(ctx_, repeats) * 8 / 5, 1024 * uint64_t(n_));
        t = std::make_unique<table>(ctx_, capacity);
        auto adding = pgdds::hash_map_buffer_options<entry>().combine(merge);
        table_buffer buf(*t, queue_capacity, o_.message_size, adding);
        progress q = progress_of("pass 1 (repeats to the table)", repeats.size());
        for (size_t i = 0; i < repeats.size(); ++i) {
            buf.insert(repeats[i], entry{1, 0});
            if (i % batch == 0) q.update(i);
        }
        buf.flush();
        if (seen_ && near_) {  // the keys of the table, for pass 2 (see there)
            in_table = std::make_unique<pgdds::bloom_filter<uint64_t>>(
                ctx_, std::max<uint64_t>(capacity * 5 / 8 * 11 / 10, 1024), o_.fp_rate);
            for (size_t i = 0; i < repeats.size(); i += batch)
                in_table->insert_many(repeats.data() + i, std::min(batch, repeats.size() - i));
            ctx_.barrier();
        }
        return 0;
    });
    rate(total_, "k-mers");
    repeats = std::vector<uint64_t>();
    phase("pass 2", [&] {
        auto adding_to_present = pgdds::hash_map_buffer_options<entry>().combine(merge).update_only();
        table_buffer buf(*t, queue_capacity, o_.message_size, adding_to_present);
        progress p = progress_of("pass 2 (first occurrences)", kmers.size());
        // Where memory is load/store-reachable, a Bloom filter of the table's keys keeps back
        // the first occurrences of k-mers that are not in the table (most: the singletons), one
        // batched read of the filter to know which. Over a network such reads are round trips,
        // the aggregated messages are not, so all are sent.
        std::vector<unsigned char> maybe(batch);
        for (size_t i = 0; i < kmers.size(); i += batch) {
            size_t c = std::min(batch, kmers.size() - i);
            if (in_table) in_table->contains_many(kmers.data() + i, c, maybe.data());
            for (size_t j = 0; j < c; ++j)
                if (!in_table || maybe[j]) buf.insert(kmers[i + j], entry{1, 0});
            p.update(i);
        }
        buf.flush();
        in_table.reset();  // collective
        return 0;
    });
    rate(ctx_.sum(uint64_t(kmers.size())), "k-mers");
    kmers = std::vector<uint64_t>();
    return t;
}

// Counting by sorting (the default; KMC's way, BCL's all-to-all): pass 1 sends every k-mer to
// the rank that counts it, in one all-to-all of 8-byte words, grouped by the sender into that
// rank's parts (a hash of the k-mer names rank and part). Pass 2 counts each part on its own in
// a small open-addressing table that stays in the core's cache; every count is exact, so no
// filter is needed. The k-mers seen at least twice (every k-mer with --min-count 1 and contigs)
// go into the distributed table through an adding buffer; the others are only counted (the
// statistics take them from the total, as after the Bloom filter passes).
std::unique_ptr<table> kmer_job::count_by_sorting(std::vector<uint64_t> &kmers)
{
    // About 16 Ki k-mers per part: its table (2 slots per k-mer, 12 bytes a slot) fits in L2.
    const uint64_t parts = std::clamp<uint64_t>(power_of_two_at_least(total_ / uint64_t(n_) / 16384 + 1), 1, 4096);
    const uint64_t all_parts = parts * uint64_t(n_);
    // Rank and part from the hash's high half, the slot in a part's table from its low half.
    auto part_of = [all_parts](uint64_t h) { return (h >> 32) * all_parts >> 32; };
    std::unique_ptr<segment_array> received;
    std::vector<uint64_t> from;  // from[r * parts + p]: k-mers of part p received from rank r
    phase("pass 1", [&] {
        std::vector<uint64_t> outgoing(all_parts, 0);  // [r * parts + p]: k-mers for part p of rank r
        for (uint64_t x : kmers) ++outgoing[part_of(mix(x))];
        std::vector<uint64_t> at(all_parts, 0);
        for (uint64_t d = 1; d < all_parts; ++d) at[d] = at[d - 1] + outgoing[d - 1];
        big_array sorted(kmers.size());
        for (uint64_t x : kmers) sorted[at[part_of(mix(x))]++] = x;
        kmers = std::vector<uint64_t>();
        from = ctx_.world().alltoall(outgoing);
        std::vector<size_t> send_bytes(size_t(n_), 0), recv_bytes(size_t(n_), 0);
        uint64_t incoming = 0;
        for (uint64_t d = 0; d < all_parts; ++d) {
            send_bytes[d / parts] += outgoing[d] * sizeof(uint64_t);
            recv_bytes[d / parts] += from[d] * sizeof(uint64_t);
            incoming += from[d];
        }
        received = std::make_unique<segment_array>(ctx_, incoming);
        pgdds::check(pgdds_team_alltoallv(ctx_.world().handle(), sorted.data(), send_bytes.data(), nullptr,
                                          received->data(), recv_bytes.data(), nullptr));
        return 0;
    });
    rate(total_, "k-mers");
    std::unique_ptr<table> t;
    phase("pass 2", [&] {
        // Each rank's k-mers of one part lie together in what came from it; a cursor per rank.
        std::vector<uint64_t> cursor(size_t(n_), 0);
        for (int r = 1; r < n_; ++r)
            for (uint64_t p = 0; p < parts; ++p) cursor[size_t(r)] += from[uint64_t(r - 1) * parts + p];
        for (int r = 1; r < n_; ++r) cursor[size_t(r)] += cursor[size_t(r - 1)];
        uint64_t most = 0;
        for (uint64_t p = 0; p < parts; ++p) {
            uint64_t in_part = 0;
            for (int r = 0; r < n_; ++r) in_part += from[uint64_t(r) * parts + p];
            most = std::max(most, in_part);
        }
        const uint64_t slots = power_of_two_at_least(2 * most + 2), mask = slots - 1;
        std::vector<uint64_t> keys(slots);
        std::vector<uint32_t> seen(slots, 0);  // 0: a free slot
        const uint32_t keep = o_.contigs && o_.min_count == 1 ? 1 : 2;
        std::vector<std::pair<uint64_t, uint32_t>> kept;
        for (uint64_t p = 0; p < parts; ++p) {
            for (int r = 0; r < n_; ++r) {
                const uint64_t n = from[uint64_t(r) * parts + p];
                for (const uint64_t *x = received->data() + cursor[size_t(r)], *end = x + n; x < end; ++x) {
                    uint64_t s = mix(*x) & mask;
                    while (seen[s] && keys[s] != *x) s = (s + 1) & mask;
                    keys[s] = *x;
                    ++seen[s];
                }
                cursor[size_t(r)] += n;
            }
            for (uint64_t s = 0; s < slots; ++s) {
                if (seen[s] >= keep) kept.emplace_back(keys[s], seen[s]);
                seen[s] = 0;
            }
        }
        received.reset();
        // The table: the kept k-mers, plus room (it probes within each owner's part).
        uint64_t capacity = std::max<uint64_t>(ctx_.sum(uint64_t(kept.size())) * 8 / 5, 1024 * uint64_t(n_));
        t = std::make_unique<table>(ctx_, capacity);
        auto adding = pgdds::hash_map_buffer_options<entry>().combine(merge);
        table_buffer buf(*t, queue_capacity(capacity * 5 / 8), o_.message_size, adding);
        for (const auto &[x, c] : kept) buf.insert(x, entry{c, 0});
        buf.flush();
        if (o_.contigs && near_) {  // the solid k-mers, a filter small enough to stay in cache
            std::vector<uint64_t> solid;
            for (const auto &[x, c] : kept)
                if (c >= o_.min_count) solid.push_back(x);
            seen_ = std::make_unique<pgdds::bloom_filter<uint64_t>>(
                ctx_, std::max<uint64_t>(ctx_.sum(uint64_t(solid.size())) * 11 / 10, 1024), o_.fp_rate);
            for (size_t i = 0; i < solid.size(); i += batch)
                seen_->insert_many(solid.data() + i, std::min(batch, solid.size() - i));
        }
        return 0;
    });
    rate(total_, "k-mers");
    return t;
}

// The statistics of jellyfish stats and histo, from the table and the total.
counts kmer_job::tally(const table &t)
{
    uint64_t entries = 0, sum = 0, ones = 0, max_count = 0;
    std::vector<uint32_t> all_counts;
    t.for_each_local([&](const uint64_t &, const entry &e) {
        ++entries;
        sum += e.count;
        ones += e.count == 1;
        max_count = std::max<uint64_t>(max_count, e.count);
        all_counts.push_back(e.count);
    });
    counts c;
    c.total = total_;
    entries = ctx_.sum(entries);
    uint64_t outside = total_ - ctx_.sum(sum);  // k-mers seen once that never entered the table
    c.distinct = entries + outside;
    c.unique = outside + ctx_.sum(ones);
    c.max_count = std::max<uint64_t>(ctx_.max(max_count), outside ? 1 : 0);
    // Small counts through one dense reduction; the rare large ones are gathered one by one.
    const uint64_t dense = std::clamp<uint64_t>(c.max_count + 1, 2, 1 << 16);
    std::vector<uint64_t> mine(dense, 0), hist(dense);
    std::vector<uint32_t> large;
    for (uint32_t x : all_counts) {
        if (x < dense) ++mine[x];
        else large.push_back(x);
    }
    pgdds::check(pgdds_allreduce(ctx_.handle(), mine.data(), hist.data(), dense, PGDDS_UINT64, PGDDS_OP_SUM));
    hist[1] += outside;
    for (uint64_t x = 1; x < dense; ++x)
        if (hist[x]) c.histogram[x] = hist[x];
    for (uint32_t x : gather_to_root(ctx_, large)) ++c.histogram[x];
    return c;
}

// ---------------------------------------------------------------------------------------------
// Contigs
// ---------------------------------------------------------------------------------------------
// An oriented k-mer's graph bits seen from its own orientation: for a reverse complement,
// successors are the canonical k-mer's complemented predecessors and the links swap.
uint32_t oriented(uint32_t g, bool reversed)
{
    if (!reversed) return g;
    auto flip = [](uint32_t mask) {  // bit b -> bit 3-b
        return ((mask & 1) << 3) | ((mask & 2) << 1) | ((mask & 4) >> 1) | ((mask & 8) >> 3);
    };
    uint32_t out = flip((g >> in_shift) & 15), in = flip((g >> out_shift) & 15);
    return (out << out_shift) | (in << in_shift) | (g & right_link ? left_link : 0) | (g & left_link ? right_link : 0) |
           (g & visited);
}
unsigned out_degree(uint32_t g) { return unsigned(__builtin_popcount((g >> out_shift) & 15)); }
unsigned in_degree(uint32_t g) { return unsigned(__builtin_popcount((g >> in_shift) & 15)); }
unsigned only_base(uint32_t mask) { return unsigned(__builtin_ctz(mask)); }

// Batched one-read finds (only finds overlap: CP_FIND).
void find_all(const table &t, const std::vector<uint64_t> &keys, std::vector<entry> &values,
              std::vector<unsigned char> &found)
{
    values.resize(keys.size());
    found.resize(keys.size());
    for (size_t i = 0; i < keys.size(); i += batch) {
        size_t c = std::min(batch, keys.size() - i);
        t.find_many(keys.data() + i, c, values.data() + i, found.data() + i, pgdds::promise::find);
    }
}

// The two ends of an oriented k-mer.
unsigned first_base(uint64_t x, int k) { return unsigned(x >> (2 * (k - 1))) & 3; }
unsigned last_base(uint64_t x) { return unsigned(x) & 3; }

// The graph bits that say, of the oriented k-mer t, "a solid k-mer before t starts with base c"
// (before = true) or "a solid k-mer after t ends with base c", as stored with t's canonical form:
// for a reverse complement, a predecessor starting with c is a successor ending with 3-c. A
// palindrome is both of its orientations: both bits.
uint32_t neighbour_bits(uint64_t t, unsigned c, bool before, int k)
{
    const uint64_t r = reverse_complement(t, k);
    const uint32_t as_is = 1u << ((before ? in_shift : out_shift) + c);
    const uint32_t flipped = 1u << ((before ? out_shift : in_shift) + (3 - c));
    if (t == r) return as_is | flipped;
    return t < r ? as_is : flipped;
}

// Solid neighbours, pushed rather than fetched: every solid k-mer x tells each of its eight
// possible neighbours that x is there, through one update-only buffer that ORs graph bits at the
// owners. A neighbour absent from the table drops the message; one present but not solid keeps
// bits nobody reads. One aggregated exchange instead of eight finds per k-mer.
void kmer_job::neighbours(const table &t, uint64_t all_solid)
{
    const int k = o_.k;
    auto marking = pgdds::hash_map_buffer_options<entry>().combine(merge).update_only();
    table_buffer buf(t, queue_capacity(8 * all_solid), o_.message_size, marking);
    uint64_t done = 0;
    progress p = progress_of("contigs (neighbours)", all_solid / uint64_t(n_));
    // Messages in batches. Where memory is load/store-reachable, the filter seen_ keeps back
    // those to k-mers that are not solid (most of the eight possible neighbours), one batched
    // read of the filter to know which; over a network such reads are round trips, the
    // aggregated messages are not, so all are sent.
    if (seen_ && !near_) seen_.reset();
    std::vector<uint64_t> keys;
    std::vector<uint32_t> bits;
    std::vector<unsigned char> maybe(batch);
    auto send = [&] {
        for (size_t i = 0; i < keys.size(); i += batch) {
            size_t c = std::min(batch, keys.size() - i);
            if (seen_) seen_->contains_many(keys.data() + i, c, maybe.data());
            for (size_t j = 0; j < c; ++j)
                if (!seen_ || maybe[j]) buf.insert(keys[i + j], entry{0, bits[i + j]});
        }
        keys.clear();
        bits.clear();
    };
    t.for_each_local([&](const uint64_t &x, const entry &e) {
        if (!is_solid(e)) return;
        for (unsigned b = 0; b < 4; ++b) {
            uint64_t after = successor(x, b, k), before = predecessor(x, b, k);
            keys.push_back(canonical(after, k));
            bits.push_back(neighbour_bits(after, first_base(x, k), true, k));
            keys.push_back(canonical(before, k));
            bits.push_back(neighbour_bits(before, last_base(x), false, k));
        }
        if (keys.size() >= batch) send();
        if (++done % batch == 0) p.update(done);
    });
    send();
    buf.flush();
    if (seen_) seen_.reset();  // collective
}

// Unitig links: s -> t when s has one successor t, t one predecessor, and they differ and are
// not their own reverse complements. Pushed too: every solid t with one predecessor s (that is
// not t, nor a palindrome, and t is none) tells s "your successor has one predecessor" (a link
// bit on the side of s that faces t); with one successor, likewise. Then each owner keeps a link
// bit only where its own k-mer has one neighbour on that side and is not a palindrome.
void kmer_job::links(const table &t, uint64_t all_solid)
{
    const int k = o_.k;
    auto marking = pgdds::hash_map_buffer_options<entry>().combine(merge).update_only();
    table_buffer buf(t, queue_capacity(2 * all_solid), o_.message_size, marking);
    // The bit of canonical(y) for "the k-mer after oriented y" (after = true) or before it.
    auto link_bit = [&](uint64_t y, bool after) {
        return (y == canonical(y, k)) == after ? right_link : left_link;
    };
    t.for_each_local([&](const uint64_t &x, const entry &e) {
        if (!is_solid(e) || reverse_complement(x, k) == x) return;
        if (in_degree(e.graph) == 1) {
            uint64_t s = predecessor(x, only_base(e.graph >> in_shift), k);
            if (canonical(s, k) != x && reverse_complement(s, k) != s)
                buf.insert(canonical(s, k), entry{0, link_bit(s, true)});
        }
        if (out_degree(e.graph) == 1) {
            uint64_t u = successor(x, only_base(e.graph >> out_shift), k);
            if (canonical(u, k) != x && reverse_complement(u, k) != u)
                buf.insert(canonical(u, k), entry{0, link_bit(u, false)});
        }
    });
    buf.flush();
    t.for_each_local([&](const uint64_t &x, entry &e) {
        if (!is_solid(e)) return;
        const bool palindrome = reverse_complement(x, k) == x;
        if (palindrome || out_degree(e.graph) != 1) e.graph &= ~right_link;
        if (palindrome || in_degree(e.graph) != 1) e.graph &= ~left_link;
    });
    ctx_.barrier();  // every owner's bits are final before anyone reads them
}

// Walks in step: each round advances every active walk by one k-mer with one batched find.
struct walk {
    uint64_t start;  // canonical k-mer the walk started from
    uint64_t at;     // the oriented k-mer it is at
    uint32_t graph;  // at's graph bits, oriented
    std::string seq;
};

// Runs the walks, a bounded number in step, until each has stopped: a walk goes on while
// step(w, canonical k-mer it reached) says so; step sees w.at and w.graph already moved there.
// Each round, the walks step through k-mers in memory this rank maps (near, by owner) in batched
// finds until each has stopped or reached a k-mer of another node; one batched find then takes
// every walk one step across the network. The network rounds are the remote steps of the longest
// walk, not all of its steps.
template <class Step>
void advance(const table &t, int k, const std::vector<char> &near, std::vector<walk> pending, Step step, progress &p)
{
    std::vector<walk> walks;
    std::vector<uint64_t> next, keys;
    std::vector<entry> values;
    std::vector<unsigned char> found, going;
    std::vector<size_t> active, stepping, remote;
    uint64_t steps = 0;
    const bool all_near = std::count(near.begin(), near.end(), 1) == std::ptrdiff_t(near.size());
    auto move = [&](walk &w) {
        w.at = successor(w.at, only_base(w.graph >> out_shift), k);
        w.seq.push_back(base_char[w.at & 3]);
        ++steps;
        return canonical(w.at, k);
    };
    // Batched finds of the keys of walks `which`, each walk then stepped; those that go on move.
    auto find_and_step = [&](const std::vector<size_t> &which, std::vector<size_t> &on) {
        keys.clear();
        for (size_t i : which) keys.push_back(next[i]);
        find_all(t, keys, values, found);
        for (size_t n = 0; n < which.size(); ++n) {
            walk &w = walks[which[n]];
            w.graph = oriented(values[n].graph, w.at != keys[n]);
            if (!(going[which[n]] = step(w, keys[n]))) continue;
            next[which[n]] = move(w);
            on.push_back(which[n]);
        }
    };
    while (!walks.empty() || !pending.empty()) {
        while (walks.size() < batch && !pending.empty()) {
            walks.push_back(std::move(pending.back()));
            pending.pop_back();
            next.push_back(move(walks.back()));
        }
        going.assign(walks.size(), 1);
        active.resize(walks.size());
        std::iota(active.begin(), active.end(), size_t(0));
        remote.clear();
        while (!active.empty()) {
            stepping.clear();
            for (size_t i : active) (all_near || near[size_t(t.owner(next[i]))] ? stepping : remote).push_back(i);
            active.clear();
            if (!stepping.empty()) find_and_step(stepping, active);
        }
        find_and_step(remote, active);
        size_t kept = 0;
        for (size_t i = 0; i < walks.size(); ++i) {
            if (!going[i]) continue;
            if (kept != i) {
                walks[kept] = std::move(walks[i]);
                next[kept] = next[i];
            }
            ++kept;
        }
        walks.resize(kept);
        next.resize(kept);
        p.update(steps);
    }
}

void kmer_job::walk_paths(const table &t, std::vector<std::string> &out)
{
    const int k = o_.k;
    std::vector<walk> ends;
    t.for_each_local([&](const uint64_t &x, const entry &e) {
        if (!is_solid(e)) return;
        bool right = e.graph & right_link, left = e.graph & left_link;
        if (!right && !left) out.push_back(to_string(x, k));  // a contig of one k-mer
        else if (right != left) {
            // An end: walk away from it, reading the k-mer so that the link is on its right.
            uint64_t at = right ? x : reverse_complement(x, k);
            ends.push_back(walk{x, at, oriented(e.graph, !right), to_string(at, k)});
        }
    });
    progress p = progress_of("contigs (walking paths, k-mer steps)", 0);
    advance(t, k, near_ranks_, std::move(ends), [&](walk &w, uint64_t x) {
        if (w.graph & right_link) return true;
        if (w.start < x) out.push_back(canonical_contig(w.seq));  // the walk from the other end finds the same path
        return false;
    }, p);
}

// Cycles: unvisited k-mers with both links. Each walks forwards until it meets a smaller k-mer
// (then it is not the cycle's smallest) or itself (then it emits the cycle).
void kmer_job::walk_cycles(const table &t, std::vector<std::string> &out)
{
    const int k = o_.k;
    std::vector<walk> walks;
    t.for_each_local([&](const uint64_t &x, const entry &e) {
        if (is_solid(e) && (e.graph & right_link) && (e.graph & left_link) && !(e.graph & visited))
            walks.push_back(walk{x, x, e.graph, to_string(x, k)});
    });
    progress p = progress_of("contigs (walking cycles, k-mer steps)", 0);
    advance(t, k, near_ranks_, std::move(walks), [&](walk &w, uint64_t x) {
        if (x > w.start) return (w.graph & right_link) != 0;
        if (x == w.start) {
            w.seq.resize(w.seq.size() - 1);  // back at the start: its last base is already there
            out.push_back(w.seq);
        }
        return false;
    }, p);
}

std::vector<std::string> kmer_job::contigs(const table &t)
{
    uint64_t solid = 0;
    t.for_each_local([&](const uint64_t &, const entry &e) { solid += is_solid(e); });
    const uint64_t all_solid = solid_ = ctx_.sum(solid);
    neighbours(t, all_solid);
    links(t, all_solid);
    std::vector<std::string> out;
    walk_paths(t, out);
    uint64_t on_paths = 0;
    for (const std::string &c : out) on_paths += c.size() - size_t(o_.k) + 1;
    if (ctx_.sum(on_paths) < all_solid) {
        // Some solid k-mers lie on cycles: mark the k-mers of the paths, then walk the rest.
        auto marking = pgdds::hash_map_buffer_options<entry>().combine(merge).update_only();
        table_buffer buf(t, queue_capacity(all_solid), o_.message_size, marking);
        for (const std::string &c : out) for_each_canonical(c, o_.k, [&](uint64_t x) { buf.insert(x, entry{0, visited}); });
        buf.flush();
        walk_cycles(t, out);
    }
    return out;
}

int kmer_job::run(double started, double initialized)
{
    std::vector<uint64_t> kmers;
    near_ranks_ = load_store_ranks(ctx_);
    near_ = ctx_.min(int(std::count(near_ranks_.begin(), near_ranks_.end(), 1) == n_)) == 1;
    if (!phase("read", [&] { return read(kmers); })) return 1;
    total_ = ctx_.sum(uint64_t(kmers.size()));
    rate(total_, "k-mers");
    std::unique_ptr<table> t = o_.sort_counting ? count_by_sorting(kmers) : count(kmers);
    if (!o_.contigs) seen_.reset();  // collective
    counts c = phase("statistics", [&] { return tally(*t); });
    std::vector<std::string> mine;
    contig_stats g;
    if (o_.contigs) {
        mine = phase("contigs", [&] { return contigs(*t); });
        rate(solid_, "solid k-mers");
        std::vector<uint64_t> lengths;
        for (const std::string &s : mine) lengths.push_back(s.size());
        g = summarize_contigs(gather_to_root(ctx_, lengths));
        if (!o_.contigs_path.empty()) {
            std::string text;
            for (const std::string &s : mine) (text += s) += '\n';
            std::vector<char> all = gather_to_root(ctx_, std::vector<char>(text.begin(), text.end()));
            if (me_ == 0) {
                FILE *f = std::fopen(o_.contigs_path.c_str(), "w");
                if (!f) throw std::runtime_error("cannot write " + o_.contigs_path + ": " + std::strerror(errno));
                uint64_t index = 0;
                for (size_t at = 0; at < all.size();) {
                    size_t end = size_t(std::find(all.begin() + long(at), all.end(), '\n') - all.begin());
                    write_fasta(f, ++index, std::string(all.data() + at, end - at));
                    at = end + 1;
                }
                if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + o_.contigs_path);
            }
        }
    }
    ctx_.barrier();
    double total_time = now() - started;
    if (me_ != 0) return 0;
    if (!o_.histo_path.empty()) write_histogram(o_.histo_path, c);
    double counting = 0;
    for (const timing &p : times_)
        if (std::strcmp(p.name, "contigs") != 0) counting += p.seconds;
    if (o_.json) {
        for (const timing &p : times_) {
            std::string metric = p.name;
            for (char &ch : metric)
                if (ch == ' ') ch = '_';
            json_record("kmer", transport_, n_, c.total, (metric + "_time").c_str(), p.seconds, "s");
            if (p.items)
                json_record("kmer", transport_, n_, c.total, (metric + "_rate").c_str(), double(p.items) / p.seconds,
                            (std::string(p.what) + "/s").c_str());
        }
        json_record("kmer", transport_, n_, c.total, "count_time", counting, "s");
        json_record("kmer", transport_, n_, c.total, "startup_time", initialized - started, "s");
        json_record("kmer", transport_, n_, c.total, "total_time", total_time, "s");
        json_record("kmer", transport_, n_, c.total, "kmers_per_s", double(c.total) / counting, "k-mers/s");
        json_record("kmer", transport_, n_, c.total, "distinct", double(c.distinct), "k-mers");
        json_record("kmer", transport_, n_, c.total, "singletons", double(c.unique), "k-mers");
        if (o_.contigs) {
            json_record("kmer", transport_, n_, c.total, "contigs", double(g.contigs), "contigs");
            json_record("kmer", transport_, n_, c.total, "n50", double(g.n50), "bases");
        }
        return 0;
    }
    std::printf("pgdds-kmer: %s, k=%d, %d ranks over %s\n", o_.reads.c_str(), o_.k, n_, transport_.c_str());
    print_summary(stdout, c, o_.contigs ? &g : nullptr);
    for (const timing &p : times_) {
        std::printf("time %-11s %8.3f s", p.name, p.seconds);
        if (p.items) std::printf("  (%.2f M %s/s)", double(p.items) / p.seconds / 1e6, p.what);
        std::printf("\n");
    }
    std::printf("time counting   %8.3f s  (%.1f M k-mers/s)\ntime start-up   %8.3f s\ntime total      %8.3f s\n",
                counting, double(c.total) / counting / 1e6, initialized - started, total_time);
    return 0;
}

// The segment each rank needs for an input of `bases` bases, generously: the Bloom filter, a
// table sized for the worst case (every k-mer seen twice), a buffer's queue, the contigs. Never
// more than this node's memory shared by its ranks.
size_t segment_for(uint64_t bases, int nranks)
{
    uint64_t per_rank = bases / uint64_t(nranks) + 1;
    uint64_t memory = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
    return size_t(std::min(per_rank * 40 + (uint64_t(128) << 20), memory / uint64_t(nranks) / 2));
}

// The job's size as the launchers announce it before pgdds_init (1 if none does).
int launched_ranks()
{
    for (const char *name : {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "SLURM_NTASKS"})
        if (const char *v = std::getenv(name))
            if (int n = std::atoi(v); n > 0) return n;
    return 1;
}

}  // namespace

int main(int argc, char **argv)
{
    const double started = now();
    options o;
    std::string bad = parse(argc, argv, o);
    int rank = -1;
    try {
        // The default segment (PGDDS_SEGMENT_SIZE) unless the input needs more.
        pgdds::init_options init;
        size_t need = segment_for(estimated_bases(o.reads), launched_ranks());
        if (bad.empty() && !std::getenv("PGDDS_SEGMENT_SIZE") && need > (size_t(256) << 20)) init.segment_size(need);
        pgdds::context ctx(init);
        const double initialized = now();
        rank = ctx.rank();
        if (bad == "help" || bad == "version") {
            if (rank == 0 && bad == "help") std::printf(usage_text(), "pgdds-kmer");
            if (rank == 0 && bad == "version") pgdds_cli_version("pgdds-kmer", pgdds_version_string());
            return 0;
        }
        if (!bad.empty()) {
            if (rank == 0) {
                std::fprintf(stderr, "pgdds-kmer: %s\n", bad.c_str());
                std::fprintf(stderr, usage_text(), "pgdds-kmer");
            }
            return 2;
        }
        kmer_job job(ctx, o);
        return job.run(started, initialized);
    } catch (const std::exception &e) {
        if (rank < 0) std::fprintf(stderr, "pgdds-kmer: %s\n", e.what());
        else std::fprintf(stderr, "pgdds-kmer: rank %d: %s\n", rank, e.what());
        return 1;
    }
}
