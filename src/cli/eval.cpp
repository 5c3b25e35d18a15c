// eval.cpp: request validation, four of the kinds, and the response
// (kind "transformer_block" is in eval_transformer.cpp; Ctx and Fields, which
// every kind uses, in eval_fields.h).
//
// Every field is read through one small reader that knows the field's path in
// the request, so an error can say exactly which field is wrong and what was
// expected. Shapes are checked here, with the request's names, before the core
// is called; the core's own checks stay as a second line of defence.
//
// Sections: 1 errors and limits, 2 reading fields (numbers, enums, matrices),
// 3 writing the response (non-finite values -> null + warning),
// 4 kind "attention", 5 kind "self_attention", 6 kind "positional",
// 7 kind "rnn", 8 eval_request.
#include "cli/eval.h"
#include "cli/eval_fields.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <vector>

#include "attn/attention.h"
#include "attn/multihead.h"
#include "attn/positional.h"
#include "attn/recurrent.h"
#include "base/json.h"
#include "base/tensor.h"

namespace attn {

namespace eval_detail {

using json::Value;

// ---------------------------------------------------------------- 1 errors and limits
// "1 column", "3 columns".
std::string count(long long n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// A short, one-line description of what the request held, for "got ...".
std::string describe(const Value& v) {
  switch (v.type()) {
    case json::Type::Null: return "null";
    case json::Type::Bool: return v.as_bool() ? "true" : "false";
    case json::Type::Number: return json::format_number(v.as_number(), json::NumberStyle::Float64);
    case json::Type::String: {
      const std::string& s = v.as_string();
      return s.size() <= 40 ? json::quote(s) : json::quote(s.substr(0, 40)) + "...";
    }
    case json::Type::Array: return v.size() == 0 ? "[] (an empty array)" : "an array";
    case json::Type::Object: return "an object";
  }
  return "?";
}

// ---------------------------------------------------------------- 2 reading fields
// A JSON number as a finite float32 (JSON itself cannot hold NaN or infinity,
// but 1e39 is a valid JSON number that overflows float32).
bool to_float(Ctx& ctx, const Value& v, const std::string& path, float* out) {
  if (!v.is_number()) return ctx.fail(path, "expected a number, got " + describe(v));
  const double x = v.as_number();
  const float f = float(x);
  if (!std::isfinite(f)) {
    return ctx.fail(path, "expected a finite float32 number (magnitude below 3.4e+38), got " + describe(v));
  }
  *out = f;
  return true;
}

// Optional number field (fallback when absent); `positive` requires > 0.
bool read_float(Fields& f, const std::string& name, float fallback, float* out, bool positive) {
  *out = fallback;
  const Value* v = f.get(name);
  if (!v) return true;
  if (!to_float(f.ctx(), *v, f.path(name), out)) return false;
  if (positive && !(*out > 0.0f)) return f.ctx().fail(f.path(name), "expected a number > 0, got " + describe(*v));
  return true;
}

// Whole numbers in [lo, hi] (heads, n, d, window, seed).
bool to_integer(Ctx& ctx, const Value& v, const std::string& path, long long lo, long long hi, long long* out) {
  const std::string range = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (!v.is_number()) return ctx.fail(path, "expected " + range + ", got " + describe(v));
  const double x = v.as_number();
  if (x != std::floor(x) || x < double(lo) || x > double(hi))
    return ctx.fail(path, "expected " + range + ", got " + describe(v));
  *out = (long long)x;
  return true;
}

bool read_integer(Fields& f, const std::string& name, long long lo, long long hi, long long fallback,
                  long long* out, bool required) {
  *out = fallback;
  const Value* v = required ? f.require(name, "a whole number from " + std::to_string(lo) + " to " +
                                                  std::to_string(hi))
                            : f.get(name);
  if (!v) return !required;
  return to_integer(f.ctx(), *v, f.path(name), lo, hi, out);
}

bool read_bool(Fields& f, const std::string& name, bool fallback, bool* out) {
  *out = fallback;
  const Value* v = f.get(name);
  if (!v) return true;
  if (!v->is_bool()) return f.ctx().fail(f.path(name), "expected true or false, got " + describe(*v));
  *out = v->as_bool();
  return true;
}

// Arrays of rows of numbers. Sizes are checked against the limits before
// anything is allocated.
bool to_matrix(Ctx& ctx, const Value& v, const std::string& path, Mat* out) {
  if (!v.is_array()) return ctx.fail(path, "expected a matrix (an array of rows), got " + describe(v));
  const auto& rows = v.items();
  if (rows.empty()) return ctx.fail(path, "expected a matrix with at least one row, got []");
  if (!rows[0].is_array()) {
    if (rows[0].is_number())
      return ctx.fail(path, "expected a matrix (an array of rows), got an array of numbers; write one row as [[...]]");
    return ctx.fail(path + "[0]", "expected a row (an array of numbers), got " + describe(rows[0]));
  }
  const long long n_rows = (long long)rows.size();
  const long long n_cols = (long long)rows[0].size();
  if (n_rows > ctx.limits.max_rows)
    return ctx.fail(path, "expected at most " + std::to_string(ctx.limits.max_rows) + " rows, got " +
                              std::to_string(n_rows));
  if (n_cols == 0) return ctx.fail(path + "[0]", "expected a row with at least one number, got []");
  if (n_rows * n_cols > ctx.limits.max_elements)
    return ctx.fail(path, "expected at most " + std::to_string(ctx.limits.max_elements) + " numbers, got " +
                              std::to_string(n_rows) + " x " + std::to_string(n_cols));
  Mat m(n_rows, n_cols);
  for (long long r = 0; r < n_rows; ++r) {
    const Value& row = rows[std::size_t(r)];
    const std::string row_path = path + "[" + std::to_string(r) + "]";
    if (!row.is_array()) return ctx.fail(row_path, "expected a row (an array of numbers), got " + describe(row));
    if ((long long)row.size() != n_cols)
      return ctx.fail(row_path, "expected " + count(n_cols, "number") + " (like row 0), got " +
                                    std::to_string(row.size()));
    for (long long c = 0; c < n_cols; ++c) {
      const std::string cell = row_path + "[" + std::to_string(c) + "]";
      if (!to_float(ctx, row.items()[std::size_t(c)], cell, &m(r, c))) return false;
    }
  }
  *out = std::move(m);
  return true;
}

bool to_vector(Ctx& ctx, const Value& v, const std::string& path, Vec* out) {
  if (!v.is_array()) return ctx.fail(path, "expected a vector (an array of numbers), got " + describe(v));
  const long long n = (long long)v.size();
  if (n == 0) return ctx.fail(path, "expected a vector with at least one number, got []");
  if (n > ctx.limits.max_elements)
    return ctx.fail(path, "expected at most " + std::to_string(ctx.limits.max_elements) + " numbers, got " +
                              std::to_string(n));
  Vec x(n);
  for (long long i = 0; i < n; ++i)
    if (!to_float(ctx, v.items()[std::size_t(i)], path + "[" + std::to_string(i) + "]", &x[i])) return false;
  *out = std::move(x);
  return true;
}

bool read_matrix(Fields& f, const std::string& name, Mat* out) {
  const Value* v = f.require(name, "a matrix (an array of rows)");
  return v && to_matrix(f.ctx(), *v, f.path(name), out);
}

// Optional matrix; *present says whether the request had it.
bool read_optional_matrix(Fields& f, const std::string& name, Mat* out, bool* present) {
  const Value* v = f.get(name);
  *present = v != nullptr;
  return !v || to_matrix(f.ctx(), *v, f.path(name), out);
}

bool read_vector(Fields& f, const std::string& name, Vec* out) {
  const Value* v = f.require(name, "a vector (an array of numbers)");
  return v && to_vector(f.ctx(), *v, f.path(name), out);
}

// Shape checks with the request's names: `why` says where the expected size
// comes from, e.g. "same as q".
bool expect_rows(Fields& f, const std::string& name, const Mat& m, long long rows, const std::string& why) {
  if (m.rows() == rows) return true;
  return f.ctx().fail(f.path(name), "expected " + count(rows, "row") + " (" + why + "), got " +
                                        std::to_string(m.rows()));
}

bool expect_cols(Fields& f, const std::string& name, const Mat& m, long long cols, const std::string& why) {
  if (m.cols() == cols) return true;
  return f.ctx().fail(f.path(name), "expected " + count(cols, "column") + " (" + why + "), got " +
                                        std::to_string(m.cols()));
}

bool expect_size(Fields& f, const std::string& name, const Vec& v, long long n, const std::string& why) {
  if (v.size() == n) return true;
  return f.ctx().fail(f.path(name), "expected " + count(n, "number") + " (" + why + "), got " +
                                        std::to_string(v.size()));
}

// "mask": "none", "causal" or an (n_q, n_k) array of booleans.
bool read_mask(Fields& f, long long n_q, long long n_k, MaskKind* kind, BoolMat* allowed) {
  *kind = MaskKind::none;
  const Value* v = f.get("mask");
  if (!v) return true;
  const std::string path = f.path("mask");
  const std::string expected = "\"none\", \"causal\" or a " + std::to_string(n_q) + " x " + std::to_string(n_k) +
                               " array of rows of booleans (n_q x n_k)";
  if (v->is_string()) {
    if (v->as_string() == "none") return true;
    if (v->as_string() == "causal") {
      *kind = MaskKind::causal;
      return true;
    }
    return f.ctx().fail(path, "expected " + expected + ", got " + describe(*v));
  }
  if (!v->is_array() || v->size() == 0 || !v->items()[0].is_array())
    return f.ctx().fail(path, "expected " + expected + ", got " + describe(*v));
  if ((long long)v->size() != n_q)
    return f.ctx().fail(path, "expected " + count(n_q, "row") + " (one per query), got " + std::to_string(v->size()));
  BoolMat m(n_q, n_k);
  for (long long i = 0; i < n_q; ++i) {
    const Value& row = v->items()[std::size_t(i)];
    const std::string row_path = path + "[" + std::to_string(i) + "]";
    if (!row.is_array()) return f.ctx().fail(row_path, "expected an array of booleans, got " + describe(row));
    if ((long long)row.size() != n_k)
      return f.ctx().fail(row_path, "expected " + count(n_k, "boolean") + " (one per key), got " +
                                        std::to_string(row.size()));
    for (long long j = 0; j < n_k; ++j) {
      const Value& b = row.items()[std::size_t(j)];
      if (!b.is_bool())
        return f.ctx().fail(row_path + "[" + std::to_string(j) + "]", "expected true or false, got " + describe(b));
      m(i, j) = b.as_bool();
    }
  }
  *kind = MaskKind::explicit_mask;
  *allowed = std::move(m);
  return true;
}

// Refuses requests whose main products would take too long.
bool check_work(Ctx& ctx, const std::string& field, double work, const std::string& formula) {
  if (work <= double(ctx.limits.max_work)) return true;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", work);
  return ctx.fail(field, "request too large: " + formula + " = " + buf + " multiply-adds, more than the limit of " +
                             std::to_string(ctx.limits.max_work));
}

bool check_elements(Ctx& ctx, const std::string& field, double elements, const std::string& what) {
  if (elements <= double(ctx.limits.max_elements)) return true;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", elements);
  return ctx.fail(field, "request too large: " + what + " would have " + buf + " numbers, more than the limit of " +
                             std::to_string(ctx.limits.max_elements));
}

// ---------------------------------------------------------------- 3 writing the response
// Matrices and vectors as JSON; a non-finite entry is written as null and named
// in a warning (one per output field) so it cannot pass unnoticed.
// Counts the numbers of the response; false (and an error) past the limit, so a
// request that computes quickly but would print for minutes is refused too.
bool reserve_numbers(Ctx& ctx, long long n) {
  ctx.response_numbers += n;
  if (ctx.response_numbers <= ctx.limits.max_response_numbers) return true;
  return ctx.fail(ctx.main_input, "request too large: the response would hold more than " +
                                      std::to_string(ctx.limits.max_response_numbers) +
                                      " numbers (every intermediate is listed; use fewer rows, columns or heads)");
}

void note_non_finite(Ctx& ctx, const std::string& path, long long bad, const std::string& first) {
  if (bad == 0) return;
  ctx.warnings.push_back(path + first + (bad > 1 ? " and " + std::to_string(bad - 1) + " more" : "") +
                         (bad > 1 ? " are" : " is") + " not finite (written as null)");
}

Value out_matrix(Ctx& ctx, const Mat& m, const std::string& path) {
  Value rows = Value::array();
  if (!reserve_numbers(ctx, m.size())) return rows;
  long long bad = 0;
  std::string first;
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    Value row = Value::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      const float x = m(r, c);
      if (!std::isfinite(x) && bad++ == 0) first = "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
      row.push(x);
    }
    rows.push(std::move(row));
  }
  note_non_finite(ctx, path, bad, first);
  return rows;
}

Value out_vector(Ctx& ctx, const Vec& v, const std::string& path) {
  Value a = Value::array();
  if (!reserve_numbers(ctx, v.size())) return a;
  long long bad = 0;
  std::string first;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i]) && bad++ == 0) first = "[" + std::to_string(i) + "]";
    a.push(v[i]);
  }
  note_non_finite(ctx, path, bad, first);
  return a;
}

