#include "sim/runtime/device_thread.h"

#include <cstdlib>
#include <exception>
#include <string>

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

uint64_t DeviceThread::submit(Task task) {
  if (on_device_thread()) {
    // A host callback (cudaLaunchHostFunc) calling the runtime: everything queued before the
    // callback has already run, so running the task now keeps stream order.
    task();
    std::lock_guard<std::mutex> lock(mutex_);
    return completed_;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return completed_;
  if (!started_) start_locked();
  uint64_t ticket = ++submitted_;
  queue_.emplace_back(ticket, std::move(task));
  work_cv_.notify_one();
  return ticket;
}

void DeviceThread::wait(uint64_t ticket) {
  if (on_device_thread()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [&] { return completed_ >= ticket; });
}

void DeviceThread::wait_idle() {
  uint64_t t;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    t = submitted_;
  }
  wait(t);
}

bool DeviceThread::finished(uint64_t ticket) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ >= ticket;
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
    auto item = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    lock.unlock();
    try {
      item.second();
    } catch (const std::exception& e) {
      diag(std::string("internal error on the device thread: ") + e.what());
      set_sticky_error(cudaErrorUnknown);
    } catch (...) {
      diag("internal error on the device thread (unknown exception)");
      set_sticky_error(cudaErrorUnknown);
    }
    lock.lock();
    running_ = false;
    if (item.first > completed_) completed_ = item.first;
    done_cv_.notify_all();
  }
}

void DeviceThread::shutdown() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!started_ || stopping_) return;
  stopping_ = true;
  // Work the program never waited for is dropped, as when a CUDA context is destroyed at exit.
  queue_.clear();
  completed_ = submitted_;  // releases anyone still waiting for a dropped task
  work_cv_.notify_all();
  done_cv_.notify_all();
  if (on_device_thread()) return;  // exit() called from a host callback
  done_cv_.wait(lock, [&] { return !running_; });
}

}  // namespace synclab::rt
