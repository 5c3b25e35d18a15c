// demo_api.cpp: how a panel finds its matrix and its labels (demo_api.h).
#include "course/demo_api.h"

namespace attn {

const Mat* panel_matrix(const DemoInputs& in, const DemoOutputs& out, const std::string& name, bool* is_input) {
  if (is_input) *is_input = false;
  if (name.empty()) return nullptr;
  if (auto it = in.mats.find(name); it != in.mats.end()) {
    if (is_input) *is_input = true;
    return &it->second;
  }
  if (auto it = out.mats.find(name); it != out.mats.end()) return &it->second;
  return nullptr;
}

std::vector<std::string> labels_or_tokens(const DemoInputs& in, const std::vector<std::string>& labels, Eigen::Index n) {
  if (!labels.empty()) return labels;
  if (in.tokens.size() == size_t(n)) return in.tokens;
  return {};
}

std::vector<std::string> shown_labels(const Panel& p, std::vector<std::string> labels, const std::string& lang) {
  if (p.label_text.empty()) return labels;
  for (std::string& l : labels)
    if (auto it = p.label_text.find(l); it != p.label_text.end()) l = it->second.get(lang);
  return labels;
}

PanelAxes panel_axes(const Panel& p, const DemoInputs& in, const Mat& m, const std::string& lang) {
  switch (p.kind) {
    case Panel::Kind::editor: return {shown_labels(p, labels_or_tokens(in, p.row_labels, m.rows()), lang), p.col_labels};
    case Panel::Kind::token_arrows:
      return {labels_or_tokens(in, p.row_labels, m.rows()), labels_or_tokens(in, p.col_labels, m.cols())};
    default: return {shown_labels(p, p.row_labels, lang), shown_labels(p, p.col_labels, lang)};
  }
}

}  // namespace attn
