// basics.cpp: demos for part A of the curriculum, attention as a weight
// distribution. Every number is small enough to check by hand.
//
// Sections: 1 qkv_basic (A2: score -> normalise -> mix), 2 focus and image_focus
// (A1), 3 kv_memory (A2, A3: soft against hard read), 4 dot_geometry (A4),
// 5 values_mix (A5), 6 projections (A6), 7 registration.
#include <algorithm>
#include <cmath>

#include "attn/attention.h"
#include "base/text.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn::demo_impl {
namespace {

// Title of stage 1 for a score kind, in both languages.
LocalText score_title(ScoreKind kind) {
  switch (kind) {
    case ScoreKind::scaled_dot: return tr("1 Score: q_i · k_j / √d_k", "1 打分：q_i · k_j / √d_k");
    case ScoreKind::cosine: return tr("1 Score: cos(q_i, k_j)", "1 打分：cos(q_i, k_j)");
    case ScoreKind::general: return tr("1 Score: q_i W k_j", "1 打分：q_i W k_j");
    case ScoreKind::additive: return tr("1 Score: v_a · tanh(q_i W_q + k_j W_k)", "1 打分：v_a · tanh(q_i W_q + k_j W_k)");
    default: return tr("1 Score: q_i · k_j", "1 打分：q_i · k_j");
  }
}

// The note under a mix: each output row as a weighted sum, and the row sums.
LocalText mix_note(const Mat& weights, const Mat& output, const std::vector<std::string>& rows,
                   const std::vector<std::string>& keys, const char* out_name = "b") {
  LocalText t;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    const std::string line = weighted_sum_line(out_name, rows[size_t(i)], weights, i, "v", keys, output);
    add_line(t, line, line);
  }
  float worst = 0.0f;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) worst = std::max(worst, std::abs(weights.row(i).sum() - 1.0f));
  add_line(t, "Every row of weights sums to 1 (largest error " + fmt(worst, 4) + ").",
           "每一行权重之和都是 1（最大误差 " + fmt(worst, 4) + "）。");
  return t;
}

// ---------------------------------------------------------------- 1 qkv_basic
// Self-attention with the numbers laid bare: token i has a query q_i, key k_i and
// value v_i; scores s_ij = score(q_i, k_j), weights = softmax of each row,
// output b_i = sum_j w_ij v_j.
void check_qkv_basic(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  for (const char* m : {"q", "k", "v"}) {
    auto it = in.mats.find(m);
    if (it != in.mats.end() && it->second.rows() != n)
      problems.push_back({m, "'" + std::string(m) + "' needs one row per token (" + std::to_string(n) + ")"});
  }
  if (problems.empty())
    need_cols(in, "k", in.mats.at("q").cols(), "as many as 'q': q_i · k_j needs equal sizes", problems);
}

DemoOutputs run_qkv_basic(const DemoInputs& in) {
  DemoOutputs out;
  AttentionDesc desc;
  parse_score_kind(setting(in, "score"), &desc.score);
  AttentionResult r = attention_forward(in.mats.at("q"), in.mats.at("k"), in.mats.at("v"), desc, {});
  if (!r.ok()) {
    out.error = r.error;
    return out;
  }
  const auto& tok = in.tokens;
  const Eigen::Index d = r.scores.cols() ? in.mats.at("q").cols() : 0, d_v = r.output.cols();
  out.panels.push_back(editor_panel("q", tr("Queries Q: what each token looks for", "查询 Q：每个词元在找什么"), tok, dim_labels(d)));
  out.panels.push_back(editor_panel("k", tr("Keys K: what each token offers", "键 K：每个词元能提供什么"), tok, dim_labels(d)));
  out.panels.push_back(editor_panel("v", tr("Values V: what each token passes on", "值 V：每个词元传递什么"), tok, dim_labels(d_v)));
  out.panels.push_back(heatmap_panel("scores", "scores", score_title(desc.score), tok, tok, false));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("2 Normalise: softmax of each row", "2 归一化：每行做 softmax"), tok, tok, true));
  out.panels.push_back(heatmap_panel("output", "output", tr("3 Mix: b_i = Σ_j w_ij v_j", "3 混合：b_i = Σ_j w_ij v_j"), tok, dim_labels(d_v), false));
  out.panels.push_back(arrows_panel("arrows", "weights", tr("Who attends to whom", "谁在关注谁"), tok, tok));
  out.panels.push_back(note_panel("sums", tr("Each output written out", "逐个写出每个输出"), mix_note(r.weights, r.output, tok, tok)));
  out.panels.push_back(choice_panel("score", tr("Scoring function", "打分函数"), {"dot", "scaled_dot", "cosine"},
                                    {tr("dot product", "点积"), tr("scaled dot product", "缩放点积"), tr("cosine", "余弦")}));
  out.mats["scores"] = std::move(r.scores);    // (n, n)
  out.mats["weights"] = std::move(r.weights);  // (n, n)
  out.mats["output"] = std::move(r.output);    // (n, d_v)
  out.warnings = std::move(r.warnings);
  return out;
}

