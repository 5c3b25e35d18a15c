// decoder_attention.cpp: the decoder's causal self-attention, batched and one
// row at a time (see decoder_attention.h).
#include "train/decoder_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "train/kernels.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 options
VisibleKeys visible_keys(int i, int window, int sinks) {
  VisibleKeys v;
  if (window <= 0) return v;
  v.from = std::max(0, i - window + 1);
  v.sink_end = std::min(std::max(0, sinks), v.from);
  return v;
}

namespace {
// Query i's score for key j from their dot product: scaled, then ALiBi's bias.
// The batched pass and the cached step both take it from here.
inline float finish_score(float dot_product, float scale, const float* alibi, int t, int i, int j) {
  const float s = dot_product * scale;
  return alibi ? s - alibi[t] * float(i - j) : s;
}

// An overridden row's weights over the m keys it sees (visible run by run),
// spread back into a row of length i + 1 with zeros at the keys it cannot see.
void override_visible(const std::vector<float>& wanted_all, int i, const VisibleKeys& v,
                      std::vector<float>& wanted, std::vector<float>& weights, float* row) {
  const int m = v.count(i);
  wanted.assign(size_t(m), 0.0f);
  weights.resize(size_t(m));
  int k = 0;
  const auto take = [&](int j) {
    if (j < int(wanted_all.size())) wanted[size_t(k)] = wanted_all[size_t(j)];
    ++k;
  };
  for (int j = 0; j < v.sink_end; ++j) take(j);
  for (int j = v.from; j <= i; ++j) take(j);
  override_row_weights(wanted, m, weights.data());
  std::fill(row, row + i + 1, 0.0f);
  k = 0;
  for (int j = 0; j < v.sink_end; ++j) row[j] = weights[size_t(k++)];
  for (int j = v.from; j <= i; ++j) row[j] = weights[size_t(k++)];
}

// One head's block of a (R, .) matrix: sequence s's rows, from column off.
const float* head_block(const Mat& M, const RowBatch& rows, int s, int off) {
  return M.data() + size_t(rows.begin(s)) * size_t(M.cols()) + size_t(off);
}
float* head_block(Mat& M, const RowBatch& rows, int s, int off) {
  return M.data() + size_t(rows.begin(s)) * size_t(M.cols()) + size_t(off);
}

// Every d_h-column head of row r of M (heads of them) turned, or turned back,
// by position pos.
void turn_row(Mat& M, int r, int heads, int dh, const RopeTable& rope, int pos, bool back) {
  for (int t = 0; t < heads; ++t) {
    float* x = &M(r, t * dh);
    if (back) rope_turn_back(x, rope, pos);
    else rope_turn(x, rope, pos);
  }
}
// The same for every row of a batch, row j of each sequence at position j.
void turn_rows(Mat& M, const RowBatch& rows, int heads, int dh, const RopeTable& rope, bool back) {
  for (int s = 0; s < rows.count(); ++s)
    for (int j = 0; j < rows.length(s); ++j) turn_row(M, rows.begin(s) + j, heads, dh, rope, j, back);
}
}  // namespace

// ---------------------------------------------------------------- 2 the batched passes
const float* CausalAttentionTrace::p_at(const RowBatch& rows, int s, int t) const {
  const size_t n = size_t(rows.length(s));
  return P.data() + p_offset[size_t(s)] + size_t(t) * n * n;
}

