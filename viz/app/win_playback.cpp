// Playback: launch, play/pause, speed, step, scrub, jumps to the next/previous event of a kind.
#include <cinttypes>
#include <cmath>

#include "app.h"
#include "lecture.h"

namespace synclab::viz::app {

namespace {
constexpr Mark kJumpKinds[] = {Mark::Report,         Mark::Acquire,   Mark::Release,    Mark::BarrierArrive,
                               Mark::BarrierRelease, Mark::SpinStart, Mark::LaneExit,   Mark::WarpStep,
                               Mark::RegionUpdate,   Mark::StaleRead, Mark::Reordering, Mark::Visible};
}

void draw_playback_window(App& app) {
  if (!app.begin_window(WindowId::Playback, ImGuiWindowFlags_NoScrollbar)) {
    ImGui::End();
    return;
  }
  const Model& m = app.model();
  const uint64_t n = app.steps();

  // Launch.
  if (m.launches().size() > 1) {
    const LaunchInfo& cur = app.launch_info();
    std::string label = "launch " + std::to_string(cur.launch) + ": " + cur.display;
    if (lecture::enabled())  // the kernel's name only: it fits the box
      label = "launch " + std::to_string(cur.launch) + ": " + lecture::short_kernel_name(cur.display);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::BeginCombo("##launch", label.c_str())) {
      for (const LaunchInfo& l : m.launches()) {
        std::string s = "launch " + std::to_string(l.launch) + ": " + l.display + " (" + std::to_string(l.steps) +
                        " events, " + launch_status_name(l.status) + ")";
        if (ImGui::Selectable(s.c_str(), l.index == app.launch())) app.set_launch(l.index);
      }
      ImGui::EndCombo();
    }
    help_marker("Which kernel launch to show. Each launch has its own events; the cursor moves within one.");
    ImGui::SameLine();
  } else if (!m.launches().empty() && lecture::enabled()) {
    // --lecture: the kernel's name and how the launch ended (Warp lanes gives its shape).
    const LaunchInfo& l = app.launch_info();
    ImGui::Text("%s  %s", lecture::short_kernel_name(l.display).c_str(), launch_status_name(l.status));
    help_marker("The kernel launch shown and how it ended (ok, hang, deadlock, ...).");
    ImGui::SameLine();
  } else if (!m.launches().empty()) {
    const LaunchInfo& l = app.launch_info();
    ImGui::Text("%s  grid (%u,%u,%u) block (%u,%u,%u)  %s", l.display.c_str(), l.grid[0], l.grid[1], l.grid[2],
                l.block[0], l.block[1], l.block[2], launch_status_name(l.status));
    help_marker("The kernel launch shown, its grid and block shape, and how it ended (ok, hang, deadlock, ...).");
    ImGui::SameLine();
  }
  ImGui::SameLine(0, 20);

  // Transport.
  if (ImGui::Button("|<")) app.seek(0);
  ImGui::SameLine();
  if (ImGui::Button("<")) app.step(-1);
  ImGui::SameLine();
  if (ImGui::Button(app.playing ? "Pause" : " Play ", ImVec2(ImGui::GetFontSize() * 3.5f, 0))) {
    if (!app.playing && n > 0 && app.cursor() + 1 >= n) app.seek(0);
    app.playing = !app.playing;
  }
  ImGui::SameLine();
  if (ImGui::Button(">")) app.step(1);
  ImGui::SameLine();
  if (ImGui::Button(">|") && n > 0) app.seek(n - 1);
  help_marker(
      "First event, one event back, play/pause (Space), one event forward, last event. "
      "Left/Right arrows step; Shift+arrows step 100.");
  ImGui::SameLine(0, 20);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  float log_speed = float(std::log10(app.speed));
  char speed_label[32];
  std::snprintf(speed_label, sizeof speed_label, "%.4g ev/s", app.speed);
  if (ImGui::SliderFloat("speed", &log_speed, -0.6f, 6.0f, speed_label)) app.speed = std::pow(10.0, double(log_speed));
  help_marker("Playback speed in events per second (Up/Down arrows double/halve it).");

