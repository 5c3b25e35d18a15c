// optim.cpp: SGD and Adam updates (formulas in optim.h), element by element.
#include "train/optim.h"

#include <cmath>

namespace attn::train {

void Optimizer::reset() {
  t = 0;
  beta1_t = beta2_t = 1.0;
  m.clear();
  v.clear();
  last_grad_norm = 0.0;
}

void Optimizer::step(const ParamList& params) {
  if (m.size() != params.size()) {
    m.assign(params.size(), Mat());
    v.assign(params.size(), Mat());
    for (size_t i = 0; i < params.size(); ++i) {
      m[i] = Mat::Zero(params[i]->value.rows(), params[i]->value.cols());
      if (desc.kind == OptimizerKind::adam) v[i] = m[i];
    }
  }
  last_grad_norm = desc.clip_norm > 0.0f ? clip_grad_norm(params, desc.clip_norm) : 0.0;
  ++t;
  if (desc.kind == OptimizerKind::sgd) {
    for (size_t i = 0; i < params.size(); ++i) {
      float* w = params[i]->value.data();
      const float* g = params[i]->grad.data();
      float* vel = m[i].data();
      for (Eigen::Index k = 0; k < m[i].size(); ++k) {
        vel[k] = desc.momentum * vel[k] + g[k];
        w[k] -= desc.lr * vel[k];
      }
    }
    return;
  }
  beta1_t *= double(desc.beta1);
  beta2_t *= double(desc.beta2);
  const float correct1 = float(1.0 / (1.0 - beta1_t));  // 1 / (1 - b1^t)
  const float correct2 = float(1.0 / (1.0 - beta2_t));
  // Element by element; the settings in locals and the four arrays known
  // apart, so the loop vectorises (the same operations on each element).
  const float b1 = desc.beta1, b2 = desc.beta2, lr = desc.lr, eps = desc.eps;
  for (size_t i = 0; i < params.size(); ++i) {
    float* __restrict w = params[i]->value.data();
    const float* __restrict g = params[i]->grad.data();
    float* __restrict mi = m[i].data();
    float* __restrict vi = v[i].data();
    const Eigen::Index n = m[i].size();
    for (Eigen::Index k = 0; k < n; ++k) {
      mi[k] = b1 * mi[k] + (1.0f - b1) * g[k];
      vi[k] = b2 * vi[k] + (1.0f - b2) * (g[k] * g[k]);
      const float m_hat = mi[k] * correct1;
      const float v_hat = vi[k] * correct2;
      w[k] -= lr * m_hat / (std::sqrt(v_hat) + eps);  // sqrt is exactly rounded
    }
  }
}

const char* optimizer_kind_name(OptimizerKind kind) { return kind == OptimizerKind::sgd ? "sgd" : "adam"; }

}  // namespace attn::train
