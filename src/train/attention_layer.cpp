// attention_layer.cpp: multi-head self-attention's forward and backward passes
// (see attention_layer.h).
#include "train/attention_layer.h"

#include <algorithm>
#include <cmath>

#include "train/fmath.h"
#include "train/kernels.h"

namespace attn::train {

void SelfAttentionLayer::init(const std::string& name, int dm, int h, int dh, int d_out, Rng& rng, int kv_heads) {
  d_model = dm;
  heads = h;
  d_head = dh;
  output_projection = d_out > 0;
  const int kv = kv_heads > 0 ? kv_heads : h;
  W_Q = make_param(name + ".W_Q", dm, h * dh);
  W_K = make_param(name + ".W_K", dm, kv * dh);
  W_V = make_param(name + ".W_V", dm, kv * dh);
  glorot_uniform(W_Q, rng);
  glorot_uniform(W_K, rng);
  glorot_uniform(W_V, rng);
  if (output_projection) {
    W_O = make_param(name + ".W_O", h * dh, d_out);
    glorot_uniform(W_O, rng);
  }
}

void SelfAttentionLayer::collect(ParamList& out) {
  out.push_back(&W_Q);
  out.push_back(&W_K);
  out.push_back(&W_V);
  if (output_projection) out.push_back(&W_O);
}

void override_row_weights(const std::vector<float>& wanted, int m, float* p) {
  double total = 0.0;
  for (int j = 0; j < m; ++j) {
    p[j] = j < int(wanted.size()) ? std::max(0.0f, wanted[size_t(j)]) : 0.0f;
    total += p[j];
  }
  for (int j = 0; j < m; ++j) p[j] = total > 0.0 ? float(p[j] / total) : 1.0f / float(m);
}

float edited_head_scale(const std::vector<float>& scale, int h) {
  return h < int(scale.size()) ? scale[size_t(h)] : 1.0f;
}

void self_attention_forward(const SelfAttentionLayer& layer, const Mat& X, SelfAttentionTrace& tr,
                            const AttentionEdits* edits, int valid) {
  const int n = int(X.rows()), dh = layer.d_head;
  const float scale = 1.0f / std::sqrt(float(dh));  // keeps score variance ~1 as d_h grows
  // Positions >= nv are padding: no query reads them (their scores would be -inf,
  // their weights exactly 0), so each softmax runs over keys < nv only; and their
  // own rows are not computed (Q, K, V and the outputs stay 0 there). The real rows
  // get the very bits an unpadded input of nv rows gets.
  const int nv = valid >= 0 && valid < n ? valid : n;
  tr.X = X;
  tr.valid = nv;
  tr.head_scale = edits ? edits->head_scale : std::vector<float>();
  tr.fixed_head = edits && edits->row >= 0 && edits->row < nv ? edits->row_head : -1;
  tr.fixed_row = tr.fixed_head >= 0 ? edits->row : -1;
  const Mat Xv = nv < n ? Mat(X.topRows(nv)) : Mat();
  const Mat& Xr = nv < n ? Xv : X;  // the rows that are not padding
  matmul(Xr, layer.W_Q.value, tr.Q);
  matmul(Xr, layer.W_K.value, tr.K);
  matmul(Xr, layer.W_V.value, tr.V);
  for (Mat* m : {&tr.Q, &tr.K, &tr.V}) {
    m->conservativeResize(n, Eigen::NoChange);
    m->bottomRows(n - nv).setZero();
  }
  tr.P.assign(layer.heads, Mat());
  tr.concat.setZero(n, layer.heads * dh);
  std::vector<float> s(n);
  for (int h = 0; h < layer.heads; ++h) {
    const int off = h * dh;
    const float hs = edited_head_scale(tr.head_scale, h);
    Mat& P = tr.P[h];
    P.setZero(n, n);
    for (int i = 0; i < nv; ++i) {
      const int m = layer.causal ? i + 1 : nv;  // visible keys
      if (h == tr.fixed_head && i == tr.fixed_row) {
        override_row_weights(edits->row_weights, m, &P(i, 0));
      } else {
        for (int j = 0; j < m; ++j) s[j] = dot(&tr.Q(i, off), &tr.K(j, off), dh) * scale;  // scores
        softmax_row(s.data(), m, &P(i, 0));
      }
      for (int j = 0; j < m; ++j) axpy(P(i, j), &tr.V(j, off), &tr.concat(i, off), dh);  // Z_h row i
      if (hs != 1.0f)
        for (int c = 0; c < dh; ++c) tr.concat(i, off + c) *= hs;
    }
  }
  if (layer.output_projection)
    matmul(tr.concat, layer.W_O.value, tr.out);
  else
    tr.out = tr.concat;
}

void self_attention_backward(SelfAttentionLayer& layer, const SelfAttentionTrace& tr, const Mat& dOut, Mat& dX) {
  const int n = int(tr.X.rows()), nv = tr.valid, dh = layer.d_head, hd = layer.heads * dh;
  const float scale = 1.0f / std::sqrt(float(dh));
  Mat dconcat;
  if (layer.output_projection) {
    matmul_tn_add(tr.concat, dOut, layer.W_O.grad);
    matmul_nt(dOut, layer.W_O.value, dconcat);
  } else {
    dconcat = dOut;
  }
  Mat dQ = Mat::Zero(nv, hd), dK = Mat::Zero(nv, hd), dV = Mat::Zero(nv, hd);
  std::vector<float> dp(n), ds(n);
  for (int h = 0; h < layer.heads; ++h) {
    const int off = h * dh;
    const float hs = edited_head_scale(tr.head_scale, h);
    if (hs != 1.0f)  // dZ_h = scale * d(scaled Z_h)
      for (int i = 0; i < nv; ++i)
        for (int c = 0; c < dh; ++c) dconcat(i, off + c) *= hs;
    const Mat& P = tr.P[h];
    for (int i = 0; i < nv; ++i) {  // padding rows were not computed: nothing flows back through them
      const int m = layer.causal ? i + 1 : nv;
      for (int j = 0; j < m; ++j) {
        dp[j] = dot(&dconcat(i, off), &tr.V(j, off), dh);  // dL/dP(i, j)
        axpy(P(i, j), &dconcat(i, off), &dV(j, off), dh);  // dV_j += P_ij dZ_i
      }
      if (h == tr.fixed_head && i == tr.fixed_row) continue;  // fixed weights: no score gradient
      softmax_row_backward(&P(i, 0), dp.data(), m, ds.data());
      for (int j = 0; j < m; ++j) {
        const float g = ds[j] * scale;
        axpy(g, &tr.K(j, off), &dQ(i, off), dh);
        axpy(g, &tr.Q(i, off), &dK(j, off), dh);
      }
    }
  }
  const Mat Xv = nv < n ? Mat(tr.X.topRows(nv)) : Mat();
  const Mat& Xr = nv < n ? Xv : tr.X;
  matmul_tn_add(Xr, dQ, layer.W_Q.grad);
  matmul_tn_add(Xr, dK, layer.W_K.grad);
  matmul_tn_add(Xr, dV, layer.W_V.grad);
  matmul_nt(dQ, layer.W_Q.value, dX);
  matmul_nt_add(dK, layer.W_K.value, dX);
  matmul_nt_add(dV, layer.W_V.value, dX);
  if (nv < n) {  // the padding rows of X get no gradient
    dX.conservativeResize(n, Eigen::NoChange);
    dX.bottomRows(n - nv).setZero();
  }
}

}  // namespace attn::train