// ---------------------------------------------------------------- 2 focus, image_focus
// focus: one query word against a passage. No values: the point is where the
// weight goes. q (1, d), k (n, d) -> scores, weights (1, n).
void check_focus(const DemoInputs& in, std::vector<Problem>& problems) {
  need_labels(in.tokens, "tokens", 2, 12, problems);
  need_rows(in, "q", 1, "one query", problems);
  need_rows(in, "k", Eigen::Index(in.tokens.size()), "one key per passage token", problems);
  need_cols(in, "k", in.mats.at("q").cols(), "as many as 'q'", problems);
  need_max_size(in, "k", 12, 4, problems);
}

DemoOutputs run_focus(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& q = in.mats.at("q");  // (1, d)
  const Mat& K = in.mats.at("k");  // (n, d)
  const auto& tok = in.tokens;
  const std::vector<std::string> query = {setting(in, "query")};
  Mat scores = dot_scores(q, K);                         // (1, n)
  Mat weights = softmax_rows(scores, &out.warnings);     // (1, n)
  out.panels.push_back(editor_panel("q", tr("The query: what the question asks for", "查询：问题要找什么"), query, dim_labels(q.cols())));
  out.panels.push_back(editor_panel("k", tr("Keys: what each word of the passage offers", "键：段落中每个词能提供什么"), tok, dim_labels(K.cols())));
  out.panels.push_back(arrows_panel("arrows", "weights", tr("Where the question looks", "问题在看哪里"), query, tok));
  out.panels.push_back(bars_panel("bars", "weights", tr("Attention weights over the passage", "段落上的注意力权重"), query, tok));
  out.panels.push_back(heatmap_panel("scores", "scores", tr("Raw scores q · k_j", "原始分数 q · k_j"), query, tok, false));
  const Eigen::Index top = row_argmax(weights, 0);
  const float top_w = weights(0, top);
  LocalText t;
  add_line(t, "\"" + query[0] + "\" puts " + fmt(100 * top_w, 0) + "% of its attention on \"" + tok[size_t(top)] +
                  "\"; the other " + std::to_string(tok.size() - 1) + " words share the remaining " +
                  fmt(100 * (1 - top_w), 0) + "%.",
           "“" + query[0] + "” 把 " + fmt(100 * top_w, 0) + "% 的注意力放在 “" + tok[size_t(top)] + "” 上；其余 " +
               std::to_string(tok.size() - 1) + " 个词分享剩下的 " + fmt(100 * (1 - top_w), 0) + "%。");
  add_line(t, "A uniform spread would give each word " + fmt(100.0f / float(tok.size()), 0) + "%.",
           "如果平均分配，每个词得到 " + fmt(100.0f / float(tok.size()), 0) + "%。");
  out.panels.push_back(note_panel("focus", tr("Focus", "焦点"), t));
  out.mats["scores"] = std::move(scores);
  out.mats["weights"] = std::move(weights);
  return out;
}

// image_focus: a classifier's query over a grid of image patches. Each patch has
// two features (maps, (R, C) each); patch score = q . (f1, f2); one softmax over
// all R*C patches, shown back on the grid.
void check_image_focus(const DemoInputs& in, std::vector<Problem>& problems) {
  need_labels(setting_labels(in, "features"), "features", 2, 2, problems);
  need_rows(in, "q", 1, "one query", problems);
  need_cols(in, "q", 2, "one weight per feature", problems);
  need_max_size(in, "map1", 6, 6, problems);
  need_rows(in, "map2", in.mats.at("map1").rows(), "the same grid as 'map1'", problems);
  need_cols(in, "map2", in.mats.at("map1").cols(), "the same grid as 'map1'", problems);
}

