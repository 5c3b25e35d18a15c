// settings.cpp: the two ways a learner changes a demo's settings: a segmented
// choice among named options, and a numeric slider (with - / + buttons that move
// one step, for keyboards and precise clicks).
#include <imgui.h>
#include <imgui_internal.h>  // ImGui::ClearActiveID

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/widget_log.h"

namespace ui {
namespace {

const std::string& option_label(const ChoiceView& view, size_t i) {
  return i < view.labels.size() && !view.labels[i].empty() ? view.labels[i] : view.options[i];
}

float button_width(const std::string& text) {
  return ImGui::CalcTextSize(text.c_str()).x + 2.0f * ImGui::GetStyle().FramePadding.x + 8.0f;
}

bool integral(float x) { return std::abs(x - std::round(x)) < 1e-6f; }

bool shows_integers(const SliderView& view) { return view.step > 0 && integral(view.step) && integral(view.min); }

// Decimals shown: none for whole steps, enough for the step (0.05 -> 2), and for a
// continuous slider 2, 1 or 0 as the range widens.
int decimals_of(const SliderView& view) {
  if (shows_integers(view)) return 0;
  if (view.step > 0) return std::clamp(int(std::ceil(-std::log10(view.step) - 1e-4f)), 0, 4);
  const float span = view.max - view.min;
  return span >= 100.0f ? 0 : span >= 10.0f ? 1 : 2;
}

// The value as printed beside the bar.
std::string value_text(const SliderView& view, float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals_of(view), double(v));
  return buf;
}

}  // namespace

float choice_width(const ChoiceView& view) {
  float w = 0.0f;
  for (size_t i = 0; i < view.options.size(); ++i) w += button_width(option_label(view, i)) + (i ? 2.0f : 0.0f);
  return w;
}

std::optional<std::string> choice(const ChoiceView& view) {
  std::optional<std::string> picked;
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  ImGui::PushID(view.setting.c_str());
  ImGui::PushStyleVar(ImGuiStyleVar_FrameRounding, 3.0f);
  for (size_t i = 0; i < view.options.size(); ++i) {
    const std::string& label = option_label(view, i);
    const float w = button_width(label);
    // Wrap onto a new line when the next option would not fit.
    if (i > 0) {
      ImGui::SameLine(0, 2);
      if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
    }
    const bool on = view.options[i] == view.current;
    if (on) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.20f, 0.42f, 0.85f, 1));
      ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.25f, 0.48f, 0.90f, 1));
      ImGui::PushStyleColor(ImGuiCol_ButtonActive, ImVec4(0.18f, 0.38f, 0.80f, 1));
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
    }
    ImGui::PushID(int(i));
    if (ImGui::Button(label.c_str(), ImVec2(w, 0)) && !on) picked = view.options[i];
    ImGui::PopID();
    if (on) ImGui::PopStyleColor(4);
    widgets_record_last("choice:" + view.setting + ":" + view.options[i], "button");
  }
  ImGui::PopStyleVar();
  ImGui::PopID();
  return picked;
}

float slider_width(const SliderView& view) {
  const float buttons = view.step > 0 ? 2.0f * (ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x) : 0.0f;
  const float value = std::max(ImGui::CalcTextSize(value_text(view, view.min).c_str()).x,
                               ImGui::CalcTextSize(value_text(view, view.max).c_str()).x);
  const float track = view.track > 0.0f ? view.track : kSliderTrack;
  return track + buttons + ImGui::GetStyle().ItemSpacing.x + value + 4.0f;
}

std::optional<std::string> slider(const SliderView& view) {
  const bool as_int = shows_integers(view);
  float v = view.current.empty() ? view.min : std::strtof(view.current.c_str(), nullptr);
  if (!std::isfinite(v)) v = view.min;
  v = std::clamp(v, view.min, view.max);
  const float before = v;
  const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;

  ImGui::PushID(view.setting.c_str());
  if (view.step > 0) {
    if (ImGui::Button("-", ImVec2(ImGui::GetFrameHeight(), 0))) v -= view.step;
    widgets_record_last("slider:" + view.setting + ":dec", "button");
    ImGui::SameLine(0, spacing);
  }
  ImGui::SetNextItemWidth(view.track > 0.0f ? view.track : kSliderTrack);
  // A wide positive range (1 .. 512) reads better on a log scale.
  const ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp |
                                 (view.min > 0 && view.max / view.min >= 100.0f ? ImGuiSliderFlags_Logarithmic : 0);
  // The value is printed beside the slider, where the grab never covers it.
  ImGui::SliderFloat("##s", &v, view.min, view.max, "", flags);
  widgets_record_last("slider:" + view.setting, "slider");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", value_text(view, v).c_str());
  if (view.step > 0) {
    ImGui::SameLine(0, spacing);
    if (ImGui::Button("+", ImVec2(ImGui::GetFrameHeight(), 0))) v += view.step;
    widgets_record_last("slider:" + view.setting + ":inc", "button");
  }
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(value_text(view, before).c_str());
  ImGui::PopID();

  if (view.step > 0) v = view.min + std::round((v - view.min) / view.step) * view.step;
  v = std::clamp(v, view.min, view.max);
  if (std::abs(v - before) < 1e-7f) return std::nullopt;
  char text[32];
  if (as_int) std::snprintf(text, sizeof text, "%d", int(std::lround(v)));
  else std::snprintf(text, sizeof text, "%g", double(v));
  return std::string(text);
}

