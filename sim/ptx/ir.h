// The decoded form of a PTX module: what the parser produces and the interpreter executes.
//
// Sections:
//   1. Scalar types, state spaces and instruction modifiers
//   2. Operands
//   3. Instructions
//   4. Variables (module and function scope)
//   5. Functions (instructions, basic blocks, CFG, immediate post-dominators, line table)
//   6. Module
//
// Nothing here is string-parsed at run time: every name is resolved to an index when the
// module is parsed, and every symbol to an address when the module is loaded (see linker.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synclab::sim::ptx {

// ---------------------------------------------------------------------------------------------
// 1. Scalar types, state spaces and instruction modifiers
// ---------------------------------------------------------------------------------------------

enum class Type : uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  B128,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  F16x2,
  BF16,
  BF16x2,
  F32,
  F64,
};

// Size in bytes of a value of this type (Pred counts as 1).
constexpr unsigned type_size(Type t) {
  switch (t) {
    case Type::Pred:
    case Type::B8:
    case Type::U8:
    case Type::S8: return 1;
    case Type::B16:
    case Type::U16:
    case Type::S16:
    case Type::F16:
    case Type::BF16: return 2;
    case Type::B32:
    case Type::U32:
    case Type::S32:
    case Type::F32:
    case Type::F16x2:
    case Type::BF16x2: return 4;
    case Type::B64:
    case Type::U64:
    case Type::S64:
    case Type::F64: return 8;
    case Type::B128: return 16;
    case Type::None: return 0;
  }
  return 0;
}
constexpr bool type_is_signed(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }
constexpr bool type_is_float(Type t) {
  return t == Type::F16 || t == Type::F32 || t == Type::F64 || t == Type::BF16 || t == Type::F16x2 || t == Type::BF16x2;
}

enum class Space : uint8_t { None, Generic, Global, Shared, SharedCluster, Local, Param, Const, Tex };

// Comparison of setp/set/slct.
enum class Cmp : uint8_t {
  None,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,  // signed/float ordered
  Lo,
  Ls,
  Hi,
  Hs,  // unsigned
  Equ,
  Neu,
  Ltu,
  Leu,
  Gtu,
  Geu,  // float unordered
  Num,
  Nan,
};
enum class BoolOp : uint8_t { None, And, Or, Xor };
enum class Rounding : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi, Rna, Rs };
enum class MulMode : uint8_t { None, Lo, Hi, Wide };
// Memory ordering of ld/st/atom/red/fence. Volatile is kept apart from Relaxed because the
// checkers treat them differently.
enum class Sem : uint8_t { None, Weak, Volatile, Relaxed, Acquire, Release, AcqRel, Sc, Mmio };
// A weak (plain) access: no .relaxed/.acquire/.release/.volatile qualifier (None) or an explicit
// .weak. Not morally strong with anything (PTX ISA, "Memory Consistency Model": strong operations).
inline bool is_weak(Sem s) { return s == Sem::None || s == Sem::Weak; }
enum class Scope : uint8_t { None, Cta, Cluster, Gpu, Sys };
enum class AtomOp : uint8_t { None, Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };
enum class BarKind : uint8_t { None, Sync, Arrive, Red };  // bar.sync / barrier.sync = Sync
enum class BarRedOp : uint8_t { None, Popc, And, Or };
enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { None, All, Any, Uni, Ballot };
enum class MatchMode : uint8_t { None, Any, All };
enum class ReduxOp : uint8_t { None, Add, Min, Max, And, Or, Xor };
enum class ShfMode : uint8_t { None, LWrap, LClamp, RWrap, RClamp };
enum class PrmtMode : uint8_t { None, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };
enum class CvtaDir : uint8_t { None, ToGeneric, FromGeneric };  // cvta.shared vs cvta.to.shared
enum class TestpMode : uint8_t { None, Finite, Infinite, Number, NotANumber, Normal, Subnormal };
// mbarrier.<op>: what an Op::Mbarrier instruction does.
enum class MbarOp : uint8_t {
  None,
  Init,          // mbarrier.init [a], count
  Inval,         // mbarrier.inval [a]
  Arrive,        // mbarrier.arrive{.noComplete}{.expect_tx} state, [a]{, count}
  ArriveDrop,    // mbarrier.arrive_drop ... (also lowers the expected count of later phases)
  TestWait,      // mbarrier.test_wait{.parity} p, [a], state|parity
  TryWait,       // mbarrier.try_wait{.parity} p, [a], state|parity{, suspend-hint}
  PendingCount,  // mbarrier.pending_count r, state
  ExpectTx,      // mbarrier.expect_tx [a], tx
  CompleteTx,    // mbarrier.complete_tx [a], tx
};

