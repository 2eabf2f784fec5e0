#include "sim/runtime/device_thread.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "sim/runtime/device_context.h"
#include "sim/runtime/error_state.h"

namespace synclab::rt {

DeviceThread& DeviceThread::instance() {
  // Never destroyed: the thread may outlive static destructors of other objects.
  static DeviceThread* t = new DeviceThread();
  return *t;
}

void DeviceThread::start_locked() {
  started_ = true;
  std::thread th([this] { run(); });
  thread_id_.store(th.get_id(), std::memory_order_release);
  th.detach();
  std::atexit([] { DeviceThread::instance().shutdown(); });
}

void Coverage::add(uintptr_t stream, uint64_t ticket) {
  for (auto& e : streams)
    if (e.first == stream) {
      if (ticket > e.second) e.second = ticket;
      return;
    }
  streams.emplace_back(stream, ticket);
}

void Coverage::join(const Coverage& other) {
  if (other.floor > floor) floor = other.floor;
  for (const auto& e : other.streams) add(e.first, e.second);
}

bool Coverage::covers(uintptr_t stream, uint64_t ticket) const {
  if (ticket <= floor) return true;
  for (const auto& e : streams)
    if (e.first == stream) return ticket <= e.second;
  return false;
}

uint64_t DeviceThread::submit(Task task, std::string launch, uintptr_t stream, std::vector<uint64_t> after,
                              bool after_all) {
  if (on_device_thread()) {
    // A host callback (cudaLaunchHostFunc) calling the runtime: the callback's stream is behind
    // it, so running the task now keeps that stream's order. Ticket 0: nothing to wait for.
    task();
    return 0;
  }
  // Where the host launched it, for the warning about launches never waited for (before the lock).
  LaunchSite site;
  if (!launch.empty()) site = capture_launch_site();
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return submitted_;
  if (!started_) start_locked();
  const uint64_t ticket = ++submitted_;
  if (!launch.empty()) {
    if (unwaited_.size() == kMaxUnwaited) {
      ++unwaited_dropped_;
      unwaited_dropped_last_ = unwaited_.front().ticket;
      unwaited_.pop_front();
    }
    unwaited_.push_back({ticket, stream, std::move(launch), std::move(site)});
  }
  Item item;
  item.ticket = ticket;
  item.task = std::move(task);
  item.after = std::move(after);
  item.after_barrier = last_barrier_;
  item.after_all = after_all;
  if (after_all) last_barrier_ = ticket;
  queue_.push_back(std::move(item));
  last_submit_ = std::chrono::steady_clock::now();
  work_cv_.notify_one();
  return ticket;
}

bool DeviceThread::done_locked(uint64_t ticket) const {
  return ticket <= done_prefix_ || done_above_.count(ticket) != 0;
}

bool DeviceThread::ready_locked(const Item& item) const {
  if (item.after_all) return done_prefix_ + 1 >= item.ticket;
  if (!done_locked(item.after_barrier)) return false;
  for (uint64_t t : item.after)
    if (!done_locked(t)) return false;
  return true;
}

void DeviceThread::mark_done_locked(uint64_t ticket) {
  if (ticket != done_prefix_ + 1) {
    if (ticket > done_prefix_) done_above_.insert(ticket);
    return;
  }
  done_prefix_ = ticket;
  while (!done_above_.empty() && *done_above_.begin() == done_prefix_ + 1) {
    done_above_.erase(done_above_.begin());
    ++done_prefix_;
  }
}

long DeviceThread::pick_locked() {
  // The oldest queued task is always ready: everything queued before it has run.
  if (queue_.empty()) return -1;
  const sim::Config& cfg = simulator().config();
  if (!cfg.streams_random()) return 0;
  std::vector<long> ready;
  for (size_t i = 0; i < queue_.size(); ++i)
    if (ready_locked(queue_[i])) ready.push_back(long(i));
  if (!rng_seeded_ || rng_seed_ != cfg.seed) {
    rng_.seed(cfg.seed ^ 0x5f7eaa3d2c4b1e09ull);  // its own stream of choices, apart from the scheduler's
    rng_seed_ = cfg.seed;
    rng_seeded_ = true;
  }
  return ready[rng_() % ready.size()];
}

void DeviceThread::covered_locked(const Coverage& known) {
  for (auto it = unwaited_.begin(); it != unwaited_.end();)
    it = known.covers(it->stream, it->ticket) ? unwaited_.erase(it) : it + 1;
  if (known.floor >= unwaited_dropped_last_) unwaited_dropped_ = 0;
}

void DeviceThread::wait(uint64_t ticket, const Coverage& known) {
  if (on_device_thread()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  if (!done_locked(ticket)) {
    // Only a wait that finds work not done wakes the device thread (a notify when it is idle
    // costs a needless wake-up: two context switches per synchronous call).
    ++host_waiting_;
    work_cv_.notify_one();
    done_cv_.wait(lock, [&] { return done_locked(ticket); });
    --host_waiting_;
  }
  if (!stopping_) covered_locked(known);
}

void DeviceThread::wait_idle() {
  if (on_device_thread()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t t = submitted_;
  if (done_prefix_ < t) {  // as in wait(): no wake-up when everything has run
    ++host_waiting_;
    work_cv_.notify_one();
    done_cv_.wait(lock, [&] { return done_prefix_ >= t; });
    --host_waiting_;
  }
  Coverage all;
  all.floor = t;
  if (!stopping_) covered_locked(all);
}

void DeviceThread::asked_locked() {
  host_asked_ = true;
  work_cv_.notify_one();
}

bool DeviceThread::finished(uint64_t ticket, const Coverage& known) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!done_locked(ticket)) {
    asked_locked();
    return false;
  }
  if (!stopping_) covered_locked(known);  // the program looked: it knows the work is done
  return true;
}

bool DeviceThread::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_prefix_ < submitted_) {
    asked_locked();
    return false;
  }
  Coverage all;
  all.floor = submitted_;
  if (!stopping_) covered_locked(all);
  return true;
}

