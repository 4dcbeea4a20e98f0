// The distributed blocked Bloom filter (BCL paper §5.4, thesis §6.2): 64-bit blocks spread
// block-wise over the ranks. A key hashes to one block and k bits in it (layout.h), so an insert
// is one fetch-or, atomic as a whole, whose old value says whether every bit was already set;
// contains is one read. The size comes from the false-positive rate of 64-bit blocks under a
// Poisson load (layout.h: bloom_size), not from the flat-filter formula.
#include "common.h"
#include "rpc.h"

#include <algorithm>
#include <cstring>

namespace pgdds::containers {
class bloom_filter;
}

struct pgdds_bloom {
    uint64_t magic;
    pgdds::containers::bloom_filter *impl;
};

namespace pgdds::containers {

constexpr uint64_t bloom_magic = 0x7067426c6f6full;  // "pgBloo"
constexpr size_t bloom_group = 16;                   // keys hashed and prefetched together

class bloom_filter : public container {
  public:
    static status create(runtime *rt, uint64_t expected_items, double rate, bloom_filter *&out);
    status destroy(const char *who);
    // With req (the _nb forms), a call that takes the operation returns a request that gives
    // its outcome and writes its outputs (container::outcome); misuse fails the call itself.
    status insert_many(const char *who, size_t count, const uint8_t *keys, size_t key_len, unsigned char *was_present,
                       pgdds_request_t *req = nullptr);
    status contains_many(const char *who, size_t count, const uint8_t *keys, size_t key_len,
                         unsigned char *maybe_present, pgdds_request_t *req = nullptr);
    uint64_t blocks() const { return part_blocks_ * uint64_t(rt->nranks()); }
    unsigned hashes() const { return hashes_; }
    // The protocol operation `op` (PGDDS_CONTAINER_OP_INSERT or _CONTAINS) takes towards rank's part.
    status op_protocol(const char *who, int rank, int op, int &out) const;
    // Applies a call's (block, mask) pairs to this rank's part (rpc.h).
    status serve(int src, uint32_t op, unsigned concurrent, const uint8_t *args, size_t len,
                 std::vector<uint8_t> &out) override;

  private:
    explicit bloom_filter(runtime *rt) : container(rt) {}
    bloom_place place(const uint8_t *key, size_t len) const { return place_bloom(hash_bytes(key, len), blocks(), hashes_); }
    template <class Mem> typename Mem::address block(uint64_t b) const
    {
        return Mem::offset(where_.at<Mem>(int(b / part_blocks_)), b % part_blocks_ * 8);
    }

    // Under RPC: each key's block and mask go to the block's owner, one call per owner called,
    // which answers one flag per key; the keys of parts reached by load/store are answered here
    // meanwhile. apply(memory, block address, mask) gives a key's flag.
    template <class Apply>
    status through_owners(const char *who, uint32_t op, size_t count, const uint8_t *keys, size_t key_len,
                          unsigned char *flags, Apply apply, pgdds_request_t *req);

