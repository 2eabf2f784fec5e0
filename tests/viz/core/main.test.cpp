// The Catch2 main of viz_core_tests (the other *.test.cpp files hold the tests).
#define SYNCLAB_CATCH_MAIN
#include <synclab/catch.h>
