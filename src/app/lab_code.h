// lab_code.h: the Code view's program for the step shown (lab_code.cpp). A
// hand-set step has a NumPy or PyTorch program (lab/catalog.h, demo_code); the
// translator's and the induction model's steps have their trained model's NumPy
// program, with its weights as JSON (experiments/weights_export.h; both empty
// until the model is built); other steps have none. The program is made again
// only when what it shows changed: the step, the lab's revision or the language.
#pragma once

#include <string>

#include "course/demo_api.h"
#include "course/lesson.h"
#include "experiments/experiments.h"

class StepCode {
 public:
  // What a program is made from: the step shown and the learner's values.
  struct Source {
    const attn::Lesson* lesson = nullptr;
    const attn::LessonStep* step = nullptr;
    int step_index = 0;
    std::string key;      // the step's key, "lesson/step-id"
    long revision = 0;    // changes whenever the values or the outputs do
    const attn::DemoInputs* inputs = nullptr;
    const attn::Experiment* experiment = nullptr;  // the step's live experiment, if any
  };
  static bool trained(const Source& s);    // a trained model's program
  static bool available(const Source& s);  // any program
  const std::string& program(const Source& s);
  const std::string& weights(const Source& s);  // the trained model's weights ("" otherwise)

  bool open = false;             // the view is open
  std::string lang = "numpy";    // "numpy" or "torch"
  double copied_at = -1e9;       // when a program or weights were last copied (ms)

 private:
  std::string text_, made_for_, weights_;
};
