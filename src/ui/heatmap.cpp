// heatmap.cpp: a matrix drawn as cells shaded by value, with the value printed in
// each cell so the arithmetic can be checked by hand. Large matrices get smaller
// cells (to fit max_width); their values are then shown on hover.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/panels.h"

namespace ui {
namespace {

constexpr float kFullCell = 52.0f;   // room for "-0.55" with a margin
constexpr float kMinCell = 12.0f;
constexpr float kValueCell = 42.0f;  // below this, values only on hover

float row_label_width(const HeatmapView& view) {
  float w = 0.0f;
  for (const auto& s : view.row_labels) w = std::max(w, ImGui::CalcTextSize(s.c_str()).x);
  return w > 0 ? w + 10.0f : 0.0f;
}

float cell_size(const HeatmapView& view) {
  const Eigen::Index cols = view.m->cols();
  if (view.max_width <= 0.0f || cols == 0) return kFullCell;
  const float fit = (view.max_width - row_label_width(view)) / float(cols);
  return std::clamp(std::floor(fit), kMinCell, kFullCell);
}

}  // namespace

float heatmap_width(const HeatmapView& view) {
  if (!view.m) return 0.0f;
  return row_label_width(view) + float(view.m->cols()) * cell_size(view);
}

void heatmap(const HeatmapView& view) {
  const attn::Mat& m = *view.m;
  if (m.size() == 0) return;
  float scale = 1.0f;
  if (!view.unit_range) {
    scale = 1e-6f;
    for (Eigen::Index i = 0; i < m.size(); ++i)
      if (std::isfinite(m.data()[i])) scale = std::max(scale, std::abs(m.data()[i]));
  }
  const float label_w = row_label_width(view);
  const float cell = cell_size(view), line_h = ImGui::GetTextLineHeight();
  const bool show_values = cell >= kValueCell;
  // Column labels are drawn when they fit their cell; when they only fit two
  // cells, every other one (so that "A6", "M7" never run together as "A6M7").
  float widest = 0.0f;
  for (const auto& s : view.col_labels) widest = std::max(widest, ImGui::CalcTextSize(s.c_str()).x);
  const bool col_labels_fit = !view.col_labels.empty() && widest <= 2.0f * cell - 6.0f;
  const int label_every = widest <= cell - 4.0f ? 1 : 2;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float top = origin.y + (col_labels_fit ? line_h + 4.0f : 0.0f);
  if (col_labels_fit) {
    for (Eigen::Index c = 0; c < m.cols() && size_t(c) < view.col_labels.size(); c += label_every) {
      const char* t = view.col_labels[size_t(c)].c_str();
      const float tw = ImGui::CalcTextSize(t).x;
      dl->AddText(ImVec2(origin.x + label_w + c * cell + (cell - tw) * 0.5f, origin.y), ImGui::GetColorU32(ImGuiCol_Text), t);
    }
  }
  const float gap = cell >= 24 ? 2.0f : 1.0f;
  // Rounded corners cost ImGui about ten times the vertices of square ones, so
  // only cells big enough to print a value get them.
  const float rounding = show_values ? 3.0f : 0.0f;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool window_hovered = ImGui::IsWindowHovered();
  const float right = origin.x + label_w + m.cols() * cell;
  char buf[32];
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    const float y = top + r * cell;
    // Rows scrolled out of sight draw nothing: a step with four 16 x 16 heads
    // otherwise hands the GPU every cell on every frame.
    if (!ImGui::IsRectVisible(ImVec2(origin.x, y), ImVec2(right, y + cell))) continue;
    if (size_t(r) < view.row_labels.size() && line_h <= cell + 4)
      dl->AddText(ImVec2(origin.x, y + (cell - line_h) * 0.5f), ImGui::GetColorU32(ImGuiCol_Text),
                  view.row_labels[size_t(r)].c_str());
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      const float v = m(r, c);
      const float t = std::isfinite(v) ? std::clamp(std::abs(v) / scale, 0.0f, 1.0f) : 0.0f;
      // white -> blue for positive, white -> orange for negative values
      const ImVec4 hi = v >= 0 ? ImVec4(0.16f, 0.38f, 0.82f, 1) : ImVec4(0.90f, 0.45f, 0.10f, 1);
      const ImVec4 col(1 + (hi.x - 1) * t, 1 + (hi.y - 1) * t, 1 + (hi.z - 1) * t, 1);
      const ImVec2 a(origin.x + label_w + c * cell, y), b(a.x + cell - gap, a.y + cell - gap);
      dl->AddRectFilled(a, b, ImGui::GetColorU32(col), rounding);
      if (!std::isfinite(v) || t < 0.02f) dl->AddRect(a, b, IM_COL32(220, 223, 230, 255), rounding);
      if (show_values) {
        if (std::isfinite(v)) std::snprintf(buf, sizeof buf, "%.*f", view.decimals, double(v));
        else std::snprintf(buf, sizeof buf, "n/a");
        const ImVec2 ts = ImGui::CalcTextSize(buf);
        const ImU32 text_col = t > 0.55f ? IM_COL32(255, 255, 255, 255) : ImGui::GetColorU32(ImGuiCol_Text);
        dl->AddText(ImVec2(a.x + (cell - gap - ts.x) * 0.5f, a.y + (cell - gap - ts.y) * 0.5f), text_col, buf);
      }
      if (window_hovered && mouse.x >= a.x && mouse.x < a.x + cell && mouse.y >= a.y && mouse.y < a.y + cell) {
        dl->AddRect(a, b, IM_COL32(30, 40, 60, 255), rounding, 0, 2.0f);
        const std::string rl = size_t(r) < view.row_labels.size() ? view.row_labels[size_t(r)] : std::to_string(r);
        const std::string cl = size_t(c) < view.col_labels.size() ? view.col_labels[size_t(c)] : std::to_string(c);
        ImGui::SetTooltip("%s, %s: %.4f", rl.c_str(), cl.c_str(), double(v));
      }
    }
  }
  ImGui::Dummy(ImVec2(label_w + m.cols() * cell, top - origin.y + m.rows() * cell));
}

}  // namespace ui
