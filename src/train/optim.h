// optim.h: stochastic gradient descent (with optional momentum) and Adam.
//
//   SGD:       v <- mu v + g;              w <- w - lr v          (mu = 0: plain SGD)
//   Adam:      m <- b1 m + (1 - b1) g;     v <- b2 v + (1 - b2) g^2
//              m^ = m / (1 - b1^t);        v^ = v / (1 - b2^t)   (bias correction:
//              m and v start at 0, so early averages are too small by exactly
//              the factor 1 - b^t; dividing by it removes that bias)
//              w <- w - lr m^ / (sqrt(v^) + eps)
//
// The optimiser keeps one moment matrix per parameter, matched by position in
// the ParamList, so a model must always list its parameters in the same order.
#pragma once

#include <vector>

#include "base/tensor.h"
#include "train/param.h"

namespace attn::train {

enum class OptimizerKind { sgd, adam };

struct OptimizerDesc {
  OptimizerKind kind = OptimizerKind::adam;
  float lr = 1e-3f;          // learning rate
  float momentum = 0.0f;     // SGD only
  float beta1 = 0.9f;        // Adam
  float beta2 = 0.999f;      // Adam
  float eps = 1e-8f;         // Adam: keeps the step finite when v^ is ~0
  float clip_norm = 0.0f;    // > 0: clip the global gradient norm first
};

struct Optimizer {
  OptimizerDesc desc;
  int t = 0;                 // steps taken
  double beta1_t = 1.0;      // b1^t and b2^t, kept as running products
  double beta2_t = 1.0;
  std::vector<Mat> m;        // first moments (SGD: the velocity)
  std::vector<Mat> v;        // second moments (Adam only)
  double last_grad_norm = 0.0;  // before clipping, of the latest step

  // One update from the gradients currently stored in params (not zeroed here).
  void step(const ParamList& params);
  // Forget all moments and the step count (the parameters are untouched).
  void reset();
};

const char* optimizer_kind_name(OptimizerKind kind);  // "sgd", "adam"

}  // namespace attn::train