enum class Op : uint8_t {
  Nop,
  // data movement
  Mov,
  Ld,
  Ldu,
  St,
  Cvta,
  Cvt,
  Prefetch,
  Isspacep,
  // integer and float arithmetic
  Add,
  Sub,
  Mul,
  Mad,
  Mul24,
  Mad24,
  Sad,
  Div,
  Rem,
  Abs,
  Neg,
  Min,
  Max,
  Fma,
  Rcp,
  Sqrt,
  Rsqrt,
  Ex2,
  Lg2,
  Sin,
  Cos,
  Tanh,
  Copysign,
  Testp,
  // bit manipulation
  And,
  Or,
  Xor,
  Not,
  Cnot,
  Lop3,
  Shl,
  Shr,
  Shf,
  Popc,
  Clz,
  Brev,
  Bfind,
  Bfe,
  Bfi,
  Prmt,
  Fns,
  Dp4a,
  Dp2a,
  // comparison and selection
  Setp,
  Set,
  Selp,
  Slct,
  // control flow
  Bra,
  Brx,
  Call,
  Ret,
  Exit,
  Trap,
  Brkpt,
  // synchronization and communication
  Bar,
  BarWarpSync,
  Membar,
  Fence,
  Atom,
  Red,
  Shfl,
  Vote,
  Match,
  Activemask,
  Redux,
  Elect,  // elect.sync d|p, membermask (sm_90)
  Nanosleep,
  Pmevent,
  // appended by the parser (PTX 7.6+ bit-mask helpers)
  Bmsk,
  Szext,
  // asynchronous copies and mbarriers (sm_80+; see exec/instr/async.cpp)
  CpAsync,            // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}{, ignore-src}
  CpAsyncCommit,      // cp.async.commit_group
  CpAsyncWait,        // cp.async.wait_group N (src[0]) / cp.async.wait_all (Instr::wait_all)
  CpAsyncMbarArrive,  // cp.async.mbarrier.arrive{.noinc}.b64 [mbar]
  Mbarrier,           // mbarrier.<Instr::mbar> ...
  // An instruction the simulator does not model: kept in place so that the module loads, and a
  // lane that executes it ends the launch with Module::unsupported[Instr::call] as the error.
  Unsupported,
  Count_
};

// The warp-synchronous instructions: the lanes their member mask names run them together, each
// waiting for the others (bar.warp.sync, shfl.sync, vote.sync, match.sync, redux.sync, elect.sync).
// activemask only reads which lanes run and waits for none.
constexpr bool is_warp_synchronous(Op op) {
  return op == Op::BarWarpSync || op == Op::Shfl || op == Op::Vote || op == Op::Match || op == Op::Redux ||
         op == Op::Elect;
}

// ---------------------------------------------------------------------------------------------
// 2. Operands
// ---------------------------------------------------------------------------------------------

// Special registers. The component (x/y/z) is folded in.
enum class SReg : uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
  NWarpId,
  SmId,
  NSmId,
  GridId,
  LanemaskEq,
  LanemaskLe,
  LanemaskLt,
  LanemaskGe,
  LanemaskGt,
  Clock,
  ClockHi,
  Clock64,
  GlobalTimer,
  GlobalTimerLo,
  GlobalTimerHi,
  DynamicSmemSize,
  TotalSmemSize,
  EnvReg0,  // %envreg0..31 are EnvReg0 + n
  // Appended by the parser: the shared memory reserved by the system (sm_80+), which
  // cooperative_groups uses as scratch (%reserved_smem_offset_begin/_end/_cap/_0/_1).
  ReservedSmemBegin = EnvReg0 + 32,
  ReservedSmemEnd,
  ReservedSmemCap,
  ReservedSmemOffset0,
  ReservedSmemOffset1,
  Count_,
};

struct Operand {
  enum class Kind : uint8_t {
    None,
    Reg,         // reg: register index within the function
    Imm,         // imm: the value's bits (floats as their IEEE bits in the instruction's type)
    SpecialReg,  // sreg
    Addr,        // [reg + imm] or [symbol + imm]; reg == kNoReg when absent; symbol == kNoSymbol
    Symbol,      // the address of a variable, as a value (mov.u64 %rd, var;)
    Label,       // branch target: imm = instruction index within the function
    Vector,      // {r0, r1, r2, r3}: vec[0..count) register indexes (kNoReg for "_")
    Func,        // a function name as a value (call targets): imm = function index
  };
  static constexpr uint32_t kNoReg = 0xffffffffu;
  static constexpr uint32_t kNoSymbol = 0xffffffffu;

