// Progress: whether the threads of a launch can still get anywhere. A spin check after backward
// branches (check_progress, with the HangDetector of sim/exec/hang_detector.h) finds threads
// that spin while nothing they could see changes; the step loop finds a deadlock when no warp can
// run. Each ends the launch with a report that says where every thread is and why it cannot go
// on.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "sim/exec/its_model.h"
#include "sim/exec/lockstep_model.h"

namespace synclab::sim {

using ptx::Op;

namespace {
constexpr uint32_t kExitPc = ptx::Function::kExitPc;

bool clock_sreg(ptx::SReg r) {
  using ptx::SReg;
  return r == SReg::Clock || r == SReg::ClockHi || r == SReg::Clock64 || r == SReg::GlobalTimer ||
         r == SReg::GlobalTimerLo || r == SReg::GlobalTimerHi;
}

// The registers of `fn` whose value the clock feeds (%clock, %clock64, %globaltimer, and anything
// computed from them): a back-off loop that reads the time waits all the same.
std::vector<uint8_t> clock_fed_registers(const ptx::Function& fn) {
  std::vector<uint8_t> fed(fn.regs.size() + 1, 0);
  auto reads_fed = [&](const ptx::Operand& o) {
    switch (o.kind) {
      case ptx::Operand::Kind::SpecialReg: return clock_sreg(o.sreg);
      case ptx::Operand::Kind::Reg:
      case ptx::Operand::Kind::Addr: return o.reg != ptx::Operand::kNoReg && o.reg < fed.size() && fed[o.reg] != 0;
      case ptx::Operand::Kind::Vector:
        for (int k = 0; k < o.count; ++k)
          if (o.vec[k] != ptx::Operand::kNoReg && o.vec[k] < fed.size() && fed[o.vec[k]]) return true;
        return false;
      default: return false;
    }
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const ptx::Instr& I : fn.code) {
      bool any = false;
      for (int k = 0; k < I.nsrc && !any; ++k) any = reads_fed(I.src[k]);
      if (!any) continue;
      for (int k = 0; k < I.ndst; ++k) {
        const ptx::Operand& d = I.dst[k];
        auto mark = [&](uint32_t r) {
          if (r != ptx::Operand::kNoReg && r < fed.size() && !fed[r]) fed[r] = 1, changed = true;
        };
        if (d.kind == ptx::Operand::Kind::Reg) mark(d.reg);
        if (d.kind == ptx::Operand::Kind::Vector)
          for (int v = 0; v < d.count; ++v) mark(d.vec[v]);
      }
    }
  }
  return fed;
}

// The verb that agrees with lanes_phrase(mask).
const char* verb(uint32_t mask, const char* one, const char* many) {
  return __builtin_popcount(mask) == 1 ? one : many;
}
}  // namespace

const std::vector<uint8_t>& KernelRun::clock_fed(uint32_t func) {
  if (progress_.clock_fed.size() <= func) progress_.clock_fed.resize(M_.functions.size());
  auto& e = progress_.clock_fed[func];
  if (!e.first) {
    e.first = true;
    e.second = clock_fed_registers(M_.functions[func]);
    if (std::find(e.second.begin(), e.second.end(), 1) == e.second.end()) e.second.clear();
  }
  return e.second;
}

void KernelRun::materialize_all() {
  for (Warp* x : warps_) {
    if (cfg_.model == WarpModel::Lockstep)
      LockstepModel::materialize(*x);
    else
      ItsModel::materialize(*x);
  }
}

