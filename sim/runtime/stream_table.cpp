#include "sim/runtime/stream_table.h"

#include <algorithm>

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

uint64_t StreamTable::submit(cudaStream_t s, std::function<void()> task, std::string launch, Coverage* known) {
  ensure_device_started();
  std::lock_guard<std::recursive_mutex> order(submit_mutex_);
  DeviceThread& dt = DeviceThread::instance();
  if (is_default(s)) {
    // Not under mutex_: on the device thread (a host callback) the task runs inside submit().
    const uint64_t ticket = dt.submit(std::move(task), std::move(launch), 0, {}, true);
    std::lock_guard<std::mutex> lock(mutex_);
    default_ticket_ = std::max(default_ticket_, ticket);
    if (known) *known = Coverage{ticket, {}};
    return ticket;
  }
  std::vector<uint64_t> after;
  Coverage k;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    k.floor = default_ticket_;
    auto it = streams_.find(s);
    if (it != streams_.end()) {
      Stream& st = *it->second;
      if (st.last_ticket) after.push_back(st.last_ticket);
      after.insert(after.end(), st.event_waits.begin(), st.event_waits.end());
      k.join(st.known);
      k.join(st.event_known);
    }
  }
  const auto key = reinterpret_cast<uintptr_t>(s);
  const uint64_t ticket = dt.submit(std::move(task), std::move(launch), key, std::move(after), false);
  k.add(key, ticket);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = streams_.find(s);
  if (it != streams_.end()) {
    Stream& st = *it->second;
    st.last_ticket = std::max(st.last_ticket, ticket);
    st.known = k;
    st.event_waits.clear();
    st.event_known = Coverage{};
  }
  if (known) *known = k;
  return ticket;
}

void StreamTable::synchronize(cudaStream_t s) {
  if (is_default(s)) return DeviceThread::instance().wait_idle();
  uint64_t ticket = 0;
  Coverage k;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(s);
    if (it == streams_.end()) return;
    ticket = it->second->last_ticket;
    k = it->second->known;
  }
  DeviceThread::instance().wait(ticket, k);
}

bool StreamTable::query(cudaStream_t s) {
  DeviceThread& dt = DeviceThread::instance();
  if (is_default(s)) return dt.idle();
  uint64_t ticket = 0;
  Coverage k;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(s);
    if (it == streams_.end()) return true;
    ticket = it->second->last_ticket;
    k = it->second->known;
  }
  return dt.finished(ticket, k);
}

bool StreamTable::wait_event(cudaStream_t s, cudaEvent_t e) {
  std::lock_guard<std::recursive_mutex> order(submit_mutex_);
  std::lock_guard<std::mutex> lock(mutex_);
  auto ev = events_.find(e);
  if (ev == events_.end()) return false;
  if (!ev->second->recorded || is_default(s)) return true;  // nothing to wait for / waits for all anyway
  auto it = streams_.find(s);
  if (it == streams_.end()) return true;
  it->second->event_waits.push_back(ev->second->ticket);
  it->second->event_known.join(ev->second->known);
  return true;
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
  std::lock_guard<std::recursive_mutex> order(submit_mutex_);
  Coverage known;
  uint64_t ticket = submit(
      s,
      [this, ev, generation] {
        std::lock_guard<std::mutex> lock(mutex_);
        if (ev->generation == generation) ev->time_ms = clock_now_ms();
      },
      {}, &known);
  std::lock_guard<std::mutex> lock(mutex_);
  if (ev->generation == generation) {
    ev->recorded = true;
    ev->ticket = ticket;
    ev->known = known;
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
    st.known = ev.known;
  }
  st.finished = !st.recorded || DeviceThread::instance().finished(ticket, st.known);
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
