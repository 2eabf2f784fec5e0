// Litmus tests as PTX kernels on the simulator (litmus_run.h).

#include "sim/tools/litmus_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

#include "sim/exec/simulator.h"
#include "sim/memory/memory_model.h"
#include "sim/memory/oracle/ptx_axioms.h"

namespace synclab::litmus {

using memory::LitmusOp;
using memory::LitmusTest;
using memory::Scope;

namespace {

constexpr int kRegsPerThread = 16;  // PTX registers %r reserved per litmus thread

// Where each litmus thread runs: its block, and its thread index in the block (warp * 32 + lane;
// threads sharing a block and a warp take lanes 0, 1, ...).
struct Placement {
  std::vector<uint32_t> cta, tid;
  uint32_t blocks = 1, block_threads = 32;
};

Placement place(const LitmusTest& t) {
  Placement p;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> next_lane;
  uint32_t max_warp = 0, max_cta = 0;
  for (const memory::LitmusThread& th : t.threads) {
    if (th.place.host) throw std::runtime_error(fmt::format("test '{}': host threads are not run here", t.name));
    const uint32_t lane = next_lane[{th.place.cta, th.place.warp}]++;
    p.cta.push_back(th.place.cta);
    p.tid.push_back(th.place.warp * 32 + lane);
    max_warp = std::max(max_warp, th.place.warp);
    max_cta = std::max(max_cta, th.place.cta);
  }
  p.blocks = max_cta + 1;
  p.block_threads = 32 * (max_warp + 1);
  return p;
}

// What an aimed launch wants (RunOptions::aim_seeds): per copy of the test, the outcome it aims at,
// as the values each thread's reads should return (by thread number in the launch and location
// address) and the locations' final values.
class LitmusAim final : public sim::OutcomeAim {
 public:
  void add(const LitmusTest& t, const Placement& pl, uint32_t copy, uint64_t mem, const memory::Outcome& o) {
    size_t at = 0;
    for (size_t i = 0; i < t.threads.size(); ++i) {
      for (int reg = 0; reg < t.threads[i].regs && at + size_t(reg) < o.size(); ++reg)
        want_reg(t, pl, copy, mem, i, reg, o[at + size_t(reg)]);
      at += size_t(t.threads[i].regs);
    }
    for (size_t l = 0; l < t.locs.size() && at + l < o.size(); ++l) finals_[key(t, copy, mem, l)] = uint32_t(o[at + l]);
  }
  // The values the test's `exists` names (registers and final values; the others free).
  void add_exists(const LitmusTest& t, const Placement& pl, uint32_t copy, uint64_t mem) {
    for (const memory::LitmusCond& c : t.exists) {
      if (!c.is_reg)
        finals_[key(t, copy, mem, c.loc)] = uint32_t(c.value);
      else if (c.thread < t.threads.size())
        want_reg(t, pl, copy, mem, c.thread, c.reg, c.value);
    }
  }
  bool wants_read(const sim::MemThread& t, uint64_t key, uint64_t value) const override {
    const auto it = reads_.find({t.id, key});
    return it != reads_.end() && std::find(it->second.begin(), it->second.end(), uint32_t(value)) != it->second.end();
  }
  int wants_final(uint64_t key, uint64_t value) const override {
    const auto it = finals_.find(key);
    return it == finals_.end() ? -1 : it->second == uint32_t(value) ? 1 : 0;
  }

