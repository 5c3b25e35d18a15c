// softmax.cpp: masks, the stable masked softmax and its backward pass.
//
// Sections: 1 masks, 2 softmax forward, 3 backward, 4 names.
#include "attn/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

// ---------------------------------------------------------------- 1 masks
BoolMat build_mask(const MaskDesc& mask, int n_q, int n_k, std::string* error) {
  auto fail = [&](const std::string& message) {
    if (error) *error = message;
    return BoolMat();
  };
  if (n_q < 0 || n_k < 0) return fail("mask: negative size");
  BoolMat allowed = BoolMat::Constant(n_q, n_k, true);  // (n_q, n_k)
  switch (mask.kind) {
    case MaskKind::none:
      break;
    case MaskKind::causal:
      // Query i may see keys 0..i: everything right of the diagonal is the future.
      for (int i = 0; i < n_q; ++i)
        for (int j = i + 1; j < n_k; ++j) allowed(i, j) = false;
      break;
    case MaskKind::padding: {
      const size_t count = mask.key_lengths.size();
      if (count != 1 && count != size_t(n_q))
        return fail("mask: padding needs 1 or n_q = " + std::to_string(n_q) + " key lengths, got " +
                    std::to_string(count));
      for (int i = 0; i < n_q; ++i) {
        const int length = std::clamp(mask.key_lengths[count == 1 ? 0 : size_t(i)], 0, n_k);
        for (int j = length; j < n_k; ++j) allowed(i, j) = false;
      }
      break;
    }
    case MaskKind::explicit_mask:
      if (mask.allowed.rows() != n_q || mask.allowed.cols() != n_k)
        return fail("mask: explicit mask is (" + std::to_string(mask.allowed.rows()) + ", " +
                    std::to_string(mask.allowed.cols()) + "), expected (n_q, n_k) = (" +
                    std::to_string(n_q) + ", " + std::to_string(n_k) + ")");
      allowed = mask.allowed;
      break;
  }
  return allowed;
}

// ---------------------------------------------------------------- 2 softmax forward
Mat masked_softmax(const Mat& logits, const BoolMat& allowed, Warnings* warnings) {
  const float inf = std::numeric_limits<float>::infinity();
  const Eigen::Index n_q = logits.rows(), n_k = logits.cols();
  const bool use_mask = allowed.size() > 0;
  Mat P = Mat::Zero(n_q, n_k);  // weights: (n_q, n_k)
  Eigen::ArrayXf row(n_k);      // one row of logits with hidden entries at -inf
  long nan_count = 0, fully_masked = 0;
  Eigen::Index first_masked_row = -1;

  for (Eigen::Index i = 0; i < n_q; ++i) {
    // Pass 1: hide masked and NaN entries behind -inf, so they behave exactly
    // like a logit of -inf: weight 0, never part of the maximum.
    for (Eigen::Index j = 0; j < n_k; ++j) {
      const float x = logits(i, j);
      bool visible = !use_mask || allowed(i, j);
      if (visible && std::isnan(x)) {
        ++nan_count;
        visible = false;
      }
      row[j] = visible ? x : -inf;
    }
    const float m = n_k > 0 ? row.maxCoeff() : -inf;

    // Nothing visible: exp would give 0/0. Leave the row at zero and say so.
    if (m == -inf) {
      if (first_masked_row < 0) first_masked_row = i;
      ++fully_masked;
      continue;
    }
    // +inf is the limit of an ever larger logit: those entries take all the
    // weight, shared equally (inf - inf would otherwise give NaN).
    if (m == inf) {
      const Eigen::ArrayXf winners = (row == inf).cast<float>();
      P.row(i) = (winners / winners.sum()).matrix().transpose();
      continue;
    }
    // Pass 2: subtract the row max so the largest exponent is exp(0) = 1:
    // no overflow for huge logits (1e4), and the sum is >= 1, so no underflow
    // to 0/0 for very negative ones (-1e4). -inf entries are selected to an
    // exact 0 rather than trusting the vectorised exp at -inf.
    const Eigen::ArrayXf e = (row > -inf).select((row - m).exp(), 0.0f);
    // Pass 3: normalise so the row sums to 1.
    P.row(i) = (e / e.sum()).matrix().transpose();
  }

  if (warnings && nan_count > 0)
    warnings->push_back("softmax: " + std::to_string(nan_count) +
                        " NaN score(s) were treated as masked (weight 0)");
  if (warnings && fully_masked > 0)
    warnings->push_back("softmax: " + std::to_string(fully_masked) + " row(s) fully masked (first: row " +
                        std::to_string(first_masked_row) +
                        "); their weights are all zero, so their output is zero");
  return P;
}

Mat softmax_rows(const Mat& logits, Warnings* warnings) { return masked_softmax(logits, BoolMat(), warnings); }

float row_entropy(const Mat& weights, Eigen::Index r) {
  double h = 0.0;
  for (Eigen::Index c = 0; c < weights.cols(); ++c)
    if (weights(r, c) > 0.0f) h -= double(weights(r, c)) * std::log(double(weights(r, c)));
  return float(h);
}

// ---------------------------------------------------------------- 3 backward
Mat softmax_backward(const Mat& weights, const Mat& grad_weights) {
  // p_j = e_j / sum e  =>  dL/dlogit_j = p_j (dL/dp_j - sum_k p_k dL/dp_k).
  const Eigen::ArrayXf expected = (weights.array() * grad_weights.array()).rowwise().sum();  // (n_q)
  Mat grad_logits = (weights.array() * (grad_weights.array().colwise() - expected)).matrix();  // (n_q, n_k)
  return grad_logits;
}

// ---------------------------------------------------------------- 4 names
const char* mask_kind_name(MaskKind kind) {
  switch (kind) {
    case MaskKind::none: return "none";
    case MaskKind::causal: return "causal";
    case MaskKind::padding: return "padding";
    case MaskKind::explicit_mask: return "explicit";
  }
  return "none";
}

bool parse_mask_kind(const std::string& name, MaskKind* kind) {
  if (name == "none") *kind = MaskKind::none;
  else if (name == "causal") *kind = MaskKind::causal;
  else if (name == "padding") *kind = MaskKind::padding;
  else if (name == "explicit") *kind = MaskKind::explicit_mask;
  else return false;
  return true;
}

}  // namespace attn
