// expect: before main (a constructor function)
#include <cstdio>
__attribute__((constructor)) static void early() { std::puts("before the tests"); }
__global__ void k(int* p) { *p = 1; }
