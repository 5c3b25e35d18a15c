// self_attention.cpp: demos for curriculum D1 and D2, self-attention in matrix form.
//
// Sections: 1 matrix_form (D1), 2 multihead (D2: shapes step by step),
// 3 heads_vs_layers (D2), 4 the NumPy/PyTorch programs, 5 registration.
#include <cmath>
#include <utility>

#include "attn/attention.h"
#include "attn/multihead.h"
#include "attn/positional.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn::demo_impl {
namespace {

Mat identity(Eigen::Index d) { return Mat::Identity(d, d); }

// ---------------------------------------------------------------- 1 matrix_form
// Q = X W_Q, K = X W_K, V = X W_V, Z = softmax(Q K^T / sqrt(d_k)) V, in the
// a^i / q^i / alpha_ij / b^i notation: row i of Z is b^i = sum_j alpha'_ij v^j.
void check_matrix_form(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 1, 6, problems);
  need_rows(in, "x", n, "one row per token", problems);
  need_max_size(in, "x", 6, 4, problems);
  const Eigen::Index d = in.mats.at("x").cols();
  for (const char* w : {"w_q", "w_k", "w_v"}) {
    need_rows(in, w, d, "one row per column of 'x'", problems);
    need_max_size(in, w, 4, 4, problems);
  }
  need_cols(in, "w_k", in.mats.at("w_q").cols(), "as many as 'w_q': q · k needs equal sizes", problems);
  if (setting_int(in, "row") >= n) problems.push_back({"row", "'row' must name a token (0 to " + std::to_string(n - 1) + ")"});
}

