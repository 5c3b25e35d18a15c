// quiz_panel.cpp: "predict, then reveal". The learner picks an option before the
// result is shown and presses Check; the options then lock, the right one is
// marked green (and a wrong pick red), and the explanation appears. The app keeps
// the answers and decides which panels stay hidden until then.
#include <imgui.h>

#include "ui/card.h"
#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/text_wrap.h"
#include "ui/widget_log.h"

namespace ui {

QuizAction quiz_panel(const QuizzesView& view) {
  QuizAction action;
  if (!view.quizzes) return action;
  const std::string& lang = view.lang;
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec4 green(0.13f, 0.55f, 0.29f, 1), red(0.75f, 0.18f, 0.12f, 1), accent(0.20f, 0.42f, 0.85f, 1);
  for (size_t i = 0; i < view.quizzes->size(); ++i) {
    const attn::Quiz& quiz = (*view.quizzes)[i];
    const QuizState state = view.states && i < view.states->size() ? (*view.states)[i] : QuizState{};
    ImGui::PushID(quiz.id.c_str());
    Card card;
    card_begin(card, width);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 2 * kCardPad);
    const float right = ImGui::GetCursorScreenPos().x + width - 2 * kCardPad;  // for text_wrapped
    ImGui::TextColored(accent, "%s", text::predict.get(lang));
    text_wrapped(quiz.question.get(lang), right);
    ImGui::Spacing();

    // The options: radio buttons until checked, then marked right / wrong. An
    // outline keeps the empty circles visible on the card's tinted background.
    ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 1.0f);
    ImGui::PushStyleColor(ImGuiCol_Border, ImVec4(0.70f, 0.66f, 0.55f, 1));
    for (size_t o = 0; o < quiz.options.size(); ++o) {
      const bool is_answer = int(o) == quiz.answer, is_pick = int(o) == state.picked;
      ImGui::PushID(int(o));
      if (state.checked) {
        if (is_answer) ImGui::PushStyleColor(ImGuiCol_Text, green);
        else if (is_pick) ImGui::PushStyleColor(ImGuiCol_Text, red);
      }
      ImGui::BeginDisabled(state.checked && !is_answer && !is_pick);
      const std::string label = quiz.options[o].get(lang);
      const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
      if (ImGui::GetFrameHeight() + spacing + ImGui::CalcTextSize(label.c_str()).x <= right - ImGui::GetCursorScreenPos().x) {
        if (ImGui::RadioButton(label.c_str(), is_pick) && !state.checked) action = {QuizAction::Kind::pick, int(i), int(o)};
      } else {
        // Too long for the card (a phone): the words wrap beside the button, and
        // a tap on them picks the option too.
        ImGui::BeginGroup();
        const bool pressed = ImGui::RadioButton("##o", is_pick);
        ImGui::SameLine(0.0f, spacing);
        text_wrapped(label, right);
        ImGui::EndGroup();
        if ((pressed || ImGui::IsItemClicked()) && !state.checked) action = {QuizAction::Kind::pick, int(i), int(o)};
      }
      ImGui::EndDisabled();
      if (state.checked && (is_answer || is_pick)) ImGui::PopStyleColor();
      if (!state.checked) widgets_record_last("quiz:" + quiz.id + ":" + std::to_string(o), "radio");
      ImGui::PopID();
    }
    ImGui::PopStyleColor();
    ImGui::PopStyleVar();
    ImGui::Spacing();

    if (!state.checked) {
      ImGui::BeginDisabled(state.picked < 0);
      if (ImGui::Button(text::check.get(lang), ImVec2(110, 0))) action = {QuizAction::Kind::check, int(i), state.picked};
      ImGui::EndDisabled();
      if (state.picked >= 0) widgets_record_last("quiz-check:" + quiz.id, "button");
      if (state.picked < 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", text::pick_first.get(lang));
      }
    } else {
      const bool correct = state.picked == quiz.answer;
      if (correct) {
        ImGui::TextColored(green, "%s", text::right.get(lang));
      } else {
        ImGui::TextColored(red, "%s", text::wrong.get(lang));
        ImGui::SameLine();
        if (quiz.answer >= 0 && size_t(quiz.answer) < quiz.options.size())
          ImGui::TextColored(green, "%s", quiz.options[size_t(quiz.answer)].get(lang).c_str());
      }
      text_wrapped(quiz.explanation.get(lang), right);
    }
    ImGui::PopTextWrapPos();
    CardColours colours;
    if (state.checked)
      colours = state.picked == quiz.answer ? CardColours{IM_COL32(235, 248, 239, 255), IM_COL32(80, 170, 110, 255)}
                                            : CardColours{IM_COL32(253, 241, 238, 255), IM_COL32(220, 140, 120, 255)};
    else colours = {IM_COL32(255, 251, 240, 255), IM_COL32(232, 210, 160, 255)};
    card_end(card, colours);
    ImGui::PopID();
  }
  return action;
}

}  // namespace ui
