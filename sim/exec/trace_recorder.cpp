// Recording a trace of the simulator's run (SYNCLAB_TRACE, docs/trace-format.md): the file is
// opened at the first launch that asks for one and closed at exit; each launch writes a Kernel
// chunk and its events (warp steps, memory accesses, atomics, barriers, region updates, exits,
// reports), in the order the run tells its observer about them (run_observer.h). The regions
// registered through synclab_region go into Region chunks, and so do the lock words and flags the
// run is found to use (auto_regions.cpp). The host's writes to named regions in
// host-mapped or managed memory, which the run does not see, are found by comparing those regions
// with a copy at every warp step (HostAccess events).
//
// Where things are (the sections below, in this order):
//   Header helpers      program_path, program_args, host_accesses_recorded
//   Encodings           region_chunk, shared_region_chunk, instr_class, code_of, order_bits
//   The file            Simulator::trace_writer (opens the file at the first launch that asks for one and writes
//                       its header), close_trace
//   Named regions       add_region, regions, shared_name_matches, shared_regions
//   Launch start        TraceRecorder's constructor and destructor; launch_begin (the Kernel chunk, the
//                       launch's regions and shared regions, KernelBegin)
//   Host writes         load_host_word, watch_host_regions, emit_host_notes, host_access, device_wrote,
//                       any_changed, look_for_host_writes
//   Snapshots           snapshot, emit_snapshot: what a named region holds when the launch starts (or when the
//                       region is found mid-launch)
//   Steps and accesses  warp_id; step (WarpStep), access (MemAccess), atomic (Atomic, AtomicWide)
//   Region updates      shared_update, region_update: RegionUpdate events for writes to named regions
//   Other events        simple; memory_model, memory_visible, barrier_arrive, barrier_release, lanes_exited,
//                       report
//   Launch end          launch_end (KernelEnd)
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <synclab/trace_writer.h>

#include "sim/exec/trace_recorder.h"
#include <synclab/fnv1a.h>

namespace synclab::sim {

using trace::Event;
using trace::EventKind;
using trace::InstrClass;

namespace {

std::string program_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "?";
  buf[n] = '\0';
  return buf;
}

std::vector<std::string> program_args() {
  std::vector<std::string> out;
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(f, arg, '\0')) out.push_back(arg);
  return out;
}

// What the trace holds of the host's accesses to named regions of mapped and managed memory
// (header "host_accesses"): reads and writes through the host watch, or writes only, and why.
std::string host_accesses_recorded() {
  std::string why;
  if (host_watch::available(&why)) return "reads and writes";
  return "writes only (" + why + ")";
}

nlohmann::json region_chunk(const Simulator::Region& r) {
  return trace::region_json(r.id, r.name, r.kind, r.base, r.bytes, r.elem_bits, r.dims);
}

nlohmann::json shared_region_chunk(const Simulator::SharedRegion& r) {
  return trace::shared_region_json(r.id, r.name, r.kind, r.variable, r.kernel, r.bytes, r.elem_bits, r.dims);
}

InstrClass instr_class(ptx::Op op) {
  using ptx::Op;
  if (ptx::is_warp_synchronous(op)) return InstrClass::WarpSync;
  switch (op) {
    case Op::Ld:
    case Op::Ldu: return InstrClass::Load;
    case Op::St: return InstrClass::Store;
    case Op::Atom:
    case Op::Red: return InstrClass::Atomic;
    case Op::Bra:
    case Op::Brx: return InstrClass::Branch;
    case Op::Bar: return InstrClass::Barrier;
    case Op::Membar:
    case Op::Fence: return InstrClass::Fence;
    case Op::Call: return InstrClass::Call;
    case Op::Ret: return InstrClass::Return;
    case Op::Exit: return InstrClass::Exit;
    case Op::Nop:
    case Op::Trap:
    case Op::Brkpt:
    case Op::Nanosleep:
    case Op::Pmevent:
    case Op::Prefetch: return InstrClass::Other;
    default: return InstrClass::Alu;
  }
}

// A report's kind in a trace is its ReportKind's value: the two enums must list the kinds in one
// order, which these assertions hold to.
uint16_t code_of(ReportKind k) { return static_cast<uint16_t>(k); }
static_assert(uint16_t(ReportKind::Fault) == uint16_t(trace::ReportKindCode::Fault) &&
                  uint16_t(ReportKind::Trap) == uint16_t(trace::ReportKindCode::Trap) &&
                  uint16_t(ReportKind::Assert) == uint16_t(trace::ReportKindCode::Assert) &&
                  uint16_t(ReportKind::Deadlock) == uint16_t(trace::ReportKindCode::Deadlock) &&
                  uint16_t(ReportKind::Hang) == uint16_t(trace::ReportKindCode::Hang) &&
                  uint16_t(ReportKind::Budget) == uint16_t(trace::ReportKindCode::Budget) &&
                  uint16_t(ReportKind::Race) == uint16_t(trace::ReportKindCode::Race) &&
                  uint16_t(ReportKind::Sync) == uint16_t(trace::ReportKindCode::Sync) &&
                  uint16_t(ReportKind::Init) == uint16_t(trace::ReportKindCode::Init) &&
                  uint16_t(ReportKind::Info) == uint16_t(trace::ReportKindCode::Info),
              "ReportKind and trace::ReportKindCode list the report kinds in the same order");

