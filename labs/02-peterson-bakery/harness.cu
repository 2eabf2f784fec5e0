// Lab 02 (Peterson and bakery): the harness's host side (provided). Each run_* function zeroes a
// lock and a critical-section record, launches one kernel under the simulator's current
// settings, and copies the record back. A launch the simulator finds stuck (hang, deadlock) is a
// result here, not an error: v1 and v2 are supposed to get stuck in some schedules. After one,
// the device is reset (the error is sticky, as on a GPU) so that the next run starts clean.
// Also here: the orderings of Peterson's lock (task 4) and an atomicCAS lock to compare with.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <synclab/regions.h>

#include "lab02.h"
#include "synclab_lab.h"
#include "lab02_kernels.cuh"
#include "lab_harness.cuh"

namespace lab02 {

using synclab::lab::DeviceArray;
using synclab::lab::TraceScope;
using synclab::lab::zeroed;

const char* const kOrderingText[kOrderings] = {
    "flag[me]=1; victim=me; while (flag[other] && victim == me)",
    "victim=me; flag[me]=1; while (flag[other] && victim == me)",
    "victim=me; flag[me]=1; while (victim == me && flag[other])",
    "flag[me]=1; victim=me; while (victim == me && flag[other])",
    "flag[me]=1; victim=other; while (flag[other] && victim == other)",
    "victim=other; flag[me]=1; while (flag[other] && victim == other)",
    "flag[me]=1; victim=other; while (flag[other] && victim == me)",
    "flag[me]=1; victim=other; while (victim == other && flag[other])",
};

std::vector<int> task4a_orderings(const std::string& student) {
  if (student.empty()) return {0, 1, 2, 3};
  std::vector<int> pool;
  for (int o = 0; o < kOrderings; ++o) pool.push_back(o);
  std::vector<int> mine = synclab::lab::student_pick(student, "lab02 task4a orderings", pool, 4);
  std::sort(mine.begin(), mine.end());
  return mine;
}

const char* name(Where w) {
  switch (w) {
    case Where::blocks: return "blocks";
    case Where::warps: return "warps";
    case Where::lanes: return "lanes";
  }
  return "?";
}

const char* name(TwoThreadKernel k) {
  switch (k) {
    case TwoThreadKernel::v1: return "v1";
    case TwoThreadKernel::v2: return "v2";
    case TwoThreadKernel::peterson: return "peterson";
    case TwoThreadKernel::peterson_lanes: return "peterson_lanes";
  }
  return "?";
}

const char* name(Verdict v) {
  switch (v) {
    case Verdict::unknown: return "unknown";
    case Verdict::safe: return "safe";
    case Verdict::breaks: return "breaks";
  }
  return "?";
}

// ---- provided kernels: the orderings and the atomic lock ----------------------------------------

// Ordering `ordering` of lab02.h's list: which store comes first, which id goes into victim, which
// id the loop waits on, and which word the loop tests first.
__device__ inline void ordering_lock(TwoThreadLock* l, int me, int ordering) {
  const int other = 1 - me;
  const bool flag_first = ordering != 1 && ordering != 2 && ordering != 5;
  const int written = ordering < 4 ? me : other;
  const int waited = ordering < 4 || ordering == 6 ? me : other;
  const bool flag_tested_first = ordering != 2 && ordering != 3 && ordering != 7;
  if (flag_first) {
    Ref(l->flag[me]).store(1);
    Ref(l->victim).store(written);
  } else {
    Ref(l->victim).store(written);
    Ref(l->flag[me]).store(1);
  }
  if (flag_tested_first) {
    while (Ref(l->flag[other]).load() != 0 && Ref(l->victim).load() == waited) {
    }
  } else {
    while (Ref(l->victim).load() == waited && Ref(l->flag[other]).load() != 0) {
    }
  }
}

// Task 4b on the simulator: Peterson's lock whose doorway stores are releases and whose test loads
// are acquires, the orders a processor with FIFO store buffers gives (a store is seen after every
// earlier one, a load after every earlier load), without its one relaxation forbidden: a load may
// go ahead of an earlier store to another word. Run under SYNCLAB_MEMORY=relaxed.
__global__ void store_buffered_kernel(TwoThreadLock* l, CriticalState* cs, int rounds, int placement) {
  const int me = participant(placement, 2, 3u);
  if (me < 0) return;
  const int other = 1 - me;
  for (int r = 0; r < rounds; ++r) {
    Ref(l->flag[me]).store(1, cuda::memory_order_release);
    Ref(l->victim).store(me, cuda::memory_order_release);
    while (Ref(l->flag[other]).load(cuda::memory_order_acquire) != 0 &&
           Ref(l->victim).load(cuda::memory_order_acquire) == me) {
    }
    critical_section(cs, me, Ref(l->flag[me]).load() != 0);
    Ref(l->flag[me]).store(0, cuda::memory_order_release);
  }
}

__global__ void ordering_kernel(TwoThreadLock* l, CriticalState* cs, int rounds, int placement, int ordering) {
  const int me = participant(placement, 2, 3u);
  if (me < 0) return;
  for (int r = 0; r < rounds; ++r) {
    ordering_lock(l, me, ordering);
    critical_section(cs, me, Ref(l->flag[me]).load() != 0);
    Ref(l->flag[me]).store(0);
  }
}

// Message passing (lab02.h, run_message_passing): publish data through a flag.
struct Message {
  int data, flag, seen;
};
__global__ void message_passing_kernel(Message* m, int fence) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    m->data = 42;
    if (fence) __threadfence();
    Ref(m->flag).store(1, cuda::memory_order_relaxed);
  } else {
    while (Ref(m->flag).load(cuda::memory_order_relaxed) == 0) {
    }
    if (fence) __threadfence();
    m->seen = m->data;
  }
}

