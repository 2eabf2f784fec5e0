// The race checker (race_checker.h).
//
// Where things are (the sections below, in this order):
//   Access flags        sem_flags (an instruction's memory order -> RaceDetector flags), access_word
//   Checked accesses    check (one lane), the events that come to it (access, rows, mbarrier_wait, atomic_read,
//                       atomic_wrote), fence, and the barrier and warp synchronization events
//   Reading the code    instr_at; what the code around an access shows, for the advice (plain_load_of_flag,
//                       release_at, same_address, updates_in_place, atomic_of_plain_word)
//   Access names        where_of, line_of, describe_access
//   Race reports        flush_findings: the detector's findings -> reports, each with its title and the advice
//                       that fits what was seen
//   Store collisions    store_collision: lanes of one store writing the same bytes (the run finds them)
//   Repeats             finish_reports: how many more instances each report shown stands for; count
//   Host races          ptx_access_name, narrow_strong, host_access, flush_host_findings: races with the
//                       host's writes to mapped or managed memory (HostChecker)
#include <fmt/format.h>

#include <cstdlib>

#include "sim/check/race_checker.h"
#include "sim/memory/memory_model.h"

namespace synclab::sim {

using ptx::Op;
using ptx::Operand;
using ptx::Sem;
using ptx::Space;

namespace {

uint8_t sem_flags(const ptx::Instr& I, bool volatile_data) {
  switch (I.sem) {
    case Sem::Volatile: return volatile_data ? RaceDetector::kVolatileData : RaceDetector::kVolatile;
    case Sem::Relaxed:
    case Sem::Acquire:
    case Sem::Release:
    case Sem::AcqRel:
    case Sem::Sc: return RaceDetector::kStrong;
    default: return 0;
  }
}

const char* access_word(uint8_t flags) {
  if (flags & RaceDetector::kAtomic) return "atomic";
  constexpr uint8_t kAnyVolatile = RaceDetector::kVolatile | RaceDetector::kVolatileData;
  if (flags & RaceDetector::kWrite) return (flags & kAnyVolatile) ? "volatile write" : "write";
  return (flags & kAnyVolatile) ? "volatile read" : "read";
}

}  // namespace

RaceChecker::RaceChecker(const RunView& run, std::vector<Report>& reports)
    : run_(run),
      cfg_(run.config()),
      reports_(reports),
      race_(run.config().model, run.shape().threads_per_block, run.shape().shared_bytes) {
  race_.set_report_all(cfg_.reports_all);
}

RaceChecker::~RaceChecker() = default;

void RaceChecker::check(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, bool atomic,
                        const ptx::Instr& I) {
  bool shared;
  uint64_t off;
  if (!checked_location(w, generic, &shared, &off)) return;
  Cta& c = *w.cta;
  const uint32_t tid = w.lanes[lane].tid_linear;
  race_.set_step(run_.steps());
  uint8_t flags = atomic ? uint8_t(RaceDetector::kAtomic | RaceDetector::kWrite) : sem_flags(I, cfg_.volatile_data);
  if (write) flags |= RaceDetector::kWrite;
  if ((flags & (RaceDetector::kAtomic | RaceDetector::kStrong)) && I.scope == ptx::Scope::Cta)
    flags |= RaceDetector::kCtaScope;
  if (!race_.access(c, tid, w.index, shared, off, size, flags, run_.current_loc())) flush_findings();
  // Memory-order effects. Shared addresses are per block.
  const uint64_t key = shared ? kSharedWindow + (c.linear << 32) + off : off;
  // (under the relaxed memory model: which write a read read, which write a store made)
  const bool relaxed = run_.relaxed_model() != nullptr;
  const uint64_t read_version = relaxed ? run_.read_version(lane) : 0;
  if (atomic) {
    // The release half waits for the result: a compare-and-swap that fails writes nothing
    // (atomic_wrote).
    race_.strong_read(c, tid, key, I, read_version);
  } else if (flags & (RaceDetector::kStrong | RaceDetector::kVolatile)) {
    if (write)
      race_.strong_write(c, tid, key, I, false);
    else
      race_.strong_read(c, tid, key, I, read_version);
  } else if (write) {
    race_.plain_write(key);
  }
  if (relaxed && write && !atomic) race_.version_written(key, run_.write_version(lane));
}

void RaceChecker::access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t,
                         const ptx::Instr& I) {
  check(w, lane, generic, size, write, false, I);
}

void RaceChecker::rows(const Warp& w, uint32_t act, const uint64_t* X, uint64_t gen_off, uint32_t size, bool write,
                       const ptx::Instr& I, const uint64_t*) {
  // In the row forms of ld/st (instr/memory.cpp) every active lane's address lies in one window:
  // the block's shared memory or one global allocation.
  const uint8_t sem = sem_flags(I, cfg_.volatile_data);
  Cta& c = *w.cta;
  if (sem) {
    // What check does, lane by lane (a strong access's memory-order effects interleave with the
    // next lane's check).
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      check(w, l, X[l] + gen_off, size, write, false, I);
    }
    return;
  }
  const bool shared = X[__builtin_ctz(act)] + gen_off >= kSharedWindow;
  if (!shared && w.cache_kind == AllocKind::ModuleConst) return;
  const uint64_t adjust = shared ? gen_off - kSharedWindow : gen_off;
  const uint8_t flags = write ? RaceDetector::kWrite : 0;
  race_.set_step(run_.steps());
  if (!race_.access_row(c, w.index, act, X, adjust, shared, size, flags, run_.current_loc())) flush_findings();
  // A plain write ends what a release published at its address, and under the relaxed model it is
  // a version of that address (as check() does for each lane); only release states and versions
  // are read here, so doing it after the row's checks changes nothing.
  const bool relaxed = run_.relaxed_model() != nullptr;
  if (write && (race_.any_sync() || (relaxed && race_.any_versions()))) {
    const uint64_t key_adjust = shared ? kSharedWindow + (c.linear << 32) + adjust : adjust;
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      race_.plain_write(X[l] + key_adjust);
      if (relaxed) race_.version_written(X[l] + key_adjust, run_.write_version(l));
    }
  }
}

void RaceChecker::mbarrier_wait(const Warp& w, int lane, uint64_t generic, uint64_t, bool complete,
                                const ptx::Instr& I) {
  const ptx::Instr* seen = &I;
  if (!complete) {  // an incomplete phase acquires nothing
    auto& twin = relaxed_twin_[&I];
    if (!twin) {
      twin = std::make_unique<ptx::Instr>(I);
      twin->sem = Sem::Relaxed;
    }
    seen = twin.get();
  }
  check(w, lane, generic, 8, false, false, *seen);
}

