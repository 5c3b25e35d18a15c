// demos_kinds.cpp: demos for part B of the curriculum, the kinds of attention.
//
// Sections: 1 score_functions (B1: five scoring functions on the same Q and K),
// 2 dk_scaling (B1: why divide by sqrt(d_k), from seeded random vectors),
// 3 attention_modes (B2: soft, hard, local, Gumbel on one input),
// 4 cross_vs_self (B3), 5 registration.
#include <algorithm>
#include <cmath>

#include "attn/attention.h"
#include "attn/softmax.h"
#include "base/rng.h"
#include "lab/demos_internal.h"

namespace attn::demo_impl {
namespace {

const std::vector<std::string> kScoreNames = {"dot", "scaled_dot", "general", "additive", "cosine"};

std::vector<LocalText> score_labels() {
  return {tr("dot: q · k", "点积：q · k"), tr("scaled dot: q · k / √d_k", "缩放点积：q · k / √d_k"),
          tr("general: q W k", "一般式：q W k"), tr("additive: v_a · tanh(q W_q + k W_k)", "加性：v_a · tanh(q W_q + k W_k)"),
          tr("cosine: cos(q, k)", "余弦：cos(q, k)")};
}

// ---------------------------------------------------------------- 1 score_functions
void check_score_functions(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 2, 6, problems);
  need_rows(in, "q", n, "one query per token", problems);
  need_rows(in, "k", n, "one key per token", problems);
  const Eigen::Index d = in.mats.at("q").cols();
  need_cols(in, "k", d, "as many as 'q'", problems);
  need_rows(in, "w", d, "general: q W k needs W of (d, d)", problems);
  need_cols(in, "w", d, "general: q W k needs W of (d, d)", problems);
  need_rows(in, "w_q", d, "additive: q W_q needs one row per query column", problems);
  need_rows(in, "w_k", d, "additive: k W_k needs one row per key column", problems);
  const Eigen::Index d_a = in.mats.at("w_q").cols();
  need_cols(in, "w_k", d_a, "as many as 'w_q'", problems);
  need_rows(in, "v_a", 1, "v_a is one vector", problems);
  need_cols(in, "v_a", d_a, "one entry per column of 'w_q'", problems);
  if (setting_int(in, "row") >= n) problems.push_back({"row", "'row' must name a token (0 to " + std::to_string(n - 1) + ")"});
}

ScoreParams score_params_of(const DemoInputs& in) {
  ScoreParams p;
  p.W = in.mats.at("w");
  p.W_q = in.mats.at("w_q");
  p.W_k = in.mats.at("w_k");
  p.v_a = in.mats.at("v_a").row(0).transpose();
  return p;
}

// One score written out with its numbers, for query i and key j.
std::string worked_score(ScoreKind kind, const Mat& Q, const Mat& K, const ScoreParams& p, Eigen::Index i,
                         Eigen::Index j, float value) {
  const Eigen::Index d = Q.cols();
  std::string terms;
  for (Eigen::Index c = 0; c < d; ++c) terms += (c ? " + " : "") + fmt(Q(i, c)) + "×" + fmt(K(j, c));
  switch (kind) {
    case ScoreKind::dot: return terms + " = " + fmt(value);
    case ScoreKind::scaled_dot: return "(" + terms + ") / √" + std::to_string(d) + " = " + fmt(value);
    case ScoreKind::cosine: return "q · k / (|q| |k|) = " + fmt(value);
    case ScoreKind::general: {
      const Mat qW = Q.row(i) * p.W;  // (1, d)
      return "q W = " + fmt_row(qW, 0) + ", (q W) · k = " + fmt(value);
    }
    case ScoreKind::additive: {
      Mat h = Q.row(i) * p.W_q + K.row(j) * p.W_k;  // (1, d_a)
      for (Eigen::Index c = 0; c < h.cols(); ++c) h(0, c) = std::tanh(h(0, c));
      return "tanh(q W_q + k W_k) = " + fmt_row(h, 0) + ", v_a · that = " + fmt(value);
    }
  }
  return "";
}

DemoOutputs run_score_functions(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& Q = in.mats.at("q");  // (n, d)
  const Mat& K = in.mats.at("k");  // (n, d)
  const ScoreParams params = score_params_of(in);
  const auto& tok = in.tokens;
  const Eigen::Index n = K.rows(), row = setting_int(in, "row");
  ScoreKind chosen = ScoreKind::dot;
  parse_score_kind(setting(in, "score"), &chosen);
  // Every kind on the same Q and K; compare (5, n) holds the weights of query `row`.
  Mat compare(Eigen::Index(kScoreNames.size()), n);
  Mat scores, weights;
  for (size_t s = 0; s < kScoreNames.size(); ++s) {
    ScoreDesc desc;
    parse_score_kind(kScoreNames[s], &desc.kind);
    std::string error;
    Mat sc = compute_scores(Q, K, desc, params, &error);  // (n, n)
    if (!error.empty()) {
      out.error = error;
      return out;
    }
    Mat w = softmax_rows(sc, &out.warnings);  // (n, n)
    compare.row(Eigen::Index(s)) = w.row(row);
    if (desc.kind == chosen) {
      scores = std::move(sc);
      weights = std::move(w);
    }
  }
  const Eigen::Index d = Q.cols(), d_a = params.W_q.cols();
  out.panels.push_back(choice_panel("score", tr("Scoring function", "打分函数"), kScoreNames, score_labels()));
  out.panels.push_back(editor_panel("q", tr("Queries Q", "查询 Q"), tok, dim_labels(d)));
  out.panels.push_back(editor_panel("k", tr("Keys K", "键 K"), tok, dim_labels(d)));
  if (chosen == ScoreKind::general)
    out.panels.push_back(editor_panel("w", tr("W of the general (bilinear) score", "一般式（双线性）打分的 W"), dim_labels(d), dim_labels(d)));
  if (chosen == ScoreKind::additive) {
    out.panels.push_back(editor_panel("w_q", tr("W_q of the additive score", "加性打分的 W_q"), dim_labels(d), dim_labels(d_a, "a")));
    out.panels.push_back(editor_panel("w_k", tr("W_k of the additive score", "加性打分的 W_k"), dim_labels(d), dim_labels(d_a, "a")));
    out.panels.push_back(editor_panel("v_a", tr("v_a of the additive score", "加性打分的 v_a"), {"v_a"}, dim_labels(d_a, "a")));
  }
  out.panels.push_back(heatmap_panel("scores", "scores", tr("Scores", "分数"), tok, tok, false));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("Weights (softmax of each row)", "权重（每行做 softmax）"), tok, tok, true));
  out.panels.push_back(slider_panel("row", tr("Query to compare", "要比较的查询"), 0.0f, float(n - 1), 1.0f));
  out.panels.push_back(bars_panel("compare", "compare", tr("Weights of \"" + tok[size_t(row)] + "\" under each scoring function", "“" + tok[size_t(row)] + "” 在各种打分函数下的权重"),
                                  kScoreNames, tok));
  const Eigen::Index j = row_argmax(scores, row);
  LocalText t;
  const std::string worked = "s(" + tok[size_t(row)] + ", " + tok[size_t(j)] + ") = " +
                             worked_score(chosen, Q, K, params, row, j, scores(row, j));
  add_line(t, worked, worked);
  std::string maxes;
  for (size_t s = 0; s < kScoreNames.size(); ++s)
    maxes += (s ? ", " : "") + kScoreNames[s] + " " + fmt(compare.row(Eigen::Index(s)).maxCoeff());
  add_line(t, "Largest weight of \"" + tok[size_t(row)] + "\": " + maxes + ".",
           "“" + tok[size_t(row)] + "” 的最大权重：" + maxes + "。");
  add_line(t, "dot, scaled_dot and cosine have nothing to learn; general and additive have weights that training adjusts.",
           "dot、scaled_dot 和 cosine 没有要学习的参数；general 和 additive 的权重由训练来调整。");
  out.panels.push_back(note_panel("worked", tr("One score written out", "写出一个分数"), t));
  out.mats["scores"] = std::move(scores);
  out.mats["weights"] = std::move(weights);
  out.mats["compare"] = std::move(compare);
  return out;
}

