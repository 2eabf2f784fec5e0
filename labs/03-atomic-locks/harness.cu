// Lab 03 (atomic locks): the harness's host side (provided). Each run_* function allocates,
// launches one of the student files' kernels under the simulator's current settings, copies the
// result back, and collects the simulator's reports (none on a GPU). A launch that fails (the
// naive lock's deadlock under lockstep, a fault) is an outcome here, not an exception: the result
// says finished = false, and the device is reset so that the next run starts clean.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <synclab/regions.h>

#include "lab03.h"
#include "synclab_lab.h"
#include "lab03_kernels.cuh"
#include "lab_harness.cuh"

namespace lab03 {

using synclab::lab::check_shape;
using synclab::lab::DeviceArray;
using synclab::lab::TraceScope;

const char* name(CountKernel k) {
  switch (k) {
    case CountKernel::naive: return "count_naive";
    case CountKernel::locked: return "count_locked";
    case CountKernel::backoff: return "count_backoff";
    case CountKernel::warp_aggregated: return "count_warp_aggregated";
  }
  return "?";
}

std::string puzzle_line(int thread, int which) {
  return "Thread " + std::to_string(thread) + " succeeded " + std::to_string(which) + ".";
}

namespace {
// A line's sort key: by thread number, then by which CAS ("Thread 9" before "Thread 10"); other
// text after them.
std::tuple<int, int, int, std::string> line_key(const std::string& line) {
  int thread = 0, which = 0;
  if (std::sscanf(line.c_str(), "Thread %d succeeded %d.", &thread, &which) == 2)
    return std::make_tuple(0, thread, which, std::string());
  return std::make_tuple(1, 0, 0, line);
}
bool line_less(const std::string& a, const std::string& b) { return line_key(a) < line_key(b); }
}  // namespace

PuzzleOutput normalized(PuzzleOutput out) {
  std::sort(out.begin(), out.end(), line_less);
  return out;
}

bool output_less(const PuzzleOutput& a, const PuzzleOutput& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), line_less);
}

std::vector<int> random_keys(int n, uint32_t seed) {
  std::vector<int> keys(std::max(n, 0));
  synclab::lab::Xorshift64 random{0x9e3779b97f4a7c15ull ^ seed};
  for (int& k : keys) k = int(random.next() % 1000003);
  return keys;
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

}  // namespace

// ---- task 1 and 5 ---------------------------------------------------------------------------------
CountResult run_count(CountKernel kernel, int blocks, int threads, int rounds, const char* trace) {
  check_shape(blocks, threads);
  CountResult r;
  DeviceArray<int> words(3);  // lock, counter, sections
  words.zero();
  Counters c{words.ptr, words.ptr + 1, words.ptr + 2};
  if (trace) {
    synclab_region(c.lock, sizeof(int), "lock", "lock-bits", 32);
    synclab_region(c.counter, 2 * sizeof(int), "counter, sections", "array", 2);
  }
  // The kernel's time, for the speed-graded case of task 5b (simulated time on the simulator).
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  {
    TraceScope scope(trace);
    cudaEventRecord(t0);
    switch (kernel) {
      case CountKernel::naive: count_naive<<<blocks, threads>>>(c, rounds); break;
      case CountKernel::locked: count_locked<<<blocks, threads>>>(c, rounds); break;
      case CountKernel::backoff: count_backoff<<<blocks, threads>>>(c, rounds); break;
      case CountKernel::warp_aggregated: count_warp_aggregated<<<blocks, threads>>>(c, rounds); break;
    }
    if (cudaPeekAtLastError() == cudaSuccess) cudaEventRecord(t1);
    if (!finish_launch(r)) return r;  // (the reset freed the events)
  }
  if (cudaEventElapsedTime(&r.kernel_ms, t0, t1) != cudaSuccess) r.kernel_ms = 0;
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  std::vector<int> h = words.download();
  r.lock = h[0];
  r.counter = h[1];
  r.sections = h[2];
  return r;
}

// ---- task 2 -----------------------------------------------------------------------------------
SingleResult run_single_grid(int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  SingleResult r;
  DeviceArray<int> words(3);  // flag, entered, chosen
  words.zero();
  if (trace) {
    synclab_region(words.ptr, sizeof(int), "single flag", "lock-bits", 32);
    synclab_region(words.ptr + 1, 2 * sizeof(int), "entered, chosen", "array", 2);
  }
  {
    TraceScope scope(trace);
    single_grid<<<blocks, threads>>>(words.ptr, words.ptr + 1, words.ptr + 2);
    if (!finish_launch(r)) return r;
  }
  std::vector<int> h = words.download();
  r.entered = {h[1]};
  r.chosen = {h[2]};
  return r;
}

