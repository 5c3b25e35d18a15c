// param.h: a trainable parameter (its value and the gradient of the loss with
// respect to it), the list a model hands to its optimiser, and seeded
// initialisation.
//
// Every parameter is a Mat; a bias of width m is a (1, m) row. A model owns its
// Params as members and returns pointers to them from params(), always in the
// same order (the optimiser keeps its moments by position in that list).
#pragma once

#include <string>
#include <vector>

#include "base/rng.h"
#include "base/tensor.h"

namespace attn::train {

struct Param {
  std::string name;  // e.g. "encoder.W_x": for gradient checks and the UI
  Mat value;
  Mat grad;          // same shape as value; backward passes ADD into it
};

using ParamList = std::vector<Param*>;

// A zero (rows, cols) parameter with a zero gradient.
Param make_param(const std::string& name, int rows, int cols);

// Glorot / Xavier uniform (Glorot & Bengio 2010): U(-a, a), a = sqrt(6 / (fan_in
// + fan_out)), so the variance of activations and of gradients stays about the
// same from layer to layer. Fills row by row from `rng`.
void glorot_uniform(Param& p, Rng& rng, int fan_in, int fan_out);
// Shorthand: fan_in = rows, fan_out = cols (the x-times-W convention).
void glorot_uniform(Param& p, Rng& rng);
// U(-limit, limit), row by row (embeddings use this).
void uniform_init(Param& p, Rng& rng, float limit);

void zero_grads(const ParamList& params);
// Total number of trainable numbers.
long count_values(const ParamList& params);
// sqrt(sum of every squared gradient entry), accumulated in double.
double grad_norm(const ParamList& params);
// If grad_norm > max_norm > 0, scales every gradient by max_norm / grad_norm
// (keeps the direction; stops one exploding RNN step from wrecking the weights).
// Returns the norm before clipping.
double clip_grad_norm(const ParamList& params, float max_norm);

}  // namespace attn::train
