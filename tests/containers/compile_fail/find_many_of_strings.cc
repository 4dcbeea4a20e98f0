// Batched operations take arrays of trivially copyable keys and values.
// expect: find_many takes trivially copyable keys and values
#include <pgdds/hash_map.hpp>

#include <string>

void f(const pgdds::hash_map<std::string, int> &m, std::string *keys, int *values, unsigned char *found)
{
    m.find_many(keys, 1, values, found);
}
