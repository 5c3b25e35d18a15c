// lab_touch.cpp: see lab_touch.h.
#include "app/lab_touch.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>

#include "ui/widget_log.h"

namespace {
constexpr float kDecide = 8.0f;          // screen units moved before a gesture is a scroll or a drag
constexpr double kLongPressMs = 550.0;   // held still this long on a number: type into it
constexpr float kFriction = 0.0035f;     // momentum decays as exp(-kFriction * ms)
constexpr float kMinVelocity = 0.02f;    // units per ms below which momentum stops

// The number (or line of text) under (x, y) in the last frame, if any.
std::optional<NumberTap> number_at(float x, float y) {
  for (const auto& w : ui::widgets_last_frame())
    if ((w.kind == "drag-number" || w.kind == "text") && x >= w.x && x < w.x + w.w && y >= w.y && y < w.y + w.h)
      return NumberTap{w.id, w.x, w.y, w.w, w.h};
  return std::nullopt;
}

ImGuiWindow* live_window(unsigned id) { return id ? ImGui::FindWindowByID(id) : nullptr; }

void scroll_by(ImGuiWindow* w, bool sideways, float delta) {
  if (!w) return;
  if (sideways) ImGui::SetScrollX(w, std::clamp(w->Scroll.x - delta, 0.0f, w->ScrollMax.x));
  else ImGui::SetScrollY(w, std::clamp(w->Scroll.y - delta, 0.0f, w->ScrollMax.y));
}

// The window a vertical swipe scrolls: the one under the finger, or the nearest
// parent that can scroll vertically.
ImGuiWindow* vertical_target(ImGuiWindow* w) {
  while (w && w->ScrollMax.y <= 0.0f && w->ParentWindow) w = w->ParentWindow;
  return w;
}
}  // namespace

std::optional<NumberTap> touch_update(TouchGesture& g, bool touch, double now_ms) {
  ImGuiContext& ctx = *ImGui::GetCurrentContext();
  const ImGuiIO& io = ImGui::GetIO();
  std::optional<NumberTap> tap;
  const float dt = float(std::max(1.0, now_ms - g.last_ms));

  // Momentum from the last swipe, until a new touch or it dies out.
  if (!g.down && g.scrolling && std::fabs(g.velocity) > kMinVelocity) {
    scroll_by(live_window(g.target_id), g.sideways, g.velocity * dt);
    g.velocity *= std::exp(-kFriction * dt);
  }
  if (!touch) {
    g.down = false;
    g.last_ms = now_ms;
    return tap;
  }
  const ImVec2 p = io.MousePos;
  if (io.MouseDown[0] && !g.down) {  // a finger lands
    g = TouchGesture{};
    g.down = true;
    g.start_x = p.x, g.start_y = p.y;
    g.start_ms = now_ms;
  } else if (g.down && io.MouseDown[0]) {
    const float dx = p.x - g.start_x, dy = p.y - g.start_y;
    if (!g.decided && std::hypot(dx, dy) >= kDecide) {
      g.decided = true;
      ImGuiWindow* hovered = ctx.HoveredWindow;
      ImGuiWindow* target = nullptr;
      const bool on_number = number_at(g.start_x, g.start_y).has_value();
      if (std::fabs(dy) > std::fabs(dx)) {
        g.scrolling = true;
        target = vertical_target(hovered);
      } else if (!on_number && hovered && hovered->ScrollMax.x > 0.0f) {
        g.scrolling = true;
        g.sideways = true;
        target = hovered;
      }
      g.target_id = target ? target->ID : 0;
      // A scroll lets go of whatever the finger landed on (a number keeps its value).
      if (g.scrolling) ImGui::ClearActiveID();
    }
    if (g.scrolling) {
      const float d = g.sideways ? io.MouseDelta.x : io.MouseDelta.y;
      scroll_by(live_window(g.target_id), g.sideways, d);
      g.velocity = 0.7f * g.velocity + 0.3f * d / dt;
      if (ImGui::GetActiveID() != 0) ImGui::ClearActiveID();
    }
    if (!g.decided && !g.long_press_sent && now_ms - g.start_ms >= kLongPressMs) {
      g.long_press_sent = true;
      tap = number_at(g.start_x, g.start_y);
    }
  } else if (g.down && !io.MouseDown[0]) {  // the finger lifts
    g.down = false;
    if (!g.decided && !g.long_press_sent) tap = number_at(g.start_x, g.start_y);
  }
  g.last_ms = now_ms;
  return tap;
}
