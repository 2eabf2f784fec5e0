// Something that watches a kernel run without steering it: the trace recorder (trace_recorder.h)
// is one. The run calls an observer at fixed points of the code paths it takes anyway, so a watched
// run executes exactly what an unwatched one does: the same instruction paths (row forms and fast
// paths included), the same scheduling, the same reports. Calls come in the order things happen:
// a warp step first, then what its instruction does (accesses, atomics, barrier arrivals and
// releases, exits), then the reports it raised.
#pragma once

#include <synclab/trace_format.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/exec/report.h"
#include "sim/exec/simulator.h"
#include "sim/exec/warp.h"
#include "sim/exec/warp_model.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void launch_begin() = 0;
  // Group g of warp w is about to execute its instruction.
  virtual void step(const Warp& w, const Group& g) = 0;
  // A load (write false) or store of `size` bytes at a shared or global generic address; value: the
  // bytes read or written (the low `size` bytes).
  virtual void access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t value,
                      const ptx::Instr& I) = 0;
  // An atomic read-modify-write; old and new are the word's values before and after.
  virtual void atomic(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t old, uint64_t nw,
                      const ptx::Instr& I) = 0;
  // What the relaxed memory model did (trace::MemoryModelKind), right after the access it is
  // about: lane -1 for a whole-warp event (LateLoad: a is the lanes' mask).
  // size: the access's bytes (0 for LateLoad).
  virtual void memory_model(const Warp& w, int lane, trace::MemoryModelKind kind, uint64_t a, uint64_t b,
                            uint32_t size) = 0;
  // The newest write of the memory model's location `key` (KernelRun::mm_key) became the only
  // value any thread can read.
  virtual void memory_visible(uint64_t key) = 0;
  virtual void barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes) = 0;
  virtual void barrier_release(const Cta& c, uint32_t id, uint32_t arrived) = 0;
  virtual void lanes_exited(const Warp& w, uint32_t lanes) = 0;
  virtual void report(const Report& r) = 0;
  virtual void launch_end(LaunchStatus status) = 0;
};

// Several observers of one run (a trace and the performance counters): each hears every call, in
// the order they were added.
class ObserverList final : public RunObserver {
 public:
  void add(std::unique_ptr<RunObserver> o) { list_.push_back(std::move(o)); }
  size_t size() const { return list_.size(); }
  void launch_begin() override {
    for (auto& o : list_) o->launch_begin();
  }
  void step(const Warp& w, const Group& g) override {
    for (auto& o : list_) o->step(w, g);
  }
  void access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t value,
              const ptx::Instr& I) override {
    for (auto& o : list_) o->access(w, lane, generic, size, write, value, I);
  }
  void atomic(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t old, uint64_t nw,
              const ptx::Instr& I) override {
    for (auto& o : list_) o->atomic(w, lane, generic, size, old, nw, I);
  }
  void memory_model(const Warp& w, int lane, trace::MemoryModelKind kind, uint64_t a, uint64_t b,
                    uint32_t size) override {
    for (auto& o : list_) o->memory_model(w, lane, kind, a, b, size);
  }
  void memory_visible(uint64_t key) override {
    for (auto& o : list_) o->memory_visible(key);
  }
  void barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes) override {
    for (auto& o : list_) o->barrier_arrive(w, id, lanes);
  }
  void barrier_release(const Cta& c, uint32_t id, uint32_t arrived) override {
    for (auto& o : list_) o->barrier_release(c, id, arrived);
  }
  void lanes_exited(const Warp& w, uint32_t lanes) override {
    for (auto& o : list_) o->lanes_exited(w, lanes);
  }
  void report(const Report& r) override {
    for (auto& o : list_) o->report(r);
  }
  void launch_end(LaunchStatus status) override {
    for (auto& o : list_) o->launch_end(status);
  }

 private:
  std::vector<std::unique_ptr<RunObserver>> list_;
};

}  // namespace synclab::sim
