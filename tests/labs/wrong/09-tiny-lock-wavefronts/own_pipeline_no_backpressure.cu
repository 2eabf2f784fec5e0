// WRONG SOLUTION (lab 09, task 6): two counters per link, but the sender never waits for its
// receiver: task 4's flag made into a counter. A fast sender writes the next value over one its
// receiver has not read yet.
// WRONG-REPLACES: own_pipeline.cu
// WRONG-FAILS: lab09 task6 pipe_send and pipe_receive hand every value through seven links once and in order
// WRONG-MESSAGE: a send wrote a value into the link while its receiver had not yet read the one before
// WRONG-FIX:   int* sent = &s.word[w][0];\n  s.value[w][lane] = v; =>   int* sent = &s.word[w][0];\n  int* taken = &s.word[w][1];\n  if (lane == 0) {\n    const int k = *sent;\n    while (ld_acquire_cta(taken) != k) {\n    }\n  }\n  __syncwarp();\n  s.value[w][lane] = v;
//
// Lab 09, task 6: a hand-over between warps of your own design (README, task 6).
#include "lab09_kernels.cuh"

__device__ void pipe_send(PipeShared& s, int w, int lane, int v) {
  int* sent = &s.word[w][0];
  s.value[w][lane] = v;
  __syncwarp();  // every lane's value is in
  if (lane == 0) st_release_cta(sent, *sent + 1);
}

__device__ int pipe_receive(PipeShared& s, int w, int lane) {
  int* sent = &s.word[w][0];
  int* taken = &s.word[w][1];
  if (lane == 0) {
    const int k = *taken;  // only this lane writes it
    while (ld_acquire_cta(sent) == k) {
    }
  }
  __syncwarp();  // value k is there for every lane
  const int v = s.value[w][lane];
  __syncwarp();  // every lane has read it
  if (lane == 0) st_release_cta(taken, *taken + 1);
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
