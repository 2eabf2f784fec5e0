// Instruction semantics: what each decoded PTX instruction does to registers and memory for a
// group of lanes. Control flow, barriers and warp synchronization hand over to kernel_run.cpp,
// which owns the warp models.
//
// Sections:
//   1. Operands and special registers
//   2. Memory: address translation, loads, stores, atomics
//   3. Arithmetic, logic, comparison, conversion (exec_alu)
//   4. Warp-level operations (shfl, vote, match, redux, activemask)
//   5. Built-in functions (vprintf, __assertfail, malloc, free)
//   6. The dispatcher (exec_instr)
#include <emmintrin.h>
#include <fmt/format.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>

#include "sim/exec/convert.h"
#include "sim/exec/kernel_run.h"
#include "sim/exec/values.h"

namespace synclab::sim {

using ptx::AtomOp;
using ptx::Cmp;
using ptx::Op;
using ptx::Operand;
using ptx::Rounding;
using ptx::Space;
using ptx::SReg;
using ptx::Type;

#define FOR_LANES(mask)                          \
  for (uint32_t m_ = (mask); m_; m_ &= m_ - 1) { \
    const int lane = __builtin_ctz(m_);          \
    Lane& L = w.lanes[lane];                     \
    const LaneRegs R = w.regp[lane];             \
    (void)L;                                     \
    (void)R;
#define END_LANES }

namespace {
// Row helpers for warps whose lanes share one frame base (Warp::row): 32 lanes, two per SSE2
// register.
alignas(16) constexpr uint64_t kPairMask[4][2] = {{0, 0}, {~0ull, 0}, {0, ~0ull}, {~0ull, ~0ull}};

// D[l] = S[l] for the lanes in act, without a branch per lane.
inline void blend_row(uint64_t* D, const uint64_t* S, uint32_t act) {
  for (int l = 0; l < 32; l += 2) {
    const __m128i m = _mm_load_si128(reinterpret_cast<const __m128i*>(kPairMask[(act >> l) & 3]));
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(S + l));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(D + l));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(D + l), _mm_or_si128(_mm_and_si128(m, s), _mm_andnot_si128(m, d)));
  }
}
// Bit l = bit 0 of P[l] (a predicate row).
inline uint32_t row_bits(const uint64_t* P) {
  uint32_t lo = 0, hi = 0;
  for (int l = 0; l < 32; l += 4) {
    const __m128i a = _mm_slli_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(P + l)), 63);
    const __m128i b = _mm_slli_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(P + l + 2)), 63);
    lo |= uint32_t(_mm_movemask_pd(_mm_castsi128_pd(a))) << l;
    hi |= uint32_t(_mm_movemask_pd(_mm_castsi128_pd(b))) << (l + 2);
  }
  return lo | hi;
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. Operands and special registers
// ---------------------------------------------------------------------------------------------

uint64_t KernelRun::address(Lane& L, const Operand& o) const {
  uint64_t a = static_cast<uint64_t>(o.imm);
  if (o.reg != Operand::kNoReg) a += L.R()[o.reg];
  switch (o.base) {
    case Operand::Base::LocalFrame: a += L.local_base; break;
    case Operand::Base::ParamFrame: a += L.param_base; break;
    case Operand::Base::DynamicShared: a += dyn_shared_base_; break;
    default: break;
  }
  return a;
}

inline uint64_t KernelRun::operand(Warp& w, int lane, const Operand& o) {
  Lane& L = w.lanes[lane];
  switch (o.kind) {
    case Operand::Kind::Reg: {
      uint64_t v = w.regp[lane][o.reg];
      return o.negate ? (v & 1) ^ 1 : v;
    }
    case Operand::Kind::Imm: return static_cast<uint64_t>(o.imm);
    case Operand::Kind::SpecialReg: return special(w, lane, o.sreg);
    case Operand::Kind::Symbol:
    case Operand::Kind::Addr: return address(L, o);
    case Operand::Kind::Func: return kFunctionWindow + static_cast<uint64_t>(o.imm);
    default: return 0;
  }
}

uint64_t KernelRun::special(const Warp& w, int lane, SReg r) const {
  const Lane& L = w.lanes[lane];
  const Cta& c = *w.cta;
  switch (r) {
    case SReg::TidX: return L.tid[0];
    case SReg::TidY: return L.tid[1];
    case SReg::TidZ: return L.tid[2];
    case SReg::NtidX: return p_.block.x;
    case SReg::NtidY: return p_.block.y;
    case SReg::NtidZ: return p_.block.z;
    case SReg::CtaidX: return c.ctaid[0];
    case SReg::CtaidY: return c.ctaid[1];
    case SReg::CtaidZ: return c.ctaid[2];
    case SReg::NctaidX: return p_.grid.x;
    case SReg::NctaidY: return p_.grid.y;
    case SReg::NctaidZ: return p_.grid.z;
    case SReg::LaneId: return static_cast<uint64_t>(lane);
    case SReg::WarpId: return w.index;
    case SReg::NWarpId: return prof_.max_warps_per_sm;
    case SReg::SmId: return c.sm;
    case SReg::NSmId: return prof_.sm_count;
    case SReg::GridId: return 1;
    case SReg::LanemaskEq: return 1u << lane;
    case SReg::LanemaskLe: return lane == 31 ? 0xffffffffu : (2u << lane) - 1;
    case SReg::LanemaskLt: return (1u << lane) - 1;
    case SReg::LanemaskGe: return ~((1u << lane) - 1);
    case SReg::LanemaskGt: return lane == 31 ? 0u : ~((2u << lane) - 1);
    case SReg::Clock: return static_cast<uint32_t>(clock_base_ + sm_steps_[c.sm]);
    case SReg::ClockHi: return static_cast<uint32_t>((clock_base_ + sm_steps_[c.sm]) >> 32);
    case SReg::Clock64: return clock_base_ + sm_steps_[c.sm];
    case SReg::GlobalTimer: return time_base_ns_ + static_cast<uint64_t>(sim_ns());
    case SReg::GlobalTimerLo: return static_cast<uint32_t>(time_base_ns_ + static_cast<uint64_t>(sim_ns()));
    case SReg::GlobalTimerHi: return static_cast<uint32_t>((time_base_ns_ + static_cast<uint64_t>(sim_ns())) >> 32);
    case SReg::DynamicSmemSize: return p_.dynamic_shared;
    case SReg::TotalSmemSize: return c.shared.size();
    default: break;
  }
  int env = static_cast<int>(r) - static_cast<int>(SReg::EnvReg0);
  if (env >= 0 && env < 32) {
    // %envreg1 (high half) and %envreg2 (low half) hold the address of the cooperative
    // grid-barrier workspace: cooperative_groups joins them with bfi.b64 ..., 32, 32.
    if ((env == 1 || env == 2) && !p_.cooperative) envreg_read_ = true;
    if (env == 1) return grid_workspace_ >> 32;
    if (env == 2) return grid_workspace_ & 0xffffffffu;
    return 0;
  }
  return 0;
}

inline uint32_t KernelRun::guard_mask(Warp& w, uint32_t mask, const ptx::Instr& I) {
  if (I.guard == Operand::kNoReg) return mask;
  uint32_t act = 0;
  const uint32_t g = I.guard;
  if (w.uniform_base != Warp::kMixedBase) {
    // One row: bit 0 of each lane's predicate, all 32 lanes at once.
    act = row_bits(w.row(g));
    return mask & (I.guard_negated ? ~act : act);
  }
  const uint64_t want = I.guard_negated ? 0 : 1;
  for (uint32_t m = mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    act |= uint32_t((w.regp[lane][g] & 1) == want) << lane;
  }
  return act;
}

// ---------------------------------------------------------------------------------------------
// 2. Memory
// ---------------------------------------------------------------------------------------------

uint8_t* KernelRun::translate(Warp& w, int lane, Space space, uint64_t addr, uint32_t size, bool write,
                              const ptx::Instr& I, uint64_t* generic_out) {
  Lane& L = w.lanes[lane];
  if (space == Space::Generic) {
    if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) {
      space = Space::Shared;
      addr -= kSharedWindow;
    } else if (addr >= kLocalWindow && addr < kLocalWindow + kWindowSize) {
      space = Space::Local;
      addr -= kLocalWindow;
    } else {
      space = Space::Global;
    }
  }
  if (size > 1 && (addr & (size - 1)) != 0) {
    fault(w, lane, I, LaunchStatus::Fault, "misaligned address",
          fmt::format("{} of {} bytes at {} address 0x{:x}, which is not a multiple of {}", write ? "write" : "read",
                      size,
                      space == Space::Shared  ? "shared"
                      : space == Space::Local ? "local"
                                              : "global",
                      addr, size));
    return nullptr;
  }
  switch (space) {
    case Space::Shared:
    case Space::SharedCluster: {
      Cta& c = *w.cta;
      if (addr + size > c.shared.size() || addr + size < addr) {
        fault(w, lane, I, LaunchStatus::Fault, "out-of-bounds shared memory access",
              fmt::format("{} of {} bytes at shared offset 0x{:x}; the block has {} bytes of shared memory "
                          "({} static + {} dynamic)",
                          write ? "write" : "read", size, addr, c.shared.size(), static_shared_, p_.dynamic_shared));
        return nullptr;
      }
      if (generic_out) *generic_out = kSharedWindow + addr;
      return c.shared.data() + addr;
    }
    case Space::Local: {
      if (addr + size > L.local.size() || addr + size < addr) {
        fault(w, lane, I, LaunchStatus::Fault, "out-of-bounds local memory access",
              fmt::format("{} of {} bytes at local offset 0x{:x}; the thread's local memory is {} bytes",
                          write ? "write" : "read", size, addr, L.local.size()));
        return nullptr;
      }
      if (generic_out) *generic_out = kLocalWindow + addr;
      return L.local.data() + addr;
    }
    case Space::Global:
    case Space::Const: {
      if (!(w.cache_size && addr - w.cache_base < w.cache_size && size <= w.cache_size - (addr - w.cache_base))) {
        const Allocation* a = sim_.memory().find(addr, size);
        if (!a) {
          std::string why;
          if (const Allocation* f = sim_.memory().find_freed(addr))
            why = fmt::format("the address is inside {} (freed): use after free", f->name);
          else if (const Allocation* near = sim_.memory().nearest_below(addr);
                   near && addr - near->base < near->size + 4096)
            why = fmt::format(
                "the access runs past the end of {} ({} bytes at 0x{:x}; offset {} is {} bytes past "
                "its end)",
                near->name, near->size, near->base, addr - near->base, addr + size - (near->base + near->size));
          else if (addr < 4096) {
            why = "the address is near zero: a null pointer, or a host pointer never set";
            null_page_fault_ = true;
          } else
            why = "the address is not inside any allocation (a host pointer? a pointer past the end of an array?)";
          fault(w, lane, I, LaunchStatus::Fault, "invalid global memory access",
                fmt::format("{} of {} bytes at address 0x{:x}: {}", write ? "write" : "read", size, addr, why));
          return nullptr;
        }
        w.cache_base = a->base;
        w.cache_size = a->size;
        w.cache_kind = a->kind;
      }
      if (generic_out) *generic_out = addr;
      return reinterpret_cast<uint8_t*>(addr);
    }
    default:
      fault(w, lane, I, LaunchStatus::Fault, "unsupported state space",
            fmt::format("instruction {} uses a state space the simulator does not model", ptx::op_name(I.op)));
      return nullptr;
  }
}

uint8_t* KernelRun::param_ptr(Warp& w, int lane, const ptx::Function& fn, const Operand& o, uint32_t size,
                              const ptx::Instr& I) {
  Lane& L = w.lanes[lane];
  uint64_t a = address(L, o);
  bool kernel_params = o.base == Operand::Base::KernelParams || (o.base == Operand::Base::Absolute && fn.is_entry);
  if (kernel_params) {
    if (a + size > p_.params.size()) {
      fault(w, lane, I, LaunchStatus::Fault, "kernel parameter access out of range",
            fmt::format("{} bytes at parameter offset {}; the kernel's parameters take {} bytes", size, a,
                        p_.params.size()));
      return nullptr;
    }
    return const_cast<uint8_t*>(p_.params.data()) + a;
  }
  if (a + size > L.params.size()) {
    fault(w, lane, I, LaunchStatus::Fault, "parameter access out of range",
          fmt::format("{} bytes at parameter frame offset {}", size, a));
    return nullptr;
  }
  return L.params.data() + a;
}

bool KernelRun::load_bytes(Warp& w, int lane, Space sp, uint64_t addr, void* dst, uint32_t size, const ptx::Instr& I) {
  uint64_t generic = 0;
  uint8_t* p = translate(w, lane, sp, addr, size, false, I, &generic);
  if (!p) return false;
  if (w.cache_kind == AllocKind::HostMapped && generic < kSharedWindow && size <= 8) {
    // Mapped host memory may be written by host threads while the kernel runs.
    uint64_t v = 0;
    switch (size) {
      case 1: v = __atomic_load_n(p, __ATOMIC_RELAXED); break;
      case 2: v = __atomic_load_n(reinterpret_cast<uint16_t*>(p), __ATOMIC_RELAXED); break;
      case 4: v = __atomic_load_n(reinterpret_cast<uint32_t*>(p), __ATOMIC_RELAXED); break;
      default: v = __atomic_load_n(reinterpret_cast<uint64_t*>(p), __ATOMIC_RELAXED); break;
    }
    std::memcpy(dst, &v, size);
  } else {
    std::memcpy(dst, p, size);
  }
  if (checking_) {
    uint64_t v = 0;
    std::memcpy(&v, dst, std::min<uint32_t>(size, 8));
    check_access(w, lane, generic, size, false, false, I, v);
  }
  w.last_load[lane] = generic;
  return true;
}

void KernelRun::note_write(Warp& w, int lane, uint64_t generic, const ptx::Instr& I) {
  hang_.visible_change(steps_);
  hang_.record_writer(generic, w.cta->linear, w.lanes[lane].tid_linear, I.user_line, I.ptx_line, I.user_file);
}

bool KernelRun::store_bytes(Warp& w, int lane, Space sp, uint64_t addr, const void* src, uint32_t size,
                            const ptx::Instr& I) {
  uint64_t generic = 0;
  uint8_t* p = translate(w, lane, sp, addr, size, true, I, &generic);
  if (!p) return false;
  if (generic >= kLocalWindow && generic < kLocalWindow + kWindowSize) {
    std::memcpy(p, src, size);
    return true;
  }
  if (w.cache_kind == AllocKind::ModuleConst && generic < kSharedWindow) {
    fault(w, lane, I, LaunchStatus::Fault, "write to constant memory",
          fmt::format("{} bytes at address 0x{:x} in {}", size, generic, "a __constant__ variable"));
    return false;
  }
  if (checking_) {
    uint64_t v = 0;
    std::memcpy(&v, src, std::min<uint32_t>(size, 8));
    check_access(w, lane, generic, size, true, false, I, v);
  }
  if (std::memcmp(p, src, size) != 0) {
    if (w.cache_kind == AllocKind::HostMapped && generic < kSharedWindow && size <= 8) {
      uint64_t v = 0;
      std::memcpy(&v, src, size);
      switch (size) {
        case 1: __atomic_store_n(p, uint8_t(v), __ATOMIC_RELAXED); break;
        case 2: __atomic_store_n(reinterpret_cast<uint16_t*>(p), uint16_t(v), __ATOMIC_RELAXED); break;
        case 4: __atomic_store_n(reinterpret_cast<uint32_t*>(p), uint32_t(v), __ATOMIC_RELAXED); break;
        default: __atomic_store_n(reinterpret_cast<uint64_t*>(p), v, __ATOMIC_RELAXED); break;
      }
    } else {
      std::memcpy(p, src, size);
    }
    note_write(w, lane, generic, I);
  }
  return true;
}

