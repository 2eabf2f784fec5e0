// The race detector: happens-before over shared, global and mapped host memory.
//
// Every thread carries what it knows about the others (a vector clock, shared between threads
// whose knowledge is equal, as after a barrier). Synchronization adds knowledge:
//   - a block-wide barrier: everything the block did before it (recorded compactly as the block's
//     barrier phase), named barriers and bar.arrive: the arriving threads, one by one;
//   - __syncwarp and __shfl_sync: the lanes named in the mask (votes, match and redux order no
//     memory, as in PTX; the shuffle orders beyond PTX: docs/memory-model.md);
//   - release/acquire: a release (st.release, atom.release, or a fence followed by a strong
//     write) publishes the writer's knowledge at that address; an acquire (ld.acquire,
//     atom.acquire, or a strong read followed by a fence) by another thread takes it, but only
//     when each side's scope includes the other thread (.cta stops at the block);
//   - kernel boundaries and host copies: shadow state starts empty at every launch.
// Each 4-byte granule of shadow memory remembers its last write and the last two reads from
// different threads (epoch: thread, clock, barrier phase, instruction, bytes). An access that
// conflicts with a remembered one the thread does not know about is a race. Atomics never race
// with atomics; strong (relaxed/acquire/release/volatile) accesses of different warps are
// synchronization, not races. Under the lockstep model a warp's own accesses are ordered; under
// its, lanes of one warp need __syncwarp, and such races are reported as warnings.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/exec/config.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

struct Warp;
struct Cta;

// What a thread knows about others. Immutable once shared (copy on write).
struct VClock {
  struct CtaEntry {
    uint32_t cta, phase;  // every access of the block's threads made before its phase-th barrier
  };
  struct ThrEntry {
    uint32_t gid, phase, clock;  // accesses of thread gid with clock <= clock
  };
  std::vector<CtaEntry> ctas;  // sorted by cta
  std::vector<ThrEntry> thr;   // sorted by gid
  // Set by RaceDetector::snapshot (0: not a snapshot, or changed since): the clock is what thread
  // self_gid1 - 1 knew at its clock self_clock (barrier phase self_phase). A clock that knows that
  // thread at that clock knows all of it (RaceDetector's join_snapshot). Cleared by every change.
  uint32_t self_gid1 = 0, self_clock = 0, self_phase = 0;

  uint32_t cta_phase(uint32_t cta) const;
  uint32_t thr_clock(uint32_t gid) const;
  // Whether it knows what thread gid (of block cta) did up to its clock `clock`, made before the
  // block's barrier phase `phase`: through the thread's entry, or a later phase of its block.
  bool knows(uint32_t gid, uint32_t cta, uint32_t clock, uint32_t phase) const {
    return thr_clock(gid) >= clock || cta_phase(cta) > phase;
  }
  void join(const VClock& o);
  // Bit 1: a knows something b does not; bit 2: b knows something a does not (3 also when the
  // two disagree in a way only join() settles).
  static int relate(const VClock& a, const VClock& b);
  void add_cta(uint32_t cta, uint32_t phase);
  void add_thr(uint32_t gid, uint32_t phase, uint32_t clock);
  // Drops thread entries made redundant by block phases (tpc = threads per block).
  void prune(uint32_t tpc);
};
using VCRef = std::shared_ptr<const VClock>;

// One remembered access.
struct Access {
  uint32_t gid1 = 0;  // thread id + 1 (0: none)
  uint32_t clock = 0;
  uint32_t phase = 0;  // the thread's block barrier phase
  uint32_t loc = 0;    // (function << 20) | pc
  uint8_t mask = 0;    // bytes of the granule
  uint8_t flags = 0;   // kWrite | kAtomic | kStrong | kVolatile
  // The low bits of the launch's warp-step counter when the access was made: two lanes' accesses
  // at one instruction with the same step are one execution of it (their collisions are the
  // interpreter's to report, see KernelRun::find_store_collision and RaceChecker::store_collision); a different step is
  // a later execution, which under its is ordered only by synchronization. A wrapped-around match only ever silences a
  // pair, never invents one.
  uint16_t step = 0;
};
static_assert(sizeof(Access) == 20, "shadow cells stay three 20-byte accesses");

