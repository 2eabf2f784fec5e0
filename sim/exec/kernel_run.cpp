// One kernel launch: set-up, CTA dispatch onto the virtual SMs, and the step loop.
//
// Where things are (the sections below, in this order):
//   1. Set-up and CTA dispatch
//        Interrupt          SIGUSR1 asks a running kernel to stop and say where its threads are
//                           (install_interrupt_handler)
//        Constructor        KernelRun::KernelRun: the scheduler, whether converged warps may split, per-SM tables
//        Blocks             a block onto the least loaded SM, in a retired block's storage when there is one
//                           (start_cta); more as SMs free up (dispatch_ctas); a finished one off its SM (retire_cta)
//   2. The step loop (a template over the warp model, warp_model.h)
//        Step loop          step_loop: the scheduler picks a warp, the model its lanes; bursts of private
//                           instructions; the step budget
//        Launch             run: the launch's shape and shared memory, the listeners (TraceRecorder,
//                           PerfCounters, the checkers from the simulator's parts), the memory model, the
//                           dispatch order; the step loop;
//                           then the closing reports and the summary line; sim_ns (simulated time so far)
//        Instruction flags  annotate_for_exec and its tests (private_instr, is_plain, scalar_access)
//   3. Where, who and how to replay: what every report says
//        Report fields      where (source line and inlined call sites), lane_name, replay_line
//        Split draw         split_draw: whether a converged warp's access splits, which lanes go first and how
//                           long the others wait; a hash of the seed, the step and the warp, so replays repeat it
//        Faults             fault; grid_sync_fault: grid synchronization without a cooperative launch
//        Reports out        observe_reports; check_memory_model (SYNCLAB_MEMORY_CHECK=1)
// Elsewhere: the warp models (lockstep_model.h, its_model.h), the control flow they share
// (control_flow.cpp), instruction semantics (instr/), progress and hang reports (progress.cpp),
// the run's listeners (run_observer.h): the checkers (sim/check/, plugged in by the simulator's
// parts), trace recording (trace_recorder.h)
// and the performance counters (perf_counters.h).
#include "sim/exec/kernel_run.h"

#include <synclab/mix64.h>
#include <synclab/trace_schedule.h>

#include "sim/memory/oracle/ptx_axioms.h"

#include "sim/exec/instr/operands.h"
#include "sim/exec/its_model.h"
#include "sim/exec/launch_config.h"
#include "sim/exec/lockstep_model.h"
#include "sim/exec/perf_counters.h"
#include "sim/exec/trace_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <functional>
#include <mutex>
#include <type_traits>

namespace synclab::sim {

using ptx::Op;
using ptx::Operand;

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
                     const DeviceProfile& prof, std::unique_ptr<Scheduler> sched, uint64_t time_base_ns)
    : sim_(sim),
      mod_(mod),
      M_(*mod.module),
      p_(p),
      cfg_(cfg),
      prof_(prof),
      entry_(mod.module->functions[p.function]),
      sched_(std::move(sched)),
      // Priority schedulers check for spins sooner: there a spinning lane starves the others until
      // it is found (Scheduler::on_spin).
      listen_(&clock_.steps, cfg.sched == SchedPolicy::RoundRobin ? HangDetector::kQuietSteps : 2048) {
  rr_ = dynamic_cast<RoundRobinScheduler*>(sched_.get());
  replay_ = sched_->replays() ? sched_.get() : nullptr;
  for (const ptx::Function& f : M_.functions) code_.push_back({f.code.data(), static_cast<uint32_t>(f.code.size())});
  sched_on_step_ = sched_->observes_steps();
  // Independent thread scheduling promises no convergence: the exploring schedulers sometimes run
  // the lanes of a converged warp's memory access at different times (ItsModel::pick_group).
  split_warps_ = cfg.model == WarpModel::Its && !replay_ && !rr_ &&
                 (cfg.sched == SchedPolicy::Random || cfg.sched == SchedPolicy::Pct);
  dispatch_.sm_load.assign(prof.sm_count, 0);
  clock_.sm_steps.assign(prof.sm_count, 0);
  clock_.time_base_ns = time_base_ns;
  clock_.clock_base = static_cast<uint64_t>(double(time_base_ns) * prof.clock_khz / 1e6);
}

