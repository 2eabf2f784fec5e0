// Writing trace files: chunks, the event buffer, filters, the size limit, the env options.
#include <synclab/regions.h>
#include <synclab/trace_writer.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace synclab::trace {

static_assert(sizeof(Preamble) == 16 && sizeof(ChunkHeader) == 16, "fixed header sizes");

namespace {

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.push_back(trim(s.substr(start, p == std::string::npos ? std::string::npos : p - start)));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

// Decimal or 0x-hex unsigned integer, the whole string.
bool parse_u64(const std::string& s, uint64_t* out) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

std::string human_bytes(uint64_t b) {
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= (1ull << 10) && b % (1ull << 10) == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} bytes", b);
}

struct KindName {
  const char* name;
  uint32_t bits;
};
constexpr uint32_t bit(EventKind k) { return 1u << static_cast<unsigned>(k); }
const KindName kKindNames[] = {
    {"step", bit(EventKind::WarpStep)},
    {"mem", bit(EventKind::MemAccess)},
    {"atomic", bit(EventKind::Atomic) | bit(EventKind::AtomicWide)},
    {"barrier", bit(EventKind::BarrierArrive) | bit(EventKind::BarrierRelease)},
    {"region", bit(EventKind::RegionUpdate)},
    {"kernel", bit(EventKind::KernelBegin) | bit(EventKind::KernelEnd)},
    {"report", bit(EventKind::Report)},
    {"exit", bit(EventKind::LaneExit)},
    {"mark", bit(EventKind::Mark)},
    {"placement", bit(EventKind::BlockPlacement)},
    {"memory-model", bit(EventKind::MemoryModel)},
    {"host", bit(EventKind::HostAccess)},
};

}  // namespace

// ---- options -----------------------------------------------------------------------------------

uint32_t kind_bits(const std::string& name) {
  if (name == "all") return ~0u;
  for (const KindName& k : kKindNames)
    if (name == k.name) return k.bits;
  return 0;
}

const char* event_kind_name(uint8_t kind) {
  switch (static_cast<EventKind>(kind)) {
    case EventKind::WarpStep: return "step";
    case EventKind::MemAccess: return "mem";
    case EventKind::Atomic: return "atomic";
    case EventKind::AtomicWide: return "atomic-wide";
    case EventKind::BarrierArrive: return "barrier-arrive";
    case EventKind::BarrierRelease: return "barrier-release";
    case EventKind::RegionUpdate: return "region";
    case EventKind::KernelBegin: return "kernel-begin";
    case EventKind::KernelEnd: return "kernel-end";
    case EventKind::Report: return "report";
    case EventKind::LaneExit: return "exit";
    case EventKind::Mark: return "mark";
    case EventKind::BlockPlacement: return "placement";
    case EventKind::MemoryModel: return "memory-model";
    case EventKind::HostAccess: return "host";
  }
  return "unknown";
}

bool parse_size(const std::string& text, uint64_t* bytes) {
  std::string s = trim(text);
  if (s.empty()) return false;
  // Optional unit: K, M, G (powers of 1024), optionally followed by B or iB; or a bare B.
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0) return false;
  std::string unit = s.substr(digits);
  for (char& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  unsigned shift = 0;
  if (unit.empty() || unit == "B")
    shift = 0;
  else if (unit == "K" || unit == "KB" || unit == "KIB")
    shift = 10;
  else if (unit == "M" || unit == "MB" || unit == "MIB")
    shift = 20;
  else if (unit == "G" || unit == "GB" || unit == "GIB")
    shift = 30;
  else if (unit == "T" || unit == "TB" || unit == "TIB")
    shift = 40;
  else
    return false;
  uint64_t v = 0;
  if (!parse_u64(s.substr(0, digits), &v) || v == 0) return false;
  if (shift && v > (~0ull >> shift)) return false;
  *bytes = v << shift;
  return true;
}

