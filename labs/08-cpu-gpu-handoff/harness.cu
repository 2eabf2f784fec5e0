// Lab 08 (the CPU-GPU handoff): the harness's host side (provided). Each run_* function sets up
// mapped pinned memory (or device memory), launches the student's kernels under the simulator's
// current settings, plays the host's part while the kernel runs, and collects the simulator's
// reports (none on a GPU). A launch that fails (a hang, a fault) is an outcome here, not an
// exception: the result says finished = false, and the device is reset so that the next run starts
// clean.
#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <synclab/regions.h>

#include "host_writes.h"
#include "lab08.h"
#include "lab08_kernels.cuh"
#include "lab_harness.cuh"

namespace {

using synclab::lab::DeviceArray;
using synclab::lab::finish_launch;
using synclab::lab::OnFailure;
using synclab::lab::TraceScope;

// ---- waiting on the host ---------------------------------------------------------------------------------

// When the host stops waiting for a kernel that does not answer (set by each run).
std::chrono::steady_clock::time_point g_give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
constexpr std::chrono::seconds kHostPatience{20};
// keep_waiting() found the launch ended once: the caller has had one more look since.
bool g_saw_end = false;

void start_waiting() {
  g_give_up = std::chrono::steady_clock::now() + kHostPatience;
  g_saw_end = false;
}

// True when this run records a trace: then the regions the viewer draws are named afresh (the
// names of earlier runs' memory, freed since, are forgotten).
bool naming_regions(const char* trace) {
  if (!trace || !*trace) return false;
  synclab::regions::clear();
  return true;
}

// Pinned host memory mapped into the device's address space: `host` for host code, `device` for
// kernels; zeroed at the start, freed at the end.
template <class T>
struct Mapped {
  T* host = nullptr;
  T* device = nullptr;
  Mapped() {
    SYNCLAB_LAB_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), sizeof(T), cudaHostAllocMapped));
    std::memset(static_cast<void*>(host), 0, sizeof(T));
    SYNCLAB_LAB_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), host, 0));
  }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  ~Mapped() {
    if (generation_ == synclab::lab::device_generation()) cudaFreeHost(host);
  }

 private:
  int generation_ = synclab::lab::device_generation();
};

// Waits (bounded) for the launch in flight to end by itself: false when it still runs after the
// host's patience. On the simulator a kernel stuck in a spin ends with a hang report first.
bool wait_for_return() {
  start_waiting();
  while (cudaStreamQuery(0) == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() > g_give_up) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// Finishes a launch: its reports into `out`; a failure is an outcome (the device is reset).
void finish(lab08::Outcome& out) {
  const synclab::lab::Finish f = finish_launch(out.reports, OnFailure::keep_any);
  if (!f.ok && out.finished) {
    out.finished = false;
    out.error = f.error;
  }
}

// ---- the slides' version of task 4 (for the exploration to find its bad schedule) -------------------------
// The loops of seed 004's "Persistent Kernels" slide, one per side: wait for a number of my
// parity, print it, add one, and go on while the counter is below `last`. The counter is read and
// written through system-scope atomics, so the only fault left is the slide's question.
__device__ void play_turns_slides(int* counter, int* printed, int parity, int last) {
  SystemAtomic<int> c(*counter);
  do {
    while (c.load(cuda::memory_order_acquire) % 2 != parity) {
    }
    const int v = c.load(cuda::memory_order_relaxed);
    print_number(printed, v, last, 1 + parity);
    c.store(v + 1, cuda::memory_order_release);
  } while (c.load(cuda::memory_order_acquire) < last);
}

__global__ void odd_even_blocks_slides(int* counter, int* printed, int last) {
  if (threadIdx.x == 0 && blockIdx.x < 2) play_turns_slides(counter, printed, int(blockIdx.x), last);
}

}  // namespace

bool host_keep_waiting() {
  thread_local unsigned calls = 0;
  if (++calls % 64 == 0) {
    // Let the runtime progress (and notice a launch that ended or failed: nothing will answer).
    // A kernel may write its last answer and return between the caller's look and this query:
    // once it has ended its writes are all visible, so the caller looks again (64 more times)
    // before it gives up. On a GPU, giving up at once lost the last result of task 5b's queue
    // when the kernel returned right after answering it.
    if (cudaStreamQuery(0) != cudaErrorNotReady) {
      if (g_saw_end) return false;
      g_saw_end = true;
      return true;
    }
    if (std::chrono::steady_clock::now() > g_give_up) return false;
    std::this_thread::yield();
  }
  return true;
}

