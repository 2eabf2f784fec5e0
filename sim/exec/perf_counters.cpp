// Performance counters (perf_counters.h).

#include "sim/exec/perf_counters.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <nlohmann/json.hpp>

#include "sim/exec/hang_detector.h"
#include "sim/exec/memory.h"
#include "sim/exec/report.h"

namespace synclab::sim {

namespace {

constexpr uint32_t kSectorBytes = 32;
constexpr uint32_t kBanks = 32, kBankBytes = 4;

// The model's constants (docs/profile.md): what a launch costs before its first instruction, how
// many warp instructions an SM issues a cycle (four schedulers), how many shared-memory wavefronts
// it serves a cycle, the cycles one atomic on an address holds it, and the cycles a barrier costs.
constexpr double kLaunchUs = 2.2;  // an empty kernel <<<66, 128>>> on an H100 (Nsight Compute: 2.18-2.40 us)
constexpr double kIssuePerCycle = 4.0;
constexpr double kWavefrontsPerCycle = 1.0;
constexpr double kL1SectorsPerCycle = 4.0;  // 128 bytes a cycle per SM
constexpr double kAtomicCycles = 2.0;
// Latencies on a warp's chain: a load from DRAM (a sector's first touch), from the caches, from
// shared memory (plus one cycle per wavefront), and a barrier. A load's latency is half the way to
// the point where it meets stores (L2, or the block's shared memory) and half the way back; a
// store reaches that point after the first half, an atomic is served there and its value comes
// back in the second half.
constexpr uint64_t kDramLoadCycles = 500, kCachedLoadCycles = 150, kL2LoadCycles = 290, kSharedLoadCycles = 30,
                   kBarrierCycles = 20;
// A fence at block scope (__threadfence_block()), a fence.sc at GPU or system scope
// (__threadfence(), membar.gl), and a release or acquire fence at GPU or system scope (also before
// a releasing store or read-modify-write at those scopes: st.release.gpu, atom.add.release.gpu).
constexpr uint64_t kFenceCtaCycles = 10, kFenceScCycles = 670, kFenceAcqRelCycles = 670;

uint64_t fence_cycles(ptx::Sem sem, ptx::Scope scope) {
  if (scope == ptx::Scope::Cta) return kFenceCtaCycles;
  return sem == ptx::Sem::Sc ? kFenceScCycles : kFenceAcqRelCycles;
}
constexpr uint64_t kGlobalWayCycles = kL2LoadCycles / 2, kSharedWayCycles = kSharedLoadCycles / 2;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// f(k) for every unit (a sector, a bank's word) of `unit` bytes the accesses touch, repeats included.
template <class F>
void for_each_unit(const std::vector<std::pair<uint64_t, uint32_t>>& accesses, uint32_t unit, F f) {
  for (const auto& [addr, size] : accesses)
    for (uint64_t k = addr / unit; k <= (addr + std::max(size, 1u) - 1) / unit; ++k) f(k);
}

// The distinct keys of `keys` with how often each occurs, in key order; empties `keys`.
std::vector<std::pair<uint64_t, uint64_t>> key_runs(std::vector<uint64_t>& keys) {
  std::sort(keys.begin(), keys.end());
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  for (uint64_t k : keys) {
    if (runs.empty() || runs.back().first != k) runs.push_back({k, 0});
    ++runs.back().second;
  }
  keys.clear();
  return runs;
}

// The bytes the lanes asked for, each byte once.
uint64_t distinct_bytes(std::vector<std::pair<uint64_t, uint32_t>> a) {
  std::sort(a.begin(), a.end());
  uint64_t bytes = 0, covered_to = 0;
  for (const auto& [addr, size] : a) {
    const uint64_t from = std::max(addr, covered_to), to = addr + size;
    if (to > from) bytes += to - from;
    covered_to = std::max(covered_to, to);
  }
  return bytes;
}

}  // namespace

void PerfCounters::global_request(const std::vector<std::pair<uint64_t, uint32_t>>& accesses, uint64_t* sectors,
                                  uint64_t* ideal) {
  std::vector<uint64_t> s;
  s.reserve(accesses.size() * 2);
  for_each_unit(accesses, kSectorBytes, [&](uint64_t k) { s.push_back(k); });
  std::sort(s.begin(), s.end());
  *sectors = uint64_t(std::unique(s.begin(), s.end()) - s.begin());
  *ideal = ceil_div(distinct_bytes(accesses), kSectorBytes);
}

void PerfCounters::shared_request(const std::vector<std::pair<uint64_t, uint32_t>>& accesses, uint64_t* wavefronts,
                                  uint64_t* ideal) {
  // The distinct four-byte words, then per bank how many of them it holds.
  std::vector<uint64_t> words;
  words.reserve(accesses.size() * 4);
  for_each_unit(accesses, kBankBytes, [&](uint64_t k) { words.push_back(k); });
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  uint32_t per_bank[kBanks] = {};
  uint32_t most = 0;
  for (uint64_t w : words) most = std::max(most, ++per_bank[w % kBanks]);
  *wavefronts = most;
  *ideal = ceil_div(words.size(), kBanks);
}

PerfCounters::PerfCounters(const ptx::Module& module, const std::string& kernel, Dim3 grid, Dim3 block,
                           const DeviceProfile& device, uint32_t blocks_per_sm)
    : module_(module), device_(device), blocks_per_sm_(blocks_per_sm) {
  summary_.kernel = kernel;
  summary_.grid = grid;
  summary_.block = block;
  summary_.warps_launched = grid.count() * ((block.count() + 31) / 32);
}

std::string PerfCounters::line_of(const ptx::Instr& I) const {
  if (I.user_line && I.user_file < module_.files.size())
    return fmt::format("{}:{}", module_.files[I.user_file].path, I.user_line);
  return fmt::format("ptx line {}", I.ptx_line);
}

void PerfCounters::finish_request() {
  if (!cur_) return;
  const ptx::Instr& I = *cur_;
  // A releasing access first waits as a release fence of its scope does.
  if (cur_warp_ && (I.sem == ptx::Sem::Release || I.sem == ptx::Sem::AcqRel))
    clock_of(*cur_warp_) += fence_cycles(ptx::Sem::AcqRel, I.scope);
  if (cur_atomic_) {
    // Lanes of one request on one address serialize.
    PerfSummary::Atomics& a = shared_.empty() ? summary_.global_atom : summary_.shared_atom;
    auto& list = shared_.empty() ? global_ : shared_;
    ++a.requests;
    a.lane_ops += list.size();
    std::sort(list.begin(), list.end());
    uint64_t run = 0, most = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      run = (i && list[i].first == list[i - 1].first) ? run + 1 : 1;
      most = std::max(most, run);
    }
    a.serialized += most;
    // The atomics an address's unit performs one after another: a request whose lanes all hit one
    // global address with an operation that combines (add, min, max, and, or, xor, inc, dec) counts
    // once (the H200 combines a warp's atomicAdd(&x, v): docs/profile.md), otherwise each lane
    // counts (shared memory's atomics on one word take their turns).
    const bool combinable = I.aop != ptx::AtomOp::Exch && I.aop != ptx::AtomOp::Cas;  // (nothing combines those)
    // (An mbarrier's arrivals of one warp count as one: the hardware takes a warp's arrivals on one
    // mbarrier together.)
    std::vector<std::pair<uint64_t, uint64_t>> turns = key_runs(atom_keys_);  // per address, its unit's operations
    if (turns.size() == 1 && combinable && (shared_.empty() || I.op == ptx::Op::Mbarrier)) turns[0].second = 1;
    for (const auto& [k, n] : turns) atom_serial_[k] += n;
    const std::vector<std::pair<uint64_t, uint64_t>> tried = key_runs(try_keys_);  // per global word, lanes that tried
    // On the chain: served when the warp's request reaches the word's unit, the unit is free and
    // the word's last plain write of another warp has arrived; a value that comes back is waited for.
    if (cur_warp_) {
      const bool in_shared = !shared_.empty();
      const uint64_t way = in_shared ? kSharedWayCycles : kGlobalWayCycles;
      const uint64_t me = warp_key(*cur_warp_);
      uint64_t& clock = clock_of(*cur_warp_);
      uint64_t served = clock;
      wait_for_writes(me, served, word_keys(in_shared), 0);
      served = std::max(served, clock + way);
      for (const auto& [k, n] : turns)
        if (const auto f = unit_free_.find(k); f != unit_free_.end()) served = std::max(served, f->second);
      if (!in_shared) {
        // A request that changes a global word waits behind the tries queued at its unit, and the
        // warp's lanes that tried join (or leave) the word's waiters.
        uint64_t queued = 0;
        for (const auto& [k, n] : turns) queued = std::max(queued, queued_tries(k, me));
        served += queued;
        if (queued) {
          ++summary_.contended_requests;
          summary_.contended_cycles += queued;
          contended_by_instr_[&I] += queued;
        }
        const uint64_t period = 2 * way + std::exchange(slept_[me], 0);
        for (const auto& [k, n] : turns)
          if (std::none_of(tried.begin(), tried.end(), [k = k](const auto& t) { return t.first == k; })) {
            if (const auto t = trying_.find(k); t != trying_.end()) t->second.erase(me);
          }
        for (const auto& [k, n] : tried) trying_[k][me] = {n, period};
      }
      if (cur_wrote_) {
        for (const auto& [k, n] : turns) {
          unit_free_[k] = served + uint64_t(kAtomicCycles) * n;
          written_[k] = {served, me};
        }
      }
      if (cur_returns_) clock = std::max(clock, served + way);
    }
    if (!global_.empty() && !shared_.empty()) {  // a generic atomic on both (rare): count the global ones too
      ++summary_.global_atom.requests;
      summary_.global_atom.lane_ops += global_.size();
    }
  } else {
    PerInstr& pi = per_instr_[&I];
    pi.write = cur_write_;
    if (!global_.empty()) {
      uint64_t units = 0, ideal = 0;
      global_request(global_, &units, &ideal);
      bool first_touch = false;
      for_each_unit(global_, kSectorBytes,
                    [&](uint64_t k) { first_touch = sectors_seen_.insert(k).second || first_touch; });
      // (a volatile or strong load is served by L2, never by L1: ld.volatile, ld.relaxed/acquire at
      // gpu or system scope)
      const bool strong = !ptx::is_weak(I.sem) && I.scope != ptx::Scope::Cta;
      if (cur_warp_)
        clock_of(*cur_warp_) = chain_access(false, first_touch ? kDramLoadCycles
                                                   : strong    ? kL2LoadCycles
                                                               : kCachedLoadCycles);
      PerfSummary::Memory& m = cur_write_ ? summary_.global_st : summary_.global_ld;
      ++m.requests, m.units += units, m.ideal += ideal;
      if (cur_warp_) state_of(*cur_warp_).round.sectors += units;
      ++pi.global.requests, pi.global.units += units, pi.global.ideal += ideal;
    }
    if (!shared_.empty()) {
      uint64_t units = 0, ideal = 0;
      shared_request(shared_, &units, &ideal);
      if (cur_waiting_)
        spin_work_.wavefronts += units;  // an mbarrier wait that found its phase incomplete: a poll
      else if (cur_warp_)
        clock_of(*cur_warp_) = chain_access(true, kSharedLoadCycles) + units;
      PerfSummary::Memory& m = cur_write_ ? summary_.shared_st : summary_.shared_ld;
      ++m.requests, m.units += units, m.ideal += ideal;
      if (cur_warp_ && !cur_waiting_) state_of(*cur_warp_).round.wavefronts += units;
      ++pi.shared.requests, pi.shared.units += units, pi.shared.ideal += ideal;
    }
  }
  global_.clear();
  shared_.clear();
  cur_ = nullptr;
}

