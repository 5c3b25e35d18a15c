// lab_code.cpp: the Code view's program for the step shown (lab_code.h).
#include "app/lab_code.h"

#include <utility>

#include "experiments/weights_export.h"
#include "lab/catalog.h"

bool StepCode::trained(const Source& s) {
  return s.step && s.experiment && (s.step->demo == "train_translation" || s.step->demo == "train_induction");
}

bool StepCode::available(const Source& s) { return s.step && (attn::demo_has_code(s.step->demo) || trained(s)); }

const std::string& StepCode::program(const Source& s) {
  static const std::string none;
  if (!available(s)) return none;
  const std::string made_for = s.key + "@" + std::to_string(s.revision) + "@" + lang;
  if (made_for_ != made_for) {
    weights_.clear();
    if (trained(s)) {
      // The trained model: its weights and the program that loads them (empty
      // until the model is built).
      attn::TrainedExport e;
      text_ = attn::export_trained(*s.experiment, &e) ? e.program : std::string();
      weights_ = std::move(e.json);
    } else {
      text_ = attn::demo_code(s.step->demo, *s.inputs, lang == "torch" ? attn::CodeLang::torch : attn::CodeLang::numpy,
                              s.lesson->title.get("en") + ", step " + std::to_string(s.step_index + 1) + ": " +
                                  s.step->title.get("en"));
    }
    made_for_ = made_for;
  }
  return text_;
}

const std::string& StepCode::weights(const Source& s) {
  program(s);  // made with the program
  return weights_;
}
