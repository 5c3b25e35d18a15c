// transformer.cpp: the Transformer block -- LayerNorm, the feed-forward layer,
// and the block that joins them to multi-head self-attention with residuals.
//
// The attention sublayer is multihead.cpp's self-attention run on x with a
// column of ones appended: [z | 1] [W; b^T] = z W + b, so the biases of Q, K and
// V ride along as one extra weight row, and every head, the causal mask and the
// softmax are exactly the ones the other lessons use.
//
// Sections: 1 activations, 2 LayerNorm, 3 feed-forward, 4 helpers and
// validation, 5 block forward, 6 block backward, 7 initialisation.
#include "attn/transformer.h"

#include <cmath>

#include "base/rng.h"

namespace attn {

// ---------------------------------------------------------------- 1 activations
const char* activation_name(Activation a) { return a == Activation::gelu ? "gelu" : "relu"; }

bool parse_activation(const std::string& name, Activation* a) {
  if (name == "relu") *a = Activation::relu;
  else if (name == "gelu") *a = Activation::gelu;
  else return false;
  return true;
}

namespace {
constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1 / sqrt(2 pi): the normal density at 0
}  // namespace

Mat activate(const Mat& x, Activation a) {
  if (a == Activation::relu) return x.cwiseMax(0.0f);
  // x Phi(x), Phi the standard normal CDF written with erf.
  return x.unaryExpr([](float v) { return 0.5f * v * (1.0f + std::erf(v * kInvSqrt2)); });
}

Mat activate_derivative(const Mat& x, Activation a) {
  if (a == Activation::relu) return x.unaryExpr([](float v) { return v > 0.0f ? 1.0f : 0.0f; });
  // d/dx [x Phi(x)] = Phi(x) + x phi(x), phi the standard normal density.
  return x.unaryExpr([](float v) {
    return 0.5f * (1.0f + std::erf(v * kInvSqrt2)) + v * kInvSqrt2Pi * std::exp(-0.5f * v * v);
  });
}

// ---------------------------------------------------------------- 2 LayerNorm
LayerNormResult layer_norm_forward(const Mat& s, const Vec& gamma, const Vec& beta, float eps) {
  const Eigen::Index n = s.rows(), d = s.cols();
  LayerNormResult r;
  r.normalized.resize(n, d);  // (n, d)
  r.inv_std.resize(n);        // (n)
  for (Eigen::Index i = 0; i < n; ++i) {
    const float mean = s.row(i).mean();
    const Eigen::RowVectorXf centered = s.row(i).array() - mean;  // (d)
    const float var = centered.squaredNorm() / float(d);  // biased: divides by d, not d - 1
    r.inv_std[i] = 1.0f / std::sqrt(var + eps);
    r.normalized.row(i) = centered * r.inv_std[i];
  }
  r.output = (r.normalized.array().rowwise() * gamma.transpose().array()).rowwise() + beta.transpose().array();
  return r;
}

LayerNormGrads layer_norm_backward(const LayerNormResult& forward, const Vec& gamma, const Mat& grad_output) {
  const Mat& xhat = forward.normalized;  // (n, d)
  LayerNormGrads g;
  g.dgamma = (grad_output.array() * xhat.array()).colwise().sum().transpose();  // (d)
  g.dbeta = grad_output.colwise().sum().transpose();                           // (d)
  // xhat = (s - mean) * inv_std, with mean and inv_std functions of the row, so
  // ds = inv_std * (dxhat - mean(dxhat) - xhat * mean(dxhat .* xhat)).
  const Mat dxhat = (grad_output.array().rowwise() * gamma.transpose().array()).matrix();  // (n, d)
  const float inv_d = 1.0f / float(xhat.cols());
  const Eigen::VectorXf mean_d = dxhat.rowwise().sum() * inv_d;                                   // (n)
  const Eigen::VectorXf mean_dx = (dxhat.array() * xhat.array()).rowwise().sum().matrix() * inv_d;  // (n)
  g.ds = (((dxhat.colwise() - mean_d).array() - xhat.array().colwise() * mean_dx.array()).colwise() *
          forward.inv_std.array())
             .matrix();
  return g;
}

// ---------------------------------------------------------------- 3 feed-forward
FeedForwardResult feed_forward(const Mat& z, const Mat& W_1, const Vec& b_1, const Mat& W_2, const Vec& b_2,
                               Activation activation) {
  FeedForwardResult r;
  r.pre = (z * W_1).rowwise() + b_1.transpose();        // (n, d_ff)
  r.hidden = activate(r.pre, activation);               // (n, d_ff)
  r.output = (r.hidden * W_2).rowwise() + b_2.transpose();  // (n, d_model)
  return r;
}

FeedForwardGrads feed_forward_backward(const Mat& z, const Mat& W_1, const Mat& W_2, Activation activation,
                                       const FeedForwardResult& forward, const Mat& grad_output) {
  FeedForwardGrads g;
  g.db_2 = grad_output.colwise().sum().transpose();  // (d_model)
  g.dW_2 = forward.hidden.transpose() * grad_output;  // (d_ff, d_model)
  const Mat dpre = ((grad_output * W_2.transpose()).array() *
                    activate_derivative(forward.pre, activation).array()).matrix();  // (n, d_ff)
  g.db_1 = dpre.colwise().sum().transpose();  // (d_ff)
  g.dW_1 = z.transpose() * dpre;              // (d_model, d_ff)
  g.dz = dpre * W_1.transpose();              // (n, d_model)
  return g;
}

// ---------------------------------------------------------------- 4 helpers and validation
namespace {

// [z | 1]: (n, d + 1).
Mat with_ones(const Mat& z) {
  Mat a(z.rows(), z.cols() + 1);
  a.leftCols(z.cols()) = z;
  a.col(z.cols()).setOnes();
  return a;
}

// [W; b^T]: (d_in + 1, d_out), so [z | 1] [W; b^T] = z W + b.
Mat with_bias_row(const Mat& W, const Vec& b) {
  Mat a(W.rows() + 1, W.cols());
  a.topRows(W.rows()) = W;
  a.row(W.rows()) = b.transpose();
  return a;
}

MultiHeadDesc attention_desc(const TransformerBlockDesc& desc) {
  MultiHeadDesc m;
  m.heads = desc.heads;
  m.score = ScoreKind::scaled_dot;  // divides by sqrt(d_h)
  m.mask = desc.causal ? MaskKind::causal : MaskKind::none;
  return m;
}

MultiHeadParams attention_params(const TransformerBlockParams& p) {
  MultiHeadParams m;
  m.W_Q = with_bias_row(p.W_Q, p.b_Q);  // (d_model + 1, w)
  m.W_K = with_bias_row(p.W_K, p.b_K);
  m.W_V = with_bias_row(p.W_V, p.b_V);
  m.W_O = p.W_O;                        // (w, d_model); b_O is added outside
  return m;
}

std::string validate(const Mat& X, const TransformerBlockDesc& desc, const TransformerBlockParams& p) {
  const Eigen::Index n = X.rows(), d = X.cols();
  if (n < 1 || d < 1) return "transformer: x needs at least one row and one column";
  if (desc.heads < 1) return "transformer: heads must be >= 1";
  if (!(desc.eps > 0.0f) || !std::isfinite(desc.eps)) return "transformer: eps must be a finite number > 0";
  const Eigen::Index w = p.W_Q.cols(), d_ff = p.W_1.cols();
  if (w < 1 || w % desc.heads != 0)
    return "transformer: W_Q has " + std::to_string(w) + " columns, not a positive multiple of heads = " +
           std::to_string(desc.heads);
  if (d_ff < 1) return "transformer: W_1 needs at least one column (d_ff)";
  struct MatShape {
    const char* name;
    const Mat* m;
    Eigen::Index rows, cols;
    const char* expected;
  };
  const MatShape mats[] = {{"W_Q", &p.W_Q, d, w, "(d_model, w)"},        {"W_K", &p.W_K, d, w, "(d_model, w)"},
                           {"W_V", &p.W_V, d, w, "(d_model, w)"},        {"W_O", &p.W_O, w, d, "(w, d_model)"},
                           {"W_1", &p.W_1, d, d_ff, "(d_model, d_ff)"}, {"W_2", &p.W_2, d_ff, d, "(d_ff, d_model)"}};
  for (const MatShape& s : mats)
    if (s.m->rows() != s.rows || s.m->cols() != s.cols)
      return std::string("transformer: ") + s.name + " is " + shape_str(s.m->rows(), s.m->cols()) + ", expected " +
             s.expected + " = " + shape_str(s.rows, s.cols);
  struct VecShape {
    const char* name;
    const Vec* v;
    Eigen::Index size;
  };
  const VecShape vecs[] = {{"b_Q", &p.b_Q, w},       {"b_K", &p.b_K, w},           {"b_V", &p.b_V, w},
                           {"b_O", &p.b_O, d},       {"ln1_gamma", &p.ln1_gamma, d}, {"ln1_beta", &p.ln1_beta, d},
                           {"ln2_gamma", &p.ln2_gamma, d}, {"ln2_beta", &p.ln2_beta, d}, {"b_1", &p.b_1, d_ff},
                           {"b_2", &p.b_2, d}};
  for (const VecShape& s : vecs)
    if (s.v->size() != s.size)
      return std::string("transformer: ") + s.name + " has " + std::to_string(s.v->size()) + " entries, expected " +
             std::to_string(s.size);
  return "";
}

}  // namespace

// ---------------------------------------------------------------- 5 block forward
TransformerBlockResult transformer_block_forward(const Mat& X, const TransformerBlockDesc& desc,
                                                 const TransformerBlockParams& p) {
  TransformerBlockResult r;
  r.error = validate(X, desc, p);
  if (!r.ok()) return r;

  // Sublayer 1: attention, reading x (post-norm) or LN1(x) (pre-norm).
  if (desc.norm_first) {
    r.norm1 = layer_norm_forward(X, p.ln1_gamma, p.ln1_beta, desc.eps);
    r.attention_input = r.norm1.output;
  } else {
    r.attention_input = X;
  }
  r.attention = self_attention_forward(with_ones(r.attention_input), attention_desc(desc), attention_params(p));
  if (!r.attention.ok()) {
    TransformerBlockResult failed;
    failed.error = "transformer: " + r.attention.error;
    return failed;
  }
  r.warnings = r.attention.warnings;
  r.attention_output = r.attention.output.rowwise() + p.b_O.transpose();  // (n, d_model)
  if (desc.norm_first) {
    r.mid = X + r.attention_output;  // h = x + attn(LN1(x))
  } else {
    r.norm1 = layer_norm_forward(X + r.attention_output, p.ln1_gamma, p.ln1_beta, desc.eps);
    r.mid = r.norm1.output;  // h = LN1(x + attn(x))
  }

  // Sublayer 2: the feed-forward layer, reading h (post-norm) or LN2(h) (pre-norm).
  if (desc.norm_first) {
    r.norm2 = layer_norm_forward(r.mid, p.ln2_gamma, p.ln2_beta, desc.eps);
    r.ffn_input = r.norm2.output;
  } else {
    r.ffn_input = r.mid;
  }
  r.ffn = feed_forward(r.ffn_input, p.W_1, p.b_1, p.W_2, p.b_2, desc.activation);
  if (desc.norm_first) {
    r.output = r.mid + r.ffn.output;  // y = h + ffn(LN2(h))
  } else {
    r.norm2 = layer_norm_forward(r.mid + r.ffn.output, p.ln2_gamma, p.ln2_beta, desc.eps);
    r.output = r.norm2.output;  // y = LN2(h + ffn(h))
  }
  return r;
}

// ---------------------------------------------------------------- 6 block backward
TransformerBlockGrads transformer_block_backward(const Mat& X, const TransformerBlockDesc& desc,
                                                 const TransformerBlockParams& p,
                                                 const TransformerBlockResult& forward, const Mat& grad_output) {
  TransformerBlockGrads g;
  g.error = validate(X, desc, p);
  if (!g.ok()) return g;
  const Eigen::Index n = X.rows(), d = X.cols();
  if (!forward.ok() || forward.output.rows() != n || forward.output.cols() != d ||
      forward.attention.weights.size() != size_t(desc.heads)) {
    g.error = "transformer backward: the forward result does not match these inputs";
    return g;
  }
  if (grad_output.rows() != n || grad_output.cols() != d) {
    g.error = "transformer backward: grad_output is " + shape_str(grad_output.rows(), grad_output.cols()) +
              ", expected (n, d_model) = " + shape_str(n, d);
    return g;
  }
  TransformerBlockParams& dp = g.params;

  // Sublayer 2 backward: dL/dh (dmid) and dL/dffn output (dffn).
  Mat dmid, dffn;  // (n, d_model)
  if (desc.norm_first) {
    dmid = grad_output;  // y = h + ffn(...): the residual passes dy straight to h
    dffn = grad_output;
  } else {
    LayerNormGrads ln2 = layer_norm_backward(forward.norm2, p.ln2_gamma, grad_output);
    dp.ln2_gamma = std::move(ln2.dgamma);
    dp.ln2_beta = std::move(ln2.dbeta);
    dmid = ln2.ds;  // y = LN2(h + ffn(h))
    dffn = std::move(ln2.ds);
  }
  FeedForwardGrads ff = feed_forward_backward(forward.ffn_input, p.W_1, p.W_2, desc.activation, forward.ffn, dffn);
  dp.W_1 = std::move(ff.dW_1);
  dp.b_1 = std::move(ff.db_1);
  dp.W_2 = std::move(ff.dW_2);
  dp.b_2 = std::move(ff.db_2);
  if (desc.norm_first) {
    LayerNormGrads ln2 = layer_norm_backward(forward.norm2, p.ln2_gamma, ff.dz);
    dp.ln2_gamma = std::move(ln2.dgamma);
    dp.ln2_beta = std::move(ln2.dbeta);
    dmid += ln2.ds;
  } else {
    dmid += ff.dz;
  }

  // Sublayer 1 backward: dL/dx from the residual (dX) and dL/dattn output (dattn).
  Mat dattn;  // (n, d_model)
  if (desc.norm_first) {
    g.dX = dmid;  // h = x + attn(LN1(x))
    dattn = dmid;
  } else {
    LayerNormGrads ln1 = layer_norm_backward(forward.norm1, p.ln1_gamma, dmid);
    dp.ln1_gamma = std::move(ln1.dgamma);
    dp.ln1_beta = std::move(ln1.dbeta);
    g.dX = ln1.ds;  // h = LN1(x + attn(x))
    dattn = std::move(ln1.ds);
  }
  dp.b_O = dattn.colwise().sum().transpose();  // (d_model)
  const MultiHeadGrads mg = self_attention_backward(with_ones(forward.attention_input), attention_desc(desc),
                                                    attention_params(p), forward.attention, dattn);
  if (!mg.ok()) {
    TransformerBlockGrads failed;
    failed.error = "transformer backward: " + mg.error;
    return failed;
  }
  // Split [dW; db^T] back into the weight and its bias; drop the ones column of dX.
  dp.W_Q = mg.dW_Q.topRows(d);
  dp.b_Q = mg.dW_Q.row(d).transpose();
  dp.W_K = mg.dW_K.topRows(d);
  dp.b_K = mg.dW_K.row(d).transpose();
  dp.W_V = mg.dW_V.topRows(d);
  dp.b_V = mg.dW_V.row(d).transpose();
  dp.W_O = mg.dW_O;
  const Mat dinput = mg.dX.leftCols(d);  // dL/d(attention input) (n, d_model)
  if (desc.norm_first) {
    LayerNormGrads ln1 = layer_norm_backward(forward.norm1, p.ln1_gamma, dinput);
    dp.ln1_gamma = std::move(ln1.dgamma);
    dp.ln1_beta = std::move(ln1.dbeta);
    g.dX += ln1.ds;
  } else {
    g.dX += dinput;
  }
  return g;
}

// ---------------------------------------------------------------- 7 initialisation
TransformerBlockParams init_transformer_block_params(const TransformerInitDesc& desc) {
  TransformerBlockParams p;
  Rng rng(desc.seed);
  const int d = desc.d_model, d_ff = desc.d_ff;
  const float limit_d = 1.0f / std::sqrt(float(d > 0 ? d : 1));
  const float limit_ff = 1.0f / std::sqrt(float(d_ff > 0 ? d_ff : 1));
  p.W_Q = uniform_matrix(rng, d, d, limit_d);
  p.W_K = uniform_matrix(rng, d, d, limit_d);
  p.W_V = uniform_matrix(rng, d, d, limit_d);
  p.W_O = uniform_matrix(rng, d, d, limit_d);
  p.W_1 = uniform_matrix(rng, d, d_ff, limit_d);
  p.W_2 = uniform_matrix(rng, d_ff, d, limit_ff);
  p.b_Q = p.b_K = p.b_V = p.b_O = p.b_2 = Vec::Zero(d);
  p.b_1 = Vec::Zero(d_ff);
  p.ln1_gamma = p.ln2_gamma = Vec::Ones(d);
  p.ln1_beta = p.ln2_beta = Vec::Zero(d);
  return p;
}

}  // namespace attn
