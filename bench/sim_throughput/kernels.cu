// Kernels timed by bench/sim_throughput: what course labs spend their simulated time on.
//   reduce_tree    shared-memory tree reduction with a warp-shuffle tail, one atomicAdd per block
//   scan_hillis    Hillis-Steele inclusive block scan, double-buffered in shared memory
//   lock_counter   every thread takes one global spin lock (the correct form, critical section
//                  inside the loop) and increments a counter
#include <cstdint>

__global__ void reduce_tree(const int* in, unsigned long long* out, int n) {
  __shared__ int s[256];
  const int t = threadIdx.x;
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x * 2 + t; i < n; i += gridDim.x * blockDim.x * 2) {
    sum += in[i];
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
  }
  s[t] = sum;
  __syncthreads();
  for (int k = blockDim.x / 2; k >= 32; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t < 32) {
    int v = s[t];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (t == 0) atomicAdd(out, (unsigned long long)v);
  }
}

__global__ void scan_hillis(const int* in, int* out, int n) {
  __shared__ int buf[2][1024];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  int src = 0;
  buf[0][t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) {
    const int dst = 1 - src;
    buf[dst][t] = buf[src][t] + (t >= off ? buf[src][t - off] : 0);
    __syncthreads();
    src = dst;
  }
  if (i < n) out[i] = buf[src][t];
}

__global__ void lock_counter(int* lock, int* counter, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    bool done = false;
    while (!done) {
      if (atomicCAS(lock, 0, 1) == 0) {
        __threadfence();
        *counter += 1;
        __threadfence();
        atomicExch(lock, 0);
        done = true;
      }
    }
  }
}
