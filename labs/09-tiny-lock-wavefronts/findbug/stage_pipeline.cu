// Lab 09, find the bug: a three-stage pipeline of warps joined by one-value channels on lock bits.
//
// One block of three warps. Lane l of warp 0 produces kValues values and sends each to lane l of
// warp 1 through the channel on slot_a[l]; lane l of warp 1 turns each value v into 3 v + l and
// sends it to lane l of warp 2 through slot_b[l]; lane l of warp 2 writes what it receives, in
// order, to out[l * kValues + i]. A channel is a slot word and its lock bit (Fermi's lock unit,
// emulated as 1024 bits in 32 shared words, the bit chosen by address bits 2-11): the bit set
// means the slot holds a value not yet taken. send waits for the bit to be clear, writes the slot
// and sets the bit; receive waits for it to be set, reads the slot and clears the bit. The check
// compares out with the values computed on the host.
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kValues = 4;

struct LockUnit {
  unsigned word[32];
};

__device__ unsigned slot_bit(const int* slot) {
  return unsigned(reinterpret_cast<uintptr_t>(slot) >> 2) & 1023u;
}

__device__ bool is_full(LockUnit& t, const int* slot) {
  const unsigned b = slot_bit(slot);
  cuda::atomic_ref<unsigned, cuda::thread_scope_block> word(t.word[b >> 5]);
  return (word.load(cuda::std::memory_order_relaxed) >> (b & 31)) & 1u;
}

__device__ void send(LockUnit& t, int* slot, int v) {
  while (is_full(t, slot)) {
  }
  __threadfence_block();
  *slot = v;
  __threadfence_block();
  const unsigned b = slot_bit(slot);
  atomicOr(&t.word[b >> 5], 1u << (b & 31));
}

__device__ int receive(LockUnit& t, int* slot) {
  while (!is_full(t, slot)) {
  }
  const int v = *slot;
  __threadfence_block();
  const unsigned b = slot_bit(slot);
  atomicAnd(&t.word[b >> 5], ~(1u << (b & 31)));
  return v;
}

__host__ __device__ int first_value(int lane, int i) { return lane * 100 + i * 7 + 1; }

__global__ void stage_pipeline(int* out) {
  __shared__ LockUnit locks;
  __shared__ int slot_a[32], slot_b[32];
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  if (threadIdx.x < 32) locks.word[threadIdx.x] = 0;
  __syncthreads();

  for (int i = 0; i < kValues; ++i) {
    if (warp == 0) {
      send(locks, &slot_a[lane], first_value(lane, i));
    } else if (warp == 1) {
      const int v = receive(locks, &slot_a[lane]);
      send(locks, &slot_b[lane], 3 * v + lane);
    } else if (warp == 2) {
      out[lane * kValues + i] = receive(locks, &slot_b[lane]);
    }
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t err_ = (call);                                                                    \
    if (err_ != cudaSuccess) {                                                                    \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

int main() {
  const int n = 32 * kValues;
  int* d_out = nullptr;
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
  stage_pipeline<<<1, 96>>>(d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_out));

  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < kValues; ++i) {
      const int expected = 3 * first_value(lane, i) + lane, got = out[lane * kValues + i];
      if (got != expected) {
        std::printf("wrong value %d of lane %d: %d, expected %d\n", i, lane, got, expected);
        return 1;
      }
    }
  }
  std::printf("ok\n");
  return 0;
}
