// Orders in which the relaxed model can run a litmus test's instructions (run_order.h).

#include "sim/memory/oracle/run_order.h"

#include <algorithm>
#include <functional>
#include <map>

#include "sim/memory/oracle/ptx_axioms.h"

namespace synclab::memory {

std::string RunOrderLimits::relaxed() const {
  std::string s;
  auto add = [&](bool on, const char* what) {
    if (on) s += (s.empty() ? "" : ", ") + std::string(what);
  };
  add(!fence_sc_in_run_order, "fence.sc ordered against the order they run");
  add(hold_past_fence_sc, "a load held back past a fence.sc after a held-back write, fence or read-modify-write");
  add(hold_past_barrier, "a load held back past a barrier");
  add(early_release_rmw, "a releasing read-modify-write run early after a held-back write, fence or read-modify-write");
  add(early_same_location,
      "a read-modify-write run before an earlier held-back write of its location, or a compare-and-swap or "
      "acquiring read-modify-write before an earlier read of its location");
  add(early_past_dependent_address, "a store run past a fence or barrier after a branch on the load");
  add(early_loads, "a load run before an earlier load of its thread");
  add(early_rmw_after_acquire,
      "an acquiring read-modify-write, or a read-modify-write after a held-back one or to the "
      "location of a held-back access, run before an earlier acquire held back");
  add(hidden_readable,
      "an early store after a release that follows a held-back write or fence, read by a morally strong "
      "read-modify-write or acquiring reader before the held-back part ran");
  add(acquire_hidden_readable,
      "an early store of a plan holding back an acquiring read-modify-write read by a reader that may release "
      "before the held-back part ran");
  add(taken_readable,
      "a load held back before a release run early reading what its thread did not know then, after a reader took "
      "that release");
  return s;
}

RunOrderLimits RunOrderLimits::with(const RunOrderLimits& o) const {
  RunOrderLimits r;
  r.fence_sc_in_run_order = fence_sc_in_run_order && o.fence_sc_in_run_order;
  r.hold_past_fence_sc = hold_past_fence_sc || o.hold_past_fence_sc;
  r.hold_past_barrier = hold_past_barrier || o.hold_past_barrier;
  r.early_release_rmw = early_release_rmw || o.early_release_rmw;
  r.early_same_location = early_same_location || o.early_same_location;
  r.early_past_dependent_address = early_past_dependent_address || o.early_past_dependent_address;
  r.early_loads = early_loads || o.early_loads;
  r.early_rmw_after_acquire = early_rmw_after_acquire || o.early_rmw_after_acquire;
  r.acquire_hidden_readable = acquire_hidden_readable || o.acquire_hidden_readable;
  r.taken_readable = taken_readable || o.taken_readable;
  r.hidden_readable = hidden_readable || o.hidden_readable;
  return r;
}

namespace {

// A store run early after a release of its plan (the store itself, an earlier release store, a
// release fence held back): the model keeps it from the morally strong readers that the widest of
// those releases (`scope`) covers until the plan's held-back part has run (Msg::hidden in
// relaxed_model.cpp).
// Or a store run early by a plan that holds back a read-modify-write that may acquire: kept from
// the readers of other threads that may release after the read, morally strong or not (`acq`;
// Msg::hidden_acq), unless every acquire the plan holds back is .cta (`cta_only`) and no other
// thread of its block may release once the plan starts (its first early instruction, `first`;
// the interpreter's KernelRun::block_releases_no_more).
struct Hidden {
  int store = 0;      // the early store
  int last_late = 0;  // the plan's last held-back instruction
  Scope scope = Scope::Cta;
  bool acq = false;
  bool cta_only = false;
  int first = 0;
};

// One load-buffering plan of a thread: the instructions run early (stores), then the held-back
// ones (the load first), then the thread goes on at `next`.
// A release (or fence) a plan ran early with only loads held back before it (load_buffering.cpp,
// RelaxedModel::readable): once something that follows it in causality order has run (a read
// that may acquire, of one of the plan's early stores from the release on, in the release's
// scope; a morally strong fence.sc of another thread after a fence.sc), the held-back loads
// before it read only what their thread knew when it ran (taken here as: a write that ran before
// it, or the initial value).
struct Taken {
  int release = 0;          // the release or fence
  std::vector<int> loads;   // the held-back loads before it
  std::vector<int> stores;  // the early stores from it on
  bool sc = false;          // a fence.sc
  Scope scope = Scope::Gpu;
};

struct Plan {
  std::vector<int> early, late;
  std::vector<Hidden> hidden;
  std::vector<Taken> taken;
  int next = 0;
  // The plan's first instruction when it runs a releasing read-modify-write early whose releases
  // are all .cta: every other thread of its block must have ended before it (-1: no such need).
  int quiet = -1;
};

// One order the model can run a thread's instructions in, with its plans' hidden stores.
struct Schedule {
  std::vector<int> order;
  std::vector<Hidden> hidden;
  std::vector<Taken> taken;
  std::vector<int> quiet;  // Plan::quiet of its plans
};

// The plans that start at instruction s, as sim/memory/relaxed/load_buffering.cpp makes them
// (a litmus thread has no computations or branches: only the memory operations, fences and
// barriers matter).
// hold_same: the store to the load's location that may run early is held back with it instead
// (the model's choice, load_buffering.cpp); *met_same: there was such a store.
void plans_at(const LitmusThread& T, int s, const RunOrderLimits& lim, bool hold_same, bool* met_same,
              std::vector<Plan>& out) {
  const LitmusOp& L = T.ops[size_t(s)];
  const bool is_atom = L.kind == LitmusOp::Kind::Atom || L.kind == LitmusOp::Kind::Red;
  if (L.kind != LitmusOp::Kind::Ld && !is_atom) return;
  // the locations of the accesses held back after L: plain loads (late_read_locs) and the others
  std::vector<int> taint, late_locs, late_read_locs;
  // (the releasing ones among the held-back writes: their location and scope; a later strong write
  // there carries their release, so a store run early there waits for it, hidden)
  std::vector<std::pair<int, Scope>> late_releases;
  if (is_atom && L.release) late_releases.push_back({int(L.loc), L.scope});
  if (L.reg >= 0) taint.push_back(L.reg);
  auto tainted = [&](int r) { return std::find(taint.begin(), taint.end(), r) != taint.end(); };
  auto value_tainted = [&](const LitmusValue& v) { return v.is_reg && tainted(int(v.value)); };
  std::vector<std::pair<int, bool>> path;  // (instruction, early)
  std::vector<Scope> hidden;               // per path step: an early store after a release (the widest one's scope)
  std::vector<int> light;                  // path steps of releases and fences run early (Taken)
  std::vector<size_t> cuts;
  int quiet_from = -1;  // the first path step that runs early only once the block's other threads are done
  bool released = false;
  Scope released_scope = Scope::Thread;  // the widest release so far
  auto widen = [&](Scope sc) { released_scope = std::max(released_scope, sc == Scope::Thread ? Scope::Gpu : sc); };
  bool acquired = L.acquire;  // an acquire is held back so far
  // only loads are held back so far: a fence runs early, in its place, and a release needs no
  // hiding (load_buffering.cpp)
  bool only_loads = !is_atom;
  for (size_t j = size_t(s) + 1; j < T.ops.size() && path.size() < 11; ++j) {
    const LitmusOp& J = T.ops[j];
    bool dep = false;  // an address (or, for a fence or barrier, control) dependency on the held-back reads
    for (int r : J.deps) dep = dep || tainted(r);
    // (the planner knows an address the litmus program computes from the load, `xor z, r, r`
    // added to the location's, and holds the access back; a branch on the load ends its search)
    if (dep && (J.kind == LitmusOp::Kind::Fence || J.kind == LitmusOp::Kind::Bar) && !lim.early_past_dependent_address)
      break;
    if (dep) {
      // (held back with the load)
      if (J.kind != LitmusOp::Kind::Ld) only_loads = false;
      path.push_back({int(j), false});
      hidden.push_back(Scope::Thread);
      if (J.kind != LitmusOp::Kind::Fence && J.kind != LitmusOp::Kind::Bar)
        (J.kind == LitmusOp::Kind::Ld ? late_read_locs : late_locs).push_back(int(J.loc));
      if (J.kind != LitmusOp::Kind::Ld && J.kind != LitmusOp::Kind::Fence && J.kind != LitmusOp::Kind::Bar && J.release)
        late_releases.push_back({int(J.loc), J.scope});
      if (J.reg >= 0) taint.push_back(J.reg);
      if (J.release || (J.kind == LitmusOp::Kind::Fence && J.fence != FenceKind::Acquire) ||
          J.kind == LitmusOp::Kind::Bar) {
        released = true;
        widen(J.kind == LitmusOp::Kind::Bar ? Scope::Cta : J.scope);
      }
      if (((J.kind == LitmusOp::Kind::Ld || J.kind == LitmusOp::Kind::Atom) && J.acquire) ||
          (J.kind == LitmusOp::Kind::Fence && J.fence != FenceKind::Release))
        acquired = true;
      continue;
    }
    bool stop = false;
    switch (J.kind) {
      case LitmusOp::Kind::Ld:
        if (lim.early_loads && J.loc != L.loc) {
          // (run before the held-back load, as a store would be: the plan may end with it)
          cuts.push_back(path.size());
          path.push_back({int(j), true});
          hidden.push_back(Scope::Thread);
          break;
        }
        // (an acquire load too: held back with the load)
        path.push_back({int(j), false});
        hidden.push_back(Scope::Thread);
        late_read_locs.push_back(int(J.loc));
        if (J.reg >= 0) taint.push_back(J.reg);
        acquired = acquired || J.acquire;
        break;
      case LitmusOp::Kind::St:
      case LitmusOp::Kind::Atom:
      case LitmusOp::Kind::Red: {
        const bool rmw = J.kind != LitmusOp::Kind::St;
        if (rmw && (released || (J.release && !only_loads)) && !lim.early_release_rmw) {
          // (unless every release it waits for is .cta: the model then runs it early when no
          // other thread of its block is left, load_buffering.cpp's block_only)
          Scope wide = released ? released_scope : Scope::Thread;
          if (J.release) wide = std::max(wide, J.scope == Scope::Thread ? Scope::Gpu : J.scope);
          if (wide != Scope::Cta) {
            stop = true;
            break;
          }
          if (quiet_from < 0) quiet_from = int(path.size());
        }
        const bool depends = value_tainted(J.value) || value_tainted(J.value2);
        bool atom_held = is_atom;  // (a read-modify-write is held back)
        for (const auto& [k, early] : path)
          if (!early && (T.ops[size_t(k)].kind == LitmusOp::Kind::Atom || T.ops[size_t(k)].kind == LitmusOp::Kind::Red))
            atom_held = true;
        // (the locations of the held-back writes, the load's if it is a read-modify-write, and of
        // the held-back reads)
        const bool alias_write =
            std::find(late_locs.begin(), late_locs.end(), int(J.loc)) != late_locs.end() || (is_atom && J.loc == L.loc);
        const bool alias_read =
            std::find(late_read_locs.begin(), late_read_locs.end(), int(J.loc)) != late_read_locs.end() ||
            (!is_atom && J.loc == L.loc);
        const bool after_acquire =
            rmw && acquired && (J.acquire || atom_held || alias_read || alias_write) && !lim.early_rmw_after_acquire;
        bool alias = false;
        bool hold = false;  // (hold_same) this is the store held back by choice
        if (alias_write || alias_read) {
          // stores to the location of a held-back access may run early, and read-modify-writes
          // that always write and do not acquire, past held-back loads only
          const bool rmw_may = rmw && !J.acquire && J.rmw != LitmusOp::Rmw::Cas && !alias_write;
          if (rmw && !rmw_may) alias = !lim.early_same_location;
          if (!alias && !depends && !after_acquire) {  // (it may also be held back by choice)
            *met_same = true;
            hold = hold_same;
          }
        }
        const bool heavy = J.release && (depends || hold || after_acquire || alias || !only_loads);
        if (depends || hold || after_acquire || alias) {
          only_loads = false;
          path.push_back({int(j), false});
          hidden.push_back(Scope::Thread);
          late_locs.push_back(int(J.loc));
          if (J.reg >= 0) taint.push_back(J.reg);
          acquired = acquired || (rmw && J.acquire);
          if (J.release) late_releases.push_back({int(J.loc), J.scope});
        } else {
          if (heavy) widen(J.scope);
          cuts.push_back(path.size());
          path.push_back({int(j), true});
          Scope h = released || heavy ? released_scope : Scope::Thread;
          for (auto [loc, sc] : late_releases)
            if (loc == int(J.loc)) h = std::max(h, sc == Scope::Thread ? Scope::Gpu : sc);
          hidden.push_back(h);
          // (a release compare-and-swap that fails writes nothing and releases nothing: the mirror
          // leaves every one out, which lets a load read more than the model may, never less)
          if (J.release && !heavy && J.rmw != LitmusOp::Rmw::Cas) light.push_back(int(path.size() - 1));
        }
        if (heavy) {
          widen(J.scope);
          released = true;
        }
        break;
      }
      case LitmusOp::Kind::Fence:
        if (only_loads) {
          // (run early, in its place; read-modify-writes after an acquire fence wait)
          path.push_back({int(j), true});
          hidden.push_back(Scope::Thread);
          if (J.fence != FenceKind::Acquire) light.push_back(int(path.size() - 1));
          if (J.fence != FenceKind::Release) acquired = true;
          break;
        }
        if (J.fence == FenceKind::Sc && !lim.hold_past_fence_sc) {
          stop = true;
          break;
        }
        only_loads = false;
        path.push_back({int(j), false});
        hidden.push_back(Scope::Thread);
        if (J.fence != FenceKind::Acquire) {
          released = true;
          widen(J.scope);
        }
        if (J.fence != FenceKind::Release) acquired = true;
        break;
      case LitmusOp::Kind::Bar:
        if (!lim.hold_past_barrier) {
          stop = true;
          break;
        }
        only_loads = false;
        path.push_back({int(j), false});
        hidden.push_back(Scope::Thread);
        released = true;
        widen(Scope::Cta);
        break;
    }
    if (stop) break;
  }
  // Whether the early store at path step i carries a release when it runs (the model takes a
  // plan's releases only through a message that carries one: RelaxedModel::take_read): it is a
  // release itself, or a fence that releases, a barrier, or a release write to its location ran
  // before it in its thread (before the plan, or early in it). (A read-modify-write also carries
  // what the write it read carried; that, the releases a thread's third released location pushes
  // onto all its later writes, and those of a compare-and-swap, which releases only when it
  // writes, are left out: the mirror then lets a load read more than the model lets it, never
  // less.)
  auto carries_release = [&](size_t i) {
    const LitmusOp& S = T.ops[size_t(path[i].first)];
    // (a hidden early store gets its own release only when the plan has run: end_late; a
    // compare-and-swap, as below)
    if (S.release && hidden[i] == Scope::Thread && S.rmw != LitmusOp::Rmw::Cas) return true;
    auto gives = [&](const LitmusOp& K) {
      return (K.kind == LitmusOp::Kind::Fence && K.fence != FenceKind::Acquire) || K.kind == LitmusOp::Kind::Bar ||
             (K.kind != LitmusOp::Kind::Ld && K.kind != LitmusOp::Kind::Fence && K.release && K.loc == S.loc &&
              K.rmw != LitmusOp::Rmw::Cas);
    };
    for (int k = 0; k < s; ++k)
      if (gives(T.ops[size_t(k)])) return true;
    for (size_t k = 0; k < i; ++k)
      if (path[k].second && gives(T.ops[size_t(path[k].first)])) return true;
    return false;
  };
  for (size_t c : cuts) {
    Plan p;
    p.late.push_back(s);
    for (size_t i = 0; i <= c; ++i) (path[i].second ? p.early : p.late).push_back(path[i].first);
    if (quiet_from >= 0 && c >= size_t(quiet_from)) p.quiet = p.early.front();
    if (!lim.hidden_readable)
      for (size_t i = 0; i <= c; ++i)
        if (path[i].second && hidden[i] != Scope::Thread) p.hidden.push_back({path[i].first, p.late.back(), hidden[i]});
    if (!lim.taken_readable)
      for (int li : light) {
        if (size_t(li) > c) continue;
        Taken tk;
        const LitmusOp& R = T.ops[size_t(path[size_t(li)].first)];
        tk.release = path[size_t(li)].first;
        tk.sc = R.kind == LitmusOp::Kind::Fence && R.fence == FenceKind::Sc;
        tk.scope = R.scope == Scope::Thread ? Scope::Gpu : R.scope;
        tk.loads.push_back(s);
        for (size_t i = 0; i <= c; ++i) {
          const LitmusOp& X = T.ops[size_t(path[i].first)];
          if (!path[i].second && int(i) < li && X.kind == LitmusOp::Kind::Ld) tk.loads.push_back(path[i].first);
          if (path[i].second && int(i) >= li && X.kind != LitmusOp::Kind::Fence && carries_release(i))
            tk.stores.push_back(path[i].first);
        }
        p.taken.push_back(std::move(tk));
      }
    // A held-back read-modify-write that may acquire (an acquire one, or any with an acquire held
    // back: a fence other than a release fence, or an acquire load after a held-back read of its
    // location, as load_buffering.cpp's late_acquire): the plan's early stores are kept from
    // readers that may release (Msg::hidden_acq).
    bool late_acquire = false, rmw = false, rmw_acquire = false;
    // (the widest scope of those acquires and of every acquire held back, as load_buffering.cpp's
    // acquire_scope)
    Scope acquire_scope = Scope::Thread;
    auto widen_acquire = [&](const LitmusOp& J) {
      const Scope sc = J.scope == Scope::Thread ? Scope::Gpu : J.scope;
      if (uint8_t(sc) > uint8_t(acquire_scope)) acquire_scope = sc;
    };
    for (int e : p.early)  // (a fence run early: its acquire half takes what the held-back loads read)
      if (T.ops[size_t(e)].kind == LitmusOp::Kind::Fence && T.ops[size_t(e)].fence != FenceKind::Release) {
        late_acquire = true;
        widen_acquire(T.ops[size_t(e)]);
      }
    for (size_t k = 0; k < p.late.size(); ++k) {
      const LitmusOp& J = T.ops[size_t(p.late[k])];
      if (J.kind == LitmusOp::Kind::Atom) {
        rmw = true;
        rmw_acquire = rmw_acquire || J.acquire;
      }
      if (J.kind == LitmusOp::Kind::Fence && J.fence != FenceKind::Release) late_acquire = true;
      if ((J.kind == LitmusOp::Kind::Fence && J.fence != FenceKind::Release) ||
          ((J.kind == LitmusOp::Kind::Ld || J.kind == LitmusOp::Kind::Atom) && J.acquire))
        widen_acquire(J);
      if (k > 0 && (J.kind == LitmusOp::Kind::Ld || J.kind == LitmusOp::Kind::Atom) && J.acquire)
        for (size_t i = 0; i < k; ++i) {
          const LitmusOp& X = T.ops[size_t(p.late[i])];
          if ((X.kind == LitmusOp::Kind::Ld || X.kind == LitmusOp::Kind::Atom) && X.loc == J.loc) late_acquire = true;
        }
    }
    if (rmw && (rmw_acquire || late_acquire) && !lim.acquire_hidden_readable)
      for (int e : p.early)
        p.hidden.push_back({e, p.late.back(), Scope::Sys, true, acquire_scope == Scope::Cta, p.early.front()});
    p.next = path[c].first + 1;
    out.push_back(std::move(p));
  }
}

std::vector<Plan> plans_at(const LitmusThread& T, int s, const RunOrderLimits& lim) {
  std::vector<Plan> out;
  bool met_same = false;
  plans_at(T, s, lim, false, &met_same, out);
  if (met_same) plans_at(T, s, lim, true, &met_same, out);
  return out;
}

// Every order the model can run thread T's instructions in.
void schedules(const LitmusThread& T, int i, Schedule& cur, const RunOrderLimits& lim, std::vector<Schedule>* out) {
  if (size_t(i) == T.ops.size()) {
    out->push_back(cur);
    return;
  }
  cur.order.push_back(i);
  schedules(T, i + 1, cur, lim, out);
  cur.order.pop_back();
  for (const Plan& p : plans_at(T, i, lim)) {
    const size_t keep = cur.order.size(), keep_hidden = cur.hidden.size(), keep_taken = cur.taken.size(),
                 keep_quiet = cur.quiet.size();
    if (p.quiet >= 0) cur.quiet.push_back(p.quiet);
    cur.order.insert(cur.order.end(), p.early.begin(), p.early.end());
    cur.order.insert(cur.order.end(), p.late.begin(), p.late.end());
    cur.hidden.insert(cur.hidden.end(), p.hidden.begin(), p.hidden.end());
    cur.taken.insert(cur.taken.end(), p.taken.begin(), p.taken.end());
    schedules(T, p.next, cur, lim, out);
    cur.order.resize(keep);
    cur.hidden.resize(keep_hidden);
    cur.taken.resize(keep_taken);
    cur.quiet.resize(keep_quiet);
  }
}

bool acyclic(size_t n, const std::vector<std::pair<int, int>>& edges) {
  std::vector<std::vector<int>> succ(n);
  std::vector<int> indeg(n, 0);
  for (auto [a, b] : edges) {
    succ[size_t(a)].push_back(b);
    ++indeg[size_t(b)];
  }
  std::vector<int> ready;
  for (size_t v = 0; v < n; ++v)
    if (!indeg[v]) ready.push_back(int(v));
  size_t done = 0;
  while (!ready.empty()) {
    const int v = ready.back();
    ready.pop_back();
    ++done;
    for (int w : succ[size_t(v)])
      if (!--indeg[size_t(w)]) ready.push_back(w);
  }
  return done == n;
}

}  // namespace

bool run_order_exists(const LitmusTest& t, const Execution& x, const InstrEvents& ev, const RunOrderLimits& lim) {
  // Nodes: instructions, the threads' barrier instructions of one barrier instance as one.
  std::vector<std::vector<int>> node(t.threads.size());
  std::vector<std::pair<int, int>> place_of_event(x.events.size(), {-1, -1});
  std::map<uint32_t, int> barrier_node;
  int n = 0;
  for (size_t th = 0; th < t.threads.size(); ++th) {
    node[th].assign(t.threads[th].ops.size(), -1);
    for (size_t i = 0; i < t.threads[th].ops.size(); ++i) {
      int id = -1;
      for (uint32_t e : ev[th][i]) {
        place_of_event[e] = {int(th), int(i)};
        if (x.events[e].kind == EventKind::BarrierArrive || x.events[e].kind == EventKind::BarrierWait) {
          auto it = barrier_node.emplace(x.events[e].barrier, n);
          if (it.second) ++n;
          id = it.first->second;
        }
      }
      node[th][i] = id >= 0 ? id : n++;
    }
  }
  auto node_of = [&](uint32_t e) {
    const auto [th, i] = place_of_event[e];
    return th < 0 ? -1 : node[size_t(th)][size_t(i)];
  };
  // What every run order must respect: a write runs before the reads that read it; morally strong
  // fence.sc run in Fence-SC order.
  std::vector<std::pair<int, int>> fixed;
  for (size_t e = 0; e < x.events.size(); ++e) {
    if (x.events[e].kind != EventKind::Read || x.rf[e] < 0) continue;
    const int a = node_of(uint32_t(x.rf[e])), b = node_of(uint32_t(e));
    if (a >= 0 && b >= 0 && a != b) fixed.push_back({a, b});
  }
  if (lim.fence_sc_in_run_order && !x.sc.empty()) {
    Relation sc(x.events.size());
    for (auto [a, b] : x.sc) sc.add(a, b);
    const Relation scc = sc.closure();
    for (size_t a = 0; a < x.events.size(); ++a)
      for (size_t b = 0; b < x.events.size(); ++b)
        if (scc.has(a, b) && morally_strong(x, uint32_t(a), uint32_t(b)))
          fixed.push_back({node_of(uint32_t(a)), node_of(uint32_t(b))});
  }
  // Each thread's possible orders; some choice per thread must leave no cycle.
  std::vector<std::vector<Schedule>> per_thread(t.threads.size());
  for (size_t th = 0; th < t.threads.size(); ++th) {
    Schedule cur;
    schedules(t.threads[th], 0, cur, lim, &per_thread[th]);
  }
  // The readers of each write that the model keeps from a hidden early store: all but a load that
  // can never acquire (not an acquire itself, no acquire fence, barrier, acquire access or
  // read-modify-write after it in its thread: RelaxedModel::readable's sees_hidden, the
  // interpreter's kExecNoAcquireAfter).
  auto may_acquire = [](const LitmusOp& o) {
    return (o.kind == LitmusOp::Kind::Fence && o.fence != FenceKind::Release) || o.kind == LitmusOp::Kind::Bar ||
           o.kind == LitmusOp::Kind::Atom || o.kind == LitmusOp::Kind::Red ||
           (o.kind != LitmusOp::Kind::St && o.kind != LitmusOp::Kind::Fence && o.acquire);
  };
  auto sees_hidden = [&](uint32_t r) {
    const auto [th, i] = place_of_event[r];
    if (th < 0) return false;
    const std::vector<LitmusOp>& ops = t.threads[size_t(th)].ops;
    if (ops[size_t(i)].kind != LitmusOp::Kind::Ld || ops[size_t(i)].acquire) return false;
    for (size_t j = size_t(i) + 1; j < ops.size(); ++j)
      if (may_acquire(ops[j])) return false;
    return true;
  };
  std::vector<std::vector<uint32_t>> readers(x.events.size());
  for (size_t e = 0; e < x.events.size(); ++e)
    if (x.events[e].kind == EventKind::Read && x.rf[e] >= 0 && !sees_hidden(uint32_t(e)))
      readers[size_t(x.rf[e])].push_back(uint32_t(e));
  // The readers the model keeps from a store of a plan holding back an acquiring read-modify-write:
  // all but a read that releases nothing, with nothing after it in its thread that may (a release
  // access, a fence other than an acquire fence, a barrier: RelaxedModel::readable's
  // sees_unreleasing, the interpreter's kExecNoReleaseAfter).
  auto may_release = [](const LitmusOp& o) {
    return (o.kind == LitmusOp::Kind::Fence && o.fence != FenceKind::Acquire) || o.kind == LitmusOp::Kind::Bar ||
           (o.kind != LitmusOp::Kind::Fence && o.kind != LitmusOp::Kind::Ld && o.release);
  };
  auto sees_unreleasing = [&](uint32_t r) {
    const auto [th, i] = place_of_event[r];
    if (th < 0) return false;
    const std::vector<LitmusOp>& ops = t.threads[size_t(th)].ops;
    for (size_t j = size_t(i); j < ops.size(); ++j)
      if (may_release(ops[j])) return false;
    return true;
  };
  std::vector<std::vector<uint32_t>> releasing_readers(x.events.size());
  for (size_t e = 0; e < x.events.size(); ++e)
    if (x.events[e].kind == EventKind::Read && x.rf[e] >= 0 && !sees_unreleasing(uint32_t(e)))
      releasing_readers[size_t(x.rf[e])].push_back(uint32_t(e));
  // For a plan whose acquires are all .cta: the last instruction of each other thread of its block
  // that may release (-1: none). The plan's early stores are kept from releasing readers unless
  // every one of those ran before the plan started.
  std::vector<int> last_release(t.threads.size(), -1);
  for (size_t th = 0; th < t.threads.size(); ++th)
    for (size_t j = 0; j < t.threads[th].ops.size(); ++j)
      if (may_release(t.threads[th].ops[j])) last_release[th] = int(j);
  // Whether threads o and th are two threads of one block.
  auto block_mates = [&](size_t o, size_t th) {
    return o != th && !t.threads[o].place.host && !t.threads[th].place.host &&
           t.threads[o].place.cta == t.threads[th].place.cta;
  };
  std::vector<size_t> pick(t.threads.size(), 0);
  for (;;) {
    std::vector<std::pair<int, int>> edges = fixed;
    // Choices: one of the lists of edges of each entry must hold.
    std::vector<std::vector<std::vector<std::pair<int, int>>>> either;
    for (size_t th = 0; th < t.threads.size(); ++th) {
      const Schedule& s = per_thread[th][pick[th]];
      const std::vector<int>& order = s.order;
      for (size_t k = 0; k + 1 < order.size(); ++k)
        if (node[th][size_t(order[k])] != node[th][size_t(order[k + 1])])
          edges.push_back({node[th][size_t(order[k])], node[th][size_t(order[k + 1])]});
      // A hidden early store's morally strong readers that its plan's releases cover (not its own
      // thread's, nor a load that can never acquire) read it only after the plan's held-back part
      // has run.
      for (int q : s.quiet)
        for (size_t o = 0; o < t.threads.size(); ++o)
          if (block_mates(o, th) && !t.threads[o].ops.empty())
            edges.push_back({node[o][t.threads[o].ops.size() - 1], node[th][size_t(q)]});
      for (const Hidden& h : s.hidden) {
        std::vector<std::pair<int, int>> hide;
        for (uint32_t w : ev[th][size_t(h.store)]) {
          if (x.events[w].kind != EventKind::Write) continue;
          Event wide = x.events[w];
          wide.scope = h.scope;
          for (uint32_t r : h.acq ? releasing_readers[w] : readers[w])
            if (x.events[r].thread != x.events[w].thread &&
                (h.acq || (morally_strong(x, w, r) && includes(x, wide, x.events[r].thread))) && node_of(r) >= 0)
              hide.push_back({node[th][size_t(h.last_late)], node_of(r)});
        }
        if (!(h.acq && h.cta_only)) {
          edges.insert(edges.end(), hide.begin(), hide.end());
          continue;
        }
        std::vector<std::pair<int, int>> quiet;  // the block's other releases all ran before the plan
        for (size_t o = 0; o < t.threads.size(); ++o)
          if (block_mates(o, th) && last_release[o] >= 0)
            quiet.push_back({node[o][size_t(last_release[o])], node[th][size_t(h.first)]});
        if (!hide.empty() && !quiet.empty()) either.push_back({std::move(hide), std::move(quiet)});
      }
    }
    // Taken releases (Taken): for each held-back load before one and each thing that would take
    // it, one of: the load runs before it, it runs before the release (not taken), or the write
    // the load reads ran before the release. Each choice is tried.
    for (size_t th = 0; th < t.threads.size(); ++th) {
      const Schedule& s = per_thread[th][pick[th]];
      for (const Taken& tk : s.taken) {
        const int rel = node[th][size_t(tk.release)];
        std::vector<int> takers;
        if (tk.sc) {
          uint32_t f1 = ~0u;
          for (uint32_t e : ev[th][size_t(tk.release)])
            if (x.events[e].kind == EventKind::Fence) f1 = e;
          for (size_t e = 0; e < x.events.size() && f1 != ~0u; ++e)
            if (x.events[e].kind == EventKind::Fence && x.events[e].fence == FenceKind::Sc &&
                x.events[e].thread != x.events[f1].thread && morally_strong(x, f1, uint32_t(e)) &&
                node_of(uint32_t(e)) >= 0)
              takers.push_back(node_of(uint32_t(e)));
        } else {
          for (int st : tk.stores)
            for (uint32_t w : ev[th][size_t(st)]) {
              if (x.events[w].kind != EventKind::Write) continue;
              Event wide = x.events[w];
              wide.scope = tk.scope;
              for (uint32_t r : readers[w])
                if (x.events[r].thread != x.events[w].thread && morally_strong(x, w, r) &&
                    includes(x, wide, x.events[r].thread) && node_of(r) >= 0)
                  takers.push_back(node_of(r));
            }
        }
        for (int ld : tk.loads)
          for (uint32_t le : ev[th][size_t(ld)]) {
            if (x.events[le].kind != EventKind::Read || x.rf[le] < 0) continue;  // (the initial value)
            const int src = node_of(uint32_t(x.rf[le]));
            for (int tkr : takers) {
              std::vector<std::vector<std::pair<int, int>>> opts{{{node[th][size_t(ld)], tkr}}, {{tkr, rel}}};
              if (src >= 0) opts.push_back({{src, rel}});
              either.push_back(std::move(opts));
            }
          }
      }
    }
    // (with no choice to make, one pass over `edges` alone)
    std::vector<size_t> choice(either.size(), 0);
    for (bool more = true; more;) {
      std::vector<std::pair<int, int>> all = edges;
      for (size_t k = 0; k < either.size(); ++k)
        all.insert(all.end(), either[k][choice[k]].begin(), either[k][choice[k]].end());
      if (acyclic(size_t(n), all)) return true;
      size_t k = 0;
      while (k < choice.size() && ++choice[k] == either[k].size()) choice[k++] = 0;
      more = k < choice.size();
    }
    size_t th = 0;
    while (th < pick.size() && ++pick[th] == per_thread[th].size()) pick[th++] = 0;
    if (th == pick.size()) return false;
  }
}

}  // namespace synclab::memory