  // Scrub.
  {
    uint64_t c = app.cursor();
    const uint64_t lo = 0, hi = n > 0 ? n - 1 : 0;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 9);
    char fmt[64];
    std::snprintf(fmt, sizeof fmt, "event %%" PRIu64 " of %" PRIu64, n);
    if (ImGui::SliderScalar("##scrub", ImGuiDataType_U64, &c, &lo, &hi, fmt)) app.seek(c);
    help_marker(
        "Scrub through the launch's events. The state shown is the state just after the event "
        "under the cursor. Ctrl+click to type a number.");
    ImGui::SameLine();
    const uint64_t t0 = n > 0 ? app.launch_info().first_time : 0;
    const uint64_t t = app.state().time;
    ImGui::Text("time %" PRIu64, t >= t0 ? t - t0 : 0);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Event time, from the launch's first event: %s (raw value %" PRIu64 ")",
                        m.header().gpu ? "nanoseconds (GPU %globaltimer)" : "warp steps", t);
  }

  // Jumps.
  {
    if (ImGui::Button("<##prevkind")) app.jump(app.jump_kind, false, app.jump_same_warp ? app.selection.warp : kNoWarp);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
    if (ImGui::BeginCombo("##kind", mark_name(app.jump_kind))) {
      for (Mark k : kJumpKinds)
        if (ImGui::Selectable(mark_name(k), k == app.jump_kind)) app.jump_kind = k;
      ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (ImGui::Button(">##nextkind")) app.jump(app.jump_kind, true, app.jump_same_warp ? app.selection.warp : kNoWarp);
    help_marker("Previous / next event of the chosen kind (keys e / E).");
    ImGui::SameLine();
    ImGui::Checkbox("selected warp only", &app.jump_same_warp);
    help_marker("Only jump to events of the selected lane's warp (click a lane in Warp lanes to select it).");
    ImGui::SameLine(0, 20);
    if (ImGui::Button("next report")) app.jump(Mark::Report, true);
    ImGui::SameLine();
    if (ImGui::Button("next acquire")) app.jump(Mark::Acquire, true);
    ImGui::SameLine();
    if (ImGui::Button("next barrier release")) app.jump(Mark::BarrierRelease, true);
    ImGui::SameLine();
    if (ImGui::Button("first interesting")) app.jump_first_interesting();
    help_marker(
        "Jump to the next report (n), lock acquire (a), barrier release (b); or back to where the "
        "viewer opened (i): the first report, else the first barrier release or lock acquire.");
  }

  // The event at the cursor (--lecture: wrapped, and the status line after it where it fits, else
  // below it).
  const bool lect = lecture::enabled();
  if (n > 0) {
    const Event& e = app.state().event;
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.85f, 0.85f, 0.6f, 1));
    if (lect)
      wrapped_text(app.shown(app.describe_event(e)).c_str());
    else
      ImGui::TextUnformatted(app.shown(app.describe_event(e)).c_str());
    ImGui::PopStyleColor();
  } else {
    ImGui::TextDisabled("this launch has no events");
  }
  if (!app.status_message.empty()) {
    const std::string status = app.shown(app.status_message);
    ImGui::SameLine(0, 20);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.6f, 0.4f, 1));
    if (lect) {
      if (ImGui::CalcTextSize(status.c_str()).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
      wrapped_text(status.c_str());
    } else {
      ImGui::TextUnformatted(status.c_str());
    }
    ImGui::PopStyleColor();
  }
  if (!m.warning().empty()) {
    ImGui::SameLine(0, 20);
    ImGui::TextColored(ImVec4(1, 0.5f, 0.3f, 1), "warning");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", m.warning().c_str());
  }
  ImGui::End();
}

}  // namespace synclab::viz::app
