// Lab 08, tasks 1-3b: one round trip (the host hands a value to the GPU, the GPU transforms it, the
// host reads the result) four ways. Nasre's "Synchronization" slides (seed 004, "CPU-GPU
// Synchronization", "Pinned Memory", "Persistent Kernels") build the same three versions.
#include "lab08_kernels.cuh"

// ---- task 1: cudaMemcpy and a launch per round trip --------------------------------------------------
__global__ void transform_once(int* value) {
  // TODO(1): one thread replaces *value by work(*value) (about 1 line)
}

int roundtrip_memcpy(int* d_value, int x) {
  // TODO(1): copy x to d_value, launch transform_once with one thread, copy the result back and
  // return it (about 5 lines). cudaMemcpy waits for the launch before it copies.
  (void)d_value;
  return x;
}

// ---- task 2: mapped pinned memory, a launch per round trip -------------------------------------------
int roundtrip_mapped(int* h_value, int* d_value, int x) {
  // TODO(2): write x through h_value, launch transform_once on d_value, wait for it, read the result
  // through h_value (about 4 lines). No cudaMemcpy: the kernel reads and writes host memory.
  (void)h_value;
  (void)d_value;
  return x;
}

// ---- task 3: one persistent kernel, polling mapped pinned memory -------------------------------------
__global__ void persistent_server(Mailbox* mb) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  // TODO(3): serve rounds 1, 2, ... until the host sets stop: wait until `asked` is the round's
  // number (or stop is set: return), answer = work(request), then publish the round in `answered`.
  // Read asked and stop with acquire loads, publish answered with a release store, all through
  // SystemAtomic (a plain load of a word the host writes may be read once and never again)
  // (about 10 lines).
}

int roundtrip_persistent(Mailbox* h_mb, int x, unsigned round) {
  // TODO(3): write the request, publish `round` in asked (release), wait until answered is `round`
  // (acquire; call keep_waiting() in the loop and return -1 when it says to give up), return the
  // answer (about 7 lines).
  (void)h_mb;
  (void)x;
  (void)round;
  return -1;
}

void stop_server(Mailbox* h_mb) {
  // TODO(3): set stop (a release store at system scope) (about 1 line)
  (void)h_mb;
}

// ---- task 3b: one 8-byte word each way ---------------------------------------------------------------
__global__ void word_server(WordBox* box) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  // TODO(3b): serve rounds 1, 2, ...: wait until box->to_gpu holds the round's number (return when
  // it holds kStopRound), then store word(round, work(value)) in box->to_host. One load of to_gpu
  // per look and one store, each through a SystemAtomic<unsigned long long>: which memory order
  // does a word that carries its own data need? (about 8 lines)
  (void)box;
}

int roundtrip_word(WordBox* h_box, int x, unsigned round) {
  // TODO(3b): store word(round, x) in to_gpu, wait until to_host holds `round` (keep_waiting(); -1
  // when it says to give up), return its value (about 6 lines).
  (void)h_box;
  (void)x;
  (void)round;
  return -1;
}

void stop_word_server(WordBox* h_box) {
  // TODO(3b): ask the kernel to return (about 1 line)
  (void)h_box;
}
