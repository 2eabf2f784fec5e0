// Enumerating a litmus test's candidate executions (enumerate.h).
//
// A candidate fixes: which write each read reads (or the initial value), hence every value (a
// read-modify-write's write follows from the value its read read; a compare-and-swap whose
// compare fails has no write); a coherence order per location, a strict partial order that
// orders every two writes some scope instance covers (ptx.als's co_per_scope; sequential
// consistency: a total order); and an order of the fence.sc (all orders, ptx only). Candidates
// whose reads-from and dependencies form a cycle are skipped: their values are not defined and the
// PTX model forbids them (no_thin_air); under sequential consistency no interleaving makes one.

#include "sim/memory/oracle/enumerate.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "sim/memory/oracle/ptx_axioms.h"

namespace synclab::memory {

namespace {

// The events a test's instructions stand for, before a run fixes which exist.
struct Proto {
  Event ev;
  int op_thread = 0, op_index = 0;  // the instruction
  bool rmw_write = false;           // the write of an atom/red
  int rmw_read = -1;                // (rmw_write) the proto index of its read
  bool cas = false;                 // (rmw_write) of a compare-and-swap: exists only when the compare holds
};

struct Program {
  std::vector<Proto> ev;
  std::vector<int> reads, writes;          // proto indices
  std::vector<std::pair<int, int>> deps;   // proto read -> proto event
  std::vector<std::vector<int>> reg_read;  // per thread, per register: the proto read that writes it
};

Program build(const LitmusTest& t) {
  Program p;
  p.reg_read.resize(t.threads.size());
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> bar_count;  // (cta, k) -> barrier id
  for (size_t th = 0; th < t.threads.size(); ++th) {
    const LitmusThread& T = t.threads[th];
    p.reg_read[th].assign(size_t(T.regs), -1);
    uint32_t po = 0, bars = 0;
    for (size_t i = 0; i < T.ops.size(); ++i) {
      const LitmusOp& op = T.ops[i];
      auto add = [&](EventKind k) {
        Proto pr;
        pr.ev.kind = k;
        pr.ev.thread = uint32_t(th);
        pr.ev.po = po++;
        pr.ev.loc = op.loc;
        pr.ev.scope = op.scope;
        pr.ev.label = op.text;
        pr.op_thread = int(th);
        pr.op_index = int(i);
        p.ev.push_back(pr);
        return int(p.ev.size() - 1);
      };
      std::vector<int> mine;
      auto depend_on_reg = [&](int reg, int e) { p.deps.push_back({p.reg_read[th][size_t(reg)], e}); };
      switch (op.kind) {
        case LitmusOp::Kind::Ld: {
          const int r = add(EventKind::Read);
          p.ev[size_t(r)].ev.acquire = op.acquire;
          p.reads.push_back(r);
          p.reg_read[th][size_t(op.reg)] = r;
          mine.push_back(r);
          break;
        }
        case LitmusOp::Kind::St: {
          const int w = add(EventKind::Write);
          p.ev[size_t(w)].ev.release = op.release;
          p.writes.push_back(w);
          if (op.value.is_reg) depend_on_reg(int(op.value.value), w);
          mine.push_back(w);
          break;
        }
        case LitmusOp::Kind::Atom:
        case LitmusOp::Kind::Red: {
          const int r = add(EventKind::Read);
          p.ev[size_t(r)].ev.acquire = op.acquire;
          p.ev[size_t(r)].ev.reduction = op.kind == LitmusOp::Kind::Red;
          const int w = add(EventKind::Write);
          p.ev[size_t(w)].ev.release = op.release;
          p.ev[size_t(w)].rmw_write = true;
          p.ev[size_t(w)].rmw_read = r;
          p.ev[size_t(w)].cas = op.rmw == LitmusOp::Rmw::Cas;
          p.reads.push_back(r);
          p.writes.push_back(w);
          if (op.reg >= 0) p.reg_read[th][size_t(op.reg)] = r;
          if (op.value.is_reg) depend_on_reg(int(op.value.value), w);
          if (op.value2.is_reg) depend_on_reg(int(op.value2.value), w);
          mine.push_back(r);
          mine.push_back(w);
          break;
        }
        case LitmusOp::Kind::Fence: {
          const int f = add(EventKind::Fence);
          p.ev[size_t(f)].ev.fence = op.fence;
          mine.push_back(f);
          break;
        }
        case LitmusOp::Kind::Bar: {
          auto key = std::make_pair(T.place.cta, bars++);
          auto it = bar_count.emplace(key, uint32_t(bar_count.size())).first;
          const int a = add(EventKind::BarrierArrive);
          const int b = add(EventKind::BarrierWait);
          p.ev[size_t(a)].ev.barrier = p.ev[size_t(b)].ev.barrier = it->second;
          break;
        }
      }
      for (int reg : op.deps)
        for (int e : mine) depend_on_reg(reg, e);
    }
  }
  return p;
}

int64_t const_or_reg(const LitmusValue& v, const std::vector<int64_t>& regs_of_thread, bool* known,
                     const std::vector<int>& reg_read, const std::vector<char>& read_known) {
  if (!v.is_reg) return v.value;
  const int r = reg_read[size_t(v.value)];
  if (!read_known[size_t(r)]) {
    *known = false;
    return 0;
  }
  return regs_of_thread[size_t(v.value)];
}

// All strict partial orders on `k` writes (as lists of pairs over 0..k-1) that order every pair in
// `must` and none against `total` (total: every pair ordered). Each returned order is transitively
// closed.
std::vector<std::vector<std::pair<int, int>>> partial_orders(int k, const std::vector<std::vector<bool>>& must,
                                                             bool total) {
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < k; ++a)
    for (int b = a + 1; b < k; ++b) pairs.push_back({a, b});
  std::set<std::vector<std::pair<int, int>>> seen;
  std::vector<std::vector<std::pair<int, int>>> out;
  std::vector<int> choice(pairs.size(), 0);  // 0: a<b, 1: b<a, 2: unordered
  for (;;) {
    bool ok = true;
    Relation r(size_t(std::max(k, 1)));
    for (size_t i = 0; i < pairs.size() && ok; ++i) {
      auto [a, b] = pairs[i];
      if (choice[i] == 2 && (total || must[size_t(a)][size_t(b)])) ok = false;
      if (choice[i] == 0) r.add(size_t(a), size_t(b));
      if (choice[i] == 1) r.add(size_t(b), size_t(a));
    }
    if (ok) {
      const Relation c = r.closure();
      if (c.irreflexive()) {
        std::vector<std::pair<int, int>> order;
        for (int a = 0; a < k; ++a)
          for (int b = 0; b < k; ++b)
            if (c.has(size_t(a), size_t(b))) order.push_back({a, b});
        if (seen.insert(order).second) out.push_back(order);
      }
    }
    size_t i = 0;
    while (i < choice.size() && ++choice[i] == 3) choice[i++] = 0;
    if (i == choice.size()) break;
  }
  return out;
}

// Whether some scope instance of the fixed tree (thread, block, GPU, system) covers both writes
// (ptx.als's co_per_scope: scoped[s] & inside[s]).
bool covered_together(const LitmusTest& t, const Event& a, const Event& b) {
  if (a.thread == b.thread) return true;
  const ThreadPlace& pa = t.threads[a.thread].place;
  const ThreadPlace& pb = t.threads[b.thread].place;
  auto at_least_cta = [](Scope s) { return s == Scope::Cta || s == Scope::Gpu || s == Scope::Sys; };
  auto at_least_gpu = [](Scope s) { return s == Scope::Gpu || s == Scope::Sys; };
  if (!pa.host && !pb.host && pa.cta == pb.cta && at_least_cta(a.scope) && at_least_cta(b.scope)) return true;
  if (!pa.host && !pb.host && at_least_gpu(a.scope) && at_least_gpu(b.scope)) return true;
  return a.scope == Scope::Sys && b.scope == Scope::Sys;
}

}  // namespace

