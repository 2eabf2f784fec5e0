// The init checker (SYNCLAB_CHECK=init), as compute-sanitizer's initcheck: a read of shared memory
// that no thread of the block has written, or of cudaMalloc memory that nothing (a copy, a memset,
// a kernel) has written, is reported with the bytes and the allocation it read.
#include <fmt/format.h>

#include <algorithm>

#include "sim/exec/kernel_run.h"

namespace synclab::sim {

void KernelRun::check_init(Warp& w, int lane, uint64_t generic, bool shared, uint64_t off, uint32_t size, bool write,
                           bool atomic, const ptx::Instr& I) {
  Cta& c = *w.cta;
  // An exchange whose old value nobody reads only writes (atomicExch(p, v) as a store): its read
  // of the old bytes is no use of them.
  if (atomic && I.op == ptx::Op::Atom && I.aop == ptx::AtomOp::Exch && !result_read(w, lane, I)) atomic = false;
  if (shared) {
    auto& bits = c.race->shared_init;
    if (!write || atomic) {  // an atomic reads the old value
      bool init = true;
      for (uint64_t b = off; b < off + size; ++b)
        if (b / 64 < bits.size() && !(bits[b / 64] >> (b % 64) & 1)) init = false;
      if (!init) init_report(w, lane, I, generic, size, true);
    }
    if (write || atomic) {
      for (uint64_t b = off; b < off + size; ++b)
        if (b / 64 < bits.size()) bits[b / 64] |= 1ull << (b % 64);
    }
  } else if (w.cache_kind == AllocKind::Device) {
    if (!write || atomic) {
      if (!sim_.memory().initialized(off, size)) init_report(w, lane, I, generic, size, false);
    }
    if (write || atomic) sim_.memory().mark_initialized(off, size);
  }
}

bool KernelRun::result_read(const Warp& w, int lane, const ptx::Instr& I) {
  auto it = result_read_.find(&I);
  if (it != result_read_.end()) return it->second;
  bool read = false;
  const ptx::Operand& d = I.dst[0];
  if (I.ndst > 0 && d.kind == ptx::Operand::Kind::Reg && d.reg != ptx::Operand::kNoReg) {
    const ptx::Function& fn = M_.functions[w.lanes[lane].func];
    read = std::any_of(fn.code.begin(), fn.code.end(), [&](const ptx::Instr& J) { return ptx::reads_reg(J, d.reg); });
  }
  result_read_.emplace(&I, read);
  return read;
}

void KernelRun::init_report(Warp& w, int lane, const ptx::Instr& I, uint64_t generic, uint32_t size, bool shared) {
  const uint64_t off = shared ? generic - kSharedWindow : generic;
  const uint64_t key = (uint64_t(cur_loc_) << 1) | shared;
  if (!init_seen_.insert(key).second) return;
  ++init_reports_;
  if (init_reports_ > 20) return;
  Report r;
  r.kind = ReportKind::Init;
  r.kernel = entry_.name;
  r.block = static_cast<int64_t>(w.cta->linear);
  r.thread = w.lanes[lane].tid_linear;
  r.where = where(I);
  r.title = fmt::format("read of uninitialized {} memory", shared ? "shared" : "global");
  r.details = fmt::format("{} reads {} bytes at {}, which nothing has written{}", lane_name(w, lane), size,
                          describe_address(off, shared, w.cta->linear),
                          shared ? " in this block (shared memory starts undefined in every block)"
                                 : " (cudaMalloc memory starts undefined: copy or cudaMemset it first)");
  r.seed = cfg_.seed;
  r.replay = replay_line();
  result_.reports.push_back(r);
}

}  // namespace synclab::sim