DemoOutputs run_image_focus(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& q = in.mats.at("q");      // (1, 2)
  const Mat& f1 = in.mats.at("map1");  // (R, C)
  const Mat& f2 = in.mats.at("map2");  // (R, C)
  const auto features = setting_labels(in, "features");
  const Eigen::Index R = f1.rows(), C = f1.cols();
  // Pass 1: score every patch; pass 2: one softmax over the whole grid (the row
  // maximum is subtracted inside softmax_rows, so large scores cannot overflow).
  Mat scores(1, R * C);  // (1, R*C), patch (r, c) at column r*C + c
  for (Eigen::Index r = 0; r < R; ++r)
    for (Eigen::Index c = 0; c < C; ++c) scores(0, r * C + c) = q(0, 0) * f1(r, c) + q(0, 1) * f2(r, c);
  const Mat flat = softmax_rows(scores, &out.warnings);
  Mat grid(R, C);  // (R, C) the weights back on the image
  for (Eigen::Index r = 0; r < R; ++r)
    for (Eigen::Index c = 0; c < C; ++c) grid(r, c) = flat(0, r * C + c);
  const auto rows = dim_labels(R, "r"), cols = dim_labels(C, "c");
  out.panels.push_back(editor_panel("q", tr("The classifier's query: how much it cares about each feature", "分类器的查询：它对每种特征有多在意"),
                                    {"query"}, features));
  out.panels.push_back(editor_panel("map1", tr("Feature map: " + features[0], "特征图：" + features[0]), rows, cols));
  out.panels.push_back(editor_panel("map2", tr("Feature map: " + features[1], "特征图：" + features[1]), rows, cols));
  out.panels.push_back(heatmap_panel("grid", "weights", tr("Attention over the image patches", "图像块上的注意力"), rows, cols, true));
  Eigen::Index best = 0;
  for (Eigen::Index i = 1; i < R * C; ++i)
    if (flat(0, i) > flat(0, best)) best = i;
  // Share of the weight on patches where either feature is strong (> 0.5).
  float on_features = 0.0f;
  for (Eigen::Index r = 0; r < R; ++r)
    for (Eigen::Index c = 0; c < C; ++c)
      if (f1(r, c) > 0.5f || f2(r, c) > 0.5f) on_features += grid(r, c);
  const std::string cell = rows[size_t(best / C)] + " " + cols[size_t(best % C)];
  LocalText t;
  add_line(t, "The strongest patch is " + cell + " with weight " + fmt(flat(0, best)) + " (uniform would be " +
                  fmt(1.0f / float(R * C)) + ").",
           "权重最大的图像块是 " + cell + "，权重 " + fmt(flat(0, best)) + "（平均分配时为 " + fmt(1.0f / float(R * C)) + "）。");
  add_line(t, "Patches where " + features[0] + " or " + features[1] + " is above 0.5 hold " +
                  fmt(100 * on_features, 0) + "% of the attention.",
           features[0] + " 或 " + features[1] + " 大于 0.5 的图像块共占 " + fmt(100 * on_features, 0) + "% 的注意力。");
  out.panels.push_back(note_panel("focus", tr("Focus", "焦点"), t));
  out.mats["scores"] = std::move(scores);
  out.mats["weights"] = std::move(grid);
  return out;
}

// ---------------------------------------------------------------- 3 kv_memory
// A memory of (key, value) slots read by one query: soft (every slot in
// proportion to its softmax weight) or hard (the best slot only). The scores are
// divided by `temperature` first: small temperatures make the soft read
// approach the hard one.
void check_kv_memory(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 2, 6, problems);
  need_rows(in, "q", 1, "one query", problems);
  need_rows(in, "k", n, "one key per slot", problems);
  need_rows(in, "v", n, "one value per slot", problems);
  need_cols(in, "k", in.mats.at("q").cols(), "as many as 'q'", problems);
  need_max_size(in, "v", 6, 4, problems);
}

