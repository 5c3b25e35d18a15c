// weights_export.h: a trained model of a live experiment as JSON weights and a
// NumPy program that loads them and reproduces the prediction the page shows on
// the example it shows (the translator and the induction model). The JSON layout
// is in docs/weights.md:
//
//   {"format": "attention-lab-weights", "version": 1, "model": "induction",
//    "config": {...},                  the model's sizes and settings
//    "params": {"layer1.W_Q": [[...]], ...},   every trained tensor by name, row by row
//    "shown": {...}}                   the example the page shows and what it predicts
//
// The program reads the JSON's path from its first argument and prints one JSON
// line per output, like the Code view's programs ({"name": ..., "value": [[...]]}),
// named like the entries of "shown" it reproduces.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "experiments/experiments.h"

namespace attn {

struct TrainedExport {
  std::string json;     // the weights and the shown example
  std::string program;  // NumPy: python3 program.py weights.json
};

// The export of experiment `e` (train_translation or train_induction, once it has
// built its model); false for the other experiments or before prepare().
bool export_trained(const Experiment& e, TrainedExport* out);

namespace experiment_impl {
// What an experiment hands over (experiment_translation.cpp, experiment_induction.cpp).
struct TrainedModel {
  std::string model;                                 // "translation" or "induction"
  json::Value config = json::Value::object();
  std::vector<std::pair<std::string, Mat>> params;   // name -> value, in the model's order
  json::Value shown = json::Value::object();
};
bool translation_model(const Experiment& e, TrainedModel* out);
bool induction_model(const Experiment& e, TrainedModel* out);
}  // namespace experiment_impl

}  // namespace attn