  Kind kind = Kind::None;
  bool negate = false;  // !%p as a predicate source
  uint8_t count = 0;    // Vector: number of elements
  SReg sreg = SReg::TidX;
  uint32_t reg = kNoReg;
  uint32_t symbol = kNoSymbol;  // index into Module::symbols
  int64_t imm = 0;
  uint32_t vec[4] = {kNoReg, kNoReg, kNoReg, kNoReg};
  // Filled in when the module is loaded (exec/linker): what imm is relative to for Addr and
  // Symbol operands that name a symbol. Absolute: imm is the address (global/const) or the
  // shared-window offset (shared).
  enum class Base : uint8_t {
    Absolute,
    LocalFrame,
    ParamFrame,
    KernelParams,
    DynamicShared /* offset from the start of the kernel's dynamic shared memory */
  };
  Base base = Base::Absolute;
};

// ---------------------------------------------------------------------------------------------
// 3. Instructions
// ---------------------------------------------------------------------------------------------

struct Instr {
  Op op = Op::Nop;
  Type type = Type::None;   // the instruction's (destination) type
  Type type2 = Type::None;  // second type: cvt's source, set's source, slct's selector, ...
  Space space = Space::None;
  Sem sem = Sem::None;
  Scope scope = Scope::None;
  Cmp cmp = Cmp::None;
  BoolOp boolop = BoolOp::None;
  Rounding rnd = Rounding::None;
  MulMode mul = MulMode::None;
  AtomOp aop = AtomOp::None;
  BarKind bar = BarKind::None;
  BarRedOp barred = BarRedOp::None;
  ShflMode shfl = ShflMode::None;
  VoteMode vote = VoteMode::None;
  MatchMode match = MatchMode::None;
  ReduxOp redux = ReduxOp::None;
  ShfMode shf = ShfMode::None;
  PrmtMode prmt = PrmtMode::None;
  CvtaDir cvta = CvtaDir::None;
  uint8_t vec = 1;  // .v2/.v4 width of ld/st
  bool ftz = false, sat = false, approx = false, full = false;
  bool uni = false;       // bra.uni / call.uni
  bool nc = false;        // ld.global.nc
  bool aligned = false;   // bar.sync.aligned / barrier.sync.aligned
  bool has_cc = false;    // .cc carry flags (add.cc, addc): see exec for semantics
  bool carry_in = false;  // addc / subc / madc
  bool shiftamt = false;  // bfind.shiftamt
  bool noftz = false;
  bool relu = false;
  // Appended by the parser:
  TestpMode testp = TestpMode::None;
  bool nan = false;    // min/max.NaN: NaN in, NaN out
  bool proxy = false;  // fence.proxy.* (orders proxies, not threads; sem/scope may be None)
  bool clamp = false;  // bmsk/szext .clamp (false = .wrap)
  // Asynchronous copies and mbarriers:
  MbarOp mbar = MbarOp::None;
  bool parity = false;       // mbarrier.test_wait/try_wait.parity
  bool noinc = false;        // cp.async.mbarrier.arrive.noinc
  bool no_complete = false;  // mbarrier.arrive.noComplete
  bool expect_tx = false;    // mbarrier.arrive.expect_tx (src[1]: tx count)
  bool wait_all = false;     // cp.async.wait_all
  // Filled in when the module is loaded (exec/simulator.cpp calls annotate_for_exec), so that the
  // interpreter's step loop tests a bit instead of switching on the opcode; 0 until then. (They
  // sit in what was padding before `guard`, in the instruction's first cache line.)
  enum ExecFlag : uint8_t {
    kExecAnnotated = 1,  // the flags below are valid
    kExecPrivate = 2,    // touches only the lanes' own registers, params or local memory
    kExecPlain = 4,      // every lane of the group goes on to the next instruction (or a bra)
    kExecLdScalar = 8,   // ld/st of one register-sized value at [reg+imm] in shared/global/generic
    // No instruction after this one on any path of the function may acquire (a fence other than
    // fence.release, a barrier or warp synchronization, an acquire access, a call, a return to a
    // caller: anything but a computation, a branch, a non-acquire load or store or the kernel's
    // end) or read-modify-write (any atom or red: one could pass on a release): a morally strong
    // relaxed load here can never be part of an acquire pattern (the relaxed model lets it read a
    // store that waits for a release of a load-buffering plan, RelaxedModel::readable).
    kExecNoAcquireAfter = 16,
    // No instruction after this one on any path of the function may release (a release or
    // acq_rel store or read-modify-write, a fence other than fence.acquire, a barrier or warp
    // synchronization, a call, a return to a caller): a read here that is not a release itself
    // passes what it observed on to no other thread (the relaxed model lets it read a store that
    // a load-buffering plan holding back an acquiring read-modify-write ran early,
    // RelaxedModel::readable).
    kExecNoReleaseAfter = 32,
    // Neither this instruction nor any after it may release: a thread about to run it will never
    // release again (KernelRun::reorder_load's block_releases_no_more).
    kExecNoReleaseFrom = 64,
  };
  uint8_t exec = 0;
  uint8_t fast = 0;  // the interpreter's handler for this arithmetic form (0: the general path)

