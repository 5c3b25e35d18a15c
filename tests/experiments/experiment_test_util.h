// experiment_test_util.h: small helpers shared by the experiments' tests
// (test_experiments, test_experiment_lm).
#pragma once

#include <string>

#include "course/demo_api.h"

namespace attn::test {

// Whether a demo's outputs hold the panel with this id.
inline bool has_panel(const DemoOutputs& out, const std::string& id) {
  for (const auto& p : out.panels)
    if (p.id == id) return true;
  return false;
}

}  // namespace attn::test