namespace {

// Extends a loaded value of `size` bytes by the instruction type's signedness.
uint64_t extend_loaded(uint64_t v, uint32_t size, Type t) {
  if (!ptx::type_is_signed(t) || size >= 8) return v;
  const int shift = 64 - static_cast<int>(size) * 8;
  return static_cast<uint64_t>((static_cast<int64_t>(v << shift)) >> shift);
}

uint32_t elem_size(Type t) {
  uint32_t s = ptx::type_size(t);
  return s == 0 ? 4 : s;
}

}  // namespace

// Fast path of a scalar access: shared memory, or the global allocation the warp touched last
// (not mapped host memory, which needs atomic access). Returns nullptr when the slow path must
// decide (other spaces, a new allocation, any error).
inline uint8_t* KernelRun::fast_ptr(Warp& w, Space sp, uint64_t addr, uint32_t size, bool write, uint64_t* generic) {
  if (addr & (size - 1)) return nullptr;
  if (sp == Space::Const && !write) sp = Space::Global;
  if (sp == Space::Generic) {
    if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) {
      sp = Space::Shared;
      addr -= kSharedWindow;
    } else if (addr < kSharedWindow) {
      sp = Space::Global;
    } else {
      return nullptr;
    }
  }
  if (sp == Space::Shared) {
    std::vector<uint8_t>& sh = w.cta->shared;
    if (addr > sh.size() || sh.size() - addr < size) return nullptr;
    *generic = kSharedWindow + addr;
    return sh.data() + addr;
  }
  if (sp == Space::Global && w.cache_kind != AllocKind::HostMapped &&
      (!write || w.cache_kind != AllocKind::ModuleConst) && addr - w.cache_base < w.cache_size &&
      w.cache_size - (addr - w.cache_base) >= size) {
    *generic = addr;
    return reinterpret_cast<uint8_t*>(addr);
  }
  return nullptr;
}

// The row form of a scalar access (every lane shares its frame base, so the address operand is
// one row A, or absent): fills X[l] = A[l] + off (off for every lane without A) and, when the
// address of every active lane passes the rules of fast_ptr, returns true with the offsets that
// turn an address into its host pointer (X[l] + host_off) and its generic address
// (X[l] + gen_off). False when any lane needs the slow path, which then decides lane by lane
// exactly as before (nothing has been touched yet).
bool KernelRun::row_span(Warp& w, uint32_t act, Space sp, const uint64_t* A, uint64_t off, uint64_t* X, uint32_t size,
                         bool write, uint64_t* host_off, uint64_t* gen_off) {
  if (sp == Space::Const && !write) sp = Space::Global;
  const uint64_t x0 = (A ? A[__builtin_ctz(act)] : 0) + off;
  uint64_t lo = 0;  // what the window starts at in the addresses of X
  bool via_generic = false;
  if (sp == Space::Generic) {
    if (x0 >= kSharedWindow && x0 < kSharedWindow + kWindowSize) {
      sp = Space::Shared;
      lo = kSharedWindow;
    } else if (x0 < kSharedWindow) {
      sp = Space::Global;
      via_generic = true;
    } else {
      return false;
    }
  }
  uint64_t span;  // an address x is inside when x - lo <= span
  if (sp == Space::Shared) {
    std::vector<uint8_t>& sh = w.cta->shared;
    if (sh.size() < size) return false;
    span = sh.size() - size;
    *host_off = reinterpret_cast<uintptr_t>(sh.data()) - lo;
    *gen_off = kSharedWindow - lo;
  } else if (sp == Space::Global) {
    if ((x0 & (size - 1)) == 0 && !(x0 - w.cache_base < w.cache_size && w.cache_size - (x0 - w.cache_base) >= size)) {
      // A new allocation: look it up as translate() would for the first lane.
      const Allocation* al = sim_.memory().find(x0, size);
      if (!al) return false;
      w.cache_base = al->base;
      w.cache_size = al->size;
      w.cache_kind = al->kind;
    }
    if (w.cache_kind == AllocKind::HostMapped || (write && w.cache_kind == AllocKind::ModuleConst) ||
        w.cache_size < size)
      return false;
    // Through a generic address, global memory is what lies below the shared window.
    if (via_generic && (w.cache_base >= kSharedWindow || kSharedWindow - w.cache_base < w.cache_size)) return false;
    lo = w.cache_base;
    span = w.cache_size - size;
    *host_off = 0;
    *gen_off = 0;
  } else {
    return false;
  }
  if (span >> 63) return false;
  // Two lanes at a time: with d = x - lo, a lane is outside when d > span, that is when d or
  // span - d has its top bit set (span < 2^63), and misaligned when a = x & (size - 1) is not 0,
  // that is when 0 - a has its top bit set.
  const __m128i vlo = _mm_set1_epi64x(static_cast<long long>(lo));
  const __m128i vspan = _mm_set1_epi64x(static_cast<long long>(span));
  const __m128i valign = _mm_set1_epi64x(static_cast<long long>(size - 1));
  const __m128i voff = _mm_set1_epi64x(static_cast<long long>(off));
  const __m128i zero = _mm_setzero_si128();
  uint32_t bad = 0;
  // Only the pairs of lanes that hold an active lane (X of the others is left unset).
  const int first_pair = __builtin_ctz(act) & ~1, end_pair = 32 - (__builtin_clz(act) & ~1);
  for (int l = first_pair; l < end_pair; l += 2) {
    const __m128i x = A ? _mm_add_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(A + l)), voff) : voff;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(X + l), x);
    const __m128i d = _mm_sub_epi64(x, vlo);
    const __m128i t =
        _mm_or_si128(_mm_or_si128(d, _mm_sub_epi64(vspan, d)), _mm_sub_epi64(zero, _mm_and_si128(x, valign)));
    bad |= uint32_t(_mm_movemask_pd(_mm_castsi128_pd(t))) << l;
  }
  return (bad & act) == 0;
}

namespace {
template <class T>
inline void load_lanes(uint64_t* D, const uint64_t* X, uint32_t act, uint64_t host_off) {
  for (uint32_t m = act; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    T v;
    std::memcpy(&v, reinterpret_cast<const void*>(X[l] + host_off), sizeof(T));
    // Signed types sign-extend to 64 bits, the others zero-extend (extend_loaded).
    D[l] = static_cast<uint64_t>(std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>(v));
  }
}
}  // namespace

// exec_ld's row form (see row_span). False: take the lane-by-lane path.
bool KernelRun::ld_rows(Warp& w, uint32_t act, const ptx::Instr& I, uint32_t es) {
  const Operand& a = I.src[0];
  alignas(16) uint64_t X[32];
  const uint64_t off = static_cast<uint64_t>(a.imm) + (a.base == Operand::Base::DynamicShared ? dyn_shared_base_ : 0);
  uint64_t host_off, gen_off;
  if (!row_span(w, act, I.space, a.reg != Operand::kNoReg ? w.row(a.reg) : nullptr, off, X, es, false, &host_off,
                &gen_off))
    return false;
  if (checking_) check_rows(w, act, X, gen_off, es, false, I);
  uint64_t* D = w.row(I.dst[0].reg);
  const bool sgn = ptx::type_is_signed(I.type);
  switch (es) {
    case 1: sgn ? load_lanes<int8_t>(D, X, act, host_off) : load_lanes<uint8_t>(D, X, act, host_off); break;
    case 2: sgn ? load_lanes<int16_t>(D, X, act, host_off) : load_lanes<uint16_t>(D, X, act, host_off); break;
    case 4: sgn ? load_lanes<int32_t>(D, X, act, host_off) : load_lanes<uint32_t>(D, X, act, host_off); break;
    default: load_lanes<uint64_t>(D, X, act, host_off); break;
  }
  if (hang_.suspicious(steps_)) {
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      w.last_load[l] = X[l] + gen_off;
    }
  }
  return true;
}

namespace {
// Stores the low sizeof(T) bytes of v at p if they differ from what is there; true if they did.
template <class T>
inline bool store_changed(uint8_t* p, uint64_t v) {
  T old, nw = static_cast<T>(v);
  std::memcpy(&old, p, sizeof(T));
  if (old == nw) return false;
  std::memcpy(p, &nw, sizeof(T));
  return true;
}
}  // namespace

// exec_st's row form (see row_span): the lanes store in lane order, as the lane-by-lane path does.
bool KernelRun::st_rows(Warp& w, uint32_t act, const ptx::Instr& I, uint32_t es) {
  const Operand& a = I.src[0];
  const Operand& v = I.src[1];
  alignas(16) uint64_t X[32];
  const uint64_t off = static_cast<uint64_t>(a.imm) + (a.base == Operand::Base::DynamicShared ? dyn_shared_base_ : 0);
  uint64_t host_off, gen_off;
  if (!row_span(w, act, I.space, a.reg != Operand::kNoReg ? w.row(a.reg) : nullptr, off, X, es, true, &host_off,
                &gen_off))
    return false;
  if (check_race_ && (act & (act - 1))) check_store_collisions(w, act, I, es, X, gen_off);
  if (checking_) check_rows(w, act, X, gen_off, es, true, I);
  const uint64_t* V = v.kind == Operand::Kind::Reg && !v.negate ? w.row(v.reg) : nullptr;
  bool changed_any = false;
  const uint64_t cta = w.cta->linear;
  // Threads form warps in linear order: lane l of warp i is thread i * 32 + l of its block.
  const uint32_t tid0 = w.index * 32;
  uint64_t region = ~0ull, region_start = 0;  // HangDetector::slot, computed once per region
  for (uint32_t m = act; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    const uint64_t val = V ? V[l] : operand(w, l, v);
    uint8_t* p = reinterpret_cast<uint8_t*>(X[l] + host_off);
    bool changed;
    switch (es) {
      case 1: changed = store_changed<uint8_t>(p, val); break;
      case 2: changed = store_changed<uint16_t>(p, val); break;
      case 4: changed = store_changed<uint32_t>(p, val); break;
      default: changed = store_changed<uint64_t>(p, val); break;
    }
    if (changed) {
      // Only a change is visible to other threads (note_write, with one epoch step for the
      // instruction).
      const uint64_t generic = X[l] + gen_off;
      if (generic >> 14 != region) {
        region = generic >> 14;
        region_start = HangDetector::region_start(generic);
      }
      hang_.record_writer_at(HangDetector::slot_in(generic, region_start), generic, cta, tid0 + l, I.user_line,
                             I.ptx_line, I.user_file);
      changed_any = true;
    }
  }
  if (changed_any) hang_.visible_change(steps_);
  return true;
}

void KernelRun::exec_ld(Warp& w, uint32_t act, const ptx::Function& fn, const ptx::Instr& I) {
  const uint32_t es = elem_size(I.type);
  const uint32_t n = I.vec ? I.vec : 1;
  const Operand& d = I.dst[0];
  const Operand& a = I.src[0];
  const bool scalar = cfg_.fast && n == 1 && es <= 8 && d.kind == Operand::Kind::Reg &&
                      (a.base == Operand::Base::Absolute || a.base == Operand::Base::DynamicShared) &&
                      I.space != Space::Param && I.space != Space::Local;
  const uint64_t base_off = a.base == Operand::Base::DynamicShared ? dyn_shared_base_ : 0;
  if (!act) return;
  if ((I.exec & ptx::Instr::kExecLdScalar) && !tw_ && w.uniform_base != Warp::kMixedBase && ld_rows(w, act, I, es))
    return;
  const bool track = hang_.suspicious(steps_);
  if (I.space == Space::Param && n == 1 && es <= 8 && d.kind == Operand::Kind::Reg &&
      a.base == Operand::Base::KernelParams && a.reg == Operand::kNoReg) {
    // A kernel parameter: the same value for every lane.
    const uint64_t off = static_cast<uint64_t>(a.imm);
    if (off + es <= p_.params.size()) {
      uint64_t v = 0;
      std::memcpy(&v, p_.params.data() + off, es);
      v = extend_loaded(v, es, I.type);
      for (uint32_t m = act; m; m &= m - 1) w.regp[__builtin_ctz(m)][d.reg] = v;
      return;
    }
  }
  FOR_LANES(act)
  if (scalar) {
    uint64_t generic = 0;
    const uint64_t addr = (a.reg != Operand::kNoReg ? R[a.reg] : 0) + static_cast<uint64_t>(a.imm) + base_off;
    if (const uint8_t* p = fast_ptr(w, I.space, addr, es, false, &generic)) {
      uint64_t v;
      switch (es) {
        case 1: v = *p; break;
        case 2: {
          uint16_t x;
          std::memcpy(&x, p, 2);
          v = x;
          break;
        }
        case 4: {
          uint32_t x;
          std::memcpy(&x, p, 4);
          v = x;
          break;
        }
        default: std::memcpy(&v, p, 8); break;
      }
      R[d.reg] = extend_loaded(v, es, I.type);
      if (checking_) check_access(w, lane, generic, es, false, false, I, v);
      if (track) w.last_load[lane] = generic;
      continue;
    }
  }
  uint8_t buf[64] = {0};
  if (I.space == Space::Param) {
    uint8_t* p = param_ptr(w, lane, fn, a, es * n, I);
    if (!p) return;
    std::memcpy(buf, p, es * n);
  } else {
    if (!load_bytes(w, lane, I.space, address(L, a), buf, es * n, I)) return;
  }
  for (uint32_t e = 0; e < n; ++e) {
    uint64_t v = 0;
    std::memcpy(&v, buf + e * es, std::min<uint32_t>(es, 8));
    v = extend_loaded(v, es, I.type);
    uint32_t reg = d.kind == Operand::Kind::Vector ? d.vec[e] : d.reg;
    if (reg != Operand::kNoReg) R[reg] = v;
    if (es == 16 && d.kind == Operand::Kind::Vector) {  // .b128 into two 64-bit registers
      uint64_t hi = 0;
      std::memcpy(&hi, buf + 8, 8);
      if (d.vec[1] != Operand::kNoReg) R[d.vec[1]] = hi;
      break;
    }
  }
  END_LANES
}

