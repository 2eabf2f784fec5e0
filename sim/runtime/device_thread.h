// The one simulator thread. Kernels, asynchronous copies, event records and host callbacks run
// on it in the order they were submitted, so every stream's order (and the legacy default
// stream's "orders everything") holds, and the host thread that launched a kernel is free to
// poll mapped pinned memory while the kernel runs. Synchronous calls wait for their ticket.
//
// One FIFO for all streams: work on different streams never overlaps. CUDA allows that (it
// promises no concurrency between streams), and it keeps runs deterministic.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace synclab::rt {

class DeviceThread {
 public:
  using Task = std::function<void()>;

  // The process's device thread; started by the first submit().
  static DeviceThread& instance();

  // Queues a task and returns its ticket (1, 2, ...). On the device thread itself (a host
  // callback calling the runtime) the task runs at once, since the queue is behind it. `launch`
  // names a kernel launch ("kernel<<<grid, block>>>"), empty for other work.
  uint64_t submit(Task task, std::string launch = {});
  // Waits until the task with this ticket has run. Returns at once on the device thread.
  void wait(uint64_t ticket);
  // Waits until everything submitted so far has run.
  void wait_idle();
  bool finished(uint64_t ticket);
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
  void start_locked();
  void run();

  mutable std::mutex mutex_;
  std::condition_variable work_cv_;  // the device thread waits for tasks
  std::condition_variable done_cv_;  // callers wait for tickets
  std::deque<std::pair<uint64_t, Task>> queue_;
  // Launches (ticket, name) that no wait has covered yet, oldest first; beyond kMaxUnwaited the
  // oldest are only counted.
  static constexpr size_t kMaxUnwaited = 4096;
  std::deque<std::pair<uint64_t, std::string>> unwaited_;
  uint64_t unwaited_dropped_ = 0, unwaited_dropped_last_ = 0;
  void covered_locked(uint64_t ticket);
  uint64_t submitted_ = 0;  // last ticket handed out
  uint64_t completed_ = 0;  // last ticket finished (tickets finish in order)
  bool started_ = false;
  bool stopping_ = false;
  bool running_ = false;  // a task is executing
  std::atomic<std::thread::id> thread_id_{};
};

}  // namespace synclab::rt
