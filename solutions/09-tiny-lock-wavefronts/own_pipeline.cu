// Lab 09, task 6: a hand-over between warps of your own design (README, task 6). One design that
// meets the contract of lab09_kernels.cuh: two counters per link, each written by one side only.
// (Another, named barriers, is tests/labs/designs/09-tiny-lock-wavefronts/own_pipeline_barriers.cu;
// both pass the graded tests.)
//
// word[w][0] (sent) counts the values warp w - 1 has put in the link, word[w][1] (taken) those warp
// w has read. Lane 0 of each side waits, publishes and reads the other side's counter for its
// warp, and __syncwarp() passes what it acquired on to the other 31 lanes and gathers their writes
// before it releases: one release store and one acquire load per warp and value, no atomics. A
// sender waits until every earlier value was taken, so it never overwrites one; a receiver waits
// until its next value was sent.
#include "lab09_kernels.cuh"

__device__ void pipe_send(PipeShared& s, int w, int lane, int v) {
  int* sent = &s.word[w][0];
  int* taken = &s.word[w][1];
  if (lane == 0) {
    const int k = *sent;  // only this lane writes it
    while (ld_acquire_cta(taken) != k) {
    }
  }
  __syncwarp();  // the slot is free for every lane
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
