// The race detector (race_detector.h): vector clocks, shadow memory and what synchronization adds.
//
// Where things are (the sections below, in this order):
//   Vector clocks       VClock: cta_phase, thr_clock, join, relate, add_cta, add_thr, prune
//   Clock helpers       scopes and orders (effective, narrower, acquires, releases); join_into, join_snapshot
//                       (joins that share a clock instead of copying it where they can)
//   Array pool          ArrayPool, take_array, give_array: global shadow arrays kept for the next launch
//   Setup               RaceDetector's constructor and destructor; start_cta (a block's shadow state)
//   Pending knowledge   take, drain, settle: releases taken but not yet joined into the thread's clock
//   Race check          known, check (a conflict the thread does not know of -> a RaceFinding), repeats
//   Accesses            access, access_row, access_lane (4-byte granules of shared memory or global pages),
//                       access_cell, access_split (a granule kept byte by byte), update, keep_reader
//   Release and acquire snapshot, version_written, strong_read, strong_write, forget_sync
//   Fences              fence: its acquire and release halves, and Fence-SC order (sc_fences_)
//   Barriers and warps  barrier_arrive, barrier_release, warp_sync
#include "sim/check/race_detector.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "sim/exec/warp.h"

namespace synclab::sim {

using ptx::Scope;
using ptx::Sem;

// ---------------------------------------------------------------------------------------------
// Vector clocks
// ---------------------------------------------------------------------------------------------

uint32_t VClock::cta_phase(uint32_t cta) const {
  auto it = std::lower_bound(ctas.begin(), ctas.end(), cta, [](const CtaEntry& e, uint32_t c) { return e.cta < c; });
  return it != ctas.end() && it->cta == cta ? it->phase : 0;
}

uint32_t VClock::thr_clock(uint32_t gid) const {
  auto it = std::lower_bound(thr.begin(), thr.end(), gid, [](const ThrEntry& e, uint32_t g) { return e.gid < g; });
  return it != thr.end() && it->gid == gid ? it->clock : 0;
}

void VClock::join(const VClock& o) {
  self_gid1 = 0;
  if (!o.ctas.empty()) {
    std::vector<CtaEntry> out;
    out.reserve(ctas.size() + o.ctas.size());
    size_t i = 0, j = 0;
    while (i < ctas.size() || j < o.ctas.size()) {
      if (j == o.ctas.size() || (i < ctas.size() && ctas[i].cta < o.ctas[j].cta))
        out.push_back(ctas[i++]);
      else if (i == ctas.size() || o.ctas[j].cta < ctas[i].cta)
        out.push_back(o.ctas[j++]);
      else {
        out.push_back({ctas[i].cta, std::max(ctas[i].phase, o.ctas[j].phase)});
        ++i, ++j;
      }
    }
    ctas.swap(out);
  }
  if (!o.thr.empty()) {
    std::vector<ThrEntry> out;
    out.reserve(thr.size() + o.thr.size());
    size_t i = 0, j = 0;
    while (i < thr.size() || j < o.thr.size()) {
      if (j == o.thr.size() || (i < thr.size() && thr[i].gid < o.thr[j].gid))
        out.push_back(thr[i++]);
      else if (i == thr.size() || o.thr[j].gid < thr[i].gid)
        out.push_back(o.thr[j++]);
      else {
        out.push_back(thr[i].clock >= o.thr[j].clock ? thr[i] : o.thr[j]);
        ++i, ++j;
      }
    }
    thr.swap(out);
  }
}

int VClock::relate(const VClock& a, const VClock& b) {
  int r = 0;
  size_t i = 0, j = 0;
  while (i < a.ctas.size() || j < b.ctas.size()) {
    if (j == b.ctas.size() || (i < a.ctas.size() && a.ctas[i].cta < b.ctas[j].cta))
      r |= 1, ++i;
    else if (i == a.ctas.size() || b.ctas[j].cta < a.ctas[i].cta)
      r |= 2, ++j;
    else {
      if (a.ctas[i].phase != b.ctas[j].phase) r |= a.ctas[i].phase > b.ctas[j].phase ? 1 : 2;
      ++i, ++j;
    }
  }
  if (a.thr.size() == b.thr.size()) {
    // Usually the same threads in both: compare clock by clock, without branches.
    uint32_t gid_diff = 0, more = 0, less = 0, odd = 0;
    for (size_t k = 0; k < a.thr.size(); ++k) {
      const ThrEntry &x = a.thr[k], &y = b.thr[k];
      gid_diff |= x.gid ^ y.gid;
      more |= x.clock > y.clock;
      less |= x.clock < y.clock;
      odd |= (x.clock == y.clock) & (x.phase != y.phase);
    }
    if (!gid_diff) return odd ? 3 : r | (more ? 1 : 0) | (less ? 2 : 0);
  }
  i = j = 0;
  while (i < a.thr.size() || j < b.thr.size()) {
    if (r == 3) return r;
    if (j == b.thr.size() || (i < a.thr.size() && a.thr[i].gid < b.thr[j].gid))
      r |= 1, ++i;
    else if (i == a.thr.size() || b.thr[j].gid < a.thr[i].gid)
      r |= 2, ++j;
    else {
      const ThrEntry &x = a.thr[i], &y = b.thr[j];
      if (x.clock != y.clock)
        r |= x.clock > y.clock ? 1 : 2;
      else if (x.phase != y.phase)
        r = 3;  // not expected; the plain join decides
      ++i, ++j;
    }
  }
  return r;
}

void VClock::add_cta(uint32_t cta, uint32_t phase) {
  self_gid1 = 0;
  auto it = std::lower_bound(ctas.begin(), ctas.end(), cta, [](const CtaEntry& e, uint32_t c) { return e.cta < c; });
  if (it != ctas.end() && it->cta == cta)
    it->phase = std::max(it->phase, phase);
  else
    ctas.insert(it, {cta, phase});
}

void VClock::add_thr(uint32_t gid, uint32_t phase, uint32_t clock) {
  self_gid1 = 0;
  auto it = std::lower_bound(thr.begin(), thr.end(), gid, [](const ThrEntry& e, uint32_t g) { return e.gid < g; });
  if (it != thr.end() && it->gid == gid) {
    if (clock > it->clock) *it = {gid, phase, clock};
  } else {
    thr.insert(it, {gid, phase, clock});
  }
}

void VClock::prune(uint32_t tpc) {
  if (ctas.empty() || thr.empty()) return;
  thr.erase(std::remove_if(thr.begin(), thr.end(), [&](const ThrEntry& e) { return e.phase < cta_phase(e.gid / tpc); }),
            thr.end());
}

namespace {

Scope effective(Scope s) { return s == Scope::None ? Scope::Gpu : s; }
Scope narrower(Scope a, Scope b) {
  return static_cast<int>(effective(a)) < static_cast<int>(effective(b)) ? effective(a) : effective(b);
}
bool acquires(Sem s) { return s == Sem::Acquire || s == Sem::AcqRel || s == Sem::Sc; }
bool releases(Sem s) { return s == Sem::Release || s == Sem::AcqRel || s == Sem::Sc; }

// A copy of src (none: an empty clock) with room for one more block entry and one more thread
// entry, so that the add_cta and add_thr that follow it do not move it again.
std::shared_ptr<VClock> copy_with_room(const VCRef& src) {
  auto v = std::make_shared<VClock>();
  if (src) {
    v->ctas.reserve(src->ctas.size() + 1);
    v->ctas.assign(src->ctas.begin(), src->ctas.end());
    v->thr.reserve(src->thr.size() + 1);
    v->thr.assign(src->thr.begin(), src->thr.end());
  }
  return v;
}

void join_into(VCRef& dst, const VClock& src, uint32_t tpc) {
  // dst is pruned: when it already knows all that src does, the join is dst itself.
  if (dst && !(VClock::relate(*dst, src) & 2)) return;
  auto v = std::make_shared<VClock>(dst ? *dst : VClock{});
  v->join(src);
  v->prune(tpc);
  dst = std::move(v);
}

// The same for a clock that is already pruned (every shared VCRef is): with no knowledge yet, or
// the same knowledge, the result is src itself, so it is shared instead of copied.
void join_into(VCRef& dst, const VCRef& src, uint32_t tpc) {
  if (dst == src) return;
  if (!dst) {
    dst = src;
    return;
  }
  const int r = VClock::relate(*dst, *src);
  if (!(r & 2)) return;  // dst knows all that src does: the join is dst
  if (!(r & 1)) {        // and the other way round: the join is src
    dst = src;
    return;
  }
  auto v = std::make_shared<VClock>(*dst);
  v->join(*src);
  v->prune(tpc);
  dst = std::move(v);
}

// The same for a snapshot (VClock::self_gid1 set): when dst knows the snapshot's thread at or after
// the snapshot's clock, it knows all of the snapshot (every thread entry of a clock comes with that
// thread's whole knowledge at that clock, and a block phase with its threads' at the barrier), so
// the join adds nothing and no comparison of the two is needed. Only for dst of that kind: clocks
// of what threads know (vc, release states), not the writer clocks of Fence-SC order.
void join_snapshot(VCRef& dst, const VCRef& snap, uint32_t tpc) {
  if (dst && snap && snap->self_gid1) {
    const uint32_t g = snap->self_gid1 - 1;
    if (dst->knows(g, g / tpc, snap->self_clock, snap->self_phase)) return;
  }
  join_into(dst, snap, tpc);
}

// Arrays of global shadow cells (RaceDetector::GlobalPage), kept for the next launch.
constexpr size_t kPoolMax = 2048;  // 160 MiB of 80 KiB arrays
struct ArrayPool {
  std::mutex m;
  std::vector<Access*> free;
};
ArrayPool& array_pool() {
  static ArrayPool* p = new ArrayPool;  // never destroyed: detectors may outlive static destruction
  return *p;
}
Access* take_array(size_t cells) {
  {
    ArrayPool& p = array_pool();
    std::lock_guard<std::mutex> lock(p.m);
    if (!p.free.empty()) {
      Access* a = p.free.back();
      p.free.pop_back();
      std::fill_n(a, cells, Access{});
      return a;
    }
  }
  return new Access[cells]();
}
void give_array(Access* a) {
  if (!a) return;
  ArrayPool& p = array_pool();
  std::lock_guard<std::mutex> lock(p.m);
  if (p.free.size() < kPoolMax)
    p.free.push_back(a);
  else
    delete[] a;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The detector
// ---------------------------------------------------------------------------------------------

RaceDetector::RaceDetector(WarpModel model, uint32_t threads_per_cta, size_t shared_bytes)
    : model_(model), tpc_(threads_per_cta), shared_bytes_(shared_bytes) {}

RaceDetector::~RaceDetector() {
  for (auto& [page, P] : pages_) {
    give_array(P.w);
    give_array(P.r1);
    give_array(P.r2);
  }
}

void RaceDetector::start_cta(Cta& c) {
  if (!c.race) c.race = std::make_shared<RaceCta>();
  RaceCta& rc = *c.race;
  rc.t.assign(tpc_, RaceThread{});
  rc.sync.assign(tpc_, RaceThreadSync{});
  for (uint32_t i = 0; i < tpc_; ++i) rc.t[i].s = &rc.sync[i];
  rc.shared.assign((shared_bytes_ + 3) / 4, ShadowCell{});
  rc.phase = 0;
  rc.split.clear();
  rc.more_readers.clear();
  for (auto& b : rc.bars) b = RaceCta::Bar{};
}

void RaceDetector::take(RaceThread::Lazy& z, const VCRef& v, uint64_t key, uint64_t lineage) {
  if (z.ref && z.key == key && z.lineage == lineage) {
    if (z.ref != v) z.ref = v;  // the same address, only grown since: the new state includes the held one
    return;
  }
  if (z.ref) {
    if (!z.merged) z.merged = std::make_shared<VClock>();
    z.merged->join(*z.ref);
  }
  z.ref = v;
  z.key = key;
  z.lineage = lineage;
}

void RaceDetector::drain(VCRef& vc, RaceThread::Lazy& z) {
  if (z.merged) join_into(vc, *z.merged, tpc_);
  if (z.ref) join_into(vc, z.ref, tpc_);
  z = RaceThread::Lazy{};
}

void RaceDetector::settle(RaceThread& t) {
  if (!t.s->acq.empty()) drain(t.vc, t.s->acq);
}

bool RaceDetector::known(RaceThread& t, uint32_t gid, uint32_t cta, const Access& a) {
  const uint32_t agid = a.gid1 - 1;
  if (agid == gid) return true;
  const uint32_t acta = agid / tpc_;
  if (acta == cta) {
    if (a.phase < t.phase) return true;
    if (warp_is_unit(model_) && (agid % tpc_) / 32 == (gid % tpc_) / 32) return true;
  }
  settle(t);
  return t.vc && t.vc->knows(sync_gid(agid), acta, a.clock, a.phase);
}

bool RaceDetector::check(RaceThread& t, uint32_t gid, uint32_t cta, uint32_t warp, const Access& prev, uint8_t flags,
                         uint8_t mask, uint32_t loc, uint64_t addr, bool shared) {
  if (!prev.gid1 || !(prev.mask & mask)) return true;
  if (!((prev.flags | flags) & kWrite)) return true;  // read/read
  const uint32_t agid = prev.gid1 - 1;
  // Atomics and strong accesses are atomic towards each other only within their scope:
  // atomicAdd_block from two blocks on one word is two unsynchronized read-modify-writes.
  const bool scope_clash = agid / tpc_ != cta && ((prev.flags | flags) & kCtaScope);
  if ((prev.flags & kAtomic) && (flags & kAtomic) && !scope_clash) return true;
  if (agid == gid) return true;
  const bool same_warp = agid / tpc_ == cta && (agid % tpc_) / 32 == warp;
  // One execution of one instruction by lanes of a warp: the interpreter reports its collisions
  // (KernelRun::find_store_collision, RaceChecker::store_collision). A later execution of the same instruction is an
  // ordinary pair of accesses below (ordered under lockstep, needs __syncwarp under its).
  if (same_warp && prev.loc == loc && prev.step == step_) return true;
  constexpr uint8_t kSync = kAtomic | kStrong | kVolatile;
  bool warp_level = same_warp && !warp_is_unit(model_);
  bool warp_exchange = false;
  if ((prev.flags & kSync) && (flags & kSync) && !scope_clash) {
    // Strong accesses synchronize rather than race. One exception: lanes of one warp passing
    // data through volatile memory (shared or global) with no fence and no __syncwarp at all,
    // which is the pre-Volta warp-synchronous idiom (the unrolled last warp of a reduction).
    // Under ITS it needs __syncwarp. Flags and locks between lanes (Peterson) use fences and
    // stay silent: the current thread has fenced since its last barrier, or the earlier access
    // wrote a flag right after a fence (a release: data before it is published, the reader's
    // fence after its read is the acquire; if that is missing, the data race shows on the data
    // itself).
    const bool both_volatile =
        (prev.flags & kVolatile) && (flags & kVolatile) && !((prev.flags | flags) & (kAtomic | kStrong));
    const bool released_flag = (prev.flags & (kWrite | kAfterFence)) == (kWrite | kAfterFence);
    if (!warp_level || !both_volatile || t.fenced || released_flag) return true;
    warp_exchange = true;
  }
  if (known(t, gid, cta, prev)) return true;
  const uint32_t a = std::min(prev.loc, loc), b = std::max(prev.loc, loc);
  auto seen = seen_.try_emplace({a, b, warp_level}, 0);
  if (!seen.second) {
    ++seen.first->second;
    if (!report_all_) return true;
  }
  RaceFinding f;
  f.prev = prev;
  f.cur_gid = gid;
  f.cur_loc = loc;
  f.cur_flags = flags;
  f.addr = addr;
  f.shared = shared;
  f.warp_level = warp_level;
  f.warp_exchange = warp_exchange;
  f.scope_miss = t.s->scope_miss;
  f.scope_miss_cta = t.s->scope_miss_cta;
  f.heard_gid1 = t.s->heard_gid1;
  f.heard_write_loc = t.s->heard_write_loc;
  f.heard_read_loc = t.s->heard_read_loc;
  f.heard_fenced = t.s->heard_fenced;
  // Pending (read, not yet acquired) releases count only where they would order the earlier
  // access: a thread that re-reads its own released flag holds nothing that helps.
  const uint32_t agid_sync = sync_gid(prev.gid1 - 1), acta = (prev.gid1 - 1) / tpc_;
  auto orders_prev = [&](const VClock* v) {
    return v && (v->cta_phase(acta) > prev.phase || v->thr_clock(agid_sync) >= prev.clock);
  };
  auto pending_orders = [&](const RaceThread::Lazy& z) {
    return orders_prev(z.ref.get()) || orders_prev(z.merged.get());
  };
  f.unacquired = pending_orders(t.s->pend_local) || pending_orders(t.s->pend_remote);
  settle(t);
  // The hand-over this thread took last: from the other access's thread, whose access came after
  // that store (a release made before the access); or through a third thread's store (a lock word
  // that several threads update), which passed on a release the other thread made earlier. A
  // hand-over from the other thread at or after its access is a store that did not release (the
  // advice about the missing fence fits that one).
  // (A thread's clock moves only at its releases, so accesses between two releases share one: the
  // step counter, whose low bits each access keeps, orders them.)
  const bool after_handover =
      t.s->heard_gid1 == prev.gid1
          ? (prev.phase > t.s->heard_write_phase ||
             (prev.phase == t.s->heard_write_phase &&
              (prev.clock > t.s->heard_write_clock ||
               (prev.clock == t.s->heard_write_clock && int16_t(uint16_t(prev.step - t.s->heard_write_step)) > 0))))
          : t.s->heard_gid1 != 0;
  f.after_release = after_handover && t.vc && t.vc->thr_clock(agid_sync) > 0 && !orders_prev(t.vc.get());
  findings_.push_back(f);
  return false;
}

uint64_t RaceDetector::repeats(const RaceFinding& f) const {
  const uint32_t a = std::min(f.prev.loc, f.cur_loc), b = std::max(f.prev.loc, f.cur_loc);
  auto it = seen_.find({a, b, f.warp_level});
  return it == seen_.end() ? 0 : it->second;
}

bool RaceDetector::access(const Cta& c, uint32_t tid, uint32_t warp, bool shared, uint64_t addr, uint32_t size,
                          uint8_t flags, uint32_t loc) {
  RaceCta& rc = *c.race;
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  return access_lane(rc, rc.t[slot(tid)], cta, cta * tpc_ + tid, warp, shared, addr, size, flags, loc);
}

bool RaceDetector::access_row(const Cta& c, uint32_t warp, uint32_t act, const uint64_t* addr, uint64_t adjust,
                              bool shared, uint32_t size, uint8_t flags, uint32_t loc) {
  RaceCta& rc = *c.race;
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  const uint32_t tid0 = warp * 32;
  bool clean = true;
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = __builtin_ctz(m);
    clean &= access_lane(rc, rc.t[slot(tid0 + l)], cta, cta * tpc_ + tid0 + l, warp, shared, addr[l] + adjust, size,
                         flags, loc);
  }
  return clean;
}

inline __attribute__((always_inline)) bool RaceDetector::access_lane(RaceCta& rc, RaceThread& t, uint32_t cta,
                                                                     uint32_t gid, uint32_t warp, bool shared,
                                                                     uint64_t addr, uint32_t size, uint8_t flags,
                                                                     uint32_t loc) {
  if (t.fence_last) {
    flags |= kAfterFence;
    t.fence_last = false;
  }
  bool clean = true;
  const uint64_t end = addr + size;
  for (uint64_t g = addr & ~3ull; g < end; g += 4) {
    const uint64_t lo = std::max(g, addr), hi = std::min(g + 4, end);
    const uint8_t mask = static_cast<uint8_t>(((1u << (hi - lo)) - 1) << (lo - g));
    if (shared) {
      if ((g >> 2) >= rc.shared.size()) continue;
      ShadowCell& cell = rc.shared[g >> 2];
      clean &= access_cell(rc, cell.w, cell.r1, cell.r2, t, cta, gid, warp, true, addr, g, mask, flags, loc);
      continue;
    }
    // Global: an array the page does not have yet reads as empty cells; it is allocated when
    // something is to be kept in it.
    GlobalPage& P = global_page(g);
    const uint32_t i = static_cast<uint32_t>((g & ((1u << kPageShift) - 1)) >> 2);
    if ((flags & (kWrite | kAtomic)) && !P.w) {
      // A page that is written gets all three arrays (what every page had before).
      P.w = take_array(kPageCells);
      if (!P.r1) P.r1 = take_array(kPageCells);
      if (!P.r2) P.r2 = take_array(kPageCells);
    }
    if (P.w && P.r1 && P.r2) {
      clean &= access_cell(rc, P.w[i], P.r1[i], P.r2[i], t, cta, gid, warp, false, addr, g, mask, flags, loc);
      continue;
    }
    Access ew, er1, er2;
    Access& w = P.w ? P.w[i] : ew;
    Access& r1 = P.r1 ? P.r1[i] : er1;
    Access& r2 = P.r2 ? P.r2[i] : er2;
    clean &= access_cell(rc, w, r1, r2, t, cta, gid, warp, false, addr, g, mask, flags, loc);
    auto keep = [&](Access*& arr, const Access& a) {
      if (!arr && (a.gid1 | a.flags)) (arr = take_array(kPageCells))[i] = a;
    };
    keep(P.w, ew);
    keep(P.r1, er1);
    keep(P.r2, er2);
  }
  return clean;
}

inline __attribute__((always_inline)) bool RaceDetector::access_cell(RaceCta& rc, Access& w, Access& r1, Access& r2,
                                                                     RaceThread& t, uint32_t cta, uint32_t gid,
                                                                     uint32_t warp, bool shared, uint64_t addr,
                                                                     uint64_t g, uint8_t mask, uint8_t flags,
                                                                     uint32_t loc) {
  const Access cur{gid + 1, t.clock, t.phase, loc, mask, flags, step_};
  // A granule whose bytes have different histories is kept byte by byte (a char array
  // written by several threads): split it the first time an access covers only part of
  // what an earlier access of another epoch covered.
  if (w.flags & kSplit) return access_split(rc, w, r1, r2, cur, t, cta, gid, warp, shared, addr, g, false);
  auto differs = [&](const Access& a) { return a.gid1 && a.mask != mask && !same_epoch(a, cur); };
  if (mask != 0xF && (differs(w) || differs(r1) || differs(r2)))
    return access_split(rc, w, r1, r2, cur, t, cta, gid, warp, shared, addr, g, true);
  return update(rc, w, r1, r2, cur, t, gid, cta, warp, addr, shared, cell_key(g));
}

bool RaceDetector::access_split(RaceCta& rc, Access& w, Access& r1, Access& r2, const Access& cur, RaceThread& t,
                                uint32_t cta, uint32_t gid, uint32_t warp, bool shared, uint64_t addr, uint64_t g,
                                bool split_now) {
  auto& bytes = (shared ? rc.split : split_)[g];
  if (split_now) {
    for (int b = 0; b < 4; ++b) {
      ShadowCell one{};
      auto keep = [&](const Access& a, Access* out) {
        if (a.gid1 && (a.mask >> b & 1)) {
          *out = a;
          out->mask = 1u << b;
        }
      };
      keep(w, &one.w);
      keep(r1, &one.r1);
      keep(r2, &one.r2);
      bytes[b] = one;
    }
    w = r1 = r2 = Access{};
    w.flags = kSplit;
    // The cell's other readers go to the bytes they read.
    ReaderSet& more = shared ? rc.more_readers : more_readers_;
    if (!more.empty()) {
      auto it = more.find(cell_key(g));
      if (it != more.end()) {
        const std::vector<Access> readers = std::move(it->second);
        more.erase(it);
        for (int b = 0; b < 4; ++b)
          for (Access a : readers)
            if (a.mask >> b & 1) {
              a.mask = 1u << b;
              more[cell_key(g, b)].push_back(a);
            }
      }
    }
  }
  bool clean = true;
  for (int b = 0; b < 4; ++b)
    if (cur.mask >> b & 1) {
      Access one = cur;
      one.mask = 1u << b;
      ShadowCell& c = bytes[b];
      clean &= update(rc, c.w, c.r1, c.r2, one, t, gid, cta, warp, addr, shared, cell_key(g, b));
    }
  return clean;
}

inline __attribute__((always_inline)) bool RaceDetector::update(RaceCta& rc, Access& w, Access& r1, Access& r2,
                                                                const Access& cur, RaceThread& t, uint32_t gid,
                                                                uint32_t cta, uint32_t warp, uint64_t addr, bool shared,
                                                                uint64_t key) {
  bool clean = true;
  const uint8_t flags = cur.flags, mask = cur.mask;
  const uint32_t loc = cur.loc;
  const uint32_t cbase = cta * tpc_;
  const bool writes = flags & (kWrite | kAtomic);
  constexpr uint8_t kSync = kAtomic | kStrong | kVolatile;
  if ((flags & kSync) && (w.flags & kSync) && w.gid1 && w.gid1 != cur.gid1 && (w.mask & mask) &&
      (!(flags & kWrite) || (flags & kAtomic))) {
    t.s->heard_gid1 = w.gid1;
    t.s->heard_write_loc = w.loc;
    t.s->heard_read_loc = loc;
    t.s->heard_write_clock = w.clock;
    t.s->heard_write_phase = w.phase;
    t.s->heard_write_step = w.step;
    t.s->heard_fenced = false;
  }
  if (!quick_clean(w, t, cur.gid1, cbase, warp, flags, mask))
    clean &= check(t, gid, cta, warp, w, flags, mask, loc, addr, shared);
  if (writes) {
    const uint8_t wf = flags | kWrite;
    if (!quick_clean(r1, t, cur.gid1, cbase, warp, wf, mask))
      clean &= check(t, gid, cta, warp, r1, wf, mask, loc, addr, shared);
    if (!quick_clean(r2, t, cur.gid1, cbase, warp, wf, mask))
      clean &= check(t, gid, cta, warp, r2, wf, mask, loc, addr, shared);
    ReaderSet& more = shared ? rc.more_readers : more_readers_;
    if (!more.empty()) {
      auto it = more.find(key);
      if (it != more.end()) {
        for (const Access& r : it->second)
          if (!quick_clean(r, t, cur.gid1, cbase, warp, wf, mask))
            clean &= check(t, gid, cta, warp, r, wf, mask, loc, addr, shared);
        more.erase(it);  // as r1 and r2: the write is the cell's history now
      }
    }
    // One epoch: the bytes share its history.
    const uint8_t m = same_epoch(w, cur) ? uint8_t(mask | w.mask) : mask;
    w = Access{cur.gid1, cur.clock, cur.phase, loc, m, flags, cur.step};
    if (r1.gid1) r1 = Access{};
    if (r2.gid1) r2 = Access{};
  } else if (r1.gid1 == cur.gid1) {
    const uint8_t m = same_epoch(r1, cur) ? uint8_t(mask | r1.mask) : mask;
    r1 = Access{cur.gid1, cur.clock, cur.phase, loc, m, flags, cur.step};
  } else {
    if (r2.gid1 && r2.gid1 != cur.gid1 && r2.gid1 != r1.gid1)
      keep_reader(shared ? rc.more_readers : more_readers_, key, r2, t, gid, cta);
    r2 = r1;
    r1 = cur;
  }
  return clean;
}

void RaceDetector::keep_reader(ReaderSet& more, uint64_t key, const Access& r2, RaceThread& t, uint32_t gid,
                               uint32_t cta) {
  // A reader ordered before this one needs no place: a write ordered after this read is ordered
  // after it too, and a write that is not races with this read, which stays in r1 or r2.
  if (known(t, gid, cta, r2)) return;
  std::vector<Access>& v = more[key];
  for (Access& a : v)
    if (a.gid1 == r2.gid1) {  // the same thread's newer read replaces its older one
      a = r2;
      return;
    }
  if (v.size() == kMoreReaders) v.erase(v.begin());  // the oldest is forgotten (docs/checkers.md)
  v.push_back(r2);
}

VCRef RaceDetector::snapshot(RaceThread& t, uint32_t gid, uint32_t cta) {
  settle(t);
  auto v = copy_with_room(t.vc);
  if (t.phase) v->add_cta(cta, t.phase);
  v->add_thr(gid, t.phase, t.clock);
  v->prune(tpc_);
  v->self_gid1 = gid + 1;
  v->self_clock = t.clock;
  v->self_phase = t.phase;
  ++t.clock;
  return v;
}

void RaceDetector::version_written(uint64_t key, uint64_t version) {
  if (!version) return;
  auto it = versions_.find(key);
  if (it == versions_.end()) {
    if (!find_sync(key)) return;  // no release state yet: a read of an unrecorded older write acquires nothing
    it = versions_.emplace(key, Versions{}).first;
  }
  Versions& h = it->second;
  const LocSync* s = find_sync(key);
  auto w = writers_.find(key);
  Version& place = h.next();
  place.v = version;
  if (s)
    place.sync = *s;
  else
    place.sync = LocSync{};
  place.writer = w != writers_.end() ? w->second.vc : VCRef{};
}

void RaceDetector::hear(RaceThread& t, uint64_t key, const WriterClock& w) {
  RaceThreadSync::PendingWriter& p = t.s->heard_pending;
  if (!w.vc || w.vc == p.vc) return;
  // The location's later clock of the same run of read-modify-writes knows all of the pending one.
  if (!(p.vc && p.key == key && w.chain <= p.seq)) hear_now(t);
  p.vc = w.vc;
  p.key = key;
  p.seq = w.seq;
}

void RaceDetector::hear_now(RaceThread& t) {
  RaceThreadSync::PendingWriter& p = t.s->heard_pending;
  if (!p.vc) return;
  if (p.vc != t.s->heard) join_into(t.s->heard, p.vc, tpc_);
  p = RaceThreadSync::PendingWriter{};
}

void RaceDetector::strong_read(const Cta& c, uint32_t tid, uint64_t key, const ptx::Instr& I, uint64_t version) {
  RaceThread& t = c.race->t[slot(tid)];
  // The write the read read: memory's newest (sync_, writers_), or an older one the relaxed model
  // chose (its recorded state; one older than every recorded write released nothing; when the
  // record has forgotten it, the newest's, which may give an edge the read did not get).
  const Version* older = nullptr;
  bool older_unreleased = false;
  if (version && !versions_.empty()) {
    auto it = versions_.find(key);
    if (it != versions_.end()) {
      const Versions& h = it->second;
      for (uint32_t i = 0; i < h.count; ++i)
        if (h.at(i).v == version) older = &h.at(i);
      if (!older && !h.dropped && h.count && version < h.at(0).v) older_unreleased = true;
    }
  }
  const Scope s = I.sem == Sem::Volatile ? Scope::Sys : effective(I.scope);
  if (acquires(I.sem)) {
    // Acquire pattern: an acquire takes what an earlier strong read of its location read (that
    // read's release waits in pend_local / pend_remote under this key).
    auto earlier = [&](RaceThread::Lazy& z, bool in_scope) {
      if (z.ref && z.key == key && in_scope) {
        take(t.s->acq, z.ref, key, z.lineage);
        z.ref.reset();
      }
    };
    earlier(t.s->pend_local, true);
    earlier(t.s->pend_remote, s != Scope::Cta);
  }
  if (older) {
    if (older->writer && older->writer != t.s->heard) {
      hear_now(t);
      join_into(t.s->heard, older->writer, tpc_);
    }
  } else if (!writers_.empty()) {
    // Fence-SC order: the write this read reads, and what its writer knew (see sc_fences_).
    auto it = writers_.find(key);
    if (it != writers_.end()) hear(t, key, it->second);
  }
  if (older_unreleased || (!older && sync_.empty())) return;
  const LocSync* found = older ? &older->sync : find_sync(key);
  if (!found || found->empty()) return;
  const LocSync& L = *found;
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  auto receive = [&](const VCRef& v, uint64_t lineage, bool local) {
    if (acquires(I.sem))
      take(t.s->acq, v, key, lineage);
    else
      take(local ? t.s->pend_local : t.s->pend_remote, v, key, lineage);
  };
  for (const auto& n : L.narrow) {
    if (n.cta == cta) {
      receive(n.vc, n.lineage, true);
    } else {  // a block-scope release by another block: no edge, but remember it for the report
      t.s->scope_miss = L.narrow_instr;
      t.s->scope_miss_cta = n.cta;
    }
  }
  if (L.wide) {
    if (s != Scope::Cta || L.wide_cta == cta) {
      receive(L.wide, L.lineage, L.wide_cta == cta);
      if (L.wide_cta != cta) t.s->pend_remote_cta = L.wide_cta;
    } else {  // a block-scope acquire of another block's release
      t.s->scope_miss = &I;
      t.s->scope_miss_cta = L.wide_cta;
    }
  }
}

void RaceDetector::strong_write(const Cta& c, uint32_t tid, uint64_t key, const ptx::Instr& I, bool rmw) {
  RaceThread& t = c.race->t[slot(tid)];
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  const uint32_t gid = cta * tpc_ + slot(tid);
  if (!sc_fences_.empty()) {
    // For Fence-SC order: who wrote this value, knowing what (a fence.sc before it is before the
    // value's readers' later fence.sc). Only after some fence.sc ran: before that no fence can be
    // before this write.
    settle(t);
    WriterClock& wc = writers_[key];
    VCRef& w = wc.vc;
    // A read-modify-write whose location's writer clock already knows this thread as it is now (a
    // spinning atomic, or the lanes of one warp in turn) would join nothing new into it.
    auto knows_vc = [&] {
      if (!t.vc || (w == t.s->known_w && t.vc == t.s->known_vc)) return true;
      if (VClock::relate(*w, *t.vc) & 2) return false;
      t.s->known_w = w;
      t.s->known_vc = t.vc;
      return true;
    };
    const bool nothing_new = rmw && w && (!t.phase || w->cta_phase(cta) >= t.phase) &&
                             (w->thr_clock(sync_gid(gid)) >= t.clock || w->cta_phase(cta) > t.phase) && knows_vc();
    if (!nothing_new) {
      auto v = copy_with_room(t.vc);
      if (t.phase) v->add_cta(cta, t.phase);
      v->add_thr(sync_gid(gid), t.phase, t.clock);
      const bool continues = rmw && w;
      if (continues) v->join(*w);
      v->prune(tpc_);
      w = std::move(v);
      wc.seq = ++writer_seq_;
      if (!continues) wc.chain = wc.seq;
    }
  }
  VCRef snap;
  Scope scope = I.sem == Sem::Volatile ? Scope::Sys : effective(I.scope);
  RaceThreadSync::OwnRelease* own = nullptr;
  for (auto& o : t.s->own_rel)
    if (o.key == key) own = &o;
  if (releases(I.sem)) {
    snap = snapshot(t, gid, cta);
    if (!own) {
      own = &t.s->own_rel[t.s->own_rel_next++ % 2];
      own->key = key;
    }
    own->vc = snap;
    own->scope = scope;
  } else if (t.fence_rel) {
    snap = t.fence_rel;
    scope = narrower(t.fence_scope, scope);
    if (own) {  // (and the earlier release to this location, below)
      VCRef both = snap;
      join_snapshot(both, own->vc, tpc_);
      snap = both;
    }
  } else if (own) {
    // Release pattern: the thread released to this location before; this write carries that
    // release (at the release's scope).
    snap = own->vc;
    scope = own->scope;
  }
  if (!snap) {
    if (!rmw) forget_sync(key);
    return;
  }
  LocSync* found = find_sync(key);
  LocSync& L = found ? *found : sync_[key];
  if (!rmw) L = LocSync{};
  if (scope == Scope::Cta) {
    L.narrow_instr = &I;
    for (auto& n : L.narrow)
      if (n.cta == cta) {
        join_snapshot(n.vc, snap, tpc_);
        return;
      }
    L.narrow.push_back({cta, snap, next_lineage_++});
    return;
  }
  if (L.wide) {
    join_snapshot(L.wide, snap, tpc_);
    if (L.wide_cta != cta) L.wide_cta = kManyCtas;
  } else {
    L.wide = snap;
    L.wide_cta = cta;
    L.lineage = next_lineage_++;
  }
  L.wide_instr = &I;
}

void RaceDetector::forget_sync(uint64_t key) {
  if (key == sync_key_) sync_key_ = ~0ull;
  sync_.erase(key);
}

void RaceDetector::fence(const Cta& c, uint32_t tid, const ptx::Instr& I) {
  RaceThread& t = c.race->t[slot(tid)];
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  const Scope s = effective(I.scope);
  // membar is fence.sc; a fence without an order is fence.acq_rel (PTX ISA, "membar/fence").
  const Sem sem = I.op == ptx::Op::Membar ? Sem::Sc : I.sem == Sem::None ? Sem::AcqRel : I.sem;
  settle(t);
  if (sem != Sem::Release) {
    // The acquire half: the releases that the strong reads before it read.
    if (!t.s->pend_local.empty()) drain(t.vc, t.s->pend_local);
    if (!t.s->pend_remote.empty()) {
      if (s == Scope::Cta) {
        t.s->scope_miss = &I;
        t.s->scope_miss_cta = t.s->pend_remote_cta;
        t.s->pend_remote = RaceThread::Lazy{};
      } else {
        drain(t.vc, t.s->pend_remote);
      }
    }
    if (t.s->heard_gid1) t.s->heard_fenced = true;
  }
  VCRef sc_snap;  // (a fence.sc's knowledge, which its release half releases too)
  if (sem == Sem::Sc) {
    // Fence-SC order: each earlier fence.sc that must be before this one (this thread heard of a
    // write made after it, and the two are morally strong: one block, or both at .gpu or .sys)
    // gives this thread what it knew (cause order: po; sc; po). Per thread, its last such fence.
    hear_now(t);
    // (Every fence.sc `heard` names ran before the write it heard of: one that the thread's last
    // fence.sc considered with the same `heard`, at a scope as wide, is all there is.)
    const bool as_wide = t.s->heard_at_fence_scope != Scope::Cta || s == Scope::Cta;
    const bool seen = t.s->heard == t.s->heard_at_fence && as_wide;
    const VClock* h = seen ? nullptr : t.s->heard.get();
    // (and a thread's entry of `heard` that the last search saw with the same clock gives nothing
    // new either: the fences it names are the ones that search found)
    const VCRef searched = as_wide ? t.s->heard_at_fence : VCRef{};
    if (!seen || s != Scope::Cta) {
      t.s->heard_at_fence = t.s->heard;
      t.s->heard_at_fence_scope = s;
    }
    auto consider = [&](uint32_t fgid, const std::vector<ScFence>& list) {
      const uint32_t fcta = fgid / tpc_;
      if (s == Scope::Cta && fcta != cta) return;  // not morally strong with any of them
      const uint32_t heard_clock = h->thr_clock(fgid), heard_phase = h->cta_phase(fcta);
      // A thread's fences run in order of clock and phase, so those this thread heard of after
      // are a prefix of the list; the last of it that is morally strong with this fence is the
      // one whose knowledge counts (it includes the earlier ones').
      auto end = std::partition_point(list.begin(), list.end(),
                                      [&](const ScFence& f) { return heard_clock > f.clock || heard_phase > f.phase; });
      const ScFence* best = nullptr;
      for (auto it = end; it != list.begin();) {
        --it;
        if (it->scope != Scope::Cta || it->cta == cta) {
          best = &*it;
          break;
        }
      }
      if (!best) return;
      // Knowing the fencing thread at or after the fence is knowing all it knew there (every
      // thread entry of a clock comes with that thread's whole knowledge at that clock, and a
      // block phase with its threads' at the barrier): the join would add nothing.
      if (t.vc && t.vc->knows(fgid, fcta, best->clock, best->phase)) return;
      join_into(t.vc, best->snap, tpc_);
    };
    if (h) {
      // A fence is heard of through its thread's entry in `heard`, or through a barrier phase of its
      // block past the fence's; vc knows every fence before a phase it has of that block. Unless
      // some block's heard phase is past both vc's and the phase of one of its fences, only the
      // threads `heard` names can give something new.
      bool by_phase = false;
      for (const VClock::CtaEntry& e : h->ctas) {
        auto it = sc_min_phase_.find(e.cta);
        if (it != sc_min_phase_.end() && e.phase > it->second && !(t.vc && t.vc->cta_phase(e.cta) >= e.phase))
          by_phase = true;
      }
      if (by_phase) {
        for (const auto& [fgid, list] : sc_fences_) consider(fgid, list);
      } else {
        // Then every fence heard of and not known has a clock below the one `heard` gives its
        // thread, so a thread that vc already knows that far gives nothing new (a walk of the two
        // sorted lists).
        static const std::vector<VClock::ThrEntry> none;
        const std::vector<VClock::ThrEntry>& known = t.vc ? t.vc->thr : none;
        const std::vector<VClock::ThrEntry>& before = searched ? searched->thr : none;
        size_t k = 0, b = 0;
        for (const VClock::ThrEntry& e : h->thr) {
          while (b < before.size() && before[b].gid < e.gid) ++b;
          if (b < before.size() && before[b].gid == e.gid && before[b].clock == e.clock) continue;
          while (k < known.size() && known[k].gid < e.gid) ++k;
          if (k < known.size() && known[k].gid == e.gid && known[k].clock >= e.clock) continue;
          auto it = sc_fences_.find(e.gid);
          if (it != sc_fences_.end()) consider(e.gid, it->second);
        }
      }
    }
    sc_snap = snapshot(t, cta * tpc_ + slot(tid), cta);
    sc_fences_[sync_gid(cta * tpc_ + slot(tid))].push_back({t.phase, sc_snap->self_clock, sc_snap, s, cta});
    auto [low, first] = sc_min_phase_.emplace(cta, t.phase);
    if (!first) low->second = std::min(low->second, t.phase);
  }
  if (sem != Sem::Acquire) {
    // The release half: a later strong write releases what the thread knows now (for a fence.sc,
    // the snapshot just taken: nothing happened in the thread since).
    t.fence_rel = sc_snap ? sc_snap : snapshot(t, cta * tpc_ + slot(tid), cta);
    t.fence_scope = s;
  }
  t.fenced = true;
  t.fence_last = true;
}

void RaceDetector::barrier_arrive(const Cta& c, uint32_t tid, uint32_t id, bool partial) {
  RaceCta& rc = *c.race;
  RaceThread& t = rc.t[slot(tid)];
  settle(t);
  auto& b = rc.bars[id & 15];
  if (!b.acc) b.acc = std::make_shared<VClock>();
  if (t.vc && t.vc != b.last_joined) {  // arrivals usually share their knowledge: join it once
    b.acc->join(*t.vc);
    b.last_joined = t.vc;
  }
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  b.arrivers.push_back({cta * tpc_ + slot(tid), t.phase, t.clock});
  ++t.clock;
  b.partial |= partial;
  hear_now(t);
  if (t.s->heard && t.s->heard != b.heard) join_into(b.heard, t.s->heard, tpc_);
}

void RaceDetector::barrier_release(const Cta& c, uint32_t id, const std::vector<uint32_t>& waiters,
                                   uint32_t live_threads) {
  RaceCta& rc = *c.race;
  auto& b = rc.bars[id & 15];
  if (!b.acc) b.acc = std::make_shared<VClock>();
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  const bool full = !b.partial && live_threads == tpc_ && b.arrivers.size() == tpc_;
  if (full) {
    ++rc.phase;
    b.acc->add_cta(cta, rc.phase);
  } else {
    for (const auto& e : b.arrivers) b.acc->add_thr(e.gid, e.phase, e.clock);
  }
  b.acc->prune(tpc_);
  VCRef shared = b.acc;
  for (uint32_t tid : waiters) {
    RaceThread& t = rc.t[slot(tid)];
    if (b.heard && t.s->heard != b.heard) join_into(t.s->heard, b.heard, tpc_);
    t.fenced = false;  // a fence before the barrier is no flag protocol's after it (check())
    if (full) {
      t.vc = shared;
      t.phase = rc.phase;
    } else if (t.vc && t.vc != shared) {
      join_into(t.vc, shared, tpc_);
    } else {
      t.vc = shared;
    }
  }
  b = RaceCta::Bar{};
}

void RaceDetector::warp_sync(const Cta& c, uint32_t warp, uint32_t lanes) {
  if (warp_is_unit(model_) || __builtin_popcount(lanes) < 2) return;
  RaceCta& rc = *c.race;
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  auto acc = std::make_shared<VClock>();
  const VClock* last = nullptr;
  VCRef heard;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint32_t tid = warp * 32 + __builtin_ctz(m);
    RaceThread& t = rc.t[tid];
    settle(t);
    if (t.vc && t.vc.get() != last) {
      acc->join(*t.vc);
      last = t.vc.get();
    }
    acc->add_thr(cta * tpc_ + tid, t.phase, t.clock);
    hear_now(t);
    if (t.s->heard && t.s->heard != heard) join_into(heard, t.s->heard, tpc_);
  }
  acc->prune(tpc_);
  VCRef shared = acc;
  for (uint32_t m = lanes; m; m &= m - 1) {
    RaceThread& t = rc.t[warp * 32 + __builtin_ctz(m)];
    t.vc = shared;
    if (heard) t.s->heard = heard;
    ++t.clock;
  }
}

}  // namespace synclab::sim