    // Under RPC, read-only contains priced on their own (rpc.h, one_sided_groups): a single one
    // reads one-sidedly when contains_groups_ > 0, a batch of up to contains_many_groups_
    // groups of keys.
    bool contains_one_sided(size_t count) const;
    size_t contains_groups_ = 0, contains_many_groups_ = 0;
    uint64_t part_blocks_ = 0;
    unsigned hashes_ = 0;
    parts where_;
};

namespace {
// The calls an owner serves, and what each does to one block.
enum : uint32_t { call_insert = 1, call_contains };
struct block_mask {
    uint64_t block;  // within the owner's part
    uint64_t mask;
};
unsigned char bloom_insert_at(direct_memory &m, uint8_t *b, uint64_t mask)
{
    return (m.fetch_or64(b, mask) & mask) == mask;
}
unsigned char bloom_contains_at(direct_memory &m, uint8_t *b, uint64_t mask)
{
    return (m.read64(b) & mask) == mask;
}
}  // namespace

status bloom_filter::create(runtime *rt, uint64_t expected_items, double rate, bloom_filter *&out)
{
    const char *who = "pgdds_bloom_create";
    measure_protocol_costs(rt, who);  // collective, first of all
    status st = PGDDS_OK;
    bloom_geometry g{0, 0};
    if (!(rate > 0 && rate < 1))
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: the false-positive rate %g is not in (0, 1)", who, rate);
    else if ((g = bloom_size(expected_items, rate)).blocks == 0)
        st = fail(PGDDS_ERR_NO_MEMORY, "%s: no filter of 64-bit blocks reaches rate %g for %llu items", who, rate,
                  (unsigned long long)expected_items);
    uint64_t rate_bits;
    memcpy(&rate_bits, &rate, sizeof rate_bits);
    int protocol = PGDDS_PROTOCOL_RDMA;
    if (st == PGDDS_OK) st = choose_protocol(rt, who, priced_kind::bloom, PGDDS_PROTOCOL_AUTO, protocol);
    st = agree_arguments(rt, who, st, {expected_items, rate_bits, uint64_t(protocol)});
    if (st != PGDDS_OK) return st;
    std::unique_ptr<bloom_filter> b(new bloom_filter(rt));
    b->settle_protocol(protocol);
    if (protocol == PGDDS_PROTOCOL_RPC) {  // read-only contains, priced on their own
        b->contains_groups_ = one_sided_groups(rt, priced_kind::bloom, "contains");
        b->contains_many_groups_ = one_sided_groups(rt, priced_kind::bloom, "contains_many");
    }
    uint64_t nranks = uint64_t(rt->nranks());
    b->part_blocks_ = g.blocks / nranks + (g.blocks % nranks != 0);
    b->hashes_ = g.hashes;
    pgdds_gptr_t mine = PGDDS_GPTR_NULL;
    st = b->part_blocks_ > (uint64_t(1) << 56) ? fail(PGDDS_ERR_NO_MEMORY, "%s: too many blocks", who)
                                                : alloc_zeroed(rt, who, b->part_blocks_ * 8, cache_line, mine);
    st = agree(rt, who, st);
    if (st == PGDDS_OK) st = gather_parts(rt, who, mine, b->part_blocks_ * 8, b->where_);
    if (st == PGDDS_OK && protocol == PGDDS_PROTOCOL_RPC) {
        rpc_enroll(b.get());  // no call reaches a rank before it serves calls
        st = rt->barrier(who);
        if (st != PGDDS_OK) rpc_withdraw(b.get());
    }
    if (st != PGDDS_OK) {
        if (mine != PGDDS_GPTR_NULL) rt->allocator().free(gptr::offset(mine));
        return st;
    }
    out = b.release();
    return PGDDS_OK;
}

status bloom_filter::destroy(const char *who)
{
    status st = rpc_retire(this, who);
    rt->allocator().free(gptr::offset(where_.global[size_t(rt->rank())]));
    return st;
}

// One fetch-or per key (A); the old bits tell whether the key was there already.
status bloom_filter::insert_many(const char *who, size_t count, const uint8_t *keys, size_t key_len,
                                 unsigned char *was_present, pgdds_request_t *req)
{
    if (count && !keys && key_len) return fail(PGDDS_ERR_INVALID_ARG, "%s: keys is NULL", who);
    if (!via_rpc.empty())
        return through_owners(who, call_insert, count, keys, key_len, was_present, bloom_insert_at, req);
    return outcome(who, with_memory(who, false, [&](auto &m) -> status {
        using Mem = std::decay_t<decltype(m)>;
        bloom_place places[bloom_group];
        for (size_t i = 0; i < count; i += bloom_group) {
            size_t n = std::min(bloom_group, count - i);
            for (size_t j = 0; j < n; ++j) {
                places[j] = place(keys + (i + j) * key_len, key_len);
                m.prefetch(block<Mem>(places[j].block));
            }
            for (size_t j = 0; j < n; ++j) {
                uint64_t old = m.fetch_or64(block<Mem>(places[j].block), places[j].mask);
                if (was_present) was_present[i + j] = (old & places[j].mask) == places[j].mask;
            }
            if (m.failed()) return m.result();
        }
        return PGDDS_OK;
    }), req);
}

// One read per key (R); over the network a group's reads are in flight together.
status bloom_filter::contains_many(const char *who, size_t count, const uint8_t *keys, size_t key_len,
                                   unsigned char *maybe_present, pgdds_request_t *req)
{
    if (count && !keys && key_len) return fail(PGDDS_ERR_INVALID_ARG, "%s: keys is NULL", who);
    if (count && !maybe_present) return fail(PGDDS_ERR_INVALID_ARG, "%s: maybe_present is NULL", who);
    auto reads = [&](auto &m) -> status {
        using Mem = std::decay_t<decltype(m)>;
        bloom_place places[bloom_group];
        uint64_t words[bloom_group];
        for (size_t i = 0; i < count; i += bloom_group) {
            size_t n = std::min(bloom_group, count - i);
            // Network: several reads in flight, landed by one flush; a lone read is a blocking
            // get (a flush can cost a round trip of its own). Load/store: prefetch, then load.
            const bool overlap = !Mem::load_store && n > 1;
            for (size_t j = 0; j < n; ++j) {
                places[j] = place(keys + (i + j) * key_len, key_len);
                if constexpr (Mem::load_store) m.prefetch(block<Mem>(places[j].block));
                else if (overlap) m.get_nbi(&words[j], block<Mem>(places[j].block), sizeof words[j]);
            }
            if (overlap) m.flush();
            else
                for (size_t j = 0; j < n; ++j) words[j] = m.read64(block<Mem>(places[j].block));
            if (m.failed()) return m.result();
            for (size_t j = 0; j < n; ++j) maybe_present[i + j] = (words[j] & places[j].mask) == places[j].mask;
        }
        return PGDDS_OK;
    };
    if (via_rpc.empty()) return outcome(who, with_memory(who, false, reads), req);
    if (!contains_one_sided(count))
        return through_owners(who, call_contains, count, keys, key_len, maybe_present, bloom_contains_at, req);
    // Only reads (no atomic meets the owners' CPU atomics), priced below a call.
    fabric_memory m(rt);
    status st = reads(m);
    return outcome(who, m.failed() ? fail_prefix(m.result(), who) : st, req);
}

bool bloom_filter::contains_one_sided(size_t count) const
{
    return count == 1 ? contains_groups_ > 0 : count <= bloom_group * contains_many_groups_;
}

status bloom_filter::op_protocol(const char *who, int rank, int op, int &out) const
{
    if (rank < 0 || rank >= rt->nranks())
        return fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: rank %d is not in [0, %d)", who, rank, rt->nranks());
    out = protocol_to(rank);
    switch (op) {
    case PGDDS_CONTAINER_OP_INSERT: return PGDDS_OK;  // a fetch-or: the container's protocol
    case PGDDS_CONTAINER_OP_CONTAINS:
        if (out == PGDDS_PROTOCOL_RPC && contains_one_sided(1)) out = PGDDS_PROTOCOL_RDMA;
        return PGDDS_OK;
    default:
        return fail(PGDDS_ERR_INVALID_ARG, "%s: %d is not an operation of a Bloom filter (PGDDS_CONTAINER_OP_INSERT, "
                    "_CONTAINS)", who, op);
    }
}

template <class Apply>
status bloom_filter::through_owners(const char *who, uint32_t op, size_t count, const uint8_t *keys, size_t key_len,
                                    unsigned char *flags, Apply apply, pgdds_request_t *req)
{
    try {
        std::vector<std::vector<size_t>> picks(size_t(rt->nranks()));
        std::vector<rpc_call> calls;
        std::vector<size_t> call_of(picks.size(), SIZE_MAX);
        direct_memory m;
        for (size_t i = 0; i < count; ++i) {
            bloom_place p = place(keys + i * key_len, key_len);
            const size_t owner = size_t(p.block / part_blocks_);
            if (!calls_owner(int(owner))) {
                unsigned char f = apply(m, block<direct_memory>(p.block), p.mask);
                if (flags) flags[i] = f;
                continue;
            }
            if (call_of[owner] == SIZE_MAX) {
                call_of[owner] = calls.size();
                calls.emplace_back();
                calls.back().owner = int(owner);
            }
            block_mask bm{p.block % part_blocks_, p.mask};
            std::vector<uint8_t> &args = calls[call_of[owner]].args;
            args.insert(args.end(), reinterpret_cast<const uint8_t *>(&bm), reinterpret_cast<const uint8_t *>(&bm + 1));
            picks[owner].push_back(i);
        }
        auto settle = [who, flags, picks = std::move(picks)](std::vector<rpc_call> &done) {
            for (const rpc_call &c : done) {
                const std::vector<size_t> &ix = picks[size_t(c.owner)];
                if (c.reply.size() != ix.size())
                    return fail(PGDDS_ERR_TRANSPORT, "%s: rank %d replied with %zu bytes, not %zu", who, c.owner,
                                c.reply.size(), ix.size());
                for (size_t j = 0; flags && j < ix.size(); ++j) flags[ix[j]] = c.reply[j];
            }
            return PGDDS_OK;
        };
        return rpc_run(this, who, op, 0, calls, req, [] { return PGDDS_OK; }, std::move(settle));
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

status bloom_filter::serve(int src, uint32_t op, unsigned, const uint8_t *args, size_t len, std::vector<uint8_t> &out)
{
    const char *who = op == call_insert ? "pgdds_bloom_insert" : "pgdds_bloom_contains";
    if ((op != call_insert && op != call_contains) || len % sizeof(block_mask) != 0)
        return fail(PGDDS_ERR_INVALID_ARG, "Bloom filter: rank %d sent a malformed call (%u, %zu bytes)", src, op, len);
    const size_t n = len / sizeof(block_mask);
    direct_memory m;
    uint8_t *part = where_.local[size_t(rt->rank())];
    for (size_t i = 0; i < n; ++i) {
        block_mask bm;
        memcpy(&bm, args + i * sizeof bm, sizeof bm);
        if (bm.block >= part_blocks_)
            return fail(PGDDS_ERR_INVALID_ARG, "%s: rank %d sent block %llu of a part of %llu", who, src,
                        (unsigned long long)bm.block, (unsigned long long)part_blocks_);
        out.push_back(op == call_insert ? bloom_insert_at(m, part + bm.block * 8, bm.mask)
                                        : bloom_contains_at(m, part + bm.block * 8, bm.mask));
    }
    return PGDDS_OK;
}

}  // namespace pgdds::containers

// ---------------------------------------------------------------------------------------------
// C ABI
// ---------------------------------------------------------------------------------------------
using namespace pgdds;
using namespace pgdds::containers;

namespace {
status resolve_bloom(pgdds_bloom *h, const char *who, bloom_filter *&out)
{
    return resolve(h, bloom_magic, who, "Bloom filter", out);
}
}  // namespace

extern "C" {

PGDDS_API pgdds_status_t pgdds_bloom_create(pgdds_context_t ctx, uint64_t expected_items, double false_positive_rate,
                                            pgdds_bloom_t *bloom)
{
    const char *who = "pgdds_bloom_create";
    runtime *rt = runtime::from(ctx);
    if (!rt) return fail(ctx ? PGDDS_ERR_STATE : PGDDS_ERR_INVALID_ARG, "%s: the context is %s", who,
                         ctx ? "not live (finalized?)" : "NULL");
    if (!rt->thread_allowed()) return rt->check_thread(who);
    if (!bloom) return fail(PGDDS_ERR_INVALID_ARG, "%s: bloom is NULL", who);
    try {
        bloom_filter *impl = nullptr;
        status st = bloom_filter::create(rt, expected_items, false_positive_rate, impl);
        if (st != PGDDS_OK) return st;
        st = make_handle(bloom_magic, impl, *bloom);
        if (st != PGDDS_OK) delete impl;
        return st;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

PGDDS_API pgdds_status_t pgdds_bloom_destroy(pgdds_bloom_t bloom)
{
    const char *who = "pgdds_bloom_destroy";
    if (!bloom || bloom->magic != bloom_magic) return bad_handle(bloom, who, "Bloom filter");
    status st = runtime::from(bloom->impl->ctx) ? bloom->impl->destroy(who)
                                                : fail(PGDDS_ERR_STATE, "%s: the context was finalized first", who);
    kill_handle(bloom);
    return st;
}

PGDDS_API pgdds_status_t pgdds_bloom_insert(pgdds_bloom_t bloom, const void *key, size_t len, int *was_present)
{
    const char *who = "pgdds_bloom_insert";
    bloom_filter *b = nullptr;
    status st = resolve_bloom(bloom, who, b);
    if (st != PGDDS_OK) return st;
    if (!key && len) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    unsigned char present = 0;
    st = b->insert_many(who, 1, static_cast<const uint8_t *>(key), len, &present);
    if (st == PGDDS_OK && was_present) *was_present = present;
    return st;
}

PGDDS_API pgdds_status_t pgdds_bloom_contains(pgdds_bloom_t bloom, const void *key, size_t len, int *maybe_present)
{
    const char *who = "pgdds_bloom_contains";
    bloom_filter *b = nullptr;
    status st = resolve_bloom(bloom, who, b);
    if (st != PGDDS_OK) return st;
    if (!key && len) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    if (!maybe_present) return fail(PGDDS_ERR_INVALID_ARG, "%s: maybe_present is NULL", who);
    unsigned char present = 0;
    st = b->contains_many(who, 1, static_cast<const uint8_t *>(key), len, &present);
    if (st == PGDDS_OK) *maybe_present = present;
    return st;
}

PGDDS_API pgdds_status_t pgdds_bloom_protocol(pgdds_bloom_t bloom, int rank, int op, int *protocol)
{
    const char *who = "pgdds_bloom_protocol";
    bloom_filter *b = nullptr;
    status st = resolve_bloom(bloom, who, b);
    if (st != PGDDS_OK) return st;
    if (!protocol) return fail(PGDDS_ERR_INVALID_ARG, "%s: protocol is NULL", who);
    int p = 0;
    st = b->op_protocol(who, rank, op, p);
    if (st == PGDDS_OK) *protocol = p;
    return st;
}

PGDDS_API pgdds_status_t pgdds_bloom_insert_many(pgdds_bloom_t bloom, size_t count, const void *keys, size_t key_len,
                                                 unsigned char *was_present)
{
    const char *who = "pgdds_bloom_insert_many";
    bloom_filter *b = nullptr;
    status st = resolve_bloom(bloom, who, b);
    return st != PGDDS_OK ? st : b->insert_many(who, count, static_cast<const uint8_t *>(keys), key_len, was_present);
}

PGDDS_API pgdds_status_t pgdds_bloom_contains_many(pgdds_bloom_t bloom, size_t count, const void *keys,
                                                   size_t key_len, unsigned char *maybe_present)
{
    const char *who = "pgdds_bloom_contains_many";
    bloom_filter *b = nullptr;
    status st = resolve_bloom(bloom, who, b);
    return st != PGDDS_OK ? st
                          : b->contains_many(who, count, static_cast<const uint8_t *>(keys), key_len, maybe_present);
}

PGDDS_API pgdds_status_t pgdds_bloom_insert_many_nb(pgdds_bloom_t bloom, size_t count, const void *keys,
                                                    size_t key_len, unsigned char *was_present, pgdds_request_t *req)
{
    const char *who = "pgdds_bloom_insert_many_nb";
    bloom_filter *b = nullptr;
    status st = resolve_nb(bloom, bloom_magic, who, "Bloom filter", req, b);
    return st != PGDDS_OK ? st
                          : b->insert_many(who, count, static_cast<const uint8_t *>(keys), key_len, was_present, req);
}

PGDDS_API pgdds_status_t pgdds_bloom_contains_many_nb(pgdds_bloom_t bloom, size_t count, const void *keys,
                                                      size_t key_len, unsigned char *maybe_present,
                                                      pgdds_request_t *req)
{
    const char *who = "pgdds_bloom_contains_many_nb";
    bloom_filter *b = nullptr;
    status st = resolve_nb(bloom, bloom_magic, who, "Bloom filter", req, b);
    return st != PGDDS_OK ? st
                          : b->contains_many(who, count, static_cast<const uint8_t *>(keys), key_len, maybe_present,
                                             req);
}

PGDDS_API pgdds_status_t pgdds_bloom_geometry(pgdds_bloom_t bloom, uint64_t *blocks, unsigned *hashes)
{
    const char *who = "pgdds_bloom_geometry";
    bloom_filter *b = nullptr;
    status st = resolve_bloom(bloom, who, b);
    if (st != PGDDS_OK) return st;
    if (!blocks || !hashes) return fail(PGDDS_ERR_INVALID_ARG, "%s: %s is NULL", who, blocks ? "hashes" : "blocks");
    *blocks = b->blocks();
    *hashes = b->hashes();
    return PGDDS_OK;
}

}  // extern "C"