bool parse_writer_option(const std::string& name, const std::string& value, WriterOptions* opt, std::string* error) {
  auto bad = [&](const std::string& why) {
    if (error) *error = fmt::format("{}=\"{}\": {}", name, value, why);
    return false;
  };
  const std::string v = trim(value);
  if (name == "SYNCLAB_TRACE_LIMIT") {
    uint64_t b = 0;
    if (!parse_size(v, &b)) return bad("expected a size in bytes, optionally with K, M or G (e.g. 512M, 4G)");
    opt->size_limit = b;
    return true;
  }
  if (name == "SYNCLAB_TRACE_KERNELS") {
    std::vector<std::string> names;
    for (const std::string& k : split(v, ','))
      if (!k.empty()) names.push_back(k);
    if (names.empty()) return bad("expected kernel names separated by commas");
    opt->kernels = names;
    return true;
  }
  if (name == "SYNCLAB_TRACE_BLOCKS") {
    // "first-last" or "n"
    uint64_t first = 0, last = 0;
    size_t dash = v.find('-');
    bool ok = dash == std::string::npos
                  ? parse_u64(v, &first) && (last = first, true)
                  : parse_u64(trim(v.substr(0, dash)), &first) && parse_u64(trim(v.substr(dash + 1)), &last);
    if (!ok || first > last || last > uint64_t(INT64_MAX))
      return bad("expected a block range first-last (e.g. 0-3) or one block number");
    opt->block_first = int64_t(first);
    opt->block_last = int64_t(last);
    return true;
  }
  if (name == "SYNCLAB_TRACE_RANGES") {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (const std::string& r : split(v, ',')) {
      if (r.empty()) continue;
      size_t dash = r.find('-');
      uint64_t lo = 0, hi = 0;
      if (dash == std::string::npos || !parse_u64(trim(r.substr(0, dash)), &lo) ||
          !parse_u64(trim(r.substr(dash + 1)), &hi) || lo >= hi)
        return bad(fmt::format("range \"{}\" is not lo-hi with lo < hi (e.g. 0x7f0000-0x7f0100)", r));
      ranges.emplace_back(lo, hi);
    }
    if (ranges.empty()) return bad("expected address ranges lo-hi separated by commas");
    opt->address_ranges = ranges;
    return true;
  }
  if (name == "SYNCLAB_TRACE_KINDS") {
    uint32_t bits = 0;
    for (const std::string& k : split(v, ',')) {
      if (k.empty()) continue;
      uint32_t b = kind_bits(k);
      if (!b)
        return bad(
            fmt::format("unknown event kind \"{}\" (known: all, step, mem, atomic, barrier, region, kernel, "
                        "report, exit, mark, placement, memory-model, host)",
                        k));
      bits |= b;
    }
    if (!bits) return bad("expected event kinds separated by commas");
    opt->kinds = bits;
    return true;
  }
  if (error) *error = fmt::format("{}: not a trace option", name);
  return false;
}

bool parse_writer_options_from_env(WriterOptions* opt, std::string* error) {
  static const char* const kVars[] = {"SYNCLAB_TRACE_LIMIT", "SYNCLAB_TRACE_KERNELS", "SYNCLAB_TRACE_BLOCKS",
                                      "SYNCLAB_TRACE_RANGES", "SYNCLAB_TRACE_KINDS"};
  WriterOptions o = *opt;
  for (const char* var : kVars) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    if (!parse_writer_option(var, v, &o, error)) return false;
  }
  *opt = o;
  return true;
}

// ---- region JSON -------------------------------------------------------------------------------

nlohmann::json region_json(uint32_t id, const std::string& name, const std::string& kind, uint64_t address,
                           uint64_t bytes, unsigned elem_bits, const std::vector<unsigned>& dims) {
  return nlohmann::json{{"id", id},
                        {"name", name},
                        {"kind", kind},
                        {"address", address},
                        {"bytes", bytes},
                        {"elem_bits", elem_bits},
                        {"elem_bytes", elem_bits / 8},
                        {"dims", dims}};
}