void RaceChecker::atomic_read(const Warp& w, int lane, uint64_t generic, uint32_t size, const ptx::Instr& I) {
  check(w, lane, generic, size, true, true, I);
}

void RaceChecker::atomic_wrote(const Warp& w, int lane, uint64_t generic, const ptx::Instr& I) {
  if (generic >= kLocalWindow) return;
  const bool shared = generic >= kSharedWindow;
  const uint64_t key = shared ? kSharedWindow + (w.cta->linear << 32) + (generic - kSharedWindow) : generic;
  race_.strong_write(*w.cta, w.lanes[lane].tid_linear, key, I, true);
  if (run_.relaxed_model()) race_.version_written(key, run_.write_version(lane));
}

void RaceChecker::fence(const Warp& w, uint32_t act, const ptx::Instr& I) {
  if (I.proxy) return;
  for (uint32_t m = act; m; m &= m - 1) race_.fence(*w.cta, w.lanes[__builtin_ctz(m)].tid_linear, I);
  if (host_.any())
    for (uint32_t m = act; m; m &= m - 1)
      host_.fence(static_cast<uint32_t>(w.cta->linear), w.lanes[__builtin_ctz(m)].tid_linear, I);
}

void RaceChecker::barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes, const BarrierArrival& a) {
  Cta& c = *w.cta;
  const bool partial = a.instr.bar == ptx::BarKind::Arrive || (a.count != 0 && a.count < c.threads);
  for (uint32_t m = lanes; m; m &= m - 1) race_.barrier_arrive(c, w.lanes[__builtin_ctz(m)].tid_linear, id, partial);
}

void RaceChecker::barrier_release(const Cta& c, uint32_t id, uint32_t, const std::vector<uint32_t>& waiters) {
  race_.barrier_release(c, id, waiters, c.live_threads);
}

void RaceChecker::warp_sync(const Warp& w, uint32_t lanes) { race_.warp_sync(*w.cta, w.index, lanes); }

// Whether one of two racing accesses stores a flag the way a release does (a volatile, atomic or
// strong store that is the writing thread's first access after a fence) and the other loads it
// with a plain load.
static bool plain_load_of_flag(uint8_t a, uint8_t b) {
  using D = RaceDetector;
  auto flag_store = [](uint8_t f) {
    return (f & D::kWrite) && (f & D::kAfterFence) && (f & (D::kVolatile | D::kAtomic | D::kStrong)) &&
           !(f & D::kVolatileData);
  };
  auto plain_load = [](uint8_t f) { return !(f & (D::kWrite | D::kVolatile | D::kAtomic | D::kStrong)); };
  return (flag_store(a) && plain_load(b)) || (flag_store(b) && plain_load(a));
}

// Whether the store or atomic at loc releases, and how: it has release semantics (st.release,
// atom.acq_rel, cuda::atomic_ref's release orders), or a fence comes before it with no other memory
// access in between (__threadfence(); flag = 1). Null when it does not. Read from the code, for the
// advice: where the store that handed over released, the missing piece is not a fence before it.
const char* RaceChecker::release_at(uint32_t loc) const {
  const ptx::Instr* at = run_.instr_at(loc);
  if (!at) return nullptr;
  using ptx::Sem;
  if (at->sem == Sem::Release || at->sem == Sem::AcqRel || at->sem == Sem::Sc) return "a release store or atomic";
  const auto& code = run_.module().functions[loc >> 20].code;
  for (uint32_t pc = loc & 0xfffff, seen = 0; pc > 0 && seen < 16; ++seen) {
    const ptx::Instr& I = code[--pc];
    if (I.op == Op::Membar || I.op == Op::Fence)
      return I.scope == ptx::Scope::Cta ? nullptr : "a fence comes right before it";
    if (I.op == Op::Ld || I.op == Op::Ldu || I.op == Op::St || I.op == Op::Atom || I.op == Op::Red || I.op == Op::Bra ||
        I.op == Op::Bar)
      return nullptr;
  }
  return nullptr;
}

namespace {
// Whether two memory instructions name their address the same way (register, symbol, offset):
// the same word for a lane, whatever the register holds.
bool same_address(const ptx::Instr& I, const ptx::Instr& J) {
  const Operand &a = I.src[0], &b = J.src[0];
  return a.kind == Operand::Kind::Addr && b.kind == Operand::Kind::Addr && a.reg == b.reg && a.symbol == b.symbol &&
         a.imm == b.imm;
}
}  // namespace

// Whether the load or store at loc is half of an in-place update on its source line: the line
// also has the other half (a store for a load, a load for a store) in the same state space at the
// same address expression ([reg + imm] or [symbol + imm]), as x++ or x += v compile to. Used to
// give the lost-update advice only where it applies: in s[t] += s[t + off] the load of
// s[t + off] has no store to its own address on that line, so that race is not a lost update.
bool RaceChecker::updates_in_place(uint32_t loc) const {
  const ptx::Instr* at = run_.instr_at(loc);
  if (!at) return false;
  const ptx::Instr& I = *at;
  const bool load = I.op == Op::Ld || I.op == Op::Ldu;
  if (!load && I.op != Op::St) return false;
  const Operand& a = I.src[0];
  if (a.kind != Operand::Kind::Addr) return false;
  const SourceLoc here = run_.where(I);
  if (here.file.empty() || !here.line) return false;
  for (const ptx::Instr& J : run_.module().functions[loc >> 20].code) {
    const bool other = load ? J.op == Op::St : (J.op == Op::Ld || J.op == Op::Ldu);
    if (!other || J.space != I.space) continue;
    if (!same_address(I, J)) continue;
    const SourceLoc there = run_.where(J);
    if (there.line == here.line && there.file == here.file) return true;
  }
  return false;
}

const ptx::Instr* RaceChecker::atomic_of_plain_word(uint32_t loc, bool needs_read_and_write) const {
  const ptx::Instr* at = run_.instr_at(loc);
  if (!at) return nullptr;
  const ptx::Instr& I = *at;
  auto plain = [](const ptx::Instr& J) { return ptx::is_weak(J.sem); };
  if (!plain(I) || (I.op != Op::Ld && I.op != Op::St) || I.src[0].kind != Operand::Kind::Addr) return nullptr;
  bool load = false, store = false;
  const ptx::Instr* atomic = nullptr;
  for (const ptx::Instr& J : run_.module().functions[loc >> 20].code) {
    if (J.space != I.space || !same_address(I, J)) continue;
    load = load || (plain(J) && J.op == Op::Ld);
    store = store || (plain(J) && J.op == Op::St);
    if (!atomic && J.op == Op::Atom) atomic = &J;
  }
  return !needs_read_and_write || (load && store) ? atomic : nullptr;
}