DemoOutputs run_matrix_form(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& X = in.mats.at("x");   // (n, d)
  Mat Q = X * in.mats.at("w_q");    // (n, d_k)
  Mat K = X * in.mats.at("w_k");    // (n, d_k)
  Mat V = X * in.mats.at("w_v");    // (n, d_v)
  AttentionDesc desc;
  parse_score_kind(setting(in, "score"), &desc.score);
  // Causal (a decoder's self-attention): query i sees keys 0..i only.
  const bool causal = setting(in, "causal") == "on";
  if (causal) desc.mask = MaskKind::causal;
  AttentionResult r = attention_forward(Q, K, V, desc, {});
  if (!r.ok()) {
    out.error = r.error;
    return out;
  }
  const auto& tok = in.tokens;
  const Eigen::Index n = X.rows(), d = X.cols(), d_k = Q.cols(), d_v = V.cols(), i = setting_int(in, "row");
  const bool scaled = desc.score == ScoreKind::scaled_dot;
  const std::string scale = scaled ? " / √" + std::to_string(d_k) : "";
  out.panels.push_back(editor_panel("x", tr("Inputs X: one row a^i per token", "输入 X：每个词元一行 a^i"), tok, dim_labels(d)));
  out.panels.push_back(editor_panel("w_q", tr("W_Q", "W_Q"), dim_labels(d), dim_labels(d_k)));
  out.panels.push_back(editor_panel("w_k", tr("W_K", "W_K"), dim_labels(d), dim_labels(d_k)));
  out.panels.push_back(editor_panel("w_v", tr("W_V", "W_V"), dim_labels(d), dim_labels(d_v)));
  out.panels.push_back(heatmap_panel("Q", "Q", tr("Q = X W_Q (rows q^i)", "Q = X W_Q（各行为 q^i）"), tok, dim_labels(d_k), false));
  out.panels.push_back(heatmap_panel("K", "K", tr("K = X W_K (rows k^i)", "K = X W_K（各行为 k^i）"), tok, dim_labels(d_k), false));
  out.panels.push_back(heatmap_panel("V", "V", tr("V = X W_V (rows v^i)", "V = X W_V（各行为 v^i）"), tok, dim_labels(d_v), false));
  out.panels.push_back(choice_panel("score", tr("Divide by √d_k?", "是否除以 √d_k？"), {"dot", "scaled_dot"},
                                    {tr("no: Q K^T", "否：Q K^T"), tr("yes: Q K^T / √d_k", "是：Q K^T / √d_k")}));
  out.panels.push_back(choice_panel("causal", tr("Causal mask (a decoder's self-attention)", "因果掩码（解码器的自注意力）"),
                                    {"off", "on"},
                                    {tr("off: every token sees all", "关：每个词元看到全部"),
                                     tr("on: token i sees 1..i", "开：词元 i 只看到 1..i")}));
  out.panels.push_back(heatmap_panel("scores", "scores", tr("α = Q K^T" + scale, "α = Q K^T" + scale), tok, tok, false));
  // The mask the core applied (all ones without it): 1 = may attend.
  out.mats["mask"] = r.allowed.cast<float>();
  out.panels.push_back(heatmap_panel("mask", "mask",
                                     tr("Mask: 1 = may attend, 0 = a later token, its score set to -∞ before softmax",
                                        "掩码：1 = 可以关注，0 = 后面的词元，其分数在 softmax 前设为 -∞"),
                                     tok, tok, true));
  out.panels.push_back(heatmap_panel("weights", "weights",
                                     causal ? tr("α' = softmax of each row over the keys it may see: a lower triangle",
                                                 "α' = 每行只在能看到的键上做 softmax：一个下三角")
                                            : tr("α' = softmax of each row", "α' = 每行的 softmax"),
                                     tok, tok, true));
  out.panels.push_back(heatmap_panel("output", "output", tr("Z = α' V (rows b^i)", "Z = α' V（各行为 b^i）"), tok, dim_labels(d_v), false));
  out.panels.push_back(slider_panel("row", tr("Row to write out", "要写出的行"), 0.0f, float(n - 1), 1.0f));
  // Row i in the a^i / q^i / alpha_i,j / b^i notation, positions counted from 1.
  const std::string a = tok[size_t(i)], idx = std::to_string(i + 1);
  std::string b_line = "b^" + idx + " =";
  for (Eigen::Index j = 0; j < n; ++j) b_line += (j ? " + " : " ") + fmt(r.weights(i, j)) + "·v^" + std::to_string(j + 1);
  b_line += " = " + fmt_row(r.output, i);
  LocalText t;
  const std::vector<std::string> lines = {
      "q^" + idx + " = a^" + idx + " W_Q = " + fmt_row(X.row(i) , 0) + " W_Q = " + fmt_row(Q, i),
      "α_" + idx + ",j = q^" + idx + " · k^j" + scale + " = " + fmt_row(r.scores, i),
      "α'_" + idx + ",j = softmax(α_" + idx + ",j) = " + fmt_row(r.weights, i), b_line};
  for (const auto& l : lines) add_line(t, l, l);
  out.panels.push_back(note_panel("row", tr("Row " + idx + " (" + a + ") by hand", "手算第 " + idx + " 行（" + a + "）"), t));
  LocalText shapes;
  const std::vector<std::string> s = {
      "X: " + fmt_shape({n, d}),
      "W_Q, W_K: " + fmt_shape({d, d_k}) + "   W_V: " + fmt_shape({d, d_v}),
      "Q, K: " + fmt_shape({n, d_k}) + "   V: " + fmt_shape({n, d_v}),
      "Q K^T: " + fmt_shape({n, n}),
      "softmax: " + fmt_shape({n, n}),
      "Z: " + fmt_shape({n, d_v})};
  for (const auto& l : s) add_line(shapes, l, l);
  out.panels.push_back(shapes_panel("shapes", tr("Shapes: the output has the input's length", "形状：输出与输入等长"), shapes));
  out.mats["Q"] = std::move(Q);
  out.mats["K"] = std::move(K);
  out.mats["V"] = std::move(V);
  out.mats["scores"] = std::move(r.scores);
  out.mats["weights"] = std::move(r.weights);
  out.mats["output"] = std::move(r.output);
  return out;
}

