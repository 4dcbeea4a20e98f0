// Collectives, built on active messages through the service VCI: a dissemination barrier,
// binomial-tree broadcast and reduction, ring allgather(-v), pairwise all-to-all(-v), on any team.
// Each team numbers its own calls; each step's message is matched by (team, sequence number,
// tag, source), so steps of consecutive collectives, or of collectives on other teams, never mix.
//
// Every message also carries the description of its sender's call (kind, operation, type, root,
// size), checked on receipt against the receiver's own: a rank that sees another call sends the
// reason to every rank, and every rank's call fails with it (PGDDS_ERR_INVALID_ARG). Each
// algorithm is arranged so that no rank completes before it has heard, directly or through
// ranks that checked, from every other rank, and so that no output is written before then: a
// call either completes alike everywhere or fails everywhere with outputs untouched.
//
// Ranks that all map each other's segments (the node team, the world team of a one-node job and
// teams split from them) meet in slots instead of messages: see "Slots" below.
#include "../base/bulk_copy.h"
#include "runtime.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace pgdds {

namespace {
// Messages of one step are at most this large; bigger collectives run in pieces.
constexpr size_t piece_bytes = size_t(1) << 24;

enum : uint8_t {
    coll_barrier = 1, coll_broadcast, coll_allreduce, coll_allgather, coll_reduce, coll_allgatherv, coll_alltoall,
    coll_alltoallv
};
// Header flags: the message is not a step but a notice, carrying the reason as its payload.
enum : uint8_t { coll_flag_abort = 1, coll_flag_poison = 2 };

struct coll_header {
    uint64_t seq;
    uint64_t tag;
    uint32_t team;
    uint8_t kind, op, dtype, flags;
    int32_t root, unused;
    uint64_t size, sig;
};
static_assert(sizeof(coll_header) == 48, "packed header");
// A step with no payload whose description ends in zeros (every barrier step) carries only the
// header up to root: 24 bytes, which keeps a barrier's packet within a 64-byte inject (ofi tcp).
constexpr size_t coll_prefix = offsetof(coll_header, root);
static_assert(coll_prefix == 24, "short header");

// Tags: piece of a large collective, phase (up or down a tree), step within the phase.
constexpr uint64_t tag_of(size_t piece, uint32_t phase, uint32_t step)
{
    return uint64_t(piece) << 32 | uint64_t(phase) << 30 | step;
}

template <class T> void reduce_typed(T *acc, const T *in, size_t count, pgdds_op_t op)
{
    switch (op) {
    case PGDDS_OP_SUM: for (size_t i = 0; i < count; ++i) acc[i] = T(acc[i] + in[i]); break;
    case PGDDS_OP_MIN: for (size_t i = 0; i < count; ++i) acc[i] = std::min(acc[i], in[i]); break;
    case PGDDS_OP_MAX: for (size_t i = 0; i < count; ++i) acc[i] = std::max(acc[i], in[i]); break;
    default:
        if constexpr (std::is_integral<T>::value) {
            for (size_t i = 0; i < count; ++i)
                acc[i] = op == PGDDS_OP_BAND ? T(acc[i] & in[i]) : op == PGDDS_OP_BOR ? T(acc[i] | in[i]) : T(acc[i] ^ in[i]);
        }
        break;
    }
}

void reduce_values(void *acc, const void *in, size_t count, pgdds_dtype_t dt, pgdds_op_t op)
{
    switch (dt) {
    case PGDDS_INT32: reduce_typed(static_cast<int32_t *>(acc), static_cast<const int32_t *>(in), count, op); break;
    case PGDDS_INT64: reduce_typed(static_cast<int64_t *>(acc), static_cast<const int64_t *>(in), count, op); break;
    case PGDDS_UINT32: reduce_typed(static_cast<uint32_t *>(acc), static_cast<const uint32_t *>(in), count, op); break;
    case PGDDS_UINT64: reduce_typed(static_cast<uint64_t *>(acc), static_cast<const uint64_t *>(in), count, op); break;
    case PGDDS_FLOAT: reduce_typed(static_cast<float *>(acc), static_cast<const float *>(in), count, op); break;
    case PGDDS_DOUBLE: reduce_typed(static_cast<double *>(acc), static_cast<const double *>(in), count, op); break;
    }
}
}  // namespace

size_t dtype_size(pgdds_dtype_t dt)
{
    switch (dt) {
    case PGDDS_INT32: case PGDDS_UINT32: case PGDDS_FLOAT: return 4;
    case PGDDS_INT64: case PGDDS_UINT64: case PGDDS_DOUBLE: return 8;
    }
    return 0;
}

namespace {
const char *dtype_name(unsigned dt)
{
    static const char *const names[] = {"int32", "int64", "uint32", "uint64", "float", "double"};
    return dt < 6 ? names[dt] : "?";
}
const char *op_name(unsigned op)
{
    static const char *const names[] = {"SUM", "MIN", "MAX", "BAND", "BOR", "BXOR"};
    return op < 6 ? names[op] : "?";
}

// "an allreduce of 4 int64 with SUM", as the message of a mismatch says it.
std::string describe(const runtime::coll_desc &d)
{
    char buf[160];
    switch (d.kind) {
    case coll_barrier: return "a barrier";
    case coll_broadcast:
        snprintf(buf, sizeof buf, "a broadcast of %llu bytes from root %d", (unsigned long long)d.size, int(d.root));
        return buf;
    case coll_allreduce:
        snprintf(buf, sizeof buf, "an allreduce of %llu %s with %s", (unsigned long long)d.size, dtype_name(d.dtype),
                 op_name(d.op));
        return buf;
    case coll_allgather:
        snprintf(buf, sizeof buf, "an allgather of %llu bytes per rank", (unsigned long long)d.size);
        return buf;
    case coll_reduce:
        snprintf(buf, sizeof buf, "a reduce of %llu %s with %s to root %d", (unsigned long long)d.size,
                 dtype_name(d.dtype), op_name(d.op), int(d.root));
        return buf;
    case coll_allgatherv:
        snprintf(buf, sizeof buf, "an allgather-v of %llu bytes in all (counts digest %016llx)",
                 (unsigned long long)d.size, (unsigned long long)d.sig);
        return buf;
    case coll_alltoall:
        snprintf(buf, sizeof buf, "an all-to-all of %llu bytes per pair", (unsigned long long)d.size);
        return buf;
    case coll_alltoallv: return "an all-to-all-v";
    }
    return "an unknown collective";
}
}  // namespace

