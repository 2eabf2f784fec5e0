// The Catch2 main of the test executables that CMake builds from C++ (sim, runtime, common, viz,
// grader) where the Catch2 package has no Catch2::Catch2WithMain library: compiled once (target
// synclab_catch_main) and linked into each, since Catch2's main brings the framework's whole
// implementation with it.
#define SYNCLAB_CATCH_MAIN
#include <synclab/catch.h>
