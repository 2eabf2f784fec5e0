// Instruction semantics, memory: address translation into the simulator's memory spaces, loads
// and stores (scalar, vector and the row forms of a converged warp), atomics and reductions.
//
// Where things are (the sections below, in this order):
//   Address translation translate (an address in a state space -> the simulator's memory, or a fault: misaligned,
//                       out of bounds, freed, near null); param_ptr (kernel and call parameters)
//   Listeners           accessed: an access shown to the run's listeners (run_observer.h)
//   Loads and stores    load_bytes, store_bytes (one lane's access, through mapped host memory and the relaxed
//                       model where they apply); note_write, lane_change (which writes the hang detector counts
//                       as visible changes)
//   Fast path           extend_loaded; fast_ptr (a scalar access to shared memory or the warp's cached global
//                       allocation)
//   Row forms           row_span (every active lane's address checked at once), ld_rows, st_rows, and their
//                       helpers (load_lanes, read_bits, write_bits, store_changed)
//   Relaxed model       relaxed_load, relaxed_store (element by element), note_store, flush_memory_model,
//                       relaxed_fence
//   ld and st           exec_ld, exec_st: the row form, else lane by lane (fast_ptr first, then load_bytes,
//                       store_bytes or param_ptr)
//   Atomic operations   atomic_apply (one AtomOp on a value), cas_bits, atomic_rmw, atomic_compute
//   atom and red        atom_lanes (for one value type: its row form, else lane by lane, with the relaxed
//                       model choosing the value read), exec_atom (the instruction's type -> atom_lanes)
//   Store collisions    find_store_collision: lanes of one store writing the same bytes, for the race checker

#include <fmt/format.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <optional>

#include "sim/exec/convert.h"
#include "sim/exec/host_watch.h"
#include "sim/exec/instr/operands.h"
#include "sim/exec/values.h"

namespace synclab::sim {

using namespace instr;

namespace {
// The size of one element of an access of type t (the memory model's unit).
uint32_t elem_size(Type t) {
  uint32_t s = ptx::type_size(t);
  return s == 0 ? 4 : s;
}
}  // namespace

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
                          write ? "write" : "read", size, addr, c.shared.size(), shape_.static_shared,
                          p_.dynamic_shared));
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

// Where an access meets those who listen (run_observer.h): the trace recorder, the counters, the
// checkers.
inline void KernelRun::accessed(Warp& w, int lane, uint64_t generic, uint32_t size, bool write, const ptx::Instr& I,
                                uint64_t value) {
  if (generic < kLocalWindow) listen_.list.access(w, lane, generic, size, write, value, I);
}

bool KernelRun::load_bytes(Warp& w, int lane, Space sp, uint64_t addr, void* dst, uint32_t size, const ptx::Instr& I) {
  uint64_t generic = 0;
  uint8_t* p = translate(w, lane, sp, addr, size, false, I, &generic);
  if (!p) return false;
  if (host_visible(w.cache_kind) && generic < kSharedWindow && size <= 8) {
    // Mapped host memory may be written by host threads while the kernel runs.
    host_watch::DeviceAccess in_order;
    listen_.list.host_look();
    if (mm_.relaxed && size == std::min<uint32_t>(elem_size(I.type), 8)) host_word(w, generic, size, p);
    const uint64_t host_v = host_watch::load_word(p, size);
    std::memcpy(dst, &host_v, size);
    if (mm_.relaxed) relaxed_load(w, lane, generic, static_cast<uint8_t*>(dst), size, I);
    if (listen_.any) {
      // The listeners hear what the load read. The relaxed model takes in the host's writes again
      // when memory moved after host_v was read (a host write in between): when the thread got
      // memory's value of now, newer than host_v, that is what it read (else the race checker
      // would not know that an acquire took the host's newer write, and would report the data
      // behind it).
      uint64_t got = 0;
      std::memcpy(&got, dst, size);
      const uint64_t read = got != host_v && got == host_watch::load_word(p, size) ? got : host_v;
      listen_.list.host_access(w, lane, generic, size, p, false, false, I, &read, nullptr);
    }
  } else {
    std::memcpy(dst, p, size);
    if (mm_.relaxed) relaxed_load(w, lane, generic, static_cast<uint8_t*>(dst), size, I);
  }
  if (listen_.list.accesses()) {
    uint64_t v = 0;
    std::memcpy(&v, dst, std::min<uint32_t>(size, 8));
    accessed(w, lane, generic, size, false, I, v);
    if (!mm_.notes.empty()) flush_memory_model(w);
  }
  w.last_load[lane] = generic;
  return true;
}

