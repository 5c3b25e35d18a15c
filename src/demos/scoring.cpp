// scoring.cpp: demos for curriculum B1, the scoring functions.
//
// Sections: 1 score_functions (five scoring functions on the same Q and K),
// 2 dk_scaling (why divide by sqrt(d_k), from seeded random vectors), 3 the
// NumPy/PyTorch programs, 4 registration.
#include <algorithm>
#include <cmath>

#include "attn/attention.h"
#include "attn/softmax.h"
#include "base/rng.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

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
// The seeded numbers the demo computes from, which its program writes out too:
// kKeySets sets of keys (n_keys, kMaxDk) and kKeySets * kQueriesPerSet queries
// (.., kMaxDk), standard normals from the step's seed; a d_k uses the first d_k
// columns of each.
constexpr int kKeySets = 4, kQueriesPerSet = 12, kMaxDk = 512;  // 48 trials
struct ScalingDraw {
  std::vector<Mat> keys;  // kKeySets of (n, kMaxDk)
  Mat queries;            // (kKeySets * kQueriesPerSet, kMaxDk)
};

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

// ---------------------------------------------------------------- 3 the NumPy/PyTorch programs
std::string code_score_functions(Py& P, const DemoInputs& in) {
  const std::string score = setting(in, "score");
  P.mat("Q", in_mat(in, "q"), rows_note("queries", in.tokens));
  P.mat("K", in_mat(in, "k"), "keys");
  P.mat("W", in_mat(in, "w"), "general (bilinear) score: q W k");
  P.mat("W_q", in_mat(in, "w_q"), "additive score: v_a . tanh(q W_q + k W_k)");
  P.mat("W_k", in_mat(in, "w_k"));
  P.mat("v_a", in_mat(in, "v_a"));
  P.gap();
  P.block(R"py(d_k = K.shape[1]
norm_Q = np.sqrt((Q * Q).sum(axis=1, keepdims=True) + 1e-12)  # |q| (guarded against 0)
norm_K = np.sqrt((K * K).sum(axis=1, keepdims=True) + 1e-12)
hidden = np.tanh((Q @ W_q)[:, None, :] + (K @ W_k)[None, :, :])  # (query, key, d_a)
all_scores = {
    "dot": Q @ K.T,
    "scaled_dot": Q @ K.T / d_k ** 0.5,
    "general": Q @ W @ K.T,
    "additive": hidden @ v_a[0],
    "cosine": (Q / norm_Q) @ (K / norm_K).T,
})py");
  P.value("row", std::to_string(setting_int(in, "row")), "the query to compare: " + in.tokens[size_t(setting_int(in, "row"))]);
  P("compare = np.concatenate([softmax(s)[row:row + 1] for s in all_scores.values()])  # its weights under each");
  P("scores = all_scores[" + py_string(score) + "]");
  P("weights = softmax(scores)");
  for (const char* o : {"scores", "weights", "compare"}) P.show(o);
  return "Five scoring functions on the same queries and keys.";
}

// Base64 of float32 values (little-endian), the d_k demo's draws.
std::string base64_floats(const std::vector<float>& v) {
  static const char* const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  for (float f : v) {
    uint32_t u = 0;
    std::memcpy(&u, &f, 4);
    for (int b = 0; b < 4; ++b) bytes += char((u >> (8 * b)) & 0xff);
  }
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) chunk |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) chunk |= uint32_t(uint8_t(bytes[i + 2]));
    out += digits[(chunk >> 18) & 63];
    out += digits[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? digits[chunk & 63] : '=';
  }
  return out;
}

