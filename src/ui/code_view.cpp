// code_view.cpp: the step as a Python program (attn::demo_code), in a card above
// the panels: NumPy | PyTorch tabs, Copy and Close, a line saying what the program
// does, and the program itself, read-only, in the monospace font, in a box that
// scrolls both ways (a program longer than kShownLines scrolls inside it).
#include <imgui.h>

#include <algorithm>

#include "ui/card.h"
#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/text_wrap.h"
#include "ui/widget_log.h"

namespace ui {
namespace {

constexpr int kShownLines = 24;

bool ascii(const char* a, const char* b) {
  for (; a < b; ++a)
    if (static_cast<unsigned char>(*a) >= 0x80) return false;
  return true;
}

}  // namespace

CodeAction code_view(const CodeViewData& view) {
  CodeAction action;
  const std::string& lang = view.lang;
  const std::string& code = *view.code;
  ImGui::PushID("code");
  Card card;
  const float width = ImGui::GetContentRegionAvail().x;
  card_begin(card, width);
  const float inner = width - 2 * kCardPad, right = ImGui::GetCursorScreenPos().x + inner;
  // The title and the buttons flow: an item that would not fit the card's width
  // (a phone) starts a new line.
  auto button_w = [](const char* label) { return ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x; };
  auto flow = [&](float w, float gap) {
    if (ImGui::GetItemRectMax().x + gap + w <= right) ImGui::SameLine(0.0f, gap);
  };
  ImGui::AlignTextToFramePadding();
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.25f, 0.30f, 0.40f, 1));
  ImGui::TextUnformatted(text::code_title.get(lang));
  ImGui::PopStyleColor();
  const struct {
    const char* id;
    const char* label;
  } tabs[] = {{"numpy", "NumPy"}, {"torch", "PyTorch"}};
  const bool trained = view.weights != nullptr;
  float gap = 16.0f;
  for (const auto& t : tabs) {
    if (trained) break;  // a trained model's program is NumPy only
    flow(button_w(t.label), gap);
    gap = 2.0f;
    const bool on = view.tab == t.id;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(t.label) && !on) action = {CodeAction::Kind::tab, t.id};
    if (on) ImGui::PopStyleColor();
    widgets_record_last(std::string("code:tab:") + t.id, "button");
  }
  // Copy and Close stay together.
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  flow(button_w(text::code_copy.get(lang)) + spacing + button_w(text::code_close.get(lang)), 16.0f);
  ImGui::BeginDisabled(code.empty());
  if (ImGui::Button(text::code_copy.get(lang))) action = {CodeAction::Kind::copy, ""};
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text::code_copy_tip.get(lang));
  if (!code.empty()) widgets_record_last("code:copy", "button");
  if (trained) {
    flow(button_w(text::code_copy_weights.get(lang)), spacing);
    if (ImGui::Button(text::code_copy_weights.get(lang))) action = {CodeAction::Kind::copy_weights, ""};
    if (!code.empty()) widgets_record_last("code:weights", "button");
  }
  ImGui::EndDisabled();
  flow(button_w(text::code_close.get(lang)), spacing);
  if (ImGui::Button(text::code_close.get(lang))) action = {CodeAction::Kind::close, ""};
  widgets_record_last("code:close", "button");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  const char* about = trained ? text::code_about_trained.get(lang) : text::code_about.get(lang);
  text_wrapped(code.empty() ? text::code_waiting.get(lang) : view.copied ? text::code_copied.get(lang) : about,
               ImGui::GetCursorScreenPos().x + inner);
  ImGui::PopStyleColor();
  if (code.empty()) {
    card_end(card);
    ImGui::PopID();
    return action;
  }

  // Line starts, for a clipper: only the lines in sight are drawn.
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i < code.size(); ++i)
    if (code[i] == '\n' && i + 1 < code.size()) starts.push_back(i + 1);
  ImFont* mono = ImGui::GetIO().Fonts->Fonts.Size > 1 ? ImGui::GetIO().Fonts->Fonts[1] : nullptr;
  if (mono) ImGui::PushFont(mono);
  // Code lines close together, as in an editor.
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 2.0f));
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const int shown = std::min(int(starts.size()), kShownLines);
  const float box_h = float(shown) * line_h + 2 * ImGui::GetStyle().WindowPadding.y + ImGui::GetStyle().ScrollbarSize;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.965f, 0.97f, 0.98f, 1.0f));
  ImGui::BeginChild("text", ImVec2(inner, box_h), true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGuiListClipper clipper;
  clipper.Begin(int(starts.size()), line_h);
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const char* a = code.c_str() + starts[size_t(i)];
      const char* b = size_t(i) + 1 < starts.size() ? code.c_str() + starts[size_t(i) + 1] - 1 : code.c_str() + code.size();
      while (b > a && (b[-1] == '\n' || b[-1] == '\r')) --b;
      // The monospace font holds ASCII only: a line with other characters (a
      // Chinese token's name) is drawn in the interface's font.
      const bool plain = !mono || ascii(a, b);
      if (!plain) ImGui::PopFont();
      ImGui::TextUnformatted(a, b);
      if (!plain) ImGui::PushFont(mono);
    }
  ImGui::EndChild();
  widgets_record_last("code:text", "panel");
  ImGui::PopStyleColor();
  ImGui::PopStyleVar();
  if (mono) ImGui::PopFont();
  card_end(card);
  ImGui::PopID();
  return action;
}

}  // namespace ui
