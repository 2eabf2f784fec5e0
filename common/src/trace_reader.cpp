// Reading trace files: map, walk the chunks, index the Events chunks, parse the JSON chunks.
#include <synclab/trace_reader.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace synclab::trace {

static_assert(sizeof(Preamble) == 16 && sizeof(ChunkHeader) == 16, "fixed header sizes");
static_assert(alignof(Event) <= 8, "events are read in place from 8-aligned payloads");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "trace files are little-endian; this reader reads them in place"
#endif

const char* chunk_kind_name(uint32_t kind) {
  switch (static_cast<ChunkKind>(kind)) {
    case ChunkKind::Header: return "Header";
    case ChunkKind::Kernel: return "Kernel";
    case ChunkKind::Region: return "Region";
    case ChunkKind::Report: return "Report";
    case ChunkKind::Events: return "Events";
    case ChunkKind::Footer: return "Footer";
    case ChunkKind::SharedRegion: return "SharedRegion";
  }
  return "unknown";
}

Trace::~Trace() {
  if (map_) munmap(map_, map_bytes_);
  if (fd_ >= 0) ::close(fd_);
}

bool Trace::read_events(const EventChunk& ch, size_t k, size_t n, Event* out) const {
  if (fd_ < 0 || !map_) return false;
  const auto* at = reinterpret_cast<const unsigned char*>(ch.events + k);
  const off_t off = off_t(at - static_cast<const unsigned char*>(map_));
  auto* dst = reinterpret_cast<unsigned char*>(out);
  size_t want = n * sizeof(Event), done = 0;
  while (done < want) {
    const ssize_t got = ::pread(fd_, dst + done, want - done, off + off_t(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;  // (the file shrank, or cannot be read: the caller uses the mapping)
    done += size_t(got);
  }
  return true;
}

const nlohmann::json* Trace::report_by_id(uint64_t id) const {
  // Writers number reports 0, 1, ... in file order: try the direct index first.
  auto matches = [id](const nlohmann::json& j) {
    auto it = j.find("id");
    return it != j.end() && it->is_number_unsigned() && it->get<uint64_t>() == id;
  };
  if (id < reports.size() && matches(reports[id])) return &reports[id];
  for (const nlohmann::json& r : reports)
    if (matches(r)) return &r;
  return nullptr;
}

// "" when a SharedRegion chunk's JSON has what readers need, else what is wrong with it.
std::string shared_region_problem(const nlohmann::json& j) {
  // a non-negative integer (JSON text gives unsigned numbers; JSON built in code may be signed)
  auto num = [](const nlohmann::json& x, uint64_t* v) {
    if (x.is_number_unsigned()) {
      *v = x.get<uint64_t>();
      return true;
    }
    if (x.is_number_integer() && x.get<int64_t>() >= 0) {
      *v = uint64_t(x.get<int64_t>());
      return true;
    }
    return false;
  };
  auto u = [&](const char* k, uint64_t* v) {
    auto it = j.find(k);
    return it != j.end() && num(*it, v);
  };
  auto s = [&](const char* k) {
    auto it = j.find(k);
    return it != j.end() && it->is_string() && !it->get<std::string>().empty();
  };
  uint64_t id = 0, bytes = 0, bits = 0;
  if (!j.is_object()) return "not a JSON object";
  if (!u("id", &id)) return "\"id\" is missing or not a non-negative integer";
  if (id > 255) return fmt::format("\"id\" is {}; region ids are 0 .. 255", id);
  if (!s("name")) return "\"name\" is missing or empty";
  if (!s("kind")) return "\"kind\" is missing or empty";
  if (!s("variable")) return "\"variable\" is missing or empty";
  if (!u("bytes", &bytes) || bytes == 0) return "\"bytes\" is missing or 0";
  if (!u("elem_bits", &bits)) return "\"elem_bits\" is missing or not a non-negative integer";
  auto d = j.find("dims");
  if (d == j.end() || !d->is_array() || d->empty() || d->size() > 2) return "\"dims\" must be 1 or 2 numbers";
  unsigned __int128 cells = 1;
  for (const auto& x : *d) {
    uint64_t v = 0;
    if (!num(x, &v) || v == 0 || v > 0xffffffffull) return "\"dims\" must be positive 32-bit numbers";
    cells *= v;
  }
  if (bits == 0 || bits > 64 || (bits != 1 && bits % 8 != 0))
    return fmt::format("\"elem_bits\" is {}; expected 1, 8, 16, 32 or 64", bits);
  if (cells * bits > (unsigned __int128)bytes * 8) return "the dims do not fit in \"bytes\"";
  return "";
}

const nlohmann::json* Trace::region_by_id(uint64_t id) const {
  auto matches = [id](const nlohmann::json& j) {
    auto it = j.find("id");
    return it != j.end() && it->is_number_unsigned() && it->get<uint64_t>() == id;
  };
  if (id < regions.size() && matches(regions[id])) return &regions[id];
  for (const nlohmann::json& r : regions)
    if (matches(r)) return &r;
  return nullptr;
}

namespace {

void read_dim3(const nlohmann::json& j, const char* key, uint32_t out[3]) {
  auto it = j.find(key);
  if (it == j.end()) return;
  if (it->is_array()) {
    for (size_t d = 0; d < 3 && d < it->size(); ++d)
      if ((*it)[d].is_number_unsigned()) out[d] = uint32_t((*it)[d].get<uint64_t>());
  } else if (it->is_number_unsigned()) {
    out[0] = uint32_t(it->get<uint64_t>());
  }
}

// Reads exactly n bytes at off (the chunk walk uses pread, so opening a trace does not fault in
// pages of the mapping: the events are touched only when they are read).
bool read_at(int fd, uint64_t off, void* buf, size_t n) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t r = ::pread(fd, p, n, off_t(off));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
    off += uint64_t(r);
  }
  return true;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::unique_ptr<Trace> load(const std::string& path, std::string* error) {
  auto fail = [&](uint64_t offset, const std::string& what) -> std::unique_ptr<Trace> {
    if (error) *error = fmt::format("{}: byte {}: {}", path, offset, what);
    return nullptr;
  };
  auto fail_file = [&](const std::string& what) -> std::unique_ptr<Trace> {
    if (error) *error = fmt::format("{}: {}", path, what);
    return nullptr;
  };

  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) return fail_file(fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (fstat(f.fd, &st) != 0) return fail_file(fmt::format("cannot stat: {}", std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return fail_file("not a regular file");
  const uint64_t size = uint64_t(st.st_size);
  if (size == 0) return fail(0, "the file is empty (not a SyncLab trace, or nothing was written)");
  if (size < sizeof(Preamble))
    return fail(0, fmt::format("the file is {} bytes, shorter than the 16-byte preamble", size));

  std::unique_ptr<Trace> t(new Trace());
  t->path = path;
  t->file_bytes = size;
  void* m = mmap(nullptr, size_t(size), PROT_READ, MAP_PRIVATE, f.fd, 0);
  if (m == MAP_FAILED) return fail_file(fmt::format("cannot map the file: {}", std::strerror(errno)));
  t->map_ = m;
  t->map_bytes_ = size_t(size);
  const unsigned char* base = static_cast<const unsigned char*>(m);

  Preamble pre;
  if (!read_at(f.fd, 0, &pre, sizeof pre)) return fail_file(fmt::format("cannot read: {}", std::strerror(errno)));
  if (std::memcmp(pre.magic, kMagic, sizeof pre.magic) != 0)
    return fail(0, "not a SyncLab trace (the file does not start with \"SYNCTRC1\")");
  if (pre.version != kVersion)
    return fail(8, fmt::format("format version {}; this reader reads version {}", pre.version, kVersion));
  t->version = pre.version;
  t->gpu = (pre.flags & 1u) != 0;

  auto warn = [&](const std::string& w) { t->warnings.push_back(w); };
  bool have_header = false;
  int launch = -1;
  size_t events = 0;
  uint64_t off = sizeof(Preamble);
  std::string cut;  // why the walk stopped early (a truncation warning)
  while (off < size) {
    const uint64_t left = size - off;
    if (left < sizeof(ChunkHeader)) {
      cut = fmt::format("the file ends at byte {} inside a chunk header ({} of 16 bytes)", size, left);
      break;
    }
    ChunkHeader ch;
    if (!read_at(f.fd, off, &ch, sizeof ch))
      return fail(off, fmt::format("cannot read: {}", std::strerror(errno ? errno : EIO)));
    const uint64_t room = left - sizeof(ChunkHeader);
    const char* kname = chunk_kind_name(ch.kind);
    if (ch.bytes > room) {
      cut = fmt::format("the {} chunk at byte {} claims {} bytes but only {} remain in the file", kname, off, ch.bytes,
                        room);
      break;
    }
    const uint64_t padded = ch.bytes + (8 - ch.bytes % 8) % 8;
    if (padded > room) {
      cut = fmt::format("the {} chunk at byte {} is missing its padding at the end of the file", kname, off);
      break;
    }
    const unsigned char* payload = base + off + sizeof(ChunkHeader);
    const uint64_t payload_off = off + sizeof(ChunkHeader);

    if (!have_header && ch.kind != uint32_t(ChunkKind::Header))
      return fail(off, fmt::format("the first chunk must be a Header chunk, found a {} chunk "
                                   "(kind {})",
                                   kname, ch.kind));

    if (ch.kind == uint32_t(ChunkKind::Events)) {
      if (ch.bytes % sizeof(Event) != 0)
        return fail(off, fmt::format("Events chunk of {} bytes is not a whole number of 32-byte "
                                     "events",
                                     ch.bytes));
      if (ch.bytes > 0) {
        EventChunk c;
        c.events = reinterpret_cast<const Event*>(payload);
        c.first = events;
        c.count = size_t(ch.bytes / sizeof(Event));
        c.launch = launch;
        c.offset = off;
        t->chunks_.push_back(c);
        events += c.count;
      }
    } else if (ch.kind >= uint32_t(ChunkKind::Header) && ch.kind <= uint32_t(ChunkKind::SharedRegion)) {
      nlohmann::json j;
      std::string text(size_t(ch.bytes), '\0');
      if (!read_at(f.fd, payload_off, text.data(), text.size()))
        return fail(payload_off, fmt::format("cannot read: {}", std::strerror(errno ? errno : EIO)));
      try {
        j = nlohmann::json::parse(text);
      } catch (const nlohmann::json::parse_error& e) {
        // e.byte counts from 1 within the payload.
        uint64_t at = payload_off + (e.byte > 0 ? e.byte - 1 : 0);
        std::string what = e.what();
        size_t p = what.find("parse error");
        if (p != std::string::npos) what = what.substr(p);
        return fail(at, fmt::format("bad JSON in the {} chunk at byte {}: {}", kname, off, what));
      } catch (const nlohmann::json::exception& e) {  // e.g. a number too large for a double
        return fail(payload_off, fmt::format("bad JSON in the {} chunk at byte {}: {}", kname, off, e.what()));
      }
      if (!j.is_object())
        return fail(payload_off, fmt::format("the {} chunk at byte {} holds JSON that is not an "
                                             "object",
                                             kname, off));
      switch (static_cast<ChunkKind>(ch.kind)) {
        case ChunkKind::Header:
          if (have_header) return fail(off, "a second Header chunk");
          t->header = std::move(j);
          have_header = true;
          break;
        case ChunkKind::Kernel: {
          if (launch >= 0) t->launches[size_t(launch)].end_event = events;
          Launch l;
          auto n = j.find("name");
          if (n != j.end() && n->is_string()) l.name = n->get<std::string>();
          auto d = j.find("display");
          l.display = d != j.end() && d->is_string() ? d->get<std::string>() : l.name;
          auto w = j.find("warps_per_block");
          if (w != j.end() && w->is_number_unsigned()) l.warps_per_block = w->get<uint64_t>();
          read_dim3(j, "grid", l.grid);
          read_dim3(j, "block", l.block);
          auto r = j.find("recorded");
          l.recorded = !(r != j.end() && r->is_boolean() && !r->get<bool>());
          l.first_event = l.end_event = events;
          l.offset = off;
          l.json = std::move(j);
          t->launches.push_back(std::move(l));
          launch = int(t->launches.size() - 1);
          break;
        }
        case ChunkKind::Region: t->regions.push_back(std::move(j)); break;
        case ChunkKind::SharedRegion: {
          std::string why = shared_region_problem(j);
          if (!why.empty()) {
            warn(fmt::format("{}: byte {}: skipped a SharedRegion chunk: {}", path, off, why));
            break;
          }
          j["offset_in_file"] = off;
          t->shared_regions.push_back(std::move(j));
          break;
        }
        case ChunkKind::Report: t->reports.push_back(std::move(j)); break;
        case ChunkKind::Footer:
          t->footer = std::move(j);
          t->complete = true;
          break;
        default: break;
      }
    } else {
      warn(
          fmt::format("{}: byte {}: skipped a chunk of unknown kind {} ({} bytes; written by a "
                      "newer SyncLab?)",
                      path, off, ch.kind, ch.bytes));
    }
    off += sizeof(ChunkHeader) + padded;
    if (t->complete) break;
  }
  if (launch >= 0) t->launches[size_t(launch)].end_event = events;
  t->event_count_ = events;
  t->chunks_.shrink_to_fit();
  if (t->chunks_.size() > 0xffffffffull) return fail_file("too many Events chunks");
  const size_t buckets = (events + (size_t(1) << Trace::kBucketShift) - 1) >> Trace::kBucketShift;
  t->bucket_.resize(buckets);
  for (size_t b = 0, c = 0; b < buckets; ++b) {
    const size_t first = b << Trace::kBucketShift;
    while (c + 1 < t->chunks_.size() && t->chunks_[c + 1].first <= first) ++c;
    t->bucket_[b] = uint32_t(c);
  }

  if (!have_header)
    return fail(sizeof(Preamble), cut.empty() ? std::string("no Header chunk") : "no complete Header chunk: " + cut);
  if (t->complete && off < size)
    warn(fmt::format("{}: byte {}: ignored {} bytes after the Footer chunk", path, off, size - off));
  if (!cut.empty()) {
    warn(
        fmt::format("{}: trace is cut short after {} events: {}; kept every complete chunk "
                    "before byte {} (no Footer: the program probably crashed or was killed "
                    "while writing)",
                    path, events, cut, off));
  } else if (!t->complete) {
    warn(
        fmt::format("{}: trace is cut short after {} events: no Footer chunk at the end (the "
                    "program stopped before closing the trace: a crash, a kill, or a hang "
                    "that was interrupted)",
                    path, events));
  }
  for (size_t i = 0; i < t->warnings.size(); ++i) {
    if (i) t->warning += '\n';
    t->warning += t->warnings[i];
  }
  t->fd_ = std::exchange(f.fd, -1);  // kept for Trace::scan
  return t;
}

}  // namespace synclab::trace
