// One kernel launch being executed: CTA dispatch onto virtual SMs, the step loop that asks the
// scheduler which warp and the warp model which lanes run next, and the instruction semantics.
// Faults, deadlocks and hangs end the run with a report. Where each part lives:
//   kernel_run.cpp          set-up, dispatch, the step loop
//   lockstep_model.*, its_model.*   the warp models (warp_model.h)
//   control_flow.cpp        calls, returns, exits and barriers, shared by both models
//   instr/                  instruction semantics: memory, ALU, warp operations, built-ins, dispatch
//   progress.cpp            spin checks, hang and deadlock reports (reading the progress detector)
//   run_observer.h          the run's listeners, called through one list (observer_list.h): the
//                           progress detector (hang_detector.h, in every run), the race, init and
//                           sync checkers (sim/check/*_checker.h), the trace recorder
//                           (trace_recorder.h, SYNCLAB_TRACE) and the performance counters
//                           (perf_counters.h), each reading the run through RunView (run_view.h)
//   (public)                what the warp models ask of the run; they are not its friends
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <string>
#include <vector>

#include <synclab/trace_format.h>
#include "sim/exec/config.h"
#include "sim/exec/memory.h"
#include "sim/exec/profile.h"
#include "sim/memory/memory_model.h"
#include "sim/exec/report.h"
#include "sim/exec/observer_list.h"
#include "sim/exec/run_observer.h"
#include "sim/exec/run_view.h"
#include "sim/exec/simulator.h"
#include "sim/exec/warp.h"
#include "sim/exec/warp_model.h"
#include "sim/ptx/ir.h"
#include "sim/exec/scheduler.h"

namespace synclab::sim {

class Simulator;
class PerfCounters;

// Sets Instr::exec and Instr::fast for every instruction of a function (called once when its
// module is loaded). fast = false (SYNCLAB_FAST=0) leaves every instruction to the general
// interpreter: no arithmetic handlers, no row forms of ld/st.
void annotate_for_exec(ptx::Function& fn, bool fast);
// The interpreter's handler for an arithmetic instruction of a common form (Instr::fast), or 0.
uint8_t fast_handler_index(const ptx::Instr& I);

class KernelRun final : private RunView {
 public:
  // sched: the launch's scheduling policy (SimulatorParts::scheduler).
  KernelRun(Simulator& sim, const LoadedModuleView& mod, const LaunchParams& p, const Config& cfg,
            const DeviceProfile& prof, std::unique_ptr<Scheduler> sched, uint64_t time_base_ns = 0);
  ~KernelRun();
  KernelRun(const KernelRun&) = delete;
  KernelRun& operator=(const KernelRun&) = delete;
  LaunchResult run();

  using Group = sim::Group;

  // What the warp models (warp_model.h) ask of the run: they decide which lanes run, and tell the
  // run when lanes loop, meet at a warp-synchronous instruction or leave; they see nothing else.
  const ptx::Function& function(uint32_t func) const { return M_.functions[func]; }
  // func is the kernel itself (its ret ends the thread).
  bool is_kernel(uint32_t func) const { return func == static_cast<uint32_t>(p_.function); }
  // Lanes' own PCs are authoritative right now (a converged warp's one PC is not).
  bool lane_pcs_live() const { return now_.lane_pcs_live; }
  // Lockstep: the taken side of a divergent branch runs first (Config::lockstep_taken_first).
  bool lockstep_taken_first() const { return cfg_.lockstep_taken_first; }
  // ITS under random or pct: a converged warp's memory access may run its lanes at two times;
  // split_draw says when and how, from the seed and the step (0: not now).
  bool splits_warps() const { return split_warps_; }
  uint64_t split_draw(const Warp& w) const;
  // The scheduler's pick among the warp's groups of lanes (Scheduler::pick_group); whether the
  // group picked had yielded, and whether every group had.
  struct GroupPick {
    size_t index;
    bool yielded, all_yielded;
  };
  GroupPick pick_group(const Warp& w, const std::vector<Group>& groups);
  std::vector<Group>& group_scratch() { return scratch_.groups; }
  // Lanes `lanes` of w took a backward branch to (func, pc): a spin check when nothing visible
  // has changed for a while (progress.cpp).
  void looped(Warp& w, uint32_t lanes, uint32_t func, uint32_t pc) {
    if (listen_.list.progress().suspicious()) check_progress(w, lanes, func, pc);
  }
  // A warp-synchronous instruction's member mask (its last operand) for a lane, and the sync
  // checker's hearing of it (member_masks_heard: whether it listens).
  uint32_t member_mask_of(Warp& w, int lane, const ptx::Instr& I) {
    return static_cast<uint32_t>(operand(w, lane, I.src[I.nsrc - 1]));
  }
  bool member_masks_heard() const { return listen_.sync; }
  void member_mask_heard(const Warp& w, int lane, uint32_t member, uint32_t here, const ptx::Instr& I, bool lockstep) {
    listen_.list.member_mask(w, lane, member, here, I, lockstep);
  }
  // Lanes `lanes` met at a __syncwarp() or a shuffle: memory is ordered among them.
  void warp_synced(Warp& w, uint32_t lanes);
  // Lanes that waited at a warp-synchronous instruction go on.
  void warp_sync_resumed(const Warp& w, uint32_t lanes) { listen_.list.warp_sync_resumed(w, lanes); }
  // Executes a warp-synchronous instruction other than bar.warp.sync (shfl, vote, match, redux,
  // elect) for lanes `act` (instr/warp_ops.cpp).
  void exec_warp_op(Warp& w, uint32_t act, const ptx::Instr& I);
  // Lanes `mask` of group g exit now (control_flow.cpp).
  template <class M>
  void exit_lanes(Warp& w, const Group& g, uint32_t mask);
  // The launch ends with a fault at lane `lane`'s instruction I.
  void model_fault(Warp& w, int lane, const ptx::Instr& I, const std::string& title, const std::string& details) {
    fault(w, lane, I, LaunchStatus::Fault, title, details);
  }

