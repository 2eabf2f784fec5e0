// App: cursor, playback, shortcuts, the tiled layout and the main menu. The windows are in win_*.cpp.
//
// Where things are (the sections below, in this order):
//   Window names      titles and keys (kWindows, window_title, window_key, window_from_key, window_keys_list)
//   Layout recorder   LayoutRecorder::add: a drawn cell's rectangle, colour and meaning
//   Texts             every text drawn, measured against its clip rectangle (LayoutRecorder::add_text,
//                     g_text_recorder); find (a cell by id); LayoutRecorder::json, the --dump-layout file
//   App               the constructor and replace_model; launch and cursor (default_launch, set_launch, seek,
//                     step, jump, jump_first_interesting); reports (jump_to_report, report_interleaving,
//                     jump_to_access); select_lane; the picture and the command that exports it
//                     (request_save_picture, export_command); threads and events in words (thread_name,
//                     describe_event)
//   Per-frame state   compute_state, ensure_warps, warp_view
//   Playback and keys advance_playback; the key list (shortcuts) and handle_shortcuts
//   Layout            window rectangles (layout_rect; chosen_layout_rect for --layout; place_window); which
//                     windows are drawn (drawn, nothing_to_show); begin_window, record_window; draw_menu;
//                     frame: one frame of the whole application
//   Style             setup_imgui: the ImGui style and the font
//   Link-time wraps   ImDrawList::AddText and ImFont::RenderChar, wrapped so that add_text sees every text
#include "app.h"
#include "lecture.h"
#include "steer.h"

#include <sys/stat.h>

#include <algorithm>
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

#include <fstream>
#include <imgui_internal.h>
#include <nlohmann/json.hpp>