// The usual GPU lock: atomicCAS with acquire to take it, a release store to give it back.
__global__ void atomic_lock_kernel(int* lock, CriticalState* cs, int n, int rounds, int placement) {
  const int me = participant(placement, n, ~0u);
  if (me < 0) return;
  Ref word(*lock);
  for (int r = 0; r < rounds; ++r) {
    int expected = 0;
    while (!word.compare_exchange_weak(expected, 1, cuda::memory_order_acquire, cuda::memory_order_relaxed))
      expected = 0;
    critical_section(cs, me, true);
    word.store(0, cuda::memory_order_release);
  }
}

namespace {

int launch_shape_check(Where where, int n) {
  if (n < 1 || n > kMaxBakery) throw std::invalid_argument("the lock takes 1 to 32 threads, not " + std::to_string(n));
  if (where == Where::warps && n > 32) throw std::invalid_argument("at most 32 warps in one block");
  return n;
}

dim3 grid_of(Where where, int n) { return where == Where::blocks ? dim3(n) : dim3(1); }
dim3 block_of(Where where, int n) {
  return where == Where::blocks ? dim3(1) : where == Where::warps ? dim3(32 * n) : dim3(32);
}
int placement_of(Where where) {
  return where == Where::blocks ? kBlocks : where == Where::warps ? kWarps : kLanes;
}

// Waits for the launch and appends its reports. Returns false when the simulator found the
// kernel stuck; throws on any other launch error (a fault in the kernel, a bad launch).
bool finish_launch(LockRun& r) {
  const synclab::lab::Finish f = synclab::lab::finish_launch(r.reports, synclab::lab::OnFailure::keep_stuck);
  if (f.stuck) {
    r.stuck = true;
    r.failure = f.error;
  }
  return f.ok;
}

// After a stuck launch: clear the sticky error so that the next run can allocate again.
void recover(const LockRun& r) {
  if (r.stuck) synclab::lab::reset_device();
}

void read_record(const DeviceArray<CriticalState>& cs, LockRun& r) {
  CriticalState h = cs.download()[0];
  r.entries = h.entries;
  r.counter = h.counter;
  r.overlaps = h.overlaps;
  r.bad_state = h.bad_state;
  r.order.assign(h.log, h.log + std::min(h.entries, kMaxLog));
}

void name_two_thread_regions(TwoThreadLock* l, CriticalState* cs) {
  synclab_region(&l->flag[0], 2 * sizeof(int), "flag[0] flag[1]", "flags", 2);
  synclab_region(&l->victim, sizeof(int), "victim", "array", 1);
  synclab_region(&cs->inside, sizeof(int), "inside the critical section", "array", 1);
  synclab_region(&cs->counter, sizeof(int), "counter", "array", 1);
}

void launch_two(TwoThreadKernel k, Where where, TwoThreadLock* l, CriticalState* cs, int rounds, unsigned active) {
  const int p = placement_of(where);
  switch (k) {
    case TwoThreadKernel::v1: v1_kernel<<<grid_of(where, 2), block_of(where, 2)>>>(l, cs, rounds, p, active); break;
    case TwoThreadKernel::v2: v2_kernel<<<grid_of(where, 2), block_of(where, 2)>>>(l, cs, rounds, p, active); break;
    case TwoThreadKernel::peterson:
      peterson_kernel<<<grid_of(where, 2), block_of(where, 2)>>>(l, cs, rounds, p, active);
      break;
    case TwoThreadKernel::peterson_lanes: peterson_lanes_kernel<<<1, 32>>>(l, cs, rounds); break;
  }
}

int popcount2(unsigned active) { return int(active & 1u) + int((active >> 1) & 1u); }

}  // namespace

