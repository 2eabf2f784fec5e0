// Streams and events: the handles the program holds and what each one waits for.
//
// Every piece of asynchronous work goes through the one DeviceThread FIFO, so a stream is just
// the ticket of its last submitted task, and an event the ticket of its record plus the
// simulated time at which the device thread reached it. The default streams (0,
// cudaStreamLegacy, cudaStreamPerThread) stand for "everything submitted so far".
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace synclab::rt {

class StreamTable {
 public:
  static StreamTable& instance();

  // ---- streams ----
  cudaStream_t create_stream(unsigned flags, int priority);
  bool destroy_stream(cudaStream_t s);
  bool valid_stream(cudaStream_t s) const;
  bool stream_flags(cudaStream_t s, unsigned* flags, int* priority) const;
  // Queues a task in the stream's order (the device thread's FIFO) and returns its ticket.
  uint64_t submit(cudaStream_t s, std::function<void()> task, std::string launch = {});  // launch: DeviceThread::submit
  // Ticket that stream synchronization must wait for.
  uint64_t stream_ticket(cudaStream_t s) const;

  // ---- events ----
  cudaEvent_t create_event(unsigned flags);
  bool destroy_event(cudaEvent_t e);
  bool valid_event(cudaEvent_t e) const;
  // Queues the record on the stream. False when the event is not valid.
  bool record_event(cudaEvent_t e, cudaStream_t s);
  struct EventState {
    bool valid = false, recorded = false, finished = false, timing = true;
    uint64_t ticket = 0;
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
  };
  struct Event {
    unsigned flags = 0;
    bool recorded = false;
    uint64_t ticket = 0;
    uint64_t generation = 0;  // which record set time_ms
    double time_ms = 0;
  };
  static bool is_default(cudaStream_t s);

  mutable std::mutex mutex_;
  std::unordered_map<const void*, std::unique_ptr<Stream>> streams_;
  std::unordered_map<const void*, std::shared_ptr<Event>> events_;
};

}  // namespace synclab::rt
