// heatmap.cpp: a matrix drawn as cells shaded by value, with the value printed in
// each cell so the arithmetic can be checked by hand.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/panels.h"

namespace ui {

void heatmap(const HeatmapView& view) {
  const attn::Mat& m = *view.m;
  if (m.size() == 0) return;
  float scale = 1.0f;
  if (!view.unit_range) scale = std::max(1e-6f, m.cwiseAbs().maxCoeff());
  float label_w = 0.0f;
  for (const auto& s : view.row_labels) label_w = std::max(label_w, ImGui::CalcTextSize(s.c_str()).x);
  label_w += label_w > 0 ? 10.0f : 0.0f;
  const float cell = 58.0f, line_h = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float top = origin.y + (view.col_labels.empty() ? 0.0f : line_h + 4.0f);
  for (Eigen::Index c = 0; c < m.cols() && size_t(c) < view.col_labels.size(); ++c) {
    const char* t = view.col_labels[size_t(c)].c_str();
    const float tw = ImGui::CalcTextSize(t).x;
    dl->AddText(ImVec2(origin.x + label_w + c * cell + (cell - tw) * 0.5f, origin.y), ImGui::GetColorU32(ImGuiCol_Text), t);
  }
  char buf[32];
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    const float y = top + r * cell;
    if (size_t(r) < view.row_labels.size())
      dl->AddText(ImVec2(origin.x, y + (cell - line_h) * 0.5f), ImGui::GetColorU32(ImGuiCol_Text),
                  view.row_labels[size_t(r)].c_str());
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      const float v = m(r, c);
      const float t = std::isfinite(v) ? std::clamp(std::abs(v) / scale, 0.0f, 1.0f) : 0.0f;
      // white -> blue for positive, white -> orange for negative values
      const ImVec4 hi = v >= 0 ? ImVec4(0.16f, 0.38f, 0.82f, 1) : ImVec4(0.90f, 0.45f, 0.10f, 1);
      const ImVec4 col(1 + (hi.x - 1) * t, 1 + (hi.y - 1) * t, 1 + (hi.z - 1) * t, 1);
      const ImVec2 a(origin.x + label_w + c * cell, y), b(a.x + cell - 2, a.y + cell - 2);
      dl->AddRectFilled(a, b, ImGui::GetColorU32(col), 3.0f);
      if (std::isfinite(v)) std::snprintf(buf, sizeof buf, "%.*f", view.decimals, double(v));
      else std::snprintf(buf, sizeof buf, "n/a");
      const ImVec2 ts = ImGui::CalcTextSize(buf);
      const ImU32 text_col = t > 0.55f ? IM_COL32(255, 255, 255, 255) : ImGui::GetColorU32(ImGuiCol_Text);
      dl->AddText(ImVec2(a.x + (cell - 2 - ts.x) * 0.5f, a.y + (cell - 2 - ts.y) * 0.5f), text_col, buf);
    }
  }
  ImGui::Dummy(ImVec2(label_w + m.cols() * cell, top - origin.y + m.rows() * cell));
}

}  // namespace ui
