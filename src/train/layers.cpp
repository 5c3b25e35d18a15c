// layers.cpp: forward and backward passes of the layers in layers.h.
//
// Sections follow layers.h: 1 embedding, 2 dense, 3 pooling/dropout/position,
// 4 recurrent layer, 5 attention pooling, 6 decoder attention.
#include "train/layers.h"

#include <algorithm>
#include <cmath>

#include "attn/positional.h"
#include "base/enum_names.h"
#include "train/fmath.h"
#include "train/kernels.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 embedding
void Embedding::init(const std::string& name, int vocab, int d, Rng& rng, float limit) {
  table = make_param(name + ".table", vocab, d);
  uniform_init(table, rng, limit);
}

void Embedding::forward(const std::vector<int>& ids, Mat& X) const {
  const int d = int(table.value.cols());
  X.resize(Eigen::Index(ids.size()), d);
  for (size_t i = 0; i < ids.size(); ++i)
    for (int c = 0; c < d; ++c) X(Eigen::Index(i), c) = table.value(ids[i], c);
}

void Embedding::backward(const std::vector<int>& ids, const Mat& dX) {
  const int d = int(table.value.cols());
  for (size_t i = 0; i < ids.size(); ++i)
    for (int c = 0; c < d; ++c) table.grad(ids[i], c) += dX(Eigen::Index(i), c);
}

// ---------------------------------------------------------------- 2 dense
void Dense::init(const std::string& name, int d_in, int d_out, Rng& rng) {
  W = make_param(name + ".W", d_in, d_out);
  b = make_param(name + ".b", 1, d_out);
  glorot_uniform(W, rng);
}

void Dense::forward(const Mat& X, Mat& Y) const {
  matmul(X, W.value, Y);
  add_row_bias(Y, b.value);
}

void Dense::backward(const Mat& X, const Mat& dY, Mat* dX) {
  matmul_tn_add(X, dY, W.grad);
  colsum_add(dY, b.grad);
  if (dX) matmul_nt(dY, W.value, *dX);
}

// ---------------------------------------------------------------- 3 pooling, dropout, position
Mat mean_rows(const Mat& X) {
  Mat m = Mat::Zero(1, X.cols());
  colsum_add(X, m);
  const float inv = 1.0f / float(X.rows() > 0 ? X.rows() : 1);
  for (Eigen::Index c = 0; c < m.cols(); ++c) m(0, c) *= inv;
  return m;
}

Mat mean_rows_backward(const Mat& dY, int n) {
  Mat dX(n, dY.cols());
  const float inv = 1.0f / float(n > 0 ? n : 1);
  for (int r = 0; r < n; ++r)
    for (Eigen::Index c = 0; c < dY.cols(); ++c) dX(r, c) = dY(0, c) * inv;
  return dX;
}

Mat dropout_mask(int rows, int cols, float p, Rng& rng) {
  Mat mask(rows, cols);
  const float keep_scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
  for (Eigen::Index k = 0; k < mask.size(); ++k) mask.data()[k] = rng.uniform() < p ? 0.0f : keep_scale;
  return mask;
}

Mat apply_mask(const Mat& X, const Mat& mask) {
  Mat Y(X.rows(), X.cols());
  for (Eigen::Index k = 0; k < X.size(); ++k) Y.data()[k] = X.data()[k] * mask.data()[k];
  return Y;
}

Mat relu(const Mat& X) {
  Mat Y(X.rows(), X.cols());
  for (Eigen::Index k = 0; k < X.size(); ++k) Y.data()[k] = X.data()[k] > 0.0f ? X.data()[k] : 0.0f;
  return Y;
}

Mat relu_backward(const Mat& X, const Mat& dY) {
  Mat dX(X.rows(), X.cols());
  for (Eigen::Index k = 0; k < X.size(); ++k) dX.data()[k] = X.data()[k] > 0.0f ? dY.data()[k] : 0.0f;
  return dX;
}

Mat add_sinusoidal_position(const Mat& X) {
  PositionalDesc desc;
  desc.n = int(X.rows());
  desc.d = int(X.cols());
  const Mat PE = sinusoidal_encoding(desc);  // (n, d), a constant table
  Mat Y(X.rows(), X.cols());
  for (Eigen::Index k = 0; k < X.size(); ++k) Y.data()[k] = X.data()[k] + PE.data()[k];
  return Y;
}