// The current warp's clock after its load or store request (global or shared): a store gets to
// where reads meet it after half a load's way there; a load waits for the writes of other warps
// it reads, then takes `latency` (a store nothing: the warp goes on).
uint64_t PerfCounters::chain_access(bool shared, uint64_t latency) {
  const uint64_t clock = clock_of(*cur_warp_);
  const uint64_t me = warp_key(*cur_warp_);
  const uint64_t way = shared ? kSharedWayCycles : kGlobalWayCycles;
  if (cur_write_) {
    for (uint64_t k : word_keys(shared)) written_[k] = {clock + way, me};
    return clock;
  }
  uint64_t start = clock;
  wait_for_writes(me, start, word_keys(shared), way);
  return start + latency;
}

// Whether any instruction of I's function reads I's destination (an atom whose value nobody
// reads is a reduction: ptxas makes it a RED, and the warp does not wait for it).
bool PerfCounters::result_used(const ptx::Instr& I) {
  if (I.ndst == 0 || I.dst[0].kind != ptx::Operand::Kind::Reg) return false;
  const auto known = result_used_.find(&I);
  if (known != result_used_.end()) return known->second;
  bool used = true;  // (an instruction of no function we know: assume its value is waited for)
  for (const ptx::Function& fn : module_.functions) {
    if (fn.code.empty() || &I < fn.code.data() || &I >= fn.code.data() + fn.code.size()) continue;
    used = std::any_of(fn.code.begin(), fn.code.end(),
                       [&](const ptx::Instr& J) { return ptx::reads_reg(J, I.dst[0].reg); });
    break;
  }
  result_used_.emplace(&I, used);
  return used;
}

