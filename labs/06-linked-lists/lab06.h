// Lab 06 (linked lists and worklists): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab06.test.cpp) and the harness program (main.cu) both use it. Every run_* function
// launches kernels under the simulator's current settings (synclab::lab::apply), copies the pool
// back and collects the simulator's reports after every launch. A launch that ends in a hang, a
// deadlock or a fault does not throw: the result says `finished = false` and carries the error and
// the reports (a lock that deadlocks inside a warp is an outcome to look at, as in lab 03).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "synclab_lab.h"

namespace lab06 {

using synclab::lab::Report;

constexpr int kNoNode = -1;  // kNull of lab06_kernels.cuh, for host code

// What every run returns besides its data.
struct Outcome {
  bool finished = true;         // false: the launch failed (hang, deadlock, fault, bad launch)
  std::string error;            // CUDA's message when it failed
  std::vector<Report> reports;  // the simulator's reports of the launches (none on a GPU)
};

// The node pool after the launch(es), copied back.
struct PoolState {
  std::vector<int> value, next, lock, mark;
};

// ---- tasks 1 and 2a: pushing nodes -------------------------------------------------------------
enum class PushKernel {
  locked,    // 1a push_locked: node g at the head of list g % lists, under the list's lock
  second,    // 1b push_second: node lists + g after the first node (node l) of list g % lists
  lockfree,  // 2a push_lockfree: as 1a, with atomicCAS on the head
};
const char* name(PushKernel k);
PushKernel push_kernel(const std::string& name);  // from name() or the short names of main.cu

struct PushResult : Outcome {
  std::vector<int> heads;  // per list
  std::vector<int> locks;  // the lists' lock words after the launch
  PoolState pool;
  int unpublished = 0;  // lockfree: peeks that found a head node without its value
};
// blocks x threads threads push one node each into `lists` lists.
PushResult run_push(PushKernel kernel, int blocks, int threads, int lists, const char* trace = nullptr);

// ---- task 2b: pop and push back (ABA) ------------------------------------------------------------
enum class StackKernel { naive, tagged };
const char* name(StackKernel k);
struct StackResult : Outcome {
  int head = kNoNode;  // the head's node index after the launch (tag removed)
  unsigned tag = 0;    // tagged: the head word's tag
  int pops = 0;        // successful pops
  PoolState pool;
};
// A stack of `nodes` nodes (0 on top, then 1, 2, ...); every thread pops and pushes back `rounds`
// times.
StackResult run_stack(StackKernel kernel, int blocks, int threads, int nodes, int rounds, const char* trace = nullptr);

// ---- task 3: deletion -----------------------------------------------------------------------------
// The list of task 3: n nodes with values from a fixed generator (xorshift from `seed`), linked
// from node 0 (the sentinel) through nodes 1..n-1 in a shuffled order. The graded tests and the
// harness program build the same list from the same seed, so a test's replay line runs it.
struct DeleteInput {
  std::vector<int> value;  // per node
  std::vector<int> order;  // the nodes in list order, order[0] = 0
};
DeleteInput delete_input(int n, uint32_t seed);
inline uint32_t delete_seed(int n, int divisor) { return uint32_t(n * 31 + divisor); }  // --data-seed overrides

struct DeleteResult : Outcome {
  PoolState pool;  // after mark_nodes then unlink_marked; the list still starts at node 0
};
DeleteResult run_delete(const DeleteInput& input, int divisor, int blocks, int threads, const char* trace = nullptr);

// ---- task 4: worklists ------------------------------------------------------------------------------
enum class WorklistKernel { atomic, warp, scan };
const char* name(WorklistKernel k);
WorklistKernel worklist_kernel(const std::string& name);
constexpr int kItemsPerThread = 8;  // kMaxItems of lab06_kernels.cuh
// n counts in [0, kItemsPerThread] from a fixed generator (xorshift from `seed`).
std::vector<int> random_counts(int n, uint32_t seed);
inline uint32_t counts_seed(int blocks, int threads) { return uint32_t(blocks * 1000 + threads); }

struct WorklistResult : Outcome {
  int size = 0;            // *size after the launch
  std::vector<int> items;  // the whole worklist array (room for the items plus 32; -1 = unused)
};
WorklistResult run_worklist(WorklistKernel kernel, const std::vector<int>& counts, int blocks, int threads,
                            const char* trace = nullptr);

// ---- task 6: a bounded queue of your own design -----------------------------------------------------
constexpr int kQueueValues = 8;  // kQueueCapacity of lab06_kernels.cuh
struct QueueResult : Outcome {
  std::vector<int> got;  // queue_pairs: got[g * rounds + r], thread g's r-th pop (-1: none)
};
// blocks x threads threads push and pop `rounds` values each (queue_pairs).
QueueResult run_queue_pairs(int blocks, int threads, int rounds, const char* trace = nullptr);
struct QueueAloneResult : Outcome {
  std::vector<int> result, value;  // per step: what the call returned (1/0), a pop's value
};
// One thread runs `plan` (1: push the value step + 1, 0: pop) on an empty queue (queue_alone).
QueueAloneResult run_queue_alone(const std::vector<int>& plan, const char* trace = nullptr);
// The plan of the graded single-thread case: fill to capacity and one more, empty it and one more,
// then pushes and pops in turn for several laps of the ring, then fill it again from the middle.
std::vector<int> queue_alone_plan();
// The cost of each call of `plan` for one thread alone, counted on the simulator (its, rr, as
// --profile counts): the plan's first k calls run once for every k, and call k's atomics are what
// the first k took more than the first k - 1. result[k] is what call k returned in its run (1/0);
// both vectors stop at the first counted run that did not finish (then finished is false).
// Only on the simulator.
struct QueueCallCosts {
  bool finished = true;
  std::vector<int> result;
  std::vector<unsigned long long> atomics;
};
QueueCallCosts queue_call_atomics(const std::vector<int>& plan);

}  // namespace lab06
