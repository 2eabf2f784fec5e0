// Timeline: one row per warp over time. Each row has three tracks: barrier waits and spins (top),
// critical sections (middle), and the warp's steps (bottom, brighter when more lanes were
// active). The cursor is a white line; reports are magenta ticks; the accesses of the report
// selected in Reports are cyan bars (the two racing ones yellow). When the launch has host
// accesses, a host row on top has a light-blue tick at each of the host's writes (half height:
// its reads). Wheel zooms around the mouse, dragging pans, clicking moves the cursor.
#include <algorithm>
#include <cinttypes>
#include <cmath>

#include "app.h"

namespace synclab::viz::app {

std::string host_access_text(const App& app, uint64_t cursor);  // win_lanes.cpp

namespace {

palette::Rgb span_colour(SpanKind k) {
  switch (k) {
    case SpanKind::BarrierWait: return palette::kSpanBarrier;
    case SpanKind::Spin: return palette::kSpanSpin;
    default: return palette::kSpanCritical;
  }
}

const char* span_kind_name(SpanKind k) {
  switch (k) {
    case SpanKind::BarrierWait: return "barrier wait";
    case SpanKind::Spin: return "spin";
    default: return "critical section";
  }
}

std::string span_label(const App& app, const Span& s) {
  char buf[200];
  switch (s.kind) {
    case SpanKind::BarrierWait: std::snprintf(buf, sizeof buf, "barrier %u wait, lanes 0x%08x", s.info, s.lanes); break;
    case SpanKind::Spin:
      std::snprintf(buf, sizeof buf, "spin at line %u, %u iterations, lanes 0x%08x", s.info, s.element, s.lanes);
      break;
    default: {
      std::string region = "region " + std::to_string(s.info);
      for (const RegionInfo& r : app.model().regions())
        if (r.id == s.info) region = r.name;
      if (s.lane != kNoLane)
        std::snprintf(buf, sizeof buf, "critical section %s[%u], held by lane %u", region.c_str(), s.element, s.lane);
      else
        std::snprintf(buf, sizeof buf, "critical section %s[%u]", region.c_str(), s.element);
    }
  }
  std::string out = buf;
  if (s.open_at_end) out += " (still open when the launch ended)";
  return out;
}

// A "nice" tick step (1, 2, 5 x 10^k) for about `target` ticks over `range`.
double tick_step(double range, double target) {
  const double raw = range / std::max(1.0, target);
  const double p = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * p) return std::max(1.0, m * p);
  return std::max(1.0, 10 * p);
}

}  // namespace

