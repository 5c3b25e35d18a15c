// learned.cpp: a demo for curriculum A6, where learned projections come from.
//
//   learned_projections  W_Q and W_K start as seeded random numbers and are
//                        trained by plain gradient descent towards a target
//                        relation (one row of wanted weights per token), against
//                        a model with one matrix for both sides (tied) and the
//                        raw scores x_i · x_j, which have nothing to train. Small
//                        enough that every step can be redone by hand or in the
//                        NumPy program beside it.
//
// Sections: 1 training, 2 learned_projections, 3 its NumPy/PyTorch program,
// 4 registration.
#include <cmath>
#include <string>
#include <vector>

#include "base/rng.h"
#include "base/text.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn::demo_impl {
namespace {

// ---------------------------------------------------------------- 1 training
// X (n, d), T (n, n) the target, each row scaled to sum to 1. The model scores
// S = (X W_Q)(X W_K)^T, A = softmax of each row, and the loss is the mean
// cross-entropy  L = -(1/n) Σ_i Σ_j T_ij log A_ij.  Its gradient:
//   dS = (A - T) / n                  (n, n)
//   dW_Q = X^T dS (X W_K)             (d, d)
//   dW_K = X^T dS^T (X W_Q)           (d, d)
// tied (W_Q = W_K = W): dW = X^T (dS + dS^T) X W. Raw (W_Q = W_K = I) is not
// trained. Plain gradient descent, W -= kRate dW, in double precision so that the
// lab and its NumPy program agree after hundreds of steps.
constexpr double kRate = 1.0;   // the learning rate
constexpr float kInit = 0.5f;   // the random start: normal numbers times this
using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class Tie { raw, tied, learned };

// Element by element with std::exp and std::log: a few numbers, and the same
// results wherever Eigen would vectorise (and GCC warn about its AVX-512 log).
MatD softmax_rows_d(const MatD& S) {
  MatD A(S.rows(), S.cols());  // (n, n)
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    const double top = S.row(i).maxCoeff();  // taken off first: exp cannot overflow
    double sum = 0.0;
    for (Eigen::Index j = 0; j < S.cols(); ++j) sum += A(i, j) = std::exp(S(i, j) - top);
    A.row(i) /= sum;
  }
  return A;
}

double cross_entropy(const MatD& A, const MatD& T) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j)
      if (T(i, j) > 0.0) sum -= T(i, j) * std::log(A(i, j));
  return sum / double(A.rows());
}

// The random start: W_Q's d x d normal numbers row by row, then W_K's (tied uses W_Q's).
void random_start(int seed, Eigen::Index d, Mat* W_Q, Mat* W_K) {
  Rng rng(uint64_t(seed) * 104729u + 7u);
  for (Mat* W : {W_Q, W_K}) {
    W->resize(d, d);
    for (Eigen::Index r = 0; r < d; ++r)
      for (Eigen::Index c = 0; c < d; ++c) (*W)(r, c) = kInit * rng.normal();
  }
}

struct Trained {
  MatD W_Q, W_K, S, A;       // (d, d), (d, d), (n, n), (n, n)
  std::vector<double> loss;  // one per step, the start included
};

Trained train(const MatD& X, const MatD& T, Tie tie, const Mat& Q0, const Mat& K0, int steps) {
  const Eigen::Index d = X.cols();
  Trained t;
  t.W_Q = tie == Tie::raw ? MatD(MatD::Identity(d, d)) : MatD(Q0.cast<double>());
  t.W_K = tie == Tie::raw ? t.W_Q : tie == Tie::tied ? t.W_Q : MatD(K0.cast<double>());
  for (int step = 0;; ++step) {
    const MatD Q = X * t.W_Q, K = X * t.W_K;  // (n, d) each
    t.S = Q * K.transpose();
    t.A = softmax_rows_d(t.S);
    t.loss.push_back(cross_entropy(t.A, T));
    if (step == steps) break;
    if (tie == Tie::raw) continue;  // nothing to train: the same loss every step
    const MatD dS = (t.A - T) / double(X.rows());
    if (tie == Tie::tied) {
      t.W_Q -= kRate * X.transpose() * (dS + dS.transpose()) * X * t.W_Q;
      t.W_K = t.W_Q;
    } else {
      const MatD dW_Q = X.transpose() * dS * K, dW_K = X.transpose() * dS.transpose() * Q;
      t.W_Q -= kRate * dW_Q;
      t.W_K -= kRate * dW_K;
    }
  }
  return t;
}