// ---------------------------------------------------------------- 2 dk_scaling
// For random q, k with independent standard-normal entries, q . k is a sum of d_k
// products of variance 1, so its variance is d_k: the scores spread out as d_k
// grows, the softmax puts almost all weight on one key, and its gradient (the
// Jacobian diag(p) - p p^T) shrinks towards zero. Dividing by sqrt(d_k) brings
// the variance back to 1.
struct ScalingStats {
  float variance[2] = {0, 0};    // var(q.k), var(q.k / sqrt(d_k))
  float max_weight[2] = {0, 0};  // mean largest softmax weight: unscaled, scaled
  float entropy[2] = {0, 0};     // mean entropy (nats): unscaled, scaled
  float gradient[2] = {0, 0};    // mean Frobenius norm of the softmax Jacobian
  Mat example_scores;            // (2, n) the first trial's scores: unscaled, scaled
  Mat example_weights;           // (2, n)
};

// |diag(p) - p p^T|_F = sqrt(sum p_i^2 - 2 sum p_i^3 + (sum p_i^2)^2)
float jacobian_norm(const Mat& p) {
  double s2 = 0, s3 = 0;
  for (Eigen::Index j = 0; j < p.cols(); ++j) {
    s2 += double(p(0, j)) * p(0, j);
    s3 += double(p(0, j)) * p(0, j) * p(0, j);
  }
  return float(std::sqrt(std::max(0.0, s2 - 2 * s3 + s2 * s2)));
}

