// Thread, warp and CTA state of a running kernel.
//
// A lane keeps its own PC, call stack, registers and local memory, so the same state serves
// both warp models: under `its` lanes are grouped by PC at every step; under `lockstep` the
// warp's ReconvergenceStack decides which lanes run and the lanes' PCs follow its top entry.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/exec/memory.h"
#include "sim/exec/reconvergence_stack.h"

namespace synclab::sim {

// One lane's view of its warp's register file, which is laid out register-major
// (regs[slot * 32 + lane]) so that an instruction reads one register of all 32 lanes from
// contiguous memory: register r of the lane is base[r * 32].
struct LaneRegs {
  uint64_t* base = nullptr;
  uint64_t& operator[](uint32_t r) const { return base[size_t(r) * 32]; }
};

enum class LaneState : uint8_t {
  Absent,      // no thread (last warp of a block smaller than a multiple of 32)
  Ready,       // can execute its next instruction
  AtBarrier,   // waiting at bar.sync / barrier.sync
  AtWarpSync,  // waiting for the other lanes named in a .sync warp instruction's mask
  Exited,
};

struct CallFrame {
  uint32_t func;                              // caller's function
  uint32_t return_pc;                         // caller's instruction after the call
  uint32_t call_site;                         // index into the caller's Function::calls
  uint32_t reg_base, local_base, param_base;  // caller's bases
};

struct Lane {
  // What the step loop, barriers and grouping read come first (the lane's first cache line).
  LaneState state = LaneState::Absent;
  uint8_t barrier = 0;                                    // AtBarrier: which barrier
  bool carry = false;                                     // condition code of add.cc/sub.cc/mad.cc
  bool spinning = false;                                  // valid while the kernel's visible-change epoch is spin_epoch
  uint32_t func = 0;                                      // function the lane is executing (index into the module)
  uint32_t pc = 0;                                        // instruction index within that function
  uint32_t reg_base = 0, local_base = 0, param_base = 0;  // reg_base: first register slot of the frame
  uint32_t tid_linear = 0;
  uint32_t sync_mask = 0;  // AtWarpSync: the member mask given
  LaneRegs rp;             // the current frame's registers (kept by Warp::sync_regp)
  uint32_t tid[3] = {0, 0, 0};
  // Progress detection (see hang_detector.h; the lane's last load address is
  // Warp::last_load).
  uint32_t spin_func = ~0u, spin_pc = ~0u;
  uint64_t spin_hash = 0, spin_epoch = ~0ull;
  // Waiting (by the net epoch): two loop heads with their fingerprints (without the registers the
  // clock feeds) and the net epoch at each, for loops that come round at two heads in turn (a
  // lock's spin and the loop around it).
  uint32_t wait_func = ~0u, wait_pc = ~0u, wait_func2 = ~0u, wait_pc2 = ~0u;
  uint64_t wait_hash = 0, wait_hash2 = 0;
  uint64_t spin_net_epoch = ~0ull, spin_net_epoch2 = ~0ull;  // HangDetector::net_epoch at each
  uint64_t waiting_net = ~0ull;                              // the net epoch in which `waiting` was last found
  bool waiting = false;       // spinning by the net epoch: the scheduler was told (on_spin)
  uint64_t waiting_told = 0;  // the step at which the scheduler was last told this lane waits
  // The word this lane changed first since its changes were last made visible, and its value
  // before (Warp::open_lanes says whether there is one): a store or atomic that puts it back
  // undoes the change (a lock taken and released), see KernelRun::lane_change.
  uint64_t open_addr = 0, open_old = 0;
  uint32_t open_size = 0;
  int64_t pct_priority = 0;  // PCT: larger runs first

  std::vector<uint8_t> local;   // all frames' .local memory
  std::vector<uint8_t> params;  // all frames' .param memory (function and call-sequence params)
  std::vector<CallFrame> frames;

