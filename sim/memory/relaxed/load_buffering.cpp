// Planning load buffering (load_buffering.h).

#include "sim/memory/relaxed/load_buffering.h"

#include <algorithm>
#include <vector>

namespace synclab::sim::relaxed {

using ptx::Op;
using ptx::Operand;

namespace {

bool memory_space(ptx::Space s) {
  return s == ptx::Space::Global || s == ptx::Space::Shared || s == ptx::Space::Generic;
}
// Orders that put nothing between an access and the later stores of its thread: weak, relaxed and
// volatile (relaxed at .sys). Acquire and release patterns, fences and barriers do.
bool unordered(ptx::Sem s) { return ptx::is_weak(s) || s == ptx::Sem::Relaxed || s == ptx::Sem::Volatile; }

template <class F>
void for_each_dst(const ptx::Instr& J, F f) {
  for (int k = 0; k < J.ndst; ++k) {
    const Operand& d = J.dst[k];
    if (d.kind == Operand::Kind::Reg && d.reg != Operand::kNoReg) f(d.reg);
    if (d.kind == Operand::Kind::Vector)
      for (int e = 0; e < d.count; ++e)
        if (d.vec[e] != Operand::kNoReg) f(d.vec[e]);
  }
}

bool contains(const std::vector<uint32_t>& v, uint32_t x) {
  for (uint32_t y : v)
    if (y == x) return true;
  return false;
}

// The address operand's registers, for "does the address depend on the load".
bool address_reads(const ptx::Instr& J, const std::vector<uint32_t>& regs) {
  const Operand& a = J.src[0];
  return a.kind == Operand::Kind::Addr && a.reg != Operand::kNoReg && contains(regs, a.reg);
}

// What the planner knows of a register written on the path without running anything: its value
// is a register's value before the plan plus a constant (`base`), or a constant (base kNoReg).
// An address computed from the load as the litmus programs make a dependency, `xor z, r, r`
// (zero whatever r is) added to a location's address, is then known where it points.
struct Known {
  uint32_t reg;
  uint32_t base;
  uint64_t offset;
};

// The wider of `acc` (ptx::Scope::None: none yet) and s; no scope counts as .gpu, and so does
// .cluster, as the model takes it.
ptx::Scope wider(ptx::Scope acc, ptx::Scope s) {
  if (s == ptx::Scope::None || s == ptx::Scope::Cluster) s = ptx::Scope::Gpu;
  return acc == ptx::Scope::None || uint8_t(s) > uint8_t(acc) ? s : acc;
}

bool integer_64(ptx::Type t) { return t == ptx::Type::U64 || t == ptx::Type::S64 || t == ptx::Type::B64; }
bool integer_32(ptx::Type t) { return t == ptx::Type::U32 || t == ptx::Type::S32 || t == ptx::Type::B32; }

}  // namespace

bool plan_load_buffering(const ptx::Function& fn, uint32_t pc, const LbProbe& probe, uint64_t choice, bool releases,
                         LbPlan* plan) {
  const ptx::Instr& L = fn.code[pc];
  const bool is_load = (L.op == Op::Ld || L.op == Op::Ldu) && memory_space(L.space);
  const bool is_atom = (L.op == Op::Atom || L.op == Op::Red) && memory_space(L.space);
  if (!is_load && !is_atom) return false;
  if (is_load && !unordered(L.sem) && L.sem != ptx::Sem::Acquire) return false;
  // An acquire read-modify-write may be held back as an acquire load may: run late, it reads no
  // release whose view holds an early store (RelaxedModel::readable).
  if (is_atom && L.sem == ptx::Sem::Sc) return false;

  struct Step {
    uint32_t pc;
    bool early;
  };
  std::vector<Step> path;
  std::vector<uint32_t> taint;                  // registers the held-back instructions write
  std::vector<uint32_t> late_reads;             // registers they read (an early write to one would change them)
  std::vector<uint32_t> written;                // registers written on the way (a branch on one is not known now)
  std::vector<const ptx::Instr*> late_mem{&L};  // the held-back memory accesses, the load first
  std::vector<size_t> cuts;                     // indices in `path` of early stores
  std::vector<ptx::Scope> hidden;               // per path step: an early store after a release (its scope)
  std::vector<bool> after_write;                // per path step: an early store after a held-back write it may touch
  // A release store or fence is on the path so far that came after a held-back write or fence (the
  // stores run early after it wait for it: hidden).
  bool released = false;
  // Only loads (and computations) are held back so far. A release then needs no hiding: a fence
  // runs early, in its place in program order, and a release store or read-modify-write releases
  // when it runs; the model keeps the held-back loads before it from contradicting what its
  // release reaches before they have run (RelaxedModel::readable), and gives what they observe to
  // that release once they have (RelaxedModel::plan_release_late).
  bool only_loads_held = is_load && releases;
  // An acquire is held back on the path so far (the load itself, a later acquire load, an acquire
  // fence): a read-modify-write after it may not run early (see below).
  bool acquired = L.sem == ptx::Sem::Acquire || (is_atom && L.sem == ptx::Sem::AcqRel);
  ptx::Scope released_scope = ptx::Scope::None;  // the widest of their scopes
  auto widen = [&](ptx::Scope s) { released_scope = wider(released_scope, s); };
  // Whether two accesses may touch a common byte. The probe computes addresses from the registers
  // as they are now, before the plan runs: an address register written on the path so far (by an
  // early computation, say `xor r, r1, r1` after an atom run early) has no value yet, so such an
  // access may touch anything.
  // (an address register the path wrote counts when `known` has it: the access then stands for
  // one at the address it will have)
  std::vector<Known> known;
  auto known_of = [&](uint32_t r) -> const Known* {
    for (size_t k = known.size(); k-- > 0;)
      if (known[k].reg == r) return &known[k];
    return nullptr;
  };
  auto resolved = [&](const ptx::Instr& A, ptx::Instr* out) {
    if (!address_reads(A, written)) return &A;
    const Known* k = known_of(A.src[0].reg);
    if (!k) return static_cast<const ptx::Instr*>(nullptr);
    *out = A;
    out->src[0].reg = k->base;
    out->src[0].imm = int64_t(uint64_t(A.src[0].imm) + k->offset);
    return static_cast<const ptx::Instr*>(out);
  };
  auto may_alias = [&](const ptx::Instr& A, const ptx::Instr& B) {
    if (!address_reads(A, written) && !address_reads(B, written)) return probe.may_alias(A, B);
    ptx::Instr a2, b2;
    const ptx::Instr* a = resolved(A, &a2);
    const ptx::Instr* b = resolved(B, &b2);
    return !a || !b || probe.may_alias(*a, *b);
  };
  // Whether J's address, if it reads a register the path wrote, is known (above).
  auto address_known = [&](const ptx::Instr& J) {
    return J.src[0].kind == Operand::Kind::Addr && J.src[0].reg != Operand::kNoReg && known_of(J.src[0].reg);
  };
  // After J (run early or held back) writes its destination: what is known of its value.
  auto learn = [&](const ptx::Instr& J) {
    if (J.ndst != 1 || J.dst[0].kind != Operand::Kind::Reg || J.dst[0].reg == Operand::kNoReg) return;
    const uint32_t d = J.dst[0].reg;
    // A source: a constant, a register not written on the path (its value now), or a known one.
    struct Val {
      bool ok;
      uint32_t base;
      uint64_t offset;
    };
    auto val = [&](const Operand& o) -> Val {
      if (o.kind == Operand::Kind::Imm) return {true, Operand::kNoReg, uint64_t(o.imm)};
      if (o.kind != Operand::Kind::Reg || o.reg == Operand::kNoReg) return {false, 0, 0};
      if (const Known* k = known_of(o.reg)) return {true, k->base, k->offset};
      if (!contains(written, o.reg)) return {true, o.reg, 0};
      return {false, 0, 0};
    };
    Val v{false, 0, 0};
    const bool w32 = integer_32(J.type), w64 = integer_64(J.type);
    if (J.op == Op::Xor && J.nsrc == 2 && (w32 || w64) && J.src[0].kind == Operand::Kind::Reg &&
        J.src[1].kind == Operand::Kind::Reg && J.src[0].reg == J.src[1].reg) {
      v = {true, Operand::kNoReg, 0};  // x ^ x
    } else if ((J.op == Op::Xor || J.op == Op::Add) && J.nsrc == 2 && (w32 || w64)) {
      const Val a = val(J.src[0]), b = val(J.src[1]);
      if (a.ok && b.ok && a.base == Operand::kNoReg && b.base == Operand::kNoReg)
        v = {true, Operand::kNoReg, J.op == Op::Xor ? a.offset ^ b.offset : a.offset + b.offset};
      else if (J.op == Op::Add && a.ok && b.ok && (a.base == Operand::kNoReg || b.base == Operand::kNoReg))
        v = {true, a.base == Operand::kNoReg ? b.base : a.base, a.offset + b.offset};
    } else if ((J.op == Op::Mov ||
                (J.op == Op::Cvt && (integer_32(J.type2) || integer_64(J.type2)) && J.type2 != ptx::Type::S32)) &&
               J.nsrc == 1 && (w32 || w64)) {
      v = val(J.src[0]);  // (a move, or a conversion from an unsigned 32-bit or a 64-bit integer)
    }
    // A 32-bit value (or one converted from 32 bits) is known only as a constant, cut to 32 bits.
    if (v.ok && (w32 || (J.op == Op::Cvt && integer_32(J.type2)))) {
      v.ok = v.base == Operand::kNoReg;
      v.offset &= 0xffffffffu;
    }
    known.erase(std::remove_if(known.begin(), known.end(), [&](const Known& k) { return k.reg == d; }), known.end());
    if (v.ok) known.push_back({d, v.base, v.offset});
  };
  auto hold = [&](const ptx::Instr& J, uint32_t at) {
    learn(J);
    path.push_back({at, false});
    hidden.push_back(ptx::Scope::None);
    after_write.push_back(false);
    for_each_dst(J, [&](uint32_t r) {
      taint.push_back(r);
      written.push_back(r);
    });
    for (int k = 0; k < J.nsrc; ++k) {
      const Operand& o = J.src[k];
      if ((o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Addr) && o.reg != Operand::kNoReg)
        late_reads.push_back(o.reg);
      if (o.kind == Operand::Kind::Vector)
        for (int e = 0; e < o.count; ++e)
          if (o.vec[e] != Operand::kNoReg) late_reads.push_back(o.vec[e]);
    }
    if (J.guard != Operand::kNoReg) late_reads.push_back(J.guard);
  };
  hold(L, pc);
  path.clear();  // (the load itself is not on the path: it is late[0])
  hidden.clear();
  after_write.clear();

  uint32_t cur = pc + 1;
  for (int steps = 0; steps < LbPlan::kMax - 1 && cur < fn.code.size(); ++steps) {
    const ptx::Instr& J = fn.code[cur];
    bool depends = false;
    for (uint32_t r : taint) depends = depends || ptx::reads_reg(J, r);
    const bool guard_tainted = J.guard != Operand::kNoReg && contains(taint, J.guard);
    if (J.op == Op::Bra) {
      if (J.src[0].kind != Operand::Kind::Label) break;
      const uint32_t target = uint32_t(J.src[0].imm);
      if (J.guard == Operand::kNoReg) {
        cur = target;
        continue;
      }
      // A branch on the load's value is a control dependency: everything after it waits.
      if (guard_tainted || contains(written, J.guard)) break;
      int p = probe.predicate(J.guard);
      if (p < 0) break;  // the group would split
      if (J.guard_negated) p = !p;
      cur = p ? target : cur + 1;
      continue;
    }
    bool writes_late_read = false, writes_taint = false;
    for_each_dst(J, [&](uint32_t r) {
      writes_late_read = writes_late_read || contains(late_reads, r);
      writes_taint = writes_taint || contains(taint, r);
    });
    if (J.op == Op::Ld || J.op == Op::Ldu) {
      if (!memory_space(J.space)) {
        // ld.param / ld.const read what nothing writes now: a computation.
        if (J.space != ptx::Space::Param && J.space != ptx::Space::Const) break;
      } else {
        // Another load keeps its order with the held-back load (it is held back too), unless its
        // address waits for the load (then no later store can be shown not to alias it). An
        // acquire load may be held back as the first one may: run late, it does not acquire a
        // release whose view holds an early store (RelaxedModel::readable).
        if ((!unordered(J.sem) && J.sem != ptx::Sem::Acquire) || (address_reads(J, taint) && !address_known(J)) ||
            writes_late_read)
          break;
        // (a held-back load after the early fence.sc comes after it in program order: it takes
        // what the fence acquired, and nothing the fence released waits for it)
        hold(J, cur);
        late_mem.push_back(&J);
        acquired = acquired || J.sem == ptx::Sem::Acquire;
        ++cur;
        continue;
      }
    } else if (J.op == Op::St || J.op == Op::Atom || J.op == Op::Red) {
      // A store, or a read-modify-write without an acquire (its read, run early too, is a read
      // after the load in program order: nothing keeps two reads of different locations in order).
      const bool release = J.sem == ptx::Sem::Release;
      // A read-modify-write goes early only when it releases nothing, or only loads are held back
      // before it (a write that waits for a release is kept from morally strong readers, and
      // another thread's read-modify-write may find nothing else to read and nowhere to put its
      // write). An acquire one may: its acquire orders what follows it, not the load before it.
      const bool rmw_acquire = J.op == Op::Atom && (J.sem == ptx::Sem::Acquire || J.sem == ptx::Sem::AcqRel);
      const bool rmw_release = J.sem == ptx::Sem::AcqRel || release;
      // (unless every release it would wait for is .cta and no other thread of the block may read
      // it: hidden from the block's morally strong readers, it is then hidden from none)
      ptx::Scope wide = released ? released_scope : ptx::Scope::None;
      if (rmw_release) wide = wider(wide, J.scope);
      const bool block_only = wide == ptx::Scope::Cta && probe.block_exiting();
      if (J.op != Op::St && (J.sem == ptx::Sem::Sc || ((released || (rmw_release && !only_loads_held)) && !block_only)))
        break;
      if (!releases && (release || released)) break;
      if (!memory_space(J.space) || (!unordered(J.sem) && !release && !rmw_acquire) ||
          (address_reads(J, taint) && !address_known(J)) || writes_late_read)
        break;
      // (a release with only loads held back before it: it releases when it runs, unhidden)
      const bool light = (release || rmw_release) && only_loads_held;
      // A read-modify-write after a held-back acquire, run early, reads before the acquire: a
      // release the acquire then reads could carry a write of the location coherence-after what
      // that read read (Causality: the read would miss a write before it in causality order). The
      // model's checks at the acquire (RelaxedModel::readable's covers) keep the acquire from such
      // a release, and the read takes what the acquire would take of the releases the thread read
      // before the plan as known (RelaxedModel::readable: acquire_held; a compare-and-swap that
      // fails leaves its read for those checks: ThreadState::early_reads). Still held back: an
      // acquiring one, any when a read-modify-write is held back (the rules for a plan that holds back an
      // acquiring one do not cover early ones after it), and any to the location of a held-back
      // access (the rules for those do not cover an acquire between).
      bool atom_held = false;
      for (const ptx::Instr* X : late_mem) atom_held = atom_held || X->op == Op::Atom || X->op == Op::Red;
      // (a held-back load it may touch, the load itself included: alias_read; a held-back store or
      // read-modify-write: alias_write)
      // (same_release: the widest scope of the releasing writes among those held-back writes: a
      // later strong write to their location carries their release, release pattern 2, so a
      // store run early before them waits for it, hidden, as after a release of the plan)
      bool alias = false, alias_read = false, alias_write = false;
      ptx::Scope same_release = ptx::Scope::None;
      auto note_release = [&](const ptx::Instr& X) {
        if (X.sem != ptx::Sem::Release && X.sem != ptx::Sem::AcqRel && X.sem != ptx::Sem::Sc) return;
        same_release = wider(same_release, X.scope);
      };
      for (size_t k = 1; k < late_mem.size(); ++k)
        if (may_alias(J, *late_mem[k])) {
          const bool read = late_mem[k]->op == Op::Ld || late_mem[k]->op == Op::Ldu;
          (read ? alias_read : alias_write) = true;
          if (!read) note_release(*late_mem[k]);
        }
      if (may_alias(J, L)) {
        (is_load ? alias_read : alias_write) = true;
        if (!is_load) note_release(L);
      }
      const bool after_acquire = J.op != Op::St && acquired && (rmw_acquire || atom_held || alias_read || alias_write);
      // A store to the location of a held-back access (the load itself or a later one) may go
      // early. The model keeps each held-back load from reading the first such store after it in
      // program order, or anything coherence-after it that would close a cycle, and puts each
      // held-back write (a read-modify-write's, with what it reads) before that store in
      // coherence order (RelaxedModel::readable, write_common); the later ones are
      // coherence-after the first (one thread, one location). A read-modify-write that always
      // writes may be such a store when the accesses it passes are loads (its read, run early, is
      // after them in program order: the model also keeps them from observing writes
      // coherence-after the message that read read); not an acquire one (a load's observation
      // would be acquired by it: acquire pattern) nor a compare-and-swap (a failed one leaves a
      // read and no write). Or they are held back, which lets the stores after them run early (a
      // choice: bits 20-22 of `choice` all zero: one plan in eight).
      if (alias_read || alias_write) {
        const bool rmw_may = J.op != Op::St && !rmw_acquire && J.aop != ptx::AtomOp::Cas && !alias_write;
        const bool may_early = !(depends || guard_tainted || after_acquire);
        if ((J.op != Op::St && !rmw_may) || (may_early && ((choice >> 20) & 7) == 0)) alias = true;
        if (!releases && same_release != ptx::Scope::None) alias = true;
      }
      if (depends || guard_tainted || alias || after_acquire) {
        // A store of the loaded value (or to where a held-back access goes) waits for the load.
        hold(J, cur);
        only_loads_held = false;
        late_mem.push_back(&J);
        acquired = acquired || rmw_acquire;
      } else {
        // (an atom run early must not write a register a held-back instruction writes: the late
        // one would leave its value there; the early result is written now, so an address made
        // from it later on the path is not known now either)
        if (writes_taint) break;
        if ((release || rmw_release) && !light) widen(J.scope);
        cuts.push_back(path.size());
        path.push_back({cur, true});
        ptx::Scope h = released || ((release || rmw_release) && !light) ? released_scope : ptx::Scope::None;
        if (same_release != ptx::Scope::None) h = wider(h, same_release);
        hidden.push_back(h);
        after_write.push_back(alias_write);
        learn(J);
        for_each_dst(J, [&](uint32_t r) { written.push_back(r); });
      }
      // (held back, or after a held-back write or fence: its release waits, and so do the stores
      // run early after it)
      const bool held = depends || guard_tainted || alias || after_acquire;
      if ((release || rmw_release) && (held || !light)) {
        widen(J.scope);
        released = true;
      }
      ++cur;
      continue;
    } else if (J.op == Op::Fence || J.op == Op::Membar) {
      // A fence runs early, in its place in program order (and fence.sc in Fence-SC order), when
      // only loads are held back before it (only_loads_held). Else fence.acq_rel, fence.acquire and
      // fence.release are held back with the load: what they order around them is then ordered
      // (their acquire half after the load; their release half before the early stores, which wait
      // for it); a fence.sc and membar end the search: a morally strong fence.sc of another thread
      // that ran while this one was held back would come before it in Fence-SC order, which
      // synchronizes, so whatever came before that fence (a read of an early store, even a weak
      // one) would be before the early stores in causality order. A fence with an acquire half
      // counts as a held-back acquire for the read-modify-writes after it (above).
      if (J.op == Op::Membar || J.proxy || J.guard != Operand::kNoReg) break;
      if (!releases && J.sem != ptx::Sem::Acquire) break;
      const ptx::Sem sem = J.sem == ptx::Sem::None ? ptx::Sem::AcqRel : J.sem;
      if (only_loads_held) {
        path.push_back({cur, true});
        hidden.push_back(ptx::Scope::None);
        after_write.push_back(false);
        acquired = acquired || sem != ptx::Sem::Release;
        ++cur;
        continue;
      }
      if (sem == ptx::Sem::Sc) break;
      hold(J, cur);
      acquired = acquired || sem != ptx::Sem::Release;
      if (sem != ptx::Sem::Acquire) {
        released = true;
        widen(J.scope);
      }
      ++cur;
      continue;
    }
    // Anything else that touches memory or orders it, or leaves the straight path, ends the search.
    const bool computes = (J.exec & ptx::Instr::kExecPrivate) && (J.exec & ptx::Instr::kExecPlain) &&
                          J.op != Op::Atom && J.op != Op::Red && J.op != Op::St && J.op != Op::Ld;
    if (!computes && !(J.op == Op::Ld || J.op == Op::Ldu)) break;
    if (depends || guard_tainted) {
      if (writes_late_read) break;
      hold(J, cur);
    } else {
      if (writes_late_read || writes_taint) break;  // would change what a held-back instruction reads
      path.push_back({cur, true});
      hidden.push_back(ptx::Scope::None);
      after_write.push_back(false);
      learn(J);
      for_each_dst(J, [&](uint32_t r) { written.push_back(r); });
    }
    ++cur;
  }
  if (cuts.empty()) return false;
  const size_t cut = cuts[choice % cuts.size()];
  plan->n_early = plan->n_late = 0;
  plan->late_pos[plan->n_late] = 0;
  plan->late[plan->n_late++] = pc;
  for (size_t i = 0; i <= cut; ++i) {
    if (path[i].early) {
      plan->early_pos[plan->n_early] = uint32_t(i + 1);
      plan->early_hidden[plan->n_early] = hidden[i];
      plan->early_before_write[plan->n_early] = after_write[i];
      plan->early[plan->n_early++] = path[i].pc;
    } else {
      plan->late_pos[plan->n_late] = uint32_t(i + 1);
      plan->late[plan->n_late++] = path[i].pc;
    }
  }
  plan->resume = path[cut].pc + 1;
  plan->length = uint32_t(cut + 2);
  // (an acquire fence after the cut is not held back: only those before it count)
  plan->late_acquire = ptx::Scope::None;
  auto widen_acquire = [&](ptx::Scope sc) { plan->late_acquire = wider(plan->late_acquire, sc); };
  // An acquire load or read-modify-write held back after a read of its location (the load, or a
  // held-back load or atom) makes that read's releases acquired too (acquire pattern): it counts
  // as an acquire fence.
  auto reads_here = [&](const ptx::Instr& X, const ptx::Instr& J) {
    return (X.op == Op::Ld || X.op == Op::Ldu || X.op == Op::Atom) && may_alias(J, X);
  };
  for (size_t i = 0; i <= cut; ++i) {
    if (path[i].early && fn.code[path[i].pc].op != Op::Fence) continue;
    const ptx::Instr& J = fn.code[path[i].pc];
    if (J.op == Op::Fence && J.sem == ptx::Sem::Sc) {
      widen_acquire(J.scope);  // (the early fence.sc: acquire pattern with the loads before it)
    } else if (J.op == Op::Fence && J.sem != ptx::Sem::Release) {
      widen_acquire(J.scope);
    } else if ((J.op == Op::Ld || J.op == Op::Ldu || J.op == Op::Atom) && J.sem == ptx::Sem::Acquire) {
      bool pattern = reads_here(L, J);
      for (size_t k = 0; k < i && !pattern; ++k) pattern = !path[k].early && reads_here(fn.code[path[k].pc], J);
      if (pattern) widen_acquire(J.scope);
    }
  }
  plan->acquire_rmw_held = false;
  plan->acquire_held = plan->late_acquire != ptx::Scope::None;
  plan->acquire_scope = plan->late_acquire;
  for (uint32_t k = 0; k < plan->n_late; ++k) {
    const ptx::Instr& J = fn.code[plan->late[k]];
    if (J.sem == ptx::Sem::Acquire || J.sem == ptx::Sem::AcqRel || (J.op == Op::Fence && J.sem != ptx::Sem::Release)) {
      plan->acquire_held = true;
      plan->acquire_scope = wider(plan->acquire_scope, J.scope);
    }
    if (J.op == Op::Atom &&
        (J.sem == ptx::Sem::Acquire || J.sem == ptx::Sem::AcqRel || plan->late_acquire != ptx::Scope::None))
      plan->acquire_rmw_held = true;
  }
  return true;
}

}  // namespace synclab::sim::relaxed