  // Guard predicate: @%p or @!%p. guard == Operand::kNoReg means always executed.
  uint32_t guard = Operand::kNoReg;
  bool guard_negated = false;

  // Destinations and sources in PTX order. Most instructions use dst[0] and src[0..2]; setp with
  // two destinations (p|q) uses dst[1]; shfl.sync's optional predicate output is dst[1].
  uint8_t ndst = 0, nsrc = 0;
  Operand dst[2];
  Operand src[5];

  // call: index into Function::calls.
  uint32_t call = 0xffffffffu;

  // Where it came from.
  uint32_t ptx_line = 0;  // 1-based line in the PTX text
  uint16_t file = 0;      // Module::files index of the CUDA source (0 = unknown)
  uint32_t line = 0;      // CUDA source line from the innermost .loc (0 = unknown)
  uint16_t col = 0;
  // The outermost source line when the instruction was inlined (.loc ... inlined_at): this is
  // the line in the student's file, the one reports show first. Same as file/line when not
  // inlined.
  uint16_t user_file = 0;
  uint32_t user_line = 0;
  // When user_line is inside an inlined function: the call site it was inlined at, an index into
  // Module::inline_frames (0: not inlined, or inlined into nothing but toolkit code).
  uint32_t inlined_at = 0;
  // The innermost source line is in a toolkit header (cooperative_groups, libcu++, CUB, ...).
  bool toolkit = false;
};

// Register uses, for the analyses that look ahead in the code (the init checker's "is this
// atomic's old value read", the relaxed model's load buffering): whether an operand names reg
// (as a register, an address's base or a vector element), whether an instruction reads reg (its
// guard or a source), whether it writes reg (a destination). kNoReg is never used.
bool operand_uses(const Operand& o, uint32_t reg);
bool reads_reg(const Instr& I, uint32_t reg);
bool writes_reg(const Instr& I, uint32_t reg);

// A call site: call (ret), callee, (args). The parameters are .param variables declared in the
// caller (usually inside a { } callseq block), given by symbol index, or registers for
// indirect-call targets.
struct CallSite {
  uint32_t callee = 0xffffffffu;          // Module::functions index; kNoReg if indirect
  uint32_t target_reg = Operand::kNoReg;  // indirect call through a register
  std::vector<uint32_t> rets;             // symbol indexes of the caller's .param return variables
  std::vector<uint32_t> args;             // symbol indexes (or registers when args_are_regs)
  std::vector<Operand> arg_ops;           // the arguments as written (symbol or register or immediate)
};

// ---------------------------------------------------------------------------------------------
// 4. Variables
// ---------------------------------------------------------------------------------------------

// A named variable: module-scope .global/.const/.shared (static or extern dynamic), function-scope
// .local/.shared, .param of an entry, of a .func, or of a call sequence.
struct Symbol {
  std::string name;
  Space space = Space::None;
  Type type = Type::None;  // element type
  uint32_t align = 1;
  uint64_t size = 0;  // bytes; 0 for extern unsized arrays (dynamic shared memory)
  bool is_extern = false;
  bool is_dynamic_shared = false;  // extern .shared x[]
  bool visible = false;
  int32_t function = -1;      // owning function for function-scope symbols, -1 at module scope
  std::vector<uint8_t> init;  // initializer bytes (global/const); empty when none
  // Initializer entries that are addresses of other symbols (generic(sym) or sym in
  // .u64 arrays): byte offset within init, symbol index, addend.
  // function == true: `symbol` is a Module::functions index (a function pointer, e.g. a
  // __device__ table of function pointers), not a Module::symbols index.
  struct AddrInit {
    uint64_t offset;
    uint32_t symbol;
    int64_t addend;
    bool generic;
    bool function = false;
  };
  std::vector<AddrInit> addr_inits;
  uint32_t decl_line = 0;  // PTX line of the declaration

