// Kernels for the simulator's execution tests (tests/sim/exec_*.test.cpp). Each is small and
// written to exercise one rule of the execution model; the tests compute what each must do.
// Lines marked LINE:<name> are looked up by the tests to check that reports name them.

__device__ int lockw;
__device__ int counter;
__device__ int flag;
__device__ int arrived;

// The naive spin lock (seed 004, seed 000 sec. 4.2): the winner leaves the loop and waits at the
// reconvergence point under lockstep, so its warp-mates spin forever.
__global__ void naive_lock() {
  while (atomicCAS(&lockw, 0, 1) != 0);  // LINE:naive_spin
  counter = counter + 1;
  __threadfence();
  atomicExch(&lockw, 0);
}

// The fixed lock: the critical section and the release are inside the loop (seed 000 Listing 7).
__global__ void fixed_lock() {
  bool done = false;
  while (!done) {
    if (atomicCAS(&lockw, 0, 1) == 0) {
      counter = counter + 1;
      __threadfence();
      atomicExch(&lockw, 0);
      done = true;
    }
  }
}

// ++x[0] by every thread, without atomics (seed 004's data race).
__global__ void racy_increment(int* x) { x[0] = x[0] + 1; }

// A global barrier by counting: correct only while every block is resident.
__global__ void count_barrier(int* out) {
  if (threadIdx.x == 0) {
    atomicAdd(&arrived, 1);
    while (atomicAdd(&arrived, 0) < gridDim.x);  // LINE:count_barrier_spin
  }
  __syncthreads();
  out[blockIdx.x] = 1;
}

// Waits for a flag nobody sets.
__global__ void wait_forever() {
  while (atomicAdd(&flag, 0) == 0);  // LINE:wait_forever
}

// Computes for a long time without touching memory, then stores: not a hang.
__global__ void long_compute(unsigned* out, int iters) {
  unsigned x = threadIdx.x + 1;
  for (int i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  out[threadIdx.x] = x;
}

// Never finishes and never repeats a state: only the step budget ends it.
__global__ void count_forever(volatile unsigned* out) {
  unsigned long long i = 0;
  while (true) {
    ++i;
    if (i == 0) out[0] = 1;
  }
}

// Writes one int past the end of its array.
__global__ void out_of_bounds(int* a, int n) {
  a[n + threadIdx.x] = 7;  // LINE:oob_store
}

// Warp 0 waits at barrier 1 for 64 threads, warp 1 at barrier 2 for 64 threads: neither fills.
__global__ void crossed_barriers() {
  if (threadIdx.x < 32) asm volatile("bar.sync 1, 64;");  // LINE:crossed_a
  else asm volatile("bar.sync 2, 64;");
}

// __syncthreads_count, __syncthreads_and, __syncthreads_or.
__global__ void barrier_reductions(int* out) {
  int t = threadIdx.x;
  int c = __syncthreads_count(t % 3 == 0);
  int a = __syncthreads_and(t < 1000);
  int o = __syncthreads_or(t == 17);
  if (t == 0) { out[0] = c; out[1] = a; out[2] = o; }
}

// Each half-warp of a divergent warp shuffles with its own member mask.
__global__ void half_warp_shuffles(int* out) {
  int lane = threadIdx.x;
  int v = lane * 10;
  if (lane < 16) v = __shfl_down_sync(0x0000ffffu, v, 1, 16);
  else v = __shfl_up_sync(0xffff0000u, v, 2, 16);
  out[lane] = v;
}

// Recursion through a non-inlined function.
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__global__ void recursion(int* out) { out[threadIdx.x] = fib(threadIdx.x % 12); }

// Converged warps reading, writing and updating one element per lane: the interpreter's row
// forms of ld, st and atom.
__global__ void per_lane_rows(int* a, int* counts) {
  const int t = threadIdx.x;
  a[t] = a[t] * 2 + t;
  atomicAdd(&counts[t % 4], 1);
}
