// relaxed_stale_acquire (a race under the relaxed memory model only; clean with -DFIX): block 0's
// thread 0 stores flag = 1 (relaxed: it releases nothing), writes `data`, publishes it with a
// release store of flag = 2, then raises `go` (relaxed). Block 1's threads wait for go, acquire
// the flag, and read data when the flag is not 0. Under `sc` a thread that sees go = 1 reads
// flag = 2, the newest, and synchronizes with the release. Under the PTX memory model it may
// read the older flag = 1 (go's relaxed store orders nothing for it), which released nothing:
// then its read of data races with the write. The race checker must take the acquire's release
// from the write the load read, not from memory's newest.
//   (default)  read data when the flag is not 0: a race under SYNCLAB_MEMORY=relaxed, none under sc.
//   -DFIX      read data only when the flag is 2 (the released value): no race.
#include <cuda/atomic>

#include "checks.h"

using device_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

constexpr int kReaders = 64;

__global__ void publish(int* data, int* flag, int* go, int* out) {
  device_ref f(*flag), g(*go);
  if (blockIdx.x == 0) {
    if (threadIdx.x != 0) return;
    f.store(1, cuda::memory_order_relaxed);
    *data = 42;  // EXPECT(race)
    f.store(2, cuda::memory_order_release);
    g.store(1, cuda::memory_order_relaxed);
  } else {
    while (g.load(cuda::memory_order_relaxed) == 0) {
    }
    const int seen = f.load(cuda::memory_order_acquire);
#ifdef FIX
    if (seen == 2) out[threadIdx.x] = *data;
#else
    if (seen != 0) out[threadIdx.x] = *data;  // EXPECT(race)
#endif
  }
}

int main() {
  int *data, *flag, *go, *out;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&go, sizeof(int)));
  CHECK(cudaMalloc(&out, kReaders * sizeof(int)));
  CHECK(cudaMemset(data, 0, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  CHECK(cudaMemset(go, 0, sizeof(int)));
  CHECK(cudaMemset(out, 0, kReaders * sizeof(int)));
  publish<<<2, kReaders>>>(data, flag, go, out);
  CHECK_KERNEL();
  int h[kReaders];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < kReaders; ++i) ok = ok && (h[i] == 0 || h[i] == 42);
  return verdict("relaxed_stale_acquire", ok);
}
