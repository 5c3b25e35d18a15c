// eval_self_attention.cpp: kind "self_attention" of `attnlab eval` --
// multi-head self-attention with its projections, per-head scores and masks.
// Its fields are read and checked with the request's names through
// eval_fields.h, then the core computes; see docs/eval.md for the format.
#include <cmath>
#include <string>
#include <vector>

#include "attn/multihead.h"
#include "cli/eval_fields.h"

namespace attn::eval_detail {

bool eval_self_attention(Fields& f, Value* out) {
  Ctx& ctx = f.ctx();
  ctx.main_input = f.path("x");
  if (!f.check_known({"kind", "x", "w_q", "w_k", "w_v", "w_o", "heads", "score", "head_score", "temperature", "mask",
                      "grad_output"},
                     "kind \"self_attention\""))
    return false;
  MultiHeadDesc desc;
  MultiHeadParams params;
  Mat X;
  if (!read_matrix(f, "x", &X)) return false;
  const long long n = X.rows(), d_model = X.cols();
  if (!read_matrix(f, "w_q", &params.W_Q) || !expect_rows(f, "w_q", params.W_Q, d_model, "d_model, the columns of x"))
    return false;
  const long long width = params.W_Q.cols();  // h * d_h
  if (!read_matrix(f, "w_k", &params.W_K) || !expect_rows(f, "w_k", params.W_K, d_model, "d_model, the columns of x") ||
      !expect_cols(f, "w_k", params.W_K, width, "h * d_h, same as w_q") || !read_matrix(f, "w_v", &params.W_V) ||
      !expect_rows(f, "w_v", params.W_V, d_model, "d_model, the columns of x") ||
      !expect_cols(f, "w_v", params.W_V, width, "h * d_h, same as w_q"))
    return false;
  long long heads = 1;
  if (!read_integer(f, "heads", 1, width, 1, &heads, false)) return false;
  if (width % heads != 0)
    return ctx.fail(f.path("heads"), "expected a divisor of " + std::to_string(width) +
                                         " (the columns of w_q, h * d_h), got " + std::to_string(heads));
  desc.heads = int(heads);
  const long long d_h = width / heads;
  bool has_w_o = false;
  if (!read_optional_matrix(f, "w_o", &params.W_O, &has_w_o)) return false;
  if (has_w_o && !expect_rows(f, "w_o", params.W_O, width, "h * d_h, the columns of w_v")) return false;
  const long long d_out = has_w_o ? params.W_O.cols() : width;

  if (!read_choice(f, "score", kScoreNames, ScoreKind::scaled_dot, &desc.score, parse_score)) return false;
  if (desc.score == ScoreKind::general || desc.score == ScoreKind::additive) {
    // One set of score parameters per head, each over (d_h)-wide queries and keys.
    const Value* hs = f.require("head_score", "an array with one object per head (score \"" +
                                                  std::string(score_kind_name(desc.score)) + "\" has parameters)");
    if (!hs) return false;
    if (!hs->is_array() || (long long)hs->size() != heads)
      return ctx.fail(f.path("head_score"), "expected an array of " + count(heads, "object") + " (one per head), got " +
                                                (hs->is_array() ? std::to_string(hs->size()) + " items" : describe(*hs)));
    for (long long t = 0; t < heads; ++t) {
      const Value& item = hs->items()[std::size_t(t)];
      const std::string prefix = f.path("head_score") + "[" + std::to_string(t) + "]";
      if (!item.is_object()) return ctx.fail(prefix, "expected an object with the score parameters, got " + describe(item));
      Fields hf(ctx, item, prefix + ".");
      ScoreParams sp;
      if (desc.score == ScoreKind::general) {
        if (!hf.check_known({"w"}, "score \"general\"")) return false;
      } else if (!hf.check_known({"w_q", "w_k", "v_a"}, "score \"additive\"")) {
        return false;
      }
      const std::string head = "head " + std::to_string(t) + "'s ";
      if (!read_score_params(hf, desc.score, d_h, d_h, head + "q (d_h)", head + "k (d_h)", &sp)) return false;
      params.head_score.push_back(std::move(sp));
    }
  }
  if (!read_float(f, "temperature", 1.0f, &desc.temperature, true)) return false;
  // Per-head score parameters add their own products: general n d_h^2 + n^2 d_h,
  // additive (2 n d_h + n^2) d_a, which d_a can make far larger than the rest.
  double head_score_work = 0.0;
  for (const ScoreParams& sp : params.head_score) head_score_work += score_work(desc.score, n, n, d_h, d_h, sp);
  if (!check_elements(ctx, f.path("x"), double(heads) * double(n) * double(n), "the scores (heads x n x n)") ||
      !check_work(ctx, f.path("x"),
                  3.0 * n * d_model * width + 2.0 * n * n * width + (has_w_o ? double(n) * width * d_out : 0.0) +
                      head_score_work,
                  "3 n d_model h d_h + 2 n^2 h d_h (+ n h d_h d_out) (+ the heads' score products)"))
    return false;
  if (!read_mask(f, n, n, &desc.mask, &params.mask)) return false;
  Mat grad_output;
  bool want_grad = false;
  if (!read_grad_output(f, n, d_out, "output (n x d_out)", &grad_output, &want_grad)) return false;

  const MultiHeadResult r = self_attention_forward(X, desc, params);
  if (!r.ok()) return ctx.fail("", r.error);
  ctx.warnings.insert(ctx.warnings.end(), r.warnings.begin(), r.warnings.end());

  Value head_list = Value::array();
  for (long long t = 0; t < heads; ++t) {
    const std::size_t i = std::size_t(t);
    const std::string p = "heads[" + std::to_string(t) + "].";
    Value h = Value::object();
    h.set("q", out_matrix(ctx, r.q[i], p + "q"));
    h.set("k", out_matrix(ctx, r.k[i], p + "k"));
    h.set("v", out_matrix(ctx, r.v[i], p + "v"));
    h.set("scores", out_matrix(ctx, r.scores[i], p + "scores"));
    h.set("weights", out_matrix(ctx, r.weights[i], p + "weights"));
    h.set("output", out_matrix(ctx, r.head_output[i], p + "output"));
    head_list.push(std::move(h));
  }
  out->set("heads", std::move(head_list));
  out->set("concat", out_matrix(ctx, r.concat, "concat"));
  out->set("output", out_matrix(ctx, r.output, "output"));

  if (want_grad) {
    const MultiHeadGrads g = self_attention_backward(X, desc, params, r, grad_output);
    if (!g.ok()) return ctx.fail("grad_output", g.error);
    Value grad = Value::object();
    grad.set("x", out_matrix(ctx, g.dX, "grad.x"));
    grad.set("w_q", out_matrix(ctx, g.dW_Q, "grad.w_q"));
    grad.set("w_k", out_matrix(ctx, g.dW_K, "grad.w_k"));
    grad.set("w_v", out_matrix(ctx, g.dW_V, "grad.w_v"));
    if (has_w_o) grad.set("w_o", out_matrix(ctx, g.dW_O, "grad.w_o"));
    if (!params.head_score.empty()) {
      Value list = Value::array();
      for (std::size_t t = 0; t < g.head_score.size(); ++t) {
        const std::string p = "grad.head_score[" + std::to_string(t) + "].";
        Value h = Value::object();
        if (desc.score == ScoreKind::general) {
          h.set("w", out_matrix(ctx, g.head_score[t].dW, p + "w"));
        } else {
          h.set("w_q", out_matrix(ctx, g.head_score[t].dW_q, p + "w_q"));
          h.set("w_k", out_matrix(ctx, g.head_score[t].dW_k, p + "w_k"));
          h.set("v_a", out_vector(ctx, g.head_score[t].dv_a, p + "v_a"));
        }
        list.push(std::move(h));
      }
      grad.set("head_score", std::move(list));
    }
    out->set("grad", std::move(grad));
  }
  return true;
}

}  // namespace attn::eval_detail
