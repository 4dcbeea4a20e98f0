// The readers' cache of resolved key-table entries.
#include "entry_cache.h"

#include <algorithm>

namespace pgdds::keytable {

entry_cache::entry_cache(uint64_t lines)
    : lines_(new line[std::max<uint64_t>(lines, ways) / ways * ways]), sets_(std::max<uint64_t>(lines, ways) / ways)
{
}

entry_cache::line *entry_cache::set_for(uint64_t tag) const
{
    // Tags are hashes already. The owner is left out so that finding the set waits for nothing
    // but the tag.
    return &lines_[scale(tag, sets_) * ways];
}

bool entry_cache::find(int owner, uint64_t tag, entry_ref &out) const
{
    const line *set = set_for(tag);
    for (unsigned w = 0; w < ways; ++w) {
        const line &l = set[w];
        uint64_t seq = l.seq.load(std::memory_order_acquire);
        if (seq & 1) continue;
        entry_ref e{int(l.owner.load(std::memory_order_relaxed)) - 1, l.slot.load(std::memory_order_relaxed),
                    l.meta.load(std::memory_order_relaxed), l.loc.load(std::memory_order_relaxed),
                    l.value_len.load(std::memory_order_relaxed)};
        uint64_t line_tag = l.tag.load(std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_acquire);
        if (l.seq.load(std::memory_order_relaxed) != seq || e.owner != owner || line_tag != tag) continue;
        out = e;
        return true;
    }
    return false;
}

bool entry_cache::begin_write(line &l, uint64_t &seq)
{
    seq = l.seq.load(std::memory_order_relaxed);
    if ((seq & 1) || !l.seq.compare_exchange_strong(seq, seq + 1, std::memory_order_acquire)) return false;
    std::atomic_thread_fence(std::memory_order_release);
    return true;
}

void entry_cache::store(uint64_t tag, const entry_ref &e)
{
    // The key's own line, else an empty one, else the set's next victim (round robin).
    line *set = set_for(tag);
    unsigned w = 0;
    while (w < ways && !holds(set[w], e.owner, tag)) ++w;
    if (w == ways) {
        w = 0;
        while (w < ways && set[w].owner.load(std::memory_order_relaxed) != 0) ++w;
    }
    if (w == ways) w = unsigned(set[0].victim.fetch_add(1, std::memory_order_relaxed) % ways);
    line &l = set[w];
    uint64_t seq;
    if (!begin_write(l, seq)) return;
    l.owner.store(uint64_t(e.owner) + 1, std::memory_order_relaxed);
    l.tag.store(tag, std::memory_order_relaxed);
    l.slot.store(e.slot, std::memory_order_relaxed);
    l.meta.store(e.meta, std::memory_order_relaxed);
    l.loc.store(e.loc, std::memory_order_relaxed);
    l.value_len.store(e.value_len, std::memory_order_relaxed);
    l.seq.store(seq + 2, std::memory_order_release);
}

void entry_cache::forget(int owner, uint64_t tag)
{
    line *set = set_for(tag);
    for (unsigned w = 0; w < ways; ++w) {
        line &l = set[w];
        uint64_t seq;
        if (!holds(l, owner, tag) || !begin_write(l, seq)) continue;
        if (holds(l, owner, tag)) l.owner.store(0, std::memory_order_relaxed);
        l.seq.store(seq + 2, std::memory_order_release);
    }
}

}  // namespace pgdds::keytable
