// catalog.cpp: the lab's demo table and its lessons (catalog.h).
#include "lab/catalog.h"

#include <fstream>
#include <sstream>

#include "experiments/experiments.h"
#include "lab/embedded.h"

namespace attn {

const DemoTable& lab_demos() {
  static const DemoTable table = [] {
    std::vector<DemoEntry> all = hand_set_demo_entries();
    for (DemoEntry& e : live_demo_entries()) all.push_back(std::move(e));
    return DemoTable(std::move(all));
  }();
  return table;
}

std::vector<DemoIssue> check_demo_params(const std::string& demo, const LessonParams& params) {
  return lab_demos().check_params(demo, params);
}
DemoInputs demo_defaults(const LessonStep& step, const std::string& lang) {
  return lab_demos().defaults(step.demo, params_for(step, lang));
}
DemoOutputs run_demo(const std::string& demo, const DemoInputs& in) { return lab_demos().run(demo, in); }
std::vector<std::string> demo_editable(const std::string& demo) { return lab_demos().editable(demo); }
std::vector<std::string> demo_names() { return lab_demos().names(); }
std::map<std::string, std::string> demo_setting_defaults(const std::string& demo) {
  return lab_demos().setting_defaults(demo);
}
bool demo_has_code(const std::string& demo) { return lab_demos().has_code(demo); }
std::string demo_code(const std::string& demo, const DemoInputs& in, CodeLang lang, const std::string& title) {
  return lab_demos().code(demo, in, lang, title);
}

LessonSet load_embedded_lessons() {
  auto read = [](std::string_view name, std::string& out, void*) {
    const EmbeddedFile* f = find_embedded_lesson(name);
    if (!f) return false;
    out.assign(f->data, f->size);
    return true;
  };
  return load_lessons(read, nullptr, lab_demos());
}

LessonSet load_lesson_folder(const std::string& dir) {
  auto read = [](std::string_view name, std::string& out, void* folder) {
    std::ifstream f(*static_cast<const std::string*>(folder) + "/" + std::string(name), std::ios::binary);
    if (!f) return false;
    std::stringstream ss;
    ss << f.rdbuf();
    out = ss.str();
    return true;
  };
  std::string folder = dir;
  return load_lessons(read, &folder, lab_demos());
}

}  // namespace attn
