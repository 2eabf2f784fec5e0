// The run's one list of listeners (run_observer.h): the progress detector (hang_detector.h),
// which every run has, and the listeners the launch's settings add (kernel_run.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/exec/hang_detector.h"
#include "sim/exec/run_observer.h"

namespace synclab::sim {

// The listeners of one run: the progress detector first, which every run has, then each one added,
// in the order they were added; each hears every event it wants. The run calls the list, never a
// listener.
class ObserverList final {
 public:
  // steps: the run's step clock; quiet_steps: the progress detector's quiet period
  // (HangDetector::kQuietSteps, shorter under priority schedulers).
  ObserverList(const uint64_t* steps, uint64_t quiet_steps) : progress_(steps, quiet_steps) {}
  ObserverList(const ObserverList&) = delete;
  ObserverList& operator=(const ObserverList&) = delete;

  void add(std::unique_ptr<RunObserver> o) {
    RunObserver* p = o.get();
    if (p->events() & RunObserver::kSteps) steps_.push_back(p);
    if (p->events() & RunObserver::kAccesses) accesses_.push_back(p);
    all_.push_back(p);
    owned_.push_back(std::move(o));
  }
  // No listener but the progress detector.
  bool empty() const { return all_.empty(); }
  // Someone hears steps, or accesses.
  bool steps() const { return !steps_.empty(); }
  bool accesses() const { return !accesses_.empty(); }

  void launch_begin() {
    for (auto* o : all_) o->launch_begin();
  }
  void cta_start(Cta& c) {
    progress_.cta_start(c);
    for (auto* o : all_) o->cta_start(c);
  }
  void cta_end(const Cta& c) {
    for (auto* o : all_) o->cta_end(c);
  }
  void step(const Warp& w, const Group& g) {
    for (auto* o : steps_) o->step(w, g);
  }
  void access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t value,
              const ptx::Instr& I) {
    for (auto* o : accesses_) o->access(w, lane, generic, size, write, value, I);
  }
  void rows(const Warp& w, uint32_t act, const uint64_t* X, uint64_t gen_off, uint32_t size, bool write,
            const ptx::Instr& I, const uint64_t* V) {
    for (auto* o : accesses_) o->rows(w, act, X, gen_off, size, write, I, V);
  }
  void mbarrier_wait(const Warp& w, int lane, uint64_t generic, uint64_t value, bool complete, const ptx::Instr& I) {
    for (auto* o : accesses_) o->mbarrier_wait(w, lane, generic, value, complete, I);
  }
  void atomic_read(const Warp& w, int lane, uint64_t generic, uint32_t size, const ptx::Instr& I) {
    for (auto* o : all_) o->atomic_read(w, lane, generic, size, I);
  }
  void atomic_wrote(const Warp& w, int lane, uint64_t generic, const ptx::Instr& I) {
    for (auto* o : all_) o->atomic_wrote(w, lane, generic, I);
  }
  void atomic(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t old, uint64_t nw,
              const ptx::Instr& I) {
    for (auto* o : all_) o->atomic(w, lane, generic, size, old, nw, I);
  }
  void fence(const Warp& w, uint32_t act, const ptx::Instr& I) {
    for (auto* o : all_) o->fence(w, act, I);
  }
  void store_collision(const Warp& w, const ptx::Instr& I, uint64_t generic, uint32_t bytes, uint32_t writers,
                       const uint64_t* values) {
    for (auto* o : all_) o->store_collision(w, I, generic, bytes, writers, values);
  }
  void host_look() {
    for (auto* o : all_) o->host_look();
  }
  void host_access(const Warp& w, int lane, uint64_t generic, uint32_t size, const uint8_t* p, bool write, bool atomic,
                   const ptx::Instr& I, const uint64_t* read, const uint64_t* left) {
    for (auto* o : all_) o->host_access(w, lane, generic, size, p, write, atomic, I, read, left);
  }
  void barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes, const BarrierArrival& a) {
    for (auto* o : all_) o->barrier_arrive(w, id, lanes, a);
  }
  void barrier_release(const Cta& c, uint32_t id, uint32_t arrived, const std::vector<uint32_t>& waiters) {
    progress_.barrier_release(c, id, arrived, waiters);
    for (auto* o : all_) o->barrier_release(c, id, arrived, waiters);
  }
  void warp_sync(const Warp& w, uint32_t lanes) {
    for (auto* o : all_) o->warp_sync(w, lanes);
  }
  void member_mask(const Warp& w, int lane, uint32_t member, uint32_t here, const ptx::Instr& I, bool lockstep) {
    for (auto* o : all_) o->member_mask(w, lane, member, here, I, lockstep);
  }
  void shfl_outside(const Warp& w, int lane, const ptx::Instr& I, int source, uint32_t member) {
    for (auto* o : all_) o->shfl_outside(w, lane, I, source, member);
  }
  void lanes_exited(const Warp& w, uint32_t lanes) {
    progress_.lanes_exited(w, lanes);
    for (auto* o : all_) o->lanes_exited(w, lanes);
  }
  void warp_sync_resumed(const Warp& w, uint32_t lanes) {
    progress_.warp_sync_resumed(w, lanes);
    for (auto* o : all_) o->warp_sync_resumed(w, lanes);
  }

  // Changes of memory, which only the progress detector hears (HangDetector; no other listener
  // needs them, and a store pays for each): a lane changed a word (its last writer), the
  // instruction's changes are visible, or one is tentative; also a lane's open change committed
  // by the progress check, and relaxed memory settled (visible).
  void wrote(uint64_t addr, uint64_t cta, uint32_t tid, const ptx::Instr& I) {
    progress_.record_writer(addr, cta, tid, I.user_line, I.ptx_line, I.user_file);
  }
  void wrote_at(size_t slot, uint64_t addr, uint64_t cta, uint32_t tid, const ptx::Instr& I) {
    progress_.record_writer_at(slot, addr, cta, tid, I.user_line, I.ptx_line, I.user_file);
  }
  void visible_change() { progress_.visible_change(); }
  void tentative_change() { progress_.tentative_change(); }
  // The progress detector's state, for the run's progress check.
  const HangDetector& progress() const { return progress_; }
  void memory_model(const Warp& w, int lane, trace::MemoryModelKind kind, uint64_t a, uint64_t b, uint32_t size) {
    for (auto* o : all_) o->memory_model(w, lane, kind, a, b, size);
  }
  void memory_visible(uint64_t key) {
    for (auto* o : all_) o->memory_visible(key);
  }
  void report(const Report& r) {
    for (auto* o : all_) o->report(r);
  }
  void finish_reports() {
    for (auto* o : all_) o->finish_reports();
  }
  RunObserver::Counts counts() const {
    RunObserver::Counts c;
    for (auto* o : all_) o->count(c);
    return c;
  }
  void launch_end(LaunchStatus status) {
    for (auto* o : all_) o->launch_end(status);
  }

 private:
  HangDetector progress_;
  std::vector<std::unique_ptr<RunObserver>> owned_;
  std::vector<RunObserver*> all_, steps_, accesses_;
};

}  // namespace synclab::sim