 private:
  // Dispatch and the main loop (kernel_run.cpp).
  void dispatch_ctas();
  void start_cta(uint64_t linear);
  void retire_cta(Cta& cta);
  template <class M>
  void step_loop();
  // Every warp's lane PCs written into its lanes, under the launch's model (for reports).
  void materialize_all();

  // The dispatcher (instr/dispatch.cpp): runs the group's instruction, returns its Instr::exec
  // flags. A fault sets stop_ and ends the run.
  template <class M>
  uint8_t execute(Warp& w, const Group& g);
  template <class M>
  void execute_general(Warp& w, const Group& g, const ptx::Instr& I);
  template <class M>
  void fall_off(Warp& w, const Group& g);
  template <class M>
  void exec_instr(Warp& w, const Group& g, const ptx::Function& fn, const ptx::Instr& I);

  // Control flow and barriers both models share (control_flow.cpp).
  template <class M>
  void call(Warp& w, const Group& g, uint32_t mask, const ptx::Function& fn, const ptx::Instr& I);
  template <class M>
  void call_one(Warp& w, const Group& g, uint32_t mask, const ptx::Function& fn, const ptx::Instr& I, uint32_t callee,
                bool set_return_pc);
  template <class M>
  void ret(Warp& w, const Group& g, uint32_t mask);
  template <class M>
  void block_at_barrier(Warp& w, const Group& g, uint32_t mask, const ptx::Instr& I);
  template <class M>
  void try_release_barrier(Cta& cta, uint32_t id);

  // Memory (instr/memory.cpp): translate a device address to host memory, or fault.
  uint8_t* translate(Warp& w, int lane, ptx::Space space, uint64_t addr, uint32_t size, bool write, const ptx::Instr& I,
                     uint64_t* generic_out = nullptr);
  // A lane changed memory at addr (from old to now, `size` bytes; 0: not tracked): records the
  // writer and moves the hang detector's epoch, or only tentatively (lane_change).
  void note_write(Warp& w, int lane, uint64_t addr, const ptx::Instr& I, uint64_t old = 0, uint64_t now = 0,
                  uint32_t size = 0, bool atomic = false);
  // Whether a lane's change of a word is visible now (the caller moves the epoch) or tentative:
  // the first change by an atomic (may_open) since the lane's last visible change, or any change of
  // that same word, which a later one may undo (a lock taken, then released) (hang_detector.h).
  bool lane_change(Warp& w, int lane, uint64_t addr, uint64_t old, uint64_t now, uint32_t size, bool may_open);
  uint8_t* fast_ptr(Warp& w, ptx::Space sp, uint64_t addr, uint32_t size, bool write, uint64_t* generic);
  bool row_span(Warp& w, uint32_t act, ptx::Space sp, const uint64_t* A, uint64_t off, uint64_t* X, uint32_t size,
                bool write, uint64_t* host_off, uint64_t* gen_off);
  bool ld_rows(Warp& w, uint32_t act, const ptx::Instr& I, uint32_t es);
  bool st_rows(Warp& w, uint32_t act, const ptx::Instr& I, uint32_t es);

