// The init checker (SYNCLAB_CHECK=init), as compute-sanitizer's initcheck: a read of shared memory
// that no thread of the block has written, or of cudaMalloc memory that nothing (a copy, a memset,
// a kernel) has written, is reported with the bytes and the allocation it read. A listener of the
// run (sim/exec/run_observer.h) that hears its shared and global accesses: it reads the run through
// RunView (sim/exec/run_view.h), keeps which shared bytes each resident block has written, and
// appends its reports to the launch's.
#pragma once

#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "sim/exec/memory.h"
#include "sim/exec/report.h"
#include "sim/exec/run_observer.h"
#include "sim/exec/run_view.h"
#include "sim/exec/warp.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

class InitChecker final : public RunObserver {
 public:
  // run: the launch; memory: the device memory's record of which bytes were written; reports: the
  // launch's reports, which this checker's join.
  InitChecker(const RunView& run, DeviceMemory& memory, std::vector<Report>& reports)
      : run_(run), memory_(memory), reports_(reports) {}

  unsigned events() const override { return kAccesses; }
  // A block's shared memory starts unwritten, but for the region the system reserves (zeroed, as
  // the system gives it: cooperative groups reads its barrier words there before any thread writes).
  void cta_start(Cta& c) override;
  void cta_end(const Cta& c) override { shared_written_.erase(c.linear); }
  // A load or store; an atomic reads the old value and writes (atomic_read).
  void access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t,
              const ptx::Instr& I) override {
    check(w, lane, generic, size, write, false, I);
  }
  void rows(const Warp& w, uint32_t act, const uint64_t* X, uint64_t gen_off, uint32_t size, bool write,
            const ptx::Instr& I, const uint64_t*) override {
    for (uint32_t m = act; m; m &= m - 1)
      check(w, __builtin_ctz(m), X[__builtin_ctz(m)] + gen_off, size, write, false, I);
  }
  void atomic_read(const Warp& w, int lane, uint64_t generic, uint32_t size, const ptx::Instr& I) override {
    check(w, lane, generic, size, true, true, I);
  }
  void count(Counts& c) const override { c.init_reads += reported_; }

 private:
  void check(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, bool atomic, const ptx::Instr& I);
  // Whether any instruction of the lane's function reads the register I writes (its result).
  bool result_read(const Warp& w, int lane, const ptx::Instr& I);
  void report(const Warp& w, int lane, const ptx::Instr& I, uint64_t generic, uint32_t size, bool shared);

  const RunView& run_;
  DeviceMemory& memory_;
  std::vector<Report>& reports_;
  std::unordered_map<const ptx::Instr*, bool> result_read_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> shared_written_;  // by block: a bit per shared byte
  std::set<uint64_t> seen_;                                             // (instruction, space) already reported
  uint64_t reported_ = 0;
};

}  // namespace synclab::sim
