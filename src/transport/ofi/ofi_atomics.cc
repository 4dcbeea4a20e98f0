#include "ofi_internal.h"

#include "../../base/amo.h"

namespace pgdds {

// ---------------------------------------------------------------------------------------------
// Atomics
// ---------------------------------------------------------------------------------------------
// Only when the provider has every operation we use (validate_atomics); else the core serves
// atomics in software and never calls this.
status transport_ofi::amo(unsigned vci, int rank, uint64_t offset, const amo_args &args, op_completion *done)
{
    if ((args.width != 4 && args.width != 8) || args.op < AMO_ADD || args.op >= AMO_COUNT)
        return fail(PGDDS_ERR_INVALID_ARG, "ofi: atomic %d of width %u is not supported", int(args.op), args.width);
    if (emulated_atomics_)
        return fail(PGDDS_ERR_UNSUPPORTED, "ofi: %s does not serve atomics here (%s)", name_.c_str(),
                    atomics_note_.c_str());
    status st = out_of_segment(rank, offset, args.width, "atomic");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    endpoint &e = *eps_[vci];
    static const fi_op ops[AMO_COUNT] = {FI_SUM, FI_BAND, FI_BOR, FI_BXOR, FI_ATOMIC_WRITE, FI_CSWAP, FI_ATOMIC_READ};
    const fi_datatype dt = args.width == 4 ? FI_UINT32 : FI_UINT64;
    const fi_op op = ops[args.op];
    const bool fetching = args.result || args.op == AMO_CSWAP || args.op == AMO_LOAD;
    const fi_addr_t addr = peer_address(rank, vci);
    const uint64_t raddr = remote_address(rank, offset), key = remote_key(rank, vci);
    const uint32_t operand32 = uint32_t(args.operand), compare32 = uint32_t(args.compare);
    const void *operand = args.width == 4 ? static_cast<const void *>(&operand32) : &args.operand;

    if (!fetching && !delivery_complete_amos_) {
        ssize_t rc = fi_inject_atomic(e.ep, operand, 1, addr, raddr, key, dt, op);
        if (rc == -FI_EAGAIN) return PGDDS_ERR_AGAIN;
        if (rc) return op_failed(rc, "fi_inject_atomic", rank, args.width, vci);
        mark_dirty(e, rank, dirty_amo);
        if (done) done->complete(PGDDS_OK);
        return PGDDS_OK;
    }

    op_record *rec = take_record(e);
    if (!rec) return PGDDS_ERR_AGAIN;
    memcpy(&rec->scratch[0], operand, args.width);
    memcpy(&rec->scratch[1], args.width == 4 ? static_cast<const void *>(&compare32) : &args.compare, args.width);
    void *desc = e.arena_desc;
    fi_ioc ioc{&rec->scratch[0], 1}, compare{&rec->scratch[1], 1}, result{&rec->scratch[2], 1};
    fi_rma_ioc rioc{raddr, 1, key};
    fi_msg_atomic msg{&ioc, &desc, 1, addr, &rioc, 1, dt, op, &rec->context, 0};
    // A non-fetching atomic comes this way only to be delivery-complete.
    uint64_t flags = FI_COMPLETION | (fetching ? 0 : FI_DELIVERY_COMPLETE);
    ssize_t rc = args.op == AMO_CSWAP ? fi_compare_atomicmsg(e.ep, &msg, &compare, &desc, 1, &result, &desc, 1, flags)
               : fetching             ? fi_fetch_atomicmsg(e.ep, &msg, &result, &desc, 1, flags)
                                      : fi_atomicmsg(e.ep, &msg, flags);
    if (rc) {
        release_record(e, *rec);
        return rc == -FI_EAGAIN ? PGDDS_ERR_AGAIN : op_failed(rc, "an atomic", rank, args.width, vci);
    }
    track(e, *rec, fetching ? op_kind::fetch : op_kind::atomic, rank, done);
    rec->result = args.result;
    rec->length = args.width;
    return PGDDS_OK;
}

}  // namespace pgdds