// "grad_output": the shape of the main output (n_rows, n_cols).
bool read_grad_output(Fields& f, long long n_rows, long long n_cols, const std::string& output_name, Mat* out,
                      bool* present) {
  if (!read_optional_matrix(f, "grad_output", out, present)) return false;
  if (!*present) return true;
  return expect_rows(f, "grad_output", *out, n_rows, "the rows of " + output_name) &&
         expect_cols(f, "grad_output", *out, n_cols, "the columns of " + output_name);
}

// ---------------------------------------------------------------- 4 kind "attention"
// Score-function parameters for one (Q, K) pair; shared by "attention" and the
// per-head "head_score" objects of "self_attention".
bool read_score_params(Fields& f, ScoreKind kind, long long d_q, long long d_k, const std::string& q_name,
                       const std::string& k_name, ScoreParams* p) {
  if (kind == ScoreKind::general) {
    return read_matrix(f, "w", &p->W) && expect_rows(f, "w", p->W, d_q, "d_q, the columns of " + q_name) &&
           expect_cols(f, "w", p->W, d_k, "d_k, the columns of " + k_name);
  }
  if (kind == ScoreKind::additive) {
    return read_matrix(f, "w_q", &p->W_q) && expect_rows(f, "w_q", p->W_q, d_q, "d_q, the columns of " + q_name) &&
           read_matrix(f, "w_k", &p->W_k) && expect_rows(f, "w_k", p->W_k, d_k, "d_k, the columns of " + k_name) &&
           expect_cols(f, "w_k", p->W_k, p->W_q.cols(), "d_a, same as w_q") && read_vector(f, "v_a", &p->v_a) &&
           expect_size(f, "v_a", p->v_a, p->W_q.cols(), "d_a, the columns of w_q");
  }
  return true;
}

