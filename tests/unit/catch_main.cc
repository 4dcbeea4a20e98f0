// The Catch2 2.x test runner (main), compiled once for every unit test (tests/meson.build).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
