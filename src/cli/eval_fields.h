// eval_fields.h: what the kinds of `attnlab eval` share (each kind lives in its
// own file, eval_<kind>.cpp): the evaluation state (Ctx), the field reader
// (Fields), and the readers, shape checks, limits, writers and score-function
// helpers defined in eval_fields.cpp. Internal to src/cli; the public interface
// is eval.h.
//
// Sections: 1 errors and limits, 2 reading fields, 3 writing the response,
// 4 score functions, 5 the kinds.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "attn/scores.h"
#include "attn/softmax.h"
#include "base/json.h"
#include "base/tensor.h"
#include "cli/eval.h"

namespace attn::eval_detail {

using json::Value;

// ---------------------------------------------------------------- 1 errors and limits
// State shared by one evaluation: the first error (later ones are ignored, so the
// learner sees the most basic problem first) and the warnings collected so far.
struct Ctx {
  explicit Ctx(const EvalLimits& l) : limits(l) {}
  const EvalLimits& limits;
  bool failed = false;
  EvalError error;
  Warnings warnings;
  std::string main_input;    // the field blamed when the response grows too large
  long long response_numbers = 0;

  bool fail(const std::string& field, const std::string& message) {
    if (!failed) {
      failed = true;
      error = EvalError{field, message};
    }
    return false;
  }
};

// "1 column", "3 columns".
std::string count(long long n, const char* noun);
// A short, one-line description of what the request held, for "got ...".
std::string describe(const Value& v);

// Refuses requests whose main products would take too long, or whose matrices
// would hold too many numbers; `formula` and `what` go into the message.
bool check_work(Ctx& ctx, const std::string& field, double work, const std::string& formula);
bool check_elements(Ctx& ctx, const std::string& field, double elements, const std::string& what);

// ---------------------------------------------------------------- 2 reading fields
// The members of one JSON object of the request, e.g. the request itself or
// "reverse" (prefix "reverse."). Tracks which members were read, so members that
// the chosen settings ignore can be reported as warnings.
class Fields {
 public:
  Fields(Ctx& ctx, const Value& object, std::string prefix)
      : ctx_(ctx), object_(object), prefix_(std::move(prefix)), used_(object.size(), false) {}

  std::string path(const std::string& name) const { return prefix_ + name; }
  Ctx& ctx() { return ctx_; }

  // Fails on the first member whose name is not in `known` (a typo such as
  // "msk" would otherwise be silently ignored). "comment" is always allowed.
  bool check_known(std::initializer_list<const char*> known, const std::string& context) {
    return check_known(std::vector<const char*>(known), context);
  }
  // The same with a list built at run time (a kind whose names come from a table).
  bool check_known(const std::vector<const char*>& known, const std::string& context) {
    for (std::size_t i = 0; i < object_.size(); ++i) {
      const std::string& key = object_.members()[i].key;
      bool ok = key == "comment";
      for (const char* k : known) ok = ok || key == k;
      if (ok) continue;
      std::string list;
      for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return ctx_.fail(path(key), "unknown field for " + context + "; expected one of: " + list);
    }
    return true;
  }

  // The member `name` (marked as used), or nullptr when absent.
  const Value* get(const std::string& name) {
    for (std::size_t i = 0; i < object_.size(); ++i) {
      if (object_.members()[i].key == name) {
        used_[i] = true;
        return &object_.members()[i].value;
      }
    }
    return nullptr;
  }

  // One warning per member the request gave but these settings never read.
  void warn_unused() {
    for (std::size_t i = 0; i < object_.size(); ++i) {
      const std::string& key = object_.members()[i].key;
      if (used_[i] || key == "comment" || key == "kind") continue;
      ctx_.warnings.push_back("field " + json::quote(path(key)) +
                              " was ignored: these settings do not use it");
    }
  }

  const Value* require(const std::string& name, const std::string& expected) {
    const Value* v = get(name);
    if (!v) ctx_.fail(path(name), "missing; expected " + expected);
    return v;
  }