  // Reports.
  void fault(Warp& w, int lane, const ptx::Instr& I, LaunchStatus status, const std::string& title,
             const std::string& details);
  // The fault is cooperative_groups' grid sync failing in a launch that is not cooperative.
  bool grid_sync_fault(const ptx::Instr& I, LaunchStatus status) const;
  // What a listener reads of the run (run_view.h), and the view to hand it.
  const RunView& view() const { return *this; }
  const LaunchParams& launch() const override { return p_; }
  const LoadedModuleView& loaded_module() const override { return mod_; }
  const std::vector<Warp*>& resident_warps() const override { return warps_; }
  const LaunchShape& shape() const override { return shape_; }
  uint64_t steps() const override { return clock_.steps; }
  const ptx::Module& module() const override { return M_; }
  const std::string& kernel_name() const override { return entry_.name; }
  uint32_t current_loc() const override { return now_.loc; }
  uint64_t seed() const override { return cfg_.seed; }
  const Config& config() const override { return cfg_; }
  const DeviceMemory& device_memory() const override { return sim_.memory(); }
  const ConsistencyModel* relaxed_model() const override { return mm_.relaxed; }
  uint64_t read_version(int lane) const override { return mm_.read_version[lane]; }
  uint64_t write_version(int lane) const override { return mm_.write_version[lane]; }
  bool mbarriers_used() const override { return async_.mbarriers_used; }
  SourceLoc where(const ptx::Instr& I) const override;
  std::string lane_name(const Warp& w, int lane) const override;
  std::string replay_line() const override;
  void report_deadlock();
  void report_hang(bool simt_deadlock, bool lock_traffic = false);
  // What the innermost loop around an instruction reads (loop_reads).
  enum class LoopReads { Memory, WarpOnly, Nothing };
  static LoopReads loop_reads(const ptx::Function& fn, uint32_t pc);
  void report_interrupted();
  std::string describe_lanes(Report& r,
                             const std::function<std::string(const Warp&, int, const std::string&)>& describe);
  bool check_progress(Warp& w, uint32_t lanes, uint32_t func, uint32_t pc);

  // Device printf and assert (instr/builtins.cpp).
  int do_vprintf(Warp& w, int lane, uint64_t fmt, uint64_t args, const ptx::Instr& I);
  void do_assertfail(Warp& w, int lane, uint64_t msg, uint64_t file, uint32_t line, uint64_t func, const ptx::Instr& I);
  std::string read_cstring(Warp& w, int lane, uint64_t addr, const ptx::Instr& I);