status runtime::coll_begin(const char *who, team &t, const coll_desc &d, uint64_t &seq)
{
    if (coll_busy_.exchange(true, std::memory_order_acquire)) {
        // The two threads' calls may already be paired with different calls of other ranks:
        // no later collective of this context can be trusted.
        char why[200];
        snprintf(why, sizeof why, "two threads of rank %d called collectives on one context at the same time "
                 "(one thread per rank at a time); collectives on this context are disabled", rank());
        {
            std::lock_guard<std::mutex> guard(coll_lock_);
            if (coll_poison_.empty()) coll_poison_ = why;
            coll_poisoned_.store(true, std::memory_order_release);
        }
        coll_notify(who, 0, coll_flag_poison, why);
        return fail(PGDDS_ERR_STATE, "%s: %s", who, why);
    }
    {
        std::lock_guard<std::mutex> guard(coll_lock_);
        if (!coll_poison_.empty()) {
            std::string why = coll_poison_;
            coll_busy_.store(false, std::memory_order_release);
            return fail(PGDDS_ERR_STATE, "%s: %s", who, why.c_str());
        }
        coll_cur_ = d;
        coll_team_ = &t;
    }
    seq = ++t.seq;
    return PGDDS_OK;
}

void runtime::coll_end(uint64_t seq)
{
    {
        // What is left of this call (steps of a mismatched one) is dropped, now and on arrival.
        std::lock_guard<std::mutex> guard(coll_lock_);
        const uint32_t id = coll_team_->id;
        coll_done_[id] = seq;
        coll_inbox_.erase(coll_inbox_.lower_bound(coll_key(id, 0, 0, 0)), coll_inbox_.lower_bound(coll_key(id, seq + 1, 0, 0)));
        coll_aborts_.erase(coll_aborts_.lower_bound({id, 0}), coll_aborts_.upper_bound({id, seq}));
    }
    coll_busy_.store(false, std::memory_order_release);
}

void runtime::coll_deliver(int src, const void *payload, size_t size)
{
    coll_header h{};
    const size_t hn = size == coll_prefix ? coll_prefix : sizeof h;  // the short form has no payload
    if (size < hn) return;
    memcpy(&h, payload, hn);
    const uint8_t *data = static_cast<const uint8_t *>(payload) + hn;
    size_t n = size - hn;
    std::lock_guard<std::mutex> guard(coll_lock_);
    if (h.flags & coll_flag_poison) {
        if (coll_poison_.empty()) coll_poison_.assign(reinterpret_cast<const char *>(data), n);
        coll_poisoned_.store(true, std::memory_order_release);
        return;
    }
    auto done = coll_done_.find(h.team);
    if (done != coll_done_.end() && h.seq <= done->second) return;  // a step of a call that failed here already
    if (h.flags & coll_flag_abort) {
        coll_aborts_.emplace(std::make_pair(h.team, h.seq), std::string(reinterpret_cast<const char *>(data), n));
        return;
    }
    coll_msg &m = coll_inbox_[coll_key(h.team, h.seq, h.tag, src)];
    m.desc.kind = h.kind;
    m.desc.op = h.op;
    m.desc.dtype = h.dtype;
    m.desc.root = h.root;
    m.desc.size = h.size;
    m.desc.sig = h.sig;
    m.data.assign(data, data + n);
}

status runtime::coll_send(const char *who, int dst, uint64_t seq, uint64_t tag, const void *data, size_t n)
{
    return coll_post(who, coll_team_->members[size_t(dst)], coll_team_->id, seq, tag, data, n, 0);
}

status runtime::coll_post(const char *who, int dst, uint32_t team_id, uint64_t seq, uint64_t tag, const void *data,
                          size_t n, uint8_t flags)
{
    PGDDS_LOG(LOG_TRACE, "%s: collective %llu step %llu: %zu bytes to rank %d", who, (unsigned long long)seq,
              (unsigned long long)tag, n, dst);
    // A notice describes no call (and may come from a thread that is not in one).
    const coll_desc d = flags ? coll_desc{} : coll_cur_;
    coll_header h{seq, tag, team_id, d.kind, d.op, d.dtype, flags, d.root, 0, d.size, d.sig};
    const size_t hn = n == 0 && d.root == 0 && d.size == 0 && d.sig == 0 ? coll_prefix : sizeof h;
    // Barrier and small reduction steps are assembled on the stack: no allocation per step.
    uint8_t small[256];
    std::vector<uint8_t> large;
    uint8_t *msg = small;
    if (hn + n > sizeof small) {
        large.resize(hn + n);
        msg = large.data();
    }
    memcpy(msg, &h, hn);
    if (n) memcpy(msg + hn, data, n);
    return am_send(who, vci_at(service_vci()), dst, AM_COLLECTIVE, msg, hn + n);
}

void runtime::coll_notify(const char *who, uint64_t seq, uint8_t flags, const std::string &why)
{
    // a dead rank needs none
    if (flags & coll_flag_poison) {
        for (int r = 0; r < nranks(); ++r)
            if (r != rank()) coll_post(who, r, 0, seq, 0, why.data(), why.size(), flags);
        return;
    }
    for (int r : coll_team_->members)
        if (r != rank()) coll_post(who, r, coll_team_->id, seq, 0, why.data(), why.size(), flags);
}