// ---------------------------------------------------------------- a typed line of tokens
namespace {

constexpr size_t kTokenLineBytes = 64;  // what a field of tokens holds (the lab's limit for a prompt)
constexpr size_t kTextLineBytes = 128;  // what a field of free text holds (32 characters of Chinese)

size_t line_bytes(const TokenInputView& view) { return view.tokens.empty() ? kTextLineBytes : kTokenLineBytes; }

// UTF-8 characters in `text` (continuation bytes are not counted).
int utf8_length(const std::string& text) {
  int n = 0;
  for (unsigned char c : text) n += (c & 0xc0) != 0x80;
  return n;
}

bool is_separator(char c) { return c == ' ' || c == ',' || c == '|'; }

// "" when `text` may be handed over, else what is wrong (in view.lang).
std::string token_problem(const TokenInputView& view, const std::string& text) {
  int count = 0;
  char buf[160];
  if (view.tokens.empty()) {  // free text: only its length in characters
    if (utf8_length(text) > view.max_tokens) {
      std::snprintf(buf, sizeof buf, text::text_too_many.get(view.lang), view.max_tokens, utf8_length(text));
      return buf;
    }
    return "";
  }
  for (char c : text) {
    if (is_separator(c)) continue;
    const std::string t(1, char(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c));
    if (std::find(view.tokens.begin(), view.tokens.end(), t) == view.tokens.end()) {
      const std::string shown = static_cast<unsigned char>(c) < 0x80 ? std::string(1, c) : "?";
      std::snprintf(buf, sizeof buf, text::token_unknown.get(view.lang), shown.c_str(),
                    view.tokens.empty() ? "" : view.tokens.front().c_str(), view.tokens.empty() ? "" : view.tokens.back().c_str());
      return buf;
    }
    ++count;
  }
  if (count > view.max_tokens) {
    std::snprintf(buf, sizeof buf, text::token_too_many.get(view.lang), view.max_tokens, count);
    return buf;
  }
  return "";
}

}  // namespace

namespace {
bool g_page_text = false;
std::optional<PageTextRequest> g_page_request;
}  // namespace

void set_page_text_fields(bool on) { g_page_text = on; }

std::optional<PageTextRequest> take_page_text_request() {
  std::optional<PageTextRequest> r;
  r.swap(g_page_request);
  return r;
}

float token_input_width(const TokenInputView& view) {
  // Room for the longest line of tokens with spaces, and for the message.
  const std::string sample(size_t(std::max(1, 2 * view.max_tokens)), 'M');
  return std::max(ImGui::CalcTextSize(sample.c_str()).x, 260.0f) + 2.0f * ImGui::GetStyle().FramePadding.x;
}

std::optional<std::string> token_input(const TokenInputView& view) {
  // What the learner is typing, per setting, and the setting's value when they
  // began: a draft that breaks the rules stays shown until they fix it, and is
  // dropped when the setting changes from elsewhere (a reset, another step).
  static std::map<std::string, std::pair<std::string, std::string>> drafts;
  auto it = drafts.find(view.setting);
  if (it != drafts.end() && it->second.second != view.current) {
    drafts.erase(it);
    it = drafts.end();
  }
  std::string draft = it != drafts.end() ? it->second.first : view.current;
  char buf[kTextLineBytes + 1] = {};
  draft.copy(buf, std::min(draft.size(), line_bytes(view)));
  ImGui::PushID(view.setting.c_str());
  // A long field (free text) is cut to the room there is, as on a phone.
  const float width = std::min(token_input_width(view), std::max(120.0f, ImGui::GetContentRegionAvail().x));
  ImGui::SetNextItemWidth(width);
  const bool changed = ImGui::InputText("##tokens", buf, line_bytes(view) + 1);
  widgets_record_last("text:" + view.setting, "text");
  if (g_page_text && view.tokens.empty() && ImGui::IsItemActivated()) {
    ImGui::ClearActiveID();
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    g_page_request = PageTextRequest{view.setting, view.current, lo.x, lo.y, hi.x - lo.x, hi.y - lo.y};
  }
  ImGui::PopID();
  if (changed) draft = buf;
  const std::string problem = token_problem(view, draft);
  if (!problem.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::TextColored(ImVec4(0.75f, 0.15f, 0.10f, 1), "%s", problem.c_str());
    ImGui::PopTextWrapPos();
  }
  if (!problem.empty()) {
    drafts[view.setting] = {draft, view.current};
    return std::nullopt;
  }
  drafts.erase(view.setting);
  if (draft == view.current) return std::nullopt;
  return draft;
}

}  // namespace ui