  uint64_t special(const Warp& w, int lane, ptx::SReg r) const;
  uint64_t operand(Warp& w, int lane, const ptx::Operand& o);
  uint64_t address(Lane& L, const ptx::Operand& o) const;
  uint32_t guard_mask(Warp& w, uint32_t mask, const ptx::Instr& I);
  bool store_bytes(Warp& w, int lane, ptx::Space sp, uint64_t addr, const void* src, uint32_t size,
                   const ptx::Instr& I);
  bool load_bytes(Warp& w, int lane, ptx::Space sp, uint64_t addr, void* dst, uint32_t size, const ptx::Instr& I);
  uint8_t* param_ptr(Warp& w, int lane, const ptx::Function& fn, const ptx::Operand& o, uint32_t size,
                     const ptx::Instr& I);
  void exec_ld(Warp& w, uint32_t act, const ptx::Function& fn, const ptx::Instr& I);
  void exec_st(Warp& w, uint32_t act, const ptx::Function& fn, const ptx::Instr& I);
  void exec_atom(Warp& w, uint32_t act, const ptx::Instr& I);
  template <class T>
  void atom_lanes(Warp& w, uint32_t act, const ptx::Instr& I);
  // Asynchronous copies and mbarriers (instr/async.cpp). A cp.async is kept with its thread until
  // it completes (cp.async.wait_group / wait_all, cp.async.mbarrier.arrive, the thread's exit);
  // then its source is read and its destination written, as a load and a store of that thread at
  // the cp.async's line would.
  void exec_cp_async(Warp& w, uint32_t act, const ptx::Instr& I);
  void exec_cp_async_group(Warp& w, uint32_t act, const ptx::Instr& I);  // commit_group, wait_group, wait_all
  void exec_cp_async_mbar_arrive(Warp& w, uint32_t act, const ptx::Instr& I);
  // Returns the lanes whose wait (test_wait / try_wait) found the phase incomplete again with nothing
  // visible changed since their last such wait here: they stay at the wait (a spin on the mbarrier).
  uint32_t exec_mbarrier(Warp& w, uint32_t act, const ptx::Instr& I);
  void exec_unsupported(Warp& w, uint32_t act, const ptx::Instr& I);
  // Performs the lane's pending copies of the groups before `before` (~0: every one, committed
  // or not), in the order they were issued. False when one faulted (the launch ends).
  bool complete_async(Warp& w, int lane, uint64_t before);
  // Before lanes exit: their copies still pending complete.
  void complete_async_at_exit(Warp& w, uint32_t mask);
  // An arrive-on of the mbarrier at `addr` (I.space) by a lane: `count` arrivals, `drop` lowers the
  // expected count too, `tx` is added to the transaction count; counts false: a release that
  // leaves the counts alone (cp.async.mbarrier.arrive without .noinc). Returns the state token,
  // or nothing when the lane faulted.
  bool mbar_arrive(Warp& w, int lane, const ptx::Instr& I, uint64_t addr, uint32_t count, bool drop, int64_t tx,
                   bool counts, uint64_t* token);
  struct AsyncCopy {
    uint32_t loc;    // (function << 20) | pc of the cp.async
    uint64_t group;  // the commit group it belongs to (the thread's commit count when issued)
    uint64_t dst;    // shared-memory offset
    uint64_t src;    // global address
    uint32_t size, src_size;
  };
  struct AsyncThread {
    std::vector<AsyncCopy> copies;
    uint64_t committed = 0;  // cp.async.commit_group count
  };
  struct MbarPoll {
    uint32_t loc = ~0u;  // the wait instruction
    uint64_t epoch = 0;  // HangDetector::epoch() when it last found the phase incomplete
  };
  void exec_alu(Warp& w, uint32_t act, const ptx::Instr& I);
  bool fast_alu(Warp& w, uint32_t act, const ptx::Instr& I);
  void gather(Warp& w, uint32_t act, const ptx::Operand& o, uint64_t* out);
  void exec_builtin_call(Warp& w, uint32_t act, const ptx::Function& caller, const ptx::Function& callee,
                         const ptx::CallSite& cs, const ptx::Instr& I);
  // Lanes of one store writing the same bytes (lane l at G[l] + g_off, the row form's addresses,
  // or, with G null, computed from the instruction): the listeners hear of the first such address
  // (RunObserver::store_collision).
  void find_store_collision(Warp& w, uint32_t act, const ptx::Instr& I, uint32_t bytes, const uint64_t* G,
                            uint64_t g_off);
  // Under the relaxed model: the word (`size` bytes, one element of the model) the device is about
  // to access holds what host threads wrote; the model takes those writes as the host's.
  void host_word(Warp& w, uint64_t generic, uint32_t size, const uint8_t* p) {
    if (mm_.relaxed) mm_.relaxed->host_word(mm_key(w, generic), size, p, clock_.steps);
  }
  std::string describe_address(uint64_t addr, bool shared, uint64_t cta) const override;
  // The listeners hear the reports raised since they last heard.
  void observe_reports();
  // A load or store of a shared or global address happened (the listeners hear of it; a row form's
  // lanes go to ObserverList::rows).
  void accessed(Warp& w, int lane, uint64_t generic, uint32_t size, bool write, const ptx::Instr& I, uint64_t value);
  double sim_ns() const;

  Simulator& sim_;
  const LoadedModuleView& mod_;
  const ptx::Module& M_;
  LaunchParams p_;
  Config cfg_;
  const DeviceProfile& prof_;
  const ptx::Function& entry_;
  std::unique_ptr<Scheduler> sched_;
  RoundRobinScheduler* rr_ = nullptr;  // sched_ when it is round robin (called directly)
  Scheduler* replay_ = nullptr;        // sched_ when it follows a schedule file (SYNCLAB_SCHED=replay)
  struct CodeRef {
    const ptx::Instr* code;
    uint32_t size;
  };
  std::vector<CodeRef> code_;   // per function: its instructions (for the step loop)
  bool sched_on_step_ = false;  // sched_ wants on_step

  LaunchShape shape_;         // the launch's shape and shared-memory layout (run_view.h)
  std::vector<Warp*> warps_;  // resident warps (scheduler's view)

