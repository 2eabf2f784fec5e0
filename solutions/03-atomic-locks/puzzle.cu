// Lab 03, task 3: seed 004's atomicCAS puzzle ("What is the output?"). The slide's kernel k1
// prints "Thread T succeeded K." after each of three atomicCAS calls on one word gg; here each
// line goes into a log instead of printf, so that runs can be compared (lab03.h, puzzle_line).
//
// 3. Predict every output the kernel can produce for a launch shape, then compare with
//    `lab03 puzzle`. An output is the set of lines one run prints, in any order.
#include <vector>

#include "lab03.h"
#include "lab03_kernels.cuh"

namespace lab03 {

// Provided: k1 of the slide (gg starts at 0; the slide's cudaMemset(&gg, ...) clears the host
// pointer variable rather than the device word, a bug the harness does not copy).
__global__ void cas_puzzle(int* gg, int* log, int* lines) {
  const int t = threadIdx.x;
  int old = atomicCAS(gg, 0, t + 1);
  if (old == 0) log[atomicAdd(lines, 1)] = t * 4 + 1;  // "Thread t succeeded 1."
  old = atomicCAS(gg, 0, t + 1);
  if (old == 0) log[atomicAdd(lines, 1)] = t * 4 + 2;  // "Thread t succeeded 2."
  old = atomicCAS(gg, t, -1);
  if (old == t) log[atomicAdd(lines, 1)] = t * 4 + 3;  // "Thread t succeeded 3."
}

// ---- 3: your prediction -------------------------------------------------------------------------
// Every output cas_puzzle<<<blocks, threads_per_block>>> can produce on a GPU, each as the list of
// its lines, e.g. {puzzle_line(0, 1), puzzle_line(1, 3)} for "Thread 0 succeeded 1." and
// "Thread 1 succeeded 3.". The order of the outputs, and of the lines in one, does not matter.
// CUDA does not say in which order the lanes of one warp apply an atomic.
std::vector<PuzzleOutput> predicted_puzzle_outputs(int blocks, int threads_per_block) {
  std::vector<PuzzleOutput> outputs;
  if (blocks < 1) return outputs;
  // Any thread w may apply the very first CAS: gg becomes w + 1 and never 0 again, so nobody
  // succeeds in the second CAS. A thread whose id is w + 1 (there is one in every block when
  // w + 1 < threads) finds gg == w + 1 in its third CAS, which comes after the first CAS of all;
  // the first of them sets gg to -1, so exactly one third line is printed.
  for (int w = 0; w < threads_per_block; ++w) {
    PuzzleOutput out{puzzle_line(w, 1)};
    if (w + 1 < threads_per_block) out.push_back(puzzle_line(w + 1, 3));
    outputs.push_back(out);
  }
  return outputs;
}

}  // namespace lab03