bool score_needs_same_width(ScoreKind kind) {
  return kind == ScoreKind::dot || kind == ScoreKind::scaled_dot || kind == ScoreKind::cosine;
}

const std::initializer_list<const char*> kScoreNames = {"dot", "scaled_dot", "general", "additive", "cosine"};

bool parse_score(const std::string& s, ScoreKind* k) { return parse_score_kind(s, k); }

// Approximate multiply-adds of the scoring function (for the work limit).
double score_work(ScoreKind kind, double n_q, double n_k, double d_q, double d_k, const ScoreParams& p) {
  if (kind == ScoreKind::general) return n_q * d_q * d_k + n_q * n_k * d_k;
  if (kind == ScoreKind::additive) {
    const double d_a = double(p.W_q.cols());
    return (n_q * d_q + n_k * d_k) * d_a + n_q * n_k * d_a;
  }
  return n_q * n_k * d_q;
}

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

// ---------------------------------------------------------------- 5 kind "self_attention"
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

// ---------------------------------------------------------------- 6 kind "positional"
bool eval_positional(Fields& f, Value* out) {
  Ctx& ctx = f.ctx();
  ctx.main_input = f.path("n");
  if (!f.check_known({"kind", "n", "d", "layout", "base", "x", "combine", "grad_output"}, "kind \"positional\""))
    return false;
  PositionalDesc desc;
  long long n = 0, d = 0;
  if (!read_integer(f, "n", 1, ctx.limits.max_rows, 0, &n, true) ||
      !read_integer(f, "d", 1, ctx.limits.max_elements, 0, &d, true))
    return false;
  if (!check_elements(ctx, f.path("d"), double(n) * double(d), "pe (n x d)")) return false;
  desc.n = int(n);
  desc.d = int(d);
  if (!read_choice(f, "layout", {"interleaved", "split"}, PositionalLayout::interleaved, &desc.layout,
                   [](const std::string& s, PositionalLayout* l) { return parse_positional_layout(s, l); }) ||
      !read_float(f, "base", 10000.0f, &desc.base, true))
    return false;
  Mat X;
  bool has_x = false;
  CombineKind combine = CombineKind::sum;
  if (!read_optional_matrix(f, "x", &X, &has_x)) return false;
  if (has_x) {
    if (!read_choice(f, "combine", {"sum", "concat"}, CombineKind::sum, &combine,
                     [](const std::string& s, CombineKind* k) { return parse_combine_kind(s, k); }) ||
        !expect_rows(f, "x", X, n, "n, one per position"))
      return false;
    if (combine == CombineKind::sum && !expect_cols(f, "x", X, d, "d, for combine \"sum\"")) return false;
    if (!check_elements(ctx, f.path("x"), double(n) * double(X.cols() + d), "output (n x (d_x + d))")) return false;
  }
  const long long out_cols = !has_x ? d : (combine == CombineKind::sum ? d : X.cols() + d);
  Mat grad_output;
  bool want_grad = false;
  if (!read_grad_output(f, n, out_cols, has_x ? "output" : "pe", &grad_output, &want_grad)) return false;

  std::string error;
  const Mat PE = sinusoidal_encoding(desc, &error);  // (n, d)
  if (!error.empty()) return ctx.fail("", error);
  out->set("pe", out_matrix(ctx, PE, "pe"));
  if (has_x) {
    const Mat combined = combine_positional(X, PE, combine, &error);
    if (!error.empty()) return ctx.fail(f.path("x"), error);
    out->set("output", out_matrix(ctx, combined, "output"));
  }
  if (want_grad) {
    Value grad = Value::object();
    if (has_x) {
      grad.set("x", out_matrix(ctx, combine_positional_backward(grad_output, int(X.cols()), combine), "grad.x"));
    } else {
      ctx.warnings.push_back("pe is a fixed table with no differentiable input, so grad is empty (give x to get grad.x)");
    }
    out->set("grad", std::move(grad));
  }
  return true;
}

