// recurrent.cpp: the Eigen versions of the RNN / LSTM / GRU cells (formulas in
// recurrent.h) and their backward pass through time.
//
// Sections: 1 names and validation, 2 initialisation, 3 one step (forward and the
// shared backward core), 4 sequence forward, 5 backpropagation through time.
//
// The sequence code splits each cell's pre-activation into an input part
// gi = W_ih x_t + b_ih and a recurrent part gh = W_hh h_{t-1} + b_hh. The input
// part of all T steps is one matrix product before the loop; only gh is truly
// sequential. Backward mirrors this: the loop only produces d gi / d gh per step,
// and the weight gradients are matrix products over all steps at the end.
#include "attn/recurrent.h"

#include <cmath>

namespace attn {

// ---------------------------------------------------------------- 1 names and validation
int gate_count(CellKind cell) {
  switch (cell) {
    case CellKind::rnn_tanh: return 1;
    case CellKind::lstm: return 4;
    case CellKind::gru: return 3;
  }
  return 1;
}

const char* cell_kind_name(CellKind cell) {
  switch (cell) {
    case CellKind::rnn_tanh: return "rnn_tanh";
    case CellKind::lstm: return "lstm";
    case CellKind::gru: return "gru";
  }
  return "?";
}

bool parse_cell_kind(const std::string& name, CellKind& out) {
  if (name == "rnn_tanh" || name == "rnn" || name == "tanh") { out = CellKind::rnn_tanh; return true; }
  if (name == "lstm") { out = CellKind::lstm; return true; }
  if (name == "gru") { out = CellKind::gru; return true; }
  return false;
}

namespace {

// "" when m is (rows, cols); otherwise says what `name` should have been.
std::string expect_shape(const std::string& name, const Mat& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() == rows && m.cols() == cols) return "";
  return name + " must be " + shape_str(rows, cols) + ", got " + shape_str(m.rows(), m.cols());
}

std::string expect_size(const std::string& name, const Vec& v, Eigen::Index size) {
  if (v.size() == size) return "";
  return name + " must have " + std::to_string(size) + " elements, got " + std::to_string(v.size());
}

}  // namespace

std::string validate_weights(CellKind cell, const RnnWeights& w, int d_in) {
  const std::string cell_name = cell_kind_name(cell);
  const Eigen::Index H = w.w_hh.cols();
  const Eigen::Index GH = gate_count(cell) * H;
  if (H < 1) return cell_name + ": w_hh must have at least one column (the hidden size H)";
  const std::string gates = gate_count(cell) == 1 ? "H" : std::to_string(gate_count(cell)) + "H";
  std::string e = expect_shape(cell_name + ": w_hh (" + gates + ", H)", w.w_hh, GH, H);
  if (!e.empty()) return e;
  if (w.w_ih.cols() < 1) return cell_name + ": w_ih must have at least one column (the input size d_in)";
  const Eigen::Index want_d_in = d_in < 0 ? w.w_ih.cols() : d_in;
  e = expect_shape(cell_name + ": w_ih (" + gates + ", d_in)", w.w_ih, GH, want_d_in);
  if (!e.empty()) return e;
  e = expect_size(cell_name + ": b_ih (" + gates + ")", w.b_ih, GH);
  if (!e.empty()) return e;
  return expect_size(cell_name + ": b_hh (" + gates + ")", w.b_hh, GH);
}

std::string validate_params(const RnnDesc& desc, const RnnParams& params, int d_in) {
  std::string e = validate_weights(desc.cell, params.forward, d_in);
  if (!e.empty()) return "forward weights: " + e;
  if (!desc.bidirectional) return "";
  e = validate_weights(desc.cell, params.reverse, params.forward.input_size());
  if (!e.empty()) return "reverse weights: " + e;
  if (params.reverse.hidden_size() != params.forward.hidden_size())
    return "reverse weights: hidden size " + std::to_string(params.reverse.hidden_size()) +
           " differs from the forward hidden size " + std::to_string(params.forward.hidden_size());
  return "";
}