// ---------------------------------------------------------------- 2 learned_projections
void check_learned(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 2, 6, problems);
  need_rows(in, "x", n, "one embedding per token", problems);
  need_max_size(in, "x", 6, 4, problems);
  need_rows(in, "target", n, "one row of wanted weights per token", problems);
  need_cols(in, "target", n, "one wanted weight per token", problems);
  if (!problems.empty()) return;
  const Mat& T = in.mats.at("target");
  if (T.minCoeff() < 0.0f) problems.push_back({"target", "'target' holds weights: no negative numbers"});
  for (Eigen::Index i = 0; i < n; ++i)
    if (T.row(i).sum() <= 0.0f)
      problems.push_back({"target", "every row of 'target' needs a weight above 0 (row " + std::to_string(i + 1) + ")"});
}

DemoOutputs run_learned(const DemoInputs& in) {
  DemoOutputs out;
  const std::string& mode = setting(in, "projection");
  const Tie tie = mode == "raw" ? Tie::raw : mode == "tied" ? Tie::tied : Tie::learned;
  const int steps = setting_int(in, "steps"), seed = setting_int(in, "seed");
  const MatD X = in.mats.at("x").cast<double>();  // (n, d)
  MatD T = in.mats.at("target").cast<double>();   // (n, n)
  for (Eigen::Index i = 0; i < T.rows(); ++i) T.row(i) /= T.row(i).sum();
  const Eigen::Index n = X.rows(), d = X.cols();
  Mat Q0, K0;
  random_start(seed, d, &Q0, &K0);
  const Trained trained = train(X, T, tie, Q0, K0, steps);
  Mat curve(2, steps + 1), curve_steps(1, steps + 1);  // rows: the loss, rows spread evenly (ln n)
  for (int s = 0; s <= steps; ++s) {
    curve(0, s) = float(trained.loss[size_t(s)]);
    curve(1, s) = float(std::log(double(n)));
    curve_steps(0, s) = float(s);
  }
  Mat weights = trained.A.cast<float>(), scores = trained.S.cast<float>();
  Mat asymmetry = scores - scores.transpose();  // (n, n) s_ij - s_ji

  const auto& tok = in.tokens;
  const auto dims = dim_labels(d);
  out.panels.push_back(choice_panel("projection", tr("The model", "模型"), {"raw", "tied", "learned"},
                                    {tr("raw: x_i · x_j, nothing to learn", "直接：x_i · x_j，没有可学的"),
                                     tr("tied: one W for queries and keys", "共用：查询和键用同一个 W"),
                                     tr("learned: W_Q and W_K", "学习：W_Q 和 W_K")}));
  out.panels.push_back(slider_panel("steps", tr("Training steps (gradient descent, rate 1)", "训练步数（梯度下降，学习率 1）"), 0.0f, 600.0f, 10.0f));
  out.panels.push_back(slider_panel("seed", tr("Seed of the random start", "随机起点的种子"), 0.0f, 99.0f, 1.0f));
  out.panels.push_back(editor_panel("x", tr("Embeddings X", "嵌入 X"), tok, dims));
  out.panels.push_back(editor_panel("target", tr("Target: the weights each token should learn", "目标：每个词元应当学到的权重"), tok, tok));
  out.panels.push_back(heatmap_panel("W_Q", "W_Q", tr("W_Q now", "当前的 W_Q"), dims, dims, false));
  out.panels.push_back(heatmap_panel("W_K", "W_K", tr("W_K now", "当前的 W_K"), dims, dims, false));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("Weights now", "当前的权重"), tok, tok, true));
  out.panels.push_back(lines_panel("loss_curve", "loss_curve", "curve_steps", tr("Loss while training", "训练中的损失"),
                                   {"loss", "rows even (ln n)"}, tr("x: step", "横轴：步数")));
  LocalText t;
  const std::string loss = fmt(float(trained.loss.back()), 3), start = fmt(float(trained.loss.front()), 3);
  add_line(t, "Loss " + start + " at the start, " + loss + " after " + std::to_string(steps) + " steps; rows spread evenly give " +
                  fmt(float(std::log(double(n))), 3) + ".",
           "起点损失 " + start + "，训练 " + std::to_string(steps) + " 步后 " + loss + "；每行平均分配时为 " +
               fmt(float(std::log(double(n))), 3) + "。");
  std::string wanted_en, wanted_zh;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index j = row_argmax(in.mats.at("target"), i);
    const std::string part = tok[size_t(i)] + " → " + tok[size_t(j)] + " " + fmt(weights(i, j));
    wanted_en += (i ? ", " : "") + part;
    wanted_zh += (i ? "，" : "") + part;
  }
  add_line(t, "On each token's most wanted word: " + wanted_en + ".", "每个词元在它最该关注的词上：" + wanted_zh + "。");
  add_line(t, "Largest |s_ij - s_ji| = " + fmt(asymmetry.cwiseAbs().maxCoeff()) + ".",
           "最大的 |s_ij - s_ji| = " + fmt(asymmetry.cwiseAbs().maxCoeff()) + "。");
  out.panels.push_back(note_panel("learned", tr("What training reached", "训练达到了什么"), t));
  out.mats["W_Q"] = trained.W_Q.cast<float>();       // (d, d)
  out.mats["W_K"] = trained.W_K.cast<float>();       // (d, d)
  out.mats["scores"] = std::move(scores);      // (n, n)
  out.mats["weights"] = std::move(weights);    // (n, n)
  out.mats["asymmetry"] = std::move(asymmetry);  // (n, n)
  out.mats["loss_curve"] = std::move(curve);     // (2, steps + 1)
  out.mats["curve_steps"] = std::move(curve_steps);  // (1, steps + 1)
  out.mats["loss"] = Mat::Constant(1, 1, float(trained.loss.back()));
  return out;
}

