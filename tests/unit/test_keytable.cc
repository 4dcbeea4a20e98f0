// Match-entry tables, single process: the derivation of match bits, the words of a slot, the
// placement of entries in the hashed index and their probing, and alias resolution (PDHT §3.7).
#include <catch2/catch.hpp>

#include "../../src/core/segment_allocator.h"
#include "../../src/keytable/entry_cache.h"
#include "../../src/keytable/match_table.h"

#include <map>
#include <set>
#include <string>
#include <vector>

using namespace pgdds;
using namespace pgdds::keytable;

namespace {

uint32_t fingerprint(const std::string &key) { return uint32_t(std::hash<std::string>()(key)); }

// A partition in host memory: a zeroed index at offset 4096, records from the real allocator.
struct partition : match_table::record_allocator {
    std::vector<uint8_t> memory;
    segment_allocator allocator;
    match_table table;

    partition(uint64_t nbuckets, uint64_t capacity, size_t max_value = 32)
        : memory(4096 + nbuckets * bucket_bytes + (1 << 20)),
          allocator(4096 + nbuckets * bucket_bytes, memory.size()),
          table(memory.data(), 4096, nbuckets, capacity, max_value, *this)
    {
    }
    status alloc(size_t bytes, uint64_t &offset) override { return allocator.alloc(bytes, 8, offset); }
    void free(uint64_t offset) override { allocator.free(offset); }

    status insert(const std::string &key, const std::string &value, uint64_t base,
                  match_table::placement *where = nullptr)
    {
        match_table::pending_entry p;
        status st = table.append_pending(key.data(), key.size(), fingerprint(key), value.data(), value.size(), p);
        if (st != PGDDS_OK) return st;
        match_table::placement w;
        st = table.activate(p, base, w);
        if (st != PGDDS_OK) table.discard(p);
        else if (where) *where = w;
        return st;
    }

    // The owner's view of a key: the slot holding it, as a reader resolves it from the home
    // bucket through the run its extent covers.
    bool find(const std::string &key, uint64_t base, uint64_t &slot_out, std::string *value = nullptr) const
    {
        uint64_t home = home_bucket(base, table.nbuckets());
        bool found = false;
        for_each_candidate([&](uint64_t, uint64_t b) -> const bucket_words & { return table.bucket(b); }, home,
                           table.bucket(home).extent + 1, table.nbuckets(), base,
                           [&](uint64_t s, const slot_words &w) {
                               if (hint_fingerprint(w.hint) != fingerprint(key)) return;
                               const uint8_t *r = table.record(loc_offset(w.loc));
                               record_header h;
                               memcpy(&h, r, sizeof h);
                               if (h.key_len != key.size() || memcmp(r + sizeof h, key.data(), key.size())) return;
                               found = true;
                               slot_out = s;
                               if (value)
                                   value->assign(reinterpret_cast<const char *>(r + record_value_offset(h.key_len)),
                                                 h.value_len);
                           });
        return found;
    }

    void remove(uint64_t slot)
    {
        __atomic_fetch_or(&table.slot(slot).meta, meta_locked, __ATOMIC_SEQ_CST);  // as a remover's CAS would
        table.reclaim(slot);
    }
};

// Bases (alias bits clear) whose home bucket is `home`.
std::vector<uint64_t> bases_with_home(uint64_t home, uint64_t nbuckets, size_t count)
{
    std::vector<uint64_t> out;
    for (uint64_t h = 1; out.size() < count; ++h) {
        uint64_t base = address_of(h, 1).match_base;
        if (home_bucket(base, nbuckets) == home) out.push_back(base);
    }
    return out;
}

}  // namespace

TEST_CASE("match bits: owner in range, alias bits clear, deterministic, spread", "[keytable]")
{
    const int nranks = 7;
    std::vector<int> per_rank(nranks);
    std::set<uint64_t> bases;
    for (uint64_t h = 0; h < 70000; ++h) {  // consecutive integers: a weak application hash
        key_address a = address_of(h, nranks);
        REQUIRE(a.owner >= 0);
        REQUIRE(a.owner < nranks);
        REQUIRE((a.match_base & alias_mask) == 0);
        key_address again = address_of(h, nranks);
        REQUIRE(again.owner == a.owner);
        REQUIRE(again.match_base == a.match_base);
        per_rank[a.owner]++;
        bases.insert(a.match_base);
    }
    for (int r = 0; r < nranks; ++r) {
        CHECK(per_rank[r] > 9000);
        CHECK(per_rank[r] < 11000);
    }
    CHECK(bases.size() == 70000);  // no two of these hashes share match bits
    CHECK(address_of(5, 1).owner == 0);
}