status runtime::coll_fail(const char *who, uint64_t seq, const std::string &why)
{
    coll_notify(who, seq, coll_flag_abort, why);
    return fail(PGDDS_ERR_INVALID_ARG, "%s: %s", who, why.c_str());
}

status runtime::coll_recv(const char *who, int src, uint64_t seq, uint64_t tag, std::vector<uint8_t> &msg)
{
    const uint32_t id = coll_team_->id;
    const coll_key key(id, seq, tag, coll_team_->members[size_t(src)]);
    status verdict = PGDDS_OK;
    std::string why;
    bool found_here = false;  // this rank saw the mismatch: it tells the others
    auto decided = [&] {
        std::lock_guard<std::mutex> guard(coll_lock_);
        if (!coll_poison_.empty()) {
            verdict = PGDDS_ERR_STATE;
            why = coll_poison_;
            return true;
        }
        auto ab = coll_aborts_.find({id, seq});
        if (ab != coll_aborts_.end()) {
            verdict = PGDDS_ERR_INVALID_ARG;
            why = ab->second;
            return true;
        }
        // Every message of this call that arrived so far, whichever step it is for.
        for (auto it = coll_inbox_.lower_bound(coll_key(id, seq, 0, 0));
             it != coll_inbox_.end() && std::get<0>(it->first) == id && std::get<1>(it->first) == seq; ++it) {
            if (it->second.desc == coll_cur_) continue;
            verdict = PGDDS_ERR_INVALID_ARG;
            why = "collectives do not match: rank " + std::to_string(std::get<3>(it->first)) + " called " +
                  describe(it->second.desc) + " where rank " + std::to_string(rank()) + " called " +
                  describe(coll_cur_);
            found_here = true;
            return true;
        }
        auto it = coll_inbox_.find(key);
        if (it == coll_inbox_.end()) return false;
        msg = std::move(it->second.data);
        coll_inbox_.erase(it);
        return true;
    };
    status st = wait(who, vci_at(service_vci()), decided);
    if (st != PGDDS_OK) return st;
    if (verdict == PGDDS_OK) {
        PGDDS_LOG(LOG_TRACE, "%s: collective %llu step %llu: %zu bytes from rank %d", who, (unsigned long long)seq,
                  (unsigned long long)tag, msg.size(), std::get<3>(key));
        return PGDDS_OK;
    }
    if (found_here) return coll_fail(who, seq, why);
    return fail(verdict, "%s: %s", who, why.c_str());
}

namespace {
// --- Slots --------------------------------------------------------------------------------------
// Each rank has two slots per team in its segment: the world's and the node's in the header, a
// split team's in a block of its own (attach_slots). A rank arriving at a call writes its call's
// description and, when small, its data into its own slot, then marks the slot with the call's
// number; it reads every other rank's slot once marked. Any difference
// between the descriptions is seen by every rank, since some rank's differs from each one's own:
// every rank fails the call, outputs untouched, with no message. The slot of call s is written
// again at call s + 2, after every rank has arrived at call s + 1, which each did only once it
// had finished reading the slots of call s.
constexpr size_t slot_payload = 8192;
}  // namespace

struct alignas(64) coll_slot {
    std::atomic<uint64_t> arrived;  // the call whose description and payload these are: stored last
    std::atomic<uint64_t> done;     // the call whose writes into the other ranks' segments are done
    runtime::coll_desc desc;
    alignas(64) uint8_t payload[slot_payload];
};

namespace {
constexpr uint32_t slot_teams = 2;  // the world (id 0) and the node (id 1) have theirs in the header
constexpr unsigned split_slot_teams = 16;  // split teams with slots of their own, per rank
constexpr uint64_t no_offset = ~uint64_t(0);  // names no block of a segment
constexpr int slot_spins = 4096;     // looks at the marks before progressing (a few microseconds)
static_assert(segment_guard + slot_teams * 2 * sizeof(coll_slot) <= segment_reserved, "the slots fit the header");
}  // namespace

bool runtime::uses_slots(team &t)
{
    if (PGDDS_LIKELY(t.slots >= 0)) return t.slots;
    bool mapped = t.id < slot_teams;
    for (int r : t.members) mapped = mapped && peers_.peer_base(r);
    t.slots = mapped;
    return mapped;
}

// A team made by a split meets in slots when every one of its ranks maps every other's segment
// and has an area left: each allocates two slots in its own segment and the ranks exchange where.
// The areas are kept until pgdds_finalize, since a slower rank may still read a team's slots
// after this one destroyed it (pgdds_team_destroy is local).
status runtime::attach_slots(const char *who, team &t)
{
    bool mapped = split_slot_areas_ < split_slot_teams;
    for (int r : t.members) mapped = mapped && peers_.peer_base(r);
    uint64_t mine = no_offset;
    if (mapped && alloc_->alloc(2 * sizeof(coll_slot), alignof(coll_slot), mine) != PGDDS_OK) mine = no_offset;
    if (mine != no_offset) memset(seg_base_ + mine, 0, 2 * sizeof(coll_slot));  // no call marked yet
    t.slots = 0;  // the exchange goes by messages
    std::vector<uint64_t> all(size_t(t.size()));
    status st = allgather(who, t, &mine, all.data(), sizeof mine);
    if (st == PGDDS_OK && std::find(all.begin(), all.end(), no_offset) == all.end()) {
        t.slot_at = std::move(all);
        t.slots = 1;
        ++split_slot_areas_;
    } else if (mine != no_offset) {
        alloc_->free(mine);  // no rank uses it
    }
    return st;
}

coll_slot &runtime::slot_of(int team_rank, uint64_t seq) const
{
    const team &t = *coll_team_;
    const uint64_t at = t.slot_at.empty() ? segment_guard + t.id * 2 * sizeof(coll_slot) : t.slot_at[size_t(team_rank)];
    return reinterpret_cast<coll_slot *>(peers_.peer_base(t.members[size_t(team_rank)]) + at)[seq & 1];
}