// ---------------------------------------------------------------- 7 kind "rnn"
// One direction's weights, in PyTorch's shapes: w_ih (G*H, d_in), w_hh (G*H, H),
// b_ih and b_hh (G*H; optional, zero when absent). H comes from w_hh's columns;
// `expected_H` (> 0) pins it to the forward direction's.
bool read_rnn_weights(Fields& f, CellKind cell, long long d_in, long long expected_H, RnnWeights* w,
                      bool* has_b_ih, bool* has_b_hh) {
  const long long G = gate_count(cell);
  const std::string cell_name = cell_kind_name(cell);
  const char* blocks = cell == CellKind::lstm ? ": gate blocks i, f, g, o" : cell == CellKind::gru ? ": gate blocks r, z, n" : "";
  if (!read_matrix(f, "w_hh", &w->w_hh)) return false;
  if (expected_H > 0 && !expect_cols(f, "w_hh", w->w_hh, expected_H, "H, same as the forward w_hh")) return false;
  const long long H = w->w_hh.cols();
  const std::string gh = std::to_string(G) + " x H = " + std::to_string(G) + " x " + std::to_string(H) + " for " +
                         cell_name + blocks;
  if (!expect_rows(f, "w_hh", w->w_hh, G * H, gh)) return false;
  if (!read_matrix(f, "w_ih", &w->w_ih) || !expect_rows(f, "w_ih", w->w_ih, G * H, gh) ||
      !expect_cols(f, "w_ih", w->w_ih, d_in, "d_in, the columns of x"))
    return false;
  const Value* b_ih = f.get("b_ih");
  const Value* b_hh = f.get("b_hh");
  *has_b_ih = b_ih != nullptr;
  *has_b_hh = b_hh != nullptr;
  w->b_ih = Vec::Zero(G * H);
  w->b_hh = Vec::Zero(G * H);
  if (b_ih && (!to_vector(f.ctx(), *b_ih, f.path("b_ih"), &w->b_ih) ||
               !expect_size(f, "b_ih", w->b_ih, G * H, gh)))
    return false;
  if (b_hh && (!to_vector(f.ctx(), *b_hh, f.path("b_hh"), &w->b_hh) ||
               !expect_size(f, "b_hh", w->b_hh, G * H, gh)))
    return false;
  return true;
}

