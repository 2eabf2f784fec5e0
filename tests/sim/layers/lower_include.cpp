// The twin of upward_include.cpp: the same compile, of a header of a layer below exec (the memory
// models' interface), which exec may include (sim.layers.lower_include_builds).
#include "sim/memory/memory_model.h"

int main() { return 0; }