// Lanes of one warp are ordered between the instructions they execute together, never within
// one: when two lanes of this store write the same bytes, only one lane's value survives, under
// every warp model and on every GPU. Found here, before the store, where every lane's address and
// value are at hand; the race detector leaves such pairs to this check (Access::step).
void KernelRun::check_store_collisions(Warp& w, uint32_t act, const ptx::Instr& I, uint32_t bytes, const uint64_t* G,
                                       uint64_t g_off) {
  // Explicit atomics (st.relaxed/.release, cuda::atomic_ref stores) are ordered by coherence; local
  // and parameter memory is each thread's own.
  using ptx::Sem;
  if (I.sem != Sem::None && I.sem != Sem::Weak && I.sem != Sem::Volatile) return;
  if (I.space == Space::Local || I.space == Space::Param) return;
  if (G) {  // the row form: every lane in one window; most rows rise without overlap
    uint64_t end = 0;
    bool first = true, rising = true;
    for (uint32_t m = act; m && rising; m &= m - 1) {
      const uint64_t x = G[__builtin_ctz(m)];
      rising = first || x >= end;
      end = x + bytes;
      first = false;
    }
    if (rising) return;
  }
  // Every lane's generic address: the row form's (G[l] + g_off), or computed here.
  const Operand& a = I.src[0];
  uint64_t A[32];
  uint32_t lanes = 0;
  bool ordered = true;  // addresses rise with the lane number without overlap: the common case
  uint64_t prev_end = 0;
  for (uint32_t m = act; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    uint64_t x;
    if (G) {
      x = G[l] + g_off;
    } else {
      x = address(w.lanes[l], a);
      if (I.space == Space::Shared || I.space == Space::SharedCluster) x += kSharedWindow;
    }
    if (x >= kLocalWindow && x < kLocalWindow + kWindowSize) continue;
    A[l] = x;
    if (lanes && x < prev_end) ordered = false;
    prev_end = x + bytes;
    lanes |= 1u << l;
  }
  if (ordered) return;
  // Lanes in address order (at most 32: insertion sort), then the first address two lanes share.
  int order[32], k = 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    int j = k++;
    while (j > 0 && A[order[j - 1]] > A[l]) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = l;
  }
  for (int i = 1; i < k; ++i) {
    const uint64_t at = A[order[i]];
    if (at >= A[order[i - 1]] + bytes) continue;
    // Every lane whose bytes cover `at`, and what each stored (scalar stores only).
    uint32_t writers = 0;
    uint64_t V[32] = {0};
    const Operand& v = I.src[1];
    const bool scalar = v.kind != Operand::Kind::Vector && bytes <= 8;
    for (int j = 0; j < k; ++j) {
      const int l = order[j];
      if (A[l] <= at && at < A[l] + bytes) {
        writers |= 1u << l;
        if (scalar) {
          V[l] = operand(w, l, v);
          if (bytes < 8) V[l] &= (1ull << (8 * bytes)) - 1;
        }
      }
    }
    report_store_collision(w, I, at, bytes, writers, scalar ? V : nullptr);
    return;
  }
}

void KernelRun::exec_st(Warp& w, uint32_t act, const ptx::Function& fn, const ptx::Instr& I) {
  const uint32_t es = elem_size(I.type);
  const uint32_t n = I.vec ? I.vec : 1;
  // st [addr], value: the parser puts the address in src[0] and the value in src[1].
  const Operand* a = &I.src[0];
  const Operand* v = &I.src[1];
  const bool scalar = cfg_.fast && n == 1 && es <= 8 && v->kind != Operand::Kind::Vector &&
                      (a->base == Operand::Base::Absolute || a->base == Operand::Base::DynamicShared) &&
                      a->kind == Operand::Kind::Addr && I.space != Space::Param && I.space != Space::Local;
  const uint64_t base_off = a->base == Operand::Base::DynamicShared ? dyn_shared_base_ : 0;
  if (!act) return;
  if ((I.exec & ptx::Instr::kExecLdScalar) && !tw_ && w.uniform_base != Warp::kMixedBase && st_rows(w, act, I, es))
    return;
  if (check_race_ && (act & (act - 1))) check_store_collisions(w, act, I, es * n, nullptr, 0);
  FOR_LANES(act)
  if (scalar) {
    uint64_t generic = 0;
    const uint64_t addr = (a->reg != Operand::kNoReg ? R[a->reg] : 0) + static_cast<uint64_t>(a->imm) + base_off;
    if (uint8_t* p = fast_ptr(w, I.space, addr, es, true, &generic)) {
      const uint64_t val = v->kind == Operand::Kind::Reg && !v->negate ? R[v->reg] : operand(w, lane, *v);
      if (checking_) check_access(w, lane, generic, es, true, false, I, val);
      // Little-endian: the value's low bytes are what is stored. Only a change is visible.
      uint64_t old = 0;
      bool changed;
      switch (es) {
        case 1: changed = *p != uint8_t(val); break;
        case 2: {
          uint16_t x;
          std::memcpy(&x, p, 2);
          changed = x != uint16_t(val);
          break;
        }
        case 4: {
          uint32_t x;
          std::memcpy(&x, p, 4);
          changed = x != uint32_t(val);
          break;
        }
        default:
          std::memcpy(&old, p, 8);
          changed = old != val;
          break;
      }
      if (changed) {
        switch (es) {
          case 1: *p = uint8_t(val); break;
          case 2: {
            uint16_t x = uint16_t(val);
            std::memcpy(p, &x, 2);
            break;
          }
          case 4: {
            uint32_t x = uint32_t(val);
            std::memcpy(p, &x, 4);
            break;
          }
          default: std::memcpy(p, &val, 8); break;
        }
        note_write(w, lane, generic, I);
      }
      continue;
    }
  }
  uint8_t buf[64] = {0};
  for (uint32_t e = 0; e < n; ++e) {
    uint64_t val;
    if (v->kind == Operand::Kind::Vector) {
      uint32_t reg = v->vec[e];
      val = reg == Operand::kNoReg ? 0 : R[reg];
    } else {
      val = operand(w, lane, *v);
    }
    std::memcpy(buf + e * es, &val, std::min<uint32_t>(es, 8));
  }
  if (I.space == Space::Param) {
    uint8_t* p = param_ptr(w, lane, fn, *a, es * n, I);
    if (!p) return;
    std::memcpy(p, buf, es * n);
  } else {
    if (!store_bytes(w, lane, I.space, address(L, *a), buf, es * n, I)) return;
  }
  END_LANES
}

namespace {

template <class T>
__attribute__((always_inline)) inline T atomic_apply(AtomOp op, T old, T b, T c) {
  switch (op) {
    case AtomOp::Add: return static_cast<T>(old + b);
    case AtomOp::Min:
      return std::is_floating_point_v<T> ? (std::isnan(double(old)) ? b : std::min(old, b)) : std::min(old, b);
    case AtomOp::Max:
      return std::is_floating_point_v<T> ? (std::isnan(double(old)) ? b : std::max(old, b)) : std::max(old, b);
    case AtomOp::Exch: return b;
    case AtomOp::Cas: return old == b ? c : old;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case AtomOp::Inc: return old >= b ? T(0) : T(old + 1);
      case AtomOp::Dec: return (old == 0 || old > b) ? b : T(old - 1);
      case AtomOp::And: return old & b;
      case AtomOp::Or: return old | b;
      case AtomOp::Xor: return old ^ b;
      default: break;
    }
  }
  return old;
}

template <class T>
__attribute__((always_inline)) inline uint64_t atomic_rmw(uint8_t* p, bool host_shared, AtomOp op, uint64_t bb,
                                                          uint64_t cb, uint64_t* new_bits) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;
  U* up = reinterpret_cast<U*>(p);
  const T b = from_bits<T>(bb), c = from_bits<T>(cb);
  if (host_shared) {
    U cur = __atomic_load_n(up, __ATOMIC_SEQ_CST);
    for (;;) {
      T next = atomic_apply<T>(op, bitcast<T>(cur), b, c);
      U nb = bitcast<U>(next);
      if (__atomic_compare_exchange_n(up, &cur, nb, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        *new_bits = nb;
        return to_bits<T>(bitcast<T>(cur));
      }
    }
  }
  U cur;
  std::memcpy(&cur, p, sizeof(U));
  T next = atomic_apply<T>(op, bitcast<T>(cur), b, c);
  U nb = bitcast<U>(next);
  std::memcpy(p, &nb, sizeof(U));
  *new_bits = nb;
  return to_bits<T>(bitcast<T>(cur));
}

}  // namespace

// One lane after the other, in lane order, with the value type T fixed for the whole loop.
template <class T>
void KernelRun::atom_lanes(Warp& w, uint32_t act, const ptx::Instr& I) {
  const bool is_red = I.op == Op::Red;
  // atom d, [a], b{, c} and red [a], b: the address is src[0] and the operands follow it.
  const Operand& a = I.src[0];
  const Operand& ob = I.src[1];
  const Operand& oc = I.src[2];
  const uint32_t size = elem_size(I.type);
  const bool abs_addr = a.base == Operand::Base::Absolute;
  const bool cas = I.aop == AtomOp::Cas;
  const bool write_back = !is_red && I.ndst && I.dst[0].kind == Operand::Kind::Reg;
  auto value = [&](int lane, const LaneRegs& R, const Operand& o) -> uint64_t {
    if (o.kind == Operand::Kind::Reg && !o.negate) return R[o.reg];
    if (o.kind == Operand::Kind::Imm) return static_cast<uint64_t>(o.imm);
    return operand(w, lane, o);
  };
  if (abs_addr && !tw_ && w.uniform_base != Warp::kMixedBase && act) {
    // Row form (see row_span): every lane's word is in shared memory or the warp's cached
    // global allocation (not mapped host memory), so no lane can fault; the lanes still apply
    // their operations one after the other, in lane order.
    alignas(16) uint64_t X[32];
    uint64_t host_off, gen_off;
    if (row_span(w, act, I.space, a.reg != Operand::kNoReg ? w.row(a.reg) : nullptr, static_cast<uint64_t>(a.imm), X,
                 size, true, &host_off, &gen_off)) {
      // The operands, one row each: a register's row, or the values gathered first (an
      // immediate, or any other operand form; these do not depend on what the lanes write).
      alignas(16) uint64_t bv[32], cv[32];
      auto operand_row = [&](const Operand& o, uint64_t* buf) -> const uint64_t* {
        if (o.kind == Operand::Kind::Reg && !o.negate) return w.row(o.reg);
        if (o.kind == Operand::Kind::Imm) {
          for (int l = 0; l < 32; ++l) buf[l] = static_cast<uint64_t>(o.imm);
        } else {
          for (uint32_t m = act; m; m &= m - 1) buf[__builtin_ctz(m)] = operand(w, __builtin_ctz(m), o);
        }
        return buf;
      };
      const uint64_t* B = operand_row(ob, bv);
      const uint64_t* C = cas ? operand_row(oc, cv) : nullptr;
      uint64_t* D = write_back ? w.row(I.dst[0].reg) : nullptr;
      const uint64_t keep = size < 8 ? (1ull << (size * 8)) - 1 : ~0ull;
      const uint64_t cta = w.cta->linear;
      bool changed_any = false;
      // The operation is fixed for the loop: each instantiation folds atomic_apply's switch.
      auto lanes = [&](auto op_of) {
        const AtomOp op = op_of();
        for (uint32_t m = act; m; m &= m - 1) {
          const int l = __builtin_ctz(m);
          uint64_t nb = 0;
          const uint64_t generic = X[l] + gen_off;
          if (checking_) check_access(w, l, generic, size, true, true, I, 0);
          const uint64_t old =
              atomic_rmw<T>(reinterpret_cast<uint8_t*>(X[l] + host_off), false, op, B[l], C ? C[l] : 0, &nb);
          if ((old & keep) != (nb & keep)) {
            // note_write, with one epoch step for the instruction.
            hang_.record_writer(generic, cta, w.index * 32 + l, I.user_line, I.ptx_line, I.user_file);
            changed_any = true;
          }
          // As in the lane-by-lane path below: every read-modify-write but a failed
          // compare-and-swap is a write for the race checker.
          if (checking_ && !(cas && (old & keep) != (B[l] & keep))) check_atomic_write(w, l, generic, I);
          w.last_load[l] = generic;
          if (D) D[l] = old;
        }
      };
      switch (I.aop) {
        case AtomOp::Cas: lanes([] { return AtomOp::Cas; }); break;
        case AtomOp::Exch: lanes([] { return AtomOp::Exch; }); break;
        case AtomOp::Add: lanes([] { return AtomOp::Add; }); break;
        default: lanes([&] { return I.aop; }); break;
      }
      if (changed_any) hang_.visible_change(steps_);
      return;
    }
  }
  FOR_LANES(act)
  const uint64_t addr =
      abs_addr ? static_cast<uint64_t>(a.imm) + (a.reg != Operand::kNoReg ? R[a.reg] : 0) : address(L, a);
  uint64_t generic = 0;
  uint8_t* p = fast_ptr(w, I.space, addr, size, true, &generic);
  if (!p) p = translate(w, lane, I.space, addr, size, true, I, &generic);
  if (!p) return;
  if (w.cache_kind == AllocKind::ModuleConst && generic < kSharedWindow) {
    fault(w, lane, I, LaunchStatus::Fault, "atomic on constant memory", "");
    return;
  }
  const bool host_shared = generic < kSharedWindow && w.cache_kind == AllocKind::HostMapped;
  if (checking_) check_access(w, lane, generic, size, true, true, I, 0);
  const uint64_t b = value(lane, R, ob);
  const uint64_t c = cas ? value(lane, R, oc) : 0;
  uint64_t nb = 0;
  const uint64_t old = atomic_rmw<T>(p, host_shared, I.aop, b, c, &nb);
  const uint64_t keep = size < 8 ? (1ull << (size * 8)) - 1 : ~0ull;
  const uint64_t old_cmp = old & keep, nb_cmp = nb & keep;
  if (old_cmp != nb_cmp) note_write(w, lane, generic, I);
  // Every read-modify-write is a write in the memory model, also when it leaves the value as
  // it was (atomicAdd(p, 0), atomicMax that does not raise): it can be a release and it
  // continues release sequences. Only a failed compare-and-swap writes nothing.
  const bool failed_cas = cas && old_cmp != (b & keep);
  if (checking_ && !failed_cas) check_atomic_write(w, lane, generic, I);
  if (tw_) trace_atomic(w, lane, generic, size, old_cmp, nb_cmp, I);
  w.last_load[lane] = generic;
  if (write_back) R[I.dst[0].reg] = old;
  END_LANES
}

void KernelRun::exec_atom(Warp& w, uint32_t act, const ptx::Instr& I) {
  switch (I.type) {
    case Type::S32: atom_lanes<int32_t>(w, act, I); return;
    case Type::U32:
    case Type::B32: atom_lanes<uint32_t>(w, act, I); return;
    case Type::S64: atom_lanes<int64_t>(w, act, I); return;
    case Type::U64:
    case Type::B64: atom_lanes<uint64_t>(w, act, I); return;
    case Type::F32: atom_lanes<float>(w, act, I); return;
    case Type::F64: atom_lanes<double>(w, act, I); return;
    case Type::F16: atom_lanes<half_t>(w, act, I); return;
    case Type::B16:
    case Type::U16: atom_lanes<uint16_t>(w, act, I); return;
    default: break;
  }
  // A type no atomic has: the first lane reports it, after the same address checks as above.
  const Operand& a = I.src[0];
  const uint32_t size = elem_size(I.type);
  FOR_LANES(act)
  uint64_t addr = address(L, a);
  uint64_t generic = 0;
  uint8_t* p = fast_ptr(w, I.space, addr, size, true, &generic);
  if (!p) p = translate(w, lane, I.space, addr, size, true, I, &generic);
  if (!p) return;
  if (w.cache_kind == AllocKind::ModuleConst && generic < kSharedWindow) {
    fault(w, lane, I, LaunchStatus::Fault, "atomic on constant memory", "");
    return;
  }
  if (checking_) check_access(w, lane, generic, size, true, true, I, 0);
  operand(w, lane, I.src[1]);
  if (I.aop == AtomOp::Cas) operand(w, lane, I.src[2]);
  fault(w, lane, I, LaunchStatus::Fault, "unsupported atomic type",
        fmt::format("{}.{} is not modelled", ptx::op_name(I.op), ptx::type_name(I.type)));
  return;
  END_LANES
}

// ---------------------------------------------------------------------------------------------
// 3. Arithmetic, logic, comparison, conversion
// ---------------------------------------------------------------------------------------------

