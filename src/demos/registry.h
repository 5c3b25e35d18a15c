// registry.h: the hand-set demos, as a table the course reads through its
// DemoCatalog interface. The main header of the demos room.
//
// The demos room (src/demos, library attn_demos) holds every hand-set demo: small
// matrices a learner edits, and everything computed from them. One demo group,
// one file: basics.cpp (A1-A6), learned.cpp (A6: projections trained from a
// random start), scoring.cpp (B1), kinds.cpp (B2-B3),
// self_attention.cpp (D1-D2), position.cpp (D3-D5), block.cpp (the Transformer
// block), tasks.cpp (C2, F3, F7), recurrent.cpp (E3), text_tasks.cpp (F4, F8),
// tiles.cpp (I5).
// Each file keeps together its demos' parameter specs, shape checks, compute
// functions, panels and their NumPy/PyTorch export
// (the code_writer.h emitter), and ends with a function that adds its entries to
// the table. kit.h is what the groups share: spec shorthands, input readers,
// formatting and panel builders. registry.cpp checks a step's parameters against
// a demo's specs and runs it.
//
// It may include base, attn, data, train and course. It never includes
// experiments or lab: the live experiments register their own entries from
// src/experiments (live_demos.cpp), and src/lab/catalog.h joins the two tables.
//
// Where things go:
//   - a new hand-set demo: a DemoEntry (specs, check, run, and its code export) in
//     the file of its group, or a new group file with its add_*_demos function
//     listed in hand_set_demo_entries (registry.cpp) and in CMakeLists.txt; then
//     list it in lessons/README.md and pin its numbers in tests/demos;
//   - a trained demo (an experiment): src/experiments;
//   - a lesson: lessons/ (data).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "course/demo_api.h"

namespace attn {

namespace demo_impl {
class Py;  // the NumPy/PyTorch emitter (code_writer.h)
}

// A parameter a demo takes from its step.
struct ParamSpec {
  enum class Kind {
    tokens,  // "a | b | c": the row labels, DemoInputs::tokens
    labels,  // another "|"-separated list, kept as a setting (e.g. decoder tokens)
    text,    // free text kept as a setting (e.g. the query word's label)
    matrix,  // an editable matrix, DemoInputs::mats
    choice,  // one of `options`, kept as a setting
    number   // a number in [min, max] (whole when `integer`), kept as a setting
  };
  std::string name;
  Kind kind = Kind::matrix;
  bool required = true;             // false: `fallback` is used (settings) or the demo copes
  std::vector<std::string> options; // choice
  float min = 0.0f, max = 0.0f;     // number
  bool integer = false;             // number
  std::string fallback;             // settings: the value when the step gives none
};

// A shape or consistency problem, named by the parameter it concerns ("" = the step).
struct Problem {
  std::string param;
  std::string message;
};

enum class CodeLang { numpy, torch };

// One demo of the table.
struct DemoEntry {
  const char* name;
  std::vector<ParamSpec> params;
  // Checks shapes and consistency of inputs that already match `params`.
  void (*check)(const DemoInputs& in, std::vector<Problem>& problems);
  // Computes; may assume check() found nothing.
  DemoOutputs (*run)(const DemoInputs& in);
  // Writes the demo as a NumPy program through the emitter (which turns it into
  // PyTorch when asked) and returns the line saying what it computes; null for
  // a demo without a program (the experiments).
  std::string (*code)(demo_impl::Py& P, const DemoInputs& in) = nullptr;
};

// A table of demos: the course's DemoCatalog, and what tools and tests ask of it.
class DemoTable final : public DemoCatalog {
 public:
  explicit DemoTable(std::vector<DemoEntry> entries) : entries_(std::move(entries)) {}

  std::vector<DemoIssue> check_params(const std::string& demo, const LessonParams& params) const override;
  DemoInputs defaults(const std::string& demo, const LessonParams& params) const override;
  DemoOutputs run(const std::string& demo, const DemoInputs& in) const override;

  const DemoEntry* find(const std::string& demo) const;
  const std::vector<DemoEntry>& entries() const { return entries_; }
  // Every demo, in table order (for tests and tools).
  std::vector<std::string> names() const;
  // Names of the matrices a learner may edit in this demo, in display order.
  std::vector<std::string> editable(const std::string& demo) const;
  // The settings (non-matrix parameters) a demo reads, with the value used when a
  // step does not give one ("" = required). defaults() already fills these in.
  std::map<std::string, std::string> setting_defaults(const std::string& demo) const;

  // The demo as a standalone NumPy or PyTorch program (code_writer.h): whether it
  // has one, and the program at inputs `in` (settings it leaves out at their
  // defaults; `title` goes into its first comment line). "" when the demo has no
  // program or the inputs do not compute.
  bool has_code(const std::string& demo) const;
  std::string code(const std::string& demo, const DemoInputs& in, CodeLang lang, const std::string& title = "") const;

 private:
  std::vector<DemoEntry> entries_;
};

// The hand-set demos' entries, group by group (the live experiments add theirs in
// src/experiments), and a table of them alone.
std::vector<DemoEntry> hand_set_demo_entries();
const DemoTable& hand_set_demos();

}  // namespace attn