// Standard normals, both halves of each Box-Muller draw (half the log/sqrt calls of
// Rng::normal, which keeps one): the d_k demo draws about 10^5 of them per update.
void fill_normal(Rng& rng, Mat& m) {
  float* out = m.data();
  const Eigen::Index count = m.size();
  for (Eigen::Index i = 0; i < count; i += 2) {
    const float r = std::sqrt(-2.0f * std::log(rng.uniform_open())), t = 6.2831853f * rng.uniform();
    out[i] = r * std::cos(t);
    if (i + 1 < count) out[i + 1] = r * std::sin(t);
  }
}

}  // namespace

// The random numbers, drawn once for the largest d_k: every d_k uses the first
// d_k columns, so one update draws 4 * (n + 12) * 512 normals rather than that
// many for each of the eleven d_k it shows (the statistics of each d_k are
// unchanged: its entries are still independent standard normals).
ScalingDraw draw_scaling(int n, uint64_t seed) {
  Rng rng(seed * 7919u + 1u);
  ScalingDraw draw;
  for (int set = 0; set < kKeySets; ++set) {
    Mat K(n, kMaxDk);
    fill_normal(rng, K);
    draw.keys.push_back(std::move(K));
  }
  draw.queries.resize(kKeySets * kQueriesPerSet, kMaxDk);
  fill_normal(rng, draw.queries);
  return draw;
}