DemoOutputs run_kv_memory(const DemoInputs& in) {
  DemoOutputs out;
  AttentionDesc desc;
  desc.score = ScoreKind::dot;
  desc.temperature = setting_number(in, "temperature");
  parse_mode(setting(in, "mode"), &desc.mode);
  AttentionResult r = attention_forward(in.mats.at("q"), in.mats.at("k"), in.mats.at("v"), desc, {});
  if (!r.ok()) {
    out.error = r.error;
    return out;
  }
  const auto& slots = in.tokens;
  const std::vector<std::string> query = {setting(in, "query")};
  const Eigen::Index d = in.mats.at("q").cols(), d_v = r.output.cols();
  const bool hard = desc.mode == Mode::hard;
  out.panels.push_back(choice_panel("mode", tr("How to read the memory", "如何读取记忆"), {"soft", "hard"},
                                    {tr("soft: every slot contributes", "软：每个槽都有贡献"), tr("hard: one slot only", "硬：只读一个槽")}));
  out.panels.push_back(slider_panel("temperature", tr("Temperature (divides the scores)", "温度（分数除以它）"), 0.05f, 5.0f, 0.05f));
  out.panels.push_back(editor_panel("q", tr("Query", "查询"), query, dim_labels(d)));
  out.panels.push_back(editor_panel("k", tr("Keys: the label on each slot", "键：每个槽上的标签"), slots, dim_labels(d)));
  out.panels.push_back(editor_panel("v", tr("Values: what each slot holds", "值：每个槽里存的内容"), slots, dim_labels(d_v)));
  out.panels.push_back(heatmap_panel("scores", "scores", tr("1 Score: q · k_j / temperature", "1 打分：q · k_j / 温度"), query, slots, false));
  out.panels.push_back(heatmap_panel("weights", "weights", hard ? tr("2 Pick: weight 1 on the best slot", "2 挑选：最佳槽的权重为 1")
                                                                : tr("2 Normalise: softmax", "2 归一化：softmax"),
                                     query, slots, true));
  out.panels.push_back(arrows_panel("arrows", "weights", tr("What the read touches", "这次读取触及哪些槽"), query, slots));
  out.panels.push_back(heatmap_panel("output", "output", tr("3 Read: Σ_j w_j v_j", "3 读出：Σ_j w_j v_j"), query, dim_labels(d_v), false));
  LocalText t = mix_note(r.weights, r.output, {""}, slots, "read");
  Eigen::Index used = 0;
  for (Eigen::Index j = 0; j < r.weights.cols(); ++j) used += r.weights(0, j) > 0.01f ? 1 : 0;
  add_line(t, std::to_string(used) + " of " + std::to_string(slots.size()) + " slots contribute more than 1%." +
                  (hard ? " A hard read copies one value: if the pick is wrong, the whole answer is wrong, and a small "
                          "change of the query either changes nothing or jumps to another slot."
                        : " A soft read blends: a small change of the query changes the answer a little."),
           std::to_string(used) + " 个槽（共 " + std::to_string(slots.size()) + " 个）的贡献超过 1%。" +
               (hard ? "硬读取只复制一个值：挑错了，整个答案就错了；查询的微小变化要么毫无影响，要么突然跳到另一个槽。"
                     : "软读取是混合：查询稍有变化，答案也只稍有变化。"));
  out.panels.push_back(note_panel("read", tr("The read written out", "写出这次读取"), t));
  out.mats["scores"] = std::move(r.scores);    // (1, n)
  out.mats["weights"] = std::move(r.weights);  // (1, n)
  out.mats["output"] = std::move(r.output);    // (1, d_v)
  out.warnings = std::move(r.warnings);
  return out;
}

// ---------------------------------------------------------------- 4 dot_geometry
// q . k = |q| |k| cos(angle) = |q| x (the projection of k on q's direction).
void check_dot_geometry(const DemoInputs& in, std::vector<Problem>& problems) {
  need_labels(in.tokens, "tokens", 1, 4, problems);
  need_rows(in, "q", 1, "one query", problems);
  need_cols(in, "q", 2, "the plot is 2-D", problems);
  need_rows(in, "k", Eigen::Index(in.tokens.size()), "one key per token", problems);
  need_cols(in, "k", 2, "the plot is 2-D", problems);
}

DemoOutputs run_dot_geometry(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& q = in.mats.at("q");  // (1, 2)
  const Mat& K = in.mats.at("k");  // (n, 2)
  const auto& tok = in.tokens;
  const Eigen::Index n = K.rows();
  Mat dots(1, n), cosines(1, n), angles(1, n), projections(1, n);  // each (1, n)
  const float q_norm = std::sqrt(q(0, 0) * q(0, 0) + q(0, 1) * q(0, 1));
  LocalText t;
  add_line(t, "|q| = " + fmt(q_norm), "|q| = " + fmt(q_norm));
  for (Eigen::Index j = 0; j < n; ++j) {
    const float k_norm = std::sqrt(K(j, 0) * K(j, 0) + K(j, 1) * K(j, 1));
    dots(0, j) = q(0, 0) * K(j, 0) + q(0, 1) * K(j, 1);
    // A zero vector has no direction: report angle 90 and cosine 0 rather than NaN.
    const bool degenerate = q_norm < 1e-6f || k_norm < 1e-6f;
    cosines(0, j) = degenerate ? 0.0f : std::max(-1.0f, std::min(1.0f, dots(0, j) / (q_norm * k_norm)));
    angles(0, j) = std::acos(cosines(0, j)) * 180.0f / 3.14159265f;
    projections(0, j) = q_norm < 1e-6f ? 0.0f : dots(0, j) / q_norm;
    const std::string& name = tok[size_t(j)];
    add_line(t,
             "k_" + name + ": angle " + fmt(angles(0, j), 0) + "°, cos " + fmt(cosines(0, j)) + ", |k| " +
                 fmt(k_norm) + ", projection on q " + fmt(projections(0, j)) + ", q · k = " + fmt(q_norm) + " × " +
                 fmt(projections(0, j)) + " = " + fmt(dots(0, j)),
             "k_" + name + "：夹角 " + fmt(angles(0, j), 0) + "°，cos " + fmt(cosines(0, j)) + "，|k| " +
                 fmt(k_norm) + "，在 q 方向上的投影 " + fmt(projections(0, j)) + "，q · k = " + fmt(q_norm) + " × " +
                 fmt(projections(0, j)) + " = " + fmt(dots(0, j)));
  }
  Mat weights = softmax_rows(dots, &out.warnings);  // (1, n)
  out.panels.push_back(vectors_panel("plane", "q", "k", tr("Drag the arrows: q and the keys", "拖动箭头：q 和各个键"), {"q"}, tok, t));
  out.panels.push_back(editor_panel("q", tr("Query q", "查询 q"), {"q"}, {"x", "y"}));
  out.panels.push_back(editor_panel("k", tr("Keys k_j", "键 k_j"), tok, {"x", "y"}));
  out.panels.push_back(bars_panel("dots", "dots", tr("q · k_j: the relevance of each key to q", "q · k_j：每个键与 q 的相关程度"), {"q"}, tok));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("softmax of the dot products", "点积的 softmax"), {"q"}, tok, true));
  out.mats["dots"] = std::move(dots);
  out.mats["cosines"] = std::move(cosines);
  out.mats["angles"] = std::move(angles);
  out.mats["projections"] = std::move(projections);
  out.mats["weights"] = std::move(weights);
  return out;
}

