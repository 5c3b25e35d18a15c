// timing_overlay.cpp: a small always-on-top window with the frame time and the
// time the core spent computing in this frame, so learners see what the lab's
// own kernels cost in their browser.
#include <imgui.h>

#include "ui/panels.h"
#include "ui/strings.h"

namespace ui {

void timing_overlay(const TimingOverlayView& view) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - 12.0f, vp->WorkPos.y + 12.0f), ImGuiCond_Always,
                          ImVec2(1.0f, 0.0f));
  ImGui::SetNextWindowBgAlpha(0.92f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove;
  if (ImGui::Begin("##timing", nullptr, flags)) {
    const std::string& lang = view.lang;
    ImGui::TextDisabled("%s", text::overlay_title.get(lang));
    const double fps = view.frame_ms > 0.0 ? 1000.0 / view.frame_ms : 0.0;
    ImGui::Text(text::overlay_frame.get(lang), view.frame_ms, fps);
    ImGui::Text(text::overlay_compute.get(lang), view.compute_ms);
    ImGui::Text(text::overlay_ui.get(lang), view.ui_ms);
    if (!view.simd.empty()) ImGui::Text(text::overlay_simd.get(lang), view.simd.c_str());
  }
  ImGui::End();
}

}  // namespace ui