void causal_attention_forward_rows(const SelfAttentionLayer& layer, const Mat& X, const RowBatch& rows,
                                   CausalAttentionTrace& tr, BatchScratch& scratch, const AttentionEdits* edits,
                                   const CausalOptions& o) {
  // self_attention_forward with causal = true, sequence by sequence.
  const int dh = layer.d_head, hd = layer.heads * dh, kv = layer_kv_heads(layer), kvd = kv * dh;
  const float scale = 1.0f / std::sqrt(float(dh));  // keeps score variance ~1 as d_h grows
  const float minus_inf = -std::numeric_limits<float>::infinity();
  tr.head_scale = edits ? edits->head_scale : std::vector<float>();
  tr.fixed_head = edits && edits->row >= 0 ? edits->row_head : -1;
  tr.fixed_row = tr.fixed_head >= 0 ? edits->row : -1;
  tr.pairs = 0;
  product_rows(X, layer.W_Q.value, tr.Q);
  product_rows(X, layer.W_K.value, tr.K);
  product_rows(X, layer.W_V.value, tr.V);
  if (o.rope) {
    turn_rows(tr.Q, rows, layer.heads, dh, *o.rope, false);
    turn_rows(tr.K, rows, kv, dh, *o.rope, false);
  }
  tr.p_offset.assign(size_t(rows.count()), 0);
  size_t total = 0;
  for (int s = 0; s < rows.count(); ++s) {
    tr.p_offset[size_t(s)] = total;
    total += size_t(layer.heads) * size_t(rows.length(s)) * size_t(rows.length(s));
  }
  tr.P.assign(total, 0.0f);
  tr.concat.resize(X.rows(), hd);
  std::vector<float> wanted, weights;
  for (int s = 0; s < rows.count(); ++s) {
    const int n = rows.length(s);
    if (n == 0) continue;  // a sequence with nothing to predict has no rows (and R may be 0)
    scratch.keys_t.resize(size_t(dh) * size_t(n));
    scratch.square.resize(size_t(n) * size_t(n));
    tr.pairs += (long long)layer.heads * n * (n + 1) / 2;
    for (int h = 0; h < layer.heads; ++h) {
      const int off = h * dh, off_kv = kv_head_of(h, layer.heads, kv) * dh;
      float* P = tr.P.data() + tr.p_offset[size_t(s)] + size_t(h) * size_t(n) * size_t(n);
      // 1. scores S (n, n) = Q_h K_g^T, each a dot product over d_h in order; only j <= i.
      transpose_into(head_block(tr.K, rows, s, off_kv), n, dh, kvd, scratch.keys_t.data(), n);
      Product sp = product_of(n, n, dh, head_block(tr.Q, rows, s, off), hd, scratch.keys_t.data(), n,
                              scratch.square.data(), n);
      sp.c_lower = true;
      product(sp);
      // 2. each row's softmax over its i + 1 earlier keys, those it cannot see at
      //    -inf (weight exactly 0); P stays 0 after them.
      for (int i = 0; i < n; ++i) {
        float* srow = scratch.square.data() + size_t(i) * size_t(n);
        const VisibleKeys v = visible_keys(i, o.window, o.sinks);
        if (h == tr.fixed_head && i == tr.fixed_row) {
          override_visible(edits->row_weights, i, v, wanted, weights, P + size_t(i) * size_t(n));
          continue;
        }
        for (int j = 0; j <= i; ++j)
          srow[j] = (j < v.sink_end || j >= v.from) ? finish_score(srow[j], scale, o.alibi, h, i, j) : minus_inf;
        softmax_row_fast(srow, i + 1, P + size_t(i) * size_t(n));
      }
      // 3. Z_h = P V_g: P's zeros after the diagonal add nothing, so the sum stops there.
      Product zp = product_of(n, dh, n, P, n, head_block(tr.V, rows, s, off_kv), kvd,
                              head_block(tr.concat, rows, s, off), hd);
      zp.a_lower = true;
      product(zp);
      const float hs = edited_head_scale(tr.head_scale, h);
      if (hs != 1.0f)
        for (int i = 0; i < n; ++i)
          for (int c = 0; c < dh; ++c) tr.concat(rows.begin(s) + i, off + c) *= hs;
    }
  }
  if (layer.output_projection)
    product_rows(tr.concat, layer.W_O.value, tr.out);
  else
    tr.out = tr.concat;
}

