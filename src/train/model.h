// model.h: what every trainable model of the lab shares, so that a model holds
// only its own maths: its layers, its forward pass and its backward pass.
//
//   - the parameter registry: params() lists every trainable tensor in one fixed
//     order (the optimiser keeps its moments by position in it, and a training
//     worker's snapshots copy the weights by it);
//   - the optimiser and the step count;
//   - the training step: zero the gradients, run each example of the batch
//     forward and backward in batch order, then one optimiser update (the
//     language model overrides forward_backward: its batch goes through each
//     product at once, and its examples' gradients are summed along a fixed
//     tree, grad_tree.h).
//
// A model derives from Model<Example> and provides
//
//   void collect(ParamList& p)                           its tensors, always in the same order
//   double example_gradient(const Set&, int i, float s)  example set[i]: its loss, summed over its
//                                                        units, with the gradient of s times that
//                                                        sum ADDED into the parameters' grads
//   double example_loss(const Set&, int i) const         the same loss without gradients
//
// The batch loss is the mean over units: examples by default, or what
// batch_units() counts (the translator's target tokens). Sums are kept in
// double and taken in batch order, so a seeded run gives the same bits natively
// and in WebAssembly.
#pragma once

#include <algorithm>
#include <vector>

#include "train/optim.h"
#include "train/param.h"

namespace attn::train {

template <typename Example>
class Model {
 public:
  using Set = std::vector<Example>;
  virtual ~Model() = default;

  // The parameter registry.
  ParamList params() {
    ParamList p;
    collect(p);
    return p;
  }
  long parameter_count() { return count_values(params()); }

  // Mean loss over the batch (indices into `set`); zeroes the gradients, then
  // accumulates them. Does not update the weights.
  virtual float forward_backward(const Set& set, const std::vector<int>& batch) {
    zero_grads(params());
    const int units = batch_units(set, batch);
    if (units == 0) return 0.0f;
    const float scale = 1.0f / float(units);
    double total = 0.0;
    for (int i : batch) total += example_gradient(set, i, scale);
    return float(total / double(units));
  }
  // The same loss, without gradients.
  virtual float loss(const Set& set, const std::vector<int>& batch) const {
    const int units = batch_units(set, batch);
    if (units == 0) return 0.0f;
    double total = 0.0;
    for (int i : batch) total += example_loss(set, i);
    return float(total / double(units));
  }
  // forward_backward, then one optimiser update; returns the batch loss.
  float train_step(const Set& set, const std::vector<int>& batch) { return apply_update(forward_backward(set, batch)); }
  // The update half of a step, for gradients already in Param::grad (a model
  // whose batch was shared among workers, char_lm.h): one optimiser update;
  // returns `loss`, the batch's.
  float apply_update(float loss) {
    before_update(loss);
    optimizer.step(params());
    ++steps_;
    return loss;
  }

  long steps() const { return steps_; }
  Optimizer optimizer;

 protected:
  explicit Model(const OptimizerDesc& optimizer_desc) { optimizer.desc = optimizer_desc; }
  Model(const Model&) = default;
  Model& operator=(const Model&) = default;

  virtual void collect(ParamList& p) = 0;
  virtual double example_gradient(const Set& set, int i, float scale) = 0;
  virtual double example_loss(const Set& set, int i) const = 0;
  // How many units the batch's loss is a mean over (0: the loss is 0).
  virtual int batch_units(const Set& /*set*/, const std::vector<int>& batch) const { return int(batch.size()); }
  // Called with the batch loss just before the optimiser's update (the
  // REINFORCE baseline follows the rewards here).
  virtual void before_update(float /*loss*/) {}

  long steps_ = 0;

};

}  // namespace attn::train
