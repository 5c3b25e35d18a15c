// eval_attention.cpp: kind "attention" of `attnlab eval` -- one query set
// against one key/value set, with any score function, mask and form (soft,
// hard, local, Gumbel).
// Its fields are read and checked with the request's names through
// eval_fields.h, then the core computes; see docs/eval.md for the format.
#include <cmath>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "cli/eval_fields.h"

namespace attn::eval_detail {

bool eval_attention(Fields& f, Value* out) {
  Ctx& ctx = f.ctx();
  ctx.main_input = f.path("q");
  if (!f.check_known({"kind", "q", "k", "v", "score", "w", "w_q", "w_k", "v_a", "temperature", "mask", "mode",
                      "hard", "seed", "window", "center", "w_p", "v_p", "gumbel_tau", "grad_output"},
                     "kind \"attention\""))
    return false;
  Mat Q, K, V;
  if (!read_matrix(f, "q", &Q) || !read_matrix(f, "k", &K) || !read_matrix(f, "v", &V)) return false;
  const long long n_q = Q.rows(), n_k = K.rows(), d_q = Q.cols(), d_k = K.cols(), d_v = V.cols();
  if (!expect_rows(f, "v", V, n_k, "one per key: same as k")) return false;

  AttentionDesc desc;
  AttentionParams params;
  if (!read_choice(f, "score", kScoreNames, ScoreKind::scaled_dot, &desc.score, parse_score)) return false;
  if (score_needs_same_width(desc.score) &&
      !expect_cols(f, "k", K, d_q, std::string("same as q, for score \"") + score_kind_name(desc.score) + "\""))
    return false;
  ScoreParams sp;
  if (!read_score_params(f, desc.score, d_q, d_k, "q", "k", &sp)) return false;
  params.W = sp.W;
  params.W_q = sp.W_q;
  params.W_k = sp.W_k;
  params.v_a = sp.v_a;
  if (!read_float(f, "temperature", 1.0f, &desc.temperature, true)) return false;
  if (!check_elements(ctx, f.path("k"), double(n_q) * double(n_k), "the scores (n_q x n_k)") ||
      !check_work(ctx, f.path("q"), score_work(desc.score, n_q, n_k, d_q, d_k, sp) + double(n_q) * n_k * d_v,
                  "scoring plus n_q * n_k * d_v"))
    return false;
  if (!read_mask(f, n_q, n_k, &desc.mask, &params.mask)) return false;

  if (!read_choice(f, "mode", {"soft", "hard", "local", "gumbel"}, Mode::soft, &desc.mode,
                   [](const std::string& s, Mode* m) { return parse_mode(s, m); }))
    return false;
  long long seed = 0, window = 2;
  if (desc.mode == Mode::hard) {
    if (!read_choice(f, "hard", {"argmax", "sample"}, HardKind::argmax, &desc.hard,
                     [](const std::string& s, HardKind* k) { return parse_hard_kind(s, k); }))
      return false;
    if (desc.hard == HardKind::sample && !read_integer(f, "seed", 0, 9007199254740992ll, 0, &seed, false))
      return false;
  } else if (desc.mode == Mode::gumbel) {
    if (!read_float(f, "gumbel_tau", 1.0f, &desc.gumbel_tau, true) ||
        !read_integer(f, "seed", 0, 9007199254740992ll, 0, &seed, false))
      return false;
  } else if (desc.mode == Mode::local) {
    if (!read_choice(f, "center", {"monotonic", "predictive"}, CenterKind::monotonic, &desc.center,
                     [](const std::string& s, CenterKind* k) { return parse_center_kind(s, k); }))
      return false;
    const long long min_window = desc.center == CenterKind::predictive ? 1 : 0;
    if (!read_integer(f, "window", min_window, 1 << 20, 2, &window, false)) return false;
    if (desc.center == CenterKind::predictive) {
      if (!read_matrix(f, "w_p", &params.W_p) ||
          !expect_rows(f, "w_p", params.W_p, d_q, "d_q, the columns of q") || !read_vector(f, "v_p", &params.v_p) ||
          !expect_size(f, "v_p", params.v_p, params.W_p.cols(), "d_p, the columns of w_p"))
        return false;
      // The centres need tanh(q W_p) v_p: an (n_q, d_p) intermediate and n_q d_q d_p work.
      const double d_p = double(params.W_p.cols());
      if (!check_elements(ctx, f.path("w_p"), double(n_q) * d_p, "tanh(q w_p) (n_q x d_p)") ||
          !check_work(ctx, f.path("w_p"),
                      score_work(desc.score, n_q, n_k, d_q, d_k, sp) + double(n_q) * n_k * d_v + double(n_q) * d_q * d_p +
                          double(n_q) * d_p,
                      "scoring plus n_q * n_k * d_v plus n_q * d_q * d_p + n_q * d_p"))
        return false;
    }
  }
  desc.seed = uint64_t(seed);
  desc.window = int(window);

  Mat grad_output;
  bool want_grad = false;
  if (!read_grad_output(f, n_q, d_v, "output (n_q x d_v)", &grad_output, &want_grad)) return false;

  const AttentionResult r = attention_forward(Q, K, V, desc, params);
  if (!r.ok()) return ctx.fail("", r.error);  // not reached when the checks above are complete
  ctx.warnings.insert(ctx.warnings.end(), r.warnings.begin(), r.warnings.end());

  out->set("scores", out_matrix(ctx, r.scores, "scores"));
  out->set("weights", out_matrix(ctx, r.weights, "weights"));
  out->set("output", out_matrix(ctx, r.output, "output"));
  if (desc.mode == Mode::local) out->set("centers", out_vector(ctx, r.centers, "centers"));
  if (desc.mode == Mode::gumbel) out->set("gumbel_noise", out_matrix(ctx, r.gumbel_noise, "gumbel_noise"));

  if (want_grad) {
    const AttentionGrads g = attention_backward(Q, K, V, desc, params, r, grad_output);
    if (!g.ok()) return ctx.fail("grad_output", g.error);
    Value grad = Value::object();
    grad.set("q", out_matrix(ctx, g.dQ, "grad.q"));
    grad.set("k", out_matrix(ctx, g.dK, "grad.k"));
    grad.set("v", out_matrix(ctx, g.dV, "grad.v"));
    if (desc.score == ScoreKind::general) grad.set("w", out_matrix(ctx, g.dW, "grad.w"));
    if (desc.score == ScoreKind::additive) {
      grad.set("w_q", out_matrix(ctx, g.dW_q, "grad.w_q"));
      grad.set("w_k", out_matrix(ctx, g.dW_k, "grad.w_k"));
      grad.set("v_a", out_vector(ctx, g.dv_a, "grad.v_a"));
    }
    if (desc.mode == Mode::local && desc.center == CenterKind::predictive) {
      grad.set("w_p", out_matrix(ctx, g.dW_p, "grad.w_p"));
      grad.set("v_p", out_vector(ctx, g.dv_p, "grad.v_p"));
    }
    if (desc.mode == Mode::hard)
      ctx.warnings.push_back("mode \"hard\" picks one key per query, a step function of the scores: grad.q, grad.k "
                             "and the score parameters' gradients are zero (only grad.v is informative)");
    out->set("grad", std::move(grad));
  }
  return true;
}

}  // namespace attn::eval_detail