uint64_t DeviceThread::last_ticket() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return submitted_;
}

bool DeviceThread::on_device_thread() const {
  return std::this_thread::get_id() == thread_id_.load(std::memory_order_acquire);
}

void DeviceThread::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [&] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) {
      // Stopping and drained: tell waiters and park for good (the process is exiting).
      done_cv_.notify_all();
      work_cv_.wait(lock, [] { return false; });
    }
    if (simulator().config().streams_random()) {
      // Let the host queue what it will before choosing: start when it waits for something
      // (a wait, or a query that found work not done: what it queued before the query is all it
      // queues before this choice, the same in every run) or has been quiet for kQuietMs (a host
      // polling mapped memory without a runtime call).
      while (host_waiting_ == 0 && !host_asked_ && !stopping_) {
        const auto until = last_submit_ + std::chrono::milliseconds(kQuietMs);
        if (std::chrono::steady_clock::now() >= until) break;
        work_cv_.wait_until(lock, until);
      }
      host_asked_ = false;
      if (queue_.empty()) continue;
    }
    const long i = pick_locked();
    Item item = std::move(queue_[size_t(i)]);
    queue_.erase(queue_.begin() + i);
    running_ = true;
    lock.unlock();
    try {
      item.task();
    } catch (const std::exception& e) {
      diag(std::string("internal error on the device thread: ") + e.what());
      set_sticky_error(cudaErrorUnknown);
    } catch (...) {
      diag("internal error on the device thread (unknown exception)");
      set_sticky_error(cudaErrorUnknown);
    }
    lock.lock();
    running_ = false;
    mark_done_locked(item.ticket);
    done_cv_.notify_all();
  }
}

void DeviceThread::shutdown() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!started_ || stopping_) return;
  // Kernels launched and never waited for: on a GPU nothing promises their work is done or seen
  // when the process ends; here those not run yet run first, and all are named, so that what
  // they do wrong is still reported. Not from a host callback
  // (exit() there: the queue is behind the callback itself).
  if (!unwaited_.empty() && !on_device_thread()) {
    const size_t n = unwaited_.size() + unwaited_dropped_;
    std::string list;
    for (size_t i = 0; i < unwaited_.size() && i < 8; ++i) {
      const Unwaited& u = unwaited_[i];
      const std::string site = describe_launch_site(u.site, u.name.substr(0, u.name.find("<<<")));
      list += (i ? ", " : "") + u.name + (site.empty() ? "" : " launched " + site);
    }
    if (n > 8) list += fmt::format(", and {} more", n - 8);
    const bool one = n == 1;
    std::fflush(stdout);
    std::fprintf(stderr,
                 "========= SyncLab WARNING (unfinished): the program ended without waiting for %zu kernel "
                 "launch%s: %s. On a GPU nothing guarantees that such work is done or seen: %s results never "
                 "reach the host and %s printf output may never appear. The simulator finishes %s first, so "
                 "that %s reports are seen. Wait before the program ends: cudaDeviceSynchronize() (or "
                 "cudaStreamSynchronize on the launch's stream) after the last launch, and check the error it "
                 "returns.\n",
                 n, one ? "" : "es", list.c_str(), one ? "its" : "their", one ? "its" : "their", one ? "it" : "them",
                 one ? "its" : "their");
    std::fflush(stderr);
    // Everything queued up to the last of them runs (what they wait for among it).
    uint64_t last = 0;
    for (const Unwaited& u : unwaited_) last = std::max(last, u.ticket);
    ++host_waiting_;
    work_cv_.notify_one();
    done_cv_.wait(lock, [&] { return done_prefix_ >= last; });
    --host_waiting_;
  }
  stopping_ = true;
  // The rest is dropped, as when a CUDA context is destroyed at exit.
  queue_.clear();
  done_prefix_ = submitted_;  // releases anyone still waiting for a dropped task
  done_above_.clear();
  work_cv_.notify_all();
  done_cv_.notify_all();
  if (on_device_thread()) return;  // exit() called from a host callback
  done_cv_.wait(lock, [&] { return !running_; });
}

}  // namespace synclab::rt
