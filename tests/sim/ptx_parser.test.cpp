// PTX front end: parser, layout, line table, CFG and reconvergence points.
//
// The expected values were read by hand off the committed nvcc output in tests/sim/ptx/ (see
// regen.sh) and the CUDA sources in tests/sim/ptx/src/, or follow from the PTX ISA.
#include <synclab/catch.h>

#include <cstring>
#include <random>
#include <string>

#include "sim/ptx/cfg.h"
#include "sim/ptx/parser.h"
#include "tests/sim/ptx_samples.h"

using namespace synclab::sim::ptx;

namespace {

Module parse_sample(const std::string& name) { return parse_module(read_ptx_sample(name), name); }

const Function& func(const Module& m, const std::string& name) {
  int i = m.find_function(name);
  REQUIRE(i >= 0);
  return m.functions[i];
}

const Symbol& sym(const Module& m, const std::string& name) {
  int i = m.find_symbol(name);
  REQUIRE(i >= 0);
  return m.symbols[i];
}

// First register declared with this name (outermost scope).
uint32_t reg(const Function& f, const std::string& name) {
  for (size_t i = 0; i < f.regs.size(); ++i)
    if (f.regs[i].name == name) return static_cast<uint32_t>(i);
  FAIL("no register " << name);
  return 0;
}

// Index of the (first) instruction that sits on a PTX line.
uint32_t at_line(const Function& f, uint32_t line) {
  for (size_t i = 0; i < f.code.size(); ++i)
    if (f.code[i].ptx_line == line) return static_cast<uint32_t>(i);
  FAIL("no instruction on PTX line " << line);
  return 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A kernel wrapped in the module boilerplate, for small hand-written cases.
std::string kernel(const std::string& body, const std::string& prelude = "") {
  return ".version 8.0\n.target sm_80\n.address_size 64\n" + prelude +
         ".visible .entry k(.param .u64 k_p)\n{\n" + body + "\n}\n";
}

Module parse(const std::string& text) { return parse_module(text, "test.ptx"); }

std::string error_of(const std::string& text) {
  try {
    parse_module(text, "bad.ptx");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "(parsed without error)";
}

float f32_at(const std::vector<uint8_t>& b, size_t off) {
  float f;
  std::memcpy(&f, b.data() + off, 4);
  return f;
}
double f64_at(const std::vector<uint8_t>& b, size_t off) {
  double d;
  std::memcpy(&d, b.data() + off, 8);
  return d;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The naive lock (tests/sim/ptx/src/lock.cu)
// ---------------------------------------------------------------------------------------------

TEST_CASE("naive lock: module, registers and instructions", "[ptx]") {
  Module m = parse_sample("lock_sm75.ptx");
  CHECK(m.version_major == 9);
  CHECK(m.version_minor == 0);
  CHECK(m.target == "sm_75");
  CHECK(m.address_size == 64);
  REQUIRE(m.functions.size() == 1);
  const Function& f = func(m, "_Z5naivePi");
  CHECK(f.is_entry);
  CHECK(f.visible);
  CHECK_FALSE(f.is_extern);

  // .reg .pred %p<2>; .reg .b32 %r<7>; .reg .b64 %rd<5>;  -> 14 registers in declaration order
  REQUIRE(f.regs.size() == 14);
  CHECK(f.regs[1].name == "%p1");
  CHECK(f.regs[1].type == Type::Pred);
  CHECK(f.regs[5].name == "%r3");
  CHECK(f.regs[5].type == Type::B32);
  CHECK(f.regs[12].name == "%rd3");
  CHECK(f.regs[12].type == Type::B64);

  // 13 instructions between the { } of the kernel.
  CHECK(f.code.size() == 13);

  // atom.global.cas.b32 %r3, [%rd3], %r2, %r1;   (line 36)
  const Instr& cas = f.code[at_line(f, 36)];
  CHECK(cas.op == Op::Atom);
  CHECK(cas.aop == AtomOp::Cas);
  CHECK(cas.space == Space::Global);
  CHECK(cas.type == Type::B32);
  CHECK(cas.sem == Sem::None);
  REQUIRE(cas.ndst == 1);
  CHECK(cas.dst[0].kind == Operand::Kind::Reg);
  CHECK(cas.dst[0].reg == reg(f, "%r3"));
  REQUIRE(cas.nsrc == 3);
  CHECK(cas.src[0].kind == Operand::Kind::Addr);
  CHECK(cas.src[0].reg == reg(f, "%rd3"));
  CHECK(cas.src[0].symbol == Operand::kNoSymbol);
  CHECK(cas.src[0].imm == 0);
  CHECK(cas.src[1].reg == reg(f, "%r2"));  // compare
  CHECK(cas.src[2].reg == reg(f, "%r1"));  // new value

  // atom.global.exch.b32 %r6, [%rd3], 0;   (line 47)
  const Instr& exch = f.code[at_line(f, 47)];
  CHECK(exch.aop == AtomOp::Exch);
  CHECK(exch.nsrc == 2);
  CHECK(exch.src[1].kind == Operand::Kind::Imm);
  CHECK(exch.src[1].imm == 0);

  // ld.param.u64 %rd2, [_Z5naivePi_param_0];
  const Instr& ldp = f.code[0];
  CHECK(ldp.op == Op::Ld);
  CHECK(ldp.space == Space::Param);
  CHECK(ldp.type == Type::U64);
  CHECK(ldp.src[0].kind == Operand::Kind::Addr);
  CHECK(ldp.src[0].reg == Operand::kNoReg);
  REQUIRE(f.params.size() == 1);
  CHECK(ldp.src[0].symbol == f.params[0]);

  // cvta.to.global.u64 %rd1, %rd2;
  const Instr& cvta = f.code[1];
  CHECK(cvta.op == Op::Cvta);
  CHECK(cvta.cvta == CvtaDir::FromGeneric);
  CHECK(cvta.space == Space::Global);

  // mov.u64 %rd3, lockw;  -> the variable's address as a value
  const Instr& mov = f.code[2];
  CHECK(mov.op == Op::Mov);
  CHECK(mov.src[0].kind == Operand::Kind::Symbol);
  CHECK(m.symbols[mov.src[0].symbol].name == "lockw");

  // setp.ne.s32 %p1, %r3, 0;
  const Instr& setp = f.code[at_line(f, 37)];
  CHECK(setp.op == Op::Setp);
  CHECK(setp.cmp == Cmp::Ne);
  CHECK(setp.type == Type::S32);
  CHECK(setp.dst[0].reg == reg(f, "%p1"));
  CHECK(setp.ndst == 1);

  // st.global.u32 [%rd1], %r5;  -> no destination, address then value
  const Instr& st = f.code[at_line(f, 44)];
  CHECK(st.op == Op::St);
  CHECK(st.ndst == 0);
  CHECK(st.nsrc == 2);
  CHECK(st.src[0].kind == Operand::Kind::Addr);
  CHECK(st.src[0].reg == reg(f, "%rd1"));
  CHECK(st.src[1].reg == reg(f, "%r5"));

  CHECK(f.code.back().op == Op::Ret);
}

TEST_CASE("naive lock: the spin loop reconverges after its branch", "[ptx]") {
  Module m = parse_sample("lock_sm75.ptx");
  const Function& f = func(m, "_Z5naivePi");
  const uint32_t br = at_line(f, 39);  // @%p1 bra $L__BB0_1;
  const Instr& b = f.code[br];
  CHECK(b.op == Op::Bra);
  CHECK(b.guard == reg(f, "%p1"));
  CHECK_FALSE(b.guard_negated);
  REQUIRE(b.src[0].kind == Operand::Kind::Label);
  CHECK(b.src[0].imm == at_line(f, 34));  // $L__BB0_1: mov.u32 %r1, 1;

  // Blocks: [ld .. mov lockw] [loop body .. bra] [ld .. ret]
  REQUIRE(f.blocks.size() == 3);
  const uint32_t loop = f.block_of[br];
  CHECK(f.blocks[loop].first == at_line(f, 34));
  CHECK(f.blocks[loop].last == br);
  CHECK(f.blocks[loop].succs.size() == 2);
  CHECK(f.blocks[loop].ipdom == static_cast<int32_t>(f.block_of[br + 1]));
  CHECK(f.reconverge_pc[br] == br + 1);
  CHECK(f.blocks[f.block_of[br + 1]].ipdom == -1);  // the ret block: function exit
  CHECK(f.reconverge_pc[f.code.size() - 1] == Function::kExitPc);
}

TEST_CASE("naive lock: line table maps inlined atomics to the student's line", "[ptx]") {
  Module m = parse_sample("lock_sm75.ptx");
  const Function& f = func(m, "_Z5naivePi");
  REQUIRE(m.files.size() == 3);
  CHECK(m.files[0].path.empty());
  CHECK(ends_with(m.files[1].path, "src/lock.cu"));
  CHECK(ends_with(m.files[2].path, "device_atomic_functions.hpp"));

  // .loc 2 207 3, function_name ..., inlined_at 1 5 3  -> the atomicCAS in lock.cu line 5
  const Instr& cas = f.code[at_line(f, 36)];
  CHECK(m.files[cas.file].id == 2);
  CHECK(cas.line == 207);
  CHECK(cas.col == 3);
  CHECK(m.files[cas.user_file].id == 1);
  CHECK(cas.user_line == 5);  // while (atomicCAS(&lockw, 0u, 1u) != 0) {

  // No inlining: user line == line.
  const Instr& ld = f.code[at_line(f, 42)];  // *counter += 1;
  CHECK(ld.line == 7);
  CHECK(ld.user_line == 7);
  CHECK(ld.file == ld.user_file);
  CHECK(m.files[ld.file].id == 1);

  const Instr& exch = f.code[at_line(f, 47)];  // atomicExch(&lockw, 0u);
  CHECK(exch.line == 132);
  CHECK(exch.user_line == 8);
  CHECK(f.code[0].user_line == 4);   // .loc 1 4 0 before the first instruction
  CHECK(f.code.back().line == 9);    // ret at the closing brace
  for (const Instr& in : f.code) CHECK(in.ptx_line > 0);
}

TEST_CASE("naive lock: variables and parameter layout", "[ptx]") {
  Module m = parse_sample("lock_sm75.ptx");
  const Symbol& lock = sym(m, "lockw");
  CHECK(lock.space == Space::Global);
  CHECK(lock.type == Type::U32);
  CHECK(lock.size == 4);
  CHECK(lock.align == 4);
  CHECK(lock.init.empty());
  CHECK(lock.function == -1);
  const Function& f = func(m, "_Z5naivePi");
  const Symbol& p = m.symbols[f.params[0]];
  CHECK(p.name == "_Z5naivePi_param_0");
  CHECK(p.space == Space::Param);
  CHECK(p.offset == 0);
  CHECK(p.size == 8);
  CHECK(f.own_param_bytes == 8);
  CHECK(f.param_bytes == 8);
  CHECK(f.local_bytes == 0);
}

// ---------------------------------------------------------------------------------------------
// printf, assert, atomics, warp intrinsics, barriers (tests/sim/ptx/src/misc.cu)
// ---------------------------------------------------------------------------------------------

TEST_CASE("misc: initializers of constants, strings and address tables", "[ptx]") {
  Module m = parse_sample("misc_sm80.ptx");
  // __constant__ int ctab[8] = {1..8}: nvcc writes 29 bytes and the rest is zero.
  const Symbol& ctab = sym(m, "ctab");
  CHECK(ctab.space == Space::Const);
  REQUIRE(ctab.size == 32);
  REQUIRE(ctab.init.size() == 32);
  for (int i = 0; i < 8; ++i) {
    int32_t v;
    std::memcpy(&v, ctab.init.data() + 4 * i, 4);
    CHECK(v == i + 1);
  }
  // __constant__ float cf[3] = {1.5f, -2.0f, 3.25f};  double cd[2] = {0.1, -1e300};
  const Symbol& cf = sym(m, "cf");
  REQUIRE(cf.init.size() == 12);
  CHECK(f32_at(cf.init, 0) == 1.5f);
  CHECK(f32_at(cf.init, 4) == -2.0f);
  CHECK(f32_at(cf.init, 8) == 3.25f);
  const Symbol& cd = sym(m, "cd");
  CHECK(cd.align == 8);
  REQUIRE(cd.init.size() == 16);
  CHECK(f64_at(cd.init, 0) == 0.1);
  CHECK(f64_at(cd.init, 8) == -1e300);

  // The printf format string of kprintf, NUL-terminated.
  const Symbol& str = sym(m, "$str");
  const std::string fmt = "hello %d %f thread %d\n";
  REQUIRE(str.size == fmt.size() + 1);
  CHECK(std::string(str.init.begin(), str.init.end() - 1) == fmt);
  CHECK(str.init.back() == 0);
  CHECK(str.align == 1);
  // The assert's file name.
  const Symbol& file = sym(m, "$str$2");
  CHECK(std::string(reinterpret_cast<const char*>(file.init.data())) == "misc.cu");

  // __device__ int* ptrs[3] = {&ga, &gb, &ga};  -> .u64 ptrs[3] = {generic(ga), generic(gb), generic(ga)}
  const Symbol& ptrs = sym(m, "ptrs");
  CHECK(ptrs.type == Type::U64);
  CHECK(ptrs.size == 24);
  REQUIRE(ptrs.addr_inits.size() == 3);
  const int ga = m.find_symbol("ga"), gb = m.find_symbol("gb");
  const uint32_t want[3] = {uint32_t(ga), uint32_t(gb), uint32_t(ga)};
  for (int i = 0; i < 3; ++i) {
    CHECK(ptrs.addr_inits[i].offset == uint64_t(8 * i));
    CHECK(ptrs.addr_inits[i].symbol == want[i]);
    CHECK(ptrs.addr_inits[i].addend == 0);
    CHECK(ptrs.addr_inits[i].generic);
    CHECK_FALSE(ptrs.addr_inits[i].function);
  }
  // __device__ int garr[4][5]: 80 bytes, no initializer.
  CHECK(sym(m, "garr").size == 80);
  CHECK(sym(m, "garr").init.empty());
}

TEST_CASE("misc: shared memory layout, dynamic shared memory, local depot", "[ptx]") {
  Module m = parse_sample("misc_sm80.ptx");
  const Symbol& dyn = sym(m, "dyn");
  CHECK(dyn.space == Space::Shared);
  CHECK(dyn.is_extern);
  CHECK(dyn.is_dynamic_shared);
  CHECK(dyn.size == 0);
  CHECK(dyn.align == 16);
  // Demoted function-scope arrays: int s[64] in kbar (256 B, align 4), double st[16] in kdyn
  // (128 B, align 8), laid out one after the other.
  int s = -1, st = -1;
  for (size_t i = 0; i < m.symbols.size(); ++i) {
    if (m.symbols[i].name == "_ZZ4kbarPiE1s") s = int(i);
    if (m.symbols[i].name == "_ZZ4kdynPfE2st") st = int(i);
  }
  REQUIRE(s >= 0);
  REQUIRE(st >= 0);
  CHECK(m.symbols[s].space == Space::Shared);
  CHECK(m.symbols[s].function == m.find_function("_Z4kbarPi"));
  CHECK(m.symbols[s].size == 256);
  CHECK(m.symbols[st].size == 128);
  CHECK(m.symbols[s].align == 4);
  CHECK(m.symbols[st].align == 8);  // (their offsets are the loader's: shared_layout.test.cpp)

  // kprintf: .local .align 8 .b8 __local_depot2[24]; mov.u64 %SPL, __local_depot2;
  const Function& kp = func(m, "_Z7kprintfid");
  CHECK(kp.local_bytes == 24);
  CHECK(kp.local_align == 8);
  const Instr& spl = kp.code[0];
  CHECK(spl.op == Op::Mov);
  CHECK(spl.dst[0].reg == reg(kp, "%SPL"));
  REQUIRE(spl.src[0].kind == Operand::Kind::Symbol);
  CHECK(m.symbols[spl.src[0].symbol].space == Space::Local);
  CHECK(m.symbols[spl.src[0].symbol].offset == 0);
  const Instr& cvl = kp.code[1];  // cvta.local.u64 %SP, %SPL;
  CHECK(cvl.op == Op::Cvta);
  CHECK(cvl.cvta == CvtaDir::ToGeneric);
  CHECK(cvl.space == Space::Local);
}

TEST_CASE("misc: call sites of printf and assert, and their param frame", "[ptx]") {
  Module m = parse_sample("misc_sm80.ptx");
  const Function& vp = func(m, "vprintf");
  CHECK(vp.is_extern);
  CHECK(vp.code.empty());
  CHECK(vp.params.size() == 2);
  CHECK(vp.rets.size() == 1);
  const Function& af = func(m, "__assertfail");
  CHECK(af.params.size() == 5);
  CHECK(af.rets.empty());

  const Function& kp = func(m, "_Z7kprintfid");
  // Hand count of kprintf's body: 6+6 before the printf callseq, 4 in it, 2, 6, 6 in the
  // assert callseq, 2, trap, ret.
  CHECK(kp.code.size() == 34);
  // Kernel params: .u32 at 0, .f64 at 8 -> 16 bytes.
  REQUIRE(kp.params.size() == 2);
  CHECK(m.symbols[kp.params[0]].offset == 0);
  CHECK(m.symbols[kp.params[1]].offset == 8);
  CHECK(m.symbols[kp.params[1]].align == 8);
  CHECK(kp.own_param_bytes == 16);

  REQUIRE(kp.calls.size() == 2);
  const CallSite& pf = kp.calls[0];
  CHECK(pf.callee == uint32_t(m.find_function("vprintf")));
  REQUIRE(pf.args.size() == 2);
  REQUIRE(pf.rets.size() == 1);
  CHECK(m.symbols[pf.args[0]].name == "param0");
  CHECK(m.symbols[pf.args[1]].name == "param1");
  CHECK(m.symbols[pf.rets[0]].name == "retval0");
  CHECK(pf.arg_ops.size() == 2);
  CHECK(pf.arg_ops[0].kind == Operand::Kind::Symbol);
  const CallSite& as = kp.calls[1];
  CHECK(as.callee == uint32_t(m.find_function("__assertfail")));
  REQUIRE(as.args.size() == 5);
  CHECK(as.rets.empty());
  // Each callseq declares its own "param0": distinct symbols at distinct offsets.
  CHECK(as.args[0] != pf.args[0]);
  // Every call-sequence param is in the kernel's frame, after the kernel params, aligned and
  // not overlapping any other.
  std::vector<uint32_t> all = pf.args;
  all.insert(all.end(), pf.rets.begin(), pf.rets.end());
  all.insert(all.end(), as.args.begin(), as.args.end());
  for (uint32_t a : all) {
    const Symbol& s = m.symbols[a];
    CHECK(s.space == Space::Param);
    CHECK(s.function == m.find_function("_Z7kprintfid"));
    CHECK(s.offset >= kp.own_param_bytes);
    CHECK(s.offset % s.align == 0);
    CHECK(s.offset + s.size <= kp.param_bytes);
    for (uint32_t b : all)
      if (a != b) CHECK((s.offset + s.size <= m.symbols[b].offset || m.symbols[b].offset + m.symbols[b].size <= s.offset));
  }

  // The call instructions and their args.
  const Instr& c0 = kp.code[at_line(kp, 167)];  // call.uni (retval0), vprintf, (param0, param1);
  CHECK(c0.op == Op::Call);
  CHECK(c0.uni);
  CHECK(c0.call == 0);
  CHECK(c0.src[0].kind == Operand::Kind::Func);
  CHECK(c0.src[0].imm == m.find_function("vprintf"));
  // st.param.b64 [param0+0], %rd4; writes the symbol the call passes
  const Instr& sp = kp.code[at_line(kp, 163)];
  CHECK(sp.op == Op::St);
  CHECK(sp.space == Space::Param);
  CHECK(sp.src[0].symbol == pf.args[0]);
  // st.param.b32 [param2+0], 19;  (__LINE__ of the assert)
  const Instr& line_arg = kp.code[at_line(kp, 193)];
  CHECK(line_arg.src[0].symbol == as.args[2]);
  CHECK(line_arg.src[1].kind == Operand::Kind::Imm);
  CHECK(line_arg.src[1].imm == 19);
  CHECK(kp.code[at_line(kp, 198)].user_line == 19);  // assert(x != 3); is misc.cu:19

  // @%p2 bra $L__BB2_4 skips a trap: both sides end the thread, so it reconverges only at exit.
  const uint32_t trap_br = at_line(kp, 212);
  CHECK(kp.code[at_line(kp, 215)].op == Op::Trap);
  CHECK(kp.reconverge_pc[trap_br] == Function::kExitPc);
  // The assert branch reconverges at $L__BB2_2 (setp.lt.s32 on line 211).
  CHECK(kp.reconverge_pc[at_line(kp, 177)] == at_line(kp, 211));
}

TEST_CASE("misc: warp intrinsics", "[ptx]") {
  Module m = parse_sample("misc_sm80.ptx");
  const Function& f = func(m, "_Z5kwarpPiPf");
  // shfl.sync.down.b32 %r23|%p3, %r20, %r22, %r21, %r15;
  const Instr& sh = f.code[at_line(f, 562)];
  CHECK(sh.op == Op::Shfl);
  CHECK(sh.shfl == ShflMode::Down);
  CHECK(sh.type == Type::B32);
  REQUIRE(sh.ndst == 2);
  CHECK(sh.dst[0].reg == reg(f, "%r23"));
  CHECK(sh.dst[1].reg == reg(f, "%p3"));
  REQUIRE(sh.nsrc == 4);
  CHECK(sh.src[0].reg == reg(f, "%r20"));  // value
  CHECK(sh.src[1].reg == reg(f, "%r22"));  // delta
  CHECK(sh.src[2].reg == reg(f, "%r21"));  // clamp / segment mask
  CHECK(sh.src[3].reg == reg(f, "%r15"));  // member mask
  CHECK(f.code[at_line(f, 549)].shfl == ShflMode::Idx);
  CHECK(f.code[at_line(f, 555)].shfl == ShflMode::Up);
  CHECK(f.code[at_line(f, 569)].shfl == ShflMode::Bfly);

  // mov.b64 {%r1,%r2}, %fd1;  and  mov.b64 %fd2, {%r3,%r4};
  const Instr& unpack = f.code[at_line(f, 589)];
  CHECK(unpack.op == Op::Mov);
  CHECK(unpack.type == Type::B64);
  REQUIRE(unpack.dst[0].kind == Operand::Kind::Vector);
  CHECK(unpack.dst[0].count == 2);
  CHECK(unpack.dst[0].vec[0] == reg(f, "%r1"));
  CHECK(unpack.dst[0].vec[1] == reg(f, "%r2"));
  CHECK(unpack.src[0].reg == reg(f, "%fd1"));
  const Instr& pack = f.code[at_line(f, 601)];
  REQUIRE(pack.src[0].kind == Operand::Kind::Vector);
  CHECK(pack.src[0].vec[0] == reg(f, "%r3"));
  CHECK(pack.src[0].vec[1] == reg(f, "%r4"));
  CHECK(pack.dst[0].reg == reg(f, "%fd2"));

  // vote.sync.ballot.b32 %r8, %p8, %r15;  vote.sync.all.pred %p11, %p10, %r15;
  const Instr& ballot = f.code[at_line(f, 609)];
  CHECK(ballot.op == Op::Vote);
  CHECK(ballot.vote == VoteMode::Ballot);
  CHECK(ballot.type == Type::B32);
  CHECK(ballot.src[0].reg == reg(f, "%p8"));
  CHECK(ballot.src[1].reg == reg(f, "%r15"));
  CHECK(f.code[at_line(f, 614)].vote == VoteMode::All);
  CHECK(f.code[at_line(f, 614)].type == Type::Pred);
  CHECK(f.code[at_line(f, 620)].vote == VoteMode::Any);
  CHECK(f.code[at_line(f, 625)].vote == VoteMode::Uni);
  // match.any.sync.b32 %r35, %r7, %r15;  match.all.sync.b32 %r36|%p16, %r7, %r15;
  const Instr& many = f.code[at_line(f, 629)];
  CHECK(many.op == Op::Match);
  CHECK(many.match == MatchMode::Any);
  CHECK(many.ndst == 1);
  const Instr& mall = f.code[at_line(f, 632)];
  CHECK(mall.match == MatchMode::All);
  CHECK(mall.ndst == 2);
  CHECK(mall.dst[1].reg == reg(f, "%p16"));
  CHECK(f.code[at_line(f, 637)].op == Op::Activemask);
  // bar.warp.sync -1;  bar.warp.sync 65535;
  const Instr& ws = f.code[at_line(f, 641)];
  CHECK(ws.op == Op::BarWarpSync);
  CHECK(ws.src[0].kind == Operand::Kind::Imm);
  CHECK(ws.src[0].imm == -1);
  CHECK(f.code[at_line(f, 644)].src[0].imm == 65535);
}

TEST_CASE("misc: atomics and memory ordering", "[ptx]") {
  Module m = parse_sample("misc_sm80.ptx");
  const Function& a = func(m, "_Z5katomPiPjPyPfPdPxP7__half2");
  const Instr& cas64 = a.code[at_line(a, 352)];  // atom.global.cas.b64 %rd17, [%rd11], %rd16, %rd15;
  CHECK(cas64.aop == AtomOp::Cas);
  CHECK(cas64.type == Type::B64);
  const Instr& addf64 = a.code[at_line(a, 374)];  // atom.global.add.f64 %fd1, [%rd8], 0d3FF0000000000000;
  CHECK(addf64.aop == AtomOp::Add);
  CHECK(addf64.type == Type::F64);
  CHECK(addf64.src[1].kind == Operand::Kind::Imm);
  double one;
  std::memcpy(&one, &addf64.src[1].imm, 8);
  CHECK(one == 1.0);
  const Instr& cta = a.code[at_line(a, 409)];  // atom.global.cta.add.u32
  CHECK(cta.scope == Scope::Cta);
  CHECK(cta.space == Space::Global);
  CHECK(a.code[at_line(a, 414)].scope == Scope::Sys);

  auto find = [&](const Function& fn, Op op, Sem sem, Scope scope) {
    for (const Instr& in : fn.code)
      if (in.op == op && in.sem == sem && in.scope == scope) return true;
    return false;
  };
  // cuda::atomic_ref calls end up in functions of the module; search them all.
  auto anywhere = [&](Op op, Sem sem, Scope scope) {
    for (const Function& fn : m.functions)
      if (find(fn, op, sem, scope)) return true;
    return false;
  };
  CHECK(anywhere(Op::Atom, Sem::Relaxed, Scope::Gpu));    // atom.add.relaxed.gpu.s32
  CHECK(anywhere(Op::St, Sem::Release, Scope::Gpu));      // st.release.gpu.b32
  CHECK(anywhere(Op::Ld, Sem::Acquire, Scope::Gpu));      // ld.acquire.gpu.b32
  CHECK(anywhere(Op::Atom, Sem::AcqRel, Scope::Gpu));     // atom.cas.acq_rel.gpu.b32
  CHECK(anywhere(Op::Fence, Sem::Sc, Scope::Sys));        // fence.sc.sys
  CHECK(anywhere(Op::St, Sem::Relaxed, Scope::Sys));      // st.relaxed.sys.b32
  CHECK(anywhere(Op::Atom, Sem::Relaxed, Scope::Cta));    // atom.or.relaxed.cta.b32
  CHECK(anywhere(Op::Membar, Sem::None, Scope::Gpu));     // membar.gl
  CHECK(anywhere(Op::Membar, Sem::None, Scope::Cta));     // membar.cta
  CHECK(anywhere(Op::Membar, Sem::None, Scope::Sys));     // membar.sys
  // A space-less ld/st/atom is generic.
  for (const Function& fn : m.functions)
    for (const Instr& in : fn.code)
      if (in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom) CHECK(in.space != Space::None);
}

TEST_CASE("misc: barriers", "[ptx]") {
  Module m = parse_sample("misc_sm80.ptx");
  const Function& f = func(m, "_Z4kbarPi");
  const Instr& named = f.code[at_line(f, 832)];  // bar.sync 1, 64;
  CHECK(named.op == Op::Bar);
  CHECK(named.bar == BarKind::Sync);
  CHECK(named.aligned);
  CHECK(named.src[0].imm == 1);
  CHECK(named.src[1].kind == Operand::Kind::Imm);
  CHECK(named.src[1].imm == 64);
  const Instr& sync0 = f.code[at_line(f, 835)];  // bar.sync 0;
  CHECK(sync0.src[0].imm == 0);
  CHECK(sync0.src[1].kind == Operand::Kind::None);
  const Instr& popc = f.code[at_line(f, 843)];  // bar.red.popc.u32 %r8, 0, %p1;
  CHECK(popc.bar == BarKind::Red);
  CHECK(popc.barred == BarRedOp::Popc);
  CHECK(popc.type == Type::U32);
  CHECK(popc.dst[0].reg == reg(f, "%r8"));
  CHECK(popc.src[0].imm == 0);
  CHECK(popc.src[1].kind == Operand::Kind::None);
  CHECK(popc.nsrc == 3);
  // The predicate is the %p1 of the enclosing { .reg .pred %p1; ... } block, not the kernel's.
  CHECK(popc.src[2].reg == f.code[at_line(f, 842)].dst[0].reg);
  CHECK(f.regs[popc.src[2].reg].name == "%p1");
  CHECK(popc.src[2].reg != reg(f, "%p1"));
  CHECK(f.code[at_line(f, 838)].dst[0].reg == reg(f, "%p1"));
  CHECK(f.code[at_line(f, 853)].barred == BarRedOp::And);
  CHECK(f.code[at_line(f, 864)].barred == BarRedOp::Or);
  const Instr& arrive = f.code[at_line(f, 869)];  // bar.arrive 2, 64;
  CHECK(arrive.bar == BarKind::Arrive);
  CHECK(arrive.src[0].imm == 2);
  CHECK(arrive.src[1].imm == 64);
  const Instr& b3 = f.code[at_line(f, 873)];  // barrier.sync 3;  (not .aligned)
  CHECK(b3.bar == BarKind::Sync);
  CHECK_FALSE(b3.aligned);
  CHECK(b3.src[0].imm == 3);
}

TEST_CASE("misc: special registers, float immediates and conversions", "[ptx]") {
  Module m = parse_sample("misc_sm80.ptx");
  const Function& t = func(m, "_Z5ktimePy");
  auto sreg_of = [&](uint32_t line) {
    const Instr& in = t.code[at_line(t, line)];
    REQUIRE(in.src[0].kind == Operand::Kind::SpecialReg);
    return in.src[0].sreg;
  };
  CHECK(sreg_of(767) == SReg::Clock64);
  CHECK(sreg_of(781) == SReg::GlobalTimer);
  CHECK(sreg_of(785) == SReg::SmId);
  CHECK(sreg_of(789) == SReg::LanemaskLt);
  CHECK(t.code[at_line(t, 777)].op == Op::Nanosleep);

  const Function& w = func(m, "_Z5kwarpPiPf");
  bool saw_three = false;
  for (const Instr& in : w.code)  // mov.f32 %f5, 0f40400000;  (3.0f)
    if (in.op == Op::Mov && in.type == Type::F32 && in.src[0].kind == Operand::Kind::Imm &&
        in.src[0].imm == 0x40400000)
      saw_three = true;
  CHECK(saw_three);
  bool cvtsat = false;  // cvt.sat.f32.f32 (__saturatef)
  for (const Instr& in : w.code)
    if (in.op == Op::Cvt && in.sat && in.type == Type::F32 && in.type2 == Type::F32) cvtsat = true;
  CHECK(cvtsat);

  const Function& c = func(m, "_Z5kconvPfPdPiPxPhPs");
  bool rzi = false, rn_f32_s64 = false, widemul = false;
  for (const Instr& in : c.code) {
    if (in.op == Op::Cvt && in.rnd == Rounding::Rzi && in.type == Type::S32 && in.type2 == Type::F32) rzi = true;
    if (in.op == Op::Cvt && in.rnd == Rounding::Rn && in.type == Type::F32 && in.type2 == Type::S64) rn_f32_s64 = true;
    if (in.op == Op::Mul && in.mul == MulMode::Wide) {
      widemul = true;
      CHECK((in.type == Type::U32 || in.type == Type::S32));  // the source type
    }
  }
  CHECK(rzi);
  CHECK(rn_f32_s64);
  CHECK(widemul);
}

// ---------------------------------------------------------------------------------------------
// Cooperative groups grid sync: deep inlined_at chains (tests/sim/ptx/src/coop.cu)
// ---------------------------------------------------------------------------------------------

TEST_CASE("coop: grid sync spin, env registers and inlined_at chains", "[ptx]") {
  Module m = parse_sample("coop_sm80.ptx");
  const Function& f = func(m, "_Z8gridsyncPii");
  // mov.u32 %r20, %envreg2;  four levels of inlining below this_grid() at coop.cu:6
  const Instr& env = f.code[at_line(f, 44)];
  REQUIRE(env.src[0].kind == Operand::Kind::SpecialReg);
  CHECK(env.src[0].sreg == static_cast<SReg>(static_cast<int>(SReg::EnvReg0) + 2));
  CHECK(ends_with(m.files[env.file].path, "driver_abi.h"));
  CHECK(env.line == 83);
  CHECK(env.col == 96);
  CHECK(ends_with(m.files[env.user_file].path, "src/coop.cu"));
  CHECK(env.user_line == 6);  // cg::grid_group g = cg::this_grid();
  CHECK(f.code[at_line(f, 51)].src[0].sreg == static_cast<SReg>(static_cast<int>(SReg::EnvReg0) + 1));

  // g.sync() at coop.cu:9: atom.add.release.gpu.u32 ... then the ld.acquire.gpu spin.
  const Instr& arrive = f.code[at_line(f, 167)];
  CHECK(arrive.op == Op::Atom);
  CHECK(arrive.aop == AtomOp::Add);
  CHECK(arrive.sem == Sem::Release);
  CHECK(arrive.scope == Scope::Gpu);
  CHECK(arrive.space == Space::Generic);
  CHECK(arrive.type == Type::U32);
  CHECK(arrive.user_line == 9);
  const Instr& poll = f.code[at_line(f, 174)];
  CHECK(poll.op == Op::Ld);
  CHECK(poll.sem == Sem::Acquire);
  CHECK(poll.scope == Scope::Gpu);
  CHECK(poll.user_line == 9);
  CHECK(ends_with(m.files[poll.file].path, "sync.h"));
  CHECK(poll.line == 98);
  // The spin loop (@%p5 bra $L__BB0_6) reconverges at the barrier after it.
  const uint32_t spin = at_line(f, 181);
  CHECK(f.code[spin].src[0].imm == at_line(f, 174));
  CHECK(f.reconverge_pc[spin] == at_line(f, 186));
  const Instr& bar = f.code[at_line(f, 186)];  // barrier.sync 0;
  CHECK(bar.op == Op::Bar);
  CHECK_FALSE(bar.aligned);
  CHECK(bar.user_line == 9);
  CHECK(bar.line == 98);

  // bfi.b64 %rd1, %rd12, %rd11, 32, 32;
  const Instr& bfi = f.code[at_line(f, 56)];
  CHECK(bfi.op == Op::Bfi);
  CHECK(bfi.nsrc == 4);
  CHECK(bfi.src[2].imm == 32);
  CHECK(bfi.src[3].imm == 32);
}

TEST_CASE("coop -G: debug build with sections, reserved shared memory and many calls", "[ptx]") {
  Module m = parse_sample("coop_sm80_G.ptx");
  bool reserved = false;
  size_t calls = 0;
  for (const Function& f : m.functions) {
    calls += f.calls.size();
    for (const Instr& in : f.code)
      for (int k = 0; k < in.nsrc; ++k)
        if (in.src[k].kind == Operand::Kind::SpecialReg && in.src[k].sreg == SReg::ReservedSmemOffset1) reserved = true;
    for (const CallSite& cs : f.calls) {
      if (cs.callee == Operand::kNoReg) continue;
      REQUIRE(cs.callee < m.functions.size());
      CHECK(m.functions[cs.callee].params.size() == cs.args.size());
      for (uint32_t a : cs.args) CHECK(m.symbols[a].offset + m.symbols[a].size <= f.param_bytes);
    }
  }
  CHECK(reserved);
  CHECK(calls > 10);
}

// ---------------------------------------------------------------------------------------------
// Recursion, printf, scoped labels in inline asm, sm_80 reductions (tests/sim/ptx/src/rest.cu)
// ---------------------------------------------------------------------------------------------

TEST_CASE("rest: recursive function frame and call sites", "[ptx]") {
  Module m = parse_sample("rest_sm80.ptx");
  const Function& rec = func(m, "_Z3reci");
  CHECK_FALSE(rec.is_entry);
  REQUIRE(rec.rets.size() == 1);
  REQUIRE(rec.params.size() == 1);
  // Own frame: func_retval0 (.b32) at 0, _Z3reci_param_0 (.b32) at 4.
  CHECK(m.symbols[rec.rets[0]].name == "func_retval0");
  CHECK(m.symbols[rec.rets[0]].offset == 0);
  CHECK(m.symbols[rec.params[0]].offset == 4);
  CHECK(rec.own_param_bytes == 8);
  // Two callseqs: param0, retval0 (b32 each); then param0, param1 (b64), retval0 (b32).
  REQUIRE(rec.calls.size() == 2);
  CHECK(rec.calls[0].callee == uint32_t(m.find_function("_Z3reci")));
  CHECK(rec.calls[1].callee == uint32_t(m.find_function("vprintf")));
  CHECK(rec.param_bytes >= 8 + 4 + 4 + 8 + 8 + 4);
  CHECK(rec.local_bytes == 8);
  // st.param.b32 [func_retval0+0], %r8;  names the function's own return param
  const Instr& st = rec.code[at_line(rec, 80)];
  CHECK(st.src[0].symbol == rec.rets[0]);
  // ".loc 1 0 42" (compiler-generated) keeps the user line of the code around it.
  const Instr& gen = rec.code[at_line(rec, 43)];
  CHECK(gen.line == 0);
  CHECK(gen.user_line == 2);
  CHECK(ends_with(m.files[gen.user_file].path, "src/rest.cu"));
  // The branch over the recursion reconverges at $L__BB0_2.
  CHECK(rec.reconverge_pc[at_line(rec, 40)] == at_line(rec, 80));
  const Symbol& str = sym(m, "$str");
  CHECK(std::string(reinterpret_cast<const char*>(str.init.data())) == "%d\n");
}

TEST_CASE("rest: labels are scoped to their { } block", "[ptx]") {
  Module m = parse_sample("rest_sm80.ptx");
  const Function& f = func(m, "_Z4kredPiPj");
  // Two inline-asm blocks both declare .reg .pred p and label DONE (lines 172 and 176).
  std::vector<uint32_t> bras;
  for (uint32_t i = 0; i < f.code.size(); ++i)
    if (f.code[i].op == Op::Bra) bras.push_back(i);
  REQUIRE(bras.size() == 2);
  // Each DONE is the instruction after that block's add.
  CHECK(f.code[bras[0]].src[0].imm == bras[0] + 2);
  CHECK(f.code[bras[1]].src[0].imm == bras[1] + 2);
  // Different 'p' registers.
  CHECK(f.code[bras[0]].guard != f.code[bras[1]].guard);
  CHECK(f.regs[f.code[bras[0]].guard].name == "p");
  CHECK(f.regs[f.code[bras[0]].guard].type == Type::Pred);
  // Inner scope registers declared as .s32 r0 ... are distinct too (cub does the same).

  bool redux = false, red = false, proxy = false, nc = false, lop3 = false, testp = false;
  for (const Instr& in : f.code) {
    if (in.op == Op::Redux && in.redux == ReduxOp::Add && in.type == Type::S32) redux = true;
    if (in.op == Op::Red) {
      red = true;
      CHECK(in.aop == AtomOp::Add);
      CHECK(in.sem == Sem::Release);
      CHECK(in.scope == Scope::Gpu);
      CHECK(in.space == Space::Global);
      CHECK(in.ndst == 0);
      CHECK(in.src[0].kind == Operand::Kind::Addr);
      CHECK(in.src[1].imm == 1);
    }
    if (in.op == Op::Fence && in.proxy) proxy = true;
    if (in.op == Op::Ld && in.nc) nc = true;
    if (in.op == Op::Lop3) {
      lop3 = true;
      CHECK(in.src[3].imm == 0x96);
    }
    if (in.op == Op::Testp) {
      testp = true;
      CHECK(in.testp == TestpMode::Finite);
    }
  }
  CHECK(redux);
  CHECK(red);
  CHECK(proxy);
  CHECK(nc);
  CHECK(lop3);
  CHECK(testp);
}

TEST_CASE("rest -G: debug build parses and keeps the line table", "[ptx]") {
  Module m = parse_sample("rest_sm80_G.ptx");
  const Function& f = func(m, "_Z4kredPiPj");
  CHECK_FALSE(f.code.empty());
  for (const Instr& in : f.code) CHECK(ends_with(m.files[in.user_file].path, ".cu"));
}

// ---------------------------------------------------------------------------------------------
// Function pointers, exit, an infinite loop (tests/sim/ptx/src/sw.cu)
// ---------------------------------------------------------------------------------------------

TEST_CASE("switch: function pointer table, indirect call, infinite loop", "[ptx]") {
  Module m = parse_sample("switch_sm75.ptx");
  // .global .align 8 .u64 table[2] = {_Z2f1i, _Z2f2i};
  const Symbol& table = sym(m, "table");
  REQUIRE(table.addr_inits.size() == 2);
  CHECK(table.addr_inits[0].function);
  CHECK(table.addr_inits[0].symbol == uint32_t(m.find_function("_Z2f1i")));
  CHECK(table.addr_inits[1].offset == 8);
  CHECK(table.addr_inits[1].symbol == uint32_t(m.find_function("_Z2f2i")));
  CHECK_FALSE(table.addr_inits[1].generic);
  // Forward-declared functions are defined once, later.
  CHECK(m.functions.size() == 3);
  CHECK_FALSE(func(m, "_Z2f1i").code.empty());

  const Function& k = func(m, "_Z3kswPii");
  // call (retval0), %rd8, (param0), prototype_0;
  REQUIRE(k.calls.size() == 1);
  CHECK(k.calls[0].callee == Operand::kNoReg);
  CHECK(k.calls[0].target_reg == reg(k, "%rd8"));
  CHECK(k.calls[0].args.size() == 1);
  CHECK(k.calls[0].rets.size() == 1);
  const Instr& call = k.code[at_line(k, 174)];
  CHECK(call.op == Op::Call);
  CHECK_FALSE(call.uni);
  CHECK(call.src[0].kind == Operand::Kind::Reg);

  CHECK(k.code[at_line(k, 191)].op == Op::Exit);
  // $L__BB2_23: bra.uni $L__BB2_23;  -- no path to the exit, must not break the CFG.
  const uint32_t spin = at_line(k, 201);
  CHECK(k.code[spin].uni);
  CHECK(k.code[spin].src[0].imm == spin);
  const BasicBlock& b = k.blocks[k.block_of[spin]];
  CHECK(b.first == spin);
  CHECK(b.last == spin);
  CHECK(b.succs == std::vector<uint32_t>{k.block_of[spin]});
  CHECK(b.ipdom == -1);
  // The branch into it: one side spins forever, the other returns. Lanes that spin never arrive
  // anywhere, so the others reconverge where the paths that finish go on ($L__BB2_22), not at the
  // exit: lanes of an `if` whose body can only spin for ever meet after the `if` when no lane
  // took that spin (a __syncwarp() there names only lanes that arrive).
  CHECK(k.reconverge_pc[at_line(k, 197)] == k.blocks[k.block_of[at_line(k, 197) + 1]].first);
  CHECK(k.reconverge_pc[at_line(k, 197)] != spin);
}

// ---------------------------------------------------------------------------------------------
// cub and thrust
// ---------------------------------------------------------------------------------------------

TEST_CASE("cub: shared TempStorage variables and inline-asm scopes", "[ptx]") {
  Module m = parse_sample("cub_sm75.ptx");
  size_t shared = 0;
  for (const Symbol& s : m.symbols)
    if (s.space == Space::Shared && !s.is_dynamic_shared) {
      CHECK(s.size > 0);
      CHECK(s.align >= 1);
      ++shared;
    }
  CHECK(shared > 0);  // (laid out by the loader: shared_layout.test.cpp)
  for (const Function& f : m.functions)
    for (size_t i = 0; i < f.code.size(); ++i)
      if (f.code[i].op == Op::Shfl) CHECK(f.code[i].src[3].kind != Operand::Kind::None);
}

TEST_CASE("thrust: a large real module parses", "[ptx]") {
  Module m = parse_sample("thrust_sm80.ptx");
  size_t n = 0, entries = 0, bounded = 0;
  for (const Function& f : m.functions) {
    n += f.code.size();
    entries += f.is_entry;
    if (f.maxntid[0] == 256) {  // .maxntid 256, 1, 1 (__launch_bounds__ of cub's policies)
      ++bounded;
      CHECK(f.maxntid[1] == 1);
      CHECK(f.maxntid[2] == 1);
    }
    CHECK(f.reconverge_pc.size() == f.code.size());
  }
  CHECK(bounded > 0);
  CHECK(entries > 5);
  CHECK(n > 5000);
}

TEST_CASE("sync sm_90: semaphores, cooperative groups, volatile flags", "[ptx]") {
  Module m = parse_sample("sync_sm90.ptx");
  CHECK(m.target == "sm_90");
  const Function& pc = func(m, "_Z17producer_consumerPi");
  bool vol_ld = false, vol_st = false;
  for (const Instr& in : pc.code) {
    if (in.op == Op::Ld && in.sem == Sem::Volatile) vol_ld = true;
    if (in.op == Op::St && in.sem == Sem::Volatile) vol_st = true;
  }
  CHECK(vol_ld);
  CHECK(vol_st);
  // __shared__ float tile[32][33]; __shared__ int cnt;  -> 4224 + 4 bytes
  bool tile = false;
  for (const Symbol& s : m.symbols)
    if (s.name == "_ZZ9bigsharedPfE4tile") {
      tile = true;
      CHECK(s.size == 32 * 33 * 4);
    }
  CHECK(tile);
}

// ---------------------------------------------------------------------------------------------
// Hand-written PTX: operand forms and modifiers
// ---------------------------------------------------------------------------------------------

TEST_CASE("immediates: integer bases, negatives, float hex in the operand's type", "[ptx]") {
  Module m = parse(kernel(R"(
  .reg .b32 %r<9>; .reg .b64 %rd<4>; .reg .f32 %f<3>; .reg .f64 %fd<3>; .reg .pred %p<3>;
  mov.u32 %r1, 0x1F;
  mov.u32 %r2, 017;
  mov.s32 %r3, -5;
  mov.u32 %r4, WARP_SZ;
  add.f32 %f1, %f2, 0fBF800000;
  add.f64 %fd1, %fd2, 0f3F800000;
  add.f64 %fd1, %fd2, 0d4000000000000000;
  mov.f32 %f1, 0d3FF0000000000000;
  mov.u64 %rd1, 4607182418800017408;
  add.s64 %rd1, %rd2, -1;
  mov.u32 %r5, 1U;
  selp.f32 %f1, 0f3F800000, 0f00000000, %p1;
  ret;)"));
  const Function& f = m.functions[0];
  CHECK(f.code[0].src[0].imm == 31);
  CHECK(f.code[1].src[0].imm == 15);
  CHECK(f.code[2].src[0].imm == -5);
  CHECK(f.code[3].src[0].imm == 32);
  CHECK(f.code[4].src[1].imm == 0xBF800000);  // -1.0f
  double d;
  std::memcpy(&d, &f.code[5].src[1].imm, 8);
  CHECK(d == 1.0);  // 0f literal widened for an f64 operand
  std::memcpy(&d, &f.code[6].src[1].imm, 8);
  CHECK(d == 2.0);
  CHECK(f.code[7].src[0].imm == 0x3F800000);  // 0d literal narrowed for an f32 operand
  CHECK(f.code[8].src[0].imm == 4607182418800017408LL);
  CHECK(f.code[9].src[1].imm == -1);
  CHECK(f.code[10].src[0].imm == 1);
  CHECK(f.code[11].src[0].imm == 0x3F800000);
  CHECK(f.code[11].src[2].reg == reg(f, "%p1"));
}

TEST_CASE("setp/set/selp/slct, guards, predicates", "[ptx]") {
  Module m = parse(kernel(R"(
  .reg .b32 %r<9>; .reg .f32 %f<3>; .reg .pred %p<5>;
  setp.lt.and.f32 %p1|%p2, %f1, %f2, !%p3;
  @!%p1 set.gtu.u32.f32 %r1, %f1, %f2;
  slct.s32.f32 %r2, %r3, %r4, %f1;
  setp.hs.u32 %p4, %r1, %r2;
  not.pred %p1, %p2;
  ret;)"));
  const Function& f = m.functions[0];
  const Instr& s = f.code[0];
  CHECK(s.op == Op::Setp);
  CHECK(s.cmp == Cmp::Lt);
  CHECK(s.boolop == BoolOp::And);
  CHECK(s.type == Type::F32);
  CHECK(s.ndst == 2);
  CHECK(s.dst[0].reg == reg(f, "%p1"));
  CHECK(s.dst[1].reg == reg(f, "%p2"));
  CHECK(s.nsrc == 3);
  CHECK(s.src[2].reg == reg(f, "%p3"));
  CHECK(s.src[2].negate);
  const Instr& st = f.code[1];
  CHECK(st.guard == reg(f, "%p1"));
  CHECK(st.guard_negated);
  CHECK(st.cmp == Cmp::Gtu);
  CHECK(st.type == Type::U32);
  CHECK(st.type2 == Type::F32);
  const Instr& sl = f.code[2];
  CHECK(sl.type == Type::S32);
  CHECK(sl.type2 == Type::F32);
  CHECK(f.code[3].cmp == Cmp::Hs);
  CHECK(f.code[4].op == Op::Not);
  CHECK(f.code[4].type == Type::Pred);
}

TEST_CASE("arithmetic and bit modifiers: carry, wide, hi, rounding, ftz, sat, modes", "[ptx]") {
  Module m = parse(kernel(R"(
  .reg .b32 %r<9>; .reg .b64 %rd<4>; .reg .f32 %f<4>; .reg .f64 %fd<3>; .reg .pred %p<2>;
  add.cc.u32 %r1, %r2, %r3;
  addc.cc.u32 %r4, %r5, %r6;
  subc.u32 %r4, %r5, %r6;
  madc.hi.cc.u32 %r1, %r2, %r3, %r4;
  mad.wide.s32 %rd1, %r1, %r2, %rd2;
  mul.hi.u32 %r1, %r2, %r3;
  fma.rn.ftz.sat.f32 %f1, %f2, %f3, %f1;
  div.full.f32 %f1, %f2, %f3;
  sqrt.approx.ftz.f32 %f1, %f2;
  cvt.rn.f16x2.f32 %r1, %f1, %f2;
  max.NaN.f32 %f1, %f2, %f3;
  shf.r.clamp.b32 %r1, %r2, %r3, %r4;
  prmt.b32.rc8 %r1, %r2, %r3, %r4;
  bfind.shiftamt.u32 %r1, %r2;
  dp2a.lo.s32.u32 %r1, %r2, %r3, %r4;
  bmsk.clamp.b32 %r1, %r2, %r3;
  testp.notanumber.f64 %p1, %fd1;
  mul24.lo.s32 %r1, %r2, %r3;
  ret;)"));
  const Function& f = m.functions[0];
  CHECK(f.code[0].op == Op::Add);
  CHECK(f.code[0].has_cc);
  CHECK_FALSE(f.code[0].carry_in);
  CHECK(f.code[1].has_cc);
  CHECK(f.code[1].carry_in);
  CHECK(f.code[2].op == Op::Sub);
  CHECK(f.code[2].carry_in);
  CHECK_FALSE(f.code[2].has_cc);
  CHECK(f.code[3].op == Op::Mad);
  CHECK(f.code[3].mul == MulMode::Hi);
  CHECK(f.code[3].carry_in);
  CHECK(f.code[3].has_cc);
  CHECK(f.code[4].mul == MulMode::Wide);
  CHECK(f.code[4].type == Type::S32);  // source type; the destination is 64-bit
  CHECK(f.code[5].mul == MulMode::Hi);
  CHECK(f.code[6].rnd == Rounding::Rn);
  CHECK(f.code[6].ftz);
  CHECK(f.code[6].sat);
  CHECK(f.code[7].full);
  CHECK(f.code[8].approx);
  CHECK(f.code[8].ftz);
  CHECK(f.code[9].type == Type::F16x2);
  CHECK(f.code[9].type2 == Type::F32);
  CHECK(f.code[9].nsrc == 2);
  CHECK(f.code[10].nan);
  CHECK(f.code[11].shf == ShfMode::RClamp);
  CHECK(f.code[12].prmt == PrmtMode::Rc8);
  CHECK(f.code[13].shiftamt);
  CHECK(f.code[14].op == Op::Dp2a);
  CHECK(f.code[14].mul == MulMode::Lo);
  CHECK(f.code[14].type == Type::S32);
  CHECK(f.code[14].type2 == Type::U32);
  CHECK(f.code[15].op == Op::Bmsk);
  CHECK(f.code[15].clamp);
  CHECK(f.code[16].testp == TestpMode::NotANumber);
  CHECK(f.code[16].type == Type::F64);
  CHECK(f.code[17].op == Op::Mul24);
  CHECK(f.code[17].mul == MulMode::Lo);
}

TEST_CASE("memory modifiers: volatile, relaxed, vectors, cache hints, spaces", "[ptx]") {
  Module m = parse(kernel(R"(
  .reg .b32 %r<9>; .reg .b64 %rd<4>; .reg .pred %p<2>;
  ld.volatile.global.u32 %r1, [%rd1];
  ld.relaxed.sys.shared::cta.u32 %r1, [%rd1+-8];
  st.global.v4.u32 [%rd1+16], {%r1, %r2, %r3, %r4};
  ld.global.nc.L1::no_allocate.v2.u32 {%r1, _}, [%rd1];
  ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;
  atom.shared.cas.b64 %rd1, [%rd2], %rd3, %rd1;
  red.global.add.noftz.f16x2 [%rd1], %r1;
  ld.const.u32 %r1, [16];
  ldu.global.u32 %r1, [%rd1];
  prefetch.global.L2 [%rd1];
  isspacep.shared %p1, %rd1;
  cvta.to.shared.u32 %r1, %r2;
  fence.acq_rel.gpu;
  fence.proxy.async.shared::cta;
  ret;)"));
  const Function& f = m.functions[0];
  CHECK(f.code[0].sem == Sem::Volatile);
  CHECK(f.code[0].space == Space::Global);
  CHECK(f.code[1].sem == Sem::Relaxed);
  CHECK(f.code[1].scope == Scope::Sys);
  CHECK(f.code[1].space == Space::Shared);
  CHECK(f.code[1].src[0].imm == -8);
  const Instr& v4 = f.code[2];
  CHECK(v4.vec == 4);
  CHECK(v4.src[0].imm == 16);
  REQUIRE(v4.src[1].kind == Operand::Kind::Vector);
  CHECK(v4.src[1].count == 4);
  CHECK(v4.src[1].vec[3] == reg(f, "%r4"));
  const Instr& v2 = f.code[3];
  CHECK(v2.nc);
  CHECK(v2.vec == 2);
  CHECK(v2.dst[0].vec[0] == reg(f, "%r1"));
  CHECK(v2.dst[0].vec[1] == Operand::kNoReg);  // "_"
  CHECK(f.code[4].nsrc == 2);                   // the cache policy operand is kept
  CHECK(f.code[5].space == Space::Shared);
  CHECK(f.code[5].aop == AtomOp::Cas);
  CHECK(f.code[6].op == Op::Red);
  CHECK(f.code[6].noftz);
  CHECK(f.code[6].type == Type::F16x2);
  CHECK(f.code[7].space == Space::Const);
  CHECK(f.code[7].src[0].reg == Operand::kNoReg);
  CHECK(f.code[7].src[0].symbol == Operand::kNoSymbol);
  CHECK(f.code[7].src[0].imm == 16);
  CHECK(f.code[8].op == Op::Ldu);
  CHECK(f.code[9].op == Op::Prefetch);
  CHECK(f.code[10].op == Op::Isspacep);
  CHECK(f.code[10].space == Space::Shared);
  CHECK(f.code[11].cvta == CvtaDir::FromGeneric);
  CHECK(f.code[11].type == Type::U32);
  CHECK(f.code[12].sem == Sem::AcqRel);
  CHECK(f.code[12].scope == Scope::Gpu);
  CHECK(f.code[13].proxy);
}

TEST_CASE("scopes: inner declarations shadow outer ones and get fresh indexes", "[ptx]") {
  Module m = parse(kernel(R"(
  .reg .b32 %r<3>; .reg .b32 x;
  mov.u32 x, 1;
  {
    .reg .b32 x;
    .reg .pred p;
    mov.u32 x, 2;
    setp.eq.u32 p, x, %r1;
    { .reg .b32 x; mov.u32 x, 3; }
    mov.u32 %r2, x;
  }
  mov.u32 %r1, x;
  ret;)"));
  const Function& f = m.functions[0];
  const uint32_t outer = f.code[0].dst[0].reg;
  const uint32_t inner = f.code[1].dst[0].reg;
  const uint32_t innermost = f.code[3].dst[0].reg;
  CHECK(f.regs[outer].name == "x");
  CHECK(f.regs[inner].name == "x");
  CHECK(outer != inner);
  CHECK(innermost != inner);
  CHECK(innermost != outer);
  CHECK(f.code[2].src[0].reg == inner);
  CHECK(f.code[4].src[0].reg == inner);  // back in the middle scope
  CHECK(f.code[5].src[0].reg == outer);
}

TEST_CASE("registers: ranges resolve only inside their bounds", "[ptx]") {
  CHECK_NOTHROW(parse(kernel(".reg .b32 %r<3>;\nmov.u32 %r2, %r0;\nret;")));
  const std::string e = error_of(kernel(".reg .b32 %r<3>;\nmov.u32 %r3, 0;\nret;"));
  CHECK(e.find("bad.ptx:7:") == 0);
  CHECK(e.find("'%r3'") != std::string::npos);
  CHECK(error_of(kernel(".reg .b32 %r<3>;\nmov.u32 %r01, 0;\nret;")).find("'%r01'") != std::string::npos);
}

TEST_CASE("brx.idx jumps through a .branchtargets table", "[ptx]") {
  Module m = parse(kernel(R"(
  .reg .b32 %r<4>;
  ts: .branchtargets L1, L2, L1;
  brx.idx %r1, ts;
L1:
  mov.u32 %r2, 1;
  bra.uni DONE;
L2:
  mov.u32 %r2, 2;
DONE:
  ret;)"));
  const Function& f = m.functions[0];
  REQUIRE(f.branch_tables.size() == 1);
  CHECK(f.branch_tables[0] == std::vector<uint32_t>{1, 3, 1});
  const Instr& b = f.code[0];
  CHECK(b.op == Op::Brx);
  CHECK(b.src[0].reg == reg(f, "%r1"));
  CHECK(b.src[1].imm == 0);
  CHECK(f.block_of[0] != f.block_of[1]);
  CHECK(f.blocks[f.block_of[0]].succs.size() == 2);
  CHECK(f.reconverge_pc[0] == 4);  // DONE
}

TEST_CASE("variables: layout of locals, params, arrays and initializers", "[ptx]") {
  const char* prelude = R"(
.global .align 4 .b32 g1;
.global .align 8 .u64 refs[4] = {g1, g1+4, generic(g1)+8, 0};
.global .align 4 .u32 grid[2][3] = {{1, 2, 3}, {4, 5, 6}};
.const .f32 half[2] = {0.5, -0f3F800000};
.global .s16 neg[2] = {-1, -2};
.global .b8 tail[] = {7, 8, 9};
.shared .align 8 .b8 sh1[12];
.shared .align 16 .b8 sh2[4];
.func (.param .align 16 .b8 ret[32]) f(.param .b32 a, .param .align 8 .b8 s[24])
{
  .local .align 4 .b8 l1[6];
  .local .align 16 .b8 l2[16];
  .reg .b32 %r<2>;
  ld.param.u32 %r1, [a];
  st.param.b32 [ret+4], %r1;
  ret;
}
)";
  Module m = parse(kernel("ret;", prelude));
  const Symbol& refs = sym(m, "refs");
  REQUIRE(refs.addr_inits.size() == 3);
  CHECK(refs.addr_inits[0].addend == 0);
  CHECK(refs.addr_inits[1].offset == 8);
  CHECK(refs.addr_inits[1].addend == 4);
  CHECK_FALSE(refs.addr_inits[1].generic);
  CHECK(refs.addr_inits[2].generic);
  CHECK(refs.addr_inits[2].addend == 8);
  CHECK(refs.init == std::vector<uint8_t>(32, 0));
  const Symbol& grid = sym(m, "grid");
  REQUIRE(grid.size == 24);
  for (int i = 0; i < 6; ++i) CHECK(grid.init[4 * i] == i + 1);
  const Symbol& half = sym(m, "half");
  CHECK(half.align == 4);  // natural alignment of .f32
  CHECK(f32_at(half.init, 0) == 0.5f);
  CHECK(f32_at(half.init, 4) == -1.0f);
  const Symbol& neg = sym(m, "neg");
  CHECK(neg.init == std::vector<uint8_t>{0xff, 0xff, 0xfe, 0xff});
  CHECK(sym(m, "tail").size == 3);
  CHECK(sym(m, "sh1").align == 8);
  CHECK(sym(m, "sh2").align == 16);

  const Function& f = func(m, "f");
  // Own frame: ret[32] at 0 (align 16), a at 32, s at 40 (align 8) -> 64.
  CHECK(m.symbols[f.rets[0]].offset == 0);
  CHECK(m.symbols[f.rets[0]].size == 32);
  CHECK(m.symbols[f.params[0]].offset == 32);
  CHECK(m.symbols[f.params[1]].offset == 40);
  CHECK(f.own_param_bytes == 64);
  // Locals: l1 at 0 (6 bytes), l2 at 16.
  CHECK(f.local_bytes == 32);
  CHECK(f.local_align == 16);
  CHECK(f.code[1].src[0].symbol == f.rets[0]);
  CHECK(f.code[1].src[0].imm == 4);
}

TEST_CASE("line table: inlined_at chains and files named after the code", "[ptx]") {
  Module m = parse(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<3>;
  .loc 1 10 3
  .loc 2 50 1, function_name $L__info_string0, inlined_at 1 10 3
  .loc 3 7 2, function_name $L__info_string1, inlined_at 2 50 1
  mov.u32 %r1, 1;
  .loc 3 8 2, function_name $L__info_string1, inlined_at 2 50 1
  mov.u32 %r1, 2;
  .loc 2 60 1, function_name $L__info_string0, inlined_at 1 99 3
  mov.u32 %r1, 3;
  .loc 1 11 5
  mov.u32 %r1, 4;
  ret;
}
  .file 3 "/usr/local/cuda/include/c.h"
  .file 1 "/home/student/lock.cu", 1700000000, 1234
  .file 2 "/usr/local/cuda/include/b.h"
  .section .debug_str
  {
$L__info_string0:
.b8 95,0
$L__info_string1:
.b8 95,0
  }
)");
  const Function& f = m.functions[0];
  REQUIRE(m.files.size() == 4);
  auto path = [&](uint16_t i) { return m.files[i].path; };
  // Frames inside the toolkit's headers give way to the student's line they were inlined at.
  CHECK(path(f.code[0].file) == "/usr/local/cuda/include/c.h");
  CHECK(f.code[0].line == 7);
  CHECK(path(f.code[0].user_file) == "/home/student/lock.cu");
  CHECK(f.code[0].user_line == 10);
  CHECK(f.code[1].user_line == 10);
  // inlined at a location that had no .loc of its own: that location is the user line.
  CHECK(path(f.code[2].user_file) == "/home/student/lock.cu");
  CHECK(f.code[2].user_line == 99);
  CHECK(f.code[3].line == 11);
  CHECK(f.code[3].col == 5);
  CHECK(f.code[3].user_line == 11);
  CHECK(f.code[4].line == 11);  // .loc stays in effect
}

TEST_CASE("line table: a helper of the user's own inlined into the kernel keeps its own line", "[ptx]") {
  // lock.cu:20 calls spin() (lock.cu:5), which calls atomicCAS from a toolkit header: reports
  // show lock.cu:5, the loop in the helper, not the call site and not the header.
  Module m = parse(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<3>;
  .loc 1 20 3
  .loc 1 5 9, function_name $L__info_string0, inlined_at 1 20 3
  .loc 2 90 1, function_name $L__info_string1, inlined_at 1 5 9
  mov.u32 %r1, 1;
  .loc 1 5 9, function_name $L__info_string0, inlined_at 1 20 3
  mov.u32 %r1, 2;
  ret;
}
  .file 1 "/home/student/lock.cu"
  .file 2 "/usr/local/cuda/include/sm_20_atomic_functions.hpp"
  .section .debug_str
  {
$L__info_string0:
.b8 95,0
$L__info_string1:
.b8 95,0
  }
)");
  const Function& f = m.functions[0];
  CHECK(f.code[0].line == 90);
  CHECK(m.files[f.code[0].user_file].path == "/home/student/lock.cu");
  CHECK(f.code[0].user_line == 5);
  CHECK(f.code[1].user_line == 5);
}

TEST_CASE("CFG: a branch inside an infinite loop reconverges inside the loop", "[ptx]") {
  Module m = parse(kernel(R"(
  .reg .b32 %r<4>; .reg .pred %p<2>;
TOP:
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  add.u32 %r2, %r2, 1;
SKIP:
  add.u32 %r3, %r3, 1;
  bra.uni TOP;
)"));
  const Function& f = m.functions[0];
  REQUIRE(f.code.size() == 5);
  CHECK(f.reconverge_pc[1] == 3);  // SKIP, not the function exit
  CHECK(f.blocks.size() == 3);
}

TEST_CASE("CFG: guarded ret, exit and fall-through off the end", "[ptx]") {
  Module m = parse(kernel(R"(
  .reg .b32 %r<4>; .reg .pred %p<3>;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra A;
  @%p2 ret;
  add.u32 %r2, %r2, 1;
A:
  @%p2 exit;
  add.u32 %r3, %r3, 1;)"));
  const Function& f = m.functions[0];
  // The fall-through side may return at "@%p2 ret", so A does not post-dominate the branch.
  CHECK(f.reconverge_pc[1] == Function::kExitPc);
  const BasicBlock& ret = f.blocks[f.block_of[2]];
  CHECK(ret.last == 2);
  CHECK(ret.succs == std::vector<uint32_t>{f.block_of[3]});
  CHECK(f.reconverge_pc[2] == Function::kExitPc);
  const BasicBlock& last = f.blocks[f.block_of[5]];
  CHECK(last.succs.empty());  // falls off the end
  CHECK(last.ipdom == -1);
}

TEST_CASE("CFG: build_cfg on an empty function and a self loop", "[ptx]") {
  Function empty;
  build_cfg(empty);
  CHECK(empty.blocks.empty());
  Function loop;
  Instr b;
  b.op = Op::Bra;
  b.nsrc = 1;
  b.src[0].kind = Operand::Kind::Label;
  b.src[0].imm = 0;
  loop.code.push_back(b);
  build_cfg(loop);
  REQUIRE(loop.blocks.size() == 1);
  CHECK(loop.blocks[0].ipdom == -1);
  CHECK(loop.reconverge_pc[0] == Function::kExitPc);
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

// The first Op::Unsupported instruction of a module's functions, or null.
const Instr* first_unsupported(const Module& m) {
  for (const Function& f : m.functions)
    for (const Instr& in : f.code)
      if (in.op == Op::Unsupported) return &in;
  return nullptr;
}
size_t count_unsupported(const Module& m) {
  size_t n = 0;
  for (const Function& f : m.functions)
    for (const Instr& in : f.code) n += in.op == Op::Unsupported;
  return n;
}

TEST_CASE("unsupported instruction: the module loads, the instruction names itself and its lines", "[ptx]") {
  const std::string text = read_ptx_sample("unsupported_sm80.ptx");
  const Module m = parse_module(text, "unsupported_sm80.ptx");
  const Instr* in = first_unsupported(m);
  REQUIRE(in != nullptr);
  CHECK(count_unsupported(m) == 2);  // both vabsdiff4 stay in the code, in place
  CHECK(in->ptx_line == 36);  // the first vabsdiff4 (inline asm of __vabsdiffu4)
  CHECK(in->user_line == 4);
  REQUIRE(in->call < m.unsupported.size());
  CHECK(m.unsupported[in->call].find("unsupported instruction 'vabsdiff4.u32.u32.u32") == 0);
  const std::string w = unsupported_message(m, *in);
  CHECK(w.find("unsupported_sm80.ptx:36: unsupported instruction 'vabsdiff4.u32.u32.u32'") == 0);
  CHECK(w.find("unsupported.cu:4)") != std::string::npos);
}

TEST_CASE("unknown modifiers are unsupported instructions", "[ptx]") {
  const Module m = parse(kernel(".reg .b32 %r<3>; .reg .b64 %rd<2>; .reg .pred %p<2>;\n.loc 1 17 2\n"
                                "@!%p1 ld.global.foo.u32 %r1, [%rd1];\nret;") +
                         ".file 1 \"/src/lock.cu\"\n");
  const Instr* in = first_unsupported(m);
  REQUIRE(in != nullptr);
  CHECK(in->ptx_line == 8);
  CHECK(in->guard != Operand::kNoReg);  // the guard is kept: a lane that skips it does not fail
  CHECK(in->guard_negated);
  const std::string e = unsupported_message(m, *in);
  CHECK(e.find("test.ptx:8: unsupported instruction 'ld.global.foo.u32'") == 0);
  CHECK(e.find("(CUDA source /src/lock.cu:17)") != std::string::npos);
  const Module t = parse(kernel(".reg .b32 %r<3>;\ntex.1d.v4.f32.s32 {%r1,%r1,%r1,%r1}, [t, {%r2}];\nret;"));
  REQUIRE(first_unsupported(t) != nullptr);
  CHECK(t.unsupported[first_unsupported(t)->call].find("'tex.1d.v4.f32.s32'") != std::string::npos);
  CHECK(t.functions[0].code.size() == 2);  // the tex, then ret
  const Module sh = parse(kernel(".reg .b32 %r<3>;\nshfl.down.b32 %r1, %r2, 1, 31;\nret;"));
  REQUIRE(first_unsupported(sh) != nullptr);
  CHECK(sh.unsupported[first_unsupported(sh)->call].find(".sync") != std::string::npos);
  // Special registers of thread block clusters: the instruction that reads one is unsupported.
  const Module cl = parse(kernel(".reg .b32 %r<3>;\nmov.b32 %r1, %cluster_ctarank;\nmov.u32 %r2, %tid.x;\nret;"));
  REQUIRE(first_unsupported(cl) != nullptr);
  CHECK(cl.unsupported[first_unsupported(cl)->call] ==
        "unsupported special register '%cluster_ctarank' in 'mov.b32'");
  CHECK(cl.functions[0].code[1].op == Op::Mov);
  // cp.async.bulk (TMA) and remote mbarriers are not modelled either.
  const Module bulk = parse(kernel(".reg .b32 %r<3>; .reg .b64 %rd<3>;\n"
                                   "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16, [%r2];\n"
                                   "barrier.cluster.arrive;\nmapa.u64 %rd2, %rd1, %r1;\nret;"));
  CHECK(count_unsupported(bulk) == 3);
  // An undeclared register is still malformed PTX.
  CHECK(error_of(kernel(".reg .b32 %r<3>;\nmov.b32 %r1, %nonsense_reg;\nret;")).find("undeclared register") !=
        std::string::npos);
}

TEST_CASE("cp.async: copies, groups and the mbarrier arrive", "[ptx]") {
  const Module m = parse(kernel(
      ".reg .b32 %r<4>; .reg .b64 %rd<3>; .reg .pred %p<2>;\n"
      "cp.async.ca.shared.global [%r1], [%rd1], 4, 4;\n"                 // 0
      "cp.async.cg.shared.global.L2::128B [%r1+16], [%rd2], 16, %r2;\n"  // 1
      "cp.async.ca.shared.global [%r1], [%rd1], 8, %p1;\n"               // 2: ignore-src
      "cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd1], 4, 2, %rd2;\n"  // 3: cache policy
      "cp.async.commit_group;\n"                                         // 4
      "cp.async.wait_group 1;\n"                                         // 5
      "cp.async.wait_all;\n"                                             // 6
      "cp.async.mbarrier.arrive.noinc.shared.b64 [%r3];\n"               // 7
      "cp.async.mbarrier.arrive.b64 [%rd1];\n"                           // 8
      "ret;"));
  const auto& c = m.functions[0].code;
  REQUIRE(c.size() == 10);
  CHECK(first_unsupported(m) == nullptr);
  CHECK(c[0].op == Op::CpAsync);
  CHECK(c[0].space == Space::Shared);
  CHECK(c[0].src[0].kind == Operand::Kind::Addr);
  CHECK(c[0].src[1].kind == Operand::Kind::Addr);
  CHECK(c[0].src[2].imm == 4);
  CHECK(c[0].nsrc == 4);
  CHECK(c[1].nc);
  CHECK(c[1].src[0].imm == 16);
  CHECK(c[1].src[2].imm == 16);
  CHECK(c[1].src[3].kind == Operand::Kind::Reg);
  CHECK(c[2].nsrc == 5);
  CHECK(c[2].src[3].kind == Operand::Kind::None);  // no src-size
  CHECK(c[2].src[4].kind == Operand::Kind::Reg);   // ignore-src
  CHECK(c[3].nsrc == 4);
  CHECK(c[3].src[3].imm == 2);
  CHECK(c[4].op == Op::CpAsyncCommit);
  CHECK(c[5].op == Op::CpAsyncWait);
  CHECK(c[5].src[0].imm == 1);
  CHECK_FALSE(c[5].wait_all);
  CHECK(c[6].op == Op::CpAsyncWait);
  CHECK(c[6].wait_all);
  CHECK(c[7].op == Op::CpAsyncMbarArrive);
  CHECK(c[7].noinc);
  CHECK(c[7].space == Space::Shared);
  CHECK(c[8].op == Op::CpAsyncMbarArrive);
  CHECK_FALSE(c[8].noinc);
  CHECK(c[8].space == Space::Generic);
  CHECK(error_of(kernel(".reg .b32 %r<3>; .reg .b64 %rd<3>;\ncp.async.ca.shared.global [%r1], [%rd1], 12;\nret;"))
            .find("must be 4, 8 or 16") != std::string::npos);
  CHECK(error_of(kernel(".reg .b32 %r<3>; .reg .b64 %rd<3>;\ncp.async.cg.shared.global [%r1], [%rd1], 8;\nret;"))
            .find("16 bytes") != std::string::npos);
  CHECK(error_of(kernel(".reg .b32 %r<3>;\ncp.async.wait_group %r1;\nret;")).find("constant") != std::string::npos);
}

TEST_CASE("mbarrier: init, arrive, waits, qualifiers and defaults", "[ptx]") {
  const Module m = parse(kernel(
      ".reg .b32 %r<4>; .reg .b64 %rd<3>; .reg .pred %p<2>;\n"
      "mbarrier.init.shared.b64 [%r1], %r2;\n"                          // 0
      "mbarrier.arrive.shared.b64 %rd1, [%r1];\n"                       // 1
      "mbarrier.arrive.shared::cta.b64 %rd1, [%r1], %r2;\n"             // 2
      "mbarrier.arrive.release.cluster.shared::cta.b64 %rd1, [%r1];\n"  // 3
      "mbarrier.arrive_drop.shared.b64 _, [%r1];\n"                     // 4
      "mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1;\n"               // 5
      "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%r1], %r3;\n"  // 6
      "mbarrier.try_wait.shared.b64 %p1, [%r1], %rd1, 1000;\n"          // 7
      "mbarrier.pending_count.b64 %r3, %rd1;\n"                         // 8
      "mbarrier.inval.shared.b64 [%r1];\n"                              // 9
      "mbarrier.arrive.expect_tx.shared.b64 %rd1, [%r1], 64;\n"         // 10
      "mbarrier.arrive.noComplete.shared.b64 %rd1, [%r1], 1;\n"         // 11
      "mbarrier.arrive.shared.b64 [%r1];\n"                             // 12: no state
      "ret;"));
  const auto& c = m.functions[0].code;
  REQUIRE(c.size() == 14);
  CHECK(first_unsupported(m) == nullptr);
  for (size_t k = 0; k < 13; ++k) {
    CHECK(c[k].op == Op::Mbarrier);
    CHECK(c[k].type == Type::B64);
  }
  CHECK(c[0].mbar == MbarOp::Init);
  CHECK(c[0].space == Space::Shared);
  CHECK(c[0].nsrc == 2);
  CHECK(c[1].mbar == MbarOp::Arrive);
  CHECK(c[1].ndst == 1);
  CHECK(c[1].nsrc == 1);
  CHECK(c[1].sem == Sem::Release);  // arrive: release at CTA scope by default
  CHECK(c[1].scope == Scope::Cta);
  CHECK(c[2].nsrc == 2);
  CHECK(c[3].scope == Scope::Cta);  // no clusters: the cluster is the block
  CHECK(c[4].mbar == MbarOp::ArriveDrop);
  CHECK(c[4].ndst == 0);
  CHECK(c[5].mbar == MbarOp::TestWait);
  CHECK(c[5].sem == Sem::Acquire);  // a wait: acquire at CTA scope by default
  CHECK_FALSE(c[5].parity);
  CHECK(c[6].mbar == MbarOp::TryWait);
  CHECK(c[6].parity);
  CHECK(c[7].nsrc == 2);  // the suspend-time hint is dropped
  CHECK(c[8].mbar == MbarOp::PendingCount);
  CHECK(c[9].mbar == MbarOp::Inval);
  CHECK(c[10].expect_tx);
  CHECK(c[11].no_complete);
  CHECK(c[12].ndst == 0);
  CHECK(c[12].nsrc == 1);
  // A barrier in another block's shared memory is not modelled.
  CHECK(count_unsupported(parse(kernel(".reg .b32 %r<3>; .reg .b64 %rd<3>;\n"
                                       "mbarrier.arrive.shared::cluster.b64 _, [%r1];\nret;"))) == 1);
  CHECK(error_of(kernel(".reg .b32 %r<3>; .reg .b64 %rd<3>;\nmbarrier.test_wait.shared.b64 %r1, [%r2], %rd1;\nret;"))
            .find("predicate") != std::string::npos);
}

TEST_CASE("malformed PTX gives a clear ParseError", "[ptx]") {
  const std::string lock = read_ptx_sample("lock_sm75.ptx");
  struct Case { std::string text, expect; };
  const std::vector<Case> cases = {
      {"", "empty"},
      {"   \n// only a comment\n", "empty"},
      {lock.substr(0, lock.find("ret;")), "not closed"},
      {lock.substr(0, lock.find("[%rd3], %r2")), "end of input"},
      {kernel(".reg .b32 %r<3>;\nmov.u32 %r1, 0x;\nret;"), "bad number"},
      {kernel(".reg .b32 %r<3>;\nmov.u32 %r1, 12abc;\nret;"), "bad number"},
      {kernel(".reg .b32 %r<3>;\nadd.s32 %r9, %r1, 1;\nret;"), "undeclared register '%r9'"},
      {kernel(".reg .b32 %r<3>;\nbra $L__nowhere;\nret;"), "unknown label '$L__nowhere'"},
      {kernel(".reg .b32 %r<3>;\nX:\nX:\nret;"), "defined twice"},
      {kernel(".reg .b32 %r<3>;\nmov.u32 %r1, \x01;\nret;"), "byte 0x01"},
      {kernel(".reg .b32 %r<3>;\nmov.u32 %r1, \"unterminated;\nret;"), "unterminated string"},
      {kernel(".reg .b32 %r<3>;\n/* never closed\nret;"), "unterminated /* comment"},
      {kernel(".reg .b32 %r<3>;\nadd.s32 %r1, %r2;\nret;"), "wrong number of operands"},
      {kernel(".reg .b32 %r<3>;\nmov.u32 %r1, undeclared_thing;\nret;"), "undeclared identifier 'undeclared_thing'"},
      {kernel(".reg .b32 %r<3>;\n@%r1 ret;"), "not a predicate"},
      {kernel(".reg .b32 %r<3>;\nld.global.u32 %r1, %r2;\nret;"), "[address]"},
      {kernel(".reg .b32 %r<3>;\ncvt.u32 %r1, %r2;\nret;"), "two types"},
      {kernel(".reg .b32 %r<3>;\n}\n}"), "module scope"},
      {".version 8.0\n.target sm_80\n.global .u32 x = {1, 2};\n", "too many initializers"},
      {".version 8.0\n.target sm_80\n.global .u32 x[99999999999999];\n", "too large"},
      {kernel(".reg .b32 %r<99999999>;\nret;"), "too many registers"},
      {".version 5.0\n", "unsupported PTX ISA version"},
      {"garbage words here", "module scope"},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.text.substr(0, 200));
    const std::string e = error_of(c.text);
    CHECK(e.find("bad.ptx") == 0);
    CHECK(e.find(c.expect) != std::string::npos);
  }
}

TEST_CASE("calls are checked against the callee's declaration", "[ptx]") {
  const char* prelude = ".func (.param .b32 r) g(.param .b32 a)\n{\nret;\n}\n";
  CHECK(error_of(kernel("{ .param .b32 p0; .param .b32 p1; call.uni g, (p0, p1); }\nret;", prelude))
            .find("call to 'g' with 2 argument(s)") != std::string::npos);
  CHECK(error_of(kernel("{ .param .b32 p0; .param .b32 r0; call (r0), %rd1, (p0), nope; }\nret;", prelude))
            .find("undeclared register '%rd1'") != std::string::npos);
  CHECK(error_of(kernel(".reg .b64 %rd<2>;\n{ .param .b32 p0; .param .b32 r0; call (r0), %rd1, (p0), nope; }\nret;", prelude))
            .find("unknown call prototype 'nope'") != std::string::npos);
  Module m = parse(kernel("{ .param .b32 p0; .param .b32 r0; st.param.b32 [p0], 5; call.uni (r0), g, (p0); }\nret;", prelude));
  const Function& k = func(m, "k");
  REQUIRE(k.calls.size() == 1);
  CHECK(k.calls[0].callee == uint32_t(m.find_function("g")));
  CHECK(m.symbols[k.calls[0].args[0]].function == m.find_function("k"));
}

// Truncations and byte flips of real PTX: parse either succeeds or throws ParseError; never a
// crash, a hang or another exception.
TEST_CASE("fuzz: truncated and corrupted PTX", "[ptx]") {
  const std::vector<std::string> samples = {read_ptx_sample("lock_sm75.ptx"), read_ptx_sample("misc_sm80.ptx"),
                                            read_ptx_sample("rest_sm80.ptx")};
  std::mt19937_64 rng(20261121);
  size_t errors = 0, ok = 0;
  for (const std::string& full : samples) {
    for (int i = 0; i < 200; ++i) {
      const size_t cut = std::uniform_int_distribution<size_t>(0, full.size())(rng);
      try {
        parse_module(std::string_view(full).substr(0, cut), "cut.ptx");
        ++ok;
      } catch (const ParseError&) {
        ++errors;
      }
    }
    for (int i = 0; i < 200; ++i) {
      std::string t = full;
      const int flips = std::uniform_int_distribution<int>(1, 8)(rng);
      for (int k = 0; k < flips; ++k) {
        size_t at = std::uniform_int_distribution<size_t>(0, t.size() - 1)(rng);
        t[at] = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
      }
      try {
        parse_module(t, "flip.ptx");
        ++ok;
      } catch (const ParseError&) {
        ++errors;
      }
    }
  }
  CHECK(errors > 0);
  CHECK(errors + ok == 3 * 400);
}

TEST_CASE("directives: linkage, performance tuning, pragmas, .ptr params", "[ptx]") {
  Module m = parse(R"(
.version 7.8
.target sm_75, debug
.address_size 64
.pragma "nounroll";
.extern .global .align 4 .u32 other;
.weak .global .align 4 .u32 w;
.common .global .align 8 .b8 c[16];
.global .attribute(.managed) .align 4 .u32 managed;
.extern .func (.param .b64 r) ext(.param .b64 a);
.visible .func die(.param .b32 code) .noreturn
{
  trap;
}
.visible .entry k(.param .u64 .ptr .global .align 16 k_p0, .param .align 8 .b8 k_p1[12], .param .u8 k_p2)
.maxntid 128, 2
.reqntid 64
.minnctapersm 4
.maxnreg 32
.pragma "nounroll";
{
  .pragma "nounroll";
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [k_p0];
  ret;
}
)");
  CHECK(m.version_major == 7);
  CHECK(m.version_minor == 8);
  CHECK(m.target == "sm_75");
  CHECK(sym(m, "other").is_extern);
  CHECK(sym(m, "w").visible);
  CHECK(sym(m, "c").size == 16);
  CHECK(sym(m, "managed").size == 4);
  CHECK(func(m, "ext").is_extern);
  CHECK(func(m, "die").noreturn);
  CHECK(func(m, "die").visible);
  const Function& k = func(m, "k");
  CHECK(k.maxntid[0] == 128);
  CHECK(k.maxntid[1] == 2);
  CHECK(k.maxntid[2] == 1);
  CHECK(k.reqntid[0] == 64);
  CHECK(k.minnctapersm == 4);
  CHECK(k.maxnreg == 32);
  // .ptr's .align is the pointee's: the parameter keeps the natural alignment of .u64.
  REQUIRE(k.params.size() == 3);
  CHECK(m.symbols[k.params[0]].align == 8);
  CHECK(m.symbols[k.params[0]].offset == 0);
  CHECK(m.symbols[k.params[1]].offset == 8);
  CHECK(m.symbols[k.params[1]].size == 12);
  CHECK(m.symbols[k.params[2]].offset == 20);
  CHECK(k.own_param_bytes == 21);
  CHECK(k.code.size() == 2);
}