std::string RaceChecker::line_of(uint32_t loc) const {
  const ptx::Instr* at = run_.instr_at(loc);
  if (!at) return "instruction";
  const ptx::Instr& I = *at;
  SourceLoc s = run_.where(I);
  if (!s.file.empty() && s.line) {
    const size_t slash = s.file.find_last_of('/');
    return fmt::format("{} at {}:{}", ptx::op_name(I.op),
                       slash == std::string::npos ? s.file : s.file.substr(slash + 1), s.line);
  }
  return fmt::format("{} at PTX line {}", ptx::op_name(I.op), s.ptx_line);
}

std::string RaceChecker::describe_access(uint32_t gid, uint32_t loc, uint8_t flags) const {
  const uint32_t tpc = run_.shape().threads_per_block;
  const uint32_t block = gid / tpc, tid = gid % tpc;
  std::string at = "(unknown instruction)";
  if (const ptx::Instr* I = run_.instr_at(loc)) {
    SourceLoc s = run_.where(*I);
    if (!s.file.empty() && s.line)
      at = fmt::format("{}:{} (PTX line {})", s.file, s.line, s.ptx_line);
    else
      at = fmt::format("PTX line {} (build with -lineinfo for the source line)", s.ptx_line);
  }
  return fmt::format("{} by block {} thread {} (warp {} lane {}) at {}", access_word(flags), block, tid, tid / 32,
                     tid % 32, at);
}

