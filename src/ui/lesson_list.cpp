// lesson_list.cpp: the lesson index in the sidebar, with how far the learner got.
#include <imgui.h>

#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/text_wrap.h"
#include "ui/widget_log.h"

namespace ui {

int lesson_list(const LessonListView& view) {
  int clicked = -1;
  ImGui::TextDisabled("%s", text::lessons.get(view.lang));
  ImGui::Spacing();
  for (size_t i = 0; i < view.lessons->size(); ++i) {
    const attn::Lesson& l = (*view.lessons)[i];
    const float p = i < view.progress.size() ? view.progress[i] : 0.0f;
    // Long titles wrap (under the title, not under the number) instead of being cut.
    const std::string number = std::to_string(i + 1) + ". ", title = l.title.get(view.lang);
    const ImVec2 start = ImGui::GetCursorScreenPos();
    // Titles line up after the widest number ("12. "), so two digits never overlap them.
    const float indent = ImGui::CalcTextSize((std::to_string(view.lessons->size()) + ". ").c_str()).x;
    const float wrap = ImGui::GetContentRegionAvail().x - indent - 4.0f;
    const std::vector<std::string_view> lines = wrap_lines(title, wrap);
    const float line = ImGui::GetTextLineHeight(), pad = line * 0.3f;
    const float text_h = float(lines.size()) * line + float(lines.size() - 1) * 2.0f;
    if (ImGui::Selectable(("##lesson" + l.id).c_str(), int(i) == view.current, 0, ImVec2(0, text_h + 2.0f * pad)))
      clicked = int(i);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 col = ImGui::GetColorU32(ImGuiCol_Text);
    dl->AddText(ImVec2(start.x, start.y + pad), col, number.c_str());
    for (size_t k = 0; k < lines.size(); ++k)
      dl->AddText(ImVec2(start.x + indent, start.y + pad + float(k) * (line + 2.0f)), col, lines[k].data(),
                  lines[k].data() + lines[k].size());
    widgets_record_last("lesson:" + l.id, "list-item");
    if (ImGui::IsItemHovered() && p > 0.0f)
      ImGui::SetTooltip("%d%%%s", int(p * 100.0f + 0.5f), p >= 1.0f ? (std::string(" - ") + text::done.get(view.lang)).c_str() : "");
    // A thin progress bar under each lesson: how many of its steps were reached.
    const float w = ImGui::GetItemRectSize().x;
    const float y = ImGui::GetItemRectMax().y - 2.0f;
    dl->AddRectFilled(ImVec2(start.x, y), ImVec2(start.x + w, y + 2.0f), IM_COL32(225, 229, 238, 255));
    if (p > 0.0f)
      dl->AddRectFilled(ImVec2(start.x, y), ImVec2(start.x + w * p, y + 2.0f),
                        p >= 1.0f ? IM_COL32(46, 160, 90, 255) : IM_COL32(51, 105, 217, 255));
  }
  return clicked;
}

}  // namespace ui