// ---------------------------------------------------------------- 2 multihead
void check_multihead(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 1, 6, problems);
  need_rows(in, "x", n, "one row per token", problems);
  need_max_size(in, "x", 6, 8, problems);
  const Eigen::Index d = in.mats.at("x").cols();
  for (const char* w : {"w_q", "w_k", "w_v"}) need_rows(in, w, d, "one row per column of 'x'", problems);
  const Eigen::Index hd = in.mats.at("w_q").cols();
  if (hd % 4 != 0) problems.push_back({"w_q", "'w_q' needs a multiple of 4 columns (h * d_h for h = 1, 2 and 4)"});
  need_cols(in, "w_k", hd, "as many as 'w_q'", problems);
  need_cols(in, "w_v", hd, "as many as 'w_q'", problems);
  need_rows(in, "w_o", hd, "one row per column of the concatenated heads", problems);
}

DemoOutputs run_multihead(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& X = in.mats.at("x");  // (n, d_model)
  MultiHeadDesc desc;
  desc.heads = setting_int(in, "heads");
  desc.score = ScoreKind::scaled_dot;
  MultiHeadParams p;
  p.W_Q = in.mats.at("w_q");
  p.W_K = in.mats.at("w_k");
  p.W_V = in.mats.at("w_v");
  p.W_O = in.mats.at("w_o");
  MultiHeadResult r = self_attention_forward(X, desc, p);
  if (!r.ok()) {
    out.error = r.error;
    return out;
  }
  const auto& tok = in.tokens;
  const Eigen::Index n = X.rows(), d = X.cols(), h = desc.heads, hd = p.W_Q.cols(), d_h = hd / h, d_out = p.W_O.cols();
  out.panels.push_back(choice_panel("heads", tr("Number of heads h", "头数 h"), {"1", "2", "4"}));
  out.panels.push_back(editor_panel("x", tr("X", "X"), tok, dim_labels(d)));
  out.panels.push_back(editor_panel("w_q", tr("W_Q (heads take column blocks)", "W_Q（每个头取一段列）"), dim_labels(d), dim_labels(hd)));
  out.panels.push_back(editor_panel("w_k", tr("W_K", "W_K"), dim_labels(d), dim_labels(hd)));
  out.panels.push_back(editor_panel("w_v", tr("W_V", "W_V"), dim_labels(d), dim_labels(hd)));
  out.panels.push_back(editor_panel("w_o", tr("W_O: mixes the heads back together", "W_O：把各个头重新混合"), dim_labels(hd), dim_labels(d_out)));
  LocalText shapes;
  const std::vector<std::pair<std::string, std::string>> steps = {
      {"X: " + fmt_shape({1, n, d}) + "   (batch, len, d_model)", "X: " + fmt_shape({1, n, d}) + "   (batch, len, d_model)"},
      {"Q = X W_Q: " + fmt_shape({1, n, hd}) + "   (batch, len, h·d_h)", "Q = X W_Q: " + fmt_shape({1, n, hd}) + "   (batch, len, h·d_h)"},
      {"reshape: " + fmt_shape({1, n, h, d_h}) + "   (batch, len, h, d_h)", "reshape: " + fmt_shape({1, n, h, d_h}) + "   (batch, len, h, d_h)"},
      {"transpose: " + fmt_shape({1, h, n, d_h}) + "   (batch, h, len, d_h)", "transpose: " + fmt_shape({1, h, n, d_h}) + "   (batch, h, len, d_h)"},
      {"Q K^T / √d_h: " + fmt_shape({1, h, n, n}) + "   one (len, len) table per head", "Q K^T / √d_h: " + fmt_shape({1, h, n, n}) + "   每个头一张 (len, len) 表"},
      {"softmax · V: " + fmt_shape({1, h, n, d_h}), "softmax · V: " + fmt_shape({1, h, n, d_h})},
      {"transpose back: " + fmt_shape({1, n, h, d_h}), "transpose back: " + fmt_shape({1, n, h, d_h})},
      {"concat (reshape): " + fmt_shape({1, n, hd}), "concat (reshape): " + fmt_shape({1, n, hd})},
      {"output = concat W_O: " + fmt_shape({1, n, d_out}), "output = concat W_O: " + fmt_shape({1, n, d_out})}};
  for (const auto& [en, zh] : steps) add_line(shapes, en, zh);
  out.panels.push_back(shapes_panel("shapes", tr("Shapes at each step (h = " + std::to_string(h) + ", d_h = " + std::to_string(d_h) + ")",
                                                 "每一步的形状（h = " + std::to_string(h) + "，d_h = " + std::to_string(d_h) + "）"), shapes));
  for (Eigen::Index t = 0; t < h; ++t) {
    const std::string name = "weights_" + std::to_string(t + 1);
    out.panels.push_back(heatmap_panel(name, name, tr("Head " + std::to_string(t + 1) + " weights (columns " + std::to_string(t * d_h + 1) + "-" + std::to_string((t + 1) * d_h) + " of Q, K, V)",
                                                      "第 " + std::to_string(t + 1) + " 个头的权重（Q、K、V 的第 " + std::to_string(t * d_h + 1) + "-" + std::to_string((t + 1) * d_h) + " 列）"),
                                       tok, tok, true));
    out.mats[name] = r.weights[size_t(t)];
  }
  out.panels.push_back(heatmap_panel("concat", "concat", tr("Heads side by side (concat)", "各头并排（拼接）"), tok, dim_labels(hd), false));
  out.panels.push_back(heatmap_panel("output", "output", tr("Output = concat W_O", "输出 = concat W_O"), tok, dim_labels(d_out), false));
  const Eigen::Index n_params = d * hd * 3 + hd * d_out;
  LocalText t;
  add_line(t, "Parameters: W_Q, W_K, W_V and W_O hold " + std::to_string(n_params) + " numbers whatever h is: more heads means smaller heads (d_h = " +
                  std::to_string(d_h) + "), not more parameters.",
           "参数：无论 h 是多少，W_Q、W_K、W_V 和 W_O 一共都是 " + std::to_string(n_params) + " 个数：头越多，每个头越小（d_h = " +
               std::to_string(d_h) + "），参数并不增加。");
  add_line(t, "Each head has its own (len, len) weight table, so different heads can look at different tokens at the same time.",
           "每个头都有自己的 (len, len) 权重表，因此不同的头可以同时关注不同的词元。");
  out.panels.push_back(note_panel("params", tr("What the heads buy", "多个头带来什么"), t));
  out.mats["Q"] = X * p.W_Q;
  out.mats["concat"] = std::move(r.concat);
  out.mats["output"] = std::move(r.output);
  out.warnings = std::move(r.warnings);
  return out;
}