// ---------------------------------------------------------------- 5 values_mix
// Why values: scores are one number per pair; adding them up gives one number
// that says how much matched, not what. The weighted sum of value vectors keeps
// what each token carries. contributions (n + 1, d_v): rows w_j v_j, then the sum.
void check_values_mix(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 2, 6, problems);
  need_rows(in, "q", 1, "one query", problems);
  need_rows(in, "k", n, "one key per token", problems);
  need_rows(in, "v", n, "one value per token", problems);
  need_cols(in, "k", in.mats.at("q").cols(), "as many as 'q'", problems);
  need_labels(setting_labels(in, "features"), "features", size_t(in.mats.at("v").cols()),
              size_t(in.mats.at("v").cols()), problems);
}

DemoOutputs run_values_mix(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& q = in.mats.at("q");  // (1, d)
  const Mat& K = in.mats.at("k");  // (n, d)
  const Mat& V = in.mats.at("v");  // (n, d_v)
  const auto& tok = in.tokens;
  const auto features = setting_labels(in, "features");
  const std::vector<std::string> query = {setting(in, "query")};
  const Eigen::Index n = K.rows(), d_v = V.cols();
  Mat scores = dot_scores(q, K);                      // (1, n)
  Mat weights = softmax_rows(scores, &out.warnings);  // (1, n)
  Mat contributions = Mat::Zero(n + 1, d_v);          // (n + 1, d_v)
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index c = 0; c < d_v; ++c) {
      contributions(j, c) = weights(0, j) * V(j, c);
      contributions(n, c) += contributions(j, c);
    }
  Mat output = contributions.bottomRows(1);  // (1, d_v)
  std::vector<std::string> groups = tok;
  groups.push_back("= b");
  out.panels.push_back(editor_panel("q", tr("Query", "查询"), query, dim_labels(q.cols())));
  out.panels.push_back(editor_panel("k", tr("Keys", "键"), tok, dim_labels(K.cols())));
  out.panels.push_back(editor_panel("v", tr("Values: what each token carries", "值：每个词元携带的内容"), tok, features));
  out.panels.push_back(heatmap_panel("scores", "scores", tr("Scores: one number per pair", "分数：每一对只有一个数"), query, tok, false));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("Weights", "权重"), query, tok, true));
  out.panels.push_back(bars_panel("contributions", "contributions", tr("w_j · v_j for each token, and their sum b", "每个词元的 w_j · v_j，以及它们的和 b"), groups, features));
  out.panels.push_back(heatmap_panel("output", "output", tr("The result b = Σ_j w_j v_j", "结果 b = Σ_j w_j v_j"), query, features, false));
  LocalText t;
  add_line(t, "Adding up the scores gives " + fmt(scores.sum()) + ": one number that says how strongly things matched, not what matched.",
           "把分数加起来得到 " + fmt(scores.sum()) + "：只是一个数，说明匹配得有多强，却说不出匹配到了什么。");
  std::string feats_en, feats_zh;
  for (Eigen::Index c = 0; c < d_v; ++c) {
    feats_en += (c ? ", " : "") + features[size_t(c)] + " " + fmt(output(0, c));
    feats_zh += (c ? "，" : "") + features[size_t(c)] + " " + fmt(output(0, c));
  }
  add_line(t, "The weighted sum of the values is a vector: " + feats_en + ". It carries what the attended tokens hold, in proportion to their weights.",
           "值的加权和是一个向量：" + feats_zh + "。它按权重携带了被关注词元的内容。");
  const std::string line = weighted_sum_line("b", "", weights, 0, "v", tok, output);
  add_line(t, line, line);
  out.panels.push_back(note_panel("why", tr("Scores against values", "分数与值的对比"), t));
  out.mats["scores"] = std::move(scores);
  out.mats["weights"] = std::move(weights);
  out.mats["contributions"] = std::move(contributions);
  out.mats["output"] = std::move(output);
  return out;
}