namespace synclab::viz::app {

namespace {
struct WindowName {
  const char* title;
  const char* key;
};
// Titles carry a stable ImGui id after "###" so the label can change without moving the window.
constexpr WindowName kWindows[kWindowCount] = {
    {"Playback", "playback"},   {"Warp lanes", "lanes"},  {"Lock bits & flags", "locks"},
    {"Wavefront", "wavefront"}, {"Timeline", "timeline"}, {"Source", "source"},
    {"Reports", "reports"},     {"Legend", "legend"},     {"Help", "help"},
};
}  // namespace

const char* window_title(WindowId w) { return kWindows[int(w)].title; }
const char* window_key(WindowId w) { return kWindows[int(w)].key; }
bool window_from_key(const std::string& key, WindowId* out) {
  for (int i = 0; i < kWindowCount; ++i)
    if (key == kWindows[i].key) {
      *out = WindowId(i);
      return true;
    }
  return false;
}
std::string window_keys_list() {
  std::string s;
  for (int i = 0; i < kWindowCount; ++i) {
    if (i) s += ", ";
    s += kWindows[i].key;
  }
  return s;
}

// ---- layout recorder ------------------------------------------------------------------------------
void LayoutRecorder::add(std::string id, ImVec2 p0, ImVec2 p1, palette::Rgb rgb, const char* what) {
  if (!enabled) return;
  LayoutCell c;
  c.x0 = p0.x, c.y0 = p0.y, c.x1 = p1.x, c.y1 = p1.y;
  c.rgb = rgb;
  c.what = what ? what : "";
  auto it = index_.find(id);
  c.id = std::move(id);
  if (it != index_.end()) {
    cells_[it->second] = std::move(c);  // drawn twice in a frame: the last one is on top
  } else {
    index_.emplace(c.id, cells_.size());
    cells_.push_back(std::move(c));
  }
}

// ---- texts (--dump-layout's "texts") -------------------------------------------------------------
// Every text ImGui draws goes through ImDrawList::AddText (RenderText, RenderTextClipped, window
// titles, buttons, table headers; the windows' own labels too), and the ellipsis of a cut table
// header through ImFont::RenderChar. viz/app/CMakeLists.txt links with --wrap for those two (and
// AddText's short form), so that while the recorder is on each is measured against its clip rectangle.
namespace {
LayoutRecorder* g_text_recorder = nullptr;  // the recorder of the App drawing the current frame
}  // namespace

void LayoutRecorder::add_text(const char* begin, const char* end, ImVec2 pos, float font_size, float wrap_width,
                              const ImVec4& clip, bool ellipsis) {
  if (!enabled || !begin) return;
  if (!end) end = begin + std::strlen(begin);
  if (begin == end) return;
  ImFont* font = ImGui::GetFont();
  const ImVec2 size = font->CalcTextSizeA(font_size, FLT_MAX, wrap_width, begin, end);
  if (pos.y >= clip.w || pos.y + size.y <= clip.y) return;  // scrolled out of view: not drawn
  LayoutCell c;
  c.id = "text:" + std::to_string(texts_.size());
  c.x0 = pos.x, c.y0 = pos.y, c.x1 = pos.x + size.x, c.y1 = pos.y + size.y;
  c.what.assign(begin, end);
  c.room_x0 = clip.x, c.room_y0 = clip.y, c.room_x1 = clip.z, c.room_y1 = clip.w;
  c.ellipsis = ellipsis;
  if (const ImGuiWindow* w = GImGui->CurrentWindow) {
    c.window = w->RootWindow ? w->RootWindow->Name : w->Name;
    c.scrolls_x = w->ScrollbarX;
    c.scrolls_y = w->ScrollbarY;
  }
  texts_.push_back(std::move(c));
}

const LayoutCell* LayoutRecorder::find(const std::string& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &cells_[it->second];
}

std::string LayoutRecorder::json(int width, int height, int launch, uint64_t cursor) const {
  nlohmann::json j;
  j["width"] = width;
  j["height"] = height;
  j["launch"] = launch;
  j["cursor"] = cursor;
  nlohmann::json cells = nlohmann::json::array();
  for (const LayoutCell& c : cells_)
    cells.push_back(
        {{"id", c.id}, {"rect", {c.x0, c.y0, c.x1, c.y1}}, {"rgb", {c.rgb.r, c.rgb.g, c.rgb.b}}, {"what", c.what}});
  j["cells"] = std::move(cells);
  nlohmann::json texts = nlohmann::json::array();
  for (const LayoutCell& c : texts_)
    texts.push_back({{"id", c.id},
                     {"rect", {c.x0, c.y0, c.x1, c.y1}},
                     {"what", c.what},
                     {"room", {c.room_x0, c.room_y0, c.room_x1, c.room_y1}},
                     {"window", c.window},
                     {"scrolls", {c.scrolls_x, c.scrolls_y}},
                     {"ellipsis", c.ellipsis}});
  j["texts"] = std::move(texts);
  j["font"] = {{"name", font.name},
               {"size_px", font.size_px},
               {"cap_height_px", font.cap_height_px},
               {"x_height_px", font.x_height_px}};
  return j.dump(1);
}

// ---- App ---------------------------------------------------------------------------------------
App::App(std::unique_ptr<Model> model, AppOptions opt) : options(std::move(opt)), model_(std::move(model)) {
  // --relative-to DIR: as given and as the file system names it (a trace names files by the path
  // the program was built from), without a trailing slash.
  if (!options.relative_to.empty()) {
    std::string dir = options.relative_to;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    relative_dirs_.push_back(dir);
    if (char* real = ::realpath(dir.c_str(), nullptr)) {
      if (real != dir) relative_dirs_.push_back(real);
      std::free(real);
    }
  }
  for (bool& o : open) o = true;
  open[int(WindowId::Help)] = false;
  // The first matrix region (else an array of several rows) is the wavefront's.
  const auto& regions = model_->regions();
  for (size_t i = 0; i < regions.size() && wavefront_ui.region < 0; ++i)
    if (regions[i].kind == RegionKind::Matrix) wavefront_ui.region = int(i);
  for (size_t i = 0; i < regions.size() && wavefront_ui.region < 0; ++i)
    if (wavefront_region(regions[i])) wavefront_ui.region = int(i);
  if (!model_->launches().empty()) set_launch(default_launch());
  if (options.interactive && !options.only_window && !model_->launches().empty()) {
    steer = std::make_unique<Steerer>(options.steer_dir, options.steer_timeout_s);
    steer->start(*this);
    std::string err;
    if (!options.challenge.empty() && !steer->set_challenge(*this, options.challenge, &err)) {
      std::fprintf(stderr, "synclab-viz: --challenge: %s\n", err.c_str());
      status_message = "--challenge: " + err;
    }
  }
}

App::~App() {
  if (g_text_recorder == &recorder) g_text_recorder = nullptr;
}

void App::replace_model(std::unique_ptr<Model> model, int launch, uint64_t cursor) {
  model_ = std::move(model);
  interleavings_.clear();
  reports_ui = ReportsUi{};
  reports_tall_ = false;
  wavefront_ui.earlier_launch = -1;
  playing = false;
  launch_ = std::max(0, std::min(launch, int(model_->launches().size()) - 1));
  player_ = std::make_unique<Player>(*model_, launch_);
  timeline_ui.launch = -1;
  state_ = State{};
  extra_state_ = State{};
  extra_state_.cursor = kNoCursor;
  cursor_ = 0;
  seek(cursor);
  layout_dirty_ = true;
}

int App::default_launch() const {
  const auto& ls = model_->launches();
  for (const LaunchInfo& l : ls)
    if (!model_->launch_reports(l.index).empty() && l.steps > 0) return l.index;
  for (const LaunchInfo& l : ls)
    if (l.steps > 0) return l.index;
  return 0;
}

uint64_t App::steps() const { return model_->launches().empty() ? 0 : launch_info().steps; }

void App::set_launch(int launch) {
  if (launch < 0 || size_t(launch) >= model_->launches().size()) return;
  launch_ = launch;
  player_ = std::make_unique<Player>(*model_, launch_);
  timeline_ui.launch = -1;  // re-fit the timeline
  selection.clear();
  jump_first_interesting();
}

bool App::has_shared_regions() const {
  for (const RegionInfo& r : model_->regions())
    if (r.shared) return true;
  return false;
}

void App::set_shared_block(uint64_t b) {
  const uint64_t blocks = model_->launches().empty() ? 1 : std::max<uint64_t>(1, launch_info().blocks);
  shared_block_ = std::min(b, blocks - 1);
  compute_state();
}

void App::seek(uint64_t c) {
  const uint64_t n = steps();
  if (n == 0) {
    cursor_ = 0;
    return;
  }
  const uint64_t to = std::min(c, n - 1);
  if (to != cursor_) status_message.clear();  // it was about the event the cursor leaves
  cursor_ = to;
}

void App::step(int64_t d) {
  const uint64_t n = steps();
  if (n == 0) return;
  int64_t c = int64_t(cursor_) + d;
  if (c < 0) c = 0;
  if (uint64_t(c) >= n) c = int64_t(n - 1);
  seek(uint64_t(c));
}

bool App::jump(Mark m, bool forward, uint32_t warp) {
  if (steps() == 0) return false;
  uint64_t c = forward ? model_->next(launch_, cursor_, m, warp) : model_->prev(launch_, cursor_, m, warp);
  if (c == kNoCursor) {
    status_message = std::string("no ") + (forward ? "next " : "previous ") + mark_name(m) +
                     (warp != kNoWarp ? " of warp " + std::to_string(warp) : std::string());
    return false;
  }
  status_message.clear();
  seek(c);
  return true;
}

void App::jump_first_interesting() {
  if (steps() == 0) {
    cursor_ = 0;
    return;
  }
  seek(model_->first_interesting(launch_));
}

void App::jump_to_report(size_t i) {
  const auto& reps = model_->reports();
  if (i >= reps.size()) return;
  const ReportInfo& r = reps[i];
  reports_ui.selected = int(i);
  if (r.launch >= 0 && r.launch != launch_) {
    launch_ = r.launch;
    player_ = std::make_unique<Player>(*model_, launch_);
    timeline_ui.launch = -1;
  }
  if (r.cursor != kNoCursor) seek(r.cursor);
  reports_ui.access = -1;
  selection.clear();
  // A race's two accesses name their threads exactly (a party's lane may be counted across the
  // grid); other reports select the lanes their parties name.
  const synclab::trace::Interleaving* il = report_interleaving(i);
  if (il && il->racing[0] >= 0 && il->launch == launch_) {
    for (int k : il->racing) {
      if (k < 0) continue;
      const synclab::trace::InterleavingItem& it = il->items[size_t(k)];
      if (it.lane > 31) continue;
      selection.lanes[it.warp] |= 1u << it.lane;
      if (selection.warp == kNoWarp) {
        selection.warp = it.warp;
        selection.lane = it.lane;
      }
    }
  } else {
    for (const ReportParty& p : r.parties) {
      if (p.warp < 0 || p.lane < 0 || p.lane > 31) continue;
      selection.lanes[uint32_t(p.warp)] |= 1u << p.lane;
      if (selection.warp == kNoWarp) {
        selection.warp = uint32_t(p.warp);
        selection.lane = p.lane;
      }
    }
  }
  lanes_ui.scroll_to_selected = true;
  source_ui.scroll = true;
}

const synclab::trace::Interleaving* App::report_interleaving(size_t i, std::string* why) {
  const auto& reps = model_->reports();
  if (i >= reps.size()) return nullptr;
  auto it = interleavings_.find(i);
  if (it == interleavings_.end()) {
    CachedInterleaving c;
    synclab::trace::InterleavingRequest req;
    req.report = int64_t(reps[i].id);
    c.ok = synclab::trace::find_interleaving(model_->trace(), req, &c.il, &c.why);
    // A launch index of the trace is a launch index of the model (both in file order).
    if (c.ok && (c.il.launch < 0 || size_t(c.il.launch) >= model_->launches().size())) {
      c.ok = false;
      c.why = "its accesses are in no launch the viewer shows";
    }
    it = interleavings_.emplace(i, std::move(c)).first;
  }
  if (!it->second.ok) {
    if (why) *why = it->second.why;
    return nullptr;
  }
  return &it->second.il;
}

void App::jump_to_access(size_t k) {
  if (reports_ui.selected < 0) return;
  const synclab::trace::Interleaving* il = report_interleaving(size_t(reports_ui.selected));
  if (!il || k >= il->items.size()) return;
  const synclab::trace::InterleavingItem& it = il->items[k];
  reports_ui.access = int(k);
  if (il->launch != launch_) set_launch(il->launch);
  seek(it.cursor);
  if (it.lane <= 31) select_lane(it.warp, it.lane);
  lanes_ui.scroll_to_selected = true;
}

void App::select_lane(uint32_t warp, int lane) {
  selection.warp = warp;
  selection.lane = lane;
  source_ui.scroll = true;
}

double App::time_fraction(uint64_t t) const {
  if (model_->launches().empty()) return 0;
  const LaunchInfo& l = launch_info();
  if (l.last_time <= l.first_time) return 1.0;
  return double(t - std::min(t, l.first_time)) / double(l.last_time - l.first_time);
}

void App::request_save_picture() {
  // <trace name without .trace>.event<N>.png in the current directory
  std::string stem = model_->path();
  const size_t slash = stem.find_last_of('/');
  if (slash != std::string::npos) stem = stem.substr(slash + 1);
  const size_t dot = stem.rfind(".trace");
  if (dot != std::string::npos && dot > 0 && dot + 6 == stem.size()) stem.resize(dot);
  save_png = stem + ".event" + std::to_string(cursor_) + ".png";
}

std::string App::export_command(const std::string& png, int width, int height) const {
  std::string cmd = "synclab-viz " + model_->path() + " --export " + png + " --step " + std::to_string(cursor_) +
                    " --size " + std::to_string(width) + "x" + std::to_string(height);
  if (launch_ != default_launch()) cmd += " --launch " + std::to_string(launch_);
  if (shared_block_ > 0 && has_shared_regions()) cmd += " --block " + std::to_string(shared_block_);
  if (selection.warp != kNoWarp && selection.lane >= 0)
    cmd += " --select " + std::to_string(selection.warp) + ":" + std::to_string(selection.lane);
  if (lecture::enabled()) cmd += " --lecture";
  for (size_t i = 0; i < options.layout.size(); ++i)
    cmd += (i ? "," : " --layout ") + std::string(window_key(options.layout[i]));
  if (!options.relative_to.empty()) cmd += " --relative-to " + options.relative_to;
  return cmd;
}

std::string App::thread_name(uint32_t warp, int lane) const {
  const LaunchInfo& l = launch_info();
  const uint32_t wpb = std::max<uint32_t>(1, l.warps_per_block);
  const uint32_t block = warp / wpb, wib = warp % wpb;
  char buf[160];
  if (lane >= 0)
    std::snprintf(buf, sizeof buf, "block %u thread %u (warp %u lane %d)", block, wib * 32 + unsigned(lane), warp,
                  lane);
  else
    std::snprintf(buf, sizeof buf, "block %u warp %u (launch warp %u)", block, wib, warp);
  return buf;
}

std::string App::describe_event(const Event& e) const {
  using synclab::trace::EventKind;
  char buf[256];
  const auto k = EventKind(e.kind);
  switch (k) {
    case EventKind::WarpStep: {
      static const char* classes[] = {"alu",       "load",  "store", "atomic", "branch", "barrier",
                                      "warp-sync", "fence", "call",  "return", "exit",   "other"};
      const char* cls = e.aux < 12 ? classes[e.aux] : "?";
      std::snprintf(buf, sizeof buf, "warp step: warp %u, mask 0x%08x (%d lanes), line %u, %s", e.warp,
                    unsigned(e.a & 0xffffffffu), __builtin_popcount(unsigned(e.a & 0xffffffffu)),
                    unsigned(e.b & 0xffffffffu), cls);
      break;
    }
    case EventKind::MemAccess:
      std::snprintf(buf, sizeof buf, "%s: warp %u lane %u, address 0x%" PRIx64 ", value %" PRIu64,
                    (e.aux & synclab::trace::kAuxWrite) ? "store" : "load", e.warp, e.lane, e.a, e.b);
      break;
    case EventKind::Atomic:
      std::snprintf(buf, sizeof buf, "atomic: warp %u lane %u, address 0x%" PRIx64 ", %u -> %u", e.warp, e.lane, e.a,
                    unsigned(e.b & 0xffffffffu), unsigned(e.b >> 32));
      break;
    case EventKind::AtomicWide:
      std::snprintf(buf, sizeof buf, "atomic (64-bit): %" PRIu64 " -> %" PRIu64, e.a, e.b);
      break;
    case EventKind::BarrierArrive:
      std::snprintf(buf, sizeof buf, "barrier %u arrive: warp %u, lanes 0x%08x (block %" PRIu64 ")", e.aux, e.warp,
                    unsigned(e.a), e.b);
      break;
    case EventKind::BarrierRelease:
      std::snprintf(buf, sizeof buf, "barrier %u release: block %" PRIu64 ", %" PRIu64 " threads", e.aux, e.b, e.a);
      break;
    case EventKind::RegionUpdate: {
      const uint32_t rid = e.aux & synclab::trace::kRegionIdMask;
      std::string name = "region " + std::to_string(rid);
      for (const RegionInfo& r : model_->regions())
        if (r.id == rid) {
          name = r.name;
          if (r.shared)  // a block's own copy: say which
            name += " (block " + std::to_string(e.warp / std::max<uint32_t>(1, launch_info().warps_per_block)) + ")";
        }
      const unsigned bytes = (e.aux & synclab::trace::kRegionBytesMask) >> synclab::trace::kRegionBytesShift;
      if (e.aux & synclab::trace::kRegionSnapshot) {
        if (bytes)
          std::snprintf(buf, sizeof buf,
                        "launch start: %s bits %" PRIu64 "..%" PRIu64 " = 0x%" PRIx64
                        " (contents before the kernel ran)",
                        name.c_str(), e.a, e.a + 8 * bytes - 1, e.b);
        else
          std::snprintf(buf, sizeof buf, "launch start: %s[%" PRIu64 "] = %" PRIu64 " (contents before the kernel ran)",
                        name.c_str(), e.a, e.b);
      } else if (bytes)
        std::snprintf(buf, sizeof buf,
                      "region update: %s bits %" PRIu64 "..%" PRIu64 " = 0x%" PRIx64 " by warp %u lane %u",
                      name.c_str(), e.a, e.a + 8 * bytes - 1, e.b, e.warp, e.lane);
      else
        std::snprintf(buf, sizeof buf, "region update: %s[%" PRIu64 "] = %" PRIu64 " by warp %u lane %u", name.c_str(),
                      e.a, e.b, e.warp, e.lane);
      break;
    }
    case EventKind::KernelBegin:
      std::snprintf(buf, sizeof buf, "kernel begin: launch %" PRIu64 ", %" PRIu64 " warps", e.a, e.b);
      break;
    case EventKind::KernelEnd:
      std::snprintf(buf, sizeof buf, "kernel end: launch %" PRIu64 ", status %s", e.a,
                    launch_status_name(LaunchStatus(std::min<uint64_t>(e.b, 5))));
      break;
    case EventKind::Report: {
      const nlohmann::json* r = model_->trace().report_by_id(e.a);
      std::string title =
          r && r->contains("title") && (*r)["title"].is_string() ? (*r)["title"].get<std::string>() : std::string("?");
      std::snprintf(buf, sizeof buf, "report %" PRIu64 " (line %" PRIu64 "): %.150s", e.a, e.b, title.c_str());
      break;
    }
    case EventKind::LaneExit:
      std::snprintf(buf, sizeof buf, "lanes exit: warp %u, lanes 0x%08x", e.warp, unsigned(e.a));
      break;
    case EventKind::Mark:
      std::snprintf(buf, sizeof buf, "mark %u: warp %u, a %" PRIu64 ", b %" PRIu64, e.aux, e.warp, e.a, e.b);
      break;
    case EventKind::BlockPlacement:
      std::snprintf(buf, sizeof buf, "block %" PRIu64 " placed on SM %" PRIu64, e.a, e.b);
      break;
    case EventKind::MemoryModel: {
      using synclab::trace::MemoryModelKind;
      const auto mk = MemoryModelKind(e.aux & synclab::trace::kMemoryModelKindMask);
      // The location: a region element when one holds the address, else the address.
      std::string where = "0x" + fmt::format("{:x}", e.a);
      const auto space =
          synclab::trace::MemSpace((e.aux >> synclab::trace::kMemoryModelSpaceShift) & synclab::trace::kAuxSpaceMask);
      if (space == synclab::trace::MemSpace::Shared)
        where = "shared offset " + where;
      else
        for (const RegionInfo& r : model_->regions())
          if (e.a >= r.address && e.a - r.address < r.bytes) {
            where = r.kind == RegionKind::LockBits
                        ? fmt::format("{} (bits from {})", r.name, (e.a - r.address) * 8)
                        : fmt::format("{}[{}]", r.name, (e.a - r.address) / std::max<uint32_t>(r.elem_bytes, 1));
            break;
          }
      switch (mk) {
        case MemoryModelKind::StaleRead:
          std::snprintf(buf, sizeof buf,
                        "read an old value: warp %u lane %u loaded %s, but memory's newest value is %" PRIu64
                        " (nothing ordered that write before this load)",
                        e.warp, e.lane, where.c_str(), e.b);
          break;
        case MemoryModelKind::EarlyStore:
          std::snprintf(buf, sizeof buf,
                        "reordered store: warp %u lane %u stored to %s, placed before a newer write in coherence "
                        "order, so memory keeps %" PRIu64,
                        e.warp, e.lane, where.c_str(), e.b);
          break;
        case MemoryModelKind::Buffered:
          std::snprintf(buf, sizeof buf,
                        "buffered: warp %u lane %u wrote %" PRIu64
                        " to %s; threads not synchronized with it may still read an older value",
                        e.warp, e.lane, e.b, where.c_str());
          break;
        case MemoryModelKind::Visible:
          std::snprintf(buf, sizeof buf, "visible to all: the write of %" PRIu64 " to %s by warp %u lane %u", e.b,
                        where.c_str(), e.warp, e.lane);
          break;
        case MemoryModelKind::LateLoad:
          std::snprintf(buf, sizeof buf,
                        "load buffering: warp %u lanes 0x%08x ran the store at line %" PRIu64
                        " before the load above it (the load runs next)",
                        e.warp, unsigned(e.a), e.b);
          break;
        default: std::snprintf(buf, sizeof buf, "memory model event %u: warp %u", unsigned(mk), e.warp);
      }
      break;
    }
    case EventKind::HostAccess: {
      const unsigned size = 1u << ((e.aux >> synclab::trace::kAuxSizeShift) & 7);
      const uint64_t v = size < 8 ? e.b & ((1ull << (8 * size)) - 1) : e.b;
      std::string where;
      for (const RegionInfo& r : model_->regions())
        if (!r.shared && e.a >= r.address && e.a - r.address < r.bytes) {
          const uint64_t off = e.a - r.address;
          where = r.kind == RegionKind::LockBits
                      ? r.name + " bits from " + std::to_string(off * 8)
                      : r.name + "[" + std::to_string(off / std::max<uint32_t>(r.elem_bytes, 1)) + "]";
          break;
        }
      if (where.empty()) {
        char a[32];
        std::snprintf(a, sizeof a, "0x%" PRIx64, e.a);
        where = a;
      }
      if (e.aux & synclab::trace::kAuxWrite)
        std::snprintf(buf, sizeof buf, "host write: %s = %" PRIu64 " (%u bytes, written since the previous warp step)",
                      where.c_str(), v, size);
      else
        std::snprintf(buf, sizeof buf, "host read: %s = %" PRIu64 " (%u bytes, read since the previous warp step)",
                      where.c_str(), v, size);
      break;
    }
    default: std::snprintf(buf, sizeof buf, "unknown event kind %u", e.kind);
  }
  return buf;
}

// ---- per-frame state --------------------------------------------------------------------------------
void App::compute_state() {
  if (!player_) {
    state_ = State{};
    return;
  }
  if (steps() > 0) player_->seek(cursor_);
  StateOptions so;
  so.first_warp = lanes_ui.first_visible;
  so.warp_count = lanes_ui.visible + 2;
  so.regions = true;
  so.block = shared_block_;
  player_->state(&state_, so);
  extra_state_.cursor = kNoCursor;
}

void App::ensure_warps(uint32_t first, uint32_t count) {
  lanes_ui.first_visible = first;
  lanes_ui.visible = count;
  if (!player_ || model_->launches().empty()) return;
  const uint32_t total = launch_info().warps;
  const uint32_t end = std::min<uint64_t>(uint64_t(first) + count, total);
  if (first >= state_.first_warp && end <= state_.first_warp + state_.warps.size()) return;
  compute_state();
}

const WarpView* App::warp_view(uint32_t w) {
  if (w >= state_.first_warp && w - state_.first_warp < state_.warps.size())
    return &state_.warps[w - state_.first_warp];
  if (!player_ || model_->launches().empty() || w >= launch_info().warps) return nullptr;
  if (extra_state_.cursor == kNoCursor || extra_state_.first_warp != w || extra_state_.warps.empty()) {
    StateOptions so;
    so.first_warp = w;
    so.warp_count = 1;
    so.regions = false;
    player_->state(&extra_state_, so);
  }
  return extra_state_.warps.empty() ? nullptr : &extra_state_.warps[0];
}

// ---- playback and shortcuts --------------------------------------------------------------------------
void App::advance_playback(float dt) {
  if (!playing) return;
  if (steps() == 0 || cursor_ + 1 >= steps()) {
    playing = false;
    return;
  }
  play_accum_ += speed * double(dt);
  if (play_accum_ >= 1.0) {
    const double whole = std::floor(play_accum_);
    play_accum_ -= whole;
    step(int64_t(whole));
    if (cursor_ + 1 >= steps()) playing = false;
  }
}

const std::vector<Shortcut>& shortcuts() {
  static const std::vector<Shortcut> list = {
      {"Space", "play / pause"},
      {"Right / Left", "step one event forward / back"},
      {"Shift+Right / Shift+Left", "100 events forward / back"},
      {"Page Down / Page Up", "10000 events forward / back (--lecture: as ] / [)"},
      {"Home / End", "first / last event of the launch"},
      {"Up / Down (or + / -)", "play faster / slower (x2)"},
      {"n / N", "next / previous report"},
      {"a / A", "next / previous lock acquire"},
      {"r / R", "next / previous lock release"},
      {"b / B", "next / previous barrier release"},
      {"e / E", "next / previous event of the kind chosen in Playback"},
      {"w / W", "next / previous step of the selected warp"},
      {"i", "back to the first interesting event"},
      {"] / [", "next / previous interesting event"},
      {"p", "save this picture as a PNG (and print the command line that exports it)"},
      {"f", "timeline: follow the cursor on / off"},
      {"Escape", "clear the selection"},
      {"Ctrl+click a lane",
       "steer: that warp issues the step after the cursor (right-click: its lanes; undo / redo above the lanes)"},
      {"F1 or ?", "this help"},
      {"q", "quit"},
  };
  return list;
}

void App::handle_shortcuts() {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  auto key = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), true); };
  const bool shift = io.KeyShift;
  if (key(ImGuiKey_Space)) {
    if (!playing && steps() > 0 && cursor_ + 1 >= steps()) seek(0);
    playing = !playing;
  }
  if (key(ImGuiKey_RightArrow)) step(shift ? 100 : 1);
  if (key(ImGuiKey_LeftArrow)) step(shift ? -100 : -1);
  if (key(ImGuiKey_PageDown)) lecture::enabled() ? void(lecture::step_interesting(*this, true)) : step(10000);
  if (key(ImGuiKey_PageUp)) lecture::enabled() ? void(lecture::step_interesting(*this, false)) : step(-10000);
  if (key(ImGuiKey_Home)) seek(0);
  if (key(ImGuiKey_End) && steps() > 0) seek(steps() - 1);
  if (key(ImGuiKey_UpArrow)) speed = std::min(speed * 2, 1e6);
  if (key(ImGuiKey_DownArrow)) speed = std::max(speed / 2, 0.25);
  if (key(ImGuiKey_Escape)) {
    selection.clear();
    open[int(WindowId::Help)] = false;
  }
  // F1: GLFW_KEY_F1 is 290 (the GLFW backend fills KeysDown by GLFW key code).
  if (290 < IM_ARRAYSIZE(io.KeysDown) && ImGui::IsKeyPressed(290, false)) open[int(WindowId::Help)] ^= true;
  for (ImWchar ch : io.InputQueueCharacters) {
    const uint32_t sel = selection.warp;
    switch (ch) {
      case 'n': jump(Mark::Report, true); break;
      case 'N': jump(Mark::Report, false); break;
      case 'a': jump(Mark::Acquire, true); break;
      case 'A': jump(Mark::Acquire, false); break;
      case 'r': jump(Mark::Release, true); break;
      case 'R': jump(Mark::Release, false); break;
      case 'b': jump(Mark::BarrierRelease, true); break;
      case 'B': jump(Mark::BarrierRelease, false); break;
      case 'e': jump(jump_kind, true, jump_same_warp ? sel : kNoWarp); break;
      case 'E': jump(jump_kind, false, jump_same_warp ? sel : kNoWarp); break;
      case 'w':
        if (sel != kNoWarp)
          jump(Mark::WarpStep, true, sel);
        else
          status_message = "select a lane first (click a cell in Warp lanes)";
        break;
      case 'W':
        if (sel != kNoWarp)
          jump(Mark::WarpStep, false, sel);
        else
          status_message = "select a lane first (click a cell in Warp lanes)";
        break;
      case 'i': jump_first_interesting(); break;
      case ']': lecture::step_interesting(*this, true); break;
      case '[': lecture::step_interesting(*this, false); break;
      case 'f': timeline_ui.follow = !timeline_ui.follow; break;
      case 'p': request_save_picture(); break;
      case '?': open[int(WindowId::Help)] ^= true; break;
      case '+': speed = std::min(speed * 2, 1e6); break;
      case '-': speed = std::max(speed / 2, 0.25); break;
      case 'q':
        if (options.interactive) quit_requested = true;
        break;
      default: break;
    }
  }
}