// MemAccess/Atomic aux bits 8-12: the memory order and scope, so readers can tell an acquire or a
// release (synchronization) from a plain access (`synclab-trace interleaving`).
uint16_t order_bits(const ptx::Instr& I) {
  using ptx::Sem;
  trace::MemOrder o = trace::MemOrder::Plain;
  switch (I.sem) {
    case Sem::Volatile: o = trace::MemOrder::Volatile; break;
    case Sem::Relaxed: o = trace::MemOrder::Relaxed; break;
    case Sem::Acquire: o = trace::MemOrder::Acquire; break;
    case Sem::Release: o = trace::MemOrder::Release; break;
    case Sem::AcqRel: o = trace::MemOrder::AcqRel; break;
    case Sem::Sc: o = trace::MemOrder::Sc; break;
    default: return 0;
  }
  const uint16_t scope = I.scope == ptx::Scope::Cta                                       ? 1
                         : (I.scope == ptx::Scope::Gpu || I.scope == ptx::Scope::Cluster) ? 2
                         : I.scope == ptx::Scope::Sys                                     ? 3
                                                                                          : 0;
  return static_cast<uint16_t>((static_cast<uint16_t>(o) << trace::kAuxOrderShift) | (scope << trace::kAuxScopeShift));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The file (Simulator)
// ---------------------------------------------------------------------------------------------

trace::Writer* Simulator::trace_writer(const Config& cfg) {
  if (cfg.trace_path.empty()) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (trace_ && trace_path_ == cfg.trace_path) return trace_->recording() ? trace_.get() : nullptr;
  if (trace_failed_ && trace_path_ == cfg.trace_path) return nullptr;
  if (trace_) trace_->close();  // the control API switched files
  trace_path_ = cfg.trace_path;
  trace::WriterOptions opt;
  std::string err;
  if (!trace::parse_writer_options_from_env(&opt, &err)) {
    std::fprintf(stderr, "SyncLab: not recording a trace: %s\n", err.c_str());
    trace_failed_ = true;
    return nullptr;
  }
  const DeviceProfile& prof = profile();
  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::json checks = nlohmann::json::array();
  for (const CheckerInfo& c : checkers())
    if (cfg.check_enabled(c.name)) checks.push_back(c.name);
  nlohmann::json header = {
      {"program", program_path()},
      {"args", program_args()},
      // What synclab-viz needs to re-run the program under a schedule of its own (docs/viz.md,
      // "Steering the schedule"): the directory it ran in, the SYNCLAB_* variables it was given, the
      // trace path it was given (an argument to replace) and the size and FNV-1a hash of the binary,
      // so that a rebuilt program is not taken for the one that made the trace.
      {"rerun",
       [&] {
         nlohmann::json env = nlohmann::json::object();
         std::vector<std::string> names = Config::variables();
         for (const char* n : {"SYNCLAB_TRACE_LIMIT", "SYNCLAB_TRACE_KERNELS", "SYNCLAB_TRACE_BLOCKS",
                               "SYNCLAB_TRACE_RANGES", "SYNCLAB_TRACE_KINDS"})
           names.push_back(n);
         for (const std::string& n : names)
           if (const char* v = std::getenv(n.c_str()); v && *v) env[n] = v;
         char cwd[4096];
         const bool have_cwd = getcwd(cwd, sizeof cwd) != nullptr;
         uint64_t hash = kFnv1aBasis, bytes = 0;
         file_fnv1a("/proc/self/exe", &hash, &bytes);
         return nlohmann::json{{"cwd", have_cwd ? cwd : ""},
                               {"env", env},
                               {"trace", cfg.trace_path},
                               {"program_bytes", bytes},
                               {"program_fnv1a", fmt::format("{:016x}", hash)}};
       }()},
      {"backend", "sim"},
      {"created", date},
      {"device",
       {{"profile", prof.name},
        {"name", prof.marketing},
        {"sm_count", prof.sm_count},
        {"max_ctas_per_sm", prof.max_ctas_per_sm},
        {"max_threads_per_sm", prof.max_threads_per_sm},
        {"shared_per_sm", prof.shared_per_sm},
        {"compute_capability", fmt::format("{}.{}", prof.cc_major, prof.cc_minor)}}},
      {"model", model_name(cfg.model)},
      {"memory", memory_name(cfg.memory)},
      // What a replay of this trace needs after its choices: for a run that followed a schedule
      // file, the policy after that file's choices.
      {"scheduler", sched_name(cfg.replay && cfg.schedule ? cfg.replay_after.value_or(cfg.sched) : cfg.sched)},
      {"seed", cfg.seed},
      {"pct_depth", cfg.pct_depth},
      {"checks", checks},
      {"time_unit", "warp step"},
      {"host_accesses", host_accesses_recorded()},
  };
  auto w = std::make_unique<trace::Writer>();
  if (!w->open(cfg.trace_path, header, /*gpu=*/false, opt, &err)) {
    std::fprintf(stderr, "SyncLab: not recording a trace: %s\n", err.c_str());
    trace_failed_ = true;
    return nullptr;
  }
  // Both kinds in id order, so a reader meets them as they were registered.
  size_t gi = 0, si = 0;
  while (gi < regions_.size() || si < shared_regions_.size()) {
    if (si >= shared_regions_.size() || (gi < regions_.size() && regions_[gi].id < shared_regions_[si].id))
      w->region(region_chunk(regions_[gi++]));
    else
      w->shared_region(shared_region_chunk(shared_regions_[si++]));
  }
  trace_ = std::move(w);
  static bool registered = false;
  if (!registered) {
    registered = true;
    static Simulator* self = this;
    std::atexit([] { self->close_trace(); });
  }
  return trace_.get();
}

void Simulator::close_trace() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (trace_) {
    trace_->close();
    if (!config_.quiet)
      std::fprintf(stderr, "SyncLab: trace written to %s (%llu events%s)\n", trace_->path().c_str(),
                   static_cast<unsigned long long>(trace_->events_written()),
                   trace_->events_dropped()
                       ? fmt::format(", {} dropped after the size limit", trace_->events_dropped()).c_str()
                       : "");
    trace_.reset();
  }
}