 private:
  Ctx& ctx_;
  const Value& object_;
  std::string prefix_;
  std::vector<bool> used_;
};

// A whole number in [lo, hi] at `path` (an array's item, say).
bool to_integer(Ctx& ctx, const Value& v, const std::string& path, long long lo, long long hi, long long* out);
// Optional number field (fallback when absent); `positive` requires > 0.
bool read_float(Fields& f, const std::string& name, float fallback, float* out, bool positive);
// Whole numbers in [lo, hi].
bool read_integer(Fields& f, const std::string& name, long long lo, long long hi, long long fallback,
                  long long* out, bool required);
bool read_bool(Fields& f, const std::string& name, bool fallback, bool* out);

// A string field that must be one of `names` (canonical spellings, listed in the
// error); `parse` is the core's parser, which may also accept aliases.
template <typename Enum, typename ParseFn>
bool read_choice(Fields& f, const std::string& name, std::initializer_list<const char*> names, Enum fallback,
                 Enum* out, ParseFn parse, bool required = false) {
  std::string list;
  std::size_t i = 0;
  for (const char* n : names) {
    list += (i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ")) + json::quote(n);
    ++i;
  }
  *out = fallback;
  const Value* v = required ? f.require(name, list) : f.get(name);
  if (!v) return !required;
  if (!v->is_string() || !parse(v->as_string(), out))
    return f.ctx().fail(f.path(name), "expected " + list + ", got " + describe(*v));
  return true;
}

// Matrices (arrays of rows) and vectors (arrays of numbers), every entry a
// finite float32; sizes are checked against the limits first.
bool to_matrix(Ctx& ctx, const Value& v, const std::string& path, Mat* out);
bool to_vector(Ctx& ctx, const Value& v, const std::string& path, Vec* out);
bool read_matrix(Fields& f, const std::string& name, Mat* out);
bool read_vector(Fields& f, const std::string& name, Vec* out);
// Optional matrix; *present says whether the request had it.
bool read_optional_matrix(Fields& f, const std::string& name, Mat* out, bool* present);
// "mask": "none", "causal" or an (n_q, n_k) array of booleans.
bool read_mask(Fields& f, long long n_q, long long n_k, MaskKind* kind, BoolMat* allowed);

// Shape checks with the request's names: `why` says where the expected size
// comes from, e.g. "same as q".
bool expect_rows(Fields& f, const std::string& name, const Mat& m, long long rows, const std::string& why);
bool expect_cols(Fields& f, const std::string& name, const Mat& m, long long cols, const std::string& why);
bool expect_size(Fields& f, const std::string& name, const Vec& v, long long n, const std::string& why);

// "grad_output": the shape of the main output (n_rows, n_cols).
bool read_grad_output(Fields& f, long long n_rows, long long n_cols, const std::string& output_name, Mat* out,
                      bool* present);

// ---------------------------------------------------------------- 3 writing the response
// A non-finite entry is written as null and named in a warning.
Value out_matrix(Ctx& ctx, const Mat& m, const std::string& path);
Value out_vector(Ctx& ctx, const Vec& v, const std::string& path);
Value out_number(Ctx& ctx, float x, const std::string& path);

// ---------------------------------------------------------------- 4 score functions
// Score-function parameters for one (Q, K) pair; shared by "attention" and the
// per-head "head_score" objects of "self_attention".
bool read_score_params(Fields& f, ScoreKind kind, long long d_q, long long d_k, const std::string& q_name,
                       const std::string& k_name, ScoreParams* p);
// dot, scaled_dot and cosine need d_q == d_k.
bool score_needs_same_width(ScoreKind kind);
extern const std::initializer_list<const char*> kScoreNames;  // canonical spellings, for errors
bool parse_score(const std::string& s, ScoreKind* k);
// Approximate multiply-adds of the scoring function (for the work limit).
double score_work(ScoreKind kind, double n_q, double n_k, double d_q, double d_k, const ScoreParams& p);

// ---------------------------------------------------------------- 5 the kinds
// One function a kind, each in its own file; eval.cpp maps "kind" to them.
bool eval_attention(Fields& f, Value* out);          // eval_attention.cpp
bool eval_self_attention(Fields& f, Value* out);     // eval_self_attention.cpp
bool eval_positional(Fields& f, Value* out);         // eval_positional.cpp
bool eval_rnn(Fields& f, Value* out);                // eval_rnn.cpp
bool eval_transformer_block(Fields& f, Value* out);  // eval_transformer.cpp
bool eval_decoder(Fields& f, Value* out);            // eval_decoder.cpp

}  // namespace attn::eval_detail
