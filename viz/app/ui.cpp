// Small drawing helpers shared by the windows.
#include "app.h"

namespace synclab::viz::app {

ImU32 col(palette::Rgb c, uint8_t alpha) { return IM_COL32(c.r, c.g, c.b, alpha); }

ImVec4 colf(palette::Rgb c) { return ImVec4(c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, 1.0f); }

void help_marker(const char* text) {
  ImGui::SameLine();
  if (ImGui::CalcTextSize("(?)").x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();  // not cut at the edge
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void wrapped_text(const char* text, bool disabled) {
  ImGui::PushTextWrapPos(0);
  if (disabled) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextUnformatted(text);
  if (disabled) ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
}

void legend_item(palette::Rgb c, const char* label, const char* tip) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + h, p.y + h), col(c));
  ImGui::Dummy(ImVec2(h, h));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
  if (tip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
}

}  // namespace synclab::viz::app