TEST_CASE("home buckets cover the index evenly", "[keytable]")
{
    const uint64_t nbuckets = 1000;
    std::vector<int> hits(nbuckets);
    for (uint64_t h = 0; h < 100000; ++h) {
        uint64_t b = home_bucket(address_of(h, 4).match_base, nbuckets);
        REQUIRE(b < nbuckets);
        hits[b]++;
    }
    for (uint64_t b = 0; b < nbuckets; ++b) CHECK(hits[b] > 40);
    // Keys sharing match bits (aliases) share their home.
    uint64_t base = address_of(77, 4).match_base;
    CHECK(home_bucket(match_base(base | 5), nbuckets) == home_bucket(base, nbuckets));
    CHECK(buckets_for(1) == 1);
    CHECK(buckets_for(4) == 1);
    CHECK(buckets_for(5) == 2);
}

TEST_CASE("slot words: meta, loc and the offsets of slots and values", "[keytable]")
{
    uint64_t loc = make_loc(0x123456789aull, 0xabcdef);
    CHECK(loc_offset(loc) == 0x123456789aull);
    CHECK(loc_gen(loc) == 0xabcdef);

    uint64_t meta = uint64_t(0xabcdef) << meta_gen_shift | uint64_t(41) << meta_version_shift;
    meta |= meta_active | meta_locked;
    uint64_t next = meta_next_version(meta);
    CHECK((next & meta_locked) == 0);
    CHECK((next & meta_active) != 0);
    CHECK(meta_gen(next) == 0xabcdef);
    CHECK((next & meta_version_mask) >> meta_version_shift == 42);
    CHECK(names_entry(next, loc));
    CHECK_FALSE(names_entry(next & ~meta_active, loc));
    CHECK_FALSE(names_entry(next, make_loc(0x123456789aull, 0xabcdee)));  // a torn read of a changing slot
    // The version wraps inside its field without touching gen or the flags.
    uint64_t last = uint64_t(7) << meta_gen_shift | meta_version_mask | meta_active;
    uint64_t wrapped = meta_next_version(last);
    CHECK(meta_gen(wrapped) == 7);
    CHECK((wrapped & meta_version_mask) == 0);
    CHECK((wrapped & meta_active) != 0);

    CHECK(slot_offset_in_index(0) == 32);
    CHECK(slot_offset_in_index(6) == 32 + 6 * 32);
    CHECK(slot_offset_in_index(7) == 256 + 32);
    CHECK(meta_offset_in_index(8) == 256 + 64 + 8);
    for (size_t k = 1; k < 40; ++k) {
        CHECK(record_value_offset(k) % 8 == 0);
        CHECK(record_value_offset(k) >= sizeof(record_header) + k);
        CHECK(record_value_offset(k) < sizeof(record_header) + k + 8);
    }
}

TEST_CASE("an entry appended pending is invisible until activated", "[keytable]")
{
    partition p(8, 20);
    uint64_t base = address_of(1, 1).match_base, slot = 0;
    match_table::pending_entry pending;
    REQUIRE(p.table.append_pending("key", 3, fingerprint("key"), "value", 5, pending) == PGDDS_OK);
    CHECK_FALSE(p.find("key", base, slot));
    match_table::placement where;
    REQUIRE(p.table.activate(pending, base, where) == PGDDS_OK);
    std::string value;
    REQUIRE(p.find("key", base, slot, &value));
    CHECK(slot == where.slot);
    CHECK(value == "value");
    CHECK(p.table.live() == 1);
    // What a reader checks: meta and loc agree, match bits carry alias 0.
    const slot_words &w = p.table.slot(slot);
    CHECK(names_entry(w.meta, w.loc));
    CHECK(w.meta == where.meta);
    CHECK(w.loc == where.loc);
    CHECK(w.match_bits == base);
    CHECK(hint_value_len(w.hint) == 5);
    CHECK(hint_fingerprint(w.hint) == fingerprint("key"));
    CHECK(slot / slots_per_bucket == home_bucket(base, 8));
}