namespace {

template <class T>
bool compare(Cmp c, T a, T b) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half_t>) {
    const bool unord = std::isnan(double(a)) || std::isnan(double(b));
    switch (c) {
      case Cmp::Eq: return !unord && a == b;
      case Cmp::Ne: return !unord && a != b;
      case Cmp::Lt: return !unord && a < b;
      case Cmp::Le: return !unord && a <= b;
      case Cmp::Gt: return !unord && a > b;
      case Cmp::Ge: return !unord && a >= b;
      case Cmp::Equ: return unord || a == b;
      case Cmp::Neu: return unord || a != b;
      case Cmp::Ltu: return unord || a < b;
      case Cmp::Leu: return unord || a <= b;
      case Cmp::Gtu: return unord || a > b;
      case Cmp::Geu: return unord || a >= b;
      case Cmp::Num: return !unord;
      case Cmp::Nan: return unord;
      default: return false;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (c) {
      case Cmp::Eq: return a == b;
      case Cmp::Ne: return a != b;
      case Cmp::Lt: return a < b;
      case Cmp::Le: return a <= b;
      case Cmp::Gt: return a > b;
      case Cmp::Ge: return a >= b;
      case Cmp::Lo: return U(a) < U(b);
      case Cmp::Ls: return U(a) <= U(b);
      case Cmp::Hi: return U(a) > U(b);
      case Cmp::Hs: return U(a) >= U(b);
      default: return false;
    }
  }
}

bool compare_typed(Type t, Cmp c, uint64_t a, uint64_t b) {
  switch (t) {
    case Type::S16: return compare<int16_t>(c, int16_t(a), int16_t(b));
    case Type::S32: return compare<int32_t>(c, int32_t(a), int32_t(b));
    case Type::S64: return compare<int64_t>(c, int64_t(a), int64_t(b));
    case Type::U16:
    case Type::B16: return compare<uint16_t>(c, uint16_t(a), uint16_t(b));
    case Type::U32:
    case Type::B32: return compare<uint32_t>(c, uint32_t(a), uint32_t(b));
    case Type::U64:
    case Type::B64: return compare<uint64_t>(c, a, b);
    case Type::F32: return compare<float>(c, from_bits<float>(a), from_bits<float>(b));
    case Type::F64: return compare<double>(c, from_bits<double>(a), from_bits<double>(b));
    case Type::F16: return compare<half_t>(c, from_bits<half_t>(a), from_bits<half_t>(b));
    case Type::Pred: return compare<uint8_t>(c, uint8_t(a & 1), uint8_t(b & 1));
    default: return false;
  }
}

bool combine(ptx::BoolOp op, bool r, bool c) {
  switch (op) {
    case ptx::BoolOp::And: return r && c;
    case ptx::BoolOp::Or: return r || c;
    case ptx::BoolOp::Xor: return r != c;
    default: return r;
  }
}

template <class T>
T fmin_ptx(T a, T b) {
  if (std::isnan(double(a))) return b;
  if (std::isnan(double(b))) return a;
  if (a == b) return std::signbit(double(a)) ? a : b;  // min(-0, +0) = -0
  return a < b ? a : b;
}
template <class T>
T fmax_ptx(T a, T b) {
  if (std::isnan(double(a))) return b;
  if (std::isnan(double(b))) return a;
  if (a == b) return std::signbit(double(a)) ? b : a;
  return a > b ? a : b;
}

template <class F>
auto rounded(Rounding r, F f) {
  int mode = FE_TONEAREST;
  switch (r) {
    case Rounding::Rz: mode = FE_TOWARDZERO; break;
    case Rounding::Rm: mode = FE_DOWNWARD; break;
    case Rounding::Rp: mode = FE_UPWARD; break;
    default: return f();
  }
  int old = std::fegetround();
  std::fesetround(mode);
  auto v = f();
  std::fesetround(old);
  return v;
}

// Float operations of one precision, with .ftz and .sat.
template <class T>
uint64_t float_op(const ptx::Instr& I, uint64_t ab, uint64_t bb, uint64_t cb) {
  using W = std::conditional_t<std::is_same_v<T, half_t>, float, T>;  // math in at least float
  T a = from_bits<T>(ab), b = from_bits<T>(bb), c = from_bits<T>(cb);
  if constexpr (std::is_same_v<T, float>) {
    if (I.ftz) {
      a = ftz(a);
      b = ftz(b);
      c = ftz(c);
    }
  }
  T r{};
  switch (I.op) {
    case Op::Add: r = rounded(I.rnd, [&] { return T(a + b); }); break;
    case Op::Sub: r = rounded(I.rnd, [&] { return T(a - b); }); break;
    case Op::Mul: r = rounded(I.rnd, [&] { return T(a * b); }); break;
    case Op::Mad:
    case Op::Fma:
      if constexpr (std::is_same_v<T, half_t>)
        r = T(std::fma(float(a), float(b), float(c)));
      else
        r = rounded(I.rnd, [&] { return T(std::fma(a, b, c)); });
      break;
    case Op::Div: r = rounded(I.rnd, [&] { return T(a / b); }); break;
    case Op::Abs: r = T(std::fabs(W(a))); break;
    case Op::Neg: r = T(-a); break;
    case Op::Min: r = (I.nan && (std::isnan(double(a)) || std::isnan(double(b)))) ? T(NAN) : fmin_ptx(a, b); break;
    case Op::Max: r = (I.nan && (std::isnan(double(a)) || std::isnan(double(b)))) ? T(NAN) : fmax_ptx(a, b); break;
    case Op::Rcp: r = rounded(I.rnd, [&] { return T(W(1) / W(a)); }); break;
    case Op::Sqrt: r = rounded(I.rnd, [&] { return T(std::sqrt(W(a))); }); break;
    case Op::Rsqrt: r = T(W(1) / std::sqrt(W(a))); break;
    case Op::Ex2: r = T(std::exp2(W(a))); break;
    case Op::Lg2: r = T(std::log2(W(a))); break;
    case Op::Sin: r = T(std::sin(W(a))); break;
    case Op::Cos: r = T(std::cos(W(a))); break;
    case Op::Tanh: r = T(std::tanh(W(a))); break;
    case Op::Copysign: r = T(std::copysign(double(b), double(a))); break;
    default: break;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (I.ftz) r = ftz(r);
  }
  if (I.sat) {
    if constexpr (std::is_same_v<T, half_t>)
      r = T(saturate(float(r)));
    else
      r = saturate(r);
  }
  return to_bits<T>(r);
}

uint64_t half2_op(const ptx::Instr& I, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t lo = float_op<half_t>(I, a & 0xffff, b & 0xffff, c & 0xffff);
  uint64_t hi = float_op<half_t>(I, (a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
  return (lo & 0xffff) | ((hi & 0xffff) << 16);
}

template <class T>
T sat_add(T a, T b) {
  T r;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
  return r;
}
template <class T>
T sat_sub(T a, T b) {
  T r;
  if (__builtin_sub_overflow(a, b, &r)) return a < 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
  return r;
}

// High half of a full-width product.
template <class T>
T mul_hi(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
    return static_cast<T>((W(a) * W(b)) >> 64);
  } else {
    using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return static_cast<T>((W(a) * W(b)) >> (sizeof(T) * 8));
  }
}

template <class T>
uint64_t int_op(const ptx::Instr& I, uint64_t ab, uint64_t bb, uint64_t cb, bool* carry) {
  using U = std::make_unsigned_t<T>;
  const T a = static_cast<T>(ab), b = static_cast<T>(bb), c = static_cast<T>(cb);
  constexpr int bits = sizeof(T) * 8;
  switch (I.op) {
    case Op::Add: {
      if (I.sat) return to_bits<T>(sat_add<T>(a, b));
      U r = U(a) + U(b);
      if (I.carry_in) r += U(*carry ? 1 : 0);
      if (I.has_cc) {
        unsigned __int128 full = (unsigned __int128)(U(a)) + U(b) + (I.carry_in && *carry ? 1 : 0);
        *carry = (full >> bits) != 0;
      }
      return to_bits<T>(T(r));
    }
    case Op::Sub: {
      if (I.sat) return to_bits<T>(sat_sub<T>(a, b));
      U borrow_in = (I.carry_in && *carry) ? 1 : 0;
      U r = U(a) - U(b) - borrow_in;
      if (I.has_cc) *carry = (unsigned __int128)(U(b)) + borrow_in > (unsigned __int128)(U(a));
      return to_bits<T>(T(r));
    }
    case Op::Mul:
      if (I.mul == ptx::MulMode::Hi) return to_bits<T>(mul_hi<T>(a, b));
      if (I.mul == ptx::MulMode::Wide) {
        if constexpr (sizeof(T) <= 4) {
          using W = std::conditional_t<std::is_signed_v<T>, std::conditional_t<sizeof(T) == 4, int64_t, int32_t>,
                                       std::conditional_t<sizeof(T) == 4, uint64_t, uint32_t>>;
          return to_bits<W>(W(a) * W(b));
        }
      }
      return to_bits<T>(T(U(a) * U(b)));
    case Op::Mad: {
      if (I.mul == ptx::MulMode::Hi) {
        U r = U(mul_hi<T>(a, b)) + U(c);
        if (I.sat && std::is_signed_v<T>) return to_bits<T>(sat_add<T>(mul_hi<T>(a, b), c));
        return to_bits<T>(T(r));
      }
      if (I.mul == ptx::MulMode::Wide) {
        if constexpr (sizeof(T) <= 4) {
          using W = std::conditional_t<std::is_signed_v<T>, std::conditional_t<sizeof(T) == 4, int64_t, int32_t>,
                                       std::conditional_t<sizeof(T) == 4, uint64_t, uint32_t>>;
          using WU = std::make_unsigned_t<W>;
          return to_bits<W>(W(WU(W(a) * W(b)) + WU(static_cast<W>(static_cast<std::make_signed_t<W>>(cb)))));
        }
      }
      U prod = U(a) * U(b);
      U r = prod + U(c) + ((I.carry_in && *carry) ? 1 : 0);
      if (I.has_cc) {
        unsigned __int128 full = (unsigned __int128)prod + U(c) + ((I.carry_in && *carry) ? 1 : 0);
        *carry = (full >> bits) != 0;
      }
      return to_bits<T>(T(r));
    }
    case Op::Div:
      if (b == 0) return to_bits<T>(T(~U(0)));
      if constexpr (std::is_signed_v<T>) {
        if (a == std::numeric_limits<T>::min() && b == T(-1)) return to_bits<T>(a);
      }
      return to_bits<T>(T(a / b));
    case Op::Rem:
      if (b == 0) return to_bits<T>(a);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return 0;
      }
      return to_bits<T>(T(a % b));
    case Op::Abs:
      if constexpr (std::is_signed_v<T>) return to_bits<T>(a < 0 ? T(U(0) - U(a)) : a);
      return to_bits<T>(a);
    case Op::Neg: return to_bits<T>(T(U(0) - U(a)));
    case Op::Min: return to_bits<T>(std::min(a, b));
    case Op::Max: return to_bits<T>(std::max(a, b));
    case Op::Sad: {
      U d = a > b ? U(a) - U(b) : U(b) - U(a);
      return to_bits<T>(T(d + U(c)));
    }
    case Op::Mul24:
    case Op::Mad24: {
      int64_t x = std::is_signed_v<T> ? (int64_t(int32_t(uint32_t(a) << 8)) >> 8) : int64_t(uint32_t(a) & 0xffffff);
      int64_t y = std::is_signed_v<T> ? (int64_t(int32_t(uint32_t(b) << 8)) >> 8) : int64_t(uint32_t(b) & 0xffffff);
      int64_t p = x * y;
      uint32_t r = I.mul == ptx::MulMode::Hi ? uint32_t(uint64_t(p) >> 16) : uint32_t(p);
      if (I.op == Op::Mad24) r += uint32_t(c);
      return to_bits<T>(T(r));
    }
    default: return 0;
  }
}

template <class T>
uint64_t shift_op(Op op, uint64_t ab, uint32_t n) {
  constexpr uint32_t bits = sizeof(T) * 8;
  T a = static_cast<T>(ab);
  if (op == Op::Shl) return n >= bits ? 0 : to_bits<T>(T(std::make_unsigned_t<T>(a) << n));
  if constexpr (std::is_signed_v<T>) {
    if (n >= bits) return to_bits<T>(a < 0 ? T(-1) : T(0));
    return to_bits<T>(T(a >> n));
  }
  return n >= bits ? 0 : to_bits<T>(T(a >> n));
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, ptx::PrmtMode mode) {
  const uint64_t bytes = (uint64_t(b) << 32) | a;
  auto byte = [&](uint32_t i) { return uint32_t((bytes >> (8 * (i & 7))) & 0xff); };
  uint32_t r = 0;
  switch (mode) {
    case ptx::PrmtMode::None:
      for (int k = 0; k < 4; ++k) {
        uint32_t sel = (c >> (4 * k)) & 0xf;
        uint32_t v = byte(sel & 7);
        if (sel & 8) v = (v & 0x80) ? 0xff : 0x00;  // replicate the sign bit
        r |= v << (8 * k);
      }
      return r;
    case ptx::PrmtMode::F4e: {
      uint32_t s = c & 3;
      for (int k = 0; k < 4; ++k) r |= byte(s + k) << (8 * k);
      return r;
    }
    case ptx::PrmtMode::B4e: {
      uint32_t s = c & 3;
      for (int k = 0; k < 4; ++k) r |= byte((s - k + 8) & 7) << (8 * k);
      return r;
    }
    case ptx::PrmtMode::Rc8: {
      uint32_t v = byte(c & 3);
      return v | v << 8 | v << 16 | v << 24;
    }
    case ptx::PrmtMode::Ecl: {
      uint32_t s = c & 3;
      for (uint32_t k = 0; k < 4; ++k) r |= byte(k >= s ? s : k) << (8 * k);
      return r;
    }
    case ptx::PrmtMode::Ecr: {
      uint32_t s = c & 3;
      for (uint32_t k = 0; k < 4; ++k) r |= byte(k <= s ? s : k) << (8 * k);
      return r;
    }
    case ptx::PrmtMode::Rc16: {
      uint32_t s = c & 1;
      uint32_t v = byte(2 * s) | byte(2 * s + 1) << 8;
      return v | v << 16;
    }
  }
  return r;
}

uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, uint32_t lut) {
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) {
    if (!(lut & (1u << i))) continue;
    uint64_t term = ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
    r |= term;
  }
  return r;
}

}  // namespace

// Fast paths for the instructions that dominate course kernels (integer and f32 arithmetic,
// logic, shifts, comparisons, selects, moves): operands are gathered for all lanes first, then
// computed in one tight loop, then written back. Everything else takes the general path below.
void KernelRun::gather(Warp& w, uint32_t act, const Operand& o, uint64_t* out) {
  switch (o.kind) {
    case Operand::Kind::Reg:
      if (o.negate) {
        for (uint32_t m = act; m; m &= m - 1) {
          const int l = __builtin_ctz(m);
          out[l] = (w.regp[l][o.reg] & 1) ^ 1;
        }
      } else {
        for (uint32_t m = act; m; m &= m - 1) {
          const int l = __builtin_ctz(m);
          out[l] = w.regp[l][o.reg];
        }
      }
      return;
    case Operand::Kind::Imm:
      for (uint32_t m = act; m; m &= m - 1) out[__builtin_ctz(m)] = static_cast<uint64_t>(o.imm);
      return;
    default:
      for (uint32_t m = act; m; m &= m - 1) {
        const int l = __builtin_ctz(m);
        out[l] = operand(w, l, o);
      }
      return;
  }
}