void draw_timeline_window(App& app) {
  if (!app.begin_window(WindowId::Timeline, ImGuiWindowFlags_NoScrollWithMouse)) {
    ImGui::End();
    return;
  }
  const Model& m = app.model();
  if (m.launches().empty() || app.steps() == 0) {
    ImGui::TextDisabled("No events in this launch.");
    ImGui::End();
    return;
  }
  const int launch = app.launch();
  const LaunchInfo& L = app.launch_info();
  auto& ui = app.timeline_ui;
  const double origin = double(L.first_time);
  const double full = std::max(1.0, double(L.last_time - L.first_time) + 1);
  const double now = double(app.state().time) - origin;
  if (ui.launch != launch || !(ui.t1 > ui.t0)) {
    ui.launch = launch;
    ui.t0 = 0;
    ui.t1 = full;
    // Long launches open zoomed around the cursor: a few thousand events either side.
    if (L.steps > 8000) {
      const uint64_t c = app.cursor();
      const double a = double(m.time_of(launch, c > 3000 ? c - 3000 : 0)) - origin;
      const double b = double(m.time_of(launch, std::min<uint64_t>(L.steps - 1, c + 3000))) - origin;
      const double half = std::max(8.0, std::max(now - a, b - now));  // the cursor in the middle
      ui.t0 = now - half;
      ui.t1 = now + half;
      if (ui.t0 < 0) {  // near the start: no empty stretch before the launch
        ui.t1 -= ui.t0;
        ui.t0 = 0;
      }
    }
  }

  // Controls.
  if (ImGui::Button("fit")) {
    ui.t0 = 0;
    ui.t1 = full;
  }
  help_marker("Show the whole launch.");
  ImGui::SameLine();
  auto zoom_around = [&](double center, double factor) {
    double span = (ui.t1 - ui.t0) * factor;
    span = std::max(8.0, std::min(span, full * 1.05));
    const double f = (center - ui.t0) / std::max(1e-9, ui.t1 - ui.t0);
    ui.t0 = center - f * span;
    ui.t1 = ui.t0 + span;
  };
  if (ImGui::Button("+")) zoom_around(now, 0.5);
  ImGui::SameLine();
  if (ImGui::Button("-")) zoom_around(now, 2.0);
  help_marker(
      "Zoom in / out around the cursor. Over the plot: mouse wheel zooms around the mouse, "
      "Shift+wheel or dragging pans.");
  ImGui::SameLine();
  ImGui::Checkbox("follow cursor", &ui.follow);
  help_marker("Keep the cursor in view while playing or stepping (f).");
  ImGui::SameLine(0, 16);
  ImGui::TextDisabled("time %.0f .. %.0f %s", ui.t0, ui.t1,
                      m.header().gpu ? "ns after the launch's first event" : "warp steps");

  if (ui.follow && (now < ui.t0 || now > ui.t1)) {
    const double span = ui.t1 - ui.t0;
    ui.t0 = now - span * 0.5;
    ui.t1 = ui.t0 + span;
  }

  const std::vector<uint32_t>& warps = m.active_warps(launch);
  if (L.time_backsteps > 0)
    ImGui::TextColored(ImVec4(1, 0.5f, 0.3f, 1),
                       "Event times go backwards at %" PRIu64
                       " events of this launch (a damaged trace): they are "
                       "drawn at the latest earlier time.",
                       L.time_backsteps);
  const float label_w = ImGui::CalcTextSize("b0000 w00 ").x;
  const float line_h = ImGui::GetTextLineHeight();
  // Tracks grow (up to a text line each) when there are few warps to show.
  const float avail_h = ImGui::GetContentRegionAvail().y - line_h - 8;
  const float fit = std::floor((avail_h / std::max<size_t>(1, warps.size()) - 6) / 3);
  const float sub = std::max(std::max(5.0f, std::floor(line_h * 0.45f)), std::min(fit, line_h));
  const float row_h = 3 * sub + 6;
  ImDrawList* dl = ImGui::GetWindowDrawList();

  // Axis.
  const ImVec2 axis_p = ImGui::GetCursorScreenPos();
  const float plot_x0 = axis_p.x + label_w;
  const float plot_w = std::max(20.0f, ImGui::GetContentRegionAvail().x - label_w - ImGui::GetStyle().ScrollbarSize);
  const float plot_x1 = plot_x0 + plot_w;
  auto x_of = [&](double t) { return float(plot_x0 + (t - ui.t0) / (ui.t1 - ui.t0) * plot_w); };
  auto t_of = [&](float x) { return ui.t0 + double(x - plot_x0) / plot_w * (ui.t1 - ui.t0); };
  {
    const double step = tick_step(ui.t1 - ui.t0, plot_w / 90.0);
    for (double t = std::ceil(ui.t0 / step) * step; t <= ui.t1; t += step) {
      const float x = x_of(t);
      dl->AddLine(ImVec2(x, axis_p.y + line_h), ImVec2(x, axis_p.y + line_h + 4),
                  ImGui::GetColorU32(ImGuiCol_TextDisabled));
      char b[32];
      std::snprintf(b, sizeof b, "%.0f", t);
      // A tick near the right edge keeps its mark but not a label the window would cut.
      const float right = std::min(plot_x1 + ImGui::GetStyle().ScrollbarSize, dl->GetClipRectMax().x);
      if (x + 2 + ImGui::CalcTextSize(b).x <= right)
        dl->AddText(ImVec2(x + 2, axis_p.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), b);
    }
    ImGui::Dummy(ImVec2(label_w + plot_w, line_h + 5));
  }

  // Rows.
  ImGui::BeginChild("##timeline_rows", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse);
  const ImVec2 rows_p0 = ImGui::GetCursorScreenPos();
  const float rows_top = ImGui::GetWindowPos().y;
  const float rows_bottom = rows_top + ImGui::GetWindowHeight();
  dl = ImGui::GetWindowDrawList();
  const auto& spans = m.spans(launch);
  std::vector<uint32_t> idx;
  std::vector<ActivityBucket> act;
  const uint32_t buckets = uint32_t(std::max(1.0f, plot_w / 2));
  const double bucket_w = (ui.t1 - ui.t0) / buckets;
  const auto& reps = m.launch_reports(launch);
  // The selected report's accesses (Reports window), marked on their warps' rows.
  const synclab::trace::Interleaving* il =
      app.reports_ui.selected >= 0 ? app.report_interleaving(size_t(app.reports_ui.selected)) : nullptr;
  if (il && il->launch != launch) il = nullptr;
  const synclab::trace::InterleavingItem* hovered_access = nullptr;
  const Span* hovered = nullptr;
  uint32_t hovered_warp = kNoWarp;
  // The host row (when the launch has host accesses): a tick at each host write, a half-height
  // tick at each host read.
  uint64_t hovered_host = kNoCursor;
  const std::vector<uint32_t>& host = m.host_accesses(launch);
  if (!host.empty()) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float hh = 2 * sub + 4;
    dl->AddText(ImVec2(p.x, p.y + (hh - line_h) * 0.5f), ImGui::GetColorU32(ImGuiCol_Text), "host");
    dl->PushClipRect(ImVec2(plot_x0, p.y), ImVec2(plot_x1, p.y + hh), true);
    dl->AddRectFilled(ImVec2(plot_x0, p.y), ImVec2(plot_x1, p.y + hh - 2), IM_COL32(30, 30, 36, 255));
    // the host's accesses whose time is in the window (times grow with cursors)
    const uint64_t lo_t = uint64_t(std::max(0.0, ui.t0) + origin);
    auto it = std::lower_bound(host.begin(), host.end(), lo_t,
                               [&](uint32_t c, uint64_t t) { return m.time_of(launch, c) < t; });
    float last_x = -1e9f;
    bool last_write = false;
    for (; it != host.end(); ++it) {
      const double t = double(m.time_of(launch, *it)) - origin;
      if (t > ui.t1) break;
      const float x = x_of(t + 0.5);
      const bool write = m.event_at(launch, *it).aux & synclab::trace::kAuxWrite;
      const ImVec2 a(x - 1.5f, write ? p.y + 1 : p.y + (hh - 2) * 0.5f), b(x + 1.5f, p.y + hh - 3);
      if (x - last_x >= 1.0f || (write && !last_write)) {  // one tick a pixel; a write covers a read
        dl->AddRectFilled(a, b, col(palette::kHostWrite));
        if (app.recorder.enabled && x >= plot_x0 && x <= plot_x1)
          app.recorder.add("timeline:host:" + std::to_string(*it), a, b, palette::kHostWrite,
                           write ? "host write" : "host read");
        last_x = x;
        last_write = write;
      }
      if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(ImVec2(a.x - 2, a.y), ImVec2(b.x + 2, b.y)))
        hovered_host = *it;
    }
    dl->PopClipRect();
    ImGui::Dummy(ImVec2(label_w + plot_w, hh));
  }
  ImGuiListClipper clipper;
  clipper.Begin(int(warps.size()), row_h);
  const uint32_t wpb = std::max<uint32_t>(1, L.warps_per_block);
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const uint32_t w = warps[size_t(row)];
      const ImVec2 p = ImGui::GetCursorScreenPos();
      char label[32];
      std::snprintf(label, sizeof label, "b%u w%u", w / wpb, w % wpb);
      dl->AddText(ImVec2(p.x, p.y + (row_h - line_h) * 0.5f),
                  app.selection.warp == w ? IM_COL32(255, 255, 255, 255) : ImGui::GetColorU32(ImGuiCol_Text), label);
      dl->PushClipRect(ImVec2(plot_x0, p.y), ImVec2(plot_x1, p.y + row_h), true);
      dl->AddRectFilled(ImVec2(plot_x0, p.y), ImVec2(plot_x1, p.y + row_h - 2), IM_COL32(30, 30, 36, 255));
      // Activity (bottom track).
      const double t0 = std::max(0.0, ui.t0), t1 = std::min(full, ui.t1);
      if (t1 > t0) {
        const uint32_t nb = uint32_t(std::max(1.0, std::ceil((t1 - t0) / bucket_w)));
        m.activity(launch, w, uint64_t(t0 + origin), uint64_t(std::ceil(t1 + origin)), std::min(nb, buckets), &act);
        const double bw = (std::ceil(t1) - std::floor(t0)) / std::max<size_t>(1, act.size());
        for (size_t b = 0; b < act.size(); ++b) {
          if (act[b].steps == 0) continue;
          const float avg = float(act[b].lanes) / act[b].steps / 32.0f;
          const uint8_t alpha = uint8_t(80 + 175 * std::min(1.0f, avg));
          const float xa = x_of(std::floor(t0) + b * bw), xb = std::max(xa + 1, x_of(std::floor(t0) + (b + 1) * bw));
          dl->AddRectFilled(ImVec2(xa, p.y + 2 * sub + 2), ImVec2(xb, p.y + 3 * sub + 1),
                            col(palette::kActivity, alpha));
        }
      }
      // Spans.
      m.spans_in(launch, w, uint64_t(std::max(0.0, ui.t0) + origin), uint64_t(std::max(0.0, ui.t1) + origin), &idx);
      for (uint32_t si : idx) {
        const Span& s = spans[si];
        const float xa = x_of(double(s.begin) - origin);
        const float xb = std::max(xa + 2, x_of(double(s.end) - origin + 1));
        const float y0 = s.kind == SpanKind::CriticalSection ? p.y + sub + 1 : p.y;
        const ImVec2 a(xa, y0 + 1), b(xb, y0 + sub);
        const palette::Rgb c = span_colour(s.kind);
        dl->AddRectFilled(a, b, col(c));
        if (app.recorder.enabled)
          app.recorder.add("timeline:" + std::to_string(w) + ":" + std::to_string(si),
                           ImVec2(std::max(a.x, plot_x0), a.y), ImVec2(std::min(b.x, plot_x1), b.y), c,
                           span_kind_name(s.kind));
        if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(a, b)) {
          hovered = &s;
          hovered_warp = w;
        }
      }
      // Reports of this warp.
      for (uint32_t r : reps) {
        const ReportInfo& rep = m.reports()[r];
        bool here = false;
        for (const ReportParty& party : rep.parties) here |= party.warp == int64_t(w);
        if (!here || rep.cursor == kNoCursor) continue;
        const float x = x_of(double(rep.time) - origin);
        dl->AddTriangleFilled(ImVec2(x - 4, p.y), ImVec2(x + 4, p.y), ImVec2(x, p.y + sub + 2),
                              col(palette::kReportMark));
      }
      // Accesses of the selected report: a bar across the row, yellow for the two racing ones.
      if (il) {
        for (size_t k = 0; k < il->items.size(); ++k) {
          const synclab::trace::InterleavingItem& it = il->items[k];
          const bool access = it.kind == synclab::trace::InterleavingItemKind::Load ||
                              it.kind == synclab::trace::InterleavingItemKind::Store ||
                              it.kind == synclab::trace::InterleavingItemKind::Atomic;
          if (!access || it.host || it.warp != w) continue;  // (the host has no row)
          const float x = x_of(double(it.time) - origin + 0.5);
          const float half = it.racing ? 2.5f : 1.5f;
          const ImVec2 a(x - half, p.y), b(x + half, p.y + row_h - 2);
          const palette::Rgb c = it.racing ? palette::kRaceMark : palette::kAccessMark;
          dl->AddRectFilled(a, b, col(c));
          if (app.recorder.enabled && x >= plot_x0 && x <= plot_x1)
            app.recorder.add("timeline:access:" + std::to_string(k), a, b, c,
                             synclab::trace::interleaving_item_text(it).c_str());
          if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(ImVec2(a.x - 2, a.y), ImVec2(b.x + 2, b.y)))
            hovered_access = &it;
        }
      }
      dl->PopClipRect();
      ImGui::Dummy(ImVec2(label_w + plot_w, row_h));
    }
  }
  clipper.End();

  // Cursor line over all rows.
  {
    const float x = x_of(now + 0.5);
    if (x >= plot_x0 && x <= plot_x1) {
      dl->AddLine(ImVec2(x, rows_top), ImVec2(x, rows_bottom), col(palette::kCursor), 1.5f);
      app.recorder.add("timeline:cursor", ImVec2(x - 0.5f, rows_top), ImVec2(x + 0.5f, rows_bottom), palette::kCursor,
                       "cursor");
    }
  }
  (void)rows_p0;

  // Mouse: hover, click, drag, wheel.
  ImGuiIO& io = ImGui::GetIO();
  const bool over_plot = ImGui::IsWindowHovered() && io.MousePos.x >= plot_x0 && io.MousePos.x <= plot_x1;
  if (hovered_host != kNoCursor) {
    ImGui::BeginTooltip();
    const bool write = m.event_at(launch, hovered_host).aux & synclab::trace::kAuxWrite;
    ImGui::Text("the host %s %s", write ? "wrote" : "read", host_access_text(app, hovered_host).c_str());
    ImGui::Text("step %" PRIu64 " (event %" PRIu64 "): the first warp step after the access",
                m.time_of(launch, hovered_host), hovered_host);
    ImGui::TextDisabled("click to go there");
    ImGui::EndTooltip();
  } else if (hovered_access) {
    ImGui::BeginTooltip();
    ImGui::Text("%s%s", hovered_access->racing ? "racing access: " : "",
                synclab::trace::interleaving_item_text(*hovered_access).c_str());
    ImGui::Text("%s, line %u", synclab::trace::interleaving_thread_name(*hovered_access).c_str(), hovered_access->line);
    ImGui::TextDisabled("event %" PRIu64 " (the selected report's accesses are in Reports)", hovered_access->cursor);
    ImGui::EndTooltip();
  } else if (hovered) {
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(span_label(app, *hovered).c_str());
    ImGui::Text("%s", app.thread_name(hovered_warp, -1).c_str());
    ImGui::Text("time %" PRIu64 " .. %" PRIu64 " (events %u .. %u)", hovered->begin, hovered->end, hovered->first,
                hovered->last);
    ImGui::TextDisabled("click to jump to its start");
    ImGui::EndTooltip();
  }
  if (over_plot) {
    if (io.MouseWheel != 0) {
      if (io.KeyShift) {
        const double d = (ui.t1 - ui.t0) * 0.15 * io.MouseWheel;
        ui.t0 -= d;
        ui.t1 -= d;
      } else {
        zoom_around(t_of(io.MousePos.x), io.MouseWheel > 0 ? 0.8 : 1.25);
      }
    }
    if (ImGui::IsMouseClicked(0)) ui.dragged = false;
    if (ImGui::IsMouseDragging(0, 4.0f)) {
      ui.dragged = true;
      const double dt = double(io.MouseDelta.x) / plot_w * (ui.t1 - ui.t0);
      ui.t0 -= dt;
      ui.t1 -= dt;
      ui.follow = false;
    } else if (ImGui::IsMouseReleased(0) && !ui.dragged) {
      if (hovered_host != kNoCursor) {
        app.seek(hovered_host);
      } else if (hovered_access) {
        app.seek(hovered_access->cursor);
      } else if (hovered) {
        app.seek(hovered->first);
      } else {
        const double t = t_of(io.MousePos.x) + origin;
        if (t >= 0) app.seek(m.cursor_at_time(launch, uint64_t(t)));
      }
    }
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace synclab::viz::app