TEST_CASE("placement: the home bucket, then the next ones, recorded in the home's extent", "[keytable]")
{
    const uint64_t nbuckets = 16, home = 5;
    partition p(nbuckets, 40);
    std::vector<uint64_t> bases = bases_with_home(home, nbuckets, 10);
    std::vector<uint64_t> slots;
    for (size_t i = 0; i < bases.size(); ++i) {
        match_table::placement w;
        REQUIRE(p.insert("k" + std::to_string(i), "v", bases[i], &w) == PGDDS_OK);
        slots.push_back(w.slot);
    }
    for (size_t i = 0; i < slots_per_bucket; ++i) CHECK(slots[i] / slots_per_bucket == home);
    for (size_t i = slots_per_bucket; i < bases.size(); ++i) CHECK(slots[i] / slots_per_bucket == home + 1);
    CHECK(p.table.bucket(home).extent == 1);
    for (size_t i = 0; i < bases.size(); ++i) {
        uint64_t s;
        CHECK(p.find("k" + std::to_string(i), bases[i], s));
    }
    // Removing the entries beyond the home shrinks the extent back.
    for (size_t i = slots_per_bucket; i < bases.size(); ++i) p.remove(slots[i]);
    CHECK(p.table.bucket(home).extent == 0);
    // A freed home slot is taken first.
    p.remove(slots[2]);
    match_table::placement w;
    REQUIRE(p.insert("again", "v", bases[8], &w) == PGDDS_OK);
    CHECK(w.slot == slots[2]);
}

TEST_CASE("placement wraps around the end of the index", "[keytable]")
{
    const uint64_t nbuckets = 8, home = nbuckets - 1;
    partition p(nbuckets, 30);
    std::vector<uint64_t> bases = bases_with_home(home, nbuckets, slots_per_bucket + 2);
    match_table::placement w;
    for (size_t i = 0; i < bases.size(); ++i) REQUIRE(p.insert("k" + std::to_string(i), "v", bases[i], &w) == PGDDS_OK);
    CHECK(w.slot / slots_per_bucket == 0);
    CHECK(p.table.bucket(home).extent == 1);
    uint64_t s;
    CHECK(p.find("k8", bases[8], s));
    CHECK(s == w.slot);
}

TEST_CASE("aliases tell apart keys with equal match bits", "[keytable]")
{
    partition p(buckets_for(400), 400);
    const uint64_t base = address_of(99, 1).match_base;
    std::vector<match_table::placement> where(3);
    REQUIRE(p.insert("alpha", "1", base, &where[0]) == PGDDS_OK);
    REQUIRE(p.insert("beta", "2", base, &where[1]) == PGDDS_OK);
    REQUIRE(p.insert("gamma", "3", base, &where[2]) == PGDDS_OK);
    for (int i = 0; i < 3; ++i) CHECK(match_alias(p.table.slot(where[i].slot).match_bits) == unsigned(i));
    CHECK(p.insert("beta", "again", base) == PGDDS_ERR_EXISTS);
    std::string value;
    uint64_t s;
    REQUIRE(p.find("beta", base, s, &value));
    CHECK(value == "2");
    CHECK_FALSE(p.find("delta", base, s));

    // A freed alias is taken again; the others keep theirs.
    p.remove(where[1].slot);
    CHECK_FALSE(p.find("beta", base, s));
    match_table::placement w;
    REQUIRE(p.insert("delta", "4", base, &w) == PGDDS_OK);
    CHECK(match_alias(p.table.slot(w.slot).match_bits) == 1);
    REQUIRE(p.find("gamma", base, s, &value));
    CHECK(value == "3");

    // At most 2^alias_bits keys share match bits.
    for (unsigned i = 3; i < max_aliases; ++i) REQUIRE(p.insert("key" + std::to_string(i), "x", base) == PGDDS_OK);
    CHECK(p.insert("one too many", "x", base) == PGDDS_ERR_FULL);
    CHECK(p.insert("other bits", "x", address_of(100, 1).match_base) == PGDDS_OK);
}

