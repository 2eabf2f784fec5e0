// expect: needs construction or destruction
// A constructor in an anonymous namespace is called without a relocation (same section).
#include <cstdio>
namespace {
struct Hello {
  Hello() { std::puts("hello"); }
};
Hello hello;
}  // namespace
__global__ void k(int* p) { *p = 1; }