// ---------------------------------------------------------------- 2 initialisation
RnnWeights init_rnn_weights(CellKind cell, int d_in, int H, Rng& rng) {
  const int GH = gate_count(cell) * H;
  const float bound = 1.0f / std::sqrt(float(H > 0 ? H : 1));
  RnnWeights w;
  w.w_ih.resize(GH, d_in);
  w.w_hh.resize(GH, H);
  w.b_ih.resize(GH);
  w.b_hh.resize(GH);
  // Row-major element order keeps the stream identical to the documented order.
  for (Eigen::Index k = 0; k < w.w_ih.size(); ++k) w.w_ih.data()[k] = rng.uniform(-bound, bound);
  for (Eigen::Index k = 0; k < w.w_hh.size(); ++k) w.w_hh.data()[k] = rng.uniform(-bound, bound);
  for (Eigen::Index k = 0; k < GH; ++k) w.b_ih[k] = rng.uniform(-bound, bound);
  for (Eigen::Index k = 0; k < GH; ++k) w.b_hh[k] = rng.uniform(-bound, bound);
  return w;
}

RnnParams init_rnn_params(const RnnDesc& desc, int d_in, int H, Rng& rng) {
  RnnParams p;
  p.forward = init_rnn_weights(desc.cell, d_in, H, rng);
  if (desc.bidirectional) p.reverse = init_rnn_weights(desc.cell, d_in, H, rng);
  return p;
}

RnnWeights zeros_like(const RnnWeights& w) {
  RnnWeights z;
  z.w_ih = Mat::Zero(w.w_ih.rows(), w.w_ih.cols());
  z.w_hh = Mat::Zero(w.w_hh.rows(), w.w_hh.cols());
  z.b_ih = Vec::Zero(w.b_ih.size());
  z.b_hh = Vec::Zero(w.b_hh.size());
  return z;
}

// ---------------------------------------------------------------- 3 one step
namespace {

// Forward of one step given the input part gi = W_ih x + b_ih (G*H).
// Expects s.h_prev (and s.c_prev for lstm) already set; fills the rest of s.
// Eigen's logistic() is the overflow-safe sigmoid (no exp of a large positive).
void step_forward_core(CellKind cell, const RnnWeights& w, const Vec& gi, CellStep& s) {
  const Eigen::Index H = w.hidden_size();
  const Vec gh = w.w_hh * s.h_prev + w.b_hh;  // gh: (G*H) recurrent part
  s.tanh_c.resize(0);
  s.hh_n.resize(0);
  s.c.resize(0);
  switch (cell) {
    case CellKind::rnn_tanh: {
      s.gates = (gi + gh).array().tanh();
      s.h = s.gates;
      break;
    }
    case CellKind::lstm: {
      const Vec a = gi + gh;  // a: (4H) = [a_i | a_f | a_g | a_o]
      s.gates.resize(4 * H);
      s.gates.segment(0, 2 * H) = a.segment(0, 2 * H).array().logistic();  // i, f
      s.gates.segment(2 * H, H) = a.segment(2 * H, H).array().tanh();       // g
      s.gates.segment(3 * H, H) = a.segment(3 * H, H).array().logistic();  // o
      const auto i = s.gates.segment(0, H).array();
      const auto f = s.gates.segment(H, H).array();
      const auto g = s.gates.segment(2 * H, H).array();
      const auto o = s.gates.segment(3 * H, H).array();
      s.c = f * s.c_prev.array() + i * g;
      s.tanh_c = s.c.array().tanh();
      s.h = o * s.tanh_c.array();
      break;
    }
    case CellKind::gru: {
      s.gates.resize(3 * H);
      // r and z see the plain sum of both parts; n sees r * (recurrent part).
      s.gates.segment(0, 2 * H) = (gi.segment(0, 2 * H) + gh.segment(0, 2 * H)).array().logistic();
      s.hh_n = gh.segment(2 * H, H);
      s.gates.segment(2 * H, H) =
          (gi.segment(2 * H, H).array() + s.gates.segment(0, H).array() * s.hh_n.array()).tanh();
      const auto z = s.gates.segment(H, H).array();
      const auto n = s.gates.segment(2 * H, H).array();
      s.h = (1.0f - z) * n + z * s.h_prev.array();
      break;
    }
  }
}

// Backward of one step down to the two pre-activation parts.
//   dh, dc: (H) dL/dh', dL/dc' (dc only for lstm; may be empty = zero)
//   d_gi:   (G*H) dL/d(W_ih x + b_ih)     d_gh: (G*H) dL/d(W_hh h + b_hh)
//   dh_prev: (H) = W_hh^T d_gh (+ z * dh for gru);  dc_prev: (H) lstm only
void step_backward_core(CellKind cell, const RnnWeights& w, const CellStep& s, const Vec& dh, const Vec& dc,
                        Vec& d_gi, Vec& d_gh, Vec& dh_prev, Vec& dc_prev) {
  const Eigen::Index H = w.hidden_size();
  dc_prev.resize(0);
  switch (cell) {
    case CellKind::rnn_tanh: {
      // tanh' = 1 - tanh^2, and gates already holds tanh(a) = h'.
      d_gi = dh.array() * (1.0f - s.gates.array().square());
      d_gh = d_gi;
      dh_prev = w.w_hh.transpose() * d_gh;
      break;
    }
    case CellKind::lstm: {
      const auto i = s.gates.segment(0, H).array();
      const auto f = s.gates.segment(H, H).array();
      const auto g = s.gates.segment(2 * H, H).array();
      const auto o = s.gates.segment(3 * H, H).array();
      // Total gradient on c': from h' = o * tanh(c') and from the next step.
      Vec dc_total = dh.array() * o * (1.0f - s.tanh_c.array().square());
      if (dc.size() > 0) dc_total += dc;
      d_gi.resize(4 * H);
      // sigma' = s (1 - s); tanh' = 1 - t^2.
      d_gi.segment(0, H) = dc_total.array() * g * i * (1.0f - i);                     // a_i
      d_gi.segment(H, H) = dc_total.array() * s.c_prev.array() * f * (1.0f - f);      // a_f
      d_gi.segment(2 * H, H) = dc_total.array() * i * (1.0f - g.square());            // a_g
      d_gi.segment(3 * H, H) = dh.array() * s.tanh_c.array() * o * (1.0f - o);       // a_o
      d_gh = d_gi;
      dh_prev = w.w_hh.transpose() * d_gh;
      dc_prev = dc_total.array() * f;
      break;
    }
    case CellKind::gru: {
      const auto r = s.gates.segment(0, H).array();
      const auto z = s.gates.segment(H, H).array();
      const auto n = s.gates.segment(2 * H, H).array();
      const Vec d_an = dh.array() * (1.0f - z) * (1.0f - n.square());  // dL/d(pre-tanh of n)
      d_gi.resize(3 * H);
      d_gh.resize(3 * H);
      d_gi.segment(0, H) = d_an.array() * s.hh_n.array() * r * (1.0f - r);               // a_r
      d_gi.segment(H, H) = dh.array() * (s.h_prev.array() - n) * z * (1.0f - z);        // a_z
      d_gi.segment(2 * H, H) = d_an;                                                      // W_in x + b_in
      d_gh.segment(0, 2 * H) = d_gi.segment(0, 2 * H);  // r and z: plain sums
      d_gh.segment(2 * H, H) = d_an.array() * r;        // W_hn h + b_hn is multiplied by r
      dh_prev = w.w_hh.transpose() * d_gh;
      dh_prev.array() += dh.array() * z;  // the direct path h' = ... + z * h
      break;
    }
  }
}

}  // namespace

