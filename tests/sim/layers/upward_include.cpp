// Compiled as a file of the exec layer (with synclab_sim_exec's include path) by the test
// sim.layers.upward_include_fails: exec may not include the checkers, a layer above it
// (sim/CMakeLists.txt), so this include must not be found.
#include "sim/check/checkers.h"
