// token_arrows.cpp: who attends to whom, drawn. Query tokens sit in a strip above
// the key tokens; a curve joins query i to key j with thickness and opacity equal
// to the weight w_ij. Hovering a query shows its row (weights printed at the
// keys); hovering a key shows its column (who attends to it).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/panels.h"
#include "ui/widget_log.h"

namespace ui {
namespace {

constexpr float kMinBox = 54.0f;  // token box width at least
constexpr float kBoxGap = 14.0f;     // between boxes
constexpr float kDrop = 120.0f;   // vertical distance between the strips

std::string label(const std::vector<std::string>& labels, Eigen::Index i) {
  return size_t(i) < labels.size() ? labels[size_t(i)] : std::to_string(i + 1);
}

float text_width(const std::vector<std::string>& labels, Eigen::Index n) {
  float w = 0.0f;
  for (Eigen::Index i = 0; i < n; ++i) w = std::max(w, ImGui::CalcTextSize(label(labels, i).c_str()).x);
  return w;
}

// Box width and gap: roomy when there is space, squeezed (down to the widest
// label) to fit max_width.
struct Strip {
  float box = kMinBox, gap = kBoxGap;
};
Strip strip_size(const TokenArrowsView& view) {
  const Eigen::Index n_q = view.weights->rows(), n_k = view.weights->cols(), n = std::max(n_q, n_k);
  const float text = std::max(text_width(view.queries, n_q), text_width(view.keys, n_k));
  Strip s{std::max(kMinBox, text + 16.0f), kBoxGap};
  const float total = float(n) * s.box + float(n - 1) * s.gap;
  if (view.max_width > 0.0f && total > view.max_width && n > 1) {
    s.gap = 5.0f;
    s.box = std::max(text + 8.0f, (view.max_width - float(n - 1) * s.gap) / float(n));
  }
  return s;
}

ImU32 with_alpha(ImVec4 c, float a) { return ImGui::GetColorU32(ImVec4(c.x, c.y, c.z, std::clamp(a, 0.0f, 1.0f))); }

}  // namespace

float token_arrows_width(const TokenArrowsView& view) {
  if (!view.weights) return 0.0f;
  const Eigen::Index n = std::max(view.weights->rows(), view.weights->cols());
  const Strip s = strip_size(view);
  return float(n) * s.box + float(n - 1) * s.gap;
}

void token_arrows(const TokenArrowsView& view) {
  const attn::Mat& w = *view.weights;  // (n_q, n_k)
  const Eigen::Index n_q = w.rows(), n_k = w.cols();
  if (n_q == 0 || n_k == 0) return;
  const Strip size = strip_size(view);
  const float box = size.box, gap = size.gap;
  const float box_h = ImGui::GetFrameHeight() + 4.0f;
  const float total = token_arrows_width(view);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // Each strip is centred over the widest one.
  auto box_x = [&](Eigen::Index i, Eigen::Index n) {
    const float strip = float(n) * box + float(n - 1) * gap;
    return origin.x + (total - strip) * 0.5f + float(i) * (box + gap);
  };
  const float q_y = origin.y, k_y = origin.y + box_h + kDrop;

  // 1 the token boxes as invisible buttons, so hover works and tests can find them
  Eigen::Index hover_q = -1, hover_k = -1;
  ImGui::PushID(view.id.c_str());
  for (Eigen::Index i = 0; i < n_q; ++i) {
    ImGui::SetCursorScreenPos(ImVec2(box_x(i, n_q), q_y));
    ImGui::PushID(int(i));
    ImGui::InvisibleButton("##q", ImVec2(box, box_h));
    if (ImGui::IsItemHovered() || ImGui::IsItemFocused()) hover_q = i;
    widgets_record_last("token:" + view.id + ":q:" + std::to_string(i), "token");
    ImGui::PopID();
  }
  for (Eigen::Index j = 0; j < n_k; ++j) {
    ImGui::SetCursorScreenPos(ImVec2(box_x(j, n_k), k_y));
    ImGui::PushID(int(j + n_q));
    ImGui::InvisibleButton("##k", ImVec2(box, box_h));
    if (ImGui::IsItemHovered() || ImGui::IsItemFocused()) hover_k = j;
    widgets_record_last("token:" + view.id + ":k:" + std::to_string(j), "token");
    ImGui::PopID();
  }
  ImGui::PopID();

  // 2 the curves, faint ones first so strong ones stay on top
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec4 accent(0.20f, 0.42f, 0.85f, 1.0f), focus(0.85f, 0.33f, 0.10f, 1.0f);
  const bool any_hover = hover_q >= 0 || hover_k >= 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (Eigen::Index i = 0; i < n_q; ++i) {
      for (Eigen::Index j = 0; j < n_k; ++j) {
        const float wij = std::isfinite(w(i, j)) ? std::clamp(w(i, j), 0.0f, 1.0f) : 0.0f;
        const bool lit = i == hover_q || j == hover_k;
        if ((pass == 1) != lit) continue;
        if (wij < 0.005f) continue;
        const ImVec2 a(box_x(i, n_q) + box * 0.5f, q_y + box_h), b(box_x(j, n_k) + box * 0.5f, k_y);
        const float alpha = any_hover && !lit ? wij * 0.15f : wij;
        dl->AddBezierCubic(a, ImVec2(a.x, a.y + kDrop * 0.5f), ImVec2(b.x, b.y - kDrop * 0.5f), b,
                           with_alpha(lit ? focus : accent, std::max(alpha, lit ? 0.25f : 0.0f)), 0.75f + 7.0f * wij);
      }
    }
  }

  // 3 the boxes and their labels on top of the curves, and the hovered weights
  auto draw_box = [&](float x, float y, const std::string& text, ImVec4 fill, bool hot) {
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + box, y + box_h), ImGui::GetColorU32(fill), 5.0f);
    dl->AddRect(ImVec2(x, y), ImVec2(x + box, y + box_h), hot ? ImGui::GetColorU32(focus) : IM_COL32(170, 180, 200, 255),
                5.0f, 0, hot ? 2.0f : 1.0f);
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
    dl->AddText(ImVec2(x + (box - ts.x) * 0.5f, y + (box_h - ts.y) * 0.5f), ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
  };
  for (Eigen::Index i = 0; i < n_q; ++i)
    draw_box(box_x(i, n_q), q_y, label(view.queries, i), ImVec4(0.89f, 0.93f, 1.0f, 1), i == hover_q);
  for (Eigen::Index j = 0; j < n_k; ++j)
    draw_box(box_x(j, n_k), k_y, label(view.keys, j), ImVec4(0.93f, 0.97f, 0.91f, 1), j == hover_k);
  // The hovered row's (column's) weights, printed where its curves end.
  auto weight_label = [&](float x, float y, float v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.2f", double(v));
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    const ImVec2 p(x + (box - ts.x) * 0.5f, y);
    dl->AddRectFilled(ImVec2(p.x - 3, p.y), ImVec2(p.x + ts.x + 3, p.y + ts.y), IM_COL32(255, 255, 255, 230), 3.0f);
    dl->AddText(p, ImGui::GetColorU32(focus), buf);
  };
  const float line_h = ImGui::GetTextLineHeight();
  if (hover_q >= 0)
    for (Eigen::Index j = 0; j < n_k; ++j) weight_label(box_x(j, n_k), k_y - line_h - 3, w(hover_q, j));
  if (hover_k >= 0)
    for (Eigen::Index i = 0; i < n_q; ++i) weight_label(box_x(i, n_q), q_y + box_h + 3, w(i, hover_k));
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(total, 2 * box_h + kDrop));
}

}  // namespace ui
