// eval_fields.cpp: what every kind of `attnlab eval` shares (declared in
// eval_fields.h).
//
// Every field is read through one small reader that knows the field's path in
// the request, so an error can say exactly which field is wrong and what was
// expected. Shapes are checked with the request's names before the core is
// called; the core's own checks stay as a second line of defence.
//
// Sections: 1 errors and limits, 2 reading fields (numbers, enums, matrices),
// 3 writing the response (non-finite values -> null + warning), 4 score
// functions (kinds "attention" and "self_attention").
#include "cli/eval_fields.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <vector>

#include "attn/attention.h"
#include "base/json.h"
#include "base/tensor.h"

namespace attn::eval_detail {

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

Value out_number(Ctx& ctx, float x, const std::string& path) {
  if (!reserve_numbers(ctx, 1)) return Value();
  note_non_finite(ctx, path, std::isfinite(x) ? 0 : 1, "");
  return Value(x);
}

// "grad_output": the shape of the main output (n_rows, n_cols).
bool read_grad_output(Fields& f, long long n_rows, long long n_cols, const std::string& output_name, Mat* out,
                      bool* present) {
  if (!read_optional_matrix(f, "grad_output", out, present)) return false;
  if (!*present) return true;
  return expect_rows(f, "grad_output", *out, n_rows, "the rows of " + output_name) &&
         expect_cols(f, "grad_output", *out, n_cols, "the columns of " + output_name);
}

// ---------------------------------------------------------------- 4 score functions
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

}  // namespace attn::eval_detail