LockRun run_two_thread(TwoThreadKernel k, Where where, int rounds, unsigned active, const char* trace) {
  if (rounds < 1 || 2 * rounds > kMaxLog) throw std::invalid_argument("rounds must be 1.." + std::to_string(kMaxLog / 2));
  LockRun r;
  r.expected_entries = popcount2(active) * rounds;
  {
    DeviceArray<TwoThreadLock> lock(1, zeroed);
    DeviceArray<CriticalState> cs(1, zeroed);
    if (trace) name_two_thread_regions(lock.ptr, cs.ptr);
    TraceScope scope(trace);
    launch_two(k, where, lock.ptr, cs.ptr, rounds, active);
    if (finish_launch(r)) {
      read_record(cs, r);
      TwoThreadLock h = lock.download()[0];
      r.words = {h.flag[0], h.flag[1], h.victim};
    }
  }
  recover(r);
  return r;
}

LockRun run_two_thread_sequence(TwoThreadKernel k, Where where, int rounds) {
  if (rounds < 1 || 2 * rounds > kMaxLog) throw std::invalid_argument("rounds must be 1.." + std::to_string(kMaxLog / 2));
  LockRun r;
  r.expected_entries = 2 * rounds;
  {
    DeviceArray<TwoThreadLock> lock(1, zeroed);
    DeviceArray<CriticalState> cs(1, zeroed);
    launch_two(k, where, lock.ptr, cs.ptr, rounds, 1u);
    if (finish_launch(r)) {
      launch_two(k, where, lock.ptr, cs.ptr, rounds, 2u);
      if (finish_launch(r)) {
        read_record(cs, r);
        TwoThreadLock h = lock.download()[0];
        r.words = {h.flag[0], h.flag[1], h.victim};
      }
    }
  }
  recover(r);
  return r;
}

namespace {
// One launch of a provided two-thread kernel on a fresh lock: `launch(lock, cs)` starts it.
template <class Launch>
LockRun run_provided_two_thread(int rounds, const char* trace, Launch launch) {
  if (rounds < 1 || 2 * rounds > kMaxLog) throw std::invalid_argument("rounds must be 1.." + std::to_string(kMaxLog / 2));
  LockRun r;
  r.expected_entries = 2 * rounds;
  {
    DeviceArray<TwoThreadLock> lock(1, zeroed);
    DeviceArray<CriticalState> cs(1, zeroed);
    if (trace) name_two_thread_regions(lock.ptr, cs.ptr);
    TraceScope scope(trace);
    launch(lock.ptr, cs.ptr);
    if (finish_launch(r)) {
      read_record(cs, r);
      TwoThreadLock h = lock.download()[0];
      r.words = {h.flag[0], h.flag[1], h.victim};
    }
  }
  recover(r);
  return r;
}
}  // namespace