std::string Simulator::add_region(Region r) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Region& o : regions_)
    if (o.base == r.base && o.bytes == r.bytes && o.name == r.name && o.kind == r.kind && o.dims == r.dims) return "";
  if (!memory_.find(r.base, std::max<uint64_t>(r.bytes, 1)))
    return fmt::format(
        "region '{}': [{:#x}, +{} bytes) is not inside one device allocation (cudaMalloc, a "
        "__device__ variable or mapped host memory)",
        r.name, r.base, r.bytes);
  if (next_region_id_ > trace::kRegionIdMask)
    return fmt::format("region '{}': at most {} regions (Region and shared) can be named", r.name,
                       trace::kRegionIdMask + 1);
  r.id = next_region_id_++;
  regions_.push_back(r);
  if (trace_) trace_->region(region_chunk(r));
  return "";
}

std::vector<Simulator::Region> Simulator::regions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return regions_;
}

bool Simulator::shared_name_matches(const std::string& symbol, const std::string& want) {
  if (want.empty()) return false;
  if (symbol == want) return true;
  // nvcc names a __shared__ variable declared in a function after the function (a local
  // static): _ZZ<function>E<length><name>.
  if (symbol.size() <= want.size() || symbol.compare(0, 3, "_ZZ") != 0) return false;
  const std::string tail = std::to_string(want.size()) + want;
  if (symbol.size() < tail.size() + 1 || symbol.compare(symbol.size() - tail.size(), tail.size(), tail) != 0)
    return false;
  const std::string d = demangle_name(symbol);
  return d.size() > want.size() + 2 && d.compare(d.size() - want.size() - 2, want.size() + 2, "::" + want) == 0;
}

std::vector<Simulator::SharedRegion> Simulator::shared_regions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return shared_regions_;
}

// ---------------------------------------------------------------------------------------------
// One launch (TraceRecorder)
// ---------------------------------------------------------------------------------------------

TraceRecorder::TraceRecorder(const RunView& run, Simulator& sim, trace::Writer& writer)
    : run_(run), sim_(sim), tw_(&writer) {}

TraceRecorder::~TraceRecorder() {
  if (host_watched_) host_watch::stop();
}