bool KernelRun::check_progress(Warp& w, uint32_t lanes, uint32_t func, uint32_t pc) {
  if (w.open_lanes & lanes) {
    // A change these lanes made and did not undo before coming round their loop is a change.
    w.open_lanes &= ~lanes;
    listen_.list.visible_change();
  }
  const HangDetector& detector = listen_.list.progress();
  const uint64_t epoch = detector.epoch(), net = detector.net_epoch();
  bool new_spin = false;
  const ptx::Function& fn = M_.functions[func];
  uint32_t spinners = 0, waiters = 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    uint64_t h = hash_registers(w.regp[lane].base, 32, fn.regs.size() + 1, func, pc);
    // For the scheduler's "waiting", the registers the clock feeds do not count (a back-off loop
    // that reads the time, as cuda::barrier's waiters do); a spin still needs them unchanged (a
    // delay loop on clock() is no hang).
    const std::vector<uint8_t>& fed = clock_fed(func);
    const uint64_t hw = fed.empty() ? h : hash_registers(w.regp[lane].base, 32, fn.regs.size() + 1, func, pc, fed);
    const bool same_place = L.spin_func == func && L.spin_pc == pc;
    if (same_place && L.spin_hash == h) {
      // The same state at the loop head. Spinning (for hang reports) when nothing at all changed
      // since.
      if (L.spin_epoch == epoch) {
        if (!L.spinning) new_spin = true;
        L.spinning = true;
        spinners |= 1u << lane;
      } else {
        L.spinning = false;
        L.spin_epoch = epoch;
      }
    } else {
      L.spinning = false;
      L.spin_epoch = epoch;
      L.spin_hash = h;
    }
    // Waiting (for the scheduler, and for hang reports once overdue) when the lane comes round a
    // loop head it passed before with the same registers and nothing changed but what was undone
    // again (a lock taken and released by a loop that found no work). Two heads are kept: a loop
    // around a lock's spin comes round at both in turn.
    const bool at1 = L.wait_func == func && L.wait_pc == pc && L.wait_hash == hw;
    const bool at2 = !at1 && L.wait_func2 == func && L.wait_pc2 == pc && L.wait_hash2 == hw;
    if (at1 || at2) {
      uint64_t& seen_net = at1 ? L.spin_net_epoch : L.spin_net_epoch2;
      if (seen_net == net) {
        // Told when it starts to wait, and again after each quiet period it goes on waiting while
        // it runs: the lane whose turn it is may have been put below the others when it read an
        // old value of the turn (relaxed memory), and waiters told only once would then keep their
        // places above it for ever (a PCT thread that yields goes last every time it yields).
        if (!L.waiting || clock_.steps - L.waiting_told > detector.quiet_steps()) {
          waiters |= 1u << lane;
          L.waiting_told = clock_.steps;
        }
        L.waiting = true;
        L.waiting_net = net;
      } else {
        L.waiting = false;
        seen_net = net;
      }
    } else {
      L.wait_func2 = L.wait_func;
      L.wait_pc2 = L.wait_pc;
      L.wait_hash2 = L.wait_hash;
      L.spin_net_epoch2 = L.spin_net_epoch;
      L.wait_func = func;
      L.wait_pc = pc;
      L.wait_hash = hw;
      L.spin_net_epoch = net;
      L.waiting = false;
    }
    L.spin_func = func;
    L.spin_pc = pc;
  }
  if (waiters) sched_->on_spin(w, waiters);
  // The check below starts when a lane becomes a new spinner, and also when nothing has changed
  // for long. A lane may never become a new spinner although every runnable lane spins: under the
  // relaxed model a lane spinning on an old value of a word whose new value is already in memory,
  // which a priority scheduler that found it waiting runs last, behind another waiting lane that
  // then runs for ever; under lockstep, lanes that stopped being runnable (parked at a
  // reconvergence point, held at a barrier) with no memory changed, so that the spinners left
  // were already spinning (tests/checks/divergent_barrier_spin_pct.cu). Running the check again
  // changes nothing about what it proves.
  // Nothing visible has changed for eight quiet periods: overdue at most once per quiet period (a
  // check that does not wait for a new spinner; relaxed memory).
  bool overdue = false;
  if (detector.quiet_for_long() && clock_.steps - progress_.last_overdue_step > detector.quiet_steps()) {
    progress_.last_overdue_step = clock_.steps;
    overdue = true;
  }
  if (!new_spin && !progress_.host_grace_started && !overdue) return false;
  // Every live lane must be spinning (in this epoch) or unable to run. When nothing has changed
  // for good for eight quiet periods (overdue), a lane that only waits also counts: its loop
  // writes memory on every pass (a lock taken and released) but undoes it, and the net epoch has
  // not moved since it came round with the same registers.
  bool host_memory = false;
  bool simt_deadlock = false;
  bool lock_traffic = false;
  for (Warp* x : warps_) {
    uint32_t running = x->runnable;
    for (uint32_t m = x->live_mask(); m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      const Lane& L = x->lanes[lane];
      const bool can_run = (running >> lane) & 1;
      if (!can_run) continue;  // blocked at a barrier, a warp sync or a reconvergence point
      if (!(L.spinning && L.spin_epoch == epoch)) {
        if (!(overdue && L.waiting && L.waiting_net == net)) return false;
        lock_traffic = true;
      }
      if (const Allocation* a = sim_.memory().find(x->last_load[lane]); a && host_visible(a->kind)) host_memory = true;
    }
    // A SIMT deadlock: the word a lane spins on was last written by a lane of its own warp that
    // is now parked at a reconvergence point (the lock's winner). Parked lanes alone do not make
    // one: a lane spinning on another block's write merely hangs.
    // (Only lockstep parks lanes: under its, every ready lane can run.)
    const uint32_t parked = x->live_mask() & ~running & x->ready_mask;
    if (parked) {
      for (uint32_t m = running; m; m &= m - 1) {
        const uint64_t polled = x->last_load[__builtin_ctz(m)];
        if (!polled) continue;
        const LastWriter* lw = detector.last_writer(writer_key(polled, x->cta->linear));
        if (lw && lw->cta == x->cta->linear && lw->warp == x->index && (parked >> lw->lane & 1)) simt_deadlock = true;
      }
    }
  }
  if (host_memory) {
    // The host may still write the polled word: give it time before calling this a hang.
    using namespace std::chrono;
    if (!progress_.host_grace_started) {
      progress_.host_grace_started = true;
      progress_.host_grace_since = steady_clock::now();
      return false;
    }
    if (steady_clock::now() - progress_.host_grace_since < seconds(3)) return false;
  }
  if (mm_.relaxed && (lock_traffic ? progress_.settled_net_epoch != detector.net_epoch()
                                   : progress_.settled_epoch != detector.epoch())) {
    // Some spinning thread may have read an old value: every location's newest value becomes the
    // only one it can read, and the spin check starts over in a new epoch, in which every thread
    // must show again that it spins (a waiting lane found again is run last, so each gets its
    // turn). A hang is a hang with nothing stale. (Lanes that only wait move the epoch on every
    // pass: for them the net epoch says whether the check started over.)
    mm_.relaxed->settle();
    listen_.list.visible_change();
    progress_.settled_epoch = detector.epoch();
    progress_.settled_net_epoch = detector.net_epoch();
    return false;
  }
  report_hang(simt_deadlock, lock_traffic);
  return true;
}

