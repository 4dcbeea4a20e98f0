#include "transport.h"

namespace pgdds {

const char *amo_op_name(amo_op op)
{
    static const char *names[] = {"add", "and", "or", "xor", "swap", "cswap", "load", "min", "max"};
    return op >= 0 && op <= AMO_MAX ? names[op] : "?";
}

}  // namespace pgdds
