// recurrent_reference.cpp: naive, obviously-correct forward passes of the RNN,
// LSTM and GRU cells (formulas in recurrent.h). Plain loops over indices, every
// dot product accumulated in double, each gate computed by its own name: the code
// the tests trust when they check the Eigen version in recurrent.cpp.
#include <cmath>

#include "attn/recurrent.h"

namespace attn::ref {

namespace {

// In double, exp(-a) for a very negative a overflows to inf and gives exactly 0: no NaN.
double sigmoid(double a) { return 1.0 / (1.0 + std::exp(-a)); }

// Row `row` of W times v, plus b[row]: one pre-activation, in double.
double affine_row(const Mat& W, const Vec& b, Eigen::Index row, const Vec& v) {
  double sum = double(b(row));
  for (Eigen::Index k = 0; k < W.cols(); ++k) sum += double(W(row, k)) * double(v(k));
  return sum;
}

}  // namespace

std::string cell_step_forward(CellKind cell, const RnnWeights& w, const Vec& x, const Vec& h_prev,
                              const Vec& c_prev, Vec& h, Vec& c) {
  std::string e = validate_weights(cell, w);
  if (!e.empty()) return e;
  const Eigen::Index H = w.hidden_size();
  if (x.size() != w.input_size()) return "x (d_in) has the wrong size";
  if (h_prev.size() != 0 && h_prev.size() != H) return "h_prev (H) has the wrong size";
  if (cell == CellKind::lstm && c_prev.size() != 0 && c_prev.size() != H) return "c_prev (H) has the wrong size";
  const Vec hp = h_prev.size() == 0 ? Vec(Vec::Zero(H)) : h_prev;
  const Vec cp = c_prev.size() == 0 ? Vec(Vec::Zero(H)) : c_prev;

  h.resize(H);
  c.resize(cell == CellKind::lstm ? H : 0);
  for (Eigen::Index j = 0; j < H; ++j) {
    // Row j of gate block q lives at row q*H + j of every weight.
    auto input_part = [&](int q) { return affine_row(w.w_ih, w.b_ih, q * H + j, x); };
    auto hidden_part = [&](int q) { return affine_row(w.w_hh, w.b_hh, q * H + j, hp); };
    switch (cell) {
      case CellKind::rnn_tanh: {
        h(j) = float(std::tanh(input_part(0) + hidden_part(0)));
        break;
      }
      case CellKind::lstm: {
        const double i = sigmoid(input_part(0) + hidden_part(0));
        const double f = sigmoid(input_part(1) + hidden_part(1));
        const double g = std::tanh(input_part(2) + hidden_part(2));
        const double o = sigmoid(input_part(3) + hidden_part(3));
        const double c_new = f * double(cp(j)) + i * g;
        c(j) = float(c_new);
        h(j) = float(o * std::tanh(c_new));
        break;
      }
      case CellKind::gru: {
        const double r = sigmoid(input_part(0) + hidden_part(0));
        const double z = sigmoid(input_part(1) + hidden_part(1));
        const double n = std::tanh(input_part(2) + r * hidden_part(2));
        h(j) = float((1.0 - z) * n + z * double(hp(j)));
        break;
      }
    }
  }
  return "";
}

RnnResult rnn_forward(const RnnDesc& desc, const RnnParams& params, const Mat& X, const Mat& h0,
                      const Mat& c0) {
  RnnResult res;
  res.error = validate_params(desc, params, int(X.cols()));
  if (!res.error.empty()) return res;
  const Eigen::Index T = X.rows(), H = params.forward.hidden_size(), D = desc.bidirectional ? 2 : 1;
  const bool lstm = desc.cell == CellKind::lstm;
  if (h0.size() != 0 && (h0.rows() != D || h0.cols() != H)) {
    res.error = "h0 must be (D, H)";
    return res;
  }
  if (c0.size() != 0 && (!lstm || c0.rows() != D || c0.cols() != H)) {
    res.error = lstm ? "c0 must be (D, H)" : "c0 is only used by an lstm";
    return res;
  }

  res.h.resize(T, D * H);
  res.h_n.resize(D, H);
  if (lstm) res.c_n.resize(D, H);
  for (Eigen::Index d = 0; d < D; ++d) {
    const RnnWeights& w = d == 0 ? params.forward : params.reverse;
    Vec h = Vec::Zero(H), c = Vec::Zero(H);
    for (Eigen::Index j = 0; j < H; ++j) {
      if (h0.size() != 0) h(j) = h0(d, j);
      if (c0.size() != 0) c(j) = c0(d, j);
    }
    for (Eigen::Index k = 0; k < T; ++k) {
      const Eigen::Index t = d == 0 ? k : T - 1 - k;  // the reverse direction reads x_{T-1} first
      Vec x(X.cols());
      for (Eigen::Index m = 0; m < X.cols(); ++m) x(m) = X(t, m);
      Vec h_new, c_new;
      cell_step_forward(desc.cell, w, x, h, c, h_new, c_new);
      h = h_new;
      if (lstm) c = c_new;
      for (Eigen::Index j = 0; j < H; ++j) res.h(t, d * H + j) = h(j);
    }
    for (Eigen::Index j = 0; j < H; ++j) {
      res.h_n(d, j) = h(j);
      if (lstm) res.c_n(d, j) = c(j);
    }
  }
  return res;
}

}  // namespace attn::ref