struct ShadowCell {
  Access w, r1, r2;
};

// Readers of a cell beyond its last two (r1, r2): a read that pushes r2 out keeps it here when it
// is not ordered before the new reader, so that a later write is checked against every concurrent
// reader (FastTrack's read set). Keyed by RaceDetector::cell_key; at most kMoreReaders a cell.
using ReaderSet = std::unordered_map<uint64_t, std::vector<Access>>;
constexpr size_t kMoreReaders = 32;

// What a thread takes from release states, kept apart from RaceThread so that the fields every
// access reads (clock, phase) of a warp's 32 threads share few cache lines.
struct RaceThreadSync {
  // Knowledge taken from release states but not yet merged into vc. A spinning thread re-reads
  // the same address whose release state only grows (read-modify-writes join into it), so the
  // newest one replaces the held one instead of being merged every iteration; `merged` collects
  // the others. acq: acquire operations (merged before vc is next used); pend_local/remote:
  // strong reads waiting for a fence (same block / other blocks).
  struct Lazy {
    VCRef ref;
    uint64_t key = 0, lineage = 0;
    std::shared_ptr<VClock> merged;
    bool empty() const { return !ref && !merged; }
  };
  Lazy acq, pend_local, pend_remote;
  uint32_t pend_remote_cta = 0;  // a block whose release waits in pend_remote (for reports)
  // The last synchronization that did not count because of its scope, for the report.
  const ptx::Instr* scope_miss = nullptr;
  uint32_t scope_miss_cta = 0;
  // The last value this thread read through an atomic, strong or volatile access that another
  // thread had written the same way (a lock handed over, a flag raised): who wrote it (gid + 1)
  // and the two instructions. When such threads still race, what they lack is release/acquire
  // ordering on that hand-over, and the report says so.
  uint32_t heard_gid1 = 0, heard_write_loc = 0, heard_read_loc = 0;
  uint32_t heard_write_clock = 0, heard_write_phase = 0;  // the writer's clock and phase at that write
  uint16_t heard_write_step = 0;                          // and the warp step's low bits (Access::step)
  bool heard_fenced = false;  // and this thread has fenced since that read (its acquire side is there)
  // Release pattern (PTX ISA, "Release and acquire patterns"): the thread's last release to each of
  // its last two locations; a later strong write of the thread to one of them carries it.
  struct OwnRelease {
    uint64_t key = ~0ull;
    VCRef vc;
    ptx::Scope scope = ptx::Scope::None;
  };
  OwnRelease own_rel[2];
  uint32_t own_rel_next = 0;
  // Fence-SC order: the writers (with what they knew when they wrote) of the values this thread
  // read through strong accesses, or that threads it synchronized with at a barrier read. A
  // fence.sc of another thread that is before such a write must come before this thread's next
  // fence.sc in Fence-SC order (RaceDetector::fence).
  VCRef heard;
  // The writer clock of the last strong read not yet joined into `heard` (RaceDetector::hear):
  // `heard` is needed only at this thread's fence.sc and its barriers, and a read of the same
  // location's later writer clock, which knows all of this one (RaceDetector::WriterClock::chain),
  // replaces it instead of joining it. A thread spinning on a lock joins once per fence.sc then,
  // not once each time the lock's writer clock changes.
  struct PendingWriter {
    VCRef vc;
    uint64_t key = 0, seq = 0;
  } heard_pending;
  // `heard` as this thread's last fence.sc found it, and that fence's scope: the same clock again
  // at a next fence.sc of no wider scope names no fence.sc that was not considered then
  // (RaceDetector::fence). (A fence.sc.cta considers only its block's fences: a fence.sc.gpu
  // after it must look again.)
  VCRef heard_at_fence;
  ptx::Scope heard_at_fence_scope = ptx::Scope::None;
  // The last writer clock (RaceDetector::writers_) found to know all of vc, and that vc: a spinning
  // read-modify-write of this thread checks the two once.
  VCRef known_w, known_vc;
};

