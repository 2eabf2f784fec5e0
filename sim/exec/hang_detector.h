// Progress detection: tells a hang (threads spinning on memory nothing will change) from a long
// computation, without a step budget. The detector is a listener of the run (run_observer.h), one
// that every run has: it hears the changes other threads could see (a store or atomic that
// changed memory, a barrier that released, lanes that exited or went on from a warp-synchronous
// wait, a block that started, relaxed memory settled) through the run's one ObserverList
// (observer_list.h), and keeps the epochs and last writers below. It steers nothing: the run's
// progress check (KernelRun::check_progress, progress.cpp) reads it and decides whether the run
// hangs.
//
// The detector keeps a "visible change epoch": it moves at each such change. When the epoch has
// not moved for a while, the detector becomes suspicious and the progress check fingerprints each
// lane (PC and registers) at every backward branch. A lane that reaches the same loop head with the
// same registers and no visible change in between is spinning: its future depends only on memory
// that has not changed. When every live lane is spinning or blocked behind one that is, nothing can
// change any more: the kernel hangs. Loops that read clocks or count iterations change registers
// and never look like spins. Mapped host memory can be written by the host at any time, so a spin
// on it is only declared a hang after a grace period of wall time.
//
// A loop that takes a lock and releases it again while finding nothing to do changes memory on
// every pass, but its net effect is nil. Such changes still move the epoch (so hang reports stay
// as strict as before), but not the "net epoch" or the quiet period: a lane whose fingerprint
// repeats with the same net epoch is waiting, and a priority scheduler runs it last (pct's
// on_spin) instead of letting it starve the thread that holds the work. When nothing has changed
// for good for eight quiet periods (overdue) and every running lane spins or waits, the kernel
// hangs all the same (KernelRun::check_progress).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/exec/run_observer.h"

namespace synclab::sim {

struct LastWriter {
  uint64_t addr = 0;
  uint64_t cta = 0;
  uint32_t tid = 0;
  uint32_t warp = 0;
  uint32_t lane = 0;
  uint32_t line = 0;
  uint32_t ptx_line = 0;
  uint16_t file = 0;
  bool valid = false;
};

class HangDetector final : public RunObserver {
 public:
  // Steps without a visible change before lanes are fingerprinted. Long enough that ordinary
  // kernels never pay for fingerprints; priority schedulers use a shorter window, because there a
  // spinning lane starves the others until it is found (see Scheduler::on_spin).
  static constexpr uint64_t kQuietSteps = 1 << 16;

  // steps: the run's step clock, read at each change (the detector's only view of the run).
  explicit HangDetector(const uint64_t* steps = nullptr, uint64_t quiet_steps = kQuietSteps)
      : steps_(steps), quiet_steps_(quiet_steps), writers_(WriterTable::take()) {}
  ~HangDetector() override { WriterTable::give_back(std::move(writers_)); }
  HangDetector(const HangDetector&) = delete;
  HangDetector& operator=(const HangDetector&) = delete;

  // What it hears (ObserverList calls it directly, whoever else listens; it hears no step and no
  // access: the run tells it of the changes themselves).
  void cta_start(Cta&) override { visible_change(); }
  void lanes_exited(const Warp&, uint32_t) override { visible_change(); }
  void barrier_release(const Cta&, uint32_t, uint32_t, const std::vector<uint32_t>&) override { visible_change(); }
  void warp_sync_resumed(const Warp&, uint32_t) override { visible_change(); }
  // A change other threads can see (a store's or an atomic's, counted once per instruction; the
  // run's progress check committing a lane's open change; relaxed memory settled).
  void visible_change() {
    ++epoch_;
    ++net_epoch_;
    last_change_step_ = *steps_;
  }
  // A change that its thread may still undo (KernelRun::lane_change): the epoch moves, the net
  // epoch and the quiet period wait for a visible change or an undo.
  void tentative_change() { ++epoch_; }
  // A lane wrote `addr`, changing it. `tid` is the thread's linear index in its block: threads
  // form warps in that order, so its warp is tid / 32 and its lane tid % 32. The last writer of
  // each address is kept in a table of fixed size (a later write to an address that maps to the
  // same slot replaces it).
  void record_writer(uint64_t addr, uint64_t cta, uint32_t tid, uint32_t line, uint32_t ptx_line, uint16_t file) {
    record_writer_at(slot(addr), addr, cta, tid, line, ptx_line, file);
  }
  // The same, for a caller that computed slot(addr) itself (region_start: see slot).
  static uint64_t region_start(uint64_t addr) { return ((addr >> 14) * 0x9E3779B97F4A7C15ull) >> 48; }
  static size_t slot_in(uint64_t addr, uint64_t region_start) {
    return ((addr >> 2) + region_start) & (kWriterSlots - 1);
  }
  void record_writer_at(size_t slot, uint64_t addr, uint64_t cta, uint32_t tid, uint32_t line, uint32_t ptx_line,
                        uint16_t file) {
    Entry& e = writers_->entries[slot];
    e.addr = addr;
    e.cta = cta;
    e.tid = tid;
    e.line = line;
    e.ptx_line = ptx_line;
    e.file = file;
    e.gen = writers_->gen;
  }

