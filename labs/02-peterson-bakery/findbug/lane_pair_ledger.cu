// Lab 02, find the bug: two lanes of one warp posting amounts to one ledger.
//
// Lanes 0 and 1 of a single warp (ids 0 and 1; the other lanes return at once) each post kItems
// amounts, lane `me` posting amounts[me * kItems + r] in round r. Posting adds the amount to the
// ledger's balance, counts the posting and writes the poster's id into the ledger's log. The
// ledger is plain memory protected by Peterson's lock: flag[i] raised while lane i wants the
// lock, victim the lane that lets the other go first, every lock word read and written through a
// sequentially consistent cuda::atomic_ref. The check compares the balance, the count and the
// log with what the host expects.
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstdio>
#include <vector>

constexpr int kItems = 8;

using Ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

struct Ledger {
  int flag[2];
  int victim;
  int balance;
  int postings;
  int log[2 * kItems];
};

__device__ void post(Ledger* g, int me, int amount) {
  g->balance += amount;
  g->log[g->postings] = me;
  g->postings += 1;
}

__global__ void post_amounts(Ledger* g, const int* amounts) {
  const int me = int(threadIdx.x);
  if (me > 1) return;
  const int other = 1 - me;
  for (int r = 0; r < kItems; ++r) {
    Ref(g->flag[me]).store(1);
    Ref(g->victim).store(me);
    while (Ref(g->flag[other]).load() != 0 && Ref(g->victim).load() == me) {
    }
    post(g, me, amounts[me * kItems + r]);
    Ref(g->flag[me]).store(0);
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
  std::vector<int> amounts(2 * kItems);
  for (int k = 0; k < 2 * kItems; ++k) amounts[k] = (k % 3 == 0 ? -1 : 1) * (7 * k + 5);

  Ledger* d_ledger = nullptr;
  int* d_amounts = nullptr;
  CHECK(cudaMalloc(&d_ledger, sizeof(Ledger)));
  CHECK(cudaMalloc(&d_amounts, amounts.size() * sizeof(int)));
  CHECK(cudaMemset(d_ledger, 0, sizeof(Ledger)));
  CHECK(cudaMemcpy(d_amounts, amounts.data(), amounts.size() * sizeof(int), cudaMemcpyHostToDevice));
  post_amounts<<<1, 32>>>(d_ledger, d_amounts);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Ledger got = {};
  CHECK(cudaMemcpy(&got, d_ledger, sizeof(Ledger), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_ledger));
  CHECK(cudaFree(d_amounts));

  int want_balance = 0;
  for (int a : amounts) want_balance += a;
  if (got.postings != 2 * kItems) {
    std::printf("wrong number of postings: %d, expected %d\n", got.postings, 2 * kItems);
    return 1;
  }
  if (got.balance != want_balance) {
    std::printf("wrong balance: %d, expected %d\n", got.balance, want_balance);
    return 1;
  }
  int per_lane[2] = {0, 0};
  for (int k = 0; k < 2 * kItems; ++k) {
    if (got.log[k] != 0 && got.log[k] != 1) {
      std::printf("wrong log entry %d: %d, expected lane 0 or 1\n", k, got.log[k]);
      return 1;
    }
    ++per_lane[got.log[k]];
  }
  if (per_lane[0] != kItems || per_lane[1] != kItems) {
    std::printf("wrong log: lane 0 posted %d times, lane 1 %d, expected %d each\n", per_lane[0], per_lane[1],
                kItems);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