void KernelRun::start_cta(uint64_t linear) {
  // Blocks of one launch all have the same shape: reuse a retired block's storage.
  std::unique_ptr<Cta> cta;
  if (!dispatch_.pool.empty()) {
    cta = std::move(dispatch_.pool.back());
    dispatch_.pool.pop_back();
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
    if (dispatch_.sm_load[i] < dispatch_.sm_load[sm]) sm = i;
  c.sm = sm;
  ++dispatch_.sm_load[sm];
  c.threads = shape_.threads_per_block;
  c.live_threads = shape_.threads_per_block;
  c.shared.assign(shape_.shared_bytes, 0);
  listen_.list.cta_start(c);
  if (mm_.relaxed) mm_.relaxed->start_block(linear);
  c.warps.resize(shape_.warps_per_block);
  for (uint32_t wi = 0; wi < shape_.warps_per_block; ++wi) {
    Warp& w = c.warps[wi];
    w.cta = &c;
    w.index = wi;
    w.global_index = dispatch_.next_warp_serial++;
    w.present_mask = w.exited_mask = w.yielded_mask = w.open_lanes = 0;
    w.bar_mask = 0;
    w.lb_lanes = 0;
    w.lb_hold_until = 0;
    w.converged = true;
    w.cfunc = static_cast<uint32_t>(p_.function);
    w.cpc = 0;
    w.cache_base = w.cache_size = 0;
    w.regs.assign((entry_.regs.size() + 1) * 32, 0);
    w.uniform_base = 0;
    for (int lane = 0; lane < 32; ++lane) {
      uint32_t t = wi * 32 + lane;
      if (t >= shape_.threads_per_block) break;
      Lane& L = w.lanes[lane];
      L.frames.clear();
      L.reg_base = L.local_base = L.param_base = 0;
      L.carry = false;
      L.spinning = L.waiting = false;
      L.spin_epoch = L.spin_net_epoch = L.spin_net_epoch2 = L.waiting_net = ~0ull;
      L.wait_func = L.wait_pc = L.wait_func2 = L.wait_pc2 = ~0u;
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
  dispatch_.resident.push_back(std::move(cta));
}

void KernelRun::dispatch_ctas() {
  while (dispatch_.next < shape_.blocks) {
    bool free_slot = false;
    for (uint32_t i = 0; i < prof_.sm_count; ++i)
      if (dispatch_.sm_load[i] < shape_.blocks_per_sm) free_slot = true;
    if (!free_slot) return;
    const uint64_t i = dispatch_.next++;
    start_cta(dispatch_.perm.empty() ? (dispatch_.reverse ? shape_.blocks - 1 - i : i) : dispatch_.perm[i]);
  }
}

void KernelRun::retire_cta(Cta& cta) {
  cta.done = true;
  if (listen_.any) listen_.list.cta_end(cta);
  if (mm_.relaxed) mm_.relaxed->end_block(cta.linear);
  --dispatch_.sm_load[cta.sm];
  ++dispatch_.retired;
  warps_.erase(std::remove_if(warps_.begin(), warps_.end(), [&](Warp* w) { return w->cta == &cta; }), warps_.end());
  for (auto& c : dispatch_.resident)
    if (c.get() == &cta) {
      dispatch_.pool.push_back(std::move(c));
      break;
    }
  dispatch_.resident.erase(std::remove(dispatch_.resident.begin(), dispatch_.resident.end(), nullptr),
                           dispatch_.resident.end());
  dispatch_ctas();
}

// ---------------------------------------------------------------------------------------------
// 2. The step loop
// ---------------------------------------------------------------------------------------------

// The step loop, for one warp model: the scheduler picks a warp, the model the lanes that run,
// the dispatcher their instruction. Until every block has finished, or a report ends the run.
template <class M>
void KernelRun::step_loop() {
  while (!stop_) {
    if (warps_.empty()) break;  // every block has finished
    if (g_interrupt) {
      report_interrupted();
      break;
    }
    size_t wi = rr_ ? rr_->pick_warp(warps_) : sched_->pick_warp(warps_);
    // A warp waiting between the two parts of a load-buffering plan (Warp::lb_hold_until) is passed
    // over for another the policy picks, if one of three more picks finds one (a schedule file
    // decides alone; pct would pick the same warp again).
    if (wi < warps_.size() && warps_[wi]->lb_hold_until > clock_.steps && !replay_ && cfg_.sched != SchedPolicy::Pct) {
      for (int k = 0; k < 3; ++k) {
        const size_t o = rr_ ? rr_->pick_warp(warps_) : sched_->pick_warp(warps_);
        if (o < warps_.size() && warps_[o]->lb_hold_until <= clock_.steps) {
          wi = o;
          break;
        }
      }
    }
    if (wi >= warps_.size()) {
      report_deadlock();
      break;
    }
    Warp& w = *warps_[wi];
    Group g;
    if (!M::pick_group(*this, w, &g)) {  // nothing to run after all (lockstep stack popped)
      continue;
    }
    if (replay_) replay_->picked(w, g, std::is_same_v<M, LockstepModel>);
    Cta* cta = w.cta;
    now_.warp = &w;
    if (listen_.steps) listen_.list.step(w, g);  // before its effects (docs/trace-format.md)
    uint8_t xf = execute<M>(w, g);
    if (listen_.watched && listen_.reports_heard < result_.reports.size()) observe_reports();
    ++clock_.steps;
    uint64_t& sm_steps = clock_.sm_steps[cta->sm];
    ++sm_steps;
    if (sched_on_step_) sched_->on_step(w, g.mask, clock_.steps);
    // Instructions that touch only the group's own registers, parameters or local memory cannot
    // be observed by any other thread, so running the next ones right away gives the same set of
    // possible outcomes as interleaving them: a partial-order reduction that spares the scheduler.
    for (int burst = 0; burst < 64 && (xf & ptx::Instr::kExecPrivate) && !stop_ && clock_.steps < cfg_.budget;
         ++burst) {
      if (!M::continue_group(w, &g)) break;
      if (replay_ && !replay_->continue_burst(w, g)) break;  // the schedule runs another warp now
      if (listen_.steps) listen_.list.step(w, g);
      xf = execute<M>(w, g);
      if (listen_.watched && listen_.reports_heard < result_.reports.size()) observe_reports();
      ++clock_.steps;
      ++sm_steps;
      if (sched_on_step_) sched_->on_step(w, g.mask, clock_.steps);
    }
    if (cta->live_threads == 0 && !cta->done) retire_cta(*cta);
    if (clock_.steps >= cfg_.budget && !stop_) {
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
}

KernelRun::~KernelRun() = default;

LaunchResult KernelRun::run() {
  clock_.wall_start = std::chrono::steady_clock::now();
  const uint64_t threads = p_.block.count();
  auto invalid = [&](const std::string& msg) {
    result_.status = LaunchStatus::InvalidConfiguration;
    result_.message = msg;
    return result_;
  };
  shape_.static_shared = p_.function < int(mod_.static_shared.size()) ? mod_.static_shared[p_.function] : 0;
  shape_.dynamic_shared_base = align_up(shape_.static_shared, 16);
  shape_.shared_bytes = shape_.dynamic_shared_base + p_.dynamic_shared;
  if (mod_.reserved_smem) {
    shape_.reserved_smem_base = align_up(shape_.shared_bytes, 16);
    shape_.shared_bytes = shape_.reserved_smem_base + kReservedSmemBytes;
  }
  if (LaunchShapeCheck bad = check_launch_shape(prof_, p_.grid, p_.block, shape_.static_shared, p_.dynamic_shared))
    return invalid(bad.message);
  shape_.threads_per_block = static_cast<uint32_t>(threads);
  shape_.warps_per_block = (shape_.threads_per_block + 31) / 32;
  shape_.blocks_per_sm =
      sim_.max_active_blocks_per_sm(p_.module, p_.function, shape_.threads_per_block, p_.dynamic_shared);
  if (shape_.blocks_per_sm == 0) return invalid("the block does not fit on one SM of the device profile");
  shape_.blocks = p_.grid.count();
  if (p_.cooperative) {
    if (shape_.blocks > uint64_t(shape_.blocks_per_sm) * prof_.sm_count) {
      result_.status = LaunchStatus::CooperativeTooLarge;
      result_.message = fmt::format(
          "cooperative launch of {} blocks, but only {} can be resident at once "
          "({} SMs x {} blocks per SM)",
          shape_.blocks, uint64_t(shape_.blocks_per_sm) * prof_.sm_count, prof_.sm_count, shape_.blocks_per_sm);
      return result_;
    }
    dispatch_.grid_workspace =
        reinterpret_cast<uint64_t>(sim_.memory().allocate(64, AllocKind::Device, "cooperative grid barrier workspace"));
    sim_.memory().mark_initialized(dispatch_.grid_workspace, 64);  // zeroed, as the driver does
  }

  // Who listens (run_observer.h): the trace recorder (SYNCLAB_TRACE), the performance counters
  // (SYNCLAB_PROFILE), then the checkers (SYNCLAB_CHECK), each hearing every event in that order.
  if (trace::Writer* tw = sim_.trace_writer(cfg_)) {
    listen_.list.add(std::make_unique<TraceRecorder>(view(), sim_, *tw));
    if (replay_)
      replay_->begin_traced_launch(shape_.blocks, shape_.warps_per_block);  // numbered as the trace numbers it
  }
  if (!cfg_.profile.empty() || cfg_.count) {
    auto counters = std::make_unique<PerfCounters>(M_, entry_.name, p_.grid, p_.block, prof_, shape_.blocks_per_sm);
    listen_.counters = counters.get();
    listen_.list.add(std::move(counters));
  }
  listen_.watched = !listen_.list.empty();
  // (The checkers come from sim/check/, through the simulator's parts.)
  if (sim_.parts().checkers) sim_.parts().checkers(listen_.list, view(), sim_.memory(), result_.reports, cfg_);
  listen_.race = cfg_.check_enabled("race");
  listen_.sync = cfg_.check_enabled("sync");
  listen_.any = !listen_.list.empty();
  listen_.steps = listen_.list.steps();
  if (listen_.any) listen_.list.launch_begin();
  // A launch that follows a schedule file with a `seed` line makes the memory model's choices as the
  // recorded run made them (trace_schedule.h).
  const uint64_t model_seed = replay_ && replay_->follows_schedule() && cfg_.schedule && cfg_.schedule->has_seed
                                  ? cfg_.schedule->seed
                                  : cfg_.seed;
  mm_.model = make_consistency_model(cfg_.memory == MemoryModel::Relaxed, model_seed, shape_.threads_per_block,
                                     cfg_.memory == MemoryModel::Relaxed && cfg_.memory_check);
  if (mm_.model->relaxed()) {
    mm_.relaxed = mm_.model.get();
    if (listen_.watched) mm_.relaxed->on_visible([this](uint64_t key) { listen_.list.memory_visible(key); });
    if (replay_) mm_.relaxed->set_read_chooser(replay_->read_chooser());
    if (cfg_.aim) mm_.relaxed->set_aim(cfg_.aim.get());
  }

  DispatchOrder order = cfg_.dispatch;
  if (order == DispatchOrder::Default) {
    // A launch that follows a schedule file dispatches blocks as the policy after its choices does.
    SchedPolicy sched = replay_ && replay_->follows_schedule() ? cfg_.replay_after.value_or(cfg_.sched) : cfg_.sched;
    order = sched == SchedPolicy::RoundRobin ? DispatchOrder::InOrder : DispatchOrder::Random;
  }
  dispatch_.reverse = order == DispatchOrder::Reverse;
  if (order == DispatchOrder::Random && shape_.blocks > 1 && shape_.blocks <= (1u << 24)) {
    dispatch_.perm.resize(shape_.blocks);
    for (uint64_t i = 0; i < shape_.blocks; ++i) dispatch_.perm[i] = static_cast<uint32_t>(i);
    uint64_t x = cfg_.seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    for (uint64_t i = shape_.blocks - 1; i > 0; --i) {  // Fisher-Yates with a splitmix64 stream
      x += 0x9E3779B97F4A7C15ull;
      const uint64_t z = mix64(x);
      std::swap(dispatch_.perm[i], dispatch_.perm[z % (i + 1)]);
    }
  }
  dispatch_ctas();
  install_interrupt_handler();
  if (cfg_.model == WarpModel::Lockstep)
    step_loop<LockstepModel>();
  else
    step_loop<ItsModel>();
  if (dispatch_.grid_workspace) sim_.memory().release(reinterpret_cast<void*>(dispatch_.grid_workspace));
  if (mm_.relaxed) {
    auto not_covered = [&](const char* what, std::string details) {
      Report r;
      r.kind = ReportKind::Info;
      r.severity = Severity::Warning;
      r.kernel = entry_.name;
      r.title = std::string("not covered by the relaxed memory model: ") + what;
      r.details = std::move(details);
      r.seed = cfg_.seed;
      r.replay = replay_line();
      result_.reports.push_back(r);
    };
    if (std::string what = mm_.relaxed->take_not_covered(); !what.empty()) not_covered("mixed-size accesses", what);
    if (!mm_.proxy_not_covered.empty()) not_covered("proxy fences", mm_.proxy_not_covered);
  }
  if (mm_.relaxed && cfg_.memory_check) check_memory_model();
  listen_.list.finish_reports();
  if (listen_.watched) {
    // The launch's end orders every write before what follows: each newest write is visible to all.
    if (mm_.relaxed) mm_.relaxed->settle();
    observe_reports();
    if (listen_.counters) {
      // The counters ended with the step loop (finish_reports); a trace gets them as a note of its
      // own (the viewer's Reports window lists it), which is not one of the launch's reports
      // (nothing on stderr, no effect on the exit status).
      Report r;
      r.kind = ReportKind::Info;
      r.severity = Severity::Info;
      r.kernel = entry_.name;
      r.title = listen_.counters->summary().headline();
      r.details = listen_.counters->summary().render();
      r.seed = cfg_.seed;
      r.replay = replay_line();
      listen_.list.report(r);
    }
  }
  if (listen_.any) listen_.list.launch_end(result_.status);
  if (listen_.counters) {
    result_.profile = std::make_shared<PerfSummary>(listen_.counters->summary());
    result_.counted = cfg_.count;
  }
  const RunObserver::Counts n = listen_.list.counts();
  if (n.race_errors + n.race_warnings + n.sync_errors + n.init_reads) {
    // Repeats of the reported races (each report counts its own; warp-level pairs that a lost-update
    // report explains are not counted).
    std::string dup;
    if (n.more && !cfg_.reports_all)
      dup = fmt::format(" ({} more conflicting accesses at the same lines not shown)", n.more);
    result_.summary = fmt::format(
        "========= SyncLab SUMMARY: kernel {}: {} race error{}, {} race warning{}, {} synchronization error{}, {} "
        "uninitialized read{}{}\n",
        demangle_name(entry_.name), n.race_errors, n.race_errors == 1 ? "" : "s", n.race_warnings,
        n.race_warnings == 1 ? "" : "s", n.sync_errors, n.sync_errors == 1 ? "" : "s", n.init_reads,
        n.init_reads == 1 ? "" : "s", dup);
  }
  result_.warp_steps = clock_.steps;
  result_.thread_instructions = clock_.instrs;
  uint64_t max_sm = 0;
  for (uint64_t s : clock_.sm_steps) max_sm = std::max(max_sm, s);
  result_.simulated_ms = double(max_sm) / double(prof_.clock_khz);
  return result_;
}

double KernelRun::sim_ns() const {
  uint64_t max_sm = 0;
  for (uint64_t s : clock_.sm_steps) max_sm = std::max(max_sm, s);
  return double(max_sm) * 1e6 / double(prof_.clock_khz);
}

namespace {
// Instructions that touch only the group's own registers, parameters or local memory.
bool private_instr(const ptx::Instr& I) {
  if (ptx::is_warp_synchronous(I.op)) return false;
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
    case Op::Activemask:
    case Op::Atom:
    case Op::Red:
    case Op::Ldu:
    case Op::Membar:
    case Op::Fence:
    case Op::Nanosleep:
    case Op::Prefetch:
    case Op::Pmevent:
    case Op::CpAsync:
    case Op::CpAsyncCommit:
    case Op::CpAsyncWait:
    case Op::CpAsyncMbarArrive:
    case Op::Mbarrier:
    case Op::Unsupported: return false;
    default: return true;
  }
}

// Instructions that only compute and move data: every lane of the group goes on to the next
// instruction, so lane PCs need not be tracked one by one.
bool is_plain(Op op) {
  if (ptx::is_warp_synchronous(op)) return false;
  switch (op) {
    case Op::Bra:
    case Op::Brx:
    case Op::Call:
    case Op::Ret:
    case Op::Exit:
    case Op::Trap:
    case Op::Bar: return false;
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

namespace {

// Whether I may acquire: anything but a computation, a branch, the end of the thread, a
// non-acquire load or store or a release-only (or proxy) fence. (A return from a function called by
// another may: its caller goes on.) A read-modify-write counts too, whatever its order: after a load
// that read a store still waiting for a release (hidden), it could read nothing else at that
// location, and its write would pass on a release the store does not carry yet.
bool may_acquire(const ptx::Instr& I, bool entry) {
  if (private_instr(I)) return false;
  switch (I.op) {
    case Op::Ret: return !entry;
    case Op::Bra:
    case Op::Exit:
    case Op::Prefetch:
    case Op::Nanosleep: return false;
    case Op::Ld:
    case Op::Ldu: return I.sem == ptx::Sem::Acquire || I.sem == ptx::Sem::AcqRel || I.sem == ptx::Sem::Sc;
    case Op::Atom:
    case Op::Red: return true;
    case Op::St: return false;
    case Op::Fence: return !I.proxy && I.sem != ptx::Sem::Release;
    default: return true;
  }
}

// Whether I may release: a release or acq_rel store or read-modify-write, a fence other than an
// acquire-only (or proxy) one, and anything but a computation, a branch, the end of the thread, a
// load, a store or a read-modify-write. (A return from a function called by another may: its
// caller goes on.)
bool may_release(const ptx::Instr& I, bool entry) {
  if (private_instr(I)) return false;
  switch (I.op) {
    case Op::Ret: return !entry;
    case Op::Bra:
    case Op::Exit:
    case Op::Prefetch:
    case Op::Nanosleep:
    case Op::Ld:
    case Op::Ldu: return false;
    case Op::Atom:
    case Op::Red:
    case Op::St: return I.sem == ptx::Sem::Release || I.sem == ptx::Sem::AcqRel || I.sem == ptx::Sem::Sc;
    case Op::Fence: return !I.proxy && I.sem != ptx::Sem::Acquire;
    default: return true;
  }
}

// `flag` on each instruction after which no instruction `may` holds is reachable (over the
// function's control-flow graph; without one, none is marked; in a function other than a kernel,
// its return counts as one): kExecNoAcquireAfter, kExecNoReleaseAfter.
void mark_none_after(ptx::Function& fn, bool (*may)(const ptx::Instr&, bool), uint8_t flag) {
  const size_t nb = fn.blocks.size();
  if (!nb || fn.block_of.size() != fn.code.size()) return;
  std::vector<char> in_block(nb, 0), from_start(nb, 0);  // such an instruction in / from the block's start
  for (size_t b = 0; b < nb; ++b)
    for (uint32_t i = fn.blocks[b].first; i <= fn.blocks[b].last && i < fn.code.size(); ++i)
      in_block[b] = in_block[b] || may(fn.code[i], fn.is_entry);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      char v = in_block[b];
      for (uint32_t s : fn.blocks[b].succs) v = v || (s < nb && from_start[s]);
      if (v != from_start[b]) {
        from_start[b] = v;
        changed = true;
      }
    }
  }
  for (size_t b = 0; b < nb; ++b) {
    bool later = false;  // such an instruction after i
    for (uint32_t s : fn.blocks[b].succs) later = later || (s < nb && from_start[s]);
    for (uint32_t i = std::min<uint32_t>(fn.blocks[b].last, uint32_t(fn.code.size() - 1)) + 1;
         i-- > fn.blocks[b].first;) {
      if (!later) fn.code[i].exec |= flag;
      later = later || may(fn.code[i], fn.is_entry);
    }
  }
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
  mark_none_after(fn, may_acquire, ptx::Instr::kExecNoAcquireAfter);
  mark_none_after(fn, may_release, ptx::Instr::kExecNoReleaseAfter);
  for (ptx::Instr& I : fn.code)
    if ((I.exec & ptx::Instr::kExecNoReleaseAfter) && !may_release(I, fn.is_entry))
      I.exec |= ptx::Instr::kExecNoReleaseFrom;
}

// ---------------------------------------------------------------------------------------------
// 3. Where, who and how to replay: what every report says
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

uint64_t KernelRun::split_draw(const Warp& w) const {
  // One step in sixteen (of a converged warp's memory accesses) splits; which lanes go first and
  // how long the others wait come from the same hash. A function of the seed, the step and the warp: the replay line
  // (SYNCLAB_SCHED and SYNCLAB_SEED) repeats it.
  const uint64_t x = mix64(cfg_.seed * 0x9E3779B97F4A7C15ull ^ clock_.steps * 0xD1B54A32D192ED03ull ^
                           (w.cta->linear << 16 | w.index) * 0x94D049BB133111EBull);
  if (x & 15) return 0;
  // lanes to run first (bits 0-31, not all zero), how long the others wait (bits 32-35)
  const uint64_t m = x >> 32;
  const uint64_t wait = x >> 4 & 15;
  return (m ? m : 1) | wait << 32;
}

KernelRun::GroupPick KernelRun::pick_group(const Warp& w, const std::vector<Group>& groups) {
  scratch_.masks.clear();
  scratch_.yielded.clear();
  bool all = true;
  for (const Group& gr : groups) {
    const bool yielded = (gr.mask & w.yielded_mask) != 0;
    scratch_.masks.push_back(gr.mask);
    scratch_.yielded.push_back(yielded);
    all = all && yielded;
  }
  const size_t pick = sched_->pick_group(w, scratch_.masks, scratch_.yielded);
  return {pick, bool(scratch_.yielded[pick]), all};
}

void KernelRun::warp_synced(Warp& w, uint32_t lanes) {
  if (listen_.any) listen_.list.warp_sync(w, lanes);
  if (mm_.relaxed) {
    std::vector<uint64_t> ids;
    for (uint32_t m = lanes; m; m &= m - 1) ids.push_back(mm_thread(w, __builtin_ctz(m)).id);
    mm_.relaxed->warp_sync(w.cta->linear, ids);
  }
}

std::string KernelRun::describe_address(uint64_t addr, bool shared, uint64_t cta) const {
  if (shared) {
    if (addr >= shape_.dynamic_shared_base && p_.dynamic_shared)
      return fmt::format("shared memory of block {}: dynamic shared memory (extern __shared__), byte {}", cta,
                         addr - shape_.dynamic_shared_base);
    static const std::vector<uint32_t> none;
    const auto& mine = size_t(p_.function) < mod_.shared_symbols.size() ? mod_.shared_symbols[p_.function] : none;
    for (uint32_t si : mine) {
      const ptx::Symbol& s = M_.symbols[si];
      if (!s.size) continue;
      if (addr >= s.offset && addr < s.offset + s.size)
        return fmt::format("shared memory of block {}: __shared__ {}, byte {}", cta, demangle_name(s.name),
                           addr - s.offset);
    }
    return fmt::format("shared memory of block {}, offset 0x{:x}", cta, addr);
  }
  if (const Allocation* a = sim_.memory().find(addr, 1)) {
    std::string name = a->kind == AllocKind::ModuleGlobal ? "__device__ " + demangle_name(a->name) : a->name;
    return fmt::format("0x{:x}, byte {} of {}", addr, addr - a->base, name);
  }
  return fmt::format("0x{:x}", addr);
}

std::string KernelRun::replay_line() const {
  SchedPolicy sched = cfg_.sched;
  std::string s = fmt::format("SYNCLAB_MODEL={} SYNCLAB_SCHED={}", model_name(cfg_.model), sched_name(sched));
  // A launch that followed a schedule file: the file replays it (SYNCLAB_SCHEDULE alone turns replay
  // on, which lab harnesses accept; they read SYNCLAB_SCHED themselves).
  if (replay_ && replay_->follows_schedule()) {
    sched = cfg_.replay_after.value_or(cfg_.sched);
    s = fmt::format("SYNCLAB_MODEL={} SYNCLAB_SCHEDULE={} SYNCLAB_SCHED_AFTER={}", model_name(cfg_.model),
                    cfg_.schedule_path, sched_name(sched));
  }
  if (cfg_.memory != MemoryModel::Sc) s += fmt::format(" SYNCLAB_MEMORY={}", memory_name(cfg_.memory));
  if (cfg_.streams != StreamOrder::Default)
    s += cfg_.streams == StreamOrder::Random ? " SYNCLAB_STREAMS=random" : " SYNCLAB_STREAMS=order";
  if (sched != SchedPolicy::RoundRobin || cfg_.streams_random()) s += fmt::format(" SYNCLAB_SEED={}", cfg_.seed);
  if (sched == SchedPolicy::Pct) s += fmt::format(" SYNCLAB_PCT_DEPTH={}", cfg_.pct_depth);
  if (cfg_.device != "teaching") s += fmt::format(" SYNCLAB_DEVICE={}", cfg_.device);
  if (cfg_.volatile_data) s += " SYNCLAB_VOLATILE=data";
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

void KernelRun::observe_reports() {
  while (listen_.reports_heard < result_.reports.size()) listen_.list.report(result_.reports[listen_.reports_heard++]);
}

// SYNCLAB_MEMORY_CHECK=1: the execution the relaxed model produced must be one the PTX model's
// axioms allow; otherwise the simulator has a bug, which the report says with the run's replay line.
void KernelRun::check_memory_model() {
  const memory::Execution* x = mm_.relaxed->execution();
  if (!x) return;
  result_.execution = std::make_shared<memory::Execution>(*x);
  const memory::AxiomResult res = memory::check_ptx(*x);
  const std::string limit = mm_.relaxed->recording_limit();
  if (const uint64_t dead = mm_.relaxed->dead_ends()) {
    // The model's rules left some read nothing to read: it took the newest value, which the
    // axioms may or may not allow (the report below says when they do not).
    Report d;
    d.kind = ReportKind::Info;
    d.kernel = entry_.name;
    d.seed = cfg_.seed;
    d.replay = replay_line();
    d.severity = Severity::Error;
    d.title = "simulator bug: the relaxed memory model found nothing a read could read under its rules";
    d.details = fmt::format(
        "{} read{} took memory's newest value instead (sim/memory/relaxed/relaxed_model.h, dead_ends); the oracle {} "
        "the execution. Please report it with the replay line.",
        dead, dead == 1 ? "" : "s", res.allowed ? "allows" : "forbids");
    result_.reports.push_back(d);
  }
  if (res.allowed && limit.empty()) return;
  Report r;
  r.kind = ReportKind::Info;
  r.kernel = entry_.name;
  r.seed = cfg_.seed;
  r.replay = replay_line();
  if (!res.allowed) {
    r.severity = Severity::Error;
    r.title = "simulator bug: the relaxed memory model produced an execution the PTX memory model forbids";
    r.details = fmt::format(
        "the oracle (sim/memory/oracle/, the axioms of ptx.als) finds the recorded execution ({} events) breaks {}: "
        "{}. Please report it with the replay line.",
        x->events.size(), res.axiom, res.explain);
  } else {
    r.severity = Severity::Warning;
    r.title = "memory-model check incomplete";
    r.details = limit;
  }
  result_.reports.push_back(r);
}

}  // namespace synclab::sim
