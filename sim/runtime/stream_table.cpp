#include "sim/runtime/stream_table.h"

#include "sim/runtime/device_context.h"
#include "sim/runtime/device_thread.h"

namespace synclab::rt {

StreamTable& StreamTable::instance() {
  static StreamTable* t = new StreamTable();  // never destroyed (used during exit)
  return *t;
}

bool StreamTable::is_default(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

cudaStream_t StreamTable::create_stream(unsigned flags, int priority) {
  auto st = std::make_unique<Stream>();
  st->flags = flags;
  st->priority = priority;
  // The handle is the record's address: unique while the record lives.
  auto handle = reinterpret_cast<cudaStream_t>(st.get());
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.emplace(handle, std::move(st));
  return handle;
}

bool StreamTable::destroy_stream(cudaStream_t s) {
  if (is_default(s)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  // Work already queued on it still runs (as on CUDA); only the handle goes.
  return streams_.erase(s) == 1;
}

bool StreamTable::valid_stream(cudaStream_t s) const {
  if (is_default(s)) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  return streams_.count(s) == 1;
}

bool StreamTable::stream_flags(cudaStream_t s, unsigned* flags, int* priority) const {
  if (is_default(s)) {
    if (flags) *flags = 0;
    if (priority) *priority = 0;
    return true;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = streams_.find(s);
  if (it == streams_.end()) return false;
  if (flags) *flags = it->second->flags;
  if (priority) *priority = it->second->priority;
  return true;
}

uint64_t StreamTable::submit(cudaStream_t s, std::function<void()> task, std::string launch) {
  ensure_device_started();
  // Not under mutex_: on the device thread (a host callback) the task runs inside submit().
  uint64_t ticket = DeviceThread::instance().submit(std::move(task), std::move(launch));
  if (!is_default(s)) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(s);
    if (it != streams_.end() && ticket > it->second->last_ticket) it->second->last_ticket = ticket;
  }
  return ticket;
}

uint64_t StreamTable::stream_ticket(cudaStream_t s) const {
  if (is_default(s)) return DeviceThread::instance().last_ticket();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = streams_.find(s);
  return it == streams_.end() ? 0 : it->second->last_ticket;
}

cudaEvent_t StreamTable::create_event(unsigned flags) {
  auto ev = std::make_shared<Event>();
  ev->flags = flags;
  auto handle = reinterpret_cast<cudaEvent_t>(ev.get());
  std::lock_guard<std::mutex> lock(mutex_);
  events_.emplace(handle, std::move(ev));
  return handle;
}

bool StreamTable::destroy_event(cudaEvent_t e) {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_.erase(e) == 1;
}

bool StreamTable::valid_event(cudaEvent_t e) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_.count(e) == 1;
}

bool StreamTable::record_event(cudaEvent_t e, cudaStream_t s) {
  std::shared_ptr<Event> ev;
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = events_.find(e);
    if (it == events_.end()) return false;
    ev = it->second;
    generation = ++ev->generation;
  }
  // The task keeps the event alive even if the program destroys it before the record runs.
  uint64_t ticket = submit(s, [this, ev, generation] {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ev->generation == generation) ev->time_ms = clock_now_ms();
  });
  std::lock_guard<std::mutex> lock(mutex_);
  if (ev->generation == generation) {
    ev->recorded = true;
    ev->ticket = ticket;
  }
  return true;
}

StreamTable::EventState StreamTable::event_state(cudaEvent_t e) const {
  EventState st;
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = events_.find(e);
    if (it == events_.end()) return st;
    const Event& ev = *it->second;
    st.valid = true;
    st.recorded = ev.recorded;
    st.timing = (ev.flags & cudaEventDisableTiming) == 0;
    st.ticket = ticket = ev.ticket;
  }
  st.finished = !st.recorded || DeviceThread::instance().finished(ticket);
  if (st.recorded && st.finished) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = events_.find(e);
    if (it != events_.end()) st.time_ms = it->second->time_ms;
  }
  return st;
}

void StreamTable::reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.clear();
  events_.clear();
}

}  // namespace synclab::rt