  LaunchResult result_;
  bool stop_ = false;
  // sm_80+: the shared memory the system reserves for each block (cudaDevAttrReservedSharedMemoryPerBlock,
  // 1 KB; %reserved_smem_offset_*), placed after the kernel's own when its code reads those registers
  // (LaunchShape::reserved_smem_base).
  static constexpr uint64_t kReservedSmemBytes = 1024;
  const std::vector<uint8_t>& clock_fed(uint32_t func);
  bool split_warps_ = false;  // splits_warps()
  // The memory model (sim/memory/memory_model.h): sc or relaxed, the one that picks what each load
  // reads and where each store goes in coherence order. mm_.relaxed is it under SYNCLAB_MEMORY=relaxed
  // and null under sc, whose accesses take the interpreter's fast paths and never call it. Its
  // thread for lane `lane` of warp w: under lockstep the warp (its lanes execute in lockstep and see
  // one another's accesses), under its the lane.
  MemThread mm_thread(const Warp& w, int lane) const {
    const uint64_t base = w.cta->linear * shape_.threads_per_block;
    return {base + (warp_is_unit(cfg_.model) ? w.index * 32 : w.lanes[lane].tid_linear), w.cta->linear, false};
  }
  // SYNCLAB_MEMORY_CHECK=1: the oracle checks the launch's recorded execution (a report if the
  // PTX model's axioms forbid it).
  void check_memory_model();
  // The key of a shared or global location for the memory model (shared memory is per block).
  uint64_t mm_key(const Warp& w, uint64_t generic) const { return location_key(w, generic); }
  void relaxed_fence(Warp& w, uint32_t act, const ptx::Instr& I);
  // Load buffering: runs the early part of a plan (true: the group stays at the load), and later the
  // held-back part (run_late).
  template <class M>
  bool reorder_load(Warp& w, const Group& g, const ptx::Function& fn, const ptx::Instr& I);
  template <class M>
  void run_late(Warp& w, const Group& g, const ptx::Function& fn, const ptx::Instr& I);
  // Whether no thread of w's block but the lanes `plan` of w may release from now on: each has
  // exited or is about to run an instruction from which no release is reachable
  // (ptx::Instr::kExecNoReleaseFrom).
  bool block_releases_no_more(const Warp& w, uint32_t plan) const;
  // Whether every thread of w's block but the lanes `plan` of w has exited or ends with its next
  // instruction (a ret or exit of the kernel).
  bool block_exiting(const Warp& w, uint32_t plan) const;
  void run_one(Warp& w, uint32_t mask, const ptx::Function& fn, uint32_t func, uint32_t pc);
  void relaxed_load(Warp& w, int lane, uint64_t generic, uint8_t* bytes, uint32_t size, const ptx::Instr& I);
  // A load's memory order for the model (no_acquire_after and no_release_after under independent
  // thread scheduling, where each lane is a thread of its own).
  MemOrder load_order(const ptx::Instr& I) const {
    MemOrder o{I.sem, I.scope};
    o.no_acquire_after = cfg_.model == WarpModel::Its && (I.exec & ptx::Instr::kExecNoAcquireAfter);
    o.no_release_after = cfg_.model == WarpModel::Its && (I.exec & ptx::Instr::kExecNoReleaseAfter);
    return o;
  }
  void relaxed_store(Warp& w, int lane, uint64_t generic, uint8_t* bytes, const uint8_t* memory, uint32_t size,
                     const ptx::Instr& I);
  // What the model did to the accesses of one instruction, kept (only while the recorder or the
  // counters listen) until the listeners have heard the accesses, then told them (flush_memory_model).
  struct ModelNote {
    int lane;
    trace::MemoryModelKind kind;
    uint32_t size;
    uint64_t generic, value;
  };
  void note_load(int lane, uint64_t generic, uint32_t size, uint64_t stale_before, uint64_t newest) {
    if (mm_.relaxed->stale_reads() != stale_before)
      mm_.notes.push_back({lane, trace::MemoryModelKind::StaleRead, size, generic, newest});
  }
  void note_store(const Warp& w, int lane, uint64_t generic, uint32_t size, bool newest, uint64_t value, uint64_t kept);
  void flush_memory_model(const Warp& w);
  mutable bool envreg_read_ = false;  // the kernel read the grid-sync workspace registers
  bool null_page_fault_ = false;      // the fault being reported is an access below 4096