void TraceRecorder::launch_begin() {
  launch_index_ = sim_.next_launch_index();
  nlohmann::json k = {
      {"name", run_.kernel_name()},
      {"display", demangle_name(run_.kernel_name())},
      {"launch", launch_index_},
      {"grid", {run_.launch().grid.x, run_.launch().grid.y, run_.launch().grid.z}},
      {"block", {run_.launch().block.x, run_.launch().block.y, run_.launch().block.z}},
      {"threads_per_block", run_.shape().threads_per_block},
      {"warps_per_block", run_.shape().warps_per_block},
      {"dynamic_shared", run_.launch().dynamic_shared},
      {"static_shared", run_.shape().static_shared},
      {"cooperative", run_.launch().cooperative},
      {"module", run_.launch().module},
      {"resident_blocks_per_sm", run_.shape().blocks_per_sm},
  };
  if (!sim_.module_traced(run_.launch().module)) {
    // The first launch from a module carries its source files and line table.
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : run_.module().files) files.push_back(f.path);
    nlohmann::json funcs = nlohmann::json::array();
    for (const ptx::Function& fn : run_.module().functions) {
      nlohmann::json lines = nlohmann::json::array(), fids = nlohmann::json::array();
      for (const ptx::Instr& I : fn.code) {
        lines.push_back(I.user_line);
        fids.push_back(I.user_file);
      }
      funcs.push_back({{"name", fn.name}, {"display", demangle_name(fn.name)}, {"lines", lines}, {"files", fids}});
    }
    k["files"] = files;
    k["functions"] = funcs;
  }
  for (const Simulator::Region& r : sim_.regions()) {
    TraceRegion t;
    t.base = r.base;
    t.end = r.base + r.bytes;
    t.id = r.id;
    t.bits = r.kind == "lock-bits";
    const uint64_t n = r.dims.size() == 2 ? uint64_t(r.dims[0]) * r.dims[1] : (r.dims.empty() ? 1 : r.dims[0]);
    t.elem_bytes = t.bits ? 0 : std::max<uint64_t>(1, r.bytes / std::max<uint64_t>(n, 1));
    tregions_.push_back(t);
  }
  auto_polls_.assign(kAutoPollSlots, PollSlot{});
  auto_scan_shared();
  // The shared regions this kernel has: where each lies in a block's shared memory.
  nlohmann::json shared = nlohmann::json::array();
  for (const Simulator::SharedRegion& r : sim_.shared_regions()) {
    if (!r.kernel.empty() && r.kernel != run_.kernel_name()) continue;
    uint64_t off = 0, size = 0;
    bool dyn = false;
    if (!sim_.find_shared_variable(run_.launch().module, run_.launch().function, r.variable, &off, &size, &dyn))
      continue;
    if (dyn) {
      off = run_.shape().dynamic_shared_base;
      size = run_.launch().dynamic_shared;
    }
    const uint64_t bytes = std::min<uint64_t>(r.bytes, size);
    if (bytes == 0) continue;
    TraceShared t;
    t.off = off;
    t.end = off + bytes;
    t.id = r.id;
    t.bits = r.kind == "lock-bits";
    const uint64_t n = r.dims.size() == 2 ? uint64_t(r.dims[0]) * r.dims[1] : (r.dims.empty() ? 1 : r.dims[0]);
    t.elem_bytes = t.bits ? 0 : std::max<uint64_t>(1, r.bytes / std::max<uint64_t>(n, 1));
    tshared_.push_back(t);
    shared.push_back({{"id", r.id}, {"offset", off}, {"bytes", bytes}});
  }
  if (!shared.empty()) k["shared_regions"] = shared;
  tw_->kernel(k);
  Event e{};
  e.time = 0;
  e.kind = static_cast<uint8_t>(EventKind::KernelBegin);
  e.lane = trace::kAllLanes;
  e.a = launch_index_;
  e.b = run_.shape().blocks * run_.shape().warps_per_block;
  tw_->event(e);
  watch_host_regions();
  snapshot();
}

namespace {

// One element of memory the host may be writing at the same moment: an atomic load when aligned
// (as the device's own accesses to such memory are), else a copy.
uint64_t load_host_word(const uint8_t* p, uint32_t size) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  if (at % size == 0) {
    switch (size) {
      case 1: return __atomic_load_n(p, __ATOMIC_RELAXED);
      case 2: return __atomic_load_n(reinterpret_cast<const uint16_t*>(p), __ATOMIC_RELAXED);
      case 4: return __atomic_load_n(reinterpret_cast<const uint32_t*>(p), __ATOMIC_RELAXED);
      case 8: return __atomic_load_n(reinterpret_cast<const uint64_t*>(p), __ATOMIC_RELAXED);
      default: break;
    }
  }
  uint64_t v = 0;
  std::memcpy(&v, p, std::min<uint32_t>(size, 8));
  return v;
}

}  // namespace

// The named regions the host can write while this launch runs: those in mapped pinned memory
// (cudaHostAlloc, cudaMallocHost, cudaHostRegister) or managed memory. A region inside one watched
// already is not watched twice (its writes would be recorded twice).
void TraceRecorder::watch_host_regions() {
  for (const TraceRegion& r : tregions_) {
    const uint64_t bytes = r.end - r.base;
    if (bytes == 0) continue;
    const Allocation* a = sim_.memory().find(r.base, bytes);
    if (!a) continue;
    trace::MemSpace space;
    if (a->kind == AllocKind::HostMapped || a->kind == AllocKind::HostPinned)
      space = trace::MemSpace::HostMapped;
    else if (a->kind == AllocKind::Managed)
      space = trace::MemSpace::Global;
    else
      continue;
    bool inside = false;
    for (const HostRegion& h : host_regions_) inside |= r.base >= h.base && r.end <= h.base + h.bytes;
    if (inside) continue;
    // The element size (lock-bits: a 32-bit word), or the largest of 8, 4, 2, 1 bytes that
    // divides it and the region.
    const uint64_t eb = r.bits ? 4 : std::max<uint64_t>(r.elem_bytes, 1);
    uint32_t grain = 8;
    while (grain > 1 && (eb % grain != 0 || bytes % grain != 0)) grain /= 2;
    HostRegion h{r.base, bytes, grain, space, r.base % grain == 0, std::vector<uint64_t>(bytes / grain)};
    // The host watch covers memory the simulator allocated (its own pages); cudaHostRegister'ed
    // memory may share its pages with anything the program has, so it keeps change detection.
    h.watched = a->owned;
    const auto* mem = reinterpret_cast<const uint8_t*>(r.base);
    for (uint64_t i = 0; i < h.seen.size(); ++i) h.seen[i] = load_host_word(mem + i * grain, grain);
    host_regions_.push_back(std::move(h));
  }
  std::vector<host_watch::Range> ranges;
  for (const HostRegion& h : host_regions_)
    if (h.watched) ranges.push_back({h.base, h.bytes, h.grain});
  const bool was_watching = host_watched_;
  host_watched_ = !ranges.empty() && host_watch::start(ranges);
  if (host_watched_) return;
  if (was_watching) {
    // A region found mid-launch that the watch cannot take as well (it holds 64): the notes so far
    // become events now, and every region goes back to change detection from what memory holds.
    host_watched_ = true;
    look_for_host_writes();
    host_watched_ = false;
    for (HostRegion& h : host_regions_)
      for (uint64_t i = 0; i < h.seen.size(); ++i)
        h.seen[i] = load_host_word(reinterpret_cast<const uint8_t*>(h.base) + i * h.grain, h.grain);
  }
  for (HostRegion& h : host_regions_) h.watched = false;
}

