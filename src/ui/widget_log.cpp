#include "ui/widget_log.h"

#include <imgui.h>

namespace ui {
namespace {
std::vector<WidgetRect> g_current, g_last;
}

void widgets_begin_frame() { g_current.clear(); }

void widgets_end_frame() { g_last.swap(g_current); }

void widgets_record_last(const std::string& id, const char* kind) {
  if (!ImGui::IsItemVisible()) return;
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  // Clip to the window's visible area, so a scrolled-away item is not reported
  // at a place where a click would land on something else.
  ImVec2 ca = ImGui::GetWindowDrawList()->GetClipRectMin(), cb = ImGui::GetWindowDrawList()->GetClipRectMax();
  const float x0 = a.x > ca.x ? a.x : ca.x, y0 = a.y > ca.y ? a.y : ca.y;
  const float x1 = b.x < cb.x ? b.x : cb.x, y1 = b.y < cb.y ? b.y : cb.y;
  if (x1 <= x0 || y1 <= y0) return;
  const bool focused = ImGui::IsItemFocused() && ImGui::GetIO().NavVisible;
  g_current.push_back({id, kind, x0, y0, x1 - x0, y1 - y0, focused});
}

const std::vector<WidgetRect>& widgets_last_frame() { return g_last; }

}  // namespace ui