size_t outcome_size(const LitmusTest& t) {
  size_t n = t.locs.size();
  for (const LitmusThread& th : t.threads) n += size_t(th.regs);
  return n;
}

bool satisfies(const LitmusTest& t, const Outcome& o) {
  for (const LitmusCond& c : t.exists) {
    size_t at = 0;
    if (c.is_reg) {
      for (uint32_t i = 0; i < c.thread; ++i) at += size_t(t.threads[i].regs);
      at += size_t(c.reg);
    } else {
      for (const LitmusThread& th : t.threads) at += size_t(th.regs);
      at += c.loc;
    }
    if (at >= o.size() || o[at] != c.value) return false;
  }
  return true;
}

std::string outcome_text(const LitmusTest& t, const Outcome& o) {
  std::string s;
  size_t at = 0;
  for (size_t th = 0; th < t.threads.size(); ++th)
    for (int r = 0; r < t.threads[th].regs; ++r, ++at)
      s += fmt::format("{}{}:r{}={}", s.empty() ? "" : " ", th, r, at < o.size() ? o[at] : 0);
  for (size_t l = 0; l < t.locs.size(); ++l, ++at)
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", t.locs[l], at < o.size() ? o[at] : 0);
  return s;
}

bool parse_outcome(const LitmusTest& t, const std::string& text, Outcome* o) {
  o->assign(outcome_size(t), 0);
  std::vector<bool> set(o->size(), false);
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    if (pos >= text.size()) break;
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string term = text.substr(pos, end - pos);
    pos = end;
    const size_t eq = term.find('=');
    if (eq == std::string::npos) return false;
    const std::string lhs = term.substr(0, eq);
    int64_t v;
    try {
      size_t used;
      v = std::stoll(term.substr(eq + 1), &used);
      if (used != term.size() - eq - 1) return false;
    } catch (...) {
      return false;
    }
    size_t at = 0;
    const size_t colon = lhs.find(':');
    if (colon != std::string::npos) {
      size_t th, r;
      try {
        th = std::stoul(lhs.substr(0, colon));
        if (lhs.size() < colon + 3 || lhs[colon + 1] != 'r') return false;
        r = std::stoul(lhs.substr(colon + 2));
      } catch (...) {
        return false;
      }
      if (th >= t.threads.size() || r >= size_t(t.threads[th].regs)) return false;
      for (size_t i = 0; i < th; ++i) at += size_t(t.threads[i].regs);
      at += r;
    } else {
      auto it = std::find(t.locs.begin(), t.locs.end(), lhs);
      if (it == t.locs.end()) return false;
      for (const LitmusThread& th : t.threads) at += size_t(th.regs);
      at += size_t(it - t.locs.begin());
    }
    (*o)[at] = v;
    set[at] = true;
  }
  return std::all_of(set.begin(), set.end(), [](bool b) { return b; });
}