// What the innermost loop around instruction `pc` (from the nearest backward branch at or after
// it to that branch's target) reads: memory (a load, an atomic, a barrier, a call...), only other
// lanes of its warp (a vote, shuffle or match and no memory), or nothing. Memory when no such loop
// is found: then nothing is claimed.
KernelRun::LoopReads KernelRun::loop_reads(const ptx::Function& fn, uint32_t pc) {
  for (size_t b = pc; b < fn.code.size(); ++b) {
    const ptx::Instr& B = fn.code[b];
    if (B.op != Op::Bra || B.src[0].kind != ptx::Operand::Kind::Label) continue;
    const uint64_t target = static_cast<uint64_t>(B.src[0].imm);
    if (target > pc) continue;
    LoopReads reads = LoopReads::Nothing;
    for (size_t i = target; i <= b; ++i) {
      if (ptx::is_warp_synchronous(fn.code[i].op)) reads = LoopReads::WarpOnly;
      switch (fn.code[i].op) {
        case Op::Ld:
        case Op::Ldu:
        case Op::Atom:
        case Op::Call:
        case Op::Bar:
        case Op::Nanosleep:
        case Op::Mbarrier:
        case Op::CpAsyncMbarArrive: return LoopReads::Memory;
        default: break;
      }
    }
    return reads;
  }
  return LoopReads::Memory;
}