// ---------------------------------------------------------------- 3 heads_vs_layers
// Two attention units (W_Q1, W_K1) and (W_Q2, W_K2), values V = X (W_V = I), used
// two ways:
//   heads:  Z = (A_1(X) + A_2(X)) / 2   both units read X, side by side
//   layers: Z = A_2(A_1(X))             unit 2 reads what unit 1 produced
// (the average is concat [A_1 | A_2] times W_O = [I; I] / 2).
void check_heads_vs_layers(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 2, 6, problems);
  need_rows(in, "x", n, "one row per token", problems);
  need_max_size(in, "x", 6, 4, problems);
  const Eigen::Index d = in.mats.at("x").cols();
  for (const char* w : {"w_q1", "w_k1", "w_q2", "w_k2"}) {
    need_rows(in, w, d, "(d, d) with d the width of 'x'", problems);
    need_cols(in, w, d, "(d, d) with d the width of 'x'", problems);
  }
}

DemoOutputs run_heads_vs_layers(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& X = in.mats.at("x");  // (n, d)
  const Eigen::Index d = X.cols();
  const Mat &Wq1 = in.mats.at("w_q1"), &Wk1 = in.mats.at("w_k1"), &Wq2 = in.mats.at("w_q2"), &Wk2 = in.mats.at("w_k2");
  // Heads: one layer, two heads of size d.
  MultiHeadDesc two_heads;
  two_heads.heads = 2;
  two_heads.score = ScoreKind::scaled_dot;
  MultiHeadParams hp;
  hp.W_Q.resize(d, 2 * d);  // (d, 2d) = [W_Q1 | W_Q2]
  hp.W_Q << Wq1, Wq2;
  hp.W_K.resize(d, 2 * d);
  hp.W_K << Wk1, Wk2;
  hp.W_V.resize(d, 2 * d);  // [I | I]
  hp.W_V << identity(d), identity(d);
  hp.W_O.resize(2 * d, d);  // [I; I] / 2: the two heads are averaged
  hp.W_O << 0.5f * identity(d), 0.5f * identity(d);
  MultiHeadResult heads = self_attention_forward(X, two_heads, hp);
  // Layers: two layers of one head each.
  StackDesc stack;
  stack.layer.heads = 1;
  stack.layer.score = ScoreKind::scaled_dot;
  std::vector<MultiHeadParams> layers(2);
  layers[0].W_Q = Wq1;
  layers[0].W_K = Wk1;
  layers[0].W_V = identity(d);
  layers[1].W_Q = Wq2;
  layers[1].W_K = Wk2;
  layers[1].W_V = identity(d);
  StackResult stacked = stacked_self_attention_forward(X, stack, layers);
  if (!heads.ok() || !stacked.ok()) {
    out.error = heads.ok() ? stacked.error : heads.error;
    return out;
  }
  const bool as_heads = setting(in, "arrangement") == "heads";
  const auto& tok = in.tokens;
  out.mats["heads_w1"] = heads.weights[0];
  out.mats["heads_w2"] = heads.weights[1];
  out.mats["layers_w1"] = stacked.layers[0].weights[0];
  out.mats["layers_w2"] = stacked.layers[1].weights[0];
  out.mats["layer1_output"] = stacked.inputs[1];  // (n, d) what layer 2 reads
  out.mats["out_heads"] = heads.output;          // (n, d)
  out.mats["out_layers"] = stacked.output;       // (n, d)
  out.panels.push_back(choice_panel("arrangement", tr("Arrangement", "排列方式"), {"heads", "layers"},
                                    {tr("2 heads x 1 layer", "2 个头 × 1 层"), tr("1 head x 2 layers", "1 个头 × 2 层")}));
  out.panels.push_back(editor_panel("x", tr("X", "X"), tok, dim_labels(d)));
  out.panels.push_back(editor_panel("w_q1", tr("W_Q of unit 1", "单元 1 的 W_Q"), dim_labels(d), dim_labels(d)));
  out.panels.push_back(editor_panel("w_k1", tr("W_K of unit 1", "单元 1 的 W_K"), dim_labels(d), dim_labels(d)));
  out.panels.push_back(editor_panel("w_q2", tr("W_Q of unit 2", "单元 2 的 W_Q"), dim_labels(d), dim_labels(d)));
  out.panels.push_back(editor_panel("w_k2", tr("W_K of unit 2", "单元 2 的 W_K"), dim_labels(d), dim_labels(d)));
  if (as_heads) {
    out.panels.push_back(heatmap_panel("unit1", "heads_w1", tr("Head 1 weights (reads X)", "头 1 的权重（读 X）"), tok, tok, true));
    out.panels.push_back(heatmap_panel("unit2", "heads_w2", tr("Head 2 weights (also reads X)", "头 2 的权重（也读 X）"), tok, tok, true));
  } else {
    out.panels.push_back(heatmap_panel("unit1", "layers_w1", tr("Layer 1 weights (reads X)", "第 1 层的权重（读 X）"), tok, tok, true));
    out.panels.push_back(heatmap_panel("between", "layer1_output", tr("Layer 1 output: what layer 2 reads", "第 1 层的输出：第 2 层读的内容"), tok, dim_labels(d), false));
    out.panels.push_back(heatmap_panel("unit2", "layers_w2", tr("Layer 2 weights (reads layer 1's output)", "第 2 层的权重（读第 1 层的输出）"), tok, tok, true));
  }
  out.panels.push_back(heatmap_panel("out_heads", "out_heads", tr("Output of 2 heads x 1 layer", "2 个头 × 1 层的输出"), tok, dim_labels(d), false));
  out.panels.push_back(heatmap_panel("out_layers", "out_layers", tr("Output of 1 head x 2 layers", "1 个头 × 2 层的输出"), tok, dim_labels(d), false));
  const float w2_diff = (out.mats["heads_w2"] - out.mats["layers_w2"]).cwiseAbs().maxCoeff();
  const float out_diff = (heads.output - stacked.output).cwiseAbs().maxCoeff();
  Mat diffs(1, 2);  // (1, 2) largest |difference| of unit 2's weights, of the outputs
  diffs << w2_diff, out_diff;
  out.mats["differences"] = diffs;
  LocalText t;
  add_line(t, "Unit 1 gives the same weights in both arrangements: it reads X either way.",
           "单元 1 在两种排列中的权重完全相同：它读的都是 X。");
  add_line(t, "Unit 2's weights differ by up to " + fmt(w2_diff) + ": as a second layer it compares vectors that are already mixtures made by layer 1.",
           "单元 2 的权重最多相差 " + fmt(w2_diff) + "：作为第二层，它比较的是第 1 层已经混合过的向量。");
  add_line(t, "The outputs differ by up to " + fmt(out_diff) + ". Heads look side by side at the same input; layers look one after another, so layer 2 can follow a link of a link.",
           "两种输出最多相差 " + fmt(out_diff) + "。多个头并排看同一个输入；多层则一层接一层，第 2 层可以沿着“链接的链接”走下去。");
  out.panels.push_back(note_panel("compare", tr("Heads are not layers", "头不等于层"), t));
  return out;
}