std::string code_dk_scaling(Py& P, const DemoInputs& in) {
  using namespace demo_impl;
  const int d_k = setting_int(in, "d_k"), n = setting_int(in, "n_keys"), seed = setting_int(in, "seed");
  const ScalingDraw draw = draw_scaling(n, uint64_t(seed));
  std::vector<float> numbers;  // the first d_k columns: the key sets, then the queries, row by row
  for (const Mat& K : draw.keys)
    for (Eigen::Index r = 0; r < K.rows(); ++r)
      for (int c = 0; c < d_k; ++c) numbers.push_back(K(r, c));
  for (Eigen::Index r = 0; r < draw.queries.rows(); ++r)
    for (int c = 0; c < d_k; ++c) numbers.push_back(draw.queries(r, c));
  const std::string data = base64_floats(numbers);
  P.import("base64");
  P.import("math");
  P.show_columns();
  P.value("d_k", std::to_string(d_k), "the size of queries and keys");
  P.value("n_keys", std::to_string(n));
  P.comment("The lab's standard-normal draws for seed " + std::to_string(seed) + ", as float32 bytes (base64): " +
            std::to_string(kKeySets) + " sets of n_keys keys, then " + std::to_string(kKeySets) + " x " +
            std::to_string(kQueriesPerSet) + " queries, d_k numbers each.");
  std::string lines;
  for (size_t i = 0; i < data.size(); i += 76) lines += "\n    \"" + data.substr(i, 76) + "\"";
  if (P.torch()) {
    P.import("array");
    P.value("raw", "torch.tensor(array.array(\"f\", base64.b64decode(" + lines + ")))");
  } else {
    P.value("raw", "np.frombuffer(base64.b64decode(" + lines + "), dtype=np.float32).astype(float)");
  }
  P("keys = raw[:" + std::to_string(kKeySets) + " * n_keys * d_k].reshape(" + std::to_string(kKeySets) + ", n_keys, d_k)");
  P("queries = raw[" + std::to_string(kKeySets) + " * n_keys * d_k:].reshape(" + std::to_string(kKeySets) + ", " +
    std::to_string(kQueriesPerSet) + ", d_k)");
  P.gap();
  P.gap();
  P.block(R"py(def stats(d):
    """Averages over the 48 queries with the first d numbers of every key and query: rows variance,
    largest weight, entropy (nats) and size of the softmax gradient; columns unscaled, scaled."""
    dots = queries[:, :, :d] @ np.swapaxes(keys[:, :, :d], 1, 2)  # (set, query, key): q . k
    variance = float(((dots - dots.mean()) ** 2).mean())
    table = [[variance, variance / d]]
    columns = []
    for scores in (dots, dots / d ** 0.5):
        p = softmax(scores)
        s2, s3 = (p ** 2).sum(axis=-1), (p ** 3).sum(axis=-1)
        columns.append([
            float(np.amax(p, axis=-1).mean()),
            float(-(p * np.log(np.clip(p, 1e-300, None))).sum(axis=-1).mean()),
            float(np.sqrt(np.clip(s2 - 2 * s3 + s2 ** 2, 0, None)).mean()),  # |diag(p) - p p^T|
        ])
    return np.array(table + [[columns[0][k], columns[1][k]] for k in range(3)])


now = stats(d_k)
first = queries[0, 0] @ keys[0].T  # the first query against its keys
example_scores = np.stack([first, first / d_k ** 0.5])
example_weights = softmax(example_scores)
points = [p for p in range(10) if 2 ** p <= d_k]  # d_k = 1, 2, 4, ... as far as the draws reach
curves = np.stack([stats(2 ** p) for p in points])  # (point, statistic, unscaled / scaled)
axis = np.array([points], dtype=float)  # log2 d_k
uniform = np.full((1, len(points)), math.log(n_keys))  # the most spread n_keys weights can be)py");
  for (const char* o : {"now", "example_scores", "example_weights"}) P.show(o);
  P.show("axis", "axis, points");
  P.show("variance", "curves[:, 0, :].T, points");
  P.show("max_weight", "curves[:, 1, :].T, points");
  P.show("entropy", "np.concatenate([curves[:, 2, :].T, uniform]), points");
  P.show("gradient", "curves[:, 3, :].T, points");
  return "Why divide by sqrt(d_k): random queries and keys, their scores, softmax and its gradient.";
}

}  // namespace

// ---------------------------------------------------------------- 4 registration
void add_scoring_demos(std::vector<DemoEntry>& r) {
  r.push_back({"score_functions",
               {tokens_param(), matrix_param("q"), matrix_param("k"), matrix_param("w"), matrix_param("w_q"),
                matrix_param("w_k"), matrix_param("v_a"), choice_param("score", kScoreNames, "dot"),
                number_param("row", 0, 5, true, "0")},
               check_score_functions, run_score_functions, code_score_functions});
  r.push_back({"dk_scaling",
               {number_param("d_k", 1, 512, true, "64"), number_param("n_keys", 2, 16, true, "8"),
                number_param("seed", 0, 99, true, "1")},
               check_dk_scaling, run_dk_scaling, code_dk_scaling});
}

}  // namespace attn::demo_impl
