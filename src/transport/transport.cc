#include "transport.h"

namespace pgdds {

const char *amo_op_name(amo_op op)
{
    static const char *names[] = {"add", "and", "or", "xor", "swap", "cswap", "load"};
    return op >= 0 && op < AMO_COUNT ? names[op] : "?";
}

}  // namespace pgdds
