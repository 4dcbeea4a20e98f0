// The owner's side of a match-entry table: appending, activating and reclaiming entries.
#include "match_table.h"

#include <atomic>

namespace pgdds::keytable {

namespace {
void store_word(uint64_t &w, uint64_t v) { __atomic_store_n(&w, v, __ATOMIC_RELAXED); }

uint64_t seal_of(const uint8_t *r, uint64_t key_id)
{
    record_header h;
    memcpy(&h, r, sizeof h);
    uint64_t lengths = uint64_t(h.key_len) | uint64_t(h.value_len) << 32;
    uint64_t seal = XXH3_64bits_withSeed(r + record_value_offset(h.key_len), h.value_len, key_id ^ lengths);
    return seal ? seal : 1;
}

uint64_t seal_in(const uint8_t *r)
{
    uint64_t seal;
    memcpy(&seal, r + offsetof(record_header, seal), sizeof seal);
    return seal;
}

uint64_t identity_of_key_in(const uint8_t *r)
{
    record_header h;
    memcpy(&h, r, sizeof h);
    return key_identity(r + sizeof h, h.key_len);
}
}  // namespace

uint64_t record_seal(const uint8_t *r) { return seal_of(r, identity_of_key_in(r)); }

bool record_sealed(const uint8_t *r)
{
    const uint64_t seal = seal_in(r);
    return seal && seal == record_seal(r);
}

bool record_sealed(const uint8_t *r, uint64_t key_id)
{
    const uint64_t seal = seal_in(r);
    return seal && seal == seal_of(r, key_id);
}

void seal_record(uint8_t *r, bool sealed)
{
    store_word(*reinterpret_cast<uint64_t *>(r + offsetof(record_header, seal)), sealed ? record_seal(r) : 0);
}

void write_record(uint8_t *r, const void *key, size_t key_len, const void *value, size_t value_len, bool sealed)
{
    const size_t value_at = record_value_offset(key_len);
    record_header h{uint32_t(key_len), uint32_t(value_len), 0};
    memcpy(r, &h, sizeof h);
    memcpy(r + sizeof h, key, key_len);
    memset(r + sizeof h + key_len, 0, value_at - sizeof h - key_len);  // no stale bytes in a record
    if (value_len) memcpy(r + value_at, value, value_len);
    if (sealed) seal_record(r, true);
}

match_table::match_table(uint8_t *segment, uint64_t index_offset, uint64_t nbuckets, uint64_t capacity,
                         size_t max_value_size, record_allocator &records)
    : segment_(segment), index_(reinterpret_cast<bucket_words *>(segment + index_offset)), nbuckets_(nbuckets),
      capacity_(capacity), max_value_size_(max_value_size), records_(records)
{
}

status match_table::append_pending(const void *key, size_t key_len, uint32_t fingerprint, const void *value,
                                   size_t value_len, pending_entry &out)
{
    uint64_t offset;
    size_t value_at = record_value_offset(key_len);
    status st = records_.alloc(value_at + max_value_size_, offset);
    if (st != PGDDS_OK) return st;
    write_record(record(offset), key, key_len, value, value_len, false);  // sealed once a slot names it
    out = pending_entry{offset, key_len, value_len, fingerprint};
    return PGDDS_OK;
}

bool match_table::holds_key(const slot_words &s, const void *key, size_t key_len) const
{
    const uint8_t *r = record(loc_offset(s.loc));
    record_header h;
    memcpy(&h, r, sizeof h);
    return h.key_len == key_len && memcmp(r + sizeof h, key, key_len) == 0;
}

status match_table::activate(const pending_entry &p, uint64_t base, placement &out)
{
    const uint64_t home = home_bucket(base, nbuckets_);
    const uint64_t extent = load_word(bucket(home).extent);
    const void *key = record(p.record) + sizeof(record_header);

    // The keys that share these match bits, and the aliases they hold (§3.7). Keys of live
    // entries never change, so they can be compared without taking the entries.
    uint64_t aliases_used[max_aliases / 64] = {};
    bool exists = false;
    for_each_candidate([&](uint64_t, uint64_t b) -> const bucket_words & { return bucket(b); }, home, extent + 1,
                       nbuckets_, base, [&](uint64_t, const slot_words &s) {
                           if (hint_fingerprint(s.hint) == p.fingerprint && holds_key(s, key, p.key_len)) exists = true;
                           unsigned a = match_alias(s.match_bits);
                           aliases_used[a / 64] |= uint64_t(1) << (a % 64);
                       });
    if (exists) return fail(PGDDS_ERR_EXISTS, "the key is present");
    if (live_ >= capacity_)
        return fail(PGDDS_ERR_FULL, "the partition holds capacity_per_rank (%llu) entries",
                    (unsigned long long)capacity_);
    unsigned alias = 0;
    while (alias < max_aliases && (aliases_used[alias / 64] >> (alias % 64) & 1)) ++alias;
    if (alias == max_aliases)
        return fail(PGDDS_ERR_FULL, "%u keys of this partition already share the key's match bits (the alias "
                    "limit; a better-spread hash avoids it)", max_aliases);

    // The first free slot from the home bucket on. The capacity leaves 3 of every 7 slots free.
    for (uint64_t d = 0; d < nbuckets_; ++d) {
        uint64_t b = (home + d) % nbuckets_;
        for (size_t j = 0; j < slots_per_bucket; ++j) {
            slot_words &s = bucket(b).slot[j];
            uint64_t old = load_word(s.meta);
            if (old & meta_active) continue;
            // A reader must find the entry from its home before it can see it.
            if (d > extent) store_word(bucket(home).extent, d);
            uint64_t gen = (meta_gen(old) + 1) & gen_mask;
            uint64_t loc = make_loc(p.record, gen);
            store_word(s.match_bits, base | alias);
            store_word(s.loc, loc);
            store_word(s.hint, make_hint(p.fingerprint, p.value_len));
            uint64_t meta = (meta_next_version(old) & ~(gen_mask << meta_gen_shift)) | gen << meta_gen_shift;
            meta |= meta_active;
            __atomic_store_n(&s.meta, meta, __ATOMIC_RELEASE);
            seal_record(record(p.record), true);
            ++live_;
            out = placement{b * slots_per_bucket + j, meta, loc};
            return PGDDS_OK;
        }
    }
    return fail(PGDDS_ERR_FULL, "no free slot in the index");
}

void match_table::discard(const pending_entry &p) { records_.free(p.record); }

uint64_t match_table::farthest_from(uint64_t home) const
{
    uint64_t extent = load_word(bucket(home).extent), farthest = 0;
    for (uint64_t d = 1; d <= extent; ++d) {
        const bucket_words &bw = bucket((home + d) % nbuckets_);
        for (size_t j = 0; j < slots_per_bucket; ++j) {
            slot_words s = load_slot(bw.slot[j]);
            if ((s.meta & meta_active) && home_bucket(match_base(s.match_bits), nbuckets_) == home) farthest = d;
        }
    }
    return farthest;
}

void match_table::reclaim(uint64_t slot_number)
{
    slot_words &s = slot(slot_number);
    uint64_t meta = load_word(s.meta);
    uint64_t record_offset = loc_offset(load_word(s.loc));
    uint64_t home = home_bucket(match_base(load_word(s.match_bits)), nbuckets_);
    // Unsealed, then out of the index: from the second store on, no reader accepts what it reads
    // of the record, which may be written again as soon as it is freed.
    seal_record(record(record_offset), false);
    std::atomic_thread_fence(std::memory_order_release);
    __atomic_store_n(&s.meta, meta_next_version(meta) & ~meta_active, __ATOMIC_RELEASE);
    std::atomic_thread_fence(std::memory_order_release);
    records_.free(record_offset);
    --live_;
    uint64_t b = slot_number / slots_per_bucket;
    uint64_t distance = (b + nbuckets_ - home) % nbuckets_;
    if (distance && distance == load_word(bucket(home).extent)) store_word(bucket(home).extent, farthest_from(home));
}

void match_table::release_all()
{
    for (uint64_t s = 0; s < slot_count(); ++s) {
        slot_words &w = slot(s);
        if (!(load_word(w.meta) & meta_active)) continue;
        records_.free(loc_offset(load_word(w.loc)));
        store_word(w.meta, 0);
        --live_;
    }
}

}  // namespace pgdds::keytable
