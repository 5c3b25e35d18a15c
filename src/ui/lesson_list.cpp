// lesson_list.cpp: the lesson index in the sidebar.
#include <imgui.h>

#include "ui/panels.h"
#include "ui/widget_log.h"

namespace ui {

int lesson_list(const LessonListView& view) {
  int clicked = -1;
  ImGui::TextDisabled("%s", view.lang == "zh" ? "课程" : "LESSONS");
  ImGui::Spacing();
  for (size_t i = 0; i < view.lessons->size(); ++i) {
    const attn::Lesson& l = (*view.lessons)[i];
    const std::string label = std::to_string(i + 1) + ". " + l.title.get(view.lang) + "##lesson" + l.id;
    if (ImGui::Selectable(label.c_str(), int(i) == view.current)) clicked = int(i);
    widgets_record_last("lesson:" + l.id, "list-item");
  }
  return clicked;
}

}  // namespace ui