std::vector<uint64_t> PerfCounters::word_keys(bool shared) const {
  std::vector<uint64_t> keys;
  const auto& list = shared ? shared_ : global_;
  for_each_unit(list, kBankBytes, [&](uint64_t k) {
    keys.push_back(shared ? (1ull << 63) | (cur_cta_ << 32) | (k * kBankBytes) : k * kBankBytes);
  });
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

void PerfCounters::wait_for_writes(uint64_t me, uint64_t& clock, const std::vector<uint64_t>& keys, uint64_t to) {
  for (uint64_t k : keys) {
    const auto it = written_.find(k);
    if (it != written_.end() && it->second.warp != me && it->second.at > clock + to) clock = it->second.at - to;
  }
}

// A lane that comes back to an instruction at or before the one it ran last (in one function) has
// gone round a loop: when its registers there are those of its last round at the same head, the
// round changed nothing of its own: it waited (a spin on a flag or a lock, a failed try).
bool PerfCounters::loop_rounds(WarpState& state, const Warp& w, const Group& g) {
  std::array<LaneLoop, 32>& loops = state.loops;
  // Every lane runs the instruction it ran last again: it did not advance (a wait inside the
  // instruction, as mbarrier.try_wait's): a round that only waited, at the loop head it had.
  bool again = true;
  for (uint32_t m = g.mask; m && again; m &= m - 1) {
    const LaneLoop& L = loops[size_t(__builtin_ctz(m))];
    again = L.func == g.func && L.pc == g.pc;
  }
  if (again) {
    const uint64_t lanes = uint64_t(__builtin_popcount(g.mask));
    summary_.spin_rounds += lanes;
    summary_.spin_thread_instructions += lanes;
    ++spin_heads_[(uint64_t(g.func) << 32) | g.pc];
    ++spin_work_.instructions;
    return true;
  }
  const size_t nregs = module_.functions[g.func].regs.size() + 1;
  uint64_t& clock = state.clock;
  bool spun = false, worked = false;
  uint64_t round_instructions = 0;  // the warp instructions of the round that waited
  uint64_t round_began = 0;
  uint32_t back = 0;  // the lanes that came back to a loop head
  for (uint32_t m = g.mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    LaneLoop& L = loops[size_t(lane)];
    if (L.func == g.func && g.pc <= L.pc) {
      const uint64_t h = hash_registers(w.regp[lane].base, 32, nregs, g.func, g.pc);
      if (L.head_func == g.func && L.head_pc == g.pc && L.head_hash == h) {
        ++summary_.spin_rounds;
        summary_.spin_thread_instructions += L.since;
        round_instructions = std::max(round_instructions, L.since);
        ++spin_heads_[(uint64_t(g.func) << 32) | g.pc];
        spun = true;
        round_began = std::max(round_began, L.head_clock);
      } else {
        worked = true;
      }
      L.head_func = g.func;
      L.head_pc = g.pc;
      L.head_hash = h;
      L.since = 0;
      back |= 1u << lane;
    }
    L.func = g.func;
    L.pc = g.pc;
    ++L.since;
  }
  // A round that only waited costs the chain nothing: how many rounds a spin goes depends on the
  // schedule; the round that ends the wait (its read of the awaited write) is what counts.
  if (back) {
    RoundWork& work = state.round;
    if (spun && !worked) {
      if (round_began < clock) clock = round_began;
      spin_work_.instructions += round_instructions;
      spin_work_.sectors += work.sectors;
      spin_work_.wavefronts += work.wavefronts;
    }
    work = RoundWork{};
  }
  for (uint32_t m = back; m; m &= m - 1) loops[size_t(__builtin_ctz(m))].head_clock = clock;
  return false;
}

void PerfCounters::step(const Warp& w, const Group& g) {
  finish_request();
  WarpState& state = state_of(w);
  // A nanosleep: how long the warp stays away before its next try (its first lane's argument).
  if (const ptx::Instr& I = module_.functions[g.func].code[g.pc]; I.op == ptx::Op::Nanosleep && g.mask) {
    const ptx::Operand& t = I.src[0];
    const uint64_t ns = t.kind == ptx::Operand::Kind::Imm   ? uint64_t(t.imm)
                        : t.kind == ptx::Operand::Kind::Reg ? uint32_t(w.regp[__builtin_ctz(g.mask)][t.reg])
                                                            : 0;
    slept_[warp_key(w)] += ns * device_.clock_khz / 1'000'000;
  }
  if (!loop_rounds(state, w, g)) ++state.clock;
  ++summary_.warp_instructions;
  summary_.thread_instructions += uint64_t(__builtin_popcount(g.mask));
  cur_warp_ = &w;
}

void PerfCounters::access(const Warp& w, int, uint64_t generic, uint32_t size, bool write, uint64_t,
                          const ptx::Instr& I) {
  // ld.const goes through the constant cache, not L1's global pipe (Nsight Compute counts it apart).
  if (I.space == ptx::Space::Const || I.space == ptx::Space::Param) return;
  if (cur_ != &I || cur_warp_ != &w || cur_atomic_) {
    finish_request();
    cur_ = &I;
    cur_warp_ = &w;
    cur_write_ = write;
    cur_atomic_ = false;
    cur_waiting_ = false;
    cur_cta_ = w.cta->linear;
  }
  if (generic >= kSharedWindow && generic < kLocalWindow)
    shared_.push_back({generic - kSharedWindow, size});
  else if (generic < kSharedWindow)
    global_.push_back({generic, size});
}

// A wait on an mbarrier reads its word; when every lane found the phase incomplete, it waited and
// did nothing else (a try_wait may wait inside the instruction, with no loop round to see).
void PerfCounters::mbarrier_wait(const Warp& w, int lane, uint64_t generic, uint64_t value, bool complete,
                                 const ptx::Instr& I) {
  const bool fresh = cur_ != &I || cur_warp_ != &w || cur_atomic_;
  access(w, lane, generic, 8, false, value, I);
  cur_waiting_ = (fresh || cur_waiting_) && !complete;
}

void PerfCounters::atomic(const Warp& w, int, uint64_t generic, uint32_t size, uint64_t old, uint64_t nw,
                          const ptx::Instr& I) {
  if (cur_ != &I || cur_warp_ != &w || !cur_atomic_) {
    finish_request();
    cur_ = &I;
    cur_warp_ = &w;
    cur_atomic_ = true;
    cur_write_ = true;
    cur_cta_ = w.cta->linear;
    cur_returns_ = I.op == ptx::Op::Atom && result_used(I);
    cur_wrote_ = false;
  }
  cur_wrote_ = cur_wrote_ || old != nw;
  const bool shared = generic >= kSharedWindow && generic < kLocalWindow;
  uint64_t key = generic;
  if (shared) {
    shared_.push_back({generic - kSharedWindow, size});
    key = (1ull << 63) | (w.cta->linear << 32) | (generic - kSharedWindow);
  } else {
    global_.push_back({generic, size});
  }
  // Only a lane that changed its word takes a turn at the unit (a failed try, like a poll, is the
  // schedule's: how many there are depends on it); a global word's tries are counted as its
  // waiters (queued_tries).
  if (old != nw)
    atom_keys_.push_back(key);
  else if (!shared)
    try_keys_.push_back(key);
  const uint64_t n = ++atom_count_[key];
  if (n == 1) atom_instr_[key] = &I;
}

void PerfCounters::fence(const Warp& w, uint32_t, const ptx::Instr& I) {
  finish_request();
  clock_of(w) += fence_cycles(I.op == ptx::Op::Membar ? ptx::Sem::Sc : I.sem, I.scope);
}

void PerfCounters::barrier_arrive(const Warp& w, uint32_t id, uint32_t, const BarrierArrival&) {
  finish_request();
  ++summary_.barrier_arrivals;
  uint64_t& m = phase_max_[(w.cta->linear << 4) | id];
  m = std::max(m, clock_of(w));
}

// The warps that waited go on when the phase's last arrival (bar.arrive's included) is in, and
// each waited for it.
void PerfCounters::barrier_release(const Cta& c, uint32_t id, uint32_t, const std::vector<uint32_t>& waiters) {
  ++summary_.barrier_releases;
  const uint64_t latest = std::exchange(phase_max_[(c.linear << 4) | id], 0);
  uint64_t last_warp = ~0ull;
  for (uint32_t t : waiters) {
    const uint64_t key = (c.linear << 16) | (t / 32);
    if (key == last_warp) continue;
    last_warp = key;
    uint64_t& clock = warps_[key].clock;
    summary_.barrier_wait_cycles += latest > clock ? latest - clock : 0;
    clock = std::max(clock, latest) + kBarrierCycles;
  }
}

void PerfCounters::lanes_exited(const Warp& w, uint32_t) {
  finish_request();
  // (Lanes of the warp that still try will say so at their next try.)
  const uint64_t me = warp_key(w);
  for (auto& [k, waiters] : trying_) waiters.erase(me);
}

// The warps trying a word keep one request each in flight: their lanes take a turn each at the
// unit, then the request comes back and the warp tries again after `period` cycles. When the unit
// cannot keep up (the tries' turns per cycle add up to more than one), a queue builds, of the
// length at which each warp's lanes spend the queue's wait q in it out of every q + period cycles:
// q = sum of turns_i * q / (q + period_i), solved for q > 0. A request that changes the word waits
// q behind them. When the unit keeps up, no queue is counted.
uint64_t PerfCounters::queued_tries(uint64_t key, uint64_t me) const {
  const auto it = trying_.find(key);
  if (it == trying_.end()) return 0;
  double turns = 0, load = 0;
  for (const auto& [warp, t] : it->second) {
    if (warp == me) continue;
    turns += kAtomicCycles * double(t.lanes);
    load += kAtomicCycles * double(t.lanes) / double(std::max<uint64_t>(1, t.period));
  }
  if (load <= 1.0) return 0;
  double lo = 0, hi = turns;
  for (int i = 0; i < 50; ++i) {
    const double q = (lo + hi) / 2;
    double held = 0;
    for (const auto& [warp, t] : it->second)
      if (warp != me) held += kAtomicCycles * double(t.lanes) * q / (q + double(t.period));
    (held > q ? lo : hi) = q;
  }
  return uint64_t(lo);
}

// The terms are added: the model assumes that nothing overlaps (the pipes' work, the chain's waits,
// the atomics' turns), which overestimates a launch that hides its latency behind other warps' work.
double PerfSummary::Estimate::total_us() const {
  return launch_us + dram_us + l1_us + issue_us + shared_us + path_us + atomic_us;
}

const char* PerfSummary::Estimate::bound() const {
  const double pipes = dram_us + l1_us + issue_us + shared_us;
  if (atomic_us >= pipes && atomic_us >= path_us) return "atomics on one address";
  return path_us > pipes ? "latency (the longest chain of waits)" : "throughput (the SMs' pipes)";
}

void PerfCounters::estimate() {
  PerfSummary& s = summary_;
  PerfSummary::Estimate& e = s.estimate;
  const double clock_hz = double(device_.clock_khz) * 1e3;
  const double dram_bytes_per_s = 2.0 * double(device_.mem_clock_khz) * 1e3 * double(device_.mem_bus_width) / 8.0;
  const double blocks = double(s.grid.count());
  const double sms = std::max(1.0, std::min(double(device_.sm_count), blocks));
  const double sectors = double(s.global_ld.units + s.global_st.units);
  s.global_sectors_distinct = sectors_seen_.size();
  e.launch_us = kLaunchUs;
  e.dram_us = double(s.global_sectors_distinct) * 32.0 / dram_bytes_per_s * 1e6;
  e.l1_us = std::max(0.0, sectors - double(spin_work_.sectors)) / (sms * kL1SectorsPerCycle * clock_hz) * 1e6;
  // Rounds that only waited issue nothing the estimate counts (their number is the schedule's).
  e.instructions = s.warp_instructions - std::min(s.warp_instructions, spin_work_.instructions);
  e.issue_us = double(e.instructions) / (sms * kIssuePerCycle * clock_hz) * 1e6;
  const uint64_t wavefronts = s.shared_ld.units + s.shared_st.units;
  e.shared_us =
      double(wavefronts - std::min(wavefronts, spin_work_.wavefronts)) / (sms * kWavefrontsPerCycle * clock_hz) * 1e6;
  uint64_t serial = 0;
  for (const auto& [key, n] : atom_serial_) serial = std::max(serial, n);
  e.atomic_us = double(serial) * kAtomicCycles / clock_hz * 1e6;
  // The longest block's chain, once per wave of blocks the SMs hold at once.
  const uint32_t per_sm = std::max(1u, blocks_per_sm_);
  const double waves = std::ceil(blocks / double(std::max(1u, device_.sm_count) * per_sm));
  // Every warp's chain where it ended (or stopped: a hang), the longest.
  uint64_t longest = 0;
  for (const auto& [key, state] : warps_) longest = std::max(longest, state.clock);
  e.path_us = waves * double(longest) / clock_hz * 1e6;
}

void PerfCounters::finish_reports() {
  finish_request();
  // The loop head with the most spin rounds.
  for (const auto& [head, rounds] : spin_heads_) {
    if (rounds < summary_.spin_top_rounds) continue;
    const ptx::Function& fn = module_.functions[head >> 32];
    const uint32_t pc = uint32_t(head);
    if (pc >= fn.code.size()) continue;
    const std::string where = line_of(fn.code[pc]);
    if (rounds == summary_.spin_top_rounds && where >= summary_.spin_top_line) continue;
    summary_.spin_top_rounds = rounds;
    summary_.spin_top_line = where;
  }
  // The instruction that waited longest behind queued tries (ties: the first line).
  uint64_t most = 0;
  for (const auto& [instr, cycles] : contended_by_instr_) {
    const std::string where = line_of(*instr);
    if (cycles < most || (cycles == most && where >= summary_.contended_top_line)) continue;
    most = cycles;
    summary_.contended_top_line = where;
  }
  // The most-hit atomic address of each space.
  for (const auto& [key, count] : atom_count_) {
    const bool shared = key >> 63;
    PerfSummary::Atomics& a = shared ? summary_.shared_atom : summary_.global_atom;
    if (count > a.top_count || (count == a.top_count && key < a.top_address)) {
      a.top_count = count;
      a.top_address = shared ? (key & 0xffffffffull) : key;
      a.top_shared = shared;
      a.top_line = line_of(*atom_instr_[key]);
    }
  }
  // The lines with the most excess.
  std::vector<PerfSummary::Line> lines;
  for (const auto& [I, pi] : per_instr_) {
    if (pi.global.excess()) lines.push_back({line_of(*I), pi.write ? "global stores" : "global loads", pi.global});
    if (pi.shared.excess()) lines.push_back({line_of(*I), pi.write ? "shared stores" : "shared loads", pi.shared});
  }
  // Instructions of one line and kind count as one line.
  std::sort(lines.begin(), lines.end(), [](const PerfSummary::Line& a, const PerfSummary::Line& b) {
    return std::tie(a.where, a.what) < std::tie(b.where, b.what);
  });
  std::vector<PerfSummary::Line> merged;
  for (const PerfSummary::Line& l : lines) {
    if (!merged.empty() && merged.back().where == l.where && std::string(merged.back().what) == l.what) {
      merged.back().m.requests += l.m.requests;
      merged.back().m.units += l.m.units;
      merged.back().m.ideal += l.m.ideal;
    } else {
      merged.push_back(l);
    }
  }
  std::stable_sort(merged.begin(), merged.end(),
                   [](const PerfSummary::Line& a, const PerfSummary::Line& b) { return a.m.excess() > b.m.excess(); });
  if (merged.size() > 5) merged.resize(5);
  summary_.worst = std::move(merged);
  estimate();
}

std::string PerfSummary::render() const {
  std::string s = fmt::format("========= SyncLab PROFILE: kernel {} <<<({},{},{}), ({},{},{})>>>\n",
                              demangle_name(kernel), grid.x, grid.y, grid.z, block.x, block.y, block.z);
  s += fmt::format("  warp instructions  {} (PTX; a GPU issues SASS instructions, whose count differs)\n",
                   warp_instructions);
  s += fmt::format("  active threads     {:.1f} of 32 per warp instruction (warp execution efficiency {:.1f}%)\n",
                   threads_per_instruction(), threads_per_instruction() / 32.0 * 100.0);
  auto mem = [&](const char* what, const Memory& m, bool shared) {
    if (!m.requests) return;
    if (shared)
      s += fmt::format(
          "  {:<18} {} requests, {} wavefronts, {:.2f} per request; bank conflicts: {} (ideal {:.2f} per request)\n",
          what, m.requests, m.units, m.per_request(), m.excess(), double(m.ideal) / double(m.requests));
    else
      s += fmt::format("  {:<18} {} requests, {} sectors, {:.2f} per request (ideal {:.2f})\n", what, m.requests,
                       m.units, m.per_request(), double(m.ideal) / double(m.requests));
  };
  mem("global loads", global_ld, false);
  mem("global stores", global_st, false);
  mem("shared loads", shared_ld, true);
  mem("shared stores", shared_st, true);
  auto atom = [&](const char* what, const Atomics& a) {
    if (!a.requests) return;
    s += fmt::format("  {:<18} {} requests, {} lane operations, {:.2f} lanes on one address per request", what,
                     a.requests, a.lane_ops, double(a.serialized) / double(a.requests));
    if (a.top_count)
      s += fmt::format("; busiest {} 0x{:x}: {} operations ({})", a.top_shared ? "shared offset" : "address",
                       a.top_address, a.top_count, a.top_line);
    s += "\n";
  };
  atom("global atomics", global_atom);
  atom("shared atomics", shared_atom);
  if (barrier_arrivals)
    s += fmt::format(
        "  barriers           {} warp arrival{}, {} release{}; waits {} warp-cycles (by the estimate's latencies: "
        "each warp's wait for its block's slowest)\n",
        barrier_arrivals, barrier_arrivals == 1 ? "" : "s", barrier_releases, barrier_releases == 1 ? "" : "s",
        barrier_wait_cycles);
  if (spin_rounds)
    s += fmt::format(
        "  spin waits         {} loop rounds that changed no register of their thread (waiting, not working), {} "
        "thread instructions ({:.1f}% of all); most at {} ({} rounds)\n",
        spin_rounds, spin_thread_instructions,
        thread_instructions ? 100.0 * double(spin_thread_instructions) / double(thread_instructions) : 0.0,
        spin_top_line, spin_top_rounds);
  if (contended_requests)
    s += fmt::format(
        "  contention         {} atomic request{} that changed a word waited behind other warps' failed tries "
        "queued at its unit, {} cycles in all (by the estimate's latencies; part of its chain); most at {}\n",
        contended_requests, contended_requests == 1 ? "" : "s", contended_cycles, contended_top_line);
  s += fmt::format(
      "  estimated time     {:.2f} us, most of it {} (a rough model, docs/profile.md): launch {:.2f} + pipes: "
      "DRAM {:.2f}, L1 {:.2f}, issue {:.2f}, shared memory {:.2f} + longest chain {:.2f} + atomics {:.2f}\n",
      estimate.total_us(), estimate.bound(), estimate.launch_us, estimate.dram_us, estimate.l1_us, estimate.issue_us,
      estimate.shared_us, estimate.path_us, estimate.atomic_us);
  if (!worst.empty()) {
    s += "  lines with the most excess (units beyond the ideal):\n";
    for (const Line& l : worst)
      s += fmt::format("    {:<28} {:<14} {:.2f} {} per request (ideal {:.2f}), {} extra\n", l.where, l.what,
                       l.m.per_request(), l.what[0] == 'g' ? "sectors" : "wavefronts",
                       double(l.m.ideal) / double(l.m.requests), l.m.excess());
  }
  return s;
}

std::string PerfSummary::headline() const {
  std::string name = demangle_name(kernel);
  if (const size_t paren = name.find('('); paren != std::string::npos) name.resize(paren);
  std::string h = fmt::format("performance counters of {}: about {:.1f} us", name, estimate.total_us());
  if (worst.empty()) return h + ", no sector or wavefront beyond the ideal";
  const Line& l = worst.front();
  std::string where = l.where;
  if (const size_t slash = where.rfind('/'); slash != std::string::npos) where = where.substr(slash + 1);
  return h + fmt::format("; most excess at {}: {} {:.2f} {} per request (ideal {:.2f})", where, l.what,
                         l.m.per_request(), l.what[0] == 'g' ? "sectors" : "wavefronts",
                         double(l.m.ideal) / double(l.m.requests));
}

std::string PerfSummary::json() const {
  auto mem = [](const Memory& m) {
    return nlohmann::json{{"requests", m.requests}, {"units", m.units}, {"ideal", m.ideal}};
  };
  auto atom = [](const Atomics& a) {
    return nlohmann::json{{"requests", a.requests},       {"lane_ops", a.lane_ops},   {"serialized", a.serialized},
                          {"top_address", a.top_address}, {"top_count", a.top_count}, {"top_shared", a.top_shared},
                          {"top_line", a.top_line}};
  };
  nlohmann::json j{{"kernel", kernel},
                   {"name", demangle_name(kernel)},
                   {"grid", {grid.x, grid.y, grid.z}},
                   {"block", {block.x, block.y, block.z}},
                   {"warp_instructions", warp_instructions},
                   {"thread_instructions", thread_instructions},
                   {"global_ld_sectors", mem(global_ld)},
                   {"global_st_sectors", mem(global_st)},
                   {"shared_ld_wavefronts", mem(shared_ld)},
                   {"shared_st_wavefronts", mem(shared_st)},
                   {"global_atomics", atom(global_atom)},
                   {"shared_atomics", atom(shared_atom)},
                   {"barrier_arrivals", barrier_arrivals},
                   {"barrier_releases", barrier_releases},
                   {"barrier_wait_cycles", barrier_wait_cycles},
                   {"spin_rounds", spin_rounds},
                   {"spin_thread_instructions", spin_thread_instructions},
                   {"spin_top_line", spin_top_line},
                   {"spin_top_rounds", spin_top_rounds},
                   {"contended_requests", contended_requests},
                   {"contended_cycles", contended_cycles},
                   {"contended_top_line", contended_top_line},
                   {"warps_launched", warps_launched},
                   {"global_sectors_distinct", global_sectors_distinct},
                   {"estimate_us",
                    {{"total", estimate.total_us()},
                     {"dram", estimate.dram_us},
                     {"l1", estimate.l1_us},
                     {"issue", estimate.issue_us},
                     {"shared", estimate.shared_us},
                     {"atomic", estimate.atomic_us},
                     {"path", estimate.path_us},
                     {"instructions", estimate.instructions},
                     {"launch", estimate.launch_us}}}};
  nlohmann::json w = nlohmann::json::array();
  for (const Line& l : worst) w.push_back({{"where", l.where}, {"what", l.what}, {"counts", mem(l.m)}});
  j["worst_lines"] = w;
  return j.dump();
}

}  // namespace synclab::sim