std::set<Outcome> Enumeration::weak() const {
  std::set<Outcome> w;
  for (const Outcome& o : ptx)
    if (!sc.count(o)) w.insert(o);
  return w;
}

Enumeration enumerate_outcomes(const LitmusTest& t, const EnumerateOptions& opt) {
  const Program p = build(t);
  Enumeration res;
  const size_t nreads = p.reads.size();
  // Candidate sources of each read: the initial value, or a write to its location that is not the
  // read's own rmw write and not later in its own thread (location_sc forbids those always).
  std::vector<std::vector<int>> cand(nreads);
  uint64_t rf_space = 1;
  for (size_t i = 0; i < nreads; ++i) {
    const Proto& r = p.ev[size_t(p.reads[i])];
    cand[i].push_back(-1);
    for (int w : p.writes) {
      const Proto& W = p.ev[size_t(w)];
      if (W.ev.loc != r.ev.loc || W.rmw_read == p.reads[i]) continue;
      if (W.ev.thread == r.ev.thread && W.ev.po > r.ev.po) continue;
      cand[i].push_back(w);
    }
    rf_space *= cand[i].size();
    if (rf_space > opt.max_candidates)
      throw LitmusError(fmt::format("{}:{}: test '{}' is too big to enumerate (more than {} reads-from choices)",
                                    t.file, t.line, t.name, opt.max_candidates));
  }
  const size_t nregs_total = outcome_size(t) - t.locs.size();
  std::vector<size_t> reg_base(t.threads.size(), 0);
  for (size_t th = 1; th < t.threads.size(); ++th) reg_base[th] = reg_base[th - 1] + size_t(t.threads[th - 1].regs);

  std::vector<size_t> pick(nreads, 0);
  std::vector<int> rf_proto(p.ev.size(), -2);  // per proto read: its source proto (-1 init)
  for (;;) {
    for (size_t i = 0; i < nreads; ++i) rf_proto[size_t(p.reads[i])] = cand[i][pick[i]];
    // Values, in dependency order.
    std::vector<int64_t> val(p.ev.size(), 0);
    std::vector<char> known(p.ev.size(), 0), exists(p.ev.size(), 1);
    std::vector<std::vector<int64_t>> regs(t.threads.size());
    for (size_t th = 0; th < t.threads.size(); ++th) regs[th].assign(size_t(t.threads[th].regs), 0);
    bool progress = true, defined = true;
    while (progress) {
      progress = false;
      for (size_t e = 0; e < p.ev.size(); ++e) {
        if (known[e]) continue;
        const Proto& pr = p.ev[e];
        const LitmusOp& op = t.threads[size_t(pr.op_thread)].ops[size_t(pr.op_index)];
        const size_t th = size_t(pr.op_thread);
        if (pr.ev.kind == EventKind::Read) {
          const int src = rf_proto[e];
          if (src >= 0 && !known[size_t(src)]) continue;
          val[e] = src < 0 ? 0 : val[size_t(src)];
          if (op.reg >= 0 && (op.kind == LitmusOp::Kind::Ld || op.kind == LitmusOp::Kind::Atom))
            regs[th][size_t(op.reg)] = val[e];
        } else if (pr.ev.kind == EventKind::Write) {
          bool k = true;
          const int64_t v1 = const_or_reg(op.value, regs[th], &k, p.reg_read[th], known);
          const int64_t v2 = const_or_reg(op.value2, regs[th], &k, p.reg_read[th], known);
          if (pr.rmw_write && !known[size_t(pr.rmw_read)]) k = false;
          if (!k) continue;
          if (!pr.rmw_write) {
            val[e] = v1;
          } else {
            const int64_t old = val[size_t(pr.rmw_read)];
            switch (op.rmw) {
              case LitmusOp::Rmw::Add: val[e] = old + v1; break;
              case LitmusOp::Rmw::Exch: val[e] = v1; break;
              case LitmusOp::Rmw::Cas:
                val[e] = v2;
                exists[e] = old == v1;
                break;
            }
          }
        }
        known[e] = 1;
        progress = true;
      }
    }
    for (size_t e = 0; e < p.ev.size(); ++e)
      if (!known[e]) defined = false;  // reads-from and dependencies in a cycle
    for (size_t i = 0; i < nreads && defined; ++i) {
      const int src = rf_proto[size_t(p.reads[i])];
      if (src >= 0 && !exists[size_t(src)]) defined = false;  // reads a compare-and-swap that failed
    }

    if (defined && opt.target) {
      // (only the target's register values)
      for (size_t th = 0; th < t.threads.size() && defined; ++th)
        for (size_t r = 0; r < regs[th].size(); ++r)
          if (regs[th][r] != (*opt.target)[reg_base[th] + r]) defined = false;
    }
    if (defined) {
      // The execution over the events that exist.
      Execution x;
      for (const LitmusThread& th : t.threads) x.threads.push_back(th.place);
      std::vector<int> idx(p.ev.size(), -1);
      for (size_t e = 0; e < p.ev.size(); ++e) {
        if (!exists[e]) continue;
        Event ev = p.ev[e].ev;
        ev.value = uint64_t(val[e]);
        idx[e] = int(x.add(ev));
      }
      for (size_t e = 0; e < p.ev.size(); ++e)
        if (idx[e] >= 0 && p.ev[e].ev.kind == EventKind::Read)
          x.rf[size_t(idx[e])] = rf_proto[e] < 0 ? -1 : idx[size_t(rf_proto[e])];
      for (size_t e = 0; e < p.ev.size(); ++e)
        if (idx[e] >= 0 && p.ev[e].rmw_write)
          x.rmw.push_back({uint32_t(idx[size_t(p.ev[e].rmw_read)]), uint32_t(idx[e])});
      for (auto [a, b] : p.deps)
        if (idx[size_t(a)] >= 0 && idx[size_t(b)] >= 0)
          x.dep.push_back({uint32_t(idx[size_t(a)]), uint32_t(idx[size_t(b)])});
      InstrEvents instr_events;
      if (opt.run_order) {
        instr_events.resize(t.threads.size());
        for (size_t th = 0; th < t.threads.size(); ++th) instr_events[th].resize(t.threads[th].ops.size());
        for (size_t e = 0; e < p.ev.size(); ++e)
          if (idx[e] >= 0)
            instr_events[size_t(p.ev[e].op_thread)][size_t(p.ev[e].op_index)].push_back(uint32_t(idx[e]));
      }
      // Registers of the outcome.
      Outcome base(outcome_size(t), 0);
      for (size_t th = 0; th < t.threads.size(); ++th)
        for (size_t r = 0; r < regs[th].size(); ++r) base[reg_base[th] + r] = regs[th][r];

      // Per location: its writes and their candidate coherence orders.
      std::vector<std::vector<uint32_t>> loc_writes(t.locs.size());
      for (size_t e = 0; e < x.events.size(); ++e)
        if (x.events[e].kind == EventKind::Write) loc_writes[x.events[e].loc].push_back(uint32_t(e));
      auto orders_for = [&](bool total) {
        std::vector<std::vector<std::vector<std::pair<int, int>>>> per_loc(t.locs.size());
        for (size_t l = 0; l < t.locs.size(); ++l) {
          const auto& ws = loc_writes[l];
          std::vector<std::vector<bool>> must(ws.size(), std::vector<bool>(ws.size(), false));
          for (size_t a = 0; a < ws.size(); ++a)
            for (size_t b = 0; b < ws.size(); ++b) must[a][b] = covered_together(t, x.events[ws[a]], x.events[ws[b]]);
          per_loc[l] = partial_orders(int(ws.size()), must, total);
        }
        return per_loc;
      };
      std::vector<uint32_t> scf;
      for (size_t e = 0; e < x.events.size(); ++e)
        if (x.events[e].kind == EventKind::Fence && x.events[e].fence == FenceKind::Sc) scf.push_back(uint32_t(e));

      for (int pass = 0; pass < 2; ++pass) {
        const bool is_sc = pass == 1;
        if ((is_sc && !opt.sc) || (!is_sc && !opt.ptx)) continue;
        std::set<Outcome>& found = is_sc ? res.sc : res.ptx;
        const auto per_loc = orders_for(is_sc || opt.total_co);
        std::vector<size_t> co_pick(t.locs.size(), 0);
        bool any_loc_empty = false;
        for (const auto& v : per_loc) any_loc_empty |= v.empty();
        if (any_loc_empty) continue;
        for (;;) {
          x.co.clear();
          std::vector<std::vector<int64_t>> finals(t.locs.size());
          for (size_t l = 0; l < t.locs.size(); ++l) {
            const auto& ws = loc_writes[l];
            const auto& order = per_loc[l][co_pick[l]];
            std::vector<bool> has_succ(ws.size(), false);
            for (auto [a, b] : order) {
              x.co.push_back({ws[size_t(a)], ws[size_t(b)]});
              has_succ[size_t(a)] = true;
            }
            if (ws.empty()) finals[l].push_back(0);
            for (size_t a = 0; a < ws.size(); ++a)
              if (!has_succ[a]) finals[l].push_back(int64_t(x.events[ws[a]].value));
          }
          // The outcomes this candidate stands for (several when a location has several last writes).
          std::vector<Outcome> outs{base};
          for (size_t l = 0; l < t.locs.size(); ++l) {
            std::vector<Outcome> next;
            for (const Outcome& o : outs)
              for (int64_t v : finals[l]) {
                Outcome o2 = o;
                o2[nregs_total + l] = v;
                next.push_back(o2);
              }
            outs.swap(next);
          }
          if (opt.target) {
            const bool has = std::find(outs.begin(), outs.end(), *opt.target) != outs.end();
            outs.assign(has ? 1 : 0, *opt.target);
          }
          bool all_known = true;
          for (const Outcome& o : outs) all_known &= found.count(o) > 0;
          if (!all_known) {
            if (is_sc) {
              x.sc.clear();
              ++res.candidates;
              if (check_sc(x).allowed) found.insert(outs.begin(), outs.end());
            } else {
              std::vector<uint32_t> perm = scf;
              std::sort(perm.begin(), perm.end());
              do {
                x.sc.clear();
                for (size_t i = 0; i + 1 < perm.size(); ++i) x.sc.push_back({perm[i], perm[i + 1]});
                ++res.candidates;
                if (res.candidates > opt.max_candidates)
                  throw LitmusError(fmt::format("{}:{}: test '{}' is too big to enumerate (more than {} candidates)",
                                                t.file, t.line, t.name, opt.max_candidates));
                if (check_ptx(x).allowed && (!opt.run_order || run_order_exists(t, x, instr_events, *opt.run_order))) {
                  found.insert(outs.begin(), outs.end());
                  break;
                }
              } while (std::next_permutation(perm.begin(), perm.end()));
            }
          }
          size_t l = 0;
          while (l < co_pick.size() && ++co_pick[l] == per_loc[l].size()) co_pick[l++] = 0;
          if (l == co_pick.size()) break;
        }
      }
    }
    size_t i = 0;
    while (i < nreads && ++pick[i] == cand[i].size()) pick[i++] = 0;
    if (i == nreads) break;
  }
  return res;
}