// h0 / c0: a (D, H) matrix, or for one direction also a plain vector of H.
// *as_vector remembers the form so the gradient is written back the same way.
bool read_state(Fields& f, const std::string& name, long long D, long long H, Mat* out, bool* present,
                bool* as_vector) {
  const Value* v = f.get(name);
  *present = v != nullptr;
  *as_vector = false;
  if (!v) return true;
  if (D == 1 && v->is_array() && v->size() > 0 && v->items()[0].is_number()) {
    Vec x;
    if (!to_vector(f.ctx(), *v, f.path(name), &x) || !expect_size(f, name, x, H, "H, the columns of w_hh"))
      return false;
    *out = x.transpose();  // (1, H)
    *as_vector = true;
    return true;
  }
  return to_matrix(f.ctx(), *v, f.path(name), out) &&
         expect_rows(f, name, *out, D, D == 1 ? "one per direction" : "one per direction: forward, reverse") &&
         expect_cols(f, name, *out, H, "H, the columns of w_hh");
}

Value out_state(Ctx& ctx, const Mat& m, bool as_vector, const std::string& path) {
  if (as_vector) return out_vector(ctx, m.row(0).transpose(), path);
  return out_matrix(ctx, m, path);
}

Value out_weight_grads(Ctx& ctx, const RnnWeights& g, bool has_b_ih, bool has_b_hh, const std::string& prefix) {
  Value grad = Value::object();
  grad.set("w_ih", out_matrix(ctx, g.w_ih, prefix + "w_ih"));
  grad.set("w_hh", out_matrix(ctx, g.w_hh, prefix + "w_hh"));
  if (has_b_ih) grad.set("b_ih", out_vector(ctx, g.b_ih, prefix + "b_ih"));
  if (has_b_hh) grad.set("b_hh", out_vector(ctx, g.b_hh, prefix + "b_hh"));
  return grad;
}