void RaceChecker::flush_findings() {
  auto& fs = race_.findings();
  for (const RaceFinding& f : fs) {
    const bool warning = f.warp_level;
    // A warp-level pair at a store whose lanes collided (s[i]++ by a warp) is the same bug: the
    // collision report's advice (atomics) fixes both, __syncwarp would fix neither.
    if (warning && (collisions_.count(f.cur_loc) || collisions_.count(f.prev.loc))) {
      ++suppressed_;
      continue;
    }
    if (warning)
      ++race_warnings_;
    else
      ++race_reports_;
    if (race_warnings_ + race_reports_ > 50) continue;  // enough to read; the summary counts the rest
    Report r;
    r.kind = ReportKind::Race;
    r.severity = warning ? Severity::Warning : Severity::Error;
    r.kernel = run_.kernel_name();
    const uint32_t block = f.cur_gid / run_.shape().threads_per_block, tid = f.cur_gid % run_.shape().threads_per_block;
    r.block = block;
    r.thread = tid;
    r.where = run_.where_of(f.cur_loc);
    const uint32_t pgid = f.prev.gid1 - 1;
    auto cp_async_of = [&](const RaceFinding& x) -> const ptx::Instr* {
      for (uint32_t loc : {x.cur_loc, x.prev.loc})
        if (const ptx::Instr* at = run_.instr_at(loc); at && at->op == Op::CpAsync) return at;
      return nullptr;
    };
    auto mbarrier_at = [&](uint32_t loc) {
      const ptx::Instr* at = run_.instr_at(loc);
      return at && (at->op == Op::Mbarrier || at->op == Op::CpAsyncMbarArrive);
    };
    const bool both_atomic = (f.prev.flags & RaceDetector::kAtomic) && (f.cur_flags & RaceDetector::kAtomic);
    const char* what = both_atomic ? "atomic-atomic"
                       : (f.prev.flags & RaceDetector::kAtomic) || (f.cur_flags & RaceDetector::kAtomic)
                           ? "atomic and plain access"
                       : ((f.prev.flags & RaceDetector::kWrite) && (f.cur_flags & RaceDetector::kWrite))
                           ? "write-write"
                           : ((f.prev.flags & RaceDetector::kWrite) ? "read-after-write" : "write-after-read");
    // "Insufficient scope" only when the failed synchronization was with the other access's
    // block and the two accesses are in different blocks.
    const bool cross_block = pgid / run_.shape().threads_per_block != block;
    // (an atomic or strong access with block scope between blocks: not morally strong, so the
    // pair races whatever else orders it)
    const bool block_scoped_pair = cross_block && ((f.prev.flags | f.cur_flags) & RaceDetector::kCtaScope) &&
                                   (f.prev.flags & (RaceDetector::kAtomic | RaceDetector::kStrong)) &&
                                   (f.cur_flags & (RaceDetector::kAtomic | RaceDetector::kStrong));
    const bool insufficient_scope =
        !warning && cross_block &&
        (both_atomic || block_scoped_pair ||
         // a block-scope acquire of a hand-over from the other access's block, or from the block of
         // the thread whose hand-over this thread took (the chain that should have ordered them)
         (f.scope_miss != nullptr &&
          (f.scope_miss_cta == pgid / run_.shape().threads_per_block ||
           (f.heard_gid1 && f.scope_miss_cta == (f.heard_gid1 - 1) / run_.shape().threads_per_block))));
    r.title =
        fmt::format("{}{} race on {} memory", insufficient_scope ? "insufficient-scope " : "",
                    warning ? std::string("warp-level ") + what : std::string(what), f.shared ? "shared" : "global");
    std::string d;
    d += fmt::format("address: {}\n", run_.describe_address(f.addr, f.shared, block));
    d += fmt::format("this access:  {}\n", describe_access(f.cur_gid, f.cur_loc, f.cur_flags));
    d += fmt::format("races with:   {}\n", describe_access(pgid, f.prev.loc, f.prev.flags));
    // Both accesses halves of read-modify-writes of this word on one line (x++ in two threads): the
    // updates can be lost whatever else the threads hand over (a hand-over found between them may
    // be incidental, an atomicAdd on another word), so that comes first in the advice.
    const SourceLoc upd_a = r.where, upd_b = run_.where_of(f.prev.loc);
    const bool plain_pair = !((f.prev.flags | f.cur_flags) & RaceDetector::kAtomic);
    const bool same_line_update = plain_pair && !upd_a.file.empty() && upd_a.line && upd_a.file == upd_b.file &&
                                  upd_a.line == upd_b.line && updates_in_place(f.cur_loc) &&
                                  updates_in_place(f.prev.loc);
    const std::string lost_update =
        same_line_update ? fmt::format(
                               "both accesses are on line {}, which updates what it reads (x++, x += v): another "
                               "thread's store can come between one thread's read and its store, and updates are lost: "
                               "make the update one atomic operation (atomicAdd, atomicMax, ...)",
                               upd_a.line)
                         : std::string();
    if (both_atomic) {
      d += fmt::format(
          "both are atomics, but at least one has block scope (atomicAdd_block, atomicCAS_block, "
          "cuda::atomic_ref<..., thread_scope_block>): an atomic is only atomic towards threads in its "
          "scope, and the two are in blocks {} and {}; use the device-scope form",
          pgid / run_.shape().threads_per_block, block);
    } else if ((f.prev.flags | f.cur_flags) & RaceDetector::kVolatileData) {
      d += "volatile is not synchronization (this run used SYNCLAB_VOLATILE=data): volatile only keeps the "
           "compiler from removing or merging a load or store; it orders nothing, so the other thread may "
           "still see an old value. If these are data handed over through a lock or a flag, order the "
           "hand-over: a lock needs __threadfence() right after it is taken and right before it is released "
           "(or cuda::atomic_ref with memory_order_acquire / memory_order_release); if this is the flag "
           "itself, make it an atomic (cuda::atomic_ref<int, cuda::thread_scope_device>: store with "
           "memory_order_release, load with memory_order_acquire); a __threadfence_block() does not order "
           "threads of other blocks. The data then need no volatile";
    } else if (const ptx::Instr* copy = cp_async_of(f)) {
      // One side is an asynchronous copy (cp.async), written when it completed.
      const SourceLoc c = run_.where(*copy);
      d += fmt::format(
          "the write is an asynchronous copy (cp.async at {}:{}: cuda::memcpy_async, __pipeline_memcpy_async, "
          "cuda::pipeline's producer side) that completed only when its thread waited for it; __syncthreads() "
          "does not wait for asynchronous copies, so another thread (or the copying thread itself) may read the "
          "old bytes. Wait for the copy before the read: cp.async.wait_group / cp.async.wait_all "
          "(__pipeline_wait_prior(0), pipeline.consumer_wait(), cuda::pipeline_consumer_wait_prior, or the "
          "cuda::barrier the copy completes on), then __syncthreads() when other threads read what this thread "
          "copied",
          c.file.empty() ? std::string("PTX") : c.file.substr(c.file.find_last_of('/') + 1),
          c.file.empty() ? c.ptx_line : c.line);
    } else if (run_.mbarriers_used() && !(f.heard_gid1 && !mbarrier_at(f.heard_write_loc)) &&
               !(run_.relaxed_model() && run_.relaxed_model()->reorderings())) {
      d += "the kernel synchronizes through an mbarrier (cuda::barrier, cuda::pipeline, mbarrier.*): arriving "
           "on it publishes what the arriving thread wrote before, but a thread acquires what others published "
           "only by a wait that sees their phase complete (barrier.wait(token), arrive_and_wait(), "
           "mbarrier.try_wait / test_wait returning true). Here the reading thread did not wait for the phase "
           "the writer arrived at before reading (its own arrive orders nothing for its later reads), or the "
           "accesses are not handed over through the mbarrier at all: then no __syncthreads() or "
           "release/acquire orders them either";
    } else if (f.warp_exchange && !f.unacquired) {
      // Lanes of one warp passing values through volatile words in the same steps:
      // the warp-synchronous code written before Volta (a reduction's or a scan's tail). No
      // flag is waited for, so no fence helps; the lanes need to meet between the steps. (A lane that
      // took a lock or read a flag another lane released, without acquiring it, gets the
      // hand-over's advice below: a fence, not __syncwarp().)
      d += "the two lanes are in the same warp. If they exchange values through memory in steps (a "
           "warp-synchronous reduction or scan): volatile accesses keep each access whole, "
           "but do not order one lane's read of a step before another lane's write of the next. Under "
           "independent thread scheduling (its, Volta and later) only a barrier that both lanes pass between "
           "the accesses orders them, __syncwarp() for a warp: read into a register, __syncwarp(), "
           "write, __syncwarp(), at every step (or use __shfl_down_sync, which needs no shared memory); "
           "under the lockstep model (before Volta) the warp's single program counter ordered them. If "
           "instead the word is a flag, a lock or a turn that hands other data over from lane to lane, that "
           "data needs the hand-over's ordering, not a barrier: a release before the store that hands over "
           "and an acquire after the read that sees it";
    } else if (run_.relaxed_model() && run_.relaxed_model()->reorderings() && (f.unacquired || f.heard_gid1)) {
      // The hand-over analysis assumes each load read the newest value; under the relaxed model
      // this run's loads did not always, so say what happened instead.
      if (same_line_update) d += lost_update + ". If instead a hand-over is meant to order them: ";
      d += fmt::format(
          "this run used SYNCLAB_MEMORY=relaxed, and the memory model reordered accesses in it ({} load(s) "
          "read a value older than the newest, {} store(s) took effect before newer ones, {} load(s) ran "
          "after a later store of their thread), as a GPU may. If the program is race-free under "
          "SYNCLAB_MEMORY=sc, its synchronization relies on an order the GPU does not keep: a hand-over "
          "through a flag needs a release store (or __threadfence() before it) and an acquire load (or "
          "__threadfence() after it); a store followed by a load of another word that two threads rely "
          "on (Peterson's doorway) needs seq_cst accesses (cuda::atomic_ref's default) or a "
          "__threadfence() after each of the stores: release and acquire do not keep a store before a "
          "later load",
          run_.relaxed_model()->stale_reads(), run_.relaxed_model()->early_stores(),
          run_.relaxed_model()->late_loads());
    } else if (f.after_release && !f.unacquired && !insufficient_scope) {
      // This thread synchronized with the other one, but through a release that the other thread
      // made before its access: a release publishes only what comes before it.
      const bool heard = f.heard_gid1 == f.prev.gid1;
      const uint32_t hg = f.heard_gid1 - 1;
      d += fmt::format(
          "this thread did synchronize with block {} thread {}: it acquired that thread's release{}. But "
          "that thread's {} of this word comes after the release in its program, and a release publishes only "
          "the accesses before it. Move that {} before the release ({}), or make this thread wait for a later "
          "release that comes after the {}",
          pgid / run_.shape().threads_per_block, pgid % run_.shape().threads_per_block,
          heard ? fmt::format(", {}", line_of(f.heard_write_loc))
                : fmt::format(" (passed on by block {} thread {}'s {})", hg / run_.shape().threads_per_block,
                              hg % run_.shape().threads_per_block, line_of(f.heard_write_loc)),
          (f.prev.flags & RaceDetector::kWrite) ? "write" : "read",
          (f.prev.flags & RaceDetector::kWrite) ? "write" : "read",
          (f.prev.flags & RaceDetector::kWrite)
              ? "data handed over through a flag or a lock: write it, then raise the flag or unlock"
              : "a slot handed back through a flag: read the slot, then publish that it is free",
          (f.prev.flags & RaceDetector::kWrite) ? "write" : "read");
    } else if (plain_load_of_flag(f.prev.flags, f.cur_flags)) {
      // A flag published the right way on the writer's side (a volatile or atomic store right
      // after a fence), read with a plain load: the reader's load is the mistake, whatever else
      // the two threads exchanged before (a ticket's atomic is no hand-over of this word).
      d += "one thread stores this word as a flag (a volatile or atomic store right after a fence, which "
           "publishes what that thread wrote before it) and the other reads it with a plain load: a plain "
           "load races with the flag's store, and the compiler may keep it in a register (a loop that waits "
           "on it may never see the store). Read the flag with a volatile load or an atomic (cuda::atomic_ref "
           "with memory_order_acquire), and __threadfence() after the read that sees it, before reading what "
           "it publishes";
    } else if (f.unacquired && !insufficient_scope) {
      d += "this thread read a flag or lock that the other thread released, but did not acquire it: put a "
           "__threadfence() right after the read that sees the flag (or make that read an acquire load, "
           "cuda::atomic_ref with memory_order_acquire); that is what orders the accesses after it";
    } else if (const char* how = f.heard_gid1 && !insufficient_scope && f.heard_gid1 != f.prev.gid1
                                     ? release_at(f.heard_write_loc)
                                     : nullptr) {
      // The store that handed over is a release, and it still did not order the other access: its
      // thread had not synchronized with the other access's thread before it released.
      const uint32_t hg = f.heard_gid1 - 1;
      const char* access = (f.prev.flags & RaceDetector::kWrite) ? "write" : "read";
      const ptx::Instr* read = run_.instr_at(f.heard_read_loc);
      const bool acquired =
          f.heard_fenced ||
          (read && (read->sem == ptx::Sem::Acquire || read->sem == ptx::Sem::AcqRel || read->sem == ptx::Sem::Sc));
      if (same_line_update) d += lost_update + ". If instead a hand-over is meant to order them: ";
      d += fmt::format(
          "the threads hand over through memory (block {} thread {}'s {} was read by this thread's {}), and "
          "it is a release ({}){}. But a release publishes only what its thread wrote or had itself "
          "acquired before it, and block {} thread {} had not synchronized with block {} thread {}, whose {} "
          "this is: nothing orders that {} before the release. Before it releases, the thread that hands over "
          "must itself have acquired that {} (a hand-over from its thread), or meet {}{}{}",
          hg / run_.shape().threads_per_block, hg % run_.shape().threads_per_block, line_of(f.heard_write_loc),
          line_of(f.heard_read_loc), how,
          f.heard_fenced ? " and this thread fenced after taking over"
          : acquired     ? " and this thread's read acquires it"
                         : "",
          hg / run_.shape().threads_per_block, hg % run_.shape().threads_per_block,
          pgid / run_.shape().threads_per_block, pgid % run_.shape().threads_per_block, access, access, access,
          hg / run_.shape().threads_per_block != pgid / run_.shape().threads_per_block
              ? "a thread of its block that acquired it at a __syncthreads()"
          : (hg % run_.shape().threads_per_block) / 32 == (pgid % run_.shape().threads_per_block) / 32
              ? "that thread at a __syncwarp() (they are lanes of one warp) or a __syncthreads()"
              : "that thread at a __syncthreads()",
          acquired ? ""
                   : "; and this thread needs __threadfence() right after the read that takes over (or an "
                     "acquire load)",
          warning ? "; __syncwarp() would not help here: the lanes are not at one point together" : "");
    } else if (f.heard_gid1 && !insufficient_scope) {
      // Which side of the hand-over lacks its fence: both, or (this thread fenced after taking
      // over) the releasing side.
      const uint32_t hg = f.heard_gid1 - 1;
      const char* fix = f.heard_fenced
                            ? "and this thread fenced after taking over, but the other side did not release: put "
                              "__threadfence() before the store or atomic that hands over (the unlock, the flag "
                              "store), or make it a release (cuda::atomic_ref with memory_order_release)"
                            : "but without release/acquire ordering, so the hand-over does not order the accesses "
                              "around it: put __threadfence() before the store or atomic that hands over (the "
                              "unlock, the flag store) and after the read that takes over (the lock, the flag "
                              "load), or use cuda::atomic_ref with memory_order_release and memory_order_acquire";
      if (same_line_update) d += lost_update + ". If instead a hand-over is meant to order them: ";
      d += fmt::format(
          "the threads hand over through memory (block {} thread {}'s {} was read by this thread's {}), "
          "{}{}{}",
          hg / run_.shape().threads_per_block, hg % run_.shape().threads_per_block, line_of(f.heard_write_loc),
          line_of(f.heard_read_loc), fix,
          warning ? "; __syncwarp() would not help here: the lanes are not at one point together" : "",
          !cross_block ? ". Or, where this access only has to come after every thread of the block is done with the "
                         "word (a result read after the loop that built it), put a __syncthreads() between them that "
                         "every thread of the block reaches"
                       : "");
    } else if (warning) {
      d += "the two lanes are in the same warp and the accesses are different instructions: under independent "
           "thread scheduling (its, Volta and later) lanes of a warp are ordered only by a barrier that both "
           "pass between the accesses. Put __syncwarp() between them (a vote such as __ballot_sync or "
           "__any_sync orders no memory), or __syncthreads() where the whole block takes part; under the "
           "lockstep model (before Volta) these two instructions were ordered by the warp's single program "
           "counter";
      if (std::string(what) == "atomic and plain access")
        d += ". If instead the plain access is a read of a word that other lanes change with atomics (a counter, "
             "a flag or a turn read to decide what to do next), make that read volatile or an atomic load "
             "(cuda::atomic_ref), and order what the word guards with a release and an acquire";
    } else if (insufficient_scope && block_scoped_pair) {
      d += fmt::format(
          "both are atomic accesses (cuda::atomic_ref loads and stores, atomic functions), but at least one "
          "has block scope (cuda::atomic_ref<..., cuda::thread_scope_block>, PTX .cta): an access is atomic, "
          "and synchronizes, only with threads in its scope, and the two are in blocks {} and {}, so they race "
          "and what the read sees orders nothing; use device scope (cuda::thread_scope_device, as "
          "cuda::atomic_ref<int, cuda::thread_scope_device> or the plain atomic functions have)",
          pgid / run_.shape().threads_per_block, block);
    } else if (insufficient_scope && f.scope_miss) {
      const ptx::Instr& S = *f.scope_miss;
      SourceLoc s = run_.where(S);
      d += fmt::format(
          "the threads did synchronize, at {}:{} ({}), but with block scope (.cta: atomicCAS_block, "
          "__threadfence_block, ...): that orders threads of one block only, and the two accesses are "
          "in blocks {} and {}; use device scope (atomicCAS, __threadfence)",
          s.file.empty() ? "PTX" : s.file, s.file.empty() ? S.ptx_line : s.line, ptx::op_name(S.op),
          pgid / run_.shape().threads_per_block, block);
      if (f.heard_gid1 && !f.heard_fenced)
        d += "; and this thread did not acquire either: it read the flag or lock with no fence after the "
             "read (a device-scope release alone does not order what this thread does next), so it also "
             "needs __threadfence() right after the read that sees the flag (or an acquire load, "
             "cuda::atomic_ref with memory_order_acquire)";
    } else {
      const bool plain = plain_pair;
      // (the lost-update advice only where both accesses are halves of read-modify-writes of this
      // word on one line, not where a thread reads a word that another thread's line writes:
      // s[t] += s[t + off] without a barrier between the steps)
      // A check-then-set of a word that is also an atomic's (a lock tested and taken with a plain read
      // and write, given back with atomicExch): the fix is one atomic, not an ordering.
      const ptx::Instr* rmw = nullptr;
      if (plain && !same_line_update) {
        rmw = atomic_of_plain_word(f.cur_loc, true);
        if (!rmw) rmw = atomic_of_plain_word(f.prev.loc, true);
      }
      if (same_line_update) d += lost_update + ". As written, ";
      if (rmw) {
        const SourceLoc w = run_.where(*rmw);
        d += fmt::format(
            "this word is read and then written with plain accesses, and also updated by an atomic at {}:{} "
            "({}): a plain read and a plain write are two steps, so two threads can both read the old value "
            "(both see a lock free) before either writes. Make the test and the write one atomic operation: "
            "atomicCAS(&word, expected, desired) to take a lock or claim a slot, atomicAdd or atomicExch for "
            "an update. As written, ",
            w.file.empty() ? "PTX line" : w.file, w.file.empty() ? rmw->ptx_line : w.line, ptx::op_name(rmw->op));
      }
      // One side atomic, the other a plain access of a word its own function updates atomically (a
      // stack's head read plainly before the CAS loop): that access is to be atomic too.
      const bool one_atomic = ((f.prev.flags ^ f.cur_flags) & RaceDetector::kAtomic) != 0;
      const uint32_t plain_loc = (f.cur_flags & RaceDetector::kAtomic) ? f.prev.loc : f.cur_loc;
      const ptx::Instr* word_atomic = one_atomic ? atomic_of_plain_word(plain_loc, false) : nullptr;
      if (word_atomic) {
        const SourceLoc w = run_.where(*word_atomic), p = run_.where_of(plain_loc);
        d += fmt::format(
            "the plain access at {}:{} is to a word that other accesses of that code update with an atomic "
            "(at {}:{}, {}), and a plain access races with them: make that access atomic too (for a read, "
            "atomicAdd(&word, 0) or a cuda::atomic_ref load; for a write, atomicExch). Where it also hands "
            "data over, order it as well: ",
            p.file.empty() ? "PTX line" : p.file, p.file.empty() ? p.ptx_line : p.line,
            w.file.empty() ? "PTX line" : w.file, w.file.empty() ? word_atomic->ptx_line : w.line,
            ptx::op_name(word_atomic->op));
      }
      d += "nothing orders the two accesses: no __syncthreads() between them that both threads passed, and no "
           "release (a fence or release store/atomic) by the first thread that the second thread acquired "
           "(a fence or acquire load/atomic after reading it)";
      if (!rmw && !cross_block)
        d += ". Put a __syncthreads() between them that every thread of the block reaches, or hand the value "
             "over with a release and an acquire. Where one of them is a thread waiting in a loop for the other "
             "(a lock's or a flag's word), a __syncthreads() cannot be the answer (the waiting thread never "
             "reaches it): make that word's accesses atomic (atomicCAS/atomicExch, a cuda::atomic_ref) or "
             "volatile, with a release on one side and an acquire on the other";
      else if (!rmw)
        d += ". The threads are in different blocks: hand the value over through a flag or a lock, with a "
             "release (__threadfence() before raising it) and an acquire (__threadfence() after seeing it), "
             "and where one thread of a block raises or sees the flag for the others, put a __syncthreads() "
             "between it and them (before the raise, after the wait); or split the work into two kernel "
             "launches";
    }
    d += fmt::format(
        "\nfound at warp step {} of the launch under {} scheduling with seed {} (warp model {}); to "
        "watch the interleaving, rerun with the settings below and SYNCLAB_TRACE=race.trace, then "
        "./synclab trace interleaving race.trace",
        run_.steps(), sched_name(cfg_.sched), cfg_.seed, model_name(cfg_.model));
    r.details = d;
    auto party = [&](uint32_t gid, uint32_t loc, uint8_t flags) {
      Report::Party p;
      p.block = gid / run_.shape().threads_per_block;
      p.warp = (gid % run_.shape().threads_per_block) / 32;
      p.lane = (gid % run_.shape().threads_per_block) % 32;
      p.where = run_.where_of(loc);
      p.access = access_word(flags);
      return p;
    };
    r.parties.push_back(party(f.cur_gid, f.cur_loc, f.cur_flags));
    r.parties.push_back(party(pgid, f.prev.loc, f.prev.flags));
    r.seed = cfg_.seed;
    r.replay = run_.replay_line();
    report_findings_.emplace_back(reports_.size(), f);
    reports_.push_back(r);
  }
  fs.clear();
}