struct RaceThread {
  uint32_t clock = 1;
  uint32_t phase = 0;
  ptx::Scope fence_scope = ptx::Scope::None;
  bool fenced = false;          // executed a fence since its last barrier (bar.sync)
  bool fence_last = false;      // and no memory access since the last one
  RaceThreadSync* s = nullptr;  // this thread's entry of RaceCta::sync
  VCRef vc;                     // knowledge of others (null: none)
  VCRef fence_rel;              // knowledge at the last fence: a later strong write releases it
  using Lazy = RaceThreadSync::Lazy;
};

struct RaceCta {
  std::vector<RaceThread> t;
  std::vector<RaceThreadSync> sync;  // per thread, t[i].s
  std::vector<ShadowCell> shared;
  std::unordered_map<uint64_t, std::array<ShadowCell, 4>> split;  // shared granules kept per byte
  ReaderSet more_readers;                                         // of shared cells
  uint32_t phase = 0;
  struct Bar {
    std::shared_ptr<VClock> acc;
    std::vector<VClock::ThrEntry> arrivers;
    bool partial = false;
    uint32_t pc = ~0u, func = ~0u;  // the first arrival's instruction (divergence check)
    VCRef last_joined;              // the knowledge last joined into acc
    VCRef heard;                    // what the arrivals heard of (RaceThreadSync::heard), joined
  } bars[16];
};

struct RaceFinding {
  // The earlier access (from shadow) and the current one.
  Access prev;
  uint32_t cur_gid;
  uint32_t cur_loc;
  uint8_t cur_flags;
  uint64_t addr;
  bool shared;
  bool warp_level;  // same warp, its model: a warning
  // Lanes of one warp passing values through volatile memory with no fence and no __syncwarp (the
  // pre-Volta warp-synchronous idiom): the one strong pair that races (RaceDetector::check).
  bool warp_exchange = false;
  const ptx::Instr* scope_miss = nullptr;
  uint32_t scope_miss_cta = 0;
  // The current thread's last hand-over (RaceThreadSync::heard_*; heard_gid1 0: none), and
  // whether it holds a release it read but has not acquired (no fence after the read yet).
  uint32_t heard_gid1 = 0, heard_write_loc = 0, heard_read_loc = 0;
  bool heard_fenced = false;
  // This thread holds, not yet acquired (no fence after the read), a release that would have
  // ordered the earlier access: a fence or an acquire after that read fixes the race.
  bool unacquired = false;
  // This thread's last hand-over came from the earlier access's thread, and this thread did
  // acquire from that thread, but the access comes after the handing-over store in its thread's
  // program, so no release there publishes it (a slot read after its "free" flag was raised).
  bool after_release = false;
};

class RaceDetector {
 public:
  static constexpr uint8_t kWrite = 1, kAtomic = 2, kStrong = 4, kVolatile = 8;
  static constexpr uint8_t kCtaScope = 16;    // an atomic or strong access with .cta scope
  static constexpr uint8_t kAfterFence = 32;  // the thread's first memory access after a fence
  // A volatile access taken as plain data (SYNCLAB_VOLATILE=data): it orders nothing and races
  // like a plain access; the flag only changes the report's words.
  static constexpr uint8_t kVolatileData = 64;
  static constexpr uint8_t kSplit = 128;  // ShadowCell::w only: the granule is kept per byte

  RaceDetector(WarpModel model, uint32_t threads_per_cta, size_t shared_bytes);