nlohmann::json region_json(uint32_t id, const synclab::RegionInfo& r) {
  std::vector<unsigned> dims(r.dims, r.dims + std::min(r.ndims, 2u));
  return region_json(id, r.name, r.kind, reinterpret_cast<uintptr_t>(r.ptr), r.bytes, r.elem_bits, dims);
}

nlohmann::json shared_region_json(uint32_t id, const std::string& name, const std::string& kind,
                                  const std::string& variable, const std::string& kernel, uint64_t bytes,
                                  unsigned elem_bits, const std::vector<unsigned>& dims) {
  return nlohmann::json{{"id", id},          {"name", name},           {"kind", kind},
                        {"space", "shared"}, {"variable", variable},   {"kernel", kernel},
                        {"bytes", bytes},    {"elem_bits", elem_bits}, {"elem_bytes", elem_bits / 8},
                        {"dims", dims}};
}

// ---- Writer ------------------------------------------------------------------------------------

Writer::~Writer() {
  // A destructor cannot report a failure: a writer that wants to know calls close() itself.
  try {
    close();
  } catch (...) {
  }
}

bool Writer::open(const std::string& path, const nlohmann::json& header, bool gpu, const WriterOptions& opt,
                  std::string* error) {
  close();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    if (error) *error = fmt::format("cannot create trace file {}: {}", path, std::strerror(errno));
    return false;
  }
  std::setvbuf(f, nullptr, _IOFBF, 1 << 16);
  file_ = f;
  path_ = path;
  opt_ = opt;
  recording_ = true;
  filter_any_ = opt.block_first >= 0 || opt.block_last >= 0 || !opt.address_ranges.empty();
  launch_recorded_ = true;
  warps_per_block_ = 0;
  last_atomic_kept_ = true;
  pending_.clear();
  pending_.reserve(kChunkEvents);
  offset_ = 0;
  written_ = dropped_ = filtered_ = 0;
  next_report_id_ = next_region_id_ = 0;
  stopped_.clear();
  start_seconds_ = now_seconds();

  Preamble p{};
  std::memcpy(p.magic, kMagic, sizeof p.magic);
  p.version = kVersion;
  p.flags = gpu ? 1u : 0u;
  bool ok = std::fwrite(&p, sizeof p, 1, f) == 1;
  if (ok) offset_ = sizeof p;

  nlohmann::json h = header.is_object() ? header : nlohmann::json::object();
  if (!h.contains("backend")) h["backend"] = gpu ? "gpu" : "sim";
  if (!h.contains("recording")) {
    nlohmann::json rec = {{"size_limit", opt.size_limit}};
    if (!opt.kernels.empty()) rec["kernels"] = opt.kernels;
    if (opt.block_first >= 0 || opt.block_last >= 0) rec["blocks"] = {opt.block_first, opt.block_last};
    if (!opt.address_ranges.empty()) {
      nlohmann::json rs = nlohmann::json::array();
      for (const auto& r : opt.address_ranges) rs.push_back({r.first, r.second});
      rec["ranges"] = rs;
    }
    if (opt.kinds != ~0u) {
      nlohmann::json ks = nlohmann::json::array();
      for (const KindName& k : kKindNames)
        if ((opt.kinds & k.bits) == k.bits) ks.push_back(k.name);
      rec["kinds"] = ks;
    }
    h["recording"] = rec;
  }
  if (ok) {
    write_json_chunk(ChunkKind::Header, h);
    ok = file_ != nullptr && stopped_.empty();
  }
  if (!ok) {
    if (error) *error = fmt::format("cannot write trace file {}: {}", path, std::strerror(errno ? errno : EIO));
    if (file_) std::fclose(file_);
    file_ = nullptr;
    recording_ = false;
    return false;
  }
  return true;
}

bool Writer::write_chunk(ChunkKind kind, const void* data, uint64_t bytes) {
  if (!file_) return false;
  ChunkHeader h{};
  h.kind = static_cast<uint32_t>(kind);
  h.bytes = bytes;
  static const char zeros[8] = {};
  const uint64_t pad = (8 - bytes % 8) % 8;
  bool ok = std::fwrite(&h, sizeof h, 1, file_) == 1 && (bytes == 0 || std::fwrite(data, 1, bytes, file_) == bytes) &&
            (pad == 0 || std::fwrite(zeros, 1, pad, file_) == pad);
  if (!ok) {
    int err = errno;
    stop(fmt::format("writing failed: {}", std::strerror(err ? err : EIO)), false);
    return false;
  }
  offset_ += sizeof h + bytes + pad;
  return true;
}