void causal_attention_backward_rows(const SelfAttentionLayer& layer, const Mat& X, const CausalAttentionTrace& tr,
                                    const Mat& dOut, const RowBatch& rows, const SequenceGrads& grads, Mat& dX,
                                    BatchScratch& scratch, const CausalOptions& o) {
  // self_attention_backward with causal = true and no edits, sequence by sequence.
  const int dh = layer.d_head, hd = layer.heads * dh, kv = layer_kv_heads(layer), kvd = kv * dh, R = int(X.rows());
  const int group = layer.heads / kv;  // query heads per key/value head
  const float scale = 1.0f / std::sqrt(float(dh));
  const Mat* dconcat_of = &dOut;
  if (layer.output_projection) {
    weight_gradient_rows(tr.concat, dOut, rows, layer.W_O, grads);
    input_gradient_rows(dOut, layer.W_O.value, scratch.dconcat, false, scratch);
    dconcat_of = &scratch.dconcat;
  }
  const Mat& dconcat = *dconcat_of;
  Mat& dQ = scratch.dQ;
  Mat& dK = scratch.dK;
  Mat& dV = scratch.dV;
  dQ.resize(R, hd);  // every element is written below
  dK.resize(R, kvd);
  dV.resize(R, kvd);
  for (int s = 0; s < rows.count(); ++s) {
    const int n = rows.length(s);
    if (n == 0) continue;
    scratch.values_t.resize(size_t(dh) * size_t(n));
    scratch.square.resize(size_t(n) * size_t(n));
    scratch.square_grad.resize(size_t(n) * size_t(n));
    for (int h = 0; h < layer.heads; ++h) {
      const int off = h * dh, off_kv = kv_head_of(h, layer.heads, kv) * dh;
      // A group's first head writes its key/value head's gradients, the others
      // add theirs in head order.
      const bool add = h % group != 0;
      const float* P = tr.p_at(rows, s, h);
      const float* dZ = head_block(dconcat, rows, s, off);
      // 1. dP (n, n) = dZ_h V_g^T (dot products over d_h; only j <= i are read).
      transpose_into(head_block(tr.V, rows, s, off_kv), n, dh, kvd, scratch.values_t.data(), n);
      Product dp = product_of(n, n, dh, dZ, hd, scratch.values_t.data(), n, scratch.square.data(), n);
      dp.c_lower = true;
      product(dp);
      // 2. dV_g (+)= P^T dZ_h: dV_j gains P(i, j) dZ_i for i = j, j + 1, ... in order.
      Product vp = product_of(n, dh, n, P, n, dZ, hd, head_block(dV, rows, s, off_kv), kvd);
      vp.a_transposed = true;
      vp.a_upper = true;
      vp.accumulate = add;
      product(vp);
      // 3. G(i, j) = the softmax's backward of row i, times the score scale; 0
      //    after i. A key the row cannot see has P = 0, so its G is 0 too (ALiBi's
      //    bias is a constant: nothing flows back through it).
      float* G = scratch.square_grad.data();
      for (int i = 0; i < n; ++i) {
        float* g = G + size_t(i) * size_t(n);
        softmax_row_backward(P + size_t(i) * size_t(n), scratch.square.data() + size_t(i) * size_t(n), i + 1, g);
        for (int j = 0; j <= i; ++j) g[j] *= scale;
        for (int j = i + 1; j < n; ++j) g[j] = 0.0f;
      }
      // 4. dQ_h = G K_g (over j <= i) and dK_g (+)= G^T Q_h (over i >= j).
      Product qp = product_of(n, dh, n, G, n, head_block(tr.K, rows, s, off_kv), kvd, head_block(dQ, rows, s, off), hd);
      qp.a_lower = true;
      product(qp);
      Product kp = product_of(n, dh, n, G, n, head_block(tr.Q, rows, s, off), hd, head_block(dK, rows, s, off_kv), kvd);
      kp.a_transposed = true;
      kp.a_upper = true;
      kp.accumulate = add;
      product(kp);
    }
  }
  if (o.rope) {  // the gradients of the turned Q and K, turned back to the projections' columns
    turn_rows(dQ, rows, layer.heads, dh, *o.rope, true);
    turn_rows(dK, rows, kv, dh, *o.rope, true);
  }
  weight_gradient_rows(X, dQ, rows, layer.W_Q, grads);
  weight_gradient_rows(X, dK, rows, layer.W_K, grads);
  weight_gradient_rows(X, dV, rows, layer.W_V, grads);
  input_gradient_rows(dQ, layer.W_Q.value, dX, false, scratch);
  input_gradient_rows(dK, layer.W_K.value, dX, true, scratch);
  input_gradient_rows(dV, layer.W_V.value, dX, true, scratch);
}

// ---------------------------------------------------------------- 3 one new row against a cache
void KvRing::reset(int w, int s, int wd) {
  window = std::max(0, w);
  sinks = window > 0 ? std::max(0, std::min(s, window)) : 0;
  width = wd;
  length = 0;
  K.clear();
  V.clear();
}

