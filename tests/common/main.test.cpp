// The Catch2 main of common_unit_tests (the other *.test.cpp files hold the tests).
#define SYNCLAB_CATCH_MAIN
#include <synclab/catch.h>