// ---- layout -------------------------------------------------------------------------------------
namespace {
// The Playback window's height: a title bar and four rows of controls (--lecture: five, the event
// at the cursor and the status line wrap instead of running off the edge).
float playback_height() {
  const float play_rows = lecture::enabled() ? 5.0f : 4.0f;
  return std::floor(ImGui::GetFrameHeight() + play_rows * ImGui::GetFrameHeightWithSpacing() +
                    2 * ImGui::GetStyle().WindowPadding.y + 2);
}
}  // namespace

std::string App::shown(std::string text) const {
  for (const std::string& dir : relative_dirs_) {
    const std::string prefix = dir + "/";
    for (size_t p; (p = text.find(prefix)) != std::string::npos;) text.erase(p, prefix.size());
  }
  return text;
}

bool App::chosen_layout() const { return lecture::enabled() && !options.only_window && !options.layout.empty(); }

// --layout: Playback, when named, keeps its strip at the top; Warp lanes and Timeline share the
// left column (60% of the width), the others the right one, each window an equal part of its
// column's height in the order named; with only one of the two kinds, one column of full width.
ImVec4 App::chosen_layout_rect(WindowId w) const {
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const auto& chosen = options.layout;
  float y0 = menu_height_, R = d.y - menu_height_;
  if (std::find(chosen.begin(), chosen.end(), WindowId::Playback) != chosen.end()) {
    const float play_h = playback_height();
    if (w == WindowId::Playback) return {0, y0, d.x, play_h};
    y0 += play_h;
    R -= play_h;
  }
  std::vector<WindowId> left, right;
  for (WindowId k : chosen) {
    if (k == WindowId::Playback || k == WindowId::Help || nothing_to_show(k)) continue;  // (not drawn)
    (k == WindowId::Lanes || k == WindowId::Timeline ? left : right).push_back(k);
  }
  const float left_w = left.empty() ? 0 : right.empty() ? d.x : std::floor(d.x * lecture::kLeftWidth);
  for (const std::vector<WindowId>* column : {&left, &right}) {
    const auto it = std::find(column->begin(), column->end(), w);
    if (it == column->end()) continue;
    const float n = float(column->size()), i = float(it - column->begin());
    const float top = y0 + std::floor(R * i / n), bottom = y0 + std::floor(R * (i + 1) / n);
    return column == &left ? ImVec4(0, top, left_w, bottom - top) : ImVec4(left_w, top, d.x - left_w, bottom - top);
  }
  return {d.x * 0.25f, y0 + R * 0.1f, d.x * 0.5f, R * 0.8f};  // Help
}