  // Filled in by the layout step of the parser for function-relative spaces:
  //  Param of an entry: offset in the kernel parameter buffer;
  //  Param of a .func or call sequence: offset in the function's param frame;
  //  Local of a function: offset in the thread's local frame;
  //  Shared of any scope: offset in the CTA's static shared memory, laid out per kernel by the
  //  loader (Simulator::static_shared_bytes; dynamic shared memory starts after it, aligned).
  uint64_t offset = 0;
};

// ---------------------------------------------------------------------------------------------
// 5. Functions
// ---------------------------------------------------------------------------------------------

struct BasicBlock {
  uint32_t first = 0, last = 0;        // instruction index range [first, last]
  std::vector<uint32_t> succs, preds;  // block indexes
  int32_t ipdom = -1;                  // immediate post-dominator block, -1 = function exit
};

struct RegisterInfo {
  std::string name;  // as written, e.g. "%r12" or "%p3"
  Type type = Type::None;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool is_extern = false;  // declaration only (e.g. vprintf): a builtin or undefined
  bool visible = false;
  std::vector<uint32_t> params;  // symbol indexes, in order
  std::vector<uint32_t> rets;    // symbol indexes of return parameters (.func only)
  uint64_t param_bytes = 0;      // size of the parameter buffer (entry) / param frame (func)
  uint64_t local_bytes = 0;      // size of the per-thread local frame (.local variables)
  uint32_t local_align = 1;
  std::vector<RegisterInfo> regs;  // register file layout; the index is Operand::reg
  std::vector<Instr> code;
  std::vector<CallSite> calls;
  std::vector<BasicBlock> blocks;
  std::vector<uint32_t> block_of;  // instruction index -> block index
  // Reconvergence point of the branch at instruction i: the first instruction of the immediate
  // post-dominator of i's block, or kExitPc when it is the function's exit.
  static constexpr uint32_t kExitPc = 0xffffffffu;
  std::vector<uint32_t> reconverge_pc;  // per instruction (meaningful for branches)
  // Maximum thread count from .maxntid/.reqntid (0 = unspecified), .minnctapersm etc.
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t decl_line = 0;
  // Appended by the parser:
  // Size of the function's own parameters: for an entry the kernel parameter buffer that a
  // launch packs (param_bytes also counts the call-sequence .param variables laid out after it);
  // for a .func its params and return params.
  uint64_t own_param_bytes = 0;
  uint32_t minnctapersm = 0, maxnreg = 0;
  bool noreturn = false;  // .noreturn
  // brx.idx jump tables (.branchtargets): instruction indexes; brx's src[1].imm indexes this.
  std::vector<std::vector<uint32_t>> branch_tables;
};

// ---------------------------------------------------------------------------------------------
// 6. Module
// ---------------------------------------------------------------------------------------------

struct SourceFile {
  uint32_t id = 0;  // the number in .file N
  std::string path;
};

// One call site of an inlining chain (.loc ... inlined_at): a source line and the call site that
// one was inlined at in turn (parent, 0 for none). Entry 0 is "none".
struct InlineFrame {
  uint16_t file = 0;  // Module::files index
  uint32_t line = 0;
  uint32_t parent = 0;
};

struct Module {
  std::string origin;                             // where the text came from (for messages)
  uint32_t version_major = 0, version_minor = 0;  // .version
  std::string target;                             // .target, e.g. "sm_75"
  uint32_t address_size = 64;
  std::vector<Function> functions;
  std::vector<Symbol> symbols;                            // all variables, module- and function-scope
  std::vector<SourceFile> files;                          // index = Instr::file; files[0] is the unknown file
  std::vector<InlineFrame> inline_frames{InlineFrame{}};  // Instr::inlined_at chains
  // What each Op::Unsupported instruction is (Instr::call indexes this): "unsupported instruction
  // 'vabsdiff4.u32.u32.u32.add'", reported when a lane executes it.
  std::vector<std::string> unsupported;

  int find_function(const std::string& name) const {
    for (size_t i = 0; i < functions.size(); ++i)
      if (functions[i].name == name) return static_cast<int>(i);
    return -1;
  }
  int find_symbol(const std::string& name) const {
    for (size_t i = 0; i < symbols.size(); ++i)
      if (symbols[i].name == name && symbols[i].function < 0) return static_cast<int>(i);
    return -1;
  }
};

const char* op_name(Op op);
const char* type_name(Type t);

}  // namespace synclab::sim::ptx