void KernelRun::note_write(Warp& w, int lane, uint64_t generic, const ptx::Instr& I, uint64_t old, uint64_t now,
                           uint32_t size, bool atomic) {
  listen_.list.wrote(writer_key(generic, w.cta->linear), w.cta->linear, w.lanes[lane].tid_linear, I);
  if ((atomic || (w.open_lanes >> lane & 1)) && !lane_change(w, lane, generic, old, now, size, atomic)) return;
  listen_.list.visible_change();
}

bool KernelRun::lane_change(Warp& w, int lane, uint64_t generic, uint64_t old, uint64_t now, uint32_t size,
                            bool may_open) {
  const uint32_t bit = 1u << lane;
  Lane& L = w.lanes[lane];
  if (w.open_lanes & bit) {
    if (L.open_addr == generic && L.open_size == size) {
      // The open word again: still changed, or put back (the lock released): nothing to commit.
      if (now == L.open_old) w.open_lanes &= ~bit;
      listen_.list.tentative_change();
      return false;
    }
    w.open_lanes &= ~bit;  // a second word: both changes are visible now
    return true;
  }
  if (!may_open) return true;
  // An atomic's change stays tentative until the lane changes another word or its loop is checked
  // (check_progress): a lock taken and released in between never was a change.
  w.open_lanes |= bit;
  L.open_addr = generic;
  L.open_old = old;
  L.open_size = size;
  listen_.list.tentative_change();
  return false;
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
  // Memory the host can see: the store's event and the store itself in one DeviceAccess (no host
  // access noted between them).
  std::optional<host_watch::DeviceAccess> in_order;
  const bool host_mem = host_visible(w.cache_kind) && generic < kSharedWindow;
  if (host_mem) {
    in_order.emplace();
    listen_.list.host_look();
    if (mm_.relaxed && size == std::min<uint32_t>(elem_size(I.type), 8)) host_word(w, generic, size, p);
  }
  uint64_t stored = 0;
  std::memcpy(&stored, src, std::min<uint32_t>(size, 8));
  uint8_t placed[64];
  const bool model = mm_.relaxed && size <= sizeof placed;
  mm_.write_version[lane] = 0;
  if (model) {
    // The memory model may put (elements of) the store before newer writes: memory keeps those.
    // (Before the checkers see the store: the race checker files its release under the model's
    // version of the write.)
    std::memcpy(placed, src, size);
    relaxed_store(w, lane, generic, placed, p, size, I);
    src = placed;
  }
  if (listen_.list.accesses()) accessed(w, lane, generic, size, true, I, stored);
  if (model && !mm_.notes.empty()) flush_memory_model(w);
  if (std::memcmp(p, src, size) != 0) {
    uint64_t before = 0, after = 0;
    if ((w.open_lanes >> lane & 1) && size <= 8) {
      std::memcpy(&before, p, size);
      std::memcpy(&after, src, size);
    }
    if (host_visible(w.cache_kind) && generic < kSharedWindow && size <= 8) {
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
    note_write(w, lane, generic, I, before, after, size <= 8 ? size : 0);
  }
  if (host_mem && listen_.any && size <= 8) {
    // What the store left in memory, as the checker's record of the word: reading memory back
    // instead would take a host write made since for the device's.
    uint64_t left = 0;
    std::memcpy(&left, src, size);
    listen_.list.host_access(w, lane, generic, size, p, true, false, I, nullptr, &left);
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
  if (sp == Space::Global && !host_visible(w.cache_kind) && (!write || w.cache_kind != AllocKind::ModuleConst) &&
      addr - w.cache_base < w.cache_size && w.cache_size - (addr - w.cache_base) >= size) {
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
    if (host_visible(w.cache_kind) || (write && w.cache_kind == AllocKind::ModuleConst) || w.cache_size < size)
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
  const uint64_t off =
      static_cast<uint64_t>(a.imm) + (a.base == Operand::Base::DynamicShared ? shape_.dynamic_shared_base : 0);
  uint64_t host_off, gen_off;
  if (!row_span(w, act, I.space, a.reg != Operand::kNoReg ? w.row(a.reg) : nullptr, off, X, es, false, &host_off,
                &gen_off))
    return false;
  uint64_t* D = w.row(I.dst[0].reg);
  const bool sgn = ptx::type_is_signed(I.type);
  switch (es) {
    case 1: sgn ? load_lanes<int8_t>(D, X, act, host_off) : load_lanes<uint8_t>(D, X, act, host_off); break;
    case 2: sgn ? load_lanes<int16_t>(D, X, act, host_off) : load_lanes<uint16_t>(D, X, act, host_off); break;
    case 4: sgn ? load_lanes<int32_t>(D, X, act, host_off) : load_lanes<uint32_t>(D, X, act, host_off); break;
    default: load_lanes<uint64_t>(D, X, act, host_off); break;
  }
  if (mm_.relaxed) {
    // The memory model may have each lane read an older value (the row holds memory's).
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      const uint64_t mask = es >= 8 ? ~0ull : (1ull << (es * 8)) - 1;
      const uint64_t stale_before = mm_.relaxed->stale_reads();
      const uint64_t v =
          mm_.relaxed->load(mm_thread(w, l), mm_key(w, X[l] + gen_off), es, D[l] & mask, load_order(I), clock_.steps);
      mm_.read_version[l] = mm_.relaxed->read_version();
      if (listen_.watched) note_load(l, X[l] + gen_off, es, stale_before, D[l] & mask);
      if (v != (D[l] & mask)) D[l] = extend_loaded(v, es, I.type);
    }
  }
  if (listen_.list.accesses()) listen_.list.rows(w, act, X, gen_off, es, false, I, D);
  if (!mm_.notes.empty()) flush_memory_model(w);
  if (listen_.list.progress().suspicious()) {
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      w.last_load[l] = X[l] + gen_off;
    }
  }
  return true;
}

namespace {
// The `es` bytes (1, 2, 4 or 8) at p, zero-extended; and their store. Fixed-size copies: a copy
// of a variable size is a library call whose result the next load waits for.
template <class T>
inline uint64_t read_as(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
inline void write_as(uint8_t* p, uint64_t v) {
  const T x = static_cast<T>(v);
  std::memcpy(p, &x, sizeof x);
}
inline uint64_t read_bits(const uint8_t* p, uint32_t es) {
  switch (es) {
    case 1: return read_as<uint8_t>(p);
    case 2: return read_as<uint16_t>(p);
    case 4: return read_as<uint32_t>(p);
    default: return read_as<uint64_t>(p);
  }
}
inline void write_bits(uint8_t* p, uint64_t v, uint32_t es) {
  switch (es) {
    case 1: write_as<uint8_t>(p, v); break;
    case 2: write_as<uint16_t>(p, v); break;
    case 4: write_as<uint32_t>(p, v); break;
    default: write_as<uint64_t>(p, v); break;
  }
}
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
  const uint64_t off =
      static_cast<uint64_t>(a.imm) + (a.base == Operand::Base::DynamicShared ? shape_.dynamic_shared_base : 0);
  uint64_t host_off, gen_off;
  if (!row_span(w, act, I.space, a.reg != Operand::kNoReg ? w.row(a.reg) : nullptr, off, X, es, true, &host_off,
                &gen_off))
    return false;
  if (listen_.race && (act & (act - 1))) find_store_collision(w, act, I, es, X, gen_off);
  const uint64_t* V = v.kind == Operand::Kind::Reg && !v.negate ? w.row(v.reg) : nullptr;
  if (listen_.list.accesses()) {
    alignas(16) uint64_t vals[32];
    if (!V && listen_.watched)
      for (uint32_t m = act; m; m &= m - 1) vals[__builtin_ctz(m)] = operand(w, __builtin_ctz(m), v);
    listen_.list.rows(w, act, X, gen_off, es, true, I, V ? V : vals);
  }
  bool changed_any = false;
  const uint64_t cta = w.cta->linear;
  const uint32_t open_lanes = w.open_lanes;  // lanes whose store may undo a change (lane_change)
  // Threads form warps in linear order: lane l of warp i is thread i * 32 + l of its block.
  const uint32_t tid0 = w.index * 32;
  uint64_t region = ~0ull, region_start = 0;  // HangDetector::slot, computed once per region
  for (uint32_t m = act; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    const uint64_t val = V ? V[l] : operand(w, l, v);
    uint8_t* p = reinterpret_cast<uint8_t*>(X[l] + host_off);
    if (mm_.relaxed) {
      // Before newer values in coherence order: memory keeps the newest.
      const uint64_t latest = read_bits(p, es);
      const uint64_t mask = es >= 8 ? ~0ull : (1ull << (es * 8)) - 1;
      const bool newest = mm_.relaxed->store(mm_thread(w, l), mm_key(w, X[l] + gen_off), es, val & mask, latest,
                                             {I.sem, I.scope}, clock_.steps);
      mm_.write_version[l] = mm_.relaxed->write_version();
      if (listen_.watched) note_store(w, l, X[l] + gen_off, es, newest, val & mask, latest);
      if (!newest) continue;
    }
    const bool open = open_lanes >> l & 1;
    const uint64_t before = open ? read_bits(p, es) : 0;
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
      const uint64_t key = writer_key(generic, cta);
      if (key >> 14 != region) {
        region = key >> 14;
        region_start = HangDetector::region_start(key);
      }
      listen_.list.wrote_at(HangDetector::slot_in(key, region_start), key, cta, tid0 + l, I);
      const uint64_t mask = es >= 8 ? ~0ull : (1ull << (es * 8)) - 1;
      if (!open || lane_change(w, l, generic, before, val & mask, es, false)) changed_any = true;
    }
  }
  if (changed_any) listen_.list.visible_change();
  if (!mm_.notes.empty()) flush_memory_model(w);
  return true;
}

// The relaxed memory model's part in a load or store of `size` bytes at a shared or global
// address: element by element (a vector access is its elements), each load may read an older
// value, each store may go before newer ones in coherence order (then `bytes` takes memory's).
void KernelRun::relaxed_load(Warp& w, int lane, uint64_t generic, uint8_t* bytes, uint32_t size, const ptx::Instr& I) {
  if (generic >= kLocalWindow) return;
  mm_.read_version[lane] = 0;
  const uint32_t es = std::min<uint32_t>(elem_size(I.type), 8);
  if (es == 0 || size % es) return;
  const MemThread t = mm_thread(w, lane);
  for (uint32_t off = 0; off < size; off += es) {
    const uint64_t newest = read_bits(bytes + off, es);
    const uint64_t stale_before = mm_.relaxed->stale_reads();
    const uint64_t v = mm_.relaxed->load(t, mm_key(w, generic + off), es, newest, load_order(I), clock_.steps);
    if (off == 0)
      mm_.read_version[lane] = mm_.relaxed->read_version();  // (the race checker's key is the first element's)
    if (listen_.watched) note_load(lane, generic + off, es, stale_before, newest);
    if (v != newest) write_bits(bytes + off, v, es);
  }
}

void KernelRun::relaxed_store(Warp& w, int lane, uint64_t generic, uint8_t* bytes, const uint8_t* memory, uint32_t size,
                              const ptx::Instr& I) {
  if (generic >= kLocalWindow) return;
  const uint32_t es = std::min<uint32_t>(elem_size(I.type), 8);
  if (es == 0 || size % es) return;
  const MemThread t = mm_thread(w, lane);
  for (uint32_t off = 0; off < size; off += es) {
    const uint64_t v = read_bits(bytes + off, es), latest = read_bits(memory + off, es);
    const bool newest = mm_.relaxed->store(t, mm_key(w, generic + off), es, v, latest, {I.sem, I.scope}, clock_.steps);
    if (off == 0) mm_.write_version[lane] = mm_.relaxed->write_version();
    if (listen_.watched) note_store(w, lane, generic + off, es, newest, v, latest);
    if (!newest) std::memcpy(bytes + off, memory + off, es);
  }
}

void KernelRun::note_store(const Warp& w, int lane, uint64_t generic, uint32_t size, bool newest, uint64_t value,
                           uint64_t kept) {
  if (!newest)
    mm_.notes.push_back({lane, trace::MemoryModelKind::EarlyStore, size, generic, kept});
  else if (mm_.relaxed->has_older(mm_key(w, generic)))
    mm_.notes.push_back({lane, trace::MemoryModelKind::Buffered, size, generic, value});
}

void KernelRun::flush_memory_model(const Warp& w) {
  for (const ModelNote& n : mm_.notes) listen_.list.memory_model(w, n.lane, n.kind, n.generic, n.value, n.size);
  mm_.notes.clear();
}

// membar is fence.sc; a fence without .sem is fence.acq_rel; proxy fences order no memory
// accesses of threads (PTX ISA, membar/fence).
void KernelRun::relaxed_fence(Warp& w, uint32_t act, const ptx::Instr& I) {
  if (I.proxy) {
    if (mm_.proxy_not_covered.empty()) {
      const SourceLoc s = where(I);
      mm_.proxy_not_covered = fmt::format(
          "a proxy fence ran at {}: the relaxed memory model covers the generic proxy only (ordinary loads, "
          "stores and atomics), so what a proxy fence orders between proxies (the async proxy of "
          "cp.async.bulk and tensor-map copies, surfaces, textures) is not modelled: accesses through other "
          "proxies read and write memory's newest values, as under sc",
          !s.file.empty() && s.line ? fmt::format("{}:{}", s.file, s.line) : fmt::format("PTX line {}", s.ptx_line));
    }
    return;
  }
  MemOrder o{I.sem, I.scope};
  if (I.op == Op::Membar || o.sem == ptx::Sem::None) o.sem = I.op == Op::Membar ? ptx::Sem::Sc : ptx::Sem::AcqRel;
  if (warp_is_unit(cfg_.model)) act &= -act;  // one view per warp
  for (uint32_t m = act; m; m &= m - 1) mm_.relaxed->fence(mm_thread(w, __builtin_ctz(m)), o);
}

void KernelRun::exec_ld(Warp& w, uint32_t act, const ptx::Function& fn, const ptx::Instr& I) {
  const uint32_t es = elem_size(I.type);
  const uint32_t n = I.vec ? I.vec : 1;
  const Operand& d = I.dst[0];
  const Operand& a = I.src[0];
  const bool scalar = cfg_.fast && !mm_.relaxed && n == 1 && es <= 8 && d.kind == Operand::Kind::Reg &&
                      (a.base == Operand::Base::Absolute || a.base == Operand::Base::DynamicShared) &&
                      I.space != Space::Param && I.space != Space::Local;
  const uint64_t base_off = a.base == Operand::Base::DynamicShared ? shape_.dynamic_shared_base : 0;
  if (!act) return;
  if ((I.exec & ptx::Instr::kExecLdScalar) && w.uniform_base != Warp::kMixedBase && ld_rows(w, act, I, es)) return;
  const bool track = listen_.list.progress().suspicious();
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
      if (listen_.list.accesses()) accessed(w, lane, generic, es, false, I, v);
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

void KernelRun::exec_st(Warp& w, uint32_t act, const ptx::Function& fn, const ptx::Instr& I) {
  const uint32_t es = elem_size(I.type);
  const uint32_t n = I.vec ? I.vec : 1;
  // st [addr], value: the parser puts the address in src[0] and the value in src[1].
  const Operand* a = &I.src[0];
  const Operand* v = &I.src[1];
  const bool scalar = cfg_.fast && !mm_.relaxed && n == 1 && es <= 8 && v->kind != Operand::Kind::Vector &&
                      (a->base == Operand::Base::Absolute || a->base == Operand::Base::DynamicShared) &&
                      a->kind == Operand::Kind::Addr && I.space != Space::Param && I.space != Space::Local;
  const uint64_t base_off = a->base == Operand::Base::DynamicShared ? shape_.dynamic_shared_base : 0;
  if (!act) return;
  if ((I.exec & ptx::Instr::kExecLdScalar) && w.uniform_base != Warp::kMixedBase && st_rows(w, act, I, es)) return;
  if (listen_.race && (act & (act - 1))) find_store_collision(w, act, I, es * n, nullptr, 0);
  FOR_LANES(act)
  if (scalar) {
    uint64_t generic = 0;
    const uint64_t addr = (a->reg != Operand::kNoReg ? R[a->reg] : 0) + static_cast<uint64_t>(a->imm) + base_off;
    if (uint8_t* p = fast_ptr(w, I.space, addr, es, true, &generic)) {
      const uint64_t val = v->kind == Operand::Kind::Reg && !v->negate ? R[v->reg] : operand(w, lane, *v);
      if (listen_.list.accesses()) accessed(w, lane, generic, es, true, I, val);
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
        const bool open = w.open_lanes >> lane & 1;
        const uint64_t before = open ? read_bits(p, es) : 0;
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
        if (open)
          note_write(w, lane, generic, I, before, es >= 8 ? val : val & ((1ull << (es * 8)) - 1), es);
        else
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

// The unsigned integer of a value type's width (the bits an atomic operates on).
template <class T>
using BitsOf = std::conditional_t<sizeof(T) == 8, uint64_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;

// One compare-and-swap of the bits at p (memory host threads may write): true when they were
// `expected` and are now `desired`.
template <class T>
__attribute__((always_inline)) inline bool cas_bits(uint8_t* p, uint64_t expected, uint64_t desired) {
  BitsOf<T> e = static_cast<BitsOf<T>>(expected);
  return __atomic_compare_exchange_n(reinterpret_cast<BitsOf<T>*>(p), &e, static_cast<BitsOf<T>>(desired), false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

template <class T>
__attribute__((always_inline)) inline uint64_t atomic_rmw(uint8_t* p, bool host_shared, AtomOp op, uint64_t bb,
                                                          uint64_t cb, uint64_t* new_bits) {
  using U = BitsOf<T>;
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

// The operation alone, on the value `old_bits` (the relaxed memory model's choice): the new value's
// bits, and the old value as the instruction returns it.
template <class T>
__attribute__((always_inline)) inline uint64_t atomic_compute(uint64_t old_bits, AtomOp op, uint64_t bb, uint64_t cb,
                                                              uint64_t* new_bits) {
  using U = BitsOf<T>;
  const U cur = static_cast<U>(old_bits);
  const T next = atomic_apply<T>(op, bitcast<T>(cur), from_bits<T>(bb), from_bits<T>(cb));
  *new_bits = bitcast<U>(next);
  return to_bits<T>(bitcast<T>(cur));
}

// For the listeners of a read-modify-write of host-shared memory under the relaxed model: what its
// read read. As in load_bytes, the model may have taken in a host write made after `latest` was
// read from memory (when memory moved); when the read got memory's value of now, that is it.
// (Out of line: the lane loops of atom_lanes stay as they are without it.)
[[gnu::noinline]] uint64_t host_read_seen(const uint8_t* p, uint32_t size, uint64_t keep, uint64_t latest,
                                          uint64_t read) {
  if ((read & keep) != (latest & keep) && (host_watch::load_word(p, size) & keep) == (read & keep)) return read & keep;
  return latest & keep;
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
  if (abs_addr && !mm_.relaxed && w.uniform_base != Warp::kMixedBase && act) {
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
          if (listen_.any) listen_.list.atomic_read(w, l, generic, size, I);
          const uint64_t old =
              atomic_rmw<T>(reinterpret_cast<uint8_t*>(X[l] + host_off), false, op, B[l], C ? C[l] : 0, &nb);
          if ((old & keep) != (nb & keep)) {
            // note_write, with one epoch step for the instruction.
            listen_.list.wrote(writer_key(generic, cta), cta, w.index * 32 + l, I);
            if (lane_change(w, l, generic, old & keep, nb & keep, size, true)) changed_any = true;
          }
          // As in the lane-by-lane path below: every read-modify-write but a failed
          // compare-and-swap is a write for the race checker.
          if (listen_.any && !(cas && (old & keep) != (B[l] & keep))) listen_.list.atomic_wrote(w, l, generic, I);
          if (listen_.any) listen_.list.atomic(w, l, generic, size, old & keep, nb & keep, I);
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
      if (changed_any) listen_.list.visible_change();
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
  const bool host_shared = generic < kSharedWindow && host_visible(w.cache_kind);
  const bool model = mm_.relaxed && generic < kLocalWindow;
  // (under the relaxed model, once the model has chosen the write the read reads)
  if (listen_.any && !model) listen_.list.atomic_read(w, lane, generic, size, I);
  const uint64_t b = value(lane, R, ob);
  const uint64_t c = cas ? value(lane, R, oc) : 0;
  uint64_t nb = 0;
  uint64_t old;
  const uint64_t keep = size < 8 ? (1ull << (size * 8)) - 1 : ~0ull;
  bool failed_cas;
  if (model) {
    // The memory model chooses the value the read reads (possibly an older one, when no morally
    // strong write is between: PTX ISA, "Atomicity"), and where the write goes in coherence order;
    // memory takes the new value only when it is the newest.
    std::optional<host_watch::DeviceAccess> in_order;
    if (host_shared) {
      in_order.emplace();
      listen_.list.host_look();
      host_word(w, generic, size, p);
    }
    uint64_t latest = 0;
    std::memcpy(&latest, p, size);
    const MemThread t = mm_thread(w, lane);
    const uint64_t key = mm_key(w, generic);
    const uint64_t expected = b & keep;
    MemOrder ro{I.sem, I.scope, is_red};
    ro.no_release_after = cfg_.model == WarpModel::Its && (I.exec & ptx::Instr::kExecNoReleaseAfter);
    const uint64_t read =
        mm_.relaxed->rmw_read(t, key, size, latest & keep, ro, clock_.steps, false, cas ? &expected : nullptr);
    mm_.read_version[lane] = mm_.relaxed->read_version();
    if (listen_.any) listen_.list.atomic_read(w, lane, generic, size, I);
    old = atomic_compute<T>(read, I.aop, b, c, &nb);
    failed_cas = cas && (old & keep) != (b & keep);
    const bool newest = mm_.relaxed->rmw_write(t, key, size, nb & keep, !failed_cas, {I.sem, I.scope}, clock_.steps);
    mm_.write_version[lane] = mm_.relaxed->write_version();
    // was: what the read read for the listeners; left: what memory holds after it.
    uint64_t was = latest & keep, left = latest & keep;
    if (host_shared) was = left = host_read_seen(p, size, keep, latest, read);
    if (newest && !failed_cas) {
      left = nb & keep;
      if (host_shared) {
        // Memory takes the write only if no host thread wrote the word since `latest` was read;
        // one that did made its write inside this read-modify-write, so the device's operation
        // applies again, after the host's (atomically: no update of either is lost) and returns
        // the host's value.
        if (!cas_bits<T>(p, latest, nb)) {
          old = atomic_rmw<T>(p, true, I.aop, b, c, &nb);
          failed_cas = cas && (old & keep) != (b & keep);
          was = old & keep;
          left = nb & keep;
          mm_.relaxed->host_raced(t, key, size, p, clock_.steps);
        }
      } else {
        std::memcpy(p, &nb, size);
      }
    }
    if (host_shared && listen_.any) listen_.list.host_access(w, lane, generic, size, p, false, true, I, &was, &left);
  } else {
    if (host_shared) {
      host_watch::DeviceAccess in_order;
      listen_.list.host_look();
      old = atomic_rmw<T>(p, host_shared, I.aop, b, c, &nb);
      if (listen_.any) {
        const uint64_t was = old & keep, left = nb & keep;
        listen_.list.host_access(w, lane, generic, size, p, false, true, I, &was, &left);
      }
    } else {
      old = atomic_rmw<T>(p, host_shared, I.aop, b, c, &nb);
    }
    failed_cas = cas && (old & keep) != (b & keep);
  }
  const uint64_t old_cmp = old & keep, nb_cmp = nb & keep;
  if (old_cmp != nb_cmp) note_write(w, lane, generic, I, old_cmp, nb_cmp, size, true);
  // Every read-modify-write is a write in the memory model, also when it leaves the value as
  // it was (atomicAdd(p, 0), atomicMax that does not raise): it can be a release and it
  // continues release sequences. Only a failed compare-and-swap writes nothing.
  if (listen_.any && !failed_cas) listen_.list.atomic_wrote(w, lane, generic, I);
  if (listen_.any) {
    listen_.list.atomic(w, lane, generic, size, old_cmp, nb_cmp, I);
    if (listen_.watched && mm_.relaxed && generic < kLocalWindow && !failed_cas &&
        mm_.relaxed->has_older(mm_key(w, generic)))
      listen_.list.memory_model(w, lane, trace::MemoryModelKind::Buffered, generic, nb_cmp, size);
  }
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
  if (listen_.any) listen_.list.atomic_read(w, lane, generic, size, I);
  operand(w, lane, I.src[1]);
  if (I.aop == AtomOp::Cas) operand(w, lane, I.src[2]);
  fault(w, lane, I, LaunchStatus::Fault, "unsupported atomic type",
        fmt::format("{}.{} is not modelled", ptx::op_name(I.op), ptx::type_name(I.type)));
  return;
  END_LANES
}

// Lanes of one warp are ordered between the instructions they execute together, never within
// one: when two lanes of this store write the same bytes, only one lane's value survives, under
// every warp model and on every GPU. Found here, before the store, where every lane's address and
// value are at hand (the race detector leaves such pairs to this check, Access::step); the race
// checker hears of it (store_collision) and reports it.
void KernelRun::find_store_collision(Warp& w, uint32_t act, const ptx::Instr& I, uint32_t bytes, const uint64_t* G,
                                     uint64_t g_off) {
  // Explicit atomics (st.relaxed/.release, cuda::atomic_ref stores) are ordered by coherence; local
  // and parameter memory is each thread's own.
  using ptx::Sem;
  if (!ptx::is_weak(I.sem) && I.sem != Sem::Volatile) return;
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
    // Toolkit code (cooperative groups' multi-warp collectives) has every lane of a warp store the
    // same value on purpose: a value computed for the warp, not read back and changed.
    if (I.toolkit && scalar) {
      bool same = true;
      for (uint32_t m = writers; m; m &= m - 1) same = same && V[__builtin_ctz(m)] == V[__builtin_ctz(writers)];
      if (same) continue;
    }
    listen_.list.store_collision(w, I, at, bytes, writers, scalar ? V : nullptr);
    return;
  }
}

}  // namespace synclab::sim