ImVec4 App::layout_rect(WindowId w) const {
  if (chosen_layout()) return chosen_layout_rect(w);
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const float top = menu_height_;
  const float W = d.x, H = d.y - top;
  const float play_h = playback_height();
  const float y0 = top + play_h, R = H - play_h;
  const float left_w = std::floor(W * (lecture::enabled() ? lecture::kLeftWidth : 0.5f));
  const float right_w = W - left_w;
  const float lanes_h = std::floor(R * 0.48f);
  // A selected report with accesses to list gets a taller Reports window (from Source and the
  // region windows).
  const float row1 = std::floor(R * (reports_tall_ ? 0.28f : 0.42f)),
              row2 = std::floor(R * (reports_tall_ ? 0.18f : 0.33f)), row3 = R - row1 - row2;
  const float half = std::floor(right_w * 0.5f);
  const float rep_w = std::floor(right_w * (lecture::enabled() ? lecture::kReportsWidth : 0.62f));
  // Lecture mode leaves out the region windows with nothing to show: the other one takes the
  // whole width, or Source the height of both.
  const bool no_locks = lecture::enabled() && nothing_to_show(WindowId::Locks);
  const bool no_wave = lecture::enabled() && nothing_to_show(WindowId::Wavefront);
  switch (w) {
    case WindowId::Playback: return {0, top, W, play_h};
    case WindowId::Lanes: return {0, y0, left_w, lanes_h};
    case WindowId::Timeline: return {0, y0 + lanes_h, left_w, R - lanes_h};
    case WindowId::Locks: return {left_w, y0, no_wave ? right_w : half, row1};
    case WindowId::Wavefront:
      return no_locks ? ImVec4(left_w, y0, right_w, row1) : ImVec4(left_w + half, y0, right_w - half, row1);
    case WindowId::Source:
      return no_locks && no_wave ? ImVec4(left_w, y0, right_w, row1 + row2) : ImVec4(left_w, y0 + row1, right_w, row2);
    case WindowId::Reports: return {left_w, y0 + row1 + row2, rep_w, row3};
    case WindowId::Legend: return {left_w + rep_w, y0 + row1 + row2, right_w - rep_w, row3};
    case WindowId::Help: return {W * 0.25f, top + H * 0.1f, W * 0.5f, H * 0.8f};
    default: return {0, 0, W, H};
  }
}