std::string cell_step_forward(CellKind cell, const RnnWeights& w, const Vec& x, const Vec& h_prev,
                              const Vec& c_prev, CellStep& out) {
  std::string e = validate_weights(cell, w);
  if (!e.empty()) return e;
  const Eigen::Index H = w.hidden_size();
  if (!(e = expect_size("x (d_in)", x, w.input_size())).empty()) return e;
  if (h_prev.size() != 0 && !(e = expect_size("h_prev (H)", h_prev, H)).empty()) return e;
  if (cell == CellKind::lstm && c_prev.size() != 0 && !(e = expect_size("c_prev (H)", c_prev, H)).empty())
    return e;
  out.x = x;
  out.h_prev = h_prev.size() == 0 ? Vec(Vec::Zero(H)) : h_prev;
  if (cell == CellKind::lstm)
    out.c_prev = c_prev.size() == 0 ? Vec(Vec::Zero(H)) : c_prev;
  else
    out.c_prev.resize(0);
  const Vec gi = w.w_ih * x + w.b_ih;  // gi: (G*H)
  step_forward_core(cell, w, gi, out);
  return "";
}

std::string cell_step_backward(CellKind cell, const RnnWeights& w, const CellStep& step, const Vec& dh,
                               const Vec& dc, RnnWeights& grads, CellStepGrads& out) {
  std::string e = validate_weights(cell, w);
  if (!e.empty()) return e;
  const Eigen::Index H = w.hidden_size(), GH = gate_count(cell) * H;
  if (!(e = expect_shape("grads.w_ih", grads.w_ih, GH, w.input_size())).empty()) return e;
  if (!(e = expect_shape("grads.w_hh", grads.w_hh, GH, H)).empty()) return e;
  if (!(e = expect_size("grads.b_ih", grads.b_ih, GH)).empty()) return e;
  if (!(e = expect_size("grads.b_hh", grads.b_hh, GH)).empty()) return e;
  if (!(e = expect_size("step.x", step.x, w.input_size())).empty()) return e;
  if (!(e = expect_size("step.h_prev", step.h_prev, H)).empty()) return e;
  if (!(e = expect_size("step.gates", step.gates, GH)).empty()) return e;
  if (cell == CellKind::lstm) {
    if (!(e = expect_size("step.c_prev", step.c_prev, H)).empty()) return e;
    if (!(e = expect_size("step.tanh_c", step.tanh_c, H)).empty()) return e;
  }
  if (cell == CellKind::gru && !(e = expect_size("step.hh_n", step.hh_n, H)).empty()) return e;
  if (!(e = expect_size("dh (H)", dh, H)).empty()) return e;
  if (cell == CellKind::lstm && dc.size() != 0 && !(e = expect_size("dc (H)", dc, H)).empty()) return e;

  Vec d_gi, d_gh;
  step_backward_core(cell, w, step, dh, cell == CellKind::lstm ? dc : Vec(), d_gi, d_gh, out.h_prev, out.c_prev);
  grads.w_ih.noalias() += d_gi * step.x.transpose();  // (G*H, d_in) outer product
  grads.b_ih += d_gi;
  grads.w_hh.noalias() += d_gh * step.h_prev.transpose();  // (G*H, H)
  grads.b_hh += d_gh;
  out.x = w.w_ih.transpose() * d_gi;
  return "";
}