  void start_cta(Cta& c);
  // A data access of `size` bytes at `addr` (shared offset when shared, else the host address).
  // Returns false when a new race was found (then take_finding()).
  bool access(const Cta& c, uint32_t tid, uint32_t warp, bool shared, uint64_t addr, uint32_t size, uint8_t flags,
              uint32_t loc);
  // The same for the active lanes of one warp instruction, in lane order (lane l is thread
  // warp * 32 + l of the block, at addr[l] + adjust): what `act` calls of access() would do.
  bool access_row(const Cta& c, uint32_t warp, uint32_t act, const uint64_t* addr, uint64_t adjust, bool shared,
                  uint32_t size, uint8_t flags, uint32_t loc);
  // Memory-order effects of strong accesses (after access()). version: under the relaxed memory
  // model, which write the read read (ConsistencyModel::read_version; 0: memory's newest).
  void strong_read(const Cta& c, uint32_t tid, uint64_t key, const ptx::Instr& I, uint64_t version = 0);
  void strong_write(const Cta& c, uint32_t tid, uint64_t key, const ptx::Instr& I, bool rmw);
  void plain_write(uint64_t key) {
    if (!sync_.empty()) forget_sync(key);
  }
  // Under the relaxed memory model: the write just made at `key` (after strong_write or
  // plain_write) is the model's write `version` (ConsistencyModel::write_version).
  void version_written(uint64_t key, uint64_t version);
  // Whether any address holds a release state (else plain writes have nothing to forget).
  bool any_sync() const { return !sync_.empty(); }
  // Whether any address has versions recorded (else version_written of an address without a release
  // state records nothing).
  bool any_versions() const { return !versions_.empty(); }
  void fence(const Cta& c, uint32_t tid, const ptx::Instr& I);
  void barrier_arrive(const Cta& c, uint32_t tid, uint32_t id, bool partial);
  void barrier_release(const Cta& c, uint32_t id, const std::vector<uint32_t>& waiters, uint32_t live_threads);
  void warp_sync(const Cta& c, uint32_t warp, uint32_t lanes);

  // Every racing pair of accesses becomes a finding, not only the first of each pair of
  // instructions (SYNCLAB_REPORTS=all).
  void set_report_all(bool all) { report_all_ = all; }
  // The warp step whose accesses follow (see Access::step).
  void set_step(uint64_t step) { step_ = static_cast<uint16_t>(step); }
  std::vector<RaceFinding>& findings() { return findings_; }
  // How many more times the pair of instructions of a reported finding raced in this launch.
  uint64_t repeats(const RaceFinding& f) const;
  uint32_t threads_per_cta() const { return tpc_; }
  ~RaceDetector();
  RaceDetector(const RaceDetector&) = delete;
  RaceDetector& operator=(const RaceDetector&) = delete;