namespace {

template <class F>
inline void map1(Warp& w, uint32_t act, uint32_t d, const uint64_t* A, F f) {
  for (uint32_t m = act; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    w.regp[l][d] = f(A[l]);
  }
}

// The common operand shapes (register, register) and (register, immediate) read straight from
// the register file; any other shape was gathered into A/B/C first.
struct Srcs {
  const Operand* a;
  const Operand* b;
  const Operand* c;
  const uint64_t* A;
  const uint64_t* B;
  const uint64_t* C;
};

inline bool plain_reg(const Operand& o) { return o.kind == Operand::Kind::Reg && !o.negate; }

// Row-wise form: every lane of the warp shares its frame base, so each operand is one contiguous
// row of 32 values. row_apply sets D[l] = g(l) for the lanes in act: a full warp, or one run of
// consecutive lanes, in one loop the compiler vectorizes; a nearly full warp computes all 32 lanes
// and keeps the active ones; a sparse one goes lane by lane (without reading the rest of D).
// (D may be A, B or C itself: every lane reads its own operands before its result is written,
// so the loops carry no dependence from one lane to the next.)
template <class G>
__attribute__((always_inline)) inline void row_apply(uint32_t act, uint64_t* D, G g) {
  if (act == 0xffffffffu) {
#pragma GCC ivdep
    for (int l = 0; l < 32; ++l) D[l] = g(l);
    return;
  }
  const int lo = __builtin_ctz(act);
  const uint32_t run = act >> lo;
  if ((run & (run + 1)) == 0) {  // one run of consecutive lanes (often: lanes leave in order)
    const int hi = lo + __builtin_popcount(act);
#pragma GCC ivdep
    for (int l = lo; l < hi; ++l) D[l] = g(l);
    return;
  }
  if (__builtin_popcount(act) >= 24) {
    alignas(16) uint64_t out[32];
    for (int l = 0; l < 32; ++l) out[l] = g(l);
    blend_row(D, out, act);
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    D[l] = g(l);
  }
}

template <class F>
inline void rows2(uint32_t act, uint64_t* D, const uint64_t* A, const uint64_t* B, uint64_t ib, F f) {
  if (B)
    row_apply(act, D, [&](int l) { return f(A[l], B[l]); });
  else
    row_apply(act, D, [&](int l) { return f(A[l], ib); });
}
template <class F>
inline void rows3(uint32_t act, uint64_t* D, const uint64_t* A, const uint64_t* B, const uint64_t* C, F f) {
  row_apply(act, D, [&](int l) { return f(A[l], B[l], C[l]); });
}

template <class F>
inline void map2(Warp& w, uint32_t act, uint32_t d, const Srcs& s, F f) {
  if (plain_reg(*s.a) && (plain_reg(*s.b) || s.b->kind == Operand::Kind::Imm) && w.uniform_base != Warp::kMixedBase) {
    const uint64_t* B = plain_reg(*s.b) ? w.row(s.b->reg) : nullptr;
    rows2(act, w.row(d), w.row(s.a->reg), B, static_cast<uint64_t>(s.b->imm), f);
  } else if (plain_reg(*s.a) && plain_reg(*s.b)) {
    const uint32_t ra = s.a->reg, rb = s.b->reg;
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], R[rb]);
    }
  } else if (plain_reg(*s.a) && s.b->kind == Operand::Kind::Imm) {
    const uint32_t ra = s.a->reg;
    const uint64_t ib = static_cast<uint64_t>(s.b->imm);
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], ib);
    }
  } else {
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      w.regp[l][d] = f(s.A[l], s.B[l]);
    }
  }
}
template <class F>
inline void map3(Warp& w, uint32_t act, uint32_t d, const Srcs& s, F f) {
  if (plain_reg(*s.a) && plain_reg(*s.b) && plain_reg(*s.c)) {
    if (w.uniform_base != Warp::kMixedBase) {
      rows3(act, w.row(d), w.row(s.a->reg), w.row(s.b->reg), w.row(s.c->reg), f);
      return;
    }
    const uint32_t ra = s.a->reg, rb = s.b->reg, rc = s.c->reg;
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], R[rb], R[rc]);
    }
  } else {
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      w.regp[l][d] = f(s.A[l], s.B[l], s.C[l]);
    }
  }
}

// The operations of the fast paths on raw register values, one functor per (type, operation):
// the generic fast path (fast_int, fast_f32) and the per-instruction handlers below use the same.
enum FastOp : int {
  kAdd,
  kSub,
  kMulLo,
  kMulWide,
  kAnd,
  kOr,
  kXor,
  kMin,
  kMax,
  kShl,
  kShr,  // arithmetic and logic
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kLo,
  kLs,
  kHi,
  kHs,  // setp comparisons
  kNumIntOps
};

template <class T, int K>
struct Int2 {
  uint64_t operator()(uint64_t a, uint64_t b) const {
    using U = std::make_unsigned_t<T>;
    constexpr uint32_t bits = sizeof(T) * 8;
    if constexpr (K == kAdd)
      return to_bits<T>(T(U(a) + U(b)));
    else if constexpr (K == kSub)
      return to_bits<T>(T(U(a) - U(b)));
    else if constexpr (K == kMulLo)
      return to_bits<T>(T(U(a) * U(b)));
    else if constexpr (K == kMulWide) {
      static_assert(sizeof(T) == 4, "mul.wide of 32-bit operands only");
      using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      return to_bits<W>(W(T(a)) * W(T(b)));
    } else if constexpr (K == kAnd)
      return a & b;
    else if constexpr (K == kOr)
      return a | b;
    else if constexpr (K == kXor)
      return a ^ b;
    else if constexpr (K == kMin)
      return to_bits<T>(std::min(T(a), T(b)));
    else if constexpr (K == kMax)
      return to_bits<T>(std::max(T(a), T(b)));
    else if constexpr (K == kShl) {
      const uint32_t n = uint32_t(b);
      return n >= bits ? uint64_t(0) : to_bits<T>(T(U(a) << n));
    } else if constexpr (K == kShr) {
      const uint32_t n = uint32_t(b);
      if constexpr (std::is_signed_v<T>)
        return to_bits<T>(n >= bits ? (T(a) < 0 ? T(-1) : T(0)) : T(T(a) >> n));
      else
        return n >= bits ? uint64_t(0) : to_bits<T>(T(U(a) >> n));
    } else if constexpr (K == kEq)
      return uint64_t(T(a) == T(b));
    else if constexpr (K == kNe)
      return uint64_t(T(a) != T(b));
    else if constexpr (K == kLt)
      return uint64_t(T(a) < T(b));
    else if constexpr (K == kLe)
      return uint64_t(T(a) <= T(b));
    else if constexpr (K == kGt)
      return uint64_t(T(a) > T(b));
    else if constexpr (K == kGe)
      return uint64_t(T(a) >= T(b));
    else if constexpr (K == kLo)
      return uint64_t(U(a) < U(b));
    else if constexpr (K == kLs)
      return uint64_t(U(a) <= U(b));
    else if constexpr (K == kHi)
      return uint64_t(U(a) > U(b));
    else
      return uint64_t(U(a) >= U(b));  // kHs
  }
};
template <class T>
struct IntMad {  // mad.lo
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    using U = std::make_unsigned_t<T>;
    return to_bits<T>(T(U(a) * U(b) + U(c)));
  }
};
// f32 add, sub, mul (kAdd, kSub, kMulLo) without .ftz/.sat and with round-to-nearest.
template <int K>
struct F32x2 {
  uint64_t operator()(uint64_t a, uint64_t b) const {
    const float x = from_bits<float>(a), y = from_bits<float>(b);
    if constexpr (K == kAdd)
      return to_bits(x + y);
    else if constexpr (K == kSub)
      return to_bits(x - y);
    else
      return to_bits(x * y);
  }
};
struct F32Fma {
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    return to_bits(std::fma(from_bits<float>(a), from_bits<float>(b), from_bits<float>(c)));
  }
};
// and/or/xor.pred: the result keeps bit 0, as exec_alu does.
template <int K>
struct Pred2 {
  uint64_t operator()(uint64_t a, uint64_t b) const {
    if constexpr (K == kAnd)
      return (a & b) & 1;
    else if constexpr (K == kOr)
      return (a | b) & 1;
    else
      return (a ^ b) & 1;
  }
};

// The FastOp of an integer instruction the fast paths handle, or -1.
int int_fast_op(const ptx::Instr& I, bool wide_ok) {
  switch (I.op) {
    case Op::Add: return kAdd;
    case Op::Sub: return kSub;
    case Op::Mul:
      if (I.mul == ptx::MulMode::Wide) return wide_ok ? kMulWide : -1;
      if (I.mul == ptx::MulMode::Hi) return -1;
      return kMulLo;
    case Op::And: return kAnd;
    case Op::Or: return kOr;
    case Op::Xor: return kXor;
    case Op::Min: return kMin;
    case Op::Max: return kMax;
    case Op::Shl: return kShl;
    case Op::Shr: return kShr;
    case Op::Setp:
      if (I.boolop != ptx::BoolOp::None || I.ndst > 1) return -1;
      switch (I.cmp) {
        case Cmp::Eq: return kEq;
        case Cmp::Ne: return kNe;
        case Cmp::Lt: return kLt;
        case Cmp::Le: return kLe;
        case Cmp::Gt: return kGt;
        case Cmp::Ge: return kGe;
        case Cmp::Lo: return kLo;
        case Cmp::Ls: return kLs;
        case Cmp::Hi: return kHi;
        case Cmp::Hs: return kHs;
        default: return -1;
      }
    default: return -1;
  }
}

template <class T, int K>
inline void int2_case(Warp& w, uint32_t act, uint32_t d, const Srcs& S) {
  map2(w, act, d, S, Int2<T, K>{});
}

template <class T>
bool fast_int(Warp& w, uint32_t act, const ptx::Instr& I, const Srcs& S) {
  const uint32_t d = I.dst[0].reg;
  if (I.op == Op::Mad) {
    if (I.mul == ptx::MulMode::Hi || I.mul == ptx::MulMode::Wide) return false;
    map3(w, act, d, S, IntMad<T>{});
    return true;
  }
  switch (int_fast_op(I, sizeof(T) == 4)) {
    case kAdd: int2_case<T, kAdd>(w, act, d, S); return true;
    case kSub: int2_case<T, kSub>(w, act, d, S); return true;
    case kMulLo: int2_case<T, kMulLo>(w, act, d, S); return true;
    case kMulWide:
      if constexpr (sizeof(T) == 4) {
        int2_case<T, kMulWide>(w, act, d, S);
        return true;
      }
      return false;
    case kAnd: int2_case<T, kAnd>(w, act, d, S); return true;
    case kOr: int2_case<T, kOr>(w, act, d, S); return true;
    case kXor: int2_case<T, kXor>(w, act, d, S); return true;
    case kMin: int2_case<T, kMin>(w, act, d, S); return true;
    case kMax: int2_case<T, kMax>(w, act, d, S); return true;
    case kShl: int2_case<T, kShl>(w, act, d, S); return true;
    case kShr: int2_case<T, kShr>(w, act, d, S); return true;
    case kEq: int2_case<T, kEq>(w, act, d, S); return true;
    case kNe: int2_case<T, kNe>(w, act, d, S); return true;
    case kLt: int2_case<T, kLt>(w, act, d, S); return true;
    case kLe: int2_case<T, kLe>(w, act, d, S); return true;
    case kGt: int2_case<T, kGt>(w, act, d, S); return true;
    case kGe: int2_case<T, kGe>(w, act, d, S); return true;
    case kLo: int2_case<T, kLo>(w, act, d, S); return true;
    case kLs: int2_case<T, kLs>(w, act, d, S); return true;
    case kHi: int2_case<T, kHi>(w, act, d, S); return true;
    case kHs: int2_case<T, kHs>(w, act, d, S); return true;
    default: return false;
  }
}

bool f32_plain(const ptx::Instr& I) { return !I.ftz && !I.sat && (I.rnd == Rounding::None || I.rnd == Rounding::Rn); }

bool fast_f32(Warp& w, uint32_t act, const ptx::Instr& I, const Srcs& S) {
  if (!f32_plain(I)) return false;
  const uint32_t d = I.dst[0].reg;
  switch (I.op) {
    case Op::Add: map2(w, act, d, S, F32x2<kAdd>{}); return true;
    case Op::Sub: map2(w, act, d, S, F32x2<kSub>{}); return true;
    case Op::Mul: map2(w, act, d, S, F32x2<kMulLo>{}); return true;
    case Op::Fma:
    case Op::Mad: map3(w, act, d, S, F32Fma{}); return true;
    default: return false;
  }
}

}  // namespace