void App::place_window(WindowId w) {
  if (options.only_window) {
    ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize, ImGuiCond_Always);
    return;
  }
  const ImVec4 r = layout_rect(w);
  const ImGuiCond cond = (layout_dirty_ && w != WindowId::Help) ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y), cond);
  ImGui::SetNextWindowSize(ImVec2(r.z, r.w), cond);
}

bool App::drawn(WindowId w) const {
  if (options.only_window) return *options.only_window == w;
  if (chosen_layout() && w != WindowId::Help &&
      std::find(options.layout.begin(), options.layout.end(), w) == options.layout.end())
    return false;
  if (lecture::enabled() && nothing_to_show(w)) return false;
  return open[int(w)];
}

bool App::nothing_to_show(WindowId w) const {
  const auto& regions = model_->regions();
  if (w == WindowId::Locks) return std::none_of(regions.begin(), regions.end(), locks_region);
  if (w == WindowId::Wavefront) return std::none_of(regions.begin(), regions.end(), wavefront_region);
  return false;
}

bool App::begin_window(WindowId w, ImGuiWindowFlags flags) {
  place_window(w);
  if (options.only_window) flags |= ImGuiWindowFlags_NoCollapse;
  bool* p_open = options.only_window || w == WindowId::Playback ? nullptr : &open[int(w)];
  const bool shown = ImGui::Begin(window_title(w), p_open, flags);
  record_window(w);
  return shown;
}