  // What the progress check reads.
  uint64_t quiet_steps() const { return quiet_steps_; }
  uint64_t epoch() const { return epoch_; }
  uint64_t net_epoch() const { return net_epoch_; }
  bool suspicious() const { return *steps_ - last_change_step_ > quiet_steps_; }
  uint64_t last_change_step() const { return last_change_step_; }
  // Nothing visible has changed for eight quiet periods.
  bool quiet_for_long() const { return *steps_ - last_change_step_ > 8 * quiet_steps_; }
  const LastWriter* last_writer(uint64_t addr) const {
    const Entry& e = writers_->entries[slot(addr)];
    if (e.gen != writers_->gen || e.addr != addr) return nullptr;
    found_.addr = e.addr;
    found_.cta = e.cta;
    found_.tid = e.tid;
    found_.warp = e.tid / 32;
    found_.lane = e.tid % 32;
    found_.line = e.line;
    found_.ptx_line = e.ptx_line;
    found_.file = e.file;
    found_.valid = true;
    return &found_;
  }

 private:
  // 32 bytes, two to a cache line. An entry holds a writer of this launch when its generation is
  // its table's.
  struct Entry {
    uint64_t addr = 0;
    uint64_t cta = 0;
    uint32_t tid = 0;
    uint32_t line = 0;
    uint32_t ptx_line = 0;
    uint16_t file = 0;
    uint16_t gen = 0;
  };
  static constexpr size_t kWriterSlots = 1 << 16;
  // The table of last writers (2 MiB) outlives its launch: the next launch on the same thread takes
  // it and moves to the next generation instead of allocating and zeroing it again (programs
  // that launch thousands of small kernels spent a tenth of their time there).
  struct WriterTable {
    std::unique_ptr<Entry[]> entries;
    uint16_t gen = 0;  // generation 0 marks no entry
    static std::unique_ptr<WriterTable> take();
    static void give_back(std::unique_ptr<WriterTable> table);
    static constexpr size_t kMaxSpare = 4;  // kept per thread (a run made during another takes a second)
    static std::vector<std::unique_ptr<WriterTable>>& spares();
  };
  // Words of one 16 KiB region take consecutive slots (from a hashed start), so the lanes of a
  // warp storing to consecutive words write neighbouring entries.
  static size_t slot(uint64_t addr) { return slot_in(addr, region_start(addr)); }
  const uint64_t* steps_;
  uint64_t quiet_steps_;
  uint64_t epoch_ = 0;
  uint64_t net_epoch_ = 0;
  uint64_t last_change_step_ = 0;
  std::unique_ptr<WriterTable> writers_;
  mutable LastWriter found_;  // what last_writer returns
};

// Fingerprint of a lane's registers for spin detection.
uint64_t hash_registers(const uint64_t* regs, size_t stride, size_t count, uint32_t func, uint32_t pc);
// The same without the registers `skip` marks (skip[i] != 0; skip may be shorter than count).
uint64_t hash_registers(const uint64_t* regs, size_t stride, size_t count, uint32_t func, uint32_t pc,
                        const std::vector<uint8_t>& skip);

}  // namespace synclab::sim
