// The PTX memory model's axioms over one execution (ptx_axioms.h). Each relation below carries,
// in its comment, the definition of ptx.als (NVlabs/ptxmemorymodel) it computes.

#include "sim/memory/oracle/ptx_axioms.h"

#include <fmt/format.h>

#include <algorithm>

namespace synclab::memory {

// Whether the scope of event e includes thread t (ptx.als: t in e.scope.*subscope).
bool includes(const Execution& x, const Event& e, uint32_t t) {
  const ThreadPlace& me = x.threads[e.thread];
  const ThreadPlace& other = x.threads[t];
  switch (e.scope) {
    case Scope::Thread: return e.thread == t;
    case Scope::Cta:
      if (me.host || other.host) return e.thread == t;  // the host is in no block
      return me.cta == other.cta;
    case Scope::Gpu:
      if (me.host) return e.thread == t;  // the host is in no GPU
      return !other.host;
    case Scope::Sys: return true;
  }
  return false;
}

namespace {

bool is_mem(const Event& e) { return e.kind == EventKind::Read || e.kind == EventKind::Write; }

}  // namespace

bool morally_strong(const Execution& x, uint32_t a, uint32_t b) {
  // strong_r = symmetric[scope.*subscope.start.*po]
  return includes(x, x.events[a], x.events[b].thread) && includes(x, x.events[b], x.events[a].thread);
}

PtxRelations ptx_relations(const Execution& x) {
  const size_t n = x.events.size();
  PtxRelations r;
  r.reads = EventSet(n);
  r.writes = EventSet(n);
  EventSet release(n), acquire(n), fence_rels(n), fence_acqs(n), fence_sc(n), all(n);
  for (size_t i = 0; i < n; ++i) {
    const Event& e = x.events[i];
    all.add(i);
    if (e.kind == EventKind::Read) r.reads.add(i);
    if (e.kind == EventKind::Write) r.writes.add(i);
    // sig Release extends Write { scope not in Thread }, sig Acquire extends Read { ... }
    if (e.kind == EventKind::Write && e.release && e.scope != Scope::Thread) release.add(i);
    if (e.kind == EventKind::Read && e.acquire && e.scope != Scope::Thread) acquire.add(i);
    // FenceRels = FenceAcqRel + FenceRel + BarrierWait; FenceAcqs = FenceAcqRel + FenceAcq + BarrierWait
    // (FenceSC extends FenceAcqRel).
    if (e.kind == EventKind::Fence) {
      if (e.fence != FenceKind::Acquire) fence_rels.add(i);
      if (e.fence != FenceKind::Release) fence_acqs.add(i);
      if (e.fence == FenceKind::Sc) fence_sc.add(i);
    }
    if (e.kind == EventKind::BarrierWait) {
      fence_rels.add(i);
      fence_acqs.add(i);
    }
  }

  // ^po: program order within each thread; po (immediate successor) for FenceRels.po.rmw.
  r.po = Relation(n);
  Relation po_next(n);
  for (size_t a = 0; a < n; ++a) {
    int64_t next = -1;
    for (size_t b = 0; b < n; ++b) {
      if (a == b || x.events[a].thread != x.events[b].thread || x.events[a].po >= x.events[b].po) continue;
      r.po.add(a, b);
      if (next < 0 || x.events[b].po < x.events[size_t(next)].po) next = int64_t(b);
    }
    if (next >= 0) po_next.add(a, size_t(next));
  }
  // po_loc = ^po & address.~address
  r.po_loc = Relation(n);
  Relation same_loc(n);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (is_mem(x.events[a]) && is_mem(x.events[b]) && x.events[a].loc == x.events[b].loc) {
        same_loc.add(a, b);
        if (r.po.has(a, b)) r.po_loc.add(a, b);
      }
  // strong_r
  r.strong = Relation(n);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (morally_strong(x, uint32_t(a), uint32_t(b))) r.strong.add(a, b);

  r.rf = Relation(n);
  for (size_t b = 0; b < n; ++b)
    if (x.events[b].kind == EventKind::Read && x.rf[b] >= 0) r.rf.add(size_t(x.rf[b]), b);
  Relation co_given(n);
  for (auto [a, b] : x.co) co_given.add(a, b);
  r.co = co_given.closure();  // ^co
  // fr = ~rf.^co + ((Read - Write.rf) <: address.~address :> Write)
  r.fr = compose(r.rf.inverse(), r.co);
  for (size_t b = 0; b < n; ++b)
    if (x.events[b].kind == EventKind::Read && x.rf[b] < 0)
      for (size_t w = 0; w < n; ++w)
        if (r.writes.has(w) && x.events[w].loc == x.events[b].loc) r.fr.add(b, w);
  // com = rf + ^co + fr
  r.com = r.rf | r.co | r.fr;
  r.rmw = Relation(n);
  for (auto [a, b] : x.rmw) r.rmw.add(a, b);
  r.dep = Relation(n);
  for (auto [a, b] : x.dep) r.dep.add(a, b);
  // rmw_facts: rmw in po & dep & ...: the write of a read-modify-write depends on its read.
  r.dep |= r.rmw;

  // observation: the least relation with strong[rf] in observation and
  // observation.rmw.observation in observation (obs_in_rf_rmw, rf_obs, rmw_obs).
  r.obs = r.rf & r.strong;
  for (;;) {
    Relation more = r.obs | compose(compose(r.obs, r.rmw), r.obs);
    if (more == r.obs) break;
    r.obs = std::move(more);
  }

  // prefix = (Release <: optional[po_loc] :> Write) + (FenceRels <: ^po :> Write)
  Relation prefix = r.po_loc.optional().restrict(release, r.writes) | r.po.restrict(fence_rels, r.writes);
  // suffix = (Read <: optional[po_loc] :> Acquire) + (Read <: ^po :> FenceAcqs), where the reads
  // of reductions are no Read (PTX ISA 9.0, section "Reductions do not form Acquire Patterns").
  EventSet pattern_reads = r.reads;
  for (size_t i = 0; i < n; ++i)
    if (x.events[i].reduction) pattern_reads.remove(i);
  Relation suffix = r.po_loc.optional().restrict(pattern_reads, acquire) | r.po.restrict(pattern_reads, fence_acqs);
  // Releasers = Release + FenceRels + (FenceRels.po.rmw); Acquirers = Acquire + FenceAcqs
  EventSet releasers(n), acquirers(n);
  for (size_t i = 0; i < n; ++i) {
    if (release.has(i) || fence_rels.has(i)) releasers.add(i);
    if (acquire.has(i) || fence_acqs.has(i)) acquirers.add(i);
  }
  const Relation fr_po_rmw = compose(po_next.restrict(fence_rels, all), r.rmw);
  for (auto [a, b] : fr_po_rmw.pairs()) releasers.add(b);
  // sync[head, tail] = head <: strong[prefix.^observation.suffix] :> tail
  r.sync = (compose(compose(prefix, r.obs.closure()), suffix) & r.strong).restrict(releasers, acquirers);

  // synchronizes: every arrival at a barrier instance synchronizes every wait of that instance
  // (its own thread's included: BarrierWait in BarrierArrive.(po & synchronizes)); is_strong.
  r.synchronizes = Relation(n);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (x.events[a].kind == EventKind::BarrierArrive && x.events[b].kind == EventKind::BarrierWait &&
          x.events[a].barrier == x.events[b].barrier && r.strong.has(a, b))
        r.synchronizes.add(a, b);

  // sc: the execution's order of its fence.sc, restricted to morally strong pairs
  // (wf_sc: sc in typed[strong_r, FenceSC]).
  Relation sc_given(n);
  for (auto [a, b] : x.sc) sc_given.add(a, b);
  r.sc = sc_given.closure().restrict(fence_sc, fence_sc) & r.strong;
  for (size_t i = 0; i < n; ++i) r.sc.remove(i, i);

  // cause_base = ^(*po.(synchronizes + sc + sync[Releasers, Acquirers]).*po)
  const Relation star_po = r.po.optional();
  r.cause_base = compose(compose(star_po, r.synchronizes | r.sc | r.sync), star_po).closure();
  // cause = cause_base + (observation.(po_loc + cause_base))
  r.cause = r.cause_base | compose(r.obs, r.po_loc | r.cause_base);
  return r;
}

namespace {

std::string list_events(const Execution& x, const std::vector<uint32_t>& ev) {
  std::string s;
  for (size_t i = 0; i < ev.size(); ++i) s += (i ? " -> " : "") + x.describe(ev[i]);
  return s;
}

AxiomResult fail(const Execution& x, const std::string& axiom, std::vector<uint32_t> witness, const std::string& what) {
  AxiomResult res;
  res.allowed = false;
  res.axiom = axiom;
  res.witness = std::move(witness);
  res.explain = what + (res.witness.empty() ? "" : ": " + list_events(x, res.witness));
  return res;
}

std::vector<uint32_t> to_u32(const std::vector<size_t>& v) { return std::vector<uint32_t>(v.begin(), v.end()); }

// The scope instances of ptx.als's co_per_scope, on the fixed tree: each thread, each block, the
// GPU, the system. Returns, for instance s, whether write w is in scoped[s] & inside[s].
struct ScopeInstance {
  enum Kind { Thread, Cta, Gpu, Sys } kind;
  uint32_t id;
};
bool in_instance(const Execution& x, const Event& w, const ScopeInstance& s) {
  const ThreadPlace& t = x.threads[w.thread];
  switch (s.kind) {
    case ScopeInstance::Thread: return w.thread == s.id;  // every scope of w contains its thread
    case ScopeInstance::Cta:
      return !t.host && t.cta == s.id && (w.scope == Scope::Cta || w.scope == Scope::Gpu || w.scope == Scope::Sys);
    case ScopeInstance::Gpu: return !t.host && (w.scope == Scope::Gpu || w.scope == Scope::Sys);
    case ScopeInstance::Sys: return w.scope == Scope::Sys;
  }
  return false;
}

// The verdict on a malformed execution: refused, with what is wrong.
AxiomResult refused(const std::string& bad) {
  AxiomResult res;
  res.allowed = false;
  res.axiom = "malformed";
  res.explain = bad;
  return res;
}

}  // namespace

AxiomResult check_ptx(const Execution& x) {
  const std::string bad = x.malformed();
  if (!bad.empty()) return refused(bad);
  return check_ptx(x, ptx_relations(x));
}

AxiomResult check_ptx(const Execution& x, const PtxRelations& r) {
  const size_t n = x.events.size();
  std::vector<size_t> cycle;

  // Facts of a candidate execution.
  if (!r.co.irreflexive()) {
    Relation co_given(n);
    for (auto [a, b] : x.co) co_given.add(a, b);
    co_given.acyclic(&cycle);
    return fail(x, "co_acyclic", to_u32(cycle), "coherence order has a cycle");
  }
  {  // co_per_scope: all a: Address, s: Scope | total[co, scoped[s] & inside[s] & (a.~address & Write)]
    std::vector<ScopeInstance> instances;
    uint32_t max_cta = 0;
    for (const ThreadPlace& t : x.threads) max_cta = std::max(max_cta, t.cta);
    for (uint32_t t = 0; t < x.threads.size(); ++t) instances.push_back({ScopeInstance::Thread, t});
    for (uint32_t c = 0; c <= max_cta; ++c) instances.push_back({ScopeInstance::Cta, c});
    instances.push_back({ScopeInstance::Gpu, 0});
    instances.push_back({ScopeInstance::Sys, 0});
    for (size_t a = 0; a < n; ++a) {
      if (!r.writes.has(a)) continue;
      for (size_t b = a + 1; b < n; ++b) {
        if (!r.writes.has(b) || x.events[a].loc != x.events[b].loc || r.co.has(a, b) || r.co.has(b, a)) continue;
        for (const ScopeInstance& s : instances)
          if (in_instance(x, x.events[a], s) && in_instance(x, x.events[b], s))
            return fail(x, "co_per_scope", {uint32_t(a), uint32_t(b)},
                        "two writes that one scope instance covers are not ordered by coherence order");
      }
    }
  }
  {  // wf_sc: morally strong fence.sc pairs are ordered; sc is acyclic
    for (size_t a = 0; a < n; ++a)
      for (size_t b = a + 1; b < n; ++b) {
        const Event& ea = x.events[a];
        const Event& eb = x.events[b];
        if (ea.kind != EventKind::Fence || eb.kind != EventKind::Fence || ea.fence != FenceKind::Sc ||
            eb.fence != FenceKind::Sc || !r.strong.has(a, b))
          continue;
        if (!r.sc.has(a, b) && !r.sc.has(b, a))
          return fail(x, "wf_sc", {uint32_t(a), uint32_t(b)}, "two morally strong fence.sc are not in Fence-SC order");
      }
    if (!r.sc.acyclic(&cycle)) return fail(x, "wf_sc", to_u32(cycle), "Fence-SC order has a cycle");
  }

  // no_thin_air: acyclic[rf + dep]
  if (!(r.rf | r.dep).acyclic(&cycle))
    return fail(x, "no_thin_air", to_u32(cycle), "reads-from and dependencies form a cycle (a value out of thin air)");
  // location_sc: acyclic[strong[com] + po_loc]
  if (!((r.com & r.strong) | r.po_loc).acyclic(&cycle))
    return fail(x, "location_sc", to_u32(cycle),
                "morally strong accesses to one location and program order form a cycle "
                "(sequential consistency per location)");
  // atomicity: no strong[fr].(strong[co]) & rmw
  {
    const Relation bad = compose(r.fr & r.strong, r.co & r.strong) & r.rmw;
    for (auto [rd, wr] : bad.pairs()) {
      for (size_t w2 = 0; w2 < n; ++w2)
        if ((r.fr & r.strong).has(rd, w2) && (r.co & r.strong).has(w2, wr))
          return fail(x, "atomicity", {uint32_t(rd), uint32_t(w2), uint32_t(wr)},
                      "a morally strong write comes, in coherence order, between a read-modify-write's read and "
                      "its write");
    }
  }
  // coherence: location[Write <: cause :> Write] in ^co
  for (auto [a, b] : r.cause.restrict(r.writes, r.writes).pairs())
    if (x.events[a].loc == x.events[b].loc && !r.co.has(a, b))
      return fail(x, "coherence", {uint32_t(a), uint32_t(b)},
                  "a write is before another write to its location in causality order but not in coherence order");
  // causality: irreflexive[optional[fr + rf].cause]
  {
    const Relation c = compose((r.fr | r.rf).optional(), r.cause);
    for (size_t a = 0; a < n; ++a) {
      if (!c.has(a, a)) continue;
      if (r.cause.has(a, a)) return fail(x, "causality", {uint32_t(a)}, "an event is before itself in causality order");
      for (size_t b = 0; b < n; ++b) {
        if (!r.cause.has(b, a)) continue;
        if (r.rf.has(a, b))
          return fail(x, "causality", {uint32_t(a), uint32_t(b)},
                      "a read is before, in causality order, the write it reads");
        if (r.fr.has(a, b))
          return fail(x, "causality", {uint32_t(a), uint32_t(b)},
                      "a read misses a write that is before it in causality order (the write is coherence-after "
                      "the one it reads)");
      }
    }
  }
  return {};
}

AxiomResult check_sc(const Execution& x) {
  const std::string bad = x.malformed();
  if (!bad.empty()) return refused(bad);
  const size_t n = x.events.size();
  PtxRelations r = ptx_relations(x);
  std::vector<size_t> cycle;
  // co total per location
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b)
      if (r.writes.has(a) && r.writes.has(b) && x.events[a].loc == x.events[b].loc && !r.co.has(a, b) &&
          !r.co.has(b, a))
        return fail(x, "sc_co_total", {uint32_t(a), uint32_t(b)}, "two writes to one location are not ordered");
  if (!(r.po | r.rf | r.co | r.fr | r.synchronizes).acyclic(&cycle))
    return fail(x, "sc", to_u32(cycle), "no interleaving gives this execution");
  const Relation torn = compose(r.fr, r.co) & r.rmw;
  for (auto [rd, wr] : torn.pairs())
    return fail(x, "sc_atomicity", {uint32_t(rd), uint32_t(wr)},
                "a write comes between a read-modify-write's read and its write");
  return {};
}

}  // namespace synclab::memory