// The host watch's notes, up to the launch's note `upto`, as HostAccess events.
void TraceRecorder::emit_host_notes(uint64_t upto) {
  host_notes_.clear();
  host_notes_lost_ += host_watch::drain(host_notes_, upto);
  for (const host_watch::Access& n : host_notes_)
    for (const HostRegion& h : host_regions_)
      if (h.watched && n.addr >= h.base && n.addr < h.base + h.bytes) {
        host_access(n.addr, n.grain, h.space, n.write, n.value);
        break;
      }
}

// One HostAccess event at this step's time (the access happened after the previous step began).
void TraceRecorder::host_access(uint64_t addr, uint32_t grain, trace::MemSpace space, bool write, uint64_t value) {
  const uint32_t log2 = grain >= 8 ? 3 : grain >= 4 ? 2 : grain >= 2 ? 1 : 0;
  simple(0, EventKind::HostAccess, trace::kAllLanes,
         static_cast<uint16_t>(static_cast<uint16_t>(space) | (write ? trace::kAuxWrite : 0) |
                               (log2 << trace::kAuxSizeShift)),
         addr, value);
}

// A device store or atomic that changed memory: remembered until the next look, so that the
// change is not taken for the host's.
void TraceRecorder::device_wrote(uint64_t generic, uint32_t size) {
  for (const HostRegion& h : host_regions_)
    if (generic < h.base + h.bytes && generic + size > h.base) {
      device_wrote_.emplace_back(generic, generic + size);
      return;
    }
}

namespace {

// Whether any of the n aligned T-sized words at p differs from seen (the quick check of a look).
template <class T>
bool any_changed(const void* p, const uint64_t* seen, size_t n) {
  const T* w = static_cast<const T*>(p);
  for (size_t i = 0; i < n; ++i)
    if (uint64_t(__atomic_load_n(w + i, __ATOMIC_RELAXED)) != seen[i]) return true;
  return false;
}

}  // namespace

// Compares the watched regions with what the last look saw. An element that changed, and that no
// device write since the last look covers, was written by the host: a HostAccess with its new
// value, at this step's time (the write happened since the previous step). Two host writes of one
// element between two looks show as one (the last value); a host write to an element that the
// device also wrote since the last look is taken for the device's.
void TraceRecorder::look_for_host_writes() {
  if (host_watched_) emit_host_notes(UINT64_MAX);
  for (HostRegion& h : host_regions_) {
    if (h.watched) continue;
    const auto* mem = reinterpret_cast<const uint8_t*>(h.base);
    const size_t n = h.seen.size();
    if (h.aligned) {
      const bool changed = h.grain == 4   ? any_changed<uint32_t>(mem, h.seen.data(), n)
                           : h.grain == 8 ? any_changed<uint64_t>(mem, h.seen.data(), n)
                           : h.grain == 2 ? any_changed<uint16_t>(mem, h.seen.data(), n)
                                          : any_changed<uint8_t>(mem, h.seen.data(), n);
      if (!changed) continue;
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t off = i * h.grain;
      const uint64_t now = load_host_word(mem + off, h.grain);
      if (now == h.seen[i]) continue;
      h.seen[i] = now;
      const uint64_t at = h.base + off;
      bool device = false;
      for (const auto& d : device_wrote_) device |= at < d.second && at + h.grain > d.first;
      if (device) continue;
      host_access(at, h.grain, h.space, /*write=*/true, now);
    }
  }
  device_wrote_.clear();
}

// The named regions' contents as this launch finds them: whatever put them there (cudaMemcpy,
// cudaMemset, a host store into mapped memory, an earlier launch, data copied before the region
// was named) is not a device write the launch records, so without this the viewer would start
// every launch from zeros. One RegionUpdate with kRegionSnapshot per non-zero element (lock-bits:
// per non-zero group of up to 8 bytes), time 0, warp 0, lane kAllLanes. A region whose memory was
// freed since it was named is skipped.
void TraceRecorder::snapshot() {
  for (const TraceRegion& r : tregions_) {
    const uint64_t bytes = r.end - r.base;
    if (bytes == 0 || !sim_.memory().find(r.base, bytes)) continue;
    emit_snapshot(r, reinterpret_cast<const uint8_t*>(r.base), 0);
  }
}

