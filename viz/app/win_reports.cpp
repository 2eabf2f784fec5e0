// Reports: the checkers' and progress reports. Clicking one jumps to its event and selects the
// lanes it names; below the list, the selected report's accesses in the order they happened (the
// same list as `synclab-trace interleaving`, synclab/interleaving.h): clicking one moves the
// cursor to it. Then the report's full text.
#include <cinttypes>

#include "app.h"
#include "lecture.h"

namespace synclab::viz::app {

namespace {

using synclab::trace::Interleaving;
using synclab::trace::InterleavingItem;
using synclab::trace::InterleavingItemKind;

bool is_access(const InterleavingItem& it) {
  return it.kind == InterleavingItemKind::Load || it.kind == InterleavingItemKind::Store ||
         it.kind == InterleavingItemKind::Atomic;
}

// The selected report's interleaving: one row per item, racing accesses marked; a click moves the
// cursor there. Rows are recorded as "reports:access:K" (what: the item's text).
// --lecture: two columns, the event and what happened there ("block 0 thread 1: load 0, line 12",
// wrapped), so that nothing is cut in a narrow window.
void draw_interleaving(App& app, const Interleaving& il, float height) {
  const bool lect = lecture::enabled();
  wrapped_text(app.shown("Accesses to " + il.place + ", in the order they happened").c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", app.shown(il.location).c_str());
  help_marker(
      "The accesses to the memory the selected report is about, in trace order, with the "
      "synchronization of the threads involved in between (barriers, fences, acquire/release "
      "accesses, atomics elsewhere). >> marks the two accesses a race report names; they are also "
      "marked on the Timeline (yellow; other accesses cyan). Click a row to move the cursor there. "
      "The same list, with more around it: synclab-trace interleaving TRACE --report N (--all).");
  if (!ImGui::BeginTable("interleaving", lect ? 2 : 4,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                             ImGuiTableFlags_SizingFixedFit,
                         ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("event", ImGuiTableColumnFlags_WidthFixed);
  if (lect) {
    ImGui::TableSetupColumn("access", ImGuiTableColumnFlags_WidthStretch);
  } else {
    ImGui::TableSetupColumn("thread", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("access", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthStretch);
  }
  ImGui::TableHeadersRow();
  if (il.hidden_before) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("(%zu earlier)", il.hidden_before);
  }
  const bool same_launch = il.launch == app.launch();
  for (size_t k = 0; k < il.items.size(); ++k) {
    const InterleavingItem& it = il.items[k];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    char label[48];
    std::snprintf(label, sizeof label, "%s%" PRIu64 "##acc%zu", it.racing ? ">> " : "   ", it.cursor, k);
    const bool here = same_launch && app.cursor() >= it.cursor && app.cursor() <= it.last_cursor;
    if (ImGui::Selectable(label, here, ImGuiSelectableFlags_SpanAllColumns)) app.jump_to_access(k);
    const std::string text = synclab::trace::interleaving_item_text(it);
    if (app.recorder.enabled && ImGui::IsItemVisible())  // rows scrolled out of view are not there to click
      app.recorder.add("reports:access:" + std::to_string(k), ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                       it.racing ? palette::kRaceMark : palette::kAccessMark, text.c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("event %" PRIu64 " of the launch: click to move the cursor there", it.cursor);
    ImGui::TableNextColumn();
    const bool has_line =
        it.line && it.kind != InterleavingItemKind::Barrier && it.kind != InterleavingItemKind::Report;
    if (lect) {
      const std::string who = synclab::trace::interleaving_thread_name(it, true);
      std::string row = who.empty() ? text : who + ": " + text;  // (a report has no thread)
      if (has_line) row += ", line " + std::to_string(it.line);
      if (is_access(it))
        ImGui::PushStyleColor(ImGuiCol_Text, colf(it.racing ? palette::kRaceMark : palette::kAccessMark));
      wrapped_text(row.c_str(), !is_access(it));
      if (is_access(it)) ImGui::PopStyleColor();
      continue;
    }
    ImGui::TextUnformatted(synclab::trace::interleaving_thread_name(it, true).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", synclab::trace::interleaving_thread_name(it).c_str());
    ImGui::TableNextColumn();
    if (is_access(it))
      ImGui::TextColored(colf(it.racing ? palette::kRaceMark : palette::kAccessMark), "%s", text.c_str());
    else
      ImGui::TextDisabled("%s", text.c_str());
    ImGui::TableNextColumn();
    if (has_line) ImGui::Text("%u", it.line);
  }
  if (il.hidden_after) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("(%zu later)", il.hidden_after);
  }
  ImGui::EndTable();
}

}  // namespace

void draw_reports_window(App& app) {
  const Model& m = app.model();
  const auto& reps = m.reports();
  char title[64];
  std::snprintf(title, sizeof title, "%s (%zu)###%s", window_title(WindowId::Reports), reps.size(),
                window_title(WindowId::Reports));
  app.place_window(WindowId::Reports);
  bool* p_open = app.options.only_window ? nullptr : &app.open[int(WindowId::Reports)];
  const bool shown = ImGui::Begin(title, p_open);
  app.record_window(WindowId::Reports);
  if (!shown) {
    ImGui::End();
    return;
  }
  if (reps.empty()) {
    wrapped_text("No reports: the checkers found nothing in this run.", true);
    ImGui::End();
    return;
  }
  const int sel =
      app.reports_ui.selected >= 0 && size_t(app.reports_ui.selected) < reps.size() ? app.reports_ui.selected : -1;
  if (sel < 0) {  // once one is selected, the room is the accesses'
    wrapped_text("click a report to jump to it", true);
    help_marker(
        "Reports from the simulator's checkers and progress monitor (races, hangs, deadlocks, ...). "
        "Clicking one moves the cursor to its event and selects the lanes it names (white outlines "
        "in Warp lanes); below the list come the accesses it is about, in order, then its full text.");
  }
  std::string why;
  const Interleaving* il = sel >= 0 ? app.report_interleaving(size_t(sel), &why) : nullptr;
  // With a report selected the list keeps a few rows; the accesses get most of the rest.
  const float row_h = ImGui::GetTextLineHeightWithSpacing() + 2;
  const float avail = ImGui::GetContentRegionAvail().y;
  float list_h = 0;
  if (sel >= 0) list_h = std::min(avail * (il ? 0.3f : 0.5f), row_h * float(reps.size() + 1) + 4);
  // --lecture: two columns, the number and the report (its kind and line, then its title wrapped),
  // so that nothing is cut in a narrow window.
  const bool lect = lecture::enabled();
  if (ImGui::BeginTable(
          "reports", lect ? 2 : 5,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable,
          ImVec2(0, list_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed);
    if (lect) {
      ImGui::TableSetupColumn("report", ImGuiTableColumnFlags_WidthStretch);
    } else {
      ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("launch", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("title", ImGuiTableColumnFlags_WidthStretch);
    }
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < reps.size(); ++i) {
      const ReportInfo& r = reps[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char id[32];
      std::snprintf(id, sizeof id, "%" PRIu64 "##rep%zu", r.id, i);
      if (ImGui::Selectable(id, app.reports_ui.selected == int(i), ImGuiSelectableFlags_SpanAllColumns))
        app.jump_to_report(i);
      if (app.recorder.enabled)
        app.recorder.add("reports:" + std::to_string(i), ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                         palette::Rgb{0, 0, 0}, r.title.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", app.shown(r.text).c_str());
      ImGui::TableNextColumn();
      const ImVec4 c = r.severity == "error"     ? ImVec4(1, 0.45f, 0.45f, 1)
                       : r.severity == "warning" ? ImVec4(1, 0.8f, 0.3f, 1)
                                                 : ImVec4(0.7f, 0.8f, 1, 1);
      ImGui::TextColored(c, "%s", r.kind.c_str());
      if (lect) {
        if (r.line > 0) {
          const std::string line = "line " + std::to_string(r.line);
          ImGui::SameLine();
          if (ImGui::CalcTextSize(line.c_str()).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
          ImGui::TextUnformatted(line.c_str());
        }
        wrapped_text(app.shown(r.title).c_str());
        continue;
      }
      ImGui::TableNextColumn();
      if (r.line > 0) ImGui::Text("%" PRId64, r.line);
      ImGui::TableNextColumn();
      if (r.launch >= 0 && size_t(r.launch) < m.launches().size())
        ImGui::Text("%" PRIu64, m.launches()[size_t(r.launch)].launch);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(app.shown(r.title).c_str());
    }
    ImGui::EndTable();
  }
  if (sel >= 0) {
    const ReportInfo& r = reps[size_t(sel)];
    ImGui::Separator();
    if (il) {
      const std::string explanation = app.shown(il->explanation);
      // Rows for the items, the table's header, the location line; the explanation below.
      const float want = row_h * (float(il->items.size()) + 1 + (il->hidden_before > 0) + (il->hidden_after > 0)) + 4;
      // Below the table: the explanation (wrapped) and the "Report text" header.
      const ImGuiStyle& st = ImGui::GetStyle();
      const float left = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() -
                         ImGui::GetFrameHeightWithSpacing() - 2 * st.ItemSpacing.y;
      const float expl =
          explanation.empty()
              ? 0
              : ImGui::CalcTextSize(explanation.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y +
                    st.ItemSpacing.y;
      draw_interleaving(app, *il, std::max(row_h * 3, std::min(want, left - expl)));
      if (!explanation.empty()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextUnformatted(explanation.c_str());
        ImGui::PopTextWrapPos();
      }
    } else if (!why.empty()) {
      // The library's advice on command-line options means nothing here.
      const size_t advice = why.find(": give one with --address");
      if (advice != std::string::npos) why.resize(advice);
      ImGui::PushTextWrapPos(0);
      ImGui::TextDisabled("No accesses to list: %s.", app.shown(why).c_str());
      ImGui::PopTextWrapPos();
    }
    // With accesses listed the full text is one click away; without, it is what there is to read.
    if (ImGui::CollapsingHeader("Report text", il ? 0 : ImGuiTreeNodeFlags_DefaultOpen)) {
      ImGui::BeginChild("##report_text", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
      ImGui::TextUnformatted(app.shown(r.text).c_str());
      ImGui::EndChild();
    }
  }
  ImGui::End();
}

}  // namespace synclab::viz::app
