// The synchronization events of a launch that a listener hears: threads arriving at a block
// barrier, lanes executing a warp-synchronous instruction with a member mask, a shuffle reading a
// lane that does not take part. The sync checker (sim/check/sync_checker.h) listens to them; the
// warp models and the instructions (sim/exec/) call them through this interface alone.
#pragma once

#include <cstdint>

#include "sim/exec/warp.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

class SyncEvents {
 public:
  virtual ~SyncEvents() = default;
  // Lanes `act` of warp w (`first` the first of them) arrived at the block barrier I, whose phase is
  // b. lockstep: the launch's model is lockstep, where lanes on another path of a branch cannot
  // arrive at all. The listener may note where the phase's first arrival waits (b.func, b.pc).
  virtual void barrier_arrival(const Warp& w, int first, uint32_t act, BarrierState& b, const ptx::Instr& I,
                               bool lockstep) = 0;
  // Lane `lane` executes the warp-synchronous instruction I with member mask `member`; `here`: the
  // lanes that have arrived at it.
  virtual void member_mask(const Warp& w, int lane, uint32_t member, uint32_t here, const ptx::Instr& I,
                           bool lockstep) = 0;
  // A shfl.sync whose lane reads `source`, which is not in `member` and the lanes executing it.
  virtual void shfl_outside(const Warp& w, int lane, const ptx::Instr& I, int source, uint32_t member) = 0;
  // How many reports the listener raised.
  virtual uint64_t reports() const = 0;
};

}  // namespace synclab::sim
