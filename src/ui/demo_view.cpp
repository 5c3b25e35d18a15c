// demo_view.cpp: a demo drawn from its declarative panel list. Each attn::Panel
// becomes a card (title + one widget); cards flow left to right and wrap to a new
// row when the next one would not fit the window. Nothing here computes: sizes
// come from each widget's *_width function, numbers from the core.
// Sections: 1 looking things up, 2 panel sizes, 3 drawing one panel, 4 the flow.
#include <imgui.h>

#include <algorithm>

#include "ui/card.h"
#include "ui/panels.h"
#include "ui/strings.h"
#include "ui/text_wrap.h"
#include "ui/widget_log.h"

namespace ui {
namespace {

constexpr float kPad = kCardPad;
constexpr float kCardGap = 14.0f;       // between cards
constexpr float kTitleCap = 340.0f; // a longer title wraps instead of widening the card
constexpr float kMinCard = 150.0f;

using attn::Panel;

// ---------------------------------------------------------------- 1 looking things up
struct Ctx {
  const attn::DemoInputs& in;
  const attn::DemoOutputs& out;
  const std::string& lang;
  float avail;            // width of the demo area
  float plot_cap = 0.0f;  // line plots at most this wide, so that two share a row (0 = no cap)
};

const attn::Mat* find_mat(const Ctx& c, const std::string& name, bool* is_input = nullptr) {
  return attn::panel_matrix(c.in, c.out, name, is_input);
}
std::vector<std::string> shown(const Ctx& c, const Panel& p, std::vector<std::string> labels) {
  return attn::shown_labels(p, std::move(labels), c.lang);
}

std::string setting_value(const Ctx& c, const std::string& name) {
  auto it = c.in.settings.find(name);
  return it == c.in.settings.end() ? std::string() : it->second;
}

// The views of the widgets, built the same way for measuring and for drawing.
MatrixEditorView editor_view(const Ctx& c, const Panel& p, const attn::Mat* m) {
  attn::PanelAxes axes = attn::panel_axes(p, c.in, *m, c.lang);
  MatrixEditorView v{p.source, m, std::move(axes.rows), std::move(axes.cols)};
  v.lang = c.lang;
  v.max_width = c.avail - 2 * kPad;
  return v;
}
HeatmapView heatmap_view(const Ctx& c, const Panel& p, const attn::Mat* m) {
  attn::PanelAxes axes = attn::panel_axes(p, c.in, *m, c.lang);
  return {p.id, m, std::move(axes.rows), std::move(axes.cols), p.unit_range, 2, c.avail - 2 * kPad};
}
TokenArrowsView arrows_view(const Ctx& c, const Panel& p, const attn::Mat* m) {
  attn::PanelAxes axes = attn::panel_axes(p, c.in, *m, c.lang);
  return {p.id, m, std::move(axes.rows), std::move(axes.cols),
          c.avail - 2 * kPad};
}
VectorPlotView vectors_view(const Ctx& c, const Panel& p, const attn::Mat* m) {
  VectorPlotView v;
  v.id = p.id;
  v.first = {p.source, m, p.row_labels, false};
  find_mat(c, p.source, &v.first.editable);
  // row_labels name the rows of source, series_labels the rows of source2.
  if (const attn::Mat* m2 = find_mat(c, p.source2, &v.second.editable))
    v.second = {p.source2, m2, p.series_labels, v.second.editable};
  v.caption = p.text.get(c.lang);
  v.max_width = c.avail - 2 * kPad;
  return v;
}
PlotView plot_view(const Ctx& c, const Panel& p, const attn::Mat* m) {
  PlotView v;
  v.id = p.id;
  v.bars = p.kind == Panel::Kind::bar_plot;
  v.ys = m;
  v.xs = find_mat(c, p.x_source);
  v.series_labels = shown(c, p, p.series_labels);
  v.lang = c.lang;
  if (v.bars) {
    // Bars: groups are rows (row_labels), bars are columns (col_labels). With a
    // single row the bars themselves are labelled below.
    v.group_labels = shown(c, p, m->rows() == 1 ? p.col_labels : p.row_labels);
    v.series_labels = shown(c, p, p.col_labels);
  } else {
    v.axes = p.text.get(c.lang);
    v.x_mark = p.x_mark;
    v.linear_x = p.linear_x;
  }
  // Bars keep room for their labels; line plots pair up when the demo has several.
  v.max_width = v.bars || c.plot_cap <= 0.0f ? c.avail - 2 * kPad : std::min(c.plot_cap, c.avail - 2 * kPad);
  return v;
}
ChoiceView choice_view(const Ctx& c, const Panel& p) {
  ChoiceView v{p.setting, p.options, {}, setting_value(c, p.setting)};
  for (const auto& l : p.option_labels) v.labels.push_back(l.get(c.lang));
  return v;
}
TokenInputView token_input_view(const Ctx& c, const Panel& p) {
  return {p.setting, p.options, int(p.max), setting_value(c, p.setting), c.lang};
}
SliderView slider_view(const Ctx& c, const Panel& p, float track = 0.0f) {
  return {p.setting, p.min, p.max, p.step, setting_value(c, p.setting), track};
}

// ---------------------------------------------------------------- 2 panel sizes
float text_block_width(const std::string& text) {
  float w = 0.0f;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    w = std::max(w, ImGui::CalcTextSize(text.c_str() + pos, text.c_str() + nl).x);
    pos = nl + 1;
  }
  return w;
}

float shapes_width(const std::string& text);  // section 3

// Width of a panel's content (without the card padding); 0 when it cannot be drawn.
float content_width(const Ctx& c, const Panel& p) {
  const attn::Mat* m = find_mat(c, p.source);
  const float text_cap = std::min(c.avail - 2 * kPad, 560.0f);
  switch (p.kind) {
    case Panel::Kind::editor: return m ? matrix_editor_width(editor_view(c, p, m)) : 0.0f;
    case Panel::Kind::heatmap: return m ? heatmap_width(heatmap_view(c, p, m)) : 0.0f;
    case Panel::Kind::token_arrows: return m ? token_arrows_width(arrows_view(c, p, m)) : 0.0f;
    case Panel::Kind::vector_plot: return m ? vector_plot_width(vectors_view(c, p, m)) : 0.0f;
    case Panel::Kind::line_plot:
    case Panel::Kind::bar_plot: return m ? plot_width(plot_view(c, p, m)) : 0.0f;
    case Panel::Kind::choice: return std::min(choice_width(choice_view(c, p)), c.avail - 2 * kPad);
    case Panel::Kind::slider: return slider_width(slider_view(c, p));
    case Panel::Kind::token_input: return std::min(token_input_width(token_input_view(c, p)), c.avail - 2 * kPad);
    case Panel::Kind::note: return std::min(text_block_width(p.text.get(c.lang)), text_cap);
    case Panel::Kind::shapes: return std::min(shapes_width(p.text.get(c.lang)), c.avail - 2 * kPad);
  }
  return 0.0f;
}

// ---------------------------------------------------------------- 3 drawing one panel
void note(const std::string& text, float width) { text_wrapped(text, ImGui::GetCursorScreenPos().x + width); }

// Lines "name: (a, b, c)": names right-aligned in one column, shapes in the next.
struct ShapeLines {
  std::vector<std::pair<std::string, std::string>> rows;  // (name with ':', rest); name "" = plain line
  float name_w = 0.0f, rest_w = 0.0f;
};
ShapeLines shape_lines(const std::string& text) {
  ShapeLines out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) out.rows.push_back({"", line});
    else out.rows.push_back({line.substr(0, colon + 1), line.substr(colon + 2)});
    out.name_w = std::max(out.name_w, ImGui::CalcTextSize(out.rows.back().first.c_str()).x);
    out.rest_w = std::max(out.rest_w, ImGui::CalcTextSize(out.rows.back().second.c_str()).x);
    pos = nl + 1;
  }
  return out;
}
constexpr float kShapeGap = 8.0f;
float shapes_width(const std::string& text) {
  const ShapeLines s = shape_lines(text);
  return s.name_w + kShapeGap + s.rest_w;
}

