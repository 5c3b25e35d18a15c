// reference.h: naive, obviously-correct versions of every forward operation in
// softmax.h, scores.h, attention.h, multihead.h and positional.h. Plain loops,
// double accumulators, no Eigen expressions beyond element access. They exist
// so the tests can compare the Eigen (and later SIMD) kernels against them over
// a sweep of shapes; they are slow on purpose and never used by the lab itself.
//
// Inputs are assumed valid (shape checks live in the real kernels). Semantics
// match the real kernels exactly, including masks, inf/NaN handling, seeds
// (same attn::Rng draw order) and the local-p Gaussian window.
#pragma once

#include "attn/attention.h"
#include "attn/multihead.h"
#include "attn/positional.h"
#include "attn/scores.h"
#include "attn/softmax.h"
#include "base/tensor.h"

namespace attn::ref {

// allowed (n_q, n_k), see attn::build_mask.
BoolMat build_mask(const MaskDesc& mask, int n_q, int n_k);

// Row-wise masked softmax with the rules of attn::masked_softmax (empty
// `allowed` = all allowed). Does not emit warnings.
Mat masked_softmax(const Mat& logits, const BoolMat& allowed);

// scores (n_q, n_k) = kind(Q, K) / temperature.
Mat scores(const Mat& Q, const Mat& K, const ScoreDesc& desc, const ScoreParams& params);

// Every mode of attn::attention_forward; fills scores, weights, output, centers,
// gumbel_noise and allowed (not warnings).
AttentionResult attention(const Mat& Q, const Mat& K, const Mat& V, const AttentionDesc& desc,
                          const AttentionParams& params);

// Fills q, k, v, scores, weights, head_output, concat and output.
MultiHeadResult multihead(const Mat& X_q, const Mat& X_kv, const MultiHeadDesc& desc,
                          const MultiHeadParams& params);

// PE (n, d), one std::pow / std::sin / std::cos per element, straight from the
// formula of each layout.
Mat sinusoidal_encoding(const PositionalDesc& desc);

Mat combine_positional(const Mat& X, const Mat& PE, CombineKind kind);

}  // namespace attn::ref
