// plot.cpp: line and grouped bar plots drawn with the draw list (ImGui 1.86's
// PlotLines has one series and no axes). Sections: 1 scales and ticks, 2 line
// plot, 3 bar plot, 4 legend and entry point.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/text_wrap.h"

namespace ui {
namespace {

constexpr float kWidth = 380.0f, kHeight = 220.0f;
constexpr float kLeft = 44.0f, kBottom = 22.0f, kTop = 8.0f, kRight = 10.0f;  // room for tick labels

// Series colours: distinct, readable on white, the first two match the rest of the lab.
const ImVec4 kColours[] = {{0.16f, 0.38f, 0.82f, 1}, {0.90f, 0.45f, 0.10f, 1}, {0.20f, 0.62f, 0.30f, 1},
                           {0.62f, 0.28f, 0.72f, 1}, {0.80f, 0.20f, 0.30f, 1}, {0.15f, 0.60f, 0.65f, 1},
                           {0.55f, 0.45f, 0.20f, 1}, {0.45f, 0.48f, 0.55f, 1}};
ImU32 colour(size_t i) { return ImGui::GetColorU32(kColours[i % (sizeof kColours / sizeof kColours[0])]); }

// ---------------------------------------------------------------- 1 scales and ticks
struct Range {
  float lo = 0.0f, hi = 1.0f;
};

// A tick step of 1, 2 or 5 times a power of ten giving at most `count` intervals.
float tick_step(Range r, int count) {
  const float span = std::max(r.hi - r.lo, 1e-6f);
  const float p = std::pow(10.0f, std::floor(std::log10(span / float(count))));
  for (float s : {1.0f, 2.0f, 5.0f, 10.0f})
    if (span / (s * p) <= float(count)) return s * p;
  return 10.0f * p;
}

// Widens r outwards to whole tick steps.
Range snap(Range r, int count) {
  // All values equal: all zero (nothing measured yet) shows 0..1, not -0.5..0.5.
  if (r.hi - r.lo < 1e-6f) r = r.lo == 0.0f ? Range{0.0f, 1.0f} : Range{r.lo - 0.5f, r.hi + 0.5f};
  const float s = tick_step(r, count);
  return {std::floor(r.lo / s + 1e-4f) * s, std::ceil(r.hi / s - 1e-4f) * s};
}

Range finite_range(const attn::Mat& m, bool include_zero) {
  Range r{include_zero ? 0.0f : INFINITY, include_zero ? 0.0f : -INFINITY};
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const float v = m.data()[i];
    if (!std::isfinite(v)) continue;
    r.lo = std::min(r.lo, v);
    r.hi = std::max(r.hi, v);
  }
  if (!std::isfinite(r.lo)) r = {0.0f, 1.0f};
  return r;
}

// Tick text with as many decimals as the step needs; big numbers as 12k, 1.5M.
void format_tick(char* buf, size_t n, float v, float step) {
  if (std::abs(v) < step * 1e-3f) v = 0.0f;
  const float a = std::max(std::abs(v), step);
  if (a >= 1e4f) {
    const bool mega = a >= 1e6f;
    const float unit = mega ? 1e6f : 1e3f, s = step / unit;
    const int decimals = s >= 1.0f ? 0 : std::min(3, int(std::ceil(-std::log10(s) - 1e-4f)));
    std::snprintf(buf, n, "%.*f%s", decimals, double(v / unit), mega ? "M" : "k");
    return;
  }
  const int decimals = step >= 1.0f ? 0 : std::min(4, int(std::ceil(-std::log10(step) - 1e-4f)));
  std::snprintf(buf, n, "%.*f", decimals, double(v));
}

// The frame: y grid lines with labels; returns the y scale.
struct Frame {
  ImVec2 a, b;  // plot area
  Range y;
  float y_to_screen(float v) const { return b.y - (v - y.lo) / (y.hi - y.lo) * (b.y - a.y); }
};

Frame draw_frame(ImDrawList* dl, ImVec2 origin, float width, Range y_data, float bottom = kBottom) {
  Frame f;
  f.a = ImVec2(origin.x + kLeft, origin.y + kTop);
  f.b = ImVec2(origin.x + width - kRight, origin.y + kHeight - bottom);
  f.y = snap(y_data, 5);
  const float step = tick_step(f.y, 5);
  char buf[32];
  const ImU32 label = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  for (float v = f.y.lo; v <= f.y.hi + step * 0.5f; v += step) {
    const float sy = f.y_to_screen(v);
    dl->AddLine(ImVec2(f.a.x, sy), ImVec2(f.b.x, sy),
                std::abs(v) < step * 1e-3f ? IM_COL32(140, 146, 160, 255) : IM_COL32(228, 231, 238, 255));
    format_tick(buf, sizeof buf, v, step);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddText(ImVec2(f.a.x - ts.x - 6, sy - ts.y * 0.5f), label, buf);
  }
  dl->AddLine(ImVec2(f.a.x, f.a.y), ImVec2(f.a.x, f.b.y), IM_COL32(140, 146, 160, 255));
  return f;
}

std::string label_at(const std::vector<std::string>& labels, size_t i, const char* fallback_prefix) {
  return i < labels.size() ? labels[i] : fallback_prefix + std::to_string(i + 1);
}

// ---------------------------------------------------------------- 2 line plot
void line_plot(const PlotView& view, float width) {
  const attn::Mat& ys = *view.ys;  // (n_series, n_points)
  const Eigen::Index n = ys.cols();
  auto x_at = [&](Eigen::Index j) {
    return view.xs && j < view.xs->cols() && std::isfinite((*view.xs)(0, j)) ? (*view.xs)(0, j) : float(j);
  };
  Range xr{x_at(0), x_at(0)};
  for (Eigen::Index j = 0; j < n; ++j) xr = {std::min(xr.lo, x_at(j)), std::max(xr.hi, x_at(j))};
  // One x value (a curve with its first point): at 0, as a training curve
  // starts, show 0..1 rather than negative steps; elsewhere centre it.
  if (xr.hi - xr.lo < 1e-6f) xr = xr.lo == 0.0f ? Range{0.0f, 1.0f} : Range{xr.lo - 1.0f, xr.hi + 1.0f};
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const Frame f = draw_frame(dl, origin, width, finite_range(ys, false));
  // x values spanning many octaves (d_k = 1 .. 512) are spread on a log scale.
  const bool log_x = !view.linear_x && xr.lo > 0.0f && xr.hi / xr.lo >= 32.0f;
  auto fx = [&](float x) { return log_x ? std::log(std::max(x, 1e-30f)) : x; };
  auto x_to_screen = [&](float x) { return f.a.x + (fx(x) - fx(xr.lo)) / (fx(xr.hi) - fx(xr.lo)) * (f.b.x - f.a.x); };

  // x ticks: nice values on a linear axis; on a log axis the data's own x values
  // (powers of ten when there are many). Labels that would overlap are skipped.
  std::vector<float> ticks;
  float xs = tick_step(xr, int(std::max(2.0f, (f.b.x - f.a.x) / 50.0f)));
  if (!log_x) {
    for (float v = std::ceil(xr.lo / xs - 1e-4f) * xs; v <= xr.hi + xs * 1e-3f; v += xs) ticks.push_back(v);
  } else if (n <= 16) {
    for (Eigen::Index j = 0; j < n; ++j) ticks.push_back(x_at(j));
    xs = 1.0f;
    for (float t : ticks) xs = std::min(xs, std::abs(t - std::round(t)) > 1e-3f ? 0.01f : 1.0f);
  } else {
    for (float v = std::pow(10.0f, std::ceil(std::log10(xr.lo))); v <= xr.hi * 1.0001f; v *= 10.0f) ticks.push_back(v);
    xs = std::min(1.0f, ticks.empty() ? 1.0f : ticks.front());
  }
  char buf[32];
  float last_right = -1e9f;
  for (float v : ticks) {
    const float sx = x_to_screen(v);
    dl->AddLine(ImVec2(sx, f.b.y), ImVec2(sx, f.b.y + 4), IM_COL32(140, 146, 160, 255));
    format_tick(buf, sizeof buf, v, xs);
    const float tw = ImGui::CalcTextSize(buf).x;
    if (sx - tw * 0.5f < last_right + 4.0f) continue;
    dl->AddText(ImVec2(sx - tw * 0.5f, f.b.y + 5), ImGui::GetColorU32(ImGuiCol_TextDisabled), buf);
    last_right = sx + tw * 0.5f;
  }
  dl->PushClipRect(ImVec2(f.a.x - 4, f.a.y - 4), ImVec2(f.b.x + 4, f.b.y + 4), true);
  // The marked x (a training length): a dashed vertical line under the series.
  if (view.x_mark > 0.0f && view.x_mark >= xr.lo && view.x_mark <= xr.hi) {
    const float sx = x_to_screen(view.x_mark);
    for (float y = f.a.y; y < f.b.y; y += 8.0f)
      dl->AddLine(ImVec2(sx, y), ImVec2(sx, std::min(y + 4.0f, f.b.y)), IM_COL32(90, 96, 110, 220), 1.5f);
  }
  for (Eigen::Index s = 0; s < ys.rows(); ++s) {
    for (Eigen::Index j = 0; j + 1 < n; ++j) {
      if (!std::isfinite(ys(s, j)) || !std::isfinite(ys(s, j + 1))) continue;
      dl->AddLine(ImVec2(x_to_screen(x_at(j)), f.y_to_screen(ys(s, j))),
                  ImVec2(x_to_screen(x_at(j + 1)), f.y_to_screen(ys(s, j + 1))), colour(size_t(s)), 2.0f);
    }
    if (n <= 24)
      for (Eigen::Index j = 0; j < n; ++j)
        if (std::isfinite(ys(s, j)))
          dl->AddCircleFilled(ImVec2(x_to_screen(x_at(j)), f.y_to_screen(ys(s, j))), 2.5f, colour(size_t(s)));
  }
  dl->PopClipRect();

  ImGui::InvisibleButton("##plot", ImVec2(width, kHeight));
  if (ImGui::IsItemHovered() && n > 0) {
    // The point nearest the mouse along x: a guide line and every series' value.
    const float mx = ImGui::GetIO().MousePos.x;
    Eigen::Index best = 0;
    for (Eigen::Index j = 1; j < n; ++j)
      if (std::abs(x_to_screen(x_at(j)) - mx) < std::abs(x_to_screen(x_at(best)) - mx)) best = j;
    const float sx = x_to_screen(x_at(best));
    dl->AddLine(ImVec2(sx, f.a.y), ImVec2(sx, f.b.y), IM_COL32(90, 96, 110, 160));
    ImGui::BeginTooltip();
    ImGui::Text("x = %g", double(x_at(best)));
    for (Eigen::Index s = 0; s < ys.rows(); ++s) {
      ImGui::TextColored(kColours[size_t(s) % (sizeof kColours / sizeof kColours[0])], "%s: %.4g",
                         label_at(view.series_labels, size_t(s), "#").c_str(), double(ys(s, best)));
    }
    ImGui::EndTooltip();
  }
}

// ---------------------------------------------------------------- 3 bar plot
void bar_plot(const PlotView& view, float width) {
  const attn::Mat& ys = *view.ys;  // (n_groups, n_bars)
  const Eigen::Index groups = ys.rows(), bars = ys.cols();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Labels under the bars (one group) or groups; when one would not fit its slot,
  // every other label drops to a second line.
  const bool one_group = groups == 1;
  const Eigen::Index slots = one_group ? bars : groups;
  // A single group fills the width (bars are the slots); groups keep 20% between them.
  const float fill = one_group ? 0.96f : 0.8f;
  const float slot_w = (width - kLeft - kRight) * (one_group ? fill : 1.0f) / float(std::max<Eigen::Index>(slots, 1));
  bool stagger = false;
  for (Eigen::Index i = 0; i < slots && size_t(i) < view.group_labels.size(); ++i)
    stagger = stagger || ImGui::CalcTextSize(view.group_labels[size_t(i)].c_str()).x > slot_w - 4.0f;
  const float line_h = ImGui::GetTextLineHeight();
  const float bottom = stagger ? kBottom + line_h + 2.0f : kBottom;
  const Frame f = draw_frame(dl, origin, width, finite_range(ys, true), bottom);
  auto slot_label = [&](Eigen::Index i, float centre_x) {
    if (size_t(i) >= view.group_labels.size()) return;
    const char* t = view.group_labels[size_t(i)].c_str();
    const float tw = ImGui::CalcTextSize(t).x, y = f.b.y + 4 + (stagger && i % 2 ? line_h + 2.0f : 0.0f);
    dl->AddText(ImVec2(centre_x - tw * 0.5f, y), ImGui::GetColorU32(ImGuiCol_Text), t);
  };
  const float group_w = (f.b.x - f.a.x) / float(std::max<Eigen::Index>(groups, 1));
  const float bar_w = group_w * fill / float(std::max<Eigen::Index>(bars, 1));
  const float zero = f.y_to_screen(0.0f);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  Eigen::Index hot_g = -1, hot_b = -1;
  for (Eigen::Index g = 0; g < groups; ++g) {
    const float gx = f.a.x + float(g) * group_w + group_w * (1.0f - fill) * 0.5f;
    for (Eigen::Index b = 0; b < bars; ++b) {
      const float v = std::isfinite(ys(g, b)) ? ys(g, b) : 0.0f;
      const float x0 = gx + float(b) * bar_w, x1 = x0 + bar_w - (bars > 1 ? 2.0f : 0.0f);
      const float y = f.y_to_screen(v);
      const ImVec2 a(x0, std::min(y, zero)), c(x1, std::max(y, zero));
      const bool hot = ImGui::IsWindowHovered() && mouse.x >= x0 && mouse.x < x1 && mouse.y >= f.a.y && mouse.y <= f.b.y;
      if (hot) hot_g = g, hot_b = b;
      dl->AddRectFilled(a, ImVec2(c.x, std::max(c.y, a.y + 1.0f)), one_group ? colour(0) : colour(size_t(b)), 2.0f);
      if (hot) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(c.x + 1, c.y + 1), IM_COL32(30, 40, 60, 255), 2.0f, 0, 1.5f);
      if (one_group) slot_label(b, (x0 + x1) * 0.5f);
    }
    if (!one_group) slot_label(g, f.a.x + (float(g) + 0.5f) * group_w);
  }
  ImGui::InvisibleButton("##plot", ImVec2(width, kHeight));
  if (hot_g >= 0) {
    const std::string bar_name = one_group ? label_at(view.group_labels, size_t(hot_b), "#")
                                           : label_at(view.series_labels, size_t(hot_b), "#");
    if (one_group) ImGui::SetTooltip("%s: %.4g", bar_name.c_str(), double(ys(hot_g, hot_b)));
    else
      ImGui::SetTooltip("%s, %s: %.4g", label_at(view.group_labels, size_t(hot_g), "#").c_str(), bar_name.c_str(),
                        double(ys(hot_g, hot_b)));
  }
}

}  // namespace

