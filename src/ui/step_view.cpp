// step_view.cpp: what the learner reads (lesson and step titles, prose) and the
// Back / Next controls.
#include <imgui.h>

#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/text_wrap.h"
#include "ui/widget_log.h"

namespace ui {

void step_header(const StepView& view) {
  const attn::LessonStep& s = view.lesson->steps[size_t(view.step)];
  ImGui::TextDisabled("%s", view.lesson->title.get(view.lang).c_str());
  ImGui::SetWindowFontScale(1.35f);
  ImGui::TextWrapped("%s", s.title.get(view.lang).c_str());
  ImGui::SetWindowFontScale(1.0f);
  ImGui::Spacing();
  if (!view.prose) return;
  // Paragraphs are separated by newlines in the lesson model. A link to a step,
  // "[title](#lesson/3)", shows its words alone here (the page's text makes it a link).
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  const std::string text = attn::link_words_only(view.text);
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    text_wrapped(std::string_view(text).substr(pos, nl - pos), right);
    ImGui::Spacing();
    pos = nl + 1;
  }
}

Nav step_navigation(const StepView& view) {
  Nav nav = Nav::none;
  const int n = int(view.lesson->steps.size());
  ImGui::BeginDisabled(view.step == 0);
  if (ImGui::Button(text::back.get(view.lang), ImVec2(110, 0))) nav = Nav::back;
  ImGui::EndDisabled();
  if (view.step > 0) widgets_record_last("nav:back", "button");
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::Text(text::step_of.get(view.lang), view.step + 1, n);
  ImGui::SameLine();
  ImGui::BeginDisabled(view.step + 1 >= n);
  if (ImGui::Button(text::next.get(view.lang), ImVec2(110, 0))) nav = Nav::next;
  ImGui::EndDisabled();
  if (view.step + 1 < n) widgets_record_last("nav:next", "button");
  return nav;
}

}  // namespace ui