bool eval_rnn(Fields& f, Value* out) {
  Ctx& ctx = f.ctx();
  ctx.main_input = f.path("x");
  if (!f.check_known({"kind", "cell", "x", "w_ih", "w_hh", "b_ih", "b_hh", "h0", "c0", "bidirectional", "reverse",
                      "grad_output"},
                     "kind \"rnn\""))
    return false;
  RnnDesc desc;
  RnnParams params;
  if (!read_choice(f, "cell", {"rnn_tanh", "lstm", "gru"}, CellKind::rnn_tanh, &desc.cell,
                   [](const std::string& s, CellKind* c) { return parse_cell_kind(s, *c); }, true))
    return false;
  Mat X;
  if (!read_matrix(f, "x", &X)) return false;
  const long long T = X.rows(), d_in = X.cols();
  bool fwd_b_ih = false, fwd_b_hh = false, rev_b_ih = false, rev_b_hh = false;
  if (!read_rnn_weights(f, desc.cell, d_in, 0, &params.forward, &fwd_b_ih, &fwd_b_hh)) return false;
  const long long H = params.forward.w_hh.cols();
  if (!read_bool(f, "bidirectional", false, &desc.bidirectional)) return false;
  if (desc.bidirectional) {
    const Value* rev = f.require("reverse", "an object with w_ih, w_hh, b_ih, b_hh (bidirectional is true)");
    if (!rev) return false;
    if (!rev->is_object())
      return ctx.fail(f.path("reverse"), "expected an object with w_ih, w_hh, b_ih, b_hh, got " + describe(*rev));
    Fields rf(ctx, *rev, f.path("reverse") + ".");
    if (!rf.check_known({"w_ih", "w_hh", "b_ih", "b_hh"}, "\"reverse\"") ||
        !read_rnn_weights(rf, desc.cell, d_in, H, &params.reverse, &rev_b_ih, &rev_b_hh))
      return false;
  }
  const long long D = desc.bidirectional ? 2 : 1;
  const long long G = gate_count(desc.cell);
  if (!check_elements(ctx, f.path("x"), double(T) * double(D * H), "h (T x D*H)") ||
      !check_work(ctx, f.path("x"), double(T) * D * G * H * double(d_in + H), "T * D * G*H * (d_in + H)"))
    return false;
  Mat h0, c0;
  bool has_h0 = false, has_c0 = false, h0_vec = false, c0_vec = false;
  if (!read_state(f, "h0", D, H, &h0, &has_h0, &h0_vec)) return false;
  if (desc.cell == CellKind::lstm && !read_state(f, "c0", D, H, &c0, &has_c0, &c0_vec)) return false;
  Mat grad_output;
  bool want_grad = false;
  if (!read_grad_output(f, T, D * H, "h (T x D*H)", &grad_output, &want_grad)) return false;

  const RnnResult r = rnn_forward(desc, params, X, h0, c0);
  if (!r.error.empty()) return ctx.fail("", r.error);
  out->set("h", out_matrix(ctx, r.h, "h"));
  out->set("h_n", out_matrix(ctx, r.h_n, "h_n"));
  if (desc.cell == CellKind::lstm) out->set("c_n", out_matrix(ctx, r.c_n, "c_n"));

  if (want_grad) {
    RnnOutputGrads og;
    og.h = grad_output;
    const RnnGrads g = rnn_backward(desc, params, r, og);
    if (!g.error.empty()) return ctx.fail("grad_output", g.error);
    Value grad = out_weight_grads(ctx, g.forward, fwd_b_ih, fwd_b_hh, "grad.");
    // x and the initial states first, then the weights, as in the request.
    Value ordered = Value::object();
    ordered.set("x", out_matrix(ctx, g.x, "grad.x"));
    if (has_h0) ordered.set("h0", out_state(ctx, g.h0, h0_vec, "grad.h0"));
    if (has_c0) ordered.set("c0", out_state(ctx, g.c0, c0_vec, "grad.c0"));
    for (const json::Member& m : grad.members()) ordered.set(m.key, m.value);
    if (desc.bidirectional)
      ordered.set("reverse", out_weight_grads(ctx, g.reverse, rev_b_ih, rev_b_hh, "grad.reverse."));
    out->set("grad", std::move(ordered));
  }
  return true;
}

}  // namespace eval_detail