void runtime::slots_arrive(const char *who, uint64_t seq, const void *payload, size_t n)
{
    coll_slot &mine = slot_of(coll_team_->me, seq);
    mine.desc = coll_cur_;
    if (n) bulk_copy(mine.payload, payload, n);
    mine.arrived.store(seq, std::memory_order_release);
    PGDDS_LOG(LOG_TRACE, "%s: collective %llu: slot marked with %zu bytes", who, (unsigned long long)seq, n);
}

status runtime::slots_wait(const char *who, uint64_t seq, std::atomic<uint64_t> coll_slot::*word)
{
    const int n = coll_team_->size();
    int next = 0;  // the ranks before it have marked theirs
    bool poisoned = false;
    auto marked = [&] {
        while (next < n && (slot_of(next, seq).*word).load(std::memory_order_acquire) == seq) ++next;
        // Collectives disabled elsewhere: a rank refused may never arrive.
        poisoned = next < n && coll_poisoned_.load(std::memory_order_acquire);
        return next == n || poisoned;
    };
    // A while on the marks alone first: a progress call between two looks would delay each
    // arrival seen by its length, which is most of a barrier's. Not where ranks share cores.
    if (!cores_oversubscribed())
        for (int spins = 0; spins < slot_spins && !marked(); ++spins) cpu_relax();
    if (marked()) return PGDDS_OK;
    status st = wait(who, vci_at(service_vci()), marked);
    if (st != PGDDS_OK || !poisoned) return st;
    std::string why;
    {
        std::lock_guard<std::mutex> guard(coll_lock_);
        why = coll_poison_;
    }
    return fail(PGDDS_ERR_STATE, "%s: %s", who, why.c_str());
}

status runtime::slots_check(const char *who, uint64_t seq)
{
    status st = slots_wait(who, seq, &coll_slot::arrived);
    if (st != PGDDS_OK) return st;
    for (int r = 0; r < coll_team_->size(); ++r) {
        const coll_desc &theirs = slot_of(r, seq).desc;
        if (theirs == coll_cur_) continue;
        return fail(PGDDS_ERR_INVALID_ARG, "%s: collectives do not match: rank %d called %s where rank %d called %s",
                    who, coll_team_->members[size_t(r)], describe(theirs).c_str(), rank(), describe(coll_cur_).c_str());
    }
    PGDDS_LOG(LOG_TRACE, "%s: collective %llu: every rank's slot read", who, (unsigned long long)seq);
    return PGDDS_OK;
}

