// synclab-viz's application state and its ImGui windows. Nothing here knows whether it is drawn
// into a real window (main.cpp, GLFW) or offscreen (renderer.h, export); both call App::frame()
// between ImGui::NewFrame() and ImGui::Render().
//
// One file per window (win_*.cpp); they read the model (viz/core/model.h) and the App's cursor,
// selection and per-frame State, and change them only through App's methods.
#pragma once

#include <imgui.h>
#include <synclab/interleaving.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "palette.h"
#include "viz/core/model.h"

namespace synclab::viz::app {

class Steerer;  // steer.h

// The windows. Keys are what --window takes.
enum class WindowId : int { Playback, Lanes, Locks, Wavefront, Timeline, Source, Reports, Legend, Help, Count };
constexpr int kWindowCount = int(WindowId::Count);
const char* window_title(WindowId w);  // "Warp lanes", ...
const char* window_key(WindowId w);    // "lanes", ...
// "lanes", "locks", "wavefront", "timeline", "source", "reports" (and "playback", "legend",
// "help"); false for other names.
bool window_from_key(const std::string& key, WindowId* out);
std::string window_keys_list();  // "lanes, locks, ..." for messages

// Cells drawn in the last frame, with their screen rectangles and the colour they were filled
// with: what --dump-layout writes and --probe reads. Recording is off unless enabled.
struct LayoutCell {
  std::string id;  // "lanes:W:L", "locks:REGION:ELEMENT", "wavefront:REGION:ROW:COL",
                   // "timeline:WARP:SPAN" ...
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  palette::Rgb rgb{0, 0, 0};
  std::string what;  // "at barrier", "held", "pending", ...
  // Texts ("text:K", LayoutRecorder::texts): the rectangle the text had room for (the clip
  // rectangle ImGui drew it with), the window it is in, whether that window scrolls sideways and up
  // and down (its content may be larger than it), and whether this is the ellipsis ("...") of a
  // text ImGui cut.
  float room_x0 = 0, room_y0 = 0, room_x1 = 0, room_y1 = 0;
  std::string window;
  bool scrolls_x = false, scrolls_y = false, ellipsis = false;
};
class LayoutRecorder {
 public:
  bool enabled = false;
  // Also records every text ImGui draws, apart from the cells (app.cpp wraps ImDrawList::AddText
  // at link time): its rectangle as measured with the font (ImFont::CalcTextSizeA, what
  // ImGui::CalcTextSize uses) and the room it had. On with enabled (--dump-layout).
  void add_text(const char* begin, const char* end, ImVec2 pos, float font_size, float wrap_width, const ImVec4& clip,
                bool ellipsis);
  void begin_frame() {
    cells_.clear();
    index_.clear();
    texts_.clear();
  }
  // The font the frame was drawn with, as ImGui has it: its name ("DejaVuSans.ttf, 22px"), its size
  // in pixels (ImGui::GetFontSize) and the height of its glyphs H and x in the font atlas.
  struct Font {
    std::string name;
    float size_px = 0, cap_height_px = 0, x_height_px = 0;
  } font;
  void add(std::string id, ImVec2 p0, ImVec2 p1, palette::Rgb rgb, const char* what);
  const LayoutCell* find(const std::string& id) const;
  const std::vector<LayoutCell>& cells() const { return cells_; }
  const std::vector<LayoutCell>& texts() const { return texts_; }
  // {"width": W, "height": H, "cursor": ..., "cells": [{"id", "rect": [x0, y0, x1, y1], "rgb": [r, g, b], "what"}],
  //  "texts": [{"id": "text:K", "rect", "what": the text, "room": [x0, y0, x1, y1], "window",
  //             "scrolls": [x, y], "ellipsis"}],
  //  "font": {"name", "size_px", "cap_height_px", "x_height_px"}}
  std::string json(int width, int height, int launch, uint64_t cursor) const;

 private:
  std::vector<LayoutCell> cells_;
  std::map<std::string, size_t> index_;
  std::vector<LayoutCell> texts_;
};

// Selected lanes: a primary (warp, lane) that the Source window follows, plus highlighted lanes
// (a report's parties).
struct Selection {
  uint32_t warp = kNoWarp;
  int lane = -1;
  std::map<uint32_t, uint32_t> lanes;  // warp -> mask of highlighted lanes
  bool has(uint32_t w, int l) const {
    auto it = lanes.find(w);
    return (it != lanes.end() && (it->second >> l & 1u)) || (w == warp && l == lane);
  }
  void clear() { *this = Selection{}; }
};

struct AppOptions {
  // Draw only this window, covering the whole display (export --window); nullopt: the layout.
  std::optional<WindowId> only_window;
  // Lecture mode: only these windows, tiled over the whole display (--layout; a scenario's
  // "layout:" field); empty: the usual layout.
  std::vector<WindowId> layout;
  // --relative-to DIR: paths under DIR are drawn relative to it (a slide shows labs/09-.../x.cuh,
  // not the build machine's /home/.../labs/09-.../x.cuh).
  std::string relative_to;
  bool interactive = true;  // a real window: keyboard shortcuts, menu "Quit"
  float font_size = 15.0f;
  // Steering the schedule (steer.h; window mode only): where branches go ("" = a new directory
  // under $TMPDIR) and how long a re-run may take.
  std::string steer_dir;
  double steer_timeout_s = 60;
  std::string challenge;  // --challenge FILE: a goal to reach by steering (steer.h)
};

class App {
 public:
  App(std::unique_ptr<Model> model, AppOptions opt);
  ~App();

