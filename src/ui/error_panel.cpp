// error_panel.cpp: a visible list of what went wrong, so a broken lesson is
// explained instead of silently missing.
#include <imgui.h>

#include "ui/panels.h"
#include "ui/strings.h"

namespace ui {

void error_panel(const std::vector<std::string>& errors, const std::string& lang) {
  if (errors.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(1.0f, 0.95f, 0.94f, 1.0f));
  ImGui::PushStyleColor(ImGuiCol_Border, ImVec4(0.85f, 0.35f, 0.30f, 1.0f));
  const float h = ImGui::GetTextLineHeightWithSpacing() * float(errors.size() + 1) +
                  2.0f * ImGui::GetStyle().WindowPadding.y + 4.0f;
  ImGui::BeginChild("##errors", ImVec2(0, h < 200 ? h : 200), true);
  ImGui::TextColored(ImVec4(0.70f, 0.15f, 0.12f, 1), "%s", text::load_errors.get(lang));
  for (const auto& e : errors) ImGui::TextWrapped("%s", e.c_str());
  ImGui::EndChild();
  ImGui::PopStyleColor(2);
}

}  // namespace ui
