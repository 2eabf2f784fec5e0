// The init checker (SYNCLAB_CHECK=init), as compute-sanitizer's initcheck: a read of shared memory
// that no thread of the block has written, or of cudaMalloc memory that nothing (a copy, a memset,
// a kernel) has written, is reported with the bytes and the allocation it read. A listener of the
// launch's checked accesses: it reads the run through RunView (sim/exec/run_view.h) and appends its
// reports to the launch's.
#pragma once

#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "sim/exec/memory.h"
#include "sim/exec/report.h"
#include "sim/exec/run_view.h"
#include "sim/exec/warp.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

class InitChecker {
 public:
  // run: the launch; memory: the device memory's record of which bytes were written; reports: the
  // launch's reports, which this checker's join.
  InitChecker(const RunView& run, DeviceMemory& memory, std::vector<Report>& reports)
      : run_(run), memory_(memory), reports_(reports) {}

  // Lane `lane` of warp w accessed `size` bytes at a shared (offset `off` in its block's shared
  // memory, whose written bytes are `shared_written`, a bit per byte) or global (offset `off`)
  // address, `generic` being the address the program used. An atomic reads the old value.
  void access(Warp& w, int lane, uint64_t generic, bool shared, uint64_t off, uint32_t size, bool write, bool atomic,
              const ptx::Instr& I, std::vector<uint64_t>& shared_written);

  // How many uninitialized reads it reported (each instruction and space once).
  uint64_t reports() const { return reported_; }

 private:
  // Whether any instruction of the lane's function reads the register I writes (its result).
  bool result_read(const Warp& w, int lane, const ptx::Instr& I);
  void report(const Warp& w, int lane, const ptx::Instr& I, uint64_t generic, uint32_t size, bool shared);

  const RunView& run_;
  DeviceMemory& memory_;
  std::vector<Report>& reports_;
  std::unordered_map<const ptx::Instr*, bool> result_read_;
  std::set<uint64_t> seen_;  // (instruction, space) already reported
  uint64_t reported_ = 0;
};

}  // namespace synclab::sim