void KernelRun::report_hang(bool simt_deadlock, bool lock_traffic) {
  materialize_all();
  Report r;
  r.kernel = entry_.name;
  r.seed = cfg_.seed;
  r.replay = replay_line();
  std::string details;
  const Warp* first_w = nullptr;
  int first_lane = -1;
  int loops_without_loads = 0, warp_only_loops = 0;  // loops that read no memory; of them, with a vote or shuffle
  int spinning_warps = 0, at_grid_barrier = 0;       // warps, and those polling cooperative groups' grid barrier
  for (Warp* x : warps_) {
    uint32_t spin = 0;
    for (uint32_t m = x->runnable; m; m &= m - 1) spin |= 1u << __builtin_ctz(m);
    if (!spin) continue;
    const int lane = __builtin_ctz(spin);
    const Lane& L = x->lanes[lane];
    ++spinning_warps;
    if (!first_w) {
      first_w = x;
      first_lane = lane;
    }
    const ptx::Instr& I = M_.functions[L.func].code[std::min<size_t>(L.pc, M_.functions[L.func].code.size() - 1)];
    SourceLoc loc = where(I);
    for (uint32_t m = spin; m && r.parties.size() < 64; m &= m - 1) {
      Report::Party p;
      p.block = static_cast<int64_t>(x->cta->linear);
      p.warp = x->index;
      p.lane = __builtin_ctz(m);
      p.where = loc;
      p.access = "spinning";
      r.parties.push_back(p);
    }
    std::string line = fmt::format("block {} warp {}: {} {} at {}:{}", x->cta->linear, x->index, lanes_phrase(spin),
                                   verb(spin, "spins", "spin"), loc.file.empty() ? "?" : loc.file, loc.line);
    const LoopReads reads = loop_reads(M_.functions[L.func], L.pc);
    if (reads == LoopReads::Nothing) {
      ++loops_without_loads;
      line +=
          "; the loop there reads no memory at all (its PTX has no load): whatever it waits for stays in a "
          "register, so no other thread can ever end it";
    } else if (reads == LoopReads::WarpOnly && spin == x->live_mask()) {
      // A vote or shuffle among lanes that all spin in this loop: they only see each other's
      // registers, which the loop does not change for good.
      ++loops_without_loads;
      ++warp_only_loops;
      line +=
          "; the loop there reads no memory at all (its PTX has no load; its vote or shuffle reads only the "
          "registers of lanes that all spin in it): what it tests stays in registers, so no other thread can "
          "ever end it";
    } else if (const uint64_t polled = x->last_load[lane]) {
      std::string what;
      if (polled >= kSharedWindow && polled < kSharedWindow + kWindowSize) {
        what = describe_address(polled - kSharedWindow, true, x->cta->linear);  // "__shared__ flag, byte 0"
      } else if (polled >= kLocalWindow && polled < kLocalWindow + kWindowSize) {
        what = fmt::format("its own local memory, offset 0x{:x}", polled - kLocalWindow);
      } else {
        what = fmt::format("0x{:x}", polled);
        if (const Allocation* a = sim_.memory().find(polled))
          what += fmt::format(" ({} + {})", a->name, polled - a->base);
        if (dispatch_.grid_workspace && polled >= dispatch_.grid_workspace && polled < dispatch_.grid_workspace + 64)
          ++at_grid_barrier;
      }
      line += fmt::format(", polling {}", what);
      if (const LastWriter* lw = listen_.list.progress().last_writer(writer_key(polled, x->cta->linear))) {
        std::string file = lw->file < M_.files.size() ? M_.files[lw->file].path : "?";
        line += fmt::format("; last written by block {} thread {} (warp {} lane {}) at {}:{}", lw->cta, lw->tid,
                            lw->warp, lw->lane, file, lw->line);
      } else {
        line += "; nothing in this kernel wrote it since the spin began";
      }
    }
    details += line + "\n";
    if (cfg_.model == WarpModel::Lockstep) {
      uint32_t parked = x->live_mask() & x->ready_mask & ~x->runnable;
      if (parked) {
        // Lanes waiting on the reconvergence stack: find where they wait.
        uint32_t rpc = kExitPc;
        for (const StackEntry& e : x->stack.entries())
          if (e.mask & parked) {
            rpc = e.pc;
            break;
          }
        const ptx::Function& fn = M_.functions[x->stack.top().func];
        std::string at = "?";
        if (rpc < fn.code.size()) {
          SourceLoc l2 = where(fn.code[rpc]);
          at = fmt::format("{}:{}", l2.file.empty() ? "?" : l2.file, l2.line);
        }
        details += fmt::format(
            "block {} warp {}: {} {} at the reconvergence point {} for {} "
            "(lockstep: the warp runs one path at a time)\n",
            x->cta->linear, x->index, lanes_phrase(parked), verb(parked, "waits", "wait"), at, lanes_phrase(spin));
      }
    }
  }
  if (first_w) {
    const Lane& L = first_w->lanes[first_lane];
    const ptx::Function& fn = M_.functions[L.func];
    r.where = where(fn.code[std::min<size_t>(L.pc, fn.code.size() - 1)]);
    r.block = static_cast<int64_t>(first_w->cta->linear);
    r.thread = L.tid_linear;
  }
  if (dispatch_.next < shape_.blocks)
    details += fmt::format(
        "{} more block(s) wait for a free SM slot: only {} block(s) of this shape fit at once "
        "({} SMs x {} per SM on device '{}')\n",
        shape_.blocks - dispatch_.next, uint64_t(shape_.blocks_per_sm) * prof_.sm_count, prof_.sm_count,
        shape_.blocks_per_sm, prof_.name);
  if (simt_deadlock) {
    r.kind = ReportKind::Deadlock;
    r.title =
        "SIMT deadlock: lanes spin on a word that a lane of their own warp, parked at a reconvergence "
        "point, would change";
  } else if (loops_without_loads) {
    r.kind = ReportKind::Hang;
    r.title = "hang: threads spin in a loop that reads no memory, so nothing another thread does can end it";
    if (warp_only_loops < loops_without_loads)
      details +=
          "the compiler keeps a value that it may assume no other thread changes (a plain, non-volatile "
          "load) in a register and reads it once, before the loop; the loop then tests that register for "
          "ever. Read the flag or lock in the loop with a volatile or atomic load (a volatile pointer, "
          "cuda::atomic_ref<...>::load, atomicAdd(&x, 0)), and order what it guards with a fence or "
          "acquire/release\n";
    if (warp_only_loops)
      details +=
          "a vote or shuffle (__any_sync, __ballot_sync, __shfl_sync, ...) among lanes that all spin in the "
          "same loop reads only their registers, and what they vote on or pass is the same on every pass. "
          "Change in the loop what the lanes vote on or pass, so that the loop's test can turn false (a lane "
          "whose work is done votes 0); if the loop waits for another thread, read the flag or lock in the "
          "loop with a volatile or atomic load\n";
  } else if (at_grid_barrier && at_grid_barrier == spinning_warps) {
    r.kind = ReportKind::Hang;
    r.title = "hang: threads wait at a grid barrier (grid.sync()) for threads that do not reach it again";
    details +=
        "every thread of the grid must call grid.sync() (cooperative_groups::this_grid().sync()) the same number "
        "of times: one inside a loop whose trip count differs between threads (a grid-stride loop over the "
        "thread's elements), after a continue or an early return, or in a branch leaves the threads that made "
        "fewer calls gone or elsewhere, and the others wait for them for ever. Put each grid.sync() where every "
        "thread reaches it, e.g. after the grid-stride loop, not inside it\n";
  } else if (lock_traffic) {
    r.kind = ReportKind::Hang;
    r.title =
        "hang: every running thread loops, and what each pass writes it undoes (a lock taken and released) "
        "while nothing else changes";
    details += fmt::format(
        "no thread changed memory for good in the last {} warp steps: each pass of these loops takes a lock (or "
        "writes a word) and gives it back, and the condition it waits for stays false. Whatever the loop waits "
        "for is never written: look for the thread that should write it (it may have exited, or never been "
        "started)\n",
        clock_.steps - listen_.list.progress().last_change_step());
  } else {
    r.kind = ReportKind::Hang;
    r.title = "hang: every running thread spins on memory that nothing can change any more";
  }
  if (!details.empty() && details.back() == '\n') details.pop_back();
  r.details = details;
  result_.reports.push_back(r);
  result_.status = simt_deadlock ? LaunchStatus::Deadlock : LaunchStatus::Hang;
  result_.message = r.title;
  stop_ = true;
}

