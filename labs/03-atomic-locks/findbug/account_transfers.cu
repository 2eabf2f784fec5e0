// Lab 03, find the bug: warps move batches of money between bank accounts.
//
// kAccounts balances, each with its own spin lock (0 free, 1 taken), live in global memory. Warp
// w of the grid handles kRounds batches; batch r of warp w moves money from account
// a = (w + r) % kAccounts to account (a + 1 + r % (kAccounts - 1)) % kAccounts. The 32 lanes
// of the warp each hold one payment of the batch; they add them up with shuffles, and lane 0
// moves the total while holding the locks of both accounts (atomicCAS to take a lock, after it a
// __threadfence(); a __threadfence() and atomicExch to give it back). Only lane 0 of a warp takes
// locks. The check expects every balance to equal a host replay of all the batches, and every
// lock to be free.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 128;
constexpr int kWarps = kBlocks * kThreads / 32;
constexpr int kAccounts = 3;
constexpr int kRounds = 4;
constexpr int kStartBalance = 1000000;

struct Bank {
  int locks[kAccounts];
  int balances[kAccounts];
};

__device__ int payment(int warp, int round, int lane) { return (warp * 7 + round * 3 + lane) % 10 + 1; }

__device__ void lock(int* word) {
  while (atomicCAS(word, 0, 1) != 0) {
  }
  __threadfence();
}

__device__ void unlock(int* word) {
  __threadfence();
  atomicExch(word, 0);
}

__global__ void transfer_batches(Bank* bank) {
  const int lane = threadIdx.x % 32;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  for (int r = 0; r < kRounds; ++r) {
    const int from = (warp + r) % kAccounts;
    const int to = (from + 1 + r % (kAccounts - 1)) % kAccounts;
    int total = payment(warp, r, lane);
    for (int off = 16; off > 0; off /= 2) total += __shfl_down_sync(0xffffffffu, total, off);
    if (lane == 0) {
      lock(&bank->locks[from]);
      lock(&bank->locks[to]);
      bank->balances[from] -= total;
      bank->balances[to] += total;
      unlock(&bank->locks[to]);
      unlock(&bank->locks[from]);
    }
    __syncwarp();
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                           \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main() {
  Bank start{};
  for (int a = 0; a < kAccounts; ++a) start.balances[a] = kStartBalance;
  Bank* d_bank = nullptr;
  CHECK(cudaMalloc(&d_bank, sizeof(Bank)));
  CHECK(cudaMemcpy(d_bank, &start, sizeof(Bank), cudaMemcpyHostToDevice));
  transfer_batches<<<kBlocks, kThreads>>>(d_bank);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Bank got;
  CHECK(cudaMemcpy(&got, d_bank, sizeof(Bank), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_bank));

  std::vector<long long> want(kAccounts, kStartBalance);
  for (int w = 0; w < kWarps; ++w)
    for (int r = 0; r < kRounds; ++r) {
      int total = 0;
      for (int lane = 0; lane < 32; ++lane) total += (w * 7 + r * 3 + lane) % 10 + 1;
      const int from = (w + r) % kAccounts;
      want[from] -= total;
      want[(from + 1 + r % (kAccounts - 1)) % kAccounts] += total;
    }
  for (int a = 0; a < kAccounts; ++a) {
    if (got.locks[a] != 0) {
      std::printf("account %d: lock left taken (%d)\n", a, got.locks[a]);
      return 1;
    }
    if (got.balances[a] != want[a]) {
      std::printf("account %d: wrong balance %d, expected %lld\n", a, got.balances[a], want[a]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
