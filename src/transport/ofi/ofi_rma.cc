#include "ofi_internal.h"

#include <algorithm>

namespace pgdds {

// ---------------------------------------------------------------------------------------------
// Put and get
// ---------------------------------------------------------------------------------------------
// The core checks every access before it calls; a range outside the peer's segment is still
// refused here, since some providers (shm) would reach whatever memory lies beyond it, and
// others (tcp;ofi_rxm) drop the connection.
status transport_ofi::out_of_segment(int rank, uint64_t offset, size_t n, const char *what) const
{
    const uint64_t size = peer_size_[rank];
    if (PGDDS_LIKELY(offset <= size && n <= size - offset)) return PGDDS_OK;
    return fail(PGDDS_ERR_OUT_OF_BOUNDS, "ofi: %s of %zu bytes at offset %llu lies outside rank %d's segment of %llu "
                "bytes", what, n, (unsigned long long)offset, rank, (unsigned long long)size);
}

status transport_ofi::put(unsigned vci, int rank, uint64_t offset, const void *src, size_t n, op_completion *done)
{
    endpoint &e = *eps_[vci];
    status st = out_of_segment(rank, offset, n, "put");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    if (n == 0) {
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    if (n <= inject_size_ && n <= max_transfer_ && !delivery_complete_puts_) {
        ssize_t rc = fi_inject_write(e.ep, src, n, peer_address(rank, vci), remote_address(rank, offset),
                                     remote_key(rank, vci));
        if (rc == -FI_EAGAIN) return PGDDS_ERR_AGAIN;
        if (rc) return op_failed(rc, "fi_inject_write", rank, n, vci);
        mark_dirty(e, rank, dirty_rma);
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    return start_rma(vci, true, rank, offset, static_cast<uint8_t *>(const_cast<void *>(src)), n, done);
}

status transport_ofi::get(unsigned vci, int rank, uint64_t offset, void *dst, size_t n, op_completion *done)
{
    status st = out_of_segment(rank, offset, n, "get");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    if (n == 0) {
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }
    return start_rma(vci, false, rank, offset, static_cast<uint8_t *>(dst), n, done);
}

// Issues a transfer in chunks of at most max_transfer_ bytes. Once the first chunk is issued the
// operation belongs to the backend: chunks without room wait in the backlog, and failures reach
// `done` (or the next flush), never the caller, who must not stop waiting for what is in flight.
status transport_ofi::start_rma(unsigned vci, bool write, int rank, uint64_t offset, uint8_t *local, size_t n,
                                op_completion *done)
{
    endpoint &e = *eps_[vci];
    const size_t chunks = (n - 1) / max_transfer_ + 1;
    rma_chunk c{write, false, rank, offset, local, std::min(n, max_transfer_), nullptr, nullptr, done};
    if (in_segment(local, n)) {
        c.desc = segment_descriptor(vci);
    } else if (local_mr_) {
        if (chunks == 1 && n <= e.slot_bytes) {
            c.bounce = true;
        } else {
            status st = register_local(local, n, vci, c.reg);
            if (st != PGDDS_OK) return st;
            c.reg->refs = chunks;
            c.desc = c.reg->desc;
        }
    }
    status st = issue_chunk(e, vci, c);
    if (st != PGDDS_OK) {
        if (c.reg) {
            c.reg->refs = 1;
            release_registration(c.reg);
        }
        return st;
    }
    if (chunks == 1) return PGDDS_OK;
    if (done) done->add(int(chunks - 1));
    for (size_t off = max_transfer_; off < n; off += max_transfer_) {
        rma_chunk next = c;
        next.offset = offset + off;
        next.local = local + off;
        next.len = std::min(max_transfer_, n - off);
        if (e.backlog.empty() && issue_chunk(e, vci, next) == PGDDS_OK) continue;
        e.backlog.push_back(next);
    }
    return PGDDS_OK;
}

status transport_ofi::issue_chunk(endpoint &e, unsigned vci, const rma_chunk &c)
{
    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    uint8_t *buf = c.local;
    void *desc = c.desc;
    if (c.bounce) {
        if (e.free_slots.empty()) {
            release_record(e, *rec);
            return PGDDS_ERR_AGAIN;
        }
        rec->slot = int(e.free_slots.back());
        e.free_slots.pop_back();
        buf = e.send_slot(size_t(rec->slot));
        desc = e.arena_desc;
        if (c.write) {
            memcpy(buf, c.local, c.len);
        } else {
            rec->result = c.local;
            rec->length = c.len;
        }
    }
    iovec iov{buf, c.len};
    fi_rma_iov riov{remote_address(c.rank, c.offset), c.len, remote_key(c.rank, vci)};
    fi_msg_rma msg{&iov, &desc, 1, peer_address(c.rank, vci), &riov, 1, &rec->context, 0};
    uint64_t flags = FI_COMPLETION;
    if (c.write && delivery_complete_puts_) flags |= FI_DELIVERY_COMPLETE;
    ssize_t rc = c.write ? fi_writemsg(e.ep, &msg, flags) : fi_readmsg(e.ep, &msg, flags);
    if (rc) {
        if (rec->slot >= 0) e.free_slots.push_back(uint32_t(rec->slot));
        release_record(e, *rec);
        return rc == -FI_EAGAIN ? PGDDS_ERR_AGAIN : op_failed(rc, c.write ? "fi_writemsg" : "fi_readmsg", c.rank, c.len, vci);
    }
    track(e, *rec, c.write ? op_kind::write : op_kind::read, c.rank, c.done);
    rec->reg = c.reg;
    if (c.write && !delivery_complete_puts_) mark_dirty(e, c.rank, dirty_rma);
    return PGDDS_OK;
}

// ---------------------------------------------------------------------------------------------
// Fence and flush
// ---------------------------------------------------------------------------------------------
// Operations already handed to an in-order provider are applied in that order: only those still
// waiting for room (the backlog) must go first.
status transport_ofi::fence(unsigned vci, op_completion *done)
{
    if (!ordered_) return flush(vci, done);
    if (status st = issue_backlog(*eps_[vci], vci); st != PGDDS_OK) return st;
    done->complete(PGDDS_OK);
    return PGDDS_OK;
}

// Hands the provider what waits in e's backlog; AGAIN while some of it still has no room.
status transport_ofi::issue_backlog(endpoint &e, unsigned vci)
{
    if (e.backlog.empty()) return PGDDS_OK;
    status st = drain_backlogs(e, vci);
    if (st != PGDDS_OK) return st;
    return e.backlog.empty() ? PGDDS_OK : PGDDS_ERR_AGAIN;
}

status transport_ofi::issue_probe(endpoint &e, unsigned vci, int rank, bool atomic)
{
    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    void *desc = e.arena_desc;
    // The first page of every segment is reserved and never changes: a harmless word to read.
    const fi_addr_t addr = peer_address(rank, vci);
    const uint64_t raddr = remote_address(rank, 0), key = remote_key(rank, vci);
    ssize_t rc = atomic ? fi_fetch_atomic(e.ep, &rec->scratch[0], 1, desc, &rec->scratch[2], desc, addr, raddr, key,
                                          FI_UINT64, FI_ATOMIC_READ, &rec->context)
                        : fi_read(e.ep, &rec->scratch[2], sizeof(uint64_t), desc, addr, raddr, key, &rec->context);
    if (rc) {
        release_record(e, *rec);
        return rc == -FI_EAGAIN ? PGDDS_ERR_AGAIN : op_failed(rc, "a flush read-back", rank, sizeof(uint64_t), vci);
    }
    track(e, *rec, op_kind::probe, rank, nullptr);
    return PGDDS_OK;
}

status transport_ofi::flush(unsigned vci, op_completion *done)
{
    endpoint &e = *eps_[vci];
    // Read-backs must follow every chunk of earlier transfers.
    if (status st = issue_backlog(e, vci); st != PGDDS_OK) return st;
    while (!e.dirty_ranks.empty()) {
        int r = e.dirty_ranks.back();
        for (uint8_t what : {dirty_rma, dirty_amo}) {
            if (!(e.dirty[r] & what)) continue;
            status st = issue_probe(e, vci, r, what == dirty_amo);
            if (st != PGDDS_OK) return st;
            e.dirty[r] &= uint8_t(~what);
        }
        e.dirty_ranks.pop_back();
    }
    e.flushes.push_back(done);
    complete_flushes(e);
    return PGDDS_OK;
}

void transport_ofi::complete_flushes(endpoint &e)
{
    if (e.flushes.empty() || e.outstanding || !e.backlog.empty()) return;
    status st = e.deferred.take();
    for (op_completion *d : e.flushes) d->complete(st);
    e.flushes.clear();
}

}  // namespace pgdds