 private:
  bool known(RaceThread& t, uint32_t gid, uint32_t cta, const Access& a);
  // check()'s verdict "no race" where it needs nothing but the two epochs (and has no side
  // effects): most accesses end here, without the divisions and the vector-clock lookup.
  // (Always inlined: it is most of access_row's work, and GCC stopped inlining it there once
  // race_detector.cpp grew.)
  __attribute__((always_inline)) bool quick_clean(const Access& prev, const RaceThread& t, uint32_t gid1,
                                                  uint32_t cbase, uint32_t warp, uint8_t flags, uint8_t mask) const {
    if (!prev.gid1 || !(prev.mask & mask)) return true;
    const uint8_t both = prev.flags | flags;
    if (!(both & kWrite)) return true;                                       // read/read
    if (prev.gid1 == gid1) return true;                                      // the same thread
    if ((prev.flags & flags & kAtomic) && !(both & kCtaScope)) return true;  // atomic/atomic
    const uint32_t rel = prev.gid1 - 1 - cbase;                              // the earlier thread's index in this block
    if (rel < tpc_) {
      if (prev.phase < t.phase) return true;                        // before a block-wide barrier this thread passed
      if (warp_is_unit(model_) && (rel >> 5) == warp) return true;  // the same warp
    }
    return false;
  }
  bool access_lane(RaceCta& rc, RaceThread& t, uint32_t cta, uint32_t gid, uint32_t warp, bool shared, uint64_t addr,
                   uint32_t size, uint8_t flags, uint32_t loc);
  bool access_cell(RaceCta& rc, Access& w, Access& r1, Access& r2, RaceThread& t, uint32_t cta, uint32_t gid,
                   uint32_t warp, bool shared, uint64_t addr, uint64_t g, uint8_t mask, uint8_t flags, uint32_t loc);
  bool access_split(RaceCta& rc, Access& w, Access& r1, Access& r2, const Access& cur, RaceThread& t, uint32_t cta,
                    uint32_t gid, uint32_t warp, bool shared, uint64_t addr, uint64_t g, bool split_now);
  // Under lockstep a warp is one thread of control: its lanes share one RaceThread (the first
  // lane's slot), so a lane's release covers what its warp-mates did before it in the warp's
  // single instruction stream, and an acquire by one lane orders the lanes that run after it.
  uint32_t slot(uint32_t tid) const { return warp_is_unit(model_) ? tid & ~31u : tid; }
  uint32_t sync_gid(uint32_t gid) const { return warp_is_unit(model_) ? gid - (gid % tpc_) % 32 : gid; }
  static bool same_epoch(const Access& a, const Access& b) {
    return a.gid1 == b.gid1 && a.clock == b.clock && a.phase == b.phase;
  }
  bool update(RaceCta& rc, Access& w, Access& r1, Access& r2, const Access& cur, RaceThread& t, uint32_t gid,
              uint32_t cta, uint32_t warp, uint64_t addr, bool shared, uint64_t key);
  // A cell's key in a ReaderSet: granule g's address, times 8, plus 4 + b for byte b of a split one.
  static uint64_t cell_key(uint64_t g, int byte = -1) { return g << 3 | (byte < 0 ? 0 : 4 + byte); }
  // r2 is pushed out by a read of thread t: keep it when it is not ordered before t.
  void keep_reader(ReaderSet& more, uint64_t key, const Access& r2, RaceThread& t, uint32_t gid, uint32_t cta);
  bool check(RaceThread& t, uint32_t gid, uint32_t cta, uint32_t warp, const Access& prev, uint8_t flags, uint8_t mask,
             uint32_t loc, uint64_t addr, bool shared);
  VCRef snapshot(RaceThread& t, uint32_t gid, uint32_t cta);
  void settle(RaceThread& t);  // merges t.acq into t.vc
  static void take(RaceThread::Lazy& z, const VCRef& v, uint64_t key, uint64_t lineage);
  void drain(VCRef& vc, RaceThread::Lazy& z);