  // Style and fonts for the current ImGui context (call once after ImGui::CreateContext()).
  static void setup_imgui(float font_size);

  // Builds one frame's windows. dt: seconds since the previous frame (playback).
  void frame(float dt);

  // ---- cursor -----------------------------------------------------------------------------------
  const Model& model() const { return *model_; }
  int launch() const { return launch_; }
  const LaunchInfo& launch_info() const { return model_->launches()[size_t(launch_)]; }
  uint64_t steps() const;
  uint64_t cursor() const { return cursor_; }
  // Shared regions (one copy per block) show this block's copy (clipped to the launch's blocks).
  uint64_t shared_block() const { return shared_block_; }
  void set_shared_block(uint64_t block);
  bool has_shared_regions() const;
  void set_launch(int launch);  // and the cursor to its first interesting event
  void seek(uint64_t cursor);   // clipped to the launch
  void step(int64_t delta);
  // Next (forward) / previous event of a kind, of `warp` only when given; false when none.
  bool jump(Mark m, bool forward, uint32_t warp = kNoWarp);
  void jump_first_interesting();
  void jump_to_report(size_t report_index);  // its launch and cursor; selects its parties
  // The interleaving of report i (synclab/interleaving.h), computed once per report: nullptr when
  // the report names no accesses (then *why, if given, says so).
  const synclab::trace::Interleaving* report_interleaving(size_t report_index, std::string* why = nullptr);
  // Moves the cursor to item k of the selected report's interleaving and selects its lane.
  void jump_to_access(size_t item);
  // Launch to open first: the first one with a report, else the first with events.
  int default_launch() const;

  // ---- per-frame state ---------------------------------------------------------------------------
  const State& state() const { return state_; }
  // The view of warp w at the cursor (computed on demand when it is not in state()); nullptr
  // when w is not a warp of the launch.
  const WarpView* warp_view(uint32_t w);
  // Makes state() cover warps [first, first + count) (recomputes it when it does not).
  void ensure_warps(uint32_t first, uint32_t count);
  // `text` with the paths under --relative-to's directory made relative to it: what the windows draw
  // of source paths and of report texts that name files.
  std::string shown(std::string text) const;
  // Source file of a WarpStep file id ("" when unknown).
  const std::string& file_path(uint32_t file_id) const { return model_->file_path(launch_, file_id); }
  // "WarpStep  warp 0  mask 0xffffffff  line 35 (branch)" for the event at the cursor.
  std::string describe_event(const Event& e) const;
  std::string thread_name(uint32_t warp, int lane) const;  // "block 0 thread 5 (warp 0 lane 5)"
  // Normalised time in the launch, 0..1 (heat maps).
  double time_fraction(uint64_t t) const;

  // ---- selection ----------------------------------------------------------------------------------
  Selection selection;
  void select_lane(uint32_t warp, int lane);

  // ---- playback -----------------------------------------------------------------------------------
  bool playing = false;
  double speed = 20.0;            // events per second
  Mark jump_kind = Mark::Report;  // the kind "next/previous event" buttons and E use
  bool jump_same_warp = false;    // ... only events of the selected warp

  // ---- windows and layout --------------------------------------------------------------------------
  AppOptions options;
  bool open[kWindowCount];
  void reset_layout() { layout_dirty_ = true; }
  // Positions the next window (call before ImGui::Begin): the tiled layout, or the whole display.
  void place_window(WindowId w);
  // ImGui::Begin with the window's title and its placement; false: collapsed or closed (call
  // ImGui::End() anyway, as with ImGui::Begin).
  bool begin_window(WindowId w, ImGuiWindowFlags flags = 0);
  // --dump-layout: the window being drawn (after its ImGui::Begin), as "window:KEY".
  void record_window(WindowId w);
  bool drawn(WindowId w) const;  // the window is drawn this frame
  // A window with nothing to show in this trace: Lock bits & flags without a lock-bits, flags or
  // array region, Wavefront without a region it draws. Lecture mode leaves them out of the layout.
  bool nothing_to_show(WindowId w) const;
  LayoutRecorder recorder;
  // Steering the schedule (steer.h): null in export mode.
  std::unique_ptr<Steerer> steer;
  // Shows another trace (a steered re-run, undo) at this launch and cursor, keeping the layout.
  void replace_model(std::unique_ptr<Model> model, int launch, uint64_t cursor);
  bool quit_requested = false;
  std::string status_message;  // shown in the Playback window ("no next report")
  // Window mode, "Save picture" (p): the PNG to write from the next frame drawn without the menu
  // open (main.cpp reads the frame back), and the command line that exports the same picture.
  std::string save_png;
  void request_save_picture();
  std::string export_command(const std::string& png, int width, int height) const;

