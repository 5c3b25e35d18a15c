// eval_positional.cpp: kind "positional" of `attnlab eval` -- sinusoidal
// position encodings, combined with token embeddings by sum or concatenation.
// Its fields are read and checked with the request's names through
// eval_fields.h, then the core computes; see docs/eval.md for the format.
#include <cmath>
#include <string>
#include <vector>

#include "attn/positional.h"
#include "cli/eval_fields.h"

namespace attn::eval_detail {

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

}  // namespace attn::eval_detail
