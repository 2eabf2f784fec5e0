// Lab 02 (Peterson and bakery): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab02.test.cpp) and the harness program (main.cu) both use it. Every run_*
// function launches a kernel under the simulator's current settings (synclab::lab::apply),
// copies the critical section's record back and collects the simulator's reports.
#pragma once

#include <string>
#include <vector>

#include "synclab_report.h"

namespace lab02 {

using synclab::lab::Report;

// Where the threads that share a lock run (lab02_kernels.cuh, Placement).
enum class Where { blocks, warps, lanes };
const char* name(Where w);

enum class TwoThreadKernel { v1, v2, peterson, peterson_lanes };
const char* name(TwoThreadKernel k);

// What one launch did. When the simulator found the kernel stuck (hang or deadlock), `stuck` is
// set, the counts are unknown (-1) and `reports` says where the threads were waiting.
struct LockRun {
  bool stuck = false;
  std::string failure;        // the launch error when stuck or faulted
  int expected_entries = 0;   // threads x rounds
  int entries = -1;           // critical sections completed
  int counter = -1;           // the plain counter incremented inside
  int overlaps = -1;          // entries that found another thread already inside
  int bad_state = -1;         // entries where the lock's words contradicted the algorithm
  std::vector<int> order;     // who entered, in order
  std::vector<int> words;     // the lock's words after the launch (flag[0], flag[1], victim;
                              // or choosing[0..n), label[0..n))
  std::vector<Report> reports;
  bool mutual_exclusion() const { return !stuck && overlaps == 0 && counter == entries; }
  bool completed() const { return !stuck && entries == expected_entries; }
};

// Task 1-3: the two-thread locks. `active` picks the threads that take part (bit i: thread i;
// 1 = thread 0 alone). `fresh` zeroes the lock first; several launches may share one lock
// (run_two_thread_sequence). peterson_lanes ignores `where` (always lanes 0 and 1 of one warp).
LockRun run_two_thread(TwoThreadKernel k, Where where, int rounds, unsigned active = 3u,
                       const char* trace = nullptr);
// Thread 0 alone, then thread 1 alone, in two launches on the same lock: progress when alone.
LockRun run_two_thread_sequence(TwoThreadKernel k, Where where, int rounds);

// Task 4: orderings of Peterson's lock (seed 004), provided kernels, seq_cst words. 0-3 are the
// seed's four; 4-7 write the other thread's id into victim (the `turn` of many textbooks) or wait
// on the other value:
//   0: flag[me]=1; victim=me; while (flag[other] && victim == me)   (Peterson's lock)
//   1: victim=me; flag[me]=1; while (flag[other] && victim == me)
//   2: victim=me; flag[me]=1; while (victim == me && flag[other])
//   3: flag[me]=1; victim=me; while (victim == me && flag[other])
//   4: flag[me]=1; victim=other; while (flag[other] && victim == other)
//   5: victim=other; flag[me]=1; while (flag[other] && victim == other)
//   6: flag[me]=1; victim=other; while (flag[other] && victim == me)
//   7: flag[me]=1; victim=other; while (victim == other && flag[other])
// What to do when task 3c's kernel gets stuck under lockstep (the graded test and `lab02
// peterson-lanes` say it).
constexpr const char* kLanesLockstepAdvice =
    "stuck under lockstep: the warp runs one path at a time, so while one lane spins for its warp-mate the "
    "warp-mate's path never runs, task 3b's deadlock. Keep both lanes in one loop while either still wants in "
    "(__any_sync(0x3u, waiting) gives both the same answer, so the loop's exit does not split the warp), and inside "
    "it let the lane that may enter run critical_section and its unlock: the README's hint for 3c";
constexpr int kOrderings = 8;
extern const char* const kOrderingText[kOrderings];
LockRun run_ordering(int ordering, Where where, int rounds, const char* trace = nullptr);
// The four orderings task 4a is graded on for a student id (synclab::lab::student_id()): 0, 1, 2
// and 3 without an id; with one, four of the eight drawn by the id.
std::vector<int> task4a_orderings(const std::string& student);

// Task 4b on the simulator: Peterson's lock with release stores and acquire loads (what FIFO
// store buffers keep), run under SYNCLAB_MEMORY=relaxed by the caller.
LockRun run_store_buffered(Where where, int rounds, const char* trace = nullptr);

// Watching the memory model (not graded): message passing. Thread 0 (block 0) stores data = 42,
// then raises flag; thread 1 (block 1) waits until it sees the flag, then copies data into seen.
// Relaxed atomics for the flag, a plain store and load for data; with `fence`, a __threadfence()
// after the writer's data store and after the reader's wait. words = {data, flag, seen}.
LockRun run_message_passing(bool fence, const char* trace = nullptr);

// Task 5: the bakery lock for n threads.
LockRun run_bakery(int n, Where where, int rounds, const char* trace = nullptr);

// Benchmarks and comparisons: an atomicCAS spin lock around the same critical section.
LockRun run_atomic_lock(int n, Where where, int rounds);

// ---- the student's answers (two_thread_locks.cu) ---------------------------------------------
enum class Verdict { unknown, safe, breaks };
const char* name(Verdict v);
// Does the ordering keep mutual exclusion under every interleaving (sequential consistency)?
Verdict ordering_verdict(int ordering);
// Does Peterson's lock (ordering 0) keep mutual exclusion on a machine where each thread's stores
// may wait in a FIFO store buffer while its later loads go ahead (processor consistency)?
Verdict peterson_with_store_buffers();

}  // namespace lab02