// ---------------------------------------------------------------- 6 projections
// raw: scores = X X^T (Q = K = V = X), a symmetric matrix: s_ij = s_ji.
// learned: Q = X W_Q, K = X W_K, V = X W_V; Q K^T need not be symmetric, so
// token i may attend to j without j attending to i.
void check_projections(const DemoInputs& in, std::vector<Problem>& problems) {
  need_labels(in.tokens, "tokens", 2, 6, problems);
  need_rows(in, "x", Eigen::Index(in.tokens.size()), "one embedding per token", problems);
  need_max_size(in, "x", 6, 4, problems);
  const Eigen::Index d = in.mats.at("x").cols();
  for (const char* w : {"w_q", "w_k", "w_v"}) need_rows(in, w, d, "one row per column of 'x'", problems);
  need_cols(in, "w_k", in.mats.at("w_q").cols(), "as many as 'w_q': q · k needs equal sizes", problems);
}

DemoOutputs run_projections(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& X = in.mats.at("x");  // (n, d)
  const bool learned = setting(in, "projection") == "learned";
  Mat Q = learned ? Mat(X * in.mats.at("w_q")) : X;  // (n, d_k)
  Mat K = learned ? Mat(X * in.mats.at("w_k")) : X;  // (n, d_k)
  Mat V = learned ? Mat(X * in.mats.at("w_v")) : X;  // (n, d_v)
  AttentionDesc desc;
  desc.score = ScoreKind::dot;
  AttentionResult r = attention_forward(Q, K, V, desc, {});
  if (!r.ok()) {
    out.error = r.error;
    return out;
  }
  const auto& tok = in.tokens;
  const Eigen::Index n = X.rows();
  Mat asymmetry = r.scores - r.scores.transpose();  // (n, n) s_ij - s_ji
  out.panels.push_back(choice_panel("projection", tr("Compare tokens", "如何比较词元"), {"raw", "learned"},
                                    {tr("raw: x_i · x_j", "直接：x_i · x_j"), tr("learned: (x_i W_Q) · (x_j W_K)", "学习的投影：(x_i W_Q) · (x_j W_K)")}));
  out.panels.push_back(editor_panel("x", tr("Embeddings X", "嵌入 X"), tok, dim_labels(X.cols())));
  if (learned) {
    const auto d_in = dim_labels(X.cols());
    out.panels.push_back(editor_panel("w_q", tr("W_Q", "W_Q"), d_in, dim_labels(in.mats.at("w_q").cols())));
    out.panels.push_back(editor_panel("w_k", tr("W_K", "W_K"), d_in, dim_labels(in.mats.at("w_k").cols())));
    out.panels.push_back(editor_panel("w_v", tr("W_V", "W_V"), d_in, dim_labels(in.mats.at("w_v").cols())));
    out.panels.push_back(heatmap_panel("Q", "Q", tr("Q = X W_Q", "Q = X W_Q"), tok, dim_labels(Q.cols()), false));
    out.panels.push_back(heatmap_panel("K", "K", tr("K = X W_K", "K = X W_K"), tok, dim_labels(K.cols()), false));
  }
  out.panels.push_back(heatmap_panel("scores", "scores", learned ? tr("Scores q_i · k_j", "分数 q_i · k_j") : tr("Scores x_i · x_j", "分数 x_i · x_j"), tok, tok, false));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("Weights", "权重"), tok, tok, true));
  out.panels.push_back(arrows_panel("arrows", "weights", tr("Who attends to whom", "谁在关注谁"), tok, tok));
  out.panels.push_back(heatmap_panel("asymmetry", "asymmetry", tr("s_ij - s_ji: zero everywhere means symmetric", "s_ij - s_ji：处处为零说明对称"), tok, tok, false));
  Eigen::Index self_top = 0;
  for (Eigen::Index i = 0; i < n; ++i) self_top += row_argmax(r.scores, i) == i ? 1 : 0;
  LocalText t;
  add_line(t, "Largest |s_ij - s_ji| = " + fmt(asymmetry.cwiseAbs().maxCoeff()) + ".",
           "最大的 |s_ij - s_ji| = " + fmt(asymmetry.cwiseAbs().maxCoeff()) + "。");
  add_line(t, std::to_string(self_top) + " of " + std::to_string(n) + " tokens give their highest score to themselves.",
           std::to_string(self_top) + " 个词元（共 " + std::to_string(n) + " 个）给自己的分数最高。");
  if (!learned)
    add_line(t, "Raw dot products are symmetric: if i scores j highly, j scores i just as highly, and nothing here can be trained.",
             "直接点积是对称的：i 给 j 高分，j 也同样给 i 高分；这里也没有任何可以训练的参数。");
  else
    add_line(t, "With W_Q different from W_K the relation can be one-way. In a real model these matrices start random and are learned.",
             "当 W_Q 与 W_K 不同时，关系可以是单向的。在真实模型中，这些矩阵从随机值开始，通过训练学到。");
  out.panels.push_back(note_panel("symmetry", tr("Symmetry", "对称性"), t));
  out.mats["Q"] = std::move(Q);
  out.mats["K"] = std::move(K);
  out.mats["V"] = std::move(V);
  out.mats["scores"] = std::move(r.scores);
  out.mats["weights"] = std::move(r.weights);
  out.mats["output"] = std::move(r.output);
  out.mats["asymmetry"] = std::move(asymmetry);
  return out;
}