std::string gap_of(const LitmusTest& t, const Outcome& o) {
  auto reaches = [&](const RunOrderLimits& lim) {
    EnumerateOptions opt;
    opt.sc = false;
    opt.run_order = &lim;
    opt.target = &o;
    return enumerate_outcomes(t, opt).ptx.count(o) > 0;
  };
  if (reaches(RunOrderLimits{})) return "";
  std::vector<RunOrderLimits> one(11);
  one[0].fence_sc_in_run_order = false;
  one[1].hold_past_fence_sc = true;
  one[2].hold_past_barrier = true;
  one[3].early_release_rmw = true;
  one[4].early_same_location = true;
  one[5].early_past_dependent_address = true;
  one[6].early_loads = true;
  one[7].early_rmw_after_acquire = true;
  one[8].hidden_readable = true;
  one[9].acquire_hidden_readable = true;
  one[10].taken_readable = true;
  for (const RunOrderLimits& lim : one)
    if (reaches(lim)) return lim.relaxed();
  // Two rules at once: the first pair, in the order above, whose relaxation reaches it (which
  // rules a change of the model would have to lift together).
  for (size_t a = 0; a < one.size(); ++a)
    for (size_t b = a + 1; b < one.size(); ++b)
      if (reaches(one[a].with(one[b]))) return "several rules: " + one[a].relaxed() + " + " + one[b].relaxed();
  RunOrderLimits all;
  for (const RunOrderLimits& lim : one) all = all.with(lim);
  return reaches(all) ? "several rules (three or more)" : "none of these rules";
}

}  // namespace synclab::memory