  WarpModel model_;
  uint32_t tpc_;
  size_t shared_bytes_;
  // Global shadow memory: per 16 KiB page, the cells' last writes, first and second reads in three
  // arrays, each allocated when the page first needs it (memory that is only read, like a
  // kernel's input, has no write array). Arrays come from a pool kept across launches: a fresh
  // array per page and launch costs page faults.
  static constexpr int kPageShift = 14;
  static constexpr uint32_t kPageCells = (1u << kPageShift) / 4;
  struct GlobalPage {
    Access* w = nullptr;
    Access* r1 = nullptr;
    Access* r2 = nullptr;
  };
  GlobalPage& global_page(uint64_t addr) {
    const uint64_t page = addr >> kPageShift;
    if (page != last_page_) {
      last_gpage_ = &pages_[page];  // node-based: the pointer stays valid
      last_page_ = page;
    }
    return *last_gpage_;
  }
  std::unordered_map<uint64_t, GlobalPage> pages_;
  std::unordered_map<uint64_t, std::array<ShadowCell, 4>> split_;  // global granules kept per byte
  ReaderSet more_readers_;                                         // of global cells
  uint64_t last_page_ = ~0ull;
  GlobalPage* last_gpage_ = nullptr;
  // What the writes to one address have released: `wide` at device or system scope (any
  // thread may acquire it), `narrow` at block scope, per releasing block (only that block's
  // threads may). A read-modify-write joins into the state (a release sequence); a store
  // replaces it.
  static constexpr uint32_t kManyCtas = ~0u;
  struct LocSync {
    VCRef wide;
    uint32_t wide_cta = 0;  // the block that released `wide`, or kManyCtas
    uint64_t lineage = 0;   // changes whenever `wide` is replaced rather than grown
    const ptx::Instr* wide_instr = nullptr;
    struct Narrow {
      uint32_t cta;
      VCRef vc;
      uint64_t lineage;
    };
    std::vector<Narrow> narrow;
    const ptx::Instr* narrow_instr = nullptr;
    bool empty() const { return !wide && narrow.empty(); }
  };
  uint64_t next_lineage_ = 1;
  // Fence-SC order (PTX ISA, "Fence-SC order"). Fence-SC order is total on morally strong fence.sc,
  // but not every order is possible: if fence F2's thread read (before F2) a value written after
  // fence F1, F1 must be before F2 (else F2's read would be before, in causality order, the write it
  // reads). Only those orders are taken as synchronization; a pair that either order allows orders
  // nothing (a race that shows only in one order of the two fences is still a race).
  struct ScFence {
    uint32_t phase, clock;  // the fencing thread's barrier phase and clock at the fence
    VCRef snap;             // what it knew
    ptx::Scope scope;
    uint32_t cta;
  };
  std::unordered_map<uint32_t, std::vector<ScFence>> sc_fences_;  // by thread (sync_gid), in the order run
  std::unordered_map<uint32_t, uint32_t> sc_min_phase_;           // per block: the lowest phase of its fences there
  // Per location: the last strong write's writer and what it knew (a read-modify-write joins
  // what the writes it continues knew: a read of it observes them too). seq numbers the clocks
  // made (over all locations); chain is the seq of the first clock of the location's run of
  // read-modify-writes that this one ends, each knowing all of the one before: every clock of the
  // location with a seq from chain to seq is known by this one.
  struct WriterClock {
    VCRef vc;
    uint64_t seq = 0, chain = 0;
  };
  std::unordered_map<uint64_t, WriterClock> writers_;
  uint64_t writer_seq_ = 0;
  // A strong read of `key` whose write's writer clock is w (Fence-SC order's `heard`), and the
  // join of what such reads left pending, before `heard` is used.
  void hear(RaceThread& t, uint64_t key, const WriterClock& w);
  void hear_now(RaceThread& t);
  std::unordered_map<uint64_t, LocSync> sync_;  // release state per synchronization address
  // The entry found last (a spinning warp polls one address); ~0: none. Erasing forgets it.
  uint64_t sync_key_ = ~0ull;
  LocSync* sync_hit_ = nullptr;
  LocSync* find_sync(uint64_t key) {
    if (key == sync_key_) return sync_hit_;
    auto it = sync_.find(key);
    if (it == sync_.end()) return nullptr;
    sync_key_ = key;
    sync_hit_ = &it->second;
    return sync_hit_;
  }
  void forget_sync(uint64_t key);
  // Under the relaxed memory model a load may read an older write than memory's newest: the
  // release state (and, for Fence-SC order, the writer) that each recent write of a location left
  // behind, by the model's version of the write, so that the read acquires what the write it read
  // released. Kept for locations that ever held a release state; the last eight writes of each.
  struct Version {
    uint64_t v;
    LocSync sync;
    VCRef writer;
  };
  struct Versions {
    static constexpr uint32_t kKept = 8;
    std::array<Version, kKept> ring;  // the oldest at head (a ring: the ninth write reuses the first's place)
    uint32_t head = 0, count = 0;
    bool dropped = false;                                                     // older writes were forgotten
    const Version& at(uint32_t i) const { return ring[(head + i) % kKept]; }  // i-th oldest
    Version& next() {  // the place of a new write, the oldest's once all are in use
      if (count < kKept) return ring[(head + count++) % kKept];
      Version& oldest = ring[head];
      head = (head + 1) % kKept;
      dropped = true;
      return oldest;
    }
  };
  std::unordered_map<uint64_t, Versions> versions_;
  std::vector<RaceFinding> findings_;
  // Instruction pairs (and warp-level) already reported, with how many more times each raced.
  std::map<std::tuple<uint32_t, uint32_t, bool>, uint64_t> seen_;
  uint16_t step_ = 0;
  bool report_all_ = false;
};

}  // namespace synclab::sim
