// Regions found without annotations: while a trace records, the words a run uses as locks or flags
// become regions of the trace (Region / SharedRegion chunks), so that the viewer's lock bits &
// flags window draws them for a program that never called synclab_region (docs/simulator.md,
// "Regions found without annotations").
//
// What is found:
//   lock words  the targets of atom.cas and atom.exch (atomicCAS, atomicExch), global or shared:
//               a "lock-bits" region, one row of bits per word.
//   flags       a word a thread polls: it loads the same word at the same instruction and reads
//               the same value kAutoPolls times in a row, with no other memory access of its own
//               in between (an atomic that leaves the word unchanged, atomicAdd(&f, 0), counts as
//               a load); and the word each spinning lane polls when a hang or SIMT-deadlock report
//               ends the launch (Warp::last_load, what the report names). A "flags" region of
//               elements of the access's size.
// A word some region already covers (one the program registered, or one found before) gets none.
// Names: a __device__ or __shared__ variable of up to kWholeVariableBytes becomes one region
// named after the variable (its elements all words of the access's size); a larger variable gives
// the word alone, "var + byte offset"; memory from cudaMalloc (and the other allocation calls)
// gives the word alone, named as hang reports name it: "cudaMalloc #2 (1024 bytes) + 64".
// A global word found mid-launch gets its region at once: its RegionUpdate events start with a
// snapshot (kRegionSnapshot, at the current time) of the region's contents just before the access
// that found it, then every later write. A __shared__ word found mid-launch is drawn from the
// kernel's next launch (a launch's shared regions are fixed in its Kernel chunk); the cas/exch
// instructions that name a __shared__ variable in their address (directly or through a mov of its
// address) are looked for when a launch begins, so those are drawn from the first launch.
// Found regions stay for the rest of the process (later launches snapshot them like registered
// ones). At most kMaxAutoRegions per process, so that they never crowd out the program's own.
//
// Cost: none without a trace (no recorder). While tracing, per load, store or atomic one entry of
// a small per-thread table, and per cas/exch a hash-set lookup; the region itself only once.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <unordered_map>
#include <utility>

#include "sim/exec/trace_recorder.h"