void Writer::write_json_chunk(ChunkKind kind, const nlohmann::json& j) {
  // Invalid UTF-8 in a string (a name from a hostile program) is replaced, not thrown.
  std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  write_chunk(kind, text.data(), text.size());
}

void Writer::stop(const std::string& why, bool size_limit) {
  if (!stopped_.empty()) return;
  stopped_ = why;
  recording_ = false;
  if (size_limit) {
    std::fprintf(stderr,
                 "synclab: trace %s reached its size limit of %s (%llu bytes); recording stopped "
                 "after %llu events (the file stays readable; later events are not recorded). "
                 "Raise the limit with SYNCLAB_TRACE_LIMIT (e.g. SYNCLAB_TRACE_LIMIT=4G), or "
                 "record less with SYNCLAB_TRACE_KERNELS, SYNCLAB_TRACE_BLOCKS, "
                 "SYNCLAB_TRACE_RANGES or SYNCLAB_TRACE_KINDS.\n",
                 path_.c_str(), human_bytes(opt_.size_limit).c_str(), static_cast<unsigned long long>(opt_.size_limit),
                 static_cast<unsigned long long>(written_) + pending_.size());
  } else {
    std::fprintf(stderr, "synclab: trace %s: %s; recording stopped after %llu events.\n", path_.c_str(), why.c_str(),
                 static_cast<unsigned long long>(written_));
  }
}

bool Writer::accept(const Event& e) {
  const auto kind = static_cast<EventKind>(e.kind);
  if (kind == EventKind::KernelBegin || kind == EventKind::KernelEnd || kind == EventKind::Report) return true;
  // A region's contents at the launch's start belong to no block.
  if (kind == EventKind::RegionUpdate && (e.aux & kRegionSnapshot)) return true;
  // The host's accesses belong to no block either; the address ranges apply to them.
  const bool host = kind == EventKind::HostAccess;
  if (!host && (opt_.block_first >= 0 || opt_.block_last >= 0) && warps_per_block_ != 0) {
    uint64_t block = e.warp / warps_per_block_;
    if (kind == EventKind::BarrierRelease || kind == EventKind::BarrierArrive) block = e.b;
    if (opt_.block_first >= 0 && block < uint64_t(opt_.block_first)) return false;
    if (opt_.block_last >= 0 && block > uint64_t(opt_.block_last)) return false;
  }
  const bool addressed =
      kind == EventKind::MemAccess || kind == EventKind::Atomic || host ||
      (kind == EventKind::MemoryModel && (e.aux & kMemoryModelKindMask) != uint16_t(MemoryModelKind::LateLoad));
  if (!opt_.address_ranges.empty() && addressed) {
    for (const auto& r : opt_.address_ranges)
      if (e.a >= r.first && e.a < r.second) return true;
    return false;
  }
  return true;
}

void Writer::push(const Event& e) {
  if (pending_.size() >= kChunkEvents) flush_events();
  if (!recording_) {
    ++dropped_;
    return;
  }
  // Would the Events chunk holding this event (and the AtomicWide that must follow a 64-bit
  // atomic) pass the limit?
  const uint64_t need = (e.kind == static_cast<uint8_t>(EventKind::Atomic) && (e.aux & kAux64)) ? 2 : 1;
  const uint64_t chunk_bytes = sizeof(ChunkHeader) + (pending_.size() + need) * sizeof(Event);
  if (offset_ + chunk_bytes > opt_.size_limit) {
    stop(fmt::format("size limit of {} bytes reached", opt_.size_limit), true);
    ++dropped_;
    if (e.kind == static_cast<uint8_t>(EventKind::Atomic)) last_atomic_kept_ = false;
    return;
  }
  pending_.push_back(e);
}

