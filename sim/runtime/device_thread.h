// The one simulator thread. Kernels, asynchronous copies, event records and host callbacks run
// on it one at a time, and the host thread that launched a kernel is free to poll mapped pinned
// memory while the kernel runs. Synchronous calls wait for their ticket.
//
// Each task says what it must run after: the previous task of its stream, the event records its
// stream waits for (cudaStreamWaitEvent), and the last task queued with `after_all` (the legacy
// default stream, module loads), which runs after everything queued before it. Among the tasks
// whose waits are met, the device thread runs
//   - the oldest (SYNCLAB_STREAMS=order, the default under the rr scheduler): submission order,
//     the same in every run;
//   - one drawn from the seed (SYNCLAB_STREAMS=random, the default under random and pct): work of
//     different streams runs in either order, so a missing stream or event wait between streams
//     changes the result in some runs. To have a choice to make, the thread then starts only
//     when the host waits for something (a wait, or a query that finds the work not done yet),
//     or has queued nothing for kQuietMs.
// Two tasks never run at the same time: kernels of different streams do not interleave.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sim/runtime/launch_site.h"

namespace synclab::rt {

// Which finished work a wait tells the host about: every task up to `floor`, and on each stream
// every task up to its entry. A stream's tasks run in order, so its last ticket stands for all of
// them: this is a vector clock over the streams (docs/simulator.md, "Streams").
struct Coverage {
  uint64_t floor = 0;
  std::vector<std::pair<uintptr_t, uint64_t>> streams;  // (stream key, ticket)
  void add(uintptr_t stream, uint64_t ticket);
  void join(const Coverage& other);
  bool covers(uintptr_t stream, uint64_t ticket) const;
};

class DeviceThread {
 public:
  using Task = std::function<void()>;
  static constexpr int kQuietMs = 20;

  // The process's device thread; started by the first submit().
  static DeviceThread& instance();

  // Queues a task and returns its ticket (1, 2, ...). It runs after the tasks `after` names and
  // after the last `after_all` task queued before it; with after_all, after every task queued
  // before it. `stream` names the stream (0: none) for the unfinished-launch warning. On the
  // device thread itself (a host callback calling the runtime) the task runs at once, and the
  // ticket is 0. `launch`
  // names a kernel launch ("kernel<<<grid, block>>>"), empty for other work.
  uint64_t submit(Task task, std::string launch = {}, uintptr_t stream = 0, std::vector<uint64_t> after = {},
                  bool after_all = true);
  // Waits until the task with this ticket has run; the launches `known` covers count as waited
  // for. Returns at once on the device thread.
  void wait(uint64_t ticket, const Coverage& known);
  void wait(uint64_t ticket) { wait(ticket, Coverage{}); }
  // Waits until everything submitted so far has run.
  void wait_idle();
  // Whether the task has run (a query: if so, the launches `known` covers count as waited for;
  // if not, the host is waiting for it, and the device thread may choose what to run now).
  bool finished(uint64_t ticket, const Coverage& known);
  // Whether everything submitted so far has run (a query of the default stream; as finished()).
  bool idle();
  uint64_t last_ticket() const;
  bool on_device_thread() const;

  // At process exit. Kernel launches that no wait covered (no synchronize, blocking copy, event
  // or stream wait, or query that found them done) are named in a warning, and those not run yet
  // run before the process ends, so that their reports are seen. Then whatever else is queued
  // (copies, frees, callbacks after the last launch) is dropped, and the call waits for the task
  // running, so nothing touches the simulator while static objects are destroyed.
  void shutdown();

 private:
  DeviceThread() = default;
  struct Item {
    uint64_t ticket = 0;
    Task task;
    std::vector<uint64_t> after;
    uint64_t after_barrier = 0;  // the last after_all task before this one (0: none)
    bool after_all = false;
  };
  void start_locked();
  void run();
  bool done_locked(uint64_t ticket) const;
  bool ready_locked(const Item& item) const;
  void mark_done_locked(uint64_t ticket);
  // The queue position of the task to run next, or -1 when none is ready.
  long pick_locked();
  void covered_locked(const Coverage& known);
  // A query found work not done: the host waits for it (the next choice need not wait longer).
  void asked_locked();

  mutable std::mutex mutex_;
  std::condition_variable work_cv_;  // the device thread waits for tasks
  std::condition_variable done_cv_;  // callers wait for tickets
  std::deque<Item> queue_;           // in ticket order
  // Launches (ticket, stream, name) that no wait has covered yet, oldest first; beyond
  // kMaxUnwaited the oldest are only counted.
  struct Unwaited {
    uint64_t ticket;
    uintptr_t stream;
    std::string name;
    LaunchSite site;  // where the host launched it (named in the warning)
  };
  static constexpr size_t kMaxUnwaited = 4096;
  std::deque<Unwaited> unwaited_;
  uint64_t unwaited_dropped_ = 0, unwaited_dropped_last_ = 0;
  uint64_t submitted_ = 0;         // last ticket handed out
  uint64_t last_barrier_ = 0;      // last after_all ticket
  uint64_t done_prefix_ = 0;       // every ticket up to here has run
  std::set<uint64_t> done_above_;  // tickets above done_prefix_ that have run
  int host_waiting_ = 0;           // host threads blocked in wait / wait_idle / shutdown
  bool host_asked_ = false;        // a query found work not done since the last choice
  std::chrono::steady_clock::time_point last_submit_{};
  std::mt19937_64 rng_;
  uint64_t rng_seed_ = 0;
  bool rng_seeded_ = false;
  bool started_ = false;
  bool stopping_ = false;
  bool running_ = false;  // a task is executing
  std::atomic<std::thread::id> thread_id_{};
};

}  // namespace synclab::rt
