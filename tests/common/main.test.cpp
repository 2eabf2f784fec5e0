// The Catch2 main of common_unit_tests (the other *.test.cpp files hold the tests).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
