// PTX parser: tokens -> Module. One pass over the tokens; names are resolved as they are read
// (PTX declares everything before use), except labels, which are fixed up when their { } scope
// closes. Layout (param/local/shared offsets) and the line table are filled in as declarations
// and .loc directives are met; .file numbers are mapped to Module::files at the end because
// nvcc writes the .file directives after the code.
//
// Where things are (the sections below, in this order):
//   Limits              bounds that keep hostile input from exhausting memory
//   Numbers             integer and float literals (0f, 0d, decimal)
//   Modifier vocabulary .type, state space, memory order, scope, comparison and rounding words
//   Instruction table   opcode -> OpDesc: its operands' shape and what each modifier may be
//   Parser state        class Parser: the token cursor, scopes, labels, registers, the module
//   Module level        run: the directives (.version, .target, .file, ...); variables and their initializers
//                       (parse_variable, place_symbol, parse_init_*); functions and their
//                       parameters (parse_function, parse_param_decl, parse_perf_directives)
//   Function bodies     parse_body; scopes and labels (close_scope, parse_label, add_label_ref);
//                       .reg and .loc (parse_reg_decl, parse_loc); operands (lookup_reg,
//                       resolve_value, parse_operand(s)); one instruction (parse_instruction ->
//                       place_operands) and the forms with rules of their own (parse_bar,
//                       parse_cp_async, parse_mbarrier, parse_call)
//   End of module       resolve_files: .file numbers -> Module::files
#include "sim/ptx/parser.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "sim/ptx/cfg.h"
#include "sim/ptx/lexer.h"

namespace synclab::sim::ptx {

namespace {

std::string cuda_suffix(const std::string& file, uint32_t line) {
  if (file.empty() || line == 0) return "";
  return " (CUDA source " + file + ":" + std::to_string(line) + ")";
}

}  // namespace

ParseError::ParseError(std::string origin_, uint32_t ptx_line_, std::string cuda_file_, uint32_t cuda_line_,
                       const std::string& message_)
    : std::runtime_error(origin_ + (ptx_line_ ? ":" + std::to_string(ptx_line_) : std::string()) + ": " + message_ +
                         cuda_suffix(cuda_file_, cuda_line_)),
      origin(std::move(origin_)),
      ptx_line(ptx_line_),
      cuda_file(std::move(cuda_file_)),
      cuda_line(cuda_line_),
      message(message_) {}

std::string unsupported_message(const Module& m, const Instr& in) {
  const std::string what =
      in.op == Op::Unsupported && in.call < m.unsupported.size() ? m.unsupported[in.call] : "unsupported instruction";
  const std::string file = in.user_file < m.files.size() ? m.files[in.user_file].path : "";
  return ParseError(m.origin, in.ptx_line, file, file.empty() ? 0 : in.user_line, what).what();
}

namespace {

// ---------------------------------------------------------------------------------------------
// Limits that keep hostile input from exhausting memory.
// ---------------------------------------------------------------------------------------------
constexpr uint64_t kMaxRegRange = 1u << 20;  // one .reg %r<N>
constexpr uint64_t kMaxRegsPerFunction = 1u << 21;
constexpr uint64_t kMaxVariableBytes = 1ull << 40;     // any declared variable
constexpr uint64_t kMaxInitializedBytes = 1ull << 26;  // variables with an initializer (64 MiB)
constexpr int kMaxInitDepth = 16;

// Internal error: the line and message; parse_module adds origin and CUDA location.
struct Fail {
  uint32_t line;
  std::string msg;
};

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

// What kind of literal a number was: integer, 0f (f32 bits), 0d (f64 bits), decimal float
// (stored as f64 bits).
enum class Lit : uint8_t { Int, F32, F64, Dec };

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Integer literal: decimal, 0x hex, 0b binary, leading-0 octal; optional U suffix.
bool parse_uint(std::string_view t, uint64_t& v) {
  if (t.empty()) return false;
  if (t.back() == 'U' || t.back() == 'u') t.remove_suffix(1);
  if (t.empty()) return false;
  unsigned base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  } else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) {
    base = 2;
    t.remove_prefix(2);
  } else if (t.size() > 1 && t[0] == '0') {
    base = 8;
    t.remove_prefix(1);
  }
  v = 0;
  for (char c : t) {
    int d = hex_digit(c);
    if (d < 0 || static_cast<unsigned>(d) >= base) return false;
    if (v > (std::numeric_limits<uint64_t>::max() - d) / base) return false;
    v = v * base + d;
  }
  return true;
}

bool parse_number(std::string_view t, uint64_t& bits, Lit& kind) {
  if (t.size() >= 2 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F' || t[1] == 'd' || t[1] == 'D')) {
    bool f32 = t[1] == 'f' || t[1] == 'F';
    std::string_view h = t.substr(2);
    if (h.size() != (f32 ? 8u : 16u)) return false;
    bits = 0;
    for (char c : h) {
      int d = hex_digit(c);
      if (d < 0) return false;
      bits = bits << 4 | static_cast<uint64_t>(d);
    }
    kind = f32 ? Lit::F32 : Lit::F64;
    return true;
  }
  if (parse_uint(t, bits)) {
    kind = Lit::Int;
    return true;
  }
  // Decimal float: digits, one '.', optional exponent.
  bool digits = false, dot = false, exp = false;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c >= '0' && c <= '9')
      digits = true;
    else if (c == '.' && !dot && !exp)
      dot = true;
    else if ((c == 'e' || c == 'E') && digits && !exp) {
      exp = true;
      if (i + 1 < t.size() && (t[i + 1] == '+' || t[i + 1] == '-')) ++i;
      if (i + 1 >= t.size()) return false;
    } else
      return false;
  }
  if (!digits || (!dot && !exp)) return false;
  double d = std::strtod(std::string(t).c_str(), nullptr);
  std::memcpy(&bits, &d, 8);
  kind = Lit::Dec;
  return true;
}