// ---------------------------------------------------------------- the NumPy/PyTorch programs
// qkv_basic: score -> normalise -> mix.
std::string code_qkv_basic(Py& P, const DemoInputs& in) {
  const std::string score = setting(in, "score");
  P.mat("Q", in_mat(in, "q"), rows_note("queries, one row per token", in.tokens));
  P.mat("K", in_mat(in, "k"), "keys");
  P.mat("V", in_mat(in, "v"), "values");
  P.gap();
  if (score == "cosine") {
    // The lab guards the norms: sqrt(|x|^2 + 1e-12), the same cosine for any row that is not ~0.
    P("norm_Q = np.sqrt((Q * Q).sum(axis=1, keepdims=True) + 1e-12)  # |q_i| (guarded against 0)");
    P("norm_K = np.sqrt((K * K).sum(axis=1, keepdims=True) + 1e-12)");
    P("scores = (Q / norm_Q) @ (K / norm_K).T  # 1 score: cos(q_i, k_j)");
  } else if (score == "scaled_dot") {
    P("d_k = K.shape[1]");
    P("scores = Q @ K.T / d_k ** 0.5  # 1 score: q_i . k_j / sqrt(d_k)");
  } else {
    P("scores = Q @ K.T  # 1 score: q_i . k_j");
  }
  P("weights = softmax(scores)  # 2 normalise: softmax of each row");
  P("output = weights @ V  # 3 mix: b_i = sum_j w_ij v_j");
  for (const char* o : {"scores", "weights", "output"}) P.show(o);
  return "Self-attention on a few tokens: score, normalise (softmax), mix.";
}

std::string code_focus(Py& P, const DemoInputs& in) {
  P.mat("q", in_mat(in, "q"), "the query: " + setting(in, "query"));
  P.mat("K", in_mat(in, "k"), rows_note("keys, one row per word of the passage", in.tokens));
  P.gap();
  P("scores = q @ K.T  # one raw score q . k_j per word");
  P("weights = softmax(scores)  # where the question looks");
  P.show("scores");
  P.show("weights");
  return "One query over a passage: its scores and softmax weights.";
}

std::string code_image_focus(Py& P, const DemoInputs& in) {
  const auto features = setting_labels(in, "features");
  P.mat("q", in_mat(in, "q"), "the classifier's query: one weight per feature (" + join(features, ", ") + ")");
  P.mat("map1", in_mat(in, "map1"), "feature map: " + features[0] + " (one number per image patch)");
  P.mat("map2", in_mat(in, "map2"), "feature map: " + features[1]);
  P.gap();
  P("scores = q[0, 0] * map1 + q[0, 1] * map2  # one score per patch");
  P("weights = softmax(scores.reshape(1, -1)).reshape(scores.shape)  # one softmax over all patches");
  P.show("scores", "scores.reshape(1, -1)");
  P.show("weights");
  return "A query over the patches of an image: one softmax over the whole grid.";
}

std::string code_kv_memory(Py& P, const DemoInputs& in) {
  const bool hard = setting(in, "mode") == "hard";
  P.mat("q", in_mat(in, "q"), "the query: " + setting(in, "query"));
  P.mat("K", in_mat(in, "k"), rows_note("keys: the label on each slot", in.tokens));
  P.mat("V", in_mat(in, "v"), "values: what each slot holds");
  P.value("temperature", num(setting_number(in, "temperature")));
  P.gap();
  P("scores = q @ K.T / temperature  # 1 score");
  if (hard) {
    P("weights = np.zeros(scores.shape)  # 2 a hard read: weight 1 on the best slot");
    P("weights[0, int(np.argmax(scores))] = 1.0");
  } else {
    P("weights = softmax(scores)  # 2 a soft read: every slot in proportion");
  }
  P("output = weights @ V  # 3 read: sum_j w_j v_j");
  for (const char* o : {"scores", "weights", "output"}) P.show(o);
  return std::string("Reading a key-value memory with one query (") + (hard ? "hard" : "soft") + " read).";
}

