// The interleaving behind a report (interleaving.h explains the rules).
//
// Where things are (the sections below, in this order):
//   1. small helpers             an event's access fields (is_access, access_size, access_space, ...),
//                                thread_key; Location (bytes of global memory or of one block's shared memory);
//                                LaunchView, one launch's warps, blocks and source files (module_files, view_of);
//                                an event's source line (source_of); JSON fields (json_string, json_int)
//   2. reports                   the threads a report names (Party, parties_of); its Report event and launch
//                                (report_event, report_launch); the racing pair (find_access,
//                                find_access_same_step, RacePair, locate_race); an address in a report's text
//                                (address_in_text)
//   3. addresses                 address ranges (Range, merge_ranges, ranges_text); named regions (region_text,
//                                region_ranges); the location in words (location_text)
//   4. the window and its items  one access as an item (access_item); items that merge (same_deed,
//                                same_instruction, mergeable); the window's items (Involved, collect); merged
//                                and cut (compact); count_touching
//   5. the explanation           the lost update among the accesses (Update, explain)
//   6. find_interleaving         mem_order_name, parse_interleaving_address; the steps of find_interleaving, each
//                                filling in its part of a Search: the report (pick_report), its launch
//                                (pick_launch), the location (locate_by_report, locate_by_address,
//                                unaccessed_address), the threads involved (involved_threads), the window
//                                (window), its items cut (cut_items); find_interleaving, the steps in order
//   7. text                      interleaving_thread_name, interleaving_item_text, write_interleaving
#include <synclab/interleaving.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace synclab::trace {

namespace {

constexpr size_t kShownBefore = 6;    // accesses listed before the earlier racing access
constexpr size_t kShownNoRace = 16;   // accesses listed before a non-race report's event
constexpr size_t kShownAddress = 40;  // accesses listed for an address alone
constexpr size_t kSyncRun = 8;        // longer runs of synchronization items are cut
constexpr size_t kStepSearch = 4096;  // events searched for an access's WarpStep

// ---- 1. small helpers ------------------------------------------------------------------------

bool is_access(const Event& e) {
  return e.kind == uint8_t(EventKind::MemAccess) || e.kind == uint8_t(EventKind::Atomic);
}
// The host's access to mapped or managed memory (warp 0, lane kAllLanes: the host is no warp).
bool is_host_access(const Event& e) { return e.kind == uint8_t(EventKind::HostAccess) && host_access_well_formed(e); }
uint32_t access_size(const Event& e) { return 1u << ((e.aux >> kAuxSizeShift) & 0x7); }
MemSpace access_space(const Event& e) { return MemSpace(e.aux & kAuxSpaceMask); }
bool access_write(const Event& e) { return (e.aux & kAuxWrite) != 0; }
uint8_t access_order(const Event& e) { return uint8_t((e.aux & kAuxOrderMask) >> kAuxOrderShift); }

uint64_t thread_key(uint32_t warp, uint8_t lane) { return (uint64_t(warp) << 8) | lane; }

// The location: bytes [address, address + bytes) of global-like memory, or of one block's shared
// memory.
struct Location {
  bool shared = false;
  int64_t block = -1;  // shared only
  uint64_t address = 0;
  uint32_t bytes = 1;
};

struct LaunchView {
  const Trace* t = nullptr;
  int index = -1;
  const Launch* L = nullptr;
  uint64_t wpb = 0;  // warps per block, 0 unknown
  std::vector<std::string> files;

