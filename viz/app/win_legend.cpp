// Legend: what every colour means.
#include <algorithm>

#include "app.h"
#include "lecture.h"

namespace synclab::viz::app {

void draw_legend_window(App& app) {
  if (!app.begin_window(WindowId::Legend)) {
    ImGui::End();
    return;
  }
  namespace p = palette;
  // Two columns of swatches; --lecture: as many as fit the window's width (one when narrow), so that
  // no label is cut.
  int cols = 2;
  if (lecture::enabled()) {
    float widest = 0;
    for (const char* s : {"shared, not written", "not visible to all", "flag / word set", "critical section"})
      widest = std::max(widest, ImGui::CalcTextSize(s).x);
    const ImGuiStyle& st = ImGui::GetStyle();
    const float col_w = ImGui::GetTextLineHeight() + st.ItemSpacing.x + widest + 2 * st.CellPadding.x + 2;
    cols = std::max(1, std::min(2, int(ImGui::GetContentRegionAvail().x / col_w)));
  }
  ImGui::TextDisabled("Lanes");
  help_marker(
      "Colour of each lane cell in Warp lanes. When several apply, the first of exited, at "
      "barrier, in critical section, read an old value, spinning, active, masked off wins.");
  if (ImGui::BeginTable("legend_lanes", cols)) {
    const struct {
      p::Rgb c;
      const char* label;
      const char* tip;
    } lanes[] = {
        {p::kLaneActive, "active", "in the active mask of the warp's current instruction"},
        {p::kLaneMaskedOff, "masked off", "alive but not in the mask: diverged, or another thread group"},
        {p::kLaneAtBarrier, "at barrier", "arrived at a barrier that has not released yet"},
        {p::kLaneSpinning, "spinning", "in a loop that re-reads the same memory and changes nothing"},
        {p::kLaneInCritical, "critical", "holds a lock bit (set it from 0 to 1)"},
        {p::kLaneExited, "exited", "the thread has exited"},
        {p::kLaneStaleRead, "read old value",
         "its current instruction read an older value than memory's newest (SYNCLAB_MEMORY=relaxed)"},
        {p::kLaneInactive, "not started", "no event of this lane yet (block not resident, or no such thread)"},
    };
    for (const auto& l : lanes) {
      ImGui::TableNextColumn();
      legend_item(l.c, l.label, l.tip);
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("Lock bits, flags");
  if (ImGui::BeginTable("legend_locks", cols)) {
    ImGui::TableNextColumn();
    legend_item(p::kLockHeld, "lock held", "lock bit is 1");
    ImGui::TableNextColumn();
    legend_item(p::kLockFree, "lock free", "lock bit is 0");
    ImGui::TableNextColumn();
    legend_item(p::kFlagSet, "flag / word set", "non-zero");
    ImGui::TableNextColumn();
    legend_item(p::kFlagClear, "flag / word 0", "zero (or never written)");
    ImGui::TableNextColumn();
    legend_item(p::kSharedUnwritten, "shared, not written",
                "a __shared__ array's cell no thread of the block shown has written yet in this launch");
    ImGui::TableNextColumn();
    legend_item(p::kCellBuffered, "not visible to all",
                "inner outline: the latest write is buffered: threads that have not synchronized with its writer "
                "may still read an older value (SYNCLAB_MEMORY=relaxed)");
    ImGui::TableNextColumn();
    legend_item(p::kCellReadOld, "read old value", "outline: the event at the cursor read an older value here");
    ImGui::EndTable();
  }
  ImGui::TextDisabled("Timeline");
  if (ImGui::BeginTable("legend_timeline", cols)) {
    ImGui::TableNextColumn();
    legend_item(p::kSpanBarrier, "barrier wait");
    ImGui::TableNextColumn();
    legend_item(p::kSpanSpin, "spin");
    ImGui::TableNextColumn();
    legend_item(p::kSpanCritical, "critical section");
    ImGui::TableNextColumn();
    legend_item(p::kActivity, "warp steps", "brighter: more lanes active");
    ImGui::TableNextColumn();
    legend_item(p::kReportMark, "report");
    legend_item(p::kAccessMark, "access",
                "An access to the memory of the report selected in Reports (its interleaving)");
    legend_item(p::kRaceMark, "racing access", "One of the two accesses the selected race report names");
    ImGui::TableNextColumn();
    legend_item(p::kHostWrite, "host write",
                "The host row (lanes and timeline): the host's write to a named region of mapped or managed "
                "memory under the cursor; on the timeline, a tick at each");
    ImGui::TableNextColumn();
    legend_item(p::kHostWrote, "host wrote",
                "The host row of the lanes window: the host has written before the cursor");
    ImGui::EndTable();
  }
  ImGui::TextDisabled("Wavefront (completion time)");
  {
    const float h = ImGui::GetTextLineHeight();
    const float w = std::max(60.0f, ImGui::GetContentRegionAvail().x - 80);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int n = 32;
    for (int i = 0; i < n; ++i) {
      const float x0 = p0.x + w * i / n, x1 = p0.x + w * (i + 1) / n;
      dl->AddRectFilled(ImVec2(x0, p0.y), ImVec2(x1 + 0.5f, p0.y + h), col(p::heat((i + 0.5) / n)));
    }
    ImGui::Dummy(ImVec2(w, h));
    ImGui::SameLine();
    legend_item(p::kHeatPending, "pending");
    ImGui::TextDisabled("early");
    ImGui::SameLine(w - ImGui::CalcTextSize("late").x);
    ImGui::TextDisabled("late");
  }
  ImGui::End();
}

}  // namespace synclab::viz::app
