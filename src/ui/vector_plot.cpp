// vector_plot.cpp: vectors as arrows from the origin of a 2-D plane (columns 0 and
// 1 of each row). Arrow heads of an editable matrix are handles: dragging one
// moves that row's (x, y). The plane's range follows the data, but stays put
// while a handle is held so the arrow does not slide away under the mouse.
// Sections: helpers (nice ranges, arrows), then vector_plot: 1 the plane,
// 2 the arrows and their handles, 3 legend and caption.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "ui/panels.h"
#include "ui/text_wrap.h"
#include "ui/widget_log.h"

namespace ui {
namespace {

constexpr float kSize = 300.0f;   // the square plane, in screen units
constexpr float kMargin = 18.0f;  // inside the square, around the range
constexpr float kHandle = 18.0f;  // grab area of an arrow head
constexpr float kCaptionMax = 480.0f;

// The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (times a power of ten) >= x.
float nice_ceil(float x) {
  static const float steps[] = {1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 4.0f, 5.0f, 6.0f, 8.0f, 10.0f};
  const float p = std::pow(10.0f, std::floor(std::log10(x)));
  for (float s : steps)
    if (s * p >= x * 0.9999f) return s * p;
  return 10.0f * p;
}

// A grid step of 1, 2 or 5 (times a power of ten) giving 2 to 5 lines per half-axis.
float grid_step(float range) {
  const float p = std::pow(10.0f, std::floor(std::log10(range)));
  for (float s : {0.1f, 0.2f, 0.25f, 0.5f, 1.0f, 2.0f, 5.0f, 10.0f})
    if (range / (s * p) <= 5.0f) return s * p;
  return 10.0f * p;
}

float coord(const attn::Mat& m, Eigen::Index r, Eigen::Index c) {
  return c < m.cols() && std::isfinite(m(r, c)) ? m(r, c) : 0.0f;
}

float data_extent(const VectorSet& s) {
  float e = 0.0f;
  if (!s.m) return e;
  for (Eigen::Index r = 0; r < s.m->rows(); ++r)
    e = std::max({e, std::abs(coord(*s.m, r, 0)), std::abs(coord(*s.m, r, 1))});
  return e;
}

void arrow(ImDrawList* dl, ImVec2 from, ImVec2 to, ImU32 col, float thickness) {
  const float dx = to.x - from.x, dy = to.y - from.y, len = std::sqrt(dx * dx + dy * dy);
  if (len < 1.0f) {
    dl->AddCircleFilled(to, 3.0f, col);
    return;
  }
  const float ux = dx / len, uy = dy / len, head = std::min(12.0f, len * 0.5f);
  const ImVec2 base(to.x - ux * head, to.y - uy * head);
  dl->AddLine(from, base, col, thickness);
  dl->AddTriangleFilled(to, ImVec2(base.x - uy * head * 0.45f, base.y + ux * head * 0.45f),
                        ImVec2(base.x + uy * head * 0.45f, base.y - ux * head * 0.45f), col);
}

}  // namespace

// The plane, or wider when the caption's lines need it (up to max_width, so
// that a line is not broken inside a number).
float vector_plot_width(const VectorPlotView& view) {
  const float cap = view.max_width > 0.0f ? std::max(view.max_width, kSize) : kCaptionMax;
  float w = kSize;
  size_t pos = 0;
  const std::string& t = view.caption;
  while (pos < t.size()) {
    size_t nl = t.find('\n', pos);
    if (nl == std::string::npos) nl = t.size();
    w = std::max(w, std::min(cap, ImGui::CalcTextSize(t.c_str() + pos, t.c_str() + nl).x + 2.0f));
    pos = nl + 1;
  }
  return w;
}

std::optional<PointEdit> vector_plot(const VectorPlotView& view) {
  std::optional<PointEdit> edit;
  ImGui::PushID(view.id.c_str());
  ImGuiStorage* store = ImGui::GetStateStorage();
  const ImGuiID range_key = ImGui::GetID("range"), held_key = ImGui::GetID("held");
  const bool held = store->GetBool(held_key, false);
  float range = store->GetFloat(range_key, 0.0f);
  if (!held || range <= 0.0f) range = nice_ceil(std::max({1.0f, data_extent(view.first), data_extent(view.second)}) * 1.15f);
  store->SetFloat(range_key, range);

  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 centre(origin.x + kSize * 0.5f, origin.y + kSize * 0.5f);
  const float half = kSize * 0.5f - kMargin, scale = half / range;
  auto to_screen = [&](float x, float y) { return ImVec2(centre.x + x * scale, centre.y - y * scale); };
  ImDrawList* dl = ImGui::GetWindowDrawList();

  // 1 the plane: background, grid, axes, tick labels on the axes
  dl->AddRectFilled(origin, ImVec2(origin.x + kSize, origin.y + kSize), IM_COL32(250, 251, 253, 255), 4.0f);
  dl->AddRect(origin, ImVec2(origin.x + kSize, origin.y + kSize), IM_COL32(215, 219, 228, 255), 4.0f);
  const float step = grid_step(range);
  const int lines = int(std::floor(range / step + 1e-4f));
  char buf[32];
  for (int i = -lines; i <= lines; ++i) {
    const float v = float(i) * step;
    const ImVec2 px = to_screen(v, 0), py = to_screen(0, v);
    const ImU32 col = i == 0 ? IM_COL32(120, 128, 145, 255) : IM_COL32(228, 231, 238, 255);
    dl->AddLine(ImVec2(px.x, origin.y + 4), ImVec2(px.x, origin.y + kSize - 4), col, i == 0 ? 1.5f : 1.0f);
    dl->AddLine(ImVec2(origin.x + 4, py.y), ImVec2(origin.x + kSize - 4, py.y), col, i == 0 ? 1.5f : 1.0f);
    if (i == 0 || (lines > 3 && i % 2 != 0)) continue;
    std::snprintf(buf, sizeof buf, "%g", double(v));
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    // Along the bottom and left edges, away from the arrows.
    const ImU32 tick = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    dl->AddText(ImVec2(px.x - ts.x * 0.5f, origin.y + kSize - ts.y - 1), tick, buf);
    if (i != -lines) dl->AddText(ImVec2(origin.x + 3, py.y - ts.y * 0.5f), tick, buf);  // corner: x label only
  }

  // 2 the arrows, with their labels just beyond the heads
  const ImVec4 colours[2] = {ImVec4(0.16f, 0.38f, 0.82f, 1), ImVec4(0.90f, 0.45f, 0.10f, 1)};
  const VectorSet* sets[2] = {&view.first, &view.second};
  bool any_active = false;
  std::vector<ImVec4> placed;  // label rectangles (x0, y0, x1, y1) so far, to avoid overlaps
  struct Label {
    ImVec2 at;
    ImU32 col;
    std::string text;
  };
  std::vector<Label> texts;
  for (int s = 0; s < 2; ++s) {
    const VectorSet& set = *sets[s];
    if (!set.m) continue;
    const ImU32 col = ImGui::GetColorU32(colours[s]);
    for (Eigen::Index r = 0; r < set.m->rows(); ++r) {
      const float x = coord(*set.m, r, 0), y = coord(*set.m, r, 1);
      const ImVec2 tip = to_screen(x, y);
      bool hot = false;
      if (set.editable) {
        ImGui::SetCursorScreenPos(ImVec2(tip.x - kHandle * 0.5f, tip.y - kHandle * 0.5f));
        ImGui::PushID(s * 1000 + int(r));
        ImGui::InvisibleButton("##h", ImVec2(kHandle, kHandle));
        hot = ImGui::IsItemHovered() || ImGui::IsItemActive();
        if (ImGui::IsItemActive()) {
          any_active = true;
          const ImVec2 m = ImGui::GetIO().MousePos;
          // Mouse to data units, kept inside the plane, rounded to 0.01.
          const float nx = std::round(std::clamp((m.x - centre.x) / scale, -range, range) * 100.0f) / 100.0f;
          const float ny = std::round(std::clamp((centre.y - m.y) / scale, -range, range) * 100.0f) / 100.0f;
          if (std::abs(nx - x) > 1e-4f || std::abs(ny - y) > 1e-4f) edit = PointEdit{set.name, int(r), nx, ny};
        }
        if (hot) ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
        if (ImGui::IsItemHovered() && !ImGui::IsItemActive())
          ImGui::SetTooltip("%s[%d] = (%.2f, %.2f)", set.name.c_str(), int(r), double(x), double(y));
        widgets_record_last("drag:" + set.name + ":" + std::to_string(r), "drag-handle");
        ImGui::PopID();
      }
      arrow(dl, centre, tip, col, hot ? 3.5f : 2.5f);
      if (set.editable) dl->AddCircle(tip, hot ? 7.0f : 5.0f, col, 0, hot ? 2.0f : 1.5f);
      const std::string label = size_t(r) < set.labels.size() ? set.labels[size_t(r)] : set.name + std::to_string(r + 1);
      const float len = std::sqrt((tip.x - centre.x) * (tip.x - centre.x) + (tip.y - centre.y) * (tip.y - centre.y));
      const float ux = len > 1 ? (tip.x - centre.x) / len : 0.7f, uy = len > 1 ? (tip.y - centre.y) / len : -0.7f;
      const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
      ImVec2 at(tip.x + ux * 14.0f - ts.x * 0.5f + ux * ts.x * 0.5f, tip.y + uy * 12.0f - ts.y * 0.5f + uy * ts.y * 0.3f);
      at.x = std::clamp(at.x, origin.x + 2, origin.x + kSize - ts.x - 2);
      at.y = std::clamp(at.y, origin.y + 2, origin.y + kSize - ts.y - 2);
      // Two arrows ending close together: move the later label down a line.
      for (int tries = 0; tries < 4; ++tries) {
        bool clash = false;
        for (const ImVec4& r : placed)
          clash = clash || (at.x < r.z && at.x + ts.x > r.x && at.y < r.w && at.y + ts.y > r.y);
        if (!clash) break;
        at.y = at.y + ts.y + 1 > origin.y + kSize - ts.y - 2 ? at.y - 2 * (ts.y + 1) : at.y + ts.y + 1;
      }
      placed.push_back(ImVec4(at.x, at.y, at.x + ts.x, at.y + ts.y));
      texts.push_back({at, col, label});
    }
  }
  // Labels last, on a light backing, so no arrow crosses their text.
  for (const auto& t : texts) {
    const ImVec2 ts = ImGui::CalcTextSize(t.text.c_str());
    dl->AddRectFilled(ImVec2(t.at.x - 1, t.at.y), ImVec2(t.at.x + ts.x + 1, t.at.y + ts.y), IM_COL32(250, 251, 253, 210));
    dl->AddText(t.at, t.col, t.text.c_str());
  }
  store->SetBool(held_key, any_active);
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(kSize, kSize));

  // 3 legend (which colour is which matrix) and the core's caption
  for (int s = 0; s < 2; ++s) {
    if (!sets[s]->m) continue;
    if (s == 1) ImGui::SameLine(0, 16);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    dl->AddRectFilled(ImVec2(p.x, p.y + h * 0.25f), ImVec2(p.x + h * 0.5f, p.y + h * 0.75f), ImGui::GetColorU32(colours[s]), 2.0f);
    ImGui::Dummy(ImVec2(h * 0.5f, h));
    ImGui::SameLine(0, 5);
    ImGui::TextUnformatted(sets[s]->name.c_str());
  }
  if (!view.caption.empty()) {
    text_wrapped(view.caption, ImGui::GetCursorScreenPos().x + vector_plot_width(view));
  }
  ImGui::PopID();
  return edit;
}

}  // namespace ui
