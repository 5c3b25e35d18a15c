// kinds.cpp: demos for curriculum B2 and B3, the kinds of attention.
//
// Sections: 1 attention_modes (B2: soft, hard, local, Gumbel on one input),
// 2 cross_vs_self (B3), 3 the NumPy/PyTorch programs, 4 registration.
#include <algorithm>
#include <cmath>

#include "attn/attention.h"
#include "attn/softmax.h"
#include "base/rng.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn::demo_impl {
namespace {

// ---------------------------------------------------------------- 1 attention_modes
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

// ---------------------------------------------------------------- 2 cross_vs_self
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

// ---------------------------------------------------------------- 3 the NumPy/PyTorch programs
std::string code_attention_modes(Py& P, const DemoInputs& in) {
  AttentionDesc desc;
  parse_mode(setting(in, "mode"), &desc.mode);
  parse_hard_kind(setting(in, "hard"), &desc.hard);
  parse_center_kind(setting(in, "center"), &desc.center);
  const uint64_t seed = uint64_t(setting_int(in, "seed"));
  const Mat& Q = in_mat(in, "q");
  const Eigen::Index n = Q.rows();
  P.mat("Q", Q, rows_note("queries", in.tokens));
  P.mat("K", in_mat(in, "k"), "keys");
  P.mat("V", in_mat(in, "v"), "values");
  P.gap();
  P("scores = Q @ K.T");
  P("soft_output = softmax(scores) @ V  # soft attention, to compare");
  switch (desc.mode) {
    case Mode::soft:
      P("weights = softmax(scores)  # soft: every key some weight");
      break;
    case Mode::hard:
      if (desc.hard == HardKind::argmax) {
        P("weights = np.eye(scores.shape[1])[np.argmax(scores, axis=1)]  # hard: weight 1 on the best key");
      } else {
        Rng rng(seed);
        std::vector<float> u;
        for (Eigen::Index i = 0; i < n; ++i) u.push_back(rng.uniform());
        P("u = np.array(" + num_list(u) + ")  # the lab's uniform draws for seed " + std::to_string(seed) +
          ", one per query");
        P.block(R"py(p = softmax(scores)
cumulative = np.cumsum(p, axis=1)
picks = [min(int((cumulative[i] <= u[i]).sum()), p.shape[1] - 1) for i in range(p.shape[0])]  # key drawn with chance p_ij
weights = np.eye(p.shape[1])[picks]  # hard: weight 1 on the drawn key)py");
      }
      break;
    case Mode::gumbel: {
      Rng rng(seed);
      Mat u(n, in_mat(in, "k").rows());
      for (Eigen::Index i = 0; i < u.rows(); ++i)
        for (Eigen::Index j = 0; j < u.cols(); ++j) u(i, j) = rng.uniform_open();
      P.value("tau", num(setting_number(in, "tau")), "the Gumbel-softmax temperature");
      P.mat("u", u, "the lab's uniform draws for seed " + std::to_string(seed) + ", one per (query, key)");
      P("noise = -np.log(-np.log(u))  # Gumbel(0, 1) noise");
      P("weights = softmax((scores + noise) / tau)");
      P.show("noise");
      break;
    }
    case Mode::local: {
      const bool predictive = desc.center == CenterKind::predictive;
      const int window = predictive ? std::max(1, setting_int(in, "window")) : setting_int(in, "window");
      P.value("D", std::to_string(window), "the window's half-width");
      P("positions = np.arange(scores.shape[1])");
      if (predictive) {
        Mat W_p, v_p;
        if (in.mats.count("w_p")) {
          W_p = in_mat(in, "w_p");
          v_p = in_mat(in, "v_p");
        } else {
          AttentionParams params;
          init_local_p_params(&params, int(Q.cols()), 2, 7);
          W_p = params.W_p;
          v_p = params.v_p.transpose();
        }
        P.mat("W_p", W_p, in.mats.count("w_p") ? "local-p: the centre predicted from q_i"
                                                : "local-p: the centre predicted from q_i (the lab's draws, seed 7)");
        P.mat("v_p", v_p);
        P("centers = len(positions) / (1 + np.exp(-(np.tanh(Q @ W_p) @ v_p.T)[:, 0]))  # p_i = n sigmoid(v_p . tanh(q_i W_p))");
      } else {
        P("centers = np.arange(scores.shape[0], dtype=float)  # local-m: p_i = i");
      }
      P("inside = np.abs(positions[None, :] - centers[:, None]) <= D  # the keys in each query's window");
      P("weights = softmax(np.where(inside, scores, -np.inf))");
      if (predictive)
        P("weights = weights * np.exp(-(positions[None, :] - centers[:, None]) ** 2 / (2 * (D / 2) ** 2))  # times a Gaussian, sigma = D / 2");
      P.show("centers", "centers.reshape(1, -1)");
      break;
    }
  }
  P("output = weights @ V");
  for (const char* o : {"scores", "weights", "output", "soft_output"}) P.show(o);
  return std::string("One input, four kinds of attention; this one: ") + mode_name(desc.mode) + ".";
}

std::string code_cross_vs_self(Py& P, const DemoInputs& in) {
  const bool cross = setting(in, "kind") == "cross";
  P.mat("X_enc", in_mat(in, "x_enc"), rows_note("encoder states", in.tokens));
  P.mat("X_dec", in_mat(in, "x_dec"), rows_note("decoder states", setting_labels(in, "targets")));
  P.mat("W_Q", in_mat(in, "w_q"));
  P.mat("W_K", in_mat(in, "w_k"));
  P.mat("W_V", in_mat(in, "w_v"));
  P.gap();
  P(cross ? "Q = X_dec @ W_Q  # cross: the queries come from the decoder" : "Q = X_enc @ W_Q  # self: the queries come from the same sequence");
  P.block(R"py(K = X_enc @ W_K
V = X_enc @ W_V
scores = Q @ K.T
weights = softmax(scores)
output = weights @ V  # one row per query)py");
  for (const char* o : {"Q", "K", "V", "scores", "weights", "output"}) P.show(o);
  return cross ? "Encoder-decoder (cross) attention." : "Self-attention over the source sentence.";
}

}  // namespace

// ---------------------------------------------------------------- 4 registration
void add_kind_demos(std::vector<DemoEntry>& r) {
  r.push_back({"attention_modes",
               {tokens_param(), matrix_param("q"), matrix_param("k"), matrix_param("v"), matrix_param("w_p", false),
                matrix_param("v_p", false), choice_param("mode", {"soft", "hard", "local", "gumbel"}, "soft"),
                choice_param("hard", {"argmax", "sample"}, "argmax"), number_param("window", 0, 5, true, "1"),
                choice_param("center", {"monotonic", "predictive"}, "monotonic"),
                number_param("tau", 0.05f, 5.0f, false, "0.5"), number_param("seed", 0, 99, true, "0")},
               check_attention_modes, run_attention_modes, code_attention_modes});
  r.push_back({"cross_vs_self",
               {tokens_param(), labels_param("targets"), matrix_param("x_enc"), matrix_param("x_dec"),
                matrix_param("w_q"), matrix_param("w_k"), matrix_param("w_v"),
                choice_param("kind", {"cross", "self"}, "cross")},
               check_cross_vs_self, run_cross_vs_self, code_cross_vs_self});
}

}  // namespace attn::demo_impl