void App::record_window(WindowId w) {
  if (!recorder.enabled) return;
  const ImVec2 p = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  recorder.add(std::string("window:") + window_key(w), p, ImVec2(p.x + size.x, p.y + size.y),
               palette::active_palette.background, window_title(w));
}

void App::draw_menu() {
  if (!ImGui::BeginMainMenuBar()) return;
  menu_height_ = ImGui::GetWindowSize().y;
  if (ImGui::BeginMenu("View")) {
    for (int i = 0; i < kWindowCount; ++i) {
      if (WindowId(i) == WindowId::Playback) continue;
      // (lecture mode: a window with nothing to show stays out of the layout)
      ImGui::MenuItem(kWindows[i].title, nullptr, &open[i], !lecture::enabled() || !nothing_to_show(WindowId(i)));
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Reset layout")) reset_layout();
    ImGui::EndMenu();
  }
  if (options.interactive && ImGui::BeginMenu("Export")) {
    if (ImGui::MenuItem("Save picture (PNG)", "p")) request_save_picture();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Writes what the window shows into <trace>.event<N>.png in the current directory and "
          "prints the synclab-viz --export command that makes the same picture without a window.");
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Shortcuts and help", "F1")) open[int(WindowId::Help)] = true;
    if (options.interactive && ImGui::MenuItem("Quit", "q")) quit_requested = true;
    ImGui::EndMenu();
  }
  // The trace, on the right of the menu bar.
  const HeaderInfo& h = model_->header();
  std::string info = shown(model_->path());
  if (!h.model.empty()) info += "   model " + h.model;
  if (!h.scheduler.empty()) info += "   sched " + h.scheduler;
  if (h.has_seed) info += "   seed " + std::to_string(h.seed);
  if (h.gpu) info += "   (recorded on a GPU: " + h.device + ")";
  if (!model_->complete()) info += "   [cut short]";
  const float w = ImGui::CalcTextSize(info.c_str()).x;
  const float x = ImGui::GetWindowWidth() - w - 12;
  if (x > ImGui::GetCursorPosX() + 20) ImGui::SetCursorPosX(x);
  ImGui::TextDisabled("%s", info.c_str());
  ImGui::EndMainMenuBar();
}

