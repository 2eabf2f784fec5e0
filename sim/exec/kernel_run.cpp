// One kernel launch: CTA dispatch, the step loop, the two warp models, barriers, warp
// synchronization and progress reports.
//
// Sections:
//   1. Set-up and CTA dispatch
//   2. The step loop and group selection (its / lockstep)
//   3. Control flow: advance, branch, call, ret, exit
//   4. Barriers and warp synchronization
//   5. Progress: deadlock and hang reports
#include "sim/exec/kernel_run.h"
#include "sim/exec/launch_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <functional>
#include <mutex>

namespace synclab::sim {

using ptx::Op;
using ptx::Operand;

namespace {
constexpr uint32_t kExitPc = ptx::Function::kExitPc;

uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

// The verb that agrees with lanes_phrase(mask).
const char* verb(uint32_t mask, const char* one, const char* many) {
  return __builtin_popcount(mask) == 1 ? one : many;
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. Set-up and CTA dispatch
// ---------------------------------------------------------------------------------------------

namespace {
// SIGUSR1 asks a running kernel to stop and say where its threads are: the grader sends it when a
// test case runs past its time limit, so that the report names the lines that kept it busy.
volatile std::sig_atomic_t g_interrupt = 0;
extern "C" void synclab_on_interrupt(int) { g_interrupt = 1; }
void install_interrupt_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction old {};
    if (sigaction(SIGUSR1, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
      struct sigaction sa {};
      sa.sa_handler = synclab_on_interrupt;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESTART;
      sigaction(SIGUSR1, &sa, nullptr);
    }
  });
}
}  // namespace

KernelRun::KernelRun(Simulator& sim, const LoadedModuleView& mod, const LaunchParams& p, const Config& cfg,
                     const DeviceProfile& prof, uint64_t pct_step_estimate, uint64_t time_base_ns)
    : sim_(sim),
      mod_(mod),
      M_(*mod.module),
      p_(p),
      cfg_(cfg),
      prof_(prof),
      entry_(mod.module->functions[p.function]),
      sched_(Scheduler::create(cfg, pct_step_estimate)) {
  rr_ = dynamic_cast<RoundRobinScheduler*>(sched_.get());
  for (const ptx::Function& f : M_.functions) code_.push_back({f.code.data(), static_cast<uint32_t>(f.code.size())});
  sched_on_step_ = sched_->observes_steps();
  sm_load_.assign(prof.sm_count, 0);
  sm_steps_.assign(prof.sm_count, 0);
  if (cfg.sched != SchedPolicy::RoundRobin) hang_.set_quiet_steps(2048);
  time_base_ns_ = time_base_ns;
  clock_base_ = static_cast<uint64_t>(double(time_base_ns) * prof.clock_khz / 1e6);
}

void KernelRun::start_cta(uint64_t linear) {
  // Blocks of one launch all have the same shape: reuse a retired block's storage.
  std::unique_ptr<Cta> cta;
  if (!cta_pool_.empty()) {
    cta = std::move(cta_pool_.back());
    cta_pool_.pop_back();
  } else {
    cta = std::make_unique<Cta>();
  }
  Cta& c = *cta;
  c.done = false;
  for (auto& b : c.barriers) b = BarrierState{};
  c.linear = linear;
  c.ctaid[0] = static_cast<uint32_t>(linear % p_.grid.x);
  c.ctaid[1] = static_cast<uint32_t>((linear / p_.grid.x) % p_.grid.y);
  c.ctaid[2] = static_cast<uint32_t>(linear / (uint64_t(p_.grid.x) * p_.grid.y));
  // The least loaded SM takes the block (lowest index on ties), as a hardware dispatcher would.
  uint32_t sm = 0;
  for (uint32_t i = 1; i < prof_.sm_count; ++i)
    if (sm_load_[i] < sm_load_[sm]) sm = i;
  c.sm = sm;
  ++sm_load_[sm];
  c.threads = threads_per_cta_;
  c.live_threads = threads_per_cta_;
  c.shared.assign(dyn_shared_base_ + p_.dynamic_shared, 0);
  if (race_) race_->start_cta(c);
  c.warps.resize(warps_per_cta_);
  for (uint32_t wi = 0; wi < warps_per_cta_; ++wi) {
    Warp& w = c.warps[wi];
    w.cta = &c;
    w.index = wi;
    w.global_index = next_warp_serial_++;
    w.present_mask = w.exited_mask = w.yielded_mask = 0;
    w.bar_mask = 0;
    w.converged = true;
    w.cfunc = static_cast<uint32_t>(p_.function);
    w.cpc = 0;
    w.cache_base = w.cache_size = 0;
    w.regs.assign((entry_.regs.size() + 1) * 32, 0);
    w.uniform_base = 0;
    for (int lane = 0; lane < 32; ++lane) {
      uint32_t t = wi * 32 + lane;
      if (t >= threads_per_cta_) break;
      Lane& L = w.lanes[lane];
      L.frames.clear();
      L.reg_base = L.local_base = L.param_base = 0;
      L.carry = false;
      L.spinning = false;
      L.spin_epoch = ~0ull;
      w.last_load[lane] = 0;
      L.state = LaneState::Ready;
      L.func = static_cast<uint32_t>(p_.function);
      L.pc = 0;
      L.tid_linear = t;
      L.tid[0] = t % p_.block.x;
      L.tid[1] = (t / p_.block.x) % p_.block.y;
      L.tid[2] = t / (p_.block.x * p_.block.y);

      L.local.assign(align_up(entry_.local_bytes, 16), 0);
      L.params.assign(align_up(entry_.param_bytes, 16), 0);
      w.present_mask |= 1u << lane;
      w.sync_regp(lane);
      sched_->on_lane_start(w, lane);
    }
    w.ready_mask = w.present_mask;
    w.runnable = w.present_mask;
    w.stack.reset(static_cast<uint32_t>(p_.function), 0, w.present_mask);
  }
  for (Warp& w : c.warps) warps_.push_back(&w);
  resident_.push_back(std::move(cta));
  hang_.visible_change(steps_);
}

void KernelRun::dispatch_ctas() {
  while (next_cta_ < total_ctas_) {
    bool free_slot = false;
    for (uint32_t i = 0; i < prof_.sm_count; ++i)
      if (sm_load_[i] < ctas_per_sm_) free_slot = true;
    if (!free_slot) return;
    const uint64_t i = next_cta_++;
    start_cta(dispatch_perm_.empty() ? (dispatch_reverse_ ? total_ctas_ - 1 - i : i) : dispatch_perm_[i]);
  }
}

void KernelRun::retire_cta(Cta& cta) {
  cta.done = true;
  --sm_load_[cta.sm];
  ++retired_ctas_;
  warps_.erase(std::remove_if(warps_.begin(), warps_.end(), [&](Warp* w) { return w->cta == &cta; }), warps_.end());
  for (auto& c : resident_)
    if (c.get() == &cta) {
      cta_pool_.push_back(std::move(c));
      break;
    }
  resident_.erase(std::remove(resident_.begin(), resident_.end(), nullptr), resident_.end());
  dispatch_ctas();
}

// ---------------------------------------------------------------------------------------------
// 2. The step loop
// ---------------------------------------------------------------------------------------------

LaunchResult KernelRun::run() {
  wall_start_ = std::chrono::steady_clock::now();
  const uint64_t threads = p_.block.count();
  auto invalid = [&](const std::string& msg) {
    result_.status = LaunchStatus::InvalidConfiguration;
    result_.message = msg;
    return result_;
  };
  static_shared_ = p_.function < int(mod_.static_shared.size()) ? mod_.static_shared[p_.function] : 0;
  dyn_shared_base_ = align_up(static_shared_, 16);
  if (LaunchShapeCheck bad = check_launch_shape(prof_, p_.grid, p_.block, static_shared_, p_.dynamic_shared))
    return invalid(bad.message);
  threads_per_cta_ = static_cast<uint32_t>(threads);
  warps_per_cta_ = (threads_per_cta_ + 31) / 32;
  ctas_per_sm_ = sim_.max_active_blocks_per_sm(p_.module, p_.function, threads_per_cta_, p_.dynamic_shared);
  if (ctas_per_sm_ == 0) return invalid("the block does not fit on one SM of the device profile");
  total_ctas_ = p_.grid.count();
  if (p_.cooperative) {
    if (total_ctas_ > uint64_t(ctas_per_sm_) * prof_.sm_count) {
      result_.status = LaunchStatus::CooperativeTooLarge;
      result_.message = fmt::format(
          "cooperative launch of {} blocks, but only {} can be resident at once "
          "({} SMs x {} blocks per SM)",
          total_ctas_, uint64_t(ctas_per_sm_) * prof_.sm_count, prof_.sm_count, ctas_per_sm_);
      return result_;
    }
    grid_workspace_ =
        reinterpret_cast<uint64_t>(sim_.memory().allocate(64, AllocKind::Device, "cooperative grid barrier workspace"));
    sim_.memory().mark_initialized(grid_workspace_, 64);  // zeroed, as the driver does
  }

  check_race_ = cfg_.check_enabled("race");
  check_sync_ = cfg_.check_enabled("sync");
  check_init_ = cfg_.check_enabled("init");
  trace_begin();
  checking_ = check_race_ || check_init_ || tw_ != nullptr;
  if (checking_ || check_sync_)
    race_ = std::make_unique<RaceDetector>(cfg_.model, threads_per_cta_, dyn_shared_base_ + p_.dynamic_shared);
  if (race_) race_->set_report_all(cfg_.reports_all);

  DispatchOrder order = cfg_.dispatch;
  if (order == DispatchOrder::Default)
    order = cfg_.sched == SchedPolicy::RoundRobin ? DispatchOrder::InOrder : DispatchOrder::Random;
  dispatch_reverse_ = order == DispatchOrder::Reverse;
  if (order == DispatchOrder::Random && total_ctas_ > 1 && total_ctas_ <= (1u << 24)) {
    dispatch_perm_.resize(total_ctas_);
    for (uint64_t i = 0; i < total_ctas_; ++i) dispatch_perm_[i] = static_cast<uint32_t>(i);
    uint64_t x = cfg_.seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    for (uint64_t i = total_ctas_ - 1; i > 0; --i) {  // Fisher-Yates with a splitmix64 stream
      x += 0x9E3779B97F4A7C15ull;
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      std::swap(dispatch_perm_[i], dispatch_perm_[z % (i + 1)]);
    }
  }
  dispatch_ctas();
  install_interrupt_handler();
  while (!stop_) {
    if (warps_.empty()) break;  // every block has finished
    if (g_interrupt) {
      report_interrupted();
      break;
    }
    size_t wi = rr_ ? rr_->pick_warp(warps_) : sched_->pick_warp(warps_);
    if (wi >= warps_.size()) {
      report_deadlock();
      break;
    }
    Warp& w = *warps_[wi];
    Group g;
    if (!pick_group(w, &g)) {  // nothing to run after all (lockstep stack popped)
      continue;
    }
    Cta* cta = w.cta;
    executing_ = &w;
    uint8_t xf = execute(w, g);
    if (tw_) {
      trace_step(w, g);
      if (reports_traced_ < result_.reports.size()) trace_reports();
    }
    ++steps_;
    uint64_t& sm_steps = sm_steps_[cta->sm];
    ++sm_steps;
    if (sched_on_step_) sched_->on_step(w, g.mask, steps_);
    // Instructions that touch only the group's own registers, parameters or local memory cannot
    // be observed by any other thread, so running the next ones right away gives the same set of
    // possible outcomes as interleaving them: a partial-order reduction that spares the scheduler.
    for (int burst = 0; burst < 64 && (xf & ptx::Instr::kExecPrivate) && !stop_ && steps_ < cfg_.budget; ++burst) {
      if (!continue_group(w, &g)) break;
      xf = execute(w, g);
      if (tw_) trace_step(w, g);
      ++steps_;
      ++sm_steps;
      if (sched_on_step_) sched_->on_step(w, g.mask, steps_);
    }
    if (cta->live_threads == 0 && !cta->done) retire_cta(*cta);
    if (steps_ >= cfg_.budget && !stop_) {
      Report r;
      r.kind = ReportKind::Budget;
      r.kernel = entry_.name;
      r.title = fmt::format("the step budget of {} warp-steps ran out", cfg_.budget);
      r.details =
          "no deadlock or spin was proven; the kernel may just be long. Raise the budget with "
          "--budget / SYNCLAB_BUDGET if it is meant to run longer.";
      r.seed = cfg_.seed;
      r.replay = replay_line();
      result_.reports.push_back(r);
      result_.status = LaunchStatus::BudgetExhausted;
      result_.message = r.title;
      stop_ = true;
    }
  }
  if (grid_workspace_) sim_.memory().release(reinterpret_cast<void*>(grid_workspace_));
  note_repeats();
  if (tw_) trace_end();
  if (race_reports_ + race_warnings_ + sync_reports_ + init_reports_) {
    // Repeats of the reported races (each report counts its own; warp-level pairs that a lost-update
    // report explains are not counted).
    uint64_t more = 0;
    for (const auto& f : race_report_findings_) more += race_->repeats(f.second);
    for (const auto& c : collisions_) more += c.second.more;
    std::string dup;
    if (more && !cfg_.reports_all)
      dup = fmt::format(" ({} more conflicting accesses at the same lines not shown)", more);
    result_.summary = fmt::format(
        "========= SyncLab SUMMARY: kernel {}: {} race error{}, {} race warning{}, {} synchronization error{}, {} "
        "uninitialized read{}{}\n",
        demangle_name(entry_.name), race_reports_, race_reports_ == 1 ? "" : "s", race_warnings_,
        race_warnings_ == 1 ? "" : "s", sync_reports_, sync_reports_ == 1 ? "" : "s", init_reports_,
        init_reports_ == 1 ? "" : "s", dup);
  }
  result_.warp_steps = steps_;
  result_.thread_instructions = instrs_;
  uint64_t max_sm = 0;
  for (uint64_t s : sm_steps_) max_sm = std::max(max_sm, s);
  result_.simulated_ms = double(max_sm) / double(prof_.clock_khz);
  return result_;
}

double KernelRun::sim_ns() const {
  uint64_t max_sm = 0;
  for (uint64_t s : sm_steps_) max_sm = std::max(max_sm, s);
  return double(max_sm) * 1e6 / double(prof_.clock_khz);
}

namespace {
// Instructions that touch only the group's own registers, parameters or local memory.
bool private_instr(const ptx::Instr& I) {
  switch (I.op) {
    case Op::Ld:
    case Op::St: return I.space == ptx::Space::Param || I.space == ptx::Space::Local;
    case Op::Bra:
    case Op::Brx:
    case Op::Call:
    case Op::Ret:
    case Op::Exit:
    case Op::Trap:
    case Op::Brkpt:
    case Op::Bar:
    case Op::BarWarpSync:
    case Op::Shfl:
    case Op::Vote:
    case Op::Match:
    case Op::Redux:
    case Op::Activemask:
    case Op::Atom:
    case Op::Red:
    case Op::Ldu:
    case Op::Membar:
    case Op::Fence:
    case Op::Nanosleep:
    case Op::Prefetch:
    case Op::Pmevent: return false;
    default: return true;
  }
}

// Instructions that only compute and move data: every lane of the group goes on to the next
// instruction, so lane PCs need not be tracked one by one.
bool is_plain(Op op) {
  switch (op) {
    case Op::Bra:
    case Op::Brx:
    case Op::Call:
    case Op::Ret:
    case Op::Exit:
    case Op::Trap:
    case Op::Bar:
    case Op::BarWarpSync:
    case Op::Shfl:
    case Op::Vote:
    case Op::Match:
    case Op::Redux: return false;
    default: return true;
  }
}

uint32_t elem_bytes(ptx::Type t) {
  uint32_t s = ptx::type_size(t);
  return s == 0 ? 4 : s;
}

// One register-sized value at [reg + imm] (or [symbol + imm]) in shared, global, const or generic
// memory: the shape the interpreter's scalar load/store paths handle (see exec_ld/exec_st).
bool scalar_access(const ptx::Instr& I) {
  const uint32_t n = I.vec ? I.vec : 1;
  if (n != 1 || elem_bytes(I.type) > 8 || I.space == ptx::Space::Param || I.space == ptx::Space::Local) return false;
  if (I.op == Op::Ld || I.op == Op::Ldu) {
    const Operand& a = I.src[0];
    return I.dst[0].kind == Operand::Kind::Reg &&
           (a.base == Operand::Base::Absolute || a.base == Operand::Base::DynamicShared);
  }
  if (I.op == Op::St) {
    const Operand& a = I.src[0];
    return I.src[1].kind != Operand::Kind::Vector && a.kind == Operand::Kind::Addr &&
           (a.base == Operand::Base::Absolute || a.base == Operand::Base::DynamicShared);
  }
  return false;
}
}  // namespace

void annotate_for_exec(ptx::Function& fn, bool fast) {
  for (ptx::Instr& I : fn.code) {
    uint8_t f = ptx::Instr::kExecAnnotated;
    if (private_instr(I)) f |= ptx::Instr::kExecPrivate;
    if (is_plain(I.op) || I.op == Op::Bra) f |= ptx::Instr::kExecPlain;  // branch() keeps lane PCs itself
    if (fast && scalar_access(I)) f |= ptx::Instr::kExecLdScalar;
    I.exec = f;
    I.fast = fast ? fast_handler_index(I) : 0;
  }
}

// After a private instruction: the same lanes' next instruction, if they are still together and
// nothing else (reconvergence, a stack pop) must happen first.
inline bool KernelRun::continue_group(Warp& w, Group* g) {
  const uint32_t pc = g->pc + 1;
  if (cfg_.model == WarpModel::Lockstep) {
    if (w.stack.empty()) return false;
    const StackEntry& t = w.stack.top();
    if (t.func != g->func || t.pc != pc || t.pc == t.rpc || (t.mask & w.ready_mask) != g->mask) return false;
  } else if (w.converged) {
    if (w.cfunc != g->func || w.cpc != pc || w.ready_mask != g->mask) return false;
  } else {
    return false;  // lanes' PCs are individual: let the scheduler regroup them
  }
  g->pc = pc;
  return true;
}

void KernelRun::its_groups(Warp& w, std::vector<Group>* out) const {
  out->clear();
  for (uint32_t m = w.ready_mask; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    const Lane& L = w.lanes[lane];
    bool placed = false;
    for (Group& g : *out)
      if (g.func == L.func && g.pc == L.pc) {
        g.mask |= 1u << lane;
        placed = true;
        break;
      }
    if (!placed) out->push_back({L.func, L.pc, 1u << lane});
  }
  std::sort(out->begin(), out->end(),
            [](const Group& a, const Group& b) { return a.func != b.func ? a.func < b.func : a.pc < b.pc; });
}

inline bool KernelRun::pick_group(Warp& w, Group* g) {
  if (cfg_.model == WarpModel::Lockstep) {
    w.stack.pop_reconverged();
    if (w.stack.empty()) {
      w.runnable = 0;
      return false;
    }
    const StackEntry& t = w.stack.top();
    g->func = t.func;
    g->pc = t.pc;
    g->mask = t.mask & w.ready_mask;
    if (!g->mask) {
      w.runnable = 0;
      return false;
    }
    return true;
  }
  if (w.converged) {
    *g = {w.cfunc, w.cpc, w.ready_mask};
    return true;
  }
  its_groups(w, &scratch_groups_);
  if (scratch_groups_.size() == 1) {
    w.converged = true;
    w.cfunc = scratch_groups_[0].func;
    w.cpc = scratch_groups_[0].pc;
    *g = scratch_groups_[0];
    return true;
  }
  scratch_masks_.clear();
  scratch_yielded_.clear();
  for (const Group& gr : scratch_groups_) {
    scratch_masks_.push_back(gr.mask);
    scratch_yielded_.push_back((gr.mask & w.yielded_mask) != 0);
  }
  size_t k = sched_->pick_group(w, scratch_masks_, scratch_yielded_);
  *g = scratch_groups_[k];
  // A group that took a backward branch (a spin) yields until every other group has had its
  // turn: its lanes stay marked while the others run, so two spinning groups cannot starve a
  // third that would release them. When every group has yielded, the round starts over.
  if (scratch_yielded_[k]) {
    bool all = true;
    for (bool y : scratch_yielded_) all = all && y;
    if (all)
      w.yielded_mask = 0;
    else
      w.yielded_mask &= ~g->mask;
  }
  return true;
}

// Lane PCs are tracked lazily: under `its` a converged warp keeps one PC (cfunc/cpc) for all its
// ready lanes, and under `lockstep` the reconvergence stack holds the PCs. They are written into
// the lanes before anything that looks at lanes one by one.
void KernelRun::materialize(Warp& w) {
  if (cfg_.model == WarpModel::Lockstep) {
    for (const StackEntry& e : w.stack.entries())
      for (uint32_t m = e.mask & w.ready_mask; m; m &= m - 1) {
        Lane& L = w.lanes[__builtin_ctz(m)];
        L.func = e.func;
        L.pc = e.pc;
      }
    return;
  }
  if (!w.converged) return;
  for (uint32_t m = w.ready_mask; m; m &= m - 1) {
    Lane& L = w.lanes[__builtin_ctz(m)];
    L.func = w.cfunc;
    L.pc = w.cpc;
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Control flow
// ---------------------------------------------------------------------------------------------

void KernelRun::advance_lanes(Warp& w, const Group& g, uint32_t mask) {
  for (uint32_t m = mask; m; m &= m - 1) ++w.lanes[__builtin_ctz(m)].pc;
  if (mask != g.mask) w.converged = false;
}

void KernelRun::branch(Warp& w, const Group& g, uint32_t taken, uint32_t target) {
  const uint32_t not_taken = g.mask & ~taken;
  const bool backward = target <= g.pc;
  if (cfg_.model == WarpModel::Lockstep) {
    // The stack holds the PCs; lanes learn theirs when someone looks (materialize).
    StackEntry& t = w.stack.top();
    if (!not_taken) {
      t.pc = target;
    } else if (!taken) {
      t.pc = g.pc + 1;
    } else if (exits_thread(g.func, target) || exits_thread(g.func, g.pc + 1)) {
      // One side jumps straight to the kernel's ret/exit (`if (t >= n) return;`): those lanes
      // exit now, as `@p EXIT` does on hardware, whichever side the order setting runs first,
      // and the others go on alone. Exited lanes no longer hold up barriers (PTX ISA, bar.sync).
      const bool taken_exit = exits_thread(g.func, target);
      t.pc = taken_exit ? g.pc + 1 : target;
      exit_lanes(w, g, taken_exit ? taken : not_taken);  // pops the stack, sets runnable
      if (backward && !taken_exit && hang_.suspicious(steps_)) check_progress(w, taken, g.func, target);
      return;
    } else {
      const ptx::Function& fn = M_.functions[g.func];
      uint32_t rpc = fn.reconverge_pc.empty() ? kExitPc : fn.reconverge_pc[g.pc];
      // Reconverging at the kernel's ret/exit would park lanes that are done at a point where
      // they only exit: they would stay live and hold up every later __syncthreads() of the
      // block. Such lanes exit when they get there instead (no reconvergence entry to wait in).
      if (rpc != kExitPc && exits_thread(g.func, rpc)) rpc = kExitPc;
      if (cfg_.lockstep_taken_first)
        w.stack.diverge(rpc, target, taken, g.pc + 1, not_taken);
      else
        w.stack.diverge(rpc, g.pc + 1, not_taken, target, taken);
    }
    w.stack.pop_reconverged();
    w.runnable = w.stack.empty() ? 0 : (w.stack.top().mask & w.ready_mask);
    if (backward && taken && hang_.suspicious(steps_)) check_progress(w, taken, g.func, target);
    return;
  }
  if (w.converged && (!taken || !not_taken)) {
    // A uniform branch keeps a converged warp converged: only its one PC moves.
    w.cpc = taken ? target : g.pc + 1;
    if (backward && taken && hang_.suspicious(steps_)) check_progress(w, taken, g.func, target);
    return;
  }
  if (w.converged) materialize(w);
  for (uint32_t m = taken; m; m &= m - 1) w.lanes[__builtin_ctz(m)].pc = target;
  for (uint32_t m = not_taken; m; m &= m - 1) ++w.lanes[__builtin_ctz(m)].pc;
  if (taken && not_taken) w.converged = false;
  if (backward && taken) {
    if (!w.converged || taken != w.ready_mask) w.yielded_mask |= taken;
    if (hang_.suspicious(steps_)) check_progress(w, taken, g.func, target);
  }
}

bool KernelRun::exits_thread(uint32_t func, uint32_t pc) const {
  const ptx::Function& fn = M_.functions[func];
  if (pc >= fn.code.size()) return false;
  const ptx::Instr& I = fn.code[pc];
  if (I.guard != Operand::kNoReg) return false;
  // `ret` ends the thread only in the kernel itself; in a device function it returns.
  return I.op == Op::Exit || (I.op == Op::Ret && func == static_cast<uint32_t>(p_.function));
}

void KernelRun::call(Warp& w, const Group& g, uint32_t act, const ptx::Function& fn, const ptx::Instr& I) {
  if (!act) {
    advance(w, g, g.mask);
    return;
  }
  const ptx::CallSite& cs = fn.calls[I.call];
  if (cs.callee != Operand::kNoReg && cs.callee < M_.functions.size()) {
    call_one(w, g, act, fn, I, cs.callee, true);
    return;
  }
  // Indirect call: lanes that hold different function pointers call different functions, one
  // group after the other (under lockstep each group gets its own stack entry).
  if (act != g.mask) advance(w, g, g.mask & ~act);
  uint32_t remaining = act;
  bool first_group = true;
  while (remaining && !stop_) {
    const int first = __builtin_ctz(remaining);
    const uint64_t target = w.regp[first][cs.target_reg];
    uint32_t same = 0;
    for (uint32_t m = remaining; m; m &= m - 1)
      if (w.regp[__builtin_ctz(m)][cs.target_reg] == target) same |= 1u << __builtin_ctz(m);
    const uint64_t index = target - kFunctionWindow;
    if (target < kFunctionWindow || index >= M_.functions.size()) {
      fault(w, first, I, LaunchStatus::Fault, "indirect call through an invalid function pointer",
            fmt::format("target value 0x{:x} is not the address of a device function{}", target,
                        target == 0 ? " (a null function pointer)" : ""));
      return;
    }
    Group sub = g;
    sub.mask = first_group && same == act ? g.mask : same;
    call_one(w, sub, same, fn, I, static_cast<uint32_t>(index), first_group);
    first_group = false;
    remaining &= ~same;
  }
}

void KernelRun::call_one(Warp& w, const Group& g, uint32_t act, const ptx::Function& fn, const ptx::Instr& I,
                         uint32_t callee_index, bool set_return_pc) {
  const ptx::CallSite& cs = fn.calls[I.call];
  const ptx::Function& callee = M_.functions[callee_index];
  if (callee.is_extern || callee.code.empty()) {
    exec_builtin_call(w, act, fn, callee, cs, I);
    if (!stop_) advance(w, g, g.mask);
    return;
  }
  if (act != g.mask) advance(w, g, g.mask & ~act);
  for (uint32_t m = act; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    if (L.frames.size() >= 1024) {
      fault(w, lane, I, LaunchStatus::Fault, "call stack overflow",
            fmt::format("more than 1024 nested calls of {} (unbounded recursion?)", callee.name));
      return;
    }
    CallFrame f{g.func, g.pc + 1, I.call, L.reg_base, L.local_base, L.param_base};
    const uint32_t new_reg = L.reg_base + static_cast<uint32_t>(fn.regs.size()) + 1;
    const uint32_t new_local = static_cast<uint32_t>(align_up(L.local_base + fn.local_bytes, 16));
    const uint32_t new_param = static_cast<uint32_t>(align_up(L.param_base + fn.param_bytes, 16));
    if (w.regs.size() < (new_reg + callee.regs.size() + 1) * 32) {
      w.regs.resize((new_reg + callee.regs.size() + 1) * 32, 0);
      for (uint32_t k = w.present_mask; k; k &= k - 1) w.sync_regp(__builtin_ctz(k));  // storage moved
    }
    if (L.local.size() < new_local + callee.local_bytes)
      L.local.resize(align_up(new_local + callee.local_bytes, 16), 0);
    if (L.params.size() < new_param + callee.param_bytes)
      L.params.resize(align_up(new_param + callee.param_bytes, 16), 0);
    // Copy the arguments from the caller's call-sequence params into the callee's params.
    for (size_t i = 0; i < callee.params.size() && i < cs.arg_ops.size(); ++i) {
      const ptx::Symbol& dst = M_.symbols[callee.params[i]];
      const Operand& a = cs.arg_ops[i];
      uint8_t* out = L.params.data() + new_param + dst.offset;
      if (a.kind == Operand::Kind::Symbol || a.kind == Operand::Kind::Addr) {
        const ptx::Symbol& src = M_.symbols[a.symbol];
        uint64_t n = std::min(src.size, dst.size);
        std::memcpy(out, L.params.data() + L.param_base + src.offset, n);
      } else {
        uint64_t v = operand(w, lane, a);
        std::memcpy(out, &v, std::min<uint64_t>(dst.size, 8));
      }
    }
    L.frames.push_back(f);
    L.reg_base = new_reg;
    L.local_base = new_local;
    L.param_base = new_param;
    L.func = callee_index;
    L.pc = 0;
    w.sync_regp(lane);
  }
  w.update_uniform_base();
  if (cfg_.model == WarpModel::Lockstep) {
    if (set_return_pc) w.stack.top().pc = g.pc + 1;  // the caller's entry resumes there
    uint32_t depth = static_cast<uint32_t>(w.lanes[__builtin_ctz(act)].frames.size());
    w.stack.push({callee_index, 0, ReconvergenceStack::kExitPc, act, depth});
  } else {
    w.converged = false;
  }
}

void KernelRun::ret(Warp& w, const Group& g, uint32_t act) {
  uint32_t exiting = 0;
  for (uint32_t m = act; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    if (L.frames.empty()) {
      exiting |= 1u << lane;
      continue;
    }
    CallFrame f = L.frames.back();
    L.frames.pop_back();
    const ptx::Function& callee = M_.functions[L.func];
    const ptx::Function& caller = M_.functions[f.func];
    const ptx::CallSite& cs = caller.calls[f.call_site];
    // Return values: callee's return params -> caller's call-sequence params.
    for (size_t i = 0; i < callee.rets.size() && i < cs.rets.size(); ++i) {
      const ptx::Symbol& src = M_.symbols[callee.rets[i]];
      const ptx::Symbol& dst = M_.symbols[cs.rets[i]];
      std::memcpy(L.params.data() + f.param_base + dst.offset, L.params.data() + L.param_base + src.offset,
                  std::min(src.size, dst.size));
    }
    L.reg_base = f.reg_base;
    L.local_base = f.local_base;
    L.param_base = f.param_base;
    L.func = f.func;
    L.pc = f.return_pc;
    w.sync_regp(lane);
  }
  w.update_uniform_base();
  if (exiting) {
    exit_lanes(w, g, exiting);
    act &= ~exiting;
  }
  if (!act) return;
  if (cfg_.model == WarpModel::Lockstep) {
    // The returning lanes leave the callee's entries; the caller's entry (already at the return
    // PC) resumes when every lane that entered the call has returned.
    StackEntry& t = w.stack.top();
    t.mask &= ~act;
    if (!t.mask) w.stack.pop();
    w.stack.pop_reconverged();
    w.runnable = w.stack.empty() ? 0 : (w.stack.top().mask & w.ready_mask);
  } else {
    w.converged = false;
  }
}

void KernelRun::exit_lanes(Warp& w, const Group& g, uint32_t mask) {
  Cta& c = *w.cta;
  for (uint32_t m = mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    L.state = LaneState::Exited;
    L.pc = kExitPc;
    --c.live_threads;
  }
  w.exited_mask |= mask;
  w.ready_mask &= ~mask;
  if (tw_) trace_simple(w, trace::EventKind::LaneExit, trace::kAllLanes, 0, mask, 0);
  w.update_uniform_base();
  w.yielded_mask &= ~mask;
  if (cfg_.model == WarpModel::Lockstep) {
    w.stack.remove_lanes(mask);
    w.stack.pop_reconverged();
    w.runnable = w.stack.empty() ? 0 : (w.stack.top().mask & w.ready_mask);
  } else {
    w.runnable = w.ready_mask;
  }
  hang_.visible_change(steps_);
  // Barriers expecting every thread of the block now expect fewer.
  for (uint32_t id = 0; id < 16; ++id)
    if (c.barriers[id].arrived) try_release_barrier(c, id);
  release_warp_sync_waiters(w);
}

// ---------------------------------------------------------------------------------------------
// 4. Barriers and warp synchronization
// ---------------------------------------------------------------------------------------------

void KernelRun::block_at_barrier(Warp& w, const Group& g, uint32_t act, const ptx::Instr& I) {
  Cta& c = *w.cta;
  const int first = __builtin_ctz(act);
  uint64_t id64 = operand(w, first, I.src[0]);
  if (id64 > 15) {
    fault(w, first, I, LaunchStatus::Fault, "invalid barrier number", fmt::format("barrier {} (valid: 0-15)", id64));
    return;
  }
  const uint32_t id = static_cast<uint32_t>(id64);
  uint32_t count = 0;
  // bar.sync a{, b}; bar.red.op.pred p, a{, b}, {!}c: the optional thread count b is src[1]
  // (Kind::None when absent); bar.red's predicate is the last source.
  if (I.src[1].kind != Operand::Kind::None) {
    count = static_cast<uint32_t>(operand(w, first, I.src[1]));
    if (count == 0 || count % 32 != 0 || count > c.threads + 31) {
      fault(w, first, I, LaunchStatus::Fault, "invalid barrier thread count",
            fmt::format("bar {} with {} threads: the count must be a non-zero multiple of 32 not above the "
                        "block size ({})",
                        id, count, c.threads));
      return;
    }
  }
  BarrierState& b = c.barriers[id];
  if (b.arrived == 0) b.expected = count;
  b.arrived += __builtin_popcount(act);
  if (check_sync_ && I.bar != ptx::BarKind::Arrive && count == 0) {
    // __syncthreads() must be reached by every thread of the block, at the same barrier.
    const uint32_t pc = w.lanes[first].pc;
    const uint32_t func = w.lanes[first].func;
    if (cfg_.model == WarpModel::Lockstep && act != w.live_mask()) {
      sync_report(w, first, I, Severity::Error, "barrier divergence: __syncthreads() in divergent code",
                  fmt::format("only lanes {:#010x} of warp {} (block {}) reached this barrier; lanes {:#010x} are on "
                              "another path. Pre-Volta GPUs count the warp as arrived and the barrier no longer "
                              "separates what the block does before and after it.",
                              act, w.index, c.linear, w.live_mask() & ~act));
    } else if (b.func == ~0u) {
      b.func = func;
      b.pc = pc;
    } else if (b.func != func || b.pc != pc) {
      const ptx::Instr& other = M_.functions[b.func].code[b.pc];
      SourceLoc o = where(other);
      sync_report(w, first, I, Severity::Error, "barrier divergence: threads wait at different __syncthreads()",
                  fmt::format("{} waits here while other threads of block {} wait at {}:{} (PTX line {}); a "
                              "__syncthreads() in code that not every thread reaches (a branch, a loop with a "
                              "thread-dependent bound, an early return) does not synchronize the block",
                              lane_name(w, first), c.linear, o.file.empty() ? "?" : o.file, o.line, o.ptx_line));
    }
  }
  if (tw_) trace_simple(w, trace::EventKind::BarrierArrive, trace::kAllLanes, static_cast<uint16_t>(id), act, c.linear);
  if (race_ && check_race_) {
    const bool partial = I.bar == ptx::BarKind::Arrive || (count != 0 && count < c.threads);
    for (uint32_t m = act; m; m &= m - 1) race_->barrier_arrive(c, w.lanes[__builtin_ctz(m)].tid_linear, id, partial);
  }
  if (I.bar == ptx::BarKind::Red) {
    for (uint32_t m = act; m; m &= m - 1) {
      bool p = operand(w, __builtin_ctz(m), I.src[I.nsrc - 1]) & 1;
      b.red_popc += p;
      b.red_and = b.red_and && p;
      b.red_or = b.red_or || p;
    }
  }
  if (I.bar == ptx::BarKind::Arrive) {
    advance(w, g, g.mask);
    try_release_barrier(c, id);
    return;
  }
  if (act != g.mask) advance(w, g, g.mask & ~act);
  for (uint32_t m = act; m; m &= m - 1) {
    Lane& L = w.lanes[__builtin_ctz(m)];
    L.state = LaneState::AtBarrier;
    L.barrier = static_cast<uint8_t>(id);
  }
  if (!w.bar_mask) {
    w.bar_id = id;
    w.bar_func = g.func;
    w.bar_pc = g.pc;
  } else if (w.bar_id != id || w.bar_func != g.func || w.bar_pc != g.pc) {
    w.bar_id = Warp::kMixedBarrier;
  }
  w.bar_mask |= act;
  w.ready_mask &= ~act;
  w.runnable = cfg_.model == WarpModel::Lockstep ? (w.stack.top().mask & w.ready_mask) : w.ready_mask;
  try_release_barrier(c, id);
}

void KernelRun::try_release_barrier(Cta& c, uint32_t id) {
  BarrierState& b = c.barriers[id];
  const uint32_t needed = b.expected ? b.expected : c.live_threads;
  if (b.arrived < needed || b.arrived == 0) return;
  const BarrierState done = b;
  b = BarrierState{};
  hang_.visible_change(steps_);
  std::vector<uint32_t>* waiters = nullptr;
  if (race_ && check_race_) {
    waiters = &scratch_tids_;
    waiters->clear();
  }
  auto red_value = [&](const ptx::Instr& I) -> uint64_t {
    switch (I.barred) {
      case ptx::BarRedOp::Popc: return done.red_popc;
      case ptx::BarRedOp::And: return done.red_and;
      case ptx::BarRedOp::Or: return done.red_or;
      default: return 0;
    }
  };
  for (Warp& w : c.warps) {
    uint32_t released = 0;
    if (&w != executing_) materialize(w);
    // Where the released lanes go on (all at one PC, the usual case, or not).
    uint32_t rfunc = ~0u, rpc = ~0u;
    bool one_pc = true;
    if (w.bar_mask && w.bar_id == id) {
      // Every lane of the warp that waits at a barrier waits at this one, at one instruction.
      const ptx::Instr& I = M_.functions[w.bar_func].code[w.bar_pc];
      const bool red = I.bar == ptx::BarKind::Red && I.ndst > 0;
      for (uint32_t m = w.bar_mask; m; m &= m - 1) {
        Lane& L = w.lanes[__builtin_ctz(m)];
        if (red) L.R()[I.dst[0].reg] = red_value(I);
        L.state = LaneState::Ready;
        ++L.pc;
        if (waiters) waiters->push_back(L.tid_linear);
      }
      released = w.bar_mask;
      rfunc = w.bar_func;
      rpc = w.bar_pc + 1;
      w.bar_mask = 0;
    }
    const ptx::Instr* I_prev = nullptr;
    uint32_t prev_func = ~0u, prev_pc = ~0u;
    for (uint32_t m = released ? 0 : w.present_mask & ~w.exited_mask & ~w.ready_mask; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      Lane& L = w.lanes[lane];
      if (L.state != LaneState::AtBarrier || L.barrier != id) continue;
      if (L.func != prev_func || L.pc != prev_pc) {
        prev_func = L.func;
        prev_pc = L.pc;
        I_prev = &M_.functions[L.func].code[L.pc];
      }
      const ptx::Instr& I = *I_prev;
      if (I.bar == ptx::BarKind::Red && I.ndst > 0) L.R()[I.dst[0].reg] = red_value(I);
      L.state = LaneState::Ready;
      ++L.pc;
      if (!released) {
        rfunc = L.func;
        rpc = L.pc;
      } else if (L.func != rfunc || L.pc != rpc) {
        one_pc = false;
      }
      released |= 1u << lane;
      if (waiters) waiters->push_back(L.tid_linear);
    }
    if (!released) continue;
    if (w.bar_mask & released) {
      // Some lanes were released and others still wait (at another barrier): the summary of
      // where they wait is no longer known.
      w.bar_mask &= ~released;
      w.bar_id = Warp::kMixedBarrier;
    }
    const uint32_t ready_before = w.ready_mask;
    w.ready_mask |= released;
    if (cfg_.model == WarpModel::Lockstep) {
      StackEntry& t = w.stack.top();
      if ((t.mask & released) && t.pc == w.lanes[__builtin_ctz(released)].pc - 1) t.pc += 1;
      w.runnable = t.mask & w.ready_mask;
    } else {
      // When the released lanes are all the warp's ready lanes and stand at one PC, the warp is
      // converged there: what its_groups would find at the warp's next step.
      w.converged = !ready_before && one_pc;
      if (w.converged) {
        w.cfunc = rfunc;
        w.cpc = rpc;
      }
      w.runnable = w.ready_mask;
    }
  }
  if (waiters) race_->barrier_release(c, id, *waiters, c.live_threads);
  if (tw_ && !c.warps.empty())
    trace_simple(c.warps.front(), trace::EventKind::BarrierRelease, trace::kAllLanes, static_cast<uint16_t>(id),
                 done.arrived, c.linear);
}

void KernelRun::check_member_mask(Warp& w, int lane, uint32_t member, uint32_t here, const ptx::Instr& I) {
  if (!check_sync_) return;
  const char* what = I.op == Op::BarWarpSync ? "__syncwarp" : ptx::op_name(I.op);
  if (!(member >> lane & 1)) {
    sync_report(w, lane, I, Severity::Error, fmt::format("{} with a mask that excludes the calling lane", what),
                fmt::format("{} passes member mask {:#010x}, which does not contain its own lane {}; every lane "
                            "that executes a .sync warp instruction must be named in its mask",
                            lane_name(w, lane), member, lane));
    return;
  }
  // Lanes that have exited (or never existed) are not reported: CUDA requires only the
  // non-exited lanes of the mask to execute the instruction (e.g. a full mask after an early
  // return is legal), and the PTX ISA lets it complete without them.
  // Under lockstep, lanes still running on another path of a branch cannot arrive at all.
  if (cfg_.model == WarpModel::Lockstep && (member & ~here & w.live_mask())) {
    sync_report(w, lane, I, Severity::Error, fmt::format("{} names lanes that are not active here", what),
                fmt::format("{} passes member mask {:#010x}, but lanes {:#010x} of warp {} are on another path of a "
                            "divergent branch; pre-Volta GPUs cannot wait for them",
                            lane_name(w, lane), member, member & ~here & w.live_mask(), w.index));
  }
}

void KernelRun::warp_sync(Warp& w, const Group& g, uint32_t act, const ptx::Function& fn, const ptx::Instr& I) {
  if (cfg_.model == WarpModel::Lockstep) {
    // The active lanes are the warp: pre-Volta hardware had no finer synchronization.
    if (check_sync_)
      for (uint32_t m = act; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        check_member_mask(w, lane, static_cast<uint32_t>(operand(w, lane, I.src[I.nsrc - 1])), act, I);
      }
    if (I.op != Op::BarWarpSync) exec_warp_op(w, act, I);
    advance(w, g, g.mask);
    return;
  }
  // Independent thread scheduling: a lane executes the instruction once every live lane named in
  // its member mask has arrived (bar.warp.sync: at any __syncwarp, the lanes of a mask may meet
  // at different calls; the other .sync instructions: at this one).
  for (uint32_t m = act; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    const uint32_t member = static_cast<uint32_t>(operand(w, lane, I.src[I.nsrc - 1]));
    w.lanes[lane].sync_mask = member;
  }
  const uint32_t arrived = act | warp_sync_waiters(w, g.func, g.pc);
  if (check_sync_)
    for (uint32_t m = act; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      check_member_mask(w, lane, w.lanes[lane].sync_mask, arrived, I);
    }
  if (act != g.mask) advance(w, g, g.mask & ~act);
  for (uint32_t m = act; m; m &= m - 1) w.lanes[__builtin_ctz(m)].state = LaneState::AtWarpSync;
  w.ready_mask &= ~act;
  w.converged = false;
  complete_warp_syncs(w, arrived, act, I);
  w.runnable = w.ready_mask;
}

uint32_t KernelRun::warp_sync_waiters(const Warp& w, uint32_t func, uint32_t pc) const {
  const bool barwarp = M_.functions[func].code[pc].op == Op::BarWarpSync;
  uint32_t waiting = 0;
  for (uint32_t m = w.live_mask() & ~w.ready_mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    const Lane& L = w.lanes[lane];
    if (L.state != LaneState::AtWarpSync) continue;
    if (barwarp ? M_.functions[L.func].code[L.pc].op == Op::BarWarpSync : (L.func == func && L.pc == pc))
      waiting |= 1u << lane;
  }
  return waiting;
}

bool KernelRun::complete_warp_syncs(Warp& w, uint32_t arrived, uint32_t fresh, const ptx::Instr& I) {
  // Lanes whose mask names a live lane that has not arrived keep waiting, and so do the lanes
  // whose masks name those: what remains is every group whose own mask is complete. Groups with
  // disjoint masks complete independently of each other.
  const uint32_t live = w.live_mask();
  uint32_t done = arrived;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t m = done; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      if (w.lanes[lane].sync_mask & live & ~done) {
        done &= ~(1u << lane);
        changed = true;
      }
    }
  }
  if (!done) return false;
  // Each group (lanes connected through their masks) synchronizes on its own: a warp_sync edge
  // or a shuffle joins only the lanes of one mask.
  for (uint32_t rest = done; rest;) {
    uint32_t group = 1u << __builtin_ctz(rest), grown;
    do {
      grown = group;
      for (uint32_t m = rest; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        if ((group >> lane & 1) || (w.lanes[lane].sync_mask & group))
          group |= (w.lanes[lane].sync_mask & rest) | 1u << lane;
      }
    } while (group != grown);
    rest &= ~group;
    if (race_ && check_race_) race_->warp_sync(*w.cta, w.index, group);
    if (I.op != Op::BarWarpSync) exec_warp_op(w, group, I);
  }
  for (uint32_t m = done; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    L.state = LaneState::Ready;
    ++L.pc;
  }
  w.ready_mask |= done;
  w.converged = false;
  w.runnable = w.ready_mask;
  // Lanes that waited go on: a change a spin check must see (a group that arrives and goes on
  // together, as in a loop around __syncwarp(), changes nothing others can see).
  if (done & ~fresh) hang_.visible_change(steps_);
  return true;
}

void KernelRun::release_warp_sync_waiters(Warp& w) {
  // A lane that exited no longer holds back the warp-synchronous instructions that named it.
  if (cfg_.model == WarpModel::Lockstep) return;
  for (uint32_t m = w.live_mask() & ~w.ready_mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    const Lane& L = w.lanes[lane];
    if (L.state != LaneState::AtWarpSync) continue;
    const ptx::Instr& I = M_.functions[L.func].code[L.pc];
    complete_warp_syncs(w, warp_sync_waiters(w, L.func, L.pc), 0, I);
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Progress
// ---------------------------------------------------------------------------------------------

SourceLoc KernelRun::where(const ptx::Instr& I) const {
  SourceLoc s;
  s.ptx_line = I.ptx_line;
  s.line = I.user_line;
  if (I.user_file < M_.files.size()) s.file = M_.files[I.user_file].path;
  // The call sites in the user's files, a few at most (a chain of inlined helpers).
  for (uint32_t f = I.inlined_at; f && f < M_.inline_frames.size() && s.inlined_into.size() < 4;
       f = M_.inline_frames[f].parent) {
    const ptx::InlineFrame& F = M_.inline_frames[f];
    if (F.file && F.line && F.file < M_.files.size())
      s.inlined_into.push_back(fmt::format("{}:{}", M_.files[F.file].path, F.line));
  }
  return s;
}

std::string KernelRun::lane_name(const Warp& w, int lane) const {
  const Lane& L = w.lanes[lane];
  return fmt::format("block {} thread {} (warp {} lane {})", w.cta->linear, L.tid_linear, w.index, lane);
}

std::string KernelRun::replay_line() const {
  std::string s = fmt::format("SYNCLAB_MODEL={} SYNCLAB_SCHED={}", model_name(cfg_.model), sched_name(cfg_.sched));
  if (cfg_.sched != SchedPolicy::RoundRobin) s += fmt::format(" SYNCLAB_SEED={}", cfg_.seed);
  if (cfg_.sched == SchedPolicy::Pct) s += fmt::format(" SYNCLAB_PCT_DEPTH={}", cfg_.pct_depth);
  if (cfg_.device != "teaching") s += fmt::format(" SYNCLAB_DEVICE={}", cfg_.device);
  return s;
}

bool KernelRun::grid_sync_fault(const ptx::Instr& I, LaunchStatus status) const {
  if (!envreg_read_ || p_.cooperative || (status != LaunchStatus::Trap && status != LaunchStatus::Fault)) return false;
  // Reading %envreg1/2 is not enough: grid.is_valid() reads them too, in a kernel that then
  // goes on correctly. The fault must come from the toolkit's own code (the grid barrier inside
  // cooperative_groups: its innermost source frame is a CUDA header, not the user's file)...
  if (I.file != 0) return I.file != I.user_file;
  // ...or, without line information, be what that code does with a null workspace: trap, or
  // touch the first page.
  return status == LaunchStatus::Trap || null_page_fault_;
}

void KernelRun::fault(Warp& w, int lane, const ptx::Instr& I, LaunchStatus status, const std::string& title,
                      const std::string& details) {
  if (stop_) return;
  if (grid_sync_fault(I, status)) {
    // cooperative_groups::this_grid().sync() finds its workspace through %envreg1/2, which only
    // a cooperative launch provides: without one it dereferences null or traps.
    Report r;
    r.kind = ReportKind::Sync;
    r.kernel = entry_.name;
    r.block = static_cast<int64_t>(w.cta->linear);
    r.thread = w.lanes[lane].tid_linear;
    r.where = where(I);
    r.title = "grid synchronization without a cooperative launch";
    r.details = fmt::format(
        "{}: the kernel uses cooperative_groups::this_grid().sync() (or another grid-wide "
        "group), but was launched with <<<...>>>; launch it with cudaLaunchCooperativeKernel, "
        "with at most as many blocks as can be resident at once. (The fault that followed: {}: {})",
        lane_name(w, lane), title, details);
    r.seed = cfg_.seed;
    r.replay = replay_line();
    result_.reports.push_back(r);
    result_.status = status;
    result_.message = r.title;
    stop_ = true;
    return;
  }
  Report r;
  r.kind = status == LaunchStatus::Trap     ? ReportKind::Trap
           : status == LaunchStatus::Assert ? ReportKind::Assert
                                            : ReportKind::Fault;
  r.kernel = entry_.name;
  r.block = static_cast<int64_t>(w.cta->linear);
  r.thread = w.lanes[lane].tid_linear;
  r.where = where(I);
  r.title = title;
  r.details = fmt::format("{}: {} (instruction {})", lane_name(w, lane), details, ptx::op_name(I.op));
  r.seed = cfg_.seed;
  r.replay = replay_line();
  result_.reports.push_back(r);
  result_.status = status;
  result_.message = title;
  stop_ = true;
}

bool KernelRun::check_progress(Warp& w, uint32_t lanes, uint32_t func, uint32_t pc) {
  const uint64_t epoch = hang_.epoch();
  bool new_spin = false;
  const ptx::Function& fn = M_.functions[func];
  uint32_t spinners = 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    uint64_t h = hash_registers(w.regp[lane].base, 32, fn.regs.size() + 1, func, pc);
    if (L.spin_epoch == epoch && L.spin_func == func && L.spin_pc == pc && L.spin_hash == h) {
      if (!L.spinning) new_spin = true;
      L.spinning = true;
      spinners |= 1u << lane;
    } else {
      L.spinning = false;
      L.spin_epoch = epoch;
      L.spin_func = func;
      L.spin_pc = pc;
      L.spin_hash = h;
    }
  }
  if (!new_spin && !host_grace_started_) return false;
  if (new_spin) sched_->on_spin(w, spinners);
  // Every live lane must be spinning (in this epoch) or unable to run.
  bool host_memory = false;
  bool simt_deadlock = false;
  for (Warp* x : warps_) {
    uint32_t running = x->runnable;
    for (uint32_t m = x->live_mask(); m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      const Lane& L = x->lanes[lane];
      const bool can_run = (running >> lane) & 1;
      if (!can_run) continue;  // blocked at a barrier, a warp sync or a reconvergence point
      if (!(L.spinning && L.spin_epoch == epoch)) return false;
      if (const Allocation* a = sim_.memory().find(x->last_load[lane]); a && a->kind == AllocKind::HostMapped)
        host_memory = true;
    }
    // A SIMT deadlock: the word a lane spins on was last written by a lane of its own warp that
    // is now parked at a reconvergence point (the lock's winner). Parked lanes alone do not make
    // one: a lane spinning on another block's write merely hangs.
    const uint32_t parked = x->live_mask() & ~running & x->ready_mask;
    if (cfg_.model == WarpModel::Lockstep && parked) {
      for (uint32_t m = running; m; m &= m - 1) {
        const uint64_t polled = x->last_load[__builtin_ctz(m)];
        if (!polled) continue;
        const LastWriter* lw = hang_.last_writer(polled);
        if (lw && lw->cta == x->cta->linear && lw->warp == x->index && (parked >> lw->lane & 1)) simt_deadlock = true;
      }
    }
  }
  if (host_memory) {
    // The host may still write the polled word: give it time before calling this a hang.
    using namespace std::chrono;
    if (!host_grace_started_) {
      host_grace_started_ = true;
      host_grace_since_ = steady_clock::now();
      return false;
    }
    if (steady_clock::now() - host_grace_since_ < seconds(3)) return false;
  }
  report_hang(simt_deadlock);
  return true;
}

// Whether the innermost loop around instruction `pc` (from the nearest backward branch at or
// after it to that branch's target) contains an instruction that reads memory. True when no such
// loop is found: then nothing is claimed.
bool KernelRun::loop_reads_memory(const ptx::Function& fn, uint32_t pc) {
  for (size_t b = pc; b < fn.code.size(); ++b) {
    const ptx::Instr& B = fn.code[b];
    if (B.op != Op::Bra || B.src[0].kind != ptx::Operand::Kind::Label) continue;
    const uint64_t target = static_cast<uint64_t>(B.src[0].imm);
    if (target > pc) continue;
    for (size_t i = target; i <= b; ++i) {
      switch (fn.code[i].op) {
        case Op::Ld:
        case Op::Ldu:
        case Op::Atom:
        case Op::Call:
        case Op::Bar:
        case Op::BarWarpSync:
        case Op::Shfl:
        case Op::Vote:
        case Op::Match:
        case Op::Redux:
        case Op::Nanosleep: return true;
        default: break;
      }
    }
    return false;
  }
  return true;
}

void KernelRun::report_hang(bool simt_deadlock) {
  for (Warp* x : warps_) materialize(*x);
  Report r;
  r.kernel = entry_.name;
  r.seed = cfg_.seed;
  r.replay = replay_line();
  std::string details;
  const Warp* first_w = nullptr;
  int first_lane = -1;
  int loops_without_loads = 0;
  for (Warp* x : warps_) {
    uint32_t spin = 0;
    for (uint32_t m = x->runnable; m; m &= m - 1) spin |= 1u << __builtin_ctz(m);
    if (!spin) continue;
    const int lane = __builtin_ctz(spin);
    const Lane& L = x->lanes[lane];
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
    if (!loop_reads_memory(M_.functions[L.func], L.pc)) {
      ++loops_without_loads;
      line +=
          "; the loop there reads no memory at all (its PTX has no load): whatever it waits for stays in a "
          "register, so no other thread can ever end it";
    } else if (const uint64_t polled = x->last_load[lane]) {
      std::string what = fmt::format("0x{:x}", polled);
      if (const Allocation* a = sim_.memory().find(polled))
        what += fmt::format(" ({} + {})", a->name, polled - a->base);
      line += fmt::format(", polling {}", what);
      if (const LastWriter* lw = hang_.last_writer(polled)) {
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
  if (next_cta_ < total_ctas_)
    details += fmt::format(
        "{} more block(s) wait for a free SM slot: only {} block(s) of this shape fit at once "
        "({} SMs x {} per SM on device '{}')\n",
        total_ctas_ - next_cta_, uint64_t(ctas_per_sm_) * prof_.sm_count, prof_.sm_count, ctas_per_sm_, prof_.name);
  if (simt_deadlock) {
    r.kind = ReportKind::Deadlock;
    r.title =
        "SIMT deadlock: lanes spin on a word that a lane of their own warp, parked at a reconvergence "
        "point, would change";
  } else if (loops_without_loads) {
    r.kind = ReportKind::Hang;
    r.title = "hang: threads spin in a loop that reads no memory, so nothing another thread does can end it";
    details +=
        "the compiler keeps a value that it may assume no other thread changes (a plain, non-volatile "
        "load) in a register and reads it once, before the loop; the loop then tests that register for "
        "ever. Read the flag or lock in the loop with a volatile or atomic load (a volatile pointer, "
        "cuda::atomic_ref<...>::load, atomicAdd(&x, 0)), and order what it guards with a fence or "
        "acquire/release\n";
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
  for (Warp* x : warps_) materialize(*x);
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
  for (Warp* x : warps_) materialize(*x);
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