namespace {
// Up the binomial tree rooted at rank 0 (the same tree whatever the call, so that calls that
// differ still meet): receives each child's message and hands it to take(child, msg), then
// sends what up() gives to the parent. Rank 0 ends having heard from every rank.
template <class Take, class Up>
status tree_up(runtime &rt, const char *who, uint64_t seq, uint64_t tag, Take take, Up up)
{
    std::vector<uint8_t> msg;
    const int me = rt.coll_team().me, n = rt.coll_team().size();
    for (int mask = 1; mask < n; mask <<= 1) {
        if (me & mask) {
            std::pair<const void *, size_t> out = up();
            return rt.coll_send(who, me - mask, seq, tag, out.first, out.second);
        }
        if (me + mask < n) {
            status st = rt.coll_recv(who, me + mask, seq, tag, msg);
            if (st != PGDDS_OK) return st;
            take(me + mask, msg);
        }
    }
    return PGDDS_OK;
}

// Down the same tree: rank 0 sends `data`, the others receive it into msg and pass it on.
status tree_down(runtime &rt, const char *who, uint64_t seq, uint64_t tag, const void *data, size_t n_bytes,
                 std::vector<uint8_t> &msg)
{
    const int me = rt.coll_team().me, n = rt.coll_team().size();
    int mask = 1;
    while (mask < n) {
        if (me & mask) {
            status st = rt.coll_recv(who, me - mask, seq, tag, msg);
            if (st != PGDDS_OK) return st;
            data = msg.data();
            n_bytes = msg.size();
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < n) {
            status st = rt.coll_send(who, me + mask, seq, tag, data, n_bytes);
            if (st != PGDDS_OK) return st;
        }
    return PGDDS_OK;
}
}  // namespace

namespace {
// FNV-1a over an array of counts: ranks that pass different counts call different collectives.
uint64_t digest(const size_t *counts, int n)
{
    uint64_t h = 14695981039346656037ull;
    for (int i = 0; i < n; ++i) {
        uint64_t c = counts[i];
        for (int b = 0; b < 8; ++b, c >>= 8) h = (h ^ (c & 0xff)) * 1099511628211ull;
    }
    return h;
}
// A block of c bytes travels in this many messages (at least one, so that an empty block still
// carries its sender's call description).
size_t pieces_of(size_t c) { return c == 0 ? 1 : (c + piece_bytes - 1) / piece_bytes; }
}  // namespace

// Dissemination: after step k a rank has heard, through others, from 2^k ranks before it.
status runtime::barrier(const char *who, team &t)
{
    coll_desc d;
    d.kind = coll_barrier;
    uint64_t seq;
    status st = coll_begin(who, t, d, seq);  // first: a disabled context must not wait in the flush
    if (st != PGDDS_OK) return st;
    st = flush_all(who);
    if (uses_slots(t)) {
        slots_arrive(who, seq, nullptr, 0);
        fault_here(fault_point::barrier);
        status met = slots_check(who, seq);
        if (st == PGDDS_OK) st = met;
        coll_end(seq);
        std::atomic_thread_fence(std::memory_order_seq_cst);
        return st;
    }
    std::vector<uint8_t> msg;
    const int me = t.me, n = t.size();
    for (int k = 1, step = 0; k < n && st == PGDDS_OK; k <<= 1, ++step) {
        st = coll_send(who, (me + k) % n, seq, tag_of(0, 0, uint32_t(step)), nullptr, 0);
        fault_here(fault_point::barrier);
        if (st == PGDDS_OK) st = coll_recv(who, (me - k + n) % n, seq, tag_of(0, 0, uint32_t(step)), msg);
    }
    coll_end(seq);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return st;
}

// The root's data goes up the tree rooted at team rank 0 with every rank's call description
// (the ranks on the root's path carry it), then down from rank 0: a rank receives it only once
// rank 0 has checked every rank's call.
status runtime::broadcast(const char *who, team &t, void *buf, size_t n, int root)
{
    coll_desc d;
    d.kind = coll_broadcast;
    d.root = root;
    d.size = n;
    uint64_t seq;
    status st = coll_begin(who, t, d, seq);
    if (st != PGDDS_OK) return st;
    uint8_t *base = static_cast<uint8_t *>(buf);
    if (uses_slots(t) && n <= slot_payload) {
        st = slots_meet(who, seq, base, t.me == root ? n : 0);
        if (st == PGDDS_OK && t.me != root && n) bulk_copy(base, slot_of(root, seq).payload, n);
        coll_end(seq);
        return st;
    }
    if (uses_slots(t)) st = slots_meet(who, seq, nullptr, 0);
    std::vector<uint8_t> carried, msg;
    size_t piece = 0, off = 0;
    while (st == PGDDS_OK) {
        size_t len = std::min(piece_bytes, n - off);
        const void *mine = t.me == root ? base + off : nullptr;  // the piece, if this rank has it
        st = tree_up(*this, who, seq, tag_of(piece, 0, 0),
                     [&](int, std::vector<uint8_t> &m) {
                         if (!m.empty()) mine = (carried = std::move(m)).data();
                     },
                     [&] { return std::make_pair(mine, mine ? len : size_t(0)); });
        if (st == PGDDS_OK) st = tree_down(*this, who, seq, tag_of(piece, 1, 0), mine, len, msg);
        if (st != PGDDS_OK) break;
        if (t.me != root && len) memcpy(base + off, t.me == 0 ? mine : msg.data(), len);
        off += len;
        ++piece;
        if (off >= n) break;
    }
    coll_end(seq);
    return st;
}

// A binomial reduction to team rank 0, then the result goes back down the same tree (so that
// every rank, the root of a reduce included, has heard from every other). Partial results
// build up apart from `out`, which receives the result only.
status runtime::reduce(const char *who, team &t, const void *in, void *out, size_t count, pgdds_dtype_t dt,
                       pgdds_op_t op, int root)
{
    coll_desc d;
    d.kind = root < 0 ? coll_allreduce : coll_reduce;
    d.op = uint8_t(op);
    d.dtype = uint8_t(dt);
    d.root = root < 0 ? 0 : root;
    d.size = count;
    uint64_t seq;
    status st = coll_begin(who, t, d, seq);
    if (st != PGDDS_OK) return st;
    size_t es = dtype_size(dt);
    const bool receives = root < 0 || t.me == root;
    if (uses_slots(t) && count <= slot_payload / es) {
        // Every rank that receives reduces the inputs in team rank order: the same result on each.
        st = slots_meet(who, seq, in, count * es);
        if (st == PGDDS_OK && receives && count) {
            memcpy(out, slot_of(0, seq).payload, count * es);
            for (int r = 1; r < t.size(); ++r) reduce_values(out, slot_of(r, seq).payload, count, dt, op);
        }
        coll_end(seq);
        return st;
    }
    if (uses_slots(t)) st = slots_meet(who, seq, nullptr, 0);
    size_t per_piece = piece_bytes / es;
    std::vector<uint8_t> acc, msg;
    size_t piece = 0;
    for (size_t first = 0; st == PGDDS_OK && (first < count || (count == 0 && first == 0)); first += per_piece, ++piece) {
        size_t cnt = std::min(per_piece, count - first);
        const uint8_t *src = static_cast<const uint8_t *>(in) + first * es;
        acc.assign(src, src + cnt * es);
        st = tree_up(*this, who, seq, tag_of(piece, 0, 0),
                     [&](int, std::vector<uint8_t> &m) {
                         if (m.size() == acc.size()) reduce_values(acc.data(), m.data(), cnt, dt, op);  // it is: the calls agree
                     },
                     [&] { return std::make_pair(static_cast<const void *>(acc.data()), acc.size()); });
        if (st == PGDDS_OK) st = tree_down(*this, who, seq, tag_of(piece, 1, 0), acc.data(), acc.size(), msg);
        if (st != PGDDS_OK) break;
        if (cnt && receives) memcpy(static_cast<uint8_t *>(out) + first * es, t.me == 0 ? acc.data() : msg.data(), cnt * es);
        if (count == 0) break;
    }
    coll_end(seq);
    return st;
}

status runtime::allgather(const char *who, team &t, const void *in, void *out, size_t bytes)
{
    std::vector<size_t> counts(size_t(t.size()), bytes);
    coll_desc d;
    d.kind = coll_allgather;
    d.size = bytes;
    uint64_t seq;
    status st = coll_begin(who, t, d, seq);
    if (st != PGDDS_OK) return st;
    st = gather(who, seq, in, out, counts.data(), nullptr);
    coll_end(seq);
    return st;
}

status runtime::allgatherv(const char *who, team &t, const void *in, void *out, const size_t *counts,
                           const size_t *displs)
{
    coll_desc d;
    d.kind = coll_allgatherv;
    for (int r = 0; r < t.size(); ++r) d.size += counts[r];
    d.sig = digest(counts, t.size());
    uint64_t seq;
    status st = coll_begin(who, t, d, seq);
    if (st != PGDDS_OK) return st;
    st = gather(who, seq, in, out, counts, displs);
    coll_end(seq);
    return st;
}

// Through the slots when every block fits one, else around the ring.
status runtime::gather(const char *who, uint64_t seq, const void *in, void *out, const size_t *counts,
                       const size_t *displs)
{
    team &t = *coll_team_;
    if (!uses_slots(t)) return gather_ring(who, seq, in, out, counts, displs);
    if (*std::max_element(counts, counts + t.size()) > slot_payload) {
        status st = slots_meet(who, seq, nullptr, 0);
        return st == PGDDS_OK ? gather_ring(who, seq, in, out, counts, displs) : st;
    }
    status st = slots_meet(who, seq, in, counts[t.me]);
    if (st != PGDDS_OK) return st;
    size_t at = 0;
    for (int r = 0; r < t.size(); ++r) {
        if (counts[r]) bulk_copy(static_cast<uint8_t *>(out) + (displs ? displs[r] : at), slot_of(r, seq).payload, counts[r]);
        at += counts[r];
    }
    return PGDDS_OK;
}

// A ring: step s passes on the block received at step s - 1, so a rank's last block has passed
// every other rank's check. Blocks gather apart from `out`, which receives them at the end.
status runtime::gather_ring(const char *who, uint64_t seq, const void *in, void *out, const size_t *counts,
                            const size_t *displs)
{
    const team &t = *coll_team_;
    const int me = t.me, n = t.size();
    std::vector<size_t> at(size_t(n) + 1, 0);  // where each block lies in `all`
    for (int r = 0; r < n; ++r) at[size_t(r) + 1] = at[size_t(r)] + counts[r];
    std::vector<uint8_t> all(at[size_t(n)]), msg;
    if (counts[me]) memcpy(all.data() + at[size_t(me)], in, counts[me]);
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    status st = PGDDS_OK;
    for (int step = 0; step < n - 1 && st == PGDDS_OK; ++step) {
        const size_t send_block = size_t((me - step + n) % n), recv_block = size_t((me - step - 1 + n) % n);
        const size_t send_n = at[send_block + 1] - at[send_block], recv_n = at[recv_block + 1] - at[recv_block];
        for (size_t piece = 0; piece < std::max(pieces_of(send_n), pieces_of(recv_n)) && st == PGDDS_OK; ++piece) {
            const uint64_t tag = tag_of(piece, 0, uint32_t(step));
            const size_t off = piece * piece_bytes;
            if (piece < pieces_of(send_n))
                st = coll_send(who, right, seq, tag, all.data() + at[send_block] + off,
                               std::min(piece_bytes, send_n - std::min(off, send_n)));
            if (st != PGDDS_OK || piece >= pieces_of(recv_n)) continue;
            st = coll_recv(who, left, seq, tag, msg);
            if (st == PGDDS_OK && !msg.empty() && msg.size() == std::min(piece_bytes, recv_n - off))  // the calls agree
                memcpy(all.data() + at[recv_block] + off, msg.data(), msg.size());
        }
    }
    if (st != PGDDS_OK) return st;
    for (int r = 0; r < n; ++r)
        if (counts[r])
            memcpy(static_cast<uint8_t *>(out) + (displs ? displs[r] : at[size_t(r)]), all.data() + at[size_t(r)],
                   counts[r]);
    return PGDDS_OK;
}

namespace {
// Per pair, the size from which an all-to-all into symmetric memory goes by one-sided puts: below
// it the pairwise messages cost less than the agreement round the puts need first.
constexpr size_t direct_alltoall_min = 2048;
}  // namespace

status runtime::alltoall(const char *who, team &t, const void *in, void *out, size_t bytes)
{
    coll_desc d;
    d.kind = coll_alltoall;
    d.size = bytes;
    uint64_t seq;
    status st = coll_begin(who, t, d, seq);
    if (st != PGDDS_OK) return st;
    if (uses_slots(t)) {
        st = slots_alltoall(who, seq, in, out, bytes);
        coll_end(seq);
        return st;
    }
    uint64_t at = no_offset;
    if (bytes >= direct_alltoall_min && t.size() > 1) st = agree_symmetric(who, seq, in, out, bytes * t.size(), at);
    if (st == PGDDS_OK && at != no_offset) {
        st = alltoall_puts(who, seq, in, out, bytes, at);
    } else if (st == PGDDS_OK) {
        std::vector<size_t> counts(size_t(t.size()), bytes);
        st = exchange(who, seq, in, counts.data(), nullptr, out, counts.data(), nullptr);
    }
    coll_end(seq);
    return st;
}

// The offset of `out` (out_bytes) in this rank's segment if it lies there apart from `in`
// (in_bytes), as memory of pgdds_alloc_all or OpenSHMEM's symmetric heap does; else no_offset.
uint64_t runtime::segment_offset_of(const void *in, size_t in_bytes, const void *out, size_t out_bytes) const
{
    const uint8_t *o = static_cast<const uint8_t *>(out), *i = static_cast<const uint8_t *>(in);
    const bool mine = o >= seg_base_ + segment_reserved && o <= seg_base_ + seg_size_ &&
                      out_bytes <= size_t(seg_base_ + seg_size_ - o) && (i + in_bytes <= o || o + out_bytes <= i);
    return mine ? uint64_t(o - seg_base_) : no_offset;
}

// Whether every rank's `out` (total bytes) is the same block of its own segment, apart from its
// `in`: at gets the block's offset then, else no_offset. A round up and down the tree, which
// also checks every rank's call before any rank writes to another's memory.
status runtime::agree_symmetric(const char *who, uint64_t seq, const void *in, const void *out, size_t total,
                                uint64_t &at)
{
    const uint64_t mine = segment_offset_of(in, total, out, total);
    // The least and the greatest offset of any rank; a rank without one widens them to everything.
    uint64_t range[2] = {mine == no_offset ? 0 : mine, mine};
    status st = tree_up(*this, who, seq, tag_of(0, 2, 0),
                        [&](int, std::vector<uint8_t> &m) {
                            uint64_t theirs[2];
                            if (m.size() != sizeof theirs) return;  // a mismatched call, reported by coll_recv
                            memcpy(theirs, m.data(), sizeof theirs);
                            range[0] = std::min(range[0], theirs[0]);
                            range[1] = std::max(range[1], theirs[1]);
                        },
                        [&] { return std::make_pair(static_cast<const void *>(range), sizeof range); });
    std::vector<uint8_t> msg;
    if (st == PGDDS_OK) st = tree_down(*this, who, seq, tag_of(0, 3, 0), range, sizeof range, msg);
    if (st != PGDDS_OK) return st;
    if (coll_team_->me != 0) {
        if (msg.size() != sizeof range) return coll_fail(who, seq, "a collective's agreement message is malformed");
        memcpy(range, msg.data(), sizeof range);
    }
    at = range[0] == range[1] ? range[0] : no_offset;
    return PGDDS_OK;
}

// Each block put straight into its rank's `out` at offset `at` of its segment, then a flush and
// a dissemination round: a rank ends the call once every rank's puts have completed.
status runtime::alltoall_puts(const char *who, uint64_t seq, const void *in, void *out, size_t bytes, uint64_t at)
{
    const team &t = *coll_team_;
    const int me = t.me, n = t.size();
    const uint8_t *src = static_cast<const uint8_t *>(in);
    vci &v = vci_at(service_vci());
    memcpy(static_cast<uint8_t *>(out) + size_t(me) * bytes, src + size_t(me) * bytes, bytes);
    status st = PGDDS_OK;
    for (int s = 1; s < n && st == PGDDS_OK; ++s) {
        const int to = (me + s) % n;
        const pgdds_gptr_t dst = gptr::make(t.members[size_t(to)], 0, at + uint64_t(me) * bytes);
        if (uint8_t *p = direct(dst)) memcpy(p, src + size_t(to) * bytes, bytes);
        else st = net_put(who, v, dst, src + size_t(to) * bytes, bytes, nullptr);
    }
    if (st == PGDDS_OK) st = flush(who, v);
    std::vector<uint8_t> msg;
    for (int k = 1, step = 0; k < n && st == PGDDS_OK; k <<= 1, ++step) {
        st = coll_send(who, (me + k) % n, seq, tag_of(0, 1, uint32_t(step)), nullptr, 0);
        if (st == PGDDS_OK) st = coll_recv(who, (me - k + n) % n, seq, tag_of(0, 1, uint32_t(step)), msg);
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return st;
}

// On a team that meets in slots: blocks that fit a slot together go through it, each rank taking
// its block from every slot; larger ones go by slots_exchange.
status runtime::slots_alltoall(const char *who, uint64_t seq, const void *in, void *out, size_t bytes)
{
    const team &t = *coll_team_;
    const int me = t.me, n = t.size();
    if (bytes > slot_payload / size_t(n)) {
        std::vector<size_t> counts(size_t(n), bytes);
        return slots_exchange(who, seq, in, counts.data(), nullptr, out, counts.data(), nullptr);
    }
    status st = slots_meet(who, seq, in, bytes * size_t(n));
    if (st != PGDDS_OK) return st;
    for (int r = 0; r < n; ++r)
        if (bytes) memcpy(static_cast<uint8_t *>(out) + size_t(r) * bytes, slot_of(r, seq).payload + size_t(me) * bytes, bytes);
    return PGDDS_OK;
}

// An all-to-all(-v) on a team that meets in slots. Each rank publishes where its output lies in
// its segment (if it does, apart from its input), its send and receive counts and its receive
// displacements; every rank checks the whole matrix of counts before any rank writes, so a
// mismatch fails everywhere alike. Then, where every output lies in its segment, each block is
// copied straight into its receiver's output and the ranks wait for each other's `done` mark;
// otherwise (or on a team too large for the slot) the blocks go by messages.
status runtime::slots_exchange(const char *who, uint64_t seq, const void *in, const size_t *send_counts,
                               const size_t *send_displs, void *out, const size_t *recv_counts,
                               const size_t *recv_displs)
{
    const team &t = *coll_team_;
    const int me = t.me, n = t.size();
    const size_t words = 1 + 3 * size_t(n);  // output offset, send counts, receive counts, receive displacements
    if (words * sizeof(uint64_t) > slot_payload) {
        status st = slots_meet(who, seq, nullptr, 0);
        return st == PGDDS_OK ? exchange(who, seq, in, send_counts, send_displs, out, recv_counts, recv_displs) : st;
    }
    std::vector<uint64_t> mine(words);
    std::vector<size_t> sat(static_cast<size_t>(n));
    size_t in_end = 0, out_end = 0, packed_in = 0, packed_out = 0;
    for (int r = 0; r < n; ++r) {
        sat[size_t(r)] = send_displs ? send_displs[r] : packed_in;
        const size_t rat = recv_displs ? recv_displs[r] : packed_out;
        packed_in += send_counts[r];
        packed_out += recv_counts[r];
        in_end = std::max(in_end, sat[size_t(r)] + send_counts[r]);
        out_end = std::max(out_end, rat + recv_counts[r]);
        mine[1 + size_t(r)] = send_counts[r];
        mine[1 + size_t(n + r)] = recv_counts[r];
        mine[1 + size_t(2 * n + r)] = rat;
    }
    mine[0] = segment_offset_of(in, in_end, out, out_end);
    status st = slots_meet(who, seq, mine.data(), words * sizeof(uint64_t));
    if (st != PGDDS_OK) return st;
    auto words_of = [&](int r) { return reinterpret_cast<const uint64_t *>(slot_of(r, seq).payload); };
    bool direct = true;
    for (int i = 0; i < n; ++i) {
        const uint64_t *wi = words_of(i);
        direct = direct && wi[0] != no_offset;
        for (int j = 0; j < n; ++j) {
            const uint64_t sends = wi[1 + j], expects = words_of(j)[1 + n + i];
            if (sends != expects)
                return fail(PGDDS_ERR_INVALID_ARG, "%s: all-to-all counts do not match: rank %d sends %llu bytes to "
                            "rank %d, which expects %llu", who, t.members[size_t(i)], (unsigned long long)sends,
                            t.members[size_t(j)], (unsigned long long)expects);
        }
    }
    if (!direct) return exchange(who, seq, in, send_counts, send_displs, out, recv_counts, recv_displs);
    const uint8_t *src = static_cast<const uint8_t *>(in);
    for (int s = 0; s < n; ++s) {
        const int to = (me + s) % n;
        const uint64_t *wt = words_of(to);
        if (send_counts[to])
            memcpy(peers_.peer_base(t.members[size_t(to)]) + wt[0] + wt[1 + 2 * n + me], src + sat[size_t(to)],
                   send_counts[to]);
    }
    slot_of(me, seq).done.store(seq, std::memory_order_release);
    return slots_wait(who, seq, &coll_slot::done);
}

status runtime::alltoallv(const char *who, team &t, const void *in, const size_t *send_counts,
                          const size_t *send_displs, void *out, const size_t *recv_counts, const size_t *recv_displs)
{
    coll_desc d;
    d.kind = coll_alltoallv;
    uint64_t seq;
    status st = coll_begin(who, t, d, seq);
    if (st != PGDDS_OK) return st;
    if (uses_slots(t)) st = slots_exchange(who, seq, in, send_counts, send_displs, out, recv_counts, recv_displs);
    else st = exchange(who, seq, in, send_counts, send_displs, out, recv_counts, recv_displs);
    coll_end(seq);
    return st;
}

// Pairwise: at step s a rank sends to the rank s after it and receives from the rank s before.
// The first message of each pair says how many bytes the sender sends, checked against what the
// receiver expects. A dissemination round closes the call, so that no rank writes its output
// before every rank has checked what it received.
status runtime::exchange(const char *who, uint64_t seq, const void *in, const size_t *send_counts,
                         const size_t *send_displs, void *out, const size_t *recv_counts, const size_t *recv_displs)
{
    const team &t = *coll_team_;
    const int me = t.me, n = t.size();
    auto packed = [n](const size_t *counts, const size_t *displs) {
        std::vector<size_t> at(size_t(n), 0);
        for (int r = 0; r < n; ++r) at[size_t(r)] = displs ? displs[r] : r ? at[size_t(r) - 1] + counts[r - 1] : 0;
        return at;
    };
    const std::vector<size_t> sat = packed(send_counts, send_displs), rat = packed(recv_counts, recv_displs);
    size_t recv_total = 0;
    for (int r = 0; r < n; ++r) recv_total += recv_counts[r];
    std::vector<uint8_t> got(recv_total), msg, buf;  // got: blocks packed in rank order
    std::vector<size_t> got_at(size_t(n), 0);
    for (int r = 1; r < n; ++r) got_at[size_t(r)] = got_at[size_t(r) - 1] + recv_counts[r - 1];
    const uint8_t *src = static_cast<const uint8_t *>(in);
    if (recv_counts[me] != send_counts[me]) {
        char why[160];
        snprintf(why, sizeof why, "all-to-all counts do not match: rank %d sends %zu bytes to itself but expects %zu",
                 rank(), send_counts[me], recv_counts[me]);
        return coll_fail(who, seq, why);
    }
    if (recv_counts[me]) memcpy(got.data() + got_at[size_t(me)], src + sat[size_t(me)], recv_counts[me]);
    status st = PGDDS_OK;
    for (int s = 1; s < n && st == PGDDS_OK; ++s) {
        const int to = (me + s) % n, from = (me - s + n) % n;
        const size_t send_n = send_counts[to], recv_n = recv_counts[from];
        for (size_t piece = 0; piece < pieces_of(send_n) && st == PGDDS_OK; ++piece) {
            const size_t off = piece * piece_bytes, len = std::min(piece_bytes, send_n - std::min(off, send_n));
            buf.resize(piece ? len : sizeof(uint64_t) + len);
            uint8_t *p = buf.data();
            if (!piece) {
                uint64_t total = send_n;
                memcpy(p, &total, sizeof total);
                p += sizeof total;
            }
            if (len) memcpy(p, src + sat[size_t(to)] + off, len);
            st = coll_send(who, to, seq, tag_of(piece, 0, uint32_t(s)), buf.data(), buf.size());
        }
        for (size_t piece = 0; piece < pieces_of(recv_n) && st == PGDDS_OK; ++piece) {
            const size_t off = piece * piece_bytes, len = std::min(piece_bytes, recv_n - std::min(off, recv_n));
            st = coll_recv(who, from, seq, tag_of(piece, 0, uint32_t(s)), msg);
            if (st != PGDDS_OK) break;
            const uint8_t *p = msg.data();
            if (!piece) {
                uint64_t total = 0;
                if (msg.size() >= sizeof total) memcpy(&total, p, sizeof total);
                if (msg.size() < sizeof total || total != recv_n) {
                    char why[200];
                    snprintf(why, sizeof why, "all-to-all counts do not match: rank %d sends %llu bytes to rank %d, "
                             "which expects %zu", t.members[size_t(from)], (unsigned long long)total, rank(), recv_n);
                    st = coll_fail(who, seq, why);
                    break;
                }
                p += sizeof total;
            }
            if (size_t(msg.data() + msg.size() - p) != len) {
                st = coll_fail(who, seq, "all-to-all messages do not match their counts");
                break;
            }
            if (len) memcpy(got.data() + got_at[size_t(from)] + off, p, len);
        }
    }
    for (int k = 1, step = 0; k < n && st == PGDDS_OK; k <<= 1, ++step) {
        st = coll_send(who, (me + k) % n, seq, tag_of(0, 1, uint32_t(step)), nullptr, 0);
        if (st == PGDDS_OK) st = coll_recv(who, (me - k + n) % n, seq, tag_of(0, 1, uint32_t(step)), msg);
    }
    if (st != PGDDS_OK) return st;
    for (int r = 0; r < n; ++r)
        if (recv_counts[r])
            memcpy(static_cast<uint8_t *>(out) + rat[size_t(r)], got.data() + got_at[size_t(r)], recv_counts[r]);
    return PGDDS_OK;
}

}  // namespace pgdds
