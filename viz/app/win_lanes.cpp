// Warp lanes: one row per warp, 32 cells coloured by lane state, the warp's current source line
// and active mask. A diverged warp shows as a row split between active and masked-off lanes.
// Above them, when the launch has host accesses (HostAccess events), the host row: the host's
// latest read or write up to the cursor.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <string>

#include "app.h"
#include "lecture.h"
#include "steer.h"

namespace synclab::viz::app {

namespace {
std::string basename_of(const std::string& p) {
  const size_t s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}
}  // namespace

// What the host access at a cursor of the launch did: "pingpong[0] = 3". Also the timeline's.
std::string host_access_text(const App& app, uint64_t cursor) {
  const Model& m = app.model();
  const Event& e = m.event_at(app.launch(), cursor);
  const unsigned size = 1u << ((e.aux >> synclab::trace::kAuxSizeShift) & 7);
  uint64_t v = e.b;
  if (size < 8) v &= (1ull << (8 * size)) - 1;
  char buf[160];
  uint64_t cell = 0;
  const int r = m.host_access_region(app.launch(), cursor, &cell);
  if (r >= 0 && m.regions()[size_t(r)].kind == RegionKind::LockBits) {
    std::snprintf(buf, sizeof buf, "%s bits %" PRIu64 "..%" PRIu64 " = 0x%" PRIx64, m.regions()[size_t(r)].name.c_str(),
                  cell, cell + 8 * size - 1, v);
  } else {
    // a value as the program most likely wrote it: negative when its top bit is set
    const int64_t sv = size < 8 && (v >> (8 * size - 1)) ? int64_t(v | ~((1ull << (8 * size)) - 1)) : int64_t(v);
    if (r >= 0)
      std::snprintf(buf, sizeof buf, "%s[%" PRIu64 "] = %" PRId64, m.regions()[size_t(r)].name.c_str(), cell, sv);
    else
      std::snprintf(buf, sizeof buf, "0x%" PRIx64 " = %" PRId64 " (%u bytes)", e.a, sv, size);
  }
  return buf;
}

// The right-click menu of a lane: which warp (and, under `its`, which of its groups of lanes)
// issues the step after the cursor (steer.h).
void draw_steer_menu(App& app) {
  if (!app.steer || !ImGui::BeginPopup("##steer_lane")) return;
  const uint32_t w = app.lanes_ui.steer_warp;
  const int l = app.lanes_ui.steer_lane;
  ImGui::TextDisabled("after event %" PRIu64 ", the next step is ...", app.cursor());
  if (!app.steer->available()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextDisabled("cannot re-run: %s", app.steer->problem().c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndPopup();
    return;
  }
  char label[128];
  std::snprintf(label, sizeof label, "run warp %u next", w);
  if (ImGui::MenuItem(label, "Ctrl+click")) app.steer->choose(app, w);
  const WarpView* v = app.warp_view(w);
  if (v && app.model().header().model == "its" && l >= 0) {
    // Under `its` a diverged warp has groups of lanes; offer the group of the lane clicked as the
    // viewer sees it: the lanes of the warp's last step, or the other lanes still running. The
    // simulator checks that they are a group (else it says which groups there are).
    const uint32_t live = v->started & ~v->exited;
    uint32_t mask = 0;
    if (v->has_step && (v->last_mask >> l & 1u))
      mask = v->last_mask & live;
    else if (live >> l & 1u)
      mask = live & ~(v->has_step ? v->last_mask : 0u);
    if (mask != 0 && mask != live) {
      std::snprintf(label, sizeof label, "run warp %u, lanes 0x%08x (the group of lane %d) next", w, mask, l);
      if (ImGui::MenuItem(label)) app.steer->choose(app, w, true, mask);
    }
  }
  ImGui::EndPopup();
}

void draw_lanes_window(App& app) {
  if (!app.begin_window(WindowId::Lanes)) {
    ImGui::End();
    return;
  }
  const Model& m = app.model();
  if (m.launches().empty()) {
    ImGui::TextDisabled("The trace has no kernel launches.");
    ImGui::End();
    return;
  }
  const LaunchInfo& L = app.launch_info();
  ImGui::Text("%u warps (%" PRIu64 " blocks x %u warps)", L.warps, L.blocks, L.warps_per_block);
  help_marker(
      "One row per warp: its lanes coloured by state (see Legend; a block of fewer than 32 threads "
      "has fewer), then the warp's current source line and active mask. Lanes of one warp split "
      "between green (active) and blue (masked off) show divergence. Click a lane to select it; the "
      "Source window follows the selected lane.");
  ImGui::SameLine(0, 20);
  if (ImGui::SmallButton("clear selection")) app.selection.clear();
  help_marker("Forget the selected lanes (Escape).");
  if (app.steer) app.steer->draw_controls(app);

  const float label_w = ImGui::CalcTextSize("b0000 w00 ").x;
  // --lecture: room for the line number only (the mask is shown only where it fits), larger cells.
  const bool lect = lecture::enabled();
  const float info_w = ImGui::CalcTextSize(lect ? "line 0000  " : "line 0000  mask 0xffffffff (32)  ").x;
  const float avail = ImGui::GetContentRegionAvail().x - label_w - info_w;
  const float max_cell =
      app.options.only_window ? (lect ? lecture::kMaxLaneCellAlone : 40.0f) : (lect ? lecture::kMaxLaneCell : 26.0f);
  float cell = std::floor((avail - 9.0f) / 32.0f) - 2;  // 32 cells, a 2-px gap each, 3 group gaps of 3 px
  cell = std::max(5.0f, std::min(cell, max_cell));
  const float gap = cell >= 10 ? 2.0f : 1.0f;
  const float pitch = cell + gap;
  const float group_gap = cell >= 10 ? 3.0f : 1.0f;  // after every 8 lanes
  app.lanes_ui.cell = cell;
  const float row_h = std::max(cell + gap + 1, ImGui::GetTextLineHeight() + 2);

  // Lane numbers.
  {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    for (int l = 0; l < 32; l += 8) {
      char b[8];
      std::snprintf(b, sizeof b, "%d", l);
      const float x = p.x + label_w + l * pitch + (l / 8) * group_gap;
      dl->AddText(ImVec2(x, p.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), b);
    }
    ImGui::Dummy(ImVec2(label_w + 32 * pitch, ImGui::GetTextLineHeight()));
  }

  // The host row: the host's reads and writes of named regions of mapped or managed memory
  // (HostAccess events), when this launch has any.
  const std::vector<uint32_t>& host = m.host_accesses(app.launch());
  if (!host.empty()) {
    const State& st = app.state();
    ImDrawList* hdl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float ty = p.y + (row_h - ImGui::GetTextLineHeight()) * 0.5f;
    hdl->AddText(ImVec2(p.x, ty), ImGui::GetColorU32(ImGuiCol_Text), "host");
    const float x0 = p.x + label_w, x1 = x0 + 31 * pitch + 3 * group_gap + cell;
    const bool now = st.last_host_cursor != kNoCursor && st.last_host_cursor == st.cursor;
    const palette::Rgb c = now ? palette::kHostWrite : st.host_accesses ? palette::kHostWrote : palette::kLaneInactive;
    // As tall as the row allows (row_h is at least a text line + 2): what the host did is written
    // inside the bar, where the width of 32 lanes has room for it, not after the count, where a
    // narrow window cut it off.
    const float bar_h = std::max(cell, row_h - 1);
    const ImVec2 a(x0, p.y + 1), b(x1, p.y + 1 + bar_h);
    hdl->AddRectFilled(a, b, col(c));
    const bool wrote =
        st.host_accesses && (m.event_at(app.launch(), st.last_host_cursor).aux & synclab::trace::kAuxWrite);
    const std::string what = st.host_accesses
                                 ? std::string(now ? (wrote ? "writes " : "reads ") : (wrote ? "wrote " : "read ")) +
                                       host_access_text(app, st.last_host_cursor)
                                 : std::string("no access yet");
    const bool text_inside = bar_h + 1 >= ImGui::GetTextLineHeight();  // else it goes after the count
    if (text_inside) {
      hdl->PushClipRect(a, b, true);
      hdl->AddText(ImVec2(x0 + 4, ty), now ? IM_COL32(0, 0, 0, 255) : IM_COL32(230, 230, 230, 255), what.c_str());
      hdl->PopClipRect();
    }
    char info[96];
    std::snprintf(info, sizeof info, "access %" PRIu64 " of %zu%s", st.host_accesses, host.size(),
                  text_inside || !st.host_accesses ? "" : ": ");
    std::string info_text = info;
    if (!text_inside && st.host_accesses) info_text += what;
    const float info_x = p.x + label_w + 32 * pitch + 3 * group_gap + 6;
    if (info_x + ImGui::CalcTextSize(info_text.c_str()).x > hdl->GetClipRectMax().x)  // "3 of 5" where it fits
      info_text = std::to_string(st.host_accesses) + " of " + std::to_string(host.size());
    hdl->AddText(ImVec2(p.x + label_w + 32 * pitch + 3 * group_gap + 6, ty), ImGui::GetColorU32(ImGuiCol_Text),
                 info_text.c_str());
    if (app.recorder.enabled)
      app.recorder.add("lanes:host", a, b, c,
                       now                ? (wrote ? "host write" : "host read")
                       : st.host_accesses ? (wrote ? "host wrote" : "host read before")
                                          : "no host access yet");
    if (ImGui::IsMouseHoveringRect(a, b) && ImGui::IsWindowHovered()) {
      ImGui::BeginTooltip();
      ImGui::TextUnformatted("the host (CPU) thread");
      if (st.host_accesses)
        ImGui::Text("%s: %s (event %" PRIu64 ", step %" PRIu64 ")", now ? "at the cursor" : "last", what.c_str(),
                    st.last_host_cursor, m.time_of(app.launch(), st.last_host_cursor));
      const nlohmann::json& hj = m.header().json;
      const std::string recorded = hj.is_object() && hj.contains("host_accesses") && hj["host_accesses"].is_string()
                                       ? hj["host_accesses"].get<std::string>()
                                       : std::string("writes only");
      ImGui::TextWrapped(
          "The simulator records the host's accesses to named regions in mapped or managed memory while the "
          "kernel runs, each at the first warp step after it. This trace has the host's %s. A read that returns "
          "what the host's previous read of that element returned is left out (a polling loop shows once per "
          "value). docs/simulator.md, \"The host's accesses\", says more.",
          recorded.c_str());
      ImGui::TextDisabled("click: the host's next access");
      ImGui::EndTooltip();
      if (ImGui::IsMouseClicked(0)) {
        const auto it = std::upper_bound(host.begin(), host.end(), st.cursor == kNoCursor ? 0 : st.cursor);
        if (it != host.end()) app.seek(*it);
      }
    }
    ImGui::Dummy(ImVec2(label_w + 32 * pitch + info_w, row_h));
  }

  ImGui::BeginChild("##lanes_rows", ImVec2(0, 0), false);
  if (app.lanes_ui.scroll_to_selected && app.selection.warp != kNoWarp) {
    ImGui::SetScrollY(std::max(0.0f, app.selection.warp * row_h - ImGui::GetWindowHeight() * 0.3f));
    app.lanes_ui.scroll_to_selected = false;
  }
  ImGuiListClipper clipper;
  clipper.Begin(int(L.warps), row_h);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  while (clipper.Step()) {
    const uint32_t first = uint32_t(clipper.DisplayStart);
    const uint32_t count = uint32_t(clipper.DisplayEnd - clipper.DisplayStart);
    app.ensure_warps(first, std::max<uint32_t>(count, 8));
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const uint32_t w = uint32_t(row);
      const WarpView* v = app.warp_view(w);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const uint32_t wpb = std::max<uint32_t>(1, L.warps_per_block);
      char label[32];
      std::snprintf(label, sizeof label, "b%u w%u", w / wpb, w % wpb);
      const bool sel_warp = app.selection.warp == w;
      dl->AddText(ImVec2(p.x, p.y + (row_h - ImGui::GetTextLineHeight()) * 0.5f),
                  sel_warp ? IM_COL32(255, 255, 255, 255) : ImGui::GetColorU32(ImGuiCol_Text), label);
      // Only the lanes the warp has: a block of fewer threads than its warps' 32 lanes (a launch
      // of 4 threads, a partial last warp) leaves the rest of the row empty.
      const uint32_t lanes = v && v->exists ? v->exists : 0xffffffffu;
      for (int l = 0; l < 32; ++l) {
        if (!(lanes >> l & 1u)) continue;
        const LaneState st = v ? v->lanes[l] : LaneState::Inactive;
        const palette::Rgb c = palette::kLaneStates[int(st)];
        const float x = p.x + label_w + l * pitch + (l / 8) * group_gap;
        const ImVec2 a(x, p.y + 1), b(x + cell, p.y + 1 + cell);
        dl->AddRectFilled(a, b, col(c));
        if (app.selection.has(w, l)) {
          const float t = cell >= 10 ? 2.0f : 1.0f;
          dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), col(palette::kSelection), 0, 0, t);
        }
        if (app.recorder.enabled)
          app.recorder.add("lanes:" + std::to_string(w) + ":" + std::to_string(l), a, b, c, lane_state_name(st));
        if (ImGui::IsMouseHoveringRect(a, ImVec2(b.x + gap, b.y + gap)) && ImGui::IsWindowHovered()) {
          ImGui::BeginTooltip();
          ImGui::TextUnformatted(app.thread_name(w, l).c_str());
          ImGui::Text("state: %s", lane_state_name(st));
          if (st == LaneState::StaleRead)
            ImGui::TextWrapped(
                "Its load read an older value than the newest in memory: nothing ordered the write it "
                "missed before this read (relaxed memory model). The event line below says which.");
          if (v && v->has_step) {
            ImGui::Text("warp's current line %u (%s)", v->line, basename_of(app.file_path(v->file)).c_str());
            ImGui::Text("active mask 0x%08x", v->last_mask);
          }
          ImGui::TextDisabled("click to select");
          if (app.steer && app.steer->available())
            ImGui::TextDisabled("Ctrl+click: this warp runs the next step (right-click: its lanes)");
          ImGui::EndTooltip();
          if (ImGui::IsMouseClicked(0) && ImGui::GetIO().KeyCtrl && app.steer) {
            app.select_lane(w, l);
            app.steer->choose(app, w);
          } else if (ImGui::IsMouseClicked(0)) {
            app.select_lane(w, l);
          } else if (ImGui::IsMouseClicked(1) && app.steer) {
            app.lanes_ui.steer_warp = w;
            app.lanes_ui.steer_lane = l;
            ImGui::OpenPopup("##steer_lane");
          }
        }
      }
      // The warp's current line and mask.
      if (v && v->has_step) {
        char info[96];
        std::snprintf(info, sizeof info, "line %u  mask 0x%08x (%d)", v->line, v->last_mask,
                      __builtin_popcount(v->last_mask));
        const float x = p.x + label_w + 32 * pitch + 3 * group_gap + 6;
        // --lecture: the mask only where it fits in the window, else the line number alone.
        if (lect && x + ImGui::CalcTextSize(info).x > dl->GetClipRectMax().x)
          std::snprintf(info, sizeof info, "line %u", v->line);
        const bool diverged =
            v->last_mask != 0 && (v->last_mask | v->exited | v->at_barrier) != v->started && v->started != 0;
        dl->AddText(ImVec2(x, p.y + (row_h - ImGui::GetTextLineHeight()) * 0.5f),
                    diverged ? IM_COL32(150, 180, 255, 255) : ImGui::GetColorU32(ImGuiCol_Text), info);
      } else if (v && v->exited == v->exists && v->exists) {
        dl->AddText(ImVec2(p.x + label_w + 32 * pitch + 3 * group_gap + 6, p.y),
                    ImGui::GetColorU32(ImGuiCol_TextDisabled), "exited");
      }
      ImGui::Dummy(ImVec2(label_w + 32 * pitch + info_w, row_h));
    }
  }
  clipper.End();
  draw_steer_menu(app);
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace synclab::viz::app
