// qkv_demo.cpp: the three stages of attention on a handful of tokens, every
// number visible: 1 score (q_i . k_j), 2 normalise (softmax per row),
// 3 mix (b_i = sum_j w_ij v_j).
#include <imgui.h>

#include <cstdio>

#include "ui/panels.h"

namespace ui {
namespace {

std::vector<std::string> dims(Eigen::Index n) {
  std::vector<std::string> out;
  for (Eigen::Index i = 0; i < n; ++i) out.push_back("d" + std::to_string(i + 1));
  return out;
}

void stage_title(const char* number, const char* title) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.20f, 0.42f, 0.85f, 1.0f));
  ImGui::Text("%s", number);
  ImGui::PopStyleColor();
  ImGui::SameLine();
  ImGui::TextUnformatted(title);
}

}  // namespace

std::optional<CellEdit> qkv_demo(const QkvDemoView& view) {
  const attn::DemoInputs& in = *view.inputs;
  const attn::DemoOutputs& out = *view.outputs;
  std::optional<CellEdit> edit;
  const auto& tok = in.tokens;

  if (ImGui::BeginTable("##inputs", 3, ImGuiTableFlags_SizingStretchSame)) {
    const char* names[3] = {"q", "k", "v"};
    const char* titles[3] = {"Queries Q (what each token looks for)", "Keys K (what each token offers)",
                             "Values V (what each token passes on)"};
    for (int i = 0; i < 3; ++i) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(titles[i]);
      const attn::Mat& m = in.mats.at(names[i]);
      if (auto e = matrix_editor({names[i], &m, tok, dims(m.cols())})) edit = e;
    }
    ImGui::EndTable();
  }
  ImGui::Separator();
  if (!out.error.empty()) {
    ImGui::TextColored(ImVec4(0.75f, 0.15f, 0.1f, 1), "Cannot compute: %s", out.error.c_str());
    return edit;
  }
  auto setting = in.settings.find("score");
  const bool scaled = setting != in.settings.end() && setting->second == "scaled_dot";
  if (ImGui::BeginTable("##stages", 3, ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextColumn();
    stage_title("1", scaled ? "Score: q_i . k_j / sqrt(d_k)" : "Score: q_i . k_j");
    heatmap({"scores", &out.mats.at("scores"), tok, tok, false, 2});
    ImGui::TableNextColumn();
    stage_title("2", "Normalise: softmax of each row");
    heatmap({"weights", &out.mats.at("weights"), tok, tok, true, 2});
    ImGui::TableNextColumn();
    stage_title("3", "Mix: b_i = sum_j w_ij v_j");
    const attn::Mat& b = out.mats.at("output");
    heatmap({"output", &b, tok, dims(b.cols()), false, 2});
    ImGui::EndTable();
  }
  // The weighted sum written out for every row, to check by hand.
  const attn::Mat& w = out.mats.at("weights");
  char buf[64];
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    std::string line = "b(" + (size_t(i) < tok.size() ? tok[size_t(i)] : std::to_string(i)) + ") =";
    for (Eigen::Index j = 0; j < w.cols(); ++j) {
      std::snprintf(buf, sizeof buf, "%s %.2f*v(%s)", j ? " +" : "", double(w(i, j)),
                    size_t(j) < tok.size() ? tok[size_t(j)].c_str() : "?");
      line += buf;
    }
    ImGui::TextDisabled("%s", line.c_str());
  }
  for (const auto& warn : out.warnings) ImGui::TextColored(ImVec4(0.7f, 0.45f, 0.0f, 1), "%s", warn.c_str());
  return edit;
}

}  // namespace ui