  int64_t block_of(uint32_t warp) const { return wpb ? int64_t(warp / wpb) : -1; }
  int64_t thread_of(uint32_t warp, uint8_t lane) const {
    return wpb && lane != kAllLanes ? int64_t((warp % wpb) * 32 + lane) : -1;
  }
  bool touches(const Event& e, const Location& loc) const {
    if (!is_access(e)) return false;
    const bool sh = access_space(e) == MemSpace::Shared;
    if (sh != loc.shared) return false;
    if (sh && block_of(e.warp) != loc.block) return false;
    return overlaps(e, loc);
  }
  // A host access to the location (never shared memory).
  bool host_touches(const Event& e, const Location& loc) const {
    return is_host_access(e) && !loc.shared && overlaps(e, loc);
  }
  static bool overlaps(const Event& e, const Location& loc) {
    return e.a < loc.address + loc.bytes && loc.address < e.a + access_size(e);
  }
};

// The source files of a launch's module: its own Kernel chunk's "files", or those of the first
// launch from the same module (only that one carries them).
std::vector<std::string> module_files(const Trace& t, int launch) {
  std::vector<std::string> out;
  auto read = [&](const nlohmann::json& k) {
    auto f = k.find("files");
    if (f == k.end() || !f->is_array()) return false;
    for (const auto& x : *f) out.push_back(x.is_string() ? x.get<std::string>() : std::string());
    return true;
  };
  const nlohmann::json& k = t.launches[size_t(launch)].json;
  if (!k.is_object()) return out;
  if (read(k)) return out;
  auto m = k.find("module");
  for (int i = launch - 1; i >= 0; --i) {
    const nlohmann::json& o = t.launches[size_t(i)].json;
    if (!o.is_object()) continue;
    auto om = o.find("module");
    const bool same = (m == k.end() && om == o.end()) || (m != k.end() && om != o.end() && *m == *om);
    if (same && read(o)) return out;
  }
  return out;
}

LaunchView view_of(const Trace& t, int launch) {
  LaunchView v;
  v.t = &t;
  v.index = launch;
  v.L = &t.launches[size_t(launch)];
  v.wpb = v.L->warps_per_block;
  v.files = module_files(t, launch);
  return v;
}

// The source line of the instruction that made event i: its warp's latest WarpStep at or before
// it with the same time (the simulator writes an instruction's WarpStep first, then its accesses),
// when that step's mask holds the lane.
void source_of(const LaunchView& v, size_t i, uint32_t* line, std::string* file) {
  *line = 0;
  file->clear();
  const Trace& t = *v.t;
  const Event& e = t.event(i);
  for (size_t j = i + 1, n = 0; j > v.L->first_event && n < kStepSearch && t.event(j - 1).time == e.time; --j, ++n) {
    const Event& s = t.event(j - 1);
    if (s.kind != uint8_t(EventKind::WarpStep) || s.warp != e.warp) continue;
    if (e.lane != kAllLanes && !((s.a >> e.lane) & 1)) return;  // not this lane's instruction
    *line = uint32_t(s.b & 0xffffffffu);
    const uint32_t fid = uint32_t(s.b >> 48);
    if (fid < v.files.size()) *file = v.files[fid];
    return;
  }
}

std::string base_name(const std::string& path) {
  const size_t s = path.find_last_of('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

std::string value_text(uint64_t v) { return v < 1000000 ? fmt::format("{}", v) : fmt::format("0x{:x}", v); }

std::string json_string(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool json_int(const nlohmann::json& j, const char* key, int64_t* out) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return false;
  *out = it->get<int64_t>();
  return true;
}

// ---- 2. reports --------------------------------------------------------------------------------

enum class Want : uint8_t { Any, Load, Store, Atomic };

struct Party {
  uint32_t warp = 0;  // launch warp
  int lane = -1;
  uint32_t line = 0;
  Want want = Want::Any;
  bool valid = false;
  bool host = false;  // the host (the race checker's host rules: "host write", no warp)
  std::string file;   // the host's source file, when the report names its line
};

Want want_of(const std::string& access) {
  if (access.find("atomic") != std::string::npos) return Want::Atomic;
  if (access.find("write") != std::string::npos || access.find("store") != std::string::npos) return Want::Store;
  if (access.find("read") != std::string::npos || access.find("load") != std::string::npos) return Want::Load;
  return Want::Any;
}

bool wanted(const Event& e, Want w) {
  switch (w) {
    case Want::Load: return e.kind == uint8_t(EventKind::MemAccess) && !access_write(e);
    case Want::Store: return e.kind == uint8_t(EventKind::MemAccess) && access_write(e);
    case Want::Atomic: return e.kind == uint8_t(EventKind::Atomic);
    default: return is_access(e);
  }
}

// A party's "warp" is the warp within its block (as the simulator writes it); a value that cannot
// be one (>= warps per block) is taken as the launch warp.
std::vector<Party> parties_of(const LaunchView& v, const nlohmann::json& report) {
  std::vector<Party> out;
  if (!report.is_object()) return out;
  auto p = report.find("parties");
  if (p == report.end() || !p->is_array()) return out;
  for (const nlohmann::json& q : *p) {
    Party party;
    int64_t block = -1, warp = -1, lane = -1, line = 0;
    json_int(q, "block", &block);
    json_int(q, "warp", &warp);
    json_int(q, "lane", &lane);
    json_int(q, "line", &line);
    const std::string access = json_string(q, "access");
    party.want = want_of(access);
    party.line = line > 0 ? uint32_t(line) : 0;
    if (access.rfind("host", 0) == 0 && warp < 0) {
      party.host = true;
      party.file = json_string(q, "file");
      out.push_back(party);
      continue;
    }
    party.lane = lane >= 0 && lane < 32 ? int(lane) : -1;
    if (warp >= 0) {
      if (v.wpb && block >= 0 && uint64_t(warp) < v.wpb)
        party.warp = uint32_t(uint64_t(block) * v.wpb + uint64_t(warp));
      else
        party.warp = uint32_t(warp);
      party.valid = true;
    }
    out.push_back(party);
  }
  return out;
}

// The index of the Report event naming report `id` in launch `launch`, or SIZE_MAX.
size_t report_event(const Trace& t, const Launch& L, uint64_t id) {
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const Event& e = t.event(i);
    if (e.kind == uint8_t(EventKind::Report) && e.a == id) return i;
  }
  return SIZE_MAX;
}

// The launch a report belongs to: where its Report event is, else its "launch" number.
int report_launch(const Trace& t, const nlohmann::json& r, uint64_t id, size_t* event) {
  *event = SIZE_MAX;
  int64_t n = -1;
  json_int(r, "launch", &n);
  for (size_t li = 0; li < t.launches.size(); ++li) {
    const Launch& L = t.launches[li];
    int64_t ln = -1;
    if (!json_int(L.json, "launch", &ln) || ln != n) continue;
    *event = report_event(t, L, id);
    if (*event != SIZE_MAX) return int(li);
  }
  for (size_t li = 0; li < t.launches.size(); ++li) {
    *event = report_event(t, t.launches[li], id);
    if (*event != SIZE_MAX) return int(li);
  }
  for (size_t li = 0; li < t.launches.size(); ++li) {
    int64_t ln = -1;
    if (json_int(t.launches[li].json, "launch", &ln) && ln == n) return int(li);
  }
  return -1;
}

// The last access before `before` (exclusive), back to `from`, by the thread, of the wanted kind,
// at the line (when known), touching `loc` (when given). Lane -1: any lane of the warp.
size_t find_access(const LaunchView& v, size_t from, size_t before, uint32_t warp, int lane, Want want, uint32_t line,
                   const Location* loc) {
  const Trace& t = *v.t;
  std::string file;
  for (size_t i = before; i > from; --i) {
    const Event& e = t.event(i - 1);
    if (!is_access(e) || e.warp != warp || (lane >= 0 && e.lane != lane) || !wanted(e, want)) continue;
    if (loc && !v.touches(e, *loc)) continue;
    if (line) {
      uint32_t l = 0;
      source_of(v, i - 1, &l, &file);
      if (l && l != line) continue;
    }
    return i - 1;
  }
  return SIZE_MAX;
}

// The same, forward within one instruction (lanes of one store are recorded in lane order, so a
// lane that raced with the reporting lane inside one instruction comes after it).
size_t find_access_same_step(const LaunchView& v, size_t at, uint32_t warp, int lane, Want want, const Location& loc) {
  const Trace& t = *v.t;
  const uint64_t time = t.event(at).time;
  for (size_t i = at + 1; i < v.L->end_event && t.event(i).time == time; ++i) {
    const Event& e = t.event(i);
    if (is_access(e) && e.warp == warp && (lane < 0 || e.lane == lane) && wanted(e, want) && v.touches(e, loc))
      return i;
  }
  return SIZE_MAX;
}

Location location_of(const LaunchView& v, const Event& e) {
  Location loc;
  loc.shared = access_space(e) == MemSpace::Shared;
  loc.block = loc.shared ? v.block_of(e.warp) : -1;
  loc.address = e.a;
  loc.bytes = access_size(e);
  return loc;
}

struct RacePair {
  size_t first = SIZE_MAX, second = SIZE_MAX;  // event indices, first < second
  Location loc;
  std::vector<std::string> notes;
  // When one of the two is the host's: where its code made the access, as the report names it.
  uint32_t host_line = 0;
  std::string host_file;
};

// The host's access the report names, next to the device's access at event `at`: of the host's
// accesses to the location (of the wanted kind), the last before it or the first after it (the
// simulator may record a host write only at the device's next step, so after a device access that
// already saw it). For a device load, the one that wrote the value the load returned; else, for a
// load, the one after (the host wrote what the load did not see), and for a store or an atomic the
// nearer of the two.
size_t find_host_access(const LaunchView& v, size_t at, Want want, const Location& loc) {
  const Trace& t = *v.t;
  auto fits = [&](const Event& e) {
    return v.host_touches(e, loc) && (want == Want::Any || (want == Want::Store) == host_access_writes(e));
  };
  size_t before = SIZE_MAX, after = SIZE_MAX;
  for (size_t i = at; i > v.L->first_event && before == SIZE_MAX; --i)
    if (fits(t.event(i - 1))) before = i - 1;
  for (size_t i = at + 1; i < v.L->end_event && after == SIZE_MAX; ++i)
    if (fits(t.event(i))) after = i;
  if (before == SIZE_MAX || after == SIZE_MAX) return before == SIZE_MAX ? after : before;
  const Event& dev = t.event(at);
  if (dev.kind == uint8_t(EventKind::MemAccess) && !access_write(dev)) {
    const uint64_t mask = access_size(dev) >= 8 ? ~0ull : (1ull << (8 * access_size(dev))) - 1;
    if ((t.event(before).b & mask) == (dev.b & mask)) return before;
    if ((t.event(after).b & mask) == (dev.b & mask)) return after;
    return after;
  }
  return at - before <= after - at ? before : after;
}

// The two accesses of a race report, found from its parties (see interleaving.h).
bool locate_race(const LaunchView& v, const nlohmann::json& report, size_t rep_event, RacePair* out) {
  const Trace& t = *v.t;
  std::vector<Party> ps = parties_of(v, report);
  if (ps.empty() || !ps[0].valid) return false;
  Party cur = ps[0];
  if (rep_event != SIZE_MAX) {
    const Event& re = t.event(rep_event);
    if (re.lane != kAllLanes) {  // the Report event names the reporting thread exactly
      cur.warp = re.warp;
      cur.lane = re.lane;
    }
  }
  const size_t end = rep_event != SIZE_MAX ? rep_event : v.L->end_event;
  const size_t begin = v.L->first_event;
  size_t c = find_access(v, begin, end, cur.warp, cur.lane, cur.want, cur.line, nullptr);
  if (c == SIZE_MAX) c = find_access(v, begin, end, cur.warp, -1, cur.want, cur.line, nullptr);
  if (c == SIZE_MAX) return false;
  out->loc = location_of(v, t.event(c));
  if (ps.size() >= 2 && ps[1].host) {
    const size_t h = find_host_access(v, c, ps[1].want, out->loc);
    if (h == SIZE_MAX) {
      out->notes.push_back(
          "the host's access the report names is not in the trace: a trace records the host's accesses only to "
          "named regions of mapped or managed memory (synclab_region(), synclab/regions.h), made while a kernel "
          "runs");
      out->first = out->second = c;
      return true;
    }
    out->first = std::min(h, c);
    out->second = std::max(h, c);
    out->host_line = ps[1].line;
    out->host_file = ps[1].file;
    // Without the host watch the simulator finds a host write by comparing memory before each
    // step, so the event can come after the device access that already saw it.
    const std::string how = v.t->header.is_object() ? json_string(v.t->header, "host_accesses") : "";
    if (h > c && how.rfind("reads and writes", 0) != 0)
      out->notes.push_back(
          "the host's write is listed where the trace found it, at the device's next step after the host made "
          "it (this trace compares memory before each step to see host writes: docs/trace-format.md, "
          "\"HostAccess\"), so it may have come before the device's access listed above it");
    return true;
  }
  if (ps.size() < 2 || !ps[1].valid) {
    out->first = out->second = c;
    return true;
  }
  const Party& prev = ps[1];
  size_t p = find_access(v, begin, c, prev.warp, prev.lane, prev.want, prev.line, &out->loc);
  if (p == SIZE_MAX) p = find_access_same_step(v, c, prev.warp, prev.lane, prev.want, out->loc);
  if (p == SIZE_MAX) {
    p = find_access(v, begin, c, prev.warp, -1, prev.want, prev.line, &out->loc);
    if (p == SIZE_MAX) p = find_access_same_step(v, c, prev.warp, -1, prev.want, out->loc);
    // A party's lane counted across the grid (not within its block) differs from the event's lane
    // when blocks are not whole warps; say so only when that cannot be the reason.
    const uint64_t tpb = uint64_t(v.L->block[0]) * v.L->block[1] * v.L->block[2];
    if (p != SIZE_MAX && prev.lane >= 0 && tpb % 32 == 0)
      out->notes.push_back(
          fmt::format("the report's second thread is lane {} of its warp, which made no such access; "
                      "lane {} of that warp did, and is shown",
                      prev.lane, t.event(p).lane));
  }
  if (p == SIZE_MAX) {
    out->notes.push_back("the other access the report names is not in the trace (filtered out?)");
    out->first = out->second = c;
    return true;
  }
  out->first = std::min(p, c);
  out->second = std::max(p, c);
  return true;
}

// An address the report's text names: after "address: " or "polling " (race and hang reports).
bool address_in_text(const std::string& text, uint64_t* addr) {
  for (const char* key : {"address: 0x", "polling 0x"}) {
    const size_t at = text.find(key);
    if (at == std::string::npos) continue;
    const size_t hex = at + std::string(key).size();
    size_t n = 0;
    uint64_t a = 0;
    while (hex + n < text.size() && std::isxdigit(static_cast<unsigned char>(text[hex + n])) && n < 16) {
      const char ch = char(std::tolower(static_cast<unsigned char>(text[hex + n])));
      a = a * 16 + uint64_t(ch <= '9' ? ch - '0' : ch - 'a' + 10);
      ++n;
    }
    if (n == 0) continue;
    *addr = a;
    return true;
  }
  return false;
}

// ---- 3. addresses ----------------------------------------------------------------------------------

struct Range {
  uint64_t lo, hi;  // [lo, hi)
};

std::vector<Range> merge_ranges(std::vector<Range> rs) {
  std::sort(rs.begin(), rs.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
  std::vector<Range> out;
  for (const Range& r : rs) {
    if (!out.empty() && r.lo <= out.back().hi)
      out.back().hi = std::max(out.back().hi, r.hi);
    else
      out.push_back(r);
  }
  return out;
}

std::string ranges_text(const std::vector<Range>& rs, size_t max) {
  std::string s;
  for (size_t i = 0; i < rs.size() && i < max; ++i)
    s += fmt::format("{}0x{:x} (+{} bytes)", i ? ", " : "", rs[i].lo, rs[i].hi - rs[i].lo);
  if (rs.size() > max) s += fmt::format(" and {} more", rs.size() - max);
  return s;
}

// "region "x" element 0" for an address inside a named region, else "".
std::string region_text(const Trace& t, uint64_t addr, bool brief = false) {
  for (const nlohmann::json& r : t.regions) {
    if (!r.is_object()) continue;
    auto a = r.find("address");
    auto b = r.find("bytes");
    if (a == r.end() || b == r.end() || !a->is_number_unsigned() || !b->is_number_integer()) continue;
    const uint64_t lo = a->get<uint64_t>(), n = b->get<uint64_t>();
    if (addr < lo || addr - lo >= n) continue;
    int64_t eb = 0;
    json_int(r, "elem_bytes", &eb);
    const std::string name = json_string(r, "name");
    // Names like "flag[0] flag[1]" are quoted so the index reads as one.
    const std::string shown = name.find_first_of(" [") == std::string::npos ? name : "\"" + name + "\"";
    if (brief)
      return eb > 0 ? fmt::format("{}[{}]", shown, (addr - lo) / uint64_t(eb)) : fmt::format("{}+{}", shown, addr - lo);
    if (eb > 0) return fmt::format("region \"{}\" element {}", name, (addr - lo) / uint64_t(eb));
    return fmt::format("region \"{}\" byte {}", name, addr - lo);
  }
  return "";
}

std::vector<Range> region_ranges(const Trace& t) {
  std::vector<Range> rs;
  for (const nlohmann::json& r : t.regions) {
    if (!r.is_object()) continue;
    auto a = r.find("address");
    auto b = r.find("bytes");
    if (a == r.end() || b == r.end() || !a->is_number_unsigned() || !b->is_number_integer()) continue;
    rs.push_back({a->get<uint64_t>(), a->get<uint64_t>() + b->get<uint64_t>()});
  }
  return rs;
}

std::string location_text(const Trace& t, const Location& loc) {
  if (loc.shared)
    return fmt::format("shared memory of block {}, offset 0x{:x}, {} byte{}", loc.block, loc.address, loc.bytes,
                       loc.bytes == 1 ? "" : "s");
  std::string s = fmt::format("global 0x{:x}, {} byte{}", loc.address, loc.bytes, loc.bytes == 1 ? "" : "s");
  const std::string r = region_text(t, loc.address);
  if (!r.empty()) s += " (" + r + ")";
  return s;
}

// ---- 4. the window and its items ----------------------------------------------------------------

const char* order_word(uint8_t o) {
  switch (MemOrder(o)) {
    case MemOrder::Volatile: return "volatile";
    case MemOrder::Relaxed: return "relaxed";
    case MemOrder::Acquire: return "acquire";
    case MemOrder::Release: return "release";
    case MemOrder::AcqRel: return "acq_rel";
    case MemOrder::Sc: return "sc";
    default: return "";
  }
}

InterleavingItem access_item(const LaunchView& v, size_t i, InterleavingItemKind sync_kind_or_access) {
  const Trace& t = *v.t;
  const Event& e = t.event(i);
  InterleavingItem it;
  it.event = i;
  it.cursor = it.last_cursor = i - v.L->first_event;
  it.warp = e.warp;
  it.lane = e.lane;
  it.lanes = e.lane < 32 ? 1u << e.lane : 0;
  it.time = e.time;
  it.block = v.block_of(e.warp);
  it.thread = v.thread_of(e.warp, e.lane);
  it.address = e.a;
  it.size = access_size(e);
  it.space = access_space(e);
  it.order = access_order(e);
  if (e.kind == uint8_t(EventKind::Atomic)) {
    if ((e.aux & kAux64) && i + 1 < v.L->end_event && t.event(i + 1).kind == uint8_t(EventKind::AtomicWide)) {
      it.value = t.event(i + 1).a;
      it.new_value = t.event(i + 1).b;
    } else {
      it.value = e.b & 0xffffffffull;
      it.new_value = e.b >> 32;
    }
    it.kind = InterleavingItemKind::Atomic;
  } else {
    it.value = e.b;
    it.kind = access_write(e) ? InterleavingItemKind::Store : InterleavingItemKind::Load;
  }
  const char* base = it.kind == InterleavingItemKind::Atomic  ? "atomic"
                     : it.kind == InterleavingItemKind::Store ? "store"
                                                              : "load";
  const char* ow = order_word(it.order);
  it.what = *ow ? fmt::format("{} {}", ow, base) : std::string(base);
  if (sync_kind_or_access == InterleavingItemKind::SyncAccess) {
    it.kind = InterleavingItemKind::SyncAccess;
    if (it.space != MemSpace::Shared) it.place = region_text(t, it.address, true);
  }
  source_of(v, i, &it.line, &it.file);
  return it;
}

// The host's access as an item: no warp, lane, block or thread; its source line is known only
// when the report names it (set by the caller).
InterleavingItem host_item(const LaunchView& v, size_t i) {
  const Event& e = v.t->event(i);
  InterleavingItem it;
  it.event = i;
  it.cursor = it.last_cursor = i - v.L->first_event;
  it.host = true;
  it.time = e.time;
  it.address = e.a;
  it.size = access_size(e);
  it.space = access_space(e);
  it.value = e.b;
  it.kind = host_access_writes(e) ? InterleavingItemKind::Store : InterleavingItemKind::Load;
  it.what = it.kind == InterleavingItemKind::Store ? "host store" : "host load";
  return it;
}

bool same_deed(const InterleavingItem& a, const InterleavingItem& b) {
  if (a.kind != b.kind || a.racing || b.racing || a.host != b.host) return false;
  if (a.kind == InterleavingItemKind::Report || a.kind == InterleavingItemKind::Elided) return false;
  return a.warp == b.warp && a.block == b.block && a.address == b.address && a.value == b.value &&
         a.new_value == b.new_value && a.line == b.line && a.what == b.what;
}
// Lanes of one instruction (one warp, one time) doing the same thing.
bool same_instruction(const InterleavingItem& a, const InterleavingItem& b) {
  return same_deed(a, b) && a.time == b.time && a.lanes && b.lanes && !(a.lanes & b.lanes) &&
         a.kind != InterleavingItemKind::Barrier;
}
// The same lanes doing the same thing again (a spin).
bool mergeable(const InterleavingItem& a, const InterleavingItem& b) {
  return same_deed(a, b) && a.lanes == b.lanes && a.lane == b.lane;
}

bool is_location_access(const InterleavingItem& it) {
  return it.kind == InterleavingItemKind::Load || it.kind == InterleavingItemKind::Store ||
         it.kind == InterleavingItemKind::Atomic;
}

struct Involved {
  std::set<uint64_t> threads;  // thread_key
  std::set<uint32_t> warps;
  std::set<int64_t> blocks;
  bool same_warp_race = false;  // the two racing threads share a warp: warp syncs matter

  void add(const LaunchView& v, uint32_t warp, uint8_t lane) {
    threads.insert(thread_key(warp, lane));
    warps.insert(warp);
    blocks.insert(v.block_of(warp));
  }
};

// A run of other threads' accesses to the location that is not listed, as one Elided item
// (repeat: how many); empty.
InterleavingItem elided_run() {
  InterleavingItem run;
  run.kind = InterleavingItemKind::Elided;
  run.repeat = 0;
  return run;
}

// Appends the run to `out` as one line when it holds any access, and empties it.
void flush_elided(InterleavingItem& run, std::vector<InterleavingItem>& out) {
  if (!run.repeat) return;
  run.what = fmt::format("{} access{} to it by other threads", run.repeat, run.repeat == 1 ? "" : "es");
  out.push_back(run);
  run.repeat = 0;
}

// The items of events [lo, hi] (inclusive): accesses to loc, and the involved threads'
// synchronization.
// After event `own_after`, other threads' accesses to loc are counted, not listed (the window
// follows the racing threads there).
std::vector<InterleavingItem> collect(const LaunchView& v, const Location& loc, const Involved& inv, size_t lo,
                                      size_t hi, size_t report_event, int64_t report_id, size_t own_after) {
  const Trace& t = *v.t;
  std::vector<InterleavingItem> out;
  if (lo > hi) return out;
  InterleavingItem others = elided_run();  // a run of other threads' accesses not listed
  auto flush_others = [&] { flush_elided(others, out); };
  for (size_t i = lo; i <= hi && i < v.L->end_event; ++i) {
    const Event& e = t.event(i);
    const auto k = EventKind(e.kind);
    if (is_access(e)) {
      if (v.touches(e, loc)) {
        // (Lanes of the later racing access's own instruction are still listed.)
        const bool same_instr =
            own_after != SIZE_MAX && e.warp == t.event(own_after).warp && e.time == t.event(own_after).time;
        if (own_after != SIZE_MAX && i > own_after && !same_instr && !inv.threads.count(thread_key(e.warp, e.lane))) {
          if (!others.repeat) {
            others.event = i;
            others.cursor = i - v.L->first_event;
          }
          others.last_cursor = i - v.L->first_event;
          ++others.repeat;
          continue;
        }
        flush_others();
        out.push_back(access_item(v, i, InterleavingItemKind::Load));
      } else if (inv.threads.count(thread_key(e.warp, e.lane)) &&
                 (k == EventKind::Atomic || access_order(e) != uint8_t(MemOrder::Plain))) {
        flush_others();
        out.push_back(access_item(v, i, InterleavingItemKind::SyncAccess));
      }
    } else if (k == EventKind::HostAccess) {
      if (!v.host_touches(e, loc)) continue;
      flush_others();
      out.push_back(host_item(v, i));
    } else if (k == EventKind::BarrierRelease) {
      if (!inv.blocks.count(int64_t(e.b))) continue;
      InterleavingItem it;
      it.kind = InterleavingItemKind::Barrier;
      it.event = i;
      it.cursor = it.last_cursor = i - v.L->first_event;
      it.warp = e.warp;
      it.block = int64_t(e.b);
      it.what = fmt::format("barrier {} released ({} threads)", e.aux, e.a);
      flush_others();
      out.push_back(std::move(it));
    } else if (k == EventKind::WarpStep && (e.aux == uint16_t(InstrClass::Fence) ||
                                            (e.aux == uint16_t(InstrClass::WarpSync) && inv.same_warp_race))) {
      if (!inv.warps.count(e.warp)) continue;
      int lane = -1;
      for (uint64_t key : inv.threads)
        if ((key >> 8) == e.warp && ((e.a >> (key & 0xff)) & 1)) {
          lane = int(key & 0xff);
          break;
        }
      if (lane < 0) continue;
      InterleavingItem it;
      it.kind = e.aux == uint16_t(InstrClass::Fence) ? InterleavingItemKind::Fence : InterleavingItemKind::WarpSync;
      it.event = i;
      it.cursor = it.last_cursor = i - v.L->first_event;
      it.warp = e.warp;
      it.lane = uint8_t(lane);
      it.lanes = 1u << lane;
      it.time = e.time;
      it.block = v.block_of(e.warp);
      it.thread = v.thread_of(e.warp, uint8_t(lane));
      it.line = uint32_t(e.b & 0xffffffffu);
      const uint32_t fid = uint32_t(e.b >> 48);
      if (fid < v.files.size()) it.file = v.files[fid];
      it.what = it.kind == InterleavingItemKind::Fence ? "fence" : "warp sync";
      flush_others();
      out.push_back(std::move(it));
    } else if (k == EventKind::Report && i == report_event) {
      InterleavingItem it;
      it.kind = InterleavingItemKind::Report;
      it.event = i;
      it.cursor = it.last_cursor = i - v.L->first_event;
      it.warp = e.warp;
      it.lane = e.lane;
      it.block = v.block_of(e.warp);
      it.thread = v.thread_of(e.warp, e.lane);
      it.line = uint32_t(e.b);
      const nlohmann::json* rj = t.report_by_id(e.a);
      const std::string kind = rj ? json_string(*rj, "kind") : std::string();
      it.what = fmt::format("report {}{} is raised here", report_id, kind.empty() ? "" : " (" + kind + ")");
      flush_others();
      out.push_back(std::move(it));
    }
  }
  flush_others();
  return out;
}

// Merges repeated identical items and cuts long runs of synchronization items.
std::vector<InterleavingItem> compact(std::vector<InterleavingItem> all, bool cut_sync_runs) {
  std::vector<InterleavingItem> in;
  for (InterleavingItem& it : all) {
    if (!in.empty() && same_instruction(in.back(), it)) {
      in.back().lanes |= it.lanes;
      continue;
    }
    in.push_back(std::move(it));
  }
  std::vector<InterleavingItem> merged;
  for (InterleavingItem& it : in) {
    if (!merged.empty() && mergeable(merged.back(), it)) {
      merged.back().repeat += it.repeat;
      merged.back().last_cursor = it.last_cursor;
      continue;
    }
    merged.push_back(std::move(it));
  }
  if (!cut_sync_runs) return merged;
  std::vector<InterleavingItem> out;
  size_t i = 0;
  while (i < merged.size()) {
    if (is_location_access(merged[i]) || merged[i].kind == InterleavingItemKind::Report) {
      out.push_back(std::move(merged[i++]));
      continue;
    }
    size_t j = i;
    while (j < merged.size() && !is_location_access(merged[j]) && merged[j].kind != InterleavingItemKind::Report) ++j;
    if (j - i <= kSyncRun) {
      for (; i < j; ++i) out.push_back(std::move(merged[i]));
      continue;
    }
    const size_t keep = kSyncRun / 2 - 1;
    for (size_t k = i; k < i + keep; ++k) out.push_back(std::move(merged[k]));
    InterleavingItem gap;
    gap.kind = InterleavingItemKind::Elided;
    gap.event = merged[i + keep].event;
    gap.cursor = merged[i + keep].cursor;
    gap.last_cursor = merged[j - keep - 1].last_cursor;
    gap.repeat = 0;
    for (size_t k = i + keep; k < j - keep; ++k) gap.repeat += merged[k].repeat;
    gap.what = fmt::format("{} more synchronization events", gap.repeat);
    out.push_back(std::move(gap));
    for (size_t k = j - keep; k < j; ++k) out.push_back(std::move(merged[k]));
    i = j;
  }
  return out;
}

size_t count_touching(const LaunchView& v, const Location& loc, size_t lo, size_t hi) {
  size_t n = 0;
  for (size_t i = lo; i < hi; ++i)
    if (v.touches(v.t->event(i), loc)) ++n;
  return n;
}

// ---- 5. the explanation ------------------------------------------------------------------------

std::string short_thread(const InterleavingItem& it) {
  if (it.block >= 0 && it.thread >= 0) return fmt::format("block {} thread {}", it.block, it.thread);
  return fmt::format("warp {} lane {}", it.warp, it.lane);
}

std::string count_word(size_t n) {
  static const char* words[] = {"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};
  return n < 10 ? words[n] : fmt::format("{}", n);
}

// A thread's read-then-write of the location: its last load before its first store after it.
struct Update {
  size_t load = 0, store = 0;  // indices into the access list
  uint64_t read = 0, wrote = 0;
  uint64_t thread = 0;
};

// The lost update, from the accesses to the location in trace order (each a plain load or store):
// a group of threads that each loaded the same V and then stored, with every load of the group
// before every store of the group.
std::string explain(const std::vector<InterleavingItem>& acc, const InterleavingItem* racing_later) {
  std::set<uint64_t> racing;
  for (const InterleavingItem& a : acc)
    if (a.racing) racing.insert(thread_key(a.warp, a.lane));
  std::map<uint64_t, size_t> last_load;  // thread -> index into acc of its pending load
  std::vector<Update> ups;
  for (size_t i = 0; i < acc.size(); ++i) {
    const InterleavingItem& a = acc[i];
    const uint64_t key = thread_key(a.warp, a.lane);
    if (a.kind == InterleavingItemKind::Load) {
      last_load[key] = i;
    } else if (a.kind == InterleavingItemKind::Store) {
      auto it = last_load.find(key);
      if (it == last_load.end()) continue;
      ups.push_back({it->second, i, acc[it->second].value, a.value, key});
      last_load.erase(it);
    } else {
      last_load.erase(key);  // an atomic is its own read-modify-write
    }
  }
  if (ups.size() < 2) return "";
  // Seed: the update that holds the later racing access (else the first one), then every update
  // that overlaps the whole group and read the same value.
  size_t seed = 0;
  if (racing_later)
    for (size_t u = 0; u < ups.size(); ++u)
      if (acc[ups[u].store].event == racing_later->event || acc[ups[u].load].event == racing_later->event) seed = u;
  std::vector<Update> group{ups[seed]};
  for (size_t u = 0; u < ups.size(); ++u) {
    if (u == seed || ups[u].read != ups[seed].read) continue;
    bool overlaps = true;
    for (const Update& g : group)
      overlaps &= ups[u].load < g.store && g.load < ups[u].store && ups[u].thread != g.thread;
    if (overlaps) group.push_back(ups[u]);
  }
  if (group.size() < 2) return "";
  std::sort(group.begin(), group.end(), [](const Update& a, const Update& b) { return a.store < b.store; });
  const uint64_t v = group[0].read;
  bool same = true;
  for (const Update& g : group) same &= g.wrote == group[0].wrote;
  // Named in load order, the racing threads first (they are the ones the report names).
  std::vector<InterleavingItem> by_load;
  for (const Update& g : group) by_load.push_back(acc[g.load]);
  std::stable_sort(by_load.begin(), by_load.end(), [&](const InterleavingItem& a, const InterleavingItem& b) {
    const bool ra = racing.count(thread_key(a.warp, a.lane)) != 0, rb = racing.count(thread_key(b.warp, b.lane)) != 0;
    if (ra != rb) return ra;
    return a.event < b.event;
  });
  std::string who;
  if (group.size() == 2) {
    who = fmt::format("{} and {} both read {} before either stored", short_thread(by_load[0]), short_thread(by_load[1]),
                      value_text(v));
  } else {
    who = fmt::format("{} threads ({}, {}, ...) all read {} before any of them stored", group.size(),
                      short_thread(by_load[0]), short_thread(by_load[1]), value_text(v));
  }
  const size_t lost = group.size() - 1;
  if (same) {
    const uint64_t w = group[0].wrote;
    if (w == v + 1)
      return fmt::format("{}; each stored {}, so {} increment{} {} lost: the value is {} after them, not {}.", who,
                         value_text(w), count_word(lost), lost == 1 ? "" : "s", lost == 1 ? "is" : "are", value_text(w),
                         value_text(v + group.size()));
    return fmt::format("{}; each stored {}, so the update{} of {} of them {} lost.", who, value_text(w),
                       lost == 1 ? "" : "s", count_word(lost), lost == 1 ? "is" : "are");
  }
  const InterleavingItem& last = acc[group.back().store];
  std::string stores;
  for (size_t i = 0; i < group.size() && i < 4; ++i)
    stores += fmt::format("{}{}", i ? ", " : "", value_text(group[i].wrote));
  if (group.size() > 4) stores += ", ...";
  return fmt::format(
      "{}; they stored {} in that order, so the last store ({}'s {}) overwrote the others, computed "
      "from the same {}: {} update{} {} lost.",
      who, stores, short_thread(last), value_text(last.value), value_text(v), count_word(lost), lost == 1 ? "" : "s",
      lost == 1 ? "is" : "are");
}

}  // namespace

// ---- 6. find_interleaving ------------------------------------------------------------------------

const char* mem_order_name(uint8_t order) { return order_word(order); }

bool parse_interleaving_address(const std::string& text, uint64_t* address, bool* shared, std::string* error) {
  std::string s = text;
  *shared = false;
  if (s.rfind("shared:", 0) == 0) {
    *shared = true;
    s = s.substr(7);
  }
  int base = 10;
  size_t at = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    at = 2;
  }
  if (at >= s.size()) {
    *error = fmt::format("'{}' is not an address: expected hex (0x7f00), decimal (32512) or shared:OFFSET", text);
    return false;
  }
  uint64_t v = 0;
  for (size_t i = at; i < s.size(); ++i) {
    const char c = char(std::tolower(static_cast<unsigned char>(s[i])));
    int d = -1;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    if (d < 0 || v > (~0ull - uint64_t(d)) / uint64_t(base)) {
      *error = fmt::format("'{}' is not an address: expected hex (0x7f00), decimal (32512) or shared:OFFSET", text);
      return false;
    }
    v = v * uint64_t(base) + uint64_t(d);
  }
  *address = v;
  return true;
}

namespace {

// What find_interleaving has found so far: each step below fills in its part, in this order.
struct Search {
  const nlohmann::json* report = nullptr;  // the report followed (null: an address alone)
  int64_t report_id = -1;
  size_t rep_event = SIZE_MAX;  // the report's Report event
  int launch = -1;
  uint64_t want_addr = 0;  // the address asked for (or the one the report's text names)
  bool want_shared = false;
  Location loc;
  bool have_loc = false;
  RacePair race;  // the racing pair, when have_race
  bool have_race = false;
};

// Step 1, which report: the one asked for, or with neither a report nor an address the race report
// of the smallest id.
bool pick_report(const Trace& t, const InterleavingRequest& req, Interleaving& il, Search& s, std::string* error) {
  s.report_id = req.report;
  if (s.report_id < 0 && req.address.empty()) {
    for (const nlohmann::json& r : t.reports) {
      int64_t id = -1;
      if (json_string(r, "kind") == "race" && json_int(r, "id", &id) && (s.report_id < 0 || id < s.report_id))
        s.report_id = id;
    }
    if (s.report_id < 0) {
      *error = t.reports.empty()
                   ? "the trace has no reports; give an address to follow (--address 0x...; `synclab-trace summary` "
                     "lists the regions)"
                   : fmt::format(
                         "the trace has no race report (it has {} other report{}); pick one with --report N "
                         "(`synclab-trace summary` numbers them) or an address with --address A",
                         t.reports.size(), t.reports.size() == 1 ? "" : "s");
      return false;
    }
    il.picked_default = true;
    // A report of another kind made before it (a barrier divergence, a hang): the race may be one
    // of its consequences.
    for (const nlohmann::json& r : t.reports) {
      int64_t id = -1;
      if (json_string(r, "kind") != "race" && json_int(r, "id", &id) && id < s.report_id &&
          (il.earlier_id < 0 || id < il.earlier_id)) {
        il.earlier_id = id;
        il.earlier_kind = json_string(r, "kind");
        il.earlier_title = json_string(r, "title");
      }
    }
  }
  if (s.report_id < 0) return true;
  s.report = t.report_by_id(uint64_t(s.report_id));
  if (!s.report) {
    std::string ids;
    for (const nlohmann::json& r : t.reports) {
      int64_t id = -1;
      if (json_int(r, "id", &id)) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    }
    *error = t.reports.empty() ? fmt::format("there is no report {}: the trace has no reports", s.report_id)
                               : fmt::format(
                                     "there is no report {}: the trace's reports are {} (as `synclab-trace summary` "
                                     "numbers them)",
                                     s.report_id, ids);
    return false;
  }
  il.report = s.report_id;
  il.report_kind = json_string(*s.report, "kind");
  il.report_title = json_string(*s.report, "title");
  return true;
}

// Step 2, which launch: the report's (and its Report event), or the one asked for (-1: not yet known).
bool pick_launch(const Trace& t, const InterleavingRequest& req, const Interleaving& il, Search& s,
                 std::string* error) {
  if (s.report) {
    s.launch = report_launch(t, *s.report, uint64_t(s.report_id), &s.rep_event);
    if (s.launch < 0) {
      *error = fmt::format("report {} ({}) belongs to no launch recorded in this trace", s.report_id,
                           il.report_kind.empty() ? "no kind" : il.report_kind);
      return false;
    }
  } else if (req.launch >= 0) {
    if (size_t(req.launch) >= t.launches.size()) {
      *error = fmt::format("there is no launch {}: the trace has {} launch{}", req.launch, t.launches.size(),
                           t.launches.size() == 1 ? "" : "es");
      return false;
    }
    s.launch = req.launch;
  }
  return true;
}

// Step 3, the location from the report: its racing pair's bytes or, without an address asked for,
// the address its text names.
bool locate_by_report(const Trace& t, const InterleavingRequest& req, Interleaving& il, Search& s, std::string* error) {
  if (!s.report) return true;
  const LaunchView v = view_of(t, s.launch);
  if (locate_race(v, *s.report, s.rep_event, &s.race) && il.report_kind == "race") {
    s.have_race = true;
    il.notes = s.race.notes;
  }
  if (!req.address.empty()) return true;
  if (s.have_race) {
    s.loc = s.race.loc;
    s.have_loc = true;
    return true;
  }
  uint64_t a = 0;
  if (address_in_text(json_string(*s.report, "text"), &a)) {
    s.want_addr = a;
    s.want_shared = false;
    return true;
  }
  *error = fmt::format(
      "report {} ({}{}{}) names no memory address{}: give one with --address A (`synclab-trace summary` lists the "
      "regions)",
      s.report_id, il.report_kind.empty() ? "no kind" : il.report_kind, il.report_title.empty() ? "" : ": ",
      il.report_title, il.report_kind == "race" ? " and the trace has no access of its threads" : "");
  return false;
}

// Why no access of s.launch (any launch when -1) touches the address asked for: inside a region,
// accessed elsewhere, or outside everything the trace knows (which it then lists).
std::string unaccessed_address(const Trace& t, const InterleavingRequest& req, const Search& s) {
  std::vector<Range> accessed, shared_accessed;
  for (size_t li = 0; li < t.launches.size(); ++li) {
    const Launch& L = t.launches[li];
    for (size_t i = L.first_event; i < L.end_event; ++i) {
      const Event& e = t.event(i);
      if (!is_access(e)) continue;
      (access_space(e) == MemSpace::Shared ? shared_accessed : accessed).push_back({e.a, e.a + access_size(e)});
    }
  }
  accessed = merge_ranges(std::move(accessed));
  shared_accessed = merge_ranges(std::move(shared_accessed));
  const std::vector<Range> regions = region_ranges(t);
  const std::string what = s.want_shared ? fmt::format("shared memory offset 0x{:x}", s.want_addr)
                                         : fmt::format("address 0x{:x}", s.want_addr);
  const std::string where = s.launch >= 0 ? fmt::format(" in launch {}", s.launch) : std::string();
  bool in_region = false;
  for (const Range& r : regions) in_region |= !s.want_shared && s.want_addr >= r.lo && s.want_addr < r.hi;
  if (in_region)
    return fmt::format("nothing accessed {} ({}){}: no load, store or atomic touches it in the trace", what,
                       region_text(t, s.want_addr), where);
  bool accessed_elsewhere = false;
  for (const Range& r : s.want_shared ? shared_accessed : accessed)
    accessed_elsewhere |= s.want_addr >= r.lo && s.want_addr < r.hi;
  if (accessed_elsewhere)
    return s.want_shared && req.block >= 0 ? fmt::format("nothing in block {} accessed {}{}", req.block, what, where)
                                           : fmt::format("nothing accessed {}{} (other launches did)", what, where);
  std::string known;
  for (const nlohmann::json& r : t.regions) {
    uint64_t a = 0, n = 0;
    if (!r.is_object() || !r.contains("address") || !r["address"].is_number_unsigned() || !r.contains("bytes") ||
        !r["bytes"].is_number_integer())
      continue;
    a = r["address"].get<uint64_t>();
    n = r["bytes"].get<uint64_t>();
    known += fmt::format("{}region \"{}\" 0x{:x} (+{} bytes)", known.empty() ? "" : ", ", json_string(r, "name"), a, n);
  }
  if (!accessed.empty()) known += std::string(known.empty() ? "" : "; ") + "accessed: " + ranges_text(accessed, 6);
  if (!shared_accessed.empty())
    known += std::string(known.empty() ? "" : "; ") + "shared memory offsets " + ranges_text(shared_accessed, 4) +
             " (--address shared:OFFSET)";
  return fmt::format("{} is outside every region and every range the trace's accesses touch{}", what,
                     known.empty() ? " (the trace records no memory accesses at all)" : "; known: " + known);
}

// Step 4, the location from an address: the launch and block of the first access that touches it;
// without a report, a race report of that launch on these bytes gives the window.
bool locate_by_address(const Trace& t, const InterleavingRequest& req, Interleaving& il, Search& s,
                       std::string* error) {
  if (s.have_loc) return true;
  size_t first_hit = SIZE_MAX;
  int hit_launch = -1;
  int64_t hit_block = -1;
  uint32_t hit_size = 0;
  for (size_t li = 0; li < t.launches.size() && first_hit == SIZE_MAX; ++li) {
    if (s.launch >= 0 && int(li) != s.launch) continue;
    const LaunchView v = view_of(t, int(li));
    for (size_t i = v.L->first_event; i < v.L->end_event; ++i) {
      const Event& e = t.event(i);
      if (!is_access(e)) continue;
      const bool sh = access_space(e) == MemSpace::Shared;
      const uint64_t lo = e.a, hi = e.a + access_size(e);
      if (sh != s.want_shared) continue;
      if (sh && req.block >= 0 && v.block_of(e.warp) != req.block) continue;
      if (s.want_addr >= lo && s.want_addr < hi) {
        first_hit = i;
        hit_launch = int(li);
        hit_block = sh ? v.block_of(e.warp) : -1;
        hit_size = access_size(e);
        break;
      }
    }
  }
  if (first_hit == SIZE_MAX) {
    *error = unaccessed_address(t, req, s);
    return false;
  }
  if (s.launch < 0) s.launch = hit_launch;
  Location& loc = s.loc;
  loc.shared = s.want_shared;
  loc.block = hit_block;
  loc.address = s.want_addr;
  // The bytes of the first access that touches the address, from the address on: a whole word
  // when the address is the word's start.
  loc.bytes = std::max<uint32_t>(1, uint32_t(t.event(first_hit).a + hit_size - s.want_addr));
  s.have_loc = true;
  if (s.report) return true;
  const LaunchView v = view_of(t, s.launch);
  for (const nlohmann::json& r : t.reports) {
    int64_t id = -1;
    if (json_string(r, "kind") != "race" || !json_int(r, "id", &id)) continue;
    size_t ev = SIZE_MAX;
    if (report_launch(t, r, uint64_t(id), &ev) != s.launch) continue;
    RacePair rp;
    if (!locate_race(v, r, ev, &rp)) continue;
    const Location& o = rp.loc;
    if (o.shared != loc.shared || o.block != loc.block) continue;
    if (!(o.address < loc.address + loc.bytes && loc.address < o.address + o.bytes)) continue;
    s.report = &r;
    s.report_id = id;
    s.rep_event = ev;
    s.race = rp;
    s.have_race = true;
    il.report = id;
    il.report_kind = "race";
    il.report_title = json_string(r, "title");
    il.notes = rp.notes;
    il.notes.push_back(
        fmt::format("report {} is a race on these bytes{}", id,
                    req.all ? "; >> marks its two accesses" : ": the window is around its two accesses"));
    break;
  }
  return true;
}

// Step 5, the threads whose synchronization is shown: the racing pair's, or the threads the report
// names (an address alone: added with the window, involve_accessors).
Involved involved_threads(const LaunchView& v, const Search& s) {
  Involved inv;
  if (s.have_race) {
    const Event& a = v.t->event(s.race.first);
    const Event& b = v.t->event(s.race.second);
    // (The host is no thread of the launch: its accesses are listed, it has no synchronization here.)
    if (!is_host_access(a)) inv.add(v, a.warp, a.lane);
    if (!is_host_access(b)) inv.add(v, b.warp, b.lane);
    inv.same_warp_race = a.warp == b.warp && !is_host_access(a) && !is_host_access(b);
  } else if (s.report) {
    for (const Party& p : parties_of(v, *s.report))
      if (p.valid && p.lane >= 0 && inv.threads.size() < 64) inv.add(v, p.warp, uint8_t(p.lane));
  }
  if (s.loc.shared) inv.blocks.insert(s.loc.block);
  return inv;
}

// The event before `from` (and after `first`) that releases a barrier of one of inv's blocks, or `first`.
size_t last_barrier_before(const Trace& t, const Involved& inv, size_t first, size_t from) {
  for (size_t i = from; i > first; --i) {
    const Event& e = t.event(i - 1);
    if (e.kind == uint8_t(EventKind::BarrierRelease) && inv.blocks.count(int64_t(e.b))) return i - 1;
  }
  return first;
}

// Step 6, the window [*lo, *hi] of the launch's events: for a race, from the racing threads' blocks'
// last barrier before the earlier access to the later one (and the write half of a racing thread's
// read-modify-write); for another report, from the last barrier before it to it.
void window(const LaunchView& v, const InterleavingRequest& req, const Search& s, const Involved& inv, size_t* lo,
            size_t* hi) {
  const Trace& t = *v.t;
  const size_t first = v.L->first_event, end = v.L->end_event;
  *lo = first;
  *hi = end - 1;
  if (req.all) return;
  if (s.have_race) {
    const Location& loc = s.loc;
    *lo = last_barrier_before(t, inv, first, s.race.first);
    // ... to the later access; a racing thread whose last access up to there was a load also gets
    // its next access when that is a store before their blocks' next barrier (the write half of
    // its read-modify-write: what makes an update lost).
    *hi = s.race.second;
    // The rest of the later access's instruction: lanes of one warp storing together.
    for (size_t i = s.race.second + 1;
         !is_host_access(t.event(s.race.second)) && i < end && t.event(i).time == t.event(s.race.second).time; ++i)
      if (t.event(i).warp == t.event(s.race.second).warp && v.touches(t.event(i), loc)) *hi = i;
    std::map<uint64_t, bool> last_was_load;  // racing thread -> its last access up to hi was a load
    for (size_t i = s.race.second + 1; i > first; --i) {
      const Event& e = t.event(i - 1);
      const uint64_t key = thread_key(e.warp, e.lane);
      if (!v.touches(e, loc) || !inv.threads.count(key) || last_was_load.count(key)) continue;
      last_was_load[key] = e.kind == uint8_t(EventKind::MemAccess) && !access_write(e);
      if (last_was_load.size() == inv.threads.size()) break;
    }
    size_t pending = 0;
    for (const auto& kv : last_was_load) pending += kv.second;
    for (size_t i = s.race.second + 1; i < end && pending; ++i) {
      const Event& e = t.event(i);
      if (e.kind == uint8_t(EventKind::BarrierRelease) && inv.blocks.count(int64_t(e.b))) break;
      const uint64_t key = thread_key(e.warp, e.lane);
      if (!v.touches(e, loc) || !inv.threads.count(key)) continue;
      auto it = last_was_load.find(key);
      if (it == last_was_load.end() || !it->second) continue;
      it->second = false;
      --pending;
      if (e.kind == uint8_t(EventKind::MemAccess) && access_write(e)) *hi = i;
    }
  } else if (s.report && s.rep_event != SIZE_MAX) {
    *hi = s.rep_event;
    *lo = last_barrier_before(t, inv, first, s.rep_event);
  }
}

// Step 7, the items cut: before the earlier racing access at most kShownBefore accesses; without a
// race at most kShownNoRace before the report (kShownAddress for an address alone, cut at the end
// instead). What is cut counts in *hidden_before and *hidden_after.
void cut_items(std::vector<InterleavingItem>& items, const Search& s, const Involved& inv, size_t* hidden_before,
               size_t* hidden_after) {
  size_t stop = items.size();
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].racing) {
      stop = i;
      break;
    }
  const size_t limit = s.have_race ? kShownBefore : s.report ? kShownNoRace : SIZE_MAX;
  if (limit == SIZE_MAX) {
    size_t n = 0, keep = items.size();
    for (size_t i = 0; i < items.size(); ++i) {
      if (!is_location_access(items[i])) continue;
      if (++n > kShownAddress) {
        keep = i;
        break;
      }
    }
    for (size_t i = keep; i < items.size(); ++i)
      if (is_location_access(items[i])) *hidden_after += items[i].repeat;
    items.resize(keep);
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < stop; ++i) n += is_location_access(items[i]);
  // Drop the oldest accesses first, but keep the involved threads' own (a racing thread's load
  // before its store is half of the story); dropped runs in the middle become one line.
  std::vector<InterleavingItem> kept;
  InterleavingItem run = elided_run();
  auto flush_run = [&] { flush_elided(run, kept); };
  for (size_t i = 0; i < items.size(); ++i) {
    InterleavingItem& it = items[i];
    const bool own = inv.threads.count(thread_key(it.warp, it.lane)) != 0;
    if (i < stop && n > limit && is_location_access(it) && !own) {
      --n;
      bool front = true;  // nothing but synchronization kept so far
      for (const InterleavingItem& k : kept) front &= !is_location_access(k) && k.kind != InterleavingItemKind::Elided;
      if (front) {
        *hidden_before += it.repeat;
        kept.clear();  // synchronization before the first access shown says nothing
      } else {
        if (!run.repeat) run.event = it.event, run.cursor = it.cursor;
        run.last_cursor = it.last_cursor;
        run.repeat += it.repeat;
      }
      continue;
    }
    flush_run();
    kept.push_back(std::move(it));
  }
  flush_run();
  items = std::move(kept);
  // Of the synchronization before the first access listed, the last few are context enough.
  size_t f = 0;
  while (f < items.size() && !is_location_access(items[f])) ++f;
  if (f > 3) items.erase(items.begin(), items.begin() + long(f - 3));
}

}  // namespace

