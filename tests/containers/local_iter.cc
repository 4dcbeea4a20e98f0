// Walking a hash map's local part: pgdds_hashmap_local_next in C and map.local() in C++.
// Every rank inserts at once; each walk then sees exactly its rank's entries, each once. A walk
// that overlaps inserts from every rank sees every entry that was there before it exactly once
// and each new one at most once, whole; bad cursors and arguments fail with a message.
#include "../cpp_check.h"

#include <pgdds/hash_map.hpp>

#include <cstdint>
#include <map>

namespace {

constexpr uint64_t per_rank = 300;
constexpr uint64_t second_base = uint64_t(1) << 40;  // keys inserted during the walk

uint64_t value_of(uint64_t key) { return key * 3 + 1; }

using map_t = pgdds::hash_map<uint64_t, uint64_t>;

// Every rank's batch of keys from base, with the rank that owns each.
std::map<uint64_t, int> owned(const map_t &m, int nranks, uint64_t base)
{
    std::map<uint64_t, int> keys;
    for (int r = 0; r < nranks; ++r)
        for (uint64_t i = 0; i < per_rank; ++i) {
            uint64_t k = base + uint64_t(r) * per_rank + i + 1;
            int owner = 0;
            CHECK(pgdds_hashmap_owner(m.handle(), &k, &owner) == PGDDS_OK);
            keys[k] = owner;
        }
    return keys;
}

void insert_batch(const map_t &m, int me, uint64_t base)
{
    for (uint64_t i = 0; i < per_rank; ++i) {
        uint64_t k = base + uint64_t(me) * per_rank + i + 1;
        m.insert(k, value_of(k));
    }
}

void test_bad_input(const map_t &m)
{
    uint64_t cursor = 0, k = 0, v = 0;
    CHECK(pgdds_hashmap_local_next(m.handle(), nullptr, &k, &v) == PGDDS_ERR_INVALID_ARG);
    CHECK(std::strlen(pgdds_last_error()) > 0);
    CHECK(pgdds_hashmap_local_next(m.handle(), &cursor, nullptr, &v) == PGDDS_ERR_INVALID_ARG);
    CHECK(pgdds_hashmap_local_next(m.handle(), &cursor, &k, nullptr) == PGDDS_ERR_INVALID_ARG);
    CHECK(pgdds_hashmap_local_next(nullptr, &cursor, &k, &v) == PGDDS_ERR_INVALID_ARG);
    cursor = UINT64_MAX;
    CHECK(pgdds_hashmap_local_next(m.handle(), &cursor, &k, &v) == PGDDS_ERR_INVALID_ARG);
    CHECK(std::strstr(pgdds_last_error(), "cursor") != nullptr);
    CHECK(cursor == UINT64_MAX);
    // The end stays the end.
    cursor = 0;
    pgdds_status_t st;
    while ((st = pgdds_hashmap_local_next(m.handle(), &cursor, &k, &v)) == PGDDS_OK) {
    }
    CHECK(st == PGDDS_ERR_NOT_FOUND);
    CHECK(pgdds_hashmap_local_next(m.handle(), &cursor, &k, &v) == PGDDS_ERR_NOT_FOUND);
}

void run(pgdds::context &ctx)
{
    const int me = ctx.rank(), n = ctx.nranks();
    map_t m(ctx, uint64_t(n) * per_rank * 4);
    test_bad_input(m);  // empty: the walk ends at once
    uint64_t cursor = 0, k = 0, v = 0;
    CHECK(pgdds_hashmap_local_next(m.handle(), &cursor, &k, &v) == PGDDS_ERR_NOT_FOUND);
    ctx.barrier();  // every rank has walked its empty part

    // Phase 1: every rank inserts at once.
    insert_batch(m, me, 0);
    ctx.barrier();
    std::map<uint64_t, int> first = owned(m, n, 0), second = owned(m, n, second_base);
    uint64_t mine_first = 0, mine_second = 0;
    for (auto &[key, owner] : first) mine_first += owner == me;
    for (auto &[key, owner] : second) mine_second += owner == me;

    // The C walk: exactly this rank's entries, each once, whole.
    std::map<uint64_t, int> seen;
    cursor = 0;
    while (pgdds_hashmap_local_next(m.handle(), &cursor, &k, &v) == PGDDS_OK) {
        CHECK(first.count(k) && first[k] == me);
        CHECK(v == value_of(k));
        ++seen[k];
    }
    CHECK(seen.size() == mine_first);
    for (auto &[key, times] : seen) CHECK(times == 1);
    CHECK(ctx.sum(int64_t(seen.size())) == int64_t(n) * int64_t(per_rank));

    // The C++ range sees the same.
    uint64_t count = 0;
    for (auto &&[key, value] : m.local()) {
        CHECK(seen.count(key) == 1);
        CHECK(value == value_of(key));
        ++count;
    }
    CHECK(count == mine_first);
    ctx.barrier();

    // Phase 2: each rank walks its part while every rank inserts a second batch, one insert
    // after each step of the walk.
    std::map<uint64_t, int> during;
    uint64_t next = 0;
    cursor = 0;
    auto insert_one = [&] {
        if (next < per_rank) {
            uint64_t key = second_base + uint64_t(me) * per_rank + ++next;
            m.insert(key, value_of(key));
        }
    };
    while (pgdds_hashmap_local_next(m.handle(), &cursor, &k, &v) == PGDDS_OK) {
        CHECK(v == value_of(k));
        CHECK((first.count(k) && first[k] == me) || (second.count(k) && second[k] == me));
        ++during[k];
        insert_one();
    }
    while (next < per_rank) insert_one();
    uint64_t old_seen = 0;
    for (auto &[key, times] : during) {
        CHECK(times == 1);
        old_seen += first.count(key);
    }
    CHECK(old_seen == mine_first);  // every entry there before the walk, exactly once
    ctx.barrier();

    // Afterwards the walk sees both batches exactly.
    count = 0;
    for (auto &&[key, value] : m.local()) {
        CHECK(value == value_of(key));
        CHECK((first.count(key) && first[key] == me) || (second.count(key) && second[key] == me));
        ++count;
    }
    CHECK(count == mine_first + mine_second);
    CHECK(ctx.sum(int64_t(count)) == 2 * int64_t(n) * int64_t(per_rank));
    CHECK(m.size() == 2 * uint64_t(n) * per_rank);
    ctx.barrier();
}

}  // namespace

int main() { return cpp_test_main("containers/local_iter", run); }
