#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda/std/atomic>
#include <cuda/semaphore>
namespace cg = cooperative_groups;

__device__ volatile int flag;
__device__ int data;
__device__ unsigned ticket, serving;
__device__ cuda::atomic<int, cuda::thread_scope_device> counter;
__device__ cuda::binary_semaphore<cuda::thread_scope_device> sem(1);

__global__ void producer_consumer(int* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) { data = 42; __threadfence(); flag = 1; }
  if (blockIdx.x == 1 && threadIdx.x == 0) { while (flag == 0) {} __threadfence(); out[0] = data; }
}
__global__ void ticket_lock(int* c) {
  unsigned my = atomicAdd(&ticket, 1);
  while (atomicAdd(&serving, 0) != my) __nanosleep(32);
  *c += 1;
  __threadfence();
  atomicAdd(&serving, 1);
}
__global__ void double_cas(double* a, double v) {
  unsigned long long* p = (unsigned long long*)a;
  unsigned long long old = *p, assumed;
  do { assumed = old; old = atomicCAS(p, assumed, __double_as_longlong(v + __longlong_as_double(assumed))); } while (assumed != old);
}
__global__ void warp_lock(int* lock, int* c) {
  for (int i = 0; i < 32; ++i) {
    if ((threadIdx.x & 31) == i) {
      while (atomicCAS(lock, 0, 1) != 0) {}
      *c += 1;
      __threadfence();
      atomicExch(lock, 0);
    }
    __syncwarp();
  }
}
__global__ void atomics_std(int* out) {
  counter.fetch_add(1, cuda::std::memory_order_relaxed);
  sem.acquire();
  out[0] += 1;
  sem.release();
  cuda::std::atomic_thread_fence(cuda::std::memory_order_seq_cst);
  auto cta = cg::this_thread_block();
  auto ct = cg::coalesced_threads();
  int v = ct.shfl(threadIdx.x, 0);
  auto t16 = cg::tiled_partition<16>(cta);
  int any = t16.any(v > 3);
  int bal = t16.ballot(v > 1);
  auto lab = cg::labeled_partition(ct, threadIdx.x % 3);
  out[threadIdx.x] = v + any + bal + lab.size() + counter.load() ;
}
__global__ void bigshared(float* o) {
  __shared__ float tile[32][33];
  __shared__ int cnt;
  if (threadIdx.x == 0) cnt = 0;
  __syncthreads();
  tile[threadIdx.y][threadIdx.x] = o[threadIdx.y * 32 + threadIdx.x];
  atomicAdd(&cnt, 1);
  __syncthreads();
  o[threadIdx.x * 32 + threadIdx.y] = tile[threadIdx.x][threadIdx.y] + cnt;
}