// ---------------------------------------------------------------- 4 sequence forward
namespace {

// "" when an initial/final state matrix is empty or (D, H).
std::string expect_state(const std::string& name, const Mat& m, Eigen::Index D, Eigen::Index H) {
  if (m.size() == 0) return "";
  return expect_shape(name + " (D, H)", m, D, H);
}

}  // namespace

RnnResult rnn_forward(const RnnDesc& desc, const RnnParams& params, const Mat& X, const Mat& h0,
                      const Mat& c0) {
  RnnResult res;
  res.error = validate_params(desc, params, int(X.cols()));
  if (!res.error.empty()) return res;
  const Eigen::Index T = X.rows(), H = params.forward.hidden_size(), D = desc.bidirectional ? 2 : 1;
  const bool lstm = desc.cell == CellKind::lstm;
  if (!(res.error = expect_state("h0", h0, D, H)).empty()) return res;
  if (!lstm && c0.size() != 0) {
    res.error = "c0 is only used by an lstm";
    return res;
  }
  if (lstm && !(res.error = expect_state("c0", c0, D, H)).empty()) return res;

  res.h.resize(T, D * H);
  res.h_n.resize(D, H);
  if (lstm) res.c_n.resize(D, H);
  for (Eigen::Index d = 0; d < D; ++d) {
    const RnnWeights& w = d == 0 ? params.forward : params.reverse;
    std::vector<CellStep>& steps = d == 0 ? res.steps_forward : res.steps_reverse;
    steps.resize(size_t(T));
    // Pass 1: the input part of every step at once. Gi: (T, G*H)
    Mat Gi = X * w.w_ih.transpose();
    Gi.rowwise() += w.b_ih.transpose();
    // Pass 2: the recurrence, in reading order (x_0 .. x_{T-1}, or reversed).
    Vec h = h0.size() == 0 ? Vec(Vec::Zero(H)) : Vec(h0.row(d).transpose());  // (H)
    Vec c;                                                                       // (H) lstm only
    if (lstm) c = c0.size() == 0 ? Vec(Vec::Zero(H)) : Vec(c0.row(d).transpose());
    for (Eigen::Index k = 0; k < T; ++k) {
      const Eigen::Index t = d == 0 ? k : T - 1 - k;
      CellStep& s = steps[size_t(t)];
      s.x = X.row(t).transpose();
      s.h_prev = h;
      s.c_prev = c;
      step_forward_core(desc.cell, w, Gi.row(t).transpose(), s);
      h = s.h;
      c = s.c;
      res.h.block(t, d * H, 1, H) = h.transpose();
    }
    res.h_n.row(d) = h.transpose();
    if (lstm) res.c_n.row(d) = c.transpose();
  }
  return res;
}

