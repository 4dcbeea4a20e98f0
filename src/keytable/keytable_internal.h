// What the two sides of the distributed key table share (keytable_client.cc: addressing, the
// one-sided protocols, the readers' cache, requests to owners; keytable_owner.cc: creation, the
// owner's active messages, inserts and removals, owner-computes iteration): the wire format of
// the owner's messages, one-sided access to the partitions, the frame of a retried attempt.
#pragma once

#include "keytable.h"

#include "../containers/substrate.h"

#include <vector>

namespace pgdds::keytable {

// Active messages: a header, then the body of its kind.
enum : uint32_t { msg_insert = 1, msg_remove = 2, msg_reply = 3, msg_put = 4, msg_atomic = 5, msg_take = 6 };
struct msg_header {
    uint32_t kind;
    uint32_t table;
    uint64_t request;
};
struct insert_body {  // followed by the key and the value
    uint64_t match_base;
    uint64_t key_len;
    uint64_t value_len;
};
struct remove_body {  // the remover holds the entry: its meta is locked_meta
    uint64_t slot;
    uint64_t locked_meta;
};
struct held_body {  // put, atomic, take (remove) under RPC: followed by the key and the value
    uint64_t match_base;
    uint64_t key_len;
    uint64_t value_len;
    uint64_t value_offset;
    uint64_t operand;
    uint32_t op;
    uint32_t unused;
};
struct reply_body {  // followed by the owner's explanation of a failure
    int32_t result;
    uint32_t message_len;
    uint64_t word;  // an atomic's fetched value
    // The entry a put or an atomic held, as the owner released it, for the caller's entry cache
    // (held_meta 0: none): a get of the key after a call then reads the record straight away.
    uint64_t held_slot, held_meta, held_loc, held_value_len;
};

// The entry this thread is visiting in foreach_local (it holds it).
struct visit_mark {
    const table *t = nullptr;
    uint64_t slot = 0;
};

// A handler that reads or writes records runs inside some other operation of its thread, whose
// record or buckets may be in the scratch space (a read may even be landing there): the
// handler gets space of its own while it lives (keytable_client.cc, where the space is).
class scratch_aside {
  public:
    scratch_aside();
    ~scratch_aside();
    scratch_aside(const scratch_aside &) = delete;
    scratch_aside &operator=(const scratch_aside &) = delete;

  private:
    uint8_t *at_;
    std::vector<uint8_t> record_;
    std::vector<bucket_words> run_;
};

// ---------------------------------------------------------------------------------------------
// One-sided access to rank segments, by (rank, offset): the core's dispatch between load/store
// and the transport (core/access.h). Atomics always in the job's atomicity domain.
// ---------------------------------------------------------------------------------------------
class segment_access : public access::session {
  public:
    // own_cpu_atomics: this rank's part takes CPU atomics (table::owner_cpu_atomics_).
    segment_access(runtime &rt, vci &v, const char *who, bool own_cpu_atomics)
        : access::session(rt, v, who), own_rank_(own_cpu_atomics ? rt.rank() : -1)
    {
    }

    // Complete on return; a read issued after another sees memory at least as recent.
    status read(int rank, uint64_t offset, void *dst, size_t n) { return session::read(at(rank, offset), dst, n); }
    status read_word(int rank, uint64_t offset, uint64_t &out) { return session::read_word(at(rank, offset), out); }
    // Visible to other ranks after commit(); src must stay valid until then.
    status write(int rank, uint64_t offset, const void *src, size_t n) { return session::write(at(rank, offset), src, n); }
    status atomic(int rank, uint64_t offset, amo_op op, uint64_t operand, uint64_t compare, uint64_t *result)
    {
        if (rank == own_rank_) return own_atomic64(at(rank, offset), op, operand, compare, result);
        return atomic64(at(rank, offset), op, operand, compare, result);
    }

  private:
    static pgdds_gptr_t at(int rank, uint64_t offset) { return gptr::make(rank, 0, offset); }
    int own_rank_;  // the rank whose atomics are CPU atomics, or -1
};

template <class Attempt> status table::retry_until_settled(runtime &rt, vci &v, const char *who, Attempt attempt)
{
    status st = PGDDS_OK;
    status wst = rt.wait(who, v, [&] {
        bool settled = true;
        st = attempt(settled);
        return settled;
    });
    return wst != PGDDS_OK ? wst : st;
}

}  // namespace pgdds::keytable