void App::frame(float dt) {
  recorder.begin_frame();
  g_text_recorder = recorder.enabled ? &recorder : nullptr;
  if (recorder.enabled) {
    ImFont* f = ImGui::GetFont();
    const ImFontGlyph* cap = f->FindGlyphNoFallback('H');
    const ImFontGlyph* x = f->FindGlyphNoFallback('x');
    recorder.font = {f->GetDebugName(), ImGui::GetFontSize(), cap ? cap->Y1 - cap->Y0 : 0, x ? x->Y1 - x->Y0 : 0};
  }
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  if (display.x != last_display_.x || display.y != last_display_.y) {
    layout_dirty_ = true;
    last_display_ = display;
  }
  if (options.interactive) handle_shortcuts();
  if (steer) steer->poll(*this);
  advance_playback(dt);
  compute_state();
  const bool tall = reports_ui.selected >= 0 && report_interleaving(size_t(reports_ui.selected)) != nullptr;
  if (tall != reports_tall_) {
    reports_tall_ = tall;
    layout_dirty_ = true;
  }

  if (!options.only_window && (options.interactive || !chosen_layout()))  // (an export of --layout: no menu)
    draw_menu();
  else
    menu_height_ = 0;

  if (drawn(WindowId::Playback)) draw_playback_window(*this);
  if (drawn(WindowId::Lanes)) draw_lanes_window(*this);
  if (drawn(WindowId::Timeline)) draw_timeline_window(*this);
  if (drawn(WindowId::Locks)) draw_locks_window(*this);
  if (drawn(WindowId::Wavefront)) draw_wavefront_window(*this);
  if (drawn(WindowId::Source)) draw_source_window(*this);
  if (drawn(WindowId::Reports)) draw_reports_window(*this);
  if (drawn(WindowId::Legend)) draw_legend_window(*this);
  if (drawn(WindowId::Help)) draw_help_window(*this);
  if (steer) steer->draw_output_window();
  // The layout is forced on the first frames after a change (menu height settles in frame 1).
  static_assert(kWindowCount == 9, "windows");
  if (layout_dirty_ && ImGui::GetFrameCount() > 1) layout_dirty_ = false;
}

