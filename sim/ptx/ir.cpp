// Names of IR enums for messages, dumps and tests.
#include "sim/ptx/ir.h"

namespace synclab::sim::ptx {

const char* op_name(Op op) {
  switch (op) {
    case Op::Nop: return "nop";
    case Op::Mov: return "mov";
    case Op::Ld: return "ld";
    case Op::Ldu: return "ldu";
    case Op::St: return "st";
    case Op::Cvta: return "cvta";
    case Op::Cvt: return "cvt";
    case Op::Prefetch: return "prefetch";
    case Op::Isspacep: return "isspacep";
    case Op::Add: return "add";
    case Op::Sub: return "sub";
    case Op::Mul: return "mul";
    case Op::Mad: return "mad";
    case Op::Mul24: return "mul24";
    case Op::Mad24: return "mad24";
    case Op::Sad: return "sad";
    case Op::Div: return "div";
    case Op::Rem: return "rem";
    case Op::Abs: return "abs";
    case Op::Neg: return "neg";
    case Op::Min: return "min";
    case Op::Max: return "max";
    case Op::Fma: return "fma";
    case Op::Rcp: return "rcp";
    case Op::Sqrt: return "sqrt";
    case Op::Rsqrt: return "rsqrt";
    case Op::Ex2: return "ex2";
    case Op::Lg2: return "lg2";
    case Op::Sin: return "sin";
    case Op::Cos: return "cos";
    case Op::Tanh: return "tanh";
    case Op::Copysign: return "copysign";
    case Op::Testp: return "testp";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Xor: return "xor";
    case Op::Not: return "not";
    case Op::Cnot: return "cnot";
    case Op::Lop3: return "lop3";
    case Op::Shl: return "shl";
    case Op::Shr: return "shr";
    case Op::Shf: return "shf";
    case Op::Popc: return "popc";
    case Op::Clz: return "clz";
    case Op::Brev: return "brev";
    case Op::Bfind: return "bfind";
    case Op::Bfe: return "bfe";
    case Op::Bfi: return "bfi";
    case Op::Prmt: return "prmt";
    case Op::Fns: return "fns";
    case Op::Dp4a: return "dp4a";
    case Op::Dp2a: return "dp2a";
    case Op::Setp: return "setp";
    case Op::Set: return "set";
    case Op::Selp: return "selp";
    case Op::Slct: return "slct";
    case Op::Bra: return "bra";
    case Op::Brx: return "brx";
    case Op::Call: return "call";
    case Op::Ret: return "ret";
    case Op::Exit: return "exit";
    case Op::Trap: return "trap";
    case Op::Brkpt: return "brkpt";
    case Op::Bar: return "bar";
    case Op::BarWarpSync: return "bar.warp.sync";
    case Op::Membar: return "membar";
    case Op::Fence: return "fence";
    case Op::Atom: return "atom";
    case Op::Red: return "red";
    case Op::Shfl: return "shfl";
    case Op::Vote: return "vote";
    case Op::Match: return "match";
    case Op::Activemask: return "activemask";
    case Op::CpAsync: return "cp.async";
    case Op::CpAsyncCommit: return "cp.async.commit_group";
    case Op::CpAsyncWait: return "cp.async.wait_group";
    case Op::CpAsyncMbarArrive: return "cp.async.mbarrier.arrive";
    case Op::Mbarrier: return "mbarrier";
    case Op::Unsupported: return "unsupported";
    case Op::Redux: return "redux";
    case Op::Elect: return "elect";
    case Op::Nanosleep: return "nanosleep";
    case Op::Pmevent: return "pmevent";
    case Op::Bmsk: return "bmsk";
    case Op::Szext: return "szext";
    case Op::Count_: break;
  }
  return "?";
}

const char* type_name(Type t) {
  switch (t) {
    case Type::None: return "";
    case Type::Pred: return "pred";
    case Type::B8: return "b8";
    case Type::B16: return "b16";
    case Type::B32: return "b32";
    case Type::B64: return "b64";
    case Type::B128: return "b128";
    case Type::U8: return "u8";
    case Type::U16: return "u16";
    case Type::U32: return "u32";
    case Type::U64: return "u64";
    case Type::S8: return "s8";
    case Type::S16: return "s16";
    case Type::S32: return "s32";
    case Type::S64: return "s64";
    case Type::F16: return "f16";
    case Type::F16x2: return "f16x2";
    case Type::BF16: return "bf16";
    case Type::BF16x2: return "bf16x2";
    case Type::F32: return "f32";
    case Type::F64: return "f64";
  }
  return "?";
}

bool operand_uses(const Operand& o, uint32_t reg) {
  if (reg == Operand::kNoReg) return false;
  switch (o.kind) {
    case Operand::Kind::Reg:
    case Operand::Kind::Addr: return o.reg == reg;
    case Operand::Kind::Vector:
      for (int k = 0; k < o.count; ++k)
        if (o.vec[k] == reg) return true;
      return false;
    default: return false;
  }
}

bool reads_reg(const Instr& I, uint32_t reg) {
  if (I.guard == reg && reg != Operand::kNoReg) return true;
  for (int k = 0; k < I.nsrc; ++k)
    if (operand_uses(I.src[k], reg)) return true;
  return false;
}

bool writes_reg(const Instr& I, uint32_t reg) {
  for (int k = 0; k < I.ndst; ++k)
    if (operand_uses(I.dst[k], reg)) return true;
  return false;
}

}  // namespace synclab::sim::ptx