bool find_interleaving(const Trace& t, const InterleavingRequest& req, Interleaving* out, std::string* error) {
  *out = Interleaving{};
  Interleaving& il = *out;
  for (const nlohmann::json& r : t.reports)
    if (json_string(r, "kind") == "race") ++il.race_reports;

  Search s;
  if (!pick_report(t, req, il, s, error) || !pick_launch(t, req, il, s, error)) return false;
  if (!req.address.empty() && !parse_interleaving_address(req.address, &s.want_addr, &s.want_shared, error))
    return false;
  if (!locate_by_report(t, req, il, s, error) || !locate_by_address(t, req, il, s, error)) return false;

  const Location& loc = s.loc;
  const LaunchView v = view_of(t, s.launch);
  il.launch = s.launch;
  il.space = loc.shared ? MemSpace::Shared : MemSpace::Global;
  il.block = loc.block;
  il.address = loc.address;
  il.bytes = loc.bytes;
  il.location = location_text(t, loc);
  if (loc.shared) {
    il.place = fmt::format("shared 0x{:x} of block {}", loc.address, loc.block);
  } else {
    il.place = region_text(t, loc.address, true);
    if (il.place.empty()) il.place = fmt::format("global 0x{:x}", loc.address);
  }
  if (v.L->event_count() == 0) {
    *error = fmt::format("launch {} has no events in this trace (recording filtered it out?)", s.launch);
    return false;
  }
  // Keep the racing pair only when it is on the location asked for.
  if (s.have_race &&
      !(s.race.loc.shared == loc.shared && s.race.loc.block == loc.block &&
        s.race.loc.address < loc.address + loc.bytes && loc.address < s.race.loc.address + s.race.loc.bytes))
    s.have_race = false;
  if (s.have_race && s.race.first == s.race.second) s.have_race = false;

  Involved inv = involved_threads(v, s);
  size_t lo = 0, hi = 0;
  window(v, req, s, inv, &lo, &hi);
  il.windowed = !req.all;
  // For an address alone, the threads are those that access it (their barriers, fences, ...).
  if (!s.report)
    for (size_t i = lo; i <= hi; ++i) {
      const Event& e = t.event(i);
      if (v.touches(e, loc) && inv.threads.size() < 64) inv.add(v, e.warp, e.lane);
    }

  std::vector<InterleavingItem> raw =
      collect(v, loc, inv, lo, hi, s.rep_event, s.report_id, s.have_race && !req.all ? s.race.second : SIZE_MAX);
  if (s.have_race)
    for (InterleavingItem& it : raw)
      if (it.event == s.race.first || it.event == s.race.second) {
        it.racing = true;
        if (it.host && s.race.host_line) {
          it.line = s.race.host_line;
          it.file = s.race.host_file;
        }
      }

  // The explanation reads the plain accesses of the window (before any are cut).
  {
    std::vector<InterleavingItem> acc;
    const InterleavingItem* later = nullptr;
    for (const InterleavingItem& it : raw)
      if (is_location_access(it) && !it.host) acc.push_back(it);
    for (const InterleavingItem& it : acc)
      if (it.racing && s.have_race && it.event == s.race.second) later = &it;
    il.explanation = explain(acc, later);
  }

  std::vector<InterleavingItem> items = compact(std::move(raw), !req.all);
  const size_t first = v.L->first_event, end = v.L->end_event;
  size_t hidden_before = count_touching(v, loc, first, lo);
  size_t hidden_after = hi + 1 < end ? count_touching(v, loc, hi + 1, end) : 0;
  if (!req.all) cut_items(items, s, inv, &hidden_before, &hidden_after);
  il.items = std::move(items);
  il.hidden_before = hidden_before;
  il.hidden_after = hidden_after;
  for (size_t i = 0; i < il.items.size(); ++i)
    if (il.items[i].racing) {
      if (il.racing[0] < 0)
        il.racing[0] = int(i);
      else
        il.racing[1] = int(i);
    }
  return true;
}

