// Lecture mode: the palette switch, the ImGui style and stepping through interesting events.
#include "lecture.h"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "app.h"
#include "palette.h"

namespace synclab::viz::app::lecture {

namespace {
bool g_enabled = false;

ImVec4 f4(palette::Rgb c, float a = 1.0f) { return ImVec4(c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, a); }

// The event just before `cursor` as Model::next's starting point (kNoCursor: from event 0).
uint64_t before(uint64_t cursor) { return cursor == 0 || cursor == kNoCursor ? kNoCursor : cursor - 1; }
}  // namespace

void enable() {
  g_enabled = true;
  palette::use(palette::kLecturePalette);
}

bool enabled() { return g_enabled; }

void style_imgui() {
  ImGuiStyle& s = ImGui::GetStyle();
  const palette::Rgb bg = palette::kLecturePalette.background;
  s.Colors[ImGuiCol_WindowBg] = f4(bg);
  s.Colors[ImGuiCol_ChildBg] = f4(bg);
  s.Colors[ImGuiCol_PopupBg] = ImVec4(0.10f, 0.10f, 0.10f, 1.0f);
  s.Colors[ImGuiCol_MenuBarBg] = ImVec4(0.12f, 0.12f, 0.12f, 1.0f);
  s.Colors[ImGuiCol_Text] = ImVec4(1, 1, 1, 1);
  s.Colors[ImGuiCol_TextDisabled] = ImVec4(0.72f, 0.72f, 0.72f, 1);  // 9.9:1 on black, still readable
  s.Colors[ImGuiCol_Border] = ImVec4(0.55f, 0.55f, 0.55f, 1);
  s.Colors[ImGuiCol_TitleBg] = ImVec4(0.14f, 0.14f, 0.14f, 1);
  s.Colors[ImGuiCol_TitleBgActive] = ImVec4(0.14f, 0.22f, 0.40f, 1);
  s.WindowBorderSize = 2;
  s.FrameBorderSize = 1;
  s.ScrollbarSize = 20;
}

std::string short_kernel_name(const std::string& display) {
  std::string s = display;
  const std::string anon = "(anonymous namespace)::";
  for (size_t p; (p = s.find(anon)) != std::string::npos;) s.erase(p, anon.size());
  s.resize(std::min(s.size(), s.find('(')));
  const size_t q = s.rfind("::");
  if (q != std::string::npos) s.erase(0, q + 2);
  return s.empty() ? display : s;
}

uint64_t next_interesting(const Model& m, int launch, uint64_t cursor, bool forward) {
  uint64_t best = kNoCursor;
  for (Mark mk : kInterestingMarks) {
    const uint64_t c = forward ? m.next(launch, cursor, mk) : m.prev(launch, cursor, mk);
    if (c == kNoCursor) continue;
    if (best == kNoCursor || (forward ? c < best : c > best)) best = c;
  }
  return best;
}

const char* interesting_kind(const Model& m, int launch, uint64_t cursor) {
  static const char* const names[3] = {"report", "barrier release", "lock acquire"};
  for (int i = 0; i < 3; ++i)
    if (m.next(launch, before(cursor), kInterestingMarks[i]) == cursor) return names[i];
  return "";
}

bool step_interesting(App& app, bool forward) {
  const Model& m = app.model();
  const int launch = app.launch();
  if (app.steps() == 0) return false;
  const uint64_t c = next_interesting(m, launch, app.cursor(), forward);
  if (c == kNoCursor) {
    app.status_message = forward ? "no next interesting event (report, barrier release, lock acquire)"
                                 : "no previous interesting event (report, barrier release, lock acquire)";
    return false;
  }
  app.seek(c);
  // Its rank among the launch's interesting events (a few hundred at most in a teaching trace).
  uint64_t k = 0, n = 0;
  for (uint64_t e = next_interesting(m, launch, kNoCursor, true); e != kNoCursor;
       e = next_interesting(m, launch, e, true)) {
    ++n;
    if (e == c) k = n;
  }
  app.status_message = "interesting event " + std::to_string(k) + " of " + std::to_string(n) + ": " +
                       interesting_kind(m, launch, c) + " (event " + std::to_string(c) + ")";
  return true;
}

}  // namespace synclab::viz::app::lecture
