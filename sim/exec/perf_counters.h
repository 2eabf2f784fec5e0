// Performance counters (SYNCLAB_PROFILE, `synclab-run --profile`): a listener of a kernel run
// (run_observer.h) that counts, per launch, what Nsight Compute would report for the same kernel
// on a GPU, so that a student without a GPU can see why a kernel would be slow:
//   - global memory: requests (one per warp-level load or store instruction) and the 32-byte
//     sectors they touch, loads and stores apart (ideal: the bytes the lanes asked for, in whole
//     sectors);
//   - shared memory: requests and wavefronts (one per pass through the 32 four-byte banks: a
//     request whose lanes touch k different words of one bank needs k; lanes reading the same word
//     share it), and the bank conflicts (wavefronts beyond the ideal: the distinct words, 32 to a
//     wavefront);
//   - atomics: requests, lane operations, the address most of them hit and how many lanes of one
//     request hit one address at once;
//   - warp execution efficiency: active lanes per issued warp instruction (the simulator issues
//     PTX instructions, a GPU SASS ones: the counts differ, the ratio is comparable);
//   - barriers: warp arrivals and block releases, and the cycles warps wait at them for their
//     block's slowest warp (by the estimate's latencies);
//   - spin waits: loop rounds that came back to their loop head with every register of their
//     thread unchanged (they waited for another thread; they did no work), the thread
//     instructions they issued, and the loop that made the most.
// The lines with the most excess (sectors or wavefronts beyond the ideal) are listed with their
// source line. docs/profile.md says how each count is defined and how it compares with `ncu`
// (tests/profile/gpu-results/ holds the comparison on an H200).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/exec/profile.h"
#include "sim/exec/run_observer.h"

namespace synclab::sim {

// The counts of one launch, as numbers (LaunchResult::profile) and as text (render()).
struct PerfSummary {
  std::string kernel;
  Dim3 grid, block;
  struct Memory {
    uint64_t requests = 0;
    uint64_t units = 0;  // sectors (global) or wavefronts (shared)
    uint64_t ideal = 0;  // the fewest units the same bytes could take
    double per_request() const { return requests ? double(units) / double(requests) : 0.0; }
    uint64_t excess() const { return units > ideal ? units - ideal : 0; }
  };
  Memory global_ld, global_st, shared_ld, shared_st;
  struct Atomics {
    uint64_t requests = 0, lane_ops = 0;
    uint64_t serialized = 0;  // per request, the most lanes on one address, summed
    uint64_t top_address = 0, top_count = 0;
    bool top_shared = false;
    std::string top_line;  // the instruction that made the most of those
  };
  Atomics global_atom, shared_atom;
  uint64_t warp_instructions = 0, thread_instructions = 0;
  uint64_t barrier_arrivals = 0, barrier_releases = 0;
  // Per barrier phase, for each warp that arrived, the slowest warp's chain minus its own (cycles,
  // the estimate's latencies), summed.
  uint64_t barrier_wait_cycles = 0;
  // Lane rounds of a loop that came back to their loop head with every register unchanged, and the
  // thread instructions of those rounds; the loop head with the most such rounds (its source line).
  uint64_t spin_rounds = 0, spin_thread_instructions = 0;
  std::string spin_top_line;
  uint64_t spin_top_rounds = 0;
  uint64_t warps_launched = 0;  // the launch's warps (grid x warps per block)
  // Contention (the estimate's chain): atomic requests that changed a global word and waited behind
  // the tries other warps had queued at its unit, the cycles they waited, and the line of the
  // instruction that waited longest in all.
  uint64_t contended_requests = 0, contended_cycles = 0;
  std::string contended_top_line;

  // An estimate of the launch's time on the device profile (docs/profile.md, "An estimated time"),
  // the sum of: a fixed launch cost; what the SMs the grid occupies must get through (DRAM traffic
  // of the distinct sectors, the sectors through L1, the instructions issued, the shared-memory
  // wavefronts); the longest chain of latencies (a warp's own, joined at barriers and at hand-overs
  // through memory: a read waits for the write it read) times the waves of blocks; the atomics on
  // the busiest address one after another. Microseconds.
  uint64_t global_sectors_distinct = 0;  // the distinct sectors the launch touched (its footprint)
  struct Estimate {
    double launch_us = 0, dram_us = 0, l1_us = 0, issue_us = 0, shared_us = 0, atomic_us = 0, path_us = 0;
    uint64_t instructions = 0;  // the warp instructions the issue term counts (waiting rounds left out)
    double total_us() const;
    const char* bound() const;  // which part is the largest: the pipes, the chain or the atomics
  };
  Estimate estimate;
  struct Line {
    std::string where;  // file:line (or "ptx line N")
    const char* what;   // "global loads", "shared stores", ...
    Memory m;
  };
  std::vector<Line> worst;  // the lines with the most excess, most first (at most 5)

