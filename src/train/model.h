// model.h: what every trainable model of the lab shares, so that a model holds
// only its own maths: its layers, its forward pass and its backward pass.
//
//   - the parameter registry: params() lists every trainable tensor in one fixed
//     order (the optimiser keeps its moments by position in it, and a training
//     worker's snapshots copy the weights by it);
//   - the optimiser and the step count;
//   - the training step: zero the gradients, run each example of the batch
//     forward and backward in batch order, then one optimiser update. The same
//     step can be taken in parts (begin_step, accumulate over consecutive ranges
//     of the batch, finish_step) so a page can spread a long one over frames; the
//     parts visit the examples in the same order, so the loss, the gradients and
//     the weights are the same bits.
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
    begin_step();
    accumulate(set, batch, 0, int(batch.size()));
    return mean_loss(set, batch);
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
  float train_step(const Set& set, const std::vector<int>& batch) {
    const float l = forward_backward(set, batch);
    update(l);
    return l;
  }

  // The step in parts: begin_step(), accumulate() over consecutive ranges
  // [begin, end) of the batch, then finish_step() with the same set and batch,
  // which updates the weights and returns the batch loss. False from
  // splits_steps() means a step must be whole (train_step).
  virtual bool splits_steps() const { return true; }
  void begin_step() {
    zero_grads(params());
    part_total_ = 0.0;
  }
  void accumulate(const Set& set, const std::vector<int>& batch, int begin, int end) {
    const int units = batch_units(set, batch);
    if (units == 0) return;
    const float scale = 1.0f / float(units);
    for (int k = std::max(0, begin); k < std::min(end, int(batch.size())); ++k)
      part_total_ += example_gradient(set, batch[size_t(k)], scale);
  }
  float finish_step(const Set& set, const std::vector<int>& batch) {
    const float l = mean_loss(set, batch);
    update(l);
    return l;
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

 private:
  float mean_loss(const Set& set, const std::vector<int>& batch) const {
    const int units = batch_units(set, batch);
    return units == 0 ? 0.0f : float(part_total_ / double(units));
  }
  void update(float l) {
    before_update(l);
    optimizer.step(params());
    ++steps_;
  }

  double part_total_ = 0.0;  // the losses accumulated in this step
};

}  // namespace attn::train
