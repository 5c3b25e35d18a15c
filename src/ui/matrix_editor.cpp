// matrix_editor.cpp: drag a number left/right to change it, Ctrl+click or
// double-click to type one. Only finite values can be entered. Below it, buttons
// to randomise the matrix or put back the step's values.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/widget_log.h"

namespace ui {
namespace {
constexpr float kCellW = 62.0f;
constexpr float kMinCellW = 50.0f;  // "-0.12" still fits

float row_label_width(const MatrixEditorView& view) {
  float label_w = 0.0f;
  for (const auto& s : view.row_labels) label_w = std::max(label_w, ImGui::CalcTextSize(s.c_str()).x);
  return label_w;
}

// Cells narrow from kCellW down to kMinCellW to fit view.max_width; past that the
// grid scrolls sideways inside its card.
float cell_width(const MatrixEditorView& view) {
  const int cols = view.m ? int(view.m->cols()) : 0;
  if (view.max_width <= 0.0f || cols == 0) return kCellW;
  const float pad = 2.0f * ImGui::GetStyle().CellPadding.x;
  const float fit = (view.max_width - row_label_width(view) - pad) / float(cols) - pad;
  return std::clamp(fit, kMinCellW, kCellW);
}

float grid_width(const MatrixEditorView& view) {
  const float pad = 2.0f * ImGui::GetStyle().CellPadding.x;
  return row_label_width(view) + pad + float(view.m ? view.m->cols() : 0) * (cell_width(view) + pad);
}

}  // namespace

float matrix_editor_width(const MatrixEditorView& view) {
  const float w = grid_width(view);
  return view.max_width > 0.0f ? std::min(w, view.max_width) : w;
}

std::optional<CellEdit> matrix_editor(const MatrixEditorView& view) {
  std::optional<CellEdit> edit;
  const attn::Mat& m = *view.m;
  const float cell_w = cell_width(view);
  ImGui::PushID(view.name.c_str());
  // Too wide even with narrow cells: the grid scrolls sideways in a strip as wide
  // as the card (a finger swipes it; see app/lab_touch.cpp), the page never does.
  const float full_w = grid_width(view);
  const bool strip = view.max_width > 0.0f && full_w > view.max_width + 0.5f;
  if (strip) {
    const ImGuiStyle& st = ImGui::GetStyle();
    const float row_h = ImGui::GetFrameHeight() + 2.0f * st.CellPadding.y;
    const float head_h = view.col_labels.empty() ? 0.0f : ImGui::GetTextLineHeight() + 2.0f * st.CellPadding.y;
    const float h = head_h + float(m.rows()) * row_h + st.ScrollbarSize + 2.0f * st.WindowPadding.y;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, st.WindowPadding.y));
    ImGui::BeginChild("##strip", ImVec2(view.max_width, h), false, ImGuiWindowFlags_HorizontalScrollbar);
  }
  // Numbers keep the frame's height but need little side padding.
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(4.0f, ImGui::GetStyle().FramePadding.y));
  // In a strip the table is given its full width; left to fit the strip, ImGui
  // squeezes the columns past the strip's edge to nothing instead of scrolling.
  if (ImGui::BeginTable("##m", int(m.cols()) + 1, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoHostExtendX,
                        ImVec2(strip ? full_w : 0.0f, 0.0f))) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      ImGui::TableSetupColumn(size_t(c) < view.col_labels.size() ? view.col_labels[size_t(c)].c_str() : "",
                              ImGuiTableColumnFlags_WidthFixed, cell_w);
    if (!view.col_labels.empty()) ImGui::TableHeadersRow();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::AlignTextToFramePadding();
      ImGui::TextUnformatted(size_t(r) < view.row_labels.size() ? view.row_labels[size_t(r)].c_str() : "");
      for (Eigen::Index c = 0; c < m.cols(); ++c) {
        ImGui::TableNextColumn();
        float v = m(r, c);
        ImGui::PushID(int(r * m.cols() + c));
        ImGui::SetNextItemWidth(cell_w);
        if (ImGui::DragFloat("##v", &v, view.speed, -kEditLimit, kEditLimit, "%.2f", ImGuiSliderFlags_AlwaysClamp) &&
            std::isfinite(v))
          edit = CellEdit{view.name, int(r), int(c), v};
        if (ImGui::IsItemHovered() && !touch_targets())
          ImGui::SetTooltip("%s[%d][%d] = %.4f\n%s", view.name.c_str(), int(r), int(c), double(m(r, c)),
                            text::edit_tip.get(view.lang));
        widgets_record_last("edit:" + view.name + ":" + std::to_string(r) + ":" + std::to_string(c), "drag-number");
        ImGui::PopID();
      }
    }
    ImGui::EndTable();
  }
  ImGui::PopStyleVar();
  if (strip) {
    ImGui::EndChild();
    ImGui::PopStyleVar();
  }
  ImGui::PopID();
  return edit;
}

MatrixAction matrix_tools(const std::string& name, const std::string& lang) {
  MatrixAction action = MatrixAction::none;
  ImGui::PushID(name.c_str());
  if (!touch_targets()) ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(6, 2));
  if (small_button(text::randomise.get(lang))) action = MatrixAction::randomise;
  widgets_record_last("randomise:" + name, "button");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text::randomise_tip.get(lang));
  ImGui::SameLine();
  if (small_button(text::reset_matrix.get(lang))) action = MatrixAction::reset;
  widgets_record_last("reset:" + name, "button");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text::reset_matrix_tip.get(lang));
  if (!touch_targets()) ImGui::PopStyleVar();
  ImGui::PopID();
  return action;
}

}  // namespace ui
