// layers.h: the building blocks of the trainable models, each with a forward
// pass, a backward pass that ADDS parameter gradients into Param::grad, and the
// cache ("trace") the backward pass needs. No batch dimension: a mini-batch is a
// loop over examples whose gradients add up.
//
// Sections: 1 embedding, 2 dense, 3 pooling, dropout and position, 4 recurrent
// layer (tanh RNN / LSTM / GRU, one direction), 5 attention pooling, 6 decoder
// attention (one query against encoder states). Multi-head self-attention has
// its own file, attention_layer.h.
//
// All arithmetic goes through kernels.h and fmath.h (fixed order, no fused
// multiply-add, own exp/tanh), so a seeded run is bit-identical natively and in
// WebAssembly.
#pragma once

#include <string>
#include <vector>

#include "attn/recurrent.h"
#include "base/rng.h"
#include "base/tensor.h"
#include "train/param.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 embedding
// X (n, d): row i = table(ids[i], :). The table is a lookup, so its gradient is
// dX's rows added back into the rows that were looked up.
struct Embedding {
  Param table;  // (V, d)

  void init(const std::string& name, int vocab, int d, Rng& rng, float limit);
  void forward(const std::vector<int>& ids, Mat& X) const;
  void backward(const std::vector<int>& ids, const Mat& dX);
  void collect(ParamList& out) { out.push_back(&table); }
};

// ---------------------------------------------------------------- 2 dense
// Y (n, d_out) = X (n, d_in) W + b.
struct Dense {
  Param W;  // (d_in, d_out), Glorot uniform
  Param b;  // (1, d_out), zero

  void init(const std::string& name, int d_in, int d_out, Rng& rng);
  void forward(const Mat& X, Mat& Y) const;
  // dW += X^T dY, db += column sums of dY; *dX = dY W^T when dX is not null.
  void backward(const Mat& X, const Mat& dY, Mat* dX);
  void collect(ParamList& out) { out.push_back(&W); out.push_back(&b); }
};

// ---------------------------------------------------------------- 3 pooling, dropout, position
// Global average pooling over time: (n, d) -> (1, d), and its backward (every
// row receives dY / n).
Mat mean_rows(const Mat& X);
Mat mean_rows_backward(const Mat& dY, int n);

// Inverted dropout mask (rows, cols): each entry is 0 with probability p and
// 1 / (1 - p) otherwise, so the expected activation is unchanged and nothing
// needs rescaling at evaluation time (where dropout is the identity). Draws
// rows * cols numbers from rng, row by row.
Mat dropout_mask(int rows, int cols, float p, Rng& rng);
// Y = X .* mask (also the backward: dX = dY .* mask).
Mat apply_mask(const Mat& X, const Mat& mask);

// ReLU and its backward (gradient passes where the input was > 0).
Mat relu(const Mat& X);
Mat relu_backward(const Mat& X, const Mat& dY);

// X + PE (n, d), PE the sinusoidal table of positional.h (interleaved sin/cos,
// base 10000). PE is a constant, so the backward of the sum is the identity.
Mat add_sinusoidal_position(const Mat& X);

// ---------------------------------------------------------------- 4 recurrent layer
// One direction of a tanh RNN, LSTM or GRU (formulas and gate order in
// attn/recurrent.h), in the x-times-W convention: the G*H columns of W_x, W_h,
// b_x, b_h are G blocks of H, ordered  rnn_tanh: h  |  lstm: i f g o  |  gru: r z n.
//   gi = x W_x + b_x (G*H)   gh = h_prev W_h + b_h (G*H)
struct RecurrentLayer {
  CellKind cell = CellKind::gru;
  int d_in = 0, H = 0;
  Param W_x;  // (d_in, G*H)
  Param W_h;  // (H, G*H)
  Param b_x;  // (1, G*H)
  Param b_h;  // (1, G*H)

  // Glorot per gate block for W_x and W_h, zero biases except the LSTM forget
  // gate (bias 1: remember by default, the usual start for long dependencies).
  void init(const std::string& name, CellKind cell, int d_in, int H, Rng& rng);
  void collect(ParamList& out) { out.push_back(&W_x); out.push_back(&W_h); out.push_back(&b_x); out.push_back(&b_h); }
  int gates() const { return gate_count(cell); }
};

// Everything one pass over T steps produced; row t belongs to step t (indexed by
// time, also for the reverse direction).
struct RecurrentTrace {
  bool reverse = false;
  Mat X;       // (T, d_in)  inputs
  Mat H_prev;  // (T, H)     state before step t
  Mat C_prev;  // (T, H)     lstm cell state before step t
  Mat gates;   // (T, G*H)   gates after their nonlinearity (rnn: h; lstm: i f g o; gru: r z n)
  Mat tanh_c;  // (T, H)     lstm: tanh(c_t)
  Mat hh_n;    // (T, H)     gru: h_prev W_hn + b_hn (the part r multiplies)
  Mat H;       // (T, H)     output states h_t
  Mat C;       // (T, H)     lstm cell states c_t
  int steps() const { return int(H.rows()); }
};

// Sizes every matrix of `tr` for T steps (rows left uninitialised).
void recurrent_trace_resize(const RecurrentLayer& layer, int T, RecurrentTrace& tr);
// One step t: reads x (d_in), h_prev (H), c_prev (H, lstm only); writes row t.
void recurrent_step_forward(const RecurrentLayer& layer, const float* x, const float* h_prev,
                            const float* c_prev, int t, RecurrentTrace& tr);