// ---------------------------------------------------------------- 3 the NumPy/PyTorch program
std::string code_learned(Py& P, const DemoInputs& in) {
  const std::string& mode = setting(in, "projection");
  const Eigen::Index d = in_mat(in, "x").cols();
  Mat Q0, K0;
  random_start(setting_int(in, "seed"), d, &Q0, &K0);
  P.import("math");
  P.mat("X", in_mat(in, "x"), rows_note("embeddings, one row per token", in.tokens));
  P.mat("T", in_mat(in, "target"), "the target: the weights each token should learn");
  P.value("steps", std::to_string(setting_int(in, "steps")));
  P.value("rate", "1.0", "the learning rate");
  if (mode == "raw") {
    P("W_Q = np.eye(X.shape[1])  # raw: x_i . x_j, nothing to train");
    P("W_K = W_Q");
  } else {
    P.mat("W_Q", Q0, "the random start (the lab's seeded normal numbers times 0.5)");
    if (mode == "tied") P("W_K = W_Q  # tied: one matrix for queries and keys");
    else P.mat("W_K", K0);
  }
  P.gap();
  P("T = T / T.sum(axis=1, keepdims=True)  # each target row sums to 1");
  P("n = X.shape[0]");
  P("losses = []");
  P("for step in range(steps + 1):");
  P("    Q, K = X @ W_Q, X @ W_K");
  P("    scores = Q @ K.T");
  P("    weights = softmax(scores)");
  P("    losses.append(float(-(T * np.log(weights)).sum() / n))  # mean cross-entropy");
  if (mode != "raw") {
    P("    if step == steps:");
    P("        break");
    P("    dS = (weights - T) / n  # the loss's gradient with respect to the scores");
    if (mode == "tied") {
      P("    W_Q = W_Q - rate * X.T @ (dS + dS.T) @ X @ W_Q");
      P("    W_K = W_Q");
    } else {
      P("    W_Q, W_K = W_Q - rate * X.T @ dS @ K, W_K - rate * X.T @ dS.T @ Q");
    }
  }
  P("asymmetry = scores - scores.T");
  P.show("W_Q");
  P.show("W_K");
  for (const char* o : {"scores", "weights", "asymmetry"}) P.show(o);
  P.show("loss_curve", "[losses, [math.log(n)] * (steps + 1)]");
  P.show("curve_steps", "[list(range(steps + 1))]");
  P.show("loss", "[[losses[-1]]]");
  return "Projections learned from a random start by gradient descent (" + mode + ").";
}

}  // namespace

// ---------------------------------------------------------------- 4 registration
void add_learned_demos(std::vector<DemoEntry>& r) {
  r.push_back({"learned_projections",
               {tokens_param(), matrix_param("x"), matrix_param("target"),
                choice_param("projection", {"raw", "tied", "learned"}, "learned"),
                number_param("steps", 0.0f, 600.0f, true, "0"), number_param("seed", 0.0f, 99.0f, true, "1")},
               check_learned, run_learned, code_learned});
}

}  // namespace attn::demo_impl