  LaneRegs R() const { return rp; }
};

struct Cta;
struct RaceCta;  // sim/check/race_detector.h

struct Warp {
  // The fields the step loop reads at every step come first (the first cache lines of the warp).
  Cta* cta = nullptr;
  uint32_t index = 0;         // warp index within the CTA
  uint32_t global_index = 0;  // index among all warps ever dispatched in this launch
  uint32_t present_mask = 0;  // lanes that hold a thread
  uint32_t ready_mask = 0;    // lanes in LaneState::Ready
  uint32_t runnable = 0;      // lanes the warp model lets run now (scheduler's view)
  uint32_t exited_mask = 0;
  uint32_t open_lanes = 0;  // lanes with an open change (Lane::open_addr)
  // ITS grouping: lanes that just took a backward branch yield to the warp's other groups.
  uint32_t yielded_mask = 0;
  bool converged = true;        // ITS: every ready lane is at the same (func, pc)...
  uint32_t cfunc = 0, cpc = 0;  // ...which is this one; the ready lanes' own PCs may be stale
  // ITS, exploring: lanes of a converged warp that a split left behind (ItsModel::split), held
  // back for split_hold_steps more of the warp's steps (or until nothing else can run).
  uint32_t split_hold = 0;
  uint32_t split_hold_steps = 0;
  // The reg_base every live lane shares (no calls, or the same call depth), or kMixedBase. While
  // it is shared, an instruction's operands are whole contiguous rows: the vector fast paths.
  static constexpr uint32_t kMixedBase = 0xffffffffu;
  uint32_t uniform_base = 0;
  // Register file of every frame of every lane: slot-major, regs[slot * 32 + lane].
  std::vector<uint64_t> regs;
  // The global allocation touched last: most accesses hit it again, which spares the lookup.
  uint64_t cache_base = 0, cache_size = 0;
  AllocKind cache_kind = AllocKind::Device;

  // Lanes waiting at a barrier (LaneState::AtBarrier) and, while they all wait at the same one,
  // its number and the instruction they wait at (bar_id is kMixedBarrier otherwise).
  static constexpr uint32_t kMixedBarrier = 0xffffffffu;
  uint32_t bar_mask = 0;
  uint32_t bar_id = 0, bar_func = 0, bar_pc = 0;

  ReconvergenceStack stack;  // lockstep only
  // Relaxed memory model, load buffering (sim/memory/relaxed/load_buffering.h): lanes lb_lanes ran
  // some instructions after their load at (lb_func, lb_pc) early; at their next step they run the
  // held-back ones, lb_late[0..lb_n_late) (the load first), then go on at lb_resume
  // (KernelRun::reorder_load).
  uint32_t lb_lanes = 0, lb_func = 0, lb_pc = 0, lb_resume = 0, lb_n_late = 0;
  uint32_t lb_late[12], lb_late_pos[12];
  uint8_t lb_late_acquire = 0;  // (a ptx::Scope: LbPlan::late_acquire)
  // The step (KernelRun's count) until which the scheduler passes this warp over when another can
  // run: its lanes ran a plan's early part and have nothing else to run before the held-back part.
  uint64_t lb_hold_until = 0;
  LaneRegs regp[32];  // lanes[i].R(), cached for the interpreter's inner loops
  // Per lane: the generic address of its last load or atomic (what a spinning lane polls), kept
  // here rather than in Lane so that a warp-wide access writes one contiguous row.
  uint64_t last_load[32] = {};
  // PCT's own (sched/policies.cpp): the highest priority among the lanes of pct_mask, while
  // pct_known (the scheduler forgets it when it changes a lane's priority).
  uint32_t pct_mask = 0;
  bool pct_known = false;
  int64_t pct_highest = 0;
  Lane lanes[32];

  void sync_regp(int lane) {
    regp[lane].base = regs.data() + size_t(lanes[lane].reg_base) * 32 + lane;
    lanes[lane].rp = regp[lane];
  }
  uint64_t* row(uint32_t reg) { return regs.data() + (size_t(uniform_base) + reg) * 32; }
  void update_uniform_base() {
    uint32_t b = kMixedBase;
    for (uint32_t m = present_mask & ~exited_mask; m; m &= m - 1) {
      uint32_t rb = lanes[__builtin_ctz(m)].reg_base;
      if (b == kMixedBase)
        b = rb;
      else if (b != rb) {
        uniform_base = kMixedBase;
        return;
      }
    }
    uniform_base = b == kMixedBase ? 0 : b;
  }
  uint32_t live_mask() const { return present_mask & ~exited_mask; }
};

struct BarrierState {
  uint32_t arrived = 0;           // threads that arrived (bar.sync and bar.arrive)
  uint32_t expected = 0;          // 0 until the first arrival fixes it
  uint32_t func = ~0u, pc = ~0u;  // where the first bar.sync of this phase waits (divergence check)
  uint32_t red_popc = 0;          // bar.red accumulators
  bool red_and = true, red_or = false;
};

struct Cta {
  uint64_t linear = 0;
  uint32_t ctaid[3] = {0, 0, 0};
  uint32_t sm = 0;
  uint32_t threads = 0;         // threads in the block
  uint32_t live_threads = 0;    // not yet exited
  std::vector<uint8_t> shared;  // static then dynamic shared memory
  std::vector<Warp> warps;
  BarrierState barriers[16];
  bool done = false;
  std::shared_ptr<RaceCta> race;  // the race checker's per-block state (race check on)
};

}  // namespace synclab::sim