std::string code_dot_geometry(Py& P, const DemoInputs& in) {
  P.import("math");
  P.mat("q", in_mat(in, "q"), "the query (x, y)");
  P.mat("K", in_mat(in, "k"), rows_note("keys (x, y)", in.tokens));
  P.gap();
  P.block(R"py(dots = q @ K.T  # q . k_j
norm_q = np.sqrt((q * q).sum())  # |q|
norm_K = np.sqrt((K * K).sum(axis=1)).reshape(1, -1)  # |k_j|
cosines = np.clip(dots / np.clip(norm_q * norm_K, 1e-12, None), -1.0, 1.0)  # 0 for a zero vector
angles = np.arccos(cosines) * 180 / math.pi  # degrees
projections = dots / np.clip(norm_q, 1e-12, None)  # k_j projected on q's direction: q . k = |q| x that
weights = softmax(dots))py");
  for (const char* o : {"dots", "cosines", "angles", "projections", "weights"}) P.show(o);
  return "The dot product as geometry: |q| |k| cos(angle).";
}

std::string code_values_mix(Py& P, const DemoInputs& in) {
  P.mat("q", in_mat(in, "q"), "the query: " + setting(in, "query"));
  P.mat("K", in_mat(in, "k"), rows_note("keys", in.tokens));
  P.mat("V", in_mat(in, "v"), "values, one column per feature: " + join(setting_labels(in, "features"), ", "));
  P.gap();
  P.block(R"py(scores = q @ K.T  # one number per pair
weights = softmax(scores)
contributions = weights.T * V  # row j: w_j v_j
output = contributions.sum(axis=0, keepdims=True)  # b = sum_j w_j v_j)py");
  for (const char* o : {"scores", "weights"}) P.show(o);
  P.show("contributions", "np.concatenate([contributions, output])");
  P.show("output");
  return "Why values: the weighted sum of value vectors, token by token.";
}

std::string code_projections(Py& P, const DemoInputs& in) {
  const bool learned = setting(in, "projection") == "learned";
  P.mat("X", in_mat(in, "x"), rows_note("embeddings, one row per token", in.tokens));
  if (learned) {
    P.mat("W_Q", in_mat(in, "w_q"));
    P.mat("W_K", in_mat(in, "w_k"));
    P.mat("W_V", in_mat(in, "w_v"));
  }
  P.gap();
  if (learned) {
    P("Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # learned projections");
  } else {
    P("Q, K, V = X, X, X  # raw: every token compared as it is");
  }
  P.block(R"py(scores = Q @ K.T
weights = softmax(scores)
output = weights @ V
asymmetry = scores - scores.T  # s_ij - s_ji)py");
  for (const char* o : {"Q", "K", "V", "scores", "weights", "output", "asymmetry"}) P.show(o);
  return learned ? "Queries, keys and values from learned projections of X." : "Raw self-attention: Q = K = V = X.";
}

}  // namespace

// ---------------------------------------------------------------- 7 registration
void add_basic_demos(std::vector<DemoEntry>& r) {
  r.push_back({"qkv_basic",
               {tokens_param(), matrix_param("q"), matrix_param("k"), matrix_param("v"),
                choice_param("score", {"dot", "scaled_dot", "cosine"}, "dot")},
               check_qkv_basic, run_qkv_basic, code_qkv_basic});
  r.push_back({"focus", {tokens_param(), text_param("query", "query"), matrix_param("q"), matrix_param("k")},
               check_focus, run_focus, code_focus});
  r.push_back({"image_focus",
               {labels_param("features", "feature 1 | feature 2"), matrix_param("q"), matrix_param("map1"),
                matrix_param("map2")},
               check_image_focus, run_image_focus, code_image_focus});
  r.push_back({"kv_memory",
               {tokens_param(), text_param("query", "query"), matrix_param("q"), matrix_param("k"), matrix_param("v"),
                choice_param("mode", {"soft", "hard"}, "soft"), number_param("temperature", 0.05f, 5.0f, false, "1")},
               check_kv_memory, run_kv_memory, code_kv_memory});
  r.push_back({"dot_geometry", {tokens_param(), matrix_param("q"), matrix_param("k")}, check_dot_geometry,
               run_dot_geometry, code_dot_geometry});
  r.push_back({"values_mix",
               {tokens_param(), text_param("query", "query"), labels_param("features"), matrix_param("q"),
                matrix_param("k"), matrix_param("v")},
               check_values_mix, run_values_mix, code_values_mix});
  r.push_back({"projections",
               {tokens_param(), matrix_param("x"), matrix_param("w_q"), matrix_param("w_k"), matrix_param("w_v"),
                choice_param("projection", {"raw", "learned"}, "learned")},
               check_projections, run_projections, code_projections});
}

}  // namespace attn::demo_impl