// One line per warp and group of its live lanes that `describe(warp, lane, "file:line")` puts in
// the same words: "block B warp W: lanes ... WORDS". The first lane with a source location becomes
// the report's place.
std::string KernelRun::describe_lanes(
    Report& r, const std::function<std::string(const Warp&, int, const std::string&)>& describe) {
  std::string details;
  for (Warp* x : warps_) {
    std::vector<std::pair<std::string, uint32_t>> groups;  // words -> lanes
    for (uint32_t m = x->live_mask(); m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      const Lane& L = x->lanes[lane];
      const ptx::Function& fn = M_.functions[L.func];
      std::string at = "?";
      if (L.pc < fn.code.size()) {
        SourceLoc loc = where(fn.code[L.pc]);
        at = fmt::format("{}:{}", loc.file.empty() ? "?" : loc.file, loc.line);
        if (r.where.ptx_line == 0) {
          r.where = loc;
          r.block = static_cast<int64_t>(x->cta->linear);
          r.thread = L.tid_linear;
        }
      }
      const std::string words = describe(*x, lane, at);
      bool found = false;
      for (auto& gr : groups)
        if (gr.first == words) {
          gr.second |= 1u << lane;
          found = true;
        }
      if (!found) groups.push_back({words, 1u << lane});
    }
    for (auto& gr : groups)
      details += fmt::format("block {} warp {}: {} {}\n", x->cta->linear, x->index, lanes_phrase(gr.second), gr.first);
  }
  if (!details.empty()) details.pop_back();
  return details;
}

