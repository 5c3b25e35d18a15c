// exercise_panel.cpp: one card per exercise of the step. The goal comes first with
// a status mark (an empty ring while open, a green disc with a check once met),
// then each condition with its current value, the hints revealed so far, and the
// buttons for another hint and for the stored solution. Whether a goal is met is
// decided by the core (attn::check_exercise); this file only shows it. While the
// step's quiz is unchecked (view.locked, from attn::exercises_open) a single card
// holds one line instead: no goal, no values, no buttons.
#include <imgui.h>

#include <cstdio>

#include "ui/card.h"
#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/text_wrap.h"
#include "ui/widget_log.h"

namespace ui {
namespace {

const ImVec4 kGreen(0.13f, 0.55f, 0.29f, 1), kMuted(0.45f, 0.48f, 0.55f, 1);

// A status mark of diameter `size`, centred on a text line: ring (open) or disc
// with a check (met).
void status_mark(bool met, float size) {
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const ImVec2 c(p.x + size * 0.5f, p.y + line * 0.5f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (met) {
    dl->AddCircleFilled(c, size * 0.5f, ImGui::GetColorU32(kGreen));
    const ImVec2 tick[3] = {ImVec2(c.x - size * 0.24f, c.y + size * 0.02f), ImVec2(c.x - size * 0.06f, c.y + size * 0.2f),
                            ImVec2(c.x + size * 0.26f, c.y - size * 0.18f)};
    dl->AddPolyline(tick, 3, IM_COL32(255, 255, 255, 255), 0, size * 0.13f);
  } else {
    dl->AddCircle(c, size * 0.5f - 1.0f, ImGui::GetColorU32(kMuted), 0, 1.5f);
  }
  ImGui::Dummy(ImVec2(size, line));
}

}  // namespace

ExerciseAction exercise_panel(const ExercisesView& view) {
  ExerciseAction action;
  if (!view.exercises) return action;
  const std::string& lang = view.lang;
  const float width = ImGui::GetContentRegionAvail().x;
  if (view.locked) {
    Card card;
    card_begin(card, width);
    const float right = ImGui::GetCursorScreenPos().x + width - 2 * kCardPad;
    status_mark(false, ImGui::GetTextLineHeight());
    ImGui::SameLine();
    ImGui::TextColored(kMuted, "%s", text::try_it.get(lang));
    ImGui::SameLine();
    text_wrapped(text::exercises_locked(lang, view.quizzes, view.exercises->size()), right);
    widgets_record_last("exercises:locked", "panel-hidden");
    card_end(card, {IM_COL32(246, 248, 255, 255), IM_COL32(200, 212, 240, 255)});
    return action;
  }
  for (size_t i = 0; i < view.exercises->size(); ++i) {
    const attn::Exercise& ex = (*view.exercises)[i];
    const attn::ExerciseStatus* st = view.status && i < view.status->size() ? &(*view.status)[i] : nullptr;
    const bool met = st && st->met;
    const int shown = view.hints_shown && i < view.hints_shown->size() ? (*view.hints_shown)[i] : 0;
    ImGui::PushID(ex.id.c_str());
    Card card;
    card_begin(card, width);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 2 * kCardPad);
    const float right = ImGui::GetCursorScreenPos().x + width - 2 * kCardPad;  // for text_wrapped

    // 1 the goal and its state
    const float line = ImGui::GetTextLineHeight();
    status_mark(met, line);
    ImGui::SameLine();
    ImGui::TextColored(met ? kGreen : ImVec4(0.20f, 0.42f, 0.85f, 1), "%s", text::try_it.get(lang));
    ImGui::SameLine();
    text_wrapped(ex.goal.get(lang), right);
    if (met) ImGui::TextColored(kGreen, "%s", text::goal_met.get(lang));

    // 2 the conditions, each with the value it has now
    if (st) {
      const float indent = line + ImGui::GetStyle().ItemSpacing.x;
      for (size_t k = 0; k < st->conditions.size(); ++k) {
        const attn::ConditionStatus& cond = st->conditions[k];
        const bool rhs_literal = k >= ex.check.size() || ex.check[k].rhs.is_number;
        ImGui::Indent(indent);
        status_mark(cond.met, line * 0.7f);
        ImGui::SameLine();
        if (cond.pending)
          ImGui::TextColored(kMuted, "%s   (%s)", cond.text.c_str(), text::not_measured.get(lang));
        else if (rhs_literal)
          ImGui::TextColored(cond.met ? kGreen : kMuted, "%s   (%s %.3g)", cond.text.c_str(), text::now_is.get(lang),
                             double(cond.lhs));
        else
          ImGui::TextColored(cond.met ? kGreen : kMuted, "%s   (%s %.3g, %.3g)", cond.text.c_str(),
                             text::now_is.get(lang), double(cond.lhs), double(cond.rhs));
        ImGui::Unindent(indent);
      }
      if (!st->error.empty()) ImGui::TextColored(ImVec4(0.75f, 0.15f, 0.10f, 1), "%s", st->error.c_str());
    }

    // 3 hints so far, then the buttons
    for (int h = 0; h < shown && h < int(ex.hints.size()); ++h) {
      ImGui::TextColored(kMuted, text::hint_n.get(lang), h + 1);
      ImGui::SameLine();
      text_wrapped(ex.hints[size_t(h)].get(lang), right);
    }
    if (shown < int(ex.hints.size())) {
      if (small_button(shown == 0 ? text::show_hint.get(lang) : text::next_hint.get(lang)))
        action = {ExerciseAction::Kind::show_hint, int(i)};
      widgets_record_last("hint:" + ex.id, "button");
      ImGui::SameLine();
    }
    if (small_button(text::show_solution.get(lang))) action = {ExerciseAction::Kind::apply_solution, int(i)};
    widgets_record_last("solution:" + ex.id, "button");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text::solution_tip.get(lang));

    ImGui::PopTextWrapPos();
    CardColours colours;
    if (met) colours = {IM_COL32(235, 248, 239, 255), IM_COL32(80, 170, 110, 255)};
    else colours = {IM_COL32(246, 248, 255, 255), IM_COL32(200, 212, 240, 255)};
    card_end(card, colours);
    ImGui::PopID();
  }
  return action;
}

}  // namespace ui