// ---------------------------------------------------------------- 4 recurrent layer
void RecurrentLayer::init(const std::string& name, CellKind cell_kind, int input_size, int hidden, Rng& rng) {
  cell = cell_kind;
  d_in = input_size;
  H = hidden;
  const int G = gates();
  W_x = make_param(name + ".W_x", d_in, G * H);
  W_h = make_param(name + ".W_h", H, G * H);
  b_x = make_param(name + ".b_x", 1, G * H);
  b_h = make_param(name + ".b_h", 1, G * H);
  // Glorot with the fan of ONE gate block: each block is its own (d_in, H) map.
  const float lim_x = std::sqrt(6.0f / float(d_in + H));
  const float lim_h = std::sqrt(6.0f / float(H + H));
  uniform_init(W_x, rng, lim_x);
  uniform_init(W_h, rng, lim_h);
  if (cell == CellKind::lstm)
    for (int j = 0; j < H; ++j) b_x.value(0, H + j) = 1.0f;  // forget gate block f
}

void recurrent_trace_resize(const RecurrentLayer& layer, int T, RecurrentTrace& tr) {
  const int H = layer.H, GH = layer.gates() * H;
  tr.X.resize(T, layer.d_in);
  tr.H_prev.resize(T, H);
  tr.gates.resize(T, GH);
  tr.H.resize(T, H);
  const bool lstm = layer.cell == CellKind::lstm;
  tr.C_prev.resize(lstm ? T : 0, H);
  tr.C.resize(lstm ? T : 0, H);
  tr.tanh_c.resize(lstm ? T : 0, H);
  tr.hh_n.resize(layer.cell == CellKind::gru ? T : 0, H);
}

void recurrent_step_forward(const RecurrentLayer& layer, const float* x, const float* h_prev, const float* c_prev,
                            int t, RecurrentTrace& tr) {
  const int H = layer.H, GH = layer.gates() * H;
  std::copy(x, x + layer.d_in, &tr.X(t, 0));
  std::copy(h_prev, h_prev + H, &tr.H_prev(t, 0));
  // gi = x W_x + b_x, gh = h_prev W_h + b_h: (G*H) each.
  std::vector<float> gi(GH), gh(GH);
  vec_mat(x, layer.W_x.value, gi.data());
  vec_mat(h_prev, layer.W_h.value, gh.data());
  for (int k = 0; k < GH; ++k) {
    gi[k] += layer.b_x.value(0, k);
    gh[k] += layer.b_h.value(0, k);
  }
  float* g = &tr.gates(t, 0);
  float* h = &tr.H(t, 0);
  switch (layer.cell) {
    case CellKind::rnn_tanh:
      for (int j = 0; j < H; ++j) h[j] = g[j] = tanh_f(gi[j] + gh[j]);
      break;
    case CellKind::lstm: {
      std::copy(c_prev, c_prev + H, &tr.C_prev(t, 0));
      float* c = &tr.C(t, 0);
      float* tc = &tr.tanh_c(t, 0);
      for (int j = 0; j < H; ++j) {
        const float i = sigmoid_f(gi[j] + gh[j]);
        const float f = sigmoid_f(gi[H + j] + gh[H + j]);
        const float gg = tanh_f(gi[2 * H + j] + gh[2 * H + j]);
        const float o = sigmoid_f(gi[3 * H + j] + gh[3 * H + j]);
        g[j] = i; g[H + j] = f; g[2 * H + j] = gg; g[3 * H + j] = o;
        c[j] = f * c_prev[j] + i * gg;
        tc[j] = tanh_f(c[j]);
        h[j] = o * tc[j];
      }
      break;
    }
    case CellKind::gru: {
      float* hn = &tr.hh_n(t, 0);
      for (int j = 0; j < H; ++j) {
        const float r = sigmoid_f(gi[j] + gh[j]);
        const float z = sigmoid_f(gi[H + j] + gh[H + j]);
        hn[j] = gh[2 * H + j];
        const float n = tanh_f(gi[2 * H + j] + r * hn[j]);
        g[j] = r; g[H + j] = z; g[2 * H + j] = n;
        h[j] = (1.0f - z) * n + z * h_prev[j];
      }
      break;
    }
  }
}

