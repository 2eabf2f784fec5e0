// Lab 02, find the bug: two warps pushing job numbers onto one shared stack.
//
// One block of two warps; lane 0 of warp w is pusher w (ids 0 and 1), the other lanes return at
// once. Pusher `me` pushes the jobs me * kJobs .. me * kJobs + kJobs - 1, one per round; a push
// writes the job into the slot the stack's top names and raises top by one. The stack is plain
// memory protected by Peterson's lock for two threads: flag[i] raised while pusher i wants the
// lock, victim the pusher that lets the other go first, both words in global memory and read and
// written through load_word and store_word only. The check expects every job on the stack exactly
// once and top equal to the number of jobs.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kJobs = 20;

struct Stack {
  int flag[2];
  int victim;
  int top;
  int slot[2 * kJobs];
};

__device__ int load_word(int* word) {
  return *(volatile int*)word;
}

__device__ void store_word(int* word, int value) {
  *(volatile int*)word = value;
}

__device__ void peterson_lock(Stack* s, int me) {
  const int other = 1 - me;
  store_word(&s->flag[me], 1);
  store_word(&s->victim, me);
  while (load_word(&s->flag[other]) != 0 && load_word(&s->victim) == me) {
  }
}

__device__ void peterson_unlock(Stack* s, int me) {
  store_word(&s->flag[me], 0);
}

__global__ void push_jobs(Stack* s) {
  if (threadIdx.x % 32 != 0) return;
  const int me = int(threadIdx.x / 32);
  for (int j = me * kJobs; j < (me + 1) * kJobs; ++j) {
    peterson_lock(s, me);
    const int top = s->top;
    s->slot[top] = j;
    s->top = top + 1;
    peterson_unlock(s, me);
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
  Stack* d_stack = nullptr;
  CHECK(cudaMalloc(&d_stack, sizeof(Stack)));
  CHECK(cudaMemset(d_stack, 0, sizeof(Stack)));
  CHECK(cudaMemset(d_stack->slot, 0xff, sizeof(d_stack->slot)));  // -1: empty
  push_jobs<<<1, 64>>>(d_stack);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Stack got = {};
  CHECK(cudaMemcpy(&got, d_stack, sizeof(Stack), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_stack));

  if (got.top != 2 * kJobs) {
    std::printf("wrong top: %d, expected %d (a push was lost)\n", got.top, 2 * kJobs);
    return 1;
  }
  std::vector<int> seen(2 * kJobs, 0);
  for (int k = 0; k < 2 * kJobs; ++k) {
    const int job = got.slot[k];
    if (job < 0 || job >= 2 * kJobs) {
      std::printf("wrong slot %d: %d, expected a job 0..%d\n", k, job, 2 * kJobs - 1);
      return 1;
    }
    if (++seen[job] > 1) {
      std::printf("wrong stack: job %d pushed twice\n", job);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