// ---------------------------------------------------------------- 5 backpropagation through time
RnnGrads rnn_backward(const RnnDesc& desc, const RnnParams& params, const RnnResult& fwd,
                      const RnnOutputGrads& grad) {
  RnnGrads out;
  if (!fwd.error.empty()) {
    out.error = "the forward pass failed: " + fwd.error;
    return out;
  }
  out.error = validate_params(desc, params);
  if (!out.error.empty()) return out;
  const Eigen::Index T = Eigen::Index(fwd.steps_forward.size()), H = params.forward.hidden_size(),
                     d_in = params.forward.input_size(), D = desc.bidirectional ? 2 : 1,
                     GH = gate_count(desc.cell) * H;
  const bool lstm = desc.cell == CellKind::lstm;
  if (desc.bidirectional && Eigen::Index(fwd.steps_reverse.size()) != T) {
    out.error = "the forward result has no reverse caches (was it run bidirectional?)";
    return out;
  }
  if (!(out.error = expect_shape("the forward result's h (T, D*H)", fwd.h, T, D * H)).empty()) return out;
  if (T > 0 && (fwd.steps_forward[0].x.size() != d_in || fwd.steps_forward[0].h_prev.size() != H)) {
    out.error = "the forward result was computed with different weights";
    return out;
  }
  if (grad.h.size() != 0 && !(out.error = expect_shape("grad h (T, D*H)", grad.h, T, D * H)).empty()) return out;
  if (!(out.error = expect_state("grad h_n", grad.h_n, D, H)).empty()) return out;
  if (!lstm && grad.c_n.size() != 0) {
    out.error = "grad c_n is only used by an lstm";
    return out;
  }
  if (!(out.error = expect_state("grad c_n", grad.c_n, D, H)).empty()) return out;

  // X: (T, d_in), rebuilt from the caches.
  Mat X(T, d_in);
  for (Eigen::Index t = 0; t < T; ++t) X.row(t) = fwd.steps_forward[size_t(t)].x.transpose();
  out.x = Mat::Zero(T, d_in);
  out.h0.resize(D, H);
  if (lstm) out.c0.resize(D, H);

  for (Eigen::Index d = 0; d < D; ++d) {
    const RnnWeights& w = d == 0 ? params.forward : params.reverse;
    const std::vector<CellStep>& steps = d == 0 ? fwd.steps_forward : fwd.steps_reverse;
    Mat dGi(T, GH), dGh(T, GH);  // (T, G*H) gradients of the input / recurrent parts
    Mat H_prev(T, H);            // (T, H) the state each step read
    // Pass 1: walk the steps in the opposite order to the one they were read in,
    // carrying dL/dh and dL/dc of the state that step produced.
    Vec dh_next = grad.h_n.size() == 0 ? Vec(Vec::Zero(H)) : Vec(grad.h_n.row(d).transpose());
    Vec dc_next;
    if (lstm) dc_next = grad.c_n.size() == 0 ? Vec(Vec::Zero(H)) : Vec(grad.c_n.row(d).transpose());
    Vec d_gi, d_gh, dh_prev, dc_prev;
    for (Eigen::Index k = T - 1; k >= 0; --k) {
      const Eigen::Index t = d == 0 ? k : T - 1 - k;
      const CellStep& s = steps[size_t(t)];
      Vec dh = dh_next;  // from the next step (or h_n) ...
      if (grad.h.size() != 0) dh += grad.h.block(t, d * H, 1, H).transpose();  // ... and from the output
      step_backward_core(desc.cell, w, s, dh, dc_next, d_gi, d_gh, dh_prev, dc_prev);
      dGi.row(t) = d_gi.transpose();
      dGh.row(t) = d_gh.transpose();
      H_prev.row(t) = s.h_prev.transpose();
      dh_next = dh_prev;
      dc_next = dc_prev;
    }
    out.h0.row(d) = dh_next.transpose();
    if (lstm) out.c0.row(d) = dc_next.transpose();
    // Pass 2: weight gradients summed over time as matrix products.
    RnnWeights& gw = d == 0 ? out.forward : out.reverse;
    gw.w_ih = dGi.transpose() * X;       // (G*H, d_in)
    gw.w_hh = dGh.transpose() * H_prev;  // (G*H, H)
    gw.b_ih = column_sums(dGi);  // an empty sequence gives zeros
    gw.b_hh = column_sums(dGh);
    out.x.noalias() += dGi * w.w_ih;  // (T, d_in): both directions read the same x_t
  }
  return out;
}

}  // namespace attn