// Backward of step t given dh = dL/dh_t and dc = dL/dc_t (lstm; may be null):
// writes the pre-activation gradients dgi, dgh (G*H each) and dh_prev, dc_prev
// (H each; dc_prev only for lstm). Parameter gradients are NOT touched here --
// recurrent_weight_grads adds them for all steps at once.
void recurrent_step_backward(const RecurrentLayer& layer, const RecurrentTrace& tr, int t, const float* dh,
                             const float* dc, float* dgi, float* dgh, float* dh_prev, float* dc_prev);
// W_x += X^T dGi, b_x += sum dGi, W_h += H_prev^T dGh, b_h += sum dGh; returns
// dX (T, d_in) = dGi W_x^T when dX is not null.
void recurrent_weight_grads(RecurrentLayer& layer, const RecurrentTrace& tr, const Mat& dGi, const Mat& dGh,
                            Mat* dX);

// A whole sequence X (T, d_in), forward (t = 0..T-1) or reverse (t = T-1..0).
// h0 / c0: (1, H) initial states, or null for zeros.
void recurrent_forward(const RecurrentLayer& layer, const Mat& X, bool reverse, RecurrentTrace& tr,
                       const Mat* h0 = nullptr, const Mat* c0 = nullptr);
// BPTT. dH (T, H): dL/dh_t arriving from outside at every step (zeros where
// none); dc_last (1, H): dL/dc of the final LSTM cell state (null = zero).
// Adds parameter gradients; writes dX (T, d_in) and dh0 (1, H) if asked.
void recurrent_backward(RecurrentLayer& layer, const RecurrentTrace& tr, const Mat& dH, Mat* dX,
                        Mat* dh0 = nullptr, const Mat* dc_last = nullptr);

// ---------------------------------------------------------------- 5 attention pooling
// A learned query-free additive score per row, softmax over time, weighted sum:
//   U = tanh(Hs W + b) (T, d_a),  e = U v^T (T),  alpha = softmax(e),
//   pooled = sum_t alpha_t Hs_t (1, d).
// Used by the BiRNN classifier (E2) and the patch glimpse model (B2).
struct AttentionPooling {
  Param W;  // (d, d_a)
  Param b;  // (1, d_a)
  Param v;  // (1, d_a)

  void init(const std::string& name, int d, int d_a, Rng& rng);
  void collect(ParamList& out) { out.push_back(&W); out.push_back(&b); out.push_back(&v); }
};

struct AttentionPoolingTrace {
  Mat U;       // (T, d_a)
  Mat scores;  // (1, T) e
  Mat alpha;   // (1, T)
  Mat pooled;  // (1, d)
};

// Scores and weights only (no pooling): what the hard-attention models sample from.
void attention_scores_forward(const AttentionPooling& pool, const Mat& Hs, AttentionPoolingTrace& tr);
// Adds W, b, v gradients given de = dL/de (1, T); adds dHs (T, d) into *dHs.
void attention_scores_backward(AttentionPooling& pool, const Mat& Hs, const AttentionPoolingTrace& tr,
                               const Mat& de, Mat& dHs);
void attention_pooling_forward(const AttentionPooling& pool, const Mat& Hs, AttentionPoolingTrace& tr);
// dpooled (1, d) -> parameter gradients, and dHs (T, d) ADDED into dHs.
void attention_pooling_backward(AttentionPooling& pool, const Mat& Hs, const AttentionPoolingTrace& tr,
                                const Mat& dpooled, Mat& dHs);

// ---------------------------------------------------------------- 6 decoder attention
// One decoder state s (1, H_q) is the query; the encoder states Hs (S, H_k) are
// both keys and values.
//   additive (Bahdanau):     e_j = v . tanh(s W_q + Hs_j W_k)
//   general  (Luong):        e_j = s W Hs_j^T
//   dot      (Luong):        e_j = s . Hs_j                 (H_q == H_k)
//   alpha = softmax(e) (S),  context c = sum_j alpha_j Hs_j (1, H_k)
enum class AlignScore { additive, general, dot };
const char* align_score_name(AlignScore kind);

struct DecoderAttention {
  AlignScore kind = AlignScore::additive;
  Param W;    // general: (H_q, H_k)
  Param W_q;  // additive: (H_q, d_a)
  Param W_k;  // additive: (H_k, d_a)
  Param v;    // additive: (1, d_a)

  void init(const std::string& name, AlignScore kind, int H_q, int H_k, int d_a, Rng& rng);
  void collect(ParamList& out);
};

// Per source sentence: the key projections, computed once and reused by every
// decoder step; their gradient is gathered over the steps and applied once.
struct DecoderAttentionKeys {
  Mat K;   // additive: Hs W_k (S, d_a)
  Mat dK;  // additive: accumulated dL/dK (S, d_a)
};

struct DecoderAttentionStep {
  Mat U;        // additive: tanh(s W_q + K) (S, d_a)
  Mat sW;       // general: s W (1, H_k)
  Mat alpha;    // (1, S)
  Mat context;  // (1, H_k)
};

void decoder_attention_prepare(const DecoderAttention& att, const Mat& Hs, DecoderAttentionKeys& keys);
void decoder_attention_forward(const DecoderAttention& att, const float* s, const Mat& Hs,
                               const DecoderAttentionKeys& keys, DecoderAttentionStep& step);
// dcontext (H_k) -> ADDS ds (H_q) into ds, dHs into dHs (S, H_k), dK into keys.dK
// and parameter gradients (except W_k, see decoder_attention_finish).
void decoder_attention_backward(DecoderAttention& att, const float* s, const Mat& Hs,
                                DecoderAttentionKeys& keys, const DecoderAttentionStep& step,
                                const float* dcontext, float* ds, Mat& dHs);
// After the last step: W_k += Hs^T dK, dHs += dK W_k^T (additive only).
void decoder_attention_finish(DecoderAttention& att, const Mat& Hs, const DecoderAttentionKeys& keys, Mat& dHs);

}  // namespace attn::train