TEST_CASE("capacity, and removal making room", "[keytable]")
{
    partition p(2, 5);
    std::vector<match_table::placement> where(5);
    for (int i = 0; i < 5; ++i)
        REQUIRE(p.insert("k" + std::to_string(i), "v", address_of(uint64_t(i), 1).match_base, &where[size_t(i)]) ==
                PGDDS_OK);
    CHECK(p.insert("k5", "v", address_of(5, 1).match_base) == PGDDS_ERR_FULL);
    CHECK(p.insert("k1", "v", address_of(1, 1).match_base) == PGDDS_ERR_EXISTS);  // present beats full
    const uint64_t records = p.allocator.live_blocks();
    CHECK(records == 5);
    // A removal takes the entry out with a new version, keeps the slot's gen, frees the record.
    uint64_t before = p.table.slot(where[3].slot).meta;
    p.remove(where[3].slot);
    uint64_t after = p.table.slot(where[3].slot).meta;
    CHECK((after & (meta_active | meta_locked)) == 0);
    CHECK(meta_gen(after) == meta_gen(before));
    CHECK((after & meta_version_mask) != (before & meta_version_mask));
    CHECK(p.allocator.live_blocks() == 4);
    CHECK(p.table.live() == 4);
    match_table::placement w;
    REQUIRE(p.insert("k5", "v", address_of(5, 1).match_base, &w) == PGDDS_OK);
    // A slot taken again carries a new gen, so readers tell its occupants apart.
    if (w.slot == where[3].slot) CHECK(meta_gen(w.meta) == meta_gen(before) + 1);
    p.table.release_all();
    CHECK(p.allocator.live_blocks() == 0);
    CHECK(p.table.live() == 0);
}

TEST_CASE("records carry a seal only while a slot names them, and a seal covers lengths, key and value",
          "[keytable]")
{
    partition p(4, 8);
    const uint64_t base = address_of(9, 1).match_base;
    match_table::pending_entry pending;
    REQUIRE(p.table.append_pending("key", 3, fingerprint("key"), "value", 5, pending) == PGDDS_OK);
    uint8_t *r = p.table.record(pending.record);
    CHECK_FALSE(record_sealed(r));  // pending: a stale reader that lands here must not accept it
    match_table::placement where;
    REQUIRE(p.table.activate(pending, base, where) == PGDDS_OK);
    CHECK(record_sealed(r));
    record_header h;
    memcpy(&h, r, sizeof h);
    CHECK(h.seal == record_seal(r));
    // A reader, who has compared the key, checks the seal against its own key's identity.
    CHECK(record_sealed(r, key_identity("key", 3)));
    CHECK_FALSE(record_sealed(r, key_identity("kez", 3)));
    // Any byte of the lengths, the key or the value changed: the seal no longer matches.
    for (size_t at : {size_t(0), size_t(4), sizeof h, sizeof h + 2, record_value_offset(3), record_value_offset(3) + 4}) {
        r[at] ^= 0x10;
        CHECK_FALSE(record_sealed(r));
        r[at] ^= 0x10;
        CHECK(record_sealed(r));
    }
    // A value changed in place (as an atomic does) is sealed again by its holder.
    r[record_value_offset(3)] = 'V';
    CHECK_FALSE(record_sealed(r));
    seal_record(r, true);
    CHECK(record_sealed(r));
    // Removal clears the seal before the record is freed.
    p.remove(where.slot);
    memcpy(&h, r, sizeof h);
    CHECK(h.seal == 0);
    CHECK_FALSE(record_sealed(r));
}

TEST_CASE("the entry cache keeps two keys that meet in one set, and replaces one of them for a third",
          "[keytable]")
{
    entry_cache cache(2);  // one set of two lines: every key meets there
    entry_ref a{1, 10, 100, 1000, 8}, b{1, 11, 101, 1001, 16}, c{2, 12, 102, 1002, 4}, out{};
    CHECK_FALSE(cache.find(1, 0xa, out));
    cache.store(0xa, a);
    cache.store(0xb, b);
    REQUIRE(cache.find(1, 0xa, out));
    CHECK((out.slot == 10 && out.meta == 100 && out.loc == 1000 && out.value_len == 8));
    REQUIRE(cache.find(1, 0xb, out));
    CHECK((out.slot == 11 && out.value_len == 16));
    CHECK_FALSE(cache.find(2, 0xa, out));  // the same tag on another owner is another key
    // A key stored again updates its own line, whichever it is.
    b.value_len = 24;
    cache.store(0xb, b);
    REQUIRE(cache.find(1, 0xb, out));
    CHECK(out.value_len == 24);
    REQUIRE(cache.find(1, 0xa, out));
    // A third key takes one of the two lines, never both.
    cache.store(0xc, c);
    REQUIRE(cache.find(2, 0xc, out));
    CHECK(out.slot == 12);
    entry_ref x;
    CHECK(int(cache.find(1, 0xa, x)) + int(cache.find(1, 0xb, x)) == 1);
    cache.forget(2, 0xc);
    CHECK_FALSE(cache.find(2, 0xc, out));
    cache.forget(2, 0xc);  // forgetting a key that is not there changes nothing
    CHECK(int(cache.find(1, 0xa, x)) + int(cache.find(1, 0xb, x)) == 1);
}
