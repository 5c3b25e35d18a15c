// theme.cpp: a light, calm look: white panels, soft borders, one accent colour.
#include <imgui.h>

#include <algorithm>

#include "ui/panels.h"

namespace ui {

namespace {
bool g_touch = false;
constexpr float kTouchTarget = 40.0f;  // CSS px: the smallest control height on a touch screen
}  // namespace

void apply_theme() {
  ImGui::StyleColorsLight();
  ImGuiStyle& s = ImGui::GetStyle();
  s.WindowRounding = 6.0f;
  s.FrameRounding = 4.0f;
  s.GrabRounding = 4.0f;
  s.WindowPadding = ImVec2(14, 12);
  s.FramePadding = ImVec2(8, 4);
  s.ItemSpacing = ImVec2(8, 7);
  s.WindowBorderSize = 1.0f;
  ImVec4* c = s.Colors;
  const ImVec4 accent(0.20f, 0.42f, 0.85f, 1.0f);
  // Windows are see-through onto the white the platform clears to: with software
  // GL in a browser every full-window fill costs a frame's worth of pixels.
  c[ImGuiCol_WindowBg] = ImVec4(1, 1, 1, 0);
  c[ImGuiCol_Border] = ImVec4(0.85f, 0.86f, 0.89f, 1);
  c[ImGuiCol_Button] = ImVec4(0.91f, 0.93f, 0.97f, 1);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.80f, 0.86f, 0.97f, 1);
  c[ImGuiCol_ButtonActive] = ImVec4(0.70f, 0.79f, 0.96f, 1);
  c[ImGuiCol_FrameBg] = ImVec4(0.95f, 0.96f, 0.98f, 1);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.86f, 0.90f, 0.98f, 1);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.78f, 0.85f, 0.98f, 1);
  c[ImGuiCol_Header] = ImVec4(0.86f, 0.90f, 0.98f, 1);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.80f, 0.86f, 0.97f, 1);
  c[ImGuiCol_HeaderActive] = ImVec4(0.72f, 0.80f, 0.96f, 1);
  c[ImGuiCol_TableHeaderBg] = ImVec4(0.92f, 0.94f, 0.98f, 1);  // editors' column labels: a light band
  c[ImGuiCol_CheckMark] = accent;
  c[ImGuiCol_SliderGrab] = accent;
  c[ImGuiCol_Text] = ImVec4(0.13f, 0.15f, 0.20f, 1);
  c[ImGuiCol_TextDisabled] = ImVec4(0.45f, 0.48f, 0.55f, 1);
  g_touch = false;
}

void set_touch_targets(bool on) {
  if (on == g_touch) return;
  g_touch = on;
  ImGuiStyle& s = ImGui::GetStyle();
  // Frame height = font size + 2 * FramePadding.y (the font is 16 units).
  const float pad_y = on ? std::max(4.0f, (kTouchTarget - ImGui::GetFontSize()) * 0.5f) : 4.0f;
  s.FramePadding = ImVec2(on ? 12.0f : 8.0f, pad_y);
  s.ItemSpacing = on ? ImVec2(10, 10) : ImVec2(8, 7);
  s.ScrollbarSize = on ? 6.0f : 14.0f;  // a finger scrolls; the bar only shows where you are
  s.GrabMinSize = on ? 24.0f : 10.0f;
}

bool touch_targets() { return g_touch; }

bool small_button(const char* label) { return g_touch ? ImGui::Button(label) : ImGui::SmallButton(label); }

}  // namespace ui