// ---------------------------------------------------------------- 4 the NumPy/PyTorch programs
std::string code_matrix_form(Py& P, const DemoInputs& in) {
  const bool scaled = setting(in, "score") == "scaled_dot", causal = setting(in, "causal") == "on";
  P.mat("X", in_mat(in, "x"), rows_note("inputs, one row a^i per token", in.tokens));
  P.mat("W_Q", in_mat(in, "w_q"));
  P.mat("W_K", in_mat(in, "w_k"));
  P.mat("W_V", in_mat(in, "w_v"));
  P.gap();
  P("Q, K, V = X @ W_Q, X @ W_K, X @ W_V");
  P("n, d_k = Q.shape");
  P(scaled ? "scores = Q @ K.T / d_k ** 0.5  # alpha" : "scores = Q @ K.T  # alpha");
  if (causal) {
    P("mask = np.tril(np.ones((n, n), dtype=bool))  # causal: token i sees tokens 1..i");
    P("weights = softmax(np.where(mask, scores, -np.inf))  # alpha'");
  } else {
    P("mask = np.ones((n, n), dtype=bool)  # no mask: every token sees all");
    P("weights = softmax(scores)  # alpha'");
  }
  P("output = weights @ V  # Z: row i is b^i");
  for (const char* o : {"Q", "K", "V", "scores"}) P.show(o);
  P.show("mask", "1.0 * mask");
  for (const char* o : {"weights", "output"}) P.show(o);
  return "Self-attention in matrix form: Z = softmax(Q K^T" + std::string(scaled ? " / sqrt(d_k)" : "") + ") V.";
}