 private:
  // The address of location `loc` in copy `copy` (litmus_ptx's layout).
  static uint64_t key(const LitmusTest& t, uint32_t copy, uint64_t mem, size_t loc) {
    return mem + 4 * std::max<size_t>(t.locs.size(), 1) * copy + 4 * loc;
  }
  // Thread i's register `reg` should hold `value`: the read (ld or atom) that writes it should read it.
  void want_reg(const LitmusTest& t, const Placement& pl, uint32_t copy, uint64_t mem, size_t i, int reg,
                int64_t value) {
    const uint64_t id = uint64_t(copy * pl.blocks + pl.cta[i]) * pl.block_threads + pl.tid[i];
    for (const LitmusOp& op : t.threads[i].ops)
      if (op.reg == reg && (op.kind == LitmusOp::Kind::Ld || op.kind == LitmusOp::Kind::Atom))
        reads_[{id, key(t, copy, mem, op.loc)}].push_back(uint32_t(value));
  }
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint32_t>> reads_;
  std::map<uint64_t, uint32_t> finals_;
};

std::string scope_q(Scope s) { return s == Scope::Cta ? "cta" : s == Scope::Gpu ? "gpu" : "sys"; }

// The load or store qualifiers: "" (weak), ".volatile", ".relaxed.gpu", ".acquire.cta", ...
std::string order_q(const LitmusOp& op) {
  if (op.is_volatile) return ".volatile";
  if (op.scope == Scope::Thread) return "";
  return fmt::format(".{}.{}", op.acquire ? "acquire" : op.release ? "release" : "relaxed", scope_q(op.scope));
}

}  // namespace

std::string litmus_ptx(const LitmusTest& t, uint32_t instances) {
  if (instances == 0) throw std::runtime_error("a litmus launch needs at least one instance");
  const Placement pl = place(t);
  std::string s;
  s += "// Litmus test " + t.name + " (written by synclab-litmus from the test's text)\n";
  s += ".version 8.6\n.target sm_90\n.address_size 64\n\n";
  s += ".visible .entry litmus_test(.param .u64 p_mem, .param .u64 p_out)\n{\n";
  s += "  .reg .pred %p<8>;\n";
  s += fmt::format("  .reg .b32 %r<{}>;\n", 16 + kRegsPerThread * t.threads.size() + 64);
  s += fmt::format("  .reg .b64 %rd<{}>;\n", 16 + t.locs.size() + 64);
  s += "  ld.param.u64 %rd0, [p_mem];\n  ld.param.u64 %rd1, [p_out];\n";
  s += "  mov.u32 %r0, %ctaid.x;\n  mov.u32 %r1, %tid.x;\n";
  if (instances > 1) {
    // The copy this block belongs to (%r3), its block within the copy, and the copy's memory.
    s += fmt::format("  div.u32 %r3, %r0, {};\n  rem.u32 %r0, %r0, {};\n", pl.blocks, pl.blocks);
    s += fmt::format("  mul.wide.u32 %rd2, %r3, {};\n  add.u64 %rd0, %rd0, %rd2;\n",
                     4 * std::max<size_t>(t.locs.size(), 1));
    s += fmt::format("  mul.wide.u32 %rd3, %r3, {};\n  add.u64 %rd1, %rd1, %rd3;\n",
                     4 * kRegsPerThread * t.threads.size());
  }
  s += "  mad.lo.u32 %r2, %r0, 1024, %r1;\n";
  for (size_t l = 0; l < t.locs.size(); ++l)
    s += fmt::format("  add.u64 %rd{}, %rd0, {};  // [{}]\n", 16 + l, 4 * l, t.locs[l]);
  // The lanes that run no thread of the test leave first, so that a block's idle lanes are soon
  // at its end (whether a block's other threads may still release matters to the relaxed model:
  // KernelRun::block_releases_no_more).
  for (size_t i = 0; i < t.threads.size(); ++i) {
    s += fmt::format("  setp.eq.u32 {}, %r2, {};\n", i ? "%p3" : "%p2", pl.cta[i] * 1024 + pl.tid[i]);
    if (i) s += "  or.pred %p2, %p2, %p3;\n";
  }
  s += "  @!%p2 bra $Idle;\n";
  for (size_t i = 0; i < t.threads.size(); ++i)
    s += fmt::format("  setp.eq.u32 %p0, %r2, {};\n  @%p0 bra $T{};\n", pl.cta[i] * 1024 + pl.tid[i], i);
  s += "$Idle:\n  ret;\n";
  int tmp = 0, tmpd = 0;
  for (size_t i = 0; i < t.threads.size(); ++i) {
    const memory::LitmusThread& th = t.threads[i];
    s += fmt::format("$T{}:  // thread {}: block {}, thread {}\n", i, i, pl.cta[i], pl.tid[i]);
    auto reg = [&](int k) { return fmt::format("%r{}", 16 + kRegsPerThread * i + size_t(k)); };
    auto val = [&](const memory::LitmusValue& v) { return v.is_reg ? reg(int(v.value)) : fmt::format("{}", v.value); };
    for (const LitmusOp& op : th.ops) {
      std::string addr = fmt::format("%rd{}", 16 + op.loc);
      std::string pre;
      if (!op.deps.empty() && op.kind != LitmusOp::Kind::Fence && op.kind != LitmusOp::Kind::Bar) {
        // An address dependency: the address plus (r ^ r), which is 0 but computed from r.
        const std::string z = fmt::format("%r{}", 16 + kRegsPerThread * t.threads.size() + size_t(tmp++ % 48));
        const std::string zd = fmt::format("%rd{}", 16 + t.locs.size() + size_t(tmpd++ % 48));
        pre += fmt::format("  xor.b32 {}, {}, {};\n", z, reg(op.deps[0]), reg(op.deps[0]));
        for (size_t k = 1; k < op.deps.size(); ++k)
          pre += fmt::format("  xor.b32 {}, {}, {};\n  xor.b32 {}, {}, {};\n", z, z, reg(op.deps[k]), z, z,
                             reg(op.deps[k]));
        pre += fmt::format("  cvt.u64.u32 {}, {};\n  add.u64 {}, {}, {};\n", zd, z, zd, zd, addr);
        addr = zd;
      } else if (!op.deps.empty()) {
        // A control dependency for a fence or barrier: a branch on the register to the next line.
        const std::string lbl = fmt::format("$D{}_{}", i, tmp++);
        pre += fmt::format("  setp.eq.u32 %p1, {}, 123456789;\n  @%p1 bra {};\n{}:\n", reg(op.deps[0]), lbl, lbl);
      }
      s += pre;
      switch (op.kind) {
        case LitmusOp::Kind::Ld:
          s += fmt::format("  ld{}.global.u32 {}, [{}];  // {}\n", order_q(op), reg(op.reg), addr, op.text);
          break;
        case LitmusOp::Kind::St:
          s += fmt::format("  st{}.global.u32 [{}], {};  // {}\n", order_q(op), addr, val(op.value), op.text);
          break;
        case LitmusOp::Kind::Atom:
        case LitmusOp::Kind::Red: {
          const char* sem = op.acquire && op.release ? "acq_rel"
                            : op.acquire             ? "acquire"
                            : op.release             ? "release"
                                                     : "relaxed";
          const char* what = op.rmw == LitmusOp::Rmw::Add    ? "add.u32"
                             : op.rmw == LitmusOp::Rmw::Exch ? "exch.b32"
                                                             : "cas.b32";
          if (op.kind == LitmusOp::Kind::Atom)
            s += fmt::format("  atom.{}.{}.global.{} {}, [{}], {}{};  // {}\n", sem, scope_q(op.scope), what,
                             reg(op.reg), addr, val(op.value),
                             op.rmw == LitmusOp::Rmw::Cas ? ", " + val(op.value2) : "", op.text);
          else
            s += fmt::format("  red.{}.{}.global.add.u32 [{}], {};  // {}\n", sem, scope_q(op.scope), addr,
                             val(op.value), op.text);
          break;
        }
        case LitmusOp::Kind::Fence:
          s += fmt::format("  fence.{}.{};  // {}\n", memory::fence_name(op.fence), scope_q(op.scope), op.text);
          break;
        case LitmusOp::Kind::Bar: s += "  bar.sync 0;\n"; break;
      }
    }
    // The registers, to out[thread * 16 + k].
    for (int k = 0; k < th.regs; ++k)
      s += fmt::format("  st.global.u32 [%rd1+{}], {};\n", 4 * (kRegsPerThread * i + size_t(k)), reg(k));
    s += "  ret;\n";
  }
  s += "}\n";
  return s;
}

namespace {

// The recorded events of one litmus thread that its instructions stand for, in program order
// (the stores of the registers that follow are left out).
struct OpEvents {
  std::vector<std::vector<uint32_t>> of_op;  // per instruction: its events
};

// Adds the test's dependencies to a recorded execution (the simulator records none); false when
// the recorded events do not match the program (then nothing is added).
bool add_dependencies(const LitmusTest& t, const Placement& pl, uint32_t instance, memory::Execution& x,
                      std::string* why) {
  for (size_t i = 0; i < t.threads.size(); ++i) {
    // The recorded thread of litmus thread i (of the given copy of the test).
    const uint32_t cta = instance * pl.blocks + pl.cta[i];
    int rt = -1;
    for (size_t k = 0; k < x.threads.size(); ++k)
      if (!x.threads[k].host && x.threads[k].cta == cta && x.threads[k].warp * 32 + x.threads[k].lane == pl.tid[i])
        rt = int(k);
    std::vector<uint32_t> evs;
    for (uint32_t e = 0; e < x.events.size(); ++e)
      if (int(x.events[e].thread) == rt) evs.push_back(e);
    std::sort(evs.begin(), evs.end(), [&](uint32_t a, uint32_t b) { return x.events[a].po < x.events[b].po; });
    size_t at = 0;
    std::vector<int> reg_event(size_t(t.threads[i].regs), -1);
    for (const LitmusOp& op : t.threads[i].ops) {
      std::vector<uint32_t> mine;
      auto take = [&](memory::EventKind k) {
        if (at < evs.size() && x.events[evs[at]].kind == k) {
          mine.push_back(evs[at++]);
          return true;
        }
        return false;
      };
      bool ok = true;
      switch (op.kind) {
        case LitmusOp::Kind::Ld: ok = take(memory::EventKind::Read); break;
        case LitmusOp::Kind::St: ok = take(memory::EventKind::Write); break;
        case LitmusOp::Kind::Atom:
        case LitmusOp::Kind::Red:
          ok = take(memory::EventKind::Read);
          if (ok) {
            // Its write, unless it is a compare-and-swap whose compare failed (it read another
            // value than the expected one: a constant, or a register's read).
            bool writes = true;
            if (op.rmw == LitmusOp::Rmw::Cas) {
              int64_t expected = op.value.value;
              if (op.value.is_reg) {
                const int re = reg_event[size_t(op.value.value)];
                expected = re >= 0 ? int64_t(x.events[size_t(re)].value) : 0;
              }
              writes = uint32_t(x.events[mine[0]].value) == uint32_t(expected);
            }
            if (writes) ok = take(memory::EventKind::Write);
          }
          break;
        case LitmusOp::Kind::Fence: ok = take(memory::EventKind::Fence); break;
        case LitmusOp::Kind::Bar:
          ok = take(memory::EventKind::BarrierArrive) && take(memory::EventKind::BarrierWait);
          break;
      }
      if (!ok) {
        *why = fmt::format("thread {}{}: the recorded events do not match `{}`", i,
                           instance ? fmt::format(" of copy {}", instance) : "", op.text);
        return false;
      }
      if (op.reg >= 0) reg_event[size_t(op.reg)] = int(mine[0]);
      std::vector<int> regs = op.deps;
      if (op.value.is_reg) regs.push_back(int(op.value.value));
      if (op.value2.is_reg) regs.push_back(int(op.value2.value));
      for (int r : regs)
        for (uint32_t e : mine)
          if (reg_event[size_t(r)] >= 0 && uint32_t(reg_event[size_t(r)]) != e)
            x.dep.push_back({uint32_t(reg_event[size_t(r)]), e});
      if (op.kind == LitmusOp::Kind::Red) x.events[mine[0]].reduction = true;
    }
  }
  return true;
}

// An execution as text: its events, then reads-from, coherence order, rmw and dependencies.
std::string execution_text(const memory::Execution& x) {
  std::string s;
  for (uint32_t e = 0; e < x.events.size(); ++e) {
    s += fmt::format("    {} po {}", x.describe(e), x.events[e].po);
    if (x.events[e].kind == memory::EventKind::Read) s += fmt::format(" reads from e{}", x.rf[e]);
    s += "\n";
  }
  s += "    co:";
  for (auto [a, b] : x.co) s += fmt::format(" e{}->e{}", a, b);
  s += "\n    rmw:";
  for (auto [a, b] : x.rmw) s += fmt::format(" e{}->e{}", a, b);
  s += "\n    dep:";
  for (auto [a, b] : x.dep) s += fmt::format(" e{}->e{}", a, b);
  s += "\n    sc:";
  for (auto [a, b] : x.sc) s += fmt::format(" e{}->e{}", a, b);
  return s;
}

}  // namespace

RunResult run_litmus(const LitmusTest& t, const RunOptions& opt) {
  using namespace synclab::sim;
  const Placement pl = place(t);
  Simulator& sim = Simulator::instance();
  const uint32_t copies = std::max<uint32_t>(opt.instances, 1);
  const std::string ptx = litmus_ptx(t, copies);
  const int module = sim.load_module(ptx, t.name + ".ptx");
  const int fn = sim.find_function(module, "litmus_test");
  const uint64_t mem_each = 4 * std::max<size_t>(t.locs.size(), 1);
  const uint64_t out_each = 4 * kRegsPerThread * t.threads.size();
  const uint64_t mem_bytes = mem_each * copies, out_bytes = out_each * copies;
  auto* mem = static_cast<uint8_t*>(sim.memory().allocate(mem_bytes, AllocKind::Device, "litmus locations"));
  auto* out = static_cast<uint8_t*>(sim.memory().allocate(out_bytes, AllocKind::Device, "litmus registers"));
  if (!mem || !out) throw std::runtime_error("cannot allocate the test's memory");
  LaunchParams lp;
  lp.module = module;
  lp.function = fn;
  lp.grid.x = pl.blocks * copies;
  lp.block.x = pl.block_threads;
  lp.params.resize(16);
  const uint64_t mem_addr = reinterpret_cast<uint64_t>(mem), out_addr = reinterpret_cast<uint64_t>(out);
  std::memcpy(lp.params.data(), &mem_addr, 8);
  std::memcpy(lp.params.data() + 8, &out_addr, 8);

  Config& cfg = sim.config();
  const Config saved = cfg;
  cfg.memory = opt.relaxed ? MemoryModel::Relaxed : MemoryModel::Sc;
  cfg.memory_check = opt.relaxed && opt.check;
  cfg.model = WarpModel::Its;
  // Every block of every copy resident at once, as on a GPU of many SMs: on a small profile the
  // blocks of a copy that starts late run after those of earlier copies have finished, and
  // threads that never run side by side show no weak outcome.
  cfg.device = "h100";
  cfg.checks = false;
  cfg.check_list = "none";
  cfg.quiet = true;
  cfg.trace_path.clear();
  RunResult res;
  // (until_seen) how many of its outcomes not in kept_out there are, and how many have shown
  size_t reach_total = 0, reach_seen = 0;
  if (opt.until_seen)
    for (const memory::Outcome& o : *opt.until_seen) reach_total += !(opt.kept_out && opt.kept_out->count(o));
  bool aimed = false;  // the launch below is aimed
  // One launch of seed s: its copies' outcomes counted, its execution checked.
  const auto run_seed = [&](uint64_t s) {
    std::memset(mem, 0, mem_bytes);
    std::memset(out, 0, out_bytes);
    cfg.seed = s;
    // Two schedulers in turn: random interleavings, and PCT's priority changes (of depth 1 to 4:
    // from one thread at a time to a few switches).
    cfg.sched = s % 2 ? SchedPolicy::Random : SchedPolicy::Pct;
    cfg.pct_depth = uint32_t(1 + (s / 2) % 4);
    const LaunchResult lr = sim.launch(lp);
    ++res.runs;
    if (aimed) ++res.aimed_runs;
    if (lr.status != LaunchStatus::Success) {
      res.problems.push_back(fmt::format("seed {}{}: the launch ended with {}: {}", s, aimed ? " (aimed)" : "",
                                         launch_status_name(lr.status), lr.message));
      return;
    }
    bool explain_kept = false;  // (explain) a copy's outcome is one kept_out says cannot show
    for (uint32_t c = 0; c < copies; ++c) {
      memory::Outcome o;
      for (size_t i = 0; i < t.threads.size(); ++i)
        for (int k = 0; k < t.threads[i].regs; ++k) {
          int32_t v;
          std::memcpy(&v, out + out_each * c + 4 * (kRegsPerThread * i + size_t(k)), 4);
          o.push_back(v);
        }
      for (size_t l = 0; l < t.locs.size(); ++l) {
        int32_t v;
        std::memcpy(&v, mem + mem_each * c + 4 * l, 4);
        o.push_back(v);
      }
      const auto [it, first] = res.counts.try_emplace(o, 0);
      ++it->second;
      if (!first) continue;
      res.first_seed[o] = s;
      const bool kept = opt.kept_out && opt.kept_out->count(o);
      if (opt.explain && kept) explain_kept = true;  // (explained once: the run in which it first shows)
      if (opt.until_seen && opt.until_seen->count(o)) {
        reach_seen += !kept;
        if (aimed) res.aimed_seen.insert(o);
      }
    }
    for (const Report& r : lr.reports)
      if (r.title.find("simulator bug") != std::string::npos)
        res.problems.push_back(fmt::format("seed {}{}: {}: {}", s, aimed ? " (aimed)" : "", r.title, r.details));
    if (cfg.memory_check && lr.execution) {
      memory::Execution x = *lr.execution;
      // Every copy's dependencies, then the oracle on the whole execution (the copies share no
      // location, but their fence.sc operations are in one order).
      std::string why;
      bool matched = true;
      for (uint32_t c = 0; c < copies && matched; ++c) matched = add_dependencies(t, pl, c, x, &why);
      if (!matched) {
        res.problems.push_back(fmt::format("seed {}{}: {}", s, aimed ? " (aimed)" : "", why));
      } else {
        if (explain_kept)
          res.problems.push_back(
              fmt::format("seed {}{}: an outcome the rules' mirror keeps out showed; the execution:\n{}", s,
                          aimed ? " (aimed)" : "", execution_text(x)));
        const memory::AxiomResult ar = memory::check_ptx(x);
        if (!ar.allowed)
          res.problems.push_back(fmt::format("seed {}{}: with the test's dependencies the execution breaks {}: {}{}", s,
                                             aimed ? " (aimed)" : "", ar.axiom, ar.explain,
                                             opt.explain ? "\n" + execution_text(x) : ""));
      }
    }
  };
  for (uint64_t s = opt.first_seed; s < opt.first_seed + opt.seeds; ++s) {
    if (opt.until_seen && reach_seen == reach_total && s - opt.first_seed >= opt.until_seen_min) break;
    run_seed(s);
  }
  if (opt.until_seen && opt.relaxed && opt.aim_seeds > 0) {
    // Aimed seeds: copy c of launch k aims at the (k * copies + c)-th of the outcomes still
    // missing (null: the forbidden `exists`).
    aimed = true;
    std::vector<const memory::Outcome*> missing;
    for (uint64_t k = 0; k < opt.aim_seeds; ++k) {
      missing.clear();
      for (const memory::Outcome& o : *opt.until_seen)
        if (!res.counts.count(o)) missing.push_back(&o);
      if (opt.aim_forbidden_exists) missing.push_back(nullptr);
      if (missing.empty()) break;
      auto aim = std::make_shared<LitmusAim>();
      for (uint32_t c = 0; c < copies; ++c) {
        const memory::Outcome* o = missing[(k * copies + c) % missing.size()];
        if (o)
          aim->add(t, pl, c, mem_addr, *o);
        else
          aim->add_exists(t, pl, c, mem_addr);
      }
      cfg.aim = aim;
      run_seed(opt.first_seed + opt.seeds + k);
    }
    cfg.aim.reset();
  }
  cfg = saved;
  sim.memory().release(mem);
  sim.memory().release(out);
  return res;
}

}  // namespace synclab::litmus