void shapes(const std::string& text) {
  const ShapeLines s = shape_lines(text);
  const float x0 = ImGui::GetCursorScreenPos().x;
  for (const auto& [name, shape] : s.rows) {
    if (name.empty()) {
      ImGui::TextUnformatted(shape.c_str());
      continue;
    }
    ImGui::SetCursorScreenPos(ImVec2(x0 + s.name_w - ImGui::CalcTextSize(name.c_str()).x, ImGui::GetCursorScreenPos().y));
    ImGui::TextUnformatted(name.c_str());
    ImGui::SameLine();
    ImGui::SetCursorScreenPos(ImVec2(x0 + s.name_w + kShapeGap, ImGui::GetCursorScreenPos().y));
    ImGui::TextColored(ImVec4(0.20f, 0.42f, 0.85f, 1), "%s", shape.c_str());
  }
}

// `track`: a slider's bar width chosen by the flow (0 = the default).
std::optional<DemoEdit> draw_content(const Ctx& c, const Panel& p, float width, float track) {
  std::optional<DemoEdit> edit;
  bool is_input = false;
  const attn::Mat* m = find_mat(c, p.source, &is_input);
  switch (p.kind) {
    case Panel::Kind::editor: {
      if (auto e = matrix_editor(editor_view(c, p, m)))
        edit = DemoEdit{DemoEdit::Kind::cell, e->name, e->row, e->col, e->value, 0.0f, {}};
      if (!is_input) break;
      const MatrixAction a = matrix_tools(p.source, c.lang);
      if (a == MatrixAction::randomise) edit = DemoEdit{DemoEdit::Kind::randomise, p.source, 0, 0, 0.0f, 0.0f, {}};
      if (a == MatrixAction::reset) edit = DemoEdit{DemoEdit::Kind::reset, p.source, 0, 0, 0.0f, 0.0f, {}};
      break;
    }
    case Panel::Kind::heatmap: heatmap(heatmap_view(c, p, m)); break;
    case Panel::Kind::token_arrows: token_arrows(arrows_view(c, p, m)); break;
    case Panel::Kind::vector_plot:
      if (auto e = vector_plot(vectors_view(c, p, m)))
        edit = DemoEdit{DemoEdit::Kind::point, e->name, e->row, 0, e->x, e->y, {}};
      break;
    case Panel::Kind::line_plot:
    case Panel::Kind::bar_plot: plot(plot_view(c, p, m)); break;
    case Panel::Kind::choice:
      if (auto v = choice(choice_view(c, p))) edit = DemoEdit{DemoEdit::Kind::setting, p.setting, 0, 0, 0.0f, 0.0f, *v};
      break;
    case Panel::Kind::slider:
      if (auto v = slider(slider_view(c, p, track))) edit = DemoEdit{DemoEdit::Kind::setting, p.setting, 0, 0, 0.0f, 0.0f, *v};
      break;
    case Panel::Kind::token_input:
      if (auto v = token_input(token_input_view(c, p))) edit = DemoEdit{DemoEdit::Kind::setting, p.setting, 0, 0, 0.0f, 0.0f, *v};
      break;
    case Panel::Kind::note: note(p.text.get(c.lang), width); break;
    case Panel::Kind::shapes: shapes(p.text.get(c.lang)); break;
  }
  return edit;
}