namespace lab08 {

const char* name(Method m) {
  switch (m) {
    case Method::memcpy_launch: return "memcpy";
    case Method::mapped_launch: return "mapped";
    case Method::persistent: return "persistent";
    case Method::one_word: return "word";
  }
  return "?";
}

Method method(const std::string& n) {
  for (Method m : {Method::memcpy_launch, Method::mapped_launch, Method::persistent, Method::one_word})
    if (n == name(m)) return m;
  throw std::invalid_argument("unknown method '" + n + "' (memcpy, mapped, persistent or word)");
}

namespace {

// Tasks 3 and 3b, once their persistent kernel is launched: `rounds` chained round trips from x
// (stopping at the first -1), then the stop, then the kernel must return by itself.
template <class RoundTrip, class Stop>
void serve_rounds(RoundTrips& r, int x, int rounds, const char* stop_name, RoundTrip roundtrip, Stop stop) {
  for (int k = 1; k <= rounds; ++k) {
    x = roundtrip(x, unsigned(k));
    r.results.push_back(x);
    if (x == -1) break;
  }
  stop();
  r.stopped = wait_for_return();
  if (r.stopped) {
    finish(r);
  } else {
    // Still running after 20 s (on a GPU: it never returns). Say so; the process cannot go on.
    r.finished = false;
    r.error = std::string("the kernel did not return within 20 s of ") + stop_name;
  }
}

}  // namespace

RoundTrips run_roundtrips(Method m, int start, int rounds, const char* trace) {
  RoundTrips r;
  start_waiting();
  int x = start;
  if (m == Method::memcpy_launch) {
    DeviceArray<int> value(1, synclab::lab::zeroed);
    TraceScope scope(trace);
    for (int k = 0; k < rounds && r.finished; ++k) {
      x = roundtrip_memcpy(value.ptr, x);
      finish(r);
      r.results.push_back(x);
    }
  } else if (m == Method::mapped_launch) {
    Mapped<int> value;
    if (naming_regions(trace)) {
      synclab_region(value.device, sizeof(int), "value", "array", 1);
    }
    TraceScope scope(trace);
    for (int k = 0; k < rounds && r.finished; ++k) {
      x = roundtrip_mapped(value.host, value.device, x);
      finish(r);
      r.results.push_back(x);
    }
  } else if (m == Method::one_word) {
    Mapped<WordBox> box;
    if (naming_regions(trace)) {
      synclab_region(&box.device->to_gpu.word, sizeof(unsigned long long), "to_gpu", "flags", 1);
      synclab_region(&box.device->to_host.word, sizeof(unsigned long long), "to_host", "flags", 1);
    }
    TraceScope scope(trace);
    word_server<<<1, 32>>>(box.device);
    serve_rounds(r, x, rounds, "stop_word_server", [&](int v, unsigned k) { return roundtrip_word(box.host, v, k); },
                 [&] { stop_word_server(box.host); });
  } else {
    Mapped<Mailbox> mb;
    if (naming_regions(trace)) {
      synclab_region(&mb.device->asked, 2 * sizeof(unsigned), "asked_answered", "flags", 2);
      synclab_region(&mb.device->request, 2 * sizeof(int), "request_answer", "array", 2);
    }
    TraceScope scope(trace);
    persistent_server<<<1, 32>>>(mb.device);
    serve_rounds(r, x, rounds, "stop_server", [&](int v, unsigned k) { return roundtrip_persistent(mb.host, v, k); },
                 [&] { stop_server(mb.host); });
  }
  return r;
}

HostOrder run_host_order(int x, unsigned round) {
  namespace hw = synclab::lab::host_writes;
  HostOrder h;
  h.supported = hw::supported();
  hw::PageBlock page;
  auto* mb = static_cast<Mailbox*>(page.ptr);
  mb->request = x == 1 ? 2 : 1;  // the request of an earlier round
  mb->asked = round - 1;
  mb->answer = work(x);
  mb->answered = round;
  start_waiting();
  const std::vector<hw::Write> writes =
      hw::record(mb, sizeof(Mailbox), [&] { h.result = roundtrip_persistent(mb, x, round); });
  for (const hw::Write& w : writes) {
    const char* field = w.offset == offsetof(Mailbox, request)    ? "request"
                        : w.offset == offsetof(Mailbox, answer)   ? "answer"
                        : w.offset == offsetof(Mailbox, asked)    ? "asked"
                        : w.offset == offsetof(Mailbox, answered) ? "answered"
                        : w.offset == offsetof(Mailbox, stop)     ? "stop"
                                                                  : "?";
    h.writes.push_back(HostWrite{field, int(w.value)});
  }
  return h;
}

OddEven run_odd_even(Sides sides, Version version, int last, const char* trace) {
  if (last < 1 || last > 1000) throw std::invalid_argument("--last takes 1..1000");
  if (version == Version::slides && sides != Sides::blocks)
    throw std::invalid_argument("the slides' version runs between two blocks only");
  OddEven r;
  start_waiting();
  if (sides == Sides::blocks) {
    DeviceArray<int> counter(1, synclab::lab::zeroed), printed(size_t(last) + 2, synclab::lab::zeroed);
    if (naming_regions(trace)) {
      synclab_region(counter.ptr, sizeof(int), "counter", "array", 1);
      synclab_region(printed.ptr, (size_t(last) + 1) * sizeof(int), "printed", "array", last + 1);
    }
    {
      TraceScope scope(trace);
      if (version == Version::slides)
        odd_even_blocks_slides<<<2, 32>>>(counter.ptr, printed.ptr, last);
      else
        odd_even_blocks<<<2, 32>>>(counter.ptr, printed.ptr, last);
      finish(r);
    }
    if (r.finished) {
      r.printed = printed.download();
      r.counter = counter.download()[0];
    }
  } else {
    Mapped<int> counter;
    int* h_printed = nullptr;
    int* d_printed = nullptr;
    SYNCLAB_LAB_CHECK(
        cudaHostAlloc(reinterpret_cast<void**>(&h_printed), (size_t(last) + 2) * sizeof(int), cudaHostAllocMapped));
    std::memset(h_printed, 0, (size_t(last) + 2) * sizeof(int));
    SYNCLAB_LAB_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_printed), h_printed, 0));
    if (naming_regions(trace)) {
      synclab_region(counter.device, sizeof(int), "counter", "array", 1);
    }
    const int generation = synclab::lab::device_generation();
    {
      TraceScope scope(trace);
      odd_side<<<1, 32>>>(counter.device, d_printed, last);
      play_turns(counter.host, h_printed, 0, last);  // the CPU's side, while the kernel runs
      const bool returned = wait_for_return();
      // Read the printout first: after a failed launch finish() resets the device, which frees it.
      r.printed.assign(h_printed, h_printed + last + 2);
      r.counter = *counter.host;
      if (returned)
        finish(r);
      else {
        r.finished = false;
        r.error = "the kernel did not return within 20 s of the host's last turn";
      }
    }
    if (generation == synclab::lab::device_generation()) cudaFreeHost(h_printed);
  }
  return r;
}

