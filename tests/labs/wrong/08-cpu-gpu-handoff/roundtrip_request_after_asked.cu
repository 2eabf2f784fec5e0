// WRONG SOLUTION (lab 08, task 3): the kernel's side is right, but the host publishes `asked`
// before it writes the request. The release orders the host's writes before it, not the one after:
// a kernel that sees asked == k may still read the request of round k - 1. A simulated run shows
// it only when the kernel reads the request before the host's late write lands (a matter of
// timing); the host's writes, noted in program order and checked first, show it every time.
// WRONG-REPLACES: roundtrip.cu
// WRONG-FAILS: lab08 task3 a persistent kernel answers every round trip and returns after the stop flag
// WRONG-MESSAGE: roundtrip_persistent stored asked = 3 before it wrote the request 5
// WRONG-MESSAGE: in program order: asked = 3, request = 5
// WRONG-MESSAGE: write the request first
// WRONG-FIX:   asked.store(round, cuda::memory_order_release);\n  h_mb->request = x;\n =>   h_mb->request = x;\n  asked.store(round, cuda::memory_order_release);\n
// Lab 08, tasks 1-3: one round trip (the host hands a value to the GPU, the GPU transforms it, the
// host reads the result) three ways. Nasre's "Synchronization" slides (seed 004, "CPU-GPU
// Synchronization", "Pinned Memory", "Persistent Kernels") build the same three versions.
#include "lab08_kernels.cuh"

// ---- task 1: cudaMemcpy and a launch per round trip --------------------------------------------------
__global__ void transform_once(int* value) {
  // TODO(1): one thread replaces *value by work(*value) (about 1 line)
  if (blockIdx.x == 0 && threadIdx.x == 0) *value = work(*value);
}

int roundtrip_memcpy(int* d_value, int x) {
  // TODO(1): copy x to d_value, launch transform_once with one thread, copy the result back and
  // return it (about 5 lines). cudaMemcpy waits for the launch before it copies.
  cudaMemcpy(d_value, &x, sizeof(int), cudaMemcpyHostToDevice);
  transform_once<<<1, 1>>>(d_value);
  int result = -1;
  cudaMemcpy(&result, d_value, sizeof(int), cudaMemcpyDeviceToHost);
  return result;
}

// ---- task 2: mapped pinned memory, a launch per round trip -------------------------------------------
int roundtrip_mapped(int* h_value, int* d_value, int x) {
  // TODO(2): write x through h_value, launch transform_once on d_value, wait for it, read the result
  // through h_value (about 4 lines). No cudaMemcpy: the kernel reads and writes host memory.
  *h_value = x;
  transform_once<<<1, 1>>>(d_value);
  cudaDeviceSynchronize();  // the launch is done: its writes to host memory are visible
  return *h_value;
}

// ---- task 3: one persistent kernel, polling mapped pinned memory -------------------------------------
__global__ void persistent_server(Mailbox* mb) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  // TODO(3): serve rounds 1, 2, ... until the host sets stop: wait until `asked` is the round's
  // number (or stop is set: return), answer = work(request), then publish the round in `answered`.
  // Read asked and stop with acquire loads, publish answered with a release store, all through
  // SystemAtomic (a plain load of a word the host writes may be read once and never again)
  // (about 10 lines).
  SystemAtomic<unsigned> asked(mb->asked), answered(mb->answered);
  SystemAtomic<int> stop(mb->stop);
  for (unsigned round = 1;; ++round) {
    while (asked.load(cuda::memory_order_acquire) != round)
      if (stop.load(cuda::memory_order_acquire)) return;
    mb->answer = work(mb->request);
    answered.store(round, cuda::memory_order_release);
  }
}

int roundtrip_persistent(Mailbox* h_mb, int x, unsigned round) {
  // TODO(3): write the request, publish `round` in asked (release), wait until answered is `round`
  // (acquire; call keep_waiting() in the loop and return -1 when it says to give up), return the
  // answer (about 7 lines).
  SystemAtomic<unsigned> asked(h_mb->asked), answered(h_mb->answered);
  asked.store(round, cuda::memory_order_release);
  h_mb->request = x;
  while (answered.load(cuda::memory_order_acquire) != round)
    if (!keep_waiting()) return -1;
  return h_mb->answer;
}

void stop_server(Mailbox* h_mb) {
  // TODO(3): set stop (a release store at system scope) (about 1 line)
  SystemAtomic<int>(h_mb->stop).store(1, cuda::memory_order_release);
}

// ---- task 3b: one 8-byte word each way ---------------------------------------------------------------
__global__ void word_server(WordBox* box) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  // TODO(3b): serve rounds 1, 2, ...: wait until box->to_gpu holds the round's number (return when
  // it holds kStopRound), then store word(round, work(value)) in box->to_host. One load of to_gpu
  // per look and one store, each through a SystemAtomic<unsigned long long>: which memory order
  // does a word that carries its own data need? (about 8 lines)
  // Relaxed: the value travels inside the word that says the round is there, and a word is read
  // and written whole (an aligned 8-byte atomic), so no other write needs ordering against it.
  SystemAtomic<unsigned long long> to_gpu(box->to_gpu.word), to_host(box->to_host.word);
  for (unsigned round = 1;; ++round) {
    unsigned long long w;
    while (round_of(w = to_gpu.load(cuda::memory_order_relaxed)) != round)
      if (round_of(w) == kStopRound) return;
    to_host.store(word(round, work(value_of(w))), cuda::memory_order_relaxed);
  }
}

int roundtrip_word(WordBox* h_box, int x, unsigned round) {
  // TODO(3b): store word(round, x) in to_gpu, wait until to_host holds `round` (keep_waiting(); -1
  // when it says to give up), return its value (about 6 lines).
  SystemAtomic<unsigned long long> to_gpu(h_box->to_gpu.word), to_host(h_box->to_host.word);
  to_gpu.store(word(round, x), cuda::memory_order_relaxed);
  unsigned long long w;
  while (round_of(w = to_host.load(cuda::memory_order_relaxed)) != round)
    if (!keep_waiting()) return -1;
  return value_of(w);
}

void stop_word_server(WordBox* h_box) {
  // TODO(3b): ask the kernel to return (about 1 line)
  SystemAtomic<unsigned long long>(h_box->to_gpu.word).store(word(kStopRound, 0), cuda::memory_order_relaxed);
}