// Stands in for a panel the learner should predict before seeing.
void placeholder(const char* message, float width) {
  const ImVec2 a = ImGui::GetCursorScreenPos();
  const float h = std::max(90.0f, ImGui::GetTextLineHeightWithSpacing() * 3);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(a, ImVec2(a.x + width, a.y + h), IM_COL32(238, 240, 245, 255), 4.0f);
  for (float x = -h; x < width; x += 14.0f)  // light diagonal hatching
    dl->AddLine(ImVec2(a.x + std::max(x, 0.0f), a.y + (x < 0 ? -x : 0.0f)),
                ImVec2(a.x + std::min(x + h, width), a.y + (x + h > width ? width - x : h)), IM_COL32(226, 229, 236, 255));
  ImGui::SetCursorScreenPos(ImVec2(a.x + 10, a.y + 10));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped(message, a.x + width - 10);
  ImGui::PopStyleColor();
  ImGui::SetCursorScreenPos(a);
  ImGui::Dummy(ImVec2(width, h));
}

bool needs_matrix(Panel::Kind k) {
  return k != Panel::Kind::choice && k != Panel::Kind::slider && k != Panel::Kind::note && k != Panel::Kind::shapes &&
         k != Panel::Kind::token_input;
}

}  // namespace

// ---------------------------------------------------------------- 4 the flow
std::optional<DemoEdit> demo_view(const DemoView& view) {
  const attn::DemoInputs& in = *view.inputs;
  const attn::DemoOutputs& out = *view.outputs;
  Ctx c{in, out, view.lang, ImGui::GetContentRegionAvail().x};
  // Several line plots (curves against d_k, counts against n) read best side by side.
  if (std::count_if(out.panels.begin(), out.panels.end(), [](const Panel& p) { return p.kind == Panel::Kind::line_plot; }) >= 2)
    c.plot_cap = (c.avail - kCardGap) / 2 - 2 * kPad;
  std::optional<DemoEdit> edit;

  if (!out.error.empty())
    ImGui::TextColored(ImVec4(0.75f, 0.15f, 0.10f, 1), "%s %s", text::cannot_compute.get(view.lang), out.error.c_str());

  const float left = ImGui::GetCursorScreenPos().x, right = left + c.avail;
  bool first = true, last_was_control = false;
  for (size_t i = 0; i < out.panels.size(); ++i) {
    const Panel& p = out.panels[i];
    if (needs_matrix(p.kind) && !find_mat(c, p.source)) {
      // After a compute error the outputs are missing: draw what still can be.
      if (!out.error.empty()) continue;
      ImGui::TextColored(ImVec4(0.75f, 0.15f, 0.10f, 1), "panel '%s': no matrix '%s'", p.id.c_str(), p.source.c_str());
      first = true;
      continue;
    }
    const std::string title = p.title.get(view.lang);
    const float content = content_width(c, p);
    // A paired line plot's title wraps over the plot rather than widening the card.
    const bool paired_plot = p.kind == Panel::Kind::line_plot && c.plot_cap > 0.0f;
    const float title_w = std::min(ImGui::CalcTextSize(title.c_str()).x, paired_plot ? content : kTitleCap);
    const float inner = std::max({content, title_w, kMinCard - 2 * kPad});
    float card_w = std::min(inner + 2 * kPad, std::max(c.avail, kMinCard));
    float track = 0.0f;
    // Controls (choices, sliders) share rows only with each other, so a short
    // control card never leaves a hole beside a tall matrix.
    const bool control = p.kind == Panel::Kind::choice || p.kind == Panel::Kind::slider;
    if (!first) {
      ImGui::SameLine(0, kCardGap);
      const float x = ImGui::GetCursorScreenPos().x;
      bool new_row = control != last_was_control || x + card_w > right + 0.5f;
      // A slider that does not fit beside the controls before it gets a shorter
      // bar (down to kSliderMinTrack) rather than a row of its own.
      if (new_row && p.kind == Panel::Kind::slider && last_was_control) {
        const float room = right - x - 2 * kPad;  // content width left on this row
        const float shorter = kSliderTrack - (content - room);
        if (shorter >= kSliderMinTrack && title_w <= room) {
          track = shorter;
          card_w = room + 2 * kPad;
          new_row = false;
        }
      }
      if (new_row) {
        ImGui::NewLine();
        ImGui::Dummy(ImVec2(0, kCardGap - ImGui::GetStyle().ItemSpacing.y * 2));
      }
    }
    first = false;
    last_was_control = control;

    ImGui::PushID(p.id.empty() ? std::to_string(i).c_str() : p.id.c_str());
    Card card;
    card_begin(card, card_w);
    if (!title.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.25f, 0.30f, 0.40f, 1));
      text_wrapped(title, ImGui::GetCursorScreenPos().x + card_w - 2 * kPad);
      ImGui::PopStyleColor();
    }
    const bool hidden =
        std::find(view.hidden_panels.begin(), view.hidden_panels.end(), p.id) != view.hidden_panels.end();
    if (hidden) placeholder(text::hidden_panel.get(view.lang), card_w - 2 * kPad);
    else if (auto e = draw_content(c, p, card_w - 2 * kPad, track)) edit = e;
    card_end(card);
    widgets_record_last("panel:" + p.id, hidden ? "panel-hidden" : "panel");
    ImGui::PopID();
  }

  for (const auto& w : out.warnings) ImGui::TextColored(ImVec4(0.70f, 0.45f, 0.0f, 1), "%s", w.c_str());
  return edit;
}

}  // namespace ui
