// Every C++ container of libpgdds.
#pragma once

#include <pgdds/array.hpp>
#include <pgdds/bloom_filter.hpp>
#include <pgdds/hash_map.hpp>
#include <pgdds/hash_map_buffer.hpp>
#include <pgdds/promise.hpp>
#include <pgdds/queue.hpp>