void recurrent_step_backward(const RecurrentLayer& layer, const RecurrentTrace& tr, int t, const float* dh,
                             const float* dc, float* dgi, float* dgh, float* dh_prev, float* dc_prev) {
  const int H = layer.H, GH = layer.gates() * H;
  const float* g = &tr.gates(t, 0);
  for (int j = 0; j < H; ++j) dh_prev[j] = 0.0f;
  switch (layer.cell) {
    case CellKind::rnn_tanh:
      for (int j = 0; j < H; ++j) dgi[j] = dgh[j] = dh[j] * (1.0f - g[j] * g[j]);
      break;
    case CellKind::lstm: {
      const float* tc = &tr.tanh_c(t, 0);
      const float* cp = &tr.C_prev(t, 0);
      for (int j = 0; j < H; ++j) {
        const float i = g[j], f = g[H + j], gg = g[2 * H + j], o = g[3 * H + j];
        // dc_t from the next step plus the path through h_t = o tanh(c_t)
        const float dct = (dc ? dc[j] : 0.0f) + dh[j] * o * (1.0f - tc[j] * tc[j]);
        dgi[j] = dct * gg * i * (1.0f - i);
        dgi[H + j] = dct * cp[j] * f * (1.0f - f);
        dgi[2 * H + j] = dct * i * (1.0f - gg * gg);
        dgi[3 * H + j] = dh[j] * tc[j] * o * (1.0f - o);
        dc_prev[j] = dct * f;
      }
      std::copy(dgi, dgi + GH, dgh);
      break;
    }
    case CellKind::gru: {
      const float* hp = &tr.H_prev(t, 0);
      const float* hn = &tr.hh_n(t, 0);
      for (int j = 0; j < H; ++j) {
        const float r = g[j], z = g[H + j], n = g[2 * H + j];
        const float dan = dh[j] * (1.0f - z) * (1.0f - n * n);  // through n = tanh(a_n)
        const float daz = dh[j] * (hp[j] - n) * z * (1.0f - z);
        const float dar = dan * hn[j] * r * (1.0f - r);
        dgi[j] = dgh[j] = dar;
        dgi[H + j] = dgh[H + j] = daz;
        dgi[2 * H + j] = dan;
        dgh[2 * H + j] = dan * r;  // r multiplies only the recurrent part
        dh_prev[j] = dh[j] * z;    // the direct path h_t = ... + z h_prev
      }
      break;
    }
  }
  vec_mat_t_add(dgh, layer.W_h.value, dh_prev);  // through gh = h_prev W_h + b_h
}

void recurrent_weight_grads(RecurrentLayer& layer, const RecurrentTrace& tr, const Mat& dGi, const Mat& dGh,
                            Mat* dX) {
  matmul_tn_add(tr.X, dGi, layer.W_x.grad);
  colsum_add(dGi, layer.b_x.grad);
  matmul_tn_add(tr.H_prev, dGh, layer.W_h.grad);
  colsum_add(dGh, layer.b_h.grad);
  if (dX) matmul_nt(dGi, layer.W_x.value, *dX);
}

void recurrent_forward(const RecurrentLayer& layer, const Mat& X, bool reverse, RecurrentTrace& tr, const Mat* h0,
                       const Mat* c0) {
  const int T = int(X.rows()), H = layer.H;
  tr.reverse = reverse;
  recurrent_trace_resize(layer, T, tr);
  const std::vector<float> zeros(H, 0.0f);
  const float* h_prev = h0 ? h0->data() : zeros.data();
  const float* c_prev = c0 ? c0->data() : zeros.data();
  for (int s = 0; s < T; ++s) {
    const int t = reverse ? T - 1 - s : s;
    recurrent_step_forward(layer, &X(t, 0), h_prev, c_prev, t, tr);
    h_prev = &tr.H(t, 0);
    if (layer.cell == CellKind::lstm) c_prev = &tr.C(t, 0);
  }
}

void recurrent_backward(RecurrentLayer& layer, const RecurrentTrace& tr, const Mat& dH, Mat* dX, Mat* dh0,
                        const Mat* dc_last) {
  const int T = tr.steps(), H = layer.H, GH = layer.gates() * H;
  Mat dGi(T, GH), dGh(T, GH);
  std::vector<float> dh(H), dh_next(H, 0.0f), dc_next(H, 0.0f), dc_prev(H, 0.0f);
  const bool lstm = layer.cell == CellKind::lstm;
  if (lstm && dc_last)
    for (int j = 0; j < H; ++j) dc_next[j] = (*dc_last)(0, j);
  for (int s = T - 1; s >= 0; --s) {  // processing order, backwards
    const int t = tr.reverse ? T - 1 - s : s;
    for (int j = 0; j < H; ++j) dh[j] = dH(t, j) + dh_next[j];
    recurrent_step_backward(layer, tr, t, dh.data(), lstm ? dc_next.data() : nullptr, &dGi(t, 0), &dGh(t, 0),
                            dh_next.data(), dc_prev.data());
    if (lstm) dc_next = dc_prev;
  }
  if (dh0) {
    dh0->resize(1, H);
    for (int j = 0; j < H; ++j) (*dh0)(0, j) = dh_next[j];
  }
  recurrent_weight_grads(layer, tr, dGi, dGh, dX);
}

