// block.cpp: the Transformer block (issue 15), stage by stage.
//
// transformer_block: one block of attn/transformer.h on a few tokens, every
// stage shown with its shape -- x, LayerNorm, multi-head attention, the residual
// sum, LayerNorm, the feed-forward layer, the second residual sum -- with the
// two LayerNorm gains editable and the residual connections scaled by a slider
// (1 = the block as defined, 0 = no residual path at all). The attention and
// feed-forward weights are fixed (init_transformer_block_params, seed 3), so
// what changes is only what the learner edits.
//
//   post-norm:  h = LN1(r x + attn(x));      y = LN2(r h + ffn(h))
//   pre-norm:   h = r x + attn(LN1(x));      y = r h + ffn(LN2(h))
//
// With r = 1 the stages are exactly transformer_block_forward's (test_demos
// checks it). Sections: 1 the stages, 2 the demo, 3 registration.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/multihead.h"
#include "attn/transformer.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn::demo_impl {
namespace {

constexpr int kBlockWidth = 4;  // d_model
constexpr int kBlockHidden = 8; // d_ff
constexpr int kBlockHeads = 2;

// The fixed attention and feed-forward weights (LayerNorm gains at 1: the
// demo's inputs replace them), which the code export writes into its program.
TransformerBlockParams block_demo_weights() {
  TransformerInitDesc init;
  init.d_model = kBlockWidth;
  init.d_ff = kBlockHidden;
  init.seed = 3;
  return init_transformer_block_params(init);
}

// ---------------------------------------------------------------- 1 the stages
TransformerBlockParams block_params(const DemoInputs& in) {
  TransformerBlockParams p = block_demo_weights();
  p.ln1_gamma = in.mats.at("ln1_gamma").row(0).transpose();
  p.ln2_gamma = in.mats.at("ln2_gamma").row(0).transpose();
  return p;
}

struct BlockStages {
  Mat ln1, attention, weights_1, weights_2, sum1, mid, ln2, ffn, sum2, output;
  std::string error;
};

BlockStages block_stages(const Mat& X, const TransformerBlockParams& p, bool pre_norm, float r) {
  BlockStages s;
  TransformerBlockDesc desc;
  desc.heads = kBlockHeads;
  MultiHeadDesc md;
  md.heads = kBlockHeads;
  MultiHeadParams mp;
  mp.W_Q = p.W_Q;
  mp.W_K = p.W_K;
  mp.W_V = p.W_V;
  mp.W_O = p.W_O;  // the biases are 0 (init), so attention is z W and no bias column is needed
  auto attend = [&](const Mat& z) {
    const MultiHeadResult a = self_attention_forward(z, md, mp);
    if (!a.ok()) {
      s.error = a.error;
      return Mat(Mat::Zero(z.rows(), z.cols()));
    }
    s.weights_1 = a.weights[0];
    s.weights_2 = a.weights[1];
    return Mat(a.output.rowwise() + p.b_O.transpose());
  };
  auto ffn = [&](const Mat& z) { return feed_forward(z, p.W_1, p.b_1, p.W_2, p.b_2, desc.activation).output; };
  if (pre_norm) {
    s.ln1 = layer_norm_forward(X, p.ln1_gamma, p.ln1_beta, desc.eps).output;
    s.attention = attend(s.ln1);
    s.sum1 = r * X + s.attention;
    s.mid = s.sum1;
    s.ln2 = layer_norm_forward(s.mid, p.ln2_gamma, p.ln2_beta, desc.eps).output;
    s.ffn = ffn(s.ln2);
    s.sum2 = r * s.mid + s.ffn;
    s.output = s.sum2;
  } else {
    s.attention = attend(X);
    s.sum1 = r * X + s.attention;
    s.ln1 = layer_norm_forward(s.sum1, p.ln1_gamma, p.ln1_beta, desc.eps).output;
    s.mid = s.ln1;
    s.ffn = ffn(s.mid);
    s.sum2 = r * s.mid + s.ffn;
    s.ln2 = layer_norm_forward(s.sum2, p.ln2_gamma, p.ln2_beta, desc.eps).output;
    s.output = s.ln2;
  }
  return s;
}

// Cosine of each output row with its own input row: (1, n).
Mat kept_direction(const Mat& X, const Mat& Y) {
  Mat c(1, X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const float nx = X.row(i).norm(), ny = Y.row(i).norm();
    c(0, i) = nx > 0 && ny > 0 ? X.row(i).dot(Y.row(i)) / (nx * ny) : 0.0f;
  }
  return c;
}

// ---------------------------------------------------------------- 2 the demo
void check_block(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 2, 6, problems);
  need_rows(in, "x", n, "one row per token", problems);
  need_cols(in, "x", kBlockWidth, "d_model = 4 columns", problems);
  for (const char* g : {"ln1_gamma", "ln2_gamma"}) {
    need_rows(in, g, 1, "one row: a gain per column of 'x'", problems);
    need_cols(in, g, kBlockWidth, "one gain per column of 'x'", problems);
  }
}