void RaceChecker::store_collision(const Warp& w, const ptx::Instr& I, uint64_t generic, uint32_t bytes,
                                  uint32_t writers, const uint64_t* values) {
  const bool shared = generic >= kSharedWindow && generic < kSharedWindow + kWindowSize;
  const uint64_t off = shared ? generic - kSharedWindow : generic;
  const uint32_t loc = run_.current_loc();
  auto known = collisions_.find(loc);
  if (known != collisions_.end()) {  // one report per store instruction and launch
    ++known->second.more;
    if (!cfg_.reports_all) return;
  } else {
    known = collisions_.emplace(loc, Collision{reports_.size(), 0}).first;
  }
  if (++race_reports_ + race_warnings_ > 50) {  // as flush_findings: enough to read
    if (!known->second.more) known->second.report = SIZE_MAX;
    return;
  }
  const int first = __builtin_ctz(writers), count = __builtin_popcount(writers);
  Report r;
  r.kind = ReportKind::Race;
  r.severity = Severity::Error;
  r.kernel = run_.kernel_name();
  r.block = static_cast<int64_t>(w.cta->linear);
  r.thread = w.lanes[first].tid_linear;
  r.where = run_.where(I);
  r.title = fmt::format("lost update: {} lanes of one warp stored to one {} memory address in one instruction", count,
                        shared ? "shared" : "global");
  std::string d;
  d += fmt::format("address: {}\n", run_.describe_address(off, shared, w.cta->linear));
  std::string what = "stored there";
  bool same = values != nullptr;
  if (values) {
    for (uint32_t m = writers; m; m &= m - 1)
      if (values[__builtin_ctz(m)] != values[first]) same = false;
    if (same) {
      what = fmt::format("each stored {} there", values[first]);
    } else {
      std::string list;
      int shown = 0;
      for (uint32_t m = writers; m && shown < 8; m &= m - 1, ++shown) {
        const int l = __builtin_ctz(m);
        list += fmt::format("{}lane {}: {}", shown ? ", " : "", l, values[l]);
      }
      if (count > 8) list += ", ...";
      what = fmt::format("stored different values there ({})", list);
    }
  }
  d += fmt::format("{} of warp {} (block {}, threads {}-{}) {} in this one {}-byte store\n", lanes_phrase(writers),
                   w.index, w.cta->linear, w.index * 32, w.index * 32 + 31, what, bytes);
  d += "lanes of a warp are ordered between instructions, never within one: only one lane's store takes effect, "
       "under every warp model and on every GPU, and the other lanes' updates are lost\n";
  if (same)
    d += "if each lane stored what it had read there plus its own change (s[i]++, s[i] += v), all but one of "
         "those changes are lost: use atomicAdd(&s[i], v), or give each lane a slot of its own and combine the "
         "slots afterwards; if it is a flag that every lane sets to the same value, let one lane store it";
  else
    d += "if the lanes were adding to one total or counter, use atomicAdd (atomicMax, ...) on it, or give each "
         "lane a slot of its own and combine the slots afterwards; if one value should win, choose the lane "
         "that stores it (or use atomicExch) so that the winner is defined";
  d += fmt::format("\nfound at warp step {} of the launch under {} scheduling with seed {} (warp model {})",
                   run_.steps(), sched_name(cfg_.sched), cfg_.seed, model_name(cfg_.model));
  r.details = d;
  for (uint32_t m = writers; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    Report::Party p;
    p.block = static_cast<int64_t>(w.cta->linear);
    p.warp = w.index;
    p.lane = l;
    p.where = r.where;
    p.access = "write";
    r.parties.push_back(p);
  }
  r.seed = cfg_.seed;
  r.replay = run_.replay_line();
  reports_.push_back(r);
}

