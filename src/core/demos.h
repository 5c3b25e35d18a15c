// demos.h: the live demos a lesson step can show, as data plus a pure compute.
//
// A step names a demo ("demo: qkv_basic") and gives its parameters. The registry
// here says which parameters each demo takes, checks them when lessons load, and
// computes the demo's outputs from the learner's current values every frame.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/lesson.h"
#include "core/tensor.h"

namespace attn {

struct DemoIssue {
  int line = 0;  // line of the offending parameter, 0 = the step itself
  std::string message;
};

// Checks a step's parameters against demo `demo`. Empty result = valid.
std::vector<DemoIssue> check_demo_params(const std::string& demo,
                                         const std::map<std::string, LessonValue>& params);

// What the learner can change: every matrix parameter, by name, plus settings.
struct DemoInputs {
  std::map<std::string, Mat> mats;             // e.g. "q" (n, d)
  std::map<std::string, std::string> settings; // e.g. "score" -> "dot"
  std::vector<std::string> tokens;             // labels of the rows
};

struct DemoOutputs {
  std::map<std::string, Mat> mats;  // e.g. "scores" (n_q, n_k), "weights", "output"
  Warnings warnings;
  std::string error;  // the inputs cannot be computed (e.g. NaN typed in)
};

// The starting values of a validated step.
DemoInputs demo_defaults(const LessonStep& step);

// Recomputes a demo's outputs from the current inputs. Pure; cheap at lesson sizes.
DemoOutputs run_demo(const std::string& demo, const DemoInputs& in);

// Names of the matrices a learner may edit in this demo, in display order.
std::vector<std::string> demo_editable(const std::string& demo);

}  // namespace attn