DemoOutputs run_block(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& X = in.mats.at("x");
  const bool pre = setting(in, "placement") == "pre";
  const float r = setting_number(in, "residual");
  const BlockStages s = block_stages(X, block_params(in), pre, r);
  if (!s.error.empty()) {
    out.error = s.error;
    return out;
  }
  const auto& tok = in.tokens;
  const Eigen::Index n = X.rows(), d = X.cols();
  const std::vector<std::string> dims = dim_labels(d);
  const std::string rs = fmt(r, 2);
  out.panels.push_back(editor_panel("x", tr("x: one row per token (n, d_model)", "x：每个词元一行 (n, d_model)"), tok, dims));
  out.panels.push_back(editor_panel("ln1_gamma", tr("LN1 gain γ1 (one per feature)", "LN1 的增益 γ1（每个特征一个）"), {"γ1"}, dims));
  out.panels.push_back(editor_panel("ln2_gamma", tr("LN2 gain γ2 (one per feature)", "LN2 的增益 γ2（每个特征一个）"), {"γ2"}, dims));
  out.panels.push_back(choice_panel("placement", tr("Where the LayerNorms sit", "LayerNorm 放在哪里"), {"post", "pre"},
                                    {tr("post-norm (2017 paper)", "后置（2017 年论文）"), tr("pre-norm", "前置")}));
  out.panels.push_back(slider_panel("residual", tr("Residual connections: x r (1 = on, 0 = off)", "残差连接：乘以 r（1 = 开，0 = 关）"),
                                    0.0f, 1.0f, 0.25f));
  // The stages in the order the block computes them.
  struct Stage {
    const char* key;
    std::string en, zh;
    const Mat* m;
  };
  std::vector<Stage> stages;
  if (pre) {
    stages = {{"ln1", "1. LN1(x): each row to mean 0, variance 1, times γ1", "1. LN1(x)：每行化为均值 0、方差 1，再乘 γ1", &s.ln1},
              {"attention", "2. attention(LN1(x)): 2 heads, concat, W_O", "2. attention(LN1(x))：2 个头，拼接，W_O", &s.attention},
              {"mid", "3. h = " + rs + "·x + attention", "3. h = " + rs + "·x + attention", &s.mid},
              {"ln2", "4. LN2(h), times γ2", "4. LN2(h)，乘 γ2", &s.ln2},
              {"ffn", "5. FFN(LN2(h)) = relu(z W1) W2", "5. FFN(LN2(h)) = relu(z W1) W2", &s.ffn},
              {"output", "6. y = " + rs + "·h + FFN", "6. y = " + rs + "·h + FFN", &s.output}};
  } else {
    stages = {{"attention", "1. attention(x): 2 heads, concat, W_O", "1. attention(x)：2 个头，拼接，W_O", &s.attention},
              {"sum1", "2. " + rs + "·x + attention", "2. " + rs + "·x + attention", &s.sum1},
              {"mid", "3. h = LN1(r·x + attention): each row to mean 0, variance 1, times γ1", "3. h = LN1(r·x + attention)：每行化为均值 0、方差 1，再乘 γ1", &s.mid},
              {"ffn", "4. FFN(h) = relu(h W1) W2", "4. FFN(h) = relu(h W1) W2", &s.ffn},
              {"sum2", "5. " + rs + "·h + FFN", "5. " + rs + "·h + FFN", &s.sum2},
              {"output", "6. y = LN2(r·h + FFN), times γ2", "6. y = LN2(r·h + FFN)，乘 γ2", &s.output}};
  }
  for (const Stage& st : stages) {
    out.mats[st.key] = *st.m;
    out.panels.push_back(heatmap_panel(st.key, st.key, tr(st.en, st.zh), tok, dims, false));
  }
  out.mats["weights_1"] = s.weights_1;
  out.mats["weights_2"] = s.weights_2;
  out.panels.push_back(heatmap_panel("weights_1", "weights_1", tr("Attention weights, head 1", "注意力权重，头 1"), tok, tok, true));
  out.panels.push_back(heatmap_panel("weights_2", "weights_2", tr("Attention weights, head 2", "注意力权重，头 2"), tok, tok, true));
  out.mats["kept"] = kept_direction(X, s.output);
  out.panels.push_back(bars_panel("kept", "kept",
                                  tr("cos(y_i, x_i): how much each output still points the way its own input did",
                                     "cos(y_i, x_i)：每个输出与它自己的输入方向还有多接近"),
                                  {"cos"}, tok));
  LocalText shapes;
  const std::string nd = fmt_shape({n, d}), nf = fmt_shape({n, kBlockHidden}), nn = fmt_shape({n, n});
  const std::vector<std::string> lines =
      pre ? std::vector<std::string>{"x: " + nd, "LN1(x): " + nd, "Q, K, V: " + nd + " = 2 heads x (n, 2)",
                                     "weights: 2 x " + nn, "attention (concat W_O): " + nd, "h = r·x + attention: " + nd,
                                     "LN2(h): " + nd, "hidden relu(z W1): " + nf, "FFN = hidden W2: " + nd, "y = r·h + FFN: " + nd}
          : std::vector<std::string>{"x: " + nd, "Q, K, V: " + nd + " = 2 heads x (n, 2)", "weights: 2 x " + nn,
                                     "attention (concat W_O): " + nd, "r·x + attention: " + nd, "h = LN1(...): " + nd,
                                     "hidden relu(h W1): " + nf, "FFN = hidden W2: " + nd, "r·h + FFN: " + nd, "y = LN2(...): " + nd};
  for (const auto& l : lines) add_line(shapes, l, l);
  out.panels.push_back(shapes_panel("shapes", tr("Every stage keeps the shape (n, d_model); only the FFN's hidden layer is wider",
                                                 "每个阶段都保持形状 (n, d_model)；只有 FFN 的隐藏层更宽"),
                                    shapes));
  return out;
}