// ---- 7. text ------------------------------------------------------------------------------------

std::string interleaving_thread_name(const InterleavingItem& it, bool brief) {
  if (it.host) return "the host";
  if (it.kind == InterleavingItemKind::Barrier) return it.block >= 0 ? fmt::format("block {}", it.block) : "";
  if (it.kind == InterleavingItemKind::Elided || it.kind == InterleavingItemKind::Report) return "";
  if (it.lane == kAllLanes) return it.block >= 0 ? fmt::format("block {}", it.block) : fmt::format("warp {}", it.warp);
  if (it.lanes && (it.lanes & (it.lanes - 1))) {  // several lanes
    const int64_t base = it.thread >= 0 ? it.thread - it.lane : -1;
    std::string lanes, threads;
    for (int i = 0; i < 32;) {
      if (!((it.lanes >> i) & 1)) {
        ++i;
        continue;
      }
      int j = i;
      while (j + 1 < 32 && ((it.lanes >> (j + 1)) & 1)) ++j;
      const std::string sep = lanes.empty() ? "" : ",";
      lanes += sep + (i == j ? fmt::format("{}", i) : fmt::format("{}-{}", i, j));
      if (base >= 0) threads += sep + (i == j ? fmt::format("{}", base + i) : fmt::format("{}-{}", base + i, base + j));
      i = j + 1;
    }
    if (base >= 0 && brief) return fmt::format("block {} threads {}", it.block, threads);
    // Warp 0 of a block: thread numbers are the lane numbers, said once.
    if (base == 0) return fmt::format("block {} threads {} (warp 0)", it.block, threads);
    if (base >= 0) return fmt::format("block {} threads {} (warp {} lanes {})", it.block, threads, base / 32, lanes);
    return fmt::format("warp {} lanes {}", it.warp, lanes);
  }
  if (it.block >= 0 && it.thread >= 0 && brief) return fmt::format("block {} thread {}", it.block, it.thread);
  if (it.block >= 0 && it.thread >= 0)
    return fmt::format("block {} thread {} (warp {} lane {})", it.block, it.thread, it.thread / 32, it.lane);
  return fmt::format("warp {} lane {}", it.warp, it.lane);
}

