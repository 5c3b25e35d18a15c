// train_controls.cpp: the control row of a live experiment: Start / Pause,
// Step, Reset, a speed choice, the number of workers and a progress bar.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/widget_log.h"

namespace ui {

TrainAction train_controls(const TrainControlsView& view) {
  TrainAction action;
  const std::string& lang = view.lang;
  ImGui::PushID("train");
  // The worker stopped: say so, with a way to start it again, above the row. (While
  // it starts, the bar says so instead: a line above the row that went away once it
  // was ready moved everything below by a line, under a finger about to tap.)
  if (!view.failed.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.20f, 0.15f, 1));
    ImGui::TextWrapped(text::train_failed.get(lang), view.failed.c_str());
    ImGui::PopStyleColor();
    if (ImGui::Button(text::train_retry.get(lang))) action.kind = TrainAction::Kind::retry;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text::train_retry_tip.get(lang));
    widgets_record_last("train:retry", "button");
  }
  const char* run_label = view.running ? text::train_pause.get(lang)
                          : view.started ? text::train_resume.get(lang)
                                         : text::train_start.get(lang);
  ImGui::BeginDisabled(view.finished);
  if (ImGui::Button(run_label, ImVec2(110.0f, 0))) action.kind = view.running ? TrainAction::Kind::pause : TrainAction::Kind::run;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text::train_start_tip.get(lang));
  if (!view.finished) widgets_record_last("train:run", "button");
  ImGui::SameLine();
  if (ImGui::Button(text::train_step.get(lang))) action.kind = TrainAction::Kind::step;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text::train_step_tip.get(lang));
  if (!view.finished) widgets_record_last("train:step", "button");
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!view.started);
  if (ImGui::Button(text::train_reset.get(lang))) action.kind = TrainAction::Kind::reset;
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", text::train_reset_tip.get(lang));
  if (view.started) widgets_record_last("train:reset", "button");
  ImGui::EndDisabled();

  const struct {
    const char* id;
    const UiText* label;
    const UiText* tip;
  } speeds[] = {{"slow", &text::speed_slow, &text::speed_slow_tip},
                {"normal", &text::speed_normal, &text::speed_normal_tip},
                {"fast", &text::speed_fast, &text::speed_fast_tip}};
  // The speed choice goes on a row of its own when it does not fit beside the
  // buttons (a phone), rather than running off the edge.
  float speed_w = ImGui::CalcTextSize(text::train_speed.get(lang)).x;
  for (const auto& s : speeds)
    speed_w += 2.0f + ImGui::CalcTextSize(s.label->get(lang)).x + 2.0f * ImGui::GetStyle().FramePadding.x;
  ImGui::SameLine(0.0f, 20.0f);
  if (ImGui::GetContentRegionAvail().x < speed_w) ImGui::NewLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(text::train_speed.get(lang));
  for (const auto& s : speeds) {
    ImGui::SameLine(0.0f, 2.0f);
    const bool on = view.speed == s.id;
    if (on) {  // the same look as a picked option of a demo's choice
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.20f, 0.42f, 0.85f, 1));
      ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.25f, 0.48f, 0.90f, 1));
      ImGui::PushStyleColor(ImGuiCol_ButtonActive, ImVec4(0.18f, 0.38f, 0.80f, 1));
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
    }
    if (ImGui::Button(s.label->get(lang)) && !on) {
      action.kind = TrainAction::Kind::speed;
      action.speed = s.id;
    }
    if (on) ImGui::PopStyleColor(4);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.tip->get(lang));
    widgets_record_last(std::string("train:speed:") + s.id, "button");
  }

  // Workers: − N +, on a row of its own when it does not fit.
  char workers[64];
  std::snprintf(workers, sizeof workers, text::train_workers.get(lang), view.workers);
  const float step_w = ImGui::GetFrameHeight();
  const float workers_w = ImGui::CalcTextSize(workers).x + 2.0f * step_w + 12.0f;
  ImGui::SameLine(0.0f, 20.0f);
  if (ImGui::GetContentRegionAvail().x < workers_w) ImGui::NewLine();
  ImGui::BeginDisabled(view.workers <= 1);
  if (ImGui::Button("-", ImVec2(step_w, 0))) {
    action.kind = TrainAction::Kind::workers;
    action.workers = view.workers - 1;
  }
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", text::train_workers_less.get(lang));
  if (view.workers > 1) widgets_record_last("train:workers:less", "button");
  ImGui::EndDisabled();
  ImGui::SameLine(0.0f, 4.0f);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(workers);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip(text::train_workers_tip.get(lang), view.cores);
  ImGui::SameLine(0.0f, 4.0f);
  ImGui::BeginDisabled(view.workers >= view.max_workers);
  if (ImGui::Button("+", ImVec2(step_w, 0))) {
    action.kind = TrainAction::Kind::workers;
    action.workers = view.workers + 1;
  }
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", text::train_workers_more.get(lang));
  if (view.workers < view.max_workers) widgets_record_last("train:workers:more", "button");
  ImGui::EndDisabled();

  // The bar takes what is left of the row, on a row of its own when that is too
  // little for its text (a narrow window, or longer labels in the other language).
  ImGui::SameLine(0.0f, 20.0f);
  if (ImGui::GetContentRegionAvail().x < 150.0f) ImGui::NewLine();
  const float bar_w = std::min(220.0f, ImGui::GetContentRegionAvail().x);
  char overlay[64];
  if (view.finished) std::snprintf(overlay, sizeof overlay, "%s", text::train_finished.get(lang));
  else if (view.starting && view.progress == 0) std::snprintf(overlay, sizeof overlay, "%s", text::train_starting.get(lang));
  else std::snprintf(overlay, sizeof overlay, text::train_progress.get(lang), view.progress, view.planned);
  const float fraction = view.planned > 0 ? float(view.progress) / float(view.planned) : 0.0f;
  ImGui::PushStyleColor(ImGuiCol_PlotHistogram, view.finished ? ImVec4(0.20f, 0.62f, 0.30f, 1) : ImVec4(0.20f, 0.42f, 0.85f, 1));
  ImGui::ProgressBar(fraction, ImVec2(bar_w, 0), overlay);
  ImGui::PopStyleColor();
  widgets_record_last("train:progress", "progress");
  ImGui::PopID();
  return action;
}

}  // namespace ui
