// A key type with neither trivial copies nor a pgdds::serializer.
// expect: specialize pgdds::serializer<T>
#include <pgdds/hash_map.hpp>

#include <map>

void f(pgdds::context_ref ctx) { pgdds::hash_map<std::map<int, int>, int> m(ctx, 16); }
