// keys_help.cpp: every key the lab answers to, in a panel over the top right of
// the lesson. It never takes the keyboard itself (the lesson keeps it), so the
// keys it lists keep working while it is open.
#include <imgui.h>

#include <algorithm>
#include <iterator>

#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/widget_log.h"

namespace ui {

bool keys_help(const std::string& lang) {
  bool close = false;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - 16.0f, vp->WorkPos.y + 16.0f), ImGuiCond_Always,
                          ImVec2(1.0f, 0.0f));
  ImGui::SetNextWindowBgAlpha(0.98f);
  // Never taller than the canvas: on a phone the list scrolls (a finger swipes it).
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(vp->WorkSize.x - 32.0f, vp->WorkSize.y - 32.0f));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(18, 14));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                 ImGuiWindowFlags_NoCollapse;
  if (ImGui::Begin("##keys", nullptr, flags)) {
    ImGui::BeginGroup();
    ImGui::SetWindowFontScale(1.15f);
    ImGui::TextUnformatted(touch_targets() ? text::touch_title.get(lang) : text::keys_title.get(lang));
    ImGui::SetWindowFontScale(1.0f);
    ImGui::Separator();
    // The actions' column fits a phone's width.
    const float action_w = std::clamp(vp->WorkSize.x - 250.0f, 160.0f, 380.0f);
    auto rows = [&](const char* id, const text::KeyRow* first, const text::KeyRow* last) {
      if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
      ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, action_w);
      for (const text::KeyRow* row = first; row != last; ++row) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(ImVec4(0.20f, 0.42f, 0.85f, 1), "%s", row->keys.get(lang));
        ImGui::TableNextColumn();
        ImGui::PushTextWrapPos(0.0f);  // wrap at the column's edge
        ImGui::TextUnformatted(row->action.get(lang));
        ImGui::PopTextWrapPos();
      }
      ImGui::EndTable();
    };
    // On a touch screen what a finger does comes first; the keys follow (a
    // tablet may have a keyboard too).
    if (touch_targets()) {
      rows("##touch-table", std::begin(text::touch_rows), std::end(text::touch_rows));
      ImGui::Spacing();
      ImGui::TextUnformatted(text::keys_title.get(lang));
      ImGui::Separator();
    }
    rows("##keys-table", std::begin(text::key_rows), std::end(text::key_rows));
    ImGui::Spacing();
    if (ImGui::Button(text::keys_close.get(lang))) close = true;
    widgets_record_last("keys:close", "button");
    ImGui::EndGroup();
    widgets_record_last("keys:panel", "panel");
  }
  ImGui::End();
  ImGui::PopStyleVar();
  return close;
}

}  // namespace ui
