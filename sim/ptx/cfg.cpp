// Basic blocks, edges and immediate post-dominators (Cooper, Harvey & Kennedy's iterative
// algorithm run on the reversed graph, rooted at a virtual exit node).
#include "sim/ptx/cfg.h"

#include <algorithm>

namespace synclab::sim::ptx {
namespace {

bool ends_block(const Instr& in) {
  switch (in.op) {
    case Op::Bra:
    case Op::Brx:
    case Op::Ret:
    case Op::Exit:
    case Op::Trap: return true;
    default: return false;
  }
}

// Instruction indexes an instruction may jump to (not counting fall-through).
void branch_targets(const Function& fn, const Instr& in, std::vector<uint32_t>& out) {
  out.clear();
  if (in.op == Op::Bra && in.nsrc > 0 && in.src[0].kind == Operand::Kind::Label)
    out.push_back(static_cast<uint32_t>(in.src[0].imm));
  if (in.op == Op::Brx && in.nsrc > 1) {
    uint64_t t = static_cast<uint64_t>(in.src[1].imm);
    if (t < fn.branch_tables.size()) out = fn.branch_tables[t];
  }
}

}  // namespace

void build_cfg(Function& fn) {
  const uint32_t n = static_cast<uint32_t>(fn.code.size());
  fn.blocks.clear();
  fn.block_of.assign(n, 0);
  fn.reconverge_pc.assign(n, Function::kExitPc);
  if (n == 0) return;

  // 1. Leaders: the entry, every branch target, every instruction after a block end.
  std::vector<char> leader(n + 1, 0);
  leader[0] = 1;
  std::vector<uint32_t> targets;
  for (uint32_t i = 0; i < n; ++i) {
    const Instr& in = fn.code[i];
    branch_targets(fn, in, targets);
    for (uint32_t t : targets)
      if (t < n) leader[t] = 1;
    if (ends_block(in)) leader[i + 1] = 1;
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (leader[i]) {
      if (!fn.blocks.empty()) fn.blocks.back().last = i - 1;
      fn.blocks.push_back(BasicBlock{i, i, {}, {}, -1});
    }
    fn.block_of[i] = static_cast<uint32_t>(fn.blocks.size() - 1);
  }
  fn.blocks.back().last = n - 1;
  const uint32_t nb = static_cast<uint32_t>(fn.blocks.size());
  const uint32_t exit_node = nb;  // the virtual exit

  // 2. Edges. to_exit marks blocks that flow into the virtual exit.
  std::vector<char> to_exit(nb, 0);
  auto add_edge = [&](uint32_t a, uint32_t target_pc) {
    if (target_pc >= n) {
      to_exit[a] = 1;
      return;
    }  // falls off the end: implicit return
    uint32_t b = fn.block_of[target_pc];
    auto& s = fn.blocks[a].succs;
    if (std::find(s.begin(), s.end(), b) == s.end()) {
      s.push_back(b);
      fn.blocks[b].preds.push_back(a);
    }
  };
  for (uint32_t bi = 0; bi < nb; ++bi) {
    const Instr& in = fn.code[fn.blocks[bi].last];
    const bool guarded = in.guard != Operand::kNoReg;
    branch_targets(fn, in, targets);
    for (uint32_t t : targets) add_edge(bi, t);
    const bool terminates = in.op == Op::Ret || in.op == Op::Exit || in.op == Op::Trap;
    if (terminates) to_exit[bi] = 1;
    // Falls through unless it is an unconditional transfer.
    if (!(ends_block(in) && !guarded)) add_edge(bi, fn.blocks[bi].last + 1);
    if (in.op == Op::Brx && targets.empty()) to_exit[bi] = 1;  // unknown targets: be safe
  }

  // 3. Reverse graph (successors of the exit = blocks flowing into it); make every block reach
  //    the exit by connecting, region by region, the highest-addressed block that cannot.
  std::vector<char> reaches(nb + 1, 0);
  std::vector<uint32_t> work;
  auto mark_from = [&](uint32_t b) {  // reverse reachability from b (b reaches the exit)
    if (reaches[b]) return;
    reaches[b] = 1;
    work.push_back(b);
    while (!work.empty()) {
      uint32_t x = work.back();
      work.pop_back();
      for (uint32_t p : fn.blocks[x].preds)
        if (!reaches[p]) {
          reaches[p] = 1;
          work.push_back(p);
        }
    }
  };
  for (uint32_t b = 0; b < nb; ++b)
    if (to_exit[b]) mark_from(b);
  // Blocks that reach the exit by the code's own edges. A path from one of them into code that
  // never finishes (a spin the compiler made endless, `while (true) {}`) is left out of their
  // post-dominators: lanes that take it never arrive anywhere, so the lanes whose paths finish
  // reconverge where those paths meet (after `if (lane == 0) { ... }`, not at the kernel's end).
  const std::vector<char> finishes = reaches;
  for (uint32_t b = nb; b-- > 0;)
    if (!reaches[b]) {
      to_exit[b] = 1;
      mark_from(b);
    }

  // rsucc(x): successors in the reversed graph = preds in the CFG; exit's are the to_exit blocks.
  std::vector<uint32_t> exit_preds;
  for (uint32_t b = 0; b < nb; ++b)
    if (to_exit[b]) exit_preds.push_back(b);
  // The edges kept: all but those from a block that finishes into one that does not.
  auto kept = [&](uint32_t from, uint32_t to) { return !finishes[from] || finishes[to]; };
  std::vector<std::vector<uint32_t>> kept_preds(nb);
  for (uint32_t b = 0; b < nb; ++b)
    for (uint32_t p : fn.blocks[b].preds)
      if (kept(p, b)) kept_preds[b].push_back(p);
  auto rsuccs = [&](uint32_t x) -> const std::vector<uint32_t>& { return x == exit_node ? exit_preds : kept_preds[x]; };
  // rpreds(x): preds in the reversed graph = succs in the CFG, plus the exit for to_exit blocks.

  // 4. Post-order of the reversed graph from the exit (iterative DFS).
  std::vector<uint32_t> order;  // post-order
  order.reserve(nb + 1);
  std::vector<uint32_t> po_num(nb + 1, 0);
  {
    std::vector<char> seen(nb + 1, 0);
    std::vector<std::pair<uint32_t, uint32_t>> stack;  // node, next child index
    stack.push_back({exit_node, 0});
    seen[exit_node] = 1;
    while (!stack.empty()) {
      auto& [x, k] = stack.back();
      const auto& ch = rsuccs(x);
      if (k < ch.size()) {
        uint32_t c = ch[k++];
        if (!seen[c]) {
          seen[c] = 1;
          stack.push_back({c, 0});
        }
      } else {
        po_num[x] = static_cast<uint32_t>(order.size());
        order.push_back(x);
        stack.pop_back();
      }
    }
  }

  // 5. Iterate to the fixed point: idom in the reversed graph = ipdom in the CFG.
  const uint32_t kUndef = 0xffffffffu;
  std::vector<uint32_t> idom(nb + 1, kUndef);
  idom[exit_node] = exit_node;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (po_num[a] < po_num[b]) a = idom[a];
      while (po_num[b] < po_num[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = order.size(); k-- > 0;) {  // reverse post-order
      uint32_t x = order[k];
      if (x == exit_node) continue;
      uint32_t nd = kUndef;
      auto consider = [&](uint32_t p) {
        if (idom[p] == kUndef) return;
        nd = nd == kUndef ? p : intersect(p, nd);
      };
      for (uint32_t s : fn.blocks[x].succs)
        if (kept(x, s)) consider(s);
      if (to_exit[x]) consider(exit_node);
      if (nd != kUndef && idom[x] != nd) {
        idom[x] = nd;
        changed = true;
      }
    }
  }

  for (uint32_t b = 0; b < nb; ++b) {
    uint32_t d = idom[b];
    fn.blocks[b].ipdom = (d == kUndef || d == exit_node) ? -1 : static_cast<int32_t>(d);
  }
  for (uint32_t i = 0; i < n; ++i) {
    int32_t d = fn.blocks[fn.block_of[i]].ipdom;
    fn.reconverge_pc[i] = d < 0 ? Function::kExitPc : fn.blocks[d].first;
  }
}

}  // namespace synclab::sim::ptx