namespace synclab::sim {

using ptx::Op;
using ptx::Operand;
using trace::Event;
using trace::EventKind;

namespace {

constexpr uint64_t kWholeVariableBytes = 4096;  // a variable up to this size is one region
constexpr uint32_t kMaxAutoRegions = 64;        // per process
std::atomic<uint32_t> g_auto_regions{0};

// The name a region of variable `symbol` gets: the demangled name, without the function of a
// function-scope static (nvcc's _ZZ6kernelvE4lock is kernel()::lock: "lock").
std::string variable_name(const std::string& symbol) {
  std::string d = demangle_name(symbol);
  if (symbol.compare(0, 3, "_ZZ") == 0) {
    const size_t colons = d.rfind("::");
    if (colons != std::string::npos) d = d.substr(colons + 2);
  }
  return d;
}

// The region's shape: a lock-bits region is one row of bits per word; flags one element per word.
void shape(uint64_t bytes, uint32_t size, bool lock, std::string* kind, unsigned* elem_bits,
           std::vector<unsigned>* dims) {
  const unsigned words = static_cast<unsigned>(bytes / size);
  if (lock) {
    *kind = "lock-bits";
    *elem_bits = 1;
    *dims = words == 1 ? std::vector<unsigned>{size * 8} : std::vector<unsigned>{words, size * 8};
  } else {
    *kind = "flags";
    *elem_bits = size * 8;
    *dims = {words};
  }
}

bool word_size(uint32_t size) { return size == 1 || size == 2 || size == 4 || size == 8; }

}  // namespace

// The thread's kAutoPolls-th load in a row of one word at one instruction, reading one value.
void TraceRecorder::auto_polled(uint64_t generic, uint32_t size, uint64_t value) {
  if (word_size(size) && auto_seen_.count(generic) == 0) auto_found(generic, size, /*lock=*/false, value);
}

// A hang or SIMT deadlock ends the launch: the words its spinning lanes poll (as the report names
// them) become flags, unless already found.
void TraceRecorder::auto_report(const Report& r) {
  if (r.kind != ReportKind::Hang && r.kind != ReportKind::Deadlock) return;
  for (const Warp* x : run_.resident_warps()) {
    for (uint32_t m = x->runnable & x->live_mask(); m; m &= m - 1) {
      const uint64_t polled = x->last_load[__builtin_ctz(m)];
      if (!polled || polled >= kLocalWindow || auto_seen_.count(polled)) continue;
      // The report knows the address, not the access's size: a 4-byte word where aligned (an int
      // flag), else the aligned unit that fits (a bool or short flag).
      const uint32_t size = polled % 4 == 0 ? 4 : polled % 2 == 0 ? 2 : 1;
      uint64_t value = 0;
      if (polled < kSharedWindow) {
        const Allocation* a = sim_.memory().find(polled, size);
        if (!a) continue;
        std::memcpy(&value, reinterpret_cast<const void*>(polled), size);
      }
      auto_found(polled, size, /*lock=*/false, value);
    }
  }
}

void TraceRecorder::auto_found(uint64_t generic, uint32_t size, bool lock, uint64_t before) {
  if (!auto_seen_.insert(generic).second) return;
  if (!word_size(size) || generic % size != 0) return;
  if (generic >= kSharedWindow) {
    auto_found_shared(generic - kSharedWindow, size, lock);
    return;
  }
  for (const TraceRegion& r : tregions_)
    if (generic < r.end && generic + size > r.base) return;  // the program's region wins
  if (g_auto_regions.load() >= kMaxAutoRegions) return;
  const Allocation* a = sim_.memory().find(generic, size);
  if (!a || a->kind == AllocKind::ModuleConst) return;
  const uint64_t off = generic - a->base;
  Simulator::Region R;
  // A small __device__ variable is one region (all its locks or flags); so is a small allocation
  // whose word is a lock (an array of locks has an allocation of its own, while a flag is often one
  // word of a data buffer, which stays a region of its own).
  bool whole = (a->kind == AllocKind::ModuleGlobal || lock) && a->size <= kWholeVariableBytes && a->size % size == 0;
  for (const TraceRegion& r : tregions_) whole = whole && !(a->base < r.end && a->base + a->size > r.base);
  if (whole) {
    R.base = a->base;
    R.bytes = a->size;
    R.name = a->kind == AllocKind::ModuleGlobal ? variable_name(a->name) : a->name;
  } else {
    R.base = generic;
    R.bytes = size;
    R.name = fmt::format("{} + {}", a->kind == AllocKind::ModuleGlobal ? variable_name(a->name) : a->name, off);
  }
  shape(R.bytes, size, lock, &R.kind, &R.elem_bits, &R.dims);
  if (!sim_.add_region(R).empty()) return;
  uint32_t id = ~0u;
  for (const Simulator::Region& x : sim_.regions())
    if (x.base == R.base && x.bytes == R.bytes && x.name == R.name && x.kind == R.kind) id = x.id;
  if (id == ~0u) return;
  ++g_auto_regions;
  TraceRegion t;
  t.base = R.base;
  t.end = R.base + R.bytes;
  t.elem_bytes = lock ? 0 : size;
  t.id = id;
  t.bits = lock;
  tregions_.push_back(t);
  watch_host_regions();  // memory the host may write: its writes show from now on
  auto_snapshot(t, generic, size, before);
}

// The region's contents as the access that found the word saw them (the word: before; the rest:
// memory now), as snapshot RegionUpdates at this step (one per non-zero element or, for lock bits,
// per non-zero group of up to 8 bytes).
void TraceRecorder::auto_snapshot(const TraceRegion& r, uint64_t word, uint32_t size, uint64_t before) {
  const uint64_t bytes = r.end - r.base;
  std::vector<uint8_t> mem(bytes);
  std::memcpy(mem.data(), reinterpret_cast<const void*>(r.base), bytes);
  std::memcpy(mem.data() + (word - r.base), &before, size);
  emit_snapshot(r, mem.data(), run_.steps());
}

// A word of this launch's shared memory (offset off): the __shared__ variable holding it becomes
// a shared region of the kernel (from its next launch, or from this one when launch_begin found
// it), unless a shared region of the kernel already covers the word.
void TraceRecorder::auto_found_shared(uint64_t off, uint32_t size, bool lock) {
  if (g_auto_regions.load() >= kMaxAutoRegions) return;
  const int fn = run_.launch().function;
  if (fn < 0 || size_t(fn) >= run_.loaded_module().shared_symbols.size()) return;
  const ptx::Symbol* var = nullptr;
  for (uint32_t si : run_.loaded_module().shared_symbols[size_t(fn)]) {
    const ptx::Symbol& s = run_.module().symbols[si];
    if (s.size && !s.is_dynamic_shared && off >= s.offset && off < s.offset + s.size) var = &s;
  }
  if (!var) return;  // dynamic shared memory (extern __shared__): sized per launch, not named here
  const uint64_t bytes = std::min<uint64_t>(var->size, kWholeVariableBytes) / size * size;
  if (off + size > var->offset + bytes || (off - var->offset) % size != 0) return;
  for (const Simulator::SharedRegion& sr : sim_.shared_regions()) {
    if (!sr.kernel.empty() && sr.kernel != run_.kernel_name()) continue;
    uint64_t o = 0, n = 0;
    bool dyn = false;
    if (!sim_.find_shared_variable(run_.launch().module, fn, sr.variable, &o, &n, &dyn) || dyn) continue;
    n = std::min<uint64_t>(n, sr.bytes);
    if (off < o + n && off + size > o) return;  // the program's region (or one found before) wins
  }
  Simulator::SharedRegion R;
  R.kernel = run_.kernel_name();
  R.variable = var->name;
  R.bytes = bytes;
  R.name = variable_name(var->name);
  shape(bytes, size, lock, &R.kind, &R.elem_bits, &R.dims);
  if (sim_.add_shared_region(R, run_.launch().module, fn).empty()) ++g_auto_regions;
}

// Before the launch's Kernel chunk: the cas/exch instructions of the module whose address is one
// of this kernel's __shared__ variables, named in the operand ([lock]) or through a register that
// a mov or cvta set to its address (mov.u32 %r1, lock; atom.shared.cas.b32 %r2, [%r1], ...).
void TraceRecorder::auto_scan_shared() {
  const int fn = run_.launch().function;
  if (fn < 0 || size_t(fn) >= run_.loaded_module().shared_symbols.size() ||
      run_.loaded_module().shared_symbols[size_t(fn)].empty())
    return;
  // Once per kernel: what it finds stays registered for the process.
  static std::set<std::pair<const ptx::Module*, int>> scanned;
  if (!scanned.insert({&run_.module(), fn}).second) return;
  const std::vector<uint32_t>& mine = run_.loaded_module().shared_symbols[size_t(fn)];
  std::unordered_map<uint32_t, uint32_t> symbol_of;  // register -> the variable whose address it holds
  for (const ptx::Function& f : run_.module().functions) {
    symbol_of.clear();
    for (const ptx::Instr& I : f.code) {
      if ((I.op == Op::Mov || I.op == Op::Cvta) && I.ndst == 1 && I.dst[0].kind == Operand::Kind::Reg) {
        if (I.src[0].kind == Operand::Kind::Symbol && I.src[0].symbol != Operand::kNoSymbol)
          symbol_of[I.dst[0].reg] = I.src[0].symbol;
        else if (I.src[0].kind == Operand::Kind::Reg && symbol_of.count(I.src[0].reg))
          symbol_of[I.dst[0].reg] = symbol_of[I.src[0].reg];  // cvta.shared of such a register
        else
          symbol_of.erase(I.dst[0].reg);
        continue;
      }
      if (I.op != Op::Atom || (I.aop != ptx::AtomOp::Cas && I.aop != ptx::AtomOp::Exch)) {
        if (I.ndst >= 1 && I.dst[0].kind == Operand::Kind::Reg) symbol_of.erase(I.dst[0].reg);
        continue;
      }
      const Operand& a = I.src[0];
      if (a.kind != Operand::Kind::Addr) continue;
      uint32_t sym = a.symbol;
      if (sym == Operand::kNoSymbol && a.reg != Operand::kNoReg) {
        auto it = symbol_of.find(a.reg);
        if (it != symbol_of.end()) sym = it->second;
      }
      if (sym == Operand::kNoSymbol || std::find(mine.begin(), mine.end(), sym) == mine.end()) continue;
      const ptx::Symbol& s = run_.module().symbols[sym];
      const uint32_t size = ptx::type_size(I.type);
      if (!word_size(size) || s.size == 0 || s.is_dynamic_shared) continue;
      if (auto_seen_.insert(kSharedWindow + s.offset).second) auto_found_shared(s.offset, size, /*lock=*/true);
    }
  }
}

}  // namespace synclab::sim
