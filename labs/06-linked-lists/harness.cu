// Lab 06 (linked lists and worklists): the harness's host side (provided). Each run_* function
// allocates a node pool, launches the student files' kernels under the simulator's current
// settings, copies the pool back and collects the simulator's reports (none on a GPU). A launch
// that fails (a lock that deadlocks inside a warp, a fault) is an outcome here, not an exception:
// the result says finished = false, and the device is reset so that the next run starts clean.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <synclab/regions.h>

#include "lab06.h"
#include "lab06_kernels.cuh"
#include "lab_harness.cuh"

namespace lab06 {

using synclab::lab::check_shape;
using synclab::lab::DeviceArray;
using synclab::lab::TraceScope;

static_assert(kNoNode == kNull, "lab06.h and lab06_kernels.cuh must agree on the null index");
static_assert(kItemsPerThread == kMaxItems, "lab06.h and lab06_kernels.cuh must agree on the items per thread");

const char* name(PushKernel k) {
  switch (k) {
    case PushKernel::locked: return "push_locked";
    case PushKernel::second: return "push_second";
    case PushKernel::lockfree: return "push_lockfree";
  }
  return "?";
}

PushKernel push_kernel(const std::string& n) {
  for (PushKernel k : {PushKernel::locked, PushKernel::second, PushKernel::lockfree})
    if (n == name(k)) return k;
  if (n == "locked") return PushKernel::locked;
  if (n == "second") return PushKernel::second;
  if (n == "lockfree" || n == "cas") return PushKernel::lockfree;
  throw std::invalid_argument("unknown kernel '" + n + "' (locked, second or lockfree)");
}

const char* name(StackKernel k) { return k == StackKernel::naive ? "pop_push_naive" : "pop_push_tagged"; }

const char* name(WorklistKernel k) {
  switch (k) {
    case WorklistKernel::atomic: return "push_atomic";
    case WorklistKernel::warp: return "push_warp_aggregated";
    case WorklistKernel::scan: return "push_scan";
  }
  return "?";
}

WorklistKernel worklist_kernel(const std::string& n) {
  for (WorklistKernel k : {WorklistKernel::atomic, WorklistKernel::warp, WorklistKernel::scan})
    if (n == name(k)) return k;
  if (n == "atomic") return WorklistKernel::atomic;
  if (n == "warp") return WorklistKernel::warp;
  if (n == "scan") return WorklistKernel::scan;
  throw std::invalid_argument("unknown kernel '" + n + "' (atomic, warp or scan)");
}

DeleteInput delete_input(int n, uint32_t seed) {
  DeleteInput in;
  in.value.assign(std::max(n, 0), 0);
  synclab::lab::Xorshift64 random{0x5851f42d4c957f2dull ^ seed};
  for (int& v : in.value) v = int(random.next() % 100);
  for (int i = 0; i < n; ++i) in.order.push_back(i);
  // Fisher-Yates on nodes 1..n-1 (node 0 stays first: the sentinel).
  for (int i = n - 1; i > 1; --i) std::swap(in.order[i], in.order[1 + random.next() % uint64_t(i)]);
  return in;
}

std::vector<int> random_counts(int n, uint32_t seed) {
  std::vector<int> c(std::max(n, 0));
  synclab::lab::Xorshift64 random{0x9e3779b97f4a7c15ull ^ seed};
  for (int& x : c) x = int(random.next() % (kMaxItems + 1));
  return c;
}

namespace {

// Waits for the launch and keeps its reports. Returns false when it failed; then the error is in
// `out` and the device has been reset (its memory is gone: do not copy back).
bool finish_launch(Outcome& out) {
  const synclab::lab::Finish f = synclab::lab::finish_launch(out.reports, synclab::lab::OnFailure::keep_any);
  if (!f.ok) {
    out.finished = false;
    out.error = f.error;
  }
  return f.ok;
}

// A pool of n nodes in device memory: value, next, lock, mark (next starts at kNull, the rest 0).
struct DevicePool {
  DeviceArray<int> value, next, lock, mark;
  explicit DevicePool(int n)
      : value(n, synclab::lab::zeroed), next(n), lock(n, synclab::lab::zeroed), mark(n, synclab::lab::zeroed) {
    next.upload(std::vector<int>(n, kNull));
  }
  Pool view() const { return Pool{value.ptr, next.ptr, lock.ptr, mark.ptr}; }
  PoolState download() const { return PoolState{value.download(), next.download(), lock.download(), mark.download()}; }
  // Names the arrays for the viewer.
  void regions(int n, bool with_locks) const {
    synclab_region(value.ptr, value.bytes(), "value", "array", n);
    synclab_region(next.ptr, next.bytes(), "next", "array", n);
    if (with_locks) synclab_region(lock.ptr, lock.bytes(), "node_locks", "lock-bits", n);
    synclab_region(mark.ptr, mark.bytes(), "mark", "flags", n);
  }
};

}  // namespace

// ---- tasks 1 and 2a ---------------------------------------------------------------------------------
PushResult run_push(PushKernel kernel, int blocks, int threads, int lists, const char* trace) {
  check_shape(blocks, threads);
  if (lists < 1) throw std::invalid_argument("need at least one list");
  const int pushers = blocks * threads;
  const int nodes = pushers + (kernel == PushKernel::second ? lists : 0);
  PushResult r;
  DevicePool pool(nodes);
  DeviceArray<int> head(lists), lock(lists, synclab::lab::zeroed), unpublished(1, synclab::lab::zeroed);
  if (trace) {
    synclab_region(head.ptr, head.bytes(), "head", "array", lists);
    if (kernel == PushKernel::locked) synclab_region(lock.ptr, lock.bytes(), "list_locks", "lock-bits", lists);
    pool.regions(nodes, kernel == PushKernel::second);
  }
  {
    TraceScope scope(trace);  // (the initial contents are copied in while it records)
    pool.next.upload(std::vector<int>(nodes, kNull));
    if (kernel == PushKernel::second) {
      // List l holds node l alone.
      std::vector<int> h(lists), v(nodes, 0);
      for (int l = 0; l < lists; ++l) h[l] = l, v[l] = node_value(l);
      head.upload(h);
      pool.value.upload(v);
    } else {
      head.upload(std::vector<int>(lists, kNull));
    }
    const Lists l{head.ptr, lock.ptr, lists};
    switch (kernel) {
      case PushKernel::locked: push_locked<<<blocks, threads>>>(l, pool.view()); break;
      case PushKernel::second: push_second<<<blocks, threads>>>(l, pool.view()); break;
      case PushKernel::lockfree: push_lockfree<<<blocks, threads>>>(l, pool.view(), unpublished.ptr); break;
    }
    if (!finish_launch(r)) return r;
  }
  r.heads = head.download();
  r.locks = lock.download();
  r.pool = pool.download();
  r.unpublished = unpublished.download()[0];
  return r;
}

// ---- task 2b ----------------------------------------------------------------------------------------
StackResult run_stack(StackKernel kernel, int blocks, int threads, int nodes, int rounds, const char* trace) {
  check_shape(blocks, threads);
  if (nodes < 1 || nodes >= int(kNoIndex)) throw std::invalid_argument("the stack takes 1 to 65534 nodes");
  StackResult r;
  DevicePool pool(nodes);
  std::vector<int> next(nodes);
  for (int i = 0; i < nodes; ++i) next[i] = i + 1 < nodes ? i + 1 : kNull;
  DeviceArray<int> head(1), pops(1, synclab::lab::zeroed);
  if (trace) {
    synclab_region(head.ptr, head.bytes(), "head", "array", 1);
    synclab_region(pool.next.ptr, pool.next.bytes(), "next", "array", nodes);
  }
  {
    TraceScope scope(trace);  // (the initial contents are copied in while it records)
    pool.next.upload(next);
    // The naive stack's head is a node index; the tagged one's a word with tag 0.
    head.upload({kernel == StackKernel::naive ? 0 : int(pack(0, 0))});
    if (kernel == StackKernel::naive)
      pop_push_naive<<<blocks, threads>>>(head.ptr, pool.view(), rounds, pops.ptr);
    else
      pop_push_tagged<<<blocks, threads>>>(reinterpret_cast<unsigned*>(head.ptr), pool.view(), rounds, pops.ptr);
    if (!finish_launch(r)) return r;
  }
  const int word = head.download()[0];
  r.head = kernel == StackKernel::naive ? word : index_of(unsigned(word));
  r.tag = kernel == StackKernel::naive ? 0 : tag_of(unsigned(word));
  r.pops = pops.download()[0];
  r.pool = pool.download();
  return r;
}

// ---- task 3 -----------------------------------------------------------------------------------------
DeleteResult run_delete(const DeleteInput& input, int divisor, int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  const int n = int(input.value.size());
  if (n < 1 || input.order.size() != size_t(n) || input.order[0] != 0)
    throw std::invalid_argument("a deletion input needs n >= 1 nodes in an order that starts at node 0");
  if (divisor < 1) throw std::invalid_argument("--divisor needs a number >= 1");
  DeleteResult r;
  DevicePool pool(n);
  std::vector<int> next(n, kNull);
  for (int k = 0; k + 1 < n; ++k) next[input.order[k]] = input.order[k + 1];
  if (trace) pool.regions(n, false);
  {
    TraceScope scope(trace);  // (the initial contents are copied in while it records)
    pool.value.upload(input.value);
    pool.next.upload(next);
    mark_nodes<<<blocks, threads>>>(pool.view(), n, divisor);
    if (!finish_launch(r)) return r;
    unlink_marked<<<blocks, threads>>>(pool.view(), n);
    if (!finish_launch(r)) return r;
  }
  r.pool = pool.download();
  return r;
}

// ---- task 4 -----------------------------------------------------------------------------------------
WorklistResult run_worklist(WorklistKernel kernel, const std::vector<int>& counts, int blocks, int threads,
                            const char* trace) {
  check_shape(blocks, threads);
  if (counts.size() != size_t(blocks) * threads)
    throw std::invalid_argument("need blocks x threads = " + std::to_string(blocks * threads) + " counts, not " +
                                std::to_string(counts.size()));
  if (kernel == WorklistKernel::warp && threads % 32 != 0)
    throw std::invalid_argument("push_warp_aggregated needs a multiple of 32 threads per block, not " +
                                std::to_string(threads));
  int total = 0;
  for (int c : counts) {
    if (c < 0 || c > kMaxItems)
      throw std::invalid_argument("a count must be in [0, " + std::to_string(kMaxItems) + "]");
    total += c;
  }
  WorklistResult r;
  const int capacity = total + 32;
  DeviceArray<int> dcounts(counts.size()), worklist(capacity), size(1, synclab::lab::zeroed);
  if (trace) {
    synclab_region(dcounts.ptr, dcounts.bytes(), "counts", "array", int(counts.size()));
    synclab_region(size.ptr, size.bytes(), "size", "array", 1);
    synclab_region(worklist.ptr, worklist.bytes(), "worklist", "array", capacity);
  }
  {
    TraceScope scope(trace);  // (the initial contents are copied in while it records)
    dcounts.upload(counts);
    worklist.upload(std::vector<int>(capacity, -1));
    switch (kernel) {
      case WorklistKernel::atomic: push_atomic<<<blocks, threads>>>(dcounts.ptr, worklist.ptr, size.ptr); break;
      case WorklistKernel::warp: push_warp_aggregated<<<blocks, threads>>>(dcounts.ptr, worklist.ptr, size.ptr); break;
      case WorklistKernel::scan: push_scan<<<blocks, threads>>>(dcounts.ptr, worklist.ptr, size.ptr); break;
    }
    if (!finish_launch(r)) return r;
  }
  r.size = size.download()[0];
  r.items = worklist.download();
  return r;
}

// ---- task 6 -------------------------------------------------------------------------------------------
static_assert(kQueueValues == kQueueCapacity, "lab06.h and lab06_kernels.cuh must agree on the capacity");
static_assert(kQueueWords >= 2 * kQueueCapacity + 2, "the queue's words must hold a ring of kQueueCapacity");

QueueResult run_queue_pairs(int blocks, int threads, int rounds, const char* trace) {
  check_shape(blocks, threads);
  if (rounds < 1 || rounds > 100) throw std::invalid_argument("--rounds takes 1..100");
  QueueResult r;
  const size_t pops = size_t(blocks) * threads * rounds;
  DeviceArray<unsigned> q(kQueueWords, synclab::lab::zeroed);
  DeviceArray<int> got(pops);
  q.named("q");
  if (trace) {
    synclab_region(q.ptr, q.bytes(), "q", "array", kQueueWords);
    synclab_region(got.ptr, got.bytes(), "got", "array", int(pops));
  }
  {
    TraceScope scope(trace);
    got.upload(std::vector<int>(pops, -1));
    queue_pairs<<<blocks, threads>>>(q.ptr, rounds, got.ptr);
    if (!finish_launch(r)) return r;
  }
  r.got = got.download();
  return r;
}

std::vector<int> queue_alone_plan() {
  std::vector<int> plan;
  const auto add = [&](int op, int times) { plan.insert(plan.end(), size_t(times), op); };
  add(1, kQueueValues + 1);  // full, then one push too many
  add(0, kQueueValues + 1);  // empty, then one pop too many
  for (int i = 0; i < 5 * kQueueValues / 2; ++i) {  // five laps of the ring, two values at a time
    add(1, 2);
    add(0, 2);
  }
  add(1, 5);  // from the middle of a lap: 5 in, 3 out, 6 in (full), one too many, all out and one more
  add(0, 3);
  add(1, 6);
  add(1, 1);
  add(0, kQueueValues + 1);
  return plan;
}

QueueAloneResult run_queue_alone(const std::vector<int>& plan, const char* trace) {
  if (plan.empty() || plan.size() > 4096) throw std::invalid_argument("a plan has 1..4096 steps");
  QueueAloneResult r;
  const int steps = int(plan.size());
  DeviceArray<unsigned> q(kQueueWords, synclab::lab::zeroed);
  DeviceArray<int> dplan(plan.size()), result(plan.size()), value(plan.size());
  q.named("q");
  if (trace) synclab_region(q.ptr, q.bytes(), "q", "array", kQueueWords);
  {
    TraceScope scope(trace);
    dplan.upload(plan);
    result.upload(std::vector<int>(plan.size(), -1));
    value.upload(std::vector<int>(plan.size(), -1));
    queue_alone<<<1, 1>>>(q.ptr, dplan.ptr, steps, result.ptr, value.ptr);
    if (!finish_launch(r)) return r;
  }
  r.result = result.download();
  r.value = value.download();
  return r;
}

QueueCallCosts queue_call_atomics(const std::vector<int>& plan) {
  QueueCallCosts costs;
  unsigned long long before = 0;
  for (size_t k = 1; k <= plan.size(); ++k) {
    const std::vector<int> prefix(plan.begin(), plan.begin() + long(k));
    synclab_sim_counts c{};
    const QueueAloneResult r = synclab::lab::run_counted([&] { return run_queue_alone(prefix); }, &c);
    if (!r.finished || r.result.size() != k) {
      costs.finished = false;
      break;
    }
    const unsigned long long upto = c.global_atomic_lane_ops + c.shared_atomic_lane_ops;
    costs.result.push_back(r.result[k - 1]);
    costs.atomics.push_back(upto - std::min(upto, before));
    before = upto;
  }
  return costs;
}

}  // namespace lab06