namespace {

ScalingStats scaling_stats(const ScalingDraw& draw, int d) {
  ScalingStats st;
  double sum = 0, sum2 = 0;
  int trials = 0, count = 0;
  const float inv_sqrt_d = 1.0f / std::sqrt(float(d));
  for (int set = 0; set < kKeySets; ++set) {
    const Mat K = draw.keys[size_t(set)].leftCols(d);  // (n, d) this set's keys
    const int n = int(K.rows());
    for (int t = 0; t < kQueriesPerSet; ++t) {
      const Mat q = draw.queries.block(set * kQueriesPerSet + t, 0, 1, d);  // (1, d)
      const Mat dots = q * K.transpose();  // (1, n)
      Mat s(2, n);                         // (2, n) row 0 unscaled, row 1 scaled
      for (int j = 0; j < n; ++j) {
        const float dot = dots(0, j);
        s(0, j) = dot;
        s(1, j) = dot * inv_sqrt_d;
        sum += dot;
        sum2 += double(dot) * dot;
        ++count;
      }
      const Mat w = softmax_rows(s);  // (2, n)
      for (int k = 0; k < 2; ++k) {
        st.max_weight[k] += w.row(k).maxCoeff();
        st.entropy[k] += row_entropy(w, k);
        st.gradient[k] += jacobian_norm(w.row(k));
      }
      if (trials == 0) {
        st.example_scores = s;
        st.example_weights = w;
      }
      ++trials;
    }
  }
  const double mean = sum / count;
  st.variance[0] = float(sum2 / count - mean * mean);
  st.variance[1] = st.variance[0] / float(d);
  for (int k = 0; k < 2; ++k) {
    st.max_weight[k] /= float(trials);
    st.entropy[k] /= float(trials);
    st.gradient[k] /= float(trials);
  }
  return st;
}

void check_dk_scaling(const DemoInputs&, std::vector<Problem>&) {}

DemoOutputs run_dk_scaling(const DemoInputs& in) {
  DemoOutputs out;
  const int d_k = setting_int(in, "d_k"), n = setting_int(in, "n_keys");
  const uint64_t seed = uint64_t(setting_int(in, "seed"));
  constexpr int kPoints = 10;  // d_k = 1, 2, 4, ..., 512
  static_assert(1 << (kPoints - 1) == kMaxDk);
  const ScalingDraw draw = draw_scaling(n, seed);
  Mat axis(1, kPoints), variance(2, kPoints), entropy(3, kPoints), max_weight(2, kPoints), gradient(2, kPoints);
  for (int p = 0; p < kPoints; ++p) {
    const ScalingStats st = scaling_stats(draw, 1 << p);
    axis(0, p) = float(p);  // log2 d_k
    for (int k = 0; k < 2; ++k) {
      variance(k, p) = st.variance[k];
      entropy(k, p) = st.entropy[k];
      max_weight(k, p) = st.max_weight[k];
      gradient(k, p) = st.gradient[k];
    }
    entropy(2, p) = std::log(float(n));  // the most spread a softmax over n keys can be
  }
  const ScalingStats now = scaling_stats(draw, d_k);
  Mat table(4, 2);  // (4, 2) rows: variance, max weight, entropy, gradient; cols: unscaled, scaled
  for (int k = 0; k < 2; ++k) {
    table(0, k) = now.variance[k];
    table(1, k) = now.max_weight[k];
    table(2, k) = now.entropy[k];
    table(3, k) = now.gradient[k];
  }
  const std::vector<std::string> both = {"q·k", "q·k/√d_k"};
  const std::vector<std::string> keys = dim_labels(n, "k");
  const LocalText axes = tr("x: log2 d_k (0 = 1, 9 = 512)", "横轴：log2 d_k（0 表示 1，9 表示 512）");
  out.panels.push_back(slider_panel("d_k", tr("d_k: size of queries and keys", "d_k：查询和键的维度"), 1.0f, 512.0f, 1.0f));
  out.panels.push_back(slider_panel("n_keys", tr("Number of keys", "键的个数"), 2.0f, 16.0f, 1.0f));
  out.panels.push_back(slider_panel("seed", tr("Random seed", "随机种子"), 0.0f, 99.0f, 1.0f));
  out.panels.push_back(heatmap_panel("example_scores", "example_scores", tr("One query against the keys: scores", "一个查询对各个键：分数"), both, keys, false));
  out.panels.push_back(heatmap_panel("example_weights", "example_weights", tr("... and their softmax weights", "……以及它们的 softmax 权重"), both, keys, true));
  out.panels.push_back(heatmap_panel("now", "now", tr("At this d_k (averages over 48 random queries)", "在当前 d_k 下（48 个随机查询的平均）"),
                                     {"variance", "max weight", "entropy", "gradient"}, {"unscaled", "scaled"}, false));
  out.panels.push_back(lines_panel("variance", "variance", "axis", tr("Variance of the scores", "分数的方差"), both, axes));
  out.panels.push_back(lines_panel("max_weight", "max_weight", "axis", tr("Largest softmax weight (1 = all on one key)", "最大 softmax 权重（1 表示全部给一个键）"), both, axes));
  out.panels.push_back(lines_panel("entropy", "entropy", "axis", tr("Entropy of the weights (nats; higher = more spread)", "权重的熵（奈特；越高越分散）"),
                                   {"q·k", "q·k/√d_k", "uniform"}, axes));
  out.panels.push_back(lines_panel("gradient", "gradient", "axis", tr("Size of the softmax gradient", "softmax 梯度的大小"), both, axes));
  LocalText t;
  add_line(t, "d_k = " + std::to_string(d_k) + ": var(q·k) = " + fmt(now.variance[0], 1) + " (theory: " +
                  std::to_string(d_k) + "), var(q·k/√d_k) = " + fmt(now.variance[1]) + " (theory: 1).",
           "d_k = " + std::to_string(d_k) + "：var(q·k) = " + fmt(now.variance[0], 1) + "（理论值 " +
               std::to_string(d_k) + "），var(q·k/√d_k) = " + fmt(now.variance[1]) + "（理论值 1）。");
  add_line(t, "Without scaling the largest weight averages " + fmt(now.max_weight[0]) + " and the gradient " +
                  fmt(now.gradient[0], 3) + "; with scaling " + fmt(now.max_weight[1]) + " and " + fmt(now.gradient[1], 3) + ".",
           "不缩放时最大权重平均为 " + fmt(now.max_weight[0]) + "，梯度大小 " + fmt(now.gradient[0], 3) + "；缩放后为 " +
               fmt(now.max_weight[1]) + " 和 " + fmt(now.gradient[1], 3) + "。");
  add_line(t, "A nearly one-hot softmax barely changes when its inputs change, so for most queries almost no gradient flows back "
              "to the queries and keys (the few rows that are not saturated get large, erratic ones).",
           "接近独热（one-hot）的 softmax 对输入的变化几乎没有反应，于是对大多数查询来说，几乎没有梯度传回查询和键"
           "（少数没有饱和的行则得到又大又不稳定的梯度）。");
  out.panels.push_back(note_panel("summary", tr("What the numbers say", "这些数字说明什么"), t));
  out.mats["axis"] = std::move(axis);
  out.mats["variance"] = std::move(variance);
  out.mats["entropy"] = std::move(entropy);
  out.mats["max_weight"] = std::move(max_weight);
  out.mats["gradient"] = std::move(gradient);
  out.mats["now"] = std::move(table);
  out.mats["example_scores"] = now.example_scores;
  out.mats["example_weights"] = now.example_weights;
  return out;
}

// ---------------------------------------------------------------- 3 attention_modes
void check_attention_modes(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 2, 8, problems);
  for (const char* m : {"q", "k", "v"}) need_rows(in, m, n, "one row per token", problems);
  const Eigen::Index d = in.mats.at("q").cols();
  need_cols(in, "k", d, "as many as 'q'", problems);
  if (has_mat(in, "w_p")) {
    need_rows(in, "w_p", d, "local-p: q W_p needs one row per query column", problems);
    if (!has_mat(in, "v_p")) problems.push_back({"w_p", "'w_p' needs 'v_p' too"});
    else need_cols(in, "v_p", in.mats.at("w_p").cols(), "one entry per column of 'w_p'", problems);
    need_rows(in, "v_p", 1, "v_p is one vector", problems);
  } else if (has_mat(in, "v_p")) {
    problems.push_back({"v_p", "'v_p' needs 'w_p' too"});
  }
}