bool KernelRun::fast_alu(Warp& w, uint32_t act, const ptx::Instr& I) {
  if (I.has_cc || I.carry_in || I.sat) return false;
  if (I.ndst < 1 || I.dst[0].kind != Operand::Kind::Reg) return false;
  uint64_t A[32], B[32], C[32];
  const Srcs S{&I.src[0], &I.src[1], &I.src[2], A, B, C};
  switch (I.op) {
    case Op::Mov:
      if (I.src[0].kind == Operand::Kind::Vector || I.type == Type::Pred) return false;
      if (plain_reg(I.src[0]) && w.uniform_base != Warp::kMixedBase) {
        if (I.src[0].reg != I.dst[0].reg) {
          const uint64_t* A = w.row(I.src[0].reg);
          row_apply(act, w.row(I.dst[0].reg), [A](int l) { return A[l]; });
        }
        return true;
      }
      if (I.src[0].kind == Operand::Kind::Imm && w.uniform_base != Warp::kMixedBase) {
        const uint64_t v = static_cast<uint64_t>(I.src[0].imm);
        row_apply(act, w.row(I.dst[0].reg), [v](int) { return v; });
        return true;
      }
      if (plain_reg(I.src[0])) {
        const uint32_t ra = I.src[0].reg, d = I.dst[0].reg;
        for (uint32_t m = act; m; m &= m - 1) {
          const LaneRegs R = w.regp[__builtin_ctz(m)];
          R[d] = R[ra];
        }
        return true;
      }
      gather(w, act, I.src[0], A);
      map1(w, act, I.dst[0].reg, A, [](uint64_t a) { return a; });
      return true;
    case Op::Selp:
      if (plain_reg(I.src[2]) && (plain_reg(I.src[0]) || I.src[0].kind == Operand::Kind::Imm) &&
          (plain_reg(I.src[1]) || I.src[1].kind == Operand::Kind::Imm)) {
        const uint32_t d = I.dst[0].reg, rc = I.src[2].reg;
        const Operand &a = I.src[0], &b = I.src[1];
        for (uint32_t m = act; m; m &= m - 1) {
          const LaneRegs R = w.regp[__builtin_ctz(m)];
          uint64_t va = a.kind == Operand::Kind::Reg ? R[a.reg] : uint64_t(a.imm);
          uint64_t vb = b.kind == Operand::Kind::Reg ? R[b.reg] : uint64_t(b.imm);
          R[d] = (R[rc] & 1) ? va : vb;
        }
        return true;
      }
      return false;
    case Op::Not: {
      // not.pred keeps bit 0 only; other types complement all 64 bits, as exec_alu does.
      const uint64_t keep = I.type == Type::Pred ? 1 : ~uint64_t(0);
      const uint32_t d = I.dst[0].reg;
      if (plain_reg(I.src[0]) && w.uniform_base != Warp::kMixedBase) {
        const uint64_t* A = w.row(I.src[0].reg);
        row_apply(act, w.row(d), [A, keep](int l) { return ~A[l] & keep; });
        return true;
      }
      gather(w, act, I.src[0], A);
      map1(w, act, d, A, [keep](uint64_t a) { return ~a & keep; });
      return true;
    }
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Mad:
    case Op::Fma:
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Min:
    case Op::Max:
    case Op::Shl:
    case Op::Shr:
    case Op::Setp: break;
    default: return false;
  }
  if (I.nsrc < 2) return false;
  // The generic loops read A/B/C: fill them unless the operand shape has its own loop.
  const bool two_fast = plain_reg(I.src[0]) && (plain_reg(I.src[1]) || I.src[1].kind == Operand::Kind::Imm);
  const bool three_fast = I.nsrc > 2 && plain_reg(I.src[0]) && plain_reg(I.src[1]) && plain_reg(I.src[2]);
  const bool gathered = I.nsrc > 2 ? !three_fast : !two_fast;
  if (gathered) {
    gather(w, act, I.src[0], A);
    gather(w, act, I.src[1], B);
    if (I.nsrc > 2) gather(w, act, I.src[2], C);
  }
  switch (I.type) {
    case Type::U32:
    case Type::B32: return fast_int<uint32_t>(w, act, I, S);
    case Type::S32: return fast_int<int32_t>(w, act, I, S);
    case Type::U64:
    case Type::B64: return fast_int<uint64_t>(w, act, I, S);
    case Type::S64: return fast_int<int64_t>(w, act, I, S);
    case Type::F32:
      if (I.op == Op::Setp) return false;
      return fast_f32(w, act, I, S);
    case Type::Pred: {
      const uint32_t d = I.dst[0].reg;
      switch (I.op) {
        case Op::And: map2(w, act, d, S, Pred2<kAnd>{}); return true;
        case Op::Or: map2(w, act, d, S, Pred2<kOr>{}); return true;
        case Op::Xor: map2(w, act, d, S, Pred2<kXor>{}); return true;
        default: return false;
      }
    }
    default: return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Per-instruction handlers: the common arithmetic forms (register/immediate operands, no carry or
// saturation) get a handler of their own when the module is loaded (Instr::fast), so that the
// dispatcher makes one indirect call where fast_alu would test the opcode, type, operand shapes
// and comparison one after the other. Each handler does exactly what fast_alu does for its form.
// ---------------------------------------------------------------------------------------------

namespace {

using FastHandler = void (*)(Warp&, uint32_t, const ptx::Instr&);
enum Shape : int { kRR, kRI };  // register and register, register and immediate

template <class F, int SH>
void h_bin(Warp& w, uint32_t act, const ptx::Instr& I) {
  const F f{};
  const uint32_t d = I.dst[0].reg, ra = I.src[0].reg;
  if (w.uniform_base != Warp::kMixedBase) {
    rows2(act, w.row(d), w.row(ra), SH == kRR ? w.row(I.src[1].reg) : nullptr, static_cast<uint64_t>(I.src[1].imm), f);
  } else if constexpr (SH == kRR) {
    const uint32_t rb = I.src[1].reg;
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], R[rb]);
    }
  } else {
    const uint64_t ib = static_cast<uint64_t>(I.src[1].imm);
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], ib);
    }
  }
}

template <class F>
void h_tri(Warp& w, uint32_t act, const ptx::Instr& I) {
  const F f{};
  const uint32_t d = I.dst[0].reg, ra = I.src[0].reg, rb = I.src[1].reg, rc = I.src[2].reg;
  if (w.uniform_base != Warp::kMixedBase) {
    rows3(act, w.row(d), w.row(ra), w.row(rb), w.row(rc), f);
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const LaneRegs R = w.regp[__builtin_ctz(m)];
    R[d] = f(R[ra], R[rb], R[rc]);
  }
}

void h_mov_rr(Warp& w, uint32_t act, const ptx::Instr& I) {
  const uint32_t d = I.dst[0].reg, ra = I.src[0].reg;
  if (w.uniform_base != Warp::kMixedBase) {
    if (ra != d) {
      const uint64_t* A = w.row(ra);
      row_apply(act, w.row(d), [A](int l) { return A[l]; });
    }
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const LaneRegs R = w.regp[__builtin_ctz(m)];
    R[d] = R[ra];
  }
}

void h_mov_ri(Warp& w, uint32_t act, const ptx::Instr& I) {
  const uint32_t d = I.dst[0].reg;
  const uint64_t v = static_cast<uint64_t>(I.src[0].imm);
  if (w.uniform_base != Warp::kMixedBase) {
    row_apply(act, w.row(d), [v](int) { return v; });
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) w.regp[__builtin_ctz(m)][d] = v;
}

// not: .pred keeps bit 0 only, other types complement all 64 bits.
template <bool PRED>
void h_not(Warp& w, uint32_t act, const ptx::Instr& I) {
  constexpr uint64_t keep = PRED ? 1 : ~uint64_t(0);
  const uint32_t d = I.dst[0].reg, ra = I.src[0].reg;
  if (w.uniform_base != Warp::kMixedBase) {
    const uint64_t* A = w.row(ra);
    row_apply(act, w.row(d), [A](int l) { return ~A[l] & keep; });
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const LaneRegs R = w.regp[__builtin_ctz(m)];
    R[d] = ~R[ra] & keep;
  }
}

// Handler indexes (0 is "none").
constexpr int kIntTypes = 4;                                // s32, u32 (b32), s64, u64 (b64)
constexpr int kHInt2 = 1;                                   // + (type * kNumIntOps + op) * 2 + shape
constexpr int kHMad = kHInt2 + kIntTypes * kNumIntOps * 2;  // + type
constexpr int kHF32 = kHMad + kIntTypes;                    // + (add|sub|mul) * 2 + shape
constexpr int kHF32Fma = kHF32 + 6;
constexpr int kHPred = kHF32Fma + 1;  // + (and|or|xor) * 2 + shape
constexpr int kHMovRR = kHPred + 6;
constexpr int kHMovRI = kHMovRR + 1;
constexpr int kHNotPred = kHMovRI + 1;
constexpr int kHNot = kHNotPred + 1;
constexpr int kNumHandlers = kHNot + 1;
static_assert(kNumHandlers <= 256, "Instr::fast is one byte");

template <int TI>
using IntOfIndex =
    std::conditional_t<TI == 0, int32_t,
                       std::conditional_t<TI == 1, uint32_t, std::conditional_t<TI == 2, int64_t, uint64_t>>>;

template <size_t... N>
void fill_int2(FastHandler* t, std::index_sequence<N...>) {
  // N = (type * kNumIntOps + op) * 2 + shape; mul.wide exists for 32-bit types only.
  ((t[kHInt2 + N] =
        (int(N / 2 % kNumIntOps) == kMulWide && N / 2 / kNumIntOps >= 2)
            ? nullptr
            : &h_bin<Int2<IntOfIndex<int(N / 2 / kNumIntOps)>,
                          (int(N / 2 % kNumIntOps) == kMulWide && N / 2 / kNumIntOps >= 2) ? kAdd
                                                                                           : int(N / 2 % kNumIntOps)>,
                     int(N % 2)>),
   ...);
}

struct HandlerTable {
  FastHandler h[kNumHandlers] = {};
  HandlerTable() {
    fill_int2(h, std::make_index_sequence<kIntTypes * kNumIntOps * 2>{});
    h[kHMad + 0] = &h_tri<IntMad<int32_t>>;
    h[kHMad + 1] = &h_tri<IntMad<uint32_t>>;
    h[kHMad + 2] = &h_tri<IntMad<int64_t>>;
    h[kHMad + 3] = &h_tri<IntMad<uint64_t>>;
    h[kHF32 + 0] = &h_bin<F32x2<kAdd>, kRR>;
    h[kHF32 + 1] = &h_bin<F32x2<kAdd>, kRI>;
    h[kHF32 + 2] = &h_bin<F32x2<kSub>, kRR>;
    h[kHF32 + 3] = &h_bin<F32x2<kSub>, kRI>;
    h[kHF32 + 4] = &h_bin<F32x2<kMulLo>, kRR>;
    h[kHF32 + 5] = &h_bin<F32x2<kMulLo>, kRI>;
    h[kHF32Fma] = &h_tri<F32Fma>;
    h[kHPred + 0] = &h_bin<Pred2<kAnd>, kRR>;
    h[kHPred + 1] = &h_bin<Pred2<kAnd>, kRI>;
    h[kHPred + 2] = &h_bin<Pred2<kOr>, kRR>;
    h[kHPred + 3] = &h_bin<Pred2<kOr>, kRI>;
    h[kHPred + 4] = &h_bin<Pred2<kXor>, kRR>;
    h[kHPred + 5] = &h_bin<Pred2<kXor>, kRI>;
    h[kHMovRR] = &h_mov_rr;
    h[kHMovRI] = &h_mov_ri;
    h[kHNotPred] = &h_not<true>;
    h[kHNot] = &h_not<false>;
  }
};
const HandlerTable kHandlers;

int int_type_index(Type t) {
  switch (t) {
    case Type::S32: return 0;
    case Type::U32:
    case Type::B32: return 1;
    case Type::S64: return 2;
    case Type::U64:
    case Type::B64: return 3;
    default: return -1;
  }
}

}  // namespace

// Mirrors fast_alu's decisions: a form gets a handler only where fast_alu would take the same
// path for it.
uint8_t fast_handler_index(const ptx::Instr& I) {
  if (I.has_cc || I.carry_in || I.sat) return 0;
  if (I.ndst < 1 || I.dst[0].kind != Operand::Kind::Reg) return 0;
  const Operand& a = I.src[0];
  const Operand& b = I.src[1];
  switch (I.op) {
    case Op::Mov:
      if (a.kind == Operand::Kind::Vector || I.type == Type::Pred) return 0;
      if (plain_reg(a)) return kHMovRR;
      if (a.kind == Operand::Kind::Imm) return kHMovRI;
      return 0;
    case Op::Not:
      if (!plain_reg(a)) return 0;
      return I.type == Type::Pred ? kHNotPred : kHNot;
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Mad:
    case Op::Fma:
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Min:
    case Op::Max:
    case Op::Shl:
    case Op::Shr:
    case Op::Setp: break;
    default: return 0;
  }
  if (I.nsrc < 2) return 0;
  int shape = -1;  // kRR, kRI, or 2 for three registers
  if (I.nsrc == 2) {
    if (plain_reg(a) && plain_reg(b))
      shape = kRR;
    else if (plain_reg(a) && b.kind == Operand::Kind::Imm)
      shape = kRI;
  } else if (I.nsrc == 3 && plain_reg(a) && plain_reg(b) && plain_reg(I.src[2])) {
    shape = 2;
  }
  if (shape < 0) return 0;
  if (const int ti = int_type_index(I.type); ti >= 0) {
    if (I.op == Op::Mad) {
      if (I.mul == ptx::MulMode::Hi || I.mul == ptx::MulMode::Wide || shape != 2) return 0;
      return static_cast<uint8_t>(kHMad + ti);
    }
    if (I.op == Op::Fma || shape == 2) return 0;
    const int k = int_fast_op(I, ti < 2);
    if (k < 0) return 0;
    return static_cast<uint8_t>(kHInt2 + (ti * kNumIntOps + k) * 2 + shape);
  }
  if (I.type == Type::F32) {
    if (I.op == Op::Setp || !f32_plain(I)) return 0;
    switch (I.op) {
      case Op::Add: return shape == 2 ? 0 : static_cast<uint8_t>(kHF32 + 0 + shape);
      case Op::Sub: return shape == 2 ? 0 : static_cast<uint8_t>(kHF32 + 2 + shape);
      case Op::Mul: return shape == 2 ? 0 : static_cast<uint8_t>(kHF32 + 4 + shape);
      case Op::Fma:
      case Op::Mad: return shape == 2 ? static_cast<uint8_t>(kHF32Fma) : 0;
      default: return 0;
    }
  }
  if (I.type == Type::Pred && shape != 2) {
    switch (I.op) {
      case Op::And: return static_cast<uint8_t>(kHPred + 0 + shape);
      case Op::Or: return static_cast<uint8_t>(kHPred + 2 + shape);
      case Op::Xor: return static_cast<uint8_t>(kHPred + 4 + shape);
      default: return 0;
    }
  }
  return 0;
}

#define INT_DISPATCH(T_, CALL)          \
  switch (T_) {                         \
    case Type::S16: {                   \
      using T = int16_t;                \
      CALL;                             \
    } break;                            \
    case Type::U16:                     \
    case Type::B16: {                   \
      using T = uint16_t;               \
      CALL;                             \
    } break;                            \
    case Type::S32: {                   \
      using T = int32_t;                \
      CALL;                             \
    } break;                            \
    case Type::U32:                     \
    case Type::B32: {                   \
      using T = uint32_t;               \
      CALL;                             \
    } break;                            \
    case Type::S64: {                   \
      using T = int64_t;                \
      CALL;                             \
    } break;                            \
    case Type::U64:                     \
    case Type::B64: {                   \
      using T = uint64_t;               \
      CALL;                             \
    } break;                            \
    default: unsupported = true; break; \
  }

