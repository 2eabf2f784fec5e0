// Streams and events: the handles the program holds and what each one waits for.
//
// Every piece of asynchronous work goes through the one DeviceThread, which runs a task once what
// it waits for has run (device_thread.h). A stream is the ticket of its last task plus the event
// records it was told to wait for (cudaStreamWaitEvent) before its next one; an event is the
// ticket of its record plus the simulated time at which the device thread reached it. Each also
// keeps the Coverage of that task: which launches a wait for it tells the host are done.
// The default streams (0, cudaStreamLegacy, cudaStreamPerThread) all act as the legacy default
// stream: their work runs after everything queued before it, and everything queued after it
// runs after it (non-blocking streams too, which CUDA would not hold back).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/runtime/device_thread.h"

namespace synclab::rt {

class StreamTable {
 public:
  static StreamTable& instance();

  // ---- streams ----
  cudaStream_t create_stream(unsigned flags, int priority);
  bool destroy_stream(cudaStream_t s);
  bool valid_stream(cudaStream_t s) const;
  bool stream_flags(cudaStream_t s, unsigned* flags, int* priority) const;
  // Queues a task in the stream's order, after the events the stream waits for, and returns its
  // ticket (launch: DeviceThread::submit). *known, when given: what a wait for it covers.
  uint64_t submit(cudaStream_t s, std::function<void()> task, std::string launch = {}, Coverage* known = nullptr);
  // cudaStreamSynchronize: waits for the stream's work (the default stream: for all work).
  void synchronize(cudaStream_t s);
  // cudaStreamQuery: whether the stream's work has run.
  bool query(cudaStream_t s);
  // cudaStreamWaitEvent: the stream's next work runs after the event's last record. False when the
  // event is not valid.
  bool wait_event(cudaStream_t s, cudaEvent_t e);

  // ---- events ----
  cudaEvent_t create_event(unsigned flags);
  bool destroy_event(cudaEvent_t e);
  bool valid_event(cudaEvent_t e) const;
  // Queues the record on the stream. False when the event is not valid.
  bool record_event(cudaEvent_t e, cudaStream_t s);
  struct EventState {
    bool valid = false, recorded = false, finished = false, timing = true;
    uint64_t ticket = 0;
    Coverage known;  // what waiting for the record covers
    double time_ms = 0;
  };
  EventState event_state(cudaEvent_t e) const;

  // cudaDeviceReset: every handle becomes invalid.
  void reset();

 private:
  StreamTable() = default;
  struct Stream {
    unsigned flags = 0;
    int priority = 0;
    uint64_t last_ticket = 0;
    Coverage known;                     // of the last task
    std::vector<uint64_t> event_waits;  // records the next task waits for
    Coverage event_known;
  };
  struct Event {
    unsigned flags = 0;
    bool recorded = false;
    uint64_t ticket = 0;
    Coverage known;
    uint64_t generation = 0;  // which record set time_ms
    double time_ms = 0;
  };
  static bool is_default(cudaStream_t s);

  mutable std::mutex mutex_;
  // Held across a whole submit, so that a stream's tasks are queued in the order their tickets say;
  // recursive because a host callback's submit runs its task at once (device_thread.h).
  std::recursive_mutex submit_mutex_;
  uint64_t default_ticket_ = 0;  // the default stream's last task
  std::unordered_map<const void*, std::unique_ptr<Stream>> streams_;
  std::unordered_map<const void*, std::shared_ptr<Event>> events_;
};

}  // namespace synclab::rt
