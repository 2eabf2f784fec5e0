// The synchronization checker (sync_checker.h).
#include "sim/check/sync_checker.h"

#include <fmt/format.h>

#include <functional>

namespace synclab::sim {

using ptx::Op;

void SyncChecker::barrier_arrive(const Warp& w, uint32_t, uint32_t act, const BarrierArrival& a) {
  const ptx::Instr& I = a.instr;
  if (I.bar == ptx::BarKind::Arrive || a.count != 0) return;
  const int first = a.first;
  const bool lockstep = a.lockstep;
  BarrierState& b = a.state;
  const Cta& c = *w.cta;
  // __syncthreads() must be reached by every thread of the block, at the same barrier.
  const uint32_t pc = w.lanes[first].pc;
  const uint32_t func = w.lanes[first].func;
  if (lockstep && act != w.live_mask()) {
    report(w, first, I, Severity::Error, "barrier divergence: __syncthreads() in divergent code",
           fmt::format("only lanes {:#010x} of warp {} (block {}) reached this barrier; lanes {:#010x} are on "
                       "another path. Pre-Volta GPUs count the warp as arrived and the barrier no longer "
                       "separates what the block does before and after it.",
                       act, w.index, c.linear, w.live_mask() & ~act));
  } else if (b.func == ~0u) {
    b.func = func;
    b.pc = pc;
  } else if (b.func != func || b.pc != pc) {
    const ptx::Instr& other = run_.module().functions[b.func].code[b.pc];
    SourceLoc o = run_.where(other);
    report(w, first, I, Severity::Error, "barrier divergence: threads wait at different __syncthreads()",
           fmt::format("{} waits here while other threads of block {} wait at {}:{} (PTX line {}); a "
                       "__syncthreads() in code that not every thread reaches (a branch, a loop with a "
                       "thread-dependent bound, an early return) does not synchronize the block",
                       run_.lane_name(w, first), c.linear, o.file.empty() ? "?" : o.file, o.line, o.ptx_line));
  }
}

void SyncChecker::member_mask(const Warp& w, int lane, uint32_t member, uint32_t here, const ptx::Instr& I,
                              bool lockstep) {
  const char* what = I.op == Op::BarWarpSync ? "__syncwarp" : ptx::op_name(I.op);
  if (!(member >> lane & 1)) {
    report(w, lane, I, Severity::Error, fmt::format("{} with a mask that excludes the calling lane", what),
           fmt::format("{} passes member mask {:#010x}, which does not contain its own lane {}; every lane "
                       "that executes a .sync warp instruction must be named in its mask",
                       run_.lane_name(w, lane), member, lane));
    return;
  }
  // Lanes that have exited (or never existed) are not reported: CUDA requires only the
  // non-exited lanes of the mask to execute the instruction (e.g. a full mask after an early
  // return is legal), and the PTX ISA lets it complete without them.
  // Under lockstep, lanes still running on another path of a branch cannot arrive at all.
  if (lockstep && (member & ~here & w.live_mask())) {
    report(w, lane, I, Severity::Error, fmt::format("{} names lanes that are not active here", what),
           fmt::format("{} passes member mask {:#010x}, but lanes {:#010x} of warp {} are on another path of a "
                       "divergent branch; pre-Volta GPUs cannot wait for them",
                       run_.lane_name(w, lane), member, member & ~here & w.live_mask(), w.index));
  }
}

void SyncChecker::shfl_outside(const Warp& w, int lane, const ptx::Instr& I, int source, uint32_t member) {
  const bool named = member >> source & 1;
  report(
      w, lane, I, Severity::Error,
      named ? "__shfl_sync reads a lane that does not execute it" : "__shfl_sync reads a lane outside its member mask",
      fmt::format("{} reads lane {} of its warp, which {} (member mask {:#010x}): CUDA leaves the value it "
                  "gets undefined (on the simulator, the reading lane's own value). Every lane a shuffle "
                  "reads from must execute it and be named in the mask: let the whole warp take part (lanes "
                  "without data shuffle a neutral value such as 0) or read only from lanes in the mask.",
                  run_.lane_name(w, lane), source, named ? "has exited or is on another path" : "is not in the mask",
                  member));
}

void SyncChecker::report(const Warp& w, int lane, const ptx::Instr& I, Severity sev, const std::string& title,
                         const std::string& details) {
  const uint32_t loc = static_cast<uint32_t>(&I - run_.module().functions[w.lanes[lane].func].code.data());
  if (!seen_.insert({loc ^ (w.lanes[lane].func << 20), static_cast<int>(std::hash<std::string>()(title))}).second)
    return;
  ++reported_;
  Report r;
  r.kind = ReportKind::Sync;
  r.severity = sev;
  r.kernel = run_.kernel_name();
  r.block = static_cast<int64_t>(w.cta->linear);
  r.thread = w.lanes[lane].tid_linear;
  r.where = run_.where(I);
  r.title = title;
  r.details = details;
  r.seed = run_.seed();
  r.replay = run_.replay_line();
  reports_.push_back(r);
}

}  // namespace synclab::sim
