// Progress detection: tells a hang (threads spinning on memory nothing will change) from a long
// computation, without a step budget.
//
// The kernel keeps a "visible change epoch": it moves whenever a store or atomic changes memory
// another thread could read, a barrier releases, or a thread exits. When the epoch has not moved
// for a while, the detector becomes suspicious and fingerprints each lane (PC and registers) at
// every backward branch. A lane that reaches the same loop head with the same registers and no
// visible change in between is spinning: its future depends only on memory that has not changed.
// When every live lane is spinning or blocked behind one that is, nothing can change any more:
// the kernel hangs. Loops that read clocks or count iterations change registers and never look
// like spins. Mapped host memory can be written by the host at any time, so a spin on it is only
// declared a hang after a grace period of wall time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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

class HangDetector {
 public:
  // Steps without a visible change before lanes are fingerprinted. Long enough that ordinary
  // kernels never pay for fingerprints; priority schedulers use a shorter window, because there a
  // spinning lane starves the others until it is found (see Scheduler::on_spin).
  static constexpr uint64_t kQuietSteps = 1 << 16;
  void set_quiet_steps(uint64_t n) { quiet_steps_ = n; }

  HangDetector() : writers_(kWriterSlots) {}

  uint64_t epoch() const { return epoch_; }
  void visible_change(uint64_t step) {
    ++epoch_;
    last_change_step_ = step;
  }
  bool suspicious(uint64_t step) const { return step - last_change_step_ > quiet_steps_; }

  void record_writer(const LastWriter& w) { writers_[slot(w.addr)] = w; }
  const LastWriter* last_writer(uint64_t addr) const {
    const LastWriter& w = writers_[slot(addr)];
    return (w.valid && w.addr == addr) ? &w : nullptr;
  }

 private:
  static constexpr size_t kWriterSlots = 1 << 16;
  static size_t slot(uint64_t addr) { return ((addr >> 2) * 0x9E3779B97F4A7C15ull) >> 48; }
  uint64_t epoch_ = 0;
  uint64_t last_change_step_ = 0;
  uint64_t quiet_steps_ = kQuietSteps;
  std::vector<LastWriter> writers_;
};

// Fingerprint of a lane's registers for spin detection.
uint64_t hash_registers(const uint64_t* regs, size_t stride, size_t count, uint32_t func, uint32_t pc);

}  // namespace synclab::sim
