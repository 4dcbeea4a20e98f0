// Atomic operations on one word: their names and arguments, and the one implementation of what
// each does to a word, for every path that computes it itself:
//  - amo_next: the value an operation leaves in a word, given the old value. The step of every
//    compare-and-swap loop (UCX's fetching bitwise atomics, verbs' lanes, the core's MIN, MAX
//    and floating-point ADD).
//  - cpu_amo: the operation executed on memory with CPU atomics, returning the old value (the
//    shm transport, the core's software atomics served at the target, the core's and the key table's
//    direct paths).
// Header-only and inline: both sit on hot paths.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace pgdds {

// Atomic operations. The first five equal pgdds_aop_t. Transports carry the first AMO_COUNT;
// MIN and MAX exist only as amo_next's arithmetic, for the core's compare-and-swap loops.
enum amo_op : int {
    AMO_ADD = 0, AMO_AND, AMO_OR, AMO_XOR, AMO_SWAP, AMO_CSWAP, AMO_LOAD,
    AMO_COUNT,
    AMO_MIN = AMO_COUNT, AMO_MAX,
};
const char *amo_op_name(amo_op op);

struct amo_args {
    amo_op op;
    unsigned width;       // 4 or 8 bytes
    uint64_t operand;     // CSWAP: the desired value
    uint64_t compare;     // CSWAP only
    void *result;         // old value (width bytes), or nullptr for a non-fetching operation
};

// The value a word of type T (unsigned, signed or floating point) holds after op, given its old
// value. Integer ADD wraps, signed too; MIN and MAX compare as T; CSWAP installs operand where the
// word equals compare bit for bit; LOAD, and a bitwise operation on a floating-point word (no
// such operation exists), leave the word as it is.
template <class T> inline T amo_next(amo_op op, T old, T operand, T compare = T())
{
    static_assert(std::is_arithmetic<T>::value, "a word holds a number");
    if constexpr (std::is_integral<T>::value) {
        using U = std::make_unsigned_t<T>;
        switch (op) {
        case AMO_ADD: return T(U(old) + U(operand));
        case AMO_AND: return T(old & operand);
        case AMO_OR: return T(old | operand);
        case AMO_XOR: return T(old ^ operand);
        default: break;
        }
    } else if (op == AMO_ADD) {
        return old + operand;
    }
    switch (op) {
    case AMO_SWAP: return operand;
    case AMO_CSWAP: return memcmp(&old, &compare, sizeof old) == 0 ? operand : old;
    case AMO_MIN: return operand < old ? operand : old;
    case AMO_MAX: return operand > old ? operand : old;
    default: return old;
    }
}

// amo_next on an unsigned word of `width` bytes (4 or 8) held in the low bits of a uint64_t, as
// the transports pass operands; a 4-byte result has its upper bits 0.
inline uint64_t amo_next_word(amo_op op, unsigned width, uint64_t old, uint64_t operand, uint64_t compare = 0)
{
    if (width == 4) return amo_next<uint32_t>(op, uint32_t(old), uint32_t(operand), uint32_t(compare));
    return amo_next<uint64_t>(op, old, operand, compare);
}

// Executes a transport operation (ADD ... LOAD) on the word at `target` with sequentially
// consistent CPU atomics, so that it is atomic with every other CPU atomic on the word; the old
// value goes to a.result when that is set.
template <class T> inline void cpu_amo_typed(T *p, const amo_args &a)
{
    T operand = T(a.operand), old;
    switch (a.op) {
    case AMO_ADD: old = __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST); break;
    case AMO_AND: old = __atomic_fetch_and(p, operand, __ATOMIC_SEQ_CST); break;
    case AMO_OR: old = __atomic_fetch_or(p, operand, __ATOMIC_SEQ_CST); break;
    case AMO_XOR: old = __atomic_fetch_xor(p, operand, __ATOMIC_SEQ_CST); break;
    case AMO_SWAP: old = __atomic_exchange_n(p, operand, __ATOMIC_SEQ_CST); break;
    case AMO_CSWAP:
        old = T(a.compare);
        __atomic_compare_exchange_n(p, &old, operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        break;
    case AMO_LOAD:
    default: old = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;
    }
    if (a.result) memcpy(a.result, &old, sizeof old);
}

inline void cpu_amo(void *target, const amo_args &a)
{
    if (a.width == 4)
        cpu_amo_typed(static_cast<uint32_t *>(target), a);
    else
        cpu_amo_typed(static_cast<uint64_t *>(target), a);
}

}  // namespace pgdds
