// recurrent.h: tanh RNN, LSTM and GRU cells, one layer, with PyTorch's exact
// weight shapes, gate order and formulas, their backward pass through time, and
// a single-step API for code that drives a cell by hand (seq2seq decoders).
//
// Sections: 1 cells and their formulas, 2 weights, 3 one time step (forward,
// backward), 4 a whole sequence (forward, BPTT), 5 naive references (attn::ref).
//
// Conventions (everything float32, no batch dimension):
//   T    sequence length          d_in  input size        H  hidden size
//   G    gates per cell: 1 (rnn_tanh), 4 (lstm), 3 (gru)
//   D    directions: 1, or 2 when bidirectional
// Errors never throw: functions return an error string (empty = success) or a
// result struct whose `error` field is non-empty.
#pragma once

#include <string>
#include <vector>

#include "base/rng.h"
#include "base/tensor.h"

namespace attn {

// ---------------------------------------------------------------- 1 cells
// sigma is the logistic sigmoid, * is the element-wise product, x is the input at
// one time step (d_in), h the previous hidden state (H), c the previous cell state.
// The G*H rows of w_ih / w_hh / b_ih / b_hh are G blocks of H rows, in this order:
//
// rnn_tanh (G = 1)
//   h' = tanh(W_ih x + b_ih + W_hh h + b_hh)
//
// lstm (G = 4, blocks i, f, g, o: input gate, forget gate, candidate, output gate)
//   a = W_ih x + b_ih + W_hh h + b_hh                      (4H), split into a_i a_f a_g a_o
//   i = sigma(a_i)  f = sigma(a_f)  g = tanh(a_g)  o = sigma(a_o)
//   c' = f * c + i * g
//   h' = o * tanh(c')
//
// gru (G = 3, blocks r, z, n: reset gate, update gate, new/candidate state)
//   r  = sigma(W_ir x + b_ir + W_hr h + b_hr)
//   z  = sigma(W_iz x + b_iz + W_hz h + b_hz)
//   n  = tanh(W_in x + b_in + r * (W_hn h + b_hn))         (r gates the recurrent part only)
//   h' = (1 - z) * n + z * h
enum class CellKind { rnn_tanh, lstm, gru };

int gate_count(CellKind cell);             // G: 1, 4 or 3
const char* cell_kind_name(CellKind cell);  // "rnn_tanh", "lstm", "gru"
// Accepts "rnn_tanh" (or "rnn", "tanh"), "lstm", "gru". Returns false otherwise.
bool parse_cell_kind(const std::string& name, CellKind& out);

// ---------------------------------------------------------------- 2 weights
// One direction of one layer, exactly torch.nn.RNN/LSTM/GRU's weight_ih_l0,
// weight_hh_l0, bias_ih_l0, bias_hh_l0 (the reverse direction is the "_reverse" set).
struct RnnWeights {
  Mat w_ih;  // (G*H, d_in)
  Mat w_hh;  // (G*H, H)
  Vec b_ih;  // (G*H)
  Vec b_hh;  // (G*H)