  // What the windows keep between frames.
  struct LanesUi {
    uint32_t first_visible = 0, visible = 64;  // rows the lanes window showed last frame
    float cell = 14;
    bool scroll_to_selected = false;
    uint32_t steer_warp = 0;  // the lane right-clicked for the steering menu
    int steer_lane = -1;
  } lanes_ui;
  struct TimelineUi {
    double t0 = 0, t1 = 0;  // the visible time window ([t0, t1], t1 > t0 once set)
    bool follow = true;     // keep the cursor in view
    int launch = -1;
    bool dragged = false;  // the mouse moved while pressed (a pan, not a click)
  } timeline_ui;
  struct SourceUi {
    uint32_t last_line = 0;
    std::string last_file;
    bool scroll = true;
  } source_ui;
  struct WavefrontUi {
    int region = -1;       // index into model().regions()
    bool numbers = false;  // print completion steps in the cells
    // Cells of `region` that launches before `launch` completed (a wavefront filled by one launch
    // per diagonal): computed once per launch and region.
    int earlier_launch = -1, earlier_region = -1;
    std::vector<uint8_t> earlier;
  } wavefront_ui;
  struct LocksUi {
    bool words_as_grid = true;
  } locks_ui;
  struct ReportsUi {
    int selected = -1;  // index into model().reports()
    int access = -1;    // the interleaving item last clicked (-1: none)
  } reports_ui;

 private:
  void handle_shortcuts();
  void advance_playback(float dt);
  void compute_state();
  void draw_menu();
  ImVec4 layout_rect(WindowId w) const;  // x, y, width, height
  bool chosen_layout() const;            // --layout in lecture mode (without --window)
  ImVec4 chosen_layout_rect(WindowId w) const;

  std::unique_ptr<Model> model_;
  int launch_ = 0;
  uint64_t cursor_ = 0;
  uint64_t shared_block_ = 0;
  std::unique_ptr<Player> player_;
  State state_;
  State extra_state_;  // for warp_view() outside state_
  double play_accum_ = 0;
  bool layout_dirty_ = true;
  ImVec2 last_display_{0, 0};
  float menu_height_ = 0;
  struct CachedInterleaving {
    bool ok = false;
    synclab::trace::Interleaving il;
    std::string why;
  };
  std::map<size_t, CachedInterleaving> interleavings_;  // by report index
  bool reports_tall_ = false;               // the layout gives Reports more room (a report's accesses listed)
  std::vector<std::string> relative_dirs_;  // --relative-to's directory, as given and its real path
};

// ---- windows (one file each) -------------------------------------------------------------------
void draw_playback_window(App& app);
void draw_lanes_window(App& app);
void draw_locks_window(App& app);
void draw_wavefront_window(App& app);
void draw_timeline_window(App& app);
void draw_source_window(App& app);
void draw_reports_window(App& app);
void draw_legend_window(App& app);
void draw_help_window(App& app);
// The regions each window draws: Lock bits & flags (win_locks.cpp) and Wavefront (win_wavefront.cpp).
bool locks_region(const RegionInfo& r);
bool wavefront_region(const RegionInfo& r);

// ---- small drawing helpers (ui.cpp) ---------------------------------------------------------------
ImU32 col(palette::Rgb c, uint8_t alpha = 255);
ImVec4 colf(palette::Rgb c);
// A "(?)" that shows `text` in a tooltip when hovered; placed on the same line as the last item.
void help_marker(const char* text);
// The "block" control of the windows that draw shared regions (win_locks.cpp): which block's
// copy of the __shared__ arrays they show. Draws nothing when the trace has no shared region.
void block_control(App& app);
// "partial: __shared__ partial of block 1 (of 3)" / "... not in this launch" for a shared region.
std::string shared_caption(const App& app, const RegionInfo& r, const RegionView* rv);
// Text wrapped at the window's edge (in the disabled colour when `disabled`): nothing cut off.
void wrapped_text(const char* text, bool disabled = false);
// A colour swatch with a label ("legend item").
void legend_item(palette::Rgb c, const char* label, const char* tip = nullptr);
// The shortcut list, shared by the Help window and docs.
struct Shortcut {
  const char* keys;
  const char* what;
};
const std::vector<Shortcut>& shortcuts();

}  // namespace synclab::viz::app