LockRun run_ordering(int ordering, Where where, int rounds, const char* trace) {
  if (ordering < 0 || ordering >= kOrderings) throw std::invalid_argument("ordering is 0..7");
  return run_provided_two_thread(rounds, trace, [&](TwoThreadLock* l, CriticalState* cs) {
    ordering_kernel<<<grid_of(where, 2), block_of(where, 2)>>>(l, cs, rounds, placement_of(where), ordering);
  });
}

LockRun run_store_buffered(Where where, int rounds, const char* trace) {
  return run_provided_two_thread(rounds, trace, [&](TwoThreadLock* l, CriticalState* cs) {
    store_buffered_kernel<<<grid_of(where, 2), block_of(where, 2)>>>(l, cs, rounds, placement_of(where));
  });
}

LockRun run_bakery(int n, Where where, int rounds, const char* trace) {
  launch_shape_check(where, n);
  if (rounds < 1 || n * rounds > kMaxLog) throw std::invalid_argument("threads x rounds must be at most " + std::to_string(kMaxLog));
  LockRun r;
  r.expected_entries = n * rounds;
  {
    DeviceArray<BakeryLock> lock(1, zeroed);
    DeviceArray<CriticalState> cs(1, zeroed);
    if (trace) {
      synclab_region(&lock.ptr->choosing[0], n * sizeof(int), "choosing", "flags", n);
      synclab_region(&lock.ptr->label[0], n * sizeof(int), "label", "array", n);
      synclab_region(&cs.ptr->inside, sizeof(int), "inside the critical section", "array", 1);
      synclab_region(&cs.ptr->counter, sizeof(int), "counter", "array", 1);
    }
    TraceScope scope(trace);
    bakery_kernel<<<grid_of(where, n), block_of(where, n)>>>(lock.ptr, cs.ptr, n, rounds, placement_of(where));
    if (finish_launch(r)) {
      read_record(cs, r);
      BakeryLock h = lock.download()[0];
      r.words.assign(h.choosing, h.choosing + n);
      r.words.insert(r.words.end(), h.label, h.label + n);
    }
  }
  recover(r);
  return r;
}

LockRun run_message_passing(bool fence, const char* trace) {
  LockRun r;
  {
    DeviceArray<Message> m(1, zeroed);
    SYNCLAB_LAB_CHECK(cudaMemset(&m.ptr->seen, 0xff, sizeof(int)));  // -1: the reader never copied
    if (trace) {
      synclab_region(&m.ptr->data, sizeof(int), "data", "array", 1);
      synclab_region(&m.ptr->flag, sizeof(int), "flag", "flags", 1);
      synclab_region(&m.ptr->seen, sizeof(int), "seen (the reader's copy of data)", "array", 1);
    }
    TraceScope scope(trace);
    message_passing_kernel<<<2, 1>>>(m.ptr, fence ? 1 : 0);
    if (finish_launch(r)) {
      Message h = m.download()[0];
      r.words = {h.data, h.flag, h.seen};
    }
  }
  recover(r);
  return r;
}

LockRun run_atomic_lock(int n, Where where, int rounds) {
  launch_shape_check(where, n);
  if (rounds < 1) throw std::invalid_argument("rounds must be at least 1");
  LockRun r;
  r.expected_entries = n * rounds;
  {
    DeviceArray<int> lock(1, zeroed);
    DeviceArray<CriticalState> cs(1, zeroed);
    atomic_lock_kernel<<<grid_of(where, n), block_of(where, n)>>>(lock.ptr, cs.ptr, n, rounds, placement_of(where));
    if (finish_launch(r)) read_record(cs, r);
  }
  recover(r);
  return r;
}

}  // namespace lab02
