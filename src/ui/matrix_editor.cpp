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
}

float matrix_editor_width(const MatrixEditorView& view) {
  float label_w = 0.0f;
  for (const auto& s : view.row_labels) label_w = std::max(label_w, ImGui::CalcTextSize(s.c_str()).x);
  const float pad = 2.0f * ImGui::GetStyle().CellPadding.x;
  return label_w + pad + float(view.m ? view.m->cols() : 0) * (kCellW + pad);
}

std::optional<CellEdit> matrix_editor(const MatrixEditorView& view) {
  std::optional<CellEdit> edit;
  const attn::Mat& m = *view.m;
  ImGui::PushID(view.name.c_str());
  if (ImGui::BeginTable("##m", int(m.cols()) + 1, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoHostExtendX)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      ImGui::TableSetupColumn(size_t(c) < view.col_labels.size() ? view.col_labels[size_t(c)].c_str() : "",
                              ImGuiTableColumnFlags_WidthFixed, kCellW);
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
        ImGui::SetNextItemWidth(kCellW);
        if (ImGui::DragFloat("##v", &v, view.speed, -100.0f, 100.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp) &&
            std::isfinite(v))
          edit = CellEdit{view.name, int(r), int(c), v};
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s[%d][%d] = %.4f\n%s", view.name.c_str(), int(r), int(c), double(m(r, c)),
                            text::edit_tip.get(view.lang));
        widgets_record_last("edit:" + view.name + ":" + std::to_string(r) + ":" + std::to_string(c), "drag-number");
        ImGui::PopID();
      }
    }
    ImGui::EndTable();
  }
  ImGui::PopID();
  return edit;
}

MatrixAction matrix_tools(const std::string& name, const std::string& lang) {
  MatrixAction action = MatrixAction::none;
  ImGui::PushID(name.c_str());
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(6, 2));
  if (ImGui::SmallButton(text::randomise.get(lang))) action = MatrixAction::randomise;
  widgets_record_last("randomise:" + name, "button");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text::randomise_tip.get(lang));
  ImGui::SameLine();
  if (ImGui::SmallButton(text::reset_matrix.get(lang))) action = MatrixAction::reset;
  widgets_record_last("reset:" + name, "button");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text::reset_matrix_tip.get(lang));
  ImGui::PopStyleVar();
  ImGui::PopID();
  return action;
}

}  // namespace ui
