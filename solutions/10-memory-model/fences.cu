// Lab 10, tasks 2-5: synchronization that forbids the weak outcomes, and no more than that.
// Reference solution.
//
// Task 2: each litmus test of task 1 whose weak outcome PTX allows, with the cheapest
//         synchronization that forbids it: release/acquire where a hand-over is enough, fence.sc
//         where only a total order of fences is, at the narrowest scope that covers the threads.
// Task 3: scopes: one block (3a) and two blocks (3b).
// Task 4: the hand-over that passes thousands of GPU runs.
// Task 5: the publication patterns of labs 04, 05, 07 and 08.
#include "lab10_kernels.cuh"

namespace lab10 {

// ---- task 2 -------------------------------------------------------------------------------------
// 2a. Message passing: y is the flag, x the data. Weak outcome: r0 = 1, r1 = 0.
__global__ void mp_fixed(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(1, relaxed);
      device_ref<int>(in.y()).store(1, release);
      break;
    case 1:
      in.r(0) = device_ref<int>(in.y()).load(acquire);
      in.r(1) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

// 2b. Store buffering. Weak outcome: r0 = 0, r1 = 0.
__global__ void sb_fixed(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(1, relaxed);
      cuda::atomic_thread_fence(seq_cst, cuda::thread_scope_device);
      in.r(0) = device_ref<int>(in.y()).load(relaxed);
      break;
    case 1:
      device_ref<int>(in.y()).store(1, relaxed);
      cuda::atomic_thread_fence(seq_cst, cuda::thread_scope_device);
      in.r(1) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

// 2c. Load buffering. Weak outcome: r0 = 1, r1 = 1.
__global__ void lb_fixed(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      const int r = device_ref<int>(in.x()).load(acquire);
      device_ref<int>(in.y()).store(1, release);
      in.r(0) = r;  // after the store: the store must not depend on it
      break;
    }
    case 1: {
      const int r = device_ref<int>(in.y()).load(acquire);
      device_ref<int>(in.x()).store(1, release);
      in.r(1) = r;  // after the store: the store must not depend on it
      break;
    }
    default: stress(L);
  }
}

// 2d. IRIW: the readers must agree on the order of the two writes. Weak: r0 = 1, r1 = 0, r2 = 1, r3 = 0.
__global__ void iriw_fixed(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: device_ref<int>(in.x()).store(1, relaxed); break;
    case 1: device_ref<int>(in.y()).store(1, relaxed); break;
    case 2:
      in.r(0) = device_ref<int>(in.x()).load(relaxed);
      cuda::atomic_thread_fence(seq_cst, cuda::thread_scope_device);
      in.r(1) = device_ref<int>(in.y()).load(relaxed);
      break;
    case 3:
      in.r(2) = device_ref<int>(in.y()).load(relaxed);
      cuda::atomic_thread_fence(seq_cst, cuda::thread_scope_device);
      in.r(3) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

// 2e. 2+2W. Weak outcome: x = 1, y = 1 at the end.
__global__ void w2p2w_fixed(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(1, relaxed);
      cuda::atomic_thread_fence(seq_cst, cuda::thread_scope_device);
      device_ref<int>(in.y()).store(2, relaxed);
      break;
    case 1:
      device_ref<int>(in.y()).store(1, relaxed);
      cuda::atomic_thread_fence(seq_cst, cuda::thread_scope_device);
      device_ref<int>(in.x()).store(2, relaxed);
      break;
    default: stress(L);
  }
}

// ---- task 3 -------------------------------------------------------------------------------------
// 3a. Message passing between warp 0 and warp 1 of one block.
__global__ void mp_same_block(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      block_ref<int>(in.x()).store(1, relaxed);
      block_ref<int>(in.y()).store(1, release);
      break;
    case 1:
      in.r(0) = block_ref<int>(in.y()).load(acquire);
      in.r(1) = block_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

// 3b. The same between two blocks.
__global__ void mp_cross_block(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(1, relaxed);
      device_ref<int>(in.y()).store(1, release);
      break;
    case 1:
      in.r(0) = device_ref<int>(in.y()).load(acquire);
      in.r(1) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

// ---- task 4 -------------------------------------------------------------------------------------
__global__ void handoff(int* data, int n, int* flag, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    for (int i = 0; i < n; ++i) data[i] = i + 1;
    device_ref<int>(*flag).store(1, release);
  } else if (blockIdx.x == 1) {
    while (device_ref<int>(*flag).load(acquire) == 0) {
    }
    int s = 0;
    for (int i = 0; i < n; ++i) s += data[i];
    *out = s;
  }
}

const char* task4_answers_text() {
  return R"(
# question  answer     (text after # is a comment)
test        mp         # task 1's test whose weak outcome is handoff's wrong sum (its name)
ptx         allowed    # that weak outcome under the PTX memory model: allowed or forbidden
runs        none       # correct GPU runs that prove handoff as given never sums wrong: a number, or none
writer      release    # what the writer's store of the flag needs: nothing, release or acquire
reader      acquire    # what the reader's load of the flag needs: nothing, release or acquire
scope       device     # the narrowest scope of that store and load: block, device or system
)";
}

// ---- task 5 -------------------------------------------------------------------------------------
__global__ void last_block(int* partial, unsigned* ticket, int* out) {
  if (threadIdx.x != 0) return;
  partial[blockIdx.x] = 10 * int(blockIdx.x + 1);
  const unsigned t = device_ref<unsigned>(*ticket).fetch_add(1, cuda::std::memory_order_acq_rel);
  if (t == gridDim.x - 1) {
    int s = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) s += partial[b];
    *out = s;
  }
}

__global__ void look_back(int* sum, int* flag) {
  if (threadIdx.x != 0) return;
  const int b = blockIdx.x;
  int before = 0;
  if (b > 0) {
    while (device_ref<int>(flag[b - 1]).load(acquire) == 0) {
    }
    before = sum[b - 1];
  }
  sum[b] = before + b + 1;
  device_ref<int>(flag[b]).store(1, release);
}

__global__ void barrier_exchange(int* slot, unsigned* count, int* got) {
  if (threadIdx.x != 0) return;
  const int b = blockIdx.x;
  slot[b] = 100 + b;
  device_ref<unsigned>(*count).fetch_add(1, cuda::std::memory_order_acq_rel);
  while (device_ref<unsigned>(*count).load(acquire) < gridDim.x) {
  }
  got[b] = slot[(b + 1) % gridDim.x];
}

__global__ void queue_pass(int* items, int n, int* tail, int* got) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    for (int i = 0; i < n; ++i) {
      items[i] = 7 * i + 1;
      device_ref<int>(*tail).store(i + 1, release);
    }
  } else if (blockIdx.x == 1) {
    for (int i = 0; i < n; ++i) {
      while (device_ref<int>(*tail).load(acquire) <= i) {
      }
      got[i] = items[i];
    }
  }
}

}  // namespace lab10
