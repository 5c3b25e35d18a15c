// code_export.h: every hand-set demo step as a short Python program.
//
// For a hand-set demo (every demo but the trained experiments and the timing
// measurement) demo_code writes a standalone NumPy or PyTorch program that
// rebuilds the step's inputs with the learner's current values -- matrices,
// settings, and any of the lab's seeded random draws, written out as numbers --
// and computes what the panels show, with the lesson's names (Q, K, V, d_k, ...)
// and no library of ours. It prints one JSON line per output it computes:
//
//   {"name": "weights", "value": [[0.42, 0.25, 0.33], ...]}
//
// named like the demo's outputs (DemoOutputs::mats), so a test can set every
// number against the demo's own (tests/lab/test_code_export.cpp). A line may add
// "columns": [0, 1, ...] when it holds only those columns of the output (the d_k
// demo's curves stop at the current d_k, the widest its draws reach).
// Pure: no UI, no files.
#pragma once

#include <string>

#include "lab/demos.h"

namespace attn {

enum class CodeLang { numpy, torch };

// Whether a demo has a program (the hand-set demos).
bool demo_has_code(const std::string& demo);

// The program for `demo` at inputs `in` (settings it leaves out at their
// defaults); `title` goes into its first comment line. "" when the demo has no
// program or the inputs do not compute (run_demo reports an error).
std::string demo_code(const std::string& demo, const DemoInputs& in, CodeLang lang, const std::string& title = "");

}  // namespace attn
