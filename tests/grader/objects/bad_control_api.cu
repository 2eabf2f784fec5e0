// expect: calls synclab_sim_set_checks
// Switching the simulator's checkers off from a student file.
#include <synclab/sim_control.h>
void quiet() { synclab::sim::set_checks("none"); }