// ---------------------------------------------------------------- the NumPy/PyTorch programs
std::string code_transformer_block(Py& P, const DemoInputs& in) {
  const bool pre = setting(in, "placement") == "pre";
  const TransformerBlockParams w = block_demo_weights();
  P.mat("x", in_mat(in, "x"), rows_note("one row per token", in.tokens));
  P.mat("gamma_1", in_mat(in, "ln1_gamma"), "LayerNorm gains");
  P.mat("gamma_2", in_mat(in, "ln2_gamma"));
  P.value("r", num(setting_number(in, "residual")), "the residual connections' scale");
  P.comment("The block's fixed weights (the lab's draws, seed 3); every bias and LayerNorm shift is 0.");
  P.mat("W_Q", w.W_Q);
  P.mat("W_K", w.W_K);
  P.mat("W_V", w.W_V);
  P.mat("W_O", w.W_O);
  P.mat("W_1", w.W_1);
  P.mat("W_2", w.W_2);
  P.gap();
  P.gap();
  P.block(R"py(def layer_norm(z, gamma):
    """Each row to mean 0 and variance 1, times gamma."""
    mean = z.mean(axis=-1, keepdims=True)
    var = ((z - mean) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (z - mean) / np.sqrt(var + 1e-5)


def attend(z):
    """Two heads of size 2 (scaled dot product), side by side, times W_O."""
    Q, K, V = z @ W_Q, z @ W_K, z @ W_V
    w_1 = softmax(Q[:, 0:2] @ K[:, 0:2].T / 2 ** 0.5)
    w_2 = softmax(Q[:, 2:4] @ K[:, 2:4].T / 2 ** 0.5)
    return np.concatenate([w_1 @ V[:, 0:2], w_2 @ V[:, 2:4]], axis=1) @ W_O, w_1, w_2


def feed_forward(z):
    hidden = z @ W_1
    return (hidden * (hidden > 0)) @ W_2  # relu, then back to d_model)py");
  P.gap();
  P.gap();
  if (pre) {
    P.block(R"py(ln1 = layer_norm(x, gamma_1)  # pre-norm
attention, weights_1, weights_2 = attend(ln1)
mid = r * x + attention  # h
ln2 = layer_norm(mid, gamma_2)
ffn = feed_forward(ln2)
output = r * mid + ffn  # y)py");
  } else {
    P.block(R"py(attention, weights_1, weights_2 = attend(x)  # post-norm
sum1 = r * x + attention
mid = layer_norm(sum1, gamma_1)  # h
ffn = feed_forward(mid)
sum2 = r * mid + ffn
output = layer_norm(sum2, gamma_2)  # y)py");
  }
  P("kept = (output * x).sum(axis=1) / np.clip(np.sqrt((output * output).sum(axis=1) * (x * x).sum(axis=1)), 1e-30, None)  # cos(y_i, x_i)");
  const std::vector<const char*> stages = pre ? std::vector<const char*>{"ln1", "attention", "mid", "ln2", "ffn", "output"}
                                              : std::vector<const char*>{"attention", "sum1", "mid", "ffn", "sum2", "output"};
  for (const char* o : stages) P.show(o);
  for (const char* o : {"weights_1", "weights_2"}) P.show(o);
  P.show("kept", "kept.reshape(1, -1)");
  return std::string("One Transformer block, stage by stage (") + (pre ? "pre" : "post") + "-norm).";
}

}  // namespace

// ---------------------------------------------------------------- 3 registration
void add_block_demos(std::vector<DemoEntry>& r) {
  r.push_back({"transformer_block",
               {tokens_param(), matrix_param("x"), matrix_param("ln1_gamma"), matrix_param("ln2_gamma"),
                choice_param("placement", {"post", "pre"}, "post"), number_param("residual", 0, 1, false, "1")},
               check_block, run_block, code_transformer_block});
}


// The stages at r = 1 against transformer_block_forward (test_demos).
float block_demo_difference(const DemoInputs& in) {
  const TransformerBlockParams p = block_params(in);
  float worst = 0.0f;
  for (const bool pre : {false, true}) {
    TransformerBlockDesc desc;
    desc.heads = kBlockHeads;
    desc.norm_first = pre;
    const TransformerBlockResult ref = transformer_block_forward(in.mats.at("x"), desc, p);
    const BlockStages s = block_stages(in.mats.at("x"), p, pre, 1.0f);
    if (!ref.ok() || !s.error.empty()) return INFINITY;
    worst = std::max({worst, (ref.output - s.output).cwiseAbs().maxCoeff(), (ref.mid - s.mid).cwiseAbs().maxCoeff(),
                      (ref.attention.weights[0] - s.weights_1).cwiseAbs().maxCoeff()});
  }
  return worst;
}

}  // namespace attn::demo_impl