// ---------------------------------------------------------------- 5 attention pooling
void AttentionPooling::init(const std::string& name, int d, int d_a, Rng& rng) {
  W = make_param(name + ".W", d, d_a);
  b = make_param(name + ".b", 1, d_a);
  v = make_param(name + ".v", 1, d_a);
  glorot_uniform(W, rng);
  glorot_uniform(v, rng, d_a, 1);
}

void attention_scores_forward(const AttentionPooling& pool, const Mat& Hs, AttentionPoolingTrace& tr) {
  const int T = int(Hs.rows()), da = int(pool.W.value.cols());
  matmul(Hs, pool.W.value, tr.U);
  tr.scores.resize(1, T);
  for (int t = 0; t < T; ++t) {
    for (int a = 0; a < da; ++a) tr.U(t, a) = tanh_f(tr.U(t, a) + pool.b.value(0, a));
    tr.scores(0, t) = dot(&tr.U(t, 0), pool.v.value.data(), da);
  }
  tr.alpha.resize(1, T);
  softmax_row(tr.scores.data(), T, tr.alpha.data());
}

void attention_scores_backward(AttentionPooling& pool, const Mat& Hs, const AttentionPoolingTrace& tr, const Mat& de,
                               Mat& dHs) {
  const int T = int(Hs.rows()), da = int(pool.W.value.cols());
  Mat dA(T, da);  // dL/d(Hs W + b), through tanh
  for (int t = 0; t < T; ++t) {
    axpy(de(0, t), &tr.U(t, 0), pool.v.grad.data(), da);
    for (int a = 0; a < da; ++a) dA(t, a) = de(0, t) * pool.v.value(0, a) * (1.0f - tr.U(t, a) * tr.U(t, a));
  }
  matmul_tn_add(Hs, dA, pool.W.grad);
  colsum_add(dA, pool.b.grad);
  matmul_nt_add(dA, pool.W.value, dHs);
}

void attention_pooling_forward(const AttentionPooling& pool, const Mat& Hs, AttentionPoolingTrace& tr) {
  attention_scores_forward(pool, Hs, tr);
  tr.pooled.setZero(1, Hs.cols());
  for (Eigen::Index t = 0; t < Hs.rows(); ++t) axpy(tr.alpha(0, t), &Hs(t, 0), tr.pooled.data(), int(Hs.cols()));
}

void attention_pooling_backward(AttentionPooling& pool, const Mat& Hs, const AttentionPoolingTrace& tr,
                                const Mat& dpooled, Mat& dHs) {
  const int T = int(Hs.rows()), d = int(Hs.cols());
  Mat dalpha(1, T), de(1, T);
  for (int t = 0; t < T; ++t) {
    dalpha(0, t) = dot(dpooled.data(), &Hs(t, 0), d);
    axpy(tr.alpha(0, t), dpooled.data(), &dHs(t, 0), d);
  }
  softmax_row_backward(tr.alpha.data(), dalpha.data(), T, de.data());
  attention_scores_backward(pool, Hs, tr, de, dHs);
}

// ---------------------------------------------------------------- 6 decoder attention
namespace {
constexpr EnumName<AlignScore> kAlignScores[] = {
    {AlignScore::additive, "additive"}, {AlignScore::general, "general"}, {AlignScore::dot, "dot"}};
}  // namespace

const char* align_score_name(AlignScore kind) { return enum_name(kAlignScores, kind); }

void DecoderAttention::init(const std::string& name, AlignScore k, int H_q, int H_k, int d_a, Rng& rng) {
  kind = k;
  if (kind == AlignScore::general) {
    W = make_param(name + ".W", H_q, H_k);
    glorot_uniform(W, rng);
  } else if (kind == AlignScore::additive) {
    W_q = make_param(name + ".W_q", H_q, d_a);
    W_k = make_param(name + ".W_k", H_k, d_a);
    v = make_param(name + ".v", 1, d_a);
    glorot_uniform(W_q, rng);
    glorot_uniform(W_k, rng);
    glorot_uniform(v, rng, d_a, 1);
  }
}

