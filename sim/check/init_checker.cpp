// The init checker (init_checker.h).
#include "sim/check/init_checker.h"

#include <fmt/format.h>

#include <algorithm>

namespace synclab::sim {

void InitChecker::cta_start(Cta& c) {
  const LaunchShape& shape = run_.shape();
  std::vector<uint64_t>& bits = shared_written_[c.linear];
  bits.assign((shape.shared_bytes + 63) / 64, 0);
  if (shape.reserved_smem_base)
    for (uint64_t b = shape.reserved_smem_base; b < shape.shared_bytes; ++b) bits[b / 64] |= 1ull << (b % 64);
}

void InitChecker::check(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, bool atomic,
                        const ptx::Instr& I) {
  bool shared;
  uint64_t off;
  if (!checked_location(w, generic, &shared, &off)) return;
  // An exchange whose old value nobody reads only writes (atomicExch(p, v) as a store): its read
  // of the old bytes is no use of them.
  if (atomic && I.op == ptx::Op::Atom && I.aop == ptx::AtomOp::Exch && !result_read(w, lane, I)) atomic = false;
  if (shared) {
    auto& bits = shared_written_[w.cta->linear];
    if (!write || atomic) {  // an atomic reads the old value
      bool init = true;
      for (uint64_t b = off; b < off + size; ++b)
        if (b / 64 < bits.size() && !(bits[b / 64] >> (b % 64) & 1)) init = false;
      if (!init) report(w, lane, I, generic, size, true);
    }
    if (write || atomic) {
      for (uint64_t b = off; b < off + size; ++b)
        if (b / 64 < bits.size()) bits[b / 64] |= 1ull << (b % 64);
    }
  } else if (w.cache_kind == AllocKind::Device) {
    if (!write || atomic) {
      if (!memory_.initialized(off, size)) report(w, lane, I, generic, size, false);
    }
    if (write || atomic) memory_.mark_initialized(off, size);
  }
}

bool InitChecker::result_read(const Warp& w, int lane, const ptx::Instr& I) {
  auto it = result_read_.find(&I);
  if (it != result_read_.end()) return it->second;
  bool read = false;
  const ptx::Operand& d = I.dst[0];
  if (I.ndst > 0 && d.kind == ptx::Operand::Kind::Reg && d.reg != ptx::Operand::kNoReg) {
    const ptx::Function& fn = run_.module().functions[w.lanes[lane].func];
    read = std::any_of(fn.code.begin(), fn.code.end(), [&](const ptx::Instr& J) { return ptx::reads_reg(J, d.reg); });
  }
  result_read_.emplace(&I, read);
  return read;
}

void InitChecker::report(const Warp& w, int lane, const ptx::Instr& I, uint64_t generic, uint32_t size, bool shared) {
  const uint64_t off = shared ? generic - kSharedWindow : generic;
  const uint64_t key = (uint64_t(run_.current_loc()) << 1) | shared;
  if (!seen_.insert(key).second) return;
  ++reported_;
  if (reported_ > 20) return;
  Report r;
  r.kind = ReportKind::Init;
  r.kernel = run_.kernel_name();
  r.block = static_cast<int64_t>(w.cta->linear);
  r.thread = w.lanes[lane].tid_linear;
  r.where = run_.where(I);
  r.title = fmt::format("read of uninitialized {} memory", shared ? "shared" : "global");
  r.details = fmt::format("{} reads {} bytes at {}, which nothing has written{}", run_.lane_name(w, lane), size,
                          run_.describe_address(off, shared, w.cta->linear),
                          shared ? " in this block (shared memory starts undefined in every block)"
                                 : " (cudaMalloc memory starts undefined: copy or cudaMemset it first)");
  r.seed = run_.seed();
  r.replay = run_.replay_line();
  reports_.push_back(r);
}

}  // namespace synclab::sim
