// Lab 02, find the bug: two tellers moving money between accounts under Peterson's lock.
//
// Two tellers, thread 0 of block 0 and thread 0 of block 1 (ids 0 and 1), share kAccounts account
// balances and a count of the transfers made. Teller `me` makes kTransfers transfers; transfer r
// moves amount_of(me, r) from account (me + r) % kAccounts to account (me + 3 r + 1) % kAccounts
// and adds one to the count. Balances are plain ints that only Peterson's lock for two threads
// protects: flag[i] raised while teller i wants the lock, victim the teller that lets the other go
// first. Every lock word is read and written through a sequentially consistent cuda::atomic_ref.
// The check compares the balances and the count with the host's.
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstdio>
#include <vector>

constexpr int kAccounts = 4;
constexpr int kTransfers = 12;

using Ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

struct Bank {
  int flag[2];
  int victim;
  int transfers;
  int balance[kAccounts];
};

__host__ __device__ int amount_of(int me, int r) {
  return 10 * (me + 1) + r;
}

__device__ void peterson_lock(Bank* b, int me) {
  const int other = 1 - me;
  Ref(b->victim).store(me);
  Ref(b->flag[me]).store(1);
  while (Ref(b->flag[other]).load() != 0 && Ref(b->victim).load() == me) {
  }
}

__device__ void peterson_unlock(Bank* b, int me) {
  Ref(b->flag[me]).store(0);
}

__global__ void tellers(Bank* b) {
  if (threadIdx.x != 0) return;
  const int me = int(blockIdx.x);
  for (int r = 0; r < kTransfers; ++r) {
    const int from = (me + r) % kAccounts, to = (me + 3 * r + 1) % kAccounts;
    peterson_lock(b, me);
    b->balance[from] -= amount_of(me, r);
    b->balance[to] += amount_of(me, r);
    b->transfers += 1;
    peterson_unlock(b, me);
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_));   \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  Bank start = {};
  for (int a = 0; a < kAccounts; ++a) start.balance[a] = 1000;
  Bank* d_bank = nullptr;
  CHECK(cudaMalloc(&d_bank, sizeof(Bank)));
  CHECK(cudaMemcpy(d_bank, &start, sizeof(Bank), cudaMemcpyHostToDevice));
  tellers<<<2, 32>>>(d_bank);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Bank got = {};
  CHECK(cudaMemcpy(&got, d_bank, sizeof(Bank), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_bank));

  Bank want = start;
  for (int me = 0; me < 2; ++me) {
    for (int r = 0; r < kTransfers; ++r) {
      want.balance[(me + r) % kAccounts] -= amount_of(me, r);
      want.balance[(me + 3 * r + 1) % kAccounts] += amount_of(me, r);
      want.transfers += 1;
    }
  }
  if (got.transfers != want.transfers) {
    std::printf("wrong number of transfers: %d, expected %d\n", got.transfers, want.transfers);
    return 1;
  }
  for (int a = 0; a < kAccounts; ++a) {
    if (got.balance[a] != want.balance[a]) {
      std::printf("wrong balance of account %d: %d, expected %d\n", a, got.balance[a], want.balance[a]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
