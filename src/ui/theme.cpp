// theme.cpp: a light, calm look: white panels, soft borders, one accent colour.
#include <imgui.h>

#include "ui/panels.h"

namespace ui {

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
}

}  // namespace ui
