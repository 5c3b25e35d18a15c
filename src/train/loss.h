// loss.h: the two losses the models use, computed from logits (never from
// probabilities, which would lose precision and overflow).
//
//   softmax cross-entropy   L = -log softmax(z)_y = logsumexp(z) - z_y
//                           dL/dz = softmax(z) - onehot(y)
//   binary cross-entropy    p = sigmoid(z), L = -(y log p + (1 - y) log(1 - p))
//                             = max(z, 0) - z y + log(1 + e^{-|z|})
//                           dL/dz = sigmoid(z) - y
#pragma once

#include <vector>

#include "base/tensor.h"

namespace attn::train {

// One row of logits z (C entries) and the target class y in [0, C). Returns
// -log p_y. When dz is not null it receives scale * (softmax(z) - onehot(y)).
// Stable: the maximum logit is subtracted before exp, so no term overflows and
// logsumexp >= max(z).
float softmax_cross_entropy_row(const float* z, int C, int y, float* dz, float scale);
// The same with the exponentials from fmath.h's float exp_fast (a loop that
// vectorises; the sum and the log stay in double): the language model's loss
// since issue 36. `e` holds C floats of scratch.
float softmax_cross_entropy_row_fast(const float* z, int C, int y, float* dz, float scale, float* e);

// Logits (n, C), targets (n). Returns the MEAN loss over the n rows; dz (if not
// null) is resized and receives its gradient (each row scaled by 1 / n).
float softmax_cross_entropy(const Mat& logits, const std::vector<int>& targets, Mat* dz);

// One logit z and a label y in {0, 1} (or a soft label in [0, 1]). Returns the
// loss; *dz (if not null) receives scale * (sigmoid(z) - y).
float binary_cross_entropy_logit(float z, float y, float* dz, float scale);

// Index of the largest entry (the first on ties).
int argmax(const float* z, int n);

}  // namespace attn::train
