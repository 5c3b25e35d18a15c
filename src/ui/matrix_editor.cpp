// matrix_editor.cpp: drag a number left/right to change it, Ctrl+click or
// double-click to type one. Only finite values can be entered.
#include <imgui.h>

#include <cmath>

#include "ui/panels.h"
#include "ui/widget_log.h"

namespace ui {

std::optional<CellEdit> matrix_editor(const MatrixEditorView& view) {
  std::optional<CellEdit> edit;
  const attn::Mat& m = *view.m;
  const float cell_w = 62.0f;
  ImGui::PushID(view.name.c_str());
  if (ImGui::BeginTable("##m", int(m.cols()) + 1, ImGuiTableFlags_SizingFixedFit)) {
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
        if (ImGui::DragFloat("##v", &v, view.speed, -100.0f, 100.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp) &&
            std::isfinite(v))
          edit = CellEdit{view.name, int(r), int(c), v};
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s[%d][%d] = %.4f\ndrag to change, double-click to type", view.name.c_str(), int(r),
                            int(c), double(m(r, c)));
        widgets_record_last("edit:" + view.name + ":" + std::to_string(r) + ":" + std::to_string(c), "drag-number");
        ImGui::PopID();
      }
    }
    ImGui::EndTable();
  }
  ImGui::PopID();
  return edit;
}

}  // namespace ui