DemoOutputs run_attention_modes(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& Q = in.mats.at("q");
  const Mat& K = in.mats.at("k");
  const Mat& V = in.mats.at("v");
  AttentionDesc desc;
  desc.score = ScoreKind::dot;
  parse_mode(setting(in, "mode"), &desc.mode);
  parse_hard_kind(setting(in, "hard"), &desc.hard);
  parse_center_kind(setting(in, "center"), &desc.center);
  desc.window = setting_int(in, "window");
  // local-p needs a window of at least 1 (its Gaussian has sigma = window / 2).
  if (desc.mode == Mode::local && desc.center == CenterKind::predictive) desc.window = std::max(desc.window, 1);
  desc.gumbel_tau = setting_number(in, "tau");
  desc.seed = uint64_t(setting_int(in, "seed"));
  AttentionParams params;
  const bool predictive = desc.mode == Mode::local && desc.center == CenterKind::predictive;
  if (predictive) {
    if (has_mat(in, "w_p")) {
      params.W_p = in.mats.at("w_p");
      params.v_p = in.mats.at("v_p").row(0).transpose();
    } else {
      init_local_p_params(&params, int(Q.cols()), 2, 7);
    }
  }
  AttentionResult r = attention_forward(Q, K, V, desc, params);
  if (!r.ok()) {
    out.error = r.error;
    return out;
  }
  AttentionDesc soft_desc;
  soft_desc.score = ScoreKind::dot;
  const AttentionResult soft = attention_forward(Q, K, V, soft_desc, {});
  const auto& tok = in.tokens;
  const Eigen::Index n = Q.rows(), d = Q.cols();
  out.panels.push_back(choice_panel("mode", tr("Kind of attention", "注意力的种类"), {"soft", "hard", "local", "gumbel"},
                                    {tr("soft (global)", "软（全局）"), tr("hard", "硬"), tr("local", "局部"), tr("Gumbel-softmax", "Gumbel-softmax")}));
  if (desc.mode == Mode::hard)
    out.panels.push_back(choice_panel("hard", tr("How the one key is chosen", "如何选出那一个键"), {"argmax", "sample"},
                                      {tr("the best score", "分数最高的"), tr("drawn at random from the soft weights", "按软权重随机抽取")}));
  if (desc.mode == Mode::local) {
    out.panels.push_back(slider_panel("window", tr("Window half-width D", "窗口半宽 D"), 0.0f, 5.0f, 1.0f));
    out.panels.push_back(choice_panel("center", tr("Window centre", "窗口中心"), {"monotonic", "predictive"},
                                      {tr("local-m: p_i = i", "local-m：p_i = i"), tr("local-p: predicted from q_i", "local-p：由 q_i 预测")}));
  }
  if (desc.mode == Mode::gumbel)
    out.panels.push_back(slider_panel("tau", tr("Gumbel temperature tau", "Gumbel 温度 tau"), 0.05f, 5.0f, 0.05f));
  if (desc.mode == Mode::gumbel || (desc.mode == Mode::hard && desc.hard == HardKind::sample))
    out.panels.push_back(slider_panel("seed", tr("Random seed", "随机种子"), 0.0f, 99.0f, 1.0f));
  out.panels.push_back(editor_panel("q", tr("Queries Q", "查询 Q"), tok, dim_labels(d)));
  out.panels.push_back(editor_panel("k", tr("Keys K", "键 K"), tok, dim_labels(d)));
  out.panels.push_back(editor_panel("v", tr("Values V", "值 V"), tok, dim_labels(V.cols())));
  if (predictive && has_mat(in, "w_p")) {
    out.panels.push_back(editor_panel("w_p", tr("W_p (local-p)", "W_p（local-p）"), dim_labels(d), dim_labels(in.mats.at("w_p").cols(), "p")));
    out.panels.push_back(editor_panel("v_p", tr("v_p (local-p)", "v_p（local-p）"), {"v_p"}, dim_labels(in.mats.at("w_p").cols(), "p")));
  }
  out.panels.push_back(heatmap_panel("scores", "scores", tr("Scores q_i · k_j", "分数 q_i · k_j"), tok, tok, false));
  if (desc.mode == Mode::local)
    out.panels.push_back(heatmap_panel("centers", "centers", tr("Window centre p_i of each query", "每个查询的窗口中心 p_i"), {"p"}, tok, false));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("Weights", "权重"), tok, tok, true));
  out.panels.push_back(arrows_panel("arrows", "weights", tr("Who attends to whom", "谁在关注谁"), tok, tok));
  out.panels.push_back(heatmap_panel("output", "output", tr("Output", "输出"), tok, dim_labels(V.cols()), false));

  Eigen::Index one_hot = 0, scored = 0;
  float min_sum = 2.0f, max_sum = -1.0f;
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::Index nonzero = 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      nonzero += r.weights(i, j) > 1e-6f ? 1 : 0;
      scored += r.allowed.size() ? (r.allowed(i, j) ? 1 : 0) : 1;
    }
    one_hot += nonzero == 1 ? 1 : 0;
    min_sum = std::min(min_sum, r.weights.row(i).sum());
    max_sum = std::max(max_sum, r.weights.row(i).sum());
  }
  const float off_soft = (r.output - soft.output).cwiseAbs().maxCoeff();
  LocalText t;
  add_line(t, "Row sums between " + fmt(min_sum) + " and " + fmt(max_sum) + "; " + std::to_string(one_hot) + " of " +
                  std::to_string(n) + " rows put all weight on one key.",
           "每行之和在 " + fmt(min_sum) + " 到 " + fmt(max_sum) + " 之间；" + std::to_string(one_hot) + " 行（共 " +
               std::to_string(n) + " 行）把全部权重给了一个键。");
  add_line(t, "Keys each query looks at: " + fmt(float(scored) / float(n), 1) + " of " + std::to_string(n) + ".",
           "每个查询平均查看的键数：" + fmt(float(scored) / float(n), 1) + "（共 " + std::to_string(n) + " 个）。");
  add_line(t, "Largest difference from the soft output: " + fmt(off_soft) + ".",
           "与软注意力输出的最大差别：" + fmt(off_soft) + "。");
  switch (desc.mode) {
    case Mode::soft:
      add_line(t, "Soft: every key gets some weight; smooth in Q and K, so gradients reach them. The cost grows with the number of keys.",
               "软注意力：每个键都有权重；对 Q 和 K 是光滑的，梯度可以传回去。代价随键的数量增长。");
      break;
    case Mode::hard:
      add_line(t, "Hard: one key, weight 1. The pick is a step function of Q and K, so no gradient reaches them; training needs sampling (REINFORCE) or a relaxation such as Gumbel-softmax.",
               "硬注意力：只有一个键，权重为 1。挑选是 Q 和 K 的阶跃函数，梯度传不回去；训练时需要采样（REINFORCE）或 Gumbel-softmax 这样的松弛。");
      break;
    case Mode::local: {
      std::string centres;
      for (Eigen::Index i = 0; i < r.centers.size(); ++i) centres += (i ? ", " : "") + fmt(r.centers(i), 1);
      add_line(t, "Local: soft attention inside a window of " + std::to_string(2 * desc.window + 1) +
                      " positions around a centre p_i (" + centres + ")." +
                      (predictive ? " local-p also multiplies by a Gaussian around p_i, so rows sum to less than 1." : ""),
               "局部注意力：在中心 p_i（" + centres + "）周围 " + std::to_string(2 * desc.window + 1) + " 个位置的窗口内做软注意力。" +
                   (predictive ? "local-p 还要乘以以 p_i 为中心的高斯函数，所以每行之和小于 1。" : ""));
      break;
    }
    case Mode::gumbel:
      add_line(t, "Gumbel-softmax: noise is added to the scores and a softmax with temperature tau is taken. Small tau gives near one-hot samples that are still differentiable.",
               "Gumbel-softmax：给分数加上噪声，再做温度为 tau 的 softmax。tau 小时得到接近独热、但仍然可导的样本。");
      break;
  }
  out.panels.push_back(note_panel("summary", tr("What this kind does", "这种注意力做了什么"), t));
  if (r.centers.size()) out.mats["centers"] = r.centers.transpose();  // (1, n)
  if (r.gumbel_noise.size()) out.mats["noise"] = r.gumbel_noise;     // (n, n)
  out.mats["scores"] = std::move(r.scores);
  out.mats["weights"] = std::move(r.weights);
  out.mats["output"] = std::move(r.output);
  out.mats["soft_output"] = soft.output;
  out.warnings = std::move(r.warnings);
  return out;
}