int KvRing::held() const {
  if (window <= 0) return length;
  return std::min(length, sinks) + std::min(std::max(0, length - sinks), window);
}

int KvRing::slot(int pos) const {
  if (window <= 0 || pos < sinks) return pos;
  return sinks + (pos - sinks) % window;
}

void causal_attention_step(const SelfAttentionLayer& layer, const Mat& x, const CausalOptions& o, KvRing& cache,
                           Mat& out, StepScratch& sc, const AttentionEdits* edits, long long* pairs) {
  const int dh = layer.d_head, hd = layer.heads * dh, kv = layer_kv_heads(layer), kvd = kv * dh;
  const float scale = 1.0f / std::sqrt(float(dh));
  const int i = cache.length;  // this row's position
  // 1. q, k, v of the new row (the batched products' sums, one row); k and v
  //    go into the cache at the row's slot.
  product_rows(x, layer.W_Q.value, sc.q);
  const size_t at = size_t(cache.slot(i)) * size_t(kvd);
  if (at + size_t(kvd) > cache.K.size()) {
    cache.K.resize(at + size_t(kvd));
    cache.V.resize(at + size_t(kvd));
  }
  product_rows(x, layer.W_K.value, sc.kv);
  std::copy_n(sc.kv.data(), kvd, cache.K.data() + at);
  product_rows(x, layer.W_V.value, sc.kv);
  std::copy_n(sc.kv.data(), kvd, cache.V.data() + at);
  if (o.rope) {
    turn_row(sc.q, 0, layer.heads, dh, *o.rope, i, false);
    for (int g = 0; g < kv; ++g) rope_turn(cache.K.data() + at + size_t(g) * size_t(dh), *o.rope, i);
  }
  cache.length = i + 1;
  const VisibleKeys v = visible_keys(i, o.window, o.sinks);
  const int m = v.count(i);
  std::vector<int>& keys = sc.keys;  // the visible positions in order
  keys.clear();
  for (int j = 0; j < v.sink_end; ++j) keys.push_back(j);
  for (int j = v.from; j <= i; ++j) keys.push_back(j);
  if (pairs) *pairs += (long long)layer.heads * m;
  Mat concat = Mat::Zero(1, hd);
  sc.scores.resize(size_t(m));
  sc.weights.resize(size_t(m));
  for (int h = 0; h < layer.heads; ++h) {
    const int off = h * dh, off_kv = kv_head_of(h, layer.heads, kv) * dh;
    const bool fixed = edits && edits->row >= 0 && edits->row_head == h && edits->row == i;
    // 2. the visible keys' scores and their softmax (the batched pass's, less its zeros).
    if (fixed) {
      sc.wanted.assign(size_t(m), 0.0f);
      for (int k = 0; k < m; ++k)
        if (keys[size_t(k)] < int(edits->row_weights.size())) sc.wanted[size_t(k)] = edits->row_weights[size_t(keys[size_t(k)])];
      override_row_weights(sc.wanted, m, sc.weights.data());
    } else {
      for (int k = 0; k < m; ++k) {
        const int j = keys[size_t(k)];
        const float* kj = cache.K.data() + size_t(cache.slot(j)) * size_t(kvd) + size_t(off_kv);
        sc.scores[size_t(k)] = finish_score(dot(&sc.q(0, off), kj, dh), scale, o.alibi, h, i, j);
      }
      softmax_row_fast(sc.scores.data(), m, sc.weights.data());
    }
    // 3. z = sum over the visible keys, in order, of P(i, j) V_g(j).
    float* z = &concat(0, off);
    for (int k = 0; k < m; ++k)
      axpy(sc.weights[size_t(k)], cache.V.data() + size_t(cache.slot(keys[size_t(k)])) * size_t(kvd) + size_t(off_kv), z, dh);
    const float hs = edits ? edited_head_scale(edits->head_scale, h) : 1.0f;
    if (hs != 1.0f)
      for (int c = 0; c < dh; ++c) z[c] *= hs;
  }
  if (layer.output_projection)
    product_rows(concat, layer.W_O.value, out);
  else
    out = concat;
}

}  // namespace attn::train