RingRun run_ring_blocks(int items, const char* trace) {
  if (items < 1 || items > 100000) throw std::invalid_argument("--items takes 1..100000");
  RingRun r;
  DeviceArray<Ring> ring(1, synclab::lab::zeroed);
  DeviceArray<int> out{size_t(items)};
  SYNCLAB_LAB_CHECK(cudaMemset(out.ptr, 0xff, out.bytes()));  // -1: nothing popped
  if (naming_regions(trace)) {
    synclab_region(ring.ptr, 2 * sizeof(unsigned), "head_tail", "array", 2);
    synclab_region(&ring.ptr->slot[0], sizeof(ring.ptr->slot), "slots", "array", int(kRingSize));
  }
  {
    TraceScope scope(trace);
    ring_pair<<<2, 32>>>(ring.ptr, items, out.ptr, synclab::lab::on_simulator() ? 0 : (1ll << 26));
    finish(r);
  }
  if (r.finished) r.out = out.download();
  return r;
}

const char* name(StopWhen w) { return w == StopWhen::after_results ? "last-result" : "last-item"; }

StopWhen stop_when(const std::string& n) {
  for (StopWhen w : {StopWhen::after_results, StopWhen::with_last_item})
    if (n == name(w)) return w;
  throw std::invalid_argument("unknown --stop '" + n + "' (last-result or last-item)");
}

RingRun run_queue(int items, const char* trace, StopWhen when) {
  if (items < 1 || items > 1000000) throw std::invalid_argument("--items takes 1..1000000");
  RingRun r;
  start_waiting();
  Mapped<WorkQueue> q;
  if (naming_regions(trace)) {
    synclab_region(&q.device->work, sizeof(Ring), "work_ring", "array", int(sizeof(Ring) / sizeof(int)));
    synclab_region(&q.device->results, sizeof(Ring), "results_ring", "array", int(sizeof(Ring) / sizeof(int)));
  }
  TraceScope scope(trace);
  queue_server<<<1, 32>>>(q.device);
  // The host's side: push the items and pop the results, as either ring allows. With
  // StopWhen::with_last_item the last item waits until every earlier result is back, and the stop
  // flag follows it at once.
  const bool with_last = when == StopWhen::with_last_item;
  bool stop_set = false;
  int pushed = 0;
  while (int(r.out.size()) < items) {
    const bool hold_last = with_last && pushed == items - 1 && int(r.out.size()) < items - 1;
    if (pushed < items && !hold_last && ring_push(&q.host->work, queue_item(pushed))) {
      ++pushed;
      if (with_last && pushed == items) {
        SystemAtomic<int>(q.host->stop).store(1, cuda::memory_order_release);
        stop_set = true;
      }
    }
    int result;
    if (ring_pop(&q.host->results, &result))
      r.out.push_back(result);
    else if (!keep_waiting())
      break;
  }
  if (!stop_set) SystemAtomic<int>(q.host->stop).store(1, cuda::memory_order_release);
  r.stopped = wait_for_return();
  if (r.stopped)
    finish(r);
  else {
    r.finished = false;
    r.error = "the kernel did not return within 20 s of the stop flag";
  }
  return r;
}

}  // namespace lab08