void RaceChecker::finish_reports() {
  if (cfg_.reports_all) return;  // every instance was reported
  auto add = [&](size_t index, uint64_t more) {
    if (!more || index >= reports_.size()) return;
    reports_[index].details += fmt::format(
        "\n... and {} more like it in this launch (other threads, addresses or executions of the same "
        "lines; SYNCLAB_REPORTS=all prints every report)",
        more);
  };
  for (const auto& c : collisions_) add(c.second.report, c.second.more);
  for (const auto& f : report_findings_) add(f.first, race_.repeats(f.second));
}

void RaceChecker::count(Counts& c) const {
  c.race_errors += race_reports_;
  c.race_warnings += race_warnings_;
  for (const auto& f : report_findings_) c.more += race_.repeats(f.second);
  for (const auto& x : collisions_) c.more += x.second.more;
}

}  // namespace synclab::sim

namespace synclab::sim {

namespace {

// "ld.acquire.gpu", "st", "atom.relaxed.sys": the instruction's memory order and scope as PTX
// writes them (atomics and fences without a scope are .gpu).
std::string ptx_access_name(const ptx::Instr& I, bool atomic) {
  std::string s = ptx::op_name(I.op);
  switch (I.sem) {
    case Sem::Volatile: return s + ".volatile";
    case Sem::Relaxed: s += ".relaxed"; break;
    case Sem::Acquire: s += ".acquire"; break;
    case Sem::Release: s += ".release"; break;
    case Sem::AcqRel: s += ".acq_rel"; break;
    case Sem::Sc: s += ".sc"; break;
    default:
      if (!atomic) return s;
      break;
  }
  switch (I.scope == ptx::Scope::None ? ptx::Scope::Gpu : I.scope) {
    case ptx::Scope::Cta: return s + ".cta";
    case ptx::Scope::Cluster: return s + ".cluster";
    case ptx::Scope::Sys: return s + ".sys";
    default: return s + ".gpu";
  }
}

bool narrow_strong(const ptx::Instr& I, bool atomic) {
  return (atomic || !ptx::is_weak(I.sem)) && !HostChecker::reaches_host(I, atomic);
}

}  // namespace

void RaceChecker::host_access(const Warp& w, int lane, uint64_t generic, uint32_t size, const uint8_t* p, bool write,
                              bool atomic, const ptx::Instr& I, const uint64_t* read, const uint64_t* left) {
  host_.access(static_cast<uint32_t>(w.cta->linear), w.lanes[lane].tid_linear, generic, size, p, write, atomic, I, read,
               left);
  if (!host_.findings().empty()) flush_host_findings();
}

void RaceChecker::flush_host_findings() {
  auto& fs = host_.findings();
  for (const HostFinding& f : fs) {
    ++race_reports_;
    if (race_warnings_ + race_reports_ > 50) continue;
    const ptx::Instr& I = *f.instr;
    const bool narrow = narrow_strong(I, f.atomic) || f.host_scope != 0 ||
                        (f.rule == HostFinding::Rule::DeviceAfterHost && f.unacquired && f.unacquired_narrow_fence);
    auto at = [&](const ptx::Instr& J) {
      const SourceLoc s = run_.where(J);
      return !s.file.empty() && s.line
                 ? fmt::format("{}:{} (PTX line {})", s.file, s.line, s.ptx_line)
                 : fmt::format("PTX line {} (build with -lineinfo for the source line)", s.ptx_line);
    };
    const Allocation* a = run_.device_memory().find(f.addr, 1);
    const char* mem = a && a->kind == AllocKind::Managed ? "managed" : "mapped host";
    Report r;
    r.kind = ReportKind::Race;
    r.severity = Severity::Error;
    r.kernel = run_.kernel_name();
    r.block = f.block;
    r.thread = f.thread;
    r.where = run_.where(I);
    r.title = fmt::format("{}race with the host on {} memory", narrow ? "insufficient-scope " : "", mem);
    const char* what = f.atomic ? "atomic" : f.write ? "write" : "read";
    std::string d;
    d += fmt::format("address: {}\n", run_.describe_address(f.addr, false, 0));
    d += fmt::format("this access:  {} ({}) by block {} thread {} (warp {} lane {}) at {}\n", what,
                     ptx_access_name(I, f.atomic), f.block, f.thread, f.thread / 32, f.thread % 32, at(I));
    d += fmt::format("races with:   the host's write of {} to this word, made while the kernel ran, {} this access\n",
                     f.host_value, f.rule == HostFinding::Rule::DeviceAfterHost ? "before" : "after");
    const std::string scope_fix =
        "cuda::atomic_ref<T, cuda::thread_scope_system> (or cuda::atomic<T, "
        "cuda::thread_scope_system>) instead of thread_scope_device, atomicAdd_system/atomicCAS_system/"
        "atomicExch_system instead of atomicAdd/atomicCAS/atomicExch, __threadfence_system() instead of "
        "__threadfence() (PTX: ld.acquire.sys, st.release.sys, fence.sc.sys)";
    const char* host_scope_name = f.host_scope == 2 ? "thread_scope_block" : "thread_scope_device";
    if (f.host_scope) {
      d += fmt::format(
          "the host is a thread outside the GPU: only system scope reaches it. The host wrote this word through a "
          "cuda::atomic_ref<T, cuda::{}> made at {}:{}; a host thread's {} includes no thread of the GPU, so that "
          "write and this {} are not morally strong (PTX ISA, \"Memory Consistency Model\"), and no system-scope "
          "synchronization orders them: the two race, and the device may not see the host's value. Make the "
          "host's reference cuda::atomic_ref<T, cuda::thread_scope_system> (the scope that includes both the host "
          "and the GPU)",
          host_scope_name, f.host_file.empty() ? "?" : f.host_file, f.host_line, host_scope_name,
          ptx_access_name(I, f.atomic));
    } else if (f.rule == HostFinding::Rule::DeviceAfterHost && f.unacquired && f.unacquired_narrow_fence) {
      const ptx::Instr& F = *f.unacquired_narrow_fence;
      const std::string fence_name = F.op == ptx::Op::Membar ? (F.scope == ptx::Scope::Cta ? "membar.cta" : "membar.gl")
                                                             : ptx_access_name(F, false);
      d += fmt::format(
          "the host is a thread outside the GPU: only system scope reaches it. This thread took the host's "
          "hand-over at {} with a relaxed load ({}), and the fence after it, at {} ({}), has {} scope: a relaxed "
          "load and a fence acquire together only for the threads in the fence's scope, and the host is not one "
          "of them, so what the host wrote before its flag is not ordered before this {}. Make that fence "
          "__threadfence_system() (PTX fence.sc.sys), or load the flag with memory_order_acquire through "
          "cuda::atomic_ref<T, cuda::thread_scope_system> (PTX ld.acquire.sys)",
          at(*f.unacquired), ptx_access_name(*f.unacquired, false), at(F), fence_name,
          F.scope == ptx::Scope::Cta ? "block (.cta)" : "device (.gpu)", what);
    } else if (narrow) {
      d += fmt::format(
          "the host is a thread outside the GPU: only system scope reaches it. This {} has {} scope, so it and the "
          "host's access are not morally strong (PTX ISA, \"Memory Consistency Model\"), and no system-scope "
          "synchronization orders them: the two race, and the device may not see the host's value (or the host "
          "the device's). To hand values between the GPU and the host, {}",
          ptx_access_name(I, f.atomic), I.scope == ptx::Scope::Cta ? "block (.cta)" : "device (.gpu)", scope_fix);
    } else if (f.rule == HostFinding::Rule::DeviceAfterHost && f.relaxed_flag_read) {
      d += fmt::format(
          "this thread took the host's hand-over at {} ({}), but the host raised that flag with a relaxed store, "
          "at {}:{} (cuda::atomic_ref store with memory_order_relaxed): a relaxed store releases nothing, so what "
          "the host wrote before it is not ordered before this {}, however the device reads the flag. Store the "
          "flag with memory_order_release on the host",
          at(*f.relaxed_flag_read), ptx_access_name(*f.relaxed_flag_read, false),
          f.relaxed_flag_file.empty() ? "?" : f.relaxed_flag_file, f.relaxed_flag_line, what);
    } else if (f.rule == HostFinding::Rule::DeviceAfterHost && f.unacquired) {
      d += fmt::format(
          "this thread took the host's hand-over at {} with a relaxed load ({}), which does not acquire: what the "
          "host wrote before its flag is not ordered before this {}. Load the flag with memory_order_acquire "
          "(cuda::atomic_ref<T, cuda::thread_scope_system>, PTX ld.acquire.sys), or put __threadfence_system() "
          "right after that load",
          at(*f.unacquired), ptx_access_name(*f.unacquired, false), what);
    } else if (f.rule == HostFinding::Rule::DeviceAfterHost) {
      d += fmt::format(
          "the host wrote this word while the kernel ran, and this plain {} is not ordered after the host's write: "
          "no system-scope acquire by the device read a flag the host raised after writing it. Wait for such a "
          "flag first (load it with cuda::atomic_ref<T, cuda::thread_scope_system> and memory_order_acquire, PTX "
          "ld.acquire.sys), or make this access itself an atomic at system scope",
          what);
    } else if (f.narrow_release) {
      d += fmt::format(
          "the device released after this {}, at {} ({}), but with {} scope: a release publishes only to threads "
          "in its scope, and the host is outside the GPU, so for the host nothing ordered this {} before its "
          "write. {}",
          what, at(*f.narrow_release), ptx_access_name(*f.narrow_release, false),
          f.narrow_release->scope == ptx::Scope::Cta ? "block (.cta)" : "device (.gpu)", what,
          "Make that release system scope: " + scope_fix);
    } else {
      d += fmt::format(
          "no release at system scope by the device came between this {} and the host's write, so nothing tells "
          "the host that the device is done with the word: publish that with a system-scope release after the {} "
          "(a cuda::atomic_ref<T, cuda::thread_scope_system> store with memory_order_release, or "
          "__threadfence_system() before the flag's store) and have the host acquire it before writing",
          what, what);
    }
    d += fmt::format(
        "\nfound at warp step {} of the launch under {} scheduling with seed {} (warp model {}); the host's "
        "writes are seen when the device next touches mapped memory (docs/checkers.md, \"The host\")",
        run_.steps(), sched_name(cfg_.sched), cfg_.seed, model_name(cfg_.model));
    r.details = d;
    Report::Party p;
    p.block = f.block;
    p.warp = f.thread / 32;
    p.lane = f.thread % 32;
    p.where = run_.where(I);
    p.access = f.atomic ? "atomic" : f.write ? "write" : "read";
    r.parties.push_back(p);
    Report::Party h;
    h.access = f.host_scope ? fmt::format("host write ({})", host_scope_name) : "host write";
    if (f.host_scope && !f.host_file.empty()) {
      h.where.file = f.host_file;
      h.where.line = f.host_line;
    }
    r.parties.push_back(h);
    r.seed = cfg_.seed;
    r.replay = run_.replay_line();
    reports_.push_back(r);
  }
  fs.clear();
}

}  // namespace synclab::sim