// ---------------------------------------------------------------- 4 legend and entry point
float plot_width(const PlotView& view) {
  // Bars get wider when their labels need room (up to max_width).
  float want = kWidth;
  if (view.bars && view.ys) {
    const Eigen::Index slots = view.ys->rows() == 1 ? view.ys->cols() : view.ys->rows();
    float label_w = 0.0f;
    for (Eigen::Index i = 0; i < slots && size_t(i) < view.group_labels.size(); ++i)
      label_w = std::max(label_w, ImGui::CalcTextSize(view.group_labels[size_t(i)].c_str()).x);
    want = std::max(want, kLeft + kRight + float(slots) * (label_w + 10.0f));
  }
  return view.max_width > 0 ? std::min(want, std::max(view.max_width, 240.0f)) : want;
}

void plot(const PlotView& view) {
  if (!view.ys) return;
  if (view.ys->size() == 0) {  // a live curve before its first point
    ImGui::TextDisabled("%s", text::plot_no_points.get(view.lang));
    return;
  }
  const float width = plot_width(view);
  ImGui::PushID(view.id.c_str());
  if (view.bars) bar_plot(view, width);
  else line_plot(view, width);
  // Legend: one entry per line, or per bar colour when bars are grouped.
  const size_t entries = view.bars ? (view.ys->rows() > 1 ? size_t(view.ys->cols()) : 0) : size_t(view.ys->rows());
  const bool named = !view.series_labels.empty();
  if (entries > 1 || (entries == 1 && named)) {
    float used = 0.0f;  // width of the legend line so far
    for (size_t i = 0; i < entries; ++i) {
      const std::string t = label_at(view.series_labels, i, "#");
      const float h = ImGui::GetTextLineHeight(), w = h * 0.6f + 5 + ImGui::CalcTextSize(t.c_str()).x;
      if (i > 0 && used + 14 + w <= width) {
        ImGui::SameLine(0, 14);
        used += 14 + w;
      } else {
        used = w;
      }
      const ImVec2 p = ImGui::GetCursorScreenPos();
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + h * 0.2f), ImVec2(p.x + h * 0.6f, p.y + h * 0.8f),
                                                colour(i), 2.0f);
      ImGui::Dummy(ImVec2(h * 0.6f, h));
      ImGui::SameLine(0, 5);
      ImGui::TextUnformatted(t.c_str());
    }
  }
  if (!view.axes.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped(view.axes, ImGui::GetCursorScreenPos().x + width);
    ImGui::PopStyleColor();
  }
  ImGui::PopID();
}

}  // namespace ui