void KernelRun::exec_alu(Warp& w, uint32_t act, const ptx::Instr& I) {
  if (cfg_.fast && fast_alu(w, act, I)) return;
  const Operand& d = I.dst[0];
  bool unsupported = false;
  auto src = [&](int lane, int i) { return operand(w, lane, I.src[i]); };

  switch (I.op) {
    case Op::Mov: {
      const Operand& s = I.src[0];
      if (d.kind == Operand::Kind::Vector) {  // unpack: mov.b64 {lo, hi}, x
        const uint32_t es = ptx::type_size(I.type) * 8 / d.count;
        FOR_LANES(act)
        uint64_t v = operand(w, lane, s);
        for (uint32_t e = 0; e < d.count; ++e)
          if (d.vec[e] != Operand::kNoReg) R[d.vec[e]] = es >= 64 ? v : (v >> (e * es)) & ((1ull << es) - 1);
        END_LANES
      } else if (s.kind == Operand::Kind::Vector) {  // pack: mov.b64 x, {lo, hi}
        const uint32_t es = ptx::type_size(I.type) * 8 / s.count;
        FOR_LANES(act)
        uint64_t v = 0;
        for (uint32_t e = 0; e < s.count; ++e) {
          uint64_t part = s.vec[e] == Operand::kNoReg ? 0 : R[s.vec[e]];
          if (es < 64) part &= (1ull << es) - 1;
          v |= part << (e * es);
        }
        R[d.reg] = v;
        END_LANES
      } else {
        const bool pred = I.type == Type::Pred;
        FOR_LANES(act)
        uint64_t v = operand(w, lane, s);
        R[d.reg] = pred ? (v & 1) : v;
        END_LANES
      }
      return;
    }
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Mad:
    case Op::Div:
    case Op::Rem:
    case Op::Abs:
    case Op::Neg:
    case Op::Min:
    case Op::Max:
    case Op::Sad:
    case Op::Mul24:
    case Op::Mad24:
    case Op::Fma:
    case Op::Rcp:
    case Op::Sqrt:
    case Op::Rsqrt:
    case Op::Ex2:
    case Op::Lg2:
    case Op::Sin:
    case Op::Cos:
    case Op::Tanh:
    case Op::Copysign: {
      const int ns = I.nsrc;
      if (I.type == Type::F32) {
        FOR_LANES(act)
        R[d.reg] = float_op<float>(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0);
        END_LANES
        return;
      }
      if (I.type == Type::F64) {
        FOR_LANES(act)
        R[d.reg] = float_op<double>(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0);
        END_LANES
        return;
      }
      if (I.type == Type::F16) {
        FOR_LANES(act)
        R[d.reg] = float_op<half_t>(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0);
        END_LANES
        return;
      }
      if (I.type == Type::F16x2) {
        FOR_LANES(act)
        R[d.reg] = half2_op(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0);
        END_LANES
        return;
      }
      INT_DISPATCH(I.type, {
        FOR_LANES(act)
        bool carry = L.carry;
        R[d.reg] = int_op<T>(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0, &carry);
        L.carry = carry;
        END_LANES
      });
      break;
    }
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Not:
    case Op::Cnot: {
      const bool pred = I.type == Type::Pred;
      FOR_LANES(act)
      uint64_t a = src(lane, 0), b = I.nsrc > 1 ? src(lane, 1) : 0, r = 0;
      switch (I.op) {
        case Op::And: r = a & b; break;
        case Op::Or: r = a | b; break;
        case Op::Xor: r = a ^ b; break;
        case Op::Not: r = ~a; break;
        default: {
          uint32_t sz = ptx::type_size(I.type) * 8;
          uint64_t m = sz >= 64 ? ~0ull : (1ull << sz) - 1;
          r = (a & m) == 0 ? 1 : 0;
        }
      }
      R[d.reg] = pred ? (r & 1) : r;
      END_LANES
      return;
    }
    case Op::Lop3:
      FOR_LANES(act)
      R[d.reg] = lop3(src(lane, 0), src(lane, 1), src(lane, 2), uint32_t(src(lane, 3)));
      END_LANES
      return;
    case Op::Shl:
    case Op::Shr:
      INT_DISPATCH(I.type, {
        FOR_LANES(act)
        R[d.reg] = shift_op<T>(I.op, src(lane, 0), uint32_t(src(lane, 1)));
        END_LANES
      });
      break;
    case Op::Shf:
      FOR_LANES(act)
      uint32_t a = uint32_t(src(lane, 0)), b = uint32_t(src(lane, 1)), c = uint32_t(src(lane, 2));
      const bool clamp = I.shf == ptx::ShfMode::LClamp || I.shf == ptx::ShfMode::RClamp;
      uint32_t n = clamp ? std::min<uint32_t>(c, 32) : (c & 31);
      uint64_t both = (uint64_t(b) << 32) | a;
      const bool left = I.shf == ptx::ShfMode::LWrap || I.shf == ptx::ShfMode::LClamp;
      R[d.reg] = left ? uint32_t((both << n) >> 32) : uint32_t(both >> n);
      END_LANES
      return;
    case Op::Popc:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      R[d.reg] = ptx::type_size(I.type) == 8 ? __builtin_popcountll(a) : __builtin_popcount(uint32_t(a));
      END_LANES
      return;
    case Op::Clz:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      if (ptx::type_size(I.type) == 8)
        R[d.reg] = a ? __builtin_clzll(a) : 64;
      else
        R[d.reg] = uint32_t(a) ? __builtin_clz(uint32_t(a)) : 32;
      END_LANES
      return;
    case Op::Brev:
      FOR_LANES(act)
      uint64_t a = src(lane, 0), r = 0;
      const int n = ptx::type_size(I.type) * 8;
      for (int i = 0; i < n; ++i)
        if (a & (1ull << i)) r |= 1ull << (n - 1 - i);
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Bfind:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      const int n = ptx::type_size(I.type) * 8;
      if (n == 32) a &= 0xffffffffull;
      if (ptx::type_is_signed(I.type)) {
        const bool neg = (a >> (n - 1)) & 1;
        if (neg) a = ~a & (n == 64 ? ~0ull : (1ull << n) - 1);
      }
      int pos = -1;
      for (int i = n - 1; i >= 0; --i)
        if (a & (1ull << i)) {
          pos = i;
          break;
        }
      uint32_t r = pos < 0 ? 0xffffffffu : (I.shiftamt ? uint32_t(n - 1 - pos) : uint32_t(pos));
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Bfe:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      uint32_t pos = uint32_t(src(lane, 1)) & 0xff, len = uint32_t(src(lane, 2)) & 0xff;
      const uint32_t n = ptx::type_size(I.type) * 8;
      uint64_t r = 0;
      bool sign = false;
      if (ptx::type_is_signed(I.type)) {
        uint32_t sb = std::min(pos + len, n) - 1;
        sign = len != 0 && ((a >> std::min(sb, n - 1)) & 1);
      }
      for (uint32_t i = 0; i < n; ++i) {
        bool bit;
        if (i < len && pos + i < n)
          bit = (a >> (pos + i)) & 1;
        else
          bit = ptx::type_is_signed(I.type) ? sign : false;
        if (bit) r |= 1ull << i;
      }
      if (len == 0) r = 0;
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Bfi:
      FOR_LANES(act)
      uint64_t f = src(lane, 0), b = src(lane, 1);
      uint32_t pos = uint32_t(src(lane, 2)) & 0xff, len = uint32_t(src(lane, 3)) & 0xff;
      const uint32_t n = ptx::type_size(I.type) * 8;
      uint64_t r = b;
      for (uint32_t i = 0; i < len && pos + i < n; ++i) {
        uint64_t bit = 1ull << (pos + i);
        r = (r & ~bit) | (((f >> i) & 1) ? bit : 0);
      }
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Bmsk:
      // bmsk.b32 d, a, b: b ones starting at bit a (PTX ISA "bmsk"); .clamp limits both to 32,
      // .wrap takes them modulo 32.
      FOR_LANES(act)
      uint32_t pos = uint32_t(src(lane, 0)), len = uint32_t(src(lane, 1));
      if (I.clamp) {
        pos = std::min(pos, 32u);
        len = std::min(len, 32u);
      } else {
        pos &= 31;
        len &= 31;
      }
      uint64_t ones = len >= 64 ? ~0ull : ((1ull << len) - 1);
      R[d.reg] = pos >= 32 ? 0u : uint32_t(ones << pos);
      END_LANES
      return;
    case Op::Szext:
      // szext.mode.{u32,s32} d, a, b: keep the low b bits of a, sign- or zero-extended.
      FOR_LANES(act)
      uint32_t a = uint32_t(src(lane, 0)), n = uint32_t(src(lane, 1));
      n = I.clamp ? std::min(n, 32u) : (n & 31);
      uint32_t r;
      if (n >= 32)
        r = a;
      else if (n == 0)
        r = 0;
      else if (ptx::type_is_signed(I.type))
        r = uint32_t(int32_t(a << (32 - n)) >> (32 - n));
      else
        r = a & ((1u << n) - 1);
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Prmt:
      FOR_LANES(act)
      R[d.reg] = prmt(uint32_t(src(lane, 0)), uint32_t(src(lane, 1)), uint32_t(src(lane, 2)), I.prmt);
      END_LANES
      return;
    case Op::Fns:
      FOR_LANES(act)
      uint32_t mask = uint32_t(src(lane, 0)), base = uint32_t(src(lane, 1));
      int32_t offset = int32_t(src(lane, 2));
      uint32_t r = 0xffffffffu;
      if (offset == 0) {
        r = (base < 32 && ((mask >> base) & 1)) ? base : 0xffffffffu;
      } else if (offset > 0) {
        int count = 0;
        for (uint32_t i = base; i < 32; ++i)
          if ((mask >> i) & 1 && ++count == offset) {
            r = i;
            break;
          }
      } else {
        int count = 0;
        for (int i = int(base); i >= 0; --i)
          if ((mask >> i) & 1 && --count == offset) {
            r = uint32_t(i);
            break;
          }
      }
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Dp4a:
    case Op::Dp2a:
      FOR_LANES(act)
      uint32_t a = uint32_t(src(lane, 0)), b = uint32_t(src(lane, 1));
      int64_t acc = int32_t(src(lane, 2));
      const bool as = ptx::type_is_signed(I.type), bs = ptx::type_is_signed(I.type2);
      if (I.op == Op::Dp4a) {
        for (int k = 0; k < 4; ++k) {
          int64_t x = as ? int8_t(a >> (8 * k)) : uint8_t(a >> (8 * k));
          int64_t y = bs ? int8_t(b >> (8 * k)) : uint8_t(b >> (8 * k));
          acc += x * y;
        }
      } else {
        for (int k = 0; k < 2; ++k) {
          int64_t x = as ? int16_t(a >> (16 * k)) : uint16_t(a >> (16 * k));
          int64_t y = bs ? int8_t(b >> (8 * k)) : uint8_t(b >> (8 * k));
          acc += x * y;
        }
      }
      R[d.reg] = uint32_t(acc);
      END_LANES
      return;
    case Op::Setp:
      FOR_LANES(act)
      bool r = compare_typed(I.type, I.cmp, src(lane, 0), src(lane, 1));
      bool c = I.nsrc > 2 ? (src(lane, 2) & 1) : false;
      R[d.reg] = combine(I.boolop, r, c);
      if (I.ndst > 1 && I.dst[1].reg != Operand::kNoReg) R[I.dst[1].reg] = combine(I.boolop, !r, c);
      END_LANES
      return;
    case Op::Set:
      FOR_LANES(act)
      bool r = compare_typed(I.type2, I.cmp, src(lane, 0), src(lane, 1));
      if (I.nsrc > 2) r = combine(I.boolop, r, src(lane, 2) & 1);
      R[d.reg] = I.type == Type::F32 ? (r ? to_bits(1.0f) : 0) : (r ? 0xffffffffu : 0);
      END_LANES
      return;
    case Op::Selp:
      FOR_LANES(act)
      R[d.reg] = (src(lane, 2) & 1) ? src(lane, 0) : src(lane, 1);
      END_LANES
      return;
    case Op::Slct:
      FOR_LANES(act)
      uint64_t c = src(lane, 2);
      bool ge = I.type2 == Type::F32 ? !(from_bits<float>(c) < 0.0f) : int32_t(c) >= 0;
      R[d.reg] = ge ? src(lane, 0) : src(lane, 1);
      END_LANES
      return;
    case Op::Cvt:
      FOR_LANES(act)
      R[d.reg] = convert(src(lane, 0), I.type, I.type2, I.rnd, I.sat, I.ftz);
      END_LANES
      return;
    case Op::Cvta: {
      uint64_t base = 0;
      switch (I.space) {
        case Space::Shared: base = kSharedWindow; break;
        case Space::Local: base = kLocalWindow; break;
        default: base = 0; break;
      }
      const bool to_generic = I.cvta != ptx::CvtaDir::FromGeneric;
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      uint64_t r = to_generic ? a + base : a - base;
      if (ptx::type_size(I.type) == 4) r &= 0xffffffffull;
      R[d.reg] = r;
      END_LANES
      return;
    }
    case Op::Isspacep:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      bool sh = a >= kSharedWindow && a < kSharedWindow + kWindowSize;
      bool lo = a >= kLocalWindow && a < kLocalWindow + kWindowSize;
      bool r = I.space == Space::Shared ? sh : I.space == Space::Local ? lo : (!sh && !lo);
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Testp:
      FOR_LANES(act)
      double v = I.type == Type::F64 ? from_bits<double>(src(lane, 0)) : double(from_bits<float>(src(lane, 0)));
      bool r = false;
      switch (I.testp) {
        case ptx::TestpMode::Finite: r = std::isfinite(v); break;
        case ptx::TestpMode::Infinite: r = std::isinf(v); break;
        case ptx::TestpMode::Number: r = !std::isnan(v); break;
        case ptx::TestpMode::NotANumber: r = std::isnan(v); break;
        case ptx::TestpMode::Normal: r = std::isnormal(v); break;
        case ptx::TestpMode::Subnormal: r = std::fpclassify(v) == FP_SUBNORMAL; break;
        default: r = std::isfinite(v); break;
      }
      R[d.reg] = r;
      END_LANES
      return;
    default: unsupported = true; break;
  }
  if (unsupported) {
    int lane = __builtin_ctz(act);
    fault(w, lane, I, LaunchStatus::Fault, "unsupported instruction form",
          fmt::format("{} with type .{} is not modelled by the simulator", ptx::op_name(I.op), ptx::type_name(I.type)));
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Warp-level operations. `act` holds every participating lane (the caller has synchronized
//    them under `its`).
// ---------------------------------------------------------------------------------------------

void KernelRun::exec_warp_op(Warp& w, uint32_t act, const ptx::Instr& I) {
  const Operand& d = I.dst[0];
  switch (I.op) {
    case Op::Activemask:
      FOR_LANES(act)
      R[d.reg] = act;
      END_LANES
      return;
    case Op::Shfl: {
      uint64_t vals[32];
      FOR_LANES(act)
      vals[lane] = operand(w, lane, I.src[0]);
      END_LANES
      FOR_LANES(act)
      uint32_t b = uint32_t(operand(w, lane, I.src[1])) & 0x1f, c = uint32_t(operand(w, lane, I.src[2]));
      // c packs the segment mask (bits 8-12) and the clamp value (bits 0-4): PTX ISA, shfl.sync.
      uint32_t seg_mask = (c >> 8) & 0x1f, clamp = c & 0x1f;
      uint32_t max_lane = (uint32_t(lane) & seg_mask) | (clamp & ~seg_mask);
      uint32_t min_lane = uint32_t(lane) & seg_mask;
      int32_t j = lane;
      bool pval = true;
      switch (I.shfl) {
        case ptx::ShflMode::Up:
          j = lane - int32_t(b);
          pval = j >= int32_t(max_lane);
          break;
        case ptx::ShflMode::Down:
          j = lane + int32_t(b);
          pval = j <= int32_t(max_lane);
          break;
        case ptx::ShflMode::Bfly:
          j = lane ^ int32_t(b);
          pval = j <= int32_t(max_lane);
          break;
        case ptx::ShflMode::Idx:
          j = int32_t(min_lane | (b & ~seg_mask));
          pval = j <= int32_t(max_lane);
          break;
        default: break;
      }
      if (!pval) j = lane;
      uint64_t v = ((act >> (j & 31)) & 1) ? vals[j & 31] : vals[lane];
      R[d.reg] = v;
      if (I.ndst > 1 && I.dst[1].reg != Operand::kNoReg) R[I.dst[1].reg] = pval;
      END_LANES
      return;
    }
    case Op::Vote: {
      uint32_t ballot = 0;
      FOR_LANES(act)
      if (operand(w, lane, I.src[0]) & 1) ballot |= 1u << lane;
      END_LANES
      FOR_LANES(act)
      uint32_t member = uint32_t(operand(w, lane, I.src[I.nsrc - 1])) & act;
      switch (I.vote) {
        case ptx::VoteMode::Ballot: R[d.reg] = ballot & member; break;
        case ptx::VoteMode::All: R[d.reg] = (ballot & member) == member; break;
        case ptx::VoteMode::Any: R[d.reg] = (ballot & member) != 0; break;
        case ptx::VoteMode::Uni: R[d.reg] = (ballot & member) == 0 || (ballot & member) == member; break;
        default: break;
      }
      END_LANES
      return;
    }
    case Op::Match: {
      uint64_t vals[32];
      FOR_LANES(act)
      vals[lane] = operand(w, lane, I.src[0]);
      END_LANES
      const bool wide = ptx::type_size(I.type) == 8;
      FOR_LANES(act)
      uint32_t member = uint32_t(operand(w, lane, I.src[I.nsrc - 1])) & act;
      uint32_t same = 0;
      for (uint32_t m = member; m; m &= m - 1) {
        int j = __builtin_ctz(m);
        bool eq = wide ? vals[j] == vals[lane] : uint32_t(vals[j]) == uint32_t(vals[lane]);
        if (eq) same |= 1u << j;
      }
      if (I.match == ptx::MatchMode::All) {
        bool all = same == member;
        R[d.reg] = all ? member : 0;
        if (I.ndst > 1 && I.dst[1].reg != Operand::kNoReg) R[I.dst[1].reg] = all;
      } else {
        R[d.reg] = same;
      }
      END_LANES
      return;
    }
    case Op::Redux: {
      uint32_t acc = 0;
      bool first = true;
      const bool sgn = ptx::type_is_signed(I.type);
      FOR_LANES(act)
      uint32_t v = uint32_t(operand(w, lane, I.src[0]));
      if (first) {
        acc = v;
        first = false;
        continue;
      }
      switch (I.redux) {
        case ptx::ReduxOp::Add: acc += v; break;
        case ptx::ReduxOp::Min: acc = sgn ? uint32_t(std::min(int32_t(acc), int32_t(v))) : std::min(acc, v); break;
        case ptx::ReduxOp::Max: acc = sgn ? uint32_t(std::max(int32_t(acc), int32_t(v))) : std::max(acc, v); break;
        case ptx::ReduxOp::And: acc &= v; break;
        case ptx::ReduxOp::Or: acc |= v; break;
        case ptx::ReduxOp::Xor: acc ^= v; break;
        default: break;
      }
      END_LANES
      FOR_LANES(act)
      R[d.reg] = sgn ? to_bits<int32_t>(int32_t(acc)) : acc;
      END_LANES
      return;
    }
    default: return;
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Built-in functions
// ---------------------------------------------------------------------------------------------

std::string KernelRun::read_cstring(Warp& w, int lane, uint64_t addr, const ptx::Instr& I) {
  std::string s;
  for (int i = 0; i < 4096; ++i) {
    char c = 0;
    if (!load_bytes(w, lane, Space::Generic, addr + i, &c, 1, I)) return s;
    if (c == 0) break;
    s.push_back(c);
  }
  return s;
}

int KernelRun::do_vprintf(Warp& w, int lane, uint64_t fmt_addr, uint64_t args, const ptx::Instr& I) {
  if (fmt_addr == 0) return -1;
  std::string f = read_cstring(w, lane, fmt_addr, I);
  if (stop_) return -2;
  int nargs = 0;
  std::string out;
  uint64_t off = 0;
  auto take = [&](uint32_t size, uint64_t* v) {
    off = (off + size - 1) / size * size;
    *v = 0;
    bool ok = args != 0 && load_bytes(w, lane, Space::Generic, args + off, v, size, I);
    off += size;
    ++nargs;
    return ok;
  };
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out.push_back(f[i]);
      continue;
    }
    size_t j = i + 1;
    if (j < f.size() && f[j] == '%') {
      out.push_back('%');
      i = j;
      continue;
    }
    std::string spec = "%";
    while (j < f.size() && std::strchr("-+ #0123456789.*", f[j])) spec.push_back(f[j++]);
    std::string len;
    while (j < f.size() && std::strchr("hlLqjzt", f[j])) len.push_back(f[j++]);
    if (j >= f.size()) break;
    char conv = f[j];
    i = j;
    char buf[512];
    uint64_t v = 0;
    switch (conv) {
      case 'd':
      case 'i':
      case 'u':
      case 'x':
      case 'X':
      case 'o':
      case 'c': {
        const bool wide = len == "l" || len == "ll" || len == "j" || len == "z" || len == "t" || len == "q";
        if (!take(wide ? 8 : 4, &v)) return -2;
        std::string s = spec + (wide ? "ll" : "") + conv;
        if (conv == 'd' || conv == 'i') {
          if (wide)
            std::snprintf(buf, sizeof buf, s.c_str(), static_cast<long long>(v));
          else
            std::snprintf(buf, sizeof buf, (spec + conv).c_str(), static_cast<int>(static_cast<int32_t>(v)));
        } else if (conv == 'c') {
          std::snprintf(buf, sizeof buf, (spec + conv).c_str(), static_cast<int>(v & 0xff));
        } else {
          if (wide)
            std::snprintf(buf, sizeof buf, s.c_str(), static_cast<unsigned long long>(v));
          else
            std::snprintf(buf, sizeof buf, (spec + conv).c_str(), static_cast<unsigned>(v));
        }
        out += buf;
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        if (!take(8, &v)) return -2;
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), from_bits<double>(v));
        out += buf;
        break;
      }
      case 'p': {
        if (!take(8, &v)) return -2;
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
        out += buf;
        break;
      }
      case 's': {
        if (!take(8, &v)) return -2;
        std::string s = v ? read_cstring(w, lane, v, I) : std::string("(null)");
        if (stop_) return -2;
        std::snprintf(buf, sizeof buf, (spec + 's').c_str(), s.c_str());
        out += buf;
        break;
      }
      default: out += spec + len + conv; break;
    }
  }
  sim_.emit_printf(out);
  return nargs;
}

void KernelRun::do_assertfail(Warp& w, int lane, uint64_t msg, uint64_t file, uint32_t line, uint64_t func,
                              const ptx::Instr& I) {
  std::string m = read_cstring(w, lane, msg, I);
  std::string f = read_cstring(w, lane, file, I);
  std::string fn = read_cstring(w, lane, func, I);
  if (stop_) return;
  const Lane& L = w.lanes[lane];
  const Cta& c = *w.cta;
  fault(w, lane, I, LaunchStatus::Assert, fmt::format("device assertion failed: {}", m),
        fmt::format("{}:{}: {}: block [{},{},{}], thread [{},{},{}]: Assertion `{}` failed.", f, line, fn, c.ctaid[0],
                    c.ctaid[1], c.ctaid[2], L.tid[0], L.tid[1], L.tid[2], m));
}

void KernelRun::exec_builtin_call(Warp& w, uint32_t act, const ptx::Function& caller, const ptx::Function& callee,
                                  const ptx::CallSite& cs, const ptx::Instr& I) {
  // Arguments of a call live in the caller's param frame (call-sequence .param variables).
  auto arg = [&](int lane, size_t i, uint32_t size) -> uint64_t {
    if (i >= cs.arg_ops.size()) return 0;
    const Operand& o = cs.arg_ops[i];
    if (o.kind == Operand::Kind::Symbol || o.kind == Operand::Kind::Addr) {
      uint64_t v = 0;
      uint8_t* p = param_ptr(w, lane, caller, o, size, I);
      if (p) std::memcpy(&v, p, size);
      return v;
    }
    return operand(w, lane, o);
  };
  auto set_ret = [&](int lane, uint64_t v, uint32_t size) {
    if (cs.rets.empty()) return;
    const ptx::Symbol& s = M_.symbols[cs.rets[0]];
    Operand o;
    o.kind = Operand::Kind::Addr;
    o.imm = static_cast<int64_t>(s.offset);
    o.base = Operand::Base::ParamFrame;  // call-sequence params live in the caller's frame
    uint8_t* p = param_ptr(w, lane, caller, o, size, I);
    if (p) std::memcpy(p, &v, size);
  };
  const std::string& name = callee.name;
  if (name == "vprintf") {
    FOR_LANES(act)
    int n = do_vprintf(w, lane, arg(lane, 0, 8), arg(lane, 1, 8), I);
    if (stop_) return;
    set_ret(lane, static_cast<uint32_t>(n), 4);
    END_LANES
    return;
  }
  if (name == "__assertfail") {
    FOR_LANES(act)
    do_assertfail(w, lane, arg(lane, 0, 8), arg(lane, 1, 8), uint32_t(arg(lane, 2, 4)), arg(lane, 3, 8), I);
    return;
    END_LANES
    return;
  }
  if (name == "malloc") {
    FOR_LANES(act)
    uint64_t size = arg(lane, 0, 8);
    void* p = size ? sim_.memory().allocate(size, AllocKind::Device, "device malloc") : nullptr;
    set_ret(lane, reinterpret_cast<uint64_t>(p), 8);
    END_LANES
    return;
  }
  if (name == "free") {
    FOR_LANES(act)
    uint64_t p = arg(lane, 0, 8);
    if (p && !sim_.memory().release(reinterpret_cast<void*>(p))) {
      fault(w, lane, I, LaunchStatus::Fault, "invalid free in device code",
            fmt::format("free(0x{:x}) of memory not allocated by device malloc (or freed twice)", p));
      return;
    }
    END_LANES
    return;
  }
  int lane = __builtin_ctz(act);
  fault(w, lane, I, LaunchStatus::Fault, fmt::format("call of undefined device function '{}'", name),
        "the function is declared .extern in the PTX but is not built into the simulator; "
        "build all device code into one program (or with -rdc and link it together)");
}

// ---------------------------------------------------------------------------------------------
// 6. The dispatcher
// ---------------------------------------------------------------------------------------------

inline void KernelRun::exec_instr(Warp& w, const Group& g, const ptx::Function& fn, const ptx::Instr& I) {
  const uint32_t act = guard_mask(w, g.mask, I);
  instrs_ += __builtin_popcount(act);
  cur_loc_ = (g.func << 20) | g.pc;
  switch (I.op) {
    case Op::Bra: branch(w, g, act, static_cast<uint32_t>(I.src[0].imm)); return;
    case Op::Brx: {
      // brx.idx index, table: lanes that pick different entries leave in separate groups.
      if (!act) {
        advance(w, g, g.mask);
        return;
      }
      const int first_lane = __builtin_ctz(act);
      const uint64_t t = static_cast<uint64_t>(I.src[1].imm);
      if (t >= fn.branch_tables.size()) {
        fault(w, first_lane, I, LaunchStatus::Fault, "brx.idx without a branch table", "");
        return;
      }
      const auto& table = fn.branch_tables[t];
      uint32_t remaining = act;
      while (remaining) {
        const int lane0 = __builtin_ctz(remaining);
        const uint64_t idx = operand(w, lane0, I.src[0]);
        if (idx >= table.size()) {
          fault(w, lane0, I, LaunchStatus::Fault, "brx.idx index out of range",
                fmt::format("index {} into a table of {} labels", idx, table.size()));
          return;
        }
        uint32_t same = 0;
        FOR_LANES(remaining)
        if (operand(w, lane, I.src[0]) == idx) same |= 1u << lane;
        END_LANES
        if (same == act) {
          branch(w, g, act, table[idx]);
          return;
        }
        if (cfg_.model == WarpModel::Lockstep) {
          fault(w, lane0, I, LaunchStatus::Fault, "divergent brx.idx under lockstep",
                "lanes of one warp jump through a table to different targets; not modelled under lockstep");
          return;
        }
        for (uint32_t m = same; m; m &= m - 1) w.lanes[__builtin_ctz(m)].pc = table[idx];
        w.converged = false;
        remaining &= ~same;
      }
      return;
    }
    case Op::Call: call(w, g, act, fn, I); return;
    case Op::Ret:
      if (act != g.mask) advance(w, g, g.mask & ~act);
      if (act) ret(w, g, act);
      return;
    case Op::Exit:
      if (act != g.mask) advance(w, g, g.mask & ~act);
      if (act) exit_lanes(w, g, act);
      return;
    case Op::Trap:
      if (act) {
        fault(w, __builtin_ctz(act), I, LaunchStatus::Trap, "trap instruction executed",
              "the kernel executed trap (asm(\"trap;\") or __trap())");
        return;
      }
      advance(w, g, g.mask);
      return;
    case Op::Brkpt:
    case Op::Nop:
    case Op::Prefetch:
    case Op::Pmevent: advance(w, g, g.mask); return;
    case Op::Membar:
    case Op::Fence:
      if (act) check_fence(w, act, I);
      advance(w, g, g.mask);
      return;
    case Op::Nanosleep:
      sm_steps_[w.cta->sm] += 1;
      advance(w, g, g.mask);
      return;
    case Op::Bar:
      if (!act) {
        advance(w, g, g.mask);
        return;
      }
      block_at_barrier(w, g, act, I);
      return;
    case Op::BarWarpSync:
    case Op::Shfl:
    case Op::Vote:
    case Op::Match:
    case Op::Redux:
      if (!act) {
        advance(w, g, g.mask);
        return;
      }
      warp_sync(w, g, act, fn, I);
      return;
    case Op::Activemask:
      exec_warp_op(w, act, I);
      advance(w, g, g.mask);
      return;
    case Op::Ld:
    case Op::Ldu: exec_ld(w, act, fn, I); break;
    case Op::St: exec_st(w, act, fn, I); break;
    case Op::Atom:
    case Op::Red: exec_atom(w, act, I); break;
    default:
      if (act) exec_alu(w, act, I);
      break;
  }
  if (!stop_) advance(w, g, g.mask);
}

// Runs the group's instruction (the step loop's one call per step); returns its Instr::exec flags
// (0 when it fell off the function). The common arithmetic forms take their handler right here;
// everything else goes through exec_instr, with lane PCs written into the lanes first for the
// instructions that look at lanes one by one (see KernelRun::materialize).
uint8_t KernelRun::execute(Warp& w, const Group& g) {
  const CodeRef code = code_[g.func];
  if (__builtin_expect(g.pc >= code.size, 0)) {
    fall_off(w, g);
    return 0;
  }
  const ptx::Instr& I = code.code[g.pc];
  if (I.fast) {  // plain, private, never faults (see fast_handler_index)
    const uint32_t act = guard_mask(w, g.mask, I);
    instrs_ += __builtin_popcount(act);
    cur_loc_ = (g.func << 20) | g.pc;
    if (act) kHandlers.h[I.fast](w, act, I);
    advance(w, g, g.mask);
    return I.exec;
  }
  execute_general(w, g, I);
  return I.exec;
}

// Falling off the end of a function behaves as ret.
void KernelRun::fall_off(Warp& w, const Group& g) {
  for (uint32_t m = g.mask; m; m &= m - 1) {
    Lane& L = w.lanes[__builtin_ctz(m)];
    L.func = g.func;
    L.pc = g.pc;
  }
  lane_pcs_live_ = true;
  ret(w, g, g.mask);
  lane_pcs_live_ = false;
  if (cfg_.model == WarpModel::Its && w.converged && w.ready_mask) {
    const Lane& L = w.lanes[__builtin_ctz(w.ready_mask)];
    w.cfunc = L.func;
    w.cpc = L.pc;
  }
}

void KernelRun::execute_general(Warp& w, const Group& g, const ptx::Instr& I) {
  const ptx::Function& fn = M_.functions[g.func];
  const bool plain = I.exec & ptx::Instr::kExecPlain;  // (branch() keeps lane PCs itself)
  if (!plain) {
    for (uint32_t m = g.mask; m; m &= m - 1) {
      Lane& L = w.lanes[__builtin_ctz(m)];
      L.func = g.func;
      L.pc = g.pc;
    }
    lane_pcs_live_ = true;
  }
  exec_instr(w, g, fn, I);
  if (!plain) {
    lane_pcs_live_ = false;
    if (cfg_.model == WarpModel::Its && w.converged && w.ready_mask) {
      const Lane& L = w.lanes[__builtin_ctz(w.ready_mask)];
      w.cfunc = L.func;
      w.cpc = L.pc;
    }
  }
}

}  // namespace synclab::sim