void DecoderAttention::collect(ParamList& out) {
  if (kind == AlignScore::general) out.push_back(&W);
  if (kind == AlignScore::additive) {
    out.push_back(&W_q);
    out.push_back(&W_k);
    out.push_back(&v);
  }
}

void decoder_attention_prepare(const DecoderAttention& att, const Mat& Hs, DecoderAttentionKeys& keys) {
  if (att.kind != AlignScore::additive) return;
  matmul(Hs, att.W_k.value, keys.K);
  keys.dK.setZero(keys.K.rows(), keys.K.cols());
}

void decoder_attention_forward(const DecoderAttention& att, const float* s, const Mat& Hs,
                               const DecoderAttentionKeys& keys, DecoderAttentionStep& step) {
  const int S = int(Hs.rows()), Hk = int(Hs.cols());
  Mat e(1, S);  // scores e_j
  switch (att.kind) {
    case AlignScore::additive: {
      const int da = int(att.W_q.value.cols());
      std::vector<float> q(da);
      vec_mat(s, att.W_q.value, q.data());  // s W_q: (d_a)
      step.U.resize(S, da);
      for (int j = 0; j < S; ++j) {
        for (int a = 0; a < da; ++a) step.U(j, a) = tanh_f(q[a] + keys.K(j, a));
        e(0, j) = dot(&step.U(j, 0), att.v.value.data(), da);
      }
      break;
    }
    case AlignScore::general:
      step.sW.resize(1, Hk);
      vec_mat(s, att.W.value, step.sW.data());  // s W: (H_k)
      for (int j = 0; j < S; ++j) e(0, j) = dot(step.sW.data(), &Hs(j, 0), Hk);
      break;
    case AlignScore::dot:
      for (int j = 0; j < S; ++j) e(0, j) = dot(s, &Hs(j, 0), Hk);
      break;
  }
  step.alpha.resize(1, S);
  softmax_row(e.data(), S, step.alpha.data());
  step.context.setZero(1, Hk);
  for (int j = 0; j < S; ++j) axpy(step.alpha(0, j), &Hs(j, 0), step.context.data(), Hk);
}

void decoder_attention_backward(DecoderAttention& att, const float* s, const Mat& Hs, DecoderAttentionKeys& keys,
                                const DecoderAttentionStep& step, const float* dcontext, float* ds, Mat& dHs) {
  const int S = int(Hs.rows()), Hk = int(Hs.cols());
  std::vector<float> dalpha(S), de(S);
  for (int j = 0; j < S; ++j) {
    dalpha[j] = dot(dcontext, &Hs(j, 0), Hk);
    axpy(step.alpha(0, j), dcontext, &dHs(j, 0), Hk);  // values path
  }
  softmax_row_backward(step.alpha.data(), dalpha.data(), S, de.data());
  switch (att.kind) {
    case AlignScore::additive: {
      const int da = int(att.W_q.value.cols());
      std::vector<float> dq(da, 0.0f), dA(da);
      for (int j = 0; j < S; ++j) {
        axpy(de[j], &step.U(j, 0), att.v.grad.data(), da);
        for (int a = 0; a < da; ++a) dA[a] = de[j] * att.v.value(0, a) * (1.0f - step.U(j, a) * step.U(j, a));
        axpy(1.0f, dA.data(), dq.data(), da);
        axpy(1.0f, dA.data(), &keys.dK(j, 0), da);
      }
      outer_add(s, dq.data(), att.W_q.grad);
      vec_mat_t_add(dq.data(), att.W_q.value, ds);
      break;
    }
    case AlignScore::general: {
      std::vector<float> dsW(Hk, 0.0f);
      for (int j = 0; j < S; ++j) {
        axpy(de[j], &Hs(j, 0), dsW.data(), Hk);
        axpy(de[j], step.sW.data(), &dHs(j, 0), Hk);  // keys path
      }
      outer_add(s, dsW.data(), att.W.grad);
      vec_mat_t_add(dsW.data(), att.W.value, ds);
      break;
    }
    case AlignScore::dot:
      for (int j = 0; j < S; ++j) {
        axpy(de[j], &Hs(j, 0), ds, Hk);
        axpy(de[j], s, &dHs(j, 0), Hk);
      }
      break;
  }
}

void decoder_attention_finish(DecoderAttention& att, const Mat& Hs, const DecoderAttentionKeys& keys, Mat& dHs) {
  if (att.kind != AlignScore::additive) return;
  matmul_tn_add(Hs, keys.dK, att.W_k.grad);
  matmul_nt_add(keys.dK, att.W_k.value, dHs);
}

}  // namespace attn::train
