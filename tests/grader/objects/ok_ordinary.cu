// expect: ok
// What a student file may do: iostream and printf on the host, a __device__ variable at global
// scope, inline PTX in a kernel, a function-local static without a destructor, std::vector,
// std::string, exceptions, maths, and CUDA's min/max in host code (its headers define them extern
// "C" inline: weak definitions in the object).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

__device__ int global_flag;

__global__ void fenced_store(int* out) {
  asm volatile("membar.gl;" ::: "memory");
  out[threadIdx.x] = global_flag + 1;
}

namespace lab99 {
std::vector<int> prediction(int n) {
  static int calls = 0;
  ++calls;
  std::cout << "prediction " << n << " (call " << calls << ")\n";
  std::fprintf(stderr, "%s\n", std::to_string(std::sqrt(double(n))).c_str());
  if (n < 0) throw std::invalid_argument("negative");
  return std::vector<int>(size_t(n), 1);
}
int launches(int td, int tiles) { return min(td + 1, 2 * tiles - 1 - td) + max(0, td - tiles); }
}  // namespace lab99
