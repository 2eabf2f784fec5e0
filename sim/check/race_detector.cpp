#include "sim/check/race_detector.h"

#include <algorithm>

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
  if (!o.ctas.empty()) {
    std::vector<CtaEntry> out;
    out.reserve(ctas.size() + o.ctas.size());
    size_t i = 0, j = 0;
    while (i < ctas.size() || j < o.ctas.size()) {
      if (j == o.ctas.size() || (i < ctas.size() && ctas[i].cta < o.ctas[j].cta)) out.push_back(ctas[i++]);
      else if (i == ctas.size() || o.ctas[j].cta < ctas[i].cta) out.push_back(o.ctas[j++]);
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
      if (j == o.thr.size() || (i < thr.size() && thr[i].gid < o.thr[j].gid)) out.push_back(thr[i++]);
      else if (i == thr.size() || o.thr[j].gid < thr[i].gid) out.push_back(o.thr[j++]);
      else {
        out.push_back(thr[i].clock >= o.thr[j].clock ? thr[i] : o.thr[j]);
        ++i, ++j;
      }
    }
    thr.swap(out);
  }
}

void VClock::add_cta(uint32_t cta, uint32_t phase) {
  auto it = std::lower_bound(ctas.begin(), ctas.end(), cta, [](const CtaEntry& e, uint32_t c) { return e.cta < c; });
  if (it != ctas.end() && it->cta == cta) it->phase = std::max(it->phase, phase);
  else ctas.insert(it, {cta, phase});
}

void VClock::add_thr(uint32_t gid, uint32_t phase, uint32_t clock) {
  auto it = std::lower_bound(thr.begin(), thr.end(), gid, [](const ThrEntry& e, uint32_t g) { return e.gid < g; });
  if (it != thr.end() && it->gid == gid) {
    if (clock > it->clock) *it = {gid, phase, clock};
  } else {
    thr.insert(it, {gid, phase, clock});
  }
}

void VClock::prune(uint32_t tpc) {
  if (ctas.empty() || thr.empty()) return;
  thr.erase(std::remove_if(thr.begin(), thr.end(),
                           [&](const ThrEntry& e) { return e.phase < cta_phase(e.gid / tpc); }),
            thr.end());
}