std::string code_multihead(Py& P, const DemoInputs& in) {
  P.mat("X", in_mat(in, "x"), rows_note("inputs", in.tokens));
  P.mat("W_Q", in_mat(in, "w_q"), "each head takes a block of columns");
  P.mat("W_K", in_mat(in, "w_k"));
  P.mat("W_V", in_mat(in, "w_v"));
  P.mat("W_O", in_mat(in, "w_o"), "mixes the heads back together");
  P.value("h", setting(in, "heads"), "heads");
  P.gap();
  P.block(R"py(n = X.shape[0]
Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (n, h * d_h)
d_h = Q.shape[1] // h
Qh, Kh, Vh = (np.swapaxes(M.reshape(n, h, d_h), 0, 1) for M in (Q, K, V))  # (h, n, d_h)
weights = softmax(Qh @ np.swapaxes(Kh, 1, 2) / d_h ** 0.5)  # (h, n, n): one table per head
concat = np.swapaxes(weights @ Vh, 0, 1).reshape(n, h * d_h)  # the heads side by side
output = concat @ W_O)py");
  P.show("Q");
  P("for t in range(h):");
  P("    show(f\"weights_{t + 1}\", weights[t])");
  P.show("concat");
  P.show("output");
  return "Multi-head self-attention, head by head (scaled dot product).";
}