// One RegionUpdate with kRegionSnapshot per non-zero element of mem (lock-bits: per non-zero
// group of up to 8 bytes), warp 0, lane kAllLanes: snapshot() at a launch's start, auto_snapshot()
// when a region is found mid-launch.
void TraceRecorder::emit_snapshot(const TraceRegion& r, const uint8_t* mem, uint64_t time) {
  const uint64_t bytes = r.end - r.base;
  auto emit = [&](uint16_t aux, uint64_t a, uint64_t b) {
    Event e{};
    e.time = time;
    e.warp = 0;
    e.kind = static_cast<uint8_t>(EventKind::RegionUpdate);
    e.lane = trace::kAllLanes;
    e.aux = static_cast<uint16_t>((r.id & trace::kRegionIdMask) | trace::kRegionSnapshot | aux);
    e.a = a;
    e.b = b;
    tw_->event(e);
  };
  if (r.bits) {
    for (uint64_t off = 0; off < bytes; off += 8) {
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(8, bytes - off));
      uint64_t v = 0;
      std::memcpy(&v, mem + off, n);
      if (v != 0) emit(static_cast<uint16_t>(n << trace::kRegionBytesShift), off * 8, v);
    }
  } else {
    const uint64_t eb = std::max<uint64_t>(r.elem_bytes, 1);
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(eb, 8));
    for (uint64_t i = 0; i < bytes / eb; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, mem + i * eb, n);
      if (v != 0) emit(0, i, v);
    }
  }
}

uint32_t TraceRecorder::warp_id(const Warp& w) const {
  return static_cast<uint32_t>(w.cta->linear * run_.shape().warps_per_block + w.index);
}

void TraceRecorder::step(const Warp& w, const Group& g) {
  if (!host_regions_.empty()) look_for_host_writes();
  const ptx::Function& fn = run_.module().functions[g.func];
  if (g.pc >= fn.code.size()) return;  // falling off the end (a ret): no instruction to name
  const ptx::Instr& I = fn.code[g.pc];
  Event e;
  e.time = run_.steps();
  e.warp = warp_id(w);
  e.kind = static_cast<uint8_t>(EventKind::WarpStep);
  e.lane = trace::kAllLanes;
  e.aux = static_cast<uint16_t>(instr_class(I.op));
  e.a = uint64_t(g.mask) | (uint64_t(g.pc) << 32);
  e.b = uint64_t(I.user_line) | (uint64_t(g.func & 0xffff) << 32) | (uint64_t(I.user_file) << 48);
  tw_->event(e);
}

void TraceRecorder::access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t value,
                           const ptx::Instr& I) {
  if (host_watched_) host_notes_before_access();
  Event e;
  e.time = run_.steps();
  e.warp = warp_id(w);
  e.kind = static_cast<uint8_t>(EventKind::MemAccess);
  e.lane = static_cast<uint8_t>(lane);
  trace::MemSpace sp = trace::MemSpace::Global;
  if (generic >= kSharedWindow)
    sp = trace::MemSpace::Shared;
  else if (w.cache_kind == AllocKind::HostMapped)
    sp = trace::MemSpace::HostMapped;
  else if (w.cache_kind == AllocKind::ModuleConst)
    sp = trace::MemSpace::Const;
  const uint32_t log2 = size >= 16 ? 4 : size >= 8 ? 3 : size >= 4 ? 2 : size >= 2 ? 1 : 0;
  e.aux = static_cast<uint16_t>(static_cast<uint16_t>(sp) | (write ? trace::kAuxWrite : 0) |
                                (log2 << trace::kAuxSizeShift));
  e.aux |= order_bits(I);
  e.a = sp == trace::MemSpace::Shared ? generic - kSharedWindow : generic;
  e.b = size >= 8 ? value : value & ((1ull << (size * 8)) - 1);
  tw_->event(e);
  if (sp != trace::MemSpace::Const) {
    if (write)
      auto_wrote(w, lane);
    else
      auto_load(w, lane, generic, size, e.b, I);
  }
  if (write && !host_regions_.empty() && sp != trace::MemSpace::Shared) device_wrote(generic, size);
  if (write && !tregions_.empty() && sp != trace::MemSpace::Shared) region_update(w, lane, generic, size, e.b);
  if (write && !tshared_.empty() && sp == trace::MemSpace::Shared) shared_update(w, lane, e.a, size, e.b);
}

