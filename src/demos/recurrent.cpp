// recurrent.cpp: a demo for curriculum E3, self-attention with an RNN underneath.
//
//   rnn_under_attention  a tanh RNN small enough to follow by hand reads a sentence,
//                        h_t = tanh(x_t W_x + h_(t-1) W_h), h_0 = 0, and
//                        self-attention (Q = K = V) runs over its states, against
//                        the same self-attention over the embeddings themselves.
//                        Both read the sentence and a shuffled copy; each mean of
//                        the output rows (the sentence vector a classifier would
//                        read) shows whether it can tell the two apart. The RNN
//                        can, through W_h, and pays with n steps in a row.
//
// Sections: 1 rnn_under_attention, 2 its NumPy/PyTorch program, 3 registration.
#include <cmath>
#include <string>
#include <vector>

#include "attn/scores.h"
#include "attn/softmax.h"
#include "base/text.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn::demo_impl {
namespace {

// ---------------------------------------------------------------- 1 rnn_under_attention
void check_rnn_under_attention(const DemoInputs& in, std::vector<Problem>& problems) {
  need_labels(in.tokens, "tokens", 2, 6, problems);
  need_rows(in, "x", Eigen::Index(in.tokens.size()), "one embedding per token", problems);
  need_max_size(in, "x", 6, 4, problems);
  const Eigen::Index d = in.mats.at("x").cols();
  for (const char* w : {"w_x", "w_h"}) {
    need_rows(in, w, d, "a state as wide as an embedding, so both sides compare alike", problems);
    need_cols(in, w, d, "a state as wide as an embedding, so both sides compare alike", problems);
  }
}

// The RNN's states, one row per token: h_t = tanh(x_t W_x + h_(t-1) W_h), h_0 = 0.
// Step t needs step t - 1, so the n steps run one after another.
Mat rnn_states(const Mat& X, const Mat& W_x, const Mat& W_h) {
  Mat H(X.rows(), W_x.cols());       // (n, d)
  Mat h = Mat::Zero(1, W_x.cols());  // (1, d) h_0
  for (Eigen::Index t = 0; t < X.rows(); ++t) {
    h = (X.row(t) * W_x + h * W_h).array().tanh().matrix();
    H.row(t) = h;
  }
  return H;
}

// Self-attention with Q = K = V = A (plain dot product), then the mean of its
// output rows: the sentence vector, (1, d).
Mat sentence_vector(const Mat& A, Warnings* warnings) {
  const Mat weights = softmax_rows(dot_scores(A, A), warnings);  // (n, n)
  return (weights * A).colwise().mean();
}

DemoOutputs run_rnn_under_attention(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& X = in.mats.at("x");  // (n, d)
  const Mat &W_x = in.mats.at("w_x"), &W_h = in.mats.at("w_h");  // (d, d) each
  const Eigen::Index n = X.rows(), d = X.cols();
  const auto order = shuffle_order(setting(in, "shuffle"), n);
  const Mat Xs = permute_rows(X, order);  // (n, d) the shuffled sentence
  Mat H = rnn_states(X, W_x, W_h), Hs = rnn_states(Xs, W_x, W_h);  // (n, d) each
  Mat pooled_x(2, d), pooled_rnn(2, d);  // rows: the sentence, the shuffled one
  pooled_x << sentence_vector(X, &out.warnings), sentence_vector(Xs, &out.warnings);
  pooled_rnn << sentence_vector(H, &out.warnings), sentence_vector(Hs, &out.warnings);
  Mat difference(1, 2);  // columns: over the embeddings, over the RNN states
  difference << (pooled_x.row(0) - pooled_x.row(1)).cwiseAbs().maxCoeff(),
      (pooled_rnn.row(0) - pooled_rnn.row(1)).cwiseAbs().maxCoeff();
  Mat steps(1, 2);  // sequential steps: the RNN, one attention layer
  steps << float(n), 1.0f;

  const auto& tok = in.tokens;
  std::vector<std::string> shuffled;
  for (Eigen::Index i : order) shuffled.push_back(tok[size_t(i)]);
  const std::string sentence = join(tok, " "), other = join(shuffled, " ");
  const auto dims = dim_labels(d);
  out.panels.push_back(choice_panel("shuffle", tr("The second sentence: the same words", "第二个句子：同样的词"),
                                    {"reverse", "rotate", "swap"},
                                    {tr("reversed", "倒序"), tr("rotated by one", "循环移动一位"), tr("first two swapped", "前两个交换")}));
  out.panels.push_back(editor_panel("x", tr("Embeddings X", "嵌入 X"), tok, dims));
  out.panels.push_back(editor_panel("w_x", tr("W_x: from the word to the state", "W_x：从词到状态"), dims, dims));
  out.panels.push_back(editor_panel("w_h", tr("W_h: from the previous state to the state", "W_h：从上一个状态到这个状态"), dims, dims));
  out.panels.push_back(heatmap_panel("states", "states", tr("RNN states h_t = tanh(x_t W_x + h_(t-1) W_h): " + sentence,
                                                            "RNN 状态 h_t = tanh(x_t W_x + h_(t-1) W_h)：" + sentence),
                                     tok, dims, false));
  out.panels.push_back(heatmap_panel("shuffled_states", "shuffled_states", tr("RNN states: " + other, "RNN 状态：" + other),
                                     shuffled, dims, false));
  out.panels.push_back(heatmap_panel("pooled_x", "pooled_x",
                                     tr("Attention over the embeddings: mean of the output rows",
                                        "对嵌入做注意力：输出各行的平均"),
                                     {sentence, other}, dims, false));
  out.panels.push_back(heatmap_panel("pooled_rnn", "pooled_rnn",
                                     tr("Attention over the RNN states: mean of the output rows",
                                        "对 RNN 状态做注意力：输出各行的平均"),
                                     {sentence, other}, dims, false));
  out.panels.push_back(heatmap_panel("difference", "difference",
                                     tr("Largest gap between the two sentence vectors", "两个句子向量之间最大的差"),
                                     {"gap"}, {"X", "RNN"}, false));
  LocalText order_note;
  add_line(order_note, "The two sentence vectors differ by at most " + fmt(difference(0, 0), 3) +
                           " over the embeddings and " + fmt(difference(0, 1), 3) + " over the RNN states.",
           "两个句子向量最多相差：对嵌入做注意力时 " + fmt(difference(0, 0), 3) + "，对 RNN 状态做注意力时 " +
               fmt(difference(0, 1), 3) + "。");
  if (difference(0, 1) < 1e-4f)
    add_line(order_note, "Neither side can tell \"" + sentence + "\" from \"" + other + "\".",
             "两边都分不出 “" + sentence + "” 和 “" + other + "”。");
  else
    add_line(order_note, "Only the RNN side tells \"" + sentence + "\" from \"" + other + "\": each state carries the words before it.",
             "只有 RNN 这一边分得出 “" + sentence + "” 和 “" + other + "”：每个状态都带着它前面的词。");
  out.panels.push_back(note_panel("order", tr("Can it tell the two apart?", "分得出这两个句子吗？"), order_note));
  LocalText cost;
  const std::string ns = std::to_string(n);
  add_line(cost, "The RNN computed h_1 to h_" + ns + " one after another: " + ns +
                     " steps in a row, each waiting for the one before, and a word reaches a word k places on through k updates.",
           "RNN 依次算出 h_1 到 h_" + ns + "：连续 " + ns + " 步，每一步都要等前一步；一个词要经过 k 次更新才能到达 k 个位置之后的词。");
  add_line(cost, "The attention over the states computes all " + ns + " rows at once, in 1 step, and links any two positions directly.",
           "状态上的注意力一步就算出全部 " + ns + " 行，任意两个位置都直接相连。");
  out.panels.push_back(note_panel("cost", tr("What the RNN costs", "RNN 的代价"), cost));
  out.mats["states"] = std::move(H);             // (n, d)
  out.mats["shuffled_states"] = std::move(Hs);   // (n, d)
  out.mats["pooled_x"] = std::move(pooled_x);    // (2, d)
  out.mats["pooled_rnn"] = std::move(pooled_rnn);  // (2, d)
  out.mats["difference"] = std::move(difference);  // (1, 2)
  out.mats["steps"] = std::move(steps);            // (1, 2)
  return out;
}

// ---------------------------------------------------------------- 2 the NumPy/PyTorch program
std::string code_rnn_under_attention(Py& P, const DemoInputs& in) {
  const auto order = shuffle_order(setting(in, "shuffle"), Eigen::Index(in.tokens.size()));
  std::vector<std::string> order_text;
  for (Eigen::Index i : order) order_text.push_back(std::to_string(i));
  P.mat("X", in_mat(in, "x"), rows_note("embeddings, one row per token", in.tokens));
  P.mat("W_x", in_mat(in, "w_x"), "from the word to the state");
  P.mat("W_h", in_mat(in, "w_h"), "from the previous state to the state");
  P.value("order", "[" + join(order_text, ", ") + "]", "the shuffled sentence: its row i is row order[i] of X");
  P.gap();
  P.gap();
  P.block(R"py(def rnn(X):
    """h_t = tanh(x_t W_x + h_(t-1) W_h) from h_0 = 0: n steps, each waiting for the one before."""
    h = np.zeros(W_h.shape[0])
    states = []
    for x in X:
        h = np.tanh(x @ W_x + h @ W_h)
        states.append(h)
    return np.stack(states)


def sentence_vector(A):
    """Self-attention with Q = K = V = A, then the mean of the output rows."""
    weights = softmax(A @ A.T)
    return (weights @ A).mean(axis=0)


states, shuffled_states = rnn(X), rnn(X[order])
pooled_x = np.stack([sentence_vector(X), sentence_vector(X[order])])
pooled_rnn = np.stack([sentence_vector(states), sentence_vector(shuffled_states)])
difference = [[float(np.abs(pooled_x[0] - pooled_x[1]).max()), float(np.abs(pooled_rnn[0] - pooled_rnn[1]).max())]]
steps = [[len(X), 1]]  # steps in a row: the RNN, one attention layer)py");
  for (const char* o : {"states", "shuffled_states", "pooled_x", "pooled_rnn", "difference", "steps"}) P.show(o);
  return "Self-attention over a small RNN's states, against attention over the embeddings, on a sentence and a shuffled copy.";
}

}  // namespace

// ---------------------------------------------------------------- 3 registration
void add_recurrent_demos(std::vector<DemoEntry>& r) {
  r.push_back({"rnn_under_attention",
               {tokens_param(), matrix_param("x"), matrix_param("w_x"), matrix_param("w_h"),
                choice_param("shuffle", {"reverse", "rotate", "swap"}, "reverse")},
               check_rnn_under_attention, run_rnn_under_attention, code_rnn_under_attention});
}

}  // namespace attn::demo_impl