std::string interleaving_item_text(const InterleavingItem& it) {
  std::string s;
  switch (it.kind) {
    case InterleavingItemKind::Load:
    case InterleavingItemKind::Store: s = fmt::format("{} {}", it.what, value_text(it.value)); break;
    case InterleavingItemKind::Atomic:
      s = fmt::format("{} {} -> {}", it.what, value_text(it.value), value_text(it.new_value));
      break;
    case InterleavingItemKind::SyncAccess: {
      const std::string at = it.space == MemSpace::Shared ? fmt::format("shared 0x{:x}", it.address)
                             : it.place.empty()           ? fmt::format("0x{:x}", it.address)
                                                          : it.place;
      if (it.what.find("atomic") != std::string::npos)
        s = fmt::format("{} {} -> {} at {}", it.what, value_text(it.value), value_text(it.new_value), at);
      else
        s = fmt::format("{} {} at {}", it.what, value_text(it.value), at);
      break;
    }
    default: s = it.what;
  }
  if (it.repeat > 1 && it.kind != InterleavingItemKind::Elided)
    s += fmt::format(" ({} times, the last at event {})", it.repeat, it.last_cursor);
  return s;
}

void write_interleaving(const Trace& t, const Interleaving& il, std::ostream& out) {
  if (il.report >= 0) {
    out << fmt::format("report {} ({}): {}\n", il.report, il.report_kind.empty() ? "-" : il.report_kind,
                       il.report_title);
    if (il.picked_default && il.race_reports == 1) out << "  the only race report in this trace\n";
    if (il.picked_default && il.race_reports > 1)
      out << fmt::format(
          "  the first of {} race reports in this trace; --report N shows another (N as "
          "`synclab-trace summary` numbers them)\n",
          il.race_reports);
    if (il.picked_default && il.earlier_id >= 0)
      out << fmt::format(
          "  report {} ({}: {}) came before it in this run: a race that follows a barrier divergence or a hang\n"
          "  may be one of its consequences: fix what that report says first (the run prints it;\n"
          "  `synclab-trace summary` lists the reports)\n",
          il.earlier_id, il.earlier_kind.empty() ? "-" : il.earlier_kind, il.earlier_title);
  }
  if (il.launch >= 0 && size_t(il.launch) < t.launches.size()) {
    const Launch& L = t.launches[size_t(il.launch)];
    out << fmt::format("launch {}: {} grid ({},{},{}) block ({},{},{})\n", il.launch,
                       L.display.empty() ? "?" : L.display, L.grid[0], L.grid[1], L.grid[2], L.block[0], L.block[1],
                       L.block[2]);
  }
  out << "location: " << il.location << "\n";
  for (const std::string& n : il.notes) out << "note: " << n << "\n";
  out << "\n";
  if (il.hidden_before)
    out << fmt::format("   ({} earlier access{} to it not shown; --all shows the whole launch)\n", il.hidden_before,
                       il.hidden_before == 1 ? "" : "es");
  size_t thread_w = 6, text_w = 0;
  for (const InterleavingItem& it : il.items) {
    thread_w = std::max(thread_w, interleaving_thread_name(it).size());
    if (it.kind != InterleavingItemKind::Report)  // has no source column: may stick out
      text_w = std::max(text_w, interleaving_item_text(it).size() + (is_location_access(it) ? 0 : 2));
  }
  out << fmt::format("   {:>7}  {:<{}}  {:<{}}  {}\n", "event", "thread", thread_w, "access", text_w, "source");
  for (const InterleavingItem& it : il.items) {
    const char* mark = it.racing ? ">>" : "  ";
    std::string text = interleaving_item_text(it);
    if (it.kind == InterleavingItemKind::Elided) text += " (--all shows them)";
    // Synchronization is indented under "access" so the accesses stand out.
    if (!is_location_access(it))
      text = (it.kind == InterleavingItemKind::Report   ? "- "
              : it.kind == InterleavingItemKind::Elided ? ". "
                                                        : "| ") +
             text;
    std::string src;
    if (it.line && it.kind != InterleavingItemKind::Report && it.kind != InterleavingItemKind::Barrier)
      src = it.file.empty() ? fmt::format("line {}", it.line) : fmt::format("{}:{}", base_name(it.file), it.line);
    std::string line = fmt::format("{} {:>7}  {:<{}}  {:<{}}  {}", mark, it.cursor, interleaving_thread_name(it),
                                   thread_w, text, text_w, src);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  if (il.hidden_after)
    out << fmt::format("   ({} later access{} to it not shown; --all shows the whole launch)\n", il.hidden_after,
                       il.hidden_after == 1 ? "" : "es");
  if (il.items.empty()) out << "   (no events in this window)\n";
  if (!il.explanation.empty()) out << "\n" << il.explanation << "\n";
  bool sync = false;
  for (const InterleavingItem& it : il.items)
    sync |= !is_location_access(it) && it.kind != InterleavingItemKind::Report;
  out << "\nevent: its number in the launch (synclab-viz TRACE --step EVENT shows it)";
  if (il.racing[0] >= 0) out << "; >>: the two accesses the report names";
  if (sync) out << "; |: synchronization of the threads involved";
  out << "\n";
}

}  // namespace synclab::trace
