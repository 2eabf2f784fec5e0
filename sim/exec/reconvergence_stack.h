// The pre-Volta SIMT reconvergence stack (lockstep warp model).
//
// Each entry is a set of lanes (mask) executing at a PC until they reach the entry's
// reconvergence PC (rpc), the immediate post-dominator of the branch that split them. Only the
// top entry runs. At a divergent branch the top entry becomes the reconvergence entry (its PC
// set to the rpc) and one entry per side is pushed above it; when the top entry reaches its
// rpc it is popped and its lanes continue with the entry below. A lane that won a spin lock
// therefore waits at the rpc while its warp-mates spin: the SIMT deadlock of seed 000 sec. 4.2.
#pragma once

#include <cstdint>
#include <vector>

namespace synclab::sim {

struct StackEntry {
  uint32_t func;
  uint32_t pc;
  uint32_t rpc;  // reconvergence PC; kNoRpc for the base entry
  uint32_t mask;
  uint32_t depth;  // call depth of the lanes when the entry was created
};

class ReconvergenceStack {
 public:
  static constexpr uint32_t kNoRpc = 0xfffffffeu;
  static constexpr uint32_t kExitPc = 0xffffffffu;  // Function::kExitPc: reconverge at return

  void reset(uint32_t func, uint32_t pc, uint32_t mask) {
    entries_.clear();
    entries_.push_back({func, pc, kNoRpc, mask, 0});
  }
  bool empty() const { return entries_.empty(); }
  StackEntry& top() { return entries_.back(); }
  const StackEntry& top() const { return entries_.back(); }
  const std::vector<StackEntry>& entries() const { return entries_; }

  // Splits the top entry at a divergent branch: lanes `first` run before lanes `second`.
  void diverge(uint32_t rpc, uint32_t first_pc, uint32_t first_mask, uint32_t second_pc, uint32_t second_mask) {
    StackEntry& t = entries_.back();
    const uint32_t func = t.func, depth = t.depth;
    t.pc = rpc;
    entries_.push_back({func, second_pc, rpc, second_mask, depth});
    entries_.push_back({func, first_pc, rpc, first_mask, depth});
  }

  void push(const StackEntry& e) { entries_.push_back(e); }
  void pop() { entries_.pop_back(); }

  // Removes lanes (exited) from every entry and drops entries left empty.
  void remove_lanes(uint32_t mask) {
    for (auto& e : entries_) e.mask &= ~mask;
    std::vector<StackEntry> kept;
    kept.reserve(entries_.size());
    for (auto& e : entries_)
      if (e.mask) kept.push_back(e);
    entries_.swap(kept);
  }

  // Pops entries whose lanes have reached their reconvergence point, merging them into the entry
  // below (whose PC is that point).
  void pop_reconverged() {
    while (entries_.size() > 1 && entries_.back().pc == entries_.back().rpc) entries_.pop_back();
  }

 private:
  std::vector<StackEntry> entries_;
};

}  // namespace synclab::sim