  double threads_per_instruction() const {
    return warp_instructions ? double(thread_instructions) / double(warp_instructions) : 0.0;
  }
  std::string render() const;    // the text SYNCLAB_PROFILE=1 prints
  std::string headline() const;  // one line: the kernel, its estimated time and its worst line
  std::string json() const;      // one JSON object (one line)
};

class PerfCounters final : public RunObserver {
 public:
  // blocks_per_sm: how many of the launch's blocks an SM holds at once (the waves of the estimate).
  PerfCounters(const ptx::Module& module, const std::string& kernel, Dim3 grid, Dim3 block, const DeviceProfile& device,
               uint32_t blocks_per_sm);
  void launch_begin() override {}
  void step(const Warp& w, const Group& g) override;
  void access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t value,
              const ptx::Instr& I) override;
  void atomic(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t old, uint64_t nw,
              const ptx::Instr& I) override;
  void mbarrier_wait(const Warp& w, int lane, uint64_t generic, uint64_t value, bool complete,
                     const ptx::Instr& I) override;
  void memory_model(const Warp&, int, trace::MemoryModelKind, uint64_t, uint64_t, uint32_t) override {}
  void memory_visible(uint64_t) override {}
  void fence(const Warp& w, uint32_t act, const ptx::Instr& I) override;
  void barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes, const BarrierArrival&) override;
  void barrier_release(const Cta& c, uint32_t id, uint32_t arrived, const std::vector<uint32_t>&) override;
  void lanes_exited(const Warp& w, uint32_t lanes) override;
  void report(const Report&) override {}
  // The count ends with the step loop: the summary is made then (the run reads it afterwards).
  void finish_reports() override;

  const PerfSummary& summary() const { return summary_; }

  // The counts of one request (exposed for tests): `accesses` are (address, bytes) pairs of the
  // lanes of one warp-level instruction. Global: 32-byte sectors touched and the ideal; shared:
  // wavefronts and the ideal (addresses are offsets in the block's shared memory).
  static void global_request(const std::vector<std::pair<uint64_t, uint32_t>>& accesses, uint64_t* sectors,
                             uint64_t* ideal);
  static void shared_request(const std::vector<std::pair<uint64_t, uint32_t>>& accesses, uint64_t* wavefronts,
                             uint64_t* ideal);

 private:
  void finish_request();
  std::string line_of(const ptx::Instr& I) const;

  void estimate();

  const ptx::Module& module_;
  const DeviceProfile& device_;
  uint32_t blocks_per_sm_;
  PerfSummary summary_;
  // The request being collected: one instruction of one warp step.
  const ptx::Instr* cur_ = nullptr;
  const Warp* cur_warp_ = nullptr;
  uint64_t cur_cta_ = 0;
  bool cur_write_ = false, cur_atomic_ = false;
  std::vector<std::pair<uint64_t, uint32_t>> global_, shared_;
  // Per instruction: its memory counts (for the worst lines).
  struct PerInstr {
    PerfSummary::Memory global, shared;
    bool write = false;
  };
  std::unordered_map<const ptx::Instr*, PerInstr> per_instr_;
  // Atomic lane operations per address (shared addresses keyed with their block) and per
  // (address, instruction) for the line that made them.
  std::unordered_map<uint64_t, uint64_t> atom_count_;
  std::unordered_map<uint64_t, const ptx::Instr*> atom_instr_;
  // Per address, the atomics its unit performs one after another (the estimate's atomics term), and
  // the current request's addresses (keyed as atom_count_).
  std::unordered_map<uint64_t, uint64_t> atom_serial_;
  std::vector<uint64_t> atom_keys_;
  // The sectors touched so far (a sector's first touch is DRAM traffic, later ones cache hits).
  std::unordered_set<uint64_t> sectors_seen_;
  // The chain of latencies (docs/profile.md, "An estimated time"): per barrier (block << 4 | id),
  // the latest arrival of its current phase (each warp's clock is in its WarpState, below).
  std::unordered_map<uint64_t, uint64_t> phase_max_;
  // Hand-overs through memory: per four-byte word (shared words keyed with their block, as
  // atom_count_), when its last write reached the point where reads meet it (L2, or the block's
  // shared memory) and which warp wrote it; per word, when its atomic unit is free again.
  struct Written {
    uint64_t at = 0, warp = 0;
  };
  std::unordered_map<uint64_t, Written> written_;
  std::unordered_map<uint64_t, uint64_t> unit_free_;
  // Contention (docs/profile.md, "An estimated time"): per global word, the warps whose last
  // atomic request on it had lanes that left it as it was (a failed compare-and-swap: a try), with
  // those lanes and the cycles between their tries (the way there and back, and what the warp slept
  // before the try); per warp, the cycles it slept (nanosleep) since its last atomic request. The
  // current request's lanes that tried, by word.
  struct Trying {
    uint64_t lanes = 0, period = 0;
  };
  std::unordered_map<uint64_t, std::unordered_map<uint64_t, Trying>> trying_;
  std::unordered_map<uint64_t, uint64_t> slept_;
  std::vector<uint64_t> try_keys_;
  std::unordered_map<const ptx::Instr*, uint64_t> contended_by_instr_;
  // The cycles a request that changes word `key` waits behind the tries of the other warps
  // trying it (`me` left out).
  uint64_t queued_tries(uint64_t key, uint64_t me) const;
  // The current atomic request: whether it returns a value the warp waits for (atom, not red or an
  // mbarrier arrival) and whether any lane changed its word (a compare-and-swap that failed, or an
  // atomicOr of a bit already set, hands nothing over and, like a poll, does not hold the unit).
  bool cur_returns_ = false, cur_wrote_ = false;
  bool cur_waiting_ = false;  // an mbarrier wait whose lanes all found the phase incomplete
  // Spin waits: per lane (keyed by warp), where it last ran, the loop head it last came back to
  // with its registers' fingerprint there, and the instructions it ran since; rounds per loop head.
  struct LaneLoop {
    uint32_t func = ~0u, pc = 0, head_func = ~0u, head_pc = 0;
    uint64_t head_hash = 0, since = 0;
    uint64_t head_clock = 0;  // the warp's clock when the lane came back to the head last
  };
  std::unordered_map<uint64_t, uint64_t> spin_heads_;  // func << 32 | pc -> rounds
  // The work of rounds in which every lane only waited (the estimate's pipes leave it out: how many
  // such rounds run is the schedule's).
  struct RoundWork {
    uint64_t instructions = 0, sectors = 0, wavefronts = 0;
  };
  RoundWork spin_work_;
  // Per warp (warp_key): the cycle its chain has reached since the launch began, the work of its
  // current loop round, and its lanes' loops.
  struct WarpState {
    uint64_t clock = 0;
    RoundWork round;
    std::array<LaneLoop, 32> loops;
  };
  std::unordered_map<uint64_t, WarpState> warps_;
  static uint64_t warp_key(const Warp& w) { return (w.cta->linear << 16) | w.index; }
  WarpState& state_of(const Warp& w) { return warps_[warp_key(w)]; }
  uint64_t& clock_of(const Warp& w) { return state_of(w).clock; }
  // Notes the loop rounds of the step; true when every lane ran the same instruction again (a wait).
  bool loop_rounds(WarpState& state, const Warp& w, const Group& g);
  bool result_used(const ptx::Instr& I);
  uint64_t chain_access(bool shared, uint64_t latency);
  std::unordered_map<const ptx::Instr*, bool> result_used_;
  // Word keys of the current request's accesses (shared words keyed with block `cta`).
  std::vector<uint64_t> word_keys(bool shared) const;
  // A load of `keys` by warp `me` starts no earlier than the newest write of them by another warp
  // reached the point where reads meet it, less the load's way there (`to` cycles).
  void wait_for_writes(uint64_t me, uint64_t& clock, const std::vector<uint64_t>& keys, uint64_t to);
};

}  // namespace synclab::sim
