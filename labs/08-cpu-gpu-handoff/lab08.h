// Lab 08 (the CPU-GPU handoff): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab08.test.cpp) and the harness program (main.cu) both use it. Every run_* function
// sets up the memory, launches the student's kernels under the simulator's current settings
// (synclab::lab::apply), plays the host's side while the kernel runs where the task has one, and
// collects the simulator's reports. A launch that ends in a hang, a deadlock or a fault does not
// throw: the result says finished = false and carries the error and the reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "synclab_lab.h"

namespace lab08 {

using synclab::lab::Report;

// What every run returns besides its data.
struct Outcome {
  bool finished = true;         // false: a launch failed (hang, deadlock, fault, bad launch)
  std::string error;            // CUDA's message when it failed
  std::vector<Report> reports;  // the simulator's reports of the launches (none on a GPU)
};

// ---- tasks 1-3: round trips ---------------------------------------------------------------------------
enum class Method {
  memcpy_launch,  // task 1: roundtrip_memcpy
  mapped_launch,  // task 2: roundtrip_mapped
  persistent,     // task 3: persistent_server + roundtrip_persistent + stop_server
  one_word,       // task 3b: word_server + roundtrip_word + stop_word_server
};
const char* name(Method m);              // "memcpy", "mapped", "persistent", "word"
Method method(const std::string& name);  // from name(); throws std::invalid_argument
struct RoundTrips : Outcome {
  std::vector<int> results;  // what each round trip returned, in order
  bool stopped = true;       // persistent, word: the kernel returned after the stop (within 20 s)
};
// `rounds` round trips, the first on `start`, each later one on the result of the one before.
RoundTrips run_roundtrips(Method m, int start, int rounds, const char* trace = nullptr);
// Task 3's host side alone (roundtrip_persistent on a mailbox in the host's own memory, no kernel),
// with its writes to the mailbox noted in program order (labs/common/host_writes.h). The mailbox
// already holds round `round`'s answer (answered = round, answer = work(x)), so the function returns
// at once; what it shows is the order of the host's writes. x86-64 Linux only (supported = false
// elsewhere: nothing noted).
struct HostWrite {
  std::string field;  // "request", "answer", "asked", "answered" or "stop"
  int value = 0;      // the field after the write
};
struct HostOrder {
  bool supported = true;
  std::vector<HostWrite> writes;  // in program order
  int result = 0;                 // what roundtrip_persistent returned
};
HostOrder run_host_order(int x, unsigned round);

// ---- task 4: odd and even --------------------------------------------------------------------------------
enum class Sides {
  blocks,    // two blocks of one kernel: block 0 even, block 1 odd (the simulator explores them)
  host_gpu,  // the host plays even (play_turns on the host), a kernel plays odd (odd_side)
};
enum class Version {
  yours,   // play_turns of oddeven.cu
  slides,  // the slides' loops (do { wait; print; ++counter; } while (counter < last)); blocks only
};
struct OddEven : Outcome {
  std::vector<int> printed;  // printed[v] for v in 0..last: 1 even side, 2 odd side, 0 never,
                             // +100 per extra print; printed[last + 1]: prints outside 0..last
  int counter = 0;           // the counter at the end
};
OddEven run_odd_even(Sides sides, Version version, int last, const char* trace = nullptr);

// ---- task 5: the ring buffer ------------------------------------------------------------------------------
// The items task 5 sends: item i of a run (the same in the harness program and the graded tests).
inline int queue_item(int i) { return (i * 7919 + 13) % 100003; }
struct RingRun : Outcome {
  std::vector<int> out;  // 5a: what block 1 popped (-1: nothing); 5b: the results the host popped, in order
  bool stopped = true;   // 5b: the kernel returned after stop (within 20 s)
};
// 5a: ring_pair<<<2, 32>>>: block 0 pushes work(0..items-1), block 1 pops them.
RingRun run_ring_blocks(int items, const char* trace = nullptr);
// 5b: queue_server runs while the host pushes queue_item(0..items-1) into the work ring and pops
// the results; then the host sets stop and waits for the kernel to return. When the stop flag comes:
//   after_results: once every result has come back (the kernel idle on an empty work ring);
//   with_last_item: right after the host's last push, which it holds back until every earlier
//   result has come back (the kernel is polling the empty ring when the item and the flag arrive).
enum class StopWhen { after_results, with_last_item };
const char* name(StopWhen w);
StopWhen stop_when(const std::string& name);
RingRun run_queue(int items, const char* trace = nullptr, StopWhen when = StopWhen::after_results);

}  // namespace lab08
