// Lab 08 (the CPU-GPU handoff): what the student files define and the small pieces they share with
// the harness. Everything here lives in memory that the host and a running kernel both reach:
// pinned host memory mapped into the device's address space (cudaHostAlloc(cudaHostAllocMapped)),
// so the same struct is read and written by host code through its host pointer and by the kernel
// through its device pointer (cudaHostGetDevicePointer).
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

// A word both sides synchronize through: an atomic at system scope, the scope that includes the
// host (libcu++, <cuda/atomic>; it compiles for host code too, with the host's atomics).
template <class T>
using SystemAtomic = cuda::atomic_ref<T, cuda::thread_scope_system>;

// The transformation every round trip applies (the "arbitrary processing" of the slides' exercise).
__host__ __device__ inline int work(int x) { return (3 * x + 1) % 1000003; }

// ---- tasks 1 and 2: a round trip per launch ----------------------------------------------------------
// One thread: *value = work(*value).
__global__ void transform_once(int* value);
// Task 1: x to the device with cudaMemcpy, transform_once, the result back with cudaMemcpy.
// d_value: one int of device memory.
int roundtrip_memcpy(int* d_value, int x);
// Task 2: the same through mapped pinned memory, no copy: h_value is the host's pointer to the int,
// d_value the device's pointer to the same int.
int roundtrip_mapped(int* h_value, int* d_value, int x);

// ---- task 3: a persistent kernel polling mapped pinned memory -----------------------------------------
// The mailbox of one host and one persistent kernel. Round k (k = 1, 2, ...): the host writes the
// request, then publishes k in `asked`; the kernel sees asked == k, writes work(request) to
// `answer`, then publishes k in `answered`. `stop` = 1 asks the kernel to return.
struct Mailbox {
  int request;
  int answer;
  unsigned asked;
  unsigned answered;
  int stop;
};
__global__ void persistent_server(Mailbox* mb);
// The host's side of round `round`: returns the answer, or -1 when the kernel stopped answering
// (keep_waiting() said to give up).
int roundtrip_persistent(Mailbox* h_mb, int x, unsigned round);
// Ends the persistent kernel: the stop flag (the harness then waits for the launch to finish).
void stop_server(Mailbox* h_mb);

// ---- task 3b: the same round trip, one 8-byte word each way --------------------------------------------
// Every access of the kernel to mapped pinned memory crosses PCIe (about a microsecond there and
// back on an H200), and so does every fence at system scope. Task 3's kernel reads `asked`, then
// the request; here one word carries both the round's number and the value, so one load brings
// them together and nothing else needs ordering. Round k: the host stores word(k, x) in `to_gpu`;
// the kernel waits until to_gpu holds round k and stores word(k, work(x)) in `to_host`; the host
// waits until to_host holds round k. Round kStopRound in to_gpu asks the kernel to return. Each
// word sits on a 128-byte line of its own: each side writes only its own line.
struct alignas(128) Line {
  unsigned long long word;
};
struct WordBox {
  Line to_gpu;   // written by the host only
  Line to_host;  // written by the kernel only
};
constexpr unsigned kStopRound = 0xffffffffu;
__host__ __device__ inline unsigned long long word(unsigned round, int value) {
  return (static_cast<unsigned long long>(round) << 32) | static_cast<unsigned>(value);
}
__host__ __device__ inline unsigned round_of(unsigned long long w) { return static_cast<unsigned>(w >> 32); }
__host__ __device__ inline int value_of(unsigned long long w) { return static_cast<int>(static_cast<unsigned>(w)); }
__global__ void word_server(WordBox* box);
// The host's side of round `round` (returns the value, or -1 when keep_waiting() said to give up)
// and the end of the kernel.
int roundtrip_word(WordBox* h_box, int x, unsigned round);
void stop_word_server(WordBox* h_box);

// ---- task 4: odd and even ------------------------------------------------------------------------------
// Plays one side of the slides' exercise: the side whose numbers have parity `parity` (0: even, 1:
// odd) prints each of its numbers in 0..last in turn, alternating with the other side through the
// one shared `counter` (the number whose turn it is). print_number(printed, v, who) "prints" v.
// The same code runs on the host (the CPU's side) and in a kernel (the GPU's), or in two blocks.
__host__ __device__ void play_turns(int* counter, int* printed, int parity, int last);
// Provided in oddeven.cu (they call play_turns, so they live beside it): one thread of block b
// plays parity b (two blocks: the exercise between two blocks), and the GPU's odd side alone.
__global__ void odd_even_blocks(int* counter, int* printed, int last);
__global__ void odd_side(int* counter, int* printed, int last);

// Records that `who` (1 + parity) printed v: printed[v] = who (printed[v] + 100 when v was printed
// already; a value outside 0..last is counted in printed[last + 1]).
__host__ __device__ inline void print_number(int* printed, int v, int last, int who) {
  if (v < 0 || v > last) {
    SystemAtomic<int>(printed[last + 1]).fetch_add(1);
    return;
  }
  printed[v] = printed[v] == 0 ? who : printed[v] + 100;
}

// ---- task 5: a ring buffer between the CPU and a persistent kernel --------------------------------------
// A single-producer, single-consumer ring of kRingSize ints. `head` counts the items ever pushed,
// `tail` the items ever popped (both only grow; unsigned wrap-around is fine): the producer alone
// writes head and the slots, the consumer alone writes tail; slot i % kRingSize holds item i.
constexpr unsigned kRingSize = 4;
struct Ring {
  unsigned head;
  unsigned tail;
  int slot[kRingSize];
};
// Producer side: false when the ring is full (nothing changes), else the item is in and published.
__host__ __device__ bool ring_push(Ring* r, int item);
// Consumer side: false when the ring is empty, else *item is the oldest item and its slot is free.
__host__ __device__ bool ring_pop(Ring* r, int* item);

// The work queue of task 5b: the host pushes items into `work`, the persistent kernel pops each,
// pushes work(item) into `results`, and returns once `stop` is 1 and `work` is empty.
struct WorkQueue {
  Ring work;
  Ring results;
  int stop;
};
__global__ void queue_server(WorkQueue* q);
// Provided in ring.cu: block 0's thread 0 pushes items 0..items-1 (work(i) each) into the ring,
// block 1's thread 0 pops them into out[0..items-1]; each gives up after `patience` failed tries in
// a row (0: never).
__global__ void ring_pair(Ring* r, int items, int* out, long long patience);

// ---- provided -----------------------------------------------------------------------------------------
// Call it in every host or device wait loop: true while waiting still makes sense. On the device it
// is a no-op (true). On the host it lets the runtime progress and gives up when waiting is useless:
// every 64 calls it asks cudaStreamQuery whether the launch is still running (false when it ended
// or failed), and it gives up after 20 s.
bool host_keep_waiting();  // (harness.cu)
__host__ __device__ inline bool keep_waiting() {
#ifdef __CUDA_ARCH__
  return true;
#else
  return host_keep_waiting();
#endif
}