  // The run's state, part by part.
  // Block dispatch onto the SMs (kernel_run.cpp).
  struct Dispatch {
    uint64_t next = 0, retired = 0;              // blocks started, blocks done
    std::vector<uint32_t> sm_load;               // resident blocks per SM
    std::vector<std::unique_ptr<Cta>> resident;  // the blocks resident now
    std::vector<std::unique_ptr<Cta>> pool;      // retired blocks, reused by later ones
    uint32_t next_warp_serial = 0;               // Warp::global_index of the next warp
    std::vector<uint32_t> perm;                  // random dispatch: the order blocks start in
    bool reverse = false;                        // reverse dispatch
    uint64_t grid_workspace = 0;                 // cooperative launches: grid barrier words
  } dispatch_;
  // What executes now.
  struct Now {
    Warp* warp = nullptr;        // the warp whose group executes
    uint32_t loc = 0;            // (function << 20) | pc of the instruction executing
    bool lane_pcs_live = false;  // lanes' own PCs are authoritative right now
  } now_;
  // The run's clocks.
  struct Clock {
    uint64_t steps = 0;                                // warp steps so far
    uint64_t instrs = 0;                               // thread-instructions executed
    std::vector<uint64_t> sm_steps;                    // per SM: its warp steps (SM cycles)
    std::chrono::steady_clock::time_point wall_start;  // when the step loop began
    uint64_t time_base_ns = 0;                         // simulated time before this launch
    uint64_t clock_base = 0;                           // SM clock cycles before this launch
  } clock_;
  // Progress checks (progress.cpp), which read the progress detector (hang_detector.h).
  struct Progress {
    bool host_grace_started = false;  // waiting on mapped memory the host may still write
    std::chrono::steady_clock::time_point host_grace_since;
    // Relaxed memory: the epoch that began when the last suspected hang settled memory; the same
    // for a hang of lanes that only wait (check_progress).
    uint64_t settled_epoch = UINT64_MAX, settled_net_epoch = UINT64_MAX;
    // Per function: the registers the clock feeds (empty when none), computed once.
    std::vector<std::pair<bool, std::vector<uint8_t>>> clock_fed;
    uint64_t last_overdue_step = 0;  // the last check found overdue (check_progress)
  } progress_;
  // Who listens (run_observer.h), in this order: the progress detector (hang_detector.h, always),
  // the trace recorder (SYNCLAB_TRACE), the performance counters (SYNCLAB_PROFILE), the init, race
  // and sync checkers (SYNCLAB_CHECK).
  struct Listening {
    Listening(const uint64_t* steps, uint64_t quiet_steps) : list(steps, quiet_steps) {}
    ObserverList list;
    bool any = false;                  // someone listens besides the progress detector
    bool watched = false;              // the recorder or the counters (they hear the memory model too)
    bool steps = false;                // someone hears every step (RunObserver::kSteps)
    bool race = false;                 // the race checker listens (store collisions are looked for)
    bool sync = false;                 // the sync checker listens (member masks are read)
    PerfCounters* counters = nullptr;  // among the listeners under SYNCLAB_PROFILE
    size_t reports_heard = 0;          // the launch's reports the listeners have heard
  } listen_;
  // The memory model (sim/memory/memory_model.h): sc or relaxed, the one that picks what each load
  // reads and where each store goes in coherence order.
  struct MemoryModelState {
    std::unique_ptr<ConsistencyModel> model;
    // The model under SYNCLAB_MEMORY=relaxed; null under sc, whose accesses take the interpreter's
    // fast paths and never call it.
    ConsistencyModel* relaxed = nullptr;
    // What the model did to the accesses of one instruction, kept (only while a trace is recorded)
    // until the listeners have heard the accesses, then told them (flush_memory_model).
    std::vector<ModelNote> notes;
    // Per lane, the model's versions of the write its last load read and of the write its last
    // store made (ConsistencyModel::read_version), for the race checker (RunView::read_version).
    uint64_t read_version[32] = {}, write_version[32] = {};
    std::string proxy_not_covered;  // a proxy fence ran (reported as not covered)
  } mm_;
  // Asynchronous copies and mbarriers (instr/async.cpp).
  struct AsyncState {
    std::unordered_map<uint64_t, AsyncThread> threads;  // by thread: block * threads per block + thread
    uint64_t pending = 0;                               // copies pending in all threads
    bool mbarriers_used = false;                        // the launch executed an mbarrier instruction
    std::unordered_map<uint64_t, MbarPoll> polls;       // by thread, as threads
  } async_;
  // Buffers the step loop reuses.
  struct Scratch {
    std::vector<Group> groups;
    std::vector<uint32_t> masks, tids;
    std::vector<bool> yielded;
  } scratch_;
};

}  // namespace synclab::sim
