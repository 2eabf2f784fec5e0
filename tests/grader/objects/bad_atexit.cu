// expect: registers a function to run at exit
#include <cstdio>
#include <cstdlib>
static void later() { std::puts("after main"); }
void arm() { std::atexit(later); }
