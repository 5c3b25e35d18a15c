// experiment_test_util.h: small helpers shared by the experiments' tests
// (test_experiments, test_experiment_lm, test_experiment_modern).
#pragma once

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "base/json.h"
#include "course/demo_api.h"
#include "experiments/experiments.h"

namespace attn::test {

// Whether a demo's outputs hold the panel with this id.
inline bool has_panel(const DemoOutputs& out, const std::string& id) {
  for (const auto& p : out.panels)
    if (p.id == id) return true;
  return false;
}

// An experiment's inputs with these settings (the others take their defaults).
inline DemoInputs settings(std::initializer_list<std::pair<const std::string, std::string>> s) {
  DemoInputs in;
  in.settings = s;
  return in;
}

// A number of a status object; the test stops when the field is missing.
inline double number(const json::Value& v, const char* key) {
  const json::Value* x = v.find(key);
  REQUIRE_MESSAGE(x != nullptr, key);
  return x->as_number();
}

// Advances the experiment until it is done (at most 100,000 slices of 50 ms).
inline void run_to_end(Experiment& ex) {
  for (int i = 0; i < 100000 && !ex.done(); ++i) ex.advance(50.0);
  REQUIRE(ex.done());
}

}  // namespace attn::test