// ---------------------------------------------------------------- 4 cross_vs_self
// cross: Q = X_dec W_Q, K = X_enc W_K, V = X_enc W_V (encoder-decoder attention);
// self:  Q, K and V all from X_enc. The output has one row per query.
void check_cross_vs_self(const DemoInputs& in, std::vector<Problem>& problems) {
  need_labels(in.tokens, "tokens", 2, 6, problems);
  const auto targets = setting_labels(in, "targets");
  need_labels(targets, "targets", 1, 6, problems);
  need_rows(in, "x_enc", Eigen::Index(in.tokens.size()), "one row per encoder token", problems);
  need_rows(in, "x_dec", Eigen::Index(targets.size()), "one row per decoder token", problems);
  const Eigen::Index d = in.mats.at("x_enc").cols();
  need_cols(in, "x_dec", d, "as many as 'x_enc'", problems);
  for (const char* w : {"w_q", "w_k", "w_v"}) need_rows(in, w, d, "one row per column of 'x_enc'", problems);
  need_cols(in, "w_k", in.mats.at("w_q").cols(), "as many as 'w_q'", problems);
}

DemoOutputs run_cross_vs_self(const DemoInputs& in) {
  DemoOutputs out;
  const bool cross = setting(in, "kind") == "cross";
  const Mat& X_enc = in.mats.at("x_enc");  // (n_s, d)
  const Mat& X_dec = in.mats.at("x_dec");  // (n_t, d)
  const Mat& X_q = cross ? X_dec : X_enc;
  Mat Q = X_q * in.mats.at("w_q");    // (n_q, d_k)
  Mat K = X_enc * in.mats.at("w_k");  // (n_s, d_k)
  Mat V = X_enc * in.mats.at("w_v");  // (n_s, d_v)
  AttentionDesc desc;
  desc.score = ScoreKind::dot;
  AttentionResult r = attention_forward(Q, K, V, desc, {});
  if (!r.ok()) {
    out.error = r.error;
    return out;
  }
  const auto& src = in.tokens;
  const auto targets = setting_labels(in, "targets");
  const auto& rows = cross ? targets : src;
  const Eigen::Index d = X_enc.cols();
  out.panels.push_back(choice_panel("kind", tr("Where the queries come from", "查询从哪里来"), {"cross", "self"},
                                    {tr("encoder-decoder: from the decoder", "编码器-解码器：来自解码器"), tr("self-attention: from the same sequence", "自注意力：来自同一个序列")}));
  out.panels.push_back(editor_panel("x_enc", tr("Encoder states (source sentence)", "编码器状态（源句）"), src, dim_labels(d)));
  out.panels.push_back(editor_panel("x_dec", tr("Decoder states (target so far)", "解码器状态（目前的译文）"), targets, dim_labels(d)));
  out.panels.push_back(editor_panel("w_q", tr("W_Q", "W_Q"), dim_labels(d), dim_labels(in.mats.at("w_q").cols())));
  out.panels.push_back(editor_panel("w_k", tr("W_K", "W_K"), dim_labels(d), dim_labels(in.mats.at("w_k").cols())));
  out.panels.push_back(editor_panel("w_v", tr("W_V", "W_V"), dim_labels(d), dim_labels(in.mats.at("w_v").cols())));
  out.panels.push_back(heatmap_panel("weights", "weights", cross ? tr("Decoder queries over encoder keys", "解码器查询对编码器键")
                                                                 : tr("The source sentence over itself", "源句对自身"),
                                     rows, src, true));
  out.panels.push_back(arrows_panel("arrows", "weights", tr("Who attends to whom", "谁在关注谁"), rows, src));
  out.panels.push_back(heatmap_panel("output", "output", tr("Output: one row per query", "输出：每个查询一行"), rows, dim_labels(V.cols()), false));
  LocalText shapes;
  const std::string q_from_en = cross ? "from the decoder" : "from the encoder", q_from_zh = cross ? "来自解码器" : "来自编码器";
  add_line(shapes, "Q: " + fmt_shape({Q.rows(), Q.cols()}) + " " + q_from_en, "Q: " + fmt_shape({Q.rows(), Q.cols()}) + " " + q_from_zh);
  add_line(shapes, "K: " + fmt_shape({K.rows(), K.cols()}) + " from the encoder", "K: " + fmt_shape({K.rows(), K.cols()}) + " 来自编码器");
  add_line(shapes, "V: " + fmt_shape({V.rows(), V.cols()}) + " from the encoder", "V: " + fmt_shape({V.rows(), V.cols()}) + " 来自编码器");
  add_line(shapes, "weights: " + fmt_shape({r.weights.rows(), r.weights.cols()}), "weights: " + fmt_shape({r.weights.rows(), r.weights.cols()}));
  add_line(shapes, "output: " + fmt_shape({r.output.rows(), r.output.cols()}), "output: " + fmt_shape({r.output.rows(), r.output.cols()}));
  out.panels.push_back(shapes_panel("shapes", tr("Shapes", "形状"), shapes));
  LocalText t;
  if (cross)
    add_line(t, "Each decoder position asks the source sentence for what it needs next. The output has " +
                    std::to_string(r.output.rows()) + " rows, one per decoder position; the decoder's RNN supplies the word order.",
             "解码器的每个位置向源句索取下一步需要的信息。输出有 " + std::to_string(r.output.rows()) +
                 " 行，每个解码器位置一行；词序由解码器的 RNN 提供。");
  else
    add_line(t, "Every source word asks every other source word: Q, K and V come from one sequence, and the output has its length (" +
                    std::to_string(r.output.rows()) + "). This layer can stand alone, as in the Transformer and BERT.",
             "每个源词都向所有源词发问：Q、K、V 来自同一个序列，输出与它等长（" + std::to_string(r.output.rows()) +
                 "）。这样的层可以独立使用，就像 Transformer 和 BERT 那样。");
  out.panels.push_back(note_panel("summary", tr("What changed", "变化在哪里"), t));
  out.mats["Q"] = std::move(Q);
  out.mats["K"] = std::move(K);
  out.mats["V"] = std::move(V);
  out.mats["scores"] = std::move(r.scores);
  out.mats["weights"] = std::move(r.weights);
  out.mats["output"] = std::move(r.output);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- 5 registration
void add_kind_demos(std::vector<DemoEntry>& r) {
  r.push_back({"score_functions",
               {tokens_param(), matrix_param("q"), matrix_param("k"), matrix_param("w"), matrix_param("w_q"),
                matrix_param("w_k"), matrix_param("v_a"), choice_param("score", kScoreNames, "dot"),
                number_param("row", 0, 5, true, "0")},
               check_score_functions, run_score_functions});
  r.push_back({"dk_scaling",
               {number_param("d_k", 1, 512, true, "64"), number_param("n_keys", 2, 16, true, "8"),
                number_param("seed", 0, 99, true, "1")},
               check_dk_scaling, run_dk_scaling});
  r.push_back({"attention_modes",
               {tokens_param(), matrix_param("q"), matrix_param("k"), matrix_param("v"), matrix_param("w_p", false),
                matrix_param("v_p", false), choice_param("mode", {"soft", "hard", "local", "gumbel"}, "soft"),
                choice_param("hard", {"argmax", "sample"}, "argmax"), number_param("window", 0, 5, true, "1"),
                choice_param("center", {"monotonic", "predictive"}, "monotonic"),
                number_param("tau", 0.05f, 5.0f, false, "0.5"), number_param("seed", 0, 99, true, "0")},
               check_attention_modes, run_attention_modes});
  r.push_back({"cross_vs_self",
               {tokens_param(), labels_param("targets"), matrix_param("x_enc"), matrix_param("x_dec"),
                matrix_param("w_q"), matrix_param("w_k"), matrix_param("w_v"),
                choice_param("kind", {"cross", "self"}, "cross")},
               check_cross_vs_self, run_cross_vs_self});
}

}  // namespace attn::demo_impl
