// WRONG SOLUTION (lab 09, task 6): a mailbox per lane: the value's slot is its own flag (0: empty;
// the pipeline's values are never 0), filled with atomicCAS and emptied with atomicExch. Every
// value arrives once and in order, but each lane of each warp pays at least two atomics per value,
// 32 times what the contract allows.
// WRONG-REPLACES: own_pipeline.cu
// WRONG-FAILS: lab09 task6 the hand-over costs at most two atomic operations per warp and value
// WRONG-MESSAGE: atomic operations for 8 warps x 4 values, more than two per warp and value
// WRONG-MESSAGE: One lane can wait and publish for its warp, polling with loads
//
// Lab 09, task 6: a hand-over between warps of your own design (README, task 6).
#include "lab09_kernels.cuh"

__device__ void pipe_send(PipeShared& s, int w, int lane, int v) {
  while (atomicCAS(&s.value[w][lane], 0, v) != 0) {
  }
}

__device__ int pipe_receive(PipeShared& s, int w, int lane) {
  int v;
  while ((v = atomicExch(&s.value[w][lane], 0)) == 0) {
  }
  return v;
}

// ---- provided: the pipeline ----------------------------------------------------------------------
__global__ void pipeline(int* out, int values) {
  __shared__ PipeShared s;
  const int tid = int(threadIdx.x), w = tid / 32, lane = tid % 32;
  for (int i = tid; i < kPipeWarps * 32; i += int(blockDim.x)) (&s.value[0][0])[i] = 0;
  for (int i = tid; i < kPipeWarps * kPipeLinkWords; i += int(blockDim.x)) (&s.word[0][0])[i] = 0;
  __syncthreads();
  for (int i = 0; i < values; ++i) {
    int v = w == 0 ? pipe_value(lane, i) : pipe_step(w, lane, pipe_receive(s, w, lane));
    if (w + 1 < kPipeWarps)
      pipe_send(s, w + 1, lane, v);
    else
      out[lane * values + i] = v;
  }
}
