// eval_rnn.cpp: kind "rnn" of `attnlab eval` -- RNN, LSTM and GRU
// layers (one direction or both) in PyTorch's weight layout, with gradients.
// Its fields are read and checked with the request's names through
// eval_fields.h, then the core computes; see docs/eval.md for the format.
#include <cmath>
#include <string>
#include <vector>

#include "attn/recurrent.h"
#include "cli/eval_fields.h"

namespace attn::eval_detail {

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

}  // namespace attn::eval_detail
