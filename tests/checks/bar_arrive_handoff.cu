// bar_arrive_handoff (clean): a producer warp and a consumer warp hand a shared-memory slot back
// and forth with `bar.arrive` / `bar.sync` on two named barriers (2: slot full, 3: slot empty),
// while warps 0-1 of the block run their own exchange on barrier 1. The arriving side's writes
// before bar.arrive are ordered before the waiting side's reads after bar.sync. No race.
#include "checks.h"

constexpr int kThreads = 128;  // warps 0-1: exchange, warp 2: producer, warp 3: consumer
constexpr int kBlocks = 2;
constexpr int kRounds = 4;

__global__ void handoff(const int* in, int* out) {
  __shared__ int slot[32];
  __shared__ int ex[64];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int* my_in = in + blockIdx.x * 32;
  int acc = 0;
  if (warp < 2) {
    ex[t] = my_in[t % 32] + t;
    bar_sync(1, 64);
    acc = ex[63 - t];
  } else if (warp == 2) {  // producer
    for (int r = 0; r < kRounds; ++r) {
      if (r > 0) bar_sync(3, 64);  // wait until the consumer has emptied the slot
      slot[lane] = my_in[lane] * 10 + r;
      bar_arrive(2, 64);  // the slot is full; do not wait
    }
  } else {  // consumer
    for (int r = 0; r < kRounds; ++r) {
      bar_sync(2, 64);  // wait for a full slot
      acc += slot[31 - lane];
      if (r < kRounds - 1) bar_arrive(3, 64);  // the slot is empty again
    }
  }
  out[blockIdx.x * kThreads + t] = acc;
}

int main() {
  static int h_in[32 * kBlocks], h_out[kThreads * kBlocks];
  for (int i = 0; i < 32 * kBlocks; ++i) h_in[i] = i * 3 - 40;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof h_in));
  CHECK(cudaMalloc(&out, sizeof h_out));
  CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  handoff<<<kBlocks, kThreads>>>(in, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int b = 0; b < kBlocks; ++b) {
    const int* my_in = h_in + b * 32;
    for (int t = 0; t < kThreads; ++t) {
      int want = 0;
      if (t < 64) want = my_in[(63 - t) % 32] + 63 - t;
      else if (t >= 96)
        for (int r = 0; r < kRounds; ++r) want += my_in[31 - (t % 32)] * 10 + r;
      ok = ok && h_out[b * kThreads + t] == want;
    }
  }
  return verdict("bar_arrive_handoff", ok);
}
