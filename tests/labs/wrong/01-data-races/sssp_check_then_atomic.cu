// WRONG SOLUTION (lab 01, task 3): relax_atomic that reads dist_out[v] with a plain load and
// then calls atomicMin only when the offer looks smaller. The atomicMin itself is fine, but the
// plain read races with other threads' atomicMin on the same word.
// WRONG-REPLACES: sssp.cu
// WRONG-FAILS: lab01 task3 relax_atomic computes one relaxation round exactly under every schedule
// WRONG-MESSAGE: race at sssp_check_then_atomic\.cu:[0-9]+
//
//
// 3. relax_atomic: the same round without the race.
#include "lab01_kernels.cuh"

namespace lab01 {

// Provided. Racy: two threads offering to the same v may both pass the test, and the larger
// offer may be stored last.
__global__ void relax_racy(const int* row_start, const int* neighbour, const unsigned* weight,
                           int nodes, const unsigned* dist_in, unsigned* dist_out) {
  for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < nodes; u += gridDim.x * blockDim.x) {
    if (dist_in[u] == kNoPath) continue;
    for (int e = row_start[u]; e < row_start[u + 1]; ++e) {
      int v = neighbour[e];
      unsigned offer = dist_in[u] + weight[e];
      if (offer < dist_out[v]) {
        dist_out[v] = offer;
      }
    }
  }
}

// ---- 3 -------------------------------------------------------------------------------------------
__global__ void relax_atomic(const int* row_start, const int* neighbour, const unsigned* weight,
                             int nodes, const unsigned* dist_in, unsigned* dist_out) {
  for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < nodes; u += gridDim.x * blockDim.x) {
    if (dist_in[u] == kNoPath) continue;
    for (int e = row_start[u]; e < row_start[u + 1]; ++e) {
      unsigned offer = dist_in[u] + weight[e];
      if (offer < dist_out[neighbour[e]]) atomicMin(&dist_out[neighbour[e]], offer);
    }
  }
}

}  // namespace lab01
