// param.cpp: parameter creation, initialisation and gradient bookkeeping.
#include "train/param.h"

#include <cmath>

namespace attn::train {

Param make_param(const std::string& name, int rows, int cols) {
  Param p;
  p.name = name;
  p.value = Mat::Zero(rows, cols);
  p.grad = Mat::Zero(rows, cols);
  return p;
}

void uniform_init(Param& p, Rng& rng, float limit) {
  for (Eigen::Index k = 0; k < p.value.size(); ++k) p.value.data()[k] = rng.uniform(-limit, limit);
}

void glorot_uniform(Param& p, Rng& rng, int fan_in, int fan_out) {
  const int fans = fan_in + fan_out > 0 ? fan_in + fan_out : 1;
  uniform_init(p, rng, std::sqrt(6.0f / float(fans)));
}

void glorot_uniform(Param& p, Rng& rng) { glorot_uniform(p, rng, int(p.value.rows()), int(p.value.cols())); }

void zero_grads(const ParamList& params) {
  for (Param* p : params) p->grad.setZero(p->value.rows(), p->value.cols());
}

long count_values(const ParamList& params) {
  long n = 0;
  for (const Param* p : params) n += long(p->value.size());
  return n;
}

double grad_norm(const ParamList& params) {
  double s = 0.0;
  for (const Param* p : params)
    for (Eigen::Index k = 0; k < p->grad.size(); ++k) s += double(p->grad.data()[k]) * double(p->grad.data()[k]);
  return std::sqrt(s);
}

double clip_grad_norm(const ParamList& params, float max_norm) {
  const double norm = grad_norm(params);
  if (max_norm > 0.0f && norm > double(max_norm)) {
    const float scale = float(double(max_norm) / norm);
    for (Param* p : params)
      for (Eigen::Index k = 0; k < p->grad.size(); ++k) p->grad.data()[k] *= scale;
  }
  return norm;
}

}  // namespace attn::train