void KernelRun::report_interrupted() {
  materialize_all();
  Report r;
  r.kind = ReportKind::Hang;
  r.kernel = entry_.name;
  r.seed = cfg_.seed;
  r.replay = replay_line();
  r.title = "interrupted: the time limit ran out while this kernel was still running";
  r.details = "where the threads were when it was stopped (a loop that never ends shows up here):\n" +
              describe_lanes(r, [](const Warp&, int, const std::string& at) { return "at " + at; });
  result_.reports.push_back(r);
  result_.status = LaunchStatus::Hang;
  result_.message = r.title;
  stop_ = true;
}

void KernelRun::report_deadlock() {
  materialize_all();
  Report r;
  r.kind = ReportKind::Deadlock;
  r.kernel = entry_.name;
  r.seed = cfg_.seed;
  r.replay = replay_line();
  r.title = "deadlock: every remaining thread is blocked and none can wake";
  r.details = describe_lanes(r, [this](const Warp& x, int lane, const std::string& at) {
    const Lane& L = x.lanes[lane];
    switch (L.state) {
      case LaneState::AtBarrier: {
        const BarrierState& b = x.cta->barriers[L.barrier];
        return fmt::format("waiting at barrier {} ({} of {} threads arrived) at {}", L.barrier, b.arrived,
                           b.expected ? b.expected : x.cta->live_threads, at);
      }
      case LaneState::AtWarpSync: {
        uint32_t at_sync = 0;  // lanes of the warp waiting at a warp-synchronous instruction
        for (uint32_t m = x.live_mask(); m; m &= m - 1)
          if (x.lanes[__builtin_ctz(m)].state == LaneState::AtWarpSync) at_sync |= 1u << __builtin_ctz(m);
        return fmt::format("waiting at a warp-synchronous instruction at {} for lanes {} (member mask 0x{:08x})", at,
                           lane_list(L.sync_mask & x.live_mask() & ~at_sync), L.sync_mask);
      }
      default: return fmt::format("waiting at the reconvergence point {} behind blocked lanes of the warp", at);
    }
  });
  result_.reports.push_back(r);
  result_.status = LaunchStatus::Deadlock;
  result_.message = r.title;
  stop_ = true;
}

}  // namespace synclab::sim