std::string code_heads_vs_layers(Py& P, const DemoInputs& in) {
  P.mat("X", in_mat(in, "x"), rows_note("inputs", in.tokens));
  P.mat("W_Q1", in_mat(in, "w_q1"), "unit 1");
  P.mat("W_K1", in_mat(in, "w_k1"));
  P.mat("W_Q2", in_mat(in, "w_q2"), "unit 2");
  P.mat("W_K2", in_mat(in, "w_k2"));
  P.gap();
  P.gap();
  P.block(R"py(def attend(Z, W_Q, W_K):
    """One head of self-attention whose values are Z itself (W_V = I): its weights and output."""
    Q, K = Z @ W_Q, Z @ W_K
    weights = softmax(Q @ K.T / Q.shape[1] ** 0.5)
    return weights, weights @ Z


heads_w1, out_1 = attend(X, W_Q1, W_K1)  # 2 heads x 1 layer: both units read X
heads_w2, out_2 = attend(X, W_Q2, W_K2)
out_heads = (out_1 + out_2) / 2  # concat [A_1 | A_2] times W_O = [I; I] / 2
layers_w1, layer1_output = attend(X, W_Q1, W_K1)  # 1 head x 2 layers
layers_w2, out_layers = attend(layer1_output, W_Q2, W_K2)  # unit 2 reads unit 1's output
differences = [[float(abs(heads_w2 - layers_w2).max()), float(abs(out_heads - out_layers).max())]])py");
  for (const char* o : {"heads_w1", "heads_w2", "layers_w1", "layers_w2", "layer1_output", "out_heads", "out_layers",
                        "differences"})
    P.show(o);
  return "Two attention units as two heads of one layer, or as two layers.";
}

}  // namespace

// ---------------------------------------------------------------- 5 registration
void add_self_attention_demos(std::vector<DemoEntry>& r) {
  r.push_back({"matrix_form",
               {tokens_param(), matrix_param("x"), matrix_param("w_q"), matrix_param("w_k"), matrix_param("w_v"),
                choice_param("score", {"dot", "scaled_dot"}, "scaled_dot"), number_param("row", 0, 5, true, "0"),
                choice_param("causal", {"off", "on"}, "off")},
               check_matrix_form, run_matrix_form, code_matrix_form});
  r.push_back({"multihead",
               {tokens_param(), matrix_param("x"), matrix_param("w_q"), matrix_param("w_k"), matrix_param("w_v"),
                matrix_param("w_o"), choice_param("heads", {"1", "2", "4"}, "2")},
               check_multihead, run_multihead, code_multihead});
  r.push_back({"heads_vs_layers",
               {tokens_param(), matrix_param("x"), matrix_param("w_q1"), matrix_param("w_k1"), matrix_param("w_q2"),
                matrix_param("w_k2"), choice_param("arrangement", {"heads", "layers"}, "heads")},
               check_heads_vs_layers, run_heads_vs_layers, code_heads_vs_layers});
}

}  // namespace attn::demo_impl