void TraceRecorder::atomic(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t old, uint64_t nw,
                           const ptx::Instr& I) {
  if (host_watched_) host_notes_before_access();
  Event e;
  e.time = run_.steps();
  e.warp = warp_id(w);
  e.kind = static_cast<uint8_t>(EventKind::Atomic);
  e.lane = static_cast<uint8_t>(lane);
  trace::MemSpace sp = generic >= kSharedWindow                ? trace::MemSpace::Shared
                       : w.cache_kind == AllocKind::HostMapped ? trace::MemSpace::HostMapped
                                                               : trace::MemSpace::Global;
  const uint32_t log2 = size >= 8 ? 3 : size >= 4 ? 2 : 1;
  e.aux = static_cast<uint16_t>(static_cast<uint16_t>(sp) | trace::kAuxWrite | (log2 << trace::kAuxSizeShift) |
                                (size == 8 ? trace::kAux64 : 0) | order_bits(I));
  e.a = sp == trace::MemSpace::Shared ? generic - kSharedWindow : generic;
  if (size == 8) {
    e.b = 0;
    tw_->event(e);
    Event w2 = e;
    w2.kind = static_cast<uint8_t>(EventKind::AtomicWide);
    w2.a = old;
    w2.b = nw;
    tw_->event(w2);
  } else {
    const uint64_t m = size >= 4 ? 0xffffffffull : (1ull << (size * 8)) - 1;
    e.b = (old & m) | ((nw & m) << 32);
    tw_->event(e);
  }
  auto_atomic(w, lane, generic, size, old, nw, I);
  if (!host_regions_.empty() && sp != trace::MemSpace::Shared && old != nw) device_wrote(generic, size);
  if (!tregions_.empty() && sp != trace::MemSpace::Shared && (old != nw)) region_update(w, lane, generic, size, nw);
  if (!tshared_.empty() && sp == trace::MemSpace::Shared && (old != nw))
    shared_update(w, lane, generic - kSharedWindow, size, nw);
}

// A write to a block's shared memory at offset off: a RegionUpdate per shared region it falls in
// (the block is the writer warp's). A write wider than an element (a vector store of a whole
// row) updates each element it covers.
void TraceRecorder::shared_update(const Warp& w, int lane, uint64_t off, uint32_t size, uint64_t value) {
  for (const TraceShared& r : tshared_) {
    if (off + size <= r.off || off >= r.end) continue;
    Event e;
    e.time = run_.steps();
    e.warp = warp_id(w);
    e.kind = static_cast<uint8_t>(EventKind::RegionUpdate);
    e.lane = static_cast<uint8_t>(lane);
    if (r.bits) {
      if (off < r.off) continue;
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(std::min<uint32_t>(size, 8), r.end - off));
      e.aux = static_cast<uint16_t>((r.id & 0xff) | (n << 8));
      e.a = (off - r.off) * 8;
      e.b = value;
      tw_->event(e);
      continue;
    }
    // elements of the write inside the region (values beyond 8 bytes are not in the access)
    // (a write that starts inside an element names the next whole one)
    const uint64_t from = std::max(off, r.off);
    const uint64_t first = r.off + (from - r.off + r.elem_bytes - 1) / r.elem_bytes * r.elem_bytes;
    for (uint64_t p = first; p < std::min<uint64_t>(off + std::min<uint32_t>(size, 8), r.end); p += r.elem_bytes) {
      const uint64_t shift = (p - off) * 8;
      uint64_t v = shift >= 64 ? 0 : value >> shift;
      if (r.elem_bytes < 8) v &= (1ull << (r.elem_bytes * 8)) - 1;
      e.aux = static_cast<uint16_t>(r.id & 0xff);
      e.a = (p - r.off) / r.elem_bytes;
      e.b = v;
      tw_->event(e);
    }
  }
}

void TraceRecorder::region_update(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t value) {
  for (const TraceRegion& r : tregions_) {
    if (generic < r.base || generic >= r.end) continue;
    const uint64_t off = generic - r.base;
    Event e;
    e.time = run_.steps();
    e.warp = warp_id(w);
    e.kind = static_cast<uint8_t>(EventKind::RegionUpdate);
    e.lane = static_cast<uint8_t>(lane);
    // lock-bits: a = first bit of the written bytes, aux bits 8..11 = bytes written;
    // other kinds: a = element index.
    e.aux = static_cast<uint16_t>((r.id & 0xff) | (r.bits ? (std::min<uint32_t>(size, 8) << 8) : 0));
    e.a = r.bits ? off * 8 : off / r.elem_bytes;
    e.b = value;
    tw_->event(e);
  }
}

void TraceRecorder::simple(uint32_t warp, EventKind kind, uint8_t lane, uint16_t aux, uint64_t a, uint64_t b) {
  Event e;
  e.time = run_.steps();
  e.warp = warp;
  e.kind = static_cast<uint8_t>(kind);
  e.lane = lane;
  e.aux = aux;
  e.a = a;
  e.b = b;
  tw_->event(e);
}

void TraceRecorder::memory_model(const Warp& w, int lane, trace::MemoryModelKind kind, uint64_t a, uint64_t b,
                                 uint32_t size) {
  const uint8_t l = lane < 0 ? trace::kAllLanes : static_cast<uint8_t>(lane);
  if (kind == trace::MemoryModelKind::LateLoad) {
    simple(warp_id(w), EventKind::MemoryModel, l, static_cast<uint16_t>(kind), a, b);
    return;
  }
  // Addresses as MemAccess gives them (shared memory: the offset); the space and the size in aux.
  const bool shared = a >= kSharedWindow;
  const trace::MemSpace space = shared                                  ? trace::MemSpace::Shared
                                : w.cache_kind == AllocKind::HostMapped ? trace::MemSpace::HostMapped
                                                                        : trace::MemSpace::Global;
  const uint16_t log2 = size >= 8 ? 3 : size >= 4 ? 2 : size >= 2 ? 1 : 0;
  const uint16_t aux = static_cast<uint16_t>(static_cast<uint16_t>(space) << trace::kMemoryModelSpaceShift |
                                             log2 << trace::kMemoryModelSizeShift);
  const uint64_t addr = shared ? a - kSharedWindow : a;
  simple(warp_id(w), EventKind::MemoryModel, l, static_cast<uint16_t>(aux | static_cast<uint16_t>(kind)), addr, b);
  // A Visible event later names this write (an early store's RegionUpdate gave the stored value;
  // readers take b, the value memory kept).
  if (kind == trace::MemoryModelKind::Buffered) buffered_[location_key(w, a)] = {warp_id(w), l, aux, addr, b};
}