SingleResult run_single_per_block(int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  SingleResult r;
  DeviceArray<int> entered(blocks), chosen(blocks);
  entered.zero();
  chosen.upload(std::vector<int>(blocks, -1));
  if (trace) {
    synclab_region(entered.ptr, entered.bytes(), "entered (per block)", "array", blocks);
    synclab_region(chosen.ptr, chosen.bytes(), "chosen (per block)", "array", blocks);
  }
  {
    TraceScope scope(trace);
    single_per_block<<<blocks, threads>>>(entered.ptr, chosen.ptr);
    if (!finish_launch(r)) return r;
  }
  r.entered = entered.download();
  r.chosen = chosen.download();
  return r;
}

// ---- task 3 -----------------------------------------------------------------------------------
PuzzleResult run_puzzle(int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  PuzzleResult r;
  const int n = blocks * threads;
  DeviceArray<int> gg(1), lines(1), log(3 * size_t(n));
  gg.zero();
  lines.zero();
  log.zero();
  if (trace) synclab_region(gg.ptr, sizeof(int), "gg", "array", 1);
  {
    TraceScope scope(trace);
    cas_puzzle<<<blocks, threads>>>(gg.ptr, log.ptr, lines.ptr);
    if (!finish_launch(r)) return r;
  }
  const int count = std::min(lines.download()[0], 3 * n);
  std::vector<int> h = log.download();
  for (int i = 0; i < count; ++i) r.output.push_back(puzzle_line(h[i] / 4, h[i] % 4));
  r.output = normalized(r.output);
  return r;
}

// ---- task 4 -----------------------------------------------------------------------------------
BucketResult run_buckets(const std::vector<int>& keys, int buckets, int blocks, int threads,
                         unsigned backoff_ns, const char* trace) {
  check_shape(blocks, threads);
  if (buckets < 1) throw std::invalid_argument("need at least one bucket");
  BucketResult r;
  const int n = int(keys.size());
  const int capacity = std::max(n, 1);  // room for every key in one bucket: no overflow to handle
  DeviceArray<int> d_keys(keys.size()), locks(buckets), counts(buckets), items(size_t(buckets) * capacity);
  d_keys.upload(keys);
  locks.zero();
  counts.zero();
  items.zero();
  if (trace) {
    synclab_region(locks.ptr, locks.bytes(), "bucket locks", "lock-bits", buckets, 32);  // one row per lock word
    synclab_region(counts.ptr, counts.bytes(), "bucket counts", "array", buckets);
  }
  BucketTable t{buckets, capacity, locks.ptr, counts.ptr, items.ptr};
  {
    TraceScope scope(trace);
    insert_keys<<<blocks, threads>>>(d_keys.ptr, n, t, backoff_ns);
    if (!finish_launch(r)) return r;
  }
  r.counts = counts.download();
  r.locks = locks.download();
  std::vector<int> all = items.download();
  r.items.resize(buckets);
  for (int b = 0; b < buckets; ++b) {
    const int k = std::clamp(r.counts[b], 0, capacity);
    r.items[b].assign(all.begin() + size_t(b) * capacity, all.begin() + size_t(b) * capacity + k);
  }
  return r;
}

std::vector<NaiveLaunch> task1a_launches(const std::string& student) {
  static const std::vector<NaiveLaunch> never{{"lockstep", 1, 32}, {"lockstep", 2, 2}, {"lockstep", 1, 2},
                                              {"lockstep", 1, 8}, {"lockstep", 2, 33}};
  static const std::vector<NaiveLaunch> alone{{"lockstep", 4, 1}, {"lockstep", 1, 1}, {"lockstep", 2, 1},
                                              {"lockstep", 3, 1}, {"lockstep", 6, 1}};
  static const std::vector<NaiveLaunch> its{{"its", 1, 32}, {"its", 3, 40}, {"its", 2, 2}, {"its", 1, 2},
                                            {"its", 1, 64}};
  if (student.empty()) return {never[0], its[0], alone[0], never[1], its[1], alone[1]};
  const auto n = synclab::lab::student_pick(student, "lab03 task1a lockstep warps", never, 2);
  const auto a = synclab::lab::student_pick(student, "lab03 task1a lockstep alone", alone, 2);
  const auto i = synclab::lab::student_pick(student, "lab03 task1a its", its, 2);
  return {n[0], i[0], a[0], n[1], i[1], a[1]};
}

std::vector<std::pair<int, int>> task3_small_launches(const std::string& student) {
  if (student.empty()) return {{3, 1}, {1, 2}, {2, 3}};
  std::vector<std::pair<int, int>> pool;
  for (int blocks = 1; blocks <= 3; ++blocks)
    for (int threads = 1; blocks * threads <= 6; ++threads)
      if (blocks * threads >= 2) pool.push_back({blocks, threads});
  return synclab::lab::student_pick(student, "lab03 task3 small", pool, 3);
}

