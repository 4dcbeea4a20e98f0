// The readers' cache of resolved key-table entries (keytable.h): where another rank's key was
// last found, so that the next read of it skips the index.
#pragma once

#include "match_table.h"

#include <atomic>
#include <memory>

namespace pgdds::keytable {

// An entry as a reader last validated it.
struct entry_ref {
    int owner;
    uint64_t slot;
    uint64_t meta;
    uint64_t loc;
    uint64_t value_len;
};

// The readers' cache of resolved entries, by owner and key_ref::cache_tag, a 64-bit hash of the
// key (which keys may share: users check the key in the record). Two-way set associative, so
// that a handful of hot keys whose tags meet in one place do not evict each other on every
// access; each line is a small seqlock so threads share the cache without a mutex.
class entry_cache {
  public:
    explicit entry_cache(uint64_t lines);
    bool find(int owner, uint64_t tag, entry_ref &out) const;
    void store(uint64_t tag, const entry_ref &e);
    void forget(int owner, uint64_t tag);

  private:
    static constexpr unsigned ways = 2;
    struct alignas(64) line {
        std::atomic<uint64_t> seq{0};
        std::atomic<uint64_t> owner{0};  // + 1, 0 when empty
        std::atomic<uint64_t> tag{0}, slot{0}, meta{0}, loc{0}, value_len{0};
        std::atomic<uint64_t> victim{0};  // in a set's first line: the way store() replaces next
    };
    line *set_for(uint64_t tag) const;
    // Starts writing line l (false: another thread is writing it, leave it to that thread).
    static bool begin_write(line &l, uint64_t &seq);
    static bool holds(const line &l, int owner, uint64_t tag)
    {
        return l.owner.load(std::memory_order_relaxed) == uint64_t(owner) + 1 &&
               l.tag.load(std::memory_order_relaxed) == tag;
    }
    std::unique_ptr<line[]> lines_;
    uint64_t sets_;
};

}  // namespace pgdds::keytable