void TraceRecorder::memory_visible(uint64_t key) {
  auto it = buffered_.find(key);
  if (it == buffered_.end()) return;
  const BufferedWrite& bw = it->second;
  simple(bw.warp, EventKind::MemoryModel, bw.lane,
         static_cast<uint16_t>(bw.aux | static_cast<uint16_t>(trace::MemoryModelKind::Visible)), bw.a, bw.value);
  buffered_.erase(it);
}

void TraceRecorder::barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes, const BarrierArrival&) {
  simple(warp_id(w), EventKind::BarrierArrive, trace::kAllLanes, static_cast<uint16_t>(id), lanes, w.cta->linear);
}

void TraceRecorder::barrier_release(const Cta& c, uint32_t id, uint32_t arrived, const std::vector<uint32_t>&) {
  simple(static_cast<uint32_t>(c.linear * run_.shape().warps_per_block), EventKind::BarrierRelease, trace::kAllLanes,
         static_cast<uint16_t>(id), arrived, c.linear);
}

void TraceRecorder::lanes_exited(const Warp& w, uint32_t lanes) {
  simple(warp_id(w), EventKind::LaneExit, trace::kAllLanes, 0, lanes, 0);
}

void TraceRecorder::report(const Report& r) {
  auto_report(r);
  nlohmann::json parties = nlohmann::json::array();
  for (const Report::Party& p : r.parties)
    parties.push_back({{"block", p.block},
                       {"warp", p.warp},
                       {"lane", p.lane},
                       {"file", p.where.file},
                       {"line", p.where.line},
                       {"ptx_line", p.where.ptx_line},
                       {"access", p.access}});
  if (r.parties.empty() && r.block >= 0 && r.thread >= 0)
    parties.push_back({{"block", r.block},
                       {"warp", r.thread / 32},
                       {"lane", r.thread % 32},
                       {"file", r.where.file},
                       {"line", r.where.line},
                       {"ptx_line", r.where.ptx_line},
                       {"access", ""}});
  nlohmann::json j = {
      {"kind", report_kind_name(r.kind)},
      {"severity", r.severity == Severity::Error     ? "error"
                   : r.severity == Severity::Warning ? "warning"
                                                     : "info"},
      {"title", r.title},
      {"text", r.render()},
      {"launch", launch_index_},
      {"kernel", r.kernel},
      {"block", r.block},
      {"thread", r.thread},
      {"file", r.where.file},
      {"line", r.where.line},
      {"ptx_line", r.where.ptx_line},
      {"seed", r.seed},
      {"replay", r.replay},
      {"parties", parties},
  };
  const uint32_t id = tw_->report(j);
  Event e;
  e.time = run_.steps();
  e.warp = r.block >= 0
               ? static_cast<uint32_t>(r.block * run_.shape().warps_per_block + (r.thread >= 0 ? r.thread / 32 : 0))
               : 0;
  e.kind = static_cast<uint8_t>(EventKind::Report);
  e.lane = r.thread >= 0 ? static_cast<uint8_t>(r.thread % 32) : trace::kAllLanes;
  e.aux = code_of(r.kind);
  e.a = id;
  e.b = r.where.line;
  tw_->event(e);
}

void TraceRecorder::launch_end(LaunchStatus status) {
  if (!host_regions_.empty()) look_for_host_writes();  // the host's accesses since the last step
  if (host_watched_) {
    host_watch::stop();
    host_watched_ = false;
    if (host_notes_lost_)
      std::fprintf(stderr,
                   "SyncLab: the trace misses %llu of the host's accesses to named regions (more than the "
                   "host watch holds between two warp steps)\n",
                   static_cast<unsigned long long>(host_notes_lost_));
  }
  Event e{};
  e.time = run_.steps();
  e.kind = static_cast<uint8_t>(EventKind::KernelEnd);
  e.lane = trace::kAllLanes;
  e.a = launch_index_;
  trace::KernelEndStatus end = trace::KernelEndStatus::Fault;
  switch (status) {
    case LaunchStatus::Success: end = trace::KernelEndStatus::Ok; break;
    case LaunchStatus::Deadlock: end = trace::KernelEndStatus::Deadlock; break;
    case LaunchStatus::Hang: end = trace::KernelEndStatus::Hang; break;
    case LaunchStatus::BudgetExhausted: end = trace::KernelEndStatus::Budget; break;
    default: break;
  }
  e.b = static_cast<uint64_t>(end);
  tw_->event(e);
}

}  // namespace synclab::sim
