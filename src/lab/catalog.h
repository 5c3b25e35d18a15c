// catalog.h: the lab's whole demo table -- the hand-set demos (src/demos) and the
// live experiments (src/experiments) together -- and the lessons as shipped,
// checked against it. The main header of the lab room.
//
// The lab room (src/lab, library attn_lab) is the top of the headless layers: it
// only joins the rooms below it. It may include base, attn, data, train, course,
// demos and experiments; the CLI, the UI, the app and the tests include it.
// Nothing is computed here.
//
// Where things go:
//   - a new hand-set demo: src/demos (registry.h says how);
//   - a new trained experiment: src/experiments (experiments.h says how);
//   - a new lesson: lessons/ (data), listed in lessons/index.txt;
//   - a new room: a folder of src/ with its library, a rule in
//     cmake/check_layers.cmake, and its place in the README's Layout table.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "course/lesson.h"
#include "demos/registry.h"

namespace attn {

// Every demo a lesson may name: the hand-set ones, then the experiments.
const DemoTable& lab_demos();

// The same table, function by function (registry.h says what each does).
std::vector<DemoIssue> check_demo_params(const std::string& demo, const LessonParams& params);
// The starting values of a validated step for a reader of `lang`: the demos are
// asked with the step's parameters in that language (params_for in lesson.h).
DemoInputs demo_defaults(const LessonStep& step, const std::string& lang);
DemoOutputs run_demo(const std::string& demo, const DemoInputs& in);
std::vector<std::string> demo_editable(const std::string& demo);
std::vector<std::string> demo_names();
std::map<std::string, std::string> demo_setting_defaults(const std::string& demo);
bool demo_has_code(const std::string& demo);
std::string demo_code(const std::string& demo, const DemoInputs& in, CodeLang lang, const std::string& title = "");

// The lessons compiled into the binary at build time (embedded.h), loaded and
// checked against lab_demos().
LessonSet load_embedded_lessons();
// The lessons of a folder on disk (index.txt and its files), checked the same way
// (the desktop's and the CLI's --lessons DIR).
LessonSet load_lesson_folder(const std::string& dir);

}  // namespace attn
