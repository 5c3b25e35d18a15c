// softmax.h: masks and the numerically stable row-wise softmax that turns raw
// scores into attention weights (stage 2 of score -> normalise -> weighted sum).
//
// Sections: 1 masks, 2 softmax forward (and how it treats inf / NaN), 3 backward,
// 4 enum names for JSON and UI.
#pragma once

#include <string>
#include <vector>

#include "base/tensor.h"

namespace attn {

// ---------------------------------------------------------------- 1 masks
// A mask says which keys each query may attend to: allowed(i, j) == true means
// query i may look at key j. Masked entries get weight exactly 0.
enum class MaskKind {
  none,      // every key is visible
  causal,    // key j is hidden from query i when j > i (no peeking at the future)
  padding,   // keys at index >= key length are padding and hidden
  explicit_mask  // a caller-supplied BoolMat (n_q, n_k); true = may attend
};

// Everything needed to build a mask. Zero-initialised means "no mask".
struct MaskDesc {
  MaskKind kind = MaskKind::none;
  // padding: one length for every query row (size 1), or one per query row
  // (size n_q). Keys j >= length are hidden. Lengths are clamped to [0, n_k].
  std::vector<int> key_lengths;
  // explicit_mask: (n_q, n_k), true = may attend.
  BoolMat allowed;
};

// Builds the (n_q, n_k) allowed-matrix for `mask`. MaskKind::none gives all true.
// On a shape error (explicit mask of the wrong size, key_lengths neither 1 nor
// n_q long, n_q or n_k negative) it returns an empty matrix and sets *error.
BoolMat build_mask(const MaskDesc& mask, int n_q, int n_k, std::string* error = nullptr);

// ---------------------------------------------------------------- 2 softmax forward
// Row-wise softmax of `logits` (n_q, n_k) restricted to the allowed entries.
// `allowed` is (n_q, n_k) or empty (= everything allowed).
//
// Defined behaviour for awkward inputs (the result never contains NaN or inf):
//  * Large finite logits (e.g. +/-1e4) are fine: the row maximum is subtracted
//    before exp, so the largest term is exp(0) = 1 and nothing overflows.
//  * -inf: weight 0 (exp(-inf) = 0), exactly like a masked entry.
//  * NaN: treated as masked (weight 0); one warning per call says how many.
//  * +inf: if a row has any allowed +inf entries, those entries share the
//    weight equally (1/m each for m of them) and every finite entry gets 0 --
//    the limit of softmax as those logits grow without bound.
//  * A row with no allowed finite-or-+inf entry (fully masked, or all -inf/NaN)
//    gets all-zero weights, and one warning per call names how many rows and
//    the first one. Downstream, such a row's attention output is zero.
// Warnings are appended to *warnings when it is not null.
Mat masked_softmax(const Mat& logits, const BoolMat& allowed, Warnings* warnings = nullptr);

// Plain row-wise softmax (no mask); same inf/NaN rules as above.
Mat softmax_rows(const Mat& logits, Warnings* warnings = nullptr);

// Entropy of row r of a weights matrix, in nats (0 log 0 = 0): 0 when one key
// takes all the weight, log n_k when the weight is spread evenly.
float row_entropy(const Mat& weights, Eigen::Index r);

// ---------------------------------------------------------------- 3 backward
// Given the forward output weights P (n_q, n_k) and dL/dP (n_q, n_k), returns
// dL/dlogits (n_q, n_k) = P .* (dP - rowsum(dP .* P)). Masked and zero-weight
// entries (masked, -inf, NaN, fully masked rows) get gradient 0, because P is 0
// there. (+inf logits are treated as constants: the formula is applied as is.)
Mat softmax_backward(const Mat& weights, const Mat& grad_weights);

// ---------------------------------------------------------------- 4 names
// Stable lower-case names for JSON and UI: "none", "causal", "padding", "explicit".
const char* mask_kind_name(MaskKind kind);
// Returns false (and leaves *kind alone) for an unknown name.
bool parse_mask_kind(const std::string& name, MaskKind* kind);

}  // namespace attn
