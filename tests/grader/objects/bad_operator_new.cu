// expect: global operator new
#include <cstdlib>
#include <new>
void* operator new(std::size_t n) { return std::malloc(n ? n : 1); }
void operator delete(void* p) noexcept { std::free(p); }