namespace {

Scope effective(Scope s) { return s == Scope::None ? Scope::Gpu : s; }
Scope narrower(Scope a, Scope b) { return static_cast<int>(effective(a)) < static_cast<int>(effective(b)) ? effective(a) : effective(b); }
bool acquires(Sem s) { return s == Sem::Acquire || s == Sem::AcqRel || s == Sem::Sc; }
bool releases(Sem s) { return s == Sem::Release || s == Sem::AcqRel || s == Sem::Sc; }

void join_into(VCRef& dst, const VClock& src, uint32_t tpc) {
  auto v = std::make_shared<VClock>(dst ? *dst : VClock{});
  v->join(src);
  v->prune(tpc);
  dst = std::move(v);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The detector
// ---------------------------------------------------------------------------------------------

RaceDetector::RaceDetector(WarpModel model, uint32_t threads_per_cta, size_t shared_bytes)
    : model_(model), tpc_(threads_per_cta), shared_bytes_(shared_bytes) {}

void RaceDetector::start_cta(Cta& c) {
  if (!c.race) c.race = std::make_shared<RaceCta>();
  RaceCta& rc = *c.race;
  rc.t.assign(tpc_, RaceThread{});
  rc.shared.assign((shared_bytes_ + 3) / 4, ShadowCell{});
  rc.shared_init.assign((shared_bytes_ + 63) / 64, 0);
  rc.phase = 0;
  rc.split.clear();
  for (auto& b : rc.bars) b = RaceCta::Bar{};
}

ShadowCell* RaceDetector::global_cell(uint64_t addr) {
  const uint64_t page = addr >> kPageShift;
  if (page != last_page_) {
    auto& p = pages_[page];
    if (!p) p.reset(new ShadowCell[(1u << kPageShift) / 4]());
    last_page_ = page;
    last_cells_ = p.get();
  }
  return last_cells_ + ((addr & ((1u << kPageShift) - 1)) >> 2);
}

void RaceDetector::take(RaceThread::Lazy& z, const VCRef& v, uint64_t key, uint64_t lineage) {
  if (z.ref && z.key == key && z.lineage == lineage) {
    z.ref = v;  // the same address, only grown since: the new state includes the held one
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
  if (z.ref) join_into(vc, *z.ref, tpc_);
  z = RaceThread::Lazy{};
}

void RaceDetector::settle(RaceThread& t) {
  if (!t.acq.empty()) drain(t.vc, t.acq);
}

bool RaceDetector::known(RaceThread& t, uint32_t gid, uint32_t cta, const Access& a) {
  const uint32_t agid = a.gid1 - 1;
  if (agid == gid) return true;
  const uint32_t acta = agid / tpc_;
  if (acta == cta) {
    if (a.phase < t.phase) return true;
    if (model_ == WarpModel::Lockstep && (agid % tpc_) / 32 == (gid % tpc_) / 32) return true;
  }
  settle(t);
  if (t.vc) {
    if (t.vc->cta_phase(acta) > a.phase) return true;
    if (t.vc->thr_clock(sync_gid(agid)) >= a.clock) return true;
  }
  return false;
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
  if (same_warp && prev.loc == loc) return true;  // one instruction of one warp: lanes agree on the order
  constexpr uint8_t kSync = kAtomic | kStrong | kVolatile;
  bool warp_level = same_warp && model_ == WarpModel::Its;
  if ((prev.flags & kSync) && (flags & kSync) && !scope_clash) {
    // Strong accesses synchronize rather than race. One exception: lanes of one warp passing
    // data through volatile shared memory with no fence and no __syncwarp at all, which is the
    // pre-Volta warp-synchronous idiom (the unrolled last warp of a reduction). Under ITS it
    // needs __syncwarp. Flags and locks between lanes (Peterson) use fences and stay silent.
    const bool both_volatile = (prev.flags & kVolatile) && (flags & kVolatile) &&
                               !((prev.flags | flags) & (kAtomic | kStrong));
    if (!warp_level || !shared || !both_volatile || t.fenced) return true;
  }
  if (known(t, gid, cta, prev)) return true;
  const uint32_t a = std::min(prev.loc, loc), b = std::max(prev.loc, loc);
  if (!seen_.insert({a, b, warp_level}).second) {
    ++duplicates_;
    return true;
  }
  RaceFinding f;
  f.prev = prev;
  f.cur_gid = gid;
  f.cur_loc = loc;
  f.cur_flags = flags;
  f.addr = addr;
  f.shared = shared;
  f.warp_level = warp_level;
  f.scope_miss = t.scope_miss;
  f.scope_miss_cta = t.scope_miss_cta;
  findings_.push_back(f);
  return false;
}

bool RaceDetector::access(Cta& c, uint32_t tid, uint32_t warp, bool shared, uint64_t addr, uint32_t size, uint8_t flags,
                          uint32_t loc) {
  RaceCta& rc = *c.race;
  RaceThread& t = rc.t[slot(tid)];
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  const uint32_t gid = cta * tpc_ + tid;
  bool clean = true;
  const uint64_t end = addr + size;
  for (uint64_t g = addr & ~3ull; g < end; g += 4) {
    const uint64_t lo = std::max(g, addr), hi = std::min(g + 4, end);
    const uint8_t mask = static_cast<uint8_t>(((1u << (hi - lo)) - 1) << (lo - g));
    ShadowCell* cell;
    if (shared) {
      if ((g >> 2) >= rc.shared.size()) continue;
      cell = &rc.shared[g >> 2];
    } else {
      cell = global_cell(g);
    }
    Access cur;
    cur.gid1 = gid + 1;
    cur.clock = t.clock;
    cur.phase = t.phase;
    cur.loc = loc;
    cur.mask = mask;
    cur.flags = flags;
    // A granule whose bytes have different histories is kept byte by byte (a char array
    // written by several threads): split it the first time an access covers only part of
    // what an earlier access of another epoch covered.
    auto& split = shared ? rc.split : split_;
    const uint64_t key = g;
    if (cell->w.flags & kSplit) {
      auto& bytes = split[key];
      for (int b = 0; b < 4; ++b)
        if (mask >> b & 1) {
          Access one = cur;
          one.mask = 1u << b;
          clean &= update(bytes[b], one, t, gid, cta, warp, addr, shared);
        }
      continue;
    }
    auto differs = [&](const Access& a) { return a.gid1 && a.mask != mask && !same_epoch(a, cur); };
    if (mask != 0xF && (differs(cell->w) || differs(cell->r1) || differs(cell->r2))) {
      auto& bytes = split[key];
      for (int b = 0; b < 4; ++b) {
        ShadowCell one{};
        auto keep = [&](const Access& a, Access* out) {
          if (a.gid1 && (a.mask >> b & 1)) {
            *out = a;
            out->mask = 1u << b;
          }
        };
        keep(cell->w, &one.w);
        keep(cell->r1, &one.r1);
        keep(cell->r2, &one.r2);
        bytes[b] = one;
      }
      *cell = ShadowCell{};
      cell->w.flags = kSplit;
      for (int b = 0; b < 4; ++b)
        if (mask >> b & 1) {
          Access one = cur;
          one.mask = 1u << b;
          clean &= update(bytes[b], one, t, gid, cta, warp, addr, shared);
        }
      continue;
    }
    clean &= update(*cell, cur, t, gid, cta, warp, addr, shared);
  }
  return clean;
}

bool RaceDetector::update(ShadowCell& cell, Access cur, RaceThread& t, uint32_t gid, uint32_t cta, uint32_t warp,
                          uint64_t addr, bool shared) {
  bool clean = true;
  const uint8_t flags = cur.flags, mask = cur.mask;
  const uint32_t loc = cur.loc;
  const bool writes = flags & (kWrite | kAtomic);
  clean &= check(t, gid, cta, warp, cell.w, flags, mask, loc, addr, shared);
  if (writes) {
    clean &= check(t, gid, cta, warp, cell.r1, flags | kWrite, mask, loc, addr, shared);
    clean &= check(t, gid, cta, warp, cell.r2, flags | kWrite, mask, loc, addr, shared);
    if (same_epoch(cell.w, cur)) cur.mask |= cell.w.mask;  // one epoch: the bytes share its history
    cell.w = cur;
    cell.r1 = cell.r2 = Access{};
  } else if (cell.r1.gid1 == cur.gid1) {
    if (same_epoch(cell.r1, cur)) cur.mask |= cell.r1.mask;
    cell.r1 = cur;
  } else {
    cell.r2 = cell.r1;
    cell.r1 = cur;
  }
  return clean;
}

VCRef RaceDetector::snapshot(RaceThread& t, uint32_t gid, uint32_t cta) {
  settle(t);
  auto v = std::make_shared<VClock>(t.vc ? *t.vc : VClock{});
  if (t.phase) v->add_cta(cta, t.phase);
  v->add_thr(gid, t.phase, t.clock);
  v->prune(tpc_);
  ++t.clock;
  return v;
}


void RaceDetector::strong_read(Cta& c, uint32_t tid, uint64_t key, const ptx::Instr& I) {
  if (sync_.empty()) return;
  auto it = sync_.find(key);
  if (it == sync_.end() || it->second.empty()) return;
  const LocSync& L = it->second;
  RaceThread& t = c.race->t[slot(tid)];
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  const Scope s = I.sem == Sem::Volatile ? Scope::Sys : effective(I.scope);
  auto receive = [&](const VCRef& v, uint64_t lineage, bool local) {
    if (acquires(I.sem)) take(t.acq, v, key, lineage);
    else take(local ? t.pend_local : t.pend_remote, v, key, lineage);
  };
  for (const auto& n : L.narrow) {
    if (n.cta == cta) {
      receive(n.vc, n.lineage, true);
    } else {  // a block-scope release by another block: no edge, but remember it for the report
      t.scope_miss = L.narrow_instr;
      t.scope_miss_cta = n.cta;
    }
  }
  if (L.wide) {
    if (s != Scope::Cta || L.wide_cta == cta) {
      receive(L.wide, L.lineage, L.wide_cta == cta);
      if (L.wide_cta != cta) t.pend_remote_cta = L.wide_cta;
    } else {  // a block-scope acquire of another block's release
      t.scope_miss = &I;
      t.scope_miss_cta = L.wide_cta;
    }
  }
}

void RaceDetector::strong_write(Cta& c, uint32_t tid, uint64_t key, const ptx::Instr& I, bool rmw) {
  RaceThread& t = c.race->t[slot(tid)];
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  const uint32_t gid = cta * tpc_ + slot(tid);
  VCRef snap;
  Scope scope = I.sem == Sem::Volatile ? Scope::Sys : effective(I.scope);
  if (releases(I.sem)) {
    snap = snapshot(t, gid, cta);
  } else if (t.fence_rel) {
    snap = t.fence_rel;
    scope = narrower(t.fence_scope, scope);
  }
  if (!snap) {
    if (!rmw) sync_.erase(key);
    return;
  }
  LocSync& L = sync_[key];
  if (!rmw) L = LocSync{};
  if (scope == Scope::Cta) {
    L.narrow_instr = &I;
    for (auto& n : L.narrow)
      if (n.cta == cta) {
        auto j = std::make_shared<VClock>(*n.vc);
        j->join(*snap);
        j->prune(tpc_);
        n.vc = std::move(j);
        return;
      }
    L.narrow.push_back({cta, snap, next_lineage_++});
    return;
  }
  if (L.wide) {
    auto v = std::make_shared<VClock>(*L.wide);
    v->join(*snap);
    v->prune(tpc_);
    L.wide = std::move(v);
    if (L.wide_cta != cta) L.wide_cta = kManyCtas;
  } else {
    L.wide = snap;
    L.wide_cta = cta;
    L.lineage = next_lineage_++;
  }
  L.wide_instr = &I;
}

void RaceDetector::plain_write(uint64_t key) {
  if (!sync_.empty()) sync_.erase(key);
}

void RaceDetector::fence(Cta& c, uint32_t tid, const ptx::Instr& I) {
  RaceThread& t = c.race->t[slot(tid)];
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  const Scope s = effective(I.scope);
  settle(t);
  if (!t.pend_local.empty()) drain(t.vc, t.pend_local);
  if (!t.pend_remote.empty()) {
    if (s == Scope::Cta) {
      t.scope_miss = &I;
      t.scope_miss_cta = t.pend_remote_cta;
      t.pend_remote = RaceThread::Lazy{};
    } else {
      drain(t.vc, t.pend_remote);
    }
  }
  t.fence_rel = snapshot(t, cta * tpc_ + slot(tid), cta);
  t.fence_scope = s;
  t.fenced = true;
}

void RaceDetector::barrier_arrive(Cta& c, uint32_t tid, uint32_t id, bool partial) {
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
}

void RaceDetector::barrier_release(Cta& c, uint32_t id, const std::vector<uint32_t>& waiters, uint32_t live_threads) {
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
    if (full) {
      t.vc = shared;
      t.phase = rc.phase;
    } else if (t.vc && t.vc != shared) {
      join_into(t.vc, *shared, tpc_);
    } else {
      t.vc = shared;
    }
  }
  b = RaceCta::Bar{};
}

void RaceDetector::warp_sync(Cta& c, uint32_t warp, uint32_t lanes) {
  if (model_ == WarpModel::Lockstep || __builtin_popcount(lanes) < 2) return;
  RaceCta& rc = *c.race;
  const uint32_t cta = static_cast<uint32_t>(c.linear);
  auto acc = std::make_shared<VClock>();
  const VClock* last = nullptr;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint32_t tid = warp * 32 + __builtin_ctz(m);
    RaceThread& t = rc.t[tid];
    settle(t);
    if (t.vc && t.vc.get() != last) {
      acc->join(*t.vc);
      last = t.vc.get();
    }
    acc->add_thr(cta * tpc_ + tid, t.phase, t.clock);
  }
  acc->prune(tpc_);
  VCRef shared = acc;
  for (uint32_t m = lanes; m; m &= m - 1) {
    RaceThread& t = rc.t[warp * 32 + __builtin_ctz(m)];
    t.vc = shared;
    ++t.clock;
  }
}

}  // namespace synclab::sim
