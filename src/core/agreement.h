// Collective agreement: how the ranks of a collective call (a create, a symmetric allocation)
// learn that every rank succeeded and passed the same arguments, so that they fail together.
#pragma once

#include "../base/common.h"

#include <initializer_list>
#include <string>

namespace pgdds {

class runtime;

// Every rank learns the first failure of any rank. A rank that did not fail gets the failing
// status with a message naming the step.
status agree(runtime *rt, const char *who, status mine);

// At the start of a create: the ranks' validation statuses agree, and every rank passed the same
// values (different sizes on different ranks would corrupt the data structure).
status agree_arguments(runtime *rt, const char *who, status mine, std::initializer_list<uint64_t> values);

// The minimum and maximum over every rank of each of k (at most 8) values: one allreduce of the
// values and their complements.
status agree_values(runtime *rt, const char *who, size_t k, const uint64_t *v, uint64_t *lo, uint64_t *hi);

// After agree_values of a collective call: this rank's own failure (its explanation `why`), or a
// failure elsewhere (worst: the largest negated status any rank reported).
status failed_somewhere(const char *who, status mine, const std::string &why, uint64_t worst);

}  // namespace pgdds
