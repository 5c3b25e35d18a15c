// eval_transformer.cpp: kind "transformer_block" of `attnlab eval` -- one
// Transformer encoder block (attn/transformer.h) with every parameter given,
// checked field by field with the request's names like the other kinds
// (eval_fields.h), then run through the core.
//
// Sections: 1 reading the parameters, 2 the kind.
#include <string>

#include "attn/transformer.h"
#include "cli/eval_fields.h"

namespace attn::eval_detail {

namespace {

// ---------------------------------------------------------------- 1 reading the parameters
// A required matrix of shape (rows, cols); `why_rows` / `why_cols` say where
// the sizes come from.
bool read_shaped(Fields& f, const std::string& name, long long rows, const std::string& why_rows, long long cols,
                 const std::string& why_cols, Mat* out) {
  return read_matrix(f, name, out) && expect_rows(f, name, *out, rows, why_rows) &&
         expect_cols(f, name, *out, cols, why_cols);
}

// An optional vector of `size` numbers, filled with `fallback` when absent
// (biases and betas 0, gammas 1: the framework's initial values).
bool read_optional_vector(Fields& f, const std::string& name, long long size, const std::string& why, float fallback,
                          Vec* out) {
  const Value* v = f.get(name);
  if (!v) {
    *out = Vec::Constant(size, fallback);
    return true;
  }
  return to_vector(f.ctx(), *v, f.path(name), out) && expect_size(f, name, *out, size, why);
}

// Every parameter, named as in the request and the response's "grad".
void write_params(Ctx& ctx, const TransformerBlockParams& p, const std::string& prefix, Value* out) {
  out->set("w_q", out_matrix(ctx, p.W_Q, prefix + "w_q"));
  out->set("b_q", out_vector(ctx, p.b_Q, prefix + "b_q"));
  out->set("w_k", out_matrix(ctx, p.W_K, prefix + "w_k"));
  out->set("b_k", out_vector(ctx, p.b_K, prefix + "b_k"));
  out->set("w_v", out_matrix(ctx, p.W_V, prefix + "w_v"));
  out->set("b_v", out_vector(ctx, p.b_V, prefix + "b_v"));
  out->set("w_o", out_matrix(ctx, p.W_O, prefix + "w_o"));
  out->set("b_o", out_vector(ctx, p.b_O, prefix + "b_o"));
  out->set("ln1_gamma", out_vector(ctx, p.ln1_gamma, prefix + "ln1_gamma"));
  out->set("ln1_beta", out_vector(ctx, p.ln1_beta, prefix + "ln1_beta"));
  out->set("ln2_gamma", out_vector(ctx, p.ln2_gamma, prefix + "ln2_gamma"));
  out->set("ln2_beta", out_vector(ctx, p.ln2_beta, prefix + "ln2_beta"));
  out->set("w_1", out_matrix(ctx, p.W_1, prefix + "w_1"));
  out->set("b_1", out_vector(ctx, p.b_1, prefix + "b_1"));
  out->set("w_2", out_matrix(ctx, p.W_2, prefix + "w_2"));
  out->set("b_2", out_vector(ctx, p.b_2, prefix + "b_2"));
}

}  // namespace

// ---------------------------------------------------------------- 2 the kind
bool eval_transformer_block(Fields& f, Value* out) {
  Ctx& ctx = f.ctx();
  ctx.main_input = f.path("x");
  if (!f.check_known({"kind", "x", "w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o", "ln1_gamma", "ln1_beta",
                      "ln2_gamma", "ln2_beta", "w_1", "b_1", "w_2", "b_2", "heads", "norm_first", "causal",
                      "activation", "eps", "grad_output"},
                     "kind \"transformer_block\""))
    return false;
  TransformerBlockDesc desc;
  TransformerBlockParams p;
  Mat X;
  if (!read_matrix(f, "x", &X)) return false;
  const long long n = X.rows(), d = X.cols();
  const std::string of_x = "d_model, the columns of x";

  // The attention projections: w = h d_h comes from w_q.
  if (!read_matrix(f, "w_q", &p.W_Q) || !expect_rows(f, "w_q", p.W_Q, d, of_x)) return false;
  const long long w = p.W_Q.cols();
  const std::string of_w_q = "h * d_h, the columns of w_q";
  if (!read_shaped(f, "w_k", d, of_x, w, of_w_q, &p.W_K) || !read_shaped(f, "w_v", d, of_x, w, of_w_q, &p.W_V) ||
      !read_shaped(f, "w_o", w, of_w_q, d, of_x, &p.W_O))
    return false;
  long long heads = 1;
  if (!read_integer(f, "heads", 1, w, 1, &heads, false)) return false;
  if (w % heads != 0)
    return ctx.fail(f.path("heads"), "expected a divisor of " + std::to_string(w) +
                                         " (the columns of w_q, h * d_h), got " + std::to_string(heads));
  desc.heads = int(heads);

  // The feed-forward layer: d_ff comes from w_1.
  if (!read_matrix(f, "w_1", &p.W_1) || !expect_rows(f, "w_1", p.W_1, d, of_x)) return false;
  const long long d_ff = p.W_1.cols();
  if (!read_shaped(f, "w_2", d_ff, "d_ff, the columns of w_1", d, of_x, &p.W_2)) return false;

  // Biases and the LayerNorms (optional).
  if (!read_optional_vector(f, "b_q", w, of_w_q, 0.0f, &p.b_Q) ||
      !read_optional_vector(f, "b_k", w, of_w_q, 0.0f, &p.b_K) ||
      !read_optional_vector(f, "b_v", w, of_w_q, 0.0f, &p.b_V) ||
      !read_optional_vector(f, "b_o", d, of_x, 0.0f, &p.b_O) ||
      !read_optional_vector(f, "ln1_gamma", d, of_x, 1.0f, &p.ln1_gamma) ||
      !read_optional_vector(f, "ln1_beta", d, of_x, 0.0f, &p.ln1_beta) ||
      !read_optional_vector(f, "ln2_gamma", d, of_x, 1.0f, &p.ln2_gamma) ||
      !read_optional_vector(f, "ln2_beta", d, of_x, 0.0f, &p.ln2_beta) ||
      !read_optional_vector(f, "b_1", d_ff, "d_ff, the columns of w_1", 0.0f, &p.b_1) ||
      !read_optional_vector(f, "b_2", d, of_x, 0.0f, &p.b_2))
    return false;

  // Settings.
  if (!read_bool(f, "norm_first", false, &desc.norm_first) || !read_bool(f, "causal", false, &desc.causal) ||
      !read_choice(f, "activation", {"relu", "gelu"}, Activation::relu, &desc.activation,
                   [](const std::string& s, Activation* a) { return parse_activation(s, a); }) ||
      !read_float(f, "eps", 1e-5f, &desc.eps, true))
    return false;

  // Limits: the weights (heads x n x n) and the FFN's hidden layer (n x d_ff);
  // the products Q, K, V (3 n d w), the scores and the weighted sums (2 n^2 w),
  // the output projection (n w d) and the two FFN layers (2 n d d_ff).
  if (!check_elements(ctx, f.path("x"), double(heads) * double(n) * double(n), "the weights (heads x n x n)") ||
      !check_elements(ctx, f.path("w_1"), double(n) * double(d_ff), "the hidden layer (n x d_ff)") ||
      !check_work(ctx, f.path("x"),
                  4.0 * n * d * w + 2.0 * n * n * w + 2.0 * n * d * d_ff,
                  "4 n d_model h d_h + 2 n^2 h d_h + 2 n d_model d_ff"))
    return false;
  Mat grad_output;
  bool want_grad = false;
  if (!read_grad_output(f, n, d, "output (n x d_model)", &grad_output, &want_grad)) return false;

  const TransformerBlockResult r = transformer_block_forward(X, desc, p);
  if (!r.ok()) return ctx.fail("", r.error);  // not reached when the checks above are complete
  ctx.warnings.insert(ctx.warnings.end(), r.warnings.begin(), r.warnings.end());

  Value head_list = Value::array();
  for (long long t = 0; t < heads; ++t) {
    Value h = Value::object();
    h.set("weights", out_matrix(ctx, r.attention.weights[std::size_t(t)],
                                "heads[" + std::to_string(t) + "].weights"));
    head_list.push(std::move(h));
  }
  out->set("heads", std::move(head_list));
  out->set("attention_output", out_matrix(ctx, r.attention_output, "attention_output"));
  out->set("h", out_matrix(ctx, r.mid, "h"));
  out->set("ffn_hidden", out_matrix(ctx, r.ffn.hidden, "ffn_hidden"));
  out->set("ffn_output", out_matrix(ctx, r.ffn.output, "ffn_output"));
  out->set("output", out_matrix(ctx, r.output, "output"));

  if (want_grad) {
    const TransformerBlockGrads g = transformer_block_backward(X, desc, p, r, grad_output);
    if (!g.ok()) return ctx.fail("grad_output", g.error);
    Value grad = Value::object();
    grad.set("x", out_matrix(ctx, g.dX, "grad.x"));
    write_params(ctx, g.params, "grad.", &grad);
    out->set("grad", std::move(grad));
  }
  return true;
}

}  // namespace attn::eval_detail