void Writer::flush_events() {
  if (pending_.empty() || !file_) return;
  const uint64_t n = pending_.size();
  if (write_chunk(ChunkKind::Events, pending_.data(), n * sizeof(Event)))
    written_ += n;
  else
    dropped_ += n;
  pending_.clear();
}

void Writer::kernel(const nlohmann::json& k) {
  if (!file_) return;
  flush_events();
  nlohmann::json j = k.is_object() ? k : nlohmann::json::object();
  launch_recorded_ = true;
  if (!opt_.kernels.empty()) {
    // A listed name matches the symbol ("name"), the demangled name ("display"), or the
    // demangled name without its parameter list ("lock_kernel" for "lock_kernel(int*)").
    auto str = [&](const char* key) {
      auto it = j.find(key);
      return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const std::string name = str("name"), display = str("display");
    const std::string bare = display.substr(0, display.find('('));
    launch_recorded_ = false;
    for (const std::string& k : opt_.kernels)
      if (k == name || (!display.empty() && (k == display || k == bare))) launch_recorded_ = true;
    if (!launch_recorded_) j["recorded"] = false;
  }
  warps_per_block_ = 0;
  auto it = j.find("warps_per_block");
  if (it != j.end() && it->is_number_unsigned())
    warps_per_block_ = it->get<uint64_t>();
  else if (it != j.end() && it->is_number_integer() && it->get<int64_t>() > 0)
    warps_per_block_ = uint64_t(it->get<int64_t>());
  last_atomic_kept_ = true;
  write_json_chunk(ChunkKind::Kernel, j);
}

nlohmann::json Writer::with_region_id(const nlohmann::json& r) {
  // Global and shared regions draw their ids from one sequence: a given id wins, the next
  // free one is taken otherwise.
  nlohmann::json j = r.is_object() ? r : nlohmann::json::object();
  auto it = j.find("id");
  if (it == j.end() || !it->is_number_integer()) {
    j["id"] = next_region_id_++;
  } else {
    int64_t id = it->get<int64_t>();
    if (id >= 0 && uint64_t(id) >= next_region_id_) next_region_id_ = uint32_t(id + 1);
  }
  return j;
}

void Writer::region(const nlohmann::json& r) {
  if (!file_) return;
  flush_events();
  write_json_chunk(ChunkKind::Region, with_region_id(r));
}

void Writer::shared_region(const nlohmann::json& r) {
  if (!file_) return;
  flush_events();
  nlohmann::json j = with_region_id(r);
  j["space"] = "shared";
  write_json_chunk(ChunkKind::SharedRegion, j);
}

uint32_t Writer::report(nlohmann::json r) {
  const uint32_t id = next_report_id_++;
  if (!file_) return id;
  flush_events();
  if (!r.is_object()) r = nlohmann::json{{"text", r}};
  r["id"] = id;
  write_json_chunk(ChunkKind::Report, r);
  return id;
}

void Writer::close(const nlohmann::json& footer_extra) {
  if (!file_) return;
  flush_events();
  nlohmann::json f = {{"events", written_},
                      {"dropped", dropped_},
                      {"filtered", filtered_},
                      {"size_limit", opt_.size_limit},
                      {"wall_seconds", now_seconds() - start_seconds_}};
  f["stopped"] = stopped_.empty() ? nlohmann::json() : nlohmann::json(stopped_);
  if (footer_extra.is_object())
    for (auto it = footer_extra.begin(); it != footer_extra.end(); ++it) f[it.key()] = it.value();
  // Bytes in the file including this footer is not knowable before writing it; "bytes" is the
  // size before the footer.
  f["bytes"] = offset_;
  write_json_chunk(ChunkKind::Footer, f);
  if (std::fclose(file_) != 0 && stopped_.empty())
    std::fprintf(stderr, "synclab: trace %s: closing failed: %s\n", path_.c_str(), std::strerror(errno));
  file_ = nullptr;
  recording_ = false;
}

}  // namespace synclab::trace