using namespace eval_detail;

// ---------------------------------------------------------------- 8 eval_request
std::string EvalResult::error_line() const {
  if (ok) return "";
  std::string line = error.field.empty() ? error.message : "field " + json::quote(error.field) + ": " + error.message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';  // the CLI promises exactly one line
  return line;
}

EvalResult eval_request(std::string_view json_text, const EvalOptions& options) {
  EvalResult result;
  json::ParseLimits parse_limits;
  parse_limits.max_bytes = options.limits.max_bytes;
  const json::ParseResult parsed = json::parse(json_text, parse_limits);
  if (!parsed.ok) {
    result.error = EvalError{"", "invalid JSON: " + parsed.error.to_string()};
    return result;
  }
  const Value& request = parsed.value;
  if (!request.is_object()) {
    result.error = EvalError{"", "expected a JSON object with a \"kind\" field, got " + describe(request)};
    return result;
  }

  Ctx ctx(options.limits);
  Fields fields(ctx, request, "");
  const char* kinds = "\"attention\", \"self_attention\", \"positional\", \"rnn\" or \"transformer_block\"";
  const Value* kind = fields.get("kind");
  Value response = Value::object();
  if (!kind) {
    ctx.fail("kind", std::string("missing; expected ") + kinds);
  } else if (!kind->is_string()) {
    ctx.fail("kind", std::string("expected ") + kinds + ", got " + describe(*kind));
  } else {
    const std::string& k = kind->as_string();
    response.set("kind", k);
    if (k == "attention") eval_attention(fields, &response);
    else if (k == "self_attention") eval_self_attention(fields, &response);
    else if (k == "positional") eval_positional(fields, &response);
    else if (k == "rnn") eval_rnn(fields, &response);
    else if (k == "transformer_block") eval_transformer_block(fields, &response);
    else ctx.fail("kind", std::string("expected ") + kinds + ", got " + describe(*kind));
  }
  if (ctx.failed) {
    result.error = ctx.error;
    return result;
  }
  fields.warn_unused();
  Value warnings = Value::array();
  for (const std::string& w : ctx.warnings) warnings.push(w);
  response.set("warnings", std::move(warnings));

  json::WriteOptions write_options;
  write_options.pretty = options.pretty;
  result.response = json::write(response, write_options);
  if (options.pretty) result.response += '\n';
  result.ok = true;
  result.exit_status = 0;
  return result;
}

}  // namespace attn