  int input_size() const { return int(w_ih.cols()); }   // d_in
  int hidden_size() const { return int(w_hh.cols()); }  // H
};

struct RnnDesc {
  CellKind cell = CellKind::rnn_tanh;
  bool bidirectional = false;  // adds a second direction that reads x_{T-1} .. x_0
};

// The weights of a whole (possibly bidirectional) layer.
struct RnnParams {
  RnnWeights forward;  // direction 0, reads x_0 .. x_{T-1}
  RnnWeights reverse;  // direction 1, used only when desc.bidirectional
};

// "" when w is a consistent set for `cell` with input size d_in (d_in < 0: any).
std::string validate_weights(CellKind cell, const RnnWeights& w, int d_in = -1);
// Checks both directions (same d_in and H in each).
std::string validate_params(const RnnDesc& desc, const RnnParams& params, int d_in = -1);

// PyTorch's default initialisation: every weight and bias uniform in
// [-1/sqrt(H), 1/sqrt(H)], drawn in the order w_ih, w_hh, b_ih, b_hh, row by row.
RnnWeights init_rnn_weights(CellKind cell, int d_in, int H, Rng& rng);
RnnParams init_rnn_params(const RnnDesc& desc, int d_in, int H, Rng& rng);  // forward, then reverse
// Zeros with the shapes of w: the accumulator the backward functions add into.
RnnWeights zeros_like(const RnnWeights& w);

// ---------------------------------------------------------------- 3 one time step
// What one step produced, and everything its backward needs (the "cache").
struct CellStep {
  Vec h;       // (H) new hidden state h'
  Vec c;       // (H) new cell state c' (lstm only; empty otherwise)
  // cache
  Vec x;       // (d_in) the input of this step
  Vec h_prev;  // (H)
  Vec c_prev;  // (H) lstm only
  Vec gates;   // (G*H) gates after their nonlinearity, in PyTorch order:
               //   rnn_tanh: h'   lstm: i f g o   gru: r z n
  Vec tanh_c;  // (H) lstm only: tanh(c')
  Vec hh_n;    // (H) gru only: W_hn h + b_hn, the recurrent part that r multiplies
};

// One step: x (d_in), h_prev (H), c_prev (H, lstm only, ignored otherwise); an
// empty h_prev / c_prev means zeros. Fills `out` (state and cache).
std::string cell_step_forward(CellKind cell, const RnnWeights& w, const Vec& x, const Vec& h_prev,
                              const Vec& c_prev, CellStep& out);

struct CellStepGrads {
  Vec x;       // (d_in) dL/dx
  Vec h_prev;  // (H)    dL/dh_prev
  Vec c_prev;  // (H)    dL/dc_prev (lstm only; empty otherwise)
};

// Backward of one step. dh = dL/dh' (H); dc = dL/dc' (H, lstm only, empty = zero),
// i.e. the gradient arriving from above AND from the next step. ADDS the weight and
// bias gradients into `grads` (which must have w's shapes, e.g. zeros_like(w)), so a
// decoder can call it once per step and sum over time; writes dx, dh_prev, dc_prev.
std::string cell_step_backward(CellKind cell, const RnnWeights& w, const CellStep& step, const Vec& dh,
                               const Vec& dc, RnnWeights& grads, CellStepGrads& out);

// ---------------------------------------------------------------- 4 a whole sequence
// Initial and final states are (D, H) matrices, row 0 the forward direction and
// row 1 the reverse one, like PyTorch's h_0 / h_n for one unbatched layer.
struct RnnResult {
  Mat h;    // (T, D*H): row t = [forward h_t | reverse h_t], the states after reading x_t
  Mat h_n;  // (D, H): row 0 = forward state after x_{T-1}; row 1 = reverse state after x_0
  Mat c_n;  // (D, H): the same for the cell state (lstm only; empty otherwise)
  // Caches indexed by time t (not processing order): steps_forward[t] read x_t,
  // and so did steps_reverse[t] (empty unless bidirectional). Used by rnn_backward.
  std::vector<CellStep> steps_forward;
  std::vector<CellStep> steps_reverse;
  std::string error;  // non-empty: nothing else is valid
};

// X (T, d_in); h0, c0 (D, H) or empty for zeros (c0 only for lstm). T = 0 is
// allowed: h is (0, D*H) and h_n, c_n are the initial states.
RnnResult rnn_forward(const RnnDesc& desc, const RnnParams& params, const Mat& X, const Mat& h0 = Mat(),
                      const Mat& c0 = Mat());

// Gradients arriving at the outputs; an empty matrix means zero.
struct RnnOutputGrads {
  Mat h;    // (T, D*H) dL/dh for every state
  Mat h_n;  // (D, H)   dL/dh_n
  Mat c_n;  // (D, H)   dL/dc_n (lstm only)
};

// Gradients of the loss with respect to every input of rnn_forward, named as the inputs.
struct RnnGrads {
  Mat x;               // (T, d_in)
  Mat h0;              // (D, H)
  Mat c0;              // (D, H) lstm only; empty otherwise
  RnnWeights forward;  // shapes of params.forward
  RnnWeights reverse;  // shapes of params.reverse (bidirectional only)
  std::string error;
};

// Backpropagation through time. `fwd` must come from rnn_forward with the same
// desc and params (its caches hold X, h0 and c0).
RnnGrads rnn_backward(const RnnDesc& desc, const RnnParams& params, const RnnResult& fwd,
                      const RnnOutputGrads& grad);

// ---------------------------------------------------------------- 5 naive references
// Plain loops, dot products accumulated in double; the obviously-correct versions
// the tests compare the Eigen code with. Same contracts as above, but
// ref::rnn_forward leaves the caches (steps_*) empty.
namespace ref {

std::string cell_step_forward(CellKind cell, const RnnWeights& w, const Vec& x, const Vec& h_prev,
                              const Vec& c_prev, Vec& h, Vec& c);
RnnResult rnn_forward(const RnnDesc& desc, const RnnParams& params, const Mat& X, const Mat& h0 = Mat(),
                      const Mat& c0 = Mat());

}  // namespace ref

}  // namespace attn