uint64_t f64_bits_to_f32_bits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  float f = static_cast<float>(d);
  uint32_t r;
  std::memcpy(&r, &f, 4);
  return r;
}
uint64_t f32_bits_to_f64_bits(uint64_t b) {
  uint32_t u = static_cast<uint32_t>(b);
  float f;
  std::memcpy(&f, &u, 4);
  double d = f;
  uint64_t r;
  std::memcpy(&r, &d, 8);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Modifier vocabulary
// ---------------------------------------------------------------------------------------------

bool word_type(std::string_view w, Type& t) {
  static const std::unordered_map<std::string_view, Type> kTypes = {
      {"pred", Type::Pred},   {"b8", Type::B8},     {"b16", Type::B16},       {"b32", Type::B32}, {"b64", Type::B64},
      {"b128", Type::B128},   {"u8", Type::U8},     {"u16", Type::U16},       {"u32", Type::U32}, {"u64", Type::U64},
      {"s8", Type::S8},       {"s16", Type::S16},   {"s32", Type::S32},       {"s64", Type::S64}, {"f16", Type::F16},
      {"f16x2", Type::F16x2}, {"bf16", Type::BF16}, {"bf16x2", Type::BF16x2}, {"f32", Type::F32}, {"f64", Type::F64}};
  auto it = kTypes.find(w);
  if (it == kTypes.end()) return false;
  t = it->second;
  return true;
}

bool word_space(std::string_view w, Space& s) {
  if (w == "global")
    s = Space::Global;
  else if (w == "shared" || w == "shared::cta")
    s = Space::Shared;
  else if (w == "shared::cluster")
    s = Space::SharedCluster;
  else if (w == "local")
    s = Space::Local;
  else if (w == "param" || w == "param::entry" || w == "param::func")
    s = Space::Param;
  else if (w == "const")
    s = Space::Const;
  else
    return false;
  return true;
}

bool word_sem(std::string_view w, Sem& s) {
  if (w == "weak")
    s = Sem::Weak;
  else if (w == "volatile")
    s = Sem::Volatile;
  else if (w == "relaxed")
    s = Sem::Relaxed;
  else if (w == "acquire")
    s = Sem::Acquire;
  else if (w == "release")
    s = Sem::Release;
  else if (w == "acq_rel")
    s = Sem::AcqRel;
  else if (w == "sc")
    s = Sem::Sc;
  else if (w == "mmio")
    s = Sem::Mmio;
  else
    return false;
  return true;
}

bool word_scope(std::string_view w, Scope& s) {
  if (w == "cta")
    s = Scope::Cta;
  else if (w == "cluster")
    s = Scope::Cluster;
  else if (w == "gpu")
    s = Scope::Gpu;
  else if (w == "sys")
    s = Scope::Sys;
  else
    return false;
  return true;
}

bool word_rnd(std::string_view w, Rounding& r) {
  static const std::unordered_map<std::string_view, Rounding> k = {
      {"rn", Rounding::Rn},   {"rz", Rounding::Rz},   {"rm", Rounding::Rm},   {"rp", Rounding::Rp},
      {"rni", Rounding::Rni}, {"rzi", Rounding::Rzi}, {"rmi", Rounding::Rmi}, {"rpi", Rounding::Rpi},
      {"rna", Rounding::Rna}, {"rs", Rounding::Rs}};
  auto it = k.find(w);
  if (it == k.end()) return false;
  r = it->second;
  return true;
}

bool word_cmp(std::string_view w, Cmp& c) {
  static const std::unordered_map<std::string_view, Cmp> k = {
      {"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},   {"le", Cmp::Le},   {"gt", Cmp::Gt},   {"ge", Cmp::Ge},
      {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},   {"hs", Cmp::Hs},   {"equ", Cmp::Equ}, {"neu", Cmp::Neu},
      {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu}, {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan}};
  auto it = k.find(w);
  if (it == k.end()) return false;
  c = it->second;
  return true;
}

bool word_aop(std::string_view w, AtomOp& a) {
  static const std::unordered_map<std::string_view, AtomOp> k = {
      {"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max}, {"inc", AtomOp::Inc},   {"dec", AtomOp::Dec},
      {"and", AtomOp::And}, {"or", AtomOp::Or},   {"xor", AtomOp::Xor}, {"exch", AtomOp::Exch}, {"cas", AtomOp::Cas}};
  auto it = k.find(w);
  if (it == k.end()) return false;
  a = it->second;
  return true;
}

// Cache and eviction hints: accepted, no effect on the simulation.
bool word_cache_hint(std::string_view w) {
  static const std::unordered_set<std::string_view> k = {"ca", "cg", "cs", "lu", "cv", "wb", "wt"};
  return k.count(w) || w.substr(0, 4) == "L1::" || w.substr(0, 4) == "L2::" || w == "L1" || w == "L2";
}

// Special registers of the PTX ISA that the simulator does not model (thread block clusters,
// performance monitors, ...): an instruction that reads one is unsupported, the module still loads.
bool unmodelled_sreg(std::string_view w) {
  static const char* const prefixes[] = {
      "%cluster_",       "%clusterid",          "%nclusterid", "%is_explicit_cluster",
      "%aggr_smem_size", "%current_graph_exec", "%pm"};
  for (const char* p : prefixes)
    if (w.substr(0, std::strlen(p)) == p) return true;
  return false;
}

bool word_sreg(std::string_view w, SReg& s) {
  static const std::unordered_map<std::string_view, SReg> k = {{"%tid.x", SReg::TidX},
                                                               {"%tid.y", SReg::TidY},
                                                               {"%tid.z", SReg::TidZ},
                                                               {"%ntid.x", SReg::NtidX},
                                                               {"%ntid.y", SReg::NtidY},
                                                               {"%ntid.z", SReg::NtidZ},
                                                               {"%ctaid.x", SReg::CtaidX},
                                                               {"%ctaid.y", SReg::CtaidY},
                                                               {"%ctaid.z", SReg::CtaidZ},
                                                               {"%nctaid.x", SReg::NctaidX},
                                                               {"%nctaid.y", SReg::NctaidY},
                                                               {"%nctaid.z", SReg::NctaidZ},
                                                               {"%laneid", SReg::LaneId},
                                                               {"%warpid", SReg::WarpId},
                                                               {"%nwarpid", SReg::NWarpId},
                                                               {"%smid", SReg::SmId},
                                                               {"%nsmid", SReg::NSmId},
                                                               {"%gridid", SReg::GridId},
                                                               {"%lanemask_eq", SReg::LanemaskEq},
                                                               {"%lanemask_le", SReg::LanemaskLe},
                                                               {"%lanemask_lt", SReg::LanemaskLt},
                                                               {"%lanemask_ge", SReg::LanemaskGe},
                                                               {"%lanemask_gt", SReg::LanemaskGt},
                                                               {"%clock", SReg::Clock},
                                                               {"%clock_hi", SReg::ClockHi},
                                                               {"%clock64", SReg::Clock64},
                                                               {"%globaltimer", SReg::GlobalTimer},
                                                               {"%globaltimer_lo", SReg::GlobalTimerLo},
                                                               {"%globaltimer_hi", SReg::GlobalTimerHi},
                                                               {"%dynamic_smem_size", SReg::DynamicSmemSize},
                                                               {"%total_smem_size", SReg::TotalSmemSize},
                                                               {"%reserved_smem_offset_begin", SReg::ReservedSmemBegin},
                                                               {"%reserved_smem_offset_end", SReg::ReservedSmemEnd},
                                                               {"%reserved_smem_offset_cap", SReg::ReservedSmemCap},
                                                               {"%reserved_smem_offset_0", SReg::ReservedSmemOffset0},
                                                               {"%reserved_smem_offset_1", SReg::ReservedSmemOffset1}};
  auto it = k.find(w);
  if (it != k.end()) {
    s = it->second;
    return true;
  }
  if (w.substr(0, 7) == "%envreg" && w.size() > 7 && w.size() <= 9) {
    uint64_t n;
    if (!parse_uint(w.substr(7), n) || n >= 32 || (w.size() == 9 && w[7] == '0')) return false;
    s = static_cast<SReg>(static_cast<unsigned>(SReg::EnvReg0) + n);
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Instruction table
// ---------------------------------------------------------------------------------------------

// Modifier categories an opcode accepts generically (op-specific words are handled apart).
enum : uint32_t {
  kType = 1u << 0,
  kSpace = 1u << 1,
  kSem = 1u << 2,
  kScope = 1u << 3,
  kRnd = 1u << 4,
  kFtz = 1u << 5,
  kSat = 1u << 6,
  kApprox = 1u << 7,
  kVec = 1u << 8,
  kCache = 1u << 9,
  kUni = 1u << 10,
  kCc = 1u << 11,
  kMulMode = 1u << 12,
  kCmp = 1u << 13,
  kBool = 1u << 14,
  kRelu = 1u << 15,
};
// Shape flags.
enum : uint8_t {
  fAddr0 = 1,     // src[0] must be an [address]
  fDual = 2,      // dst may be written "a|b"
  fTypes2 = 4,    // takes two types: type, type2
  fCarryIn = 8,   // addc/subc/madc
  fSpecial = 16,  // operands parsed by a dedicated routine (bra, brx, call, bar)
};

struct OpDesc {
  Op op;
  uint8_t ndst, min_src, max_src;
  uint32_t cats;
  uint8_t flags;
};

const uint32_t kMem = kType | kSpace | kSem | kScope | kVec | kCache;
const uint32_t kFloat = kRnd | kFtz | kSat;

const std::unordered_map<std::string_view, OpDesc>& op_table() {
  static const std::unordered_map<std::string_view, OpDesc> t = {
      {"mov", {Op::Mov, 1, 1, 1, kType, 0}},
      {"ld", {Op::Ld, 1, 1, 2, kMem, fAddr0}},
      {"ldu", {Op::Ldu, 1, 1, 1, kMem, fAddr0}},
      {"st", {Op::St, 0, 2, 3, kMem, fAddr0}},
      {"cvta", {Op::Cvta, 1, 1, 1, kType | kSpace, 0}},
      {"cvt", {Op::Cvt, 1, 1, 2, kType | kFloat | kRelu, fTypes2}},
      {"prefetch", {Op::Prefetch, 0, 1, 1, kSpace | kCache, fAddr0}},
      {"prefetchu", {Op::Prefetch, 0, 1, 1, kSpace | kCache, fAddr0}},
      {"isspacep", {Op::Isspacep, 1, 1, 1, kSpace, 0}},
      {"add", {Op::Add, 1, 2, 2, kType | kFloat | kCc | kRelu, 0}},
      {"addc", {Op::Add, 1, 2, 2, kType | kCc, fCarryIn}},
      {"sub", {Op::Sub, 1, 2, 2, kType | kFloat | kCc | kRelu, 0}},
      {"subc", {Op::Sub, 1, 2, 2, kType | kCc, fCarryIn}},
      {"mul", {Op::Mul, 1, 2, 2, kType | kFloat | kMulMode | kRelu, 0}},
      {"mad", {Op::Mad, 1, 3, 3, kType | kFloat | kMulMode | kCc, 0}},
      {"madc", {Op::Mad, 1, 3, 3, kType | kMulMode | kCc, fCarryIn}},
      {"mul24", {Op::Mul24, 1, 2, 2, kType | kMulMode, 0}},
      {"mad24", {Op::Mad24, 1, 3, 3, kType | kMulMode | kSat, 0}},
      {"sad", {Op::Sad, 1, 3, 3, kType, 0}},
      {"div", {Op::Div, 1, 2, 2, kType | kRnd | kFtz | kApprox, 0}},
      {"rem", {Op::Rem, 1, 2, 2, kType, 0}},
      {"abs", {Op::Abs, 1, 1, 1, kType | kFtz, 0}},
      {"neg", {Op::Neg, 1, 1, 1, kType | kFtz, 0}},
      {"min", {Op::Min, 1, 2, 3, kType | kFtz | kRelu, 0}},
      {"max", {Op::Max, 1, 2, 3, kType | kFtz | kRelu, 0}},
      {"fma", {Op::Fma, 1, 3, 3, kType | kFloat | kRelu, 0}},
      {"rcp", {Op::Rcp, 1, 1, 1, kType | kRnd | kFtz | kApprox, 0}},
      {"sqrt", {Op::Sqrt, 1, 1, 1, kType | kRnd | kFtz | kApprox, 0}},
      {"rsqrt", {Op::Rsqrt, 1, 1, 1, kType | kFtz | kApprox, 0}},
      {"ex2", {Op::Ex2, 1, 1, 1, kType | kFtz | kApprox, 0}},
      {"lg2", {Op::Lg2, 1, 1, 1, kType | kFtz | kApprox, 0}},
      {"sin", {Op::Sin, 1, 1, 1, kType | kFtz | kApprox, 0}},
      {"cos", {Op::Cos, 1, 1, 1, kType | kFtz | kApprox, 0}},
      {"tanh", {Op::Tanh, 1, 1, 1, kType | kApprox, 0}},
      {"copysign", {Op::Copysign, 1, 2, 2, kType, 0}},
      {"testp", {Op::Testp, 1, 1, 1, kType, 0}},
      {"and", {Op::And, 1, 2, 2, kType, 0}},
      {"or", {Op::Or, 1, 2, 2, kType, 0}},
      {"xor", {Op::Xor, 1, 2, 2, kType, 0}},
      {"not", {Op::Not, 1, 1, 1, kType, 0}},
      {"cnot", {Op::Cnot, 1, 1, 1, kType, 0}},
      {"lop3", {Op::Lop3, 1, 4, 4, kType, 0}},
      {"shl", {Op::Shl, 1, 2, 2, kType, 0}},
      {"shr", {Op::Shr, 1, 2, 2, kType, 0}},
      {"shf", {Op::Shf, 1, 3, 3, kType, 0}},
      {"popc", {Op::Popc, 1, 1, 1, kType, 0}},
      {"clz", {Op::Clz, 1, 1, 1, kType, 0}},
      {"brev", {Op::Brev, 1, 1, 1, kType, 0}},
      {"bfind", {Op::Bfind, 1, 1, 1, kType, 0}},
      {"bfe", {Op::Bfe, 1, 3, 3, kType, 0}},
      {"bfi", {Op::Bfi, 1, 4, 4, kType, 0}},
      {"prmt", {Op::Prmt, 1, 3, 3, kType, 0}},
      {"fns", {Op::Fns, 1, 3, 3, kType, 0}},
      {"dp4a", {Op::Dp4a, 1, 3, 3, kType, fTypes2}},
      {"dp2a", {Op::Dp2a, 1, 3, 3, kType, fTypes2}},
      {"bmsk", {Op::Bmsk, 1, 2, 2, kType, 0}},
      {"szext", {Op::Szext, 1, 2, 2, kType, 0}},
      {"setp", {Op::Setp, 1, 2, 3, kType | kCmp | kBool | kFtz, fDual}},
      {"set", {Op::Set, 1, 2, 3, kType | kCmp | kBool | kFtz, fTypes2}},
      {"selp", {Op::Selp, 1, 3, 3, kType, 0}},
      {"slct", {Op::Slct, 1, 3, 3, kType | kFtz, fTypes2}},
      {"bra", {Op::Bra, 0, 1, 1, kUni, fSpecial}},
      {"brx", {Op::Brx, 0, 2, 2, kUni, fSpecial}},
      {"call", {Op::Call, 0, 0, 0, kUni, fSpecial}},
      {"ret", {Op::Ret, 0, 0, 0, kUni, 0}},
      {"exit", {Op::Exit, 0, 0, 0, 0, 0}},
      {"trap", {Op::Trap, 0, 0, 0, 0, 0}},
      {"brkpt", {Op::Brkpt, 0, 0, 0, 0, 0}},
      {"bar", {Op::Bar, 0, 1, 3, kType, fSpecial}},
      {"barrier", {Op::Bar, 0, 1, 3, kType, fSpecial}},
      {"membar", {Op::Membar, 0, 0, 0, 0, 0}},
      {"fence", {Op::Fence, 0, 0, 0, kSem | kScope, 0}},
      {"atom", {Op::Atom, 1, 2, 3, kMem, fAddr0}},
      {"red", {Op::Red, 0, 2, 2, kMem, fAddr0}},
      {"shfl", {Op::Shfl, 1, 4, 4, kType, fDual}},
      {"vote", {Op::Vote, 1, 2, 2, kType, 0}},
      {"match", {Op::Match, 1, 2, 2, kType, fDual}},
      {"activemask", {Op::Activemask, 1, 0, 0, kType, 0}},
      {"redux", {Op::Redux, 1, 2, 2, kType, 0}},
      {"elect", {Op::Elect, 1, 1, 1, 0, fDual}},
      {"nanosleep", {Op::Nanosleep, 0, 1, 1, kType, 0}},
      {"pmevent", {Op::Pmevent, 0, 1, 1, 0, 0}},
      {"cp", {Op::CpAsync, 0, 0, 0, 0, fSpecial}},         // cp.async.*: parse_cp_async
      {"mbarrier", {Op::Mbarrier, 0, 0, 0, 0, fSpecial}},  // parse_mbarrier
  };
  return t;
}

// Words only some opcodes take (atom's operation, shfl's mode, ...). Returns false when `w`
// is not one of them.
bool op_modifier(Instr& in, std::string_view w, bool& has_sync, bool& skip_rest) {
  switch (in.op) {
    case Op::Ld:
      if (w != "nc") return false;
      in.nc = true;
      return true;
    case Op::Cvta:
      if (w != "to") return false;
      in.cvta = CvtaDir::FromGeneric;
      return true;
    case Op::Atom:
    case Op::Red:
      if (w == "noftz") {
        in.noftz = true;
        return true;
      }
      return word_aop(w, in.aop);
    case Op::Div:
    case Op::Rcp:
    case Op::Sqrt:
      if (w != "full") return false;
      in.full = true;
      return true;
    case Op::Min:
    case Op::Max:
      if (w != "NaN") return false;
      in.nan = true;
      return true;
    case Op::Bfind:
      if (w != "shiftamt") return false;
      in.shiftamt = true;
      return true;
    case Op::Brx: return w == "idx";
    case Op::Dp2a:
      if (w != "lo" && w != "hi") return false;
      in.mul = w == "lo" ? MulMode::Lo : MulMode::Hi;
      return true;
    case Op::Bmsk:
    case Op::Szext:
      if (w != "clamp" && w != "wrap") return false;
      in.clamp = w == "clamp";
      return true;
    case Op::Shf:  // .l/.r then .wrap/.clamp
      if (w == "l")
        in.shf = ShfMode::LWrap;
      else if (w == "r")
        in.shf = ShfMode::RWrap;
      else if (w == "clamp" && in.shf == ShfMode::LWrap)
        in.shf = ShfMode::LClamp;
      else if (w == "clamp" && in.shf == ShfMode::RWrap)
        in.shf = ShfMode::RClamp;
      else if (w != "wrap" || in.shf == ShfMode::None)
        return false;
      return true;
    case Op::Prmt: {
      static const std::unordered_map<std::string_view, PrmtMode> k = {
          {"f4e", PrmtMode::F4e}, {"b4e", PrmtMode::B4e}, {"rc8", PrmtMode::Rc8},
          {"ecl", PrmtMode::Ecl}, {"ecr", PrmtMode::Ecr}, {"rc16", PrmtMode::Rc16}};
      auto it = k.find(w);
      if (it == k.end()) return false;
      in.prmt = it->second;
      return true;
    }
    case Op::Testp: {
      static const std::unordered_map<std::string_view, TestpMode> k = {
          {"finite", TestpMode::Finite}, {"infinite", TestpMode::Infinite},
          {"number", TestpMode::Number}, {"notanumber", TestpMode::NotANumber},
          {"normal", TestpMode::Normal}, {"subnormal", TestpMode::Subnormal}};
      auto it = k.find(w);
      if (it == k.end()) return false;
      in.testp = it->second;
      return true;
    }
    case Op::Membar:  // membar.gl is the GPU scope
      if (w == "cta")
        in.scope = Scope::Cta;
      else if (w == "gl")
        in.scope = Scope::Gpu;
      else if (w == "sys")
        in.scope = Scope::Sys;
      else if (w == "proxy") {
        in.proxy = true;
        skip_rest = true;
      } else
        return false;
      return true;
    case Op::Fence:  // fence.proxy.<kind>...: the proxy kinds do not matter to the simulator
      if (w != "proxy" && w != "mbarrier_init") return false;
      in.proxy = true;
      skip_rest = true;
      return true;
    case Op::Shfl:
      if (w == "sync")
        has_sync = true;
      else if (w == "up")
        in.shfl = ShflMode::Up;
      else if (w == "down")
        in.shfl = ShflMode::Down;
      else if (w == "bfly")
        in.shfl = ShflMode::Bfly;
      else if (w == "idx")
        in.shfl = ShflMode::Idx;
      else
        return false;
      return true;
    case Op::Vote:
      if (w == "sync")
        has_sync = true;
      else if (w == "all")
        in.vote = VoteMode::All;
      else if (w == "any")
        in.vote = VoteMode::Any;
      else if (w == "uni")
        in.vote = VoteMode::Uni;
      else if (w == "ballot")
        in.vote = VoteMode::Ballot;
      else
        return false;
      return true;
    case Op::Match:
      if (w == "sync")
        has_sync = true;
      else if (w == "any")
        in.match = MatchMode::Any;
      else if (w == "all")
        in.match = MatchMode::All;
      else
        return false;
      return true;
    case Op::Elect:
      if (w != "sync") return false;
      has_sync = true;
      return true;
    case Op::Redux: {
      static const std::unordered_map<std::string_view, ReduxOp> k = {{"add", ReduxOp::Add}, {"min", ReduxOp::Min},
                                                                      {"max", ReduxOp::Max}, {"and", ReduxOp::And},
                                                                      {"or", ReduxOp::Or},   {"xor", ReduxOp::Xor}};
      if (w == "sync") {
        has_sync = true;
        return true;
      }
      auto it = k.find(w);
      if (it == k.end()) return false;
      in.redux = it->second;
      return true;
    }
    case Op::Setp:
    case Op::Set:  // .cmp then optional .and/.or/.xor
      if (in.cmp == Cmp::None) return word_cmp(w, in.cmp);
      if (w == "and")
        in.boolop = BoolOp::And;
      else if (w == "or")
        in.boolop = BoolOp::Or;
      else if (w == "xor")
        in.boolop = BoolOp::Xor;
      else
        return false;
      return true;
    default: return false;
  }
}

// Modifiers shared by many opcodes, in the categories `cats` allows; types are collected in
// order (cvt.f32.s32: destination, source).
bool generic_modifier(Instr& in, uint32_t cats, std::string_view w, Type (&types)[3], int& ntypes) {
  Type ty;
  Space sp;
  if ((cats & kType) && word_type(w, ty)) {
    if (ntypes == 3) return false;
    types[ntypes++] = ty;
  } else if ((cats & kSpace) && word_space(w, sp))
    in.space = sp;
  else if ((cats & kSem) && word_sem(w, in.sem)) {
  } else if ((cats & kScope) && word_scope(w, in.scope)) {
  } else if ((cats & kRnd) && word_rnd(w, in.rnd)) {
  } else if ((cats & kFtz) && w == "ftz")
    in.ftz = true;
  else if ((cats & kSat) && (w == "sat" || w == "satfinite"))
    in.sat = true;
  else if ((cats & kApprox) && w == "approx")
    in.approx = true;
  else if ((cats & kRelu) && w == "relu")
    in.relu = true;
  else if ((cats & kVec) && (w == "v2" || w == "v4" || w == "v8"))
    in.vec = static_cast<uint8_t>(w[1] - '0');
  else if ((cats & kCache) && word_cache_hint(w)) {
  } else if ((cats & kUni) && w == "uni")
    in.uni = true;
  else if ((cats & kCc) && w == "cc")
    in.has_cc = true;
  else if ((cats & kMulMode) && (w == "lo" || w == "hi" || w == "wide"))
    in.mul = w == "lo" ? MulMode::Lo : w == "hi" ? MulMode::Hi : MulMode::Wide;
  else
    return false;
  return true;
}

// Defaults and required parts once all modifiers are read: nullptr when complete, else why not.
const char* complete(Instr& in) {
  switch (in.op) {
    case Op::Ld:
    case Op::Ldu:
    case Op::St:
    case Op::Atom:
    case Op::Red:
    case Op::Prefetch:
      if (in.space == Space::None) in.space = Space::Generic;  // no space: generic addressing
      if ((in.op == Op::Atom || in.op == Op::Red) && in.aop == AtomOp::None) return "has no operation";
      return nullptr;
    case Op::Cvta:
      if (in.space == Space::None) return "needs a state space";
      if (in.cvta == CvtaDir::None) in.cvta = CvtaDir::ToGeneric;
      return nullptr;
    case Op::Isspacep: return in.space == Space::None ? "needs a state space" : nullptr;
    case Op::Shfl: return in.shfl == ShflMode::None ? "has no mode" : nullptr;
    case Op::Vote: return in.vote == VoteMode::None ? "has no mode" : nullptr;
    case Op::Match: return in.match == MatchMode::None ? "has no mode" : nullptr;
    case Op::Redux: return in.redux == ReduxOp::None ? "has no operation" : nullptr;
    case Op::Setp:
    case Op::Set: return in.cmp == Cmp::None ? "has no comparison" : nullptr;
    case Op::Shf: return in.shf == ShfMode::None ? "has no direction" : nullptr;
    case Op::Testp: return in.testp == TestpMode::None ? "has no test" : nullptr;
    case Op::Membar: return in.scope == Scope::None && !in.proxy ? "has no level" : nullptr;
    case Op::Fence: return in.sem == Sem::None && !in.proxy ? "has no ordering" : nullptr;
    default: return nullptr;
  }
}

// ---------------------------------------------------------------------------------------------
// Parser state
// ---------------------------------------------------------------------------------------------

// A pending use of a label inside a function: resolved when the { } scope that defines the
// label closes (labels are block-scoped in PTX, so two inline-asm blocks may both use "DONE").
struct LabelRef {
  enum Kind : uint8_t { InstrOperand, TableEntry, TableRef } kind;
  std::string_view name;
  uint32_t line;
  uint32_t a, b;  // InstrOperand/TableRef: instr, src index; TableEntry: table, entry
};
struct LabelDef {
  bool is_table;
  uint32_t value;  // instruction index or branch table index
};

// One { } scope of a function body (the outermost holds the function's parameters).
struct NameScope {
  std::unordered_map<std::string_view, uint32_t> regs;                         // single names
  std::unordered_map<std::string_view, std::pair<uint32_t, uint32_t>> ranges;  // %r<N>: base, N
  std::unordered_map<std::string_view, uint32_t> syms;
  std::unordered_map<std::string_view, LabelDef> labels;
  std::unordered_set<std::string_view> protos;  // .callprototype / .calltargets names
  std::vector<LabelRef> pending;
  uint32_t open_line = 0;
};

// The .loc state: file numbers as written in .file (mapped to Module::files at the end).
struct Loc {
  uint32_t file = 0, line = 0, col = 0, ufile = 0, uline = 0;
  uint32_t node = 0;  // LocNode of this location (its inlining chain)
};

// One frame of an inlining chain: the location and the call site it was inlined at (parent, 0
// for none). Node 0 is "no location".
struct LocNode {
  uint32_t file = 0, line = 0, parent = 0;
};

// An operand as parsed, before it is placed in dst/src.
struct POp {
  Operand op;
  Operand second;  // "a|b": b
  bool has_second = false;
  Lit lit = Lit::Int;
  uint32_t line = 0;
  std::string_view label;  // Label operands: the name, resolved when its scope closes
};

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

class Parser {
 public:
  Parser(std::string_view text, const std::string& origin) : text_(text) { m_.origin = origin; }

  Module run();

  // Location of the failure, for the error message.
  Loc loc() const { return loc_; }
  bool have_unsupported() const { return unsupported_count_ > 0; }
  const Fail& first_unsupported() const { return first_unsupported_; }
  Loc first_unsupported_loc() const { return first_unsupported_loc_; }
  uint32_t unsupported_count() const { return unsupported_count_; }

 private:
  // ---- tokens ----
  const Token& peek(size_t k = 0) const {
    size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (t.kind != Tok::End) ++pos_;
    return t;
  }
  bool accept(char c) {
    if (peek().is(c)) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool accept_word(std::string_view w) {
    if (peek().is(w)) {
      ++pos_;
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const Token& t, const std::string& msg) const {
    if (t.kind == Tok::End) throw Fail{t.line, "unexpected end of input (truncated PTX?): " + msg};
    throw Fail{t.line, msg};
  }
  [[noreturn]] void fail_at(uint32_t line, const std::string& msg) const { throw Fail{line, msg}; }
  static std::string show(const Token& t) {
    if (t.kind == Tok::End) return "end of input";
    return "'" + std::string(t.text.substr(0, 60)) + "'";
  }
  void expect(char c, const char* where) {
    if (!accept(c)) fail(peek(), std::string("expected '") + c + "' " + where + ", found " + show(peek()));
  }
  std::string_view expect_word(const char* what) {
    const Token& t = peek();
    if (t.kind != Tok::Word) fail(t, std::string("expected ") + what + ", found " + show(t));
    return next().text;
  }
  uint64_t expect_uint(const char* what) {
    const Token& t = peek();
    uint64_t v;
    if (t.kind != Tok::Number || !parse_uint(t.text, v))
      fail(t, std::string("expected ") + what + ", found " + show(t));
    next();
    return v;
  }
  void skip_to_semicolon() {
    while (peek().kind != Tok::End && !peek().is(';')) next();
    expect(';', "to end the statement");
  }

  // ---- module level ----
  void parse_version();
  void parse_file_directive();
  void skip_braced_section();
  void parse_function(bool is_entry, bool visible, bool is_extern);
  uint32_t parse_param_decl(int32_t function, std::string_view* name_out = nullptr);
  void parse_perf_directives(Function& fn);
  void parse_variable(Space space, bool visible, bool is_extern, int32_t function);
  void parse_initializer(Symbol& sym, uint64_t elem_size, bool sized, uint32_t line);
  void parse_init_list(Symbol& sym, uint64_t elem_size, uint64_t& cursor, int depth);
  void parse_init_element(Symbol& sym, uint64_t elem_size, uint64_t& cursor);
  void place_symbol(uint32_t index);

  // ---- function bodies ----
  void parse_body(uint32_t fidx, const std::vector<std::pair<std::string_view, uint32_t>>& params);
  void close_scope();
  void parse_reg_decl();
  void parse_loc();
  void parse_label(std::string_view name, uint32_t line);
  void parse_instruction();
  void parse_operands(std::vector<POp>& out, bool label_operands);
  POp parse_operand(bool label_operand);
  Operand resolve_value(std::string_view name, uint32_t line);
  bool lookup_reg(std::string_view name, uint32_t& reg) const;
  uint32_t expect_reg_name(const Token& t);
  void add_label_ref(LabelRef::Kind k, std::string_view name, uint32_t line, uint32_t a, uint32_t b);
  void parse_call(Instr& in);
  bool parse_bar(Instr& in, const std::vector<std::string_view>& mods, std::string_view base);
  void place_operands(Instr& in, const OpDesc& d, std::vector<POp>& ops, const Token& optok);
  // An instruction the simulator does not model: kept in the code as Op::Unsupported (with in's
  // guard and the current source location), so that the module loads and only a lane that
  // executes it fails. The caller skips the rest of the statement.
  void record_unsupported(const Instr& in, uint32_t line, const std::string& msg);
  bool parse_cp_async(Instr& in, const std::vector<std::string_view>& mods);
  bool parse_mbarrier(Instr& in, const std::vector<std::string_view>& mods);

  // ---- end of module ----
  void resolve_files();

  std::string_view text_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  Module m_;

  std::unordered_map<std::string_view, uint32_t> module_syms_;
  std::unordered_map<std::string_view, uint32_t> funcs_;
  std::vector<bool> defined_;                                // per function: has a body
  std::vector<std::pair<uint32_t, std::string>> file_dirs_;  // .file N "path"

  // current function
  Function* fn_ = nullptr;
  uint32_t fidx_ = 0;
  std::vector<NameScope> scopes_;
  uint64_t frame_cursor_ = 0;  // next free byte of the param frame (callseq params)
  Loc loc_;
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> loc_user_;  // (f,l,c) -> user
  std::unordered_map<uint64_t, uint32_t> loc_node_;                       // (f,l,c) -> its latest LocNode
  std::vector<LocNode> loc_nodes_{LocNode{}};
  std::unordered_map<uint64_t, uint32_t> instr_node_;  // (function << 32 | PTX line) -> LocNode

  uint32_t unsupported_count_ = 0;
  Fail first_unsupported_{0, ""};
  Loc first_unsupported_loc_;
};

// ---------------------------------------------------------------------------------------------
// Module level
// ---------------------------------------------------------------------------------------------

Module Parser::run() {
  toks_ = tokenize(text_);
  if (toks_.size() == 1) fail_at(0, "empty PTX input");
  while (peek().kind != Tok::End) {
    const Token& t = peek();
    if (t.kind != Tok::Word) fail(t, "unexpected " + show(t) + " at module scope");
    std::string_view w = t.text;
    if (w == ".version") {
      next();
      parse_version();
      continue;
    }
    if (w == ".target") {
      next();
      m_.target = std::string(expect_word("a target name"));
      while (accept(',')) expect_word("a target option");
      continue;
    }
    if (w == ".address_size") {
      next();
      uint64_t a = expect_uint("an address size");
      if (a != 64 && a != 32) fail(t, "unsupported .address_size " + std::to_string(a));
      m_.address_size = static_cast<uint32_t>(a);
      continue;
    }
    if (w == ".file") {
      next();
      parse_file_directive();
      continue;
    }
    if (w == ".section") {
      next();
      skip_braced_section();
      continue;
    }
    if (w == ".pragma") {
      next();
      skip_to_semicolon();
      continue;
    }
    bool visible = false, is_extern = false;
    for (;;) {
      if (accept_word(".visible"))
        visible = true;
      else if (accept_word(".extern"))
        is_extern = true;
      else if (accept_word(".weak") || accept_word(".common"))
        visible = true;
      else
        break;
    }
    const Token& d = peek();
    if (d.is(".entry") || d.is(".func")) {
      next();
      parse_function(d.text == ".entry", visible, is_extern);
      continue;
    }
    Space sp;
    if (d.kind == Tok::Word && d.text.size() > 1 && d.text[0] == '.' && word_space(d.text.substr(1), sp) &&
        sp != Space::Param && sp != Space::Local) {
      next();
      parse_variable(sp, visible, is_extern, -1);
      continue;
    }
    fail(d, "unexpected " + show(d) + " at module scope");
  }
  if (m_.version_major == 0 && m_.functions.empty() && m_.symbols.empty())
    fail_at(0, "no PTX found (missing .version directive)");
  for (uint32_t i = 0; i < m_.functions.size(); ++i)
    if (defined_[i]) build_cfg(m_.functions[i]);
  resolve_files();
  return std::move(m_);
}

void Parser::parse_version() {
  const Token& t = next();
  std::string_view v = t.text;
  size_t dot = v.find('.');
  uint64_t a, b = 0;
  if (t.kind != Tok::Number || !parse_uint(v.substr(0, dot), a) ||
      (dot != std::string_view::npos && !parse_uint(v.substr(dot + 1), b)))
    fail(t, "bad .version " + show(t));
  if (a < 6 || a > 9) fail(t, "unsupported PTX ISA version " + std::string(v) + " (7.x-9.x expected)");
  m_.version_major = static_cast<uint32_t>(a);
  m_.version_minor = static_cast<uint32_t>(b);
}

void Parser::parse_file_directive() {
  uint64_t id = expect_uint("a file number");
  const Token& s = peek();
  if (s.kind != Tok::String) fail(s, "expected a file name string after .file");
  next();
  if (id > 0xfffe) fail(s, "file number too large");
  std::string path(s.text.substr(1, s.text.size() - 2));
  // Optional timestamp and size.
  while (accept(',')) expect_uint("a .file timestamp or size");
  file_dirs_.push_back({static_cast<uint32_t>(id), std::move(path)});
}

// .section name { ... }: DWARF data, skipped by brace matching.
void Parser::skip_braced_section() {
  expect_word("a section name");
  const Token& open = peek();
  expect('{', "to open the section");
  int depth = 1;
  while (depth > 0) {
    const Token& t = next();
    if (t.kind == Tok::End) fail(t, "section opened at line " + std::to_string(open.line) + " is not closed");
    if (t.is('{'))
      ++depth;
    else if (t.is('}'))
      --depth;
  }
}

// Function-scope and module-scope variables are all Symbols; this gives each its offset in the
// address space that the parser lays out (a function's local frame). Globals and constants are
// placed by the loader, and shared variables too, per kernel (sim/exec/simulator.cpp).
void Parser::place_symbol(uint32_t index) {
  Symbol& s = m_.symbols[index];
  if (s.space == Space::Local && fn_) {
    s.offset = align_up(fn_->local_bytes, s.align);
    fn_->local_bytes = s.offset + s.size;
    fn_->local_align = std::max(fn_->local_align, s.align);
  }
}

// [.align N] [.v2|.v4] [.attribute(...)] .type name[dims] [= init] (, name...)* ;
void Parser::parse_variable(Space space, bool visible, bool is_extern, int32_t function) {
  uint64_t align = 0, vec = 1;
  Type type = Type::None;
  while (type == Type::None) {
    const Token& t = peek();
    if (t.is(".align")) {
      next();
      align = expect_uint("an alignment");
      if (align == 0 || (align & (align - 1)) || align > 4096) fail(t, "bad alignment " + std::to_string(align));
    } else if (t.is(".v2") || t.is(".v4") || t.is(".v8")) {
      next();
      vec = t.text[2] - '0';
    } else if (t.is(".attribute")) {
      next();
      expect('(', "after .attribute");
      while (!peek().is(')') && peek().kind != Tok::End) next();
      expect(')', "to close .attribute");
    } else if (t.is(".ptr")) {
      next();
    } else if (t.kind == Tok::Word && t.text.size() > 1 && t.text[0] == '.' && word_type(t.text.substr(1), type)) {
      next();
      if (type == Type::Pred) fail(t, "variables of type .pred are not supported");
    } else if (t.is(".texref") || t.is(".surfref") || t.is(".samplerref")) {
      fail(t, "unsupported variable type " + show(t));
    } else {
      fail(t, "expected a variable type, found " + show(t));
    }
  }
  const uint64_t elem = type_size(type) * vec;
  if (align == 0) align = elem;
  for (;;) {
    const Token& nt = peek();
    std::string_view name = expect_word("a variable name");
    if (name[0] == '.' || name[0] == '%') fail(nt, "bad variable name " + show(nt));
    uint64_t count = 1;
    bool sized = true;
    while (accept('[')) {
      if (accept(']')) {
        sized = false;
        count = 0;
        continue;
      }
      uint64_t d = expect_uint("an array size");
      expect(']', "to close the array size");
      if (d != 0 && count > kMaxVariableBytes / d) fail(nt, "array too large");
      count *= d;
    }
    if (count > kMaxVariableBytes / (elem ? elem : 1)) fail(nt, "variable too large");
    Symbol s;
    s.name = std::string(name);
    s.space = space;
    s.type = type;
    s.align = static_cast<uint32_t>(align);
    s.size = count * elem;
    s.is_extern = is_extern;
    s.visible = visible;
    // .global/.const inside a function: function-scoped name, but static storage that the
    // loader allocates like any module variable.
    s.function = (space == Space::Global || space == Space::Const) ? -1 : function;
    s.decl_line = nt.line;
    if (space == Space::Shared && is_extern && !sized) s.is_dynamic_shared = true;
    if (accept('=')) parse_initializer(s, type_size(type), sized, nt.line);

    uint32_t index = static_cast<uint32_t>(m_.symbols.size());
    if (function < 0) {
      auto [it, fresh] = module_syms_.emplace(name, index);
      if (!fresh) {
        // A repeated declaration (.extern then definition): keep one symbol.
        Symbol& old = m_.symbols[it->second];
        if (old.space != space) fail(nt, "'" + s.name + "' redeclared in a different state space");
        if (old.is_extern && !is_extern) {
          s.offset = old.offset;
          old = std::move(s);
        }
        if (!accept(',')) break;
        continue;
      }
    } else {
      auto [it, fresh] = scopes_.back().syms.emplace(name, index);
      if (!fresh) fail(nt, "'" + s.name + "' redeclared in the same scope");
    }
    m_.symbols.push_back(std::move(s));
    place_symbol(index);
    if (!accept(',')) break;
  }
  expect(';', "after the variable declaration");
}

void Parser::parse_initializer(Symbol& sym, uint64_t elem_size, bool sized, uint32_t line) {
  if (sym.space != Space::Global && sym.space != Space::Const)
    fail_at(line, "initializers are only supported for .global and .const variables");
  if (sized && sym.size > kMaxInitializedBytes) fail_at(line, "initialized variable too large");
  if (elem_size == 0) fail_at(line, "bad initializer type");
  uint64_t cursor = 0;
  if (peek().is('{'))
    parse_init_list(sym, elem_size, cursor, 0);
  else
    parse_init_element(sym, elem_size, cursor);
  if (!sized) sym.size = cursor;  // name[] = {...}
  if (cursor > sym.size) fail_at(line, "too many initializers for '" + sym.name + "'");
  sym.init.resize(sym.size, 0);  // the rest is zero, as in C
}

void Parser::parse_init_list(Symbol& sym, uint64_t elem_size, uint64_t& cursor, int depth) {
  const Token& open = peek();
  if (depth >= kMaxInitDepth) fail(open, "initializer nested too deeply");
  expect('{', "to open the initializer");
  if (accept('}')) return;
  do {
    if (peek().is('{'))
      parse_init_list(sym, elem_size, cursor, depth + 1);
    else
      parse_init_element(sym, elem_size, cursor);
  } while (accept(','));
  expect('}', "to close the initializer");
}

// One scalar: [-]number, name, name+off, generic(name[+off]).
void Parser::parse_init_element(Symbol& sym, uint64_t elem_size, uint64_t& cursor) {
  const Token& t = peek();
  if (cursor + elem_size > kMaxInitializedBytes) fail(t, "initializer too large");
  const uint64_t at = cursor;
  cursor += elem_size;
  if (sym.init.size() < cursor) sym.init.resize(cursor, 0);
  if (t.kind == Tok::Word) {
    bool generic = false;
    if (t.is("generic")) {
      next();
      expect('(', "after generic");
      generic = true;
    }
    const Token& nt = peek();
    std::string_view name = expect_word("a variable or function name");
    // name+off, generic(name+off) and generic(name)+off
    int64_t addend = 0;
    auto offset = [&] {
      if (!peek().is('+') && !peek().is('-')) return;
      bool neg = next().text[0] == '-';
      uint64_t v = expect_uint("an address offset");
      addend += neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    };
    offset();
    if (generic) {
      expect(')', "to close generic(");
      offset();
    }
    Symbol::AddrInit ai{at, 0, addend, generic};
    if (auto it = module_syms_.find(name); it != module_syms_.end())
      ai.symbol = it->second;
    else if (auto f = funcs_.find(name); f != funcs_.end()) {
      ai.symbol = f->second;
      ai.function = true;
    } else
      fail(nt, "initializer names undeclared '" + std::string(name) + "'");
    if (elem_size != 8 && elem_size != 4)
      fail(nt, "address initializer in a variable of " + std::to_string(elem_size) + "-byte elements");
    sym.addr_inits.push_back(ai);
    return;
  }
  bool neg = accept('-');
  const Token& nt = peek();
  uint64_t bits;
  Lit lit;
  if (nt.kind != Tok::Number || !parse_number(nt.text, bits, lit)) fail(nt, "bad initializer value " + show(nt));
  next();
  const bool is_float = type_is_float(sym.type);
  if (is_float && sym.type == Type::F32) {
    if (lit == Lit::F64 || lit == Lit::Dec) bits = f64_bits_to_f32_bits(bits);
    if (neg) bits ^= 0x80000000u;
  } else if (is_float && sym.type == Type::F64) {
    if (lit == Lit::F32) bits = f32_bits_to_f64_bits(bits);
    if (lit == Lit::Int) {
      double d = static_cast<double>(bits);
      std::memcpy(&bits, &d, 8);
    }
    if (neg) bits ^= 0x8000000000000000ull;
  } else {
    if (lit == Lit::Dec) fail(nt, "floating-point initializer for an integer variable");
    if (neg) bits = ~bits + 1;
  }
  for (uint64_t k = 0; k < elem_size && k < 8; ++k) sym.init[at + k] = static_cast<uint8_t>(bits >> (8 * k));
}

// .param [.align N] .type [.ptr [.space] [.align N]] name[dims]  (attributes in any order)
uint32_t Parser::parse_param_decl(int32_t function, std::string_view* name_out) {
  const Token& t = peek();
  if (t.is(".reg")) fail(t, ".reg parameters are not supported (only the .param ABI that nvcc uses)");
  if (!accept_word(".param")) fail(t, "expected .param, found " + show(t));
  uint64_t align = 0;
  bool after_ptr = false;  // a .align after .ptr gives the pointee's alignment: ignored
  Type type = Type::None;
  while (peek().kind == Tok::Word && peek().text[0] == '.') {
    const Token& a = next();
    Space ignored;
    Type ty;
    if (a.is(".align")) {
      uint64_t v = expect_uint("an alignment");
      if (v == 0 || (v & (v - 1)) || v > 4096) fail(a, "bad alignment");
      if (!after_ptr) align = v;
    } else if (a.is(".ptr")) {
      after_ptr = true;
    } else if (a.text.size() > 1 && word_space(a.text.substr(1), ignored)) {
    } else if (a.text.size() > 1 && word_type(a.text.substr(1), ty) && type == Type::None) {
      type = ty;
    } else {
      fail(a, "unexpected " + show(a) + " in a parameter declaration");
    }
  }
  if (type == Type::None) fail(peek(), "expected a parameter type, found " + show(peek()));
  const Token& nt = peek();
  std::string_view name = expect_word("a parameter name");
  if (name_out) *name_out = name;
  uint64_t count = 1;
  while (accept('[')) {
    uint64_t d = expect_uint("an array size");
    expect(']', "to close the array size");
    if (d == 0 || count > (1u << 20) / d) fail(nt, "bad parameter array size");
    count *= d;
  }
  Symbol s;
  s.name = std::string(name);
  s.space = Space::Param;
  s.type = type;
  s.size = count * type_size(type);
  s.align = static_cast<uint32_t>(align ? align : std::max(1u, type_size(type)));
  s.function = function;
  s.decl_line = nt.line;
  m_.symbols.push_back(std::move(s));
  return static_cast<uint32_t>(m_.symbols.size() - 1);
}

void Parser::parse_perf_directives(Function& fn) {
  for (;;) {
    const Token& t = peek();
    if (t.is(".maxntid") || t.is(".reqntid")) {
      next();
      uint32_t* dst = t.text == ".maxntid" ? fn.maxntid : fn.reqntid;
      dst[0] = dst[1] = dst[2] = 1;
      for (int k = 0; k < 3; ++k) {
        uint64_t v = expect_uint("a thread count");
        if (v > 0xffffffffu) fail(t, "thread count too large");
        dst[k] = static_cast<uint32_t>(v);
        if (!accept(',')) break;
      }
    } else if (t.is(".minnctapersm") || t.is(".maxnctapersm") || t.is(".maxnreg")) {
      next();
      uint64_t v = expect_uint("a number");
      if (t.text == ".maxnreg")
        fn.maxnreg = static_cast<uint32_t>(std::min<uint64_t>(v, 0xffffffffu));
      else if (t.text == ".minnctapersm")
        fn.minnctapersm = static_cast<uint32_t>(std::min<uint64_t>(v, 0xffffffffu));
    } else if (t.is(".reqnctapercluster") || t.is(".maxclusterrank")) {
      next();
      do expect_uint("a number");
      while (accept(','));
    } else if (t.is(".explicitcluster") || t.is(".noreturn")) {
      next();
      if (t.text == ".noreturn") fn.noreturn = true;
    } else if (t.is(".pragma")) {
      next();
      skip_to_semicolon();
    } else {
      return;
    }
  }
}

// .entry name (params) ... { body } | ;      .func [(rets)] name [(params)] ... { body } | ;
void Parser::parse_function(bool is_entry, bool visible, bool is_extern) {
  const uint32_t decl_line = toks_[pos_ - 1].line;
  Function fn;
  fn.is_entry = is_entry;
  fn.visible = visible;
  fn.is_extern = is_extern;
  fn.decl_line = decl_line;

  // The function's index is known up front so parameters can name their owner; the return
  // parameters come before the name, so they are parsed after it.
  uint32_t fidx;
  std::vector<uint32_t> rets, params;
  size_t rets_start = 0;
  bool has_rets = false;
  if (!is_entry && peek().is('(')) {
    has_rets = true;
    rets_start = pos_;
  }
  // Skip the return list to find the name first (parameters are parsed after the index is set).
  if (has_rets) {
    int depth = 0;
    do {
      const Token& t = next();
      if (t.kind == Tok::End) fail(t, "unterminated return parameter list");
      if (t.is('('))
        ++depth;
      else if (t.is(')'))
        --depth;
    } while (depth > 0);
  }
  const Token& nt = peek();
  std::string_view name = expect_word("a function name");
  if (name[0] == '.' || name[0] == '%') fail(nt, "bad function name " + show(nt));
  auto it = funcs_.find(name);
  const bool redeclared = it != funcs_.end();
  if (redeclared) {
    fidx = it->second;
  } else {
    fidx = static_cast<uint32_t>(m_.functions.size());
    fn.name = std::string(name);
    m_.functions.push_back(std::move(fn));
    defined_.push_back(false);
    funcs_.emplace(name, fidx);
  }
  const size_t after_name = pos_;
  std::vector<std::string_view> views;  // names as written here, in rets-then-params order
  auto parse_list = [&](std::vector<uint32_t>& out) {
    expect('(', "to open the parameter list");
    if (!accept(')')) {
      do {
        std::string_view v;
        out.push_back(parse_param_decl(static_cast<int32_t>(fidx), &v));
        views.push_back(v);
      } while (accept(','));
      expect(')', "to close the parameter list");
    }
  };
  if (has_rets) {
    pos_ = rets_start;
    parse_list(rets);
    pos_ = after_name;
  }
  if (peek().is('(')) parse_list(params);
  if (rets.size() > 1) fail(nt, "functions with more than one return parameter are not supported");

  Function& f = m_.functions[fidx];
  if (redeclared) {
    if (f.is_entry != is_entry) fail(nt, "'" + f.name + "' redeclared as a different kind of function");
    if (f.params.size() != params.size() || f.rets.size() != rets.size())
      fail(nt, "'" + f.name + "' redeclared with different parameters");
    // Keep the first declaration's symbols (callers may already refer to them) but take the new
    // names and layout: drop the fresh ones just appended.
    for (size_t k = 0; k < params.size(); ++k) m_.symbols[f.params[k]] = m_.symbols[params[k]];
    for (size_t k = 0; k < rets.size(); ++k) m_.symbols[f.rets[k]] = m_.symbols[rets[k]];
    m_.symbols.resize(m_.symbols.size() - params.size() - rets.size());
    f.visible = f.visible || visible;
    f.is_extern = f.is_extern && is_extern;
  } else {
    f.params = params;
    f.rets = rets;
  }
  // Layout of the function's own parameters: rets then params, each aligned.
  uint64_t off = 0;
  for (uint32_t s : f.rets) {
    off = align_up(off, m_.symbols[s].align);
    m_.symbols[s].offset = off;
    off += m_.symbols[s].size;
  }
  for (uint32_t s : f.params) {
    off = align_up(off, m_.symbols[s].align);
    m_.symbols[s].offset = off;
    off += m_.symbols[s].size;
  }
  f.own_param_bytes = off;
  f.param_bytes = off;

  parse_perf_directives(f);
  if (accept(';')) return;  // declaration only
  if (!peek().is('{'))
    fail(peek(), "expected '{' or ';' after the declaration of '" + f.name + "', found " + show(peek()));
  if (defined_[fidx]) fail(nt, "redefinition of '" + f.name + "'");
  defined_[fidx] = true;
  f.is_extern = false;
  f.decl_line = nt.line;
  std::vector<std::pair<std::string_view, uint32_t>> named;
  for (size_t k = 0; k < f.rets.size(); ++k) named.push_back({views[k], f.rets[k]});
  for (size_t k = 0; k < f.params.size(); ++k) named.push_back({views[f.rets.size() + k], f.params[k]});
  parse_body(fidx, named);
}

// ---------------------------------------------------------------------------------------------
// Function bodies
// ---------------------------------------------------------------------------------------------

void Parser::parse_body(uint32_t fidx, const std::vector<std::pair<std::string_view, uint32_t>>& params) {
  fidx_ = fidx;
  fn_ = &m_.functions[fidx];
  loc_ = Loc{};
  loc_user_.clear();
  loc_node_.clear();
  frame_cursor_ = fn_->param_bytes;
  scopes_.clear();
  scopes_.emplace_back();
  scopes_.back().open_line = peek().line;
  for (auto& [name, s] : params)
    if (!scopes_.back().syms.emplace(name, s).second)
      fail_at(m_.symbols[s].decl_line, "duplicate parameter '" + std::string(name) + "'");
  expect('{', "to open the function body");

  while (!scopes_.empty()) {
    const Token& t = peek();
    if (t.kind == Tok::End)
      fail(t, "body of '" + fn_->name + "' opened at line " + std::to_string(scopes_.front().open_line) +
                  " is not closed");
    if (t.is('{')) {
      next();
      scopes_.emplace_back();
      scopes_.back().open_line = t.line;
      continue;
    }
    if (t.is('}')) {
      next();
      close_scope();
      continue;
    }
    if (t.is('@')) {
      parse_instruction();
      continue;
    }
    if (t.kind != Tok::Word) fail(t, "unexpected " + show(t) + " in the body of '" + fn_->name + "'");
    if (peek(1).is(':')) {
      std::string_view name = next().text;
      next();
      parse_label(name, t.line);
      continue;
    }
    std::string_view w = t.text;
    if (w[0] != '.') {
      parse_instruction();
      continue;
    }
    next();
    Space sp;
    if (w == ".reg")
      parse_reg_decl();
    else if (w == ".loc")
      parse_loc();
    else if (w == ".pragma")
      skip_to_semicolon();
    else if (w == ".param") {
      // A call-sequence parameter: laid out in this function's param frame.
      --pos_;
      std::string_view pname;
      uint32_t s = parse_param_decl(static_cast<int32_t>(fidx_), &pname);
      expect(';', "after the .param declaration");
      Symbol& sym = m_.symbols[s];
      if (!scopes_.back().syms.emplace(pname, s).second) fail(t, "'" + sym.name + "' redeclared in the same scope");
      sym.offset = align_up(frame_cursor_, sym.align);
      frame_cursor_ = sym.offset + sym.size;
      fn_->param_bytes = frame_cursor_;
    } else if (word_space(w.substr(1), sp) && sp != Space::Param) {
      parse_variable(sp, false, false, static_cast<int32_t>(fidx_));
    } else if (w == ".section") {
      fail(t, ".section inside a function body");
    } else {
      fail(t, "unsupported directive " + show(t) + " in the body of '" + fn_->name + "'");
    }
  }
  fn_ = nullptr;
}

// Resolves the labels used in the closing scope that it defines; the rest move outwards.
void Parser::close_scope() {
  NameScope& s = scopes_.back();
  std::vector<LabelRef> up;
  for (const LabelRef& r : s.pending) {
    auto it = s.labels.find(r.name);
    if (it == s.labels.end()) {
      up.push_back(r);
      continue;
    }
    const LabelDef& d = it->second;
    const bool want_table = r.kind == LabelRef::TableRef;
    if (d.is_table != want_table)
      fail_at(r.line, "label '" + std::string(r.name) +
                          (want_table ? "' is not a .branchtargets list"
                                      : "' names a .branchtargets list, not an instruction"));
    if (r.kind == LabelRef::TableEntry)
      fn_->branch_tables[r.a][r.b] = d.value;
    else
      fn_->code[r.a].src[r.b].imm = d.value;
  }
  scopes_.pop_back();
  if (scopes_.empty()) {
    if (!up.empty()) fail_at(up.front().line, "unknown label '" + std::string(up.front().name) + "'");
    return;
  }
  auto& outer = scopes_.back().pending;
  outer.insert(outer.end(), up.begin(), up.end());
}

void Parser::add_label_ref(LabelRef::Kind k, std::string_view name, uint32_t line, uint32_t a, uint32_t b) {
  scopes_.back().pending.push_back(LabelRef{k, name, line, a, b});
}

// name: — an instruction label, or the name of a .callprototype/.calltargets/.branchtargets.
void Parser::parse_label(std::string_view name, uint32_t line) {
  NameScope& s = scopes_.back();
  const Token& t = peek();
  if (t.is(".callprototype") || t.is(".calltargets")) {
    next();
    s.protos.insert(name);
    skip_to_semicolon();
    return;
  }
  if (s.labels.count(name)) fail_at(line, "label '" + std::string(name) + "' defined twice");
  if (t.is(".branchtargets")) {
    next();
    uint32_t table = static_cast<uint32_t>(fn_->branch_tables.size());
    fn_->branch_tables.emplace_back();
    s.labels[name] = LabelDef{true, table};
    do {
      const Token& lt = peek();
      std::string_view target = expect_word("a label");
      uint32_t entry = static_cast<uint32_t>(fn_->branch_tables[table].size());
      fn_->branch_tables[table].push_back(0);
      add_label_ref(LabelRef::TableEntry, target, lt.line, table, entry);
    } while (accept(','));
    expect(';', "after .branchtargets");
    return;
  }
  s.labels[name] = LabelDef{false, static_cast<uint32_t>(fn_->code.size())};
}

// .reg [.type] name<N> | name, ... ;
void Parser::parse_reg_decl() {
  const Token& tt = peek();
  Type type;
  if (tt.is(".v2") || tt.is(".v4")) fail(tt, "vector registers are not supported");
  if (tt.kind != Tok::Word || tt.text.size() < 2 || tt.text[0] != '.' || !word_type(tt.text.substr(1), type))
    fail(tt, "expected a register type, found " + show(tt));
  next();
  NameScope& s = scopes_.back();
  do {
    const Token& nt = peek();
    std::string_view name = expect_word("a register name");
    if (name[0] == '.') fail(nt, "bad register name " + show(nt));
    if (s.regs.count(name) || s.ranges.count(name) || s.syms.count(name))
      fail(nt, "'" + std::string(name) + "' redeclared in the same scope");
    if (accept('<')) {
      uint64_t n = expect_uint("a register count");
      expect('>', "to close the register range");
      if (n > kMaxRegRange || fn_->regs.size() + n > kMaxRegsPerFunction) fail(nt, "too many registers");
      uint32_t base = static_cast<uint32_t>(fn_->regs.size());
      s.ranges.emplace(name, std::make_pair(base, static_cast<uint32_t>(n)));
      for (uint64_t k = 0; k < n; ++k) fn_->regs.push_back({std::string(name) + std::to_string(k), type});
    } else {
      if (fn_->regs.size() + 1 > kMaxRegsPerFunction) fail(nt, "too many registers");
      s.regs.emplace(name, static_cast<uint32_t>(fn_->regs.size()));
      fn_->regs.push_back({std::string(name), type});
    }
  } while (accept(','));
  expect(';', "after the register declaration");
}

// .loc file line col [, function_name label[+off]] [, inlined_at file line col]
// The user's line: for an inlined .loc, the user line of the location it was inlined at. nvcc
// writes the .loc of each enclosing call site just before (outermost first), so the most
// recent .loc with that (file,line,col) carries the right user line. Line 0 marks
// compiler-generated code: it keeps the user line of the code around it, the line reports show.
void Parser::parse_loc() {
  const Token& t = peek();
  uint64_t f = expect_uint("a .loc file number");
  uint64_t l = expect_uint("a .loc line");
  uint64_t c = expect_uint("a .loc column");
  if (f > 0xffff || l > 0xffffffffu) fail(t, "bad .loc");
  c = std::min<uint64_t>(c, 0xffff);
  Loc n;
  n.file = static_cast<uint32_t>(f);
  n.line = static_cast<uint32_t>(l);
  n.col = static_cast<uint32_t>(c);
  n.ufile = n.file;
  n.uline = n.line;
  uint32_t parent = 0;
  while (accept(',')) {
    const Token& k = peek();
    if (accept_word("function_name")) {
      expect_word("a function name label");
      if (accept('+')) expect_uint("an offset");
    } else if (accept_word("inlined_at")) {
      uint64_t f2 = expect_uint("a file number"), l2 = expect_uint("a line"), c2 = expect_uint("a column");
      if (f2 > 0xffff || l2 > 0xffffffffu) fail(k, "bad inlined_at");
      uint64_t key = f2 << 48 | (l2 & 0xffffffffu) << 16 | std::min<uint64_t>(c2, 0xffff);
      auto it = loc_user_.find(key);
      if (it != loc_user_.end()) {
        n.ufile = it->second.first;
        n.uline = it->second.second;
      } else {
        n.ufile = static_cast<uint32_t>(f2);
        n.uline = static_cast<uint32_t>(l2);
      }
      if (auto pn = loc_node_.find(key); pn != loc_node_.end()) {
        parent = pn->second;
      } else {
        loc_nodes_.push_back({static_cast<uint32_t>(f2), static_cast<uint32_t>(l2), 0});
        parent = static_cast<uint32_t>(loc_nodes_.size() - 1);
      }
    } else {
      fail(k, "unexpected " + show(k) + " in .loc");
    }
  }
  if (n.line == 0 && n.ufile == n.file && n.uline == 0) {
    n.ufile = loc_.ufile;
    n.uline = loc_.uline;
    n.node = loc_.node;
  } else {
    loc_nodes_.push_back({n.file, n.line, parent});
    n.node = static_cast<uint32_t>(loc_nodes_.size() - 1);
  }
  loc_ = n;
  loc_user_[uint64_t(n.file) << 48 | uint64_t(n.line) << 16 | n.col] = {n.ufile, n.uline};
  loc_node_[uint64_t(n.file) << 48 | uint64_t(n.line) << 16 | n.col] = n.node;
}

bool Parser::lookup_reg(std::string_view name, uint32_t& reg) const {
  for (size_t k = scopes_.size(); k-- > 0;) {
    const NameScope& s = scopes_[k];
    if (auto it = s.regs.find(name); it != s.regs.end()) {
      reg = it->second;
      return true;
    }
    if (s.ranges.empty()) {
      if (s.syms.count(name)) return false;
      continue;
    }
    // name = prefix + index; try every split inside the trailing digits.
    size_t d = name.size();
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
    for (size_t cut = d; cut < name.size(); ++cut) {
      std::string_view digits = name.substr(cut);
      if (digits.size() > 1 && digits[0] == '0') continue;
      auto it = s.ranges.find(name.substr(0, cut));
      if (it == s.ranges.end()) continue;
      uint64_t idx;
      if (digits.size() <= 9 && parse_uint(digits, idx) && idx < it->second.second) {
        reg = it->second.first + static_cast<uint32_t>(idx);
        return true;
      }
    }
    if (s.syms.count(name)) return false;  // shadowed by a variable
  }
  return false;
}

// A name in a value position: register, special register, variable, function, WARP_SZ.
Operand Parser::resolve_value(std::string_view name, uint32_t line) {
  Operand o;
  uint32_t reg;
  if (lookup_reg(name, reg)) {
    o.kind = Operand::Kind::Reg;
    o.reg = reg;
    return o;
  }
  for (size_t k = scopes_.size(); k-- > 0;) {
    auto it = scopes_[k].syms.find(name);
    if (it != scopes_[k].syms.end()) {
      o.kind = Operand::Kind::Symbol;
      o.symbol = it->second;
      return o;
    }
  }
  SReg sr;
  if (name[0] == '%' && word_sreg(name, sr)) {
    o.kind = Operand::Kind::SpecialReg;
    o.sreg = sr;
    return o;
  }
  if (auto it = module_syms_.find(name); it != module_syms_.end()) {
    o.kind = Operand::Kind::Symbol;
    o.symbol = it->second;
    return o;
  }
  if (auto it = funcs_.find(name); it != funcs_.end()) {
    o.kind = Operand::Kind::Func;
    o.imm = it->second;
    return o;
  }
  if (name == "WARP_SZ") {
    o.kind = Operand::Kind::Imm;
    o.imm = 32;
    return o;
  }
  if (name[0] == '%')
    fail_at(line, "undeclared register '" + std::string(name) + "' (or unsupported special register)");
  fail_at(line, "undeclared identifier '" + std::string(name) + "'");
}

uint32_t Parser::expect_reg_name(const Token& t) {
  if (t.kind != Tok::Word) fail(t, "expected a register, found " + show(t));
  uint32_t r;
  if (!lookup_reg(t.text, r)) fail(t, "undeclared register '" + std::string(t.text) + "'");
  return r;
}

POp Parser::parse_operand(bool label_operand) {
  POp p;
  const Token& t = peek();
  p.line = t.line;
  if (t.is('{')) {  // vector {%r1, %r2, _}
    next();
    p.op.kind = Operand::Kind::Vector;
    do {
      const Token& e = next();
      if (p.op.count >= 4) fail(e, "vectors of more than 4 elements are not supported");
      if (e.is("_"))
        p.op.vec[p.op.count++] = Operand::kNoReg;
      else
        p.op.vec[p.op.count++] = expect_reg_name(e);
    } while (accept(','));
    expect('}', "to close the vector operand");
    return p;
  }
  if (t.is('[')) {  // [reg|sym|imm [+|- imm]]
    next();
    p.op.kind = Operand::Kind::Addr;
    const Token& b = peek();
    if (b.kind == Tok::Word) {
      next();
      Operand base = resolve_value(b.text, b.line);
      if (base.kind == Operand::Kind::Reg)
        p.op.reg = base.reg;
      else if (base.kind == Operand::Kind::Symbol)
        p.op.symbol = base.symbol;
      else
        fail(b, "bad address base " + show(b));
      if (peek().is('+') || peek().is('-')) {
        bool neg = next().text[0] == '-';
        if (accept('-')) neg = !neg;
        uint64_t v = expect_uint("an address offset");
        p.op.imm = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
      }
    } else {
      uint64_t v = expect_uint("an address");
      p.op.imm = static_cast<int64_t>(v);
    }
    expect(']', "to close the address");
    return p;
  }
  if (t.is('!')) {  // !%p
    next();
    const Token& r = peek();
    uint32_t reg = expect_reg_name(r);
    next();
    if (fn_->regs[reg].type != Type::Pred) fail(r, "'!' applied to a non-predicate register");
    p.op.kind = Operand::Kind::Reg;
    p.op.reg = reg;
    p.op.negate = true;
    return p;
  }
  if (t.is('-') || t.kind == Tok::Number) {
    bool neg = accept('-');
    const Token& n = peek();
    uint64_t bits;
    if (n.kind != Tok::Number || !parse_number(n.text, bits, p.lit)) fail(n, "bad number " + show(n));
    next();
    if (neg) {
      if (p.lit == Lit::Int)
        bits = ~bits + 1;
      else if (p.lit == Lit::F32)
        bits ^= 0x80000000u;
      else
        bits ^= 0x8000000000000000ull;
    }
    p.op.kind = Operand::Kind::Imm;
    p.op.imm = static_cast<int64_t>(bits);
    return p;
  }
  if (t.kind != Tok::Word) fail(t, "expected an operand, found " + show(t));
  next();
  if (label_operand) {
    p.op.kind = Operand::Kind::Label;
    p.label = t.text;
    return p;  // the caller records the label reference
  }
  p.op = resolve_value(t.text, t.line);
  if (accept('|')) {  // d|p
    const Token& r = peek();
    p.second.kind = Operand::Kind::Reg;
    p.second.reg = expect_reg_name(r);
    next();
    p.has_second = true;
  } else if (p.op.kind == Operand::Kind::Symbol && (peek().is('+') || peek().is('-'))) {
    bool neg = next().text[0] == '-';
    uint64_t v = expect_uint("an offset");
    p.op.imm = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  }
  return p;
}

void Parser::parse_operands(std::vector<POp>& out, bool label_operands) {
  out.clear();
  if (peek().is(';')) return;
  do {
    if (out.size() >= 8) fail(peek(), "too many operands");
    out.push_back(parse_operand(label_operands));
  } while (accept(','));
}

void Parser::record_unsupported(const Instr& from, uint32_t line, const std::string& msg) {
  if (unsupported_count_++ == 0) {
    first_unsupported_ = Fail{line, msg};
    first_unsupported_loc_ = loc_;
  }
  Instr in;
  in.op = Op::Unsupported;
  in.guard = from.guard;
  in.guard_negated = from.guard_negated;
  in.ptx_line = line;
  in.file = static_cast<uint16_t>(loc_.file);
  in.line = loc_.line;
  in.col = static_cast<uint16_t>(loc_.col);
  in.user_file = static_cast<uint16_t>(loc_.ufile);
  in.user_line = loc_.uline;
  if (loc_.node) instr_node_[uint64_t(fidx_) << 32 | in.ptx_line] = loc_.node;
  in.call = static_cast<uint32_t>(m_.unsupported.size());
  m_.unsupported.push_back(msg);
  fn_->code.push_back(in);
}

// [@[!]p] opcode[.mods] operands ;
void Parser::parse_instruction() {
  Instr in;
  const Token& first = peek();
  in.ptx_line = first.line;
  if (accept('@')) {
    bool neg = accept('!');
    const Token& g = peek();
    in.guard = expect_reg_name(g);
    next();
    if (fn_->regs[in.guard].type != Type::Pred) fail(g, "guard '" + std::string(g.text) + "' is not a predicate");
    in.guard_negated = neg;
  }
  const Token& optok = peek();
  if (optok.kind != Tok::Word || optok.text[0] == '.' || optok.text[0] == '%' || optok.text[0] == '$')
    fail(optok, "expected an instruction, found " + show(optok));
  next();
  // Split "atom.global.cas.b32" into base and modifiers.
  std::string_view full = optok.text;
  std::vector<std::string_view> mods;
  size_t dot = full.find('.');
  std::string_view base = full.substr(0, dot);
  while (dot != std::string_view::npos) {
    size_t nd = full.find('.', dot + 1);
    mods.push_back(full.substr(dot + 1, nd == std::string_view::npos ? nd : nd - dot - 1));
    dot = nd;
  }
  // An operand that names a special register the simulator does not model (%cluster_ctarank):
  // the instruction is unsupported, not the module.
  for (size_t k = pos_; k < toks_.size() && !toks_[k].is(';') && toks_[k].kind != Tok::End; ++k) {
    std::string_view sr = toks_[k].text;
    uint32_t ignored;
    if (toks_[k].kind == Tok::Word && unmodelled_sreg(sr) && !lookup_reg(sr, ignored)) {
      record_unsupported(in, optok.line,
                         "unsupported special register '" + std::string(sr) + "' in '" + std::string(full) + "'");
      skip_to_semicolon();
      return;
    }
  }
  const auto& table = op_table();
  auto dit = table.find(base);
  if (dit == table.end()) {
    record_unsupported(in, optok.line, "unsupported instruction '" + std::string(full) + "'");
    skip_to_semicolon();
    return;
  }
  const OpDesc& d = dit->second;
  in.op = d.op;
  in.file = static_cast<uint16_t>(loc_.file);
  in.line = loc_.line;
  in.col = static_cast<uint16_t>(loc_.col);
  in.user_file = static_cast<uint16_t>(loc_.ufile);
  in.user_line = loc_.uline;
  if (loc_.node) instr_node_[uint64_t(fidx_) << 32 | in.ptx_line] = loc_.node;
  if (d.flags & fCarryIn) in.carry_in = true;

  if (d.op == Op::Bar) {
    if (parse_bar(in, mods, base)) fn_->code.push_back(in);
    return;
  }
  if (d.op == Op::CpAsync) {
    if (parse_cp_async(in, mods)) fn_->code.push_back(in);
    return;
  }
  if (d.op == Op::Mbarrier) {
    if (parse_mbarrier(in, mods)) fn_->code.push_back(in);
    return;
  }

  // Modifiers: op-specific words first, then the generic categories the op accepts.
  Type types[3];
  int ntypes = 0;
  bool has_sync = false, skip_rest = false;
  for (std::string_view w : mods) {
    if (skip_rest) break;
    if (op_modifier(in, w, has_sync, skip_rest)) continue;
    if (generic_modifier(in, d.cats, w, types, ntypes)) continue;
    record_unsupported(in, optok.line, "unsupported instruction '" + std::string(full) + "'");
    skip_to_semicolon();
    return;
  }
  if ((d.op == Op::Shfl || d.op == Op::Vote || d.op == Op::Match || d.op == Op::Redux || d.op == Op::Elect) &&
      !has_sync) {
    record_unsupported(in, optok.line,
                       "unsupported instruction '" + std::string(full) + "' (only the .sync form is supported)");
    skip_to_semicolon();
    return;
  }
  if (d.flags & fTypes2) {
    if (ntypes != 2) fail(optok, "'" + std::string(full) + "' needs two types");
    in.type = types[0];
    in.type2 = types[1];
  } else {
    if (ntypes > 1) fail(optok, "'" + std::string(full) + "' has more than one type");
    if (ntypes == 1) in.type = types[0];
  }
  if (const char* why = complete(in)) fail(optok, "'" + std::string(full) + "' " + why);

  if (d.op == Op::Call) {
    parse_call(in);
    return;
  }
  const uint32_t index = static_cast<uint32_t>(fn_->code.size());
  if (d.op == Op::Bra) {  // bra label;
    POp target = parse_operand(true);
    expect(';', "after the branch target");
    in.nsrc = 1;
    in.src[0].kind = Operand::Kind::Label;
    add_label_ref(LabelRef::InstrOperand, target.label, target.line, index, 0);
    fn_->code.push_back(in);
    return;
  }
  if (d.op == Op::Brx) {  // brx.idx index, table;
    const Token& it = peek();
    in.src[0].kind = Operand::Kind::Reg;
    in.src[0].reg = expect_reg_name(it);
    next();
    expect(',', "after the brx index");
    POp list = parse_operand(true);
    expect(';', "after the brx table");
    in.nsrc = 2;
    in.src[1].kind = Operand::Kind::Imm;
    add_label_ref(LabelRef::TableRef, list.label, list.line, index, 1);
    fn_->code.push_back(in);
    return;
  }
  std::vector<POp> ops;
  parse_operands(ops, false);
  if (!peek().is(';')) fail(peek(), "expected ';' after '" + std::string(full) + "', found " + show(peek()));
  next();
  place_operands(in, d, ops, optok);
  fn_->code.push_back(in);
}

// Checks the operand shape and fills dst/src; converts float literals to the operand's type.
void Parser::place_operands(Instr& in, const OpDesc& d, std::vector<POp>& ops, const Token& optok) {
  const std::string name(optok.text);
  size_t nd = d.ndst;
  if (ops.size() < nd + d.min_src || ops.size() > nd + d.max_src)
    fail(optok, "wrong number of operands for '" + name + "'");
  for (size_t k = 0; k < nd; ++k) {
    const POp& p = ops[k];
    if (p.op.kind != Operand::Kind::Reg && p.op.kind != Operand::Kind::Vector)
      fail_at(p.line, "destination of '" + name + "' must be a register");
    if (p.op.negate) fail_at(p.line, "'!' on a destination");
    in.dst[0] = p.op;
    in.ndst = 1;
    if (p.has_second) {
      if (!(d.flags & fDual)) fail_at(p.line, "'|' destination not allowed for '" + name + "'");
      if (in.op == Op::Match && in.match != MatchMode::All) fail_at(p.line, "match.any has no predicate destination");
      in.dst[1] = p.second;
      in.ndst = 2;
    }
  }
  for (size_t k = nd; k < ops.size(); ++k) {
    if (ops[k].has_second) fail_at(ops[k].line, "'|' in a source operand");
    in.src[in.nsrc++] = ops[k].op;
  }
  if ((d.flags & fAddr0) && in.src[0].kind != Operand::Kind::Addr)
    fail(optok, "'" + name + "' needs an [address] operand");
  for (size_t k = (d.flags & fAddr0) ? 1 : 0; k < in.nsrc; ++k)
    if (in.src[k].kind == Operand::Kind::Addr) fail(optok, "unexpected [address] operand in '" + name + "'");
  if (in.op != Op::Mov && in.op != Op::Ld && in.op != Op::Ldu && in.ndst && in.dst[0].kind == Operand::Kind::Vector &&
      in.op != Op::Atom)
    fail(optok, "vector destination not allowed for '" + name + "'");
  if (in.op == Op::Mov && in.dst[0].kind == Operand::Kind::Vector && in.src[0].kind == Operand::Kind::Vector)
    fail(optok, "mov between two vectors");

  // Float literals take the type of the operand they feed.
  for (size_t k = 0; k < in.nsrc; ++k) {
    Operand& o = in.src[k];
    if (o.kind != Operand::Kind::Imm) continue;
    const Lit lit = ops[nd + k].lit;
    if (lit == Lit::Int) continue;
    Type t = in.type;
    if (in.op == Op::Cvt || in.op == Op::Set) t = in.type2;
    if (in.op == Op::Slct && k == 2) t = in.type2;
    if (in.op == Op::Selp && k == 2) t = Type::Pred;
    uint64_t bits = static_cast<uint64_t>(o.imm);
    if (t == Type::F64) {
      if (lit == Lit::F32) bits = f32_bits_to_f64_bits(bits);
    } else if (t == Type::F32) {
      if (lit == Lit::F64 || lit == Lit::Dec) bits = f64_bits_to_f32_bits(bits);
    } else if (lit == Lit::Dec) {
      fail(optok, "floating-point literal in '" + name + "'");
    }
    o.imm = static_cast<int64_t>(bits);
  }
}

// bar{.cta}.sync / barrier{.cta}.sync{.aligned} a{, b}; .arrive a, b; .red.op.type d, a{, b}, {!}c
// bar.warp.sync mask.
// Returns false for an unsupported form (recorded, skipped).
bool Parser::parse_bar(Instr& in, const std::vector<std::string_view>& mods, std::string_view base) {
  const Token& optok = toks_[pos_ - 1];
  const std::string name(optok.text);
  if (!mods.empty() && mods[0] == "warp") {
    if (mods.size() != 2 || mods[1] != "sync") {
      record_unsupported(in, optok.line, "unsupported instruction '" + name + "'");
      skip_to_semicolon();
      return false;
    }
    in.op = Op::BarWarpSync;
    std::vector<POp> ops;
    parse_operands(ops, false);
    expect(';', "after bar.warp.sync");
    if (ops.size() != 1 || (ops[0].op.kind != Operand::Kind::Reg && ops[0].op.kind != Operand::Kind::Imm))
      fail(optok, "bar.warp.sync takes one member mask");
    in.nsrc = 1;
    in.src[0] = ops[0].op;
    return true;
  }
  in.aligned = base == "bar";  // bar.sync == barrier.sync.aligned
  for (std::string_view w : mods) {
    Type t;
    if (w == "sync")
      in.bar = BarKind::Sync;
    else if (w == "arrive")
      in.bar = BarKind::Arrive;
    else if (w == "red")
      in.bar = BarKind::Red;
    else if (w == "aligned")
      in.aligned = true;
    else if (w == "cta") {
    } else if (in.bar == BarKind::Red && w == "popc")
      in.barred = BarRedOp::Popc;
    else if (in.bar == BarKind::Red && w == "and")
      in.barred = BarRedOp::And;
    else if (in.bar == BarKind::Red && w == "or")
      in.barred = BarRedOp::Or;
    else if (word_type(w, t))
      in.type = t;
    else {
      record_unsupported(in, optok.line, "unsupported instruction '" + name + "'");
      skip_to_semicolon();
      return false;
    }
  }
  if (in.bar == BarKind::None || (in.bar == BarKind::Red && in.barred == BarRedOp::None))
    fail(optok, "incomplete instruction '" + name + "'");
  std::vector<POp> ops;
  parse_operands(ops, false);
  expect(';', ("after " + name).c_str());
  size_t k = 0;
  if (in.bar == BarKind::Red) {
    if (ops.size() < 3 || ops.size() > 4) fail(optok, "wrong number of operands for '" + name + "'");
    if (ops[0].op.kind != Operand::Kind::Reg) fail(optok, "destination of '" + name + "' must be a register");
    in.dst[0] = ops[0].op;
    in.ndst = 1;
    k = 1;
    in.src[0] = ops[k++].op;
    if (ops.size() == 4) in.src[1] = ops[k++].op;
    in.src[2] = ops[k++].op;
    in.nsrc = 3;
    if (in.src[2].kind != Operand::Kind::Reg || fn_->regs[in.src[2].reg].type != Type::Pred)
      fail(optok, "the last operand of '" + name + "' must be a predicate");
  } else {
    if (ops.empty() || ops.size() > 2) fail(optok, "wrong number of operands for '" + name + "'");
    if (in.bar == BarKind::Arrive && ops.size() != 2) fail(optok, "bar.arrive needs a thread count");
    in.src[0] = ops[0].op;
    if (ops.size() == 2) in.src[1] = ops[1].op;
    in.nsrc = 2;
  }
  for (size_t j = 0; j < 2; ++j) {
    Operand::Kind kd = in.src[j].kind;
    if (kd != Operand::Kind::Reg && kd != Operand::Kind::Imm && kd != Operand::Kind::None)
      fail(optok, "barrier id and thread count must be registers or immediates");
  }
  return true;
}

// cp.async.{ca,cg}.shared{::cta}.global{.level::cache_hint}{.level::prefetch_size} [dst], [src],
//     cp-size{, src-size}{, ignore-src}{, cache-policy};
// cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all;
// cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [mbar];
// Returns false for an unsupported form (recorded, skipped): cp.async.bulk (TMA) and the like.
bool Parser::parse_cp_async(Instr& in, const std::vector<std::string_view>& mods) {
  const Token& optok = toks_[pos_ - 1];
  const std::string name(optok.text);
  auto unsupported = [&]() {
    record_unsupported(in, optok.line, "unsupported instruction '" + name + "'");
    skip_to_semicolon();
    return false;
  };
  if (mods.size() < 2 || mods[0] != "async") return unsupported();
  std::vector<POp> ops;
  auto operands = [&](size_t lo, size_t hi) {
    parse_operands(ops, false);
    expect(';', ("after " + name).c_str());
    if (ops.size() < lo || ops.size() > hi) fail(optok, "wrong number of operands for '" + name + "'");
    for (const POp& p : ops)
      if (p.has_second) fail_at(p.line, "'|' in an operand of '" + name + "'");
  };
  auto reg_or_imm = [&](const Operand& o) { return o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Imm; };
  const std::string_view what = mods[1];
  if (what == "commit_group" || what == "wait_group" || what == "wait_all") {
    if (mods.size() != 2) return unsupported();
    if (what == "commit_group") {
      in.op = Op::CpAsyncCommit;
      operands(0, 0);
    } else if (what == "wait_all") {
      in.op = Op::CpAsyncWait;
      in.wait_all = true;
      operands(0, 0);
    } else {
      in.op = Op::CpAsyncWait;
      operands(1, 1);
      if (ops[0].op.kind != Operand::Kind::Imm || ops[0].op.imm < 0)
        fail(optok, "cp.async.wait_group needs a constant group count");
      in.src[0] = ops[0].op;
      in.nsrc = 1;
    }
    return true;
  }
  if (what == "mbarrier") {
    // cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64
    if (mods.size() < 3 || mods[2] != "arrive") return unsupported();
    in.op = Op::CpAsyncMbarArrive;
    in.space = Space::Generic;
    for (size_t k = 3; k < mods.size(); ++k) {
      Space sp;
      Type t;
      if (mods[k] == "noinc")
        in.noinc = true;
      else if (word_space(mods[k], sp) && sp == Space::Shared)
        in.space = sp;
      else if (word_type(mods[k], t) && t == Type::B64)
        in.type = t;
      else
        return unsupported();
    }
    operands(1, 1);
    if (ops[0].op.kind != Operand::Kind::Addr) fail(optok, "'" + name + "' needs an [address] operand");
    in.src[0] = ops[0].op;
    in.nsrc = 1;
    return true;
  }
  if (what != "ca" && what != "cg") return unsupported();  // cp.async.bulk.* (TMA), ...
  // The state spaces: .shared{::cta} (destination) then .global (source); cache qualifiers.
  bool dst = false, src = false, hint = false;
  for (size_t k = 2; k < mods.size(); ++k) {
    const std::string_view w = mods[k];
    Space sp;
    if (!dst && word_space(w, sp) && sp == Space::Shared)
      dst = true;
    else if (dst && !src && w == "global")
      src = true;
    else if (w == "L2::cache_hint")
      hint = true;
    else if (w.substr(0, 4) == "L2::" || w.substr(0, 4) == "L1::")
      continue;  // prefetch sizes (.L2::128B) and eviction priorities: performance only
    else
      return unsupported();
  }
  if (!dst || !src) return unsupported();
  in.op = Op::CpAsync;
  in.space = Space::Shared;
  in.type = Type::B32;  // the copy's elements, for the relaxed memory model
  in.nc = what == "cg";
  operands(3, hint ? 6 : 5);
  if (hint) ops.pop_back();  // the cache policy: a hint only
  if (ops[0].op.kind != Operand::Kind::Addr || ops[1].op.kind != Operand::Kind::Addr)
    fail(optok, "'" + name + "' needs [destination] and [source] address operands");
  if (ops[2].op.kind != Operand::Kind::Imm || (ops[2].op.imm != 4 && ops[2].op.imm != 8 && ops[2].op.imm != 16))
    fail(optok, "the copy size of '" + name + "' must be 4, 8 or 16");
  if (what == "cg" && ops[2].op.imm != 16) fail(optok, "cp.async.cg copies 16 bytes");
  for (size_t k = 0; k < ops.size(); ++k) in.src[k] = ops[k].op;
  in.nsrc = static_cast<uint8_t>(ops.size());
  // Optional: src-size (register or immediate), then ignore-src (a predicate). A predicate in
  // the fourth place is ignore-src without a src-size.
  auto is_pred = [&](const Operand& o) { return o.kind == Operand::Kind::Reg && fn_->regs[o.reg].type == Type::Pred; };
  if (in.nsrc == 4 && is_pred(in.src[3])) {
    in.src[4] = in.src[3];
    in.src[3] = Operand{};
    in.nsrc = 5;
  }
  if (in.nsrc >= 4 && in.src[3].kind != Operand::Kind::None && (!reg_or_imm(in.src[3]) || is_pred(in.src[3])))
    fail(optok, "the source size of '" + name + "' must be a register or a constant");
  if (in.nsrc == 5 && !is_pred(in.src[4])) fail(optok, "the ignore-src operand of '" + name + "' must be a predicate");
  return true;
}

// mbarrier.init / inval / arrive / arrive_drop / test_wait / try_wait / pending_count /
// expect_tx / complete_tx, with .shared{::cta} (or generic addressing), .b64, and the optional
// .release/.acquire/.relaxed and .cta/.cluster qualifiers.
bool Parser::parse_mbarrier(Instr& in, const std::vector<std::string_view>& mods) {
  const Token& optok = toks_[pos_ - 1];
  const std::string name(optok.text);
  auto unsupported = [&]() {
    record_unsupported(in, optok.line, "unsupported instruction '" + name + "'");
    skip_to_semicolon();
    return false;
  };
  if (mods.empty()) return unsupported();
  static const std::unordered_map<std::string_view, MbarOp> ops_by_name = {{"init", MbarOp::Init},
                                                                           {"inval", MbarOp::Inval},
                                                                           {"arrive", MbarOp::Arrive},
                                                                           {"arrive_drop", MbarOp::ArriveDrop},
                                                                           {"test_wait", MbarOp::TestWait},
                                                                           {"try_wait", MbarOp::TryWait},
                                                                           {"pending_count", MbarOp::PendingCount},
                                                                           {"expect_tx", MbarOp::ExpectTx},
                                                                           {"complete_tx", MbarOp::CompleteTx}};
  auto it = ops_by_name.find(mods[0]);
  if (it == ops_by_name.end()) return unsupported();
  in.op = Op::Mbarrier;
  in.mbar = it->second;
  in.space = Space::Generic;
  in.type = Type::B64;
  const MbarOp op = in.mbar;
  const bool arrive = op == MbarOp::Arrive || op == MbarOp::ArriveDrop;
  const bool wait = op == MbarOp::TestWait || op == MbarOp::TryWait;
  for (size_t k = 1; k < mods.size(); ++k) {
    const std::string_view w = mods[k];
    Space sp;
    Type t;
    Sem sem;
    Scope scope;
    if (word_space(w, sp) && sp == Space::Shared)
      in.space = sp;
    else if (word_type(w, t) && t == Type::B64)
      in.type = t;
    else if (wait && w == "parity")
      in.parity = true;
    else if (arrive && w == "noComplete")
      in.no_complete = true;
    else if (arrive && w == "expect_tx")
      in.expect_tx = true;
    else if (word_sem(w, sem) && (sem == Sem::Release || sem == Sem::Acquire || sem == Sem::Relaxed))
      in.sem = sem;
    else if (word_scope(w, scope) && (scope == Scope::Cta || scope == Scope::Cluster))
      in.scope = scope;
    else
      return unsupported();  // .shared::cluster (a remote barrier), ...
  }
  // Defaults: arrive is a release, a successful wait an acquire, at CTA scope (PTX ISA, mbarrier).
  if (in.sem == Sem::None) in.sem = arrive ? Sem::Release : wait ? Sem::Acquire : Sem::None;
  if (in.scope == Scope::None && (arrive || wait)) in.scope = Scope::Cta;
  if (in.scope == Scope::Cluster) in.scope = Scope::Cta;  // no clusters: a cluster is one block
  std::vector<POp> ops;
  // arrive_drop's state destination may be the sink "_".
  bool sink = false;
  if (peek().is("_") && peek(1).is(',')) {
    next();
    next();
    sink = true;
  }
  parse_operands(ops, false);
  expect(';', ("after " + name).c_str());
  for (const POp& p : ops)
    if (p.has_second) fail_at(p.line, "'|' in an operand of '" + name + "'");
  auto need = [&](size_t lo, size_t hi) {
    if (ops.size() < lo || ops.size() > hi) fail(optok, "wrong number of operands for '" + name + "'");
  };
  auto need_reg = [&](const Operand& o, bool pred, const char* what) {
    if (o.kind != Operand::Kind::Reg || (fn_->regs[o.reg].type == Type::Pred) != pred)
      fail(optok, std::string("the ") + what + " of '" + name + "' must be a " + (pred ? "predicate" : "register"));
  };
  auto need_addr = [&](const Operand& o) {
    if (o.kind != Operand::Kind::Addr) fail(optok, "'" + name + "' needs an [address] operand");
  };
  auto need_value = [&](const Operand& o) {
    if (o.kind != Operand::Kind::Reg && o.kind != Operand::Kind::Imm)
      fail(optok, "the count of '" + name + "' must be a register or a constant");
  };
  switch (op) {
    case MbarOp::Init:
      need(2, 2);
      need_addr(ops[0].op);
      need_value(ops[1].op);
      in.src[0] = ops[0].op;
      in.src[1] = ops[1].op;
      in.nsrc = 2;
      break;
    case MbarOp::Inval:
      need(1, 1);
      need_addr(ops[0].op);
      in.src[0] = ops[0].op;
      in.nsrc = 1;
      break;
    case MbarOp::ExpectTx:
    case MbarOp::CompleteTx:
      need(2, 2);
      need_addr(ops[0].op);
      need_value(ops[1].op);
      in.src[0] = ops[0].op;
      in.src[1] = ops[1].op;
      in.nsrc = 2;
      break;
    case MbarOp::Arrive:
    case MbarOp::ArriveDrop: {
      // {state,} [addr]{, count or tx-count}: the state may be left out (PTX 7.8+) or be "_".
      size_t k = 0;
      if (!sink && !ops.empty() && ops[0].op.kind != Operand::Kind::Addr) {
        need_reg(ops[0].op, false, "state destination");
        in.dst[0] = ops[0].op;
        in.ndst = 1;
        k = 1;
      }
      if (ops.size() < k + 1 || ops.size() > k + 2) fail(optok, "wrong number of operands for '" + name + "'");
      need_addr(ops[k].op);
      in.src[0] = ops[k].op;
      in.nsrc = 1;
      if (ops.size() == k + 2) {
        need_value(ops[k + 1].op);
        in.src[1] = ops[k + 1].op;
        in.nsrc = 2;
      }
      break;
    }
    case MbarOp::TestWait:
    case MbarOp::TryWait:
      need(3, op == MbarOp::TryWait ? 4 : 3);  // try_wait's optional suspend-time hint is ignored
      need_reg(ops[0].op, true, "destination");
      need_addr(ops[1].op);
      need_value(ops[2].op);
      in.dst[0] = ops[0].op;
      in.ndst = 1;
      in.src[0] = ops[1].op;
      in.src[1] = ops[2].op;
      in.nsrc = 2;
      break;
    case MbarOp::PendingCount:
      need(2, 2);
      need_reg(ops[0].op, false, "destination");
      need_value(ops[1].op);
      in.dst[0] = ops[0].op;
      in.ndst = 1;
      in.src[0] = ops[1].op;
      in.nsrc = 1;
      break;
    case MbarOp::None: break;
  }
  return true;
}

// call[.uni] [(ret),] target [, (args)] [, prototype];
void Parser::parse_call(Instr& in) {
  const Token& optok = toks_[pos_ - 1];
  CallSite cs;
  auto param_name = [&](std::vector<uint32_t>& syms, bool is_ret) {
    const Token& t = peek();
    Operand o;
    if (t.kind == Tok::Word) {
      next();
      o = resolve_value(t.text, t.line);
    } else {
      o = parse_operand(false).op;
    }
    if (o.kind == Operand::Kind::Symbol && m_.symbols[o.symbol].space == Space::Param) {
      syms.push_back(o.symbol);
    } else {
      if (is_ret) fail(t, "call return value must be a .param variable");
      if (o.kind != Operand::Kind::Reg && o.kind != Operand::Kind::Imm) fail(t, "bad call argument " + show(t));
      syms.push_back(Operand::kNoSymbol);
    }
    return o;
  };
  if (accept('(')) {
    if (!accept(')')) {
      do param_name(cs.rets, true);
      while (accept(','));
      expect(')', "to close the call's return list");
    }
    expect(',', "after the call's return list");
  }
  const Token& tt = peek();
  std::string_view target = expect_word("a call target");
  Operand to = resolve_value(target, tt.line);
  if (to.kind == Operand::Kind::Func)
    cs.callee = static_cast<uint32_t>(to.imm);
  else if (to.kind == Operand::Kind::Reg) {
    cs.callee = Operand::kNoReg;
    cs.target_reg = to.reg;
  } else
    fail(tt, "call target " + show(tt) + " is not a function");
  if (accept(',')) {
    if (accept('(')) {
      if (!accept(')')) {
        do cs.arg_ops.push_back(param_name(cs.args, false));
        while (accept(','));
        expect(')', "to close the call's argument list");
      }
      if (accept(',')) {
        const Token& pt = peek();
        std::string_view proto = expect_word("a call prototype");
        bool known = false;
        for (const NameScope& s : scopes_) known = known || s.protos.count(proto);
        if (!known) fail(pt, "unknown call prototype '" + std::string(proto) + "'");
      }
    } else {
      const Token& pt = peek();
      std::string_view proto = expect_word("a call prototype");
      bool known = false;
      for (const NameScope& s : scopes_) known = known || s.protos.count(proto);
      if (!known) fail(pt, "unknown call prototype '" + std::string(proto) + "'");
    }
  }
  expect(';', "after the call");
  if (cs.callee != Operand::kNoReg) {
    const Function& callee = m_.functions[cs.callee];
    if (callee.params.size() != cs.args.size() || callee.rets.size() != cs.rets.size())
      fail(optok, "call to '" + callee.name + "' with " + std::to_string(cs.args.size()) + " argument(s) and " +
                      std::to_string(cs.rets.size()) + " return value(s); it takes " +
                      std::to_string(callee.params.size()) + " and " + std::to_string(callee.rets.size()));
  }
  in.call = static_cast<uint32_t>(fn_->calls.size());
  in.nsrc = 1;
  in.src[0] = to;
  fn_->calls.push_back(std::move(cs));
  fn_->code.push_back(in);
}

// ---------------------------------------------------------------------------------------------
// End of module: .file numbers -> Module::files indexes.
// ---------------------------------------------------------------------------------------------

void Parser::resolve_files() {
  std::unordered_map<uint32_t, uint16_t> index;
  m_.files.clear();
  m_.files.push_back(SourceFile{0, ""});
  for (auto& [id, path] : file_dirs_) {
    if (index.count(id)) continue;
    index[id] = static_cast<uint16_t>(m_.files.size());
    m_.files.push_back(SourceFile{id, path});
  }
  auto map = [&](uint16_t f) -> uint16_t {
    auto it = index.find(f);
    return it == index.end() ? 0 : it->second;
  };
  // The line a report shows: the innermost frame of the inlining chain that is in the user's
  // own code (not a toolkit header such as the atomics or cooperative_groups), so a spin inside
  // an inlined helper is reported at the helper's loop, not at the kernel's call. Without such
  // a frame, the outermost one (the call from the kernel).
  std::unordered_map<uint32_t, bool> system_file;
  auto is_system = [&](uint32_t id) {
    auto it = system_file.find(id);
    if (it != system_file.end()) return it->second;
    std::string path;
    for (const auto& [fid, p] : file_dirs_)
      if (fid == id) path = p;
    const bool sys = path.rfind("/usr/include/", 0) == 0 || path.rfind("/usr/lib/", 0) == 0 ||
                     (path.find("/include/") != std::string::npos && path.find("cuda") != std::string::npos);
    system_file[id] = sys;
    return sys;
  };
  // Compiler-generated code at the head of a block that a branch jumps to (`.loc N 0 C` after a
  // label: a loop's test before its first source line) took the line of the code written before
  // it, which for a loop is the line above the loop. It takes the line of its own basic block
  // (build_cfg's) instead: that of the block's first instruction with a line.
  for (uint32_t fi = 0; fi < m_.functions.size(); ++fi) {
    const Function& fn = m_.functions[fi];
    auto node_of = [&](const Instr& in) { return instr_node_.find(uint64_t(fi) << 32 | in.ptx_line); };
    for (const BasicBlock& bb : fn.blocks) {
      const Instr& head = fn.code[bb.first];
      if (head.line != 0 || node_of(head) == instr_node_.end()) continue;
      const bool jumped_to = std::any_of(bb.preds.begin(), bb.preds.end(), [&](uint32_t p) {
        const Instr& last = fn.code[fn.blocks[p].last];
        return last.op == Op::Brx ||
               (last.op == Op::Bra && last.src[0].kind == Operand::Kind::Label && last.src[0].imm == bb.first);
      });
      uint32_t e = bb.first;
      while (e <= bb.last && fn.code[e].line == 0) ++e;
      if (!jumped_to || e > bb.last) continue;
      const auto real = node_of(fn.code[e]);
      if (real == instr_node_.end()) continue;
      const uint32_t node = real->second;
      for (uint32_t k = bb.first; k < e; ++k) instr_node_[uint64_t(fi) << 32 | fn.code[k].ptx_line] = node;
    }
  }
  for (uint32_t fi = 0; fi < m_.functions.size(); ++fi)
    for (Instr& in : m_.functions[fi].code) {
      auto it = instr_node_.find(uint64_t(fi) << 32 | in.ptx_line);
      if (it == instr_node_.end()) continue;
      in.toolkit = loc_nodes_[it->second].line && is_system(loc_nodes_[it->second].file);
      for (uint32_t n = it->second; n; n = loc_nodes_[n].parent) {
        const LocNode& ln = loc_nodes_[n];
        if (ln.line && !is_system(ln.file)) {
          in.user_file = static_cast<uint16_t>(ln.file);
          in.user_line = ln.line;
          in.inlined_at = ln.parent;
          break;
        }
      }
    }
  m_.inline_frames.clear();
  for (const LocNode& ln : loc_nodes_)
    m_.inline_frames.push_back(
        {is_system(ln.file) ? uint16_t(0) : map(static_cast<uint16_t>(ln.file)), ln.line, ln.parent});
  for (Function& fn : m_.functions)
    for (Instr& in : fn.code) {
      in.file = map(in.file);
      in.user_file = map(in.user_file);
      if (in.file == 0) in.line = in.col = 0;
      if (in.user_file == 0) in.user_line = 0;
    }
}

// The path of ".file N" found by scanning the raw text (for error messages; the parse may
// have stopped before nvcc's .file directives at the end).
std::string scan_file_path(std::string_view text, uint32_t id) {
  if (id == 0) return "";
  size_t p = 0;
  while ((p = text.find(".file", p)) != std::string_view::npos) {
    size_t q = p + 5;
    p = q;
    while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
    size_t b = q;
    while (q < text.size() && text[q] >= '0' && text[q] <= '9') ++q;
    uint64_t n;
    if (q == b || !parse_uint(text.substr(b, q - b), n) || n != id) continue;
    while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
    if (q >= text.size() || text[q] != '"') continue;
    size_t e = text.find('"', q + 1);
    if (e == std::string_view::npos) continue;
    return std::string(text.substr(q + 1, e - q - 1));
  }
  return "";
}

}  // namespace

Module parse_module(std::string_view text, const std::string& origin) {
  Parser p(text, origin);
  auto raise = [&](const Fail& f, const Loc& loc, const std::string& extra) -> ParseError {
    std::string file = scan_file_path(text, loc.ufile);
    return ParseError(origin, f.line, file, file.empty() ? 0 : loc.uline, f.msg + extra);
  };
  Module m;
  try {
    m = p.run();
  } catch (const Fail& f) {
    if (p.have_unsupported()) throw raise(p.first_unsupported(), p.first_unsupported_loc(), "");
    throw raise(f, p.loc(), "");
  } catch (const LexError& e) {
    if (p.have_unsupported()) throw raise(p.first_unsupported(), p.first_unsupported_loc(), "");
    throw ParseError(origin, e.line, "", 0, e.what());
  } catch (const std::bad_alloc&) {
    throw ParseError(origin, 0, "", 0, "out of memory while parsing");
  } catch (const std::exception& e) {  // a bug here must still be a clear load failure
    throw ParseError(origin, 0, "", 0, std::string("internal error in the PTX parser: ") + e.what());
  }
  // Unsupported instructions stay in the code as Op::Unsupported: the module loads, and a lane
  // that executes one ends its launch with the message (exec/instr/dispatch.cpp).
  return m;
}

}  // namespace synclab::sim::ptx