// ---- task 6 -------------------------------------------------------------------------------------
OwnResult run_own(int blocks, int threads, int rounds, const char* trace) {
  check_shape(blocks, threads);
  if (rounds < 1 || rounds > 100) throw std::invalid_argument("--rounds takes 1..100");
  OwnResult r;
  const size_t sections = size_t(blocks) * threads * rounds;
  DeviceArray<unsigned> state(kOwnLockWords, synclab::lab::zeroed);
  DeviceArray<int> words(2, synclab::lab::zeroed);  // requests, counter
  DeviceArray<int> entered(sections);
  SYNCLAB_LAB_CHECK(cudaMemset(entered.ptr, 0xff, entered.bytes()));
  state.named("state");
  if (trace) {
    synclab_region(state.ptr, state.bytes(), "state", "array", kOwnLockWords);
    synclab_region(words.ptr + 1, sizeof(int), "counter", "array", 1);
  }
  {
    TraceScope scope(trace);
    own_count<<<blocks, threads>>>(state.ptr, words.ptr, words.ptr + 1, entered.ptr, rounds);
    if (!finish_launch(r)) return r;
  }
  const std::vector<int> w = words.download();
  r.requests = w[0];
  r.counter = w[1];
  r.entered = entered.download();
  return r;
}

std::string own_problem(const OwnResult& r, int blocks, int threads, int rounds) {
  const int n = blocks * threads, sections = n * rounds;
  if (r.counter != sections)
    return "the sections counted " + std::to_string(r.counter) + ", expected " + std::to_string(sections) +
           " (two sections ran at once and one's count was lost, or a section ran twice or not at all)";
  std::vector<int> seen(size_t(sections), 0);
  for (int k = 0; k < sections; ++k) {
    const int q = r.entered[size_t(k)];
    if (q < 0 || q >= sections) return "section " + std::to_string(k) + " recorded no request (a section ran twice?)";
    if (seen[size_t(q)]++) return "request " + std::to_string(q) + " entered twice";
  }
  return "";
}

std::string own_advice(const OwnResult& r, const std::string& problem) {
  // (a hang in which a lane waits at a reconvergence point for its spinning warp-mates is the same
  // mistake: the simulator calls it a deadlock only when the spinners poll a word that lane wrote)
  const bool parked = !r.reports.empty() && r.reports.front().kind == "hang" &&
                      r.reports.front().text.find("waits at the reconvergence point") != std::string::npos;
  if (!r.finished && !r.reports.empty() && (r.reports.front().kind == "deadlock" || parked))
    return "lanes of one warp wait for each other (the SIMD deadlock of task 1): a lane whose turn it is waits at "
           "the end of its wait loop for warp-mates that spin in it. Run the section and the release inside the "
           "loop, in the branch whose turn it is, and leave the loop only after that (task 1's loop shape). If they "
           "already are inside, the compiler made a loop of its own out of part of the test (a look before the "
           "atomic in the same if, `*v == 0 && atomicCAS(...) == 0`, invites it), and the warp now meets where "
           "your branch starts: take the atomic out of the if (`int old = 1; if (*v == 0) old = atomicCAS(...);`) "
           "and test its result alone (`if (old == 0) { section; release; done = true; }`)";
  // (the skeleton: no lock, so lanes of one warp run the section in one instruction)
  if (!r.reports.empty() && r.reports.front().text.find("lanes of one warp stored") != std::string::npos)
    return "sections ran at the same time, lanes of one warp even in one instruction: nothing keeps them apart "
           "yet. Is TODO(6) done? Run s.run() only while your lock is held";
  if (!r.finished)
    return "a thread waits for a turn that never comes. Read the turn from memory on every pass of the wait loop "
           "(through a volatile pointer, or with an atomic load: a plain load may be read once, before the loop); "
           "give every thread a turn from the first section on (state is 0 before the launch), and pass the turn on "
           "whenever a section ends";
  if (!r.reports.empty() && r.reports.front().kind == "race")
    return "two sections were not ordered: the thread that enters must acquire what the one before it released. "
           "Put a __threadfence() after the read that saw it is your turn, before the section, and one after the "
           "section, before the write that passes the turn on; and make that write and the wait's read volatile "
           "(or atomic): a fence orders the section only with volatile or atomic accesses to the lock's words, "
           "never with plain ones";
  if (!problem.empty()) return "two sections ran at once: is TODO(6) done, and does every thread wait for its turn?";
  return "";
}

}  // namespace lab03
