// A ping-pong between the host and a kernel through mapped pinned memory, for the host row of
// the trace and the viewer: the host stores round k (1..rounds) into ping, the kernel (one
// thread) first stores -1 into pong (it runs), then waits until ping says k and stores k * 10
// into pong; the host waits for -1 before its first store and for k * 10 before the next round. Both words are one named region ("pingpong", an array of 2): the
// kernel's store to pong is a device write, the host's stores to ping are HostAccess events.
// argv[1] = rounds (default 5); argv[2] = "device": the kernel writes ping itself (no host
// store while it runs: the trace must have no HostAccess); "managed": the words are in managed
// memory (cudaMallocManaged) instead of mapped pinned memory. Exit 1 on a wrong answer or when a
// host wait lasts over 10 s.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <synclab/regions.h>

using SysRef = cuda::atomic_ref<int, cuda::thread_scope_system>;

__global__ void pong_server(int* box, int rounds, int device_pings) {
  SysRef(box[1]).store(-1, cuda::memory_order_release);  // running: the host may start
  for (int k = 1; k <= rounds; ++k) {
    if (device_pings) SysRef(box[0]).store(k, cuda::memory_order_release);
    while (SysRef(box[0]).load(cuda::memory_order_acquire) != k) {  // VIZ-HOST-POLL
    }
    SysRef(box[1]).store(k * 10, cuda::memory_order_release);  // VIZ-HOST-PONG
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  const int device_pings = argc > 2 && std::strcmp(argv[2], "device") == 0;
  const bool managed = argc > 2 && std::strcmp(argv[2], "managed") == 0;
  int* box = nullptr;
  if (managed ? cudaMallocManaged(&box, 2 * sizeof(int)) != cudaSuccess
              : cudaHostAlloc(&box, 2 * sizeof(int), cudaHostAllocMapped) != cudaSuccess)
    return 1;
  std::memset(box, 0, 2 * sizeof(int));
  if (synclab_region(box, 2 * sizeof(int), "pingpong", "array", 2) != 0) return 1;
  int* dbox = box;  // managed memory: the same pointer on both sides
  if (!managed && cudaHostGetDevicePointer(reinterpret_cast<void**>(&dbox), box, 0) != cudaSuccess) return 1;
  pong_server<<<1, 1>>>(dbox, rounds, device_pings);
  if (!device_pings) {
    const auto begin = std::chrono::steady_clock::now();
    while (SysRef(box[1]).load(cuda::memory_order_acquire) != -1) {  // every ping while the kernel runs
      if (std::chrono::steady_clock::now() - begin > std::chrono::seconds(10)) {
        std::printf("the kernel did not start in 10 s\n");
        return 1;
      }
    }
    for (int k = 1; k <= rounds; ++k) {
      SysRef(box[0]).store(k, cuda::memory_order_release);
      const auto start = std::chrono::steady_clock::now();
      while (SysRef(box[1]).load(cuda::memory_order_acquire) != k * 10) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) {
          std::printf("round %d: no answer after 10 s\n", k);
          return 1;
        }
      }
    }
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  const bool ok = box[0] == rounds && box[1] == rounds * 10;
  std::printf("%d rounds: ping %d, pong %d (%s)\n", rounds, box[0], box[1], ok ? "ok" : "wrong");
  if (managed)
    cudaFree(box);
  else
    cudaFreeHost(box);
  return ok ? 0 : 1;
}