// ---- style ---------------------------------------------------------------------------------------
void App::setup_imgui(float font_size) {
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is ours; nothing written next to the trace
  ImGui::StyleColorsDark();
  ImGuiStyle& s = ImGui::GetStyle();
  s.WindowRounding = 3;
  s.FrameRounding = 2;
  s.WindowBorderSize = 1;
  s.Colors[ImGuiCol_WindowBg].w = 1.0f;            // opaque: what is exported is what was drawn
  if (lecture::enabled()) lecture::style_imgui();  // --lecture: black windows, white text
  // A scalable font when the system has one (Debian's fonts-dejavu-core), else ImGui's own.
  io.Fonts->Clear();
  static const char* candidates[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                     "/usr/share/fonts/TTF/DejaVuSans.ttf"};
  bool loaded = false;
  for (const char* f : candidates) {
    struct stat st {};
    if (::stat(f, &st) == 0 && io.Fonts->AddFontFromFileTTF(f, font_size)) {
      loaded = true;
      break;
    }
  }
  if (!loaded) {
    ImFontConfig cfg;
    cfg.SizePixels = std::round(font_size / 13.0f) * 13.0f;  // ProggyClean is sharp at 13 px steps
    if (cfg.SizePixels < 13) cfg.SizePixels = 13;
    io.Fonts->AddFontDefault(&cfg);
  }
}

}  // namespace synclab::viz::app

// The link-time wraps (--wrap, viz/app/CMakeLists.txt): x86-64 passes `this` first, like these.
using synclab::viz::app::g_text_recorder;
extern "C" {
void __real__ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4(ImDrawList*, const ImFont*, float,
                                                                         const ImVec2&, ImU32, const char*, const char*,
                                                                         float, const ImVec4*);
void __real__ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_(ImDrawList*, const ImVec2&, ImU32, const char*, const char*);
void __real__ZNK6ImFont10RenderCharEP10ImDrawListf6ImVec2jt(const ImFont*, ImDrawList*, float, ImVec2, ImU32, ImWchar);

// ImDrawList::AddText(font, size, pos, col, begin, end, wrap_width, cpu_fine_clip_rect)
void __wrap__ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4(ImDrawList* dl, const ImFont* font, float size,
                                                                         const ImVec2& pos, ImU32 c, const char* begin,
                                                                         const char* end, float wrap,
                                                                         const ImVec4* fine_clip) {
  if (g_text_recorder && (c & IM_COL32_A_MASK)) {
    ImVec4 clip = dl->_CmdHeader.ClipRect;
    if (fine_clip)
      clip = ImVec4(std::max(clip.x, fine_clip->x), std::max(clip.y, fine_clip->y), std::min(clip.z, fine_clip->z),
                    std::min(clip.w, fine_clip->w));
    g_text_recorder->add_text(begin, end, pos, size > 0 ? size : ImGui::GetFontSize(), wrap, clip, false);
  }
  __real__ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4(dl, font, size, pos, c, begin, end, wrap,
                                                                      fine_clip);
}

// ImDrawList::AddText(pos, col, begin, end): the current font
void __wrap__ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_(ImDrawList* dl, const ImVec2& pos, ImU32 c, const char* begin,
                                                     const char* end) {
  if (g_text_recorder && (c & IM_COL32_A_MASK))
    g_text_recorder->add_text(begin, end, pos, ImGui::GetFontSize(), 0, dl->_CmdHeader.ClipRect, false);
  __real__ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_(dl, pos, c, begin, end);
}

// ImFont::RenderChar: ImGui draws the "..." of a text it cut (RenderTextEllipsis) this way.
void __wrap__ZNK6ImFont10RenderCharEP10ImDrawListf6ImVec2jt(const ImFont* font, ImDrawList* dl, float size, ImVec2 pos,
                                                            ImU32 c, ImWchar ch) {
  if (g_text_recorder && (c & IM_COL32_A_MASK)) {
    char s[5] = {};
    ImTextCharToUtf8(s, ch);
    g_text_recorder->add_text(s, nullptr, pos, size, 0, dl->_CmdHeader.ClipRect, true);
  }
  __real__ZNK6ImFont10RenderCharEP10ImDrawListf6ImVec2jt(font, dl, size, pos, c, ch);
}
}  // extern "C"
